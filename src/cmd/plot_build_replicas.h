/*
 * plot_build_replicas.h - the replicas chart: the GPUs each device needs
 * at 21 request rates from 0.5 to 1000 requests/s under the workload's
 * latency targets, a device's rates with large fleets sized in a chain
 * (specs/models.md 10.9.12, learnt edges, and 13, the charts).
 */
#ifndef CAPPLAN_PLOT_BUILD_REPLICAS_H
#define CAPPLAN_PLOT_BUILD_REPLICAS_H

#include "cli.h"
#include "plot.h"

/* Fill 'c' (new, PLOT_REPLICAS) for ctx's workload and devices: as
   plot_build. */
int plot_build_replicas(struct cli_ctx *ctx, struct plot_chart *c);

#endif
