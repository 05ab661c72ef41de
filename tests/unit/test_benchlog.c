/* test_benchlog.c - benchmark results and training logs as measurements
   (benchlog.c, benchlog_train.c): SGLang's JSONL, genai-perf's and
   AIPerf's exports, Megatron-LM's and torchtitan's logs, and the
   dispatcher; cmocka.  The inputs are made by hand from the formats in
   the tools' sources (specs/calibration.md names them), with made-up
   numbers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchlog.h"
#include "measure.h"

typedef int (*reader)(const char *buf, size_t len, const char *name,
		      const char *workload, const char *gpu,
		      struct measure_set *s, struct diag *err);

static int run(reader r, const char *text, const char *name,
	       struct measure_set *s, struct diag *err)
{
	diag_clear(err);
	return r(text, strlen(text), name, "w.ini", "H100-SXM", s, err);
}

/* Reading 'text' fails with 'msg' in the message, at 'name':'line', and
   leaves 's' as it was. */
static void expect_error(reader r, const char *text, const char *name,
			 int line, const char *msg, struct measure_set *s)
{
	size_t n = s->n;
	struct diag err;

	assert_int_equal(run(r, text, name, s, &err), -1);
	if (!strstr(err.msg, msg))
		fail_msg("'%s' is not in '%s'", msg, err.msg);
	assert_string_equal(err.file, name);
	assert_int_equal(err.line, line);
	assert_int_equal(s->n, n);
}

static void assert_close(double got, double want)
{
	if (!(fabs(got - want) <= 1e-12 * fabs(want)))
		fail_msg("got %.17g, expected %.17g", got, want);
}

/* The row of 's' from 'from' on with 'metric', or fail. */
static const struct measurement *row(const struct measure_set *s,
				     size_t from, const char *metric)
{
	for (size_t i = from; i < s->n; i++)
		if (strcmp(s->rows[i].metric, metric) == 0)
			return &s->rows[i];
	fail_msg("no measurement of '%s'", metric);
	return NULL;
}

/* SGLang's bench_serving appends one result per line; an unlimited rate
   is Python's bare Infinity, and there is no num_prompts. */
static void test_sglang_jsonl(void **state)
{
	static const char jsonl[] =
		"{\"backend\": \"sglang\", \"dataset_name\": \"random\", "
		"\"request_rate\": Infinity, \"max_concurrency\": 32, "
		"\"duration\": 61.7, \"completed\": 480, "
		"\"total_input_tokens\": 491712, \"total_output_tokens\": "
		"122938, \"request_throughput\": 7.7796, "
		"\"output_throughput\": 1992.5, \"mean_ttft_ms\": 187.31, "
		"\"median_ttft_ms\": 171.09, "
		"\"mean_tpot_ms\": 14.873, \"median_tpot_ms\": 14.61, "
		"\"concurrency\": 31.2, \"accept_length\": null}\n"
		"\n"
		"{\"backend\": \"sglang\", \"request_rate\": 8.5, "
		"\"max_concurrency\": null, \"completed\": 999, "
		"\"total_input_tokens\": 1022976, \"total_output_tokens\": "
		"255744, \"median_ttft_ms\": 95.123, \"std_ttft_ms\": NaN}\n";
	struct measure_set s = { NULL, 0 };
	struct diag err;

	(void)state;
	assert_int_equal(run(benchlog_sglang_jsonl_parse, jsonl, "r.jsonl",
			     &s, &err), 0);
	assert_int_equal(s.n, 7);
	assert_int_equal(s.rows[0].command, MEASURE_INFER);
	assert_string_equal(s.rows[0].file, "r.jsonl");
	assert_int_equal(s.rows[0].line, 1);
	assert_string_equal(s.rows[0].set,
			    "inference.arrival=closed;inference.qps=0;inference.concurrency=32;"
			    "inference.requests=480;"
			    "inference.prompt_tokens=1024;"
			    "inference.output_tokens=256");
	assert_close(row(&s, 0, "ttft_p50_s")->measured, 0.17109);
	assert_close(row(&s, 0, "tpot_mean_s")->measured, 0.014873);
	assert_close(row(&s, 0, "output_tokens_per_s")->measured, 1992.5);
	/* the second object, on line 3: a Poisson rate */
	assert_int_equal(s.rows[6].line, 3);
	assert_string_equal(s.rows[6].metric, "ttft_p50_s");
	assert_close(s.rows[6].measured, 0.095123);
	assert_string_equal(s.rows[6].set,
			    "inference.arrival=poisson;inference.qps=8.5;"
			    "inference.requests=999;"
			    "inference.prompt_tokens=1024;"
			    "inference.output_tokens=256");
	/* the dispatcher sees several lines of JSON */
	assert_int_equal(run(benchlog_parse, jsonl, "r.jsonl", &s, &err), 0);
	assert_int_equal(s.n, 14);
	assert_int_equal(s.rows[13].line, 3);
	/* one line of it is a vLLM-style object: Infinity is a burst */
	{
		static const char one[] =
			"{\"request_rate\": Infinity, "
			"\"max_concurrency\": null, \"completed\": 10, "
			"\"total_input_tokens\": 2000, "
			"\"total_output_tokens\": 300, \"mean_ttft_ms\": 12.5}";

		assert_int_equal(run(benchlog_vllm_parse, one, "o.json", &s,
				     &err), 0);
		assert_int_equal(s.n, 15);
		assert_string_equal(s.rows[14].set,
				    "inference.arrival=burst;inference.qps=0;"
				    "inference.requests=10;"
				    "inference.prompt_tokens=200;"
				    "inference.output_tokens=30");
		assert_int_equal(run(benchlog_parse, one, "o.json", &s, &err),
				 0);
		assert_int_equal(s.n, 16);
	}
	/* errors name the line, and leave the set as it was */
	expect_error(benchlog_sglang_jsonl_parse,
		     "{\"completed\": 1, \"total_input_tokens\": 5, "
		     "\"total_output_tokens\": 5, \"median_ttft_ms\": 3}\n"
		     "{\"completed\": 2,\n", "r.jsonl", 2,
		     "expected one JSON object on each line", &s);
	expect_error(benchlog_sglang_jsonl_parse,
		     "{\"completed\": 1, \"total_input_tokens\": 5, "
		     "\"total_output_tokens\": 5, \"median_ttft_ms\": 3}\n"
		     "\n{\"completed\": 2}\n", "r.jsonl", 3,
		     "total_input_tokens", &s);
	expect_error(benchlog_sglang_jsonl_parse, "{} {}\n", "r.jsonl", 1,
		     "expected one JSON object on each line", &s);
	expect_error(benchlog_sglang_jsonl_parse, "\n  \n", "r.jsonl", 0,
		     "got none", &s);
	expect_error(benchlog_vllm_parse, "{\"completed\": 1}\n{}\n",
		     "o.json", 0, "found more text after it", &s);
	/* the message is printed as file:line: message */
	{
		static const char bad[] =
			"{\"completed\": 1, \"total_input_tokens\": 5, "
			"\"total_output_tokens\": 5, \"median_ttft_ms\": 3}\n"
			"nope\n";
		char *text = NULL;
		size_t len = 0;
		FILE *f;

		diag_clear(&err);
		assert_int_equal(benchlog_parse(bad, strlen(bad), "r.jsonl",
						"w.ini", "H100-SXM", &s, &err),
				 -1);
		f = open_memstream(&text, &len);
		assert_non_null(f);
		diag_print(f, &err);
		fclose(f);
		assert_non_null(strstr(text, "r.jsonl:2: expected one JSON "
					     "object on each line"));
		assert_non_null(strstr(text, "got 'nope'"));
		free(text);
	}
	assert_int_equal(s.n, 16);
	measure_release(&s);
}

/* genai-perf (config-file versions: perf_analyzer.stimulus) */
static const char genai_perf[] =
	"{\n"
	"  \"request_throughput\": {\"unit\": \"requests/sec\", "
	"\"avg\": 3.8145},\n"
	"  \"request_latency\": {\"unit\": \"ms\", \"avg\": 4123.4, "
	"\"p50\": 4001.2},\n"
	"  \"request_count\": {\"unit\": \"count\", \"avg\": 100},\n"
	"  \"time_to_first_token\": {\"unit\": \"ms\", \"avg\": 123.456, "
	"\"p1\": 80.1, \"p50\": 117.89, \"p90\": 170.2, \"min\": 70.3, "
	"\"max\": 201.9, \"std\": 21.4},\n"
	"  \"inter_token_latency\": {\"unit\": \"ms\", \"avg\": 15.234, "
	"\"p50\": 14.987},\n"
	"  \"output_token_throughput\": {\"unit\": \"tokens/sec\", "
	"\"avg\": 975.3},\n"
	"  \"input_sequence_length\": {\"unit\": \"tokens\", "
	"\"avg\": 550.4, \"p50\": 550},\n"
	"  \"output_sequence_length\": {\"unit\": \"tokens\", "
	"\"avg\": 255.6},\n"
	"  \"telemetry_stats\": {\"gpu_power_usage\": {\"unit\": \"W\", "
	"\"gpu0\": {\"avg\": 622.5}}},\n"
	"  \"input_config\": {\"model_names\": [\"m\"], "
	"\"perf_analyzer\": {\"path\": \"perf_analyzer\", "
	"\"stimulus\": {\"concurrency\": 16}}, \"input\": "
	"{\"batch_size\": 1}}\n"
	"}\n";

/* AIPerf: loadgen, its units, request_count in requests */
static const char aiperf[] =
	"{\"request_throughput\": {\"unit\": \"requests/sec\", "
	"\"avg\": 12.125},\n"
	" \"request_count\": {\"unit\": \"requests\", \"avg\": 640.0},\n"
	" \"time_to_first_token\": {\"unit\": \"ns\", \"avg\": 45678901.0, "
	"\"p50\": 44012345.0},\n"
	" \"inter_token_latency\": {\"unit\": \"us\", \"avg\": 8765.4, "
	"\"p50\": 8701.3},\n"
	" \"output_token_throughput\": {\"unit\": \"tokens/sec\", "
	"\"avg\": 2071.9},\n"
	" \"input_sequence_length\": {\"unit\": \"tokens\", \"avg\": 3000.0},\n"
	" \"output_sequence_length\": {\"unit\": \"tokens\", "
	"\"avg\": 170.88},\n"
	" \"input_config\": {\"endpoint\": {\"model_names\": [\"m\"]}, "
	"\"loadgen\": {\"request_rate\": 12.5, \"request_rate_mode\": "
	"\"poisson\", \"request_count\": 640}},\n"
	" \"was_cancelled\": false}";

static void test_genai_perf(void **state)
{
	/* genai-perf before its config file: the options at the top */
	static const char old[] =
		"{\"time_to_first_token\": {\"unit\": \"ms\", \"avg\": 61.25},"
		" \"input_sequence_length\": {\"unit\": \"tokens\", \"avg\": "
		"128}, \"output_sequence_length\": {\"unit\": \"tokens\", "
		"\"avg\": 64}, \"input_config\": {\"concurrency\": null, "
		"\"request_rate\": 2.75, \"streaming\": true}}";
	static const char burst[] =
		"{\"time_to_first_token\": {\"unit\": \"sec\", \"avg\": 0.5},"
		" \"input_sequence_length\": {\"unit\": \"tokens\", \"avg\": "
		"10}, \"output_sequence_length\": {\"unit\": \"tokens\", "
		"\"avg\": 10}, \"input_config\": {\"loadgen\": "
		"{\"concurrency\": 4, \"request_rate_mode\": "
		"\"concurrency_burst\"}}}";
	struct measure_set s = { NULL, 0 };
	struct diag err;

	(void)state;
	assert_int_equal(run(benchlog_genai_perf_parse, genai_perf,
			     "profile_export_genai_perf.json", &s, &err), 0);
	assert_int_equal(s.n, 6);
	assert_int_equal(s.rows[0].command, MEASURE_INFER);
	assert_string_equal(s.rows[0].set,
			    "inference.arrival=closed;inference.qps=0;inference.concurrency=16;"
			    "inference.requests=100;"
			    "inference.prompt_tokens=550;"
			    "inference.output_tokens=256");
	assert_close(row(&s, 0, "ttft_mean_s")->measured, 0.123456);
	assert_close(row(&s, 0, "ttft_p50_s")->measured, 0.11789);
	assert_close(row(&s, 0, "tpot_mean_s")->measured, 0.015234);
	assert_close(row(&s, 0, "tpot_p50_s")->measured, 0.014987);
	assert_close(row(&s, 0, "request_throughput_per_s")->measured,
		     3.8145);
	assert_close(row(&s, 0, "output_tokens_per_s")->measured, 975.3);
	/* AIPerf: ns and us, a Poisson rate */
	assert_int_equal(run(benchlog_genai_perf_parse, aiperf,
			     "profile_export_aiperf.json", &s, &err), 0);
	assert_int_equal(s.n, 12);
	assert_string_equal(s.rows[6].set,
			    "inference.arrival=poisson;inference.qps=12.5;"
			    "inference.requests=640;"
			    "inference.prompt_tokens=3000;"
			    "inference.output_tokens=171");
	assert_close(row(&s, 6, "ttft_mean_s")->measured, 0.045678901);
	assert_close(row(&s, 6, "ttft_p50_s")->measured, 0.044012345);
	assert_close(row(&s, 6, "tpot_mean_s")->measured, 0.0087654);
	assert_close(row(&s, 6, "request_throughput_per_s")->measured,
		     12.125);
	/* older genai-perf; and no request_count: the workload's requests */
	assert_int_equal(run(benchlog_genai_perf_parse, old, "g.json", &s,
			     &err), 0);
	assert_int_equal(s.n, 13);
	assert_string_equal(s.rows[12].metric, "ttft_mean_s");
	assert_close(s.rows[12].measured, 0.06125);
	assert_string_equal(s.rows[12].set,
			    "inference.arrival=poisson;inference.qps=2.75;"
			    "inference.prompt_tokens=128;"
			    "inference.output_tokens=64");
	assert_int_equal(run(benchlog_genai_perf_parse, burst, "g.json", &s,
			     &err), 0);
	assert_int_equal(s.n, 14);
	assert_close(s.rows[13].measured, 0.5);
	assert_string_equal(s.rows[13].set,
			    "inference.arrival=closed;inference.qps=0;inference.concurrency=4;"
			    "inference.prompt_tokens=10;"
			    "inference.output_tokens=10");
	/* the dispatcher tells the exports from vLLM's result */
	assert_int_equal(run(benchlog_parse, genai_perf, "a.json", &s, &err),
			 0);
	assert_int_equal(run(benchlog_parse, aiperf, "b.json", &s, &err), 0);
	assert_int_equal(s.n, 26);
	measure_release(&s);
}

/* A genai-perf-like export with 'ttft' as the time_to_first_token
   metric and 'load' as input_config's contents. */
static const char *export_with(char *buf, size_t n, const char *ttft,
			       const char *load, const char *extra)
{
	snprintf(buf, n,
		 "{\"time_to_first_token\": %s, \"input_sequence_length\": "
		 "{\"unit\": \"tokens\", \"avg\": 100}, "
		 "\"output_sequence_length\": {\"unit\": \"tokens\", \"avg\": "
		 "50}, \"input_config\": {%s}%s}",
		 ttft, load, extra);
	return buf;
}

static void test_genai_perf_errors(void **state)
{
	static const char ok_ttft[] = "{\"unit\": \"ms\", \"avg\": 20}";
	static const char conc[] = "\"perf_analyzer\": {\"stimulus\": "
				   "{\"concurrency\": 2}}";
	struct measure_set s = { NULL, 0 };
	struct diag err;
	char b[1024];

	(void)state;
	assert_int_equal(run(benchlog_genai_perf_parse,
			     export_with(b, sizeof(b), ok_ttft, conc, ""),
			     "e.json", &s, &err), 0);
	assert_int_equal(s.n, 1);
	expect_error(benchlog_genai_perf_parse,
		     export_with(b, sizeof(b),
				 "{\"unit\": \"min\", \"avg\": 2}", conc, ""),
		     "e.json", 0,
		     "'time_to_first_token' has the unit 'min': expected ns, "
		     "us, ms, s or sec", &s);
	expect_error(benchlog_genai_perf_parse,
		     export_with(b, sizeof(b), "{\"avg\": 2}", conc, ""),
		     "e.json", 0, "has the unit '(none)'", &s);
	expect_error(benchlog_genai_perf_parse,
		     export_with(b, sizeof(b), "12.5", conc, ""), "e.json", 0,
		     "'time_to_first_token' must be a metric object", &s);
	expect_error(benchlog_genai_perf_parse,
		     export_with(b, sizeof(b), ok_ttft, "\"loadgen\": "
				 "{\"request_count\": 10}", ""),
		     "e.json", 0,
		     "no load in 'input_config.loadgen': expected a "
		     "'concurrency'", &s);
	expect_error(benchlog_genai_perf_parse,
		     export_with(b, sizeof(b), ok_ttft, "\"model_names\": []",
				 ""),
		     "e.json", 0,
		     "no load found: expected 'input_config.loadgen'", &s);
	expect_error(benchlog_genai_perf_parse,
		     export_with(b, sizeof(b), ok_ttft, "\"loadgen\": "
				 "{\"concurrency\": 8, \"request_rate\": 4}",
				 ""),
		     "e.json", 0, "not both", &s);
	expect_error(benchlog_genai_perf_parse,
		     export_with(b, sizeof(b), ok_ttft, "\"loadgen\": "
				 "{\"request_rate\": 4, \"request_rate_mode\": "
				 "\"constant\"}", ""),
		     "e.json", 0,
		     "'input_config.loadgen.request_rate_mode' is 'constant'",
		     &s);
	expect_error(benchlog_genai_perf_parse,
		     export_with(b, sizeof(b), ok_ttft, "\"loadgen\": "
				 "{\"concurrency\": 0.5}", ""),
		     "e.json", 0, "'input_config.loadgen.concurrency' must be",
		     &s);
	expect_error(benchlog_genai_perf_parse,
		     export_with(b, sizeof(b), ok_ttft, "\"perf_analyzer\": "
				 "{\"stimulus\": {\"fixed_schedule\": true}}",
				 ""),
		     "e.json", 0,
		     "'input_config.perf_analyzer.stimulus' is "
		     "'fixed_schedule'", &s);
	expect_error(benchlog_genai_perf_parse,
		     export_with(b, sizeof(b), ok_ttft, conc,
				 ", \"was_cancelled\": true"),
		     "e.json", 0, "'was_cancelled' is true", &s);
	expect_error(benchlog_genai_perf_parse,
		     export_with(b, sizeof(b), "{\"unit\": \"ms\", \"p99\": 2}",
				 conc, ""),
		     "e.json", 0, "no result to calibrate on", &s);
	expect_error(benchlog_genai_perf_parse,
		     "{\"time_to_first_token\": {\"unit\": \"ms\", \"avg\": 1},"
		     " \"input_config\": {}}",
		     "e.json", 0, "expected 'input_sequence_length' and "
		     "'output_sequence_length'", &s);
	expect_error(benchlog_genai_perf_parse,
		     "{\"time_to_first_token\": {\"unit\": \"ms\", \"avg\": 1},"
		     " \"input_sequence_length\": {\"unit\": \"tokens\", "
		     "\"avg\": 3}, \"output_sequence_length\": {\"unit\": "
		     "\"tokens\", \"avg\": 3}}",
		     "e.json", 0, "expected 'input_config'", &s);
	expect_error(benchlog_genai_perf_parse, "[1, 2]", "e.json", 0,
		     "expected one JSON object: genai-perf's", &s);
	assert_int_equal(s.n, 1);
	measure_release(&s);
}

/* Megatron-LM's training_log line, as megatron/training/training.py
   formats it. */
#define MG(it, ms, tflops, gbs)                                              \
	" [2026-01-16 10:00:00.123456] iteration " it "/    5000 | "      \
	"consumed samples:        51200 | elapsed time per iteration (ms): " \
	ms " | throughput per GPU (TFLOP/s/GPU): " tflops " | learning "    \
	"rate: 2.999876E-04 | global batch size: " gbs " | lm loss: "       \
	"5.123456E+00 | loss scale: 1.0 | grad norm: 0.876 | number of "     \
	"skipped iterations:   0 | number of nan iterations:   0 |\n"

static void test_megatron(void **state)
{
	/* since 2026 the first iteration is logged on its own, and the
	   next line's interval holds it too: both are dropped */
	static const char log[] =
		"using world size: 64, data-parallel size: 8\n"
		"[after dataloaders are built] datetime: 2026-01-16\n"
		MG("       1", "9012.7", "55.3", "  512")
		MG("      10", "2104.2", "236.9", "  512")
		MG("      20", "1234.5", "401.2", "  512")
		" validation loss at iteration 20 | lm loss value: 5.1E+00 |\n"
		MG("      30", "1250.3", "398.7", "  512")
		MG("      40", "1228.9", "405.5", "  512");
	/* before: the first logged line is the first interval; no
	   throughput, no batch size; an even count of lines kept */
	static const char before[] =
		" iteration      100/  500000 | consumed samples:  51200 | "
		"elapsed time per iteration (ms): 3000.0 | learning rate: "
		"3.0E-04 | lm loss: 5.1E+00 |\n"
		" iteration      200/  500000 | elapsed time per iteration "
		"(ms): 1000.0 |\n"
		" iteration      300/  500000 | elapsed time per iteration "
		"(ms): 1030.0 |\n"
		" iteration      400/  500000 | elapsed time per iteration "
		"(ms): 1010.0 |\n"
		" iteration      500/  500000 | elapsed time per iteration "
		"(ms): 1020.0 |\n";
	struct measure_set s = { NULL, 0 };
	struct diag err;

	(void)state;
	assert_int_equal(run(benchlog_megatron_parse, log, "train.log", &s,
			     &err), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.rows[0].command, MEASURE_TRAIN);
	assert_string_equal(s.rows[0].metric, "step_time_s");
	assert_close(s.rows[0].measured, 1.2345);
	assert_string_equal(s.rows[1].metric, "model_tflops_per_gpu");
	assert_close(s.rows[1].measured, 401.2);
	assert_string_equal(s.rows[0].set, "training.global_batch=512");
	assert_string_equal(s.rows[0].workload, "w.ini");
	assert_string_equal(s.rows[0].gpu, "H100-SXM");
	assert_int_equal(s.rows[0].gpus, 0);
	assert_int_equal(s.rows[0].line, 5); /* the first line kept */
	assert_int_equal(run(benchlog_megatron_parse, before, "old.log", &s,
			     &err), 0);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.rows[2].metric, "step_time_s");
	assert_close(s.rows[2].measured, 1.015); /* (1.010 + 1.020) / 2 */
	assert_string_equal(s.rows[2].set, "");
	assert_int_equal(s.rows[2].line, 2);
	/* the dispatcher */
	assert_int_equal(run(benchlog_parse, log, "train.log", &s, &err), 0);
	assert_int_equal(s.n, 5);
	assert_close(s.rows[3].measured, 1.2345);
	/* errors */
	expect_error(benchlog_megatron_parse,
		     MG("       1", "9012.7", "55.3", "  512")
		     MG("      10", "2104.2", "236.9", "  512"),
		     "a.log", 2, "2 logged iterations, all warm-up", &s);
	expect_error(benchlog_megatron_parse,
		     MG("     100", "1200.0", "55.3", "  512"),
		     "a.log", 1, "1 logged iteration, all warm-up", &s);
	expect_error(benchlog_megatron_parse,
		     MG("     100", "1200.0", "55.3", "  512")
		     MG("     200", "1200.0", "55.3", "  512")
		     MG("     150", "1200.0", "55.3", "  512"),
		     "a.log", 3,
		     "iteration 150 after iteration 200: expected the log of "
		     "one run", &s);
	expect_error(benchlog_megatron_parse,
		     MG("     100", "1200.0", "55.3", "  512")
		     MG("     200", "fast", "55.3", "  512"),
		     "a.log", 2,
		     "'elapsed time per iteration (ms):' must be followed by "
		     "a positive number of milliseconds, got 'fast |", &s);
	expect_error(benchlog_megatron_parse,
		     MG("     100", "1200.0", "55.3", "  512")
		     MG("     200", "1200.0", "55.3", "  512")
		     MG("     300", "1200.0", "55.3", " 1024"),
		     "a.log", 3, "global batch size 1024, but 512 at line 2",
		     &s);
	expect_error(benchlog_megatron_parse,
		     " elapsed time per iteration (ms): 12.0 |\n", "a.log", 1,
		     "expected 'iteration N/M'", &s);
	expect_error(benchlog_megatron_parse, "hello\n", "a.log", 0,
		     "found none", &s);
	assert_int_equal(s.n, 5);
	measure_release(&s);
}

/* torchtitan's metrics line, as MetricsProcessor.log formats it, with
   its colours (torchtitan/tools/utils.py Color) and logger prefix: the
   format from its source code; every number here is invented (round
   digits, no model's), none from torchtitan's benchmark files, which are
   reserved for independent judging. */
#define TT(rank, step, tps, tflops, mfu)                                     \
	rank "[titan] 2026-01-01 12:00:00,000 - root - INFO - "              \
	"\033[31mstep: " step "  \033[32mloss: 12.25460  "                  \
	"\033[38;2;180;60;0mgrad_norm:  3.1416  "                            \
	"\033[38;2;54;234;195mmemory: 31.45GiB(39.71%)  "                    \
	"\033[34mtps: " tps "  \033[36mtflops: " tflops "  "                 \
	"\033[35mmfu: " mfu "\033[39m\n"

static void test_torchtitan(void **state)
{
	static const char log[] =
		"[rank0]:[titan] 2026-01-01 11:59:00,000 - root - INFO - "
		"Training starts at step 1\n"
		TT("[rank0]:", " 1", "1,234", "63.07", "6.38%")
		TT("[rank1]:", " 1", "1,200", "61.00", "6.17%")
		TT("[rank0]:", "10", "4,321", "222.22", "22.22%")
		TT("[rank1]:", "10", "9,999", "999.00", "99.00%")
		"[rank0]:[titan] 2026-01-01 12:00:05,000 - root - INFO - "
		"\033[33mvalidate step: 10  \033[32mloss:  7.1234  "
		"\033[34mtps: 99,999\033[39m\n"
		TT("[rank0]:", "20", "4,400", "226.00", "22.60%")
		TT("[rank0]:", "30", "4,250", "218.50", "21.85%");
	/* no colours, no prefix; float8: no mfu; tps in the millions */
	static const char plain[] =
		"step:  1  loss: 12.00000  memory: 10.00GiB(12.50%)  "
		"tps: 100  tflops: 1.00  mfu: N/A\n"
		"step: 10  loss:  9.00000  memory: 10.00GiB(12.50%)  "
		"tps: 1,234,567  tflops: 1,111.25  mfu: N/A\n";
	struct measure_set s = { NULL, 0 };
	struct diag err;

	(void)state;
	assert_int_equal(run(benchlog_torchtitan_parse, log, "titan.log", &s,
			     &err), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.rows[0].command, MEASURE_TRAIN);
	assert_string_equal(s.rows[0].set, "");
	assert_int_equal(s.rows[0].line, 4); /* step 10 of rank 0 */
	assert_close(row(&s, 0, "tokens_per_s_per_gpu")->measured, 4321.0);
	assert_close(row(&s, 0, "model_tflops_per_gpu")->measured, 222.22);
	assert_close(row(&s, 0, "mfu")->measured, 0.2222);
	assert_int_equal(run(benchlog_torchtitan_parse, plain, "p.log", &s,
			     &err), 0);
	assert_int_equal(s.n, 5);
	assert_close(row(&s, 3, "tokens_per_s_per_gpu")->measured, 1234567.0);
	assert_close(row(&s, 3, "model_tflops_per_gpu")->measured, 1111.25);
	/* the dispatcher */
	assert_int_equal(run(benchlog_parse, log, "titan.log", &s, &err), 0);
	assert_int_equal(s.n, 8);
	/* a prefix too long to be torchrun's is text (a fuzzer's find) */
	{
		struct measure_set t = { NULL, 0 };

		assert_int_equal(
			run(benchlog_torchtitan_parse,
			    TT("[''''''''''''''''''''''''''''''rank0]:", " 1",
			       "1,234", "63.07", "6.38%")
			    TT("[''''''''''''''''''''''''''''''rank1]:", "10",
			       "2,345", "63.07", "6.38%"),
			    "long.log", &t, &err), 0);
		assert_int_equal(t.n, 3);
		assert_close(t.rows[0].measured, 2345.0);
		measure_release(&t);
	}
	/* errors */
	expect_error(benchlog_torchtitan_parse,
		     TT("", " 1", "1,234", "63.07", "6.38%"), "t.log", 1,
		     "one metrics line: expected at least 2", &s);
	expect_error(benchlog_torchtitan_parse,
		     TT("", "10", "1,234", "63.07", "6.38%")
		     TT("", " 5", "1,234", "63.07", "6.38%"), "t.log", 2,
		     "step 5 after step 10", &s);
	expect_error(benchlog_torchtitan_parse,
		     TT("", " 1", "1,234", "63.07", "6.38%")
		     TT("", "10", "many", "63.07", "6.38%"), "t.log", 2,
		     "'tps:' must be followed by a positive number", &s);
	expect_error(benchlog_torchtitan_parse,
		     TT("", " 1", "1,234", "63.07", "6.38%")
		     TT("", "10", "1,234", "63.07", "6.38"), "t.log", 2,
		     "'mfu:' must be followed by a percentage", &s);
	expect_error(benchlog_torchtitan_parse,
		     TT("", "x1", "1,234", "63.07", "6.38%"), "t.log", 1,
		     "'step:' must be followed by a step number", &s);
	expect_error(benchlog_torchtitan_parse, "step: tps\n", "t.log", 0,
		     "no metrics line", &s);
	assert_int_equal(s.n, 8);
	measure_release(&s);
}

/* The dispatcher: what it cannot place, it says, listing the formats. */
static void test_dispatch(void **state)
{
	static const char log[] =
		MG("     100", "1200.0", "400.0", "  256")
		MG("     200", "1100.0", "410.0", "  256");
	struct measure_set s = { NULL, 0 };
	struct diag err;
	char path[] = "/tmp/test_benchlog_XXXXXX";
	int fd;

	(void)state;
	expect_error(benchlog_parse, "hello, world\n", "x.txt", 0,
		     "not a benchmark result or training log capplan reads: "
		     "expected vLLM's or SGLang's serving result", &s);
	expect_error(benchlog_parse, "", "x.txt", 0, "torchtitan", &s);
	expect_error(benchlog_parse, "{\"model\": \"x\"}", "x.json", 0,
		     "JSON of no format capplan reads", &s);
	expect_error(benchlog_parse, "{\"model\": ", "x.json", 0,
		     "not valid JSON, which begins with '{\"model\": '", &s);
	expect_error(benchlog_parse, "[1, 2]", "x.json", 0,
		     "Megatron-LM training log", &s);
	/* names too long for a measurement */
	{
		char gpu[MEASURE_NAME_MAX + 1];

		memset(gpu, 'G', sizeof(gpu) - 1);
		gpu[sizeof(gpu) - 1] = '\0';
		diag_clear(&err);
		assert_int_equal(benchlog_parse(log, strlen(log), "x.log",
						"w.ini", gpu, &s, &err), -1);
		assert_non_null(strstr(err.msg, "too long"));
	}
	/* a file, through benchlog_load_file */
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, log, strlen(log)), (ssize_t)strlen(log));
	close(fd);
	diag_clear(&err);
	assert_int_equal(benchlog_load_file(path, "w.ini", "H100-SXM", &s,
					    &err), 0);
	unlink(path);
	assert_int_equal(s.n, 2);
	assert_close(s.rows[0].measured, 1.1);
	assert_close(s.rows[1].measured, 410.0);
	assert_string_equal(s.rows[0].set, "training.global_batch=256");
	diag_clear(&err);
	assert_int_equal(benchlog_load_file(path, "w.ini", "H100-SXM", &s,
					    &err), -1);
	assert_int_equal(err.kind, DIAG_IO);
	assert_int_equal(s.n, 2);
	measure_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sglang_jsonl),
		cmocka_unit_test(test_genai_perf),
		cmocka_unit_test(test_genai_perf_errors),
		cmocka_unit_test(test_megatron),
		cmocka_unit_test(test_torchtitan),
		cmocka_unit_test(test_dispatch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
