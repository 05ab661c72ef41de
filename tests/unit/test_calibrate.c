/* test_calibrate.c - parameters fitted with priors (calibrate.c), the
   measurements reader (measure.c) and profiles (profile.c); cmocka. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchlog.h"
#include "interval.h"
#include "calibrate.h"
#include "measure.h"
#include "profile.h"
#include "workload.h"
#include "workload_keys.h"

/*
 * A model with a known answer: row i predicts a_i / eff + b_i * t, a
 * compute time at efficiency 'eff' (theta[0]) plus a host time 't'
 * (theta[1]); theta[2] is read by no row.
 */
struct toy {
	double a[8], b[8];
	int fail_row;
};

static int toy_eval(void *ctx, const double *theta, size_t i, double *pred)
{
	struct toy *t = ctx;

	if ((int)i == t->fail_row)
		return -1;
	*pred = t->a[i] / theta[0] + t->b[i] * theta[1];
	return 0;
}

static void toy_params(struct cal_param *p)
{
	memset(p, 0, 3 * sizeof(*p));
	snprintf(p[0].name, sizeof(p[0].name), "eff");
	p[0].prior = 0.75;
	p[0].tau = 0.15;
	p[0].scale = CAL_LOG;
	p[0].lo_bound = 0.01;
	p[0].hi_bound = 1.0;
	snprintf(p[1].name, sizeof(p[1].name), "host");
	p[1].prior = 0.010;
	p[1].tau = 0.010;
	p[1].scale = CAL_LINEAR;
	p[1].lo_bound = 0.0;
	p[1].hi_bound = 1.0;
	snprintf(p[2].name, sizeof(p[2].name), "unused");
	p[2].prior = 2.0;
	p[2].tau = 0.5;
	p[2].scale = CAL_LOG;
	p[2].lo_bound = 0.1;
	p[2].hi_bound = 10.0;
}

/* The six-row toy of the tests below, measured exactly at 'truth': its
   measurements, dependencies, parameters and problem (evaluated by
   'eval'). */
struct toy_fit {
	struct toy t;
	double meas[6];
	unsigned char dep[6 * 3];
	struct cal_param p[3];
	struct cal_problem pb;
};

static void toy_fit_init(struct toy_fit *f, const double *truth,
			 cal_eval_fn eval)
{
	struct toy t = { { 1, 2, 4, 0.5, 1, 3 }, { 0, 20, 0, 40, 60, 10 }, -1 };

	memset(f, 0, sizeof(*f));
	f->t = t;
	for (int i = 0; i < 6; i++) {
		toy_eval(&f->t, truth, (size_t)i, &f->meas[i]);
		f->dep[i * 3 + 0] = 1;
		f->dep[i * 3 + 1] = f->t.b[i] > 0;
		f->dep[i * 3 + 2] = 0;
	}
	toy_params(f->p);
	f->pb.m = 6;
	f->pb.p = 3;
	f->pb.measured = f->meas;
	f->pb.sigma_log = 0.03;
	f->pb.param = f->p;
	f->pb.dep = f->dep;
	f->pb.eval = eval;
	f->pb.ctx = &f->t;
}

static void test_recovers_truth(void **state)
{
	double truth[3] = { 0.62, 0.025, 2.0 };
	struct toy_fit f;
	struct cal_param *p = f.p;
	const double *meas = f.meas;
	struct cal_result res;
	struct diag err;

	(void)state;
	toy_fit_init(&f, truth, toy_eval);
	diag_clear(&err);
	assert_int_equal(cal_fit(&f.pb, &res, &err), 0);
	/* exact measurements: the fit finds the truth, pulled a little
	   toward the priors, and the 80% ranges hold it */
	assert_true(fabs(p[0].value / truth[0] - 1.0) < 0.01);
	assert_true(fabs(p[1].value - truth[1]) < 0.001);
	assert_true(p[1].shrink < 0.2);
	assert_true(p[0].lo <= truth[0] && truth[0] <= p[0].hi);
	assert_true(p[1].lo <= truth[1] && truth[1] <= p[1].hi);
	assert_true(p[0].shrink < 0.2);
	/* the parameter no row reads stays at its prior, its range that of
	   the prior */
	assert_true(fabs(p[2].value - 2.0) < 1e-12);
	assert_true(p[2].shrink > 0.99);
	assert_int_equal(p[2].rows, 0);
	assert_int_equal(p[1].rows, 4);
	assert_true(res.rms0_log > 0.1);
	assert_true(res.rms_log < 0.01);
	for (int i = 0; i < 6; i++) {
		assert_true(fabs(res.pred[i] / meas[i] - 1.0) < 0.02);
		/* left out, a row is predicted at most a little worse */
		assert_true(fabs(res.loo[i] / meas[i] - 1.0) < 0.05);
	}
	cal_result_free(&res);
}

/*
 * A simulated prediction: the toy's, times a deterministic jitter of up
 * to 4% that any change of the parameters redraws (a simulation's
 * events reorder), as a served measurement's percentile does.
 */
static int noisy_eval(void *ctx, const double *theta, size_t i, double *pred)
{
	uint64_t h = 1469598103934665603u + i;
	unsigned char b[3 * sizeof(double)];

	memcpy(b, theta, sizeof(b));
	for (size_t k = 0; k < sizeof(b); k++)
		h = (h ^ b[k]) * 1099511628211u;
	if (toy_eval(ctx, theta, i, pred) != 0)
		return -1;
	*pred *= 1.0 + 0.04 * ((double)(h >> 11) / 9007199254740992.0 * 2.0 -
			       1.0);
	return 0;
}

/* Noisy rows (cal_problem.noisy) take their Jacobian over half a prior
   width, past the jitter: the fit finds the truth within it.  With steps
   of a twentieth of a width the jitter is the Jacobian, and the fit
   stopped at the priors. */
static void test_noisy_rows(void **state)
{
	double truth[3] = { 0.62, 0.025, 2.0 };
	unsigned char noisy[6] = { 1, 1, 1, 1, 1, 1 };
	struct toy_fit f;
	struct cal_result res;
	struct diag err;

	(void)state;
	toy_fit_init(&f, truth, noisy_eval);
	f.pb.noisy = noisy;
	diag_clear(&err);
	assert_int_equal(cal_fit(&f.pb, &res, &err), 0);
	assert_true(fabs(f.p[0].value / truth[0] - 1.0) < 0.05);
	assert_true(fabs(f.p[1].value - truth[1]) < 0.004);
	assert_true(res.rms_log < 0.4 * res.rms0_log);
	cal_result_free(&res);
}

/* One measurement cannot pin two parameters: the prior keeps them near
   their priors and the ranges stay wide. */
static void test_prior_holds(void **state)
{
	struct toy t = { { 1 }, { 2 }, -1 };
	double meas[1] = { 1.0 / 0.75 + 2 * 0.010 };
	struct cal_param p[3];
	struct cal_problem pb;
	struct cal_result res;
	struct diag err;

	(void)state;
	meas[0] *= 1.10; /* 10% slower than the priors say */
	toy_params(p);
	memset(&pb, 0, sizeof(pb));
	pb.m = 1;
	pb.p = 2;
	pb.measured = meas;
	pb.sigma_log = 0.03;
	pb.param = p;
	pb.eval = toy_eval;
	pb.ctx = &t;
	diag_clear(&err);
	assert_int_equal(cal_fit(&pb, &res, &err), 0);
	/* the measurement is met by the parameter it depends on most; the
	   host time, 1.5% of the prediction, stays at its prior */
	assert_true(fabs(res.pred[0] / meas[0] - 1.0) < 0.02);
	assert_true(p[0].value < 0.72 && p[0].value > 0.62);
	assert_true(fabs(p[1].value - 0.010) < 0.002);
	assert_true(p[1].shrink > 0.9);
	assert_true(p[0].shrink > 0.1);
	cal_result_free(&res);
}

static void test_fit_errors(void **state)
{
	struct toy t = { { 1, 2 }, { 0, 1 }, 1 };
	double meas[2] = { 1.3, 2.9 };
	struct cal_param p[3];
	struct cal_problem pb;
	struct cal_result res;
	struct diag err;

	(void)state;
	toy_params(p);
	memset(&pb, 0, sizeof(pb));
	pb.m = 2;
	pb.p = 2;
	pb.measured = meas;
	pb.sigma_log = 0.03;
	pb.param = p;
	pb.eval = toy_eval;
	pb.ctx = &t;
	diag_clear(&err);
	assert_int_equal(cal_fit(&pb, &res, &err), -1);
	assert_non_null(strstr(err.msg, "measurement 2 cannot be predicted"));
	assert_null(res.pred);
	pb.m = 0;
	diag_clear(&err);
	assert_int_equal(cal_fit(&pb, &res, &err), -1);
	assert_non_null(strstr(err.msg, "no measurement"));
}

static void test_measure(void **state)
{
	static const char ok[] =
		"# ours\n"
		"command,workload,gpu,gpus,set,metric,measured,note\n"
		"train,w.ini,H100-SXM,64,training.tp=2;training.pp=1,"
		"tokens_per_s_per_gpu,9800,first\n"
		"infer,/abs/s.ini,A100-SXM-80GB,,,ttft_p50_s,0.05,\n";
	struct measure_set s = { NULL, 0 };
	struct diag err;

	(void)state;
	diag_clear(&err);
	assert_int_equal(measure_parse(ok, strlen(ok), "dir/m.csv", &s, &err),
			 0);
	assert_int_equal(s.n, 2);
	/* relative to the file's folder; absolute as it is */
	assert_string_equal(s.rows[0].workload, "dir/w.ini");
	assert_string_equal(s.rows[1].workload, "/abs/s.ini");
	assert_int_equal(s.rows[0].command, MEASURE_TRAIN);
	assert_int_equal(s.rows[0].gpus, 64);
	assert_int_equal(s.rows[1].gpus, 0);
	assert_string_equal(s.rows[0].set, "training.tp=2;training.pp=1");
	assert_string_equal(s.rows[0].metric, "tokens_per_s_per_gpu");
	assert_true(s.rows[0].measured == 9800.0);
	assert_int_equal(s.rows[0].line, 3);
	assert_int_equal(s.rows[1].line, 4);
	measure_release(&s);

	diag_clear(&err);
	assert_int_equal(measure_parse("command,workload,gpu\n", 21, "m.csv",
				       &s, &err), -1);
	assert_non_null(strstr(err.msg, "lacks column 'gpus'"));
	{
		static const char bad[] =
			"command,workload,gpu,gpus,set,metric,measured\n"
			"serve,w.ini,H100-SXM,,,x,1\n";

		diag_clear(&err);
		assert_int_equal(measure_parse(bad, strlen(bad), "m.csv", &s,
					       &err), -1);
		assert_int_equal(err.line, 2);
		assert_int_equal(err.col, 1);
		assert_non_null(strstr(err.msg, "train or infer"));
	}
	{
		static const char bad[] =
			"command,workload,gpu,gpus,set,metric,measured\n"
			"train,w.ini,H100-SXM,,,x,-3\n";

		diag_clear(&err);
		assert_int_equal(measure_parse(bad, strlen(bad), "m.csv", &s,
					       &err), -1);
		assert_int_equal(err.col, 26);
		assert_non_null(strstr(err.msg, "positive number"));
	}
	assert_int_equal(s.n, 0);
	measure_release(&s);
}

static void test_profile(void **state)
{
	struct profile p, q, r;
	struct workload wl;
	struct gpu_spec g;
	struct diag err;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	memset(&p, 0, sizeof(p));
	p.measurements = 12;
	p.sigma_log = 0.04;
	snprintf(p.from, sizeof(p.from), "m.csv");
	p.ndev = 1;
	snprintf(p.dev[0].gpu, sizeof(p.dev[0].gpu), "H100-SXM");
	p.dev[0].matmul_eff = 0.66;
	p.dev[0].mem_eff = 0; /* not determined: not written */
	p.dev[0].fp8_matmul_eff = 0.58;
	p.dev[0].intra_comm_eff = 0.61;
	p.dev[0].inter_comm_eff = 0.72;
	p.neng = 1;
	snprintf(p.eng[0].name, sizeof(p.eng[0].name), "vllm");
	snprintf(p.eng[0].version, sizeof(p.eng[0].version), "0.11.0");
	p.eng[0].has_request = true;
	p.eng[0].host_request_s = 0.021;
	p.eng[0].has_framework_oh = true;
	p.eng[0].framework_overhead_s = 4e-4;
	snprintf(p.eng[0].devices, sizeof(p.eng[0].devices), "H100-SXM");
	/* a framework of the same name as an engine is its own section */
	p.neng = 2;
	p.eng[1].framework = true;
	snprintf(p.eng[1].name, sizeof(p.eng[1].name), "vllm");
	snprintf(p.eng[1].version, sizeof(p.eng[1].version), "0.11.0");
	p.eng[1].has_production = true;
	p.eng[1].production_efficiency = 0.62;
	p.nband = 1;
	snprintf(p.band[0].cls, sizeof(p.band[0].cls), "ttft");
	p.band[0].sigma_log = 0.07;
	p.band[0].rows = 2;
	snprintf(p.band[0].devices, sizeof(p.band[0].devices), "H100-SXM");
	snprintf(p.band[0].stacks, sizeof(p.band[0].stacks), "vllm@0.11.0");
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(profile_write(f, &p, "# a comment\n"), 0);
	fclose(f);
	diag_clear(&err);
	assert_int_equal(profile_parse(text, len, "p.ini", &q, &err), 0);
	free(text);
	assert_int_equal(q.measurements, 12);
	assert_int_equal(q.ndev, 1);
	assert_true(fabs(q.dev[0].matmul_eff - 0.66) < 1e-12);
	assert_true(q.dev[0].mem_eff == 0.0);
	assert_true(fabs(q.dev[0].fp8_matmul_eff - 0.58) < 1e-12);
	assert_true(fabs(q.dev[0].intra_comm_eff - 0.61) < 1e-12);
	assert_true(fabs(q.dev[0].inter_comm_eff - 0.72) < 1e-12);
	assert_int_equal(q.neng, 2);
	assert_true(!q.eng[0].framework && q.eng[1].framework);
	assert_true(q.eng[1].has_production && !q.eng[1].has_request);
	assert_true(fabs(q.eng[1].production_efficiency - 0.62) < 1e-12);
	assert_true(q.eng[0].has_request && !q.eng[0].has_kernel);
	assert_true(fabs(q.eng[0].host_request_s - 0.021) < 1e-12);
	assert_true(q.eng[0].has_framework_oh && !q.eng[0].has_launch_oh);
	assert_true(fabs(q.eng[0].framework_overhead_s - 4e-4) < 1e-15);
	assert_int_equal(q.nband, 1);
	assert_non_null(profile_band(&q, "ttft"));
	assert_null(profile_band(&q, "tpot"));
	assert_true(fabs(profile_band(&q, "ttft")->sigma_log - 0.07) < 1e-12);
	assert_int_equal(profile_band(&q, "ttft")->rows, 2);
	assert_string_equal(profile_band(&q, "ttft")->stacks, "vllm@0.11.0");
	/* every class of estimate is a section the reader takes, by the
	   name interval.h gives it */
	for (int c = 0; c < INTERVAL_COUNT; c++) {
		char sec[96];

		snprintf(sec, sizeof(sec), "[interval %s]\nsigma_log = 0.1\n",
			 interval_class_name((enum interval_class)c));
		diag_clear(&err);
		assert_int_equal(profile_parse(sec, strlen(sec), "p.ini", &r,
					       &err), 0);
		assert_int_equal(interval_class_of_name(r.band[0].cls), c);
	}
	diag_clear(&err);
	assert_int_equal(profile_parse("[interval speed]\nsigma_log = 1\n", 31,
				       "p.ini", &r, &err), -1);
	assert_non_null(strstr(err.msg, "[interval CLASS]"));

	/* a device's values replace its row's; others stay */
	memset(&g, 0, sizeof(g));
	snprintf(g.name, sizeof(g.name), "h100-sxm");
	g.matmul_eff = 0.75;
	g.mem_eff = 0.9;
	assert_true(profile_apply_device(&q, &g));
	assert_true(fabs(g.matmul_eff - 0.66) < 1e-12 && g.mem_eff == 0.9);
	assert_true(fabs(g.fp8_matmul_eff - 0.58) < 1e-12);
	assert_true(fabs(g.intra_comm_eff - 0.61) < 1e-12);
	assert_true(fabs(g.inter_comm_eff - 0.72) < 1e-12);
	/* an engine's apply to its engine and version, under given keys */
	workload_init(&wl);
	assert_null(profile_apply_engine(&q, &wl));
	snprintf(wl.inference.engine, sizeof(wl.inference.engine), "vllm");
	snprintf(wl.inference.engine_version,
		 sizeof(wl.inference.engine_version), "0.11.0");
	assert_non_null(profile_apply_engine(&q, &wl));
	assert_true(fabs(wl.inference.host_request_s - 0.021) < 1e-12);
	/* a transformer takes no per-sample host time; a recommender does */
	assert_true(fabs(wl.inference.framework_overhead_s -
			 WL_FRAMEWORK_OVERHEAD_S) < 1e-15 ||
		    wl.inference.framework_overhead_s == 0.0);
	wl.model.kind = MODEL_RECSYS;
	profile_apply_engine(&q, &wl);
	assert_true(fabs(wl.inference.framework_overhead_s - 4e-4) < 1e-15);
	workload_init(&wl);
	assert_int_equal(workload_set(&wl, "inference.host_request_overhead=3ms",
				      &err), 0);
	snprintf(wl.inference.engine, sizeof(wl.inference.engine), "vllm");
	snprintf(wl.inference.engine_version,
		 sizeof(wl.inference.engine_version), "0.11.0");
	profile_apply_engine(&q, &wl);
	assert_true(fabs(wl.inference.host_request_s - 0.003) < 1e-12);
	/* a framework's production efficiency applies to its framework and
	   version only, and never where the workload gives one */
	workload_init(&wl);
	assert_null(profile_apply_framework(&q, &wl));
	assert_true(fabs(wl.training.production_efficiency -
			 WL_PRODUCTION_EFFICIENCY) < 1e-12);
	snprintf(wl.training.framework, sizeof(wl.training.framework), "vllm");
	snprintf(wl.training.framework_version,
		 sizeof(wl.training.framework_version), "0.11.0");
	assert_true(profile_apply_framework(&q, &wl) == &q.eng[1]);
	assert_true(fabs(wl.training.production_efficiency - 0.62) < 1e-12);
	assert_int_equal(workload_set(&wl, "training.production_efficiency=0.7",
				      &err), 0);
	profile_apply_framework(&q, &wl);
	assert_true(fabs(wl.training.production_efficiency - 0.7) < 1e-12);
	/* an unknown key of a framework is an error that names the two */
	diag_clear(&err);
	assert_int_equal(profile_parse("[framework megatron@0.14.0]\n"
				       "kernel_overhead = 1us\n", 50, "p.ini",
				       &r, &err), -1);
	assert_non_null(strstr(err.msg, "production_efficiency or devices"));

	/* errors with the line */
	diag_clear(&err);
	assert_int_equal(profile_parse("[fit]\nmeasurements = 3\n[device X]\n"
				       "matmul_eff = 1.5\n", 47, "p.ini", &q,
				       &err), -1);
	assert_int_equal(err.line, 4);
	assert_non_null(strstr(err.msg, "efficiency"));
	diag_clear(&err);
	assert_int_equal(profile_parse("[engine vllm]\nkernel_overhead = 1us\n",
				       36, "p.ini", &q, &err), -1);
	assert_non_null(strstr(err.msg, "NAME@VERSION"));
	diag_clear(&err);
	assert_int_equal(profile_parse("[nope]\nx = 1\n", 13, "p.ini", &q,
				       &err), -1);
	assert_non_null(strstr(err.msg, "unknown section [nope]"));

	/* a list longer than a line of the file is written over several
	   lines of its key and read back whole */
	memset(&r, 0, sizeof(r));
	r.neng = 1;
	snprintf(r.eng[0].name, sizeof(r.eng[0].name), "vllm");
	snprintf(r.eng[0].version, sizeof(r.eng[0].version), "0.11.0");
	for (int i = 0; i < 14; i++) {
		size_t n = strlen(r.eng[0].devices);

		snprintf(r.eng[0].devices + n, sizeof(r.eng[0].devices) - n,
			 "%sDEVICE-NUMBER-%02d", i ? "," : "", i);
	}
	assert_true(strlen(r.eng[0].devices) > 200);
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(profile_write(f, &r, NULL), 0);
	fclose(f);
	diag_clear(&err);
	assert_int_equal(profile_parse(text, len, "long.ini", &q, &err), 0);
	free(text);
	text = NULL;
	assert_string_equal(q.eng[0].devices, r.eng[0].devices);
}

/* vLLM's --save-result JSON (and SGLang's bench_serving): the load
   becomes the set, each result a measurement. */
static void test_benchlog(void **state)
{
	static const char poisson[] =
		"{\"backend\": \"vllm\", \"num_prompts\": 1000, "
		"\"request_rate\": 4.0, \"burstiness\": 1.0, "
		"\"max_concurrency\": null, \"completed\": 998, "
		"\"total_input_tokens\": 232867, \"total_output_tokens\": "
		"220450, \"request_throughput\": 3.9, \"output_throughput\": "
		"861.2, \"mean_ttft_ms\": 61.5, \"median_ttft_ms\": 60.4, "
		"\"p99_ttft_ms\": 130.0, \"mean_tpot_ms\": 7.4, "
		"\"median_tpot_ms\": 7.22, \"ttfts\": [0.06, 0.05]}";
	static const char closed[] =
		"{\"num_prompts\": 100, \"request_rate\": \"inf\", "
		"\"max_concurrency\": 16, \"completed\": 100, "
		"\"total_input_tokens\": 99744, \"total_output_tokens\": "
		"100000, \"median_tpot_ms\": 12.5}";
	struct measure_set s = { NULL, 0 };
	struct diag err;

	(void)state;
	diag_clear(&err);
	assert_int_equal(benchlog_vllm_parse(poisson, strlen(poisson), "r.json",
					     "w.ini", "H100-SXM", &s, &err),
			 0);
	assert_int_equal(s.n, 6);
	assert_string_equal(s.rows[0].metric, "ttft_p50_s");
	assert_true(fabs(s.rows[0].measured - 0.0604) < 1e-12);
	assert_string_equal(s.rows[4].metric, "request_throughput_per_s");
	assert_true(s.rows[4].measured == 3.9);
	assert_int_equal(s.rows[0].command, MEASURE_INFER);
	assert_string_equal(s.rows[0].workload, "w.ini");
	assert_string_equal(s.rows[0].gpu, "H100-SXM");
	/* the mean lengths of the completed requests */
	assert_string_equal(s.rows[0].set,
			    "inference.arrival=poisson;inference.qps=4;"
			    "inference.requests=1000;"
			    "inference.prompt_tokens=233;"
			    "inference.output_tokens=221");
	diag_clear(&err);
	assert_int_equal(benchlog_vllm_parse(closed, strlen(closed), "c.json",
					     "w.ini", "H100-SXM", &s, &err),
			 0);
	assert_int_equal(s.n, 7);
	assert_string_equal(s.rows[6].set,
			    "inference.arrival=closed;inference.qps=0;inference.concurrency=16;"
			    "inference.requests=100;"
			    "inference.prompt_tokens=997;"
			    "inference.output_tokens=1000");
	/* errors leave the set as it was */
	diag_clear(&err);
	assert_int_equal(benchlog_vllm_parse("[1]", 3, "x.json", "w.ini",
					     "H100-SXM", &s, &err), -1);
	assert_non_null(strstr(err.msg, "expected a JSON object"));
	diag_clear(&err);
	assert_int_equal(benchlog_vllm_parse("{\"completed\": 3}", 16,
					     "x.json", "w.ini", "H100-SXM",
					     &s, &err), -1);
	assert_non_null(strstr(err.msg, "total_input_tokens"));
	{
		static const char both[] =
			"{\"request_rate\": 4, \"max_concurrency\": 8, "
			"\"completed\": 10, \"total_input_tokens\": 100, "
			"\"total_output_tokens\": 100, \"median_ttft_ms\": 5}";
		static const char bursty[] =
			"{\"request_rate\": 4, \"burstiness\": 0.5, "
			"\"completed\": 10, \"total_input_tokens\": 100, "
			"\"total_output_tokens\": 100, \"median_ttft_ms\": 5}";

		diag_clear(&err);
		assert_int_equal(benchlog_vllm_parse(both, strlen(both), "b.json",
						     "w.ini", "H100-SXM", &s,
						     &err), -1);
		assert_non_null(strstr(err.msg, "not both"));
		diag_clear(&err);
		assert_int_equal(benchlog_vllm_parse(bursty, strlen(bursty),
						     "b.json", "w.ini",
						     "H100-SXM", &s, &err),
				 -1);
		assert_non_null(strstr(err.msg, "burstiness"));
	}
	assert_int_equal(s.n, 7);
	measure_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recovers_truth),
		cmocka_unit_test(test_noisy_rows),
		cmocka_unit_test(test_prior_holds),
		cmocka_unit_test(test_fit_errors),
		cmocka_unit_test(test_measure),
		cmocka_unit_test(test_profile),
		cmocka_unit_test(test_benchlog),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
