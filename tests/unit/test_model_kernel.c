/* test_model_kernel.c - device performance and roofline kernel times. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "model_kernel.h"
#include "model_train.h"

static void assert_rel(double got, double want, double tol)
{
	double scale = fabs(want) > 0.0 ? fabs(want) : 1.0;

	if (!(fabs(got - want) <= tol * scale)) {
		print_error("got %.17g, want %.17g (tol %g)\n", got, want, tol);
		fail();
	}
}

/* A100-SXM-like: no fp8, 2:4 sparsity. */
static struct gpu_spec a100(void)
{
	struct gpu_spec g;

	memset(&g, 0, sizeof(g));
	strcpy(g.name, "A100-test");
	g.mem_bytes = 80e9;
	g.mem_bw_bytes_per_s = 2.039e12;
	g.peak_flops[PREC_FP32] = 19.5e12;
	g.peak_flops[PREC_TF32] = 156e12;
	g.peak_flops[PREC_BF16] = 312e12;
	g.peak_flops[PREC_FP16] = 312e12;
	g.peak_flops[PREC_INT8] = 624e12;
	g.sparsity_2_4 = true;
	g.matmul_eff = 0.85;
	g.mem_eff = 0.9;
	g.tdp_w = 400.0;
	g.idle_w = 50.0;
	g.gpus_per_node = 8;
	return g;
}

/* H100-SXM-like: much more math per byte of bandwidth. */
static struct gpu_spec h100(void)
{
	struct gpu_spec g = a100();

	strcpy(g.name, "H100-test");
	g.mem_bw_bytes_per_s = 3.35e12;
	g.peak_flops[PREC_BF16] = 989.4e12;
	g.peak_flops[PREC_FP16] = 989.4e12;
	g.peak_flops[PREC_FP8] = 1978.8e12;
	g.matmul_eff = 0.8;
	return g;
}

static void test_perf_direct(void **state)
{
	struct gpu_spec g = a100();
	struct device_perf d;

	(void)state;
	assert_int_equal(device_perf_init(&d, &g, PREC_BF16, false), 0);
	assert_rel(d.peak_flops, 312e12, 0.0);
	assert_rel(d.mem_bw_bytes_per_s, 2.039e12, 0.0);
	assert_rel(d.matmul_eff, 0.85, 0.0);
	assert_rel(d.mem_eff, 0.9, 0.0);
	assert_rel(d.elem_bytes, 2.0, 0.0);
	assert_int_equal(device_perf_init(&d, &g, PREC_TF32, false), 0);
	assert_rel(d.peak_flops, 156e12, 0.0);
	assert_rel(d.elem_bytes, 4.0, 0.0);
}

/* fp8 GEMMs run at the row's fp8_matmul_eff where it gives one; every
   other precision, and fp8 falling back to bf16, at matmul_eff. */
static void test_perf_fp8_efficiency(void **state)
{
	struct gpu_spec g = h100();
	struct gpu_spec a = a100();
	struct device_perf d;

	(void)state;
	assert_int_equal(device_perf_init(&d, &g, PREC_FP8, false), 0);
	assert_rel(d.matmul_eff, 0.8, 0.0); /* not given: matmul_eff */
	g.fp8_matmul_eff = 0.66;
	assert_int_equal(device_perf_init(&d, &g, PREC_FP8, false), 0);
	assert_rel(d.peak_flops, 1978.8e12, 0.0);
	assert_rel(d.matmul_eff, 0.66, 0.0);
	assert_int_equal(device_perf_init(&d, &g, PREC_BF16, false), 0);
	assert_rel(d.matmul_eff, 0.8, 0.0);
	/* int8 falls back to fp8 on a device without int8 math */
	g.peak_flops[PREC_INT8] = 0.0;
	assert_int_equal(device_perf_init(&d, &g, PREC_INT8, false), 0);
	assert_rel(d.peak_flops, 1978.8e12, 0.0);
	assert_rel(d.matmul_eff, 0.66, 0.0);
	/* an A100 has no fp8: bf16 math at its bf16 efficiency */
	a.fp8_matmul_eff = 0.5;
	assert_int_equal(device_perf_init(&d, &a, PREC_FP8, false), 0);
	assert_rel(d.peak_flops, 312e12, 0.0);
	assert_rel(d.matmul_eff, 0.85, 0.0);
}

static void test_perf_fallbacks(void **state)
{
	struct gpu_spec g = a100();
	struct device_perf d;

	(void)state;
	/* fp8 on a device without it: bf16 math */
	assert_int_equal(device_perf_init(&d, &g, PREC_FP8, false), 0);
	assert_rel(d.peak_flops, 312e12, 0.0);

	/* fp16 on a bf16-only device and the other way round */
	g.peak_flops[PREC_FP16] = 0.0;
	g.peak_flops[PREC_BF16] = 301.7e12;
	assert_int_equal(device_perf_init(&d, &g, PREC_FP16, false), 0);
	assert_rel(d.peak_flops, 301.7e12, 0.0);
	g.peak_flops[PREC_FP16] = 287.3e12;
	g.peak_flops[PREC_BF16] = 0.0;
	assert_int_equal(device_perf_init(&d, &g, PREC_BF16, false), 0);
	assert_rel(d.peak_flops, 287.3e12, 0.0);

	/* neither 16-bit format: tf32 */
	g.peak_flops[PREC_FP16] = 0.0;
	assert_int_equal(device_perf_init(&d, &g, PREC_BF16, false), 0);
	assert_rel(d.peak_flops, 156e12, 0.0);

	/* only fp32: every precision ends there, int4 included */
	memset(g.peak_flops, 0, sizeof(g.peak_flops));
	g.peak_flops[PREC_FP32] = 23.1e12;
	for (int p = 0; p < PREC_COUNT; p++) {
		assert_int_equal(device_perf_init(&d, &g, (enum precision)p,
						  false),
				 0);
		assert_rel(d.peak_flops, 23.1e12, 0.0);
	}
}

static void test_perf_no_precision(void **state)
{
	struct gpu_spec g = a100();
	struct device_perf d;

	(void)state;
	memset(g.peak_flops, 0, sizeof(g.peak_flops));
	for (int p = 0; p < PREC_COUNT; p++)
		assert_int_equal(device_perf_init(&d, &g, (enum precision)p,
						  false),
				 -1);
	/* a narrower format does not help a wider request */
	g.peak_flops[PREC_INT8] = 624e12;
	assert_int_equal(device_perf_init(&d, &g, PREC_BF16, false), -1);
	assert_int_equal(device_perf_init(&d, &g, PREC_FP32, false), -1);
	assert_int_equal(device_perf_init(&d, &g, PREC_INT8, false), 0);
	assert_rel(d.peak_flops, 624e12, 0.0);
}

static void test_perf_sparsity(void **state)
{
	struct gpu_spec g = a100();
	struct device_perf d;

	(void)state;
	assert_int_equal(device_perf_init(&d, &g, PREC_BF16, true), 0);
	assert_rel(d.peak_flops, 624e12, 0.0);
	assert_int_equal(device_perf_init(&d, &g, PREC_INT8, true), 0);
	assert_rel(d.peak_flops, 1248e12, 0.0);
	/* fp32 (CUDA cores) gets no 2:4 speed-up */
	assert_int_equal(device_perf_init(&d, &g, PREC_FP32, true), 0);
	assert_rel(d.peak_flops, 19.5e12, 0.0);
	/* unsupported: asked for but not delivered */
	g.sparsity_2_4 = false;
	assert_int_equal(device_perf_init(&d, &g, PREC_BF16, true), 0);
	assert_rel(d.peak_flops, 312e12, 0.0);
}

/* Large square GEMM: compute bound, never faster than the achievable
   fraction of peak, within a modest overhead of it. */
static void test_gemm_compute_bound(void **state)
{
	struct gpu_spec g = a100();
	struct device_perf d;
	double m = 8192.0, n = 7168.0, k = 5120.0;
	double ideal, t, mem;

	(void)state;
	assert_int_equal(device_perf_init(&d, &g, PREC_BF16, false), 0);
	ideal = 2.0 * m * n * k / (d.peak_flops * d.matmul_eff);
	mem = 2.0 * (m * k + k * n + m * n) /
	      (d.mem_bw_bytes_per_s * d.mem_eff);
	t = kernel_gemm_s(&d, m, n, k, 1.0);
	assert_true(t > ideal);
	assert_true(t < 1.3 * ideal);
	assert_true(t > 2.0 * mem);
	/* twice the reduction length: about twice the time */
	assert_rel(kernel_gemm_s(&d, m, n, 2.0 * k, 1.0) / t, 2.0, 0.03);
}

/* One row (a matrix-vector product, decode): memory bound; the time is
   reading the weight matrix at the achievable bandwidth (within a little
   for the math that the memory pipeline does not hide). */
static void check_gemv(const struct gpu_spec *g)
{
	struct device_perf d;
	double n = 8192.0, k = 6144.0;
	double bytes = 2.0 * (1.0 * k + k * n + 1.0 * n);
	double mem, t;

	assert_int_equal(device_perf_init(&d, g, PREC_BF16, false), 0);
	mem = bytes / (d.mem_bw_bytes_per_s * d.mem_eff) + kernel_gap_s();
	t = kernel_gemm_s(&d, 1.0, n, k, 1.0);
	assert_true(t >= mem * (1.0 - 1e-12));
	assert_rel(t, mem, 0.02);
	/* in the memory-bound regime, more rows cost (almost) nothing */
	assert_rel(kernel_gemm_s(&d, 3.0, n, k, 1.0), t, 1e-3);
	/* fp8 operands: half the bytes, half the time */
	if (g->peak_flops[PREC_FP8] > 0.0) {
		assert_int_equal(device_perf_init(&d, g, PREC_FP8, false), 0);
		assert_rel(kernel_gemm_s(&d, 1.0, n, k, 1.0) - kernel_gap_s(),
			   (t - kernel_gap_s()) / 2.0, 1e-12);
	}
}

static void test_gemm_memory_bound(void **state)
{
	struct gpu_spec h = h100();
	struct gpu_spec a = a100();

	(void)state;
	check_gemv(&h);
	/* also on a device with a low ridge point (A100: ~120 FLOP/byte at
	   achievable rates): a GEMV does 1 FLOP per byte */
	check_gemv(&a);
}

static void test_gemm_monotonic(void **state)
{
	static const double sizes[] = { 1.0,   7.0,    64.0,   127.0,
					129.0, 1000.0, 3000.0, 12289.0 };
	struct gpu_spec g = a100();
	struct device_perf d;
	size_t ns = sizeof(sizes) / sizeof(sizes[0]);

	(void)state;
	assert_int_equal(device_perf_init(&d, &g, PREC_BF16, false), 0);
	for (size_t i = 1; i < ns; i++) {
		double a = sizes[i - 1], b = sizes[i];

		assert_true(kernel_gemm_s(&d, b, 1536.0, 2304.0, 1.0) >=
			    kernel_gemm_s(&d, a, 1536.0, 2304.0, 1.0));
		assert_true(kernel_gemm_s(&d, 1536.0, b, 2304.0, 1.0) >=
			    kernel_gemm_s(&d, 1536.0, a, 2304.0, 1.0));
		assert_true(kernel_gemm_s(&d, 1536.0, 2304.0, b, 1.0) >
			    kernel_gemm_s(&d, 1536.0, 2304.0, a, 1.0));
	}
	assert_true(kernel_gemm_s(&d, 1.0, 1.0, 1.0, 1.0) >= kernel_gap_s());
}

/* Tile quantization: in the compute-bound regime an M of 1025 costs as
   much as 1152 (nine 128-row tiles), clearly more than 1024 (eight). */
static void test_gemm_tiles(void **state)
{
	struct gpu_spec g = a100();
	struct device_perf d;
	double n = 8192.0, k = 8192.0;

	(void)state;
	assert_int_equal(device_perf_init(&d, &g, PREC_BF16, false), 0);
	assert_rel(kernel_gemm_s(&d, 1025.0, n, k, 1.0),
		   kernel_gemm_s(&d, 1152.0, n, k, 1.0), 1e-2);
	assert_true(kernel_gemm_s(&d, 1025.0, n, k, 1.0) >
		    1.08 * kernel_gemm_s(&d, 1024.0, n, k, 1.0));
}

static void test_gemm_batched(void **state)
{
	struct gpu_spec g = a100();
	struct device_perf d;
	double gap = kernel_gap_s();

	(void)state;
	assert_int_equal(device_perf_init(&d, &g, PREC_BF16, false), 0);
	/* compute bound and memory bound: 'count' copies, one gap */
	assert_rel(kernel_gemm_s(&d, 1280.0, 1280.0, 128.0, 37.0) - gap,
		   37.0 * (kernel_gemm_s(&d, 1280.0, 1280.0, 128.0, 1.0) - gap),
		   1e-12);
	assert_rel(kernel_gemm_s(&d, 1.0, 1280.0, 128.0, 37.0) - gap,
		   37.0 * (kernel_gemm_s(&d, 1.0, 1280.0, 128.0, 1.0) - gap),
		   1e-12);
}

static void test_stream(void **state)
{
	struct gpu_spec g = a100();
	struct device_perf d;

	(void)state;
	assert_int_equal(device_perf_init(&d, &g, PREC_BF16, false), 0);
	assert_true(kernel_gap_s() > 0.0 && kernel_gap_s() < 1e-4);
	assert_rel(kernel_stream_s(&d, 7.3e8),
		   7.3e8 / (2.039e12 * 0.9) + kernel_gap_s(), 1e-14);
	assert_rel(kernel_stream_s(&d, 0.0), kernel_gap_s(), 0.0);
	/* the bandwidth does not depend on the precision */
	assert_int_equal(device_perf_init(&d, &g, PREC_FP32, false), 0);
	assert_rel(kernel_stream_s(&d, 7.3e8),
		   7.3e8 / (2.039e12 * 0.9) + kernel_gap_s(), 1e-14);
}

static void test_flash_attention(void **state)
{
	struct gpu_spec g = a100();
	struct device_perf d;
	double flops = 3.71e12;
	double fwd, bwd, ideal;

	(void)state;
	assert_int_equal(device_perf_init(&d, &g, PREC_BF16, false), 0);
	ideal = flops / (d.peak_flops * d.matmul_eff);
	fwd = kernel_flash_attention_s(&d, flops, false);
	bwd = kernel_flash_attention_s(&d, flops, true);
	/* below large-GEMM efficiency; backward less efficient (Dao 2023) */
	assert_true(fwd > ideal);
	assert_true(bwd > fwd);
	/* FlashAttention-2 reaches at least ~35% of peak on A100 */
	assert_true(bwd < flops / (0.35 * d.peak_flops));
	/* linear in the work */
	assert_rel(kernel_flash_attention_s(&d, 2.0 * flops, false) -
			   kernel_gap_s(),
		   2.0 * (fwd - kernel_gap_s()), 1e-12);
}

/* ------------------------------------------------------------------ */
/* References by hand (specs/models.md 4.2-4.4) on the A100-like device in
   bf16: peak 312e12 x matmul_eff 0.85 x in_training_fraction 0.85,
   bandwidth 2.039e12 x mem_eff 0.9, kernel gap 2e-6 s. */

static const double a100_math = 312e12 * 0.85 * 0.85;
static const double a100_bw = 2.039e12 * 0.9;
static const double gap = 2e-6;

/* max + min^2 / max + gap (the stall near the ridge point) */
static double roof(double math_s, double mem_s)
{
	double hi = fmax(math_s, mem_s), lo = fmin(math_s, mem_s);

	return hi + lo * lo / hi + gap;
}

/*
 * T_gemm for C[M x N] = A[M x K] B[K x N]:
 *   tile_M = min(128, max(16, 2^ceil(log2 M))), Mp = ceil(M / tile_M) tile_M
 *   Np = ceil(N / 128) 128, Kp = K + 64 (gemm_tile_overhead_k)
 *   math = count 2 Mp Np Kp / (peak matmul_eff 0.85)
 *   mem  = count (e (M K + M N) + w K N) / (bw mem_eff)
 */
static void test_gemm_reference(void **state)
{
	struct gpu_spec g = a100();
	struct device_perf d;

	(void)state;
	assert_int_equal(device_perf_init(&d, &g, PREC_BF16, false), 0);
	/* compute bound: M 1000 -> 1024 (8 tiles), N 1000 -> 1024,
	   K 777 -> 841 */
	assert_rel(kernel_gemm_s(&d, 1000.0, 1000.0, 777.0, 1.0),
		   roof(2.0 * 1024 * 1024 * 841 / a100_math,
			2.0 * (1000.0 * 777 + 1000.0 * 1000 + 777.0 * 1000) /
				a100_bw),
		   1e-12);
	/* a short-K GEMM (a row-parallel layer under tp 8): the tile
	   overhead is 64 / (192 + 64) = 25% of its math */
	assert_rel(kernel_gemm_s(&d, 4096.0, 5120.0, 192.0, 1.0),
		   roof(2.0 * 4096 * 5120 * 256 / a100_math,
			2.0 * (4096.0 * 192 + 4096.0 * 5120 + 192.0 * 5120) /
				a100_bw),
		   1e-12);
	/* 3 batched GEMMs of M 33 (tile 64 -> Mp 64), N 2049 -> 2176,
	   K 3001 -> 3065 */
	assert_rel(kernel_gemm_s(&d, 33.0, 2049.0, 3001.0, 3.0),
		   roof(3.0 * 2.0 * 64 * 2176 * 3065 / a100_math,
			3.0 * 2.0 *
				(33.0 * 3001 + 33.0 * 2049 + 3001.0 * 2049) /
				a100_bw),
		   1e-12);
	/* a decode GEMM of 5 rows (tile 16) with int4 weights read at
	   0.53125 bytes: memory bound */
	assert_rel(kernel_gemm_w_s(&d, 5.0, 4096.0, 4096.0, 1.0, 0.53125),
		   roof(2.0 * 16 * 4096 * 4160 / a100_math,
			(2.0 * (5.0 * 4096 + 5.0 * 4096) +
			 0.53125 * 4096.0 * 4096) /
				a100_bw),
		   1e-12);
	/* 129 rows: 2 tiles of 128 */
	assert_rel(kernel_gemm_s(&d, 129.0, 128.0, 64.0, 1.0),
		   roof(2.0 * 256 * 128 * 128 / a100_math,
			2.0 * (129.0 * 64 + 129.0 * 128 + 64.0 * 128) /
				a100_bw),
		   1e-12);
}

/*
 * With an SM count: math = tiles / sms x (2 tile_M 128 K / (rate / sms)
 * + 1 us), tiles = count (Mp / tile_M) (Np / 128).  On an A100 (108 SMs)
 * 1 us is about the 64 steps of K of the device without one; on a device
 * with faster SMs it is more steps.
 */
static void test_gemm_sms_reference(void **state)
{
	struct gpu_spec g = a100(), h = h100();
	struct device_perf d, d0, dh;
	double tiles = 8.0 * 8.0, a100_sm = a100_math / 108.0;

	(void)state;
	g.sms = 108;
	assert_int_equal(device_perf_init(&d, &g, PREC_BF16, false), 0);
	g.sms = 0;
	assert_int_equal(device_perf_init(&d0, &g, PREC_BF16, false), 0);
	assert_rel(kernel_gemm_s(&d, 1000.0, 1000.0, 777.0, 1.0),
		   roof(tiles / 108.0 *
				(2.0 * 128 * 128 * 777 / a100_sm + 1e-6),
			2.0 * (1000.0 * 777 + 1000.0 * 1000 + 777.0 * 1000) /
				a100_bw),
		   1e-12);
	/* within 1% of the device without an SM count on a short-K GEMM */
	assert_rel(kernel_gemm_s(&d, 4096.0, 5120.0, 192.0, 1.0),
		   kernel_gemm_s(&d0, 4096.0, 5120.0, 192.0, 1.0), 0.01);
	/* a faster SM: the same microsecond is worth more steps of K, so
	   the short-K GEMM loses a larger share of its time */
	h.sms = 132;
	assert_int_equal(device_perf_init(&dh, &h, PREC_BF16, false), 0);
	{
		double rate = dh.peak_flops * dh.matmul_eff * 0.85;
		double ideal = 2.0 * 4096 * 5120 * 192 / rate;
		double loss_h = kernel_gemm_s(&dh, 4096.0, 5120.0, 192.0, 1.0) /
				ideal;
		double loss_a = kernel_gemm_s(&d, 4096.0, 5120.0, 192.0, 1.0) /
				(2.0 * 4096 * 5120 * 192 / a100_math);

		assert_true(loss_h > loss_a);
	}
}

/* T_stream = bytes / (bw mem_eff) + gap; the roofline of a per-sample
   layer: max + min^2 / max + gap at the sustained math rate. */
static void test_stream_roofline_reference(void **state)
{
	struct gpu_spec g = a100();
	struct device_perf d;

	(void)state;
	assert_int_equal(device_perf_init(&d, &g, PREC_BF16, false), 0);
	assert_rel(kernel_stream_s(&d, 3.17e9), 3.17e9 / a100_bw + gap,
		   1e-14);
	assert_rel(kernel_roofline_s(&d, 4.1e13, 2.9e10),
		   roof(4.1e13 / a100_math, 2.9e10 / a100_bw), 1e-12);
	assert_rel(kernel_roofline_s(&d, 4.1e11, 2.9e10),
		   roof(4.1e11 / a100_math, 2.9e10 / a100_bw), 1e-12);
	assert_rel(kernel_roofline_s(&d, 0.0, 0.0), gap, 0.0);
	assert_rel(kernel_gap_s(), 2e-6, 0.0);
}

/* T_flash(F) = F / (peak matmul_eff 0.85 rel) + gap, rel 0.85 forward
   and 0.74 backward (Dao 2023, figs. 4-5). */
static void test_flash_reference(void **state)
{
	struct gpu_spec g = a100();
	struct device_perf d;
	double f = 2.713e12;

	(void)state;
	assert_int_equal(device_perf_init(&d, &g, PREC_BF16, false), 0);
	assert_rel(kernel_flash_attention_s(&d, f, false),
		   f / (a100_math * 0.85) + gap, 1e-14);
	assert_rel(kernel_flash_attention_s(&d, f, true),
		   f / (a100_math * 0.74) + gap, 1e-14);
}

/* T_flash2(F) = max(T_flash(F), F / (sms r2 0.85) + gap), r2 = 298e12 / 132
   forward and 291e12 / 132 backward per SM (Shah et al. 2024, figs. 5-6):
   on an A100 (108 SMs) the native kernel is the slower, on an H100 (132
   SMs) the cap, and without an SM count the native one. */
static void test_flash2_reference(void **state)
{
	struct gpu_spec g = a100(), h = h100();
	struct device_perf d;
	double f = 2.713e12;

	(void)state;
	g.sms = 108;
	assert_int_equal(device_perf_init(&d, &g, PREC_BF16, false), 0);
	assert_rel(kernel_flash2_attention_s(&d, f, false),
		   kernel_flash_attention_s(&d, f, false), 0.0);
	assert_rel(kernel_flash2_attention_s(&d, f, true),
		   kernel_flash_attention_s(&d, f, true), 0.0);
	/* 108 x 298e12 / 132 x 0.85 = 207 TFLOP/s > the native 191 */
	assert_true(108.0 * 298e12 / 132.0 * 0.85 >
		    f / (kernel_flash_attention_s(&d, f, false) - gap));
	h.sms = 132;
	assert_int_equal(device_perf_init(&d, &h, PREC_BF16, false), 0);
	assert_rel(kernel_flash2_attention_s(&d, f, false),
		   f / (298e12 * 0.85) + gap, 1e-14);
	assert_rel(kernel_flash2_attention_s(&d, f, true),
		   f / (291e12 * 0.85) + gap, 1e-14);
	/* about half the native Hopper kernel's rate */
	assert_true(kernel_flash2_attention_s(&d, f, false) >
		    1.8 * kernel_flash_attention_s(&d, f, false));
	h.sms = 0;
	assert_int_equal(device_perf_init(&d, &h, PREC_BF16, false), 0);
	assert_rel(kernel_flash2_attention_s(&d, f, true),
		   kernel_flash_attention_s(&d, f, true), 0.0);
}

/*
 * kernel_rate_ceiling bounds every compute kernel's rate: over GEMM shapes
 * from a decode row to a large training GEMM, with and without an SM
 * count, and the attention kernels, FLOPs / time never exceeds it; a
 * large GEMM comes within a few percent of it.
 */
static void test_rate_ceiling(void **state)
{
	struct gpu_spec g = h100();
	struct device_perf d;
	double top = 0.0;

	(void)state;
	assert_int_equal(device_perf_init(&d, &g, PREC_BF16, false), 0);
	assert_rel(kernel_rate_ceiling(&d), 989.4e12 * 0.8 * 0.85, 1e-12);
	for (int sms = 0; sms <= 1; sms++) {
		d.sms = sms ? 132 : 0;
		for (double m = 1; m <= 65536; m *= 4)
			for (double n = 128; n <= 32768; n *= 4)
				for (double k = 128; k <= 32768; k *= 4) {
					double f = 2.0 * m * n * k;
					double r = f / kernel_gemm_s(&d, m, n,
								     k, 1.0);

					assert_true(r <=
						    kernel_rate_ceiling(&d));
					top = r > top ? r : top;
				}
		for (double f = 1e9; f <= 1e15; f *= 10) {
			assert_true(f / kernel_flash_attention_s(&d, f, false) <=
				    kernel_rate_ceiling(&d));
			assert_true(f / kernel_flash2_attention_s(&d, f, true) <=
				    kernel_rate_ceiling(&d));
			assert_true(f / kernel_roofline_s(&d, f, 1.0) <=
				    kernel_rate_ceiling(&d));
		}
	}
	assert_true(top > 0.95 * kernel_rate_ceiling(&d));
}

/* A training step's ceiling: its precision's, and for fp8 bf16's where
   that is faster (the kernels fp8 leaves in bf16). */
static void test_train_rate_ceiling(void **state)
{
	struct gpu_spec g = h100();

	(void)state;
	assert_rel(train_rate_ceiling(&g, PREC_BF16), 989.4e12 * 0.8 * 0.85,
		   1e-12);
	g.fp8_matmul_eff = 0.6;
	assert_rel(train_rate_ceiling(&g, PREC_FP8), 1978.8e12 * 0.6 * 0.85,
		   1e-12);
	g.fp8_matmul_eff = 0.3;
	assert_rel(train_rate_ceiling(&g, PREC_FP8), 989.4e12 * 0.8 * 0.85,
		   1e-12);
	g.peak_flops[PREC_FP8] = 0.0;
	g.peak_flops[PREC_BF16] = g.peak_flops[PREC_FP16] = 0.0;
	g.peak_flops[PREC_FP32] = 0.0;
	g.peak_flops[PREC_TF32] = 0.0;
	assert_true(train_rate_ceiling(&g, PREC_BF16) == 0.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_perf_direct),
		cmocka_unit_test(test_perf_fp8_efficiency),
		cmocka_unit_test(test_perf_fallbacks),
		cmocka_unit_test(test_perf_no_precision),
		cmocka_unit_test(test_perf_sparsity),
		cmocka_unit_test(test_gemm_compute_bound),
		cmocka_unit_test(test_gemm_memory_bound),
		cmocka_unit_test(test_gemm_monotonic),
		cmocka_unit_test(test_gemm_tiles),
		cmocka_unit_test(test_gemm_sms_reference),
		cmocka_unit_test(test_gemm_batched),
		cmocka_unit_test(test_stream),
		cmocka_unit_test(test_flash_attention),
		cmocka_unit_test(test_gemm_reference),
		cmocka_unit_test(test_stream_roofline_reference),
		cmocka_unit_test(test_flash_reference),
		cmocka_unit_test(test_flash2_reference),
		cmocka_unit_test(test_rate_ceiling),
		cmocka_unit_test(test_train_rate_ceiling),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
