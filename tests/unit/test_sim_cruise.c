/* test_sim_cruise.c - the simulation's shortcuts change no number: a
   replica's quiet decode steps run as one event (a cruise, specs/models.md
   10.9.2), and a prefix cache nothing can hit left out unless a request
   was preempted (10.9.19), give the numbers of the run without them:
   every request's times to the last bit, the same steps, preemptions and
   cache hits, and sums over replicas to rounding (cmocka).
   Each load is run both ways (sim_load.no_shortcuts), on loads chosen to
   cut cruises in every way: arrivals, a front end, closed loops in lock
   step (ties), decode rounds, preemptions, a prefix cache with a host
   tier, sessions and disaggregation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "serve_sim.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* c0 + c1 (tokens scheduled) + c2 (context the decodes read): a step
   whose time grows as a cruise's context does */
struct lin {
	double c0, c1, c2;
	long long calls;
};

static double lin_step(void *ctx, const struct sim_mix *m)
{
	struct lin *l = ctx;

	l->calls++;
	return l->c0 + l->c1 * (m->prefill_tokens + m->decode_seqs) +
	       l->c2 * m->decode_ctx_tokens;
}

static struct sim_engine engine(int max_batch, double kv_blocks)
{
	struct sim_engine e;

	memset(&e, 0, sizeof(e));
	e.max_batch = max_batch;
	e.max_batched_tokens = 512;
	e.chunked_prefill = true;
	e.kv_block_tokens = 16;
	e.kv_blocks = kv_blocks;
	e.scheduler_steps = 1;
	return e;
}

static struct sim_load poisson(int requests, double rate, double prompt,
			       double output)
{
	struct sim_load l;

	memset(&l, 0, sizeof(l));
	l.arrival = SIM_ARRIVAL_POISSON;
	l.rate_per_s = rate;
	l.requests = requests;
	l.length_dist = SIM_LEN_EXPONENTIAL;
	l.prompt_tokens_mean = prompt;
	l.output_tokens_mean = output;
	l.max_context_tokens = 4096;
	l.seed = 5;
	return l;
}

/* The result fields that come from each request's own times and counts:
   the same numbers either way. */
static void assert_same_requests(const struct sim_result *a,
				 const struct sim_result *b)
{
#define F(x) { #x, offsetof(struct sim_result, x) }
	static const struct {
		const char *name;
		size_t off;
	} f[] = {
		F(ttft_mean_s), F(ttft_p50_s), F(ttft_p90_s), F(ttft_p99_s),
		F(tpot_mean_s), F(tpot_p50_s), F(tpot_p90_s), F(tpot_p99_s),
		F(e2e_mean_s), F(e2e_p50_s), F(e2e_p99_s),
		F(queue_wait_mean_s), F(queue_wait_p99_s),
		F(request_throughput_per_s), F(output_tokens_per_s),
		F(input_tokens_per_s), F(kv_transfer_mean_s), F(duration_s),
		F(prefix_hit_rate), F(prefix_hit_requests),
		F(offload_hit_rate), F(offload_load_mean_s),
		F(tokens_per_decode_step),
	};
#undef F

	for (size_t i = 0; i < N(f); i++) {
		double x, y;

		memcpy(&x, (const char *)a + f[i].off, sizeof(x));
		memcpy(&y, (const char *)b + f[i].off, sizeof(y));
		if (x != y)
			print_error("%s: %.17g with the shortcuts, %.17g "
				    "without\n", f[i].name, x, y);
		assert_true(x == y);
	}
	assert_int_equal(a->steps, b->steps);
	assert_int_equal(a->request_steps, b->request_steps);
	assert_int_equal(a->preemptions, b->preemptions);
	assert_int_equal(a->sessions, b->sessions);
	assert_int_equal(a->measured_requests, b->measured_requests);
	assert_int_equal(a->overloaded, b->overloaded);
	/* sums over steps of every replica, added in another order */
	assert_true(fabs(a->mean_batch - b->mean_batch) <=
		    1e-12 * fabs(b->mean_batch));
	assert_true(fabs(a->kv_utilization - b->kv_utilization) <=
		    1e-12 * fabs(b->kv_utilization));
	assert_true(fabs(a->busy_fraction - b->busy_fraction) <=
		    1e-12 * fabs(b->busy_fraction));
	assert_true(fabs(a->prefill_time_fraction - b->prefill_time_fraction) <=
		    1e-12 * fabs(b->prefill_time_fraction));
}

/* Run 'l' on 'replicas' of 'e' cruising and step by step: the same
   numbers, and the cruise asked the step model for fewer steps' times
   only through its own planning (at least as many calls: it plans
   ahead). */
static void both_ways_with(const struct sim_engine *e, int replicas,
			   struct sim_load l, struct lin s1,
			   struct sim_result *out)
{
	struct lin s2 = s1;
	struct sim_result a, b;
	struct diag err;

	diag_clear(&err);
	l.no_shortcuts = false;
	assert_int_equal(sim_run(e, replicas, &l, lin_step, &s1, &a, &err), 0);
	l.no_shortcuts = true;
	assert_int_equal(sim_run(e, replicas, &l, lin_step, &s2, &b, &err), 0);
	assert_same_requests(&a, &b);
	assert_true(s1.calls >= s2.calls);
	if (out)
		*out = a;
}

static void both_ways(const struct sim_engine *e, int replicas,
		      struct sim_load l, struct sim_result *out)
{
	struct lin s = { 2e-3, 1e-5, 2e-7, 0 };

	both_ways_with(e, replicas, l, s, out);
}

static void test_poisson(void **state)
{
	const int replicas[] = { 1, 3, 8 };
	const double rate[] = { 2.0, 20.0, 60.0 };

	(void)state;
	for (size_t i = 0; i < N(replicas); i++)
		for (size_t j = 0; j < N(rate); j++) {
			struct sim_engine e = engine(32, 1e6);
			struct sim_load l = poisson(600, rate[j], 300, 120);

			both_ways(&e, replicas[i], l, NULL);
			e.chunked_prefill = false;
			both_ways(&e, replicas[i], l, NULL);
		}
}

/* a queue the batch and the cache hold back (nothing it could admit:
   cruises with requests waiting), and preemptions */
static void test_full_and_preempting(void **state)
{
	struct sim_engine e = engine(8, 1e6);
	struct sim_load l = poisson(500, 40.0, 200, 150);
	struct sim_result r;

	(void)state;
	both_ways(&e, 2, l, &r);
	assert_true(r.overloaded);
	e = engine(64, 120); /* 1920 tokens a replica */
	l.max_context_tokens = 1500;
	l.rate_per_s = 12.0;
	both_ways(&e, 2, l, &r);
	assert_true(r.preemptions > 0);
	/* a prefix cache of unique prompts: a preempted request finds its
	   own blocks when it comes back (the run goes again with the cache,
	   10.9.19); without preemptions the cache changes nothing */
	e.prefix_caching = true;
	both_ways(&e, 2, l, &r);
	assert_true(r.preemptions > 0);
	e.kv_blocks = 1e6;
	both_ways(&e, 2, l, &r);
	assert_true(r.preemptions == 0);
}

/* replicas in lock step: identical requests at once, steps that end at
   the same time on every replica, a closed loop releasing the next
   request at a step end (a tie the replica order breaks) */
static void test_ties(void **state)
{
	struct sim_engine e = engine(4, 1e6);
	struct sim_load l = poisson(400, 1.0, 100, 40);

	(void)state;
	l.arrival = SIM_ARRIVAL_CLOSED;
	l.concurrency = 12;
	l.length_dist = SIM_LEN_FIXED;
	both_ways(&e, 3, l, NULL);
	both_ways(&e, 4, l, NULL);
	l.arrival = SIM_ARRIVAL_BURST;
	both_ways(&e, 3, l, NULL);
	l.length_dist = SIM_LEN_EXPONENTIAL;
	l.arrival = SIM_ARRIVAL_CLOSED;
	both_ways(&e, 5, l, NULL);
	/* steps of one length: every replica's steps end at the same
	   times, and a completion releases a request to a replica whose
	   step ends then too (before or after it, by their order) */
	{
		struct lin fixed = { 2e-3, 0.0, 0.0, 0 };

		e = engine(6, 1e6);
		both_ways_with(&e, 4, l, fixed, NULL);
		l.concurrency = 18;
		both_ways_with(&e, 4, l, fixed, NULL);
		l.concurrency = 7;
		both_ways_with(&e, 4, l, fixed, NULL);
	}
}

/* decode rounds with host time, and a front end per request */
static void test_rounds_and_front_end(void **state)
{
	struct sim_engine e = engine(32, 1e6);
	struct sim_load l = poisson(500, 15.0, 250, 100);

	(void)state;
	e.scheduler_steps = 4;
	e.host_step_s = 1.5e-3;
	both_ways(&e, 3, l, NULL);
	e.scheduler_steps = 1;
	e.host_request_s = 4e-3;
	both_ways(&e, 3, l, NULL);
}

/* a prefix cache (shared system prompts in groups, sessions) over a host
   tier: evictions as the decodes' blocks grow */
static void test_prefix_cache(void **state)
{
	struct sim_engine e = engine(32, 400);
	struct sim_load l = poisson(500, 10.0, 300, 80);
	struct sim_result r;

	(void)state;
	e.prefix_caching = true;
	l.shared_prefix_tokens = 128;
	l.prefix_groups = 3;
	both_ways(&e, 2, l, &r);
	assert_true(r.prefix_hit_rate > 0.0);
	e.offload_blocks = 800;
	e.offload_block_bytes = 1 << 20;
	e.offload_bw_bytes_per_s = 20e9;
	e.offload_latency_s = 1e-4;
	both_ways(&e, 2, l, &r);
	l.turns = 3;
	l.think_time_s = 0.5;
	l.turn_tokens_mean = 60;
	l.session_routing = true;
	both_ways(&e, 3, l, &r);
	assert_true(r.sessions > 0);
	assert_true(r.offload_hit_rate > 0.0);
	/* whole prompts: an admission looks the cache up before any
	   decode reserves (and evicts) again */
	e.chunked_prefill = false;
	both_ways(&e, 3, l, &r);
	e.offload_blocks = 0.0;
	both_ways(&e, 3, l, &r);
	assert_true(r.prefix_hit_rate > 0.0);
	e.kv_blocks = 150;
	l.output_tokens_mean = 300;
	l.max_context_tokens = 2000;
	l.think_time_s = 0.05;
	both_ways(&e, 4, l, &r);
}

/* disaggregated: the decode pool's replicas cruise, transfers cut them */
static void test_disaggregated(void **state)
{
	struct sim_engine pe = engine(16, 1e6), de = engine(64, 1e6);
	struct lin s1 = { 2e-3, 1e-5, 2e-7, 0 }, s2 = s1, d1 = s1, d2 = s1;
	struct sim_pool p1 = { &pe, 2, lin_step, &s1, NULL },
			p2 = { &pe, 2, lin_step, &s2, NULL };
	struct sim_pool q1 = { &de, 3, lin_step, &d1, NULL },
			q2 = { &de, 3, lin_step, &d2, NULL };
	struct sim_transfer x = { 1e-4, 2048.0, 25e9 };
	struct sim_load l = poisson(600, 25.0, 400, 120);
	struct sim_result a, b;
	struct diag err;

	(void)state;
	diag_clear(&err);
	assert_int_equal(sim_run_disaggregated(&p1, &q1, &x, &l, &a, &err), 0);
	l.no_shortcuts = true;
	assert_int_equal(sim_run_disaggregated(&p2, &q2, &x, &l, &b, &err), 0);
	assert_same_requests(&a, &b);
	assert_true(a.kv_transfer_mean_s > 0.0);
}

/* the pool's own planner of decode steps ('steps'), when it gives what
   'step' would, changes nothing either */
static void lin_steps(void *ctx, const struct sim_mix *first,
		      double ctx_step, int k, double *dt)
{
	struct sim_mix m = *first;

	for (int i = 0; i < k; i++) {
		dt[i] = lin_step(ctx, &m);
		m.decode_ctx_tokens += ctx_step;
	}
}

static void test_pool_steps(void **state)
{
	struct sim_engine e = engine(32, 1e6);
	struct lin s1 = { 2e-3, 1e-5, 2e-7, 0 }, s2 = s1;
	struct sim_pool p1 = { &e, 4, lin_step, &s1, lin_steps };
	struct sim_pool p2 = { &e, 4, lin_step, &s2, NULL };
	struct sim_load l = poisson(800, 30.0, 300, 150);
	struct sim_result a, b;
	struct diag err;

	(void)state;
	diag_clear(&err);
	assert_int_equal(sim_run_pool(&p1, &l, &a, &err), 0);
	l.no_shortcuts = true;
	assert_int_equal(sim_run_pool(&p2, &l, &b, &err), 0);
	assert_same_requests(&a, &b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_poisson),
		cmocka_unit_test(test_full_and_preempting),
		cmocka_unit_test(test_ties),
		cmocka_unit_test(test_rounds_and_front_end),
		cmocka_unit_test(test_prefix_cache),
		cmocka_unit_test(test_disaggregated),
		cmocka_unit_test(test_pool_steps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
