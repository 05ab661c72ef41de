/*
 * search.h - choose the training configuration: every key the workload
 * leaves to capplan is enumerated over its legal values, and the fastest
 * configuration that fits in memory wins.
 *
 * Init / iterate / test as in GSL: train_space_init builds the candidate
 * lists once; train_search walks them without allocating.
 */
#ifndef CAPPLAN_SEARCH_H
#define CAPPLAN_SEARCH_H

#include <stdbool.h>

#include "catalog.h"
#include "cluster.h"
#include "model_train.h"
#include "workload.h"

/* Most candidate values of one key (a global batch has at most this many
   divisors tried as micro-batches: the smallest). */
#define SPACE_MAX_VALUES 256

/* Candidate values of one dimension. */
struct space_dim {
	int n;
	int v[SPACE_MAX_VALUES];
};

struct train_space {
	int gpus;
	int global_batch;
	bool batch_round;         /* the default batch: each configuration
				     rounds it to the nearest whole number
				     of its dp x micro_batch (round_batch) */
	struct space_dim tp, pp, vp, cp, ep, micro_batch, zero, recompute, sp,
		overlap, tp_overlap;
	struct space_dim offload; /* 0: no optimizer offload, 1: offload of
				     offload_fraction (legal with ZeRO >= 1
				     on a cluster that can offload) */
	double offload_fraction;  /* the share offloaded for value 1 */
	int recompute_layers_max; /* full recomputation of 1 to this many
				     layers of each chunk is also tried
				     (recompute_layers); 0: only of every
				     layer, or the workload's value */
	int recompute_layers;     /* the workload's (0: every layer) when
				     recompute_layers_max is 0 */
	bool vp_divides;          /* vp open: only divisors of the layers
				     per stage, ceil(layers / pp) */
	int first_stage_layers;  /* layers of the first and last pipeline */
	int last_stage_layers;   /* stage: fixed (> 0), or 0: chosen for
				    each configuration (train_stage_choose) */
	enum precision precision;
	enum optimizer optimizer;
	enum attention_impl attention;
	int eager_ops;              /* the workload's enum eager_op bits */
	bool dropout;
	bool ep_comm_overlap;       /* the workload's; not searched */
	int zero_node_gpus;         /* the workload's hybrid sharding (the
				       node's GPUs; 0: none); not searched */
	int zero_shard_ranks;       /* the workload's shard size in ranks
				       (0: none); not searched */
	int recompute_modules;
	bool overlap_param_gather;
};

/*
 * Build the space for 'ts' (the workload's [training]) of model 'a' on
 * nodes of 'gpus_per_node'.  'gpus' must be resolved (> 0); 'global_batch'
 * 0: the default batch, ts->batch_tokens over seq_len as a power of two
 * (the caller puts the default_batch_tokens rule there), which each
 * configuration rounds to a whole number of its dp x micro_batch.
 * Returns 0, or -1 with a message.
 */
int train_space_init(struct train_space *sp, const struct training_spec *ts,
		     const struct arch *a, int gpus, int global_batch,
		     int gpus_per_node, struct diag *err);

/*
 * Widen the offload candidates of 'sp' (built by train_space_init for
 * 'ts') to the cluster: with training.offload_optimizer left open, none
 * and all of the optimizer states (0 and 1) when 'cl' can offload
 * (cluster_can_offload), else none alone.  A given value is kept.
 */
void train_space_offload(struct train_space *sp,
			 const struct training_spec *ts,
			 const struct cluster *cl);

struct search_result {
	bool found;                 /* a configuration fits in memory */
	struct train_config best;   /* most tokens/s that fits, else least
				       memory */
	struct train_result result;
	long long enumerated;       /* combinations of the candidate values
				       (train_space_size) */
	long long legal;            /* of which legal (train_config_valid
				       and in the space) */
	long long fitting;          /* of which fit in memory */
	long long evaluated;        /* of which timed by the model: the rest
				       cannot be the fastest (bounds) */
};

/* Combinations of the candidate values of 'sp': the product of its
   lists, full recomputation counted once per layer count tried. */
long long train_space_size(const struct train_space *sp);

/*
 * Evaluate every legal configuration of 'sp'.  Pure, no allocation.
 * Returns 0; res->found tells whether anything fits.
 */
int train_search(const struct train_space *sp, const struct arch *a,
		 const struct gpu_spec *g, const struct cluster *cl,
		 struct search_result *res);

/* One configuration of a ranking. */
struct search_entry {
	struct train_config config;
	struct train_result result;
};

/*
 * train_search that also keeps the 'k' fastest configurations that fit,
 * fastest first, in the caller's array 'top' ('*ntop' of them are
 * filled).  No allocation.
 */
int train_search_top(const struct train_space *sp, const struct arch *a,
		     const struct gpu_spec *g, const struct cluster *cl,
		     struct search_result *res, struct search_entry *top,
		     int k, int *ntop);

/*
 * train_search_top spread over 'threads' POSIX threads (the outer
 * combinations are dealt round-robin); the same answer as on one thread
 * up to configurations that tie exactly.  Falls back to one thread when
 * the space is small or a workspace cannot be allocated.
 */
int train_search_parallel(const struct train_space *sp, const struct arch *a,
			  const struct gpu_spec *g, const struct cluster *cl,
			  struct search_result *res, struct search_entry *top,
			  int ktop, int *ntop, int threads);

/*
 * The global batch, in sequences, when the workload gives none: the power
 * of two nearest (in ratio) to 'batch_tokens' / 'seq_len', at least 1 and
 * at most WL_BATCH_MAX.  train_space_init holds it fixed for every GPU
 * count and configuration.
 */
int default_global_batch(int seq_len, double batch_tokens);

/*
 * Tokens per global batch when the workload gives neither global_batch
 * nor batch_tokens: the critical batch of DeepSeek LLM (DeepSeek-AI 2024,
 * arXiv:2401.02954, section 3.1), B = 0.292 C^0.3271 tokens for a run of
 * C = 'flops_per_token' x 'tokens' FLOPs (the non-embedding training
 * FLOPs per token), at least one sequence of 'seq_len'.
 */
double default_batch_tokens(double flops_per_token, double tokens,
			    int seq_len);

/* 'target' sequences rounded to the nearest multiple of 'unit', at most
   WL_BATCH_MAX (then a multiple below); 'target' itself when 'unit' is
   above it (no configuration with larger steps than the batch). */
int round_batch(int target, int unit);

#endif
