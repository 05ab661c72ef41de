/* plan.c - resolve a workload into a training plan; see plan.h. */
#include "plan.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checked.h"
#include "model_kernel.h"
#include "model_recsys.h"
#include "model_recsys_dense.h"
#include "model_sample.h"
#include "search.h"

/*
 * Tokens to train on when the workload does not say: 20 per parameter,
 * the compute-optimal ratio of Hoffmann et al. 2022 (Chinchilla).
 */
static const double default_tokens_per_param = 20.0;

static const char *const choice_keys[CHOSE_COUNT] = {
	[CHOSE_GPUS] = "training.gpus",
	[CHOSE_GLOBAL_BATCH] = "training.global_batch",
	[CHOSE_MICRO_BATCH] = "training.micro_batch",
	[CHOSE_TP] = "training.tp",
	[CHOSE_PP] = "training.pp",
	[CHOSE_VP] = "training.vp",
	[CHOSE_FIRST_STAGE] = "training.first_stage_layers",
	[CHOSE_LAST_STAGE] = "training.last_stage_layers",
	[CHOSE_CP] = "training.cp",
	[CHOSE_EP] = "training.ep",
	[CHOSE_ZERO] = "training.zero",
	[CHOSE_ZERO_SHARD] = "training.zero_shard",
	[CHOSE_RECOMPUTE] = "training.recompute",
	[CHOSE_RECOMPUTE_LAYERS] = "training.recompute_layers",
	[CHOSE_SEQUENCE_PARALLEL] = "training.sequence_parallel",
	[CHOSE_OVERLAP] = "training.overlap_grad_reduce",
	[CHOSE_TP_OVERLAP] = "training.tp_comm_overlap",
	[CHOSE_OFFLOAD] = "training.offload_optimizer",
	[CHOSE_TOKENS] = "training.tokens",
};

const char *plan_choice_key(enum plan_choice c)
{
	return (unsigned)c < CHOSE_COUNT ? choice_keys[c] : "?";
}

static unsigned bit(enum plan_choice c)
{
	return 1u << c;
}

/* Which keys the workload leaves open. */
static unsigned open_keys(const struct training_spec *ts)
{
	unsigned u = 0;

	u |= ts->gpus == WL_AUTO ? bit(CHOSE_GPUS) : 0;
	u |= ts->global_batch == WL_AUTO ? bit(CHOSE_GLOBAL_BATCH) : 0;
	u |= ts->micro_batch == WL_AUTO ? bit(CHOSE_MICRO_BATCH) : 0;
	u |= ts->tp == WL_AUTO ? bit(CHOSE_TP) : 0;
	u |= ts->pp == WL_AUTO ? bit(CHOSE_PP) : 0;
	u |= ts->vp == WL_AUTO ? bit(CHOSE_VP) : 0;
	u |= ts->first_stage_layers == WL_AUTO ? bit(CHOSE_FIRST_STAGE) : 0;
	u |= ts->last_stage_layers == WL_AUTO ? bit(CHOSE_LAST_STAGE) : 0;
	u |= ts->cp == WL_AUTO ? bit(CHOSE_CP) : 0;
	u |= ts->ep == WL_AUTO ? bit(CHOSE_EP) : 0;
	u |= ts->zero == WL_AUTO_NEG ? bit(CHOSE_ZERO) : 0;
	u |= ts->recompute == RECOMPUTE_AUTO ? bit(CHOSE_RECOMPUTE) : 0;
	u |= ts->sequence_parallel == WL_AUTO_NEG ?
		     bit(CHOSE_SEQUENCE_PARALLEL) : 0;
	u |= ts->overlap_grad_reduce == WL_AUTO_NEG ? bit(CHOSE_OVERLAP) : 0;
	u |= ts->tp_comm_overlap == WL_AUTO_NEG ? bit(CHOSE_TP_OVERLAP) : 0;
	u |= ts->offload_optimizer == WL_OFFLOAD_AUTO ? bit(CHOSE_OFFLOAD) : 0;
	u |= ts->recompute == RECOMPUTE_AUTO &&
			     ts->recompute_layers == WL_AUTO ?
		     bit(CHOSE_RECOMPUTE_LAYERS) : 0;
	u |= ts->tokens <= 0.0 ? bit(CHOSE_TOKENS) : 0;
	return u;
}

/* The model states of 'c' (params-only) sharded over 'shards' ranks, the
   reserve and the host side of an offload (3.10) into 'm'. */
static void states_memory(const struct train_plan *p,
			  const struct train_config *c, int shards,
			  double reserve, const struct gpu_spec *g,
			  struct train_memory *m)
{
	train_memory_states(p->params / ((double)c->tp * c->pp), c->zero,
			    shards, c->precision, c->optimizer, m);
	m->offloadable_bytes = m->optimizer_bytes;
	m->host_bytes = train_offload_host_ratio(c) * m->optimizer_bytes;
	m->optimizer_bytes *= 1.0 - c->offload_fraction;
	m->activations_bytes = 0.0;
	m->reserve_bytes = reserve;
	m->total_bytes = m->weights_bytes + m->gradients_bytes +
			 m->optimizer_bytes + reserve;
	m->capacity_bytes = g->mem_bytes;
	m->fits = m->total_bytes <= g->mem_bytes;
	train_memory_host(m, c, p->cluster.gpus_per_node,
			  p->cluster.host_memory_bytes);
}

/* Only 'params' is known: model-state memory of the given split. */
static int plan_states_only(const struct workload *wl,
			    const struct gpu_spec *g, struct train_plan *p)
{
	const struct training_spec *ts = &wl->training;
	struct train_config *c = &p->config;
	struct train_memory *m = &p->result.memory;
	double reserve = train_memory_reserve(g->mem_bytes);
	int64_t split;
	int shards;

	c->tp = ts->tp != WL_AUTO ? ts->tp : 1;
	c->pp = ts->pp != WL_AUTO ? ts->pp : 1;
	c->cp = ts->cp != WL_AUTO ? ts->cp : 1;
	c->vp = 1;
	c->ep = 1;
	split = ck_sat_mul_i64(ck_sat_mul_i64(c->tp, c->pp), c->cp);
	c->dp = c->gpus / split > 0 ? (int)(c->gpus / split) : 1;
	/* the ranks that share the states: dp * cp, at most the GPUs
	   (with hybrid sharding those within a node) */
	shards = train_config_zero_shards(c, NULL);
	/* the lowest ZeRO stage whose states fit, when left open */
	/* ZeRO-3 does not combine with pipelines (train_config.c) */
	int max_zero = c->pp > 1 ? 2 : 3;

	/* a given optimizer offload (not searched here) needs ZeRO >= 1 */
	c->offload_fraction = ts->offload_optimizer > 0.0 ?
				      ts->offload_optimizer :
				      0.0;
	c->zero = ts->zero != WL_AUTO_NEG ? ts->zero : max_zero;
	for (int z = c->offload_fraction > 0.0 ? 1 : 0;
	     ts->zero == WL_AUTO_NEG && z <= max_zero; z++) {
		c->zero = z;
		states_memory(p, c, shards, reserve, g, m);
		if (m->fits)
			break;
		c->zero = max_zero;
	}
	states_memory(p, c, shards, reserve, g, m);
	p->fits = m->fits;
	p->chosen &= bit(CHOSE_GPUS) | bit(CHOSE_TP) | bit(CHOSE_PP) |
		     bit(CHOSE_CP) | bit(CHOSE_ZERO) | bit(CHOSE_TOKENS);
	c->ep = 1;
	return 0;
}

/* Largest micro-batch tried for the "largest that fits" report. */
static const int micro_batch_limit = 4096;

/*
 * The largest micro-batch that fits in memory with the rest of 'c' fixed
 * (the number of micro-batches follows the global batch); 0 when even one
 * sequence does not fit.  Memory grows with the micro-batch, so the
 * answer is found by bisection.
 */
static int largest_micro_batch(const struct arch *a,
			       const struct train_config *c,
			       double capacity_bytes, const struct cluster *cl)
{
	struct train_config t = *c;
	struct train_memory m;
	int lo = 0, hi = micro_batch_limit + 1;

	while (hi - lo > 1) {
		int mid = lo + (hi - lo) / 2;

		t.micro_batch = mid;
		t.micro_batches =
			(int)(c->global_batch / ((int64_t)c->dp * mid));
		if (t.micro_batches < 1)
			t.micro_batches = 1;
		train_memory_eval(a, &t, capacity_bytes, &m);
		train_memory_host(&m, &t, cl->gpus_per_node,
				  cl->host_memory_bytes);
		if (m.fits)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/*
 * No configuration of the space is legal: say why for its first candidate
 * (for a fully fixed workload, the user's configuration).
 */
static int explain_illegal(const struct train_space *sp,
			   const struct train_plan *p,
			   const struct workload *wl, struct diag *err)
{
	struct train_config c = p->config;
	int64_t split, per_step;
	char why[200];

	c.tp = sp->tp.v[0];
	c.pp = sp->pp.v[0];
	c.vp = sp->vp.v[0];
	c.cp = sp->cp.v[0];
	c.ep = sp->ep.v[0];
	c.micro_batch = sp->micro_batch.v[0];
	c.zero = sp->zero.v[0];
	split = ck_sat_mul_i64(ck_sat_mul_i64(c.tp, c.pp), c.cp);
	if (c.gpus % split != 0)
		return diag_set(err, wl->file, 0, 0,
				"'training.gpus' (%d) must be a multiple of "
				"tp*pp*cp (%d*%d*%d) on %s", c.gpus, c.tp,
				c.pp, c.cp, p->gpu->name);
	c.dp = (int)(c.gpus / split);
	per_step = (int64_t)c.dp * c.micro_batch;
	c.global_batch = sp->batch_round && per_step <= WL_BATCH_MAX ?
				 round_batch(sp->global_batch, (int)per_step) :
				 sp->global_batch;
	c.micro_batches = (int)(c.global_batch / per_step);
	train_stage_fill(&p->arch, &c, sp->first_stage_layers,
			 sp->last_stage_layers);
	if (!train_config_explain(&p->arch, &c, p->cluster.gpus_per_node, why,
				  sizeof(why)))
		return diag_set(err, wl->file, 0, 0,
				"no legal configuration on %d x %s: %s%s",
				c.gpus, p->gpu->name, why,
				wl->training.global_batch == WL_AUTO ?
					" (the default global batch: "
					"training.batch_tokens over seq_len; "
					"set training.global_batch)" :
					"");
	return diag_set(err, wl->file, 0, 0,
			"no legal configuration on %d x %s for the fixed "
			"training keys", c.gpus, p->gpu->name);
}

static const double seconds_per_hour = 3600.0;

void train_plan_goodput(const struct workload *wl, const struct train_plan *p,
			const struct train_config *c,
			const struct train_result *r, struct goodput *gp)
{
	struct state_bytes sb = train_state_bytes(c->precision, c->optimizer);
	double ideal_s = p->tokens / r->tokens_per_s;
	/* a checkpoint holds every weight and optimizer state once: a
	   recommender's tables at their own precision with their sparse
	   optimizer's rows, its dense network like any other (3.1) */
	double ckpt_bytes =
		wl->model.kind == MODEL_RECSYS ?
			recsys_table_state_bytes(&wl->model, c->optimizer) +
				recsys_dense_params(&wl->model) *
					(sb.weights + sb.optimizer) :
			r->params * (sb.weights + sb.optimizer);
	struct goodput_input in = {
		.gpus = c->gpus,
		/* ceil(gpus / gpus_per_node) without overflow */
		.nodes = c->gpus / p->cluster.gpus_per_node +
			 (c->gpus % p->cluster.gpus_per_node != 0),
		.ideal_s = ideal_s,
		.step_s = fmin(r->time.step_s, ideal_s),
		.checkpoint_bytes = ckpt_bytes,
		.storage_bw_bytes_per_s = wl->cluster.storage_bw_bytes_per_s,
		.snapshot_bw_bytes_per_s = GOODPUT_SNAPSHOT_BW_BYTES_PER_S,
		.failures_per_gpu_s = wl->cluster.failures_per_gpu_hour /
				      seconds_per_hour,
		.restart_s = wl->cluster.restart_s,
		.maintenance = wl->cluster.maintenance,
		.async_checkpoint = wl->training.async_checkpoint,
		.interval_s = wl->training.checkpoint_interval_s,
	};

	goodput_eval(&in, gp);
}

/* The run as production runs report it: the goodput model's expected
   wall-clock time over the production efficiency (specs/models.md 8.1.1),
   and its GPU-hours, energy and cost.  The GPUs draw busy power while
   they compute or redo lost work, idle power while they restart, stall
   on a checkpoint, wait out maintenance or lose the production
   efficiency's share. */
static void plan_run(const struct workload *wl, struct train_plan *p)
{
	struct goodput *gp = &p->goodput;
	double eff = wl->training.production_efficiency > 0.0 ?
			     wl->training.production_efficiency :
			     WL_PRODUCTION_EFFICIENCY;
	double time_s;

	train_plan_goodput(wl, p, &p->config, &p->result, gp);
	p->production_efficiency = eff;
	time_s = gp->finishes ? gp->time_s / eff : gp->time_s;
	run_cost_eval(p->gpu, &p->cluster, p->config.gpus, time_s,
		      gp->finishes ? p->result.busy_fraction * gp->busy_s /
					     time_s :
				     0.0,
		      &p->run);
}

/* Samples per GPU of the default batch of a per-sample model: 256 images
   per GPU is the usual ImageNet recipe (Goyal et al. 2017), whose linear
   scaling of SGD holds up to 8192 samples a step, the cap, held for more
   GPUs (larger batches need LARS or the like: a workload that uses one
   gives its batch); DLRM trains with 64K samples per step (Naumov et al.
   2019). */
static const int sample_batch_per_gpu = 256;
static const int sample_batch_max = 8192;
static const int recsys_batch = 65536;

/* Largest micro-batch a per-sample search tries. */
static const int sample_max_micro_batch = 4096;

/* A generic network or a recommender: data parallel, micro-batch and
   ZeRO stage searched. */
static int plan_per_sample(const struct workload *wl, const struct gpu_spec *g,
			   struct train_plan *p, struct diag *err)
{
	const struct training_spec *ts = &wl->training;
	struct train_config c = p->config;
	struct train_result r;
	struct recsys_layout *lay = NULL;
	int per_gpu, max_mb, rc = 0;
	bool have = false;

	if (!(ts->samples > 0.0))
		return diag_set(err, wl->file, 0, 0,
				"a %s model needs [training] samples (per "
				"epoch) and epochs",
				model_kind_name(wl->model.kind));
	p->per_sample = true;
	p->has_arch = true;
	p->chosen &= ~(bit(CHOSE_TP) | bit(CHOSE_PP) | bit(CHOSE_VP) |
		       bit(CHOSE_FIRST_STAGE) | bit(CHOSE_LAST_STAGE) |
		       bit(CHOSE_CP) | bit(CHOSE_EP) | bit(CHOSE_RECOMPUTE) |
		       bit(CHOSE_RECOMPUTE_LAYERS) |
		       bit(CHOSE_SEQUENCE_PARALLEL) | bit(CHOSE_TP_OVERLAP) |
		       bit(CHOSE_OFFLOAD) | bit(CHOSE_TOKENS));
	p->tokens = ts->samples * ts->epochs;
	c.tp = c.pp = c.vp = c.cp = c.ep = 1;
	c.dp = c.gpus;
	c.recompute = RECOMPUTE_NONE;
	if (ts->global_batch != WL_AUTO) {
		c.global_batch = ts->global_batch;
	} else {
		long long gb = wl->model.kind == MODEL_RECSYS ?
				       recsys_batch :
				       (long long)sample_batch_per_gpu * c.gpus;

		if (wl->model.kind != MODEL_RECSYS && gb > sample_batch_max)
			gb = sample_batch_max;

		gb = (gb + c.gpus - 1) / c.gpus * c.gpus;
		c.global_batch = gb > INT_MAX ? INT_MAX / c.gpus * c.gpus :
						(int)gb;
	}
	if (c.global_batch % c.gpus != 0)
		return diag_set(err, wl->file, 0, 0,
				"'training.global_batch' (%d) must be a "
				"multiple of the GPUs (%d)", c.global_batch,
				c.gpus);
	per_gpu = c.global_batch / c.gpus;
	c.overlap_grad_reduce = ts->overlap_grad_reduce != WL_AUTO_NEG ?
					ts->overlap_grad_reduce : 1;
	c.overlap_param_gather = ts->overlap_param_gather == 1;
	c.emb_sharding = ts->embedding_sharding;
	c.emb_comm_overlap = ts->embedding_comm_overlap == 1;
	c.emb_fused_update = ts->embedding_update == EMB_UPDATE_FUSED;
	c.bottom_mlp_one_gpu = ts->bottom_mlp_placement == BOTTOM_ONE_GPU;
	c.input_bytes = ts->input_bytes_per_sample;
	c.collective_cycle_s = ts->collective_cycle_s;
	c.step_overhead_s = ts->step_overhead_s;
	/* a recommender updates its tables every step: the whole share of
	   the GPU is one micro-batch unless the workload splits it */
	max_mb = wl->model.kind == MODEL_RECSYS ? per_gpu :
						  sample_max_micro_batch;
	/* a recommender's tables are dealt once for every micro-batch and
	   ZeRO stage below (the same deal recsys_train_eval makes alone) */
	if (wl->model.kind == MODEL_RECSYS) {
		lay = malloc(sizeof(*lay));
		if (!lay)
			return diag_set(err, NULL, 0, 0,
					"out of memory for the tables' layout");
		recsys_layout_init(&wl->model, c.emb_sharding,
				   recsys_table_gpus(&wl->model, &c), c.optimizer,
				   lay);
	}
	for (int mb = 1; mb <= per_gpu && mb <= max_mb; mb++) {
		if (per_gpu % mb != 0 ||
		    (ts->micro_batch != WL_AUTO && mb != ts->micro_batch))
			continue;
		for (int z = 0; z <= 3; z++) {
			if (ts->zero != WL_AUTO_NEG && z != ts->zero)
				continue;
			c.micro_batch = mb;
			c.micro_batches = per_gpu / mb;
			c.zero = z;
			p->enumerated++;
			p->legal++;
			p->evaluated++;
			/* per-sample models do not offload: the offload's
			   fields (which sample_train_eval leaves) are 0 */
			memset(&r, 0, sizeof(r));
			if ((lay ? recsys_train_eval(&wl->model, &c, g,
						     &p->cluster, lay, &r,
						     NULL) :
				   sample_train_eval(&wl->model, &c, g,
						     &p->cluster, &r)) != 0) {
				rc = diag_set(err, NULL, 0, 0,
					      "'%s' has no tensor math for "
					      "%s or wider", g->name,
					      precision_name(c.precision));
				goto out;
			}
			if (!have || (r.memory.fits && !p->fits) ||
			    (r.memory.fits == p->fits &&
			     (r.memory.fits ?
				      r.tokens_per_s >
					      p->result.tokens_per_s :
				      r.memory.total_bytes <
					      p->result.memory.total_bytes))) {
				p->config = c;
				p->result = r;
				p->fits = r.memory.fits;
				have = true;
			}
			p->fitting += r.memory.fits;
			if (r.memory.fits && mb > p->max_micro_batch)
				p->max_micro_batch = mb;
		}
	}
	if (!have) {
		rc = diag_set(err, wl->file, 0, 0,
			      "no micro-batch divides the %d samples per GPU "
			      "as the workload asks", per_gpu);
		goto out;
	}
	p->params = p->result.params;
	if (lay) {
		struct train_result rr;

		recsys_train_eval(&wl->model, &p->config, g, &p->cluster, lay,
				  &rr, &p->recsys);
	}
	plan_run(wl, p);
out:
	free(lay);
	return rc;
}

double train_plan_model_flops(const struct workload *wl)
{
	struct arch a;
	double tokens;

	if (wl->model.kind != MODEL_TRANSFORMER ||
	    arch_from_spec(&wl->model, &a) != 0)
		return 0.0;
	/* the tokens as train_plan_rank takes them */
	tokens = wl->training.tokens > 0.0 ?
			 wl->training.tokens :
			 default_tokens_per_param * arch_params(&a);
	return tokens * train_model_flops_per_token(&a);
}

int train_plan_make(const struct workload *wl, const struct gpu_spec *g,
		    struct train_plan *p, struct diag *err)
{
	return train_plan_rank(wl, g, p, NULL, 0, NULL, 1, err);
}

int train_plan_rank(const struct workload *wl, const struct gpu_spec *g,
		    struct train_plan *p, struct search_entry *top, int k,
		    int *ntop, int threads, struct diag *err)
{
	const struct training_spec *ts = &wl->training;
	struct train_space sp;
	struct search_result res;
	struct device_perf d;

	memset(p, 0, sizeof(*p));
	if (ntop)
		*ntop = 0;
	p->gpu = g;
	if (cluster_resolve(&wl->cluster, g, &p->cluster, err) != 0)
		return -1;
	p->chosen = open_keys(ts);
	p->config.gpus = ts->gpus != WL_AUTO ? ts->gpus :
					       p->cluster.gpus_per_node;
	p->config.precision = ts->precision;
	p->config.optimizer = ts->optimizer;
	p->config.attention = ts->attention;
	p->config.eager_ops = ts->eager_ops;
	p->config.dropout = ts->dropout;
	p->config.tp_comm_overlap = ts->tp_comm_overlap == 1;
	p->config.ep_comm_overlap = ts->ep_comm_overlap == 1;
	p->config.zero_node_gpus = ts->zero_shard == WL_ZERO_SHARD_NODE ?
					   p->cluster.gpus_per_node :
					   0;
	p->config.zero_shard_ranks = ts->zero_shard >= 2 ? ts->zero_shard : 0;
	p->config.recompute_modules = ts->recompute_modules;
	if (device_perf_init(&d, g, ts->precision, false) != 0)
		return diag_set(err, NULL, 0, 0,
				"'%s' has no tensor math for %s or wider",
				g->name, precision_name(ts->precision));

	if (wl->model.kind != MODEL_TRANSFORMER)
		return plan_per_sample(wl, g, p, err);
	p->has_arch = arch_from_spec(&wl->model, &p->arch) == 0;
	if (!p->has_arch || !arch_is_moe(&p->arch))
		p->chosen &= ~bit(CHOSE_EP);
	p->params = p->has_arch ? arch_params(&p->arch) : wl->model.params;
	p->tokens = ts->tokens > 0.0 ? ts->tokens :
				       default_tokens_per_param * p->params;
	if (ts->offload_optimizer > 0.0 && !cluster_can_offload(&p->cluster))
		return diag_set(err, wl->file, 0, 0,
				"'training.offload_optimizer' needs the "
				"host of %s: the catalog gives it no %s; set "
				"'cluster.%s' (%s)",
				g->name,
				p->cluster.host_memory_bytes > 0.0 ?
					"host_link_bw" :
					"host_memory",
				p->cluster.host_memory_bytes > 0.0 ?
					"host_link_bw" :
					"host_memory",
				p->cluster.host_memory_bytes > 0.0 ?
					"the GPU's link to its CPU, per "
					"direction, e.g. 32GB/s for PCIe "
					"Gen4 x16" :
					"the host memory of a node, e.g. 2TB");
	if (!p->has_arch)
		return plan_states_only(wl, g, p);

	/* the default batch: DeepSeek LLM's critical batch for the run's
	   compute (specs/models.md 7.1) */
	{
		struct training_spec tsb = *ts;

		if (ts->global_batch == WL_AUTO && !(ts->batch_tokens > 0.0))
			tsb.batch_tokens = default_batch_tokens(
				train_model_flops_per_token(&p->arch) -
					3.0 * arch_logits_fwd_flops_per_token(
						      &p->arch),
				p->tokens, p->arch.seq_len);
		p->batch_tokens = tsb.batch_tokens > 0.0 ? tsb.batch_tokens :
							   WL_BATCH_TOKENS;
		if (train_space_init(&sp, &tsb, &p->arch, p->config.gpus,
				     ts->global_batch, p->cluster.gpus_per_node,
				     err) != 0)
			return -1;
	}
	train_space_offload(&sp, ts, &p->cluster);
	/* an offload the cluster cannot make was not chosen */
	if (sp.offload.n < 2)
		p->chosen &= ~bit(CHOSE_OFFLOAD);
	train_search_parallel(&sp, &p->arch, g, &p->cluster, &res, top, k,
			      ntop, threads);
	p->enumerated = res.enumerated;
	p->legal = res.legal;
	p->fitting = res.fitting;
	p->evaluated = res.evaluated;
	if (!res.legal)
		return explain_illegal(&sp, p, wl, err);
	p->config = res.best;
	p->result = res.result;
	p->fits = res.found;
	/* only a partial full recomputation has a layer count to show */
	if (p->config.recompute_layers == 0)
		p->chosen &= ~bit(CHOSE_RECOMPUTE_LAYERS);
	/* one stage is both the first and the last: nothing to choose */
	if (p->config.pp == 1)
		p->chosen &= ~(bit(CHOSE_FIRST_STAGE) | bit(CHOSE_LAST_STAGE));
	p->max_micro_batch = largest_micro_batch(&p->arch, &p->config,
						 g->mem_bytes, &p->cluster);
	plan_run(wl, p);
	return 0;
}

/* Describe the value capplan chose for a relaxed key. */
static void describe(const struct train_plan *p, enum plan_choice k,
		     char *buf, size_t n)
{
	const struct train_config *c = &p->config;

	switch (k) {
	case CHOSE_MICRO_BATCH:
		snprintf(buf, n, "set training.micro_batch=%d", c->micro_batch);
		break;
	case CHOSE_RECOMPUTE:
		snprintf(buf, n, "set training.recompute=%s",
			 recompute_name(c->recompute));
		break;
	case CHOSE_ZERO:
		snprintf(buf, n, "set training.zero=%d", c->zero);
		break;
	case CHOSE_ZERO_SHARD:
		snprintf(buf, n, "set training.zero_shard=all");
		break;
	case CHOSE_OFFLOAD:
		snprintf(buf, n, "set training.offload_optimizer=%g",
			 c->offload_fraction);
		break;
	case CHOSE_TP:
		snprintf(buf, n, "set training.tp=%d", c->tp);
		break;
	case CHOSE_PP:
		snprintf(buf, n, "set training.pp=%d", c->pp);
		break;
	case CHOSE_CP:
		snprintf(buf, n, "set training.cp=%d", c->cp);
		break;
	default:
		snprintf(buf, n, "let capplan choose the parallel keys "
				 "(tp=%d pp=%d zero=%d recompute=%s "
				 "micro_batch=%d)",
			 c->tp, c->pp, c->zero, recompute_name(c->recompute),
			 c->micro_batch);
		break;
	}
}

/* Leave training key 'k' to capplan in 'wl'. */
static void relax(struct workload *wl, enum plan_choice k)
{
	struct training_spec *t = &wl->training;

	switch (k) {
	case CHOSE_MICRO_BATCH: t->micro_batch = WL_AUTO; break;
	case CHOSE_RECOMPUTE: t->recompute = RECOMPUTE_AUTO; break;
	case CHOSE_ZERO: t->zero = WL_AUTO_NEG; break;
	/* shard the states over every rank instead of within the nodes */
	case CHOSE_ZERO_SHARD: t->zero_shard = WL_ZERO_SHARD_ALL; break;
	case CHOSE_OFFLOAD: t->offload_optimizer = WL_OFFLOAD_AUTO; break;
	case CHOSE_TP: t->tp = WL_AUTO; break;
	case CHOSE_PP:
		t->pp = t->vp = WL_AUTO;
		t->first_stage_layers = t->last_stage_layers = WL_AUTO;
		break;
	case CHOSE_CP: t->cp = WL_AUTO; break;
	default:
		t->micro_batch = t->tp = t->pp = t->vp = t->cp = WL_AUTO;
		t->first_stage_layers = t->last_stage_layers = WL_AUTO;
		t->zero = WL_AUTO_NEG;
		t->recompute = RECOMPUTE_AUTO;
		t->sequence_parallel = WL_AUTO_NEG;
		t->offload_optimizer = WL_OFFLOAD_AUTO;
		break;
	}
}

int train_plan_suggest(const struct workload *wl, const struct gpu_spec *g,
		       int max_gpus, char *buf, size_t n)
{
	static const enum plan_choice order[] = {
		CHOSE_MICRO_BATCH, CHOSE_RECOMPUTE, CHOSE_ZERO,
		CHOSE_ZERO_SHARD,  CHOSE_OFFLOAD,   CHOSE_TP,   CHOSE_PP,
		CHOSE_CP,          CHOSE_COUNT,
	};
	struct workload w;
	struct train_plan p;
	unsigned open = open_keys(&wl->training);

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (order[i] != CHOSE_COUNT && (open & bit(order[i])))
			continue; /* capplan already chooses it */
		if (order[i] == CHOSE_ZERO_SHARD &&
		    wl->training.zero_shard == WL_ZERO_SHARD_ALL)
			continue; /* nothing to relax */
		w = *wl;
		relax(&w, order[i]);
		if (train_plan_make(&w, g, &p, NULL) == 0 && p.fits) {
			describe(&p, order[i], buf, n);
			return 0;
		}
	}
	/* everything open: more GPUs, in whole nodes */
	w = *wl;
	relax(&w, CHOSE_COUNT);
	struct cluster cl;

	(void)cluster_resolve(&wl->cluster, g, &cl, NULL); /* the node */
	for (int gpus = ck_sat_mul_int(2, wl->training.gpus > 0 ?
						  wl->training.gpus :
						  cl.gpus_per_node);
	     gpus > 0 && gpus <= max_gpus;
	     gpus = ck_doubled_within(gpus, max_gpus)) {
		w.training.gpus = gpus;
		w.training.global_batch = WL_AUTO;
		if (train_plan_make(&w, g, &p, NULL) == 0 && p.fits) {
			snprintf(buf, n, "needs at least %d GPUs (tp=%d pp=%d "
					 "zero=%d)", gpus, p.config.tp,
				 p.config.pp, p.config.zero);
			return 0;
		}
	}
	snprintf(buf, n, "does not fit on up to %d GPUs", max_gpus);
	return -1;
}
