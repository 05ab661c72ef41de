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
#include "model_memory.h"
#include "train_config.h"

struct train_time {
	double compute_s;     /* math and memory-bound kernels, whole step */
	double tp_comm_s;     /* tensor/sequence-parallel collectives */
	double pp_comm_s;     /* pipeline point-to-point sends */
	double cp_comm_s;     /* context-parallel exchange left exposed */
	double bubble_s;      /* pipeline fill and drain */
	double dp_comm_s;     /* data-parallel / ZeRO traffic left exposed */
	double optimizer_s;   /* optimizer step */
	double step_s;        /* one iteration */
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

/*
 * Evaluate configuration 'c' of model 'a' on device 'g' in cluster 'cl'.
 * Pure arithmetic, no allocation.  'c' must satisfy train_config_valid.
 * Returns 0, or -1 when the device cannot run the training precision.
 */
int train_evaluate(const struct arch *a, const struct train_config *c,
		   const struct gpu_spec *g, const struct cluster *cl,
		   struct train_result *r);

#endif
