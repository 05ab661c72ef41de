/*
 * sim_internal.h - the state of a serving simulation, shared by the files
 * of src/serve/ that run it (serve_sim.c: checks, allocation, arrivals and
 * the event loop; sim_replica.c: a replica's admission, batching and
 * steps, and its containers; sim_summary.c: the statistics).
 * Private: nothing outside src/serve/ includes it.
 */
#ifndef CAPPLAN_SIM_INTERNAL_H
#define CAPPLAN_SIM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "serve_load.h"
#include "serve_sim.h"

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

/* A unit of the prefix cache (sim_cache.c): its content's key, the
   running sequences that hold it, and its place in the LRU list of free
   units (ref 0). */
struct kv_node {
	uint64_t key;
	int ref;
	int prev, next;         /* LRU links; next also links unused nodes */
};

struct kv_cache {
	struct kv_node *node;
	size_t n_node, cap_node;
	long long n_live;       /* nodes in use */
	long long n_free;       /* of which free (ref 0), in the LRU list */
	int lru_head, lru_tail; /* least and most recently used free unit */
	int free_node;          /* unused nodes, linked by next */
	int *slot;              /* open addressing: node + 1, 0 empty */
	size_t n_slots;         /* a power of two, at least twice n_live */
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
	struct kv_cache cache; /* prefix caching: its free and shared units */
	struct kv_cache host;  /* its host-memory tier (offload): free units */
	struct kv_cache disk;  /* its storage tier: free units */
	double storage_free_s; /* when its storage link finishes its copies */
	double offload_free_s; /* when its host links finish the copies
				  queued on them */
	/* a cruise (sim_replica.c): quiet decode steps run as one event,
	   steps 1 .. cr_n from cr_t0, step 1 accounted, the others when
	   the cruise ends or work arrives (sim_cruise_cut) */
	int cr_n;               /* its steps; 0: not cruising */
	double cr_t0;           /* when step 1 started */
	int cr_round;           /* round_left once step 1 started */
	double *cr_dt;          /* its steps' times, CRUISE_MAX_STEPS */
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
	double *t_sched;        /* it reached the scheduler (past the
				   front end) */
	double *t_admit, *t_first, *t_done;
	/* arrivals */
	int next_arrival;       /* next request to arrive */
	int issued;             /* closed loop: requests released */
	int *pending;           /* closed loop: released by a completion */
	int n_pending;
	/* the servers' front ends (host_request_s): the requests that
	   entered them, in order, each with the time it reaches the
	   scheduler; [fe_head, fe_tail) have not reached it yet */
	int *fe_q;
	double *fe_t;
	int fe_head, fe_tail;
	int rr[2];              /* router: where each pool's tie scan starts */
	gsl_rng *spec_rng;      /* speculative decoding: drafts accepted */
	struct replica *r;
	int *kick;              /* replicas routed to since the last
				   start_idle, each once */
	unsigned char *kicked;  /* per replica: in 'kick' */
	int n_kick;
	int *ev;                /* busy replicas by t_end: a winner tree
				   of 2 ev_leaves nodes (sim_replica.c),
				   ev[i] the replica that wins node i */
	double *ev_t;           /* node i's key: that replica's step end,
				   HUGE_VAL when idle */
	int ev_leaves;          /* a power of two, at least replicas */
	/* statistics */
	double busy_s, batch_s, kv_s;
	double prefill_busy_s;  /* of busy_s, prefill's */
	long long mixed_steps;  /* steps of prompt tokens and decodes */
	double mixed_share;     /* the last one measured's prefill share */
	double decode_steps, decode_adv; /* decode steps, their advances */
	long long steps, request_steps, preemptions;
	int done;
	int shortened;           /* requests drawn beyond the context */
	/* prefix caching (eng->prefix_caching) */
	bool caching;
	int cache_unit_tokens;   /* tokens of a unit: whole KV blocks, >= 16 */
	double cache_unit_blocks; /* KV blocks of a unit */
	int *cached;             /* per sequence: leading units it holds in
				    its replica's cache (shared, counted
				    there), the rest of its blocks its own */
	int *hit_tokens;         /* per request: prompt tokens its first
				    admission found cached */
	long long cache_evictions;
	bool offload;            /* a host tier under the cache */
	double host_units;       /* units the host tier holds */
	bool storage;            /* a storage tier under it */
	double disk_units;       /* units the storage tier holds */
	int *disk_hit_tokens;    /* per request: of hit_tokens, from the
				    storage tier at its first admission */
	double *t_ready;         /* per sequence: its cached units are back
				    on the GPU (0: nothing to copy) */
	int *host_hit_tokens;    /* per request: of hit_tokens, from the
				    host tier at its first admission */
	double *load_s;          /* per request: that copy's time, queue
				    included */
	struct xfer_item *wake;  /* copies that end, a heap by time (seq:
				    the replica to wake) */
	size_t n_wake;
	/* sessions (load->turns > 1; serve_sim.c) */
	bool sessions_on;
	struct sim_lengths lengths; /* of first turns, and later answers */
	int *req_session;        /* per request: its session; NULL: none */
	int *sess_turns;         /* per session: turns released */
	int *sess_rep;           /* per session: its replica, or -1 */
	int *sess_next_prompt, *sess_next_output; /* its next turn's lengths */
	int n_sessions;          /* started (drawn) */
	int sessions_released;   /* whose first turn arrived */
	int sessions_max;        /* to start at most */
	struct xfer_item *due;   /* next turns and session starts, a heap by
				    time (seq: the session) */
	size_t n_due;
	gsl_rng *sess_rng;       /* think times and later turns' lengths */
	int waiting_at_last_arrival;
	/* Poisson: tokens emitted by steps that end in [win_a, win_b), from
	   the first measured arrival to the last arrival */
	double win_a, win_b, win_out, win_in;
	struct diag *err;
};

/* sim_replica.c */
/* KV blocks that hold 'tokens' tokens. */
double sim_blocks_for(const struct sim *s, double tokens);
/* Set up replica 'r' of pool 'pool'; 0, or -1 with the error in s->err. */
int sim_replica_init(struct sim *s, struct replica *r, int pool);
void sim_replica_free(struct replica *r);
/* Plan and start the next step of idle replica 'r' at time 't', if it has
   work; 0, or -1 with the error in s->err. */
int sim_replica_start(struct sim *s, struct replica *r, double t);
/* The step of 'r' ends (at r->t_end): account for it; 0 or -1.  Its key
   stays in the event tree: sim_replica_start, called next for it, moves
   the key to its next step's end or removes it. */
int sim_replica_end(struct sim *s, struct replica *r);
/* The event tree of s->ev_leaves leaves, every replica idle. */
void sim_events_init(struct sim *s);
/* The busy replica whose step ends first (ties: the lowest index), or
   -1 when none is busy. */
int sim_events_first(const struct sim *s);
/* The first KV-cache transfer in flight arrives at the decode pool. */
void sim_xfer_end(struct sim *s);
/* Send arrived request 'q' to a replica of the first pool. */
void sim_route(struct sim *s, int q);
/* Work reached replica 'r' at time t while it cruises: its steps that
   ended by t (before t when 'strict', an earlier replica's step having
   ended at t) are accounted, the one in flight at t becomes its step.
   0, or -1 (out of memory). */
int sim_cruise_cut(struct sim *s, struct replica *r, double t, bool strict);

/* sim_cache.c: the prefix cache of a replica */
void sim_cache_init(struct kv_cache *c);
void sim_cache_free(struct kv_cache *c);
/* The content key of unit i of sequence q's context. */
uint64_t sim_unit_key(const struct sim *s, int q, long long i);
/* KV blocks of q's prompt that running sequences hold already (a hit it
   would share): what admitting it needs less. */
double sim_cache_shared_blocks(const struct sim *s, const struct replica *r,
			       int q);
/* Admit q: take its leading cached units (s->cached[q], s->prefilled[q]);
   the units it takes back from the free list count in blocks_used again,
   and so do those found in the host tier after them, which are copied
   back ('*loaded' of them).  Returns the units hit, or -1 (out of
   memory). */
int sim_cache_admit(struct sim *s, struct replica *r, int q,
		    long long *loaded, long long *loaded_disk);
/* q's prompt is in the cache: its full units become shared ones; 0 or -1
   (out of memory). */
int sim_cache_prefilled(struct sim *s, struct replica *r, int q);
/* q leaves the batch (done or preempted) with kv_tokens in its cache:
   its shared units lose a holder, its full units stay behind free; then
   the cache is trimmed.  The caller frees q's own blocks first.  0 or -1
   (out of memory). */
int sim_cache_release(struct sim *s, struct replica *r, int q,
		      long long kv_tokens);
/* Evict free units, least recently used first, until the free units fit
   the room the running sequences leave (to the host tier, when there is
   one).  0, or -1 (out of memory). */
int sim_cache_trim(struct sim *s, struct replica *r);
/* The first copy from a host tier that ends leaves the heap. */
void sim_wake_pop(struct sim *s);
/* sessions (serve_sim.c): request q of a session ended at t */
int sim_session_done(struct sim *s, int q, double t);

/* sim_summary.c */
/* Requests of the warm-up, left out of the statistics. */
int sim_warmup_count(const struct sim *s);
/* Fill 'res' from the finished run 's'; 'buf' holds s->n doubles. */
void sim_summarize(struct sim *s, struct sim_result *res, double *buf);

#endif
