/* cluster.c - resolve [cluster] against a device; see cluster.h. */
#include "cluster.h"

/* a node from the workload and from the catalog have the same bound */
_Static_assert(WL_GPUS_PER_NODE_MAX == GPU_NODE_MAX,
	       "cluster.gpus_per_node and the catalog column must agree");

void cluster_resolve(const struct cluster_spec *spec, const struct gpu_spec *g,
		     struct cluster *out)
{
	out->gpus_per_node = spec->gpus_per_node > 0 ? spec->gpus_per_node :
						       g->gpus_per_node;
	out->intra_bw_bytes_per_s = spec->intra_bw_bytes_per_s > 0.0 ?
					    spec->intra_bw_bytes_per_s :
					    g->intra_bw_bytes_per_s;
	out->inter_bw_bytes_per_s = spec->inter_bw_bytes_per_s > 0.0 ?
					    spec->inter_bw_bytes_per_s :
					    g->inter_bw_bytes_per_s;
	out->pue = spec->pue;
	out->price_usd_per_gpu_hour = spec->price_usd_per_gpu_hour > 0.0 ?
					      spec->price_usd_per_gpu_hour :
					      g->price_usd_per_hour;
	out->price_usd_per_kwh = spec->price_usd_per_kwh;
	out->host_overhead = spec->host_overhead;
}
