/*
 * trace.c - serving trace files: CSV rows (libcsv) -> struct sim_request[];
 * see trace.h and specs/workload.md, section "Trace files".
 */
#include "trace.h"
#include "readfile.h"

#include <float.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "csv_read.h"
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

struct parse_ctx {
	struct csv_reader rd;   /* first: the callbacks get it */

	/* the record being read */
	bool first_done;        /* the first record (maybe a header) is read */
	bool is_header;         /* this record is the header */
	int header_line;        /* 0 when there is no header */
	int row_line;           /* where this record starts */
	struct csv_pos extra_at; /* the first field past the last column */
	struct sim_request req;
	bool bad;               /* a field of this record is bad: */
	struct csv_pos bad_at;  /* where, */
	char bad_msg[DIAG_MSG_MAX]; /* and why */

	/* the requests read */
	struct sim_request *reqs;
	size_t count;
	size_t cap;
};

/* Remember the first bad field of a record; reported at its end, after the
   number of fields is known to be right. */
__attribute__((format(printf, 3, 4)))
static void field_fail(struct parse_ctx *ctx, struct csv_pos p,
		       const char *fmt, ...)
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
		 const char *s, struct csv_pos at)
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
			const char *s, struct csv_pos at)
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

static int append(struct parse_ctx *ctx, struct csv_pos at)
{
	if (ctx->count >= TRACE_REQUESTS_MAX)
		return csv_read_fail(&ctx->rd, at,
				     "too many requests: a trace holds at "
				     "most %d (the limit that bounds the "
				     "time of a plan)",
				     TRACE_REQUESTS_MAX);
	if (ctx->count == ctx->cap) {
		size_t cap = ctx->cap ? 2 * ctx->cap : TRACE_FIRST_CAP;
		struct sim_request *reqs;

		if (cap > TRACE_REQUESTS_MAX)
			cap = TRACE_REQUESTS_MAX;
		if (cap > SIZE_MAX / sizeof(*reqs))
			return csv_read_fail(&ctx->rd, at, "out of memory");
		reqs = realloc(ctx->reqs, cap * sizeof(*reqs));
		if (!reqs)
			return csv_read_fail(&ctx->rd, at, "out of memory");
		ctx->reqs = reqs;
		ctx->cap = cap;
	}
	ctx->reqs[ctx->count++] = ctx->req;
	return 0;
}

/* A field and its place (csv_read.h). */
static void on_field(struct csv_reader *r, const char *text, size_t len,
		     struct csv_pos at)
{
	struct parse_ctx *ctx = (struct parse_ctx *)r;

	(void)len;
	if (r->field == 0) {
		memset(&ctx->req, 0, sizeof(ctx->req));
		ctx->bad = false;
		ctx->row_line = at.line;
		ctx->is_header = !ctx->first_done &&
				 header_name(&columns[0], text);
	}
	if (r->field == TRACE_FIELDS)
		ctx->extra_at = at;
	if (r->field < TRACE_FIELDS) {
		if (ctx->is_header)
			header_cell(ctx, &columns[r->field], text, at);
		else
			cell(ctx, &columns[r->field], text, at);
	}
}

/* The end of a record. */
static void on_record(struct csv_reader *r)
{
	struct parse_ctx *ctx = (struct parse_ctx *)r;
	struct csv_pos line_at = { ctx->row_line, 1 };

	if (r->field != TRACE_FIELDS)
		csv_read_fail(r,
			      r->field > TRACE_FIELDS ? ctx->extra_at : r->cur,
			      "expected %d fields (" FIELD_NAMES
			      "), found %d%s",
			      TRACE_FIELDS, r->field,
			      r->field == INT_MAX ? " or more" : "");
	else if (ctx->bad)
		csv_read_fail(r, ctx->bad_at, "%s", ctx->bad_msg);
	else if (ctx->is_header)
		ctx->header_line = ctx->row_line;
	else
		append(ctx, line_at);
	ctx->first_done = true;
	ctx->is_header = false;
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
	int rc = -1;

	if (!name)
		name = "<trace>";
	if (reqs)
		*reqs = NULL;
	if (n)
		*n = 0;
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return diag_set(err, name, 0, 0, "out of memory");
	ctx->rd.file = name;
	ctx->rd.err = err;
	ctx->rd.comments = true;
	ctx->rd.on_field = on_field;
	ctx->rd.on_record = on_record;
	if (csv_read(&ctx->rd, buf, len) != 0)
		goto out_free;
	if (ctx->count == 0) {
		diag_set(err, name, ctx->header_line ? ctx->header_line : 1, 1,
			 "trace has no requests: expected lines of "
			 "'" FIELD_NAMES "'");
		goto out_free;
	}
	if (sort_by_arrival(ctx->reqs, ctx->count)) {
		diag_set(err, name, 0, 0, "out of memory");
		goto out_free;
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
out_free:
	free(ctx->reqs);
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
