/*
 * cluster.h - the cluster a plan runs on: the workload's [cluster] section
 * resolved against the chosen catalog device, with the price of its
 * GPU-hour.
 */
#ifndef CAPPLAN_CLUSTER_H
#define CAPPLAN_CLUSTER_H

#include <stdbool.h>

#include "catalog.h"
#include "diag.h"
#include "workload.h"

/* Where the price of a GPU-hour comes from. */
enum price_source {
	PRICE_CATALOG,  /* the catalog row's price_usd_per_gpu_hour */
	PRICE_WORKLOAD, /* [cluster] price_per_gpu_hour */
	PRICE_OWNED,    /* [cluster] pricing = owned: capex, power, hosting */
};

/* price_basis of a price the workload gives, and of an owned one */
#define PRICE_BASIS_WORKLOAD "workload"
#define PRICE_BASIS_OWNED "owned"

struct cluster {
	int gpus_per_node;
	double intra_bw_bytes_per_s;   /* per GPU per direction, datasheet */
	bool nvlink_sharp;             /* the node's switches reduce
					  (model_comm.h) */
	bool intra_mesh;               /* intra_bw split over a link to each
					  other device (comm_link) */
	double inter_bw_bytes_per_s;   /* per GPU per direction, datasheet */
	double intra_comm_eff;         /* achievable share of intra_bw and */
	double inter_comm_eff;         /* of inter_bw in collectives (the
					  device's, gpu_spec); 0: the
					  model's (model_comm.c) */
	double pue;                    /* facility / IT power */
	double price_usd_per_gpu_hour; /* the effective price every cost
					  uses; 0 when unknown */
	enum price_source price_source;
	const char *price_basis;       /* "workload", "owned" or the catalog
					  row's basis (the row's storage) */
	double price_usd_per_kwh;
	double host_overhead;          /* host power / GPU power */
	/* optimizer offload (specs/models.md 6.16); 0: unknown, and then
	   no state is offloaded */
	double host_memory_bytes;      /* host memory of one node */
	double host_link_bw_bytes_per_s; /* GPU <-> host, per GPU per
					    direction, datasheet */
	double cpu_adam_params_per_s;  /* Adam steps of one node's CPUs */
	double ssd_bw_bytes_per_s;     /* local NVMe read, per node; 0:
					  WL_SSD_BW_BYTES_PER_S */
	int nvlink_peers;              /* peers over NVLink; 0: all */
};

/*
 * Resolve 'spec' against device 'g' into 'out': values given in 'spec'
 * win; the rest come from the catalog row.  The price of a GPU-hour is,
 * in this order: [cluster] price_per_gpu_hour when given; with pricing =
 * owned, owned_price_eval of the capex (spec's, else the row's), the
 * amortization, power and hosting keys; else the row's price.  Returns 0;
 * -1 with a message in 'err' (NULL: none) when pricing = owned and
 * neither the workload nor the row gives a capex.  The node and link
 * fields are filled either way.
 */
int cluster_resolve(const struct cluster_spec *spec, const struct gpu_spec *g,
		    struct cluster *out, struct diag *err);

/* True when 'cl' knows its host memory and host link: optimizer states
   can be offloaded to its hosts. */
bool cluster_can_offload(const struct cluster *cl);

/*
 * True when the price of 'cl' covers a job of 'gpus' GPUs of 'g': a
 * price from the workload or from ownership always does; a catalog price
 * does when its basis rents that many as one job (gpu_price_covers).
 */
bool cluster_price_covers(const struct cluster *cl, const struct gpu_spec *g,
			  int gpus);

#endif
