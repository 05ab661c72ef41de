/* cmd_report_page.c - the page of 'capplan report': the recommendation,
   the workload, the training and serving tables per device with their
   intervals, the assumptions and their sources, and the charts, written
   as one self-contained HTML page (html.h) from the plans cmd_report.c
   made. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_report_internal.h"
#include "html.h"
#include "readfile.h"
#include "interval.h"
#include "model_recsys.h"
#include "model_recsys_dense.h"
#include "precision.h"

#ifndef CAPPLAN_VERSION
#define CAPPLAN_VERSION "unknown"
#endif

static const char *train_status(const struct report_row *r)
{
	return r->train_rc != 0	   ? "no plan" :
	       !r->train.fits	   ? "memory" :
	       !r->train.has_arch  ? "no arch" :
	       !report_trained(r)	   ? "no end" :
					     "ok";
}

static const char *serve_status(const struct report_row *r)
{
	if (r->per_sample)
		return r->serve_rc != 0		 ? "no plan" :
		       !r->serve.result.fits	 ? "memory" :
		       !r->serve.meets_slo	 ? "SLO" :
						   "ok";
	return r->infer_rc != 0	 ? "no plan" :
	       !r->infer.fits	 ? "memory" :
	       !r->infer.meets_slo ? "SLO" :
					   "ok";
}

/* The layout "tp/pp/dp", with cp and ep where they are used. */
static void layout_text(const struct train_config *c, char *buf, size_t n)
{
	int ep = train_config_ep(c);

	snprintf(buf, n, "%d/%d/%d%s%.0d%s%.0d", c->tp, c->pp, c->dp,
		 c->cp > 1 ? " cp" : "", c->cp > 1 ? c->cp : 0,
		 ep > 1 ? " ep" : "", ep > 1 ? ep : 0);
}

/* An estimate and its 80% interval (interval.h), or nulls. */
static void rec_estimate(struct record *rec, const char *key,
			 const char *label, const char *ilabel, double v,
			 bool known, enum interval_class cls, const char *gpu,
			 bool time_like, enum unit_kind unit, int flags)
{
	double b[2];

	if (!known || !isfinite(v)) {
		rec_null(rec, NULL, key, label, RF_GRID | flags);
		rec_null(rec, "interval", key, ilabel,
			 RF_GRID | flags | RF_PAIR_NULL);
		return;
	}
	rec_num(rec, NULL, key, label, v, unit, RF_GRID | flags);
	/* a run's time and cost are production figures (specs/models.md
	   8.1.1) */
	if (strcmp(key, "time") == 0 || strcmp(key, "cost") == 0)
		interval_of_production(cls, gpu, v, b);
	else
		interval_of(cls, gpu, v, time_like, b);
	rec_pair(rec, "interval", key, ilabel, b[0], b[1], unit,
		 RF_GRID | flags);
}

static int training_table(FILE *out, const struct report_page *pg,
			  const char **why)
{
	struct report rep;
	int rc = 0;

	report_init(&rep, true);
	for (int i = 0; i < pg->nrows; i++) {
		const struct report_row *r = &pg->rows[i];
		const struct train_plan *t = &r->train;
		struct record *rec = report_add_record(&rep);
		bool ok = report_trained(r), cfg = r->train_rc == 0;
		int cls = t->per_sample ? INTERVAL_PER_SAMPLE :
					  INTERVAL_TRAINING;
		char layout[96];

		if (!rec) {
			report_release(&rep);
			*why = "out of memory";
			return -1;
		}
		rec_str(rec, NULL, "gpu", "device", r->gpu->name, RF_GRID);
		rec_str(rec, NULL, "status", "status", train_status(r),
			RF_GRID);
		/* a per-sample model is data parallel: no layout column */
		if (cfg) {
			rec_int(rec, NULL, "gpus", "GPUs", t->config.gpus,
				RF_GRID);
			layout_text(&t->config, layout, sizeof(layout));
			if (!t->per_sample)
				rec_str(rec, NULL, "layout", "tp/pp/dp", layout,
					RF_GRID);
			rec_num(rec, NULL, "memory", "memory per GPU",
				t->result.memory.total_bytes, UNIT_BYTES,
				RF_GRID);
		} else {
			rec_null(rec, NULL, "gpus", "GPUs", RF_GRID);
			if (!r->per_sample)
				rec_null(rec, NULL, "layout", "tp/pp/dp",
					 RF_GRID);
			rec_null(rec, NULL, "memory", "memory per GPU",
				 RF_GRID);
		}
		if (r->per_sample)
			rec_estimate(rec, "rate", "samples/s per GPU",
				     "80% interval",
				     t->result.tokens_per_s_per_gpu, ok, cls,
				     r->gpu->name, false, UNIT_COUNT, 0);
		if (ok)
			rec_num(rec, NULL, "mfu", "MFU", t->result.mfu,
				UNIT_KIND_COUNT, RF_GRID | RF_PERCENT);
		else
			rec_null(rec, NULL, "mfu", "MFU", RF_GRID);
		rec_estimate(rec, "time", "time to train", "80% interval",
			     t->run.time_s, ok, cls, r->gpu->name, true,
			     UNIT_TIME, 0);
		rec_estimate(rec, "cost", "cost", "80% interval",
			     t->run.cost_usd, ok && t->run.cost_usd > 0.0, cls,
			     r->gpu->name, true, UNIT_MONEY, 0);
		if (ok && r->per_sample && t->tokens > 0.0) {
			rec_num(rec, NULL, "usd_msample",
				"$ per M samples",
				t->run.cost_usd * 1e6 / t->tokens, UNIT_MONEY,
				RF_GRID);
			rec_num(rec, NULL, "j_msample",
				"energy per M samples",
				t->run.energy_j * 1e6 / t->tokens, UNIT_ENERGY,
				RF_GRID);
		} else if (r->per_sample) {
			rec_null(rec, NULL, "usd_msample", "$ per M samples",
				 RF_GRID);
			rec_null(rec, NULL, "j_msample",
				 "energy per M samples", RF_GRID);
		}
		if (ok) {
			rec_num(rec, NULL, "energy", "energy",
				t->run.energy_j, UNIT_ENERGY, RF_GRID);
			rec_num(rec, NULL, "goodput", "goodput",
				t->goodput.goodput, UNIT_KIND_COUNT,
				RF_GRID | RF_PERCENT);
		} else {
			rec_null(rec, NULL, "energy", "energy", RF_GRID);
			rec_null(rec, NULL, "goodput", "goodput", RF_GRID);
		}
		rec_str(rec, NULL, "why", "why not", ok ? "" : r->train_why,
			RF_GRID | RF_REASON);
	}
	if (report_write_html(out, &rep, why) != 0)
		rc = -1;
	report_release(&rep);
	return rc;
}

static int serving_table(FILE *out, const struct report_page *pg,
			 const char **why)
{
	struct report rep;
	int rc = 0;

	report_init(&rep, true);
	for (int i = 0; i < pg->nrows; i++) {
		const struct report_row *r = &pg->rows[i];
		const struct infer_plan *p = &r->infer;
		struct record *rec = report_add_record(&rep);
		bool cfg = r->infer_rc == 0, ok = report_served(r);

		if (!rec) {
			report_release(&rep);
			*why = "out of memory";
			return -1;
		}
		rec_str(rec, NULL, "gpu", "device", r->gpu->name, RF_GRID);
		rec_str(rec, NULL, "status", "status", serve_status(r),
			RF_GRID);
		if (cfg) {
			rec_int(rec, NULL, "tp", "tp", p->config.tp, RF_GRID);
			rec_int(rec, NULL, "batch", "batch", p->config.batch,
				RF_GRID);
			rec_int(rec, NULL, "replicas", "replicas",
				p->replicas, RF_GRID);
			rec_int(rec, NULL, "gpus", "GPUs", p->gpus_total,
				RF_GRID);
		} else {
			rec_null(rec, NULL, "tp", "tp", RF_GRID);
			rec_null(rec, NULL, "batch", "batch", RF_GRID);
			rec_null(rec, NULL, "replicas", "replicas", RF_GRID);
			rec_null(rec, NULL, "gpus", "GPUs", RF_GRID);
		}
		rec_estimate(rec, "ttft", "TTFT", "80% interval",
			     p->result.ttft_s, cfg, INTERVAL_TTFT,
			     r->gpu->name, true, UNIT_TIME, 0);
		rec_estimate(rec, "tpot", "TPOT", "80% interval",
			     p->result.tpot_s, cfg, INTERVAL_TPOT,
			     r->gpu->name, true, UNIT_TIME, 0);
		if (cfg) {
			rec_num(rec, NULL, "tps", "tokens/s per GPU",
				p->result.throughput_tokens_per_s_per_gpu,
				UNIT_COUNT, RF_GRID);
			rec_num(rec, NULL, "usd_mtok", "$ per M tokens",
				p->cost_usd_per_million_tokens, UNIT_MONEY,
				RF_GRID);
			rec_num(rec, NULL, "j", "J per token",
				p->result.energy_j_per_token, UNIT_ENERGY,
				RF_GRID);
			rec_num(rec, NULL, "tpmw", "tokens/s per MW",
				p->output_tokens_per_s_per_mw, UNIT_COUNT,
				RF_GRID);
		} else {
			rec_null(rec, NULL, "tps", "tokens/s per GPU",
				 RF_GRID);
			rec_null(rec, NULL, "usd_mtok", "$ per M tokens",
				 RF_GRID);
			rec_null(rec, NULL, "j", "J per token", RF_GRID);
			rec_null(rec, NULL, "tpmw", "tokens/s per MW",
				 RF_GRID);
		}
		rec_str(rec, NULL, "why", "why not", ok ? "" : r->infer_why,
			RF_GRID | RF_REASON);
	}
	if (report_write_html(out, &rep, why) != 0)
		rc = -1;
	report_release(&rep);
	return rc;
}

/* Whether row 'r' simulated its load with a prefix cache. */
static bool row_cached(const struct report_row *r)
{
	return r->serving && r->infer_rc == 0 && r->infer.simulated &&
	       r->infer.fleet.engine.prefix_caching && !r->infer.fleet.disagg;
}

/* What the prefix cache served, a line under the serving table: the
   share of prompt tokens found in it on each device that simulated one
   (specs/models.md 10.9.19), and the host tier's part of it. */
static void cache_line(FILE *out, const struct report_page *pg)
{
	const struct inference_spec *is = &pg->ctx->wl.inference;
	bool host = false;
	char engine[64];
	int n = 0;

	for (int i = 0; i < pg->nrows; i++)
		if (row_cached(&pg->rows[i])) {
			n++;
			host = host ||
			       pg->rows[i].infer.fleet.engine.offload_blocks > 0.0;
		}
	if (n == 0)
		return;
	fputs("<p class=\"note\">", out);
	html_textf(out, "With the prefix cache of %s, the share of prompt "
			"tokens served from the cache under the load%s "
			"(their prefill is not computed again): ",
		   cli_stack_label(is->engine, is->engine_version, engine,
				   sizeof(engine)),
		   host ? ", and from its host-memory tier" : "");
	for (int i = 0, k = 0; i < pg->nrows; i++) {
		const struct report_row *r = &pg->rows[i];
		const struct sim_result *sim = &r->infer.fleet.sim;

		if (!row_cached(r))
			continue;
		html_textf(out, "%s%s %.1f%%", k++ ? ", " : "", r->gpu->name,
			   100.0 * sim->prefix_hit_rate);
		if (r->infer.fleet.engine.offload_blocks > 0.0)
			html_textf(out, " (%.1f%% from host memory)",
				   100.0 * sim->offload_hit_rate);
	}
	fputs(".</p>\n", out);
}

/* Serving per sample: batches of [inference] batch on replicas of the
   fewest GPUs that hold the model (infer_plan.h). */
static int sample_serving_table(FILE *out, const struct report_page *pg,
				const char **why)
{
	struct report rep;
	int rc = 0;

	report_init(&rep, true);
	for (int i = 0; i < pg->nrows; i++) {
		const struct report_row *r = &pg->rows[i];
		const struct sample_serve_plan *p = &r->serve;
		struct record *rec = report_add_record(&rep);
		bool cfg = r->serve_rc == 0, ok = report_served_samples(r);

		if (!rec) {
			report_release(&rep);
			*why = "out of memory";
			return -1;
		}
		rec_str(rec, NULL, "gpu", "device", r->gpu->name, RF_GRID);
		rec_str(rec, NULL, "status", "status", serve_status(r),
			RF_GRID);
		if (cfg) {
			rec_int(rec, NULL, "tp", "GPUs per replica", p->tp,
				RF_GRID);
			rec_int(rec, NULL, "batch", "batch", p->batch, RF_GRID);
			rec_int(rec, NULL, "replicas", "replicas", p->replicas,
				RF_GRID);
			rec_int(rec, NULL, "gpus", "GPUs", p->gpus_total,
				RF_GRID);
		} else {
			rec_null(rec, NULL, "tp", "GPUs per replica", RF_GRID);
			rec_null(rec, NULL, "batch", "batch", RF_GRID);
			rec_null(rec, NULL, "replicas", "replicas", RF_GRID);
			rec_null(rec, NULL, "gpus", "GPUs", RF_GRID);
		}
		rec_estimate(rec, "latency", "latency of a batch",
			     "80% interval", p->result.latency_s, cfg,
			     INTERVAL_SAMPLE_SERVING, r->gpu->name, true,
			     UNIT_TIME, 0);
		rec_estimate(rec, "rate", "samples/s per GPU", "80% interval",
			     cfg ? p->result.throughput_per_s / p->tp : 0.0,
			     cfg, INTERVAL_SAMPLE_SERVING, r->gpu->name, false,
			     UNIT_COUNT, 0);
		if (cfg) {
			rec_num(rec, NULL, "usd_m", "$ per M inferences",
				p->cost_usd_per_million_samples, UNIT_MONEY,
				RF_GRID);
			rec_num(rec, NULL, "j_m", "energy per M inferences",
				p->energy_j_per_sample * 1e6, UNIT_ENERGY,
				RF_GRID);
		} else {
			static const char *const keys[] = {
				"usd_m", "j_m",
			};
			static const char *const labels[] = {
				"$ per M inferences", "energy per M inferences",
			};

			for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]);
			     k++)
				rec_null(rec, NULL, keys[k], labels[k],
					 RF_GRID);
		}
		rec_str(rec, NULL, "why", "why not", ok ? "" : r->infer_why,
			RF_GRID | RF_REASON);
	}
	if (report_write_html(out, &rep, why) != 0)
		rc = -1;
	report_release(&rep);
	return rc;
}

/* The device catalog rows the plans use, with their sources. */
static int assumptions_table(FILE *out, const struct report_page *pg,
			     const char **why)
{
	const struct workload *wl = &pg->ctx->wl;
	/* the peak the plans run at: training's, or for a workload that
	   only serves the math of its weights (fp8 weights, fp8 math) */
	enum precision prec =
		pg->serving_only && wl->model.kind == MODEL_TRANSFORMER ?
			infer_math_precision(wl->inference.weight_precision) :
			wl->training.precision;
	struct report rep;
	char label[64];
	int rc = 0;

	snprintf(label, sizeof(label), "peak %s", precision_name(prec));
	report_init(&rep, true);
	for (int i = 0; i < pg->nrows; i++) {
		const struct report_row *r = &pg->rows[i];
		const struct gpu_spec *g = r->gpu;
		struct record *rec = report_add_record(&rep);
		/* a workload that only serves resolves the cluster for its
		   price too (cmd_report.c) */
		const struct cluster *cl = r->train_rc == 0 || pg->serving_only ?
						   &r->train.cluster :
						   NULL;

		if (!rec) {
			report_release(&rep);
			*why = "out of memory";
			return -1;
		}
		rec_str(rec, NULL, "gpu", "device", g->name, RF_GRID);
		rec_num(rec, NULL, "mem", "memory", g->mem_bytes, UNIT_BYTES,
			RF_GRID);
		rec_num(rec, NULL, "bw", "memory bandwidth",
			g->mem_bw_bytes_per_s, UNIT_BANDWIDTH, RF_GRID);
		rec_num_finite(rec, NULL, "peak", label,
			       g->peak_flops[prec] > 0.0 ? g->peak_flops[prec] :
							   (double)NAN,
			       UNIT_FLOPS, RF_GRID);
		rec_num(rec, NULL, "tdp", "TDP", g->tdp_w, UNIT_POWER,
			RF_GRID);
		rec_num(rec, NULL, "matmul", "GEMM efficiency",
			gpu_matmul_eff(g, prec), UNIT_KIND_COUNT,
			RF_GRID | RF_PERCENT);
		rec_num(rec, NULL, "memeff", "bandwidth efficiency",
			g->mem_eff, UNIT_KIND_COUNT, RF_GRID | RF_PERCENT);
		if (cl && cl->price_usd_per_gpu_hour > 0.0) {
			rec_num(rec, NULL, "price", "$ per GPU-hour",
				cl->price_usd_per_gpu_hour, UNIT_MONEY,
				RF_GRID);
			rec_str(rec, NULL, "basis", "price basis",
				cl->price_basis ? cl->price_basis : "",
				RF_GRID);
		} else {
			rec_null(rec, NULL, "price", "$ per GPU-hour",
				 RF_GRID);
			rec_null(rec, NULL, "basis", "price basis", RF_GRID);
		}
		rec_str(rec, NULL, "source", "source", g->source,
			RF_GRID | RF_REASON);
	}
	if (report_write_html(out, &rep, why) != 0)
		rc = -1;
	report_release(&rep);
	return rc;
}

/* A line of the workload's description list. */
static void fact(FILE *out, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void fact(FILE *out, const char *what, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fputs("<tr><td class=\"t\">", out);
	html_text(out, what);
	fputs("</td><td class=\"t\">", out);
	html_text(out, buf);
	fputs("</td></tr>\n", out);
}

static void workload_section(FILE *out, const struct report_page *pg)
{
	const struct workload *wl = &pg->ctx->wl;
	const struct model_spec *m = &wl->model;
	const struct inference_spec *is = &wl->inference;
	const struct report_row *r0 = NULL;
	char a[64], b[64];

	for (int i = 0; i < pg->nrows && !r0; i++)
		if (pg->rows[i].train_rc == 0)
			r0 = &pg->rows[i];
	fputs("<section>\n<h2>Workload</h2>\n<div class=\"wrap\"><table>\n",
	      out);
	fact(out, "model", "%s (%s)", report_wl_name(pg->ctx), model_kind_name(m->kind));
	if (r0) {
		units_format(a, sizeof(a), r0->train.params, UNIT_COUNT, 4);
		fact(out, "parameters", "%s", a);
		if (r0->train.has_arch && !r0->train.per_sample) {
			units_format(b, sizeof(b), r0->train.tokens,
				     UNIT_COUNT, 4);
			fact(out, "tokens to train on", "%s", b);
		}
	}
	if (model_has_arch(m))
		fact(out, "architecture",
		     "%d layers, hidden %d, %d heads (%d KV), sequence %d",
		     m->layers, m->hidden, m->heads,
		     m->kv_heads > 0 ? m->kv_heads : m->heads, m->seq_len);
	if (r0 && r0->train.per_sample) {
		units_format(b, sizeof(b), r0->train.tokens, UNIT_COUNT, 4);
		double ep = wl->training.epochs > 0 ? wl->training.epochs :
						      1.0;

		fact(out, "samples to train on", "%s (%.4g epoch%s)", b, ep,
		     ep == 1.0 ? "" : "s");
	}
	if (m->kind == MODEL_RECSYS) {
		units_format(a, sizeof(a), m->embedding_rows, UNIT_COUNT, 4);
		fact(out, "embedding tables",
		     "%d tables of %s rows%s x %d (%s), %.4g lookups per sample",
		     m->embedding_tables, a,
		     m->table_rows.n > 1 ? " on average" : "",
		     m->embedding_dim, precision_name(m->embedding_precision),
		     recsys_lookups(m));
		/* the network's own counts (its layers when given), not the
		   totals keys, which are 0 then */
		units_format(a, sizeof(a), recsys_dense_params(m), UNIT_COUNT,
			     4);
		units_format(b, sizeof(b), recsys_dense_flops(m), UNIT_COUNT,
			     4);
		fact(out, "dense network", "%s parameters, %s FLOPs per sample "
					   "forward", a, b);
	} else if (m->kind == MODEL_GENERIC) {
		units_format(b, sizeof(b), m->flops_per_sample, UNIT_COUNT, 4);
		if (m->graph.n_ops)
			fact(out, "network", "ONNX graph %s: %.0f operators, "
					     "%s FLOPs per sample forward",
			     m->onnx, m->graph.nodes, b);
		else
			fact(out, "network", "%s FLOPs per sample forward, "
					     "one roofline over the totals",
			     b);
	}
	fact(out, "training framework", "%s",
	     cli_stack_label(wl->training.framework,
			     wl->training.framework_version, a, sizeof(a)));
	fact(out, "training precision", "%s",
	     precision_name(wl->training.precision));
	if (wl->training.gpus > 0)
		fact(out, "training GPUs (held fixed)", "%d",
		     wl->training.gpus);
	else
		fact(out, "training GPUs", "%s",
		     "chosen per device (the node size unless given)");
	if (pg->rows && pg->nrows && pg->rows[0].serving) {
		fact(out, "serving engine", "%s",
		     cli_stack_label(is->engine, is->engine_version, a,
				     sizeof(a)));
		fact(out, "serving", "%d prompt + %d output tokens, weights %s",
		     is->prompt_tokens, is->output_tokens,
		     precision_name(is->weight_precision));
		if (is->qps > 0.0)
			fact(out, "request rate", "%.4g requests/s", is->qps);
		if (is->ttft_slo_s > 0.0 || is->tpot_slo_s > 0.0) {
			units_format(a, sizeof(a), is->ttft_slo_s, UNIT_TIME,
				     4);
			units_format(b, sizeof(b), is->tpot_slo_s, UNIT_TIME,
				     4);
			fact(out, "latency targets", "%s TTFT %s, TPOT %s",
			     slo_percentile_name(is->percentile),
			     is->ttft_slo_s > 0.0 ? a : "none",
			     is->tpot_slo_s > 0.0 ? b : "none");
		}
	}
	if (pg->rows && pg->nrows && pg->rows[0].per_sample) {
		const struct report_row *sv = NULL;

		for (int i = 0; i < pg->nrows && !sv; i++)
			if (pg->rows[i].serve_rc == 0)
				sv = &pg->rows[i];
		fact(out, "serving", "batches of %d, weights %s",
		     sv ? sv->serve.batch : is->batch,
		     precision_name(is->weight_precision));
		if (is->qps > 0.0)
			fact(out, "request rate", "%.4g samples/s", is->qps);
		if (is->ttft_slo_s > 0.0) {
			units_format(a, sizeof(a), is->ttft_slo_s, UNIT_TIME, 4);
			fact(out, "latency target", "%s latency of a batch %s",
			     slo_percentile_name(is->percentile), a);
		}
	}
	if (pg->ctx->workload_path)
		fact(out, "workload file", "%s",
		     readfile_display_name(pg->ctx->workload_path));
	for (int i = 0; i < pg->ctx->nsets; i++)
		fact(out, "--set", "%s", pg->ctx->sets[i]);
	fputs("</table></div>\n</section>\n", out);
}

static void assumptions_section(FILE *out, const struct report_page *pg,
				const char **why, int *rc)
{
	const struct workload *wl = &pg->ctx->wl;
	const struct report_row *r0 = NULL;

	for (int i = 0; i < pg->nrows && !r0; i++)
		if (pg->rows[i].train_rc == 0)
			r0 = &pg->rows[i];
	fputs("<section>\n<h2>Assumptions and sources</h2>\n", out);
	fputs("<p>Device figures are the catalog's (the datasheet named in "
	      "each row); the efficiencies are the fractions of the peaks "
	      "that large GEMMs and streaming reach, from the same "
	      "catalog.</p>\n",
	      out);
	if (assumptions_table(out, pg, why) != 0)
		*rc = -1;
	fputs("<ul class=\"note\">\n", out);
	if (r0)
		fprintf(out,
			"<li>Facility: PUE %.3g, host power %.0f%% of GPU "
			"power, electricity $%.3g per kWh.</li>\n",
			r0->train.cluster.pue,
			100.0 * r0->train.cluster.host_overhead,
			r0->train.cluster.price_usd_per_kwh);
	fprintf(out,
		"<li>Failures: %.3g job-interrupting failures per million "
		"GPU-hours, %.0f s to restart; time to train is the expected "
		"wall clock as production runs report it: the plan's steady "
		"rate, with failures, checkpoints and restarts, over a "
		"production efficiency of %.0f%% (job start, evaluation, "
		"stragglers, a production stack; <code>specs/models.md</code> "
		"8.1.1).</li>\n",
		wl->cluster.failures_per_gpu_hour * 1e6, wl->cluster.restart_s,
		100.0 * (wl->training.production_efficiency > 0.0 ?
				 wl->training.production_efficiency :
				 WL_PRODUCTION_EFFICIENCY));
	fputs("<li>Formulas, with units and their published sources: "
	      "<code>specs/models.md</code>; the catalog's columns: "
	      "<code>specs/catalog.md</code>.</li>\n"
	      "<li>80% intervals come from capplan's own errors on the "
	      "published runs of <code>tests/validation/</code> "
	      "(<code>specs/validation.md</code>); they are wider on a "
	      "device the validation does not cover.</li>\n"
	      "</ul>\n</section>\n",
	      out);
}

/* The best feasible row by 'key' (smaller is better), or NULL. */
static const struct report_row *
best_by(const struct report_page *pg, bool (*ok)(const struct report_row *),
	double (*key)(const struct report_row *))
{
	const struct report_row *best = NULL;

	for (int i = 0; i < pg->nrows; i++)
		if (ok(&pg->rows[i]) && isfinite(key(&pg->rows[i])) &&
		    (!best || key(&pg->rows[i]) < key(best)))
			best = &pg->rows[i];
	return best;
}

static double k_time(const struct report_row *r)
{
	return r->train.run.time_s;
}

static double k_cost(const struct report_row *r)
{
	return r->train.run.cost_usd > 0.0 ? r->train.run.cost_usd :
					     (double)NAN;
}

static double k_token_cost(const struct report_row *r)
{
	return r->infer.cost_usd_per_million_tokens > 0.0 ?
		       r->infer.cost_usd_per_million_tokens :
		       (double)NAN;
}

static double k_tpot(const struct report_row *r)
{
	return r->infer.result.tpot_s;
}

static double k_sample_cost(const struct report_row *r)
{
	return r->serve.cost_usd_per_million_samples > 0.0 ?
		       r->serve.cost_usd_per_million_samples :
		       (double)NAN;
}

static double k_latency(const struct report_row *r)
{
	return r->serve.result.latency_s;
}

/* The runner-up by 'key' after 'best', or NULL. */
static const struct report_row *
second_by(const struct report_page *pg, const struct report_row *best,
	  bool (*ok)(const struct report_row *),
	  double (*key)(const struct report_row *))
{
	const struct report_row *s = NULL;

	for (int i = 0; i < pg->nrows; i++) {
		const struct report_row *r = &pg->rows[i];

		if (r != best && ok(r) && isfinite(key(r)) &&
		    (!s || key(r) < key(s)))
			s = r;
	}
	return s;
}

/* One pick: "<li><b>what</b>: DEVICE, figure; next, why</li>". */
static void pick(FILE *out, const struct report_page *pg, const char *what,
		 bool (*ok)(const struct report_row *),
		 double (*key)(const struct report_row *), enum unit_kind unit,
		 const char *per)
{
	const struct report_row *b = best_by(pg, ok, key), *s;
	char v[48], w[48];

	fputs("<li><b>", out);
	html_text(out, what);
	fputs("</b>: ", out);
	if (!b) {
		fputs("no device qualifies.</li>\n", out);
		return;
	}
	s = second_by(pg, b, ok, key);
	units_format_plain(v, sizeof(v), key(b), unit, 3);
	html_text(out, b->gpu->name);
	html_textf(out, " (%s%s", v, per);
	if (ok == report_trained)
		html_textf(out, " on %d GPU%s", b->train.config.gpus,
			   b->train.config.gpus == 1 ? "" : "s");
	else if (ok == report_served_samples)
		html_textf(out, " with %d GPU%s, batches of %d",
			   b->serve.gpus_total,
			   b->serve.gpus_total == 1 ? "" : "s", b->serve.batch);
	else
		html_textf(out, " with %d GPU%s", b->infer.gpus_total,
			   b->infer.gpus_total == 1 ? "" : "s");
	fputs(")", out);
	if (s) {
		units_format_plain(w, sizeof(w), key(s), unit, 3);
		html_textf(out, "; next is %s at %s%s, %.0f%% more", s->gpu->name,
			   w, per, 100.0 * (key(s) / key(b) - 1.0));
	}
	fputs(".</li>\n", out);
}

/* The training plans, or why there are none: a serving-only workload. */
static int training_section(FILE *out, const struct report_page *pg,
			    const char **why)
{
	int rc = 0;

	if (pg->serving_only) {
		fputs("<section>\n<h2>Training</h2>\n<p class=\"note\">Not "
		      "planned: the workload gives a serving load and no "
		      "<code>[training] tokens</code> (or samples) or GPU "
		      "count; give them to plan a training run.</p>\n"
		      "</section>\n",
		      out);
		return 0;
	}
	fputs("<section>\n<h2>Training plan per device</h2>\n"
	      "<p class=\"note\">", out);
	if (pg->ctx->wl.training.gpus > 0)
		html_textf(out, "On %d GPUs of each device (held fixed). ",
			   pg->ctx->wl.training.gpus);
	fputs("Time to train is the expected wall clock as production runs "
	      "report it (failures, checkpoints, restarts and the "
	      "production efficiency included); energy is the "
	      "facility's.</p>\n",
	      out);
	if (training_table(out, pg, why) != 0)
		rc = -1;
	fputs("</section>\n", out);
	return rc;
}

static void recommendation_section(FILE *out, const struct report_page *pg)
{
	bool per_sample = pg->nrows && pg->rows[0].per_sample;
	const struct report_row *cheap = best_by(pg, report_trained, k_cost);
	const struct report_row *serve =
		per_sample ? best_by(pg, report_served_samples, k_sample_cost) :
			     best_by(pg, report_served, k_token_cost);

	fputs("<section>\n<h2>Recommendation</h2>\n<div class=\"pick\">\n",
	      out);
	if (cheap || serve) {
		fputs("<p>", out);
		if (cheap)
			html_textf(out, "Train on %s: the lowest cost of the "
					"devices that fit and finish. ",
				   cheap->gpu->name);
		if (serve)
			html_textf(out, "Serve on %s: the lowest cost per "
					"%s among the devices that meet "
					"the latency %s.",
				   serve->gpu->name,
				   per_sample ? "inference" : "token",
				   per_sample ? "target" : "targets");
		fputs("</p>\n", out);
	} else {
		fputs("<p>No device trains or serves this workload as "
		      "given; the tables below say why.</p>\n",
		      out);
	}
	fputs("<ul>\n", out);
	if (!pg->serving_only) {
		pick(out, pg, "Fastest training", report_trained, k_time,
		     UNIT_TIME, "");
		pick(out, pg, "Cheapest training", report_trained, k_cost,
		     UNIT_MONEY, "");
	}
	if (pg->nrows && pg->rows[0].serving) {
		pick(out, pg, "Cheapest serving", report_served, k_token_cost,
		     UNIT_MONEY, " per M tokens");
		pick(out, pg, "Lowest time per output token", report_served, k_tpot,
		     UNIT_TIME, "");
		if (pg->mix_note[0]) {
			/* cli_mix_summary's sentence without its lead */
			static const char lead[] = "a mixed fleet is cheaper: ";
			size_t n = sizeof(lead) - 1;

			fputs("<li><b>Cheaper as a mixed fleet</b>: ", out);
			html_text(out, strncmp(pg->mix_note, lead, n) == 0 ?
					       pg->mix_note + n :
					       pg->mix_note);
			fputs("</li>\n", out);
		}
	}
	if (per_sample) {
		pick(out, pg, "Cheapest serving", report_served_samples,
		     k_sample_cost, UNIT_MONEY, " per M inferences");
		pick(out, pg, "Lowest latency of a batch", report_served_samples,
		     k_latency, UNIT_TIME, "");
	}
	fputs("</ul>\n</div>\n</section>\n", out);
}

/*
 * A chart's SVG, its fill patterns renamed after the chart ('gpPat1' ->
 * 'gpPat4x1'): every chart of gnuplot numbers them from 1, and one page
 * holds several charts, where an id names one element.
 */
static void put_svg(FILE *out, const char *svg, int chart)
{
	static const char id[] = "gpPat";
	const char *p = svg, *q;

	while ((q = strstr(p, id))) {
		fwrite(p, 1, (size_t)(q - p) + sizeof(id) - 1, out);
		fprintf(out, "%dx", chart);
		p = q + sizeof(id) - 1;
	}
	fputs(p, out);
}

static void charts_section(FILE *out, const struct report_page *pg)
{
	int n = 0;

	fputs("<section class=\"charts\">\n<h2>Charts</h2>\n", out);
	if (pg->chart_note[0]) {
		fputs("<p class=\"note\">", out);
		html_text(out, pg->chart_note);
		fputs("</p>\n", out);
	}
	for (int k = 0; k < PLOT_KIND_COUNT; k++) {
		if (!pg->svg[k])
			continue;
		n++;
		fprintf(out, "<figure id=\"chart-%s\">\n",
			plot_kind_name((enum plot_kind)k));
		if (pg->png) {
			/* the PNG inline, as a data: URI (nothing to load) */
			fputs("<img alt=\"", out);
			html_text(out, plot_kind_summary_for(
					       (enum plot_kind)k,
					       pg->nrows &&
						       pg->rows[0].per_sample));
			fputs("\" src=\"data:image/png;base64,", out);
			html_base64(out, (const unsigned char *)pg->svg[k],
				    pg->svg_len[k]);
			fputs("\">", out);
		} else {
			/* gnuplot's SVG, its text escaped by gnuplot */
			put_svg(out, pg->svg[k], k);
		}
		fputs("\n<figcaption>", out);
		html_textf(out, "Figure %d: %s.", n,
			   plot_kind_summary_for((enum plot_kind)k,
						 pg->nrows &&
							 pg->rows[0].per_sample));
		fputs("</figcaption>\n</figure>\n", out);
	}
	fputs("</section>\n", out);
}

int report_write_page(FILE *out, const void *arg, const char **why)
{
	const struct report_page *pg = arg;
	char title[PLOT_TITLE_MAX];
	int rc = 0;

	snprintf(title, sizeof(title), "Capacity plan: %s",
		 report_wl_name(pg->ctx));
	html_begin(out, title);
	fputs("<h1>", out);
	html_text(out, title);
	fputs("</h1>\n<p class=\"sub\">", out);
	html_textf(out, "capplan %s, %d device%s. Every figure is a model "
			"estimate; the 80%% intervals say how far the "
			"published runs were from the models.",
		   CAPPLAN_VERSION, pg->nrows, pg->nrows == 1 ? "" : "s");
	fputs("</p>\n", out);
	recommendation_section(out, pg);
	workload_section(out, pg);
	if (training_section(out, pg, why) != 0)
		rc = -1;
	if (pg->nrows && pg->rows[0].serving) {
		fputs("<section>\n<h2>Serving plan per device</h2>\n"
		      "<p class=\"note\">The tensor-parallel size, batch and "
		      "replicas capplan chose for the request rate and the "
		      "latency targets of the workload.</p>\n",
		      out);
		if (serving_table(out, pg, why) != 0)
			rc = -1;
		cache_line(out, pg);
		fputs("</section>\n", out);
	} else if (pg->nrows && pg->rows[0].per_sample) {
		fputs("<section>\n<h2>Serving plan per device</h2>\n"
		      "<p class=\"note\">Batches of the workload's "
		      "<code>[inference] batch</code> on replicas of the "
		      "fewest GPUs that hold the model, and the replicas for "
		      "its rate of samples/s; the latency is that of one "
		      "batch (with a rate, the target holds for the batch "
		      "latency with queueing). Cost and energy are per "
		      "million inferences.</p>\n",
		      out);
		if (sample_serving_table(out, pg, why) != 0)
			rc = -1;
		fputs("</section>\n", out);
	}
	assumptions_section(out, pg, why, &rc);
	charts_section(out, pg);
	html_end(out);
	return rc;
}

