/* model_infer.c - serving latency, throughput and energy; see
   model_infer.h. */
#include "model_infer.h"

#include <limits.h>
#include <math.h>
#include <string.h>

#include "checked.h"
#include "model_comm.h"
#include "model_ep.h"
#include "model_kernel.h"
#include "model_memory.h"

/* Bytes of one activation element in serving (fp16/bf16 activations). */
static const double act_bytes = 2.0;

/*
 * Bytes per element an expert-parallel dispatch sends when the experts'
 * math is 8-bit or narrower: fp8 (e4m3) values with an fp32 scale per 128
 * (DeepEP's dispatch, which SGLang's and vLLM's wide-EP paths use; the
 * combine returns 16-bit outputs).  specs/models.md 10.9.24.
 */
static const double fp8_dispatch_bytes = 1.0 + 4.0 / 128.0;

/*
 * Per-group quantization of int4 weights (AWQ, GPTQ: groups of 128 with a
 * 16-bit scale and zero point): 4 bytes per 128 weights.
 */
static const double int4_group_overhead_bytes = 4.0 / 128.0;

/*
 * Block scales of fp4 weights: NVFP4 stores one fp8 (e4m3) scale for every
 * 16 e2m1 values, and a per-tensor fp32 scale (NVIDIA, "Introducing NVFP4
 * for Efficient and Accurate Low-Precision Inference", 2025): 1/16 byte
 * per weight, 4.5 bits in all.  The OCP Microscaling format MXFP4 (OCP
 * Microscaling Formats (MX) Specification v1.0, 2023; gpt-oss's
 * checkpoints, AMD's CDNA 4) has an 8-bit (e8m0) scale per 32 values:
 * 1/32 byte, 4.25 bits.
 */
static const double fp4_block_scale_bytes = 1.0 / 16.0;
static const double mxfp4_block_scale_bytes = 1.0 / 32.0;

/*
 * 2:4 sparse weights keep 2 of every 4 values plus a 2-bit index for each
 * kept value (NVIDIA A100 whitepaper, "Fine-grained structured
 * sparsity"): half the values and 1/8 byte of metadata per weight (9/16
 * of the dense size for 16-bit weights).
 */
static const double sparse_kept_fraction = 0.5;
static const double sparse_index_bytes = 0.125;

/*
 * Prefill is processed in chunks of at most this many tokens (vLLM's and
 * TensorRT-LLM's max_num_batched_tokens are of this order), which bounds
 * the activation working set.
 */
static const double prefill_chunk_tokens = 8192.0;

/*
 * SMs that DeepEP's normal (high-throughput) dispatch and combine kernels
 * hold while they run: Buffer.num_sms = 20 in deep_ep/buffer.py (DeepEP
 * V1, commit 567632dd, the library SGLang's and DeepSeek's 2025 systems
 * ran).  Its low-latency kernels, which decode steps use, hand the
 * transfer to the NIC behind a receive hook "without any SM occupation"
 * (its README), so they take none.
 */
static const double ep_forward_comm_sms = 20.0;

/*
 * Power while decoding: memory-bound token generation draws about 60% of
 * the dynamic power that compute-bound prefill draws (Patel et al. 2024,
 * "Splitwise", section 3: the token phase runs well below TDP); it rises to
 * full power as the batch brings the step to the roofline ridge.
 */
static const double memory_bound_power_fraction = 0.6;

/* Dynamic power grows with the cube of the clock under DVFS (P ~ f V^2,
   V ~ f), so a power cap scales the math clock by its cube root. */
static const double dvfs_exponent = 1.0 / 3.0;
static const double min_clock_fraction = 0.2;

/* Bisection steps for the capped clock: 2^-30 of the clock range. */
static const int power_cap_iterations = 30;

/* Formats whose math runs in another format: int4 weights are
   dequantized into fp16 GEMMs (W4A16, AWQ); the rest run natively (fp4
   on fp4 tensor cores, activations quantized to fp4 as NVFP4 W4A4 runs;
   on a device without them device_perf_init falls back to 16-bit math,
   W4A16). */
enum precision infer_math_precision(enum precision w)
{
	return w == PREC_INT4 ? PREC_FP16 : w;
}

/* The math of weights in 'w' under 'c' (weight-only: 16-bit). */
static enum precision math_of(const struct infer_config *c, enum precision w)
{
	if (c->weight_only &&
	    (w == PREC_INT8 || w == PREC_FP8 || w == PREC_FP4))
		return PREC_FP16;
	return infer_math_precision(w);
}

enum precision infer_config_math_precision(const struct infer_config *c)
{
	return math_of(c, c->weight_precision);
}

/* The format of the weights outside an MoE's routed experts. */
static enum precision other_precision(const struct infer_config *c)
{
	return c->non_expert_own ? c->non_expert_precision :
				   c->weight_precision;
}

/*
 * The attention core's math (QK^T, softmax, PV): that of the weights
 * around it on this device, but never in fewer bits than the cache it
 * reads: with 8- or 4-bit math it runs in fp8 over an fp8 cache
 * (FlashAttention-3's and TensorRT-LLM's fp8 attention) and in fp16 over
 * a 16-bit or integer one.
 */
static enum precision attn_precision(const struct gpu_spec *g,
				     const struct infer_config *c)
{
	enum precision m = device_math_precision(g,
						 math_of(c, other_precision(c)));

	if (m == PREC_COUNT || precision_bytes(m) >= 2.0)
		return m == PREC_COUNT ? PREC_FP16 : m;
	return c->kv_precision == PREC_FP8 ? PREC_FP8 : PREC_FP16;
}

static bool fp8_path(const struct gpu_spec *g, enum precision q)
{
	enum precision m = device_math_precision(g, q);

	return m == PREC_FP8 || m == PREC_FP4;
}

bool infer_config_fp8_math(const struct gpu_spec *g,
			   const struct infer_config *c)
{
	return fp8_path(g, infer_config_math_precision(c)) ||
	       fp8_path(g, math_of(c, other_precision(c))) ||
	       fp8_path(g, attn_precision(g, c));
}

/* The stored bytes of the routed experts' weights ('expert') or of the
   others. */
static double weight_bytes(const struct infer_config *c, bool expert)
{
	enum precision w = expert ? c->weight_precision : other_precision(c);

	return infer_weight_bytes_per_param(w, c->sparse,
					    c->mxfp4 && w == PREC_FP4);
}

/* The device's rates for the three maths of a layer (INFER_PERF_*). */
static int perf_init(struct device_perf *dp, const struct gpu_spec *g,
		     const struct infer_config *c)
{
	if (device_perf_init(&dp[INFER_PERF_EXPERT], g,
			     infer_config_math_precision(c), c->sparse) != 0 ||
	    device_perf_init(&dp[INFER_PERF_OTHER], g,
			     math_of(c, other_precision(c)), c->sparse) != 0 ||
	    device_perf_init(&dp[INFER_PERF_ATTN], g, attn_precision(g, c),
			     false) != 0)
		return -1;
	return 0;
}

static void perf_clock(struct device_perf *dp, double clock)
{
	for (int i = 0; i < INFER_PERF_COUNT; i++)
		dp[i].peak_flops *= clock;
}

double infer_kv_bytes_per_token(const struct arch *a, enum precision kv)
{
	return a->layers * arch_kv_elems_per_token_layer(a) *
	       precision_bytes(kv);
}

double infer_weight_bytes_per_param(enum precision p, bool sparse,
				    bool mxfp4)
{
	double b = precision_bytes(p);

	if (p == PREC_INT4)
		b += int4_group_overhead_bytes;
	else if (p == PREC_FP4)
		b += mxfp4 ? mxfp4_block_scale_bytes : fp4_block_scale_bytes;
	return sparse ? b * sparse_kept_fraction + sparse_index_bytes : b;
}

int infer_gpus_per_replica(const struct infer_config *c)
{
	return ck_sat_mul_int(c->tp, c->ep > 1 ? c->ep : 1);
}

/* Expert-parallel ranks of a replica: its tp x ep GPUs. */
static double expert_ranks(const struct infer_config *c)
{
	return infer_gpus_per_replica(c);
}

/* Routed experts held per routed expert of the model: 1, or with
   redundant copies of busy experts (ep > 1) (E + R) / E. */
static double expert_copies(const struct arch *a, const struct infer_config *c)
{
	if (c->ep <= 1 || c->redundant_experts <= 0 || a->experts <= 0)
		return 1.0;
	return (double)(a->experts + c->redundant_experts) / a->experts;
}

/* Sequences of the batch one tensor-parallel group serves (the batch is
   split over the ep groups, each running attention for its share). */
static double group_batch(const struct infer_config *c)
{
	return (double)c->batch / (c->ep > 1 ? c->ep : 1);
}

/* The busiest expert rank's tokens over the mean in a step of 'tokens'
   tokens in the replica: given, or that of uniform routing (1 without
   expert parallelism: every GPU holds a slice of every expert). */
static double expert_load_imbalance(const struct arch *a,
				    const struct infer_config *c,
				    double tokens)
{
	if (c->ep <= 1 || !arch_is_moe(a))
		return 1.0;
	if (c->expert_imbalance >= 1.0)
		return c->expert_imbalance;
	return ep_imbalance(tokens * a->experts_per_token, expert_ranks(c));
}

/* Embeddings and the output layer stay 16-bit in quantized models. */
static double embed_bytes_per_param(enum precision p)
{
	return precision_bytes(p) >= 4.0 ? 4.0 : 2.0;
}

/* KV-cache elements per token and layer on one GPU: GQA heads split over
   tp (replicated when tp > kv heads); an MLA latent is not split. */
static double kv_elems_per_gpu(const struct arch *a, int tp)
{
	if (a->kv_lora > 0)
		return arch_kv_elems_per_token_layer(a);
	return 2.0 * fmax(1.0, (double)a->kv_heads / tp) * a->head_dim;
}

/*
 * How many times a decode step reads each KV head's cache: once for its
 * group of query heads (FlashAttention's and FlashInfer's decode
 * kernels, TensorRT-LLM's XQA), or once per query head when the kernel
 * runs one thread block per query head (TensorRT-LLM's masked multi-head
 * attention, 0.5-0.7).  An MLA latent is read once.
 */
static double kv_reads(const struct arch *a, const struct infer_config *c)
{
	if (!c->decode_per_head || a->kv_lora > 0)
		return 1.0;
	return ((double)a->heads / c->tp) /
	       fmax(1.0, (double)a->kv_heads / c->tp);
}

/* KV bytes per token on one GPU, all layers. */
static double kv_bytes_gpu_token(const struct arch *a,
				 const struct infer_config *c)
{
	return a->layers * kv_elems_per_gpu(a, c->tp) *
	       precision_bytes(c->kv_precision);
}

double infer_kv_bytes_per_token_gpu(const struct arch *a,
				    const struct infer_config *c)
{
	return kv_bytes_gpu_token(a, c);
}

/* Weights on one GPU. */
static double weights_gpu_bytes(const struct arch *a,
				const struct infer_config *c)
{
	double wb = weight_bytes(c, true), wo = weight_bytes(c, false);
	double experts = arch_expert_params(a);
	double dense = a->layers * arch_layer_params(a) - experts;

	/* replicated parts split over tp, routed experts over tp x ep */
	return (dense * wo + arch_embedding_params(a) *
				     embed_bytes_per_param(c->weight_precision)) /
		       c->tp +
	       experts * expert_copies(a, c) * wb / expert_ranks(c);
}

/* One layer's tensors for a step of 'chunk' tokens on one GPU, and the
   fp32 logits of 'rows' sequences. */
static double activations_gpu_bytes(const struct arch *a,
				    const struct infer_config *c, double chunk,
				    double rows)
{
	double tp = c->tp;
	double moe = arch_is_moe(a) ? (double)arch_moe_layers(a) / a->layers :
				      0.0;
	double f_width = (a->gated_ffn ? 3.0 : 2.0) *
			 ((1.0 - moe) * a->ffn_hidden +
			  moe * arch_moe_active_ffn(a));
	/* MLA's latents: whole on every tensor-parallel rank (2.6) */
	double attn_rep = arch_attn_act_elems_replicated(a);

	return chunk * act_bytes *
		       (2.0 * a->hidden + attn_rep +
			(arch_attn_act_elems(a) - attn_rep + f_width) / tp) +
	       4.0 * rows * (double)a->vocab / tp;
}

/* The memory the engine leaves alone: a share of the device, or of what
   the weights and activations leave free (specs/models.md 9.1). */
static double reserve_bytes(const struct infer_config *c,
			    const struct gpu_spec *g, double weights,
			    double activations)
{
	return c->memory_of_free ?
		       infer_memory_reserve_free(g->mem_bytes,
						 c->memory_fraction,
						 weights + activations) :
		       infer_memory_reserve(g->mem_bytes, c->memory_fraction);
}

static void memory_eval(const struct arch *a, const struct infer_config *c,
			const struct gpu_spec *g, struct infer_memory *m)
{
	double ctx = (double)c->prompt_tokens + c->output_tokens;
	double chunk = fmin(group_batch(c) * c->prompt_tokens,
			    prefill_chunk_tokens);

	m->weights_bytes = weights_gpu_bytes(a, c);
	m->kv_cache_bytes_per_token = infer_kv_bytes_per_token(a,
								c->kv_precision);
	m->kv_cache_bytes = kv_bytes_gpu_token(a, c) * group_batch(c) * ctx;
	m->activations_bytes = activations_gpu_bytes(a, c, chunk,
						     group_batch(c));
	m->reserve_bytes = reserve_bytes(c, g, m->weights_bytes,
					 m->activations_bytes);
	m->total_bytes = m->weights_bytes + m->kv_cache_bytes +
			 m->activations_bytes + m->reserve_bytes;
	m->capacity_bytes = g->mem_bytes;
	m->fits = m->total_bytes <= g->mem_bytes;
}

double infer_kv_capacity_tokens(const struct arch *a,
				const struct infer_config *c,
				const struct gpu_spec *g, int step_tokens)
{
	double ep = c->ep > 1 ? c->ep : 1;
	double w = weights_gpu_bytes(a, c);
	double act = activations_gpu_bytes(a, c, step_tokens / ep,
					   (double)c->batch / ep);
	double left = g->mem_bytes - w - act - reserve_bytes(c, g, w, act);

	/* each of the ep groups holds the caches of its own sequences */
	return left > 0.0 ? ep * left / kv_bytes_gpu_token(a, c) : 0.0;
}

int infer_max_batch_memory(const struct arch *a, const struct infer_config *c,
			   const struct gpu_spec *g, int limit)
{
	struct infer_config t = *c;
	struct infer_memory m;
	/* past an int the bound stops at INT_MAX (no overflow) */
	int lo = 0, hi = limit < INT_MAX ? limit + 1 : INT_MAX;

	/* memory grows with the batch: bisect for the last that fits */
	while (hi - lo > 1) {
		int mid = lo + (hi - lo) / 2;

		t.batch = mid;
		memory_eval(a, &t, g, &m);
		if (m.fits)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Times of one phase over all layers, and its FLOPs and bytes. */
struct phase {
	double s;
	double flops;
	double bytes;
};

/* One GEMM of 'n' tokens against weights [k x out] stored in 'wb' bytes
   per element, 'count' times (grouped). */
static void gemm(const struct device_perf *d, double n, double out, double k,
		 double count, double wb, struct phase *ph)
{
	if (n <= 0.0 || out <= 0.0 || count <= 0.0)
		return;
	ph->s += kernel_gemm_w_s(d, n, out, k, count, wb);
	ph->flops += 2.0 * count * n * out * k;
	ph->bytes += count * (wb * out * k + d->elem_bytes * n * (out + k));
}

/* A dense FFN of width 'f' split over tp, for 'n' tokens. */
static void ffn(const struct device_perf *d, const struct arch *a, double n,
		double f, double tp, double wb, struct phase *ph)
{
	gemm(d, n, (a->gated_ffn ? 2.0 : 1.0) * f / tp, a->hidden, 1.0, wb,
	     ph);
	gemm(d, n, a->hidden, f / tp, 1.0, wb, ph);
}

/*
 * One layer's projections for 'n' tokens on one GPU: attention, then the
 * FFN: dense, or for an MoE model the average over its dense and MoE
 * layers.  An MoE layer runs the router, the shared experts (split over
 * tp), and the routed experts; only experts some token picked are read:
 * E (1 - (1 - k/E)^t) of them for t tokens routed independently.  Without
 * expert parallelism (ep = 1) every expert is split over the tp GPUs like
 * a dense FFN (vLLM's and SGLang's fused MoE without expert parallelism,
 * TensorRT-LLM's default moe_tp_size = tp, gpt-fast's mixtral-moe/tp.py),
 * so each GPU runs a 1/tp slice of every touched expert; with ep > 1 the
 * experts are held whole, experts / (tp x ep) on each GPU, and the
 * replica's 'tokens' x top-k are spread evenly over its tp x ep GPUs.
 */
static void layer_gemms(const struct device_perf *d,
			const struct device_perf *o, const struct arch *a,
			const struct infer_config *c, double n, double tokens,
			struct phase *ph)
{
	struct attn_gemm g[ATTN_GEMM_MAX];
	int ng = arch_attn_gemms(a, g);
	double tp = c->tp;
	/* the routed experts' weights (d, wb), the others' (o, wo) */
	double wb = weight_bytes(c, true), wo = weight_bytes(c, false);

	for (int i = 0; i < ng; i++)
		gemm(o, n, g[i].split == 1 ? g[i].out / tp : g[i].out,
		     g[i].split == 2 ? g[i].in / tp : g[i].in, 1.0, wo, ph);
	if (!arch_is_moe(a)) {
		ffn(o, a, n, a->ffn_hidden, tp, wo, ph);
	} else {
		double moe = (double)arch_moe_layers(a) / a->layers;
		double e = a->experts, k = a->experts_per_token;
		double touched = e * (1.0 - pow(1.0 - k / e, tokens));
		/* ep = 1: every touched expert, 1/tp of its width; ep > 1:
		   whole experts over the replica's tp x ep GPUs */
		double ranks = c->ep > 1 ? expert_ranks(c) : 1.0;
		double width = c->ep > 1 ? a->expert_ffn : a->expert_ffn / tp;
		double local = fmax(1.0, touched * expert_copies(a, c) / ranks);
		/* the busiest rank's tokens set the step */
		double m_e = tokens * k / ranks / local *
			     expert_load_imbalance(a, c, tokens);
		struct phase dense = { 0.0, 0.0, 0.0 };
		struct phase moe_ph = { 0.0, 0.0, 0.0 };

		ffn(o, a, n, a->ffn_hidden, tp, wo, &dense);
		gemm(o, n, e, a->hidden, 1.0, wo, &moe_ph); /* router */
		ffn(o, a, n, (double)a->shared_experts * a->expert_ffn, tp, wo,
		    &moe_ph);
		gemm(d, m_e, (a->gated_ffn ? 2.0 : 1.0) * width, a->hidden,
		     local, wb, &moe_ph);
		gemm(d, m_e, a->hidden, width, local, wb, &moe_ph);
		ph->s += (1.0 - moe) * dense.s + moe * moe_ph.s;
		ph->flops += (1.0 - moe) * dense.flops + moe * moe_ph.flops;
		ph->bytes += (1.0 - moe) * dense.bytes + moe * moe_ph.bytes;
	}
}

/* Norms, residual adds and the FFN activation for 'n' tokens. */
static void layer_elementwise(const struct device_perf *d,
			      const struct arch *a, double n, int tp,
			      struct phase *ph)
{
	double h = a->hidden;
	double moe = arch_is_moe(a) ? (double)arch_moe_layers(a) / a->layers :
				      0.0;
	double f = (1.0 - moe) * a->ffn_hidden + moe * arch_moe_active_ffn(a);
	double norm = n * h * 2.0 * act_bytes;
	double resid = n * h * 3.0 * act_bytes;
	double act = n * f / tp * act_bytes * (a->gated_ffn ? 3.0 : 2.0);

	ph->s += 2.0 * kernel_stream_s(d, norm) +
		 2.0 * kernel_stream_s(d, resid) + kernel_stream_s(d, act);
	ph->bytes += 2.0 * norm + 2.0 * resid + act;
}

/* The tensor-parallel collectives of one layer for 'n' tokens of a tp
   group: two all-reduces (Megatron TP); with ep = 1 the experts are
   split over tp and their output joins the FFN's all-reduce. */
static double layer_tp_comm_s(const struct arch *a,
			      const struct infer_config *c,
			      const struct cluster *cl, double n)
{
	struct link l = comm_link(cl, c->tp, c->tp);

	return 2.0 * comm_allreduce_s(&l, n * a->hidden * act_bytes, c->tp);
}

/* The dispatch and combine all-to-alls of one layer (averaged over the
   dense and MoE layers) under expert parallelism (ep > 1), for 'n'
   tokens of a tp group, 'tokens' in the replica; 'prompt': a step with
   prompt tokens, whose kernels forward by domain (model_ep.h). */
static double layer_ep_comm_s(const struct arch *a,
			      const struct infer_config *c,
			      const struct cluster *cl, double n,
			      double tokens, bool prompt)
{
	struct ep_traffic t;

	if (!arch_is_moe(a) || c->ep <= 1)
		return 0.0;
	t.gpus = infer_gpus_per_replica(c);
	t.tokens_gpu = n / c->tp;
	t.copies = a->experts_per_token;
	t.hidden = a->hidden;
	t.dispatch_bytes = precision_bytes(infer_config_math_precision(c)) <=
					   1.0 ?
				   fp8_dispatch_bytes :
				   act_bytes;
	t.combine_bytes = act_bytes;
	t.imbalance = expert_load_imbalance(a, c, tokens);
	t.forward = prompt;
	return (double)arch_moe_layers(a) / a->layers * ep_alltoall_s(cl, &t);
}

/* The work of one layer other than the attention core for 'n' tokens of
   a tp group ('tokens' in the replica): its projections and element-wise
   work, added to 'ph', and its collectives, whose exposed seconds it
   returns; 'attn_s', the attention core's time, is what else a two-batch
   overlap can hide the all-to-alls behind. */
static double layer_body_s(const struct device_perf *dp, const struct arch *a,
			   const struct infer_config *c,
			   const struct cluster *cl, double n, double tokens,
			   bool prompt, double attn_s, struct phase *ph)
{
	const struct device_perf *d = &dp[INFER_PERF_EXPERT];
	double a2a = layer_ep_comm_s(a, c, cl, n, tokens, prompt);

	if (c->ep_comm_overlap && a2a > 0.0 && n >= 2.0) {
		/* two micro-batches of half the tokens: each runs every
		   kernel (weights read twice), one's all-to-alls beside the
		   other's compute (SGLang's two-batch overlap, DeepSeek's
		   inference system, 2025) */
		struct phase h = { 0.0, 0.0, 0.0 };
		int g = infer_gpus_per_replica(c);
		struct link l = comm_link(cl, g, g);
		double tp_s = 2.0 * layer_tp_comm_s(a, c, cl, 0.5 * n);
		double comm, compute, share = 0.0;

		layer_gemms(d, &dp[INFER_PERF_OTHER], a, c, 0.5 * n,
			    0.5 * tokens, &h);
		layer_elementwise(d, a, 0.5 * n, c->tp, &h);
		ph->s += 2.0 * h.s;
		ph->flops += 2.0 * h.flops;
		ph->bytes += 2.0 * h.bytes;
		comm = 2.0 * layer_ep_comm_s(a, c, cl, 0.5 * n, 0.5 * tokens,
					     prompt);
		compute = 2.0 * h.s + tp_s + attn_s;
		/* a prompt step's normal kernels hold SMs the compute
		   beside them would use */
		if (prompt && d->sms > 2.0 * ep_forward_comm_sms)
			share = ep_forward_comm_sms / d->sms;
		return tp_s + comm_overlapped_sms_s(&l, comm, compute, share);
	}
	layer_gemms(d, &dp[INFER_PERF_OTHER], a, c, n, tokens, ph);
	layer_elementwise(d, a, n, c->tp, ph);
	return layer_tp_comm_s(a, c, cl, n) + a2a;
}

/* Prefill of 'k' prompts in one step: every layer, then each prompt's
   last position's logits. */
static void prefill_eval(const struct device_perf *dp, const struct arch *a,
			 const struct infer_config *c,
			 const struct cluster *cl, double k, struct phase *ph)
{
	const struct device_perf *d = &dp[INFER_PERF_EXPERT];
	double p = c->prompt_tokens;
	double n = k * p;
	double heads = (double)a->heads / c->tp;
	double kv_write = n * kv_elems_per_gpu(a, c->tp) *
			  precision_bytes(c->kv_precision);
	/* causal attention over each prompt: half of every query-key
	   pair */
	double attn_flops = k * 0.5 * p * p * heads / a->heads *
			    arch_attn_core_flops_per_pair(a);
	struct phase layer = { 0.0, 0.0, 0.0 };
	double attn_s = kernel_flash_attention_s(&dp[INFER_PERF_ATTN],
						 attn_flops, false) +
			kernel_stream_s(d, kv_write);

	/* under expert parallelism each of the ep groups prefills prompts
	   of its own in the same step: the experts see ep times as many */
	double comm_s = layer_body_s(dp, a, c, cl, n,
				     n * (c->ep > 1 ? c->ep : 1), true, attn_s,
				     &layer);

	layer.s += attn_s;
	layer.flops += attn_flops;
	layer.bytes += kv_write;
	layer.s += comm_s;

	ph->s = a->layers * layer.s;
	ph->flops = a->layers * layer.flops;
	ph->bytes = a->layers * layer.bytes;
	/* output layer for each prompt's last position (16-bit weights) */
	gemm(d, k, (double)a->vocab / c->tp, a->hidden, 1.0, 2.0, ph);
}

/* Prompts of one attention group's batch that one prefill step holds:
   as many as the step's token budget takes whole, at least one (a longer
   prompt is a step of its own), at most the batch. */
static double prompts_per_step(const struct infer_config *c)
{
	double b = group_batch(c);
	double k = c->step_tokens > 0 && c->prompt_tokens > 0 ?
			   floor((double)c->step_tokens / c->prompt_tokens) :
			   1.0;

	return fmin(fmax(k, 1.0), fmax(b, 1.0));
}

/* One decode step of the batch at context 'ctx'. */
static void decode_eval(const struct device_perf *dp, const struct arch *a,
			const struct infer_config *c, const struct cluster *cl,
			double ctx, struct phase *ph)
{
	const struct device_perf *d = &dp[INFER_PERF_EXPERT];
	const struct device_perf *at = &dp[INFER_PERF_ATTN];
	double b = group_batch(c);
	double kv_read = b * ctx * kv_elems_per_gpu(a, c->tp) *
			 precision_bytes(c->kv_precision) * kv_reads(a, c);
	double attn_flops = b * ctx * arch_attn_decode_flops_per_pair(a) /
			    c->tp;
	struct phase layer = { 0.0, 0.0, 0.0 };
	/* attention reads every sequence's KV cache, once per KV head or
	   once per query head (kv_reads) */
	double attn_s = fmax(kv_read / (at->mem_bw_bytes_per_s * at->mem_eff),
			     attn_flops / (at->peak_flops * at->matmul_eff)) +
			kernel_gap_s();

	double comm_s = layer_body_s(dp, a, c, cl, b, c->batch, false, attn_s,
				     &layer);

	layer.s += attn_s;
	layer.flops += attn_flops;
	layer.bytes += kv_read;
	layer.s += comm_s;

	ph->s = a->layers * layer.s;
	ph->flops = a->layers * layer.flops;
	ph->bytes = a->layers * layer.bytes;
	gemm(d, b, (double)a->vocab / c->tp, a->hidden, 1.0, 2.0, ph);
}

/* Kernels of one layer's token-dependent work (layer_tokens_s): the
   attention projections, the FFN (in an MoE model, averaged over its
   dense and MoE layers: router, shared and routed experts), two norms,
   two residual adds, the activation, and two all-reduces under tp. */
double infer_layer_kernels(const struct arch *a, const struct infer_config *c)
{
	struct attn_gemm g[ATTN_GEMM_MAX];
	double ffn = 2.0;

	if (arch_is_moe(a)) {
		double moe = (double)arch_moe_layers(a) / a->layers;

		ffn = (1.0 - moe) * 2.0 +
		      moe * (1.0 + (a->shared_experts > 0 ? 2.0 : 0.0) + 2.0);
	}
	return arch_attn_gemms(a, g) + ffn + 5.0 + (c->tp > 1 ? 2.0 : 0.0);
}

double infer_step_fixed_s(const struct arch *a, const struct infer_config *c,
			  double layer_kernels, bool prompt, bool decode)
{
	if (prompt || !decode)
		return 0.0;
	/* each layer's kernels and its decode attention, then the logits */
	return (a->layers * (layer_kernels + 1.0) + 1.0) *
	       c->kernel_overhead_s;
}

int infer_step_model_init(struct infer_step_model *m, const struct arch *a,
			  const struct infer_config *c,
			  const struct gpu_spec *g, const struct cluster *cl,
			  double kernel_overhead_s)
{
	memset(m, 0, sizeof(*m));
	m->layer_kernels = infer_layer_kernels(a, c);
	m->arch = *a;
	m->config = *c;
	m->config.kernel_overhead_s = kernel_overhead_s;
	m->cluster = *cl;
	m->kv_token_bytes = kv_elems_per_gpu(a, c->tp) *
			    precision_bytes(c->kv_precision);
	m->pair_flops = arch_attn_core_flops_per_pair(a) / c->tp;
	m->decode_pair_flops = arch_attn_decode_flops_per_pair(a) / c->tp;
	m->kv_reads = kv_reads(a, c);
	m->decode_fixed_s = infer_step_fixed_s(a, &m->config, m->layer_kernels,
					       false, true);
	for (int i = 0; i < INFER_STEP_MEMO; i++)
		m->layer_s_memo[i] = m->out_s_memo[i] = -1.0;
	return perf_init(m->perf, g, c);
}

void infer_step_model_clock(struct infer_step_model *m, double clock)
{
	perf_clock(m->perf, clock);
	for (int i = 0; i < INFER_STEP_MEMO; i++)
		m->layer_s_memo[i] = m->out_s_memo[i] = -1.0;
}

/* The part of one layer that depends on the step's tokens alone: the
   projections, element-wise work and collectives of 'n' tokens per
   tensor-parallel group ('tokens' in the replica). */
static double layer_tokens_s(const struct infer_step_model *m, double n,
			     double tokens, bool prompt, double attn_s)
{
	struct phase layer = { 0.0, 0.0, 0.0 };
	double comm_s = layer_body_s(m->perf, &m->arch, &m->config,
				     &m->cluster, n, tokens, prompt, attn_s,
				     &layer);

	return layer.s + comm_s;
}

/* A decode step's attention in one layer: the decoding sequences read
   'ctx' tokens of KV cache a tensor-parallel group, 'queries' query
   tokens each (1, more when verifying drafts), bandwidth- or
   compute-bound, and the kernel's gap (specs/models.md 10.9.8). */
static double decode_attention_s(const struct infer_step_model *m,
				 double ctx, double queries)
{
	const struct device_perf *at = &m->perf[INFER_PERF_ATTN];

	return fmax(ctx * m->kv_token_bytes * m->kv_reads /
			    (at->mem_bw_bytes_per_s * at->mem_eff),
		    queries * ctx * m->decode_pair_flops /
			    (at->peak_flops * at->matmul_eff)) +
	       kernel_gap_s();
}

/*
 * The share of a step's prompts that its busiest attention group holds
 * under expert parallelism: a prompt is one data-parallel group's, so of
 * 's' prompts over 'ep' groups one holds ceil(s / ep), and every group
 * waits for it at the all-to-alls of each layer (TensorRT-LLM's tech blog
 * 10: an iteration takes its slowest rank's time).  1 / ep when the
 * prompts divide evenly, and with ep = 1 or no prompt.
 */
static double ep_prompt_share(double s, double ep)
{
	if (ep <= 1.0 || !(s > 0.0))
		return 1.0 / ep;
	return ceil(s / ep - 1e-9) / s;
}

double infer_step_s(void *mp, const struct sim_mix *x)
{
	struct infer_step_model *m = mp;
	const struct arch *a = &m->arch;
	const struct infer_config *c = &m->config;
	const struct device_perf *d = &m->perf[INFER_PERF_EXPERT];
	const struct device_perf *at = &m->perf[INFER_PERF_ATTN];
	double ep = c->ep > 1 ? c->ep : 1;
	/* speculative drafts are query tokens of the decoding sequences */
	double tokens = x->prefill_tokens + x->decode_seqs + x->verify_tokens;
	/* the busiest attention group's share of the prompts: whole
	   prompts, ceil(s / ep) of the step's s, where the decodes spread
	   evenly (1 / ep of everything without expert parallelism) */
	double busy = ep_prompt_share(x->prefill_seqs, ep);
	/* tokens of that tensor-parallel group */
	double n = (x->decode_seqs + x->verify_tokens) / ep +
		   x->prefill_tokens * busy;
	double kv_token = m->kv_token_bytes;
	double per_pair = m->pair_flops;
	struct phase layer = { 0.0, 0.0, 0.0 };
	struct phase out = { 0.0, 0.0, 0.0 };
	double pre_s = 0.0, dec_s = 0.0;
	bool prompt = x->prefill_tokens > 0.0;

	if (prompt) {
		/* the prompt tokens' causal attention and KV writes */
		pre_s = kernel_flash_attention_s(
				at, x->prefill_attn_pairs * busy * per_pair,
				false) +
			kernel_stream_s(d, x->prefill_tokens * busy * kv_token);
	}
	if (x->decode_seqs > 0.0) {
		/* each decoding sequence reads its whole KV cache once for
		   all its query tokens (the drafts it verifies too), per KV
		   head or per query head (kv_reads) */
		double ctx = x->decode_ctx_tokens / ep;
		double queries = 1.0 + x->verify_tokens / x->decode_seqs;

		dec_s = decode_attention_s(m, ctx, queries);
	}
	/* the token-dependent part, memoized by token count where it does
	   not depend on the step's kind (no expert parallelism) */
	if (tokens > 0.0 && ep == 1.0 && n < INFER_STEP_MEMO &&
	    n == (double)(int)n) {
		double *memo = &m->layer_s_memo[(int)n];

		if (*memo < 0.0)
			*memo = layer_tokens_s(m, n, tokens, prompt, 0.0);
		layer.s += *memo;
	} else if (tokens > 0.0) {
		layer.s += layer_tokens_s(m, n, tokens, prompt,
					  pre_s + dec_s);
	}
	layer.s += pre_s;
	layer.s += dec_s;
	/* the output layer for the sequences that emit a token, and for
	   every draft token verified (memoized as the layers are) */
	{
		double rows = (x->logit_rows + x->verify_tokens) / ep;

		if (rows >= 0.0 && rows < INFER_STEP_MEMO &&
		    rows == (double)(int)rows) {
			double *memo = &m->out_s_memo[(int)rows];

			if (*memo < 0.0) {
				gemm(d, rows, (double)a->vocab / c->tp,
				     a->hidden, 1.0, 2.0, &out);
				*memo = out.s;
			}
			out.s = *memo;
		} else {
			gemm(d, rows, (double)a->vocab / c->tp, a->hidden,
			     1.0, 2.0, &out);
		}
	}
	/* the fixed time: a decode step's, or none (infer_step_fixed_s) */
	return a->layers * layer.s + out.s +
	       (!prompt && x->decode_seqs > 0.0 ? m->decode_fixed_s : 0.0);
}

void infer_decode_steps_s(void *mp, const struct sim_mix *first,
			  double ctx_step, int k, double *dt)
{
	struct infer_step_model *m = mp;
	struct sim_mix x = *first;
	double n = x.decode_seqs, memo, out, queries;

	if (k <= 0)
		return;
	dt[0] = infer_step_s(m, &x); /* and fills the memos it reads */
	if (m->config.ep > 1 || x.prefill_tokens > 0.0 ||
	    x.verify_tokens > 0.0 || !(n > 0.0) || n >= INFER_STEP_MEMO ||
	    n != (double)(int)n || x.logit_rows != n) {
		/* not the memoized decode step: step by step */
		for (int i = 1; i < k; i++) {
			x.decode_ctx_tokens += ctx_step;
			dt[i] = infer_step_s(m, &x);
		}
		return;
	}
	/* infer_step_s's arithmetic for this mix, operation for operation
	   (the same numbers): ep 1, no prompt, one query a sequence */
	memo = m->layer_s_memo[(int)n];
	out = m->out_s_memo[(int)n];
	queries = 1.0 + x.verify_tokens / x.decode_seqs;
	for (int i = 1; i < k; i++) {
		double ctx, dec_s, layer_s = 0.0;

		x.decode_ctx_tokens += ctx_step;
		ctx = x.decode_ctx_tokens / 1.0;
		dec_s = decode_attention_s(m, ctx, queries);
		layer_s += memo;
		layer_s += 0.0;
		layer_s += dec_s;
		dt[i] = m->arch.layers * layer_s + out + m->decode_fixed_s;
	}
}

/* Share of the dynamic power drawn in a phase of intensity 'ai'. */
static double phase_power_share(const struct device_perf *d, double ai)
{
	double ridge = d->peak_flops * d->matmul_eff /
		       (d->mem_bw_bytes_per_s * d->mem_eff);
	double x = fmin(1.0, ai / ridge);

	return memory_bound_power_fraction +
	       (1.0 - memory_bound_power_fraction) * x;
}

/* Latency, throughput and power at clock fraction 'clock'. */
static int evaluate_at(const struct arch *a, const struct infer_config *c,
		       const struct gpu_spec *g, const struct cluster *cl,
		       double clock, struct infer_result *r)
{
	struct device_perf dp[INFER_PERF_COUNT];
	const struct device_perf *d = &dp[INFER_PERF_EXPERT];
	struct phase pf, dec, full, rest = { 0.0, 0.0, 0.0 };
	double prefill_s, decode_s, share, k, b, steps, left;

	if (perf_init(dp, g, c) != 0)
		return -1;
	perf_clock(dp, clock);
	prefill_eval(dp, a, c, cl, 1.0, &pf);
	decode_eval(dp, a, c, cl,
		    c->prompt_tokens + 0.5 * c->output_tokens, &dec);
	/* the batch's prompts, k to a step (prompts_per_step): an offline
	   batch (trtllm-bench, gptSessionBenchmark, vLLM's
	   benchmark_throughput) is prefilled in steps of up to the
	   engine's token budget, each reading the weights once; under
	   expert parallelism each group packs its own share.  Then
	   (output - 1) decode steps of the whole batch.  A request's TTFT
	   is its prompt alone */
	k = prompts_per_step(c);
	b = group_batch(c);
	steps = floor(b / k);
	left = b - steps * k;
	if (k > 1.0)
		prefill_eval(dp, a, c, cl, k, &full);
	else
		full = pf;
	if (left > 0.0)
		prefill_eval(dp, a, c, cl, left, &rest);
	/* the fixed times of a prompt's step and of a decode step, as the
	   simulation's steps pay them */
	{
		double fixed = infer_step_fixed_s(
			a, c, infer_layer_kernels(a, c), true, false);

		pf.s += fixed;
		full.s += fixed;
		if (left > 0.0)
			rest.s += fixed;
	}
	dec.s += infer_step_fixed_s(a, c, infer_layer_kernels(a, c), false,
				    true);
	r->prefill_s = pf.s;
	r->ttft_s = c->host_request_s + pf.s;
	r->tpot_s = dec.s;
	prefill_s = steps * full.s + rest.s;
	decode_s = (c->output_tokens - 1.0) * dec.s;
	r->prefill_batch_s = prefill_s;
	r->e2e_latency_s = r->ttft_s + decode_s;
	r->service_s = prefill_s + decode_s;
	r->throughput_tokens_per_s = (double)c->batch * c->output_tokens /
				     r->service_s;
	r->throughput_tokens_per_s_per_gpu = r->throughput_tokens_per_s /
					     infer_gpus_per_replica(c);
	r->prefill_flops_per_byte = pf.flops / pf.bytes;
	r->decode_flops_per_byte = dec.flops / dec.bytes;
	/* the packed steps' intensity sets the prefill's power */
	share = (phase_power_share(d, full.flops / full.bytes) * prefill_s +
		 phase_power_share(d, r->decode_flops_per_byte) * decode_s) /
		r->service_s;
	r->gpu_power_w = g->idle_w + (g->tdp_w - g->idle_w) * share * clock *
					     clock * clock;
	r->clock_fraction = clock;
	return 0;
}

int infer_evaluate(const struct arch *a, const struct infer_config *c,
		   const struct gpu_spec *g, const struct cluster *cl,
		   struct infer_result *r)
{
	double facility;

	memory_eval(a, c, g, &r->memory);
	if (evaluate_at(a, c, g, cl, 1.0, r) != 0)
		return -1;
	if (c->power_cap_w > 0.0 && r->gpu_power_w > c->power_cap_w) {
		/* slow the math clock until the power fits the cap; memory-
		   bound work keeps its speed.  Power grows with the clock, so
		   bisect between the floor and the DVFS estimate from the
		   uncapped power (the share of each phase moves with the
		   clock, so the estimate alone is not exact) */
		double need = r->gpu_power_w - g->idle_w;
		double have = fmax(c->power_cap_w - g->idle_w, 0.0);
		double lo = min_clock_fraction, hi = 1.0;

		if (evaluate_at(a, c, g, cl, lo, r) == 0 &&
		    r->gpu_power_w < c->power_cap_w) {
			double guess = pow(have / need, dvfs_exponent);

			if (guess > lo && guess < hi) {
				evaluate_at(a, c, g, cl, guess, r);
				if (r->gpu_power_w <= c->power_cap_w)
					lo = guess;
				else
					hi = guess;
			}
			for (int i = 0; i < power_cap_iterations; i++) {
				double mid = 0.5 * (lo + hi);

				evaluate_at(a, c, g, cl, mid, r);
				if (r->gpu_power_w <= c->power_cap_w)
					lo = mid;
				else
					hi = mid;
			}
		}
		/* at the clock floor the power may stay above the cap:
		   report what the device draws */
		evaluate_at(a, c, g, cl, lo, r);
	}
	facility = r->gpu_power_w * infer_gpus_per_replica(c) *
		   (1.0 + cl->host_overhead) * cl->pue;
	r->energy_j_per_token = facility * r->service_s /
				((double)c->batch * c->output_tokens);
	r->tokens_per_joule = 1.0 / r->energy_j_per_token;
	return 0;
}
