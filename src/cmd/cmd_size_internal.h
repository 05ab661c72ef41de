/*
 * cmd_size_internal.h - what the files of 'capplan size' share: the
 * limits of the command line, a device's row, and the helpers that plan,
 * rank and write rows (cmd_size.c), used by size --mixed
 * (cmd_size_mixed.c).  Private to src/cmd/cmd_size*.c.
 */
#ifndef CAPPLAN_CMD_SIZE_INTERNAL_H
#define CAPPLAN_CMD_SIZE_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>

#include "cli.h"
#include "infer_power.h"
#include "mix_plan.h"
#include "progress.h"
#include "report.h"
#include "serve_sim.h"

/* The limits of the command line; 0 where not given. */
struct size_limits {
	double deadline_s;
	double budget_usd;
	double power_cap_w;
	double serve_s;     /* serving time counted in the total cost */
};

/* What the constraints need of one candidate training plan. */
struct size_cand {
	int gpus, tp, pp, cp, ep, dp, global_batch;
	double time_s, gpu_hours, cost_usd, energy_kwh, facility_power_w;
	double goodput; /* time_s is the expected wall clock at this */
	double rate_per_gpu; /* tokens (samples) per second per GPU */
};

/* The answer for one device, a row of the report. */
struct size_row {
	const struct gpu_spec *gpu;
	int order;         /* position in the --gpu list, for a stable sort */
	bool feasible;
	bool has_train;    /* 'train' holds the chosen plan */
	struct size_cand train;
	bool has_infer;    /* the serving numbers are known */
	bool nomem;        /* planning ran out of memory: an error */
	int replicas, gpus_inference;
	double cost_usd_per_million_tokens; /* per million samples for a
					       per-sample model */
	bool has_hits;     /* the load was simulated with a prefix cache */
	double prefix_hit_rate;      /* its share of prompt tokens served
					from the cache (specs/models.md
					10.9.19) */
	double cost_usd_per_month;   /* the serving fleet */
	double total_cost_usd;       /* training, plus serving for the
					serving time */
	double rank;                 /* what the rows sort by, smaller
					first (rank_key) */
	struct cluster cluster; /* the price the costs use */
	int rent_need;     /* > 0: the GPUs of the plan the limits chose,
			      more than the price basis rents as one job */
	char why[DIAG_MSG_MAX];
	bool simulated;    /* 'sim' holds the serving fleet's simulation
			      (size --mixed shows its latency) */
	struct sim_result sim;
	bool disagg;       /* the fleet is two pools (prefill, decode) */
	int prefill_replicas, decode_replicas, prefill_tp, decode_tp;
};

struct infer_job {
	const struct workload *wl;
	struct size_row *rows;
	struct progress *pr;
	struct progress_hook hook;
};

/* Training plus 'serve_s' of serving, the row's total cost. */
double size_row_total(const struct size_row *r, double serve_s);

/* Size the serving fleet of row i of a struct infer_job (for
   cli_parallel_for). */
void size_infer_one(int i, void *arg);

/* What the rows are ordered by, smaller first. */
double size_rank_key(const struct size_row *r, const struct size_limits *lim,
		     bool train);

/* qsort order of rows: feasible first, by rank, then by --gpu order. */
int size_row_cmp(const void *pa, const void *pb);

/* An integer or number field, or null when not 'known'. */
void size_rec_int_or_null(struct record *rec, const char *key,
			  const char *label, long long v, bool known,
			  int flags);
void size_rec_num_or_null(struct record *rec, const char *key,
			  const char *label, double v, enum unit_kind unit,
			  bool known, int flags);

/* A device's row of the report. */
void size_add_row(struct record *rec, const struct size_row *r, bool train,
		  bool infer, bool per_sample, bool hits,
		  const struct cli_ctx *ctx);

/* size --mixed (cmd_size_mixed.c): the cheapest fleet of several devices
   for a serving load.  Returns an enum cli_exit status. */
int size_mixed(struct cli_ctx *ctx, const struct size_limits *lim);

/* size --mixed --power-cap (cmd_size_mixed_power.c): the largest load a
   mixed fleet serves within a facility power budget, beside each
   device's.  Returns an enum cli_exit status. */
int size_mixed_power(struct cli_ctx *ctx, double budget_w);

/* What size --mixed and size --mixed --power-cap share
   (cmd_size_mixed.c): a device of the fleet (a record of "devices"; with
   'power' its facility power too), a bucket of requests (a record of
   "buckets": where the fleet 'r' sends it, or 'route' when not NULL),
   and the writer of the three parts (cli_write). */
void size_mix_add_pool(struct record *rec, const struct mix_pool *pl,
		       const struct workload *wl, bool power);
void size_mix_add_bucket(struct record *rec, struct mix_plan *m,
			 const struct mix_result *r, int b,
			 const char *route);

/* Write the three parts (the JSON "fleet" holding the single rows'
   notes, as a table has them at its end); EXIT_INFEASIBLE when the fleet
   does not meet the targets ('meets'), else cli_write's status. */
int size_mix_emit(struct cli_ctx *ctx, struct report *fleet,
		  const struct report *buckets, const struct report *single,
		  bool meets);

/* size --power-cap of a serving workload (cmd_size_power.c): each
   device's largest load within the budget, its table. */
struct power_rows {
	int n, served;
	struct infer_power_fit *fits;         /* [n], --gpu order */
	const struct infer_power_fit **order; /* [n], the table's: served
						 first, most tokens per MW */
	int *rcs;                             /* [n]: 0, or the fit failed */
	bool *nomem;
	char (*errs)[DIAG_MSG_MAX];
};

/* Fit every device of ctx to 'budget_w' and write the table into 'rep'
   (report_release it, and size_power_rows_free 'pw').  Returns EXIT_OK,
   or EXIT_INTERNAL (out of memory, said; nothing to free). */
int size_power_rows(struct cli_ctx *ctx, double budget_w,
		    struct power_rows *pw, struct report *rep);
void size_power_rows_free(struct power_rows *pw);

#endif
