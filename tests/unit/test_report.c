/* test_report.c - records written as table, CSV and JSON (cmocka). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* Render 'r' in 'fmt' to a heap string (free it); '*rc' is the status. */
static char *render(const struct report *r, enum report_format fmt, int *rc,
		    const char **why)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	*rc = report_write(f, r, fmt, why);
	assert_int_equal(fclose(f), 0);
	assert_non_null(buf);
	return buf;
}

static bool starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static char *render_ok(const struct report *r, enum report_format fmt)
{
	const char *why = NULL;
	int rc;
	char *out = render(r, fmt, &rc, &why);

	if (rc != 0) {
		print_error("report_write: %s\n", why ? why : "(null)");
		fail();
	}
	return out;
}

/* One plan-like record with every kind of field. */
static void fill_record(struct record *rec, const char *gpu, double total,
			long long gpus)
{
	rec_str(rec, NULL, "gpu", "GPU", gpu, RF_GRID);
	rec_int(rec, NULL, "gpus", "GPUs", gpus, RF_GRID);
	rec_heading(rec, "memory per GPU");
	rec_num(rec, "memory", "total_bytes", "total memory", total,
		UNIT_BYTES, RF_GRID);
	rec_bool(rec, "memory", "fits", "fits", total < 8e10, 0);
	rec_null(rec, "memory", "max_micro_batch", "largest micro-batch", 0);
	rec_num(rec, NULL, "mfu", "MFU", 0.4123, UNIT_KIND_COUNT,
		RF_PERCENT | RF_GRID);
	rec_num(rec, NULL, "flops_exact", "exact FLOPs", 1.2345678901234567e15,
		UNIT_KIND_COUNT, RF_MACHINE);
}

static void single_report(struct report *r)
{
	struct record *rec;

	report_init(r, false);
	snprintf(r->title, sizeof(r->title), "plan for %s", "test");
	rec = report_add_record(r);
	assert_non_null(rec);
	fill_record(rec, "H100, \"SXM\"", 7.3512e10, 1024);
	report_note(r, "chosen by capplan: %s", "training.tp");
	report_note(r, "second note %d", 2);
}

static void test_format_parse(void **state)
{
	enum report_format f = FORMAT_COUNT;

	(void)state;
	assert_int_equal(report_format_parse("table", &f), 0);
	assert_int_equal(f, FORMAT_TABLE);
	assert_int_equal(report_format_parse("csv", &f), 0);
	assert_int_equal(f, FORMAT_CSV);
	assert_int_equal(report_format_parse("json", &f), 0);
	assert_int_equal(f, FORMAT_JSON);
	f = FORMAT_COUNT;
	assert_int_equal(report_format_parse("xml", &f), -1);
	assert_int_equal(report_format_parse("", &f), -1);
	assert_int_equal(report_format_parse("jsonl", &f), -1);
	assert_int_equal(f, FORMAT_COUNT);
}

static void test_json_single(void **state)
{
	struct report r;
	char *out;
	cJSON *root, *mem, *v, *notes;

	(void)state;
	single_report(&r);
	out = render_ok(&r, FORMAT_JSON);
	root = cJSON_Parse(out);
	assert_non_null(root);
	assert_true(cJSON_IsObject(root));

	v = cJSON_GetObjectItemCaseSensitive(root, "gpu");
	assert_true(cJSON_IsString(v));
	assert_string_equal(v->valuestring, "H100, \"SXM\"");
	v = cJSON_GetObjectItemCaseSensitive(root, "gpus");
	assert_true(cJSON_IsNumber(v));
	assert_true(v->valuedouble == 1024.0);

	/* grouped fields nest */
	mem = cJSON_GetObjectItemCaseSensitive(root, "memory");
	assert_true(cJSON_IsObject(mem));
	v = cJSON_GetObjectItemCaseSensitive(mem, "total_bytes");
	assert_true(cJSON_IsNumber(v));
	assert_true(v->valuedouble == 7.3512e10);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(mem, "fits")));
	assert_true(cJSON_IsNull(
		cJSON_GetObjectItemCaseSensitive(mem, "max_micro_batch")));
	assert_int_equal(cJSON_GetArraySize(mem), 3);
	assert_null(cJSON_GetObjectItemCaseSensitive(root, "total_bytes"));

	/* machine-only fields are there, exactly; percentages stay fractions */
	v = cJSON_GetObjectItemCaseSensitive(root, "flops_exact");
	assert_true(cJSON_IsNumber(v));
	assert_true(v->valuedouble == 1.2345678901234567e15);
	v = cJSON_GetObjectItemCaseSensitive(root, "mfu");
	assert_true(v->valuedouble == 0.4123);

	/* no headings; the notes array */
	assert_null(cJSON_GetObjectItemCaseSensitive(root, ""));
	assert_null(strstr(out, "memory per GPU"));
	notes = cJSON_GetObjectItemCaseSensitive(root, "notes");
	assert_true(cJSON_IsArray(notes));
	assert_int_equal(cJSON_GetArraySize(notes), 2);
	assert_string_equal(cJSON_GetArrayItem(notes, 0)->valuestring,
			    "chosen by capplan: training.tp");
	/* gpu, gpus, memory, mfu, flops_exact, notes */
	assert_int_equal(cJSON_GetArraySize(root), 6);

	cJSON_Delete(root);
	free(out);
	report_release(&r);
}

/* Machine formats carry every bit of a double (%.17g, specs/output.md):
   JSON too, not only CSV. */
static void test_json_round_trip(void **state)
{
	static const double values[] = {
		0.30000000000000004,    /* 0.1 + 0.2 */
		1.0000000000000002,     /* 1 + 2^-52 */
		2.3850000000000002e12,
		7.0000000000000009e-06,
		1.2345678901234567e15,
	};

	int bad = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		struct report r;
		char *out;
		cJSON *root, *v;

		report_init(&r, false);
		rec_num(report_add_record(&r), NULL, "x", "x", values[i],
			UNIT_KIND_COUNT, 0);
		out = render_ok(&r, FORMAT_JSON);
		report_release(&r);
		root = cJSON_Parse(out);
		v = cJSON_GetObjectItemCaseSensitive(root, "x");
		if (!cJSON_IsNumber(v) || v->valuedouble != values[i]) {
			print_error("%.17g came back as %.17g from %s\n",
				    values[i], v ? v->valuedouble : (double)NAN, out);
			bad++;
		}
		cJSON_Delete(root);
		free(out);
	}
	assert_int_equal(bad, 0);
}

static void test_json_no_notes_key(void **state)
{
	struct report r;
	char *out;
	cJSON *root;

	(void)state;
	single_report(&r);
	r.notes_key = NULL;
	out = render_ok(&r, FORMAT_JSON);
	root = cJSON_Parse(out);
	assert_non_null(root);
	assert_null(cJSON_GetObjectItemCaseSensitive(root, "notes"));
	cJSON_Delete(root);
	free(out);
	report_release(&r);
}

static void test_csv_single(void **state)
{
	struct report r;
	char *out, want[512], exact[64], mfu[64];

	(void)state;
	single_report(&r);
	out = render_ok(&r, FORMAT_CSV);
	snprintf(exact, sizeof(exact), "%.17g", 1.2345678901234567e15);
	snprintf(mfu, sizeof(mfu), "%.17g", 0.4123);
	/* heading left out, groups dotted, null an empty cell, the string
	   quoted with its quotes doubled (RFC 4180), notes not in CSV */
	snprintf(want, sizeof(want),
		 "gpu,gpus,memory.total_bytes,memory.fits,"
		 "memory.max_micro_batch,mfu,flops_exact\n"
		 "\"H100, \"\"SXM\"\"\",1024,73512000000,true,,%s,%s\n",
		 mfu, exact);
	assert_string_equal(out, want);
	free(out);
	report_release(&r);
}

static void test_csv_quoting(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "plain", "plain" },
		{ "a,b", "\"a,b\"" },
		{ "say \"hi\"", "\"say \"\"hi\"\"\"" },
		{ "two\nlines", "\"two\nlines\"" },
		{ "cr\rhere", "\"cr\rhere\"" },
		{ "", "" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct report r;
		struct record *rec;
		char *out, want[128];

		report_init(&r, false);
		rec = report_add_record(&r);
		assert_non_null(rec);
		rec_str(rec, NULL, "k,ey", "label", cases[i].in, 0);
		out = render_ok(&r, FORMAT_CSV);
		snprintf(want, sizeof(want), "\"k,ey\"\n%s\n", cases[i].out);
		assert_string_equal(out, want);
		free(out);
		report_release(&r);
	}
}

/* Fields of a CSV line up to its newline, quoted commas not counted. */
static int csv_fields(const char *line)
{
	int n = 1;
	bool quoted = false;

	for (; *line && (quoted || *line != '\n'); line++) {
		if (*line == '"')
			quoted = !quoted;
		else if (*line == ',' && !quoted)
			n++;
	}
	return n;
}

/*
 * Records of a table that differ: a later one lacks fields, has others,
 * holds an interval where the first has a null, and names its fields in
 * another order.  The header is the union of their fields (the first
 * record's order, then new ones as first seen), every row has a cell for
 * each column, matched by group and key, and JSON keeps each record as
 * it is.
 */
/* An interval with no value in every record is still two columns: the
   header does not depend on the values (RF_PAIR_NULL) */
static void test_csv_null_pair(void **state)
{
	struct report r;
	struct record *rec;
	char *out;

	(void)state;
	report_init(&r, true);
	rec = report_add_record(&r);
	assert_non_null(rec);
	rec_str(rec, NULL, "gpu", "GPU", "A", RF_GRID);
	rec_null(rec, "interval", "t", "time", RF_PAIR_NULL);
	rec_null(rec, "interval", "u", "other", 0);
	out = render_ok(&r, FORMAT_CSV);
	assert_string_equal(out, "gpu,interval.t.lo,interval.t.hi,"
				 "interval.u\nA,,,\n");
	free(out);
	out = render_ok(&r, FORMAT_JSON);
	assert_non_null(strstr(out, "\"t\":\tnull"));
	free(out);
	report_release(&r);
}

static void test_csv_union(void **state)
{
	struct report r;
	struct record *rec;
	char *out;
	cJSON *root;

	(void)state;
	report_init(&r, true);
	rec = report_add_record(&r);
	assert_non_null(rec);
	rec_str(rec, NULL, "gpu", "GPU", "A", RF_GRID);
	rec_int(rec, "training", "gpus", "GPUs", 8, RF_GRID);
	rec_null(rec, "interval", "t", "time", 0);
	rec_str(rec, NULL, "why", "why", "", RF_GRID);
	rec = report_add_record(&r);
	assert_non_null(rec);
	rec_str(rec, NULL, "gpu", "GPU", "B", RF_GRID);
	rec_heading(rec, "interval");
	rec_pair(rec, "interval", "t", "time", 1.0, 2.0, UNIT_TIME, 0);
	rec_int(rec, NULL, "gpus", "GPUs", 4, RF_GRID);
	rec_str(rec, NULL, "why", "why", "no", RF_GRID);
	rec_str(rec, NULL, "status", "status", "short", RF_TABLE);
	rec_bool(rec, NULL, "extra", "extra", true, 0);
	rec = report_add_record(&r);
	assert_non_null(rec);
	rec_bool(rec, NULL, "extra", "extra", false, 0);
	rec_str(rec, NULL, "gpu", "GPU", "C", RF_GRID);

	out = render_ok(&r, FORMAT_CSV);
	assert_string_equal(out, "gpu,training.gpus,interval.t.lo,"
				 "interval.t.hi,why,gpus,extra\n"
				 "A,8,,,,,\n"
				 "B,,1,2,no,4,true\n"
				 "C,,,,,,false\n");
	for (const char *p = out; *p; p = strchr(p, '\n') + 1)
		assert_int_equal(csv_fields(p), csv_fields(out));
	free(out);

	out = render_ok(&r, FORMAT_JSON);
	root = cJSON_Parse(out);
	assert_non_null(root);
	assert_int_equal(cJSON_GetArraySize(root), 3);
	assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(root, 0),
						 "interval"),
		"t")));
	assert_null(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetArrayItem(root, 0), "extra"));
	assert_int_equal(cJSON_GetArraySize(cJSON_GetArrayItem(root, 2)), 2);
	cJSON_Delete(root);
	free(out);
	report_release(&r);
}

/*
 * A text cell that begins as a spreadsheet formula does gets a single
 * quote in front, inside its quotes (OWASP's advice on CSV injection);
 * numbers, negative ones too, stay numbers.
 */
static void test_csv_formula(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "=1+1", "\"'=1+1\"" },
		{ "=HYPERLINK(\"http://x\")",
		  "\"'=HYPERLINK(\"\"http://x\"\")\"" },
		{ "+1", "\"'+1\"" },
		{ "-2", "\"'-2\"" },
		{ "@SUM(A1)", "\"'@SUM(A1)\"" },
		{ "\tx", "\"'\tx\"" },
		{ "\rx", "\"'\rx\"" },
		{ "a=b", "a=b" },
		{ "", "" },
	};
	struct report r;
	struct record *rec;
	char *out;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char want[128];

		report_init(&r, false);
		rec = report_add_record(&r);
		assert_non_null(rec);
		rec_str(rec, NULL, "name", "name", cases[i].in, 0);
		out = render_ok(&r, FORMAT_CSV);
		snprintf(want, sizeof(want), "name\n%s\n", cases[i].out);
		assert_string_equal(out, want);
		free(out);
		report_release(&r);
	}
	report_init(&r, false);
	rec = report_add_record(&r);
	assert_non_null(rec);
	rec_num(rec, NULL, "x", "x", -1.5, UNIT_KIND_COUNT, 0);
	rec_int(rec, NULL, "n", "n", -3, 0);
	rec_pair(rec, NULL, "p", "p", -2.0, -1.0, UNIT_KIND_COUNT, 0);
	out = render_ok(&r, FORMAT_CSV);
	assert_string_equal(out, "x,n,p.lo,p.hi\n-1.5,-3,-2,-1\n");
	free(out);
	report_release(&r);
}

static void test_table_single(void **state)
{
	struct report r;
	char *out;

	(void)state;
	single_report(&r);
	out = render_ok(&r, FORMAT_TABLE);
	assert_true(starts_with(out, "plan for test\n"));
	assert_non_null(strstr(out, "\nmemory per GPU\n"));
	assert_non_null(strstr(out, "total memory"));
	assert_non_null(strstr(out, "H100, \"SXM\"")); /* not quoted */
	assert_non_null(strstr(out, "41.2%"));
	assert_non_null(strstr(out, "yes"));
	/* null shows as a dash */
	assert_non_null(strstr(out, "largest micro-batch"));
	{
		const char *l = strstr(out, "largest micro-batch");
		const char *eol = strchr(l, '\n');

		assert_non_null(eol);
		assert_true(eol[-1] == '-');
	}
	/* machine-only fields and keys are not in the table */
	assert_null(strstr(out, "exact FLOPs"));
	assert_null(strstr(out, "flops_exact"));
	assert_null(strstr(out, "total_bytes"));
	assert_null(strstr(out, "1234567890"));
	/* the notes, after a blank line, at the end */
	assert_non_null(strstr(out, "\n\nchosen by capplan: training.tp\n"
				    "second note 2\n"));
	free(out);
	report_release(&r);
}

static void test_not_finite(void **state)
{
	static const double bad[] = { NAN, INFINITY, -INFINITY };

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		for (int fmt = 0; fmt < FORMAT_COUNT; fmt++) {
			struct report r;
			struct record *rec;
			const char *why = NULL;
			int rc;
			char *out;

			single_report(&r);
			rec = report_add_record(&r);
			assert_non_null(rec);
			fill_record(rec, "A100", 4.1e10, 8);
			rec->f[rec->n - 2].num = bad[i]; /* "mfu" */
			out = render(&r, (enum report_format)fmt, &rc, &why);
			assert_int_equal(rc, -1);
			assert_non_null(why);
			assert_string_equal(why,
					    "a result is not a finite number");
			/* nothing half-written */
			assert_string_equal(out, "");
			free(out);
			report_release(&r);
		}
	}
}

static void list_report(struct report *r)
{
	report_init(r, true);
	snprintf(r->title, sizeof(r->title), "devices");
	fill_record(report_add_record(r), "A100", 4.1e10, 8);
	fill_record(report_add_record(r), "H100, SXM", 9.3e10, 16);
	fill_record(report_add_record(r), "MI300X", 1.7e11, 64);
}

static void test_list_json(void **state)
{
	struct report r;
	char *out;
	cJSON *root, *o;

	(void)state;
	list_report(&r);
	out = render_ok(&r, FORMAT_JSON);
	root = cJSON_Parse(out);
	assert_non_null(root);
	assert_true(cJSON_IsArray(root));
	assert_int_equal(cJSON_GetArraySize(root), 3);
	o = cJSON_GetArrayItem(root, 1);
	assert_string_equal(
		cJSON_GetObjectItemCaseSensitive(o, "gpu")->valuestring,
		"H100, SXM");
	assert_true(cJSON_GetObjectItemCaseSensitive(
			    cJSON_GetObjectItemCaseSensitive(o, "memory"),
			    "total_bytes")
			    ->valuedouble == 9.3e10);
	assert_true(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(o, "memory"), "fits")));
	o = cJSON_GetArrayItem(root, 2);
	assert_true(cJSON_GetObjectItemCaseSensitive(o, "gpus")->valuedouble ==
		    64.0);
	cJSON_Delete(root);
	free(out);

	/* a list of one is still a list */
	report_release(&r);
	report_init(&r, true);
	fill_record(report_add_record(&r), "A100", 4.1e10, 8);
	out = render_ok(&r, FORMAT_JSON);
	root = cJSON_Parse(out);
	assert_true(cJSON_IsArray(root));
	assert_int_equal(cJSON_GetArraySize(root), 1);
	cJSON_Delete(root);
	free(out);
	report_release(&r);
}

static void test_list_csv(void **state)
{
	struct report r;
	char *out;
	char *line2, *line3;

	(void)state;
	list_report(&r);
	out = render_ok(&r, FORMAT_CSV);
	/* one header, one line per record */
	assert_true(starts_with(out, "gpu,gpus,memory.total_bytes,memory.fits,"
				     "memory.max_micro_batch,mfu,flops_exact\n"));
	line2 = strchr(out, '\n') + 1;
	assert_true(starts_with(line2, "A100,8,41000000000,true,,"));
	line3 = strchr(line2, '\n') + 1;
	assert_true(starts_with(line3, "\"H100, SXM\",16,93000000000,false,,"));
	free(out);
	report_release(&r);
}

static void test_list_table(void **state)
{
	struct report r;
	char *out, *header;

	(void)state;
	list_report(&r);
	out = render_ok(&r, FORMAT_TABLE);
	assert_true(starts_with(out, "devices\n"));
	header = out + 8;
	/* the grid columns only, in order */
	assert_true(starts_with(header, "GPU"));
	assert_non_null(strstr(header, "GPUs"));
	assert_true(strstr(header, "total memory") < strstr(header, "MFU"));
	assert_null(strstr(out, "fits"));
	assert_null(strstr(out, "exact FLOPs"));
	assert_null(strstr(out, "memory per GPU"));
	assert_non_null(strstr(out, "MI300X"));
	assert_non_null(strstr(out, "41.2%"));
	/* header and three rows */
	{
		int lines = 0;

		for (const char *p = out; *p; p++)
			lines += *p == '\n';
		assert_int_equal(lines, 5);
	}
	free(out);
	report_release(&r);
}

/* one_as_record: a list of one row is a record in the table, every field
   but the machine ones on its own line; still a grid for more rows, and
   a JSON array of one. */
static void test_one_as_record(void **state)
{
	struct report r;
	char *out;
	cJSON *root;

	(void)state;
	report_init(&r, true);
	r.one_as_record = true;
	fill_record(report_add_record(&r), "MI300X", 1.7e11, 64);
	out = render_ok(&r, FORMAT_TABLE);
	assert_non_null(strstr(out, "  GPU "));
	assert_non_null(strstr(out, "MI300X\n"));
	/* fields outside the grid too, but not the machine-only one */
	assert_non_null(strstr(out, "  fits "));
	assert_non_null(strstr(out, "largest micro-batch"));
	assert_null(strstr(out, "exact FLOPs"));
	free(out);
	out = render_ok(&r, FORMAT_JSON);
	root = cJSON_Parse(out);
	assert_true(cJSON_IsArray(root));
	assert_int_equal(cJSON_GetArraySize(root), 1);
	cJSON_Delete(root);
	free(out);
	/* two rows: the grid, without the fields outside it */
	fill_record(report_add_record(&r), "A100", 4.1e10, 8);
	out = render_ok(&r, FORMAT_TABLE);
	assert_null(strstr(out, "fits"));
	assert_non_null(strstr(out, "A100"));
	free(out);
	report_release(&r);
}

/* A record's long text value breaks at blanks within the table width,
   its later lines under its start; a value without blanks stays whole. */
static void test_record_wraps_long_text(void **state)
{
	static const char words[] =
		"one two three four five six seven eight nine ten eleven "
		"twelve thirteen fourteen fifteen sixteen";
	char path[120];
	struct report r;
	struct record *rec;
	char *out;
	const char *line;
	int lines = 0;

	(void)state;
	memset(path, 'x', sizeof(path) - 1);
	path[sizeof(path) - 1] = '\0';
	report_init(&r, false);
	rec = report_add_record(&r);
	rec_str(rec, NULL, "source", "source", words, 0);
	out = render_ok(&r, FORMAT_TABLE);
	for (line = out; *line; lines++) {
		const char *end = strchr(line, '\n');

		assert_non_null(end);
		assert_true(end - line <= REPORT_TABLE_WIDTH);
		if (lines > 0)
			assert_true(strncmp(line, "                       "
						  "          ", 33) == 0 &&
				    line[33] != ' ');
		line = end + 1;
	}
	assert_int_equal(lines, 2);
	assert_non_null(strstr(out, "  source                         one "));
	free(out);
	report_release(&r);
	report_init(&r, false);
	rec = report_add_record(&r);
	rec_str(rec, NULL, "path", "path", path, 0);
	out = render_ok(&r, FORMAT_TABLE);
	assert_non_null(strstr(out, path));
	free(out);
	report_release(&r);
}

static void test_empty(void **state)
{
	struct report r;
	char *out;

	(void)state;
	report_init(&r, false);
	snprintf(r.title, sizeof(r.title), "catalog");
	out = render_ok(&r, FORMAT_TABLE);
	assert_string_equal(out, "catalog\n(nothing to show)\n");
	free(out);
	out = render_ok(&r, FORMAT_CSV);
	assert_string_equal(out, "");
	free(out);
	out = render_ok(&r, FORMAT_JSON);
	{
		cJSON *root = cJSON_Parse(out);

		assert_true(cJSON_IsObject(root));
		assert_true(cJSON_IsArray(
			cJSON_GetObjectItemCaseSensitive(root, "notes")));
		cJSON_Delete(root);
	}
	free(out);
	r.list = true;
	out = render_ok(&r, FORMAT_JSON);
	{
		cJSON *root = cJSON_Parse(out);

		assert_true(cJSON_IsArray(root));
		assert_int_equal(cJSON_GetArraySize(root), 0);
		cJSON_Delete(root);
	}
	free(out);
	report_release(&r);
	report_release(&r); /* twice is harmless */
}

static void test_limits(void **state)
{
	struct report r;
	struct record *rec;

	(void)state;
	report_init(&r, false);
	rec = report_add_record(&r);
	assert_non_null(rec);
	/* fields beyond the maximum are dropped, not written past the end */
	for (int i = 0; i < REPORT_MAX_FIELDS + 5; i++)
		rec_int(rec, NULL, "k", "k", i, 0);
	assert_int_equal(rec->n, REPORT_MAX_FIELDS);
	assert_int_equal(rec->f[REPORT_MAX_FIELDS - 1].inum,
			 REPORT_MAX_FIELDS - 1);
	/* as are notes */
	for (int i = 0; i < REPORT_MAX_NOTES + 3; i++)
		report_note(&r, "note %d", i);
	assert_int_equal(r.nnotes, REPORT_MAX_NOTES);
	assert_string_equal(r.notes[REPORT_MAX_NOTES - 1], "note 23");
	/* long strings are cut to fit */
	rec = report_add_record(&r);
	{
		char big[3 * REPORT_STR_MAX];

		memset(big, 'x', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		rec_str(rec, NULL, "s", "s", big, 0);
		assert_int_equal(strlen(rec->f[0].str), REPORT_STR_MAX - 1);
		rec_str(rec, NULL, "t", "t", NULL, 0);
		assert_string_equal(rec->f[1].str, "");
	}
	/* many records: the array grows */
	for (int i = 0; i < 100; i++)
		assert_non_null(report_add_record(&r));
	assert_int_equal(r.nrec, 102);
	assert_int_equal(r.rec[101].n, 0);
	report_release(&r);
	assert_null(r.rec);
	assert_int_equal(r.nrec, 0);
}

/* An interval: a JSON array of two numbers, two CSV columns, "lo - hi" in
   tables; a record with too many fields is refused, not cut. */
static void test_pair_and_overflow(void **state)
{
	struct report r;
	struct record *rec;
	char *out;
	cJSON *root, *iv, *v;
	int rc;
	const char *why = NULL;

	(void)state;
	report_init(&r, false);
	rec = report_add_record(&r);
	assert_non_null(rec);
	rec_pair(rec, "interval", "step_time_s", "step time", 0.25, 1.5,
		 UNIT_TIME, 0);
	out = render_ok(&r, FORMAT_JSON);
	root = cJSON_Parse(out);
	assert_non_null(root);
	iv = cJSON_GetObjectItemCaseSensitive(root, "interval");
	v = cJSON_GetObjectItemCaseSensitive(iv, "step_time_s");
	assert_true(cJSON_IsArray(v));
	assert_int_equal(cJSON_GetArraySize(v), 2);
	assert_true(cJSON_GetArrayItem(v, 0)->valuedouble == 0.25);
	assert_true(cJSON_GetArrayItem(v, 1)->valuedouble == 1.5);
	cJSON_Delete(root);
	free(out);
	out = render_ok(&r, FORMAT_CSV);
	assert_string_equal(out, "interval.step_time_s.lo,"
				 "interval.step_time_s.hi\n0.25,1.5\n");
	free(out);
	out = render_ok(&r, FORMAT_TABLE);
	assert_non_null(strstr(out, "250ms - 1.5s"));
	free(out);
	/* not finite: refused */
	rec_pair(rec, "interval", "x", "x", 1.0, HUGE_VAL, UNIT_TIME, 0);
	out = render(&r, FORMAT_JSON, &rc, &why);
	assert_int_equal(rc, -1);
	free(out);
	report_release(&r);

	report_init(&r, false);
	rec = report_add_record(&r);
	assert_non_null(rec);
	for (int i = 0; i <= REPORT_MAX_FIELDS; i++)
		rec_int(rec, NULL, "k", "k", i, 0);
	out = render(&r, FORMAT_JSON, &rc, &why);
	assert_int_equal(rc, -1);
	assert_string_equal(why, "a record has more fields than "
				 "REPORT_MAX_FIELDS");
	free(out);
	report_release(&r);
}

/* Render 'r' as a table of 'width' columns (free it). */
static char *render_width(const struct report *r, bool wide, int width)
{
	char *buf = NULL;
	size_t len = 0;
	const char *why = NULL;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(report_write_width(f, r, FORMAT_TABLE, wide, width,
					    &why),
			 0);
	assert_int_equal(fclose(f), 0);
	assert_non_null(buf);
	return buf;
}

/* The longest line of 'text'. */
static int longest_line(const char *text)
{
	int most = 0;

	while (*text) {
		const char *end = strchr(text, '\n');
		int len = end ? (int)(end - text) : (int)strlen(text);

		most = len > most ? len : most;
		text += len + (end != NULL);
	}
	return most;
}

/* Numbers below 0.001 of their kind's smallest unit: scientific, three
   digits (a record, a column of them); others without an exponent; an
   energy in kWh in MWh; CSV and JSON as they were. */
static void test_small_numbers(void **state)
{
	static const double inf_cost[] = { 4.0412e-4, 2.9031e-4, 8.3817e-5 };
	struct report r;
	struct record *rec;
	char *out;

	(void)state;
	report_init(&r, false);
	rec = report_add_record(&r);
	rec_num(rec, NULL, "cost_usd_per_million_samples",
		"cost per million samples", 6.1173e-5, UNIT_MONEY, 0);
	rec_num(rec, NULL, "interruptions", "interruptions", 1.0617e-5,
		UNIT_COUNT, 0);
	rec_num(rec, NULL, "energy_j_per_sample", "energy per sample (J)",
		7.9725e-5, UNIT_KIND_COUNT, 0);
	rec_num(rec, NULL, "energy_kwh", "energy", 458612.0, UNIT_ENERGY_KWH,
		0);
	rec_pair(rec, NULL, "share", "share", 2.5e-5, 0.5, UNIT_KIND_COUNT,
		 0);
	out = render_ok(&r, FORMAT_TABLE);
	assert_non_null(strstr(out, " $6.12e-5\n"));
	assert_non_null(strstr(out, " 1.06e-5\n"));
	assert_non_null(strstr(out, " 7.97e-5\n"));
	assert_non_null(strstr(out, " 458.6MWh\n"));
	assert_non_null(strstr(out, " 2.5e-5 - 0.5\n"));
	free(out);
	out = render_ok(&r, FORMAT_CSV);
	assert_non_null(strstr(out, "6.1173e-05,1.0617e-05,7.9725e-05,"
				    "458612,2.5e-05,0.5\n"));
	free(out);
	report_release(&r);

	/* a column: every value below 0.01, some below 0.001 */
	report_init(&r, true);
	for (size_t i = 0; i < sizeof(inf_cost) / sizeof(inf_cost[0]); i++) {
		rec = report_add_record(&r);
		rec_str(rec, NULL, "gpu", "gpu", i ? "B" : "A", RF_GRID);
		rec_num(rec, NULL, "usd", "$/M inf", inf_cost[i], UNIT_MONEY,
			RF_GRID);
		rec_num(rec, NULL, "ms", "time", 2e-3 + 1e-3 * (double)i,
			UNIT_KIND_COUNT, RF_GRID);
		rec_num(rec, NULL, "kwh", "energy", 4.5e5 * (double)(i + 1),
			UNIT_ENERGY_KWH, RF_GRID);
	}
	out = render_ok(&r, FORMAT_TABLE);
	assert_non_null(strstr(out, "4.04e-4"));
	assert_non_null(strstr(out, "8.38e-5"));
	assert_null(strstr(out, "0.000"));
	/* values from 0.001 up: decimals as before */
	assert_non_null(strstr(out, "0.00200"));
	assert_non_null(strstr(out, "0.00400"));
	assert_non_null(strstr(out, "energy (MWh)"));
	assert_non_null(strstr(out, "1350"));
	free(out);
	report_release(&r);
}

/* The width of a table is its caller's: the optional columns that fit
   it and where notes wrap; $COLUMNS, not a terminal, sets it for a
   stream that is not one. */
static void test_table_width(void **state)
{
	static const char note[] =
		"a long note that wraps where the table ends: one two three "
		"four five six seven eight nine ten eleven twelve thirteen "
		"fourteen fifteen";
	static const char *const keys[8] = { "c0", "c1", "c2", "c3",
					     "c4", "c5", "c6", "c7" };
	struct report r;
	char *out;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	report_init(&r, true);
	for (int i = 0; i < 3; i++) {
		struct record *rec = report_add_record(&r);

		rec_str(rec, NULL, "gpu", "gpu", i ? "MI300X" : "H100-SXM",
			RF_GRID);
		for (int j = 0; j < 8; j++)
			rec_num(rec, NULL, keys[j], "a wide column",
				1.5 + i + j, UNIT_KIND_COUNT,
				RF_GRID | (j >= 3 ? RF_WIDE : 0));
	}
	report_note(&r, "%s", note);
	/* 100 columns: some wide columns left out, and a line says so */
	out = render_width(&r, false, REPORT_TABLE_WIDTH);
	assert_true(longest_line(out) <= REPORT_TABLE_WIDTH);
	assert_non_null(strstr(out, "(--wide adds"));
	free(out);
	/* 160: every column fits, the note on one line */
	out = render_width(&r, false, 160);
	assert_null(strstr(out, "(--wide adds"));
	assert_true(longest_line(out) > REPORT_TABLE_WIDTH);
	assert_true(longest_line(out) <= 160);
	assert_non_null(strstr(out, note));
	free(out);
	/* 60: fewer columns, the note wrapped at 60 */
	out = render_width(&r, false, 60);
	assert_true(longest_line(out) <= 60);
	assert_null(strstr(out, note));
	assert_non_null(strstr(out, "(--wide adds"));
	free(out);
	/* below the least width: the least (the columns that are not
	   optional stay, wider than it) */
	out = render_width(&r, false, 5);
	{
		char *least = render_width(&r, false, REPORT_TABLE_MIN_WIDTH);

		assert_string_equal(out, least);
		free(least);
	}
	free(out);
	/* wide: every column, whatever the width */
	out = render_width(&r, true, 60);
	assert_null(strstr(out, "(--wide adds"));
	assert_non_null(strstr(out, note));
	free(out);
	report_release(&r);

	/* $COLUMNS for a stream that is not a terminal, else 100 */
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(setenv("COLUMNS", "132", 1), 0);
	assert_int_equal(report_table_width(f), 132);
	assert_int_equal(setenv("COLUMNS", "12", 1), 0);
	assert_int_equal(report_table_width(f), REPORT_TABLE_MIN_WIDTH);
	assert_int_equal(setenv("COLUMNS", "99999", 1), 0);
	assert_int_equal(report_table_width(f), REPORT_TABLE_MAX_WIDTH);
	assert_int_equal(setenv("COLUMNS", "wide", 1), 0);
	assert_int_equal(report_table_width(f), REPORT_TABLE_WIDTH);
	assert_int_equal(setenv("COLUMNS", "", 1), 0);
	assert_int_equal(report_table_width(f), REPORT_TABLE_WIDTH);
	assert_int_equal(unsetenv("COLUMNS"), 0);
	assert_int_equal(report_table_width(f), REPORT_TABLE_WIDTH);
	assert_int_equal(fclose(f), 0);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_parse),
		cmocka_unit_test(test_json_single),
		cmocka_unit_test(test_pair_and_overflow),
		cmocka_unit_test(test_json_round_trip),
		cmocka_unit_test(test_json_no_notes_key),
		cmocka_unit_test(test_csv_single),
		cmocka_unit_test(test_csv_quoting),
		cmocka_unit_test(test_csv_union),
		cmocka_unit_test(test_csv_null_pair),
		cmocka_unit_test(test_csv_formula),
		cmocka_unit_test(test_table_single),
		cmocka_unit_test(test_not_finite),
		cmocka_unit_test(test_list_json),
		cmocka_unit_test(test_list_csv),
		cmocka_unit_test(test_list_table),
		cmocka_unit_test(test_one_as_record),
		cmocka_unit_test(test_record_wraps_long_text),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_small_numbers),
		cmocka_unit_test(test_table_width),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
