/*
 * validate.c - reproduce published measurements and print the errors.
 *
 * Usage: validate DIR.  Reads DIR/training.csv and DIR/memory.csv (copied
 * from ../shared/validation with their sources, see DIR/README.md),
 * predicts each row with capplan's models on the embedded catalog and
 * prints measured, predicted and the error.  Exits 1 when an accuracy
 * target is missed:
 *   training rows: median |error| <= 10%, worst <= 20%
 *   memory rows:   every |error| <= 2%
 */
#include <csv.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "catalog.h"
#include "cluster.h"
#include "model_infer.h"
#include "model_memory.h"
#include "infer_plan.h"
#include "plan.h"
#include "model_train.h"
#include "search.h"
#include "workload.h"

#define MAX_COLS 40
#define MAX_ROWS 200
#define CELL_MAX 1024

struct table {
	int ncols, nrows;
	char head[MAX_COLS][CELL_MAX];
	char cell[MAX_ROWS][MAX_COLS][CELL_MAX];
	int col; /* parser state */
	int bad;
};

static void on_field(void *s, size_t len, void *data)
{
	struct table *t = data;
	char *dst;

	if (t->nrows >= MAX_ROWS || t->col >= MAX_COLS || len >= CELL_MAX) {
		t->bad = 1;
		return;
	}
	dst = t->ncols == 0 && t->nrows == 0 ? t->head[t->col] :
					       t->cell[t->nrows - 1][t->col];
	memcpy(dst, s, len);
	dst[len] = '\0';
	t->col++;
}

static void on_row(int c, void *data)
{
	struct table *t = data;

	(void)c;
	if (t->nrows == 0 && t->ncols == 0)
		t->ncols = t->col;
	else if (t->col != t->ncols)
		t->bad = 1;
	t->nrows++;
	t->col = 0;
}

/* Rows are 0-based after the header; nrows counts the header too. */
static struct table *table_load(const char *path)
{
	struct table *t = calloc(1, sizeof(*t));
	struct csv_parser p;
	char buf[4096];
	size_t n;
	FILE *f = fopen(path, "r");

	if (!t || !f) {
		fprintf(stderr, "validate: cannot read '%s': %s\n", path,
			strerror(errno));
		free(t);
		if (f)
			fclose(f);
		return NULL;
	}
	csv_init(&p, CSV_STRICT | CSV_APPEND_NULL);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		if (csv_parse(&p, buf, n, on_field, on_row, t) != n)
			t->bad = 1;
	csv_fini(&p, on_field, on_row, t);
	csv_free(&p);
	fclose(f);
	t->nrows--; /* the header */
	if (t->bad) {
		fprintf(stderr, "validate: '%s' is not a well-formed table\n",
			path);
		free(t);
		return NULL;
	}
	return t;
}

static const char *get(const struct table *t, int row, const char *name)
{
	for (int c = 0; c < t->ncols; c++)
		if (strcmp(t->head[c], name) == 0)
			return t->cell[row][c];
	fprintf(stderr, "validate: missing column '%s'\n", name);
	exit(2);
}

/* A cell, or NULL when the table has no such column. */
static const char *find(const struct table *t, int row, const char *name)
{
	for (int c = 0; c < t->ncols; c++)
		if (strcmp(t->head[c], name) == 0)
			return t->cell[row][c];
	return NULL;
}

/* The configuration a plan chose, for the table. */
static const char *chosen_text(const struct train_plan *p, char *buf,
			       size_t n)
{
	const struct train_config *c = &p->config;

	snprintf(buf, n, "tp%d pp%d vp%d dp%d mb%d z%d %s%s", c->tp, c->pp,
		 c->vp, c->dp, c->micro_batch, c->zero,
		 recompute_name(c->recompute),
		 p->fits ? "" : " (does not fit)");
	return buf;
}

static int geti(const struct table *t, int row, const char *name)
{
	const char *s = get(t, row, name);

	return *s ? (int)strtol(s, NULL, 10) : 0;
}

static double getd(const struct table *t, int row, const char *name)
{
	return strtod(get(t, row, name), NULL);
}

static int getb(const struct table *t, int row, const char *name)
{
	return strcasecmp(get(t, row, name), "true") == 0;
}

struct stats {
	double err[MAX_ROWS];
	int n;
};

static void report(const char *title, struct stats *s, double *median,
		   double *worst, double *mean)
{
	double sorted[MAX_ROWS];

	memcpy(sorted, s->err, sizeof(double) * (size_t)s->n);
	gsl_sort(sorted, 1, (size_t)s->n);
	*median = gsl_stats_median_from_sorted_data(sorted, 1, (size_t)s->n);
	*worst = sorted[s->n - 1];
	*mean = gsl_stats_mean(sorted, 1, (size_t)s->n);
	printf("%-34s rows %2d  mean |err| %5.2f%%  median %5.2f%%  "
	       "worst %5.2f%%\n",
	       title, s->n, 100 * *mean, 100 * *median, 100 * *worst);
}

/*
 * Predict every row of DIR/FILE.  'median_max' and 'worst_max' are the
 * accuracy targets (fractions); 'title' names the table.
 */
static int training(const char *dir, const char *file, const char *title,
		    double median_max, double worst_max,
		    const struct catalog *cat)
{
	char path[512];
	struct table *t;
	struct stats all = { .n = 0 }, kor = { .n = 0 };
	double med, worst, mean, kmed, kworst, kmean;
	int rc = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	t = table_load(path);
	if (!t)
		return 2;
	printf("%s (%s)\n", title, path);
	printf("%-28s %-24s %10s %10s %8s  %s\n", "case", "metric", "measured",
	       "predicted", "error", "chosen");
	for (int i = 0; i < t->nrows; i++) {
		/* every non-empty column that names a workload key is set
		   through the workload parser; an empty one is left to
		   capplan, exactly as in a workload file */
		static const struct {
			const char *column, *key;
		} keys[] = {
			{ "layers", "model.layers" },
			{ "hidden", "model.hidden" },
			{ "heads", "model.heads" },
			{ "kv_heads", "model.kv_heads" },
			{ "ffn_hidden", "model.ffn_hidden" },
			{ "gated_ffn", "model.gated_ffn" },
			{ "vocab", "model.vocab" },
			{ "seq_len", "model.seq_len" },
			{ "tied_embeddings", "model.tied_embeddings" },
			{ "head_dim", "model.head_dim" },
			{ "kv_lora_rank", "model.kv_lora_rank" },
			{ "q_lora_rank", "model.q_lora_rank" },
			{ "rope_head_dim", "model.rope_head_dim" },
			{ "v_head_dim", "model.v_head_dim" },
			{ "experts", "model.experts" },
			{ "experts_per_token", "model.experts_per_token" },
			{ "shared_experts", "model.shared_experts" },
			{ "expert_ffn_hidden", "model.expert_ffn_hidden" },
			{ "dense_layers", "model.dense_layers" },
			{ "ep", "training.ep" },
			{ "kind", "model.kind" },
			{ "samples", "training.samples" },
			{ "params", "model.params" },
			{ "flops_per_sample", "model.flops_per_sample" },
			{ "activation_bytes_per_sample",
			  "model.activation_bytes_per_sample" },
			{ "embedding_tables", "model.embedding_tables" },
			{ "embedding_rows", "model.embedding_rows" },
			{ "embedding_dim", "model.embedding_dim" },
			{ "embedding_precision", "model.embedding_precision" },
			{ "lookups_per_sample", "model.lookups_per_sample" },
			{ "dense_params", "model.dense_params" },
			{ "dense_flops_per_sample",
			  "model.dense_flops_per_sample" },
			{ "gpus", "training.gpus" },
			{ "tokens", "training.tokens" },
			{ "tp", "training.tp" },
			{ "pp", "training.pp" },
			{ "vp", "training.vp" },
			{ "cp", "training.cp" },
			{ "global_batch", "training.global_batch" },
			{ "micro_batch", "training.micro_batch" },
			{ "precision", "training.precision" },
			{ "recompute", "training.recompute" },
			{ "sequence_parallel", "training.sequence_parallel" },
			{ "zero", "training.zero" },
			{ "attention", "training.attention" },
			{ "dropout", "training.dropout" },
			{ "overlap_grad_reduce", "training.overlap_grad_reduce" },
		};
		struct workload wl;
		struct train_plan p;
		const struct gpu_spec *g;
		struct diag err;
		const char *metric = get(t, i, "metric");
		double measured = getd(t, i, "measured"), pred, e;
		char chosen[120];

		diag_clear(&err);
		workload_init(&wl);
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			const char *v = find(t, i, keys[k].column);
			char expr[200];

			if (!v || !*v)
				continue;
			snprintf(expr, sizeof(expr), "%s=%s", keys[k].key, v);
			if (workload_set(&wl, expr, &err) != 0) {
				diag_print(stderr, &err);
				return 2;
			}
		}
		g = catalog_find(cat, get(t, i, "gpu"), &err);
		if (g && wl.model.kind != MODEL_TRANSFORMER &&
		    (strcmp(metric, "samples_per_s_inference") == 0 ||
		     strcmp(metric, "latency_s") == 0)) {
			/* serving a per-sample model: batches of the row's
			   batch on one GPU in the row's precision */
			struct sample_serve_plan sp;

			wl.inference.batch = wl.training.global_batch;
			wl.inference.tp = 1;
			wl.inference.weight_precision = wl.training.precision;
			if (workload_validate(&wl, &err) != 0 ||
			    sample_serve_plan_make(&wl, g, &sp, &err) != 0) {
				fprintf(stderr, "validate: %s: ",
					get(t, i, "case"));
				diag_print(stderr, &err);
				return 2;
			}
			pred = strcmp(metric, "latency_s") == 0 ?
				       sp.result.latency_s :
				       sp.result.throughput_per_s;
			e = (pred - measured) / measured;
			all.err[all.n++] = fabs(e);
			printf("%-28s %-24s %10.4g %10.4g %+7.1f%%  batch %d\n",
			       get(t, i, "case"), metric, measured, pred,
			       100 * e, sp.batch);
			continue;
		}
		if (!g || workload_validate(&wl, &err) != 0 ||
		    train_plan_make(&wl, g, &p, &err) != 0) {
			fprintf(stderr, "validate: %s: ", get(t, i, "case"));
			diag_print(stderr, &err);
			return 2;
		}
		if (strcmp(metric, "hardware_tflops_per_gpu") == 0)
			pred = p.result.hw_flops_per_gpu / 1e12;
		else if (strcmp(metric, "model_tflops_per_gpu") == 0)
			pred = p.result.model_flops_per_gpu / 1e12;
		else if (strcmp(metric, "step_time_s") == 0)
			pred = p.result.time.step_s;
		else if (strcmp(metric, "tokens_per_s_per_gpu") == 0)
			pred = p.result.tokens_per_s_per_gpu;
		else if (strcmp(metric, "gpu_hours") == 0)
			pred = p.run.gpu_hours;
		else if (strcmp(metric, "samples_per_s") == 0)
			pred = p.result.tokens_per_s;
		else {
			fprintf(stderr, "validate: unknown metric '%s'\n",
				metric);
			return 2;
		}
		e = (pred - measured) / measured;
		all.err[all.n++] = fabs(e);
		if (strncmp(get(t, i, "case"), "korthikanti", 11) == 0)
			kor.err[kor.n++] = fabs(e);
		printf("%-28s %-24s %10.4g %10.4g %+7.1f%%  %s\n",
		       get(t, i, "case"), metric, measured, pred, 100 * e,
		       chosen_text(&p, chosen, sizeof(chosen)));
		if (getenv("VALIDATE_VERBOSE")) {
			const struct train_time *tm = &p.result.time;

			printf("    step %.4gs: compute %.4g tp %.4g pp %.4g "
			       "cp %.4g bubble %.4g dp %.4g optimizer %.4g "
			       "(mfu %.3f, mem %.1f GB)\n",
			       tm->step_s, tm->compute_s, tm->tp_comm_s,
			       tm->pp_comm_s, tm->cp_comm_s, tm->bubble_s,
			       tm->dp_comm_s, tm->optimizer_s, p.result.mfu,
			       p.result.memory.total_bytes / 1e9);
		}
	}
	report("all rows", &all, &med, &worst, &mean);
	if (kor.n) {
		report("Korthikanti et al. rows", &kor, &kmed, &kworst, &kmean);
		printf("  (Calculon on the Korthikanti rows: mean 3.65%%, "
		       "worst 8.9%%)\n");
	}
	if (med > median_max || worst > worst_max) {
		printf("FAIL: the target is median <= %.0f%%, worst <= "
		       "%.0f%%\n", 100 * median_max, 100 * worst_max);
		rc = 1;
	}
	free(t);
	return rc;
}

static int memory(const char *dir)
{
	char path[512];
	struct table *t;
	struct stats all = { .n = 0 };
	double med, worst, mean;
	int rc = 0;

	snprintf(path, sizeof(path), "%s/memory.csv", dir);
	t = table_load(path);
	if (!t)
		return 2;
	printf("\nmemory (%s)\n", path);
	printf("%-28s %-26s %10s %10s %8s\n", "case", "metric", "measured",
	       "predicted", "error");
	for (int i = 0; i < t->nrows; i++) {
		struct train_memory m;
		enum precision p;
		enum optimizer o = strcmp(get(t, i, "optimizer"), "sgd") == 0 ?
					   OPTIMIZER_SGD :
					   OPTIMIZER_ADAM;
		double measured = getd(t, i, "measured"), pred, e;

		if (precision_parse(get(t, i, "precision"), &p))
			return 2;
		train_memory_states(getd(t, i, "params"), geti(t, i, "zero"),
				    geti(t, i, "gpus"), p, o, &m);
		pred = m.weights_bytes + m.gradients_bytes + m.optimizer_bytes;
		e = (pred - measured) / measured;
		all.err[all.n++] = fabs(e);
		printf("%-28s %-26s %10.4g %10.4g %+7.1f%%\n", get(t, i, "case"),
		       get(t, i, "metric"), measured, pred, 100 * e);
	}
	report("memory, all rows", &all, &med, &worst, &mean);
	if (worst > 0.02) {
		printf("FAIL: memory target is every row within 2%%\n");
		rc = 1;
	}
	free(t);
	return rc;
}

static int inference(const char *dir, const struct catalog *cat)
{
	char path[512];
	struct table *t;
	struct stats all = { .n = 0 };
	double med, worst, mean;
	int rc = 0;

	snprintf(path, sizeof(path), "%s/inference.csv", dir);
	t = table_load(path);
	if (!t)
		return 2;
	printf("\ninference (%s)\n", path);
	printf("%-28s %-26s %10s %10s %8s\n", "case", "metric", "measured",
	       "predicted", "error");
	for (int i = 0; i < t->nrows; i++) {
		struct workload wl;
		struct model_spec m;
		struct arch a;
		struct infer_config c;
		struct infer_result r;
		struct cluster cl;
		struct diag err;
		const struct gpu_spec *g;
		const char *metric = get(t, i, "metric");
		double measured = getd(t, i, "measured"), pred, e;

		diag_clear(&err);
		workload_init(&wl);
		m = wl.model;
		m.layers = geti(t, i, "layers");
		m.hidden = geti(t, i, "hidden");
		m.heads = geti(t, i, "heads");
		m.kv_heads = geti(t, i, "kv_heads");
		m.ffn_hidden = geti(t, i, "ffn_hidden");
		m.gated_ffn = getb(t, i, "gated_ffn");
		m.vocab = geti(t, i, "vocab");
		m.seq_len = geti(t, i, "seq_len");
		memset(&c, 0, sizeof(c));
		c.tp = geti(t, i, "tp");
		c.batch = geti(t, i, "batch");
		c.prompt_tokens = geti(t, i, "prompt_tokens");
		c.output_tokens = geti(t, i, "output_tokens");
		if (precision_parse(get(t, i, "weight_precision"),
				    &c.weight_precision) ||
		    precision_parse(get(t, i, "kv_precision"),
				    &c.kv_precision))
			return 2;
		g = catalog_find(cat, get(t, i, "gpu"), &err);
		if (!g || arch_from_spec(&m, &a) != 0) {
			diag_print(stderr, &err);
			return 2;
		}
		cluster_resolve(&wl.cluster, g, &cl);
		if (infer_evaluate(&a, &c, g, &cl, &r) != 0)
			return 2;
		if (strcmp(metric, "ttft_s") == 0)
			pred = r.ttft_s;
		else if (strcmp(metric, "tpot_s") == 0)
			pred = r.tpot_s;
		else if (strcmp(metric, "kv_cache_bytes_per_token") == 0)
			pred = r.memory.kv_cache_bytes_per_token;
		else {
			fprintf(stderr, "validate: unknown metric '%s'\n",
				metric);
			return 2;
		}
		e = (pred - measured) / measured;
		all.err[all.n++] = fabs(e);
		printf("%-28s %-26s %10.4g %10.4g %+7.1f%%\n",
		       get(t, i, "case"), metric, measured, pred, 100 * e);
	}
	report("inference, all rows", &all, &med, &worst, &mean);
	if (med > 0.10 || worst > 0.25) {
		printf("FAIL: inference target is median <= 10%%, worst <= "
		       "25%%\n");
		rc = 1;
	}
	free(t);
	return rc;
}

int main(int argc, char **argv)
{
	struct catalog *cat = NULL;
	struct diag err;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: validate DIR\n");
		return 2;
	}
	diag_clear(&err);
	if (catalog_load_default(&cat, &err) != 0) {
		diag_print(stderr, &err);
		return 2;
	}
	rc = training(argv[1], "training.csv",
		      "training (calibration set)", 0.10, 0.20, cat);
	if (rc != 2) {
		int hrc = training(argv[1], "training-holdout.csv",
				   "\ntraining (holdout: not used to calibrate)",
				   0.25, 0.40, cat);

		rc = hrc > rc ? hrc : rc;
	}
	if (rc != 2) {
		/* production runs: what the search picks against what the
		   runs achieved (restarts, failures and tuning of the real
		   runs are not modelled); a regression guard */
		int prc = training(argv[1], "production.csv",
				   "\nproduction runs, configuration chosen "
				   "by the search",
				   0.35, 0.50, cat);

		rc = prc > rc ? prc : rc;
	}
	if (rc != 2) {
		/* networks costed per sample: not used to calibrate */
		/* regression guards, not targets: multi-GPU scaling losses
		   of these runs (data loading, DLRM's all-to-all) are not
		   modelled; see specs/validation.md */
		int grc = training(argv[1], "generic.csv",
				   "\ngeneric networks (CNNs), per sample",
				   0.40, 1.00, cat);
		int src = training(argv[1], "recsys.csv",
				   "\nrecommenders (DLRM), per sample", 0.45,
				   12.0, cat);

		rc = grc > rc ? grc : rc;
		rc = src > rc ? src : rc;
	}
	if (rc != 2) {
		int irc = inference(argv[1], cat);

		rc = irc > rc ? irc : rc;
	}
	if (rc != 2) {
		int mrc = memory(argv[1]);

		rc = mrc > rc ? mrc : rc;
	}
	catalog_free(cat);
	if (rc == 0)
		printf("\nall accuracy targets met\n");
	return rc;
}
