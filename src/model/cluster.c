/* cluster.c - resolve [cluster] against a device; see cluster.h. */
#include "cluster.h"

#include "model_energy.h"

/* a node from the workload and from the catalog have the same bound */
_Static_assert(WL_GPUS_PER_NODE_MAX == GPU_NODE_MAX,
	       "cluster.gpus_per_node and the catalog column must agree");
/* a row's rental limit is a GPU count of a plan */
_Static_assert(WL_GPUS_MAX == GPU_RENT_MAX,
	       "training.gpus and the catalog's rent_max_gpus must agree");

/* The price of a GPU-hour and its basis (cluster.h). */
static int resolve_price(const struct cluster_spec *spec,
			 const struct gpu_spec *g, struct cluster *out,
			 struct diag *err)
{
	struct owned_price_in in;
	struct owned_price owned;

	out->price_usd_per_gpu_hour = 0.0;
	if (spec->price_usd_per_gpu_hour > 0.0) {
		out->price_usd_per_gpu_hour = spec->price_usd_per_gpu_hour;
		out->price_source = PRICE_WORKLOAD;
		out->price_basis = PRICE_BASIS_WORKLOAD;
		return 0;
	}
	if (spec->pricing != PRICING_OWNED) {
		out->price_usd_per_gpu_hour = g->price_usd_per_hour;
		out->price_source = PRICE_CATALOG;
		out->price_basis = g->price_basis;
		return 0;
	}
	out->price_source = PRICE_OWNED;
	out->price_basis = PRICE_BASIS_OWNED;
	in.capex_usd = spec->capex_usd_per_gpu > 0.0 ? spec->capex_usd_per_gpu :
						       g->capex_usd_per_gpu;
	if (!(in.capex_usd > 0.0))
		return diag_set(err, NULL, 0, 0,
				"'cluster.pricing' is owned but the catalog "
				"gives '%s' no capex_usd_per_gpu: set "
				"'cluster.capex_per_gpu' (the purchase price "
				"of one GPU with its share of server and "
				"network)",
				g->name);
	in.amortization_years = spec->amortization_years;
	in.tdp_w = g->tdp_w;
	in.host_overhead = spec->host_overhead;
	in.pue = spec->pue;
	in.price_usd_per_kwh = spec->price_usd_per_kwh;
	in.hosting_usd_per_kw_month = spec->hosting_usd_per_kw_month;
	owned_price_eval(&in, &owned);
	out->price_usd_per_gpu_hour = owned.total_usd_per_hour;
	return 0;
}

int cluster_resolve(const struct cluster_spec *spec, const struct gpu_spec *g,
		    struct cluster *out, struct diag *err)
{
	out->gpus_per_node = spec->gpus_per_node > 0 ? spec->gpus_per_node :
						       g->gpus_per_node;
	out->intra_bw_bytes_per_s = spec->intra_bw_bytes_per_s > 0.0 ?
					    spec->intra_bw_bytes_per_s :
					    g->intra_bw_bytes_per_s;
	out->nvlink_sharp = spec->nvlink_sharp == WL_AUTO_NEG ?
				    g->nvlink_sharp :
				    spec->nvlink_sharp != 0;
	out->intra_mesh = spec->intra_mesh == WL_AUTO_NEG ?
				  g->intra_mesh :
				  spec->intra_mesh != 0;
	out->inter_bw_bytes_per_s = spec->inter_bw_bytes_per_s > 0.0 ?
					    spec->inter_bw_bytes_per_s :
					    g->inter_bw_bytes_per_s;
	out->intra_comm_eff = g->intra_comm_eff;
	out->inter_comm_eff = g->inter_comm_eff;
	out->pue = spec->pue;
	out->price_usd_per_kwh = spec->price_usd_per_kwh;
	out->host_overhead = spec->host_overhead;
	/* the host of the catalog row's node, unless the workload says */
	out->host_memory_bytes = spec->host_memory_bytes > 0.0 ?
					 spec->host_memory_bytes :
					 g->host_memory_bytes;
	out->host_link_bw_bytes_per_s =
		spec->host_link_bw_bytes_per_s > 0.0 ?
			spec->host_link_bw_bytes_per_s :
			g->host_link_bw_bytes_per_s;
	out->cpu_adam_params_per_s = spec->cpu_adam_params_per_s;
	out->ssd_bw_bytes_per_s = spec->ssd_bw_bytes_per_s;
	out->nvlink_peers = spec->nvlink_peers;
	return resolve_price(spec, g, out, err);
}

bool cluster_can_offload(const struct cluster *cl)
{
	return cl->host_memory_bytes > 0.0 &&
	       cl->host_link_bw_bytes_per_s > 0.0 &&
	       cl->cpu_adam_params_per_s > 0.0;
}

bool cluster_price_covers(const struct cluster *cl, const struct gpu_spec *g,
			  int gpus)
{
	return cl->price_source != PRICE_CATALOG || gpu_price_covers(g, gpus);
}
