/* cmd_sweep.c - 'capplan sweep': vary workload keys (and the device) over
   lists and ranges, plan every combination, one row each.  Field names are
   specified in specs/output.md. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "progress.h"
#include "interval.h"
#include "infer_plan.h"
#include "plan.h"

/* the table's columns that --wide adds when there is no room */
#define SWEEP_WIDE (RF_GRID | RF_WIDE)

/* Limits of one sweep: values of one --vary, rows in all, --vary options
   (each is a column; the record has room for REPORT_MAX_FIELDS). */
#define SWEEP_MAX_AXIS_POINTS 10000
#define SWEEP_MAX_POINTS 10000
#define SWEEP_MAX_AXES 16
#define SWEEP_KEY_MAX 64
/* Room for one range value as text: "%.17g" of a double. */
#define SWEEP_NUM_TEXT 32
/* Longest "section.key=value" handed to workload_set. */
#define SWEEP_EXPR_MAX 1024
/* Progress on a terminal: after this long, at most this often (seconds). */

/* How a varied key's column is typed in CSV and JSON. */
enum axis_type {
	AXIS_STR,  /* text as given (units, names) */
	AXIS_INT,  /* every value an integer */
	AXIS_NUM,  /* every value a number */
};

/* One --vary option: a key and its values. */
struct sweep_axis {
	const char *arg;             /* the option's text */
	char shown[96];              /* it, for messages: at most 80 bytes
					and "..." (issue 40: a 109 KB
					argument was echoed back whole) */
	char key[SWEEP_KEY_MAX];     /* "training.gpus", or "gpu" */
	bool is_gpu;
	char *text;                  /* owns the value texts */
	const char **values;         /* n texts; for 'gpu' the names given */
	const struct gpu_spec **gpus;/* n devices when is_gpu */
	size_t n;
	enum axis_type type;
};

struct sweep {
	struct sweep_axis axis[SWEEP_MAX_AXES];
	int naxes;
	size_t points;               /* product of the axes' sizes */
};

/* A usage error of sweep; returns EXIT_USAGE. */
#define sweep_usage(...) cli_usage("sweep", __VA_ARGS__)

/* The longest value of a --vary list, in bytes. */
#define SWEEP_VALUE_MAX 256

static void sweep_release(struct sweep *s)
{
	for (int i = 0; i < s->naxes; i++) {
		free(s->axis[i].text);
		free(s->axis[i].values);
		free(s->axis[i].gpus);
	}
	s->naxes = 0;
}

/*
 * The 'len' bytes at 's' as a finite decimal number: the whole text,
 * parsed with strtod (no blanks, no hexadecimal, no inf or nan).
 */
static bool parse_number(const char *s, size_t len, double *out)
{
	char buf[SWEEP_NUM_TEXT * 2];
	char *end;
	double v;

	if (len == 0 || len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (strpbrk(buf, "xXpP \t\r\n\f\v"))
		return false;
	errno = 0;
	v = strtod(buf, &end);
	if (end == buf || *end != '\0' || errno == ERANGE || !isfinite(v))
		return false;
	*out = v;
	return true;
}

static bool is_integral(double v)
{
	return v == floor(v) && fabs(v) < 9007199254740992.0; /* 2^53 */
}

/* Digits after the decimal point of a plain number ("1.25" -> 2); -1 with
   an exponent, where no rounding to decimals applies. */
static int decimals(const char *s, size_t len)
{
	const char *dot = memchr(s, '.', len);

	if (memchr(s, 'e', len) || memchr(s, 'E', len))
		return -1;
	return dot ? (int)(len - (size_t)(dot + 1 - s)) : 0;
}

/* 'v' as text for workload_set: "%lld" when integral, else the shortest
   of "%.15g".."%.17g" that reads back as exactly 'v'. */
static void format_value(char *buf, size_t n, double v)
{
	if (is_integral(v)) {
		snprintf(buf, n, "%lld", (long long)v);
		return;
	}
	for (int digits = 15; digits <= 17; digits++) {
		snprintf(buf, n, "%.*g", digits, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

/* Allocate room for 'n' values of 'ax'; false when out of memory. */
static bool axis_alloc(struct sweep_axis *ax, size_t n)
{
	ax->values = calloc(n, sizeof(*ax->values));
	return ax->values != NULL;
}

/* A comma list "a,b,c": the texts as given, none empty. */
static int axis_list(struct sweep_axis *ax, const char *vals)
{
	size_t n = 1;
	char *p;

	for (const char *c = vals; *c; c++)
		n += *c == ',';
	if (n > SWEEP_MAX_AXIS_POINTS)
		return sweep_usage("--vary '%s': too many values (%zu); at "
				   "most %d per --vary", ax->shown, n,
				   SWEEP_MAX_AXIS_POINTS);
	ax->text = strdup(vals);
	if (!ax->text || !axis_alloc(ax, n)) {
		fprintf(stderr, "capplan: error: out of memory\n");
		return EXIT_INTERNAL;
	}
	p = ax->text;
	for (size_t i = 0; i < n; i++) {
		char *comma = strchr(p, ',');

		if (comma)
			*comma = '\0';
		if (*p == '\0')
			return sweep_usage("--vary '%s': empty value in the "
					   "list; expected 'a,b,c'", ax->shown);
		/* a value is a workload value: a number, a name, a list
		   of a few; longer is a mistake, not a table column */
		if (strlen(p) > SWEEP_VALUE_MAX)
			return sweep_usage("--vary '%s': value %zu is %zu "
					   "bytes long; at most %d expected",
					   ax->shown, i + 1, strlen(p),
					   SWEEP_VALUE_MAX);
		ax->values[i] = p;
		p = comma ? comma + 1 : p + strlen(p);
	}
	ax->n = n;
	return EXIT_OK;
}

/*
 * Where the step ('+') or factor ('x') of "a..b+s" / "a..bxf" starts in
 * 'rest' (the text after ".."), or NULL: a '+' right after an exponent's
 * 'e' and a leading sign belong to b.
 */
static const char *range_operator(const char *rest)
{
	for (const char *c = rest; *c; c++) {
		if (c == rest)
			continue;
		if (*c == 'x')
			return c;
		if (*c == '+' && c[-1] != 'e' && c[-1] != 'E')
			return c;
	}
	return NULL;
}

/* A range "a..b", "a..b+s" or "a..bxf" into value texts. */
static int axis_range(struct sweep_axis *ax, const char *vals)
{
	const char *dots = strstr(vals, "..");
	const char *rest = dots + 2;
	const char *op = range_operator(rest);
	size_t blen = op ? (size_t)(op - rest) : strlen(rest);
	double a, b, step = 1.0, factor = 0.0, count;
	int dec = -1;
	size_t n;

	if (!parse_number(vals, (size_t)(dots - vals), &a) ||
	    !parse_number(rest, blen, &b))
		return sweep_usage("--vary '%s': expected numbers in a range "
				   "'a..b', 'a..b+s' or 'a..bxf', or a list "
				   "'a,b,c'", ax->shown);
	if (!op && (!is_integral(a) || !is_integral(b)))
		return sweep_usage("--vary '%s': 'a..b' takes integers; give "
				   "a step as 'a..b+s'", ax->shown);
	if (a > b)
		return sweep_usage("--vary '%s': the range is empty; expected "
				   "'a..b' with a <= b", ax->shown);
	if (op && *op == '+') {
		if (!parse_number(op + 1, strlen(op + 1), &step) ||
		    !(step > 0.0))
			return sweep_usage("--vary '%s': the step must be a "
					   "number greater than 0, got '%s'",
					   ax->shown, op + 1);
		dec = decimals(vals, (size_t)(dots - vals));
		if (dec >= 0) {
			int ds = decimals(op + 1, strlen(op + 1));

			dec = ds < 0 ? -1 : (ds > dec ? ds : dec);
		}
	} else if (op) {
		if (!parse_number(op + 1, strlen(op + 1), &factor) ||
		    !(factor > 1.0))
			return sweep_usage("--vary '%s': the factor must be a "
					   "number greater than 1, got '%s'",
					   ax->shown, op + 1);
		if (!(a > 0.0))
			return sweep_usage("--vary '%s': a range 'a..bxf' "
					   "needs a > 0", ax->shown);
	}
	/* points, with room for rounding in the last step */
	if (factor > 0.0)
		count = floor(log(b / a) / log(factor) + 1e-9) + 1.0;
	else
		count = floor((b - a) / step + 1e-9) + 1.0;
	if (!(count <= SWEEP_MAX_AXIS_POINTS))
		return sweep_usage("--vary '%s': too many values (%.0f); at "
				   "most %d per --vary", ax->shown, count,
				   SWEEP_MAX_AXIS_POINTS);
	n = (size_t)count;
	ax->text = malloc(n * SWEEP_NUM_TEXT);
	if (!ax->text || !axis_alloc(ax, n)) {
		fprintf(stderr, "capplan: error: out of memory\n");
		return EXIT_INTERNAL;
	}
	for (size_t i = 0; i < n; i++) {
		char *t = ax->text + i * SWEEP_NUM_TEXT;
		double v;

		if (factor > 0.0) {
			v = a * pow(factor, (double)i);
		} else {
			v = a + (double)i * step;
			/* 1.1 + 2 x 0.1 is 1.3000000000000003: round to the
			   decimals the range was written with */
			if (dec >= 0 && dec <= 15) {
				double scale = pow(10.0, dec);

				if (fabs(v * scale) < 9007199254740992.0)
					v = round(v * scale) / scale;
			}
		}
		format_value(t, SWEEP_NUM_TEXT, v);
		ax->values[i] = t;
	}
	ax->n = n;
	return EXIT_OK;
}

/* The column type of a workload key's values. */
static enum axis_type axis_type_of(const struct sweep_axis *ax)
{
	enum axis_type t = AXIS_INT;

	for (size_t i = 0; i < ax->n; i++) {
		double v;

		if (!parse_number(ax->values[i], strlen(ax->values[i]), &v))
			return AXIS_STR;
		if (!is_integral(v))
			t = AXIS_NUM;
	}
	return t;
}

/* True when workload_set's message is about the key, not the value. */
static bool key_error(const char *msg)
{
	return strncmp(msg, "unknown section", 15) == 0 ||
	       strncmp(msg, "unknown key", 11) == 0 ||
	       strncmp(msg, "expected 'section.key", 21) == 0;
}

/*
 * An unknown workload key is a usage error before anything is planned;
 * a bad value is only the status of its rows.  The key is the same for
 * every value, so one workload_set on a scratch workload tells.
 */
static int axis_check_key(const struct sweep_axis *ax)
{
	struct workload probe;
	struct diag err;
	char expr[SWEEP_EXPR_MAX];

	workload_init(&probe);
	diag_clear(&err);
	snprintf(expr, sizeof(expr), "%s=%s", ax->key, ax->values[0]);
	if (workload_set(&probe, expr, &err) != 0 && key_error(err.msg))
		return sweep_usage("--vary '%s': %s", ax->shown, err.msg);
	return EXIT_OK;
}

/* Resolve the names of a 'gpu' axis in the catalog. */
static int axis_gpus(struct sweep_axis *ax, const struct catalog *cat)
{
	ax->gpus = calloc(ax->n, sizeof(*ax->gpus));
	if (!ax->gpus) {
		fprintf(stderr, "capplan: error: out of memory\n");
		return EXIT_INTERNAL;
	}
	for (size_t i = 0; i < ax->n; i++) {
		struct diag err;

		diag_clear(&err);
		ax->gpus[i] = catalog_find(cat, ax->values[i], &err);
		if (!ax->gpus[i])
			return sweep_usage("--vary '%s': %s", ax->shown, err.msg);
	}
	return EXIT_OK;
}

/* Parse one --vary KEY=VALUES into 'ax'. */
static int axis_parse(struct sweep_axis *ax, const char *arg,
		      const struct catalog *cat)
{
	const char *eq = strchr(arg, '=');
	const char *vals;
	size_t klen;
	int rc;

	memset(ax, 0, sizeof(*ax));
	ax->arg = arg;
	snprintf(ax->shown, sizeof(ax->shown), "%.80s%s", arg,
		 strlen(arg) > 80 ? "..." : "");
	if (!eq || eq == arg)
		return sweep_usage("--vary expects KEY=VALUES such as "
				   "'training.gpus=64..1024x2', got '%s'",
				   ax->shown);
	klen = (size_t)(eq - arg);
	if (klen >= sizeof(ax->key))
		return sweep_usage("--vary '%s': the key is too long",
				   ax->shown);
	memcpy(ax->key, arg, klen);
	ax->key[klen] = '\0';
	vals = eq + 1;
	if (*vals == '\0')
		return sweep_usage("--vary '%s': no values; expected a list "
				   "'a,b,c' or a range 'a..b'", ax->shown);
	ax->is_gpu = strcmp(ax->key, "gpu") == 0;
	if (ax->is_gpu || strchr(vals, ',') || !strstr(vals, ".."))
		rc = axis_list(ax, vals);
	else
		rc = axis_range(ax, vals);
	if (rc != EXIT_OK)
		return rc;
	if (ax->is_gpu) {
		ax->type = AXIS_STR;
		return axis_gpus(ax, cat);
	}
	ax->type = axis_type_of(ax);
	return axis_check_key(ax);
}

static int sweep_parse(struct sweep *s, const struct cli_ctx *ctx)
{
	s->naxes = 0;
	s->points = 1;
	if (ctx->nvaries == 0)
		return sweep_usage("%s", "sweep needs at least one --vary "
					 "KEY=VALUES");
	if (ctx->nvaries > SWEEP_MAX_AXES)
		return sweep_usage("at most %d --vary options, got %d",
				   SWEEP_MAX_AXES, ctx->nvaries);
	for (int i = 0; i < ctx->nvaries; i++) {
		struct sweep_axis *ax = &s->axis[i];
		int rc = axis_parse(ax, ctx->varies[i], ctx->cat);

		s->naxes = i + 1; /* released by the caller, even on error */
		if (rc != EXIT_OK)
			return rc;
		for (int j = 0; j < i; j++)
			if (strcmp(s->axis[j].key, ax->key) == 0)
				return sweep_usage("--vary '%s': '%s' is "
						   "already varied", ax->shown,
						   ax->key);
		if (ax->n > SWEEP_MAX_POINTS / s->points)
			return sweep_usage("the sweep has more than %d points; "
					   "narrow the --vary ranges",
					   SWEEP_MAX_POINTS);
		s->points *= ax->n;
	}
	return EXIT_OK;
}

static const struct sweep_axis *gpu_axis(const struct sweep *s)
{
	for (int i = 0; i < s->naxes; i++)
		if (s->axis[i].is_gpu)
			return &s->axis[i];
	return NULL;
}

/* A number, or null when it is not finite (a model defect: '*bad'). */
static void num(struct record *rec, const char *key, const char *label,
		double v, enum unit_kind unit, int flags, bool *bad)
{
	if (isfinite(v)) {
		rec_num(rec, NULL, key, label, v, unit, flags);
	} else {
		rec_null(rec, NULL, key, label, flags);
		*bad = true;
	}
}

/* Training columns; 'p' NULL: not applicable.  A per-sample model's tp
   and pp (always 1) are columns a table too wide leaves out. */
static void add_training(struct record *rec, const struct train_plan *p,
			 bool per_sample, const struct cli_basis *b, bool *bad)
{
	int split = per_sample ? SWEEP_WIDE : RF_GRID;
	bool t = p && p->has_arch;
	const struct train_result *r = p ? &p->result : NULL;
	const struct run_cost *run = p ? &p->run : NULL;

	if (p) {
		rec_bool(rec, NULL, "fits", "fits", p->fits, SWEEP_WIDE);
		rec_int(rec, NULL, "gpus", "gpus", p->config.gpus, 0);
		rec_int(rec, NULL, "tp", "tp", p->config.tp, split);
		rec_int(rec, NULL, "pp", "pp", p->config.pp, split);
		/* in JSON and CSV: the factors multiply to the GPUs */
		rec_int(rec, NULL, "cp", "cp", p->config.cp, RF_MACHINE);
		rec_int(rec, NULL, "ep", "ep", train_config_ep(&p->config),
			RF_MACHINE);
		rec_int(rec, NULL, "dp", "dp", p->config.dp, RF_GRID);
	} else {
		rec_null(rec, NULL, "fits", "fits", SWEEP_WIDE);
		rec_null(rec, NULL, "gpus", "gpus", 0);
		rec_null(rec, NULL, "tp", "tp", split);
		rec_null(rec, NULL, "pp", "pp", split);
		rec_null(rec, NULL, "cp", "cp", RF_MACHINE);
		rec_null(rec, NULL, "ep", "ep", RF_MACHINE);
		rec_null(rec, NULL, "dp", "dp", RF_GRID);
	}
	if (t) {
		rec_int(rec, NULL, "micro_batch", "mb", p->config.micro_batch,
			0);
		rec_int(rec, NULL, "global_batch", "gb",
			p->config.global_batch, SWEEP_WIDE);
		num(rec, "step_time_s", "step", r->time.step_s, UNIT_TIME,
		    RF_GRID, bad);
		num(rec, "tokens_per_s", "tokens/s", r->tokens_per_s,
		    UNIT_COUNT, 0, bad);
		num(rec, "mfu", "MFU", r->mfu, UNIT_KIND_COUNT, RF_PERCENT,
		    bad);
		num(rec, "goodput", "goodput", p->goodput.goodput,
		    UNIT_KIND_COUNT, SWEEP_WIDE | RF_PERCENT, bad);
		if (p->goodput.finishes) {
			num(rec, "time_to_train_s", "time",
			    run->time_s, UNIT_TIME, RF_GRID, bad);
			num(rec, "gpu_hours", "GPU-hours", run->gpu_hours,
			    UNIT_COUNT, 0, bad);
			num(rec, "cost_usd", "cost", run->cost_usd, UNIT_MONEY,
			    RF_GRID, bad);
			num(rec, "energy_kwh", "energy", run->energy_kwh,
			    UNIT_ENERGY_KWH, 0, bad);
		} else { /* failures outpace progress: no end, no cost */
			rec_null(rec, NULL, "time_to_train_s", "time",
				 RF_GRID);
			rec_null(rec, NULL, "gpu_hours", "GPU-hours", 0);
			rec_null(rec, NULL, "cost_usd", "cost", RF_GRID);
			rec_null(rec, NULL, "energy_kwh", "energy", 0);
		}
	} else {
		rec_null(rec, NULL, "micro_batch", "mb", 0);
		rec_null(rec, NULL, "global_batch", "gb", SWEEP_WIDE);
		rec_null(rec, NULL, "step_time_s", "step", RF_GRID);
		rec_null(rec, NULL, "tokens_per_s", "tokens/s", 0);
		rec_null(rec, NULL, "mfu", "MFU", 0);
		rec_null(rec, NULL, "goodput", "goodput", SWEEP_WIDE);
		rec_null(rec, NULL, "time_to_train_s", "time",
			 RF_GRID);
		rec_null(rec, NULL, "gpu_hours", "GPU-hours", 0);
		rec_null(rec, NULL, "cost_usd", "cost", RF_GRID);
		rec_null(rec, NULL, "energy_kwh", "energy", 0);
	}
	{
		bool done = t && p->goodput.finishes;
		int cls = p && p->per_sample ? INTERVAL_PER_SAMPLE :
					       INTERVAL_TRAINING;
		struct cli_estimate est[] = {
			{ cls, "time_to_train_s", "time",
			  done ? run->time_s : (double)NAN, true, UNIT_TIME,
			  0, false, { 0.0, 0.0 } },
			{ cls, "cost_usd", "cost",
			  done ? run->cost_usd : (double)NAN, true, UNIT_MONEY,
			  0, false, { 0.0, 0.0 } },
		};

		/* production figures (specs/models.md 8.1.1) */
		cli_estimate_production(&est[0], b->gpu);
		cli_estimate_production(&est[1], b->gpu);
		cli_rec_interval_pairs(rec, b, est, 2, RF_MACHINE);
	}
}

/* Serving columns; 'p' NULL: not applicable. */
static void add_inference(struct record *rec, const struct infer_plan *p,
			  bool *bad)
{
	const struct infer_result *r = p ? &p->result : NULL;

	if (!p) {
		rec_null(rec, NULL, "infer_tp", "infer tp", 0);
		rec_null(rec, NULL, "batch", "batch", 0);
		rec_null(rec, NULL, "ttft_s", "TTFT", 0);
		rec_null(rec, NULL, "tpot_s", "TPOT", RF_GRID);
		rec_null(rec, NULL, "throughput_tokens_per_s_per_gpu",
			 "tok/s/GPU", SWEEP_WIDE);
		rec_null(rec, NULL, "replicas", "replicas", SWEEP_WIDE);
		rec_null(rec, NULL, "gpus_total", "serving GPUs", 0);
		rec_null(rec, NULL, "cost_usd_per_million_tokens",
			 "$/M tokens", 0);
		rec_null(rec, NULL, "energy_j_per_token", "J/token", 0);
		rec_null(rec, NULL, "meets_slo", "meets SLO", 0);
		return;
	}
	rec_int(rec, NULL, "infer_tp", "infer tp", p->config.tp, 0);
	rec_int(rec, NULL, "batch", "batch", p->config.batch, 0);
	num(rec, "ttft_s", "TTFT", r->ttft_s, UNIT_TIME, 0, bad);
	if (p->config.output_tokens >= 2)
		num(rec, "tpot_s", "TPOT", r->tpot_s, UNIT_TIME, RF_GRID, bad);
	else /* a one-token answer has no time per output token */
		rec_null(rec, NULL, "tpot_s", "TPOT", RF_GRID);
	num(rec, "throughput_tokens_per_s_per_gpu", "tok/s/GPU",
	    r->throughput_tokens_per_s_per_gpu, UNIT_COUNT, SWEEP_WIDE, bad);
	rec_int(rec, NULL, "replicas", "replicas", p->replicas,
		SWEEP_WIDE);
	rec_int(rec, NULL, "gpus_total", "serving GPUs", p->gpus_total, 0);
	num(rec, "cost_usd_per_million_tokens", "$/M tokens",
	    p->cost_usd_per_million_tokens, UNIT_MONEY, 0, bad);
	num(rec, "energy_j_per_token", "J/token", r->energy_j_per_token,
	    UNIT_KIND_COUNT, 0, bad);
	rec_bool(rec, NULL, "meets_slo", "meets SLO", p->meets_slo, 0);
}

/*
 * The serving columns of a per-sample model (specs/models.md 14.7), in
 * the same fields, counting samples as train does: 'ttft_s' is the batch
 * latency, the throughput samples/s per GPU, the cost per million
 * samples, the energy per sample; no TPOT.  Varying inference.batch
 * gives the latency-throughput curve over the batch.
 */
static void add_sample_inference(struct record *rec,
				 const struct sample_serve_plan *p, bool *bad)
{
	rec_int(rec, NULL, "infer_tp", "infer tp", p->tp, 0);
	rec_int(rec, NULL, "batch", "batch", p->batch, 0);
	/* the table names them as they are: a batch's latency, inferences
	   per second (the keys stay those of a transformer's sweep) */
	num(rec, "ttft_s", "latency", p->result.latency_s, UNIT_TIME, RF_GRID,
	    bad);
	rec_null(rec, NULL, "tpot_s", "TPOT", 0);
	num(rec, "throughput_tokens_per_s_per_gpu", "inf/s/GPU",
	    p->result.throughput_per_s / p->tp, UNIT_COUNT, RF_GRID, bad);
	rec_int(rec, NULL, "replicas", "replicas", p->replicas, SWEEP_WIDE);
	rec_int(rec, NULL, "gpus_total", "serving GPUs", p->gpus_total, 0);
	num(rec, "cost_usd_per_million_tokens", "$/M inf",
	    p->cost_usd_per_million_samples, UNIT_MONEY, 0, bad);
	num(rec, "energy_j_per_token", "J/inf", p->energy_j_per_sample,
	    UNIT_KIND_COUNT, 0, bad);
	rec_bool(rec, NULL, "meets_slo", "meets SLO", p->meets_slo, 0);
}

/* The column of axis 'ax' at value 'i'. */
static void add_axis_value(struct record *rec, const struct sweep_axis *ax,
			   size_t i)
{
	double v = 0.0;

	if (ax->is_gpu) {
		rec_str(rec, NULL, ax->key, ax->key, ax->gpus[i]->name,
			RF_GRID);
		return;
	}
	switch (ax->type) {
	case AXIS_INT:
		parse_number(ax->values[i], strlen(ax->values[i]), &v);
		rec_int(rec, NULL, ax->key, ax->key, (long long)v, RF_GRID);
		break;
	case AXIS_NUM:
		parse_number(ax->values[i], strlen(ax->values[i]), &v);
		rec_num(rec, NULL, ax->key, ax->key, v, UNIT_KIND_COUNT,
			RF_GRID);
		break;
	case AXIS_STR:
		rec_str(rec, NULL, ax->key, ax->key, ax->values[i], RF_GRID);
		break;
	}
}

/*
 * Plan one point: the base workload with the axes at 'idx', on 'base_gpu'
 * unless a 'gpu' axis names the device.  Fills 'rec'; returns true when a
 * training plan fits.
 */
static bool sweep_point(const struct sweep *s, const size_t *idx,
			const struct workload *base,
			const struct stack_table *stacks,
			const struct profile *profile,
			const struct gpu_spec *base_gpu, struct record *rec)
{
	struct workload wl = *base;
	const struct gpu_spec *g = base_gpu;
	struct train_plan train;
	struct infer_plan serve;
	struct sample_serve_plan sample;
	bool ok = true, have_train = false, have_serve = false, bad = false;
	bool have_sample = false;
	char status[DIAG_MSG_MAX + 16] = "ok"; /* rec_str keeps what fits */
	struct diag err;
	int status_field;

	diag_clear(&err);
	for (int k = 0; k < s->naxes; k++) {
		const struct sweep_axis *ax = &s->axis[k];
		char expr[SWEEP_EXPR_MAX];
		int n;

		add_axis_value(rec, ax, idx[k]);
		if (!ok)
			continue; /* an earlier value is already wrong */
		if (ax->is_gpu) {
			g = ax->gpus[idx[k]];
			continue;
		}
		n = snprintf(expr, sizeof(expr), "%s=%s", ax->key,
			     ax->values[idx[k]]);
		if (n < 0 || (size_t)n >= sizeof(expr)) {
			snprintf(status, sizeof(status),
				 "the value of '%s' is too long", ax->key);
			ok = false;
		} else if (workload_set(&wl, expr, &err) != 0) {
			snprintf(status, sizeof(status), "%s", err.msg);
			ok = false;
		}
	}
	/* a point that names another engine or framework takes its row */
	if (ok && stack_apply(stacks, &wl, &err) != 0) {
		snprintf(status, sizeof(status), "%s", err.msg);
		ok = false;
	}
	if (ok && profile) {
		profile_apply_engine(profile, &wl);
		profile_apply_framework(profile, &wl);
	}
	cli_rec_stacks(rec, &wl, true, true, RF_MACHINE);
	if (ok && workload_validate(&wl, &err) != 0) {
		snprintf(status, sizeof(status), "%s", err.msg);
		ok = false;
	}
	if (ok) {
		diag_clear(&err);
		if (train_plan_make(&wl, g, &train, &err) == 0) {
			have_train = true;
			if (!train.fits)
				snprintf(status, sizeof(status), "%s",
					 "does not fit");
		} else {
			snprintf(status, sizeof(status), "%s", err.msg);
		}
		diag_clear(&err);
		if (wl.model.kind != MODEL_TRANSFORMER) {
			if (sample_serve_plan_make(&wl, g, &sample, &err) == 0)
				have_sample = true;
			else if (have_train && train.fits)
				snprintf(status, sizeof(status),
					 "serving: %s", err.msg);
		} else if (model_has_arch(&wl.model)) {
			if (infer_plan_make(&wl, g, &serve, &err) == 0)
				have_serve = true;
			else if (have_train && train.fits)
				snprintf(status, sizeof(status),
					 "serving: %s", err.msg);
		}
	}
	status_field = rec->n;
	rec_str(rec, NULL, "status", "status", status, RF_GRID);
	{
		struct cli_basis b;

		cli_basis_init(&b, profile, g->name, &wl);
		add_training(rec, have_train ? &train : NULL,
			     wl.model.kind != MODEL_TRANSFORMER, &b, &bad);
	}
	if (have_sample)
		add_sample_inference(rec, &sample, &bad);
	else
		add_inference(rec, have_serve ? &serve : NULL, &bad);
	cli_rec_price(rec, have_train ? &train.cluster :
			   have_serve ? &serve.cluster :
					NULL,
		      0);
	if (bad && status_field < rec->n)
		snprintf(rec->f[status_field].str,
			 sizeof(rec->f[status_field].str), "%s",
			 "a result is not a finite number");
	return have_train && train.fits && !bad;
}

int cmd_sweep(struct cli_ctx *ctx)
{
	struct sweep s;
	const struct sweep_axis *gax;
	const struct gpu_spec *base_gpu = NULL;
	size_t idx[SWEEP_MAX_AXES] = { 0 };
	struct progress pr;
	struct report rep;
	size_t fits = 0;
	int rc;

	rc = sweep_parse(&s, ctx);
	if (rc != EXIT_OK)
		goto out_release;
	gax = gpu_axis(&s);
	if (gax && ctx->gpu_arg) {
		rc = sweep_usage("%s", "give the device with --gpu or with "
				       "--vary gpu=NAME,..., not both");
		goto out_release;
	}
	if (!gax) {
		rc = cli_resolve_gpus(ctx, false);
		if (rc != EXIT_OK)
			goto out_release;
		if (ctx->ngpus != 1) {
			rc = sweep_usage("%s", "sweep needs one --gpu NAME or "
					       "--vary gpu=NAME,... ('capplan "
					       "catalog' lists them)");
			goto out_release;
		}
		base_gpu = ctx->gpus[0];
	}
	rc = cli_load_workload(ctx);
	if (rc != EXIT_OK)
		goto out_release;

	report_init(&rep, true);
	snprintf(rep.title, sizeof(rep.title), "Sweep: %s%s%s, %zu point%s",
		 ctx->wl.model.name[0] ? ctx->wl.model.name : "model",
		 base_gpu ? " on " : "", base_gpu ? base_gpu->name : "",
		 s.points, s.points == 1 ? "" : "s");
	progress_init(&pr, "sweep");
	progress_update(&pr, 0, s.points, "points");
	for (size_t done = 0; done < s.points; done++) {
		struct record *rec = report_add_record(&rep);

		if (!rec) {
			progress_end(&pr);
			fprintf(stderr, "capplan: error: out of memory\n");
			rc = EXIT_INTERNAL;
			goto out_report;
		}
		if (sweep_point(&s, idx, &ctx->wl, &ctx->stacks, ctx->profile,
				base_gpu, rec))
			fits++;
		/* next point: the last --vary changes fastest */
		for (int k = s.naxes - 1; k >= 0; k--) {
			if (++idx[k] < s.axis[k].n)
				break;
			idx[k] = 0;
		}
		progress_update(&pr, done + 1, s.points, "points");
	}
	progress_end(&pr);
	if (ctx->format == FORMAT_TABLE)
		report_note(&rep, "%s", CLI_INTERVAL_NOTE);
	report_note(&rep, "%zu of %zu points fit; keys left open are chosen "
			  "by capplan for each point", fits, s.points);
	cli_note_profile(&rep, ctx, base_gpu ? base_gpu->name : NULL);
	rc = cli_emit(ctx, &rep);
	if (rc == EXIT_OK && fits == 0)
		rc = EXIT_INFEASIBLE;
out_report:
	report_release(&rep);
out_release:
	sweep_release(&s);
	return rc;
}
