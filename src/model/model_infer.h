/*
 * model_infer.h - serving a model: memory (weights, KV cache), prefill and
 * decode latency, throughput of one replica, power and energy per token.
 *
 * Prefill is a roofline of compute against memory traffic; each decode
 * step reads the weights once and the KV cache of every sequence (Pope et
 * al. 2022, "Efficiently Scaling Transformer Inference"; Kwon et al. 2023
 * for the KV cache).  specs/models.md, section "Inference".
 */
#ifndef CAPPLAN_MODEL_INFER_H
#define CAPPLAN_MODEL_INFER_H

#include <stdbool.h>

#include "catalog.h"
#include "cluster.h"
#include "model_flops.h"
#include "precision.h"
#include "model_kernel.h"
#include "step_mix.h"

struct infer_config {
	int tp;                         /* tensor parallelism of a replica */
	int ep;                         /* expert parallelism: a replica has
					   tp x ep GPUs (0 or 1: tp GPUs) */
	int batch;                      /* concurrent sequences */
	enum precision weight_precision;
	enum precision kv_precision;
	int prompt_tokens;
	int output_tokens;
	bool sparse;                    /* 2:4 structured sparse weights */
	double power_cap_w;             /* per GPU; 0: none */
	double kernel_overhead_s;       /* exposed fixed time of each kernel
					   of a decode step (specs/models.md
					   10.9.8); 0: none */
	double host_request_s;          /* the server's front end, per
					   request, in the TTFT (10.9.8);
					   0: none */
	double memory_fraction;         /* of each GPU the engine may fill
					   (infer_memory_reserve); 0: 0.9 */
	bool memory_of_free;            /* memory_fraction is of the memory
					   the weights, activations and
					   context leave (TensorRT-LLM;
					   infer_memory_reserve_free) */
	bool weight_only;               /* int8 or fp8 weights dequantized
					   into 16-bit GEMMs (W8A16), not
					   8-bit math (W8A8) */
	bool mxfp4;                     /* fp4 weights in MXFP4 blocks (an
					   8-bit scale per 32 values), not
					   NVFP4's (an fp8 one per 16) */
	bool non_expert_own;            /* an MoE whose weights outside the
					   routed experts (attention, dense
					   and shared FFNs, router) are in
					   non_expert_precision, not in
					   weight_precision */
	enum precision non_expert_precision; /* read only when
						non_expert_own */
	double expert_imbalance;        /* ep > 1: the busiest expert rank's
					   tokens over the mean (>= 1); 0:
					   those of uniform routing
					   (ep_imbalance, specs/models.md
					   10.9.24) */
	int redundant_experts;          /* ep > 1: copies of experts held
					   beside the routed ones (DeepSeek's
					   EPLB) */
	bool ep_comm_overlap;           /* ep > 1: two micro-batches, each
					   one's all-to-alls beside the
					   other's compute (two-batch
					   overlap) */
	int step_tokens;                /* the engine's token budget of a
					   step (max_batched_tokens): an
					   offline batch's prompts are packed
					   into steps of at most this many
					   tokens (specs/models.md 9.5); 0:
					   one prompt a step */
	bool decode_per_head;           /* the decode attention kernel runs
					   one thread block per query head,
					   each reading its KV head's cache
					   (specs/models.md 9.4); false:
					   each KV head read once for its
					   group of query heads */
};

struct infer_memory {
	double weights_bytes;             /* per GPU */
	double kv_cache_bytes_per_token;  /* whole model, all layers */
	double kv_cache_bytes;            /* per GPU, the batch at full context */
	double activations_bytes;         /* per GPU, prefill working set */
	double reserve_bytes;
	double total_bytes;               /* per GPU */
	double capacity_bytes;
	bool fits;
};

struct infer_result {
	struct infer_memory memory;
	double prefill_s;        /* prefill of one prompt */
	double ttft_s;           /* time to first token, without queueing:
				    the front end's host time and the
				    prefill */
	double tpot_s;           /* one decode step of the batch at the
				    mean context */
	double e2e_latency_s;    /* ttft + (output - 1) tpot */
	double prefill_batch_s;  /* the batch's prefills: its prompts
				    packed into steps of step_tokens */
	double service_s;        /* time in which a replica completes
				    'batch' requests: their prefills
				    (prefill_batch_s) and (output - 1)
				    decode steps; a batch slot serves one
				    request in it */
	double throughput_tokens_per_s;         /* output tokens, replica */
	double throughput_tokens_per_s_per_gpu;
	double prefill_flops_per_byte;  /* arithmetic intensity, prefill */
	double decode_flops_per_byte;   /* arithmetic intensity, decode */
	double gpu_power_w;             /* average while serving */
	double clock_fraction;          /* math clock under the power cap */
	double energy_j_per_token;      /* facility energy per output token */
	double tokens_per_joule;
};

/*
 * KV-cache bytes per token of context, whole model:
 * 2 (K and V) x layers x kv_heads x head_dim x bytes (Kwon et al. 2023).
 */
double infer_kv_bytes_per_token(const struct arch *a, enum precision kv);

/* Stored bytes per weight: precision, group-quantization scales for
   int4, 2:4 sparse compression. */
double infer_weight_bytes_per_param(enum precision p, bool sparse,
				    bool mxfp4);

/* The format the math of weights in 'w' runs in: fp16 for int4 (W4A16:
   weights dequantized into fp16 GEMMs), else 'w' itself. */
enum precision infer_math_precision(enum precision w);

/* The same for a serving configuration: fp16 too for int8 and fp8
   weights that 'c' keeps weight-only (W8A16). */
enum precision infer_config_math_precision(const struct infer_config *c);

/* Whether any GEMM of 'c' on 'g' (routed experts, the other weights,
   the attention core) runs on the fp8/fp4 tensor path, at the device's
   fp8_matmul_eff (gpu_matmul_eff). */
bool infer_config_fp8_math(const struct gpu_spec *g,
			   const struct infer_config *c);

/* GPUs of one replica: tp x ep (INT_MAX when that does not fit). */
int infer_gpus_per_replica(const struct infer_config *c);

/*
 * Evaluate serving 'c' of model 'a' on tp x ep devices 'g'.  Pure, no
 * allocation.  Returns 0, or -1 when the device has no usable math for
 * the precision.
 */
int infer_evaluate(const struct arch *a, const struct infer_config *c,
		   const struct gpu_spec *g, const struct cluster *cl,
		   struct infer_result *r);

/*
 * The time of one serving step for any mix of prompt tokens and decoding
 * sequences (continuous batching), from the same kernels as
 * infer_evaluate: the projections run once over all the step's tokens,
 * prompt tokens add their attention and KV writes, decoding sequences
 * read their KV caches.  A step of one whole prompt is infer_evaluate's
 * prefill, and a step of 'batch' decodes at the mean context its TPOT.
 */
#define INFER_STEP_MEMO 8193

/* The three maths of a layer (specs/models.md 9.2): the routed experts'
   GEMMs (all of a dense model's), the other weights' GEMMs (attention
   projections, dense and shared FFNs, router), the attention core. */
enum { INFER_PERF_EXPERT, INFER_PERF_OTHER, INFER_PERF_ATTN,
       INFER_PERF_COUNT };

struct infer_step_model {
	struct arch arch;
	struct infer_config config; /* its kernel_overhead_s: the step's */
	struct cluster cluster;
	struct device_perf perf[INFER_PERF_COUNT];
	double layer_kernels;    /* kernels of a layer's projections,
				    element-wise work and collectives */
	/* constants of every step, computed once (issue 43) */
	double kv_token_bytes;   /* KV bytes of a token per GPU and layer */
	double pair_flops;       /* attention FLOPs per query-key pair per
				    GPU and layer, a prompt's */
	double decode_pair_flops; /* the same, a decode query's (MLA's
				     absorbed form) */
	double kv_reads;         /* reads of each KV head's cache a decode */
	double decode_fixed_s;   /* infer_step_fixed_s of a decode step */
	/* memo of the token-dependent part of a layer for whole token
	   counts per tensor-parallel group; < 0 when not computed yet */
	double layer_s_memo[INFER_STEP_MEMO];
	/* memo of the output layer for whole logit rows per group; < 0
	   when not computed yet */
	double out_s_memo[INFER_STEP_MEMO];
};

/* Prepare the step model of 'c' (batch ignored) on 'g' at full clock,
   each kernel of a decode step paying 'kernel_overhead_s' (which
   replaces c->kernel_overhead_s).  Returns 0, or -1 when the device has
   no usable math. */
int infer_step_model_init(struct infer_step_model *m, const struct arch *a,
			  const struct infer_config *c,
			  const struct gpu_spec *g, const struct cluster *cl,
			  double kernel_overhead_s);

/* Run the step model's math at 'clock' (0 to 1) of the full clock: under
   a power cap (infer_result.clock_fraction). */
void infer_step_model_clock(struct infer_step_model *m, double clock);

/* Seconds of one step of 'mix'; 'm' is a struct infer_step_model (the
   signature of sim_step_fn), whose memo it fills. */
double infer_step_s(void *m, const struct sim_mix *mix);

/* The times of k decode-only steps into dt[0 .. k-1]: 'first', then the
   same mix with decode_ctx_tokens 'ctx_step' more a step; each the number
   infer_step_s gives for its mix, the layers' token-dependent part taken
   once (the signature of sim_steps_fn). */
void infer_decode_steps_s(void *m, const struct sim_mix *first,
			  double ctx_step, int k, double *dt);

/*
 * The fixed time a step exposes beyond its kernels' roofline times and
 * gaps (specs/models.md 10.9.8), the same for infer_evaluate's TTFT and
 * TPOT and for infer_step_s: a step that decodes only ('prompt' false,
 * 'decode' true) runs L (k_layer + 1) + 1 kernels of a few microseconds
 * and pays c->kernel_overhead_s for each; a step with prompt tokens runs
 * kernels long enough that their launches hide behind the previous ones
 * and pays nothing more.  'layer_kernels' is k_layer
 * (infer_layer_kernels).
 */
double infer_step_fixed_s(const struct arch *a, const struct infer_config *c,
			  double layer_kernels, bool prompt, bool decode);

/* k_layer: the kernels of one layer's token-dependent work. */
double infer_layer_kernels(const struct arch *a, const struct infer_config *c);

/* KV-cache bytes per token of context on one GPU of the replica. */
double infer_kv_bytes_per_token_gpu(const struct arch *a,
				    const struct infer_config *c);

/*
 * KV-cache capacity of one replica in tokens: the memory per GPU left
 * after the weights, the working set of a step of 'step_tokens' tokens
 * and the framework reserve, over the KV bytes per token per GPU.
 * 0 when nothing is left.
 */
double infer_kv_capacity_tokens(const struct arch *a,
				const struct infer_config *c,
				const struct gpu_spec *g, int step_tokens);

/* Largest batch whose memory fits (0 if none, capped at 'limit'). */
int infer_max_batch_memory(const struct arch *a, const struct infer_config *c,
			   const struct gpu_spec *g, int limit);

#endif
