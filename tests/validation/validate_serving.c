/*
 * validate_serving.c - serving under load against published load tests:
 * each row (a fixed fleet, its engine's scheduler settings, Poisson
 * arrivals, a closed loop of clients or a burst, ShareGPT or fixed
 * lengths) is written as a workload and planned with capplan's
 * simulation; the simulated median TTFT, TPOT and end-to-end latency and
 * the throughput are compared with the measured ones.  Two files:
 *
 *   DIR/serving.csv          the rows the per-kernel overhead and the front
 *                            end's time per request were fitted on
 *   DIR/serving-holdout.csv  other engines, versions, GPUs, models and
 *                            loads, not used to fit anything
 *
 *   validate_serving DIR [--residuals=FILE]
 *
 * --residuals writes both files' log-errors for the interval table, each
 * line tagged with its file (intervals --check gives the coverage of each
 * file's rows by the bands made without them).  Fails (exit 1) on a row it cannot
 * predict, a NaN or infinite value, a file or a metric class with other
 * than its expected number of rows, or a median or worst error over the
 * limits of specs/validation.md ("Serving under load").
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "catalog.h"
#include "engine_limits.h"
#include "stack.h"
#include "table.h"
#include "infer_plan.h"
#include "interval.h"
#include "serve_fleet.h"
#include "workload.h"

#define MAX_ROWS TABLE_MAX_ROWS
#define CELL_MAX 2048

/* Metric classes, each gated on its own: TTFT, TPOT, E2E latency,
   throughput (requests/s, output tokens/s), a metric with prefix caching
   over the same without it ("..._ratio_cached"), the prefix-cache hit
   rate. */
#define CLASSES 6

/* The rows of a class (0: the file has none) and the limits on its median
   and worst |error| (fractions). */
struct limit {
	int rows;
	double median_max, worst_max;
};

struct serving_set {
	const char *file;
	const char *title;
	const char *kind;   /* the limits' kind: "target" or "guard" */
	int rows;           /* rows the file must have */
	struct limit cls[CLASSES];
	struct limit all;
};

/* specs/validation.md, "Serving under load", lists these limits. */
static const struct serving_set sets[] = {
	{ "serving.csv", "serving under load, calibration set (the 7 us "
	  "kernel overhead and the 10 ms front end were fitted on these "
	  "rows)", "target", 32,
	  { { 8, 0.15, 0.40 }, { 8, 0.15, 0.40 }, { 8, 0.15, 0.40 },
	    { 8, 0.15, 0.40 } },
	  { 32, 0.15, 0.40 } },
	{ "serving-holdout.csv", "serving under load, holdout (other "
	  "engines, GPUs, models and loads; not used to fit)", "guard", 54,
	  { { 12, 0.545, 0.895 }, { 11, 0.185, 0.37 }, { 0, 0.0, 0.0 },
	    { 31, 0.165, 1.31 } },
	  { 54, 0.19, 1.31 } },
	{ "serving-prefix.csv", "prefix caching: shared prefixes and "
	  "sessions, ratios with and without the cache and hit rates (issue "
	  "41; not used to fit)", "target over all rows (issue 41), guards "
	  "per class", 6,
	  { { 0, 0.0, 0.0 }, { 0, 0.0, 0.0 }, { 0, 0.0, 0.0 },
	    { 0, 0.0, 0.0 }, { 4, 0.025, 0.05 }, { 2, 0.02, 0.025 } },
	  { 6, 0.15, 0.40 } },
};


static const char *get(const struct table *t, int row, const char *name)
{
	const char *v = table_cell(t, row, name);

	if (!v) {
		fprintf(stderr, "validate_serving: no column '%s'\n", name);
		exit(2);
	}
	return v;
}

/* Append "key = value" to an INI buffer. */
static void put(char *ini, size_t size, const char *key, const char *value)
{
	size_t n = strlen(ini);

	snprintf(ini + n, size - n, "%s = %s\n", key, value);
}

/* Optional [inference] columns: written as the key of the same name when
   the file has the column and the row's cell is not empty (empty: the
   workload's default). */
static const char *const optional_keys[] = {
	"host_request_overhead", "turns", "think_time", "turn_tokens",
	"shared_prefix_tokens", "prefix_caching", "routing",
};

/* The scheduler columns a row gives, and an engine's stack row with its
   rule for the device must give the same (check_stack). */
static const char *const scheduler_keys[] = {
	"chunked_prefill", "max_batched_tokens", "max_batch",
	"scheduler_steps",
};

/*
 * A row that names its engine's stack (column 'stack', "vllm@0.11"):
 * the embedded stack table's row, with its rule for the row's device and
 * tp (engine_limits.h), must give the scheduler settings the row's
 * source states, which the row's columns record; else an error naming
 * the first that differs.  The plan then runs on the stack's values:
 * the engine named, as a user names it.
 */
static int check_stack(const struct table *t, int i, const struct gpu_spec *g,
		       const struct workload *wl, struct diag *err)
{
	struct engine_limits el;
	int want[4], got[4];

	engine_limits_on(wl, g, wl->inference.tp, &el);
	want[0] = strcmp(get(t, i, "chunked_prefill"), "true") == 0;
	got[0] = wl->inference.chunked_prefill;
	want[1] = atoi(get(t, i, "max_batched_tokens"));
	got[1] = el.max_batched_tokens;
	want[2] = atoi(get(t, i, "max_batch"));
	got[2] = el.max_batch;
	want[3] = atoi(get(t, i, "scheduler_steps"));
	got[3] = wl->inference.scheduler_steps;
	for (int k = 0; k < 4; k++)
		if (want[k] != got[k])
			return diag_set(err, get(t, i, "case"), 0, 0,
					"stack '%s' on %s gives %s %d, the row "
					"%d", get(t, i, "stack"), g->name,
					scheduler_keys[k], got[k], want[k]);
	return 0;
}

/* The embedded stack table, read once. */
static struct stack_table stacks;
static bool have_stacks;

/* The workload of one row on 'g'; 'caching' ("true" or "false") sets
   inference.prefix_caching instead of the row's column, NULL keeps it.
   A row with a 'stack' names its engine and takes the scheduler settings
   from it (check_stack); the others give them as keys. */
static int row_workload(const struct table *t, int i,
			const struct gpu_spec *g, const char *caching,
			struct workload *wl, char *ini, size_t size,
			struct diag *err)
{
	const char *stack = table_cell(t, i, "stack");
	bool named = stack && stack[0];
	const char *arrival = get(t, i, "arrival");
	const char *head_dim = table_cell(t, i, "head_dim");
	int gpus = atoi(get(t, i, "gpus")), tp = atoi(get(t, i, "tp"));
	char rep[32];

	snprintf(ini, size, "[model]\n");
	put(ini, size, "name", get(t, i, "case"));
	put(ini, size, "layers", get(t, i, "layers"));
	put(ini, size, "hidden", get(t, i, "hidden"));
	put(ini, size, "heads", get(t, i, "heads"));
	put(ini, size, "kv_heads", get(t, i, "kv_heads"));
	if (head_dim && head_dim[0])
		put(ini, size, "head_dim", head_dim);
	put(ini, size, "ffn_hidden", get(t, i, "ffn_hidden"));
	put(ini, size, "gated_ffn", get(t, i, "gated_ffn"));
	put(ini, size, "vocab", get(t, i, "vocab"));
	put(ini, size, "seq_len", get(t, i, "seq_len"));
	put(ini, size, "tied_embeddings", "false");
	strcat(ini, "[inference]\n");
	put(ini, size, "tp", get(t, i, "tp"));
	snprintf(rep, sizeof(rep), "%d", tp > 0 ? gpus / tp : 1);
	put(ini, size, "replicas", rep);
	put(ini, size, "weight_precision",
	    get(t, i, "weight_precision"));
	put(ini, size, "kv_precision", get(t, i, "kv_precision"));
	put(ini, size, "arrival", arrival);
	if (strcmp(arrival, "poisson") == 0)
		put(ini, size, "qps", get(t, i, "rate"));
	else if (strcmp(arrival, "closed") == 0)
		put(ini, size, "concurrency", get(t, i, "concurrency"));
	put(ini, size, "requests", get(t, i, "requests"));
	put(ini, size, "prompt_tokens", get(t, i, "prompt_tokens"));
	put(ini, size, "output_tokens", get(t, i, "output_tokens"));
	put(ini, size, "length_dist",
	    strcmp(get(t, i, "length_dist"), "ShareGPT") == 0 ?
		    "sharegpt" :
		    get(t, i, "length_dist"));
	if (named)
		put(ini, size, "engine", stack);
	else
		for (size_t k = 0;
		     k < sizeof(scheduler_keys) / sizeof(*scheduler_keys); k++)
			put(ini, size, scheduler_keys[k],
			    get(t, i, scheduler_keys[k]));
	for (size_t k = 0; k < sizeof(optional_keys) / sizeof(*optional_keys);
	     k++) {
		const char *v = table_cell(t, i, optional_keys[k]);

		if (caching && strcmp(optional_keys[k], "prefix_caching") == 0)
			v = caching;
		if (v && v[0])
			put(ini, size, optional_keys[k], v);
	}
	if (caching && !table_cell(t, i, "prefix_caching"))
		put(ini, size, "prefix_caching", caching);
	workload_init(wl);
	if (workload_parse(ini, strlen(ini), "serving.csv", wl, err) != 0)
		return -1;
	if (named) {
		if (!have_stacks) {
			if (stack_load_default(&stacks, err) != 0)
				return -1;
			have_stacks = true;
		}
		if (stack_apply(&stacks, wl, err) != 0 ||
		    check_stack(t, i, g, wl, err) != 0)
			return -1;
	}
	return workload_validate(wl, err);
}

/* --measurements=FILE: every row as a measurement of 'capplan calibrate'
   (tests/validation/calibration.py); NULL: not asked. */
static FILE *measurements;

/* The workload text of a row as --set pairs "section.key=value;..."
   (its name left out). */
static void ini_to_set(const char *ini, char *set, size_t size)
{
	char section[32] = "", line[512];
	size_t at = 0;

	set[0] = '\0';
	while (*ini) {
		size_t n = strcspn(ini, "\n");
		char *eq;

		snprintf(line, sizeof(line), "%.*s", (int)n, ini);
		ini += n + (ini[n] == '\n');
		if (line[0] == '[') {
			snprintf(section, sizeof(section), "%.*s",
				 (int)strcspn(line + 1, "]"), line + 1);
			continue;
		}
		eq = strstr(line, " = ");
		if (!eq || strncmp(line, "name ", 5) == 0)
			continue;
		*eq = '\0';
		at += (size_t)snprintf(set + at, size - at, "%s%s.%s=%s",
				       at ? ";" : "", section, line, eq + 3);
		if (at >= size)
			at = size - 1;
	}
}

/* Write row 'i' as a measurement; its group is the file, the source's tag
   (the case name up to its first '-'), the device and the engine. */
static void emit_measurement(const struct table *t, int i, const char *file,
			     const char *ini)
{
	static const struct {
		const char *row, *json;
	} metrics[] = {
		{ "ttft_median_s", "ttft_p50_s" },
		{ "tpot_median_s", "tpot_p50_s" },
		{ "request_throughput_per_s", "request_throughput_per_s" },
		{ "output_tokens_per_s", "output_tokens_per_s" },
	};
	const char *name = get(t, i, "case");
	const char *dash = strchr(name, '-');
	int tag = dash ? (int)(dash - name) : (int)strlen(name);
	char set[4096];

	if (!measurements)
		return;
	for (size_t k = 0; k < sizeof(metrics) / sizeof(metrics[0]); k++) {
		if (strcmp(metrics[k].row, get(t, i, "metric")) != 0)
			continue;
		ini_to_set(ini, set, sizeof(set));
		fprintf(measurements,
			"infer,base.ini,%s,,\"%s\",%s,%s,%s:%.*s:%s:%s,%s\n",
			get(t, i, "gpu"), set, metrics[k].json,
			get(t, i, "measured"), file, tag, name,
			get(t, i, "gpu"), get(t, i, "engine"), name);
	}
}

/* A case name without its source's tag (the text up to the first '-'). */
static const char *short_name(const char *name)
{
	const char *dash = strchr(name, '-');

	return dash && dash[1] ? dash + 1 : name;
}

static double predicted(const struct infer_plan *p, const char *metric)
{
	const struct sim_result *r = &p->fleet.sim;

	if (strcmp(metric, "ttft_median_s") == 0)
		return r->ttft_p50_s;
	if (strcmp(metric, "ttft_mean_s") == 0)
		return r->ttft_mean_s;
	if (strcmp(metric, "tpot_mean_s") == 0)
		return r->tpot_mean_s;
	if (strcmp(metric, "prefix_hit_rate") == 0)
		return r->prefix_hit_rate;
	if (strcmp(metric, "tpot_median_s") == 0)
		return r->tpot_p50_s;
	if (strcmp(metric, "e2e_median_s") == 0)
		return r->e2e_p50_s;
	if (strcmp(metric, "request_throughput_per_s") == 0)
		return r->request_throughput_per_s;
	if (strcmp(metric, "output_tokens_per_s") == 0)
		return r->output_tokens_per_s;
	return NAN;
}

/* Metrics that are ratios: the metric 'of' planned with prefix caching
   over the same planned without it, on the row's workload. */
static const struct {
	const char *name, *of;
} ratio_metrics[] = {
	{ "ttft_mean_ratio_cached", "ttft_mean_s" },
	{ "ttft_median_ratio_cached", "ttft_median_s" },
	{ "tpot_mean_ratio_cached", "tpot_mean_s" },
	{ "tpot_median_ratio_cached", "tpot_median_s" },
	{ "request_throughput_ratio_cached", "request_throughput_per_s" },
	{ "output_tokens_ratio_cached", "output_tokens_per_s" },
};

/* The metric a ratio metric divides, or NULL when 'metric' is none. */
static const char *ratio_of(const char *metric)
{
	for (size_t k = 0; k < sizeof(ratio_metrics) / sizeof(*ratio_metrics);
	     k++)
		if (strcmp(metric, ratio_metrics[k].name) == 0)
			return ratio_metrics[k].of;
	return NULL;
}

/* --residuals=FILE; NULL when not asked */
static FILE *residuals;

static int metric_class(const char *metric)
{
	if (ratio_of(metric))
		return 4;
	if (strcmp(metric, "prefix_hit_rate") == 0)
		return 5;
	if (strncmp(metric, "ttft", 4) == 0)
		return 0;
	if (strncmp(metric, "tpot", 4) == 0)
		return 1;
	if (strncmp(metric, "e2e", 3) == 0)
		return 2;
	return 3;
}

static const char *const class_names[] = { "TTFT",	    "TPOT",
					   "E2E latency",   "throughput",
					   "cache ratio",   "hit rate" };

/* Print a class's errors against its limits; 0 when within them. */
static int gate(const char *title, const struct limit *lim, double *err,
		int n)
{
	double sorted[MAX_ROWS], sum = 0.0, median;
	bool ok;

	if (n != lim->rows) {
		printf("%-12s rows %2d, expected %d: FAIL\n", title, n,
		       lim->rows);
		return 1;
	}
	if (n == 0)
		return 0;
	memcpy(sorted, err, (size_t)n * sizeof(*err));
	gsl_sort(sorted, 1, (size_t)n);
	for (int i = 0; i < n; i++)
		sum += sorted[i];
	median = gsl_stats_median_from_sorted_data(sorted, 1, (size_t)n);
	/* written so that NaN fails */
	ok = median <= lim->median_max && sorted[n - 1] <= lim->worst_max;
	printf("%-12s rows %2d  mean |err| %5.1f%%  median %5.1f%% (limit "
	       "%4.1f%%)  worst %5.1f%% (limit %5.1f%%)  %s\n",
	       title, n, 100.0 * sum / n, 100.0 * median,
	       100.0 * lim->median_max, 100.0 * sorted[n - 1],
	       100.0 * lim->worst_max, ok ? "ok" : "FAIL");
	return ok ? 0 : 1;
}

/* The interval class of a metric class, or -1 (the E2E latency, the
   ratios and the hit rate have none: the intervals are of absolute
   predictions). */
static int interval_class_of(int c)
{
	static const int iv[CLASSES] = { INTERVAL_TTFT, INTERVAL_TPOT, -1,
					 INTERVAL_THROUGHPUT, -1, -1 };

	return iv[c];
}

/* Predict row 'i' on 'g' into '*v' (NaN when a plan has no simulation):
   one plan, or for a ratio metric two, with prefix caching and without,
   the row's prefix_caching column left empty.  'ini' gets the workload
   text of the (first) plan.  Returns 0, or -1 with a message in 'err'. */
static int predict_row(const struct table *t, int i,
		       const struct gpu_spec *g, char *ini, size_t size,
		       double *v, struct diag *err)
{
	const char *metric = get(t, i, "metric");
	const char *of = ratio_of(metric);
	const char *col = table_cell(t, i, "prefix_caching");
	char off_ini[4096];
	struct workload wl;
	struct infer_plan p;
	double with;

	*v = NAN;
	if (!of) {
		if (row_workload(t, i, g, NULL, &wl, ini, size, err) != 0 ||
		    infer_plan_make(&wl, g, &p, err) != 0)
			return -1;
		*v = p.simulated ? predicted(&p, metric) : (double)NAN;
		return 0;
	}
	if (col && col[0])
		return diag_set(err, get(t, i, "case"), 0, 0,
				"'%s' compares prefix caching on and off: "
				"leave 'prefix_caching' empty, got '%s'",
				metric, col);
	if (row_workload(t, i, g, "true", &wl, ini, size, err) != 0 ||
	    infer_plan_make(&wl, g, &p, err) != 0)
		return -1;
	with = p.simulated ? predicted(&p, of) : (double)NAN;
	if (row_workload(t, i, g, "false", &wl, off_ini, sizeof(off_ini),
			 err) !=
		    0 ||
	    infer_plan_make(&wl, g, &p, err) != 0)
		return -1;
	*v = p.simulated ? with / predicted(&p, of) : (double)NAN;
	return 0;
}

/* Predict, print and gate the rows of one file; the number of failures. */
static int run_set(const char *dir, const struct serving_set *s,
		   const struct catalog *cat)
{
	static struct table t;
	struct diag err;
	char path[1024];
	double all[MAX_ROWS], cls[CLASSES][MAX_ROWS];
	int ncls[CLASSES] = { 0 }, nall = 0, fails = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, s->file);
	if (table_load(path, &t) != 0) {
		table_free(&t);
		return -1;
	}
	printf("%s (%s)\n", s->title, path);
	printf("%-46s %-31s %9s %9s %7s\n", "case", "metric", "measured",
	       "predicted", "error");
	for (int i = 0; i < t.rows; i++) {
		const struct gpu_spec *g;
		char ini[4096];
		const char *metric = get(&t, i, "metric");
		double m = strtod(get(&t, i, "measured"), NULL), v, e;
		int c = metric_class(metric), ic = interval_class_of(c);

		diag_clear(&err);
		g = catalog_find(cat, get(&t, i, "gpu"), &err);
		if (!g ||
		    predict_row(&t, i, g, ini, sizeof(ini), &v, &err) != 0) {
			printf("%-46s cannot plan: %s\n", get(&t, i, "case"),
			       err.msg);
			fails++;
			continue;
		}
		emit_measurement(&t, i, s->file, ini);
		e = (v - m) / m;
		printf("%-46.46s %-31s %9.4g %9.4g %+6.1f%%\n",
		       short_name(get(&t, i, "case")), metric, m, v,
		       100.0 * e);
		if (!isfinite(e) || !(m > 0.0)) {
			printf("  not finite: FAIL\n");
			fails++;
			continue;
		}
		if (residuals && ic >= 0)
			/* ln(measured / predicted) of the rate: latencies are
			   inverted; no fixed batch under a load (0) */
			fprintf(residuals, "%s %.6f %s %s 0\n",
				c == 0 ? "ttft" : c == 1 ? "tpot" :
							 "throughput",
				c == 3 ? log(m / v) : log(v / m),
				get(&t, i, "gpu"), s->file);
		all[nall++] = fabs(e);
		cls[c][ncls[c]++] = fabs(e);
	}
	if (t.rows != s->rows) {
		printf("%s: %d rows, expected %d: FAIL\n", path, t.rows,
		       s->rows);
		fails++;
	}
	printf("limits (%s):\n", s->kind);
	for (int c = 0; c < CLASSES; c++)
		fails += gate(class_names[c], &s->cls[c], cls[c], ncls[c]);
	fails += gate("all rows", &s->all, all, nall);
	table_free(&t);
	printf("\n");
	return fails;
}

int main(int argc, char **argv)
{
	struct catalog *cat;
	struct diag err;
	int fails = 0;

	gsl_set_error_handler_off();
	if (argc == 3 && strncmp(argv[2], "--measurements=", 15) == 0) {
		measurements = fopen(argv[2] + 15, "w");
		if (!measurements) {
			perror(argv[2] + 15);
			return 2;
		}
		fputs("command,workload,gpu,gpus,set,metric,measured,group,"
		      "case\n", measurements);
	} else if (argc == 3 && strncmp(argv[2], "--residuals=", 12) == 0) {
		/* one "CLASS LOG_RATIO GPU SOURCE" line per row, as
		   validate's */
		residuals = fopen(argv[2] + 12, "w");
		if (!residuals) {
			perror(argv[2] + 12);
			return 2;
		}
	} else if (argc != 2) {
		fprintf(stderr,
			"usage: validate_serving DIR [--residuals=FILE | "
			"--measurements=FILE]\n");
		return 2;
	}
	diag_clear(&err);
	if (catalog_load_default(&cat, &err) != 0)
		return 1;
	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		int f = run_set(argv[1], &sets[i], cat);

		if (f < 0) {
			catalog_free(cat);
			return 1;
		}
		fails += f;
	}
	catalog_free(cat);
	if (have_stacks)
		stack_release(&stacks);
	if (measurements && fclose(measurements) != 0) {
		perror("validate_serving: --measurements");
		return 2;
	}
	if (residuals && fclose(residuals) != 0) {
		perror("validate_serving: --residuals");
		return 2;
	}
	printf("%s\n", fails ? "serving targets missed" :
			       "serving targets met");
	return fails ? 1 : 0;
}
