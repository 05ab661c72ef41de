/*
 * validate_ep.c - wide expert-parallel serving against published
 * figures: DeepSeek-V3/R1 and other frontier mixtures of experts served
 * with expert parallelism over 8-144 GPUs, attention data-parallel,
 * prefill and decode in pools of their own (specs/models.md 10.9.24).
 * Each row of DIR/serving-wide-ep.csv is one step of a pool at the batch
 * the source states, timed by capplan's step model (infer_step_s, the
 * model the simulation runs):
 *
 *   decode    batch_per_gpu sequences on each GPU at context_tokens (or
 *             prompt + output / 2), with multi-token prediction when
 *             mtp_tokens is given: output tokens/s per GPU, per user, or
 *             the time per output token
 *   prefill   batch_per_gpu prompt tokens on each GPU in one step, whole
 *             prompts of prompt_tokens: input tokens/s per GPU, or the
 *             step's time as the time to first token
 *
 *   validate_ep DIR
 *
 * Prints each row's error and the median and worst |error|; fails (exit
 * 1) on a row it cannot predict, a non-finite value, another number of
 * rows than expected, or errors over the limits of specs/validation.md
 * ("Wide expert parallelism").
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "catalog.h"
#include "table.h"
#include "cluster.h"
#include "model_ep.h"
#include "model_infer.h"
#include "workload.h"

#define MAX_ROWS TABLE_MAX_ROWS

/* A file of rows and its limits (specs/validation.md, "Wide expert
   parallelism"). */
struct ep_set {
	const char *file;
	const char *title;
	int rows;                      /* rows the file must have */
	double median_max, worst_max;  /* |error|, fractions */
};


/* The cell of column 'name'; "" when the file has no such column. */
static const char *opt(const struct table *t, int row, const char *name)
{
	const char *v = table_cell(t, row, name);

	return v ? v : "";
}

static const char *get(const struct table *t, int row, const char *name)
{
	const char *v = table_cell(t, row, name);

	if (v)
		return v;
	fprintf(stderr, "validate_ep: no column '%s'\n", name);
	exit(2);
}

/* A number cell; 'dflt' when empty. */
static double num(const struct table *t, int row, const char *name,
		  double dflt)
{
	const char *v = get(t, row, name);

	return v[0] ? atof(v) : dflt;
}

static bool truth(const struct table *t, int row, const char *name)
{
	const char *v = get(t, row, name);

	return strcasecmp(v, "true") == 0 || strcmp(v, "1") == 0;
}

/* Append "key = value" to an INI buffer. */
static void put(char *ini, size_t size, const char *key, const char *value)
{
	size_t n = strlen(ini);

	snprintf(ini + n, size - n, "%s = %s\n", key, value);
}

/* The workload of row 'i': the model's Hugging Face config, the
   replica's layout and formats. */
static int row_workload(const char *dir, const struct table *t, int i,
			struct workload *wl, struct diag *err)
{
	char ini[2048], path[1024];

	const char *w = get(t, i, "weight_precision");
	int gpus = atoi(get(t, i, "gpus")), tp = atoi(get(t, i, "tp"));
	int ep = atoi(get(t, i, "ep"));

	snprintf(ini, sizeof(ini), "[inference]\n");
	put(ini, sizeof(ini), "tp", get(t, i, "tp"));
	/* TensorRT-LLM's moe_ep_size inside a tensor-parallel group (tp x
	   ep above the row's GPUs): the experts stay on the tp GPUs, which
	   capplan times as experts split over them (ep 1) */
	put(ini, sizeof(ini), "ep",
	    (long)tp * ep > gpus ? "1" : get(t, i, "ep"));
	/* NVIDIA's NVFP4 and the OCP MXFP4 are fp4 with their scales */
	if (strcmp(w, "nvfp4") == 0 || strcmp(w, "mxfp4") == 0) {
		put(ini, sizeof(ini), "weight_precision", "fp4");
		put(ini, sizeof(ini), "fp4_format", w);
	} else {
		put(ini, sizeof(ini), "weight_precision", w);
	}
	if (get(t, i, "kv_precision")[0])
		put(ini, sizeof(ini), "kv_precision",
		    get(t, i, "kv_precision"));
	/* a decode row may give only the context its steps read */
	put(ini, sizeof(ini), "prompt_tokens",
	    get(t, i, "prompt_tokens")[0] ? get(t, i, "prompt_tokens") :
					    get(t, i, "context_tokens"));
	put(ini, sizeof(ini), "output_tokens",
	    get(t, i, "output_tokens")[0] ? get(t, i, "output_tokens") : "1");
	if (opt(t, i, "redundant_experts")[0])
		put(ini, sizeof(ini), "redundant_experts",
		    opt(t, i, "redundant_experts"));
	if (truth(t, i, "two_batch_overlap"))
		put(ini, sizeof(ini), "ep_comm_overlap", "true");
	workload_init(wl);
	snprintf(path, sizeof(path), "%s/../../examples/hf/%s.json", dir,
		 get(t, i, "model"));
	if (workload_parse(ini, strlen(ini), "serving-wide-ep.csv", wl,
			   err) != 0 ||
	    workload_apply_hf_config(wl, path, err) != 0 ||
	    workload_validate(wl, err) != 0)
		return -1;
	return 0;
}

/* The predicted value of row 'i'; NAN when it cannot be predicted. */
static double predict(const char *dir, const struct table *t, int i,
		      const struct catalog *cat)
{
	struct workload wl;
	struct diag err;
	struct arch a;
	struct cluster cl;
	struct infer_config c;
	static struct infer_step_model m; /* its memo is large */
	const struct gpu_spec *g;
	const char *metric = get(t, i, "metric");
	bool decode = strcmp(get(t, i, "role"), "decode") == 0;
	double gpus, per_gpu, p, step_s, tokens_per_step = 1.0;

	diag_clear(&err);
	if (row_workload(dir, t, i, &wl, &err) != 0 ||
	    !(g = catalog_find(cat, get(t, i, "gpu"), &err)) ||
	    arch_from_spec(&wl.model, &a) != 0 ||
	    cluster_resolve(&wl.cluster, g, &cl, &err) != 0) {
		fprintf(stderr, "validate_ep: %s: ", get(t, i, "case"));
		diag_print(stderr, &err);
		return NAN;
	}
	memset(&c, 0, sizeof(c));
	c.tp = wl.inference.tp;
	c.ep = wl.inference.ep;
	c.weight_precision = wl.inference.weight_precision;
	c.kv_precision = wl.inference.kv_precision;
	c.prompt_tokens = wl.inference.prompt_tokens;
	c.output_tokens = wl.inference.output_tokens;
	c.redundant_experts = wl.inference.redundant_experts;
	c.ep_comm_overlap = wl.inference.ep_comm_overlap;
	c.mxfp4 = wl.inference.fp4_format == 1;
	c.kernel_overhead_s = wl.inference.kernel_overhead_s;
	c.batch = 1;
	if (infer_step_model_init(&m, &a, &c, g, &cl,
				  wl.inference.kernel_overhead_s) != 0) {
		fprintf(stderr, "validate_ep: %s: no usable precision\n",
			get(t, i, "case"));
		return NAN;
	}
	gpus = (double)infer_gpus_per_replica(&c);
	per_gpu = num(t, i, "batch_per_gpu", 0.0);
	p = c.prompt_tokens;
	if (!(per_gpu > 0.0)) {
		fprintf(stderr, "validate_ep: %s: no batch_per_gpu\n",
			get(t, i, "case"));
		return NAN;
	}
	if (strcmp(get(t, i, "role"), "both") == 0) {
		/* an offline run of the whole batch on one replica
		   (trtllm-bench): its output tokens over the time it takes */
		struct infer_result r;

		c.batch = (int)(per_gpu * gpus);
		if (infer_evaluate(&a, &c, g, &cl, &r) != 0)
			return NAN;
		if (strcmp(metric, "output_tokens_per_s_per_gpu") == 0)
			return r.throughput_tokens_per_s_per_gpu;
		fprintf(stderr, "validate_ep: %s: metric '%s' is not one for "
			"an aggregated row\n", get(t, i, "case"), metric);
		return NAN;
	}
	if (decode) {
		double ctx = num(t, i, "context_tokens",
				 p + 0.5 * c.output_tokens);
		double seqs = per_gpu * gpus;
		double drafts = num(t, i, "mtp_tokens", 0.0);
		double acc = num(t, i, "acceptance_rate", 0.0);
		struct sim_mix x = { 0.0, 0.0, 0.0, seqs, seqs * ctx, seqs,
				     0.0 };
		double t_dec = infer_step_s(&m, &x);

		step_s = t_dec;
		if (drafts > 0.0 && !(acc > 0.0)) {
			fprintf(stderr, "validate_ep: %s: mtp_tokens without "
				"an acceptance_rate\n", get(t, i, "case"));
			return NAN;
		}
		if (drafts > 0.0) {
			/* 10.9.17 with the MTP modules' cost (10.9.24):
			   verify the drafts, then draft them */
			double r = (double)wl.model.mtp_layers / a.layers;

			x.verify_tokens = seqs * drafts;
			step_s = infer_step_s(&m, &x) + r * drafts * t_dec;
			tokens_per_step = acc < 1.0 ?
						  (1.0 - pow(acc, drafts + 1.0)) /
							  (1.0 - acc) :
						  drafts + 1.0;
		}
	} else {
		double tokens = per_gpu * gpus, seqs = tokens / p;
		struct sim_mix x = { tokens, seqs * 0.5 * p * p, seqs, 0.0,
				     0.0, seqs, 0.0 };

		step_s = infer_step_s(&m, &x);
	}
	if (strcmp(metric, "output_tokens_per_s_per_gpu") == 0 && decode)
		return per_gpu * tokens_per_step / step_s;
	if (strcmp(metric, "output_tokens_per_s_per_user") == 0 && decode)
		return tokens_per_step / step_s;
	if (strcmp(metric, "tpot_s") == 0 && decode)
		return step_s / tokens_per_step;
	if (strcmp(metric, "input_tokens_per_s_per_gpu") == 0 && !decode)
		return per_gpu / step_s;
	if (strcmp(metric, "ttft_s") == 0 && !decode)
		return step_s;
	fprintf(stderr, "validate_ep: %s: metric '%s' is not one for a %s "
		"row\n", get(t, i, "case"), metric,
		decode ? "decode" : "prefill");
	return NAN;
}

/* The predicted latency of an all-to-all row: one pass of DeepEP's
   low-latency kernels (each copy straight to its expert's GPU). */
static double predict_a2a(const char *dir, const struct table *t, int i,
			  const struct catalog *cat)
{
	struct workload wl;
	struct cluster cl;
	struct diag err;
	const struct gpu_spec *g;
	struct ep_traffic x;
	bool dispatch = strcmp(get(t, i, "pass"), "dispatch") == 0;

	(void)dir;
	diag_clear(&err);
	workload_init(&wl);
	if (!(g = catalog_find(cat, get(t, i, "gpu"), &err)) ||
	    cluster_resolve(&wl.cluster, g, &cl, &err) != 0 ||
	    strcmp(get(t, i, "metric"), "latency_s") != 0 ||
	    strcmp(get(t, i, "kernel"), "low_latency") != 0) {
		fprintf(stderr, "validate_ep: %s: not a row it can predict\n",
			get(t, i, "case"));
		return NAN;
	}
	x.gpus = atoi(get(t, i, "ep"));
	x.tokens_gpu = num(t, i, "tokens_per_gpu", 0.0);
	x.copies = num(t, i, "topk", 0.0);
	x.hidden = num(t, i, "hidden", 0.0);
	x.dispatch_bytes = 1.0 + 4.0 / 128.0; /* fp8, a scale per 128 */
	x.combine_bytes = 2.0;                /* bf16 */
	x.imbalance = 1.0; /* the benchmark routes uniformly */
	x.forward = false;
	return ep_pass_s(&cl, &x, dispatch ? x.dispatch_bytes :
					     x.combine_bytes);
}

typedef double predict_fn(const char *dir, const struct table *t, int i,
			  const struct catalog *cat);

/* Plan the rows of one set and print them; 0 when within its limits. */
static int run_set(const char *dir, const struct ep_set *set,
		   predict_fn *fn, const struct catalog *cat)
{
	struct table t;
	double abs_err[MAX_ROWS], median, worst;
	char path[1024];
	int n = 0, rc = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, set->file);
	if (table_load(path, &t) != 0) {
		table_free(&t);
		return 2;
	}
	printf("\n== %s (%s)\n", set->title, set->file);
	printf("%-44s %-28s %10s %10s %8s\n", "case", "metric", "predicted",
	       "measured", "error");
	for (int i = 0; i < t.rows; i++) {
		double pred = fn(dir, &t, i, cat);
		double meas = num(&t, i, "measured", NAN);
		double e = pred / meas - 1.0;

		if (!isfinite(pred) || !isfinite(meas) || !(meas > 0.0)) {
			fprintf(stderr, "validate_ep: %s: no prediction\n",
				get(&t, i, "case"));
			rc = 1;
			continue;
		}
		printf("%-44.44s %-28.28s %10.4g %10.4g %+7.1f%%\n",
		       get(&t, i, "case"), get(&t, i, "metric"), pred, meas,
		       100.0 * e);
		abs_err[n++] = fabs(e);
	}
	if (n == 0) {
		table_free(&t);
		return 1;
	}
	gsl_sort(abs_err, 1, (size_t)n);
	median = gsl_stats_median_from_sorted_data(abs_err, 1, (size_t)n);
	worst = abs_err[n - 1];
	printf("%d rows: median |error| %.2f%%, worst %.2f%% (limits %.0f%% / "
	       "%.0f%%)\n",
	       n, 100.0 * median, 100.0 * worst, 100.0 * set->median_max,
	       100.0 * set->worst_max);
	if (t.rows != set->rows) {
		fprintf(stderr, "validate_ep: %s: %d rows, expected %d\n",
			set->file, t.rows, set->rows);
		rc = 1;
	}
	if (median > set->median_max || worst > set->worst_max) {
		fprintf(stderr, "validate_ep: %s: over the limits\n",
			set->file);
		rc = 1;
	}
	table_free(&t);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct ep_set a2a = {
		"ep-alltoall.csv", "expert-parallel all-to-alls, DeepEP's "
		"low-latency kernels on H800 (specs/models.md 10.9.24)", 10,
		0.20, 0.30
	};
	/* issue 42's target is 15% / 40%; not met: guards at what the
	   model gives (specs/validation.md says why) */
	static const struct ep_set wide = {
		"serving-wide-ep.csv", "wide expert-parallel serving, guard "
		"(issue 42's target of 15% / 40% not met; specs/models.md "
		"10.9.24)", 17, 0.40, 1.25
	};
	struct catalog *cat = NULL;
	struct diag err;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: validate_ep DIR\n");
		return 2;
	}
	diag_clear(&err);
	if (catalog_load_default(&cat, &err) != 0) {
		diag_print(stderr, &err);
		return 2;
	}
	rc = run_set(argv[1], &a2a, predict_a2a, cat);
	rc |= run_set(argv[1], &wide, predict, cat);
	catalog_free(cat);
	return rc;
}
