/*
 * sim_replica.c - one serving replica of the simulation: admission of waiting
 * sequences under its KV-cache capacity, preemption, chunked prefill and
 * decode batching, its step and what the step changes, the KV-cache
 * transfer of disaggregated serving and the router (specs/models.md
 * 10.9; sim_internal.h).
 */
#include "sim_internal.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

/* Mixed steps per measure of their prefill share (sim_replica_start). */
static const long long phase_split_every = 4;

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

static void deque_pop_back(struct deque *d)
{
	d->n--;
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

/* ---------------------------------------------------------------------
 * The replica
 */

double sim_blocks_for(const struct sim *s, double tokens)
{
	return ceil(tokens / s->eng->kv_block_tokens);
}

static long long mod_block(const struct sim *s, long long x)
{
	long long b = s->eng->kv_block_tokens;
	long long m = x % b;

	return m < 0 ? m + b : m;
}

/*
 * A replica whose next steps are all alike - decodes only, nothing it
 * could admit, no sequence ending before the last of them, the cache
 * holding their tokens - runs them as one event: a cruise (issue 43).
 * Between two events the others could not see its steps (they see a
 * replica through its outstanding requests, which a quiet step leaves
 * unchanged), so only the event loop's bookkeeping is saved; the steps'
 * times and accounts are the same numbers as step by step.  A cruise
 * plans at most this many steps ahead (the steps planned past the point
 * where work arrives are computed for nothing).
 */
#define CRUISE_MAX_STEPS 64

/*
 * The busy replicas by the end of their step: a winner tree over the
 * replicas (ev_leaves leaves, a power of two, in the order of the fleet;
 * an idle replica's key is HUGE_VAL).  Node i holds the key ev_t[i] and
 * the replica ev[i] that wins below it, the earlier end, or on a tie the
 * left one, the lower index; node 1 is the first to end.  A replica's
 * key changes at the cost of one path to the root (issue 43: the binary
 * heap's swaps were a fifth of a sizing's instructions).
 */
static void ev_set(struct sim *s, int rep, double t)
{
	int node = s->ev_leaves + rep;

	s->ev_t[node] = t;
	while (node > 1) {
		int l = node & ~1;

		node >>= 1;
		if (s->ev_t[l + 1] < s->ev_t[l]) {
			s->ev_t[node] = s->ev_t[l + 1];
			s->ev[node] = s->ev[l + 1];
		} else {
			s->ev_t[node] = s->ev_t[l];
			s->ev[node] = s->ev[l];
		}
	}
}

/* Replica rep's step ends at its t_end (sim_replica_end left its last
   step's key in place, as its next step follows at once). */
static void ev_insert(struct sim *s, int rep)
{
	ev_set(s, rep, s->r[rep].t_end);
}

static void ev_remove(struct sim *s, int rep)
{
	if (s->ev_t[s->ev_leaves + rep] < HUGE_VAL)
		ev_set(s, rep, HUGE_VAL);
}

void sim_events_init(struct sim *s)
{
	int p = s->ev_leaves;

	for (int i = 1; i < 2 * p; i++) {
		s->ev_t[i] = HUGE_VAL;
		s->ev[i] = i >= p ? i - p : 0;
	}
}

int sim_events_first(const struct sim *s)
{
	return s->ev_t[1] < HUGE_VAL ? s->ev[1] : -1;
}

int sim_replica_init(struct sim *s, struct replica *r, int pool)
{
	size_t n = (size_t)s->n;
	size_t mb = (size_t)s->pool[pool].eng->max_batch;

	memset(r, 0, sizeof(*r));
	r->pool = &s->pool[pool];
	r->pool_index = pool;
	if (deque_init(&r->wait, n + 1) != 0 ||
	    deque_init(&r->prefill, (mb < n ? mb : n) + 1) != 0)
		return -1;
	sim_cache_init(&r->cache);
	sim_cache_init(&r->host);
	sim_cache_init(&r->disk);
	r->res = calloc((size_t)s->eng->kv_block_tokens, sizeof(*r->res));
	r->step_pf = malloc(((mb < n ? mb : n) + 1) * sizeof(*r->step_pf));
	r->cr_dt = malloc(CRUISE_MAX_STEPS * sizeof(*r->cr_dt));
	return r->res && r->step_pf && r->cr_dt ? 0 : -1;
}

void sim_replica_free(struct replica *r)
{
	free(r->wait.v);
	free(r->prefill.v);
	free(r->dec.v);
	free(r->admitted);
	free(r->res);
	free(r->step_pf);
	free(r->cr_dt);
	sim_cache_free(&r->cache);
	sim_cache_free(&r->host);
	sim_cache_free(&r->disk);
}

/* Blocks sequence q holds of its own with 'tokens' in its cache (the
   leading units it shares are the cache's). */
static double own_blocks(const struct sim *s, int q, double tokens)
{
	double b = sim_blocks_for(s, tokens);

	return s->caching ? b - s->cached[q] * s->cache_unit_blocks : b;
}

/* Sequence q leaves replica r's batch with 'tokens' in its cache whose
   KV is computed ('kv_tokens'): its blocks are freed, and with prefix
   caching its full units stay behind. */
static int release(struct sim *s, struct replica *r, int q, double tokens,
		   long long kv_tokens)
{
	r->blocks_used -= own_blocks(s, q, tokens);
	if (s->caching && sim_cache_release(s, r, q, kv_tokens) != 0)
		return diag_set_kind(s->err, DIAG_NOMEM, NULL, 0, 0,
				     "out of memory");
	return 0;
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
			if (release(s, r, q, (double)ctx, ctx) != 0)
				return -1;
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
			if (release(s, r, q, s->target[q], s->prefilled[q]) !=
			    0)
				return -1;
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
	double need;
	int q;

	if (r->wait.n == 0 || r->running >= r->pool->eng->max_batch)
		return false;
	q = deque_front(&r->wait);
	if ((s->kv_ready[q] != 0) != ready)
		return false;
	need = r->blocks_used + sim_blocks_for(s, s->target[q]);
	/* what running sequences already hold of its prompt is needed no
	   more: looked up only when the rest does not fit anyway */
	return need <= r->pool->eng->kv_blocks ||
	       (s->caching && need - sim_cache_shared_blocks(s, r, q) <=
				      r->pool->eng->kv_blocks);
}

static bool can_admit(const struct sim *s, const struct replica *r)
{
	return can_admit_as(s, r, false);
}

/* The copies of a replica that end: a heap by time. */
static void wake_push(struct sim *s, double t, int rep)
{
	size_t i = s->n_wake++;

	s->wake[i].t = t;
	s->wake[i].seq = rep;
	while (i > 0 && s->wake[(i - 1) / 2].t > s->wake[i].t) {
		struct xfer_item x = s->wake[i];

		s->wake[i] = s->wake[(i - 1) / 2];
		s->wake[(i - 1) / 2] = x;
		i = (i - 1) / 2;
	}
}

void sim_wake_pop(struct sim *s)
{
	size_t i = 0;

	s->wake[0] = s->wake[--s->n_wake];
	for (;;) {
		size_t a = 2 * i + 1, b = a + 1, m = i;
		struct xfer_item x;

		if (a < s->n_wake && s->wake[a].t < s->wake[m].t)
			m = a;
		if (b < s->n_wake && s->wake[b].t < s->wake[m].t)
			m = b;
		if (m == i)
			return;
		x = s->wake[i];
		s->wake[i] = s->wake[m];
		s->wake[m] = x;
		i = m;
	}
}

/* Copy 'units' units of q back from the host tier over the replica's
   host links and 'disk' units from storage over its storage link, each
   after the copies queued on it before: its prefill waits for both
   (t_ready), and the replica wakes then. */
static int copy_back(struct sim *s, struct replica *r, int q,
		     long long units, long long disk, double t)
{
	const struct sim_engine *e = r->pool->eng;
	double end = t;

	if (units > 0) {
		double start = fmax(t, r->offload_free_s);

		r->offload_free_s = start + e->offload_latency_s +
				    (double)units * s->cache_unit_blocks *
					    e->offload_block_bytes /
					    e->offload_bw_bytes_per_s;
		end = fmax(end, r->offload_free_s);
	}
	if (disk > 0) {
		double start = fmax(t, r->storage_free_s);

		r->storage_free_s = start + (double)disk * s->cache_unit_blocks *
						    e->offload_block_bytes /
						    e->storage_bw_bytes_per_s;
		end = fmax(end, r->storage_free_s);
	}
	s->t_ready[q] = end;
	if (s->t_admit[q] < 0.0)
		s->load_s[q] = end - t;
	if (s->n_wake >= 2 * (size_t)s->n)
		return diag_set(s->err, NULL, 0, 0,
				"more copies from the host tier in flight "
				"than requests");
	wake_push(s, end, (int)(r - s->r));
	return 0;
}

/* Has q's cache come back from the host tier by time t? */
static bool ready(const struct sim *s, int q, double t)
{
	return !(s->offload || s->storage) || s->t_ready[q] <= t;
}

static int admit_head(struct sim *s, struct replica *r, double t)
{
	int q = deque_front(&r->wait);

	deque_pop_front(&r->wait);
	s->prefilled[q] = 0;
	if (s->caching) {
		/* its cached leading units first (taken back from the free
		   list or shared, or copied back from the host tier), then
		   blocks of its own for the rest */
		long long loaded = 0, disk = 0;

		if (sim_cache_admit(s, r, q, &loaded, &disk) < 0)
			return diag_set_kind(s->err, DIAG_NOMEM, NULL, 0, 0,
					     "out of memory");
		s->t_ready[q] = 0.0;
		if (loaded + disk > 0 &&
		    copy_back(s, r, q, loaded, disk, t) != 0)
			return -1;
		if (s->t_admit[q] < 0.0) {
			s->hit_tokens[q] = s->prefilled[q];
			s->host_hit_tokens[q] =
				(int)(loaded * s->cache_unit_tokens);
			s->disk_hit_tokens[q] =
				(int)(disk * s->cache_unit_tokens);
		}
	}
	r->blocks_used += own_blocks(s, q, s->target[q]);
	if (s->caching && sim_cache_trim(s, r) != 0)
		return diag_set_kind(s->err, DIAG_NOMEM, NULL, 0, 0,
				     "out of memory");
	r->running++;
	s->state[q] = SEQ_PREFILL;
	if (s->t_admit[q] < 0.0)
		s->t_admit[q] = t;
	deque_push_back(&r->prefill, q);
	if (admitted_push(r, q) != 0)
		return diag_set_kind(s->err, DIAG_NOMEM, NULL, 0, 0,
				     "out of memory");
	return 0;
}

/* A decode replica of a disaggregated fleet: admit the head sequences
   whose KV cache has arrived straight into decoding. */
static int admit_ready(struct sim *s, struct replica *r, double t)
{
	while (can_admit_as(s, r, true)) {
		int q = deque_front(&r->wait);

		deque_pop_front(&r->wait);
		r->blocks_used += sim_blocks_for(s, s->target[q]);
		r->running++;
		s->kv_ready[q] = 0;
		if (s->t_admit[q] < 0.0)
			s->t_admit[q] = t;
		if (admitted_push(r, q) != 0 ||
		    dec_add(s, r, q, s->target[q]) != 0)
			return diag_set_kind(s->err, DIAG_NOMEM, NULL, 0, 0,
				     "out of memory");
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
			if (s->caching && sim_cache_trim(s, r) != 0)
				return diag_set_kind(s->err, DIAG_NOMEM, NULL,
						     0, 0, "out of memory");
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

		if (!ready(s, q, t))
			continue; /* its cache is still on the way */
		if (c > budget)
			c = budget;
		add_chunk(s, r, m, q, (int)c);
		budget -= c;
	}
	while (budget > 0 && can_admit(s, r)) {
		int q = deque_front(&r->wait);
		long long c;

		if (admit_head(s, r, t) != 0)
			return -1;
		if (!ready(s, q, t))
			continue;
		c = s->target[q] - s->prefilled[q];
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

	/* prompts whose cache came back from the host tier first */
	for (size_t i = 0; i < r->prefill.n;) {
		int q = deque_at(&r->prefill, i);
		double c = s->target[q] - s->prefilled[q];

		if (!ready(s, q, t)) {
			i++;
			continue;
		}
		if (tokens > 0.0 &&
		    tokens + c > r->pool->eng->max_batched_tokens)
			return 0;
		deque_remove_at(&r->prefill, i);
		tokens += c;
		add_chunk(s, r, m, q, (int)c);
	}
	while (can_admit(s, r)) {
		int q = deque_front(&r->wait);

		if (tokens > 0.0 &&
		    tokens + s->target[q] > r->pool->eng->max_batched_tokens)
			break;
		if (admit_head(s, r, t) != 0)
			return -1;
		if (!ready(s, q, t))
			continue; /* it waits in the prefill list */
		deque_pop_back(&r->prefill);
		tokens += s->target[q] - s->prefilled[q];
		add_chunk(s, r, m, q, s->target[q] - s->prefilled[q]);
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

/* The share of a step of mix m that its prompt tokens take: all or none
   of a step of one kind; a mixed step in proportion to the times of its
   prefill and of its decodes alone (the cost of input tokens against
   output tokens; drafts not counted). */
static double prefill_share(const struct replica *r, const struct sim_mix *m)
{
	const struct sim_pool *p = r->pool;
	struct sim_mix pf, dec;
	double tp, td;

	if (m->prefill_tokens <= 0.0)
		return 0.0;
	if (m->decode_seqs <= 0.0)
		return 1.0;
	memset(&pf, 0, sizeof(pf));
	pf.prefill_tokens = m->prefill_tokens;
	pf.prefill_attn_pairs = m->prefill_attn_pairs;
	pf.prefill_seqs = m->prefill_seqs;
	pf.logit_rows = m->logit_rows - m->decode_seqs;
	dec = *m;
	dec.prefill_tokens = dec.prefill_attn_pairs = dec.prefill_seqs = 0.0;
	dec.verify_tokens = 0.0;
	dec.logit_rows = dec.decode_seqs;
	tp = p->step(p->ctx, &pf);
	td = p->step(p->ctx, &dec);
	return tp + td > 0.0 ? tp / (tp + td) : 0.0;
}

/* Whole-prompt scheduling: a prompt waits in the prefill list only while
   its cache comes back from the host tier; is one back? */
static bool prefill_ready(const struct sim *s, const struct replica *r,
			  double t)
{
	for (size_t i = 0; i < r->prefill.n; i++)
		if (ready(s, deque_at(&r->prefill, i), t))
			return true;
	return false;
}

/* The time of a quiet decode step of r at decode clock 'clock' (the
   mix sim_replica_start builds for it), with the host's scheduling time
   when it opens a round. */
static double quiet_step_s(const struct replica *r, long long clock,
			   bool sched)
{
	struct sim_mix m;

	memset(&m, 0, sizeof(m));
	m.decode_seqs = (double)r->n_dec;
	m.decode_ctx_tokens = (double)r->n_dec * clock + (double)r->sum_k +
			      (double)r->n_dec;
	m.logit_rows += (double)r->n_dec;
	return step_time(r, &m) + (sched ? r->pool->eng->host_step_s : 0.0);
}

/* Is the step r started at t (mix m, a decode step) quiet, and will the
   ones after it be until an event reaches r? */
static bool can_cruise(const struct sim *s, const struct replica *r,
		       const struct sim_mix *m)
{
	return !s->load->no_shortcuts && m->prefill_tokens == 0.0 &&
	       m->decode_seqs > 0.0 &&
	       r->pool->eng->speculative_tokens <= 0 && r->prefill.n == 0 &&
	       !can_admit_as(s, r, false) && !can_admit_as(s, r, true);
}

/* Quiet step 1 of r started at t and takes dt1: plan the quiet steps
   after it, up to the one in which its first sequence ends, that the
   cache holds (reserve_decode's test step by step) and CRUISE_MAX_STEPS;
   r->t_end becomes the last one's end.  Nothing else is accounted
   (cruise_commit). */
static void cruise_plan(const struct sim *s, struct replica *r, double t,
			double dt1)
{
	const struct sim_engine *e = r->pool->eng;
	const struct sim_pool *p = r->pool;
	long long steps = r->dec.v[0].finish - r->clock;
	double blocks = r->blocks_used, end = t + dt1;
	int left = r->round_left, k = 1;

	if (steps > CRUISE_MAX_STEPS)
		steps = CRUISE_MAX_STEPS;
	if (steps < 2)
		return;
	if (p->steps) {
		/* the steps' own times, host time not yet added */
		struct sim_mix m;

		memset(&m, 0, sizeof(m));
		m.decode_seqs = (double)r->n_dec;
		m.decode_ctx_tokens = (double)r->n_dec * (r->clock + 1) +
				      (double)r->sum_k + (double)r->n_dec;
		m.logit_rows += (double)r->n_dec;
		p->steps(p->ctx, &m, (double)r->n_dec, (int)steps - 1,
			 r->cr_dt + 1);
	}
	r->cr_dt[0] = dt1;
	for (int i = 2; i <= steps; i++) {
		long long clock = r->clock + i - 1;
		double need = (double)r->res[mod_block(s, -clock)];
		bool sched = left == 0;
		double dt;

		if (blocks + need > e->kv_blocks)
			break; /* a preemption: step by step */
		dt = p->steps ? r->cr_dt[i - 1] +
					(sched ? e->host_step_s : 0.0) :
				quiet_step_s(r, clock, sched);
		if (!(dt > 0.0) || !isfinite(dt))
			break; /* sim_replica_start reports it */
		blocks += need;
		left = sched ? e->scheduler_steps - 1 : left - 1;
		r->cr_dt[i - 1] = dt;
		end = end + dt;
		k = i;
	}
	if (k < 2)
		return;
	r->cr_n = k;
	r->cr_t0 = t;
	r->cr_round = r->round_left;
	r->t_end = end;
}

/* Account r's cruise up to its step j: steps 1 .. j - 1 end (as
   sim_replica_end ends a quiet step) and steps 2 .. j start (as
   sim_replica_start starts one: the prefix cache gives up the free units
   its blocks need); step j is then r's step in flight.  0, or -1 (out of
   memory). */
static int cruise_commit(struct sim *s, struct replica *r, int j)
{
	const struct sim_engine *e = r->pool->eng;
	double t = r->cr_t0;

	r->round_left = r->cr_round;
	for (int i = 1; i < j; i++) {
		double dt = r->cr_dt[i];
		bool sched = r->round_left == 0;

		t = t + r->cr_dt[i - 1]; /* step i ends */
		r->step_tokens += (double)r->n_dec * r->step_adv;
		r->clock += r->step_adv;
		if (t >= s->win_a && t < s->win_b) {
			s->win_out += r->step_tokens;
			s->win_in += r->step_prompt;
		}
		/* step i + 1 starts */
		r->round_left = sched ? e->scheduler_steps - 1 :
					r->round_left - 1;
		r->blocks_used += (double)r->res[mod_block(s, -r->clock)];
		if (s->caching && sim_cache_trim(s, r) != 0)
			return diag_set_kind(s->err, DIAG_NOMEM, NULL, 0, 0,
					     "out of memory");
		r->step_tokens = 0.0;
		s->decode_steps += 1.0;
		s->decode_adv += r->step_adv;
		s->steps++;
		s->request_steps += (long long)((double)r->n_dec + 0.0);
		s->busy_s += dt;
		s->batch_s += dt * (double)r->running;
		s->kv_s += dt * r->blocks_used / e->kv_blocks;
	}
	r->t_end = t + r->cr_dt[j - 1];
	r->cr_n = 0;
	return 0;
}

int sim_cruise_cut(struct sim *s, struct replica *r, double t, bool strict)
{
	double end = r->cr_t0;
	int j = r->cr_n;

	for (int i = 1; i <= r->cr_n; i++) {
		end = end + r->cr_dt[i - 1];
		if (strict ? end > t : end >= t) {
			j = i;
			break;
		}
	}
	if (cruise_commit(s, r, j) != 0)
		return -1;
	ev_insert(s, (int)(r - s->r));
	return 0;
}

/*
 * Decide the next step of replica r at time t and start it.  Returns 0
 * (started, or idle with nothing to do) or -1 on an error.
 */
int sim_replica_start(struct sim *s, struct replica *r, double t)
{
	const struct sim_engine *e = r->pool->eng;
	struct sim_mix m;
	double dt;
	bool decode, sched;

	memset(&m, 0, sizeof(m));
	r->n_step_pf = 0;
	if (r->n_dec == 0)
		r->round_left = 0; /* a round ends with its sequences */
	sched = r->round_left == 0; /* the host schedules a round now */
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
	} else if (can_admit(s, r) || prefill_ready(s, r, t)) {
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
		ev_remove(s, (int)(r - s->r));
		return 0;
	}
	r->step_tokens = m.logit_rows - m.decode_seqs;
	dt = step_time(r, &m) + (sched ? e->host_step_s : 0.0);
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
	if (can_cruise(s, r, &m))
		cruise_plan(s, r, t, dt);
	ev_insert(s, (int)(r - s->r));
	s->steps++;
	s->request_steps += (long long)(m.decode_seqs + m.prefill_seqs);
	s->busy_s += dt;
	if (s->load->phase_split) {
		/* the split of a mixed step, measured on every fourth (two
		   more step evaluations each) and the last measure used
		   between */
		if (m.prefill_tokens > 0.0 && m.decode_seqs > 0.0) {
			if (s->mixed_steps++ % phase_split_every == 0)
				s->mixed_share = prefill_share(r, &m);
			s->prefill_busy_s += dt * s->mixed_share;
		} else if (m.prefill_tokens > 0.0) {
			s->prefill_busy_s += dt;
		}
	}
	s->batch_s += dt * (double)r->running;
	s->kv_s += dt * r->blocks_used / e->kv_blocks;
	return 0;
}

static int finish_seq(struct sim *s, struct replica *r, int q, double t)
{
	s->state[q] = SEQ_DONE;
	s->t_done[q] = t;
	r->running--;
	r->outstanding--;
	s->done++;
	if (s->req_session)
		return sim_session_done(s, q, t);
	if (s->load->arrival == SIM_ARRIVAL_CLOSED && s->issued < s->n)
		s->pending[s->n_pending++] = s->issued++;
	return 0;
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
void sim_xfer_end(struct sim *s)
{
	int q = s->xq[0].seq;
	struct replica *from = &s->r[s->rep[q]];

	xq_pop(s);
	from->blocks_used -= sim_blocks_for(s, s->target[q]);
	s->kv_ready[q] = 1;
	route_to(s, q, 1);
}

/* The step of replica r ends at its t_end. */
int sim_replica_end(struct sim *s, struct replica *r)
{
	double t;

	if (r->cr_n > 0 && cruise_commit(s, r, r->cr_n) != 0)
		return -1; /* its last step ends now */
	t = r->t_end;

	/* its key stays in the event tree: sim_replica_start, which the
	   event loop calls next, moves it to the next step's end or
	   removes it */
	r->busy = false;
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
			if (release(s, r, it.seq,
				    (double)dec_ctx(r, s, it.seq),
				    dec_ctx(r, s, it.seq)) != 0)
				return -1;
			dec_remove(s, r, it.seq);
			if (finish_seq(s, r, it.seq, t) != 0)
				return -1;
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
		if (s->caching && sim_cache_prefilled(s, r, q) != 0)
			return diag_set_kind(s->err, DIAG_NOMEM, NULL, 0, 0,
				     "out of memory");
		if (s->out_left[q] <= 0) {
			if (release(s, r, q, s->target[q], s->target[q]) != 0 ||
			    finish_seq(s, r, q, t) != 0)
				return -1;
		} else if (s->n_pools == 2 && r->pool_index == 0) {
			if (xfer_start(s, r, q, t) != 0)
				return diag_set_kind(s->err, DIAG_NOMEM, NULL,
						     0, 0, "out of memory");
		} else if (dec_add(s, r, q, s->target[q]) != 0) {
			return diag_set_kind(s->err, DIAG_NOMEM, NULL, 0, 0,
				     "out of memory");
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
	if (pool == 0 && s->req_session && s->load->session_routing) {
		/* a session stays where its history is cached, unless that
		   replica is a full batch deeper than the least loaded */
		int ss = s->req_session[q], home = s->sess_rep[ss];

		if (home >= 0 && s->r[home].outstanding <=
					 s->r[best].outstanding +
						 s->pool[0].eng->max_batch)
			best = home;
		s->sess_rep[ss] = best;
	}
	s->rep[q] = best;
	s->state[q] = SEQ_WAITING;
	s->r[best].outstanding++;
	deque_push_back(&s->r[best].wait, q);
	if (!s->kicked[best]) {
		/* start_idle looks at it */
		s->kicked[best] = 1;
		s->kick[s->n_kick++] = best;
	}
}

/* A new request goes to the first pool. */
void sim_route(struct sim *s, int q)
{
	route_to(s, q, 0);
}

