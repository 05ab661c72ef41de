/* test_infer_plan.c - serving plans: tp and batch, SLOs, replicas for a
   rate, cost, the largest load within a power budget, suggestions
   (cmocka). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "infer_plan.h"
#include "infer_power.h"
#include "model_queue.h"

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
	g.tdp_w = 400.0;
	g.idle_w = 60.0;
	g.gpus_per_node = 8;
	g.intra_bw_bytes_per_s = 300e9;
	g.inter_bw_bytes_per_s = 25e9;
	g.price_usd_per_hour = 1.79;
	g.matmul_eff = 0.85;
	g.mem_eff = 0.9;
	return g;
}

/* H100-SXM-like. */
static struct gpu_spec h100(void)
{
	struct gpu_spec g = a100();

	strcpy(g.name, "H100-test");
	g.mem_bw_bytes_per_s = 3.35e12;
	g.peak_flops[PREC_FP32] = 67e12;
	g.peak_flops[PREC_TF32] = 494.5e12;
	g.peak_flops[PREC_BF16] = 989.5e12;
	g.peak_flops[PREC_FP16] = 989.5e12;
	g.peak_flops[PREC_FP8] = 1979e12;
	g.peak_flops[PREC_INT8] = 1979e12;
	g.tdp_w = 700.0;
	g.idle_w = 70.0;
	g.intra_bw_bytes_per_s = 450e9;
	g.inter_bw_bytes_per_s = 50e9;
	g.price_usd_per_hour = 2.99;
	g.matmul_eff = 0.75;
	return g;
}

/* L4-like: 24 GB at 300 GB/s, PCIe between GPUs. */
static struct gpu_spec l4(void)
{
	struct gpu_spec g = a100();

	strcpy(g.name, "L4-test");
	g.mem_bytes = 24e9;
	g.mem_bw_bytes_per_s = 300e9;
	g.peak_flops[PREC_FP32] = 30.3e12;
	g.peak_flops[PREC_TF32] = 60e12;
	g.peak_flops[PREC_BF16] = 121e12;
	g.peak_flops[PREC_FP16] = 121e12;
	g.peak_flops[PREC_FP8] = 242.5e12;
	g.peak_flops[PREC_INT8] = 242.5e12;
	g.tdp_w = 72.0;
	g.idle_w = 16.0;
	g.intra_bw_bytes_per_s = 32e9;
	g.inter_bw_bytes_per_s = 3.125e9;
	g.price_usd_per_hour = 0.80;
	g.matmul_eff = 0.70;
	g.mem_eff = 0.80;
	return g;
}

/* Llama 2 7B: 32 layers, h 4096, 32 heads, SwiGLU 11008, vocab 32000. */
static void llama7b(struct workload *wl)
{
	workload_init(wl);
	strcpy(wl->file, "serve.ini");
	strcpy(wl->model.name, "llama-2-7b");
	wl->model.layers = 32;
	wl->model.hidden = 4096;
	wl->model.heads = 32;
	wl->model.ffn_hidden = 11008;
	wl->model.gated_ffn = true;
	wl->model.vocab = 32000;
	wl->model.seq_len = 4096;
	wl->model.tied_embeddings = false;
}

static void plan_ok(const struct workload *wl, const struct gpu_spec *g,
		    struct infer_plan *p)
{
	struct diag err;

	diag_clear(&err);
	assert_int_equal(workload_validate(wl, &err), 0);
	if (infer_plan_make(wl, g, p, &err) != 0) {
		print_error("%s\n", err.msg);
		fail();
	}
}

/* The plan's configuration evaluated again at another batch. */
static struct infer_result at_batch(const struct infer_plan *p, int batch)
{
	struct infer_config c = p->config;
	struct infer_result r;

	c.batch = batch;
	assert_int_equal(infer_evaluate(&p->arch, &c, p->gpu, &p->cluster, &r),
			 0);
	return r;
}

/* ------------------------------------------------------------------ */

static void test_slo_fraction(void **state)
{
	(void)state;
	assert_rel(slo_fraction(SLO_P50), 0.50, 0.0);
	assert_rel(slo_fraction(SLO_P90), 0.90, 0.0);
	assert_rel(slo_fraction(SLO_P99), 0.99, 0.0);
	/* out of range: the strictest */
	assert_rel(slo_fraction((enum slo_percentile)7), 0.99, 0.0);
}

static void test_auto_plan(void **state)
{
	struct workload wl;
	struct gpu_spec g = a100();
	struct infer_plan p;

	(void)state;
	llama7b(&wl);
	plan_ok(&wl, &g, &p);
	assert_int_equal(p.chosen, (1u << ICHOSE_TP) | (1u << ICHOSE_BATCH));
	assert_ptr_equal(p.gpu, &g);
	assert_true(p.fits);
	assert_true(p.meets_slo);
	assert_false(p.has_rate);
	assert_string_equal(p.why, "");
	/* the workload's serving parameters */
	assert_int_equal(p.config.prompt_tokens, 512);
	assert_int_equal(p.config.output_tokens, 256);
	assert_int_equal(p.config.weight_precision, PREC_BF16);
	/* the largest batch that fits, at most vLLM's 256 */
	assert_int_equal(p.max_batch,
			 infer_max_batch_memory(&p.arch, &p.config, &g,
						INFER_BATCH_LIMIT));
	assert_int_equal(p.max_batch_slo, INFER_BATCH_LIMIT);
	assert_int_equal(p.config.batch, p.max_batch < INFER_BATCH_DEFAULT_MAX ?
						 p.max_batch :
						 INFER_BATCH_DEFAULT_MAX);
	assert_true(p.result.memory.fits);
	/* without a rate: one replica, cost at full load */
	assert_int_equal(p.replicas, 1);
	assert_int_equal(p.gpus_total, p.config.tp);
	assert_rel(p.utilization, 0.0, 0.0);
	assert_rel(p.ttft_p_s, p.result.ttft_s, 0.0);
	assert_rel(p.cost_usd_per_million_tokens,
		   p.config.tp * 1.79 /
			   (p.result.throughput_tokens_per_s * 3600.0) * 1e6,
		   1e-12);
	/* cluster defaults: from the device and workload_init */
	assert_int_equal(p.cluster.gpus_per_node, 8);
	assert_rel(p.cluster.price_usd_per_gpu_hour, 1.79, 0.0);
	assert_rel(p.cluster.pue, 1.2, 0.0);
}

static void test_auto_tp_is_cheapest(void **state)
{
	struct workload wl;
	struct gpu_spec g = a100();
	struct infer_plan p, q;

	(void)state;
	llama7b(&wl);
	plan_ok(&wl, &g, &p);
	/* no fixed tp that fits gives cheaper tokens */
	for (int tp = 1; tp <= 8; tp *= 2) {
		wl.inference.tp = tp;
		plan_ok(&wl, &g, &q);
		assert_int_equal(q.config.tp, tp);
		assert_int_equal(q.chosen, 1u << ICHOSE_BATCH);
		if (q.fits && q.meets_slo)
			assert_true(p.cost_usd_per_million_tokens <=
				    q.cost_usd_per_million_tokens);
		if (tp == p.config.tp)
			assert_rel(q.cost_usd_per_million_tokens,
				   p.cost_usd_per_million_tokens, 0.0);
	}
}

static void test_fixed_tp_and_batch(void **state)
{
	struct workload wl;
	struct gpu_spec g = a100();
	struct infer_plan p;
	struct infer_result r;

	(void)state;
	llama7b(&wl);
	wl.inference.tp = 4;
	wl.inference.batch = 37;
	wl.inference.prompt_tokens = 1237;
	wl.inference.output_tokens = 311;
	plan_ok(&wl, &g, &p);
	assert_int_equal(p.chosen, 0);
	assert_int_equal(p.config.tp, 4);
	assert_int_equal(p.config.batch, 37);
	assert_int_equal(p.gpus_total, 4);
	r = at_batch(&p, 37);
	assert_rel(p.result.tpot_s, r.tpot_s, 0.0);
	assert_rel(p.result.ttft_s, r.ttft_s, 0.0);
	assert_rel(p.result.memory.total_bytes, r.memory.total_bytes, 0.0);
}

/* An engine whose KV cache holds a set number of tokens (llama.cpp's
   n_ctx): the batch is what it holds; a sequence longer than it, or a
   given batch it cannot hold, is no plan, with the key named; under a
   load the simulation's cache is no larger. */
static void test_kv_cache_tokens(void **state)
{
	struct workload wl;
	struct gpu_spec g = a100();
	struct infer_plan p;

	(void)state;
	llama7b(&wl);
	wl.inference.tp = 1;
	wl.inference.prompt_tokens = 1000;
	wl.inference.output_tokens = 200;
	plan_ok(&wl, &g, &p);
	assert_true(p.max_batch > 20); /* memory alone holds many */
	wl.inference.kv_cache_tokens = 8192;
	plan_ok(&wl, &g, &p);
	assert_int_equal(p.max_batch, 6); /* 8192 / 1200 */
	assert_int_equal(p.config.batch, 6);
	assert_true(p.meets_slo);

	wl.inference.batch = 7;
	plan_ok(&wl, &g, &p);
	assert_false(p.meets_slo);
	assert_non_null(strstr(p.why, "holds 6 sequences of 1200 tokens"));

	wl.inference.batch = WL_AUTO;
	wl.inference.kv_cache_tokens = 1000;
	plan_ok(&wl, &g, &p);
	assert_false(p.meets_slo);
	assert_non_null(strstr(p.why, "inference.kv_cache_tokens"));

	/* under a load: 2048 tokens hold one sequence of 1200 at a time */
	wl.inference.kv_cache_tokens = 2048;
	wl.inference.qps = 0.5;
	wl.inference.replicas = 1;
	plan_ok(&wl, &g, &p);
	assert_true(p.simulated);
	assert_true(p.fleet.engine.kv_blocks * p.fleet.engine.kv_block_tokens <=
		    2048.0);
	assert_true(p.fleet.sim.mean_batch <= 1.0 + 1e-9);
}

/* vLLM V1's limits by device reach the plan and its simulation: an
   A100 runs 256 sequences and steps of 2048 tokens, an H100 1024 and
   8192 (engine_limits.c). */
static void test_device_defaults_plan(void **state)
{
	struct workload wl;
	struct gpu_spec a = a100(), h = h100();
	struct infer_plan p;

	(void)state;
	llama7b(&wl);
	strcpy(a.name, "A100-SXM-80GB");
	a.mem_bytes = 85.9e9;
	h.mem_bytes = 85.5e9;
	wl.inference.device_defaults = WL_DEVDEF_VLLM_V1;
	wl.inference.tp = 1;
	wl.inference.prompt_tokens = 100;
	wl.inference.output_tokens = 20;
	wl.inference.qps = 5;
	wl.inference.replicas = 1;
	plan_ok(&wl, &a, &p);
	assert_int_equal(p.fleet.engine.max_batch, 256);
	assert_int_equal(p.fleet.engine.max_batched_tokens, 2048);
	assert_true(p.config.batch <= 256);
	plan_ok(&wl, &h, &p);
	assert_int_equal(p.fleet.engine.max_batch, 1024);
	assert_int_equal(p.fleet.engine.max_batched_tokens, 8192);
	assert_int_equal(p.config.step_tokens, 8192);
}

static void test_fixed_tp_not_power_of_two(void **state)
{
	/* 24 heads (and 24 KV heads), tp = 3: outside the power-of-two
	   search, planned as given */
	struct workload wl;
	struct gpu_spec g = a100();
	struct infer_plan p;

	(void)state;
	llama7b(&wl);
	wl.model.hidden = 3072;
	wl.model.heads = 24;
	wl.model.ffn_hidden = 8192;
	wl.inference.tp = 3;
	plan_ok(&wl, &g, &p);
	assert_int_equal(p.config.tp, 3);
	assert_int_equal(p.gpus_total, 3);
	assert_true(p.fits);
}

static void test_tpot_slo_sets_batch(void **state)
{
	struct workload wl;
	struct gpu_spec g = a100();
	struct infer_plan p;
	struct infer_result r;
	int b;

	(void)state;
	llama7b(&wl);
	wl.inference.tp = 1;
	wl.inference.tpot_slo_s = 0.0217;
	plan_ok(&wl, &g, &p);
	b = p.config.batch;
	assert_int_equal(p.chosen, 1u << ICHOSE_BATCH);
	assert_true(p.meets_slo);
	assert_int_equal(p.max_batch_slo, b);
	/* the SLO, not memory, limits it */
	assert_true(b > 1);
	assert_true(b < p.max_batch);
	assert_int_equal(p.max_batch,
			 infer_max_batch_memory(&p.arch, &p.config, &g,
						INFER_BATCH_LIMIT));
	assert_true(p.result.tpot_s <= 0.0217);
	r = at_batch(&p, b + 1);
	assert_true(r.tpot_s > 0.0217);
	/* a looser SLO allows a larger batch */
	wl.inference.tpot_slo_s = 0.0317;
	plan_ok(&wl, &g, &p);
	assert_true(p.config.batch > b);
	assert_true(p.result.tpot_s <= 0.0317);
	r = at_batch(&p, p.config.batch + 1);
	assert_true(r.tpot_s > 0.0317 || p.config.batch == p.max_batch ||
		    p.config.batch == INFER_BATCH_DEFAULT_MAX);
}

/*
 * A given batch whose full-batch TPOT misses the target: without a load
 * the plan is that full batch, so it fails; under a light load the
 * running batch stays small and the simulation judges (it meets it); a
 * target that even one sequence misses fails at once, with or without a
 * load, and says so at batch 1.
 */
static void test_given_batch_under_load(void **state)
{
	struct workload wl;
	struct gpu_spec g = a100();
	struct infer_plan p;
	double one;

	(void)state;
	llama7b(&wl);
	wl.inference.tp = 1;
	wl.inference.batch = 1;
	wl.inference.prompt_tokens = 512;
	wl.inference.output_tokens = 64;
	plan_ok(&wl, &g, &p);
	one = p.result.tpot_s;
	wl.inference.batch = 128;
	wl.inference.tpot_slo_s = 1.5 * one;
	plan_ok(&wl, &g, &p);
	assert_true(p.result.tpot_s > wl.inference.tpot_slo_s);
	assert_false(p.meets_slo);
	assert_non_null(strstr(p.why, "at batch 128"));
	wl.inference.qps = 0.5;
	wl.inference.replicas = 2;
	wl.inference.requests = 400;
	plan_ok(&wl, &g, &p);
	assert_true(p.simulated);
	assert_int_equal(p.replicas, 2);
	assert_true(p.meets_slo);
	assert_true(p.fleet.sim.tpot_p99_s <= wl.inference.tpot_slo_s);
	/* one sequence alone over the target */
	wl.inference.tpot_slo_s = 0.9 * one;
	plan_ok(&wl, &g, &p);
	assert_false(p.simulated);
	assert_false(p.meets_slo);
	assert_non_null(strstr(p.why, "at batch 1,"));
	/* the fleet reported is the one given, not simulated */
	assert_int_equal(p.replicas, 2);
	assert_int_equal(p.gpus_total, 2);
}

static void test_tpot_slo_auto_tp(void **state)
{
	/* with tp open, every tp is tried; the chosen batch still meets
	   the SLO and the next one does not */
	struct workload wl;
	struct gpu_spec g = a100();
	struct infer_plan p;

	(void)state;
	llama7b(&wl);
	wl.inference.tpot_slo_s = 0.0137;
	plan_ok(&wl, &g, &p);
	assert_true(p.meets_slo);
	assert_true(p.result.tpot_s <= 0.0137);
	assert_true(p.config.batch < p.max_batch);
	assert_true(at_batch(&p, p.config.batch + 1).tpot_s > 0.0137);
}

/*
 * Check sized replicas against the simulation: the fleet meets the TTFT
 * target at the percentile, the same fleet with one replica fewer (fixed
 * with inference.replicas) does not, and the totals follow from the
 * simulated fleet.
 */
static void check_replicas(const struct workload *wl,
			   const struct gpu_spec *g, const struct infer_plan *p,
			   double qps, double slo)
{
	enum slo_percentile pc = wl->inference.percentile;
	int n = p->replicas;

	assert_true(p->simulated);
	assert_true(p->fleet.sized);
	assert_true(n >= 1);
	if (slo > 0.0)
		assert_true(serve_ttft_at(&p->fleet.sim, pc) <= slo);
	assert_rel(p->ttft_p_s, serve_ttft_at(&p->fleet.sim, pc), 1e-12);
	assert_int_equal(p->gpus_total, n * p->config.tp);
	assert_rel(p->utilization, qps / (n * p->fleet.capacity_qps), 1e-12);
	assert_true(p->utilization > 0.0 && p->utilization < 1.0);
	/* a fleet that keeps up delivers the offered tokens */
	assert_false(p->fleet.overloaded);
	assert_rel(p->cost_usd_per_million_tokens,
		   p->gpus_total * p->cluster.price_usd_per_gpu_hour /
			   (qps * p->config.output_tokens * 3600.0) * 1e6,
		   1e-12);
	/* the fleet serves the rate: throughput near it */
	assert_rel(p->fleet.sim.request_throughput_per_s, qps, 0.1);
	if (n > 1) {
		struct workload w1 = *wl;
		struct infer_plan q;

		w1.inference.replicas = n - 1;
		w1.inference.tp = p->config.tp;
		w1.inference.batch = p->config.batch;
		plan_ok(&w1, g, &q);
		assert_false(q.fleet.sized);
		assert_int_equal(q.replicas, n - 1);
		assert_false(q.meets_slo);
	}
}

static void test_replicas_for_ttft_slo(void **state)
{
	struct workload wl;
	struct gpu_spec g = a100();
	struct infer_plan p;

	(void)state;
	llama7b(&wl);
	wl.inference.tp = 1;
	wl.inference.batch = 8;
	wl.inference.qps = 51.37;
	wl.inference.ttft_slo_s = 0.35;
	wl.inference.percentile = SLO_P99;
	plan_ok(&wl, &g, &p);
	assert_true(p.has_rate);
	assert_true(p.fits);
	assert_true(p.meets_slo);
	check_replicas(&wl, &g, &p, 51.37, 0.35);
	assert_true(p.replicas > 1);
	/* a looser percentile needs no more replicas */
	{
		struct infer_plan q;

		wl.inference.percentile = SLO_P50;
		plan_ok(&wl, &g, &q);
		assert_true(q.replicas <= p.replicas);
		check_replicas(&wl, &g, &q, 51.37, 0.35);
	}
}

static void test_replicas_auto(void **state)
{
	struct workload wl;
	struct gpu_spec g = a100();
	struct infer_plan p;

	(void)state;
	llama7b(&wl);
	wl.inference.qps = 23.9;
	wl.inference.ttft_slo_s = 0.5;
	wl.inference.percentile = SLO_P90;
	plan_ok(&wl, &g, &p);
	assert_true(p.meets_slo);
	check_replicas(&wl, &g, &p, 23.9, 0.5);
}

/* What a progress hook heard (progress_hook.h). */
struct heard {
	int calls;
	size_t last_done, total;
	bool in_order;     /* done rose by one each call, below the total */
	int measuring, sizing, planning; /* calls of each phase */
};

static void hear(void *ctx, size_t done, size_t total, const char *phase)
{
	struct heard *h = ctx;

	if (h->calls == 0)
		h->total = total;
	if (total != h->total || done >= total ||
	    (h->calls > 0 && done != h->last_done + 1) ||
	    (h->calls == 0 && done != 0))
		h->in_order = false;
	h->last_done = done;
	h->calls++;
	if (phase && strcmp(phase, "measuring capacity") == 0)
		h->measuring++;
	else if (phase && strcmp(phase, "sizing replicas") == 0)
		h->sizing++;
	else if (phase && strcmp(phase, "planning") == 0)
		h->planning++;
}

/* The same plan with and without a hook: what the tables print. */
static void assert_same_plan(const struct infer_plan *a,
			     const struct infer_plan *b)
{
	assert_int_equal(a->config.tp, b->config.tp);
	assert_int_equal(a->config.batch, b->config.batch);
	assert_int_equal(a->replicas, b->replicas);
	assert_int_equal(a->gpus_total, b->gpus_total);
	assert_int_equal(a->meets_slo, b->meets_slo);
	assert_int_equal(a->simulated, b->simulated);
	assert_true(a->ttft_p_s == b->ttft_p_s);
	assert_true(a->utilization == b->utilization);
	assert_true(a->cost_usd_per_million_tokens ==
		    b->cost_usd_per_million_tokens);
	assert_true(a->result.tpot_s == b->result.tpot_s);
	assert_string_equal(a->why, b->why);
}

/*
 * A bound on the GPUs (issue 43).  At 0 the plan is pruned with the fewest
 * GPUs that keep up with the rate and its replica's capacity measured; at
 * the GPUs of the plan sized without a bound, the same plan; one GPU
 * fewer, which the rate alone allows but the TTFT target does not, the
 * sizing stops at the bound and the plan is pruned.
 */
static void test_plan_within_bound(void **state)
{
	struct workload wl;
	struct gpu_spec g = a100();
	struct infer_plan free_p, p;
	struct diag err;
	int least;

	(void)state;
	llama7b(&wl);
	wl.inference.qps = 23.9;
	wl.inference.tp = 1;
	wl.inference.ttft_slo_s = 0.12;
	wl.inference.percentile = SLO_P99;
	plan_ok(&wl, &g, &free_p);
	assert_true(free_p.meets_slo);
	diag_clear(&err);
	assert_int_equal(infer_plan_make_within(&wl, &g, NULL, 0, &p, &err),
			 0);
	assert_true(p.pruned);
	assert_false(p.simulated);
	assert_rel(p.fleet.capacity_qps, free_p.fleet.capacity_qps, 0.0);
	least = p.gpus_total;
	assert_int_equal(least, (int)ceil(23.9 / free_p.fleet.capacity_qps));
	/* the target needs more than the rate: the bound below is sized */
	assert_true(least < free_p.gpus_total);
	assert_int_equal(infer_plan_make_within(&wl, &g, NULL,
						free_p.gpus_total, &p, &err),
			 0);
	assert_false(p.pruned);
	assert_same_plan(&free_p, &p);
	assert_int_equal(infer_plan_make_within(&wl, &g, NULL,
						free_p.gpus_total - 1, &p,
						&err),
			 0);
	assert_true(p.pruned);
	assert_false(p.meets_slo);
	assert_true(p.fleet.over_limit);
}

static void test_progress_hook(void **state)
{
	struct workload wl;
	struct gpu_spec g = a100();
	struct infer_plan p, q;
	struct heard h = { 0, 0, 0, true, 0, 0, 0 };
	struct progress_hook hook = { hear, &h };
	struct diag err;

	(void)state;
	/* a rate with tp left open: each of tp 1, 2, 4 and 8 measured, then
	   sized (or skipped once it cannot need fewer GPUs) */
	llama7b(&wl);
	wl.inference.qps = 23.9;
	wl.inference.ttft_slo_s = 0.5;
	wl.inference.percentile = SLO_P90;
	plan_ok(&wl, &g, &p);
	diag_clear(&err);
	assert_int_equal(infer_plan_make_progress(&wl, &g, &hook, &q, &err), 0);
	assert_same_plan(&p, &q);
	assert_int_equal(h.calls, 8);
	assert_int_equal(h.total, 8);
	assert_true(h.in_order);
	assert_int_equal(h.measuring, 4);
	assert_int_equal(h.sizing, 4);

	/* no rate: each tp planned once */
	memset(&h, 0, sizeof(h));
	h.in_order = true;
	wl.inference.qps = 0.0;
	plan_ok(&wl, &g, &p);
	assert_int_equal(infer_plan_make_progress(&wl, &g, &hook, &q, &err), 0);
	assert_same_plan(&p, &q);
	assert_int_equal(h.calls, 4);
	assert_true(h.in_order);
	assert_int_equal(h.planning, 4);

	/* a hook without a function, and none, are not called */
	hook.fn = NULL;
	assert_int_equal(infer_plan_make_progress(&wl, &g, &hook, &q, &err), 0);
	assert_int_equal(infer_plan_make_progress(&wl, &g, NULL, &q, &err), 0);
	assert_same_plan(&p, &q);
}

static void test_replicas_without_ttft_slo(void **state)
{
	/* only stability: the fewest replicas that keep up with the rate */
	struct workload wl;
	struct gpu_spec g = a100();
	struct infer_plan p;

	(void)state;
	llama7b(&wl);
	wl.inference.tp = 1;
	wl.inference.qps = 37.3;
	plan_ok(&wl, &g, &p);
	assert_true(p.meets_slo);
	assert_true(p.replicas * p.fleet.capacity_qps > 37.3);
	check_replicas(&wl, &g, &p, 37.3, 0.0);
}

/*
 * A rate far beyond any cluster (10^15 requests per second) needs more
 * replicas than the search considers (2^24): the plan must not report a
 * negative or overflowed replica count as meeting the SLO.
 */
static void test_replicas_huge_rate(void **state)
{
	struct workload wl;
	struct gpu_spec g = a100();
	struct infer_plan p;

	(void)state;
	llama7b(&wl);
	wl.inference.qps = 1e9; /* the largest rate a workload accepts */
	plan_ok(&wl, &g, &p);
	if (p.meets_slo) {
		assert_true(p.replicas >= 1);
		assert_true(p.replicas <= 1 << 24);
		assert_true(p.gpus_total >= p.replicas);
		assert_true(p.utilization > 0.0 && p.utilization <= 1.0);
	} else {
		assert_true(p.why[0] != '\0');
	}
}

/*
 * A disaggregated fleet sized by capplan: both pools meet the targets
 * (TTFT 0.4 s, TPOT 30 ms at p99, Poisson at 20 requests/s); one prefill
 * replica fewer misses the TTFT target or overloads, and one decode
 * replica fewer misses TPOT or overloads.  The GPUs are both pools', the
 * decode pool at tp 2.
 */
static void test_disaggregated_sized(void **state)
{
	struct workload wl, w1;
	struct gpu_spec g = a100();
	struct infer_plan p, q;

	(void)state;
	llama7b(&wl);
	wl.inference.tp = 1;
	wl.inference.qps = 20.0;
	wl.inference.prompt_tokens = 1500;
	wl.inference.output_tokens = 200;
	wl.inference.ttft_slo_s = 0.4;
	wl.inference.tpot_slo_s = 0.03;
	wl.inference.percentile = SLO_P99;
	wl.inference.disaggregated = true;
	wl.inference.decode_tp = 2;
	plan_ok(&wl, &g, &p);
	assert_true(p.simulated && p.fleet.disagg && p.fleet.sized);
	assert_true(p.meets_slo);
	assert_int_equal(p.prefill_tp, 1);
	assert_int_equal(p.decode_tp, 2);
	assert_int_equal(p.replicas,
			 p.fleet.prefill_replicas + p.fleet.decode_replicas);
	assert_int_equal(p.gpus_total, p.fleet.prefill_replicas * 1 +
					       p.fleet.decode_replicas * 2);
	assert_true(p.fleet.sim.ttft_p99_s <= 0.4);
	assert_true(p.fleet.sim.tpot_p99_s <= 0.03);
	assert_true(p.fleet.sim.kv_transfer_mean_s > 0.0);
	assert_true(p.fleet.prefill_capacity_qps > 0.0 &&
		    p.fleet.decode_capacity_qps > 0.0);
	assert_rel(p.fleet.sim.request_throughput_per_s, 20.0, 0.1);
	w1 = wl;
	w1.inference.prefill_replicas = p.fleet.prefill_replicas;
	w1.inference.decode_replicas = p.fleet.decode_replicas;
	plan_ok(&w1, &g, &q);
	assert_false(q.fleet.sized);
	assert_true(q.meets_slo);
	if (p.fleet.prefill_replicas > 1) {
		w1.inference.prefill_replicas = p.fleet.prefill_replicas - 1;
		plan_ok(&w1, &g, &q);
		assert_false(q.meets_slo);
	}
	if (p.fleet.decode_replicas > 1) {
		w1.inference.prefill_replicas = p.fleet.prefill_replicas;
		w1.inference.decode_replicas = p.fleet.decode_replicas - 1;
		plan_ok(&w1, &g, &q);
		assert_false(q.meets_slo);
	}
}

/*
 * Speculative decoding under load: three drafts at acceptance 0.8 give
 * 1 + 0.8 + 0.64 + 0.512 = 2.95 tokens a decode step (the measured mean
 * within 2%), and at a light load the simulated TPOT falls well below
 * the plain fleet's (each step costs 1 + 3 x 0.05 of a plain one, plus
 * the verified drafts' compute).
 */
static void test_speculative_plan(void **state)
{
	struct workload wl;
	struct gpu_spec g = a100();
	struct infer_plan plain, spec;

	(void)state;
	llama7b(&wl);
	wl.inference.tp = 1;
	wl.inference.qps = 2.0;
	wl.inference.replicas = 1;
	plan_ok(&wl, &g, &plain);
	wl.inference.speculative_tokens = 3;
	wl.inference.acceptance_rate = 0.8;
	plan_ok(&wl, &g, &spec);
	assert_rel(plain.fleet.sim.tokens_per_decode_step, 1.0, 0.0);
	assert_rel(spec.fleet.sim.tokens_per_decode_step, 2.952, 0.02);
	assert_true(spec.fleet.sim.tpot_mean_s <
		    0.6 * plain.fleet.sim.tpot_mean_s);
	assert_rel(spec.fleet.sim.request_throughput_per_s, 2.0, 0.1);
}

static void test_unreachable_tpot_slo(void **state)
{
	struct workload wl;
	struct gpu_spec g = a100();
	struct infer_plan p;

	(void)state;
	llama7b(&wl);
	wl.inference.tpot_slo_s = 1e-4;
	plan_ok(&wl, &g, &p);
	assert_true(p.fits);
	assert_false(p.meets_slo);
	assert_int_equal(p.max_batch_slo, 0);
	assert_int_equal(p.config.batch, 1);
	assert_true(p.result.tpot_s > 1e-4);
	assert_non_null(strstr(p.why, "time per output token"));
	assert_non_null(strstr(p.why, "0.1 ms SLO"));
	/* the nearest miss: the fastest tp (the largest) */
	assert_int_equal(p.config.tp, 8);
}

static void test_ttft_slo_below_prefill(void **state)
{
	struct workload wl;
	struct gpu_spec g = a100();
	struct infer_plan p;

	(void)state;
	llama7b(&wl);
	wl.inference.tp = 1;
	wl.inference.ttft_slo_s = 2e-3;
	wl.inference.qps = 3.7;
	plan_ok(&wl, &g, &p);
	assert_true(p.fits);
	assert_false(p.meets_slo);
	assert_true(p.result.ttft_s > 2e-3);
	assert_non_null(strstr(p.why, "prefill"));
	assert_non_null(strstr(p.why, "TTFT"));
	/* no replicas computed for an infeasible plan */
	assert_int_equal(p.replicas, 1);
}

static void test_model_too_large(void **state)
{
	/* ~400B parameters in bf16: 800 GB over at most 8 x 80 GB */
	struct workload wl;
	struct gpu_spec g = a100();
	struct infer_plan p;

	(void)state;
	llama7b(&wl);
	wl.model.layers = 126;
	wl.model.hidden = 16384;
	wl.model.heads = 128;
	wl.model.kv_heads = 8;
	wl.model.ffn_hidden = 53248;
	wl.model.vocab = 128256;
	plan_ok(&wl, &g, &p);
	assert_false(p.fits);
	assert_false(p.result.memory.fits);
	assert_false(p.meets_slo);
	assert_int_equal(p.max_batch, 0);
	assert_non_null(strstr(p.why, "GB per GPU of 80 GB"));
	/* fixed tp = 1: the same */
	wl.inference.tp = 1;
	plan_ok(&wl, &g, &p);
	assert_false(p.fits);
	assert_int_equal(p.config.tp, 1);
}

static void test_params_only_model(void **state)
{
	struct workload wl;
	struct gpu_spec g = a100();
	struct infer_plan p;
	struct diag err;

	(void)state;
	workload_init(&wl);
	strcpy(wl.file, "params.ini");
	wl.model.params = 7e9;
	diag_clear(&err);
	assert_int_equal(infer_plan_make(&wl, &g, &p, &err), -1);
	assert_non_null(strstr(err.msg, "architecture"));
	assert_string_equal(err.file, "params.ini");
	/* without a diag it still fails */
	assert_int_equal(infer_plan_make(&wl, &g, &p, NULL), -1);
}

static void test_device_without_math(void **state)
{
	struct workload wl;
	struct gpu_spec g = a100();
	struct infer_plan p;
	struct diag err;

	(void)state;
	strcpy(g.name, "NoMath-test");
	for (int i = 0; i < PREC_COUNT; i++)
		g.peak_flops[i] = 0.0;
	llama7b(&wl);
	diag_clear(&err);
	assert_int_equal(infer_plan_make(&wl, &g, &p, &err), -1);
	assert_non_null(strstr(err.msg, "no tensor-parallel size"));
	assert_non_null(strstr(err.msg, "NoMath-test"));
	/* a fixed tp too */
	wl.inference.tp = 2;
	diag_clear(&err);
	assert_int_equal(infer_plan_make(&wl, &g, &p, &err), -1);
	assert_non_null(strstr(err.msg, "no tensor-parallel size"));
}

/* ------------------------------------------------------------------ */
/* Suggestions */

static void test_suggest_other_device(void **state)
{
	/* a 5.5 ms TPOT: beyond an L4 at any tp and precision, within an
	   A100 or H100 at tp 8 */
	struct workload wl;
	struct gpu_spec small = l4(), mid = a100(), big = h100(), tiny = l4();
	const struct gpu_spec *all[4];
	struct infer_plan p;
	char buf[512];

	(void)state;
	strcpy(tiny.name, "L4-half-test");
	tiny.mem_bw_bytes_per_s = 150e9;
	all[0] = &tiny;
	all[1] = &small;
	all[2] = &mid;
	all[3] = &big;
	llama7b(&wl);
	wl.inference.tpot_slo_s = 5.5e-3;
	plan_ok(&wl, &small, &p);
	assert_false(p.meets_slo);
	assert_int_equal(infer_plan_suggest(&wl, &small, all, 4, buf,
					    sizeof(buf)),
			 0);
	assert_non_null(strstr(buf, "another device: A100-test, H100-test"));
	assert_null(strstr(buf, "L4"));
	/* the suggested devices do meet it */
	plan_ok(&wl, &mid, &p);
	assert_true(p.fits && p.meets_slo);
}

static void test_suggest_larger_tp(void **state)
{
	struct workload wl;
	struct gpu_spec g = a100();
	const struct gpu_spec *all[1] = { &g };
	struct infer_plan p;
	char buf[256];

	(void)state;
	llama7b(&wl);
	wl.inference.tp = 1;
	wl.inference.tpot_slo_s = 5.5e-3;
	plan_ok(&wl, &g, &p);
	assert_false(p.meets_slo);
	assert_int_equal(infer_plan_suggest(&wl, &g, all, 1, buf, sizeof(buf)),
			 0);
	assert_non_null(strstr(buf, "inference.tp="));
	/* the device itself is not suggested */
	assert_null(strstr(buf, "another device"));
}

/*
 * The cost of input and output tokens (specs/models.md 10.9.20): one
 * replica at full batch splits its service time into batch x prefill_s
 * of prefill and the rest, so the two costs times their token rates add
 * up to the replica's price; under a load the simulation's split and
 * token rates do the same for the fleet, and the blended cost is
 * unchanged.
 */
static void test_phase_costs(void **state)
{
	struct workload wl;
	struct gpu_spec g = a100();
	struct infer_plan p;
	double f, in, out, usd_per_s;

	(void)state;
	llama7b(&wl);
	wl.inference.tp = 1;
	wl.inference.batch = 16;
	wl.inference.prompt_tokens = 1024;
	wl.inference.output_tokens = 128;
	plan_ok(&wl, &g, &p);
	assert_false(p.simulated);
	/* 16 prompts of 1024 packed two to a step of vLLM's 2048-token
	   budget (chunked prefill, the generic stack) */
	assert_int_equal(p.config.step_tokens, 2048);
	assert_true(p.result.prefill_batch_s < 16 * p.result.prefill_s);
	f = p.result.prefill_batch_s / p.result.service_s;
	assert_rel(p.prefill_time_fraction, f, 1e-12);
	in = 16 * 1024.0 / p.result.service_s;
	out = p.result.throughput_tokens_per_s;
	usd_per_s = g.price_usd_per_hour / 3600.0;
	assert_rel(p.cost_usd_per_million_input_tokens,
		   usd_per_s * f / in * 1e6, 1e-12);
	assert_rel(p.cost_usd_per_million_output_tokens,
		   usd_per_s * (1.0 - f) / out * 1e6, 1e-12);
	assert_true(f > 0.0 && f < 1.0);

	wl.inference.qps = 2.0;
	wl.inference.replicas = 2;
	plan_ok(&wl, &g, &p);
	assert_true(p.simulated);
	f = p.fleet.sim.prefill_time_fraction;
	assert_true(f > 0.0 && f < 1.0);
	assert_rel(p.prefill_time_fraction, f, 1e-12);
	/* both costs times their rates: the fleet's GPU time */
	assert_rel(p.cost_usd_per_million_input_tokens *
				   p.fleet.sim.input_tokens_per_s +
			   p.cost_usd_per_million_output_tokens *
				   p.fleet.sim.output_tokens_per_s,
		   2.0 * usd_per_s * 1e6, 1e-9);
}

/* llama7b() at 1 request/s, tp 1, TTFT p99 within a second, 600
   requests: the load of the power-budget tests. */
static void llama7b_rate(struct workload *wl)
{
	llama7b(wl);
	wl->inference.tp = 1;
	wl->inference.qps = 1.0;
	wl->inference.prompt_tokens = 512;
	wl->inference.output_tokens = 128;
	wl->inference.ttft_slo_s = 1.0;
	wl->inference.requests = 600;
}

/*
 * The largest load within a power budget (infer_power.h; specs/models.md
 * 10.9.21).  20 kW: a replica is one GPU at its 400 W TDP with its host share
 * (0.35) and the PUE (1.2), 648 W, so 30 replicas; the rate found is
 * served within the target, is below 30 replicas' capacity, and the
 * tokens per MW are its output tokens over 0.02 MW.
 */
static void test_power_budget(void **state)
{
	struct gpu_spec g = a100();
	struct workload wl;
	struct infer_power_fit f;
	struct diag err;

	(void)state;
	llama7b_rate(&wl);
	diag_clear(&err);
	assert_int_equal(infer_plan_power_fit(&wl, &g, 20e3, NULL, &f, &err),
			 0);
	assert_true(fabs(f.replica_w - 400.0 * 1.35 * 1.2) < 1e-9);
	assert_int_equal(f.replicas, 30);
	assert_true(f.feasible);
	assert_true(f.plan.meets_slo);
	assert_int_equal(f.plan.replicas, 30);
	assert_true(f.rate_per_s > 1.0);
	assert_true(f.rate_per_s < 30 * f.plan.fleet.capacity_qps);
	assert_true(fabs(f.output_tokens_per_s - f.rate_per_s * 128) < 1e-9);
	assert_true(fabs(f.output_tokens_per_s_per_mw -
			 f.output_tokens_per_s / 0.02) < 1e-6);
	assert_true(f.tokens_per_mwh > 0.0);
}

/* A budget under one replica's power serves nothing, and says so; a
   closed loop is not a rate to raise. */
static void test_power_budget_too_small(void **state)
{
	struct gpu_spec g = a100();
	struct workload wl;
	struct infer_power_fit f;
	struct diag err;

	(void)state;
	llama7b_rate(&wl);
	diag_clear(&err);
	assert_int_equal(infer_plan_power_fit(&wl, &g, 600.0, NULL, &f, &err),
			 0);
	assert_false(f.feasible);
	assert_int_equal(f.replicas, 0);
	assert_non_null(strstr(f.why, "over the 0.6 kW budget"));
	wl.inference.qps = 0.0;
	wl.inference.concurrency = 8;
	assert_int_equal(infer_plan_power_fit(&wl, &g, 1e6, NULL, &f, &err),
			 -1);
	assert_non_null(strstr(err.msg, "Poisson load"));
}

static void test_suggest_nothing(void **state)
{
	struct workload wl;
	struct gpu_spec small = l4(), big = h100();
	const struct gpu_spec *all[2] = { &small, &big };
	char buf[256];

	(void)state;
	llama7b(&wl);
	wl.inference.tpot_slo_s = 1e-5;
	assert_int_equal(infer_plan_suggest(&wl, &small, all, 2, buf,
					    sizeof(buf)),
			 -1);
	assert_non_null(strstr(buf, "no larger tp, lower precision or other "
				    "device meets it"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slo_fraction),
		cmocka_unit_test(test_auto_plan),
		cmocka_unit_test(test_phase_costs),
		cmocka_unit_test(test_power_budget),
		cmocka_unit_test(test_power_budget_too_small),
		cmocka_unit_test(test_auto_tp_is_cheapest),
		cmocka_unit_test(test_fixed_tp_and_batch),
		cmocka_unit_test(test_kv_cache_tokens),
		cmocka_unit_test(test_device_defaults_plan),
		cmocka_unit_test(test_fixed_tp_not_power_of_two),
		cmocka_unit_test(test_tpot_slo_sets_batch),
		cmocka_unit_test(test_tpot_slo_auto_tp),
		cmocka_unit_test(test_given_batch_under_load),
		cmocka_unit_test(test_replicas_for_ttft_slo),
		cmocka_unit_test(test_replicas_auto),
		cmocka_unit_test(test_replicas_without_ttft_slo),
		cmocka_unit_test(test_progress_hook),
		cmocka_unit_test(test_disaggregated_sized),
		cmocka_unit_test(test_speculative_plan),
		cmocka_unit_test(test_unreachable_tpot_slo),
		cmocka_unit_test(test_ttft_slo_below_prefill),
		cmocka_unit_test(test_model_too_large),
		cmocka_unit_test(test_params_only_model),
		cmocka_unit_test(test_device_without_math),
		cmocka_unit_test(test_suggest_other_device),
		cmocka_unit_test(test_suggest_larger_tp),
		cmocka_unit_test(test_suggest_nothing),
		cmocka_unit_test(test_plan_within_bound),
		/* last: it overflows an int in src/plan/infer_plan.c, which the
		   undefined-behaviour sanitizer stops at */
		cmocka_unit_test(test_replicas_huge_rate),
	};

	gsl_set_error_handler_off();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
