/*
 * bench.c - speed of the numeric core: training configurations evaluated
 * per second on one core, and the time of the largest search (a 1T
 * parameter model on 16384 GPUs with every parallel key left open),
 * and of serving under load: simulated sequence-steps per second, and
 * the time to size a serving workload on every catalog device.
 * Prints the figures; asserts nothing (speed is measured, not tested).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "catalog.h"
#include "cli.h"
#include "cluster.h"
#include "infer_plan.h"
#include "serve_sim.h"
#include "model_train.h"
#include "search.h"
#include "workload.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void model(struct workload *wl, int layers, int hidden, int heads,
		  int kv, int ffn, int seq)
{
	workload_init(wl);
	wl->model.layers = layers;
	wl->model.hidden = hidden;
	wl->model.heads = heads;
	wl->model.kv_heads = kv;
	wl->model.ffn_hidden = ffn;
	wl->model.gated_ffn = true;
	wl->model.vocab = 128256;
	wl->model.seq_len = seq;
}

/* Llama 3 70B, fp8, serving 2048-token prompts and 256-token answers. */
static void serving_model(struct workload *wl)
{
	model(wl, 80, 8192, 64, 8, 28672, 8192);
	wl->model.tied_embeddings = false;
	wl->inference.weight_precision = PREC_FP8;
	wl->inference.kv_precision = PREC_FP8;
	wl->inference.prompt_tokens = 2048;
	wl->inference.output_tokens = 256;
	wl->inference.qps = 20.0;
	wl->inference.ttft_slo_s = 0.5;
	wl->inference.tpot_slo_s = 0.05;
}

struct size_job {
	const struct workload *wl;
	const struct catalog *cat;
	int *ok;
};

static void size_one(int i, void *arg)
{
	struct size_job *j = arg;
	struct infer_plan p;

	j->ok[i] = infer_plan_make(j->wl, catalog_at(j->cat, (size_t)i), &p,
				   NULL) == 0;
}

/* Seconds per serving plan of 'wl' on 'g', over 'reps' plans (their
   p99 TTFT added to '*sink'). */
static double plan_s(const struct workload *wl, const struct gpu_spec *g,
		     int reps, double *sink)
{
	struct infer_plan p;
	double t0 = now_s();

	for (int i = 0; i < reps; i++)
		if (g && infer_plan_make(wl, g, &p, NULL) == 0)
			*sink += p.fleet.sim.ttft_p99_s;
	return (now_s() - t0) / reps;
}

/* The simulation's speed, and sizing a fleet on every catalog device. */
static double bench_serving(const struct catalog *cat)
{
	struct workload wl;
	struct infer_plan p;
	struct diag err;
	double t0, t1, steps = 0.0, seqs = 0.0, sink = 0.0;
	size_t n = catalog_count(cat);
	int reps = 5, plans = 0;

	serving_model(&wl);
	wl.inference.tp = 4;
	wl.inference.replicas = 4;
	diag_clear(&err);
	t0 = now_s();
	for (int i = 0; i < reps; i++) {
		if (infer_plan_make(&wl, catalog_find(cat, "H100-SXM", &err),
				    &p, &err) != 0 || !p.simulated) {
			diag_print(stderr, &err);
			return 0.0;
		}
		steps += (double)p.fleet.sim.steps;
		seqs += (double)p.fleet.sim.request_steps;
		sink += p.fleet.sim.ttft_p99_s;
	}
	t1 = now_s();
	printf("serving simulation, 70B fp8 on 4 x H100 tp4 replicas at "
	       "20 req/s, %d requests (and a capacity run): %.3g ms; %.3g "
	       "sequence-steps/s, %.3g steps/s on one core\n",
	       p.fleet.sim.simulated_requests, 1e3 * (t1 - t0) / reps,
	       seqs / (t1 - t0), steps / (t1 - t0));
	/* the same fleet with speculation, and split into two prefill and
	   two decode replicas */
	wl.inference.speculative_tokens = 4;
	wl.inference.acceptance_rate = 0.7;
	printf("  with speculative decoding (4 drafts): %.3g ms\n",
	       1e3 * plan_s(&wl, catalog_find(cat, "H100-SXM", &err), reps,
			    &sink));
	wl.inference.speculative_tokens = 0;
	wl.inference.acceptance_rate = 0.0;
	wl.inference.replicas = WL_AUTO;
	wl.inference.disaggregated = true;
	wl.inference.prefill_replicas = 2;
	wl.inference.decode_replicas = 2;
	printf("  disaggregated, 2 prefill + 2 decode replicas: %.3g ms\n",
	       1e3 * plan_s(&wl, catalog_find(cat, "H100-SXM", &err), reps,
			    &sink));
	serving_model(&wl);
	t0 = now_s();
	for (size_t i = 0; i < n; i++)
		if (infer_plan_make(&wl, catalog_at(cat, i), &p, NULL) == 0) {
			plans++;
			sink += p.replicas;
		}
	t1 = now_s();
	printf("serving size, the same workload sized on all %zu catalog "
	       "devices (tp and replicas open): %.3g s on one core (%d "
	       "planned)\n", n, t1 - t0, plans);
	{
		int ok[256] = { 0 };
		struct size_job job = { &wl, cat, ok };

		t0 = now_s();
		cli_parallel_for(n < 256 ? (int)n : 256, size_one, &job);
		t1 = now_s();
		printf("  on %d threads (as capplan size runs it): %.3g s\n",
		       cli_threads(), t1 - t0);
	}
	return sink;
}

int main(void)
{
	struct catalog *cat = NULL;
	struct diag err;
	const struct gpu_spec *g;
	struct workload wl;
	struct arch a;
	struct cluster cl;
	struct train_config c;
	struct train_result r;
	struct train_space sp;
	struct search_result res;
	double t0, t1, sink = 0.0;
	long n = 2000000;

	diag_clear(&err);
	if (catalog_load_default(&cat, &err) != 0) {
		diag_print(stderr, &err);
		return 1;
	}
	g = catalog_find(cat, "H100-SXM", &err);
	if (!g)
		return 1;

	/* one configuration, evaluated repeatedly (varying micro-batch so
	   nothing is hoisted out of the loop) */
	model(&wl, 80, 8192, 64, 8, 28672, 8192);
	arch_from_spec(&wl.model, &a);
	(void)cluster_resolve(&wl.cluster, g, &cl, NULL); /* cloud */
	memset(&c, 0, sizeof(c));
	c.gpus = 1024;
	c.tp = 8;
	c.pp = 4;
	c.vp = 1;
	c.cp = 1;
	c.dp = 32;
	c.global_batch = 2048;
	c.zero = 1;
	c.recompute = RECOMPUTE_SELECTIVE;
	c.sequence_parallel = true;
	c.overlap_grad_reduce = true;
	c.precision = PREC_BF16;
	t0 = now_s();
	for (long i = 0; i < n; i++) {
		c.micro_batch = 1 << (i & 3);
		c.micro_batches = c.global_batch / (c.dp * c.micro_batch);
		train_evaluate(&a, &c, g, &cl, &r);
		sink += r.time.step_s;
	}
	t1 = now_s();
	printf("train_evaluate: %.3g configurations/s on one core "
	       "(%.0f ns each)\n", n / (t1 - t0), 1e9 * (t1 - t0) / n);

	/* a wide space: a 70B model at 2K context on 4096 GPUs with the
	   global batch left to its default (4M tokens, 2048 sequences, held
	   fixed: the micro-batches that divide it are tried) */
	{
		struct search_result wres;
		long cores = sysconf(_SC_NPROCESSORS_ONLN);
		int threads = cores < 1 ? 1 : cores > 64 ? 64 : (int)cores;
		double w0, w1, w2;

		model(&wl, 80, 8192, 64, 8, 28672, 2048);
		arch_from_spec(&wl.model, &a);
		if (train_space_init(&sp, &wl.training, &a, 4096, 0,
				     cl.gpus_per_node, &err) != 0) {
			diag_print(stderr, &err);
			return 1;
		}
		w0 = now_s();
		train_search(&sp, &a, g, &cl, &wres);
		w1 = now_s();
		train_search_parallel(&sp, &a, g, &cl, &wres, NULL, 0, NULL,
				      threads);
		w2 = now_s();
		printf("search, 70B model at 2K on 4096 x %s, default batch: "
		       "%lld evaluated in %.3g ms on one core (%.3g/s), "
		       "%.3g ms on %d threads\n", g->name, wres.legal,
		       1e3 * (w1 - w0), wres.legal / (w1 - w0),
		       1e3 * (w2 - w1), threads);
	}

	/* the largest search: 1T parameters on 16384 GPUs, all keys open */
	model(&wl, 128, 25600, 160, 160, 102400, 8192);
	wl.model.gated_ffn = false;
	wl.training.gpus = 16384;
	arch_from_spec(&wl.model, &a);
	if (train_space_init(&sp, &wl.training, &a, 16384, 0,
			     cl.gpus_per_node, &err) != 0) {
		diag_print(stderr, &err);
		return 1;
	}
	{
		int reps = 0;

		t0 = now_s();
		do {
			train_search(&sp, &a, g, &cl, &res);
			reps++;
			t1 = now_s();
		} while (t1 - t0 < 0.5);
		t1 = (t1 - t0) / reps;
	}
	printf("search, 1T model on 16384 x %s, every key open: %lld "
	       "configurations enumerated, %lld legal and evaluated, in "
	       "%.3g ms\n", g->name, res.evaluated, res.legal, 1e3 * t1);
	printf("  %.3g configurations enumerated/s, %.3g evaluated/s on "
	       "one core\n", res.evaluated / t1, res.legal / t1);
	{
		long cores = sysconf(_SC_NPROCESSORS_ONLN);
		int threads = cores < 1 ? 1 : cores > 64 ? 64 : (int)cores;
		struct search_result pres;
		int reps = 0;
		double tp0 = now_s(), tp1;

		do {
			train_search_parallel(&sp, &a, g, &cl, &pres, NULL, 0,
					      NULL, threads);
			reps++;
			tp1 = now_s();
		} while (tp1 - tp0 < 0.5);
		tp1 = (tp1 - tp0) / reps;
		printf("  on %d threads: %.3g ms, %.3g evaluated/s (same "
		       "best: %s)\n", threads, 1e3 * tp1, pres.legal / tp1,
		       pres.result.tokens_per_s == res.result.tokens_per_s ?
			       "yes" :
			       "NO");
	}
	printf("  best: tp %d pp %d vp %d cp %d dp %d mb %d zero %d %s, "
	       "%.4g s/step, MFU %.1f%%\n", res.best.tp, res.best.pp,
	       res.best.vp, res.best.cp, res.best.dp, res.best.micro_batch,
	       res.best.zero, recompute_name(res.best.recompute),
	       res.result.time.step_s, 100.0 * res.result.mfu);
	sink += bench_serving(cat);
	catalog_free(cat);
	return sink > 0.0 ? 0 : 1;
}
