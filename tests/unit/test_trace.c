/* test_trace.c - serving trace files: parsing, sorting, errors, files
   (cmocka). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

#define ARRIVAL_MSG                                                      \
	"'arrival_s' must be a time from 0 to 1e9s such as '1.5' "       \
	"(seconds) or '250ms', found "
#define PROMPT_MSG "'prompt_tokens' must be a whole number from 1 to " \
		   "10000000, found "
#define OUTPUT_MSG "'output_tokens' must be a whole number from 1 to " \
		   "10000000, found "
#define COUNT_MSG "expected 3 fields (arrival_s,prompt_tokens," \
		  "output_tokens), found "
#define EMPTY_MSG "trace has no requests: expected lines of " \
		  "'arrival_s,prompt_tokens,output_tokens'"

static struct sim_request *parse_ok_len(const char *text, size_t len,
					size_t *n)
{
	struct sim_request *reqs = NULL;
	struct diag d;

	diag_clear(&d);
	if (trace_parse(text, len, "t.csv", &reqs, n, &d) != 0) {
		print_error("unexpected error: %s:%d:%d: %s\n", d.file, d.line,
			    d.col, d.msg);
		fail();
	}
	assert_non_null(reqs);
	assert_false(diag_has_error(&d));
	return reqs;
}

static struct sim_request *parse_ok(const char *text, size_t *n)
{
	return parse_ok_len(text, strlen(text), n);
}

static void expect_error_len(const char *text, size_t len, int line,
			     int col, const char *msg)
{
	struct sim_request *reqs = (struct sim_request *)&reqs;
	size_t n = 99;
	struct diag d;
	int rc;

	diag_clear(&d);
	rc = trace_parse(text, len, "t.csv", &reqs, &n, &d);
	if (rc != -1 || reqs != NULL || n != 0 || d.line != line ||
	    d.col != col || strcmp(d.msg, msg) != 0 ||
	    strcmp(d.file, "t.csv") != 0) {
		print_error("input '%.*s'\nrc %d, got %s:%d:%d: %s\n"
			    "want t.csv:%d:%d: %s\n",
			    (int)(len < 200 ? len : 200), text, rc, d.file,
			    d.line, d.col, d.msg, line, col, msg);
		fail();
	}
}

static void expect_error(const char *text, int line, int col,
			 const char *msg)
{
	expect_error_len(text, strlen(text), line, col, msg);
}

static void assert_req(const struct sim_request *r, double arrival_s,
		       int prompt, int output)
{
	if (r->arrival_s != arrival_s || r->prompt_tokens != prompt ||
	    r->output_tokens != output) {
		print_error("got %.17g,%d,%d, want %.17g,%d,%d\n",
			    r->arrival_s, r->prompt_tokens, r->output_tokens,
			    arrival_s, prompt, output);
		fail();
	}
}

static void test_good(void **state)
{
	size_t n = 0;
	struct sim_request *r;

	(void)state;
	r = parse_ok("0,1,1\n"
		     "0.125,2385,173\n"
		     "  2.385 ,\t17 , 9\n"
		     "\"3.5\",\"4096\",\"1\"\n"
		     "3.75s,10000000,10000000\n"
		     "1e3ms,3,4\n"
		     "4.5 min,5,6\n"
		     "1000000000,7,8\n",
		     &n);
	assert_int_equal(n, 8);
	assert_req(&r[0], 0.0, 1, 1);
	assert_req(&r[1], 0.125, 2385, 173);
	assert_req(&r[2], 1.0, 3, 4);
	assert_req(&r[3], 2.385, 17, 9);
	assert_req(&r[4], 3.5, 4096, 1);
	assert_req(&r[5], 3.75, TRACE_TOKENS_MAX, TRACE_TOKENS_MAX);
	assert_req(&r[6], 270.0, 5, 6);
	assert_req(&r[7], TRACE_ARRIVAL_MAX_S, 7, 8);
	free(r);

	/* one request, no final line end; 250ms is 0.25 s exactly */
	r = parse_ok("250ms,12,34", &n);
	assert_int_equal(n, 1);
	assert_req(&r[0], 0.25, 12, 34);
	free(r);
}

static void test_header_comments_blank(void **state)
{
	size_t n = 0;
	struct sim_request *r;

	(void)state;
	r = parse_ok("# a trace\n"
		     "\n"
		     "arrival_s,prompt_tokens,output_tokens\n"
		     "  # indented comment, with \"quotes\n"
		     "0.5,10,20\n"
		     " \t \n"
		     "#\n"
		     "1.5,30,40\n"
		     "\n",
		     &n);
	assert_int_equal(n, 2);
	assert_req(&r[0], 0.5, 10, 20);
	assert_req(&r[1], 1.5, 30, 40);
	free(r);

	/* unit-free names, any case, quoted, after a byte order mark */
	r = parse_ok("\xEF\xBB\xBF" "Arrival,\"prompt\",OUTPUT\n2,3,4\n", &n);
	assert_int_equal(n, 1);
	assert_req(&r[0], 2.0, 3, 4);
	free(r);

	r = parse_ok("ARRIVAL_S, prompt ,output_tokens\n2,3,4\n", &n);
	assert_int_equal(n, 1);
	free(r);

	/* errors after skipped lines are on the right line */
	expect_error("# c\n\narrival_s,prompt_tokens,output_tokens\n"
		     "# c\n1,2,3\n\n   \n1,2,x\n",
		     8, 5, OUTPUT_MSG "'x'");

	/* a header only on the first record */
	expect_error("1,2,3\narrival_s,prompt_tokens,output_tokens\n", 2, 1,
		     ARRIVAL_MSG "'arrival_s' (not a number)");
	/* a header with a wrong name or too few names */
	expect_error("arrival_s,prompt_tokens,output\n"
		     "arrival_s,input,output_tokens\n", 2, 1,
		     ARRIVAL_MSG "'arrival_s' (not a number)");
	expect_error("arrival_s,input,output_tokens\n1,2,3\n", 1, 11,
		     "expected 'prompt_tokens' in the header "
		     "(arrival_s,prompt_tokens,output_tokens), found 'input'");
	expect_error("arrival_s,prompt_tokens\n1,2,3\n", 1, 24,
		     COUNT_MSG "2");
	/* a different first name is data */
	expect_error("time,prompt_tokens,output_tokens\n", 1, 1,
		     ARRIVAL_MSG "'time' (not a number)");
	/* '#' only starts a comment at the start of a line */
	expect_error("1,2,3 # c\n", 1, 5, OUTPUT_MSG "'3 # c'");
}

static void test_unsorted_stable(void **state)
{
	size_t n = 0;
	struct sim_request *r;

	(void)state;
	/* output_tokens is the line number: equal arrivals keep file order */
	r = parse_ok("3.25,1,1\n"
		     "1.5,1,2\n"
		     "2,1,3\n"
		     "1.5,1,4\n"
		     "3.25,1,5\n"
		     "0,1,6\n"
		     "1500ms,1,7\n"
		     "0,1,8\n"
		     "7,1,9\n",
		     &n);
	assert_int_equal(n, 9);
	assert_req(&r[0], 0.0, 1, 6);
	assert_req(&r[1], 0.0, 1, 8);
	assert_req(&r[2], 1.5, 1, 2);
	assert_req(&r[3], 1.5, 1, 4);
	assert_req(&r[4], 1.5, 1, 7);
	assert_req(&r[5], 2.0, 1, 3);
	assert_req(&r[6], 3.25, 1, 1);
	assert_req(&r[7], 3.25, 1, 5);
	assert_req(&r[8], 7.0, 1, 9);
	free(r);
}

/* Many rows in reverse blocks: the merge sort over several passes. */
static void test_sort_many(void **state)
{
	enum { ROWS = 5000, BLOCK = 7 };
	char *text = malloc(ROWS * 32);
	size_t len = 0, n = 0;
	struct sim_request *r;

	(void)state;
	assert_non_null(text);
	for (int i = 0; i < ROWS; i++)
		len += (size_t)sprintf(text + len, "%d.5,%d,%d\n",
				       (ROWS - i) / BLOCK, 1 + i % 4000,
				       i + 1);
	r = parse_ok_len(text, len, &n);
	assert_int_equal(n, ROWS);
	for (size_t i = 1; i < n; i++) {
		assert_true(r[i - 1].arrival_s <= r[i].arrival_s);
		if (r[i - 1].arrival_s == r[i].arrival_s)
			assert_true(r[i - 1].output_tokens <
				    r[i].output_tokens);
	}
	free(r);
	free(text);
}

static void test_crlf(void **state)
{
	size_t n = 0;
	struct sim_request *r;

	(void)state;
	r = parse_ok("arrival_s,prompt_tokens,output_tokens\r\n"
		     "# comment\r\n"
		     "\r\n"
		     "0.75,10,20\r\n"
		     "\"0.5\",30,\"40\"\r\n"
		     "1,2,3",
		     &n);
	assert_int_equal(n, 3);
	assert_req(&r[0], 0.5, 30, 40);
	assert_req(&r[1], 0.75, 10, 20);
	assert_req(&r[2], 1.0, 2, 3);
	free(r);

	/* a final CR alone is a line end too */
	r = parse_ok("1,2,3\r", &n);
	assert_int_equal(n, 1);
	free(r);

	expect_error("1,2,3\r\n4,5\r\n", 2, 4, COUNT_MSG "2");
	expect_error("1,2,3\r\n4,5,x\r\n", 2, 5, OUTPUT_MSG "'x'");
	/* a CR inside a line is data */
	expect_error("1,2\r,3\n", 1, 3, PROMPT_MSG "'2\\r'");
}

static void test_field_counts(void **state)
{
	(void)state;
	expect_error("0,1\n", 1, 4, COUNT_MSG "2");
	expect_error("1,2,3\n4\n", 2, 2, COUNT_MSG "1");
	expect_error("1,2,3\n4,5", 2, 4, COUNT_MSG "2");
	expect_error("0,1,2,3\n", 1, 7, COUNT_MSG "4");
	expect_error("0,1,2,,,\n", 1, 7, COUNT_MSG "6");
	expect_error("0, 1 , 2 ,  x,y\n", 1, 13, COUNT_MSG "5");
	/* a count error comes before a bad field of the same line */
	expect_error("1;2;3\n", 1, 6, COUNT_MSG "1");
	expect_error("x,y,z,w\n", 1, 7, COUNT_MSG "4");
	/* empty fields */
	expect_error(",,\n", 1, 1, ARRIVAL_MSG "'' (empty value)");
	expect_error("1,,3\n", 1, 3, PROMPT_MSG "''");
	expect_error("1,2,\n", 1, 5, OUTPUT_MSG "''");
	expect_error("1,2,\"\"\n", 1, 5, OUTPUT_MSG "''");
}

static void test_arrival_errors(void **state)
{
	static const struct {
		const char *text;
		int col;
		const char *msg;
	} cases[] = {
		{ "x,1,1", 1, ARRIVAL_MSG "'x' (not a number)" },
		{ "-1,1,1", 1, ARRIVAL_MSG "'-1' (negative value)" },
		{ "  -0.5,1,1", 3, ARRIVAL_MSG "'-0.5' (negative value)" },
		{ "nan,1,1", 1, ARRIVAL_MSG "'nan' (not a number)" },
		{ "inf,1,1", 1, ARRIVAL_MSG "'inf' (not a number)" },
		{ "infinity,1,1", 1, ARRIVAL_MSG "'infinity' (not a number)" },
		{ "1e999,1,1", 1, ARRIVAL_MSG "'1e999' (number out of range)" },
		{ "1e-320,1,1", 1,
		  ARRIVAL_MSG "'1e-320' (number out of range)" },
		{ "1e-300ns,1,1", 1,
		  ARRIVAL_MSG "'1e-300ns' (number out of range)" },
		{ "1000000000.5,1,1", 1,
		  ARRIVAL_MSG "'1000000000.5' (later than 1e9s)" },
		{ "32y,1,1", 1, ARRIVAL_MSG "'32y' (later than 1e9s)" },
		{ "0x10,1,1", 1,
		  ARRIVAL_MSG "'0x10' (hexadecimal numbers are not accepted)" },
		{ "1.5GB,1,1", 1,
		  ARRIVAL_MSG "'1.5GB' (unknown unit for a duration (use ns, "
			      "us, ms, s, min, h, d, w, y))" },
		{ "1.5 s s,1,1", 1,
		  ARRIVAL_MSG "'1.5 s s' (trailing characters after the "
			      "unit)" },
		{ "\"\",1,1", 1, ARRIVAL_MSG "'' (empty value)" },
	};

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		char text[64];

		snprintf(text, sizeof(text), "0,1,1\n%s\n", cases[i].text);
		expect_error(text, 2, cases[i].col, cases[i].msg);
	}
}

static void test_token_errors(void **state)
{
	static const char *const bad[] = {
		"0",   "-3",  "+3",  "2.5", "2.0",    "1e3",    "10000001",
		"4K",  "12x", "0x1", "1 2", "999999999999999999999999",
	};

	(void)state;
	for (size_t i = 0; i < N(bad); i++) {
		char text[96], msg[256];

		snprintf(text, sizeof(text), "0.5,%s,7\n", bad[i]);
		snprintf(msg, sizeof(msg), PROMPT_MSG "'%s'", bad[i]);
		expect_error(text, 1, 5, msg);
		snprintf(text, sizeof(text), "1,1,1\n0.5,7,%s", bad[i]);
		snprintf(msg, sizeof(msg), OUTPUT_MSG "'%s'", bad[i]);
		expect_error(text, 2, 7, msg);
	}
	/* the first bad field of a line is the one reported */
	expect_error("1,0,0\n", 1, 3, PROMPT_MSG "'0'");
	expect_error("x,0,0\n", 1, 1, ARRIVAL_MSG "'x' (not a number)");
}

static void test_structure_errors(void **state)
{
	char longer[200];

	(void)state;
	/* an unterminated quote is reported where it opens */
	expect_error("1,2,3\n4,\"5,6\n7,8,9\n", 2, 3,
		     "unterminated quoted field: expected a closing '\"', "
		     "found the end of the file");
	expect_error("\"", 1, 1,
		     "unterminated quoted field: expected a closing '\"', "
		     "found the end of the file");
	expect_error("1,2,3\n4,5,6\"\n", 2, 6,
		     "stray '\"' in an unquoted field");
	expect_error("1,\"2\"x,3\n", 1, 6,
		     "expected ',' or a line end after a closing quote, "
		     "found 'x'");
	expect_error("1,2,\"3\"4567\n", 1, 8,
		     "expected ',' or a line end after a closing quote, "
		     "found '4'");
	/* NUL bytes, in data and in comments */
	expect_error_len("1,2,3\n4,5\0,6\n", 13, 2, 4,
			 "expected text, found a NUL byte");
	expect_error_len("\0", 1, 1, 1, "expected text, found a NUL byte");
	expect_error_len("1,2,3\n# a\0b\n", 12, 2, 4,
			 "expected text, found a NUL byte");
	expect_error_len("\"1\0\",2,3\n", 9, 1, 3,
			 "expected text, found a NUL byte");
	/* a quoted line end is data; lines go on counting after it */
	expect_error("1,2,\"3\n\"\n1,2,x\n", 1, 5, OUTPUT_MSG "'3\\n'");
	expect_error("\"1\n\",2\n", 2, 4, COUNT_MSG "2");
	expect_error("\"1\n\",2,3\n", 1, 1,
		     ARRIVAL_MSG "'1\\n' (unknown unit for a duration (use ns, "
				 "us, ms, s, min, h, d, w, y))");
	/* long fields are cut in messages */
	memset(longer, '9', sizeof(longer));
	memcpy(longer, "1,", 2);
	strcpy(longer + 150, ",1\n");
	expect_error(longer, 1, 3,
		     PROMPT_MSG "'99999999999999999999"
				"99999999999999999999...'");
}

static void test_empty(void **state)
{
	struct sim_request *reqs = (struct sim_request *)&reqs;
	size_t n = 99;
	struct diag d;

	(void)state;
	expect_error("", 1, 1, EMPTY_MSG);
	expect_error("\n\n \n", 1, 1, EMPTY_MSG);
	expect_error("\xEF\xBB\xBF", 1, 1, EMPTY_MSG);
	expect_error("# just a comment\n# and another", 1, 1, EMPTY_MSG);
	expect_error("# c\narrival_s,prompt_tokens,output_tokens\n# c\n", 2, 1,
		     EMPTY_MSG);

	diag_clear(&d);
	assert_int_equal(trace_parse(NULL, 10, NULL, &reqs, &n, &d), -1);
	assert_null(reqs);
	assert_int_equal(n, 0);
	assert_string_equal(d.file, "<trace>");
	assert_string_equal(d.msg, EMPTY_MSG);
}

static void test_too_many_requests(void **state)
{
	size_t rows = TRACE_REQUESTS_MAX + 1;
	size_t len = 6 * rows;
	char *text = malloc(len);

	(void)state;
	assert_non_null(text);
	for (size_t i = 0; i < rows; i++)
		memcpy(text + 6 * i, "0,1,1\n", 6);
	expect_error_len(text, len, TRACE_REQUESTS_MAX + 1, 1,
			 "too many requests: a trace holds at most 50000 (the "
			 "limit that bounds the time of a plan)");
	/* at the limit it reads, and the limit counts requests, not
	   lines: a header and comments come free */
	assert_int_equal(trace_parse(text, len - 6, "t.csv", NULL, NULL,
				     NULL),
			 0);
	free(text);
	{
		static const char head[] =
			"arrival_s,prompt_tokens,output_tokens\n# c\n";
		size_t h = sizeof(head) - 1;

		text = malloc(h + len);
		assert_non_null(text);
		memcpy(text, head, h);
		for (size_t i = 0; i < rows; i++)
			memcpy(text + h + 6 * i, "0,1,1\n", 6);
		assert_int_equal(trace_parse(text, h + len - 6, "t.csv", NULL,
					     NULL, NULL),
				 0);
		expect_error_len(text, h + len, TRACE_REQUESTS_MAX + 3, 1,
				 "too many requests: a trace holds at most "
				 "50000 (the limit that bounds the time of a "
				 "plan)");
		free(text);
	}
}

static void test_optional_outputs(void **state)
{
	size_t n = 0;
	struct sim_request *reqs = NULL;

	(void)state;
	/* check only; no error record */
	assert_int_equal(trace_parse("1,2,3\n", 6, "t", NULL, NULL, NULL), 0);
	assert_int_equal(trace_parse("1,2,3\n", 6, "t", NULL, &n, NULL), 0);
	assert_int_equal(n, 1);
	assert_int_equal(trace_parse("1,2\n", 4, "t", &reqs, NULL, NULL), -1);
	assert_null(reqs);
	/* the first error wins: a recorded one is kept */
	{
		struct diag d;

		diag_clear(&d);
		diag_set(&d, "x", 1, 1, "earlier");
		assert_int_equal(trace_parse("1,2\n", 4, "t", &reqs, &n, &d),
				 -1);
		assert_string_equal(d.msg, "earlier");
	}
}

/* A private directory in /tmp for file tests. */
struct tmp_dir {
	char path[64];
	char file[128];
};

static int tmp_setup(void **state)
{
	struct tmp_dir *t = calloc(1, sizeof(*t));

	if (!t)
		return -1;
	strcpy(t->path, "/tmp/test_trace_XXXXXX");
	if (!mkdtemp(t->path)) {
		free(t);
		return -1;
	}
	snprintf(t->file, sizeof(t->file), "%s/f", t->path);
	*state = t;
	return 0;
}

static int tmp_teardown(void **state)
{
	struct tmp_dir *t = *state;

	unlink(t->file);
	rmdir(t->path);
	free(t);
	return 0;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
	assert_int_equal(fclose(f), 0);
}

static void expect_load_error(const char *path, const char *file, int line,
			      int col, const char *msg)
{
	struct sim_request *reqs = (struct sim_request *)&reqs;
	size_t n = 99;
	struct diag d;

	diag_clear(&d);
	assert_int_equal(trace_load_file(path, &reqs, &n, &d), -1);
	assert_null(reqs);
	assert_int_equal(n, 0);
	assert_string_equal(d.msg, msg);
	assert_string_equal(d.file, file);
	assert_int_equal(d.line, line);
	assert_int_equal(d.col, col);
}

static void test_load_file(void **state)
{
	struct tmp_dir *t = *state;
	struct sim_request *reqs = NULL;
	size_t n = 0;
	struct diag d;
	char msg[256];

	write_file(t->file, "arrival_s,prompt_tokens,output_tokens\n"
			    "2.5,100,200\n0.5,300,400\n");
	diag_clear(&d);
	assert_int_equal(trace_load_file(t->file, &reqs, &n, &d), 0);
	assert_int_equal(n, 2);
	assert_req(&reqs[0], 0.5, 300, 400);
	assert_req(&reqs[1], 2.5, 100, 200);
	free(reqs);

	/* parse errors name the file */
	write_file(t->file, "1,2,3\n4,5\n");
	expect_load_error(t->file, t->file, 2, 4, COUNT_MSG "2");
	write_file(t->file, "");
	expect_load_error(t->file, t->file, 1, 1, EMPTY_MSG);

	snprintf(msg, sizeof(msg),
		 "cannot read '%s/missing.csv': No such file or directory",
		 t->path);
	{
		char missing[160];

		snprintf(missing, sizeof(missing), "%s/missing.csv", t->path);
		expect_load_error(missing, "", 0, 0, msg);
	}
	snprintf(msg, sizeof(msg),
		 "cannot read '%s': expected a regular file, found a "
		 "directory",
		 t->path);
	expect_load_error(t->path, "", 0, 0, msg);
	expect_load_error(NULL, "", 0, 0, "no trace file given");
}

static void test_load_fifo(void **state)
{
	struct tmp_dir *t = *state;
	char msg[256];

	assert_int_equal(mkfifo(t->file, 0600), 0);
	snprintf(msg, sizeof(msg),
		 "cannot read '%s': expected a regular file, found a FIFO",
		 t->file);
	alarm(10); /* a blocking open would hang: fail instead */
	expect_load_error(t->file, "", 0, 0, msg);
	alarm(0);
}

static void test_load_size_limit(void **state)
{
	struct tmp_dir *t = *state;
	char msg[256];
	int fd;

	/* sparse files: exactly the limit is read (and is all NUL bytes) */
	fd = open(t->file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, TRACE_FILE_MAX), 0);
	expect_load_error(t->file, t->file, 1, 1,
			  "expected text, found a NUL byte");
	assert_int_equal(ftruncate(fd, (off_t)TRACE_FILE_MAX + 1), 0);
	assert_int_equal(close(fd), 0);
	snprintf(msg, sizeof(msg),
		 "cannot read '%s': larger than 67108864 bytes", t->file);
	expect_load_error(t->file, "", 0, 0, msg);
}

/*
 * The Azure LLM inference traces' CSV: its header names the columns
 * TIMESTAMP, ContextTokens and GeneratedTokens, and its arrivals are dates
 * and times (UTC, seven digits of seconds), made seconds from the first.
 */
static void test_azure(void **state)
{
	static const char text[] =
		"TIMESTAMP,ContextTokens,GeneratedTokens\n"
		"2023-11-16 18:15:50.9951690,3180,8\n"
		"2023-11-16 18:15:46.6805900,4808,10\n"
		"2023-11-17 00:00:00.5,110,27\n";
	struct sim_request *r;
	size_t n;

	(void)state;
	r = parse_ok(text, &n);
	assert_int_equal(n, 3);
	assert_true(r[0].arrival_s == 0.0);
	assert_int_equal(r[0].prompt_tokens, 4808);
	assert_true(fabs(r[1].arrival_s - 4.314579) < 1e-6);
	/* to midnight: 5 h 44 min 13.319410 s, and half a second */
	assert_true(fabs(r[2].arrival_s - (20653.31941 + 0.5)) < 1e-5);
	assert_null(r[0].hash_ids);
	free(r);
	expect_error("TIMESTAMP,ContextTokens,GeneratedTokens\n"
		     "2023-13-16 18:15:50,3180,8\n", 2, 1,
		     "'TIMESTAMP' must be a date and time such as "
		     "'2023-11-16 18:15:46.6805900' (the header names "
		     "TIMESTAMP), found '2023-13-16 18:15:50'");
}

/*
 * The Mooncake traces' JSON lines: a timestamp in milliseconds, the
 * lengths, and the ids of the prompt's 512-token blocks, which stay the
 * request's through the sort by arrival (they live in the same block of
 * memory as the requests).
 */
static void test_mooncake(void **state)
{
	static const char text[] =
		"{\"timestamp\": 3052, \"input_length\": 2287, "
		"\"output_length\": 316, \"hash_ids\": [0, 42, 43, 44, 45]}\n"
		"\n"
		"{\"timestamp\": 0, \"input_length\": 1100, "
		"\"output_length\": 5, \"hash_ids\": [0, 14, 15]}\n"
		"{\"timestamp\": 0, \"input_length\": 10, "
		"\"output_length\": 2}\n";
	struct sim_request *r;
	size_t n;

	(void)state;
	r = parse_ok(text, &n);
	assert_int_equal(n, 3);
	assert_true(r[0].arrival_s == 0.0 && r[1].arrival_s == 0.0);
	assert_int_equal(r[0].prompt_tokens, 1100);
	assert_int_equal(r[0].n_hash_ids, 3);
	assert_int_equal(r[0].hash_block_tokens, TRACE_HASH_BLOCK_TOKENS);
	assert_true(r[0].hash_ids[0] == 0 && r[0].hash_ids[2] == 15);
	assert_null(r[1].hash_ids);
	assert_true(fabs(r[2].arrival_s - 3.052) < 1e-12);
	assert_int_equal(r[2].output_tokens, 316);
	assert_int_equal(r[2].n_hash_ids, 5);
	assert_true(r[2].hash_ids[4] == 45);
	free(r);
	expect_error("{\"timestamp\": 0, \"input_length\": 10}\n", 1, 1,
		     "'output_length' is missing (timestamp: 0 to 1e12 ms; "
		     "lengths: 1 to 10000000 tokens)");
	expect_error("{\"timestamp\": 0, \"input_length\": 600, "
		     "\"output_length\": 2, \"hash_ids\": [1, 2, 3]}\n",
		     1, 1,
		     "'hash_ids' must be a list of at most one id per "
		     "512-token block of the input (2 here)");
	expect_error("{\"timestamp\": 0, \"input_length\": 6, "
		     "\"output_length\": 2}\n{\"timestamp\": 1,}\n", 2, 17,
		     "expected a JSON object of a request (timestamp in ms, "
		     "input_length, output_length, hash_ids), as the Mooncake "
		     "traces hold one a line");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_header_comments_blank),
		cmocka_unit_test(test_unsorted_stable),
		cmocka_unit_test(test_sort_many),
		cmocka_unit_test(test_crlf),
		cmocka_unit_test(test_field_counts),
		cmocka_unit_test(test_arrival_errors),
		cmocka_unit_test(test_token_errors),
		cmocka_unit_test(test_structure_errors),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_too_many_requests),
		cmocka_unit_test(test_optional_outputs),
		cmocka_unit_test(test_azure),
		cmocka_unit_test(test_mooncake),
		cmocka_unit_test_setup_teardown(test_load_file, tmp_setup,
						tmp_teardown),
		cmocka_unit_test_setup_teardown(test_load_fifo, tmp_setup,
						tmp_teardown),
		cmocka_unit_test_setup_teardown(test_load_size_limit,
						tmp_setup, tmp_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
