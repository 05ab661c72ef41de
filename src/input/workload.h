/*
 * workload.h - the workload description: what model, how it is trained or
 * served, on what cluster.
 *
 * Read from an INI file (specs/workload.md) and overridden with
 * "section.key=value" expressions (--set).  Values are SI.  Keys left out
 * keep the "auto" sentinel documented per field: the planner chooses them
 * and says so.
 */
#ifndef CAPPLAN_WORKLOAD_H
#define CAPPLAN_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"
#include "graph.h"
#include "precision.h"

#define WL_NAME_MAX 64
/* a software stack's name and version (stack.h) */
#define WL_STACK_NAME_MAX 32
#define WL_STACK_VERSION_MAX 16

/*
 * Upper bounds of the integer keys (specs/workload.md, "Bounds"): far
 * beyond any published model, cluster or serving engine, and small enough
 * that every product of counts the planner forms fits in 64 bits (and
 * each count in an int).  A value outside is rejected where it is read.
 */
#define WL_LAYERS_MAX 100000          /* layers, dense_layers, pp, vp,
					 first/last_stage_layers */
#define WL_WIDTH_MAX (1 << 20)        /* hidden, kv_lora_rank, q_lora_rank */
#define WL_HEADS_MAX (1 << 16)        /* heads, kv_heads, training.tp,
					 inference.tp */
#define WL_HEAD_DIM_MAX (1 << 14)     /* head_dim, rope_head_dim,
					 v_head_dim */
#define WL_FFN_MAX (1 << 24)          /* ffn_hidden, expert_ffn_hidden */
#define WL_VOCAB_MAX (1 << 24)        /* vocab */
#define WL_TOKENS_MAX (1 << 24)       /* seq_len, prompt_tokens */
#define WL_OUTPUT_TOKENS_MAX (1 << 20) /* output_tokens: a simulated load
					  steps through every token */
#define WL_EXPERTS_MAX (1 << 20)      /* experts, experts_per_token,
					 shared_experts, training.ep,
					 inference.ep */
#define WL_BATCH_MAX (1 << 30)        /* global_batch, micro_batch */
#define WL_GPUS_MAX (1 << 24)         /* gpus, cp; GPUs of a plan */
#define WL_GPUS_PER_NODE_MAX (1 << 16) /* cluster.gpus_per_node */
#define WL_INFER_BATCH_MAX (1 << 20)  /* inference.batch */
#define WL_MLP_LAYERS_MAX 16          /* layers of model.bottom_mlp and
					 top_mlp */
#define WL_MLP_WIDTH_MAX (1 << 20)    /* one layer's width, dense_features,
					 cross_rank */
#define WL_TABLES_MAX 256             /* tables model.embedding_rows may
					 list one by one */
#define WL_AUTO 0        /* integer key left to capplan */
#define WL_AUTO_NEG (-1) /* for keys where 0 is a valid value (zero, sp) */
/* training.zero_shard: the ranks a copy of the sharded states spans */
#define WL_ZERO_SHARD_ALL 0  /* every data-parallel rank */
#define WL_ZERO_SHARD_NODE 1 /* the ranks within a node (hybrid) */
#define WL_OFFLOAD_AUTO (-1.0) /* training.offload_optimizer left open */

enum recompute {
	RECOMPUTE_AUTO = -1,
	RECOMPUTE_NONE = 0,
	RECOMPUTE_SELECTIVE,
	RECOMPUTE_FULL,
};

/*
 * What selective recomputation repeats in the backward pass, as
 * Megatron-Core's --recompute-modules names them: a bit set; 0 means the
 * default, the core attention alone.
 */
enum recompute_module {
	RECOMPUTE_MOD_CORE_ATTN = 1 << 0,   /* scores, softmax, weighted sum */
	RECOMPUTE_MOD_LAYERNORM = 1 << 1,   /* the two norms of a layer */
	RECOMPUTE_MOD_MLA_UP_PROJ = 1 << 2, /* MLA's up-projections */
	RECOMPUTE_MOD_MOE_ACT = 1 << 3,     /* the experts' activation */
};

/*
 * The element-wise operations of a transformer layer that a framework
 * runs as eager PyTorch kernels, one kernel per operation, each reading
 * its inputs from and writing its output to memory (training.eager_ops;
 * specs/models.md 6.3): a bit set; 0, every one fused as Megatron-Core
 * with Transformer Engine (or torch.compile) runs them.
 */
enum eager_op {
	EAGER_OP_NORM = 1 << 0,      /* RMSNorm in fp32 math, op by op */
	EAGER_OP_ROPE = 1 << 1,      /* rotary embedding of queries, keys */
	EAGER_OP_ACT = 1 << 2,       /* the gated FFN's SiLU, then the product */
	EAGER_OP_KV_EXPAND = 1 << 3, /* GQA keys and values copied out to
					every query head before attention */
};

enum optimizer {
	OPTIMIZER_ADAM = 0, /* mixed-precision Adam(W): fp32 master, m, v */
	OPTIMIZER_SGD,      /* fp32 master weights and momentum */
};

enum attention_impl {
	ATTN_FLASH = 0, /* fused, IO-aware (FlashAttention): no s^2 tensors */
	ATTN_UNFUSED,   /* materialized scores, softmax and dropout (Megatron
			   before FlashAttention) */
	ATTN_FLASH2,    /* FlashAttention-2 on every device: fused like
			   ATTN_FLASH, at most its H100 rate per SM */
};

/* The widths of a stack of fully connected layers (model.bottom_mlp,
   top_mlp): 'n' layers, each 'width[i]' outputs; n = 0: not given. */
struct wl_widths {
	int n;
	int width[WL_MLP_LAYERS_MAX];
};

/* The rows of each embedding table (model.embedding_rows given as a
   list): 'n' tables, n = 0: every table has model.embedding_rows. */
struct wl_rows {
	int n;
	double rows[WL_TABLES_MAX];
};

/* How a recommender's features meet (model.interaction). */
enum recsys_interaction {
	RECSYS_DOT = 0, /* DLRM: dot products of every pair of feature
			   vectors, concatenated with the bottom MLP's output
			   (Naumov et al. 2019) */
	RECSYS_CAT,     /* concatenation (Wide & Deep's deep part) */
	RECSYS_CROSS,   /* DCNv2 cross network on the concatenation, the top
			   MLP stacked on it (Wang et al. 2021) */
};

/* How a recommender's tables are split over the GPUs
   (training.embedding_sharding; TorchRec's sharding types). */
enum emb_sharding {
	EMB_AUTO = 0,      /* the fastest that fits (specs/models.md 14.3) */
	EMB_DATA_PARALLEL, /* every GPU holds every table */
	EMB_TABLE_WISE,    /* whole tables dealt to GPUs */
	EMB_ROW_WISE,      /* every table split by rows over all GPUs */
	EMB_COLUMN_WISE,   /* tables split by columns, the shards dealt */
};

/* How a recommender's tables are updated (training.embedding_update). */
enum emb_update {
	EMB_UPDATE_SPARSE = 0, /* framework sparse gradients (PyTorch's
				  sparse embeddings with torch.optim,
				  TensorFlow's IndexedSlices), then the
				  optimizer */
	EMB_UPDATE_FUSED,      /* the backward fused with the optimizer
				  (FBGEMM table-batched embeddings,
				  TorchRec, HugeCTR) */
};

/* How a recommender's wide part is trained (model.wide_optimizer; Cheng
   et al. 2016 train it with FTRL). */
enum wide_optimizer {
	WIDE_FTRL = 0,  /* FTRL-Proximal: two fp32 accumulators a weight
			   (McMahan et al. 2013) */
	WIDE_ADAGRAD,   /* one fp32 accumulator a weight */
	WIDE_SGD,       /* no state */
};

/* Where a recommender's bottom MLP runs (training.bottom_mlp_placement). */
enum bottom_placement {
	BOTTOM_DATA_PARALLEL = 0, /* replicated, on each GPU's samples
				     (TorchRec, HugeCTR, DeepLearningExamples
				     TensorFlow 2) */
	BOTTOM_ONE_GPU,           /* on one GPU without tables, for the
				     global batch (DeepLearningExamples
				     PyTorch DLRM) */
};

/* What serves the requests of a per-sample model (inference.server). */
enum serve_server {
	SERVER_NONE = 0,   /* the framework in-process (a benchmark loop) */
	SERVER_TRITON,     /* NVIDIA Triton Inference Server */
};

/* What kind of model: a decoder-only transformer (the default), a generic
   network costed per sample (CNNs, vision transformers), or a
   recommender with embedding tables (DLRM-style). */
enum model_kind {
	MODEL_TRANSFORMER = 0,
	MODEL_GENERIC,
	MODEL_RECSYS,
};

struct model_spec {
	char name[WL_NAME_MAX];
	enum model_kind kind;
	int layers;          /* 0 when only 'params' is given */
	int hidden;
	int heads;
	int kv_heads;        /* default heads */
	int ffn_hidden;      /* default 4 * hidden */
	bool gated_ffn;      /* SwiGLU-style: three FFN matrices */
	int vocab;
	int seq_len;
	bool tied_embeddings;
	double params;       /* 0 unless given; count */
	int head_dim;        /* default hidden / heads (Gemma differs); with
				MLA the non-rotary query/key head width */
	/* multi-head latent attention (DeepSeek-V2/V3) when kv_lora_rank > 0 */
	int kv_lora_rank;      /* compressed KV width (the KV cache) */
	int q_lora_rank;       /* compressed query width; 0: direct */
	int rope_head_dim;     /* rotary part of query/key heads */
	int v_head_dim;        /* value head width; default head_dim */
	/* mixture of experts (experts = 0: a dense model) */
	int experts;           /* routed experts per MoE layer */
	int experts_per_token; /* top-k routing */
	int shared_experts;    /* always-active experts per MoE layer */
	int mtp_layers;        /* multi-token prediction modules
				  (DeepSeek-V3: 1); 0: none */
	int expert_ffn_hidden; /* FFN width of one expert; default ffn_hidden */
	int dense_layers;      /* leading layers with a dense FFN
				  (DeepSeek's first_k_dense_replace) */
	char hf_config[256];   /* Hugging Face config.json it came from */
	/* kind = generic: 'params' and these, per sample */
	double flops_per_sample;            /* forward FLOPs */
	double activation_bytes_per_sample; /* kept for the backward pass */
	char onnx[256];      /* ONNX model it came from ("" if none) */
	struct graph_summary graph; /* its operators (n_ops 0: none) */
	double kernel_efficiency;  /* fraction of the device's GEMM
				      efficiency its kernels reach; 0: the
				      default for the kind */
	/* kind = recsys: embedding tables and a dense network */
	int embedding_tables;
	double embedding_rows;       /* rows per table (the mean of
					table_rows when it is given) */
	struct wl_rows table_rows;   /* rows of each table, in order; n = 0:
					all embedding_rows */
	int embedding_dim;
	enum precision embedding_precision;
	double lookups_per_sample;   /* rows gathered per sample, all tables */
	double dense_params;
	double dense_flops_per_sample; /* forward FLOPs of the dense part */
	/* the dense network layer by layer (instead of dense_params and
	   dense_flops_per_sample) */
	int dense_features;          /* numerical inputs of the bottom MLP */
	struct wl_widths bottom_mlp;
	struct wl_widths top_mlp;
	int interaction;             /* enum recsys_interaction */
	int cross_layers;            /* DCN cross layers (interaction cross) */
	int cross_rank;              /* 0: full-rank cross weights */
	double pooling_factor;       /* rows pooled per table per sample;
					0: lookups_per_sample / tables */
	double cache_hit_rate;       /* lookups served by the HBM cache of
					tables that live in host memory or
					on SSD; -1: not given */
	bool wide;                   /* a wide part: one weight per row of
					every table, summed into the logit
					(Wide & Deep, Cheng et al. 2016) */
	int wide_optimizer;          /* enum wide_optimizer */
};

struct training_spec {
	/* the training framework, a row of the stack table (stack.h), as
	   inference.engine */
	char framework[WL_STACK_NAME_MAX];
	char framework_version[WL_STACK_VERSION_MAX];
	double tokens;        /* tokens to train on; 0 = not given */
	int global_batch;     /* sequences per iteration; WL_AUTO */
	int micro_batch;      /* sequences per micro-batch; WL_AUTO */
	int gpus;             /* WL_AUTO */
	int tp, pp, vp, cp;   /* WL_AUTO each */
	int first_stage_layers; /* transformer layers of the first and the */
	int last_stage_layers;  /* last pipeline stage; WL_AUTO each */
	int zero;             /* 0..3; WL_AUTO_NEG */
	int zero_shard;       /* WL_ZERO_SHARD_ALL, _NODE (hybrid) or the
				 data-parallel ranks of a shard (>= 2) */
	enum recompute recompute;
	int recompute_modules; /* enum recompute_module bits; 0: core_attn */
	int recompute_layers;  /* full recomputation of this many layers of
				  each pipeline chunk; WL_AUTO: every layer
				  when recompute is full, searched when it
				  is open too */
	int sequence_parallel; /* 0/1; WL_AUTO_NEG */
	enum precision precision;
	enum optimizer optimizer;
	enum attention_impl attention;
	int eager_ops;         /* enum eager_op bits; 0: all fused */
	int overlap_grad_reduce; /* 0/1: DP reduction overlaps backward; WL_AUTO_NEG */
	int overlap_param_gather; /* 0/1: ZeRO weight gather overlaps the
				     forward; WL_AUTO_NEG: off */
	int tp_comm_overlap;   /* 0/1: TP collectives overlap the GEMMs;
				  WL_AUTO_NEG: searched */
	int ep_comm_overlap;     /* 0/1: MoE all-to-alls overlap compute;
				    WL_AUTO_NEG: off */
	bool dropout;          /* dropout layers active (GPT-3/Megatron style) */
	int ep;                /* expert parallelism; WL_AUTO */
	double offload_optimizer; /* share of the optimizer states (fp32
				     master weights and moments) kept in
				     host memory and stepped by the CPU,
				     0 to 1 (Megatron-Core's
				     --optimizer-offload-fraction);
				     WL_OFFLOAD_AUTO: searched, 0 or 1 */
	double samples;        /* samples per epoch (generic, recsys) */
	double epochs;         /* default 1 */
	double batch_tokens;   /* tokens per global batch when global_batch
				  is not given; 0: WL_BATCH_TOKENS */
	bool async_checkpoint; /* the checkpoint write overlaps training */
	double production_efficiency; /* a production run's throughput over
					 the steady-state plan's, beyond
					 failures and checkpoints; default
					 WL_PRODUCTION_EFFICIENCY */
	int embedding_sharding; /* enum emb_sharding: recsys tables */
	int embedding_update;  /* enum emb_update */
	int bottom_mlp_placement; /* enum bottom_placement */
	int embedding_comm_overlap; /* 0/1: the embedding all-to-alls overlap
				       the dense network (TorchRec's
				       pipelined training); WL_AUTO_NEG:
				       off (blocking) */
	double input_bytes_per_sample; /* training data read per sample; 0:
					  from the model (recsys) */
	double collective_cycle_s; /* a coordinator's cycle the blocking
				      collectives wait for (Horovod); 0:
				      none (NCCL called directly) */
	double step_overhead_s;    /* per-sample kinds: host time per step
				      the GPUs wait for (the training
				      loop); default WL_STEP_OVERHEAD_S */
	double checkpoint_interval_s; /* work between checkpoints; 0: optimal */
};

struct sim_request; /* serve_sim.h */

/*
 * Exposed fixed time of each kernel of a serving engine's decode step
 * beyond the kernel gap of model_kernel.c: small-batch decode steps run
 * hundreds of kernels of a few microseconds each, whose launch, ramp-up,
 * tail and the host work between them the step cannot hide (a step with
 * prompt tokens pays none).  Calibrated on all 32 rows of
 * tests/validation/serving.csv (SGLang 0.3 and vLLM 0.6, A100 and H100,
 * 8B and 70B) by the least mean |error|; the same value for every
 * device and model.  Published launch costs under CUDA graphs are below
 * 1 us (specs/models.md 10.9.8), so this is an engine's cost, not the
 * driver's.
 *
 * WL_HOST_REQUEST_S: host time of each request in the server's front end
 * (HTTP, chat template, tokenization, detokenization, streaming), one
 * request at a time per replica.  No engine-independent figure is
 * published (vLLM's v0.6.0 blog gives shares only: API server 33%,
 * scheduling 29%, GPU 38% for Llama 3 8B on an H100 with vLLM 0.5.3);
 * calibrated on the same 32 rows by the least mean |error| (10 ms: 7.7%;
 * 0 ms: 9.8%).
 *
 * WL_HOST_STEP_S: host time per scheduling round the GPU waits for; 0,
 * an engine that overlaps its scheduler with the GPU (SGLang 0.4's
 * zero-overhead scheduler, vLLM's asynchronous output processing).
 * About 3.8 ms for vLLM 0.5.3 (29% of a 13 ms step, the blog above).
 */
#define WL_KERNEL_OVERHEAD_S 7e-6
#define WL_HOST_REQUEST_S 10e-3
#define WL_HOST_STEP_S 0.0

/*
 * The time of one draft-model step as a fraction of one target-model
 * step (Leviathan et al. 2023's c) when [inference] draft_cost_ratio is
 * not given.  A memory-bound decode step costs about its weights read
 * plus its kernels' fixed costs: a 1B draft for an 8B-70B target reads
 * 1/8 to 1/70 of the weights, over fewer layers.  0.05 is a middle
 * value, not a measurement: set the ratio of the two models' decode
 * steps when it is known.  specs/models.md 10.9.17.
 */
#define WL_DRAFT_COST_RATIO 0.05

/* How speculative decoding drafts (inference.speculative_method): a
   separate draft model, or the model's own multi-token prediction
   modules (model.mtp_layers), each draft token costing mtp_layers /
   layers of a step unless draft_cost_ratio is given. */
enum { WL_SPEC_DRAFT = 0, WL_SPEC_MTP = 1 };

/* The engine's rule for the defaults that depend on the device
   (inference.device_defaults; model/engine_limits.h, specs/stacks.md
   "Defaults by device"): none, vLLM V1's batch limits, SGLang 0.5's
   memory settings. */
enum { WL_DEVDEF_NONE = 0, WL_DEVDEF_VLLM_V1 = 1, WL_DEVDEF_SGLANG_05 = 2 };

/* What inference.memory_fraction is a share of: the device's memory
   (vLLM's gpu_memory_utilization, SGLang's mem_fraction_static) or the
   memory the weights, activations and context leave free (TensorRT-LLM's
   free_gpu_memory_fraction). */
enum { WL_MEMFRAC_DEVICE = 0, WL_MEMFRAC_FREE = 1 };

/* The share of each serving GPU the engine may fill when [inference]
   memory_fraction is not given (vLLM's gpu_memory_utilization default;
   model_memory.h infer_memory_reserve, specs/models.md 9.1). */
#define INFER_MEMORY_FRACTION 0.9

enum slo_percentile {
	SLO_P50 = 0,
	SLO_P90,
	SLO_P99,
};

/*
 * What a sizing learnt of a fleet too large to simulate whole (more than
 * SERVE_SIM_REPLICAS_MAX replicas, simulated as that many at their share
 * of the rate, serve_fleet.h): whether it meets the targets depends on
 * the request rate per replica alone, so a later sizing of the same
 * replica at another rate takes it (a chart's points, issue 43).  0
 * where not known.
 */
struct fleet_share {
	double pass_qps; /* met at this rate per replica */
	double fail_qps; /* missed at this rate per replica, or above */
};

struct inference_spec {
	/* the serving engine, a row of the stack table (stack.h): "NAME" or
	   "NAME@VERSION" as given ("" = generic); after stack_apply the
	   row's name and version */
	char engine[WL_STACK_NAME_MAX];
	char engine_version[WL_STACK_VERSION_MAX];
	enum precision weight_precision;
	enum precision kv_precision;
	int prompt_tokens;
	int output_tokens;
	int batch;            /* WL_AUTO */
	int tp;               /* WL_AUTO */
	double qps;           /* requests per second; 0 = not given */
	double ttft_slo_s;    /* 0 = none */
	double tpot_slo_s;    /* 0 = none */
	enum slo_percentile percentile;
	bool sparsity_2_4;
	double power_cap_w;   /* 0 = none */
	int ep;               /* expert parallelism; WL_AUTO: experts spread
				 over the replica's tp GPUs */
	/* serving under load (serve_sim.h, specs/workload.md) */
	int arrival;          /* enum sim_arrival; WL_AUTO_NEG: Poisson when
				 a qps is given, else none (unloaded) */
	int concurrency;      /* closed-loop clients; 0 = not given */
	int requests;         /* simulated requests; WL_AUTO */
	char trace[256];      /* arrival trace CSV; "" = none */
	int length_dist;      /* enum sim_length_dist */
	int seed;             /* of the random numbers */
	int replicas;         /* a fixed fleet; WL_AUTO: sized */
	int max_batch;        /* running sequences per replica; WL_AUTO */
	int max_batched_tokens; /* tokens per step; WL_AUTO */
	bool chunked_prefill;
	int kv_block_tokens;
	int scheduler_steps;  /* decode steps per scheduling round */
	double kernel_overhead_s; /* per kernel of an engine step */
	double host_request_s;    /* server front end, per request */
	double host_step_s;       /* host, per scheduling round */
	double memory_fraction;   /* of each GPU the engine fills; 0.9 */
	int memory_fraction_of;   /* WL_MEMFRAC_DEVICE or _FREE */
	int kv_cache_tokens;      /* tokens the engine's KV cache holds at
				     most, all sequences of a replica;
				     WL_AUTO: what memory leaves */
	int device_defaults;      /* WL_DEVDEF_*: the engine's defaults
				     by device, for max_batch,
				     max_batched_tokens and memory_fraction
				     when the workload leaves them */
	bool weight_only;         /* 8-bit weights, 16-bit math (W8A16) */
	int fp4_format;           /* fp4 weights' blocks: 0 NVFP4, 1 MXFP4
				     (model_infer.h mxfp4) */
	enum precision non_expert_precision; /* an MoE's weights outside
						the routed experts;
						PREC_COUNT: weight_precision */
	int decode_attention;     /* 0 grouped, 1 per_head (model_infer.h
				     decode_per_head) */
	/* speculative decoding (serve_sim.h): 0 draft tokens = off */
	int speculative_tokens;
	double acceptance_rate;   /* 0 = not given */
	double draft_cost_ratio;  /* a draft step / a target step */
	int speculative_method;   /* WL_SPEC_DRAFT or WL_SPEC_MTP */
	/* wide expert parallelism (specs/models.md 10.9.24) */
	double expert_imbalance;  /* busiest expert rank / mean; 0: auto */
	bool ep_comm_overlap;     /* two-batch overlap of the all-to-alls */
	int redundant_experts;    /* extra expert copies over the ranks */
	/* sessions and the prefix cache (serve_sim.h, specs/workload.md
	   "Sessions and prefix caching") */
	int turns;                /* requests per session; 1: none */
	double think_time_s;      /* mean pause from a reply to the next
				     turn */
	int turn_tokens;          /* new prompt tokens of each later turn;
				     WL_AUTO: prompt_tokens less the shared
				     prefix */
	int shared_prefix_tokens; /* leading prompt tokens every request
				     shares (system prompt, tools) */
	int prefix_groups;        /* distinct shared prefixes, a request's
				     (a session's) one of them; 1 */
	int prefix_caching;       /* 0/1; WL_AUTO_NEG: as the engine */
	double kv_offload_memory_bytes; /* host tier of the prefix cache, per
					   replica; 0: none */
	double kv_offload_storage_bytes; /* its storage tier, per replica;
					    0: none */
	double kv_storage_bw_bytes_per_s; /* that tier's read bandwidth per
					     replica; 0: the node's ssd_bw,
					     shared by its GPUs */
	int routing;              /* 0 least loaded, 1 a session's turns to
				     one replica; WL_AUTO_NEG: 1 with a
				     prefix cache, else 0 */
	/* prefill/decode disaggregation (serve_fleet.h) */
	bool disaggregated;
	int prefill_replicas;     /* WL_AUTO: sized */
	int decode_replicas;      /* WL_AUTO: sized */
	int prefill_tp;           /* WL_AUTO: the plan's tp */
	int decode_tp;            /* WL_AUTO: the plan's tp */
	double kv_transfer_bw_bytes_per_s; /* 0: the inter-node network */
	/* fixed costs of a per-sample model's served batch */
	int cuda_graphs; /* 0/1: the forward pass replays a CUDA graph;
			    WL_AUTO_NEG: a recommender does, a generic
			    network when fused (sample_serve_costs) */
	double framework_overhead_s; /* host time per batch outside the
					kernels */
	double launch_overhead_s;  /* host time to issue one kernel
				      without CUDA graphs */
	bool fusion;               /* TensorRT-style: bias and activation
				      fused into the GEMMs */
	int server;                /* enum serve_server */
	double request_overhead_s; /* per request; -1: the server's */
	/* not a key: a replica's capacity (requests/s) known from an
	   earlier plan of the same configuration, used instead of measuring
	   it again (calibrate, whose fits move only what the capacity does
	   not decide); 0: measure it */
	double capacity_hint_qps;
	/* not a key: a replica's capacity (requests/s) at tp = 2^i in
	   entry i, known from an earlier plan of the same workload at
	   another request rate (a chart's points: the capacity does not
	   depend on the rate), 0 where unknown; NULL: none (not owned) */
	const double *capacity_by_tp_qps;
	/* not a key: what sizings at other rates of the same workload
	   learnt of a large fleet of each tp = 2^i (entry i), as
	   capacity_by_tp_qps; NULL: nothing (not owned) */
	const struct fleet_share *share_by_tp;
	/* the requests of 'trace', loaded by the command line (not owned) */
	const struct sim_request *trace_requests;
	size_t trace_len;
};

/*
 * Fixed costs of a served batch of a per-sample model (specs/models.md
 * 14.7).
 *
 * WL_FRAMEWORK_OVERHEAD_S: host time per batch beyond its kernels in a
 * Python serving loop -- the inputs copied to the GPU and converted, the
 * graph (or first kernel) launched, the result synchronized: about six
 * framework calls of 10-15 us each (PyTorch's dispatcher alone costs
 * 4.5 us per operator on the host, Ansel 2023, "Micro-optimizations for
 * the most micro of benchmarks", dev-discuss.pytorch.org; a CUDA call
 * that waits for the GPU costs about 7 us beyond the kernel, Gray 2019,
 * "Getting Started with CUDA Graphs": 9.6 us per synchronized 2.9 us
 * kernel): 80 us.
 *
 * WL_LAUNCH_OVERHEAD_S: host time to issue one kernel from an eager
 * framework without CUDA graphs: 4.5 us of dispatcher (Ansel 2023) to
 * about 25 us per nn.Linear module call (dev-discuss.pytorch.org,
 * "Overhead in nn.Module causing massive slowdowns", 2021: 64 linear
 * layers in 1.7 ms); 15 us between them.
 *
 * WL_TRITON_REQUEST_S: Triton Inference Server's own time per request
 * at concurrency 1 -- 36 us of server overhead and 42 us in its queue in
 * the perf_analyzer example of Triton's documentation (docs/
 * perf_analyzer.md, inception_graphdef); the client's network stack is
 * not included.
 */
#define WL_FRAMEWORK_OVERHEAD_S 80e-6

/*
 * WL_STEP_OVERHEAD_S: host time per training step of a per-sample model
 * that no GPU work hides (specs/models.md 14.4).  The training loops of
 * DeepLearningExamples synchronize the device every step
 * (PyTorch/Recommendation/DLRM dlrm/scripts/main.py: torch.cuda.
 * synchronize() before each step, GradScaler's inf check read back
 * before the optimizer; PyTorch/Classification/ConvNets
 * image_classification/training.py: torch.cuda.synchronize() at the end
 * of train_step), so the host's work between a synchronization and the
 * next kernel it issues leaves the GPU idle: the loop's bookkeeping, the
 * learning-rate schedule, the data iterator handing over the next batch,
 * the eager optimizer calls after the read-back.  DLRM's loop makes about
 * twelve such framework calls a step (timer, next batch, synchronize,
 * schedule, zero_grad, the step, the stream wait, the scaler's step,
 * unscale, the tables' optimizer, the scaler's update, the loss
 * accumulation); at the host cost of a served batch's framework calls,
 * WL_FRAMEWORK_OVERHEAD_S / 6 = 13 us per call, with the several
 * operators each of them dispatches (about six: Ansel 2023's 4.5 us of
 * dispatcher per operator plus Python), that is 12 x 80 us = 0.96 ms.
 */
#define WL_STEP_OVERHEAD_S (12.0 * WL_FRAMEWORK_OVERHEAD_S)
#define WL_LAUNCH_OVERHEAD_S 15e-6
#define WL_TRITON_REQUEST_S 78e-6

/* How a GPU-hour is priced ([cluster] pricing; specs/workload.md). */
enum pricing_mode {
	PRICING_CLOUD = 0, /* the catalog's price per GPU-hour */
	PRICING_OWNED,     /* capex amortised, power and hosting */
};

/*
 * Defaults of the ownership keys.  amortization_years: the useful life
 * Amazon gives its servers and networking equipment from 2025 (10-K for
 * 2024: six years shortened to five for the pace of AI hardware).
 * hosting_per_kw_month: CBRE's average asking rate for a 250-500 kW
 * colocation requirement in primary North American markets, H2 2024
 * ($184.06 per kW per month, "North America Data Center Trends H2
 * 2024", February 2025).  specs/workload.md, specs/models.md.
 */
#define WL_AMORTIZATION_YEARS 5.0
#define WL_HOSTING_USD_PER_KW_MONTH 184.06

struct cluster_spec {
	int gpus_per_node;             /* WL_AUTO: from the catalog row */
	double intra_bw_bytes_per_s;   /* 0: from the catalog row */
	int nvlink_sharp;              /* 0/1; WL_AUTO_NEG: from the row */
	int intra_mesh;                /* 0/1; WL_AUTO_NEG: from the row */
	double inter_bw_bytes_per_s;   /* 0: from the catalog row */
	double pue;                    /* facility power / IT power */
	double price_usd_per_gpu_hour; /* 0: from the catalog row (cloud) or
					  the ownership keys (owned) */
	double price_usd_per_kwh;
	double host_overhead;          /* host power as a fraction of GPU power */
	double failures_per_gpu_hour;  /* job-interrupting failures */
	double restart_s;              /* from a failure to training again */
	double storage_bw_bytes_per_s; /* checkpoint writes, per node */
	double host_memory_bytes;      /* host memory per node; 0: from the
					  catalog row */
	double host_link_bw_bytes_per_s; /* GPU <-> host, per GPU per
					    direction; 0: from the row */
	double cpu_adam_params_per_s;  /* parameters one node's CPUs step
					  with Adam per second */
	double maintenance;            /* planned down time, fraction */
	int pricing;                   /* enum pricing_mode */
	double capex_usd_per_gpu;      /* owned: purchase price of one GPU
					  with its share of server, network
					  and install; 0: from the catalog */
	double amortization_years;     /* owned: years the capex is spread
					  over */
	double hosting_usd_per_kw_month; /* owned: colocation per kW of IT
					    power per month */
	double ssd_bw_bytes_per_s;     /* local NVMe read, per node */
	int nvlink_peers;              /* GPUs of the node one GPU reaches
					  over links of its own; WL_AUTO:
					  all (a switch) */
};

/*
 * A production run's average throughput over a tuned steady-state plan
 * of the same layout, beyond the failures, checkpoints and restarts of
 * the goodput model: job start, evaluation and checkpoint loads,
 * data-loader and straggler losses, warm-up, and the gap between a
 * production stack's sustained rate and a benchmark's.  0.81: the
 * geometric mean over the published production runs of
 * tests/validation/production.csv that report whole-run GPU-hours
 * (Llama 2 7B, 184,320 A100 hours: 0.80 of capplan's plan with
 * failures; BLOOM 176B, 1,082,990 A100 hours: 0.81), in line with
 * Meta's effective training time of about 90% at best (Llama 3,
 * Dubey et al. 2024, section 3.3.4; PyTorch blog 2026, "from below 90%
 * to over 90%") times a production stack's 10-20% below a benchmark's
 * sustained rate (BLOOM's 150-156 TFLOP/s per GPU against 177 planned).
 * specs/models.md 8.1.1.
 */
#define WL_PRODUCTION_EFFICIENCY 0.81

/*
 * Tokens per global batch when [training] global_batch and batch_tokens
 * are not given: 4M, as Llama 2 trained (Touvron et al. 2023, table 1).
 * Held fixed across GPU counts (specs/models.md 7.1).
 */
#define WL_BATCH_TOKENS 4194304.0

/*
 * Job-interrupting failures per GPU-hour when [cluster]
 * failures_per_gpu_hour is not given: Llama 3 405B saw 419 unexpected
 * interruptions in 54 days on 16,384 H100 GPUs (Grattafiori et al. 2024,
 * section 3.3.4): 419 / (54 x 24 x 16384) = 1.97e-5, a job MTBF of 3.1
 * hours at that size.
 */
#define WL_FAILURES_PER_GPU_HOUR (419.0 / (54.0 * 24.0 * 16384.0))

/*
 * Seconds from a failure to training again (detection, rescheduling,
 * process and communicator start-up, checkpoint load) when [cluster]
 * restart_time is not given: MegaScale (Jiang et al. 2024) reports
 * recoveries of tens of minutes before its fast-restart work and under
 * 15 minutes after it; 10 minutes is the middle of that range.
 */
#define WL_RESTART_S 600.0

/*
 * Checkpoint write bandwidth per node when [cluster] storage_bw is not
 * given: Llama 3's Tectonic store sustained 2 TB/s for 16,384 GPUs
 * (2,048 nodes of 8), about 1 GB/s per node.
 */
#define WL_STORAGE_BW_BYTES_PER_S 1e9

/*
 * Parameters per second that one node's CPUs step with Adam when
 * [cluster] cpu_adam_rate is not given: DeepSpeed's CPU-Adam stepped 10
 * billion parameters in 2.57 s on a DGX-2's two 24-core Xeon Platinum
 * 8168 (Ren et al. 2021, "ZeRO-Offload", table 3).  specs/models.md
 * 6.16.
 */
#define WL_CPU_ADAM_PARAMS_PER_S (10e9 / 2.57)

/*
 * Planned down time as a fraction of the wall-clock time when [cluster]
 * maintenance is not given: Llama 3 had 47 planned interruptions (firmware
 * upgrades, configuration and dataset updates) in 54 days; at the default
 * 10-minute restart each, 47 x 600 s / 54 d = 0.6%.
 */
#define WL_MAINTENANCE 0.006

/*
 * The host link of one GPU when neither [cluster] host_link_bw nor the
 * catalog row gives it, for the recommender's host tables, inputs and
 * PCIe peers (optimizer offload needs a known link): PCIe 4.0 x16, 32 GB/s
 * per direction (PCI-SIG, PCIe 4.0 base specification: 16 GT/s per lane),
 * at the achievable share of intra-node links (model_comm.c), 25 GB/s
 * (NVIDIA CUDA samples' bandwidthTest on A100 systems: 25-26 GB/s).
 */
#define WL_HOST_LINK_BW_BYTES_PER_S 32e9

/* Host memory per node for the recommender's host tables when neither
   [cluster] host_memory nor the catalog row gives it: 2 TB, as DGX A100
   (640 GB) and DGX H100 (NVIDIA datasheets); optimizer offload needs a
   known one. */
#define WL_HOST_MEMORY_BYTES 2e12

/*
 * Local NVMe read bandwidth per node when [cluster] ssd_bw is not given:
 * DGX A100 holds four 3.84 TB U.2 NVMe drives for its data cache (DGX
 * A100 datasheet); PCIe 4.0 x4 drives read about 6 GB/s sequentially.
 */
#define WL_SSD_BW_BYTES_PER_S 24e9

#define WL_GIVEN_MAX 224

struct workload {
	char file[256];  /* where it came from, for messages; "" if none */
	/* which keys the file or --set gave, by position in the key table
	   (private to the workload reader: a config.json fills only the others) */
	unsigned char given[WL_GIVEN_MAX];
	/* where the file gave each key: the line and the column of its
	   value, 0 when the file did not give it or --set gave it since
	   (private to the workload reader, for workload_validate's
	   messages) */
	int given_line[WL_GIVEN_MAX];
	int given_col[WL_GIVEN_MAX];
	/* which keys a stack row set (stack_apply): the engine's values,
	   which its device rule leaves alone (engine_limits.h) */
	unsigned char stacked[WL_GIVEN_MAX];
	struct model_spec model;
	struct training_spec training;
	struct inference_spec inference;
	struct cluster_spec cluster;
};

/* Fill with defaults and auto sentinels (no model). */
void workload_init(struct workload *wl);

/*
 * Parse INI text into 'wl' (which workload_init prepared).  'name' is used
 * in messages.  Unknown sections and keys, malformed values and duplicate
 * keys are errors with file, line and column.  Does not run
 * workload_validate.  Returns 0 or -1.
 */
int workload_parse(const char *buf, size_t len, const char *name,
		   struct workload *wl, struct diag *err);

/* Read a file and workload_parse it. */
int workload_load_file(const char *path, struct workload *wl,
		       struct diag *err);

/*
 * The keys a workload may give ('capplan help keys'): how many there are,
 * and key 'i' (below workload_key_count()): its section, its name, and in
 * 'accepts' what its value may be, worded as its errors word it ("an
 * integer from 1 to 100000 or 'auto'", "one of bf16, fp16, ...").
 */
size_t workload_key_count(void);

/* The index of key SECTION.KEY among them, or -1; its section and name. */
int workload_key_find(const char *section, const char *key);
const char *workload_key_section(size_t i);
const char *workload_key_name(size_t i);

/*
 * What key 'i' means, one line of at most 60 characters with its unit
 * where it has one ("power limit of each device"), from the key table;
 * NULL when 'i' is not below workload_key_count().
 */
const char *workload_key_meaning(size_t i);

/* Whether a stack row set key 'i' (and the workload did not give it). */
bool workload_key_stacked(const struct workload *wl, size_t i);

/*
 * Undo a stack row's value of key 'i': its value becomes the one 'init'
 * (a workload_init'ed workload) holds, unless the workload gave it, and
 * the key is no longer the row's.  A row applied over another's
 * (inference.engine varied by sweep) starts from the defaults.
 */
void workload_key_unstack(struct workload *wl, const struct workload *init,
			  size_t i);

/* Whether the workload file or --set gave key 'i'. */
bool workload_key_given(const struct workload *wl, size_t i);

/*
 * Give key 'i' the value 'text' as a default of a stack or a profile
 * gives it: checked as a file's value is, with 'file', 'line' and 'col'
 * in the message, and not marked as given.  0, or -1 with the error.
 */
int workload_key_apply(struct workload *wl, size_t i, const char *text,
		       const char *file, int line, int col, struct diag *err);
void workload_key_info(size_t i, const char **section, const char **key,
		       char *accepts, size_t size);

/*
 * The default of key 'i' (what workload_init leaves in it), written as a
 * file would give it ("auto": left to capplan's search or a rule of
 * specs/workload.md; "unset": capplan derives it or does without; "7us",
 * "bf16", "1.2").
 */
void workload_key_default(size_t i, char *buf, size_t size);

/*
 * Apply one "section.key=value" override (the --set option); the same keys
 * and value syntax as the file.  Messages name "--set".  Returns 0 or -1.
 */
int workload_set(struct workload *wl, const char *expr, struct diag *err);

/*
 * Fill the architecture keys of [model] that the workload did not give
 * from a Hugging Face config.json at 'path' (hf_config.h): keys given in
 * the file or by --set win.  Returns 0 or -1.
 */
int workload_apply_hf_config(struct workload *wl, const char *path,
			     struct diag *err);

/*
 * Read the ONNX model at 'path' (onnx_read.h) into [model]: kind generic,
 * its operator classes, and params, flops_per_sample and
 * activation_bytes_per_sample from them.  Returns 0 or -1.
 */
int workload_apply_onnx(struct workload *wl, const char *path,
			struct diag *err);

/*
 * Check the whole workload for consistency: positive finite values, heads
 * divide hidden, kv_heads divide heads, tp divides heads (when given), gpus
 * a multiple of tp*pp*cp (when all given), global batch divisible into
 * micro-batches, and so on.  Messages name the file and key.  Returns 0 or
 * -1.
 */
int workload_validate(const struct workload *wl, struct diag *err);

/* True when the architecture (layers, hidden, heads, vocab, seq_len) is known. */
bool model_has_arch(const struct model_spec *m);

const char *recompute_name(enum recompute r);

/* 'modules' (enum recompute_module bits) as a comma-separated list of
   their names, in 'buf' of 'size' bytes; returns 'buf'. */
char *recompute_modules_text(int modules, char *buf, size_t size);
const char *optimizer_name(enum optimizer o);
const char *attention_name(enum attention_impl a);
const char *slo_percentile_name(enum slo_percentile p);
const char *model_kind_name(enum model_kind k);
const char *pricing_mode_name(enum pricing_mode m);

#endif
