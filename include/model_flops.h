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
	int head_dim;    /* hidden / heads */
	int ffn_hidden;
	bool gated_ffn;
	int vocab;
	int seq_len;
	bool tied_embeddings;
};

/*
 * Resolve a model description: kv_heads 0 -> heads, ffn_hidden 0 ->
 * 4 * hidden.  Returns 0, or -1 when the architecture is incomplete or
 * inconsistent (the caller has validated the workload; this is a guard).
 */
int arch_from_spec(const struct model_spec *m, struct arch *a);

/* Parameters of one transformer layer: attention, FFN and two norms. */
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
