/* train_config.c - legality of a training split; see train_config.h. */
#include "train_config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include "checked.h"

static bool fail(char *why, unsigned n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Write the reason (when asked for) and answer "not legal". */
static bool fail(char *why, unsigned n, const char *fmt, ...)
{
	va_list ap;

	if (why && n > 0) {
		va_start(ap, fmt);
		vsnprintf(why, n, fmt, ap);
		va_end(ap);
	}
	return false;
}

/* tp*pp*cp*dp equals 'gpus' (a product that overflows does not). */
static bool split_is(const struct train_config *c, int gpus)
{
	int64_t n;

	return !ck_mul_overflows_i64(c->tp, c->pp, &n) &&
	       !ck_mul_overflows_i64(n, c->cp, &n) &&
	       !ck_mul_overflows_i64(n, c->dp, &n) && n == gpus;
}

int train_stage_min_layers(int vp)
{
	return vp > 2 ? vp - 1 : 1;
}

/*
 * The layers fill the pipeline (train_config.h: train_stage_split): every
 * chunk holds a layer, but the first chunk of the first stage and the
 * last chunk of the last stage, which may hold only the embedding and the
 * output layer.
 */
static bool stages_explain(const struct arch *a, const struct train_config *c,
			   char *why, unsigned n)
{
	int64_t chunks = (int64_t)c->pp * c->vp;
	int64_t middle = ((int64_t)c->pp - 2) * c->vp;
	int f = c->first_stage_layers, l = c->last_stage_layers;
	int lo = train_stage_min_layers(c->vp);

	if (c->pp == 1) {
		if ((f != 0 && f != a->layers) || (l != 0 && l != a->layers))
			return fail(why, n, "first_stage_layers and "
				    "last_stage_layers (%d, %d) must be "
				    "layers (%d) with pp 1", f, l, a->layers);
		return true;
	}
	if (f == 0 && l == 0) {
		if (chunks > a->layers)
			return fail(why, n, "pp*vp (%d*%d) must not exceed "
				    "layers (%d)", c->pp, c->vp, a->layers);
		return true;
	}
	if (c->vp > 1 && chunks - 2 > a->layers)
		return fail(why, n, "pp*vp-2 (%d*%d-2) must not exceed "
			    "layers (%d)", c->pp, c->vp, a->layers);
	if (c->pp > a->layers)
		return fail(why, n, "pp (%d) must not exceed layers (%d)",
			    c->pp, a->layers);
	if (f < lo || l < lo)
		return fail(why, n, "%s (%d) must be at least %d with vp %d",
			    f < lo ? "first_stage_layers" :
				     "last_stage_layers",
			    f < lo ? f : l, lo, c->vp);
	if (c->pp == 2 && (int64_t)f + l != a->layers)
		return fail(why, n, "first_stage_layers + last_stage_layers "
			    "(%d+%d) must be layers (%d) with pp 2", f, l,
			    a->layers);
	if (c->pp > 2 && (int64_t)a->layers - f - l < middle)
		return fail(why, n, "first_stage_layers + last_stage_layers "
			    "(%d+%d) must leave the middle stages at least "
			    "(pp-2)*vp (%d*%d) of the %d layers", f, l,
			    c->pp - 2, c->vp, a->layers);
	return true;
}

bool train_config_explain(const struct arch *a, const struct train_config *c,
			  int gpus_per_node, char *why, unsigned n)
{
	if (c->tp < 1 || c->pp < 1 || c->vp < 1 || c->cp < 1 || c->dp < 1 ||
	    c->ep < 0 || c->micro_batch < 1)
		return fail(why, n, "every parallel size and the micro-batch must be >= 1");
	if (!split_is(c, c->gpus))
		return fail(why, n, "gpus (%d) must equal tp*pp*cp*dp (%d*%d*%d*%d)", c->gpus,
		     c->tp, c->pp, c->cp, c->dp);
	if (a->heads % c->tp != 0)
		return fail(why, n, "tp (%d) must divide heads (%d)", c->tp, a->heads);
	if (a->kv_heads % c->tp != 0 && c->tp % a->kv_heads != 0)
		return fail(why, n, "tp (%d) must divide kv_heads (%d) or be a multiple of it",
		     c->tp, a->kv_heads);
	/* a group that neither divides the node nor spans whole nodes would
	   straddle two nodes */
	if (c->tp <= gpus_per_node ? gpus_per_node % c->tp != 0 :
				     c->tp % gpus_per_node != 0)
		return fail(why, n, "tp (%d) must divide the GPUs of a node "
			    "(%d) or be a multiple of them", c->tp,
			    gpus_per_node);
	if (!stages_explain(a, c, why, n))
		return false;
	if (c->vp > 1 && c->pp < 2)
		return fail(why, n, "vp (%d) needs pp > 1", c->vp);
	if (a->seq_len % c->cp != 0)
		return fail(why, n, "cp (%d) must divide seq_len (%d)", c->cp, a->seq_len);
	if (c->global_batch < 1 ||
	    c->global_batch % ((long long)c->dp * c->micro_batch) != 0)
		return fail(why, n, "global_batch (%d) must be a multiple of dp*micro_batch "
		     "(%d*%d)", c->global_batch, c->dp, c->micro_batch);
	if (c->micro_batches != c->global_batch / (c->dp * c->micro_batch))
		return fail(why, n, "micro_batches (%d) must be global_batch/(dp*micro_batch)",
		     c->micro_batches);
	if (c->vp > 1 && c->micro_batches % c->pp != 0)
		return fail(why, n, "the interleaved schedule needs micro-batches (%d) to be "
		     "a multiple of pp (%d)", c->micro_batches, c->pp);
	if (!arch_is_moe(a) && train_config_ep(c) != 1)
		return fail(why, n, "ep (%d) must be 1 for a dense model",
			    c->ep);
	if (arch_is_moe(a) && a->experts % train_config_ep(c) != 0)
		return fail(why, n, "ep (%d) must divide experts (%d)", c->ep,
			    a->experts);
	if (((long long)c->dp * c->cp) % train_config_ep(c) != 0)
		return fail(why, n, "ep (%d) must divide dp*cp (%d*%d)", c->ep,
			    c->dp, c->cp);
	if (c->zero_shard_ranks > 0 &&
	    ((long long)c->dp * c->cp) % c->zero_shard_ranks != 0)
		return fail(why, n, "zero_shard (%d) must divide dp*cp "
			    "(%d*%d)", c->zero_shard_ranks, c->dp, c->cp);
	if (c->recompute_layers < 0 ||
	    (c->recompute_layers > 0 && c->recompute != RECOMPUTE_FULL))
		return fail(why, n, "recompute_layers (%d) needs recompute "
			    "full", c->recompute_layers);
	/* Megatron-LM: the collectives overlap the GEMMs only with sequence
	   parallelism (--tp-comm-overlap needs --sequence-parallel) */
	if (c->tp_comm_overlap && (c->tp < 2 || !c->sequence_parallel))
		return fail(why, n, "tp_comm_overlap needs tp > 1 (%d) and "
			    "sequence_parallel", c->tp);
	if (c->zero < 0 || c->zero > 3)
		return fail(why, n, "zero (%d) must be 0..3", c->zero);
	/* sharding weights (ZeRO-3) would gather them for every micro-batch
	   of every stage; frameworks allow at most ZeRO-2 with pipelines */
	if (c->zero > 2 && c->pp > 1)
		return fail(why, n, "zero 3 does not combine with pipeline "
			    "parallelism (pp %d)", c->pp);
	/* the host steps each rank's shard of the distributed optimizer
	   (Megatron-Core's HybridDeviceOptimizer, ZeRO-Offload) */
	if (!(c->offload_fraction >= 0.0 && c->offload_fraction <= 1.0))
		return fail(why, n, "offload_fraction (%g) must be 0..1",
			    c->offload_fraction);
	if (c->offload_fraction > 0.0 && c->zero < 1)
		return fail(why, n, "optimizer offload needs zero 1 or more "
			    "(zero %d)", c->zero);
	return true;
}

bool train_config_valid(const struct arch *a, const struct train_config *c,
			int gpus_per_node)
{
	return train_config_explain(a, c, gpus_per_node, NULL, 0);
}

void train_stage_split(const struct arch *a, const struct train_config *c,
		       struct train_stages *s)
{
	int64_t rest;

	s->middle = 0;
	if (c->pp <= 1) {
		s->first = s->last = a->layers;
		return;
	}
	if (c->first_stage_layers == 0 && c->last_stage_layers == 0) {
		int even = (int)((a->layers + (int64_t)c->pp - 1) / c->pp);

		s->first = s->last = even;
		s->middle = c->pp > 2 ? even : 0;
		return;
	}
	s->first = c->first_stage_layers;
	s->last = c->last_stage_layers;
	rest = (int64_t)a->layers - s->first - s->last;
	if (c->pp > 2 && rest > 0)
		s->middle = (int)((rest + c->pp - 3) / (c->pp - 2));
}

int train_stage_layers(const struct arch *a, const struct train_config *c)
{
	struct train_stages s;
	int most;

	train_stage_split(a, c, &s);
	most = s.first > s.last ? s.first : s.last;
	return most > s.middle ? most : s.middle;
}

void train_stage_fill(const struct arch *a, struct train_config *c,
		      int first, int last)
{
	int lo = train_stage_min_layers(c->vp);

	if (c->pp <= 1) {
		c->first_stage_layers = first;
		c->last_stage_layers = last;
	} else if (c->pp == 2) {
		if (first == 0 && last == 0)
			last = a->layers / 2;
		c->first_stage_layers = first > 0 ? first : a->layers - last;
		c->last_stage_layers = last > 0 ? last : a->layers - first;
	} else {
		c->first_stage_layers = first > 0 ? first : lo;
		c->last_stage_layers = last > 0 ? last : lo;
	}
}

int train_config_selective_modules(const struct train_config *c)
{
	return c->recompute_modules ? c->recompute_modules :
				      RECOMPUTE_MOD_CORE_ATTN;
}

int train_config_recompute_modules(const struct train_config *c)
{
	return c->recompute == RECOMPUTE_SELECTIVE ?
		       train_config_selective_modules(c) :
		       0;
}

int train_chunk_layers(const struct arch *a, const struct train_config *c)
{
	int pp = c->pp > 0 ? c->pp : 1, vp = c->vp > 0 ? c->vp : 1;
	int stage = (a->layers + pp - 1) / pp;

	return (stage + vp - 1) / vp;
}

double train_recompute_fraction(const struct arch *a,
				const struct train_config *c)
{
	int chunk;

	if (c->recompute != RECOMPUTE_FULL)
		return 0.0;
	chunk = train_chunk_layers(a, c);
	if (c->recompute_layers <= 0 || c->recompute_layers >= chunk)
		return 1.0;
	return (double)c->recompute_layers / chunk;
}

int train_config_ep(const struct train_config *c)
{
	return c->ep > 1 ? c->ep : 1;
}

static int gcd_int(int a, int b)
{
	while (b > 0) {
		int r = a % b;

		a = b;
		b = r;
	}
	return a;
}

int train_config_zero_shards(const struct train_config *c, int *experts)
{
	int ranks = ck_sat_mul_int(c->dp, c->cp);
	int shards = ranks;

	if (ranks < 1)
		ranks = shards = 1;
	if (c->zero_shard_ranks > 0) {
		/* train_config_valid requires that it divides */
		shards = gcd_int(ranks, c->zero_shard_ranks);
	} else if (c->zero_node_gpus > 0) {
		int per_node = c->zero_node_gpus / (c->tp > 1 ? c->tp : 1);

		shards = gcd_int(ranks, per_node > 1 ? per_node : 1);
	}
	if (experts) {
		int e = ranks / train_config_ep(c);

		*experts = gcd_int(e > 1 ? e : 1, shards);
	}
	return shards;
}
