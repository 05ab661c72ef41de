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
	       t->bubble_s + t->dp_comm_s + t->optimizer_s;
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

/* 1F1B: (p - 1) / v micro-batch slots of bubble, m slots of work
   (Narayanan et al. 2021, section 2.2). */
static void test_bubble_fraction(void **state)
{
	static const struct {
		int pp, vp, dp, gb;
	} cases[] = {
		{ 4, 1, 2, 64 }, { 4, 2, 2, 64 }, { 4, 3, 2, 40 },
		{ 3, 1, 2, 38 }, { 8, 1, 1, 48 }, { 2, 4, 4, 24 },
	};
	struct arch a = gpt_arch();

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct train_config c = cfg(1, cases[i].pp, cases[i].vp, 1,
					    cases[i].dp, 1, cases[i].gb);
		struct train_result r;
		double work;

		eval_ok(&a, &c, &r);
		work = r.time.step_s - r.time.bubble_s - r.time.dp_comm_s -
		       r.time.optimizer_s;
		assert_rel(r.time.bubble_s / work,
			   (c.pp - 1.0) / c.vp / c.micro_batches, 1e-12);
	}
}

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
	/* about 1/v of it; the extra sends of the chunks cost a little */
	assert_true(r2.time.bubble_s / r1.time.bubble_s >= 0.5);
	assert_true(r2.time.bubble_s / r1.time.bubble_s < 0.55);
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
	/* ZeRO-1 shards the optimizer step */
	c.zero = 1;
	eval_ok(&a, &c, &on);
	assert_true(on.time.optimizer_s < off.time.optimizer_s);
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
