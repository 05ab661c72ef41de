/*
 * plot_build.h - the data of a chart from the models: for each device of
 * ctx->gpus the plans the kind needs (training at node x 2^k GPUs, the
 * memory of one plan, the roofs, serving under a load, ...), filled into
 * a struct plot_chart (plot.h) with what the chart holds fixed and the
 * limits of the command line.  A device that gives no point is noted on
 * stderr ("capplan: note: nothing drawn for 'X': why").
 */
#ifndef CAPPLAN_PLOT_BUILD_H
#define CAPPLAN_PLOT_BUILD_H

#include "cli.h"
#include "plot.h"

/* Fill 'c' (new, of 'kind') for ctx's workload and devices.  Returns
   EXIT_OK (maybe with nothing to draw: plot_chart_has_data) or
   EXIT_INTERNAL (out of memory, with a message). */
int plot_build(struct cli_ctx *ctx, enum plot_kind kind, struct plot_chart *c);

/* Shared with plot_build_sample.c: the workload's name for titles
   ("workload" when it has none); the note on stderr for a device that
   gives no point (ctx NULL or ctx->progress NULL: no progress line to
   pause around it); the out-of-memory message (returns EXIT_INTERNAL); a
   qsort order of rows of doubles by their first, then second value. */
const char *plot_wl_name(const struct cli_ctx *ctx);
void plot_note_skip(const struct cli_ctx *ctx, const struct gpu_spec *g,
		    const char *why);
/* The progress line's phase (ctx->progress; NULL: none) at device 'i' of
   chart 'c': "KIND, device I/N NAME". */
void plot_progress(const struct cli_ctx *ctx, const struct plot_chart *c,
		   int i);
int plot_oom(void);
/* What the serving charts hold fixed, the request and the weights, into
   'buf' (c->held); whether the model has the architecture serving needs
   (when not, every device is noted as skipped for it). */
void plot_serve_held(const struct cli_ctx *ctx, char *buf, size_t n);
bool plot_serving_arch(const struct cli_ctx *ctx);
int plot_by_time_then_cost(const void *x, const void *y);
/* The Pareto front of the cost-time chart over 'nall' rows of 'all' (time,
   cost, GPUs, device index; sorted here): a series of the points cheaper
   than every faster one, each labelled "device xGPUs".  0, or -1 when out
   of memory. */
int plot_pareto_front(const struct cli_ctx *ctx, struct plot_chart *c,
		      double *all, size_t nall);
/* The goodput of each device of a scaling chart (its series: GPUs in
   column 0, goodput in column 3) at its fewest and most GPUs: in the key
   once (c->note) when every device has the same, else after each
   device's label, "H100-SXM (goodput 99.1% at 8 to 93.9% at 16K GPUs)". */
void plot_goodput_legend(struct plot_chart *c);

#endif
