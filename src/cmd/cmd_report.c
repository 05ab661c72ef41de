/* cmd_report.c - 'capplan report WORKLOAD -o plan.html': one
   self-contained HTML page for a planning review: the workload, the
   assumptions and their sources, the training and serving plan per
   device with their intervals, the recommendation and the charts (inline
   SVG drawn by gnuplot).  It loads nothing and runs no script. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_report_internal.h"
#include "outfile.h"
#include "progress.h"

/* Size of the charts in the page (the style scales them to its width). */
#define REPORT_CHART_W 960
#define REPORT_CHART_H 560

/* Where the chart files go while gnuplot draws them, for a page written
   to standard output. */
#define REPORT_TMP_BESIDE "/tmp/capplan-report"

static void infer_one(int i, void *arg)
{
	struct report_page *pg = arg;
	struct report_row *r = &pg->rows[i];
	struct progress_hook hook = progress_hook_of(pg->ctx->progress);
	struct diag err;

	diag_clear(&err);
	r->infer_rc = cli_infer_plan(pg->ctx, &pg->ctx->wl, r->gpu, &hook,
				     &r->infer, &err);
	snprintf(r->infer_why, sizeof(r->infer_why), "%s",
		 r->infer_rc ? err.msg : r->infer.why);
	progress_add(pg->ctx->progress, 1);
}

/* The plans of every device. */
static int plan_rows(struct report_page *pg)
{
	struct cli_ctx *ctx = pg->ctx;
	bool serving = ctx->wl.model.kind == MODEL_TRANSFORMER &&
		       model_has_arch(&ctx->wl.model);

	pg->rows = calloc((size_t)ctx->ngpus, sizeof(*pg->rows));
	if (!pg->rows)
		return -1;
	pg->nrows = ctx->ngpus;
	pg->serving_only = cli_serving_only(&ctx->wl);
	for (int i = 0; i < ctx->ngpus; i++) {
		struct report_row *r = &pg->rows[i];
		struct diag err;

		progress_update(ctx->progress, (size_t)i, (size_t)ctx->ngpus,
				"devices planned");
		progress_phase(ctx->progress, 0, 0, ctx->gpus[i]->name);
		r->gpu = ctx->gpus[i];
		diag_clear(&err);
		if (pg->serving_only) {
			/* no training asked for: the price from the
			   device's cluster */
			r->train_rc = -1;
			(void)cluster_resolve(&ctx->wl.cluster, r->gpu,
					      &r->train.cluster, NULL);
		} else {
			r->train_rc = train_plan_make(&ctx->wl, r->gpu,
						      &r->train, &err);
		}
		snprintf(r->train_why, sizeof(r->train_why), "%s",
			 pg->serving_only  ? "not planned: the workload only "
					     "serves" :
			 r->train_rc	   ? err.msg :
			 !r->train.fits	   ? "does not fit in memory" :
			 !r->train.has_arch ? "only 'params' is known" :
			 !r->train.goodput.finishes ?
					     "failures outpace progress" :
					     "");
		r->serving = serving;
		r->infer_rc = -1;
		r->serve_rc = -1;
		r->per_sample = ctx->wl.model.kind != MODEL_TRANSFORMER;
		if (r->per_sample) {
			diag_clear(&err);
			r->serve_rc = sample_serve_plan_make(&ctx->wl, r->gpu,
							     &r->serve, &err);
			snprintf(r->infer_why, sizeof(r->infer_why), "%s",
				 r->serve_rc ? err.msg : r->serve.why);
		}
	}
	if (serving) {
		progress_update(ctx->progress, 0, (size_t)ctx->ngpus,
				"devices served");
		cli_parallel_for(ctx->ngpus, infer_one, pg);
	}
	return 0;
}

/* A short status for a row's training or serving. */
bool report_trained(const struct report_row *r)
{
	return r->train_rc == 0 && r->train.has_arch && r->train.fits &&
	       r->train.goodput.finishes && isfinite(r->train.run.time_s);
}

bool report_served(const struct report_row *r)
{
	return r->serving && r->infer_rc == 0 && r->infer.fits &&
	       r->infer.meets_slo;
}

/* A per-sample serving plan that fits and meets the latency target. */
bool report_served_samples(const struct report_row *r)
{
	return r->per_sample && r->serve_rc == 0 && r->serve.result.fits &&
	       r->serve.meets_slo;
}

const char *report_wl_name(const struct cli_ctx *ctx)
{
	return ctx->wl.model.name[0] ? ctx->wl.model.name : "workload";
}

int cmd_report(struct cli_ctx *ctx)
{
	struct report_page pg;
	int rc, charts_rc = EXIT_OK, feasible = 0;
	const char *beside;
	struct progress pr;
	struct outfile o;

	memset(&pg, 0, sizeof(pg));
	pg.ctx = ctx;
	pg.png = ctx->plot_png;
	rc = cli_load_workload(ctx);
	if (rc == EXIT_OK)
		rc = cli_plot_devices(ctx);
	if (rc != EXIT_OK)
		return rc;
	progress_init(&pr, "report");
	ctx->progress = &pr;
	if (plan_rows(&pg) != 0) {
		ctx->progress = NULL;
		progress_end(&pr);
		free(pg.rows);
		cli_error("out of memory");
		return EXIT_INTERNAL;
	}
	/* the page's file first: a folder that cannot be written fails
	   once, before the charts */
	progress_pause(&pr);
	rc = cli_output_open(ctx, &o);
	progress_resume(&pr);
	if (rc != EXIT_OK) {
		ctx->progress = NULL;
		progress_end(&pr);
		free(pg.rows);
		return rc;
	}
	beside = ctx->output_path && strcmp(ctx->output_path, "-") != 0 ?
			 ctx->output_path :
			 REPORT_TMP_BESIDE;
	for (int k = 0; k < PLOT_KIND_COUNT; k++) {
		enum plot_kind kind = (enum plot_kind)k;
		int krc;

		progress_update(&pr, (size_t)k, PLOT_KIND_COUNT, "charts");
		if (!cli_plot_kind_applies(ctx, kind))
			continue;
		krc = cli_plot_render(ctx, kind, beside,
				      pg.png ? PLOT_PNG : PLOT_SVG,
				      REPORT_CHART_W, REPORT_CHART_H,
				      &pg.svg[k], &pg.svg_len[k]);
		if (krc == EXIT_IO || krc == EXIT_INTERNAL) {
			charts_rc = krc;
			snprintf(pg.chart_note, sizeof(pg.chart_note),
				 "Some charts could not be drawn (gnuplot is "
				 "missing or failed; scripts/deps.sh installs "
				 "gnuplot-nox).");
			if (krc == EXIT_INTERNAL)
				break;
		}
	}
	ctx->progress = NULL;
	progress_end(&pr);
	for (int i = 0; i < pg.nrows; i++)
		feasible += report_trained(&pg.rows[i]) || report_served(&pg.rows[i]) ||
			    report_served_samples(&pg.rows[i]);
	if (pg.nrows && pg.rows[0].serving && charts_rc != EXIT_INTERNAL) {
		/* a mix of the devices cheaper than each one's own fleet */
		const struct report_row *cheap = NULL;

		for (int i = 0; i < pg.nrows; i++)
			if (report_served(&pg.rows[i]) &&
			    (!cheap || pg.rows[i].infer.cost_usd_per_month <
					       cheap->infer.cost_usd_per_month))
				cheap = &pg.rows[i];
		if (cheap && cli_mix_summary(ctx, cheap->infer.cost_usd_per_month,
					     cheap->gpu->name, pg.mix_note,
					     sizeof(pg.mix_note)) < 0)
			charts_rc = EXIT_INTERNAL;
	}
	rc = cli_output_finish(&o, report_write_page, &pg);
	for (int k = 0; k < PLOT_KIND_COUNT; k++)
		free(pg.svg[k]);
	free(pg.rows);
	if (rc == EXIT_OK)
		rc = charts_rc;
	if (rc == EXIT_OK && feasible == 0)
		rc = EXIT_INFEASIBLE;
	return rc;
}
