/* test_workload.c - workload files, --set overrides and validation. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "workload.h"

/* Every key, with unround values. */
static const char full_ini[] =
	"; a full workload: every key once\n"
	"# comments of both kinds\n"
	"[model]\n"
	"name = llama-ish 70b\n"
	"layers = 80\n"
	"hidden = 8192\n"
	"heads = 64\n"
	"kv_heads = 8\n"
	"ffn_hidden = 28672\n"
	"gated_ffn = yes\n"
	"vocab = 128256\n"
	"seq_len = 8192\n"
	"tied_embeddings = off\n"
	"params = 70.6B ; inline comment\n"
	"\n"
	"[training]\n"
	"tokens = 2.385T\n"
	"global_batch = 1024\n"
	"micro_batch = 2\n"
	"gpus = 2048\n"
	"tp = 8\n"
	"pp = 4\n"
	"vp = 5\n"
	"cp = 2\n"
	"zero = 1\n"
	"recompute = selective\n"
	"sequence_parallel = true\n"
	"precision = fp8\n"
	"optimizer = adamw\n"
	"attention = unfused\n"
	"overlap_grad_reduce = no\n"
	"\n"
	"[inference]\n"
	"weight_precision = int4\n"
	"kv_precision = fp8\n"
	"prompt_tokens = 1537\n"
	"output_tokens = 333\n"
	"batch = 48\n"
	"tp = 4\n"
	"qps = 12.75\n"
	"ttft_slo = 250ms\n"
	"tpot_slo = 0.035s\n"
	"percentile = p90\n"
	"sparsity = 2:4\n"
	"power_cap = 612W\n"
	"\n"
	"[cluster]\n"
	"gpus_per_node = 8\n"
	"intra_bw = 450GB/s\n"
	"nvlink_sharp = no\n"
	"intra_mesh = yes\n"
	"inter_bw = 400Gb/s\n"
	"pue = 1.35\n"
	"price_per_gpu_hour = $2.85\n"
	"price_per_kwh = 0.085\n"
	"host_overhead = 0.27\n";

static void assert_close(double got, double want)
{
	double tol = 1e-12 * fabs(want);

	if (!(fabs(got - want) <= tol))
		fail_msg("got %.17g, want %.17g", got, want);
}

static void assert_contains(const char *msg, const char *part)
{
	if (!strstr(msg, part))
		fail_msg("message '%s' lacks '%s'", msg, part);
}

static int parse_text(const char *text, size_t len, struct workload *wl,
		      struct diag *d)
{
	workload_init(wl);
	diag_clear(d);
	return workload_parse(text, len, "t.ini", wl, d);
}

/* Parsing 'text' fails on line:col with a message containing 'part'. */
static void expect_error_n(const char *text, size_t len, int line, int col,
			   const char *part)
{
	struct workload wl;
	struct diag d;

	assert_int_equal(parse_text(text, len, &wl, &d), -1);
	assert_string_equal(d.file, "t.ini");
	if (d.line != line || d.col != col)
		fail_msg("error at %d:%d, want %d:%d (%s)", d.line, d.col,
			 line, col, d.msg);
	assert_contains(d.msg, part);
}

static void expect_error(const char *text, int line, int col,
			 const char *part)
{
	expect_error_n(text, strlen(text), line, col, part);
}

static void parse_ok(const char *text, struct workload *wl)
{
	struct diag d;

	if (parse_text(text, strlen(text), wl, &d) != 0)
		fail_msg("unexpected error %d:%d: %s", d.line, d.col, d.msg);
}

static void test_full_file(void **state)
{
	struct workload wl;
	struct diag d;

	(void)state;
	parse_ok(full_ini, &wl);
	assert_string_equal(wl.file, "t.ini");

	assert_string_equal(wl.model.name, "llama-ish 70b");
	assert_int_equal(wl.model.layers, 80);
	assert_int_equal(wl.model.hidden, 8192);
	assert_int_equal(wl.model.heads, 64);
	assert_int_equal(wl.model.kv_heads, 8);
	assert_int_equal(wl.model.ffn_hidden, 28672);
	assert_true(wl.model.gated_ffn);
	assert_int_equal(wl.model.vocab, 128256);
	assert_int_equal(wl.model.seq_len, 8192);
	assert_false(wl.model.tied_embeddings);
	assert_close(wl.model.params, 70.6e9);
	assert_true(model_has_arch(&wl.model));

	assert_close(wl.training.tokens, 2.385e12);
	assert_int_equal(wl.training.global_batch, 1024);
	assert_int_equal(wl.training.micro_batch, 2);
	assert_int_equal(wl.training.gpus, 2048);
	assert_int_equal(wl.training.tp, 8);
	assert_int_equal(wl.training.pp, 4);
	assert_int_equal(wl.training.vp, 5);
	assert_int_equal(wl.training.cp, 2);
	assert_int_equal(wl.training.zero, 1);
	assert_int_equal(wl.training.recompute, RECOMPUTE_SELECTIVE);
	assert_int_equal(wl.training.sequence_parallel, 1);
	assert_int_equal(wl.training.precision, PREC_FP8);
	assert_int_equal(wl.training.optimizer, OPTIMIZER_ADAM);
	assert_int_equal(wl.training.attention, ATTN_UNFUSED);
	assert_int_equal(wl.training.overlap_grad_reduce, 0);

	assert_int_equal(wl.inference.weight_precision, PREC_INT4);
	assert_int_equal(wl.inference.kv_precision, PREC_FP8);
	assert_int_equal(wl.inference.prompt_tokens, 1537);
	assert_int_equal(wl.inference.output_tokens, 333);
	assert_int_equal(wl.inference.batch, 48);
	assert_int_equal(wl.inference.tp, 4);
	assert_close(wl.inference.qps, 12.75);
	assert_close(wl.inference.ttft_slo_s, 0.25);
	assert_close(wl.inference.tpot_slo_s, 0.035);
	assert_int_equal(wl.inference.percentile, SLO_P90);
	assert_true(wl.inference.sparsity_2_4);
	assert_close(wl.inference.power_cap_w, 612.0);

	assert_int_equal(wl.cluster.gpus_per_node, 8);
	assert_close(wl.cluster.intra_bw_bytes_per_s, 450e9);
	assert_int_equal(wl.cluster.nvlink_sharp, 0);
	assert_int_equal(wl.cluster.intra_mesh, 1);
	assert_close(wl.cluster.inter_bw_bytes_per_s, 5e10);
	assert_close(wl.cluster.pue, 1.35);
	assert_close(wl.cluster.price_usd_per_gpu_hour, 2.85);
	assert_close(wl.cluster.price_usd_per_kwh, 0.085);
	assert_close(wl.cluster.host_overhead, 0.27);

	diag_clear(&d);
	if (workload_validate(&wl, &d) != 0)
		fail_msg("validate: %s", d.msg);
}

static void test_defaults(void **state)
{
	struct workload wl;

	(void)state;
	workload_init(&wl);
	assert_string_equal(wl.file, "");
	assert_string_equal(wl.model.name, "");
	assert_int_equal(wl.model.layers, 0);
	assert_int_equal(wl.model.kv_heads, 0);
	assert_int_equal(wl.model.ffn_hidden, 0);
	assert_false(wl.model.gated_ffn);
	assert_true(wl.model.tied_embeddings);
	assert_close(wl.model.params, 0);
	assert_false(model_has_arch(&wl.model));

	assert_close(wl.training.tokens, 0);
	assert_int_equal(wl.training.global_batch, WL_AUTO);
	assert_int_equal(wl.training.micro_batch, WL_AUTO);
	assert_int_equal(wl.training.gpus, WL_AUTO);
	assert_int_equal(wl.training.tp, WL_AUTO);
	assert_int_equal(wl.training.pp, WL_AUTO);
	assert_int_equal(wl.training.vp, WL_AUTO);
	assert_int_equal(wl.training.first_stage_layers, WL_AUTO);
	assert_int_equal(wl.training.last_stage_layers, WL_AUTO);
	assert_int_equal(wl.training.cp, WL_AUTO);
	assert_int_equal(wl.training.zero, WL_AUTO_NEG);
	assert_int_equal(wl.training.recompute, RECOMPUTE_AUTO);
	assert_int_equal(wl.training.sequence_parallel, WL_AUTO_NEG);
	assert_int_equal(wl.training.precision, PREC_BF16);
	assert_int_equal(wl.training.optimizer, OPTIMIZER_ADAM);
	assert_int_equal(wl.training.attention, ATTN_FLASH);
	assert_int_equal(wl.training.overlap_grad_reduce, WL_AUTO_NEG);

	assert_int_equal(wl.inference.weight_precision, PREC_BF16);
	assert_int_equal(wl.inference.kv_precision, PREC_BF16);
	assert_int_equal(wl.inference.prompt_tokens, 512);
	assert_int_equal(wl.inference.output_tokens, 256);
	assert_int_equal(wl.inference.batch, WL_AUTO);
	assert_int_equal(wl.inference.tp, WL_AUTO);
	assert_close(wl.inference.qps, 0);
	assert_close(wl.inference.ttft_slo_s, 0);
	assert_close(wl.inference.tpot_slo_s, 0);
	assert_int_equal(wl.inference.percentile, SLO_P99);
	assert_false(wl.inference.sparsity_2_4);
	assert_close(wl.inference.power_cap_w, 0);

	assert_int_equal(wl.cluster.gpus_per_node, WL_AUTO);
	assert_close(wl.cluster.intra_bw_bytes_per_s, 0);
	assert_int_equal(wl.cluster.nvlink_sharp, WL_AUTO_NEG);
	assert_int_equal(wl.cluster.intra_mesh, WL_AUTO_NEG);
	assert_close(wl.cluster.inter_bw_bytes_per_s, 0);
	assert_close(wl.cluster.pue, 1.2);
	assert_close(wl.cluster.price_usd_per_gpu_hour, 0);
	assert_close(wl.cluster.price_usd_per_kwh, 0.10);
	assert_close(wl.cluster.host_overhead, 0.35);
	/* goodput: Llama 3's failure rate, 10 min restarts, 1 GB/s per node */
	assert_false(wl.training.async_checkpoint);
	assert_close(wl.training.checkpoint_interval_s, 0);
	assert_close(wl.cluster.failures_per_gpu_hour,
		     419.0 / (54.0 * 24.0 * 16384.0));
	assert_close(wl.cluster.restart_s, 600.0);
	assert_close(wl.cluster.storage_bw_bytes_per_s, 1e9);
	assert_close(wl.cluster.maintenance, 0.006);
}

/* The keys of failures and checkpoints, with their units. */
static void test_goodput_keys(void **state)
{
	struct workload wl;

	(void)state;
	parse_ok("[training]\nasync_checkpoint = yes\n"
		 "checkpoint_interval = 30min\n"
		 "[cluster]\nfailures_per_gpu_hour = 2e-5\n"
		 "restart_time = 90s\nstorage_bw = 400Gb/s\n"
		 "maintenance = 0.02\n",
		 &wl);
	assert_true(wl.training.async_checkpoint);
	assert_close(wl.training.checkpoint_interval_s, 1800.0);
	assert_close(wl.cluster.failures_per_gpu_hour, 2e-5);
	assert_close(wl.cluster.restart_s, 90.0);
	assert_close(wl.cluster.storage_bw_bytes_per_s, 50e9);
	assert_close(wl.cluster.maintenance, 0.02);
}

/* [cluster] pricing and the ownership keys (issue 12, TCO mode). */
static void test_pricing_keys(void **state)
{
	struct workload wl;

	(void)state;
	workload_init(&wl);
	assert_int_equal(wl.cluster.pricing, PRICING_CLOUD);
	assert_close(wl.cluster.capex_usd_per_gpu, 0);
	assert_close(wl.cluster.amortization_years, 5.0);
	assert_close(wl.cluster.hosting_usd_per_kw_month, 184.06);

	parse_ok("[cluster]\npricing = owned\ncapex_per_gpu = $31.4159K\n"
		 "amortization_years = 4.25\nhosting_per_kw_month = 163.7\n",
		 &wl);
	assert_int_equal(wl.cluster.pricing, PRICING_OWNED);
	assert_close(wl.cluster.capex_usd_per_gpu, 31415.9);
	assert_close(wl.cluster.amortization_years, 4.25);
	assert_close(wl.cluster.hosting_usd_per_kw_month, 163.7);
	assert_string_equal(pricing_mode_name(PRICING_OWNED), "owned");
	assert_string_equal(pricing_mode_name(PRICING_CLOUD), "cloud");
	parse_ok("[cluster]\npricing = CLOUD\nhosting_per_kw_month = 0\n",
		 &wl);
	assert_int_equal(wl.cluster.pricing, PRICING_CLOUD);
	assert_close(wl.cluster.hosting_usd_per_kw_month, 0);

	expect_error("[cluster]\npricing = rent\n", 2, 11,
		     "'pricing' must be one of cloud, owned, got 'rent'");
	expect_error("[cluster]\ncapex_per_gpu = -5\n", 2, 17,
		     "'capex_per_gpu' must be a positive sum of money");
	expect_error("[cluster]\ncapex_per_gpu = 0\n", 2, 17,
		     "'capex_per_gpu' must be a positive sum of money");
	expect_error("[cluster]\ncapex_per_gpu = 2e8\n", 2, 17,
		     "of at most 1e+08");
	expect_error("[cluster]\namortization_years = 0.2\n", 2, 22,
		     "'amortization_years' must be a number from 0.25 to 30, "
		     "got '0.2'");
	expect_error("[cluster]\namortization_years = 31\n", 2, 22,
		     "from 0.25 to 30");
	expect_error("[cluster]\nhosting_per_kw_month = -1\n", 2, 24,
		     "'hosting_per_kw_month' must be a sum of money of at "
		     "most 100000");
}

static void test_auto_values(void **state)
{
	struct workload wl;

	(void)state;
	parse_ok("[training]\n"
		 "tp = 8\npp = auto\nzero = auto\nsequence_parallel = AUTO\n"
		 "recompute = auto\noverlap_grad_reduce = on\n"
		 "[inference]\nbatch = auto\ntp = auto\n"
		 "[cluster]\ngpus_per_node = auto\n",
		 &wl);
	assert_int_equal(wl.training.tp, 8);
	assert_int_equal(wl.training.pp, WL_AUTO);
	assert_int_equal(wl.training.zero, WL_AUTO_NEG);
	assert_int_equal(wl.training.sequence_parallel, WL_AUTO_NEG);
	assert_int_equal(wl.training.recompute, RECOMPUTE_AUTO);
	assert_int_equal(wl.training.overlap_grad_reduce, 1);
	assert_int_equal(wl.inference.batch, WL_AUTO);
	assert_int_equal(wl.inference.tp, WL_AUTO);
	assert_int_equal(wl.cluster.gpus_per_node, WL_AUTO);

	parse_ok("[training]\nzero = 0\nsequence_parallel = 0\n", &wl);
	assert_int_equal(wl.training.zero, 0);
	assert_int_equal(wl.training.sequence_parallel, 0);
}

static void test_kv_precision_follows_weights(void **state)
{
	struct workload wl;

	(void)state;
	parse_ok("[inference]\nweight_precision = fp8\n", &wl);
	assert_int_equal(wl.inference.weight_precision, PREC_FP8);
	assert_int_equal(wl.inference.kv_precision, PREC_FP8);

	parse_ok("[inference]\nkv_precision = int8\n"
		 "weight_precision = int4\n", &wl);
	assert_int_equal(wl.inference.weight_precision, PREC_INT4);
	assert_int_equal(wl.inference.kv_precision, PREC_INT8);

	/* int4 weights run W4A16: their cache is fp16, an int4 one only
	   when asked for */
	parse_ok("[inference]\nweight_precision = int4\n", &wl);
	assert_int_equal(wl.inference.kv_precision, PREC_FP16);
	parse_ok("[inference]\nweight_precision = int4\n"
		 "kv_precision = int4\n", &wl);
	assert_int_equal(wl.inference.kv_precision, PREC_INT4);

	/* TF32 serving: fp32 weights on TF32 tensor cores; the cache that
	   follows them is fp32, and TF32 is no cache format of its own */
	parse_ok("[inference]\nweight_precision = tf32\n", &wl);
	assert_int_equal(wl.inference.weight_precision, PREC_TF32);
	assert_int_equal(wl.inference.kv_precision, PREC_FP32);
	{
		struct diag d;

		diag_clear(&d);
		assert_int_equal(workload_set(&wl,
					      "inference.weight_precision=bf16",
					      &d),
				 0);
		assert_int_equal(wl.inference.kv_precision, PREC_BF16);
		assert_int_equal(workload_set(&wl,
					      "inference.kv_precision=tf32",
					      &d),
				 -1);
	}
}

static void test_bom_and_crlf(void **state)
{
	static const char text[] = "\xEF\xBB\xBF[model]\r\n"
				   "layers = 61\r\n"
				   "name = crlf\r\n"
				   "\r\n"
				   "[training]\r\n"
				   "tokens = 15T\r\n";
	struct workload wl;

	(void)state;
	parse_ok(text, &wl);
	assert_int_equal(wl.model.layers, 61);
	assert_string_equal(wl.model.name, "crlf");
	assert_close(wl.training.tokens, 15e12);

	/* columns ignore the BOM; values do not keep the CR */
	expect_error("\xEF\xBB\xBF" "layers = 3\r\n", 1, 1,
		     "key 'layers' is outside any section");
	expect_error("\xEF\xBB\xBF[model]\r\nlayers = x\r\n", 2, 10,
		     "'layers' must be an integer from 1 to 100000, got 'x'");
}

static void test_unknown_section(void **state)
{
	(void)state;
	expect_error("[model]\nlayers = 2\n[traning]\ntokens = 1T\n", 3, 1,
		     "unknown section '[traning]'; expected one of [model], "
		     "[training], [inference], [cluster]");
	/* caught even when empty */
	expect_error("[model]\n[extra]\n", 2, 1, "unknown section '[extra]'");
	expect_error("[model] x\n", 1, 9, "unexpected text after section");
}

static void test_unknown_key(void **state)
{
	(void)state;
	expect_error("[model]\nlayers = 2\nlayres = 2\n", 3, 1,
		     "unknown key 'layres' in [model]; did you mean "
		     "'layers'?");
	expect_error("[training]\nfoo = 1\n", 2, 1,
		     "unknown key 'foo' in [training]");
	expect_error("layers = 2\n", 1, 1, "outside any section");
	expect_error("[model]\n= 2\n", 2, 1, "missing key before '='");
}

/*
 * A file's unknown key and --set's get the same suggestion (one search,
 * wl_key_closest): the key one edit away, else the one key the word
 * begins ("ttft": ttft_slo), else the nearest key by a few edits; none
 * when several keys begin with the word and none is near.
 */
static void test_key_suggestion(void **state)
{
	static const struct {
		const char *section, *typo, *want; /* NULL: no suggestion */
	} cases[] = {
		{ "model", "layres", "layers" },
		{ "inference", "ttft", "ttft_slo" },
		{ "inference", "ttft_sl", "ttft_slo" },
		{ "inference", "tpot", "tpot_slo" }, /* not tp, 2 edits */
		{ "model", "expert", "experts" }, /* not expert_ffn_hidden */
		{ "training", "checkpoint", "checkpoint_interval" },
		{ "cluster", "hosting", "hosting_per_kw_month" },
		/* prefill_replicas or prefill_tp: no guess */
		{ "inference", "prefill", NULL },
		{ "training", "foo", NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[128], expr[128], file_msg[256], set_msg[256];
		struct workload wl;
		struct diag d;

		snprintf(text, sizeof(text), "[%s]\n%s = 1\n",
			 cases[i].section, cases[i].typo);
		if (cases[i].want) {
			snprintf(file_msg, sizeof(file_msg),
				 "unknown key '%s' in [%s]; did you mean "
				 "'%s'?", cases[i].typo, cases[i].section,
				 cases[i].want);
			snprintf(set_msg, sizeof(set_msg),
				 "unknown key '%s.%s'; did you mean '%s.%s'?",
				 cases[i].section, cases[i].typo,
				 cases[i].section, cases[i].want);
		} else {
			snprintf(file_msg, sizeof(file_msg),
				 "unknown key '%s' in [%s]", cases[i].typo,
				 cases[i].section);
			snprintf(set_msg, sizeof(set_msg),
				 "unknown key '%s.%s'", cases[i].section,
				 cases[i].typo);
		}
		assert_int_equal(parse_text(text, strlen(text), &wl, &d), -1);
		assert_int_equal(d.line, 2);
		assert_string_equal(d.msg, file_msg);

		snprintf(expr, sizeof(expr), "%s.%s=1", cases[i].section,
			 cases[i].typo);
		workload_init(&wl);
		diag_clear(&d);
		assert_int_equal(workload_set(&wl, expr, &d), -1);
		assert_string_equal(d.file, "--set");
		assert_string_equal(d.msg, set_msg);
	}
}

static void test_duplicate_key(void **state)
{
	(void)state;
	expect_error("[model]\nlayers = 2\nhidden = 4\n\nlayers = 3\n", 5, 1,
		     "duplicate key 'layers' in [model]; first given on "
		     "line 2");
	/* the same name in two sections is two keys */
	expect_error("[training]\ntp = 2\n[inference]\ntp = 2\n[training]\n"
		     "tp = 4\n", 6, 1, "first given on line 2");
}

static void test_bad_values(void **state)
{
	(void)state;
	expect_error("[model]\nlayers = 12.5\n", 2, 10,
		     "'layers' must be an integer from 1 to 100000, got "
		     "'12.5'");
	expect_error("[model]\ngated_ffn = maybe\n", 2, 13,
		     "'gated_ffn' must be true or false");
	expect_error("[training]\nsequence_parallel = sometimes\n", 2, 21,
		     "'sequence_parallel' must be true, false or auto");
	expect_error("[training]\nrecompute = some\n", 2, 13,
		     "'recompute' must be one of none, selective, full, "
		     "auto, got 'some'");
	expect_error("[training]\nprecision = int8\n", 2, 13,
		     "'precision' must be one of fp32, tf32, bf16, fp16, fp8, "
		     "got 'int8'");
	expect_error("[inference]\nsparsity = 1:2\n", 2, 12,
		     "'sparsity' must be one of none, 2:4");
	expect_error("[training]\nzero = 4\n", 2, 8,
		     "'zero' must be an integer from 0 to 3 or 'auto'");
	expect_error("[model]\nname = "
		     "0123456789012345678901234567890123456789"
		     "012345678901234567890123\n", 2, 8, "'name' is too long");
}

/* A name is UTF-8 text without control characters, reported at the
   offending byte; blanks inside are kept. */
static void test_model_name_text(void **state)
{
	struct workload wl;
	struct diag d;

	(void)state;
	expect_error("[model]\nname = ab\x1b]0;title\x07\n", 2, 10,
		     "'name' contains a control character (0x1b)");
	expect_error("[model]\nname = x\x07\n", 2, 9,
		     "'name' contains a control character (0x07)");
	expect_error("[model]\nname = x\x7f\n", 2, 9,
		     "control character (0x7f)");
	expect_error("[model]\nname = a\xc2\x9b" "31m\n", 2, 9,
		     "control character (0xc2)");
	expect_error("[model]\nname = caf\xe9\n", 2, 11,
		     "'name' is not valid UTF-8 (byte 0xe9)");
	expect_error("[model]\nname = \xc0\xaf\n", 2, 8,
		     "'name' is not valid UTF-8 (byte 0xc0)");
	parse_ok("[model]\nname = caf\xc3\xa9 X 1\nparams = 7B\n", &wl);
	assert_string_equal(wl.model.name, "caf\xc3\xa9 X 1");
	/* --set checks the same, without a position */
	workload_init(&wl);
	diag_clear(&d);
	assert_int_equal(workload_set(&wl, "model.name=a\x1b[2J", &d), -1);
	assert_string_equal(d.file, "--set");
	assert_int_equal(d.col, 0);
	assert_string_equal(d.msg, "'model.name' contains a control character "
				   "(0x1b)");
	diag_clear(&d);
	assert_int_equal(workload_set(&wl, "model.name=\xff", &d), -1);
	assert_string_equal(d.msg, "'model.name' is not valid UTF-8 (byte "
				   "0xff)");
}

static void test_bad_units(void **state)
{
	(void)state;
	expect_error("[cluster]\nintra_bw = 450GX/s\n", 2, 12,
		     "'intra_bw' must be a bandwidth of at least 1MB/s");
	expect_error("[cluster]\nintra_bw = 450GX/s\n", 2, 12,
		     "got '450GX/s': unknown unit");
	expect_error("[inference]\nttft_slo = 250 parsecs\n", 2, 12,
		     "'ttft_slo' must be a positive duration");
	expect_error("[training]\ntokens = 3 apples\n", 2, 10,
		     "'tokens' must be a positive count");
}

static void test_not_finite(void **state)
{
	(void)state;
	expect_error("[inference]\nqps = nan\n", 2, 7,
		     "'qps' must be a finite number, got 'nan'");
	expect_error("[cluster]\npue = inf\n", 2, 7,
		     "'pue' must be a finite number, got 'inf'");
	expect_error("[cluster]\nhost_overhead = 1e999\n", 2, 17,
		     "'host_overhead' is out of range, got '1e999'");
	expect_error("[training]\ntokens = nan\n", 2, 10,
		     "got 'nan'");
	expect_error("[training]\ntokens = 1e308T\n", 2, 10,
		     "'tokens' must be a positive count");
	expect_error("[inference]\nqps = 0x10\n", 2, 7,
		     "'qps' must be a number from 0 to 1e+09");
}

static void test_out_of_range(void **state)
{
	(void)state;
	expect_error("[model]\nheads = -4\n", 2, 9,
		     "'heads' must be an integer from 1 to 65536, got '-4'");
	expect_error("[inference]\npower_cap = -5W\n", 2, 13,
		     "'power_cap' must be a positive power");
	expect_error("[inference]\nqps = -0.5\n", 2, 7,
		     "'qps' must be a number from 0 to 1e+09, got '-0.5'");
	expect_error("[training]\ntp = 0\n", 2, 6,
		     "'tp' must be an integer from 1 to 65536 or 'auto', got "
		     "'0'");
	expect_error("[training]\ntokens = 0\n", 2, 10,
		     "'tokens' must be a positive count");
	expect_error("[cluster]\npue = 0.95\n", 2, 7,
		     "'pue' must be a number from 1 to 3, got '0.95'");
	expect_error("[model]\nvocab = 2147483648\n", 2, 9,
		     "'vocab' must be an integer from 1 to 16777216, got "
		     "'2147483648'");
	expect_error("[model]\nvocab = 99999999999999999999999\n", 2, 9,
		     "'vocab' must be an integer from 1 to 16777216, got "
		     "'99999999999999999999999'");
	expect_error("[model]\nvocab = -99999999999999999999999\n", 2, 9,
		     "'vocab' must be an integer from 1 to 16777216");
	expect_error("[inference]\nseed = 2147483648\n", 2, 8,
		     "'seed' must be an integer from 0 to 2147483647, got "
		     "'2147483648'");
}

static void test_empty_value(void **state)
{
	(void)state;
	expect_error("[model]\nlayers =\n", 2, 9, "empty value for 'layers'");
	expect_error("[model]\nlayers = ; nothing\n", 2, 10,
		     "empty value for 'layers'");
}

static void test_nul_byte(void **state)
{
	static const char text[] = "[model]\nlay\0ers = 2\n";

	(void)state;
	expect_error_n(text, sizeof(text) - 1, 2, 4, "NUL byte");
}

static void test_long_line(void **state)
{
	char text[400];
	struct workload wl;
	struct diag d;

	(void)state;
	/* 190 bytes is the limit */
	strcpy(text, "[model]\n;");
	memset(text + 9, 'x', 189);
	strcpy(text + 9 + 189, "\nlayers = 2\n");
	assert_int_equal(parse_text(text, strlen(text), &wl, &d), 0);
	assert_int_equal(wl.model.layers, 2);

	strcpy(text, "[model]\nlayers = 2\n;");
	memset(text + 20, 'x', 190);
	strcpy(text + 20 + 190, "\n");
	expect_error(text, 3, 0, "line is too long (191 bytes; at most 190)");
	/* a long path: the message says how to give it */
	strcpy(text, "[inference]\ntrace = ");
	memset(text + 20, 't', 183);
	strcpy(text + 20 + 183, "\n");
	expect_error(text, 2, 0, "line is too long (191 bytes; at most 190); "
				 "a longer path goes through --set "
				 "inference.trace=PATH");
	strcpy(text, "[model]\nhf_config=");
	memset(text + 18, 'h', 181);
	strcpy(text + 18 + 181, "\n");
	expect_error(text, 2, 0, "--set model.hf_config=PATH");
}

static void test_indented_line(void **state)
{
	(void)state;
	expect_error("[model]\nname = a\n  b\n", 3, 3,
		     "unexpected indented line");
	expect_error("[model]\n\tlayers = 2\n", 2, 2,
		     "unexpected indented line");
	/* indented comments and blank lines are fine */
	expect_error("[model]\n  ; note\n   \nlayers = x\n", 4, 10,
		     "got 'x'");
}

static void test_syntax_errors(void **state)
{
	(void)state;
	expect_error("[model]\nlayers 80\n", 2, 1,
		     "expected 'key = value' or '[section]', got "
		     "'layers 80'");
	/* a later error does not hide the syntax error */
	expect_error("[model]\nlayers 80\nfoo = 1\n", 2, 1,
		     "expected 'key = value'");
	/* an earlier error wins over a later syntax error */
	expect_error("[model]\nfoo = 1\nlayers 80\n", 2, 1,
		     "unknown key 'foo'");
	expect_error("[model\nlayers = 2\n", 1, 1,
		     "unterminated section header '[model'");
}

static void test_set(void **state)
{
	struct workload wl;
	struct diag d;

	(void)state;
	parse_ok("[training]\ntp = 2\n[inference]\nweight_precision = fp16\n",
		 &wl);
	diag_clear(&d);
	assert_int_equal(workload_set(&wl, "training.tp=8", &d), 0);
	assert_int_equal(wl.training.tp, 8);
	assert_int_equal(workload_set(&wl, " inference.ttft_slo = 185ms ",
				      &d), 0);
	assert_close(wl.inference.ttft_slo_s, 0.185);
	assert_int_equal(workload_set(&wl, "training.pp=auto", &d), 0);
	assert_int_equal(wl.training.pp, WL_AUTO);
	assert_int_equal(workload_set(&wl, "model.params=405B", &d), 0);
	assert_close(wl.model.params, 405e9);
	assert_int_equal(workload_set(&wl, "model.name=a=b", &d), 0);
	assert_string_equal(wl.model.name, "a=b");

	/* kv_precision moves with weight_precision while they are equal */
	assert_int_equal(wl.inference.kv_precision, PREC_FP16);
	assert_int_equal(workload_set(&wl, "inference.weight_precision=int8",
				      &d), 0);
	assert_int_equal(wl.inference.kv_precision, PREC_INT8);
	assert_int_equal(workload_set(&wl, "inference.kv_precision=fp8", &d),
			 0);
	assert_int_equal(workload_set(&wl, "inference.weight_precision=int4",
				      &d), 0);
	assert_int_equal(wl.inference.weight_precision, PREC_INT4);
	assert_int_equal(wl.inference.kv_precision, PREC_FP8);
	assert_false(diag_has_error(&d));
	/* fp4 (NVFP4) weights bring an fp8 cache along from int4 weights'
	   fp16 one; a cache that does not follow the weights stays */
	assert_int_equal(workload_set(&wl, "inference.kv_precision=fp16", &d),
			 0);
	assert_int_equal(workload_set(&wl, "inference.weight_precision=fp4",
				      &d), 0);
	assert_int_equal(wl.inference.weight_precision, PREC_FP4);
	assert_int_equal(wl.inference.kv_precision, PREC_FP8);
	assert_int_equal(workload_set(&wl, "inference.kv_precision=int4", &d),
			 0);
	assert_int_equal(workload_set(&wl, "inference.weight_precision=int4",
				      &d), 0);
	assert_int_equal(wl.inference.kv_precision, PREC_INT4);
	assert_false(diag_has_error(&d));
}

static void expect_set_error(const char *expr, const char *msg)
{
	struct workload wl, before;
	struct diag d;

	workload_init(&wl);
	before = wl;
	diag_clear(&d);
	assert_int_equal(workload_set(&wl, expr, &d), -1);
	assert_string_equal(d.file, "--set");
	assert_int_equal(d.line, 0);
	assert_int_equal(d.col, 0);
	assert_contains(d.msg, msg);
	/* a failed override changes nothing */
	assert_memory_equal(&wl, &before, sizeof(wl));
}

/*
 * Every bounded integer key (specs/workload.md, "Bounds"): its largest
 * value is accepted, the next one is rejected at the value's column with
 * the range, in a file and with --set.
 */
static const struct {
	const char *section, *key;
	int min, max;
	bool is_auto;
} int_bounds[] = {
	{ "model", "layers", 1, 100000, false },
	{ "model", "hidden", 1, 1048576, false },
	{ "model", "heads", 1, 65536, false },
	{ "model", "kv_heads", 1, 65536, false },
	{ "model", "ffn_hidden", 1, 16777216, false },
	{ "model", "vocab", 1, 16777216, false },
	{ "model", "seq_len", 1, 16777216, false },
	{ "model", "head_dim", 1, 16384, false },
	{ "model", "kv_lora_rank", 1, 1048576, false },
	{ "model", "q_lora_rank", 1, 1048576, false },
	{ "model", "rope_head_dim", 1, 16384, false },
	{ "model", "v_head_dim", 1, 16384, false },
	{ "model", "experts", 1, 1048576, false },
	{ "model", "experts_per_token", 1, 1048576,
	  false },
	{ "model", "shared_experts", 0, 1048576, false },
	{ "model", "expert_ffn_hidden", 1, 16777216,
	  false },
	{ "model", "dense_layers", 0, 100000, false },
	{ "model", "embedding_tables", 1, 1000000, false },
	{ "model", "embedding_dim", 1, 1000000, false },
	{ "training", "global_batch", 1, 1073741824, true },
	{ "training", "micro_batch", 1, 1073741824, true },
	{ "training", "gpus", 1, 16777216, true },
	{ "training", "tp", 1, 65536, true },
	{ "training", "pp", 1, 100000, true },
	{ "training", "vp", 1, 100000, true },
	{ "training", "first_stage_layers", 1, 100000, true },
	{ "training", "last_stage_layers", 1, 100000, true },
	{ "training", "cp", 1, 16777216, true },
	{ "training", "ep", 1, 1048576, true },
	{ "inference", "prompt_tokens", 1, 16777216, false },
	{ "inference", "output_tokens", 1, 1048576, false },
	{ "inference", "batch", 1, 1048576, true },
	{ "inference", "tp", 1, 65536, true },
	{ "inference", "ep", 1, 1048576, true },
	{ "inference", "concurrency", 1, 1000000, false },
	{ "inference", "requests", 1, 50000, true },
	{ "inference", "seed", 0, 2147483647, false },
	{ "inference", "replicas", 1, 1000000, true },
	{ "inference", "max_batch", 1, 65536, true },
	{ "inference", "max_batched_tokens", 1,
	  16777216, true },
	{ "inference", "kv_block_tokens", 1, 4096, false },
	{ "inference", "scheduler_steps", 1, 1024, false },
	{ "cluster", "gpus_per_node", 1, 65536, true },
};

static void test_integer_bounds(void **state)
{
	char text[128], expr[128], want[160];
	struct workload wl;
	struct diag d;

	(void)state;
	for (size_t i = 0; i < sizeof(int_bounds) / sizeof(int_bounds[0]);
	     i++) {
		const char *sec = int_bounds[i].section;
		const char *key = int_bounds[i].key;
		long long max = int_bounds[i].max;
		char label[64];

		snprintf(text, sizeof(text), "[%s]\n%s = %lld\n", sec, key,
			 max);
		parse_ok(text, &wl);
		snprintf(expr, sizeof(expr), "%s.%s=%lld", sec, key, max);
		workload_init(&wl);
		diag_clear(&d);
		if (workload_set(&wl, expr, &d) != 0)
			fail_msg("'%s' rejected: %s", expr, d.msg);
		/* one more, a wrapped int (2^32 + 1) and 2^63 */
		snprintf(want, sizeof(want),
			 "'%s' must be an integer from %d to %d%s, got '%lld'",
			 key, int_bounds[i].min, (int)max,
			 int_bounds[i].is_auto ? " or 'auto'" : "", max + 1);
		snprintf(text, sizeof(text), "[%s]\n%s = %lld\n", sec, key,
			 max + 1);
		expect_error(text, 2, (int)strlen(key) + 4, want);
		snprintf(label, sizeof(label), "%s.%s", sec, key);
		snprintf(want, sizeof(want),
			 "'%s' must be an integer from %d to %d%s, got '%lld'",
			 label, int_bounds[i].min, (int)max,
			 int_bounds[i].is_auto ? " or 'auto'" : "", max + 1);
		snprintf(expr, sizeof(expr), "%s.%s=%lld", sec, key, max + 1);
		expect_set_error(expr, want);
		snprintf(expr, sizeof(expr), "%s.%s=4294967297", sec, key);
		expect_set_error(expr, "got '4294967297'");
		snprintf(expr, sizeof(expr), "%s.%s=9223372036854775808", sec,
			 key);
		expect_set_error(expr, "got '9223372036854775808'");
	}
}

/* A value past its bound that reached the struct by another way than a
   file (a program filling it) is stopped by the validator. */
static void test_validate_bounds(void **state)
{
	struct workload wl;
	struct diag d;

	(void)state;
	workload_init(&wl);
	wl.model.params = 7e9;
	wl.cluster.gpus_per_node = 1073741825;
	diag_clear(&d);
	assert_int_equal(workload_validate(&wl, &d), -1);
	assert_string_equal(d.msg, "'gpus_per_node' must be an integer from "
				   "1 to 65536 or 'auto', got 1073741825");
	wl.cluster.gpus_per_node = 65536;
	wl.training.micro_batch = 2147483647;
	diag_clear(&d);
	assert_int_equal(workload_validate(&wl, &d), -1);
	assert_string_equal(d.msg, "'micro_batch' must be an integer from 1 "
				   "to 1073741824 or 'auto', got 2147483647");
	wl.training.micro_batch = 1073741824;
	diag_clear(&d);
	assert_int_equal(workload_validate(&wl, &d), 0);
}

/* workload_validate of 'wl' fails in t.ini at line:col (0:0, none) with a
   message containing 'msg'. */
static void expect_invalid_at(const struct workload *wl, int line, int col,
			      const char *msg)
{
	struct diag d;

	diag_clear(&d);
	assert_int_equal(workload_validate(wl, &d), -1);
	assert_string_equal(d.file, "t.ini");
	assert_int_equal(d.line, line);
	assert_int_equal(d.col, col);
	assert_contains(d.msg, msg);
}

/* The keys of wide expert parallelism and multi-token prediction: each
   with what it needs (specs/workload.md). */
static void test_wide_ep_keys(void **state)
{
	static const char moe[] = "[model]\n"
				  "name = t\n"
				  "layers = 4\n"
				  "hidden = 64\n"
				  "heads = 4\n"
				  "vocab = 100\n"
				  "seq_len = 128\n"
				  "experts = 8\n"
				  "experts_per_token = 2\n"
				  "[inference]\n"
				  "ep = 4\n";
	char text[1024];
	struct workload wl;
	struct diag d;

	(void)state;
	snprintf(text, sizeof(text), "%sexpert_imbalance = 1.25\n"
		 "redundant_experts = 4\nep_comm_overlap = true\n", moe);
	parse_ok(text, &wl);
	diag_clear(&d);
	assert_int_equal(workload_validate(&wl, &d), 0);
	assert_true(wl.inference.expert_imbalance == 1.25);
	assert_int_equal(wl.inference.redundant_experts, 4);
	assert_true(wl.inference.ep_comm_overlap);
	/* auto is 0; below 1 is no imbalance */
	snprintf(text, sizeof(text), "%sexpert_imbalance = auto\n", moe);
	parse_ok(text, &wl);
	assert_true(wl.inference.expert_imbalance == 0.0);
	snprintf(text, sizeof(text), "%sexpert_imbalance = 0.5\n", moe);
	expect_error(text, 12, 20, "'expert_imbalance' must be a number from "
				   "1 to 1e+06 or 'auto'");
	/* ep must divide the experts with their copies */
	snprintf(text, sizeof(text), "%sredundant_experts = 2\n", moe);
	parse_ok(text, &wl);
	expect_invalid_at(&wl, 11, 6, "'inference.ep' (4) must divide "
				     "'experts' + 'inference.redundant_experts' "
				     "(10)");
	/* without experts spread over ranks */
	snprintf(text, sizeof(text), "%s", moe);
	strcpy(strstr(text, "ep = 4"), "ep = 1\nep_comm_overlap = true\n");
	parse_ok(text, &wl);
	expect_invalid_at(&wl, 12, 19, "'inference.ep_comm_overlap' is for "
				     "experts spread over ranks");
	/* MTP drafts need the modules and speculative decoding */
	snprintf(text, sizeof(text), "%sspeculative_method = mtp\n"
		 "speculative_tokens = 1\nacceptance_rate = 0.8\n"
		 "qps = 1\n", moe);
	parse_ok(text, &wl);
	expect_invalid_at(&wl, 12, 22, "give 'model.mtp_layers'");
	wl.model.mtp_layers = 1;
	diag_clear(&d);
	assert_int_equal(workload_validate(&wl, &d), 0);
	wl.inference.speculative_tokens = 0;
	wl.inference.acceptance_rate = 0.0;
	expect_invalid_at(&wl, 12, 22, "'inference.speculative_method' is for "
				     "speculative decoding");
}

/*
 * An error of the keys together is placed at the key it is about (the
 * first key quoted in it) where the file gave that key: its line and the
 * column of its value; not where --set gave it since, nor for a key the
 * file left out.
 */
static void test_validate_position(void **state)
{
	static const char text[] = "[model]\n"
				   "name = t\n"
				   "layers = 2\n"
				   "hidden = 64\n"
				   "heads =  6\n"
				   "vocab = 100\n"
				   "seq_len = 128\n"
				   "[training]\n"
				   "tp = 3\n";
	struct workload wl;
	struct diag d;

	(void)state;
	parse_ok(text, &wl);
	expect_invalid_at(&wl, 5, 10, "'heads' (6) must divide 'hidden' (64)");
	/* heads fixed by --set: the next error, tp's, is at its line */
	assert_int_equal(workload_set(&wl, "model.heads=8", &d), 0);
	expect_invalid_at(&wl, 9, 6,
			  "'training.tp' (3) must divide 'heads' (8)");
	/* tp from --set: no position in the file */
	assert_int_equal(workload_set(&wl, "training.tp=5", &d), 0);
	expect_invalid_at(&wl, 0, 0,
			  "'training.tp' (5) must divide 'heads' (8)");
}

static void test_set_errors(void **state)
{
	(void)state;
	expect_set_error("training.tpp=8",
			 "unknown key 'training.tpp'; did you mean "
			 "'training.tp'?");
	expect_set_error("training.tp=x",
			 "'training.tp' must be an integer from 1 to 65536 or "
			 "'auto', got 'x'");
	expect_set_error("training.tp=", "empty value for 'training.tp'");
	expect_set_error("training.tp",
			 "expected 'section.key=value', got 'training.tp'");
	expect_set_error("tp=8", "expected 'section.key=value', got 'tp=8'; "
				 "did you mean 'training.tp'?");
	expect_set_error("bogus=8",
			 "expected 'section.key=value', got 'bogus=8'");
	expect_set_error("traning.tp=8", "unknown section 'traning'");
}

static void expect_invalid(const char *text, const char *msg)
{
	struct workload wl;
	struct diag d;

	parse_ok(text, &wl);
	diag_clear(&d);
	assert_int_equal(workload_validate(&wl, &d), -1);
	assert_string_equal(d.file, "t.ini");
	assert_contains(d.msg, msg);
}

static void expect_valid(const char *text)
{
	struct workload wl;
	struct diag d;

	parse_ok(text, &wl);
	diag_clear(&d);
	if (workload_validate(&wl, &d) != 0)
		fail_msg("validate: %s", d.msg);
}

#define ARCH "[model]\nlayers = 40\nvocab = 32000\nseq_len = 4096\n"

/* The search's knobs: a count of layers for full recomputation, and the
   tensor-parallel overlap with what it needs. */
static void test_recompute_layers_tp_overlap(void **state)
{
	struct workload wl;

	(void)state;
	parse_ok("[training]\nrecompute = full\nrecompute_layers = 3\n"
		 "tp_comm_overlap = yes\n", &wl);
	assert_int_equal(wl.training.recompute_layers, 3);
	assert_int_equal(wl.training.tp_comm_overlap, 1);
	parse_ok("[training]\nrecompute_layers = auto\n"
		 "tp_comm_overlap = auto\n", &wl);
	assert_int_equal(wl.training.recompute_layers, WL_AUTO);
	assert_int_equal(wl.training.tp_comm_overlap, WL_AUTO_NEG);
	expect_error("[training]\nrecompute_layers = 0\n", 2, 20,
		     "recompute_layers");
	expect_error("[training]\ntp_comm_overlap = 2\n", 2, 19,
		     "tp_comm_overlap");
	expect_valid(ARCH "hidden = 5120\nheads = 40\n[training]\n"
			  "recompute_layers = 2\n");
	expect_invalid(ARCH "hidden = 5120\nheads = 40\n[training]\n"
			    "recompute = selective\nrecompute_layers = 2\n",
		       "'recompute_layers' (2) needs 'recompute' full, got "
		       "'selective'");
	expect_invalid(ARCH "hidden = 5120\nheads = 40\n[training]\n"
			    "tp_comm_overlap = true\nsequence_parallel = "
			    "false\n",
		       "'tp_comm_overlap' needs sequence parallelism over "
		       "tp > 1 ('sequence_parallel' is false)");
	expect_invalid(ARCH "hidden = 5120\nheads = 40\n[training]\n"
			    "tp_comm_overlap = true\ntp = 1\n",
		       "('tp' is 1)");
	expect_valid(ARCH "hidden = 5120\nheads = 40\n[training]\n"
			  "tp_comm_overlap = true\ntp = 8\n");
}

/* training.offload_optimizer: a boolean, a fraction or auto; the host
   keys of [cluster] with their units. */
static void test_offload_keys(void **state)
{
	struct workload wl;

	(void)state;
	workload_init(&wl);
	assert_true(wl.training.offload_optimizer == WL_OFFLOAD_AUTO);
	assert_close(wl.cluster.cpu_adam_params_per_s, 10e9 / 2.57);
	assert_true(wl.cluster.host_memory_bytes == 0.0);
	assert_true(wl.cluster.host_link_bw_bytes_per_s == 0.0);
	parse_ok("[training]\noffload_optimizer = true\n", &wl);
	assert_true(wl.training.offload_optimizer == 1.0);
	parse_ok("[training]\noffload_optimizer = off\n", &wl);
	assert_true(wl.training.offload_optimizer == 0.0);
	parse_ok("[training]\noffload_optimizer = 0.25\n", &wl);
	assert_true(wl.training.offload_optimizer == 0.25);
	parse_ok("[training]\noffload_optimizer = auto\n", &wl);
	assert_true(wl.training.offload_optimizer == WL_OFFLOAD_AUTO);
	parse_ok("[cluster]\nhost_memory = 2TB\nhost_link_bw = 64GB/s\n"
		 "cpu_adam_rate = 5.5B\n", &wl);
	assert_close(wl.cluster.host_memory_bytes, 2e12);
	assert_close(wl.cluster.host_link_bw_bytes_per_s, 64e9);
	assert_close(wl.cluster.cpu_adam_params_per_s, 5.5e9);
	expect_error("[training]\noffload_optimizer = 1.5\n", 2, 21,
		     "'offload_optimizer' must be true, false, 'auto' or a "
		     "fraction from 0 to 1, got '1.5'");
	expect_error("[training]\noffload_optimizer = half\n", 2, 21,
		     "got 'half'");
	expect_error("[training]\noffload_optimizer = -0.5\n", 2, 21,
		     "fraction from 0 to 1");
	expect_error("[cluster]\nhost_memory = 2TB/s\n", 2, 15,
		     "host_memory");
	expect_error("[cluster]\nhost_link_bw = 1kB/s\n", 2, 16,
		     "at least 1MB/s");
	expect_error("[cluster]\ncpu_adam_rate = 10\n", 2, 17,
		     "'cpu_adam_rate' must be a count of at least 1K");
	expect_valid(ARCH "hidden = 5120\nheads = 40\n[training]\n"
			  "offload_optimizer = 1\nzero = 1\n");
	expect_invalid(ARCH "hidden = 5120\nheads = 40\n[training]\n"
			    "offload_optimizer = 0.5\nzero = 0\n",
		       "'offload_optimizer' (0.5) needs 'zero' 1 or more");
	expect_invalid("[model]\nkind = generic\nparams = 25M\n"
		       "flops_per_sample = 4G\n[training]\nsamples = 1M\n"
		       "offload_optimizer = true\n",
		       "'offload_optimizer' is modelled for transformers, "
		       "not a generic model");
}

/* The element-wise operations a framework runs eager: a list, "none"
   for none, each name checked where it stands; transformers only. */
static void test_eager_ops_key(void **state)
{
	struct workload wl;

	(void)state;
	workload_init(&wl);
	assert_int_equal(wl.training.eager_ops, 0);
	parse_ok("[training]\neager_ops = norm, rope,kv_expand\n", &wl);
	assert_int_equal(wl.training.eager_ops,
			 EAGER_OP_NORM | EAGER_OP_ROPE | EAGER_OP_KV_EXPAND);
	parse_ok("[training]\neager_ops = act\n", &wl);
	assert_int_equal(wl.training.eager_ops, EAGER_OP_ACT);
	parse_ok("[training]\neager_ops = none\n", &wl);
	assert_int_equal(wl.training.eager_ops, 0);
	expect_error("[training]\neager_ops = norm,swiglu\n", 2, 18,
		     "'eager_ops': unknown item 'swiglu'; expected none, "
		     "norm, rope, act, kv_expand");
	expect_error("[training]\neager_ops = norm,,act\n", 2, 18,
		     "must be a comma-separated list");
	expect_valid(ARCH "hidden = 5120\nheads = 40\n[training]\n"
			  "eager_ops = norm,act\n");
	expect_invalid("[model]\nkind = generic\nparams = 25M\n"
		       "flops_per_sample = 4G\n[training]\nsamples = 1M\n"
		       "eager_ops = norm\n",
		       "'training.eager_ops' is for transformer models");
}

static void test_validate(void **state)
{
	struct workload wl;
	struct diag d;

	(void)state;
	expect_invalid(ARCH "hidden = 5120\nheads = 48\n",
		       "'heads' (48) must divide 'hidden' (5120)");
	expect_invalid(ARCH "hidden = 5120\nheads = 40\nkv_heads = 6\n",
		       "'kv_heads' (6) must divide 'heads' (40)");
	expect_invalid(ARCH "hidden = 5120\nheads = 40\nkv_heads = 80\n",
		       "'kv_heads' (80) must not exceed 'heads' (40)");
	expect_invalid(ARCH "hidden = 5120\nheads = 40\n[training]\ntp = 3\n",
		       "'training.tp' (3) must divide 'heads' (40)");
	expect_invalid(ARCH "hidden = 5120\nheads = 40\n[inference]\n"
		       "tp = 16\n",
		       "'inference.tp' (16) must divide 'heads' (40)");
	expect_invalid(ARCH "hidden = 5120\nheads = 40\nkv_heads = 8\n"
		       "[training]\ntp = 10\n",
		       "'training.tp' (10) and 'kv_heads' (8) must divide "
		       "one another");
	expect_invalid(ARCH "hidden = 5120\nheads = 40\n[training]\n"
		       "gpus = 1000\ntp = 8\npp = 4\ncp = 1\n",
		       "'gpus' (1000) must be a multiple of tp*pp*cp "
		       "(8*4*1 = 32)");
	expect_invalid(ARCH "hidden = 5120\nheads = 40\n[training]\n"
		       "gpus = 64\ntp = 8\npp = 2\ncp = 1\n"
		       "micro_batch = 2\nglobal_batch = 100\n",
		       "'global_batch' (100) must be a multiple of "
		       "micro_batch*dp (2*4 = 8)");
	expect_invalid(ARCH "hidden = 5120\nheads = 40\n[training]\n"
		       "micro_batch = 3\nglobal_batch = 100\n",
		       "'global_batch' (100) must be a multiple of "
		       "'micro_batch' (3)");
	expect_invalid(ARCH "hidden = 5120\nheads = 40\n[training]\npp = 48\n",
		       "'pp' (48) must not exceed 'layers' (40)");
	expect_invalid(ARCH "hidden = 5120\nheads = 40\n[training]\n"
		       "pp = 1\nvp = 2\n", "'vp' (2) needs 'pp'");
	expect_invalid(ARCH "hidden = 5120\nheads = 40\n[training]\n"
		       "pp = 8\nvp = 6\n",
		       "'layers' (40) must be at least pp*vp-2 (8*6-2 = 46): "
		       "a layer per chunk, but for the first and the last "
		       "chunk, which may hold only the embedding and the "
		       "output layer");
	/* uneven stages are legal (Llama 3 405B: 126 layers on 16 x 8
	   chunks, the first and last chunk holding only the embedding and
	   the output layer) */
	expect_valid(ARCH "hidden = 5120\nheads = 40\n[training]\n"
		     "pp = 4\nvp = 3\n");
	expect_valid(ARCH "hidden = 5120\nheads = 40\n[training]\n"
		     "pp = 6\nvp = 7\n");
	expect_valid(ARCH "hidden = 5120\nheads = 40\n[training]\n"
		     "pp = 6\nvp = 7\nfirst_stage_layers = 6\n"
		     "last_stage_layers = 6\n");
	expect_invalid(ARCH "hidden = 5120\nheads = 40\nexperts = 8\n"
		       "experts_per_token = 9\n",
		       "'experts_per_token' (9) must not exceed 'experts' "
		       "(8)");
	expect_invalid(ARCH "hidden = 5120\nheads = 40\nshared_experts = 1\n",
		       "need 'experts'");
	expect_invalid(ARCH "hidden = 5120\nheads = 40\n[training]\nep = 2\n",
		       "'training.ep' (2) needs a mixture-of-experts model");
	expect_invalid(ARCH "hidden = 5120\nheads = 40\nexperts = 8\n"
		       "[training]\nep = 3\n",
		       "'training.ep' (3) must divide 'experts' (8)");
	expect_invalid(ARCH "hidden = 5120\nheads = 40\nv_head_dim = 64\n",
		       "need 'kv_lora_rank'");
	expect_invalid(ARCH "hidden = 5120\nheads = 40\n[training]\ncp = 3\n",
		       "'cp' (3) must divide 'seq_len' (4096)");
	expect_invalid("[training]\ntp = 8\n",
		       "no model: give [model] layers, hidden, heads, vocab, "
		       "seq_len or params");
	/* weight-only math is for 8-bit weights */
	expect_invalid(ARCH "hidden = 4096\nheads = 32\n[inference]\n"
			    "weight_only = true\n",
		       "'inference.weight_only' is for int8, fp8 and fp4 "
		       "weights");
	expect_invalid(ARCH "hidden = 4096\nheads = 32\n[inference]\n"
			    "weight_precision = int4\nweight_only = true\n",
		       "'inference.weight_precision' is int4");
	expect_valid(ARCH "hidden = 4096\nheads = 32\n[inference]\n"
			  "weight_precision = int8\nweight_only = true\n");
	/* the weights outside the routed experts: a format of their own
	   only in a mixture of experts */
	expect_valid(ARCH "hidden = 4096\nheads = 32\nexperts = 8\n"
			  "experts_per_token = 2\n[inference]\n"
			  "weight_precision = fp4\n"
			  "non_expert_precision = bf16\n");
	expect_valid(ARCH "hidden = 4096\nheads = 32\n[inference]\n"
			  "non_expert_precision = same\n");
	expect_invalid(ARCH "hidden = 4096\nheads = 32\n[inference]\n"
			    "non_expert_precision = bf16\n",
		       "'inference.non_expert_precision' is for a mixture "
		       "of experts");
	/* MXFP4 blocks are for fp4 weights */
	expect_valid(ARCH "hidden = 4096\nheads = 32\n[inference]\n"
			  "weight_precision = fp4\nfp4_format = mxfp4\n");
	expect_valid(ARCH "hidden = 4096\nheads = 32\n[inference]\n"
			  "fp4_format = nvfp4\n");
	expect_invalid(ARCH "hidden = 4096\nheads = 32\n[inference]\n"
			    "weight_precision = int4\nfp4_format = mxfp4\n",
		       "'inference.fp4_format' mxfp4 is for fp4 weights; "
		       "'inference.weight_precision' is int4");
	expect_invalid("[model]\nlayers = 32\nhidden = 4096\n",
		       "incomplete model");

	/* first and last stage layers */
	expect_invalid(ARCH "hidden = 5120\nheads = 40\n[training]\n"
		       "first_stage_layers = 41\n",
		       "'first_stage_layers' (41) must not exceed 'layers' "
		       "(40)");
	expect_invalid(ARCH "hidden = 5120\nheads = 40\n[training]\n"
		       "pp = 1\nlast_stage_layers = 39\n",
		       "'last_stage_layers' (39) must be 'layers' (40) when "
		       "'pp' is 1: the one stage is the first and the last");
	expect_valid(ARCH "hidden = 5120\nheads = 40\n[training]\n"
		     "pp = 1\nfirst_stage_layers = 40\n");
	expect_invalid(ARCH "hidden = 5120\nheads = 40\n[training]\n"
		       "pp = 4\nvp = 4\nfirst_stage_layers = 2\n",
		       "'first_stage_layers' (2) must be at least vp-1 (3) "
		       "with 'vp' 4: a layer per chunk, but one chunk that "
		       "holds only the embedding");
	expect_invalid(ARCH "hidden = 5120\nheads = 40\n[training]\n"
		       "pp = 4\nvp = 4\nlast_stage_layers = 2\n",
		       "'last_stage_layers' (2) must be at least vp-1 (3) "
		       "with 'vp' 4: a layer per chunk, but one chunk that "
		       "holds only the output layer");
	expect_invalid(ARCH "hidden = 5120\nheads = 40\n[training]\n"
		       "pp = 2\nfirst_stage_layers = 19\n"
		       "last_stage_layers = 20\n",
		       "'first_stage_layers' + 'last_stage_layers' (19+20) "
		       "must be 'layers' (40) with 'pp' 2");
	expect_invalid(ARCH "hidden = 5120\nheads = 40\n[training]\n"
		       "pp = 4\nvp = 5\nfirst_stage_layers = 16\n"
		       "last_stage_layers = 15\n",
		       "'first_stage_layers' + 'last_stage_layers' (16+15) "
		       "leave 9 of 'layers' (40) to the middle stages, which "
		       "need at least (pp-2)*vp = 10, a layer per chunk");
	expect_invalid(ARCH "hidden = 5120\nheads = 40\n[training]\n"
		       "pp = 4\nvp = 5\nfirst_stage_layers = 27\n",
		       "'first_stage_layers' (27) leaves 13 of 'layers' (40) "
		       "to the other stages, which need at least 14, a layer "
		       "per chunk");
	expect_invalid(ARCH "hidden = 5120\nheads = 40\n[training]\n"
		       "pp = 2\nlast_stage_layers = 40\n",
		       "'last_stage_layers' (40) leaves 0 of 'layers' (40) "
		       "to the other stages, which need at least 1, a layer "
		       "per chunk");
	expect_invalid(ARCH "hidden = 5120\nheads = 40\n[training]\n"
		       "first_stage_layers = 21\nlast_stage_layers = 20\n",
		       "'first_stage_layers' + 'last_stage_layers' (21+20) "
		       "must not exceed 'layers' (40)");
	/* pp open: the search checks each pp */
	expect_valid(ARCH "hidden = 5120\nheads = 40\n[training]\n"
		     "first_stage_layers = 20\nlast_stage_layers = 20\n");
	expect_valid(ARCH "hidden = 5120\nheads = 40\n[training]\n"
		     "pp = 4\nvp = 5\nfirst_stage_layers = 16\n"
		     "last_stage_layers = 14\n");

	expect_valid("[model]\nparams = 405B\n");
	expect_valid(ARCH "hidden = 5120\nheads = 40\nkv_heads = 8\n"
		     "[training]\ntp = 4\npp = 4\nvp = 5\ncp = 2\n"
		     "gpus = 96\nmicro_batch = 1\nglobal_batch = 48\n"
		     "[inference]\ntp = 8\n");

	/* values the file cannot give, set directly */
	parse_ok("[model]\nparams = 7B\n", &wl);
	wl.training.precision = PREC_INT8;
	diag_clear(&d);
	assert_int_equal(workload_validate(&wl, &d), -1);
	assert_contains(d.msg, "'precision' must be one of fp32, tf32, bf16, fp16, "
			       "fp8");
	wl.training.precision = PREC_BF16;
	wl.cluster.pue = nan("");
	diag_clear(&d);
	assert_int_equal(workload_validate(&wl, &d), -1);
	assert_contains(d.msg, "'pue' must be");
	wl.cluster.pue = 1.2;
	wl.inference.prompt_tokens = 0;
	diag_clear(&d);
	assert_int_equal(workload_validate(&wl, &d), -1);
	assert_contains(d.msg, "'prompt_tokens' must be an integer from 1 to "
			       "16777216, got 0");

	/* no file: no file name in the message */
	workload_init(&wl);
	diag_clear(&d);
	assert_int_equal(workload_validate(&wl, &d), -1);
	assert_string_equal(d.file, "");
}

/* [model] embedding_rows: one count for every table, or one per table
   (their mean kept as the average), the list's length checked against
   embedding_tables where the list is given. */
#define RECSYS "[model]\nkind = recsys\nembedding_dim = 128\n" \
	       "top_mlp = 1\n"
static void test_embedding_rows(void **state)
{
	struct workload wl;
	struct diag d;

	(void)state;
	parse_ok(RECSYS "embedding_tables = 3\nembedding_rows = 1e6, 10, 500K\n",
		 &wl);
	assert_int_equal(wl.model.table_rows.n, 3);
	assert_close(wl.model.table_rows.rows[0], 1e6);
	assert_close(wl.model.table_rows.rows[1], 10);
	assert_close(wl.model.table_rows.rows[2], 5e5);
	assert_close(wl.model.embedding_rows, (1e6 + 10 + 5e5) / 3);
	diag_clear(&d);
	assert_int_equal(workload_validate(&wl, &d), 0);
	/* a single count: every table, today's meaning */
	parse_ok(RECSYS "embedding_tables = 3\nembedding_rows = 40M\n", &wl);
	assert_int_equal(wl.model.table_rows.n, 0);
	assert_close(wl.model.embedding_rows, 40e6);
	/* the list's length against the tables, at the list */
	expect_error(RECSYS "embedding_tables = 2\nembedding_rows = 1e6, 10, 5e5\n",
		     6, 18, "'embedding_rows' lists 3 tables, but "
		     "'embedding_tables' is 2");
	expect_error(RECSYS "embedding_rows = 1e6,10\nembedding_tables = 3\n",
		     5, 18, "lists 2 tables");
	/* a bad item, at its column */
	expect_error(RECSYS "embedding_tables = 2\nembedding_rows = 1e6, x\n",
		     6, 23, "'x' is not a whole row count");
	expect_error(RECSYS "embedding_tables = 2\nembedding_rows = 1e6,,3\n",
		     6, 22, "an empty item");
	expect_error(RECSYS "embedding_tables = 2\nembedding_rows = 1e6, 0\n",
		     6, 23, "'0' is not a whole row count");
	/* half a row is no row (issue 40) */
	expect_error(RECSYS "embedding_tables = 2\nembedding_rows = 1e6, 0.5\n",
		     6, 23, "'0.5' is not a whole row count from 1 to");
	/* the tables changed after the file: the check names both keys */
	parse_ok(RECSYS "embedding_tables = 3\nembedding_rows = 1e6, 10, 5e5\n",
		 &wl);
	diag_clear(&d);
	assert_int_equal(workload_set(&wl, "model.embedding_tables=4", &d), 0);
	assert_int_equal(workload_validate(&wl, &d), -1);
	assert_contains(d.msg, "'embedding_rows' lists 3 tables, but "
			       "'embedding_tables' is 4");
	/* --set takes a list too */
	assert_int_equal(workload_set(&wl, "model.embedding_rows=1,2,3,4", &d),
			 0);
	assert_int_equal(wl.model.table_rows.n, 4);
	assert_close(wl.model.embedding_rows, 2.5);
	assert_int_equal(workload_validate(&wl, &d), 0);

	/* the wide part: a recommender's, trained with FTRL by default */
	parse_ok(RECSYS "embedding_tables = 2\nembedding_rows = 1M\n"
		 "wide = true\n", &wl);
	assert_true(wl.model.wide);
	assert_int_equal(wl.model.wide_optimizer, WIDE_FTRL);
	assert_int_equal(workload_validate(&wl, &d), 0);
	parse_ok(RECSYS "embedding_tables = 2\nembedding_rows = 1M\n"
		 "wide = yes\nwide_optimizer = adagrad\n", &wl);
	assert_int_equal(wl.model.wide_optimizer, WIDE_ADAGRAD);
	expect_invalid(RECSYS "embedding_tables = 2\nembedding_rows = 1M\n"
		       "wide_optimizer = sgd\n",
		       "'wide_optimizer' needs a wide part");
	expect_invalid("[model]\nkind = generic\nparams = 25M\n"
		       "flops_per_sample = 8G\nwide = true\n",
		       "'wide' describes a recommender");
	expect_error(RECSYS "wide_optimizer = ftlr\n", 5, 18,
		     "'wide_optimizer' must be one of ftrl, adagrad, sgd");
}

static void test_load_file(void **state)
{
	char path[] = "/tmp/test_workload_XXXXXX";
	struct workload wl;
	struct diag d;
	FILE *f;
	int fd;

	(void)state;
	workload_init(&wl);
	diag_clear(&d);
	assert_int_equal(workload_load_file("/nonexistent/x.ini", &wl, &d),
			 -1);
	assert_contains(d.msg, "cannot read '/nonexistent/x.ini': ");

	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs("[model]\nparams = 8.03B\n[cluster]\npue = 1.1.1\n", f);
	fclose(f);
	diag_clear(&d);
	assert_int_equal(workload_load_file(path, &wl, &d), -1);
	assert_string_equal(d.file, path);
	assert_int_equal(d.line, 4);
	assert_int_equal(d.col, 7);
	unlink(path);
}

/* A model read from a Hugging Face config is named by its file, or by
   the checkpoint's folder when the file is config.json; a name given
   in the workload or by --set wins, and a later config renames it. */
static void test_name_from_hf_config(void **state)
{
	char dir[] = "/tmp/test_workload_XXXXXX";
	char sub[64], cfg[96], other[96], set[128];
	const char *json = "{\"model_type\": \"llama\", "
			   "\"num_hidden_layers\": 2, \"hidden_size\": 64, "
			   "\"num_attention_heads\": 4, \"vocab_size\": 100, "
			   "\"max_position_embeddings\": 256}";
	struct workload wl;
	struct diag d;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/Tiny-2L", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	snprintf(cfg, sizeof(cfg), "%s/config.json", sub);
	snprintf(other, sizeof(other), "%s/tiny-other.json", dir);
	for (int i = 0; i < 2; i++) {
		f = fopen(i ? other : cfg, "w");
		assert_non_null(f);
		fputs(json, f);
		fclose(f);
	}
	workload_init(&wl);
	diag_clear(&d);
	snprintf(set, sizeof(set), "model.hf_config=%s", cfg);
	assert_int_equal(workload_set(&wl, set, &d), 0);
	assert_string_equal(wl.model.name, "Tiny-2L");
	snprintf(set, sizeof(set), "model.hf_config=%s", other);
	assert_int_equal(workload_set(&wl, set, &d), 0);
	assert_string_equal(wl.model.name, "tiny-other");
	assert_int_equal(workload_set(&wl, "model.name=mine", &d), 0);
	snprintf(set, sizeof(set), "model.hf_config=%s", cfg);
	assert_int_equal(workload_set(&wl, set, &d), 0);
	assert_string_equal(wl.model.name, "mine");
	unlink(cfg);
	unlink(other);
	rmdir(sub);
	rmdir(dir);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(recompute_name(RECOMPUTE_AUTO), "auto");
	assert_string_equal(recompute_name(RECOMPUTE_NONE), "none");
	assert_string_equal(recompute_name(RECOMPUTE_SELECTIVE), "selective");
	assert_string_equal(recompute_name(RECOMPUTE_FULL), "full");
	assert_string_equal(optimizer_name(OPTIMIZER_ADAM), "adam");
	assert_string_equal(optimizer_name(OPTIMIZER_SGD), "sgd");
	assert_string_equal(attention_name(ATTN_FLASH), "flash");
	assert_string_equal(attention_name(ATTN_UNFUSED), "unfused");
	assert_string_equal(attention_name(ATTN_FLASH2), "flash2");
	assert_string_equal(slo_percentile_name(SLO_P50), "p50");
	assert_string_equal(slo_percentile_name(SLO_P90), "p90");
	assert_string_equal(slo_percentile_name(SLO_P99), "p99");
	assert_string_equal(recompute_name((enum recompute)7), "?");
}

/* 'capplan help keys': every key says what it takes, as errors do. */
static const char *accepts_of(const char *section, const char *key,
			      char *buf, size_t size)
{
	for (size_t i = 0; i < workload_key_count(); i++) {
		const char *sec, *k;

		workload_key_info(i, &sec, &k, buf, size);
		if (strcmp(sec, section) == 0 && strcmp(k, key) == 0)
			return buf;
	}
	fail_msg("no key %s.%s", section, key);
	return NULL;
}

static void test_key_info(void **state)
{
	char buf[512];
	size_t n = workload_key_count();

	(void)state;
	assert_true(n > 100);
	for (size_t i = 0; i < n; i++) {
		const char *sec, *key;

		workload_key_info(i, &sec, &key, buf, sizeof(buf));
		assert_true(strlen(buf) > 8);
		assert_true(strlen(buf) < sizeof(buf) - 1); /* not cut */
	}
	assert_string_equal(accepts_of("training", "tp", buf, sizeof(buf)),
			    "an integer from 1 to 65536 or 'auto'");
	assert_string_equal(accepts_of("model", "gated_ffn", buf,
				       sizeof(buf)),
			    "true or false (yes/no, on/off, 1/0)");
	assert_string_equal(accepts_of("model", "name", buf, sizeof(buf)),
			    "a name of at most 63 bytes");
	assert_string_equal(accepts_of("inference", "trace", buf,
				       sizeof(buf)),
			    "a file path of at most 255 bytes");
	assert_string_equal(accepts_of("training", "recompute", buf,
				       sizeof(buf)),
			    "one of none, selective, full, auto");
	assert_string_equal(accepts_of("training", "zero_shard", buf,
				       sizeof(buf)),
			    "one of all, node or an integer from 2 to "
			    "16777216");
	assert_string_equal(accepts_of("cluster", "nvlink_sharp", buf,
				       sizeof(buf)),
			    "true, false or auto");
	/* a number or a quantity that takes 'auto' says so */
	assert_string_equal(accepts_of("model", "cache_hit_rate", buf,
				       sizeof(buf)),
			    "a number from 0 to 1 or 'auto'");
	assert_string_equal(accepts_of("inference", "request_overhead", buf,
				       sizeof(buf)),
			    "a duration of at most 1s or 'auto'");
}

/* 'capplan help keys': every key of the table says what it means, in a
   line that fits the listing (at most 60 characters after column 27). */
static void test_key_meaning(void **state)
{
	size_t n = workload_key_count();

	(void)state;
	for (size_t i = 0; i < n; i++) {
		const char *m = workload_key_meaning(i);
		size_t len;

		if (!m || m[0] == '\0')
			fail_msg("%s.%s has no meaning",
				 workload_key_section(i), workload_key_name(i));
		len = strlen(m);
		if (len > 60)
			fail_msg("%s.%s: meaning of %zu characters, at most 60",
				 workload_key_section(i), workload_key_name(i),
				 len);
		/* one line of printable ASCII, no blank at either end and no
		   full stop, as the listing prints it */
		for (size_t j = 0; j < len; j++)
			if (m[j] < ' ' || m[j] > '~')
				fail_msg("%s.%s: byte 0x%02x in its meaning",
					 workload_key_section(i),
					 workload_key_name(i),
					 (unsigned char)m[j]);
		assert_true(m[0] != ' ' && m[len - 1] != ' ');
		assert_true(m[len - 1] != '.');
	}
	assert_null(workload_key_meaning(n));
	assert_string_equal(workload_key_meaning((size_t)workload_key_find(
				    "inference", "ttft_slo")),
			    "time-to-first-token target (per-sample: batch "
			    "latency)");
	assert_string_equal(workload_key_meaning((size_t)workload_key_find(
				    "cluster", "price_per_kwh")),
			    "electricity price, USD per kWh");
	/* tp in two sections, two meanings */
	assert_string_not_equal(
		workload_key_meaning((size_t)workload_key_find("training",
								"tp")),
		workload_key_meaning((size_t)workload_key_find("inference",
								"tp")));
}

/* The default of key section.key as 'capplan help keys' shows it. */
static const char *default_of(const char *section, const char *key,
			      char *buf, size_t size)
{
	for (size_t i = 0; i < workload_key_count(); i++) {
		const char *sec, *k;
		char accepts[512];

		workload_key_info(i, &sec, &k, accepts, sizeof(accepts));
		if (strcmp(sec, section) == 0 && strcmp(k, key) == 0) {
			workload_key_default(i, buf, size);
			return buf;
		}
	}
	fail_msg("no key %s.%s", section, key);
	return NULL;
}

/* Each default as a file would give it: left to capplan, derived, a
   count, a quantity in its unit, a name, a boolean. */
static void test_key_default(void **state)
{
	static const struct {
		const char *section, *key, *want;
	} cases[] = {
		{ "training", "tp", "auto" },
		{ "training", "zero", "auto" },
		{ "training", "recompute", "auto" },
		{ "training", "precision", "bf16" },
		{ "training", "epochs", "1" },
		{ "training", "tokens", "unset" },
		{ "model", "layers", "unset" },
		{ "model", "name", "unset" },
		{ "model", "tied_embeddings", "true" },
		{ "model", "gated_ffn", "false" },
		{ "inference", "kernel_overhead", "7us" },
		{ "inference", "host_request_overhead", "10ms" },
		{ "inference", "percentile", "p99" },
		{ "inference", "prompt_tokens", "512" },
		{ "inference", "cuda_graphs", "auto" },
		{ "cluster", "storage_bw", "1GB/s" },
		{ "cluster", "pue", "1.2" },
		{ "cluster", "pricing", "cloud" },
		{ "cluster", "nvlink_sharp", "auto" },
	};
	char buf[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_string_equal(default_of(cases[i].section, cases[i].key,
					       buf, sizeof(buf)),
				    cases[i].want);
	/* every key has one, short enough for the listing */
	for (size_t i = 0; i < workload_key_count(); i++) {
		workload_key_default(i, buf, sizeof(buf));
		assert_true(buf[0] != '\0' && strlen(buf) < 20);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_file),
		cmocka_unit_test(test_model_name_text),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_goodput_keys),
		cmocka_unit_test(test_pricing_keys),
		cmocka_unit_test(test_auto_values),
		cmocka_unit_test(test_kv_precision_follows_weights),
		cmocka_unit_test(test_bom_and_crlf),
		cmocka_unit_test(test_unknown_section),
		cmocka_unit_test(test_unknown_key),
		cmocka_unit_test(test_key_suggestion),
		cmocka_unit_test(test_duplicate_key),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_bad_units),
		cmocka_unit_test(test_not_finite),
		cmocka_unit_test(test_out_of_range),
		cmocka_unit_test(test_integer_bounds),
		cmocka_unit_test(test_validate_bounds),
		cmocka_unit_test(test_empty_value),
		cmocka_unit_test(test_nul_byte),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_indented_line),
		cmocka_unit_test(test_syntax_errors),
		cmocka_unit_test(test_set),
		cmocka_unit_test(test_validate_position),
		cmocka_unit_test(test_wide_ep_keys),
		cmocka_unit_test(test_set_errors),
		cmocka_unit_test(test_validate),
		cmocka_unit_test(test_recompute_layers_tp_overlap),
		cmocka_unit_test(test_offload_keys),
		cmocka_unit_test(test_eager_ops_key),
		cmocka_unit_test(test_embedding_rows),
		cmocka_unit_test(test_load_file),
		cmocka_unit_test(test_name_from_hf_config),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_key_info),
		cmocka_unit_test(test_key_meaning),
		cmocka_unit_test(test_key_default),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
