/*
 * serve_sim.c - discrete-event simulation of serving replicas with
 * iteration-level batching; see serve_sim.h and specs/models.md, section
 * "Serving under load".
 *
 * The cost of a step does not grow with its batch: every decoding
 * sequence of a replica advances by one token in each decode step, so a
 * sequence's context is 'clock + k' for the replica's decode clock and a
 * constant k of its own.  The replica keeps the number of decoding
 * sequences, the sum of their k (their contexts summed), a count of k
 * modulo the KV block size (the sequences that open a new block at the
 * next step), and a heap of the clock at which each one ends.  A step
 * costs O(1) plus O(log n) for each sequence that starts or ends.
 */
#include "serve_sim.h"
#include "serve_load.h"
#include "sim_internal.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

/* The prefix cache's unit (sim_cache.c): whole KV blocks of at least
   cache_unit_min_tokens tokens, and about a mean prompt over
   cache_units_per_prompt up to cache_unit_max_tokens: a hit misses at
   most a unit, under 2% of a prompt, and a request costs some 64 table
   operations a pass rather than one per 16 tokens. */
static const int cache_unit_min_tokens = 16;
static const double cache_units_per_prompt = 64.0;
static const double cache_unit_max_tokens = 256.0;

/* Build the request list: lengths and, except in closed loops, arrival
   times. */
static int make_requests(struct sim *s)
{
	const struct sim_load *l = s->load;
	struct sim_lengths lg;
	gsl_rng *rng;
	double t = 0.0;

	if (l->arrival == SIM_ARRIVAL_TRACE) {
		memcpy(s->req, l->trace, (size_t)s->n * sizeof(*s->req));
		return 0;
	}
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (!rng)
		return diag_set_kind(s->err, DIAG_NOMEM, NULL, 0, 0,
				     "out of memory");
	gsl_rng_set(rng, l->seed);
	sim_lengths_init(&lg, l);
	for (int i = 0; i < s->n; i++) {
		memset(&s->req[i], 0, sizeof(s->req[i]));
		if (l->arrival == SIM_ARRIVAL_POISSON) {
			t += gsl_ran_exponential(rng, 1.0 / l->rate_per_s);
			s->req[i].arrival_s = t;
		} else {
			s->req[i].arrival_s = 0.0;
		}
		s->shortened += sim_lengths_draw(&lg, rng, &s->req[i]);
		if (s->req[i].prompt_tokens <= l->shared_prefix_tokens)
			s->req[i].prompt_tokens = l->shared_prefix_tokens + 1;
	}
	gsl_rng_free(rng);
	return 0;
}

/* ---------------------------------------------------------------------
 * Sessions (load->turns > 1): each session's turns are released one by
 * one, the next a think time after the reply to the last; requests are
 * numbered in the order they arrive.
 */

static void due_push(struct sim *s, double t, int sess)
{
	size_t i = s->n_due++;

	s->due[i].t = t;
	s->due[i].seq = sess;
	while (i > 0 && s->due[(i - 1) / 2].t > s->due[i].t) {
		struct xfer_item x = s->due[i];

		s->due[i] = s->due[(i - 1) / 2];
		s->due[(i - 1) / 2] = x;
		i = (i - 1) / 2;
	}
}

static void due_pop(struct sim *s)
{
	size_t i = 0;

	s->due[0] = s->due[--s->n_due];
	for (;;) {
		size_t a = 2 * i + 1, b = a + 1, m = i;
		struct xfer_item x;

		if (a < s->n_due && s->due[a].t < s->due[m].t)
			m = a;
		if (b < s->n_due && s->due[b].t < s->due[m].t)
			m = b;
		if (m == i)
			return;
		x = s->due[i];
		s->due[i] = s->due[m];
		s->due[m] = x;
		i = m;
	}
}

/* Start a new session at time t, its first turn drawn as a request is. */
static void session_start(struct sim *s, double t)
{
	struct sim_request q = { 0 };
	int ss;

	if (s->n_sessions >= s->sessions_max)
		return;
	ss = s->n_sessions++;
	s->sess_rep[ss] = -1;
	s->shortened += sim_lengths_draw(&s->lengths, s->sess_rng, &q);
	if (q.prompt_tokens <= s->load->shared_prefix_tokens)
		q.prompt_tokens = s->load->shared_prefix_tokens + 1;
	s->sess_next_prompt[ss] = q.prompt_tokens;
	s->sess_next_output[ss] = q.output_tokens;
	due_push(s, t, ss);
}

int sim_session_done(struct sim *s, int q, double t)
{
	const struct sim_load *l = s->load;
	int ss = s->req_session[q];

	if (s->sess_turns[ss] < l->turns && s->issued < s->n) {
		struct sim_request d = { 0 };
		double turn = l->turn_tokens_mean, prompt;

		if (l->length_dist != SIM_LEN_FIXED && turn > 1.0)
			turn = gsl_ran_geometric(s->sess_rng, 1.0 / turn);
		(void)sim_lengths_draw(&s->lengths, s->sess_rng, &d);
		/* the conversation so far, and the user's new tokens */
		prompt = (double)s->req[q].prompt_tokens +
			 s->req[q].output_tokens + fmax(1.0, turn);
		if (l->max_context_tokens <= 0 ||
		    prompt + d.output_tokens <= l->max_context_tokens) {
			s->sess_next_prompt[ss] = (int)prompt;
			s->sess_next_output[ss] = d.output_tokens;
			due_push(s, t + (l->think_time_s > 0.0 ?
						 gsl_ran_exponential(
							 s->sess_rng,
							 l->think_time_s) :
						 0.0),
				 ss);
			return 0;
		}
	}
	/* the session is over: a closed loop's client starts another */
	if (l->arrival == SIM_ARRIVAL_CLOSED && s->issued < s->n)
		session_start(s, t);
	return 0;
}

static int init_request(struct sim *s, int i);
static void arrive(struct sim *s, int q, double t);

/* Release the next turn due (at its time t): the next request. */
static int release_turn(struct sim *s)
{
	double t = s->due[0].t;
	int ss = s->due[0].seq, q;

	due_pop(s);
	if (s->issued >= s->n)
		return 0;
	q = s->issued++;
	memset(&s->req[q], 0, sizeof(s->req[q]));
	s->req[q].arrival_s = t;
	s->req[q].prompt_tokens = s->sess_next_prompt[ss];
	s->req[q].output_tokens = s->sess_next_output[ss];
	s->req_session[q] = ss;
	if (s->sess_turns[ss]++ == 0)
		s->sessions_released++;
	if (init_request(s, q) != 0)
		return -1;
	arrive(s, q, t);
	return 0;
}

/* The sessions that start the run. */
static int sessions_init(struct sim *s)
{
	const struct sim_load *l = s->load;
	double t = 0.0;

	s->sess_rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (!s->sess_rng)
		return diag_set_kind(s->err, DIAG_NOMEM, NULL, 0, 0,
				     "out of memory");
	gsl_rng_set(s->sess_rng, l->seed);
	sim_lengths_init(&s->lengths, l);
	switch (l->arrival) {
	case SIM_ARRIVAL_POISSON:
		/* sessions start at rate / turns: requests at about the
		   rate; more starts than will be needed, in time order */
		s->sessions_max = s->n;
		for (int i = 0; i < s->n; i++) {
			t += gsl_ran_exponential(s->sess_rng,
						 l->turns / l->rate_per_s);
			session_start(s, t);
		}
		break;
	case SIM_ARRIVAL_CLOSED:
		s->sessions_max = s->n;
		for (int i = 0; i < l->concurrency && i < s->n; i++)
			session_start(s, 0.0);
		break;
	default: /* a burst of sessions */
		s->sessions_max = (s->n + l->turns - 1) / l->turns;
		for (int i = 0; i < s->sessions_max; i++)
			session_start(s, 0.0);
		break;
	}
	return 0;
}

/* ---------------------------------------------------------------------
 * The run
 */

static int check_engine(const struct sim_engine *e, int replicas,
			sim_step_fn step, struct diag *err)
{
	if (!step || !e)
		return diag_set(err, NULL, 0, 0, "no step model");
	if (replicas < 1)
		return diag_set(err, NULL, 0, 0,
				"replicas must be at least 1, not %d",
				replicas);
	if (e->max_batch < 1 || e->max_batched_tokens < 1 ||
	    e->kv_block_tokens < 1 || e->scheduler_steps < 1)
		return diag_set(err, NULL, 0, 0,
				"max_batch, max_batched_tokens, kv_block_tokens "
				"and scheduler_steps must be at least 1");
	if (!(e->kv_blocks >= 1.0) || !isfinite(e->kv_blocks))
		return diag_set(err, NULL, 0, 0,
				"the KV cache holds no block (%g)",
				e->kv_blocks);
	if (e->speculative_tokens < 0 ||
	    e->speculative_tokens > SIM_SPECULATIVE_TOKENS_MAX ||
	    (e->speculative_tokens > 0 &&
	     (!(e->acceptance_rate >= 0.0 && e->acceptance_rate <= 1.0) ||
	      !(e->draft_cost_ratio >= 0.0 && e->draft_cost_ratio <= 1.0))))
		return diag_set(err, NULL, 0, 0,
				"speculative decoding needs 0 to %d draft "
				"tokens, an acceptance rate and a draft cost "
				"ratio in [0, 1]", SIM_SPECULATIVE_TOKENS_MAX);
	return 0;
}

static int check_args(const struct sim_engine *e, int replicas,
		      const struct sim_load *l, sim_step_fn step,
		      struct diag *err)
{
	if (check_engine(e, replicas, step, err) != 0)
		return -1;
	if (l->output_tokens_max < 0)
		return diag_set(err, NULL, 0, 0,
				"output_tokens_max must not be negative");
	switch (l->arrival) {
	case SIM_ARRIVAL_POISSON:
		if (!(l->rate_per_s > 0.0) || !isfinite(l->rate_per_s))
			return diag_set(err, NULL, 0, 0,
					"the request rate must be positive, "
					"not %g", l->rate_per_s);
		break;
	case SIM_ARRIVAL_CLOSED:
		if (l->concurrency < 1)
			return diag_set(err, NULL, 0, 0,
					"concurrency must be at least 1, not "
					"%d", l->concurrency);
		break;
	case SIM_ARRIVAL_BURST:
		break;
	case SIM_ARRIVAL_TRACE:
		if (!l->trace || l->trace_len == 0)
			return diag_set(err, NULL, 0, 0,
					"the trace has no requests");
		if (l->trace_len > INT_MAX / 4)
			return diag_set(err, NULL, 0, 0,
					"the trace has too many requests");
		return 0;
	default:
		return diag_set(err, NULL, 0, 0, "unknown arrival kind");
	}
	if (l->requests < 1)
		return diag_set(err, NULL, 0, 0,
				"requests must be at least 1, not %d",
				l->requests);
	if (l->turns > 1 &&
	    (!(l->think_time_s >= 0.0) || !isfinite(l->think_time_s) ||
	     !(l->turn_tokens_mean >= 1.0) || !isfinite(l->turn_tokens_mean)))
		return diag_set(err, NULL, 0, 0,
				"sessions need a think time of at least 0 and "
				"at least one new token a turn");
	if (l->shared_prefix_tokens < 0)
		return diag_set(err, NULL, 0, 0,
				"the shared prefix must not be negative");
	if (!(l->prompt_tokens_mean >= 1.0) ||
	    !(l->output_tokens_mean >= 1.0) ||
	    !isfinite(l->prompt_tokens_mean + l->output_tokens_mean))
		return diag_set(err, NULL, 0, 0,
				"mean prompt and output lengths must be at "
				"least one token");
	return 0;
}

static int sim_alloc(struct sim *s)
{
	size_t n = (size_t)s->n;

	s->req = malloc(n * sizeof(*s->req));
	s->state = calloc(n, 1);
	s->kv_ready = calloc(n, 1);
	s->t_xfer = malloc(n * sizeof(double));
	s->xq = s->n_pools == 2 ? malloc(n * sizeof(*s->xq)) : NULL;
	s->target = malloc(n * sizeof(int));
	s->prefilled = calloc(n, sizeof(int));
	s->out_left = malloc(n * sizeof(int));
	s->k = calloc(n, sizeof(long long));
	s->fin = calloc(n, sizeof(long long));
	s->gen = calloc(n, sizeof(unsigned));
	s->rep = malloc(n * sizeof(int));
	s->t_sched = malloc(n * sizeof(double));
	s->t_admit = malloc(n * sizeof(double));
	s->t_first = malloc(n * sizeof(double));
	s->t_done = malloc(n * sizeof(double));
	s->pending = malloc(n * sizeof(int));
	s->fe_q = malloc(n * sizeof(int));
	s->fe_t = malloc(n * sizeof(double));
	if (s->caching) {
		s->cached = calloc(n, sizeof(int));
		s->hit_tokens = calloc(n, sizeof(int));
		s->t_ready = calloc(n, sizeof(double));
		s->host_hit_tokens = calloc(n, sizeof(int));
		s->load_s = calloc(n, sizeof(double));
		s->disk_hit_tokens = calloc(n, sizeof(int));
		s->wake = malloc(2 * n * sizeof(*s->wake));
		if (!s->cached || !s->hit_tokens || !s->t_ready ||
		    !s->host_hit_tokens || !s->load_s || !s->wake ||
		    !s->disk_hit_tokens)
			return -1;
	}
	if (s->sessions_on) {
		s->req_session = malloc(n * sizeof(int));
		s->sess_turns = calloc(n, sizeof(int));
		s->sess_rep = malloc(n * sizeof(int));
		s->sess_next_prompt = malloc(n * sizeof(int));
		s->sess_next_output = malloc(n * sizeof(int));
		s->due = malloc(n * sizeof(*s->due));
		if (!s->req_session || !s->sess_turns || !s->sess_rep ||
		    !s->sess_next_prompt ||
		    !s->sess_next_output || !s->due)
			return -1;
	}
	s->r = calloc((size_t)s->replicas, sizeof(*s->r));
	for (s->ev_leaves = 1; s->ev_leaves < s->replicas;)
		s->ev_leaves *= 2;
	s->ev = malloc(2 * (size_t)s->ev_leaves * sizeof(int));
	s->ev_t = malloc(2 * (size_t)s->ev_leaves * sizeof(double));
	s->kick = malloc((size_t)s->replicas * sizeof(int));
	s->kicked = calloc((size_t)s->replicas, 1);
	if (!s->req || !s->state || !s->kv_ready || !s->t_xfer ||
	    (s->n_pools == 2 && !s->xq) || !s->target || !s->prefilled ||
	    !s->out_left || !s->k || !s->fin || !s->gen || !s->rep || !s->t_sched ||
	    !s->t_admit ||
	    !s->t_first || !s->t_done || !s->pending || !s->fe_q ||
	    !s->fe_t || !s->r || !s->ev ||
	    !s->ev_t || !s->kick || !s->kicked)
		return -1;
	sim_events_init(s);
	for (int i = 0; i < s->replicas; i++)
		if (sim_replica_init(s, &s->r[i],
				 i < s->pool[0].replicas ? 0 : 1) != 0)
			return -1;
	return 0;
}

static void sim_free(struct sim *s)
{
	if (s->spec_rng)
		gsl_rng_free(s->spec_rng);
	if (s->sess_rng)
		gsl_rng_free(s->sess_rng);
	free(s->cached);
	free(s->hit_tokens);
	free(s->t_ready);
	free(s->host_hit_tokens);
	free(s->load_s);
	free(s->disk_hit_tokens);
	free(s->wake);
	free(s->req_session);
	free(s->sess_turns);
	free(s->sess_rep);
	free(s->sess_next_prompt);
	free(s->sess_next_output);
	free(s->due);
	if (s->r)
		for (int i = 0; i < s->replicas; i++)
			sim_replica_free(&s->r[i]);
	free(s->r);
	free(s->ev);
	free(s->ev_t);
	free(s->kick);
	free(s->kicked);
	free(s->req);
	free(s->state);
	free(s->kv_ready);
	free(s->t_xfer);
	free(s->xq);
	free(s->target);
	free(s->prefilled);
	free(s->out_left);
	free(s->k);
	free(s->fin);
	free(s->gen);
	free(s->rep);
	free(s->t_sched);
	free(s->t_admit);
	free(s->t_first);
	free(s->t_done);
	free(s->pending);
	free(s->fe_q);
	free(s->fe_t);
}

/* Release request q at time t: route it, or, when the server's front end
   takes host time per request, queue it there first.  The front end of
   each replica of the first pool handles one request at a time, the
   requests in order of arrival: the c = replicas front ends take each
   request when the earliest of them is free, which with equal times is
   the one that took the request c places before, and the request
   reaches the scheduler host_request_s later.  Its replica starts once
   every request of the instant is routed (start_idle), so that requests
   that arrive together can share a step. */
static void arrive(struct sim *s, int q, double t)
{
	double h = s->eng->host_request_s;
	int c = s->pool[0].replicas;

	s->req[q].arrival_s = t;
	if (s->kv_ready[q] && s->t_first[q] < 0.0)
		s->t_first[q] = t; /* a prefilled load: its first token */
	if (h > 0.0) {
		double start = s->fe_tail >= c ?
				       fmax(t, s->fe_t[s->fe_tail - c]) :
				       t;

		s->fe_q[s->fe_tail] = q;
		s->fe_t[s->fe_tail++] = start + h;
		return;
	}
	s->t_sched[q] = t;
	sim_route(s, q);
}

/* Start the idle replicas that have requests waiting, at time t: those
   a request was routed to since the last call (the router kicks them,
   sim_route), in the order of the fleet, as a scan of every replica
   would (issue 43: the scan after every event was a fifth of a
   search's instructions). */
static int start_idle(struct sim *s, double t, int after)
{
	/* a handful: insertion sort */
	for (int i = 1; i < s->n_kick; i++)
		for (int j = i; j > 0 && s->kick[j] < s->kick[j - 1]; j--) {
			int x = s->kick[j];

			s->kick[j] = s->kick[j - 1];
			s->kick[j - 1] = x;
		}
	for (int i = 0; i < s->n_kick; i++) {
		struct replica *r = &s->r[s->kick[i]];

		s->kicked[s->kick[i]] = 0;
		/* a cruising replica takes the work at the end of its
		   step in flight now (a step that ended at t before the
		   step of replica 'after' did is over) */
		if (r->cr_n > 0 &&
		    sim_cruise_cut(s, r, t, after >= 0 && s->kick[i] < after) !=
			    0)
			return -1;
		if (!r->busy && r->wait.n > 0 && sim_replica_start(s, r, t) != 0)
			return -1;
	}
	s->n_kick = 0;
	return 0;
}

static int run_events(struct sim *s)
{
	bool closed = s->load->arrival == SIM_ARRIVAL_CLOSED;
	long long guard = 0, limit;
	double tokens = 0.0, t;

	if (s->req_session)
		/* sessions: no request is longer than the context */
		tokens = (double)s->n *
			 ((s->load->max_context_tokens > 0 ?
				   s->load->max_context_tokens :
				   s->load->turns * (s->load->prompt_tokens_mean +
						     s->load->output_tokens_mean +
						     s->load->turn_tokens_mean)) +
			  2.0);
	else
		for (int i = 0; i < s->n; i++)
			tokens += (double)s->req[i].prompt_tokens +
				  s->req[i].output_tokens + 2.0;
	/* every step schedules at least one token; preemptions redo at
	   most a request's tokens each: a generous bound on steps */
	limit = tokens * 64.0 > 4e18 ? (long long)4e18 :
				       (long long)(tokens * 64.0) + 1024;
	if (closed && !s->req_session) {
		int c = s->load->concurrency < s->n ? s->load->concurrency :
						       s->n;

		for (s->issued = 0; s->issued < c; s->issued++)
			arrive(s, s->issued, 0.0);
		s->next_arrival = s->n;
		if (start_idle(s, 0.0, -1) != 0)
			return -1;
	}
	while (s->done < s->n) {
		double t_arr = s->next_arrival < s->n ?
				       s->req[s->next_arrival].arrival_s :
				       HUGE_VAL;

		if (s->req_session) {
			if (s->n_due == 0 && s->done == s->issued) {
				/* every session ended before 'requests' */
				s->n = s->issued;
				break;
			}
			t_arr = s->n_due > 0 && s->issued < s->n ? s->due[0].t :
								   HUGE_VAL;
		}
		double t_x = s->n_xq > 0 ? s->xq[0].t : HUGE_VAL;
		double t_fe = s->fe_head < s->fe_tail ? s->fe_t[s->fe_head] :
							HUGE_VAL;
		double t_w = s->n_wake > 0 ? s->wake[0].t : HUGE_VAL;
		int best = sim_events_first(s);
		if (best < 0 && t_arr == HUGE_VAL && t_x == HUGE_VAL &&
		    t_fe == HUGE_VAL && t_w == HUGE_VAL)
			return diag_set(s->err, NULL, 0, 0,
					"the simulation stalled with %d of %d "
					"requests done", s->done, s->n);
		if (++guard > limit)
			return diag_set(s->err, NULL, 0, 0,
					"the simulation did not finish in %lld "
					"events", limit);
		if (t_w < t_arr && t_w <= t_x && t_w <= t_fe &&
		    (best < 0 || t_w <= s->r[best].t_end)) {
			/* copies from a host tier end: their replicas, when
			   idle, start the prefills that waited for them */
			while (s->n_wake > 0 && s->wake[0].t == t_w) {
				struct replica *r = &s->r[s->wake[0].seq];

				sim_wake_pop(s);
				if (!r->busy &&
				    sim_replica_start(s, r, t_w) != 0)
					return -1;
			}
			continue;
		}
		if (t_fe < t_arr && t_fe <= t_x &&
		    (best < 0 || t_fe <= s->r[best].t_end)) {
			/* requests through the front end reach the scheduler */
			while (s->fe_head < s->fe_tail &&
			       s->fe_t[s->fe_head] == t_fe) {
				int q = s->fe_q[s->fe_head++];

				s->t_sched[q] = t_fe;
				sim_route(s, q);
			}
			if (start_idle(s, t_fe, -1) != 0)
				return -1;
			continue;
		}
		if (t_x < t_arr && (best < 0 || t_x <= s->r[best].t_end)) {
			/* KV caches that reach the decode pool now */
			while (s->n_xq > 0 && s->xq[0].t == t_x)
				sim_xfer_end(s);
			if (start_idle(s, t_x, -1) != 0)
				return -1;
			continue;
		}
		if (s->req_session && (best < 0 || t_arr <= s->r[best].t_end)) {
			if (release_turn(s) != 0)
				return -1;
			if (s->n_due > 0 && s->issued < s->n &&
			    s->due[0].t == t_arr)
				continue; /* more turns at this instant */
			if (start_idle(s, t_arr, -1) != 0)
				return -1;
			if (s->issued == s->n) {
				s->waiting_at_last_arrival =
					s->fe_tail - s->fe_head;
				for (int i = 0; i < s->replicas; i++)
					s->waiting_at_last_arrival +=
						(int)s->r[i].wait.n;
			}
			continue;
		}
		if (best < 0 || t_arr <= s->r[best].t_end) {
			int q = s->next_arrival++;

			arrive(s, q, t_arr);
			if (s->next_arrival < s->n &&
			    s->req[s->next_arrival].arrival_s == t_arr)
				continue; /* more requests at this instant */
			if (start_idle(s, t_arr, -1) != 0)
				return -1;
			if (s->next_arrival == s->n) {
				s->waiting_at_last_arrival =
					s->fe_tail - s->fe_head;
				for (int i = 0; i < s->replicas; i++)
					s->waiting_at_last_arrival +=
						(int)s->r[i].wait.n;
			}
			continue;
		}
		t = s->r[best].t_end;
		if (sim_replica_end(s, &s->r[best]) != 0)
			return -1;
		/* the closed loop's next requests arrive now, all before a
		   replica starts its next step */
		for (int i = 0; i < s->n_pending; i++)
			arrive(s, s->pending[i], t);
		s->n_pending = 0;
		if (sim_replica_start(s, &s->r[best], t) != 0 ||
		    start_idle(s, t, best) != 0)
			return -1;
	}
	return 0;
}

/* Does a request fit the KV cache of every pool it passes through?  A
   disaggregated prefill replica holds its prompt, a decode replica the
   whole context. */
static int check_fits(const struct sim *s, int i)
{
	const struct sim_request *q = &s->req[i];
	double whole = (double)q->prompt_tokens + q->output_tokens;

	for (int p = 0; p < s->n_pools; p++) {
		const struct sim_engine *e = s->pool[p].eng;
		double need = s->n_pools == 2 && p == 0 ?
				      (double)q->prompt_tokens :
				      whole;

		if (sim_blocks_for(s, need) > e->kv_blocks)
			return diag_set(s->err, NULL, 0, 0,
					"request %d needs %.0f KV-cache blocks "
					"of %d tokens (%d + %d tokens); a%s "
					"replica holds %.0f", i + 1,
					sim_blocks_for(s, need), e->kv_block_tokens,
					q->prompt_tokens,
					s->n_pools == 2 && p == 0 ?
						0 :
						q->output_tokens,
					s->n_pools == 2 ?
						(p == 0 ? " prefill" :
							  " decode") :
						"",
					e->kv_blocks);
	}
	return 0;
}

/* The block of a trace whose every request names its blocks by id, or
   0 (the ids' block sizes differ, or a request names none). */
static int trace_block_tokens(const struct sim_load *l)
{
	int b = l->trace[0].hash_block_tokens;

	for (size_t i = 0; i < l->trace_len; i++)
		if (!l->trace[i].hash_ids || l->trace[i].hash_block_tokens != b)
			return 0;
	return b > 0 ? b : 0;
}

/* Check request i (arrived, its lengths drawn) and set up its sequence. */
static int init_request(struct sim *s, int i)
{
	const struct sim_load *load = s->load;
	struct sim_request *q = &s->req[i];

	if (q->prompt_tokens < 1 || q->output_tokens < 1 ||
	    !(q->arrival_s >= 0.0) || !isfinite(q->arrival_s) ||
	    (i > 0 && q->arrival_s < s->req[i - 1].arrival_s))
		return diag_set(s->err, NULL, 0, 0,
				"request %d: lengths must be at least 1 and "
				"arrivals non-negative and in order", i + 1);
	if (load->output_tokens_max > 0 &&
	    q->output_tokens > load->output_tokens_max)
		q->output_tokens = load->output_tokens_max;
	if (check_fits(s, i) != 0)
		return -1;
	s->target[i] = q->prompt_tokens;
	s->out_left[i] = q->output_tokens;
	s->t_admit[i] = s->t_first[i] = s->t_done[i] = -1.0;
	s->t_xfer[i] = -1.0;
	if (load->prefilled) {
		/* its first token is out: it decodes the rest */
		s->kv_ready[i] = 1;
		s->out_left[i] = q->output_tokens > 1 ? q->output_tokens - 1 :
							1;
	}
	return 0;
}

/* Can two requests of 'l' hold the same KV content (a shared prefix,
   a session's earlier turns, a trace's equal block ids)? */
static bool content_shared(const struct sim_load *l)
{
	if (l->shared_prefix_tokens > 0 ||
	    (l->turns > 1 && l->arrival != SIM_ARRIVAL_TRACE))
		return true;
	for (size_t i = 0; l->arrival == SIM_ARRIVAL_TRACE && i < l->trace_len;
	     i++)
		if (l->trace[i].hash_ids && l->trace[i].n_hash_ids > 0)
			return true;
	return false;
}

static int run_once(const struct sim_pool *pools, int n_pools,
		    const struct sim_transfer *x, const struct sim_load *load,
		    bool may_cache, struct sim_result *r, struct diag *err)
{
	struct sim s;
	double *buf;
	int rc = -1;
	bool spec = false;

	memset(&s, 0, sizeof(s));
	s.eng = pools[0].eng;
	s.load = load;
	s.n_pools = n_pools;
	s.err = err;
	for (int p = 0; p < n_pools; p++) {
		s.pool[p] = pools[p];
		s.replicas += pools[p].replicas;
		spec = spec || pools[p].eng->speculative_tokens > 0;
	}
	if (x)
		s.xfer = *x;
	s.n = load->arrival == SIM_ARRIVAL_TRACE ? (int)load->trace_len :
						   load->requests;
	/* prefix caching: colocated replicas (a disaggregated prefill
	   pool's cache is not modelled) */
	s.caching = may_cache && n_pools == 1 && pools[0].eng->prefix_caching;
	if (s.caching) {
		int b = s.eng->kv_block_tokens;

		/* a mean prompt (a session's, half-way through) in about
		   cache_units_per_prompt units, each of whole blocks */
		double prompt = load->prompt_tokens_mean +
				(load->turns > 1 ?
					 0.5 * (load->turns - 1) *
						 (load->output_tokens_mean +
						  load->turn_tokens_mean) :
					 0.0);
		int want = (int)fmin(cache_unit_max_tokens,
				     fmax(cache_unit_min_tokens,
					  prompt / cache_units_per_prompt));

		s.cache_unit_tokens = b * ((want + b - 1) / b);
		/* a trace whose every request names its blocks (Mooncake's
		   hash_ids): its content is known block by block, so the
		   unit is the block when whole KV blocks make it */
		if (load->arrival == SIM_ARRIVAL_TRACE && load->trace_len > 0) {
			int tb = trace_block_tokens(load);

			if (tb > 0 && tb % b == 0)
				s.cache_unit_tokens = tb;
		}
		s.cache_unit_blocks = s.cache_unit_tokens / b;
		s.offload = s.eng->offload_blocks >= s.cache_unit_blocks &&
			    s.eng->offload_bw_bytes_per_s > 0.0 &&
			    s.eng->offload_block_bytes > 0.0;
		s.host_units = s.offload ?
				       floor(s.eng->offload_blocks /
					     s.cache_unit_blocks) :
				       0.0;
		s.storage = s.eng->storage_blocks >= s.cache_unit_blocks &&
			    s.eng->storage_bw_bytes_per_s > 0.0 &&
			    s.eng->offload_block_bytes > 0.0;
		s.disk_units = s.storage ? floor(s.eng->storage_blocks /
						 s.cache_unit_blocks) :
					   0.0;
	}
	s.sessions_on = load->turns > 1 && load->arrival != SIM_ARRIVAL_TRACE;
	if (sim_alloc(&s) != 0) {
		diag_set_kind(err, DIAG_NOMEM, NULL, 0, 0,
			      "out of memory");
		goto out;
	}
	if (!s.req_session && make_requests(&s) != 0)
		goto out;
	if (spec) {
		/* a stream of its own, so that the lengths do not change
		   with speculation */
		s.spec_rng = gsl_rng_alloc(gsl_rng_mt19937);
		if (!s.spec_rng) {
			diag_set_kind(err, DIAG_NOMEM, NULL, 0, 0,
			      "out of memory");
			goto out;
		}
		gsl_rng_set(s.spec_rng, load->seed ^ 0x9e3779b9UL);
	}
	if (load->arrival == SIM_ARRIVAL_POISSON && s.n > 1 && !s.req_session) {
		s.win_a = s.req[sim_warmup_count(&s)].arrival_s;
		s.win_b = s.req[s.n - 1].arrival_s;
	}
	if (s.req_session) {
		if (sessions_init(&s) != 0)
			goto out;
	} else {
		for (int i = 0; i < s.n; i++)
			if (init_request(&s, i) != 0)
				goto out;
	}
	if (run_events(&s) != 0)
		goto out;
	buf = malloc((size_t)s.n * sizeof(*buf));
	if (!buf) {
		diag_set_kind(err, DIAG_NOMEM, NULL, 0, 0,
			      "out of memory");
		goto out;
	}
	sim_summarize(&s, r, buf);
	free(buf);
	rc = 0;
out:
	sim_free(&s);
	if (rc != 0)
		memset(r, 0, sizeof(*r));
	return rc;
}

/*
 * Run the pools.  A prefix cache that holds no content two requests share
 * is hit only by a request that comes back after a preemption (its own
 * blocks): without a preemption, its run is the run without the cache,
 * number for number (the cache's free units take room that admission does
 * not count; the summary's hit rates are 0 either way), and that run
 * skips its bookkeeping by unit (two thirds of a run's instructions).  So
 * such a run goes without the cache first, and again with it when
 * something was preempted.
 */
static int run_pools(const struct sim_pool *pools, int n_pools,
		     const struct sim_transfer *x, const struct sim_load *load,
		     struct sim_result *r, struct diag *err)
{
	if (n_pools == 1 && pools[0].eng->prefix_caching &&
	    !load->no_shortcuts && !content_shared(load)) {
		if (run_once(pools, n_pools, x, load, false, r, err) != 0)
			return -1;
		if (r->preemptions == 0)
			return 0;
		memset(r, 0, sizeof(*r));
	}
	return run_once(pools, n_pools, x, load, true, r, err);
}

int sim_run(const struct sim_engine *eng, int replicas,
	    const struct sim_load *load, sim_step_fn step, void *ctx,
	    struct sim_result *r, struct diag *err)
{
	struct sim_pool pool;

	memset(r, 0, sizeof(*r));
	if (check_args(eng, replicas, load, step, err) != 0)
		return -1;
	pool.eng = eng;
	pool.replicas = replicas;
	pool.step = step;
	pool.ctx = ctx;
	pool.steps = NULL;
	return run_pools(&pool, 1, NULL, load, r, err);
}

int sim_run_pool(const struct sim_pool *pool, const struct sim_load *load,
		 struct sim_result *r, struct diag *err)
{
	memset(r, 0, sizeof(*r));
	if (!pool)
		return diag_set(err, NULL, 0, 0, "no pool to simulate");
	if (check_args(pool->eng, pool->replicas, load, pool->step, err) != 0)
		return -1;
	return run_pools(pool, 1, NULL, load, r, err);
}

int sim_run_disaggregated(const struct sim_pool *prefill,
			  const struct sim_pool *decode,
			  const struct sim_transfer *x,
			  const struct sim_load *load, struct sim_result *r,
			  struct diag *err)
{
	struct sim_pool pools[2];

	memset(r, 0, sizeof(*r));
	if (!prefill || !decode || !x)
		return diag_set(err, NULL, 0, 0, "no pools");
	if (check_args(prefill->eng, prefill->replicas, load, prefill->step,
		       err) != 0 ||
	    check_engine(decode->eng, decode->replicas, decode->step, err) !=
		    0)
		return -1;
	if (prefill->eng->kv_block_tokens != decode->eng->kv_block_tokens)
		return diag_set(err, NULL, 0, 0,
				"the prefill and decode pools need the same "
				"KV block size (%d, %d)",
				prefill->eng->kv_block_tokens,
				decode->eng->kv_block_tokens);
	if (!(x->latency_s >= 0.0) || !isfinite(x->latency_s) ||
	    !(x->bytes_per_token >= 0.0) || !isfinite(x->bytes_per_token) ||
	    !(x->bw_bytes_per_s > 0.0))
		return diag_set(err, NULL, 0, 0,
				"the KV transfer needs a latency and bytes per "
				"token of at least 0 and a positive bandwidth");
	if (load->prefilled)
		return diag_set(err, NULL, 0, 0,
				"a prefilled load has no prefill pool");
	if ((long long)prefill->replicas + decode->replicas > INT_MAX / 4)
		return diag_set(err, NULL, 0, 0, "too many replicas");
	pools[0] = *prefill;
	pools[1] = *decode;
	return run_pools(pools, 2, x, load, r, err);
}

