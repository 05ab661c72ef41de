/*
 * workload.c - the workload description: INI (inih) -> struct workload,
 * "section.key=value" overrides and consistency checks; see workload.h.
 *
 * Every key is a row of 'wl_keys': section, name, value type, the field it
 * fills and the accepted range.  The INI reader hands inih one physical line
 * at a time, so that messages can name line and column, and rejects what
 * inih would accept silently (NUL bytes, over-long lines, indented
 * continuation lines).  No global state of inih is changed.
 *
 * Conventions kept in the struct (the header has no room for "given"
 * flags):
 *   model.kv_heads, model.ffn_hidden: 0 when not given; consumers use
 *   'heads' and 4 * 'hidden' for 0.
 *   inference.kv_precision: follows weight_precision when a parse gives
 *   weight_precision but not kv_precision; an override of weight_precision
 *   (workload_set) moves kv_precision along when the two were equal.
 */
#include "workload.h"
#include "hf_config.h"
#include "onnx_read.h"
#include "readfile.h"
#include "serve_sim.h"
#include "workload_sample.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <ini.h>

#include "text.h"
#include "units.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define WL_OFF(field) offsetof(struct workload, field)

/* inih reads lines into a buffer of 200 bytes; keep well inside it. */
#define WL_LINE_MAX 190
/* A workload file is a page of text; anything this large is a mistake. */
#define WL_FILE_MAX (4 * 1024 * 1024)
/* Longest key or section name the suggestion search considers. */
#define WL_WORD_MAX 64
/* Slowest link a workload may give (cluster.intra_bw, inter_bw), B/s. */
#define WL_MIN_BW_BYTES_PER_S 1e6
/* Longest --set expression. */
#define WL_SET_MAX 512
/* Longest path of a file a workload names (model.hf_config, model.onnx). */
#define WL_PATH_MAX 256
_Static_assert(sizeof(((struct workload *)0)->model.hf_config) == WL_PATH_MAX &&
		       sizeof(((struct workload *)0)->model.onnx) == WL_PATH_MAX,
	       "model file paths are WL_PATH_MAX bytes");

enum wl_type {
	WLT_STRING,    /* char[WL_NAME_MAX] */
	WLT_INT,       /* int in [min, max] */
	WLT_BOOL,      /* bool */
	WLT_TRISTATE,  /* int: 0, 1 or WL_AUTO_NEG */
	WLT_NUMBER,    /* double, plain number (strtod) */
	WLT_QUANTITY,  /* double, units_parse of 'unit' */
	WLT_FLAGS,     /* int, a bit set: a comma-separated list of 'names' */
	WLT_FRACTION,  /* double in [min, max], a boolean of 'names' (1 or
			  0) or "auto" (WL_OFFLOAD_AUTO) */
	WLT_WIDTHS,    /* struct wl_widths: a comma-separated list of layer
			  widths in [min, max] */
	WLT_PRECISION, /* enum precision, one of 'names' */
	WLT_RECOMPUTE, /* enum recompute, one of 'names' */
	WLT_OPTIMIZER, /* enum optimizer, one of 'names' */
	WLT_ATTENTION, /* enum attention_impl, one of 'names' */
	WLT_KIND,      /* enum model_kind, one of 'names' */
	WLT_PERCENTILE, /* enum slo_percentile, one of 'names' */
	WLT_SPARSITY,  /* bool, one of 'names' */
	WLT_INTENUM,   /* int, one of 'names' */
};

enum {
	WLK_AUTO = 1 << 0,     /* "auto" stores WL_AUTO (0) */
	WLK_AUTO_NEG = 1 << 1, /* "auto" stores WL_AUTO_NEG (-1) */
	WLK_UNSET0 = 1 << 2,   /* 0 means "not given" (allowed by validate) */
	WLK_GT = 1 << 3,       /* the value must exceed 'min' */
};

struct wl_key {
	const char *section;
	const char *key;
	enum wl_type type;
	size_t offset;        /* of the field in struct workload */
	unsigned flags;       /* WLK_* */
	double min, max;      /* accepted range (ints and numbers) */
	enum unit_kind unit;  /* WLT_QUANTITY */
	const struct wl_name *names; /* enum types; NULL-terminated */
};

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
	{ "int4", PREC_INT4 }, { NULL, 0 },
};

/* The KV cache format that follows a weight format: TF32 weights are
   stored in fp32, and so is their cache. */
static enum precision kv_following(enum precision weight)
{
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

/* The first name of a value is its canonical name; later ones are aliases. */
static const struct wl_name optimizer_names[] = {
	{ "adam", OPTIMIZER_ADAM }, { "adamw", OPTIMIZER_ADAM },
	{ "sgd", OPTIMIZER_SGD }, { NULL, 0 },
};

static const struct wl_name attention_names[] = {
	{ "flash", ATTN_FLASH }, { "unfused", ATTN_UNFUSED }, { NULL, 0 },
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

static const struct wl_name pricing_names[] = {
	{ "cloud", PRICING_CLOUD }, { "owned", PRICING_OWNED }, { NULL, 0 },
};

static const struct wl_name bool_names[] = {
	{ "true", 1 }, { "false", 0 }, { "yes", 1 }, { "no", 0 },
	{ "on", 1 }, { "off", 0 }, { "1", 1 }, { "0", 0 }, { NULL, 0 },
};

#define KEY_STR(s, k, f) \
	{ s, k, WLT_STRING, WL_OFF(f), 0, 0, 0, UNIT_COUNT, NULL }
#define KEY_INT(s, k, f, fl, lo, hi) \
	{ s, k, WLT_INT, WL_OFF(f), fl, lo, hi, UNIT_COUNT, NULL }
#define KEY_BOOL(s, k, f) \
	{ s, k, WLT_BOOL, WL_OFF(f), 0, 0, 1, UNIT_COUNT, bool_names }
#define KEY_TRI(s, k, f) \
	{ s, k, WLT_TRISTATE, WL_OFF(f), WLK_AUTO_NEG, 0, 1, UNIT_COUNT, \
	  bool_names }
#define KEY_NUM(s, k, f, fl, lo, hi) \
	{ s, k, WLT_NUMBER, WL_OFF(f), fl, lo, hi, UNIT_COUNT, NULL }
/* a quantity with a lower bound below which no plan is meaningful */
#define KEY_QTYL(s, k, f, fl, unit, lo) \
	{ s, k, WLT_QUANTITY, WL_OFF(f), fl, lo, HUGE_VAL, unit, NULL }
/* a quantity with an upper bound beyond which no plan is meaningful */
#define KEY_QTYM(s, k, f, fl, unit, hi) \
	{ s, k, WLT_QUANTITY, WL_OFF(f), fl, 0, hi, unit, NULL }
#define KEY_ENUM(s, k, f, type, names) \
	{ s, k, type, WL_OFF(f), 0, 0, 0, UNIT_COUNT, names }
#define KEY_FRACTION(s, k, f) \
	{ s, k, WLT_FRACTION, WL_OFF(f), 0, 0, 1, UNIT_COUNT, bool_names }
#define KEY_FLAGS(s, k, f, names) \
	{ s, k, WLT_FLAGS, WL_OFF(f), 0, 0, 0, UNIT_COUNT, names }

#define POS (WLK_UNSET0)          /* positive int, 0 = not given */
#define POS_AUTO (WLK_AUTO)        /* positive int or auto (0) */
#define QTY_POS (WLK_GT | WLK_UNSET0) /* > 0 when given, 0 = not given */

/* The public interface of workload files: keep names stable. */
static const struct wl_key wl_keys[] = {
	KEY_STR("model", "name", model.name),
	KEY_ENUM("model", "kind", model.kind, WLT_KIND, kind_names),
	KEY_INT("model", "layers", model.layers, POS, 1, WL_LAYERS_MAX),
	KEY_INT("model", "hidden", model.hidden, POS, 1, WL_WIDTH_MAX),
	KEY_INT("model", "heads", model.heads, POS, 1, WL_HEADS_MAX),
	KEY_INT("model", "kv_heads", model.kv_heads, POS, 1, WL_HEADS_MAX),
	KEY_INT("model", "ffn_hidden", model.ffn_hidden, POS, 1, WL_FFN_MAX),
	KEY_BOOL("model", "gated_ffn", model.gated_ffn),
	KEY_INT("model", "vocab", model.vocab, POS, 1, WL_VOCAB_MAX),
	KEY_INT("model", "seq_len", model.seq_len, POS, 1, WL_TOKENS_MAX),
	KEY_BOOL("model", "tied_embeddings", model.tied_embeddings),
	KEY_QTYM("model", "params", model.params, QTY_POS, UNIT_COUNT, 1e16),
	KEY_INT("model", "head_dim", model.head_dim, POS, 1, WL_HEAD_DIM_MAX),
	KEY_INT("model", "kv_lora_rank", model.kv_lora_rank, POS, 1,
		WL_WIDTH_MAX),
	KEY_INT("model", "q_lora_rank", model.q_lora_rank, POS, 1,
		WL_WIDTH_MAX),
	KEY_INT("model", "rope_head_dim", model.rope_head_dim, POS, 1,
		WL_HEAD_DIM_MAX),
	KEY_INT("model", "v_head_dim", model.v_head_dim, POS, 1,
		WL_HEAD_DIM_MAX),
	KEY_INT("model", "experts", model.experts, POS, 1, WL_EXPERTS_MAX),
	KEY_INT("model", "experts_per_token", model.experts_per_token, POS, 1,
		WL_EXPERTS_MAX),
	KEY_INT("model", "shared_experts", model.shared_experts, 0, 0,
		WL_EXPERTS_MAX),
	KEY_INT("model", "expert_ffn_hidden", model.expert_ffn_hidden, POS, 1,
		WL_FFN_MAX),
	KEY_INT("model", "dense_layers", model.dense_layers, 0, 0,
		WL_LAYERS_MAX),
	{ "model", "hf_config", WLT_STRING, WL_OFF(model.hf_config), 0, 0,
	  sizeof(((struct model_spec *)0)->hf_config), UNIT_COUNT, NULL },
	{ "model", "onnx", WLT_STRING, WL_OFF(model.onnx), 0, 0,
	  sizeof(((struct model_spec *)0)->onnx), UNIT_COUNT, NULL },
	KEY_QTYM("model", "flops_per_sample", model.flops_per_sample, QTY_POS,
		 UNIT_COUNT, 1e18),
	KEY_QTYM("model", "activation_bytes_per_sample",
		 model.activation_bytes_per_sample, 0, UNIT_BYTES, 1e15),
	KEY_NUM("model", "kernel_efficiency", model.kernel_efficiency, QTY_POS,
		0, 1),
	KEY_INT("model", "embedding_tables", model.embedding_tables, POS, 1,
		1000000),
	KEY_QTYM("model", "embedding_rows", model.embedding_rows, QTY_POS,
		 UNIT_COUNT, 1e13),
	KEY_INT("model", "embedding_dim", model.embedding_dim, POS, 1, 1000000),
	KEY_ENUM("model", "embedding_precision", model.embedding_precision,
		 WLT_PRECISION, infer_precision_names),
	KEY_QTYM("model", "lookups_per_sample", model.lookups_per_sample,
		 QTY_POS, UNIT_COUNT, 1e9),
	KEY_QTYM("model", "dense_params", model.dense_params, QTY_POS,
		 UNIT_COUNT, 1e16),
	KEY_QTYM("model", "dense_flops_per_sample",
		 model.dense_flops_per_sample, QTY_POS, UNIT_COUNT, 1e18),
	WL_SAMPLE_MODEL_KEYS,

	KEY_QTYM("training", "tokens", training.tokens, QTY_POS, UNIT_COUNT,
		 1e18),
	KEY_INT("training", "global_batch", training.global_batch, POS_AUTO,
		1, WL_BATCH_MAX),
	KEY_INT("training", "micro_batch", training.micro_batch, POS_AUTO,
		1, WL_BATCH_MAX),
	KEY_INT("training", "gpus", training.gpus, POS_AUTO, 1, WL_GPUS_MAX),
	KEY_INT("training", "tp", training.tp, POS_AUTO, 1, WL_HEADS_MAX),
	KEY_INT("training", "pp", training.pp, POS_AUTO, 1, WL_LAYERS_MAX),
	KEY_INT("training", "vp", training.vp, POS_AUTO, 1, WL_LAYERS_MAX),
	KEY_INT("training", "first_stage_layers", training.first_stage_layers,
		POS_AUTO, 1, WL_LAYERS_MAX),
	KEY_INT("training", "last_stage_layers", training.last_stage_layers,
		POS_AUTO, 1, WL_LAYERS_MAX),
	KEY_INT("training", "cp", training.cp, POS_AUTO, 1, WL_GPUS_MAX),
	KEY_INT("training", "zero", training.zero, WLK_AUTO_NEG, 0, 3),
	KEY_ENUM("training", "recompute", training.recompute, WLT_RECOMPUTE,
		 recompute_names),
	KEY_FLAGS("training", "recompute_modules", training.recompute_modules,
		  recompute_module_names),
	KEY_INT("training", "recompute_layers", training.recompute_layers,
		POS_AUTO, 1, WL_LAYERS_MAX),
	KEY_TRI("training", "sequence_parallel", training.sequence_parallel),
	KEY_ENUM("training", "precision", training.precision, WLT_PRECISION,
		 train_precision_names),
	KEY_ENUM("training", "optimizer", training.optimizer, WLT_OPTIMIZER,
		 optimizer_names),
	KEY_ENUM("training", "attention", training.attention, WLT_ATTENTION,
		 attention_names),
	KEY_TRI("training", "overlap_grad_reduce",
		training.overlap_grad_reduce),
	KEY_TRI("training", "overlap_param_gather",
		training.overlap_param_gather),
	KEY_TRI("training", "tp_comm_overlap", training.tp_comm_overlap),
	KEY_TRI("training", "ep_comm_overlap", training.ep_comm_overlap),
	KEY_BOOL("training", "dropout", training.dropout),
	KEY_INT("training", "ep", training.ep, POS_AUTO, 1, WL_EXPERTS_MAX),
	KEY_FRACTION("training", "offload_optimizer",
		     training.offload_optimizer),
	KEY_QTYM("training", "samples", training.samples, QTY_POS, UNIT_COUNT,
		 1e18),
	KEY_NUM("training", "epochs", training.epochs, WLK_GT, 0, 1e6),
	KEY_QTYM("training", "batch_tokens", training.batch_tokens, QTY_POS,
		 UNIT_COUNT, 1e12),
	KEY_BOOL("training", "async_checkpoint", training.async_checkpoint),
	KEY_QTYM("training", "checkpoint_interval",
		 training.checkpoint_interval_s, QTY_POS, UNIT_TIME, 31536000.0),
	WL_SAMPLE_TRAINING_KEYS,

	KEY_ENUM("inference", "weight_precision", inference.weight_precision,
		 WLT_PRECISION, infer_weight_precision_names),
	KEY_ENUM("inference", "kv_precision", inference.kv_precision,
		 WLT_PRECISION, infer_precision_names),
	KEY_INT("inference", "prompt_tokens", inference.prompt_tokens, 0,
		1, WL_TOKENS_MAX),
	KEY_INT("inference", "output_tokens", inference.output_tokens, 0,
		1, WL_OUTPUT_TOKENS_MAX),
	KEY_INT("inference", "batch", inference.batch, POS_AUTO, 1,
		WL_INFER_BATCH_MAX),
	KEY_INT("inference", "tp", inference.tp, POS_AUTO, 1, WL_HEADS_MAX),
	KEY_INT("inference", "ep", inference.ep, POS_AUTO, 1, WL_EXPERTS_MAX),
	KEY_NUM("inference", "qps", inference.qps, 0, 0, 1e9),
	KEY_QTYM("inference", "ttft_slo", inference.ttft_slo_s, QTY_POS,
		 UNIT_TIME, 86400.0),
	KEY_QTYM("inference", "tpot_slo", inference.tpot_slo_s, QTY_POS,
		 UNIT_TIME, 86400.0),
	KEY_ENUM("inference", "percentile", inference.percentile,
		 WLT_PERCENTILE, percentile_names),
	KEY_ENUM("inference", "sparsity", inference.sparsity_2_4,
		 WLT_SPARSITY, sparsity_names),
	KEY_QTYM("inference", "power_cap", inference.power_cap_w, QTY_POS,
		 UNIT_POWER, 1e6),
	KEY_ENUM("inference", "arrival", inference.arrival, WLT_INTENUM,
		 arrival_names),
	KEY_INT("inference", "concurrency", inference.concurrency, POS, 1,
		1000000),
	KEY_INT("inference", "requests", inference.requests, POS_AUTO, 1,
		1000000),
	{ "inference", "trace", WLT_STRING, WL_OFF(inference.trace), 0, 0,
	  sizeof(((struct inference_spec *)0)->trace), UNIT_COUNT, NULL },
	KEY_ENUM("inference", "length_dist", inference.length_dist,
		 WLT_INTENUM, length_dist_names),
	KEY_INT("inference", "seed", inference.seed, 0, 0, INT_MAX),
	KEY_INT("inference", "replicas", inference.replicas, POS_AUTO, 1,
		1000000),
	KEY_INT("inference", "max_batch", inference.max_batch, POS_AUTO, 1,
		65536),
	KEY_INT("inference", "max_batched_tokens",
		inference.max_batched_tokens, POS_AUTO, 1, 16777216),
	KEY_BOOL("inference", "chunked_prefill", inference.chunked_prefill),
	KEY_INT("inference", "kv_block_tokens", inference.kv_block_tokens, 0,
		1, 4096),
	KEY_INT("inference", "scheduler_steps", inference.scheduler_steps, 0,
		1, 1024),
	KEY_QTYM("inference", "kernel_overhead", inference.kernel_overhead_s,
		 0, UNIT_TIME, 1.0),
	KEY_INT("inference", "speculative_tokens",
		inference.speculative_tokens, 0, 0,
		SIM_SPECULATIVE_TOKENS_MAX),
	KEY_NUM("inference", "acceptance_rate", inference.acceptance_rate,
		WLK_GT | WLK_UNSET0, 0, 1),
	KEY_NUM("inference", "draft_cost_ratio", inference.draft_cost_ratio, 0,
		0, 1),
	KEY_BOOL("inference", "disaggregated", inference.disaggregated),
	KEY_INT("inference", "prefill_replicas", inference.prefill_replicas,
		POS_AUTO, 1, 1000000),
	KEY_INT("inference", "decode_replicas", inference.decode_replicas,
		POS_AUTO, 1, 1000000),
	KEY_INT("inference", "prefill_tp", inference.prefill_tp, POS_AUTO, 1,
		WL_HEADS_MAX),
	KEY_INT("inference", "decode_tp", inference.decode_tp, POS_AUTO, 1,
		WL_HEADS_MAX),
	KEY_QTYL("inference", "kv_transfer_bw",
		 inference.kv_transfer_bw_bytes_per_s, WLK_UNSET0,
		 UNIT_BANDWIDTH, WL_MIN_BW_BYTES_PER_S),
	WL_SAMPLE_INFERENCE_KEYS,

	KEY_INT("cluster", "gpus_per_node", cluster.gpus_per_node, POS_AUTO,
		1, WL_GPUS_PER_NODE_MAX),
	/* at least 1 MB/s, a thousandth of 10 Gb Ethernet: slower links
	   make collectives of any model take longer than a double can say
	   in joules (1e-300B/s was a "not finite" internal error) */
	KEY_QTYL("cluster", "intra_bw", cluster.intra_bw_bytes_per_s,
		 WLK_UNSET0, UNIT_BANDWIDTH, WL_MIN_BW_BYTES_PER_S),
	KEY_QTYL("cluster", "inter_bw", cluster.inter_bw_bytes_per_s,
		 WLK_UNSET0, UNIT_BANDWIDTH, WL_MIN_BW_BYTES_PER_S),
	KEY_NUM("cluster", "pue", cluster.pue, 0, 1, 3),
	KEY_QTYM("cluster", "price_per_gpu_hour",
		 cluster.price_usd_per_gpu_hour, QTY_POS, UNIT_MONEY, 1e6),
	KEY_QTYM("cluster", "price_per_kwh", cluster.price_usd_per_kwh, 0,
		 UNIT_MONEY, 1e3),
	KEY_NUM("cluster", "host_overhead", cluster.host_overhead, 0, 0, 5),
	/* one failure per GPU-hour: every GPU of a job failing each hour is
	   past any cluster that trains */
	KEY_NUM("cluster", "failures_per_gpu_hour",
		cluster.failures_per_gpu_hour, 0, 0, 1),
	KEY_QTYM("cluster", "restart_time", cluster.restart_s, 0, UNIT_TIME,
		 604800.0),
	KEY_QTYL("cluster", "storage_bw", cluster.storage_bw_bytes_per_s,
		 0, UNIT_BANDWIDTH, WL_MIN_BW_BYTES_PER_S),
	KEY_NUM("cluster", "maintenance", cluster.maintenance, 0, 0, 0.5),
	/* optimizer offload: the host's memory, link and CPUs */
	KEY_QTYM("cluster", "host_memory", cluster.host_memory_bytes, QTY_POS,
		 UNIT_BYTES, 1e16),
	KEY_QTYL("cluster", "host_link_bw", cluster.host_link_bw_bytes_per_s,
		 WLK_UNSET0, UNIT_BANDWIDTH, WL_MIN_BW_BYTES_PER_S),
	/* a thousand parameters per second: slower makes a step's time
	   overflow like the slowest link */
	KEY_QTYL("cluster", "cpu_adam_rate", cluster.cpu_adam_params_per_s, 0,
		 UNIT_COUNT, 1e3),
	/* ownership (TCO): bounds keep the effective price finite and far
	   beyond any real purchase, lifetime or rent */
	KEY_ENUM("cluster", "pricing", cluster.pricing, WLT_INTENUM,
		 pricing_names),
	KEY_QTYM("cluster", "capex_per_gpu", cluster.capex_usd_per_gpu,
		 QTY_POS, UNIT_MONEY, 1e8),
	KEY_NUM("cluster", "amortization_years", cluster.amortization_years,
		0, 0.25, 30),
	KEY_QTYM("cluster", "hosting_per_kw_month",
		 cluster.hosting_usd_per_kw_month, 0, UNIT_MONEY, 1e5),
	WL_SAMPLE_CLUSTER_KEYS,
};

#define WL_KEY_COUNT ARRAY_SIZE(wl_keys)
_Static_assert(ARRAY_SIZE(wl_keys) <= WL_GIVEN_MAX,
	       "struct workload's 'given' must cover every key");

/* Where a value came from, for messages. */
struct wl_where {
	const char *file;
	int line;
	int col;
};

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
	wl->inference.chunked_prefill = true;
	wl->inference.kv_block_tokens = 16;
	wl->inference.scheduler_steps = 1;
	wl->inference.kernel_overhead_s = WL_KERNEL_OVERHEAD_S;
	wl->inference.draft_cost_ratio = WL_DRAFT_COST_RATIO;
	wl->inference.disaggregated = false;
	wl->inference.prefill_replicas = WL_AUTO;
	wl->inference.decode_replicas = WL_AUTO;
	wl->inference.prefill_tp = WL_AUTO;
	wl->inference.decode_tp = WL_AUTO;

	wl->cluster.gpus_per_node = WL_AUTO;
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

static bool section_known(const char *s, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(wl_sections); i++)
		if (strlen(wl_sections[i]) == len &&
		    memcmp(wl_sections[i], s, len) == 0)
			return true;
	return false;
}

static int key_find(const char *section, const char *key)
{
	for (size_t i = 0; i < WL_KEY_COUNT; i++)
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

/* The key of 'section' closest to 'key', or NULL when none is close. */
static const struct wl_key *key_closest(const char *section, const char *key)
{
	const struct wl_key *best = NULL;
	size_t best_d = SIZE_MAX, len = strlen(key);

	for (size_t i = 0; i < WL_KEY_COUNT; i++) {
		size_t d;

		if (strcmp(wl_keys[i].section, section) != 0)
			continue;
		d = edit_distance(key, wl_keys[i].key);
		if (d < best_d) {
			best_d = d;
			best = &wl_keys[i];
		}
	}
	if (best && (best_d <= 2 || best_d * 3 <= len))
		return best;
	return NULL;
}

/* "key", or "section.key" when another section has a key of that name. */
static const char *key_label(const struct wl_key *k, char *buf, size_t size)
{
	for (size_t i = 0; i < WL_KEY_COUNT; i++) {
		if (&wl_keys[i] != k && strcmp(wl_keys[i].key, k->key) == 0) {
			snprintf(buf, size, "%s.%s", k->section, k->key);
			return buf;
		}
	}
	return k->key;
}

/* ---------------------------------------------------------------------
 * Values
 */

static void *key_field(const struct wl_key *k, struct workload *wl)
{
	return (char *)wl + k->offset;
}

static const void *key_cfield(const struct wl_key *k,
			      const struct workload *wl)
{
	return (const char *)wl + k->offset;
}

static bool key_is_enum(const struct wl_key *k)
{
	return k->type >= WLT_PRECISION;
}

static void enum_store(const struct wl_key *k, struct workload *wl, int v)
{
	void *f = key_field(k, wl);

	switch (k->type) {
	case WLT_PRECISION:
		*(enum precision *)f = (enum precision)v;
		break;
	case WLT_RECOMPUTE:
		*(enum recompute *)f = (enum recompute)v;
		break;
	case WLT_OPTIMIZER:
		*(enum optimizer *)f = (enum optimizer)v;
		break;
	case WLT_ATTENTION:
		*(enum attention_impl *)f = (enum attention_impl)v;
		break;
	case WLT_KIND:
		*(enum model_kind *)f = (enum model_kind)v;
		break;
	case WLT_PERCENTILE:
		*(enum slo_percentile *)f = (enum slo_percentile)v;
		break;
	case WLT_SPARSITY:
		*(bool *)f = v != 0;
		break;
	case WLT_INTENUM:
		*(int *)f = v;
		break;
	default:
		break;
	}
}

static int enum_load(const struct wl_key *k, const struct workload *wl)
{
	const void *f = key_cfield(k, wl);

	switch (k->type) {
	case WLT_PRECISION:
		return (int)*(const enum precision *)f;
	case WLT_RECOMPUTE:
		return (int)*(const enum recompute *)f;
	case WLT_OPTIMIZER:
		return (int)*(const enum optimizer *)f;
	case WLT_ATTENTION:
		return (int)*(const enum attention_impl *)f;
	case WLT_KIND:
		return (int)*(const enum model_kind *)f;
	case WLT_PERCENTILE:
		return (int)*(const enum slo_percentile *)f;
	case WLT_SPARSITY:
		return *(const bool *)f ? 1 : 0;
	case WLT_INTENUM:
		return *(const int *)f;
	default:
		return -1;
	}
}

/* Index of 'text' in 'names' (case-insensitive), or -1. */
static int names_find(const struct wl_name *names, const char *text)
{
	for (int i = 0; names[i].name; i++)
		if (strcasecmp(names[i].name, text) == 0)
			return i;
	return -1;
}

static bool names_have(const struct wl_name *names, int value)
{
	for (; names->name; names++)
		if (names->value == value)
			return true;
	return false;
}

/* "a, b, c" */
static void names_list(const struct wl_name *names, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; names[i].name && used < size; i++) {
		int n = snprintf(buf + used, size - used, "%s%s",
				 i ? ", " : "", names[i].name);

		if (n < 0)
			break;
		used += (size_t)n;
	}
}

/* What a key accepts, for messages: "a positive integer or 'auto'". */
static void key_describe(const struct wl_key *k, char *buf, size_t size)
{
	const char *noun = k->type == WLT_QUANTITY ? units_kind_name(k->unit)
						   : "number";
	const char *or_auto = k->flags & (WLK_AUTO | WLK_AUTO_NEG) ?
				      " or 'auto'" : "";
	int n;

	if (k->type == WLT_FRACTION) {
		snprintf(buf, size, "true, false, 'auto' or a fraction from "
			 "%g to %g", k->min, k->max);
		return;
	}
	if (k->type == WLT_INT) {
		if (k->min == 1 && k->max == INT_MAX)
			snprintf(buf, size, "a positive integer%s", or_auto);
		else
			snprintf(buf, size, "an integer from %d to %d%s",
				 (int)k->min, (int)k->max, or_auto);
		return;
	}
	if (isfinite(k->max) && k->type == WLT_QUANTITY) {
		char most[32];

		if (k->unit == UNIT_COUNT || k->unit == UNIT_MONEY)
			snprintf(most, sizeof(most), "%g", k->max);
		else
			units_format(most, sizeof(most), k->max, k->unit, 4);
		double ex;

		n = snprintf(buf, size, "a %s%s of at most %s",
			     (k->flags & WLK_GT) ? "positive " : "", noun, most);
		/* the kind's example, when it is in range */
		if (units_parse(units_example(k->unit), k->unit, &ex, NULL) ==
			    0 &&
		    ex <= k->max && n > 0 && (size_t)n < size)
			snprintf(buf + n, size - (size_t)n, " such as '%s'",
				 units_example(k->unit));
		return;
	}
	if (k->type == WLT_QUANTITY && k->min > 0 && !isfinite(k->max)) {
		char least[32];

		units_format(least, sizeof(least), k->min, k->unit, 4);
		snprintf(buf, size, "a %s of at least %s such as '%s'", noun,
			 least, units_example(k->unit));
		return;
	}
	if (isfinite(k->max) && (k->flags & WLK_GT))
		n = snprintf(buf, size, "a %s above %g, at most %g", noun,
			     k->min, k->max);
	else if (isfinite(k->max))
		n = snprintf(buf, size, "a %s from %g to %g", noun, k->min,
			     k->max);
	else if (k->min == 0 && (k->flags & WLK_GT))
		n = snprintf(buf, size, "a positive %s", noun);
	else if (k->min == 0)
		n = snprintf(buf, size, "a non-negative %s", noun);
	else
		n = snprintf(buf, size, "a %s of at least %g", noun, k->min);
	if (k->type == WLT_QUANTITY && n > 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, " such as '%s'",
			 units_example(k->unit));
}

static bool in_range(const struct wl_key *k, double v)
{
	if (k->flags & WLK_GT ? !(v > k->min) : !(v >= k->min))
		return false;
	return v <= k->max;
}

static int value_error(const struct wl_key *k, const char *label,
		       const char *text, const struct wl_where *at,
		       struct diag *err)
{
	char what[128];

	key_describe(k, what, sizeof(what));
	return diag_set(err, at->file, at->line, at->col,
			"'%s' must be %s, got '%s'", label, what, text);
}

static int parse_int(const struct wl_key *k, const char *text,
		     const char *label, int *out, const struct wl_where *at,
		     struct diag *err)
{
	char *end;
	long long v;

	if (k->flags & (WLK_AUTO | WLK_AUTO_NEG) &&
	    strcasecmp(text, "auto") == 0) {
		*out = k->flags & WLK_AUTO ? WL_AUTO : WL_AUTO_NEG;
		return 0;
	}
	errno = 0;
	v = strtoll(text, &end, 10);
	if (end == text || *end != '\0')
		return value_error(k, label, text, at, err);
	/* beyond long long, beyond int or beyond the key's bound: the
	   message gives the range */
	if (errno == ERANGE || !in_range(k, (double)v))
		return value_error(k, label, text, at, err);
	*out = (int)v;
	return 0;
}

static int parse_number(const struct wl_key *k, const char *text,
			const char *label, double *out,
			const struct wl_where *at, struct diag *err)
{
	char *end;
	double v;

	if ((k->flags & WLK_AUTO_NEG) && strcasecmp(text, "auto") == 0) {
		*out = WL_AUTO_NEG;
		return 0;
	}
	/* strtod would take hexadecimal floats; units_parse does not */
	if (strpbrk(text, "xX"))
		return value_error(k, label, text, at, err);
	errno = 0;
	v = strtod(text, &end);
	if (end == text || *end != '\0')
		return value_error(k, label, text, at, err);
	if (errno == ERANGE)
		return diag_set(err, at->file, at->line, at->col,
				"'%s' is out of range, got '%s'", label,
				text);
	if (isnan(v) || isinf(v))
		return diag_set(err, at->file, at->line, at->col,
				"'%s' must be a finite number, got '%s'",
				label, text);
	if (!in_range(k, v))
		return value_error(k, label, text, at, err);
	*out = v;
	return 0;
}

static int parse_quantity(const struct wl_key *k, const char *text,
			  const char *label, double *out,
			  const struct wl_where *at, struct diag *err)
{
	const char *why = NULL;
	char what[128];
	double v = 0;

	if ((k->flags & WLK_AUTO_NEG) && strcasecmp(text, "auto") == 0) {
		*out = WL_AUTO_NEG;
		return 0;
	}
	if (units_parse(text, k->unit, &v, &why) < 0) {
		key_describe(k, what, sizeof(what));
		return diag_set(err, at->file, at->line, at->col,
				"'%s' must be %s, got '%s': %s", label, what,
				text, why ? why : "invalid value");
	}
	if (!isfinite(v))
		return diag_set(err, at->file, at->line, at->col,
				"'%s' must be finite, got '%s'", label, text);
	if (!in_range(k, v))
		return value_error(k, label, text, at, err);
	*out = v;
	return 0;
}

/* A name is UTF-8 without control characters; the column of the first
   offending byte when the value's column is known. */
static int name_check(const char *text, const char *label,
		      const struct wl_where *at, struct diag *err)
{
	size_t off = 0;
	unsigned char byte = 0;
	int col;

	switch (text_check_name(text, strlen(text), &off, &byte)) {
	case TEXT_OK:
		return 0;
	case TEXT_CONTROL:
		col = at->col > 0 ? at->col + (int)off : 0;
		return diag_set(err, at->file, at->line, col,
				"'%s' contains a control character (0x%02x)",
				label, byte);
	case TEXT_BAD_UTF8:
	default:
		col = at->col > 0 ? at->col + (int)off : 0;
		return diag_set(err, at->file, at->line, col,
				"'%s' is not valid UTF-8 (byte 0x%02x)", label,
				byte);
	}
}

/*
 * A comma-separated list of 'k->names' (blanks around each allowed) into
 * the OR of their values; the column of an unknown or empty item.
 */
static int parse_flags(const struct wl_key *k, const char *text,
		       const char *label, int *out, const struct wl_where *at,
		       struct diag *err)
{
	char list[128], item[WL_WORD_MAX + 1];
	const char *p = text;
	int bits = 0;

	names_list(k->names, list, sizeof(list));
	for (;;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		size_t lead = 0, n;
		int i, col;

		while (lead < len && isspace((unsigned char)p[lead]))
			lead++;
		n = len - lead;
		while (n > 0 && isspace((unsigned char)p[lead + n - 1]))
			n--;
		col = at->col > 0 ? at->col + (int)(p - text) + (int)lead : 0;
		if (n == 0 || n > WL_WORD_MAX)
			return diag_set(err, at->file, at->line, col,
					"'%s' must be a comma-separated list "
					"of %s, got '%s'",
					label, list, text);
		memcpy(item, p + lead, n);
		item[n] = '\0';
		i = names_find(k->names, item);
		if (i < 0)
			return diag_set(err, at->file, at->line, col,
					"'%s': unknown item '%s'; expected "
					"%s",
					label, item, list);
		bits |= k->names[i].value;
		if (!end)
			break;
		p = end + 1;
	}
	*out = bits;
	return 0;
}

/*
 * Parse 'text' (blanks already stripped) for key 'k' and store it in 'wl'.
 * 'label' names the key in messages.
 */
static int key_parse(const struct wl_key *k, const char *text,
		     const char *label, struct workload *wl,
		     const struct wl_where *at, struct diag *err)
{
	void *f = key_field(k, wl);
	char list[128];
	size_t len = strlen(text);
	int i;

	if (len == 0)
		return diag_set(err, at->file, at->line, at->col,
				"empty value for '%s'", label);

	switch (k->type) {
	case WLT_STRING: {
		/* 'max' holds the buffer size where it is not WL_NAME_MAX */
		size_t size = k->max > 0 ? (size_t)k->max : WL_NAME_MAX;

		if (len >= size)
			return diag_set(err, at->file, at->line, at->col,
					"'%s' is too long (at most %zu bytes)",
					label, size - 1);
		/* a name reaches tables, JSON and SVG: text only (paths
		   are the file system's business) */
		if (k->offset == WL_OFF(model.name) &&
		    name_check(text, label, at, err) < 0)
			return -1;
	}
		memcpy(f, text, len + 1);
		return 0;
	case WLT_INT:
		return parse_int(k, text, label, f, at, err);
	case WLT_BOOL:
		i = names_find(k->names, text);
		if (i < 0)
			return diag_set(err, at->file, at->line, at->col,
					"'%s' must be true or false (yes/no, "
					"on/off, 1/0), got '%s'",
					label, text);
		*(bool *)f = k->names[i].value != 0;
		return 0;
	case WLT_TRISTATE:
		if (strcasecmp(text, "auto") == 0) {
			*(int *)f = WL_AUTO_NEG;
			return 0;
		}
		i = names_find(k->names, text);
		if (i < 0)
			return diag_set(err, at->file, at->line, at->col,
					"'%s' must be true, false or auto, "
					"got '%s'", label, text);
		*(int *)f = k->names[i].value;
		return 0;
	case WLT_FRACTION:
		if (strcasecmp(text, "auto") == 0) {
			*(double *)f = WL_OFFLOAD_AUTO;
			return 0;
		}
		i = names_find(k->names, text);
		if (i >= 0) {
			*(double *)f = k->names[i].value;
			return 0;
		}
		return parse_number(k, text, label, f, at, err);
	case WLT_NUMBER:
		return parse_number(k, text, label, f, at, err);
	case WLT_QUANTITY:
		return parse_quantity(k, text, label, f, at, err);
	case WLT_FLAGS:
		return parse_flags(k, text, label, f, at, err);
	case WLT_WIDTHS: {
		char why[128];
		size_t off = 0;

		if (wl_parse_widths(text, f, &off, why, sizeof(why)) < 0)
			return diag_set(err, at->file, at->line,
					at->col > 0 ? at->col + (int)off : 0,
					"'%s' must be a comma-separated list "
					"of layer widths such as "
					"'512,256,128': %s, got '%s'",
					label, why, text);
		return 0;
	}
	default:
		break;
	}
	i = names_find(k->names, text);
	if (i < 0) {
		names_list(k->names, list, sizeof(list));
		return diag_set(err, at->file, at->line, at->col,
				"'%s' must be one of %s, got '%s'", label,
				list, text);
	}
	enum_store(k, wl, k->names[i].value);
	return 0;
}

/* ---------------------------------------------------------------------
 * INI reading
 */

struct ini_ctx {
	const char *buf;   /* text after any BOM */
	size_t len;
	size_t pos;        /* start of the next line */
	int lineno;        /* physical line of 'line', 1-based */
	const char *line;  /* current line, without its terminator */
	size_t line_len;
	const char *file;  /* for messages */
	struct workload *wl;
	struct diag err;   /* the first error, in line order */
	int seen[WL_KEY_COUNT]; /* line where each key was given, 0 if not */
};

static bool is_blank(char c)
{
	return isspace((unsigned char)c) != 0;
}

/* Offset of the first non-blank byte of a line, or 'len' when none. */
static size_t skip_blanks(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && is_blank(s[i]))
		i++;
	return i;
}

/*
 * Checks inih does not make: indented lines (which inih would take as the
 * continuation of the previous value) and section headers, which are
 * checked here so that empty unknown sections are caught too.
 */
static int check_line(struct ini_ctx *c)
{
	const char *s = c->line;
	size_t len = c->line_len, i = skip_blanks(s, len), j, name_len;

	if (i == len || s[i] == ';' || s[i] == '#')
		return 0;
	if (i > 0)
		return diag_set(&c->err, c->file, c->lineno, (int)i + 1,
				"unexpected indented line (continuation "
				"lines are not supported)");
	if (s[0] != '[')
		return 0;
	for (j = 1; j < len && s[j] != ']'; j++)
		;
	if (j == len)
		return diag_set(&c->err, c->file, c->lineno, 1,
				"unterminated section header '%.*s'",
				(int)len, s);
	name_len = j - 1;
	if (!section_known(s + 1, name_len))
		return diag_set(&c->err, c->file, c->lineno, 1,
				"unknown section '[%.*s]'; expected one of "
				"[model], [training], [inference], [cluster]",
				(int)name_len, s + 1);
	j += 1 + skip_blanks(s + j + 1, len - j - 1);
	if (j < len && s[j] != ';' && s[j] != '#')
		return diag_set(&c->err, c->file, c->lineno, (int)j + 1,
				"unexpected text after section header "
				"'[%.*s]'", (int)name_len, s + 1);
	return 0;
}

/* inih reader: one physical line per call, checked first. */
static char *ini_read_line(char *str, int num, void *stream)
{
	struct ini_ctx *c = stream;
	const char *p, *nl, *nul;
	size_t n, body;

	if (diag_has_error(&c->err) || c->pos >= c->len)
		return NULL;
	p = c->buf + c->pos;
	nl = memchr(p, '\n', c->len - c->pos);
	n = nl ? (size_t)(nl - p) + 1 : c->len - c->pos;
	c->pos += n;
	c->lineno++;
	body = nl ? n - 1 : n;
	if (body > 0 && p[body - 1] == '\r')
		body--;
	c->line = p;
	c->line_len = body;

	nul = memchr(p, '\0', body);
	if (nul) {
		diag_set(&c->err, c->file, c->lineno, (int)(nul - p) + 1,
			 "NUL byte in a text file");
		return NULL;
	}
	if (body > WL_LINE_MAX || num < 2 || body + 2 > (size_t)num) {
		/* a long path has a way round the line buffer */
		static const char *const paths[] = { "model.hf_config",
						     "model.onnx",
						     "inference.trace" };
		const char *hint = "";

		for (size_t i = 0; i < ARRAY_SIZE(paths); i++) {
			const char *key = strchr(paths[i], '.') + 1;
			size_t k = strlen(key), at = skip_blanks(p, body);

			if (body - at > k && strncmp(p + at, key, k) == 0 &&
			    (is_blank(p[at + k]) || p[at + k] == '=' ||
			     p[at + k] == ':'))
				hint = paths[i];
		}
		if (hint[0])
			diag_set(&c->err, c->file, c->lineno, 0,
				 "line is too long (%zu bytes; at most %d); a "
				 "longer path goes through --set %s=PATH",
				 body, WL_LINE_MAX, hint);
		else
			diag_set(&c->err, c->file, c->lineno, 0,
				 "line is too long (%zu bytes; at most %d)",
				 body, WL_LINE_MAX);
		return NULL;
	}
	if (check_line(c) < 0)
		return NULL;
	memcpy(str, p, body);
	str[body] = '\n';
	str[body + 1] = '\0';
	return str;
}

static int line_key_col(const struct ini_ctx *c)
{
	return (int)skip_blanks(c->line, c->line_len) + 1;
}

/* Column of the value: after the first '=' or ':' (as inih splits). */
static int line_value_col(const struct ini_ctx *c)
{
	size_t i = 0;

	while (i < c->line_len && c->line[i] != '=' && c->line[i] != ':')
		i++;
	if (i == c->line_len)
		return 0;
	i++;
	i += skip_blanks(c->line + i, c->line_len - i);
	return (int)i + 1;
}

static int ini_on_value(void *user, const char *section, const char *name,
			const char *value)
{
	struct ini_ctx *c = user;
	const struct wl_key *k, *near;
	struct wl_where at = { c->file, c->lineno, line_key_col(c) };
	int idx;

	if (section[0] == '\0') {
		diag_set(&c->err, at.file, at.line, at.col,
			 "key '%s' is outside any section; put it under "
			 "[model], [training], [inference] or [cluster]",
			 name);
		return 0;
	}
	if (name[0] == '\0') {
		diag_set(&c->err, at.file, at.line, at.col,
			 "missing key before '='");
		return 0;
	}
	idx = key_find(section, name);
	if (idx < 0) {
		near = key_closest(section, name);
		if (near)
			diag_set(&c->err, at.file, at.line, at.col,
				 "unknown key '%s' in [%s]; did you mean "
				 "'%s'?", name, section, near->key);
		else
			diag_set(&c->err, at.file, at.line, at.col,
				 "unknown key '%s' in [%s]", name, section);
		return 0;
	}
	k = &wl_keys[idx];
	if (c->seen[idx]) {
		diag_set(&c->err, at.file, at.line, at.col,
			 "duplicate key '%s' in [%s]; first given on line %d",
			 name, section, c->seen[idx]);
		return 0;
	}
	c->seen[idx] = c->lineno;
	c->wl->given[idx] = 1;
	at.col = line_value_col(c);
	return key_parse(k, value, k->key, c->wl, &at, &c->err) == 0;
}

/* Report inih's syntax error on line 'lineno' (no '=' on a key line). */
static void syntax_error(struct ini_ctx *c, int lineno)
{
	const char *p = c->buf, *end = c->buf + c->len, *nl;
	size_t len, i;

	for (int l = 1; l < lineno && p < end; l++) {
		nl = memchr(p, '\n', (size_t)(end - p));
		p = nl ? nl + 1 : end;
	}
	nl = memchr(p, '\n', (size_t)(end - p));
	len = nl ? (size_t)(nl - p) : (size_t)(end - p);
	if (len > 0 && p[len - 1] == '\r')
		len--;
	i = skip_blanks(p, len);
	diag_clear(&c->err);
	diag_set(&c->err, c->file, lineno, (int)i + 1,
		 "expected 'key = value' or '[section]', got '%.*s'",
		 (int)(len - i), p + i);
}

static int find_key_index(const char *section, const char *key)
{
	int i = key_find(section, key);

	return i < 0 ? 0 : i;
}

/*
 * Apply the file a key of the workload 'name' names ('value', relative to
 * the workload's folder unless absolute; the key is on 'line'): 'apply'
 * reads it into 'wl'.  Its errors are reported where they are, or at the
 * key.
 */
static int apply_file_key(struct workload *wl, const char *name, int line,
			  const char *label, const char *value,
			  int (*apply)(struct workload *, const char *,
				       struct diag *),
			  struct diag *err)
{
	char path[WL_PATH_MAX];
	const char *slash = name ? strrchr(name, '/') : NULL;
	struct diag file_err;
	int plen;

	if (value[0] == '/' || !slash)
		plen = snprintf(path, sizeof(path), "%s", value);
	else
		plen = snprintf(path, sizeof(path), "%.*s/%s",
				(int)(slash - name), name, value);
	/* the path is kept in the spec: never store a cut one */
	if (plen < 0 || (size_t)plen >= sizeof(path))
		return diag_set(err, name, line, 0,
				"'%s': the path, joined to the workload's "
				"folder, is longer than %zu bytes",
				label, sizeof(path) - 1);
	diag_clear(&file_err);
	if (apply(wl, path, &file_err) == 0)
		return 0;
	/* an unreadable file is reported where it is named */
	if (file_err.file[0])
		return diag_set_kind(err, file_err.kind, file_err.file,
				     file_err.line, file_err.col, "%s",
				     file_err.msg);
	return diag_set_kind(err, file_err.kind, name, line, 0, "%s",
			     file_err.msg);
}

int workload_parse(const char *buf, size_t len, const char *name,
		   struct workload *wl, struct diag *err)
{
	static const char bom[] = "\xEF\xBB\xBF";
	struct ini_ctx c;
	struct workload tmp = *wl;
	int r, weight, kv, hf, ox, tr;

	memset(&c, 0, sizeof(c));
	if (name)
		snprintf(tmp.file, sizeof(tmp.file), "%s", name);
	if (len >= 3 && memcmp(buf, bom, 3) == 0) {
		buf += 3;
		len -= 3;
	}
	c.buf = buf;
	c.len = len;
	c.file = name;
	c.wl = &tmp;

	r = ini_parse_stream(ini_read_line, &c, ini_on_value, &c);
	if (r == -2)
		return diag_set(err, name, 0, 0, "out of memory");
	if (r > 0 && (!diag_has_error(&c.err) || c.err.line > r))
		syntax_error(&c, r);
	else if (r < 0 && !diag_has_error(&c.err))
		diag_set(&c.err, name, 0, 0, "cannot parse");
	if (diag_has_error(&c.err))
		return diag_set(err, c.err.file[0] ? c.err.file : NULL,
				c.err.line, c.err.col, "%s", c.err.msg);

	weight = find_key_index("inference", "weight_precision");
	kv = find_key_index("inference", "kv_precision");
	if (c.seen[weight] && !c.seen[kv])
		tmp.inference.kv_precision =
			kv_following(tmp.inference.weight_precision);
	hf = find_key_index("model", "hf_config");
	if (c.seen[hf] &&
	    apply_file_key(&tmp, name, c.seen[hf], "model.hf_config",
			   tmp.model.hf_config, workload_apply_hf_config,
			   err) != 0)
		return -1;
	ox = find_key_index("model", "onnx");
	if (c.seen[ox] &&
	    apply_file_key(&tmp, name, c.seen[ox], "model.onnx",
			   tmp.model.onnx, workload_apply_onnx, err) != 0)
		return -1;
	tr = find_key_index("inference", "trace");
	if (c.seen[tr] && tmp.inference.trace[0] != '/') {
		/* a relative path is relative to the workload's folder */
		const char *slash = name ? strrchr(name, '/') : NULL;
		char path[sizeof(tmp.inference.trace)];
		int plen;

		if (slash) {
			plen = snprintf(path, sizeof(path), "%.*s/%s",
					(int)(slash - name), name,
					tmp.inference.trace);
			if (plen < 0 || (size_t)plen >= sizeof(path))
				return diag_set(err, name, c.seen[tr], 0,
						"'inference.trace': the path, "
						"joined to the workload's "
						"folder, is longer than %zu "
						"bytes", sizeof(path) - 1);
			memcpy(tmp.inference.trace, path, (size_t)plen + 1);
		}
	}
	*wl = tmp;
	return 0;
}

int workload_load_file(const char *path, struct workload *wl,
		       struct diag *err)
{
	char *buf;
	size_t len;
	int ret;

	/* named on the command line: a FIFO (<(...)) reads too */
	if (readfile_all(path, READFILE_ANY, WL_FILE_MAX, &buf, &len, err) != 0)
		return -1;
	ret = workload_parse(buf, len, path, wl, err);
	free(buf);
	return ret;
}

/* ---------------------------------------------------------------------
 * --set
 */

/* Strip blanks at both ends of 's' in place; returns the new start. */
static char *trim(char *s)
{
	size_t len;

	while (is_blank(*s))
		s++;
	len = strlen(s);
	while (len > 0 && is_blank(s[len - 1]))
		s[--len] = '\0';
	return s;
}

int workload_set(struct workload *wl, const char *expr, struct diag *err)
{
	static const char *const file = "--set";
	const struct wl_key *k, *near;
	struct wl_where at = { file, 0, 0 };
	char copy[WL_SET_MAX], label[WL_SET_MAX], *eq, *dot, *section, *key;
	char *value;
	struct workload tmp = *wl;
	enum precision old_weight = wl->inference.weight_precision;
	int idx;

	if (strlen(expr) >= sizeof(copy))
		return diag_set(err, file, 0, 0,
				"expression is too long (at most %d bytes)",
				WL_SET_MAX - 1);
	memcpy(copy, expr, strlen(expr) + 1);
	eq = strchr(copy, '=');
	if (!eq)
		return diag_set(err, file, 0, 0,
				"expected 'section.key=value', got '%s'",
				expr);
	dot = memchr(copy, '.', (size_t)(eq - copy));
	if (!dot) {
		*eq = '\0';
		key = trim(copy);
		for (size_t i = 0; i < WL_KEY_COUNT; i++)
			if (strcmp(wl_keys[i].key, key) == 0)
				return diag_set(err, file, 0, 0,
						"expected 'section.key=value', "
						"got '%s'; did you mean "
						"'%s.%s'?", expr,
						wl_keys[i].section, key);
		return diag_set(err, file, 0, 0,
				"expected 'section.key=value', got '%s'",
				expr);
	}
	*eq = '\0';
	*dot = '\0';
	section = trim(copy);
	key = trim(dot + 1);
	value = trim(eq + 1);
	if (!section_known(section, strlen(section)))
		return diag_set(err, file, 0, 0,
				"unknown section '%s'; expected one of model, "
				"training, inference, cluster", section);
	idx = key_find(section, key);
	if (idx < 0) {
		near = key_closest(section, key);
		if (near)
			return diag_set(err, file, 0, 0,
					"unknown key '%s.%s'; did you mean "
					"'%s.%s'?", section, key,
					near->section, near->key);
		return diag_set(err, file, 0, 0, "unknown key '%s.%s'",
				section, key);
	}
	k = &wl_keys[idx];
	snprintf(label, sizeof(label), "%s.%s", k->section, k->key);
	if (key_parse(k, value, label, &tmp, &at, err) < 0)
		return -1;
	tmp.given[idx] = 1;
	if (k->offset == WL_OFF(inference.weight_precision) &&
	    tmp.inference.kv_precision == kv_following(old_weight))
		tmp.inference.kv_precision =
			kv_following(tmp.inference.weight_precision);
	if (k->offset == WL_OFF(model.hf_config) &&
	    workload_apply_hf_config(&tmp, tmp.model.hf_config, err) != 0)
		return -1;
	if (k->offset == WL_OFF(model.onnx) &&
	    workload_apply_onnx(&tmp, tmp.model.onnx, err) != 0)
		return -1;
	*wl = tmp;
	return 0;
}

int workload_apply_onnx(struct workload *wl, const char *path,
			struct diag *err)
{
	struct model_spec *m = &wl->model;

	if (onnx_summary_load(path, &m->graph, err) != 0)
		return -1;
	/* the graph is the network: what the per-sample form would give
	   follows from it (activations as 16-bit elements, for reports) */
	m->kind = MODEL_GENERIC;
	m->params = m->graph.params;
	m->flops_per_sample = m->graph.flops;
	m->activation_bytes_per_sample = 2.0 * m->graph.saved_elems;
	if (path != m->onnx)
		snprintf(m->onnx, sizeof(m->onnx), "%s", path);
	return 0;
}

int workload_apply_hf_config(struct workload *wl, const char *path,
			     struct diag *err)
{
	struct model_spec json = wl->model;
	char what[128];
	int v;

	if (hf_config_load(path, &json, err) != 0)
		return -1;
	/* the JSON's integers are positive; the keys' bounds apply to them
	   as to values in the file (0: a field the JSON left out) */
	for (size_t i = 0; i < WL_KEY_COUNT; i++) {
		const struct wl_key *k = &wl_keys[i];

		if (k->type != WLT_INT || strcmp(k->section, "model") != 0 ||
		    wl->given[i])
			continue;
		memcpy(&v, (const char *)&json + (k->offset - WL_OFF(model)),
		       sizeof(int));
		if (v != 0 && !in_range(k, v)) {
			key_describe(k, what, sizeof(what));
			return diag_set(err, path, 0, 0,
					"'%s' must be %s, got %d", k->key,
					what, v);
		}
	}
	for (size_t i = 0; i < WL_KEY_COUNT; i++) {
		const struct wl_key *k = &wl_keys[i];
		char *dst = (char *)wl + k->offset;
		const char *src;

		if (strcmp(k->section, "model") != 0 || wl->given[i] ||
		    k->offset == WL_OFF(model.name) ||
		    k->offset == WL_OFF(model.params) ||
		    k->offset == WL_OFF(model.hf_config))
			continue;
		src = (const char *)&json + (k->offset - WL_OFF(model));
		switch (k->type) {
		case WLT_INT:
			memcpy(dst, src, sizeof(int));
			break;
		case WLT_BOOL:
			memcpy(dst, src, sizeof(bool));
			break;
		default:
			break;
		}
	}
	/* 'path' may be this very buffer (workload_set passes it) */
	if (path != wl->model.hf_config)
		snprintf(wl->model.hf_config, sizeof(wl->model.hf_config),
			 "%s", path);
	return 0;
}

/* ---------------------------------------------------------------------
 * Validation
 */

/* The value of every key is one the file could have given (or unset). */
static int key_check(const struct wl_key *k, const struct workload *wl,
		     const char *file, struct diag *err)
{
	const void *f = key_cfield(k, wl);
	char lbuf[64], what[128], list[128];
	const char *label = key_label(k, lbuf, sizeof(lbuf));
	double d;
	int v;

	if (key_is_enum(k)) {
		v = enum_load(k, wl);
		if (names_have(k->names, v))
			return 0;
		names_list(k->names, list, sizeof(list));
		return diag_set(err, file, 0, 0,
				"'%s' must be one of %s, got %d", label, list,
				v);
	}
	switch (k->type) {
	case WLT_INT:
		v = *(const int *)f;
		if (((k->flags & (WLK_AUTO | WLK_UNSET0)) && v == 0) ||
		    ((k->flags & WLK_AUTO_NEG) && v == WL_AUTO_NEG) ||
		    in_range(k, v))
			return 0;
		key_describe(k, what, sizeof(what));
		return diag_set(err, file, 0, 0, "'%s' must be %s, got %d",
				label, what, v);
	case WLT_FLAGS: {
		int all = 0;

		v = *(const int *)f;
		for (int i = 0; k->names[i].name; i++)
			all |= k->names[i].value;
		if (v >= 0 && (v & ~all) == 0)
			return 0;
		names_list(k->names, list, sizeof(list));
		return diag_set(err, file, 0, 0,
				"'%s' must be a set of %s, got %d", label,
				list, v);
	}
	case WLT_WIDTHS: {
		const struct wl_widths *w = f;
		bool ok = w->n >= 0 && w->n <= WL_MLP_LAYERS_MAX;

		for (int i = 0; ok && i < w->n; i++)
			ok = in_range(k, w->width[i]);
		if (ok)
			return 0;
		return diag_set(err, file, 0, 0,
				"'%s' must be at most %d layer widths from 1 "
				"to %d", label, WL_MLP_LAYERS_MAX,
				WL_MLP_WIDTH_MAX);
	}
	case WLT_TRISTATE:
		v = *(const int *)f;
		if (v == 0 || v == 1 || v == WL_AUTO_NEG)
			return 0;
		return diag_set(err, file, 0, 0,
				"'%s' must be true, false or auto, got %d",
				label, v);
	case WLT_FRACTION:
	case WLT_NUMBER:
	case WLT_QUANTITY:
		d = *(const double *)f;
		if (k->type == WLT_FRACTION && d == WL_OFFLOAD_AUTO)
			return 0;
		if (isfinite(d) &&
		    (((k->flags & WLK_UNSET0) && d == 0) ||
		     ((k->flags & WLK_AUTO_NEG) && d == WL_AUTO_NEG) ||
		     in_range(k, d)))
			return 0;
		key_describe(k, what, sizeof(what));
		return diag_set(err, file, 0, 0, "'%s' must be %s, got %g",
				label, what, d);
	default:
		return 0;
	}
}

static int check_tp(const char *label, int tp, const struct model_spec *m,
		    const char *file, struct diag *err)
{
	int kv = m->kv_heads > 0 ? m->kv_heads : m->heads;

	if (tp <= 0 || m->heads <= 0)
		return 0;
	if (m->heads % tp != 0)
		return diag_set(err, file, 0, 0,
				"'%s' (%d) must divide 'heads' (%d)", label,
				tp, m->heads);
	if (tp % kv != 0 && kv % tp != 0)
		return diag_set(err, file, 0, 0,
				"'%s' (%d) and 'kv_heads' (%d) must divide "
				"one another", label, tp, kv);
	return 0;
}

static int check_model(const struct model_spec *m, const char *file,
		       struct diag *err)
{
	if (m->kind == MODEL_GENERIC) {
		if (!(m->params > 0) || !(m->flops_per_sample > 0))
			return diag_set(err, file, 0, 0,
					"a generic model needs [model] params "
					"and flops_per_sample (and, for its "
					"memory, activation_bytes_per_sample)");
		return 0;
	}
	if (m->kind == MODEL_RECSYS)
		return 0; /* wl_check_recsys */
	if (!model_has_arch(m) && !(m->params > 0)) {
		if (m->layers || m->hidden || m->heads || m->vocab ||
		    m->seq_len)
			return diag_set(err, file, 0, 0,
					"incomplete model: give [model] "
					"layers, hidden, heads, vocab and "
					"seq_len, or params");
		return diag_set(err, file, 0, 0,
				"no model: give [model] layers, hidden, "
				"heads, vocab, seq_len or params");
	}
	if (m->heads > 0 && m->hidden > 0 && m->head_dim == 0 &&
	    m->hidden % m->heads != 0)
		return diag_set(err, file, 0, 0,
				"'heads' (%d) must divide 'hidden' (%d), or "
				"give 'head_dim'", m->heads, m->hidden);
	if (m->experts > 0) {
		if (m->experts_per_token > m->experts)
			return diag_set(err, file, 0, 0,
					"'experts_per_token' (%d) must not "
					"exceed 'experts' (%d)",
					m->experts_per_token, m->experts);
		if (m->layers > 0 && m->dense_layers >= m->layers)
			return diag_set(err, file, 0, 0,
					"'dense_layers' (%d) must be fewer "
					"than 'layers' (%d)", m->dense_layers,
					m->layers);
	} else if (m->experts_per_token || m->shared_experts ||
		   m->expert_ffn_hidden || m->dense_layers) {
		return diag_set(err, file, 0, 0,
				"'experts_per_token', 'shared_experts', "
				"'expert_ffn_hidden' and 'dense_layers' need "
				"'experts'");
	}
	if (m->kv_lora_rank == 0 &&
	    (m->q_lora_rank || m->rope_head_dim || m->v_head_dim))
		return diag_set(err, file, 0, 0,
				"'q_lora_rank', 'rope_head_dim' and "
				"'v_head_dim' need 'kv_lora_rank' (multi-head "
				"latent attention)");
	if (m->kv_heads > 0 && m->heads > 0) {
		if (m->kv_heads > m->heads)
			return diag_set(err, file, 0, 0,
					"'kv_heads' (%d) must not exceed "
					"'heads' (%d)", m->kv_heads, m->heads);
		if (m->heads % m->kv_heads != 0)
			return diag_set(err, file, 0, 0,
					"'kv_heads' (%d) must divide 'heads' "
					"(%d)", m->kv_heads, m->heads);
	}
	return 0;
}

/* first_stage_layers and last_stage_layers against layers, pp and vp
   (train_config.h: train_stage_split); open keys count at their least. */
static int check_stages(const struct training_spec *t,
			const struct model_spec *m, const char *file,
			struct diag *err)
{
	int f = t->first_stage_layers, l = t->last_stage_layers;
	int vp = t->vp > 0 ? t->vp : 1, lo = vp > 2 ? vp - 1 : 1;
	const char *key = f > 0 ? "first_stage_layers" : "last_stage_layers";
	int given = f > 0 ? f : l;
	long long middle, left;

	if (f == 0 && l == 0)
		return 0;
	if (m->layers > 0 && (f > m->layers || l > m->layers))
		return diag_set(err, file, 0, 0,
				"'%s' (%d) must not exceed 'layers' (%d)",
				f > m->layers ? "first_stage_layers" :
						"last_stage_layers",
				f > m->layers ? f : l, m->layers);
	if (t->pp == 1) {
		if (m->layers > 0 &&
		    ((f > 0 && f != m->layers) || (l > 0 && l != m->layers)))
			return diag_set(err, file, 0, 0,
					"'%s' (%d) must be 'layers' (%d) "
					"when 'pp' is 1: the one stage is the "
					"first and the last",
					f > 0 && f != m->layers ?
						"first_stage_layers" :
						"last_stage_layers",
					f > 0 && f != m->layers ? f : l,
					m->layers);
		return 0;
	}
	if (m->layers > 0 && f > 0 && l > 0 && (long long)f + l > m->layers)
		return diag_set(err, file, 0, 0,
				"'first_stage_layers' + 'last_stage_layers' "
				"(%d+%d) must not exceed 'layers' (%d)", f, l,
				m->layers);
	if ((f > 0 && f < lo) || (l > 0 && l < lo))
		return diag_set(err, file, 0, 0,
				"'%s' (%d) must be at least vp-1 (%d) with "
				"'vp' %d: a layer per chunk, but one chunk "
				"that holds only the %s",
				f > 0 && f < lo ? "first_stage_layers" :
						  "last_stage_layers",
				f > 0 && f < lo ? f : l, lo, vp,
				f > 0 && f < lo ? "embedding" :
						  "output layer");
	if (t->pp == 0 || m->layers == 0)
		return 0; /* pp open: the search checks each */
	if (t->pp == 2 && f > 0 && l > 0 && f + l != m->layers)
		return diag_set(err, file, 0, 0,
				"'first_stage_layers' + 'last_stage_layers' "
				"(%d+%d) must be 'layers' (%d) with 'pp' 2",
				f, l, m->layers);
	middle = ((long long)t->pp - 2) * vp;
	left = (long long)m->layers - (f > 0 ? f : 0) - (l > 0 ? l : 0);
	if (f > 0 && l > 0 && left < middle)
		return diag_set(err, file, 0, 0,
				"'first_stage_layers' + 'last_stage_layers' "
				"(%d+%d) leave %lld of 'layers' (%d) to the "
				"middle stages, which need at least "
				"(pp-2)*vp = %lld, a layer per chunk", f, l,
				left, m->layers, middle);
	if ((f == 0 || l == 0) && left < middle + lo)
		return diag_set(err, file, 0, 0,
				"'%s' (%d) leaves %lld of 'layers' (%d) to "
				"the other stages, which need at least %lld, "
				"a layer per chunk", key, given, left,
				m->layers, middle + lo);
	return 0;
}

static int check_training(const struct training_spec *t,
			  const struct model_spec *m, const char *file,
			  struct diag *err)
{
	long long mp = (long long)t->tp * t->pp * t->cp;
	long long dp = 0;

	if (check_tp("training.tp", t->tp, m, file, err) < 0)
		return -1;
	if (t->gpus > 0 && t->tp > 0 && t->pp > 0 && t->cp > 0) {
		if (t->gpus % mp != 0)
			return diag_set(err, file, 0, 0,
					"'gpus' (%d) must be a multiple of "
					"tp*pp*cp (%d*%d*%d = %lld)", t->gpus,
					t->tp, t->pp, t->cp, mp);
		dp = t->gpus / mp;
	}
	if (t->pp > 0 && m->layers > 0 && t->pp > m->layers)
		return diag_set(err, file, 0, 0,
				"'pp' (%d) must not exceed 'layers' (%d)",
				t->pp, m->layers);
	if (t->vp > 1) {
		long long chunks = (long long)t->pp * t->vp;

		if (t->pp == 1)
			return diag_set(err, file, 0, 0,
					"'vp' (%d) needs 'pp' greater than 1",
					t->vp);
		if (t->pp > 1 && m->layers > 0 && m->layers < chunks - 2)
			return diag_set(err, file, 0, 0,
					"'layers' (%d) must be at least "
					"pp*vp-2 (%d*%d-2 = %lld): a layer per "
					"chunk, but for the first and the last "
					"chunk, which may hold only the "
					"embedding and the output layer",
					m->layers, t->pp, t->vp, chunks - 2);
	}
	if (check_stages(t, m, file, err) < 0)
		return -1;
	if (t->global_batch > 0 && t->micro_batch > 0) {
		long long per_step = (long long)t->micro_batch * dp;

		if (t->global_batch % t->micro_batch != 0)
			return diag_set(err, file, 0, 0,
					"'global_batch' (%d) must be a "
					"multiple of 'micro_batch' (%d)",
					t->global_batch, t->micro_batch);
		if (dp > 0 && t->global_batch % per_step != 0)
			return diag_set(err, file, 0, 0,
					"'global_batch' (%d) must be a "
					"multiple of micro_batch*dp "
					"(%d*%lld = %lld)", t->global_batch,
					t->micro_batch, dp, per_step);
	}
	if (t->batch_tokens > 0.0 && t->global_batch > 0)
		return diag_set(err, file, 0, 0,
				"give 'global_batch' (%d sequences) or "
				"'batch_tokens' (tokens per step), not both",
				t->global_batch);
	if (t->batch_tokens > 0.0 && m->seq_len > 0 &&
	    t->batch_tokens < m->seq_len)
		return diag_set(err, file, 0, 0,
				"'batch_tokens' (%.17g) must be at least one "
				"sequence ('seq_len' %d)",
				t->batch_tokens, m->seq_len);
	if (t->ep > 1 && m->experts == 0)
		return diag_set(err, file, 0, 0,
				"'training.ep' (%d) needs a mixture-of-experts "
				"model ('experts')", t->ep);
	if (t->ep > 0 && m->experts > 0 && m->experts % t->ep != 0)
		return diag_set(err, file, 0, 0,
				"'training.ep' (%d) must divide 'experts' (%d)",
				t->ep, m->experts);
	if (t->cp > 0 && m->seq_len > 0 && m->seq_len % t->cp != 0)
		return diag_set(err, file, 0, 0,
				"'cp' (%d) must divide 'seq_len' (%d)", t->cp,
				m->seq_len);
	if (t->recompute_layers > 0 && t->recompute != RECOMPUTE_AUTO &&
	    t->recompute != RECOMPUTE_FULL)
		return diag_set(err, file, 0, 0,
				"'recompute_layers' (%d) needs 'recompute' "
				"full, got '%s'", t->recompute_layers,
				recompute_name(t->recompute));
	if (t->tp_comm_overlap == 1 &&
	    (t->sequence_parallel == 0 || t->tp == 1))
		return diag_set(err, file, 0, 0,
				"'tp_comm_overlap' needs sequence "
				"parallelism over tp > 1 ('%s' is %s)",
				t->tp == 1 ? "tp" : "sequence_parallel",
				t->tp == 1 ? "1" : "false");
	if (t->offload_optimizer > 0.0 && t->zero == 0)
		return diag_set(err, file, 0, 0,
				"'offload_optimizer' (%g) needs 'zero' 1 or "
				"more: the host steps each rank's shard of "
				"the distributed optimizer, as Megatron-Core "
				"and ZeRO-Offload do", t->offload_optimizer);
	if (t->offload_optimizer > 0.0 && m->kind != MODEL_TRANSFORMER)
		return diag_set(err, file, 0, 0,
				"'offload_optimizer' is modelled for "
				"transformers, not a %s model",
				model_kind_name(m->kind));
	return 0;
}

/* Speculative decoding and disaggregation: each key with what it needs;
   both are simulated, so they need a load. */
static int check_serving_modes(const struct inference_spec *is,
			       const char *file, struct diag *err)
{
	bool load = is->arrival != WL_AUTO_NEG || is->qps > 0.0 ||
		    is->concurrency > 0 || is->trace[0];

	if (is->speculative_tokens > 0 && !(is->acceptance_rate > 0.0))
		return diag_set(err, file, 0, 0,
				"'inference.speculative_tokens' needs "
				"'inference.acceptance_rate', the chance that "
				"a draft token is accepted (0 to 1)");
	if (is->acceptance_rate > 0.0 && is->speculative_tokens == 0)
		return diag_set(err, file, 0, 0,
				"'inference.acceptance_rate' is for "
				"speculative decoding: give "
				"'inference.speculative_tokens'");
	if ((is->speculative_tokens > 0 || is->disaggregated) && !load)
		return diag_set(err, file, 0, 0,
				"%s is simulated under load: give "
				"'inference.qps', 'concurrency', 'arrival = "
				"burst' or a 'trace'",
				is->disaggregated ?
					"'inference.disaggregated'" :
					"speculative decoding");
	if (!is->disaggregated &&
	    (is->prefill_replicas != WL_AUTO ||
	     is->decode_replicas != WL_AUTO || is->prefill_tp != WL_AUTO ||
	     is->decode_tp != WL_AUTO || is->kv_transfer_bw_bytes_per_s > 0.0))
		return diag_set(err, file, 0, 0,
				"'prefill_replicas', 'decode_replicas', "
				"'prefill_tp', 'decode_tp' and "
				"'kv_transfer_bw' need 'inference.disaggregated "
				"= true'");
	if (is->disaggregated && is->replicas != WL_AUTO)
		return diag_set(err, file, 0, 0,
				"a disaggregated fleet is 'prefill_replicas' "
				"and 'decode_replicas', not "
				"'inference.replicas'");
	if (is->disaggregated &&
	    (is->prefill_replicas == WL_AUTO) !=
		    (is->decode_replicas == WL_AUTO))
		return diag_set(err, file, 0, 0,
				"give both 'inference.prefill_replicas' and "
				"'inference.decode_replicas' (a fixed fleet), "
				"or neither (sized)");
	return 0;
}

/* The load of [inference] (serve_sim.h): each arrival kind has what it
   needs, and nothing meant for another kind. */
static int check_load(const struct inference_spec *is, const char *file,
		      struct diag *err)
{
	static const char *const kinds[] = { "poisson", "closed", "burst",
					     "trace" };
	int a = is->arrival;

	if (a == 0 && !(is->qps > 0.0))
		return diag_set(err, file, 0, 0,
				"'inference.arrival' is poisson: give "
				"'inference.qps', the requests per second");
	if (a == 1 && is->concurrency < 1)
		return diag_set(err, file, 0, 0,
				"'inference.arrival' is closed: give "
				"'inference.concurrency', the clients");
	if (a == 3 && !is->trace[0])
		return diag_set(err, file, 0, 0,
				"'inference.arrival' is trace: give "
				"'inference.trace', a CSV file of arrival_s, "
				"prompt_tokens, output_tokens");
	if (is->trace[0] && a != WL_AUTO_NEG && a != 3)
		return diag_set(err, file, 0, 0,
				"'inference.trace' needs 'arrival = trace' "
				"(not %s)", kinds[a]);
	if (is->concurrency > 0 && a != WL_AUTO_NEG && a != 1)
		return diag_set(err, file, 0, 0,
				"'inference.concurrency' is for closed loops "
				"('arrival = closed'), not %s", kinds[a]);
	if (is->qps > 0.0 && a > 0)
		return diag_set(err, file, 0, 0,
				"'inference.qps' is a Poisson rate: it does "
				"not go with 'arrival = %s'", kinds[a]);
	if (is->qps > 0.0 && a == WL_AUTO_NEG &&
	    (is->concurrency > 0 || is->trace[0]))
		return diag_set(err, file, 0, 0,
				"give one load: 'inference.qps', "
				"'inference.concurrency' or 'inference.trace'");
	if (is->concurrency > 0 && a == WL_AUTO_NEG && is->trace[0])
		return diag_set(err, file, 0, 0,
				"give 'inference.concurrency' or "
				"'inference.trace', not both");
	if (is->chunked_prefill && is->max_batched_tokens != WL_AUTO &&
	    is->max_batch != WL_AUTO && is->max_batched_tokens < is->max_batch)
		return diag_set(err, file, 0, 0,
				"'inference.max_batched_tokens' (%d) must be at "
				"least 'inference.max_batch' (%d) with chunked "
				"prefill: every running sequence decodes a "
				"token of the budget", is->max_batched_tokens,
				is->max_batch);
	if (is->replicas != WL_AUTO && a == WL_AUTO_NEG &&
	    !(is->qps > 0.0) && is->concurrency == 0 && !is->trace[0])
		return diag_set(err, file, 0, 0,
				"'inference.replicas' (a fixed fleet) needs a "
				"load: 'qps', 'concurrency', 'arrival = "
				"burst' or a 'trace'");
	return check_serving_modes(is, file, err);
}

int workload_validate(const struct workload *wl, struct diag *err)
{
	const char *file = wl->file[0] ? wl->file : NULL;

	for (size_t i = 0; i < WL_KEY_COUNT; i++)
		if (key_check(&wl_keys[i], wl, file, err) < 0)
			return -1;
	if (wl->model.onnx[0]) {
		/* the graph gives the network: the per-sample totals and the
		   kind follow from it */
		static const char *const keys[] = {
			"params", "flops_per_sample",
			"activation_bytes_per_sample", "kind"
		};

		for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
			if (wl->given[find_key_index("model", keys[i])] &&
			    (i < 3 || wl->model.kind != MODEL_GENERIC))
				return diag_set(err, file, 0, 0,
						"[model] onnx gives the "
						"network: leave out '%s'",
						keys[i]);
	}
	if (check_model(&wl->model, file, err) < 0)
		return -1;
	if (wl_check_recsys(&wl->model,
			    wl->given[find_key_index("model",
						     "dense_params")] ||
				    wl->given[find_key_index(
					    "model", "dense_flops_per_sample")],
			    file, err) < 0)
		return -1;
	if (check_training(&wl->training, &wl->model, file, err) < 0)
		return -1;
	if (wl->inference.ep > 1 && wl->model.experts == 0)
		return diag_set(err, file, 0, 0,
				"'inference.ep' (%d) needs a mixture-of-experts "
				"model ('experts')", wl->inference.ep);
	if (wl->inference.ep > 0 && wl->model.experts > 0 &&
	    wl->model.experts % wl->inference.ep != 0)
		return diag_set(err, file, 0, 0,
				"'inference.ep' (%d) must divide 'experts' (%d)",
				wl->inference.ep, wl->model.experts);
	if (check_load(&wl->inference, file, err) < 0)
		return -1;
	if (check_tp("inference.prefill_tp", wl->inference.prefill_tp,
		     &wl->model, file, err) < 0 ||
	    check_tp("inference.decode_tp", wl->inference.decode_tp,
		     &wl->model, file, err) < 0)
		return -1;
	return check_tp("inference.tp", wl->inference.tp, &wl->model, file,
			err);
}
