/* plot.c - chart data, the .dat writer, quoting and the gnuplot driver;
   the scripts are in plot_script.c.  See plot.h. */
#include "plot.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>

#include "tempfile.h"

extern char **environ;


static const char *const cols_scaling[] = { "gpus", "time_days",
					    "ideal_days", "goodput" };
static const char *const cols_cost_time[] = { "time_days", "cost_usd",
					      "gpus" };
static const char *const cols_memory[] = { "row", "weights_gb",
					   "gradients_gb", "optimizer_gb",
					   "activations_gb", "reserve_gb",
					   "capacity_gb", "optimizer_host_gb" };
static const char *const cols_roofline[] = { "phase", "flop_per_byte",
					     "tflops" };
static const char *const cols_latency[] = { "batch", "tokens_per_s_per_gpu",
					    "tpot_ms", "ttft_ms" };
static const char *const cols_replicas[] = { "qps", "gpus", "replicas",
					     "tp",
					     "output_tokens_per_s_per_mw" };
static const char *const cols_energy[] = { "row", "train_mwh",
					   "j_per_token",
					   "j_per_token_capped" };
static const char *const cols_cache[] = { "kv_gb", "host_gb",
					  "memory_fraction", "hit_rate",
					  "host_hit_rate", "ttft_ms",
					  "capacity_qps", "offered_qps",
					  "overloaded" };

/* The columns of the charts of a model costed per sample, where they
   differ (NULL: the kind's own). */
static const char *const cols_scaling_sample[] = {
	"gpus", "samples_per_s_per_gpu", "ideal_samples_per_s_per_gpu",
	"goodput"
};
static const char *const cols_cost_time_sample[] = {
	"time_days", "usd_per_million_samples", "gpus"
};
static const char *const cols_latency_sample[] = {
	"batch", "samples_per_s_per_gpu", "latency_ms"
};
static const char *const cols_energy_sample[] = {
	"row", "train_j_per_million_samples", "serve_j_per_million_samples"
};

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
	const char *const *cols;
	int ncols;
	const char *summary;
} sample_cols[PLOT_KIND_COUNT] = {
	[PLOT_SCALING] = { cols_scaling_sample,
			   (int)N_ELEMS(cols_scaling_sample),
			   "training samples/s per GPU against GPUs" },
	[PLOT_COST_TIME] = { cols_cost_time_sample,
			     (int)N_ELEMS(cols_cost_time_sample),
			     "cost per million samples against time to train, "
			     "Pareto front" },
	[PLOT_MEMORY] = { NULL, 0, NULL },
	[PLOT_ROOFLINE] = { NULL, 0, NULL },
	[PLOT_LATENCY] = { cols_latency_sample,
			   (int)N_ELEMS(cols_latency_sample),
			   "latency of a batch against the batch and the "
			   "samples/s per GPU it serves" },
	[PLOT_REPLICAS] = { NULL, 0,
			    "GPUs needed against a rate of samples/s" },
	[PLOT_ENERGY] = { cols_energy_sample,
			  (int)N_ELEMS(cols_energy_sample),
			  "energy per million samples trained and served" },
	[PLOT_CACHE] = { NULL, 0, NULL },
};

static const struct plot_kind_info {
	const char *name;
	const char *summary;
	const char *const *cols;
	int ncols;
} kinds[PLOT_KIND_COUNT] = {
	[PLOT_SCALING] = { "scaling", "time to train against GPUs",
			   cols_scaling, (int)N_ELEMS(cols_scaling) },
	[PLOT_COST_TIME] = { "cost-time",
			     "cost against time to train, Pareto front",
			     cols_cost_time, (int)N_ELEMS(cols_cost_time) },
	[PLOT_MEMORY] = { "memory", "training memory per GPU, stacked",
			  cols_memory, (int)N_ELEMS(cols_memory) },
	[PLOT_ROOFLINE] = { "roofline",
			    "attainable FLOP/s against arithmetic intensity",
			    cols_roofline, (int)N_ELEMS(cols_roofline) },
	[PLOT_LATENCY] = { "latency-throughput",
			   "TPOT and TTFT against throughput as batch or load grows",
			   cols_latency, (int)N_ELEMS(cols_latency) },
	[PLOT_REPLICAS] = { "replicas", "GPUs needed against request rate",
			    cols_replicas, (int)N_ELEMS(cols_replicas) },
	[PLOT_ENERGY] = { "energy",
			  "energy to train and per token, with a power cap",
			  cols_energy, (int)N_ELEMS(cols_energy) },
	[PLOT_CACHE] = { "cache",
			 "prefix-cache hits, TTFT and capacity against the "
			 "KV-cache memory or the host tier",
			 cols_cache, (int)N_ELEMS(cols_cache) },
};

const char *plot_kind_name(enum plot_kind k)
{
	return (unsigned)k < PLOT_KIND_COUNT ? kinds[k].name : NULL;
}

const char *plot_kind_summary(enum plot_kind k)
{
	return (unsigned)k < PLOT_KIND_COUNT ? kinds[k].summary : NULL;
}

const char *plot_kind_summary_for(enum plot_kind k, bool per_sample)
{
	if ((unsigned)k >= PLOT_KIND_COUNT)
		return NULL;
	return per_sample && sample_cols[k].summary ? sample_cols[k].summary :
						      kinds[k].summary;
}

int plot_kind_parse(const char *name, enum plot_kind *out)
{
	for (int k = 0; k < PLOT_KIND_COUNT; k++) {
		if (strcmp(kinds[k].name, name) == 0) {
			*out = (enum plot_kind)k;
			return 0;
		}
	}
	return -1;
}

int plot_kind_columns(enum plot_kind k, const char *const **names)
{
	if ((unsigned)k >= PLOT_KIND_COUNT)
		return 0;
	*names = kinds[k].cols;
	return kinds[k].ncols;
}

int plot_format_from_path(const char *path, enum plot_format *out)
{
	const char *dot = strrchr(path, '.');
	const char *slash = strrchr(path, '/');

	if (!dot || dot == path || (slash && dot < slash) ||
	    (slash && dot == slash + 1))
		return -1;
	if (strcasecmp(dot, ".png") == 0)
		*out = PLOT_PNG;
	else if (strcasecmp(dot, ".svg") == 0)
		*out = PLOT_SVG;
	else
		return -1;
	return 0;
}

/* A decimal from 100 to 10000 at 's', ending at '*end'. */
static int parse_px(const char *s, char **end, int *out)
{
	long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtol(s, end, 10);
	if (errno || *end == s || v < 100 || v > 10000)
		return -1;
	*out = (int)v;
	return 0;
}

int plot_size_parse(const char *text, int *width_px, int *height_px)
{
	char *end;
	int w, h;

	if (parse_px(text, &end, &w) != 0 || *end != 'x')
		return -1;
	if (parse_px(end + 1, &end, &h) != 0 || *end != '\0')
		return -1;
	*width_px = w;
	*height_px = h;
	return 0;
}

struct plot_chart *plot_chart_new(enum plot_kind k)
{
	struct plot_chart *c;

	if ((unsigned)k >= PLOT_KIND_COUNT)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->kind = k;
	c->ncols = kinds[k].ncols;
	return c;
}

void plot_chart_set_per_sample(struct plot_chart *c)
{
	c->per_sample = true;
	if (sample_cols[c->kind].cols)
		c->ncols = sample_cols[c->kind].ncols;
}

void plot_chart_free(struct plot_chart *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nseries; i++)
		free(c->series[i].v);
	free(c->series);
	free(c);
}

struct plot_series *plot_chart_add_series(struct plot_chart *c,
					  const char *label,
					  enum plot_role role, int color)
{
	struct plot_series *s;

	if (c->nseries == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 8;
		struct plot_series *p =
			realloc(c->series, cap * sizeof(*p));

		if (!p)
			return NULL;
		c->series = p;
		c->cap = cap;
	}
	s = &c->series[c->nseries++];
	memset(s, 0, sizeof(*s));
	snprintf(s->label, sizeof(s->label), "%s", label);
	s->role = role;
	s->color = color;
	return s;
}

int plot_series_add_row(struct plot_chart *c, struct plot_series *s,
			const double *v)
{
	size_t n = (size_t)c->ncols;

	if (s->rows == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		double *p = realloc(s->v, cap * n * sizeof(*p));

		if (!p)
			return -1;
		s->v = p;
		s->cap = cap;
	}
	memcpy(s->v + s->rows * n, v, n * sizeof(*v));
	s->rows++;
	return 0;
}

int plot_chart_add_cat(struct plot_chart *c, const char *label)
{
	if (c->ncats == PLOT_MAX_CATS)
		return -1;
	snprintf(c->cats[c->ncats], PLOT_LABEL_MAX, "%s", label);
	return c->ncats++;
}

bool plot_chart_has_data(const struct plot_chart *c)
{
	for (size_t i = 0; i < c->nseries; i++)
		if (c->series[i].rows > 0)
			return true;
	return false;
}

/* Okabe and Ito's colour-blind safe palette, without yellow (too pale
   on white) and black (the Pareto front, limits). */
static const char *const device_rgb[] = { "#0072B2", "#D55E00", "#009E73",
					  "#E69F00", "#56B4E9", "#CC79A7" };
static const int device_pt[] = { 7, 5, 9, 11, 13, 15 };

/* Devices with a style of their own: those charts show by default and
   those often compared with them, in distinct colours or shapes. */
static const struct {
	const char *name;
	int rgb, pt;
} device_styles[] = {
	{ "H100-SXM", 0, 0 },	   { "MI300X", 1, 0 },
	{ "B200", 2, 0 },	   { "A100-SXM-80GB", 3, 0 },
	{ "H200-SXM", 4, 0 },	   { "GB200", 5, 0 },
	{ "B300", 5, 4 },	   { "MI355X", 3, 4 },
	{ "MI325X", 1, 1 },	   { "Gaudi3", 5, 1 },
	{ "H100-PCIe", 0, 1 },	   { "A100-SXM-40GB", 3, 1 },
	{ "L40S", 2, 1 },	   { "H200-NVL", 4, 1 },
	{ "GH200", 2, 2 },	   { "H800", 0, 2 },
	{ "TPU-v5p", 3, 2 },	   { "MI250X", 1, 2 },
	/* inference cards that serve vision and recommender models */
	{ "L4", 5, 2 },		   { "T4", 4, 2 },
	{ "A10", 0, 3 },	   { "A30", 1, 3 },
	{ "L40", 2, 3 },	   { "A40", 3, 3 },
	{ "V100-SXM-32GB", 4, 3 }, { "H20", 5, 3 },
};

void plot_device_style(const char *name, char rgb[8], int *pt)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	for (size_t i = 0; i < N_ELEMS(device_styles); i++)
		if (strcmp(device_styles[i].name, name) == 0) {
			snprintf(rgb, 8, "%s", device_rgb[device_styles[i].rgb]);
			*pt = device_pt[device_styles[i].pt];
			return;
		}
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 16777619u;
	snprintf(rgb, 8, "%s", device_rgb[h % N_ELEMS(device_rgb)]);
	*pt = device_pt[(h / N_ELEMS(device_rgb)) % N_ELEMS(device_pt)];
}

/* Rank of device 'name' for keeping its colour in a crowded chart: its
   place in device_styles (the common devices first), others last. */
static size_t colour_rank(const char *name)
{
	for (size_t i = 0; i < N_ELEMS(device_styles); i++)
		if (strcmp(device_styles[i].name, name) == 0)
			return i;
	return N_ELEMS(device_styles);
}

#define COLOUR_ENTRIES_MAX 256

void plot_chart_distinct_colours(struct plot_chart *c)
{
	struct {
		const char *name;
		char *rgb;
		size_t rank;
		bool done;
	} e[COLOUR_ENTRIES_MAX];
	size_t n = 0;

	for (size_t k = 0; k < c->nseries; k++) {
		struct plot_series *s = &c->series[k];

		if (s->role == PLOT_ROLE_FRONT || !s->rgb[0])
			continue;
		if (n == COLOUR_ENTRIES_MAX)
			return;
		e[n].name = s->label;
		e[n++].rgb = s->rgb;
	}
	for (int k = 0; k < c->ncats && k < PLOT_MAX_CATS; k++) {
		if (!c->cat_rgb[k][0])
			continue;
		if (n == COLOUR_ENTRIES_MAX)
			return;
		e[n].name = c->cats[k];
		e[n++].rgb = c->cat_rgb[k];
	}
	for (size_t i = 0; i < n; i++) {
		e[i].rank = colour_rank(e[i].name);
		e[i].done = false;
	}
	/* the devices in rank order (then chart order), each keeping its
	   colour unless a device placed before it has it */
	for (size_t placed = 0; placed < n;) {
		size_t i = n;
		bool clash = false;

		for (size_t k = 0; k < n; k++)
			if (!e[k].done && (i == n || e[k].rank < e[i].rank))
				i = k;
		for (size_t k = 0; k < n && !clash; k++)
			clash = e[k].done && strcmp(e[k].name, e[i].name) != 0 &&
				strcmp(e[k].rgb, e[i].rgb) == 0;
		for (size_t p = 0; clash && p < N_ELEMS(device_rgb); p++) {
			bool used = false;

			/* a colour no other device of the chart has */
			for (size_t k = 0; k < n && !used; k++)
				used = strcmp(e[k].name, e[i].name) != 0 &&
				       strcmp(e[k].rgb, device_rgb[p]) == 0;
			if (!used) {
				snprintf(e[i].rgb, 8, "%s", device_rgb[p]);
				break;
			}
		}
		/* every entry of this device takes that colour */
		for (size_t k = 0; k < n; k++)
			if (!e[k].done && strcmp(e[k].name, e[i].name) == 0) {
				if (k != i)
					memcpy(e[k].rgb, e[i].rgb, 8);
				e[k].done = true;
				placed++;
			}
	}
}

void plot_series_set_device(struct plot_series *s, const char *name)
{
	plot_device_style(name, s->rgb, &s->pt);
}

struct plot_series *plot_chart_add_device(struct plot_chart *c,
					  const char *label,
					  const char *device, int color)
{
	struct plot_series *s =
		plot_chart_add_series(c, label, PLOT_ROLE_DEVICE, color);

	if (s)
		plot_series_set_device(s, device);
	return s;
}

void plot_chart_add_label(struct plot_chart *c, double x, double y,
			  const char *text)
{
	if (c->nlabels >= PLOT_MAX_LABELS)
		return;
	c->labels[c->nlabels].x = x;
	c->labels[c->nlabels].y = y;
	snprintf(c->labels[c->nlabels].text, PLOT_LABEL_MAX, "%s", text);
	c->nlabels++;
}

int plot_series_block(const struct plot_chart *c, size_t i)
{
	int b = 0;

	if (c->series[i].rows == 0)
		return -1;
	for (size_t j = 0; j < i; j++)
		b += c->series[j].rows > 0;
	return b;
}

/* Write 's' with control characters as spaces ('quote': also double
   single quotes). */
static void put_text(FILE *out, const char *s, bool quote)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p < 0x20 || *p == 0x7f)
			fputc(' ', out);
		else if (quote && *p == '\'')
			fputs("''", out);
		else
			fputc(*p, out);
	}
}

void plot_quote(FILE *out, const char *s)
{
	fputc('\'', out);
	put_text(out, s, true);
	fputc('\'', out);
}

void plot_quote_path(FILE *out, const char *path)
{
	fputc('\'', out);
	if (path[0] != '/')
		fputs("./", out);
	put_text(out, path, true);
	fputc('\'', out);
}

static void put_num(FILE *out, double v)
{
	if (isfinite(v))
		fprintf(out, "%.6g", v);
	else
		fputs("NaN", out);
}

/* The name of column j: the latency chart under load has the offered
   rate where the batch sweep has the batch. */
static const char *col_name(const struct plot_chart *c, int j)
{
	if (c->kind == PLOT_LATENCY && c->load[0] && j == 0)
		return "qps";
	if (c->per_sample && sample_cols[c->kind].cols)
		return sample_cols[c->kind].cols[j];
	return kinds[c->kind].cols[j];
}

int plot_write_data(FILE *out, const struct plot_chart *c)
{
	fprintf(out, "# capplan plot %s: ", kinds[c->kind].name);
	plot_quote(out, c->title);
	fputs("\n# columns:", out);
	for (int j = 0; j < c->ncols; j++)
		fprintf(out, " %s", col_name(c, j));
	fputc('\n', out);
	for (int i = 0; i < c->ncats; i++) {
		fprintf(out, "# row %d: ", i);
		plot_quote(out, c->cats[i]);
		fputc('\n', out);
	}
	for (size_t i = 0; i < c->nseries; i++) {
		const struct plot_series *s = &c->series[i];

		if (s->rows == 0)
			continue;
		fprintf(out, "\n\n# index %d: ", plot_series_block(c, i));
		plot_quote(out, s->label);
		fputs("\n#", out);
		for (int j = 0; j < c->ncols; j++)
			fprintf(out, " %s", col_name(c, j));
		fputc('\n', out);
		for (size_t r = 0; r < s->rows; r++) {
			for (int j = 0; j < c->ncols; j++) {
				if (j)
					fputc(' ', out);
				put_num(out, s->v[r * (size_t)c->ncols +
						  (size_t)j]);
			}
			fputc('\n', out);
		}
	}
	return ferror(out) ? -1 : 0;
}

/* Seconds since an arbitrary start, monotonic. */
static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Wait for 'pid' at most 'timeout_s' seconds; 0 with its status, 1 when
   it was killed for running too long, -1 on a wait error. */
static int wait_limited(pid_t pid, double timeout_s, int *status)
{
	double start = now_s();
	long nap_ns = 1000000; /* 1 ms, growing to 100 ms */

	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);
		struct timespec nap;

		if (r == pid)
			return 0;
		if (r < 0 && errno != EINTR)
			return -1;
		if (now_s() - start >= timeout_s) {
			kill(pid, SIGKILL);
			while (waitpid(pid, status, 0) < 0 && errno == EINTR)
				;
			return 1;
		}
		nap.tv_sec = 0;
		nap.tv_nsec = nap_ns;
		nanosleep(&nap, NULL);
		if (nap_ns < 100000000)
			nap_ns *= 2;
	}
}

enum plot_run plot_run_gnuplot(const char *script, double timeout_s,
			       char *why, size_t n)
{
	posix_spawn_file_actions_t fa;
	char *argv[3], *arg = NULL;
	pid_t pid;
	int rc, status, waited;

	/* a name that starts with '-' would be an option: './-x.gp' */
	if (script[0] == '-') {
		size_t len = strlen(script) + 3;

		arg = malloc(len);
		if (!arg) {
			snprintf(why, n, "cannot start gnuplot: %s",
				 strerror(ENOMEM));
			return PLOT_RUN_FAILED;
		}
		snprintf(arg, len, "./%s", script);
	}
	argv[0] = (char *)"gnuplot";
	argv[1] = arg ? arg : (char *)script;
	argv[2] = NULL;
	rc = posix_spawn_file_actions_init(&fa);
	if (rc == 0)
		rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null",
						      O_RDONLY, 0);
	if (rc != 0) {
		free(arg);
		snprintf(why, n, "cannot start gnuplot: %s", strerror(rc));
		return PLOT_RUN_FAILED;
	}
	rc = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	free(arg);
	if (rc == ENOENT)
		return PLOT_RUN_MISSING;
	if (rc != 0) {
		snprintf(why, n, "cannot start gnuplot: %s", strerror(rc));
		return PLOT_RUN_FAILED;
	}
	/* a fatal signal to us stops it before our files are removed */
	tempfile_watch_child(pid);
	waited = wait_limited(pid, timeout_s, &status);
	tempfile_watch_child(0);
	if (waited < 0) {
		snprintf(why, n, "cannot wait for gnuplot: %s",
			 strerror(errno));
		return PLOT_RUN_FAILED;
	}
	if (waited > 0) {
		snprintf(why, n, "gnuplot did not finish within %g s and was "
				 "stopped", timeout_s);
		return PLOT_RUN_FAILED;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return PLOT_RUN_OK;
	/* a libc that reports a failed exec as the child's status 127 */
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return PLOT_RUN_MISSING;
	if (WIFEXITED(status))
		snprintf(why, n, "gnuplot failed with exit status %d",
			 WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(why, n, "gnuplot was killed by signal %d",
			 WTERMSIG(status));
	else
		snprintf(why, n, "gnuplot failed");
	return PLOT_RUN_FAILED;
}
