/*
 * validate_serving.c - serving under load against published load tests:
 * each row of tests/validation/serving.csv (a fixed fleet, its engine's
 * scheduler settings, Poisson arrivals or a burst, ShareGPT lengths) is
 * written as a workload and planned with capplan's simulation; the
 * simulated median TTFT, TPOT and end-to-end latency and the throughput
 * are compared with the measured ones.
 *
 *   validate_serving DIR    (reads DIR/serving.csv)
 *
 * Fails (exit 1) on a row it cannot predict, a NaN or infinite value, a
 * file with other than the expected number of rows, or a median or worst
 * error over the targets of specs/validation.md.
 */
#include <csv.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "catalog.h"
#include "infer_plan.h"
#include "serve_fleet.h"
#include "workload.h"

#define MAX_ROWS 256
#define MAX_COLS 40
#define CELL_MAX 2048

/* Rows serving.csv holds (issue 10's 32 load-test figures). */
static const int expected_rows = 32;

/* Targets: median and worst |error| over all rows, and per metric class
   (latency: TTFT, TPOT, E2E; throughput). */
static const double target_median = 0.15;
static const double target_worst = 0.40;

struct table {
	int rows, cols;
	char *head[MAX_COLS];
	char *cell[MAX_ROWS][MAX_COLS];
	int r, c;
	int bad;
};

static void on_field(void *s, size_t len, void *data)
{
	struct table *t = data;
	char *v;

	if (t->c >= MAX_COLS || t->r > MAX_ROWS) {
		t->bad = 1;
		return;
	}
	v = malloc(len + 1);
	if (!v) {
		t->bad = 1;
		return;
	}
	memcpy(v, s, len);
	v[len] = '\0';
	if (t->r == 0)
		t->head[t->c] = v;
	else
		t->cell[t->r - 1][t->c] = v;
	t->c++;
}

static void on_row(int ch, void *data)
{
	struct table *t = data;

	(void)ch;
	if (t->r == 0)
		t->cols = t->c;
	else if (t->c != t->cols)
		t->bad = 1;
	t->c = 0;
	t->r++;
	t->rows = t->r - 1;
}

static int table_load(const char *path, struct table *t)
{
	struct csv_parser p;
	char buf[4096];
	size_t n;
	FILE *f = fopen(path, "rb");

	memset(t, 0, sizeof(*t));
	if (!f) {
		perror(path);
		return -1;
	}
	csv_init(&p, CSV_STRICT | CSV_APPEND_NULL);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		if (csv_parse(&p, buf, n, on_field, on_row, t) != n) {
			fprintf(stderr, "%s: %s\n", path,
				csv_strerror(csv_error(&p)));
			t->bad = 1;
			break;
		}
	csv_fini(&p, on_field, on_row, t);
	csv_free(&p);
	fclose(f);
	return t->bad ? -1 : 0;
}

static const char *get(const struct table *t, int row, const char *name)
{
	for (int c = 0; c < t->cols; c++)
		if (strcmp(t->head[c], name) == 0)
			return t->cell[row][c] ? t->cell[row][c] : "";
	fprintf(stderr, "serving.csv: no column '%s'\n", name);
	exit(2);
}

/* Append "key = value" to an INI buffer. */
static void put(char *ini, size_t size, const char *key, const char *value)
{
	size_t n = strlen(ini);

	snprintf(ini + n, size - n, "%s = %s\n", key, value);
}

/* The workload of one row. */
static int row_workload(const struct table *t, int i, struct workload *wl,
			struct diag *err)
{
	char ini[4096] = "[model]\n";
	const char *arrival = get(t, i, "arrival");
	int gpus = atoi(get(t, i, "gpus")), tp = atoi(get(t, i, "tp"));
	char rep[32];

	put(ini, sizeof(ini), "name", get(t, i, "case"));
	put(ini, sizeof(ini), "layers", get(t, i, "layers"));
	put(ini, sizeof(ini), "hidden", get(t, i, "hidden"));
	put(ini, sizeof(ini), "heads", get(t, i, "heads"));
	put(ini, sizeof(ini), "kv_heads", get(t, i, "kv_heads"));
	put(ini, sizeof(ini), "ffn_hidden", get(t, i, "ffn_hidden"));
	put(ini, sizeof(ini), "gated_ffn", get(t, i, "gated_ffn"));
	put(ini, sizeof(ini), "vocab", get(t, i, "vocab"));
	put(ini, sizeof(ini), "seq_len", get(t, i, "seq_len"));
	put(ini, sizeof(ini), "tied_embeddings", "false");
	strcat(ini, "[inference]\n");
	put(ini, sizeof(ini), "tp", get(t, i, "tp"));
	snprintf(rep, sizeof(rep), "%d", tp > 0 ? gpus / tp : 1);
	put(ini, sizeof(ini), "replicas", rep);
	put(ini, sizeof(ini), "weight_precision",
	    get(t, i, "weight_precision"));
	put(ini, sizeof(ini), "kv_precision", get(t, i, "kv_precision"));
	put(ini, sizeof(ini), "arrival", arrival);
	if (strcmp(arrival, "poisson") == 0)
		put(ini, sizeof(ini), "qps", get(t, i, "rate"));
	put(ini, sizeof(ini), "requests", get(t, i, "requests"));
	put(ini, sizeof(ini), "prompt_tokens", get(t, i, "prompt_tokens"));
	put(ini, sizeof(ini), "output_tokens", get(t, i, "output_tokens"));
	put(ini, sizeof(ini), "length_dist",
	    strcmp(get(t, i, "length_dist"), "ShareGPT") == 0 ?
		    "sharegpt" :
		    get(t, i, "length_dist"));
	put(ini, sizeof(ini), "chunked_prefill", get(t, i, "chunked_prefill"));
	put(ini, sizeof(ini), "max_batched_tokens",
	    get(t, i, "max_batched_tokens"));
	put(ini, sizeof(ini), "max_batch", get(t, i, "max_batch"));
	put(ini, sizeof(ini), "scheduler_steps", get(t, i, "scheduler_steps"));
	workload_init(wl);
	if (workload_parse(ini, strlen(ini), "serving.csv", wl, err) != 0 ||
	    workload_validate(wl, err) != 0)
		return -1;
	return 0;
}

/* A case name without the source's prefix, which every row shares. */
static const char *short_name(const char *name)
{
	static const char prefix[] = "sglreadme-";

	return strncmp(name, prefix, sizeof(prefix) - 1) == 0 ?
		       name + sizeof(prefix) - 1 :
		       name;
}

static double predicted(const struct infer_plan *p, const char *metric)
{
	const struct sim_result *r = &p->fleet.sim;

	if (strcmp(metric, "ttft_median_s") == 0)
		return r->ttft_p50_s;
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

/* Metric classes, each gated on its own. */
/* --residuals=FILE; NULL when not asked */
static FILE *residuals;

static int metric_class(const char *metric)
{
	if (strncmp(metric, "ttft", 4) == 0)
		return 0;
	if (strncmp(metric, "tpot", 4) == 0)
		return 1;
	if (strncmp(metric, "e2e", 3) == 0)
		return 2;
	return 3;
}

static const char *const class_names[] = { "TTFT", "TPOT", "E2E latency",
					   "throughput" };

static int gate(const char *title, double *err, int n)
{
	double sorted[MAX_ROWS], sum = 0.0;
	bool ok;

	if (n == 0) {
		printf("%-28s no rows: FAIL\n", title);
		return 1;
	}
	memcpy(sorted, err, (size_t)n * sizeof(*err));
	gsl_sort(sorted, 1, (size_t)n);
	for (int i = 0; i < n; i++)
		sum += sorted[i];
	ok = gsl_stats_median_from_sorted_data(sorted, 1, (size_t)n) <=
		     target_median &&
	     sorted[n - 1] <= target_worst;
	printf("%-28s rows %2d  mean |err| %5.1f%%  median %5.1f%%  worst "
	       "%5.1f%%  %s\n",
	       title, n, 100.0 * sum / n,
	       100.0 * gsl_stats_median_from_sorted_data(sorted, 1,
							 (size_t)n),
	       100.0 * sorted[n - 1], ok ? "ok" : "FAIL");
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	static struct table t;
	struct catalog *cat;
	struct diag err;
	char path[1024];
	double all[MAX_ROWS], cls[4][MAX_ROWS];
	int ncls[4] = { 0, 0, 0, 0 }, nall = 0, fails = 0;

	gsl_set_error_handler_off();
	if (argc == 3 && strncmp(argv[2], "--residuals=", 12) == 0) {
		/* one "CLASS LOG_RATIO GPU" line per row, as validate's */
		residuals = fopen(argv[2] + 12, "w");
		if (!residuals) {
			perror(argv[2] + 12);
			return 2;
		}
	} else if (argc != 2) {
		fprintf(stderr,
			"usage: validate_serving DIR [--residuals=FILE]\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/serving.csv", argv[1]);
	diag_clear(&err);
	if (table_load(path, &t) != 0 || catalog_load_default(&cat, &err) != 0)
		return 1;
	printf("serving under load (%s)\n", path);
	printf("%-46s %-24s %9s %9s %7s\n", "case", "metric", "measured",
	       "predicted", "error");
	for (int i = 0; i < t.rows; i++) {
		struct workload wl;
		struct infer_plan p;
		const struct gpu_spec *g;
		const char *metric = get(&t, i, "metric");
		double m = strtod(get(&t, i, "measured"), NULL), v, e;

		diag_clear(&err);
		g = catalog_find(cat, get(&t, i, "gpu"), &err);
		if (!g || row_workload(&t, i, &wl, &err) != 0 ||
		    infer_plan_make(&wl, g, &p, &err) != 0) {
			printf("%-46s cannot plan: %s\n", get(&t, i, "case"),
			       err.msg);
			fails++;
			continue;
		}
		v = p.simulated ? predicted(&p, metric) : (double)NAN;
		e = (v - m) / m;
		printf("%-46.46s %-24s %9.4g %9.4g %+6.1f%%\n",
		       short_name(get(&t, i, "case")), metric, m, v,
		       100.0 * e);
		if (!isfinite(e) || !(m > 0.0)) {
			printf("  not finite: FAIL\n");
			fails++;
			continue;
		}
		if (residuals) {
			/* ln(measured / predicted) of the rate: latencies are
			   inverted (the E2E latency has no class of its own) */
			static const char *const iv[] = { "ttft", "tpot", NULL,
							  "throughput" };
			int c = metric_class(metric);

			if (iv[c])
				fprintf(residuals, "%s %.6f %s\n", iv[c],
					c == 3 ? log(m / v) : log(v / m),
					get(&t, i, "gpu"));
		}
		all[nall++] = fabs(e);
		cls[metric_class(metric)][ncls[metric_class(metric)]++] =
			fabs(e);
	}
	if (t.rows != expected_rows) {
		printf("%s: %d rows, expected %d: FAIL\n", path, t.rows,
		       expected_rows);
		fails++;
	}
	for (int c = 0; c < 4; c++)
		fails += gate(class_names[c], cls[c], ncls[c]);
	fails += gate("serving, all rows", all, nall);
	catalog_free(cat);
	if (residuals && fclose(residuals) != 0) {
		perror("validate_serving: --residuals");
		return 2;
	}
	printf("%s\n", fails ? "serving targets missed" :
			       "serving targets met");
	return fails ? 1 : 0;
}
