/*
 * bench.c - speed of the numeric core: training configurations evaluated
 * per second on one core; three searches with every parallel key open
 * (GPT-3 175B on 4096 A100s, a 70B model on 512 H100s, a 1T model on
 * 16384 H100s), the median and range of several runs, with the machine's
 * core count; a recommender's configuration (tables listed one by one); and of serving under load: simulated sequence-steps per
 * second, and the time to size a serving workload on every catalog
 * device; 'capplan calibrate' on 20 measurements; and the readers on
 * large inputs ('bench readers' alone).
 * Prints the figures; asserts nothing (speed is measured, not tested).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

#include "catalog.h"
#include "cli.h"
#include "cluster.h"
#include "infer_plan.h"
#include "serve_sim.h"
#include "model_recsys.h"
#include "model_sample.h"
#include "model_train.h"
#include "search.h"
#include "trace.h"
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

/*
 * Issue 41: an agent trace of 10,000 requests (50 agents, 200 turns each,
 * every turn resending the agent's last 24 blocks of 512 tokens, named by
 * id as a Mooncake trace names them) on 16 replicas of Llama 3 8B with a
 * prefix cache: one plan, its capacity run and its simulation (the issue
 * asks for under a second); and the chat example's sessions.
 */
static double bench_prefix(const struct catalog *cat)
{
	enum { agents = 50, turns = 200, keep = 24 };
	static uint64_t ids[agents * turns][keep];
	static struct sim_request t[agents * turns];
	uint64_t ctx[agents][keep], next = 0;
	int len[agents] = { 0 };
	double at[agents], sink = 0.0, t0;
	struct workload wl;
	struct infer_plan p;
	const struct gpu_spec *g = catalog_find(cat, "H100-SXM", NULL);
	int n = 0;

	if (!g)
		return 0.0;
	for (int a = 0; a < agents; a++)
		at[a] = 0.05 * a;
	for (int k = 0; k < turns; k++)
		for (int a = 0; a < agents; a++) {
			if (len[a] == keep) /* the oldest history goes */
				memmove(ctx[a], ctx[a] + 1,
					(keep - 1) * sizeof(ctx[a][0]));
			else
				len[a]++;
			ctx[a][len[a] - 1] = next++;
			at[a] += 0.5 + 2.5 * ((k * 7 + a * 13) % 10) / 10.0;
			memcpy(ids[n], ctx[a], (size_t)len[a] * sizeof(ids[n][0]));
			t[n].arrival_s = at[a];
			t[n].prompt_tokens = len[a] * 512 - 100;
			t[n].output_tokens = 50 + (k * 31 + a * 17) % 150;
			t[n].hash_ids = ids[n];
			t[n].n_hash_ids = len[a];
			t[n].hash_block_tokens = 512;
			n++;
		}
	/* in arrival order, as a trace reader leaves them */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && t[j].arrival_s < t[j - 1].arrival_s;
		     j--) {
			struct sim_request x = t[j];

			t[j] = t[j - 1];
			t[j - 1] = x;
		}
	serving_model(&wl);
	wl.model.layers = 32;
	wl.model.hidden = 4096;
	wl.model.heads = 32;
	wl.model.kv_heads = 8;
	wl.model.ffn_hidden = 14336;
	wl.model.seq_len = 131072;
	wl.inference.weight_precision = PREC_BF16;
	wl.inference.kv_precision = PREC_BF16;
	wl.inference.tp = 1;
	wl.inference.replicas = 16;
	wl.inference.qps = 0.0;
	wl.inference.arrival = SIM_ARRIVAL_TRACE;
	wl.inference.trace_requests = t;
	wl.inference.trace_len = (size_t)n;
	wl.inference.prefix_caching = 1;
	wl.inference.ttft_slo_s = 100.0;
	wl.inference.tpot_slo_s = 1.0;
	t0 = now_s();
	if (infer_plan_make(&wl, g, &p, NULL) != 0 || !p.simulated) {
		printf("prefix cache, agent trace: failed\n");
		return 0.0;
	}
	sink += p.fleet.sim.ttft_p99_s;
	printf("prefix cache: a %d-request agent trace on 16 x H100 (8B): "
	       "%.3g s on one core (hits %.1f%% of prompt tokens)\n", n,
	       now_s() - t0, 100.0 * p.fleet.sim.prefix_hit_rate);
	return sink;
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

/* Runs of each search timed (the median and the range are printed). */
static const int search_runs = 7;

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/*
 * Time the search of 'wl' on 'gpus' x 'gpu' with global batch 'gb' (0:
 * the default): each run repeats it for at least 50 ms; prints the
 * median and range over search_runs runs, the counts, and the time per
 * legal and per evaluated configuration, then the same on every core.
 */
static double bench_search(const char *what, const struct catalog *cat,
			   const char *gpu, const struct workload *wl,
			   int gpus, int gb)
{
	const struct gpu_spec *g = catalog_find(cat, gpu, NULL);
	struct train_space sp;
	struct search_result res, pres;
	struct cluster cl;
	struct arch a;
	double run_s[16], par_s;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	int threads = cores < 1 ? 1 : cores > 64 ? 64 : (int)cores;

	if (!g || arch_from_spec(&wl->model, &a) != 0)
		return 0.0;
	(void)cluster_resolve(&wl->cluster, g, &cl, NULL);
	if (train_space_init(&sp, &wl->training, &a, gpus, gb,
			     cl.gpus_per_node, NULL) != 0)
		return 0.0;
	/* as capplan searches it: the optimizer offload too where the
	   catalog knows the host */
	train_space_offload(&sp, &wl->training, &cl);
	for (int k = 0; k < search_runs; k++) {
		double t0 = now_s(), t1;
		int reps = 0;

		do {
			train_search(&sp, &a, g, &cl, &res);
			reps++;
			t1 = now_s();
		} while (t1 - t0 < 0.05);
		run_s[k] = (t1 - t0) / reps;
	}
	qsort(run_s, (size_t)search_runs, sizeof(run_s[0]), cmp_double);
	{
		double t0 = now_s();

		train_search_parallel(&sp, &a, g, &cl, &pres, NULL, 0, NULL,
				      threads);
		par_s = now_s() - t0;
	}
	printf("search, %s:\n  %lld enumerated, %lld legal, %lld fit, %lld "
	       "evaluated in %.3g ms (%.3g-%.3g); %.3g ns per legal, %.3g ns "
	       "per evaluated configuration\n", what, res.enumerated,
	       res.legal, res.fitting, res.evaluated,
	       1e3 * run_s[search_runs / 2], 1e3 * run_s[0],
	       1e3 * run_s[search_runs - 1],
	       1e9 * run_s[search_runs / 2] / (double)res.legal,
	       1e9 * run_s[search_runs / 2] / (double)res.evaluated);
	printf("  best: tp %d pp %d vp %d cp %d dp %d mb %d zero %d %s%s, "
	       "sp %d, tp overlap %d, offload %g, %.4g s/step, MFU %.1f%%\n",
	       res.best.tp, res.best.pp, res.best.vp, res.best.cp, res.best.dp,
	       res.best.micro_batch, res.best.zero,
	       recompute_name(res.best.recompute),
	       res.best.recompute_layers > 0 ? " (some layers)" : "",
	       res.best.sequence_parallel, res.best.tp_comm_overlap,
	       res.best.offload_fraction, res.result.time.step_s,
	       100.0 * res.result.mfu);
	printf("  on %d threads: %.3g ms (same best: %s)\n", threads,
	       1e3 * par_s,
	       pres.result.tokens_per_s == res.result.tokens_per_s ? "yes" :
								     "NO");
	return res.result.time.step_s;
}

/*
 * One search of the 70B model on 512 H100s and nothing else, for
 * 'valgrind --tool=callgrind build/tests/bench search-70b': its
 * instructions over the configurations it printed are the cost of one.
 */
static int search_once(const struct catalog *cat)
{
	const struct gpu_spec *g = catalog_find(cat, "H100-SXM", NULL);
	struct train_space sp;
	struct search_result res;
	struct workload wl;
	struct cluster cl;
	struct arch a;

	model(&wl, 80, 8192, 64, 8, 28672, 8192);
	if (!g || arch_from_spec(&wl.model, &a) != 0)
		return 1;
	(void)cluster_resolve(&wl.cluster, g, &cl, NULL);
	if (train_space_init(&sp, &wl.training, &a, 512, 0, cl.gpus_per_node,
			     NULL) != 0)
		return 1;
	train_space_offload(&sp, &wl.training, &cl);
	train_search(&sp, &a, g, &cl, &res);
	printf("70B at 8K on 512 x H100-SXM: %lld enumerated, %lld legal, "
	       "%lld fit, %lld evaluated\n", res.enumerated, res.legal,
	       res.fitting, res.evaluated);
	return 0;
}

/*
 * A recommender's training configuration evaluated repeatedly: DLRM on
 * Criteo 1TB with its 26 tables listed one by one (the FL15 rows of
 * tests/validation/recsys.csv) on 8 A100-SXM-80GB, every embedding
 * sharding tried (sample_train_eval keeps the fastest).
 */
static double bench_recsys(const struct catalog *cat)
{
	static const char ini[] =
		"[model]\nkind = recsys\nembedding_tables = 26\n"
		"embedding_rows = 7912889,33823,17139,7339,20046,4,7105,1382,"
		"63,5554114,582469,245828,11,2209,10667,104,4,968,15,8165896,"
		"2675940,7156453,302516,12022,97,35\n"
		"embedding_dim = 128\nembedding_precision = fp16\n"
		"dense_features = 13\nbottom_mlp = 512,256,128\n"
		"interaction = dot\ntop_mlp = 1024,1024,512,256,1\n"
		"[training]\nsamples = 4.2B\ngpus = 8\n"
		"global_batch = 65536\nprecision = fp16\noptimizer = sgd\n";
	struct workload wl;
	struct diag err;
	struct cluster cl;
	struct train_config c;
	struct train_result r;
	struct recsys_layout *lay;
	const struct gpu_spec *g;
	double t0, t1, sink = 0.0;
	long n = 200000;

	diag_clear(&err);
	workload_init(&wl);
	if (workload_parse(ini, sizeof(ini) - 1, "bench", &wl, &err) != 0 ||
	    workload_validate(&wl, &err) != 0) {
		diag_print(stderr, &err);
		return 0.0;
	}
	g = catalog_find(cat, "A100-SXM-80GB", &err);
	if (!g)
		return 0.0;
	(void)cluster_resolve(&wl.cluster, g, &cl, NULL);
	memset(&c, 0, sizeof(c));
	c.gpus = 8;
	c.tp = c.pp = c.vp = c.cp = 1;
	c.dp = 8;
	c.global_batch = 65536;
	c.precision = PREC_FP16;
	c.optimizer = OPTIMIZER_SGD;
	c.overlap_grad_reduce = true;
	c.emb_sharding = EMB_AUTO;
	/* alone: every call deals the tables itself */
	t0 = now_s();
	for (long i = 0; i < n; i++) {
		c.micro_batch = 8192 >> (i & 3);
		c.micro_batches = 8192 / c.micro_batch;
		memset(&r, 0, sizeof(r));
		if (sample_train_eval(&wl.model, &c, g, &cl, &r) == 0)
			sink += r.time.step_s;
	}
	t1 = now_s();
	printf("recommender (DLRM, 26 listed tables, 8 x A100-SXM-80GB, 4 "
	       "shardings each): %.0f ns per configuration alone\n",
	       1e9 * (t1 - t0) / n);
	/* as the search runs it: the tables dealt once (plan.c) */
	lay = malloc(sizeof(*lay));
	if (!lay)
		return sink;
	t0 = now_s();
	recsys_layout_init(&wl.model, EMB_AUTO, 8, OPTIMIZER_SGD, lay);
	for (long i = 0; i < n; i++) {
		c.micro_batch = 8192 >> (i & 3);
		c.micro_batches = 8192 / c.micro_batch;
		memset(&r, 0, sizeof(r));
		if (recsys_train_eval(&wl.model, &c, g, &cl, lay, &r, NULL) ==
		    0)
			sink += r.time.step_s;
	}
	t1 = now_s();
	free(lay);
	printf("recommender, tables dealt once as the search deals them: "
	       "%.0f ns per configuration (%.0f ns per sharding)\n",
	       1e9 * (t1 - t0) / n, 1e9 * (t1 - t0) / n / 4);
	return sink;
}

/*
 * The median of three runs' wall time of the command line 'argv' (argc
 * words), its output thrown away; -1 when it fails.
 */
static double bench_cli(int argc, char **argv)
{
	double t[3];
	int keep = dup(STDOUT_FILENO), null = open("/dev/null", O_WRONLY);

	if (keep < 0 || null < 0) {
		if (keep >= 0)
			close(keep);
		if (null >= 0)
			close(null);
		return -1.0;
	}
	for (int k = 0; k < 3; k++) {
		double t0 = now_s();
		int rc;

		fflush(stdout);
		dup2(null, STDOUT_FILENO);
		rc = cli_main(argc, argv);
		fflush(stdout);
		dup2(keep, STDOUT_FILENO);
		t[k] = rc <= 1 ? now_s() - t0 : -1.0;
	}
	close(keep);
	close(null);
	/* the median of three */
	for (int i = 0; i < 2; i++)
		for (int j = i + 1; j < 3; j++)
			if (t[j] < t[i]) {
				double x = t[i];

				t[i] = t[j];
				t[j] = x;
			}
	return t[0] < 0.0 ? -1.0 : t[1];
}

/*
 * 'capplan calibrate' on 20 measurements (tests/bench/calibrate20.csv: 10
 * training and 10 serving under load, their configurations given; issue
 * 38 asks for under a second).
 */
static double bench_calibrate(void)
{
	char a0[] = "capplan", a1[] = "calibrate",
	     a2[] = "tests/bench/calibrate20.csv";
	char *argv[] = { a0, a1, a2, NULL };
	double t = bench_cli(3, argv);

	if (t < 0.0) {
		printf("calibrate: failed on tests/bench/calibrate20.csv\n");
		return 0.0;
	}
	printf("calibrate on 20 measurements (10 serving, 10 training): "
	       "%.2f s wall on %ld cores\n", t,
	       sysconf(_SC_NPROCESSORS_ONLN));
	return t;
}

/*
 * 'capplan infer' of answers 16,000 tokens long on two replicas too few
 * (issue 40: 156 s before the simulations' work bounds, serve_fleet.c):
 * every batch capplan tries is simulated at its capacity, the fleet, and
 * the replicas that would meet the targets are sized.
 */
static double bench_long_answers(void)
{
	char a0[] = "capplan", a1[] = "infer",
	     a2[] = "examples/llama3-8b-fleet.ini", a3[] = "--gpu",
	     a4[] = "H100-SXM", a5[] = "--set", a6[] = "model.seq_len=32768",
	     a7[] = "--set", a8[] = "inference.output_tokens=16000";
	char *argv[] = { a0, a1, a2, a3, a4, a5, a6, a7, a8, NULL };
	double t = bench_cli(9, argv);

	if (t < 0.0) {
		printf("infer of 16000-token answers: failed\n");
		return 0.0;
	}
	printf("infer of 16000-token answers (llama3-8b-fleet.ini): %.2f s "
	       "wall\n", t);
	return t;
}

/*
 * 'capplan size --mixed' over five devices (issue 42: under 2 s): the
 * bimodal trace of examples/llama3-8b-mixed.ini, and ShareGPT-shaped
 * lengths at 40 requests/s (examples/llama3-8b-fleet.ini): each device's
 * own fleet, every bucket measured, the integer program, the pools
 * simulated.
 */
static double bench_mixed(void)
{
	char a0[] = "capplan", a1[] = "size",
	     a2[] = "examples/llama3-8b-mixed.ini", a3[] = "--mixed",
	     a4[] = "--gpu", a5[] = "L4,A40,RTX-6000-Ada,H20,MI300X",
	     b2[] = "examples/llama3-8b-fleet.ini", b6[] = "--set",
	     b7[] = "inference.replicas=auto", b8[] = "--set",
	     b9[] = "inference.tp=auto", b10[] = "--set",
	     b11[] = "inference.qps=40", b5[] = "L4,A10,A100-SXM-80GB,"
						 "H100-SXM,L40S";
	char *argv[] = { a0, a1, a2, a3, a4, a5, NULL };
	char *argw[] = { a0, a1, b2, a3, a4, b5, b6, b7, b8, b9, b10, b11,
			 NULL };
	double t = bench_cli(6, argv), u = bench_cli(12, argw);

	if (t < 0.0 || u < 0.0) {
		printf("size --mixed: failed\n");
		return 0.0;
	}
	printf("size --mixed over 5 devices: %.2f s (bimodal trace, "
	       "llama3-8b-mixed.ini), %.2f s (ShareGPT lengths at 40/s, "
	       "llama3-8b-fleet.ini) wall on %ld cores\n", t, u,
	       sysconf(_SC_NPROCESSORS_ONLN));
	return t + u;
}

/*
 * A trace at its limit (TRACE_REQUESTS_MAX requests, latest first, so
 * that the reader sorts them), parsed from memory; seconds, or 0 on an
 * error.
 */
static double bench_trace(void)
{
	size_t cap = 40 + (size_t)TRACE_REQUESTS_MAX * 32, used;
	char *buf = malloc(cap);
	struct sim_request *reqs = NULL;
	struct diag err;
	size_t n = 0;
	double t0, t1;

	if (!buf)
		return 0.0;
	used = (size_t)snprintf(buf, cap,
				"arrival_s,prompt_tokens,output_tokens\n");
	for (int i = TRACE_REQUESTS_MAX; i > 0; i--)
		used += (size_t)snprintf(buf + used, cap - used,
					 "%.3f,%d,%d\n", i / 20.0,
					 100 + i % 1900, 50 + i % 450);
	diag_clear(&err);
	t0 = now_s();
	if (trace_parse(buf, used, "trace.csv", &reqs, &n, &err) != 0) {
		diag_print(stderr, &err);
		free(buf);
		return 0.0;
	}
	t1 = now_s();
	printf("trace of %zu requests (the limit, latest first) parsed and "
	       "sorted in %.3g ms (%.0f ns a request)\n", n, 1e3 * (t1 - t0),
	       1e9 * (t1 - t0) / (double)n);
	free(reqs);
	free(buf);
	return t1 - t0;
}

/*
 * The readers on large inputs (issue 40: linear where an input can be
 * large): a catalog of 30,000 rows, each the embedded catalog's first
 * device under a name of its own, parsed from memory; and a trace at its
 * limit.
 */
static double bench_readers(void)
{
	enum { ROWS = 30000 };
	size_t len, hdr, row;
	const char *text = catalog_default_text(&len);
	const char *eol1 = memchr(text, '\n', len), *comma, *eol2;
	struct catalog *big = NULL;
	struct diag err;
	char *buf;
	size_t used = 0, cap;
	double t0, t1;

	if (!eol1)
		return 0.0;
	hdr = (size_t)(eol1 - text) + 1;
	eol2 = memchr(eol1 + 1, '\n', len - hdr);
	comma = memchr(eol1 + 1, ',', len - hdr);
	if (!eol2 || !comma || comma > eol2)
		return 0.0;
	row = (size_t)(eol2 - comma) + 1; /* from the name's ',' on */
	cap = hdr + ROWS * (row + 16);
	buf = malloc(cap);
	if (!buf)
		return 0.0;
	memcpy(buf, text, hdr);
	used = hdr;
	for (int i = 0; i < ROWS; i++) {
		used += (size_t)snprintf(buf + used, cap - used, "Dev-%05d", i);
		memcpy(buf + used, comma, row);
		used += row;
	}
	diag_clear(&err);
	t0 = now_s();
	if (catalog_parse(buf, used, "big.csv", &big, &err) != 0) {
		diag_print(stderr, &err);
		free(buf);
		return 0.0;
	}
	t1 = now_s();
	printf("catalog of %zu rows (%.1f MB) parsed in %.3g ms (%.0f ns a "
	       "row)\n", catalog_count(big), 1e-6 * (double)used,
	       1e3 * (t1 - t0), 1e9 * (t1 - t0) / ROWS);
	catalog_free(big);
	free(buf);
	return t1 - t0 + bench_trace();
}

int main(int argc, char **argv)
{
	struct catalog *cat = NULL;
	struct diag err;
	const struct gpu_spec *g;
	struct workload wl;
	struct arch a;
	struct cluster cl;
	struct train_config c;
	struct train_result r;
	double t0, t1, sink = 0.0;
	long n = 2000000;

	diag_clear(&err);
	if (catalog_load_default(&cat, &err) != 0) {
		diag_print(stderr, &err);
		return 1;
	}
	if (argc > 1 && strcmp(argv[1], "search-70b") == 0) {
		int rc = search_once(cat);

		catalog_free(cat);
		return rc;
	}
	if (argc > 1 && strcmp(argv[1], "readers") == 0) {
		double v = bench_readers();

		catalog_free(cat);
		return v > 0.0 ? 0 : 1;
	}
	if (argc > 1 && strcmp(argv[1], "mixed") == 0) {
		double v = bench_mixed();

		catalog_free(cat);
		return v > 0.0 ? 0 : 1;
	}
	if (argc > 1 && strcmp(argv[1], "prefix") == 0) {
		double v = bench_prefix(cat);

		catalog_free(cat);
		return v > 0.0 ? 0 : 1;
	}
	if (argc > 1 && strcmp(argv[1], "recsys") == 0) {
		double v = bench_recsys(cat);

		catalog_free(cat);
		return v > 0.0 ? 0 : 1;
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

	printf("machine: %ld online cores; each search figure is the median "
	       "of %d runs (min-max), one core\n",
	       sysconf(_SC_NPROCESSORS_ONLN), search_runs);
	/* GPT-3 175B (Brown et al. 2020) on 4096 A100-SXM-80GB, global
	   batch 1536, fp16, unfused attention and dropout as Megatron-LM ran
	   it: every other training key open */
	model(&wl, 96, 12288, 96, 96, 49152, 2048);
	wl.model.gated_ffn = false;
	wl.model.vocab = 51200;
	wl.model.tied_embeddings = true;
	wl.training.precision = PREC_FP16;
	wl.training.attention = ATTN_UNFUSED;
	wl.training.dropout = true;
	sink += bench_search("GPT-3 175B on 4096 x A100-SXM-80GB, batch 1536",
			     cat, "A100-SXM-80GB", &wl, 4096, 1536);
	/* Llama 3 70B at 8K on 512 H100s, the default batch (4M tokens) */
	model(&wl, 80, 8192, 64, 8, 28672, 8192);
	sink += bench_search("70B at 8K on 512 x H100-SXM, default batch", cat,
			     "H100-SXM", &wl, 512, 0);
	/* the largest search: 1T parameters on 16384 GPUs, all keys open */
	model(&wl, 128, 25600, 160, 160, 102400, 8192);
	wl.model.gated_ffn = false;
	sink += bench_search("1T at 8K on 16384 x H100-SXM, default batch",
			     cat, "H100-SXM", &wl, 16384, 0);
	sink += bench_recsys(cat);
	sink += bench_serving(cat);
	sink += bench_prefix(cat);
	sink += bench_calibrate();
	sink += bench_long_answers();
	sink += bench_mixed();
	sink += bench_readers();
	catalog_free(cat);
	return sink > 0.0 ? 0 : 1;
}
