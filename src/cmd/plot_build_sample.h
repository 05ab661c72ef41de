/*
 * plot_build_sample.h - the data of the charts of a model costed per
 * sample (kind generic or recsys, with or without an ONNX graph): training
 * throughput in samples/s per GPU against GPUs (scaling), time against
 * the cost per million samples (cost-time), the latency of a batch against
 * the batch and the samples/s per GPU it serves (latency-throughput),
 * GPUs for a rate of samples/s (replicas) and the energy per million
 * samples trained and served (energy).  The memory chart is the
 * transformer's (plot_build.c); there is no roofline and no cache chart.
 */
#ifndef CAPPLAN_PLOT_BUILD_SAMPLE_H
#define CAPPLAN_PLOT_BUILD_SAMPLE_H

#include "cli.h"
#include "plot.h"

/* Fill 'c' (new, of 'kind', made per-sample here) for ctx's per-sample
   workload and devices.  Returns EXIT_OK (maybe with nothing to draw) or
   EXIT_INTERNAL (out of memory, with a message); EXIT_USAGE for the
   roofline and the cache chart, which have no per-sample form. */
int plot_build_sample(struct cli_ctx *ctx, enum plot_kind kind,
		      struct plot_chart *c);

#endif
