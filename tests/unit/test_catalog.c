/* test_catalog.c - catalog parsing, export, lookup (cmocka). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "catalog.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* A minimal header and a row that goes with it. */
#define HDR "name,memory,mem_bw,bf16,tdp\n"
/*           1 3    8        17        27 */
#define ROW "A,80GB,3.35TB/s,989TFLOPS,700W\n"

/* Every column, in an order different from the canonical one. */
static const char full_csv[] =
	"source,name,vendor,kind,memory,mem_bw,fp32,tf32,bf16,fp16,fp8,"
	"int8,int4,sparsity,tdp,idle_power,gpus_per_node,intra_bw,inter_bw,"
	"price_usd_per_gpu_hour,matmul_eff,mem_eff,capex_usd_per_gpu,"
	"rent_max_gpus,price_basis,sms,host_memory,host_link_bw,fp8_matmul_eff,"
	"fp4,nvlink_sharp,intra_mesh\n"
	"\"Datasheet, rev \"\"B\"\" (2024)\",Xcel-9,Acme,Workstation,"
	"95.37GiB,2.385TB/s,66.9TFLOPS,494.7TFLOPS,989.4TFLOPS,"
	"989.4TFLOPS,1978.9TFLOPS,1978.9TOPS,3957.8TOPS,Yes,712.5W,91.3W,"
	"4,451.2GB/s,400Gb/s,3.17,0.713,0.871,2385.25,8,"
	"Cloud-On-Demand_2026.05,132,1.5TiB,63GB/s,0.629,7915.6TFLOPS,yes,"
	"no\n"
	"\n"
	"   \n"
	"spec sheet,Mini-2,,,24.5GB,936.2GB/s,,,71.3TFLOPS,,,,,,165.5W,,,,"
	",,,,,,,,,,,,,\n"
	"\"quoted, source\",Edge-1,Acme,EDGE,7.5GB,102.4GB/s,,,,17.2TFLOPS,,"
	"137.5TOPS,,no,25.3W,4.7W,1,,10Gb/s,0,1,0.5,  499.5 ,1,"
	"purchase-3y,,,,1,,No,YES\n";

static void assert_rel(double got, double want)
{
	double scale = fabs(want) > 0.0 ? fabs(want) : 1.0;

	if (!(fabs(got - want) <= 1e-14 * scale)) {
		print_error("got %.17g, want %.17g\n", got, want);
		fail();
	}
}

static int parse_text(const char *text, size_t len, struct catalog **cat,
		      struct diag *d)
{
	diag_clear(d);
	return catalog_parse(text, len, "t.csv", cat, d);
}

static struct catalog *parse_ok(const char *text)
{
	struct catalog *cat = NULL;
	struct diag d;

	if (parse_text(text, strlen(text), &cat, &d) != 0) {
		print_error("unexpected error: %s:%d:%d: %s\n", d.file, d.line,
			    d.col, d.msg);
		fail();
	}
	assert_non_null(cat);
	assert_false(diag_has_error(&d));
	return cat;
}

static void expect_error_len(const char *text, size_t len, int line,
			     int col, const char *sub)
{
	struct catalog *cat = (struct catalog *)&cat;
	struct diag d;
	int rc = parse_text(text, len, &cat, &d);

	if (rc != -1 || cat != NULL || d.line != line || d.col != col ||
	    !strstr(d.msg, sub) || strcmp(d.file, "t.csv") != 0) {
		print_error("rc %d, got %s:%d:%d: %s\n"
			    "want t.csv:%d:%d: ...%s...\n",
			    rc, d.file, d.line, d.col, d.msg, line, col, sub);
		fail();
	}
}

static void expect_error(const char *text, int line, int col,
			 const char *sub)
{
	expect_error_len(text, strlen(text), line, col, sub);
}

/*
 * Many devices: the duplicate check is an index by name that grows as rows
 * come (catalog.c), so every row is checked against all before it, the
 * first line named in any case, and 'catalog_find' finds each row.
 */
static void test_many_devices(void **state)
{
	enum { ROWS = 5000 };
	size_t cap = (ROWS + 2) * 48 + sizeof(HDR);
	char *text = malloc(cap);
	size_t used;
	struct catalog *cat;
	struct diag d;

	(void)state;
	assert_non_null(text);
	used = (size_t)snprintf(text, cap, HDR);
	for (int i = 0; i < ROWS; i++)
		used += (size_t)snprintf(text + used, cap - used,
					 "Dev-%d,80GB,3.35TB/s,989TFLOPS,700W\n",
					 i);
	cat = parse_ok(text);
	assert_int_equal(catalog_count(cat), ROWS);
	for (int i = 0; i < ROWS; i += 997) {
		char name[32];

		snprintf(name, sizeof(name), "DEV-%d", i);
		diag_clear(&d);
		assert_ptr_equal(catalog_find(cat, name, &d),
				 catalog_at(cat, (size_t)i));
	}
	catalog_free(cat);
	/* a duplicate of the first row, last, in another case: row 1 is
	   line 2, the duplicate line ROWS + 2 */
	snprintf(text + used, cap - used, "dEV-0,80GB,3.35TB/s,989TFLOPS,700W\n");
	expect_error(text, ROWS + 2, 1,
		     "duplicate gpu 'dEV-0' (first defined on line 2)");
	/* and of a row in the middle */
	snprintf(text + used, cap - used,
		 "DEV-2500,80GB,3.35TB/s,989TFLOPS,700W\n");
	expect_error(text, ROWS + 2, 1,
		     "duplicate gpu 'DEV-2500' (first defined on line 2502)");
	free(text);
}

static void test_full_parse(void **state)
{
	struct catalog *cat;
	const struct gpu_spec *g;

	(void)state;
	cat = parse_ok(full_csv);
	assert_int_equal(catalog_count(cat), 3);

	g = catalog_at(cat, 0);
	assert_string_equal(g->name, "Xcel-9");
	assert_string_equal(g->vendor, "Acme");
	assert_string_equal(g->kind, "workstation");
	assert_string_equal(g->source, "Datasheet, rev \"B\" (2024)");
	assert_rel(g->mem_bytes, 95.37 * 1073741824.0);
	assert_rel(g->mem_bw_bytes_per_s, 2.385e12);
	assert_rel(g->peak_flops[PREC_FP32], 66.9e12);
	assert_rel(g->peak_flops[PREC_TF32], 494.7e12);
	assert_rel(g->peak_flops[PREC_BF16], 989.4e12);
	assert_rel(g->peak_flops[PREC_FP16], 989.4e12);
	assert_rel(g->peak_flops[PREC_FP8], 1978.9e12);
	assert_rel(g->peak_flops[PREC_INT8], 1978.9e12);
	assert_rel(g->peak_flops[PREC_INT4], 3957.8e12);
	assert_rel(g->peak_flops[PREC_FP4], 7915.6e12);
	assert_true(g->sparsity_2_4);
	assert_rel(g->tdp_w, 712.5);
	assert_rel(g->idle_w, 91.3);
	assert_int_equal(g->gpus_per_node, 4);
	assert_rel(g->intra_bw_bytes_per_s, 451.2e9);
	assert_true(g->nvlink_sharp);
	assert_false(g->intra_mesh);
	assert_rel(g->inter_bw_bytes_per_s, 400e9 / 8.0);
	assert_rel(g->price_usd_per_hour, 3.17);
	assert_string_equal(g->price_basis, "Cloud-On-Demand_2026.05");
	assert_int_equal(g->rent_max_gpus, 8);
	assert_int_equal(g->sms, 132);
	assert_rel(g->capex_usd_per_gpu, 2385.25);
	assert_rel(g->matmul_eff, 0.713);
	assert_rel(g->fp8_matmul_eff, 0.629);
	assert_rel(gpu_matmul_eff(g, PREC_FP8), 0.629);
	assert_rel(gpu_matmul_eff(g, PREC_BF16), 0.713);
	assert_rel(gpu_matmul_eff(g, PREC_INT8), 0.713);
	assert_rel(g->mem_eff, 0.871);

	/* empty optional cells take the documented defaults */
	g = catalog_at(cat, 1);
	assert_string_equal(g->name, "Mini-2");
	assert_string_equal(g->vendor, "");
	assert_string_equal(g->kind, "datacenter");
	assert_string_equal(g->source, "spec sheet");
	assert_rel(g->mem_bytes, 24.5e9);
	assert_rel(g->mem_bw_bytes_per_s, 936.2e9);
	assert_rel(g->peak_flops[PREC_BF16], 71.3e12);
	for (int p = 0; p < PREC_COUNT; p++) {
		if (p != PREC_BF16)
			assert_true(g->peak_flops[p] == 0.0);
	}
	assert_false(g->sparsity_2_4);
	assert_rel(g->tdp_w, 165.5);
	assert_rel(g->idle_w, 16.55);
	assert_int_equal(g->gpus_per_node, 8);
	assert_rel(g->intra_bw_bytes_per_s, 32e9);
	assert_false(g->nvlink_sharp); /* empty: no reduction in a switch */
	assert_false(g->intra_mesh);   /* empty: a switch */
	assert_rel(g->inter_bw_bytes_per_s, 12.5e9);
	assert_true(g->price_usd_per_hour == 0.0);
	assert_string_equal(g->price_basis, "unstated");
	assert_int_equal(g->rent_max_gpus, 0); /* no known limit */
	assert_int_equal(g->sms, 0);            /* unknown */
	assert_true(g->capex_usd_per_gpu == 0.0); /* unknown */
	assert_rel(g->matmul_eff, 0.8);
	assert_true(g->fp8_matmul_eff == 0.0); /* not given */
	assert_rel(gpu_matmul_eff(g, PREC_FP8), 0.8);
	assert_rel(g->mem_eff, 0.85);

	g = catalog_at(cat, 2);
	assert_string_equal(g->name, "Edge-1");
	assert_string_equal(g->kind, "edge");
	assert_string_equal(g->source, "quoted, source");
	assert_rel(g->peak_flops[PREC_FP16], 17.2e12);
	assert_rel(g->peak_flops[PREC_INT8], 137.5e12);
	assert_rel(g->idle_w, 4.7);
	assert_int_equal(g->gpus_per_node, 1);
	assert_rel(g->inter_bw_bytes_per_s, 1.25e9);
	assert_false(g->nvlink_sharp);
	assert_true(g->intra_mesh);
	assert_rel(g->matmul_eff, 1.0);
	assert_rel(g->fp8_matmul_eff, 1.0);
	assert_rel(g->mem_eff, 0.5);
	assert_rel(g->capex_usd_per_gpu, 499.5);
	assert_int_equal(g->rent_max_gpus, 1);
	assert_string_equal(g->price_basis, "purchase-3y");

	assert_null(catalog_at(cat, 3));
	catalog_free(cat);
}

static void test_optional_columns_absent(void **state)
{
	struct catalog *cat;
	const struct gpu_spec *g;

	(void)state;
	cat = parse_ok(HDR ROW);
	assert_int_equal(catalog_count(cat), 1);
	g = catalog_at(cat, 0);
	assert_string_equal(g->name, "A");
	assert_string_equal(g->vendor, "");
	assert_string_equal(g->kind, "datacenter");
	assert_rel(g->mem_bytes, 80e9);
	assert_rel(g->mem_bw_bytes_per_s, 3.35e12);
	assert_rel(g->peak_flops[PREC_BF16], 989e12);
	assert_rel(g->tdp_w, 700.0);
	assert_rel(g->idle_w, 70.0);
	assert_int_equal(g->gpus_per_node, 8);
	assert_rel(g->matmul_eff, 0.8);
	/* a catalog written before nvlink_sharp and intra_mesh: ring
	   all-reduces through a switch */
	assert_false(g->nvlink_sharp);
	assert_false(g->intra_mesh);
	/* a catalog without the price columns: documented defaults */
	assert_true(g->price_usd_per_hour == 0.0);
	assert_string_equal(g->price_basis, "unstated");
	assert_int_equal(g->rent_max_gpus, 0);
	assert_true(g->capex_usd_per_gpu == 0.0);
	assert_true(gpu_price_covers(g, 1 << 24));
	assert_int_equal(gpu_spec_check(g, NULL), 0);
	catalog_free(cat);

	/* columns are matched by name, in any order and case */
	cat = parse_ok("TDP,fp32,Mem_BW,memory,Name\n"
		       "450.5W,82.6TFLOPS,1.008TB/s,24GB,RTX-4090\n");
	g = catalog_at(cat, 0);
	assert_string_equal(g->name, "RTX-4090");
	assert_rel(g->peak_flops[PREC_FP32], 82.6e12);
	assert_rel(g->tdp_w, 450.5);
	catalog_free(cat);
}

static void test_bom_crlf_no_final_newline(void **state)
{
	struct catalog *cat;

	(void)state;
	cat = parse_ok("\xEF\xBB\xBF" "name,memory,mem_bw,bf16,tdp\r\n"
		       "A,80GB,3.35TB/s,989TFLOPS,700W\r\n"
		       "\r\n"
		       "B,40GB,1.555TB/s,312TFLOPS,400W");
	assert_int_equal(catalog_count(cat), 2);
	assert_string_equal(catalog_at(cat, 0)->name, "A");
	assert_rel(catalog_at(cat, 0)->tdp_w, 700.0);
	assert_string_equal(catalog_at(cat, 1)->name, "B");
	assert_rel(catalog_at(cat, 1)->tdp_w, 400.0);
	catalog_free(cat);

	/* a final CR without LF is a line end too */
	cat = parse_ok(HDR "A,80GB,3.35TB/s,989TFLOPS,700W\r");
	assert_rel(catalog_at(cat, 0)->tdp_w, 700.0);
	catalog_free(cat);

	/* positions after a BOM and CRLF lines stay right */
	expect_error("\xEF\xBB\xBF" "name,memory,mem_bw,bf16,tdp\r\n" ROW
		     "B,80GB,fast,989TFLOPS,700W\r\n",
		     3, 8, "'mem_bw' must be a bandwidth");
	expect_error("\xEF\xBB\xBF" "name,memory,mem_bw,bf16,tdp,x\r\n", 1, 29,
		     "unknown column 'x'");
}

static void test_value_errors(void **state)
{
	(void)state;
	/* the example of the style guide */
	expect_error(HDR ROW "B,80GB,fast,989TFLOPS,700W\n", 3, 8,
		     "'mem_bw' must be a bandwidth such as '3.35TB/s', "
		     "got 'fast'");
	expect_error(HDR "B,-80GB,3.35TB/s,989TFLOPS,700W\n", 2, 3,
		     "'memory' must be a size such as '80GB', got '-80GB'");
	expect_error(HDR "B,0GB,3.35TB/s,989TFLOPS,700W\n", 2, 3,
		     "'memory' must be positive, got '0GB'");
	expect_error(HDR "B,80GB,0,989TFLOPS,700W\n", 2, 8,
		     "'mem_bw' must be positive");
	expect_error(HDR "B,80GB,nan,989TFLOPS,700W\n", 2, 8,
		     "got 'nan'");
	expect_error(HDR "B,80GB,3.35TB/s,inf,700W\n", 2, 17,
		     "'bf16' must be a throughput such as '989TFLOPS', "
		     "got 'inf'");
	/* a number a double cannot hold is past the bound */
	expect_error(HDR "B,80GB,3.35TB/s,989TFLOPS,1e999W\n", 2, 27,
		     "'tdp' must be at most 1e21W, got '1e999W'");
	expect_error(HDR "B,80GB,3.35TB/s,989TFLOPS,-700W\n", 2, 27,
		     "'tdp' must be a power");
	expect_error(HDR "B,0x10GB,3.35TB/s,989TFLOPS,700W\n", 2, 3,
		     "got '0x10GB'");
	expect_error(HDR "B,80GB,3.35TB/s,989TFLOPS,700 W x\n", 2, 27,
		     "'tdp' must be a power");
	expect_error(HDR "B,80GB,3.35TB/s,989e9,700GB\n", 2, 23,
		     "'tdp' must be a power such as '700W', got '700GB'");
	/* the column is the field's first non-blank byte */
	expect_error(HDR "B,80GB,   fast  ,989TFLOPS,700W\n", 2, 11,
		     "got 'fast'");
	expect_error(HDR "B,80GB,\"fast\",989TFLOPS,700W\n", 2, 8,
		     "got 'fast'");
	/* required cells */
	expect_error(HDR "B,,3.35TB/s,989TFLOPS,700W\n", 2, 3,
		     "'memory' must not be empty");
	expect_error(HDR "B,80GB,3.35TB/s,989TFLOPS,\n", 2, 27,
		     "'tdp' must not be empty");
	expect_error(HDR "B,80GB,3.35TB/s,989TFLOPS,   \n", 2, 27,
		     "'tdp' must not be empty");
	/* no precision at all */
	expect_error(HDR ROW "B,80GB,3.35TB/s,,700W\n", 3, 1,
		     "gpu 'B' has no peak throughput");
	expect_error(HDR "B,80GB,3.35TB/s,0TFLOPS,700W\n", 2, 1,
		     "no peak throughput");
}

#define HDR2 "name,memory,mem_bw,bf16,tdp,"
#define ROW2 "A,80GB,3.35TB/s,989TFLOPS,700W,"
/*                                         32 */

static void test_optional_value_errors(void **state)
{
	static const struct {
		const char *column;
		const char *value;
		const char *sub;
	} cases[] = {
		{ "idle_power", "800W", "'idle_power' (800W) must not exceed "
					"'tdp' (700W)" },
		{ "idle_power", "0W", "'idle_power' must be positive" },
		{ "idle_power", "-5W", "'idle_power' must be a power" },
		{ "intra_bw", "0GB/s", "'intra_bw' must be positive" },
		{ "inter_bw", "100Gbit", "'inter_bw' must be a bandwidth" },
		{ "gpus_per_node", "0", "'gpus_per_node' must be a whole "
					"number from 1 to 65536, got '0'" },
		{ "gpus_per_node", "8.5", "whole number from 1 to 65536" },
		{ "gpus_per_node", "-8", "whole number from 1 to 65536" },
		{ "gpus_per_node", "eight", "whole number from 1 to 65536" },
		{ "gpus_per_node", "0x8", "whole number from 1 to 65536" },
		/* past the bound: 2^16 + 1, the row of issue 14, 2^31 and
		   2^32 + 1 */
		{ "gpus_per_node", "65537", "'gpus_per_node' must be a whole "
					    "number from 1 to 65536, got "
					    "'65537'" },
		{ "gpus_per_node", "2000000000", "got '2000000000'" },
		{ "gpus_per_node", "2147483648", "got '2147483648'" },
		{ "gpus_per_node", "4294967297", "got '4294967297'" },
		{ "gpus_per_node", "99999999999",
		  "whole number from 1 to 65536" },
		{ "gpus_per_node", "99999999999999999999999",
		  "whole number from 1 to 65536" },
		{ "price_usd_per_gpu_hour", "-1",
		  "'price_usd_per_gpu_hour' must be a non-negative number" },
		{ "price_usd_per_gpu_hour", "$2", "non-negative number" },
		{ "price_usd_per_gpu_hour", "2.5/h", "non-negative number" },
		{ "price_usd_per_gpu_hour", "inf", "non-negative number" },
		{ "price_usd_per_gpu_hour", "nan", "non-negative number" },
		{ "price_usd_per_gpu_hour", "1e999", "non-negative number" },
		{ "matmul_eff", "1.5", "'matmul_eff' must be a number in "
				       "(0, 1], got '1.5'" },
		{ "matmul_eff", "0", "(0, 1]" },
		{ "fp8_matmul_eff", "1.01", "'fp8_matmul_eff' must be a number "
					    "in (0, 1], or empty, got '1.01'" },
		{ "fp8_matmul_eff", "-0.5", "(0, 1], or empty" },
		{ "fp8_matmul_eff", "66%", "(0, 1], or empty" },
		{ "mem_eff", "85%", "'mem_eff' must be a number in (0, 1]" },
		{ "mem_eff", "-0.5", "(0, 1]" },
		{ "sparsity", "maybe", "'sparsity' must be yes or no, got "
				       "'maybe'" },
		{ "kind", "server", "'kind' must be one of 'datacenter', "
				    "'workstation', 'edge', got 'server'" },
		{ "fp8", "lots", "'fp8' must be a throughput such as "
				 "'989TFLOPS'" },
		{ "int8", "-5TOPS", "'int8' must be a throughput such as "
				    "'1979TOPS'" },
		{ "fp32", "5TB/s", "got '5TB/s'" },
		{ "vendor", "ACME\001", "'vendor' contains a control "
					"character" },
		{ "vendor", "0123456789012345678901234567890123",
		  "'vendor' is longer than 31 bytes" },
		{ "price_basis", "cloud on demand",
		  "'price_basis' must be one word of letters, digits, '-', "
		  "'.' and '_' (at most 31 bytes), such as "
		  "'cloud-on-demand-2026-05', got 'cloud on demand'" },
		{ "price_basis", "\"cloud,2026\"", "must be one word" },
		{ "price_basis", "caf\xc3\xa9", "must be one word" },
		{ "price_basis", "0123456789012345678901234567890123",
		  "at most 31 bytes" },
		{ "rent_max_gpus", "0", "'rent_max_gpus' must be a whole "
					"number from 1 to 16777216, got '0'" },
		{ "rent_max_gpus", "-8", "from 1 to 16777216" },
		{ "rent_max_gpus", "8.5", "from 1 to 16777216" },
		{ "rent_max_gpus", "16777217", "got '16777217'" },
		{ "rent_max_gpus", "many", "got 'many'" },
		{ "sms", "0", "'sms' must be a whole number from 1 to 4096, "
			      "got '0'" },
		{ "sms", "132.5", "from 1 to 4096" },
		{ "sms", "4097", "got '4097'" },
		{ "capex_usd_per_gpu", "-5", "'capex_usd_per_gpu' must be a "
					    "positive number (1e-9 to 1e21), "
					    "or empty when unknown, got '-5'" },
		{ "capex_usd_per_gpu", "0", "got '0'" },
		{ "capex_usd_per_gpu", "$30000", "got '$30000'" },
		{ "capex_usd_per_gpu", "30k", "got '30k'" },
		{ "capex_usd_per_gpu", "nan", "got 'nan'" },
		{ "capex_usd_per_gpu", "1e22", "got '1e22'" },
	};

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		char text[512];

		snprintf(text, sizeof(text), HDR2 "%s\n" ROW2 "%s\n",
			 cases[i].column, cases[i].value);
		expect_error(text, 2, 32, cases[i].sub);
	}
}

static void test_optional_values_ok(void **state)
{
	static const struct {
		const char *column;
		const char *value;
	} cases[] = {
		{ "sparsity", "YES" }, { "sparsity", "True" },
		{ "sparsity", "1" },   { "sparsity", "no" },
		{ "sparsity", "FALSE" }, { "sparsity", "0" },
		{ "kind", "DataCenter" }, { "kind", "edge" },
		{ "gpus_per_node", "72" }, { "gpus_per_node", "65536" },
		{ "price_usd_per_gpu_hour", "0" },
		{ "price_usd_per_gpu_hour", ".5" }, { "matmul_eff", "1" },
		{ "idle_power", "700W" }, { "fp8", "0" },
		{ "source", "\"a, \"\"quoted\"\" source\"" },
		{ "price_basis", "owned-5y" }, { "price_basis", " spot.2026 " },
		{ "price_basis", "0123456789012345678901234567890" },
		{ "rent_max_gpus", "1" }, { "rent_max_gpus", "16777216" },
		{ "rent_max_gpus", "" }, { "capex_usd_per_gpu", "" },
		{ "sms", "1" }, { "sms", "4096" }, { "sms", "" },
		{ "capex_usd_per_gpu", "31999.5" },
		{ "capex_usd_per_gpu", "1e-9" },
		{ "fp8_matmul_eff", "" }, { "fp8_matmul_eff", "0.66" },
		{ "fp8_matmul_eff", "1" }, { "fp8_matmul_eff", "0.01" },
	};

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		char text[512];
		struct catalog *cat;

		snprintf(text, sizeof(text), HDR2 "%s\n" ROW2 "%s\n",
			 cases[i].column, cases[i].value);
		cat = parse_ok(text);
		assert_int_equal(catalog_count(cat), 1);
		catalog_free(cat);
	}
}

static void test_structure_errors(void **state)
{
	(void)state;
	expect_error("", 1, 1, "empty catalog");
	expect_error("\n\n   \n", 1, 1, "empty catalog");
	expect_error("\xEF\xBB\xBF", 1, 1, "empty catalog");
	expect_error(HDR, 1, 1, "no devices");
	expect_error("\n\n" HDR "\n", 3, 1, "no devices");
	expect_error(HDR "A,80GB,3.35TB/s,989TFLOPS\n", 2, 26,
		     "row has 4 fields but the header has 5");
	expect_error(HDR "A,80GB,3.35TB/s,989TFLOPS", 2, 26,
		     "row has 4 fields but the header has 5");
	expect_error(HDR ROW "A2\n", 3, 3, "row has 1 fields");
	expect_error(HDR "A,80GB,3.35TB/s,989TFLOPS,700W,x\n", 2, 32,
		     "too many fields: the header has 5");
	expect_error(HDR "A,80GB,3.35TB/s,989TFLOPS,700W,\n", 2, 32,
		     "too many fields");
	/* header */
	expect_error("name,memory,mem_bw,bf16,tdp,color\n" ROW, 1, 29,
		     "unknown column 'color'");
	expect_error("name,memory,mem_bw,bf16,tdp,MEMORY\n" ROW, 1, 29,
		     "duplicate column 'MEMORY'");
	expect_error("name,,memory,mem_bw,bf16,tdp\n" ROW, 1, 6,
		     "empty column name");
	expect_error("name,memory,mem_bw,bf16\n" "A,80GB,3.35TB/s,989TFLOPS\n",
		     1, 1, "missing required column 'tdp'");
	expect_error("memory,mem_bw,bf16,tdp\n", 1, 1,
		     "missing required column 'name'");
	expect_error("\nname,mem_bw,bf16,tdp\n", 2, 1,
		     "missing required column 'memory'");
	expect_error("name,memory,bf16,tdp\n", 1, 1,
		     "missing required column 'mem_bw'");
	expect_error("name,memory,mem_bw,int8,fp8,tdp\n", 1, 1,
		     "missing a precision column");
	/* names */
	expect_error(HDR ROW "a,80GB,3.35TB/s,989TFLOPS,700W\n", 3, 1,
		     "duplicate gpu 'a' (first defined on line 2)");
	expect_error(HDR2 "source\n" ROW2 "s\n"
		     "\n"
		     "B,80GB,1TB/s,1TFLOPS,1W,\"x, y\"\n"
		     "  A ,80GB,3.35TB/s,989TFLOPS,700W,z\n",
		     5, 3, "duplicate gpu 'A' (first defined on line 2)");
	/* text cells take no control characters, newlines included */
	expect_error(HDR2 "source\n" ROW2 "s\n"
		     "B,80GB,1TB/s,1TFLOPS,1W,\"x\ny\"\n",
		     3, 25, "'source' contains a control character (0x0a)");
	expect_error(HDR ",80GB,3.35TB/s,989TFLOPS,700W\n", 2, 1,
		     "'name' must not be empty");
	expect_error(HDR "\"\",80GB,3.35TB/s,989TFLOPS,700W\n", 2, 1,
		     "'name' must not be empty");
	expect_error(HDR "\" A\",80GB,3.35TB/s,989TFLOPS,700W\n", 2, 1,
		     "'name' must not contain blanks (write '-', as in "
		     "'H100-SXM'), got ' A'");
	expect_error(HDR "X 1,80GB,3.35TB/s,989TFLOPS,700W\n", 2, 1,
		     "'name' must not contain blanks");
	/* UTF-8 only: JSON and SVG output must stay well-formed */
	expect_error(HDR "A\xff,80GB,3.35TB/s,989TFLOPS,700W\n", 2, 1,
		     "'name' is not valid UTF-8 (byte 0xff at byte 2 of the "
		     "field)");
	expect_error(HDR "A\xc3(,80GB,3.35TB/s,989TFLOPS,700W\n", 2, 1,
		     "'name' is not valid UTF-8 (byte 0xc3");
	expect_error(HDR "\xc0\xaf" "A,80GB,3.35TB/s,989TFLOPS,700W\n", 2, 1,
		     "not valid UTF-8 (byte 0xc0 at byte 1");
	expect_error(HDR2 "vendor\n" ROW2 "Acme\xed\xa0\x80\n", 2, 32,
		     "'vendor' is not valid UTF-8 (byte 0xed");
	/* UTF-8 text is fine: 'Tesla-\u00e9\u4e2d\U0001f680' */
	{
		struct catalog *u = parse_ok(
			HDR "Tesla-\xc3\xa9\xe4\xb8\xad\xf0\x9f\x9a\x80,80GB,"
			    "3.35TB/s,989TFLOPS,700W\n");

		assert_int_equal(catalog_count(u), 1);
		catalog_free(u);
	}
	/* C1 controls in UTF-8 (U+009B is CSI on some terminals) */
	expect_error(HDR "A\xc2\x9b,80GB,3.35TB/s,989TFLOPS,700W\n", 2, 1,
		     "'name' contains a control character (0xc2)");
	expect_error(HDR "\x1b]0;x\x07,80GB,3.35TB/s,989TFLOPS,700W\n", 2, 1,
		     "'name' contains a control character (0x1b)");
	expect_error(HDR "A\tB,80GB,3.35TB/s,989TFLOPS,700W\n", 2, 1,
		     "'name' contains a control character (0x09)");
	expect_error(HDR "A\rB,80GB,3.35TB/s,989TFLOPS,700W\n", 2, 1,
		     "control character (0x0d)");
	expect_error(HDR "\"A\nB\",80GB,3.35TB/s,989TFLOPS,700W\n", 2, 1,
		     "control character (0x0a)");
	expect_error(HDR "A\x7f,80GB,3.35TB/s,989TFLOPS,700W\n", 2, 1,
		     "control character (0x7f)");
	/* quoting */
	expect_error(HDR "\"A,80GB,3.35TB/s,989TFLOPS,700W\n", 2, 1,
		     "unterminated quoted field");
	expect_error(HDR ROW "B,80GB,3.35TB/s,989TFLOPS,\"700W\n\n", 3, 27,
		     "unterminated quoted field");
	expect_error(HDR "A,80\"GB,3.35TB/s,989TFLOPS,700W\n", 2, 5,
		     "stray '\"' in an unquoted field");
	expect_error(HDR "\"A\"x,80GB,3.35TB/s,989TFLOPS,700W\n", 2, 4,
		     "expected ',' or a line end after a closing quote");
}

/* Values that parse but are no device: a plan would not be finite. */
static void test_lower_bounds(void **state)
{
	(void)state;
	expect_error(HDR "B,0.5MB,3.35TB/s,989TFLOPS,700W\n", 2, 3,
		     "'memory' must be at least 1MB, got '0.5MB'");
	expect_error(HDR "B,80GB,1e-300B/s,989TFLOPS,700W\n", 2, 8,
		     "'mem_bw' must be at least 1MB/s, got '1e-300B/s'");
	expect_error(HDR "B,80GB,3.35TB/s,1e-300TFLOPS,700W\n", 2, 17,
		     "'bf16' must be at least 1GFLOPS (or 0: none), got "
		     "'1e-300TFLOPS'");
	expect_error(HDR2 "intra_bw\n" ROW2 "999kB/s\n", 2, 32,
		     "'intra_bw' must be at least 1MB/s, got '999kB/s'");
	expect_error(HDR2 "inter_bw\n" ROW2 "1e-300Gb/s\n", 2, 32,
		     "'inter_bw' must be at least 1MB/s");
	expect_error(HDR2 "matmul_eff\n" ROW2 "0.009\n", 2, 32,
		     "'matmul_eff' must be at least 0.01, got '0.009'");
	expect_error(HDR2 "mem_eff\n" ROW2 "1e-300\n", 2, 32,
		     "'mem_eff' must be at least 0.01, got '1e-300'");
	expect_error(HDR2 "fp8_matmul_eff\n" ROW2 "0.009\n", 2, 32,
		     "'fp8_matmul_eff' must be at least 0.01, got '0.009'");
	/* the bounds themselves are fine, and a peak of 0 is "none" */
	{
		struct catalog *cat = parse_ok(
			"name,memory,mem_bw,bf16,fp16,tdp,intra_bw,inter_bw,"
			"matmul_eff,mem_eff\n"
			"Tiny,1MB,1MB/s,1GFLOPS,0,1W,1MB/s,8Mb/s,0.01,0.01\n");

		assert_int_equal(catalog_count(cat), 1);
		catalog_free(cat);
	}
}

/*
 * Issue 40: a value past a column's upper bound (1e21 in SI units, and
 * what overflows a double) is an error at its own cell, saying the bound;
 * before, 1e30B of memory was "must be positive" at column 1.  Every
 * quantity and peak column, each at its column.
 */
static void test_upper_bounds(void **state)
{
	static const struct {
		const char *column, *value, *msg;
	} cases[] = {
		{ "idle_power", "1e22W",
		  "'idle_power' must be at most 1e21W, got '1e22W'" },
		{ "intra_bw", "1e22B/s",
		  "'intra_bw' must be at most 1e21B/s, got '1e22B/s'" },
		{ "inter_bw", "1e400Gb/s",
		  "'inter_bw' must be at most 1e21B/s, got '1e400Gb/s'" },
		{ "host_link_bw", "1e25GB/s",
		  "'host_link_bw' must be at most 1e21B/s, got '1e25GB/s'" },
		{ "host_memory", "1e300PB",
		  "'host_memory' must be at most 1e21B, got '1e300PB'" },
		{ "fp32", "1e22FLOPS",
		  "'fp32' must be at most 1e21FLOPS, got '1e22FLOPS'" },
		{ "tf32", "1e10PFLOPS",
		  "'tf32' must be at most 1e21FLOPS, got '1e10PFLOPS'" },
		{ "fp16", "1.5e9TFLOPS",
		  "'fp16' must be at most 1e21FLOPS, got '1.5e9TFLOPS'" },
		{ "fp8", "1e400TFLOPS",
		  "'fp8' must be at most 1e21FLOPS, got '1e400TFLOPS'" },
		{ "fp4", "2e21",
		  "'fp4' must be at most 1e21FLOPS, got '2e21'" },
		{ "int8", "1e13POPS",
		  "'int8' must be at most 1e21OPS, got '1e13POPS'" },
		{ "int4", "1e22TOPS",
		  "'int4' must be at most 1e21OPS, got '1e22TOPS'" },
		/* below: a value that underflows, and the powers' own bound */
		{ "fp8", "1e-400TFLOPS",
		  "'fp8' must be at least 1GFLOPS (or 0: none), got "
		  "'1e-400TFLOPS'" },
		{ "host_memory", "1e-400GB",
		  "'host_memory' must be at least 1MB, got '1e-400GB'" },
		{ "idle_power", "1e-12W",
		  "'idle_power' must be at least 1e-9W, got '1e-12W'" },
	};
	char text[256];

	(void)state;
	/* the row, and each required column */
	expect_error(HDR "B,1e30B,3.35TB/s,989TFLOPS,700W\n", 2, 3,
		     "'memory' must be at most 1e21B, got '1e30B'");
	expect_error(HDR "B,80GB,1e30TB/s,989TFLOPS,700W\n", 2, 8,
		     "'mem_bw' must be at most 1e21B/s, got '1e30TB/s'");
	expect_error(HDR "B,80GB,3.35TB/s,1e30TFLOPS,700W\n", 2, 17,
		     "'bf16' must be at most 1e21FLOPS, got '1e30TFLOPS'");
	expect_error(HDR "B,80GB,3.35TB/s,989TFLOPS,1e22W\n", 2, 27,
		     "'tdp' must be at most 1e21W, got '1e22W'");
	expect_error(HDR "B,80GB,3.35TB/s,989TFLOPS,1e-12W\n", 2, 27,
		     "'tdp' must be at least 1e-9W, got '1e-12W'");
	for (size_t i = 0; i < N(cases); i++) {
		snprintf(text, sizeof(text), HDR2 "%s\n" ROW2 "%s\n",
			 cases[i].column, cases[i].value);
		expect_error(text, 2, 32, cases[i].msg);
	}
	/* the bounds themselves are fine */
	{
		struct catalog *cat = parse_ok(
			"name,memory,mem_bw,bf16,int8,tdp,intra_bw,"
			"host_memory\n"
			"Huge,1e21B,1e21B/s,1e21FLOPS,1e21OPS,1e21W,1e9TB/s,"
			"1e6PB\n");

		assert_rel(catalog_at(cat, 0)->mem_bytes, 1e21);
		assert_rel(catalog_at(cat, 0)->peak_flops[PREC_INT8], 1e21);
		catalog_free(cat);
	}
}

static void test_nul_bytes(void **state)
{
	static const char text[] = HDR "A,8\0GB,3.35TB/s,989TFLOPS,700W\n";
	static const char head[] = "na\0me,memory\n";

	(void)state;
	expect_error_len(text, sizeof(text) - 1, 2, 4, "NUL byte");
	expect_error_len(head, sizeof(head) - 1, 1, 3, "NUL byte");
	/* a NUL after a quoted newline */
	{
		static const char q[] =
			HDR "\"A\nB\0\",80GB,1TB/s,1TFLOPS,1W\n";

		expect_error_len(q, sizeof(q) - 1, 3, 2, "NUL byte");
	}
}

static void test_name_lengths(void **state)
{
	char name[GPU_NAME_MAX + 1];
	char text[256];
	struct catalog *cat;

	(void)state;
	memset(name, 'N', GPU_NAME_MAX - 1);
	name[GPU_NAME_MAX - 1] = '\0';
	snprintf(text, sizeof(text), HDR "%s,80GB,3.35TB/s,989TFLOPS,700W\n",
		 name);
	cat = parse_ok(text);
	assert_string_equal(catalog_at(cat, 0)->name, name);
	catalog_free(cat);

	name[GPU_NAME_MAX - 1] = 'N';
	name[GPU_NAME_MAX] = '\0';
	snprintf(text, sizeof(text), HDR "%s,80GB,3.35TB/s,989TFLOPS,700W\n",
		 name);
	expect_error(text, 2, 1, "'name' is longer than 63 bytes");

	/* source has room for 255 bytes */
	{
		char src[GPU_SOURCE_MAX + 1];
		char big[512];

		memset(src, 's', GPU_SOURCE_MAX);
		src[GPU_SOURCE_MAX] = '\0';
		snprintf(big, sizeof(big), HDR2 "source\n" ROW2 "%s\n", src);
		expect_error(big, 2, 32, "'source' is longer than 255 bytes");
		src[GPU_SOURCE_MAX - 1] = '\0';
		snprintf(big, sizeof(big), HDR2 "source\n" ROW2 "%s\n", src);
		cat = parse_ok(big);
		assert_int_equal(strlen(catalog_at(cat, 0)->source),
				 GPU_SOURCE_MAX - 1);
		catalog_free(cat);
	}
}

static void compare_specs(const struct gpu_spec *a, const struct gpu_spec *b)
{
	assert_string_equal(a->name, b->name);
	assert_string_equal(a->vendor, b->vendor);
	assert_string_equal(a->kind, b->kind);
	assert_string_equal(a->source, b->source);
	assert_rel(a->mem_bytes, b->mem_bytes);
	assert_rel(a->mem_bw_bytes_per_s, b->mem_bw_bytes_per_s);
	for (int p = 0; p < PREC_COUNT; p++)
		assert_rel(a->peak_flops[p], b->peak_flops[p]);
	assert_int_equal(a->sparsity_2_4, b->sparsity_2_4);
	assert_rel(a->tdp_w, b->tdp_w);
	assert_rel(a->idle_w, b->idle_w);
	assert_int_equal(a->gpus_per_node, b->gpus_per_node);
	assert_rel(a->intra_bw_bytes_per_s, b->intra_bw_bytes_per_s);
	assert_int_equal(a->nvlink_sharp, b->nvlink_sharp);
	assert_int_equal(a->intra_mesh, b->intra_mesh);
	assert_rel(a->inter_bw_bytes_per_s, b->inter_bw_bytes_per_s);
	assert_rel(a->host_link_bw_bytes_per_s, b->host_link_bw_bytes_per_s);
	assert_rel(a->host_memory_bytes, b->host_memory_bytes);
	assert_rel(a->price_usd_per_hour, b->price_usd_per_hour);
	assert_string_equal(a->price_basis, b->price_basis);
	assert_int_equal(a->rent_max_gpus, b->rent_max_gpus);
	assert_int_equal(a->sms, b->sms);
	assert_rel(a->capex_usd_per_gpu, b->capex_usd_per_gpu);
	assert_rel(a->matmul_eff, b->matmul_eff);
	assert_rel(a->fp8_matmul_eff, b->fp8_matmul_eff);
	assert_rel(a->mem_eff, b->mem_eff);
}

/* Write 'cat' to memory; the caller frees the text. */
static char *export(const struct catalog *cat, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	assert_non_null(f);
	assert_int_equal(catalog_write_csv(f, cat), 0);
	assert_int_equal(fclose(f), 0);
	return text;
}

static void round_trip(struct catalog *cat)
{
	size_t len1, len2;
	char *text1 = export(cat, &len1);
	struct catalog *back;
	char *text2;
	struct diag d;

	assert_int_equal(parse_text(text1, len1, &back, &d), 0);
	assert_int_equal(catalog_count(back), catalog_count(cat));
	for (size_t i = 0; i < catalog_count(cat); i++)
		compare_specs(catalog_at(back, i), catalog_at(cat, i));
	/* and the export of the re-read catalog is the same text */
	text2 = export(back, &len2);
	assert_int_equal(len1, len2);
	assert_string_equal(text1, text2);
	{
		static const char header[] =
			"name,vendor,kind,memory,mem_bw,fp32,tf32,bf16,"
			"fp16,fp8,int8,int4,fp4,sparsity,sms,tdp,idle_power,"
			"gpus_per_node,intra_bw,nvlink_sharp,intra_mesh,"
			"inter_bw,host_link_bw,"
			"host_memory,"
			"price_usd_per_gpu_hour,price_basis,rent_max_gpus,"
			"capex_usd_per_gpu,matmul_eff,fp8_matmul_eff,mem_eff,"
			"source\n";

		assert_true(strncmp(text1, header, strlen(header)) == 0);
	}
	free(text1);
	free(text2);
	catalog_free(back);
}

static void test_round_trip(void **state)
{
	struct catalog *cat;
	size_t len;
	char *text;

	(void)state;
	cat = parse_ok(full_csv);
	round_trip(cat);
	text = export(cat, &len);
	/* quoted where needed, units as documented */
	assert_non_null(strstr(text, "\"Datasheet, rev \"\"B\"\" (2024)\""));
	assert_non_null(strstr(text, ",\"quoted, source\"\n"));
	assert_non_null(strstr(text, ",1978.9TFLOPS,1978.9TOPS,3957.8TOPS,"
				     "7915.6TFLOPS,"
				     "yes,132,712.5W,91.3W,4,451.2GB/s,yes,"
				     "no,50GB/s,"
				     "63GB/s,1536GiB,"
				     "3.17,Cloud-On-Demand_2026.05,8,2385.25,"
				     "0.713,0.629,0.871,"));
	/* no basis: "unstated"; no limit, no capex and no host: empty
	   cells */
	assert_non_null(strstr(text, "Mini-2,,datacenter,24.5GB,936.2GB/s,"
				     ",,71.3TFLOPS,,,,,,no,,165.5W,16.55W,8,"
				     "32GB/s,no,no,12.5GB/s,,,0,unstated,,,"
				     "0.8,,0.85,"
				     "spec sheet\n"));
	free(text);
	catalog_free(cat);

	/* unround values that need all 15 digits */
	cat = parse_ok(HDR2 "idle_power,intra_bw,price_usd_per_gpu_hour,"
			    "matmul_eff\n"
		       "Odd,79.999999999999GB,3.14159265358979TB/s,"
		       "0.333333333333333TFLOPS,699.999999999999W,"
		       "0.123456789012345W,1.23456789012345GiB/s,"
		       "1.23456789012345,0.999999999999999\n");
	round_trip(cat);
	catalog_free(cat);
}

static void test_default_catalog(void **state)
{
	struct catalog *cat = NULL;
	struct diag d;
	size_t len = 0;
	const char *text = catalog_default_text(&len);

	(void)state;
	assert_non_null(text);
	assert_true(len > 0);
	assert_int_equal(strlen(text), len);
	assert_true(strncmp(text, "name,", 5) == 0);

	diag_clear(&d);
	if (catalog_load_default(&cat, &d)) {
		diag_print(stderr, &d);
		fail();
	}
	assert_true(catalog_count(cat) >= 25);
	for (size_t i = 0; i < catalog_count(cat); i++) {
		const struct gpu_spec *g = catalog_at(cat, i);

		diag_clear(&d);
		assert_int_equal(gpu_spec_check(g, &d), 0);
		for (size_t j = 0; j < i; j++)
			assert_true(strcasecmp(g->name,
					       catalog_at(cat, j)->name) != 0);
	}
	diag_clear(&d);
	assert_non_null(catalog_find(cat, "H100-SXM", &d));
	assert_false(diag_has_error(&d));
	/* datasheet SM counts (specs/catalog.md) */
	assert_int_equal(catalog_find(cat, "H100-SXM", &d)->sms, 132);
	assert_int_equal(catalog_find(cat, "A100-SXM-80GB", &d)->sms, 108);
	/* the host of the usual node (specs/catalog.md, "Host link and
	   host memory"): DGX H100's 2 TB and PCIe Gen5 x16; GH200's
	   NVLink-C2C; no host memory for a PCIe card of no one system */
	assert_rel(catalog_find(cat, "H100-SXM", &d)->host_memory_bytes, 2e12);
	assert_rel(catalog_find(cat, "H100-SXM", &d)->host_link_bw_bytes_per_s,
		   64e9);
	assert_rel(catalog_find(cat, "GH200", &d)->host_link_bw_bytes_per_s,
		   450e9);
	assert_rel(catalog_find(cat, "H100-PCIe", &d)->host_memory_bytes, 0.0);
	/* NVLink SHARP in the NVSwitch of HGX H100/H200 and B200 systems,
	   not in A100's NVSwitch, a PCIe card's bridge or AMD's mesh */
	assert_true(catalog_find(cat, "H100-SXM", &d)->nvlink_sharp);
	assert_true(catalog_find(cat, "B200", &d)->nvlink_sharp);
	assert_false(catalog_find(cat, "A100-SXM-80GB", &d)->nvlink_sharp);
	assert_false(catalog_find(cat, "H100-NVL", &d)->nvlink_sharp);
	assert_false(catalog_find(cat, "MI300X", &d)->nvlink_sharp);
	/* a link of its own to each peer: AMD's Infinity Fabric of 8,
	   Gaudi's RoCE ports (3 to each of 7 peers); a switch elsewhere */
	assert_true(catalog_find(cat, "MI300X", &d)->intra_mesh);
	assert_true(catalog_find(cat, "Gaudi3", &d)->intra_mesh);
	assert_false(catalog_find(cat, "H100-SXM", &d)->intra_mesh);
	assert_false(catalog_find(cat, "A100-SXM-80GB", &d)->intra_mesh);
	/* one price basis for every non-edge row; edge rows say theirs
	   (specs/catalog.md, "Price basis") */
	for (size_t i = 0; i < catalog_count(cat); i++) {
		const struct gpu_spec *g = catalog_at(cat, i);

		if (strcmp(g->kind, "edge") == 0) {
			assert_string_equal(g->price_basis, "purchase-3y");
			assert_int_equal(g->rent_max_gpus, 1);
		} else {
			assert_string_equal(g->price_basis,
					    "cloud-on-demand-2026-05");
		}
		assert_true(g->price_usd_per_hour > 0.0);
		/* consumer and workstation cards rent one machine */
		if (strcmp(g->kind, "workstation") == 0)
			assert_int_equal(g->rent_max_gpus, 8);
		if (strcmp(g->kind, "datacenter") == 0)
			assert_int_equal(g->rent_max_gpus, 0);
	}
	/* re-priced at cloud rates (issue 12), no longer purchase / 3 y */
	assert_rel(catalog_find(cat, "RTX-4090", NULL)->price_usd_per_hour,
		   0.53);
	assert_rel(catalog_find(cat, "RTX-5090", NULL)->price_usd_per_hour,
		   0.86);
	assert_rel(catalog_find(cat, "H100-SXM", NULL)->capex_usd_per_gpu,
		   50000.0);
	round_trip(cat);
	catalog_free(cat);
}

static void test_find(void **state)
{
	struct catalog *cat;
	const struct gpu_spec *g;
	struct diag d;

	(void)state;
	cat = parse_ok("name,memory,mem_bw,bf16,tdp\n"
		       "H100-SXM,80GB,3.35TB/s,989TFLOPS,700W\n"
		       "H100-PCIe,80GB,2TB/s,756TFLOPS,350W\n"
		       "H100-NVL,94GB,3.9TB/s,835TFLOPS,400W\n"
		       "A100-SXM-80GB,80GB,2.039TB/s,312TFLOPS,400W\n"
		       "MI300X,192GB,5.3TB/s,1307TFLOPS,750W\n"
		       "Gaudi3,128GB,3.7TB/s,1835TFLOPS,900W\n");

	diag_clear(&d);
	g = catalog_find(cat, "H100-SXM", &d);
	assert_non_null(g);
	assert_string_equal(g->name, "H100-SXM");
	assert_false(diag_has_error(&d));
	g = catalog_find(cat, "mi300x", &d);
	assert_non_null(g);
	assert_string_equal(g->name, "MI300X");
	assert_non_null(catalog_find(cat, "h100-pcie", NULL));

	g = catalog_find(cat, "h100", &d);
	assert_null(g);
	assert_string_equal(d.msg, "unknown gpu 'h100'; did you mean "
				   "'H100-SXM', 'H100-NVL', 'H100-PCIe'?");
	assert_string_equal(d.file, "");
	assert_int_equal(d.line, 0);

	diag_clear(&d);
	assert_null(catalog_find(cat, "MI30OX", &d));
	assert_string_equal(d.msg,
			    "unknown gpu 'MI30OX'; did you mean 'MI300X'?");

	diag_clear(&d);
	assert_null(catalog_find(cat, "gaudi-3", &d));
	assert_non_null(strstr(d.msg, "did you mean 'Gaudi3'"));

	diag_clear(&d);
	assert_null(catalog_find(cat, "TPU-v5p-pod-slice", &d));
	assert_string_equal(d.msg, "unknown gpu 'TPU-v5p-pod-slice'");

	diag_clear(&d);
	assert_null(catalog_find(NULL, "H100", &d));
	assert_string_equal(d.msg, "unknown gpu 'H100': the catalog is empty");
	assert_null(catalog_find(cat, "nope", NULL));
	catalog_free(cat);
}

static void test_find_at_most_five(void **state)
{
	char text[2048];
	size_t used;
	struct catalog *cat;
	struct diag d;
	const char *p;
	int quotes = 0;

	(void)state;
	used = (size_t)snprintf(text, sizeof(text), HDR);
	for (int i = 0; i < 9; i++)
		used += (size_t)snprintf(text + used, sizeof(text) - used,
					 "X%d-GPU,80GB,1TB/s,1TFLOPS,1W\n", i);
	cat = parse_ok(text);
	diag_clear(&d);
	assert_null(catalog_find(cat, "x-gpu", &d));
	for (p = d.msg; *p; p++)
		quotes += *p == '\'';
	/* the query and five suggestions */
	assert_int_equal(quotes, 12);
	catalog_free(cat);
}

static void expect_check_fails(const struct gpu_spec *g, const char *sub)
{
	struct diag d;

	diag_clear(&d);
	assert_int_equal(gpu_spec_check(g, &d), -1);
	assert_int_equal(d.line, 0);
	if (!strstr(d.msg, sub)) {
		print_error("got '%s', want '%s'\n", d.msg, sub);
		fail();
	}
}

static void test_gpu_spec_check(void **state)
{
	struct catalog *cat;
	struct gpu_spec g;
	struct gpu_spec bad;
	struct diag d;

	(void)state;
	cat = parse_ok(full_csv);
	g = *catalog_at(cat, 0);
	catalog_free(cat);
	diag_clear(&d);
	assert_int_equal(gpu_spec_check(&g, &d), 0);
	assert_false(diag_has_error(&d));

	bad = g;
	bad.mem_bytes = 0.0;
	expect_check_fails(&bad, "'memory' must be positive");
	bad = g;
	bad.mem_bytes = NAN;
	expect_check_fails(&bad, "'memory' must be positive");
	bad = g;
	bad.mem_bw_bytes_per_s = -1.0;
	expect_check_fails(&bad, "'mem_bw' must be positive");
	bad = g;
	bad.intra_bw_bytes_per_s = 1e-6;
	expect_check_fails(&bad, "'intra_bw' must be at least 1MB/s, got "
				 "1e-06");
	bad = g;
	bad.peak_flops[PREC_BF16] = 1e-300;
	expect_check_fails(&bad, "'bf16' must be at least 1GFLOPS");
	bad = g;
	bad.mem_eff = 0.001;
	expect_check_fails(&bad, "'mem_eff' must be at least 0.01");
	bad = g;
	bad.peak_flops[PREC_INT4] = 0.0; /* none */
	assert_int_equal(gpu_spec_check(&bad, NULL), 0);
	bad = g;
	bad.tdp_w = INFINITY;
	expect_check_fails(&bad, "'tdp' must be positive");
	bad = g;
	bad.idle_w = 0.0;
	expect_check_fails(&bad, "'idle_power' must be positive");
	bad = g;
	bad.idle_w = 1000.0;
	expect_check_fails(&bad, "must not exceed 'tdp'");
	bad = g;
	bad.intra_bw_bytes_per_s = 0.0;
	expect_check_fails(&bad, "'intra_bw'");
	bad = g;
	bad.inter_bw_bytes_per_s = NAN;
	expect_check_fails(&bad, "'inter_bw'");
	bad = g;
	bad.price_usd_per_hour = -0.01;
	expect_check_fails(&bad, "'price_usd_per_gpu_hour'");
	bad = g;
	bad.matmul_eff = 1.01;
	expect_check_fails(&bad, "'matmul_eff' must be a number in (0, 1]");
	bad = g;
	bad.mem_eff = 0.0;
	expect_check_fails(&bad, "'mem_eff'");
	bad = g;
	bad.gpus_per_node = 0;
	expect_check_fails(&bad, "'gpus_per_node' must be a whole number "
				 "from 1 to 65536, got 0");
	bad.gpus_per_node = 2000000000;
	expect_check_fails(&bad, "'gpus_per_node' must be a whole number "
				 "from 1 to 65536, got 2000000000");
	bad = g;
	bad.peak_flops[PREC_FP8] = -1.0;
	expect_check_fails(&bad, "'fp8' must be");
	/* a positive rate so small that any work on it takes forever */
	bad = g;
	bad.peak_flops[PREC_BF16] = 1e-300;
	expect_check_fails(&bad, "'bf16' must be at least 1GFLOPS, got "
				 "1e-300");
	bad.peak_flops[PREC_BF16] = 1e-9;
	expect_check_fails(&bad, "'bf16' must be at least 1GFLOPS, got 1e-09");
	bad.peak_flops[PREC_BF16] = 1e9;
	assert_int_equal(gpu_spec_check(&bad, NULL), 0);
	bad.peak_flops[PREC_BF16] = 2e21;
	expect_check_fails(&bad, "'bf16' must be at most 1e21FLOPS, got 2e+21");
	bad.peak_flops[PREC_BF16] = 1e9;
	bad.peak_flops[PREC_INT8] = 2e21;
	expect_check_fails(&bad, "'int8' must be at most 1e21OPS, got 2e+21");
	/* issue 40: past the bound is not "must be positive" */
	bad = g;
	bad.mem_bytes = 1e30;
	expect_check_fails(&bad, "'memory' must be at most 1e21B, got 1e+30");
	bad = g;
	bad.intra_bw_bytes_per_s = 1e30;
	expect_check_fails(&bad, "'intra_bw' must be at most 1e21B/s, got "
				 "1e+30");
	bad = g;
	bad.tdp_w = 1e30;
	expect_check_fails(&bad, "'tdp' must be at most 1e21W, got 1e+30");
	bad = g;
	bad.peak_flops[PREC_INT4] = NAN;
	expect_check_fails(&bad, "'int4' must be");
	bad = g;
	bad.name[0] = '\0';
	expect_check_fails(&bad, "no valid name");
	bad = g;
	snprintf(bad.price_basis, sizeof(bad.price_basis), "on demand");
	expect_check_fails(&bad, "'price_basis' must be one word");
	bad.price_basis[0] = '\0';
	expect_check_fails(&bad, "'price_basis' must be one word");
	memset(bad.price_basis, 'a', sizeof(bad.price_basis));
	expect_check_fails(&bad, "'price_basis' must be one word");
	bad = g;
	bad.rent_max_gpus = -1;
	expect_check_fails(&bad, "'rent_max_gpus' must be a whole number "
				 "from 1 to 16777216, or 0 for no known "
				 "limit, got -1");
	bad.rent_max_gpus = (1 << 24) + 1;
	expect_check_fails(&bad, "got 16777217");
	bad.rent_max_gpus = 0;
	assert_int_equal(gpu_spec_check(&bad, NULL), 0);
	bad = g;
	bad.sms = -1;
	expect_check_fails(&bad, "'sms' must be a whole number from 1 to "
				 "4096, or 0 for unknown, got -1");
	bad.sms = 4097;
	expect_check_fails(&bad, "got 4097");
	bad = g;
	bad.capex_usd_per_gpu = -1.0;
	expect_check_fails(&bad, "'capex_usd_per_gpu' must be a positive "
				 "number (1e-9 to 1e21), or empty when "
				 "unknown, got -1");
	bad.capex_usd_per_gpu = NAN;
	expect_check_fails(&bad, "'capex_usd_per_gpu'");
	bad.capex_usd_per_gpu = 0.0; /* unknown */
	assert_int_equal(gpu_spec_check(&bad, NULL), 0);

	bad = g;
	for (int p = 0; p < PREC_COUNT; p++)
		bad.peak_flops[p] = 0.0;
	diag_clear(&d);
	assert_int_equal(gpu_spec_check(&bad, &d), -1);
	assert_non_null(strstr(d.msg, "gpu 'Xcel-9' has no peak throughput"));
	assert_int_equal(gpu_spec_check(NULL, NULL), -1);
}

static void test_price_covers(void **state)
{
	struct gpu_spec g;

	(void)state;
	memset(&g, 0, sizeof(g));
	g.rent_max_gpus = 0; /* no known limit */
	assert_true(gpu_price_covers(&g, 1));
	assert_true(gpu_price_covers(&g, 1 << 24));
	g.rent_max_gpus = 8;
	assert_true(gpu_price_covers(&g, 1));
	assert_true(gpu_price_covers(&g, 8));
	assert_false(gpu_price_covers(&g, 9));
	assert_false(gpu_price_covers(&g, 512));
	g.rent_max_gpus = 1;
	assert_true(gpu_price_covers(&g, 1));
	assert_false(gpu_price_covers(&g, 2));
}

static void test_load_file(void **state)
{
	char path[] = "/tmp/test_catalog_XXXXXX";
	struct catalog *cat = (struct catalog *)&cat;
	struct diag d;
	int fd;
	FILE *f;

	(void)state;
	diag_clear(&d);
	assert_int_equal(catalog_load_file("/nonexistent/x.csv", &cat, &d), -1);
	assert_null(cat);
	assert_string_equal(d.msg, "cannot read '/nonexistent/x.csv': No such "
				   "file or directory");
	assert_string_equal(d.file, "");
	assert_int_equal(d.kind, DIAG_IO);

	diag_clear(&d);
	assert_int_equal(catalog_load_file("/tmp", &cat, &d), -1);
	assert_string_equal(d.msg, "cannot read '/tmp': expected a file, found "
				   "a directory");
	assert_int_equal(d.kind, DIAG_IO);

	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(full_csv, f);
	assert_int_equal(fclose(f), 0);
	diag_clear(&d);
	assert_int_equal(catalog_load_file(path, &cat, &d), 0);
	assert_int_equal(catalog_count(cat), 3);
	catalog_free(cat);

	/* errors name the file */
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(HDR "A,80GB,fast,989TFLOPS,700W\n", f);
	assert_int_equal(fclose(f), 0);
	diag_clear(&d);
	assert_int_equal(catalog_load_file(path, &cat, &d), -1);
	assert_string_equal(d.file, path);
	assert_int_equal(d.line, 2);
	assert_int_equal(d.col, 8);
	unlink(path);
}

static void test_misc(void **state)
{
	struct catalog *cat;
	FILE *ro;

	(void)state;
	catalog_free(NULL);
	assert_int_equal(catalog_count(NULL), 0);
	assert_null(catalog_at(NULL, 0));

	/* a failing stream is reported */
	cat = parse_ok(HDR ROW);
	ro = fopen("/dev/null", "r");
	assert_non_null(ro);
	assert_int_equal(catalog_write_csv(ro, cat), -1);
	fclose(ro);
	catalog_free(cat);

	/* out may be NULL: the text is only checked */
	{
		struct diag d;

		diag_clear(&d);
		assert_int_equal(catalog_parse(HDR ROW, strlen(HDR ROW), NULL,
					       NULL, &d),
				 0);
		assert_int_equal(catalog_parse("x", 1, NULL, NULL, &d), -1);
		assert_string_equal(d.file, "<catalog>");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_parse),
		cmocka_unit_test(test_optional_columns_absent),
		cmocka_unit_test(test_bom_crlf_no_final_newline),
		cmocka_unit_test(test_value_errors),
		cmocka_unit_test(test_optional_value_errors),
		cmocka_unit_test(test_optional_values_ok),
		cmocka_unit_test(test_structure_errors),
		cmocka_unit_test(test_nul_bytes),
		cmocka_unit_test(test_name_lengths),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_default_catalog),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_find_at_most_five),
		cmocka_unit_test(test_gpu_spec_check),
		cmocka_unit_test(test_price_covers),
		cmocka_unit_test(test_lower_bounds),
		cmocka_unit_test(test_upper_bounds),
		cmocka_unit_test(test_load_file),
		cmocka_unit_test(test_misc),
		cmocka_unit_test(test_many_devices),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
