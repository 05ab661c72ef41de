/* model_kernel.c - roofline kernel times; see model_kernel.h. */
#include "model_kernel.h"

#include <math.h>

/*
 * GPU idle time between two dependent kernels (launch latency that the
 * asynchronous stream does not hide, ramp-up and tail of the grid).
 * NVIDIA's CUDA best-practices guide puts kernel launch overhead at a few
 * microseconds; 2 us is used for back-to-back kernels in one stream.
 */
static const double kernel_gap_seconds = 2e-6;

/*
 * Output tile of tensor-core GEMM kernels (cuBLAS/CUTLASS use 128 x 128 or
 * larger for big problems): M and N are padded up to whole tiles, wasting
 * the padded part ("tile quantization", NVIDIA Matrix Multiplication
 * Background User's Guide).
 */
static const double gemm_tile = 128.0;

/*
 * Fixed cost of one output tile of a GEMM: the software pipeline of a
 * CUTLASS/cuBLAS main loop fills 3-4 stages of 32-64 elements of K from
 * memory (several hundred nanoseconds of latency each) before the tensor
 * cores run at full rate, and the epilogue converts and stores the tile.
 * It is a time, about 1 us, the same on every device: on an A100 SM it is
 * worth 64 steps of K of a 128 x 128 tile (calibrated with
 * in_training_fraction, specs/validation.md), on faster SMs more steps.
 * Short-K GEMMs (row-parallel layers under tensor parallelism) lose the
 * most.  Devices without an SM count in the catalog pay 64 steps of K.
 */
static const double gemm_tile_overhead_s = 1.0e-6;
static const double gemm_tile_overhead_k = 64.0;

/* Shortest tile height of the GEMM kernels used for few rows. */
static const double min_tile_m = 16.0;

/*
 * Fraction of its benchmarked large-GEMM throughput (the catalog's
 * matmul_eff) that a device sustains on the GEMMs inside a training or
 * serving step: hours of full load hold tensor clocks below the boost
 * clock a short benchmark sees, and concurrent kernels share L2 and
 * memory bandwidth.  Calibrated once against all rows of
 * tests/validation/training.csv (specs/validation.md); the same value
 * holds for every device and workload.
 */
static const double in_training_fraction = 0.85;

/*
 * FlashAttention-2 on A100 reaches up to ~73% of peak forward and ~63%
 * backward at head dimension 128 (Dao 2023, figs. 4-5) where cuBLAS GEMMs
 * reach ~85%: the attention kernel runs at these fractions of the device's
 * large-GEMM efficiency.
 */
static const double flash_fwd_rel_eff = 0.85;
static const double flash_bwd_rel_eff = 0.74;

/*
 * FlashAttention-2 is written for Ampere's tensor-core instructions
 * (mma.sync, cp.async): on Hopper it cannot use the warpgroup MMA and the
 * TMA that the H100's full tensor rate needs, so its rate per SM stays
 * where an Ampere-class SM puts it.  Measured on an H100 SXM5 (132 SMs),
 * bf16, head dimension 128, 2k tokens: 298 TFLOP/s forward with the
 * causal mask (Shah et al. 2024, "FlashAttention-3", fig. 5) and 291
 * TFLOP/s backward (fig. 6), 30% and 29% of the H100's peak, where the
 * same kernel reaches 50-73% of an A100's (Dao 2023, figs. 4-5): FLOP/s
 * per SM.  On devices whose native fused kernel is slower per SM than
 * this (Ampere, Ada), FlashAttention-2 is that kernel.
 */
static const double flash2_fwd_flops_per_sm = 298e12 / 132.0;
static const double flash2_bwd_flops_per_sm = 291e12 / 132.0;

enum precision device_math_precision(const struct gpu_spec *g,
				     enum precision p)
{
	/* the next wider format a kernel falls back to */
	static const enum precision wider[PREC_COUNT] = {
		[PREC_FP32] = PREC_FP32, [PREC_TF32] = PREC_FP32,
		[PREC_BF16] = PREC_FP16, [PREC_FP16] = PREC_TF32,
		[PREC_FP8] = PREC_BF16,  [PREC_INT8] = PREC_FP8,
		[PREC_INT4] = PREC_INT8,
		/* fp4 weights without fp4 tensor cores are dequantized
		   into 16-bit GEMMs (W4A16, as Marlin kernels run them) */
		[PREC_FP4] = PREC_FP16,
	};
	enum precision q = p;

	for (int i = 0; i < PREC_COUNT && g->peak_flops[q] <= 0.0; i++) {
		/* bf16 and fp16 are interchangeable on every device */
		if (q == PREC_FP16 && g->peak_flops[PREC_BF16] > 0.0)
			q = PREC_BF16;
		else
			q = wider[q];
	}
	return g->peak_flops[q] > 0.0 ? q : PREC_COUNT;
}

int device_perf_init(struct device_perf *d, const struct gpu_spec *g,
		     enum precision p, bool sparse)
{
	enum precision q = device_math_precision(g, p);

	if (q == PREC_COUNT)
		return -1;
	d->peak_flops = g->peak_flops[q];
	if (sparse && g->sparsity_2_4 && q != PREC_FP32)
		d->peak_flops *= 2.0;
	d->mem_bw_bytes_per_s = g->mem_bw_bytes_per_s;
	d->matmul_eff = gpu_matmul_eff(g, q);
	d->mem_eff = g->mem_eff;
	d->sms = g->sms;
	/* operands are in the format the math runs in */
	d->elem_bytes = precision_bytes(q);
	return 0;
}

double kernel_gap_s(void)
{
	return kernel_gap_seconds;
}

/* The larger time plus the stall: the share of the smaller one that is
   not hidden equals its ratio to the larger. */
static double overlap_s(double math_s, double mem_s)
{
	double hi = math_s > mem_s ? math_s : mem_s;
	double lo = math_s > mem_s ? mem_s : math_s;

	return hi > 0.0 ? hi + lo * lo / hi : 0.0;
}

/* 'x' rounded up to a whole number of 'q' (x >= 0, below 2^62). */
static double round_up(double x, double q)
{
	long long k = (long long)(x / q);

	if ((double)k * q < x)
		k++;
	return (double)k * q;
}

double kernel_gemm_s(const struct device_perf *d, double m, double n,
		     double k, double count)
{
	return kernel_gemm_w_s(d, m, n, k, count, d->elem_bytes);
}

double kernel_gemm_w_s(const struct device_perf *d, double m, double n,
		       double k, double count, double w_bytes)
{
	/* short GEMMs (decode, small prompts) run kernels with shorter
	   tiles, down to 16 rows (GEMV-like kernels) */
	double tile_m = gemm_tile;
	double mp, np;

	double rate = d->peak_flops * d->matmul_eff * in_training_fraction;
	double math_s;

	while (tile_m > min_tile_m && tile_m / 2.0 >= m)
		tile_m /= 2.0;
	mp = round_up(m, tile_m);
	np = round_up(n, gemm_tile);
	if (d->sms > 0) {
		/* the tiles spread over the SMs, each paying a fixed
		   prologue and epilogue (filling the operand pipeline,
		   writing C); split-K and stream-K kernels (cuBLAS,
		   CUTLASS: Osama et al. 2023) balance a partial last wave
		   over the SMs, so the waves are counted as a fraction */
		double tiles = count * (mp / tile_m) * (np / gemm_tile);
		double waves = tiles / d->sms;

		math_s = waves * (2.0 * tile_m * gemm_tile * k /
					  (rate / d->sms) +
				  gemm_tile_overhead_s);
	} else {
		/* the same without an SM count: every tile busy, the fixed
		   cost worth 'gemm_tile_overhead_k' steps of the reduction
		   loop */
		math_s = count * 2.0 * mp * np * (k + gemm_tile_overhead_k) /
			 rate;
	}
	double bytes = count * (d->elem_bytes * (m * k + m * n) +
				w_bytes * k * n);
	double mem_s = bytes / (d->mem_bw_bytes_per_s * d->mem_eff);

	/* near the ridge point neither the math nor the memory pipeline
	   hides the other: the unhidden share of the smaller time is its
	   ratio to the larger (none far from the ridge, all of it on it) */
	return overlap_s(math_s, mem_s) + kernel_gap_seconds;
}

double kernel_gemm_io_s(const struct device_perf *d, double m, double n,
			double k, double count, double bytes)
{
	/* both output dimensions take the shortest tile that covers them,
	   down to 16 (grouped convolutions have few columns per group) */
	double tile_m = gemm_tile, tile_n = gemm_tile;

	while (tile_m > min_tile_m && tile_m / 2.0 >= m)
		tile_m /= 2.0;
	while (tile_n > min_tile_m && tile_n / 2.0 >= n)
		tile_n /= 2.0;
	double math_s = count * 2.0 * round_up(m, tile_m) *
			round_up(n, tile_n) * (k + gemm_tile_overhead_k) /
			(d->peak_flops * d->matmul_eff * in_training_fraction);
	double mem_s = bytes / (d->mem_bw_bytes_per_s * d->mem_eff);

	return overlap_s(math_s, mem_s) + kernel_gap_seconds;
}

double kernel_roofline_s(const struct device_perf *d, double flops,
			 double bytes)
{
	double math_s = flops / (d->peak_flops * d->matmul_eff *
				 in_training_fraction);
	double mem_s = bytes / (d->mem_bw_bytes_per_s * d->mem_eff);

	return overlap_s(math_s, mem_s) + kernel_gap_seconds;
}

double kernel_rate_ceiling(const struct device_perf *d)
{
	return d->peak_flops * d->matmul_eff * in_training_fraction;
}

double kernel_stream_s(const struct device_perf *d, double bytes)
{
	return bytes / (d->mem_bw_bytes_per_s * d->mem_eff) +
	       kernel_gap_seconds;
}

double kernel_flash_attention_s(const struct device_perf *d, double flops,
				bool backward)
{
	double rel = backward ? flash_bwd_rel_eff : flash_fwd_rel_eff;

	return flops / (d->peak_flops * d->matmul_eff * in_training_fraction *
			rel) +
	       kernel_gap_seconds;
}

double kernel_flash2_attention_s(const struct device_perf *d, double flops,
				 bool backward)
{
	double native_s = kernel_flash_attention_s(d, flops, backward);
	double per_sm = backward ? flash2_bwd_flops_per_sm :
				   flash2_fwd_flops_per_sm;
	double capped_s;

	if (d->sms <= 0)
		return native_s;
	/* at the sustained clocks of a long run, as every kernel rate */
	capped_s = flops / (d->sms * per_sm * in_training_fraction) +
		   kernel_gap_seconds;
	return capped_s > native_s ? capped_s : native_s;
}
