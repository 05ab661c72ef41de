/* test_fleet_mix.c - mixed serving fleets: the buckets, the integer
   program on hand-solved instances, routing in proportion to slices,
   and the whole plan on a bimodal length mix (cheaper than the cheapest
   single-device fleet, its simulation meeting the targets) and on one
   length (one device); within a power budget, the largest load (at
   least the best single device's on the bimodal mix) (cmocka). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "fleet_mix.h"
#include "infer_plan.h"
#include "infer_power.h"
#include "mix_plan.h"
#include "mix_power.h"
#include "model_energy.h"

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

static void test_buckets(void **state)
{
	struct sim_request q[] = {
		{ .arrival_s = 0.0, .prompt_tokens = 1, .output_tokens = 127 },
		{ .arrival_s = 0.1, .prompt_tokens = 127, .output_tokens = 1 },
		{ .arrival_s = 0.2, .prompt_tokens = 128, .output_tokens = 1 },
		{ .arrival_s = 0.3, .prompt_tokens = 5000,
		  .output_tokens = 300 },
		{ .arrival_s = 0.4, .prompt_tokens = 7001,
		  .output_tokens = 200 },
		{ .arrival_s = 0.5, .prompt_tokens = 40000,
		  .output_tokens = 40000 },
	};
	struct mix_bucket b[MIX_BUCKETS];
	int dense[N(q)], nb, plo, phi, olo, ohi;

	(void)state;
	assert_int_equal(mix_bucket_of(1, 1), 0);
	assert_int_equal(mix_bucket_of(127, 127), 0);
	assert_int_equal(mix_bucket_of(128, 1), MIX_LENGTH_RANGES);
	assert_int_equal(mix_bucket_of(1, 128), 1);
	assert_int_equal(mix_bucket_of(1 << 30, 1 << 30), MIX_BUCKETS - 1);
	mix_bucket_range(MIX_LENGTH_RANGES + 2, &plo, &phi, &olo, &ohi);
	assert_int_equal(plo, 128);
	assert_int_equal(phi, 512);
	assert_int_equal(olo, 512);
	assert_int_equal(ohi, 2048);
	mix_bucket_range(MIX_BUCKETS - 1, &plo, &phi, &olo, &ohi);
	assert_int_equal(plo, 32768);
	assert_int_equal(phi, 0);
	assert_int_equal(ohi, 0);

	nb = mix_buckets_make(q, N(q), 2.5, b, dense);
	/* [1,128)x[1,128) holds two; [128,512)x[1,128); [2048,8192) x
	   [128,512) two; the unbounded corner one */
	assert_int_equal(nb, 4);
	assert_int_equal(b[0].count, 2);
	assert_rel(b[0].rate_per_s, 2.5 * 2.0 / 6.0, 1e-15);
	assert_rel(b[0].prompt_mean, 64.0, 1e-15);
	assert_int_equal(b[0].tokens_max, 128);
	assert_int_equal(b[2].count, 2);
	assert_rel(b[2].prompt_mean, 6000.5, 1e-15);
	assert_rel(b[2].output_mean, 250.0, 1e-15);
	assert_int_equal(b[2].tokens_max, 7201);
	assert_int_equal(b[3].id, MIX_BUCKETS - 1);
	assert_int_equal(dense[0], 0);
	assert_int_equal(dense[1], 0);
	assert_int_equal(dense[2], 1);
	assert_int_equal(dense[4], 2);
	assert_int_equal(dense[5], 3);
	assert_int_equal(mix_buckets_make(q, 0, 1.0, b, NULL), 0);
}

/*
 * Two buckets, two devices, solved by hand.  Bucket 0 (chat) at 30
 * requests/s, bucket 1 (documents) at 7.7 requests/s; a cheap device C
 * ($1.1/h) serves 12.5 chat or 1.3 documents per second, a dear one D
 * ($3.3/h) 25 chat or 10 documents.  Alone: C needs 30/12.5 + 7.7/1.3 =
 * 8.32 -> 9 replicas ($9.90/h); D 30/25 + 7.7/10 = 1.97 -> 2 ($6.60/h).
 * Mixed with 4 slices: chat on C needs 2.4 -> 3 ($3.30), documents on D
 * 0.77 -> 1 ($3.30): $6.60/h, a tie with D alone, so the program may
 * take either; with chat 3 slices on C (1.8) and 1 on D (0.3): C 2
 * ($2.20) and D 0.3 + 0.77 = 1.07 -> 2 ($6.60): worse.  Raise the chat
 * rate to 35: D alone 1.4 + 0.77 = 2.17 -> 3 ($9.90); chat on C 2.8 -> 3
 * ($3.30) + documents on D 1 ($3.30) = $6.60, the optimum.
 */
static void test_solve_by_hand(void **state)
{
	double rate[] = { 35.0, 7.7 };
	double price[] = { 1.1, 3.3 };
	double cap[] = { 12.5, 1.3, /* C */ 25.0, 10.0 /* D */ };
	int replicas[2], slices[4];
	struct mix_problem p = { 2, 2, rate, price, cap, MIX_SLICES, 1000,
				 10.0, NULL, false };
	struct mix_solution s = { replicas, slices, 0.0, false, 0.0 };
	struct diag err;

	(void)state;
	diag_clear(&err);
	assert_int_equal(mix_solve(&p, &s, &err), 0);
	assert_true(s.optimal);
	assert_rel(s.cost_per_h, 6.6, 1e-12);
	assert_int_equal(replicas[0], 3);
	assert_int_equal(replicas[1], 1);
	assert_int_equal(slices[0], 4); /* chat on C */
	assert_int_equal(slices[1], 0);
	assert_int_equal(slices[2], 0);
	assert_int_equal(slices[3], 4); /* documents on D */

	/* documents only D serves: C cannot hold them */
	cap[1] = 0.0;
	assert_int_equal(mix_solve(&p, &s, &err), 0);
	assert_rel(s.cost_per_h, 6.6, 1e-12);
	assert_int_equal(slices[1], 0);

	/* one length: the cheaper device per request/s alone.  40 chat/s:
	   C 3.2 -> 4 ($4.40), D 1.6 -> 2 ($6.60); a slice of 10/s on D
	   (0.4 -> 1, $3.30) and three on C (2.4 -> 3, $3.30) is $6.60 */
	{
		double r1[] = { 40.0 };
		double c1[] = { 12.5, 25.0 };
		int rep1[2], sl1[2];
		struct mix_problem p1 = { 1, 2, r1, price, c1, MIX_SLICES,
					  1000, 10.0, NULL, false };
		struct mix_solution s1 = { rep1, sl1, 0.0, false, 0.0 };

		assert_int_equal(mix_solve(&p1, &s1, &err), 0);
		assert_rel(s1.cost_per_h, 4.4, 1e-12);
		assert_int_equal(rep1[0], 4);
		assert_int_equal(rep1[1], 0);
		assert_int_equal(sl1[0], 4);
	}
}

/* Mixing pays at a small rate: a remainder that a cheap device holds
   (Melange's "finer-grained scaling at low request rates"). */
static void test_solve_remainder(void **state)
{
	/* one bucket at 21 requests/s: D ($3/h, 20/s) alone needs 2 ($6),
	   C ($1/h, 4/s) alone 5.25 -> 6 ($6); three slices (15.75/s) on D
	   need 1 ($3) and one slice (5.25/s) on C 1.31 -> 2 ($2): $5.  Two
	   slices each: D 1 ($3) + C 2.63 -> 3 ($3) = $6 */
	double rate[] = { 21.0 };
	double price[] = { 1.0, 3.0 };
	double cap[] = { 4.0, 20.0 };
	int replicas[2], slices[2];
	struct mix_problem p = { 1, 2, rate, price, cap, MIX_SLICES, 1000,
				 10.0, NULL, false };
	struct mix_solution s = { replicas, slices, 0.0, false, 0.0 };
	struct diag err;

	(void)state;
	diag_clear(&err);
	assert_int_equal(mix_solve(&p, &s, &err), 0);
	assert_rel(s.cost_per_h, 5.0, 1e-12);
	assert_int_equal(replicas[0], 2);
	assert_int_equal(replicas[1], 1);
	assert_int_equal(slices[0], 1);
	assert_int_equal(slices[1], 3);
}

static void test_solve_errors(void **state)
{
	double rate[] = { 10.0, 1.0 };
	double price[] = { 1.0 };
	double cap[] = { 5.0, 0.0 };
	int replicas[1], slices[2];
	struct mix_problem p = { 2, 1, rate, price, cap, MIX_SLICES, 1000,
				 10.0, NULL, false };
	struct mix_solution s = { replicas, slices, 0.0, false, 0.0 };
	struct diag err;

	(void)state;
	diag_clear(&err);
	/* bucket 1: nothing serves it */
	assert_int_equal(mix_solve(&p, &s, &err), -1);
	assert_has(err.msg, "no option serves bucket 1");
	/* too few replicas allowed: 10/s at 5/s each needs 2 */
	cap[1] = 5.0;
	p.replicas_max = 1;
	diag_clear(&err);
	assert_int_equal(mix_solve(&p, &s, &err), -1);
	assert_has(err.msg, "no fleet of at most 1 replicas");
	p.replicas_max = 1000;
	rate[0] = NAN;
	diag_clear(&err);
	assert_int_equal(mix_solve(&p, &s, &err), -1);
	assert_has(err.msg, "bucket 0 has no rate");
	rate[0] = 10.0;
	cap[0] = -1.0;
	diag_clear(&err);
	assert_int_equal(mix_solve(&p, &s, &err), -1);
	assert_has(err.msg, "no capacity");
	cap[0] = 5.0;
	p.nb = 0;
	diag_clear(&err);
	assert_int_equal(mix_solve(&p, &s, &err), -1);
	assert_has(err.msg, "needs buckets");
}

static void test_route(void **state)
{
	/* bucket 0 split 3:1 between options 0 and 1; bucket 1 all on 1 */
	int dense[] = { 0, 0, 1, 0, 0, 0, 0, 1, 0 };
	int slices[] = { 3, 0, /* option 0 */ 1, 4 /* option 1 */ };
	int option[N(dense)], on0 = 0;

	(void)state;
	assert_int_equal(mix_route(dense, N(dense), slices, 2, 2, option), 0);
	for (size_t i = 0; i < N(dense); i++) {
		if (dense[i] == 1)
			assert_int_equal(option[i], 1);
		else
			on0 += option[i] == 0;
	}
	/* 7 requests of bucket 0: 3/4 of them, 5.25 -> 5 on option 0 */
	assert_int_equal(on0, 5);
	/* the first goes to the option furthest behind: option 0 */
	assert_int_equal(option[0], 0);
	/* a bucket without slices */
	slices[3] = 0;
	assert_int_equal(mix_route(dense, N(dense), slices, 2, 2, option),
			 -1);
}

/* ---- the whole plan on the embedded catalog ---- */

static struct catalog *cat;

static int setup(void **state)
{
	struct diag err;

	(void)state;
	diag_clear(&err);
	return catalog_load_default(&cat, &err);
}

static int teardown(void **state)
{
	(void)state;
	catalog_free(cat);
	return 0;
}

static const struct gpu_spec *gpu(const char *name)
{
	const struct gpu_spec *g = catalog_find(cat, name, NULL);

	assert_non_null(g);
	return g;
}

/* Llama 3.1 8B with a 2 s TTFT and 50 ms TPOT target at p99. */
static void llama8b(struct workload *wl)
{
	workload_init(wl);
	strcpy(wl->file, "mix.ini");
	strcpy(wl->model.name, "llama3.1-8b");
	wl->model.layers = 32;
	wl->model.hidden = 4096;
	wl->model.heads = 32;
	wl->model.kv_heads = 8;
	wl->model.ffn_hidden = 14336;
	wl->model.gated_ffn = true;
	wl->model.vocab = 128256;
	wl->model.seq_len = 131072;
	wl->model.tied_embeddings = false;
	wl->inference.ttft_slo_s = 2.0;
	wl->inference.tpot_slo_s = 0.05;
	wl->inference.percentile = SLO_P99;
}

/* The cheapest single-device fleet of 'wl' over 'g' (n devices), per
   month, as 'capplan size' rows it; its device in '*best'. */
static double single_month(const struct workload *wl,
			   const struct gpu_spec *const *g, int n,
			   const struct gpu_spec **best)
{
	double least = HUGE_VAL;

	for (int i = 0; i < n; i++) {
		struct infer_plan p;
		struct diag err;

		diag_clear(&err);
		if (infer_plan_make(wl, g[i], &p, &err) != 0 || !p.fits ||
		    !p.meets_slo)
			continue;
		if (p.cost_usd_per_month < least) {
			least = p.cost_usd_per_month;
			*best = g[i];
		}
	}
	return least;
}

/* A bimodal trace: 80% chat requests, 20% long documents, Poisson at
   'rate' requests/s (a fixed LCG, so that the test needs no file). */
static struct sim_request *bimodal(size_t n, double rate)
{
	struct sim_request *q = calloc(n, sizeof(*q));
	uint64_t x = 42;
	double t = 0.0;

	assert_non_null(q);
	for (size_t i = 0; i < n; i++) {
		double u[4];

		for (int k = 0; k < 4; k++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			u[k] = ((x >> 11) + 0.5) / 9007199254740992.0;
		}
		t += -log(u[0]) / rate;
		q[i].arrival_s = t;
		if (u[1] < 0.8) {
			q[i].prompt_tokens = 100 + (int)(u[2] * 300);
			q[i].output_tokens = 100 + (int)(u[3] * 300);
		} else {
			q[i].prompt_tokens = 4000 + (int)(u[2] * 3000);
			q[i].output_tokens = 100 + (int)(u[3] * 200);
		}
	}
	return q;
}

/*
 * 80% chat, 20% documents at 20 requests/s over five devices: one
 * MI300X is not enough for the whole load and two are more than it
 * needs; the mix keeps one for the documents and serves the chat on a
 * cheaper device (capplan size examples/llama3-8b-mixed.ini --mixed
 * shows the same on its trace).
 */
static void test_plan_bimodal(void **state)
{
	const struct gpu_spec *g[] = { gpu("L4"), gpu("A40"),
				       gpu("RTX-6000-Ada"), gpu("H20"),
				       gpu("MI300X") };
	const struct gpu_spec *best = NULL;
	struct sim_request *q = bimodal(2000, 20.0);
	const struct mix_result *r;
	struct mix_plan *m;
	struct workload wl;
	struct diag err;
	double single, mixed, routed = 0.0, cost = 0.0;
	size_t simulated = 0;

	(void)state;
	llama8b(&wl);
	wl.inference.arrival = SIM_ARRIVAL_TRACE;
	wl.inference.trace_requests = q;
	wl.inference.trace_len = 2000;
	diag_clear(&err);
	assert_int_equal(mix_plan_run(&wl, g, (int)N(g), &m, &err), 0);
	r = mix_plan_result(m);
	/* chat and documents in buckets of their own */
	assert_true(mix_plan_bucket_count(m) >= 2);
	single = single_month(&wl, g, (int)N(g), &best);
	assert_non_null(best);
	mixed = r->cost_per_h * ENERGY_HOURS_PER_MONTH;
	assert_true(r->meets);
	assert_true(r->npools >= 2);
	assert_true(mixed < single);
	for (int i = 0; i < r->npools; i++) {
		const struct mix_pool *pl = &r->pools[i];

		assert_true(pl->meets);
		assert_true(pl->simulated);
		assert_true(pl->sim.ttft_p99_s <= 2.0);
		assert_true(pl->sim.tpot_p99_s <= 0.05);
		routed += pl->rate_per_s;
		simulated += pl->requests;
		assert_true(pl->replicas >= 1);
		cost += pl->replicas * pl->price_per_h;
	}
	assert_rel(cost, r->cost_per_h, 1e-12);
	/* every request is routed, and simulated once */
	assert_int_equal(simulated, 2000);
	{
		double rate = 2000.0 / (q[1999].arrival_s - q[0].arrival_s);

		assert_rel(routed, rate, 1e-9);
	}
	mix_plan_free(m);
	free(q);
}

/* One length (fixed prompts and answers): one bucket, one device. */
static void test_plan_one_length(void **state)
{
	const struct gpu_spec *g[] = { gpu("L4"), gpu("A40"),
				       gpu("RTX-6000-Ada"), gpu("H20"),
				       gpu("MI300X") };
	const struct gpu_spec *best = NULL;
	const struct mix_result *r;
	struct mix_plan *m;
	struct workload wl;
	struct diag err;

	(void)state;
	llama8b(&wl);
	wl.inference.qps = 20.0;
	wl.inference.prompt_tokens = 224;
	wl.inference.output_tokens = 190;
	wl.inference.length_dist = SIM_LEN_FIXED;
	diag_clear(&err);
	assert_int_equal(mix_plan_run(&wl, g, (int)N(g), &m, &err), 0);
	r = mix_plan_result(m);
	assert_int_equal(mix_plan_bucket_count(m), 1);
	assert_rel(mix_plan_bucket(m, 0)->rate_per_s, 20.0, 1e-12);
	assert_int_equal(r->npools, 1);
	assert_true(r->meets);
	(void)single_month(&wl, g, (int)N(g), &best);
	assert_ptr_equal(r->pools[0].gpu, best);
	assert_int_equal(mix_plan_slices(m, 0, 0), MIX_SLICES);
	mix_plan_free(m);
}

static void test_plan_errors(void **state)
{
	const struct gpu_spec *g[] = { gpu("H20"), gpu("MI300X") };
	struct sim_request two[] = {
		{ .arrival_s = 1.0, .prompt_tokens = 10, .output_tokens = 10 },
		{ .arrival_s = 1.0, .prompt_tokens = 20, .output_tokens = 10 },
	};
	struct mix_plan *m = NULL;
	struct workload wl;
	struct diag err;

	(void)state;
	llama8b(&wl);
	wl.inference.qps = 5.0;
	diag_clear(&err);
	assert_int_equal(mix_plan_new(&wl, g, 1, &m, &err), -1);
	assert_has(err.msg, "at least two devices");
	assert_null(m);

	wl.inference.qps = 0.0;
	wl.inference.concurrency = 8;
	diag_clear(&err);
	assert_int_equal(mix_plan_new(&wl, g, 2, &m, &err), -1);
	assert_has(err.msg, "needs a request rate");
	assert_has(err.msg, "closed loop");

	wl.inference.concurrency = 0;
	diag_clear(&err);
	assert_int_equal(mix_plan_new(&wl, g, 2, &m, &err), -1);
	assert_has(err.msg, "needs a request rate");

	wl.inference.qps = 5.0;
	wl.inference.turns = 3;
	diag_clear(&err);
	assert_int_equal(mix_plan_new(&wl, g, 2, &m, &err), -1);
	assert_has(err.msg, "sessions");

	wl.inference.turns = 1;
	wl.inference.qps = 0.0;
	wl.inference.arrival = SIM_ARRIVAL_TRACE;
	wl.inference.trace_requests = two;
	wl.inference.trace_len = 1;
	diag_clear(&err);
	assert_int_equal(mix_plan_new(&wl, g, 2, &m, &err), -1);
	assert_has(err.msg, "at least two requests");
	wl.inference.trace_len = 2;
	diag_clear(&err);
	assert_int_equal(mix_plan_new(&wl, g, 2, &m, &err), -1);
	assert_has(err.msg, "all 2 arrive at once");

	wl.model.kind = MODEL_GENERIC;
	diag_clear(&err);
	assert_int_equal(mix_plan_new(&wl, g, 2, &m, &err), -1);
	assert_has(err.msg, "transformer");
	mix_plan_free(NULL);
}

/* A bucket of requests longer than any device's KV cache holds: no
   device serves it, and the message says which. */
static void test_plan_unserved(void **state)
{
	const struct gpu_spec *g[] = { gpu("L4"), gpu("A10") };
	struct sim_request q[40];
	struct mix_plan *m;
	struct workload wl;
	struct diag err;

	(void)state;
	llama8b(&wl);
	for (int i = 0; i < 40; i++) {
		q[i] = (struct sim_request){ .arrival_s = 0.5 * i,
					     .prompt_tokens = 200,
					     .output_tokens = 100 };
		if (i % 10 == 0)
			q[i].prompt_tokens = 120000;
	}
	wl.inference.arrival = SIM_ARRIVAL_TRACE;
	wl.inference.trace_requests = q;
	wl.inference.trace_len = 40;
	diag_clear(&err);
	assert_int_equal(mix_plan_run(&wl, g, 2, &m, &err), -1);
	assert_has(err.msg, "no device serves the requests of 32768+ prompt "
			    "and 1-127 output tokens (10% of them)");
}

/* A trace planned at twice its rate: the same requests and buckets,
   arriving twice as fast; the program of least power. */
static void test_plan_scale(void **state)
{
	const struct gpu_spec *g[] = { gpu("L40S"), gpu("H100-SXM") };
	struct sim_request *q = bimodal(400, 20.0);
	struct mix_plan *m;
	struct workload wl;
	struct diag err;
	double rate, cheap_w, least_w;

	(void)state;
	llama8b(&wl);
	wl.inference.trace_requests = q;
	wl.inference.trace_len = 400;
	diag_clear(&err);
	assert_int_equal(mix_plan_new(&wl, g, 2, &m, &err), 0);
	rate = mix_plan_rate(m);
	assert_rel(mix_plan_rate(m), 400.0 / (q[399].arrival_s - q[0].arrival_s),
		   1e-12);
	assert_int_equal(mix_plan_scale(m, 2.0, &err), 0);
	assert_rel(mix_plan_scale_of(m), 2.0, 0.0);
	assert_rel(mix_plan_rate(m), 2.0 * rate, 1e-12);
	for (int b = 0; b < mix_plan_bucket_count(m); b++)
		assert_rel(mix_plan_bucket(m, b)->rate_per_s,
			   mix_plan_rate(m) * mix_plan_bucket(m, b)->share,
			   1e-12);
	for (int u = 0; u < mix_plan_measure_count(m); u++)
		assert_int_equal(mix_plan_measure(m, u, &err), 0);
	/* no fleet draws less than the bound of saturated capacities */
	assert_int_equal(mix_plan_solve_for(m, MIX_CHEAPEST, &err), 0);
	cheap_w = mix_plan_result(m)->ip_power_w;
	assert_int_equal(mix_plan_solve_for(m, MIX_LEAST_POWER, &err), 0);
	least_w = mix_plan_result(m)->ip_power_w;
	assert_true(least_w <= cheap_w * (1.0 + 1e-12));
	assert_true(least_w >= mix_plan_least_power(m) * (1.0 - 1e-12));
	assert_int_equal(mix_plan_scale(m, 0.0, &err), -1);
	mix_plan_free(m);
	free(q);
}

/* The bimodal mix within 3 kW of facility power over L40S, H100 and
   A100: the mixed fleet serves at least the load of the best single
   device's fleet within the same budget (infer_plan_power_fit), its
   simulated fleet meets the targets within the budget, and its figures
   add up. */
static void test_power_bimodal(void **state)
{
	const struct gpu_spec *g[] = { gpu("L40S"), gpu("H100-SXM"),
				       gpu("A100-SXM-80GB") };
	const double budget_w = 3e3;
	struct sim_request *q = bimodal(2000, 20.0);
	struct mix_power_fit f;
	const struct mix_result *r;
	struct mix_plan *m;
	struct workload wl;
	struct diag err;
	double best = 0.0, rate0, watts = 0.0, out = 0.0;

	(void)state;
	llama8b(&wl);
	wl.inference.trace_requests = q;
	wl.inference.trace_len = 2000;
	diag_clear(&err);
	for (size_t i = 0; i < N(g); i++) {
		struct infer_power_fit sf;

		assert_int_equal(infer_plan_power_fit(&wl, g[i], budget_w,
						      NULL, &sf, &err),
				 0);
		if (sf.feasible && sf.rate_per_s > best)
			best = sf.rate_per_s;
	}
	assert_true(best > 0.0);
	assert_int_equal(mix_plan_new(&wl, g, (int)N(g), &m, &err), 0);
	rate0 = mix_plan_rate(m);
	assert_int_equal(mix_plan_power_fit(m, budget_w, NULL, NULL, &f, &err),
			 0);
	assert_true(f.feasible);
	assert_true(f.rate_per_s >= best);
	r = mix_plan_result(m);
	assert_true(r->meets);
	assert_true(f.power_w <= budget_w);
	for (int i = 0; i < r->npools; i++) {
		const struct mix_pool *pl = &r->pools[i];

		assert_true(pl->meets);
		assert_true(pl->replica_w > 0.0);
		watts += pl->replicas * pl->replica_w;
	}
	assert_rel(watts, f.power_w, 1e-12);
	assert_rel(f.rate_per_s, f.scale * rate0, 1e-9);
	for (size_t i = 0; i < 2000; i++)
		out += q[i].output_tokens;
	assert_rel(f.output_tokens_per_s, f.rate_per_s * out / 2000.0, 1e-9);
	assert_rel(f.output_tokens_per_s_per_mw,
		   f.output_tokens_per_s / (budget_w / 1e6), 1e-12);
	/* the bisection's bound: no fleet serves past budget / least */
	assert_true(f.scale <= budget_w / f.least_w * (1.0 + 1e-9));
	mix_plan_free(m);

	/* a budget below any replica serves nothing, and says why */
	assert_int_equal(mix_plan_new(&wl, g, (int)N(g), &m, &err), 0);
	assert_int_equal(mix_plan_power_fit(m, 300.0, NULL, NULL, &f, &err),
			 0);
	assert_false(f.feasible);
	assert_has(f.why, "the replica of least power draws 0.567 kW, over the 0.3 kW budget");
	mix_plan_free(m);
	free(q);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_buckets),
	cmocka_unit_test(test_solve_by_hand),
	cmocka_unit_test(test_solve_remainder),
	cmocka_unit_test(test_solve_errors),
	cmocka_unit_test(test_route),
	cmocka_unit_test(test_plan_bimodal),
	cmocka_unit_test(test_plan_one_length),
	cmocka_unit_test(test_plan_errors),
	cmocka_unit_test(test_plan_unserved),
	cmocka_unit_test(test_plan_scale),
	cmocka_unit_test(test_power_bimodal),
};

int main(void)
{
	return cmocka_run_group_tests(tests, setup, teardown);
}
