/* model_train.c - training step time: stages, the pipeline schedule,
   data-parallel traffic, optimizer offload and the step, and the stage
   chooser; one layer's and one micro-batch's costs are in model_layer.c.
   See model_train.h. */
#include "model_train.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>

#include "checked.h"
#include "model_comm.h"
#include "model_kernel.h"
#include "model_train_internal.h"

/*
 * Gradients travel in fp32 in the data-parallel reduction: Megatron-LM
 * accumulates and all-reduces fp32 main gradients by default, and PyTorch
 * FSDP's usual mixed-precision policy reduces in fp32.
 */
static const double grad_comm_bytes_per_param = 4.0;

/*
 * Memory traffic of one mixed-precision optimizer step per parameter, as
 * Megatron-LM and apex's fused multi-tensor Adam run it: zero the fp32
 * gradient buffer (4), read it for the gradient norm (4), Adam reads the
 * fp32 gradient, master weight and both moments and writes back weight and
 * moments (16 + 12), then the master weight is copied to the 16-bit model
 * weight (4 + 2).  SGD with momentum moves one moment less (8 bytes).
 */
static const double adam_step_bytes_per_param = 42.0;
static const double sgd_step_bytes_per_param = 34.0;

/*
 * Megatron-Core's gradient buckets: max(40M, 1M x dp) parameters each
 * (DistributedDataParallelConfig.bucket_size left unset,
 * megatron/core/distributed/distributed_data_parallel.py).  The reduction
 * of a bucket starts when its last gradient is ready, so the last bucket
 * of the backward pass (the first layers' parameters, and the embedding,
 * which is the last gradient produced) cannot hide; the parameter gather
 * of the next step needs the same bucket first.
 */
static const double dp_bucket_params = 40e6;
static const double dp_bucket_params_per_rank = 1e6;

/*
 * Exposed time of 'first_s' on link 'a' and then 'second_s' on link 'b',
 * one stream of collectives, behind 'compute_s' of compute: what the
 * first leaves of the compute hides the second.
 */
static double overlapped_pair_s(const struct link *a, double first_s,
				const struct link *b, double second_s,
				double compute_s)
{
	double left = compute_s > first_s ? compute_s - first_s : 0.0;

	return comm_overlapped_s(a, first_s, compute_s) +
	       comm_overlapped_s(b, second_s, left);
}

/*
 * Exposed data-parallel / ZeRO communication of one step.  'tail_params'
 * is the parameters of the bucket produced last in the backward pass (and
 * needed first in the forward pass), at least one bucket.  The states
 * shard over 'shards' of the 'n' ranks; with hybrid sharding (shards <
 * n) the shard's collectives run within the node and the n / shards
 * replicas all-reduce each gradient shard over the network
 * (specs/models.md 6.11).
 */
static double dp_comm_eval(const struct train_config *c, int layers,
			   const struct cluster *cl, double params_gpu, int n,
			   int shards, double wbytes, double tail_params,
			   double first_fwd_s, double last_bwd_s)
{
	int span = c->tp * c->pp * c->cp * c->dp;
	/* shards 1: a tensor-parallel group wider than a node leaves no two
	   data-parallel ranks in one node, and the replicas all-reduce */
	bool hybrid = shards >= 1 && shards < n;
	int replicas = hybrid ? n / shards : 1;
	/* the n ranks (or a shard of them) over the link of the job's span
	   (a shard's: the node for a shard within it) */
	struct link l = comm_link(cl, span, n);
	struct link ls = hybrid ? comm_link(cl, ck_sat_mul_int(c->tp, shards),
					    shards) :
				  l;
	double grads = params_gpu * grad_comm_bytes_per_param;
	double weights = params_gpu * wbytes;
	double reduce_s, gather_s, replica_s = 0.0, tail;

	if (n <= 1)
		return 0.0;
	if (!hybrid) {
		shards = n;
	} else {
		/* the replicas of a shard: a group of their own */
		struct link lr = comm_link(cl, span, replicas);

		replica_s = comm_allreduce_s(&lr, grads / shards, replicas);
	}
	if (c->zero >= 3) {
		/* FSDP: per micro-batch, gather weights for the forward and
		   the backward and reduce-scatter gradients (then all-reduce
		   the shards over the replicas), prefetched behind the
		   compute */
		double mb = 2.0 * comm_allgather_s(&ls, weights, shards) +
			    comm_reducescatter_s(&ls, grads, shards);

		/* the first layer's gather cannot be prefetched */
		return c->micro_batches *
			       overlapped_pair_s(&ls, mb, &l, replica_s,
						 first_fwd_s + last_bwd_s) +
		       comm_allgather_s(&ls, weights / layers, shards);
	}
	/* ZeRO 1-2 reduce-scatter the gradients and, after the optimizer
	   step, all-gather the updated weights; ZeRO 0 all-reduces */
	if (c->zero >= 1) {
		reduce_s = comm_reducescatter_s(&ls, grads, shards) +
			   replica_s;
		gather_s = comm_allgather_s(&ls, weights, shards);
	} else {
		reduce_s = comm_allreduce_s(&l, grads, n);
		gather_s = 0.0;
	}
	tail = fmax(tail_params,
		    fmax(dp_bucket_params, dp_bucket_params_per_rank * n));
	tail = tail < params_gpu ? tail / params_gpu : 1.0;
	/* with --overlap-grad-reduce the reduction hides under the last
	   micro-batch's backward pass, all but the last bucket; with
	   --overlap-param-gather the gather hides under the next step's
	   first forward pass, all but the first bucket */
	if (c->overlap_grad_reduce)
		reduce_s = comm_overlapped_s(&l, reduce_s * (1.0 - tail),
					     last_bwd_s) +
			   reduce_s * tail;
	if (c->overlap_param_gather)
		gather_s = comm_overlapped_s(&ls, gather_s * (1.0 - tail),
					     first_fwd_s) +
			   gather_s * tail;
	return reduce_s + gather_s;
}

double train_optimizer_bytes_per_param(enum optimizer o)
{
	return o == OPTIMIZER_ADAM ? adam_step_bytes_per_param :
				     sgd_step_bytes_per_param;
}

/*
 * Recomputation of one layer before its backward pass, its compute and
 * ('*tp_s') its tensor-parallel collectives: the mode's, with full
 * recomputation of some layers only (recompute_layers) the full one
 * times the share recomputed, averaged over the layers.
 */
static double layer_recompute_s(const struct arch *a,
				const struct train_config *c,
				const struct train_layer *lc, double *tp_s)
{
	double share;

	if (c->recompute != RECOMPUTE_FULL || c->recompute_layers <= 0) {
		*tp_s = lc->tp_recompute_s[c->recompute];
		return lc->recompute_s[c->recompute];
	}
	share = train_recompute_fraction(a, c);
	*tp_s = share * lc->tp_recompute_s[RECOMPUTE_FULL];
	return share * lc->recompute_s[RECOMPUTE_FULL];
}

double train_micro_hw_flops_per_token(const struct arch *a,
				      const struct train_config *c,
				      const struct train_micro *mc)
{
	const double *f = mc->hw_flops_per_token;

	if (c->recompute != RECOMPUTE_FULL || c->recompute_layers <= 0)
		return f[c->recompute];
	return f[RECOMPUTE_NONE] + train_recompute_fraction(a, c) *
					   (f[RECOMPUTE_FULL] -
					    f[RECOMPUTE_NONE]);
}

/* Forward and backward of one layer, with its recomputation and
   exposed collectives: a slot's unit (stage_time_eval). */
static double layer_pass_s(const struct arch *a, const struct train_config *c,
			   const struct train_layer *lc)
{
	double rec_tp_s, rec_s = layer_recompute_s(a, c, lc, &rec_tp_s);

	return lc->fwd_s + lc->tp_fwd_s + lc->cp_fwd_s + lc->bwd_s +
	       lc->tp_bwd_s + lc->cp_bwd_s + rec_s + rec_tp_s;
}

/* One micro-batch on one GPU of a pipeline stage. */
struct stage_time {
	double f_s, b_s;     /* forward; backward with recomputation */
	double compute_s;    /* compute kernels of both */
	double tp_s;         /* tensor-parallel collectives of both */
	double cp_s;         /* exposed context-parallel exchange */
	double chunk_s;      /* forward and backward of its largest chunk */
};

/* The larger of two times (fmax without its NaN rules: the times are
   finite), cheap in the search's inner loop. */
static inline double max2(double x, double y)
{
	return x > y ? x : y;
}

static inline double min2(double x, double y)
{
	return x < y ? x : y;
}

/*
 * The largest of the vp chunks of a stage of 'layers' layers, each
 * 'layer_s' long, that also holds 'head_s' (the embedding, the output
 * layer) in its lightest chunk: chunk sizes differ by at most one layer
 * (train_stage_split).
 */
static double largest_chunk_s(int layers, int vp, double layer_s,
			      double head_s)
{
	int small = layers / vp;
	double light = small * layer_s + head_s;

	if (layers % vp == 0)
		return light;
	return max2((small + 1) * layer_s, light);
}

/*
 * The largest chunks of the pp - 2 middle stages together, one each, when
 * they share 'rest' layers as evenly as they can (train_stage_split): r of
 * them hold q + 1 layers, the others q.
 */
static double middle_chunks_s(int64_t rest, int pp, int vp, double layer_s)
{
	int64_t n = pp - 2, q, r;

	if (n <= 0 || rest <= 0)
		return 0.0;
	q = rest / n;
	r = rest % n;
	return r * largest_chunk_s((int)q + 1, vp, layer_s, 0.0) +
	       (n - r) * largest_chunk_s((int)q, vp, layer_s, 0.0);
}

/* The stage of 'layers' layers, with the embedding and/or the output
   layer. */
static void stage_time_eval(const struct arch *a,
			    const struct train_micro *mc,
			    const struct train_config *c, int layers,
			    bool embed, bool out, struct stage_time *st)
{
	const struct train_layer *lc = &mc->layer;
	double rec_tp_s, rec_s = layer_recompute_s(a, c, lc, &rec_tp_s);
	double l = layers, lf, lb, hf = 0.0, hb = 0.0;

	lf = lc->fwd_s + lc->tp_fwd_s + lc->cp_fwd_s;
	lb = lc->bwd_s + lc->tp_bwd_s + lc->cp_bwd_s + rec_s + rec_tp_s;
	st->compute_s = l * (lc->fwd_s + lc->bwd_s + rec_s);
	st->tp_s = l * (lc->tp_fwd_s + lc->tp_bwd_s + rec_tp_s);
	st->cp_s = l * (lc->cp_fwd_s + lc->cp_bwd_s);
	if (embed) {
		hf += mc->embed_fwd_s + mc->head_tp_s;
		hb += mc->embed_bwd_s;
		st->compute_s += mc->embed_fwd_s + mc->embed_bwd_s;
		st->tp_s += mc->head_tp_s;
	}
	if (out) {
		hf += mc->out_fwd_s;
		hb += mc->out_bwd_s + mc->head_tp_s;
		st->compute_s += mc->out_fwd_s + mc->out_bwd_s;
		st->tp_s += mc->head_tp_s;
	}
	st->f_s = l * lf + hf;
	st->b_s = l * lb + hb;
	st->chunk_s = largest_chunk_s(layers, c->vp, lf + lb, hf + hb);
}

/*
 * The slowest stage of 'c' ('st'): it sets the pace of the 1F1B
 * schedule; and the fill and drain ('*fill_s'): the largest chunk of
 * every other stage, one slot each (bubble_eval).
 */
static void slowest_stage(const struct arch *a, const struct train_config *c,
			  const struct train_micro *mc, struct stage_time *st,
			  double *fill_s)
{
	struct train_stages s;
	struct stage_time t;
	double sum;

	train_stage_split(a, c, &s);
	if (c->pp <= 1) {
		stage_time_eval(a, mc, c, s.first, true, true, st);
		*fill_s = 0.0;
		return;
	}
	stage_time_eval(a, mc, c, s.first, true, false, st);
	sum = st->chunk_s;
	if (c->pp > 2) {
		stage_time_eval(a, mc, c, s.middle, false, false, &t);
		sum += middle_chunks_s((int64_t)a->layers - s.first - s.last,
				       c->pp, c->vp,
				       layer_pass_s(a, c, &mc->layer));
		if (t.f_s + t.b_s > st->f_s + st->b_s)
			*st = t;
	}
	stage_time_eval(a, mc, c, s.last, false, true, &t);
	sum += t.chunk_s;
	if (t.f_s + t.b_s > st->f_s + st->b_s)
		*st = t;
	*fill_s = sum - st->chunk_s;
}

/* Pipeline sends of one micro-batch: activations (and their gradients)
   cross each stage boundary once per chunk, split over the tp ranks
   (Narayanan et al. 4.1). */
static double p2p_eval(const struct train_config *c, const struct cluster *cl,
		       const struct train_micro *mc)
{
	struct link pl;

	if (c->pp <= 1)
		return 0.0;
	/* a send between two GPUs of the t c p group */
	pl = comm_link(cl, ck_sat_mul_int(ck_sat_mul_int(c->tp, c->cp), c->pp),
		       2);
	return 2.0 * c->vp * comm_p2p_s(&pl, mc->act_bytes / c->tp);
}

/*
 * Fill and drain of the 1F1B schedule: the first micro-batch's forward
 * and the last one's backward pass through every stage but the slowest,
 * one slot each, a slot being the stage's largest chunk ('fill_s', the sum
 * of those chunks) and its sends: a pipeline of unequal stages takes
 * (m - 1) T_slowest + sum T_i.  With p equal stages of v equal chunks this
 * is Narayanan et al.'s (p - 1) / v micro-batches (2.2).
 */
static double bubble_eval(const struct train_config *c, double fill_s,
			  double p2p_mb)
{
	if (c->pp <= 1)
		return 0.0;
	return fill_s + (c->pp - 1.0) * p2p_mb / c->vp;
}

/*
 * Optimizer offload, as Megatron-Core's HybridDeviceOptimizer runs it
 * with --optimizer-cpu-offload and --overlap-cpu-optimizer-d2h-h2d
 * (megatron/core/optimizer/cpu_offloading/hybrid_optimizer.py): after the
 * gradients are reduced, the fp32 gradients of the offloaded parameters
 * are copied to the host on one stream, the CPUs step each parameter once
 * its copy is in, and the updated weights are copied back on another
 * stream; the GPU meanwhile steps the parameters it keeps.  Bytes moved
 * per offloaded parameter.
 */
static const double offload_d2h_bytes_per_param = 4.0; /* fp32 gradient */
/* The GPU's share of every parameter's step, offloaded or not: the
   gradient norm (read 4) before the step and the zeroing of the
   gradient buffer (write 4) before the next. */
static const double gpu_step_fixed_bytes_per_param = 8.0;

/* The host link of one GPU: a GPU link like the intra-node ones (PCIe,
   NVLink-C2C), at their achievable fraction (model_comm.c). */
static struct link host_link(const struct cluster *cl)
{
	return link_intra_node(cl->host_link_bw_bytes_per_s, false);
}

/* GPUs of a node whose offloaded states the node's CPUs step. */
static double node_gpus(const struct train_config *c,
			const struct cluster *cl)
{
	return c->gpus < cl->gpus_per_node ? c->gpus : cl->gpus_per_node;
}

/* Seconds per offloaded parameter of the CPUs' step: the node's rate of
   Adam steps, shared by its GPUs; SGD moves fewer bytes per parameter
   (the step is memory-bound on the host as on the GPU). */
static double cpu_s_per_param(const struct train_config *c,
			      const struct cluster *cl, double step_bytes)
{
	return node_gpus(c, cl) / cl->cpu_adam_params_per_s *
	       (step_bytes - gpu_step_fixed_bytes_per_param) /
	       (adam_step_bytes_per_param - gpu_step_fixed_bytes_per_param);
}

/*
 * The optimizer step of the 'upd' parameters of a GPU's shard with
 * offload_fraction f of them offloaded, in 'chunks' equal pieces (one per
 * layer of its stage; the copies of each piece pipeline with the CPU step
 * of the neighbouring ones): a three-stage pipeline of the device-to-host
 * copies, the CPU step and the host-to-device copies, beside the GPU's
 * step of the 1 - f it keeps.  specs/models.md 6.16.
 */
static void offload_eval(const struct train_config *c,
			 const struct cluster *cl,
			 const struct train_micro *mc, double upd,
			 double step_bytes, int chunks, struct train_time *tm)
{
	struct link l = host_link(cl);
	double f = c->offload_fraction, off = f * upd;
	double wbytes = train_state_bytes(c->precision, c->optimizer).weights;
	double n = chunks > 1 ? chunks : 1.0;
	double rest_s, pipe_s, slowest;

	tm->offload_d2h_s = off * offload_d2h_bytes_per_param /
			    l.bw_bytes_per_s;
	tm->offload_cpu_s = off * cpu_s_per_param(c, cl, step_bytes);
	tm->offload_h2d_s = off * wbytes / l.bw_bytes_per_s;
	slowest = max2(tm->offload_d2h_s,
		       max2(tm->offload_cpu_s, tm->offload_h2d_s));
	/* fill and drain: one piece of each other stage */
	pipe_s = (tm->offload_d2h_s + tm->offload_cpu_s + tm->offload_h2d_s) /
			 n +
		 (1.0 - 1.0 / n) * slowest;
	rest_s = f < 1.0 ?
			 kernel_stream_s(&mc->dv,
					 (1.0 - f) * upd *
						 (step_bytes -
						  gpu_step_fixed_bytes_per_param)) :
			 0.0;
	tm->optimizer_s = kernel_stream_s(&mc->dv,
					  upd * gpu_step_fixed_bytes_per_param) +
			  rest_s;
	tm->offload_s = max2(0.0, pipe_s - rest_s);
}

bool train_offload_never_faster(const struct train_config *c,
				const struct cluster *cl,
				const struct train_micro *mc)
{
	struct link l;
	double step_bytes = train_optimizer_bytes_per_param(c->optimizer);
	double wbytes = train_state_bytes(c->precision, c->optimizer).weights;
	double host_s, gpu_s;

	if (!cluster_can_offload(cl))
		return false;
	l = host_link(cl);
	/* per offloaded parameter: the slowest stage of the pipeline (the
	   pipeline takes at least as long), against the GPU's step of it */
	host_s = max2(max2(offload_d2h_bytes_per_param, wbytes) /
			      l.bw_bytes_per_s,
		      cpu_s_per_param(c, cl, step_bytes));
	gpu_s = (step_bytes - gpu_step_fixed_bytes_per_param) /
		(mc->dv.mem_bw_bytes_per_s * mc->dv.mem_eff);
	return host_s >= gpu_s;
}

void train_evaluate_micro(const struct arch *a, const struct train_config *c,
			  const struct gpu_spec *g, const struct cluster *cl,
			  const struct train_micro *mc, struct train_result *r)
{
	struct stage_time st;
	struct train_stage_memory w = mc->mem;
	double f_mb, b_mb, p2p_mb, per_mb, fill_s, m = c->micro_batches;
	double params_gpu, upd_params, step_bytes, tokens_per_step;
	int shards, expert_shards;
	double dense, expert, wbytes, tail;
	struct train_time *tm = &r->time;

	/* the slowest stage's micro-batch: its layers, and the embedding on
	   the first stage or the output layer on the last */
	slowest_stage(a, c, mc, &st, &fill_s);
	f_mb = st.f_s;
	b_mb = st.b_s;
	p2p_mb = p2p_eval(c, cl, mc);
	per_mb = f_mb + b_mb + p2p_mb;

	tm->compute_s = m * st.compute_s;
	tm->tp_comm_s = m * st.tp_s;
	tm->cp_comm_s = m * st.cp_s;
	tm->pp_comm_s = m * p2p_mb;
	tm->bubble_s = bubble_eval(c, fill_s, p2p_mb);

	/* replicated parameters reduce over dp * cp ranks, routed experts
	   over the dp * cp / ep ranks that hold the same experts */
	train_stage_memory_states(&w, a, c, mc->layer_act_bytes);
	train_stage_params_peak(&w, a, c, &dense, &expert);
	params_gpu = dense + expert;
	wbytes = train_state_bytes(c->precision, c->optimizer).weights;
	/* the embedding is the last gradient of the backward pass of a
	   stage that holds it (pp 1: the only stage) */
	tail = c->pp <= 1 ? (double)a->vocab * a->hidden / c->tp : 0.0;
	shards = train_config_zero_shards(c, &expert_shards);
	tm->dp_comm_s = dp_comm_eval(c, a->layers, cl, dense, c->dp * c->cp,
				     shards, wbytes, tail, f_mb, b_mb);
	if (expert > 0.0)
		tm->dp_comm_s += dp_comm_eval(c, a->layers, cl, expert,
					      c->dp * c->cp /
						      train_config_ep(c),
					      expert_shards, wbytes, 0.0, f_mb,
					      b_mb);

	/* ZeRO shards the update like the states (model_memory.c): the
	   replicated parameters over dp * cp, the experts over dp * cp / ep
	   (with hybrid sharding, the ranks of those within a node) */
	upd_params = c->zero >= 1 ?
			     dense / shards + expert / expert_shards :
			     params_gpu;
	step_bytes = c->optimizer == OPTIMIZER_ADAM ? adam_step_bytes_per_param :
						      sgd_step_bytes_per_param;
	if (c->offload_fraction > 0.0 && cluster_can_offload(cl)) {
		offload_eval(c, cl, mc, upd_params, step_bytes,
			     train_stage_layers(a, c), tm);
	} else {
		tm->optimizer_s = kernel_stream_s(&mc->dv,
						  upd_params * step_bytes);
		tm->offload_s = tm->offload_d2h_s = tm->offload_cpu_s =
			tm->offload_h2d_s = 0.0;
	}

	/* the training loop's host time is left to the per-sample kinds:
	   a transformer's step is long enough to hide it */
	tm->host_s = 0.0;
	tm->step_s = m * per_mb + tm->bubble_s + tm->dp_comm_s +
		     tm->optimizer_s + tm->offload_s;

	train_memory_eval_stages(&w, a, c, g->mem_bytes, &r->memory);
	if (c->offload_fraction > 0.0)
		train_memory_host(&r->memory, c, cl->gpus_per_node,
				  cl->host_memory_bytes);
	else
		r->memory.host_capacity_bytes = cl->host_memory_bytes;
	tokens_per_step = (double)c->global_batch * a->seq_len;
	r->params = mc->params;
	r->tokens_per_step = tokens_per_step;
	r->tokens_per_s = tokens_per_step / tm->step_s;
	r->tokens_per_s_per_gpu = r->tokens_per_s / c->gpus;
	r->model_flops_per_token = mc->model_flops_per_token;
	r->hw_flops_per_token = train_micro_hw_flops_per_token(a, c, mc);
	r->model_flops_per_gpu = r->model_flops_per_token *
				 r->tokens_per_s_per_gpu;
	r->hw_flops_per_gpu = r->hw_flops_per_token * r->tokens_per_s_per_gpu;
	r->peak_flops = mc->d.peak_flops;
	r->mfu = r->model_flops_per_gpu / mc->d.peak_flops;
	r->hfu = r->hw_flops_per_gpu / mc->d.peak_flops;
	r->busy_fraction = fmin(1.0, (tm->compute_s + tm->optimizer_s) /
					     tm->step_s);
}

/* Candidates per end stage around the balance point: 'width' from
   'below' layers below it; interleaved (vp > 1), where the chunk sizes
   can favour a split farther off the balance, STAGE_WINDOW from
   STAGE_BELOW, else 5 from 3 (tests/unit/test_model_train.c compares the
   choice with every split; specs/models.md 6.10). */
#define STAGE_WINDOW 7
#define STAGE_BELOW 4
#define STAGE_WINDOW_VP1 5
#define STAGE_BELOW_VP1 3
_Static_assert(STAGE_WINDOW * STAGE_WINDOW <= TRAIN_STAGE_TIES,
	       "every candidate split fits in struct train_stage_ties");

/* Layers of the most loaded middle stage for the split (f, l). */
static int split_middle(const struct arch *a, const struct train_config *c,
			int f, int l)
{
	int64_t rest = (int64_t)a->layers - f - l;

	return c->pp > 2 && rest > 0 ? (int)((rest + c->pp - 3) / (c->pp - 2)) :
				       0;
}

double train_pipeline_bound_s(const struct arch *a,
			      const struct train_config *c,
			      const struct cluster *cl,
			      const struct train_micro *mc)
{
	double layer_s = layer_pass_s(a, c, &mc->layer);
	double heads_s = mc->embed_fwd_s + mc->embed_bwd_s + mc->out_fwd_s +
			 mc->out_bwd_s + 2.0 * mc->head_tp_s;
	/* the stages together do every layer and both heads: the slowest
	   one takes at least the average, a chunk of it at least 1/v */
	double stage_s = (a->layers * layer_s + heads_s) / c->pp;
	double p2p_s = p2p_eval(c, cl, mc);

	return c->micro_batches * (stage_s + p2p_s) +
	       (c->pp - 1.0) * (stage_s + p2p_s) / c->vp;
}

/* Candidate counts of one end stage: 'fixed', or 'width' values from
   'below' below 'centre' (in layers) within [lo, hi]. */
static int stage_candidates(int fixed, double centre, int lo, int hi,
			    int width, int below, int *v)
{
	double from;
	int n = 0;

	if (fixed > 0) {
		v[0] = fixed;
		return 1;
	}
	from = isfinite(centre) ? floor(centre) - below : lo;
	if (from > hi - (width - 1.0))
		from = hi - (width - 1.0);
	if (from < lo)
		from = lo;
	for (int i = 0; i < width && (int)from + i <= hi; i++)
		v[n++] = (int)from + i;
	return n;
}

/*
 * The pipeline part of a split (train_evaluate_micro, but for the sends):
 * the slowest of the first, middle and last stages ('*t': m of its
 * micro-batches; 'mt' < 0: no middle) paces the steady state, and the
 * largest chunk of every other stage fills and drains the pipeline
 * (bubble_eval): the ends' 'fc', 'lc', the middle stages' 'msum' together,
 * of which the most loaded one's is 'mc'.
 */
static double split_time(double ft, double fc, double lt, double lc,
			 double mt, double mc, double msum)
{
	double t = ft, own = fc, sum = fc + lc;

	/* ties go to the first of first, middle, last, as slowest_stage */
	if (mt >= 0.0) {
		sum += msum;
		if (mt > t) {
			t = mt;
			own = mc;
		}
	}
	if (lt > t) {
		t = lt;
		own = lc;
	}
	return t + sum - own;
}

/* The cost (train_stage_fastest) of the legal candidate nearest the
   balance point, or infinity when it is not legal. */
static double split_cost(const int *fv, const int *lv, int nf, int nl,
			 int below, bool pairs, int64_t most, int layers, int pp,
			 const double *ft, const double *fc, const double *lt,
			 const double *lchunk, const double *mt,
			 const double *mch, const double *msum)
{
	int i = nf > below ? below : nf - 1;
	int j = pairs ? i : nl > below ? below : nl - 1;
	int64_t sum = (int64_t)fv[i] + lv[j];
	bool mid = !pairs && pp > 2;

	if (!pairs && (sum > most || (pp == 2 && sum != layers)))
		return HUGE_VAL;
	return split_time(ft[i], fc[i], lt[j], lchunk[j],
			  mid ? mt[i + j] : -1.0, mid ? mch[i + j] : 0.0,
			  mid ? msum[i + j] : 0.0);
}

int train_stage_fastest(const struct arch *a, const struct train_config *c,
			const struct train_micro *mc, int first, int last,
			struct train_stage_ties *ties)
{
	const struct train_layer *lc = &mc->layer;
	int lo = train_stage_min_layers(c->vp);
	int64_t middle = c->pp > 2 ? ((int64_t)c->pp - 2) * c->vp : 0;
	int64_t hi = (int64_t)a->layers - lo - middle;
	int64_t most = (int64_t)a->layers - middle; /* both ends together */
	int fv[STAGE_WINDOW], lv[STAGE_WINDOW], nf, nl, n = 0;
	double ft[STAGE_WINDOW], fc[STAGE_WINDOW], lt[STAGE_WINDOW];
	double lchunk[STAGE_WINDOW];
	/* per sum of the end stages' layers, fv[0] + lv[0] + k: the most
	   loaded middle stage, its time and its largest chunk */
	int mid[2 * STAGE_WINDOW - 1];
	double mt[2 * STAGE_WINDOW - 1], mch[2 * STAGE_WINDOW - 1];
	double msum[2 * STAGE_WINDOW - 1];
	/* per candidate (i, j): its pipeline time, or -1 (illegal, or
	   slower than the best when it was reached) */
	double cost[STAGE_WINDOW][STAGE_WINDOW];
	double layer_s, embed_s, out_s, ideal_s, best_s = 0.0, bound;
	double m = c->micro_batches;
	int width = c->vp > 1 ? STAGE_WINDOW : STAGE_WINDOW_VP1;
	int below = c->vp > 1 ? STAGE_BELOW : STAGE_BELOW_VP1;
	bool pairs;

	ties->n = 0;
	if (c->pp <= 1) {
		ties->first[0] = first;
		ties->last[0] = last;
		ties->n = 1;
		return 0;
	}
	if (hi < lo)
		return -1;
	/* forward and backward of a layer, the embedding, the output layer
	   (stage_time_eval) */
	layer_s = layer_pass_s(a, c, lc);
	embed_s = mc->embed_fwd_s + mc->head_tp_s + mc->embed_bwd_s;
	out_s = mc->out_fwd_s + mc->out_bwd_s + mc->head_tp_s;
	/* balance: every stage equally long, heads included; with one end
	   fixed, the other stages share the rest */
	if (first > 0)
		ideal_s = ((a->layers - first) * layer_s + out_s) /
			  (c->pp - 1);
	else if (last > 0)
		ideal_s = ((a->layers - last) * layer_s + embed_s) /
			  (c->pp - 1);
	else
		ideal_s = (a->layers * layer_s + embed_s + out_s) / c->pp;
	nf = stage_candidates(first, (ideal_s - embed_s) / layer_s, lo,
			      (int)hi, width, below, fv);
	nl = stage_candidates(last, (ideal_s - out_s) / layer_s, lo, (int)hi,
			      width, below, lv);
	/* two stages: what one end leaves is the other's; the candidates
	   are the pairs (fv[i], lv[i]) */
	pairs = c->pp == 2 && (first == 0 || last == 0);
	if (pairs && last == 0) {
		nl = nf;
		for (int i = 0; i < nf; i++)
			lv[i] = a->layers - fv[i];
	} else if (pairs) {
		nf = nl;
		for (int i = 0; i < nl; i++)
			fv[i] = a->layers - lv[i];
	}
	for (int i = 0; i < nf; i++) {
		ft[i] = m * (fv[i] * layer_s + embed_s);
		fc[i] = largest_chunk_s(fv[i], c->vp, layer_s, embed_s);
	}
	for (int j = 0; j < nl; j++) {
		lt[j] = m * (lv[j] * layer_s + out_s);
		lchunk[j] = largest_chunk_s(lv[j], c->vp, layer_s, out_s);
	}
	/* the counts of each end are consecutive (but for the pairs) */
	for (int k = 0; !pairs && k < nf + nl - 1; k++) {
		mid[k] = split_middle(a, c, fv[0] + lv[0] + k, 0);
		mt[k] = m * mid[k] * layer_s;
		mch[k] = largest_chunk_s(mid[k], c->vp, layer_s, 0.0);
		msum[k] = middle_chunks_s((int64_t)a->layers - fv[0] - lv[0] -
						  k,
					  c->pp, c->vp, layer_s);
	}
	/*
	 * The pipeline part of the step (train_evaluate_micro), but for the
	 * sends, the same for every split: m micro-batches of the slowest
	 * stage, and the fill and drain (split_time).  The split nearest the
	 * balance point bounds the rest: a split takes at least the slower
	 * end's steady state and the smaller end chunk (the slowest stage's
	 * own chunk is not a slot, the other end's is), and past a split
	 * where that takes longer, the rows and columns only grow.
	 * Kept: the splits as fast as the best, but those that another as
	 * fast one beats on every stage (no more layers on the first, the
	 * most loaded middle and the last stage needs no more memory).  Such
	 * a one is reached one layer at a time through splits that are as
	 * fast, so the neighbours (i - 1, j) and (i, j - 1), met before, are
	 * enough to look at.
	 */
	bound = split_cost(fv, lv, nf, nl, below, pairs, most, a->layers,
			   c->pp, ft, fc, lt, lchunk, mt, mch, msum);
	for (int i = 0; i < nf; i++)
		for (int j = 0; j < nl; j++)
			cost[i][j] = -1.0;
	for (int i = 0; i < nf; i++) {
		/* (the pairs' ends run opposite ways: no bound) */
		if (!pairs && ft[i] + min2(fc[i], lchunk[0]) >
				      bound * (1.0 + 1e-12))
			break;
		for (int j = 0; j < nl; j++) {
			int64_t sum = (int64_t)fv[i] + lv[j];
			double t, tol = 1e-12 * best_s;
			bool beaten, in_mid = !pairs && c->pp > 2;

			if (!pairs && max2(ft[i], lt[j]) +
						  min2(fc[i], lchunk[j]) >
					  bound * (1.0 + 1e-12))
				break;
			if (pairs ? j != i || fv[i] < lo || lv[j] < lo :
				    sum > most ||
					    (c->pp == 2 && sum != a->layers))
				continue;
			t = split_time(ft[i], fc[i], lt[j], lchunk[j],
				       in_mid ? mt[i + j] : -1.0,
				       in_mid ? mch[i + j] : 0.0,
				       in_mid ? msum[i + j] : 0.0);
			if (n > 0 && t > best_s + tol)
				continue;
			cost[i][j] = t;
			if (n == 0 || t < best_s - tol) {
				best_s = t;
				ties->n = 0;
			}
			n++;
			tol = 1e-12 * best_s;
			/* one layer fewer at an end, no more in the middle */
			beaten = !pairs && i + j > 0 &&
				 mid[i + j - 1] <= mid[i + j] &&
				 ((i > 0 && cost[i - 1][j] >= 0.0 &&
				   cost[i - 1][j] <= best_s + tol) ||
				  (j > 0 && cost[i][j - 1] >= 0.0 &&
				   cost[i][j - 1] <= best_s + tol));
			if (!beaten) {
				ties->first[ties->n] = fv[i];
				ties->last[ties->n] = lv[j];
				ties->n++;
			}
		}
	}
	if (n == 0) {
		/* the window missed every legal split: the loosest one */
		struct train_config t = *c;

		train_stage_fill(a, &t, first, last);
		if (!train_config_valid(a, &t, t.tp))
			return -1;
		ties->first[0] = t.first_stage_layers;
		ties->last[0] = t.last_stage_layers;
		ties->n = 1;
	}
	return 0;
}

void train_stage_pick(const struct arch *a, struct train_config *c,
		      const struct train_micro *mc,
		      const struct train_stage_ties *ties)
{
	struct train_stage_memory w;
	double best_bytes = 0.0;
	int best = 0;

	if (ties->n > 1) {
		w = mc->mem;
		train_stage_memory_states(&w, a, c, mc->layer_act_bytes);
		/* weighed as without an optimizer offload: a configuration
		   and its offloaded twin split their layers alike */
		w.optimizer_kept = 1.0;
		for (int i = 0; i < ties->n; i++) {
			double b = train_stage_memory_peak(
				&w, a, c, ties->first[i], ties->last[i]);

			if (i == 0 || b < best_bytes) {
				best_bytes = b;
				best = i;
			}
		}
	}
	c->first_stage_layers = ties->first[best];
	c->last_stage_layers = ties->last[best];
}

int train_stage_choose(const struct arch *a, struct train_config *c,
		       const struct train_micro *mc, int first, int last)
{
	struct train_stage_ties ties;

	if (train_stage_fastest(a, c, mc, first, last, &ties) != 0)
		return -1;
	train_stage_pick(a, c, mc, &ties);
	return 0;
}

int train_evaluate(const struct arch *a, const struct train_config *c,
		   const struct gpu_spec *g, const struct cluster *cl,
		   struct train_result *r)
{
	struct train_micro mc;

	if (train_micro_eval(a, c, g, cl, &mc) != 0)
		return -1;
	train_evaluate_micro(a, c, g, cl, &mc, r);
	return 0;
}
