/* cmd_size.c - 'capplan size': how many GPUs of each device a workload
   needs within a deadline, a budget or a facility power cap.  Field names
   are specified in specs/output.md. */
#include <cJSON.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "progress.h"
#include "interval.h"
#include "infer_plan.h"
#include "mix_plan.h"
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

/*
 * Training on 'g': plan gpus_per_node x 2^k GPUs for every k up to the
 * largest cluster, keep the plans that fit in memory, and pick the fewest
 * GPUs within the deadline (with one) or else the fastest plan within the
 * limits.  Fills row->train and row->feasible, or row->why.
 */
static void size_train(const struct workload *wl, const struct gpu_spec *g,
		       const struct size_limits *lim, struct size_row *row)
{
	struct size_cand cand[SIZE_MAX_STEPS];
	struct workload w = *wl;
	struct device_perf d;
	struct cluster cl;
	struct diag err;
	int n = 0, legal = 0, best = -1, any = -1, tried = 0;

	diag_clear(&err);
	int max_gpus = any_limit(lim) ? size_max_gpus : size_max_gpus_open;

	row->feasible = false;
	if (device_perf_init(&d, g, wl->training.precision, false) != 0) {
		snprintf(row->why, sizeof(row->why), "device cannot run %s",
			 precision_name(wl->training.precision));
		return;
	}
	/* the node; a price error comes back from train_plan_make */
	(void)cluster_resolve(&wl->cluster, g, &cl, NULL);
	for (long long gpus = cl.gpus_per_node > 0 ? cl.gpus_per_node : 1;
	     gpus <= max_gpus && n < SIZE_MAX_STEPS; gpus *= 2) {
		struct train_plan p;
		bool rentable;

		tried = (int)gpus;
		w.training.gpus = (int)gpus;
		diag_clear(&err);
		if (train_plan_make(&w, g, &p, &err) != 0)
			continue; /* no legal configuration on this count */
		legal++;
		if (!p.fits || !p.has_arch || !p.goodput.finishes)
			continue;
		cand[n] = (struct size_cand){
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
		rentable = cluster_price_covers(&p.cluster, g, p.config.gpus);
		if (within(lim, &cand[n])) {
			if (any < 0 || (lim->deadline_s <= 0.0 &&
					cand[n].time_s < cand[any].time_s))
				any = n;
			if (rentable &&
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
	if (legal == 0 && err.msg[0])
		/* the reason on the largest count, e.g. a fixed tp */
		snprintf(row->why, sizeof(row->why), "%.300s", err.msg);
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
static double row_total(const struct size_row *r, double serve_s)
{
	double total = r->has_train ? r->train.cost_usd : 0.0;

	if (r->has_infer)
		total += r->cost_usd_per_month * serve_s /
			 (ENERGY_HOURS_PER_MONTH * 3600.0);
	return total;
}

struct infer_job {
	const struct workload *wl;
	struct size_row *rows;
	struct progress *pr;
	struct progress_hook hook;
};

static void infer_one(int i, void *arg)
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

static double rank_key(const struct size_row *r, const struct size_limits *lim,
		       bool train)
{
	return rank_by_time(lim, train) && r->has_train ? r->train.time_s :
							  row_cost(r);
}

/* Feasible rows first, by rank; then the list order. */
static int row_cmp(const void *pa, const void *pb)
{
	const struct size_row *a = pa, *b = pb;

	if (a->feasible != b->feasible)
		return a->feasible ? -1 : 1;
	if (a->feasible && a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return (a->order > b->order) - (a->order < b->order);
}

static void rec_int_or_null(struct record *rec, const char *key,
			    const char *label, long long v, bool known,
			    int flags)
{
	if (known)
		rec_int(rec, NULL, key, label, v, flags);
	else
		rec_null(rec, NULL, key, label, flags);
}

static void rec_num_or_null(struct record *rec, const char *key,
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
static void add_row(struct record *rec, const struct size_row *r,
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
	rec_int_or_null(rec, "gpus", "gpus", c->gpus, t, tg);
	/* a per-sample model is data parallel: its rate per GPU instead */
	rec_int_or_null(rec, "tp", "tp", c->tp, t, per_sample ? 0 : tw);
	rec_int_or_null(rec, "pp", "pp", c->pp, t, per_sample ? 0 : tw);
	/* context and expert parallelism: in JSON and CSV, so that the
	   factors multiply to the GPUs (tp pp cp dp; ep within dp) */
	rec_int_or_null(rec, "cp", "cp", c->cp, t, RF_MACHINE);
	rec_int_or_null(rec, "ep", "ep", c->ep, t, RF_MACHINE);
	rec_int_or_null(rec, "dp", "dp", c->dp, t, per_sample ? 0 : tw);
	rec_int_or_null(rec, "global_batch", "gb", c->global_batch, t, tw);
	if (per_sample)
		rec_num_or_null(rec, "samples_per_s_per_gpu", "samples/s/GPU",
				c->rate_per_gpu, UNIT_COUNT, t, tw);
	rec_num_or_null(rec, "time_to_train_s", "time", c->time_s, UNIT_TIME,
			t, tg);
	rec_num_or_null(rec, "goodput", "goodput", c->goodput,
			UNIT_KIND_COUNT, t, tw | RF_PERCENT);
	rec_num_or_null(rec, "gpu_hours", "GPU-hours", c->gpu_hours,
			UNIT_COUNT, t, 0);
	rec_num_or_null(rec, "cost_usd", "cost", c->cost_usd, UNIT_MONEY, t,
			tg);
	rec_num_or_null(rec, "energy_kwh", "energy", c->energy_kwh,
			UNIT_ENERGY_KWH, t, 0);
	rec_num_or_null(rec, "facility_power_w", "power",
			c->facility_power_w, UNIT_POWER, t, tg);
	cli_rec_price(rec, &r->cluster, 0);
	rec_int_or_null(rec, "replicas", "replicas", r->replicas, i, iw);
	rec_int_or_null(rec, "gpus_inference", "serving gpus",
			r->gpus_inference, i, ig);
	rec_num_or_null(rec, "prefix_hit_rate", "prefix hits",
			r->prefix_hit_rate, UNIT_KIND_COUNT, r->has_hits,
			(hits ? ig | RF_WIDE : 0) | RF_PERCENT);
	if (per_sample)
		rec_num_or_null(rec, "cost_usd_per_million_samples", "$/Minf",
				r->cost_usd_per_million_tokens, UNIT_MONEY, i,
				ig);
	else
		rec_num_or_null(rec, "cost_usd_per_million_tokens", "$/Mtok",
				r->cost_usd_per_million_tokens, UNIT_MONEY, i,
				ig);
	rec_num_or_null(rec, "cost_usd_per_month", "serving/month",
			r->cost_usd_per_month, UNIT_MONEY, i, iw);
	rec_num_or_null(rec, "total_cost_usd", "total",
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

/* ---------------------------------------------------------------------
 * size --mixed: the cheapest fleet of several devices for a serving load
 * (mix_plan.h), beside today's single-device rows
 */

struct mix_job {
	struct mix_plan *m;
	struct progress *pr;
	int fail;          /* first failed unit + 1; 0: none */
	struct diag err;   /* its error */
	pthread_mutex_t lock;
};

static void mix_fail(struct mix_job *j, int i, const struct diag *e)
{
	pthread_mutex_lock(&j->lock);
	if (!j->fail || i + 1 < j->fail) {
		j->fail = i + 1;
		j->err = *e;
	}
	pthread_mutex_unlock(&j->lock);
}

static void mix_measure_one(int i, void *arg)
{
	struct mix_job *j = arg;
	struct diag e;

	diag_clear(&e);
	if (mix_plan_measure(j->m, i, &e) != 0)
		mix_fail(j, i, &e);
	progress_add(j->pr, 1);
}

static void mix_simulate_one(int i, void *arg)
{
	struct mix_job *j = arg;
	struct diag e;

	diag_clear(&e);
	if (mix_plan_simulate(j->m, i, &e) != 0)
		mix_fail(j, i, &e);
	progress_add(j->pr, 1);
}

/* The fleet the command answers with: the mix, or the cheapest single
   device's fleet where the mix is no cheaper (or misses the targets). */
struct mix_answer {
	const struct mix_result *mix;
	const struct size_row *single; /* the cheapest feasible row; NULL:
					  none */
	bool fallback;                 /* the answer is 'single' */
	double cost_per_h;
	bool meets;
};

static int single_tp(const struct size_row *r)
{
	return r->replicas > 0 ? r->gpus_inference / r->replicas : 1;
}

/* The fleet's summary above its devices (its fields are the JSON object
   "fleet"). */
static void mix_add_meta(struct record *rec, const struct mix_answer *a,
			 const struct workload *wl)
{
	const struct size_row *s = a->single;
	double month = a->cost_per_h * ENERGY_HOURS_PER_MONTH;
	bool beats = s && !a->fallback && a->meets;
	double single_month = s ? s->cost_usd_per_month : 0.0;
	int gpus = 0, replicas = 0;

	if (a->fallback) {
		gpus = s->gpus_inference;
		replicas = s->replicas;
	} else {
		gpus = a->mix->gpus;
		replicas = a->mix->replicas;
	}
	rec_num(rec, NULL, "cost_usd_per_month", "cost per month", month,
		UNIT_MONEY, 0);
	rec_num(rec, NULL, "cost_usd_per_hour", "cost per hour", a->cost_per_h,
		UNIT_MONEY, 0);
	rec_bool(rec, NULL, "meets_slo", "meets the SLO", a->meets, 0);
	rec_int(rec, NULL, "replicas", "replicas", replicas, 0);
	rec_int(rec, NULL, "gpus", "GPUs", gpus, 0);
	rec_str(rec, NULL, "percentile", "percentile",
		slo_percentile_name(wl->inference.percentile), RF_MACHINE);
	rec_bool(rec, NULL, "mixed", "mixed", !a->fallback &&
		 a->mix->npools > 1, RF_MACHINE);
	if (s) {
		rec_str(rec, NULL, "single_gpu", "cheapest single device",
			s->gpu->name, 0);
		rec_num(rec, NULL, "single_cost_usd_per_month",
			"its cost per month", single_month, UNIT_MONEY, 0);
	} else {
		rec_null(rec, NULL, "single_gpu", "cheapest single device", 0);
		rec_null(rec, NULL, "single_cost_usd_per_month",
			 "its cost per month", 0);
	}
	if (beats && single_month > 0.0)
		rec_num(rec, NULL, "saving_fraction", "saving",
			1.0 - month / single_month, UNIT_KIND_COUNT,
			RF_PERCENT);
	else
		rec_null(rec, NULL, "saving_fraction", "saving", 0);
	rec_num_or_null(rec, "mix_cost_usd_per_month",
			"the best mix's cost per month",
			a->mix->cost_per_h * ENERGY_HOURS_PER_MONTH, UNIT_MONEY,
			a->mix->npools > 0, RF_MACHINE);
	rec_bool(rec, NULL, "mix_meets_slo", "the best mix meets the SLO",
		 a->mix->npools > 0 && a->mix->meets, RF_MACHINE);
	/* the program's own fleet, before its simulation (none when it
	   found no mix) */
	if (a->mix->npools > 0) {
		rec_num(rec, NULL, "ip_cost_usd_per_hour",
			"integer program's cost per hour",
			a->mix->ip_cost_per_h, UNIT_MONEY, RF_MACHINE);
		rec_bool(rec, NULL, "ip_optimal", "proven cheapest",
			 a->mix->optimal, RF_MACHINE);
	} else {
		rec_null(rec, NULL, "ip_cost_usd_per_hour",
			 "integer program's cost per hour", RF_MACHINE);
		rec_null(rec, NULL, "ip_optimal", "proven cheapest",
			 RF_MACHINE);
	}
	rec_str(rec, NULL, "why", "why not",
		a->meets ? "" : a->mix->why, a->meets ? RF_MACHINE : 0);
}

static void rec_sim(struct record *rec, const char *key, const char *label,
		    double v, bool known, int flags)
{
	if (known)
		rec_num(rec, NULL, key, label, v, UNIT_TIME, flags);
	else
		rec_null(rec, NULL, key, label, flags);
}

/* Table labels of the latency at each percentile (enum slo_percentile). */
static const char *const ttft_label[] = { "TTFT p50", "TTFT p90",
					  "TTFT p99" };
static const char *const tpot_label[] = { "TPOT p50", "TPOT p90",
					  "TPOT p99" };

/* One device of the fleet (a record of "devices"). */
static void mix_add_pool(struct record *rec, const struct mix_pool *pl,
			 const struct workload *wl)
{
	enum slo_percentile pc = wl->inference.percentile;
	const struct sim_result *r = &pl->sim;
	bool k = pl->simulated;
	int g = RF_GRID, at = (unsigned)pc <= SLO_P99 ? (int)pc : SLO_P99;

	rec_str(rec, NULL, "gpu", "gpu", pl->gpu->name, g);
	rec_int(rec, NULL, "replicas", "replicas", pl->replicas, g);
	rec_int(rec, NULL, "tp", "tp", pl->tp, g);
	rec_str(rec, NULL, "role", "role", "both", g);
	rec_int(rec, NULL, "gpus", "GPUs", pl->replicas * pl->gpus_per_replica,
		g);
	rec_num(rec, NULL, "cost_usd_per_month", "$/month",
		pl->replicas * pl->price_per_h * ENERGY_HOURS_PER_MONTH,
		UNIT_MONEY, g);
	rec_num(rec, NULL, "requests_per_s", "req/s", pl->rate_per_s,
		UNIT_KIND_COUNT, g);
	rec_num(rec, NULL, "prompt_tokens_mean", "prompt", pl->prompt_mean,
		UNIT_KIND_COUNT, g | RF_WIDE);
	rec_num(rec, NULL, "output_tokens_mean", "output", pl->output_mean,
		UNIT_KIND_COUNT, g | RF_WIDE);
	rec_int(rec, NULL, "buckets", "buckets", pl->buckets, RF_MACHINE);
	rec_num(rec, NULL, "capacity_qps", "capacity/replica",
		pl->capacity_qps, UNIT_KIND_COUNT, RF_MACHINE);
	rec_int(rec, NULL, "ip_replicas", "IP replicas", pl->ip_replicas,
		RF_MACHINE);
	rec_int(rec, NULL, "simulated_requests", "simulated requests",
		(long long)pl->requests, RF_MACHINE);
	rec_sim(rec, "ttft_p50_s", "TTFT p50", r->ttft_p50_s, k, RF_MACHINE);
	rec_sim(rec, "ttft_p90_s", "TTFT p90", r->ttft_p90_s, k, RF_MACHINE);
	rec_sim(rec, "ttft_p99_s", "TTFT p99", r->ttft_p99_s, k, RF_MACHINE);
	rec_sim(rec, "tpot_p50_s", "TPOT p50", r->tpot_p50_s, k, RF_MACHINE);
	rec_sim(rec, "tpot_p90_s", "TPOT p90", r->tpot_p90_s, k, RF_MACHINE);
	rec_sim(rec, "tpot_p99_s", "TPOT p99", r->tpot_p99_s, k, RF_MACHINE);
	rec_sim(rec, "ttft_s", ttft_label[at], serve_ttft_at(r, pc), k,
		g | RF_TABLE);
	rec_sim(rec, "tpot_s", tpot_label[at], serve_tpot_at(r, pc), k,
		g | RF_TABLE);
	rec_bool(rec, NULL, "meets_slo", "meets", pl->meets, g);
	rec_str(rec, NULL, "why", "why not", pl->meets ? "" : pl->why,
		g | RF_REASON);
}

/* The roles of a device entry. */
enum mix_role { ROLE_BOTH, ROLE_PREFILL, ROLE_DECODE };

static const char *const role_name[] = { "both", "prefill", "decode" };

/* The single-device fleet the answer falls back on, one entry per role
   (a disaggregated row: its prefill and decode pools): the keys of a
   pool, the simulation the row's (of the whole load, both pools), null
   where the row does not know them. */
static void mix_add_single(struct record *rec, const struct size_row *s,
			   enum mix_role role, struct mix_plan *m,
			   const struct workload *wl)
{
	enum slo_percentile pc = wl->inference.percentile;
	int g = RF_GRID, at = (unsigned)pc <= SLO_P99 ? (int)pc : SLO_P99;
	const struct sim_result *r = &s->sim;
	bool k = s->simulated;
	double price = s->cluster.price_usd_per_gpu_hour;
	double prompt = 0.0, output = 0.0;
	int nb = mix_plan_bucket_count(m);
	int replicas = role == ROLE_PREFILL ? s->prefill_replicas :
		       role == ROLE_DECODE  ? s->decode_replicas :
					      s->replicas;
	int tp = role == ROLE_PREFILL ? s->prefill_tp :
		 role == ROLE_DECODE  ? s->decode_tp :
					single_tp(s);
	int gpus = role == ROLE_BOTH ? s->gpus_inference :
		   replicas * tp * (s->gpus_inference /
				    (s->prefill_replicas * s->prefill_tp +
				     s->decode_replicas * s->decode_tp));

	for (int b = 0; b < nb; b++) {
		prompt += mix_plan_bucket(m, b)->share *
			  mix_plan_bucket(m, b)->prompt_mean;
		output += mix_plan_bucket(m, b)->share *
			  mix_plan_bucket(m, b)->output_mean;
	}
	rec_str(rec, NULL, "gpu", "gpu", s->gpu->name, g);
	rec_int(rec, NULL, "replicas", "replicas", replicas, g);
	rec_int(rec, NULL, "tp", "tp", tp, g);
	rec_str(rec, NULL, "role", "role", role_name[role], g);
	rec_int(rec, NULL, "gpus", "GPUs", gpus, g);
	rec_num(rec, NULL, "cost_usd_per_month", "$/month",
		role == ROLE_BOTH ? s->cost_usd_per_month :
				    gpus * price * ENERGY_HOURS_PER_MONTH,
		UNIT_MONEY, g);
	rec_num(rec, NULL, "requests_per_s", "req/s", mix_plan_rate(m),
		UNIT_KIND_COUNT, g);
	rec_num(rec, NULL, "prompt_tokens_mean", "prompt", prompt,
		UNIT_KIND_COUNT, g | RF_WIDE);
	rec_num(rec, NULL, "output_tokens_mean", "output", output,
		UNIT_KIND_COUNT, g | RF_WIDE);
	rec_int(rec, NULL, "buckets", "buckets", nb, RF_MACHINE);
	rec_null(rec, NULL, "capacity_qps", "capacity/replica", RF_MACHINE);
	rec_null(rec, NULL, "ip_replicas", "IP replicas", RF_MACHINE);
	rec_int_or_null(rec, "simulated_requests", "simulated requests",
			s->sim.simulated_requests, k, RF_MACHINE);
	rec_sim(rec, "ttft_p50_s", "TTFT p50", r->ttft_p50_s, k, RF_MACHINE);
	rec_sim(rec, "ttft_p90_s", "TTFT p90", r->ttft_p90_s, k, RF_MACHINE);
	rec_sim(rec, "ttft_p99_s", "TTFT p99", r->ttft_p99_s, k, RF_MACHINE);
	rec_sim(rec, "tpot_p50_s", "TPOT p50", r->tpot_p50_s, k, RF_MACHINE);
	rec_sim(rec, "tpot_p90_s", "TPOT p90", r->tpot_p90_s, k, RF_MACHINE);
	rec_sim(rec, "tpot_p99_s", "TPOT p99", r->tpot_p99_s, k, RF_MACHINE);
	rec_sim(rec, "ttft_s", ttft_label[at], serve_ttft_at(r, pc), k,
		g | RF_TABLE);
	rec_sim(rec, "tpot_s", tpot_label[at], serve_tpot_at(r, pc), k,
		g | RF_TABLE);
	rec_bool(rec, NULL, "meets_slo", "meets", true, g);
	rec_str(rec, NULL, "why", "why not", "", g | RF_REASON);
}

/* "H20 tp1 3/4, L40S tp1 1/4": where a bucket's slices go. */
static void bucket_routes(struct mix_plan *m, const struct mix_result *r,
			  int b, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int i = 0; i < r->npools && len < size; i++) {
		int y = mix_plan_slices(m, b, i);

		if (y <= 0)
			continue;
		len += (size_t)snprintf(buf + len, size - len, "%s%s tp%d",
					len ? ", " : "", r->pools[i].gpu->name,
					r->pools[i].tp);
		if (y < MIX_SLICES && len < size)
			len += (size_t)snprintf(buf + len, size - len,
						" %d/%d", y, MIX_SLICES);
	}
}

/* One bucket of requests (a record of "buckets"), served by the fleet
   of 'a'. */
static void mix_add_bucket(struct record *rec, struct mix_plan *m,
			   const struct mix_answer *a, int b)
{
	const struct mix_result *r = a->mix;
	const struct mix_bucket *bk = mix_plan_bucket(m, b);
	int plo, phi, olo, ohi, g = RF_GRID;
	char routes[REPORT_STR_MAX];

	mix_bucket_range(bk->id, &plo, &phi, &olo, &ohi);
	rec_int(rec, NULL, "prompt_tokens_min", "prompt from", plo, g);
	rec_int_or_null(rec, "prompt_tokens_max", "to", phi - 1, phi > 0, g);
	rec_int(rec, NULL, "output_tokens_min", "output from", olo, g);
	rec_int_or_null(rec, "output_tokens_max", "to", ohi - 1, ohi > 0, g);
	rec_num(rec, NULL, "share", "share", bk->share, UNIT_KIND_COUNT,
		g | RF_PERCENT);
	rec_num(rec, NULL, "requests_per_s", "req/s", bk->rate_per_s,
		UNIT_KIND_COUNT, g);
	rec_num(rec, NULL, "prompt_tokens_mean", "mean prompt",
		bk->prompt_mean, UNIT_KIND_COUNT, g | RF_WIDE);
	rec_num(rec, NULL, "output_tokens_mean", "mean output",
		bk->output_mean, UNIT_KIND_COUNT, g | RF_WIDE);
	if (a->fallback && a->single->disagg)
		snprintf(routes, sizeof(routes), "%s tp%d prefill, tp%d decode",
			 a->single->gpu->name, a->single->prefill_tp,
			 a->single->decode_tp);
	else if (a->fallback)
		snprintf(routes, sizeof(routes), "%s tp%d",
			 a->single->gpu->name, single_tp(a->single));
	else
		bucket_routes(m, r, b, routes, sizeof(routes));
	rec_str(rec, NULL, "served_by", "served by", routes, g);
}

/* The three parts of the answer, written in one format. */
struct mix_out {
	const struct report *fleet, *buckets, *single;
	enum report_format format;
	bool wide;
};

static int mix_write(FILE *out, const void *arg, const char **why)
{
	const struct mix_out *o = arg;
	int width = report_table_width(out);

	if (o->format == FORMAT_CSV)
		/* the fleet's devices; the single rows are size's own CSV */
		return report_write_width(out, o->fleet, o->format, o->wide,
					  width, why);
	if (o->format == FORMAT_JSON) {
		cJSON *doc = cJSON_CreateObject();
		cJSON *f = report_json(o->fleet, why);
		cJSON *s = f ? report_json(o->single, why) : NULL;
		cJSON *b = s ? report_json(o->buckets, why) : NULL;

		if (!doc || !f || !s || !b) {
			cJSON_Delete(doc);
			cJSON_Delete(f);
			cJSON_Delete(s);
			cJSON_Delete(b);
			if (!*why)
				*why = "out of memory";
			return -1;
		}
		cJSON_AddItemToObject(doc, "fleet", f);
		cJSON_AddItemToObject(doc, "single", s);
		cJSON_AddItemToObject(doc, "buckets", b);
		return cli_json_print(out, doc, why);
	}
	if (report_write_width(out, o->fleet, o->format, o->wide, width,
			       why) != 0)
		return -1;
	fputc('\n', out);
	if (report_write_width(out, o->buckets, o->format, o->wide, width,
			       why) != 0)
		return -1;
	fputc('\n', out);
	return report_write_width(out, o->single, o->format, o->wide, width,
				  why);
}

/* The mix, or the cheapest single device where the mix is no cheaper or
   misses the targets. */
static struct mix_answer mix_choose(const struct mix_result *mix,
				    const struct size_row *rows, int n)
{
	struct mix_answer a = { mix, NULL, false, mix->cost_per_h,
				mix->meets };

	for (int i = 0; i < n; i++)
		if (rows[i].feasible && rows[i].has_infer &&
		    (!a.single || rows[i].cost_usd_per_month <
					  a.single->cost_usd_per_month))
			a.single = &rows[i];
	if (a.single && (!mix->meets ||
			 a.single->cost_usd_per_month <=
				 mix->cost_per_h * ENERGY_HOURS_PER_MONTH)) {
		a.fallback = true;
		a.meets = true;
		a.cost_per_h = a.single->cost_usd_per_month /
			       ENERGY_HOURS_PER_MONTH;
	}
	return a;
}

static void mix_notes(struct report *rep, const struct mix_answer *a,
		      const struct workload *wl, int nbuckets)
{
	const struct size_row *s = a->single;
	char money[32];

	if (a->fallback && a->mix->meets &&
	    a->mix->cost_per_h * ENERGY_HOURS_PER_MONTH <=
		    s->cost_usd_per_month * (1.0 + 1e-12)) {
		report_note(rep, "one device is cheapest: %s, %d replica%s (no "
				 "mix of the devices costs less)",
			    s->gpu->name, s->replicas,
			    s->replicas == 1 ? "" : "s");
	} else if (a->fallback && a->mix->meets) {
		units_format(money, sizeof(money),
			     a->mix->cost_per_h * ENERGY_HOURS_PER_MONTH,
			     UNIT_MONEY, 3);
		report_note(rep, "no mix is cheaper than the cheapest "
				 "single-device fleet, %s (%d replica%s): the "
				 "best mix found costs %s a month",
			    s->gpu->name, s->replicas,
			    s->replicas == 1 ? "" : "s", money);
	} else if (a->fallback) {
		report_note(rep, "no mix meets the targets: the answer is "
				 "the cheapest single-device fleet, %s "
				 "(%.320s)",
			    s->gpu->name, a->mix->why);
	} else if (s && a->meets) {
		units_format(money, sizeof(money),
			     (s->cost_usd_per_month -
			      a->cost_per_h * ENERGY_HOURS_PER_MONTH),
			     UNIT_MONEY, 3);
		report_note(rep, "the mix beats the cheapest single-device "
				 "fleet, %s (%d replica%s), by %s a month",
			    s->gpu->name, s->replicas,
			    s->replicas == 1 ? "" : "s", money);
	} else if (!s) {
		report_note(rep, "no single device serves the whole load "
				 "within the SLO");
	}
	report_note(rep, "requests in %d bucket%s of prompt and output "
			 "length, each cut in %d slices routed to devices "
			 "(Melange); each device's replicas simulated under "
			 "the requests routed to them (specs/models.md "
			 "10.9.22)",
		    nbuckets, nbuckets == 1 ? "" : "s", MIX_SLICES);
	if (wl->inference.disaggregated)
		report_note(rep, "the mix is planned colocated (role 'both'): "
				 "prefill and decode pools per device are not "
				 "planned yet; the single rows are "
				 "disaggregated");
	if (!a->fallback && !a->mix->optimal)
		report_note(rep, "the integer program stopped at its time "
				 "limit: a cheaper mix may exist");
}

/* Usage errors of --mixed: options that do not apply, a workload that
   does not serve a load. */
static int mix_check(struct cli_ctx *ctx, const struct size_limits *lim)
{
	const struct workload *wl = &ctx->wl;

	if (ctx->deadline_arg || ctx->budget_arg || ctx->power_cap_arg)
		return cli_usage("size", "--mixed sizes a serving fleet: "
				 "--deadline, --budget and --power-cap do "
				 "not apply to it");
	if (ctx->plot_dir)
		return cli_usage("size", "--plot does not apply with --mixed");
	(void)lim;
	if (wl->model.kind != MODEL_TRANSFORMER ||
	    !model_has_arch(&wl->model))
		return cli_usage("size", "--mixed plans the serving of a "
				 "transformer with its architecture ([model] "
				 "layers, hidden, heads, vocab, seq_len)");
	if (wl->training.tokens > 0.0)
		return cli_usage("size", "--mixed sizes serving only, and the "
				 "workload trains ('training.tokens'): size "
				 "it without --mixed");
	if (serve_arrival(&wl->inference) != SIM_ARRIVAL_POISSON &&
	    serve_arrival(&wl->inference) != SIM_ARRIVAL_TRACE)
		return cli_usage("size", "--mixed needs a serving load with a "
				 "rate: give 'inference.qps' or "
				 "'inference.trace'%s",
				 serve_has_load(&wl->inference) ?
					 " (a closed loop or a burst has no "
					 "rate to share among devices)" :
					 "");
	if (wl->inference.turns > 1)
		return cli_usage("size", "--mixed routes single requests by "
				 "length; sessions ('inference.turns' %d) "
				 "are not planned yet", wl->inference.turns);
	if (ctx->ngpus < 2)
		return cli_usage("size", "--mixed needs at least two devices "
				 "in --gpu, got %d", ctx->ngpus);
	return EXIT_OK;
}

static int size_mixed(struct cli_ctx *ctx, const struct size_limits *lim)
{
	struct report fleet, buckets, single;
	struct mix_job job;
	struct mix_answer ans;
	struct mix_plan *m = NULL;
	const struct mix_result *res;
	struct size_row *rows;
	struct progress pr;
	struct mix_result none;
	struct diag err;
	bool nomix = false;
	int rc, fixed;

	rc = mix_check(ctx, lim);
	if (rc != EXIT_OK)
		return rc;
	memset(&none, 0, sizeof(none));
	/* every fleet is sized: a fixed one is no answer to "how many" */
	fixed = ctx->wl.inference.replicas;
	ctx->wl.inference.replicas = WL_AUTO;
	rows = calloc((size_t)ctx->ngpus, sizeof(*rows));
	if (!rows) {
		fprintf(stderr, "capplan: error: out of memory\n");
		return EXIT_INTERNAL;
	}
	diag_clear(&err);
	progress_init(&pr, "size");
	/* today's rows: each device's own fleet for the whole load */
	for (int i = 0; i < ctx->ngpus; i++) {
		rows[i].gpu = ctx->gpus[i];
		rows[i].order = i;
		rows[i].feasible = true;
		(void)cluster_resolve(&ctx->wl.cluster, rows[i].gpu,
				      &rows[i].cluster, NULL);
	}
	{
		struct infer_job ij = { &ctx->wl, rows, &pr,
					progress_hook_of(&pr) };

		progress_update(&pr, 0, (size_t)ctx->ngpus, "devices served");
		cli_parallel_for(ctx->ngpus, infer_one, &ij);
	}
	for (int i = 0; i < ctx->ngpus; i++) {
		rows[i].total_cost_usd = row_total(&rows[i], lim->serve_s);
		rows[i].rank = rank_key(&rows[i], lim, false);
	}
	qsort(rows, (size_t)ctx->ngpus, sizeof(*rows), row_cmp);

	/* the mix */
	rc = EXIT_OK;
	if (mix_plan_new(&ctx->wl, ctx->gpus, ctx->ngpus, &m, &err) != 0) {
		/* a load the mix does not plan */
		progress_end(&pr);
		diag_print(stderr, &err);
		free(rows);
		return err.kind == DIAG_NOMEM ? EXIT_INTERNAL : EXIT_USAGE;
	}
	memset(&job, 0, sizeof(job));
	job.m = m;
	job.pr = &pr;
	pthread_mutex_init(&job.lock, NULL);
	progress_update(&pr, 0, (size_t)mix_plan_measure_count(m),
			"buckets measured");
	cli_parallel_for(mix_plan_measure_count(m), mix_measure_one, &job);
	if (!job.fail && mix_plan_solve(m, &job.err) != 0) {
		/* no mix (a bucket no device serves): a single device may
		   still serve every request at a tp the program left */
		if (job.err.kind == DIAG_NOMEM)
			job.fail = -1;
		nomix = true;
		none.meets = false;
		snprintf(none.why, sizeof(none.why), "%.300s", job.err.msg);
	}
	if (!job.fail && !nomix) {
		progress_update(&pr, 0, (size_t)mix_plan_pool_count(m),
				"devices simulated");
		cli_parallel_for(mix_plan_pool_count(m), mix_simulate_one,
				 &job);
	}
	pthread_mutex_destroy(&job.lock);
	if (job.fail) {
		err = job.err;
		goto out_err;
	}
	progress_end(&pr);
	res = nomix ? &none : mix_plan_result(m);
	ans = mix_choose(res, rows, ctx->ngpus);
	if (nomix && !ans.fallback) {
		cli_error("%s", none.why);
		mix_plan_free(m);
		free(rows);
		return EXIT_INFEASIBLE;
	}

	report_init(&fleet, true);
	report_init(&buckets, true);
	report_init(&single, true);
	snprintf(fleet.title, sizeof(fleet.title), "Mixed fleet: %s",
		 ctx->wl.model.name[0] ? ctx->wl.model.name : "model");
	snprintf(buckets.title, sizeof(buckets.title),
		 "Requests by length and where they go");
	snprintf(single.title, sizeof(single.title),
		 "Single-device fleets");
	fleet.list_key = "devices";
	fleet.notes_key = "notes";
	mix_add_meta(&fleet.meta, &ans, &ctx->wl);
	if (ans.fallback) {
		enum mix_role first = ans.single->disagg ? ROLE_PREFILL :
							   ROLE_BOTH;
		enum mix_role last = ans.single->disagg ? ROLE_DECODE :
							  ROLE_BOTH;

		for (int role = first; role <= (int)last; role++) {
			struct record *rec = report_add_record(&fleet);

			if (!rec)
				goto out_nomem;
			mix_add_single(rec, ans.single, (enum mix_role)role, m,
				       &ctx->wl);
		}
	} else {
		for (int i = 0; i < res->npools; i++) {
			struct record *rec = report_add_record(&fleet);

			if (!rec)
				goto out_nomem;
			mix_add_pool(rec, &res->pools[i], &ctx->wl);
		}
	}
	for (int b = 0; b < mix_plan_bucket_count(m); b++) {
		struct record *rec = report_add_record(&buckets);

		if (!rec)
			goto out_nomem;
		mix_add_bucket(rec, m, &ans, b);
	}
	for (int i = 0; i < ctx->ngpus; i++) {
		struct record *rec = report_add_record(&single);
		bool hits = false;

		for (int k = 0; k < ctx->ngpus; k++)
			hits = hits || rows[k].has_hits;
		if (!rec)
			goto out_nomem;
		add_row(rec, &rows[i], false, true, false, hits, ctx);
		cli_rec_stacks(rec, &ctx->wl, true, false, RF_MACHINE);
	}
	cli_note_stacks(&single, &ctx->wl, true, false);
	cli_note_profile(&single, ctx, NULL);
	mix_notes(&single, &ans, &ctx->wl, mix_plan_bucket_count(m));
	if (fixed != WL_AUTO)
		report_note(&single, "inference.replicas (%d) left open: "
				     "--mixed sizes every fleet", fixed);
	/* the JSON "fleet" holds the notes (a table has them at its end) */
	for (int k = 0; k < single.nnotes && ctx->format == FORMAT_JSON; k++)
		report_note(&fleet, "%s", single.notes[k]);
	{
		struct mix_out o = { &fleet, &buckets, &single, ctx->format,
				     ctx->wide };

		rc = cli_write(ctx, mix_write, &o);
	}
	if (rc == EXIT_OK && !ans.meets)
		rc = EXIT_INFEASIBLE;
	goto out_reports;
out_nomem:
	fprintf(stderr, "capplan: error: out of memory\n");
	rc = EXIT_INTERNAL;
out_reports:
	report_release(&single);
	report_release(&buckets);
	report_release(&fleet);
	mix_plan_free(m);
	free(rows);
	return rc;
out_err:
	progress_end(&pr);
	diag_print(stderr, &err);
	mix_plan_free(m);
	free(rows);
	return err.kind == DIAG_NOMEM ? EXIT_INTERNAL : EXIT_INFEASIBLE;
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

		progress_update(&pr, (size_t)i, (size_t)ctx->ngpus,
				train ? "devices trained" : "devices");
		progress_phase(&pr, 0, 0, ctx->gpus[i]->name);
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
		if (train)
			size_train(&ctx->wl, r->gpu, &lim, r);
	}
	if (infer) {
		/* serving is simulated: one device per thread */
		struct infer_job job = { &ctx->wl, rows, &pr,
					 progress_hook_of(&pr) };

		progress_update(&pr, 0, (size_t)ctx->ngpus, "devices served");
		cli_parallel_for(ctx->ngpus, infer_one, &job);
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
		rows[i].total_cost_usd = row_total(&rows[i], lim.serve_s);
		rows[i].rank = rank_key(&rows[i], &lim, train);
	}
	progress_end(&pr);
	qsort(rows, (size_t)ctx->ngpus, sizeof(*rows), row_cmp);

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
		add_row(rec, &rows[i], train, infer, per_sample, hits, ctx);
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
