/* test_serve_fleet.c - fleets of serving replicas under load: a fixed
   fleet below and above its capacity, large fleets simulated in part,
   closed-loop, burst and trace loads, the load and scheduler taken from
   [inference], errors (cmocka).  Sizing a Poisson fleet for a target is
   in test_infer_plan.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "infer_plan.h"
#include "serve_fleet.h"

/* A request of a trace: arrival, prompt and output (no block ids). */
#define REQ(a, p, o) { a, p, o, NULL, 0, 0 }

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void assert_rel(double got, double want, double tol)
{
	double scale = fabs(want) > 0.0 ? fabs(want) : 1.0;

	if (!(fabs(got - want) <= tol * scale)) {
		print_error("got %.17g, want %.17g (tol %g)\n", got, want, tol);
		fail();
	}
}

static void assert_has(const char *s, const char *want)
{
	if (!strstr(s, want)) {
		print_error("'%s' lacks '%s'\n", s, want);
		fail();
	}
}

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

/* Llama 2 7B on one GPU, 8 sequences at a time. */
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
	wl->inference.batch = 8;
}

static void plan_ok(const struct workload *wl, const struct gpu_spec *g,
		    struct infer_plan *p)
{
	struct diag err;

	diag_clear(&err);
	if (workload_validate(wl, &err) != 0) {
		print_error("workload_validate: %s\n", err.msg);
		fail();
	}
	if (infer_plan_make(wl, g, p, &err) != 0) {
		print_error("infer_plan_make: %s\n", err.msg);
		fail();
	}
}

/* The capacity of one replica of llama7b() (it does not depend on the
   load's rate). */
static double capacity(const struct gpu_spec *g)
{
	struct workload wl;
	struct infer_plan p;

	llama7b(&wl);
	wl.inference.qps = 1.0;
	wl.inference.replicas = 1;
	plan_ok(&wl, g, &p);
	assert_true(p.simulated);
	assert_true(p.fleet.capacity_qps > 1.0);
	return p.fleet.capacity_qps;
}

/* ------------------------------------------------------------------ */

/*
 * A fixed fleet (inference.replicas) under a Poisson rate: at half of
 * its capacity it serves the rate (utilization = rate / (replicas x
 * capacity), exactly); at twice its capacity it is overloaded and says
 * so; three replicas serve the same twice.
 */
static void test_fixed_fleet(void **state)
{
	struct gpu_spec g = a100();
	double cap = capacity(&g);
	struct workload wl;
	struct infer_plan p;

	(void)state;
	llama7b(&wl);
	wl.inference.replicas = 1;
	wl.inference.qps = 0.5 * cap;
	plan_ok(&wl, &g, &p);
	assert_true(p.simulated);
	assert_false(p.fleet.sized);
	assert_true(p.meets_slo);
	assert_false(p.fleet.overloaded);
	assert_int_equal(p.replicas, 1);
	assert_int_equal(p.fleet.sim_replicas, 1);
	assert_rel(p.fleet.capacity_qps, cap, 1e-12);
	assert_rel(p.utilization, 0.5, 1e-12);
	assert_rel(p.fleet.sim.request_throughput_per_s, 0.5 * cap, 0.1);
	assert_false(p.fleet.sim.overloaded);

	wl.inference.qps = 2.0 * cap;
	plan_ok(&wl, &g, &p);
	assert_true(p.simulated);
	assert_false(p.meets_slo);
	assert_true(p.fleet.overloaded);
	assert_true(p.fleet.sim.overloaded);
	assert_has(p.why, "overloaded");
	assert_has(p.why, "than 1 replica sustain");
	assert_int_equal(p.replicas, 1);
	assert_rel(p.utilization, 2.0, 1e-12);
	/* it serves what it can: about its capacity */
	assert_rel(p.fleet.sim.request_throughput_per_s, cap, 0.1);

	wl.inference.replicas = 3;
	plan_ok(&wl, &g, &p);
	assert_true(p.meets_slo);
	assert_false(p.fleet.overloaded);
	assert_int_equal(p.gpus_total, 3);
	assert_rel(p.utilization, 2.0 / 3.0, 1e-12);
	assert_rel(p.fleet.sim.request_throughput_per_s, 2.0 * cap, 0.1);
}

/*
 * Just below the capacity the queue is long but bounded: the fleet is
 * not overloaded by the formula (rate < replicas x capacity); at the
 * capacity it is, whatever the simulation says.
 */
static void test_fixed_fleet_at_capacity(void **state)
{
	struct gpu_spec g = a100();
	double cap = capacity(&g);
	struct workload wl;
	struct infer_plan p;

	(void)state;
	llama7b(&wl);
	wl.inference.replicas = 2;
	wl.inference.qps = 2.0 * cap;
	plan_ok(&wl, &g, &p);
	assert_true(p.fleet.overloaded);
	assert_false(p.meets_slo);
	assert_has(p.why, "than 2 replicas sustain");
}

/*
 * Long answers: a run capplan sizes decodes at most 16 million tokens
 * (serve_fleet.c, sim_tokens_max): 4000-token answers of a closed loop
 * of 1000 clients, which asks for ten requests each, run 16e6 / 4000 =
 * 4000 of them (at least three rounds of the clients).  Sizing
 * settles the counts the rate alone overloads without simulating them,
 * and the fleet it reports is the one it simulated last.
 */
static void test_long_answers_bounded(void **state)
{
	struct gpu_spec g = a100();
	struct workload wl;
	struct infer_plan p;

	(void)state;
	llama7b(&wl);
	wl.inference.prompt_tokens = 64;
	wl.inference.output_tokens = 4000;
	wl.inference.concurrency = 1000;
	wl.inference.replicas = 4;
	plan_ok(&wl, &g, &p);
	assert_true(p.simulated);
	assert_int_equal(p.fleet.sim.simulated_requests, 4000);

	wl.inference.concurrency = 0;
	wl.inference.qps = 2.0;
	wl.inference.replicas = WL_AUTO;
	wl.inference.tpot_slo_s = 1.0;
	plan_ok(&wl, &g, &p);
	assert_true(p.fleet.sized);
	assert_true(p.meets_slo);
	/* the smallest count the rate allows, or more, simulated */
	assert_true(2.0 < p.replicas * p.fleet.capacity_qps);
	assert_int_equal(p.fleet.sim_replicas, p.replicas);
	assert_false(p.fleet.sim.overloaded);
}

/*
 * More replicas than one simulation holds: SERVE_SIM_REPLICAS_MAX of
 * them with the rate scaled down in proportion; the throughputs are the
 * whole fleet's again.
 */
static void test_large_fleet_in_part(void **state)
{
	struct gpu_spec g = a100();
	double cap = capacity(&g);
	struct workload wl;
	struct infer_plan p;

	(void)state;
	llama7b(&wl);
	wl.inference.replicas = 2 * SERVE_SIM_REPLICAS_MAX;
	wl.inference.qps = 0.5 * wl.inference.replicas * cap;
	plan_ok(&wl, &g, &p);
	assert_true(p.meets_slo);
	assert_int_equal(p.replicas, 2 * SERVE_SIM_REPLICAS_MAX);
	assert_int_equal(p.fleet.sim_replicas, SERVE_SIM_REPLICAS_MAX);
	assert_int_equal(p.gpus_total, 2 * SERVE_SIM_REPLICAS_MAX);
	assert_rel(p.utilization, 0.5, 1e-12);
	assert_rel(p.fleet.sim.request_throughput_per_s, wl.inference.qps,
		   0.1);
	/* the default run length for the simulated part */
	assert_int_equal(p.fleet.sim.simulated_requests,
			 100 * SERVE_SIM_REPLICAS_MAX);
	/* the given run length, scaled with the rate */
	wl.inference.requests = 5000;
	plan_ok(&wl, &g, &p);
	assert_int_equal(p.fleet.sim.simulated_requests, 2500);
}

/*
 * A fleet of hundreds of replicas is sized to 1% of its count: the count
 * reported meets the target, and one within 1% below it (the last the
 * bisection tried) does not.
 */
static void test_sized_within_tolerance(void **state)
{
	struct gpu_spec g = a100();
	struct workload wl;
	struct infer_plan p;
	int n, tol, fails = 0;

	(void)state;
	llama7b(&wl);
	wl.inference.prompt_tokens = 512;
	wl.inference.output_tokens = 64;
	wl.inference.qps = 1.0;
	wl.inference.replicas = 1;
	plan_ok(&wl, &g, &p);
	wl.inference.replicas = WL_AUTO;
	wl.inference.qps = 300.0 * p.fleet.capacity_qps;
	wl.inference.ttft_slo_s = 1.0;
	plan_ok(&wl, &g, &p);
	assert_true(p.meets_slo);
	n = p.replicas;
	tol = (int)(0.01 * n);
	assert_true(n > 300 && tol >= 3);
	wl.inference.replicas = n;
	plan_ok(&wl, &g, &p);
	assert_true(p.meets_slo);
	for (int k = 1; k <= tol; k++) {
		wl.inference.replicas = n - k;
		plan_ok(&wl, &g, &p);
		fails += !p.meets_slo;
	}
	assert_true(fails > 0);
}

/*
 * The floor of a sizing: when the tail of the prompts' prefill alone
 * misses the TTFT target, more replicas only approach it; once a fleet
 * simulated in part misses and doubling gains little, the sizing asks
 * the floor (each request alone) and stops, saying so.  The floor is no
 * higher than the tail of any fleet: a fixed fleet of many replicas
 * shows a p99 at least the floor's.
 */
static void test_floor(void **state)
{
	struct gpu_spec g = a100();
	struct workload wl;
	struct infer_plan p;
	double cap, floor_ms, ttft_mean;

	(void)state;
	llama7b(&wl);
	wl.inference.prompt_tokens = 1200;
	wl.inference.output_tokens = 100;
	wl.inference.length_dist = SIM_LEN_SHAREGPT;
	wl.inference.qps = 1.0;
	wl.inference.replicas = 1;
	plan_ok(&wl, &g, &p);
	cap = p.fleet.capacity_qps;
	ttft_mean = p.result.ttft_s;
	/* above the mean prompt's prefill, below the tail's */
	wl.inference.ttft_slo_s = 1.5 * ttft_mean;
	wl.inference.replicas = WL_AUTO;
	wl.inference.qps = 40.0 * cap;
	plan_ok(&wl, &g, &p);
	assert_false(p.meets_slo);
	assert_has(p.why, "with each request alone on a replica, the p99 "
			  "time to first token is ");
	assert_true(sscanf(strstr(p.why, "token is ") + 9, "%lf", &floor_ms) ==
		    1);
	assert_true(floor_ms > 1e3 * wl.inference.ttft_slo_s * 1.02);
	/* the tail of a fleet of 4096 replicas is no lower (the message
	   gives the floor to three digits) */
	wl.inference.replicas = 4096;
	plan_ok(&wl, &g, &p);
	assert_false(p.meets_slo);
	assert_true(1e3 * p.fleet.sim.ttft_p99_s >= floor_ms * (1.0 - 5e-3));
}

/*
 * Learnt edges (struct fleet_share): a sizing of a fleet simulated in
 * part keeps where it met the targets and where it missed them as rates
 * per replica; a sizing at the same rate that starts from them answers
 * the same count, one at another rate answers a count between the two
 * edges' counts and keeps its own edge; a given run length (scaled by
 * the fleet, not the rate per replica) learns nothing.
 */
static void test_share_edges(void **state)
{
	struct gpu_spec g = a100();
	struct workload wl;
	struct infer_plan *p = malloc(3 * sizeof(*p));
	struct fleet_share e[INFER_TP_SLOTS];
	double r;
	int n;

	(void)state;
	assert_non_null(p);
	llama7b(&wl);
	wl.inference.prompt_tokens = 512;
	wl.inference.output_tokens = 64;
	wl.inference.qps = 1.0;
	wl.inference.replicas = 1;
	plan_ok(&wl, &g, &p[0]);
	wl.inference.replicas = WL_AUTO;
	wl.inference.ttft_slo_s = 1.0;
	wl.inference.qps = r = 60.0 * p[0].fleet.capacity_qps;
	plan_ok(&wl, &g, &p[0]);
	assert_true(p[0].meets_slo);
	n = p[0].replicas;
	assert_true(n > SERVE_SIM_REPLICAS_MAX);
	memcpy(e, p[0].share_by_tp, sizeof(e));
	assert_rel(e[0].pass_qps, r / n, 1e-12);
	assert_true(e[0].fail_qps > e[0].pass_qps);
	assert_true(r / e[0].fail_qps >= n - 1 - 0.01 * n);
	/* the same rate from its own edge: the same count */
	wl.inference.share_by_tp = e;
	plan_ok(&wl, &g, &p[1]);
	assert_true(p[1].meets_slo);
	assert_int_equal(p[1].replicas, n);
	/* half as much again: between the edges' counts at that rate, and
	   the edge moves to the new count */
	wl.inference.qps = 1.5 * r;
	plan_ok(&wl, &g, &p[2]);
	assert_true(p[2].meets_slo);
	assert_true(p[2].replicas > (int)floor(1.5 * r / e[0].fail_qps));
	assert_true(p[2].replicas <= (int)ceil(1.5 * r / e[0].pass_qps));
	assert_rel(p[2].share_by_tp[0].pass_qps,
		   1.5 * r / p[2].replicas, 1e-12);
	/* a given run length: nothing learnt, nothing taken */
	wl.inference.share_by_tp = NULL;
	wl.inference.requests = 2000;
	plan_ok(&wl, &g, &p[0]);
	assert_true(p[0].share_by_tp[0].pass_qps == 0.0);
	assert_true(p[0].share_by_tp[0].fail_qps == 0.0);
	free(p);
}

/*
 * A closed loop: C clients keep C requests in the fleet (throughput x
 * mean e2e = C), queued beyond the replicas' batches.  Sized, one replica
 * is enough without targets; a fixed fleet of 3 holds 24 clients in its
 * 3 x 8 slots without a wait.
 */
static void test_closed_loop(void **state)
{
	struct gpu_spec g = a100();
	struct workload wl;
	struct infer_plan p;

	(void)state;
	llama7b(&wl);
	wl.inference.concurrency = 24;
	plan_ok(&wl, &g, &p);
	assert_true(p.simulated);
	assert_true(p.fleet.sized);
	assert_true(p.meets_slo);
	assert_int_equal(p.fleet.load.arrival, SIM_ARRIVAL_CLOSED);
	assert_int_equal(p.replicas, 1);
	assert_rel(p.fleet.sim.request_throughput_per_s *
			   p.fleet.sim.e2e_mean_s,
		   24.0, 0.02);
	assert_true(p.fleet.sim.queue_wait_mean_s > 0.0);
	assert_false(p.fleet.sim.overloaded);
	assert_rel(p.utilization, p.fleet.sim.busy_fraction, 0.0);
	/* a closed loop of 24 keeps one replica's 8 slots full */
	assert_rel(p.fleet.sim.mean_batch, 8.0, 0.01);
	assert_rel(p.fleet.sim.request_throughput_per_s, p.fleet.capacity_qps,
		   0.05);

	/* on 3 replicas no one waits for a slot, without a front end that
	   makes requests arrive in the middle of a step */
	wl.inference.replicas = 3;
	wl.inference.host_request_s = 0.0;
	plan_ok(&wl, &g, &p);
	assert_false(p.fleet.sized);
	assert_int_equal(p.replicas, 3);
	assert_rel(p.fleet.sim.queue_wait_p99_s, 0.0, 0.0);
	assert_rel(p.fleet.sim.request_throughput_per_s *
			   p.fleet.sim.e2e_mean_s,
		   24.0, 0.02);
}

/*
 * Sizing a closed loop for a TTFT target: 64 clients queue on one
 * replica (TTFT p90 of seconds); the fewest replicas that bring it under
 * 0.5 s meet it, and one fewer does not.
 */
static void test_closed_loop_sized(void **state)
{
	struct gpu_spec g = a100();
	struct workload wl, w1;
	struct infer_plan p, q;

	(void)state;
	llama7b(&wl);
	wl.inference.concurrency = 64;
	wl.inference.ttft_slo_s = 0.5;
	wl.inference.percentile = SLO_P90;
	plan_ok(&wl, &g, &p);
	assert_true(p.fleet.sized);
	assert_true(p.meets_slo);
	assert_true(p.replicas > 1);
	assert_true(serve_ttft_at(&p.fleet.sim, SLO_P90) <= 0.5);
	w1 = wl;
	w1.inference.replicas = p.replicas - 1;
	plan_ok(&w1, &g, &q);
	assert_false(q.meets_slo);
	assert_true(serve_ttft_at(&q.fleet.sim, SLO_P90) > 0.5);
	assert_has(q.why, "time to first token");
	assert_has(q.why, "over the 500 ms target");
}

/*
 * A fixed fleet that keeps up but misses a TPOT target says which: 8
 * clients on one replica of 8 slots, a target just under the p99 TPOT
 * they get.
 */
static void test_fixed_fleet_misses_tpot(void **state)
{
	struct gpu_spec g = a100();
	struct workload wl;
	struct infer_plan p;
	double tpot;

	(void)state;
	llama7b(&wl);
	wl.inference.concurrency = 8;
	wl.inference.replicas = 1;
	plan_ok(&wl, &g, &p);
	assert_true(p.meets_slo);
	tpot = serve_tpot_at(&p.fleet.sim, SLO_P99);
	wl.inference.tpot_slo_s = 0.999 * tpot;
	plan_ok(&wl, &g, &p);
	/* the unloaded estimate is within it: the simulation decides */
	assert_true(p.result.tpot_s <= wl.inference.tpot_slo_s);
	assert_true(p.simulated);
	assert_false(p.meets_slo);
	assert_false(p.fleet.overloaded);
	assert_has(p.why, "the p99 time per output token is");
	assert_has(p.why, "under the load, over the");
	wl.inference.tpot_slo_s = 1.001 * tpot;
	plan_ok(&wl, &g, &p);
	assert_true(p.meets_slo);
}

/*
 * The unloaded TTFT (the front end and the prefill) is what a request
 * alone on a replica gets in the simulation, whose prompt step is the
 * same prefill with the same fixed costs: a closed loop of 4 clients with
 * a TTFT target just above it is met with one replica per client, and no
 * more.  With host time per scheduling round, which the unloaded TTFT
 * leaves out and every simulated step pays, no number of replicas meets
 * the same target: sizing gives up, saying so with the last miss.
 */
static void test_closed_loop_unreachable(void **state)
{
	struct gpu_spec g = a100();
	struct workload wl;
	struct infer_plan p;
	double ttft;

	(void)state;
	llama7b(&wl);
	wl.inference.concurrency = 4;
	plan_ok(&wl, &g, &p);
	ttft = p.result.ttft_s;
	assert_true(ttft > wl.inference.host_request_s &&
		    wl.inference.host_request_s > 0.0);
	wl.inference.ttft_slo_s = 1.0001 * ttft;
	plan_ok(&wl, &g, &p);
	assert_true(p.simulated && p.fleet.sized && p.meets_slo);
	assert_int_equal(p.replicas, 4);
	assert_rel(p.fleet.sim.ttft_p99_s, ttft, 1e-9);
	wl.inference.host_step_s = 1e-3;
	plan_ok(&wl, &g, &p);
	assert_rel(p.result.ttft_s, ttft, 1e-15);
	assert_true(p.simulated);
	assert_true(p.fleet.sized);
	assert_false(p.meets_slo);
	assert_true(p.replicas >= 4);
	assert_true(serve_ttft_at(&p.fleet.sim, SLO_P99) >
		    wl.inference.ttft_slo_s);
	assert_has(p.why, "no number of replicas meets the targets (at ");
	assert_has(p.why, "time to first token");
}

/* A burst: every request at t = 0, all measured. */
static void test_burst(void **state)
{
	struct gpu_spec g = a100();
	struct workload wl;
	struct infer_plan p;

	(void)state;
	llama7b(&wl);
	wl.inference.arrival = SIM_ARRIVAL_BURST;
	wl.inference.requests = 300;
	wl.inference.replicas = 2;
	plan_ok(&wl, &g, &p);
	assert_true(p.simulated);
	assert_true(p.meets_slo);
	assert_int_equal(p.fleet.sim.simulated_requests, 300);
	assert_int_equal(p.fleet.sim.measured_requests, 300);
	assert_rel(p.fleet.sim.request_throughput_per_s *
			   p.fleet.sim.duration_s,
		   300.0, 1e-12);
	/* 2 x 8 start at once, the rest queue */
	assert_true(p.fleet.sim.queue_wait_mean_s > 0.0);
	assert_true(p.fleet.sim.ttft_p99_s > p.fleet.sim.ttft_p50_s);
	assert_rel(p.utilization, p.fleet.sim.busy_fraction, 0.0);
	/* sized, without targets: one replica */
	wl.inference.replicas = WL_AUTO;
	plan_ok(&wl, &g, &p);
	assert_true(p.fleet.sized);
	assert_int_equal(p.replicas, 1);
	assert_int_equal(p.fleet.sim.simulated_requests, 300);
}

/* A deterministic trace of n requests, 20 ms apart on average. */
static void make_trace(struct sim_request *t, size_t n)
{
	unsigned long x = 4242;
	double at = 0.0;

	for (size_t i = 0; i < n; i++) {
		x = (1103515245UL * x + 12345UL) % 2147483648UL;
		at += 0.02 * (double)(x % 1000) / 500.0;
		t[i].arrival_s = at;
		t[i].prompt_tokens = 16 + (int)(x / 1000 % 900);
		t[i].output_tokens = 4 + (int)(x / 900000 % 300);
	}
}

/* A trace: the requests as they are; the capacity from their lengths. */
static void test_trace(void **state)
{
	static struct sim_request t[200];
	struct gpu_spec g = a100();
	struct workload wl;
	struct infer_plan p;
	double in = 0.0;

	(void)state;
	make_trace(t, N(t));
	for (size_t i = 0; i < N(t); i++)
		in += t[i].prompt_tokens;
	llama7b(&wl);
	wl.inference.arrival = SIM_ARRIVAL_TRACE;
	strcpy(wl.inference.trace, "t.csv");
	wl.inference.trace_requests = t;
	wl.inference.trace_len = N(t);
	wl.inference.replicas = 2;
	plan_ok(&wl, &g, &p);
	assert_true(p.simulated);
	assert_true(p.meets_slo);
	assert_int_equal(p.fleet.load.arrival, SIM_ARRIVAL_TRACE);
	assert_int_equal(p.fleet.sim.simulated_requests, 200);
	assert_int_equal(p.fleet.sim.measured_requests, 200);
	assert_true(p.fleet.capacity_qps > 0.0);
	assert_rel(p.fleet.sim.input_tokens_per_s * p.fleet.sim.duration_s,
		   in, 1e-9);
	/* a trace is never scaled: more replicas than a simulation holds
	   are simulated whole */
	wl.inference.replicas = SERVE_SIM_REPLICAS_MAX + 8;
	plan_ok(&wl, &g, &p);
	assert_int_equal(p.fleet.sim_replicas, SERVE_SIM_REPLICAS_MAX + 8);
	assert_rel(p.fleet.sim.input_tokens_per_s * p.fleet.sim.duration_s,
		   in, 1e-9);
	/* up to a bound */
	wl.inference.replicas = 5000;
	plan_ok(&wl, &g, &p);
	assert_false(p.simulated);
	assert_false(p.meets_slo);
	assert_has(p.why, "a trace is simulated on at most 4096 replicas, "
			  "not 5000");
}

/* A trace named in the workload but not read (no requests): an error
   the plan reports. */
static void test_trace_not_read(void **state)
{
	struct gpu_spec g = a100();
	struct workload wl;
	struct infer_plan p;

	(void)state;
	llama7b(&wl);
	wl.inference.arrival = SIM_ARRIVAL_TRACE;
	strcpy(wl.inference.trace, "t.csv");
	plan_ok(&wl, &g, &p);
	assert_false(p.simulated);
	assert_false(p.meets_slo);
	assert_has(p.why, "'inference.arrival' is trace but no "
			  "'inference.trace' file was read");
}

/* Multi-token prediction drafts with the model's MTP modules: a draft
   token costs mtp_layers / layers of a step (specs/models.md 10.9.24)
   unless draft_cost_ratio is given; a separate draft model keeps the
   default ratio. */
static void test_init_mtp(void **state)
{
	struct gpu_spec g = a100();
	struct workload wl;
	struct infer_plan p;
	struct serve_fleet f;
	struct diag err;

	(void)state;
	llama7b(&wl);
	wl.inference.qps = 1.0;
	wl.inference.replicas = 1;
	wl.inference.speculative_tokens = 2;
	wl.inference.acceptance_rate = 0.8;
	plan_ok(&wl, &g, &p);
	diag_clear(&err);
	assert_int_equal(serve_fleet_init(&wl, &p.arch, &p.config, &g, &f,
					  &err), 0);
	assert_rel(f.engine.draft_cost_ratio, WL_DRAFT_COST_RATIO, 0.0);
	wl.model.mtp_layers = 2;
	wl.inference.speculative_method = WL_SPEC_MTP;
	assert_int_equal(serve_fleet_init(&wl, &p.arch, &p.config, &g, &f,
					  &err), 0);
	assert_rel(f.engine.draft_cost_ratio, 2.0 / p.arch.layers, 1e-15);
	assert_int_equal(f.engine.speculative_tokens, 2);
	assert_rel(f.engine.acceptance_rate, 0.8, 0.0);
}

/* [inference] to the simulator's scheduler and load. */
static void test_init(void **state)
{
	struct gpu_spec g = a100();
	struct workload wl;
	struct infer_plan p;
	struct serve_fleet f;
	struct diag err;

	(void)state;
	llama7b(&wl);
	wl.inference.qps = 3.7;
	wl.inference.replicas = 1;
	plan_ok(&wl, &g, &p);
	diag_clear(&err);
	/* the defaults: vLLM's (chunked prefill, 2048 tokens a step),
	   max_batch from the plan's batch */
	assert_int_equal(serve_fleet_init(&wl, &p.arch, &p.config, &g, &f,
					  &err), 0);
	assert_int_equal(f.engine.max_batch, 8);
	assert_true(f.engine.chunked_prefill);
	assert_int_equal(f.engine.max_batched_tokens,
			 SERVE_CHUNK_TOKENS_DEFAULT);
	assert_int_equal(f.engine.kv_block_tokens, 16);
	assert_int_equal(f.engine.scheduler_steps, 1);
	assert_true(f.engine.kv_blocks >= 1.0);
	assert_true(f.engine.kv_blocks == floor(f.engine.kv_blocks));
	assert_int_equal(f.load.arrival, SIM_ARRIVAL_POISSON);
	assert_rel(f.load.rate_per_s, 3.7, 0.0);
	assert_int_equal(f.load.max_context_tokens, 4096);
	assert_rel(f.load.prompt_tokens_mean, 512, 0.0);
	assert_rel(f.load.output_tokens_mean, 256, 0.0);
	assert_int_equal(f.replicas, 1);
	/* given; whole prompts in steps of up to 8192 tokens */
	wl.inference.chunked_prefill = false;
	wl.inference.max_batch = 12;
	wl.inference.scheduler_steps = 4;
	wl.inference.kv_block_tokens = 32;
	assert_int_equal(serve_fleet_init(&wl, &p.arch, &p.config, &g, &f,
					  &err), 0);
	assert_int_equal(f.engine.max_batch, 12);
	assert_false(f.engine.chunked_prefill);
	assert_int_equal(f.engine.max_batched_tokens,
			 SERVE_PREFILL_TOKENS_DEFAULT);
	assert_int_equal(f.engine.kv_block_tokens, 32);
	assert_int_equal(f.engine.scheduler_steps, 4);
	wl.inference.max_batched_tokens = 512;
	assert_int_equal(serve_fleet_init(&wl, &p.arch, &p.config, &g, &f,
					  &err), 0);
	assert_int_equal(f.engine.max_batched_tokens, 512);
	assert_false(diag_has_error(&err));
	/* no room for the KV cache: the weights (13.5 GB) fill the GPU */
	g.mem_bytes = 14e9;
	assert_int_equal(serve_fleet_init(&wl, &p.arch, &p.config, &g, &f,
					  &err), -1);
	assert_has(err.msg, "no memory is left for the KV cache on A100-test "
			    "at tp 1");
}

static void test_arrival(void **state)
{
	struct workload wl;
	struct inference_spec *is = &wl.inference;
	static const struct sim_request one = REQ(0.0, 1, 1);

	(void)state;
	workload_init(&wl);
	assert_int_equal(serve_arrival(is), -1);
	assert_false(serve_has_load(is));
	is->qps = 2.0;
	assert_int_equal(serve_arrival(is), SIM_ARRIVAL_POISSON);
	assert_true(serve_has_load(is));
	is->qps = 0.0;
	is->concurrency = 3;
	assert_int_equal(serve_arrival(is), SIM_ARRIVAL_CLOSED);
	is->concurrency = 0;
	strcpy(is->trace, "t.csv");
	assert_int_equal(serve_arrival(is), SIM_ARRIVAL_TRACE);
	is->trace[0] = '\0';
	is->trace_requests = &one;
	is->trace_len = 1;
	assert_int_equal(serve_arrival(is), SIM_ARRIVAL_TRACE);
	is->arrival = SIM_ARRIVAL_BURST;
	assert_int_equal(serve_arrival(is), SIM_ARRIVAL_BURST);
	assert_true(serve_has_load(is));
}

static void test_percentiles(void **state)
{
	struct sim_result r;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.ttft_p50_s = 1.5;
	r.ttft_p90_s = 2.5;
	r.ttft_p99_s = 3.5;
	r.tpot_p50_s = 0.015;
	r.tpot_p90_s = 0.025;
	r.tpot_p99_s = 0.035;
	assert_rel(serve_ttft_at(&r, SLO_P50), 1.5, 0.0);
	assert_rel(serve_ttft_at(&r, SLO_P90), 2.5, 0.0);
	assert_rel(serve_ttft_at(&r, SLO_P99), 3.5, 0.0);
	assert_rel(serve_tpot_at(&r, SLO_P50), 0.015, 0.0);
	assert_rel(serve_tpot_at(&r, SLO_P90), 0.025, 0.0);
	assert_rel(serve_tpot_at(&r, SLO_P99), 0.035, 0.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixed_fleet),
		cmocka_unit_test(test_fixed_fleet_at_capacity),
		cmocka_unit_test(test_large_fleet_in_part),
		cmocka_unit_test(test_sized_within_tolerance),
		cmocka_unit_test(test_floor),
		cmocka_unit_test(test_share_edges),
		cmocka_unit_test(test_long_answers_bounded),
		cmocka_unit_test(test_closed_loop),
		cmocka_unit_test(test_closed_loop_sized),
		cmocka_unit_test(test_fixed_fleet_misses_tpot),
		cmocka_unit_test(test_closed_loop_unreachable),
		cmocka_unit_test(test_burst),
		cmocka_unit_test(test_trace),
		cmocka_unit_test(test_trace_not_read),
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_init_mtp),
		cmocka_unit_test(test_arrival),
		cmocka_unit_test(test_percentiles),
	};

	gsl_set_error_handler_off();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
