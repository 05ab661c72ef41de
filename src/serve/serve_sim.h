/*
 * serve_sim.h - serving under load: a discrete-event simulation of
 * replicas that batch at the iteration level (continuous batching).
 *
 * Requests arrive (Poisson, closed loop, a burst or a trace), are routed
 * to the replica with the fewest outstanding requests, wait in its FIFO
 * queue, and are admitted while its paged KV cache and 'max_batch' allow.
 * Each step of a replica runs the prefill tokens and decoding sequences the
 * scheduler picked, and takes the time the caller's step model gives for
 * that mix (model_infer.h: infer_step_s).  Prefill is chunked under a
 * per-step token budget (Sarathi-Serve: Agrawal et al. 2024; vLLM's
 * chunked prefill), or runs whole prompts in prefill-only steps that stall
 * decoding (vLLM without chunked prefill, SGLang's default); either way
 * the batch is re-formed every iteration (Orca: Yu et al. 2022).  A
 * sequence is preempted and later recomputed when the KV
 * cache runs out (vLLM's recompute preemption, Kwon et al. 2023).
 * specs/models.md, section "Serving under load".
 *
 * Pure: no I/O and no globals; random numbers from GSL (gsl_rng) seeded
 * by the caller.  Memory is allocated once per run in a workspace.
 */
#ifndef CAPPLAN_SERVE_SIM_H
#define CAPPLAN_SERVE_SIM_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"
#include "request.h"
#include "step_mix.h"

/* The time of one step for a mix, in seconds (> 0).  'ctx' is the
   caller's; the step model may memoize in it. */
typedef double (*sim_step_fn)(void *ctx, const struct sim_mix *mix);

/* Optional, for speed: the times of k decode-only steps into dt[0 ..
   k-1], the first of mix 'first' and each next one with
   decode_ctx_tokens 'ctx_step' more, each the number the step function
   gives for its mix. */
typedef void (*sim_steps_fn)(void *ctx, const struct sim_mix *first,
			     double ctx_step, int k, double *dt);

/* The scheduler of one replica (every replica is the same). */
struct sim_engine {
	int max_batch;           /* running sequences at most */
	int max_batched_tokens;  /* tokens per step at most (prefill
				    budget; decodes count one each) */
	bool chunked_prefill;    /* mixed steps, chunked prompts; else
				    whole prompts in prefill-only steps */
	int kv_block_tokens;     /* tokens per KV-cache block */
	double kv_blocks;        /* blocks the KV cache holds per replica */
	int scheduler_steps;     /* decode steps per scheduling round: new
				    requests join only between rounds
				    (vLLM's num_scheduler_steps); 1 */
	double host_request_s;   /* host time of each request in the
				    server's front end (HTTP, template,
				    tokenization), one request at a time
				    before the scheduler sees it; the first
				    pool's counts; 0: none */
	double host_step_s;      /* host time of each scheduling round
				    that the GPU waits for (scheduling,
				    input preparation, output processing
				    not overlapped); 0: none */
	/* speculative decoding (Leviathan et al. 2023): a draft model
	   proposes 'speculative_tokens' tokens per decode step, each
	   accepted with probability 'acceptance_rate'; the target verifies
	   them in its step; one draft step costs 'draft_cost_ratio' of a
	   target step of the same mix.  0 tokens: off. */
	int speculative_tokens;
	double acceptance_rate;
	double draft_cost_ratio;
	/* automatic prefix caching (vLLM's hashed blocks, SGLang's radix
	   cache): the KV blocks of earlier requests stay in the free part of
	   the cache, keyed by their content, until LRU eviction needs the
	   room; a prompt whose leading blocks are there skips their prefill,
	   and running sequences share them (sim_cache.c) */
	bool prefix_caching;
	/* a host-memory tier under the prefix cache (LMCache's CPU
	   backend, vLLM's KV offloading to the CPU): units the GPU evicts
	   are kept there, least recently used first out; a prompt's units
	   found there are copied back before its prefill, one copy after
	   another over the replica's host links */
	double offload_blocks;         /* KV blocks it holds; 0: none */
	double offload_block_bytes;    /* bytes of a block, the replica's */
	double offload_bw_bytes_per_s; /* the replica's host links, achievable */
	double offload_latency_s;      /* per copy */
	/* a storage tier under it (local NVMe, or a remote store: LMCache's
	   disk backend, Mooncake's store): units the host tier lets go (or
	   the GPU, without one) are kept there, and copied back over the
	   storage's own link; its blocks are offload_block_bytes too */
	double storage_blocks;         /* 0: none */
	double storage_bw_bytes_per_s; /* read bandwidth, the replica's */
};

/* The load. */
struct sim_load {
	enum sim_arrival arrival;
	double rate_per_s;          /* poisson */
	int concurrency;            /* closed */
	int requests;               /* requests simulated (all kinds but
				       trace); warm-up included */
	enum sim_length_dist length_dist;
	double prompt_tokens_mean;
	double output_tokens_mean;
	int max_context_tokens;     /* prompt + output at most (the model's
				       context); longer draws are redrawn */
	unsigned long seed;
	double warmup_s;            /* Poisson and closed loops: requests
				       arriving before this time are left out
				       of the statistics too (at most half
				       of them); 0: the fraction alone */
	const struct sim_request *trace; /* trace: sorted by arrival */
	size_t trace_len;
	int output_tokens_max;      /* > 0: longer answers are cut to it
				       (capacity of a prefill pool: 1) */
	bool prefilled;             /* requests arrive with their prompt's KV
				       cache and first token (capacity of a
				       decode pool); they decode the rest,
				       at least one token */
	/* sessions (not with a trace): 'turns' > 1 makes every load a load
	   of conversations.  A session's first turn draws its lengths as a
	   request does; each later turn arrives a think time (exponential,
	   mean think_time_s) after the reply before it, its prompt the
	   whole conversation so far plus turn_tokens_mean new tokens (drawn
	   as the length distribution draws), until 'turns' or the context
	   ends it.  Poisson: sessions start at rate_per_s / turns, so that
	   requests arrive at about rate_per_s; closed: each client runs one
	   session after another; burst: every session starts at 0.
	   'requests' counts turns. */
	int turns;                  /* 1: single requests */
	double think_time_s;
	double turn_tokens_mean;
	int shared_prefix_tokens;   /* leading prompt tokens every request
				       shares (a system prompt): the same
				       content, a prefix-cache hit */
	int prefix_groups;          /* > 1: that many different shared
				       prefixes, a request (a session) has
				       one of them, spread evenly */
	bool phase_split;           /* measure prefill_time_fraction (a few
				       more step evaluations a mixed step) */
	bool session_routing;       /* a session's later turns go to the
				       replica of its first (a cache-aware
				       router: llm-d, Dynamo, SGLang's),
				       unless it holds a full batch more
				       than the least loaded; else every
				       request to the least loaded */
	bool no_shortcuts;          /* run without the simulation's
				       shortcuts (cruises of quiet steps,
				       specs/models.md 10.9.2; the run
				       without a prefix cache nothing can
				       hit, 10.9.19): the same numbers,
				       slower (tests) */
};

struct sim_result {
	/* over the measured requests (warm-up excluded), seconds */
	double ttft_mean_s, ttft_p50_s, ttft_p90_s, ttft_p99_s;
	double tpot_mean_s, tpot_p50_s, tpot_p90_s, tpot_p99_s;
	double e2e_mean_s, e2e_p50_s, e2e_p99_s;
	double queue_wait_mean_s, queue_wait_p99_s; /* from reaching the
						       scheduler (past the
						       front end) to admission */
	double request_throughput_per_s; /* the fleet's, measured window */
	double output_tokens_per_s;
	double input_tokens_per_s;
	double mean_batch;       /* running sequences per step, time-weighted */
	double kv_utilization;   /* KV blocks in use, time-weighted mean */
	double busy_fraction;    /* time replicas spend in steps */
	double prefill_time_fraction; /* of that time, prefill's: a mixed
					 step split in proportion to the
					 times its prompt tokens and its
					 decodes would take alone (with
					 sim_load.phase_split; else 0) */
	double kv_transfer_mean_s; /* disaggregated: prefill end to the cache
				      at the decode pool, link queue
				      included; 0 otherwise */
	double tokens_per_decode_step; /* per decoding sequence: 1, more
					  with speculative decoding */
	double duration_s;       /* first arrival to last completion */
	long long preemptions;
	long long steps;         /* all replicas */
	long long request_steps; /* sequence-steps: tokens scheduled */
	int simulated_requests;  /* all, warm-up included */
	int shortened_requests;  /* of which drawn longer than the context
				    and shortened to it (a trace's are
				    refused when read) */
	int sessions;            /* conversations started (turns > 1) */
	/* prefix caching, over the measured requests' first admissions:
	   the share of prompt tokens found in the cache, and of requests
	   that found any */
	double prefix_hit_rate;
	double prefix_hit_requests;
	double offload_hit_rate;   /* of the prompt tokens: found in the host
				      tier (part of prefix_hit_rate) */
	double offload_load_mean_s; /* copying them back, per request that
				       did, the link's queue included
				       (either tier) */
	double storage_hit_rate;   /* of the prompt tokens: found in the
				      storage tier (part of prefix_hit_rate) */
	int measured_requests;
	int tpot_requests;       /* of those, the ones with a second token,
				    whose time per output token the tpot_
				    fields summarize; 0: no TPOT at all
				    (every answer one token: the fields
				    are 0, and no latency) */
	bool overloaded;         /* the queue grew through the run */
};

/* Fraction of the first requests (by arrival) left out of the statistics
   of Poisson and closed-loop runs (more when sim_load.warmup_s says). */
#define SIM_WARMUP_FRACTION 0.1

/*
 * Simulate 'replicas' identical replicas of 'eng' under 'load', each step
 * timed by 'step' with 'ctx'.  Returns 0 with 'r' filled, or -1 with a
 * message in 'err' (bad arguments, a request that can never fit the KV
 * cache, out of memory).
 */
int sim_run(const struct sim_engine *eng, int replicas,
	    const struct sim_load *load, sim_step_fn step, void *ctx,
	    struct sim_result *r, struct diag *err);

/* A pool of identical replicas and their step model. */
struct sim_pool {
	const struct sim_engine *eng;
	int replicas;
	sim_step_fn step;
	void *ctx;
	sim_steps_fn steps;     /* NULL: 'step' for every step */
};

/* sim_run for one pool given whole (its 'steps' too). */
int sim_run_pool(const struct sim_pool *pool, const struct sim_load *load,
		 struct sim_result *r, struct diag *err);

/* The link that carries a request's KV cache from its prefill replica to
   the decode pool: latency_s + prompt tokens x bytes_per_token /
   bw_bytes_per_s, one transfer at a time per prefill replica. */
struct sim_transfer {
	double latency_s;
	double bytes_per_token;
	double bw_bytes_per_s;
};

/*
 * Prefill/decode disaggregation (DistServe: Zhong et al. 2024): requests
 * are routed to the prefill pool, emit their first token there, send
 * their KV cache over 'x' and are routed to the decode pool (least
 * outstanding requests in each pool), which decodes the rest; a sequence
 * preempted there is recomputed there.  Both pools need the same KV block
 * size.  Results are the fleet's (both pools).  Returns 0, or -1 with a
 * message.
 */
int sim_run_disaggregated(const struct sim_pool *prefill,
			  const struct sim_pool *decode,
			  const struct sim_transfer *x,
			  const struct sim_load *load, struct sim_result *r,
			  struct diag *err);

/* Default requests for a load: enough for a stable p99 (serve_sim.c). */
int sim_default_requests(const struct sim_load *load, int replicas);

#endif
