/*
 * request.h - serving requests and the kinds of load that send them, as
 * the workload ([inference] arrival, length_dist, speculative_tokens) and
 * trace files (trace.h) give them to the simulator (serve_sim.h).  Types
 * only.  specs/workload.md, "Serving under load".
 */
#ifndef CAPPLAN_REQUEST_H
#define CAPPLAN_REQUEST_H

#include <stdint.h>

/* One request: when it arrives and how long it is. */
struct sim_request {
	double arrival_s;  /* from the start of the run, >= 0 */
	int prompt_tokens; /* >= 1 */
	int output_tokens; /* >= 1 */
	/* what its prompt holds, for a prefix cache (a Mooncake trace's
	   hash_ids): the ids of its leading blocks of hash_block_tokens
	   tokens, equal ids the same tokens (and the same before them);
	   NULL: content no other request shares.  Owned by the trace. */
	const uint64_t *hash_ids;
	int n_hash_ids;
	int hash_block_tokens;
};

enum sim_arrival {
	SIM_ARRIVAL_POISSON = 0, /* rate per second, exponential gaps */
	SIM_ARRIVAL_CLOSED,      /* 'concurrency' clients, each sending the
				    next request when its last one ends */
	SIM_ARRIVAL_BURST,       /* every request at t = 0 */
	SIM_ARRIVAL_TRACE,       /* the caller's requests as they are */
};

enum sim_length_dist {
	SIM_LEN_FIXED = 0,   /* every request at the means */
	SIM_LEN_EXPONENTIAL, /* geometric around the means, >= 1 */
	SIM_LEN_SHAREGPT,    /* log-normal, ShareGPT-shaped (serve_sim.c) */
};

/*
 * Requests a simulation runs at most: the bound of [inference] requests,
 * of a trace (trace.h) and of the load capplan chooses (serve_load.c).
 * The bound on a plan's time: sizing a fleet simulates the whole load on
 * every fleet it tries, about 0.17 ms of one core a request for
 * examples/llama3-70b-serving.ini on H100-SXM with tp and replicas
 * searched, so 50,000 plan in 8 to 11 s (specs/workload.md).
 */
#define SIM_REQUESTS_MAX 50000

/* Most draft tokens per step of speculative decoding. */
#define SIM_SPECULATIVE_TOKENS_MAX 16

#endif
