/*
 * train_config.h - one fully resolved training configuration: how the
 * model is split over GPUs and how each GPU runs its share.
 */
#ifndef CAPPLAN_TRAIN_CONFIG_H
#define CAPPLAN_TRAIN_CONFIG_H

#include <stdbool.h>

#include "model_flops.h"
#include "precision.h"
#include "workload.h"

struct train_config {
	int gpus;
	int tp, pp, vp, cp, dp;   /* tensor, pipeline, virtual, context, data */
	int ep;                   /* expert parallelism, carved out of
				     dp * cp; 0 or 1: none */
	int first_stage_layers;   /* transformer layers of the first and */
	int last_stage_layers;    /* the last pipeline stage; both 0:
				     dealt evenly (train_stage_split);
				     ignored when pp is 1 unless given */
	int micro_batch;          /* sequences per micro-batch */
	int global_batch;         /* sequences per iteration */
	int micro_batches;        /* per pipeline: global / (dp * micro) */
	int zero;                 /* 0..3 */
	int zero_node_gpus;       /* hybrid sharding: the ZeRO shards stay
				     within nodes of this many GPUs and the
				     nodes hold replicas (FSDP HYBRID_SHARD,
				     HSDP); 0: the shards span every
				     data-parallel rank */
	int zero_shard_ranks;     /* > 0: a shard spans this many of the
				     dp * cp ranks, which it must divide
				     (FSDP2 over a 2-D device mesh of
				     replicas and shards); 0: as
				     zero_node_gpus says */
	enum recompute recompute;
	int recompute_modules;    /* what selective recomputation repeats:
				     enum recompute_module bits, 0 for
				     core_attn alone */
	int recompute_layers;     /* with full recomputation: layers of
				     each pipeline chunk recomputed
				     (Megatron's recompute_num_layers,
				     block method), the rest keep their
				     activations; 0: every layer */
	bool sequence_parallel;
	bool overlap_grad_reduce;
	bool overlap_param_gather; /* ZeRO 1-2 weight gather behind the
				      next step's forward pass */
	bool tp_comm_overlap;     /* tensor-parallel collectives pipelined
				     with the GEMMs (Megatron
				     --tp-comm-overlap); needs sequence
				     parallelism */
	bool ep_comm_overlap;     /* MoE all-to-alls beside another
				     micro-batch's compute (DualPipe) */
	double offload_fraction;  /* share of the GPU's optimizer shard (fp32
				     master weights and moments) kept in
				     host memory and stepped by the CPUs,
				     0..1 (Megatron-Core's
				     --optimizer-offload-fraction); > 0
				     needs zero >= 1 */
	bool dropout;
	int emb_sharding;         /* recsys: enum emb_sharding of the
				     tables (EMB_AUTO: the fastest) */
	bool emb_comm_overlap;    /* recsys: the embedding all-to-alls
				     overlap the dense network */
	bool bottom_mlp_one_gpu;  /* recsys: the bottom MLP on one GPU that
				     holds no table, for the whole global
				     batch (DeepLearningExamples' PyTorch
				     DLRM); false: data parallel */
	bool emb_fused_update;    /* recsys: the tables' backward fused with
				     the optimizer (FBGEMM, TorchRec,
				     HugeCTR); false: framework sparse
				     gradients */
	double collective_cycle_s; /* recsys: the coordinator's cycle each
				      blocking collective waits half of on
				      average (Horovod); 0: none */
	double step_overhead_s;   /* per-sample kinds: host time per step
				     that no GPU work hides (the training
				     loop; specs/models.md 14.4) */
	double input_bytes;       /* recsys: training data read per
				     sample; 0: from the model */
	enum precision precision;
	enum optimizer optimizer;
	enum attention_impl attention;
	int eager_ops;            /* enum eager_op bits: element-wise
				     operations run as eager kernels, one
				     per operation; 0: fused */
};

/*
 * Check that 'c' is a legal split of 'a' on nodes of 'gpus_per_node':
 * gpus = tp*pp*cp*dp, tp divides heads, kv heads split or replicate evenly,
 * tp divides the node or spans whole nodes, the layers fill every pipeline
 * chunk
 * (train_stage_split), cp divides seq_len, the global batch splits into
 * micro-batches, an optimizer offload (offload_fraction > 0) has ZeRO >= 1.  Returns true when legal.  Pure and allocation-free (the
 * search's filter).
 */
bool train_config_valid(const struct arch *a, const struct train_config *c,
			int gpus_per_node);

/*
 * Layers of the largest pipeline chunk of an even split of 'c':
 * ceil(ceil(layers / pp) / vp).  Full recomputation of
 * 'recompute_layers' of them is partial when fewer than this.
 */
int train_chunk_layers(const struct arch *a, const struct train_config *c);

/*
 * Share of the layers whose forward pass full recomputation repeats: 0
 * without full recomputation, 1 with it over every layer
 * (recompute_layers 0, or at least train_chunk_layers), else
 * recompute_layers / train_chunk_layers (specs/models.md 3.5, 6.6).
 */
double train_recompute_fraction(const struct arch *a,
				const struct train_config *c);

/* Expert-parallel size: 'ep', where 0 means 1. */
int train_config_ep(const struct train_config *c);

/*
 * The ranks one copy of the ZeRO-sharded model states of 'c' spans: all
 * dp * cp ranks, zero_shard_ranks of them, or with hybrid sharding within
 * the nodes (zero_node_gpus > 0) those of the dp * cp group within a
 * node, gcd(dp * cp, zero_node_gpus / tp) (Megatron's rank order puts tp
 * innermost, then cp and dp).  The
 * routed experts' states shard over the ranks of that set that hold the
 * same experts: 'experts' (may be NULL) receives gcd(dp * cp / ep,
 * shards).  specs/models.md 3.2 and 6.11.
 */
int train_config_zero_shards(const struct train_config *c, int *experts);

/* What selective recomputation of 'c' would repeat, whatever its
   recompute: its recompute_modules, where 0 means the core attention
   (RECOMPUTE_MOD_CORE_ATTN). */
int train_config_selective_modules(const struct train_config *c);

/* train_config_selective_modules when 'c' recomputes selectively, else
   0. */
int train_config_recompute_modules(const struct train_config *c);

/* Transformer layers of the pipeline stages of a configuration. */
struct train_stages {
	int first;    /* the first stage (it also holds the embedding) */
	int last;     /* the last stage (the final norm, output layer, loss) */
	int middle;   /* the most loaded of the pp - 2 middle stages; 0 when
			 pp <= 2 */
};

/*
 * The layers each pipeline stage of 'c' holds.  pp 1: one stage holds
 * every layer and is both first and last.  With first_stage_layers and
 * last_stage_layers given (Megatron-Core's
 * --decoder-first/last-pipeline-num-layers), the first and last stages
 * hold those and the pp - 2 middle stages share the rest as evenly as
 * possible: the most loaded holds ceil(rest / (pp - 2)).  Both 0: the
 * layers are dealt evenly and every stage is counted at ceil(layers / pp).
 * A stage's layers are spread over its vp chunks, chunk sizes differing by
 * at most one.  specs/models.md 3.3.
 */
void train_stage_split(const struct arch *a, const struct train_config *c,
		       struct train_stages *s);

/* Transformer layers on the most loaded pipeline stage (the largest of
   train_stage_split). */
int train_stage_layers(const struct arch *a, const struct train_config *c);

/*
 * Fewest layers the first or the last stage may hold with 'vp' chunks
 * per stage: every chunk holds a layer, except that the first chunk of
 * the first stage may hold only the embedding and the last chunk of the
 * last stage only the output layer (Llama 3 405B; Megatron-Core's
 * account_for_embedding/loss_in_pipeline_split), and a stage holds at
 * least one layer: max(1, vp - 1).
 */
int train_stage_min_layers(int vp);

/*
 * Set the first and last stage layers of 'c' for a legality check before
 * their costs are known: 'first' and 'last' where given (> 0), the open
 * ones (0) at train_stage_min_layers, or on two stages what the other
 * leaves (half each when both are open).  When some split is legal, this
 * one is.  With pp 1 the given values are kept and the open ones are 0.
 */
void train_stage_fill(const struct arch *a, struct train_config *c,
		      int first, int last);

/*
 * Like train_config_valid, but writes why not into 'why' (size 'n'), for
 * configurations a user gave explicitly.
 */
bool train_config_explain(const struct arch *a, const struct train_config *c,
			  int gpus_per_node, char *why, unsigned n);

#endif
