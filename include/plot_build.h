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

#endif
