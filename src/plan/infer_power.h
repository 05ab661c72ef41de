/*
 * infer_power.h - the largest load a facility's power budget serves: the
 * replicas the budget provisions, and the largest Poisson rate they serve
 * within the workload's latency targets (issue 42; specs/models.md
 * 10.9.21).  Pure: no I/O; plans through infer_plan.h.
 */
#ifndef CAPPLAN_INFER_POWER_H
#define CAPPLAN_INFER_POWER_H

#include <stdbool.h>

#include "diag.h"
#include "infer_plan.h"
#include "progress_hook.h"

struct infer_power_fit {
	double budget_w;          /* the facility's power budget */
	double replica_w;         /* a replica provisioned: its GPUs at
				     TDP (or the power cap), their hosts,
				     the PUE */
	int replicas;             /* floor(budget / replica_w) */
	bool feasible;            /* a rate above 0 meets the targets */
	char why[256];            /* why not, when !feasible */
	double rate_per_s;        /* the largest Poisson rate served */
	double output_tokens_per_s;        /* at that rate (offered) */
	double output_tokens_per_s_per_mw; /* over the budget, in MW */
	double tokens_per_mwh;    /* output tokens per MWh of facility
				     energy, a replica at full batch
				     (energy_j_per_token) */
	struct infer_plan plan;   /* the fleet at that rate */
};

/* Bisection steps on the rate at most, and its relative tolerance. */
#define INFER_POWER_STEPS_MAX 12
#define INFER_POWER_RATE_TOL 0.01

/*
 * Plan 'wl' (a Poisson load or a trace: its load picks tp and batch) on
 * 'g', then the largest rate that floor(budget_w / replica_w) replicas of
 * that tp and batch serve within the targets, by bisection between 0 and
 * their capacity (a trace's requests sped up to the rate).  'hook' (may be NULL) is told of each step.  Returns 0 with
 * 'out' filled (out->feasible says whether any rate is served), or -1
 * with a message (the workload cannot be planned, out of memory).
 */
int infer_plan_power_fit(const struct workload *wl, const struct gpu_spec *g,
			 double budget_w, const struct progress_hook *hook,
			 struct infer_power_fit *out, struct diag *err);

#endif
