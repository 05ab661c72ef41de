/* test_model_infer.c - serving memory, latency, throughput and power
   (cmocka). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "model_infer.h"
#include "model_kernel.h"

static void assert_rel(double got, double want, double tol)
{
	double scale = fabs(want) > 0.0 ? fabs(want) : 1.0;

	if (!(fabs(got - want) <= tol * scale)) {
		print_error("got %.17g, want %.17g (tol %g)\n", got, want, tol);
		fail();
	}
}

/* H100-SXM-like, built by hand (fp8 and int8 at twice bf16). */
static struct gpu_spec h100(void)
{
	struct gpu_spec g;

	memset(&g, 0, sizeof(g));
	strcpy(g.name, "H100-test");
	g.mem_bytes = 80e9;
	g.mem_bw_bytes_per_s = 3.35e12;
	g.peak_flops[PREC_FP32] = 67e12;
	g.peak_flops[PREC_TF32] = 494.5e12;
	g.peak_flops[PREC_BF16] = 989.5e12;
	g.peak_flops[PREC_FP16] = 989.5e12;
	g.peak_flops[PREC_FP8] = 1979e12;
	g.peak_flops[PREC_INT8] = 1979e12;
	g.sparsity_2_4 = true;
	g.tdp_w = 700.0;
	g.idle_w = 70.0;
	g.gpus_per_node = 8;
	g.intra_bw_bytes_per_s = 450e9;
	g.inter_bw_bytes_per_s = 50e9;
	g.price_usd_per_hour = 2.99;
	g.matmul_eff = 0.75;
	g.mem_eff = 0.9;
	return g;
}

/* Roofline ridge (FLOPs per byte) of the H100-like device in bf16. */
static const double h100_ridge = 989.5e12 * 0.75 / (3.35e12 * 0.9);

/* The fraction of the catalog matmul_eff that GEMMs sustain in a step
   (model_kernel.c, in_training_fraction). */
static const double sustained = 0.85;

static struct cluster h100_cluster(void)
{
	struct cluster cl;

	memset(&cl, 0, sizeof(cl));
	cl.gpus_per_node = 8;
	cl.intra_bw_bytes_per_s = 450e9;
	cl.inter_bw_bytes_per_s = 50e9;
	cl.pue = 1.23;
	cl.host_overhead = 0.37;
	cl.price_usd_per_gpu_hour = 2.99;
	return cl;
}

static struct arch make_arch(int layers, int hidden, int heads, int kv_heads,
			     int ffn, bool gated, int vocab, bool tied)
{
	struct model_spec m;
	struct arch a;

	memset(&m, 0, sizeof(m));
	m.layers = layers;
	m.hidden = hidden;
	m.heads = heads;
	m.kv_heads = kv_heads;
	m.ffn_hidden = ffn;
	m.gated_ffn = gated;
	m.vocab = vocab;
	m.seq_len = 8192;
	m.tied_embeddings = tied;
	assert_int_equal(arch_from_spec(&m, &a), 0);
	return a;
}

/* Llama 3 8B: 32 layers, h 4096, 32 heads, 8 KV heads, SwiGLU 14336,
   vocab 128256, untied. */
static struct arch llama8b(void)
{
	return make_arch(32, 4096, 32, 8, 14336, true, 128256, false);
}

/* Llama 3 70B: 80 layers, h 8192, 64 heads, 8 KV heads, SwiGLU 28672. */
static struct arch llama70b(void)
{
	return make_arch(80, 8192, 64, 8, 28672, true, 128256, false);
}

static struct infer_config cfg(int tp, int batch, int prompt, int output)
{
	struct infer_config c;

	memset(&c, 0, sizeof(c));
	c.tp = tp;
	c.batch = batch;
	c.weight_precision = PREC_BF16;
	c.kv_precision = PREC_BF16;
	c.prompt_tokens = prompt;
	c.output_tokens = output;
	c.sparse = false;
	c.power_cap_w = 0.0;
	return c;
}

static void eval_ok(const struct arch *a, const struct infer_config *c,
		    const struct gpu_spec *g, struct infer_result *r)
{
	struct cluster cl = h100_cluster();

	assert_int_equal(infer_evaluate(a, c, g, &cl, r), 0);
}

/* ------------------------------------------------------------------ */
/* KV cache and stored weight sizes */

static void test_kv_bytes_opt13b(void **state)
{
	/* OPT-13B (vLLM paper, section 3): 2 x 5120 x 40 layers x 2 bytes */
	struct arch a = make_arch(40, 5120, 40, 0, 0, false, 50272, true);

	(void)state;
	assert_int_equal(a.kv_heads, 40);
	assert_int_equal(a.head_dim, 128);
	assert_rel(infer_kv_bytes_per_token(&a, PREC_FP16), 819200.0, 1e-15);
	assert_rel(infer_kv_bytes_per_token(&a, PREC_BF16), 819200.0, 1e-15);
	assert_rel(infer_kv_bytes_per_token(&a, PREC_FP32), 1638400.0, 1e-15);
}

static void test_kv_bytes_gqa(void **state)
{
	/* Llama 3 70B: 2 x 80 x 8 x 128 x bytes */
	struct arch a = llama70b();

	(void)state;
	assert_rel(infer_kv_bytes_per_token(&a, PREC_FP16), 327680.0, 1e-15);
	assert_rel(infer_kv_bytes_per_token(&a, PREC_FP8), 163840.0, 1e-15);
}

static void test_kv_bytes_unround(void **state)
{
	/* 27 layers, h 2880, 45 heads of 64, 9 KV heads:
	   2 x 27 x 9 x 64 = 31104 elements */
	struct arch a = make_arch(27, 2880, 45, 9, 0, false, 32000, true);

	(void)state;
	assert_int_equal(a.head_dim, 64);
	assert_rel(infer_kv_bytes_per_token(&a, PREC_INT8), 31104.0, 1e-15);
	assert_rel(infer_kv_bytes_per_token(&a, PREC_BF16), 62208.0, 1e-15);
	assert_rel(infer_kv_bytes_per_token(&a, PREC_INT4), 15552.0, 1e-15);
}

static void test_weight_bytes_per_param(void **state)
{
	(void)state;
	assert_rel(infer_weight_bytes_per_param(PREC_FP32, false, false),
		   4.0, 0.0);
	assert_rel(infer_weight_bytes_per_param(PREC_BF16, false, false),
		   2.0, 0.0);
	assert_rel(infer_weight_bytes_per_param(PREC_FP16, false, false),
		   2.0, 0.0);
	assert_rel(infer_weight_bytes_per_param(PREC_FP8, false, false),
		   1.0, 0.0);
	assert_rel(infer_weight_bytes_per_param(PREC_INT8, false, false),
		   1.0, 0.0);
	/* int4 with a 4-byte scale and zero point per group of 128 */
	assert_rel(infer_weight_bytes_per_param(PREC_INT4, false, false),
		   0.5 + 4.0 / 128.0, 1e-15);
	/* fp4 (NVFP4): an fp8 scale per 16 values, 4.5 bits; MXFP4: an
	   8-bit scale per 32, 4.25 bits; other formats have no MX variant */
	assert_rel(infer_weight_bytes_per_param(PREC_FP4, false, false),
		   0.5625, 1e-15);
	assert_rel(infer_weight_bytes_per_param(PREC_FP4, false, true),
		   0.53125, 1e-15);
	assert_rel(infer_weight_bytes_per_param(PREC_INT4, false, true),
		   0.5 + 4.0 / 128.0, 1e-15);
	/* 2:4 sparse: half the values plus a 2-bit index per kept value,
	   1/8 byte per weight: 9/16 of the dense size for 16-bit weights */
	assert_rel(infer_weight_bytes_per_param(PREC_BF16, true, false),
		   2.0 * 9.0 / 16.0, 1e-15);
	assert_rel(infer_weight_bytes_per_param(PREC_FP16, true, false), 1.125,
		   1e-15);
	assert_rel(infer_weight_bytes_per_param(PREC_FP8, true, false), 0.625,
		   1e-15);
	assert_rel(infer_weight_bytes_per_param(PREC_INT4, true, false),
		   (0.5 + 4.0 / 128.0) / 2.0 + 0.125, 1e-15);
	/* sparsity always saves for formats of a byte or more */
	for (int p = 0; p < PREC_COUNT; p++)
		if (precision_bytes((enum precision)p) >= 1.0)
			assert_true(infer_weight_bytes_per_param(
					    (enum precision)p, true, false) <
				    infer_weight_bytes_per_param(
					    (enum precision)p, false, false));
}

/* ------------------------------------------------------------------ */
/* Memory */

/*
 * Llama 3 8B, bf16, batch 13, prompt 1237, output 311 on 80 GB.  By hand:
 * one layer 2h^2 + 2h(8 x 128) + 3h x 14336 + 2h = 218112000 weights,
 * 32 layers 6979584000, embeddings 2 x 128256 x 4096 = 1050673152;
 * bf16: 16060514304 bytes.  KV per token 2 x 32 x 8 x 128 x 2 = 131072,
 * x 13 x 1548 = 2637692928.  Activations: a chunk of min(13 x 1237, 8192)
 * tokens x 2 bytes x (2h + (10240 + 3 x 14336)) + 4 x 13 x 128256 =
 * 1013302272, where 10240 = Q, K, V and the attention output (4096 +
 * 2 x 1024 + 4096).  Reserve 1 GB + (1 - 0.9) x 80e9 = 9e9 (the default
 * memory fraction, vLLM's gpu_memory_utilization).
 */
static void test_memory_reference(void **state)
{
	struct arch a = llama8b();
	struct gpu_spec g = h100();
	struct infer_config c = cfg(1, 13, 1237, 311);
	struct infer_result r;

	(void)state;
	eval_ok(&a, &c, &g, &r);
	assert_rel(r.memory.weights_bytes, 16060514304.0, 1e-12);
	assert_rel(r.memory.kv_cache_bytes_per_token, 131072.0, 1e-15);
	assert_rel(r.memory.kv_cache_bytes, 2637692928.0, 1e-12);
	assert_rel(r.memory.activations_bytes, 1013302272.0, 1e-12);
	assert_rel(r.memory.reserve_bytes, 9e9, 1e-12);
	assert_rel(r.memory.total_bytes, 28711509504.0, 1e-12);
	/* a memory fraction of 0.5 leaves half the device and the context */
	c.memory_fraction = 0.5;
	eval_ok(&a, &c, &g, &r);
	assert_rel(r.memory.reserve_bytes, 41e9, 1e-12);
	assert_rel(r.memory.capacity_bytes, 80e9, 0.0);
	assert_true(r.memory.fits);

	/* tp = 2: weights and KV halve, the replicated part of the
	   activations (2h per token) does not */
	c.tp = 2;
	eval_ok(&a, &c, &g, &r);
	assert_rel(r.memory.weights_bytes, 16060514304.0 / 2.0, 1e-12);
	assert_rel(r.memory.kv_cache_bytes, 2637692928.0 / 2.0, 1e-12);
	assert_rel(r.memory.activations_bytes, 573760000.0, 1e-12);
	/* the whole-model KV size per token does not depend on tp */
	assert_rel(r.memory.kv_cache_bytes_per_token, 131072.0, 1e-15);
}

static void test_memory_weights_quantized(void **state)
{
	struct arch a = llama8b();
	struct gpu_spec g = h100();
	struct infer_config c = cfg(1, 1, 100, 10);
	struct infer_result r;

	(void)state;
	/* int4 layers (0.53125 bytes), 16-bit embeddings */
	c.weight_precision = PREC_INT4;
	eval_ok(&a, &c, &g, &r);
	assert_rel(r.memory.weights_bytes, 5809250304.0, 1e-12);
	/* fp8 2:4 sparse layers (0.5 + 0.125 bytes), 16-bit embeddings:
	   6979584000 x 0.625 + 2 x 1050673152 */
	c.weight_precision = PREC_FP8;
	c.sparse = true;
	eval_ok(&a, &c, &g, &r);
	assert_rel(r.memory.weights_bytes, 6463586304.0, 1e-12);
}

static void test_memory_weights_scale_with_tp(void **state)
{
	struct arch a = llama70b();
	struct gpu_spec g = h100();
	struct infer_result r1, r;

	(void)state;
	{
		struct infer_config c = cfg(1, 3, 777, 123);

		eval_ok(&a, &c, &g, &r1);
		/* 80 x 856.7M + 2 x 128256 x 8192 weights in bf16 */
		assert_rel(r1.memory.weights_bytes, 141107396608.0, 1e-12);
		assert_false(r1.memory.fits);
	}
	for (int tp = 2; tp <= 8; tp *= 2) {
		struct infer_config c = cfg(tp, 3, 777, 123);

		eval_ok(&a, &c, &g, &r);
		assert_rel(r.memory.weights_bytes,
			   r1.memory.weights_bytes / tp, 1e-12);
		/* KV heads split: 8 / tp per GPU */
		assert_rel(r.memory.kv_cache_bytes,
			   r1.memory.kv_cache_bytes / tp, 1e-12);
	}
}

static void test_memory_kv_heads_replicated(void **state)
{
	/* 2 KV heads: beyond tp = 2 every GPU holds one KV head */
	struct arch a = make_arch(24, 2048, 16, 2, 5632, true, 32000, false);
	struct gpu_spec g = h100();
	struct infer_result r1, r2, r4, r8;
	struct infer_config c = cfg(1, 21, 913, 87);
	double per_gpu_token = 2.0 * 24 * 1 * 128 * 2.0;

	(void)state;
	eval_ok(&a, &c, &g, &r1);
	c.tp = 2;
	eval_ok(&a, &c, &g, &r2);
	c.tp = 4;
	eval_ok(&a, &c, &g, &r4);
	c.tp = 8;
	eval_ok(&a, &c, &g, &r8);
	assert_rel(r1.memory.kv_cache_bytes, 2.0 * per_gpu_token * 21 * 1000,
		   1e-12);
	assert_rel(r2.memory.kv_cache_bytes, per_gpu_token * 21 * 1000, 1e-12);
	assert_rel(r4.memory.kv_cache_bytes, r2.memory.kv_cache_bytes, 1e-15);
	assert_rel(r8.memory.kv_cache_bytes, r2.memory.kv_cache_bytes, 1e-15);
	/* the weights go on shrinking */
	assert_rel(r8.memory.weights_bytes, r2.memory.weights_bytes / 4.0,
		   1e-12);
}

static void test_max_batch_memory(void **state)
{
	struct arch a = llama8b();
	struct gpu_spec g = h100();
	struct infer_config c = cfg(1, 1, 1237, 311);
	struct infer_config t = c;
	struct infer_result r;
	int b;

	(void)state;
	/* by hand, for batches whose prefill chunk is the full 8192 tokens:
	   (80e9 - 9e9 - 16060514304 - 8192 x 2 x (2h + 10240 + 43008)) /
	   (131072 x 1548 + 4 x 128256) = 265.14 */
	b = infer_max_batch_memory(&a, &c, &g, 4096);
	assert_int_equal(b, 265);
	t.batch = b;
	eval_ok(&a, &t, &g, &r);
	assert_true(r.memory.fits);
	t.batch = b + 1;
	eval_ok(&a, &t, &g, &r);
	assert_false(r.memory.fits);
	/* the limit caps it; the batch in 'c' does not matter */
	assert_int_equal(infer_max_batch_memory(&a, &c, &g, 100), 100);
	c.batch = 4000;
	assert_int_equal(infer_max_batch_memory(&a, &c, &g, 4096), 265);
	/* tp = 2 and fp8 KV hold more */
	c.tp = 2;
	c.kv_precision = PREC_FP8;
	b = infer_max_batch_memory(&a, &c, &g, 4096);
	assert_true(b > 4 * 265);
	t = c;
	t.batch = b;
	eval_ok(&a, &t, &g, &r);
	assert_true(r.memory.fits);
	t.batch = b + 1;
	eval_ok(&a, &t, &g, &r);
	assert_false(r.memory.fits);
}

static void test_max_batch_weights_do_not_fit(void **state)
{
	/* 141 GB of bf16 weights on one 80 GB GPU */
	struct arch a = llama70b();
	struct gpu_spec g = h100();
	struct infer_config c = cfg(1, 1, 512, 256);

	(void)state;
	assert_int_equal(infer_max_batch_memory(&a, &c, &g, 4096), 0);
	/* on 2 GPUs it fits */
	c.tp = 2;
	assert_true(infer_max_batch_memory(&a, &c, &g, 4096) > 0);
}

/* ------------------------------------------------------------------ */
/* Latency: the roofline */

static void test_decode_batch1_memory_bound(void **state)
{
	/* 70B on one GPU with enough memory: a decode step reads 141 GB of
	   weights at 3.35 TB/s x 0.9 */
	struct arch a = llama70b();
	struct gpu_spec g = h100();
	struct infer_config c = cfg(1, 1, 600, 200);
	struct infer_result r;
	double weights_s;

	(void)state;
	g.mem_bytes = 192e9;
	eval_ok(&a, &c, &g, &r);
	weights_s = r.memory.weights_bytes / (3.35e12 * 0.9);
	assert_rel(r.tpot_s, weights_s, 0.25);
	assert_true(r.tpot_s >= weights_s);
	/* intensity ~1 FLOP per byte of bf16 weights: far below the ridge */
	assert_rel(r.decode_flops_per_byte, 1.0, 0.1);
	assert_true(r.decode_flops_per_byte < h100_ridge / 100.0);
}

static void test_prefill_compute_bound(void **state)
{
	/* a 3797-token prompt of the 8B model: 2 x params x prompt plus the
	   causal attention (2 L p^2 h) at sustained tensor throughput; the
	   unfused element-wise traffic, tile padding and the slower
	   attention kernel add the rest (~14%) */
	struct arch a = llama8b();
	struct gpu_spec g = h100();
	struct infer_config c = cfg(1, 1, 3797, 100);
	struct infer_result r;
	double params = 32.0 * arch_layer_params(&a);
	double flops = 2.0 * params * 3797 + 2.0 * 32 * 3797.0 * 3797 * 4096;
	double ref;

	(void)state;
	eval_ok(&a, &c, &g, &r);
	ref = flops / (989.5e12 * 0.75 * sustained);
	assert_rel(r.ttft_s, ref, 0.20);
	assert_true(r.ttft_s > ref);
	assert_rel(r.prefill_s, r.ttft_s, 0.0);
	assert_true(r.prefill_flops_per_byte > h100_ridge);
	/* compute bound: fp8 math (twice the peak) nearly halves it */
	c.weight_precision = PREC_FP8;
	{
		struct infer_result r8;

		eval_ok(&a, &c, &g, &r8);
		assert_true(r8.ttft_s < 0.6 * r.ttft_s);
		assert_true(r8.ttft_s > 0.45 * r.ttft_s);
		/* weight-only (W8A16): 16-bit math, within a few per cent of
		   the bf16 prefill (the weights read at 1 byte), and the
		   same math format for int8 */
		c.weight_only = true;
		assert_int_equal(infer_config_math_precision(&c), PREC_FP16);
		eval_ok(&a, &c, &g, &r8);
		assert_rel(r8.ttft_s, r.ttft_s, 0.05);
		assert_true(r8.ttft_s <= r.ttft_s);
		c.weight_precision = PREC_INT8;
		assert_int_equal(infer_config_math_precision(&c), PREC_FP16);
		c.weight_only = false;
		assert_int_equal(infer_config_math_precision(&c), PREC_INT8);
		c.weight_precision = PREC_INT4;
		assert_int_equal(infer_config_math_precision(&c), PREC_FP16);
	}
}

/*
 * Decode arithmetic intensity from decode_eval, for batch b at context
 * ctx = prompt + output/2, per GPU:
 *   FLOPs = L (2 b W/tp + 4 b (heads/tp) ctx dh) + 2 b V h/tp
 *   bytes = L (wb W/tp + e b (4h + (qkv + h + up + f)/tp)
 *              + 2 b (10 h + 3 f/tp) + 2 b ctx kvh dh kvb) + 2 V h/tp
 * with W the layer's projection weights, e the bytes of the math format,
 * qkv = h + 2 kvh dh, up = 2f (gated), kvh the KV heads per GPU.  It is
 * alpha b / (beta + gamma b): it crosses a ridge R at
 * b* = R beta / (alpha - R gamma), and never when alpha <= R gamma.
 */
struct intensity {
	double alpha, beta, gamma;
};

static struct intensity decode_intensity(const struct arch *a,
					 const struct infer_config *c,
					 double e)
{
	double h = a->hidden, f = a->ffn_hidden, dh = a->head_dim;
	double tp = c->tp, L = a->layers, V = a->vocab;
	double W = 2.0 * h * h + 2.0 * h * a->kv_heads * dh + 3.0 * h * f;
	double kvh = fmax(1.0, a->kv_heads / tp);
	double ctx = c->prompt_tokens + 0.5 * c->output_tokens;
	double wb = infer_weight_bytes_per_param(c->weight_precision,
						 c->sparse, c->mxfp4);
	double kvb = c->kv_precision == PREC_FP8 ? 1.0 : 2.0;
	double qkv = h + 2.0 * a->kv_heads * dh;
	struct intensity s;

	s.alpha = L * (2.0 * W / tp + 4.0 * (a->heads / tp) * ctx * dh) +
		  2.0 * V * h / tp;
	s.beta = L * wb * W / tp + 2.0 * V * h / tp;
	s.gamma = L * (e * (4.0 * h + (qkv + h + 2.0 * f + f) / tp) +
		       2.0 * (10.0 * h + 3.0 * f / tp) +
		       2.0 * ctx * kvh * dh * kvb) +
		  e * (V / tp + h); /* the logits GEMM's input and output */
	return s;
}

static void test_decode_intensity_closed_form(void **state)
{
	struct arch a = llama8b();
	struct gpu_spec g = h100();
	static const int batches[] = { 1, 7, 61, 300, 1999 };
	struct infer_config cs[3];

	(void)state;
	cs[0] = cfg(1, 1, 64, 16);
	cs[1] = cfg(2, 1, 1237, 311);
	cs[2] = cfg(4, 1, 431, 97);
	cs[2].weight_precision = PREC_FP8;
	cs[2].kv_precision = PREC_FP8;
	for (int k = 0; k < 3; k++) {
		double e = cs[k].weight_precision == PREC_FP8 ? 1.0 : 2.0;
		struct intensity s = decode_intensity(&a, &cs[k], e);

		for (size_t i = 0; i < sizeof(batches) / sizeof(batches[0]);
		     i++) {
			struct infer_result r;
			double b = batches[i];

			cs[k].batch = batches[i];
			eval_ok(&a, &cs[k], &g, &r);
			assert_rel(r.decode_flops_per_byte,
				   s.alpha * b / (s.beta + s.gamma * b),
				   1e-12);
		}
	}
}

/* First batch whose decode intensity reaches 'ridge' (0 if none up to
   'limit'). */
static int crossing_batch(const struct arch *a, struct infer_config c,
			  const struct gpu_spec *g, double ridge, int limit)
{
	for (int b = 1; b <= limit; b++) {
		struct infer_result r;

		c.batch = b;
		eval_ok(a, &c, g, &r);
		if (r.decode_flops_per_byte >= ridge)
			return b;
	}
	return 0;
}

static void test_decode_ridge_crossing(void **state)
{
	struct arch a = llama8b();
	struct gpu_spec g = h100();
	struct infer_config c = cfg(1, 1, 64, 16);
	struct infer_result r1, rlo, rb, r2b;
	struct intensity s;
	double bstar, ridge8 = 1979e12 * 0.75 / (3.35e12 * 0.9);
	int b;

	(void)state;
	/* bf16, short context: the weights dominate the bytes, so the
	   intensity is ~2 b / (2 bytes) and crosses near b = ridge */
	s = decode_intensity(&a, &c, 2.0);
	bstar = h100_ridge * s.beta / (s.alpha - h100_ridge * s.gamma);
	b = crossing_batch(&a, c, &g, h100_ridge, 2048);
	assert_int_equal(b, (int)ceil(bstar));
	assert_true(b >= h100_ridge * 2.0 / 2.0 * 0.95);
	assert_true(b <= 2.0 * h100_ridge * 2.0 / 2.0);

	/* below the ridge a step costs about the weight read: flat */
	c.batch = 1;
	eval_ok(&a, &c, &g, &r1);
	c.batch = b / 8;
	eval_ok(&a, &c, &g, &rlo);
	assert_true(rlo.tpot_s < 1.2 * r1.tpot_s);
	/* well beyond it the step grows linearly with the batch */
	c.batch = 4 * b;
	eval_ok(&a, &c, &g, &rb);
	c.batch = 8 * b;
	eval_ok(&a, &c, &g, &r2b);
	assert_rel(r2b.tpot_s / rb.tpot_s, 2.0, 0.1);
	assert_true(rb.tpot_s > 2.5 * r1.tpot_s);

	/* fp8 weights: 1 byte per weight and twice the peak; the ridge
	   doubles, the crossing is near ridge x 1 / 2 */
	c = cfg(1, 1, 64, 16);
	c.weight_precision = PREC_FP8;
	c.kv_precision = PREC_FP8;
	s = decode_intensity(&a, &c, 1.0);
	bstar = ridge8 * s.beta / (s.alpha - ridge8 * s.gamma);
	b = crossing_batch(&a, c, &g, ridge8, 2048);
	assert_int_equal(b, (int)ceil(bstar));
	assert_true(b >= ridge8 * 1.0 / 2.0 * 0.95);
	assert_true(b <= 2.0 * ridge8 * 1.0 / 2.0);
}

static void test_decode_long_context_stays_memory_bound(void **state)
{
	/* at 1548 tokens of context the KV reads of GQA attention (8 FLOPs
	   per byte) bound the decode intensity below the ridge for any
	   batch: alpha / gamma < ridge */
	struct arch a = llama8b();
	struct gpu_spec g = h100();
	struct infer_config c = cfg(1, 4096, 1237, 311);
	struct intensity s = decode_intensity(&a, &c, 2.0);
	struct infer_result r;

	(void)state;
	assert_true(s.alpha / s.gamma < h100_ridge);
	eval_ok(&a, &c, &g, &r);
	assert_true(r.decode_flops_per_byte < s.alpha / s.gamma);
	assert_true(r.decode_flops_per_byte > 0.5 * s.alpha / s.gamma);
}

/* A decode kernel of one thread block per query head reads each KV
   head's cache once per query head of its group (specs/models.md 9.4):
   Llama 3 70B at tp 2 (32 query heads, 4 KV heads a GPU), 64 sequences
   at 2048 + 1024 tokens of context, memory-bound either way: the TPOT
   grows by exactly L (8 - 1) kv_read / (bw mem_eff).  Without GQA, and
   in the prefill, nothing changes. */
static void test_decode_per_head(void **state)
{
	struct arch a = llama70b();
	struct arch mha = make_arch(32, 4096, 32, 32, 11008, true, 32000,
				    false);
	struct gpu_spec g = h100();
	struct infer_config c = cfg(2, 64, 2048, 2048);
	struct infer_result grouped, per_head;
	double kv_read = 64.0 * 3072.0 * 2.0 * 4.0 * 128.0 * 2.0;

	(void)state;
	eval_ok(&a, &c, &g, &grouped);
	c.decode_per_head = true;
	eval_ok(&a, &c, &g, &per_head);
	assert_rel(per_head.tpot_s - grouped.tpot_s,
		   80.0 * 7.0 * kv_read / (3.35e12 * 0.9), 1e-9);
	assert_rel(per_head.prefill_s, grouped.prefill_s, 1e-15);
	c = cfg(1, 64, 2048, 2048);
	eval_ok(&mha, &c, &g, &grouped);
	c.decode_per_head = true;
	eval_ok(&mha, &c, &g, &per_head);
	assert_rel(per_head.tpot_s, grouped.tpot_s, 1e-15);
}

/* ------------------------------------------------------------------ */
/* Throughput, latency and energy relations */

static void test_throughput_latency_energy(void **state)
{
	struct arch a = llama8b();
	struct gpu_spec g = h100();
	struct infer_config c = cfg(2, 37, 1237, 311);
	struct infer_result r;
	double service, facility;

	(void)state;
	eval_ok(&a, &c, &g, &r);
	assert_true(r.ttft_s > 0.0 && r.tpot_s > 0.0);
	assert_rel(r.ttft_s, r.prefill_s, 0.0);
	assert_rel(r.e2e_latency_s, r.ttft_s + 310.0 * r.tpot_s, 1e-12);
	/* 37 prefills (one prompt a step: no step_tokens) and 310 steps
	   of the batch */
	assert_rel(r.prefill_batch_s, 37.0 * r.prefill_s, 1e-12);
	service = 37.0 * r.prefill_s + 310.0 * r.tpot_s;
	assert_rel(r.service_s, service, 1e-12);
	assert_rel(r.throughput_tokens_per_s, 37.0 * 311.0 / service, 1e-12);
	assert_rel(r.throughput_tokens_per_s_per_gpu,
		   r.throughput_tokens_per_s / 2.0, 1e-12);
	/* facility power = GPU power x tp x (1 + host) x PUE */
	facility = r.gpu_power_w * 2.0 * (1.0 + 0.37) * 1.23;
	assert_rel(r.energy_j_per_token,
		   facility * service / (37.0 * 311.0), 1e-12);
	assert_rel(r.energy_j_per_token * r.throughput_tokens_per_s, facility,
		   1e-12);
	assert_rel(r.tokens_per_joule * r.energy_j_per_token, 1.0, 1e-12);
	assert_rel(r.clock_fraction, 1.0, 0.0);
}

/*
 * An offline batch's prompts packed into steps of the engine's token
 * budget (step_tokens): with no budget, one prompt a step (batch
 * prefills); with 8192 tokens, 64 prompts of 128 a step, so 1024 prompts
 * take 16 steps, each reading the weights once: much less than 1024
 * single-prompt steps, and no less than the batch's GEMM FLOPs at the
 * device's peak.  A remainder is a step of its own; a prompt longer
 * than the budget is a step of its own.
 */
static void test_prefill_packed(void **state)
{
	struct arch a = llama70b();
	struct gpu_spec g = h100();
	struct infer_config c = cfg(2, 1024, 128, 128);
	struct infer_result one, packed, odd, k1;
	double flops;

	(void)state;
	eval_ok(&a, &c, &g, &one);
	assert_rel(one.prefill_batch_s, 1024.0 * one.prefill_s, 1e-12);
	c.step_tokens = 8192;
	eval_ok(&a, &c, &g, &packed);
	/* a request's own prefill and the decode steps do not change */
	assert_rel(packed.ttft_s, one.ttft_s, 0.0);
	assert_rel(packed.tpot_s, one.tpot_s, 0.0);
	/* one prompt's step reads 70 GB of bf16 weights a GPU (21 ms at
	   3.35 TB/s) for 9 TFLOP of math (about 14 ms): packed, the math
	   alone is left */
	assert_true(packed.prefill_batch_s < 0.6 * one.prefill_batch_s);
	/* 2 x 70e9 parameters' FLOPs per token, split over tp 2 */
	flops = 2.0 * 69.5e9 * 1024.0 * 128.0 / 2.0;
	assert_true(packed.prefill_batch_s > flops / 989.5e12);
	assert_rel(packed.service_s,
		   packed.prefill_batch_s + 127.0 * packed.tpot_s, 1e-12);
	assert_true(packed.throughput_tokens_per_s >
		    one.throughput_tokens_per_s);
	/* 1000 prompts: 15 steps of 64 and one of 40 */
	c.batch = 1000;
	eval_ok(&a, &c, &g, &odd);
	assert_true(odd.prefill_batch_s < packed.prefill_batch_s);
	assert_true(odd.prefill_batch_s > 15.0 / 16.0 * packed.prefill_batch_s);
	/* a budget under the prompt: one prompt a step */
	c.batch = 1024;
	c.step_tokens = 100;
	eval_ok(&a, &c, &g, &k1);
	assert_rel(k1.prefill_batch_s, one.prefill_batch_s, 1e-12);
}

/*
 * GPU power while serving: idle + (TDP - idle) x share, the share
 * weighting each phase by its time: 0.6 + 0.4 min(1, ai / ridge) (memory-
 * bound decode draws ~60% of the dynamic power, Splitwise).
 */
static void test_gpu_power(void **state)
{
	struct arch a = llama8b();
	struct gpu_spec g = h100();
	static const int batches[] = { 1, 29, 700 };

	(void)state;
	for (size_t i = 0; i < sizeof(batches) / sizeof(batches[0]); i++) {
		struct infer_config c = cfg(1, batches[i], 913, 257);
		struct infer_result r;
		double pf, dec, sp, sd, share;

		eval_ok(&a, &c, &g, &r);
		pf = batches[i] * r.prefill_s;
		dec = 256.0 * r.tpot_s;
		sp = 0.6 + 0.4 * fmin(1.0,
				      r.prefill_flops_per_byte / h100_ridge);
		sd = 0.6 + 0.4 * fmin(1.0,
				      r.decode_flops_per_byte / h100_ridge);
		share = (sp * pf + sd * dec) / (pf + dec);
		assert_rel(r.gpu_power_w, 70.0 + 630.0 * share, 1e-12);
		assert_true(r.gpu_power_w > 70.0 + 0.6 * 630.0);
		assert_true(r.gpu_power_w <= 700.0);
	}
}

static void test_power_cap(void **state)
{
	struct arch a = llama8b();
	struct gpu_spec g = h100();
	struct infer_config c = cfg(1, 8, 2111, 64);
	struct infer_result r0, r, rhi;
	double clock;

	(void)state;
	eval_ok(&a, &c, &g, &r0);
	assert_true(r0.gpu_power_w > 400.0);

	/* a cap of 347 W: the clock drops by the cube root of the dynamic
	   power ratio, the power is the cap */
	c.power_cap_w = 347.0;
	eval_ok(&a, &c, &g, &r);
	clock = cbrt((347.0 - 70.0) / (r0.gpu_power_w - 70.0));
	/* the clock is found by bisection: close to the DVFS estimate, and
	   the power is at the cap from below */
	assert_rel(r.clock_fraction, clock, 0.05);
	assert_true(r.clock_fraction < 1.0);
	assert_rel(r.gpu_power_w, 347.0, 1e-6);
	assert_true(r.gpu_power_w <= 347.0);
	/* compute-bound prefill slows with the clock; memory-bound decode
	   at batch 8 hardly does */
	assert_true(r.prefill_s > 1.1 * r0.prefill_s);
	assert_true(r.prefill_s < r0.prefill_s / r.clock_fraction * 1.001);
	assert_rel(r.tpot_s, r0.tpot_s, 0.02);
	assert_true(r.tpot_s >= r0.tpot_s);
	/* the same energy relation, at the capped power */
	assert_rel(r.energy_j_per_token * r.throughput_tokens_per_s,
		   r.gpu_power_w * (1.0 + 0.37) * 1.23, 1e-12);
	/* the memory does not depend on the clock */
	assert_rel(r.memory.total_bytes, r0.memory.total_bytes, 0.0);

	/* a cap above the power changes nothing */
	c.power_cap_w = r0.gpu_power_w + 0.5;
	eval_ok(&a, &c, &g, &rhi);
	assert_rel(rhi.gpu_power_w, r0.gpu_power_w, 0.0);
	assert_rel(rhi.clock_fraction, 1.0, 0.0);
	assert_rel(rhi.ttft_s, r0.ttft_s, 0.0);
	assert_rel(rhi.tpot_s, r0.tpot_s, 0.0);
	assert_rel(rhi.energy_j_per_token, r0.energy_j_per_token, 0.0);
}

static void test_power_cap_clock_floor(void **state)
{
	/* a cap barely above idle asks for a clock below the 20% floor */
	struct arch a = llama8b();
	struct gpu_spec g = h100();
	struct infer_config c = cfg(1, 8, 2111, 64);
	struct infer_result r0, r;

	(void)state;
	eval_ok(&a, &c, &g, &r0);
	c.power_cap_w = 71.0;
	eval_ok(&a, &c, &g, &r);
	assert_rel(r.clock_fraction, 0.2, 1e-12);
	assert_true(r.prefill_s > 3.0 * r0.prefill_s);
}

/*
 * A cap below the idle power cannot be met: the clock stops at its floor
 * and the GPU still draws at least its idle power.  The average power
 * while serving (and the energy per token built on it) must not be
 * reported below idle.
 */
static void test_power_cap_below_idle(void **state)
{
	struct arch a = llama8b();
	struct gpu_spec g = h100();
	struct infer_config c = cfg(1, 8, 2111, 64);
	struct infer_result r;

	(void)state;
	c.power_cap_w = 20.0;
	eval_ok(&a, &c, &g, &r);
	assert_rel(r.clock_fraction, 0.2, 1e-12);
	assert_true(r.gpu_power_w >= g.idle_w);
	assert_true(r.energy_j_per_token * r.throughput_tokens_per_s >=
		    g.idle_w * (1.0 + 0.37) * 1.23);
}

/* ------------------------------------------------------------------ */
/* Errors and fallbacks */

static void test_no_usable_precision(void **state)
{
	struct arch a = llama8b();
	struct gpu_spec g = h100();
	struct cluster cl = h100_cluster();
	struct infer_config c = cfg(1, 4, 512, 128);
	struct infer_result r;

	(void)state;
	for (int p = 0; p < PREC_COUNT; p++)
		g.peak_flops[p] = 0.0;
	assert_int_equal(infer_evaluate(&a, &c, &g, &cl, &r), -1);
	c.weight_precision = PREC_INT4;
	assert_int_equal(infer_evaluate(&a, &c, &g, &cl, &r), -1);
	/* memory alone does not need math */
	assert_true(infer_max_batch_memory(&a, &c, &g, 4096) > 0);
}

static void test_precision_fallback(void **state)
{
	/* fp8 weights on a device without fp8 run in bf16 math: the prefill
	   takes the bf16 time, the weights stay 1 byte */
	struct arch a = llama8b();
	struct gpu_spec g = h100();
	struct infer_config c = cfg(1, 4, 2048, 64);
	struct infer_result rb, r8;

	(void)state;
	g.peak_flops[PREC_FP8] = 0.0;
	g.peak_flops[PREC_INT8] = 0.0;
	eval_ok(&a, &c, &g, &rb);
	c.weight_precision = PREC_FP8;
	eval_ok(&a, &c, &g, &r8);
	assert_rel(r8.memory.weights_bytes,
		   32.0 * 218112000.0 + 2.0 * 1050673152.0, 1e-12);
	/* bf16 math with 1-byte weights: a little faster than bf16, not
	   near half */
	assert_true(r8.prefill_s < rb.prefill_s);
	assert_true(r8.prefill_s > 0.8 * rb.prefill_s);
	/* int4 weights (W4A16) need no int4 math */
	c.weight_precision = PREC_INT4;
	eval_ok(&a, &c, &g, &r8);
	assert_true(r8.tpot_s < rb.tpot_s);
}

static void test_fp4(void **state)
{
	/* fp4 weights: on fp4 tensor cores the GEMMs run at the fp4 peak;
	   without them as int4 does (16-bit math on 4-bit weights) */
	struct arch a = llama8b();
	struct gpu_spec g = h100();
	struct infer_config c = cfg(1, 4, 2048, 64);
	struct infer_result r4, ri, r8, rf;

	(void)state;
	c.kv_precision = PREC_FP8;
	c.weight_precision = PREC_INT4;
	eval_ok(&a, &c, &g, &ri);
	c.weight_precision = PREC_FP4;
	eval_ok(&a, &c, &g, &r4);
	assert_int_equal(device_math_precision(&g, PREC_FP4), PREC_FP16);
	/* the same 16-bit math; fp4's block scales (1/16 byte) weigh
	   more than int4's (4/128) */
	assert_rel(r4.memory.weights_bytes - ri.memory.weights_bytes,
		   32.0 * 218112000.0 * (1.0 / 16.0 - 4.0 / 128.0), 1e-9);
	assert_true(r4.tpot_s > ri.tpot_s);
	/* MXFP4's 8-bit scale per 32 values (gpt-oss, CDNA 4): as int4's
	   4 bytes per 128 on the layers, the same math */
	c.mxfp4 = true;
	eval_ok(&a, &c, &g, &rf);
	assert_rel(rf.memory.weights_bytes, ri.memory.weights_bytes, 1e-12);
	assert_rel(r4.memory.weights_bytes - rf.memory.weights_bytes,
		   32.0 * 218112000.0 * (1.0 / 16.0 - 1.0 / 32.0), 1e-9);
	assert_true(rf.tpot_s < r4.tpot_s);
	c.mxfp4 = false;
	/* a device with twice the fp8 rate in fp4: the compute-bound
	   prefill of 2048 tokens comes close to fp8's over two, the
	   memory-bound decode below fp8's */
	g.peak_flops[PREC_FP4] = 2.0 * g.peak_flops[PREC_FP8];
	assert_int_equal(device_math_precision(&g, PREC_FP4), PREC_FP4);
	eval_ok(&a, &c, &g, &rf);
	c.weight_precision = PREC_FP8;
	eval_ok(&a, &c, &g, &r8);
	assert_true(rf.prefill_s < 0.7 * r8.prefill_s);
	assert_true(rf.prefill_s > 0.5 * r8.prefill_s);
	assert_true(rf.tpot_s < r8.tpot_s);
	assert_true(rf.prefill_s < r4.prefill_s);
	/* weight-only fp4 runs 16-bit math on the fp4 device too */
	c.weight_precision = PREC_FP4;
	c.weight_only = true;
	assert_int_equal(infer_config_math_precision(&c), PREC_FP16);
}

/* An MoE whose weights outside the routed experts keep their own format
   (gpt-oss's bf16 attention beside MXFP4 experts): the experts' bytes in
   fp4, the rest in bf16, and the speed between all-fp4 and all-bf16. */
static void test_non_expert_precision(void **state)
{
	struct model_spec m;
	struct arch a;
	struct gpu_spec g = h100();
	struct infer_config c = cfg(1, 8, 1024, 64);
	struct infer_result r4, r16, rmix;
	double experts, other, embed;

	(void)state;
	memset(&m, 0, sizeof(m));
	m.layers = 24;
	m.hidden = 2880;
	m.heads = 64;
	m.kv_heads = 8;
	m.head_dim = 64;
	m.ffn_hidden = 2880;
	m.gated_ffn = true;
	m.vocab = 201088;
	m.seq_len = 8192;
	m.experts = 32;
	m.experts_per_token = 4;
	assert_int_equal(arch_from_spec(&m, &a), 0);
	experts = arch_expert_params(&a);
	other = a.layers * arch_layer_params(&a) - experts;
	embed = arch_embedding_params(&a);
	assert_true(experts > 10.0 * other);

	c.weight_precision = PREC_FP4;
	c.mxfp4 = true;
	eval_ok(&a, &c, &g, &r4);
	c.non_expert_own = true;
	c.non_expert_precision = PREC_BF16;
	eval_ok(&a, &c, &g, &rmix);
	c.non_expert_own = false;
	c.weight_precision = PREC_BF16;
	eval_ok(&a, &c, &g, &r16);
	/* bytes by hand: experts at 4.25 bits, the rest and the
	   embeddings at 16 */
	assert_rel(rmix.memory.weights_bytes,
		   experts * 0.53125 + other * 2.0 + embed * 2.0, 1e-12);
	assert_rel(r4.memory.weights_bytes,
		   (experts + other) * 0.53125 + embed * 2.0, 1e-12);
	assert_true(rmix.tpot_s > r4.tpot_s);
	assert_true(rmix.tpot_s < r16.tpot_s);
	assert_true(rmix.prefill_s >= r4.prefill_s);
	assert_true(rmix.prefill_s <= r16.prefill_s);
	/* the same format named twice is the uniform model */
	c.weight_precision = PREC_FP4;
	c.non_expert_own = true;
	c.non_expert_precision = PREC_FP4;
	eval_ok(&a, &c, &g, &rmix);
	assert_rel(rmix.tpot_s, r4.tpot_s, 1e-12);
	assert_rel(rmix.memory.weights_bytes, r4.memory.weights_bytes, 1e-12);
}

/* The attention core runs in the cache's format under 8-bit math: an
   fp8 model over a bf16 cache runs its long prompt's attention at the
   16-bit rate, over an fp8 cache at the fp8 one; 16-bit math is not
   changed by an fp8 cache. */
static void test_attention_precision(void **state)
{
	struct arch a = llama8b();
	struct gpu_spec g = h100();
	struct infer_config c = cfg(1, 1, 16384, 16);
	struct infer_result r8, r16, rb8, rb16;

	(void)state;
	c.weight_precision = PREC_FP8;
	c.kv_precision = PREC_FP8;
	eval_ok(&a, &c, &g, &r8);
	c.kv_precision = PREC_BF16;
	eval_ok(&a, &c, &g, &r16);
	/* the same GEMMs; the attention of 16384 tokens at half the rate */
	assert_true(r16.prefill_s > 1.1 * r8.prefill_s);
	c.weight_precision = PREC_BF16;
	eval_ok(&a, &c, &g, &rb16);
	c.kv_precision = PREC_FP8;
	eval_ok(&a, &c, &g, &rb8);
	assert_true(fabs(rb8.prefill_s - rb16.prefill_s) <
		    0.01 * rb16.prefill_s);
}

/* ------------------------------------------------------------------ */
/*
 * Prefill and decode by hand (specs/models.md 9.3, 9.4) for fixed shapes
 * on the H100-like device and cluster above, through the public API
 * only.  GEMMs and streams use the model_kernel.h primitives (checked by
 * hand in test_model_kernel.c), with the math precision of 9.2; the rest
 * is the documented formula with its constants written out: 16-bit
 * activations (e = 2), the causal half of the prompt's attention, the KV
 * cache read once per decode step at the roofline without the
 * in-training fraction, two all-reduces per layer on links of
 * 450e9 x 0.78 (3 us) inside a node of 8 and 50e9 x 0.90 (6 us) across.
 */
struct infer_ref {
	double ttft_s, tpot_s;
};

/* T_AR = 2 (n - 1)/n bytes / bw + 2 ceil(log2 n) latency */
static double ref_allreduce(int n, double bytes)
{
	double bw = n <= 8 ? 450e9 * 0.78 : 50e9 * 0.90;
	double lat = n <= 8 ? 3e-6 : 6e-6;
	int levels = 0;

	if (n <= 1)
		return 0.0;
	while ((1 << levels) < n)
		levels++;
	return 2.0 * (n - 1.0) / n * bytes / bw + 2.0 * levels * lat;
}

/* The four GEMMs of a layer (9.3) for M = 'rows' tokens, weights read
   at 'wb' bytes: QKV (column), output (row), FFN up and gate (column),
   down (row). */
static double ref_layer_gemms(const struct device_perf *d,
			      const struct arch *a, double t, double rows,
			      double wb)
{
	double h = a->hidden, f = a->ffn_hidden;
	double q = (double)a->heads * a->head_dim;
	double kv = (double)a->kv_heads * a->head_dim;
	double up = (a->gated_ffn ? 2.0 : 1.0) * f;

	return kernel_gemm_w_s(d, rows, (q + 2.0 * kv) / t, h, 1.0, wb) +
	       kernel_gemm_w_s(d, rows, h, q / t, 1.0, wb) +
	       kernel_gemm_w_s(d, rows, up / t, h, 1.0, wb) +
	       kernel_gemm_w_s(d, rows, h, f / t, 1.0, wb);
}

/* Norms (read + write), residual adds (two reads, a write) and the FFN
   activation ((2 + g) per element of f / t), 2-byte elements. */
static double ref_elementwise(const struct device_perf *d,
			      const struct arch *a, double t, double n)
{
	double e = 2.0, h = a->hidden, g = a->gated_ffn ? 1.0 : 0.0;

	return 2.0 * kernel_stream_s(d, 2.0 * n * h * e) +
	       2.0 * kernel_stream_s(d, 3.0 * n * h * e) +
	       kernel_stream_s(d, (2.0 + g) * n * a->ffn_hidden / t * e);
}

static void ref_infer(const struct arch *a, const struct infer_config *c,
		      const struct gpu_spec *g, double wb, double kvb,
		      enum precision math, struct infer_ref *out)
{
	struct device_perf d;
	double t = c->tp, h = a->hidden, dh = a->head_dim, L = a->layers;
	double e = 2.0;
	double kvg = fmax(1.0, (double)a->kv_heads / t); /* KV heads/GPU */
	double p = c->prompt_tokens, b = c->batch;
	double ctx = c->prompt_tokens + 0.5 * c->output_tokens;
	double f_attn, attn, kv_read, layer;

	assert_int_equal(device_perf_init(&d, g, math, false), 0);
	/* prefill: F_attn = 2 (a / t) p^2 dh, half of 4 p^2 dh per head */
	f_attn = 2.0 * (a->heads / t) * p * p * dh;
	layer = ref_layer_gemms(&d, a, t, p, wb) +
		ref_elementwise(&d, a, t, p) +
		f_attn / (g->peak_flops[math] * g->matmul_eff * 0.85 * 0.85) +
		kernel_gap_s() +
		kernel_stream_s(&d, p * 2.0 * kvg * dh * kvb) +
		2.0 * ref_allreduce(c->tp, p * h * e);
	out->ttft_s = L * layer +
		      kernel_gemm_w_s(&d, 1.0, a->vocab / t, h, 1.0, 2.0);
	/* decode at ctx = p_in + n_out / 2: kv_read = b ctx 2 a_kv,g dh kvb,
	   attention FLOPs 4 b (a / t) ctx dh */
	kv_read = b * ctx * 2.0 * kvg * dh * kvb;
	attn = fmax(kv_read / (g->mem_bw_bytes_per_s * g->mem_eff),
		    4.0 * b * (a->heads / t) * ctx * dh /
			    (g->peak_flops[math] * g->matmul_eff)) +
	       kernel_gap_s();
	layer = ref_layer_gemms(&d, a, t, b, wb) +
		ref_elementwise(&d, a, t, b) + attn +
		2.0 * ref_allreduce(c->tp, b * h * e);
	out->tpot_s = L * layer +
		      kernel_gemm_w_s(&d, b, a->vocab / t, h, 1.0, 2.0);
}

static void check_infer_reference(const struct arch *a,
				  const struct infer_config *c, double wb,
				  double kvb, enum precision math)
{
	struct gpu_spec g = h100();
	struct infer_result r;
	struct infer_ref want;
	double steps = c->output_tokens - 1.0;

	eval_ok(a, c, &g, &r);
	ref_infer(a, c, &g, wb, kvb, math, &want);
	assert_rel(r.ttft_s, want.ttft_s, 1e-12);
	assert_rel(r.prefill_s, want.ttft_s, 1e-12);
	assert_rel(r.tpot_s, want.tpot_s, 1e-12);
	assert_rel(r.e2e_latency_s, want.ttft_s + steps * want.tpot_s, 1e-12);
	assert_rel(r.service_s, c->batch * want.ttft_s + steps * want.tpot_s,
		   1e-12);
}

/* A small GQA model: L 3, h 1024, 8 heads (dh 128), 2 KV heads,
   SwiGLU 2816, V 32000, untied. */
static struct arch small_gqa(void)
{
	return make_arch(3, 1024, 8, 2, 2816, true, 32000, false);
}

static void test_reference_bf16(void **state)
{
	struct arch a = small_gqa();
	struct infer_config c = cfg(2, 1, 1000, 200);

	(void)state;
	check_infer_reference(&a, &c, 2.0, 2.0, PREC_BF16);
	/* a batch whose decode attention reads 8 x 1100 tokens of KV */
	c.batch = 8;
	check_infer_reference(&a, &c, 2.0, 2.0, PREC_BF16);
	/* a long context: the KV read dominates the decode step */
	c = cfg(1, 24, 7001, 1999);
	check_infer_reference(&a, &c, 2.0, 2.0, PREC_BF16);
}

static void test_reference_quantized(void **state)
{
	struct arch a = small_gqa();
	struct infer_config c = cfg(1, 8, 1531, 257);

	(void)state;
	/* fp8 weights and KV cache: fp8 math, 1-byte operands */
	c.weight_precision = PREC_FP8;
	c.kv_precision = PREC_FP8;
	check_infer_reference(&a, &c, 1.0, 1.0, PREC_FP8);
	/* int4 weights (0.5 + 4/128 bytes) in fp16 math; tp 4 > 2 KV heads:
	   each GPU holds one */
	c = cfg(4, 16, 3001, 517);
	c.weight_precision = PREC_INT4;
	check_infer_reference(&a, &c, 0.53125, 2.0, PREC_FP16);
}

/* tp 16 spans two nodes: the all-reduces go over the network. */
static void test_reference_across_nodes(void **state)
{
	struct arch a = make_arch(2, 4096, 32, 16, 11008, false, 50000, true);
	struct infer_config c = cfg(16, 4, 777, 129);

	(void)state;
	check_infer_reference(&a, &c, 2.0, 2.0, PREC_BF16);
}

/*
 * One step of the serving simulation by hand (specs/models.md 10.9.8):
 *   n = P + D + S tokens (S: draft tokens verified),
 *   K = k_layer [n > 0] + 2 [P > 0] + [D > 0]
 *   o = o_k when the step only decodes (P = 0, D > 0), else 0
 *   layer = K o + gemms(n) + elem(n) + comm(n)
 *         + [P > 0] (T_flash(Q F_pair / t) + T_stream(P kv_tok))
 *         + [D > 0] (max(C kv_tok r_kv / (bw mem_eff),
 *                        (1 + S / D) C F_pair / t / (peak matmul_eff))
 *                    + gap)
 *   step  = L layer + T_gemm_w(R + S, V / t, h, 1, 2) + o
 * with k_layer = 2 (fused QKV, output) + 2 (FFN) + 5 (element-wise)
 * + 2 all-reduces when t > 1, F_pair = 4 a dh, kv_tok = 2 a_kv,g dh kvb,
 * r_kv = 1, or (a / t) / a_kv,g with decode_per_head (specs/models.md 9.4).
 */
static double ref_step(const struct arch *a, const struct infer_config *c,
		       const struct gpu_spec *g, double ko,
		       const struct sim_mix *x)
{
	struct device_perf d;
	double t = c->tp, h = a->hidden, dh = a->head_dim, e = 2.0;
	double wb = infer_weight_bytes_per_param(c->weight_precision,
						 c->sparse, c->mxfp4);
	enum precision math = infer_math_precision(c->weight_precision);
	double kvb = c->kv_precision == PREC_FP8 ? 1.0 : 2.0;
	double kv_tok = 2.0 * fmax(1.0, (double)a->kv_heads / t) * dh * kvb;
	double r_kv = c->decode_per_head ?
			      (a->heads / t) / fmax(1.0, a->kv_heads / t) :
			      1.0;
	double f_pair = 4.0 * a->heads * dh;
	double n = x->prefill_tokens + x->decode_seqs + x->verify_tokens;
	double q = x->decode_seqs > 0.0 ?
			   1.0 + x->verify_tokens / x->decode_seqs :
			   1.0;
	double k_layer = 2.0 + 2.0 + 5.0 + (c->tp > 1 ? 2.0 : 0.0);
	double layer = 0.0;

	if (x->prefill_tokens > 0.0 || !(x->decode_seqs > 0.0))
		ko = 0.0;
	assert_int_equal(device_perf_init(&d, g, math, false), 0);
	if (n > 0.0)
		layer += k_layer * ko + ref_layer_gemms(&d, a, t, n, wb) +
			 ref_elementwise(&d, a, t, n) +
			 2.0 * ref_allreduce(c->tp, n * h * e);
	if (x->prefill_tokens > 0.0)
		layer += 2.0 * ko +
			 x->prefill_attn_pairs * f_pair / t /
				 (g->peak_flops[math] * g->matmul_eff * 0.85 *
				  0.85) +
			 kernel_gap_s() +
			 kernel_stream_s(&d, x->prefill_tokens * kv_tok);
	if (x->decode_seqs > 0.0)
		layer += ko +
			 fmax(x->decode_ctx_tokens * kv_tok * r_kv /
				      (g->mem_bw_bytes_per_s * g->mem_eff),
			      q * x->decode_ctx_tokens * f_pair / t /
				      (g->peak_flops[math] * g->matmul_eff)) +
			 kernel_gap_s();
	return a->layers * layer +
	       kernel_gemm_w_s(&d, x->logit_rows + x->verify_tokens,
			       a->vocab / t, h, 1.0, 2.0) +
	       ko;
}

static void check_step(const struct arch *a, const struct infer_config *c,
		       double ko, const struct sim_mix *x)
{
	struct gpu_spec g = h100();
	struct cluster cl = h100_cluster();
	struct infer_step_model m;

	assert_int_equal(infer_step_model_init(&m, a, c, &g, &cl, ko), 0);
	assert_rel(infer_step_s(&m, x), ref_step(a, c, &g, ko, x), 1e-12);
	/* the memoized layer gives the same time again */
	assert_rel(infer_step_s(&m, x), ref_step(a, c, &g, ko, x), 1e-12);
}

/* k decode steps planned at once are, number for number, the steps one
   at a time (a simulation's cruise relies on it, specs/models.md 10.9.2):
   the memoized path, and the ones it hands back to infer_step_s */
static void decode_steps_same(const struct arch *a,
			      const struct infer_config *c, double ko,
			      double seqs, double ctx0)
{
	struct gpu_spec g = h100();
	struct cluster cl = h100_cluster();
	struct infer_step_model m1, m2;
	struct sim_mix x = { 0.0, 0.0, 0.0, seqs, ctx0, seqs, 0.0 };
	double dt[40];

	assert_int_equal(infer_step_model_init(&m1, a, c, &g, &cl, ko), 0);
	assert_int_equal(infer_step_model_init(&m2, a, c, &g, &cl, ko), 0);
	infer_decode_steps_s(&m1, &x, seqs, 40, dt);
	for (int i = 0; i < 40; i++) {
		double one = infer_step_s(&m2, &x);

		if (dt[i] != one)
			print_error("step %d: %.17g planned, %.17g alone\n", i,
				    dt[i], one);
		assert_true(dt[i] == one);
		x.decode_ctx_tokens += seqs;
	}
}

static void test_decode_steps(void **state)
{
	struct arch a = small_gqa();
	struct infer_config c = cfg(2, 1, 1000, 200);
	struct arch big = llama70b();

	(void)state;
	decode_steps_same(&a, &c, 0.0, 8.0, 8800.0);
	decode_steps_same(&a, &c, 6e-6, 1.0, 1.0);
	decode_steps_same(&a, &c, 6e-6, 37.0, 123457.0);
	c.decode_per_head = true;
	decode_steps_same(&a, &c, 6e-6, 8.0, 8800.0);
	c = cfg(4, 1, 2048, 256);
	c.weight_precision = PREC_FP8;
	c.kv_precision = PREC_FP8;
	decode_steps_same(&big, &c, 5e-6, 120.0, 120.0 * 2200.0);
	/* past the memo: step by step */
	decode_steps_same(&big, &c, 5e-6, INFER_STEP_MEMO + 3.0, 1e7);
}

static void test_reference_step(void **state)
{
	struct arch a = small_gqa();
	struct infer_config c = cfg(2, 1, 1000, 200);
	/* a whole prompt; eight decodes at 1100 tokens; a mixed step of a
	   300-token chunk at offset 700 and five decodes */
	struct sim_mix prompt = { 1000.0, 500000.0, 1.0, 0.0, 0.0, 1.0, 0.0 };
	struct sim_mix decode = { 0.0, 0.0, 0.0, 8.0, 8800.0, 8.0, 0.0 };
	struct sim_mix mixed = { 300.0, 300.0 * (700.0 + 150.0), 1.0, 5.0,
				 4321.0, 6.0, 0.0 };
	struct gpu_spec g = h100();
	struct cluster cl = h100_cluster();
	struct infer_step_model m;
	struct infer_result r;

	(void)state;
	check_step(&a, &c, 0.0, &prompt);
	check_step(&a, &c, 6e-6, &prompt);
	check_step(&a, &c, 6e-6, &decode);
	check_step(&a, &c, 7.3e-6, &mixed);
	/* speculative decoding: the decodes verify 4 drafts each (query
	   tokens, KV read once, logit rows) */
	decode.verify_tokens = 32.0;
	mixed.verify_tokens = 20.0;
	check_step(&a, &c, 6e-6, &decode);
	check_step(&a, &c, 7.3e-6, &mixed);
	decode.verify_tokens = mixed.verify_tokens = 0.0;
	/* a kernel that reads the cache once per query head */
	c.decode_per_head = true;
	check_step(&a, &c, 6e-6, &decode);
	check_step(&a, &c, 7.3e-6, &mixed);
	c.decode_per_head = false;
	c = cfg(1, 1, 1531, 257);
	c.weight_precision = PREC_FP8;
	c.kv_precision = PREC_FP8;
	check_step(&a, &c, 6e-6, &mixed);
	check_step(&a, &c, 6e-6, &decode);
	/* without overheads, a whole prompt of p tokens (p^2 / 2 pairs) is
	   the prefill of infer_evaluate and b decodes at the mean context
	   its TPOT */
	c = cfg(2, 8, 1000, 200);
	eval_ok(&a, &c, &g, &r);
	assert_int_equal(infer_step_model_init(&m, &a, &c, &g, &cl, 0.0), 0);
	assert_rel(infer_step_s(&m, &prompt), r.prefill_s, 1e-12);
	assert_rel(infer_step_s(&m, &decode), r.tpot_s, 1e-12);
	/* and with them: one function gives both the same fixed costs, a
	   decode step's (L (k_layer + 1) + 1) o_k, a prompt's none */
	c.kernel_overhead_s = 7e-6;
	eval_ok(&a, &c, &g, &r);
	assert_int_equal(infer_step_model_init(&m, &a, &c, &g, &cl, 7e-6), 0);
	assert_rel(infer_step_s(&m, &prompt), r.prefill_s, 1e-12);
	assert_rel(infer_step_s(&m, &decode), r.tpot_s, 1e-12);
	c.kernel_overhead_s = 0.0;
	{
		struct infer_result r0;

		eval_ok(&a, &c, &g, &r0);
		assert_rel(r.tpot_s - r0.tpot_s,
			   7e-6 * (3.0 * (11.0 + 1.0) + 1.0), 1e-9);
		assert_rel(r.ttft_s, r0.ttft_s, 1e-15);
	}
}

/* Steps past the memo (n >= 8193 tokens) and the KV bytes per token on
   one GPU: L 2 max(1, a_kv / t) dh kvb. */
static void test_reference_step_large(void **state)
{
	struct arch a = small_gqa();
	struct infer_config c = cfg(4, 1, 9000, 100);
	struct sim_mix big = { 9000.0, 9000.0 * 4500.0, 1.0, 3.0, 12345.0,
			       4.0, 0.0 };

	(void)state;
	check_step(&a, &c, 6e-6, &big);
	assert_rel(infer_kv_bytes_per_token_gpu(&a, &c),
		   3.0 * 2.0 * 1.0 * 128.0 * 2.0, 1e-15);
	c.tp = 1;
	c.kv_precision = PREC_FP8;
	assert_rel(infer_kv_bytes_per_token_gpu(&a, &c),
		   3.0 * 2.0 * 2.0 * 128.0 * 1.0, 1e-15);
}

/* The overheads of a decode step: o_k (L K + 1), K as in 10.9.8; in an MoE
   model the FFN's kernels are averaged over the layers: a dense layer 2,
   an MoE layer a router, 2 for the shared experts and 2 routed. */
static void test_step_kernel_count(void **state)
{
	struct model_spec ms;
	struct arch a;
	struct infer_config c = cfg(2, 1, 64, 16);
	struct gpu_spec g = h100();
	struct cluster cl = h100_cluster();
	struct infer_step_model m0, m1;
	struct sim_mix mixed = { 64.0, 2048.0, 1.0, 3.0, 777.0, 4.0, 0.0 };
	struct sim_mix decode = { 0.0, 0.0, 0.0, 3.0, 777.0, 3.0, 0.0 };
	double ko = 5.3e-6;

	(void)state;
	memset(&ms, 0, sizeof(ms));
	ms.layers = 4;
	ms.hidden = 1024;
	ms.heads = 8;
	ms.kv_heads = 2;
	ms.ffn_hidden = 2816;
	ms.gated_ffn = true;
	ms.vocab = 32000;
	ms.seq_len = 4096;
	ms.experts = 8;
	ms.experts_per_token = 2;
	ms.shared_experts = 1;
	ms.expert_ffn_hidden = 704;
	ms.dense_layers = 1;
	assert_int_equal(arch_from_spec(&ms, &a), 0);
	assert_int_equal(infer_step_model_init(&m0, &a, &c, &g, &cl, 0.0), 0);
	assert_int_equal(infer_step_model_init(&m1, &a, &c, &g, &cl, ko), 0);
	/* k_layer = 2 + (1/4 2 + 3/4 (1 + 2 + 2)) + 5 + 2 = 13.25; a step
	   with prompt tokens pays no overhead */
	assert_rel(infer_step_s(&m1, &mixed), infer_step_s(&m0, &mixed),
		   1e-15);
	assert_rel(infer_step_s(&m1, &decode) - infer_step_s(&m0, &decode),
		   ko * (4.0 * (13.25 + 1.0) + 1.0), 1e-9);
	/* dense, tp 1: 2 + 2 + 5 */
	a = small_gqa();
	c.tp = 1;
	assert_int_equal(infer_step_model_init(&m0, &a, &c, &g, &cl, 0.0), 0);
	assert_int_equal(infer_step_model_init(&m1, &a, &c, &g, &cl, ko), 0);
	assert_rel(infer_step_s(&m1, &decode) - infer_step_s(&m0, &decode),
		   ko * (3.0 * (9.0 + 1.0) + 1.0), 1e-9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kv_bytes_opt13b),
		cmocka_unit_test(test_prefill_packed),
		cmocka_unit_test(test_kv_bytes_gqa),
		cmocka_unit_test(test_kv_bytes_unround),
		cmocka_unit_test(test_weight_bytes_per_param),
		cmocka_unit_test(test_memory_reference),
		cmocka_unit_test(test_memory_weights_quantized),
		cmocka_unit_test(test_memory_weights_scale_with_tp),
		cmocka_unit_test(test_memory_kv_heads_replicated),
		cmocka_unit_test(test_max_batch_memory),
		cmocka_unit_test(test_max_batch_weights_do_not_fit),
		cmocka_unit_test(test_decode_batch1_memory_bound),
		cmocka_unit_test(test_prefill_compute_bound),
		cmocka_unit_test(test_decode_intensity_closed_form),
		cmocka_unit_test(test_decode_ridge_crossing),
		cmocka_unit_test(test_decode_long_context_stays_memory_bound),
		cmocka_unit_test(test_decode_per_head),
		cmocka_unit_test(test_throughput_latency_energy),
		cmocka_unit_test(test_gpu_power),
		cmocka_unit_test(test_power_cap),
		cmocka_unit_test(test_power_cap_clock_floor),
		cmocka_unit_test(test_power_cap_below_idle),
		cmocka_unit_test(test_no_usable_precision),
		cmocka_unit_test(test_fp4),
		cmocka_unit_test(test_non_expert_precision),
		cmocka_unit_test(test_attention_precision),
		cmocka_unit_test(test_precision_fallback),
		cmocka_unit_test(test_reference_bf16),
		cmocka_unit_test(test_reference_quantized),
		cmocka_unit_test(test_reference_across_nodes),
		cmocka_unit_test(test_reference_step),
		cmocka_unit_test(test_decode_steps),
		cmocka_unit_test(test_reference_step_large),
		cmocka_unit_test(test_step_kernel_count),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
