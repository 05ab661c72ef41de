/* search.c - enumerate training configurations; see search.h. */
#include "search.h"

#include <math.h>

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checked.h"

/* Most threads a parallel search starts. */
static const int max_threads = 256;

/* Most layers of a chunk a partial full recomputation is tried with (a
   search bound: past it, the chunk is recomputed whole or not at all). */
#define MAX_RECOMPUTE_LAYERS 32

static void dim_one(struct space_dim *d, int v)
{
	d->n = 1;
	d->v[0] = v;
}

static void dim_add(struct space_dim *d, int v)
{
	if (d->n < SPACE_MAX_VALUES)
		d->v[d->n++] = v;
}

int default_global_batch(int seq_len, double batch_tokens)
{
	const double sqrt2 = 1.4142135623730951;
	double seqs = batch_tokens / seq_len;
	int gb = 1;

	/* the power of two nearest in ratio: 2^k <= seqs < 2^(k+1) rounds
	   up from sqrt(2) 2^k */
	while (gb <= WL_BATCH_MAX / 2 && gb * sqrt2 <= seqs)
		gb *= 2;
	return gb;
}

double default_batch_tokens(double flops_per_token, double tokens,
			    int seq_len)
{
	double c = flops_per_token * tokens;
	double b = c > 1.0 ? 0.292 * pow(c, 0.3271) : 0.0;

	return b > seq_len ? b : (double)seq_len;
}

int round_batch(int target, int unit)
{
	long long k;

	/* a step larger than the batch is not a rounding of it */
	if (unit < 1 || unit > target)
		return target;
	k = llround((double)target / unit);
	if (k < 1)
		k = 1;
	while (k > 1 && k * unit > WL_BATCH_MAX)
		k--;
	return (int)(k * unit);
}

/* Whether 't' GPUs of a group fit the nodes: a divisor of the node or
   whole nodes (train_config_explain). */
static bool fits_nodes(int t, int gpus_per_node)
{
	if (gpus_per_node < 1)
		return false;
	return t <= gpus_per_node ? gpus_per_node % t == 0 :
				    t % gpus_per_node == 0;
}

int train_space_init(struct train_space *sp, const struct training_spec *ts,
		     const struct arch *a, int gpus, int global_batch,
		     int gpus_per_node, struct diag *err)
{
	memset(sp, 0, sizeof(*sp));
	if (gpus < 1 || global_batch < 0)
		return diag_set(err, NULL, 0, 0,
				"gpus must be resolved and global_batch >= 0");
	sp->gpus = gpus;
	/* the default batch is held fixed across GPU counts and
	   configurations: a planner that grows it with the cluster makes
	   scaling look linear by construction */
	if (global_batch == 0) {
		global_batch = default_global_batch(
			a->seq_len, ts->batch_tokens > 0.0 ? ts->batch_tokens :
							     WL_BATCH_TOKENS);
		sp->batch_round = true;
	}
	sp->global_batch = global_batch;
	sp->precision = ts->precision;
	sp->optimizer = ts->optimizer;
	sp->attention = ts->attention;
	sp->eager_ops = ts->eager_ops;
	sp->dropout = ts->dropout;
	/* Megatron-Core's --overlap-param-gather and DualPipe's all-to-all
	   overlap: off unless the workload turns them on */
	sp->ep_comm_overlap = ts->ep_comm_overlap == 1;
	sp->zero_node_gpus = ts->zero_shard == WL_ZERO_SHARD_NODE ?
				     gpus_per_node :
				     0;
	sp->zero_shard_ranks = ts->zero_shard >= 2 ? ts->zero_shard : 0;
	sp->recompute_modules = ts->recompute_modules;
	sp->overlap_param_gather = ts->overlap_param_gather == 1;

	/* tensor parallelism: any divisor of the heads, within a node or
	   over whole nodes (the inter-node network carries it) */
	if (ts->tp != WL_AUTO)
		dim_one(&sp->tp, ts->tp);
	else
		for (int t = 1; t <= a->heads && t <= gpus; t++)
			if (gpus % t == 0 && a->heads % t == 0 &&
			    fits_nodes(t, gpus_per_node))
				dim_add(&sp->tp, t);
	if (ts->pp != WL_AUTO)
		dim_one(&sp->pp, ts->pp);
	else
		/* stages may hold unequal numbers of layers (Llama 3 ran 126
		   layers on 16 stages, the first and last holding one fewer);
		   the slowest stage is modelled */
		for (int p = 1; p <= a->layers && p <= gpus; p++)
			if (gpus % p == 0)
				dim_add(&sp->pp, p);
	sp->first_stage_layers = ts->first_stage_layers;
	sp->last_stage_layers = ts->last_stage_layers;
	/* interleaving: the divisors of the layers per stage (checked per
	   pp in the search) */
	if (ts->vp != WL_AUTO) {
		dim_one(&sp->vp, ts->vp);
	} else {
		sp->vp_divides = true;
		for (int v = 1; v == 1 || v <= a->layers / 2; v++)
			dim_add(&sp->vp, v);
	}
	if (ts->cp != WL_AUTO)
		dim_one(&sp->cp, ts->cp);
	else
		for (int c = 1; c > 0 && c <= gpus_per_node && c <= gpus;
		     c = ck_doubled_within(c, gpus_per_node))
			/* context parallelism pays only for long sequences */
			if (c == 1 || a->seq_len / c >= 4096)
				dim_add(&sp->cp, c);
	if (ts->ep != WL_AUTO)
		dim_one(&sp->ep, ts->ep);
	else if (!arch_is_moe(a))
		dim_one(&sp->ep, 1);
	else
		for (int e = 1; e > 0 && e <= a->experts && e <= gpus;
		     e = ck_doubled_within(e, a->experts))
			if (a->experts % e == 0)
				dim_add(&sp->ep, e);
	/* every divisor of the global batch (the smallest SPACE_MAX_VALUES);
	   the search keeps those that divide the local batch */
	if (ts->micro_batch != WL_AUTO)
		dim_one(&sp->micro_batch, ts->micro_batch);
	else
		for (int b = 1; b <= global_batch; b++)
			if (global_batch % b == 0)
				dim_add(&sp->micro_batch, b);
	if (ts->zero != WL_AUTO_NEG)
		dim_one(&sp->zero, ts->zero);
	else
		for (int z = 0; z <= 3; z++)
			dim_add(&sp->zero, z);
	if (ts->recompute != RECOMPUTE_AUTO)
		dim_one(&sp->recompute, ts->recompute);
	else if (ts->recompute_layers > 0)
		dim_one(&sp->recompute, RECOMPUTE_FULL);
	else
		for (int r = RECOMPUTE_NONE; r <= RECOMPUTE_FULL; r++)
			/* with a fused attention kernel, recomputing
			   the attention core alone keeps what none keeps,
			   at a cost: searched only with other modules */
			if (r != RECOMPUTE_SELECTIVE ||
			    ts->attention == ATTN_UNFUSED ||
			    (ts->recompute_modules & ~RECOMPUTE_MOD_CORE_ATTN))
				dim_add(&sp->recompute, r);
	/* full recomputation of some layers of each chunk (Megatron's
	   recompute_num_layers) is searched with the recomputation; a
	   workload that gives recompute = full alone means every layer */
	sp->recompute_layers = ts->recompute_layers;
	if (ts->recompute == RECOMPUTE_AUTO && ts->recompute_layers == WL_AUTO)
		sp->recompute_layers_max =
			a->layers - 1 < MAX_RECOMPUTE_LAYERS ?
				a->layers - 1 :
				MAX_RECOMPUTE_LAYERS;
	/* on first: at equal speed the search keeps the first found */
	if (ts->sequence_parallel != WL_AUTO_NEG) {
		dim_one(&sp->sp, ts->sequence_parallel);
	} else {
		dim_add(&sp->sp, 1);
		dim_add(&sp->sp, 0);
	}
	if (ts->overlap_grad_reduce != WL_AUTO_NEG) {
		dim_one(&sp->overlap, ts->overlap_grad_reduce);
	} else {
		dim_add(&sp->overlap, 1);
		dim_add(&sp->overlap, 0);
	}
	if (ts->tp_comm_overlap != WL_AUTO_NEG) {
		dim_one(&sp->tp_overlap, ts->tp_comm_overlap);
	} else {
		dim_add(&sp->tp_overlap, 1);
		dim_add(&sp->tp_overlap, 0);
	}
	/* optimizer offload: searched only where the cluster can offload
	   (train_space_offload); a given share is one candidate */
	sp->offload_fraction = 1.0;
	if (ts->offload_optimizer > 0.0) {
		dim_one(&sp->offload, 1);
		sp->offload_fraction = ts->offload_optimizer;
	} else {
		dim_one(&sp->offload, 0);
	}
	if (sp->tp.n == 0 || sp->pp.n == 0 || sp->micro_batch.n == 0)
		return diag_set(err, NULL, 0, 0,
				"no legal parallel split of %d gpus for this "
				"model", gpus);
	return 0;
}

void train_space_offload(struct train_space *sp,
			 const struct training_spec *ts,
			 const struct cluster *cl)
{
	if (ts->offload_optimizer != WL_OFFLOAD_AUTO || !cluster_can_offload(cl))
		return;
	/* none first: at equal speed the first found is kept */
	sp->offload.n = 0;
	dim_add(&sp->offload, 0);
	dim_add(&sp->offload, 1);
	sp->offload_fraction = 1.0;
}

long long train_space_size(const struct train_space *sp)
{
	long long rc = sp->recompute.n;

	for (int i = 0; i < sp->recompute.n; i++)
		if (sp->recompute.v[i] == RECOMPUTE_FULL)
			rc += sp->recompute_layers_max;
	return (long long)sp->tp.n * sp->cp.n * sp->ep.n * sp->micro_batch.n *
	       sp->sp.n * sp->tp_overlap.n * sp->pp.n * sp->vp.n *
	       sp->zero.n * rc * sp->overlap.n * sp->offload.n;
}

/* Faster; at equal speed (within rounding), the one using less memory. */
static bool faster(const struct train_result *a, const struct train_result *b)
{
	double tol = 1e-9 * b->tokens_per_s;

	if (a->tokens_per_s > b->tokens_per_s + tol)
		return true;
	if (a->tokens_per_s < b->tokens_per_s - tol)
		return false;
	return a->memory.total_bytes < b->memory.total_bytes;
}

/* Better: fits beats not fitting; then more tokens per second; among
   misfits, less memory.  'have': 'res' holds a configuration. */
static bool better(const struct train_result *r,
		   const struct search_result *res, bool have)
{
	if (!have)
		return true;
	if (r->memory.fits != res->found)
		return r->memory.fits;
	if (r->memory.fits)
		return faster(r, &res->result);
	return r->memory.total_bytes < res->result.memory.total_bytes;
}

/* Insert a fitting configuration into the ranking if it belongs there. */
static void rank(struct search_entry *top, int k, int *ntop,
		 const struct train_config *c, const struct train_result *r)
{
	int i = *ntop;

	if (k <= 0 || !r->memory.fits)
		return;
	if (i == k && !faster(r, &top[k - 1].result))
		return;
	if (i < k)
		(*ntop)++;
	else
		i = k - 1;
	/* shift slower entries down, keeping the order stable */
	while (i > 0 && faster(r, &top[i - 1].result)) {
		top[i] = top[i - 1];
		i--;
	}
	top[i].config = *c;
	top[i].result = *r;
}

int train_search(const struct train_space *sp, const struct arch *a,
		 const struct gpu_spec *g, const struct cluster *cl,
		 struct search_result *res)
{
	return train_search_top(sp, a, g, cl, res, NULL, 0, NULL);
}

/* Slack of the bound against the best found: keeps configurations whose
   bound ties it within rounding (faster() itself uses 1e-9). */
static const double bound_margin = 1e-6;

/*
 * Whether configurations of tokens/s at most 'bound_tps' (a bound:
 * train_pipeline_bound_s) cannot make the ranking: a configuration that
 * fits is known and is faster, and so is the last of a full ranking.  The
 * margin keeps configurations that tie (faster()) in.
 */
static bool hopeless(double bound_tps, const struct search_result *res,
		     const struct search_entry *top, int ktop, const int *ntop)
{
	if (!res->found || (top && ktop > 0 && *ntop < ktop))
		return false;
	if (top && ktop > 0 &&
	    bound_tps >=
		    top[ktop - 1].result.tokens_per_s * (1.0 - bound_margin))
		return false;
	return bound_tps < res->result.tokens_per_s * (1.0 - bound_margin);
}

/*
 * The memory of 'c' at the split of 'ties' that needs the least (set in
 * 'c'), into 'm', with its host side on 'cl'.  'w' holds the
 * configuration's parameter counts (mc->mem); its states are filled
 * here.  The splits are weighed without an optimizer offload
 * (train_stage_pick): a configuration and its offloaded twin split alike.
 */
static void config_memory(const struct arch *a, struct train_config *c,
			  const struct train_micro *mc,
			  const struct train_stage_ties *ties,
			  double capacity_bytes, const struct cluster *cl,
			  struct train_stage_memory *w, struct train_memory *m)
{
	double best_bytes = 0.0;
	int best = 0;

	*w = mc->mem;
	train_stage_memory_states(w, a, c, mc->layer_act_bytes);
	if (ties->n > 1) {
		struct train_stage_memory plain;
		const struct train_stage_memory *v = w;

		if (c->offload_fraction > 0.0) {
			plain = *w;
			plain.optimizer_kept = 1.0;
			v = &plain;
		}
		for (int i = 0; i < ties->n; i++) {
			double b = train_stage_memory_peak(v, a, c,
							   ties->first[i],
							   ties->last[i]);

			if (i == 0 || b < best_bytes) {
				best_bytes = b;
				best = i;
			}
		}
	}
	c->first_stage_layers = ties->first[best];
	c->last_stage_layers = ties->last[best];
	train_memory_eval_stages(w, a, c, capacity_bytes, m);
	if (c->offload_fraction > 0.0)
		train_memory_host(m, c, cl->gpus_per_node,
				  cl->host_memory_bytes);
}

/* What one thread's search keeps besides its result. */
struct share_state {
	int best_outer;              /* outer index of the best, or -1 */
	bool have_misfit;            /* the least memory among misfits */
	struct train_config misfit;
	double misfit_bytes;
	int misfit_outer;
	/* optimizer offload (train_offload_never_faster): known after the
	   first micro-batch costs; then whether an offloaded configuration
	   is never faster than its twin without, and the host bytes of the
	   offloaded share per byte of optimizer states */
	bool offload_known;
	bool offload_slower;
	double offload_host_ratio;
};

/* Whether 'c' with optimizer offload 'o' (a value of the offload
   candidates) is legal on 'cl': the offload needs ZeRO >= 1 and a host. */
static bool offload_legal(const struct train_space *sp, struct train_config *c,
			  const struct cluster *cl, int o)
{
	c->offload_fraction = o ? sp->offload_fraction : 0.0;
	return !o || (c->zero >= 1 && cluster_can_offload(cl));
}

/*
 * Whether the offloaded twin of a configuration that fits without offload
 * (memory 'm', its split set in 'c') fits: on the GPU it needs less, and
 * its node's hosts hold the offloaded share of the GPU with the most
 * optimizer states (what config_memory finds, without weighing it again).
 */
static bool twin_fits(const struct train_config *c, const struct cluster *cl,
		      const struct share_state *st,
		      const struct train_memory *m)
{
	struct train_memory t = *m;

	t.host_bytes = st->offload_host_ratio * m->offloadable_bytes;
	t.fits = true;
	train_memory_host(&t, c, cl->gpus_per_node, cl->host_memory_bytes);
	return t.fits;
}

/*
 * Time 'c' (legal, fitting, its split set) with each gradient-reduction
 * overlap, unless its bound ('*bound_tps', computed on first use) shows
 * it cannot beat what is found; keep it if it is better.
 */
static void time_config(const struct train_space *sp, const struct arch *a,
			const struct gpu_spec *g, const struct cluster *cl,
			struct train_config *c, const struct train_micro *mc,
			struct search_result *res, struct search_entry *top,
			int ktop, int *ntop, int outer, struct share_state *st,
			double *bound_tps)
{
	struct train_result r;
	int n_overlap;

	if (res->found) {
		if (*bound_tps < 0.0)
			*bound_tps = (double)c->global_batch * a->seq_len /
				     train_pipeline_bound_s(a, c, cl, mc);
		if (hopeless(*bound_tps, res, top, ktop, ntop))
			return;
	}
	/* without a gradient reduction to hide (one data-parallel rank, or
	   ZeRO-3's own prefetch, model_train.c) the overlap changes nothing:
	   timed once */
	n_overlap = c->zero > 2 || (long long)c->dp * c->cp < 2 ?
			    1 :
			    sp->overlap.n;
	for (int o = 0; o < n_overlap; o++) {
		c->overlap_grad_reduce = sp->overlap.v[o];
		train_evaluate_micro(a, c, g, cl, mc, &r);
		res->evaluated++;
		if (top)
			rank(top, ktop, ntop, c, &r);
		if (better(&r, res, res->found)) {
			res->best = *c;
			res->result = r;
			res->found = true;
			st->best_outer = outer;
		}
	}
}

/* Keep 'c' (of memory 'm', which does not fit) if it needs the least
   memory so far and nothing fits yet. */
static void note_misfit(const struct train_space *sp,
			const struct train_config *c,
			const struct train_memory *m,
			const struct search_result *res, int outer,
			struct share_state *st)
{
	if (res->found ||
	    (st->have_misfit && !(m->total_bytes < st->misfit_bytes)))
		return;
	st->have_misfit = true;
	st->misfit = *c;
	st->misfit.overlap_grad_reduce = sp->overlap.v[0];
	st->misfit_bytes = m->total_bytes;
	st->misfit_outer = outer;
}

/*
 * The configurations of one (outer keys, pp, vp, recomputation) group:
 * its ZeRO stages, optimizer offloads and gradient-reduction overlaps.
 * Memory is weighed before time; time only for what fits and may beat
 * what is found.  An offloaded configuration whose twin without offload
 * fits is weighed from the twin's memory, and timed only when the offload
 * might be faster (st->offload_slower false) or for a ranking.
 * 'fits[o]' (per ZeRO candidate, o: 0 without offload, 1 with) is set to
 * whether each fits.
 */
static void search_group(const struct train_space *sp, const struct arch *a,
			 const struct gpu_spec *g, const struct cluster *cl,
			 struct train_config *c, const struct train_micro *mc,
			 const struct train_stage_ties *ties,
			 struct search_result *res, struct search_entry *top,
			 int ktop, int *ntop, int outer,
			 struct share_state *st, bool *const fits[2])
{
	struct train_stage_memory w;
	struct train_memory m, plain;
	double bound_tps = -1.0;
	long long per_zero = sp->overlap.n;
	bool ranking = top && ktop > 0;

	for (int z = 0; z < sp->zero.n; z++) {
		bool plain_fits = false;

		fits[0][z] = fits[1][z] = false;
		c->zero = sp->zero.v[z];
		/* ZeRO-3 does not combine with pipelines (train_config.c) */
		if (c->zero > 2 && c->pp > 1)
			continue;
		for (int k = 0; k < sp->offload.n; k++) {
			int o = sp->offload.v[k];

			if (!offload_legal(sp, c, cl, o))
				continue;
			res->legal += per_zero;
			if (o && plain_fits) {
				/* the twin's split and memory, less the
				   offloaded share */
				if (!twin_fits(c, cl, st, &plain))
					continue;
				fits[1][z] = true;
				res->fitting += per_zero;
				if (!st->offload_slower || ranking)
					time_config(sp, a, g, cl, c, mc, res,
						    top, ktop, ntop, outer, st,
						    &bound_tps);
				continue;
			}
			config_memory(a, c, mc, ties, g->mem_bytes, cl, &w,
				      &m);
			if (!m.fits) {
				note_misfit(sp, c, &m, res, outer, st);
				continue;
			}
			if (!o) {
				plain = m;
				plain_fits = true;
			}
			fits[o][z] = true;
			res->fitting += per_zero;
			time_config(sp, a, g, cl, c, mc, res, top, ktop, ntop,
				    outer, st, &bound_tps);
		}
		c->offload_fraction = 0.0;
	}
}

/*
 * Full recomputation of 1 to 'kmax' layers of each chunk, for a search
 * without a ranking: memory falls and time grows with the layers
 * recomputed, so for each ZeRO stage and offload only the fewest layers
 * that fit can be the fastest.  Where recomputing every layer does not
 * fit ('fits_all'), no count does; else the fewest that fit are found by
 * bisection, and timed unless recomputing none fits too ('fits_none'):
 * then every count is slower; nor is an offload that needs as many
 * layers as no offload does, when it is never faster.  'fits_none[o]'
 * and 'fits_all[o]' are per ZeRO candidate, o: 0 without offload, 1 with.
 * 'ties' is a workspace of kmax + 1 entries.
 */
static void search_partial(const struct train_space *sp, const struct arch *a,
			   const struct gpu_spec *g, const struct cluster *cl,
			   struct train_config *c, const struct train_micro *mc,
			   struct search_result *res, int outer,
			   struct share_state *st, int kmax,
			   bool *const fits_none[2], bool *const fits_all[2],
			   struct train_stage_ties *ties)
{
	struct train_stage_memory w;
	struct train_memory m;
	long long per_zero = sp->overlap.n;
	bool have[MAX_RECOMPUTE_LAYERS + 1] = { false };

	for (int z = 0; z < sp->zero.n; z++) {
		int lo_plain = kmax + 1;

		c->zero = sp->zero.v[z];
		if (c->zero > 2 && c->pp > 1)
			continue;
		for (int k = 0; k < sp->offload.n; k++) {
			int o = sp->offload.v[k];
			int lo = 1, hi = kmax + 1;
			double bound_tps = -1.0;

			if (!offload_legal(sp, c, cl, o))
				continue;
			res->legal += kmax * per_zero;
			if (!fits_all[o][z])
				continue;
			/* the fewest layers that fit, in [1, kmax + 1) */
			while (lo < hi) {
				int mid = lo + (hi - lo) / 2;

				c->recompute_layers = mid;
				if (!have[mid]) {
					if (train_stage_fastest(
						    a, c, mc,
						    sp->first_stage_layers,
						    sp->last_stage_layers,
						    &ties[mid]) != 0)
						ties[mid].n = 0;
					have[mid] = true;
				}
				if (ties[mid].n > 0)
					config_memory(a, c, mc, &ties[mid],
						      g->mem_bytes, cl, &w,
						      &m);
				if (ties[mid].n > 0 && m.fits)
					hi = mid;
				else
					lo = mid + 1;
			}
			res->fitting += (kmax - lo + 1) * per_zero;
			if (!o)
				lo_plain = lo;
			if (lo > kmax || fits_none[o][z] ||
			    (o && st->offload_slower && lo >= lo_plain))
				continue;
			c->recompute_layers = lo;
			config_memory(a, c, mc, &ties[lo], g->mem_bytes, cl, &w,
				      &m);
			time_config(sp, a, g, cl, c, mc, res, NULL, 0, NULL,
				    outer, st, &bound_tps);
		}
		c->offload_fraction = 0.0;
	}
	c->recompute_layers = 0;
}

/*
 * The search over the outer combinations (tp, cp, ep, micro-batch,
 * sequence parallelism, tensor-parallel overlap) whose running index is
 * 'offset' modulo 'stride': one thread's share of the space.
 */
static void search_share(const struct train_space *sp, const struct arch *a,
			 const struct gpu_spec *g, const struct cluster *cl,
			 struct search_result *res, struct search_entry *top,
			 int ktop, int *ntop, int stride, int offset,
			 int *best_outer)
{
	struct train_config c;
	struct train_micro mc;
	struct train_stage_ties ties;
	struct share_state st = { -1, false, { 0 }, 0.0, -1, false, false,
				  0.0 };
	struct train_stage_ties part_ties[MAX_RECOMPUTE_LAYERS + 1];
	/* per offload (0, 1) and ZeRO candidate */
	bool fits_none[2][SPACE_MAX_VALUES], fits_all[2][SPACE_MAX_VALUES];
	bool fits_part[2][SPACE_MAX_VALUES];
	bool *const none_v[2] = { fits_none[0], fits_none[1] };
	bool *const all_v[2] = { fits_all[0], fits_all[1] };
	bool *const part_v[2] = { fits_part[0], fits_part[1] };
	int outer = -1;
	bool sp_open = sp->sp.n > 1, ranking = top && ktop > 0;

	memset(res, 0, sizeof(*res));
	memset(&c, 0, sizeof(c));
	if (ntop)
		*ntop = 0;
	c.gpus = sp->gpus;
	c.precision = sp->precision;
	c.optimizer = sp->optimizer;
	c.attention = sp->attention;
	c.eager_ops = sp->eager_ops;
	c.dropout = sp->dropout;
	c.ep_comm_overlap = sp->ep_comm_overlap;
	c.zero_node_gpus = sp->zero_node_gpus;
	c.zero_shard_ranks = sp->zero_shard_ranks;
	c.recompute_modules = sp->recompute_modules;
	c.overlap_param_gather = sp->overlap_param_gather;
	c.global_batch = sp->global_batch;
	/* outer: what a micro-batch costs; inner: how it is scheduled and
	   sharded */
	for (int i = 0; i < sp->tp.n; i++)
	for (int k = 0; k < sp->cp.n; k++)
	for (int e = 0; e < sp->ep.n; e++)
	for (int mb = 0; mb < sp->micro_batch.n; mb++)
	for (int s = 0; s < sp->sp.n; s++)
	for (int to = 0; to < sp->tp_overlap.n; to++) {
		if (++outer % stride != offset)
			continue;
		c.tp = sp->tp.v[i];
		c.cp = sp->cp.v[k];
		c.ep = sp->ep.v[e];
		c.micro_batch = sp->micro_batch.v[mb];
		c.sequence_parallel = sp->sp.v[s];
		c.tp_comm_overlap = sp->tp_overlap.v[to];
		/* sequence parallelism over one rank is none: searched
		   once; the overlap needs it (train_config.c) */
		if ((sp_open && c.sequence_parallel && c.tp < 2) ||
		    (c.tp_comm_overlap &&
		     (c.tp < 2 || !c.sequence_parallel)))
			continue;
		if (sp->gpus % ((long long)c.tp * c.cp) != 0 ||
		    train_micro_eval(a, &c, g, cl, &mc) != 0)
			continue;
		/* the offload's speed against the GPU's step depends on the
		   device, the precision and the node only */
		if (!st.offload_known) {
			struct train_config off = c;

			off.offload_fraction = sp->offload_fraction;
			st.offload_slower =
				train_offload_never_faster(&c, cl, &mc);
			st.offload_host_ratio = train_offload_host_ratio(&off);
			st.offload_known = true;
		}
		for (int j = 0; j < sp->pp.n; j++) {
			long long split = (long long)c.tp * sp->pp.v[j] * c.cp;
			int stage;

			/* checks that do not depend on the inner keys */
			if (sp->gpus % split != 0)
				continue;
			c.pp = sp->pp.v[j];
			c.dp = (int)(sp->gpus / split);
			/* the default batch: the nearest whole number of
			   this configuration's steps */
			if (sp->batch_round &&
			    (long long)c.dp * c.micro_batch <=
				    sp->global_batch)
				c.global_batch = round_batch(
					sp->global_batch, c.dp * c.micro_batch);
			else if (sp->batch_round)
				c.global_batch = sp->global_batch;
			if ((long long)c.dp * c.micro_batch > c.global_batch ||
			    c.global_batch % (c.dp * c.micro_batch) != 0)
				continue;
			c.micro_batches = c.global_batch /
					  (c.dp * c.micro_batch);
			stage = (a->layers + c.pp - 1) / c.pp;
			for (int l = 0; l < sp->vp.n; l++) {
			int kmax;

			c.vp = sp->vp.v[l];
			/* interleaving needs pipelines and whole rounds of
			   micro-batches (train_config.c); open, it divides
			   the layers of a stage */
			if (c.vp > 1 && (c.pp < 2 || c.micro_batches % c.pp))
				continue;
			if (sp->vp_divides && stage % c.vp != 0)
				continue;
			/* the rest of the legality does not depend on ZeRO
			   or the recomputation: checked once, with the
			   loosest split of the layers (legal when any is) */
			c.zero = 0;
			c.recompute = RECOMPUTE_NONE;
			c.recompute_layers = 0;
			train_stage_fill(a, &c, sp->first_stage_layers,
					 sp->last_stage_layers);
			if (!train_config_valid(a, &c, cl->gpus_per_node))
				continue;
			/* partial full recomputation: fewer layers than a
			   chunk holds */
			kmax = train_chunk_layers(a, &c) - 1;
			if (kmax > sp->recompute_layers_max)
				kmax = sp->recompute_layers_max;
			for (int o = 0; o < 2; o++)
				for (int z = 0; z < sp->zero.n; z++)
					fits_none[o][z] = fits_all[o][z] =
						false;
			for (int rc = 0; rc < sp->recompute.n; rc++) {
			c.recompute = (enum recompute)sp->recompute.v[rc];
			for (int rl = 0;
			     rl <= (c.recompute == RECOMPUTE_FULL ? kmax : 0);
			     rl++) {
				bool *const *fits =
					c.recompute == RECOMPUTE_NONE ? none_v :
					rl == 0 ? all_v :
						  part_v;

				c.recompute_layers =
					c.recompute != RECOMPUTE_FULL ? 0 :
					rl > 0 ? rl : sp->recompute_layers;
				/* the counts of full recomputation by
				   bisection, when nothing is ranked */
				if (rl == 1 && !ranking) {
					search_partial(sp, a, g, cl, &c, &mc,
						       res, outer, &st, kmax,
						       none_v, all_v,
						       part_ties);
					break;
				}
				/* the fastest splits of the layers (ZeRO
				   does not change them) */
				if (train_stage_fastest(a, &c, &mc,
							sp->first_stage_layers,
							sp->last_stage_layers,
							&ties) != 0)
					continue;
				search_group(sp, a, g, cl, &c, &mc, &ties, res,
					     top, ktop, ntop, outer, &st, fits);
			}
			}
			}
		}
	}
	/* nothing fits: the configuration that needs the least memory */
	if (!res->found && st.have_misfit) {
		res->best = st.misfit;
		train_evaluate(a, &res->best, g, cl, &res->result);
		res->evaluated++;
		st.best_outer = st.misfit_outer;
	}
	*best_outer = st.best_outer;
}

int train_search_top(const struct train_space *sp, const struct arch *a,
		     const struct gpu_spec *g, const struct cluster *cl,
		     struct search_result *res, struct search_entry *top,
		     int ktop, int *ntop)
{
	int best_outer;

	search_share(sp, a, g, cl, res, top, ktop, ntop, 1, 0, &best_outer);
	res->enumerated = train_space_size(sp);
	return 0;
}

/* One thread's share of a parallel search. */
struct share_job {
	const struct train_space *sp;
	const struct arch *a;
	const struct gpu_spec *g;
	const struct cluster *cl;
	struct search_result res;
	struct search_entry *top;
	int ktop, ntop, stride, offset, best_outer;
};

static void *share_main(void *arg)
{
	struct share_job *j = arg;

	search_share(j->sp, j->a, j->g, j->cl, &j->res, j->top, j->ktop,
		     &j->ntop, j->stride, j->offset, &j->best_outer);
	return NULL;
}

/* Outer combinations of the space: the units threads share. */
static long long outer_count(const struct train_space *sp)
{
	return (long long)sp->tp.n * sp->cp.n * sp->ep.n * sp->micro_batch.n *
	       sp->sp.n * sp->tp_overlap.n;
}

/* Below this many configurations starting threads costs more than it
   saves (a thread starts in tens of microseconds). */
static const long long min_parallel_space = 200000;

int train_search_parallel(const struct train_space *sp, const struct arch *a,
			  const struct gpu_spec *g, const struct cluster *cl,
			  struct search_result *res, struct search_entry *top,
			  int ktop, int *ntop, int threads)
{
	struct share_job *jobs;
	pthread_t *tid;
	int started = 1;

	if (threads > max_threads)
		threads = max_threads;
	if (threads <= 1 || outer_count(sp) < 2LL * threads ||
	    train_space_size(sp) < min_parallel_space)
		return train_search_top(sp, a, g, cl, res, top, ktop, ntop);
	jobs = calloc((size_t)threads, sizeof(*jobs));
	tid = calloc((size_t)threads, sizeof(*tid));
	if (jobs && ktop > 0)
		jobs[0].top = calloc((size_t)threads * (size_t)ktop,
				     sizeof(*top));
	if (!jobs || !tid || (ktop > 0 && !jobs[0].top)) {
		/* no workspace: the same answer on one thread */
		if (jobs)
			free(jobs[0].top);
		free(jobs);
		free(tid);
		return train_search_top(sp, a, g, cl, res, top, ktop, ntop);
	}
	for (int t = 0; t < threads; t++) {
		jobs[t] = (struct share_job){ sp, a, g, cl, { 0 },
					      ktop > 0 ? jobs[0].top +
								 (size_t)t * ktop :
							 NULL,
					      ktop, 0, threads, t, -1 };
	}
	for (int t = 1; t < threads; t++) {
		if (pthread_create(&tid[t], NULL, share_main, &jobs[t]) != 0)
			break;
		started++;
	}
	/* shares whose thread did not start run here */
	for (int t = started; t < threads; t++)
		share_main(&jobs[t]);
	share_main(&jobs[0]);
	for (int t = 1; t < started; t++)
		pthread_join(tid[t], NULL);

	/* merge: totals, then the best in enumeration order so that ties
	   resolve as on one thread */
	memset(res, 0, sizeof(*res));
	if (ntop)
		*ntop = 0;
	for (int t = 0; t < threads; t++) {
		res->legal += jobs[t].res.legal;
		res->fitting += jobs[t].res.fitting;
		res->evaluated += jobs[t].res.evaluated;
	}
	res->enumerated = train_space_size(sp);
	for (bool any = false;;) {
		const struct search_result *cand;
		int pick = -1;

		for (int t = 0; t < threads; t++)
			if (jobs[t].best_outer >= 0 &&
			    (pick < 0 ||
			     jobs[t].best_outer < jobs[pick].best_outer))
				pick = t;
		if (pick < 0)
			break;
		cand = &jobs[pick].res;
		if (better(&cand->result, res, any)) {
			res->best = cand->best;
			res->result = cand->result;
			res->found = cand->found;
			any = true;
		}
		jobs[pick].best_outer = -1;
	}
	for (int t = 0; t < threads && top; t++)
		for (int i = 0; i < jobs[t].ntop; i++)
			rank(top, ktop, ntop, &jobs[t].top[i].config,
			     &jobs[t].top[i].result);
	free(jobs[0].top);
	free(jobs);
	free(tid);
	return 0;
}
