/* test_serve_sim.c - the serving simulator against closed forms and
   invariants: M/D/1 waits, Little's law, saturation, overload, the KV
   cache and preemption, chunked prefill, decode rounds, routing, lengths,
   errors and determinism (cmocka), step by step (sim_load.no_shortcuts).
   The step model is the test's own (a fixed time, or c0 + c1 * tokens),
   so that every expected value follows by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <string.h>

#include "serve_sim.h"

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

/* ------------------------------------------------------------------
 * The step model: c0 + c1 * (the tokens a step schedules: its prompt
 * tokens and one per decoding sequence), which records the mixes it is
 * asked for.
 */

#define REC_STEPS 16

struct rec {
	double c0, c1;
	long long calls;
	struct sim_mix first[REC_STEPS]; /* the first steps' mixes */
	struct sim_mix sum;              /* every step's, summed */
	double max_decode_ctx;           /* the largest decode_ctx_tokens */
};

static struct rec rec_linear(double c0, double c1)
{
	struct rec r;

	memset(&r, 0, sizeof(r));
	r.c0 = c0;
	r.c1 = c1;
	return r;
}

static struct rec rec_fixed(double s)
{
	return rec_linear(s, 0.0);
}

static double rec_step(void *ctx, const struct sim_mix *m)
{
	struct rec *r = ctx;

	if (r->calls < REC_STEPS)
		r->first[r->calls] = *m;
	r->calls++;
	r->sum.prefill_tokens += m->prefill_tokens;
	r->sum.prefill_attn_pairs += m->prefill_attn_pairs;
	r->sum.prefill_seqs += m->prefill_seqs;
	r->sum.decode_seqs += m->decode_seqs;
	r->sum.decode_ctx_tokens += m->decode_ctx_tokens;
	r->sum.logit_rows += m->logit_rows;
	r->max_decode_ctx = fmax(r->max_decode_ctx, m->decode_ctx_tokens);
	return r->c0 + r->c1 * (m->prefill_tokens + m->decode_seqs);
}

/* An engine with room for everything: max_batch sequences, a 2048-token
   step budget, a KV cache that never fills, one decode step per round. */
static struct sim_engine engine(int max_batch, bool chunked)
{
	struct sim_engine e;

	memset(&e, 0, sizeof(e));
	e.max_batch = max_batch;
	e.max_batched_tokens = 2048;
	e.chunked_prefill = chunked;
	e.kv_block_tokens = 16;
	e.kv_blocks = 1e6;
	e.scheduler_steps = 1;
	return e;
}

static struct sim_load load(enum sim_arrival a, int requests, double prompt,
			    double output)
{
	struct sim_load l;

	memset(&l, 0, sizeof(l));
	l.arrival = a;
	l.requests = requests;
	l.length_dist = SIM_LEN_FIXED;
	l.prompt_tokens_mean = prompt;
	l.output_tokens_mean = output;
	l.max_context_tokens = 1 << 20;
	l.seed = 7;
	/* the step model sees every step once, as the steps run (a cruise
	   plans some ahead: test_sim_cruise.c shows it changes nothing) */
	l.no_shortcuts = true;
	return l;
}

static struct sim_load trace_load(const struct sim_request *t, size_t n)
{
	struct sim_load l = load(SIM_ARRIVAL_TRACE, 0, 1.0, 1.0);

	l.trace = t;
	l.trace_len = n;
	return l;
}

static void run_ok(const struct sim_engine *e, int replicas,
		   const struct sim_load *l, struct rec *rc,
		   struct sim_result *r)
{
	struct diag err;

	diag_clear(&err);
	if (sim_run(e, replicas, l, rec_step, rc, r, &err) != 0) {
		print_error("sim_run: %s\n", err.msg);
		fail();
	}
	assert_false(diag_has_error(&err));
	assert_int_equal(r->steps, rc->calls);
}

static void run_fails_with(const struct sim_engine *e, int replicas,
			   const struct sim_load *l, sim_step_fn step,
			   void *ctx, const char *want)
{
	struct sim_result r;
	struct diag err;

	diag_clear(&err);
	assert_int_equal(sim_run(e, replicas, l, step, ctx, &r, &err), -1);
	if (!strstr(err.msg, want)) {
		print_error("message '%s' lacks '%s'\n", err.msg, want);
		fail();
	}
	/* nothing half-filled */
	assert_int_equal(r.steps, 0);
	assert_int_equal(r.simulated_requests, 0);
}

static void run_fails(const struct sim_engine *e, int replicas,
		      const struct sim_load *l, const char *want)
{
	struct rec rc = rec_fixed(0.01);

	run_fails_with(e, replicas, l, rec_step, &rc, want);
}

/* ------------------------------------------------------------------
 * 1. M/D/1
 */

/*
 * One sequence at a time (max_batch 1), one prompt token and one output
 * token: every request is one prefill step of a fixed S, a deterministic
 * server.  Poisson arrivals at lambda = rho / S.  Pollaczek-Khinchine
 * with a service of variance 0:
 *   Wq = lambda E[S^2] / (2 (1 - rho)) = rho S / (2 (1 - rho)).
 * The wait runs from arrival to admission and the request ends with its
 * prefill step, so TTFT = e2e = wait + S for every request, exactly; the
 * server works n S in all and a fraction rho of the time.
 * Tolerance: over 40 seeds the mean wait of a run spreads with a standard
 * deviation of 1.0% at rho 0.5 with 200,000 requests and 0.95% at rho 0.8
 * with 500,000 (a busy queue's waits are correlated over about
 * 1 / (1 - rho)^2 requests, so the spread falls as 1 / sqrt(n) only past
 * that); the tolerance is four of those.  M/M/1 (Wq = rho S / (1 - rho))
 * is twice as much.
 */
static void md1(double rho, int n, double tol)
{
	const double s = 0.0123;
	struct sim_engine e = engine(1, false);
	struct sim_load l = load(SIM_ARRIVAL_POISSON, n, 1.0, 1.0);
	struct rec rc = rec_fixed(s);
	struct sim_result r;

	l.rate_per_s = rho / s;
	run_ok(&e, 1, &l, &rc, &r);
	assert_rel(r.queue_wait_mean_s, rho * s / (2.0 * (1.0 - rho)), tol);
	assert_rel(r.ttft_mean_s, r.queue_wait_mean_s + s, 1e-9);
	assert_rel(r.e2e_mean_s, r.ttft_mean_s, 1e-12);
	assert_true(r.ttft_p50_s <= r.ttft_p90_s &&
		    r.ttft_p90_s <= r.ttft_p99_s);
	assert_true(r.ttft_p50_s >= s && r.queue_wait_p99_s > 0.0);
	/* no request has a second token: no TPOT (said by tpot_requests,
	   which the output turns into null rather than 0 s; issue 40) */
	assert_true(r.tpot_mean_s == 0.0 && r.tpot_p99_s == 0.0);
	assert_int_equal(r.tpot_requests, 0);
	assert_int_equal(r.steps, n);
	assert_int_equal(r.request_steps, n);
	assert_rel(r.mean_batch, 1.0, 1e-12);
	assert_rel(r.busy_fraction * r.duration_s, n * s, 1e-9);
	assert_rel(r.busy_fraction, rho, 0.01);
	assert_rel(r.request_throughput_per_s, l.rate_per_s, 0.015);
	assert_int_equal(r.simulated_requests, n);
	assert_int_equal(r.measured_requests, n - n / 10);
	assert_int_equal(r.preemptions, 0);
	assert_false(r.overloaded);
	/* the sums of the mixes: one token and one emitted token a step */
	assert_rel(rc.sum.prefill_tokens, n, 0.0);
	assert_rel(rc.sum.logit_rows, n, 0.0);
	assert_rel(rc.sum.decode_seqs, 0.0, 0.0);
}

static void test_md1_rho_05(void **state)
{
	(void)state;
	md1(0.5, 200000, 0.04);
}

static void test_md1_rho_08(void **state)
{
	(void)state;
	md1(0.8, 500000, 0.04);
}

/* ------------------------------------------------------------------
 * 2. Little's law
 */

/*
 * Little's law in the integral form that holds exactly over a whole run:
 * the running sequences, integrated over time, are the sum over requests
 * of their time from admission to completion (while none is preempted).
 * The result gives the integral as mean_batch x busy_fraction x replicas
 * x duration (running sequences per busy second, busy seconds), and the
 * sum as n (e2e mean - queue wait mean) when every request is measured:
 * a burst or a trace, which have no warm-up.
 */
static void assert_little_exact(const struct sim_result *r, int replicas)
{
	double area = r->mean_batch * r->busy_fraction * replicas *
		      r->duration_s;

	assert_int_equal(r->preemptions, 0);
	assert_int_equal(r->measured_requests, r->simulated_requests);
	assert_rel(area,
		   r->simulated_requests *
			   (r->e2e_mean_s - r->queue_wait_mean_s),
		   1e-9);
}

static void test_little_burst(void **state)
{
	(void)state;
	for (int chunked = 0; chunked <= 1; chunked++) {
		struct sim_engine e = engine(16, chunked);
		struct sim_load l = load(SIM_ARRIVAL_BURST, 400, 87.5, 23.5);
		struct rec rc = rec_linear(0.0071, 1.3e-5);
		struct sim_result r;

		l.length_dist = SIM_LEN_EXPONENTIAL;
		run_ok(&e, 3, &l, &rc, &r);
		assert_little_exact(&r, 3);
		assert_true(r.mean_batch > 8.0 && r.mean_batch <= 16.0);
		/* each emitted token is one logit row, each output token one
		   emitted token */
		assert_rel(rc.sum.logit_rows,
			   r.output_tokens_per_s * r.duration_s, 1e-9);
		assert_rel(r.request_throughput_per_s * r.duration_s, 400.0,
			   1e-12);
		/* and on a larger fleet */
		rc = rec_linear(0.0071, 1.3e-5);
		l.requests = 2000;
		run_ok(&e, 9, &l, &rc, &r);
		assert_little_exact(&r, 9);
		assert_rel(r.request_throughput_per_s * r.duration_s, 2000.0,
			   1e-12);
	}
}

/* A deterministic trace of 300 requests: gaps and lengths from a linear
   congruential generator (unround values, arrivals in order). */
static void make_trace(struct sim_request *t, size_t n, double gap_s)
{
	unsigned long x = 12345;
	double at = 0.25 * gap_s;

	for (size_t i = 0; i < n; i++) {
		x = (1103515245UL * x + 12345UL) % 2147483648UL;
		at += gap_s * (double)(x % 1000) / 500.0;
		t[i].arrival_s = at;
		t[i].prompt_tokens = 1 + (int)(x / 1000 % 700);
		t[i].output_tokens = 1 + (int)(x / 700000 % 90);
	}
}

static void test_little_trace(void **state)
{
	struct sim_request t[300];

	(void)state;
	make_trace(t, N(t), 0.02);
	for (int chunked = 0; chunked <= 1; chunked++) {
		struct sim_engine e = engine(8, chunked);
		struct sim_load l = trace_load(t, N(t));
		struct rec rc = rec_linear(0.0071, 1.3e-5);
		struct sim_result r;
		double in = 0.0, out = 0.0;

		run_ok(&e, 2, &l, &rc, &r);
		assert_little_exact(&r, 2);
		/* the trace's lengths, as they are */
		for (size_t i = 0; i < N(t); i++) {
			in += t[i].prompt_tokens;
			out += t[i].output_tokens;
		}
		assert_rel(rc.sum.prefill_tokens, in, 0.0);
		assert_rel(rc.sum.logit_rows, out, 0.0);
		/* the window: first arrival to last completion */
		assert_rel(r.input_tokens_per_s * r.duration_s, in, 1e-9);
		assert_int_equal(r.simulated_requests, 300);
	}
}

/*
 * Poisson: the arrival rate is the throughput below capacity, and the
 * time-average of running sequences is lambda x (e2e - wait), within the
 * statistical error of 45,000 measured requests and the edges of the
 * window (the warm-up and the drain), about 1% here.
 */
static void test_little_poisson(void **state)
{
	struct sim_engine e = engine(8, true);
	struct sim_load l = load(SIM_ARRIVAL_POISSON, 50000, 87.5, 23.5);
	struct rec rc = rec_linear(0.0071, 1.3e-5);
	struct sim_result r;
	double running;

	(void)state;
	l.length_dist = SIM_LEN_EXPONENTIAL;
	/* with 8 running, a request takes 23.5 / 8 decode steps of 7.2 ms
	   and 1.1 ms of prefill: 45 requests per second at most; 30 is
	   about 2 / 3 of that */
	l.rate_per_s = 30.0;
	run_ok(&e, 1, &l, &rc, &r);
	assert_false(r.overloaded);
	assert_rel(r.request_throughput_per_s, 30.0, 0.02);
	running = r.mean_batch * r.busy_fraction;
	assert_rel(running,
		   r.request_throughput_per_s *
			   (r.e2e_mean_s - r.queue_wait_mean_s),
		   0.03);
	assert_rel(r.output_tokens_per_s, 30.0 * 23.5, 0.03);
	assert_rel(r.input_tokens_per_s, 30.0 * 87.5, 0.03);
}

/*
 * A closed loop of C clients without think time keeps C requests in the
 * system: throughput x mean e2e = C (Little), here with the queue (C > max
 * batch) and without.  Within 2%: the throughput's window has edges (the
 * warm-up, and the drain once the last request is out).
 */
static void test_little_closed(void **state)
{
	const int clients[] = { 5, 24 };

	(void)state;
	for (size_t i = 0; i < N(clients); i++) {
		struct sim_engine e = engine(16, false);
		struct sim_load l = load(SIM_ARRIVAL_CLOSED, 6000, 87.5, 23.5);
		struct rec rc = rec_linear(0.0071, 1.3e-5);
		struct sim_result r;

		l.length_dist = SIM_LEN_EXPONENTIAL;
		l.concurrency = clients[i];
		run_ok(&e, 1, &l, &rc, &r);
		assert_rel(r.request_throughput_per_s * r.e2e_mean_s,
			   clients[i], 0.02);
		assert_false(r.overloaded);
		if (clients[i] <= 16)
			assert_rel(r.queue_wait_mean_s, 0.0, 0.0);
		else
			assert_true(r.queue_wait_mean_s > 0.0);
	}
}

/*
 * A closed loop of C = max_batch clients with fixed lengths runs in lock
 * step: the C requests of a round arrive together when the previous round
 * ends, share every step, and end together: TTFT = S, e2e = O S, no wait,
 * throughput C / (O S).  (Requests that arrive at one instant share the
 * next step: a replica starts once all of them are routed.)
 */
static void test_closed_lock_step(void **state)
{
	const double s = 0.00731;
	const int c = 8, o = 5;

	(void)state;
	for (int chunked = 0; chunked <= 1; chunked++) {
		struct sim_engine e = engine(c, chunked);
		struct sim_load l = load(SIM_ARRIVAL_CLOSED, 800, 3.0, o);
		struct rec rc = rec_fixed(s);
		struct sim_result r;

		l.concurrency = c;
		run_ok(&e, 1, &l, &rc, &r);
		assert_rel(r.ttft_mean_s, s, 1e-12);
		assert_rel(r.ttft_p99_s, s, 1e-12);
		assert_rel(r.e2e_mean_s, o * s, 1e-12);
		assert_rel(r.tpot_mean_s, s, 1e-12);
		/* every measured request has a TPOT */
		assert_int_equal(r.tpot_requests, r.measured_requests);
		assert_rel(r.queue_wait_p99_s, 0.0, 0.0);
		assert_int_equal(r.steps, 800 / c * o);
		assert_rel(r.mean_batch, c, 1e-12);
		assert_rel(r.busy_fraction, 1.0, 1e-12);
		assert_rel(r.duration_s, 800 / c * o * s, 1e-12);
		/* the window counts whole rounds: within one round of 90 */
		assert_rel(r.request_throughput_per_s, c / (o * s), 1.0 / 80);
	}
}

/* ------------------------------------------------------------------
 * 3. Saturation
 */

/*
 * A burst of n = k B + b requests of one prompt token and O output tokens
 * (b < B) on max_batch B with a fixed step S.  All arrive at t = 0 and
 * share the first step; the batches then run in lock step, in either
 * mode: a step that prefills B prompts (their first tokens) and O - 1
 * decode steps, O steps for a batch, so
 *   steps = (k + 1) O, duration = (k + 1) O S,
 *   throughput = n / ((k + 1) O S)  (B / (O S) for b = 0),
 *   sequence-steps = n O, mean batch = n / (k + 1),
 *   TTFT of batch j = (j O + 1) S.
 */
static void test_saturation_fixed(void **state)
{
	const double s = 0.00731;
	const int b = 8, o = 17, k = 12, rest = 3, n = k * b + rest;
	double ttft = 0.0;

	(void)state;
	for (int j = 0; j <= k; j++)
		ttft += (j < k ? b : rest) * (j * o + 1) * s;
	ttft /= n;
	for (int chunked = 0; chunked <= 1; chunked++) {
		struct sim_engine e = engine(b, chunked);
		struct sim_load l = load(SIM_ARRIVAL_BURST, n, 1.0, o);
		struct rec rc = rec_fixed(s);
		struct sim_result r;

		run_ok(&e, 1, &l, &rc, &r);
		assert_int_equal(r.steps, (k + 1) * o);
		assert_rel(r.duration_s, (k + 1) * o * s, 1e-12);
		assert_rel(r.request_throughput_per_s, n / ((k + 1) * o * s),
			   1e-12);
		assert_rel(r.output_tokens_per_s, (double)n * o /
						  ((k + 1) * o * s), 1e-12);
		assert_int_equal(r.request_steps, n * o);
		assert_rel(r.mean_batch, (double)n / (k + 1), 1e-12);
		assert_rel(r.ttft_mean_s, ttft, 1e-12);
		assert_rel(r.tpot_mean_s, s, 1e-12);
		assert_rel(r.busy_fraction, 1.0, 1e-12);
		assert_false(r.overloaded); /* bursts are never overloaded */
		/* the first step prefills the first batch */
		assert_rel(rc.first[0].prefill_seqs, b, 0.0);
		assert_rel(rc.first[1].decode_seqs, b, 0.0);
	}
	/* full batches only: exactly B / (O S) */
	{
		struct sim_engine e = engine(b, false);
		struct sim_load l = load(SIM_ARRIVAL_BURST, k * b, 1.0, o);
		struct rec rc = rec_fixed(s);
		struct sim_result r;

		run_ok(&e, 1, &l, &rc, &r);
		assert_rel(r.request_throughput_per_s, b / (o * s), 1e-12);
	}
}

/*
 * The same with a step of c0 + c1 x tokens and prompts of P tokens
 * (B P within the step budget, so that a batch's prompts share one step):
 * a batch takes a step of B P tokens and O - 1 of B, so
 *   duration = k (O c0 + c1 B (P + O - 1)).
 * The mix of a decode step: B sequences whose contexts sum to
 * B (P + i) in the i-th decode step (i = 1 ...), so the decode contexts
 * of a batch sum to B ((O - 1) P + O (O - 1) / 2); the prompt of P tokens
 * has P^2 / 2 causal query-key pairs (half the square, as the closed-form
 * prefill of model_infer.c counts them).
 */
static void test_saturation_linear(void **state)
{
	const double c0 = 0.00537, c1 = 2.9e-5;
	const int b = 8, o = 11, p = 113, k = 9, n = k * b;

	(void)state;
	for (int chunked = 0; chunked <= 1; chunked++) {
		struct sim_engine e = engine(b, chunked);
		struct sim_load l = load(SIM_ARRIVAL_BURST, n, p, o);
		struct rec rc = rec_linear(c0, c1);
		struct sim_result r;
		double batch = o * c0 + c1 * b * (p + o - 1.0);

		run_ok(&e, 1, &l, &rc, &r);
		assert_rel(r.duration_s, k * batch, 1e-12);
		assert_rel(r.request_throughput_per_s, b / batch, 1e-12);
		assert_rel(r.ttft_mean_s,
			   (k - 1) / 2.0 * batch + c0 + c1 * b * p, 1e-12);
		assert_rel(rc.sum.prefill_tokens, (double)n * p, 0.0);
		assert_rel(rc.sum.prefill_attn_pairs, n * 0.5 * p * p, 1e-12);
		assert_rel(rc.sum.decode_seqs, (double)n * (o - 1), 0.0);
		assert_rel(rc.sum.decode_ctx_tokens,
			   (double)n * ((o - 1.0) * p + o * (o - 1.0) / 2.0),
			   1e-12);
		assert_rel(rc.sum.logit_rows, (double)n * o, 0.0);
		assert_rel(rc.first[0].prefill_tokens, b * p, 0.0);
		assert_rel(rc.first[1].decode_ctx_tokens, b * (p + 1.0), 0.0);
	}
}

/* ------------------------------------------------------------------
 * 4. Overload
 */

/*
 * M/D/1 at rho = 2: the server completes request i at about (i + 1) S
 * while it arrives at about i S / 2, so TTFT_i = S (i / 2 + 1) grows with
 * the run, and its p99 over the measured 90% (request i = 0.991 n) is
 * about 0.4955 n S: four times as much with four times the requests.
 * The arrival of request i has a relative spread of 1 / sqrt(i), 2.2% at
 * n = 2000.  At rho = 0.5 the p99 is a property of the queue and does not
 * grow.
 */
static void overload_run(double rho, int n, struct sim_result *r)
{
	const double s = 0.0123;
	struct sim_engine e = engine(1, false);
	struct sim_load l = load(SIM_ARRIVAL_POISSON, n, 1.0, 1.0);
	struct rec rc = rec_fixed(s);

	l.rate_per_s = rho / s;
	l.seed = 3;
	run_ok(&e, 1, &l, &rc, r);
}

static void test_overload(void **state)
{
	const double s = 0.0123;
	struct sim_result a, b;

	(void)state;
	overload_run(2.0, 2000, &a);
	overload_run(2.0, 8000, &b);
	assert_true(a.overloaded);
	assert_true(b.overloaded);
	assert_rel(a.ttft_p99_s, 0.4955 * 2000 * s, 0.08);
	assert_rel(b.ttft_p99_s, 0.4955 * 8000 * s, 0.04);
	assert_rel(b.ttft_p99_s / a.ttft_p99_s, 4.0, 0.1);
	/* the server never rests; it completes a request a step, not as
	   many as arrive */
	assert_rel(b.busy_fraction, 1.0, 0.01);
	assert_true(b.request_throughput_per_s < 1.01 / s);

	overload_run(0.5, 2000, &a);
	overload_run(0.5, 8000, &b);
	assert_false(a.overloaded);
	assert_false(b.overloaded);
	assert_true(b.ttft_p99_s / a.ttft_p99_s > 0.75 &&
		    b.ttft_p99_s / a.ttft_p99_s < 1.33);
	assert_true(b.ttft_p99_s < 10.0 * s);
}

/* Closed loops and bursts queue by design: never overloaded. */
static void test_overload_only_poisson(void **state)
{
	struct sim_engine e = engine(1, false);
	struct sim_load l = load(SIM_ARRIVAL_CLOSED, 2000, 1.0, 1.0);
	struct rec rc = rec_fixed(0.01);
	struct sim_result r;

	(void)state;
	l.concurrency = 1000;
	run_ok(&e, 1, &l, &rc, &r);
	assert_false(r.overloaded);
	assert_true(r.queue_wait_mean_s > 100 * 0.01);
}

/* ------------------------------------------------------------------
 * 5. KV cache
 */

/*
 * 64 requests of 40 + 100 tokens, 16 at a time, blocks of 16 tokens: a
 * sequence ends with 139 tokens in 9 blocks, 16 of them need 144.  In 60
 * blocks the latest admitted sequences are preempted and prefill their
 * prompt and the tokens they generated again (recompute).  Exact
 * accounting without chunking (a preempted sequence was decoding): every
 * output token is emitted once (logit rows n O), each preemption adds a
 * prefill (prefill sequences n + preemptions) and takes a decode step off
 * (decode sequences n O - n - preemptions); the recomputed tokens are
 * prefilled again.  The decoding contexts never exceed the cache.  With
 * 144 blocks nothing is preempted.
 */
static void test_kv_preemption(void **state)
{
	const int n = 64, p = 40, o = 100;

	(void)state;
	for (int chunked = 0; chunked <= 1; chunked++) {
		struct sim_engine e = engine(16, chunked);
		struct sim_load l = load(SIM_ARRIVAL_BURST, n, p, o);
		struct rec rc = rec_fixed(0.01);
		struct sim_result r;

		e.kv_blocks = 60;
		run_ok(&e, 1, &l, &rc, &r);
		assert_true(r.preemptions > 0);
		assert_int_equal(r.measured_requests, n);
		assert_rel(r.output_tokens_per_s * r.duration_s, n * o, 1e-12);
		assert_rel(rc.sum.logit_rows, n * o, 0.0);
		assert_true(rc.sum.prefill_tokens > n * p);
		assert_true(rc.max_decode_ctx <= 60 * 16);
		assert_true(rc.max_decode_ctx > 0.8 * 60 * 16);
		assert_true(r.kv_utilization > 0.5 && r.kv_utilization <= 1.0);
		assert_int_equal(r.request_steps,
				 (long long)(rc.sum.prefill_seqs +
					     rc.sum.decode_seqs));
		if (!chunked) {
			assert_rel(rc.sum.prefill_seqs, n + r.preemptions, 0.0);
			assert_rel(rc.sum.decode_seqs,
				   (double)n * o - n - r.preemptions, 0.0);
		}
		/* every request ran: its tokens per output token */
		assert_true(r.tpot_mean_s >= 0.01);

		rc = rec_fixed(0.01);
		e.kv_blocks = 144;
		run_ok(&e, 1, &l, &rc, &r);
		assert_int_equal(r.preemptions, 0);
		assert_rel(rc.sum.prefill_tokens, n * p, 0.0);
		assert_rel(rc.sum.decode_seqs, n * (o - 1.0), 0.0);
	}
}

/*
 * Preemption by hand: blocks of 4 tokens, a cache of 5 blocks, requests A
 * (5 + 8 tokens) and B (5 + 9) at t = 0, a fixed step S.  Step 1 prefills
 * both (2 blocks each: 4).  Decode steps 2-4 take their contexts from 5 to
 * 8 tokens in the blocks they hold; step 5 would open a block for each
 * (6 > 5), so B, the latest admitted, is preempted: its 2 blocks go back,
 * and it has 5 of its 9 tokens to go, after 8 in the cache plus the one
 * generated last (9 to prefill again).  A decodes alone to the end of
 * step 8 (8 tokens: TTFT S, e2e 8 S) and frees its 3 blocks; step 9
 * prefills B's 9 tokens (3 blocks: 3 + 3 > 5 did not fit before) and
 * emits its next token, steps 10-13 the last 4 (e2e 13 S, TPOT 12 S / 8).
 * Prefilled: 5 + 5 + 9 = 19 tokens; decode sequences 3 x 2 + 4 + 4 = 14;
 * the largest decode context, step 4: 2 x 8.  The same with chunks (the
 * prompts fit one step).
 */
static void test_kv_preemption_by_hand(void **state)
{
	const double s = 0.0137;
	struct sim_request t[2] = { REQ(0.0, 5, 8), REQ(0.0, 5, 9) };

	(void)state;
	for (int chunked = 0; chunked <= 1; chunked++) {
		struct sim_engine e = engine(2, chunked);
		struct sim_load l = trace_load(t, 2);
		struct rec rc = rec_fixed(s);
		struct sim_result r;

		e.kv_block_tokens = 4;
		e.kv_blocks = 5;
		run_ok(&e, 1, &l, &rc, &r);
		assert_int_equal(r.preemptions, 1);
		assert_int_equal(r.steps, 13);
		assert_rel(r.duration_s, 13 * s, 1e-12);
		assert_rel(r.ttft_mean_s, s, 1e-12);
		/* the wait is to the first admission */
		assert_rel(r.queue_wait_p99_s, 0.0, 0.0);
		assert_rel(r.e2e_mean_s, (8 + 13) / 2.0 * s, 1e-12);
		assert_rel(r.tpot_mean_s, (1.0 + 1.5) / 2 * s, 1e-12);
		assert_rel(r.tpot_p99_s, (1.0 + 0.99 * 0.5) * s, 1e-12);
		assert_rel(rc.sum.prefill_tokens, 19, 0.0);
		assert_rel(rc.sum.prefill_seqs, 3, 0.0);
		assert_rel(rc.sum.decode_seqs, 14, 0.0);
		assert_rel(rc.sum.logit_rows, 17, 0.0);
		assert_rel(rc.max_decode_ctx, 16, 0.0);
		/* step 5 decodes A alone; step 9 prefills B again (9 tokens:
		   4.5 pairs per token), with nothing decoding */
		assert_rel(rc.first[4].decode_seqs, 1, 0.0);
		assert_rel(rc.first[4].decode_ctx_tokens, 9, 0.0);
		assert_rel(rc.first[8].prefill_tokens, 9, 0.0);
		assert_rel(rc.first[8].prefill_attn_pairs, 9 * 4.5, 0.0);
		assert_rel(rc.first[8].decode_seqs, 0, 0.0);
		/* the blocks in use: 4 of 5 in steps 1-4, 3 in 5-8, 3 in
		   9-12 and 4 in 13, time-weighted */
		assert_rel(r.kv_utilization,
			   (4 * 4 + 4 * 3 + 4 * 3 + 1 * 4) / (13.0 * 5), 1e-12);
	}
}

/*
 * A sequence preempted in the middle of its prompt (chunked prefill):
 * blocks of 4 tokens, a cache of 3 blocks, a step budget of 4 tokens.
 * A (3 + 6 tokens) prefills in step 1 (1 block).  B (8 + 1) arrives at
 * S / 2 and is admitted in step 2 beside A's decode (2 more blocks: 3),
 * with a chunk of 4 - 1 = 3 tokens.  In step 3 A's context reaches 4 and
 * opens a block: none is left, so B, the latest admitted, is preempted
 * with 3 of its 8 tokens in the cache; it cannot come back (2 + 2 > 3)
 * while A runs.  A decodes alone to the end of step 6 (2 blocks, e2e
 * 6 S) and B prefills again from the start in steps 7 and 8, 4 tokens
 * each (no decode takes the budget): its first and only token at 8 S
 * (TTFT 7.5 S, wait 0.5 S to its first admission).
 */
static void test_kv_preemption_mid_prompt(void **state)
{
	const double s = 0.0137;
	struct sim_request t[2] = { REQ(0.0, 3, 6), REQ(0.5 * s, 8, 1) };
	struct sim_engine e = engine(2, true);
	struct sim_load l = trace_load(t, 2);
	struct rec rc = rec_fixed(s);
	struct sim_result r;

	(void)state;
	e.kv_block_tokens = 4;
	e.kv_blocks = 3;
	e.max_batched_tokens = 4;
	run_ok(&e, 1, &l, &rc, &r);
	assert_int_equal(r.preemptions, 1);
	assert_int_equal(r.steps, 8);
	assert_rel(r.duration_s, 8 * s, 1e-12);
	assert_rel(r.ttft_mean_s, (1.0 + 7.5) / 2 * s, 1e-12);
	assert_rel(r.e2e_mean_s, (6.0 + 7.5) / 2 * s, 1e-12);
	assert_rel(r.queue_wait_mean_s, 0.25 * s, 1e-12);
	assert_rel(r.tpot_mean_s, s, 1e-12);
	assert_rel(rc.sum.prefill_tokens, 3 + 3 + 4 + 4, 0.0);
	assert_rel(rc.sum.prefill_seqs, 4, 0.0);
	assert_rel(rc.sum.decode_seqs, 5, 0.0);
	assert_rel(rc.sum.logit_rows, 7, 0.0);
	assert_rel(rc.first[1].prefill_tokens, 3, 0.0);
	assert_rel(rc.first[2].prefill_tokens, 0, 0.0);
	/* B's chunks again from offset 0: 4 (0 + 2), then 4 (4 + 2) */
	assert_rel(rc.first[6].prefill_attn_pairs, 8, 0.0);
	assert_rel(rc.first[7].prefill_attn_pairs, 24, 0.0);
	assert_rel(rc.first[6].decode_seqs, 0, 0.0);
}

/* A request longer than a replica's cache can never run. */
static void test_kv_request_too_long(void **state)
{
	struct sim_request t[3] = {
		REQ(0.0, 100, 20), REQ(0.1, 900, 125), REQ(0.2, 10, 10)
	};
	struct sim_engine e = engine(4, false);
	struct sim_load l = trace_load(t, N(t));
	struct sim_load g = load(SIM_ARRIVAL_POISSON, 10, 1000.0, 100.0);

	(void)state;
	e.kv_blocks = 60;
	/* 1025 tokens in blocks of 16: 65 blocks */
	run_fails(&e, 1, &l, "request 2 needs 65 KV-cache blocks of 16 "
			     "tokens (900 + 125 tokens); a replica holds 60");
	/* so do drawn lengths: request 1 is the first of them */
	g.rate_per_s = 1.0;
	run_fails(&e, 1, &g, "request 1 needs 69 KV-cache blocks");
	/* the blocks of the longest request are enough */
	e.kv_blocks = 65;
	{
		struct rec rc = rec_fixed(0.01);
		struct sim_result r;

		run_ok(&e, 1, &l, &rc, &r);
		assert_int_equal(r.measured_requests, 3);
	}
}

/* ------------------------------------------------------------------
 * 6. Chunked prefill
 */

/*
 * One request of 5000 prompt tokens under a step budget of 2048, alone:
 * chunked, ceil(5000 / 2048) = 3 steps of 2048, 2048 and 904 tokens before
 * its first token (TTFT 3 S); the causal pairs of the chunks (c tokens at
 * offset o: c (o + c / 2)) add up to those of the whole prompt, 5000^2 / 2.
 * Whole prompts: one step, whatever its length (TTFT S).
 */
static void test_chunked_prefill_alone(void **state)
{
	const double s = 0.0137;
	struct sim_request t[1] = { REQ(0.0, 5000, 3) };

	(void)state;
	for (int chunked = 0; chunked <= 1; chunked++) {
		struct sim_engine e = engine(8, chunked);
		struct sim_load l = trace_load(t, 1);
		struct rec rc = rec_fixed(s);
		struct sim_result r;
		int pf = chunked ? 3 : 1;

		run_ok(&e, 1, &l, &rc, &r);
		assert_rel(r.ttft_mean_s, pf * s, 1e-12);
		assert_rel(r.e2e_mean_s, (pf + 2) * s, 1e-12);
		assert_rel(r.tpot_mean_s, s, 1e-12);
		assert_int_equal(r.steps, pf + 2);
		assert_rel(rc.sum.prefill_tokens, 5000, 0.0);
		assert_rel(rc.sum.prefill_attn_pairs, 0.5 * 5000 * 5000, 1e-12);
		assert_rel(rc.sum.prefill_seqs, pf, 0.0);
		if (chunked) {
			assert_rel(rc.first[0].prefill_tokens, 2048, 0.0);
			assert_rel(rc.first[1].prefill_tokens, 2048, 0.0);
			assert_rel(rc.first[2].prefill_tokens, 904, 0.0);
			assert_rel(rc.first[1].prefill_attn_pairs,
				   2048 * (2048 + 1024.0), 0.0);
			/* only the last chunk emits a token */
			assert_rel(rc.first[0].logit_rows, 0.0, 0.0);
			assert_rel(rc.first[2].logit_rows, 1.0, 0.0);
		} else {
			assert_rel(rc.first[0].prefill_tokens, 5000, 0.0);
		}
		/* then it decodes with 5000 + 1 and 5000 + 2 tokens */
		assert_rel(rc.first[pf].decode_ctx_tokens, 5001, 0.0);
		assert_rel(rc.first[pf + 1].decode_ctx_tokens, 5002, 0.0);
	}
}

/*
 * Request 1 (1 + 4 tokens) decodes when request 2 (5000 + 2 tokens)
 * arrives at S / 2.  Chunked: each step decodes request 1 and takes
 * 2048 - 1 = 2047 prompt tokens: chunks of 2047, 2047 and 906 in steps
 * 2-4; request 1 ends at 4 S (TPOT S), request 2's first token comes at
 * 4 S (TTFT 3.5 S).  Whole prompts: a prefill-only step at [S, 2 S]
 * stalls request 1, which then decodes three more steps to 5 S (TPOT
 * 4 S / 3); request 2's first token at 2 S (TTFT 1.5 S).
 */
static void test_chunked_prefill_with_decodes(void **state)
{
	const double s = 0.0137;
	struct sim_request t[2] = { REQ(0.0, 1, 4), REQ(0.5 * s, 5000, 2) };

	(void)state;
	for (int chunked = 0; chunked <= 1; chunked++) {
		struct sim_engine e = engine(8, chunked);
		struct sim_load l = trace_load(t, 2);
		struct rec rc = rec_fixed(s);
		struct sim_result r;

		run_ok(&e, 1, &l, &rc, &r);
		if (chunked) {
			assert_rel(r.ttft_mean_s, (1.0 + 3.5) / 2 * s, 1e-12);
			assert_rel(r.tpot_mean_s, s, 1e-12);
			assert_rel(rc.first[1].prefill_tokens, 2047, 0.0);
			assert_rel(rc.first[1].decode_seqs, 1, 0.0);
			assert_rel(rc.first[3].prefill_tokens, 906, 0.0);
			assert_int_equal(r.steps, 5);
		} else {
			assert_rel(r.ttft_mean_s, (1.0 + 1.5) / 2 * s, 1e-12);
			assert_rel(r.tpot_mean_s, (4.0 / 3.0 + 1.0) / 2 * s,
				   1e-12);
			assert_rel(rc.first[1].prefill_tokens, 5000, 0.0);
			assert_rel(rc.first[1].decode_seqs, 0, 0.0);
			assert_int_equal(r.steps, 5);
		}
		assert_rel(rc.sum.prefill_attn_pairs, 0.5 * (1 + 5000.0 * 5000),
			   1e-12);
	}
}

/*
 * Whole prompts share a prefill step within the budget: prompts of 900
 * tokens, two to a step of 2048 (the third would make 2700).
 */
static void test_prefill_budget(void **state)
{
	struct sim_engine e = engine(8, false);
	struct sim_load l = load(SIM_ARRIVAL_BURST, 5, 900, 1);
	struct rec rc = rec_fixed(0.01);
	struct sim_result r;

	(void)state;
	run_ok(&e, 1, &l, &rc, &r);
	assert_int_equal(r.steps, 3);
	assert_rel(rc.first[0].prefill_tokens, 1800, 0.0);
	assert_rel(rc.first[1].prefill_tokens, 1800, 0.0);
	assert_rel(rc.first[2].prefill_tokens, 900, 0.0);
	assert_rel(r.ttft_mean_s, (2 * 1 + 2 * 2 + 3) / 5.0 * 0.01, 1e-12);
}

/* ------------------------------------------------------------------
 * 7. Decode rounds
 */

/*
 * scheduler_steps k = 8: request 1 (1 + 40 tokens) prefills in [0, S]
 * and starts a round of 8 decode steps at S; request 2 arrives at 2.5 S
 * and is admitted when the round ends, at 9 S: wait 6.5 S, first token
 * at 10 S (TTFT 7.5 S).  With k = 1 it joins at the next step, 3 S.  A
 * round also ends with its sequences: if request 1 has 3 tokens, it ends
 * at 3 S and request 2 is admitted then.
 */
static void test_scheduler_steps(void **state)
{
	const double s = 0.0137;
	struct sim_request t[2] = { REQ(0.0, 1, 40), REQ(2.5 * s, 1, 2) };
	const struct {
		int k, out1;
		double wait2;
	} c[] = { { 8, 40, 6.5 }, { 1, 40, 0.5 }, { 8, 3, 0.5 } };

	(void)state;
	for (int chunked = 0; chunked <= 1; chunked++)
		for (size_t i = 0; i < N(c); i++) {
			struct sim_engine e = engine(8, chunked);
			struct sim_load l = trace_load(t, 2);
			struct rec rc = rec_fixed(s);
			struct sim_result r;

			e.scheduler_steps = c[i].k;
			t[0].output_tokens = c[i].out1;
			run_ok(&e, 1, &l, &rc, &r);
			/* the mean of request 1's 0 and request 2's wait */
			assert_rel(r.queue_wait_mean_s, c[i].wait2 / 2 * s,
				   1e-9);
			assert_rel(r.ttft_mean_s,
				   (1.0 + c[i].wait2 + 1.0) / 2 * s, 1e-9);
			/* the p99 of two: 0.99 of the way to the larger */
			assert_rel(r.queue_wait_p99_s, 0.99 * c[i].wait2 * s,
				   1e-9);
			/* request 1 is never stalled longer than a step */
			assert_true(r.tpot_p99_s <= 2.0 * s);
		}
}

/*
 * The server's front end (host_request_s = h): each replica's takes one
 * request at a time, in order of arrival, and hands it to the scheduler
 * h later.  Two one-token requests at t = 0 on one replica reach it at h
 * and 2 h: with h > s, TTFT h + s and 2 h + s.  On two replicas both
 * reach theirs at h.
 */
static void test_front_end(void **state)
{
	const double s = 0.0113, h = 0.0291;
	struct sim_request t[2] = { REQ(0.0, 1, 1), REQ(0.0, 1, 1) };

	(void)state;
	for (int chunked = 0; chunked <= 1; chunked++) {
		struct sim_engine e = engine(8, chunked);
		struct sim_load l = trace_load(t, 2);
		struct rec rc = rec_fixed(s);
		struct sim_result r;

		e.host_request_s = h;
		run_ok(&e, 1, &l, &rc, &r);
		assert_rel(r.ttft_mean_s, 1.5 * h + s, 1e-12);
		assert_rel(r.e2e_mean_s, r.ttft_mean_s, 1e-12);
		assert_rel(r.ttft_p99_s, h + s + 0.99 * h, 1e-12);
		/* the front end is no wait in the scheduler's queue */
		assert_rel(r.queue_wait_p99_s, 0.0, 0.0);
		rc = rec_fixed(s);
		run_ok(&e, 2, &l, &rc, &r);
		assert_rel(r.ttft_mean_s, h + s, 1e-12);
		assert_rel(r.ttft_p99_s, h + s, 1e-12);
	}
}

/*
 * The front end caps the request rate: a burst of N one-token requests
 * whose steps are short (s << h) is served in N h / c + s on c replicas,
 * at c / h requests per second, whatever the GPU.
 */
static void test_front_end_caps_rate(void **state)
{
	const double s = 1.3e-4, h = 0.0127;
	const int n = 240;

	(void)state;
	for (int c = 1; c <= 3; c++) {
		struct sim_engine e = engine(64, true);
		struct sim_load l = load(SIM_ARRIVAL_BURST, n, 1.0, 1.0);
		struct rec rc = rec_fixed(s);
		struct sim_result r;

		e.host_request_s = h;
		run_ok(&e, c, &l, &rc, &r);
		assert_rel(r.duration_s, n * h / c + s, 1e-9);
		assert_rel(r.request_throughput_per_s * r.duration_s, n, 1e-12);
		/* every request its own step: none waits for another */
		assert_int_equal(r.steps, n);
	}
}

/*
 * Host time of each scheduling round (host_step_s = u): one request of 9
 * tokens runs 9 steps; with rounds of k decode steps the host schedules
 * the prefill, then every k-th decode step: 9 rounds for k = 1, 1 + 2
 * for k = 4 (decode steps 1 and 5).  E2E 9 s + rounds u.
 */
static void test_host_step(void **state)
{
	const double s = 0.0097, u = 0.0031;
	struct sim_request t[1] = { REQ(0.0, 1, 9) };
	const struct {
		int k, rounds;
	} c[] = { { 1, 9 }, { 4, 3 }, { 16, 2 } };

	(void)state;
	for (int chunked = 0; chunked <= 1; chunked++)
		for (size_t i = 0; i < N(c); i++) {
			struct sim_engine e = engine(8, chunked);
			struct sim_load l = trace_load(t, 1);
			struct rec rc = rec_fixed(s);
			struct sim_result r;

			e.scheduler_steps = c[i].k;
			e.host_step_s = u;
			run_ok(&e, 1, &l, &rc, &r);
			assert_rel(r.ttft_mean_s, s + u, 1e-12);
			assert_rel(r.e2e_mean_s, 9.0 * s + c[i].rounds * u,
				   1e-12);
		}
}

/* ------------------------------------------------------------------
 * 8. Routing
 */

/*
 * Two requests at t = 0 on two replicas of max_batch 1 go one to each:
 * both first tokens after one step.  On one replica of max_batch 1 the
 * second waits a step; on one of max_batch 2 they share the step.
 */
static void test_routing(void **state)
{
	const double s = 0.0137;
	struct sim_request t[2] = { REQ(0.0, 1, 1), REQ(0.0, 1, 1) };
	const struct {
		int replicas, max_batch;
		double ttft_mean, steps;
	} c[] = { { 2, 1, 1.0, 2 }, { 1, 1, 1.5, 2 }, { 1, 2, 1.0, 1 } };

	(void)state;
	for (size_t i = 0; i < N(c); i++) {
		struct sim_engine e = engine(c[i].max_batch, false);
		struct sim_load l = trace_load(t, 2);
		struct rec rc = rec_fixed(s);
		struct sim_result r;

		run_ok(&e, c[i].replicas, &l, &rc, &r);
		assert_rel(r.ttft_mean_s, c[i].ttft_mean * s, 1e-12);
		assert_int_equal(r.steps, (long long)c[i].steps);
		assert_rel(r.busy_fraction,
			   c[i].steps / (c[i].replicas * r.duration_s / s),
			   1e-12);
	}
}

/*
 * Least outstanding, max_batch 1, three replicas: requests 1 and 2 (20
 * output tokens) at t = 0 go to replicas 1 and 2; request 3 at S / 2 to
 * the idle replica 3 (TTFT S), not behind a busy one.  Requests 4 and 5
 * at 0.7 S find one request on every replica: 4 goes to replica 1, which
 * now has two, so 5 goes to replica 2; each waits for its replica's long
 * request (done at 20 S) and ends at 21 S: TTFT 20.3 S.  Were both on one
 * replica, the second would end at 22 S.
 */
static void test_routing_least_outstanding(void **state)
{
	const double s = 0.0137;
	struct sim_request t[5] = { REQ(0.0, 1, 20), REQ(0.0, 1, 20),
				    REQ(0.5 * s, 1, 1), REQ(0.7 * s, 1, 1),
				    REQ(0.7 * s, 1, 1) };
	struct sim_engine e = engine(1, false);
	struct sim_load l = trace_load(t, 3);
	struct rec rc = rec_fixed(s);
	struct sim_result r;

	(void)state;
	run_ok(&e, 3, &l, &rc, &r);
	assert_rel(r.ttft_mean_s, s, 1e-12);
	assert_rel(r.duration_s, 20 * s, 1e-12);

	rc = rec_fixed(s);
	l = trace_load(t, 5);
	run_ok(&e, 3, &l, &rc, &r);
	assert_rel(r.ttft_p99_s, 20.3 * s, 1e-9);
	assert_rel(r.ttft_mean_s, (3 * 1.0 + 2 * 20.3) / 5 * s, 1e-9);
	assert_rel(r.duration_s, 21 * s, 1e-12);
}

/*
 * Least outstanding over round robin, max_batch 1, two replicas: request
 * 1 (1 + 20 tokens) goes to replica 1, request 2 (1 + 1) to replica 2,
 * which is idle again at S.  Request 3 at 2 S goes to replica 2, which
 * has none outstanding (TTFT S); round robin would put it behind request
 * 1 (TTFT 19 S).
 */
static void test_routing_not_round_robin(void **state)
{
	const double s = 0.0137;
	struct sim_request t[3] = { REQ(0.0, 1, 20), REQ(0.0, 1, 1),
				    REQ(2.0 * s, 1, 1) };
	struct sim_engine e = engine(1, false);
	struct sim_load l = trace_load(t, 3);
	struct rec rc = rec_fixed(s);
	struct sim_result r;

	(void)state;
	run_ok(&e, 2, &l, &rc, &r);
	assert_rel(r.ttft_p99_s, s, 1e-12);
	assert_rel(r.duration_s, 20 * s, 1e-12);
}

/*
 * Ties go round the fleet, max_batch 1, three replicas: request 1 (1 + 1
 * tokens) goes to replica 1, requests 2 and 3 (1 + 30) to replicas 2 and
 * 3, all at t = 0; request 4 (1 + 30) at 2 S to replica 1, idle again.
 * Request 5 (1 + 1) at 3 S finds one request on each: the scan starts
 * after replica 1, the last chosen, so it waits behind request 2 on
 * replica 2 (done at 30 S): TTFT 28 S.  From replica 1 it would wait for
 * request 4 (done at 32 S): TTFT 30 S.
 */
static void test_routing_ties(void **state)
{
	const double s = 0.0137;
	struct sim_request t[5] = { REQ(0.0, 1, 1), REQ(0.0, 1, 30),
				    REQ(0.0, 1, 30), REQ(2.0 * s, 1, 30),
				    REQ(3.0 * s, 1, 1) };
	struct sim_engine e = engine(1, false);
	struct sim_load l = trace_load(t, 5);
	struct rec rc = rec_fixed(s);
	struct sim_result r;

	(void)state;
	run_ok(&e, 3, &l, &rc, &r);
	/* the p99 of 1, 1, 1, 1, 28: 0.96 of the way from the 4th to the 5th */
	assert_rel(r.ttft_p99_s, (1.0 + 0.96 * 27.0) * s, 1e-9);
	assert_rel(r.ttft_mean_s, (4 * 1.0 + 28.0) / 5 * s, 1e-9);
	assert_rel(r.duration_s, 32 * s, 1e-12);
}

/* ------------------------------------------------------------------
 * 9. Lengths
 */

/*
 * With max_batch 1, whole prompts and a cache that never fills, a burst
 * runs one request after another: a prefill step of its P tokens, then
 * O - 1 decode steps.  The step model reads every request's lengths
 * from that.
 */
struct lengths {
	long long n;
	double sum_p, sum_o;
	int min_p, max_p, min_o, max_o, max_total;
	int p, o; /* the open request */
};

static void lengths_close(struct lengths *x)
{
	if (x->p == 0)
		return;
	x->n++;
	x->sum_p += x->p;
	x->sum_o += x->o;
	x->min_p = x->p < x->min_p ? x->p : x->min_p;
	x->max_p = x->p > x->max_p ? x->p : x->max_p;
	x->min_o = x->o < x->min_o ? x->o : x->min_o;
	x->max_o = x->o > x->max_o ? x->o : x->max_o;
	x->max_total = x->p + x->o > x->max_total ? x->p + x->o : x->max_total;
	x->p = 0;
}

static double lengths_step(void *ctx, const struct sim_mix *m)
{
	struct lengths *x = ctx;

	if (m->prefill_seqs > 0.0) {
		assert_true(m->prefill_seqs == 1.0 && m->decode_seqs == 0.0);
		lengths_close(x);
		x->p = (int)m->prefill_tokens;
		x->o = 1;
	} else {
		assert_true(m->decode_seqs == 1.0);
		x->o++;
	}
	return 1e-3;
}

static struct sim_load lengths_load(enum sim_length_dist dist, int n,
				    double p, double o, int context)
{
	struct sim_load l = load(SIM_ARRIVAL_BURST, n, p, o);

	l.length_dist = dist;
	l.max_context_tokens = context;
	l.seed = 5;
	return l;
}

/* Every request's lengths, one request at a time. */
static struct lengths draw_lengths(enum sim_length_dist dist, int n,
				   double p, double o, int context)
{
	struct sim_engine e = engine(1, false);
	struct sim_load l = lengths_load(dist, n, p, o, context);
	struct lengths x;
	struct sim_result r;
	struct diag err;

	memset(&x, 0, sizeof(x));
	x.min_p = x.min_o = INT_MAX;
	e.max_batched_tokens = INT_MAX;
	diag_clear(&err);
	if (sim_run(&e, 1, &l, lengths_step, &x, &r, &err) != 0) {
		print_error("sim_run: %s\n", err.msg);
		fail();
	}
	lengths_close(&x);
	assert_int_equal(x.n, n);
	/* the throughputs carry the same totals (a burst's window is the
	   whole run) */
	assert_rel(r.input_tokens_per_s * r.duration_s, x.sum_p, 1e-9);
	assert_rel(r.output_tokens_per_s * r.duration_s, x.sum_o, 1e-9);
	return x;
}

/* The mean lengths of many requests, all at once (a step for each token
   of the longest), from the throughputs. */
static void mean_lengths(enum sim_length_dist dist, int n, double p,
			 double o, int context, double *mean_p, double *mean_o)
{
	struct sim_engine e = engine(n, false);
	struct sim_load l = lengths_load(dist, n, p, o, context);
	struct rec rc = rec_fixed(1e-3);
	struct sim_result r;

	e.max_batched_tokens = INT_MAX;
	e.kv_blocks = 1e9;
	run_ok(&e, 1, &l, &rc, &r);
	*mean_p = r.input_tokens_per_s * r.duration_s / n;
	*mean_o = r.output_tokens_per_s * r.duration_s / n;
	assert_rel(rc.sum.prefill_tokens, *mean_p * n, 1e-9);
	assert_rel(rc.sum.logit_rows, *mean_o * n, 1e-9);
}

/*
 * Exponential: geometric lengths on 1, 2, ... with the given means (mean
 * mu, standard deviation sqrt(mu (mu - 1))).  50,000 draws: the sample
 * mean's relative error has a standard deviation of 1 / sqrt(50000) =
 * 0.45% at large means and 0.35% at a mean of 2.5; the tolerance is 2%.
 * An exponential rounded up (mean mu + 1/2, 3.0 for 2.5) is 20% off.
 */
static void test_lengths_exponential(void **state)
{
	struct lengths x;
	double p, o;

	(void)state;
	mean_lengths(SIM_LEN_EXPONENTIAL, 50000, 300, 50, 1 << 20, &p, &o);
	assert_rel(p, 300, 0.02);
	assert_rel(o, 50, 0.02);
	mean_lengths(SIM_LEN_EXPONENTIAL, 50000, 3, 2.5, 1 << 20, &p, &o);
	assert_rel(p, 3, 0.02);
	assert_rel(o, 2.5, 0.02);
	x = draw_lengths(SIM_LEN_EXPONENTIAL, 2000, 300, 50, 1 << 20);
	assert_true(x.min_p == 1 && x.min_o == 1);
	assert_true(x.max_p > 5 * 300); /* the tail of an exponential */
	/* a mean of one token: every length is 1 */
	x = draw_lengths(SIM_LEN_EXPONENTIAL, 100, 1, 1, 1 << 20);
	assert_true(x.max_p == 1 && x.max_o == 1);
	/* within the context: prompt plus output at most 1000, or 2 */
	x = draw_lengths(SIM_LEN_EXPONENTIAL, 2000, 300, 200, 1000);
	assert_true(x.max_total <= 1000 && x.min_p >= 1 && x.min_o >= 1);
	assert_true(x.max_total > 900);
	x = draw_lengths(SIM_LEN_EXPONENTIAL, 50, 50, 50, 2);
	assert_true(x.max_p == 1 && x.max_o == 1);
}

/*
 * ShareGPT-shaped: a log-normal within the bounds of the ShareGPT
 * samplers (at least 4 tokens each, prompts of at most 1024 and prompt
 * plus answer of at most 2048), its location matched to the mean.
 * Over 10 seeds of 20,000 at means 300 / 200 the prompt mean is within
 * 0.1% (standard deviation 0.4%) and the output mean 1.7% low (0.7%):
 * the answer's bound is 2048 minus its prompt, not the 2048 its location
 * is matched to.  Tolerance 3% with 50,000.
 */
static void test_lengths_sharegpt(void **state)
{
	struct lengths x;
	double p, o;

	(void)state;
	mean_lengths(SIM_LEN_SHAREGPT, 50000, 300, 200, 4096, &p, &o);
	assert_rel(p, 300, 0.03);
	assert_rel(o, 200, 0.03);
	x = draw_lengths(SIM_LEN_SHAREGPT, 2000, 300, 200, 4096);
	assert_true(x.min_p >= 4 && x.min_o >= 4);
	assert_true(x.max_p <= 1024 && x.max_total <= 2048);
	assert_true(x.max_p > 900); /* a long tail */

	/* a long prompt mean (at least half of 1024) keeps no prompt bound
	   but the total's: prompts leave room for an answer of 4 */
	mean_lengths(SIM_LEN_SHAREGPT, 50000, 700, 300, 4096, &p, &o);
	assert_rel(p, 700, 0.03);
	x = draw_lengths(SIM_LEN_SHAREGPT, 2000, 700, 300, 4096);
	assert_true(x.min_o >= 4 && x.max_total <= 2048);
	assert_true(x.max_p > 1024 && x.max_p <= 2044);

	/* a short context bounds them all */
	mean_lengths(SIM_LEN_SHAREGPT, 50000, 100, 100, 512, &p, &o);
	assert_rel(p, 100, 0.03);
	x = draw_lengths(SIM_LEN_SHAREGPT, 2000, 100, 100, 512);
	assert_true(x.max_total <= 512 && x.min_p >= 4 && x.min_o >= 4);

	/* no context: means beyond the ShareGPT bounds keep the shape
	   unbounded above (standard deviation of a mean of 50,000 draws:
	   sqrt(e - 1) / sqrt(50000) = 0.6%) */
	mean_lengths(SIM_LEN_SHAREGPT, 50000, 1500, 1300, 0, &p, &o);
	assert_rel(p, 1500, 0.03);
	assert_rel(o, 1300, 0.03);

	/* a mean below the shortest length: lengths of 4 and more */
	x = draw_lengths(SIM_LEN_SHAREGPT, 200, 2, 2, 1 << 20);
	assert_true(x.min_p >= 4 && x.min_o >= 4);
	/* a context of 8: 4 + 4 */
	x = draw_lengths(SIM_LEN_SHAREGPT, 200, 5, 5, 8);
	assert_true(x.max_total <= 8 && x.min_p >= 1 && x.min_o >= 1);
}

/* Fixed lengths are the means, rounded. */
static void test_lengths_fixed(void **state)
{
	struct lengths x;

	(void)state;
	x = draw_lengths(SIM_LEN_FIXED, 50, 37.4, 12.6, 1 << 20);
	assert_true(x.min_p == 37 && x.max_p == 37);
	assert_true(x.min_o == 13 && x.max_o == 13);
	/* longer than the context: shortened to it, the answer first */
	x = draw_lengths(SIM_LEN_FIXED, 5, 300, 200, 400);
	assert_true(x.max_p == 300 && x.max_o == 100);
	x = draw_lengths(SIM_LEN_FIXED, 5, 500, 200, 400);
	assert_true(x.max_p == 399 && x.max_o == 1);
}

/* ------------------------------------------------------------------
 * 10. Bad arguments
 */

static double step_zero(void *ctx, const struct sim_mix *m)
{
	(void)ctx;
	(void)m;
	return 0.0;
}

/* A step model that goes wrong at its third step. */
static double step_bad_third(void *ctx, const struct sim_mix *m)
{
	int *calls = ctx;

	(void)m;
	return ++*calls < 3 ? 0.01 : (double)NAN;
}

static double step_inf(void *ctx, const struct sim_mix *m)
{
	(void)ctx;
	(void)m;
	return HUGE_VAL;
}

static double step_negative(void *ctx, const struct sim_mix *m)
{
	(void)ctx;
	(void)m;
	return -0.01;
}

/* ------------------------------------------------------------------
 * Speculative decoding
 */

/* A step of a fixed time that records the draft tokens it is asked to
   verify. */
struct spec_rec {
	double s;
	long long calls, verify_calls;
	double verify_max, verify_per_seq_min, verify_per_seq_max;
};

static double spec_step(void *ctx, const struct sim_mix *m)
{
	struct spec_rec *r = ctx;

	r->calls++;
	if (m->verify_tokens > 0.0) {
		double per = m->verify_tokens / m->decode_seqs;

		r->verify_calls++;
		r->verify_max = fmax(r->verify_max, m->verify_tokens);
		r->verify_per_seq_min = r->verify_calls == 1 ?
						per :
						fmin(r->verify_per_seq_min, per);
		r->verify_per_seq_max = fmax(r->verify_per_seq_max, per);
	}
	return r->s;
}

static struct sim_result spec_run(int gamma, double alpha, double c,
				  int output, struct spec_rec *rec)
{
	struct sim_engine e = engine(1, false);
	struct sim_load l = load(SIM_ARRIVAL_BURST, 1, 16.0, output);
	struct sim_result r;
	struct diag err;

	e.speculative_tokens = gamma;
	e.acceptance_rate = alpha;
	e.draft_cost_ratio = c;
	memset(rec, 0, sizeof(*rec));
	rec->s = 0.01;
	diag_clear(&err);
	if (sim_run(&e, 1, &l, spec_step, rec, &r, &err) != 0) {
		print_error("sim_run: %s\n", err.msg);
		fail();
	}
	return r;
}

/*
 * One sequence, a step of a fixed T whatever it runs.  A decode step then
 * costs T for the target and gamma c T for the draft (its first pass and
 * gamma - 1 more), and gives 1 + (drafts accepted) tokens, whose mean is
 * (1 - alpha^(gamma + 1)) / (1 - alpha) (Leviathan et al. 2023, eq. 1):
 *   TPOT = T (1 + gamma c) (1 - alpha) / (1 - alpha^(gamma + 1)),
 * their theorem 3.8 for the walltime per token.  With alpha 1 every step
 * gives gamma + 1 tokens and with alpha 0 one, exactly.  At alpha 0.8 a
 * step gives 3.36 tokens with a variance of 2.57 tokens^2; over 200,000
 * tokens (59,500 steps) the mean spreads by sqrt(2.57 / 59500) / 3.36 =
 * 0.2%, and the tolerance is four of those.
 */
static void test_speculative_leviathan(void **state)
{
	const double t = 0.01;
	struct spec_rec rec;
	struct sim_result r;
	double e;

	(void)state;
	r = spec_run(4, 1.0, 0.05, 20001, &rec);
	/* the prefill step, then 20000 / 5 decode steps */
	assert_rel(r.ttft_mean_s, t, 1e-12);
	assert_rel(r.tpot_mean_s, 4000.0 * t * (1.0 + 4 * 0.05) / 20000.0,
		   1e-9);
	assert_int_equal(r.steps, 4001);
	/* each decode step: the target's verification and one draft pass */
	assert_int_equal(rec.calls, 1 + 2 * 4000);
	assert_int_equal(rec.verify_calls, 4000);
	assert_rel(rec.verify_max, 4.0, 0.0);

	r = spec_run(4, 0.0, 0.05, 20001, &rec);
	assert_rel(r.tpot_mean_s, t * (1.0 + 4 * 0.05), 1e-9);
	assert_int_equal(r.steps, 20001);

	r = spec_run(4, 0.8, 0.05, 200001, &rec);
	e = (1.0 - pow(0.8, 5)) / (1.0 - 0.8);
	assert_rel(r.tpot_mean_s, t * (1.0 + 4 * 0.05) / e, 0.008);

	/* without speculation the same run is one token a step */
	r = spec_run(0, 0.8, 0.05, 20001, &rec);
	assert_rel(r.tpot_mean_s, t, 1e-9);
	assert_int_equal(rec.verify_calls, 0);
	assert_int_equal(rec.calls, 20001);
}

/*
 * Under load with mixed steps: every decode step verifies gamma drafts
 * per decoding sequence, and the draft passes verify none.  The tokens
 * emitted in the Poisson window are the requests' (a sequence that ends
 * inside a step emits only the tokens it still needed), so the output
 * rate is the offered one, as without speculation (test_little_poisson).
 */
static void test_speculative_under_load(void **state)
{
	struct sim_engine e = engine(8, true);
	struct sim_load l = load(SIM_ARRIVAL_POISSON, 50000, 87.5, 23.5);
	struct spec_rec rec;
	struct sim_result r, plain;
	struct diag err;

	(void)state;
	l.length_dist = SIM_LEN_EXPONENTIAL;
	l.rate_per_s = 30.0;
	memset(&rec, 0, sizeof(rec));
	rec.s = 0.0072;
	diag_clear(&err);
	assert_int_equal(sim_run(&e, 1, &l, spec_step, &rec, &plain, &err), 0);
	e.speculative_tokens = 3;
	e.acceptance_rate = 0.7;
	e.draft_cost_ratio = 0.1;
	memset(&rec, 0, sizeof(rec));
	rec.s = 0.0072;
	assert_int_equal(sim_run(&e, 1, &l, spec_step, &rec, &r, &err), 0);
	assert_false(r.overloaded);
	assert_rel(r.output_tokens_per_s, 30.0 * 23.5, 0.03);
	assert_rel(r.request_throughput_per_s, 30.0, 0.02);
	assert_rel(rec.verify_per_seq_min, 3.0, 0.0);
	assert_rel(rec.verify_per_seq_max, 3.0, 0.0);
	/* a step costs 1 + 3 * 0.1 = 1.3 steps and gives 2.19 tokens on
	   average: each token is about 0.6 of a step */
	assert_true(r.tpot_mean_s < 0.75 * plain.tpot_mean_s);
	assert_true(r.tpot_mean_s > 0.45 * plain.tpot_mean_s);
}

/*
 * A KV cache of 40 blocks of 4 tokens for 8 sequences of 4 + 60 tokens
 * (16 blocks each at the end): speculation opens up to gamma + 1 = 5
 * tokens' blocks a step, more than one block per sequence at times;
 * sequences are preempted and recomputed, every request ends, and the
 * cache is never over-full (utilization at most 1).
 */
static void test_speculative_kv(void **state)
{
	struct sim_engine e = engine(8, true);
	struct sim_load l = load(SIM_ARRIVAL_BURST, 8, 4.0, 60.0);
	struct spec_rec rec;
	struct sim_result r;
	struct diag err;

	(void)state;
	e.kv_block_tokens = 4;
	e.kv_blocks = 40.0;
	e.speculative_tokens = 4;
	e.acceptance_rate = 0.9;
	e.draft_cost_ratio = 0.05;
	memset(&rec, 0, sizeof(rec));
	rec.s = 0.01;
	diag_clear(&err);
	assert_int_equal(sim_run(&e, 1, &l, spec_step, &rec, &r, &err), 0);
	assert_true(r.preemptions > 0);
	assert_int_equal(r.measured_requests, 8);
	assert_true(r.kv_utilization > 0.5 && r.kv_utilization <= 1.0);
	assert_true(r.e2e_p99_s > 0.0 && isfinite(r.e2e_p99_s));
}

static void test_speculative_bad(void **state)
{
	const char *want = "speculative decoding needs 0 to 16 draft tokens, "
			   "an acceptance rate and a draft cost ratio in "
			   "[0, 1]";
	struct sim_load l = load(SIM_ARRIVAL_BURST, 10, 10, 10);
	struct sim_engine e = engine(4, false);

	(void)state;
	e.speculative_tokens = 17;
	e.acceptance_rate = 0.5;
	run_fails(&e, 1, &l, want);
	e.speculative_tokens = -1;
	run_fails(&e, 1, &l, want);
	e.speculative_tokens = 4;
	e.acceptance_rate = 1.5;
	run_fails(&e, 1, &l, want);
	e.acceptance_rate = NAN;
	run_fails(&e, 1, &l, want);
	e.acceptance_rate = 0.5;
	e.draft_cost_ratio = -0.1;
	run_fails(&e, 1, &l, want);
}

/* ------------------------------------------------------------------
 * Prefill/decode disaggregation
 */

static int disagg_ok(const struct sim_engine *pe, int np,
		     const struct sim_engine *de, int nd,
		     const struct sim_transfer *x, const struct sim_load *l,
		     struct rec *rp, struct rec *rd, struct sim_result *r)
{
	struct sim_pool p = { pe, np, rec_step, rp, NULL };
	struct sim_pool d = { de, nd, rec_step, rd, NULL };
	struct diag err;

	diag_clear(&err);
	if (sim_run_disaggregated(&p, &d, x, l, r, &err) != 0) {
		print_error("sim_run_disaggregated: %s\n", err.msg);
		fail();
	}
	assert_int_equal(r->steps, rp->calls + rd->calls);
	return 0;
}

/*
 * One request of p = 100 prompt and o = 11 output tokens, steps of a
 * fixed T = 10 ms in each pool, a link of 1 ms + 2 kB per token at
 * 1 GB/s: d = 1 ms + 100 x 2000 / 1e9 = 1.2 ms.  The prefill replica emits
 * the first token at T, the cache reaches the decode replica at T + d,
 * which decodes the other 10 tokens in 10 steps:
 *   TTFT = T, e2e = T + d + 10 T, TPOT = (d + 10 T) / 10.
 * The prefill pool runs one step (the prompt) and the decode pool ten
 * (decodes only, at contexts 100 to 109).
 */
static void test_disagg_by_hand(void **state)
{
	struct sim_engine pe = engine(4, false), de = engine(4, false);
	struct sim_load l = load(SIM_ARRIVAL_BURST, 1, 100.0, 11.0);
	struct sim_transfer x = { 1e-3, 2000.0, 1e9 };
	struct rec rp = rec_fixed(0.01), rd = rec_fixed(0.01);
	struct sim_result r;
	const double d = 1e-3 + 100.0 * 2000.0 / 1e9;

	(void)state;
	disagg_ok(&pe, 1, &de, 1, &x, &l, &rp, &rd, &r);
	assert_rel(r.ttft_mean_s, 0.01, 1e-12);
	assert_rel(r.e2e_mean_s, 0.01 + d + 0.1, 1e-12);
	assert_rel(r.tpot_mean_s, (d + 0.1) / 10.0, 1e-12);
	assert_rel(r.kv_transfer_mean_s, d, 1e-12);
	assert_int_equal(rp.calls, 1);
	assert_rel(rp.sum.prefill_tokens, 100.0, 0.0);
	assert_rel(rp.sum.decode_seqs, 0.0, 0.0);
	assert_int_equal(rd.calls, 10);
	assert_rel(rd.sum.prefill_tokens, 0.0, 0.0);
	assert_rel(rd.sum.decode_seqs, 10.0, 0.0);
	assert_rel(rd.sum.decode_ctx_tokens, 10.0 * 100.0 + 45.0 + 10.0,
		   0.0);
}

/*
 * Two requests prefilled together in one step share their replica's
 * link: the second cache leaves when the first has arrived, so the
 * transfers take d and 2 d (mean 1.5 d).  With two prefill replicas each
 * has its own link (mean d).
 */
static void test_disagg_link_queue(void **state)
{
	struct sim_engine pe = engine(4, false), de = engine(4, false);
	struct sim_load l = load(SIM_ARRIVAL_BURST, 2, 100.0, 11.0);
	struct sim_transfer x = { 1e-3, 2000.0, 1e9 };
	struct rec rp = rec_fixed(0.01), rd = rec_fixed(0.01);
	struct sim_result r;
	const double d = 1.2e-3;

	(void)state;
	disagg_ok(&pe, 1, &de, 1, &x, &l, &rp, &rd, &r);
	assert_int_equal(rp.calls, 1);
	assert_rel(r.kv_transfer_mean_s, 1.5 * d, 1e-12);
	rp = rec_fixed(0.01);
	rd = rec_fixed(0.01);
	disagg_ok(&pe, 2, &de, 1, &x, &l, &rp, &rd, &r);
	assert_rel(r.kv_transfer_mean_s, d, 1e-12);
}

/*
 * Why disaggregate: with whole-prompt prefills in the same replica every
 * prompt stalls the decoding batch; in a separate pool it does not.  The
 * step is 5 ms + 10 us a token; 8192-token prompts (87 ms prefills) at 4
 * requests/s.  Co-located on two replicas, a request decodes for about
 * 63 x 5 ms = 0.32 s, in which the router sends its replica some of the
 * 1.3 prompts that arrive (the other replica gets them while this one is
 * busier): every one adds 87 ms over 63 tokens, 1.4 ms a token, so the mean
 * TPOT grows by over 10% and its p99 by half.  The decode pool's TPOT is
 * its step alone (and Little's law holds over both pools: the rate in,
 * the rate out).
 */
static void test_disagg_no_interference(void **state)
{
	struct sim_engine e = engine(64, false);
	struct sim_load l = load(SIM_ARRIVAL_POISSON, 4000, 8192.0, 64.0);
	struct sim_transfer x = { 0.0, 0.0, 1e9 };
	struct rec rc = rec_linear(0.005, 1e-5);
	struct rec rp = rec_linear(0.005, 1e-5), rd = rec_linear(0.005, 1e-5);
	struct sim_result co, dis;

	(void)state;
	e.max_batched_tokens = 8192;
	l.rate_per_s = 4.0;
	run_ok(&e, 2, &l, &rc, &co);
	disagg_ok(&e, 1, &e, 1, &x, &l, &rp, &rd, &dis);
	assert_false(co.overloaded);
	assert_false(dis.overloaded);
	assert_rel(dis.request_throughput_per_s, 4.0, 0.03);
	assert_rel(dis.output_tokens_per_s, 4.0 * 64.0, 0.03);
	/* a decode step of b sequences is 5 ms + b 10 us; a few run */
	assert_true(dis.tpot_p99_s < 0.0052);
	assert_true(co.tpot_mean_s > 1.1 * dis.tpot_mean_s);
	assert_true(co.tpot_p99_s > 1.5 * dis.tpot_p99_s);
	assert_rel(rd.sum.prefill_tokens, 0.0, 0.0);
	assert_rel(rp.sum.decode_seqs, 0.0, 0.0);
}

/* A closed loop across the pools: each client's next request follows its
   last one's end in the decode pool; Little's law over the fleet. */
static void test_disagg_closed(void **state)
{
	struct sim_engine pe = engine(8, true), de = engine(32, true);
	struct sim_load l = load(SIM_ARRIVAL_CLOSED, 3000, 300.0, 40.0);
	struct sim_transfer x = { 2e-4, 1000.0, 5e9 };
	struct rec rp = rec_linear(0.004, 2e-6), rd = rec_linear(0.006, 1e-5);
	struct sim_result r;

	(void)state;
	l.concurrency = 24;
	l.length_dist = SIM_LEN_EXPONENTIAL;
	disagg_ok(&pe, 1, &de, 2, &x, &l, &rp, &rd, &r);
	assert_rel(r.request_throughput_per_s * r.e2e_mean_s, 24.0, 0.03);
	assert_true(r.kv_transfer_mean_s >= 2e-4);
}

/*
 * The capacity loads of the pools: a prefilled load decodes only (its
 * first token is out at arrival: TTFT 0), and answers cut to one token
 * make every request a prefill (e2e = TTFT).
 */
static void test_prefilled_and_cut(void **state)
{
	struct sim_engine e = engine(4, true);
	struct sim_load l = load(SIM_ARRIVAL_BURST, 1, 100.0, 11.0);
	struct rec rc = rec_fixed(0.01);
	struct sim_result r;

	(void)state;
	l.prefilled = true;
	run_ok(&e, 1, &l, &rc, &r);
	assert_rel(r.ttft_mean_s, 0.0, 0.0);
	assert_rel(r.e2e_mean_s, 0.1, 1e-12);
	assert_rel(rc.sum.prefill_tokens, 0.0, 0.0);
	assert_rel(rc.sum.decode_seqs, 10.0, 0.0);
	l.prefilled = false;
	l.output_tokens_max = 1;
	l.requests = 3;
	rc = rec_fixed(0.01);
	run_ok(&e, 1, &l, &rc, &r);
	assert_rel(r.e2e_mean_s, r.ttft_mean_s, 1e-12);
	assert_rel(rc.sum.decode_seqs, 0.0, 0.0);
}

static void test_disagg_bad(void **state)
{
	struct sim_engine pe = engine(4, false), de = engine(4, false);
	struct sim_load l = load(SIM_ARRIVAL_BURST, 2, 100.0, 11.0);
	struct sim_transfer x = { 1e-3, 2000.0, 1e9 }, bad = x;
	struct rec rp = rec_fixed(0.01), rd = rec_fixed(0.01);
	struct sim_pool p = { &pe, 1, rec_step, &rp, NULL };
	struct sim_pool d = { &de, 1, rec_step, &rd, NULL };
	struct sim_result r;
	struct diag err;

	(void)state;
	diag_clear(&err);
	de.kv_block_tokens = 32;
	assert_int_equal(sim_run_disaggregated(&p, &d, &x, &l, &r, &err), -1);
	assert_non_null(strstr(err.msg, "the same KV block size (16, 32)"));
	de.kv_block_tokens = 16;
	bad.bw_bytes_per_s = 0.0;
	diag_clear(&err);
	assert_int_equal(sim_run_disaggregated(&p, &d, &bad, &l, &r, &err),
			 -1);
	assert_non_null(strstr(err.msg, "positive bandwidth"));
	d.replicas = 0;
	diag_clear(&err);
	assert_int_equal(sim_run_disaggregated(&p, &d, &x, &l, &r, &err), -1);
	assert_non_null(strstr(err.msg, "replicas must be at least 1"));
	d.replicas = 1;
	/* the decode pool holds the whole context: 111 tokens, 7 blocks */
	de.kv_blocks = 6.0;
	diag_clear(&err);
	assert_int_equal(sim_run_disaggregated(&p, &d, &x, &l, &r, &err), -1);
	assert_non_null(strstr(err.msg, "a decode replica holds 6"));
	de.kv_blocks = 1e6;
	pe.kv_blocks = 6.0;
	diag_clear(&err);
	assert_int_equal(sim_run_disaggregated(&p, &d, &x, &l, &r, &err), -1);
	assert_non_null(strstr(err.msg, "request 1 needs 7 KV-cache blocks"));
	assert_int_equal(r.steps, 0);
}

static void test_bad_engine(void **state)
{
	const char *limits = "max_batch, max_batched_tokens, kv_block_tokens "
			     "and scheduler_steps must be at least 1";
	struct sim_load l = load(SIM_ARRIVAL_BURST, 10, 10, 10);
	struct sim_engine e;

	(void)state;
	e = engine(0, false);
	run_fails(&e, 1, &l, limits);
	e = engine(4, false);
	e.max_batched_tokens = 0;
	run_fails(&e, 1, &l, limits);
	e = engine(4, false);
	e.kv_block_tokens = 0;
	run_fails(&e, 1, &l, limits);
	e = engine(4, false);
	e.scheduler_steps = 0;
	run_fails(&e, 1, &l, limits);
	e = engine(4, false);
	e.kv_blocks = 0.0;
	run_fails(&e, 1, &l, "the KV cache holds no block (0)");
	e.kv_blocks = 0.5;
	run_fails(&e, 1, &l, "the KV cache holds no block (0.5)");
	e.kv_blocks = NAN;
	run_fails(&e, 1, &l, "the KV cache holds no block (nan)");
	e.kv_blocks = HUGE_VAL;
	run_fails(&e, 1, &l, "the KV cache holds no block (inf)");
	e = engine(4, false);
	run_fails(&e, 0, &l, "replicas must be at least 1, not 0");
	run_fails(&e, -3, &l, "replicas must be at least 1, not -3");
}

static void test_bad_load(void **state)
{
	const double rates[] = { 0.0, -1.0, NAN, HUGE_VAL };
	const char *lengths = "mean prompt and output lengths must be at "
			      "least one token";
	struct sim_engine e = engine(4, false);
	struct sim_request t[2] = { REQ(0.0, 1, 1), REQ(1.0, 1, 1) };
	struct sim_load l;

	(void)state;
	for (size_t i = 0; i < N(rates); i++) {
		l = load(SIM_ARRIVAL_POISSON, 10, 10, 10);
		l.rate_per_s = rates[i];
		run_fails(&e, 1, &l, "the request rate must be positive, not");
	}
	l = load(SIM_ARRIVAL_POISSON, 10, 10, 10);
	l.rate_per_s = -2.5;
	run_fails(&e, 1, &l, "the request rate must be positive, not -2.5");
	l = load(SIM_ARRIVAL_CLOSED, 10, 10, 10);
	run_fails(&e, 1, &l, "concurrency must be at least 1, not 0");
	l.concurrency = -1;
	run_fails(&e, 1, &l, "concurrency must be at least 1, not -1");
	l = load(SIM_ARRIVAL_BURST, 0, 10, 10);
	run_fails(&e, 1, &l, "requests must be at least 1, not 0");
	l = load(SIM_ARRIVAL_CLOSED, 0, 10, 10);
	l.concurrency = 4;
	run_fails(&e, 1, &l, "requests must be at least 1, not 0");
	l = load(SIM_ARRIVAL_POISSON, -5, 10, 10);
	l.rate_per_s = 1.0;
	run_fails(&e, 1, &l, "requests must be at least 1, not -5");
	l = load(SIM_ARRIVAL_BURST, 10, 0.5, 10);
	run_fails(&e, 1, &l, lengths);
	l = load(SIM_ARRIVAL_BURST, 10, 10, 0.0);
	run_fails(&e, 1, &l, lengths);
	l = load(SIM_ARRIVAL_BURST, 10, NAN, 10);
	run_fails(&e, 1, &l, lengths);
	l = load(SIM_ARRIVAL_BURST, 10, 10, HUGE_VAL);
	run_fails(&e, 1, &l, lengths);
	l = load((enum sim_arrival)99, 10, 10, 10);
	run_fails(&e, 1, &l, "unknown arrival kind");
	/* traces */
	l = trace_load(NULL, 2);
	run_fails(&e, 1, &l, "the trace has no requests");
	l = trace_load(t, 0);
	run_fails(&e, 1, &l, "the trace has no requests");
	l = trace_load(t, (size_t)INT_MAX);
	run_fails(&e, 1, &l, "the trace has too many requests");
}

static void test_bad_trace(void **state)
{
	const char *order = ": lengths must be at least 1 and arrivals "
			    "non-negative and in order";
	struct sim_engine e = engine(4, false);
	struct sim_request t[3] = { REQ(0.0, 1, 1) };
	struct sim_load l = trace_load(t, N(t));
	struct {
		struct sim_request bad;
		const char *want;
	} c[] = {
		{ REQ(0.5, 1, 1), "request 2" },   /* before request 1 */
		{ REQ(2.0, 0, 1), "request 2" },   /* no prompt */
		{ REQ(2.0, 1, -1), "request 2" },  /* no output */
		{ REQ(NAN, 1, 1), "request 2" },
		{ REQ(HUGE_VAL, 1, 1), "request 2" },
	};

	(void)state;
	for (size_t i = 0; i < N(c); i++) {
		char want[128];

		t[0] = (struct sim_request)REQ(1.0, 1, 1);
		t[1] = c[i].bad;
		t[2] = (struct sim_request)REQ(3.0, 1, 1);
		snprintf(want, sizeof(want), "%s%s", c[i].want, order);
		run_fails(&e, 1, &l, want);
	}
	t[0] = (struct sim_request)REQ(-1.0, 1, 1);
	t[1] = (struct sim_request)REQ(2.0, 1, 1);
	run_fails(&e, 1, &l, "request 1: lengths must be at least 1");
	/* equal arrivals are in order */
	t[0] = (struct sim_request)REQ(1.0, 1, 1);
	t[1] = (struct sim_request)REQ(1.0, 1, 1);
	t[2] = (struct sim_request)REQ(1.0, 1, 1);
	{
		struct rec rc = rec_fixed(0.01);
		struct sim_result r;

		run_ok(&e, 1, &l, &rc, &r);
		/* from the first arrival (at 1 s) to the last completion */
		assert_rel(r.duration_s, 0.01, 1e-12);
	}
}

static void test_bad_step_model(void **state)
{
	struct sim_engine e = engine(4, false);
	struct sim_load l = load(SIM_ARRIVAL_BURST, 10, 10, 10);
	int calls = 0;

	(void)state;
	run_fails_with(&e, 1, &l, NULL, NULL, "no step model");
	run_fails_with(&e, 1, &l, step_zero, NULL,
		       "the step model gave 0 s for a step");
	run_fails_with(&e, 1, &l, step_negative, NULL,
		       "the step model gave -0.01 s for a step");
	run_fails_with(&e, 1, &l, step_inf, NULL,
		       "the step model gave inf s for a step");
	/* every step is checked, not only the first */
	run_fails_with(&e, 1, &l, step_bad_third, &calls,
		       "the step model gave nan s for a step");
	assert_int_equal(calls, 3);
	/* a closed loop's first steps and a Poisson run's too */
	l = load(SIM_ARRIVAL_CLOSED, 10, 10, 10);
	l.concurrency = 3;
	run_fails_with(&e, 1, &l, step_zero, NULL, "the step model gave 0 s");
	e.chunked_prefill = true;
	l = load(SIM_ARRIVAL_POISSON, 10, 10, 10);
	l.rate_per_s = 3.0;
	run_fails_with(&e, 2, &l, step_zero, NULL, "the step model gave 0 s");
}

/* An error with no record to fill: -1 all the same. */
static void test_error_without_record(void **state)
{
	struct sim_engine e = engine(0, false);
	struct sim_load l = load(SIM_ARRIVAL_BURST, 10, 10, 10);
	struct rec rc = rec_fixed(0.01);
	struct sim_result r;

	(void)state;
	assert_int_equal(sim_run(&e, 1, &l, rec_step, &rc, &r, NULL), -1);
	e = engine(4, false);
	assert_int_equal(sim_run(&e, 1, &l, step_zero, NULL, &r, NULL), -1);
	assert_int_equal(sim_run(&e, 1, &l, rec_step, &rc, &r, NULL), 0);
	assert_int_equal(r.simulated_requests, 10);
}

/* ------------------------------------------------------------------
 * 11. Determinism
 */

static void assert_same(const struct sim_result *a, const struct sim_result *b)
{
	const double x[] = { a->ttft_mean_s, a->ttft_p50_s, a->ttft_p99_s,
			     a->tpot_mean_s, a->tpot_p99_s, a->e2e_mean_s,
			     a->e2e_p99_s, a->queue_wait_mean_s,
			     a->request_throughput_per_s,
			     a->output_tokens_per_s, a->mean_batch,
			     a->kv_utilization, a->duration_s };
	const double y[] = { b->ttft_mean_s, b->ttft_p50_s, b->ttft_p99_s,
			     b->tpot_mean_s, b->tpot_p99_s, b->e2e_mean_s,
			     b->e2e_p99_s, b->queue_wait_mean_s,
			     b->request_throughput_per_s,
			     b->output_tokens_per_s, b->mean_batch,
			     b->kv_utilization, b->duration_s };

	for (size_t i = 0; i < N(x); i++)
		assert_true(x[i] == y[i]);
	assert_int_equal(a->steps, b->steps);
	assert_int_equal(a->request_steps, b->request_steps);
	assert_int_equal(a->preemptions, b->preemptions);
}

static void test_determinism(void **state)
{
	const enum sim_length_dist d[] = { SIM_LEN_EXPONENTIAL,
					   SIM_LEN_SHAREGPT };

	(void)state;
	for (size_t i = 0; i < N(d); i++) {
		struct sim_engine e = engine(8, true);
		struct sim_load l = load(SIM_ARRIVAL_POISSON, 3000, 150, 60);
		struct rec r1 = rec_linear(0.005, 2e-5), r2 = r1, r3 = r1;
		struct sim_result a, b, c;

		e.kv_blocks = 60; /* some preemptions */
		l.max_context_tokens = 900; /* 57 blocks at most */
		l.length_dist = d[i];
		l.rate_per_s = 15.0;
		l.seed = 11;
		run_ok(&e, 2, &l, &r1, &a);
		run_ok(&e, 2, &l, &r2, &b);
		assert_same(&a, &b);
		assert_true(a.preemptions > 0);
		l.seed = 12;
		run_ok(&e, 2, &l, &r3, &c);
		assert_true(a.ttft_mean_s != c.ttft_mean_s);
		assert_true(r1.sum.prefill_tokens != r3.sum.prefill_tokens);
	}
}

/* ------------------------------------------------------------------
 * Default run lengths
 */

static void test_default_requests(void **state)
{
	struct sim_load l = load(SIM_ARRIVAL_POISSON, 0, 10, 10);
	struct sim_request t[7] = { REQ(0.0, 1, 1) };

	(void)state;
	assert_int_equal(sim_default_requests(&l, 1), 2000);
	assert_int_equal(sim_default_requests(&l, 0), 2000);
	assert_int_equal(sim_default_requests(&l, 37), 3700);
	assert_int_equal(sim_default_requests(&l, 100000), 50000);
	l.arrival = SIM_ARRIVAL_CLOSED;
	l.concurrency = 10;
	assert_int_equal(sim_default_requests(&l, 1), 2000);
	l.concurrency = 333;
	assert_int_equal(sim_default_requests(&l, 1), 3330);
	l.concurrency = 100000;
	assert_int_equal(sim_default_requests(&l, 1), 50000);
	l.arrival = SIM_ARRIVAL_BURST;
	assert_int_equal(sim_default_requests(&l, 5), 1000);
	l = trace_load(t, N(t));
	assert_int_equal(sim_default_requests(&l, 5), 7);
	l.trace_len = (size_t)INT_MAX + 10;
	assert_int_equal(sim_default_requests(&l, 5), INT_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_md1_rho_05),
		cmocka_unit_test(test_md1_rho_08),
		cmocka_unit_test(test_little_burst),
		cmocka_unit_test(test_little_trace),
		cmocka_unit_test(test_little_poisson),
		cmocka_unit_test(test_little_closed),
		cmocka_unit_test(test_closed_lock_step),
		cmocka_unit_test(test_saturation_fixed),
		cmocka_unit_test(test_saturation_linear),
		cmocka_unit_test(test_overload),
		cmocka_unit_test(test_overload_only_poisson),
		cmocka_unit_test(test_kv_preemption),
		cmocka_unit_test(test_kv_preemption_by_hand),
		cmocka_unit_test(test_kv_preemption_mid_prompt),
		cmocka_unit_test(test_kv_request_too_long),
		cmocka_unit_test(test_chunked_prefill_alone),
		cmocka_unit_test(test_chunked_prefill_with_decodes),
		cmocka_unit_test(test_prefill_budget),
		cmocka_unit_test(test_scheduler_steps),
		cmocka_unit_test(test_front_end),
		cmocka_unit_test(test_front_end_caps_rate),
		cmocka_unit_test(test_host_step),
		cmocka_unit_test(test_routing),
		cmocka_unit_test(test_routing_least_outstanding),
		cmocka_unit_test(test_routing_not_round_robin),
		cmocka_unit_test(test_routing_ties),
		cmocka_unit_test(test_lengths_exponential),
		cmocka_unit_test(test_lengths_sharegpt),
		cmocka_unit_test(test_lengths_fixed),
		cmocka_unit_test(test_speculative_leviathan),
		cmocka_unit_test(test_speculative_under_load),
		cmocka_unit_test(test_speculative_kv),
		cmocka_unit_test(test_speculative_bad),
		cmocka_unit_test(test_disagg_by_hand),
		cmocka_unit_test(test_disagg_link_queue),
		cmocka_unit_test(test_disagg_no_interference),
		cmocka_unit_test(test_disagg_closed),
		cmocka_unit_test(test_prefilled_and_cut),
		cmocka_unit_test(test_disagg_bad),
		cmocka_unit_test(test_bad_engine),
		cmocka_unit_test(test_bad_load),
		cmocka_unit_test(test_bad_trace),
		cmocka_unit_test(test_bad_step_model),
		cmocka_unit_test(test_error_without_record),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_default_requests),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
