/*
 * infer_plan.h - a serving plan: a workload's [inference] resolved on one
 * device: tensor parallelism and batch (chosen when left open), latency,
 * throughput, replicas for the request rate under the SLO, energy, cost.
 * Pure: no I/O.
 */
#ifndef CAPPLAN_INFER_PLAN_H
#define CAPPLAN_INFER_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "catalog.h"
#include "cluster.h"
#include "model_flops.h"
#include "model_infer.h"
#include "model_sample.h"
#include "progress_hook.h"
#include "serve_fleet.h"
#include "workload.h"

/* Largest batch considered, and the batch chosen when nothing limits it:
   vLLM's default max_num_seqs. */
#define INFER_BATCH_DEFAULT_MAX 256
#define INFER_BATCH_LIMIT 4096
/* Powers of two a replica's tp may take (1 to 2^(INFER_TP_SLOTS - 1)):
   the entries of capacity_by_tp_qps. */
#define INFER_TP_SLOTS 8

enum infer_choice {
	ICHOSE_TP,
	ICHOSE_BATCH,
	ICHOSE_COUNT
};

struct infer_plan {
	const struct gpu_spec *gpu;
	struct cluster cluster;
	struct arch arch;
	struct infer_config config;
	struct infer_result result;
	int max_batch;        /* largest batch that fits in memory */
	int max_batch_slo;    /* largest batch meeting the latency SLOs */
	bool fits;            /* the chosen batch fits in memory */
	bool meets_slo;       /* SLOs (and the rate) are met */
	bool has_rate;        /* a request rate was given */
	int replicas;
	int gpus_total;
	double utilization;   /* of the replicas' batch slots; with a rate */
	double ttft_p_s;      /* TTFT at the SLO percentile with queueing */
	double cost_usd_per_million_tokens;
	/* the same GPU time split between the phases (specs/models.md
	   10.9.20): prefill's per million prompt tokens, decode's per
	   million output tokens */
	double prefill_time_fraction;
	double cost_usd_per_million_input_tokens;
	double cost_usd_per_million_output_tokens;
	/* output tokens/s per MW of provisioned facility power (a replica's
	   GPUs at TDP or the power cap, hosts, PUE: infer_plan_replica_w):
	   the fleet's at the planned load, or a replica at full batch */
	double output_tokens_per_s_per_mw;
	double cost_usd_per_month; /* the gpus_total GPUs rented for
				      ENERGY_HOURS_PER_MONTH hours */
	unsigned chosen;      /* bits (1u << enum infer_choice) */
	char why[256];        /* why the SLO or memory is not met */
	bool simulated;       /* the load was simulated (fleet holds it) */
	bool pruned;          /* not sized: it needs more GPUs than a
				 better tp */
	int kv_capped_tokens; /* > 0: the plan fails because the engine's
				 KV cache of this many tokens
				 (inference.kv_cache_tokens) holds too
				 few sequences; the tokens its batch
				 would need */
	bool out_of_memory;   /* the simulation ran out of memory: an
				 error, not an infeasible plan */
	double capacity_hint_qps; /* in: a replica's capacity measured
				     before for this tp; 0: measure it */
	/* out (infer_plan_make): each power-of-two tp's replica capacity
	   that the plan measured or was given (entry log2 tp), 0 where
	   none: inference.capacity_by_tp_qps of a later plan at another
	   rate */
	double capacity_by_tp_qps[INFER_TP_SLOTS];
	/* out (infer_plan_make): what the sizings of each power-of-two tp
	   learnt of fleets simulated in part, with what the workload gave
	   (inference.share_by_tp of a later plan at another rate) */
	struct fleet_share share_by_tp[INFER_TP_SLOTS];
	struct serve_fleet fleet;
	int prefill_tp, decode_tp; /* disaggregated: each pool's tp */
};

/* Serving a network costed per sample (kind generic or recsys). */
struct sample_serve_plan {
	const struct gpu_spec *gpu;
	struct cluster cluster;
	int tp;                  /* GPUs per replica */
	int batch;
	struct sample_infer result;
	bool has_rate;
	int replicas;
	int gpus_total;
	double utilization;
	double latency_p_s;      /* batch latency at the percentile, queued */
	bool meets_slo;
	double energy_j_per_sample;
	double cost_usd_per_million_samples;
	double cost_usd_per_month; /* the gpus_total GPUs rented for
				      ENERGY_HOURS_PER_MONTH hours */
	char why[256];
};

/* The fixed costs of a served batch the [inference] keys give
   (specs/models.md 14.7): the server's request overhead when
   request_overhead is left open; with cuda_graphs left open, a CUDA
   graph for a recommender and for a fused network, none for a network
   an eager framework serves. */
struct serve_costs sample_serve_costs(const struct workload *wl);

/*
 * Plan serving a per-sample model: the fewest GPUs per replica (powers of
 * two within a node) that hold it, batches of [inference] batch (default
 * 256), replicas for the rate (qps samples/s, in batches) under the TTFT
 * SLO read as the batch latency target.  Returns 0, or -1 with a message.
 */
int sample_serve_plan_make(const struct workload *wl, const struct gpu_spec *g,
			   struct sample_serve_plan *p, struct diag *err);

/*
 * For an infeasible per-sample plan: what would meet it, as text for
 * people: the largest batch within the latency target, more GPUs per
 * replica (within a node), or devices of 'all' (n of them) that do.
 * Returns 0 when something was found, -1 when nothing was.
 */
int sample_serve_suggest(const struct workload *wl, const struct gpu_spec *g,
			 const struct gpu_spec *const *all, int n, char *buf,
			 size_t size);

/* The TPOT target a plan is held to: [inference] tpot_slo for answers of
   two tokens or more, 0 (none) for one-token answers, which have no time
   per output token. */
double infer_tpot_target_s(const struct inference_spec *is);

/* Fraction of requests an SLO percentile holds for: 0.5, 0.9, 0.99. */
double slo_fraction(enum slo_percentile p);

/*
 * Plan serving 'wl' (validated; it must have an architecture) on 'g'.
 * Returns 0 with a plan, feasible or not (p->fits, p->meets_slo, p->why);
 * -1 with a message when the model or device cannot be planned at all.
 */
int infer_plan_make(const struct workload *wl, const struct gpu_spec *g,
		    struct infer_plan *p, struct diag *err);

/*
 * infer_plan_make that says how far it is through 'hook' (NULL: none;
 * progress_hook.h): before each tensor-parallel size is measured
 * ("measuring capacity") and sized ("sizing replicas", or "planning"
 * without a load), with the steps done before it and the steps in all.
 * The plan is the same with or without a hook.
 */
int infer_plan_make_progress(const struct workload *wl,
			     const struct gpu_spec *g,
			     const struct progress_hook *hook,
			     struct infer_plan *p, struct diag *err);

/*
 * infer_plan_make_progress that sizes no fleet needing more than 'bound'
 * GPUs to keep up with a Poisson load: such a plan comes back with
 * p->pruned set, p->gpus_total the fewest GPUs whose replicas sustain the
 * rate (p->fleet.capacity_qps a replica's), and p->meets_slo false.
 * With bound 0 every plan that would be sized is pruned: it measures a
 * replica's capacity for a later sizing (workload capacity_hint_qps).
 * INT_MAX: infer_plan_make_progress.
 */
int infer_plan_make_within(const struct workload *wl,
			   const struct gpu_spec *g,
			   const struct progress_hook *hook, int bound,
			   struct infer_plan *p, struct diag *err);

/*
 * One replica of 'wl' on 'g' at tensor-parallel size 'tp', not sized into
 * a fleet: the plan of infer_plan_make without the load (batch, memory,
 * the unloaded latency checks), then, when it fits and meets them, the
 * capacity of one replica under the load of 'wl' (serve_fleet_capacity:
 * its request rate saturated; p->fleet.capacity_qps, with the replica's
 * scheduler and KV cache in p->fleet.engine).  'wl' must have a Poisson
 * load.  Returns 0 with p->fits and p->meets_slo (p->why when not), or -1
 * with a message (the device cannot run the model at this tp, or the
 * capacity run fails).  For mixed fleets (mix_plan.h).
 */
int infer_plan_capacity(const struct workload *wl, const struct gpu_spec *g,
			int tp, struct infer_plan *p, struct diag *err);

/* The facility power one replica of 'p' is provisioned for, W: its GPUs
   at TDP (the power cap, when lower), their share of the hosts, the PUE
   (specs/models.md 10.9.21). */
double infer_plan_replica_w(const struct infer_plan *p);

/* The same for a replica of 'gpus' GPUs of 'g' in cluster 'cl', each
   capped at 'power_cap_w' (0: none). */
double infer_replica_w(const struct gpu_spec *g, const struct cluster *cl,
		       double power_cap_w, int gpus);

/*
 * For an infeasible plan: what would meet it, as text for people:
 * a larger tp, a lower precision, or devices of 'all' (n of them) that do.
 * Returns 0 when something was found, -1 when nothing was.
 */
int infer_plan_suggest(const struct workload *wl, const struct gpu_spec *g,
		       const struct gpu_spec *const *all, int n, char *buf,
		       size_t size);

#endif
