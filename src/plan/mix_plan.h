/*
 * mix_plan.h - sizing a mixed serving fleet: the workload's requests
 * bucketed by length (fleet_mix.h), one replica of every device at every
 * tensor-parallel size measured on every bucket (its capacity under the
 * latency targets' batch, infer_plan_capacity), the cheapest mix chosen
 * by the integer program of Melange (Griggs et al. 2024), and the chosen
 * fleet simulated pool by pool: each device's replicas under the requests
 * routed to them, grown until the simulation meets the targets.
 *
 * Work is split so that a caller may run it on threads: the measurements
 * (mix_plan_measure, one unit at a time) and the pools' simulations
 * (mix_plan_simulate, one pool at a time) touch only their own unit;
 * mix_plan_run does it all in turn.  Pure: no I/O.  specs/models.md
 * 10.9.22.
 */
#ifndef CAPPLAN_MIX_PLAN_H
#define CAPPLAN_MIX_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "catalog.h"
#include "diag.h"
#include "fleet_mix.h"
#include "serve_sim.h"
#include "workload.h"

/* Requests of the load a Poisson rate is drawn into for the buckets and
   the pools' simulations, when [inference] requests is left open: the
   rate for mix_horizon_s, within these bounds. */
#define MIX_REQUESTS_MIN 4000
#define MIX_REQUESTS_MAX 50000

/* One device at one tensor-parallel size in the fleet: its replicas and
   what its simulation saw. */
struct mix_pool {
	const struct gpu_spec *gpu;
	int tp;
	int gpus_per_replica;   /* tp x ep */
	double price_per_h;     /* one replica, USD per hour */
	double replica_w;       /* one replica's facility power, W: its
				   GPUs at TDP (or inference.power_cap),
				   hosts, PUE (infer_replica_w) */
	int ip_replicas;        /* the integer program's */
	int replicas;           /* the fewest from ip_replicas up whose
				   simulation meets the targets (or the last
				   tried when none does) */
	double rate_per_s;      /* requests routed to it per second */
	double capacity_qps;    /* one replica on its mix of buckets:
				   rate / sum_b (rate_b / cap_b) */
	double prompt_mean, output_mean; /* of its requests, tokens */
	size_t requests;        /* routed to it, simulated */
	int buckets;            /* how many buckets it serves (some or all
				   of their slices) */
	bool simulated;         /* 'sim' holds its simulation */
	struct sim_result sim;
	bool meets;
	char why[256];          /* when !meets */
};

/* The fleet. */
struct mix_result {
	int npools;
	struct mix_pool *pools;  /* owned by the plan */
	double cost_per_h;       /* sum of replicas x price_per_h */
	double ip_cost_per_h;    /* the program's fleet, before simulation */
	double power_w;          /* sum of replicas x replica_w */
	double ip_power_w;       /* the program's fleet's */
	int gpus;
	int replicas;
	bool meets;              /* every pool meets the targets */
	bool optimal;            /* the program proved its fleet cheapest */
	char why[320];           /* the first pool that misses, when !meets */
};

struct mix_plan;

/*
 * Prepare the plan of 'wl' (a transformer with its architecture and a
 * Poisson rate or a trace; single requests, not sessions) over the
 * devices 'gpus' (n >= 2): the requests (the trace's, or a Poisson draw
 * of the workload's rate and lengths, seeded by its seed), their buckets
 * and every device's tensor-parallel sizes.  'wl' and 'gpus' must outlive
 * the plan.  Returns 0 with '*out' (mix_plan_free), or -1 with a message.
 */
int mix_plan_new(const struct workload *wl, const struct gpu_spec *const *gpus,
		 int n, struct mix_plan **out, struct diag *err);

void mix_plan_free(struct mix_plan *m);

/* The load's requests per second (a trace's: its requests over the time
   from the first arrival to the last). */
double mix_plan_rate(const struct mix_plan *m);

/* The non-empty buckets. */
int mix_plan_bucket_count(const struct mix_plan *m);
const struct mix_bucket *mix_plan_bucket(const struct mix_plan *m, int b);

/* The measurement units (device x bucket), each one call of
   mix_plan_measure. */
int mix_plan_measure_count(const struct mix_plan *m);

/*
 * Measure unit 'u': one replica of its device on its bucket's requests
 * (fixed at the bucket's mean lengths), at each tensor-parallel size in
 * turn while a larger one lowers the price per request/s.  A size that
 * does not fit, misses the unloaded targets or cannot hold the bucket's
 * longest request serves nothing of it.  Returns 0, or -1 (out of memory).
 */
int mix_plan_measure(struct mix_plan *m, int u, struct diag *err);

/*
 * After every unit is measured: solve the integer program, route the
 * requests, and make the pools (mix_plan_pool_count).  Returns 0, or -1
 * with a message (a bucket no device serves, no fleet, the solver).
 */
int mix_plan_solve(struct mix_plan *m, struct diag *err);

/* What the program minimises: the fleet's price (mix_plan_solve) or its
   facility power (the largest load within a power budget). */
enum mix_objective { MIX_CHEAPEST, MIX_LEAST_POWER };

int mix_plan_solve_for(struct mix_plan *m, enum mix_objective objective,
		       struct diag *err);

int mix_plan_pool_count(const struct mix_plan *m);

/* Pool 'i' of the program's answer (before or after its simulation). */
const struct mix_pool *mix_plan_pool(const struct mix_plan *m, int i);

/*
 * Simulate pool 'i' with the requests routed to it (a trace of them, as
 * they arrive), from the program's replicas up until it meets the
 * targets: a quarter more each time, twice as many when the missed
 * percentile is over twice its target, then bisection; it gives up when
 * two larger fleets in a row improve the miss by less than 1%.  Returns
 * 0 (the pool's 'meets' says whether it did), or -1 (out of memory).
 */
int mix_plan_simulate(struct mix_plan *m, int i, struct diag *err);

/* The slices (of MIX_SLICES) of bucket 'b' that pool 'i' serves. */
int mix_plan_slices(const struct mix_plan *m, int b, int i);

/* After every pool is simulated: the fleet's totals. */
const struct mix_result *mix_plan_result(struct mix_plan *m);

/*
 * Plan the workload's load at 'scale' times its rate (> 0): a Poisson
 * load drawn again at scale x qps (its seed, so its buckets may differ),
 * or the trace's requests arriving 'scale' times as fast.  Every
 * measurement, the program's answer and the pools are cleared: measure
 * and solve again.  Returns 0, or -1 with a message.
 */
int mix_plan_scale(struct mix_plan *m, double scale, struct diag *err);

/* The scale of the load planned (1 after mix_plan_new). */
double mix_plan_scale_of(const struct mix_plan *m);

/* The mean output of the load's requests, tokens: the workload's
   output_tokens under a Poisson load, the trace's mean. */
double mix_plan_output_mean(const struct mix_plan *m);

/*
 * After the units are measured: a bound below the facility power of any
 * fleet the program may choose, W: each bucket's rate on the option that
 * holds it with the least power per saturated request/s (sum_b lambda_b
 * min_o w_o / c_ob).  HUGE_VAL when a bucket has no option.
 */
double mix_plan_least_power(const struct mix_plan *m);

/* The whole plan in turn: new, measure, solve, simulate.  Returns 0 with
   '*out' (mix_plan_free), or -1 with a message. */
int mix_plan_run(const struct workload *wl, const struct gpu_spec *const *gpus,
		 int n, struct mix_plan **out, struct diag *err);

#endif
