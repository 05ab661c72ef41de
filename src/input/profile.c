/*
 * profile.c - calibration profiles; see profile.h and
 * specs/calibration.md.
 */
#include "profile.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <ini.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "readfile.h"
#include "text.h"
#include "units.h"

#define PROFILE_FILE_MAX (1024 * 1024)

struct parse_ctx {
	struct profile *p;
	struct diag *err;
	const char *name;
	const char *buf;  /* the text, read a line at a time */
	size_t len, at;
	int line;         /* of the line inih has */
	bool failed;
};

/* Record the first error, at the line being read; returns 0 (inih's
   "stop"). */
__attribute__((format(printf, 2, 3)))
static int failf(struct parse_ctx *c, const char *fmt, ...)
{
	char msg[DIAG_MSG_MAX];
	va_list ap;

	if (!c->failed) {
		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		diag_set(c->err, c->name, c->line, 0, "%s", msg);
	}
	c->failed = true;
	return 0;
}

/* inih's reader: the next line of the text, counted. */
static char *read_line(char *str, int num, void *stream)
{
	struct parse_ctx *c = stream;
	size_t n = 0;

	if (c->at >= c->len || num < 2)
		return NULL;
	while (c->at < c->len && n + 1 < (size_t)num) {
		char ch = c->buf[c->at++];

		str[n++] = ch;
		if (ch == '\n')
			break;
	}
	str[n] = '\0';
	c->line++;
	return str;
}

static bool parse_number(const char *v, double lo, double hi, double *out)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(v, &end);
	if (end == v || *end || errno || !isfinite(x) || x < lo || x > hi)
		return false;
	*out = x;
	return true;
}

static bool parse_time(const char *v, double *out)
{
	double x;

	if (units_parse(v, UNIT_TIME, &x, NULL) != 0 || x < 0.0 || x > 1.0)
		return false;
	*out = x;
	return true;
}

/* A stack's name or version as the stack table takes them (stack.h):
   letters, digits, '.', '-' (and '_' in a name). */
static bool stack_word(const char *s, size_t n, bool name)
{
	if (n == 0 || (!name && !isdigit((unsigned char)s[0])))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '.' &&
		    s[i] != '-' && !(name && s[i] == '_'))
			return false;
	return true;
}

/* Text that tables, JSON and messages can show as it is. */
static bool plain_text(const char *s)
{
	size_t at;
	unsigned char byte;

	return text_check_name(s, strlen(s), &at, &byte) == TEXT_OK;
}

static struct profile_device *device_entry(struct parse_ctx *c,
					   const char *gpu)
{
	struct profile *p = c->p;

	if (!gpu[0] || !plain_text(gpu))
		return NULL;
	for (int i = 0; i < p->ndev; i++)
		if (strcasecmp(p->dev[i].gpu, gpu) == 0)
			return &p->dev[i];
	if (p->ndev == PROFILE_DEVICES_MAX || strlen(gpu) >= 64)
		return NULL;
	snprintf(p->dev[p->ndev].gpu, sizeof(p->dev[0].gpu), "%s", gpu);
	return &p->dev[p->ndev++];
}

static struct profile_engine *engine_entry(struct parse_ctx *c,
					   const char *spec, bool framework)
{
	struct profile *p = c->p;
	const char *at = strchr(spec, '@');
	size_t nlen = at ? (size_t)(at - spec) : 0;
	struct profile_engine *e;

	if (!at || nlen == 0 || nlen >= WL_STACK_NAME_MAX || !at[1] ||
	    strlen(at + 1) >= WL_STACK_VERSION_MAX ||
	    !stack_word(spec, nlen, true) ||
	    !stack_word(at + 1, strlen(at + 1), false))
		return NULL;
	for (int i = 0; i < p->neng; i++)
		if (p->eng[i].framework == framework &&
		    strlen(p->eng[i].name) == nlen &&
		    strncasecmp(p->eng[i].name, spec, nlen) == 0 &&
		    strcmp(p->eng[i].version, at + 1) == 0)
			return &p->eng[i];
	if (p->neng == PROFILE_STACKS_MAX)
		return NULL;
	e = &p->eng[p->neng++];
	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%.*s", (int)nlen, spec);
	snprintf(e->version, sizeof(e->version), "%s", at + 1);
	e->framework = framework;
	return e;
}

/* The names of the classes of estimate (interval.h names them too;
   test_calibrate checks that they agree). */
static const char *const band_classes[] = {
	"training", "per_sample", "ttft", "tpot", "throughput", "offline",
	"sample_serving", PROFILE_PRODUCTION_BAND,
};

/* The longest item of a list (a device, a stack, a file name), so that
   one fits a line of the profile with its key: inih reads lines of at
   most INI_MAX_LINE - 1 (199) bytes. */
#define PROFILE_ITEM_MAX 160

/*
 * Set or continue a list value: a long list is written over several
 * lines of the same key, each continuing the last with 'sep'.  False when
 * the whole is not text of at most 'size' - 1 bytes, or an item is longer
 * than PROFILE_ITEM_MAX.
 */
static bool list_value(char *dst, size_t size, const char *value, char sep)
{
	size_t n = strlen(dst), v = strlen(value);
	const char *item = value;

	if (!plain_text(value) || n + (n ? 1 : 0) + v >= size)
		return false;
	while (*item) {
		const char *end = strchr(item, sep);
		size_t len = end ? (size_t)(end - item) : strlen(item);

		if (len > PROFILE_ITEM_MAX)
			return false;
		item += len + (end != NULL);
	}
	if (n)
		dst[n++] = sep;
	memcpy(dst + n, value, v + 1);
	return true;
}

static struct profile_band *band_entry(struct parse_ctx *c, const char *cls)
{
	struct profile *p = c->p;
	bool known = false;

	for (size_t i = 0; i < sizeof(band_classes) / sizeof(band_classes[0]);
	     i++)
		known |= strcmp(band_classes[i], cls) == 0;
	if (!known)
		return NULL;
	for (int i = 0; i < p->nband; i++)
		if (strcmp(p->band[i].cls, cls) == 0)
			return &p->band[i];
	if (p->nband == PROFILE_BANDS_MAX)
		return NULL;
	memset(&p->band[p->nband], 0, sizeof(p->band[0]));
	snprintf(p->band[p->nband].cls, sizeof(p->band[0].cls), "%s", cls);
	return &p->band[p->nband++];
}

static int on_band(struct parse_ctx *c, const char *section,
		   const char *key, const char *value)
{
	struct profile_band *b = band_entry(c, section + 9);
	double x;

	if (!b)
		return failf(c, "[%.80s]: expected [interval CLASS], CLASS one "
				"of training, per_sample, ttft, tpot, "
				"throughput, offline, sample_serving",
			     section);
	if (strcmp(key, "sigma_log") == 0) {
		if (!parse_number(value, 0, 10, &x))
			return failf(c, "'%s' must be a number from 0 to 10, "
					"got '%s'", key, value);
		b->sigma_log = x;
	} else if (strcmp(key, "rows") == 0) {
		if (!parse_number(value, 0, 1e9, &x) || x != floor(x))
			return failf(c, "'%s' must be a count, got '%s'", key,
				     value);
		b->rows = (int)x;
	} else if (strcmp(key, "devices") == 0 || strcmp(key, "stacks") == 0) {
		char *dst = key[0] == 'd' ? b->devices : b->stacks;

		if (!list_value(dst, PROFILE_TEXT_MAX, value, ','))
			return failf(c, "'%s' must be names of text, at most "
					"%d bytes in all", key,
				     PROFILE_TEXT_MAX - 1);
	} else {
		return failf(c, "unknown key '%s' in [%s]", key, section);
	}
	return 1;
}

/* A stack section's 'devices' (a line of its list): 1, or failf's 0. */
static int on_devices(struct parse_ctx *c, struct profile_engine *e,
		      const char *value)
{
	if (!list_value(e->devices, sizeof(e->devices), value, ','))
		return failf(c, "'devices' must be catalog names of text, at "
				"most %zu bytes in all",
			     sizeof(e->devices) - 1);
	return 1;
}

static int on_value(void *user, const char *section, const char *key,
		    const char *value)
{
	struct parse_ctx *c = user;
	struct profile *p = c->p;

	if (c->failed)
		return 0;
	if (strcmp(section, "fit") == 0) {
		double x;

		if (strcmp(key, "measurements") == 0) {
			if (!parse_number(value, 0, 1e9, &x) || x != floor(x))
				return failf(c, "'%s' must be a count, "
						      "got '%s'", key, value);
			p->measurements = (int)x;
		} else if (strcmp(key, "sigma_log") == 0) {
			if (!parse_number(value, 0, 10, &x))
				return failf(c, "'%s' must be a number "
						      "from 0 to 10, got '%s'",
					     key, value);
			p->sigma_log = x;
		} else if (strcmp(key, "created") == 0) {
			if (!plain_text(value) ||
			    strlen(value) >= sizeof(p->created))
				return failf(c, "'%s' must be text of at most "
						"%zu bytes", key,
					     sizeof(p->created) - 1);
			snprintf(p->created, sizeof(p->created), "%s", value);
		} else if (strcmp(key, "from") == 0) {
			/* files, blank-separated, over lines of 'from' */
			if (!list_value(p->from, sizeof(p->from), value, ' '))
				return failf(c, "'%s' must be text of at most "
						"%zu bytes in all", key,
					     sizeof(p->from) - 1);
		} else {
			return failf(c, "unknown key '%s' in [%s]", key,
				     section);
		}
		return 1;
	}
	if (strncmp(section, "device ", 7) == 0) {
		struct profile_device *d = device_entry(c, section + 7);
		double x;

		if (!d)
			return failf(c, "[%.80s]: expected [device NAME] with a "
					"catalog name of text (at most %d "
					"devices)", section, PROFILE_DEVICES_MAX);
		if (!parse_number(value, 1e-3, 1.0, &x))
			return failf(c, "'%s' must be an efficiency "
					      "above 0.001, at most 1, got '%s'",
				     key, value);
		if (strcmp(key, "matmul_eff") == 0)
			d->matmul_eff = x;
		else if (strcmp(key, "fp8_matmul_eff") == 0)
			d->fp8_matmul_eff = x;
		else if (strcmp(key, "mem_eff") == 0)
			d->mem_eff = x;
		else if (strcmp(key, "intra_comm_eff") == 0)
			d->intra_comm_eff = x;
		else if (strcmp(key, "inter_comm_eff") == 0)
			d->inter_comm_eff = x;
		else
			return failf(c, "unknown key '%s' in [%s]", key,
				     section);
		return 1;
	}
	if (strncmp(section, "engine ", 7) == 0) {
		struct profile_engine *e = engine_entry(c, section + 7, false);
		double x;

		if (!e)
			return failf(c, "[%.80s]: expected [engine "
					"NAME@VERSION] as the stack table names "
					"them (at most %d engines)", section,
				     PROFILE_STACKS_MAX);
		if (strcmp(key, "devices") == 0)
			return on_devices(c, e, value);
		if (!parse_time(value, &x))
			return failf(c, "'%s' must be a duration from "
					      "0 to 1s, got '%s'", key, value);
		if (strcmp(key, "kernel_overhead") == 0) {
			e->kernel_overhead_s = x;
			e->has_kernel = true;
		} else if (strcmp(key, "host_request_overhead") == 0) {
			e->host_request_s = x;
			e->has_request = true;
		} else if (strcmp(key, "host_step_overhead") == 0) {
			e->host_step_s = x;
			e->has_step = true;
		} else if (strcmp(key, "framework_overhead") == 0) {
			e->framework_overhead_s = x;
			e->has_framework_oh = true;
		} else if (strcmp(key, "launch_overhead") == 0) {
			e->launch_overhead_s = x;
			e->has_launch_oh = true;
		} else {
			return failf(c, "unknown key '%s' in [%s]", key,
				     section);
		}
		return 1;
	}
	if (strncmp(section, "framework ", 10) == 0) {
		struct profile_engine *e = engine_entry(c, section + 10, true);
		double x;

		if (!e)
			return failf(c, "[%.80s]: expected [framework "
					"NAME@VERSION] as the stack table names "
					"them (at most %d engines and "
					"frameworks)", section,
				     PROFILE_STACKS_MAX);
		if (strcmp(key, "devices") == 0)
			return on_devices(c, e, value);
		if (strcmp(key, "production_efficiency") != 0)
			return failf(c, "unknown key '%s' in [%s]: expected "
					"production_efficiency or devices",
				     key, section);
		if (!parse_number(value, 1e-3, 1.0, &x))
			return failf(c, "'%s' must be an efficiency "
					      "above 0.001, at most 1, got '%s'",
				     key, value);
		e->production_efficiency = x;
		e->has_production = true;
		return 1;
	}
	if (strncmp(section, "interval ", 9) == 0)
		return on_band(c, section, key, value);
	return failf(c, "unknown section [%s]: expected [fit], "
			"[device NAME], [engine NAME@VERSION], [framework "
			"NAME@VERSION] or [interval CLASS]", section);
}

int profile_parse(const char *buf, size_t len, const char *name,
		  struct profile *p, struct diag *err)
{
	struct parse_ctx c;
	int r;

	memset(p, 0, sizeof(*p));
	memset(&c, 0, sizeof(c));
	c.p = p;
	c.err = err;
	c.name = name ? name : "profile";
	c.buf = buf;
	c.len = len;
	if (memchr(buf, '\0', len))
		return diag_set(err, c.name, 0, 0,
				"expected text, found a NUL byte");
	snprintf(p->file, sizeof(p->file), "%s", c.name);
	r = ini_parse_stream(read_line, &c, on_value, &c);
	if (c.failed)
		return -1;
	if (r == -2)
		return diag_set(err, c.name, 0, 0, "out of memory");
	if (r > 0)
		return diag_set(err, c.name, r, 0,
				"expected 'key = value', '[section]' or a "
				"comment");
	if (r < 0)
		return diag_set(err, c.name, 0, 0, "cannot parse");
	return 0;
}

int profile_load_file(const char *path, struct profile *p,
		      struct diag *err)
{
	char *buf;
	size_t len;
	int rc;

	if (readfile_all(path, READFILE_ANY, PROFILE_FILE_MAX, &buf, &len,
			 err) != 0)
		return -1;
	rc = profile_parse(buf, len, readfile_display_name(path), p, err);
	free(buf);
	return rc;
}

/* 'key = DURATION' when 'has' (exactly, in its unit); 1 when the write
   fails, else 0. */
static int write_time(FILE *out, const char *key, bool has, double s)
{
	char t[64];

	if (!has)
		return 0;
	units_format_exact(t, sizeof(t), s, UNIT_TIME);
	return fprintf(out, "%s = %s\n", key, t) < 0;
}

/*
 * Write 'key = list' over as many lines as it takes, split at 'sep'
 * (each line continues the last: list_value), each at most
 * PROFILE_ITEM_MAX bytes of value; an item longer than that (a file name
 * given to calibrate) is written alone on its line, shortened from the
 * left with "...".  Returns nonzero when a write fails.
 */
static int write_list(FILE *out, const char *key, const char *list, char sep)
{
	int bad = 0;

	if (!list[0])
		return fprintf(out, "%s = \n", key) < 0;
	while (*list) {
		size_t n = strlen(list), take = n;

		if (n > PROFILE_ITEM_MAX) {
			/* the last separator that keeps the line short */
			take = 0;
			for (size_t i = 0; i <= PROFILE_ITEM_MAX; i++)
				if (list[i] == sep)
					take = i;
			if (take == 0) {
				size_t item = strcspn(list, (char[]){ sep, 0 });

				bad |= fprintf(out, "%s = ...%s\n", key,
					       list + item -
						       (PROFILE_ITEM_MAX -
							3)) < 0;
				list += item + (list[item] == sep);
				continue;
			}
		}
		bad |= fprintf(out, "%s = %.*s\n", key, (int)take, list) < 0;
		list += take + (list[take] == sep);
	}
	return bad;
}

int profile_write(FILE *out, const struct profile *p, const char *comment)
{
	int bad = 0;

	if (comment)
		bad |= fputs(comment, out) == EOF;
	bad |= fprintf(out, "\n[fit]\nmeasurements = %d\nsigma_log = %.6g\n",
		       p->measurements, p->sigma_log) < 0;
	if (p->created[0])
		bad |= fprintf(out, "created = %s\n", p->created) < 0;
	if (p->from[0])
		bad |= write_list(out, "from", p->from, ' ');
	for (int i = 0; i < p->ndev; i++) {
		const struct profile_device *d = &p->dev[i];

		bad |= fprintf(out, "\n[device %s]\n", d->gpu) < 0;
		if (d->matmul_eff > 0.0)
			bad |= fprintf(out, "matmul_eff = %.6g\n",
				       d->matmul_eff) < 0;
		if (d->fp8_matmul_eff > 0.0)
			bad |= fprintf(out, "fp8_matmul_eff = %.6g\n",
				       d->fp8_matmul_eff) < 0;
		if (d->mem_eff > 0.0)
			bad |= fprintf(out, "mem_eff = %.6g\n", d->mem_eff) <
			       0;
		if (d->intra_comm_eff > 0.0)
			bad |= fprintf(out, "intra_comm_eff = %.6g\n",
				       d->intra_comm_eff) < 0;
		if (d->inter_comm_eff > 0.0)
			bad |= fprintf(out, "inter_comm_eff = %.6g\n",
				       d->inter_comm_eff) < 0;
	}
	for (int i = 0; i < p->neng; i++) {
		const struct profile_engine *e = &p->eng[i];

		bad |= fprintf(out, "\n[%s %s@%s]\n",
			       e->framework ? "framework" : "engine", e->name,
			       e->version) < 0;
		if (e->has_production)
			bad |= fprintf(out, "production_efficiency = %.6g\n",
				       e->production_efficiency) < 0;
		bad |= write_time(out, "kernel_overhead", e->has_kernel,
				  e->kernel_overhead_s);
		bad |= write_time(out, "host_request_overhead", e->has_request,
				  e->host_request_s);
		bad |= write_time(out, "host_step_overhead", e->has_step,
				  e->host_step_s);
		bad |= write_time(out, "framework_overhead",
				  e->has_framework_oh, e->framework_overhead_s);
		bad |= write_time(out, "launch_overhead", e->has_launch_oh,
				  e->launch_overhead_s);
		/* always, so that a section of no value reads back */
		bad |= write_list(out, "devices", e->devices, ',');
	}
	for (int i = 0; i < p->nband; i++) {
		const struct profile_band *b = &p->band[i];

		bad |= fprintf(out, "\n[interval %s]\nsigma_log = %.6g\n"
				    "rows = %d\n",
			       b->cls, b->sigma_log, b->rows) < 0;
		bad |= write_list(out, "devices", b->devices, ',');
		bad |= write_list(out, "stacks", b->stacks, ',');
	}
	return bad ? -1 : 0;
}

const struct profile_device *profile_device(const struct profile *p,
					    const char *gpu)
{
	for (int i = 0; i < p->ndev; i++)
		if (strcasecmp(p->dev[i].gpu, gpu) == 0)
			return &p->dev[i];
	return NULL;
}

const struct profile_band *profile_band(const struct profile *p,
					const char *cls)
{
	for (int i = 0; i < p->nband; i++)
		if (strcmp(p->band[i].cls, cls) == 0)
			return &p->band[i];
	return NULL;
}

/* '*dst' = 'v' where the profile gives it (v > 0); whether it did. */
static bool take(double *dst, double v)
{
	if (!(v > 0.0))
		return false;
	*dst = v;
	return true;
}

bool profile_apply_device(const struct profile *p, struct gpu_spec *g)
{
	const struct profile_device *d = profile_device(p, g->name);
	bool any = false;

	if (!d)
		return false;
	any |= take(&g->matmul_eff, d->matmul_eff);
	any |= take(&g->fp8_matmul_eff, d->fp8_matmul_eff);
	any |= take(&g->mem_eff, d->mem_eff);
	any |= take(&g->intra_comm_eff, d->intra_comm_eff);
	any |= take(&g->inter_comm_eff, d->inter_comm_eff);
	return any;
}

/* The profile's engine (or, 'framework', framework) section of 'name'
   (any case, empty: generic) at 'version', or NULL. */
static const struct profile_engine *stack_find(const struct profile *p,
					       bool framework,
					       const char *name,
					       const char *version)
{
	if (!name[0])
		name = "generic";
	for (int i = 0; i < p->neng; i++) {
		const struct profile_engine *e = &p->eng[i];

		if (e->framework == framework &&
		    strcasecmp(e->name, name) == 0 &&
		    strcmp(e->version, version) == 0)
			return e;
	}
	return NULL;
}

const struct profile_engine *profile_apply_engine(const struct profile *p,
						  struct workload *wl)
{
	struct inference_spec *is = &wl->inference;
	const struct profile_engine *e =
		stack_find(p, false, is->engine, is->engine_version);
	int kk = workload_key_find("inference", "kernel_overhead");
	int kr = workload_key_find("inference", "host_request_overhead");
	int ks = workload_key_find("inference", "host_step_overhead");
	int kf = workload_key_find("inference", "framework_overhead");
	int kl = workload_key_find("inference", "launch_overhead");

	if (!e)
		return NULL;
	if (e->has_kernel && !workload_key_given(wl, (size_t)kk))
		is->kernel_overhead_s = e->kernel_overhead_s;
	if (e->has_request && !workload_key_given(wl, (size_t)kr))
		is->host_request_s = e->host_request_s;
	if (e->has_step && !workload_key_given(wl, (size_t)ks))
		is->host_step_s = e->host_step_s;
	/* a per-sample model's own host times (a transformer has none of
	   these keys) */
	if (wl->model.kind != MODEL_TRANSFORMER) {
		if (e->has_framework_oh && !workload_key_given(wl, (size_t)kf))
			is->framework_overhead_s = e->framework_overhead_s;
		if (e->has_launch_oh && !workload_key_given(wl, (size_t)kl))
			is->launch_overhead_s = e->launch_overhead_s;
	}
	return e;
}

const struct profile_engine *profile_apply_framework(const struct profile *p,
						     struct workload *wl)
{
	struct training_spec *t = &wl->training;
	const struct profile_engine *e =
		stack_find(p, true, t->framework, t->framework_version);
	int kp = workload_key_find("training", "production_efficiency");

	if (e && e->has_production && !workload_key_given(wl, (size_t)kp))
		t->production_efficiency = e->production_efficiency;
	return e;
}
