/*
 * plot_build_cache.h - the data of the cache chart: for a serving load
 * with a prefix cache (specs/models.md 10.9.19), each device's share of
 * prompt tokens served from the cache, TTFT at the SLO percentile and a
 * replica's capacity against the memory the cache has.  Without a host
 * tier the KV-cache memory varies (inference.memory_fraction lowered
 * from the workload's, halving the KV cache at each step); with one
 * (inference.kv_offload_memory) the tier varies, from none to four times
 * the workload's, the GPU memory as given.  Each device's fleet is held
 * at its plan's tensor-parallel size and replicas at the workload's
 * point, so that the curves show the cache, not a resized fleet.
 */
#ifndef CAPPLAN_PLOT_BUILD_CACHE_H
#define CAPPLAN_PLOT_BUILD_CACHE_H

#include <stdbool.h>

#include "cli.h"
#include "plot.h"

/* Whether 'wl' has what the cache chart draws: a transformer served
   under a load with a prefix cache (inference.prefix_caching true, or
   the engine's default that the stack table gave), not disaggregated. */
bool plot_cache_applies(const struct workload *wl);

/* Fill 'c' (new, of kind PLOT_CACHE) for ctx's workload and devices: a
   series per device (columns: plot_kind_columns), ascending in memory.
   Returns EXIT_OK (maybe with nothing to draw, each device noted on
   stderr) or EXIT_INTERNAL (out of memory, with a message). */
int plot_build_cache(struct cli_ctx *ctx, struct plot_chart *c);

#endif
