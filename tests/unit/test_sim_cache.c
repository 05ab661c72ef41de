/* test_sim_cache.c - sessions and the prefix cache of the serving
   simulator (serve_sim.h, sim_cache.c; specs/models.md 10.9.19): caching
   that finds nothing changes nothing; turns of a conversation hit about
   (turns - 1) / turns of their prompts and their first tokens come
   sooner; a shared prefix is found by every request and held once in
   memory; a cache smaller than the conversations' working set thrashes;
   sessions end with the context (cmocka).  The step model is linear in
   the tokens a step schedules, so that a prefill skipped is time saved. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "serve_sim.h"

/* c0 + c1 x (prompt tokens + decoding sequences) */
struct lin {
	double c0, c1;
};

static double lin_step(void *ctx, const struct sim_mix *m)
{
	const struct lin *l = ctx;

	return l->c0 + l->c1 * (m->prefill_tokens + m->decode_seqs);
}

static struct sim_engine engine(bool caching, double kv_blocks)
{
	struct sim_engine e;

	memset(&e, 0, sizeof(e));
	e.max_batch = 256;
	e.max_batched_tokens = 8192;
	e.chunked_prefill = true;
	e.kv_block_tokens = 16;
	e.kv_blocks = kv_blocks;
	e.scheduler_steps = 1;
	e.prefix_caching = caching;
	return e;
}

static struct sim_load poisson(double rate, int requests, int prompt,
			       int output)
{
	struct sim_load l;

	memset(&l, 0, sizeof(l));
	l.arrival = SIM_ARRIVAL_POISSON;
	l.rate_per_s = rate;
	l.requests = requests;
	l.length_dist = SIM_LEN_FIXED;
	l.prompt_tokens_mean = prompt;
	l.output_tokens_mean = output;
	l.max_context_tokens = 1 << 20;
	l.seed = 11;
	l.turns = 1;
	return l;
}

static struct sim_result run_n(const struct sim_engine *e, int replicas,
			       const struct sim_load *l)
{
	struct lin step = { 2e-3, 2e-5 };
	struct sim_result r;
	struct diag err;

	diag_clear(&err);
	if (sim_run(e, replicas, l, lin_step, &step, &r, &err) != 0) {
		print_error("sim_run: %s\n", err.msg);
		fail();
	}
	return r;
}

static struct sim_result run(const struct sim_engine *e,
			     const struct sim_load *l)
{
	return run_n(e, 1, l);
}

/* Unique prompts (no sessions, no shared prefix): nothing is found, and
   the run is the run without a cache, to the last bit (the cache's
   bookkeeping done: no_shortcuts; else the simulation leaves it out,
   for this reason).  With preemptions, a request that comes back finds
   its own blocks when they were not evicted yet: its first token comes
   a little sooner, and the run is the cache's, shortcut or not. */
static void test_nothing_found_changes_nothing(void **state)
{
	struct sim_engine off = engine(false, 1e6), on = engine(true, 1e6);
	struct sim_load l = poisson(20.0, 1500, 700, 120);
	struct sim_result a, b, c;

	(void)state;
	a = run(&off, &l);
	l.no_shortcuts = true;
	b = run(&on, &l);
	assert_true(b.prefix_hit_rate == 0.0);
	assert_true(b.prefix_hit_requests == 0.0);
	assert_true(a.ttft_mean_s == b.ttft_mean_s);
	assert_true(a.tpot_p99_s == b.tpot_p99_s);
	assert_true(a.output_tokens_per_s == b.output_tokens_per_s);
	assert_true(a.kv_utilization == b.kv_utilization);
	assert_int_equal(a.steps, b.steps);
	assert_int_equal(a.preemptions, 0);
	/* a cache for four prompts and their answers at a time */
	off = engine(false, 190);
	on = engine(true, 190);
	l.no_shortcuts = false;
	l.rate_per_s = 60.0;
	a = run(&off, &l);
	b = run(&on, &l);
	l.no_shortcuts = true;
	c = run(&on, &l);
	assert_true(a.preemptions > 0);
	assert_true(b.ttft_mean_s < a.ttft_mean_s);
	assert_int_equal(b.request_steps, c.request_steps);
	assert_true(b.ttft_mean_s == c.ttft_mean_s);
	assert_true(b.e2e_p99_s == c.e2e_p99_s);
}

/*
 * Four turns of 1024 + 1 new tokens with two-token answers: each later
 * turn finds the conversation so far (all but the unit it ends in), so
 * the hit rate over turns is about 3/4 (the first turn finds nothing),
 * and the requests that find something are the later turns, 3/4 of them.
 * Prefill is most of the step time here: the mean TTFT falls to about
 * (1/4 + 3/4 x a unit's share) of the uncached one.
 */
static void test_turns_hit_their_history(void **state)
{
	struct sim_engine off = engine(false, 1e6), on = engine(true, 1e6);
	struct sim_load l = poisson(4.0, 2000, 1024, 2);
	struct sim_result a, b;

	(void)state;
	l.turns = 4;
	l.think_time_s = 0.5;
	l.turn_tokens_mean = 1;
	a = run(&off, &l);
	b = run(&on, &l);
	assert_true(b.prefix_hit_rate > 0.72 && b.prefix_hit_rate < 0.76);
	assert_true(fabs(b.prefix_hit_requests - 0.75) < 0.02);
	assert_true(a.prefix_hit_rate == 0.0);
	assert_true(b.ttft_mean_s < 0.5 * a.ttft_mean_s);
	/* about requests / turns conversations */
	assert_true(abs(b.sessions - 2000 / 4) <= 5);
	assert_int_equal(b.simulated_requests, 2000);
}

/*
 * Every prompt begins with the same 1000 tokens: after the first, each
 * request finds the 62 whole units of them (992 tokens) of its 1100,
 * and the prefix is held once however many requests run: a burst whose
 * whole prompts fill the cache ten times over runs together.
 */
static void test_shared_prefix(void **state)
{
	struct sim_engine on = engine(true, 1e6);
	struct sim_load l = poisson(10.0, 1000, 1100, 8);
	struct sim_result r, a, b;
	struct sim_engine small_off, small_on;

	(void)state;
	l.shared_prefix_tokens = 1000;
	r = run(&on, &l);
	assert_true(fabs(r.prefix_hit_rate - 992.0 / 1100.0) < 0.005);
	assert_true(r.prefix_hit_requests > 0.99);

	/* a burst of 64 requests, the cache 700 blocks: 10 whole prompts
	   of 69 blocks, or the prefix (62) and 64 x 8 blocks of their own */
	l.arrival = SIM_ARRIVAL_BURST;
	l.requests = 64;
	small_off = engine(false, 700);
	small_on = engine(true, 700);
	a = run(&small_off, &l);
	b = run(&small_on, &l);
	assert_true(b.mean_batch > 3.0 * a.mean_batch);
	assert_true(b.e2e_p99_s < a.e2e_p99_s);
}

/*
 * Conversations that pause 20 s between turns at 20 requests/s keep
 * about 100 conversations of some 1.3K tokens each waiting: a cache of
 * 2000 blocks (32K tokens) holds a quarter of them and loses most to
 * the requests in between; 100x the room holds them all.
 */
static void test_small_cache_thrashes(void **state)
{
	struct sim_engine big = engine(true, 2e5), small = engine(true, 2000);
	struct sim_load l = poisson(20.0, 3000, 1024, 100);
	struct sim_result a, b;

	(void)state;
	l.turns = 4;
	l.think_time_s = 20.0;
	l.turn_tokens_mean = 64;
	a = run(&big, &l);
	b = run(&small, &l);
	assert_true(a.prefix_hit_rate > 0.7);
	assert_true(b.prefix_hit_rate < 0.5 * a.prefix_hit_rate);
	assert_true(b.ttft_mean_s > a.ttft_mean_s);
}

/*
 * A session ends when its next turn would not fit the context: a burst
 * of 10 conversations (40 requests of 4 turns) with 200-token answers
 * and 100 new tokens a turn, in a context of 2000, has prompts of 1024,
 * 1324 and 1624 tokens; a fourth of 1924 + 200 does not fit: 30
 * requests.
 */
static void test_sessions_end_with_the_context(void **state)
{
	struct sim_engine on = engine(true, 1e6);
	struct sim_load l = poisson(1.0, 40, 1024, 200);
	struct sim_result r;

	(void)state;
	l.arrival = SIM_ARRIVAL_BURST;
	l.turns = 4;
	l.turn_tokens_mean = 100;
	l.max_context_tokens = 2000;
	r = run(&on, &l);
	assert_int_equal(r.sessions, 10);
	assert_int_equal(r.simulated_requests, 30);
	assert_true(r.prefix_hit_rate > 0.5);
}

/* A closed loop of conversations: each client runs one after another;
   the same seed gives the same run. */
static void test_closed_sessions_deterministic(void **state)
{
	struct sim_engine on = engine(true, 5e4);
	struct sim_load l = poisson(1.0, 800, 512, 64);
	struct sim_result a, b;

	(void)state;
	l.arrival = SIM_ARRIVAL_CLOSED;
	l.concurrency = 16;
	l.turns = 3;
	l.think_time_s = 0.2;
	l.turn_tokens_mean = 32;
	l.length_dist = SIM_LEN_EXPONENTIAL;
	a = run(&on, &l);
	b = run(&on, &l);
	assert_int_equal(a.simulated_requests, 800);
	assert_true(a.prefix_hit_rate > 0.3);
	assert_true(a.ttft_p99_s == b.ttft_p99_s);
	assert_true(a.prefix_hit_rate == b.prefix_hit_rate);
	assert_int_equal(a.sessions, b.sessions);
}

/*
 * Four replicas: routed to the least loaded, a later turn finds its
 * history only where it happens to land (about one time in four);
 * routed by session, as a cache-aware router does, it finds it as on one
 * replica.
 */
static void test_session_routing(void **state)
{
	struct sim_engine on = engine(true, 1e6);
	struct sim_load l = poisson(16.0, 2000, 1024, 2);
	struct sim_result spread, sticky;

	(void)state;
	l.turns = 4;
	l.think_time_s = 0.5;
	l.turn_tokens_mean = 1;
	spread = run_n(&on, 4, &l);
	l.session_routing = true;
	sticky = run_n(&on, 4, &l);
	assert_true(sticky.prefix_hit_rate > 0.72);
	assert_true(spread.prefix_hit_rate < 0.5 * sticky.prefix_hit_rate);
	assert_true(sticky.ttft_mean_s < spread.ttft_mean_s);
}

/*
 * The conversations of test_small_cache_thrashes with a host tier of
 * 1e5 blocks behind the GPU's 2000: evicted units wait there and come
 * back over a 32 GB/s link (the time of 1000 tokens at 128 kB each, 4 ms,
 * against 20 ms of prefill), so most of the hits return (a host hit is
 * still a hit) and the first token comes sooner than without the tier,
 * later than with the GPU room for it all.
 */
static void test_host_tier_recovers(void **state)
{
	struct sim_engine big = engine(true, 2e5), small = engine(true, 2000),
			  tier = engine(true, 2000);
	struct sim_load l = poisson(20.0, 3000, 1024, 100);
	struct sim_result a, b, c;

	(void)state;
	l.turns = 4;
	l.think_time_s = 20.0;
	l.turn_tokens_mean = 64;
	tier.offload_blocks = 1e5;
	tier.offload_block_bytes = 16 * 131072.0;
	tier.offload_bw_bytes_per_s = 32e9;
	tier.offload_latency_s = 10e-6;
	a = run(&big, &l);
	b = run(&small, &l);
	c = run(&tier, &l);
	assert_true(c.prefix_hit_rate > 0.9 * a.prefix_hit_rate);
	assert_true(c.offload_hit_rate > 0.5 * c.prefix_hit_rate);
	assert_true(b.offload_hit_rate == 0.0);
	assert_true(c.offload_load_mean_s > 1e-3);
	assert_true(c.ttft_mean_s < b.ttft_mean_s);
	assert_true(c.ttft_mean_s > a.ttft_mean_s);
}

/*
 * A trace that names its prompts' 512-token blocks (Mooncake's
 * hash_ids): every request's first three blocks are the same, its fourth
 * its own; after the first, each finds 1536 of its 2000 tokens.
 */
static void test_trace_block_ids(void **state)
{
	static uint64_t ids[40][4];
	struct sim_request t[40];
	struct sim_engine on = engine(true, 1e6);
	struct sim_load l = poisson(1.0, 0, 1, 1);
	struct sim_result r;

	(void)state;
	memset(t, 0, sizeof(t));
	for (int i = 0; i < 40; i++) {
		ids[i][0] = 0;
		ids[i][1] = 1;
		ids[i][2] = 2;
		ids[i][3] = 100 + (uint64_t)i;
		t[i].arrival_s = 0.5 * i;
		t[i].prompt_tokens = 2000;
		t[i].output_tokens = 20;
		t[i].hash_ids = ids[i];
		t[i].n_hash_ids = 4;
		t[i].hash_block_tokens = 512;
	}
	l.arrival = SIM_ARRIVAL_TRACE;
	l.trace = t;
	l.trace_len = 40;
	r = run(&on, &l);
	assert_true(fabs(r.prefix_hit_rate - 39.0 / 40.0 * 1536.0 / 2000.0) <
		    1e-9);
	assert_true(fabs(r.prefix_hit_requests - 39.0 / 40.0) < 1e-9);
}

/*
 * The same conversations with a small host tier (1000 blocks) over a
 * storage tier (1e5 blocks, 4 GB/s): what host memory lets go is found
 * in storage, so the hits return, the storage's share of them the
 * larger, and the copies take longer than from host memory alone.
 */
static void test_storage_tier(void **state)
{
	struct sim_engine host = engine(true, 2000), both = engine(true, 2000);
	struct sim_load l = poisson(20.0, 3000, 1024, 100);
	struct sim_result a, b;

	(void)state;
	l.turns = 4;
	l.think_time_s = 20.0;
	l.turn_tokens_mean = 64;
	host.offload_blocks = 1000;
	host.offload_block_bytes = 16 * 131072.0;
	host.offload_bw_bytes_per_s = 32e9;
	both = host;
	both.storage_blocks = 1e5;
	both.storage_bw_bytes_per_s = 4e9;
	a = run(&host, &l);
	b = run(&both, &l);
	assert_true(a.storage_hit_rate == 0.0);
	assert_true(b.prefix_hit_rate > 2.0 * a.prefix_hit_rate);
	assert_true(b.storage_hit_rate > b.offload_hit_rate);
	assert_true(b.offload_load_mean_s > a.offload_load_mean_s);
}

/*
 * Prompts of 1100 tokens behind a 1000-token prefix: one prefix for all
 * is found by nearly every request; 200 different ones (prefix_groups)
 * do not fit a cache of 2000 blocks (200 x 62) and are mostly lost
 * between two requests of the same group.
 */
static void test_prefix_groups(void **state)
{
	struct sim_engine on = engine(true, 2000);
	struct sim_load l = poisson(10.0, 2000, 1100, 8);
	struct sim_result one, many;

	(void)state;
	l.shared_prefix_tokens = 1000;
	one = run(&on, &l);
	l.prefix_groups = 200;
	many = run(&on, &l);
	assert_true(one.prefix_hit_rate > 0.85);
	assert_true(many.prefix_hit_rate < 0.5 * one.prefix_hit_rate);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nothing_found_changes_nothing),
		cmocka_unit_test(test_turns_hit_their_history),
		cmocka_unit_test(test_shared_prefix),
		cmocka_unit_test(test_small_cache_thrashes),
		cmocka_unit_test(test_sessions_end_with_the_context),
		cmocka_unit_test(test_closed_sessions_deterministic),
		cmocka_unit_test(test_session_routing),
		cmocka_unit_test(test_host_tier_recovers),
		cmocka_unit_test(test_trace_block_ids),
		cmocka_unit_test(test_storage_tier),
		cmocka_unit_test(test_prefix_groups),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
