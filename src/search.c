/* search.c - enumerate training configurations; see search.h. */
#include "search.h"

#include <stdio.h>
#include <string.h>

/* Tokens per global batch when the workload does not say: Llama 2 trained
   with 4M-token batches (Touvron et al. 2023, table 1). */
static const double default_batch_tokens = 4194304.0;

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

int default_global_batch(int seq_len, int min_seqs)
{
	int gb = 1;

	while ((double)gb * seq_len < default_batch_tokens && gb < (1 << 24))
		gb *= 2;
	while (gb < min_seqs)
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
	sp->global_batch = global_batch;
	sp->precision = ts->precision;
	sp->optimizer = ts->optimizer;
	sp->attention = ts->attention;
	sp->dropout = ts->dropout;

	if (ts->tp != WL_AUTO)
		dim_one(&sp->tp, ts->tp);
	else
		for (int t = 1; t <= gpus_per_node && t <= gpus; t *= 2)
			if (gpus % t == 0 && a->heads % t == 0)
				dim_add(&sp->tp, t);
	if (ts->pp != WL_AUTO)
		dim_one(&sp->pp, ts->pp);
	else
		for (int p = 1; p <= a->layers && p <= gpus; p++)
			if (a->layers % p == 0 && gpus % p == 0)
				dim_add(&sp->pp, p);
	if (ts->vp != WL_AUTO)
		dim_one(&sp->vp, ts->vp);
	else
		for (int v = 1; v <= max_vp; v++)
			dim_add(&sp->vp, v);
	if (ts->cp != WL_AUTO)
		dim_one(&sp->cp, ts->cp);
	else
		for (int c = 1; c <= gpus_per_node && c <= gpus; c *= 2)
			/* context parallelism pays only for long sequences */
			if (c == 1 || a->seq_len / c >= 4096)
				dim_add(&sp->cp, c);
	if (ts->micro_batch != WL_AUTO)
		dim_one(&sp->micro_batch, ts->micro_batch);
	else
		for (int b = 1; b <= max_micro_batch; b++)
			if (global_batch == 0 ||
			    (b <= global_batch && global_batch % b == 0))
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

/* Better: fits beats not fitting; then more tokens per second; among
   misfits, less memory. */
static bool better(const struct train_result *r, const struct search_result *res)
{
	if (!res->legal)
		return true;
	if (r->memory.fits != res->found)
		return r->memory.fits;
	if (r->memory.fits)
		return r->tokens_per_s > res->result.tokens_per_s;
	return r->memory.total_bytes < res->result.memory.total_bytes;
}

/* The global batch of a configuration: fixed, or the default number of
   sequences rounded up to a whole number of micro-batches per replica. */
static int resolve_global_batch(const struct train_space *sp, int dp, int mb,
				int seq_len)
{
	long long unit = (long long)dp * mb;
	long long want;

	if (sp->global_batch > 0)
		return sp->global_batch;
	want = default_global_batch(seq_len, 1);
	want = (want + unit - 1) / unit * unit;
	return want > (1 << 30) ? 0 : (int)want;
}

int train_search(const struct train_space *sp, const struct arch *a,
		 const struct gpu_spec *g, const struct cluster *cl,
		 struct search_result *res)
{
	struct train_config c;
	struct train_result r;

	memset(res, 0, sizeof(*res));
	memset(&c, 0, sizeof(c));
	c.gpus = sp->gpus;
	c.global_batch = sp->global_batch;
	c.precision = sp->precision;
	c.optimizer = sp->optimizer;
	c.attention = sp->attention;
	c.dropout = sp->dropout;
	for (int i = 0; i < sp->tp.n; i++)
	for (int j = 0; j < sp->pp.n; j++)
	for (int k = 0; k < sp->cp.n; k++) {
		long long model_par = (long long)sp->tp.v[i] * sp->pp.v[j] *
				      sp->cp.v[k];

		if (sp->gpus % model_par != 0)
			continue;
		c.tp = sp->tp.v[i];
		c.pp = sp->pp.v[j];
		c.cp = sp->cp.v[k];
		c.dp = (int)(sp->gpus / model_par);
		for (int l = 0; l < sp->vp.n; l++)
		for (int mb = 0; mb < sp->micro_batch.n; mb++)
		for (int z = 0; z < sp->zero.n; z++)
		for (int rc = 0; rc < sp->recompute.n; rc++)
		for (int s = 0; s < sp->sp.n; s++)
		for (int o = 0; o < sp->overlap.n; o++) {
			c.vp = sp->vp.v[l];
			c.micro_batch = sp->micro_batch.v[mb];
			c.zero = sp->zero.v[z];
			c.recompute = (enum recompute)sp->recompute.v[rc];
			c.sequence_parallel = sp->sp.v[s] < 0 ? c.tp > 1 :
								sp->sp.v[s];
			c.overlap_grad_reduce = sp->overlap.v[o];
			c.global_batch = resolve_global_batch(sp, c.dp,
							      c.micro_batch,
							      a->seq_len);
			if (c.global_batch < 1 ||
			    (long long)c.dp * c.micro_batch > c.global_batch)
				continue;
			c.micro_batches = c.global_batch /
					  (c.dp * c.micro_batch);
			res->evaluated++;
			if (!train_config_valid(a, &c, cl->gpus_per_node))
				continue;
			if (train_evaluate(a, &c, g, cl, &r) != 0)
				continue;
			if (better(&r, res)) {
				res->best = c;
				res->result = r;
				res->found = r.memory.fits;
			}
			res->legal++;
		}
	}
	return 0;
}
