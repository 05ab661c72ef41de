/*
 * measure.c - a user's measurements for 'capplan calibrate'; see
 * measure.h and specs/calibration.md.
 */
#include "measure.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv_read.h"
#include "readfile.h"

#define MEASURE_FILE_MAX (16 * 1024 * 1024)

enum col {
	C_COMMAND,
	C_WORKLOAD,
	C_GPU,
	C_GPUS,
	C_SET,
	C_METRIC,
	C_MEASURED,
	C_COUNT,
	C_IGNORED = C_COUNT,
};

static const char *const col_names[C_COUNT] = {
	"command", "workload", "gpu", "gpus", "set", "metric", "measured",
};

#define COLS_MAX 64

struct parse_ctx {
	struct csv_reader rd; /* first: the callbacks get it */
	const char *name;
	struct measure_set *s;
	size_t cap;
	int role[COLS_MAX];
	int ncols;
	int col_of[C_COUNT];
	bool header_done;
	struct measurement row;
	struct csv_pos at[C_COUNT];
	bool seen[C_COUNT];
	int nfields;
	size_t dir_len; /* bytes of 'name' up to its last '/', with it */
};

#define fail(c, ...) csv_read_fail(&(c)->rd, __VA_ARGS__)

const char *measure_command_name(enum measure_command c)
{
	return c == MEASURE_TRAIN ? "train" : "infer";
}

static void header_field(struct parse_ctx *c, const char *text,
			 struct csv_pos at)
{
	int role = C_IGNORED;

	if (c->ncols == COLS_MAX) {
		fail(c, at, "more than %d columns", COLS_MAX);
		return;
	}
	for (int i = 0; i < C_COUNT; i++)
		if (strcmp(text, col_names[i]) == 0) {
			if (c->col_of[i] >= 0) {
				fail(c, at, "column '%s' appears twice", text);
				return;
			}
			role = i;
			c->col_of[i] = c->ncols;
		}
	c->role[c->ncols++] = role;
}

static void header_end(struct parse_ctx *c)
{
	for (int i = 0; i < C_COUNT; i++)
		if (c->col_of[i] < 0) {
			fail(c, c->rd.cur,
			     "the header lacks column '%s' (expected command, "
			     "workload, gpu, gpus, set, metric, measured)",
			     col_names[i]);
			return;
		}
	c->header_done = true;
}

static void copy_field(struct parse_ctx *c, char *dst, size_t size,
		       const char *what, const char *text, size_t len,
		       struct csv_pos at)
{
	if (len >= size) {
		fail(c, at, "'%s' is too long (at most %zu bytes)", what,
		     size - 1);
		return;
	}
	memcpy(dst, text, len + 1);
}

static void row_field(struct parse_ctx *c, const char *text, size_t len,
		      struct csv_pos at)
{
	struct measurement *m = &c->row;
	int role = c->nfields < c->ncols ? c->role[c->nfields] : C_IGNORED;

	if (c->nfields++ >= c->ncols) {
		if (c->nfields == c->ncols + 1)
			fail(c, at, "expected %d fields as the header has, "
				    "found more", c->ncols);
		return;
	}
	if (role == C_IGNORED)
		return;
	c->at[role] = at;
	c->seen[role] = true;
	switch (role) {
	case C_COMMAND:
		if (strcmp(text, "train") == 0)
			m->command = MEASURE_TRAIN;
		else if (strcmp(text, "infer") == 0)
			m->command = MEASURE_INFER;
		else
			fail(c, at, "'command' must be train or infer, got "
				    "'%.40s'", text);
		break;
	case C_WORKLOAD:
		if (len == 0) {
			fail(c, at, "'workload' is empty: expected a workload "
				    "file");
			return;
		}
		/* relative to the measurements' folder */
		if (text[0] == '/' || c->dir_len == 0)
			copy_field(c, m->workload, sizeof(m->workload),
				   "workload", text, len, at);
		else if (c->dir_len + len >= sizeof(m->workload))
			fail(c, at, "'workload' is too long (at most %zu "
				    "bytes with its folder)",
			     sizeof(m->workload) - 1);
		else
			snprintf(m->workload, sizeof(m->workload), "%.*s%s",
				 (int)c->dir_len, c->name, text);
		m->col_workload = at.col;
		break;
	case C_GPU:
		if (len == 0) {
			fail(c, at, "'gpu' is empty: expected a catalog name");
			return;
		}
		copy_field(c, m->gpu, sizeof(m->gpu), "gpu", text, len, at);
		m->col_gpu = at.col;
		break;
	case C_GPUS: {
		char *end;
		long v;

		if (len == 0) {
			m->gpus = 0;
			break;
		}
		errno = 0;
		v = strtol(text, &end, 10);
		if (errno || *end || v < 1 || v > 1048576)
			fail(c, at, "'gpus' must be an integer from 1 to "
				    "1048576 or empty, got '%.40s'", text);
		else
			m->gpus = (int)v;
		break;
	}
	case C_SET:
		copy_field(c, m->set, sizeof(m->set), "set", text, len, at);
		m->col_set = at.col;
		break;
	case C_METRIC:
		if (len == 0) {
			fail(c, at, "'metric' is empty: expected a field of "
				    "the command's JSON output, such as "
				    "tokens_per_s_per_gpu or ttft_p50_s");
			return;
		}
		copy_field(c, m->metric, sizeof(m->metric), "metric", text,
			   len, at);
		m->col_metric = at.col;
		break;
	case C_MEASURED: {
		char *end;
		double v;

		errno = 0;
		v = strtod(text, &end);
		if (len == 0 || *end || errno || !isfinite(v) || v <= 0.0)
			fail(c, at, "'measured' must be a positive number in "
				    "the metric's unit, got '%.40s'", text);
		else
			m->measured = v;
		break;
	}
	default:
		break;
	}
}

static void row_end(struct parse_ctx *c)
{
	if (c->nfields < c->ncols) {
		fail(c, c->rd.cur, "expected %d fields as the header has, "
				   "found %d", c->ncols, c->nfields);
		return;
	}
	if (c->s->n == MEASURE_ROWS_MAX) {
		fail(c, c->at[C_COMMAND], "more than %d measurements",
		     MEASURE_ROWS_MAX);
		return;
	}
	if (c->s->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;
		struct measurement *rows =
			realloc(c->s->rows, cap * sizeof(*rows));

		if (!rows) {
			fail(c, c->at[C_COMMAND], "out of memory");
			return;
		}
		c->s->rows = rows;
		c->cap = cap;
	}
	snprintf(c->row.file, sizeof(c->row.file), "%s", c->name);
	c->row.line = c->at[C_COMMAND].line;
	c->s->rows[c->s->n++] = c->row;
}

static void on_field(struct csv_reader *rd, const char *text, size_t len,
		     struct csv_pos at)
{
	struct parse_ctx *c = (struct parse_ctx *)rd;

	if (!c->header_done)
		header_field(c, text, at);
	else
		row_field(c, text, len, at);
}

static void on_record(struct csv_reader *rd)
{
	struct parse_ctx *c = (struct parse_ctx *)rd;

	if (!c->header_done) {
		header_end(c);
		return;
	}
	row_end(c);
	memset(&c->row, 0, sizeof(c->row));
	memset(c->seen, 0, sizeof(c->seen));
	c->nfields = 0;
}

int measure_parse(const char *buf, size_t len, const char *name,
		  struct measure_set *s, struct diag *err)
{
	struct parse_ctx *c = calloc(1, sizeof(*c));
	struct measure_set before = *s;
	const char *slash;
	int rc;

	if (!c)
		return diag_set(err, name, 0, 0, "out of memory");
	c->name = name ? name : "measurements";
	slash = strrchr(c->name, '/');
	c->dir_len = slash ? (size_t)(slash - c->name) + 1 : 0;
	c->s = s;
	c->cap = s->n;
	for (int i = 0; i < C_COUNT; i++)
		c->col_of[i] = -1;
	c->rd.file = c->name;
	c->rd.err = err;
	c->rd.comments = true;
	c->rd.on_field = on_field;
	c->rd.on_record = on_record;
	rc = csv_read(&c->rd, buf, len);
	if (rc == 0 && !c->header_done)
		rc = diag_set(err, c->name, 0, 0,
			      "no header: expected the columns command, "
			      "workload, gpu, gpus, set, metric, measured");
	free(c);
	if (rc != 0) {
		/* the rows read before stay; the file's are dropped */
		s->n = before.n;
		return -1;
	}
	return 0;
}

int measure_load_file(const char *path, struct measure_set *s,
		      struct diag *err)
{
	char *buf;
	size_t len;
	int rc;

	if (readfile_all(path, READFILE_ANY, MEASURE_FILE_MAX, &buf, &len,
			 err) != 0)
		return -1;
	rc = measure_parse(buf, len, readfile_display_name(path), s, err);
	free(buf);
	return rc;
}

void measure_release(struct measure_set *s)
{
	free(s->rows);
	s->rows = NULL;
	s->n = 0;
}
