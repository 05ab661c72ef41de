/* cmd_compare.c - 'capplan compare': devices side by side for training
   and serving one workload, sorted, with a recommendation
   (cmd_compare_pick.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "progress.h"
#include "interval.h"
#include "infer_plan.h"
#include "plan.h"

#include "cmd_compare_internal.h"


struct compare_job {
	const struct cli_ctx *ctx;
	const struct workload *wl;
	struct compare_row *rows;
	struct progress *pr;
	struct progress_hook hook;
};

static void infer_one(int i, void *arg)
{
	struct compare_job *j = arg;
	struct compare_row *r = &j->rows[i];
	struct diag err;

	diag_clear(&err);
	r->infer_rc = cli_infer_plan(j->ctx, j->wl, r->gpu, &j->hook,
				     &r->infer, &err);
	r->infer_nomem = r->infer_rc != 0 && err.kind == DIAG_NOMEM;
	snprintf(r->infer_why, sizeof(r->infer_why), "%s",
		 r->infer_rc ? err.msg : r->infer.why);
	progress_add(j->pr, 1);
}

bool compare_train_ok(const struct compare_row *r)
{
	return r->train_rc == 0 && r->train.fits;
}

bool compare_infer_ok(const struct compare_row *r)
{
	if (r->per_sample)
		return r->serve_rc == 0 && r->serve.result.fits &&
		       r->serve.meets_slo;
	return r->infer_rc == 0 && r->infer.fits && r->infer.meets_slo;
}

/* The samples a per-sample plan trains on (training.samples x epochs). */
double compare_samples_of(const struct compare_row *r)
{
	return r->train.tokens > 0.0 ? r->train.tokens : (double)NAN;
}

/* Sort keys: smaller is better; feasible rows before infeasible ones. */
double compare_key_time(const struct compare_row *r)
{
	return compare_train_ok(r) && r->train.has_arch ? r->train.run.time_s :
						  HUGE_VAL;
}

double compare_key_cost(const struct compare_row *r)
{
	return compare_train_ok(r) && r->train.has_arch ?
		       r->train.run.cost_usd :
		       HUGE_VAL;
}

double compare_key_energy(const struct compare_row *r)
{
	return compare_train_ok(r) && r->train.has_arch ?
		       r->train.run.energy_kwh :
		       HUGE_VAL;
}

/* Serving keys: per token for a transformer, per sample (at the
   [inference] batch) for a per-sample model. */
double compare_key_latency(const struct compare_row *r)
{
	if (!compare_infer_ok(r))
		return HUGE_VAL;
	return r->per_sample ? r->serve.result.latency_s :
			       r->infer.result.tpot_s;
}

double compare_key_token_cost(const struct compare_row *r)
{
	return compare_infer_ok(r) && !r->per_sample ?
		       r->infer.cost_usd_per_million_tokens :
		       HUGE_VAL;
}

/* Serving samples/s per GPU of a per-sample plan. */
double compare_serve_rate_per_gpu(const struct compare_row *r)
{
	return r->serve.result.throughput_per_s /
	       (r->serve.tp > 0 ? r->serve.tp : 1);
}

double compare_key_throughput(const struct compare_row *r)
{
	if (!compare_infer_ok(r))
		return HUGE_VAL;
	return r->per_sample ?
		       -compare_serve_rate_per_gpu(r) :
		       -r->infer.result.throughput_tokens_per_s_per_gpu;
}

double compare_key_joules(const struct compare_row *r)
{
	return compare_infer_ok(r) && !r->per_sample ?
		       r->infer.result.energy_j_per_token :
		       HUGE_VAL;
}

double compare_key_sample_cost(const struct compare_row *r)
{
	return compare_infer_ok(r) && r->per_sample ?
		       r->serve.cost_usd_per_million_samples :
		       HUGE_VAL;
}

double compare_key_sample_joules(const struct compare_row *r)
{
	return compare_infer_ok(r) && r->per_sample ?
		       r->serve.energy_j_per_sample :
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
	{ "time", compare_key_time, "time to train", "time to train",
	  SORT_BOTH },
	{ "cost", compare_key_cost, "training cost", "training cost",
	  SORT_BOTH },
	{ "energy", compare_key_energy, "training energy", "training energy",
	  SORT_BOTH },
	{ "latency", compare_key_latency, "time per output token",
	  "batch latency", SORT_BOTH },
	{ "token-cost", compare_key_token_cost, "cost per million tokens", NULL,
	  SORT_TOKENS },
	{ "throughput", compare_key_throughput, "output tokens/s per GPU",
	  "served samples/s per GPU", SORT_BOTH },
	{ "token-energy", compare_key_joules, "energy per token", NULL,
	  SORT_TOKENS },
	{ "sample-cost", compare_key_sample_cost, NULL,
	  "cost per million inferences", SORT_SAMPLES },
	{ "sample-energy", compare_key_sample_joules, NULL,
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
	return r->train_skipped	? "-" :
	       r->train_rc != 0 ? "no plan" :
	       !r->train.fits	? "memory" :
	       !trained || !isfinite(r->train.run.time_s) ? "no end" :
							    "ok";
}

/* A transformer's row: training, and serving per token. */
static void add_row(struct record *rec, const struct compare_row *r,
		    const struct cli_ctx *ctx)
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
		/* each factor in JSON and CSV: tp pp cp dp multiply to the
		   GPUs (ep within dp) */
		rec_int(rec, "training", "tp", "tp", t->config.tp, RF_MACHINE);
		rec_int(rec, "training", "pp", "pp", t->config.pp, RF_MACHINE);
		rec_int(rec, "training", "cp", "cp", t->config.cp, RF_MACHINE);
		rec_int(rec, "training", "ep", "ep", train_config_ep(&t->config),
			RF_MACHINE);
		rec_int(rec, "training", "dp", "dp", t->config.dp, RF_MACHINE);
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
		rec_null(rec, "training", "tp", "tp", RF_MACHINE);
		rec_null(rec, "training", "pp", "pp", RF_MACHINE);
		rec_null(rec, "training", "cp", "cp", RF_MACHINE);
		rec_null(rec, "training", "ep", "ep", RF_MACHINE);
		rec_null(rec, "training", "dp", "dp", RF_MACHINE);
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
		rec_num_finite(rec, "training", "energy_kwh", "energy",
			       t->run.energy_kwh, UNIT_ENERGY_KWH,
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
		rec_null(rec, "training", "energy_kwh", "energy",
			 RF_GRID | RF_WIDE);
		rec_null(rec, "training", "mfu", "MFU", 0);
	}
	/* the price both use (train_plan_make resolves it first) */
	cli_rec_price(rec, &r->train.cluster, 0);
	{
		bool served = r->infer_rc == 0;
		double na = (double)NAN;
		const int cls = INTERVAL_TRAINING;
		struct cli_estimate est[] = {
			{ cls, "time_to_train_s", "time",
			  trained ? t->run.time_s : na, true, UNIT_TIME, 0,
			  false, { 0.0, 0.0 } },
			{ cls, "cost_usd", "cost",
			  trained ? t->run.cost_usd : na, true, UNIT_MONEY,
			  0, false, { 0.0, 0.0 } },
			{ INTERVAL_TTFT, "ttft_s", "TTFT",
			  served ? p->result.ttft_s : na, true, UNIT_TIME, 0,
			  false, { 0.0, 0.0 } },
			{ INTERVAL_TPOT, "tpot_s", "TPOT",
			  served && p->config.output_tokens >= 2 ?
				  p->result.tpot_s :
				  na,
			  true, UNIT_TIME, 0, false, { 0.0, 0.0 } },
			{ INTERVAL_OFFLINE,
			  "throughput_tokens_per_s_per_gpu",
			  "tok/s/GPU",
			  served ? p->result.throughput_tokens_per_s_per_gpu :
				   na,
			  false, UNIT_COUNT, 0, false, { 0.0, 0.0 } },
		};
		struct cli_basis b;

		cli_basis_init(&b, ctx->profile, r->gpu->name, &ctx->wl);
		/* production figures (specs/models.md 8.1.1) */
		cli_estimate_production(&est[0], r->gpu->name);
		cli_estimate_production(&est[1], r->gpu->name);
		/* at a batch the offline rows do not cover, the rate from the
		   latencies' intervals */
		est[4].has_range =
			served && !cli_basis_band(&b, INTERVAL_OFFLINE) &&
			interval_of_replica_rate(
				r->gpu->name, p->config.batch,
				p->result.prefill_batch_s,
				p->result.service_s -
					p->result.prefill_batch_s,
				p->result.throughput_tokens_per_s_per_gpu,
				est[4].range);
		cli_rec_interval_pairs(rec, &b, est, 5, RF_MACHINE);
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
			 compare_infer_ok(r), 0);
		rec_int(rec, "inference", "tp", "inf tp", p->config.tp, 0);
		rec_int(rec, "inference", "batch", "batch", p->config.batch,
			RF_GRID | RF_WIDE);
		rec_int(rec, "inference", "max_batch", "max batch",
			p->max_batch, 0);
		rec_num(rec, "inference", "ttft_s", "TTFT", p->result.ttft_s,
			UNIT_TIME, RF_GRID | RF_WIDE);
		/* none for one-token answers (infer_tpot_target_s) */
		rec_num_finite(rec, "inference", "tpot_s", "TPOT",
			       p->config.output_tokens >= 2 ?
				       p->result.tpot_s :
				       (double)NAN,
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
		rec_num(rec, "inference", "cost_usd_per_million_input_tokens",
			"$/M in", p->cost_usd_per_million_input_tokens,
			UNIT_MONEY, 0);
		rec_num(rec, "inference", "cost_usd_per_million_output_tokens",
			"$/M out", p->cost_usd_per_million_output_tokens,
			UNIT_MONEY, 0);
		rec_num(rec, "inference", "output_tokens_per_s_per_mw",
			"tok/s/MW", p->output_tokens_per_s_per_mw, UNIT_COUNT,
			0);
		/* what the prefix cache found, when the load was simulated
		   with one (specs/models.md 10.9.19) */
		if (p->simulated && p->fleet.engine.prefix_caching &&
		    !p->fleet.disagg)
			rec_num(rec, "inference", "prefix_hit_rate",
				"prefix hits", p->fleet.sim.prefix_hit_rate,
				UNIT_KIND_COUNT, RF_PERCENT);
		else
			rec_null(rec, "inference", "prefix_hit_rate",
				 "prefix hits", 0);
	} else {
		static const char *const keys[] = {
			"tp", "batch", "max_batch", "ttft_s", "tpot_s",
			"throughput_tokens_per_s_per_gpu", "replicas",
			"gpus_total", "energy_j_per_token",
			"cost_usd_per_million_tokens",
			"cost_usd_per_million_input_tokens",
			"cost_usd_per_million_output_tokens",
			"output_tokens_per_s_per_mw", "prefix_hit_rate",
		};
		static const char *const labels[] = {
			"inf tp", "batch", "max batch", "TTFT", "TPOT",
			"tok/s/GPU", "replicas", "inf GPUs", "J/token",
			"$/Mtok", "$/M in", "$/M out", "tok/s/MW",
			"prefix hits",
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
					    RF_GRID,
					    0,
					    0,
					    0,
					    0 };

		rec_bool(rec, "inference", "feasible", "serves", false, 0);
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			rec_null(rec, "inference", keys[i], labels[i],
				 grid[i]);
	}
	rec_str(rec, NULL, "why", "why not",
		!compare_train_ok(r)  ? r->train_why :
		!compare_infer_ok(r) ? r->infer_why :
				       "",
		0);
}

/*
 * A per-sample model's row (kind generic or recsys): training per sample
 * (samples/s per GPU, time, cost and energy per million samples) and
 * serving at the [inference] batch (latency of a batch, samples/s per
 * GPU, cost per million inferences).  specs/output.md, "capplan compare".
 */
static void add_sample_row(struct record *rec, const struct compare_row *r,
			   const struct cli_ctx *ctx)
{
	const struct train_plan *t = &r->train;
	const struct sample_serve_plan *p = &r->serve;
	bool trained = r->train_rc == 0 && t->has_arch && t->fits &&
		       isfinite(t->run.time_s);
	double samples = compare_samples_of(r), na = (double)NAN;
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
		rec_num_finite(rec, "training", "energy_kwh", "energy",
			       t->run.energy_kwh, UNIT_ENERGY_KWH, 0);
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
		bool served = r->serve_rc == 0;
		struct cli_estimate est[] = {
			{ INTERVAL_PER_SAMPLE, "time_to_train_s", "time",
			  trained ? t->run.time_s : na, true, UNIT_TIME, 0,
			  false, { 0.0, 0.0 } },
			{ INTERVAL_PER_SAMPLE, "cost_usd", "cost",
			  trained ? t->run.cost_usd : na, true, UNIT_MONEY,
			  0, false, { 0.0, 0.0 } },
			{ INTERVAL_PER_SAMPLE, "samples_per_s_per_gpu",
			  "samples/s/GPU",
			  trained ? t->result.tokens_per_s_per_gpu : na, false,
			  UNIT_COUNT, 0, false, { 0.0, 0.0 } },
			{ INTERVAL_SAMPLE_SERVING, "latency_s", "latency",
			  served ? p->result.latency_s : na, true, UNIT_TIME,
			  0, false, { 0.0, 0.0 } },
			{ INTERVAL_SAMPLE_SERVING,
			  "throughput_samples_per_s_per_gpu", "inf/s/GPU",
			  served ? compare_serve_rate_per_gpu(r) : na, false,
			  UNIT_COUNT, 0, false, { 0.0, 0.0 } },
		};
		struct cli_basis b;

		/* production figures (specs/models.md 8.1.1) */
		cli_estimate_production(&est[0], r->gpu->name);
		cli_estimate_production(&est[1], r->gpu->name);
		cli_basis_init(&b, ctx->profile, r->gpu->name, &ctx->wl);
		cli_rec_interval_pairs(rec, &b, est, 5, RF_MACHINE);
	}
	/* serving at the [inference] batch */
	rec_str(rec, NULL, "serve_status", "serve",
		r->serve_rc != 0     ? "no plan" :
		!p->result.fits	     ? "memory" :
		!p->meets_slo	     ? "SLO" :
				       "ok",
		RF_GRID | RF_TABLE);
	rec_bool(rec, "inference", "feasible", "serves", compare_infer_ok(r),
		 0);
	if (r->serve_rc == 0) {
		rec_int(rec, "inference", "tp", "inf tp", p->tp, 0);
		rec_int(rec, "inference", "batch", "batch", p->batch,
			RF_GRID | RF_WIDE);
		rec_num(rec, "inference", "latency_s", "latency",
			p->result.latency_s, UNIT_TIME, RF_GRID);
		rec_num(rec, "inference", "throughput_samples_per_s_per_gpu",
			"inf/s/GPU", compare_serve_rate_per_gpu(r), UNIT_COUNT,
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
		!compare_train_ok(r)  ? r->train_why :
		!compare_infer_ok(r) ? r->infer_why :
				       "",
		0);
}


int cmd_compare(struct cli_ctx *ctx)
{
	struct compare_row *rows;
	struct report rep;
	struct progress pr;
	const char *what;
	int rc, ok = 0;
	bool per_token;
	double (*sort_key)(const struct compare_row *r) = compare_key_time;
	bool serving_only;
	size_t sk = 0; /* time */

	if (ctx->sort_arg) {
		for (sk = 0; sk < sizeof(sort_keys) / sizeof(sort_keys[0]); sk++)
			if (strcmp(ctx->sort_arg, sort_keys[sk].name) == 0)
				break;
		if (sk == sizeof(sort_keys) / sizeof(sort_keys[0]))
			return cli_usage(ctx->cmd,
					 "--sort must be one of time, cost, "
					 "energy, latency, token-cost, "
					 "throughput, token-energy, "
					 "sample-cost, sample-energy; got '%s'",
					 ctx->sort_arg);
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
	serving_only = cli_serving_only(&ctx->wl);
	/* a serving-only workload ranks by what serving costs */
	if (!ctx->sort_arg && serving_only)
		for (sk = 0; sk < sizeof(sort_keys) / sizeof(sort_keys[0]); sk++)
			if (strcmp(sort_keys[sk].name, per_token ? "token-cost" :
								   "sample-cost") ==
			    0)
				break;
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
		progress_phase(&pr, 0, 0, ctx->gpus[i]->name);
		r->gpu = ctx->gpus[i];
		r->order = i;
		diag_clear(&err);
		r->train_skipped = serving_only;
		r->train_rc = serving_only ?
				      -1 :
				      train_plan_make(&ctx->wl, r->gpu,
						      &r->train, &err);
		/* the price both share comes from the training plan's
		   cluster: resolved here when none is planned */
		if (serving_only)
			(void)cluster_resolve(&ctx->wl.cluster, r->gpu,
					      &r->train.cluster, NULL);
		snprintf(r->train_why, sizeof(r->train_why), "%s",
			 serving_only	? "" :
			 r->train_rc	? err.msg :
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
		struct compare_job job = { ctx, &ctx->wl, rows, &pr,
					   progress_hook_of(&pr) };

		progress_update(&pr, 0, (size_t)ctx->ngpus, "devices served");
		cli_parallel_for(ctx->ngpus, infer_one, &job);
	}
	progress_end(&pr);
	for (int i = 0; i < ctx->ngpus; i++)
		if (rows[i].infer_nomem) {
			/* an error, not a device that cannot serve */
			free(rows);
			fprintf(stderr, "capplan: error: out of memory\n");
			return EXIT_INTERNAL;
		}
	for (int i = 0; i < ctx->ngpus; i++) {
		struct compare_row *r = &rows[i];

		ok += compare_train_ok(r) || compare_infer_ok(r);
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
			add_row(rec, &rows[i], ctx);
		else
			add_sample_row(rec, &rows[i], ctx);
		cli_rec_stacks(rec, &ctx->wl, per_token, true, RF_MACHINE);
	}
	if (serving_only)
		report_note(&rep, "serving only: the workload gives a load and "
				  "no training.%s or training.gpus, so no "
				  "training is planned",
			    per_token ? "tokens" : "samples");
	cli_note_stacks(&rep, &ctx->wl, per_token, true);
	cli_note_profile(&rep, ctx, NULL);
	if (per_token) {
		/* a mix of the devices cheaper than each one's own fleet
		   (size --mixed) */
		const struct compare_row *cheap = NULL;
		char mix[REPORT_STR_MAX + 256];

		compare_recommend(&rep, rows, ctx->ngpus, &ctx->wl);
		for (int i = 0; i < ctx->ngpus; i++)
			if (compare_infer_ok(&rows[i]) &&
			    (!cheap || rows[i].infer.cost_usd_per_month <
					       cheap->infer.cost_usd_per_month))
				cheap = &rows[i];
		rc = cheap ? cli_mix_summary(ctx,
					     cheap->infer.cost_usd_per_month,
					     cheap->gpu->name, mix,
					     sizeof(mix)) :
			     0;
		if (rc < 0) {
			free(rows);
			report_release(&rep);
			return EXIT_INTERNAL;
		}
		if (rc > 0)
			report_note(&rep, "inference: %s", mix);
	} else
		compare_recommend_samples(&rep, rows, ctx->ngpus);
	compare_no_plan_notes(&rep, rows, ctx->ngpus);
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
			    compare_serve_batch(rows, ctx->ngpus));
	rc = cli_emit(ctx, &rep);
	report_release(&rep);
	if (rc == EXIT_OK && ctx->plot_dir) {
		/* the feasible devices, in the order of the table */
		const struct gpu_spec *best[CLI_PLOT_SET_GPUS];
		int nbest = 0;

		for (int i = 0; i < ctx->ngpus && nbest < CLI_PLOT_SET_GPUS;
		     i++)
			if (compare_train_ok(&rows[i]) ||
			    compare_infer_ok(&rows[i]))
				best[nbest++] = rows[i].gpu;
		rc = cli_plot_set(ctx, best, nbest);
	}
	free(rows);
	if (rc == EXIT_OK && ok == 0)
		rc = EXIT_INFEASIBLE;
	return rc;
}
