/*
 * mix_power.h - the largest load a facility's power budget serves with a
 * mixed fleet (issue 42 item 2; specs/models.md 10.9.23): bisection on
 * the scale of the workload's load, each step the integer program of
 * mix_plan.h minimising the fleet's facility power (a fleet within the
 * budget exists exactly when the least power is within it), then the
 * fleet of the largest scale simulated pool by pool, backing off while
 * its simulation misses the targets or grows past the budget.  Pure: no
 * I/O; the caller may run the measurements and simulations on threads
 * ('each').
 */
#ifndef CAPPLAN_MIX_POWER_H
#define CAPPLAN_MIX_POWER_H

#include <stdbool.h>

#include "diag.h"
#include "mix_plan.h"
#include "progress_hook.h"

/* Bisection steps on the scale at most, and its relative tolerance (as
   infer_power.h's); back-offs after the simulation at most. */
#define MIX_POWER_STEPS_MAX 12
#define MIX_POWER_SCALE_TOL 0.01
#define MIX_POWER_BACKOFFS 4

/* Runs one(i, arg) for every i in [0, n), on threads or in turn (each
   call touches only unit i); NULL: in turn. */
typedef void (*mix_each_fn)(int n, void (*one)(int i, void *arg), void *arg);

struct mix_power_fit {
	double budget_w;           /* the facility's power budget */
	double scale;              /* of the workload's load, served */
	double rate_per_s;         /* requests/s at that scale */
	double output_tokens_per_s;        /* offered at that scale */
	double output_tokens_per_s_per_mw; /* over the budget, in MW */
	double power_w;            /* the simulated fleet's provisioned
				      facility power (<= budget_w when
				      feasible) */
	double least_w;            /* the least power of a fleet at scale 1
				      (mix_plan_least_power): a bound */
	int steps;                 /* scales planned (measured and solved) */
	bool feasible;             /* a scale above 0 is served within the
				      budget and the targets */
	char why[320];             /* why not, when !feasible */
};

/*
 * Fit the mixed fleet of 'm' (new, not yet measured) to 'budget_w' W.
 * On return 'm' holds the plan of the answer's scale: its buckets,
 * measurements, the program's fleet and the pools simulated
 * (mix_plan_result).  'hook' (may be NULL) is told of each step.
 * Returns 0 with 'out' (out->feasible says whether any load is served),
 * or -1 with a message (a bucket no device serves, out of memory).
 */
int mix_plan_power_fit(struct mix_plan *m, double budget_w, mix_each_fn each,
		       const struct progress_hook *hook,
		       struct mix_power_fit *out, struct diag *err);

#endif
