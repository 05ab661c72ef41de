/* cmd_compare.c - 'capplan compare': devices side by side for training
   and serving one workload, sorted, with a recommendation. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "progress.h"
#include "interval.h"
#include "infer_plan.h"
#include "plan.h"

/* One device's answers. */
struct compare_row {
	const struct gpu_spec *gpu;
	double sort_value;       /* the --sort key of this row */
	int order;               /* position in the --gpu list: ties keep it */
	int train_rc;            /* train_plan_make status */
	struct train_plan train;
	char train_why[DIAG_MSG_MAX];
	int infer_rc;            /* infer_plan_make status */
	struct infer_plan infer;
	char infer_why[DIAG_MSG_MAX];
	bool per_sample;         /* kind generic or recsys: 'serve' holds
				    the serving plan, 'infer' is unused */
	int serve_rc;            /* sample_serve_plan_make status */
	struct sample_serve_plan serve;
};

struct compare_job {
	const struct workload *wl;
	struct compare_row *rows;
};

static void infer_one(int i, void *arg)
{
	struct compare_job *j = arg;
	struct compare_row *r = &j->rows[i];
	struct diag err;

	diag_clear(&err);
	r->infer_rc = infer_plan_make(j->wl, r->gpu, &r->infer, &err);
	snprintf(r->infer_why, sizeof(r->infer_why), "%s",
		 r->infer_rc ? err.msg : r->infer.why);
}

static bool train_ok(const struct compare_row *r)
{
	return r->train_rc == 0 && r->train.fits;
}

static bool infer_ok(const struct compare_row *r)
{
	if (r->per_sample)
		return r->serve_rc == 0 && r->serve.result.fits &&
		       r->serve.meets_slo;
	return r->infer_rc == 0 && r->infer.fits && r->infer.meets_slo;
}

/* The samples a per-sample plan trains on (training.samples x epochs). */
static double samples_of(const struct compare_row *r)
{
	return r->train.tokens > 0.0 ? r->train.tokens : (double)NAN;
}

/* Sort keys: smaller is better; feasible rows before infeasible ones. */
static double key_time(const struct compare_row *r)
{
	return train_ok(r) && r->train.has_arch ? r->train.run.time_s :
						  HUGE_VAL;
}

static double key_cost(const struct compare_row *r)
{
	return train_ok(r) && r->train.has_arch ? r->train.run.cost_usd :
						  HUGE_VAL;
}

static double key_energy(const struct compare_row *r)
{
	return train_ok(r) && r->train.has_arch ? r->train.run.energy_kwh :
						  HUGE_VAL;
}

/* Serving keys: per token for a transformer, per sample (at the
   [inference] batch) for a per-sample model. */
static double key_latency(const struct compare_row *r)
{
	if (!infer_ok(r))
		return HUGE_VAL;
	return r->per_sample ? r->serve.result.latency_s :
			       r->infer.result.tpot_s;
}

static double key_token_cost(const struct compare_row *r)
{
	return infer_ok(r) && !r->per_sample ?
		       r->infer.cost_usd_per_million_tokens :
		       HUGE_VAL;
}

/* Serving samples/s per GPU of a per-sample plan. */
static double serve_rate_per_gpu(const struct compare_row *r)
{
	return r->serve.result.throughput_per_s /
	       (r->serve.tp > 0 ? r->serve.tp : 1);
}

static double key_throughput(const struct compare_row *r)
{
	if (!infer_ok(r))
		return HUGE_VAL;
	return r->per_sample ?
		       -serve_rate_per_gpu(r) :
		       -r->infer.result.throughput_tokens_per_s_per_gpu;
}

static double key_joules(const struct compare_row *r)
{
	return infer_ok(r) && !r->per_sample ?
		       r->infer.result.energy_j_per_token :
		       HUGE_VAL;
}

static double key_sample_cost(const struct compare_row *r)
{
	return infer_ok(r) && r->per_sample ?
		       r->serve.cost_usd_per_million_samples :
		       HUGE_VAL;
}

static double key_sample_joules(const struct compare_row *r)
{
	return infer_ok(r) && r->per_sample ? r->serve.energy_j_per_sample :
					      HUGE_VAL;
}

/* Which workloads a sort key ranks. */
enum sort_scope { SORT_BOTH, SORT_TOKENS, SORT_SAMPLES };

static const struct {
	const char *name;
	double (*key)(const struct compare_row *r);
	const char *what;         /* for a transformer */
	const char *what_sample;  /* for a per-sample model */
	enum sort_scope scope;
} sort_keys[] = {
	{ "time", key_time, "time to train", "time to train", SORT_BOTH },
	{ "cost", key_cost, "training cost", "training cost", SORT_BOTH },
	{ "energy", key_energy, "training energy", "training energy",
	  SORT_BOTH },
	{ "latency", key_latency, "time per output token",
	  "batch latency", SORT_BOTH },
	{ "token-cost", key_token_cost, "cost per million tokens", NULL,
	  SORT_TOKENS },
	{ "throughput", key_throughput, "output tokens/s per GPU",
	  "served samples/s per GPU", SORT_BOTH },
	{ "token-energy", key_joules, "energy per token", NULL,
	  SORT_TOKENS },
	{ "sample-cost", key_sample_cost, NULL,
	  "cost per million inferences", SORT_SAMPLES },
	{ "sample-energy", key_sample_joules, NULL,
	  "energy per inference", SORT_SAMPLES },
};

static int by_key(const void *x, const void *y)
{
	double a = ((const struct compare_row *)x)->sort_value;
	double b = ((const struct compare_row *)y)->sort_value;

	if (a != b)
		return a < b ? -1 : 1;
	return ((const struct compare_row *)x)->order -
	       ((const struct compare_row *)y)->order;
}

/* The training status of a row, for the table. */
static const char *train_status(const struct compare_row *r, bool trained)
{
	return r->train_rc != 0 ? "no plan" :
	       !r->train.fits	? "memory" :
	       !trained || !isfinite(r->train.run.time_s) ? "no end" :
							    "ok";
}

/* A transformer's row: training, and serving per token. */
static void add_row(struct record *rec, const struct compare_row *r)
{
	const struct train_plan *t = &r->train;
	const struct infer_plan *p = &r->infer;
	/* times and costs only for a plan that fits */
	bool trained = r->train_rc == 0 && t->has_arch && t->fits;

	rec_str(rec, NULL, "gpu", "gpu", r->gpu->name, RF_GRID);
	/* training; the table's status says why a row is infeasible */
	rec_str(rec, NULL, "train_status", "train", train_status(r, trained),
		RF_GRID | RF_TABLE);
	if (r->train_rc == 0) {
		char split[48], layout[96];

		rec_bool(rec, "training", "fits", "fits", t->fits, 0);
		rec_int(rec, "training", "gpus", "gpus", t->config.gpus,
			RF_GRID);
		snprintf(split, sizeof(split), "%d/%d/%d", t->config.tp,
			 t->config.pp, t->config.dp);
		rec_str(rec, "training", "config", "tp/pp/dp", split, 0);
		/* the table shows cp and ep where they are used */
		snprintf(layout, sizeof(layout), "%s%s%.0d%s%.0d", split,
			 t->config.cp > 1 ? " cp" : "",
			 t->config.cp > 1 ? t->config.cp : 0,
			 t->config.ep > 1 ? " ep" : "",
			 t->config.ep > 1 ? t->config.ep : 0);
		rec_str(rec, NULL, "layout", "tp/pp/dp", layout,
			RF_GRID | RF_TABLE);
		if (t->has_arch)
			rec_int(rec, "training", "global_batch", "gb",
				t->config.global_batch, RF_GRID | RF_WIDE);
		else
			rec_null(rec, "training", "global_batch", "gb",
				 RF_GRID | RF_WIDE);
	} else {
		rec_bool(rec, "training", "fits", "fits", false, 0);
		rec_null(rec, "training", "gpus", "gpus", RF_GRID);
		rec_null(rec, "training", "config", "tp/pp/dp", 0);
		rec_null(rec, NULL, "layout", "tp/pp/dp", RF_GRID | RF_TABLE);
		rec_null(rec, "training", "global_batch", "gb",
			 RF_GRID | RF_WIDE);
	}
	if (trained) {
		/* a job whose failures outpace its progress has no end */
		rec_num_finite(rec, "training", "time_to_train_s",
			       "time", t->run.time_s, UNIT_TIME,
			       RF_GRID);
		rec_num(rec, "training", "goodput", "goodput",
			t->goodput.goodput, UNIT_KIND_COUNT,
			RF_GRID | RF_PERCENT | RF_WIDE);
		rec_num_finite(rec, "training", "gpu_hours", "GPU-h",
			       t->run.gpu_hours, UNIT_COUNT, 0);
		rec_num_finite(rec, "training", "cost_usd", "cost",
			       t->run.cost_usd, UNIT_MONEY, RF_GRID);
		rec_num_finite(rec, "training", "energy_kwh", "kWh",
			       t->run.energy_kwh, UNIT_COUNT,
			       RF_GRID | RF_WIDE);
		rec_num(rec, "training", "mfu", "MFU", t->result.mfu,
			UNIT_KIND_COUNT, RF_PERCENT);
	} else {
		rec_null(rec, "training", "time_to_train_s", "time",
			 RF_GRID);
		rec_null(rec, "training", "goodput", "goodput",
			 RF_GRID | RF_WIDE);
		rec_null(rec, "training", "gpu_hours", "GPU-h", 0);
		rec_null(rec, "training", "cost_usd", "cost", RF_GRID);
		rec_null(rec, "training", "energy_kwh", "kWh",
			 RF_GRID | RF_WIDE);
		rec_null(rec, "training", "mfu", "MFU", 0);
	}
	/* the price both use (train_plan_make resolves it first) */
	cli_rec_price(rec, &r->train.cluster, 0);
	{
		bool served = r->infer_rc == 0;
		double na = (double)NAN;
		const int cls = INTERVAL_TRAINING;
		const struct cli_estimate est[] = {
			{ cls, "time_to_train_s", "time",
			  trained ? t->run.time_s : na, true, UNIT_TIME, 0 },
			{ cls, "cost_usd", "cost",
			  trained ? t->run.cost_usd : na, true, UNIT_MONEY,
			  0 },
			{ INTERVAL_TTFT, "ttft_s", "TTFT",
			  served ? p->result.ttft_s : na, true, UNIT_TIME, 0 },
			{ INTERVAL_TPOT, "tpot_s", "TPOT",
			  served ? p->result.tpot_s : na, true, UNIT_TIME, 0 },
			{ INTERVAL_TPOT, "throughput_tokens_per_s_per_gpu",
			  "tok/s/GPU",
			  served ? p->result.throughput_tokens_per_s_per_gpu :
				   na,
			  false, UNIT_COUNT, 0 },
		};

		cli_rec_interval_pairs(rec, r->gpu->name, est, 5, RF_MACHINE);
	}
	/* inference */
	rec_str(rec, NULL, "serve_status", "serve",
		r->infer_rc != 0 ? "no plan" :
		!p->fits	 ? "memory" :
		!p->meets_slo	 ? "SLO" :
				   "ok",
		RF_GRID | RF_TABLE);
	if (r->infer_rc == 0) {
		rec_bool(rec, "inference", "feasible", "serves",
			 infer_ok(r), 0);
		rec_int(rec, "inference", "tp", "inf tp", p->config.tp, 0);
		rec_int(rec, "inference", "batch", "batch", p->config.batch,
			RF_GRID | RF_WIDE);
		rec_int(rec, "inference", "max_batch", "max batch",
			p->max_batch, 0);
		rec_num(rec, "inference", "ttft_s", "TTFT", p->result.ttft_s,
			UNIT_TIME, RF_GRID | RF_WIDE);
		rec_num(rec, "inference", "tpot_s", "TPOT", p->result.tpot_s,
			UNIT_TIME, RF_GRID);
		rec_num(rec, "inference", "throughput_tokens_per_s_per_gpu",
			"tok/s/GPU", p->result.throughput_tokens_per_s_per_gpu,
			UNIT_COUNT, RF_GRID | RF_WIDE);
		rec_int(rec, "inference", "replicas", "replicas", p->replicas,
			0);
		rec_int(rec, "inference", "gpus_total", "inf GPUs",
			p->gpus_total, RF_GRID | RF_WIDE);
		rec_num(rec, "inference", "energy_j_per_token", "J/token",
			p->result.energy_j_per_token, UNIT_KIND_COUNT,
			RF_GRID | RF_WIDE);
		rec_num(rec, "inference", "cost_usd_per_million_tokens",
			"$/Mtok", p->cost_usd_per_million_tokens, UNIT_MONEY,
			RF_GRID);
	} else {
		static const char *const keys[] = {
			"tp", "batch", "max_batch", "ttft_s", "tpot_s",
			"throughput_tokens_per_s_per_gpu", "replicas",
			"gpus_total", "energy_j_per_token",
			"cost_usd_per_million_tokens",
		};
		static const char *const labels[] = {
			"inf tp", "batch", "max batch", "TTFT", "TPOT",
			"tok/s/GPU", "replicas", "inf GPUs", "J/token",
			"$/Mtok",
		};
		static const int grid[] = { 0,
					    RF_GRID | RF_WIDE,
					    0,
					    RF_GRID | RF_WIDE,
					    RF_GRID,
					    RF_GRID | RF_WIDE,
					    0,
					    RF_GRID | RF_WIDE,
					    RF_GRID | RF_WIDE,
					    RF_GRID };

		rec_bool(rec, "inference", "feasible", "serves", false, 0);
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			rec_null(rec, "inference", keys[i], labels[i],
				 grid[i]);
	}
	rec_str(rec, NULL, "why", "why not",
		!train_ok(r) ? r->train_why : (!infer_ok(r) ? r->infer_why : ""),
		0);
}

/*
 * A per-sample model's row (kind generic or recsys): training per sample
 * (samples/s per GPU, time, cost and energy per million samples) and
 * serving at the [inference] batch (latency of a batch, samples/s per
 * GPU, cost per million inferences).  specs/output.md, "capplan compare".
 */
static void add_sample_row(struct record *rec, const struct compare_row *r)
{
	const struct train_plan *t = &r->train;
	const struct sample_serve_plan *p = &r->serve;
	bool trained = r->train_rc == 0 && t->has_arch && t->fits &&
		       isfinite(t->run.time_s);
	double samples = samples_of(r), na = (double)NAN;
	/* per million samples trained */
	double per_m = trained && samples > 0.0 ? 1e6 / samples : na;

	rec_str(rec, NULL, "gpu", "gpu", r->gpu->name, RF_GRID);
	rec_str(rec, NULL, "train_status", "train", train_status(r, trained),
		RF_GRID | RF_TABLE);
	rec_bool(rec, "training", "fits", "fits", r->train_rc == 0 && t->fits,
		 0);
	if (r->train_rc == 0) {
		char split[48];

		snprintf(split, sizeof(split), "%d/%d/%d", t->config.tp,
			 t->config.pp, t->config.dp);
		rec_int(rec, "training", "gpus", "gpus", t->config.gpus,
			RF_GRID | RF_WIDE);
		rec_str(rec, "training", "config", "tp/pp/dp", split, 0);
		rec_int(rec, "training", "global_batch", "gb",
			t->config.global_batch, RF_GRID | RF_WIDE);
	} else {
		rec_null(rec, "training", "gpus", "gpus", RF_GRID | RF_WIDE);
		rec_null(rec, "training", "config", "tp/pp/dp", 0);
		rec_null(rec, "training", "global_batch", "gb",
			 RF_GRID | RF_WIDE);
	}
	if (trained) {
		rec_num(rec, "training", "samples_per_s_per_gpu",
			"samples/s/GPU", t->result.tokens_per_s_per_gpu,
			UNIT_COUNT, RF_GRID | RF_WIDE);
		rec_num(rec, "training", "time_to_train_s", "time",
			t->run.time_s, UNIT_TIME, RF_GRID);
		rec_num(rec, "training", "goodput", "goodput",
			t->goodput.goodput, UNIT_KIND_COUNT,
			RF_GRID | RF_PERCENT | RF_WIDE);
		rec_num_finite(rec, "training", "gpu_hours", "GPU-h",
			       t->run.gpu_hours, UNIT_COUNT, 0);
		rec_num_finite(rec, "training", "cost_usd", "cost",
			       t->run.cost_usd, UNIT_MONEY, RF_GRID | RF_WIDE);
		rec_num_finite(rec, "training", "cost_usd_per_million_samples",
			       "$/M samples", t->run.cost_usd * per_m,
			       UNIT_MONEY, RF_GRID);
		rec_num_finite(rec, "training", "energy_kwh", "kWh",
			       t->run.energy_kwh, UNIT_COUNT, 0);
		rec_num_finite(rec, "training", "energy_j_per_million_samples",
			       "energy/M", t->run.energy_j * per_m,
			       UNIT_ENERGY, RF_GRID | RF_WIDE);
		rec_num(rec, "training", "mfu", "MFU", t->result.mfu,
			UNIT_KIND_COUNT, RF_PERCENT);
	} else {
		static const char *const keys[] = {
			"samples_per_s_per_gpu", "time_to_train_s", "goodput",
			"gpu_hours", "cost_usd", "cost_usd_per_million_samples",
			"energy_kwh", "energy_j_per_million_samples", "mfu",
		};
		static const char *const labels[] = {
			"samples/s/GPU", "time", "goodput", "GPU-h", "cost",
			"$/M samples", "kWh", "energy/M", "MFU",
		};
		static const int grid[] = { RF_GRID | RF_WIDE, RF_GRID,
					    RF_GRID | RF_WIDE, 0,
					    RF_GRID | RF_WIDE, RF_GRID,
					    0, RF_GRID | RF_WIDE, 0 };

		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			rec_null(rec, "training", keys[i], labels[i], grid[i]);
	}
	cli_rec_price(rec, &r->train.cluster, 0);
	{
		const struct cli_estimate est[] = {
			{ INTERVAL_PER_SAMPLE, "time_to_train_s", "time",
			  trained ? t->run.time_s : na, true, UNIT_TIME, 0 },
			{ INTERVAL_PER_SAMPLE, "cost_usd", "cost",
			  trained ? t->run.cost_usd : na, true, UNIT_MONEY,
			  0 },
			{ INTERVAL_PER_SAMPLE, "samples_per_s_per_gpu",
			  "samples/s/GPU",
			  trained ? t->result.tokens_per_s_per_gpu : na, false,
			  UNIT_COUNT, 0 },
		};

		cli_rec_interval_pairs(rec, r->gpu->name, est, 3, RF_MACHINE);
	}
	/* serving at the [inference] batch */
	rec_str(rec, NULL, "serve_status", "serve",
		r->serve_rc != 0     ? "no plan" :
		!p->result.fits	     ? "memory" :
		!p->meets_slo	     ? "SLO" :
				       "ok",
		RF_GRID | RF_TABLE);
	rec_bool(rec, "inference", "feasible", "serves", infer_ok(r), 0);
	if (r->serve_rc == 0) {
		rec_int(rec, "inference", "tp", "inf tp", p->tp, 0);
		rec_int(rec, "inference", "batch", "batch", p->batch,
			RF_GRID | RF_WIDE);
		rec_num(rec, "inference", "latency_s", "latency",
			p->result.latency_s, UNIT_TIME, RF_GRID);
		rec_num(rec, "inference", "throughput_samples_per_s_per_gpu",
			"inf/s/GPU", serve_rate_per_gpu(r), UNIT_COUNT,
			RF_GRID | RF_WIDE);
		rec_num(rec, "inference", "cost_usd_per_million_samples",
			"$/M inf", p->cost_usd_per_million_samples,
			UNIT_MONEY, RF_GRID);
		rec_num(rec, "inference", "energy_j_per_million_samples",
			"energy/M inf", p->energy_j_per_sample * 1e6,
			UNIT_ENERGY, RF_GRID | RF_WIDE);
		rec_int(rec, "inference", "replicas", "replicas", p->replicas,
			0);
		rec_int(rec, "inference", "gpus_total", "inf GPUs",
			p->gpus_total, RF_GRID | RF_WIDE);
		if (p->has_rate)
			rec_num(rec, "inference", "latency_p_s", "latency p",
				p->latency_p_s, UNIT_TIME, 0);
		else
			rec_null(rec, "inference", "latency_p_s", "latency p",
				 0);
	} else {
		static const char *const keys[] = {
			"tp", "batch", "latency_s",
			"throughput_samples_per_s_per_gpu",
			"cost_usd_per_million_samples",
			"energy_j_per_million_samples", "replicas",
			"gpus_total", "latency_p_s",
		};
		static const char *const labels[] = {
			"inf tp", "batch", "latency", "inf/s/GPU", "$/M inf",
			"energy/M inf", "replicas", "inf GPUs", "latency p",
		};
		static const int grid[] = { 0,
					    RF_GRID | RF_WIDE,
					    RF_GRID,
					    RF_GRID | RF_WIDE,
					    RF_GRID,
					    RF_GRID | RF_WIDE,
					    0,
					    RF_GRID | RF_WIDE,
					    0 };

		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			rec_null(rec, "inference", keys[i], labels[i],
				 grid[i]);
	}
	rec_str(rec, NULL, "why", "why not",
		!train_ok(r) ? r->train_why : (!infer_ok(r) ? r->infer_why : ""),
		0);
}

/* The price basis of the row's device rents the GPUs of its training
   plan (and of one serving replica) as one job (cluster.h). */
static bool train_rentable(const struct compare_row *r)
{
	return cluster_price_covers(&r->train.cluster, r->gpu,
				    r->train.config.gpus);
}

static bool infer_rentable(const struct compare_row *r)
{
	return cluster_price_covers(&r->infer.cluster, r->gpu,
				    r->infer.config.tp);
}

/* Best row by 'key' among the feasible ones whose price covers the plan
   ('rentable'); NULL when none is. */
static const struct compare_row *
best_by(const struct compare_row *rows, int n,
	double (*key)(const struct compare_row *),
	bool (*rentable)(const struct compare_row *))
{
	const struct compare_row *best = NULL;

	for (int i = 0; i < n; i++)
		if (key(&rows[i]) < HUGE_VAL && rentable(&rows[i]) &&
		    (!best || key(&rows[i]) < key(best)))
			best = &rows[i];
	return best;
}

/*
 * A note for each row better than 'best' by 'key' that was passed over
 * because its price basis does not rent its plan's 'gpus' (once per row:
 * 'noted').
 */
static void note_unrentable(struct report *rep, const struct compare_row *rows,
			    int n, double (*key)(const struct compare_row *),
			    bool (*rentable)(const struct compare_row *),
			    const struct compare_row *best, bool train,
			    bool *noted)
{
	for (int i = 0; i < n; i++) {
		const struct compare_row *r = &rows[i];

		if (noted[i] || key(r) == HUGE_VAL || rentable(r) ||
		    (best && key(r) >= key(best)))
			continue;
		noted[i] = true;
		report_note(rep, "%s: not recommended: its %s plan needs %d "
				 "GPUs and its price basis %s covers jobs of "
				 "at most %d",
			    r->gpu->name, train ? "training" : "serving",
			    train ? r->train.config.gpus : r->infer.config.tp,
			    r->gpu->price_basis, r->gpu->rent_max_gpus);
	}
}

/* The price basis most rows share (the first such in the list). */
static const char *common_basis(const struct compare_row *rows, int n)
{
	const char *best = n > 0 ? rows[0].train.cluster.price_basis : "";
	int most = 0;

	for (int i = 0; i < n; i++) {
		const char *b = rows[i].train.cluster.price_basis;
		int k = 0;

		for (int j = 0; j < n; j++)
			k += strcmp(rows[j].train.cluster.price_basis, b) == 0;
		if (k > most) {
			most = k;
			best = b;
		}
	}
	return best;
}

/* ", price basis B" when row 'r' is priced on another basis than most
   rows ('common'), else "". */
static void basis_text(char *buf, size_t size, const struct compare_row *r,
		       const char *common)
{
	if (strcmp(r->train.cluster.price_basis, common) != 0)
		snprintf(buf, size, ", price basis %s",
			 r->train.cluster.price_basis);
	else
		buf[0] = '\0';
}

/* 'why' with the quoted device name "'name'" said as "the device", so
   that devices refused for the same reason share one note. */
static void why_of_any(const char *why, const char *name, char *out,
		       size_t size)
{
	char quoted[DIAG_MSG_MAX];
	const char *hit;
	size_t ql;

	snprintf(quoted, sizeof(quoted), "'%s'", name);
	ql = strlen(quoted);
	hit = strstr(why, quoted);
	if (!hit) {
		snprintf(out, size, "%s", why);
		return;
	}
	snprintf(out, size, "%.*sthe device%s", (int)(hit - why), why,
		 hit + ql);
}

/* The error of row 'r''s training (train) or serving plan, or NULL when it
   has a plan. */
static const char *no_plan_why(const struct compare_row *r, bool train)
{
	int rc = train ? r->train_rc :
			 r->per_sample ? r->serve_rc : r->infer_rc;
	const char *why = train ? r->train_why : r->infer_why;

	return rc != 0 && why[0] ? why : NULL;
}

/*
 * Why the rows whose table cell says "no plan" have none: one note per
 * reason, naming the devices (at most 'list' of them, then a count).
 */
static void no_plan_notes(struct report *rep, const struct compare_row *rows,
			  int n)
{
	enum { list = 6 };

	for (int pass = 0; pass < 2; pass++) {
		bool train = pass == 0;

		for (int i = 0; i < n; i++) {
			char why[DIAG_MSG_MAX], other[DIAG_MSG_MAX];
			char names[REPORT_NOTE_MAX] = "";
			size_t used = 0;
			int count = 0, shown = 0;
			bool earlier = false;

			if (!no_plan_why(&rows[i], train))
				continue;
			why_of_any(no_plan_why(&rows[i], train),
				   rows[i].gpu->name, why, sizeof(why));
			for (int j = 0; j < i && !earlier; j++) {
				if (!no_plan_why(&rows[j], train))
					continue;
				why_of_any(no_plan_why(&rows[j], train),
					   rows[j].gpu->name, other,
					   sizeof(other));
				earlier = strcmp(why, other) == 0;
			}
			if (earlier)
				continue;
			for (int j = i; j < n; j++) {
				if (!no_plan_why(&rows[j], train))
					continue;
				why_of_any(no_plan_why(&rows[j], train),
					   rows[j].gpu->name, other,
					   sizeof(other));
				if (strcmp(why, other) != 0)
					continue;
				count++;
				if (shown < list && used < sizeof(names)) {
					int w = snprintf(names + used,
							 sizeof(names) - used,
							 "%s%s",
							 shown ? ", " : "",
							 rows[j].gpu->name);

					if (w > 0)
						used += (size_t)w;
					shown++;
				}
			}
			if (count > shown)
				report_note(rep, "%s: no plan on %s and %d more: "
						 "%s",
					    train ? "training" : "serving",
					    names, count - shown, why);
			else
				report_note(rep, "%s: no plan on %s: %s",
					    train ? "training" : "serving",
					    names, why);
		}
	}
}

static void recommend(struct report *rep, const struct compare_row *rows,
		      int n, const struct workload *wl)
{
	const struct compare_row *fast =
		best_by(rows, n, key_time, train_rentable);
	const struct compare_row *cheap =
		best_by(rows, n, key_cost, train_rentable);
	const struct compare_row *tok =
		best_by(rows, n, key_token_cost, infer_rentable);
	const struct compare_row *lat =
		best_by(rows, n, key_latency, infer_rentable);
	char t[32], c[32], m[32], b[GPU_BASIS_MAX + 32];
	bool *noted = calloc(n > 0 ? (size_t)n : 1, sizeof(*noted));
	/* a recommendation priced on another basis than most names it */
	const char *mixed = common_basis(rows, n);

	if (noted) {
		note_unrentable(rep, rows, n, key_time, train_rentable, fast,
				true, noted);
		note_unrentable(rep, rows, n, key_cost, train_rentable, cheap,
				true, noted);
	}
	if (fast) {
		units_format_plain(t, sizeof(t), fast->train.run.time_s, UNIT_TIME, 3);
		units_format_plain(c, sizeof(c), fast->train.run.cost_usd,
			     UNIT_MONEY, 3);
		basis_text(b, sizeof(b), fast, mixed);
		report_note(rep,
			    "training: fastest is %s (%s on %d GPUs, %s%s)",
			    fast->gpu->name, t, fast->train.config.gpus, c, b);
		if (cheap && cheap != fast) {
			units_format_plain(t, sizeof(t), cheap->train.run.time_s,
				     UNIT_TIME, 3);
			units_format_plain(c, sizeof(c), cheap->train.run.cost_usd,
				     UNIT_MONEY, 3);
			basis_text(b, sizeof(b), cheap, mixed);
			report_note(rep, "training: cheapest is %s (%s, %s%s)",
				    cheap->gpu->name, c, t, b);
		}
	} else if (model_has_arch(&wl->model)) {
		report_note(rep, "training: no device fits this configuration");
	}
	if (noted) {
		memset(noted, 0, (size_t)n * sizeof(*noted));
		note_unrentable(rep, rows, n, key_token_cost, infer_rentable,
				tok, false, noted);
		note_unrentable(rep, rows, n, key_latency, infer_rentable, lat,
				false, noted);
		free(noted);
	}
	if (tok) {
		units_format_plain(m, sizeof(m), tok->infer.cost_usd_per_million_tokens,
			     UNIT_MONEY, 3);
		units_format_plain(t, sizeof(t), tok->infer.result.tpot_s, UNIT_TIME,
			     3);
		basis_text(b, sizeof(b), tok, mixed);
		report_note(rep, "inference: cheapest per token%s is %s "
				 "(%s per million tokens, %s per token, "
				 "%d GPU%s%s)",
			    wl->inference.tpot_slo_s > 0.0 ||
					    wl->inference.ttft_slo_s > 0.0 ?
				    " within the SLO" :
				    "",
			    tok->gpu->name, m, t, tok->infer.gpus_total,
			    tok->infer.gpus_total == 1 ? "" : "s", b);
		if (lat && lat != tok) {
			units_format_plain(t, sizeof(t), lat->infer.result.tpot_s,
				     UNIT_TIME, 3);
			report_note(rep, "inference: lowest latency is %s (%s "
					 "per token)", lat->gpu->name, t);
		}
		if (wl->inference.power_cap_w > 0.0) {
			int serving = 0;

			for (int i = 0; i < n; i++)
				serving += infer_ok(&rows[i]);
			report_note(rep, "inference: %d of %d devices serve "
					 "within the %.3g W power cap",
				    serving, n, wl->inference.power_cap_w);
		}
	} else if (model_has_arch(&wl->model)) {
		report_note(rep, "inference: no device serves it within the "
				 "SLO and memory");
	}
	if (fast && tok && fast->gpu != tok->gpu)
		report_note(rep, "training wants throughput at scale (%s); "
				 "serving wants cost per token (%s)",
			    fast->gpu->name, tok->gpu->name);
}

/* The serving batch of a per-sample compare (the same on every
   device): that of the first row with a serving plan, 0 without. */
static int serve_batch(const struct compare_row *rows, int n)
{
	for (int i = 0; i < n; i++)
		if (rows[i].serve_rc == 0)
			return rows[i].serve.batch;
	return 0;
}

static bool serve_rentable(const struct compare_row *r)
{
	return cluster_price_covers(&r->serve.cluster, r->gpu, r->serve.tp);
}

/* The recommendation for a per-sample model: training as for a
   transformer, serving by cost per million inferences and by the latency
   of a batch. */
static void recommend_samples(struct report *rep,
			      const struct compare_row *rows, int n)
{
	const struct compare_row *fast =
		best_by(rows, n, key_time, train_rentable);
	const struct compare_row *cheap =
		best_by(rows, n, key_cost, train_rentable);
	const struct compare_row *inf =
		best_by(rows, n, key_sample_cost, serve_rentable);
	const struct compare_row *lat =
		best_by(rows, n, key_latency, serve_rentable);
	char t[32], c[32], m[32], b[GPU_BASIS_MAX + 32];
	bool *noted = calloc(n > 0 ? (size_t)n : 1, sizeof(*noted));
	const char *mixed = common_basis(rows, n);

	if (noted) {
		note_unrentable(rep, rows, n, key_time, train_rentable, fast,
				true, noted);
		note_unrentable(rep, rows, n, key_cost, train_rentable, cheap,
				true, noted);
	}
	if (fast) {
		units_format_plain(t, sizeof(t), fast->train.run.time_s, UNIT_TIME, 3);
		units_format_plain(c, sizeof(c), fast->train.run.cost_usd,
			     UNIT_MONEY, 3);
		units_format_plain(m, sizeof(m),
			     fast->train.result.tokens_per_s_per_gpu,
			     UNIT_COUNT, 3);
		basis_text(b, sizeof(b), fast, mixed);
		report_note(rep, "training: fastest is %s (%s on %d GPUs, "
				 "%s samples/s per GPU, %s%s)",
			    fast->gpu->name, t, fast->train.config.gpus, m, c,
			    b);
		if (cheap && cheap != fast) {
			units_format_plain(t, sizeof(t), cheap->train.run.time_s,
				     UNIT_TIME, 3);
			units_format_plain(c, sizeof(c), cheap->train.run.cost_usd,
				     UNIT_MONEY, 3);
			units_format_plain(m, sizeof(m),
				     cheap->train.run.cost_usd * 1e6 /
					     samples_of(cheap),
				     UNIT_MONEY, 3);
			basis_text(b, sizeof(b), cheap, mixed);
			report_note(rep, "training: cheapest is %s (%s, %s per "
					 "million samples, %s%s)",
				    cheap->gpu->name, c, m, t, b);
		}
	} else {
		/* the reason when no device could plan it at all (no samples) */
		int planned = 0;

		for (int i = 0; i < n; i++)
			planned += rows[i].train_rc == 0;
		if (planned > 0 || n == 0)
			report_note(rep, "training: no device fits this "
					 "configuration");
	}
	if (noted) {
		memset(noted, 0, (size_t)n * sizeof(*noted));
		for (int i = 0; i < n; i++) {
			const struct compare_row *r = &rows[i];

			if (key_sample_cost(r) == HUGE_VAL || serve_rentable(r) ||
			    (inf && key_sample_cost(r) >= key_sample_cost(inf)))
				continue;
			report_note(rep, "%s: not recommended: its serving "
					 "replica needs %d GPUs and its price "
					 "basis %s covers jobs of at most %d",
				    r->gpu->name, r->serve.tp,
				    r->gpu->price_basis, r->gpu->rent_max_gpus);
		}
		free(noted);
	}
	if (inf) {
		units_format_plain(m, sizeof(m), inf->serve.cost_usd_per_million_samples,
			     UNIT_MONEY, 3);
		units_format_plain(t, sizeof(t), inf->serve.result.latency_s,
			     UNIT_TIME, 3);
		basis_text(b, sizeof(b), inf, mixed);
		report_note(rep, "serving: cheapest per inference is %s (%s per "
				 "million, %s for a batch of %d, %d GPU%s%s)",
			    inf->gpu->name, m, t, inf->serve.batch,
			    inf->serve.gpus_total,
			    inf->serve.gpus_total == 1 ? "" : "s", b);
		if (lat && lat != inf) {
			units_format_plain(t, sizeof(t), lat->serve.result.latency_s,
				     UNIT_TIME, 3);
			report_note(rep, "serving: lowest latency is %s (%s for "
					 "a batch of %d)",
				    lat->gpu->name, t, lat->serve.batch);
		}
	} else {
		report_note(rep, "serving: no device serves it within memory "
				 "and the latency target");
	}
	if (fast && inf && fast->gpu != inf->gpu)
		report_note(rep, "training wants throughput at scale (%s); "
				 "serving wants cost per inference (%s)",
			    fast->gpu->name, inf->gpu->name);
}

int cmd_compare(struct cli_ctx *ctx)
{
	struct compare_row *rows;
	struct report rep;
	struct progress pr;
	const char *what;
	int rc, ok = 0;
	bool per_token;
	double (*sort_key)(const struct compare_row *r) = key_time;

	size_t sk = 0; /* time */

	if (ctx->sort_arg) {
		for (sk = 0; sk < sizeof(sort_keys) / sizeof(sort_keys[0]); sk++)
			if (strcmp(ctx->sort_arg, sort_keys[sk].name) == 0)
				break;
		if (sk == sizeof(sort_keys) / sizeof(sort_keys[0])) {
			cli_error("--sort must be one of time, cost, energy, "
				  "latency, token-cost, throughput, "
				  "token-energy, sample-cost, sample-energy; "
				  "got '%s'", ctx->sort_arg);
			return EXIT_USAGE;
		}
	}
	rc = cli_load_workload(ctx);
	if (rc == EXIT_OK)
		rc = cli_resolve_gpus(ctx, true);
	if (rc != EXIT_OK)
		return rc;
	rc = cli_plot_prepare(ctx);
	if (rc != EXIT_OK)
		return rc;
	per_token = ctx->wl.model.kind == MODEL_TRANSFORMER;
	if (sort_keys[sk].scope == (per_token ? SORT_SAMPLES : SORT_TOKENS)) {
		cli_message(cli_input_name(ctx),
			    ": --sort %s ranks serving per %s, and this "
			    "workload is kind = %s: sort by %s",
			    ctx->sort_arg, per_token ? "sample" : "token",
			    model_kind_name(ctx->wl.model.kind),
			    per_token ? "token-cost or token-energy" :
					"sample-cost or sample-energy");
		return EXIT_USAGE;
	}
	sort_key = sort_keys[sk].key;
	what = per_token ? sort_keys[sk].what : sort_keys[sk].what_sample;
	rows = calloc((size_t)ctx->ngpus, sizeof(*rows));
	if (!rows) {
		fprintf(stderr, "capplan: error: out of memory\n");
		return EXIT_INTERNAL;
	}
	progress_init(&pr, "compare");
	for (int i = 0; i < ctx->ngpus; i++) {
		struct compare_row *r = &rows[i];
		struct diag err;

		progress_update(&pr, (size_t)i, (size_t)ctx->ngpus,
				"devices trained");
		r->gpu = ctx->gpus[i];
		r->order = i;
		diag_clear(&err);
		r->train_rc = train_plan_make(&ctx->wl, r->gpu, &r->train, &err);
		snprintf(r->train_why, sizeof(r->train_why), "%s",
			 r->train_rc ? err.msg :
			 !r->train.fits ? "training does not fit in memory" :
					  "");
		r->infer_rc = -1;
		r->serve_rc = -1;
		snprintf(r->infer_why, sizeof(r->infer_why), "no architecture");
		r->per_sample = !per_token;
		if (r->per_sample) {
			/* serving per sample is a formula: no simulation */
			diag_clear(&err);
			r->serve_rc = sample_serve_plan_make(&ctx->wl, r->gpu,
							     &r->serve, &err);
			snprintf(r->infer_why, sizeof(r->infer_why), "%s",
				 r->serve_rc ? err.msg : r->serve.why);
		}
	}
	if (model_has_arch(&ctx->wl.model)) {
		/* serving is simulated: one device per thread */
		struct compare_job job = { &ctx->wl, rows };

		progress_update(&pr, 0, (size_t)ctx->ngpus,
				"devices served (simulating)");
		cli_parallel_for(ctx->ngpus, infer_one, &job);
	}
	progress_end(&pr);
	for (int i = 0; i < ctx->ngpus; i++) {
		struct compare_row *r = &rows[i];

		ok += train_ok(r) || infer_ok(r);
		r->sort_value = sort_key(r);
	}
	qsort(rows, (size_t)ctx->ngpus, sizeof(*rows), by_key);
	report_init(&rep, true);
	snprintf(rep.title, sizeof(rep.title), "Compare: %s, sorted by %s",
		 ctx->wl.model.name[0] ? ctx->wl.model.name : "model", what);
	for (int i = 0; i < ctx->ngpus; i++) {
		struct record *rec = report_add_record(&rep);

		if (!rec) {
			free(rows);
			report_release(&rep);
			fprintf(stderr, "capplan: error: out of memory\n");
			return EXIT_INTERNAL;
		}
		if (per_token)
			add_row(rec, &rows[i]);
		else
			add_sample_row(rec, &rows[i]);
	}
	if (per_token)
		recommend(&rep, rows, ctx->ngpus, &ctx->wl);
	else
		recommend_samples(&rep, rows, ctx->ngpus);
	no_plan_notes(&rep, rows, ctx->ngpus);
	if (ctx->format == FORMAT_TABLE)
		report_note(&rep, "%s", CLI_INTERVAL_NOTE);
	if (ctx->plot_dir && ok > 0)
		report_note(&rep, "charts of the best %d devices in %s",
			    ok < CLI_PLOT_SET_GPUS ? ok : CLI_PLOT_SET_GPUS,
			    ctx->plot_dir);
	if (!per_token && ctx->format == FORMAT_TABLE)
		report_note(&rep, "samples/s/GPU trained, inf/s/GPU served; "
				  "$/M: per million samples trained or served; "
				  "latency: a batch of %d on one replica",
			    serve_batch(rows, ctx->ngpus));
	rc = cli_emit(ctx, &rep);
	report_release(&rep);
	if (rc == EXIT_OK && ctx->plot_dir) {
		/* the feasible devices, in the order of the table */
		const struct gpu_spec *best[CLI_PLOT_SET_GPUS];
		int nbest = 0;

		for (int i = 0; i < ctx->ngpus && nbest < CLI_PLOT_SET_GPUS;
		     i++)
			if (train_ok(&rows[i]) || infer_ok(&rows[i]))
				best[nbest++] = rows[i].gpu;
		rc = cli_plot_set(ctx, best, nbest);
	}
	free(rows);
	if (rc == EXIT_OK && ok == 0)
		rc = EXIT_INFEASIBLE;
	return rc;
}
