/*
 * model_memory.h - memory per GPU of training: model states under ZeRO,
 * activations under recomputation, sequence and pipeline parallelism, and
 * a reserve for the framework.
 *
 * Sources: Rajbhandari et al. 2020 (ZeRO) section 3.1; Korthikanti et al.
 * 2022 section 4 (activations); Narayanan et al. 2021 section 2.2
 * (pipeline in-flight micro-batches).  specs/models.md, section "Memory".
 */
#ifndef CAPPLAN_MODEL_MEMORY_H
#define CAPPLAN_MODEL_MEMORY_H

#include <stdbool.h>

#include "model_flops.h"
#include "train_config.h"

struct train_memory {
	double weights_bytes;
	double gradients_bytes;
	double optimizer_bytes;
	double activations_bytes;
	double reserve_bytes;   /* framework, CUDA context, comm buffers */
	double total_bytes;
	double capacity_bytes;
	bool fits;
};

/* Bytes per parameter of weights, gradients and optimizer states before
   any sharding, for a training precision and optimizer. */
struct state_bytes {
	double weights;
	double gradients;
	double optimizer;
};
struct state_bytes train_state_bytes(enum precision p, enum optimizer o);

/*
 * Model-state memory of one GPU holding 'params' parameters (its tensor and
 * pipeline shard) with ZeRO stage 'zero' over 'shards' data-parallel ranks.
 * Fills the weights, gradients and optimizer fields of 'm' only.
 */
void train_memory_states(double params, int zero, int shards,
			 enum precision p, enum optimizer o,
			 struct train_memory *m);

/* Parameters held by the most loaded GPU, split into those replicated
   across expert-parallel ranks ('dense': attention, dense FFNs, shared
   experts, embeddings) and routed experts (sharded over tp x ep). */
void train_params_split(const struct arch *a, const struct train_config *c,
			double *dense, double *expert);

/* Parameters held by the most loaded GPU (first or last pipeline stage). */
double train_params_per_gpu(const struct arch *a, const struct train_config *c);

/*
 * Activation bytes of one layer for one micro-batch on one GPU
 * (Korthikanti et al. 2022, generalised to GQA, gated FFNs and fused
 * attention).
 */
double train_layer_activation_bytes(const struct arch *a,
				    const struct train_config *c);

/* Full memory breakdown of the most loaded GPU for 'capacity_bytes'. */
void train_memory_eval(const struct arch *a, const struct train_config *c,
		       double capacity_bytes, struct train_memory *m);

/*
 * Activation bytes of one layer and micro-batch for each enum recompute
 * mode; they depend on tp, cp, micro_batch, sequence parallelism,
 * precision, attention and dropout only.
 */
void train_layer_activations(const struct arch *a,
			     const struct train_config *c,
			     double layer_act[RECOMPUTE_FULL + 1]);

/* train_memory_eval with the per-layer activations already computed. */
void train_memory_eval_with(const struct arch *a,
			    const struct train_config *c,
			    const double layer_act[RECOMPUTE_FULL + 1],
			    double capacity_bytes, struct train_memory *m);

/* The framework reserve on a device of 'capacity_bytes'. */
double train_memory_reserve(double capacity_bytes);

#endif
