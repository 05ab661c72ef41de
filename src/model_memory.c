/* model_memory.c - training memory per GPU; see model_memory.h. */
#include "model_memory.h"

#include <math.h>

/*
 * Reserve that the framework keeps out of reach of the model: CUDA/ROCm
 * context and kernels (~0.5 GB), NCCL buffers (~0.5 GB), and allocator
 * fragmentation (PyTorch's caching allocator typically loses a few per
 * cent of the device).
 */
static const double reserve_fixed_bytes = 1e9;
static const double reserve_fraction = 0.05;

/* Bytes of one activation element: 16-bit in mixed precision (as
   Korthikanti et al. assume) and fp8 training, 4 in fp32 training. */
static double act_elem_bytes(enum precision p)
{
	return p == PREC_FP32 || p == PREC_TF32 ? 4.0 : 2.0;
}

struct state_bytes train_state_bytes(enum precision p, enum optimizer o)
{
	struct state_bytes s;
	/* fp8 training keeps 16-bit weights and casts per GEMM
	   (NVIDIA Transformer Engine) */
	double w = p == PREC_FP8 ? 2.0 : precision_bytes(p);
	/* a separate fp32 master copy exists only in mixed precision
	   (Micikevicius et al. 2018) */
	double master = w < 4.0 ? 4.0 : 0.0;

	s.weights = w;
	s.gradients = w; /* as ZeRO counts: gradients in the weights' format */
	/* Adam: master + first and second moments in fp32 (ZeRO: 12 bytes);
	   SGD with momentum: master + momentum */
	s.optimizer = master + (o == OPTIMIZER_ADAM ? 8.0 : 4.0);
	return s;
}

void train_memory_states(double params, int zero, int shards,
			 enum precision p, enum optimizer o,
			 struct train_memory *m)
{
	struct state_bytes s = train_state_bytes(p, o);
	double d = shards > 0 ? shards : 1;

	/* ZeRO stage 1 shards optimizer states, 2 also gradients, 3 also
	   weights (Rajbhandari et al. 2020, section 5) */
	m->optimizer_bytes = params * s.optimizer / (zero >= 1 ? d : 1.0);
	m->gradients_bytes = params * s.gradients / (zero >= 2 ? d : 1.0);
	m->weights_bytes = params * s.weights / (zero >= 3 ? d : 1.0);
}

void train_params_split(const struct arch *a, const struct train_config *c,
			double *dense, double *expert)
{
	double layers = train_stage_layers(a, c);
	/* routed experts, per layer on average, are sharded over tp x ep */
	double expert_layer = arch_expert_params(a) / a->layers;
	double stage = layers * (arch_layer_params(a) - expert_layer) / c->tp;
	double embed = (double)a->vocab * a->hidden / c->tp;
	/* the last stage holds the output projection: untied, or with tied
	   embeddings a copy of the input embedding (Megatron-LM) */
	double last = stage + a->hidden + embed;

	*expert = layers * expert_layer / ((double)c->tp * train_config_ep(c));
	if (c->pp == 1)
		*dense = stage + arch_embedding_params(a) / c->tp + a->hidden;
	else
		*dense = fmax(stage + embed, last);
}

double train_params_per_gpu(const struct arch *a, const struct train_config *c)
{
	double dense, expert;

	train_params_split(a, c, &dense, &expert);
	return dense + expert;
}

double train_layer_activation_bytes(const struct arch *a,
				    const struct train_config *c)
{
	double t = c->tp;
	double tokens = (double)c->micro_batch * a->seq_len / c->cp;
	double h = a->hidden;
	double e = act_elem_bytes(c->precision);
	/* FFN width a token passes through, averaged over dense and MoE
	   layers (an MoE layer also keeps its fp32 router logits) */
	double moe = arch_is_moe(a) ? (double)arch_moe_layers(a) / a->layers :
				      0.0;
	double f = (1.0 - moe) * a->ffn_hidden + moe * arch_moe_active_ffn(a);
	double router = moe * 4.0 * a->experts;
	/* norm inputs (2), QKV input, MLP input: split only with sequence
	   parallelism; dropout masks are one byte per element */
	double outside = e * 4.0 * h + (c->dropout ? 2.0 * h : 0.0);
	double rep = c->sequence_parallel ? t : 1.0;
	/* inside the tensor-parallel regions: Q, K, V, attention output;
	   FFN: up-projection output and activation output, or for a gated
	   FFN gate, up and their product */
	double latent = e * arch_attn_act_elems_replicated(a);
	double inside = e * arch_attn_act_elems(a) - latent +
			e * (a->gated_ffn ? 3.0 : 2.0) * f;
	double scores = 0.0;
	double per_token;

	if (c->recompute == RECOMPUTE_FULL)
		return e * h * tokens / rep;
	if (c->attention == ATTN_UNFUSED && c->recompute == RECOMPUTE_NONE)
		/* softmax output, and with dropout its mask and output, for
		   every key of the context (Korthikanti: 5 a s / h) */
		scores = (double)a->heads * a->seq_len *
			 (c->dropout ? 2.0 * e + 1.0 : e);
	else if (c->attention == ATTN_FLASH)
		/* fp32 log-sum-exp per head and query */
		scores = 4.0 * a->heads;
	/* MLA's latents come from replicated down-projections: whole on
	   every tensor-parallel rank */
	per_token = outside / rep + latent + (inside + scores) / t + router;
	return per_token * tokens;
}

double train_memory_reserve(double capacity_bytes)
{
	return reserve_fixed_bytes + reserve_fraction * capacity_bytes;
}

void train_memory_eval_with(const struct arch *a,
			    const struct train_config *c,
			    const double layer_act[RECOMPUTE_FULL + 1],
			    double capacity_bytes, struct train_memory *m)
{
	double dense, expert;
	double layers = train_stage_layers(a, c);
	double inflight;
	double tokens = (double)c->micro_batch * a->seq_len / c->cp;
	double act;

	train_params_split(a, c, &dense, &expert);
	train_memory_states(dense, c->zero, c->dp * c->cp, c->precision,
			    c->optimizer, m);
	if (expert > 0.0) {
		/* expert states shard over the data-parallel ranks that hold
		   the same experts: dp * cp / ep of them */
		struct train_memory e;

		train_memory_states(expert, c->zero,
				    c->dp * c->cp / train_config_ep(c),
				    c->precision, c->optimizer, &e);
		m->weights_bytes += e.weights_bytes;
		m->gradients_bytes += e.gradients_bytes;
		m->optimizer_bytes += e.optimizer_bytes;
	}

	/* micro-batches whose activations the first stage holds: p under
	   1F1B, times (1 + (p-1)/(p v)) when interleaved (Korthikanti et al.
	   2022, section 4.2), never more than there are */
	inflight = c->pp;
	if (c->vp > 1)
		inflight *= 1.0 + (c->pp - 1.0) / ((double)c->pp * c->vp);
	if (inflight > c->micro_batches)
		inflight = c->micro_batches;
	act = layers * layer_act[c->recompute] * inflight;
	/* the layer being recomputed holds its full activations */
	if (c->recompute == RECOMPUTE_FULL)
		act += layer_act[RECOMPUTE_NONE];
	/* fp32 logits of one micro-batch for the loss (last stage) */
	act += 4.0 * tokens * a->vocab / c->tp;
	m->activations_bytes = act;

	/* ZeRO-3 gathers the full weights of about two layers at a time
	   (current and prefetched): the GPU's tensor-parallel share of the
	   replicated part and of its own experts (1/ep of the routed ones) */
	m->reserve_bytes = train_memory_reserve(capacity_bytes);
	if (c->zero >= 3) {
		double expert_layer = arch_expert_params(a) / a->layers;
		double layer = arch_layer_params(a) - expert_layer +
			       expert_layer / train_config_ep(c);

		m->reserve_bytes += 2.0 * layer / c->tp *
				    train_state_bytes(c->precision,
						      c->optimizer).weights;
	}
	m->total_bytes = m->weights_bytes + m->gradients_bytes +
			 m->optimizer_bytes + m->activations_bytes +
			 m->reserve_bytes;
	m->capacity_bytes = capacity_bytes;
	m->fits = m->total_bytes <= capacity_bytes;
}

void train_layer_activations(const struct arch *a,
			     const struct train_config *c,
			     double layer_act[RECOMPUTE_FULL + 1])
{
	struct train_config t = *c;

	for (int r = RECOMPUTE_NONE; r <= RECOMPUTE_FULL; r++) {
		t.recompute = (enum recompute)r;
		layer_act[r] = train_layer_activation_bytes(a, &t);
	}
}

void train_memory_eval(const struct arch *a, const struct train_config *c,
		       double capacity_bytes, struct train_memory *m)
{
	double layer_act[RECOMPUTE_FULL + 1];

	train_layer_activations(a, c, layer_act);
	train_memory_eval_with(a, c, layer_act, capacity_bytes, m);
}
