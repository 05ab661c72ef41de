/* model_recsys.c - recommenders as HugeCTR and TorchRec run them: the
   lookups, their exchanges and the step, for training and serving (the
   tables' placement is model_recsys_place.c); see model_recsys.h and
   specs/models.md 14.3-14.7. */
#include "model_recsys.h"

#include <math.h>

#include "model_comm.h"
#include "model_energy.h"
#include "model_infer.h"
#include "model_memory.h"
#include "model_recsys_dense.h"
#include "model_recsys_internal.h"
#include "model_sample.h"

/*
 * DRAM is read in 32-byte sectors (NVIDIA CUDA C++ Best Practices Guide,
 * "Coalesced Access to Global Memory"): a row is read as whole sectors.
 */
static const double sector_bytes = 32.0;

/*
 * Each row gathered at random opens a DRAM page: the activation costs
 * the channel about as long as moving 128 bytes.  HBM2e paces
 * activations per pseudo-channel at about four per 16 ns (JEDEC tFAW):
 * an A100-80GB (5 stacks, 80 pseudo-channels) opens about 2e10 pages per
 * second against 2.0e12 B/s, about 100 bytes of transfer per activation;
 * 128, one L2 line, rounds it up.  It makes 256-512-byte rows deliver
 * 60-80% of the streaming bandwidth and 128-byte rows half of it, the
 * 40-60% of peak Mudigere et al. 2022 (section 5) report for production
 * embedding kernels.
 */
static const double activation_bytes = 128.0;

/* An SSD reads whole 4 KiB pages (NVMe's logical block size). */
static const double ssd_page_bytes = 4096.0;

/*
 * The backward pass first sorts the step's indices to merge duplicate
 * rows (FBGEMM's and HugeCTR's sparse backward): 8-byte (index, position)
 * pairs, a radix sort of four passes that each read and write them.
 */
static const double sort_bytes_per_lookup = 64.0;

/* Passes over a row's bytes per lookup that framework sparse gradients
   add to a fused backward (see emb_bwd_s). */
static const double sparse_grad_passes = 5.0;

/* The wide part's optimizer state per weight (model.wide_optimizer):
   FTRL-Proximal keeps two fp32 accumulators, z and n (McMahan et al.
   2013), Adagrad one. */
static const double ftrl_state_bytes = 8.0;
static const double adagrad_state_bytes = 4.0;

/* Inputs read per sample when [training] input_bytes_per_sample is not
   given: 4 bytes (fp32 or int32) per numerical feature, per index and
   for the label. */
static const double input_bytes_per_value = 4.0;

/* Kernels of a forward pass beyond the network's layers: converting the
   inputs and the output's sigmoid. */
static const double extra_infer_kernels = 2.0;

double recsys_kernel_efficiency(const struct model_spec *m)
{
	return m->kernel_efficiency > 0.0 ? m->kernel_efficiency : 1.0;
}

struct serve_costs serve_costs_default(void)
{
	struct serve_costs sc = {
		true, WL_FRAMEWORK_OVERHEAD_S, WL_LAUNCH_OVERHEAD_S, false, 0.0
	};

	return sc;
}

const char *recsys_sharding_name(int sharding)
{
	switch (sharding) {
	case EMB_DATA_PARALLEL: return "data_parallel";
	case EMB_TABLE_WISE: return "table_wise";
	case EMB_ROW_WISE: return "row_wise";
	case EMB_COLUMN_WISE: return "column_wise";
	default: return "auto";
	}
}

const char *recsys_tier_name(int tier)
{
	switch (tier) {
	case RECSYS_TIER_HOST: return "host";
	case RECSYS_TIER_SSD: return "ssd";
	default: return "hbm";
	}
}

double recsys_gather_efficiency(double row_bytes)
{
	double moved;

	if (!(row_bytes > 0.0))
		return 1.0;
	moved = ceil(row_bytes / sector_bytes) * sector_bytes;
	return row_bytes / (moved + activation_bytes);
}

static double pooling(const struct model_spec *m)
{
	if (m->pooling_factor > 0.0)
		return m->pooling_factor;
	if (m->lookups_per_sample > 0.0 && m->embedding_tables > 0)
		return m->lookups_per_sample / m->embedding_tables;
	return 1.0;
}

double recsys_lookups(const struct model_spec *m)
{
	return pooling(m) * m->embedding_tables;
}

double recsys_wide_state_bytes(const struct model_spec *m)
{
	if (!m->wide)
		return 0.0;
	switch (m->wide_optimizer) {
	case WIDE_SGD: return 0.0;
	case WIDE_ADAGRAD: return adagrad_state_bytes;
	default: return ftrl_state_bytes;
	}
}

double recsys_table_bytes(const struct model_spec *m)
{
	return recsys_total_rows(m) * (m->embedding_dim + (m->wide ? 1 : 0)) *
	       precision_bytes(m->embedding_precision);
}

/* Seconds to move the misses of 'lookups' rows between HBM and their
   tier, once ('writes' 0) or read and written back ('writes' 1). */
static double miss_s(const struct recsys_place *p, const struct cluster *cl,
		     double lookups, bool writes)
{
	double misses = (1.0 - p->hit_rate) * lookups, bytes, bw;
	int per_node = cl->gpus_per_node > 0 ? cl->gpus_per_node : 1;

	if (p->tier == RECSYS_TIER_HBM || misses <= 0.0)
		return 0.0;
	if (p->tier == RECSYS_TIER_HOST) {
		bytes = misses * p->row_bytes;
		bw = recsys_pcie_link(cl).bw_bytes_per_s;
	} else {
		bytes = misses * fmax(p->row_bytes, ssd_page_bytes);
		bw = (cl->ssd_bw_bytes_per_s > 0.0 ? cl->ssd_bw_bytes_per_s :
						     WL_SSD_BW_BYTES_PER_S) /
		     per_node;
	}
	return (writes ? 2.0 : 1.0) * bytes / bw;
}

/* ---------------------------------------------------------------------
 * Embedding kernels
 */

/* Bytes the HBM moves to gather 'rows' rows of 'row_bytes' at random,
   as bytes of streaming. */
static double gather_bytes(double rows, double row_bytes)
{
	return rows * row_bytes / recsys_gather_efficiency(row_bytes);
}

/*
 * Forward: gather the hits and write the pooled vectors ('bags' of
 * 'width' elements) in the tables' precision ('eb' bytes); an eager
 * framework then converts them to the math precision ('e' bytes) in a
 * kernel of its own (DeepLearningExamples' DLRM: .half() after the
 * lookup), which an inference engine fuses ('fused').
 */
static double emb_fwd_s(const struct device_perf *d,
			const struct recsys_place *p, double lookups,
			double bags, double width, double eb, double e,
			bool fused, double *kernels)
{
	double t = kernel_stream_s(d, gather_bytes(p->hit_rate * lookups,
						   p->row_bytes) +
					      bags * width * eb);

	*kernels = 1.0;
	if (!fused && eb != e) {
		t += kernel_stream_s(d, bags * width * (eb + e));
		*kernels += 1.0;
	}
	return t;
}

/*
 * Backward: convert the pooled gradient back to the tables' precision,
 * sort the step's indices, read and write each row and its optimizer
 * state at random.  With framework sparse gradients (PyTorch's
 * sparse=True embeddings with torch.optim, TensorFlow's IndexedSlices)
 * the gradient of every lookup is first written out, permuted by the
 * sort (read and written), reduced to one per row (read and written) and
 * read by the optimizer: five more passes over a row's bytes per lookup
 * than a backward fused with the optimizer (FBGEMM's table-batched
 * embeddings, TorchRec, HugeCTR), which reads each lookup's pooled
 * gradient once.
 */
static double emb_bwd_s(const struct device_perf *d,
			const struct recsys_place *p, enum optimizer o,
			double lookups, double bags, double width, double eb,
			double e, bool fused_update, double *kernels)
{
	double state = recsys_state_bytes_per_row(o);
	double bytes = lookups * width * eb +
		       lookups * sort_bytes_per_lookup +
		       2.0 * gather_bytes(p->hit_rate * lookups, p->row_bytes);
	double t = 0.0, n = 2.0; /* the sort and the update */

	if (state > 0.0)
		bytes += 2.0 * gather_bytes(lookups, state);
	if (!fused_update) {
		/* write, permute, reduce */
		bytes += sparse_grad_passes * lookups * width * eb;
		n += 3.0;
	}
	*kernels = n;
	if (eb != e) {
		t += kernel_stream_s(d, bags * width * (eb + e));
		*kernels += 1.0;
	}
	return t + kernel_stream_s(d, bytes) + (n - 1.0) * kernel_gap_s();
}

/*
 * The wide part (Cheng et al. 2016, "Wide & Deep Learning for
 * Recommender Systems"): a linear model over the sparse features, one
 * weight per row of every table, gathered like a table of 1-element
 * rows at the efficiency of such tiny rows (a 4-byte fp32 weight: 2.5%,
 * recsys_gather_efficiency) and summed into the logit.  A table's wide
 * weights sit with its rows (column-wise: 1/k with each of its k
 * shards), so a GPU serves 'lookups' / column_shards of them; they are
 * cached with the table ('p->hit_rate').  Forward: gather the hits and
 * write one partial sum a bag (the sum into the logit fused with it);
 * backward: read each lookup's gradient (the logit's, in the tables'
 * precision), read and write the weight and its optimizer state at
 * random (the index sort is the deep table's), with framework sparse
 * gradients 'sparse_grad_passes' more passes over the weight.  One
 * kernel each way.  Returns the seconds; 'miss' gets those of the
 * misses (training: read and written back).
 */
static double wide_s(const struct model_spec *m, const struct device_perf *d,
		     const struct recsys_place *p, const struct cluster *cl,
		     double lookups, bool training, bool fused_update,
		     double *kernels, double *miss)
{
	double eb = precision_bytes(m->embedding_precision);
	double n = lookups / p->column_shards, bags = n / pooling(m);
	double state = recsys_wide_state_bytes(m), t, bytes;
	struct recsys_place pw = *p;

	*kernels = 0.0;
	*miss = 0.0;
	if (!m->wide)
		return 0.0;
	t = kernel_stream_s(d, gather_bytes(p->hit_rate * n, eb) + bags * eb);
	*kernels = 1.0;
	pw.row_bytes = eb;
	*miss = miss_s(&pw, cl, n, false);
	if (!training)
		return t;
	bytes = n * eb + 2.0 * gather_bytes(p->hit_rate * n, eb);
	if (state > 0.0)
		bytes += 2.0 * gather_bytes(n, state);
	if (!fused_update)
		bytes += sparse_grad_passes * n * eb;
	*kernels += 1.0;
	*miss += miss_s(&pw, cl, n, true);
	return t + kernel_stream_s(d, bytes);
}

/* ---------------------------------------------------------------------
 * Training
 */


/* The step of one placement; 'place' filled on entry but for its tier. */
struct step_in {
	const struct model_spec *m;
	const struct train_config *c;
	const struct gpu_spec *g;
	const struct cluster *cl;
	const struct device_perf *d;
	double fixed_bytes;  /* per GPU beside the tables */
	double params;       /* of the dense network */
	const struct dense_cost *dense;     /* the micro-batch's, training */
	const struct dense_cost *dense_all; /* the global micro-batch's
					       (bottom MLP on one GPU);
					       NULL: not used */
};

static void step_eval(const struct step_in *in, struct recsys_step *s)
{
	const struct model_spec *m = in->m;
	const struct train_config *c = in->c;
	const struct cluster *cl = in->cl;
	const struct device_perf *d = in->d;
	struct recsys_place *p = &s->place;
	/* the node's link as the job's GPUs in one node share it */
	int in_node = c->gpus < cl->gpus_per_node ? c->gpus :
						    cl->gpus_per_node;
	struct link intra = comm_link(cl, in_node, in_node);
	struct link inter = comm_inter_link(cl);
	struct link pcie = recsys_pcie_link(cl);
	struct link l = comm_link(cl, c->gpus, c->gpus);
	struct dense_cost dc;
	double e = d->elem_bytes, gpus = c->gpus;
	double b = c->micro_batch, big_b = b * gpus, pf = pooling(m);
	double lookups = p->lookup_share * p->column_shards *
			 recsys_lookups(m) * big_b;
	double width = p->row_bytes / precision_bytes(m->embedding_precision);
	double bags = lookups / pf, comm, fwd_window, bwd_window, k_fwd, k_bwd;
	double eb = precision_bytes(m->embedding_precision);
	double params = in->params, grads = 4.0 * params;
	int per_node = cl->gpus_per_node;

	recsys_place_tier(m, cl, in->g->mem_bytes - in->fixed_bytes, p);
	s->gather_efficiency = recsys_gather_efficiency(p->row_bytes);
	dc = *in->dense;
	s->dense_s = dc.bottom_fwd.s + dc.bottom_bwd.s + dc.rest_fwd.s +
		     dc.rest_bwd.s;
	s->emb_fwd_s = emb_fwd_s(d, p, lookups, bags, width, eb, e, false,
				 &k_fwd);
	s->emb_bwd_s = emb_bwd_s(d, p, c->optimizer, lookups, bags, width, eb,
				 e, c->emb_fused_update, &k_bwd);
	s->miss_s = miss_s(p, cl, lookups, false) + miss_s(p, cl, lookups,
							   true);
	{
		double k_wide, wide_miss;

		/* the wide part, counted with the lookups and their update */
		s->wide_s = wide_s(m, d, p, cl, lookups, true,
				   c->emb_fused_update, &k_wide, &wide_miss);
		s->emb_bwd_s += s->wide_s;
		s->miss_s += wide_miss;
		k_bwd += k_wide;
	}
	s->kernels = dc.bottom_fwd.n + dc.bottom_bwd.n + dc.rest_fwd.n +
		     dc.rest_bwd.n + k_fwd + k_bwd;
	/* the bottom MLP on one GPU that holds no table (DeepLearningExamples'
	   PyTorch DLRM): it runs the whole global micro-batch while the
	   other GPUs look up their tables, forward and backward; the step
	   waits for the slower of the two in each pass */
	s->parallel_s = 0.0;
	if (in->dense_all) {
		struct dense_cost db = *in->dense_all;
		double ef = s->emb_fwd_s, eb2 = s->emb_bwd_s + s->miss_s;

		s->dense_s = db.bottom_fwd.s + db.bottom_bwd.s +
			     dc.rest_fwd.s + dc.rest_bwd.s;
		s->parallel_s = db.bottom_fwd.s + ef -
				fmax(db.bottom_fwd.s, ef) + db.bottom_bwd.s +
				eb2 - fmax(db.bottom_bwd.s, eb2);
		dc.bottom_fwd = db.bottom_fwd;
		dc.bottom_bwd = db.bottom_bwd;
	}

	/* the exchanges of one micro-batch */
	s->a2a_bytes = 0.0;
	s->a2a_s = 0.0;
	s->input_dist_s = 0.0;
	if (c->gpus > 1) {
		/* the wide part: each GPU's partial logit of every sample */
		double wide = m->wide ? big_b * e : 0.0;
		double pooled = big_b * m->embedding_tables *
					m->embedding_dim * e +
				wide;
		double indices = b * recsys_lookups(m) * 4.0;

		switch (p->sharding) {
		case EMB_DATA_PARALLEL:
			break;
		case EMB_ROW_WISE:
			/* partial sums of every bag: reduce-scatter forward,
			   all-gather of the gradients backward; every index
			   goes to every GPU */
			s->a2a_bytes = pooled;
			s->a2a_s = comm_reducescatter_s(&l, pooled, c->gpus) +
				   comm_allgather_s(&l, pooled, c->gpus);
			s->input_dist_s = comm_allgather_s(&l, indices * gpus,
							   c->gpus);
			break;
		default:
			/* each GPU sends its tables' bags for the others'
			   samples and receives its samples' bags of all
			   tables: the larger of the two */
			s->a2a_bytes = fmax(bags * width * e,
					    b * m->embedding_tables *
						    m->embedding_dim * e) +
				       wide;
			/* the bottom MLP's GPU sends its output of the
			   global micro-batch */
			if (c->bottom_mlp_one_gpu && m->bottom_mlp.n > 0)
				s->a2a_bytes = fmax(s->a2a_bytes,
						    big_b * m->embedding_dim *
							    e);
			s->a2a_s = 2.0 * comm_alltoall_nodes_s(
					       &intra, &inter, &pcie,
					       s->a2a_bytes, c->gpus,
					       per_node, cl->nvlink_peers);
			s->input_dist_s = comm_alltoall_nodes_s(
				&intra, &inter, &pcie, indices, c->gpus,
				per_node, cl->nvlink_peers);
			break;
		}
	}
	/* blocking (DeepLearningExamples): all of it exposed; pipelined
	   (TorchRec's TrainPipelineSparseDist): the indices of the next
	   batch go during this one, the pooled embeddings beside the
	   bottom MLP forward, their gradients beside the bottom MLP's
	   backward and the top MLP's weight gradients */
	fwd_window = dc.bottom_fwd.s;
	s->dense_bwd_s = dc.bottom_bwd.s + dc.rest_bwd.s;
	bwd_window = dc.bottom_bwd.s + 0.5 * dc.rest_bwd.s;
	if (c->emb_comm_overlap) {
		double half = 0.5 * s->a2a_s;

		s->comm_exposed_s =
			comm_overlapped_s(&l, half, fwd_window) +
			comm_overlapped_s(&l, half, bwd_window) +
			comm_overlapped_s(&l, s->input_dist_s,
					  s->dense_s + s->emb_fwd_s +
						  s->emb_bwd_s);
	} else {
		s->comm_exposed_s = s->a2a_s + s->input_dist_s;
	}
	/* a coordinator (Horovod's background thread) starts a collective
	   at its next cycle: each blocking all-to-all waits half a cycle on
	   average, the gradient reduction too (once a step) */
	s->cycle_wait_s = 0.0;
	if (c->gpus > 1 && c->collective_cycle_s > 0.0) {
		double n = p->sharding == EMB_DATA_PARALLEL ? 0.0 : 2.0;

		s->comm_exposed_s += n * 0.5 * c->collective_cycle_s;
		s->cycle_wait_s = (n * c->micro_batches + 1.0) * 0.5 *
				  c->collective_cycle_s;
	}

	/* the dense gradients once per step, beside the last backward */
	if (c->zero >= 1)
		comm = comm_reducescatter_s(&l, grads, c->gpus) +
		       comm_allgather_s(&l, params * train_state_bytes(
							     c->precision,
							     c->optimizer)
							     .weights,
					c->gpus);
	else
		comm = comm_allreduce_s(&l, grads, c->gpus);
	s->allreduce_s = comm;
	s->table_sync_s = 0.0;
	if (p->sharding == EMB_DATA_PARALLEL && c->gpus > 1) {
		/* replicated tables: their dense gradients all-reduced and
		   every row updated (read the row, its gradient and state,
		   write row and state) */
		double tb = recsys_table_bytes(m);
		double el = recsys_total_rows(m) *
			    (m->embedding_dim + (m->wide ? 1 : 0));

		s->table_sync_s = comm_allreduce_s(&l, 4.0 * el, c->gpus) +
				  kernel_stream_s(d, 2.0 * tb + 4.0 * el);
	}
	s->data_s = 0.0;
	{
		int nodes = (c->gpus + per_node - 1) / per_node;
		double bw = (cl->ssd_bw_bytes_per_s > 0.0 ?
				     cl->ssd_bw_bytes_per_s :
				     WL_SSD_BW_BYTES_PER_S) *
			    nodes;
		double bytes = c->input_bytes > 0.0 ?
				       c->input_bytes :
				       input_bytes_per_value *
					       (m->dense_features +
						recsys_lookups(m) + 1.0);

		s->data_s = c->global_batch * bytes / bw;
	}
}

/* Memory of everything but the tables, the dense network of 'params'
   parameters; fills 'r->memory' but tables. */
static double fixed_memory(const struct model_spec *m,
			   const struct train_config *c,
			   const struct gpu_spec *g, double params,
			   double act_elems, double elem,
			   struct train_result *r)
{
	double b = c->micro_batch;

	train_memory_states(params, c->zero, c->gpus, c->precision,
			    c->optimizer, &r->memory);
	/* saved activations, the pooled embeddings of the GPU's samples
	   and of its tables' bags, and their gradients */
	r->memory.activations_bytes =
		(act_elems + 2.0 * m->embedding_tables *
				     (m->embedding_dim + (m->wide ? 1 : 0))) *
		elem * b;
	r->memory.reserve_bytes = train_memory_reserve(g->mem_bytes);
	return r->memory.weights_bytes + r->memory.gradients_bytes +
	       r->memory.optimizer_bytes + r->memory.activations_bytes +
	       r->memory.reserve_bytes;
}

static double step_total(const struct recsys_step *s,
			 const struct train_config *c, double optimizer_s,
			 double dp_s)
{
	return c->micro_batches * (s->dense_s + s->emb_fwd_s + s->emb_bwd_s +
				   s->miss_s - s->parallel_s +
				   s->comm_exposed_s) +
	       dp_s + optimizer_s + s->table_sync_s +
	       (c->gpus > 1 ? 0.5 * c->collective_cycle_s : 0.0);
}

int recsys_table_gpus(const struct model_spec *m, const struct train_config *c)
{
	return c->bottom_mlp_one_gpu && c->gpus > 1 && m->bottom_mlp.n > 0 ?
		       c->gpus - 1 :
		       c->gpus;
}

int recsys_train_eval(const struct model_spec *m, const struct train_config *c,
		      const struct gpu_spec *g, const struct cluster *cl,
		      const struct recsys_layout *lay, struct train_result *r,
		      struct recsys_step *out)
{
	static const int candidates[] = { EMB_TABLE_WISE, EMB_ROW_WISE,
					  EMB_COLUMN_WISE, EMB_DATA_PARALLEL };
	struct device_perf d;
	struct dense_cost mb_cost, all_cost;
	struct recsys_step best, s;
	struct step_in in;
	struct recsys_deal own; /* a deal 'lay' does not hold */
	double rows_desc[WL_TABLES_MAX];
	bool sorted = false;
	int spread = recsys_table_gpus(m, c);
	bool bottom_apart = spread < c->gpus;
	struct train_time *tm = &r->time;
	double params = recsys_dense_params(m), f = recsys_dense_flops(m);
	double fixed, optimizer_s, dp_s = 0.0, best_t = 0.0, gpus = c->gpus;
	struct link l = comm_link(cl, c->gpus, c->gpus);
	bool have = false;

	if (device_perf_init(&d, g, c->precision, false) != 0)
		return -1;
	d.matmul_eff *= recsys_kernel_efficiency(m);
	/* what every placement shares: the dense network's passes and its
	   saved activations */
	recsys_dense_cost(m, &d, c->micro_batch, true, false, &mb_cost);
	fixed = fixed_memory(m, c, g, params, mb_cost.act_elems, d.elem_bytes,
			     r);
	if (bottom_apart)
		recsys_dense_cost(m, &d, (double)c->micro_batch * gpus, true,
				  false, &all_cost);
	in = (struct step_in){ .m = m,
			       .c = c,
			       .g = g,
			       .cl = cl,
			       .d = &d,
			       .fixed_bytes = fixed,
			       .params = params,
			       .dense = &mb_cost,
			       .dense_all = bottom_apart ? &all_cost : NULL };
	optimizer_s = kernel_stream_s(
		&d, params / (c->zero >= 1 ? gpus : 1.0) *
			    train_optimizer_bytes_per_param(c->optimizer));
	for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]);
	     i++) {
		const struct recsys_deal *dl;
		double t, dp;

		if (c->emb_sharding != EMB_AUTO &&
		    candidates[i] != c->emb_sharding)
			continue;
		/* one GPU: every sharding is the same */
		if (c->emb_sharding == EMB_AUTO && c->gpus == 1 &&
		    candidates[i] != EMB_TABLE_WISE)
			continue;
		/* the bottom MLP's GPU holds no table; the tables dealt
		   once per search (lay), else here */
		dl = recsys_layout_deal(lay, m, candidates[i], spread,
					c->optimizer);
		if (!dl) {
			if (!sorted)
				recsys_rows_descending(m, rows_desc);
			sorted = true;
			recsys_deal_tables(m, rows_desc, candidates[i], spread,
					   c->optimizer, true, &own);
			dl = &own;
		}
		recsys_place_budget(dl, g->mem_bytes - fixed, &s.place);
		step_eval(&in, &s);
		dp = c->overlap_grad_reduce ?
			     comm_overlapped_s(&l, s.allreduce_s,
					       s.dense_bwd_s) :
			     s.allreduce_s;
		t = step_total(&s, c, optimizer_s, dp);
		t = fmax(t, s.data_s);
		if (!have || t < best_t) {
			best = s;
			best_t = t;
			dp_s = dp;
			have = true;
		}
	}
	s = best;
	s.gpu_s = step_total(&s, c, optimizer_s, dp_s);
	s.stall_s = fmax(0.0, s.data_s - s.gpu_s);
	{
		/* what the step spends most on */
		double dense = c->micro_batches * s.dense_s + optimizer_s;
		double emb = c->micro_batches * (s.emb_fwd_s + s.emb_bwd_s);
		double miss = c->micro_batches * s.miss_s;
		double comm = c->micro_batches * s.comm_exposed_s + dp_s +
			      s.table_sync_s +
			      (c->gpus > 1 ? 0.5 * c->collective_cycle_s : 0.0);

		s.bound = "dense network";
		if (emb > dense && emb >= miss && emb >= comm)
			s.bound = "embedding lookups";
		else if (miss > dense && miss > emb && miss >= comm)
			s.bound = s.place.tier == RECSYS_TIER_SSD ?
					  "embedding rows on SSD" :
					  "embedding rows in host memory";
		else if (comm > dense && comm > emb && comm > miss)
			s.bound = "communication";
		if (s.stall_s > 0.0)
			s.bound = "input data";
	}

	tm->compute_s = c->micro_batches * (s.dense_s + s.emb_fwd_s +
					    s.emb_bwd_s + s.miss_s -
					    s.parallel_s);
	tm->tp_comm_s = c->micro_batches * s.comm_exposed_s;
	tm->pp_comm_s = 0.0;
	tm->cp_comm_s = 0.0;
	tm->bubble_s = 0.0;
	tm->dp_comm_s = dp_s + s.table_sync_s +
			(c->gpus > 1 ? 0.5 * c->collective_cycle_s : 0.0);
	tm->optimizer_s = optimizer_s;
	tm->offload_s = 0.0;
	/* the training loop's host time, serial with the GPU (the loop
	   synchronizes every step) */
	tm->host_s = c->step_overhead_s;
	tm->step_s = s.gpu_s + s.stall_s + tm->host_s;

	r->memory.weights_bytes += s.place.hbm_bytes;
	r->memory.total_bytes = fixed + s.place.hbm_bytes;
	r->memory.capacity_bytes = g->mem_bytes;
	r->memory.fits = r->memory.total_bytes <= g->mem_bytes &&
			 fixed <= g->mem_bytes;

	r->params = params + recsys_total_rows(m) *
				     (m->embedding_dim + (m->wide ? 1 : 0));
	sample_result_rates(r, c->global_batch, gpus, f, d.peak_flops);
	if (out)
		*out = s;
	return 0;
}

/* ---------------------------------------------------------------------
 * Serving
 */

int recsys_infer_eval(const struct model_spec *m, int tp, int batch,
		      enum precision p, const struct serve_costs *sc,
		      const struct gpu_spec *g, const struct cluster *cl,
		      struct sample_infer *r)
{
	struct device_perf d;
	struct dense_cost dc;
	struct recsys_place *pl = &r->place;
	struct link intra = comm_link(cl, tp < cl->gpus_per_node ? tp :
						    cl->gpus_per_node,
				      tp);
	struct link pcie = recsys_pcie_link(cl);
	double n = batch, t = tp, wb = infer_weight_bytes_per_param(p, false, false);
	double params = recsys_dense_params(m), e, lookups, width, host_bw;
	double budget, live, gpu, issue, k_emb, rows_desc[WL_TABLES_MAX];

	if (device_perf_init(&d, g, infer_math_precision(p), false) != 0)
		return -1;
	d.matmul_eff *= recsys_kernel_efficiency(m);
	e = d.elem_bytes;
	/* each GPU of the replica runs the dense network on its share of
	   the batch after the all-to-all */
	recsys_dense_cost(m, &d, ceil(n / t), false, sc->fusion, &dc);
	live = (dc.act_elems + 2.0 * m->embedding_tables *
				       (m->embedding_dim + (m->wide ? 1 : 0))) *
	       e * ceil(n / t);
	r->weights_bytes = params * wb;
	budget = g->mem_bytes - train_memory_reserve(g->mem_bytes) -
		 r->weights_bytes - live;
	recsys_rows_descending(m, rows_desc);
	recsys_place_tables(m, rows_desc, EMB_TABLE_WISE, tp, OPTIMIZER_SGD, false,
		     budget, pl);
	recsys_place_tier(m, cl, budget, pl);
	r->weights_bytes += pl->hbm_bytes;
	r->memory_total_bytes = r->weights_bytes + live +
				train_memory_reserve(g->mem_bytes);
	r->capacity_bytes = g->mem_bytes;
	r->fits = budget >= 0.0 &&
		  r->memory_total_bytes <= g->mem_bytes * (1.0 + 1e-12);

	lookups = pl->lookup_share * pl->column_shards * recsys_lookups(m) * n;
	width = pl->row_bytes / precision_bytes(m->embedding_precision);
	r->emb_s = emb_fwd_s(&d, pl, lookups, lookups / pooling(m), width,
			     precision_bytes(m->embedding_precision), e,
			     sc->fusion, &k_emb);
	r->miss_s = miss_s(pl, cl, lookups, false);
	{
		double k_wide, wide_miss;

		r->emb_s += wide_s(m, &d, pl, cl, lookups, false, true,
				   &k_wide, &wide_miss);
		r->miss_s += wide_miss;
		k_emb += k_wide;
	}
	r->a2a_s = tp > 1 ? comm_alltoall_nodes_s(&intra, &intra, &pcie,
						  fmax(lookups / pooling(m) *
							       width * e,
						       ceil(n / t) *
							       m->embedding_tables *
							       m->embedding_dim *
							       e),
						  tp, cl->gpus_per_node,
						  cl->nvlink_peers) :
			    0.0;
	r->dense_s = dc.bottom_fwd.s + dc.rest_fwd.s;
	r->kernels = dc.bottom_fwd.n + dc.rest_fwd.n + k_emb +
		     extra_infer_kernels + (tp > 1 ? 1.0 : 0.0);
	/* the inputs (numerical features and indices) to the GPU and the
	   scores back */
	host_bw = recsys_pcie_link(cl).bw_bytes_per_s;
	r->copy_s = n * input_bytes_per_value *
		    (m->dense_features + recsys_lookups(m) + 1.0) / host_bw;
	gpu = kernel_gap_s() * extra_infer_kernels + r->emb_s + r->miss_s +
	      r->a2a_s + r->dense_s;
	r->gpu_s = gpu;
	/* without CUDA graphs the host issues every kernel; the GPU runs
	   them as they come: the slower of the two */
	issue = sc->cuda_graphs ? 0.0 : r->kernels * sc->launch_s;
	r->host_s = sc->framework_s;
	r->request_s = sc->request_s;
	r->latency_s = r->request_s + r->host_s + r->copy_s + fmax(gpu, issue);
	r->launch_bound = issue > gpu;
	r->throughput_per_s = n / r->latency_s;
	r->gpu_power_w = gpu_power_w(g, 1.0);
	return 0;
}
