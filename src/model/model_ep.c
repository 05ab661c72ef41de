/* model_ep.c - expert-parallel serving across NVLink domains; see
   model_ep.h. */
#include "model_ep.h"

#include <math.h>

#include "model_comm.h"

double ep_imbalance(double pairs, int ranks)
{
	double mean, imb;

	if (ranks <= 1 || !(pairs > 0.0))
		return 1.0;
	mean = pairs / ranks;
	imb = 1.0 + sqrt(2.0 * log((double)ranks) / mean);
	return imb < ranks ? imb : (double)ranks;
}

/* Seconds of one pass moving 'bytes' per element. */
static double pass_s(const struct link *nv, const struct link *net,
		     double nv_copies, double net_copies, double row_elems,
		     double bytes, double imbalance, bool remote)
{
	double row = row_elems * bytes;
	double t_nv = nv_copies * row / nv->bw_bytes_per_s;
	double t_net = remote ? net_copies * row / net->bw_bytes_per_s : 0.0;

	return imbalance * (t_nv > t_net ? t_nv : t_net) + nv->latency_s +
	       (remote ? net->latency_s : 0.0);
}

double ep_pass_s(const struct cluster *cl, const struct ep_traffic *t,
		 double bytes)
{
	int g = t->gpus;
	int dom = cl->gpus_per_node > 0 && cl->gpus_per_node < g ?
			  cl->gpus_per_node :
			  g;
	double domains = ceil((double)g / dom);
	double k = t->copies;
	/* shares of a token's copies: other ranks of its own domain, ranks
	   of other domains */
	double near = (dom - 1.0) / g, far = (g - (double)dom) / g;
	double nv_copies, net_copies;
	struct link nv = comm_link(cl, dom, dom);
	struct link net = comm_inter_link(cl);
	bool remote = domains > 1.0 && far > 0.0;

	if (g <= 1 || !(t->tokens_gpu > 0.0) || !(k > 0.0))
		return 0.0;
	if (remote && t->forward) {
		/* once to each remote domain holding one of the token's
		   experts (k picks over 'domains'), then over NVLink to
		   the expert's rank unless it is the receiving one */
		net_copies = (domains - 1.0) *
			     (1.0 - pow(1.0 - 1.0 / domains, k));
		nv_copies = k * (near + far * (dom - 1.0) / dom);
	} else {
		net_copies = k * far;
		nv_copies = k * near;
	}
	return pass_s(&nv, &net, nv_copies, net_copies,
		      t->tokens_gpu * t->hidden, bytes, t->imbalance, remote);
}

double ep_alltoall_s(const struct cluster *cl, const struct ep_traffic *t)
{
	return ep_pass_s(cl, t, t->dispatch_bytes) +
	       ep_pass_s(cl, t, t->combine_bytes);
}
