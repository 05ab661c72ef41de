/*
 * benchlog_train.c - training logs as measurements: Megatron-LM's and
 * torchtitan's, medians over the logged intervals after the warm-up ones.
 * See benchlog.h (the rules) and specs/calibration.md (the sources).
 */
#include "benchlog.h"
#include "benchlog_internal.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort_double.h>
#include <gsl/gsl_statistics_double.h>

#define SNIP_MAX 40 /* bytes of a wrong value quoted in a message */
#define NUMBER_MAX 64 /* characters of one number in a log */

/* One logged interval of a training log. */
struct logged {
	int line;
	long long step;      /* Megatron's iteration, torchtitan's step */
	double a, b, c;      /* the figures read; NAN when absent */
	long long batch;     /* Megatron's global batch size; 0: absent */
};

struct log_lines {
	struct logged *v;
	size_t n, cap;
};

static int log_push(struct log_lines *l, const struct logged *x)
{
	if (l->n == l->cap) {
		size_t c = l->cap ? 2 * l->cap : 64;
		struct logged *v = realloc(l->v, c * sizeof(*v));

		if (!v)
			return -1;
		l->v = v;
		l->cap = c;
	}
	l->v[l->n++] = *x;
	return 0;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The first bytes of 'p' (a NUL-terminated line) after blanks, in
   'out'. */
static const char *snip(const char *p, char out[SNIP_MAX + 4])
{
	size_t k;

	while (*p == ' ' || *p == '\t')
		p++;
	k = strnlen(p, SNIP_MAX);

	memcpy(out, p, k);
	strcpy(out + k, p[k] ? "..." : "");
	return out;
}

/*
 * The number at 'p' after blanks (with thousands separators when
 * 'commas'), or NAN when there is none; '*end' after it.
 */
static double read_number(const char *p, bool commas, const char **end)
{
	char tmp[NUMBER_MAX];
	size_t k = 0;
	char *e;
	double v;

	while (*p == ' ' || *p == '\t')
		p++;
	*end = p;
	while (k < sizeof(tmp) - 1 &&
	       (is_digit(*p) || *p == '.' || *p == '-' || *p == '+' ||
		*p == 'e' || *p == 'E' || (commas && *p == ','))) {
		if (*p != ',')
			tmp[k++] = *p;
		p++;
	}
	tmp[k] = '\0';
	if (k == 0)
		return NAN;
	errno = 0;
	v = strtod(tmp, &e);
	if (e != tmp + k || errno == ERANGE || !isfinite(v))
		return NAN;
	*end = p;
	return v;
}

/* The integer at 'p' after blanks, at least 0, or -1. */
static long long read_count(const char *p, const char **end)
{
	long long v;
	char *e;

	while (*p == ' ' || *p == '\t')
		p++;
	*end = p;
	if (!is_digit(*p))
		return -1;
	errno = 0;
	v = strtoll(p, &e, 10);
	if (errno == ERANGE)
		return -1;
	*end = e;
	return v;
}

/* The median of the figures 'which' (0: a, 1: b, 2: c) of 'l->v[from..]'
   that are present and positive, or NAN when none is. */
static double median(const struct log_lines *l, size_t from, int which,
		     double *scratch)
{
	size_t k = 0;

	for (size_t i = from; i < l->n; i++) {
		double x = which == 0 ? l->v[i].a :
			   which == 1 ? l->v[i].b : l->v[i].c;

		if (x > 0.0)
			scratch[k++] = x;
	}
	if (k == 0)
		return NAN;
	gsl_sort(scratch, 1, k);
	return gsl_stats_median_from_sorted_data(scratch, 1, k);
}

/* Append the 'k' measurements 'rows' to 's' at once (or none). */
static int append(struct measure_set *s, const struct measurement *rows,
		  size_t k, const char *name, struct diag *err)
{
	struct measurement *v;

	if (s->n + k > MEASURE_ROWS_MAX ||
	    !(v = realloc(s->rows, (s->n + k) * sizeof(*v))))
		return diag_set(err, name, 0, 0,
				"out of memory, or more than %d measurements",
				MEASURE_ROWS_MAX);
	s->rows = v;
	memcpy(s->rows + s->n, rows, k * sizeof(*rows));
	s->n += k;
	return 0;
}

static void train_row(struct measurement *m, const char *name, int line,
		      const char *workload, const char *gpu, const char *set,
		      const char *metric, double v)
{
	benchlog_measurement_init(m, MEASURE_TRAIN, name, line, workload, gpu);
	snprintf(m->set, sizeof(m->set), "%s", set);
	snprintf(m->metric, sizeof(m->metric), "%s", metric);
	m->measured = v;
}

/*
 * The text 'buf' as NUL-terminated lines: a copy whose line ends are NUL
 * bytes (and whose own NUL bytes are blanks).  Returns NULL when out of
 * memory.
 */
static char *split_lines(const char *buf, size_t len)
{
	char *t = malloc(len + 1);

	if (!t)
		return NULL;
	memcpy(t, buf, len);
	t[len] = '\0';
	for (size_t i = 0; i < len; i++)
		if (t[i] == '\n')
			t[i] = '\0';
		else if (t[i] == '\0')
			t[i] = ' ';
	return t;
}

/* Megatron-LM */

#define MG_TIME "elapsed time per iteration (ms):"
#define MG_TFLOPS "throughput per GPU (TFLOP/s/GPU):"
#define MG_BATCH "global batch size:"

/* The 'N' of "iteration N/M" in line 'l', or -1. */
static long long mg_iteration(const char *l)
{
	for (const char *p = strstr(l, "iteration"); p;
	     p = strstr(p + 9, "iteration")) {
		const char *e;
		long long v = read_count(p + 9, &e);

		while (*e == ' ')
			e++;
		if (v >= 0 && *e == '/')
			return v;
	}
	return -1;
}

/* One line of 'name' with MG_TIME, 'l' being line 'line', in '*x'. */
static int mg_line(const char *l, int line, const char *name,
		   struct logged *x, struct diag *err)
{
	const char *p = strstr(l, MG_TIME), *e;
	char got[SNIP_MAX + 4];

	memset(x, 0, sizeof(*x));
	x->line = line;
	x->b = x->c = NAN;
	x->step = mg_iteration(l);
	if (x->step < 0)
		return diag_set(err, name, line, 0,
				"expected 'iteration N/M' in a line with '"
				MG_TIME "', got '%s'", snip(l, got));
	p += strlen(MG_TIME);
	x->a = read_number(p, false, &e);
	if (!(x->a > 0.0))
		return diag_set(err, name, line, 0,
				"'" MG_TIME "' must be followed by a positive "
				"number of milliseconds, got '%s'",
				snip(p, got));
	p = strstr(l, MG_TFLOPS);
	if (p) {
		p += strlen(MG_TFLOPS);
		x->b = read_number(p, false, &e);
		if (isnan(x->b) || x->b < 0.0)
			return diag_set(err, name, line, 0,
					"'" MG_TFLOPS "' must be followed by a "
					"number, got '%s'", snip(p, got));
	}
	p = strstr(l, MG_BATCH);
	if (p) {
		p += strlen(MG_BATCH);
		x->batch = read_count(p, &e);
		if (x->batch < 1 || x->batch > 1073741824)
			return diag_set(err, name, line, 0,
					"'" MG_BATCH "' must be followed by a "
					"number of sequences from 1 to 2^30, "
					"got '%s'", snip(p, got));
	}
	return 0;
}

/* How many of the first logged lines hold warm-up (benchlog.h). */
static size_t mg_warmup(const struct log_lines *l)
{
	long long d;

	if (l->n < 2)
		return 1;
	d = l->n >= 3 ? l->v[2].step - l->v[1].step :
			l->v[1].step - l->v[0].step;
	return d > 0 && l->v[0].step % d != 0 ? 2 : 1;
}

int benchlog_megatron_parse(const char *buf, size_t len, const char *name,
			    const char *workload, const char *gpu,
			    struct measure_set *s, struct diag *err)
{
	struct log_lines l = { NULL, 0, 0 };
	struct measurement rows[2];
	char set[64] = "", *t;
	double *scratch = NULL, step_ms, tflops;
	size_t skip, k = 0;
	int line = 0, rc = -1;

	if (!name)
		name = "result";
	if (benchlog_check_names(name, workload, gpu, err) != 0)
		return -1;
	t = split_lines(buf, len);
	if (!t)
		return diag_set_kind(err, DIAG_NOMEM, name, 0, 0,
				     "out of memory");
	for (size_t at = 0; at <= len; at += strlen(t + at) + 1) {
		struct logged x;

		line++;
		if (!strstr(t + at, MG_TIME))
			continue;
		if (mg_line(t + at, line, name, &x, err) != 0)
			goto out;
		if (l.n && x.step <= l.v[l.n - 1].step) {
			diag_set(err, name, line, 0,
				 "iteration %lld after iteration %lld: "
				 "expected the log of one run, its "
				 "iterations increasing", x.step,
				 l.v[l.n - 1].step);
			goto out;
		}
		if (log_push(&l, &x) != 0) {
			diag_set_kind(err, DIAG_NOMEM, name, line, 0,
				      "out of memory");
			goto out;
		}
	}
	if (l.n == 0) {
		diag_set(err, name, 0, 0,
			 "expected lines with '" MG_TIME "' (Megatron-LM's "
			 "training log), found none");
		goto out;
	}
	skip = mg_warmup(&l);
	if (skip >= l.n) {
		diag_set(err, name, l.v[l.n - 1].line, 0,
			 "%zu logged iteration%s, all warm-up (the first "
			 "logged interval holds the run's first iteration, "
			 "and so does the second when Megatron logs that "
			 "one apart): expected at least %zu lines with '"
			 MG_TIME "'", l.n, l.n == 1 ? "" : "s", skip + 1);
		goto out;
	}
	for (size_t i = skip + 1; i < l.n; i++)
		if (l.v[i].batch != l.v[skip].batch) {
			diag_set(err, name, l.v[i].line, 0,
				 "global batch size %lld, but %lld at line %d: "
				 "capplan calibrates on one batch size "
				 "(give the lines after a batch size ramp)",
				 l.v[i].batch, l.v[skip].batch,
				 l.v[skip].line);
			goto out;
		}
	if (l.v[skip].batch > 0)
		snprintf(set, sizeof(set), "training.global_batch=%lld",
			 l.v[skip].batch);
	scratch = malloc(l.n * sizeof(*scratch));
	if (!scratch) {
		diag_set_kind(err, DIAG_NOMEM, name, 0, 0, "out of memory");
		goto out;
	}
	step_ms = median(&l, skip, 0, scratch);
	tflops = median(&l, skip, 1, scratch);
	train_row(&rows[k++], name, l.v[skip].line, workload, gpu, set,
		  "step_time_s", step_ms * 1e-3);
	if (tflops > 0.0)
		train_row(&rows[k++], name, l.v[skip].line, workload, gpu, set,
			  "model_tflops_per_gpu", tflops);
	rc = append(s, rows, k, name, err);
out:
	free(scratch);
	free(l.v);
	free(t);
	return rc;
}

/* torchtitan */

/* Remove the ANSI escape sequences (CSI: ESC '[' ... final byte) of the
   NUL-terminated line 'l' in place. */
static void strip_ansi(char *l)
{
	char *w = l;

	for (const char *r = l; *r;) {
		if (*r != '\033') {
			*w++ = *r++;
			continue;
		}
		r++;
		if (*r != '[')
			continue;
		r++;
		while (*r && !(*r >= 0x40 && *r <= 0x7e))
			r++;
		if (*r)
			r++;
	}
	*w = '\0';
}

#define TT_PREFIX_MAX 32

/* The length of torchrun's "[rank0]:" (or "[default0]:") prefix of 'l',
   at most TT_PREFIX_MAX, or 0. */
static size_t tt_prefix(const char *l)
{
	size_t k = 1;

	if (l[0] != '[')
		return 0;
	while (k + 2 < TT_PREFIX_MAX && l[k] && l[k] != ']' && l[k] != ' ' &&
	       l[k] != '[')
		k++;
	return l[k] == ']' && l[k + 1] == ':' ? k + 2 : 0;
}

/*
 * The metrics line of 'name' at 'p', its "step:", of line 'line', in
 * '*x': a the tps, b the tflops, c the mfu in percent.
 */
static int tt_line(const char *p, int line, const char *name,
		   struct logged *x, struct diag *err)
{
	char got[SNIP_MAX + 4];
	const char *e;

	memset(x, 0, sizeof(*x));
	x->line = line;
	x->b = x->c = NAN;
	x->step = read_count(p + 5, &e);
	if (x->step < 0)
		return diag_set(err, name, line, 0,
				"'step:' must be followed by a step number, "
				"got '%s'", snip(p + 5, got));
	p = strstr(e, "tps:") + 4;
	x->a = read_number(p, true, &e);
	if (!(x->a > 0.0))
		return diag_set(err, name, line, 0,
				"'tps:' must be followed by a positive number "
				"of tokens per second such as '6,123', got "
				"'%s'", snip(p, got));
	p = strstr(e, "tflops:");
	if (p) {
		p += 7;
		x->b = read_number(p, true, &e);
		if (isnan(x->b) || x->b < 0.0)
			return diag_set(err, name, line, 0,
					"'tflops:' must be followed by a "
					"number such as '312.45', got '%s'",
					snip(p, got));
	}
	p = strstr(e, "mfu:");
	if (p) {
		p += 4;
		while (*p == ' ')
			p++;
		if (strncmp(p, "N/A", 3) == 0)
			return 0;
		x->c = read_number(p, false, &e);
		if (isnan(x->c) || x->c < 0.0 || *e != '%')
			return diag_set(err, name, line, 0,
					"'mfu:' must be followed by a "
					"percentage such as '31.59%%' or "
					"'N/A', got '%s'", snip(p, got));
	}
	return 0;
}

int benchlog_torchtitan_parse(const char *buf, size_t len, const char *name,
			      const char *workload, const char *gpu,
			      struct measure_set *s, struct diag *err)
{
	struct log_lines l = { NULL, 0, 0 };
	struct measurement rows[3];
	char rank[TT_PREFIX_MAX + 1] = "", *t;
	double *scratch = NULL, tps, tflops, mfu;
	bool first = true;
	size_t k = 0;
	int line = 0, rc = -1;

	if (!name)
		name = "result";
	if (benchlog_check_names(name, workload, gpu, err) != 0)
		return -1;
	t = split_lines(buf, len);
	if (!t)
		return diag_set_kind(err, DIAG_NOMEM, name, 0, 0,
				     "out of memory");
	for (size_t at = 0, n = 0; at <= len; at += n + 1) {
		char *ln = t + at, *p;
		size_t pre;
		struct logged x;

		n = strlen(ln); /* before strip_ansi shortens it */
		line++;
		if (!strstr(ln, "step:"))
			continue;
		strip_ansi(ln);
		p = strstr(ln, "step:");
		while (p && p - ln >= 9 && memcmp(p - 9, "validate ", 9) == 0)
			p = strstr(p + 5, "step:");
		if (!p || !strstr(p, "tps:"))
			continue;
		pre = tt_prefix(ln);
		if (first) {
			memcpy(rank, ln, pre);
			rank[pre] = '\0';
			first = false;
		} else if (pre != strlen(rank) || memcmp(ln, rank, pre) != 0) {
			continue;
		}
		if (tt_line(p, line, name, &x, err) != 0)
			goto out;
		if (l.n && x.step <= l.v[l.n - 1].step) {
			diag_set(err, name, line, 0,
				 "step %lld after step %lld: expected the log "
				 "of one run, its steps increasing", x.step,
				 l.v[l.n - 1].step);
			goto out;
		}
		if (log_push(&l, &x) != 0) {
			diag_set_kind(err, DIAG_NOMEM, name, line, 0,
				      "out of memory");
			goto out;
		}
	}
	if (l.n < 2) {
		diag_set(err, name, l.n ? l.v[0].line : 0, 0,
			 "%s: expected at least 2 metrics lines ('step: N "
			 "... tps: T'; the first is warm-up)",
			 l.n ? "one metrics line" : "no metrics line");
		goto out;
	}
	scratch = malloc(l.n * sizeof(*scratch));
	if (!scratch) {
		diag_set_kind(err, DIAG_NOMEM, name, 0, 0, "out of memory");
		goto out;
	}
	tps = median(&l, 1, 0, scratch);
	tflops = median(&l, 1, 1, scratch);
	mfu = median(&l, 1, 2, scratch);
	train_row(&rows[k++], name, l.v[1].line, workload, gpu, "",
		  "tokens_per_s_per_gpu", tps);
	if (tflops > 0.0)
		train_row(&rows[k++], name, l.v[1].line, workload, gpu, "",
			  "model_tflops_per_gpu", tflops);
	if (mfu > 0.0)
		train_row(&rows[k++], name, l.v[1].line, workload, gpu, "",
			  "mfu", mfu / 100.0);
	rc = append(s, rows, k, name, err);
out:
	free(scratch);
	free(l.v);
	free(t);
	return rc;
}
