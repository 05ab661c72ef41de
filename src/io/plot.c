/* plot.c - chart data, .dat and gnuplot script writers, and the gnuplot
   driver; see plot.h. */
#include "plot.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>

#include "tempfile.h"

extern char **environ;

static void script_scaling(FILE *out, const struct plot_chart *c);
static void script_cost_time(FILE *out, const struct plot_chart *c);
static void script_memory(FILE *out, const struct plot_chart *c);
static void script_roofline(FILE *out, const struct plot_chart *c);
static void script_latency(FILE *out, const struct plot_chart *c);
static void script_replicas(FILE *out, const struct plot_chart *c);
static void script_energy(FILE *out, const struct plot_chart *c);

static const char *const cols_scaling[] = { "gpus", "time_days",
					    "ideal_days", "goodput" };
static const char *const cols_cost_time[] = { "time_days", "cost_usd",
					      "gpus" };
static const char *const cols_memory[] = { "row", "weights_gb",
					   "gradients_gb", "optimizer_gb",
					   "activations_gb", "reserve_gb",
					   "capacity_gb" };
static const char *const cols_roofline[] = { "phase", "flop_per_byte",
					     "tflops" };
static const char *const cols_latency[] = { "batch", "tokens_per_s_per_gpu",
					    "tpot_ms", "ttft_ms" };
static const char *const cols_replicas[] = { "qps", "gpus", "replicas",
					     "tp" };
static const char *const cols_energy[] = { "row", "train_mwh",
					   "j_per_token",
					   "j_per_token_capped" };

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

static const struct plot_kind_info {
	const char *name;
	const char *summary;
	const char *const *cols;
	int ncols;
	void (*script)(FILE *out, const struct plot_chart *c);
} kinds[PLOT_KIND_COUNT] = {
	[PLOT_SCALING] = { "scaling", "time to train against GPUs",
			   cols_scaling, (int)N_ELEMS(cols_scaling),
			   script_scaling },
	[PLOT_COST_TIME] = { "cost-time",
			     "cost against time to train, Pareto front",
			     cols_cost_time, (int)N_ELEMS(cols_cost_time),
			     script_cost_time },
	[PLOT_MEMORY] = { "memory", "training memory per GPU, stacked",
			  cols_memory, (int)N_ELEMS(cols_memory),
			  script_memory },
	[PLOT_ROOFLINE] = { "roofline",
			    "attainable FLOP/s against arithmetic intensity",
			    cols_roofline, (int)N_ELEMS(cols_roofline),
			    script_roofline },
	[PLOT_LATENCY] = { "latency-throughput",
			   "TPOT and TTFT against throughput as batch or load grows",
			   cols_latency, (int)N_ELEMS(cols_latency),
			   script_latency },
	[PLOT_REPLICAS] = { "replicas", "GPUs needed against request rate",
			    cols_replicas, (int)N_ELEMS(cols_replicas),
			    script_replicas },
	[PLOT_ENERGY] = { "energy",
			  "energy to train and per token, with a power cap",
			  cols_energy, (int)N_ELEMS(cols_energy),
			  script_energy },
};

const char *plot_kind_name(enum plot_kind k)
{
	return (unsigned)k < PLOT_KIND_COUNT ? kinds[k].name : NULL;
}

const char *plot_kind_summary(enum plot_kind k)
{
	return (unsigned)k < PLOT_KIND_COUNT ? kinds[k].summary : NULL;
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

/* The gnuplot 'index' of series 'i': series without rows get no block. */
static int block_of(const struct plot_chart *c, size_t i)
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
		fprintf(out, "\n\n# index %d: ", block_of(c, i));
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

/* Start the next clause of a plot command: "plot " or ", \" and a new
   line. */
static void clause(FILE *out, int *n)
{
	fputs(*n == 0 ? "plot " : ", \\\n     ", out);
	(*n)++;
}

static void set_title(FILE *out, const struct plot_chart *c)
{
	fputs("set title ", out);
	plot_quote(out, c->title);
	fputc('\n', out);
}

/* xtics naming the categories of a bar chart. */
static void set_cat_tics(FILE *out, const struct plot_chart *c)
{
	fputs("set xtics nomirror rotate by -30\n", out);
	fputs("set xtics (", out);
	for (int i = 0; i < c->ncats; i++) {
		fputs(i ? ", " : "", out);
		plot_quote(out, c->cats[i]);
		fprintf(out, " %d", i);
	}
	fputs(")\n", out);
	fprintf(out, "set xrange [-0.6:%g]\n", c->ncats - 0.4);
}

static void script_scaling(FILE *out, const struct plot_chart *c)
{
	int n = 0;

	set_title(out, c);
	fputs("set xlabel 'GPUs'\n"
	      "set ylabel 'expected time to train (days), failures and "
	      "restarts included'\n"
	      "set logscale x 2\n"
	      "set logscale y 10\n"
	      "set key top right\n",
	      out);
	for (size_t i = 0; i < c->nseries; i++) {
		const struct plot_series *s = &c->series[i];
		int b = block_of(c, i);

		if (b < 0)
			continue;
		clause(out, &n);
		fprintf(out, "data index %d using 1:2 with linespoints "
			     "lc %d lw 2 pt 7 title ", b, s->color);
		plot_quote(out, s->label);
		clause(out, &n);
		fprintf(out, "data index %d using 1:3 with lines lc %d dt 2 "
			     "notitle", b, s->color);
	}
	clause(out, &n);
	fputs("keyentry with lines lc 'black' dt 2 "
	      "title 'ideal linear scaling'\n", out);
}

static void script_cost_time(FILE *out, const struct plot_chart *c)
{
	int n = 0;

	set_title(out, c);
	fputs("set xlabel 'time to train (days)'\n"
	      "set ylabel 'cost (USD)'\n"
	      "set logscale xy 10\n"
	      "set format y '$%.0s%c'\n"
	      "set key top right\n",
	      out);
	for (size_t i = 0; i < c->nseries; i++) {
		const struct plot_series *s = &c->series[i];
		int b = block_of(c, i);

		if (b < 0)
			continue;
		clause(out, &n);
		if (s->role == PLOT_ROLE_FRONT) {
			fprintf(out, "data index %d using 1:2 with lines "
				     "lc 'black' lw 2 title ", b);
			plot_quote(out, s->label);
			clause(out, &n);
			fprintf(out, "data index %d using 1:2:"
				     "(sprintf('%%d', $3)) with labels "
				     "left offset 0.5,0.5 font ',7' notitle",
				b);
		} else {
			fprintf(out, "data index %d using 1:2 with points "
				     "lc %d pt 7 ps 1.2 title ", b, s->color);
			plot_quote(out, s->label);
		}
	}
	fputc('\n', out);
}

static void script_memory(FILE *out, const struct plot_chart *c)
{
	static const char *const layers[] = { "weights", "gradients",
					      "optimizer states",
					      "activations",
					      "framework reserve" };
	int n = 0, b = c->nseries ? block_of(c, 0) : -1;

	set_title(out, c);
	fputs("set style data histograms\n"
	      "set style histogram rowstacked\n"
	      "set style fill solid 0.85 border -1\n"
	      "set boxwidth 0.6 relative\n"
	      "set ylabel 'training memory per GPU (GB)'\n"
	      "set yrange [0:*]\n"
	      "set key outside right top\n",
	      out);
	set_cat_tics(out, c);
	if (b < 0)
		b = 0;
	for (int j = 0; j < (int)N_ELEMS(layers); j++) {
		clause(out, &n);
		fprintf(out, "data index %d using %d lc %d title ", b, j + 2,
			j + 1);
		plot_quote(out, layers[j]);
	}
	clause(out, &n);
	fprintf(out, "data index %d using ($1-0.4):7:(0.8):(0) with vectors "
		     "nohead lw 4 lc 'red' title 'capacity'\n", b);
}

static void script_roofline(FILE *out, const struct plot_chart *c)
{
	static const struct {
		int pt;
		const char *name;
	} phases[] = { [PLOT_PHASE_TRAINING] = { 5, "training" },
		       [PLOT_PHASE_PREFILL] = { 7, "prefill" },
		       [PLOT_PHASE_DECODE] = { 9, "decode" } };
	int n = 0;

	set_title(out, c);
	fputs("set xlabel 'arithmetic intensity (FLOP/byte)'\n"
	      "set ylabel 'attainable throughput per GPU (TFLOP/s)'\n"
	      "set logscale xy 10\n"
	      "set key left top\n",
	      out);
	for (size_t i = 0; i < c->nseries; i++) {
		const struct plot_series *s = &c->series[i];
		int b = block_of(c, i);

		if (b < 0)
			continue;
		if (s->role != PLOT_ROLE_POINTS) {
			clause(out, &n);
			fprintf(out, "data index %d using 2:3 with lines "
				     "lc %d lw 2 title ", b, s->color);
			plot_quote(out, s->label);
			continue;
		}
		for (int p = 0; p < (int)N_ELEMS(phases); p++) {
			clause(out, &n);
			fprintf(out, "data index %d using 2:($1==%d?$3:NaN) "
				     "with points lc %d pt %d ps 1.6 notitle",
				b, p, s->color, phases[p].pt);
		}
	}
	for (int p = 0; p < (int)N_ELEMS(phases); p++) {
		clause(out, &n);
		fprintf(out, "keyentry with points lc 'black' pt %d ps 1.6 "
			     "title ", phases[p].pt);
		plot_quote(out, phases[p].name);
	}
	fputc('\n', out);
}

/* One panel of the latency chart: column 'col' of every device, and an
   SLO line at 'slo_ms' when positive. */
static void latency_panel(FILE *out, const struct plot_chart *c, int col,
			  double slo_ms, const char *what)
{
	int n = 0;

	for (size_t i = 0; i < c->nseries; i++) {
		const struct plot_series *s = &c->series[i];
		int b = block_of(c, i);

		if (b < 0)
			continue;
		clause(out, &n);
		fprintf(out, "data index %d using 2:%d with linespoints "
			     "lc %d lw 2 pt 7 title ", b, col, s->color);
		plot_quote(out, s->label);
	}
	if (slo_ms > 0.0 && isfinite(slo_ms)) {
		clause(out, &n);
		fprintf(out, "%.6g with lines lc 'black' dt 3 lw 2 "
			     "title '%s SLO (%.6g ms)'", slo_ms, what, slo_ms);
	}
	fputc('\n', out);
}

static void script_latency(FILE *out, const struct plot_chart *c)
{
	char t[PLOT_LABEL_MAX + 32];

	fputs("set multiplot layout 1,2 title ", out);
	plot_quote(out, c->title);
	fputs("\n"
	      "set xlabel 'output throughput per GPU (tokens/s)'\n"
	      "set logscale xy 10\n"
	      "set key top left\n",
	      out);
	if (c->load[0]) {
		/* the simulated load: the rate grows to capacity */
		snprintf(t, sizeof(t), "time per output token (%s)", c->load);
		fputs("set title ", out);
		plot_quote(out, t);
		fputs("\nset ylabel 'TPOT (ms)'\n", out);
	} else {
		fputs("set title 'time per output token (batch 1, 2, 4, "
		      "...)'\nset ylabel 'TPOT (ms)'\n", out);
	}
	latency_panel(out, c, 3, c->tpot_slo_ms, "TPOT");
	if (c->load[0]) {
		snprintf(t, sizeof(t), "time to first token (%s)", c->load);
		fputs("set title ", out);
		plot_quote(out, t);
		fputs("\nset ylabel 'TTFT (ms)'\n", out);
	} else {
		fputs("set title 'time to first token (batch 1, 2, 4, "
		      "...)'\nset ylabel 'TTFT (ms)'\n", out);
	}
	latency_panel(out, c, 4, c->ttft_slo_ms, "TTFT");
	fputs("unset multiplot\n", out);
}

static void script_replicas(FILE *out, const struct plot_chart *c)
{
	int n = 0;

	set_title(out, c);
	fputs("set xlabel 'request rate (requests/s)'\n"
	      "set ylabel 'GPUs needed (replicas x tensor-parallel size)'\n"
	      "set logscale xy 10\n"
	      "set key top left title ",
	      out);
	plot_quote(out, c->note);
	fputc('\n', out);
	for (size_t i = 0; i < c->nseries; i++) {
		const struct plot_series *s = &c->series[i];
		int b = block_of(c, i);

		if (b < 0)
			continue;
		clause(out, &n);
		fprintf(out, "data index %d using 1:2 with linespoints "
			     "lc %d lw 2 pt 7 title ", b, s->color);
		plot_quote(out, s->label);
	}
	fputc('\n', out);
}

/* Whether column 'col' of series 0 has a number in some row: gnuplot
   refuses a plot whose every point is missing. */
static bool column_has_data(const struct plot_chart *c, int col)
{
	const struct plot_series *s = c->nseries ? &c->series[0] : NULL;

	if (!s)
		return false;
	for (size_t r = 0; r < s->rows; r++)
		if (isfinite(s->v[r * (size_t)c->ncols + (size_t)col]))
			return true;
	return false;
}

static void script_energy(FILE *out, const struct plot_chart *c)
{
	int b = c->nseries ? block_of(c, 0) : -1;
	/* a panel without a number (a model that trains nowhere, or serves
	   nowhere, at this size) is left out, not drawn empty */
	bool train = column_has_data(c, 1);
	bool serve = column_has_data(c, 2) || column_has_data(c, 3);

	if (b < 0)
		b = 0;
	fprintf(out, "set multiplot layout 1,%d title ",
		train && serve ? 2 : 1);
	plot_quote(out, c->title);
	fputs("\n"
	      "set style data histograms\n"
	      "set style histogram clustered gap 1\n"
	      "set style fill solid 0.85 border -1\n"
	      "set yrange [0:*]\n"
	      "set key top left\n",
	      out);
	set_cat_tics(out, c);
	if (train || !serve)
		fprintf(out, "set title 'energy to train (facility)'\n"
			     "set ylabel 'energy to train (MWh)'\n"
			     "plot data index %d using 2 lc 1 title "
			     "'training'\n",
			b);
	if (serve) {
		bool uncapped = column_has_data(c, 2);

		fputs("set title 'energy per output token (facility)'\n"
		      "set ylabel 'energy per output token (J)'\n"
		      "plot ",
		      out);
		if (uncapped)
			fprintf(out, "data index %d using 3 lc 2 title 'no "
				     "power cap'",
				b);
		if (column_has_data(c, 3)) {
			fprintf(out, "%sdata index %d using 4 lc 3 title ",
				uncapped ? ", \\\n     " : "", b);
			plot_quote(out, c->note);
		}
		fputc('\n', out);
	}
	fputs("unset multiplot\n", out);
}

int plot_write_script(FILE *out, const struct plot_chart *c,
		      const struct plot_output *o)
{
	fprintf(out,
		"# capplan plot %s: a gnuplot 5 script written by capplan.\n"
		"# It reads the data file named below; run it with\n"
		"# 'gnuplot SCRIPT' from the directory capplan ran in.\n",
		kinds[c->kind].name);
	fputs("set encoding utf8\n", out);
	fprintf(out, "set terminal %s noenhanced size %d,%d\n",
		o->format == PLOT_SVG ? "svg" : "pngcairo", o->width_px,
		o->height_px);
	fputs("set output ", out);
	plot_quote_path(out, o->chart_path);
	fputs("\ndata = ", out);
	plot_quote_path(out, o->data_path);
	fputs("\nset grid\n", out);
	kinds[c->kind].script(out, c);
	fputs("unset output\n", out);
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
