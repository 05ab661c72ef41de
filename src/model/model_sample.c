/* model_sample.c - networks costed per sample; see model_sample.h. */
#include "model_sample.h"

#include <math.h>

#include "model_comm.h"
#include "model_energy.h"
#include "model_infer.h"
#include "model_kernel.h"

/*
 * Memory traffic of a layer-by-layer network per sample, in units of its
 * stored activations: the forward pass writes each activation and reads
 * the layer input (2x), the backward pass reads them and writes and reads
 * the gradients (3x).
 */
static const double fwd_traffic_per_act = 2.0;
static const double bwd_traffic_per_act = 3.0;

/*
 * Convolutional networks run their FLOPs in cuDNN convolution kernels
 * (implicit GEMMs over small channel counts, 3x3 and 1x1 filters,
 * grouped convolutions) that reach about half the throughput of large
 * GEMMs: ResNet-50 trains at 20-25% MFU on A100 against 55-65% for
 * transformer GEMMs (NVIDIA DeepLearningExamples).  The 0.5 is that
 * ratio rounded, read off the same DeepLearningExamples ResNet-50
 * measurements that tests/validation/generic.csv holds, not fitted to
 * them; those rows are therefore not independent of this constant
 * (specs/validation.md).  A workload sets its own with [model]
 * kernel_efficiency (a vision transformer, GEMM-bound, is near 1).
 */
static const double generic_kernel_efficiency = 0.5;

/*
 * Inference keeps only the activations of the layers in flight, not all
 * of them: for ResNet-50 the largest feature map (112 x 112 x 64, 0.8M
 * elements) and its successor are about 1/16 of the ~25M elements
 * training stores per image.
 */
static const double inference_live_fraction = 1.0 / 16.0;

/*
 * Memory passes of the operators of a graph that are not products
 * (specs/models.md 14.6), in units of the operator's input and output
 * elements: the forward pass reads its inputs and writes its output once,
 * a normalization reads its input twice (statistics, then normalize; Jung
 * et al. 2019, section 2), a softmax its input twice (maximum and sum,
 * then normalize).  The backward pass reads the output's gradient and
 * what the forward pass saved, and writes the input's gradient; the
 * normalization's backward reads the gradient and the input twice each
 * (Jung et al. 2019).  'bwd_flops': backward FLOPs per forward FLOP (one
 * pass).  A depthwise convolution's backward is dwconv_bwd_s, not its
 * row here.
 */
static const struct graph_passes {
	double fwd_in, fwd_out, bwd_in, bwd_out, bwd_flops;
} graph_passes[GOP_KINDS] = {
	[GOP_CONV] = { 1, 1, 2, 2, 2 },    [GOP_DWCONV] = { 1, 1, 2, 2, 2 },
	[GOP_MATMUL] = { 1, 1, 2, 2, 2 },  [GOP_BMM] = { 1, 1, 2, 2, 2 },
	[GOP_NORM] = { 2, 1, 3, 2, 1 },    [GOP_ACT] = { 1, 1, 2, 1, 1 },
	[GOP_BINARY] = { 1, 1, 1, 1, 1 },  [GOP_POOL] = { 1, 1, 2, 1, 1 },
	[GOP_REDUCE] = { 1, 1, 1, 1, 1 },  [GOP_SOFTMAX] = { 2, 1, 1, 2, 1 },
	[GOP_MOVE] = { 1, 1, 1, 1, 1 },    [GOP_FREE] = { 0, 0, 0, 0, 0 },
	[GOP_OTHER] = { 1, 1, 1, 1, 1 },
};

/*
 * The backward pass of a depthwise convolution as PyTorch runs it
 * (aten/src/ATen/native/cuda/DepthwiseConv2d.cu): two kernels.  The
 * input's gradient (conv_depthwise2d_backward_kernel) reads the output's
 * gradient and writes the input's, one pass each, as the forward
 * convolution does.  The weight's gradient
 * (conv_depthwise2d_grad_weight_kernel) runs one thread block per
 * channel and filter tap, each reducing the output's gradient times the
 * input at that tap over every pixel of the batch: it reads the output's
 * gradient and the tapped input once per tap, 2 'taps' passes over the
 * output's elements (specs/models.md 14.8).  'fl' forward FLOPs, 'in',
 * 'out', 'w' bytes of the input, output and weights, 'taps' = k_h k_w.
 */
static double dwconv_bwd_s(const struct device_perf *dv, double fl,
			   double in, double out, double w, double taps)
{
	return kernel_roofline_s(dv, fl, in + out + w) +
	       kernel_roofline_s(dv, fl, 2.0 * taps * out + w);
}

/*
 * PyTorch DDP's gradient buckets (torch.nn.parallel.DistributedDataParallel:
 * bucket_cap_mb = 25, and a first bucket of 1 MiB,
 * dist._DEFAULT_FIRST_BUCKET_BYTES; Li et al. 2020, VLDB 13(12), section
 * 3.2.3): the gradients are all-reduced a bucket at a time, in the order
 * the backward pass produces them, each bucket a collective of its own
 * that pays its latency.
 */
static const double ddp_bucket_bytes = 25.0 * 1048576.0;
static const double ddp_first_bucket_bytes = 1048576.0;

/*
 * Seconds of DDP's all-reduce of 'grads' bytes over 'gpus' GPUs in
 * buckets: the first of 1 MiB, then 25 MiB each, the last the rest.
 * With 'overlap', every bucket but the last hides behind the backward
 * pass ('bwd_s', comm_overlapped_s); the last holds the first layers'
 * gradients, ready only when the backward pass ends, and is exposed
 * whole (a network of at most 1 MiB of gradients: its one bucket).
 */
static double ddp_allreduce_s(const struct link *l, double grads, int gpus,
			      double bwd_s, bool overlap)
{
	double first = fmin(grads, ddp_first_bucket_bytes);
	double rest = grads - first, full = floor(rest / ddp_bucket_bytes);
	double last = rest - full * ddp_bucket_bytes, tail, all;

	if (gpus <= 1 || grads <= 0.0)
		return 0.0;
	if (last <= 0.0 && full >= 1.0) {
		last = ddp_bucket_bytes;
		full -= 1.0;
	}
	all = comm_allreduce_s(l, first, gpus) +
	      full * comm_allreduce_s(l, ddp_bucket_bytes, gpus) +
	      (last > 0.0 ? comm_allreduce_s(l, last, gpus) : 0.0);
	if (!overlap)
		return all;
	tail = comm_allreduce_s(l, last > 0.0 ? last : first, gpus);
	return comm_overlapped_s(l, all - tail, bwd_s) + tail;
}

static bool gemm_kind(enum graph_op_kind k)
{
	return k == GOP_CONV || k == GOP_MATMUL || k == GOP_BMM;
}

/*
 * Forward and backward seconds of one micro-batch of 'b' samples through
 * the operator classes of 'gs': products as tile-quantized GEMMs on the
 * tensor cores ('d'), everything else as a roofline on the vector units
 * ('dv'), every framework operator its own kernel (training frameworks
 * run eager: no fusion but of an operator the export decomposed).
 */
static void graph_train_s(const struct graph_summary *gs,
			  const struct device_perf *d,
			  const struct device_perf *dv, double b,
			  double *fwd_s, double *bwd_s, double *kind_s)
{
	double e = d->elem_bytes;

	*fwd_s = 0.0;
	*bwd_s = 0.0;
	for (int i = 0; i < gs->n_ops; i++) {
		const struct graph_op *op = &gs->op[i];
		const struct graph_passes *ps = &graph_passes[op->kind];
		double c = op->count, in = op->in_elems / c * b * e;
		double out = op->out_elems / c * b * e;
		double w = op->weight_elems / c * e, fl = op->flops / c * b;
		/* an eager composite (SiLU, GELU, a Linear's bias) is one
		   framework operator: its later operators read nothing,
		   its earlier ones write nothing, and its backward is the
		   first operator's */
		double fin = in - (op->efused ? op->efused_in_elems / c * b * e :
						0.0);
		double fout = op->eout_fused ? 0.0 : out;

		/* a view, or a bias the product adds: no kernel forward or
		   backward (a folded batch norm trains: it exists only
		   when the graph had none, norms_folded) */
		if (op->eview || op->eepilogue)
			continue;
		if (gemm_kind(op->kind)) {
			double t = kernel_gemm_io_s(d, op->gemm_m * b,
						    op->gemm_n, op->gemm_k,
						    op->gemm_groups,
						    in + fout + w);

			/* the input's and the weight's gradients: two
			   products of the same size */
			*fwd_s += c * t;
			*bwd_s += 2.0 * c * t;
			if (kind_s)
				kind_s[op->kind] += 3.0 * c * t;
			continue;
		}
		double f = c * (kernel_roofline_s(dv, fl,
						  ps->fwd_in * fin +
							  ps->fwd_out * fout +
							  w) -
				(op->efused ? kernel_gap_s() : 0.0));
		double bwd_bytes = op->bwd_elems > 0.0 ?
					   op->bwd_elems / c * b * e :
					   ps->bwd_in * in + ps->bwd_out * out;
		double bk = op->efused ?
				    0.0 :
				    c * kernel_roofline_s(dv, ps->bwd_flops * fl,
							  bwd_bytes + 2.0 * w);

		if (op->kind == GOP_DWCONV)
			bk = c * dwconv_bwd_s(dv, fl, in, out, w,
					      op->gemm_k);

		*fwd_s += f;
		*bwd_s += bk;
		if (kind_s)
			kind_s[op->kind] += f + bk;
	}
}

/*
 * Seconds of one forward pass of a batch of 'b', weights read in 'wb'
 * bytes each.  'fusion' (inference.fusion): as an inference engine runs
 * it (TensorRT-style), fused operators launch no kernel and read only
 * their inputs from outside the fused chain, and outputs that feed a
 * fused operator stay on chip.  Without it, as an eager framework runs
 * it (PyTorch in eval mode): every operator is its own kernel that reads
 * its inputs and writes its output once, a batch norm included (its
 * running statistics: one pass).
 */
static double graph_infer_s(const struct graph_summary *gs,
			    const struct device_perf *d,
			    const struct device_perf *dv, double b, double wb,
			    bool fusion, double *kind_s)
{
	double e = d->elem_bytes, total = 0.0;

	for (int i = 0; i < gs->n_ops; i++) {
		const struct graph_op *op = &gs->op[i];
		double c = op->count;
		bool fused = fusion ? op->fused : op->efused;
		double in = (op->in_elems -
			     (fused ? (fusion ? op->fused_in_elems :
						op->efused_in_elems) :
				      0.0)) /
			    c * b * e;
		double out = (fusion ? op->out_fused : op->eout_fused) ?
				     0.0 :
				     op->out_elems / c * b * e;
		double w = op->weight_elems / c * wb, t;

		/* batch norms the export folded into the convolutions stay
		   folded in an engine and run again in an eager framework
		   (PyTorch's eval mode runs each after its convolution); an
		   engine folds the others into their convolutions' weights
		   too (a norm fuses only so, 'fuses'): nothing left; a
		   view moves nothing (an engine moves no more than an
		   eager framework); an epilogue is costed in its product:
		   eager, a Linear's bias; fused, every element-wise
		   operator of the product's chain */
		if ((op->folded && fusion) ||
		    (fusion && op->fused && op->kind == GOP_NORM) ||
		    op->eview ||
		    (fusion ? op->fepilogue : op->eepilogue))
			continue;
		if (gemm_kind(op->kind))
			t = kernel_gemm_io_s(
				d, op->gemm_m * b, op->gemm_n, op->gemm_k,
				op->gemm_groups,
				in + out + w +
					(fusion ? op->epilogue_elems / c * b *
							  e :
						  0.0));
		else
			t = kernel_roofline_s(dv, op->flops / c * b,
					      in + out + w);
		if (fused)
			t -= kernel_gap_s();
		total += c * t;
		if (kind_s)
			kind_s[fusion ? op->head : op->kind] += c * t;
	}
	return total;
}

/* The fraction of GEMM efficiency the network's kernels reach. */
static double kernel_efficiency(const struct model_spec *m)
{
	if (m->kernel_efficiency > 0.0)
		return m->kernel_efficiency;
	/* a graph's convolutions are costed one by one */
	if (m->graph.n_ops > 0)
		return 1.0;
	return generic_kernel_efficiency;
}

double sample_dense_params(const struct model_spec *m)
{
	return m->kind == MODEL_RECSYS ? recsys_dense_params(m) : m->params;
}

double sample_embedding_bytes(const struct model_spec *m)
{
	return m->kind == MODEL_RECSYS ? recsys_table_bytes(m) : 0.0;
}

double sample_fwd_flops(const struct model_spec *m)
{
	return m->kind == MODEL_RECSYS ? recsys_dense_flops(m) :
					 m->flops_per_sample;
}

/* Activation bytes per sample kept for the backward pass. */
static double act_bytes(const struct model_spec *m, double elem)
{
	if (m->graph.n_ops > 0)
		return m->graph.saved_elems * elem;
	return m->activation_bytes_per_sample;
}

/* Kernels of a forward pass: the operators of a graph that launch one
   (not free; with 'fusion' neither fused nor a folded batch norm), else
   one. */
static double infer_kernels(const struct model_spec *m, bool fusion)
{
	double n = 0.0;

	for (int i = 0; i < m->graph.n_ops; i++) {
		const struct graph_op *op = &m->graph.op[i];

		if (!(op->folded && fusion) &&
		    op->kind != GOP_FREE &&
		    !(op->eview || (fusion ? op->fused : op->efused)))
			n += op->count;
	}
	return n > 0.0 ? n : 1.0;
}

void sample_result_rates(struct train_result *r, int global_batch, int gpus,
			 double fwd_flops, double peak_flops)
{
	const struct train_time *tm = &r->time;

	r->tokens_per_step = global_batch;
	r->tokens_per_s = global_batch / tm->step_s;
	r->tokens_per_s_per_gpu = r->tokens_per_s / gpus;
	/* forward and backward: 3 forward passes' FLOPs, none repeated */
	r->model_flops_per_token = 3.0 * fwd_flops;
	r->hw_flops_per_token = r->model_flops_per_token;
	r->model_flops_per_gpu = r->model_flops_per_token *
				 r->tokens_per_s_per_gpu;
	r->hw_flops_per_gpu = r->model_flops_per_gpu;
	r->peak_flops = peak_flops;
	r->mfu = r->model_flops_per_gpu / peak_flops;
	r->hfu = r->mfu;
	r->busy_fraction = fmin(1.0, (tm->compute_s + tm->optimizer_s) /
					     tm->step_s);
}

int sample_train_eval(const struct model_spec *m, const struct train_config *c,
		      const struct gpu_spec *g, const struct cluster *cl,
		      struct train_result *r)
{
	struct device_perf d;
	struct train_time *tm = &r->time;
	double b = c->micro_batch, mbs = c->micro_batches;
	double f = sample_fwd_flops(m), params = sample_dense_params(m);
	double wb, act, fwd_s, bwd_s, gpus = c->gpus;
	struct link l = comm_link(cl, c->gpus, c->gpus);

	if (m->kind == MODEL_RECSYS)
		return recsys_train_eval(m, c, g, cl, NULL, r, NULL);
	if (device_perf_init(&d, g, c->precision, false) != 0)
		return -1;
	d.matmul_eff *= kernel_efficiency(m);
	wb = train_state_bytes(c->precision, c->optimizer).weights;
	act = act_bytes(m, d.elem_bytes);
	if (m->graph.n_ops > 0) {
		struct device_perf dv;

		if (device_perf_init(&dv, g, PREC_FP32, false) != 0)
			return -1;
		graph_train_s(&m->graph, &d, &dv, b, &fwd_s, &bwd_s, NULL);
	} else {
		fwd_s = kernel_roofline_s(&d, f * b,
					  fwd_traffic_per_act * act * b +
						  params * wb);
		bwd_s = kernel_roofline_s(&d, 2.0 * f * b,
					  bwd_traffic_per_act * act * b +
						  2.0 * params * wb);
	}
	tm->compute_s = mbs * (fwd_s + bwd_s);
	tm->tp_comm_s = 0.0;
	tm->pp_comm_s = 0.0;
	tm->cp_comm_s = 0.0;
	tm->bubble_s = 0.0;
	/* the dense gradients: all-reduce (or ZeRO's reduce-scatter and
	   all-gather) over every GPU, overlapping the backward pass */
	{
		double grads = params * 4.0, comm;

		if (c->zero >= 1) {
			comm = comm_reducescatter_s(&l, grads, c->gpus) +
			       comm_allgather_s(&l, params * wb, c->gpus);
			tm->dp_comm_s = c->overlap_grad_reduce ?
						comm_overlapped_s(&l, comm,
								  bwd_s) :
						comm;
		} else {
			/* DDP: in buckets, the last one exposed */
			tm->dp_comm_s = ddp_allreduce_s(&l, grads, c->gpus,
							bwd_s,
							c->overlap_grad_reduce);
		}
	}
	tm->optimizer_s = kernel_stream_s(
		&d, params / (c->zero >= 1 ? gpus : 1.0) *
			    train_optimizer_bytes_per_param(c->optimizer));
	tm->offload_s = 0.0;
	/* the training loop's host time, serial with the GPU (the loop
	   synchronizes every step; specs/models.md 14.4) */
	tm->host_s = c->step_overhead_s;
	tm->step_s = tm->compute_s + tm->tp_comm_s + tm->dp_comm_s +
		     tm->optimizer_s + tm->host_s;

	/* memory: states (ZeRO over all GPUs), activations of a
	   micro-batch */
	train_memory_states(params, c->zero, c->gpus, c->precision,
			    c->optimizer, &r->memory);
	r->memory.activations_bytes = act * b;
	r->memory.reserve_bytes = train_memory_reserve(g->mem_bytes);
	r->memory.total_bytes = r->memory.weights_bytes +
				r->memory.gradients_bytes +
				r->memory.optimizer_bytes +
				r->memory.activations_bytes +
				r->memory.reserve_bytes;
	r->memory.capacity_bytes = g->mem_bytes;
	r->memory.fits = r->memory.total_bytes <= g->mem_bytes;

	r->params = params;
	sample_result_rates(r, c->global_batch, gpus, f, d.peak_flops);
	return 0;
}

int sample_infer_eval(const struct model_spec *m, int tp, int batch,
		      enum precision p, const struct gpu_spec *g,
		      const struct cluster *cl, struct sample_infer *r)
{
	struct serve_costs sc = serve_costs_default();

	return sample_infer_eval_costs(m, tp, batch, p, &sc, g, cl, r);
}

int sample_infer_eval_costs(const struct model_spec *m, int tp, int batch,
			    enum precision p, const struct serve_costs *sc,
			    const struct gpu_spec *g, const struct cluster *cl,
			    struct sample_infer *r)
{
	struct device_perf d;
	double b = batch, params = sample_dense_params(m);
	/* int4 weights (with their group scales) run in fp16 math, with
	   fp16 activations, as for transformers (section 10) */
	double wb = infer_weight_bytes_per_param(p, false, false), t = tp, issue;

	*r = (struct sample_infer){ 0 };
	if (m->kind == MODEL_RECSYS)
		return recsys_infer_eval(m, tp, batch, p, sc, g, cl, r);
	if (device_perf_init(&d, g, infer_math_precision(p), false) != 0)
		return -1;
	d.matmul_eff *= kernel_efficiency(m);
	/* the dense network split over the replica's GPUs; the forward
	   pass writes and reads each activation once */
	if (m->graph.n_ops > 0) {
		struct device_perf dv;

		if (device_perf_init(&dv, g, PREC_FP32, false) != 0)
			return -1;
		/* a replica of several GPUs splits the batch */
		r->gpu_s = graph_infer_s(&m->graph, &d, &dv, b / t, wb,
					 sc->fusion, NULL);
	} else {
		r->gpu_s = kernel_roofline_s(
			&d, sample_fwd_flops(m) * b / t,
			(fwd_traffic_per_act * act_bytes(m, d.elem_bytes) * b +
			 params * wb) /
				t);
	}
	/* the fixed costs of a batch (specs/models.md 14.7) */
	r->kernels = infer_kernels(m, sc->fusion);
	issue = sc->cuda_graphs ? 0.0 : r->kernels * sc->launch_s;
	r->launch_bound = issue > r->gpu_s;
	r->host_s = sc->framework_s;
	r->request_s = sc->request_s;
	r->latency_s = r->request_s + r->host_s + fmax(r->gpu_s, issue);
	r->throughput_per_s = b / r->latency_s;
	r->weights_bytes = params * wb / t;
	r->memory_total_bytes =
		r->weights_bytes +
		(m->graph.n_ops > 0 ?
			 m->graph.live_elems * d.elem_bytes :
			 inference_live_fraction * act_bytes(m, d.elem_bytes)) *
			b / t +
		train_memory_reserve(g->mem_bytes);
	r->capacity_bytes = g->mem_bytes;
	r->fits = r->memory_total_bytes <= g->mem_bytes;
	r->gpu_power_w = gpu_power_w(g, 1.0); /* batches back to back */
	return 0;
}

int sample_graph_train_kinds(const struct model_spec *m,
			     const struct train_config *c,
			     const struct gpu_spec *g, double *kind_s)
{
	struct device_perf d, dv;
	double fwd_s, bwd_s;

	for (int k = 0; k < GOP_KINDS; k++)
		kind_s[k] = 0.0;
	if (m->graph.n_ops <= 0 ||
	    device_perf_init(&d, g, c->precision, false) != 0 ||
	    device_perf_init(&dv, g, PREC_FP32, false) != 0)
		return -1;
	d.matmul_eff *= kernel_efficiency(m);
	graph_train_s(&m->graph, &d, &dv, c->micro_batch, &fwd_s, &bwd_s,
		      kind_s);
	for (int k = 0; k < GOP_KINDS; k++)
		kind_s[k] *= c->micro_batches;
	return 0;
}

int sample_graph_infer_kinds(const struct model_spec *m, int tp, int batch,
			     enum precision p, bool fusion,
			     const struct gpu_spec *g, double *kind_s)
{
	struct device_perf d, dv;

	for (int k = 0; k < GOP_KINDS; k++)
		kind_s[k] = 0.0;
	if (m->graph.n_ops <= 0 ||
	    device_perf_init(&d, g, infer_math_precision(p), false) != 0 ||
	    device_perf_init(&dv, g, PREC_FP32, false) != 0)
		return -1;
	d.matmul_eff *= kernel_efficiency(m);
	graph_infer_s(&m->graph, &d, &dv, (double)batch / tp,
		      infer_weight_bytes_per_param(p, false, false), fusion, kind_s);
	return 0;
}
