/*
 * plan.h - a training plan: a workload resolved on one device.
 *
 * Applies the defaults the workload leaves open (GPU count, global batch,
 * tokens), searches the keys left to capplan, and costs the run.  Pure:
 * no I/O, no allocation.
 */
#ifndef CAPPLAN_PLAN_H
#define CAPPLAN_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "catalog.h"
#include "cluster.h"
#include "model_energy.h"
#include "model_goodput.h"
#include "model_memory.h"
#include "model_recsys.h"
#include "model_train.h"
#include "search.h"
#include "workload.h"

/* Keys whose value capplan chose; bit (1u << k) of train_plan.chosen. */
enum plan_choice {
	CHOSE_GPUS,
	CHOSE_GLOBAL_BATCH,
	CHOSE_MICRO_BATCH,
	CHOSE_TP,
	CHOSE_PP,
	CHOSE_VP,
	CHOSE_FIRST_STAGE,
	CHOSE_LAST_STAGE,
	CHOSE_CP,
	CHOSE_EP,
	CHOSE_ZERO,
	CHOSE_ZERO_SHARD, /* never chosen (not searched); a suggestion */
	CHOSE_RECOMPUTE,
	CHOSE_RECOMPUTE_LAYERS,
	CHOSE_SEQUENCE_PARALLEL,
	CHOSE_OVERLAP,
	CHOSE_TP_OVERLAP,
	CHOSE_OFFLOAD,
	CHOSE_TOKENS,
	CHOSE_COUNT
};

/* The workload key of a choice, e.g. "training.tp". */
const char *plan_choice_key(enum plan_choice c);

struct train_plan {
	const struct gpu_spec *gpu;
	struct cluster cluster;
	bool has_arch;              /* false: only 'params' is known */
	bool per_sample;            /* kind generic or recsys: costed per
				       sample, data parallel; tokens count
				       samples */
	struct arch arch;
	double params;
	double tokens;              /* to train on */
	struct train_config config;
	struct train_result result; /* time and memory; memory only (model
				       states) when !has_arch */
	struct goodput goodput;     /* failures, checkpoints, restarts; when
				       has_arch */
	struct run_cost run;        /* the whole run as production runs
				       report it: goodput.time_s over
				       production_efficiency */
	double batch_tokens;        /* the tokens per batch the default
				       batch aims at (the workload's, or
				       default_batch_tokens) */
	double production_efficiency; /* its share of the steady rate
					 beyond failures (specs/models.md
					 8.2) */
	bool fits;
	int max_micro_batch;        /* largest micro-batch that fits with the
				       rest of the configuration; 0: none */
	long long enumerated;       /* combinations of the searched keys'
				       candidates (search_result) */
	long long legal;            /* of which legal */
	long long fitting;          /* of which fit in memory */
	long long evaluated;        /* of which timed by the model */
	unsigned chosen;            /* bits of enum plan_choice */
	struct recsys_step recsys;  /* kind recsys: the tables' placement and
				       the step's parts (model_recsys.h) */
};

/*
 * The model FLOPs of the run 'wl' describes, tokens x model FLOPs per
 * token (train_model_flops_per_token), as every train_plan_make of it
 * counts them whatever the GPUs; 0 for a model without its architecture
 * or costed per sample.
 */
double train_plan_model_flops(const struct workload *wl);

/*
 * Plan the training of 'wl' (validated) on device 'g'.  Returns 0 with a
 * plan, fitting or not (see p->fits); -1 with a message when there is no
 * legal configuration at all or the device cannot run the precision.
 */
int train_plan_make(const struct workload *wl, const struct gpu_spec *g,
		    struct train_plan *p, struct diag *err);

/*
 * train_plan_make that also ranks the 'k' fastest configurations that
 * fit into the caller's 'top' ('*ntop' filled), as train_search_top does,
 * searching on 'threads' threads.  For a model given by 'params' alone
 * nothing is ranked.
 */
int train_plan_rank(const struct workload *wl, const struct gpu_spec *g,
		    struct train_plan *p, struct search_entry *top, int k,
		    int *ntop, int threads, struct diag *err);

/*
 * The run of configuration 'c' with result 'r' (of plan 'p', whose
 * tokens and cluster it uses) as operations see it: failures,
 * checkpoints, restarts and maintenance (model_goodput.h) from the
 * workload's [cluster] and [training] keys.  A checkpoint holds the
 * weights and optimizer states of every parameter once, written in shards
 * by every node in parallel (Megatron-Core's and PyTorch DCP's
 * distributed checkpoints).  train_plan_make fills p->goodput with it.
 */
void train_plan_goodput(const struct workload *wl, const struct train_plan *p,
			const struct train_config *c,
			const struct train_result *r, struct goodput *gp);

/*
 * For a workload that does not fit on 'g': the smallest change that makes
 * it fit, as text for people ("set training.recompute=full", "needs at
 * least 64 GPUs"), written to 'buf'.  Tries, in order, leaving one fixed
 * key to capplan (micro_batch, recompute, zero, offload_optimizer, tp, pp,
 * cp), all of them,
 * then more GPUs.  Returns 0 when a change was found, -1 when nothing
 * up to 'max_gpus' GPUs fits.
 */
int train_plan_suggest(const struct workload *wl, const struct gpu_spec *g,
		       int max_gpus, char *buf, size_t n);

#endif
