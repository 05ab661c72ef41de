/*
 * cluster.h - the cluster a plan runs on: the workload's [cluster] section
 * resolved against the chosen catalog device.
 */
#ifndef CAPPLAN_CLUSTER_H
#define CAPPLAN_CLUSTER_H

#include "catalog.h"
#include "workload.h"

struct cluster {
	int gpus_per_node;
	double intra_bw_bytes_per_s;   /* per GPU per direction, datasheet */
	double inter_bw_bytes_per_s;   /* per GPU per direction, datasheet */
	double pue;                    /* facility / IT power */
	double price_usd_per_gpu_hour; /* 0 when unknown */
	double price_usd_per_kwh;
	double host_overhead;          /* host power / GPU power */
};

/* Values given in 'spec' win; the rest come from the catalog row 'g'. */
void cluster_resolve(const struct cluster_spec *spec, const struct gpu_spec *g,
		     struct cluster *out);

#endif
