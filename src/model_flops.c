/* model_flops.c - parameter and FLOP counts; see model_flops.h. */
#include "model_flops.h"

int arch_from_spec(const struct model_spec *m, struct arch *a)
{
	if (m->layers <= 0 || m->hidden <= 0 || m->heads <= 0 ||
	    m->vocab <= 0 || m->seq_len <= 0 || m->hidden % m->heads != 0)
		return -1;
	a->layers = m->layers;
	a->hidden = m->hidden;
	a->heads = m->heads;
	a->kv_heads = m->kv_heads > 0 ? m->kv_heads : m->heads;
	a->head_dim = m->hidden / m->heads;
	a->ffn_hidden = m->ffn_hidden > 0 ? m->ffn_hidden : 4 * m->hidden;
	a->gated_ffn = m->gated_ffn;
	a->vocab = m->vocab;
	a->seq_len = m->seq_len;
	a->tied_embeddings = m->tied_embeddings;
	return 0;
}

/* Weights of the Q, K, V and output projections (GQA: K, V are smaller). */
static double attn_params(const struct arch *a)
{
	double h = a->hidden;
	double kv = (double)a->kv_heads * a->head_dim;

	return 2.0 * h * h + 2.0 * h * kv;
}

/* Weights of the FFN: two matrices, three when gated (SwiGLU). */
static double ffn_params(const struct arch *a)
{
	return (a->gated_ffn ? 3.0 : 2.0) * a->hidden * (double)a->ffn_hidden;
}

double arch_layer_params(const struct arch *a)
{
	/* two norms of 'hidden' gains each; biases are left out (modern
	   models have none; in GPT-3-style models they are < 0.1%) */
	return attn_params(a) + ffn_params(a) + 2.0 * a->hidden;
}

double arch_embedding_params(const struct arch *a)
{
	double e = (double)a->vocab * a->hidden;

	return a->tied_embeddings ? e : 2.0 * e;
}

double arch_params(const struct arch *a)
{
	return a->layers * arch_layer_params(a) + arch_embedding_params(a) +
	       a->hidden;
}

double arch_layer_fwd_flops_per_token(const struct arch *a, double ctx)
{
	/* 2 FLOPs per weight for the projections and the FFN, plus QK^T and
	   scores x V: 2 * ctx * hidden each (Narayanan et al. 2021, eq. 3) */
	return 2.0 * (attn_params(a) + ffn_params(a)) +
	       4.0 * ctx * a->hidden;
}

double arch_logits_fwd_flops_per_token(const struct arch *a)
{
	return 2.0 * a->hidden * (double)a->vocab;
}

double train_model_flops_per_token(const struct arch *a)
{
	double fwd = a->layers * arch_layer_fwd_flops_per_token(a, a->seq_len) +
		     arch_logits_fwd_flops_per_token(a);

	return 3.0 * fwd;
}

double train_hw_flops_per_token(const struct arch *a, enum recompute r)
{
	double extra = 0.0;

	if (r == RECOMPUTE_FULL)
		extra = a->layers *
			arch_layer_fwd_flops_per_token(a, a->seq_len);
	else if (r == RECOMPUTE_SELECTIVE)
		extra = a->layers * 4.0 * a->seq_len * a->hidden;
	return train_model_flops_per_token(a) + extra;
}
