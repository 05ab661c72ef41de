/*
 * model_recsys_dense.h - a recommender's dense network (bottom MLP, the
 * interaction of the feature vectors or DCN cross layers, top MLP) layer
 * by layer: its parameters, its FLOPs and the time of its kernels on the
 * roofline of model_kernel.h.  specs/models.md 14.3.1.
 */
#ifndef CAPPLAN_MODEL_RECSYS_DENSE_H
#define CAPPLAN_MODEL_RECSYS_DENSE_H

#include <stdbool.h>

#include "model_kernel.h"
#include "workload.h"

/* Time and kernel count of a sequence of kernels. */
struct ktime {
	double s;
	double n;
};

/* Costs of the dense network for a micro-batch of 'b' samples. */
struct dense_cost {
	struct ktime bottom_fwd, bottom_bwd; /* bottom MLP */
	struct ktime rest_fwd, rest_bwd;     /* interaction, cross, top MLP */
	double act_elems;                    /* saved per sample */
};

/* True when the network is given layer by layer (a top MLP). */
bool recsys_has_layers(const struct model_spec *m);

/* Dense parameters: from the layers when given, else dense_params. */
double recsys_dense_params(const struct model_spec *m);

/* Forward FLOPs of the dense part per sample, as recsys_dense_params. */
double recsys_dense_flops(const struct model_spec *m);

/*
 * The dense network for 'b' samples on 'd'; 'train' adds the backward
 * pass.  The interaction: the concatenation of the feature vectors as a
 * copy (unless 'fused'), and for a dot interaction the products as one
 * batched product on the roofline (DLRM's fused dot-interaction kernel:
 * read the vectors, write the triangle).
 */
void recsys_dense_cost(const struct model_spec *m,
		       const struct device_perf *d, double b, bool train,
		       bool fused, struct dense_cost *c);

#endif
