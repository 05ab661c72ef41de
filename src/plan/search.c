/* search.c - enumerate training configurations; see search.h. */
#include "search.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checked.h"

/* Most threads a parallel search starts. */
static const int max_threads = 256;

/* Largest micro-batch tried when it is left to capplan. */
static const int max_micro_batch = 64;

/* Largest interleaving factor tried. */
static const int max_vp = 8;

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
	if (global_batch == 0)
		global_batch = default_global_batch(
			a->seq_len, ts->batch_tokens > 0.0 ? ts->batch_tokens :
							     WL_BATCH_TOKENS);
	sp->global_batch = global_batch;
	sp->precision = ts->precision;
	sp->optimizer = ts->optimizer;
	sp->attention = ts->attention;
	sp->dropout = ts->dropout;
	/* Megatron-Core's --tp-comm-overlap (Transformer Engine
	   userbuffers) and --overlap-param-gather: off unless the workload
	   turns them on, as in Megatron-Core */
	sp->tp_comm_overlap = ts->tp_comm_overlap == 1;
	sp->ep_comm_overlap = ts->ep_comm_overlap == 1;
	sp->recompute_modules = ts->recompute_modules;
	sp->overlap_param_gather = ts->overlap_param_gather == 1;

	if (ts->tp != WL_AUTO)
		dim_one(&sp->tp, ts->tp);
	else
		for (int t = 1; t > 0 && t <= gpus_per_node && t <= gpus;
		     t = ck_doubled_within(t, gpus_per_node))
			if (gpus % t == 0 && a->heads % t == 0)
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
	if (ts->vp != WL_AUTO)
		dim_one(&sp->vp, ts->vp);
	else
		for (int v = 1; v <= max_vp; v++)
			dim_add(&sp->vp, v);
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
	if (ts->micro_batch != WL_AUTO)
		dim_one(&sp->micro_batch, ts->micro_batch);
	else
		for (int b = 1; b <= max_micro_batch; b++)
			if (b <= global_batch && global_batch % b == 0)
				dim_add(&sp->micro_batch, b);
	if (ts->zero != WL_AUTO_NEG)
		dim_one(&sp->zero, ts->zero);
	else
		for (int z = 0; z <= 3; z++)
			dim_add(&sp->zero, z);
	if (ts->recompute != RECOMPUTE_AUTO)
		dim_one(&sp->recompute, ts->recompute);
	else
		for (int r = RECOMPUTE_NONE; r <= RECOMPUTE_FULL; r++)
			/* with a fused attention kernel, recomputing
			   the attention core alone keeps what none keeps,
			   at a cost: searched only with other modules */
			if (r != RECOMPUTE_SELECTIVE ||
			    ts->attention == ATTN_UNFUSED ||
			    (ts->recompute_modules & ~RECOMPUTE_MOD_CORE_ATTN))
				dim_add(&sp->recompute, r);
	/* sequence parallelism saves memory at no extra traffic
	   (Korthikanti et al. 2022): on whenever tp > 1 unless fixed */
	if (ts->sequence_parallel != WL_AUTO_NEG)
		dim_one(&sp->sp, ts->sequence_parallel);
	else
		dim_one(&sp->sp, -1);
	/* current frameworks overlap the gradient reduction with the
	   backward pass (Megatron-LM --overlap-grad-reduce, PyTorch DDP) */
	dim_one(&sp->overlap, ts->overlap_grad_reduce != WL_AUTO_NEG ?
				      ts->overlap_grad_reduce : 1);
	if (sp->tp.n == 0 || sp->pp.n == 0 || sp->micro_batch.n == 0)
		return diag_set(err, NULL, 0, 0,
				"no legal parallel split of %d gpus for this "
				"model", gpus);
	return 0;
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
   misfits, less memory. */
static bool better(const struct train_result *r, const struct search_result *res)
{
	if (!res->legal)
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

/*
 * Whether 'c' (any split of its layers, any ZeRO stage) cannot make the
 * ranking: a configuration that fits is known and is faster than even the
 * bound of 'c' (train_pipeline_bound_s), and so is the last of a full
 * ranking.  The margin keeps configurations that tie (faster()) in.
 */
/* Slack of the bound against the best found: keeps configurations whose
   bound ties it within rounding (faster() itself uses 1e-9). */
static const double bound_margin = 1e-6;

static bool hopeless(const struct arch *a, const struct train_config *c,
		     const struct cluster *cl,
		     const struct train_micro *mc,
		     const struct search_result *res,
		     const struct search_entry *top, int ktop,
		     const int *ntop)
{
	double tokens_per_s;

	if (!res->found || (top && ktop > 0 && *ntop < ktop))
		return false;
	tokens_per_s = (double)c->global_batch * a->seq_len /
		       train_pipeline_bound_s(a, c, cl, mc);
	if (top && ktop > 0 &&
	    tokens_per_s >= top[ktop - 1].result.tokens_per_s * (1.0 - bound_margin))
		return false;
	return tokens_per_s < res->result.tokens_per_s * (1.0 - bound_margin);
}

/*
 * The search over the outer combinations (tp, cp, micro-batch, sequence
 * parallelism) whose running index is 'offset' modulo 'stride': one
 * thread's share of the space.
 */
static void search_share(const struct train_space *sp, const struct arch *a,
			 const struct gpu_spec *g, const struct cluster *cl,
			 struct search_result *res, struct search_entry *top,
			 int ktop, int *ntop, int stride, int offset,
			 int *best_outer)
{
	struct train_config c;
	struct train_result r;
	struct train_micro mc;
	struct train_stage_ties ties[RECOMPUTE_FULL + 1];
	int outer = -1;

	memset(res, 0, sizeof(*res));
	memset(&c, 0, sizeof(c));
	if (ntop)
		*ntop = 0;
	c.gpus = sp->gpus;
	c.precision = sp->precision;
	c.optimizer = sp->optimizer;
	c.attention = sp->attention;
	c.dropout = sp->dropout;
	c.tp_comm_overlap = sp->tp_comm_overlap;
	c.ep_comm_overlap = sp->ep_comm_overlap;
	c.recompute_modules = sp->recompute_modules;
	/* outer: what a micro-batch costs (tp, cp, micro-batch, sequence
	   parallelism); inner: how it is scheduled and sharded */
	for (int i = 0; i < sp->tp.n; i++)
	for (int k = 0; k < sp->cp.n; k++)
	for (int e = 0; e < sp->ep.n; e++)
	for (int mb = 0; mb < sp->micro_batch.n; mb++)
	for (int s = 0; s < sp->sp.n; s++) {
		if (++outer % stride != offset)
			continue;
		c.tp = sp->tp.v[i];
		c.cp = sp->cp.v[k];
		c.ep = sp->ep.v[e];
		c.micro_batch = sp->micro_batch.v[mb];
		c.sequence_parallel = sp->sp.v[s] < 0 ? c.tp > 1 : sp->sp.v[s];
		if (sp->gpus % ((long long)c.tp * c.cp) != 0 ||
		    train_micro_eval(a, &c, g, cl, &mc) != 0)
			continue;
		for (int j = 0; j < sp->pp.n; j++) {
			long long split = (long long)c.tp * sp->pp.v[j] * c.cp;

			/* checks that do not depend on the inner keys */
			if (sp->gpus % split != 0)
				continue;
			c.pp = sp->pp.v[j];
			c.dp = (int)(sp->gpus / split);
			c.global_batch = sp->global_batch;
			if ((long long)c.dp * c.micro_batch > c.global_batch ||
			    c.global_batch % (c.dp * c.micro_batch) != 0)
				continue;
			c.micro_batches = c.global_batch /
					  (c.dp * c.micro_batch);
			for (int l = 0; l < sp->vp.n; l++) {
			c.vp = sp->vp.v[l];
			/* interleaving needs pipelines and whole rounds of
			   micro-batches (train_config.c) */
			if (c.vp > 1 && (c.pp < 2 || c.micro_batches % c.pp))
				continue;
			/* the fastest splits of the layers, for each
			   recomputation (ZeRO does not change them); none
			   where even the best split cannot be faster than
			   what is already found */
			for (int rc = 0; rc < sp->recompute.n; rc++) {
				c.recompute =
					(enum recompute)sp->recompute.v[rc];
				if (hopeless(a, &c, cl, &mc, res, top, ktop,
					     ntop) ||
				    train_stage_fastest(a, &c, &mc,
							sp->first_stage_layers,
							sp->last_stage_layers,
							&ties[rc]) != 0)
					ties[rc].n = 0;
			}
			for (int z = 0; z < sp->zero.n; z++)
			for (int rc = 0; rc < sp->recompute.n; rc++)
			for (int o = 0; o < sp->overlap.n; o++) {
				c.zero = sp->zero.v[z];
				c.recompute = (enum recompute)sp->recompute.v[rc];
				c.overlap_grad_reduce = sp->overlap.v[o];
				c.overlap_param_gather =
					sp->overlap_param_gather;
				res->evaluated++;
				/* the loosest split is legal when any is */
				train_stage_fill(a, &c, sp->first_stage_layers,
						 sp->last_stage_layers);
				if (!train_config_valid(a, &c,
							cl->gpus_per_node))
					continue;
				if (ties[rc].n == 0) {
					res->legal++; /* passed over */
					continue;
				}
				train_stage_pick(a, &c, &mc, &ties[rc]);
				train_evaluate_micro(a, &c, g, cl, &mc, &r);
				if (top)
					rank(top, ktop, ntop, &c, &r);
				if (better(&r, res)) {
					res->best = c;
					res->result = r;
					res->found = r.memory.fits;
					*best_outer = outer;
				}
				res->legal++;
			}
			}
		}
	}
}

int train_search_top(const struct train_space *sp, const struct arch *a,
		     const struct gpu_spec *g, const struct cluster *cl,
		     struct search_result *res, struct search_entry *top,
		     int ktop, int *ntop)
{
	int best_outer;

	search_share(sp, a, g, cl, res, top, ktop, ntop, 1, 0, &best_outer);
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
	       sp->sp.n;
}

/* Configurations of the whole space, before any check. */
static long long space_size(const struct train_space *sp)
{
	return outer_count(sp) * sp->pp.n * sp->vp.n * sp->zero.n *
	       sp->recompute.n * sp->overlap.n;
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
	    space_size(sp) < min_parallel_space)
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
		res->evaluated += jobs[t].res.evaluated;
		res->legal += jobs[t].res.legal;
	}
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
		if (!any || better(&cand->result, res)) {
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
