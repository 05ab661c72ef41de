/* test_model_train.c - step time, throughput and efficiency (cmocka). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "model_train.h"

static void assert_rel(double got, double want, double tol)
{
	double scale = fabs(want) > 0.0 ? fabs(want) : 1.0;

	if (!(fabs(got - want) <= tol * scale)) {
		print_error("got %.17g, want %.17g (tol %g)\n", got, want, tol);
		fail();
	}
}

/* A100-SXM-80GB-like, built by hand. */
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
	g.intra_bw_bytes_per_s = 300e9;
	g.inter_bw_bytes_per_s = 25e9;
	return g;
}

static struct cluster a100_cluster(void)
{
	struct cluster cl;

	memset(&cl, 0, sizeof(cl));
	cl.gpus_per_node = 8;
	cl.intra_bw_bytes_per_s = 300e9;
	cl.inter_bw_bytes_per_s = 25e9;
	cl.pue = 1.2;
	return cl;
}

/* GPT-style 1.3B-class model: l=24, h=2048, 16 heads, f=4h, V=50257,
   s=2048. */
static struct arch gpt_arch(void)
{
	struct model_spec m;
	struct arch a;

	memset(&m, 0, sizeof(m));
	m.layers = 24;
	m.hidden = 2048;
	m.heads = 16;
	m.vocab = 50257;
	m.seq_len = 2048;
	m.tied_embeddings = true;
	assert_int_equal(arch_from_spec(&m, &a), 0);
	return a;
}

static struct train_config cfg(int tp, int pp, int vp, int cp, int dp,
			       int mb, int gb)
{
	struct train_config c;

	memset(&c, 0, sizeof(c));
	c.tp = tp;
	c.pp = pp;
	c.vp = vp;
	c.cp = cp;
	c.dp = dp;
	c.gpus = tp * pp * cp * dp;
	c.micro_batch = mb;
	c.global_batch = gb;
	c.micro_batches = gb / (dp * mb);
	c.zero = 1;
	c.recompute = RECOMPUTE_SELECTIVE;
	c.sequence_parallel = tp > 1;
	c.overlap_grad_reduce = true;
	c.dropout = false;
	c.precision = PREC_BF16;
	c.optimizer = OPTIMIZER_ADAM;
	c.attention = ATTN_FLASH;
	return c;
}

static void eval_ok(const struct arch *a, const struct train_config *c,
		    struct train_result *r)
{
	struct gpu_spec g = a100();
	struct cluster cl = a100_cluster();

	assert_true(train_config_valid(a, c, cl.gpus_per_node));
	assert_int_equal(train_evaluate(a, c, &g, &cl, r), 0);
}

static double parts_sum(const struct train_time *t)
{
	return t->compute_s + t->tp_comm_s + t->pp_comm_s + t->cp_comm_s +
	       t->bubble_s + t->dp_comm_s + t->optimizer_s + t->offload_s;
}

/* A set of configurations that exercise every term. */
static struct train_config sample(int i)
{
	struct train_config c;

	switch (i) {
	case 0: c = cfg(1, 1, 1, 1, 8, 2, 128); break;
	case 1: c = cfg(2, 4, 1, 1, 2, 1, 64); break;
	case 2: c = cfg(2, 4, 3, 1, 2, 1, 64); break;
	case 3: c = cfg(4, 2, 2, 2, 2, 1, 32);
		c.attention = ATTN_UNFUSED;
		c.dropout = true;
		break;
	case 4: c = cfg(8, 1, 1, 1, 4, 4, 96);
		c.zero = 3;
		c.recompute = RECOMPUTE_FULL;
		break;
	default: c = cfg(1, 2, 1, 1, 12, 3, 144);
		c.zero = 0;
		c.overlap_grad_reduce = false;
		c.recompute = RECOMPUTE_NONE;
		c.optimizer = OPTIMIZER_SGD;
		break;
	}
	return c;
}

#define NSAMPLES 6

static void test_step_is_sum_of_parts(void **state)
{
	struct arch a = gpt_arch();

	(void)state;
	for (int i = 0; i < NSAMPLES; i++) {
		struct train_config c = sample(i);
		struct train_result r;

		eval_ok(&a, &c, &r);
		assert_rel(r.time.step_s, parts_sum(&r.time), 1e-12);
		assert_true(r.time.compute_s > 0.0);
		assert_true(r.time.optimizer_s > 0.0);
		assert_true(r.time.tp_comm_s >= 0.0);
		assert_true(r.time.pp_comm_s >= 0.0);
		assert_true(r.time.cp_comm_s >= 0.0);
		assert_true(r.time.bubble_s >= 0.0);
		assert_true(r.time.dp_comm_s >= 0.0);
	}
}

static void test_absent_parallelism_costs_nothing(void **state)
{
	struct arch a = gpt_arch();
	struct train_config c = cfg(1, 1, 1, 1, 1, 2, 16);
	struct train_result r;

	(void)state;
	eval_ok(&a, &c, &r);
	assert_rel(r.time.tp_comm_s, 0.0, 0.0);
	assert_rel(r.time.pp_comm_s, 0.0, 0.0);
	assert_rel(r.time.cp_comm_s, 0.0, 0.0);
	assert_rel(r.time.bubble_s, 0.0, 0.0);
	assert_rel(r.time.dp_comm_s, 0.0, 0.0);

	/* each kind of parallelism brings its own traffic */
	c = cfg(2, 1, 1, 1, 1, 2, 16);
	eval_ok(&a, &c, &r);
	assert_true(r.time.tp_comm_s > 0.0);
	c = cfg(1, 2, 1, 1, 1, 2, 16);
	eval_ok(&a, &c, &r);
	assert_true(r.time.pp_comm_s > 0.0);
	assert_true(r.time.bubble_s > 0.0);
	c = cfg(1, 1, 1, 1, 2, 2, 16);
	c.overlap_grad_reduce = false;
	eval_ok(&a, &c, &r);
	assert_true(r.time.dp_comm_s > 0.0);
}

/* 1F1B: (p - 1) micro-batch slots of bubble, m slots of work (Narayanan
   et al. 2021, section 2.2), with stages of equal layers; interleaved,
   (p - 1) / v.  The slots are those of the stages but the slowest: with
   an output layer the last stage is the slowest and the others' slots
   are shorter. */
static void test_bubble_fraction(void **state)
{
	static const struct {
		int pp, vp, dp, gb;
	} cases[] = {
		{ 4, 1, 2, 64 }, { 3, 1, 2, 38 }, { 8, 1, 1, 48 },
		{ 4, 2, 2, 64 }, { 4, 3, 2, 40 }, { 2, 4, 4, 24 },
	};
	struct arch a = gpt_arch(), bare = gpt_arch();

	(void)state;
	/* equal stages: the heads of a 2-token vocabulary cost next to
	   nothing */
	bare.vocab = 2;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct train_config c = cfg(1, cases[i].pp, cases[i].vp, 1,
					    cases[i].dp, 1, cases[i].gb);
		double even = (c.pp - 1.0) / c.vp / c.micro_batches;
		struct train_result r, rb;
		double work, wb;

		eval_ok(&bare, &c, &rb);
		wb = rb.time.step_s - rb.time.bubble_s - rb.time.dp_comm_s -
		     rb.time.optimizer_s;
		assert_rel(rb.time.bubble_s / wb, even, 1e-2);
		/* the output layer (about two layers' time) makes the last
		   stage the slowest; the others hold 3 to 12 layers: 0.55-0.8
		   of the even share here, and interleaving still shrinks
		   it */
		eval_ok(&a, &c, &r);
		work = r.time.step_s - r.time.bubble_s - r.time.dp_comm_s -
		       r.time.optimizer_s;
		assert_true(r.time.bubble_s / work < 0.85 * even);
		assert_true(r.time.bubble_s / work > 0.5 * even);
	}
}

/* The slots of the bubble are chunks: halved by vp 2.  For 24 layers on
   4 stages the last one, with the output layer (about two layers' time
   here: V h = 2 x 12 h^2), is the slowest, and the slots are the chunks of
   the other three: about half of the bubble of vp 1, a little more for
   the sends. */
static void test_interleaving_shrinks_bubble(void **state)
{
	struct arch a = gpt_arch();
	struct train_config c1 = cfg(2, 4, 1, 1, 1, 1, 32);
	struct train_config c2 = cfg(2, 4, 2, 1, 1, 1, 32);
	struct train_config c3 = cfg(2, 4, 3, 1, 1, 1, 32);
	struct train_result r1, r2, r3;

	(void)state;
	eval_ok(&a, &c1, &r1);
	eval_ok(&a, &c2, &r2);
	eval_ok(&a, &c3, &r3);
	assert_true(r2.time.bubble_s < r1.time.bubble_s);
	assert_true(r3.time.bubble_s < r2.time.bubble_s);
	assert_true(r2.time.bubble_s / r1.time.bubble_s > 0.5);
	assert_true(r2.time.bubble_s / r1.time.bubble_s < 0.7);
	/* more pipeline sends with more chunks */
	assert_true(r2.time.pp_comm_s > r1.time.pp_comm_s);
	assert_true(r2.time.step_s < r1.time.step_s);
}

static void test_more_dp_is_faster(void **state)
{
	struct arch a = gpt_arch();
	double prev_step = INFINITY, prev_tps = 0.0, prev_per_gpu = INFINITY;

	(void)state;
	/* the same global batch over 2, 4, 8 and 16 replicas of tp 2 */
	for (int dp = 2; dp <= 16; dp *= 2) {
		struct train_config c = cfg(2, 1, 1, 1, dp, 2, 256);
		struct train_result r;

		eval_ok(&a, &c, &r);
		assert_true(r.time.step_s < prev_step);
		assert_true(r.tokens_per_s > prev_tps);
		/* but no GPU becomes faster by having company */
		assert_true(r.tokens_per_s_per_gpu <=
			    prev_per_gpu * (1.0 + 1e-12));
		prev_step = r.time.step_s;
		prev_tps = r.tokens_per_s;
		prev_per_gpu = r.tokens_per_s_per_gpu;
	}
}

static void test_recompute_order(void **state)
{
	struct arch a = gpt_arch();
	struct train_config c = cfg(2, 2, 1, 1, 2, 1, 32);
	struct train_result none, sel, full;

	(void)state;
	/* unfused attention: selective recomputation repeats the scores */
	c.attention = ATTN_UNFUSED;
	c.dropout = true;
	c.recompute = RECOMPUTE_NONE;
	eval_ok(&a, &c, &none);
	c.recompute = RECOMPUTE_SELECTIVE;
	eval_ok(&a, &c, &sel);
	c.recompute = RECOMPUTE_FULL;
	eval_ok(&a, &c, &full);
	assert_true(none.time.step_s < sel.time.step_s);
	assert_true(sel.time.step_s < full.time.step_s);
	/* full recomputation: one more forward, less than a third more */
	assert_true(full.time.step_s < 1.34 * none.time.step_s);
	/* memory goes the other way */
	assert_true(none.memory.activations_bytes >
		    sel.memory.activations_bytes);
	assert_true(sel.memory.activations_bytes >
		    full.memory.activations_bytes);
	/* the same model FLOPs; more hardware FLOPs */
	assert_rel(full.model_flops_per_token, none.model_flops_per_token,
		   0.0);
	assert_rel(full.hw_flops_per_token,
		   train_hw_flops_per_token(&a, RECOMPUTE_FULL), 1e-15);
	assert_true(full.hfu > full.mfu);
	assert_rel(none.hfu, none.mfu, 1e-15);

	/* fused attention recomputes inside its backward kernel anyway */
	c.attention = ATTN_FLASH;
	c.dropout = false;
	c.recompute = RECOMPUTE_NONE;
	eval_ok(&a, &c, &none);
	c.recompute = RECOMPUTE_SELECTIVE;
	eval_ok(&a, &c, &sel);
	c.recompute = RECOMPUTE_FULL;
	eval_ok(&a, &c, &full);
	assert_true(none.time.step_s <= sel.time.step_s);
	assert_true(sel.time.step_s < full.time.step_s);
}

static void test_efficiency_bounds(void **state)
{
	struct arch a = gpt_arch();
	struct gpu_spec g = a100();

	(void)state;
	for (int i = 0; i < NSAMPLES; i++) {
		struct train_config c = sample(i);
		struct train_result r;

		eval_ok(&a, &c, &r);
		assert_rel(r.peak_flops, 312e12, 0.0);
		/* never faster than large GEMMs at their best */
		assert_true(r.mfu > 0.0);
		assert_true(r.mfu <= g.matmul_eff);
		assert_true(r.hfu <= g.matmul_eff);
		assert_true(r.hfu >= r.mfu);
		assert_rel(r.hfu / r.mfu,
			   r.hw_flops_per_token / r.model_flops_per_token,
			   1e-12);
		assert_rel(r.mfu, r.model_flops_per_gpu / 312e12, 1e-15);
		assert_rel(r.model_flops_per_gpu,
			   r.model_flops_per_token * r.tokens_per_s_per_gpu,
			   1e-15);
		assert_true(r.busy_fraction > 0.0);
		assert_true(r.busy_fraction <= 1.0);
	}
	/* a well-configured 1.3B model on A100 lands in a plausible range
	   (Megatron-LM reports 40-55% MFU for GPT models on A100) */
	{
		struct train_config c = cfg(1, 1, 1, 1, 8, 4, 256);
		struct train_result r;

		eval_ok(&a, &c, &r);
		assert_true(r.mfu > 0.3);
		assert_true(r.mfu < 0.7);
	}
}

static void test_throughput_consistent(void **state)
{
	struct arch a = gpt_arch();
	struct gpu_spec g = a100();

	(void)state;
	for (int i = 0; i < NSAMPLES; i++) {
		struct train_config c = sample(i);
		struct train_result r;
		struct train_memory m;

		eval_ok(&a, &c, &r);
		assert_rel(r.tokens_per_step, c.global_batch * 2048.0, 0.0);
		assert_rel(r.tokens_per_s, r.tokens_per_step / r.time.step_s,
			   1e-15);
		assert_rel(r.tokens_per_s_per_gpu, r.tokens_per_s / c.gpus,
			   1e-15);
		assert_rel(r.params, arch_params(&a), 0.0);
		assert_rel(r.model_flops_per_token,
			   train_model_flops_per_token(&a), 0.0);
		/* the memory is the memory model's */
		train_memory_eval(&a, &c, g.mem_bytes, &m);
		assert_rel(r.memory.total_bytes, m.total_bytes, 0.0);
		assert_rel(r.memory.activations_bytes, m.activations_bytes,
			   0.0);
		assert_int_equal(r.memory.fits, m.fits);
	}
}

static void test_overlap_hides_dp(void **state)
{
	struct arch a = gpt_arch();
	struct train_config c = cfg(1, 1, 1, 1, 16, 2, 256);
	struct train_result on, off;

	(void)state;
	c.zero = 0;
	eval_ok(&a, &c, &on);
	c.overlap_grad_reduce = false;
	eval_ok(&a, &c, &off);
	assert_true(on.time.dp_comm_s < off.time.dp_comm_s);
	assert_rel(on.time.compute_s, off.time.compute_s, 0.0);
	/* the last bucket (here the embedding, with pp 1) never hides */
	assert_true(on.time.dp_comm_s > 0.0);
	/* ZeRO-1 shards the optimizer step */
	c.zero = 1;
	c.overlap_grad_reduce = true;
	eval_ok(&a, &c, &on);
	assert_true(on.time.optimizer_s < off.time.optimizer_s);
	/* its weight gather follows the optimizer step: exposed unless
	   --overlap-param-gather hides it under the next forward */
	{
		struct train_result gather;

		c.overlap_param_gather = true;
		eval_ok(&a, &c, &gather);
		assert_true(gather.time.dp_comm_s < on.time.dp_comm_s);
	}
}

static void test_missing_precision(void **state)
{
	struct arch a = gpt_arch();
	struct gpu_spec g = a100();
	struct cluster cl = a100_cluster();
	struct train_config c = cfg(1, 1, 1, 1, 8, 2, 128);
	struct train_result r;

	(void)state;
	/* only integer math: no bf16 or anything wider */
	memset(g.peak_flops, 0, sizeof(g.peak_flops));
	g.peak_flops[PREC_INT8] = 624e12;
	assert_int_equal(train_evaluate(&a, &c, &g, &cl, &r), -1);
	/* fp8 on a device without it falls back to bf16 */
	g = a100();
	c.precision = PREC_FP8;
	assert_int_equal(train_evaluate(&a, &c, &g, &cl, &r), 0);
	assert_rel(r.peak_flops, 312e12, 0.0);
}

/* A larger model takes longer in proportion to its FLOPs, roughly. */
static void test_scales_with_model(void **state)
{
	struct arch a = gpt_arch();
	struct arch b = gpt_arch();
	struct train_config c = cfg(1, 1, 1, 1, 8, 2, 128);
	struct train_result ra, rb;
	double flops_ratio, time_ratio;

	(void)state;
	b.layers = 48;
	eval_ok(&a, &c, &ra);
	eval_ok(&b, &c, &rb);
	flops_ratio = train_model_flops_per_token(&b) /
		      train_model_flops_per_token(&a);
	time_ratio = rb.time.compute_s / ra.time.compute_s;
	assert_rel(time_ratio, flops_ratio, 0.1);
	assert_true(rb.time.step_s > ra.time.step_s);
}

/* ------------------------------------------------------------------ */
/*
 * The step by hand (specs/models.md 6.1-6.12) for fixed shapes on the
 * A100-like device and cluster above: kernels through the model_kernel.h
 * primitives (their own references are in test_model_kernel.c), every
 * other number from the documented formula with the constants of
 * specs/models.md written out: links 300e9 x 0.78 (3 us, overlap cost
 * 0.15) inside a node of 8, 25e9 x 0.90 (6 us, 0.15) across nodes;
 * gradients in fp32 (4 bytes); Adam 42 and SGD 34 bytes per parameter;
 * causal fraction 0.5 and backward ratio 2.5 of flash attention.
 */
struct ref_link {
	double bw, lat, ov;
};

static struct ref_link ref_link_for(int group)
{
	struct ref_link intra = { 300e9 * 0.78, 3e-6, 0.15 };
	struct ref_link inter = { 25e9 * 0.90, 6e-6, 0.15 };

	return group <= 8 ? intra : inter;
}

/* T_ring = passes (n - 1)/n bytes / bw + passes ceil(log2 n) latency */
static double ref_ring(struct ref_link l, double bytes, int n, double passes)
{
	int levels = 0;

	if (n <= 1 || bytes <= 0.0)
		return 0.0;
	while ((1 << levels) < n)
		levels++;
	return passes * (n - 1.0) / n * bytes / l.bw + passes * levels * l.lat;
}

static double ref_p2p(struct ref_link l, double bytes)
{
	return bytes / l.bw + l.lat;
}

/* T_overlapped = comm - hidden + cost hidden, hidden = min(comm, compute) */
static double ref_overlapped(struct ref_link l, double comm, double compute)
{
	double hidden = fmin(comm, compute);

	return comm - hidden + l.ov * hidden;
}

/* forward T_gemm(n, N, K); backward T_gemm(n, K, N) + T_gemm(K, N, n) */
static void ref_linear(const struct device_perf *d, double m, double n,
		       double k, double *f, double *b)
{
	*f += kernel_gemm_s(d, m, n, k, 1.0);
	*b += kernel_gemm_s(d, m, k, n, 1.0) + kernel_gemm_s(d, k, n, m, 1.0);
}

struct ref_step {
	struct train_time tm;
	double attn_fwd_s, attn_bwd_s;
	double params_gpu;
};

static void ref_step_eval(const struct arch *a, const struct train_config *c,
			  struct ref_step *out)
{
	struct gpu_spec g = a100();
	struct device_perf d;
	double t = c->tp, h = a->hidden, f = a->ffn_hidden, V = a->vocab;
	double gate = a->gated_ffn ? 1.0 : 0.0;
	double kv = (double)a->kv_heads * a->head_dim;
	double n = (double)c->micro_batch * a->seq_len / c->cp;
	double e = 2.0; /* bf16 operands */
	double act = n * h * e;
	double m = c->micro_batches;
	double rep = c->sequence_parallel ? t : 1.0;
	double drop = c->dropout ? 1.0 : 0.0;
	double gf = 0.0, gb = 0.0, attn_f, attn_b, elem, fwd, bwd, tp_pass;
	double tp_f, tp_b;
	double rec = 0.0, rec_tp = 0.0, cp_f = 0.0, cp_b = 0.0;
	double out_f = 0.0, out_b = 0.0, emb, head_tp, f_mb, b_mb, p2p = 0.0;
	double per_mb, p_layer, p_gpu, grads, weights, comm, upd;
	double lf, lb, stage_t[3], stage_h[3], stage_c[3], head_fwd[3];
	double head_bwd[3];
	double chunk = 0.0;
	int layers[3], nst, slow = 0;
	struct ref_link tl = ref_link_for(c->tp);
	struct ref_link dl = ref_link_for(c->tp * c->pp * c->cp * c->dp);
	int nr = c->dp * c->cp;
	/* 7: hybrid sharding keeps a shard within the node's 8 / tp ranks
	   of the group, on its link, the replicas all-reduce the shards */
	int ns = c->zero_shard_ranks > 0 ? c->zero_shard_ranks :
		 c->zero_node_gpus > 0 && 8 / c->tp < nr ? 8 / c->tp :
							   nr;
	struct ref_link sl = ns < nr ? ref_link_for(c->tp * ns) : dl;

	assert_int_equal(device_perf_init(&d, &g, PREC_BF16, false), 0);
	/* 6.1: QKV (column), output (row), FFN up and gate (column), down */
	ref_linear(&d, n, (h + 2.0 * kv) / t, h, &gf, &gb);
	ref_linear(&d, n, h, h / t, &gf, &gb);
	ref_linear(&d, n, (1.0 + gate) * f / t, h, &gf, &gb);
	ref_linear(&d, n, h, f / t, &gf, &gb);
	/* 6.2: count = b a / t heads x sequences, sq = s / c, sk = s */
	{
		double count = (double)c->micro_batch * a->heads / t;
		double sq = (double)a->seq_len / c->cp, sk = a->seq_len;
		double dh = a->head_dim;

		if (c->attention == ATTN_FLASH) {
			double fl = 4.0 * count * sq * sk * dh * 0.5;

			attn_f = kernel_flash_attention_s(&d, fl, false);
			attn_b = kernel_flash_attention_s(&d, 2.5 * fl, true);
		} else {
			double el = count * sq * sk;

			attn_f = kernel_gemm_s(&d, sq, sk, dh, count) +
				 kernel_gemm_s(&d, sq, dh, sk, count) +
				 kernel_stream_s(&d, el * (4.0 + 5.0 * drop)) +
				 drop * kernel_gap_s();
			attn_b = kernel_gemm_s(&d, sq, dh, sk, count) +
				 kernel_gemm_s(&d, sk, dh, sq, count) +
				 kernel_gemm_s(&d, sq, sk, dh, count) +
				 kernel_gemm_s(&d, sk, dh, sq, count) +
				 kernel_stream_s(&d, el * (6.0 + 5.0 * drop)) +
				 drop * kernel_gap_s();
		}
	}
	/* 6.3: norms 4, residual adds 6 (+1 dropout mask) bytes per element
	   of h, FFN activation 4 (gated 6) per element of f / t */
	elem = 2.0 * kernel_stream_s(&d, n * h * 4.0 / rep) +
	       2.0 * kernel_stream_s(&d, n * h * (6.0 + drop) / rep) +
	       kernel_stream_s(&d, n * f / t * (gate ? 6.0 : 4.0));
	fwd = gf + attn_f + elem;
	bwd = gb + attn_b + 2.0 * elem;
	/* 6.5: two all-reduces per pass, or all-gather + reduce-scatter */
	tp_pass = c->sequence_parallel ?
			  2.0 * (ref_ring(tl, act, c->tp, 1.0) +
				 ref_ring(tl, act, c->tp, 1.0)) :
			  2.0 * ref_ring(tl, act, c->tp, 2.0);
	/* 6.5a: with tp_comm_overlap, 1/tp of the traffic stays exposed,
	   the rest hides behind (tp - 1)/tp of the pass's GEMMs at the
	   link's overlap cost */
	tp_f = tp_pass;
	tp_b = tp_pass;
	if (c->tp_comm_overlap && c->tp > 1) {
		double rest = tp_pass * (t - 1.0) / t;
		double hf = fmin(rest, gf * (t - 1.0) / t);
		double hb = fmin(rest, gb * (t - 1.0) / t);

		tp_f = tp_pass - hf + tl.ov * hf;
		tp_b = tp_pass - hb + tl.ov * hb;
	}
	/* 6.7: K and V around the cp ranks, hidden by the attention at the
	   link's overlap cost; each step's result merged into the running
	   one, 2 + 3 (c - 1) elements moved per element (output forward, dq
	   and dK/dV backward) */
	if (c->cp > 1) {
		struct ref_link cl = ref_link_for(c->tp * c->cp);
		double kv_el = n * 2.0 * kv / t;
		double q_el = n * a->heads * (double)a->head_dim / t;
		double merge = (2.0 + 3.0 * (c->cp - 1.0)) * e;
		double pass = (c->cp - 1.0) * ref_p2p(cl, kv_el * e);

		cp_f = ref_overlapped(cl, pass, attn_f) +
		       kernel_stream_s(&d, q_el * merge);
		cp_b = ref_overlapped(cl, 2.0 * pass, attn_b) +
		       kernel_stream_s(&d, (q_el + kv_el) * merge);
	}
	/* 6.6: recomputation repeats the ring with the attention core */
	if (c->recompute == RECOMPUTE_FULL) {
		rec = fwd + cp_f;
		rec_tp = tp_f;
	} else if (c->recompute == RECOMPUTE_SELECTIVE) {
		rec = attn_f + cp_f;
	}
	/* 6.8: logits GEMM, cross-entropy 10 / 6 bytes per logit (last
	   stage), the embedding gather (first stage); one all-reduce each */
	ref_linear(&d, n, V / t, h, &out_f, &out_b);
	/* 6.8: Megatron-Core's cross-entropy, 38 bytes per logit in six
	   kernels forward, 14 in two backward */
	out_f += kernel_stream_s(&d, 38.0 * n * V / t) + 5.0 * kernel_gap_s();
	out_b += kernel_stream_s(&d, 14.0 * n * V / t) + kernel_gap_s();
	emb = kernel_stream_s(&d, 2.0 * act);
	head_tp = ref_ring(tl, act, c->tp, 2.0);
	/* 3.3: layers of the stages (first, middle, last); pp 1: one */
	if (c->pp == 1) {
		nst = 1;
		layers[0] = a->layers;
		head_fwd[0] = emb + head_tp + out_f;
		head_bwd[0] = emb + out_b + head_tp;
	} else {
		int even = (a->layers + c->pp - 1) / c->pp;
		int fl = c->first_stage_layers ? c->first_stage_layers : even;
		int ll = c->last_stage_layers ? c->last_stage_layers : even;
		int rest = a->layers - fl - ll;

		nst = 3;
		layers[0] = fl;
		layers[1] = c->pp == 2 ? 0 :
			    c->first_stage_layers ?
					  (rest + c->pp - 3) / (c->pp - 2) :
					  even;
		layers[2] = ll;
		head_fwd[0] = emb + head_tp;
		head_bwd[0] = emb;
		head_fwd[1] = head_bwd[1] = 0.0;
		head_fwd[2] = out_f;
		head_bwd[2] = out_b + head_tp;
	}
	/* 6.9: the slowest stage; the largest chunk of each (the head in the
	   lightest of the stage's vp chunks) */
	lf = fwd + tp_f + cp_f;
	lb = bwd + tp_b + cp_b + rec + rec_tp;
	for (int i = 0; i < nst; i++) {
		int q = layers[i] / c->vp;
		double hh = head_fwd[i] + head_bwd[i];
		double big = layers[i] % c->vp ?
				     fmax((q + 1) * (lf + lb),
					  q * (lf + lb) + hh) :
				     q * (lf + lb) + hh;

		stage_h[i] = hh;
		stage_t[i] = layers[i] * (lf + lb) + hh;
		if (stage_t[i] > stage_t[slow])
			slow = i;
		stage_c[i] = big;
	}
	/* 6.10: one slot of its largest chunk for every stage but the
	   slowest (the pp - 2 middle ones alike) */
	for (int i = 0; nst == 3 && i < nst; i++) {
		double copies = i == 1 ? c->pp - 2.0 : 1.0;

		chunk += (i == slow ? copies - 1.0 : copies) * stage_c[i];
	}
	f_mb = layers[slow] * lf + head_fwd[slow];
	b_mb = layers[slow] * lb + head_bwd[slow];
	if (c->pp > 1)
		p2p = 2.0 * c->vp *
		      ref_p2p(ref_link_for(c->tp * c->cp * c->pp), act / t);
	per_mb = f_mb + b_mb + p2p;
	/* 6.10 */
	out->tm.compute_s =
		m * (layers[slow] * (fwd + bwd + rec) + stage_h[slow] -
		     (slow == 0 ? 1.0 : 0.0) * head_tp -
		     (slow == nst - 1 ? 1.0 : 0.0) * head_tp);
	out->tm.tp_comm_s = m * (layers[slow] * (tp_f + tp_b + rec_tp) +
				 ((slow == 0 ? 1.0 : 0.0) +
				  (slow == nst - 1 ? 1.0 : 0.0)) *
					 head_tp);
	out->tm.cp_comm_s = m * layers[slow] * (cp_f + cp_b);
	out->tm.pp_comm_s = m * p2p;
	out->tm.bubble_s = c->pp > 1 ? chunk + (c->pp - 1.0) * p2p / c->vp :
				       0.0;
	/* 3.4: parameters of the most loaded GPU (the most of any stage) */
	p_layer = 2.0 * h * h + 2.0 * h * kv + (2.0 + gate) * h * f + 2.0 * h;
	if (c->pp == 1)
		p_gpu = layers[0] * p_layer / t +
			(a->tied_embeddings ? 1.0 : 2.0) * V * h / t + h;
	else
		p_gpu = fmax(fmax(layers[0] * p_layer / t + V * h / t,
				  layers[1] * p_layer / t),
			     layers[2] * p_layer / t + h + V * h / t);
	out->params_gpu = p_gpu;
	/* 6.11 */
	grads = 4.0 * p_gpu;
	weights = 2.0 * p_gpu;
	if (nr <= 1) {
		out->tm.dp_comm_s = 0.0;
	} else if (c->zero == 3) {
		double mb = 2.0 * ref_ring(sl, weights, ns, 1.0) +
			    ref_ring(sl, grads, ns, 1.0);
		double rs = ref_ring(dl, grads / ns, nr / ns, 2.0);
		double left = fmax(f_mb + b_mb - mb, 0.0);

		out->tm.dp_comm_s = m * (ref_overlapped(sl, mb, f_mb + b_mb) +
					 ref_overlapped(dl, rs, left)) +
				    ref_ring(sl, weights / a->layers, ns, 1.0);
	} else {
		/* 6.11: the last bucket (at least max(40M, 1M x ranks)
		   parameters, with pp 1 the whole embedding) stays exposed;
		   the reduction hides under the last backward, the ZeRO
		   weight gather under the first forward */
		double red = c->zero == 0 ?
				     ref_ring(dl, grads, nr, 2.0) :
				     ref_ring(sl, grads, ns, 1.0) +
					     ref_ring(dl, grads / ns, nr / ns,
						      2.0);
		double gat = c->zero == 0 ? 0.0 :
					    ref_ring(sl, weights, ns, 1.0);
		double tail = fmax(fmax(40e6, 1e6 * nr),
				   c->pp == 1 ? V * h / t : 0.0);

		tail = tail < p_gpu ? tail / p_gpu : 1.0;
		if (c->overlap_grad_reduce)
			red = ref_overlapped(dl, red * (1.0 - tail), b_mb) +
			      red * tail;
		if (c->overlap_param_gather)
			gat = ref_overlapped(dl, gat * (1.0 - tail), f_mb) +
			      gat * tail;
		comm = red + gat;
		out->tm.dp_comm_s = comm;
	}
	/* 6.12 */
	upd = c->zero >= 1 ? p_gpu / ns : p_gpu;
	out->tm.optimizer_s = kernel_stream_s(
		&d, upd * (c->optimizer == OPTIMIZER_ADAM ? 42.0 : 34.0));
	out->tm.step_s = m * per_mb + out->tm.bubble_s + out->tm.dp_comm_s +
			 out->tm.optimizer_s;
	out->attn_fwd_s = attn_f;
	out->attn_bwd_s = attn_b;
}

/* GPT-style, MHA, plain FFN: L 6, h 1536, 12 heads (dh 128), f 4h,
   V 50257, s 1536, tied embeddings. */
static struct arch ref_arch_mha(void)
{
	struct model_spec m;
	struct arch a;

	memset(&m, 0, sizeof(m));
	m.layers = 6;
	m.hidden = 1536;
	m.heads = 12;
	m.vocab = 50257;
	m.seq_len = 1536;
	m.tied_embeddings = true;
	assert_int_equal(arch_from_spec(&m, &a), 0);
	return a;
}

/* Llama-style, GQA, SwiGLU: L 8, h 2048, 16 heads, 4 KV heads, f 5632,
   V 32003, s 2048, untied. */
static struct arch ref_arch_gqa(void)
{
	struct model_spec m;
	struct arch a;

	memset(&m, 0, sizeof(m));
	m.layers = 8;
	m.hidden = 2048;
	m.heads = 16;
	m.kv_heads = 4;
	m.ffn_hidden = 5632;
	m.gated_ffn = true;
	m.vocab = 32003;
	m.seq_len = 2048;
	m.tied_embeddings = false;
	assert_int_equal(arch_from_spec(&m, &a), 0);
	return a;
}

static void check_reference(const struct arch *a, const struct train_config *c)
{
	struct train_result r;
	struct train_micro mc;
	struct ref_step want;
	struct gpu_spec g = a100();
	struct cluster cl = a100_cluster();

	eval_ok(a, c, &r);
	ref_step_eval(a, c, &want);
	assert_rel(train_params_per_gpu(a, c), want.params_gpu, 1e-15);
	assert_int_equal(train_micro_eval(a, c, &g, &cl, &mc), 0);
	assert_rel(mc.layer.attn_fwd_s, want.attn_fwd_s, 1e-12);
	assert_rel(mc.layer.attn_bwd_s, want.attn_bwd_s, 1e-12);
	assert_rel(r.time.compute_s, want.tm.compute_s, 1e-12);
	assert_rel(r.time.tp_comm_s, want.tm.tp_comm_s, 1e-12);
	assert_rel(r.time.pp_comm_s, want.tm.pp_comm_s, 1e-12);
	assert_rel(r.time.cp_comm_s, want.tm.cp_comm_s, 1e-12);
	assert_rel(r.time.bubble_s, want.tm.bubble_s, 1e-12);
	assert_rel(r.time.dp_comm_s, want.tm.dp_comm_s, 1e-12);
	assert_rel(r.time.optimizer_s, want.tm.optimizer_s, 1e-12);
	assert_rel(r.time.step_s, want.tm.step_s, 1e-12);
}

/* tp 2 (NVLink all-reduces), pp 3 (sends inside the node, a bubble of
   2 slots), dp 2 over 12 GPUs: the gradient all-reduce crosses nodes;
   ZeRO-0 without overlap, no recomputation, flash attention, Adam. */
static void test_reference_tp_pp_dp(void **state)
{
	struct arch a = ref_arch_mha();
	struct train_config c = cfg(2, 3, 1, 1, 2, 1, 12);

	(void)state;
	c.sequence_parallel = false;
	c.zero = 0;
	c.overlap_grad_reduce = false;
	c.recompute = RECOMPUTE_NONE;
	check_reference(&a, &c);
	/* the same with the parts read off by hand for this shape:
	   act = n h e = 1536 x 1536 x 2 bytes over 2 GPUs, m = 6 */
	{
		struct train_result r;
		double act = 1536.0 * 1536 * 2;
		double ar = act / (300e9 * 0.78) + 2.0 * 3e-6;
		double p_gpu = 2.0 * (12.0 * 1536 * 1536 + 2.0 * 1536) / 2.0 +
			       1536.0 + 50257.0 * 1536 / 2.0;

		eval_ok(&a, &c, &r);
		/* the slowest stage is the last: 6 micro-batches x (2
		   layers x 2 passes x 2 all-reduces + 1 of the output
		   layer's backward) */
		assert_rel(r.time.tp_comm_s, 6.0 * (2 * 2 * 2 + 1) * ar, 1e-12);
		/* 6 micro-batches x 2 sends of act / 2 */
		assert_rel(r.time.pp_comm_s,
			   6.0 * 2.0 * (act / 2.0 / (300e9 * 0.78) + 3e-6),
			   1e-12);
		/* fp32 gradients all-reduced over 2 ranks across nodes */
		assert_rel(r.time.dp_comm_s,
			   4.0 * p_gpu / (25e9 * 0.9) + 2.0 * 6e-6, 1e-12);
		/* Adam, 42 bytes per parameter, unsharded */
		assert_rel(r.time.optimizer_s,
			   42.0 * p_gpu / (2.039e12 * 0.9) + 2e-6, 1e-12);
		/* p - 1 = 2 slots, of the stages but the slowest (the
		   last): the first (2 layers and the embedding, its
		   all-reduce forward) and the middle (2 layers), each with
		   its sends */
		{
			struct gpu_spec g = a100();
			struct cluster cl = a100_cluster();
			struct train_micro mc;
			double layer, sends = 2.0 * (act / 2.0 /
							    (300e9 * 0.78) +
						    3e-6);

			assert_int_equal(train_micro_eval(&a, &c, &g, &cl, &mc),
					 0);
			layer = mc.layer.fwd_s + mc.layer.bwd_s + 4.0 * ar;
			assert_rel(r.time.bubble_s,
				   2.0 * 2.0 * layer + mc.embed_fwd_s +
					   mc.embed_bwd_s + ar + 2.0 * sends,
				   1e-12);
			/* shorter than two slots of the slowest */
			assert_true(r.time.bubble_s <
				    2.0 * (r.time.compute_s +
					   r.time.tp_comm_s +
					   r.time.pp_comm_s) / 6.0);
		}
	}
}

/* Interleaved (vp 2), sequence parallelism, ZeRO-1 with the reduction
   overlapped, full recomputation, unfused attention with dropout, SGD. */
static void test_reference_interleaved_unfused(void **state)
{
	struct arch a = ref_arch_mha();
	struct train_config c = cfg(2, 3, 2, 1, 2, 1, 12);

	(void)state;
	c.zero = 1;
	c.recompute = RECOMPUTE_FULL;
	c.attention = ATTN_UNFUSED;
	c.dropout = true;
	c.optimizer = OPTIMIZER_SGD;
	check_reference(&a, &c);
	c.recompute = RECOMPUTE_SELECTIVE;
	c.overlap_grad_reduce = false;
	check_reference(&a, &c);
}

/* First and last stage counts given: the embedding's stage holds 1
   layer over 2 chunks (one chunk only the embedding), the middle 3, the
   last 2; GQA: 5 + 3 layers over 4 chunks a stage. */
static void test_reference_uneven(void **state)
{
	struct arch a = ref_arch_mha();
	struct arch q = ref_arch_gqa();
	struct train_config c = cfg(2, 3, 2, 1, 2, 1, 12);

	(void)state;
	c.first_stage_layers = 1;
	c.last_stage_layers = 2;
	check_reference(&a, &c);
	c.vp = 1;
	c.first_stage_layers = 3;
	c.last_stage_layers = 1;
	check_reference(&a, &c);
	c = cfg(8, 2, 4, 1, 1, 2, 8);
	c.first_stage_layers = 5;
	c.last_stage_layers = 3;
	check_reference(&q, &c);
	c.first_stage_layers = 3;
	c.last_stage_layers = 5;
	check_reference(&q, &c);
}

/* The pipeline part of a step: what the split of the layers changes. */
static double pipeline_s(const struct train_result *r)
{
	return r->time.step_s - r->time.dp_comm_s - r->time.optimizer_s;
}

/* train_stage_choose against every legal split, first and last stage
   counts open or one of them fixed. */
static void test_stage_choose_exhaustive(void **state)
{
	static const int pps[] = { 2, 3, 4, 5, 6 }, vps[] = { 1, 2, 3, 4 };
	struct arch arches[2] = { gpt_arch(), ref_arch_gqa() };
	struct gpu_spec g = a100();
	struct cluster cl = a100_cluster();
	int checked = 0;

	(void)state;
	for (int ai = 0; ai < 2; ai++)
	for (size_t pi = 0; pi < sizeof(pps) / sizeof(pps[0]); pi++)
	for (size_t vi = 0; vi < sizeof(vps) / sizeof(vps[0]); vi++)
	for (int rc = RECOMPUTE_NONE; rc <= RECOMPUTE_FULL; rc += 2)
	for (int fixed = 0; fixed < 3; fixed++) {
		const struct arch *a = &arches[ai];
		struct train_config c = cfg(2, pps[pi], vps[vi], 1, 1, 1,
					    2 * pps[pi]);
		struct train_micro mc;
		struct train_result r;
		double best = INFINITY;
		int first = fixed == 1 ? 2 : 0, last = fixed == 2 ? 2 : 0;

		c.recompute = (enum recompute)rc;
		train_stage_fill(a, &c, first, last);
		if (!train_config_valid(a, &c, cl.gpus_per_node))
			continue;
		assert_int_equal(train_micro_eval(a, &c, &g, &cl, &mc), 0);
		for (int f = 1; f < a->layers; f++)
			for (int l = 1; l < a->layers; l++) {
				struct train_config t = c;

				t.first_stage_layers = f;
				t.last_stage_layers = l;
				if ((first && f != first) ||
				    (last && l != last) ||
				    !train_config_valid(a, &t, 8))
					continue;
				train_evaluate_micro(a, &t, &g, &cl, &mc, &r);
				best = fmin(best, pipeline_s(&r));
			}
		assert_int_equal(train_stage_choose(a, &c, &mc, first, last),
				 0);
		assert_true(train_config_valid(a, &c, cl.gpus_per_node));
		if (first)
			assert_int_equal(c.first_stage_layers, first);
		if (last)
			assert_int_equal(c.last_stage_layers, last);
		train_evaluate_micro(a, &c, &g, &cl, &mc, &r);
		if (pipeline_s(&r) > best * (1.0 + 1e-12))
			print_error("layers %d, pp %d, vp %d, recompute %d: "
				    "chose %d + %d\n", a->layers, c.pp, c.vp,
				    rc, c.first_stage_layers,
				    c.last_stage_layers);
		assert_rel(pipeline_s(&r), best, 1e-12);
		checked++;
	}
	assert_true(checked > 100);
}

/* Llama 3 405B, 126 layers on 16 stages: 7 on the first and the last
   (with the embedding and the output layer), 8 on the 14 others; with 8
   chunks a stage the only legal split. */
static void test_stage_choose_llama3(void **state)
{
	struct model_spec m;
	struct arch a;
	struct gpu_spec g = a100();
	struct cluster cl = a100_cluster();
	struct train_micro mc;
	struct train_config c = cfg(8, 16, 1, 1, 1, 1, 32);
	struct train_stages s;

	(void)state;
	memset(&m, 0, sizeof(m));
	m.layers = 126;
	m.hidden = 16384;
	m.heads = 128;
	m.kv_heads = 8;
	m.ffn_hidden = 53248;
	m.gated_ffn = true;
	m.vocab = 128256;
	m.seq_len = 8192;
	assert_int_equal(arch_from_spec(&m, &a), 0);
	for (int vp = 1; vp <= 8; vp *= 8) {
		c.vp = vp;
		assert_int_equal(train_micro_eval(&a, &c, &g, &cl, &mc), 0);
		assert_int_equal(train_stage_choose(&a, &c, &mc, 0, 0), 0);
		assert_true(train_config_valid(&a, &c, 8));
		train_stage_split(&a, &c, &s);
		assert_int_equal(s.first, 7);
		assert_int_equal(s.last, 7);
		assert_int_equal(s.middle, 8);
	}
	/* fixed on one end, the other is chosen: 9 + 13 x 8 + 13 */
	c.vp = 1;
	assert_int_equal(train_stage_choose(&a, &c, &mc, 9, 0), 0);
	assert_int_equal(c.first_stage_layers, 9);
	assert_true(c.last_stage_layers <= 7);
	/* none legal: 120 + 1 leave 5 layers for 14 stages */
	assert_int_equal(train_stage_choose(&a, &c, &mc, 120, 1), -1);
	/* one stage: nothing to choose */
	c = cfg(8, 1, 1, 1, 16, 1, 32);
	assert_int_equal(train_stage_choose(&a, &c, &mc, 0, 0), 0);
	assert_int_equal(c.first_stage_layers, 0);
	assert_int_equal(c.last_stage_layers, 0);
}

/* FSDP: ZeRO-3 on 8 GPUs of one node, gathers prefetched behind each
   micro-batch; flash attention with selective recomputation. */
static void test_reference_zero3(void **state)
{
	struct arch a = ref_arch_mha();
	struct train_config c = cfg(1, 1, 1, 1, 8, 2, 32);

	(void)state;
	c.zero = 3;
	check_reference(&a, &c);
	/* 16 GPUs: across nodes, where the traffic sticks out */
	c = cfg(1, 1, 1, 1, 16, 1, 16);
	c.zero = 3;
	check_reference(&a, &c);
}

/*
 * A mesh node (specs/models.md 5.1): 8 devices, each with a link of its
 * own to each of the 7 others, intra_bw their sum.  A job of g of them
 * runs as on a switch of (g - 1)/7 of intra_bw (its collectives and its
 * pipeline's sends are among those g, or between two: one link); the
 * whole node as on a switch.
 */
static void test_mesh_node(void **state)
{
	static const struct {
		int tp, pp, dp;
		double share; /* of intra_bw on a switch that runs the same */
	} cases[] = {
		{ 2, 1, 1, 1.0 / 7.0 }, /* tp over one link */
		{ 4, 1, 1, 3.0 / 7.0 }, /* tp over three */
		{ 1, 2, 1, 1.0 / 7.0 }, /* one send between two stages */
		{ 1, 1, 4, 3.0 / 7.0 }, /* data parallelism over four */
		{ 8, 1, 1, 1.0 },       /* the whole node */
	};
	struct arch a = gpt_arch();
	struct gpu_spec g = a100();

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct train_config c = cfg(cases[i].tp, cases[i].pp, 1, 1,
					    cases[i].dp, 1, 8 * cases[i].dp);
		struct cluster mesh = a100_cluster(), sw = a100_cluster();
		struct cluster plain = a100_cluster();
		struct train_result rm, rs, full;

		c.zero = 0;
		mesh.intra_mesh = true;
		sw.intra_bw_bytes_per_s *= cases[i].share;
		assert_int_equal(train_evaluate(&a, &c, &g, &mesh, &rm), 0);
		assert_int_equal(train_evaluate(&a, &c, &g, &sw, &rs), 0);
		assert_rel(rm.time.step_s, rs.time.step_s, 1e-12);
		assert_rel(rm.time.tp_comm_s, rs.time.tp_comm_s, 1e-12);
		assert_rel(rm.time.dp_comm_s, rs.time.dp_comm_s, 1e-12);
		/* and slower than on a switch of all of intra_bw, but for the
		   whole node */
		assert_int_equal(train_evaluate(&a, &c, &g, &plain, &full), 0);
		if (cases[i].share < 1.0)
			assert_true(rm.time.step_s > full.time.step_s);
		else
			assert_rel(rm.time.step_s, full.time.step_s, 1e-12);
	}
	/* hybrid sharding within the node: shards of 2 (one link), their 4
	   replicas all-reduce over three links, slower than on a switch */
	{
		struct train_config c = cfg(1, 1, 1, 1, 8, 1, 16);
		struct cluster mesh = a100_cluster(), sw = a100_cluster();
		struct train_result rm, rs;

		c.zero = 3;
		c.zero_shard_ranks = 2;
		mesh.intra_mesh = true;
		assert_int_equal(train_evaluate(&a, &c, &g, &mesh, &rm), 0);
		assert_int_equal(train_evaluate(&a, &c, &g, &sw, &rs), 0);
		assert_true(rm.time.dp_comm_s > rs.time.dp_comm_s);
	}
}

/* Hybrid sharding (FSDP HYBRID_SHARD): 32 GPUs on nodes of 8, the
   states sharded over the 8 (tp 1) or 4 (tp 2) ranks of a node and the
   gradient shards all-reduced over the 4 or 8 replicas across nodes;
   ZeRO-3 and ZeRO-1.  Less crosses the network than with the states
   sharded over all 32, at the price of the memory of 8-way shards. */
static void test_reference_hybrid_shard(void **state)
{
	struct arch a = ref_arch_mha();
	struct gpu_spec g = a100();
	struct cluster cl = a100_cluster();
	struct train_config c;
	struct train_result full, hybrid;

	(void)state;
	for (int z = 1; z <= 3; z += 2) {
		for (int tp = 1; tp <= 2; tp++) {
			c = cfg(tp, 1, 1, 1, 32 / tp, 1, 64 / tp);
			c.zero = z;
			c.zero_node_gpus = 8;
			assert_int_equal(train_config_zero_shards(&c, NULL),
					 8 / tp);
			check_reference(&a, &c);
			assert_int_equal(train_evaluate(&a, &c, &g, &cl,
							&hybrid), 0);
			c.zero_node_gpus = 0;
			assert_int_equal(train_config_zero_shards(&c, NULL),
					 32 / tp);
			assert_int_equal(train_evaluate(&a, &c, &g, &cl,
							&full), 0);
			assert_true(hybrid.time.dp_comm_s <
				    full.time.dp_comm_s);
			assert_true(hybrid.memory.optimizer_bytes >
				    3.9 * full.memory.optimizer_bytes);
		}
	}
	/* a shard of 16 ranks (two nodes) and two replicas: the shard's
	   collectives cross the network too */
	c = cfg(1, 1, 1, 1, 32, 1, 64);
	c.zero = 3;
	c.zero_shard_ranks = 16;
	assert_int_equal(train_config_zero_shards(&c, NULL), 16);
	check_reference(&a, &c);
	c.zero = 2;
	check_reference(&a, &c);
	/* tp 16 over two nodes of 8: no two data-parallel ranks share a
	   node, nothing is sharded and the replicas all-reduce, as ZeRO 0 */
	{
		struct arch b = gpt_arch();
		struct train_result plain;

		c = cfg(16, 1, 1, 1, 2, 1, 2);
		c.zero = 1;
		c.zero_node_gpus = 8;
		assert_int_equal(train_config_zero_shards(&c, NULL), 1);
		assert_int_equal(train_evaluate(&b, &c, &g, &cl, &hybrid), 0);
		c.zero = 0;
		c.zero_node_gpus = 0;
		assert_int_equal(train_evaluate(&b, &c, &g, &cl, &plain), 0);
		assert_true(plain.time.dp_comm_s > 0.0);
		assert_rel(hybrid.time.dp_comm_s, plain.time.dp_comm_s, 1e-12);
		assert_rel(hybrid.memory.optimizer_bytes,
			   plain.memory.optimizer_bytes, 1e-12);
	}
	/* within one node hybrid sharding is full sharding */
	c = cfg(1, 1, 1, 1, 8, 2, 32);
	c.zero = 3;
	c.zero_node_gpus = 8;
	assert_int_equal(train_config_zero_shards(&c, NULL), 8);
	check_reference(&a, &c);
}

/* GQA and SwiGLU: tp 4 with context parallelism 2 (ring attention
   inside a node of 8) and dp 2 across nodes, ZeRO-2 overlapped; tp 8,
   pp 2 with the pipeline sends across nodes and one data-parallel rank
   (no reduction). */
static void test_reference_gqa_cp(void **state)
{
	struct arch a = ref_arch_gqa();
	struct train_config c = cfg(4, 1, 1, 2, 2, 1, 4);

	(void)state;
	c.zero = 2;
	c.attention = ATTN_UNFUSED;
	check_reference(&a, &c);
	c.attention = ATTN_FLASH;
	check_reference(&a, &c);
	c = cfg(8, 2, 1, 1, 1, 2, 8);
	c.recompute = RECOMPUTE_NONE;
	check_reference(&a, &c);
	c.sequence_parallel = false;
	c.recompute = RECOMPUTE_FULL;
	check_reference(&a, &c);
}

/*
 * Eager element-wise kernels (training.eager_ops, specs/models.md 6.3), by
 * hand: the GQA model (h 2048, 16 heads of 128, 4 kv heads, SwiGLU of
 * 5632) at tp 2 with sequence parallelism, three 2048-token sequences: n =
 * 6144 tokens, memory at 2.039e12 x 0.9 = 1.8351e12 B/s, 2 us a kernel.
 *   norm: 2 norms of n h / 2 = 6291456 elements, 36 bytes in 8 kernels
 *         instead of 4 in 1: 2 (32 x 6291456 / 1.8351e12 + 7 x 2e-6)
 *         = 2.4741757e-4 s
 *   act:  n f / 2 = 17301504 elements, 10 bytes in 2 kernels instead of 6
 *         in 1: 4 x 17301504 / 1.8351e12 + 2e-6 = 3.9712395e-5 s
 *   rope: (8 query + 2 kv heads) x 128 x n = 7864320 elements, 20 bytes in
 *         10 kernels: 1.0570999e-4 s
 *   kv_expand: K and V, 2 kv heads read and 8 written, 2 bytes: n x 2 x
 *         10 x 128 x 2 = 31457280 bytes in 2 kernels: 2.1141998e-5 s
 * The forward grows by their sum, 4.1398195e-4 s; the backward by twice
 * that; full recomputation by the forward's; selective recomputation of
 * the norms by the norms'.  No eager op changes nothing.
 */
static void test_eager_ops(void **state)
{
	struct arch a = ref_arch_gqa();
	struct train_config c = cfg(2, 1, 1, 1, 1, 3, 3);
	struct gpu_spec g = a100();
	struct cluster cl = a100_cluster();
	struct train_micro fused, eager, one;
	const double norm_s = 2.4741757070459376e-4, act_s = 3.971239496485205e-5;
	const double rope_s = 1.0570999e-4, kv_s = 2.1141998e-5;
	const double all_s = 4.1398195193722415e-4;

	(void)state;
	c.recompute_modules = RECOMPUTE_MOD_LAYERNORM;
	assert_int_equal(train_micro_eval(&a, &c, &g, &cl, &fused), 0);
	c.eager_ops = EAGER_OP_NORM | EAGER_OP_ROPE | EAGER_OP_ACT |
		      EAGER_OP_KV_EXPAND;
	assert_int_equal(train_micro_eval(&a, &c, &g, &cl, &eager), 0);
	assert_rel(eager.layer.fwd_s - fused.layer.fwd_s, all_s, 1e-6);
	assert_rel(eager.layer.bwd_s - fused.layer.bwd_s, 2.0 * all_s, 1e-6);
	assert_rel(eager.layer.recompute_s[RECOMPUTE_FULL] -
			   fused.layer.recompute_s[RECOMPUTE_FULL],
		   all_s, 1e-6);
	assert_rel(eager.layer.recompute_s[RECOMPUTE_SELECTIVE] -
			   fused.layer.recompute_s[RECOMPUTE_SELECTIVE],
		   norm_s, 1e-6);
	/* each op alone adds its own share */
	c.eager_ops = EAGER_OP_ACT;
	assert_int_equal(train_micro_eval(&a, &c, &g, &cl, &one), 0);
	assert_rel(one.layer.fwd_s - fused.layer.fwd_s, act_s, 1e-6);
	c.eager_ops = EAGER_OP_ROPE;
	assert_int_equal(train_micro_eval(&a, &c, &g, &cl, &one), 0);
	assert_rel(one.layer.fwd_s - fused.layer.fwd_s, rope_s, 1e-6);
	c.eager_ops = EAGER_OP_KV_EXPAND;
	assert_int_equal(train_micro_eval(&a, &c, &g, &cl, &one), 0);
	assert_rel(one.layer.fwd_s - fused.layer.fwd_s, kv_s, 1e-6);
	/* the GEMMs, attention and collectives are the same */
	assert_rel(eager.layer.attn_fwd_s, fused.layer.attn_fwd_s, 1e-12);
	assert_rel(eager.layer.tp_fwd_s, fused.layer.tp_fwd_s, 1e-12);
	/* a plain FFN's activation and a model without GQA: nothing to add */
	a.gated_ffn = false;
	a.kv_heads = a.heads;
	c.eager_ops = EAGER_OP_ACT | EAGER_OP_KV_EXPAND;
	assert_int_equal(train_micro_eval(&a, &c, &g, &cl, &one), 0);
	c.eager_ops = 0;
	assert_int_equal(train_micro_eval(&a, &c, &g, &cl, &fused), 0);
	assert_rel(one.layer.fwd_s, fused.layer.fwd_s, 1e-12);
}

/* An MoE model without shared experts (Mixtral-like: 8 experts, top 2):
   no shared-expert GEMMs, the step still the sum of its parts, and the
   routed FFN cheaper per token than a dense FFN of all experts. */
static void test_moe_without_shared_experts(void **state)
{
	struct model_spec m;
	struct arch a;
	struct train_config c = cfg(2, 1, 1, 1, 4, 1, 16);
	struct train_result r, rd;
	struct arch dense;

	(void)state;
	memset(&m, 0, sizeof(m));
	m.layers = 4;
	m.hidden = 2048;
	m.heads = 16;
	m.vocab = 32000;
	m.seq_len = 2048;
	m.ffn_hidden = 5632;
	m.gated_ffn = true;
	m.tied_embeddings = true;
	m.experts = 8;
	m.experts_per_token = 2;
	assert_int_equal(arch_from_spec(&m, &a), 0);
	assert_int_equal(a.shared_experts, 0);
	c.ep = 4;
	eval_ok(&a, &c, &r);
	assert_rel(r.time.step_s, parts_sum(&r.time), 1e-12);
	m.experts = 0;
	m.experts_per_token = 0;
	m.ffn_hidden = 8 * 5632;
	assert_int_equal(arch_from_spec(&m, &dense), 0);
	c.ep = 1;
	eval_ok(&dense, &c, &rd);
	assert_true(r.time.compute_s < rd.time.compute_s);
}

/*
 * fp8 training: the linear layers' GEMMs at the fp8 rate with 1-byte
 * operands, their casts (the input's transposed copy, 1 byte per element;
 * the output gradient's cast and transpose, 4) at bf16 bandwidth, and the
 * attention, the element-wise work and the output layer in bf16: faster
 * than bf16, but well short of the 2x of the peaks.
 */
static void test_fp8_training(void **state)
{
	struct arch a = gpt_arch();
	struct gpu_spec g = a100();
	struct cluster cl = a100_cluster();
	struct train_config c = cfg(1, 1, 1, 1, 8, 2, 64);
	struct train_micro m16, m8;
	struct train_result r16, r8;

	(void)state;
	g.peak_flops[PREC_FP8] = 2.0 * g.peak_flops[PREC_BF16];
	assert_int_equal(train_micro_eval(&a, &c, &g, &cl, &m16), 0);
	assert_int_equal(train_evaluate(&a, &c, &g, &cl, &r16), 0);
	c.precision = PREC_FP8;
	assert_int_equal(train_micro_eval(&a, &c, &g, &cl, &m8), 0);
	assert_int_equal(train_evaluate(&a, &c, &g, &cl, &r8), 0);
	assert_rel(m8.layer.attn_fwd_s, m16.layer.attn_fwd_s, 1e-12);
	assert_rel(m8.out_fwd_s, m16.out_fwd_s, 1e-12);
	assert_rel(m8.act_bytes, m16.act_bytes, 0.0);
	assert_true(r8.time.step_s < r16.time.step_s);
	assert_true(r16.time.step_s / r8.time.step_s < 1.8);
	/* the casts: the fp8 layer is slower than its GEMMs at 2x alone */
	assert_true(m8.layer.fwd_s > 0.5 * m16.layer.fwd_s);
	/* exactly: the bf16 layer with its four GEMMs (h 2048, MHA, f 4h,
	   n = 2 x 2048 tokens) in fp8, plus the input's fp8 transpose
	   (1 byte per input element) forward and the output gradient's
	   cast and transpose (4 bytes per output element) backward */
	{
		static const double nk[4][2] = {
			{ 3.0 * 2048, 2048 }, { 2048, 2048 },
			{ 4.0 * 2048, 2048 }, { 2048, 4.0 * 2048 },
		};
		struct device_perf d16, d8;
		double n = 2.0 * 2048, f = m16.layer.fwd_s, b = m16.layer.bwd_s;

		assert_int_equal(device_perf_init(&d16, &g, PREC_BF16, false), 0);
		assert_int_equal(device_perf_init(&d8, &g, PREC_FP8, false), 0);
		for (int i = 0; i < 4; i++) {
			double N = nk[i][0], K = nk[i][1];

			f += kernel_gemm_s(&d8, n, N, K, 1.0) -
			     kernel_gemm_s(&d16, n, N, K, 1.0) +
			     kernel_stream_s(&d16, n * K * 1.0);
			b += kernel_gemm_s(&d8, n, K, N, 1.0) +
			     kernel_gemm_s(&d8, K, N, n, 1.0) -
			     kernel_gemm_s(&d16, n, K, N, 1.0) -
			     kernel_gemm_s(&d16, K, N, n, 1.0) +
			     kernel_stream_s(&d16, n * N * 4.0);
		}
		assert_rel(m8.layer.fwd_s, f, 1e-12);
		assert_rel(m8.layer.bwd_s, b, 1e-12);
	}
}

/* The data-parallel traffic against the reference: the reduction and the
   ZeRO weight gather overlapped or not, with and without pipelines. */
static void test_reference_dp_overlap(void **state)
{
	struct arch a = ref_arch_gqa();
	struct train_config c = cfg(2, 1, 1, 1, 16, 1, 64);

	(void)state;
	for (int z = 0; z <= 2; z++)
	for (int og = 0; og <= 1; og++)
	for (int opg = 0; opg <= 1; opg++) {
		c = cfg(2, 1, 1, 1, 16, 1, 64);
		c.zero = z;
		c.overlap_grad_reduce = og;
		c.overlap_param_gather = opg;
		check_reference(&a, &c);
		c = cfg(2, 2, 1, 1, 8, 1, 64);
		c.zero = z;
		c.overlap_grad_reduce = og;
		c.overlap_param_gather = opg;
		check_reference(&a, &c);
	}
}

/* Megatron-Core's --tp-comm-overlap: the reference model agrees, the
   exposed traffic lies between 1/tp of it and all of it, compute does
   not change, and without tensor parallelism nothing changes. */
static void test_tp_comm_overlap(void **state)
{
	struct arch a = ref_arch_gqa();
	struct train_config c = cfg(4, 2, 1, 1, 2, 1, 16);
	struct train_result on, off;

	(void)state;
	c.tp_comm_overlap = true;
	check_reference(&a, &c);
	c.recompute = RECOMPUTE_FULL;
	check_reference(&a, &c);
	eval_ok(&a, &c, &on);
	c.tp_comm_overlap = false;
	eval_ok(&a, &c, &off);
	assert_true(on.time.tp_comm_s < off.time.tp_comm_s);
	assert_true(on.time.tp_comm_s > off.time.tp_comm_s / c.tp);
	assert_rel(on.time.compute_s, off.time.compute_s, 0.0);
	assert_true(on.time.step_s < off.time.step_s);
	/* it needs sequence parallelism over tp > 1 (Megatron-LM's rule) */
	c = cfg(1, 2, 1, 1, 8, 1, 16);
	c.tp_comm_overlap = true;
	assert_false(train_config_valid(&a, &c, 8));
	c = cfg(4, 2, 1, 1, 2, 1, 16);
	c.sequence_parallel = false;
	c.tp_comm_overlap = true;
	assert_false(train_config_valid(&a, &c, 8));
	/* tp 8 on h 2048: more traffic than GEMM time to hide it behind,
	   so the hidden part is the GEMMs' (t - 1)/t */
	c = cfg(8, 1, 1, 1, 1, 1, 8);
	c.tp_comm_overlap = true;
	check_reference(&a, &c);
	{
		struct gpu_spec g = a100();
		struct cluster cl = a100_cluster();
		struct train_micro m;

		assert_int_equal(train_micro_eval(&a, &c, &g, &cl, &m), 0);
		c.tp_comm_overlap = false;
		eval_ok(&a, &c, &off);
		c.tp_comm_overlap = true;
		eval_ok(&a, &c, &on);
		assert_true(on.time.tp_comm_s > 0.2 * off.time.tp_comm_s);
	}
}

/*
 * Optimizer offload (specs/models.md 6.16) by hand: tp 2, dp 4, ZeRO-1
 * on one 8-GPU node whose host has PCIe Gen4 x16 links (32 GB/s, 0.78 of
 * it achieved) and CPUs that step 4e9 Adam parameters per second.  The
 * GPU's shard is u = P_gpu / 4 parameters; per step the fp32 gradients go
 * to the host (4 u bytes), the node's CPUs step its 8 GPUs' shards (8 u
 * parameters), the 16-bit weights come back (2 u bytes), in a pipeline of
 * one piece per layer (24), beside the GPU's norm and zeroing (8 bytes
 * per parameter) and its step of what it keeps (34).
 */
static void test_offload_step(void **state)
{
	struct arch a = gpt_arch();
	struct gpu_spec g = a100();
	struct cluster cl = a100_cluster();
	struct train_config c = cfg(2, 1, 1, 1, 4, 2, 64);
	struct train_result r0, r1, rh;
	struct train_micro mc;
	struct device_perf d;
	double u, link = 32e9 * 0.78, d2h, cpu, h2d, slow, pipe, rest;

	(void)state;
	cl.host_memory_bytes = 2e12;
	cl.host_link_bw_bytes_per_s = 32e9;
	cl.cpu_adam_params_per_s = 4e9;
	assert_int_equal(device_perf_init(&d, &g, PREC_BF16, false), 0);
	u = train_params_per_gpu(&a, &c) / 4.0;
	assert_int_equal(train_evaluate(&a, &c, &g, &cl, &r0), 0);
	assert_rel(r0.time.offload_s, 0.0, 0.0);
	assert_rel(r0.time.optimizer_s, kernel_stream_s(&d, 42.0 * u), 1e-14);

	/* all of the shard offloaded */
	c.offload_fraction = 1.0;
	assert_true(train_config_valid(&a, &c, 8));
	assert_int_equal(train_evaluate(&a, &c, &g, &cl, &r1), 0);
	d2h = 4.0 * u / link;
	cpu = 8.0 * u / 4e9;
	h2d = 2.0 * u / link;
	slow = fmax(d2h, fmax(cpu, h2d));
	pipe = (d2h + cpu + h2d) / 24.0 + (1.0 - 1.0 / 24.0) * slow;
	assert_rel(r1.time.offload_d2h_s, d2h, 1e-14);
	assert_rel(r1.time.offload_cpu_s, cpu, 1e-14);
	assert_rel(r1.time.offload_h2d_s, h2d, 1e-14);
	assert_rel(r1.time.optimizer_s, kernel_stream_s(&d, 8.0 * u), 1e-14);
	assert_rel(r1.time.offload_s, pipe, 1e-14);
	assert_rel(r1.time.step_s, parts_sum(&r1.time), 1e-12);
	/* the rest of the step is the same */
	assert_rel(r1.time.step_s - r0.time.step_s,
		   r1.time.optimizer_s + pipe - r0.time.optimizer_s, 1e-9);
	assert_rel(r1.time.compute_s, r0.time.compute_s, 0.0);
	assert_rel(r1.time.dp_comm_s, r0.time.dp_comm_s, 0.0);
	/* the states left the GPU for the node's host: 16 bytes per
	   parameter of each of its 8 GPUs' shards */
	assert_rel(r1.memory.optimizer_bytes, 0.0, 0.0);
	assert_rel(r1.memory.node_host_bytes, 8.0 * 16.0 * u, 1e-14);
	assert_rel(r1.memory.host_capacity_bytes, 2e12, 0.0);
	assert_true(r1.tokens_per_s < r0.tokens_per_s);
	assert_int_equal(train_micro_eval(&a, &c, &g, &cl, &mc), 0);
	assert_true(train_offload_never_faster(&c, &cl, &mc));

	/* half of it: the GPU steps the other half meanwhile */
	c.offload_fraction = 0.5;
	assert_int_equal(train_evaluate(&a, &c, &g, &cl, &rh), 0);
	pipe /= 2.0;
	rest = kernel_stream_s(&d, 0.5 * u * 34.0);
	assert_rel(rh.time.optimizer_s, kernel_stream_s(&d, 8.0 * u) + rest,
		   1e-14);
	assert_rel(rh.time.offload_s, fmax(0.0, pipe - rest), 1e-12);
	assert_rel(rh.memory.optimizer_bytes, 0.5 * r0.memory.optimizer_bytes,
		   1e-14);

	/* SGD moves 26 of Adam's 34 offloaded bytes on the CPUs */
	c.offload_fraction = 1.0;
	c.optimizer = OPTIMIZER_SGD;
	assert_int_equal(train_evaluate(&a, &c, &g, &cl, &r1), 0);
	assert_rel(r1.time.offload_cpu_s, cpu * 26.0 / 34.0, 1e-14);
	c.optimizer = OPTIMIZER_ADAM;

	/* a host far faster than the GPU's memory: the offload would be the
	   faster step (the search then times both) */
	cl.host_link_bw_bytes_per_s = 1e18;
	cl.cpu_adam_params_per_s = 1e18;
	assert_false(train_offload_never_faster(&c, &cl, &mc));
	assert_int_equal(train_evaluate(&a, &c, &g, &cl, &r1), 0);
	assert_true(r1.tokens_per_s > r0.tokens_per_s);
	/* a host of unknown memory holds nothing: the offloaded states do
	   not fit (the search does not offload there) */
	cl.host_memory_bytes = 0.0;
	assert_false(train_offload_never_faster(&c, &cl, &mc));
	assert_int_equal(train_evaluate(&a, &c, &g, &cl, &r1), 0);
	assert_false(r1.memory.fits);
	/* offload needs ZeRO >= 1 */
	c.zero = 0;
	assert_false(train_config_valid(&a, &c, 8));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_step_is_sum_of_parts),
		cmocka_unit_test(test_absent_parallelism_costs_nothing),
		cmocka_unit_test(test_bubble_fraction),
		cmocka_unit_test(test_interleaving_shrinks_bubble),
		cmocka_unit_test(test_more_dp_is_faster),
		cmocka_unit_test(test_recompute_order),
		cmocka_unit_test(test_efficiency_bounds),
		cmocka_unit_test(test_throughput_consistent),
		cmocka_unit_test(test_overlap_hides_dp),
		cmocka_unit_test(test_missing_precision),
		cmocka_unit_test(test_scales_with_model),
		cmocka_unit_test(test_reference_tp_pp_dp),
		cmocka_unit_test(test_reference_interleaved_unfused),
		cmocka_unit_test(test_reference_zero3),
		cmocka_unit_test(test_reference_hybrid_shard),
		cmocka_unit_test(test_mesh_node),
		cmocka_unit_test(test_reference_uneven),
		cmocka_unit_test(test_stage_choose_exhaustive),
		cmocka_unit_test(test_stage_choose_llama3),
		cmocka_unit_test(test_reference_gqa_cp),
		cmocka_unit_test(test_eager_ops),
		cmocka_unit_test(test_moe_without_shared_experts),
		cmocka_unit_test(test_tp_comm_overlap),
		cmocka_unit_test(test_reference_dp_overlap),
		cmocka_unit_test(test_fp8_training),
		cmocka_unit_test(test_offload_step),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
