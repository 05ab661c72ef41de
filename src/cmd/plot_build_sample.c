/* plot_build_sample.c - the charts of a model costed per sample, from
   its training plans (plan.h) and serving plans (infer_plan.h); see
   plot_build_sample.h. */
#include "plot_build_sample.h"
#include "plot_build.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infer_plan.h"
#include "model_sample.h"
#include "plan.h"
#include "precision.h"
#include "units.h"

/* Largest GPU count of the training charts, unless --gpus is larger. */
#define SAMPLE_MAX_GPUS 16384
#define SAMPLE_MAX_POINTS 40
/* Largest batch of the latency chart, unless the plan's is larger. */
#define SAMPLE_MAX_BATCH 65536
/* The request rates of the replicas chart: from a fraction of the
   slowest device's replica to a multiple of the fastest one's, in
   geometric steps. */
#define SAMPLE_QPS_LO 0.2
#define SAMPLE_QPS_HI 300.0
#define SAMPLE_QPS_STEPS 24

#define SECONDS_PER_DAY 86400.0

/* What the training charts hold fixed: the precision and the batch. */
static void train_held(const struct cli_ctx *ctx, char *buf, size_t n,
		       const char *tail)
{
	const struct training_spec *t = &ctx->wl.training;
	char gb[48];

	if (t->global_batch > 0)
		snprintf(gb, sizeof(gb), "global batch %d samples",
			 t->global_batch);
	else
		snprintf(gb, sizeof(gb), "%s", "global batch chosen");
	snprintf(buf, n, "%s training, %s; %s", precision_name(t->precision),
		 gb, tail);
}

/* What the serving charts hold fixed: the weights and the replica. */
static void serve_held(const struct cli_ctx *ctx, char *buf, size_t n,
		       const char *tail)
{
	snprintf(buf, n, "%s weights, each device at the GPUs per replica of "
			 "its plan; %s",
		 precision_name(ctx->wl.inference.weight_precision), tail);
}

/* A fitting training plan at one GPU count. */
struct sample_point {
	int gpus;
	double rate_per_gpu; /* samples/s per GPU of a step */
	double time_s;       /* expected wall clock (model_goodput.h) */
	double cost_usd;
	double goodput;
	double samples;      /* trained on */
};

static int max_gpus(const struct cli_ctx *ctx)
{
	return ctx->gpus_arg && ctx->wl.training.gpus > SAMPLE_MAX_GPUS ?
		       ctx->wl.training.gpus :
		       SAMPLE_MAX_GPUS;
}

/* Plan 'g' at gpus_per_node x 2^k GPUs; fitting points that finish
   only.  Returns their number; 'why' says why the last one failed. */
static int sample_points(const struct cli_ctx *ctx, const struct gpu_spec *g,
			 struct sample_point *pts, char *why, size_t n)
{
	struct workload w = ctx->wl;
	int per_node = w.cluster.gpus_per_node > 0 ? w.cluster.gpus_per_node :
						     g->gpus_per_node;
	int np = 0, top = max_gpus(ctx);

	snprintf(why, n, "it does not fit on up to %d GPUs", top);
	if (per_node < 1)
		per_node = 1;
	for (long gpus = per_node; gpus <= top && np < SAMPLE_MAX_POINTS;
	     gpus *= 2) {
		struct train_plan p;
		struct diag err;

		diag_clear(&err);
		w.training.gpus = (int)gpus;
		if (train_plan_make(&w, g, &p, &err) != 0) {
			snprintf(why, n, "%s", err.msg);
			continue;
		}
		if (!p.fits || !(p.run.time_s > 0.0) || !p.goodput.finishes ||
		    !(p.result.tokens_per_s_per_gpu > 0.0))
			continue;
		pts[np] = (struct sample_point){
			.gpus = (int)gpus,
			.rate_per_gpu = p.result.tokens_per_s_per_gpu,
			.time_s = p.run.time_s,
			.cost_usd = p.run.cost_usd,
			.goodput = p.goodput.goodput,
			.samples = p.tokens,
		};
		np++;
	}
	return np;
}

/* The samples of the workload, as its plans count them (samples x
   epochs); 0 when unknown. */
static double workload_samples(const struct workload *wl)
{
	double epochs = wl->training.epochs > 0 ? wl->training.epochs : 1.0;

	return wl->training.samples > 0.0 ? wl->training.samples * epochs :
					    0.0;
}

/* The limits of the command line: --deadline, --budget (checked by the
   command). */
static void chart_limits(const struct cli_ctx *ctx, struct plot_chart *c)
{
	double v;

	if (ctx->deadline_arg &&
	    units_parse(ctx->deadline_arg, UNIT_TIME, &v, NULL) == 0 &&
	    v > 0.0) {
		c->deadline_days = v / SECONDS_PER_DAY;
		c->deadline_s = v;
	}
	if (ctx->budget_arg &&
	    units_parse(ctx->budget_arg, UNIT_MONEY, &v, NULL) == 0 &&
	    v > 0.0)
		c->budget_usd = v;
}

static int build_scaling(struct cli_ctx *ctx, struct plot_chart *c)
{
	struct sample_point pts[SAMPLE_MAX_POINTS];
	char why[DIAG_MSG_MAX];

	snprintf(c->title, sizeof(c->title), "Training throughput per GPU: %s",
		 plot_wl_name(ctx));
	train_held(ctx, c->held, sizeof(c->held),
		   "at each GPU count the fastest configuration that fits");
	chart_limits(ctx, c);
	c->budget_usd = 0.0;
	c->samples = workload_samples(&ctx->wl);
	for (int i = 0; i < ctx->ngpus; i++) {
		const struct gpu_spec *g = ctx->gpus[i];
		int np = sample_points(ctx, g, pts, why, sizeof(why));
		struct plot_series *s;
		double best = 0.0;

		if (np == 0) {
			plot_note_skip(ctx, g, why);
			continue;
		}
		s = plot_chart_add_device(c, g->name, g->name, i + 1);
		if (!s)
			return plot_oom();
		/* ideal: the best per-GPU rate kept at every count */
		for (int k = 0; k < np; k++)
			best = fmax(best, pts[k].rate_per_gpu);
		for (int k = 0; k < np; k++) {
			double row[4] = { pts[k].gpus, pts[k].rate_per_gpu,
					  best, pts[k].goodput };

			if (plot_series_add_row(c, s, row) != 0)
				return plot_oom();
		}
	}
	plot_goodput_legend(c);
	return EXIT_OK;
}

static int build_cost_time(struct cli_ctx *ctx, struct plot_chart *c)
{
	struct sample_point pts[SAMPLE_MAX_POINTS];
	char why[DIAG_MSG_MAX];
	/* rows of 4: time (days), $ per million samples, GPUs, device */
	double *all = malloc((size_t)ctx->ngpus * SAMPLE_MAX_POINTS * 4 *
			     sizeof(*all));
	size_t nall = 0;

	if (!all)
		return plot_oom();
	snprintf(c->title, sizeof(c->title),
		 "Cost per million samples and time to train: %s",
		 plot_wl_name(ctx));
	train_held(ctx, c->held, sizeof(c->held),
		   "GPUs = node x 2^k, each device at its GPU-hour price");
	chart_limits(ctx, c);
	c->samples = workload_samples(&ctx->wl);
	for (int i = 0; i < ctx->ngpus; i++) {
		const struct gpu_spec *g = ctx->gpus[i];
		int np = sample_points(ctx, g, pts, why, sizeof(why));
		struct plot_series *s = NULL;

		for (int k = 0; k < np; k++) {
			double row[4] = { pts[k].time_s / SECONDS_PER_DAY,
					  pts[k].cost_usd * 1e6 /
						  pts[k].samples,
					  pts[k].gpus, i };

			if (!(row[1] > 0.0) || !isfinite(row[1]))
				continue; /* no price: not on a log axis */
			if (!s) {
				s = plot_chart_add_device(c, g->name, g->name,
							  i + 1);
			}
			if (!s || plot_series_add_row(c, s, row) != 0)
				goto out_oom;
			memcpy(all + 4 * nall++, row, sizeof(row));
		}
		if (!s)
			plot_note_skip(ctx, g, np ? "it has no GPU-hour price" : why);
	}
	if (plot_pareto_front(ctx, c, all, nall) != 0)
		goto out_oom;
	free(all);
	return EXIT_OK;
out_oom:
	free(all);
	return plot_oom();
}

/* The serving plan of 'wl' on 'g'; false (with a note unless 'quiet')
   when there is none. */
static bool serve_plan(const struct cli_ctx *ctx, const struct workload *wl,
		       const struct gpu_spec *g, struct sample_serve_plan *p,
		       bool quiet)
{
	struct diag err;

	diag_clear(&err);
	if (sample_serve_plan_make(wl, g, p, &err) != 0) {
		if (!quiet)
			plot_note_skip(ctx, g, err.msg);
		return false;
	}
	return true;
}

/* "L4, replicas of 4 GPUs" or "H100-SXM": a device and its replica. */
static void replica_label(char *buf, size_t n, const struct gpu_spec *g,
			  int tp)
{
	if (tp > 1)
		snprintf(buf, n, "%s, replicas of %d GPUs", g->name, tp);
	else
		snprintf(buf, n, "%s", g->name);
}

/*
 * The latency of a batch against the batch (1, 2, 4, ... and the plan's,
 * while it fits) and the samples/s per GPU it serves: one replica of
 * each device's plan, batches back to back.
 */
static int build_latency(struct cli_ctx *ctx, struct plot_chart *c)
{
	const struct inference_spec *is = &ctx->wl.inference;

	snprintf(c->title, sizeof(c->title), "Latency and throughput: %s",
		 plot_wl_name(ctx));
	serve_held(ctx, c->held, sizeof(c->held),
		   "batches back to back on one replica");
	c->latency_slo_ms = is->ttft_slo_s * 1e3;
	for (int i = 0; i < ctx->ngpus; i++) {
		const struct gpu_spec *g = ctx->gpus[i];
		struct sample_serve_plan p;
		struct plot_series *s = NULL;
		char label[PLOT_LABEL_MAX];
		int top;

		if (!serve_plan(ctx, &ctx->wl, g, &p, false))
			continue;
		if (!p.result.fits) {
			plot_note_skip(ctx, g, p.why[0] ? p.why :
						"the model does not fit for "
						"serving");
			continue;
		}
		top = p.batch > SAMPLE_MAX_BATCH ? p.batch : SAMPLE_MAX_BATCH;
		replica_label(label, sizeof(label), g, p.tp);
		/* powers of two, and the plan's batch in its place */
		for (long pw = 1, b;; ) {
			struct sample_infer r;

			if (p.batch < pw && p.batch > pw / 2 &&
			    (p.batch & (p.batch - 1)) != 0 &&
			    (!s || s->v[(s->rows - 1) * 3] < p.batch))
				b = p.batch;
			else
				b = pw, pw *= 2;
			if (b > top ||
			    sample_infer_eval(&ctx->wl.model, p.tp, (int)b,
					      is->weight_precision, g,
					      &p.cluster, &r) != 0 ||
			    !r.fits)
				break;
			double row[3] = { (double)b, r.throughput_per_s / p.tp,
					  r.latency_s * 1e3 };
			if (!s) {
				s = plot_chart_add_device(c, label, g->name,
							  i + 1);
				if (!s)
					return plot_oom();
			}
			if (plot_series_add_row(c, s, row) != 0)
				return plot_oom();
		}
	}
	return EXIT_OK;
}

/* The GPUs a rate of samples/s needs, per device, under the latency
   target of a batch. */
static int build_replicas(struct cli_ctx *ctx, struct plot_chart *c)
{
	const struct inference_spec *is = &ctx->wl.inference;
	double lo = HUGE_VAL, hi = 0.0;
	char tail[64];
	int batch = 0;

	snprintf(c->title, sizeof(c->title), "GPUs for a rate of samples: %s",
		 plot_wl_name(ctx));
	c->latency_slo_ms = is->ttft_slo_s * 1e3;
	if (is->ttft_slo_s > 0.0)
		snprintf(c->note, sizeof(c->note),
			 "%s latency of a batch at most %.4g ms",
			 slo_percentile_name(is->percentile),
			 is->ttft_slo_s * 1e3);
	else
		snprintf(c->note, sizeof(c->note), "no latency SLO");
	/* the range of rates: from the slowest replica to the fastest */
	for (int i = 0; i < ctx->ngpus; i++) {
		struct sample_serve_plan p;
		struct workload w = ctx->wl;

		w.inference.qps = 0.0;
		if (serve_plan(ctx, &w, ctx->gpus[i], &p, true) &&
		    p.result.fits && p.result.throughput_per_s > 0.0) {
			batch = p.batch;
			lo = fmin(lo, p.result.throughput_per_s);
			hi = fmax(hi, p.result.throughput_per_s);
		}
	}
	if (!(hi > 0.0))
		return EXIT_OK;
	snprintf(tail, sizeof(tail), "batches of %d", batch);
	serve_held(ctx, c->held, sizeof(c->held), tail);
	lo *= SAMPLE_QPS_LO;
	hi *= SAMPLE_QPS_HI;
	for (int i = 0; i < ctx->ngpus; i++) {
		const struct gpu_spec *g = ctx->gpus[i];
		struct workload w = ctx->wl;
		struct plot_series *s = NULL;
		struct sample_serve_plan p;
		char why[sizeof(p.why)] = "it meets the SLO at no rate";
		char label[PLOT_LABEL_MAX];
		bool planned = false;

		for (int k = 0; k <= SAMPLE_QPS_STEPS; k++) {
			double q = lo * pow(hi / lo, (double)k /
							     SAMPLE_QPS_STEPS);

			w.inference.qps = q;
			if (!serve_plan(ctx, &w, g, &p, planned))
				break;
			planned = true;
			if (!p.result.fits || !p.meets_slo) {
				if (p.why[0])
					snprintf(why, sizeof(why), "%s", p.why);
				continue;
			}
			/* no tokens: no tokens per MW */
			double row[5] = { q, p.gpus_total, p.replicas, p.tp,
					  (double)NAN };
			if (!s) {
				replica_label(label, sizeof(label), g, p.tp);
				s = plot_chart_add_device(c, label, g->name,
							  i + 1);
			}
			if (!s || plot_series_add_row(c, s, row) != 0)
				return plot_oom();
		}
		if (!s && planned)
			plot_note_skip(ctx, g, why);
	}
	return EXIT_OK;
}

/* Energy per million samples: trained (the plan's facility energy over
   its samples) and served (one replica of the serving plan flat out). */
static int build_energy(struct cli_ctx *ctx, struct plot_chart *c)
{
	struct plot_series *s = plot_chart_add_series(c, "energy",
						      PLOT_ROLE_BARS, 0);
	char tail[128];

	if (!s)
		return plot_oom();
	snprintf(c->title, sizeof(c->title),
		 "Energy per million samples: %s", plot_wl_name(ctx));
	if (ctx->wl.training.gpus > 0)
		snprintf(tail, sizeof(tail), "training on %d GPUs, serving "
			 "at the plan's batch; facility energy",
			 ctx->wl.training.gpus);
	else
		snprintf(tail, sizeof(tail), "%s",
			 "training on one node, serving at the plan's batch; "
			 "facility energy");
	train_held(ctx, c->held, sizeof(c->held), tail);
	for (int i = 0; i < ctx->ngpus; i++) {
		const struct gpu_spec *g = ctx->gpus[i];
		struct sample_serve_plan sp;
		struct train_plan p;
		struct diag err;
		double v[3] = { 0, NAN, NAN };
		const char *twhy = "no legal configuration";
		int row, rc;

		diag_clear(&err);
		rc = train_plan_make(&ctx->wl, g, &p, &err);
		if (rc == 0 && p.fits && p.goodput.finishes && p.tokens > 0.0)
			v[1] = p.run.energy_j * 1e6 / p.tokens;
		else if (rc == 0)
			twhy = !p.fits ? "does not fit" : "does not finish";
		if (serve_plan(ctx, &ctx->wl, g, &sp, true) && sp.result.fits)
			v[2] = sp.energy_j_per_sample * 1e6;
		row = plot_chart_add_cat(c, g->name);
		if (row < 0)
			break;
		v[0] = row;
		plot_device_style(g->name, c->cat_rgb[row], &(int){ 0 });
		if (isnan(v[1]))
			snprintf(c->cat_why[row][0], PLOT_WHY_MAX, "%s", twhy);
		if (isnan(v[2]))
			snprintf(c->cat_why[row][1], PLOT_WHY_MAX, "%s",
				 "does not serve");
		if (plot_series_add_row(c, s, v) != 0)
			return plot_oom();
	}
	return EXIT_OK;
}

int plot_build_sample(struct cli_ctx *ctx, enum plot_kind kind,
		      struct plot_chart *c)
{
	plot_chart_set_per_sample(c);
	switch (kind) {
	case PLOT_SCALING:
		return build_scaling(ctx, c);
	case PLOT_COST_TIME:
		return build_cost_time(ctx, c);
	case PLOT_LATENCY:
		return build_latency(ctx, c);
	case PLOT_REPLICAS:
		return build_replicas(ctx, c);
	case PLOT_ENERGY:
		return build_energy(ctx, c);
	case PLOT_MEMORY:   /* plot_build's, with per-sample labels */
	case PLOT_ROOFLINE: /* none: refused by the commands */
	case PLOT_CACHE:    /* no prefix cache: refused by the commands */
	case PLOT_KIND_COUNT:
		break;
	}
	return EXIT_USAGE;
}
