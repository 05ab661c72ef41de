/* test_csv_read.c - CSV fields with their positions (csv_read.c), cmocka. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "csv_read.h"

/* What the callbacks saw, as "line:col=text" items and "|" per record. */
struct seen {
	struct csv_reader rd; /* first, as csv_read.h asks */
	char log[512];
	int fail_at_field;    /* a callback that fails: field index, or -1 */
};

static void add(struct seen *s, const char *text)
{
	size_t n = strlen(s->log);

	snprintf(s->log + n, sizeof(s->log) - n, "%s", text);
}

static void on_field(struct csv_reader *r, const char *text, size_t len,
		     struct csv_pos at)
{
	struct seen *s = (struct seen *)r;
	char item[96];

	assert_int_equal(strlen(text), len); /* NUL-terminated */
	snprintf(item, sizeof(item), "%s%d:%d=%s", r->field ? " " : "",
		 at.line, at.col, text);
	add(s, item);
	if (r->field == s->fail_at_field)
		csv_read_fail(r, at, "bad field '%s'", text);
}

static void on_record(struct csv_reader *r)
{
	char item[32];

	snprintf(item, sizeof(item), " (%d)|", r->field);
	add((struct seen *)r, item);
}

/* Read 'text' (its 'len' bytes); returns csv_read's value. */
static int run(struct seen *s, struct diag *d, bool comments,
	       const char *text, size_t len)
{
	memset(s, 0, sizeof(*s));
	s->fail_at_field = -1;
	s->rd.file = "t.csv";
	s->rd.err = d;
	s->rd.comments = comments;
	s->rd.on_field = on_field;
	s->rd.on_record = on_record;
	diag_clear(d);
	return csv_read(&s->rd, text, len);
}

static void expect_log(bool comments, const char *text, const char *log)
{
	struct seen s;
	struct diag d;

	assert_int_equal(run(&s, &d, comments, text, strlen(text)), 0);
	assert_string_equal(s.log, log);
}

static void expect_error(bool comments, const char *text, size_t len,
			 int line, int col, const char *msg)
{
	struct seen s;
	struct diag d;

	assert_int_equal(run(&s, &d, comments, text, len), -1);
	assert_true(s.rd.failed);
	assert_string_equal(d.file, "t.csv");
	assert_int_equal(d.line, line);
	assert_int_equal(d.col, col);
	assert_string_equal(d.msg, msg);
}

/* Each field's place: its first non-blank byte; an empty field's is the
   byte after its ',' (the line's start for the first). */
static void test_positions(void **state)
{
	(void)state;
	expect_log(false, "a,bb,c\n", "1:1=a 1:3=bb 1:6=c (3)|");
	/* blanks around an unquoted field are not its text */
	expect_log(false, "  a , b\nx,,\n",
		   "1:3=a 1:7=b (2)|2:1=x 2:3= 2:4= (3)|");
	expect_log(false, ",x\n", "1:1= 1:2=x (2)|");
	/* a quoted field: its quote; a ',' and a line end inside it */
	expect_log(false, "\"a,\nb\",c\n", "1:1=a,\nb 2:4=c (2)|");
	expect_log(false, "\"say \"\"hi\"\"\"\n", "1:1=say \"hi\" (1)|");
	/* CRLF, no final line end, a byte-order mark (invisible in an
	   editor: columns count after it) */
	expect_log(false, "\xEF\xBB\xBF" "a,b\r\nc",
		   "1:1=a 1:3=b (2)|2:1=c (1)|");
}

/* With comments, blank and '#' lines between records are skipped and
   counted; without, '#' is text. */
static void test_comments(void **state)
{
	(void)state;
	expect_log(true, "# head\n\n  \t\na\n # x,y\nb,c\n",
		   "4:1=a (1)|6:1=b 6:3=c (2)|");
	expect_log(false, "#a,b\n", "1:1=#a 1:4=b (2)|");
	/* inside a record a '#' is text */
	expect_log(true, "a,#b\n", "1:1=a 1:3=#b (2)|");
}

static void test_errors(void **state)
{
	static const char nul[] = "a,b\nc\0d\n";
	static const char nul_comment[] = "a\n# x\0y\n";

	(void)state;
	expect_error(false, nul, sizeof(nul) - 1, 2, 2,
		     "expected text, found a NUL byte");
	expect_error(true, nul_comment, sizeof(nul_comment) - 1, 2, 4,
		     "expected text, found a NUL byte");
	expect_error(false, "a,b\"c\n", 6, 1, 4,
		     "stray '\"' in an unquoted field");
	expect_error(false, "\"a\"x,b\n", 7, 1, 4,
		     "expected ',' or a line end after a closing quote, "
		     "found 'x'");
	expect_error(false, "a\n  \"bc,d\n", 10, 2, 3,
		     "unterminated quoted field: expected a closing '\"', "
		     "found the end of the file");
}

/* A callback's error stops the reading: the first one wins and no
   callback runs after it. */
static void test_first_error_wins(void **state)
{
	struct seen s;
	struct diag d;
	const char *text = "a,b\nc,d\ne\n";

	(void)state;
	memset(&s, 0, sizeof(s));
	assert_int_equal(run(&s, &d, false, text, strlen(text)), 0);
	s.fail_at_field = 1;
	memset(s.log, 0, sizeof(s.log));
	s.rd.failed = false;
	diag_clear(&d);
	assert_int_equal(csv_read(&s.rd, text, strlen(text)), -1);
	assert_string_equal(d.msg, "bad field 'b'");
	assert_int_equal(d.line, 1);
	assert_int_equal(d.col, 3);
	assert_string_equal(s.log, "1:1=a 1:3=b");
	/* a later failure is dropped */
	assert_int_equal(csv_read_fail(&s.rd, (struct csv_pos){ 9, 9 },
				       "later"),
			 -1);
	assert_string_equal(d.msg, "bad field 'b'");
}

static void test_empty_and_saturation(void **state)
{
	struct seen s;
	struct diag d;

	(void)state;
	assert_int_equal(run(&s, &d, false, NULL, 5), 0);
	assert_string_equal(s.log, "");
	assert_int_equal(run(&s, &d, true, "", 0), 0);
	assert_string_equal(s.log, "");
	assert_int_equal(csv_read_inc(1), 2);
	assert_int_equal(csv_read_inc(INT_MAX), INT_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_positions),
		cmocka_unit_test(test_comments),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_first_error_wins),
		cmocka_unit_test(test_empty_and_saturation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
