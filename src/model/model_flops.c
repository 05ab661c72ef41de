/* model_flops.c - parameter and FLOP counts; see model_flops.h. */
#include "model_flops.h"

#include <limits.h>

int arch_from_spec(const struct model_spec *m, struct arch *a)
{
	if (m->layers <= 0 || m->hidden <= 0 || m->heads <= 0 ||
	    m->vocab <= 0 || m->seq_len <= 0 ||
	    (m->head_dim <= 0 && m->hidden % m->heads != 0))
		return -1;
	a->layers = m->layers;
	a->hidden = m->hidden;
	a->heads = m->heads;
	a->kv_heads = m->kv_heads > 0 ? m->kv_heads : m->heads;
	if (a->heads % a->kv_heads != 0)
		return -1;
	a->head_dim = m->head_dim > 0 ? m->head_dim : m->hidden / m->heads;
	/* derived widths must stay ints: a spec that overflows them (only
	   reachable past the workload's bounds) is not an architecture */
	if ((long long)a->heads * a->head_dim > INT_MAX ||
	    (m->ffn_hidden <= 0 && 4LL * m->hidden > INT_MAX))
		return -1;
	a->q_dim = a->heads * a->head_dim;
	a->kv_lora = m->kv_lora_rank;
	a->q_lora = m->kv_lora_rank > 0 ? m->q_lora_rank : 0;
	a->rope_dim = m->kv_lora_rank > 0 ? m->rope_head_dim : 0;
	a->v_dim = m->v_head_dim > 0 ? m->v_head_dim : a->head_dim;
	a->ffn_hidden = m->ffn_hidden > 0 ? m->ffn_hidden : 4 * m->hidden;
	a->gated_ffn = m->gated_ffn;
	a->vocab = m->vocab;
	a->seq_len = m->seq_len;
	a->tied_embeddings = m->tied_embeddings;
	a->experts = m->experts;
	a->experts_per_token = m->experts > 0 ?
				       (m->experts_per_token > 0 ?
						m->experts_per_token : 1) :
				       0;
	a->shared_experts = m->experts > 0 ? m->shared_experts : 0;
	a->expert_ffn = m->expert_ffn_hidden > 0 ? m->expert_ffn_hidden :
						   a->ffn_hidden;
	a->dense_layers = m->experts > 0 ? m->dense_layers : 0;
	if (a->experts_per_token > a->experts || a->dense_layers > a->layers)
		return -1;
	return 0;
}

bool arch_is_moe(const struct arch *a)
{
	return a->experts > 0;
}

int arch_moe_layers(const struct arch *a)
{
	return arch_is_moe(a) ? a->layers - a->dense_layers : 0;
}

int arch_attn_gemms(const struct arch *a, struct attn_gemm g[ATTN_GEMM_MAX])
{
	double h = a->hidden, heads = a->heads;
	double qk = a->head_dim + a->rope_dim;
	int n = 0;

	if (a->kv_lora <= 0) {
		double kv = (double)a->kv_heads * a->head_dim;

		g[n++] = (struct attn_gemm){ a->q_dim + 2.0 * kv, h, 1 };
		g[n++] = (struct attn_gemm){ h, a->q_dim, 2 };
		return n;
	}
	/* MLA: queries through an optional low-rank down-projection, keys
	   and values from a shared latent plus a rotary key */
	if (a->q_lora > 0) {
		g[n++] = (struct attn_gemm){ a->q_lora, h, 0 };
		g[n++] = (struct attn_gemm){ heads * qk, a->q_lora, 1 };
	} else {
		g[n++] = (struct attn_gemm){ heads * qk, h, 1 };
	}
	g[n++] = (struct attn_gemm){ (double)a->kv_lora + a->rope_dim, h, 0 };
	g[n++] = (struct attn_gemm){ heads * ((double)a->head_dim + a->v_dim),
				     a->kv_lora, 1 };
	g[n++] = (struct attn_gemm){ h, heads * a->v_dim, 2 };
	return n;
}

double arch_attn_core_flops_per_pair(const struct arch *a)
{
	return 2.0 * a->heads *
	       ((double)a->head_dim + a->rope_dim + a->v_dim);
}

double arch_attn_decode_flops_per_pair(const struct arch *a)
{
	if (a->kv_lora > 0)
		return 2.0 * a->heads *
		       (2.0 * (double)a->kv_lora + a->rope_dim);
	return arch_attn_core_flops_per_pair(a);
}

double arch_kv_elems_per_token_layer(const struct arch *a)
{
	if (a->kv_lora > 0)
		return (double)a->kv_lora + a->rope_dim;
	return 2.0 * a->kv_heads * (double)a->head_dim;
}

double arch_attn_act_elems_replicated(const struct arch *a)
{
	struct attn_gemm g[ATTN_GEMM_MAX];
	int n = arch_attn_gemms(a, g);
	double e = 0.0;

	for (int i = 0; i + 1 < n; i++)
		if (g[i].split == 0)
			e += g[i].out;
	return e;
}

double arch_attn_up_proj_elems(const struct arch *a)
{
	double e = (double)a->heads * ((double)a->head_dim + a->v_dim);

	if (a->kv_lora <= 0)
		return 0.0;
	if (a->q_lora > 0)
		e += (double)a->heads * ((double)a->head_dim + a->rope_dim);
	return e;
}

double arch_attn_up_proj_params(const struct arch *a)
{
	double p = (double)a->kv_lora * a->heads *
		   ((double)a->head_dim + a->v_dim);

	if (a->kv_lora <= 0)
		return 0.0;
	if (a->q_lora > 0)
		p += (double)a->q_lora * a->heads *
		     ((double)a->head_dim + a->rope_dim);
	return p;
}

double arch_attn_act_elems(const struct arch *a)
{
	struct attn_gemm g[ATTN_GEMM_MAX];
	int n = arch_attn_gemms(a, g);
	double e = (double)a->heads * a->v_dim; /* the core's output */

	for (int i = 0; i + 1 < n; i++) /* all but the output projection */
		e += g[i].out;
	return e;
}

/* Weights of the attention projections. */
static double attn_params(const struct arch *a)
{
	struct attn_gemm g[ATTN_GEMM_MAX];
	int n = arch_attn_gemms(a, g);
	double p = 0.0;

	for (int i = 0; i < n; i++)
		p += g[i].out * g[i].in;
	return p;
}

double arch_ffn_params(const struct arch *a, double f)
{
	return (a->gated_ffn ? 3.0 : 2.0) * a->hidden * f;
}

double arch_expert_params(const struct arch *a)
{
	return (double)arch_moe_layers(a) * a->experts *
	       arch_ffn_params(a, a->expert_ffn);
}

double arch_moe_active_ffn(const struct arch *a)
{
	return (double)(a->experts_per_token + a->shared_experts) *
	       a->expert_ffn;
}

/* FFN weights of all layers: dense layers, and for MoE layers every
   routed and shared expert plus the router (hidden x experts). */
static double ffn_params_total(const struct arch *a)
{
	double moe = arch_moe_layers(a);
	double dense = a->layers - moe;
	double per_moe = (a->experts + a->shared_experts) *
				 arch_ffn_params(a, a->expert_ffn) +
			 (double)a->hidden * a->experts;

	return dense * arch_ffn_params(a, a->ffn_hidden) + moe * per_moe;
}

/* FFN weights one token uses, summed over the layers. */
static double ffn_params_active(const struct arch *a)
{
	double moe = arch_moe_layers(a);
	double dense = a->layers - moe;

	return dense * arch_ffn_params(a, a->ffn_hidden) +
	       moe * (arch_ffn_params(a, arch_moe_active_ffn(a)) +
		      (double)a->hidden * a->experts);
}

double arch_active_params(const struct arch *a)
{
	return a->layers * (attn_params(a) + 2.0 * a->hidden) +
	       ffn_params_active(a) + arch_embedding_params(a) + a->hidden;
}

double arch_layer_params(const struct arch *a)
{
	/* two norms of 'hidden' gains each; biases are left out (modern
	   models have none; in GPT-3-style models they are < 0.1%) */
	return attn_params(a) + ffn_params_total(a) / a->layers +
	       2.0 * a->hidden;
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
	/* 2 FLOPs per weight a token uses in the projections and the FFN
	   (for MoE: the top-k and shared experts and the router, averaged
	   over the layers), plus QK^T and scores x V: 2 * ctx * q_dim each
	   (Narayanan et al. 2021, eq. 3, where q_dim = hidden) */
	return 2.0 * (attn_params(a) + ffn_params_active(a) / a->layers) +
	       ctx * arch_attn_core_flops_per_pair(a);
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
		extra = (double)a->layers * a->seq_len *
			arch_attn_core_flops_per_pair(a);
	return train_model_flops_per_token(a) + extra;
}
