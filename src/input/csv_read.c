/* csv_read.c - CSV text to fields with their positions, over libcsv; see
   csv_read.h. */
#include "csv_read.h"

#include <csv.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "c_numeric.h"

int csv_read_fail(struct csv_reader *r, struct csv_pos at, const char *fmt,
		  ...)
{
	va_list ap;
	char msg[DIAG_MSG_MAX];

	if (r->failed)
		return -1;
	r->failed = true;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return diag_set(r->err, r->file, at.line, at.col, "%s", msg);
}

int csv_read_inc(int n)
{
	return n < INT_MAX ? n + 1 : n;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static void advance(struct csv_pos *p, unsigned char c)
{
	if (c == '\n') {
		p->line = csv_read_inc(p->line);
		p->col = 1;
	} else {
		p->col = csv_read_inc(p->col);
	}
}

/* 'p' moved 'k' bytes to the right on its line, stopping at INT_MAX. */
static struct csv_pos right(struct csv_pos p, size_t k)
{
	p.col = k < (size_t)(INT_MAX - p.col) ? p.col + (int)k : INT_MAX;
	return p;
}

/* libcsv: the end of a field */
static void lib_field(void *s, size_t len, void *data)
{
	struct csv_reader *r = data;
	struct csv_pos at;

	if (r->failed)
		return;
	if (r->field_open)
		at = r->content;
	else if (r->field == 0)
		at = (struct csv_pos){ r->cur.line, 1 };
	else
		at = r->after_delim;
	r->on_field(r, s ? s : "", len, at);
	r->field = csv_read_inc(r->field);
	r->field_open = false;
	r->after_delim = (struct csv_pos){ r->cur.line,
					   csv_read_inc(r->cur.col) };
}

/* libcsv: the end of a record */
static void lib_record(int c, void *data)
{
	struct csv_reader *r = data;

	(void)c;
	if (!r->failed)
		r->on_record(r);
	r->field = 0;
	r->field_open = false;
	r->line_start = true;
}

/* Records end at LF only; a CR before it is dropped before parsing. */
static int is_record_end(unsigned char c)
{
	return c == '\n';
}

/*
 * At the start of a record, with comments: when the line at buf[i] is
 * blank or a comment, return the index of its '\n' (or 'len'), else 'i'.
 * A NUL byte in a comment is an error like anywhere else.
 */
static size_t skip_line(struct csv_reader *r, const char *buf, size_t len,
			size_t i)
{
	size_t j = i;
	const char *nl;
	const char *nul;

	while (j < len && (is_blank(buf[j]) || buf[j] == '\r'))
		j++;
	if (j == len || buf[j] == '\n')
		return j;
	if (buf[j] != '#')
		return i;
	nl = memchr(buf + j, '\n', len - j);
	j = nl ? (size_t)(nl - buf) : len;
	nul = memchr(buf + i, '\0', j - i);
	if (nul)
		csv_read_fail(r, right(r->cur, (size_t)(nul - (buf + i))),
			      "expected text, found a NUL byte");
	return j;
}

/* Bytes where libcsv may call back or fail, or that are checked first. */
static bool is_special(unsigned char c)
{
	return c == ',' || c == '\n' || c == '"' || c == '\r' || c == '\0';
}

static void lib_fail(struct csv_reader *r, struct csv_parser *parser,
		     struct csv_pos at, unsigned char c)
{
	if (csv_error(parser) == CSV_EPARSE && c == '"')
		csv_read_fail(r, at, "stray '\"' in an unquoted field");
	else if (csv_error(parser) == CSV_EPARSE)
		csv_read_fail(r, at,
			      "expected ',' or a line end after a closing "
			      "quote, found '%c'",
			      c < 0x20 || c >= 0x7f ? '?' : (char)c);
	else
		csv_read_fail(r, at, "%s", csv_strerror(csv_error(parser)));
}

/*
 * Feed buf[i, j) of ordinary bytes (no is_special one) to libcsv in one
 * call: no callback can happen inside, and an error's place is known from
 * the count of bytes libcsv took.
 */
static void feed_run(struct csv_reader *r, struct csv_parser *parser,
		     const char *buf, size_t i, size_t j)
{
	size_t took;

	if (!r->field_open) {
		for (size_t k = i; k < j; k++) {
			if (!is_blank(buf[k])) {
				r->field_open = true;
				r->content = right(r->cur, k - i);
				break;
			}
		}
	}
	took = csv_parse(parser, buf + i, j - i, lib_field, lib_record, r);
	if (took != j - i) {
		lib_fail(r, parser, right(r->cur, took),
			 (unsigned char)buf[i + took]);
		return;
	}
	r->cur = right(r->cur, j - i);
}

/* Feed 'buf' to libcsv so that the position of every byte is known. */
static void feed(struct csv_reader *r, struct csv_parser *parser,
		 const char *buf, size_t len)
{
	size_t i = 0;

	if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
		i = 3; /* UTF-8 byte order mark */
	for (; i < len && !r->failed; i++) {
		unsigned char c;

		if (r->comments && r->line_start) {
			size_t end = skip_line(r, buf, len, i);

			if (r->failed)
				return;
			if (end != i || buf[i] == '\n') {
				/* a blank or comment line: not CSV */
				r->cur.line = csv_read_inc(r->cur.line);
				r->cur.col = 1;
				i = end;
				continue;
			}
			r->line_start = false;
		}
		c = (unsigned char)buf[i];
		if (!is_special(c)) {
			size_t j = i + 1;

			while (j < len && !is_special((unsigned char)buf[j]))
				j++;
			feed_run(r, parser, buf, i, j);
			i = j - 1;
			continue;
		}
		if (c == '\r' && (i + 1 == len || buf[i + 1] == '\n'))
			continue;
		if (c == '\0') {
			csv_read_fail(r, r->cur,
				      "expected text, found a NUL byte");
			return;
		}
		if (!r->field_open && c != '\n' && c != ',') {
			r->field_open = true;
			r->content = r->cur;
		}
		if (csv_parse(parser, &buf[i], 1, lib_field, lib_record, r) !=
		    1) {
			lib_fail(r, parser, r->cur, c);
			return;
		}
		advance(&r->cur, c);
	}
	if (r->failed)
		return;
	if (csv_fini(parser, lib_field, lib_record, r) != 0) {
		if (csv_error(parser) == CSV_EPARSE)
			csv_read_fail(r, r->content,
				      "unterminated quoted field: expected a "
				      "closing '\"', found the end of the "
				      "file");
		else
			csv_read_fail(r, r->cur, "%s",
				      csv_strerror(csv_error(parser)));
	}
}

int csv_read(struct csv_reader *r, const char *buf, size_t len)
{
	struct csv_parser parser;
	struct c_numeric loc;

	r->failed = false;
	r->cur = (struct csv_pos){ 1, 1 };
	r->field = 0;
	r->line_start = true;
	r->field_open = false;
	if (!buf)
		len = 0;
	if (csv_init(&parser, CSV_STRICT | CSV_STRICT_FINI |
				      CSV_APPEND_NULL) != 0)
		return diag_set(r->err, r->file, 0, 0, "out of memory");
	csv_set_term_func(&parser, is_record_end);
	c_numeric_enter(&loc);
	feed(r, &parser, buf, len);
	c_numeric_leave(&loc);
	csv_free(&parser);
	return r->failed ? -1 : 0;
}
