/*
 * serve_fleet.h - a fleet of serving replicas under the workload's load:
 * the load and the scheduler of [inference] resolved for the simulator
 * (serve_sim.h), the capacity of one replica, the latency a fixed fleet
 * gives, and the fewest replicas that meet the latency targets.
 * Pure: no I/O.  specs/models.md, section "Serving under load".
 */
#ifndef CAPPLAN_SERVE_FLEET_H
#define CAPPLAN_SERVE_FLEET_H

#include <stdbool.h>

#include "catalog.h"
#include "cluster.h"
#include "diag.h"
#include "model_flops.h"
#include "model_infer.h"
#include "serve_sim.h"
#include "workload.h"

/* vLLM's defaults (EngineArgs of its OpenAI-compatible server, V1):
   with chunked prefill, max_num_batched_tokens
   2048; without it, whole prompts in steps of up to 8192 tokens
   (TensorRT-LLM's max_num_tokens and SGLang's chunked_prefill_size). */
#define SERVE_CHUNK_TOKENS_DEFAULT 2048
#define SERVE_PREFILL_TOKENS_DEFAULT 8192

/* Most replicas one simulation holds: a larger fleet under Poisson or
   closed-loop load is simulated as this many replicas with the load
   scaled down in proportion (least-loaded routing over a large fleet
   pools its queue; fewer replicas pool less, so the latency is an upper
   bound). */
#define SERVE_SIM_REPLICAS_MAX 32

/* Most replicas sizing considers. */
#define SERVE_REPLICAS_MAX 100000

/* True when [inference] describes a load to simulate. */
bool serve_has_load(const struct inference_spec *is);

/* The arrival kind [inference] asks for (explicit, or implied by qps,
   concurrency or trace); -1 when there is no load. */
int serve_arrival(const struct inference_spec *is);

/* The results of a fleet under the load. */
struct serve_fleet {
	struct sim_engine engine; /* of a replica (disaggregated: prefill) */
	struct sim_load load;
	struct sim_result sim;   /* the fleet's (or the simulated part's) */
	int replicas;            /* the fleet (disaggregated: both pools) */
	int sim_replicas;        /* simulated */
	double capacity_qps;     /* one replica, Poisson, bounded queue
				    (disaggregated: one prefill and one
				    decode replica, the smaller of the
				    two pools' capacities) */
	/* prefill/decode disaggregation (serve_fleet_init_disagg) */
	bool disagg;
	struct sim_engine decode_engine;
	struct sim_transfer xfer;
	int prefill_replicas, decode_replicas;
	double prefill_capacity_qps; /* one prefill replica */
	double decode_capacity_qps;  /* one decode replica */
	int replicas_limit;      /* in: > 0, capplan sizes no more
				    replicas than this (a plan of fewer
				    GPUs is known: issue 43) */
	bool over_limit;         /* out: more replicas than the limit
				    were needed */
	struct fleet_share share; /* in: what sizings of this replica at
				     other rates learnt of fleets simulated
				     in part; out: with this sizing's */
	bool sized;              /* replicas chosen by capplan */
	bool meets;              /* targets met, not overloaded */
	bool overloaded;
	char why[256];           /* why not, when !meets */
};

/*
 * Resolve the scheduler of one replica serving 'c' (batch: the running
 * sequences at most, unless [inference] max_batch is given) on 'g', and
 * the load.  Returns 0 or -1 with a message (the KV cache holds nothing).
 */
int serve_fleet_init(const struct workload *wl, const struct arch *a,
		     const struct infer_config *c, const struct gpu_spec *g,
		     struct serve_fleet *f, struct diag *err);

/* The capacity of one replica (f->capacity_qps): its request rate when
   saturated by a closed loop of twice max_batch clients.  Returns 0 or
   -1 with a message. */
int serve_fleet_capacity(struct serve_fleet *f, struct infer_step_model *step,
			 struct diag *err);

/*
 * Simulate the fleet (after serve_fleet_capacity): the replicas of
 * [inference] replicas, or the fewest that meet the TTFT and TPOT targets
 * at the workload's percentile under the load (growing, then bisection,
 * from the closed-form first guess rate / capacity).  With
 * f->replicas_limit, the growth stops at the limit: when that many do not
 * meet the targets, f->meets is false and f->over_limit set, and the
 * fewest that do is not looked for.  'step' is the step model of one
 * replica.  Returns 0 with f->meets and f->why, or -1 with a message.
 */
int serve_fleet_run(const struct workload *wl,
		    struct infer_step_model *step,
		    struct serve_fleet *f, struct diag *err);

/*
 * A disaggregated fleet (DistServe): the prefill replicas run 'cp' (its
 * tp), the decode replicas 'cd', each with its own KV cache; the KV cache
 * of a request goes from one to the other over [inference] kv_transfer_bw
 * (per replica pair), or by default over the inter-node network of
 * min(tp) GPUs of 'cl'.  Returns 0 or -1 with a message.
 */
int serve_fleet_init_disagg(const struct workload *wl, const struct arch *a,
			    const struct infer_config *cp,
			    const struct infer_config *cd,
			    const struct gpu_spec *g, const struct cluster *cl,
			    struct serve_fleet *f, struct diag *err);

/* The capacities of one prefill replica (answers cut to one token) and
   one decode replica (prefilled requests), each saturated by a closed
   loop; f->capacity_qps the smaller.  Returns 0 or -1. */
int serve_fleet_capacity_disagg(struct serve_fleet *f,
				struct infer_step_model *prefill,
				struct infer_step_model *decode,
				struct diag *err);

/* Simulate a disaggregated fleet: [inference] prefill_replicas and
   decode_replicas, or the fewest of each that meet the targets (the
   prefill pool for TTFT first, then the decode pool for all of them).
   Returns 0 with f->meets and f->why, or -1 with a message. */
int serve_fleet_run_disagg(const struct workload *wl,
			   struct infer_step_model *prefill,
			   struct infer_step_model *decode,
			   struct serve_fleet *f, struct diag *err);

/* Latency at the workload's percentile from a simulation. */
double serve_ttft_at(const struct sim_result *r, enum slo_percentile p);
double serve_tpot_at(const struct sim_result *r, enum slo_percentile p);

#endif
