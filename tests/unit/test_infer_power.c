/* test_infer_power.c - the largest load a facility's power budget serves
   (infer_power.h; specs/models.md 10.9.21): the replicas the budget
   provisions, a rate they serve within the targets, tokens per MW, and
   the budgets that serve nothing (cmocka). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "infer_power.h"

/* A100-SXM-80GB-like, built by hand (as in test_infer_plan.c). */
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

/* Llama 2 7B at 1 request/s, tp 1, TTFT p99 within a second. */
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
	wl->inference.tp = 1;
	wl->inference.qps = 1.0;
	wl->inference.prompt_tokens = 512;
	wl->inference.output_tokens = 128;
	wl->inference.ttft_slo_s = 1.0;
	wl->inference.requests = 600;
}

/*
 * 20 kW: a replica is one GPU at its 400 W TDP with its host share
 * (0.35) and the PUE (1.2), 648 W, so 30 replicas; the rate found is
 * served within the target, is below 30 replicas' capacity, and the
 * tokens per MW are its output tokens over 0.02 MW.
 */
static void test_budget(void **state)
{
	struct gpu_spec g = a100();
	struct workload wl;
	struct infer_power_fit f;
	struct diag err;

	(void)state;
	llama7b(&wl);
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
static void test_too_small_and_not_poisson(void **state)
{
	struct gpu_spec g = a100();
	struct workload wl;
	struct infer_power_fit f;
	struct diag err;

	(void)state;
	llama7b(&wl);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_budget),
		cmocka_unit_test(test_too_small_and_not_poisson),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
