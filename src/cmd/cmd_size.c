/* cmd_size.c - 'capplan size': how many GPUs of each device a workload
   needs within a deadline, a budget or a facility power cap.  Field names
   are specified in specs/output.md. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cmd_size_internal.h"
#include "progress.h"
#include "interval.h"
#include "infer_plan.h"
#include "model_kernel.h"
#include "plan.h"

/* Largest cluster tried under a constraint, and without one. */
static const int size_max_gpus = 1 << 20;
static const int size_max_gpus_open = 1 << 14;

/* Serving time counted in the total cost without --serve-for: a year. */
static const double size_serve_s = 365.0 * 86400.0;
/* ... and at most a century, beyond any plan */
static const double size_serve_max_s = 100.0 * 365.0 * 86400.0;

/* Candidate counts are gpus_per_node x 2^k: at most this many. */
#define SIZE_MAX_STEPS 32




/*
 * Parse a positive finite limit written with its unit (a bare '90' could
 * mean seconds or days, '15' dollars or millions: no guess); prints a
 * usage error otherwise.
 */
static int parse_limit(const char *arg, const char *option,
		       enum unit_kind kind, double *out)
{
	const char *why = NULL;
	double v = 0.0;

	*out = 0.0;
	if (!arg)
		return EXIT_OK;
	if (units_parse(arg, kind, &v, &why) != 0 || !isfinite(v))
		return cli_usage("size", "%s must be a %s such as '%s', got "
				 "'%s'",
				 option, units_kind_name(kind),
				 units_example(kind), arg);
	if (!(v > 0.0))
		return cli_usage("size", "%s must be a positive %s such as "
				 "'%s', got '%s'",
				 option, units_kind_name(kind),
				 units_example(kind), arg);
	if (!units_has_unit(arg, kind))
		return cli_usage("size", "%s must be a %s with its unit such "
				 "as %s, got '%s'",
				 option, units_kind_name(kind),
				 units_examples(kind), arg);
	*out = v;
	return EXIT_OK;
}

static bool any_limit(const struct size_limits *lim)
{
	return lim->deadline_s > 0.0 || lim->budget_usd > 0.0 ||
	       lim->power_cap_w > 0.0;
}

static bool within(const struct size_limits *lim, const struct size_cand *c)
{
	return (lim->deadline_s <= 0.0 || c->time_s <= lim->deadline_s) &&
	       (lim->budget_usd <= 0.0 || c->cost_usd <= lim->budget_usd) &&
	       (lim->power_cap_w <= 0.0 ||
		c->facility_power_w <= lim->power_cap_w);
}

/*
 * No candidate meets every limit: say which one fails first, applying
 * them in the order deadline, budget, power cap.
 */
static void explain_limits(const struct size_limits *lim,
			   const struct size_cand *cand, int n, char *why,
			   size_t size)
{
	bool keep[SIZE_MAX_STEPS];
	char have[64], want[64];
	const char *scope = "";
	int most = 0, best;

	for (int i = 0; i < n; i++) {
		keep[i] = true;
		if (cand[i].gpus > most)
			most = cand[i].gpus;
	}
	if (lim->deadline_s > 0.0) {
		int left = 0;

		for (int i = 0; i < n; i++)
			left += keep[i] = cand[i].time_s <= lim->deadline_s;
		if (left == 0) {
			int fast = 0;

			for (int i = 1; i < n; i++)
				if (cand[i].time_s < cand[fast].time_s)
					fast = i;
			units_format(have, sizeof(have), cand[fast].time_s,
				     UNIT_TIME, 3);
			/* past the fastest count the global batch leaves too
			   few micro-batches to fill more GPUs */
			if (cand[fast].gpus < most)
				snprintf(why, size, "fastest is %s on %d GPUs "
					 "(more no faster at batch %d)", have,
					 cand[fast].gpus,
					 cand[fast].global_batch);
			else
				snprintf(why, size, "fastest is %s on %d GPUs",
					 have, cand[fast].gpus);
			return;
		}
		scope = " within the deadline";
	}
	if (lim->budget_usd > 0.0) {
		int left = 0;

		best = -1;
		for (int i = 0; i < n; i++) {
			if (keep[i] && (best < 0 ||
					cand[i].cost_usd < cand[best].cost_usd))
				best = i;
			left += keep[i] = keep[i] &&
					  cand[i].cost_usd <= lim->budget_usd;
		}
		if (left == 0) {
			units_format(have, sizeof(have), cand[best].cost_usd,
				     UNIT_MONEY, 3);
			units_format(want, sizeof(want), lim->budget_usd,
				     UNIT_MONEY, 4);
			snprintf(why, size, "cheapest plan%s costs %s, over the "
					    "%s budget", scope, have, want);
			return;
		}
		scope = lim->deadline_s > 0.0 ? " within the deadline and budget" :
						" within the budget";
	}
	best = -1;
	for (int i = 0; i < n; i++)
		if (keep[i] && (best < 0 || cand[i].facility_power_w <
						    cand[best].facility_power_w))
			best = i;
	if (best < 0) {
		snprintf(why, size, "no plan meets the limits");
		return;
	}
	units_format(have, sizeof(have), cand[best].facility_power_w,
		     UNIT_POWER, 3);
	units_format(want, sizeof(want), lim->power_cap_w, UNIT_POWER, 4);
	snprintf(why, size, "lowest-power plan%s draws %s, over the %s power cap",
		 scope, have, want);
}

/* The plan of one count of the ladder (size_train), planned at most
   once. */
struct count_plan {
	bool done;      /* planned */
	bool legal;     /* train_plan_make answered */
	bool fits;      /* it fits, has its architecture and finishes */
	bool rentable;  /* the price basis rents that many */
	bool breaks;    /* it breaks the deadline's bound (see size_train) */
	struct size_cand cand;
	char err[sizeof(((struct diag *)0)->msg)];
};

static void plan_count(const struct workload *wl, const struct gpu_spec *g,
		       int gpus, double run_flops, double rate,
		       struct count_plan *c)
{
	struct workload w = *wl;
	struct train_plan p;
	struct diag err;

	c->done = true;
	w.training.gpus = gpus;
	diag_clear(&err);
	if (train_plan_make(&w, g, &p, &err) != 0) {
		snprintf(c->err, sizeof(c->err), "%s", err.msg);
		return;
	}
	c->legal = true;
	c->breaks = run_flops > 0.0 && p.has_arch &&
		    !(p.result.model_flops_per_gpu <= rate * (1.0 + 1e-9) &&
		      p.tokens * p.result.model_flops_per_token <=
			      run_flops * (1.0 + 1e-9));
	if (!p.fits || !p.has_arch || !p.goodput.finishes)
		return;
	c->fits = true;
	c->cand = (struct size_cand){
		.gpus = p.config.gpus,
		.tp = p.config.tp,
		.pp = p.config.pp,
		.cp = p.config.cp,
		.ep = train_config_ep(&p.config),
		.dp = p.config.dp,
		.global_batch = p.config.global_batch,
		.time_s = p.run.time_s,
		.gpu_hours = p.run.gpu_hours,
		.cost_usd = p.run.cost_usd,
		.energy_kwh = p.run.energy_kwh,
		.facility_power_w = p.run.facility_power_w,
		.goodput = p.goodput.goodput,
		.rate_per_gpu = p.result.tokens_per_s_per_gpu,
	};
	/* a plan the price basis does not rent is no choice */
	c->rentable = cluster_price_covers(&p.cluster, g, p.config.gpus);
}

/*
 * Training on 'g': plan gpus_per_node x 2^k GPUs for every k up to the
 * largest cluster, keep the plans that fit in memory, and pick the fewest
 * GPUs within the deadline (with one) or else the fastest plan within the
 * limits.  Fills row->train and row->feasible, or row->why.
 *
 * With a deadline, the counts that cannot meet it are planned last (issue
 * 43): the run's model FLOPs F (train_plan_model_flops: tokens x model
 * FLOPs per token, the same on every count) at the fastest rate P a
 * kernel of the step runs at (train_rate_ceiling: the peak times the
 * GEMM efficiency and the in-training fraction) bound its steady time on
 * N GPUs from below, F / (N P), and the time as production runs report
 * it is no shorter (goodput and the production efficiency are at most
 * 1).  The first of the other counts that meets the deadline is the
 * ladder's answer.  When none does (or a plan shows more FLOPs than F or
 * model FLOPs per GPU above P), the skipped counts are planned too and
 * the ladder is read whole, each count planned once.
 */
static void size_train(const struct workload *wl, const struct gpu_spec *g,
		       const struct size_limits *lim, struct size_row *row)
{
	struct count_plan counts[32];
	struct size_cand cand[SIZE_MAX_STEPS];
	struct device_perf d;
	struct cluster cl;
	double rate, fastest_s = HUGE_VAL;
	bool broke = false;
	int ncount = 0, n = 0, legal = 0, best = -1, any = -1, tried = 0;
	const char *err = "";
	double run_flops = lim->deadline_s > 0.0 ? train_plan_model_flops(wl) :
						   0.0;
	int max_gpus = any_limit(lim) ? size_max_gpus : size_max_gpus_open;
	long long first;

	row->feasible = false;
	if (device_perf_init(&d, g, wl->training.precision, false) != 0) {
		snprintf(row->why, sizeof(row->why), "device cannot run %s",
			 precision_name(wl->training.precision));
		return;
	}
	rate = train_rate_ceiling(g, wl->training.precision);
	/* the node; a price error comes back from train_plan_make */
	(void)cluster_resolve(&wl->cluster, g, &cl, NULL);
	first = cl.gpus_per_node > 0 ? cl.gpus_per_node : 1;
	for (long long gpus = first; gpus <= max_gpus && ncount < 32;
	     gpus *= 2)
		counts[ncount++] = (struct count_plan){ .done = false };
	for (int k = 0; run_flops > 0.0 && k < ncount; k++) {
		/* the counts the bound leaves, fewest first: the first
		   within the limits is the ladder's answer (the counts
		   skipped cannot be, and the ladder has fewer counts than
		   SIZE_MAX_STEPS) */
		struct count_plan *c = &counts[k];

		if (run_flops / ((double)(first << k) * rate) >
		    lim->deadline_s)
			continue; /* too few GPUs even at the fastest rate */
		plan_count(wl, g, (int)(first << k), run_flops, rate, c);
		if (c->breaks) {
			broke = true;
			break; /* the ladder is read whole below */
		}
		if (!c->fits || !within(lim, &c->cand))
			continue;
		if (c->rentable) {
			row->has_train = true;
			row->train = c->cand;
			row->feasible = true;
		} else {
			row->rent_need = c->cand.gpus;
			snprintf(row->why, sizeof(row->why),
				 "needs %d GPUs, more than its price basis "
				 "covers", c->cand.gpus);
		}
		return;
	}
	/* Every count the bound left has been planned and none meets the
	   deadline: the others are planned to say which is fastest, but a
	   count whose bound is above the fastest plan's time cannot be it */
	if (run_flops > 0.0 && !broke)
		for (int k = 0; k < ncount; k++)
			if (counts[k].done && counts[k].fits)
				fastest_s = fmin(fastest_s,
						 counts[k].cand.time_s);
	/* the ladder, each count planned once */
	for (int k = 0; k < ncount && n < SIZE_MAX_STEPS; k++) {
		struct count_plan *c = &counts[k];

		if (!c->done &&
		    run_flops / ((double)(first << k) * rate) > fastest_s)
			continue; /* slower than a plan of more GPUs */
		if (!c->done)
			plan_count(wl, g, (int)(first << k), 0.0, rate, c);
		tried = (int)(first << k);
		err = c->legal ? "" : c->err;
		if (!c->legal)
			continue; /* no legal configuration on this count */
		legal++;
		if (!c->fits)
			continue;
		cand[n] = c->cand;
		if (within(lim, &cand[n])) {
			if (any < 0 || (lim->deadline_s <= 0.0 &&
					cand[n].time_s < cand[any].time_s))
				any = n;
			if (c->rentable &&
			    (best < 0 || (lim->deadline_s <= 0.0 &&
					  cand[n].time_s < cand[best].time_s)))
				best = n;
		}
		n++;
		/* with a deadline the fewest GPUs win: stop at the first */
		if (any >= 0 && lim->deadline_s > 0.0)
			break;
	}
	if (any >= 0 && any != best)
		row->rent_need = cand[any].gpus;
	if (best >= 0) {
		row->has_train = true;
		row->train = cand[best];
		row->feasible = true;
		return;
	}
	if (any >= 0) {
		snprintf(row->why, sizeof(row->why),
			 "needs %d GPUs, more than its price basis covers",
			 cand[any].gpus);
		return;
	}
	if (legal == 0 && err[0])
		/* the reason on the largest count, e.g. a fixed tp */
		snprintf(row->why, sizeof(row->why), "%.300s", err);
	else if (legal == 0)
		snprintf(row->why, sizeof(row->why),
			 "no legal parallel configuration on up to %d GPUs",
			 tried);
	else if (n == 0)
		snprintf(row->why, sizeof(row->why),
			 "does not fit in memory on up to %d GPUs", tried);
	else
		explain_limits(lim, cand, n, row->why, sizeof(row->why));
}

/* Serving a per-sample model on 'g': replicas for the rate of samples/s
   with batches of [inference] batch, under the latency target of a
   batch. */
static void size_sample_infer(const struct workload *wl,
			      const struct gpu_spec *g, struct size_row *row)
{
	struct sample_serve_plan p;
	struct diag err;

	diag_clear(&err);
	if (sample_serve_plan_make(wl, g, &p, &err) != 0) {
		row->feasible = false;
		snprintf(row->why, sizeof(row->why), "%.300s", err.msg);
		return;
	}
	if (!p.result.fits || !p.meets_slo) {
		row->feasible = false;
		snprintf(row->why, sizeof(row->why), "%s",
			 p.why[0] ? p.why : "does not meet the SLO");
		return;
	}
	row->has_infer = true;
	row->replicas = p.replicas;
	row->gpus_inference = p.gpus_total;
	row->cost_usd_per_million_tokens = p.cost_usd_per_million_samples;
	row->cost_usd_per_month = p.cost_usd_per_month;
}

/* Serving on 'g': replicas for the request rate under the SLO. */
static void size_infer(const struct workload *wl, const struct gpu_spec *g,
		       const struct progress_hook *hook, struct size_row *row)
{
	struct infer_plan p;
	struct diag err;

	if (wl->model.kind != MODEL_TRANSFORMER) {
		size_sample_infer(wl, g, row);
		return;
	}
	diag_clear(&err);
	if (infer_plan_make_progress(wl, g, hook, &p, &err) != 0) {
		row->feasible = false;
		row->nomem = err.kind == DIAG_NOMEM;
		snprintf(row->why, sizeof(row->why), "%.300s", err.msg);
		return;
	}
	/* what the prefix cache served, feasible or not (as compare) */
	row->has_hits = p.simulated && p.fleet.engine.prefix_caching &&
			!p.fleet.disagg;
	row->prefix_hit_rate = p.fleet.sim.prefix_hit_rate;
	if (!p.fits || !p.meets_slo) {
		row->feasible = false;
		snprintf(row->why, sizeof(row->why), "%s",
			 p.why[0] ? p.why : "does not meet the SLO");
		return;
	}
	row->has_infer = true;
	row->replicas = p.replicas;
	row->gpus_inference = p.gpus_total;
	row->cost_usd_per_million_tokens = p.cost_usd_per_million_tokens;
	row->cost_usd_per_month = p.cost_usd_per_month;
	row->simulated = p.simulated;
	if (p.simulated)
		row->sim = p.fleet.sim;
	row->disagg = p.simulated && p.fleet.disagg;
	if (row->disagg) {
		row->prefill_replicas = p.fleet.prefill_replicas;
		row->decode_replicas = p.fleet.decode_replicas;
		row->prefill_tp = p.prefill_tp;
		row->decode_tp = p.decode_tp;
	}
}

/* Training plus serving for 'serve_s' seconds. */
double size_row_total(const struct size_row *r, double serve_s)
{
	double total = r->has_train ? r->train.cost_usd : 0.0;

	if (r->has_infer)
		total += r->cost_usd_per_month * serve_s /
			 (ENERGY_HOURS_PER_MONTH * 3600.0);
	return total;
}


/* The training sizing of one device (a thread of cli_parallel_for). */
struct train_job {
	const struct workload *wl;
	const struct size_limits *lim;
	struct size_row *rows;
	struct progress *pr;
};

static void size_train_one(int i, void *arg)
{
	struct train_job *j = arg;

	progress_phase(j->pr, 0, 0, j->rows[i].gpu->name);
	size_train(j->wl, j->rows[i].gpu, j->lim, &j->rows[i]);
	progress_add(j->pr, 1);
}

void size_infer_one(int i, void *arg)
{
	struct infer_job *j = arg;

	if (j->rows[i].feasible)
		size_infer(j->wl, j->rows[i].gpu, &j->hook, &j->rows[i]);
	progress_add(j->pr, 1);
}

/* What the rows are ordered by: the total with both parts, else the
   run's cost, else the serving cost. */
static double row_cost(const struct size_row *r)
{
	if (r->has_train && r->has_infer)
		return r->total_cost_usd;
	if (r->has_train)
		return r->train.cost_usd;
	return r->has_infer ? r->cost_usd_per_million_tokens : 0.0;
}

/* A budget or power cap without a deadline asks for the fastest training
   within it: the cheapest would be the slowest plan that fits (years on
   a few GPUs).  Otherwise the cheapest. */
static bool rank_by_time(const struct size_limits *lim, bool train)
{
	return train && lim->deadline_s <= 0.0 && any_limit(lim);
}

double size_rank_key(const struct size_row *r, const struct size_limits *lim,
		       bool train)
{
	return rank_by_time(lim, train) && r->has_train ? r->train.time_s :
							  row_cost(r);
}

/* Feasible rows first, by rank; then the list order. */
int size_row_cmp(const void *pa, const void *pb)
{
	const struct size_row *a = pa, *b = pb;

	if (a->feasible != b->feasible)
		return a->feasible ? -1 : 1;
	if (a->feasible && a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return (a->order > b->order) - (a->order < b->order);
}

void size_rec_int_or_null(struct record *rec, const char *key,
			    const char *label, long long v, bool known,
			    int flags)
{
	if (known)
		rec_int(rec, NULL, key, label, v, flags);
	else
		rec_null(rec, NULL, key, label, flags);
}

void size_rec_num_or_null(struct record *rec, const char *key,
			    const char *label, double v, enum unit_kind unit,
			    bool known, int flags)
{
	if (known)
		rec_num(rec, NULL, key, label, v, unit, flags);
	else
		rec_null(rec, NULL, key, label, flags);
}

/* 'hits': some row has a prefix cache's hit rate, a column of the
   table (null elsewhere, and not in the table when no row has one). */
void size_add_row(struct record *rec, const struct size_row *r,
		    bool train, bool infer, bool per_sample, bool hits,
		    const struct cli_ctx *ctx)
{
	const struct size_cand *c = &r->train;
	int tg = train ? RF_GRID : 0, ig = infer ? RF_GRID : 0;
	/* the columns a table leaves out when it has no room */
	int tw = tg ? tg | RF_WIDE : 0, iw = ig ? ig | RF_WIDE : 0;
	bool t = r->has_train, i = r->has_infer;

	rec_str(rec, NULL, "gpu", "gpu", r->gpu->name, RF_GRID);
	rec_bool(rec, NULL, "feasible", "feasible", r->feasible,
		 RF_GRID | RF_WIDE);
	size_rec_int_or_null(rec, "gpus", "gpus", c->gpus, t, tg);
	/* a per-sample model is data parallel: its rate per GPU instead */
	size_rec_int_or_null(rec, "tp", "tp", c->tp, t, per_sample ? 0 : tw);
	size_rec_int_or_null(rec, "pp", "pp", c->pp, t, per_sample ? 0 : tw);
	/* context and expert parallelism: in JSON and CSV, so that the
	   factors multiply to the GPUs (tp pp cp dp; ep within dp) */
	size_rec_int_or_null(rec, "cp", "cp", c->cp, t, RF_MACHINE);
	size_rec_int_or_null(rec, "ep", "ep", c->ep, t, RF_MACHINE);
	size_rec_int_or_null(rec, "dp", "dp", c->dp, t, per_sample ? 0 : tw);
	size_rec_int_or_null(rec, "global_batch", "gb", c->global_batch, t, tw);
	if (per_sample)
		size_rec_num_or_null(rec, "samples_per_s_per_gpu", "samples/s/GPU",
				c->rate_per_gpu, UNIT_COUNT, t, tw);
	size_rec_num_or_null(rec, "time_to_train_s", "time", c->time_s, UNIT_TIME,
			t, tg);
	size_rec_num_or_null(rec, "goodput", "goodput", c->goodput,
			UNIT_KIND_COUNT, t, tw | RF_PERCENT);
	size_rec_num_or_null(rec, "gpu_hours", "GPU-hours", c->gpu_hours,
			UNIT_COUNT, t, 0);
	size_rec_num_or_null(rec, "cost_usd", "cost", c->cost_usd, UNIT_MONEY, t,
			tg);
	size_rec_num_or_null(rec, "energy_kwh", "energy", c->energy_kwh,
			UNIT_ENERGY_KWH, t, 0);
	size_rec_num_or_null(rec, "facility_power_w", "power",
			c->facility_power_w, UNIT_POWER, t, tg);
	cli_rec_price(rec, &r->cluster, 0);
	size_rec_int_or_null(rec, "replicas", "replicas", r->replicas, i, iw);
	size_rec_int_or_null(rec, "gpus_inference", "serving gpus",
			r->gpus_inference, i, ig);
	size_rec_num_or_null(rec, "prefix_hit_rate", "prefix hits",
			r->prefix_hit_rate, UNIT_KIND_COUNT, r->has_hits,
			(hits ? ig | RF_WIDE : 0) | RF_PERCENT);
	if (per_sample)
		size_rec_num_or_null(rec, "cost_usd_per_million_samples", "$/Minf",
				r->cost_usd_per_million_tokens, UNIT_MONEY, i,
				ig);
	else
		size_rec_num_or_null(rec, "cost_usd_per_million_tokens", "$/Mtok",
				r->cost_usd_per_million_tokens, UNIT_MONEY, i,
				ig);
	size_rec_num_or_null(rec, "cost_usd_per_month", "serving/month",
			r->cost_usd_per_month, UNIT_MONEY, i, iw);
	size_rec_num_or_null(rec, "total_cost_usd", "total",
			r->total_cost_usd, UNIT_MONEY, t || i,
			train && infer ? RF_GRID : 0);
	{
		int cls = per_sample ? INTERVAL_PER_SAMPLE : INTERVAL_TRAINING;
		struct cli_estimate est[] = {
			{ cls, "time_to_train_s", "time",
			  t ? c->time_s : (double)NAN, true, UNIT_TIME, 0,
			  false, { 0.0, 0.0 } },
			{ cls, "cost_usd", "cost",
			  t ? c->cost_usd : (double)NAN, true, UNIT_MONEY, 0,
			  false, { 0.0, 0.0 } },
		};
		struct cli_basis b;

		/* production figures (specs/models.md 8.1.1) */
		cli_estimate_production(&est[0], r->gpu->name);
		cli_estimate_production(&est[1], r->gpu->name);
		cli_basis_init(&b, ctx->profile, r->gpu->name, &ctx->wl);
		cli_rec_interval_pairs(rec, &b, est, 2, RF_MACHINE);
	}
	rec_str(rec, NULL, "why", "why not", r->feasible ? "" : r->why,
		RF_GRID | RF_REASON);
}

/* "the deadline, budget and power cap" for the limits given. */
static void limits_text(const struct size_limits *lim, char *buf,
			size_t size)
{
	const char *names[3];
	int n = 0;

	if (lim->deadline_s > 0.0)
		names[n++] = "deadline";
	if (lim->budget_usd > 0.0)
		names[n++] = "budget";
	if (lim->power_cap_w > 0.0)
		names[n++] = "power cap";
	if (n == 1)
		snprintf(buf, size, "the %s", names[0]);
	else if (n == 2)
		snprintf(buf, size, "the %s and %s", names[0], names[1]);
	else
		snprintf(buf, size, "the %s, %s and %s", names[0], names[1],
			 names[2]);
}

static void add_notes(struct report *rep, const struct size_limits *lim,
		      const struct size_row *rows, int n, bool train,
		      const struct workload *wl)
{
	const struct size_row *r = &rows[0];
	char text[160] = "", lims[64] = "";

	if (any_limit(lim))
		limits_text(lim, lims, sizeof(lims));
	if (train && !any_limit(lim))
		report_note(rep, "no --deadline, --budget or --power-cap: "
				 "each device's fastest plan on up to %d GPUs",
			    size_max_gpus_open);
	else if (train)
		report_note(rep, "per device: %s within %s; GPU counts are "
				 "gpus per node x 2^k up to %d",
			    lim->deadline_s > 0.0 ? "the fewest GPUs" :
						    "the fastest plan",
			    lims,
			    size_max_gpus);
	if (train && wl->model.kind == MODEL_TRANSFORMER &&
	    wl->training.tokens <= 0.0)
		report_note(rep, "training.tokens not given: 20 x params "
				 "(Chinchilla)");
	for (int i = 0; i < n; i++) {
		const struct size_row *x = &rows[i];

		if (x->rent_need > 0 && x->feasible)
			report_note(rep, "%s: planned on at most %d GPUs: its "
					 "price basis %s covers jobs of at "
					 "most %d (without that limit its plan "
					 "needs %d)",
				    x->gpu->name, x->gpu->rent_max_gpus,
				    x->gpu->price_basis, x->gpu->rent_max_gpus,
				    x->rent_need);
		else if (x->rent_need > 0)
			report_note(rep, "%s: not recommended: its plan needs "
					 "%d GPUs and its price basis %s "
					 "covers jobs of at most %d",
				    x->gpu->name, x->rent_need,
				    x->gpu->price_basis,
				    x->gpu->rent_max_gpus);
	}
	if (n == 0 || !r->feasible) {
		report_note(rep, "no device is feasible");
		return;
	}
	if (r->has_train) {
		int len = wl->model.kind != MODEL_TRANSFORMER ?
				  snprintf(text, sizeof(text),
					   "%d GPUs (data parallel)",
					   r->train.gpus) :
				  snprintf(text, sizeof(text),
					   "%d GPUs (tp=%d pp=%d dp=%d)",
					   r->train.gpus, r->train.tp,
					   r->train.pp, r->train.dp);

		if (r->has_infer && len > 0 && (size_t)len < sizeof(text))
			snprintf(text + len, sizeof(text) - (size_t)len,
				 ", %d replicas to serve", r->replicas);
	} else {
		snprintf(text, sizeof(text), "%d replicas (%d GPUs)",
			 r->replicas, r->gpus_inference);
	}
	if (train && r->has_infer) {
		char serve[32];

		units_format(serve, sizeof(serve), lim->serve_s, UNIT_TIME, 3);
		report_note(rep, "recommended: %s, %s: cheapest in total "
				 "(training, then serving for %s)%s%s",
			    r->gpu->name, text, serve,
			    any_limit(lim) ? " within " : "", lims);
	} else if (rank_by_time(lim, train))
		report_note(rep, "recommended: %s, %s: fastest within %s",
			    r->gpu->name, text, lims);
	else if (train && any_limit(lim))
		report_note(rep, "recommended: %s, %s: cheapest within %s",
			    r->gpu->name, text, lims);
	else if (train)
		report_note(rep, "recommended: %s, %s: cheapest of the "
				 "fastest plans",
			    r->gpu->name, text);
	else
		report_note(rep, "recommended: %s, %s: cheapest per million "
				 "%s within the SLO",
			    r->gpu->name, text,
			    wl->model.kind == MODEL_TRANSFORMER ? "tokens" :
								  "inferences");
}

int cmd_size(struct cli_ctx *ctx)
{
	struct size_limits lim;
	struct size_row *rows;
	struct progress pr;
	struct report rep;
	bool train, infer, arch, per_sample, hits = false;
	int rc, feasible = 0;

	rc = parse_limit(ctx->deadline_arg, "--deadline", UNIT_TIME,
			 &lim.deadline_s);
	if (rc == EXIT_OK)
		rc = parse_limit(ctx->budget_arg, "--budget", UNIT_MONEY,
				 &lim.budget_usd);
	if (rc == EXIT_OK)
		rc = parse_limit(ctx->power_cap_arg, "--power-cap", UNIT_POWER,
				 &lim.power_cap_w);
	if (rc == EXIT_OK)
		rc = parse_limit(ctx->serve_for_arg, "--serve-for", UNIT_TIME,
				 &lim.serve_s);
	if (rc == EXIT_OK && !ctx->serve_for_arg)
		lim.serve_s = size_serve_s;
	if (rc == EXIT_OK && lim.serve_s > size_serve_max_s) {
		rc = cli_usage("size", "--serve-for must be at most 100y, got "
			       "'%s'",
			       ctx->serve_for_arg);
	}
	if (rc == EXIT_OK)
		rc = cli_load_workload(ctx);
	if (rc == EXIT_OK)
		rc = cli_resolve_gpus(ctx, true);
	if (rc == EXIT_OK && ctx->mixed)
		return size_mixed(ctx, &lim);
	if (rc == EXIT_OK)
		rc = cli_plot_prepare(ctx);
	if (rc != EXIT_OK)
		return rc;
	/* a power budget and a workload that only serves: the largest
	   load the budget serves (issue 42) */
	if (lim.power_cap_w > 0.0 && cli_serving_only(&ctx->wl) &&
	    ctx->wl.model.kind == MODEL_TRANSFORMER && !ctx->deadline_arg &&
	    !ctx->budget_arg && !ctx->plot_dir)
		return size_power(ctx, lim.power_cap_w);

	/* training unless the workload only serves (a rate and no tokens,
	   or for a per-sample model no samples) */
	per_sample = ctx->wl.model.kind != MODEL_TRANSFORMER;
	arch = per_sample || model_has_arch(&ctx->wl.model);
	infer = arch && ctx->wl.inference.qps > 0.0;
	train = arch && ((per_sample ? ctx->wl.training.samples :
				       ctx->wl.training.tokens) > 0.0 ||
			 !infer || any_limit(&lim));

	rows = calloc((size_t)ctx->ngpus, sizeof(*rows));
	if (!rows) {
		fprintf(stderr, "capplan: error: out of memory\n");
		return EXIT_INTERNAL;
	}
	progress_init(&pr, "size");
	for (int i = 0; i < ctx->ngpus; i++) {
		struct size_row *r = &rows[i];

		r->gpu = ctx->gpus[i];
		r->order = i;
		r->feasible = arch;
		/* checked by cli_resolve_gpus */
		(void)cluster_resolve(&ctx->wl.cluster, r->gpu, &r->cluster,
				      NULL);
		if (!arch)
			snprintf(r->why, sizeof(r->why),
				 "only 'params' is known: give [model] layers, "
				 "hidden, heads, vocab and seq_len");
	}
	if (train) {
		/* each device's counts searched on a thread of its own */
		struct train_job job = { &ctx->wl, &lim, rows, &pr };

		progress_update(&pr, 0, (size_t)ctx->ngpus, "devices trained");
		cli_parallel_for(ctx->ngpus, size_train_one, &job);
	}
	if (infer) {
		/* serving is simulated: one device per thread */
		struct infer_job job = { &ctx->wl, rows, &pr,
					 progress_hook_of(&pr) };

		progress_update(&pr, 0, (size_t)ctx->ngpus, "devices served");
		cli_parallel_for(ctx->ngpus, size_infer_one, &job);
	}
	for (int i = 0; i < ctx->ngpus; i++)
		if (rows[i].nomem) {
			/* an error, not a device that cannot serve */
			progress_end(&pr);
			free(rows);
			fprintf(stderr, "capplan: error: out of memory\n");
			return EXIT_INTERNAL;
		}
	for (int i = 0; i < ctx->ngpus; i++) {
		feasible += rows[i].feasible;
		hits = hits || rows[i].has_hits;
		rows[i].total_cost_usd = size_row_total(&rows[i], lim.serve_s);
		rows[i].rank = size_rank_key(&rows[i], &lim, train);
	}
	progress_end(&pr);
	qsort(rows, (size_t)ctx->ngpus, sizeof(*rows), size_row_cmp);

	report_init(&rep, true);
	snprintf(rep.title, sizeof(rep.title), "GPUs needed: %s",
		 ctx->wl.model.name[0] ? ctx->wl.model.name : "model");
	for (int i = 0; i < ctx->ngpus; i++) {
		struct record *rec = report_add_record(&rep);

		if (!rec) {
			report_release(&rep);
			free(rows);
			fprintf(stderr, "capplan: error: out of memory\n");
			return EXIT_INTERNAL;
		}
		size_add_row(rec, &rows[i], train, infer, per_sample, hits, ctx);
		cli_rec_stacks(rec, &ctx->wl, infer && !per_sample, train,
			       RF_MACHINE);
	}
	cli_note_stacks(&rep, &ctx->wl, infer && !per_sample, train);
	cli_note_profile(&rep, ctx, NULL);
	add_notes(&rep, &lim, rows, ctx->ngpus, train, &ctx->wl);
	if (train && ctx->format == FORMAT_TABLE)
		report_note(&rep, "%s", CLI_INTERVAL_NOTE);
	if (ctx->plot_dir && feasible > 0)
		report_note(&rep, "charts of the best %d devices in %s",
			    feasible < CLI_PLOT_SET_GPUS ? feasible :
							   CLI_PLOT_SET_GPUS,
			    ctx->plot_dir);
	rc = cli_emit(ctx, &rep);
	report_release(&rep);
	if (rc == EXIT_OK && ctx->plot_dir) {
		/* the feasible devices, cheapest first as in the table */
		const struct gpu_spec *best[CLI_PLOT_SET_GPUS];
		int nbest = 0;

		for (int i = 0; i < ctx->ngpus && nbest < CLI_PLOT_SET_GPUS;
		     i++)
			if (rows[i].feasible)
				best[nbest++] = rows[i].gpu;
		rc = cli_plot_set(ctx, best, nbest);
	}
	free(rows);
	if (rc == EXIT_OK && feasible == 0)
		rc = EXIT_INFEASIBLE;
	return rc;
}
