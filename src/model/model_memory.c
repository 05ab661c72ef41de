/* model_memory.c - training memory per GPU; see model_memory.h. */
#include "model_memory.h"

#include <math.h>
#include <stdint.h>

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

/* train_offload_host_bytes_per_param of the states 's'. */
static double host_bytes_per_param(const struct state_bytes *s)
{
	double master = s->weights < 4.0 ? 4.0 : 0.0;

	/* fp32 weight + moments + fp32 gradient */
	return 4.0 + (s->optimizer - master) + 4.0;
}

double train_offload_host_bytes_per_param(enum precision p, enum optimizer o)
{
	struct state_bytes s = train_state_bytes(p, o);

	return host_bytes_per_param(&s);
}

/* train_offload_host_ratio of a share 'f' of the states 's'. */
static double host_ratio(double f, const struct state_bytes *s)
{
	return f > 0.0 ? f * host_bytes_per_param(s) / s->optimizer : 0.0;
}

double train_offload_host_ratio(const struct train_config *c)
{
	struct state_bytes s = train_state_bytes(c->precision, c->optimizer);

	return host_ratio(c->offload_fraction, &s);
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

/* A pipeline stage, for what it holds besides its transformer layers. */
enum stage_kind {
	STAGE_ONLY,   /* pp 1: embedding, every layer, output layer */
	STAGE_FIRST,  /* the input embedding */
	STAGE_MIDDLE, /* transformer layers only */
	STAGE_LAST,   /* final norm, output projection, loss */
};

void train_stage_memory_params(struct train_stage_memory *w,
			       const struct arch *a,
			       const struct train_config *c)
{
	/* routed experts, per layer on average, are sharded over tp x ep */
	double expert_layer = arch_expert_params(a) / a->layers;

	w->dense_layer = (arch_layer_params(a) - expert_layer) / c->tp;
	w->expert_layer = expert_layer / ((double)c->tp * train_config_ep(c));
	w->embed = (double)a->vocab * a->hidden / c->tp;
	/* the last stage holds the output projection: untied, or with tied
	   embeddings a copy of the input embedding (Megatron-LM), and the
	   final norm (not split over tp) */
	w->last_extra = w->embed + a->hidden;
	w->only_extra = arch_embedding_params(a) / c->tp + a->hidden;
}

/* Parameters of one GPU of a stage of 'layers' transformer layers, split
   into replicated ('dense') and routed-expert ones. */
static void stage_params(const struct train_stage_memory *w,
			 enum stage_kind kind, int layers, double *dense,
			 double *expert)
{
	*dense = layers * w->dense_layer;
	*expert = layers * w->expert_layer;
	if (kind == STAGE_ONLY)
		*dense += w->only_extra;
	else if (kind == STAGE_FIRST)
		*dense += w->embed;
	else if (kind == STAGE_LAST)
		*dense += w->last_extra;
}

void train_stage_params_peak(const struct train_stage_memory *w,
			     const struct arch *a,
			     const struct train_config *c, double *dense,
			     double *expert)
{
	struct train_stages s;
	double d, e;

	train_stage_split(a, c, &s);
	if (c->pp <= 1) {
		stage_params(w, STAGE_ONLY, s.first, dense, expert);
		return;
	}
	stage_params(w, STAGE_FIRST, s.first, dense, expert);
	if (c->pp > 2) {
		stage_params(w, STAGE_MIDDLE, s.middle, &d, &e);
		if (d + e > *dense + *expert) {
			*dense = d;
			*expert = e;
		}
	}
	stage_params(w, STAGE_LAST, s.last, &d, &e);
	if (d + e > *dense + *expert) {
		*dense = d;
		*expert = e;
	}
}

void train_params_split(const struct arch *a, const struct train_config *c,
			double *dense, double *expert)
{
	struct train_stage_memory w;

	train_stage_memory_params(&w, a, c);
	train_stage_params_peak(&w, a, c, dense, expert);
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
	/* the inputs of the four GEMMs of a layer (QKV, output projection,
	   FFN up and down) are kept for the backward pass in the precision
	   the GEMM reads them in: one byte in fp8 training, as Transformer
	   Engine saves its fp8 casts and DeepSeek-V3 caches them
	   (DeepSeek-AI 2024, 3.3.2); the rest stays at 'e' */
	double g8 = c->precision == PREC_FP8 ? 1.0 : e;
	/* norm inputs (2), QKV input, MLP input: split only with sequence
	   parallelism; dropout masks are one byte per element */
	double outside = e * 2.0 * h + g8 * 2.0 * h +
			 (c->dropout ? 2.0 * h : 0.0);
	double rep = c->sequence_parallel ? t : 1.0;
	/* inside the tensor-parallel regions: Q, K, V, attention output
	   (the output projection's input); FFN: up-projection output and
	   activation output (the down projection's input), or for a gated
	   FFN gate, up and their product (its input) */
	double latent = e * arch_attn_act_elems_replicated(a);
	double core_out = (double)a->heads * a->v_dim;
	double inside = e * (arch_attn_act_elems(a) - core_out) +
			g8 * core_out - latent +
			e * (a->gated_ffn ? 2.0 : 1.0) * f + g8 * f;
	double scores = 0.0;
	double per_token;
	int mods = train_config_recompute_modules(c);

	if (c->recompute == RECOMPUTE_FULL)
		return e * h * tokens / rep;
	/* what selective recomputation repeats is not kept (Megatron-Core's
	   --recompute-modules): the norms' outputs, the QKV and MLP GEMM
	   inputs; MLA's up-projected queries, keys and values (kept: the
	   latents they come from); the experts' activation output, the down
	   projection's input (kept: its input) */
	if (mods & RECOMPUTE_MOD_LAYERNORM)
		outside -= g8 * 2.0 * h;
	if (mods & RECOMPUTE_MOD_MLA_UP_PROJ)
		inside -= e * arch_attn_up_proj_elems(a);
	if (mods & RECOMPUTE_MOD_MOE_ACT)
		inside -= g8 * moe * arch_moe_active_ffn(a);
	if (c->attention == ATTN_UNFUSED &&
	    !(mods & RECOMPUTE_MOD_CORE_ATTN))
		/* softmax output, and with dropout its mask and output, for
		   every key of the context (Korthikanti: 5 a s / h) */
		scores = (double)a->heads * a->seq_len *
			 (c->dropout ? 2.0 * e + 1.0 : e);
	else if (c->attention != ATTN_UNFUSED)
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

double infer_memory_reserve(double capacity_bytes, double fraction)
{
	double f = fraction > 0.0 ? fmin(fraction, 1.0) : INFER_MEMORY_FRACTION;

	return reserve_fixed_bytes + (1.0 - f) * capacity_bytes;
}

double infer_memory_reserve_free(double capacity_bytes, double fraction,
				 double used_bytes)
{
	double f = fraction > 0.0 ? fmin(fraction, 1.0) : INFER_MEMORY_FRACTION;
	double free_bytes = capacity_bytes - reserve_fixed_bytes - used_bytes;

	return reserve_fixed_bytes + (1.0 - f) * fmax(free_bytes, 0.0);
}

/* Layers among the first 'j' chunks of a stage of 'layers' layers over
   'v' chunks, dealt as evenly as possible with the lighter chunks first
   ('light_first') or last. */
static int64_t chunk_prefix(int64_t layers, int64_t v, int64_t j,
			    bool light_first)
{
	int64_t b = layers / v, extra = layers % v;

	if (light_first)
		return j * b + (j > v - extra ? j - (v - extra) : 0);
	return j * b + (j < extra ? j : extra);
}

/*
 * Layer activations, in layers x micro-batches, that pipeline rank 'r'
 * holds at its peak: the chunk forward passes it runs before its first
 * backward pass, p - r under 1F1B and 2 (p - r - 1) + (v - 1) p + 1 under
 * the interleaved schedule, in groups of p micro-batches per chunk
 * (Megatron-LM's warm-up: Narayanan et al. 2021, 2.2), never more than
 * the m v of the step.  For the first rank and equal chunks this is
 * Korthikanti et al.'s p (1 + (p - 1) / (p v)) micro-batches of the stage.
 */
static double inflight_layers(const struct train_config *c, int64_t r,
			      int64_t layers, bool light_first)
{
	int64_t p = c->pp, v = c->vp, n, q, rr, done;

	n = v > 1 ? 2 * (p - r - 1) + (v - 1) * p + 1 : p - r;
	if (n > (int64_t)c->micro_batches * v)
		n = (int64_t)c->micro_batches * v;
	if (n <= 0 || layers <= 0)
		return 0.0;
	if (v == 1)
		return (double)(n * layers);
	q = n / p;
	rr = n % p;
	done = chunk_prefix(layers, v, q % v, light_first);
	return (double)(p * ((q / v) * layers + done) +
			rr * (chunk_prefix(layers, v, q % v + 1, light_first) -
			      done));
}

/* Activations of one layer and micro-batch for the recomputation of
   'c': with full recomputation of some layers only (recompute_layers),
   the average over the layers of those recomputed and those not. */
static double layer_act_of(const struct arch *a, const struct train_config *c,
			   const double layer_act[RECOMPUTE_FULL + 1])
{
	double share;

	if (c->recompute != RECOMPUTE_FULL || c->recompute_layers <= 0)
		return layer_act[c->recompute];
	share = train_recompute_fraction(a, c);
	return share * layer_act[RECOMPUTE_FULL] +
	       (1.0 - share) * layer_act[RECOMPUTE_NONE];
}

void train_stage_memory_states(struct train_stage_memory *w,
			       const struct arch *a,
			       const struct train_config *c,
			       const double layer_act[RECOMPUTE_FULL + 1])
{
	struct train_memory m;
	struct state_bytes sb = { 0.0, 0.0, 0.0 };
	int expert_shards;
	int shards = train_config_zero_shards(c, &expert_shards);

	/* the bytes per parameter, where the offload or the ZeRO-3 gather
	   need them (the search's inner loop: not otherwise) */
	if (c->offload_fraction > 0.0 || c->zero >= 3)
		sb = train_state_bytes(c->precision, c->optimizer);

	/* model states per parameter: replicated ones shard over dp * cp,
	   experts over the dp * cp / ep ranks that hold the same experts
	   (with hybrid sharding, those of them within a node) */
	train_memory_states(1.0, c->zero, shards, c->precision, c->optimizer,
			    &m);
	w->dense_weights = m.weights_bytes;
	w->dense_gradients = m.gradients_bytes;
	w->dense_optimizer = m.optimizer_bytes;
	train_memory_states(1.0, c->zero, expert_shards,
			    c->precision, c->optimizer, &m);
	w->expert_weights = m.weights_bytes;
	w->expert_gradients = m.gradients_bytes;
	w->expert_optimizer = m.optimizer_bytes;
	w->layer_act = layer_act_of(a, c, layer_act);
	/* the layer being recomputed holds its full activations */
	w->recompute_act = c->recompute == RECOMPUTE_FULL ?
				   layer_act[RECOMPUTE_NONE] :
				   0.0;
	/* fp32 logits of one micro-batch for the loss */
	w->logits = 4.0 * c->micro_batch * a->seq_len / c->cp * a->vocab /
		    c->tp;
	/* optimizer offload: the offloaded share of the states (the GPU's
	   shard of them: ZeRO >= 1) lives in host memory, with the fp32
	   gradients it is stepped from */
	w->optimizer_kept = 1.0 - c->offload_fraction;
	w->host_per_optimizer_byte = host_ratio(c->offload_fraction, &sb);
	/* ZeRO-3 gathers the full weights of about two layers at a time
	   (current and prefetched): the GPU's tensor-parallel share of the
	   replicated part and of its own experts (1/ep of the routed ones) */
	w->gather_bytes = c->zero >= 3 ?
				  2.0 * (w->dense_layer + w->expert_layer) *
					  sb.weights :
				  0.0;
}

/* Model states and activations of one GPU of a stage: pipeline rank 'r'
   of 'layers' layers (the reserve is not set). */
static void stage_memory(const struct train_stage_memory *w,
			 const struct train_config *c, enum stage_kind kind,
			 int r, int layers, struct train_memory *m)
{
	double dense, expert, act, opt;

	stage_params(w, kind, layers, &dense, &expert);
	m->weights_bytes = dense * w->dense_weights +
			   expert * w->expert_weights;
	m->gradients_bytes = dense * w->dense_gradients +
			     expert * w->expert_gradients;
	opt = dense * w->dense_optimizer + expert * w->expert_optimizer;
	m->optimizer_bytes = w->optimizer_kept * opt;
	m->offloadable_bytes = opt;
	/* the first chunk of the first stage is its light one (it holds the
	   embedding), the last chunk of the others */
	act = w->layer_act * inflight_layers(c, r, layers, kind == STAGE_FIRST);
	if (layers > 0)
		act += w->recompute_act;
	if (kind == STAGE_LAST || kind == STAGE_ONLY)
		act += w->logits;
	m->activations_bytes = act;
	m->total_bytes = m->weights_bytes + m->gradients_bytes +
			 m->optimizer_bytes + act;
}

/* The most loaded GPU of the stages of 's' (the reserve is not set). */
static void peak_memory(const struct train_stage_memory *w,
			const struct train_config *c,
			const struct train_stages *s, struct train_memory *m)
{
	struct train_memory t;
	double most;

	/* the first stage (embedding, most micro-batches in flight), the
	   most loaded middle one (one micro-batch fewer), or the last
	   (output layer, logits); the host holds the offloaded states of
	   the stage with the most of them */
	if (c->pp <= 1) {
		stage_memory(w, c, STAGE_ONLY, 0, s->first, m);
		m->host_bytes = w->host_per_optimizer_byte *
				m->offloadable_bytes;
		return;
	}
	stage_memory(w, c, STAGE_FIRST, 0, s->first, m);
	most = m->offloadable_bytes;
	if (c->pp > 2) {
		stage_memory(w, c, STAGE_MIDDLE, 1, s->middle, &t);
		most = most > t.offloadable_bytes ? most : t.offloadable_bytes;
		if (t.total_bytes > m->total_bytes)
			*m = t;
	}
	stage_memory(w, c, STAGE_LAST, c->pp - 1, s->last, &t);
	most = most > t.offloadable_bytes ? most : t.offloadable_bytes;
	if (t.total_bytes > m->total_bytes)
		*m = t;
	m->offloadable_bytes = most;
	m->host_bytes = w->host_per_optimizer_byte * most;
}

double train_stage_memory_peak(const struct train_stage_memory *w,
			       const struct arch *a,
			       const struct train_config *c, int first,
			       int last)
{
	struct train_config t = *c;
	struct train_stages s;
	struct train_memory m;

	t.first_stage_layers = first;
	t.last_stage_layers = last;
	train_stage_split(a, &t, &s);
	peak_memory(w, &t, &s, &m);
	return m.total_bytes;
}

void train_memory_eval_stages(const struct train_stage_memory *w,
			      const struct arch *a,
			      const struct train_config *c,
			      double capacity_bytes, struct train_memory *m)
{
	struct train_stages s;

	train_stage_split(a, c, &s);
	peak_memory(w, c, &s, m);
	m->reserve_bytes = train_memory_reserve(capacity_bytes) +
			   w->gather_bytes;
	m->total_bytes = m->weights_bytes + m->gradients_bytes +
			 m->optimizer_bytes + m->activations_bytes +
			 m->reserve_bytes;
	m->capacity_bytes = capacity_bytes;
	m->node_host_bytes = 0.0;
	m->host_capacity_bytes = 0.0;
	m->fits = m->total_bytes <= capacity_bytes;
}

void train_memory_host(struct train_memory *m, const struct train_config *c,
		       int gpus_per_node, double host_capacity_bytes)
{
	int node = c->gpus < gpus_per_node ? c->gpus : gpus_per_node;

	m->host_capacity_bytes = host_capacity_bytes;
	m->node_host_bytes = m->host_bytes * (node > 0 ? node : 1);
	if (m->host_bytes > 0.0)
		m->fits = m->fits && m->node_host_bytes <= host_capacity_bytes;
}

void train_memory_eval_with(const struct arch *a,
			    const struct train_config *c,
			    const double layer_act[RECOMPUTE_FULL + 1],
			    double capacity_bytes, struct train_memory *m)
{
	struct train_stage_memory w;

	train_stage_memory_params(&w, a, c);
	train_stage_memory_states(&w, a, c, layer_act);
	train_memory_eval_stages(&w, a, c, capacity_bytes, m);
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
