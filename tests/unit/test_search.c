/* test_search.c - the configuration space and its search (cmocka). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "search.h"

static void assert_rel(double got, double want, double tol)
{
	double scale = fabs(want) > 0.0 ? fabs(want) : 1.0;

	if (!(fabs(got - want) <= tol * scale)) {
		print_error("got %.17g, want %.17g (tol %g)\n", got, want, tol);
		fail();
	}
}

static struct gpu_spec test_gpu(double mem_bytes)
{
	struct gpu_spec g;

	memset(&g, 0, sizeof(g));
	strcpy(g.name, "A100-test");
	g.mem_bytes = mem_bytes;
	g.mem_bw_bytes_per_s = 2.039e12;
	g.peak_flops[PREC_FP32] = 19.5e12;
	g.peak_flops[PREC_TF32] = 156e12;
	g.peak_flops[PREC_BF16] = 312e12;
	g.peak_flops[PREC_FP16] = 312e12;
	g.matmul_eff = 0.85;
	g.mem_eff = 0.9;
	g.tdp_w = 400.0;
	g.idle_w = 50.0;
	g.gpus_per_node = 8;
	g.intra_bw_bytes_per_s = 300e9;
	g.inter_bw_bytes_per_s = 25e9;
	return g;
}

static struct cluster test_cluster(void)
{
	struct cluster cl;

	memset(&cl, 0, sizeof(cl));
	cl.gpus_per_node = 8;
	cl.intra_bw_bytes_per_s = 300e9;
	cl.inter_bw_bytes_per_s = 25e9;
	cl.pue = 1.2;
	return cl;
}

static struct arch make_arch(int layers, int hidden, int heads, int kv,
			     int seq)
{
	struct model_spec m;
	struct arch a;

	memset(&m, 0, sizeof(m));
	m.layers = layers;
	m.hidden = hidden;
	m.heads = heads;
	m.kv_heads = kv;
	m.vocab = 32000;
	m.seq_len = seq;
	assert_int_equal(arch_from_spec(&m, &a), 0);
	return a;
}

static struct training_spec auto_spec(void)
{
	struct workload wl;

	workload_init(&wl);
	return wl.training;
}

static void expect_dim(const struct space_dim *d, const int *want, int n)
{
	if (d->n != n) {
		print_error("dimension has %d values, want %d\n", d->n, n);
		fail();
	}
	for (int i = 0; i < n; i++)
		assert_int_equal(d->v[i], want[i]);
}

static void test_default_global_batch(void **state)
{
	(void)state;
	/* about 4M tokens, a power of two in sequences */
	assert_int_equal(default_global_batch(2048, 4194304.0), 2048);
	assert_int_equal(default_global_batch(4096, 4194304.0), 1024);
	assert_int_equal(default_global_batch(8192, 4194304.0), 512);
	/* 3000-token sequences: 1398 sequences, nearer 1024 than 2048 in
	   ratio (the boundary is 1024 sqrt 2 = 1448) */
	assert_int_equal(default_global_batch(3000, 4194304.0), 1024);
	assert_int_equal(default_global_batch(2800, 4194304.0), 2048);
	/* never below one sequence */
	assert_int_equal(default_global_batch(4194304, 4194304.0), 1);
	assert_int_equal(default_global_batch(5000000, 4194304.0), 1);
	/* Llama 3 405B's 16M tokens of 8192 */
	assert_int_equal(default_global_batch(8192, 16777216.0), 2048);
	/* at most WL_BATCH_MAX */
	assert_int_equal(default_global_batch(1, 1e12), WL_BATCH_MAX);
}

/* DeepSeek LLM's critical batch, 0.292 C^0.3271 tokens, and its rounding
   to a configuration's steps */
static void test_default_batch_rule(void **state)
{
	double b;

	(void)state;
	/* C = 1e24 FLOPs: 0.292 e^(0.3271 ln 1e24) = 2.10e7 tokens */
	b = default_batch_tokens(6e10, 1e24 / 6e10, 4096);
	assert_true(fabs(b / (0.292 * pow(1e24, 0.3271)) - 1.0) < 1e-12);
	assert_true(b > 2.0e7 && b < 2.2e7);
	/* the exponent: 1000x the compute, 10^(3 x 0.3271) = 9.6x the batch */
	assert_true(fabs(default_batch_tokens(6e10, 1e27 / 6e10, 4096) / b -
			 pow(1e3, 0.3271)) < 1e-9);
	/* never below one sequence */
	assert_true(default_batch_tokens(1e3, 1e3, 4096) == 4096.0);
	assert_true(default_batch_tokens(0.0, 1e12, 2048) == 2048.0);
	/* to the nearest whole number of steps: 2048 over 55 x 2 */
	assert_int_equal(round_batch(2048, 110), 2090);
	assert_int_equal(round_batch(2048, 256), 2048);
	assert_int_equal(round_batch(100, 30), 90);
	/* a step above the batch is no rounding of it */
	assert_int_equal(round_batch(2048, 4096), 2048);
	/* at most WL_BATCH_MAX */
	assert_true(round_batch(WL_BATCH_MAX, 7) <= WL_BATCH_MAX);
	assert_int_equal(round_batch(WL_BATCH_MAX, 7) % 7, 0);
}

static void test_space_auto(void **state)
{
	/* divisors of the heads that fit the 8-GPU nodes: 3 and 6 would
	   straddle two nodes, 12 is not whole nodes */
	static const int tp[] = { 1, 2, 4 };
	/* divisors of 24 gpus up to 36 layers: stages may be uneven */
	static const int pp[] = { 1, 2, 3, 4, 6, 8, 12, 24 };
	static const int cp[] = { 1, 2, 4 };  /* s / cp >= 4096 */
	/* every divisor of the global batch */
	static const int mb48[] = { 1, 2, 3, 4, 6, 8, 12, 16, 24, 48 };
	static const int zero[] = { 0, 1, 2, 3 };
	/* selective recomputation equals none under flash attention, the
	   default, so the search leaves it out */
	static const int rc[] = { RECOMPUTE_NONE, RECOMPUTE_FULL };
	static const int on_off[] = { 1, 0 };
	struct training_spec ts = auto_spec();
	struct arch a = make_arch(36, 1536, 12, 4, 16384);
	struct train_space sp;
	struct diag err;

	(void)state;
	diag_clear(&err);
	assert_int_equal(train_space_init(&sp, &ts, &a, 24, 48, 8, &err), 0);
	assert_int_equal(sp.gpus, 24);
	assert_int_equal(sp.global_batch, 48);
	expect_dim(&sp.tp, tp, 3);
	expect_dim(&sp.pp, pp, 8);
	/* 1 to half the layers; the search keeps the divisors of the
	   layers per stage */
	assert_int_equal(sp.vp.n, 18);
	assert_int_equal(sp.vp.v[17], 18);
	assert_true(sp.vp_divides);
	expect_dim(&sp.cp, cp, 3);
	expect_dim(&sp.micro_batch, mb48, 10);
	expect_dim(&sp.zero, zero, 4);
	expect_dim(&sp.recompute, rc, 2);
	/* full recomputation of 1 to 32 layers of a chunk
	   (MAX_RECOMPUTE_LAYERS) */
	assert_int_equal(sp.recompute_layers_max, 32);
	/* sequence parallelism and both overlaps: on, then off */
	expect_dim(&sp.sp, on_off, 2);
	expect_dim(&sp.overlap, on_off, 2);
	expect_dim(&sp.tp_overlap, on_off, 2);
	assert_int_equal(sp.precision, PREC_BF16);
	assert_int_equal(sp.optimizer, OPTIMIZER_ADAM);
	/* the product of the lists, full recomputation once per count */
	assert_int_equal(train_space_size(&sp),
			 3LL * 8 * 18 * 3 * 1 * 10 * 4 * (2 + 32) * 2 * 2 * 2);

	/* a global batch left open: 4M tokens of 16384, 256 sequences, held
	   fixed; micro-batches are its divisors */
	assert_int_equal(train_space_init(&sp, &ts, &a, 24, 0, 8, &err), 0);
	assert_int_equal(sp.global_batch, 256);
	{
		static const int mb256[] = { 1, 2, 4, 8, 16, 32, 64, 128, 256 };

		expect_dim(&sp.micro_batch, mb256, 9);
	}
	/* training.batch_tokens sets the default */
	ts.batch_tokens = 16777216.0;
	assert_int_equal(train_space_init(&sp, &ts, &a, 24, 0, 8, &err), 0);
	assert_int_equal(sp.global_batch, 1024);
	ts.batch_tokens = 0.0;
	/* tp bounded by the GPUs */
	assert_int_equal(train_space_init(&sp, &ts, &a, 6, 0, 8, &err), 0);
	expect_dim(&sp.tp, tp, 2);
	/* nodes of 4: 12 spans three of them */
	{
		static const int tp4[] = { 1, 2, 4, 12 };

		assert_int_equal(train_space_init(&sp, &ts, &a, 48, 0, 4, &err),
				 0);
		expect_dim(&sp.tp, tp4, 4);
	}
	/* short sequences: no context parallelism */
	a.seq_len = 4096;
	assert_int_equal(train_space_init(&sp, &ts, &a, 24, 0, 8, &err), 0);
	expect_dim(&sp.cp, cp, 1);
	/* a recomputation given: no layer counts searched; a layer count
	   given: full recomputation of that many */
	ts.recompute = RECOMPUTE_FULL;
	assert_int_equal(train_space_init(&sp, &ts, &a, 24, 0, 8, &err), 0);
	assert_int_equal(sp.recompute_layers_max, 0);
	assert_int_equal(sp.recompute_layers, 0);
	ts.recompute = RECOMPUTE_AUTO;
	ts.recompute_layers = 2;
	assert_int_equal(train_space_init(&sp, &ts, &a, 24, 0, 8, &err), 0);
	expect_dim(&sp.recompute, rc + 1, 1);
	assert_int_equal(sp.recompute_layers_max, 0);
	assert_int_equal(sp.recompute_layers, 2);
	assert_string_equal(err.msg, "");
}

static void test_space_fixed(void **state)
{
	struct training_spec ts = auto_spec();
	struct arch a = make_arch(36, 1536, 12, 4, 16384);
	struct train_space sp;

	(void)state;
	ts.tp = 2;
	ts.pp = 3;
	ts.vp = 3;
	ts.cp = 2;
	ts.micro_batch = 5;
	ts.zero = 2;
	ts.recompute = RECOMPUTE_FULL;
	ts.sequence_parallel = 0;
	ts.overlap_grad_reduce = 0;
	ts.tp_comm_overlap = 0;
	ts.precision = PREC_FP8;
	ts.optimizer = OPTIMIZER_SGD;
	ts.attention = ATTN_UNFUSED;
	ts.dropout = true;
	assert_int_equal(train_space_init(&sp, &ts, &a, 48, 0, 8, NULL), 0);
	assert_int_equal(sp.tp.n, 1);
	assert_int_equal(sp.tp.v[0], 2);
	assert_int_equal(sp.pp.n, 1);
	assert_int_equal(sp.pp.v[0], 3);
	assert_int_equal(sp.vp.n, 1);
	assert_int_equal(sp.vp.v[0], 3);
	assert_int_equal(sp.cp.n, 1);
	assert_int_equal(sp.cp.v[0], 2);
	assert_int_equal(sp.micro_batch.n, 1);
	assert_int_equal(sp.micro_batch.v[0], 5);
	assert_int_equal(sp.zero.n, 1);
	assert_int_equal(sp.zero.v[0], 2);
	assert_int_equal(sp.recompute.n, 1);
	assert_int_equal(sp.recompute.v[0], RECOMPUTE_FULL);
	assert_int_equal(sp.sp.n, 1);
	assert_int_equal(sp.sp.v[0], 0);
	assert_int_equal(sp.overlap.n, 1);
	assert_int_equal(sp.overlap.v[0], 0);
	assert_int_equal(sp.tp_overlap.n, 1);
	assert_int_equal(sp.tp_overlap.v[0], 0);
	assert_int_equal(sp.recompute_layers_max, 0);
	assert_false(sp.vp_divides);
	assert_int_equal(sp.precision, PREC_FP8);
	assert_int_equal(sp.optimizer, OPTIMIZER_SGD);
	assert_int_equal(sp.attention, ATTN_UNFUSED);
	assert_true(sp.dropout);
}

static void test_space_errors(void **state)
{
	struct training_spec ts = auto_spec();
	struct arch a = make_arch(36, 1536, 12, 4, 16384);
	struct train_space sp;
	struct diag err;

	(void)state;
	diag_clear(&err);
	assert_int_equal(train_space_init(&sp, &ts, &a, 0, 0, 8, &err), -1);
	assert_string_equal(err.msg,
			    "gpus must be resolved and global_batch >= 0");
	diag_clear(&err);
	assert_int_equal(train_space_init(&sp, &ts, &a, 8, -1, 8, &err), -1);
	assert_string_equal(err.msg,
			    "gpus must be resolved and global_batch >= 0");
	/* no node size: no tp at all */
	diag_clear(&err);
	assert_int_equal(train_space_init(&sp, &ts, &a, 8, 0, 0, &err), -1);
	assert_string_equal(err.msg,
			    "no legal parallel split of 8 gpus for this model");
	/* NULL diag is allowed */
	assert_int_equal(train_space_init(&sp, &ts, &a, 0, 0, 8, NULL), -1);
}

/* Brute force over the same space, independently enumerated. */
struct brute {
	bool found;
	double best_tps;
	double least_bytes;
	long long legal;
	long long fitting;
};

/* One configuration of the brute force: legal, then timed with the split
   train_stage_choose picks (test_model_train.c checks it against every
   split). */
static void brute_one(const struct arch *a, const struct gpu_spec *g,
		      const struct cluster *cl, struct train_config c,
		      struct brute *b)
{
	struct train_result r;
	struct train_micro mc;

	train_stage_fill(a, &c, 0, 0);
	if (!train_config_valid(a, &c, cl->gpus_per_node))
		return;
	assert_int_equal(train_micro_eval(a, &c, g, cl, &mc), 0);
	if (train_stage_choose(a, &c, &mc, 0, 0) != 0)
		return;
	train_evaluate_micro(a, &c, g, cl, &mc, &r);
	b->legal++;
	if (r.memory.fits) {
		b->fitting++;
		b->found = true;
		if (r.tokens_per_s > b->best_tps)
			b->best_tps = r.tokens_per_s;
	}
	if (r.memory.total_bytes < b->least_bytes)
		b->least_bytes = r.memory.total_bytes;
}

/* Every key open, flash attention: tp and pp any size, vp a divisor of
   the layers per stage, every micro-batch, ZeRO, recomputation with its
   layer counts, sequence parallelism (once for tp 1) and both overlaps. */
static void brute_force(const struct arch *a, const struct gpu_spec *g,
			const struct cluster *cl, int gpus, int gb,
			struct brute *b)
{
	memset(b, 0, sizeof(*b));
	b->least_bytes = INFINITY;
	for (int tp = 1; tp <= gpus; tp++)
	for (int p = 1; p <= gpus; p++)
	for (int v = 1; v <= a->layers; v++)
	for (int mb = 1; mb <= gb; mb++)
	for (int z = 0; z <= 3; z++)
	for (int rc = RECOMPUTE_NONE; rc <= RECOMPUTE_FULL; rc++)
	for (int k = 0; k < a->layers; k++)
	for (int sq = 0; sq <= 1; sq++)
	for (int o = 0; o <= 1; o++)
	for (int to = 0; to <= 1; to++)
	for (int off = 0; off <= (cluster_can_offload(cl) ? 1 : 0); off++) {
		struct train_config c;
		int stage = (a->layers + p - 1) / p;
		int chunk = (stage + v - 1) / v;

		if (rc == RECOMPUTE_SELECTIVE) /* same as none with flash */
			continue;
		/* a layer count only with full recomputation, fewer than a
		   chunk holds; sequence parallelism over one rank is none */
		if ((k > 0 && (rc != RECOMPUTE_FULL || k >= chunk)) ||
		    (sq && tp == 1) || stage % v != 0)
			continue;
		if (gpus % (tp * p) || gb % mb || a->heads % tp)
			continue;
		/* the optimizer offload needs ZeRO >= 1 */
		if (off && z == 0)
			continue;
		memset(&c, 0, sizeof(c));
		c.gpus = gpus;
		c.tp = tp;
		c.pp = p;
		c.vp = v;
		c.cp = 1;
		c.dp = gpus / (tp * p);
		c.micro_batch = mb;
		c.global_batch = gb;
		if (c.dp * mb > gb || gb % (c.dp * mb))
			continue;
		c.micro_batches = gb / (c.dp * mb);
		c.zero = z;
		c.recompute = (enum recompute)rc;
		c.recompute_layers = k;
		c.sequence_parallel = sq;
		c.overlap_grad_reduce = o;
		c.tp_comm_overlap = to;
		c.offload_fraction = off;
		/* the search's default: off unless the workload says */
		c.overlap_param_gather = false;
		c.precision = PREC_BF16;
		c.optimizer = OPTIMIZER_ADAM;
		c.attention = ATTN_FLASH;
		brute_one(a, g, cl, c, b);
	}
}

static void run_search(const struct arch *a, const struct gpu_spec *g,
		       int gpus, int gb, struct search_result *res)
{
	struct training_spec ts = auto_spec();
	struct cluster cl = test_cluster();
	struct train_space sp;

	assert_int_equal(train_space_init(&sp, &ts, a, gpus, gb, 8, NULL), 0);
	assert_int_equal(train_search(&sp, a, g, &cl, res), 0);
}

/*
 * The optimizer offload searched (train_space_offload) on a cluster whose
 * host is 'cl': the same legal and fitting counts and the same best as the
 * brute force that times every legal configuration, with and without a
 * ranking (which times the offloaded twins the search without one
 * passes over).
 */
static void check_offload_search(const struct arch *a,
				 const struct gpu_spec *g,
				 const struct cluster *cl, int gpus, int gb,
				 struct search_result *res)
{
	struct training_spec ts = auto_spec();
	struct train_space sp;
	struct search_result rk;
	struct search_entry top[3];
	struct train_result check;
	struct brute b;
	int n = 0;

	assert_int_equal(train_space_init(&sp, &ts, a, gpus, gb, 8, NULL), 0);
	train_space_offload(&sp, &ts, cl);
	assert_int_equal(sp.offload.n, 2);
	assert_int_equal(train_search(&sp, a, g, cl, res), 0);
	brute_force(a, g, cl, gpus, gb, &b);
	assert_int_equal(res->legal, b.legal);
	assert_int_equal(res->fitting, b.fitting);
	assert_true(res->found == b.found);
	assert_true(res->found);
	assert_rel(res->result.tokens_per_s, b.best_tps, 0.0);
	assert_int_equal(train_evaluate(a, &res->best, g, cl, &check), 0);
	assert_true(check.memory.fits);
	assert_rel(check.tokens_per_s, res->result.tokens_per_s, 0.0);
	assert_int_equal(train_search_top(&sp, a, g, cl, &rk, top, 3, &n), 0);
	assert_int_equal(rk.legal, res->legal);
	assert_int_equal(rk.fitting, res->fitting);
	assert_rel(rk.result.tokens_per_s, res->result.tokens_per_s, 0.0);
	assert_int_equal(n, 3);
	assert_rel(top[0].result.tokens_per_s, res->result.tokens_per_s, 0.0);
}

static void test_search_offload(void **state)
{
	struct arch a = make_arch(8, 2048, 16, 4, 1024);
	/* a device that holds the model's states only with sharding or
	   offload */
	struct gpu_spec g = test_gpu(5e9);
	struct cluster cl = test_cluster();
	struct search_result plain, slow, fast, tight;

	(void)state;
	run_search(&a, &g, 8, 64, &plain);
	/* PCIe Gen4 hosts of 1 TB stepping 4e9 parameters per second: the
	   offload is never faster, and it fits more */
	cl.host_memory_bytes = 1e12;
	cl.host_link_bw_bytes_per_s = 32e9;
	cl.cpu_adam_params_per_s = 4e9;
	check_offload_search(&a, &g, &cl, 8, 64, &slow);
	assert_true(slow.legal > plain.legal);
	assert_true(slow.fitting > plain.fitting);
	assert_true(slow.result.tokens_per_s >= plain.result.tokens_per_s);
	/* a host far faster than the GPU's memory: offloading is the faster
	   step, so every configuration that fits is timed with it */
	cl.host_link_bw_bytes_per_s = 1e18;
	cl.cpu_adam_params_per_s = 1e18;
	check_offload_search(&a, &g, &cl, 8, 64, &fast);
	assert_true(fast.best.offload_fraction == 1.0);
	assert_true(fast.result.tokens_per_s > slow.result.tokens_per_s);
	/* a host that holds the states of some configurations only */
	cl.host_link_bw_bytes_per_s = 32e9;
	cl.cpu_adam_params_per_s = 4e9;
	cl.host_memory_bytes = 8e9;
	check_offload_search(&a, &g, &cl, 8, 64, &tight);
	assert_true(tight.fitting < slow.fitting);
	assert_true(tight.fitting > plain.fitting);
}

static void test_search_fastest(void **state)
{
	struct arch a = make_arch(8, 2048, 16, 4, 1024);
	/* a small device so that memory decides between candidates */
	struct gpu_spec g = test_gpu(7.3e9);
	struct cluster cl = test_cluster();
	struct search_result res;
	struct train_result check;
	struct brute b;

	(void)state;
	run_search(&a, &g, 8, 64, &res);
	brute_force(&a, &g, &cl, 8, 64, &b);
	assert_true(b.found);
	assert_true(res.found);
	/* the same space, the same verdicts */
	assert_int_equal(res.legal, b.legal);
	assert_int_equal(res.fitting, b.fitting);
	assert_true(res.legal <= res.enumerated);
	assert_true(res.fitting <= res.legal);
	assert_true(res.evaluated <= res.fitting);
	assert_true(res.evaluated > 0);
	/* at least as fast as every configuration of the space */
	assert_rel(res.result.tokens_per_s, b.best_tps, 0.0);
	/* the returned configuration is legal, fits and is what it says */
	assert_true(train_config_valid(&a, &res.best, 8));
	assert_int_equal(train_evaluate(&a, &res.best, &g, &cl, &check), 0);
	assert_true(check.memory.fits);
	assert_rel(check.tokens_per_s, res.result.tokens_per_s, 0.0);
	assert_int_equal(res.best.global_batch, 64);
	assert_int_equal(res.best.micro_batches,
			 64 / (res.best.dp * res.best.micro_batch));
}

/*
 * On a device that holds the activations of full recomputation but not
 * those of none, full recomputation of some layers of the chunk is the
 * fastest that fits: the fewest layers whose activations fit.
 */
static void test_search_recompute_layers(void **state)
{
	struct arch a = make_arch(8, 2048, 16, 4, 4096);
	struct training_spec ts = auto_spec();
	struct cluster cl = test_cluster();
	struct gpu_spec g = test_gpu(80e9);
	struct train_space sp;
	struct search_result res;
	struct train_config c;
	struct train_result none, full, r;

	(void)state;
	ts.tp = 1;
	ts.pp = 1;
	ts.vp = 1;
	ts.cp = 1;
	ts.micro_batch = 4;
	ts.zero = 0;
	ts.sequence_parallel = 0;
	ts.overlap_grad_reduce = 1;
	ts.tp_comm_overlap = 0;
	assert_int_equal(train_space_init(&sp, &ts, &a, 8, 64, 8, NULL), 0);
	assert_int_equal(train_search(&sp, &a, &g, &cl, &res), 0);
	/* none, full, and full of 1 to 7 of the 8 layers */
	assert_int_equal(res.legal, 9);
	assert_int_equal(res.best.recompute, RECOMPUTE_NONE);
	c = res.best;
	train_evaluate(&a, &c, &g, &cl, &none);
	c.recompute = RECOMPUTE_FULL;
	train_evaluate(&a, &c, &g, &cl, &full);
	assert_true(full.memory.total_bytes < none.memory.total_bytes);
	assert_true(full.tokens_per_s < none.tokens_per_s);
	/* between the two: a count of layers recomputed */
	g = test_gpu(0.5 * (full.memory.total_bytes + none.memory.total_bytes));
	assert_int_equal(train_search(&sp, &a, &g, &cl, &res), 0);
	assert_true(res.found);
	assert_int_equal(res.best.recompute, RECOMPUTE_FULL);
	assert_true(res.best.recompute_layers > 0 &&
		    res.best.recompute_layers < 8);
	assert_true(res.result.tokens_per_s > full.tokens_per_s);
	/* one layer fewer does not fit */
	c = res.best;
	c.recompute_layers--;
	if (c.recompute_layers == 0)
		c.recompute = RECOMPUTE_NONE;
	train_evaluate(&a, &c, &g, &cl, &r);
	assert_false(r.memory.fits);
	assert_true(r.tokens_per_s > res.result.tokens_per_s);
}

/*
 * GPT-3 175B (Brown et al. 2020) on 4096 A100-80GB with global batch
 * 1536, fp16, unfused attention and dropout: at least 20,000 legal
 * configurations; the plan Calculon chose (tp 8, pp 2, vp 24, micro-batch
 * 3, selective recomputation, distributed optimizer) is one of them, and
 * the search's best is at least as fast as it.
 */
static void test_search_gpt3_space(void **state)
{
	struct model_spec m;
	struct arch a;
	struct training_spec ts = auto_spec();
	struct cluster cl = test_cluster();
	struct gpu_spec g = test_gpu(80e9);
	struct train_space sp;
	struct search_result res;
	struct train_config c;
	struct train_micro mc;
	struct train_result r;
	bool found = false;

	(void)state;
	memset(&m, 0, sizeof(m));
	m.layers = 96;
	m.hidden = 12288;
	m.heads = 96;
	m.kv_heads = 96;
	m.ffn_hidden = 49152;
	m.vocab = 51200;
	m.seq_len = 2048;
	m.tied_embeddings = true;
	assert_int_equal(arch_from_spec(&m, &a), 0);
	ts.precision = PREC_FP16;
	ts.attention = ATTN_UNFUSED;
	ts.dropout = true;
	assert_int_equal(train_space_init(&sp, &ts, &a, 4096, 1536, 8, NULL),
			 0);
	/* the values of the plan are candidates */
	for (int i = 0; i < sp.vp.n; i++)
		found |= sp.vp.v[i] == 24;
	assert_true(found);
	assert_int_equal(train_search(&sp, &a, &g, &cl, &res), 0);
	assert_true(res.found);
	assert_true(res.legal >= 20000);
	assert_true(res.fitting <= res.legal && res.legal <= res.enumerated);
	memset(&c, 0, sizeof(c));
	c.gpus = 4096;
	c.tp = 8;
	c.pp = 2;
	c.vp = 24;
	c.cp = 1;
	c.dp = 256;
	c.micro_batch = 3;
	c.global_batch = 1536;
	c.micro_batches = 2;
	c.zero = 1;
	c.recompute = RECOMPUTE_SELECTIVE;
	c.sequence_parallel = true;
	c.overlap_grad_reduce = true;
	c.precision = PREC_FP16;
	c.optimizer = OPTIMIZER_ADAM;
	c.attention = ATTN_UNFUSED;
	c.dropout = true;
	train_stage_fill(&a, &c, 0, 0);
	assert_true(train_config_valid(&a, &c, 8));
	/* vp 24 divides the 48 layers of a stage */
	assert_int_equal(48 % c.vp, 0);
	assert_int_equal(train_micro_eval(&a, &c, &g, &cl, &mc), 0);
	assert_int_equal(train_stage_choose(&a, &c, &mc, 0, 0), 0);
	train_evaluate_micro(&a, &c, &g, &cl, &mc, &r);
	assert_true(res.result.tokens_per_s >= r.tokens_per_s);
}

static void test_search_memory_matters(void **state)
{
	struct arch a = make_arch(8, 2048, 16, 4, 1024);
	struct gpu_spec small = test_gpu(7.3e9);
	struct gpu_spec big = test_gpu(80e9);
	struct search_result rs, rb;

	(void)state;
	run_search(&a, &small, 8, 64, &rs);
	run_search(&a, &big, 8, 64, &rb);
	assert_true(rs.found && rb.found);
	/* the fastest configuration needs more than the small device has */
	assert_true(rb.result.tokens_per_s > rs.result.tokens_per_s);
	{
		struct cluster cl = test_cluster();
		struct train_result r;

		assert_int_equal(train_evaluate(&a, &rb.best, &small, &cl, &r),
				 0);
		assert_false(r.memory.fits);
	}
	assert_true(rs.result.memory.total_bytes <= 7.3e9);
}

static void test_search_nothing_fits(void **state)
{
	struct arch a = make_arch(8, 2048, 16, 4, 1024);
	struct gpu_spec g = test_gpu(2.0e9);
	struct cluster cl = test_cluster();
	struct search_result res;
	struct brute b;

	(void)state;
	run_search(&a, &g, 8, 64, &res);
	brute_force(&a, &g, &cl, 8, 64, &b);
	assert_false(b.found);
	assert_false(res.found);
	assert_true(res.legal > 0);
	assert_int_equal(res.legal, b.legal);
	assert_int_equal(res.fitting, 0);
	assert_int_equal(b.fitting, 0);
	/* the configuration that needs the least memory */
	assert_rel(res.result.memory.total_bytes, b.least_bytes, 0.0);
	assert_false(res.result.memory.fits);
	assert_true(train_config_valid(&a, &res.best, 8));
}

static void test_search_default_batch(void **state)
{
	struct arch a = make_arch(8, 2048, 16, 4, 1024);
	struct gpu_spec g = test_gpu(80e9);
	struct training_spec ts = auto_spec();
	struct cluster cl = test_cluster();
	struct train_space sp;
	struct search_result res;

	(void)state;
	/* fix the split so that the search is small */
	ts.tp = 2;
	ts.pp = 2;
	ts.vp = 1;
	ts.micro_batch = 3;
	assert_int_equal(train_space_init(&sp, &ts, &a, 24, 0, 8, NULL), 0);
	assert_int_equal(train_search(&sp, &a, &g, &cl, &res), 0);
	/* 4096 sequences of 1024: dp 6 x 3 = 18 does not divide it, so the
	   default batch is rounded to the nearest whole number of steps,
	   228 x 18 = 4104 (specs/models.md 7.1) */
	assert_true(res.found);
	assert_int_equal(res.best.dp, 6);
	assert_int_equal(res.best.global_batch, 4104);
	assert_int_equal(res.best.micro_batches, 228);
	/* tp 2, pp 3: dp 4 x micro-batch 4 divides 4096 */
	ts.tp = 2;
	ts.pp = 3;
	ts.micro_batch = 4;
	assert_int_equal(train_space_init(&sp, &ts, &a, 24, 0, 8, NULL), 0);
	assert_int_equal(train_search(&sp, &a, &g, &cl, &res), 0);
	assert_true(res.found);
	assert_int_equal(res.best.dp, 4);
	assert_int_equal(res.best.global_batch, 4096);
	assert_int_equal(res.best.micro_batches, 256);
}

static void test_search_none_legal(void **state)
{
	struct arch a = make_arch(8, 2048, 16, 4, 1024);
	struct gpu_spec g = test_gpu(80e9);
	struct training_spec ts = auto_spec();
	struct cluster cl = test_cluster();
	struct train_space sp;
	struct search_result res;

	(void)state;
	ts.tp = 3; /* does not divide 16 heads */
	ts.micro_batch = 1;
	assert_int_equal(train_space_init(&sp, &ts, &a, 6, 6, 8, NULL), 0);
	assert_int_equal(train_search(&sp, &a, &g, &cl, &res), 0);
	assert_false(res.found);
	assert_int_equal(res.legal, 0);
	assert_int_equal(res.evaluated, 0);
	assert_true(res.enumerated > 0);
}

/*
 * Configurations passed over because even their bound is slower than a
 * fitting one found (train_pipeline_bound_s) change nothing: the same
 * best and counts as a search whose ranking never fills (and so passes
 * over nothing), and the same ranking at the top.
 */
static void test_search_bound_exact(void **state)
{
	struct gpu_spec g = test_gpu(40e9);
	struct training_spec ts = auto_spec();
	struct cluster cl = test_cluster();
	struct train_space sp;
	struct search_result r1, r2, r3;
	struct search_entry few[5], *all;
	int n2 = 0, n3 = 0, many;
	struct arch a = make_arch(30, 2048, 16, 4, 2048);

	(void)state;
	assert_int_equal(train_space_init(&sp, &ts, &a, 32, 0, 8, NULL), 0);
	assert_int_equal(train_search(&sp, &a, &g, &cl, &r1), 0);
	/* a ranking with room for every configuration that fits */
	assert_true(r1.fitting > 0 && r1.fitting < 1000000);
	many = (int)r1.fitting + 1;
	all = malloc((size_t)many * sizeof(*all));
	assert_non_null(all);
	assert_int_equal(train_search_top(&sp, &a, &g, &cl, &r2, all, many,
					  &n2),
			 0);
	assert_int_equal(train_search_top(&sp, &a, &g, &cl, &r3, few, 5, &n3),
			 0);
	assert_true(n2 < many);
	assert_int_equal(n2, r2.evaluated);
	assert_true(r1.found && r2.found);
	assert_memory_equal(&r1.best, &r2.best, sizeof(r1.best));
	assert_rel(r1.result.tokens_per_s, r2.result.tokens_per_s, 0.0);
	assert_int_equal(r1.legal, r2.legal);
	assert_int_equal(r1.fitting, r2.fitting);
	/* the full ranking times everything that fits (but the overlap of a
	   reduction there is not: ZeRO-3); the bound passes over most of
	   it */
	assert_true(r2.evaluated <= r2.fitting);
	assert_true(r2.evaluated > r2.fitting / 2);
	assert_true(r1.evaluated < r2.evaluated / 4);
	assert_int_equal(n3, 5);
	for (int i = 0; i < n3; i++)
		assert_memory_equal(&few[i].config, &all[i].config,
				    sizeof(few[i].config));
	free(all);
}

/* 126 layers on 16 stages of 8 chunks: legal with 7 on the first and the
   last stage (Llama 3 405B); the search finds that split. */
static void test_search_uneven_stages(void **state)
{
	struct gpu_spec g = test_gpu(80e9);
	struct training_spec ts = auto_spec();
	struct cluster cl = test_cluster();
	struct train_space sp;
	struct search_result res;
	struct arch a = make_arch(126, 2048, 16, 4, 2048);

	(void)state;
	ts.pp = 16;
	ts.vp = 8;
	ts.tp = 1;
	ts.micro_batch = 1;
	assert_int_equal(train_space_init(&sp, &ts, &a, 16, 64, 8, NULL), 0);
	assert_int_equal(train_search(&sp, &a, &g, &cl, &res), 0);
	assert_true(res.legal > 0);
	assert_int_equal(res.best.first_stage_layers, 7);
	assert_int_equal(res.best.last_stage_layers, 7);
	/* fixed: kept, or nothing legal */
	ts.first_stage_layers = 6;
	assert_int_equal(train_space_init(&sp, &ts, &a, 16, 64, 8, NULL), 0);
	assert_int_equal(train_search(&sp, &a, &g, &cl, &res), 0);
	assert_int_equal(res.legal, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_global_batch),
		cmocka_unit_test(test_default_batch_rule),
		cmocka_unit_test(test_space_auto),
		cmocka_unit_test(test_space_fixed),
		cmocka_unit_test(test_space_errors),
		cmocka_unit_test(test_search_fastest),
		cmocka_unit_test(test_search_offload),
		cmocka_unit_test(test_search_recompute_layers),
		cmocka_unit_test(test_search_gpt3_space),
		cmocka_unit_test(test_search_memory_matters),
		cmocka_unit_test(test_search_nothing_fits),
		cmocka_unit_test(test_search_default_batch),
		cmocka_unit_test(test_search_none_legal),
		cmocka_unit_test(test_search_bound_exact),
		cmocka_unit_test(test_search_uneven_stages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
