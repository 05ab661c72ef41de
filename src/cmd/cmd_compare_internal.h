/*
 * cmd_compare_internal.h - what the files of 'capplan compare' share
 * (cmd_compare.c: the rows, the sort and the table; cmd_compare_pick.c:
 * the recommendation and the notes on devices without a plan).
 * Private: nothing outside src/cmd/ includes it.
 */
#ifndef CAPPLAN_CMD_COMPARE_INTERNAL_H
#define CAPPLAN_CMD_COMPARE_INTERNAL_H

#include <stdbool.h>

#include "diag.h"
#include "infer_plan.h"
#include "plan.h"
#include "report.h"

/* One device's answers. */
struct compare_row {
	const struct gpu_spec *gpu;
	double sort_value;       /* the --sort key of this row */
	int order;               /* position in the --gpu list: ties keep it */
	int train_rc;            /* train_plan_make status */
	struct train_plan train;
	char train_why[DIAG_MSG_MAX];
	int infer_rc;            /* infer_plan_make status */
	bool infer_nomem;        /* it ran out of memory: an error */
	struct infer_plan infer;
	char infer_why[DIAG_MSG_MAX];
	bool per_sample;         /* kind generic or recsys: 'serve' holds
				    the serving plan, 'infer' is unused */
	int serve_rc;            /* sample_serve_plan_make status */
	struct sample_serve_plan serve;
	bool train_skipped;      /* a serving-only workload: no training
				    planned (cli_serving_only) */
};

/* Whether the row trains (fits) and serves (fits and meets the SLO). */
bool compare_train_ok(const struct compare_row *r);
bool compare_infer_ok(const struct compare_row *r);

/* Samples (tokens, or a per-sample model's samples) the run trains on. */
double compare_samples_of(const struct compare_row *r);

/* Served tokens (or samples) per second per GPU. */
double compare_serve_rate_per_gpu(const struct compare_row *r);

/* The sort keys, lower is better (HUGE_VAL: the row has no such
   answer): time, cost and energy to train; time per output token (a
   batch's latency); cost and energy per million tokens; throughput per
   GPU (negated); cost and energy per inference. */
double compare_key_time(const struct compare_row *r);
double compare_key_cost(const struct compare_row *r);
double compare_key_energy(const struct compare_row *r);
double compare_key_latency(const struct compare_row *r);
double compare_key_token_cost(const struct compare_row *r);
double compare_key_throughput(const struct compare_row *r);
double compare_key_joules(const struct compare_row *r);
double compare_key_sample_cost(const struct compare_row *r);
double compare_key_sample_joules(const struct compare_row *r);

/* The recommendation notes of a transformer's and of a per-sample
   model's comparison, over the 'n' rows. */
void compare_recommend(struct report *rep, const struct compare_row *rows,
		       int n, const struct workload *wl);
void compare_recommend_samples(struct report *rep,
			       const struct compare_row *rows, int n);

/* One note per reason the rows without a plan have none. */
void compare_no_plan_notes(struct report *rep, const struct compare_row *rows,
			   int n);

/* The serving batch of a per-sample model's rows (the first that has
   one). */
int compare_serve_batch(const struct compare_row *rows, int n);

#endif
