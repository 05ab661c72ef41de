/*
 * model_flops.h - architecture, parameter counts and FLOPs of a dense
 * decoder-only transformer.
 *
 * Sources: Narayanan et al. 2021 (Megatron-LM PTD-P) eq. 3 and appendix;
 * Kaplan et al. 2020 Table 1; Ainslie et al. 2023 (GQA).  Derivations in
 * specs/models.md, section "FLOPs".  A multiply-add counts as 2 FLOPs.
 */
#ifndef CAPPLAN_MODEL_FLOPS_H
#define CAPPLAN_MODEL_FLOPS_H

#include <stdbool.h>

#include "workload.h"

/* A resolved architecture: every field set, derived defaults applied. */
struct arch {
	int layers;
	int hidden;
	int heads;
	int kv_heads;
	int head_dim;    /* hidden / heads unless given */
	int q_dim;       /* heads x head_dim: width of Q and of the attention
			    output (GQA) */
	/* multi-head latent attention (kv_lora > 0): DeepSeek-AI 2024 */
	int kv_lora;
	int q_lora;
	int rope_dim;
	int v_dim;       /* value head width (head_dim without MLA) */
	int ffn_hidden;  /* dense FFN width */
	bool gated_ffn;
	int vocab;
	int seq_len;
	bool tied_embeddings;
	/* mixture of experts: 0 experts is a dense model */
	int experts;
	int experts_per_token;
	int shared_experts;
	int expert_ffn;
	int dense_layers;      /* leading dense layers of an MoE model */
};

/* One projection of the attention block: C[n x out] = A[n x in] W. */
struct attn_gemm {
	double out, in;
	int split;     /* how tensor parallelism splits it: 0 not at all
			  (replicated), 1 the output (column-parallel),
			  2 the input (row-parallel) */
};

#define ATTN_GEMM_MAX 5

/*
 * The attention projections of one layer: GQA's fused QKV and output
 * projection, or MLA's down- and up-projections (DeepSeek-AI 2024, eqs.
 * 1-11).  Returns how many were written to 'g'.
 */
int arch_attn_gemms(const struct arch *a, struct attn_gemm g[ATTN_GEMM_MAX]);

/* Per query and key position: FLOPs of scores and weighted sum
   (2 x heads x (qk width + v width)). */
double arch_attn_core_flops_per_pair(const struct arch *a);

/* The same for a decode step's query against the KV cache: MLA's decode
   kernels attend in the latent, the key up-projection absorbed into the
   query and the value one into the output (DeepSeek-V2, section 2.1.2),
   2 x heads x ((r_kv + d_r) + r_kv); standard and grouped-query
   attention as arch_attn_core_flops_per_pair. */
double arch_attn_decode_flops_per_pair(const struct arch *a);

/* KV-cache elements per token and layer: 2 x kv_heads x head_dim, or for
   MLA the compressed latent plus the rotary key (kv_lora + rope_dim). */
double arch_kv_elems_per_token_layer(const struct arch *a);

/* Activation elements per token of the attention block kept for the
   backward pass inside the tensor-parallel region (outputs of the
   projections that feed the core, and the core's output). */
double arch_attn_act_elems(const struct arch *a);

/* The part of arch_attn_act_elems that tensor parallelism does not split:
   the outputs of replicated projections (MLA's latent down-projections;
   0 for multi-head and grouped-query attention). */
double arch_attn_act_elems_replicated(const struct arch *a);

/* Elements per token of MLA's up-projections (queries from their latent
   when q_lora > 0, keys and values from theirs), which recomputation of
   the up-projections does not keep; 0 without MLA. */
double arch_attn_up_proj_elems(const struct arch *a);

/* Weights of those up-projections per layer (their latent rank times
   their outputs); 0 without MLA. */
double arch_attn_up_proj_params(const struct arch *a);

/* True for a mixture-of-experts model. */
bool arch_is_moe(const struct arch *a);

/* Layers with routed experts (0 for a dense model). */
int arch_moe_layers(const struct arch *a);

/* Parameters of one FFN of width 'f' (two matrices, three gated). */
double arch_ffn_params(const struct arch *a, double f);

/* Parameters of all routed experts of the model (those that expert
   parallelism shards); 0 for a dense model. */
double arch_expert_params(const struct arch *a);

/* FFN width a token passes through in an MoE layer: top-k routed plus the
   shared experts. */
double arch_moe_active_ffn(const struct arch *a);

/* Parameters used by one token (active parameters): embeddings, attention,
   dense FFNs, shared and top-k routed experts. */
double arch_active_params(const struct arch *a);

/*
 * Resolve a model description: kv_heads 0 -> heads, ffn_hidden 0 ->
 * 4 * hidden.  Returns 0, or -1 when the architecture is incomplete or
 * inconsistent (the caller has validated the workload; this is a guard).
 */
int arch_from_spec(const struct model_spec *m, struct arch *a);

/* Parameters of one transformer layer, averaged over the layers of an MoE
   model: attention, FFN (all experts and the router) and two norms. */
double arch_layer_params(const struct arch *a);

/* Input embedding (and output projection unless tied) parameters. */
double arch_embedding_params(const struct arch *a);

/* Total parameters: layers, embeddings, final norm. */
double arch_params(const struct arch *a);

/*
 * Forward FLOPs of one layer for one token whose attention sees 'ctx'
 * tokens: the four projections (GQA-aware), the FFN, and the attention
 * scores and weighted sum (2 * 2 * ctx * hidden, counted in full as in
 * Narayanan et al. eq. 3).
 */
double arch_layer_fwd_flops_per_token(const struct arch *a, double ctx);

/* Forward FLOPs of the output projection (logits) for one token. */
double arch_logits_fwd_flops_per_token(const struct arch *a);

/*
 * Model FLOPs per trained token (forward + backward = 3 x forward, at
 * context seq_len): what MFU counts.
 */
double train_model_flops_per_token(const struct arch *a);

/*
 * Hardware FLOPs per trained token: model FLOPs plus what recomputation
 * executes again (full: one more forward of every layer; selective: the
 * attention scores and weighted sum).
 */
double train_hw_flops_per_token(const struct arch *a, enum recompute r);

#endif
