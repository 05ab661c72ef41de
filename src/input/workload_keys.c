/*
 * workload_keys.c - the workload keys: the table of every key (section, name,
 * value type, the field it fills and its range), the names of enumerated
 * values, the defaults of a workload and key lookup; see workload.h and
 * workload_keys.h.
 */
#include "workload_keys.h"
#include "request.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "text.h"

static const char *const wl_sections[] = {
	"model", "training", "inference", "cluster",
};

static const struct wl_name train_precision_names[] = {
	{ "fp32", PREC_FP32 }, { "tf32", PREC_TF32 }, { "bf16", PREC_BF16 },
	{ "fp16", PREC_FP16 }, { "fp8", PREC_FP8 },   { NULL, 0 },
};

static const struct wl_name infer_precision_names[] = {
	{ "fp32", PREC_FP32 }, { "bf16", PREC_BF16 }, { "fp16", PREC_FP16 },
	{ "fp8", PREC_FP8 }, { "int8", PREC_INT8 }, { "int4", PREC_INT4 },
	{ NULL, 0 },
};

/* Served weights may also be fp32 run on TF32 tensor cores (PyTorch's
   allow_tf32, TensorRT's default for fp32 engines on Ampere and later). */
static const struct wl_name infer_weight_precision_names[] = {
	{ "fp32", PREC_FP32 }, { "tf32", PREC_TF32 }, { "bf16", PREC_BF16 },
	{ "fp16", PREC_FP16 }, { "fp8", PREC_FP8 },   { "int8", PREC_INT8 },
	{ "int4", PREC_INT4 }, { "fp4", PREC_FP4 }, { NULL, 0 },
};

/* The weights outside an MoE's routed experts: a weight format, or "same"
   (PREC_COUNT), the routed experts' weight_precision. */
static const struct wl_name non_expert_precision_names[] = {
	{ "same", PREC_COUNT }, { "fp32", PREC_FP32 }, { "tf32", PREC_TF32 },
	{ "bf16", PREC_BF16 },	{ "fp16", PREC_FP16 }, { "fp8", PREC_FP8 },
	{ "int8", PREC_INT8 },	{ "int4", PREC_INT4 }, { "fp4", PREC_FP4 },
	{ NULL, 0 },
};

/* The KV cache format that follows a weight format: TF32 weights are
   stored in fp32, and so is their cache; fp4 (NVFP4) checkpoints keep an
   fp8 cache (NVIDIA TensorRT Model Optimizer's NVFP4 recipe quantizes
   the KV cache to FP8, "kv_cache_quant_algo": "FP8"). */
enum precision wl_kv_following(enum precision weight)
{
	if (weight == PREC_FP4)
		return PREC_FP8;
	if (weight == PREC_INT4)
		/* W4A16 (AWQ, GPTQ, TinyChat): the cache in the math's fp16 */
		return PREC_FP16;
	return weight == PREC_TF32 ? PREC_FP32 : weight;
}

static const struct wl_name recompute_names[] = {
	{ "none", RECOMPUTE_NONE }, { "selective", RECOMPUTE_SELECTIVE },
	{ "full", RECOMPUTE_FULL }, { "auto", RECOMPUTE_AUTO }, { NULL, 0 },
};

static const struct wl_name recompute_module_names[] = {
	{ "core_attn", RECOMPUTE_MOD_CORE_ATTN },
	{ "layernorm", RECOMPUTE_MOD_LAYERNORM },
	{ "mla_up_proj", RECOMPUTE_MOD_MLA_UP_PROJ },
	{ "moe_act", RECOMPUTE_MOD_MOE_ACT },
	{ NULL, 0 },
};

/* "none" (0) alone: every element-wise operation fused */
static const struct wl_name eager_op_names[] = {
	{ "none", 0 },
	{ "norm", EAGER_OP_NORM },
	{ "rope", EAGER_OP_ROPE },
	{ "act", EAGER_OP_ACT },
	{ "kv_expand", EAGER_OP_KV_EXPAND },
	{ NULL, 0 },
};

/* The first name of a value is its canonical name; later ones are aliases. */
static const struct wl_name optimizer_names[] = {
	{ "adam", OPTIMIZER_ADAM }, { "adamw", OPTIMIZER_ADAM },
	{ "sgd", OPTIMIZER_SGD }, { NULL, 0 },
};

static const struct wl_name attention_names[] = {
	{ "flash", ATTN_FLASH }, { "unfused", ATTN_UNFUSED },
	{ "flash2", ATTN_FLASH2 }, { NULL, 0 },
};

static const struct wl_name kind_names[] = {
	{ "transformer", MODEL_TRANSFORMER }, { "generic", MODEL_GENERIC },
	{ "recsys", MODEL_RECSYS }, { NULL, 0 },
};

static const struct wl_name percentile_names[] = {
	{ "p50", SLO_P50 }, { "p90", SLO_P90 }, { "p99", SLO_P99 },
	{ NULL, 0 },
};

static const struct wl_name sparsity_names[] = {
	{ "none", 0 }, { "2:4", 1 }, { NULL, 0 },
};

/* values of enum sim_arrival and enum sim_length_dist (serve_sim.h) */
static const struct wl_name arrival_names[] = {
	{ "poisson", 0 }, { "closed", 1 }, { "burst", 2 }, { "trace", 3 },
	{ "auto", WL_AUTO_NEG }, { NULL, 0 },
};

static const struct wl_name length_dist_names[] = {
	{ "fixed", 0 }, { "exponential", 1 }, { "sharegpt", 2 }, { NULL, 0 },
};

/* how a fleet routes requests to its replicas (serve_sim.h) */
static const struct wl_name routing_names[] = {
	{ "least_loaded", 0 }, { "session", 1 }, { "auto", WL_AUTO_NEG },
	{ NULL, 0 },
};

/* the decode attention kernel (model_infer.h, decode_per_head) */
static const struct wl_name decode_attention_names[] = {
	{ "grouped", 0 }, { "per_head", 1 }, { NULL, 0 },
};

static const struct wl_name memory_fraction_of_names[] = {
	{ "device", WL_MEMFRAC_DEVICE }, { "free", WL_MEMFRAC_FREE },
	{ NULL, 0 },
};

static const struct wl_name device_defaults_names[] = {
	{ "none", WL_DEVDEF_NONE }, { "vllm-v1", WL_DEVDEF_VLLM_V1 },
	{ "sglang-0.5", WL_DEVDEF_SGLANG_05 }, { NULL, 0 },
};

static const struct wl_name speculative_method_names[] = {
	{ "draft", WL_SPEC_DRAFT }, { "mtp", WL_SPEC_MTP }, { NULL, 0 },
};

static const struct wl_name zero_shard_names[] = {
	{ "all", WL_ZERO_SHARD_ALL }, { "node", WL_ZERO_SHARD_NODE },
	{ NULL, 0 },
};

static const struct wl_name fp4_format_names[] = {
	{ "nvfp4", 0 }, { "mxfp4", 1 }, { NULL, 0 },
};

static const struct wl_name pricing_names[] = {
	{ "cloud", PRICING_CLOUD }, { "owned", PRICING_OWNED }, { NULL, 0 },
};

static const struct wl_name bool_names[] = {
	{ "true", 1 }, { "false", 0 }, { "yes", 1 }, { "no", 0 },
	{ "on", 1 }, { "off", 0 }, { "1", 1 }, { "0", 0 }, { NULL, 0 },
};

/* Each row ends with the key's meaning, 'm' ('capplan help keys'). */
#define KEY_STR(s, k, f, m) \
	{ s, k, WLT_STRING, WL_OFF(f), 0, 0, 0, UNIT_COUNT, NULL, m }
#define KEY_INT(s, k, f, fl, lo, hi, m) \
	{ s, k, WLT_INT, WL_OFF(f), fl, lo, hi, UNIT_COUNT, NULL, m }
#define KEY_BOOL(s, k, f, m) \
	{ s, k, WLT_BOOL, WL_OFF(f), 0, 0, 1, UNIT_COUNT, bool_names, m }
#define KEY_TRI(s, k, f, m) \
	{ s, k, WLT_TRISTATE, WL_OFF(f), WLK_AUTO_NEG, 0, 1, UNIT_COUNT, \
	  bool_names, m }
#define KEY_NUM(s, k, f, fl, lo, hi, m) \
	{ s, k, WLT_NUMBER, WL_OFF(f), fl, lo, hi, UNIT_COUNT, NULL, m }
/* a quantity with a lower bound below which no plan is meaningful */
#define KEY_QTYL(s, k, f, fl, unit, lo, m) \
	{ s, k, WLT_QUANTITY, WL_OFF(f), fl, lo, HUGE_VAL, unit, NULL, m }
/* a quantity with an upper bound beyond which no plan is meaningful */
#define KEY_QTYM(s, k, f, fl, unit, hi, m) \
	{ s, k, WLT_QUANTITY, WL_OFF(f), fl, 0, hi, unit, NULL, m }
#define KEY_ENUM(s, k, f, type, names, m) \
	{ s, k, type, WL_OFF(f), 0, 0, 0, UNIT_COUNT, names, m }
/* a keyword of 'names' or an integer from lo to hi */
#define KEY_ENUM_INT(s, k, f, names, lo, hi, m) \
	{ s, k, WLT_INTENUM, WL_OFF(f), 0, lo, hi, UNIT_COUNT, names, m }
#define KEY_FRACTION(s, k, f, m) \
	{ s, k, WLT_FRACTION, WL_OFF(f), 0, 0, 1, UNIT_COUNT, bool_names, m }
#define KEY_FLAGS(s, k, f, names, m) \
	{ s, k, WLT_FLAGS, WL_OFF(f), 0, 0, 0, UNIT_COUNT, names, m }

#define POS (WLK_UNSET0)          /* positive int, 0 = not given */
#define POS_AUTO (WLK_AUTO)        /* positive int or auto (0) */
#define QTY_POS (WLK_GT | WLK_UNSET0) /* > 0 when given, 0 = not given */

/* The public interface of workload files: keep names stable. */
const struct wl_key wl_keys[] = {
	KEY_STR("model", "name", model.name,
		"label in the output; else named by hf_config/onnx"),
	KEY_ENUM("model", "kind", model.kind, WLT_KIND, kind_names,
		 "decoder transformer, per-sample network or recommender"),
	KEY_INT("model", "layers", model.layers, POS, 1, WL_LAYERS_MAX,
		"transformer blocks"),
	KEY_INT("model", "hidden", model.hidden, POS, 1, WL_WIDTH_MAX,
		"model (embedding) width"),
	KEY_INT("model", "heads", model.heads, POS, 1, WL_HEADS_MAX,
		"attention (query) heads"),
	KEY_INT("model", "kv_heads", model.kv_heads, POS, 1, WL_HEADS_MAX,
		"key/value heads (grouped-query attention; 1: multi-query)"),
	KEY_INT("model", "ffn_hidden", model.ffn_hidden, POS, 1, WL_FFN_MAX,
		"inner width of the feed-forward block"),
	KEY_BOOL("model", "gated_ffn", model.gated_ffn,
		 "SwiGLU-style FFN: three matrices (gate, up, down)"),
	KEY_INT("model", "vocab", model.vocab, POS, 1, WL_VOCAB_MAX,
		"vocabulary size, as the embedding matrix has it"),
	KEY_INT("model", "seq_len", model.seq_len, POS, 1, WL_TOKENS_MAX,
		"tokens per training sequence; the context length"),
	KEY_BOOL("model", "tied_embeddings", model.tied_embeddings,
		 "the output layer shares the input embedding matrix"),
	KEY_QTYM("model", "params", model.params, QTY_POS, UNIT_COUNT, 1e16,
		 "total parameters, for a model given by its size only"),
	KEY_INT("model", "head_dim", model.head_dim, POS, 1, WL_HEAD_DIM_MAX,
		"width of one attention head"),
	KEY_INT("model", "kv_lora_rank", model.kv_lora_rank, POS, 1,
		WL_WIDTH_MAX,
		"MLA: width of the compressed KV latent (what is cached)"),
	KEY_INT("model", "q_lora_rank", model.q_lora_rank, POS, 1,
		WL_WIDTH_MAX, "MLA: width of the compressed query"),
	KEY_INT("model", "rope_head_dim", model.rope_head_dim, POS, 1,
		WL_HEAD_DIM_MAX, "MLA: rotary part of each query/key head"),
	KEY_INT("model", "v_head_dim", model.v_head_dim, POS, 1,
		WL_HEAD_DIM_MAX, "MLA: width of a value head"),
	KEY_INT("model", "experts", model.experts, POS, 1, WL_EXPERTS_MAX,
		"routed experts per mixture-of-experts layer"),
	KEY_INT("model", "experts_per_token", model.experts_per_token, POS, 1,
		WL_EXPERTS_MAX, "routed experts each token uses (top-k)"),
	KEY_INT("model", "shared_experts", model.shared_experts, 0, 0,
		WL_EXPERTS_MAX,
		"experts every token uses beside the routed ones"),
	KEY_INT("model", "mtp_layers", model.mtp_layers, 0, 0, WL_LAYERS_MAX,
		"multi-token prediction modules (speculative_method mtp)"),
	KEY_INT("model", "expert_ffn_hidden", model.expert_ffn_hidden, POS, 1,
		WL_FFN_MAX, "FFN width of one expert (routed or shared)"),
	KEY_INT("model", "dense_layers", model.dense_layers, 0, 0,
		WL_LAYERS_MAX,
		"leading layers with a dense FFN; the rest are MoE"),
	{ "model", "hf_config", WLT_STRING, WL_OFF(model.hf_config), 0, 0,
	  sizeof(((struct model_spec *)0)->hf_config), UNIT_COUNT, NULL,
	  "Hugging Face config.json to read the architecture from" },
	{ "model", "onnx", WLT_STRING, WL_OFF(model.onnx), 0, 0,
	  sizeof(((struct model_spec *)0)->onnx), UNIT_COUNT, NULL,
	  "generic: ONNX model of the network, costed op by op" },
	KEY_QTYM("model", "flops_per_sample", model.flops_per_sample, QTY_POS,
		 UNIT_COUNT, 1e18, "generic: forward FLOPs of one sample"),
	KEY_QTYM("model", "activation_bytes_per_sample",
		 model.activation_bytes_per_sample, 0, UNIT_BYTES, 1e15,
		 "generic: activation bytes kept per sample for backward"),
	/* below 0.1% of the GEMM efficiency no device runs: a value there is
	   a typo, not a plan (issue 40: 1e-300 printed a 63-digit time) */
	KEY_NUM("model", "kernel_efficiency", model.kernel_efficiency,
		WLK_UNSET0, 0.001, 1,
		"generic: share of the device's GEMM efficiency reached"),
	KEY_INT("model", "embedding_tables", model.embedding_tables, POS, 1,
		1000000, "recsys: embedding tables"),
	{ "model", "embedding_rows", WLT_ROWS, WL_OFF(model.embedding_rows),
	  QTY_POS, 0, 1e13, UNIT_COUNT, NULL,
	  "recsys: rows of every table, or of each in order" },
	KEY_INT("model", "embedding_dim", model.embedding_dim, POS, 1, 1000000,
		"recsys: elements per embedding row"),
	KEY_ENUM("model", "embedding_precision", model.embedding_precision,
		 WLT_PRECISION, infer_precision_names,
		 "recsys: format the tables are stored in"),
	KEY_QTYM("model", "lookups_per_sample", model.lookups_per_sample,
		 QTY_POS, UNIT_COUNT, 1e9,
		 "recsys: rows gathered per sample over all tables"),
	KEY_QTYM("model", "dense_params", model.dense_params, QTY_POS,
		 UNIT_COUNT, 1e16,
		 "recsys: parameters of the dense network, its total"),
	KEY_QTYM("model", "dense_flops_per_sample",
		 model.dense_flops_per_sample, QTY_POS, UNIT_COUNT, 1e18,
		 "recsys: forward FLOPs of the dense network per sample"),
	WL_SAMPLE_MODEL_KEYS,

	{ "training", "framework", WLT_STRING, WL_OFF(training.framework), 0,
	  0, sizeof(((struct training_spec *)0)->framework), UNIT_COUNT, NULL,
	  "training framework whose stack row fills defaults" },
	KEY_QTYM("training", "tokens", training.tokens, QTY_POS, UNIT_COUNT,
		 1e18, "tokens to train on (transformers)"),
	KEY_INT("training", "global_batch", training.global_batch, POS_AUTO,
		1, WL_BATCH_MAX, "sequences (samples) per optimizer step"),
	KEY_INT("training", "micro_batch", training.micro_batch, POS_AUTO,
		1, WL_BATCH_MAX,
		"sequences (samples) per micro-batch on one GPU"),
	KEY_INT("training", "gpus", training.gpus, POS_AUTO, 1, WL_GPUS_MAX,
		"GPUs in the job (--gpus)"),
	KEY_INT("training", "tp", training.tp, POS_AUTO, 1, WL_HEADS_MAX,
		"tensor-parallel size"),
	KEY_INT("training", "pp", training.pp, POS_AUTO, 1, WL_LAYERS_MAX,
		"pipeline-parallel stages"),
	KEY_INT("training", "vp", training.vp, POS_AUTO, 1, WL_LAYERS_MAX,
		"virtual (interleaved) pipeline stages per GPU"),
	KEY_INT("training", "first_stage_layers", training.first_stage_layers,
		POS_AUTO, 1, WL_LAYERS_MAX,
		"layers of the first pipeline stage (with the embedding)"),
	KEY_INT("training", "last_stage_layers", training.last_stage_layers,
		POS_AUTO, 1, WL_LAYERS_MAX,
		"layers of the last pipeline stage (with the output)"),
	KEY_INT("training", "cp", training.cp, POS_AUTO, 1, WL_GPUS_MAX,
		"context-parallel size (the sequence split over GPUs)"),
	KEY_INT("training", "zero", training.zero, WLK_AUTO_NEG, 0, 3,
		"ZeRO sharding: 1 optimizer states, 2 +gradients, 3 +weights"),
	KEY_ENUM_INT("training", "zero_shard", training.zero_shard,
		     zero_shard_names, 2, WL_GPUS_MAX,
		     "ranks one copy of the sharded states spans"),
	KEY_ENUM("training", "recompute", training.recompute, WLT_RECOMPUTE,
		 recompute_names,
		 "activation recomputation: none, selective or full"),
	KEY_FLAGS("training", "recompute_modules", training.recompute_modules,
		  recompute_module_names,
		  "what selective recomputation repeats"),
	KEY_INT("training", "recompute_layers", training.recompute_layers,
		POS_AUTO, 1, WL_LAYERS_MAX,
		"layers per pipeline chunk fully recomputed"),
	KEY_TRI("training", "sequence_parallel", training.sequence_parallel,
		"Megatron sequence parallelism alongside tp"),
	KEY_ENUM("training", "precision", training.precision, WLT_PRECISION,
		 train_precision_names,
		 "training math precision (mixed for 16 and 8 bits)"),
	KEY_ENUM("training", "optimizer", training.optimizer, WLT_OPTIMIZER,
		 optimizer_names,
		 "Adam (fp32 master weights, two moments) or SGD"),
	KEY_ENUM("training", "attention", training.attention, WLT_ATTENTION,
		 attention_names,
		 "attention kernel: fused (flash, flash2) or unfused"),
	KEY_FLAGS("training", "eager_ops", training.eager_ops, eager_op_names,
		  "element-wise ops run as eager (unfused) kernels"),
	KEY_TRI("training", "overlap_grad_reduce",
		training.overlap_grad_reduce,
		"gradient reduction overlaps the backward pass"),
	KEY_TRI("training", "overlap_param_gather",
		training.overlap_param_gather,
		"ZeRO 1-2: weight all-gather overlaps the next forward"),
	KEY_TRI("training", "tp_comm_overlap", training.tp_comm_overlap,
		"tensor-parallel collectives pipelined with the GEMMs"),
	KEY_TRI("training", "ep_comm_overlap", training.ep_comm_overlap,
		"MoE all-to-alls beside another micro-batch's compute"),
	KEY_BOOL("training", "dropout", training.dropout,
		 "dropout layers are active (their masks are kept)"),
	KEY_INT("training", "ep", training.ep, POS_AUTO, 1, WL_EXPERTS_MAX,
		"expert-parallel size, within the data-parallel ranks"),
	KEY_FRACTION("training", "offload_optimizer",
		     training.offload_optimizer,
		     "share of optimizer states stepped on the host CPUs"),
	KEY_QTYM("training", "samples", training.samples, QTY_POS, UNIT_COUNT,
		 1e18, "generic, recsys: samples per epoch"),
	KEY_NUM("training", "epochs", training.epochs, WLK_GT, 0, 1e6,
		"generic, recsys: passes over the samples"),
	KEY_QTYM("training", "batch_tokens", training.batch_tokens, QTY_POS,
		 UNIT_COUNT, 1e12,
		 "tokens per global batch, without global_batch"),
	KEY_BOOL("training", "async_checkpoint", training.async_checkpoint,
		 "checkpoint writes overlap training"),
	KEY_NUM("training", "production_efficiency",
		training.production_efficiency, WLK_GT, 0, 1,
		"production throughput over the steady-state plan's"),
	KEY_QTYM("training", "checkpoint_interval",
		 training.checkpoint_interval_s, QTY_POS, UNIT_TIME, 31536000.0,
		 "training time between checkpoints"),
	WL_SAMPLE_TRAINING_KEYS,

	KEY_ENUM("inference", "weight_precision", inference.weight_precision,
		 WLT_PRECISION, infer_weight_precision_names,
		 "format of the stored weights"),
	KEY_ENUM("inference", "kv_precision", inference.kv_precision,
		 WLT_PRECISION, infer_precision_names,
		 "format of the KV cache"),
	KEY_INT("inference", "prompt_tokens", inference.prompt_tokens, 0,
		1, WL_TOKENS_MAX, "input tokens per request"),
	KEY_INT("inference", "output_tokens", inference.output_tokens, 0,
		1, WL_OUTPUT_TOKENS_MAX, "generated tokens per request"),
	KEY_INT("inference", "batch", inference.batch, POS_AUTO, 1,
		WL_INFER_BATCH_MAX,
		"concurrent sequences (per-sample: samples) per replica"),
	KEY_INT("inference", "tp", inference.tp, POS_AUTO, 1, WL_HEADS_MAX,
		"tensor-parallel size (per-sample: GPUs) of a replica"),
	KEY_INT("inference", "ep", inference.ep, POS_AUTO, 1, WL_EXPERTS_MAX,
		"expert parallelism of a replica (tp x ep GPUs)"),
	KEY_NUM("inference", "expert_imbalance", inference.expert_imbalance,
		WLK_AUTO | WLK_UNSET0, 1, 1e6,
		"ep > 1: busiest expert rank's tokens over the mean"),
	KEY_INT("inference", "redundant_experts", inference.redundant_experts,
		0, 0, WL_EXPERTS_MAX,
		"ep > 1: copies of busy experts beside the routed ones"),
	KEY_BOOL("inference", "ep_comm_overlap", inference.ep_comm_overlap,
		 "ep > 1: two micro-batches hide each other's all-to-alls"),
	KEY_NUM("inference", "qps", inference.qps, 0, 0, 1e9,
		"load: requests (per-sample: samples) per second"),
	KEY_QTYM("inference", "ttft_slo", inference.ttft_slo_s, QTY_POS,
		 UNIT_TIME, 86400.0,
		 "time-to-first-token target (per-sample: batch latency)"),
	KEY_QTYM("inference", "tpot_slo", inference.tpot_slo_s, QTY_POS,
		 UNIT_TIME, 86400.0,
		 "time-per-output-token target, after the first"),
	KEY_ENUM("inference", "percentile", inference.percentile,
		 WLT_PERCENTILE, percentile_names,
		 "share of requests that must meet the targets"),
	KEY_ENUM("inference", "sparsity", inference.sparsity_2_4,
		 WLT_SPARSITY, sparsity_names,
		 "2:4 structured sparsity of the weights"),
	KEY_QTYM("inference", "power_cap", inference.power_cap_w, QTY_POS,
		 UNIT_POWER, 1e6, "power limit of each device"),
	KEY_ENUM("inference", "arrival", inference.arrival, WLT_INTENUM,
		 arrival_names,
		 "how requests arrive: poisson, closed, burst or trace"),
	KEY_INT("inference", "concurrency", inference.concurrency, POS, 1,
		1000000,
		"arrival = closed: clients, one request each at a time"),
	KEY_INT("inference", "requests", inference.requests, POS_AUTO, 1,
		SIM_REQUESTS_MAX, "requests simulated, warm-up included"),
	{ "inference", "trace", WLT_STRING, WL_OFF(inference.trace), 0, 0,
	  sizeof(((struct inference_spec *)0)->trace), UNIT_COUNT, NULL,
	  "CSV file of requests to replay (arrival_s, lengths)" },
	KEY_ENUM("inference", "length_dist", inference.length_dist,
		 WLT_INTENUM, length_dist_names,
		 "how simulated request lengths spread around the mean"),
	KEY_INT("inference", "seed", inference.seed, 0, 0, INT_MAX,
		"seed of the simulation's random numbers"),
	KEY_INT("inference", "replicas", inference.replicas, POS_AUTO, 1,
		1000000,
		"a fixed fleet of replicas to simulate under the load"),
	{ "inference", "engine", WLT_STRING, WL_OFF(inference.engine), 0, 0,
	  sizeof(((struct inference_spec *)0)->engine), UNIT_COUNT, NULL,
	  "serving engine whose stack row fills defaults" },
	KEY_INT("inference", "max_batch", inference.max_batch, POS_AUTO, 1,
		65536, "running sequences per replica at most"),
	KEY_INT("inference", "max_batched_tokens",
		inference.max_batched_tokens, POS_AUTO, 1, 16777216,
		"tokens per scheduler step at most"),
	KEY_BOOL("inference", "chunked_prefill", inference.chunked_prefill,
		 "prompts split in chunks that share steps with decode"),
	KEY_INT("inference", "kv_block_tokens", inference.kv_block_tokens, 0,
		1, 4096, "tokens per block of the paged KV cache"),
	KEY_INT("inference", "scheduler_steps", inference.scheduler_steps, 0,
		1, 1024, "decode steps per scheduling round"),
	KEY_QTYM("inference", "kernel_overhead", inference.kernel_overhead_s,
		 0, UNIT_TIME, 1.0,
		 "exposed fixed time of each kernel of a decode step"),
	KEY_QTYM("inference", "host_request_overhead", inference.host_request_s,
		 0, UNIT_TIME, 1.0,
		 "front-end host time per request (HTTP, tokenizer)"),
	KEY_QTYM("inference", "host_step_overhead", inference.host_step_s,
		 0, UNIT_TIME, 1.0,
		 "host time the GPU waits for at each scheduling round"),
	KEY_NUM("inference", "memory_fraction", inference.memory_fraction,
		WLK_GT, 0, 1, "share of each GPU's memory the engine fills"),
	KEY_ENUM("inference", "memory_fraction_of",
		 inference.memory_fraction_of, WLT_INTENUM,
		 memory_fraction_of_names,
		 "memory_fraction of the device or of what weights leave"),
	KEY_INT("inference", "kv_cache_tokens", inference.kv_cache_tokens,
		POS_AUTO, 1, WL_TOKENS_MAX,
		"tokens the engine's KV cache holds at most (all sequences)"),
	KEY_ENUM("inference", "device_defaults", inference.device_defaults,
		 WLT_INTENUM, device_defaults_names,
		 "engine's rule for batch and memory defaults by device"),
	KEY_BOOL("inference", "weight_only", inference.weight_only,
		 "quantized weights dequantized into 16-bit GEMMs"),
	KEY_ENUM("inference", "fp4_format", inference.fp4_format, WLT_INTENUM,
		 fp4_format_names,
		 "block scales of fp4 weights: NVFP4 or MXFP4"),
	KEY_ENUM("inference", "non_expert_precision",
		 inference.non_expert_precision, WLT_PRECISION,
		 non_expert_precision_names,
		 "MoE: format of the weights outside routed experts"),
	KEY_ENUM("inference", "decode_attention", inference.decode_attention,
		 WLT_INTENUM, decode_attention_names,
		 "how decode attention reads a grouped-query KV cache"),
	KEY_INT("inference", "speculative_tokens",
		inference.speculative_tokens, 0, 0,
		SIM_SPECULATIVE_TOKENS_MAX,
		"speculative decoding: draft tokens per step (0: off)"),
	KEY_NUM("inference", "acceptance_rate", inference.acceptance_rate,
		WLK_GT | WLK_UNSET0, 0, 1,
		"chance that a draft token is accepted"),
	KEY_NUM("inference", "draft_cost_ratio", inference.draft_cost_ratio, 0,
		0, 1, "a draft-model step's time over the served model's"),
	KEY_ENUM("inference", "speculative_method",
		 inference.speculative_method, WLT_INTENUM,
		 speculative_method_names,
		 "drafts from a draft model or the model's MTP modules"),
	KEY_INT("inference", "turns", inference.turns, 0, 1, 10000,
		"requests per session; later turns resend the history"),
	KEY_QTYM("inference", "think_time", inference.think_time_s, 0,
		 UNIT_TIME, 86400.0,
		 "mean pause from a reply to the session's next turn"),
	KEY_INT("inference", "turn_tokens", inference.turn_tokens, POS_AUTO, 1,
		WL_TOKENS_MAX, "new prompt tokens of each turn after the first"),
	KEY_INT("inference", "shared_prefix_tokens",
		inference.shared_prefix_tokens, 0, 0, WL_TOKENS_MAX,
		"leading prompt tokens every request shares"),
	KEY_INT("inference", "prefix_groups", inference.prefix_groups, 0, 1,
		1000000, "distinct shared prefixes, each request one of them"),
	KEY_TRI("inference", "prefix_caching", inference.prefix_caching,
		"KV blocks of earlier prompts reused (auto: the engine's)"),
	KEY_QTYM("inference", "kv_offload_memory",
		 inference.kv_offload_memory_bytes, 0, UNIT_BYTES, 1e15,
		 "host memory per replica that keeps evicted KV blocks"),
	KEY_QTYM("inference", "kv_offload_storage",
		 inference.kv_offload_storage_bytes, 0, UNIT_BYTES, 1e18,
		 "storage per replica that keeps KV blocks host memory lets go"),
	KEY_QTYL("inference", "kv_storage_bw",
		 inference.kv_storage_bw_bytes_per_s, WLK_UNSET0,
		 UNIT_BANDWIDTH, WL_MIN_BW_BYTES_PER_S,
		 "read bandwidth of that storage per replica"),
	KEY_ENUM("inference", "routing", inference.routing, WLT_INTENUM,
		 routing_names,
		 "replica of each request: least_loaded, session or auto"),
	KEY_BOOL("inference", "disaggregated", inference.disaggregated,
		 "prefill and decode on separate replicas (DistServe)"),
	KEY_INT("inference", "prefill_replicas", inference.prefill_replicas,
		POS_AUTO, 1, 1000000,
		"disaggregated: a fixed count of prefill replicas"),
	KEY_INT("inference", "decode_replicas", inference.decode_replicas,
		POS_AUTO, 1, 1000000,
		"disaggregated: a fixed count of decode replicas"),
	KEY_INT("inference", "prefill_tp", inference.prefill_tp, POS_AUTO, 1,
		WL_HEADS_MAX, "tensor-parallel size of the prefill replicas"),
	KEY_INT("inference", "decode_tp", inference.decode_tp, POS_AUTO, 1,
		WL_HEADS_MAX, "tensor-parallel size of the decode replicas"),
	KEY_QTYL("inference", "kv_transfer_bw",
		 inference.kv_transfer_bw_bytes_per_s, WLK_UNSET0,
		 UNIT_BANDWIDTH, WL_MIN_BW_BYTES_PER_S,
		 "bandwidth of the link carrying KV caches to decode"),
	WL_SAMPLE_INFERENCE_KEYS,

	KEY_INT("cluster", "gpus_per_node", cluster.gpus_per_node, POS_AUTO,
		1, WL_GPUS_PER_NODE_MAX, "devices per node (NVLink domain)"),
	/* at least 1 MB/s, a thousandth of 10 Gb Ethernet: slower links
	   make collectives of any model take longer than a double can say
	   in joules (1e-300B/s was a "not finite" internal error) */
	KEY_QTYL("cluster", "intra_bw", cluster.intra_bw_bytes_per_s,
		 WLK_UNSET0, UNIT_BANDWIDTH, WL_MIN_BW_BYTES_PER_S,
		 "per-device bandwidth within the node, per direction"),
	KEY_TRI("cluster", "nvlink_sharp", cluster.nvlink_sharp,
		"NVLink switches reduce in the network (NVLS)"),
	KEY_TRI("cluster", "intra_mesh", cluster.intra_mesh,
		"a link from each device to every other in the node"),
	KEY_QTYL("cluster", "inter_bw", cluster.inter_bw_bytes_per_s,
		 WLK_UNSET0, UNIT_BANDWIDTH, WL_MIN_BW_BYTES_PER_S,
		 "per-device bandwidth between nodes, per direction"),
	KEY_NUM("cluster", "pue", cluster.pue, 0, 1, 3,
		"power usage effectiveness: facility / IT power"),
	KEY_QTYM("cluster", "price_per_gpu_hour",
		 cluster.price_usd_per_gpu_hour, QTY_POS, UNIT_MONEY, 1e6,
		 "price of one device-hour, USD"),
	KEY_QTYM("cluster", "price_per_kwh", cluster.price_usd_per_kwh, 0,
		 UNIT_MONEY, 1e3, "electricity price, USD per kWh"),
	KEY_NUM("cluster", "host_overhead", cluster.host_overhead, 0, 0, 5,
		"host power (CPUs, memory, NICs), fraction of GPU power"),
	/* one failure per GPU-hour: every GPU of a job failing each hour is
	   past any cluster that trains */
	KEY_NUM("cluster", "failures_per_gpu_hour",
		cluster.failures_per_gpu_hour, 0, 0, 1,
		"job-interrupting failures per GPU-hour"),
	KEY_QTYM("cluster", "restart_time", cluster.restart_s, 0, UNIT_TIME,
		 604800.0, "time from a failure to training again"),
	KEY_QTYL("cluster", "storage_bw", cluster.storage_bw_bytes_per_s,
		 0, UNIT_BANDWIDTH, WL_MIN_BW_BYTES_PER_S,
		 "checkpoint write bandwidth per node"),
	KEY_NUM("cluster", "maintenance", cluster.maintenance, 0, 0, 0.5,
		"planned down time, fraction of wall-clock time"),
	/* optimizer offload: the host's memory, link and CPUs */
	KEY_QTYM("cluster", "host_memory", cluster.host_memory_bytes, QTY_POS,
		 UNIT_BYTES, 1e16, "host (CPU) memory of one node"),
	KEY_QTYL("cluster", "host_link_bw", cluster.host_link_bw_bytes_per_s,
		 WLK_UNSET0, UNIT_BANDWIDTH, WL_MIN_BW_BYTES_PER_S,
		 "bandwidth of each GPU's link to its host, per direction"),
	/* a thousand parameters per second: slower makes a step's time
	   overflow like the slowest link */
	KEY_QTYL("cluster", "cpu_adam_rate", cluster.cpu_adam_params_per_s, 0,
		 UNIT_COUNT, 1e3,
		 "parameters per second a node's CPUs step with Adam"),
	/* ownership (TCO): bounds keep the effective price finite and far
	   beyond any real purchase, lifetime or rent */
	KEY_ENUM("cluster", "pricing", cluster.pricing, WLT_INTENUM,
		 pricing_names,
		 "how a GPU-hour is priced: cloud rent or owned (TCO)"),
	KEY_QTYM("cluster", "capex_per_gpu", cluster.capex_usd_per_gpu,
		 QTY_POS, UNIT_MONEY, 1e8,
		 "owned: price of one device with its share, USD"),
	KEY_NUM("cluster", "amortization_years", cluster.amortization_years,
		0, 0.25, 30, "owned: years the capex is spread over"),
	KEY_QTYM("cluster", "hosting_per_kw_month",
		 cluster.hosting_usd_per_kw_month, 0, UNIT_MONEY, 1e5,
		 "owned: colocation rent, USD per kW of IT power a month"),
	WL_SAMPLE_CLUSTER_KEYS,
};

const size_t wl_key_count = ARRAY_SIZE(wl_keys);
_Static_assert(ARRAY_SIZE(wl_keys) <= WL_GIVEN_MAX,
	       "struct workload's 'given' must cover every key");

/* ---------------------------------------------------------------------
 * Names
 */

static const char *name_of(const struct wl_name *names, int value)
{
	for (; names->name; names++)
		if (names->value == value)
			return names->name;
	return "?";
}

const char *recompute_name(enum recompute r)
{
	return name_of(recompute_names, (int)r);
}

char *recompute_modules_text(int modules, char *buf, size_t size)
{
	size_t used = 0;

	if (size == 0)
		return buf;
	buf[0] = '\0';
	for (int i = 0; recompute_module_names[i].name; i++) {
		int n;

		if (!(modules & recompute_module_names[i].value))
			continue;
		n = snprintf(buf + used, size - used, "%s%s", used ? "," : "",
			     recompute_module_names[i].name);
		if (n < 0 || (size_t)n >= size - used)
			break;
		used += (size_t)n;
	}
	return buf;
}

const char *optimizer_name(enum optimizer o)
{
	return name_of(optimizer_names, (int)o);
}

const char *model_kind_name(enum model_kind k)
{
	return name_of(kind_names, (int)k);
}

const char *pricing_mode_name(enum pricing_mode m)
{
	return name_of(pricing_names, (int)m);
}

const char *attention_name(enum attention_impl a)
{
	return name_of(attention_names, (int)a);
}

const char *slo_percentile_name(enum slo_percentile p)
{
	return name_of(percentile_names, (int)p);
}

bool model_has_arch(const struct model_spec *m)
{
	return m->kind == MODEL_TRANSFORMER && m->layers > 0 &&
	       m->hidden > 0 && m->heads > 0 && m->vocab > 0 &&
	       m->seq_len > 0;
}

/* ---------------------------------------------------------------------
 * Defaults
 */

void workload_init(struct workload *wl)
{
	memset(wl, 0, sizeof(*wl));

	wl->model.tied_embeddings = true;
	wl->model.embedding_precision = PREC_FP32;
	wl->training.epochs = 1.0;
	wl->training.production_efficiency = WL_PRODUCTION_EFFICIENCY;

	wl->training.global_batch = WL_AUTO;
	wl->training.micro_batch = WL_AUTO;
	wl->training.gpus = WL_AUTO;
	wl->training.tp = WL_AUTO;
	wl->training.pp = WL_AUTO;
	wl->training.vp = WL_AUTO;
	wl->training.first_stage_layers = WL_AUTO;
	wl->training.last_stage_layers = WL_AUTO;
	wl->training.cp = WL_AUTO;
	wl->training.zero = WL_AUTO_NEG;
	wl->training.zero_shard = WL_ZERO_SHARD_ALL;
	wl->training.recompute = RECOMPUTE_AUTO;
	wl->training.sequence_parallel = WL_AUTO_NEG;
	wl->training.precision = PREC_BF16;
	wl->training.optimizer = OPTIMIZER_ADAM;
	wl->training.attention = ATTN_FLASH;
	wl->training.overlap_grad_reduce = WL_AUTO_NEG;
	wl->training.overlap_param_gather = WL_AUTO_NEG;
	wl->training.tp_comm_overlap = WL_AUTO_NEG;
	wl->training.ep_comm_overlap = WL_AUTO_NEG;
	wl->training.recompute_layers = WL_AUTO;
	wl->training.offload_optimizer = WL_OFFLOAD_AUTO;

	wl->inference.weight_precision = PREC_BF16;
	wl->inference.kv_precision = PREC_BF16;
	wl->inference.prompt_tokens = 512;
	wl->inference.output_tokens = 256;
	wl->inference.batch = WL_AUTO;
	wl->inference.tp = WL_AUTO;
	wl->inference.percentile = SLO_P99;
	wl->inference.sparsity_2_4 = false;
	wl->inference.arrival = WL_AUTO_NEG;
	wl->inference.requests = WL_AUTO;
	wl->inference.length_dist = 0; /* fixed */
	wl->inference.seed = 1;
	wl->inference.replicas = WL_AUTO;
	wl->inference.max_batch = WL_AUTO;
	wl->inference.max_batched_tokens = WL_AUTO;
	wl->inference.kv_cache_tokens = WL_AUTO;
	wl->inference.chunked_prefill = true;
	wl->inference.kv_block_tokens = 16;
	wl->inference.scheduler_steps = 1;
	wl->inference.kernel_overhead_s = WL_KERNEL_OVERHEAD_S;
	wl->inference.host_request_s = WL_HOST_REQUEST_S;
	wl->inference.host_step_s = WL_HOST_STEP_S;
	wl->inference.memory_fraction = INFER_MEMORY_FRACTION;
	wl->inference.draft_cost_ratio = WL_DRAFT_COST_RATIO;
	wl->inference.disaggregated = false;
	wl->inference.turns = 1;
	wl->inference.prefix_groups = 1;
	wl->inference.turn_tokens = WL_AUTO;
	wl->inference.prefix_caching = WL_AUTO_NEG;
	wl->inference.routing = WL_AUTO_NEG;
	wl->inference.weight_only = false;
	wl->inference.fp4_format = 0;
	wl->inference.non_expert_precision = PREC_COUNT;
	wl->inference.decode_attention = 0; /* grouped */
	wl->inference.prefill_replicas = WL_AUTO;
	wl->inference.decode_replicas = WL_AUTO;
	wl->inference.prefill_tp = WL_AUTO;
	wl->inference.decode_tp = WL_AUTO;

	wl->cluster.gpus_per_node = WL_AUTO;
	wl->cluster.nvlink_sharp = WL_AUTO_NEG;
	wl->cluster.intra_mesh = WL_AUTO_NEG;
	wl->cluster.pue = 1.2;
	wl->cluster.price_usd_per_kwh = 0.10;
	wl->cluster.host_overhead = 0.35;
	wl->cluster.failures_per_gpu_hour = WL_FAILURES_PER_GPU_HOUR;
	wl->cluster.restart_s = WL_RESTART_S;
	wl->cluster.storage_bw_bytes_per_s = WL_STORAGE_BW_BYTES_PER_S;
	wl->cluster.maintenance = WL_MAINTENANCE;
	wl->cluster.cpu_adam_params_per_s = WL_CPU_ADAM_PARAMS_PER_S;
	wl->cluster.pricing = PRICING_CLOUD;
	wl->cluster.amortization_years = WL_AMORTIZATION_YEARS;
	wl->cluster.hosting_usd_per_kw_month = WL_HOSTING_USD_PER_KW_MONTH;
	wl_sample_init(wl);
}

/* ---------------------------------------------------------------------
 * Key lookup
 */

bool wl_section_known(const char *s, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(wl_sections); i++)
		if (strlen(wl_sections[i]) == len &&
		    memcmp(wl_sections[i], s, len) == 0)
			return true;
	return false;
}

int wl_key_find(const char *section, const char *key)
{
	for (size_t i = 0; i < wl_key_count; i++)
		if (strcmp(wl_keys[i].section, section) == 0 &&
		    strcmp(wl_keys[i].key, key) == 0)
			return (int)i;
	return -1;
}

/* Levenshtein distance; SIZE_MAX when a word is too long to bother. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t prev[WL_WORD_MAX + 1], cur[WL_WORD_MAX + 1];

	if (la > WL_WORD_MAX || lb > WL_WORD_MAX)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
			size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			size_t best = del < ins ? del : ins;

			cur[j] = sub < best ? sub : best;
		}
		memcpy(prev, cur, (lb + 1) * sizeof(prev[0]));
	}
	return prev[lb];
}

/*
 * The key of 'section' closest to 'key', or NULL when none is close: the
 * nearest by edit distance when one edit reaches it ("expert": experts),
 * else the one key whose first words 'key' is ("tpot": tpot_slo, not tp),
 * else the nearest when a few edits reach it ("layres": layers).
 */
const struct wl_key *wl_key_closest(const char *section, const char *key)
{
	const struct wl_key *best = NULL, *prefix = NULL;
	size_t best_d = SIZE_MAX, len = strlen(key);
	int prefixes = 0;

	for (size_t i = 0; i < wl_key_count; i++) {
		size_t d;

		if (strcmp(wl_keys[i].section, section) != 0)
			continue;
		d = edit_distance(key, wl_keys[i].key);
		if (d < best_d) {
			best_d = d;
			best = &wl_keys[i];
		}
		if (len >= 2 && strncmp(wl_keys[i].key, key, len) == 0 &&
		    wl_keys[i].key[len] == '_') {
			prefix = &wl_keys[i];
			prefixes++;
		}
	}
	if (best && best_d <= 1)
		return best;
	if (prefixes == 1)
		return prefix;
	if (best && (best_d <= 2 || best_d * 3 <= len))
		return best;
	return NULL;
}

/* "key", or "section.key" when another section has a key of that name. */
const char *wl_key_label(const struct wl_key *k, char *buf, size_t size)
{
	for (size_t i = 0; i < wl_key_count; i++) {
		if (&wl_keys[i] != k && strcmp(wl_keys[i].key, k->key) == 0) {
			snprintf(buf, size, "%s.%s", k->section, k->key);
			return buf;
		}
	}
	return k->key;
}
