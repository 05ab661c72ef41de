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

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_statistics_double.h>



/* A Poisson run is overloaded when more than this fraction of its
   requests still wait for admission once the last one has arrived. */
static const double overload_waiting_fraction = 0.05;


enum seq_state {
	SEQ_PENDING = 0, /* not arrived yet */
	SEQ_WAITING,
	SEQ_PREFILL,
	SEQ_DECODE,
	SEQ_TRANSFER, /* disaggregated: its KV cache on the way to a decode
			 replica */
	SEQ_DONE,
};

/* A decoding sequence in a replica's heap: it ends at decode clock
   'finish'; stale when 'gen' no longer matches the sequence. */
struct heap_item {
	long long finish;
	int seq;
	unsigned gen;
};

struct heap {
	struct heap_item *v;
	size_t n, cap;
};

/* A double-ended queue of sequence indices. */
struct deque {
	int *v;
	size_t cap, head, n;
};

struct replica {
	const struct sim_pool *pool; /* its engine and step model */
	int pool_index;        /* 0, or 1 for the decode pool */
	double link_free_s;    /* disaggregated prefill: when its link to
				  the decode pool is free */
	struct deque wait;     /* FIFO; preempted sequences at the front */
	struct deque prefill;  /* admitted, prompt not all in the cache */
	struct heap dec;       /* decoding sequences by end */
	int *admitted;         /* admission order, for preemption victims */
	size_t n_admitted, cap_admitted;
	long long *res;        /* decoding sequences by k mod block */
	long long clock;       /* decode steps run */
	long long n_dec;       /* decoding sequences */
	long long sum_k;       /* their k, summed */
	double blocks_used;
	int running;           /* admitted and not done */
	int outstanding;       /* waiting + running */
	int round_left;        /* decode steps left in this round */
	bool busy;
	bool step_decodes;     /* the running step advances the decodes */
	int step_adv;          /* tokens each decoding sequence gains in it:
				  1, or the accepted drafts plus one */
	double t_end;
	double step_tokens;    /* tokens the running step emits: its
				  prefills' first tokens (the decodes' are
				  counted at its end) */
	double step_prompt;    /* prompt tokens it prefills */
	int *step_pf;          /* sequences whose prefill ends this step */
	int n_step_pf;
};

/* KV caches in transfer, a heap by arrival at the decode pool. */
struct xfer_item {
	double t;
	int seq;
};

struct sim {
	const struct sim_engine *eng; /* the first pool's (block size) */
	const struct sim_load *load;
	struct sim_pool pool[2];
	int n_pools;            /* 1, or 2 when disaggregated */
	struct sim_transfer xfer;
	struct xfer_item *xq;   /* transfers in flight */
	size_t n_xq;
	int n;                  /* requests */
	int replicas;           /* of every pool */
	struct sim_request *req;
	/* per sequence (one per request) */
	unsigned char *state;
	unsigned char *kv_ready; /* its KV cache arrives whole (decode pool) */
	double *t_xfer;         /* disaggregated: transfer time, or -1 */
	int *target;            /* tokens to prefill */
	int *prefilled;
	int *out_left;          /* tokens to generate after the prefill */
	long long *k;
	long long *fin;         /* decode clock at which it ends */
	unsigned *gen;
	int *rep;
	double *t_admit, *t_first, *t_done;
	/* arrivals */
	int next_arrival;       /* next request to arrive */
	int issued;             /* closed loop: requests released */
	int *pending;           /* closed loop: released by a completion */
	int n_pending;
	int rr[2];              /* router: where each pool's tie scan starts */
	gsl_rng *spec_rng;      /* speculative decoding: drafts accepted */
	struct replica *r;
	int *ev;                /* busy replicas, a heap by t_end */
	int *ev_pos;            /* a replica's place in it, or -1 */
	double *ev_t;           /* the heap's keys */
	int n_ev;
	/* statistics */
	double busy_s, batch_s, kv_s;
	double decode_steps, decode_adv; /* decode steps, their advances */
	long long steps, request_steps, preemptions;
	int done;
	int waiting_at_last_arrival;
	/* Poisson: tokens emitted by steps that end in [win_a, win_b), from
	   the first measured arrival to the last arrival */
	double win_a, win_b, win_out, win_in;
	struct diag *err;
};

/* ---------------------------------------------------------------------
 * Containers
 */

static void heap_swap(struct heap_item *a, struct heap_item *b)
{
	struct heap_item t = *a;

	*a = *b;
	*b = t;
}

static int heap_push(struct heap *h, struct heap_item it)
{
	size_t i;

	if (h->n == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 64;
		struct heap_item *v;

		if (cap > SIZE_MAX / sizeof(*v))
			return -1;
		v = realloc(h->v, cap * sizeof(*v));
		if (!v)
			return -1;
		h->v = v;
		h->cap = cap;
	}
	i = h->n++;
	h->v[i] = it;
	while (i > 0 && h->v[(i - 1) / 2].finish > h->v[i].finish) {
		heap_swap(&h->v[(i - 1) / 2], &h->v[i]);
		i = (i - 1) / 2;
	}
	return 0;
}

static void heap_pop(struct heap *h)
{
	size_t i = 0;

	h->v[0] = h->v[--h->n];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < h->n && h->v[l].finish < h->v[m].finish)
			m = l;
		if (r < h->n && h->v[r].finish < h->v[m].finish)
			m = r;
		if (m == i)
			break;
		heap_swap(&h->v[m], &h->v[i]);
		i = m;
	}
}

static int deque_init(struct deque *d, size_t cap)
{
	d->v = malloc((cap ? cap : 1) * sizeof(*d->v));
	d->cap = cap ? cap : 1;
	d->head = 0;
	d->n = 0;
	return d->v ? 0 : -1;
}

static void deque_push_back(struct deque *d, int x)
{
	d->v[(d->head + d->n++) % d->cap] = x;
}

static void deque_push_front(struct deque *d, int x)
{
	d->head = (d->head + d->cap - 1) % d->cap;
	d->v[d->head] = x;
	d->n++;
}

static int deque_front(const struct deque *d)
{
	return d->v[d->head];
}

static void deque_pop_front(struct deque *d)
{
	d->head = (d->head + 1) % d->cap;
	d->n--;
}

static int deque_at(const struct deque *d, size_t i)
{
	return d->v[(d->head + i) % d->cap];
}

/* Remove the element at position i (the prefill list is short). */
static void deque_remove_at(struct deque *d, size_t i)
{
	for (; i + 1 < d->n; i++)
		d->v[(d->head + i) % d->cap] = d->v[(d->head + i + 1) % d->cap];
	d->n--;
}

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
		return diag_set(s->err, NULL, 0, 0, "out of memory");
	gsl_rng_set(rng, l->seed);
	sim_lengths_init(&lg, l);
	for (int i = 0; i < s->n; i++) {
		if (l->arrival == SIM_ARRIVAL_POISSON) {
			t += gsl_ran_exponential(rng, 1.0 / l->rate_per_s);
			s->req[i].arrival_s = t;
		} else {
			s->req[i].arrival_s = 0.0;
		}
		sim_lengths_draw(&lg, rng, &s->req[i]);
	}
	gsl_rng_free(rng);
	return 0;
}

/* ---------------------------------------------------------------------
 * Replicas
 */

static double blocks_for(const struct sim *s, double tokens)
{
	return ceil(tokens / s->eng->kv_block_tokens);
}

static long long mod_block(const struct sim *s, long long x)
{
	long long b = s->eng->kv_block_tokens;
	long long m = x % b;

	return m < 0 ? m + b : m;
}

/* The heap of busy replicas by the end of their step. */
static bool ev_less(const struct sim *s, int a, int b)
{
	return s->ev_t[a] < s->ev_t[b];
}

static void ev_swap(struct sim *s, int a, int b)
{
	int t = s->ev[a];
	double tt = s->ev_t[a];

	s->ev[a] = s->ev[b];
	s->ev[b] = t;
	s->ev_t[a] = s->ev_t[b];
	s->ev_t[b] = tt;
	s->ev_pos[s->ev[a]] = a;
	s->ev_pos[s->ev[b]] = b;
}

static void ev_up(struct sim *s, int i)
{
	while (i > 0 && ev_less(s, i, (i - 1) / 2)) {
		ev_swap(s, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static void ev_down(struct sim *s, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;

		if (l < s->n_ev && ev_less(s, l, m))
			m = l;
		if (r < s->n_ev && ev_less(s, r, m))
			m = r;
		if (m == i)
			return;
		ev_swap(s, i, m);
		i = m;
	}
}

static void ev_insert(struct sim *s, int rep)
{
	s->ev[s->n_ev] = rep;
	s->ev_t[s->n_ev] = s->r[rep].t_end;
	s->ev_pos[rep] = s->n_ev;
	ev_up(s, s->n_ev++);
}

static void ev_remove(struct sim *s, int rep)
{
	int i = s->ev_pos[rep];

	if (i < 0)
		return;
	s->ev_pos[rep] = -1;
	if (i == --s->n_ev)
		return;
	s->ev[i] = s->ev[s->n_ev];
	s->ev_t[i] = s->ev_t[s->n_ev];
	s->ev_pos[s->ev[i]] = i;
	ev_up(s, i);
	ev_down(s, s->ev_pos[s->ev[i]] == i ? i : s->ev_pos[s->ev[i]]);
}

static int replica_init(struct sim *s, struct replica *r, int pool)
{
	size_t n = (size_t)s->n;
	size_t mb = (size_t)s->pool[pool].eng->max_batch;

	memset(r, 0, sizeof(*r));
	r->pool = &s->pool[pool];
	r->pool_index = pool;
	if (deque_init(&r->wait, n + 1) != 0 ||
	    deque_init(&r->prefill, (mb < n ? mb : n) + 1) != 0)
		return -1;
	r->res = calloc((size_t)s->eng->kv_block_tokens, sizeof(*r->res));
	r->step_pf = malloc(((mb < n ? mb : n) + 1) * sizeof(*r->step_pf));
	return r->res && r->step_pf ? 0 : -1;
}

static void replica_free(struct replica *r)
{
	free(r->wait.v);
	free(r->prefill.v);
	free(r->dec.v);
	free(r->admitted);
	free(r->res);
	free(r->step_pf);
}

/* Context tokens in the KV cache of a decoding sequence. */
static long long dec_ctx(const struct replica *r, const struct sim *s, int q)
{
	return r->clock + s->k[q];
}

static void dec_remove(struct sim *s, struct replica *r, int q)
{
	r->n_dec--;
	r->sum_k -= s->k[q];
	r->res[mod_block(s, s->k[q])]--;
	s->gen[q]++;
}

static int dec_add(struct sim *s, struct replica *r, int q, long long ctx)
{
	struct heap_item it;

	s->k[q] = ctx - r->clock;
	s->state[q] = SEQ_DECODE;
	r->n_dec++;
	r->sum_k += s->k[q];
	r->res[mod_block(s, s->k[q])]++;
	it.finish = r->clock + s->out_left[q];
	s->fin[q] = it.finish;
	it.seq = q;
	it.gen = s->gen[q];
	return heap_push(&r->dec, it);
}

/* Take back the latest admitted running sequence (vLLM's recompute
   preemption): its blocks are freed and it waits at the front, to
   prefill its prompt and the tokens it generated again.  Returns 0, or
   -1 when nothing runs. */
static int preempt_one(struct sim *s, struct replica *r)
{
	while (r->n_admitted > 0) {
		int q = r->admitted[--r->n_admitted];

		if (s->rep[q] != r - s->r)
			continue;
		if (s->state[q] == SEQ_DECODE) {
			long long ctx = dec_ctx(r, s, q);
			long long left = s->fin[q] - r->clock;

			/* its heap entry goes stale with the generation */
			r->blocks_used -= blocks_for(s, (double)ctx);
			dec_remove(s, r, q);
			s->out_left[q] = (int)left;
			/* the cache held every token but the last one
			   generated: all are prefilled again */
			s->target[q] = (int)(ctx + 1);
		} else if (s->state[q] == SEQ_PREFILL) {
			for (size_t i = 0; i < r->prefill.n; i++)
				if (deque_at(&r->prefill, i) == q) {
					deque_remove_at(&r->prefill, i);
					break;
				}
			r->blocks_used -= blocks_for(s, s->target[q]);
		} else {
			continue;
		}
		s->prefilled[q] = 0;
		s->state[q] = SEQ_WAITING;
		r->running--;
		deque_push_front(&r->wait, q);
		s->preemptions++;
		return 0;
	}
	return -1;
}

static int admitted_push(struct replica *r, int q)
{
	if (r->n_admitted == r->cap_admitted) {
		size_t cap = r->cap_admitted ? 2 * r->cap_admitted : 64;
		int *v;

		if (cap > SIZE_MAX / sizeof(*v))
			return -1;
		v = realloc(r->admitted, cap * sizeof(*v));
		if (!v)
			return -1;
		r->admitted = v;
		r->cap_admitted = cap;
	}
	r->admitted[r->n_admitted++] = q;
	return 0;
}

/* Can the head of the wait queue be admitted now (to prefill, or, with
   'ready', to decode with the KV cache it brings)? */
static bool can_admit_as(const struct sim *s, const struct replica *r,
			 bool ready)
{
	int q;

	if (r->wait.n == 0 || r->running >= r->pool->eng->max_batch)
		return false;
	q = deque_front(&r->wait);
	return (s->kv_ready[q] != 0) == ready &&
	       r->blocks_used + blocks_for(s, s->target[q]) <=
		       r->pool->eng->kv_blocks;
}

static bool can_admit(const struct sim *s, const struct replica *r)
{
	return can_admit_as(s, r, false);
}

static int admit_head(struct sim *s, struct replica *r, double t)
{
	int q = deque_front(&r->wait);

	deque_pop_front(&r->wait);
	r->blocks_used += blocks_for(s, s->target[q]);
	r->running++;
	s->state[q] = SEQ_PREFILL;
	s->prefilled[q] = 0;
	if (s->t_admit[q] < 0.0)
		s->t_admit[q] = t;
	deque_push_back(&r->prefill, q);
	return admitted_push(r, q);
}

/* A decode replica of a disaggregated fleet: admit the head sequences
   whose KV cache has arrived straight into decoding. */
static int admit_ready(struct sim *s, struct replica *r, double t)
{
	while (can_admit_as(s, r, true)) {
		int q = deque_front(&r->wait);

		deque_pop_front(&r->wait);
		r->blocks_used += blocks_for(s, s->target[q]);
		r->running++;
		s->kv_ready[q] = 0;
		if (s->t_admit[q] < 0.0)
			s->t_admit[q] = t;
		if (admitted_push(r, q) != 0 ||
		    dec_add(s, r, q, s->target[q]) != 0)
			return diag_set(s->err, NULL, 0, 0, "out of memory");
	}
	return 0;
}

/* Add 'c' prompt tokens of sequence q to the step's mix. */
static void add_chunk(struct sim *s, struct replica *r, struct sim_mix *m,
		      int q, int c)
{
	double o = s->prefilled[q];

	m->prefill_tokens += c;
	m->prefill_attn_pairs += c * (o + 0.5 * c);
	m->prefill_seqs += 1.0;
	s->prefilled[q] += c;
	if (s->prefilled[q] >= s->target[q]) {
		m->logit_rows += 1.0;
		r->step_pf[r->n_step_pf++] = q;
	}
}

/*
 * Reserve the blocks that the decoding sequences' next tokens open,
 * preempting the latest admitted sequence until the cache holds them.
 * Returns 0, or -1 when even one sequence cannot go on.
 */
static int reserve_decode(struct sim *s, struct replica *r, int adv)
{
	for (;;) {
		double need = 0.0;

		/* the tokens go to positions ctx .. ctx + adv - 1; a
		   position that is a multiple of the block size opens a
		   block (ctx = clock + k) */
		for (int j = 0; j < adv; j++)
			need += (double)r->res[mod_block(s, -r->clock - j)];

		if (r->blocks_used + need <= r->pool->eng->kv_blocks) {
			r->blocks_used += need;
			return 0;
		}
		if (preempt_one(s, r) != 0)
			return diag_set(s->err, NULL, 0, 0,
					"the KV cache cannot hold one "
					"sequence's next token");
	}
}

/* Prompt chunks of a mixed step: every decoding sequence counts one
   token of the budget; partial prompts go first, then new ones. */
static int plan_chunks(struct sim *s, struct replica *r, struct sim_mix *m,
		       double t)
{
	long long budget = (long long)r->pool->eng->max_batched_tokens - r->n_dec;

	for (size_t i = 0; i < r->prefill.n && budget > 0; i++) {
		int q = deque_at(&r->prefill, i);
		long long c = s->target[q] - s->prefilled[q];

		if (c > budget)
			c = budget;
		add_chunk(s, r, m, q, (int)c);
		budget -= c;
	}
	while (budget > 0 && can_admit(s, r)) {
		int q = deque_front(&r->wait);
		long long c = s->target[q];

		if (admit_head(s, r, t) != 0)
			return -1;
		if (c > budget)
			c = budget;
		add_chunk(s, r, m, q, (int)c);
		budget -= c;
	}
	return 0;
}

/* A prefill-only step: whole prompts within the token budget (the first
   one whatever its length). */
static int plan_prefill(struct sim *s, struct replica *r, struct sim_mix *m,
			double t)
{
	double tokens = 0.0;

	while (can_admit(s, r)) {
		int q = deque_front(&r->wait);

		if (tokens > 0.0 &&
		    tokens + s->target[q] > r->pool->eng->max_batched_tokens)
			break;
		if (admit_head(s, r, t) != 0)
			return -1;
		deque_pop_front(&r->prefill);
		tokens += s->target[q];
		add_chunk(s, r, m, q, s->target[q]);
	}
	return 0;
}

/* Tokens a decode step gives each sequence: one without speculation;
   with it, one more than the drafts accepted, each in turn with
   probability acceptance_rate until one is rejected (Leviathan et al.
   2023, section 3.1).  The draw is the step's, shared by its sequences:
   each sequence sees the same distribution step by step, so its time per
   token does too. */
static int draw_advance(struct sim *s, const struct replica *r)
{
	const struct sim_engine *e = r->pool->eng;
	int g = 1;

	if (e->speculative_tokens <= 0)
		return 1;
	while (g <= e->speculative_tokens &&
	       gsl_rng_uniform(s->spec_rng) < e->acceptance_rate)
		g++;
	return g;
}

/* The time of a step of mix m: with speculative decoding, the target
   verifies every draft token of the decoding sequences, and the draft
   model first runs the step's prompt tokens and its decodes, then
   speculative_tokens - 1 more decode steps, at draft_cost_ratio of the
   target's time for the same mix. */
static double step_time(const struct replica *r, struct sim_mix *m)
{
	const struct sim_pool *p = r->pool;
	const struct sim_engine *e = p->eng;
	struct sim_mix dec;
	double t, t_mix, t_dec;

	if (e->speculative_tokens <= 0 || m->decode_seqs <= 0.0)
		return p->step(p->ctx, m);
	t_mix = p->step(p->ctx, m);
	dec = *m;
	dec.prefill_tokens = dec.prefill_attn_pairs = dec.prefill_seqs = 0.0;
	dec.logit_rows = dec.decode_seqs;
	t_dec = m->prefill_tokens > 0.0 ? p->step(p->ctx, &dec) : t_mix;
	m->verify_tokens = m->decode_seqs * e->speculative_tokens;
	t = p->step(p->ctx, m);
	return t + e->draft_cost_ratio *
			   (t_mix + (e->speculative_tokens - 1) * t_dec);
}

/*
 * Decide the next step of replica r at time t and start it.  Returns 0
 * (started, or idle with nothing to do) or -1 on an error.
 */
static int replica_start(struct sim *s, struct replica *r, double t)
{
	const struct sim_engine *e = r->pool->eng;
	struct sim_mix m;
	double dt;
	bool decode;

	memset(&m, 0, sizeof(m));
	r->n_step_pf = 0;
	if (r->n_dec == 0)
		r->round_left = 0; /* a round ends with its sequences */
	if (r->round_left == 0 && admit_ready(s, r, t) != 0)
		return -1;
	r->step_adv = r->n_dec > 0 ? draw_advance(s, r) : 1;
	if (r->round_left > 0) {
		/* inside a round of decode steps: no one joins */
		decode = true;
		r->round_left--;
		if (reserve_decode(s, r, r->step_adv) != 0)
			return -1;
	} else if (e->chunked_prefill) {
		/* decodes first, so that no preemption takes a sequence
		   this step's prompt chunks hold */
		decode = r->n_dec > 0;
		if (decode && reserve_decode(s, r, r->step_adv) != 0)
			return -1;
		if (plan_chunks(s, r, &m, t) != 0)
			return -1;
		if (m.prefill_tokens == 0.0 && r->n_dec > 0)
			r->round_left = e->scheduler_steps - 1;
	} else if (can_admit(s, r)) {
		decode = false;
		if (plan_prefill(s, r, &m, t) != 0)
			return -1;
	} else {
		decode = r->n_dec > 0;
		if (decode) {
			r->round_left = e->scheduler_steps - 1;
			if (reserve_decode(s, r, r->step_adv) != 0)
				return -1;
		}
	}
	decode = r->n_dec > 0 && decode;
	if (decode) {
		m.decode_seqs = (double)r->n_dec;
		m.decode_ctx_tokens = (double)r->n_dec * r->clock +
				      (double)r->sum_k + (double)r->n_dec;
		m.logit_rows += (double)r->n_dec;
	}
	if (m.prefill_tokens == 0.0 && !decode) {
		r->busy = false;
		r->round_left = 0;
		return 0;
	}
	r->step_tokens = m.logit_rows - m.decode_seqs;
	dt = step_time(r, &m);
	if (!(dt > 0.0) || !isfinite(dt))
		return diag_set(s->err, NULL, 0, 0,
				"the step model gave %g s for a step", dt);
	r->busy = true;
	r->step_decodes = decode;
	if (decode) {
		s->decode_steps += 1.0;
		s->decode_adv += r->step_adv;
	}
	r->step_prompt = m.prefill_tokens;
	r->t_end = t + dt;
	ev_insert(s, (int)(r - s->r));
	s->steps++;
	s->request_steps += (long long)(m.decode_seqs + m.prefill_seqs);
	s->busy_s += dt;
	s->batch_s += dt * (double)r->running;
	s->kv_s += dt * r->blocks_used / e->kv_blocks;
	return 0;
}

static void finish_seq(struct sim *s, struct replica *r, int q, double t)
{
	s->state[q] = SEQ_DONE;
	s->t_done[q] = t;
	r->running--;
	r->outstanding--;
	s->done++;
	if (s->load->arrival == SIM_ARRIVAL_CLOSED && s->issued < s->n)
		s->pending[s->n_pending++] = s->issued++;
}

/* The transfers in flight: a heap by arrival time. */
static void xq_push(struct sim *s, double t, int q)
{
	size_t i = s->n_xq++;

	s->xq[i].t = t;
	s->xq[i].seq = q;
	while (i > 0 && s->xq[(i - 1) / 2].t > s->xq[i].t) {
		struct xfer_item x = s->xq[i];

		s->xq[i] = s->xq[(i - 1) / 2];
		s->xq[(i - 1) / 2] = x;
		i = (i - 1) / 2;
	}
}

static void xq_pop(struct sim *s)
{
	size_t i = 0;

	s->xq[0] = s->xq[--s->n_xq];
	for (;;) {
		size_t l = 2 * i + 1, rr = l + 1, m = i;
		struct xfer_item x;

		if (l < s->n_xq && s->xq[l].t < s->xq[m].t)
			m = l;
		if (rr < s->n_xq && s->xq[rr].t < s->xq[m].t)
			m = rr;
		if (m == i)
			return;
		x = s->xq[i];
		s->xq[i] = s->xq[m];
		s->xq[m] = x;
		i = m;
	}
}

/*
 * A disaggregated prefill ends: the sequence leaves its prefill replica's
 * batch and its KV cache goes to the decode pool over the replica's link,
 * one transfer after another (DistServe: Zhong et al. 2024).  The prefill
 * replica holds the cache until the transfer ends.
 */
static int xfer_start(struct sim *s, struct replica *r, int q, double t)
{
	const struct sim_transfer *x = &s->xfer;
	double start = fmax(t, r->link_free_s);
	double d = x->latency_s +
		   s->target[q] * x->bytes_per_token / x->bw_bytes_per_s;

	s->state[q] = SEQ_TRANSFER;
	r->running--;
	r->outstanding--;
	r->link_free_s = start + d;
	s->t_xfer[q] = start + d - t;
	xq_push(s, start + d, q);
	return 0;
}

/* Route request q to the replica of pool 'pool' with the fewest
   outstanding requests (ties go round the pool). */
static void route_to(struct sim *s, int q, int pool);

/* A transfer ends: the prefill replica frees the cache, and the sequence
   waits for a decode replica with its cache in hand. */
static void xfer_end(struct sim *s)
{
	int q = s->xq[0].seq;
	struct replica *from = &s->r[s->rep[q]];

	xq_pop(s);
	from->blocks_used -= blocks_for(s, s->target[q]);
	s->kv_ready[q] = 1;
	route_to(s, q, 1);
}

/* The step of replica r ends at its t_end. */
static int replica_end(struct sim *s, struct replica *r)
{
	double t = r->t_end;

	r->busy = false;
	ev_remove(s, (int)(r - s->r));
	if (r->step_decodes) {
		/* every decoding sequence gains step_adv tokens, those that
		   end within them only the ones they still needed */
		r->step_tokens += (double)r->n_dec * r->step_adv;
		r->clock += r->step_adv;
		while (r->dec.n > 0 && r->dec.v[0].finish <= r->clock) {
			struct heap_item it = r->dec.v[0];

			heap_pop(&r->dec);
			if (it.gen != s->gen[it.seq] ||
			    s->state[it.seq] != SEQ_DECODE)
				continue;
			r->step_tokens -= (double)(r->clock - it.finish);
			r->blocks_used -= blocks_for(
				s, (double)dec_ctx(r, s, it.seq));
			dec_remove(s, r, it.seq);
			finish_seq(s, r, it.seq, t);
		}
	}
	if (t >= s->win_a && t < s->win_b) {
		s->win_out += r->step_tokens;
		s->win_in += r->step_prompt;
	}
	for (int i = 0; i < r->n_step_pf; i++) {
		int q = r->step_pf[i];

		/* the prefill emits a token: the first, or the next after a
		   recomputation */
		if (s->t_first[q] < 0.0)
			s->t_first[q] = t;
		for (size_t j = 0; j < r->prefill.n; j++)
			if (deque_at(&r->prefill, j) == q) {
				deque_remove_at(&r->prefill, j);
				break;
			}
		s->out_left[q]--;
		if (s->out_left[q] <= 0) {
			r->blocks_used -= blocks_for(s, s->target[q]);
			finish_seq(s, r, q, t);
		} else if (s->n_pools == 2 && r->pool_index == 0) {
			if (xfer_start(s, r, q, t) != 0)
				return diag_set(s->err, NULL, 0, 0,
						"out of memory");
		} else if (dec_add(s, r, q, s->target[q]) != 0) {
			return diag_set(s->err, NULL, 0, 0, "out of memory");
		}
	}
	r->n_step_pf = 0;
	return 0;
}

static void route_to(struct sim *s, int q, int pool)
{
	int first = pool == 0 ? 0 : s->pool[0].replicas;
	int n = s->pool[pool].replicas;
	int *rr = &s->rr[pool];
	int best = -1;

	for (int i = 0; i < n; i++) {
		int j = first + (*rr + i) % n;

		if (best < 0 || s->r[j].outstanding < s->r[best].outstanding)
			best = j;
	}
	*rr = (best - first + 1) % n;
	s->rep[q] = best;
	s->state[q] = SEQ_WAITING;
	s->r[best].outstanding++;
	deque_push_back(&s->r[best].wait, q);
}

/* A new request goes to the first pool. */
static void route(struct sim *s, int q)
{
	route_to(s, q, 0);
}

/* ---------------------------------------------------------------------
 * Statistics
 */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double quantile(double *v, size_t n, double f)
{
	return n ? gsl_stats_quantile_from_sorted_data(v, 1, n, f) : 0.0;
}

/* Requests of the warm-up: the first of them by arrival, none for a
   burst or a trace. */
static int warmup_count(const struct sim *s)
{
	int w;

	if (s->load->arrival != SIM_ARRIVAL_POISSON &&
	    s->load->arrival != SIM_ARRIVAL_CLOSED)
		return 0;
	w = (int)floor(SIM_WARMUP_FRACTION * s->n);
	while (w < s->n / 2 && s->req[w].arrival_s < s->load->warmup_s)
		w++;
	return w;
}

static void summarize(struct sim *s, struct sim_result *res, double *buf)
{
	int w = 0, m = 0;
	double first = HUGE_VAL, last = 0.0, out = 0.0, in = 0.0;
	double end = 0.0;
	size_t nt = 0;

	w = warmup_count(s);
	m = s->n - w;
	for (int i = w; i < s->n; i++) {
		first = fmin(first, s->req[i].arrival_s);
		last = fmax(last, s->t_done[i]);
		out += s->req[i].output_tokens;
		in += s->req[i].prompt_tokens;
	}
	for (int i = 0; i < s->n; i++)
		end = fmax(end, s->t_done[i]);
	res->simulated_requests = s->n;
	res->measured_requests = m;
	res->duration_s = end - s->req[0].arrival_s;
	if (s->load->arrival == SIM_ARRIVAL_POISSON && s->win_b > s->win_a) {
		/* a steady load: the tokens emitted while requests still
		   arrive (neither the fill at the start nor the drain at the
		   end), in requests of the mean length */
		double mean_out = 0.0;

		for (int i = 0; i < s->n; i++)
			mean_out += s->req[i].output_tokens;
		mean_out /= s->n;
		first = s->win_a;
		last = s->win_b;
		out = s->win_out;
		in = s->win_in;
		m = 0;
		res->request_throughput_per_s = out / mean_out / (last - first);
	} else if (w > 0) {
		/* a closed loop: the completions while requests are still
		   released */
		double a = s->req[w].arrival_s, b = 0.0;
		double done = 0.0;

		for (int i = 0; i < s->n; i++)
			b = fmax(b, s->req[i].arrival_s);
		out = in = 0.0;
		for (int i = 0; i < s->n; i++)
			if (s->t_done[i] >= a && s->t_done[i] < b) {
				done += 1.0;
				out += s->req[i].output_tokens;
				in += s->req[i].prompt_tokens;
			}
		if (b > a) {
			first = a;
			last = b;
			m = (int)done;
		}
	}
	if (s->load->arrival != SIM_ARRIVAL_POISSON || !(s->win_b > s->win_a))
		res->request_throughput_per_s = last > first ?
							m / (last - first) :
							0;
	res->output_tokens_per_s = last > first ? out / (last - first) : 0.0;
	res->input_tokens_per_s = last > first ? in / (last - first) : 0.0;

#define SUMMARY(expr, mean, ...)                                        \
	do {                                                            \
		double sum_ = 0.0;                                      \
		nt = 0;                                                 \
		for (int i = w; i < s->n; i++) {                        \
			double x_ = (expr);                             \
			if (isfinite(x_)) {                             \
				buf[nt++] = x_;                         \
				sum_ += x_;                             \
			}                                               \
		}                                                       \
		qsort(buf, nt, sizeof(*buf), cmp_double);               \
		mean = nt ? sum_ / nt : 0.0;                            \
		__VA_ARGS__;                                            \
	} while (0)

	SUMMARY(s->t_first[i] - s->req[i].arrival_s, res->ttft_mean_s,
		res->ttft_p50_s = quantile(buf, nt, 0.50),
		res->ttft_p90_s = quantile(buf, nt, 0.90),
		res->ttft_p99_s = quantile(buf, nt, 0.99));
	SUMMARY(s->req[i].output_tokens > 1 ?
			(s->t_done[i] - s->t_first[i]) /
				(s->req[i].output_tokens - 1) :
			(double)NAN,
		res->tpot_mean_s, res->tpot_p50_s = quantile(buf, nt, 0.50),
		res->tpot_p90_s = quantile(buf, nt, 0.90),
		res->tpot_p99_s = quantile(buf, nt, 0.99));
	SUMMARY(s->t_done[i] - s->req[i].arrival_s, res->e2e_mean_s,
		res->e2e_p50_s = quantile(buf, nt, 0.50),
		res->e2e_p99_s = quantile(buf, nt, 0.99));
	SUMMARY(s->t_admit[i] - s->req[i].arrival_s, res->queue_wait_mean_s,
		res->queue_wait_p99_s = quantile(buf, nt, 0.99));
	SUMMARY(s->t_xfer[i] >= 0.0 ? s->t_xfer[i] : (double)NAN,
		res->kv_transfer_mean_s, (void)0);
#undef SUMMARY
	res->mean_batch = s->busy_s > 0.0 ? s->batch_s / s->busy_s : 0.0;
	res->kv_utilization = s->busy_s > 0.0 ? s->kv_s / s->busy_s : 0.0;
	res->busy_fraction = res->duration_s > 0.0 ?
				     s->busy_s / (s->replicas * res->duration_s) :
				     0.0;
	res->tokens_per_decode_step = s->decode_steps > 0.0 ?
					      s->decode_adv / s->decode_steps :
					      0.0;
	res->preemptions = s->preemptions;
	res->steps = s->steps;
	res->request_steps = s->request_steps;
	res->overloaded = s->load->arrival == SIM_ARRIVAL_POISSON &&
			  s->waiting_at_last_arrival >
				  overload_waiting_fraction * s->n;
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
	s->t_admit = malloc(n * sizeof(double));
	s->t_first = malloc(n * sizeof(double));
	s->t_done = malloc(n * sizeof(double));
	s->pending = malloc(n * sizeof(int));
	s->r = calloc((size_t)s->replicas, sizeof(*s->r));
	s->ev = malloc((size_t)s->replicas * sizeof(int));
	s->ev_pos = malloc((size_t)s->replicas * sizeof(int));
	s->ev_t = malloc((size_t)s->replicas * sizeof(double));
	if (!s->req || !s->state || !s->kv_ready || !s->t_xfer ||
	    (s->n_pools == 2 && !s->xq) || !s->target || !s->prefilled ||
	    !s->out_left || !s->k || !s->fin || !s->gen || !s->rep || !s->t_admit ||
	    !s->t_first || !s->t_done || !s->pending || !s->r || !s->ev ||
	    !s->ev_pos || !s->ev_t)
		return -1;
	for (int i = 0; i < s->replicas; i++)
		s->ev_pos[i] = -1;
	for (int i = 0; i < s->replicas; i++)
		if (replica_init(s, &s->r[i],
				 i < s->pool[0].replicas ? 0 : 1) != 0)
			return -1;
	return 0;
}

static void sim_free(struct sim *s)
{
	if (s->spec_rng)
		gsl_rng_free(s->spec_rng);
	if (s->r)
		for (int i = 0; i < s->replicas; i++)
			replica_free(&s->r[i]);
	free(s->r);
	free(s->ev);
	free(s->ev_pos);
	free(s->ev_t);
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
	free(s->t_admit);
	free(s->t_first);
	free(s->t_done);
	free(s->pending);
}

/* Release request q at time t: route it.  Its replica starts once every
   request of the instant is routed (start_idle), so that requests that
   arrive together can share a step. */
static void arrive(struct sim *s, int q, double t)
{
	s->req[q].arrival_s = t;
	if (s->kv_ready[q] && s->t_first[q] < 0.0)
		s->t_first[q] = t; /* a prefilled load: its first token */
	route(s, q);
}

/* Start the idle replicas that have requests waiting, at time t. */
static int start_idle(struct sim *s, double t)
{
	for (int i = 0; i < s->replicas; i++)
		if (!s->r[i].busy && s->r[i].wait.n > 0 &&
		    replica_start(s, &s->r[i], t) != 0)
			return -1;
	return 0;
}

static int run_events(struct sim *s)
{
	bool closed = s->load->arrival == SIM_ARRIVAL_CLOSED;
	long long guard = 0, limit;
	double tokens = 0.0, t;

	for (int i = 0; i < s->n; i++)
		tokens += (double)s->req[i].prompt_tokens +
			  s->req[i].output_tokens + 2.0;
	/* every step schedules at least one token; preemptions redo at
	   most a request's tokens each: a generous bound on steps */
	limit = tokens * 64.0 > 4e18 ? (long long)4e18 :
				       (long long)(tokens * 64.0) + 1024;
	if (closed) {
		int c = s->load->concurrency < s->n ? s->load->concurrency :
						       s->n;

		for (s->issued = 0; s->issued < c; s->issued++)
			arrive(s, s->issued, 0.0);
		s->next_arrival = s->n;
		if (start_idle(s, 0.0) != 0)
			return -1;
	}
	while (s->done < s->n) {
		double t_arr = s->next_arrival < s->n ?
				       s->req[s->next_arrival].arrival_s :
				       HUGE_VAL;
		double t_x = s->n_xq > 0 ? s->xq[0].t : HUGE_VAL;
		int best = s->n_ev > 0 ? s->ev[0] : -1;
		if (best < 0 && t_arr == HUGE_VAL && t_x == HUGE_VAL)
			return diag_set(s->err, NULL, 0, 0,
					"the simulation stalled with %d of %d "
					"requests done", s->done, s->n);
		if (++guard > limit)
			return diag_set(s->err, NULL, 0, 0,
					"the simulation did not finish in %lld "
					"events", limit);
		if (t_x < t_arr && (best < 0 || t_x <= s->r[best].t_end)) {
			/* KV caches that reach the decode pool now */
			while (s->n_xq > 0 && s->xq[0].t == t_x)
				xfer_end(s);
			if (start_idle(s, t_x) != 0)
				return -1;
			continue;
		}
		if (best < 0 || t_arr <= s->r[best].t_end) {
			int q = s->next_arrival++;

			arrive(s, q, t_arr);
			if (s->next_arrival < s->n &&
			    s->req[s->next_arrival].arrival_s == t_arr)
				continue; /* more requests at this instant */
			if (start_idle(s, t_arr) != 0)
				return -1;
			if (s->next_arrival == s->n) {
				s->waiting_at_last_arrival = 0;
				for (int i = 0; i < s->replicas; i++)
					s->waiting_at_last_arrival +=
						(int)s->r[i].wait.n;
			}
			continue;
		}
		t = s->r[best].t_end;
		if (replica_end(s, &s->r[best]) != 0)
			return -1;
		/* the closed loop's next requests arrive now, all before a
		   replica starts its next step */
		for (int i = 0; i < s->n_pending; i++)
			arrive(s, s->pending[i], t);
		s->n_pending = 0;
		if (replica_start(s, &s->r[best], t) != 0 ||
		    start_idle(s, t) != 0)
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

		if (blocks_for(s, need) > e->kv_blocks)
			return diag_set(s->err, NULL, 0, 0,
					"request %d needs %.0f KV-cache blocks "
					"of %d tokens (%d + %d tokens); a%s "
					"replica holds %.0f", i + 1,
					blocks_for(s, need), e->kv_block_tokens,
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

static int run_pools(const struct sim_pool *pools, int n_pools,
		     const struct sim_transfer *x, const struct sim_load *load,
		     struct sim_result *r, struct diag *err)
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
	if (sim_alloc(&s) != 0) {
		diag_set(err, NULL, 0, 0, "out of memory");
		goto out;
	}
	if (make_requests(&s) != 0)
		goto out;
	if (spec) {
		/* a stream of its own, so that the lengths do not change
		   with speculation */
		s.spec_rng = gsl_rng_alloc(gsl_rng_mt19937);
		if (!s.spec_rng) {
			diag_set(err, NULL, 0, 0, "out of memory");
			goto out;
		}
		gsl_rng_set(s.spec_rng, load->seed ^ 0x9e3779b9UL);
	}
	if (load->arrival == SIM_ARRIVAL_POISSON && s.n > 1) {
		s.win_a = s.req[warmup_count(&s)].arrival_s;
		s.win_b = s.req[s.n - 1].arrival_s;
	}
	for (int i = 0; i < s.n; i++) {
		struct sim_request *q = &s.req[i];

		if (q->prompt_tokens < 1 || q->output_tokens < 1 ||
		    !(q->arrival_s >= 0.0) || !isfinite(q->arrival_s) ||
		    (i > 0 && q->arrival_s < s.req[i - 1].arrival_s)) {
			diag_set(err, NULL, 0, 0,
				 "request %d: lengths must be at least 1 and "
				 "arrivals non-negative and in order", i + 1);
			goto out;
		}
		if (load->output_tokens_max > 0 &&
		    q->output_tokens > load->output_tokens_max)
			q->output_tokens = load->output_tokens_max;
		if (check_fits(&s, i) != 0)
			goto out;
		s.target[i] = q->prompt_tokens;
		s.out_left[i] = q->output_tokens;
		s.t_admit[i] = s.t_first[i] = s.t_done[i] = -1.0;
		s.t_xfer[i] = -1.0;
		if (load->prefilled) {
			/* its first token is out: it decodes the rest */
			s.kv_ready[i] = 1;
			s.out_left[i] = q->output_tokens > 1 ?
						q->output_tokens - 1 :
						1;
		}
	}
	if (run_events(&s) != 0)
		goto out;
	buf = malloc((size_t)s.n * sizeof(*buf));
	if (!buf) {
		diag_set(err, NULL, 0, 0, "out of memory");
		goto out;
	}
	summarize(&s, r, buf);
	free(buf);
	rc = 0;
out:
	sim_free(&s);
	if (rc != 0)
		memset(r, 0, sizeof(*r));
	return rc;
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
	return run_pools(&pool, 1, NULL, load, r, err);
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
