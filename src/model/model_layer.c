/*
 * model_layer.c - one transformer layer's forward and backward costs
 * (GEMMs, attention, element-wise work, fp8 casts, tensor- and
 * context-parallel collectives) and a micro-batch's (the output layer,
 * the embedding, activations): train_micro_eval.  The stages, the
 * pipeline and the step are in model_train.c.  See model_train.h and
 * specs/models.md sections 4-6.
 */
#include <math.h>
#include <stdint.h>

#include "checked.h"
#include "model_comm.h"
#include "model_kernel.h"
#include "model_train_internal.h"

/* FlashAttention's backward runs five matrix products where the forward
   runs two (Dao 2023, algorithm 2). */
static const double flash_bwd_flops_ratio = 2.5;

/*
 * Memory traffic of the softmax cross-entropy per logit, as Megatron-Core's
 * vocab-parallel cross-entropy (megatron/core/tensor_parallel/
 * cross_entropy.py) runs it on 16-bit logits.  Forward, six kernels: the
 * cast to fp32 (read 2, write 4 bytes), the maximum (read 4), the
 * in-place subtraction and exponential (read 4, write 4 each), the sum
 * (read 4) and the division into probabilities kept for the backward
 * (read 4, write 4): 38 bytes.  Backward, two: the in-place scaling by the
 * output gradient (read 4, write 4) and the cast of the gradient back to
 * 16 bits (read 4, write 2): 14 bytes.
 */
static const double ce_fwd_bytes_per_logit = 38.0;
static const double ce_bwd_bytes_per_logit = 14.0;
static const double ce_fwd_kernels = 6.0;
static const double ce_bwd_kernels = 2.0;

/*
 * Elements moved per element of a ring step's result when the cp steps
 * are folded together: the first step writes it (read 1, write 1), each
 * later one reads it and the running result and writes the sum (3):
 * 2 + 3 (cp - 1).  Times the element size, bytes.
 */
static double cp_merge_passes(int cp)
{
	return 2.0 + 3.0 * (cp - 1.0);
}

/* Fraction of the s x s attention that a causal fused kernel computes. */
static const double causal_fraction = 0.5;

/*
 * What a layer runs on: its GEMMs ('mm', in the training precision) and
 * everything else ('vec': attention, element-wise work, the output layer
 * and the router).  They differ in fp8 training, where Transformer Engine
 * runs only the linear layers' GEMMs in fp8 and the rest in bf16
 * (DeepSeek-AI 2024, 3.3.1: the embedding, output head, gating,
 * normalization and attention stay in their original precision).
 */
struct perf2 {
	const struct device_perf *mm;
	const struct device_perf *vec;
};

/*
 * The casts of an fp8 linear layer that the fused kernels do not hide,
 * for 'count' layers of m x k inputs and m x n outputs: forward, the
 * input's transposed fp8 copy kept for the weight gradient (written, 1
 * byte per element; the cast itself is fused into the producing norm or
 * activation); backward, the cast and transpose of the output gradient
 * (read 2, write 1 + 1 bytes per element), as Transformer Engine's
 * cast_transpose kernels run them.  The weights' fp8 copies are made
 * once per step and left out.  None in other precisions.
 */
static void fp8_casts(const struct perf2 *p, double m, double n, double k,
		      double count, double *fwd_s, double *bwd_s)
{
	if (p->mm->elem_bytes >= p->vec->elem_bytes)
		return;
	*fwd_s += kernel_stream_s(p->vec, count * m * k * 1.0);
	*bwd_s += kernel_stream_s(p->vec, count * m * n * 4.0);
}

/* Forward GEMM C[m x n] = A[m x k] W[k x n] and its two backward GEMMs. */
static void linear(const struct perf2 *p, double m, double n, double k,
		   double *fwd_s, double *bwd_s)
{
	const struct device_perf *d = p->mm;

	*fwd_s += kernel_gemm_s(d, m, n, k, 1.0);
	*bwd_s += kernel_gemm_s(d, m, k, n, 1.0) +  /* input gradient */
		  kernel_gemm_s(d, k, n, m, 1.0);   /* weight gradient */
	fp8_casts(p, m, n, k, 1.0, fwd_s, bwd_s);
}


/* 'count' independent linear layers of the same shape as one grouped
   GEMM (the local experts of an MoE layer). */
static void linear_group(const struct perf2 *p, double m, double n,
			 double k, double count, double *fwd_s, double *bwd_s)
{
	const struct device_perf *d = p->mm;

	*fwd_s += kernel_gemm_s(d, m, n, k, count);
	*bwd_s += kernel_gemm_s(d, m, k, n, count) +
		  kernel_gemm_s(d, k, n, m, count);
	fp8_casts(p, m, n, k, count, fwd_s, bwd_s);
}

/* FFN of width 'f' (a dense layer, or the shared experts), split over tp. */
static void ffn_dense(const struct perf2 *d, const struct arch *a,
		      double n, double f, double t, double *fwd_s,
		      double *bwd_s)
{
	if (f <= 0.0)
		return;
	linear(d, n, (a->gated_ffn ? 2.0 : 1.0) * f / t, a->hidden, fwd_s,
	       bwd_s);
	linear(d, n, a->hidden, f / t, fwd_s, bwd_s);
}

/*
 * An MoE layer's FFN on one GPU: the router, the shared experts, and the
 * routed experts held locally (experts / ep of them) as grouped GEMMs over
 * the n x top-k tokens the all-to-all brings (balanced routing, as the
 * auxiliary load-balancing losses aim for: Fedus et al. 2022; DeepSeek-AI
 * 2024); the dispatch and combine all-to-alls are returned in '*a2a_s'.
 */
static void ffn_moe(const struct perf2 *d, const struct arch *a,
		    const struct train_config *c, const struct cluster *cl,
		    double n, double *fwd_s, double *bwd_s, double *a2a_s)
{
	struct perf2 gate = { d->vec, d->vec };
	double t = c->tp, ep = train_config_ep(c);
	double local = a->experts / ep;
	double m_e = n * a->experts_per_token / local;
	double f = a->expert_ffn;
	struct link l = train_tp_link(cl, ck_sat_mul_int(c->tp, train_config_ep(c)));

	linear(&gate, n, a->experts, a->hidden, fwd_s, bwd_s); /* router */
	ffn_dense(d, a, n, (double)a->shared_experts * f, t, fwd_s, bwd_s);
	linear_group(d, m_e, (a->gated_ffn ? 2.0 : 1.0) * f / t, a->hidden,
		     local, fwd_s, bwd_s);
	linear_group(d, m_e, a->hidden, f / t, local, fwd_s, bwd_s);
	/* dispatch and combine: each token's hidden state to its top-k
	   experts and back, split over tp; in fp8 training the dispatch
	   sends the fp8 inputs of the experts' GEMMs, the combine bf16
	   outputs (DeepSeek-AI 2024, 3.3.2) */
	*a2a_s = comm_alltoall_s(&l, n * a->experts_per_token * a->hidden *
					     d->mm->elem_bytes / t,
				 train_config_ep(c)) +
		 comm_alltoall_s(&l, n * a->experts_per_token * a->hidden *
					     d->vec->elem_bytes / t,
				 train_config_ep(c));
}

/* Attention core: scores, softmax, weighted sum, for 'count' heads x
   sequences of 'sq' queries against 'sk' keys. */
static void attention_core(const struct device_perf *d, const struct arch *a,
			   const struct train_config *c, double count,
			   double sq, double sk, struct train_layer *lc)
{
	double dqk = (double)a->head_dim + a->rope_dim; /* query/key width */
	double dv = a->v_dim;

	if (c->attention == ATTN_FLASH2) {
		/* FlashAttention-2: at most its H100 rate per SM */
		double flops = count * sq * sk * 2.0 * (dqk + dv) *
			       causal_fraction;

		lc->attn_fwd_s = kernel_flash2_attention_s(d, flops, false);
		lc->attn_bwd_s = kernel_flash2_attention_s(
			d, flash_bwd_flops_ratio * flops, true);
	} else if (c->attention == ATTN_FLASH) {
		double flops = count * sq * sk * 2.0 * (dqk + dv) *
			       causal_fraction;

		lc->attn_fwd_s = kernel_flash_attention_s(d, flops, false);
		lc->attn_bwd_s = kernel_flash_attention_s(
			d, flash_bwd_flops_ratio * flops, true);
	} else {
		double elems = count * sq * sk;
		/* softmax: read and write the scores; dropout: read, write
		   output and a one-byte mask */
		double fwd_bytes = elems * (4.0 + (c->dropout ? 5.0 : 0.0));
		double bwd_bytes = elems * (6.0 + (c->dropout ? 5.0 : 0.0));

		lc->attn_fwd_s = kernel_gemm_s(d, sq, sk, dqk, count) +
				 kernel_gemm_s(d, sq, dv, sk, count) +
				 kernel_stream_s(d, fwd_bytes) +
				 (c->dropout ? kernel_gap_s() : 0.0);
		lc->attn_bwd_s = kernel_gemm_s(d, sq, dv, sk, count) +
				 kernel_gemm_s(d, sk, dv, sq, count) +
				 kernel_gemm_s(d, sq, sk, dqk, count) +
				 kernel_gemm_s(d, sk, dqk, sq, count) +
				 kernel_stream_s(d, bwd_bytes) +
				 (c->dropout ? kernel_gap_s() : 0.0);
	}
}

/*
 * The element-wise operations that a framework runs as eager PyTorch
 * kernels (training.eager_ops; specs/models.md 6.3): one kernel per
 * operation, each reading its inputs from memory and writing its output.
 * Bytes per element of the tensor the operation touches, forward, with
 * 16-bit activations (as every element-wise count of 6.3), and kernels:
 *
 * norm: RMSNorm in fp32 math, op by op, as PyTorch's composite rms_norm
 * (aten/src/ATen/native/layer_norm.cpp, before the fused CUDA kernel of
 * pytorch PR 153666, PyTorch 2.9), Hugging Face's LlamaRMSNorm and FMS's
 * LayerNormParameterized run it: the cast to fp32 (read 2, write 4), the
 * square (4 + 4), the mean (read 4), eps and rsqrt (one value a row), the
 * scaling (4 + 4), the cast back (4 + 2) and the weight (2 + 2): 36 bytes
 * in 8 kernels, where a fused norm reads 2 and writes 2 in one
 * (PyTorch's composite applies the weight before the cast back, in fp32:
 * 40 bytes).
 *
 * rope: the rotate-half form (Hugging Face transformers, Megatron-DeepSpeed
 * megatron/model/rotary_pos_embedding.py, GPT-NeoX) on each of Q and K:
 * x cos (2 + 2), one half negated (1 + 1), the halves concatenated
 * (2 + 2), times sin (2 + 2), the sum (4 + 2): 20 bytes in 5 kernels (the
 * complex form of Meta's reference code and torchtitan moves the same 20:
 * cast to fp32 2 + 4, the complex product 4 + 4, the cast back 4 + 2).
 * Fused, 6.3 counts none (Transformer Engine applies it in the kernel
 * that reads Q and K).
 *
 * act: a gated FFN's SiLU of the gate (2 + 2), then its product with the
 * up projection (4 + 2): 10 bytes an element of the FFN width in 2
 * kernels, where a fused SwiGLU reads both and writes one (6).  A plain
 * FFN's activation is one kernel either way (nn.Linear adds its bias in
 * the GEMM).
 *
 * kv_expand: grouped-query keys and values copied out to every query
 * head before the attention kernel (repeat_kv: expand, then reshape):
 * each reads its kv heads and writes the query heads, 2 bytes an element,
 * in one kernel each.
 */
static const double eager_norm_bytes = 36.0;
static const double eager_norm_kernels = 8.0;
static const double eager_rope_bytes = 20.0;
static const double eager_rope_kernels = 5.0;  /* on each of Q and K */
static const double eager_act_gated_bytes = 10.0;
static const double eager_act_gated_kernels = 2.0;
static const double eager_elem_bytes = 2.0;    /* a 16-bit activation */

/* 'kernels' dependent element-wise kernels moving 'bytes' in all. */
static double kernels_s(const struct device_perf *d, double bytes,
			double kernels)
{
	return kernel_stream_s(d, bytes) + (kernels - 1.0) * kernel_gap_s();
}

/* One norm of 'elems' elements, forward: fused (read and write 2 bytes
   each) or eager. */
static double norm_fwd_s(const struct device_perf *d,
			 const struct train_config *c, double elems)
{
	if (c->eager_ops & EAGER_OP_NORM)
		return kernels_s(d, elems * eager_norm_bytes,
				 eager_norm_kernels);
	return kernel_stream_s(d, elems * 4.0);
}

/* The FFN activation over 'elems' elements of its width, forward. */
static double act_fwd_s(const struct device_perf *d, const struct arch *a,
			const struct train_config *c, double elems)
{
	if (a->gated_ffn && (c->eager_ops & EAGER_OP_ACT))
		return kernels_s(d, elems * eager_act_gated_bytes,
				 eager_act_gated_kernels);
	return kernel_stream_s(d, elems * (a->gated_ffn ? 6.0 : 4.0));
}

/*
 * The eager work before the attention kernel of a layer of 'tokens'
 * tokens, forward: the rotary embedding of Q and K (MLA: of their rotary
 * parts) and the copies of grouped-query K and V out to every query
 * head.  0 when both are fused.
 */
static double eager_attn_inputs_s(const struct device_perf *d,
				  const struct arch *a,
				  const struct train_config *c, double tokens)
{
	double t = c->tp, s = 0.0;
	double q_heads = a->heads / t;
	/* kv heads on a GPU: split over tp, or replicated when fewer */
	double kv_heads = a->kv_heads >= c->tp ? a->kv_heads / t : 1.0;

	if (c->eager_ops & EAGER_OP_ROPE) {
		double elems = a->kv_lora > 0 ?
				       (q_heads + 1.0) * a->rope_dim :
				       (q_heads + kv_heads) * a->head_dim;

		s += kernels_s(d, tokens * elems * eager_rope_bytes,
			       2.0 * eager_rope_kernels);
	}
	if ((c->eager_ops & EAGER_OP_KV_EXPAND) && a->kv_lora == 0 &&
	    kv_heads < q_heads)
		s += kernels_s(d, tokens * 2.0 * (kv_heads + q_heads) *
					  a->head_dim * eager_elem_bytes,
			       2.0);
	return s;
}

/* Memory-bound element-wise work of one layer (norms, residual adds and
   dropout, FFN activation; with eager_ops the rotary embedding and the
   key/value copies too), forward; the backward moves twice as much. */
static double elementwise_fwd_s(const struct device_perf *d,
				const struct arch *a,
				const struct train_config *c, double tokens,
				double f)
{
	double h = a->hidden;
	double rep = c->sequence_parallel ? c->tp : 1.0;
	double resid = tokens * h * (6.0 + (c->dropout ? 1.0 : 0.0)) / rep;

	return 2.0 * norm_fwd_s(d, c, tokens * h / rep) +
	       2.0 * kernel_stream_s(d, resid) +
	       act_fwd_s(d, a, c, tokens * f / c->tp) +
	       eager_attn_inputs_s(d, a, c, tokens);
}

/*
 * What selective recomputation repeats of a layer of 'n' tokens, by the
 * modules of c (train_config_recompute_modules): the attention core
 * ('attn_fwd_s'), the two norms, MLA's up-projections, the experts'
 * activation (averaged over the layers, as the layer costs are).
 */
static double selective_recompute_s(const struct perf2 *p,
				    const struct arch *a,
				    const struct train_config *c, double n,
				    double attn_fwd_s)
{
	int mods = train_config_selective_modules(c);
	double t = c->tp, rep = c->sequence_parallel ? c->tp : 1.0;
	double s = 0.0;

	if (mods & RECOMPUTE_MOD_CORE_ATTN)
		s += attn_fwd_s;
	if (mods & RECOMPUTE_MOD_LAYERNORM)
		s += 2.0 * norm_fwd_s(p->vec, c, n * a->hidden / rep);
	if ((mods & RECOMPUTE_MOD_MLA_UP_PROJ) && a->kv_lora > 0) {
		double heads = a->heads;

		s += kernel_gemm_s(p->mm, n,
				   heads * ((double)a->head_dim + a->v_dim) / t,
				   a->kv_lora, 1.0);
		if (a->q_lora > 0)
			s += kernel_gemm_s(p->mm, n,
					   heads * ((double)a->head_dim +
						    a->rope_dim) / t,
					   a->q_lora, 1.0);
	}
	if ((mods & RECOMPUTE_MOD_MOE_ACT) && arch_is_moe(a))
		s += (double)arch_moe_layers(a) / a->layers *
		     act_fwd_s(p->vec, a, c, n * arch_moe_active_ffn(a) / t);
	return s;
}

/*
 * Exposed time of a pass's tensor-parallel collectives ('comm_s') that
 * run beside the pass's GEMMs ('gemm_s').  Without tp_comm_overlap, all of
 * it.  With it, as Megatron-Core's --tp-comm-overlap runs them (Transformer
 * Engine userbuffers; Wang et al. 2023, "Overlap communication with
 * dependent computation via decomposition"): each all-gather or
 * reduce-scatter is cut into tp chunks pipelined with the chunks of the
 * GEMM that consumes or produces it, so the first chunk (1/tp of the
 * traffic) stays exposed, the rest hides behind the other tp - 1 GEMM
 * chunks up to their length, and the hidden part still costs the link's
 * overlap_cost in slower compute (model_comm.c).
 */
static double tp_exposed_s(const struct train_config *c, const struct link *l,
			   double comm_s, double gemm_s)
{
	double t = c->tp, first, rest, hidden;

	if (!c->tp_comm_overlap || c->tp <= 1 || comm_s <= 0.0)
		return comm_s;
	first = comm_s / t;
	rest = comm_s - first;
	hidden = fmin(rest, gemm_s * (t - 1.0) / t);
	return first + rest - hidden + l->overlap_cost * hidden;
}

static void layer_cost_eval(const struct perf2 *p, const struct arch *a,
			    const struct train_config *c,
			    const struct cluster *cl, struct train_layer *lc)
{
	const struct device_perf *d = p->vec;
	double t = c->tp;
	double n = (double)c->micro_batch * a->seq_len / c->cp;
	double h = a->hidden;
	double fwd = 0.0, bwd = 0.0, elem;
	double act_bytes = n * h * d->elem_bytes; /* one activation tensor */
	struct link tl = train_tp_link(cl, c->tp);
	double tp_pass;

	/* projections, split column- or row-wise over tp (or replicated:
	   MLA's down-projections) */
	{
		struct attn_gemm g[ATTN_GEMM_MAX];
		int ng = arch_attn_gemms(a, g);

		for (int i = 0; i < ng; i++)
			linear(p, n, g[i].split == 1 ? g[i].out / t : g[i].out,
			       g[i].split == 2 ? g[i].in / t : g[i].in, &fwd,
			       &bwd);
	}
	/* the FFN: dense, or for an MoE model the average over its dense and
	   MoE layers (all per-layer costs are linear in the layer count) */
	lc->a2a_s = 0.0;
	if (arch_is_moe(a)) {
		double moe = (double)arch_moe_layers(a) / a->layers;
		double df = 0.0, db = 0.0, mf = 0.0, mb = 0.0, a2a;

		ffn_dense(p, a, n, a->ffn_hidden, t, &df, &db);
		ffn_moe(p, a, c, cl, n, &mf, &mb, &a2a);
		fwd += (1.0 - moe) * df + moe * mf;
		bwd += (1.0 - moe) * db + moe * mb;
		lc->a2a_s = moe * a2a;
		elem = (1.0 - moe) * elementwise_fwd_s(d, a, c, n,
						       a->ffn_hidden) +
		       moe * elementwise_fwd_s(d, a, c, n,
					       arch_moe_active_ffn(a));
	} else {
		ffn_dense(p, a, n, a->ffn_hidden, t, &fwd, &bwd);
		elem = elementwise_fwd_s(d, a, c, n, a->ffn_hidden);
	}

	attention_core(d, a, c, (double)c->micro_batch * a->heads / t,
		       (double)a->seq_len / c->cp, a->seq_len, lc);
	lc->fwd_s = fwd + lc->attn_fwd_s + elem;
	lc->bwd_s = bwd + lc->attn_bwd_s + 2.0 * elem;

	/* two collectives per pass: all-reduce, or with sequence parallelism
	   all-gather + reduce-scatter of the same volume (Korthikanti 3.3) */
	tp_pass = c->sequence_parallel ?
			  2.0 * (comm_allgather_s(&tl, act_bytes, c->tp) +
				 comm_reducescatter_s(&tl, act_bytes, c->tp)) :
			  2.0 * comm_allreduce_s(&tl, act_bytes, c->tp);
	/* the MoE all-to-alls run in both passes, with the TP traffic; with
	   tp_comm_overlap the TP collectives hide behind the projections'
	   and the FFN's GEMMs of the same pass */
	if (c->ep_comm_overlap && lc->a2a_s > 0.0) {
		/* DualPipe (DeepSeek-AI 2024, 3.2.1) and Megatron-Core's
		   --overlap-moe-expert-parallel-comm pair the forward chunk
		   of one micro-batch with the backward chunk of another, so
		   each pass's all-to-alls run beside the other's compute */
		struct link el = train_tp_link(cl, ck_sat_mul_int(c->tp,
							    train_config_ep(c)));

		lc->a2a_s = 0.5 * comm_overlapped_s(&el, 2.0 * lc->a2a_s,
						    lc->fwd_s + lc->bwd_s);
	}
	lc->tp_fwd_s = tp_exposed_s(c, &tl, tp_pass, fwd) + lc->a2a_s;
	lc->tp_bwd_s = tp_exposed_s(c, &tl, tp_pass, bwd) + lc->a2a_s;

	/* ring attention passes K and V around the cp ranks while computing
	   (Liu et al. 2023): what the attention time cannot hide shows, and
	   the hidden part costs the link's overlap_cost in slower compute,
	   as every overlapped collective does (model_comm.c).  Each of the
	   cp steps also folds its partial result into the running one, as
	   Transformer Engine's ring (AttnFuncWithCPAndKVP2P) does in kernels
	   of their own: forward, the step's output into the output
	   (flash_attn_fwd_out_correction: out += out_step * exp(lse_step -
	   lse)), backward, the step's query gradient into dq and its key and
	   value gradients into the dK/dV that travel the ring (add_): read
	   both, write one (cp_merge_passes) */
	lc->cp_fwd_s = 0.0;
	lc->cp_bwd_s = 0.0;
	if (c->cp > 1) {
		/* each step a send to the next of the cp ranks */
		struct link cl_link = comm_link(cl, ck_sat_mul_int(c->tp,
								   c->cp),
						2);
		double kv_elems = n * arch_kv_elems_per_token_layer(a) / t;
		double out_elems = n * a->heads * (double)a->v_dim / t;
		double dq_elems = n * a->heads *
				  ((double)a->head_dim + a->rope_dim) / t;
		double merge_bytes = cp_merge_passes(c->cp) * d->elem_bytes;
		double pass = (c->cp - 1.0) *
			      comm_p2p_s(&cl_link, kv_elems * d->elem_bytes);

		lc->cp_fwd_s =
			comm_overlapped_s(&cl_link, pass, lc->attn_fwd_s) +
			kernel_stream_s(d, out_elems * merge_bytes);
		lc->cp_bwd_s =
			comm_overlapped_s(&cl_link, 2.0 * pass, lc->attn_bwd_s) +
			kernel_stream_s(d, (dq_elems + kv_elems) * merge_bytes);
	}

	/* full recomputation repeats the forward pass with its collectives,
	   the ring's too; selective repeats the attention core (Korthikanti
	   et al. 2022, section 5), a fused kernel too: Megatron-Core
	   checkpoints the core attention whatever its backend
	   (checkpoint_core_attention in megatron/core/transformer/
	   attention.py), and with cp > 1 that core is the whole ring */
	lc->recompute_s[RECOMPUTE_NONE] = 0.0;
	lc->recompute_s[RECOMPUTE_SELECTIVE] = selective_recompute_s(
		p, a, c, n, lc->attn_fwd_s + lc->cp_fwd_s);
	lc->recompute_s[RECOMPUTE_FULL] = lc->fwd_s + lc->cp_fwd_s;
	lc->tp_recompute_s[RECOMPUTE_NONE] = 0.0;
	lc->tp_recompute_s[RECOMPUTE_SELECTIVE] = 0.0;
	lc->tp_recompute_s[RECOMPUTE_FULL] = lc->tp_fwd_s;
}

int train_micro_eval(const struct arch *a, const struct train_config *c,
		     const struct gpu_spec *g, const struct cluster *cl,
		     struct train_micro *mc)
{
	double n = (double)c->micro_batch * a->seq_len / c->cp;
	double t = c->tp;
	double v = a->vocab;
	double h = a->hidden;
	struct link tl = train_tp_link(cl, c->tp);
	struct perf2 p = { &mc->d, &mc->dv }, head = { &mc->dv, &mc->dv };

	/* the GEMMs in the training precision, the rest in bf16 when that
	   is fp8 (struct perf2) */
	if (device_perf_init(&mc->d, g, c->precision, false) != 0)
		return -1;
	mc->dv = mc->d;
	if (c->precision == PREC_FP8 &&
	    device_perf_init(&mc->dv, g, PREC_BF16, false) != 0)
		return -1;
	layer_cost_eval(&p, a, c, cl, &mc->layer);
	mc->act_bytes = n * h * mc->dv.elem_bytes;

	/* output layer on the last stage: logits GEMM (vocabulary split over
	   tp) and the fp32 softmax cross-entropy as Megatron-Core's
	   vocab-parallel cross-entropy runs it, in six kernels forward and
	   two backward (ce_fwd_bytes_per_logit, ce_bwd_bytes_per_logit); the
	   embedding lookup on the first stage is a gather of
	   n x h (its gradient a scatter of the same); each has one
	   tensor-parallel collective of the activations: the embedding's
	   all-reduce forward (vocabulary-parallel embedding), the output
	   layer's input-gradient all-reduce backward */
	mc->out_fwd_s = 0.0;
	mc->out_bwd_s = 0.0;
	linear(&head, n, v / t, h, &mc->out_fwd_s, &mc->out_bwd_s);
	mc->out_fwd_s += kernel_stream_s(&mc->dv, n * v / t *
						     ce_fwd_bytes_per_logit) +
			 (ce_fwd_kernels - 1.0) * kernel_gap_s();
	mc->out_bwd_s += kernel_stream_s(&mc->dv, n * v / t *
						     ce_bwd_bytes_per_logit) +
			 (ce_bwd_kernels - 1.0) * kernel_gap_s();
	mc->embed_fwd_s = kernel_stream_s(&mc->dv, 2.0 * mc->act_bytes);
	mc->embed_bwd_s = kernel_stream_s(&mc->dv, 2.0 * mc->act_bytes);
	mc->head_tp_s = comm_allreduce_s(&tl, mc->act_bytes, c->tp);
	train_layer_activations(a, c, mc->layer_act_bytes);
	train_stage_memory_params(&mc->mem, a, c);
	mc->params = arch_params(a);
	mc->model_flops_per_token = train_model_flops_per_token(a);
	for (int r = RECOMPUTE_NONE; r <= RECOMPUTE_FULL; r++)
		mc->hw_flops_per_token[r] =
			train_hw_flops_per_token(a, (enum recompute)r);
	/* selective: the attention core again only when it is among the
	   modules, MLA's up-projections (2 FLOPs per weight) when they are */
	{
		int mods = train_config_selective_modules(c);
		double *sel = &mc->hw_flops_per_token[RECOMPUTE_SELECTIVE];

		if (!(mods & RECOMPUTE_MOD_CORE_ATTN))
			*sel = mc->hw_flops_per_token[RECOMPUTE_NONE];
		if (mods & RECOMPUTE_MOD_MLA_UP_PROJ)
			*sel += 2.0 * a->layers * arch_attn_up_proj_params(a);
	}
	return 0;
}

double train_rate_ceiling(const struct gpu_spec *g, enum precision p)
{
	struct device_perf d, dv;
	double r;

	if (device_perf_init(&d, g, p, false) != 0)
		return 0.0;
	r = kernel_rate_ceiling(&d);
	/* the kernels fp8 runs in bf16 (train_micro_eval) */
	if (p == PREC_FP8 && device_perf_init(&dv, g, PREC_BF16, false) == 0 &&
	    kernel_rate_ceiling(&dv) > r)
		r = kernel_rate_ceiling(&dv);
	return r;
}
