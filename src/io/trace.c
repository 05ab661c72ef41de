/*
 * trace.c - serving trace files: CSV rows (libcsv) -> struct sim_request[];
 * see trace.h and specs/workload.md, section "Trace files".
 */
#include "trace.h"
#include "readfile.h"

#include <csv.h>
#include <float.h>
#include <limits.h>
#include <locale.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "c_numeric.h"
#include "text.h"
#include "units.h"

#define TRACE_FIELDS 3
#define TRACE_FIRST_CAP 1024 /* requests allocated first */
#define SHOWN_MAX 40         /* bytes of a bad field quoted in messages */

/* How a field is read. */
enum field_kind {
	FIELD_ARRIVAL, /* a time, seconds */
	FIELD_TOKENS,  /* a whole number of tokens */
};

struct trace_column {
	const char *name;      /* in the header and in messages */
	const char *unit_free; /* also accepted in the header */
	enum field_kind kind;
	size_t offset;         /* of the member in struct sim_request */
};

/* In file order. */
static const struct trace_column columns[TRACE_FIELDS] = {
	{ "arrival_s", "arrival", FIELD_ARRIVAL,
	  offsetof(struct sim_request, arrival_s) },
	{ "prompt_tokens", "prompt", FIELD_TOKENS,
	  offsetof(struct sim_request, prompt_tokens) },
	{ "output_tokens", "output", FIELD_TOKENS,
	  offsetof(struct sim_request, output_tokens) },
};

#define FIELD_NAMES "arrival_s,prompt_tokens,output_tokens"

struct pos {
	int line; /* 1-based */
	int col;  /* 1-based, in bytes */
};

struct parse_ctx {
	const char *file;
	struct diag *err;
	bool failed;

	/* where we are: the byte being fed to libcsv */
	struct pos cur;
	bool line_start;        /* the next byte begins a record */
	bool field_open;        /* a non-blank byte of this field was fed */
	struct pos content;     /* its first non-blank byte */
	struct pos after_delim; /* the byte after the last ',' */

	/* the record being read */
	bool first_done;        /* the first record (maybe a header) is read */
	bool is_header;         /* this record is the header */
	int header_line;        /* 0 when there is no header */
	int row_line;           /* where this record starts */
	int field;              /* index of the next field */
	struct pos extra_at;    /* the first field past the last column */
	struct sim_request req;
	bool bad;               /* a field of this record is bad: */
	struct pos bad_at;      /* where, */
	char bad_msg[DIAG_MSG_MAX]; /* and why */

	/* the requests read */
	struct sim_request *reqs;
	size_t count;
	size_t cap;
};

/* Record an error at 'p'; the first one wins. */
__attribute__((format(printf, 3, 4)))
static int parse_fail(struct parse_ctx *ctx, struct pos p, const char *fmt,
		      ...)
{
	va_list ap;
	char msg[DIAG_MSG_MAX];

	if (ctx->failed)
		return -1;
	ctx->failed = true;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return diag_set(ctx->err, ctx->file, p.line, p.col, "%s", msg);
}

/* Remember the first bad field of a record; reported at its end, after the
   number of fields is known to be right. */
__attribute__((format(printf, 3, 4)))
static void field_fail(struct parse_ctx *ctx, struct pos p, const char *fmt,
		       ...)
{
	va_list ap;

	if (ctx->bad)
		return;
	ctx->bad = true;
	ctx->bad_at = p;
	va_start(ap, fmt);
	vsnprintf(ctx->bad_msg, sizeof(ctx->bad_msg), fmt, ap);
	va_end(ap);
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* 'n' + 1, saturating: positions in huge inputs stop at INT_MAX. */
static int inc(int n)
{
	return n < INT_MAX ? n + 1 : n;
}

static void advance(struct pos *p, unsigned char c)
{
	if (c == '\n') {
		p->line = inc(p->line);
		p->col = 1;
	} else {
		p->col = inc(p->col);
	}
}

/* A field as quoted in a message: its first bytes, control bytes and
   invalid UTF-8 escaped (text.h), then "..." when it is longer. */
static const char *shown(const char *s, char *buf, size_t size)
{
	return text_escape(s, buf, size < SHOWN_MAX + 4 ? size : SHOWN_MAX + 4);
}

/* ------------------------------------------------------------------ */
/* Fields                                                              */

static int parse_tokens(const char *s, int *out)
{
	long v = 0;

	while (is_blank(*s))
		s++;
	if (!(*s >= '0' && *s <= '9'))
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		v = 10 * v + (*s - '0');
		if (v > TRACE_TOKENS_MAX)
			return -1;
	}
	while (is_blank(*s))
		s++;
	if (*s != '\0' || v < 1)
		return -1;
	*out = (int)v;
	return 0;
}

static void cell(struct parse_ctx *ctx, const struct trace_column *c,
		 const char *s, struct pos at)
{
	char *dst = (char *)&ctx->req + c->offset;
	char buf[SHOWN_MAX + 4];
	const char *why = NULL;
	double v;
	int tokens;

	switch (c->kind) {
	case FIELD_ARRIVAL:
		if (units_parse(s, UNIT_TIME, &v, &why) == 0) {
			if (v > TRACE_ARRIVAL_MAX_S)
				why = "later than 1e9s";
			/* scaling can underflow ("1e-300ns"); a plain
			   number that small is out of range for strtod */
			else if (v > 0.0 && v < DBL_MIN)
				why = "number out of range";
		}
		if (why) {
			field_fail(ctx, at,
				   "'%s' must be a time from 0 to 1e9s such "
				   "as '1.5' (seconds) or '250ms', found "
				   "'%s' (%s)",
				   c->name, shown(s, buf, sizeof(buf)), why);
			return;
		}
		memcpy(dst, &v, sizeof(v));
		return;
	case FIELD_TOKENS:
		if (parse_tokens(s, &tokens)) {
			field_fail(ctx, at,
				   "'%s' must be a whole number from 1 to %d, "
				   "found '%s'",
				   c->name, TRACE_TOKENS_MAX,
				   shown(s, buf, sizeof(buf)));
			return;
		}
		memcpy(dst, &tokens, sizeof(tokens));
		return;
	}
}

static bool header_name(const struct trace_column *c, const char *s)
{
	return strcasecmp(s, c->name) == 0 || strcasecmp(s, c->unit_free) == 0;
}

static void header_cell(struct parse_ctx *ctx, const struct trace_column *c,
			const char *s, struct pos at)
{
	char buf[SHOWN_MAX + 4];

	if (!header_name(c, s))
		field_fail(ctx, at,
			   "expected '%s' in the header (" FIELD_NAMES
			   "), found '%s'",
			   c->name, shown(s, buf, sizeof(buf)));
}

/* ------------------------------------------------------------------ */
/* Records                                                             */

static int append(struct parse_ctx *ctx, struct pos at)
{
	if (ctx->count >= TRACE_REQUESTS_MAX)
		return parse_fail(ctx, at, "too many requests: a trace holds "
				  "at most %d",
				  TRACE_REQUESTS_MAX);
	if (ctx->count == ctx->cap) {
		size_t cap = ctx->cap ? 2 * ctx->cap : TRACE_FIRST_CAP;
		struct sim_request *reqs;

		if (cap > TRACE_REQUESTS_MAX)
			cap = TRACE_REQUESTS_MAX;
		if (cap > SIZE_MAX / sizeof(*reqs))
			return parse_fail(ctx, at, "out of memory");
		reqs = realloc(ctx->reqs, cap * sizeof(*reqs));
		if (!reqs)
			return parse_fail(ctx, at, "out of memory");
		ctx->reqs = reqs;
		ctx->cap = cap;
	}
	ctx->reqs[ctx->count++] = ctx->req;
	return 0;
}

/* libcsv: end of a field */
static void on_field(void *s, size_t len, void *data)
{
	struct parse_ctx *ctx = data;
	const char *text = s ? s : "";
	struct pos at;

	(void)len;
	if (ctx->failed)
		return;
	if (ctx->field_open)
		at = ctx->content;
	else if (ctx->field == 0)
		at = (struct pos){ ctx->cur.line, 1 };
	else
		at = ctx->after_delim;

	if (ctx->field == 0) {
		memset(&ctx->req, 0, sizeof(ctx->req));
		ctx->bad = false;
		ctx->row_line = at.line;
		ctx->is_header = !ctx->first_done &&
				 header_name(&columns[0], text);
	}
	if (ctx->field == TRACE_FIELDS)
		ctx->extra_at = at;
	if (ctx->field < TRACE_FIELDS) {
		if (ctx->is_header)
			header_cell(ctx, &columns[ctx->field], text, at);
		else
			cell(ctx, &columns[ctx->field], text, at);
	}
	ctx->field = inc(ctx->field);
	ctx->field_open = false;
	ctx->after_delim = (struct pos){ ctx->cur.line, inc(ctx->cur.col) };
}

/* libcsv: end of a record */
static void on_record(int c, void *data)
{
	struct parse_ctx *ctx = data;
	struct pos line_at = { ctx->row_line, 1 };

	(void)c;
	if (ctx->failed)
		return;
	if (ctx->field != TRACE_FIELDS)
		parse_fail(ctx,
			   ctx->field > TRACE_FIELDS ? ctx->extra_at
						     : ctx->cur,
			   "expected %d fields (" FIELD_NAMES "), found %d%s",
			   TRACE_FIELDS, ctx->field,
			   ctx->field == INT_MAX ? " or more" : "");
	else if (ctx->bad)
		parse_fail(ctx, ctx->bad_at, "%s", ctx->bad_msg);
	else if (ctx->is_header)
		ctx->header_line = ctx->row_line;
	else
		append(ctx, line_at);
	ctx->first_done = true;
	ctx->is_header = false;
	ctx->field = 0;
	ctx->field_open = false;
	ctx->line_start = true;
}

/* Records end at LF only; a CR before it is dropped before parsing. */
static int is_record_end(unsigned char c)
{
	return c == '\n';
}

/*
 * At the start of a record: when the line at buf[i] is blank or a comment,
 * return the index of its '\n' (or 'len'), else 'i'.  A NUL byte in a
 * comment is an error like anywhere else.
 */
static size_t skip_line(struct parse_ctx *ctx, const char *buf, size_t len,
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
	if (nul) {
		size_t off = (size_t)(nul - (buf + i));
		struct pos at = ctx->cur;

		at.col = off < (size_t)INT_MAX - 1 ? (int)off + 1 : INT_MAX;
		parse_fail(ctx, at, "expected text, found a NUL byte");
	}
	return j;
}

/* Bytes where libcsv may call back or fail, or that are checked first. */
static bool is_special(unsigned char c)
{
	return c == ',' || c == '\n' || c == '"' || c == '\r' || c == '\0';
}

/* 'p' moved 'k' bytes to the right on its line, saturating. */
static struct pos right(struct pos p, size_t k)
{
	p.col = k < (size_t)(INT_MAX - p.col) ? p.col + (int)k : INT_MAX;
	return p;
}

static void csv_fail(struct parse_ctx *ctx, struct csv_parser *parser,
		     struct pos at, unsigned char c)
{
	if (csv_error(parser) == CSV_EPARSE && c == '"')
		parse_fail(ctx, at, "stray '\"' in an unquoted field");
	else if (csv_error(parser) == CSV_EPARSE)
		parse_fail(ctx, at,
			   "expected ',' or a line end after a closing quote, "
			   "found '%c'",
			   c < 0x20 || c >= 0x7f ? '?' : (char)c);
	else
		parse_fail(ctx, at, "%s", csv_strerror(csv_error(parser)));
}

/*
 * Feed buf[i, j) of ordinary bytes (no is_special one) to libcsv in one
 * call: no callback can happen inside, and an error's place is known from
 * the count of bytes libcsv took.
 */
static void parse_run(struct parse_ctx *ctx, struct csv_parser *parser,
		      const char *buf, size_t i, size_t j)
{
	size_t took;

	if (!ctx->field_open) {
		for (size_t k = i; k < j; k++) {
			if (!is_blank(buf[k])) {
				ctx->field_open = true;
				ctx->content = right(ctx->cur, k - i);
				break;
			}
		}
	}
	took = csv_parse(parser, buf + i, j - i, on_field, on_record, ctx);
	if (took != j - i) {
		csv_fail(ctx, parser, right(ctx->cur, took),
			 (unsigned char)buf[i + took]);
		return;
	}
	ctx->cur = right(ctx->cur, j - i);
}

/* Feed 'buf' to libcsv so that the position of every byte is known. */
static void parse_bytes(struct parse_ctx *ctx, struct csv_parser *parser,
			const char *buf, size_t len)
{
	size_t i = 0;

	if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
		i = 3; /* UTF-8 byte order mark */
	for (; i < len && !ctx->failed; i++) {
		unsigned char c;

		if (ctx->line_start) {
			size_t end = skip_line(ctx, buf, len, i);

			if (ctx->failed)
				return;
			if (end != i || buf[i] == '\n') {
				/* a blank or comment line: not CSV */
				ctx->cur.line = inc(ctx->cur.line);
				ctx->cur.col = 1;
				i = end;
				continue;
			}
			ctx->line_start = false;
		}
		c = (unsigned char)buf[i];
		if (!is_special(c)) {
			size_t j = i + 1;

			while (j < len && !is_special((unsigned char)buf[j]))
				j++;
			parse_run(ctx, parser, buf, i, j);
			i = j - 1;
			continue;
		}
		if (c == '\r' && (i + 1 == len || buf[i + 1] == '\n'))
			continue;
		if (c == '\0') {
			parse_fail(ctx, ctx->cur, "expected text, found a NUL "
				   "byte");
			return;
		}
		if (!ctx->field_open && !is_blank((char)c) && c != '\n' &&
		    c != ',') {
			ctx->field_open = true;
			ctx->content = ctx->cur;
		}
		if (csv_parse(parser, &buf[i], 1, on_field, on_record, ctx) !=
		    1) {
			csv_fail(ctx, parser, ctx->cur, c);
			return;
		}
		advance(&ctx->cur, c);
	}
	if (ctx->failed)
		return;
	if (csv_fini(parser, on_field, on_record, ctx) != 0) {
		if (csv_error(parser) == CSV_EPARSE)
			parse_fail(ctx, ctx->content,
				   "unterminated quoted field: expected a "
				   "closing '\"', found the end of the file");
		else
			parse_fail(ctx, ctx->cur, "%s",
				   csv_strerror(csv_error(parser)));
	}
}

/* ------------------------------------------------------------------ */
/* Sorting                                                             */

static bool sorted_by_arrival(const struct sim_request *r, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		if (r[i].arrival_s < r[i - 1].arrival_s)
			return false;
	}
	return true;
}

/* Merge the sorted runs src[lo, mid) and src[mid, hi) into dst; stable. */
static void merge(const struct sim_request *src, struct sim_request *dst,
		  size_t lo, size_t mid, size_t hi)
{
	size_t a = lo, b = mid, k = lo;

	while (a < mid && b < hi)
		dst[k++] = src[b].arrival_s < src[a].arrival_s ? src[b++]
							       : src[a++];
	while (a < mid)
		dst[k++] = src[a++];
	while (b < hi)
		dst[k++] = src[b++];
}

/* Sort by arrival, keeping file order among equals (bottom-up merge). */
static int sort_by_arrival(struct sim_request *r, size_t n)
{
	struct sim_request *tmp, *src = r, *dst;

	if (sorted_by_arrival(r, n))
		return 0;
	if (n > SIZE_MAX / sizeof(*tmp))
		return -1;
	tmp = malloc(n * sizeof(*tmp));
	if (!tmp)
		return -1;
	dst = tmp;
	for (size_t width = 1; width < n; width *= 2) {
		struct sim_request *swap;

		for (size_t lo = 0; lo < n; lo += 2 * width) {
			size_t mid = lo + width < n ? lo + width : n;
			size_t hi = mid + width < n ? mid + width : n;

			merge(src, dst, lo, mid, hi);
		}
		swap = src;
		src = dst;
		dst = swap;
	}
	if (src != r)
		memcpy(r, src, n * sizeof(*r));
	free(tmp);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Entry points                                                        */

int trace_parse(const char *buf, size_t len, const char *name,
		struct sim_request **reqs, size_t *n, struct diag *err)
{
	struct parse_ctx *ctx;
	struct csv_parser parser;
	struct c_numeric loc;
	int rc = -1;

	if (!name)
		name = "<trace>";
	if (reqs)
		*reqs = NULL;
	if (n)
		*n = 0;
	if (!buf)
		len = 0;
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return diag_set(err, name, 0, 0, "out of memory");
	ctx->file = name;
	ctx->err = err;
	ctx->cur = (struct pos){ 1, 1 };
	ctx->line_start = true;
	if (csv_init(&parser, CSV_STRICT | CSV_STRICT_FINI |
				      CSV_APPEND_NULL) != 0) {
		diag_set(err, name, 0, 0, "out of memory");
		goto out_free_ctx;
	}
	csv_set_term_func(&parser, is_record_end);

	c_numeric_enter(&loc);
	parse_bytes(ctx, &parser, buf, len);
	c_numeric_leave(&loc);
	csv_free(&parser);

	if (ctx->failed)
		goto out_free_reqs;
	if (ctx->count == 0) {
		diag_set(err, name, ctx->header_line ? ctx->header_line : 1, 1,
			 "trace has no requests: expected lines of "
			 "'" FIELD_NAMES "'");
		goto out_free_reqs;
	}
	if (sort_by_arrival(ctx->reqs, ctx->count)) {
		diag_set(err, name, 0, 0, "out of memory");
		goto out_free_reqs;
	}
	if (ctx->count < ctx->cap) {
		struct sim_request *fit =
			realloc(ctx->reqs, ctx->count * sizeof(*fit));

		if (fit)
			ctx->reqs = fit;
	}
	if (n)
		*n = ctx->count;
	if (reqs) {
		*reqs = ctx->reqs;
		ctx->reqs = NULL;
	}
	rc = 0;
out_free_reqs:
	free(ctx->reqs);
out_free_ctx:
	free(ctx);
	return rc;
}

int trace_load_file(const char *path, struct sim_request **reqs, size_t *n,
		    struct diag *err)
{
	char *buf = NULL;
	size_t len = 0;
	int rc;

	if (reqs)
		*reqs = NULL;
	if (n)
		*n = 0;
	if (!path)
		return diag_set(err, NULL, 0, 0, "no trace file given");
	/* a regular file only: a FIFO is an error at once, not a hang */
	if (readfile_all(path, READFILE_REGULAR, TRACE_FILE_MAX, &buf, &len,
			 err) != 0)
		return -1;
	rc = trace_parse(buf, len, path, reqs, n, err);
	free(buf);
	return rc;
}
