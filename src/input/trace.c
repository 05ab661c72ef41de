/*
 * trace.c - serving trace files: CSV rows (libcsv) -> struct sim_request[];
 * see trace.h and specs/workload.md, section "Trace files".
 */
#include "trace.h"
#include "readfile.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cJSON.h>

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
	const char *azure;     /* the Azure LLM inference traces' name */
	enum field_kind kind;
	size_t offset;         /* of the member in struct sim_request */
};

/* In file order. */
static const struct trace_column columns[TRACE_FIELDS] = {
	{ "arrival_s", "arrival", "TIMESTAMP", FIELD_ARRIVAL,
	  offsetof(struct sim_request, arrival_s) },
	{ "prompt_tokens", "prompt", "ContextTokens", FIELD_TOKENS,
	  offsetof(struct sim_request, prompt_tokens) },
	{ "output_tokens", "output", "GeneratedTokens", FIELD_TOKENS,
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
	bool dated;             /* arrivals are dates and times (Azure) */
	int dates;              /* records whose arrival was a date */
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

/* Days from 1970-01-01 to the proleptic Gregorian date y-m-d (Howard
   Hinnant's days_from_civil). */
static long days_from_civil(long y, int m, int d)
{
	long era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* Read n digits at *s as a number in [lo, hi]; -1 when they are not. */
static long digits(const char **s, int n, long lo, long hi)
{
	long v = 0;

	for (int i = 0; i < n; i++, (*s)++) {
		if (!(**s >= '0' && **s <= '9'))
			return -1;
		v = 10 * v + (**s - '0');
	}
	return v >= lo && v <= hi ? v : -1;
}

/* A date and time 'YYYY-MM-DD HH:MM:SS[.fraction]' (the Azure LLM
   inference traces', UTC) in seconds since 1970; 0, or -1 when s is not
   one. */
static int parse_datetime(const char *s, double *out)
{
	long y, mo, d, h, mi, se;
	double frac = 0.0, scale = 0.1;

	while (is_blank(*s))
		s++;
	if ((y = digits(&s, 4, 1970, 9999)) < 0 || *s++ != '-' ||
	    (mo = digits(&s, 2, 1, 12)) < 0 || *s++ != '-' ||
	    (d = digits(&s, 2, 1, 31)) < 0 || (*s != ' ' && *s != 'T') ||
	    (s++, (h = digits(&s, 2, 0, 23)) < 0) || *s++ != ':' ||
	    (mi = digits(&s, 2, 0, 59)) < 0 || *s++ != ':' ||
	    (se = digits(&s, 2, 0, 60)) < 0)
		return -1;
	if (*s == '.') {
		for (s++; *s >= '0' && *s <= '9'; s++, scale /= 10.0)
			frac += (*s - '0') * scale;
	}
	while (is_blank(*s))
		s++;
	if (*s != '\0')
		return -1;
	*out = (double)days_from_civil(y, (int)mo, (int)d) * 86400.0 +
	       (double)(h * 3600 + mi * 60 + se) + frac;
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
		if (ctx->dated) {
			/* dates: seconds since 1970, made relative to the
			   first arrival once all are read */
			if (parse_datetime(s, &v) != 0) {
				field_fail(ctx, at,
					   "'%s' must be a date and time such "
					   "as '2023-11-16 18:15:46.6805900' "
					   "(the header names TIMESTAMP), "
					   "found '%s'",
					   c->azure,
					   shown(s, buf, sizeof(buf)));
				return;
			}
			memcpy(dst, &v, sizeof(v));
			return;
		}
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
	return strcasecmp(s, c->name) == 0 ||
	       strcasecmp(s, c->unit_free) == 0 ||
	       strcasecmp(s, c->azure) == 0;
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
		if (ctx->is_header)
			ctx->dated = strcasecmp(text, columns[0].azure) == 0;
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

/* Dated arrivals from the first of them. */
static void relative_arrivals(struct sim_request *r, size_t n)
{
	double t0 = r[0].arrival_s;

	for (size_t i = 1; i < n; i++)
		if (r[i].arrival_s < t0)
			t0 = r[i].arrival_s;
	for (size_t i = 0; i < n; i++)
		r[i].arrival_s -= t0;
}

/* ------------------------------------------------------------------ */
/* Entry points                                                        */

/* ------------------------------------------------------------------ */
/* Mooncake JSON lines                                                 */

/* A whole number of at most 'max' in member 'key' of 'o' (NULL: absent);
   'what' says what went wrong. */
static int json_whole(const cJSON *o, const char *key, double min,
		      double max, double *out, const char **what)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!v) {
		*what = "is missing";
		return -1;
	}
	if (!cJSON_IsNumber(v) || !(v->valuedouble >= min) ||
	    !(v->valuedouble <= max) || v->valuedouble != floor(v->valuedouble)) {
		*what = "must be a whole number in range";
		return -1;
	}
	*out = v->valuedouble;
	return 0;
}

/* One line's request; its hash ids appended to *pool (*n_pool of *cap). */
static int jsonl_record(const char *line, size_t len, const char *name,
			int lineno, struct sim_request *q, uint64_t **pool,
			size_t *n_pool, size_t *cap, struct diag *err)
{
	cJSON *o = cJSON_ParseWithLength(line, len);
	const cJSON *ids;
	const char *what = NULL, *key = NULL;
	double ts, in, out;
	int rc = -1;

	if (!o || !cJSON_IsObject(o)) {
		const char *at = cJSON_GetErrorPtr();
		int col = o == NULL && at && at >= line && at <= line + len ?
				  (int)(at - line) + 1 :
				  1;

		cJSON_Delete(o);
		return diag_set(err, name, lineno, col,
				"expected a JSON object of a request "
				"(timestamp in ms, input_length, "
				"output_length, hash_ids), as the Mooncake "
				"traces hold one a line");
	}
	memset(q, 0, sizeof(*q));
	if (json_whole(o, key = "timestamp", 0, 1e3 * TRACE_ARRIVAL_MAX_S,
		       &ts, &what) != 0 ||
	    json_whole(o, key = "input_length", 1, TRACE_TOKENS_MAX, &in,
		       &what) != 0 ||
	    json_whole(o, key = "output_length", 1, TRACE_TOKENS_MAX, &out,
		       &what) != 0) {
		diag_set(err, name, lineno, 1,
			 "'%s' %s (timestamp: 0 to 1e12 ms; lengths: 1 to %d "
			 "tokens)", key, what, TRACE_TOKENS_MAX);
		goto out;
	}
	q->arrival_s = ts / 1e3;
	q->prompt_tokens = (int)in;
	q->output_tokens = (int)out;
	ids = cJSON_GetObjectItemCaseSensitive(o, "hash_ids");
	if (ids) {
		int n = cJSON_GetArraySize(ids);
		const cJSON *v;
		long blocks = ((long)in + TRACE_HASH_BLOCK_TOKENS - 1) /
			      TRACE_HASH_BLOCK_TOKENS;

		if (!cJSON_IsArray(ids) || n > blocks) {
			diag_set(err, name, lineno, 1,
				 "'hash_ids' must be a list of at most one id "
				 "per %d-token block of the input (%ld here)",
				 TRACE_HASH_BLOCK_TOKENS, blocks);
			goto out;
		}
		if (*n_pool + (size_t)n > *cap) {
			size_t c = *cap ? *cap : 4096;
			uint64_t *p;

			while (c < *n_pool + (size_t)n)
				c *= 2;
			p = realloc(*pool, c * sizeof(*p));
			if (!p) {
				diag_set_kind(err, DIAG_NOMEM, name, 0, 0,
					      "out of memory");
				goto out;
			}
			*pool = p;
			*cap = c;
		}
		/* the offset, made a pointer once the pool stops moving */
		q->n_hash_ids = n;
		q->hash_block_tokens = TRACE_HASH_BLOCK_TOKENS;
		q->hash_ids = (const uint64_t *)(uintptr_t)(*n_pool + 1);
		cJSON_ArrayForEach(v, ids) {
			if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0.0) ||
			    !(v->valuedouble <= 9007199254740992.0) ||
			    v->valuedouble != floor(v->valuedouble)) {
				diag_set(err, name, lineno, 1,
					 "'hash_ids' must hold whole numbers "
					 "from 0 to 2^53");
				goto out;
			}
			(*pool)[(*n_pool)++] = (uint64_t)v->valuedouble;
		}
	}
	rc = 0;
out:
	cJSON_Delete(o);
	return rc;
}

/* A trace of JSON lines (the Mooncake traces: kvcache-ai/Mooncake
   FAST25-release/traces): the requests and their hash ids, in one block
   the caller frees. */
static int parse_jsonl(const char *buf, size_t len, const char *name,
		       struct sim_request **reqs, size_t *n_out,
		       struct diag *err)
{
	struct sim_request *r = NULL, *all;
	uint64_t *pool = NULL;
	size_t n = 0, cap = 0, n_pool = 0, cap_pool = 0, i = 0;
	int lineno = 0, rc = -1;

	while (i < len) {
		size_t end = i, a, b;

		while (end < len && buf[end] != '\n')
			end++;
		lineno++;
		a = i;
		b = end;
		i = end + 1;
		while (a < b && (buf[a] == ' ' || buf[a] == '\t' ||
				 buf[a] == '\r'))
			a++;
		while (b > a && (buf[b - 1] == ' ' || buf[b - 1] == '\t' ||
				 buf[b - 1] == '\r'))
			b--;
		if (lineno == 1 && b - a >= 3 &&
		    memcmp(buf + a, "\xef\xbb\xbf", 3) == 0)
			a += 3;
		if (a == b || buf[a] == '#')
			continue;
		if (n >= TRACE_REQUESTS_MAX) {
			diag_set(err, name, lineno, 1,
				 "too many requests: a trace holds at most %d "
				 "(the limit that bounds the time of a plan)",
				 TRACE_REQUESTS_MAX);
			goto out;
		}
		if (n == cap) {
			size_t c = cap ? 2 * cap : TRACE_FIRST_CAP;
			struct sim_request *p = realloc(r, c * sizeof(*p));

			if (!p) {
				diag_set_kind(err, DIAG_NOMEM, name, 0, 0,
					      "out of memory");
				goto out;
			}
			r = p;
			cap = c;
		}
		if (jsonl_record(buf + a, b - a, name, lineno, &r[n], &pool,
				 &n_pool, &cap_pool, err) != 0)
			goto out;
		n++;
	}
	if (n == 0) {
		diag_set(err, name, 1, 1,
			 "trace has no requests: expected JSON lines of "
			 "timestamp, input_length, output_length and "
			 "hash_ids");
		goto out;
	}
	/* one block: the requests, then the ids they point into */
	all = malloc(n * sizeof(*all) + n_pool * sizeof(*pool));
	if (!all) {
		diag_set_kind(err, DIAG_NOMEM, name, 0, 0, "out of memory");
		goto out;
	}
	memcpy(all, r, n * sizeof(*all));
	if (n_pool)
		memcpy((char *)(all + n), pool, n_pool * sizeof(*pool));
	for (size_t k = 0; k < n; k++)
		if (all[k].hash_ids)
			all[k].hash_ids = (const uint64_t *)(void *)(all + n) +
					  ((uintptr_t)all[k].hash_ids - 1);
	if (sort_by_arrival(all, n) != 0) {
		free(all);
		diag_set_kind(err, DIAG_NOMEM, name, 0, 0, "out of memory");
		goto out;
	}
	if (reqs)
		*reqs = all;
	else
		free(all);
	if (n_out)
		*n_out = n;
	rc = 0;
out:
	free(r);
	free(pool);
	return rc;
}

/* Does the text open with a JSON object (after a BOM and blanks)? */
static bool looks_jsonl(const char *buf, size_t len)
{
	size_t i = 0;

	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		i = 3;
	while (i < len && (buf[i] == ' ' || buf[i] == '\t' ||
			   buf[i] == '\r' || buf[i] == '\n'))
		i++;
	return i < len && buf[i] == '{';
}

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
	if (buf && looks_jsonl(buf, len))
		return parse_jsonl(buf, len, name, reqs, n, err);
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
	if (ctx->dated)
		relative_arrivals(ctx->reqs, ctx->count);
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
