/* model_infer.c - serving latency, throughput and energy; see
   model_infer.h. */
#include "model_infer.h"

#include <math.h>

#include "model_comm.h"
#include "model_kernel.h"
#include "model_memory.h"

/* Bytes of one activation element in serving (fp16/bf16 activations). */
static const double act_bytes = 2.0;

/*
 * Per-group quantization of int4 weights (AWQ, GPTQ: groups of 128 with a
 * 16-bit scale and zero point): 4 bytes per 128 weights.
 */
static const double int4_group_overhead_bytes = 4.0 / 128.0;

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
   dequantized into fp16 GEMMs (W4A16, AWQ); the rest run natively. */
static enum precision math_precision(enum precision w)
{
	return w == PREC_INT4 ? PREC_FP16 : w;
}

double infer_kv_bytes_per_token(const struct arch *a, enum precision kv)
{
	return 2.0 * a->layers * a->kv_heads * (double)a->head_dim *
	       precision_bytes(kv);
}

double infer_weight_bytes_per_param(enum precision p, bool sparse)
{
	double b = precision_bytes(p);

	if (p == PREC_INT4)
		b += int4_group_overhead_bytes;
	return sparse ? b * sparse_kept_fraction + sparse_index_bytes : b;
}

/* Embeddings and the output layer stay 16-bit in quantized models. */
static double embed_bytes_per_param(enum precision p)
{
	return precision_bytes(p) >= 4.0 ? 4.0 : 2.0;
}

/* KV heads held by one GPU: split over tp, replicated when tp > kv. */
static double kv_heads_per_gpu(const struct arch *a, int tp)
{
	return fmax(1.0, (double)a->kv_heads / tp);
}

static void memory_eval(const struct arch *a, const struct infer_config *c,
			const struct gpu_spec *g, struct infer_memory *m)
{
	double tp = c->tp;
	double wb = infer_weight_bytes_per_param(c->weight_precision,
						 c->sparse);
	double ctx = (double)c->prompt_tokens + c->output_tokens;
	double kv_gpu_token = 2.0 * a->layers * kv_heads_per_gpu(a, c->tp) *
			      a->head_dim * precision_bytes(c->kv_precision);
	double chunk = fmin((double)c->batch * c->prompt_tokens,
			    prefill_chunk_tokens);
	double f_width = (a->gated_ffn ? 3.0 : 2.0) * a->ffn_hidden;
	double qkv = a->hidden + 2.0 * a->kv_heads * (double)a->head_dim;

	m->weights_bytes = (a->layers * arch_layer_params(a) * wb +
			    arch_embedding_params(a) *
				    embed_bytes_per_param(c->weight_precision)) /
			   tp;
	m->kv_cache_bytes_per_token = infer_kv_bytes_per_token(a,
								c->kv_precision);
	m->kv_cache_bytes = kv_gpu_token * c->batch * ctx;
	/* one layer's tensors for a prefill chunk, and fp32 logits of the
	   last position of each sequence */
	m->activations_bytes = chunk * act_bytes *
				       (2.0 * a->hidden + (qkv + f_width) / tp) +
			       4.0 * c->batch * (double)a->vocab / tp;
	m->reserve_bytes = train_memory_reserve(g->mem_bytes);
	m->total_bytes = m->weights_bytes + m->kv_cache_bytes +
			 m->activations_bytes + m->reserve_bytes;
	m->capacity_bytes = g->mem_bytes;
	m->fits = m->total_bytes <= g->mem_bytes;
}

int infer_max_batch_memory(const struct arch *a, const struct infer_config *c,
			   const struct gpu_spec *g, int limit)
{
	struct infer_config t = *c;
	struct infer_memory m;
	int lo = 0, hi = limit + 1;

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

/* The four projections of a layer for 'n' tokens. */
static void layer_gemms(const struct device_perf *d, const struct arch *a,
			double n, int tp, double wb, struct phase *ph)
{
	double h = a->hidden;
	double qkv = h + 2.0 * a->kv_heads * (double)a->head_dim;
	double up = (a->gated_ffn ? 2.0 : 1.0) * a->ffn_hidden;
	const double shape[4][2] = { /* n_out, k */
		{ qkv / tp, h },
		{ h, h / tp },
		{ up / tp, h },
		{ h, a->ffn_hidden / (double)tp },
	};

	for (int i = 0; i < 4; i++) {
		ph->s += kernel_gemm_w_s(d, n, shape[i][0], shape[i][1], 1.0,
					 wb);
		ph->flops += 2.0 * n * shape[i][0] * shape[i][1];
		ph->bytes += wb * shape[i][0] * shape[i][1] +
			     d->elem_bytes * n * (shape[i][0] + shape[i][1]);
	}
}

/* Norms, residual adds and the FFN activation for 'n' tokens. */
static void layer_elementwise(const struct device_perf *d,
			      const struct arch *a, double n, int tp,
			      struct phase *ph)
{
	double h = a->hidden;
	double norm = n * h * 2.0 * act_bytes;
	double resid = n * h * 3.0 * act_bytes;
	double act = n * a->ffn_hidden / (double)tp * act_bytes *
		     (a->gated_ffn ? 3.0 : 2.0);

	ph->s += 2.0 * kernel_stream_s(d, norm) +
		 2.0 * kernel_stream_s(d, resid) + kernel_stream_s(d, act);
	ph->bytes += 2.0 * norm + 2.0 * resid + act;
}

static struct link serving_link(const struct cluster *cl, int tp)
{
	return tp <= cl->gpus_per_node ?
		       link_intra_node(cl->intra_bw_bytes_per_s) :
		       link_inter_node(cl->inter_bw_bytes_per_s);
}

/* Prefill of one prompt: every layer, then the last position's
   logits. */
static void prefill_eval(const struct device_perf *d, const struct arch *a,
			 const struct infer_config *c,
			 const struct cluster *cl, struct phase *ph)
{
	double p = c->prompt_tokens;
	double n = p;
	double heads = (double)a->heads / c->tp;
	double wb = infer_weight_bytes_per_param(c->weight_precision,
						 c->sparse);
	double kv_write = n * 2.0 * kv_heads_per_gpu(a, c->tp) * a->head_dim *
			  precision_bytes(c->kv_precision);
	/* causal attention over the prompt: half of 4 p^2 dh per head */
	double attn_flops = 2.0 * heads * p * p * a->head_dim;
	struct link l = serving_link(cl, c->tp);
	struct phase layer = { 0.0, 0.0, 0.0 };

	layer_gemms(d, a, n, c->tp, wb, &layer);
	layer_elementwise(d, a, n, c->tp, &layer);
	layer.s += kernel_flash_attention_s(d, attn_flops, false) +
		   kernel_stream_s(d, kv_write);
	layer.flops += attn_flops;
	layer.bytes += kv_write;
	/* two all-reduces of the activations per layer (Megatron TP) */
	layer.s += 2.0 * comm_allreduce_s(&l, n * a->hidden * act_bytes,
					  c->tp);

	ph->s = a->layers * layer.s;
	ph->flops = a->layers * layer.flops;
	ph->bytes = a->layers * layer.bytes;
	/* output layer for the last position (16-bit weights) */
	ph->s += kernel_gemm_w_s(d, 1.0, (double)a->vocab / c->tp, a->hidden,
				 1.0, 2.0);
	ph->flops += 2.0 * a->vocab * (double)a->hidden / c->tp;
	ph->bytes += 2.0 * a->vocab * (double)a->hidden / c->tp;
}

/* One decode step of 'batch' sequences at context 'ctx'. */
static void decode_eval(const struct device_perf *d, const struct arch *a,
			const struct infer_config *c, const struct cluster *cl,
			double ctx, struct phase *ph)
{
	double b = c->batch;
	double heads = (double)a->heads / c->tp;
	double wb = infer_weight_bytes_per_param(c->weight_precision,
						 c->sparse);
	double kv_read = b * ctx * 2.0 * kv_heads_per_gpu(a, c->tp) *
			 a->head_dim * precision_bytes(c->kv_precision);
	double attn_flops = 4.0 * b * heads * ctx * a->head_dim;
	struct link l = serving_link(cl, c->tp);
	struct phase layer = { 0.0, 0.0, 0.0 };

	layer_gemms(d, a, b, c->tp, wb, &layer);
	layer_elementwise(d, a, b, c->tp, &layer);
	/* attention reads every sequence's KV cache once */
	layer.s += fmax(kv_read / (d->mem_bw_bytes_per_s * d->mem_eff),
			attn_flops / (d->peak_flops * d->matmul_eff)) +
		   kernel_gap_s();
	layer.flops += attn_flops;
	layer.bytes += kv_read;
	layer.s += 2.0 * comm_allreduce_s(&l, b * a->hidden * act_bytes,
					  c->tp);

	ph->s = a->layers * layer.s;
	ph->flops = a->layers * layer.flops;
	ph->bytes = a->layers * layer.bytes;
	ph->s += kernel_gemm_w_s(d, b, (double)a->vocab / c->tp, a->hidden,
				 1.0, 2.0);
	ph->flops += 2.0 * b * a->vocab * (double)a->hidden / c->tp;
	ph->bytes += 2.0 * a->vocab * (double)a->hidden / c->tp;
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
	struct device_perf d;
	struct phase pf, dec;
	double prefill_s, decode_s, share;

	if (device_perf_init(&d, g, math_precision(c->weight_precision),
			     c->sparse) != 0)
		return -1;
	d.peak_flops *= clock;
	prefill_eval(&d, a, c, cl, &pf);
	decode_eval(&d, a, c, cl,
		    c->prompt_tokens + 0.5 * c->output_tokens, &dec);
	/* continuous batching: a request's prefill runs between decode
	   steps of the running batch; in the time a replica completes
	   'batch' requests it runs their 'batch' prefills and
	   (output - 1) decode steps of the whole batch */
	r->prefill_s = pf.s;
	r->ttft_s = pf.s;
	r->tpot_s = dec.s;
	prefill_s = (double)c->batch * pf.s;
	decode_s = (c->output_tokens - 1.0) * dec.s;
	r->e2e_latency_s = r->ttft_s + decode_s;
	r->service_s = prefill_s + decode_s;
	r->throughput_tokens_per_s = (double)c->batch * c->output_tokens /
				     r->service_s;
	r->throughput_tokens_per_s_per_gpu = r->throughput_tokens_per_s /
					     c->tp;
	r->prefill_flops_per_byte = pf.flops / pf.bytes;
	r->decode_flops_per_byte = dec.flops / dec.bytes;
	share = (phase_power_share(&d, r->prefill_flops_per_byte) * prefill_s +
		 phase_power_share(&d, r->decode_flops_per_byte) * decode_s) /
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
	facility = r->gpu_power_w * c->tp * (1.0 + cl->host_overhead) *
		   cl->pue;
	r->energy_j_per_token = facility * r->service_s /
				((double)c->batch * c->output_tokens);
	r->tokens_per_joule = 1.0 / r->energy_j_per_token;
	return 0;
}
