/*
 * validate.c - reproduce published measurements and gate the errors.
 *
 * Usage: validate [--scale-predictions=F] DIR, or validate --list (the
 * files read and their row counts).  Predicts every row of the
 * files of DIR (copied from ../shared/validation with their sources, see
 * DIR/README.md) with capplan's models on the embedded catalog, prints
 * measured, predicted and the error, and checks the gates of 'sets'
 * below (specs/validation.md, "Gates"):
 *   - each file has exactly the rows it is known to have (a header-only,
 *     truncated or grown file fails);
 *   - every measured value is a finite positive number and every
 *     prediction and error is finite (NaN and infinity fail);
 *   - every row belongs to a metric class, each class has its known
 *     number of rows, and each class's median and worst |error| stay
 *     within its limits: the published accuracy targets and, tighter,
 *     regression guards a little above today's errors.
 * Exits 0 when every gate holds, 1 when one fails, 2 when an input cannot
 * be read.  --scale-predictions=F multiplies every prediction by F, to
 * check that the gates fail (F = nan, or a few per cent off).
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
#include "serve_sim.h"
#include "stack.h"
#include "workload.h"

#define MAX_COLS 48
#define MAX_ROWS 200
#define CELL_MAX 1024

struct table {
	char dir[256]; /* the folder of the file: paths in cells are
			  relative to it */
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
	if (t->bad || t->nrows < 0) {
		fprintf(stderr,
			"validate: '%s' is not a well-formed table (rows of "
			"different lengths, or more than %d rows, %d columns "
			"or %d bytes in a cell)\n",
			path, MAX_ROWS - 1, MAX_COLS, CELL_MAX - 1);
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

/* A cell parsed as a number: the whole cell, no garbage, no overflow.
   "nan" and "inf" parse; the gates reject them.  Exits 2 otherwise. */
static double cell_number(const struct table *t, int row, const char *name)
{
	const char *s = get(t, row, name);
	char *end;
	double x;

	errno = 0;
	x = strtod(s, &end);
	if (end == s || *end != '\0' || errno == ERANGE) {
		fprintf(stderr,
			"validate: row %d ('%s'): '%s' must be a number, "
			"got '%s'\n",
			row + 1, get(t, row, "case"), name, s);
		exit(2);
	}
	return x;
}

static int geti(const struct table *t, int row, const char *name)
{
	double x = cell_number(t, row, name);

	if (!(x >= 0.0 && x <= 1e9) || x != floor(x)) {
		fprintf(stderr,
			"validate: row %d ('%s'): '%s' must be a count, "
			"got '%s'\n",
			row + 1, get(t, row, "case"), name, get(t, row, name));
		exit(2);
	}
	return (int)x;
}

/* An optional count: 0 when the table has no such column or the cell is
   empty. */
static int opti(const struct table *t, int row, const char *name)
{
	const char *v = find(t, row, name);

	return v && *v ? geti(t, row, name) : 0;
}

static int getb(const struct table *t, int row, const char *name)
{
	return strcasecmp(get(t, row, name), "true") == 0;
}

/* One predicted row. */
struct row {
	char name[64];
	char metric[40];
	double measured, predicted;
	char gpu[64];     /* the device, for --residuals */
	int batch;        /* the row's batch, for --residuals (0: none) */
	char chosen[120]; /* what the search chose, for the table */
	char detail[300]; /* VALIDATE_VERBOSE breakdown, or empty */
};

struct result {
	struct row row[MAX_ROWS];
	int n;
};

static struct row *add_row(struct result *res, const struct table *t, int i,
			   double predicted)
{
	struct row *r = &res->row[res->n++];

	snprintf(r->name, sizeof(r->name), "%s", get(t, i, "case"));
	snprintf(r->metric, sizeof(r->metric), "%s", get(t, i, "metric"));
	r->measured = cell_number(t, i, "measured");
	r->predicted = predicted;
	snprintf(r->gpu, sizeof(r->gpu), "%s", find(t, i, "gpu"));
	r->batch = opti(t, i, "batch");
	r->chosen[0] = '\0';
	r->detail[0] = '\0';
	return r;
}

/* --measurements=FILE: every row as a measurement of 'capplan calibrate'
   (command, workload, gpu, gpus, set, metric, measured, group, case), for
   tests/validation/calibration.py; the workload is an empty base.ini
   beside FILE and 'set' holds the row.  NULL: not asked. */
static FILE *measurements;
static const char *current_file;

/* Append "expr;" to 'set'. */
static void set_add(char *set, size_t size, const char *expr)
{
	size_t n = strlen(set);

	snprintf(set + n, size - n, "%s%s", n ? ";" : "", expr);
}

/* Write row 'i' of 't' as a measurement of 'command' with 'set', its
   metric named as the command's JSON names it; its group is the file,
   the source's tag (the case name up to its first '-') and the device. */
static void emit_measurement(const struct table *t, int i, const char *command,
			     const char *set, const char *metric)
{
	const char *name = get(t, i, "case");
	const char *dash = strchr(name, '-');
	int tag = dash ? (int)(dash - name) : (int)strlen(name);

	if (!measurements || !metric)
		return;
	fprintf(measurements, "%s,base.ini,%s,,\"%s\",%s,%s,%s:%.*s:%s,%s\n",
		command, get(t, i, "gpu"), set, metric,
		get(t, i, "measured"), current_file, tag, name,
		get(t, i, "gpu"), name);
}

/* The embedded stack table's row for the framework 'wl' names, applied
   to the keys 'wl' leaves out (stack_apply). */
static int apply_framework(struct workload *wl, struct diag *err)
{
	static struct stack_table stacks;
	static bool loaded;

	if (!loaded) {
		if (stack_load_default(&stacks, err) != 0)
			return -1;
		loaded = true;
	}
	return stack_apply(&stacks, wl, err);
}

/* Training rows (and the per-sample models' rows): every non-empty column
   that names a workload key is set through the workload parser; an empty
   one is left to capplan, exactly as in a workload file. */
static int predict_training(const struct table *t, const struct catalog *cat,
			    struct result *res)
{
	for (int i = 0; i < t->nrows; i++) {
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
			{ "onnx", "model.onnx" },
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
			{ "dense_features", "model.dense_features" },
			{ "bottom_mlp", "model.bottom_mlp" },
			{ "top_mlp", "model.top_mlp" },
			{ "interaction", "model.interaction" },
			{ "cross_layers", "model.cross_layers" },
			{ "cross_rank", "model.cross_rank" },
			{ "pooling_factor", "model.pooling_factor" },
			{ "cache_hit_rate", "model.cache_hit_rate" },
			{ "embedding_sharding", "training.embedding_sharding" },
			{ "embedding_comm_overlap",
			  "training.embedding_comm_overlap" },
			{ "cuda_graphs", "inference.cuda_graphs" },
			{ "framework_overhead", "inference.framework_overhead" },
			{ "launch_overhead", "inference.launch_overhead" },
			{ "fusion", "inference.fusion" },
			{ "server", "inference.server" },
			{ "request_overhead", "inference.request_overhead" },
			{ "gpus_per_node", "cluster.gpus_per_node" },
			{ "nvlink_peers", "cluster.nvlink_peers" },
			{ "host_link_bw", "cluster.host_link_bw" },
			{ "inter_bw", "cluster.inter_bw" },
			{ "embedding_update", "training.embedding_update" },
			{ "optimizer", "training.optimizer" },
			{ "collective_cycle", "training.collective_cycle" },
			{ "bottom_mlp_placement", "training.bottom_mlp_placement" },
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
			{ "zero_shard", "training.zero_shard" },
			{ "attention", "training.attention" },
			{ "framework", "training.framework" },
			{ "eager_ops", "training.eager_ops" },
			{ "dropout", "training.dropout" },
			{ "overlap_grad_reduce", "training.overlap_grad_reduce" },
			{ "tp_comm_overlap", "training.tp_comm_overlap" },
			{ "ep_comm_overlap", "training.ep_comm_overlap" },
			{ "recompute_modules", "training.recompute_modules" },
			{ "overlap_param_gather",
			  "training.overlap_param_gather" },
			{ "recompute_layers", "training.recompute_layers" },
			{ "offload_optimizer", "training.offload_optimizer" },
		};
		struct workload wl;
		struct train_plan p;
		const struct gpu_spec *g;
		struct diag err;
		const char *metric = get(t, i, "metric");
		double pred;
		struct row *r;
		char set[8192] = "";

		diag_clear(&err);
		workload_init(&wl);
		/* the published runs predate tensor-parallel communication
		   overlap (Transformer Engine's userbuffers, 2023): off
		   unless a column says otherwise */
		wl.training.tp_comm_overlap = 0;
		/* and shard ZeRO's states over every data-parallel rank, as
		   Megatron's distributed optimizer, DeepSpeed and FSDP's
		   FULL_SHARD do by default, unless a column says otherwise */
		wl.training.zero_shard = WL_ZERO_SHARD_ALL;
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			const char *v = find(t, i, keys[k].column);
			char expr[512];

			if (!v || !*v)
				continue;
			if (strcmp(keys[k].column, "onnx") == 0)
				/* a graph beside the table (--measurements:
				   give DIR as an absolute path) */
				snprintf(expr, sizeof(expr), "%s=%s/%s",
					 keys[k].key, t->dir, v);
			else if (strcmp(keys[k].column, "bottom_mlp") == 0 ||
				 strcmp(keys[k].column, "top_mlp") == 0 ||
				 strcmp(keys[k].column, "embedding_rows") == 0) {
				/* layer widths and each table's rows,
				   blank-separated in the table (its cells hold
				   no commas) */
				snprintf(expr, sizeof(expr), "%s=%s",
					 keys[k].key, v);
				for (char *q = strchr(expr, '='); *q; q++)
					if (*q == ' ')
						*q = ',';
			} else
				snprintf(expr, sizeof(expr), "%s=%s",
					 keys[k].key, v);
			if (workload_set(&wl, expr, &err) != 0) {
				diag_print(stderr, &err);
				return 2;
			}
			set_add(set, sizeof(set), expr);
		}
		if (wl.model.kind == MODEL_TRANSFORMER) {
			/* the two defaults above as --set pairs (keys of
			   transformers only), before the row's own */
			static const char pre[] =
				"training.tp_comm_overlap=false;"
				"training.zero_shard=all;";
			size_t n = strlen(set), k = sizeof(pre) - 1;

			if (n + k < sizeof(set)) {
				memmove(set + k, set, n + 1);
				memcpy(set, pre, k);
			}
		}
		/* a framework the row names: its stack row's values for
		   the keys the row leaves empty, as the command line applies
		   them (training-frameworks.csv) */
		if (wl.training.framework[0] &&
		    apply_framework(&wl, &err) != 0) {
			fprintf(stderr, "validate: %s: ", get(t, i, "case"));
			diag_print(stderr, &err);
			return 2;
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
			r = add_row(res, t, i, pred);
			{
				char e[96];

				snprintf(e, sizeof(e),
					 "inference.batch=%d;inference.tp=1;"
					 "inference.weight_precision=%s",
					 wl.inference.batch,
					 get(t, i, "precision"));
				set_add(set, sizeof(set), e);
				emit_measurement(
					t, i, "infer", set,
					strcmp(metric, "latency_s") == 0 ?
						"latency_s" :
						"throughput_samples_per_s");
			}
			snprintf(r->chosen, sizeof(r->chosen), "batch %d",
				 sp.batch);
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
			/* a run's own account of its GPU time: failures,
			   restarts and maintenance included */
			pred = p.run.gpu_hours;
		else if (strcmp(metric, "time_to_train_s") == 0)
			/* a run's wall clock from start to its last token,
			   as production runs report it */
			pred = p.run.time_s;
		else if (strcmp(metric, "gpu_hours_ideal") == 0)
			/* GPU time a report derives from its steady-state
			   throughput: failure-free */
			pred = p.goodput.ideal_s * p.config.gpus / 3600.0;
		else if (strcmp(metric, "samples_per_s") == 0)
			pred = p.result.tokens_per_s;
		else {
			fprintf(stderr, "validate: unknown metric '%s'\n",
				metric);
			return 2;
		}
		r = add_row(res, t, i, pred);
		/* the fields of 'capplan train --format json' (a run's
		   failure-free GPU time has none) */
		emit_measurement(t, i, "train", set,
				 strcmp(metric, "gpu_hours_ideal") == 0 ?
					 NULL :
					 metric);
		chosen_text(&p, r->chosen, sizeof(r->chosen));
		if (getenv("VALIDATE_VERBOSE")) {
			const struct train_time *tm = &p.result.time;

			snprintf(r->detail, sizeof(r->detail),
				 "    step %.4gs: compute %.4g tp %.4g pp %.4g "
				 "cp %.4g bubble %.4g dp %.4g optimizer %.4g "
				 "(mfu %.3f, mem %.1f GB)",
				 tm->step_s, tm->compute_s, tm->tp_comm_s,
				 tm->pp_comm_s, tm->cp_comm_s, tm->bubble_s,
				 tm->dp_comm_s, tm->optimizer_s, p.result.mfu,
				 p.result.memory.total_bytes / 1e9);
		}
	}
	return 0;
}

/* Model-state memory under ZeRO (Rajbhandari et al. 2020, figure 1). */
static int predict_memory(const struct table *t, const struct catalog *cat,
			  struct result *res)
{
	(void)cat;
	for (int i = 0; i < t->nrows; i++) {
		struct train_memory m;
		enum precision p;
		enum optimizer o = strcmp(get(t, i, "optimizer"), "sgd") == 0 ?
					   OPTIMIZER_SGD :
					   OPTIMIZER_ADAM;

		if (strcmp(get(t, i, "metric"), "model_state_bytes_per_gpu")) {
			fprintf(stderr, "validate: unknown metric '%s'\n",
				get(t, i, "metric"));
			return 2;
		}
		if (precision_parse(get(t, i, "precision"), &p)) {
			fprintf(stderr, "validate: %s: unknown precision\n",
				get(t, i, "case"));
			return 2;
		}
		train_memory_states(cell_number(t, i, "params"),
				    geti(t, i, "zero"), geti(t, i, "gpus"), p,
				    o, &m);
		add_row(res, t, i,
			m.weights_bytes + m.gradients_bytes +
				m.optimizer_bytes);
	}
	return 0;
}

/*
 * One offline generate() call of a whole batch (vLLM's
 * benchmark_latency): the batch's prompts in one step of the step model
 * (every prompt's causal attention, one logit row each), then
 * (output - 1) decode steps of the whole batch at infer_evaluate's TPOT
 * ('r', evaluated at this batch).  No server in front.
 */
static int batch_latency(const struct arch *a, const struct infer_config *c,
			 const struct gpu_spec *g, const struct cluster *cl,
			 const struct infer_result *r, double *out)
{
	static struct infer_step_model m; /* 64 KiB of memo */
	struct sim_mix x;
	double p = c->prompt_tokens;

	if (infer_step_model_init(&m, a, c, g, cl, c->kernel_overhead_s))
		return -1;
	memset(&x, 0, sizeof(x));
	x.prefill_tokens = c->batch * p;
	x.prefill_attn_pairs = c->batch * 0.5 * p * p;
	x.prefill_seqs = c->batch;
	x.logit_rows = c->batch;
	*out = infer_step_s(&m, &x) + (c->output_tokens - 1.0) * r->tpot_s;
	return 0;
}

/* Transformer serving at batch 1, one offline batch, and the KV cache per
   token. */
/* An offline inference row as a measurement of 'capplan infer': its
   model, replica and batch, and the engine of its 'engine' column (its
   stack row's host times, trtllm's without a server) or, without one, no
   server in front (host_request_overhead 0 given, as predict_inference
   times it). */
static void emit_inference(const struct table *t, int i, const char *metric)
{
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
		{ "experts", "model.experts" },
		{ "experts_per_token", "model.experts_per_token" },
		{ "expert_ffn_hidden", "model.expert_ffn_hidden" },
		{ "tp", "inference.tp" },
		{ "batch", "inference.batch" },
		{ "prompt_tokens", "inference.prompt_tokens" },
		{ "output_tokens", "inference.output_tokens" },
		{ "weight_precision", "inference.weight_precision" },
		{ "kv_precision", "inference.kv_precision" },
		{ "weight_only", "inference.weight_only" },
		{ "decode_attention", "inference.decode_attention" },
	};
	char set[2048] = "model.tied_embeddings=false";
	const char *engine = find(t, i, "engine");
	const char *json = strcmp(metric, "ttft_s") == 0 ? "ttft_s" :
			   strcmp(metric, "tpot_s") == 0 ? "tpot_s" :
			   strcmp(metric, "output_tokens_per_s_per_gpu") == 0 ?
							  "throughput_tokens_per_s_per_gpu" :
							  NULL;

	if (!measurements || !json)
		return;
	/* the engine a file names, whose stack row gives the host times
	   (a prior calibrate may move); else no server, as a given key */
	if (engine && *engine) {
		size_t n = strlen(set);

		snprintf(set + n, sizeof(set) - n, ";inference.engine=%s",
			 engine);
	} else {
		set_add(set, sizeof(set), "inference.host_request_overhead=0");
	}
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		const char *v = find(t, i, keys[k].column);
		char expr[160];

		if (!v || !*v)
			continue;
		snprintf(expr, sizeof(expr), "%s=%s", keys[k].key, v);
		set_add(set, sizeof(set), expr);
	}
	{
		/* an engine's context is its longest input plus its longest
		   output (TensorRT-LLM's max_input_len + max_output_len): a
		   prefill row of a whole-context prompt and one token ran, so
		   the workload's context holds both (capplan refuses longer
		   requests, as vLLM does) */
		const char *ps = find(t, i, "prompt_tokens"),
			   *os = find(t, i, "output_tokens"),
			   *ls = find(t, i, "seq_len");

		if (ps && *ps && os && *os && ls && *ls &&
		    atol(ps) + atol(os) > atol(ls)) {
			char expr[64];

			snprintf(expr, sizeof(expr), "model.seq_len=%ld",
				 atol(ps) + atol(os));
			set_add(set, sizeof(set), expr);
		}
	}
	{
		const char *w = find(t, i, "power_cap_w");
		char expr[64];

		if (w && *w) {
			snprintf(expr, sizeof(expr), "inference.power_cap=%sW",
				 w);
			set_add(set, sizeof(set), expr);
		}
	}
	emit_measurement(t, i, "infer", set, json);
}

static int predict_inference(const struct table *t,
			     const struct catalog *cat, struct result *res)
{
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
		double pred;

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
		/* a mixture of experts: columns of inference-tp.csv, empty
		   (a dense model) where a row leaves them */
		m.experts = opti(t, i, "experts");
		m.experts_per_token = opti(t, i, "experts_per_token");
		m.expert_ffn_hidden = opti(t, i, "expert_ffn_hidden");
		memset(&c, 0, sizeof(c));
		/* a power limit the run states (gpt-fast: 330 W) */
		c.power_cap_w = opti(t, i, "power_cap_w");
		/* int8 weights dequantized into 16-bit GEMMs (gpt-fast's
		   int8 mode), where a row says so */
		{
			const char *wo = find(t, i, "weight_only");

			c.weight_only = wo && strcasecmp(wo, "true") == 0;
		}
		/* TensorRT-LLM's masked multi-head attention before XQA:
		   one thread block per query head (decode_attention) */
		{
			const char *da = find(t, i, "decode_attention");

			c.decode_per_head = da && strcmp(da, "per_head") == 0;
		}
		c.tp = geti(t, i, "tp");
		c.batch = geti(t, i, "batch");
		c.prompt_tokens = geti(t, i, "prompt_tokens");
		c.output_tokens = geti(t, i, "output_tokens");
		c.kernel_overhead_s = wl.inference.kernel_overhead_s;
		/* the rows time the runtime itself (TensorRT-LLM's and
		   FasterTransformer's benchmarks): no server in front */
		c.host_request_s = 0.0;
		if (precision_parse(get(t, i, "weight_precision"),
				    &c.weight_precision) ||
		    precision_parse(get(t, i, "kv_precision"),
				    &c.kv_precision)) {
			fprintf(stderr, "validate: %s: unknown precision\n",
				get(t, i, "case"));
			return 2;
		}
		g = catalog_find(cat, get(t, i, "gpu"), &err);
		if (!g || arch_from_spec(&m, &a) != 0) {
			fprintf(stderr, "validate: %s: ", get(t, i, "case"));
			diag_print(stderr, &err);
			return 2;
		}
		(void)cluster_resolve(&wl.cluster, g, &cl, NULL); /* cloud */
		if (infer_evaluate(&a, &c, g, &cl, &r) != 0) {
			fprintf(stderr, "validate: %s: no usable precision\n",
				get(t, i, "case"));
			return 2;
		}
		bool offline = strcmp(metric, "output_tokens_per_s_per_gpu") == 0;

		if (strcmp(metric, "ttft_s") == 0)
			pred = r.ttft_s;
		else if (offline || strcmp(metric, "batch_latency_s") == 0) {
			if (batch_latency(&a, &c, g, &cl, &r, &pred) != 0) {
				fprintf(stderr, "validate: %s: no usable "
					"precision\n", get(t, i, "case"));
				return 2;
			}
			/* an offline batch's output tokens over its latency,
			   per GPU of the replica (TensorRT-LLM's
			   gptSessionBenchmark) */
			if (offline)
				pred = (double)c.batch * c.output_tokens /
				       (pred * c.tp);
		} else if (strcmp(metric, "tpot_s") == 0)
			pred = r.tpot_s;
		else if (strcmp(metric, "kv_cache_bytes_per_token") == 0)
			pred = r.memory.kv_cache_bytes_per_token;
		else {
			fprintf(stderr, "validate: unknown metric '%s'\n",
				metric);
			return 2;
		}
		add_row(res, t, i, pred);
		emit_inference(t, i, metric);
	}
	return 0;
}

/*
 * A gate: the rows of one metric class of a file (or all its rows), how
 * many there must be, and the limits on the median and the worst
 * |error| (fractions).  specs/validation.md ("Gates") gives each limit
 * with today's value and the margin between them; a change that moves an
 * error past a limit must change the limit here and there, visibly.
 */
struct gate {
	const char *name;
	const char *metrics; /* blank-separated metric names; NULL: all rows */
	int rows;
	double median_max, worst_max;
	const char *note;    /* printed after the gate's line, or NULL */
};

#define MAX_GATES 4

struct set {
	const char *file;
	const char *title;
	int (*predict)(const struct table *t, const struct catalog *cat,
		       struct result *res);
	int rows;                    /* rows the file must have */
	struct gate gate[MAX_GATES]; /* ends at a NULL name */
};

/*
 * Files whose rows stay out of --residuals, so out of the prediction
 * intervals: the framework rows (specs/validation.md, "Frameworks": with
 * them every training band would move, which is the intervals' owner's
 * call).
 */
static const char *const no_residuals[] = { "training-frameworks.csv" };

static bool in_residuals(const char *file)
{
	for (size_t i = 0; i < sizeof(no_residuals) / sizeof(no_residuals[0]);
	     i++)
		if (strcmp(file, no_residuals[i]) == 0)
			return false;
	return true;
}

static const struct set sets[] = {
	{ "training.csv", "training (calibration set)", predict_training, 21,
	  { { "all rows: target", NULL, 21, 0.10, 0.20, NULL },
	    { "throughput", "hardware_tflops_per_gpu tokens_per_s_per_gpu",
	      13, 0.040, 0.135, NULL },
	    { "step time (Korthikanti et al.)", "step_time_s", 8, 0.030,
	      0.090,
	      "  (Calculon on the Korthikanti rows: mean 3.65%, worst 8.9%)" },
	    { NULL, NULL, 0, 0.0, 0.0, NULL } } },
	{ "training-holdout.csv",
	  "training (holdout: not used to fit the constants)",
	  predict_training, 11,
	  { { "throughput", "tokens_per_s_per_gpu", 11, 0.135, 0.30, NULL },
	    { NULL, NULL, 0, 0.0, 0.0, NULL } } },
	{ "training-mcore24.csv",
	  "training, Megatron-Core on H100 (2024), not used to fit",
	  predict_training, 9,
	  { { "model TFLOP/s per GPU", "model_tflops_per_gpu", 9, 0.045, 0.105,
	      "  (the pipelined runs predicted 3-9.5% slow: "
	      "specs/validation.md)" },
	    { NULL, NULL, 0, 0.0, 0.0, NULL } } },
	{ "training-cp.csv",
	  "training with context parallelism (long sequences), not used to fit",
	  predict_training, 5,
	  { { "throughput", "model_tflops_per_gpu tokens_per_s_per_gpu", 5,
	      0.35, 0.615,
	      "  (every row predicted fast, 1-60%: specs/validation.md)" },
	    { NULL, NULL, 0, 0.0, 0.0, NULL } } },
	{ "training-frameworks.csv",
	  "training on older and simpler stacks (PyTorch FSDP eager and "
	  "compiled, Megatron-DeepSpeed), not used to fit",
	  predict_training, 18,
	  { { "PyTorch FSDP, eager and compiled (fms-fsdp)",
	      "tokens_per_s_per_gpu", 16, 0.090, 0.255,
	      "  (H100 predicted 4-24% fast, A100 up to 15% slow; eager runs "
	      "are 11-28% slower than compiled, half of it modelled: "
	      "specs/validation.md)" },
	    { "Megatron-DeepSpeed", "hardware_tflops_per_gpu", 2, 0.050,
	      0.090, NULL },
	    { NULL, NULL, 0, 0.0, 0.0, NULL } } },
	{ "production.csv",
	  "production runs, configuration chosen by the search",
	  predict_training, 7,
	  { { "GPU-hours and time to train",
	      "gpu_hours gpu_hours_ideal time_to_train_s", 5, 0.085, 0.75,
	      "  (OPT-175B's restarts 33% long, StableLM-3B's data-parallel "
	      "traffic 70% slow: specs/validation.md)" },
	    { "throughput", "tokens_per_s_per_gpu model_tflops_per_gpu", 2,
	      0.105, 0.110, NULL },
	    { NULL, NULL, 0, 0.0, 0.0, NULL } } },
	{ "generic.csv", "generic networks (CNNs), per sample",
	  predict_training, 8,
	  { { "training throughput", "samples_per_s", 8, 0.115, 0.495, NULL },
	    { NULL, NULL, 0, 0.0, 0.0, NULL } } },
	{ "generic-fp32.csv",
	  "generic networks (CNNs), per sample, TF32 and FP32 in NCHW, not "
	  "used to fit",
	  predict_training, 4,
	  { { "training throughput", "samples_per_s", 4, 0.35, 0.52,
	      "  (TF32 on the A100 44-49% fast, FP32 on the V100 18-20% "
	      "slow: specs/validation.md)" },
	    { NULL, NULL, 0, 0.0, 0.0, NULL } } },
	{ "vision-timm.csv",
	  "vision networks served and trained eagerly from their ONNX graphs "
	  "(timm benchmark, RTX 3090, 4090 and 5090), not used to fit",
	  predict_training, 20,
	  { { "serving throughput", "samples_per_s_inference", 15, 0.095,
	      0.26,
	      "  (ViT-B/16 predicted 23-24% slow on the 4090 and 5090: "
	      "specs/validation.md)" },
	    { "training throughput (RTX 3090)", "samples_per_s", 5, 0.070,
	      0.140,
	      "  (EfficientNet-B0 +39.5% before the depthwise weight "
	      "gradient, +4.0% with it: specs/validation.md)" },
	    { NULL, NULL, 0, 0.0, 0.0, NULL } } },
	{ "vision-dwse.csv",
	  "squeeze-excitation and depthwise networks served and trained "
	  "eagerly (timm benchmark, RTX 3090, 4090 and 5090), not used to fit",
	  predict_training, 12,
	  { { "serving throughput", "samples_per_s_inference", 9, 0.080,
	      0.105, NULL },
	    { "training throughput (RTX 3090)", "samples_per_s", 3, 0.060,
	      0.090,
	      "  (MobileNetV2 +32% before the depthwise weight gradient: "
	      "specs/validation.md)" },
	    { NULL, NULL, 0, 0.0, 0.0, NULL } } },
	{ "recsys.csv", "recommenders (DLRM), per sample", predict_training,
	  43,
	  { { "training throughput", "samples_per_s", 27, 0.095, 0.23, NULL },
	    { "serving throughput", "samples_per_s_inference", 12, 0.095,
	      2.35, NULL },
	    { "serving latency", "latency_s", 4, 0.18, 0.72, NULL },
	    { NULL, NULL, 0, 0.0, 0.0, NULL } } },
	{ "inference.csv", "inference", predict_inference, 7,
	  { { "all rows: target", NULL, 7, 0.10, 0.25, NULL },
	    { "prefill latency", "ttft_s", 5, 0.02, 0.11, NULL },
	    { "decode latency", "tpot_s", 1, 0.03, 0.03, NULL },
	    { "identity: KV cache per token", "kv_cache_bytes_per_token", 1,
	      0.005, 0.005, NULL } } },
	{ "inference-edge.csv",
	  "inference, int4 weights on Jetson AGX Orin and RTX 4090 "
	  "(TinyChat, ExLlamaV2)",
	  predict_inference, 17,
	  { { "decode latency", "tpot_s", 15, 0.37, 0.625,
	      "  (RTX 4090 rows +7% to +60%: the 7 us kernel overhead of "
	      "vLLM/SGLang; specs/validation.md)" },
	    { "prefill latency", "ttft_s", 2, 0.30, 0.32, NULL },
	    { NULL, NULL, 0, 0.0, 0.0, NULL } } },
	{ "inference-amd.csv",
	  "inference on AMD Instinct MI300X, not used to fit",
	  predict_inference, 13,
	  { { "batch latency (vLLM benchmark_latency)", "batch_latency_s", 9,
	      0.095, 0.30, NULL },
	    { "decode latency (vLLM benchmark_serving, one prompt)", "tpot_s",
	      4, 0.47, 0.58,
	      "  (predicted 42-55% fast: eager decode beyond 8192 tokens of "
	      "context and ROCm's paged attention; specs/validation.md)" },
	    { NULL, NULL, 0, 0.0, 0.0, NULL } } },
	{ "inference-trtllm.csv",
	  "inference, offline batches of TensorRT-LLM 0.5-0.7 (H100, H200, "
	  "L40S, A100), not used to fit",
	  predict_inference, 47,
	  { { "output tokens/s per GPU", "output_tokens_per_s_per_gpu", 47,
	      0.085, 0.37,
	      "  (the decode kernel's reads of a GQA cache: between once a KV "
	      "head and once a query head; specs/validation.md)" },
	    { NULL, NULL, 0, 0.0, 0.0, NULL } } },
	{ "inference-trtllm08.csv",
	  "inference, offline batches and first tokens of TensorRT-LLM 0.8 "
	  "(H100, H200, L40S, A100), not used to fit",
	  predict_inference, 95,
	  { { "output tokens/s per GPU", "output_tokens_per_s_per_gpu", 63,
	      0.085, 0.48,
	      "  (Falcon 180B's masked MHA decode: specs/validation.md)" },
	    { "prefill latency at batch 1", "ttft_s", 32, 0.18, 0.535,
	      "  (H100 and H200 fp8 at 128 tokens 32-51% low: "
	      "specs/validation.md)" },
	    { NULL, NULL, 0, 0.0, 0.0, NULL } } },
	{ "inference-tp.csv",
	  "inference under tensor parallelism and for MoE, not used to fit",
	  predict_inference, 25,
	  { { "prefill latency (guard)", "ttft_s", 9, 0.165, 0.455,
	      "  (H100 fp8 TensorRT-LLM 0.5 predicted 2-44% fast, at tp 1 "
	      "as at tp 4-8: specs/validation.md)" },
	    { "decode latency (guard)", "tpot_s", 16, 0.19, 0.815,
	      "  (gpt-fast, CUDA graphs: predicted slow as tp grows, the "
	      "7 us per-kernel overhead; Mixtral fast at tp 1)" },
	    { NULL, NULL, 0, 0.0, 0.0, NULL } } },
	{ "memory.csv", "memory (ZeRO model states)", predict_memory, 4,
	  { { "model states (figure values, 2-3 digits)",
	      "model_state_bytes_per_gpu", 4, 0.005, 0.02, NULL },
	    { NULL, NULL, 0, 0.0, 0.0, NULL } } },
};

/* Whether 'metric' is one of the blank-separated names of 'list'. */
static int in_list(const char *list, const char *metric)
{
	size_t n = strlen(metric);

	for (const char *p = list; *p;) {
		size_t w = strcspn(p, " ");

		if (w == n && strncmp(p, metric, n) == 0)
			return 1;
		p += w;
		p += strspn(p, " ");
	}
	return 0;
}

static int fail_count;

static void gate_fail(const char *file, const char *gate, const char *stat,
		      double got, double limit)
{
	printf("FAIL: %s: class '%s': %s |error| %.2f%% is above its limit "
	       "%.2f%%\n",
	       file, gate, stat, 100 * got, 100 * limit);
	fail_count++;
}

/* |error| of a row: infinite when it cannot be computed, so that every
   comparison with a limit fails. */
static double abs_error(const struct row *r)
{
	double e = (r->predicted - r->measured) / r->measured;

	return isfinite(e) ? fabs(e) : HUGE_VAL;
}

/* Print the rows and check every gate of 's'; 0 or 1. */
static int check_set(const struct set *s, const struct result *res)
{
	int rc = 0;

	printf("%-30s %-26s %10s %10s %8s  %s\n", "case", "metric",
	       "measured", "predicted", "error", "chosen");
	for (int i = 0; i < res->n; i++) {
		const struct row *r = &res->row[i];
		int classes = 0;

		printf("%-30s %-26s %10.4g %10.4g %+7.1f%%  %s\n", r->name,
		       r->metric, r->measured, r->predicted,
		       100.0 * (r->predicted - r->measured) / r->measured,
		       r->chosen);
		if (r->detail[0])
			printf("%s\n", r->detail);
		if (!isfinite(r->measured) || !(r->measured > 0.0)) {
			printf("FAIL: %s: '%s': the measured value must be a "
			       "finite positive number, got %g\n",
			       s->file, r->name, r->measured);
			fail_count++;
			rc = 1;
		}
		if (!isfinite(r->predicted)) {
			printf("FAIL: %s: '%s': the prediction is not "
			       "finite (%g)\n",
			       s->file, r->name, r->predicted);
			fail_count++;
			rc = 1;
		}
		for (int g = 0; g < MAX_GATES && s->gate[g].name; g++)
			if (s->gate[g].metrics &&
			    in_list(s->gate[g].metrics, r->metric))
				classes++;
		if (classes == 0) {
			printf("FAIL: %s: '%s': metric '%s' belongs to no "
			       "gated class\n",
			       s->file, r->name, r->metric);
			fail_count++;
			rc = 1;
		}
	}
	if (res->n != s->rows) {
		printf("FAIL: %s: %d rows, expected %d (a short, empty or "
		       "grown file; update 'sets' in validate.c and "
		       "specs/validation.md with the data)\n",
		       s->file, res->n, s->rows);
		fail_count++;
		rc = 1;
	}
	for (int g = 0; g < MAX_GATES && s->gate[g].name; g++) {
		const struct gate *gt = &s->gate[g];
		double err[MAX_ROWS], median, worst, mean;
		size_t n = 0;

		for (int i = 0; i < res->n; i++)
			if (!gt->metrics ||
			    in_list(gt->metrics, res->row[i].metric))
				err[n++] = abs_error(&res->row[i]);
		if ((int)n != gt->rows) {
			printf("FAIL: %s: class '%s' has %zu rows, expected "
			       "%d\n",
			       s->file, gt->name, n, gt->rows);
			fail_count++;
			rc = 1;
		}
		if (n == 0)
			continue;
		gsl_sort(err, 1, n);
		median = gsl_stats_median_from_sorted_data(err, 1, n);
		worst = err[n - 1];
		mean = gsl_stats_mean(err, 1, n);
		printf("%-34s rows %2zu  mean |err| %6.2f%%  median %6.2f%% "
		       "(limit %.1f%%)  worst %6.2f%% (limit %.1f%%)\n",
		       gt->name, n, 100 * mean, 100 * median,
		       100 * gt->median_max, 100 * worst,
		       100 * gt->worst_max);
		if (gt->note)
			printf("%s\n", gt->note);
		/* written so that NaN fails */
		if (!(median <= gt->median_max)) {
			gate_fail(s->file, gt->name, "median", median,
				  gt->median_max);
			rc = 1;
		}
		if (!(worst <= gt->worst_max)) {
			gate_fail(s->file, gt->name, "worst", worst,
				  gt->worst_max);
			rc = 1;
		}
	}
	return rc;
}

/*
 * --residuals=FILE: one line "CLASS LOG_RATIO GPU SOURCE BATCH" per row
 * that an interval class covers (src/model/interval.c), LOG_RATIO =
 * ln(measured / predicted) of the class's rate (a throughput: time-like
 * metrics are inverted), SOURCE the validation file, BATCH the row's
 * batch (0 where it has none), for tests/validation/intervals.c.
 * NULL when not asked.
 */
static FILE *residuals;

static const struct {
	const char *metric;
	const char *cls;
	int time_like; /* the metric grows as the rate falls */
} residual_class[] = {
	{ "hardware_tflops_per_gpu", "training", 0 },
	{ "model_tflops_per_gpu", "training", 0 },
	{ "tokens_per_s_per_gpu", "training", 0 },
	{ "step_time_s", "training", 1 },
	/* a whole run's GPU-hours and wall clock: the production band
	   (interval_of_production), its own source a row */
	{ "gpu_hours", "production", 1 },
	{ "gpu_hours_ideal", "production", 1 },
	{ "time_to_train_s", "production", 1 },
	{ "samples_per_s", "per_sample", 0 },
	{ "samples_per_s_inference", "sample_serving", 0 },
	{ "latency_s", "sample_serving", 1 },
	{ "ttft_s", "ttft", 1 },
	{ "tpot_s", "tpot", 1 },
	/* an offline batch's output tokens/s: infer's throughput
	   without a load */
	{ "output_tokens_per_s_per_gpu", "offline", 0 },
};

static void emit_residuals(const struct result *res, const char *source)
{
	for (int i = 0; residuals && i < res->n; i++) {
		const struct row *r = &res->row[i];

		for (size_t k = 0; k < sizeof(residual_class) /
						sizeof(residual_class[0]);
		     k++) {
			double e;

			if (strcmp(r->metric, residual_class[k].metric) != 0)
				continue;
			e = log(r->measured / r->predicted);
			/* each production run is a publication of its
			   own: its source is the row */
			if (strcmp(residual_class[k].cls, "production") == 0)
				fprintf(residuals, "%s %.6f %s %s:%s %d\n",
					residual_class[k].cls,
					residual_class[k].time_like ? -e : e,
					r->gpu[0] ? r->gpu : "-", source,
					r->name, r->batch);
			else
				fprintf(residuals, "%s %.6f %s %s %d\n",
					residual_class[k].cls,
					residual_class[k].time_like ? -e : e,
					r->gpu[0] ? r->gpu : "-", source,
					r->batch);
		}
	}
}

static int run_set(const char *dir, const struct set *s,
		   const struct catalog *cat, double scale)
{
	char path[512];
	struct table *t;
	struct result *res;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", dir, s->file);
	printf("\n%s (%s)\n", s->title, path);
	t = table_load(path);
	if (!t)
		return 2;
	snprintf(t->dir, sizeof(t->dir), "%s", dir);
	current_file = s->file;
	res = calloc(1, sizeof(*res));
	if (!res) {
		free(t);
		return 2;
	}
	rc = s->predict(t, cat, res);
	if (rc == 0) {
		for (int i = 0; i < res->n; i++)
			res->row[i].predicted *= scale;
		if (in_residuals(s->file))
			emit_residuals(res, s->file);
		rc = check_set(s, res);
	}
	free(res);
	free(t);
	return rc;
}

int main(int argc, char **argv)
{
	struct catalog *cat = NULL;
	struct diag err;
	const char *dir = NULL;
	double scale = 1.0;
	int rc = 0;

	if (argc == 2 && strcmp(argv[1], "--list") == 0) {
		/* the files read and the rows each must have */
		for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++)
			printf("%s %d\n", sets[i].file, sets[i].rows);
		return 0;
	}
	for (int i = 1; i < argc; i++) {
		const char *opt = "--scale-predictions=";

		if (strncmp(argv[i], opt, strlen(opt)) == 0) {
			char *end;

			scale = strtod(argv[i] + strlen(opt), &end);
			if (*end != '\0' || end == argv[i] + strlen(opt)) {
				fprintf(stderr, "validate: bad '%s'\n",
					argv[i]);
				return 2;
			}
		} else if (strncmp(argv[i], "--measurements=", 15) == 0) {
			measurements = fopen(argv[i] + 15, "w");
			if (!measurements) {
				perror(argv[i] + 15);
				return 2;
			}
			fputs("command,workload,gpu,gpus,set,metric,measured,"
			      "group,case\n", measurements);
		} else if (strncmp(argv[i], "--residuals=", 12) == 0) {
			residuals = fopen(argv[i] + 12, "w");
			if (!residuals) {
				perror(argv[i] + 12);
				return 2;
			}
		} else if (!dir && argv[i][0] != '-') {
			dir = argv[i];
		} else {
			dir = NULL;
			break;
		}
	}
	if (!dir) {
		fprintf(stderr,
			"usage: validate [--scale-predictions=F] "
			"[--residuals=FILE] [--measurements=FILE] DIR | "
			"--list\n");
		return 2;
	}
	diag_clear(&err);
	if (catalog_load_default(&cat, &err) != 0) {
		diag_print(stderr, &err);
		return 2;
	}
	if (scale != 1.0)
		printf("predictions scaled by %g (--scale-predictions)\n",
		       scale);
	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		int src = run_set(dir, &sets[i], cat, scale);

		rc = src > rc ? src : rc;
	}
	catalog_free(cat);
	if (measurements && fclose(measurements) != 0) {
		perror("validate: --measurements");
		return 2;
	}
	if (residuals && fclose(residuals) != 0) {
		perror("validate: --residuals");
		return 2;
	}
	if (rc == 0)
		printf("\nall accuracy targets met\n");
	else if (rc == 1)
		printf("\n%d gate%s failed\n", fail_count,
		       fail_count == 1 ? "" : "s");
	else
		printf("\nan input could not be read\n");
	return rc;
}
