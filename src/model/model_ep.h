/*
 * model_ep.h - expert-parallel serving across NVLink domains: the
 * dispatch and combine all-to-alls of a wide expert-parallel MoE layer
 * and the load imbalance of its ranks (specs/models.md 10.9.24).  Pure
 * functions of their arguments.
 */
#ifndef CAPPLAN_MODEL_EP_H
#define CAPPLAN_MODEL_EP_H

#include <stdbool.h>

#include "cluster.h"

/* What one all-to-all pair of a MoE layer moves. */
struct ep_traffic {
	int gpus;               /* ranks of the expert-parallel group */
	double tokens_gpu;      /* tokens each rank dispatches */
	double copies;          /* experts a token is sent to (top-k) */
	double hidden;          /* elements of a token's hidden state */
	double dispatch_bytes;  /* bytes per element sent to the experts */
	double combine_bytes;   /* bytes per element sent back */
	double imbalance;       /* the busiest rank's load over the mean */
	bool forward;           /* a token crosses the network once per
				   remote domain and is forwarded inside it
				   (DeepEP's normal kernels, prefill); false:
				   once per remote expert (its low-latency
				   kernels, decode) */
};

/*
 * The busiest of 'ranks' ranks' load over the mean when 'pairs'
 * token-expert pairs land on them uniformly at random (balls into bins,
 * Raab and Steger 1998: the maximum is m/n + sqrt(2 (m/n) ln n) for
 * m >> n ln n).  1 for one rank or no pairs; at most 'ranks'.
 */
double ep_imbalance(double pairs, int ranks);

/*
 * Seconds of the dispatch and the combine of one MoE layer on the
 * cluster 'cl' (its gpus_per_node is the NVLink domain): the copies for
 * ranks of the same domain over NVLink, the others over each GPU's
 * network port, the slower of the two bounding each pass, the busiest
 * rank's share scaled by the imbalance.
 */
double ep_alltoall_s(const struct cluster *cl, const struct ep_traffic *t);

/* One of the two passes of ep_alltoall_s, moving 'bytes' per element:
   the dispatch (t->dispatch_bytes) or the combine (t->combine_bytes). */
double ep_pass_s(const struct cluster *cl, const struct ep_traffic *t,
		 double bytes);

#endif
