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
	/* optimizer offload (specs/models.md 3.10): the optimizer states
	   (before any offload) of the GPU that has the most; the host
	   memory its offloaded share needs, and what a node's GPUs need
	   together */
	double offloadable_bytes;
	double host_bytes;
	double node_host_bytes;     /* 0 until train_memory_host */
	double host_capacity_bytes; /* of a node; 0: unknown */
	bool fits;                  /* the device, and the host's share */
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
 * Host bytes per offloaded parameter: its fp32 weight (the master copy, or
 * in fp32 training a copy of the weight), the optimizer's moments and a
 * pinned fp32 gradient buffer, as Megatron-Core's HybridDeviceOptimizer
 * keeps them: 16 for Adam, 12 for SGD with momentum.
 */
double train_offload_host_bytes_per_param(enum precision p, enum optimizer o);

/* Host bytes of the offloaded share of 'c' per byte of its optimizer
   states (offload_fraction x the bytes above / the optimizer's bytes per
   parameter); 0 without an offload. */
double train_offload_host_ratio(const struct train_config *c);

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

/*
 * What the memory of a configuration's pipeline stages depends on besides
 * their layer counts, computed once so that many splits of the layers
 * (train_stage_pick) and many configurations of one tp and ep (the
 * search) are weighed without repeating it.  Per GPU.
 */
struct train_stage_memory {
	/* parameters (train_stage_memory_params: model, tp, ep) */
	double dense_layer;      /* replicated parameters of one layer */
	double expert_layer;     /* routed-expert parameters of one layer */
	double embed;            /* first stage: the input embedding */
	double last_extra;       /* last stage: output projection, norm */
	double only_extra;       /* pp 1: every embedding matrix, norm */
	/* the rest (train_stage_memory_states) */
	double dense_weights, dense_gradients, dense_optimizer;
	double expert_weights, expert_gradients, expert_optimizer;
				 /* bytes per parameter after ZeRO */
	double layer_act;        /* one layer, one micro-batch in flight */
	double recompute_act;    /* the layer being recomputed */
	double logits;           /* last stage: fp32 logits */
	double gather_bytes;     /* ZeRO-3: weights gathered, reserved */
	double optimizer_kept;   /* share of the optimizer states left on
				    the GPU: 1 - offload_fraction */
	double host_per_optimizer_byte; /* host bytes of the offloaded share
					   per byte of optimizer states */
};

/* Fill the parameters of 'w': they depend on the model, tp and ep. */
void train_stage_memory_params(struct train_stage_memory *w,
			       const struct arch *a,
			       const struct train_config *c);

/* Fill the rest of 'w' (whose parameters are filled) for 'c'; its stage
   layer counts are not read. */
void train_stage_memory_states(struct train_stage_memory *w,
			       const struct arch *a,
			       const struct train_config *c,
			       const double layer_act[RECOMPUTE_FULL + 1]);

/* train_params_split from the parameters of 'w'. */
void train_stage_params_peak(const struct train_stage_memory *w,
			     const struct arch *a,
			     const struct train_config *c, double *dense,
			     double *expert);

/* Bytes, without the framework reserve, of the most loaded GPU of 'c'
   (whose filled 'w' this is) when its first and last stages hold 'first'
   and 'last' layers. */
double train_stage_memory_peak(const struct train_stage_memory *w,
			       const struct arch *a,
			       const struct train_config *c, int first,
			       int last);

/* train_memory_eval_with from a filled 'w'. */
void train_memory_eval_stages(const struct train_stage_memory *w,
			      const struct arch *a,
			      const struct train_config *c,
			      double capacity_bytes, struct train_memory *m);

/*
 * The host side of 'm', the memory of configuration 'c': the offloaded
 * states of the GPUs of a node (min(gpus, gpus_per_node) of them, each
 * counted as the most loaded one) against 'host_capacity_bytes' of host
 * memory per node (0: unknown); with an offload 'm->fits' also needs them
 * to fit.  Without one nothing changes but the fields.
 */
void train_memory_host(struct train_memory *m, const struct train_config *c,
		       int gpus_per_node, double host_capacity_bytes);

/* The framework reserve on a device of 'capacity_bytes'. */
double train_memory_reserve(double capacity_bytes);

/*
 * The share of a serving GPU the engine leaves alone, on a device of
 * 'capacity_bytes' when it may fill 'fraction' of it (vLLM's
 * gpu_memory_utilization, SGLang's mem_fraction_static; 0: the default,
 * INFER_MEMORY_FRACTION of workload.h) with weights, activations, KV cache and its CUDA
 * context: the rest of the device plus the context (specs/models.md
 * 9.1).
 */
double infer_memory_reserve(double capacity_bytes, double fraction);

/*
 * The same when 'fraction' is a share of the memory left free once the
 * engine holds 'used_bytes' (weights and activations) and its context:
 * TensorRT-LLM's free_gpu_memory_fraction (specs/models.md 9.1).  The
 * reserve is the context plus the rest of that free memory.
 */
double infer_memory_reserve_free(double capacity_bytes, double fraction,
				 double used_bytes);

#endif
