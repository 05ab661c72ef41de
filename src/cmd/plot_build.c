/* plot_build.c - the data of each chart kind from the models: the
   plans of every device, as series of a struct plot_chart; see
   plot_build.h. */
#include "plot_build.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infer_plan.h"
#include "plan.h"
#include "plot_build_cache.h"
#include "plot_build_replicas.h"
#include "plot_build_sample.h"
#include "precision.h"
#include "units.h"

/* Largest GPU count of the scaling chart, unless --gpus is larger. */
#define PLOT_SCALING_MAX_GPUS 16384
/* Power cap compared when the workload gives none: a fraction of TDP. */
#define PLOT_DEFAULT_CAP_FRACTION 0.7
/* The roofline's intensity axis: this factor (a decade) beyond its
   lowest and highest point or ridge point on each side, widened to the
   next 1, 2 or 5 times a power of ten. */
#define PLOT_ROOF_MARGIN 10.0

#define SECONDS_PER_DAY 86400.0

const char *plot_wl_name(const struct cli_ctx *ctx)
{
	return ctx->wl.model.name[0] ? ctx->wl.model.name : "workload";
}

void plot_note_skip(const struct cli_ctx *ctx, const struct gpu_spec *g,
		    const char *why)
{
	struct progress *pr = ctx ? ctx->progress : NULL;

	progress_pause(pr);
	cli_message("capplan: note: ", "nothing drawn for '%s': %s", g->name,
		    why);
	progress_resume(pr);
}

void plot_progress(const struct cli_ctx *ctx, const struct plot_chart *c,
		   int i)
{
	char phase[96];

	if (!ctx->progress)
		return;
	snprintf(phase, sizeof(phase), "%s, device %d/%d %s",
		 plot_kind_name(c->kind), i + 1, ctx->ngpus,
		 ctx->gpus[i]->name);
	progress_phase(ctx->progress, 0, 0, phase);
}

int plot_oom(void)
{
	fprintf(stderr, "capplan: error: out of memory\n");
	return EXIT_INTERNAL;
}

/* What the training charts hold fixed: the precision and the batch. */
static void train_held(const struct cli_ctx *ctx, char *buf, size_t n,
		       const char *tail)
{
	const struct training_spec *t = &ctx->wl.training;
	char gb[48];

	if (t->global_batch > 0)
		snprintf(gb, sizeof(gb), "global batch %d", t->global_batch);
	else
		snprintf(gb, sizeof(gb), "%s", "global batch chosen");
	snprintf(buf, n, "%s training, %s; %s", precision_name(t->precision),
		 gb, tail);
}

/* The limits of the command line the charts draw: --deadline in days,
   --budget in dollars (0: none; they were checked by the command). */
static void chart_limits(const struct cli_ctx *ctx, struct plot_chart *c)
{
	double v;

	if (ctx->deadline_arg &&
	    units_parse(ctx->deadline_arg, UNIT_TIME, &v, NULL) == 0 &&
	    v > 0.0)
		c->deadline_days = v / SECONDS_PER_DAY;
	if (ctx->budget_arg &&
	    units_parse(ctx->budget_arg, UNIT_MONEY, &v, NULL) == 0 &&
	    v > 0.0)
		c->budget_usd = v;
}

/* A configuration in a few words, two lines (';' between them): "tp8
   pp2 dp4 cp2;ZeRO 1, mb 2". */
static void config_words(const struct train_config *cfg, bool per_sample,
			 char *buf, size_t n)
{
	int ep = train_config_ep(cfg);
	int shards = train_config_zero_shards(cfg, NULL);
	bool hybrid = cfg->zero >= 1 && shards < (long long)cfg->dp * cfg->cp;
	char part[24] = "";

	if (per_sample) {
		/* data parallel only */
		snprintf(buf, n, "dp%d;ZeRO %d, mb %d", cfg->dp, cfg->zero,
			 cfg->micro_batch);
		return;
	}
	/* hybrid sharding: "ZeRO 3 per node", "ZeRO 3 per 16 ranks" */
	if (hybrid && cfg->zero_shard_ranks > 0)
		snprintf(part, sizeof(part), " per %d ranks", shards);
	else if (hybrid)
		snprintf(part, sizeof(part), " per node");
	snprintf(buf, n, "tp%d pp%d dp%d%s%.0d%s%.0d;ZeRO %d%s, mb %d",
		 cfg->tp, cfg->pp, cfg->dp, cfg->cp > 1 ? " cp" : "",
		 cfg->cp > 1 ? cfg->cp : 0, ep > 1 ? " ep" : "",
		 ep > 1 ? ep : 0, cfg->zero, part, cfg->micro_batch);
}

/* A fitting training plan at one GPU count. */
struct scale_point {
	int gpus;
	double time_s;      /* expected wall clock (model_goodput.h) */
	double cost_usd;
	double goodput;
};

#define MAX_SCALE_POINTS 40

/* Plan 'g' at gpus_per_node x 2^k GPUs up to 'max_gpus'; fitting points
   only.  Returns their number; 'why' says why the last one failed. */
static int scale_points(const struct workload *wl, const struct gpu_spec *g,
			int max_gpus, struct scale_point *pts, char *why,
			size_t n)
{
	struct workload w = *wl;
	int per_node = wl->cluster.gpus_per_node > 0 ?
			       wl->cluster.gpus_per_node :
			       g->gpus_per_node;
	int np = 0;

	snprintf(why, n, "it does not fit on up to %d GPUs", max_gpus);
	if (per_node < 1)
		per_node = 1;
	for (long gpus = per_node; gpus <= max_gpus && np < MAX_SCALE_POINTS;
	     gpus *= 2) {
		struct train_plan p;
		struct diag err;

		diag_clear(&err);
		w.training.gpus = (int)gpus;
		if (train_plan_make(&w, g, &p, &err) != 0) {
			snprintf(why, n, "%s", err.msg);
			continue;
		}
		if (!p.has_arch) {
			snprintf(why, n, "time to train needs the model's "
					 "architecture, not only 'params'");
			break;
		}
		if (!p.fits || !(p.run.time_s > 0.0) ||
		    !p.goodput.finishes)
			continue;
		pts[np].gpus = (int)gpus;
		pts[np].time_s = p.run.time_s;
		pts[np].cost_usd = p.run.cost_usd;
		pts[np].goodput = p.goodput.goodput;
		np++;
	}
	return np;
}

static int scaling_max_gpus(const struct cli_ctx *ctx)
{
	return ctx->gpus_arg && ctx->wl.training.gpus > PLOT_SCALING_MAX_GPUS ?
		       ctx->wl.training.gpus :
		       PLOT_SCALING_MAX_GPUS;
}

static int build_scaling(struct cli_ctx *ctx, struct plot_chart *c)
{
	struct scale_point pts[MAX_SCALE_POINTS];
	char why[DIAG_MSG_MAX];

	snprintf(c->title, sizeof(c->title), "Time to train: %s",
		 plot_wl_name(ctx));
	train_held(ctx, c->held, sizeof(c->held),
		   "at each GPU count the fastest configuration that fits");
	chart_limits(ctx, c);
	c->budget_usd = 0.0;
	for (int i = 0; i < ctx->ngpus; i++) {
		const struct gpu_spec *g = ctx->gpus[i];
		int np = scale_points(&ctx->wl, g, scaling_max_gpus(ctx), pts,
				      why, sizeof(why));
		struct plot_series *s;
		double best = HUGE_VAL;

		if (np == 0) {
			plot_note_skip(ctx, g, why);
			continue;
		}
		s = plot_chart_add_device(c, g->name, g->name, i + 1);
		if (!s)
			return plot_oom();
		/* ideal: the GPU-time of the most efficient point (the
		   fewest GPU-days), spread over more GPUs */
		for (int k = 0; k < np; k++)
			best = fmin(best, pts[k].time_s * pts[k].gpus);
		for (int k = 0; k < np; k++) {
			double row[4] = { pts[k].gpus,
					  pts[k].time_s / SECONDS_PER_DAY,
					  best / (pts[k].gpus *
						  SECONDS_PER_DAY),
					  pts[k].goodput };

			if (plot_series_add_row(c, s, row) != 0)
				return plot_oom();
		}
	}
	plot_goodput_legend(c);
	return EXIT_OK;
}

/* A GPU count as the GPU axes write it: "512", "16K" (1024 GPUs). */
static void gpu_count(char *buf, size_t n, double gpus)
{
	if (gpus >= 1024.0 && fmod(gpus, 1024.0) == 0.0)
		snprintf(buf, n, "%.0fK", gpus / 1024.0);
	else
		snprintf(buf, n, "%.0f", gpus);
}

/* The goodput at the ends of series 's' of a scaling chart (column 0
   the GPUs, column 3 the goodput): "99.1% at 8 to 93.9% at 16K GPUs". */
static void goodput_range(const struct plot_chart *c,
			  const struct plot_series *s, char *buf, size_t n)
{
	const double *first = s->v;
	const double *last = s->v + (s->rows - 1) * (size_t)c->ncols;
	char lo[16], hi[16];

	gpu_count(lo, sizeof(lo), first[0]);
	gpu_count(hi, sizeof(hi), last[0]);
	if (s->rows == 1)
		snprintf(buf, n, "%.1f%% at %s GPUs", 100.0 * first[3], lo);
	else
		snprintf(buf, n, "%.1f%% at %s to %.1f%% at %s GPUs",
			 100.0 * first[3], lo, 100.0 * last[3], hi);
}

void plot_goodput_legend(struct plot_chart *c)
{
	char first[64] = "", range[64];
	int ndev = 0;
	bool same = true;

	/* goodput falls as the GPUs, and with them the failures, grow; it
	   hangs on the GPU count, the nodes and the checkpoint, hardly on
	   the device: one line in the key when every device has the same */
	for (size_t i = 0; i < c->nseries; i++) {
		const struct plot_series *s = &c->series[i];

		if (s->role != PLOT_ROLE_DEVICE || s->rows == 0)
			continue;
		goodput_range(c, s, range, sizeof(range));
		if (ndev++ == 0)
			snprintf(first, sizeof(first), "%s", range);
		else if (strcmp(first, range) != 0)
			same = false;
	}
	if (ndev > 1 && same) {
		snprintf(c->note, sizeof(c->note),
			 "goodput %s, the same on every device", first);
		return;
	}
	for (size_t i = 0; i < c->nseries; i++) {
		struct plot_series *s = &c->series[i];
		char tail[sizeof(range) + 16];
		size_t len = strlen(s->label), room;

		if (s->role != PLOT_ROLE_DEVICE || s->rows == 0)
			continue;
		goodput_range(c, s, range, sizeof(range));
		snprintf(tail, sizeof(tail), " (goodput %s)", range);
		/* the device's name is cut, not its goodput */
		room = sizeof(s->label) - 1 - strlen(tail);
		memcpy(s->label + (len < room ? len : room), tail,
		       strlen(tail) + 1);
	}
}

int plot_by_time_then_cost(const void *x, const void *y)
{
	const double *a = x, *b = y;

	if (a[0] != b[0])
		return a[0] < b[0] ? -1 : 1;
	return a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0;
}

int plot_pareto_front(const struct cli_ctx *ctx, struct plot_chart *c,
		      double *all, size_t nall)
{
	struct plot_series *front;
	double best = HUGE_VAL;

	/* sorted by time, each point cheaper than all faster ones */
	qsort(all, nall, 4 * sizeof(*all), plot_by_time_then_cost);
	front = plot_chart_add_series(c, "Pareto front (labels: device x GPUs)",
				      PLOT_ROLE_FRONT, 0);
	if (!front)
		return -1;
	for (size_t k = 0; k < nall; k++) {
		char text[PLOT_LABEL_MAX];

		if (!(all[4 * k + 1] < best))
			continue;
		best = all[4 * k + 1];
		if (plot_series_add_row(c, front, all + 4 * k) != 0)
			return -1;
		snprintf(text, sizeof(text), "%s x%.0f",
			 ctx->gpus[(int)all[4 * k + 3]]->name, all[4 * k + 2]);
		plot_chart_add_label(c, all[4 * k], all[4 * k + 1], text);
	}
	return 0;
}

static int build_cost_time(struct cli_ctx *ctx, struct plot_chart *c)
{
	struct scale_point pts[MAX_SCALE_POINTS];
	char why[DIAG_MSG_MAX];
	/* rows of 4: time (days), cost, GPUs, device index */
	double *all = malloc((size_t)ctx->ngpus * MAX_SCALE_POINTS * 4 *
			     sizeof(*all));
	size_t nall = 0;

	if (!all)
		return plot_oom();
	snprintf(c->title, sizeof(c->title), "Cost and time to train: %s",
		 plot_wl_name(ctx));
	train_held(ctx, c->held, sizeof(c->held),
		   "GPUs = node x 2^k, each device at its GPU-hour price");
	chart_limits(ctx, c);
	for (int i = 0; i < ctx->ngpus; i++) {
		const struct gpu_spec *g = ctx->gpus[i];
		int np = scale_points(&ctx->wl, g, scaling_max_gpus(ctx), pts,
				      why, sizeof(why));
		struct plot_series *s = NULL;

		for (int k = 0; k < np; k++) {
			double row[4] = { pts[k].time_s / SECONDS_PER_DAY,
					  pts[k].cost_usd, pts[k].gpus, i };

			if (!(pts[k].cost_usd > 0.0))
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

static int build_memory(struct cli_ctx *ctx, struct plot_chart *c)
{
	struct plot_series *s = plot_chart_add_series(c, "memory per GPU",
						      PLOT_ROLE_BARS, 0);
	char tail[96];

	if (!s)
		return plot_oom();
	snprintf(c->title, sizeof(c->title), "Training memory per GPU: %s",
		 plot_wl_name(ctx));
	if (ctx->wl.training.gpus > 0)
		snprintf(tail, sizeof(tail), "%d GPUs of each device, "
			 "configuration above each bar",
			 ctx->wl.training.gpus);
	else
		snprintf(tail, sizeof(tail), "%s",
			 "one node of each device, configuration above each "
			 "bar");
	train_held(ctx, c->held, sizeof(c->held), tail);
	for (int i = 0; i < ctx->ngpus; i++) {
		const struct gpu_spec *g = ctx->gpus[i];
		struct train_plan p;
		struct diag err;
		const struct train_memory *m;
		int row;
		bool ok;

		plot_progress(ctx, c, i);

		diag_clear(&err);
		ok = train_plan_make(&ctx->wl, g, &p, &err) == 0;
		row = plot_chart_add_cat(c, g->name);
		if (row < 0)
			break;
		plot_device_style(g->name, c->cat_rgb[row], &(int){ 0 });
		if (!ok) {
			/* a slot that says why, not a gap */
			double v[8] = { row, 0, 0, 0, 0, 0, g->mem_bytes / 1e9,
					0 };

			plot_note_skip(ctx, g, err.msg);
			snprintf(c->cat_why[row][0], PLOT_WHY_MAX, "%s",
				 "no legal configuration");
			if (plot_series_add_row(c, s, v) != 0)
				return plot_oom();
			continue;
		}
		m = &p.result.memory;
		config_words(&p.config, p.per_sample, c->cat_sub[row],
			     PLOT_LABEL_MAX);
		if (!p.fits) {
			size_t len = strlen(c->cat_sub[row]);

			snprintf(c->cat_sub[row] + len, PLOT_LABEL_MAX - len,
				 "%s", ";does not fit");
		}
		/* the offloaded share of the optimizer states is in host
		   memory, not in the bar: its own column, written above the
		   bar (of the GPU that offloads most, as host_bytes) */
		double v[8] = { row,
				m->weights_bytes / 1e9,
				m->gradients_bytes / 1e9,
				m->optimizer_bytes / 1e9,
				m->activations_bytes / 1e9,
				m->reserve_bytes / 1e9,
				g->mem_bytes / 1e9,
				p.config.offload_fraction *
					m->offloadable_bytes / 1e9 };
		if (plot_series_add_row(c, s, v) != 0)
			return plot_oom();
	}
	return EXIT_OK;
}

/* The peak that the roofs use: the training precision's, else the
   first 16-bit or 32-bit one the device has. */
static double roof_peak(const struct gpu_spec *g, enum precision prec)
{
	static const enum precision fallback[] = { PREC_BF16, PREC_FP16,
						   PREC_TF32, PREC_FP32 };

	if (g->peak_flops[prec] > 0.0)
		return g->peak_flops[prec];
	for (size_t i = 0; i < sizeof(fallback) / sizeof(fallback[0]); i++)
		if (g->peak_flops[fallback[i]] > 0.0)
			return g->peak_flops[fallback[i]];
	return 0.0;
}

/*
 * Arithmetic intensity of training, FLOP/byte: that of the FFN
 * up-projection GEMM of one micro-batch on one GPU, [T x h] x [h x f/tp]
 * with T = micro_batch x seq_len / cp tokens: 2 T h f' FLOPs over
 * (T h + h f' + T f') elements read or written (Williams et al. 2009,
 * "Roofline"; the GEMM dominates a transformer layer's FLOPs).  For a
 * mixture of experts it is one routed expert's GEMM: the T k / E tokens
 * routed to it, of width expert_ffn.
 */
static double train_intensity(const struct train_plan *p, enum precision prec)
{
	double t = (double)p->config.micro_batch * p->arch.seq_len /
		   (p->config.cp > 0 ? p->config.cp : 1);
	double h = p->arch.hidden;
	double f = (double)p->arch.ffn_hidden /
		   (p->config.tp > 0 ? p->config.tp : 1);

	if (arch_is_moe(&p->arch)) {
		t *= (double)p->arch.experts_per_token / p->arch.experts;
		f = (double)p->arch.expert_ffn /
		    (p->config.tp > 0 ? p->config.tp : 1);
	}

	return 2.0 * t * h * f /
	       (precision_bytes(prec) * (t * h + h * f + t * f));
}

/* A serving workload: a rate or a latency target and no training
   tokens; its roofline shows serving at the weights' precision alone. */
static bool serving_workload(const struct workload *wl)
{
	const struct inference_spec *is = &wl->inference;

	return wl->training.tokens <= 0.0 &&
	       (is->qps > 0.0 || is->ttft_slo_s > 0.0 ||
		is->tpot_slo_s > 0.0 || is->concurrency > 0);
}

/* A device of the roofline: its derated roofs and the intensity of
   each phase (NaN: none). */
struct roof {
	const struct gpu_spec *g;
	int index;         /* in ctx->gpus: its colour */
	double ceil_flops; /* FLOP/s */
	double bw;         /* bytes/s */
	double phase_i[3]; /* FLOP/byte, by enum plot_phase */
};

/* The roofs and points of 'g' ('ok' false, with a note, when it has no
   peak for the precision). */
static bool roof_of(const struct cli_ctx *ctx, const struct gpu_spec *g,
		    bool serving, enum precision prec, struct roof *r)
{
	struct train_plan tp;
	struct infer_plan ip;
	struct diag err;

	/* roof_peak falls back to 16 bits or wider, never to fp8 */
	r->g = g;
	r->ceil_flops = roof_peak(g, prec) *
			gpu_matmul_eff(g, g->peak_flops[prec] > 0.0 ? prec :
								     PREC_BF16);
	r->bw = g->mem_bw_bytes_per_s * g->mem_eff;
	if (!(r->ceil_flops > 0.0) || !(r->bw > 0.0)) {
		plot_note_skip(ctx, g, "it has no peak for the precision");
		return false;
	}
	r->phase_i[0] = r->phase_i[1] = r->phase_i[2] = NAN;
	diag_clear(&err);
	if (!serving && model_has_arch(&ctx->wl.model) &&
	    train_plan_make(&ctx->wl, g, &tp, &err) == 0 && tp.has_arch)
		r->phase_i[PLOT_PHASE_TRAINING] = train_intensity(&tp, prec);
	diag_clear(&err);
	if (model_has_arch(&ctx->wl.model) &&
	    cli_infer_plan(ctx, &ctx->wl, g, NULL, &ip, &err) == 0) {
		r->phase_i[PLOT_PHASE_PREFILL] =
			ip.result.prefill_flops_per_byte;
		r->phase_i[PLOT_PHASE_DECODE] = ip.result.decode_flops_per_byte;
	}
	return true;
}

/* The series of roof 'r' over intensities [lo_i, hi_i]: the roof line
   (through its ridge point when inside) and the phases' points. */
static int roof_series(struct plot_chart *c, const struct roof *r,
		       double lo_i, double hi_i)
{
	double ridge = r->ceil_flops / r->bw;
	double lo[3] = { -1, lo_i, fmin(r->ceil_flops, lo_i * r->bw) / 1e12 };
	double mid[3] = { -1, ridge, r->ceil_flops / 1e12 };
	double hi[3] = { -1, hi_i, fmin(r->ceil_flops, hi_i * r->bw) / 1e12 };
	struct plot_series *roof, *pts;

	roof = plot_chart_add_series(c, r->g->name, PLOT_ROLE_DEVICE,
				     r->index + 1);
	if (!roof)
		return -1;
	plot_series_set_device(roof, r->g->name);
	if (plot_series_add_row(c, roof, lo) != 0 ||
	    (ridge > lo_i && ridge < hi_i &&
	     plot_series_add_row(c, roof, mid) != 0) ||
	    plot_series_add_row(c, roof, hi) != 0)
		return -1;
	pts = plot_chart_add_series(c, r->g->name, PLOT_ROLE_POINTS,
				    r->index + 1);
	if (!pts)
		return -1;
	plot_series_set_device(pts, r->g->name);
	for (int ph = 0; ph < 3; ph++) {
		double x = r->phase_i[ph];
		double row[3] = { ph, x,
				  fmin(r->ceil_flops, x * r->bw) / 1e12 };

		if (isfinite(x) && x > 0.0 &&
		    plot_series_add_row(c, pts, row) != 0)
			return -1;
	}
	return 0;
}

/* The largest (dir < 0) or smallest (dir > 0) of 1, 2 and 5 times a
   power of ten not above (not below) 'x' > 0: the roofline's axis ends
   on a labelled tic. */
static double nice_bound(double x, int dir)
{
	static const double steps[] = { 1.0, 2.0, 5.0, 10.0 };
	double p = pow(10.0, floor(log10(x)));

	if (dir < 0) {
		for (int k = 3; k >= 0; k--)
			if (steps[k] * p <= x * (1.0 + 1e-9))
				return steps[k] * p;
		return p;
	}
	for (int k = 0; k < 4; k++)
		if (steps[k] * p >= x * (1.0 - 1e-9))
			return steps[k] * p;
	return 10.0 * p;
}

static int build_roofline(struct cli_ctx *ctx, struct plot_chart *c)
{
	bool serving = serving_workload(&ctx->wl);
	enum precision prec = serving ? ctx->wl.inference.weight_precision :
					ctx->wl.training.precision;
	struct roof *roofs = calloc((size_t)ctx->ngpus + 1, sizeof(*roofs));
	double lo_i = HUGE_VAL, hi_i = 0.0;
	int n = 0;

	if (!roofs)
		return plot_oom();
	snprintf(c->title, sizeof(c->title), "Roofline at %s peaks: %s",
		 precision_name(prec), plot_wl_name(ctx));
	snprintf(c->held, sizeof(c->held),
		 "roofs derated to the catalog's GEMM and bandwidth "
		 "efficiencies; %s",
		 serving ? "serving at the plan's batch" :
			   "serving at the plan's batch");
	/* the axis spans the points and the ridge points of the devices
	   shown, a decade beyond on each side; the roofs span the axis */
	for (int i = 0; i < ctx->ngpus; i++) {
		struct roof *r = &roofs[n];

		if (!roof_of(ctx, ctx->gpus[i], serving, prec, r))
			continue;
		r->index = i;
		lo_i = fmin(lo_i, r->ceil_flops / r->bw);
		hi_i = fmax(hi_i, r->ceil_flops / r->bw);
		for (int ph = 0; ph < 3; ph++)
			if (isfinite(r->phase_i[ph]) && r->phase_i[ph] > 0.0) {
				lo_i = fmin(lo_i, r->phase_i[ph]);
				hi_i = fmax(hi_i, r->phase_i[ph]);
			}
		n++;
	}
	if (n > 0) {
		lo_i = nice_bound(lo_i / PLOT_ROOF_MARGIN, -1);
		hi_i = nice_bound(hi_i * PLOT_ROOF_MARGIN, 1);
	}
	for (int k = 0; k < n; k++)
		if (roof_series(c, &roofs[k], lo_i, hi_i) != 0) {
			free(roofs);
			return plot_oom();
		}
	free(roofs);
	return EXIT_OK;
}

/* Infer plan of 'wl' on 'g'; false (with a note) when it has none. */
static bool infer_ok(const struct cli_ctx *ctx, const struct workload *wl,
		     const struct gpu_spec *g, struct infer_plan *p, bool quiet)
{
	struct diag err;

	diag_clear(&err);
	if (!model_has_arch(&wl->model)) {
		if (!quiet)
			plot_note_skip(ctx, g, "serving needs the model's architecture");
		return false;
	}
	if (cli_infer_plan(ctx, wl, g, NULL, p, &err) != 0) {
		if (!quiet)
			plot_note_skip(ctx, g, err.msg);
		return false;
	}
	return true;
}

void plot_serve_held(const struct cli_ctx *ctx, char *buf, size_t n)
{
	const struct inference_spec *is = &ctx->wl.inference;

	snprintf(buf, n, "%d prompt + %d output tokens, %s weights, each "
			 "device at the tensor-parallel size of its plan",
		 is->prompt_tokens, is->output_tokens,
		 precision_name(is->weight_precision));
}

/* Fractions of a replica's capacity the load sweep offers. */
static const double load_fractions[] = { 0.05, 0.1, 0.2, 0.3, 0.4, 0.5,
					 0.6, 0.7, 0.8, 0.85, 0.9, 0.95 };

/* Whether the model has the architecture serving needs; when it has not,
   every device is skipped with that reason (as infer_ok says it). */
bool plot_serving_arch(const struct cli_ctx *ctx)
{
	if (model_has_arch(&ctx->wl.model))
		return true;
	for (int i = 0; i < ctx->ngpus; i++)
		plot_note_skip(ctx, ctx->gpus[i],
			       "serving needs the model's architecture");
	return false;
}

#define LOAD_STEPS (sizeof(load_fractions) / sizeof(load_fractions[0]))

/* A device of the load sweep: its plan, then its replica at each load. */
struct load_device {
	bool planned, simulated, oom;
	char why[512];
	int tp, batch;
	double cap_qps;
	double rows[LOAD_STEPS][4];
	bool has_row[LOAD_STEPS];
	bool oom_at[LOAD_STEPS]; /* each load's own: threads write them */
};

struct load_job {
	const struct cli_ctx *ctx;
	const struct plot_chart *c;
	struct load_device *dev;
};

/* Device i's plan under the workload's load (a thread each). */
static void load_plan_one(int i, void *arg)
{
	const struct load_job *lj = arg;
	struct load_device *d = &lj->dev[i];
	struct infer_plan *p = malloc(sizeof(*p));
	struct diag err;

	plot_progress(lj->ctx, lj->c, i);
	if (!p) {
		d->oom = true;
		return;
	}
	diag_clear(&err);
	if (cli_infer_plan(lj->ctx, &lj->ctx->wl, lj->ctx->gpus[i], NULL, p,
			   &err) != 0) {
		snprintf(d->why, sizeof(d->why), "%s", err.msg);
	} else {
		d->planned = true;
		d->simulated = p->simulated && p->fleet.capacity_qps > 0.0;
		snprintf(d->why, sizeof(d->why), "%s",
			 p->why[0] ? p->why : "the load was not simulated");
		d->tp = p->config.tp;
		d->batch = p->config.batch;
		d->cap_qps = p->fleet.capacity_qps;
	}
	free(p);
}

/* Point j (device j / LOAD_STEPS, load j % LOAD_STEPS): one replica of
   the device's plan at that fraction of its capacity. */
static void load_point_one(int j, void *arg)
{
	const struct load_job *lj = arg;
	int i = j / (int)LOAD_STEPS, k = j % (int)LOAD_STEPS;
	struct load_device *d = &lj->dev[i];
	enum slo_percentile pc = lj->ctx->wl.inference.percentile;
	struct workload w = lj->ctx->wl;
	struct infer_plan *q;

	if (!d->planned || !d->simulated)
		return;
	q = malloc(sizeof(*q));
	if (!q) {
		d->oom_at[k] = true; /* read after every thread ended */
		return;
	}
	w.inference.tp = d->tp;
	w.inference.batch = d->batch;
	w.inference.replicas = 1;
	w.inference.qps = load_fractions[k] * d->cap_qps;
	if (infer_plan_make(&w, lj->ctx->gpus[i], q, NULL) == 0 &&
	    q->simulated && !q->fleet.overloaded) {
		d->rows[k][0] = w.inference.qps;
		d->rows[k][1] = q->fleet.sim.output_tokens_per_s /
				infer_gpus_per_replica(&q->config);
		d->rows[k][2] = serve_tpot_at(&q->fleet.sim, pc) * 1e3;
		d->rows[k][3] = serve_ttft_at(&q->fleet.sim, pc) * 1e3;
		d->has_row[k] = true;
	}
	free(q);
}

/*
 * Under a Poisson load: one replica of each device's plan (its tp and
 * batch) simulated at rising rates up to near its capacity; the
 * percentiles of the workload against the output tokens/s per GPU.  The
 * plans, then every device's loads, run on the threads (issue 43); the
 * series are read in the order of the devices.
 */
static int latency_under_load(struct cli_ctx *ctx, struct plot_chart *c)
{
	enum slo_percentile pc = ctx->wl.inference.percentile;
	struct load_job lj = { ctx, c, NULL };
	int rc = EXIT_OK;

	snprintf(c->load, sizeof(c->load), "%s, Poisson load on one replica",
		 slo_percentile_name(pc));
	if (!plot_serving_arch(ctx))
		return EXIT_OK;
	lj.dev = calloc((size_t)ctx->ngpus, sizeof(*lj.dev));
	if (!lj.dev)
		return plot_oom();
	cli_parallel_for(ctx->ngpus, load_plan_one, &lj);
	cli_parallel_for(ctx->ngpus * (int)LOAD_STEPS, load_point_one, &lj);
	for (int i = 0; i < ctx->ngpus && rc == EXIT_OK; i++) {
		const struct gpu_spec *g = ctx->gpus[i];
		const struct load_device *d = &lj.dev[i];
		struct plot_series *s;
		char label[PLOT_LABEL_MAX];

		for (size_t k = 0; k < LOAD_STEPS; k++)
			if (d->oom_at[k])
				rc = EXIT_INTERNAL;
		if (d->oom || rc != EXIT_OK) {
			rc = plot_oom();
			break;
		}
		if (!d->planned || !d->simulated) {
			plot_note_skip(ctx, g, d->why);
			continue;
		}
		snprintf(label, sizeof(label), "%s tp%d", g->name, d->tp);
		s = plot_chart_add_device(c, label, g->name, i + 1);
		if (!s) {
			rc = plot_oom();
			break;
		}
		for (size_t k = 0; k < LOAD_STEPS; k++)
			if (d->has_row[k] &&
			    plot_series_add_row(c, s, d->rows[k]) != 0) {
				rc = plot_oom();
				break;
			}
	}
	free(lj.dev);
	return rc;
}

static int build_latency(struct cli_ctx *ctx, struct plot_chart *c)
{
	snprintf(c->title, sizeof(c->title), "Latency and throughput: %s",
		 plot_wl_name(ctx));
	plot_serve_held(ctx, c->held, sizeof(c->held));
	c->tpot_slo_ms = ctx->wl.inference.tpot_slo_s * 1e3;
	c->ttft_slo_ms = ctx->wl.inference.ttft_slo_s * 1e3;
	if (serve_arrival(&ctx->wl.inference) == SIM_ARRIVAL_POISSON)
		return latency_under_load(ctx, c);
	for (int i = 0; i < ctx->ngpus; i++) {
		const struct gpu_spec *g = ctx->gpus[i];
		struct infer_plan p;
		struct plot_series *s;

		plot_progress(ctx, c, i);
		if (!infer_ok(ctx, &ctx->wl, g, &p, false))
			continue;
		if (p.max_batch < 1) {
			plot_note_skip(ctx, g, "the model does not fit for serving");
			continue;
		}
		{
			char label[PLOT_LABEL_MAX];

			snprintf(label, sizeof(label), "%s tp%d", g->name,
				 p.config.tp);
			s = plot_chart_add_device(c, label, g->name, i + 1);
		}
		if (!s)
			return plot_oom();
		for (int b = 1;;) {
			struct infer_config cfg = p.config;
			struct infer_result r;

			cfg.batch = b;
			if (infer_evaluate(&p.arch, &cfg, g, &p.cluster, &r) ==
			    0) {
				double row[4] = {
					b, r.throughput_tokens_per_s_per_gpu,
					r.tpot_s * 1e3, r.ttft_s * 1e3
				};

				if (plot_series_add_row(c, s, row) != 0)
					return plot_oom();
			}
			if (b >= p.max_batch)
				break;
			b = b < p.max_batch / 2 ? 2 * b : p.max_batch;
		}
	}
	return EXIT_OK;
}

/* Energy per token of a serving plan of 'wl' on 'g' under a cap of
   'cap_w' W per GPU (0: none); NaN when it has none or does not fit. */
static double energy_per_token(const struct cli_ctx *ctx,
			       const struct workload *wl,
			       const struct gpu_spec *g, double cap_w)
{
	struct workload w = *wl;
	struct infer_plan *p = malloc(sizeof(*p));
	double e = NAN;

	if (!p)
		return NAN;
	w.inference.power_cap_w = cap_w;
	if (infer_ok(ctx, &w, g, p, true) && p->fits)
		e = p->result.energy_j_per_token;
	free(p);
	return e;
}

/* A device's bars of the energy chart, planned on a thread. */
struct energy_bar {
	double v[4];      /* row, training MWh, J/token, J/token capped */
	const char *twhy; /* why no training bar */
};

struct energy_job {
	const struct cli_ctx *ctx;
	const struct plot_chart *c;
	double cap_w;
	struct energy_bar *bars;
};

static void energy_one(int i, void *arg)
{
	const struct energy_job *ej = arg;
	const struct cli_ctx *ctx = ej->ctx;
	const struct gpu_spec *g = ctx->gpus[i];
	struct energy_bar *b = &ej->bars[i];
	struct train_plan *p = malloc(sizeof(*p));
	struct diag err;
	int rc = -1;

	plot_progress(ctx, ej->c, i);
	b->v[0] = 0.0;
	b->v[1] = b->v[2] = b->v[3] = NAN;
	b->twhy = "no legal configuration";
	diag_clear(&err);
	if (p)
		rc = train_plan_make(&ctx->wl, g, p, &err);
	if (rc == 0 && p->has_arch && p->fits && p->goodput.finishes)
		b->v[1] = p->run.energy_kwh / 1e3;
	else if (rc == 0)
		b->twhy = !p->has_arch ? "needs the architecture" :
			  !p->fits     ? "does not fit" :
					 "does not finish";
	free(p);
	b->v[2] = energy_per_token(ctx, &ctx->wl, g, 0.0);
	b->v[3] = energy_per_token(ctx, &ctx->wl, g,
				   ej->cap_w > 0.0 ?
					   ej->cap_w :
					   PLOT_DEFAULT_CAP_FRACTION * g->tdp_w);
}

static int build_energy(struct cli_ctx *ctx, struct plot_chart *c)
{
	double cap_w = ctx->wl.inference.power_cap_w;
	char tail[128];
	struct plot_series *s = plot_chart_add_series(c, "energy",
						      PLOT_ROLE_BARS, 0);
	struct energy_job ej = { ctx, c, cap_w, NULL };
	int rc = EXIT_OK;

	if (!s)
		return plot_oom();
	snprintf(c->title, sizeof(c->title), "Energy: %s", plot_wl_name(ctx));
	if (ctx->wl.training.gpus > 0)
		snprintf(tail, sizeof(tail), "training on %d GPUs, facility "
			 "energy; serving at the plan's batch",
			 ctx->wl.training.gpus);
	else
		snprintf(tail, sizeof(tail), "%s",
			 "training on one node, facility energy; serving at "
			 "the plan's batch");
	train_held(ctx, c->held, sizeof(c->held), tail);
	if (cap_w > 0.0)
		snprintf(c->note, sizeof(c->note),
			 "power cap %.4g W per GPU", cap_w);
	else
		snprintf(c->note, sizeof(c->note),
			 "power cap %.0f%% of TDP",
			 PLOT_DEFAULT_CAP_FRACTION * 100.0);
	ej.bars = calloc((size_t)ctx->ngpus, sizeof(*ej.bars));
	if (!ej.bars)
		return plot_oom();
	/* each device's plans on the threads (issue 43), the bars in the
	   order of the devices */
	cli_parallel_for(ctx->ngpus, energy_one, &ej);
	for (int i = 0; i < ctx->ngpus; i++) {
		const struct gpu_spec *g = ctx->gpus[i];
		double *v = ej.bars[i].v;
		int row = plot_chart_add_cat(c, g->name);

		if (row < 0)
			break;
		v[0] = row;
		plot_device_style(g->name, c->cat_rgb[row], &(int){ 0 });
		/* a device that does not train or serve keeps its slot,
		   with the reason in it */
		if (isnan(v[1]))
			snprintf(c->cat_why[row][0], PLOT_WHY_MAX, "%s",
				 ej.bars[i].twhy);
		if (isnan(v[2]) && isnan(v[3]))
			snprintf(c->cat_why[row][1], PLOT_WHY_MAX, "%s",
				 model_has_arch(&ctx->wl.model) ?
					 "does not serve" :
					 "needs the architecture");
		if (plot_series_add_row(c, s, v) != 0) {
			rc = plot_oom();
			break;
		}
	}
	free(ej.bars);
	return rc;
}

static int (*const builders[PLOT_KIND_COUNT])(struct cli_ctx *,
					      struct plot_chart *) = {
	[PLOT_SCALING] = build_scaling,   [PLOT_COST_TIME] = build_cost_time,
	[PLOT_MEMORY] = build_memory,     [PLOT_ROOFLINE] = build_roofline,
	[PLOT_LATENCY] = build_latency,   [PLOT_REPLICAS] = plot_build_replicas,
	[PLOT_ENERGY] = build_energy,     [PLOT_CACHE] = plot_build_cache,
};

int plot_build(struct cli_ctx *ctx, enum plot_kind kind, struct plot_chart *c)
{
	int rc;

	if ((unsigned)kind >= PLOT_KIND_COUNT)
		return EXIT_INTERNAL;
	if (ctx->wl.model.kind != MODEL_TRANSFORMER && kind != PLOT_MEMORY) {
		rc = plot_build_sample(ctx, kind, c);
	} else {
		if (ctx->wl.model.kind != MODEL_TRANSFORMER)
			plot_chart_set_per_sample(c);
		rc = builders[kind](ctx, c);
	}
	if (rc == EXIT_OK)
		plot_chart_distinct_colours(c);
	return rc;
}
