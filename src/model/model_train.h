/*
 * model_train.h - time, throughput and efficiency of one training
 * configuration.
 *
 * A step is the pipeline of micro-batches (1F1B, interleaved when vp > 1)
 * over the slowest stage, plus the exposed data-parallel gradient
 * reduction and the optimizer step.  Each stage's time is built from
 * kernels (model_kernel.h) and collectives (model_comm.h).  Sources:
 * Narayanan et al. 2021 (schedule, bubble); Korthikanti et al. 2022
 * (sequence parallelism, selective recomputation); Rajbhandari et al. 2020
 * (ZeRO communication).  specs/models.md, section "Training time".
 */
#ifndef CAPPLAN_MODEL_TRAIN_H
#define CAPPLAN_MODEL_TRAIN_H

#include "catalog.h"
#include "cluster.h"
#include "model_flops.h"
#include "model_kernel.h"
#include "model_memory.h"
#include "train_config.h"

struct train_time {
	double compute_s;     /* math and memory-bound kernels, whole step */
	double tp_comm_s;     /* tensor/sequence-parallel collectives */
	double pp_comm_s;     /* pipeline point-to-point sends */
	double cp_comm_s;     /* context-parallel exchange left exposed */
	double bubble_s;      /* pipeline fill and drain */
	double dp_comm_s;     /* data-parallel / ZeRO traffic left exposed */
	double optimizer_s;   /* optimizer step on the GPU */
	double offload_s;     /* optimizer offload left exposed: the host's
				 part of the step beyond the GPU's */
	double host_s;        /* per-sample kinds: the training loop's host
				 time the GPUs wait for; 0 for transformers */
	double step_s;        /* one iteration */
	/* the offload's three stages over the whole shard, pipelined
	   (offload_s is their pipeline less what the GPU runs meanwhile);
	   0 without an offload */
	double offload_d2h_s; /* fp32 gradients to the host */
	double offload_cpu_s; /* the CPUs' optimizer step */
	double offload_h2d_s; /* updated 16-bit weights back */
};

struct train_result {
	struct train_time time;
	struct train_memory memory;
	double params;                 /* whole model */
	double tokens_per_step;
	double tokens_per_s;
	double tokens_per_s_per_gpu;
	double model_flops_per_token;
	double hw_flops_per_token;
	double model_flops_per_gpu;    /* achieved, FLOP/s */
	double hw_flops_per_gpu;       /* achieved, FLOP/s */
	double peak_flops;             /* dense peak used for MFU */
	double mfu;
	double hfu;
	double busy_fraction;          /* share of the step in compute kernels */
};

/* Costs of one transformer layer for one micro-batch on one GPU. */
struct train_layer {
	double fwd_s;         /* compute kernels of the forward pass */
	double bwd_s;         /* compute kernels of the backward pass */
	double attn_fwd_s;    /* attention core, forward (for cp overlap) */
	double attn_bwd_s;
	double tp_fwd_s;      /* tensor-parallel collectives, forward */
	double tp_bwd_s;
	double cp_fwd_s;      /* exposed context-parallel exchange */
	double cp_bwd_s;
	double a2a_s;         /* MoE dispatch and combine, one pass (part of
				 tp_fwd_s and tp_bwd_s) */
	/* repeated before the backward pass, per enum recompute */
	double recompute_s[RECOMPUTE_FULL + 1];
	double tp_recompute_s[RECOMPUTE_FULL + 1];
};

/*
 * What a micro-batch costs, independent of how the layers are spread over
 * pipeline stages, ZeRO stage, recomputation and data parallelism: it
 * depends on tp, cp, micro_batch, sequence_parallel, precision, attention,
 * eager_ops and dropout only.  The search computes it once for all the rest.
 */
struct train_micro {
	struct device_perf d;      /* the linear layers' GEMMs */
	struct device_perf dv;     /* the rest: bf16 in fp8 training, else d */
	struct train_layer layer;
	double act_bytes;          /* one activation tensor of a micro-batch */
	double layer_act_bytes[RECOMPUTE_FULL + 1]; /* per layer, per mode */
	struct train_stage_memory mem; /* its parameters filled */
	double embed_fwd_s;        /* embedding lookup (first stage) */
	double embed_bwd_s;
	double out_fwd_s;          /* output layer and loss (last stage) */
	double out_bwd_s;
	double head_tp_s;          /* one tensor-parallel collective each:
				      the embedding's forward all-reduce,
				      the output layer's backward one */
	double params;
	double model_flops_per_token;
	double hw_flops_per_token[RECOMPUTE_FULL + 1];
};

/* Fill 'mc' for 'c'; -1 when the device cannot run the precision. */
int train_micro_eval(const struct arch *a, const struct train_config *c,
		     const struct gpu_spec *g, const struct cluster *cl,
		     struct train_micro *mc);

/* Hardware FLOPs per token of 'c' (recomputation included; with
   recompute_layers the full recomputation's extra times its share). */
double train_micro_hw_flops_per_token(const struct arch *a,
				      const struct train_config *c,
				      const struct train_micro *mc);

/* train_evaluate for a 'c' whose micro-batch costs are 'mc'. */
void train_evaluate_micro(const struct arch *a, const struct train_config *c,
			  const struct gpu_spec *g, const struct cluster *cl,
			  const struct train_micro *mc, struct train_result *r);

/* Most splits train_stage_fastest considers. */
#define TRAIN_STAGE_TIES 49

/* Equally fast splits of the layers: first and last stage counts. */
struct train_stage_ties {
	int n;
	int first[TRAIN_STAGE_TIES];
	int last[TRAIN_STAGE_TIES];
};

/*
 * The fastest ways to split the layers of 'c' (whose stage counts are not
 * read): first and last stage counts for the fastest pipeline, the
 * embedding counted on the first stage and the output layer and loss on
 * the last at their cost in time ('mc'), the middle stages sharing the
 * rest (train_stage_split).  'first' and 'last' fix a count (> 0) or
 * leave it open (0).  Candidates: a few counts around the balance point
 * (specs/models.md 6.10).  Of the equally fast splits, those that hold no
 * more layers on every stage than another are dropped.  Depends on tp,
 * cp, micro-batch, pp, vp, micro-batches and recomputation, not on ZeRO.
 * pp 1: the one split ('first', 'last').  Returns 0, or -1 when no split
 * is legal (train_config_valid).  No allocation.
 */
int train_stage_fastest(const struct arch *a, const struct train_config *c,
			const struct train_micro *mc, int first, int last,
			struct train_stage_ties *ties);

/* Set the stage counts of 'c' to the split of 'ties' whose most loaded
   GPU needs the least memory (the first such), weighed without any
   optimizer offload. */
void train_stage_pick(const struct arch *a, struct train_config *c,
		      const struct train_micro *mc,
		      const struct train_stage_ties *ties);

/* train_stage_fastest, then train_stage_pick: 0, or -1 when no split of
   'c' is legal. */
int train_stage_choose(const struct arch *a, struct train_config *c,
		       const struct train_micro *mc, int first, int last);

/*
 * A lower bound of the pipeline part of the step of 'c' (its m
 * micro-batches and the fill and drain), whatever the split of its
 * layers: the slowest stage takes at least the average stage.  The step
 * (train_evaluate_micro) takes at least this long.  For the search, to
 * pass over configurations that cannot be faster than one it has.
 */
double train_pipeline_bound_s(const struct arch *a,
			      const struct train_config *c,
			      const struct cluster *cl,
			      const struct train_micro *mc);

/*
 * Whether offloading the optimizer of configurations like 'c' (its
 * precision, optimizer and GPUs, on 'cl', with the device of 'mc') never
 * shortens a step: the slowest stage of the offload pipeline moves a
 * parameter no faster than the GPU's own step does.  Then a
 * configuration that fits without offload is at least as fast as with
 * it, and the search weighs the offload only for those that do not fit
 * (specs/models.md 7.6).  False when 'cl' cannot offload.
 */
bool train_offload_never_faster(const struct train_config *c,
				const struct cluster *cl,
				const struct train_micro *mc);

/*
 * The fastest FLOP rate of any kernel of a training step in precision
 * 'p' on 'g' (kernel_rate_ceiling of the training precision's math, and
 * of bf16's, where fp8 runs its other kernels: train_micro_eval): a step
 * of F model FLOPs on N GPUs takes at least F / (N x this).  0 when the
 * device cannot run 'p'.
 */
double train_rate_ceiling(const struct gpu_spec *g, enum precision p);

/* Memory traffic of one optimizer step per parameter (bytes). */
double train_optimizer_bytes_per_param(enum optimizer o);

/*
 * Evaluate configuration 'c' of model 'a' on device 'g' in cluster 'cl'.
 * Pure arithmetic, no allocation.  'c' must satisfy train_config_valid.
 * Returns 0, or -1 when the device cannot run the training precision.
 */
int train_evaluate(const struct arch *a, const struct train_config *c,
		   const struct gpu_spec *g, const struct cluster *cl,
		   struct train_result *r);

#endif
