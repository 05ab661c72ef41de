/*
 * sim_cache.c - the prefix cache of a serving replica (specs/models.md
 * 10.9.19; sim_internal.h).
 *
 * As vLLM's automatic prefix caching and SGLang's radix cache keep them:
 * the KV cache is paged, a full page is known by its content (the tokens
 * before it and its own: vLLM hashes the parent's hash with the page's
 * tokens), and a page a running sequence no longer needs stays where it
 * is, free but still holding its tokens, until an allocation takes the
 * least recently used of them.  A new request looks its prompt up page by
 * page from the start; the leading pages found are its hit: it skips
 * their prefill and shares them with whoever else holds them (one copy
 * in memory, counted once).
 *
 * The cache's unit is a run of KV blocks of at least 16 tokens
 * (sim->cache_unit_tokens: the engine's block, or as many blocks as make
 * 16 tokens, so that SGLang's one-token pages do not cost a node a
 * token); a unit is found whole or not at all.  Content is named by a
 * 64-bit key of (namespace, unit index): namespace 0 for the prefix every
 * request shares, the session's for a conversation, the request's own
 * otherwise (sim_unit_key).
 *
 * Units live in a node pool (key, references, LRU links of the free
 * ones) found through an open-addressing table of node numbers (linear
 * probing, deletion by backward shift).
 *
 * A host tier (sim->offload: LMCache's CPU backend, vLLM's offloading)
 * is a second such pool of free units: a unit the GPU evicts is kept
 * there, least recently used first out past its size; a prompt's units
 * found there after those found on the GPU are copied back and held as
 * if computed.
 */
#include "sim_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* splitmix64's finalizer (Steele, Lea and Flood 2014): a key spread
   over 64 bits; never 0 (an empty slot). */
static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x | 1u;
}

uint64_t sim_unit_key(const struct sim *s, int q, long long i)
{
	const struct sim_load *l = s->load;
	uint64_t ns;

	const struct sim_request *r = &s->req[q];
	long long u = s->cache_unit_tokens;

	if (r->hash_ids && r->hash_block_tokens > 0) {
		/* a trace's block ids: unit i lies in block j, whole when
		   the unit divides the block */
		long long b = r->hash_block_tokens, j = i * u / b;

		if (j < r->n_hash_ids && (i + 1) * u <= (j + 1) * b)
			return mix64((((uint64_t)3 << 40) + r->hash_ids[j]) *
					     0x9e3779b97f4a7c15ULL +
				     (uint64_t)(i - j * b / u));
	}
	if ((i + 1) * u <= (long long)l->shared_prefix_tokens)
		/* the shared prefix of its group (a session's, or its own
		   when no sessions), spread by a hash of the id */
		ns = l->prefix_groups > 1 ?
			     ((uint64_t)5 << 40) +
				     mix64(s->req_session ?
						   (uint64_t)s->req_session[q] :
						   (uint64_t)q) %
					     (uint64_t)l->prefix_groups :
			     0;
	else if (s->req_session)
		ns = 1u + (uint64_t)s->req_session[q];
	else
		ns = ((uint64_t)1 << 40) + (uint64_t)q;
	return mix64(ns * 0x9e3779b97f4a7c15ULL + (uint64_t)i);
}

static size_t slot_of(const struct kv_cache *c, uint64_t key)
{
	return (size_t)(key ^ (key >> 29)) & (c->n_slots - 1);
}

/* The node holding 'key', or -1. */
static int find(const struct kv_cache *c, uint64_t key)
{
	size_t i;

	if (c->n_slots == 0)
		return -1;
	for (i = slot_of(c, key);; i = (i + 1) & (c->n_slots - 1)) {
		int nd = c->slot[i] - 1;

		if (nd < 0)
			return -1;
		if (c->node[nd].key == key)
			return nd;
	}
}

static void slot_put(struct kv_cache *c, int nd)
{
	size_t i = slot_of(c, c->node[nd].key);

	while (c->slot[i])
		i = (i + 1) & (c->n_slots - 1);
	c->slot[i] = nd + 1;
}

/* Double the table (and rehash) when it is half full. */
static int grow_slots(struct kv_cache *c)
{
	size_t n = c->n_slots ? 2 * c->n_slots : 1024;
	int *old = c->slot;
	size_t old_n = c->n_slots;

	if (n > SIZE_MAX / sizeof(*c->slot))
		return -1;
	c->slot = calloc(n, sizeof(*c->slot));
	if (!c->slot) {
		c->slot = old;
		return -1;
	}
	c->n_slots = n;
	for (size_t i = 0; i < old_n; i++)
		if (old[i])
			slot_put(c, old[i] - 1);
	free(old);
	return 0;
}

/* Remove the table's entry of node 'nd' (backward-shift deletion). */
static void slot_del(struct kv_cache *c, int nd)
{
	size_t mask = c->n_slots - 1, i = slot_of(c, c->node[nd].key), j;

	while (c->slot[i] != nd + 1)
		i = (i + 1) & mask;
	c->slot[i] = 0;
	for (j = (i + 1) & mask; c->slot[j]; j = (j + 1) & mask) {
		size_t h = slot_of(c, c->node[c->slot[j] - 1].key);

		/* move the entry at j back to the hole at i when its home
		   h is not cyclically within (i, j] */
		if ((j > i && (h <= i || h > j)) ||
		    (j < i && (h <= i && h > j))) {
			c->slot[i] = c->slot[j];
			c->slot[j] = 0;
			i = j;
		}
	}
}

static void lru_unlink(struct kv_cache *c, int nd)
{
	struct kv_node *n = &c->node[nd];

	if (n->prev >= 0)
		c->node[n->prev].next = n->next;
	else
		c->lru_head = n->next;
	if (n->next >= 0)
		c->node[n->next].prev = n->prev;
	else
		c->lru_tail = n->prev;
	n->prev = n->next = -1;
	c->n_free--;
}

/* Append free node 'nd' at the most recently used end. */
static void lru_push(struct kv_cache *c, int nd)
{
	struct kv_node *n = &c->node[nd];

	n->prev = c->lru_tail;
	n->next = -1;
	if (c->lru_tail >= 0)
		c->node[c->lru_tail].next = nd;
	else
		c->lru_head = nd;
	c->lru_tail = nd;
	c->n_free++;
}

/* A new node for 'key' with 'ref' references (not in the LRU list);
   -1 when out of memory. */
static int node_new(struct kv_cache *c, uint64_t key, int ref)
{
	int nd;

	if ((size_t)(2 * (c->n_live + 1)) > c->n_slots && grow_slots(c) != 0)
		return -1;
	if (c->free_node >= 0) {
		nd = c->free_node;
		c->free_node = c->node[nd].next;
	} else {
		if (c->n_node == c->cap_node) {
			size_t cap = c->cap_node ? 2 * c->cap_node : 256;
			struct kv_node *v;

			if (cap > (size_t)INT32_MAX ||
			    cap > SIZE_MAX / sizeof(*v))
				return -1;
			v = realloc(c->node, cap * sizeof(*v));
			if (!v)
				return -1;
			c->node = v;
			c->cap_node = cap;
		}
		nd = (int)c->n_node++;
	}
	c->node[nd].key = key;
	c->node[nd].ref = ref;
	c->node[nd].prev = c->node[nd].next = -1;
	slot_put(c, nd);
	c->n_live++;
	return nd;
}

/* Drop free node 'nd' (evicted). */
static void node_drop(struct kv_cache *c, int nd)
{
	lru_unlink(c, nd);
	slot_del(c, nd);
	c->node[nd].next = c->free_node;
	c->free_node = nd;
	c->n_live--;
}

void sim_cache_init(struct kv_cache *c)
{
	memset(c, 0, sizeof(*c));
	c->lru_head = c->lru_tail = c->free_node = -1;
}

void sim_cache_free(struct kv_cache *c)
{
	free(c->node);
	free(c->slot);
	sim_cache_init(c);
}

/* The units of a prompt that a hit may cover: whole units, and never the
   last token, which is computed again for its logits (vLLM). */
static long long hit_units_max(const struct sim *s, int q)
{
	return (s->target[q] - 1) / s->cache_unit_tokens;
}

double sim_cache_shared_blocks(const struct sim *s, const struct replica *r,
			       int q)
{
	const struct kv_cache *c = &r->cache;
	long long n = hit_units_max(s, q), i;
	double shared = 0.0;

	for (i = 0; i < n; i++) {
		int nd = find(c, sim_unit_key(s, q, i));

		if (nd < 0)
			break;
		if (c->node[nd].ref > 0)
			shared += s->cache_unit_blocks;
	}
	return shared;
}

/* Keep unit 'key' in tier 'h' of 'units' units, most recently used; the
   least recently used fall out past its size, into 'next' when there is
   one (NULL: gone).  0, or -1 (out of memory). */
static int tier_put(struct sim *s, struct replica *r, struct kv_cache *h,
		    double units, struct kv_cache *next, double next_units,
		    uint64_t key)
{
	int nd = find(h, key);

	if (nd >= 0) {
		lru_unlink(h, nd);
		lru_push(h, nd);
		return 0;
	}
	if (units < 1.0)
		return 0;
	while ((double)h->n_free + 1.0 > units) {
		int victim = h->lru_head;

		if (next && tier_put(s, r, next, next_units, NULL, 0.0,
				     h->node[victim].key) != 0)
			return -1;
		node_drop(h, victim);
	}
	nd = node_new(h, key, 0);
	if (nd < 0)
		return -1;
	lru_push(h, nd);
	return 0;
}

/* A unit the GPU evicts: to the host tier (and on to storage), or to
   storage without a host tier. */
static int evict_down(struct sim *s, struct replica *r, uint64_t key)
{
	if (s->offload)
		return tier_put(s, r, &r->host, s->host_units,
				s->storage ? &r->disk : NULL, s->disk_units,
				key);
	if (s->storage)
		return tier_put(s, r, &r->disk, s->disk_units, NULL, 0.0, key);
	return 0;
}

int sim_cache_trim(struct sim *s, struct replica *r)
{
	struct kv_cache *c = &r->cache;
	double room = r->pool->eng->kv_blocks - r->blocks_used;

	while (c->n_free > 0 &&
	       (double)c->n_free * s->cache_unit_blocks > room + 1e-9) {
		int nd = c->lru_head;

		/* the GPU's copy goes; a tier below keeps one */
		if (evict_down(s, r, c->node[nd].key) != 0)
			return -1;
		node_drop(c, nd);
		s->cache_evictions++;
	}
	return 0;
}

int sim_cache_admit(struct sim *s, struct replica *r, int q,
		    long long *loaded, long long *loaded_disk)
{
	struct kv_cache *c = &r->cache;
	long long n = hit_units_max(s, q), i, j;

	for (i = 0; i < n; i++) {
		int nd = find(c, sim_unit_key(s, q, i));

		if (nd < 0)
			break;
		if (c->node[nd].ref++ == 0) {
			/* a free page is taken back */
			lru_unlink(c, nd);
			r->blocks_used += s->cache_unit_blocks;
		}
	}
	/* the units after them that a tier below keeps come back to the
	   GPU, held by q: from the host tier, else from storage */
	*loaded = *loaded_disk = 0;
	for (j = i; (s->offload || s->storage) && j < n; j++) {
		uint64_t key = sim_unit_key(s, q, j);
		struct kv_cache *t = NULL;
		int hn = -1;

		if (s->offload && (hn = find(&r->host, key)) >= 0)
			t = &r->host;
		else if (s->storage && (hn = find(&r->disk, key)) >= 0)
			t = &r->disk;
		if (!t)
			break;
		lru_unlink(t, hn);
		lru_push(t, hn);
		if (t == &r->host)
			(*loaded)++;
		else
			(*loaded_disk)++;
		if (node_new(c, key, 1) < 0)
			return -1;
		r->blocks_used += s->cache_unit_blocks;
	}
	i = j;
	s->cached[q] = (int)i;
	s->prefilled[q] = (int)(i * s->cache_unit_tokens);
	return (int)i;
}

int sim_cache_prefilled(struct sim *s, struct replica *r, int q)
{
	struct kv_cache *c = &r->cache;
	long long n = s->target[q] / s->cache_unit_tokens;

	for (long long i = s->cached[q]; i < n; i++) {
		uint64_t key = sim_unit_key(s, q, i);
		int nd = find(c, key);

		if (nd < 0) {
			/* its own page, now known by its content */
			if (node_new(c, key, 1) < 0)
				return -1;
		} else {
			/* someone computed the same page: share it, and free
			   this sequence's copy */
			if (c->node[nd].ref++ == 0)
				lru_unlink(c, nd);
			else
				r->blocks_used -= s->cache_unit_blocks;
		}
		s->cached[q]++;
	}
	return 0;
}

int sim_cache_release(struct sim *s, struct replica *r, int q,
		      long long kv_tokens)
{
	struct kv_cache *c = &r->cache;
	long long held = s->cached[q], full = kv_tokens / s->cache_unit_tokens;

	for (long long i = 0; i < held; i++) {
		int nd = find(c, sim_unit_key(s, q, i));

		if (nd >= 0 && --c->node[nd].ref == 0) {
			r->blocks_used -= s->cache_unit_blocks;
			lru_push(c, nd);
		}
	}
	/* its own full pages stay behind, free, for whoever asks next */
	for (long long i = held; i < full; i++) {
		uint64_t key = sim_unit_key(s, q, i);
		int nd = find(c, key);

		if (nd >= 0) {
			if (c->node[nd].ref == 0) {
				/* the same content freed before: now the
				   most recently used */
				lru_unlink(c, nd);
				lru_push(c, nd);
			}
			continue;
		}
		nd = node_new(c, key, 0);
		if (nd < 0)
			return -1;
		lru_push(c, nd);
	}
	s->cached[q] = 0;
	return sim_cache_trim(s, r);
}
