/* plot.c - chart data, .dat and gnuplot script writers, and the gnuplot
   driver; see plot.h. */
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
#include "units.h"

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
	{ "MI325X", 1, 1 },	   { "Gaudi3", 5, 1 },
	{ "H100-PCIe", 0, 1 },	   { "A100-SXM-40GB", 3, 1 },
	{ "L40S", 2, 1 },	   { "H200-NVL", 4, 1 },
	{ "GH200", 2, 2 },	   { "H800", 0, 2 },
	{ "TPU-v5p", 3, 2 },	   { "MI250X", 1, 2 },
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

void plot_series_set_device(struct plot_series *s, const char *name)
{
	plot_device_style(name, s->rgb, &s->pt);
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

/* " lc rgb '#RRGGBB'" of a series (its device's colour), or its line
   type. */
static void put_lc(FILE *out, const struct plot_series *s)
{
	if (s->rgb[0])
		fprintf(out, " lc rgb '%s'", s->rgb);
	else
		fprintf(out, " lc %d", s->color > 0 ? s->color : 1);
}

static int series_pt(const struct plot_series *s)
{
	return s->pt > 0 ? s->pt : 7;
}

/* The title, with what was held fixed on a second line. */
static void set_title(FILE *out, const struct plot_chart *c)
{
	fputs("set title ", out);
	plot_quote(out, c->title);
	if (c->held[0]) {
		/* "\n" is gnuplot's only escape here, in a constant */
		fputs(".\"\\n\".", out);
		plot_quote(out, c->held);
	}
	fputs(" font ',13'\n", out);
}

/* Smallest and largest positive finite value of column 'col' over the
   series of 'role' (-1: every role); false when there is none. */
static bool column_range(const struct plot_chart *c, int col, int role,
			 double *lo, double *hi)
{
	bool any = false;

	for (size_t i = 0; i < c->nseries; i++) {
		const struct plot_series *s = &c->series[i];

		if (role >= 0 && (int)s->role != role)
			continue;
		for (size_t r = 0; r < s->rows; r++) {
			double v = s->v[r * (size_t)c->ncols + (size_t)col];

			if (!isfinite(v) || v <= 0.0)
				continue;
			if (!any || v < *lo)
				*lo = v;
			if (!any || v > *hi)
				*hi = v;
			any = true;
		}
	}
	return any;
}

/* A tic label: money as "$20M", other values as "%g" with K and M. */
static void tic_label(char *buf, size_t n, double v, bool money)
{
	if (money)
		units_format(buf, n, v, UNIT_MONEY, 3);
	else if (v >= 1e6)
		snprintf(buf, n, "%gM", v / 1e6);
	else if (v >= 1e4)
		snprintf(buf, n, "%gK", v / 1e3);
	else
		snprintf(buf, n, "%g", v);
}

/*
 * A log axis ranged to [lo, hi] (with a margin) and its tics at 1, 2 and
 * 5 times the powers of ten inside, labelled; with fewer than three of
 * those, 1 to 9 times.
 */
static void log_axis(FILE *out, const char *axis, double lo, double hi,
		     bool money)
{
	static const double steps[2][9] = { { 1, 2, 5 },
					     { 1, 2, 3, 4, 5, 6, 7, 8, 9 } };
	static const int nsteps[2] = { 3, 9 };
	double a = lo / 1.25, b = hi * 1.25;
	char label[48];

	if (!(a > 0.0) || !(b > a))
		return;
	fprintf(out, "set logscale %s 10\nset %srange [%.6g:%.6g]\n", axis,
		axis, a, b);
	for (int fine = 0; fine < 2; fine++) {
		int count = 0, sep = 0;

		for (double p = pow(10.0, floor(log10(a))); p <= b; p *= 10.0)
			for (int k = 0; k < nsteps[fine]; k++)
				count += p * steps[fine][k] >= a &&
					 p * steps[fine][k] <= b;
		if (count < 4 && !fine)
			continue;
		fprintf(out, "set %stics (", axis);
		for (double p = pow(10.0, floor(log10(a))); p <= b; p *= 10.0)
			for (int k = 0; k < nsteps[fine]; k++) {
				double v = p * steps[fine][k];

				if (v < a || v > b)
					continue;
				tic_label(label, sizeof(label), v, money);
				fprintf(out, "%s'%s' %.6g", sep++ ? ", " : "",
					label, v);
			}
		fputs(")\n", out);
		break;
	}
}

/* xtics naming the categories of a bar chart. */
static void set_cat_tics(FILE *out, const struct plot_chart *c)
{
	fputs("set xtics nomirror rotate by -25 font ',10'\n", out);
	fputs("set xtics (", out);
	for (int i = 0; i < c->ncats; i++) {
		fputs(i ? ", " : "", out);
		plot_quote(out, c->cats[i]);
		fprintf(out, " %d", i);
	}
	fputs(")\n", out);
	fprintf(out, "set xrange [-0.6:%g]\n", c->ncats - 0.4);
}

/* The reasons of the missing bars of panel 'panel', in their places. */
static void cat_reasons(FILE *out, const struct plot_chart *c, int panel)
{
	fputs("unset label\n", out);
	for (int i = 0; i < c->ncats; i++) {
		if (!c->cat_why[i][panel][0])
			continue;
		fprintf(out, "set label ");
		plot_quote(out, c->cat_why[i][panel]);
		fprintf(out, " at first %d, graph 0.03 left rotate by 90 "
			     "font ',10' tc rgb '#555555'\n",
			i);
	}
}

/* Tics of a log-2 axis of GPU counts: every power of two in range. */
static void gpu_axis(FILE *out, const struct plot_chart *c)
{
	double lo = 1, hi = 1;
	char label[32];
	int sep = 0;

	if (!column_range(c, 0, -1, &lo, &hi))
		return;
	fprintf(out, "set logscale x 2\nset xrange [%.6g:%.6g]\nset xtics (",
		lo / 1.3, hi * 1.3);
	for (double g = pow(2.0, floor(log2(lo))); g <= hi * 1.01; g *= 2.0) {
		if (g < lo * 0.99)
			continue;
		tic_label(label, sizeof(label), g, false);
		if (g >= 1024 && g < 1e4)
			snprintf(label, sizeof(label), "%gK", g / 1024.0);
		else if (g >= 1e4)
			snprintf(label, sizeof(label), "%gK", g / 1024.0);
		fprintf(out, "%s'%s' %.6g", sep++ ? ", " : "", label, g);
	}
	fputs(")\n", out);
}

static void script_scaling(FILE *out, const struct plot_chart *c)
{
	double lo = 1, hi = 1;
	int n = 0;

	set_title(out, c);
	fputs("set xlabel 'GPUs'\n"
	      "set ylabel 'expected time to train (days), failures and "
	      "restarts included'\n"
	      "set key top right font ',10' spacing 1.1\n",
	      out);
	gpu_axis(out, c);
	if (column_range(c, 1, -1, &lo, &hi)) {
		if (c->deadline_days > 0.0) {
			lo = fmin(lo, c->deadline_days);
			hi = fmax(hi, c->deadline_days);
		}
		log_axis(out, "y", lo, hi, false);
	}
	for (size_t i = 0; i < c->nseries; i++) {
		const struct plot_series *s = &c->series[i];
		int b = block_of(c, i);

		if (b < 0)
			continue;
		clause(out, &n);
		fprintf(out, "data index %d using 1:2 with linespoints", b);
		put_lc(out, s);
		fprintf(out, " lw 2 pt %d ps 1.1 title ", series_pt(s));
		plot_quote(out, s->label);
		clause(out, &n);
		fprintf(out, "data index %d using 1:3 with lines", b);
		put_lc(out, s);
		fputs(" lw 1 dt 2 notitle", out);
	}
	clause(out, &n);
	fputs("keyentry with lines lc rgb '#666666' lw 1 dt 2 "
	      "title 'dashed: ideal linear scaling from each device''s "
	      "most efficient point'", out);
	if (c->deadline_days > 0.0) {
		clause(out, &n);
		fprintf(out, "%.6g with lines lc rgb '#B00000' lw 2 dt 4 "
			     "title 'deadline (%.6g days)'",
			c->deadline_days, c->deadline_days);
	}
	fputc('\n', out);
}

static void script_cost_time(FILE *out, const struct plot_chart *c)
{
	double xlo = 1, xhi = 1, ylo = 1, yhi = 1;
	int n = 0;

	set_title(out, c);
	fputs("set xlabel 'expected time to train (days)'\n"
	      "set ylabel 'cost (USD)'\n"
	      "set key top right font ',10'\n",
	      out);
	if (column_range(c, 0, -1, &xlo, &xhi)) {
		if (c->deadline_days > 0.0)
			xhi = fmax(xhi, c->deadline_days);
		log_axis(out, "x", xlo, xhi, false);
	}
	if (column_range(c, 1, -1, &ylo, &yhi)) {
		if (c->budget_usd > 0.0) {
			ylo = fmin(ylo, c->budget_usd);
			yhi = fmax(yhi, c->budget_usd);
		}
		log_axis(out, "y", ylo, yhi, true);
	}
	if (c->deadline_days > 0.0)
		fprintf(out, "set arrow from %.6g, graph 0 to %.6g, graph 1 "
			     "nohead lc rgb '#B00000' lw 2 dt 4 front\n",
			c->deadline_days, c->deadline_days);
	/* the front's points: device and GPUs, alternately above and
	   below so that neighbours do not collide */
	for (int i = 0; i < c->nlabels; i++) {
		fputs("set label ", out);
		plot_quote(out, c->labels[i].text);
		fprintf(out, " at %.6g,%.6g %s offset %s font ',8' "
			     "tc rgb '#222222' front\n",
			c->labels[i].x, c->labels[i].y,
			i % 2 ? "right" : "left",
			i % 2 ? "-0.6,-0.9" : "0.6,0.9");
	}
	for (size_t i = 0; i < c->nseries; i++) {
		const struct plot_series *s = &c->series[i];
		int b = block_of(c, i);

		if (b < 0)
			continue;
		clause(out, &n);
		if (s->role == PLOT_ROLE_FRONT) {
			fprintf(out, "data index %d using 1:2 with lines "
				     "lc rgb '#000000' lw 1.5 title ", b);
			plot_quote(out, s->label);
		} else {
			fprintf(out, "data index %d using 1:2 with points",
				b);
			put_lc(out, s);
			fprintf(out, " pt %d ps 1.3 title ", series_pt(s));
			plot_quote(out, s->label);
		}
	}
	if (c->deadline_days > 0.0) {
		clause(out, &n);
		fprintf(out, "keyentry with lines lc rgb '#B00000' lw 2 dt 4 "
			     "title 'deadline (%.6g days)'",
			c->deadline_days);
	}
	if (c->budget_usd > 0.0) {
		char money[48];

		units_format(money, sizeof(money), c->budget_usd, UNIT_MONEY,
			     4);
		clause(out, &n);
		fprintf(out, "%.6g with lines lc rgb '#7F3C8D' lw 2 dt 5 "
			     "title 'budget (%s)'",
			c->budget_usd, money);
	}
	fputc('\n', out);
}

/* 's' as a gnuplot string, a new line at each ';' (each line quoted). */
static void put_lines(FILE *out, const char *s)
{
	char line[PLOT_LABEL_MAX];
	const char *p = s;

	for (int k = 0;; k++) {
		const char *semi = strchr(p, ';');
		size_t n = semi ? (size_t)(semi - p) : strlen(p);

		snprintf(line, sizeof(line), "%.*s", (int)n, p);
		if (k)
			fputs(".\"\\n\".", out);
		plot_quote(out, line);
		if (!semi)
			break;
		p = semi + 1;
	}
}

static void script_memory(FILE *out, const struct plot_chart *c)
{
	static const struct {
		const char *name, *rgb;
	} layers[] = { { "weights", "#1F4E79" },
		       { "gradients", "#4A90C2" },
		       { "optimizer states", "#A6CEE3" },
		       { "activations", "#F0A04B" },
		       { "framework reserve", "#BDBDBD" } };
	int n = 0, b = c->nseries ? block_of(c, 0) : -1;

	set_title(out, c);
	fputs("set style data histograms\n"
	      "set style histogram rowstacked\n"
	      "set style fill solid 0.9 border rgb '#404040'\n"
	      "set boxwidth 0.6 relative\n"
	      "set ylabel 'training memory per GPU (GB)'\n"
	      "set yrange [0:*]\n"
	      "set offsets 0, 0, graph 0.12, 0\n"
	      "set key outside right top font ',10'\n",
	      out);
	set_cat_tics(out, c);
	cat_reasons(out, c, 0);
	/* each bar's configuration above it */
	for (int i = 0; i < c->ncats; i++) {
		if (!c->cat_sub[i][0] || b < 0)
			continue;
		fputs("set label ", out);
		put_lines(out, c->cat_sub[i]);
		fprintf(out, " at first %d, first %.6g center offset 0,2.2 "
			     "font ',8' front\n",
			i, c->series[0].rows > (size_t)i ?
				   fmax(c->series[0].v[(size_t)i * 7 + 6],
					c->series[0].v[(size_t)i * 7 + 1] +
						c->series[0].v[(size_t)i * 7 + 2] +
						c->series[0].v[(size_t)i * 7 + 3] +
						c->series[0].v[(size_t)i * 7 + 4] +
						c->series[0].v[(size_t)i * 7 + 5]) :
				   0.0);
	}
	if (b < 0)
		b = 0;
	for (int j = 0; j < (int)N_ELEMS(layers); j++) {
		clause(out, &n);
		fprintf(out, "data index %d using %d lc rgb '%s' title ", b,
			j + 2, layers[j].rgb);
		plot_quote(out, layers[j].name);
	}
	clause(out, &n);
	fprintf(out, "data index %d using ($1-0.4):7:(0.8):(0) with vectors "
		     "nohead lw 4 lc rgb '#D00000' title 'capacity'\n", b);
}

static void script_roofline(FILE *out, const struct plot_chart *c)
{
	static const struct {
		int pt;
		const char *name;
	} phases[] = { [PLOT_PHASE_TRAINING] = { 5, "training" },
		       [PLOT_PHASE_PREFILL] = { 7, "prefill" },
		       [PLOT_PHASE_DECODE] = { 9, "decode" } };
	bool used[N_ELEMS(phases)] = { false };
	int n = 0;

	set_title(out, c);
	fputs("set xlabel 'arithmetic intensity (FLOP/byte)'\n"
	      "set ylabel 'attainable throughput per GPU (TFLOP/s)'\n"
	      "set logscale xy 10\n"
	      "set key left top font ',10'\n",
	      out);
	for (size_t i = 0; i < c->nseries; i++) {
		const struct plot_series *s = &c->series[i];
		int b = block_of(c, i);

		if (b < 0)
			continue;
		if (s->role != PLOT_ROLE_POINTS) {
			clause(out, &n);
			fprintf(out, "data index %d using 2:3 with lines", b);
			put_lc(out, s);
			fputs(" lw 2 title ", out);
			plot_quote(out, s->label);
			continue;
		}
		for (int p = 0; p < (int)N_ELEMS(phases); p++) {
			bool has = false;

			for (size_t r = 0; r < s->rows; r++)
				has = has || s->v[r * (size_t)c->ncols] == p;
			if (!has)
				continue;
			used[p] = true;
			clause(out, &n);
			fprintf(out, "data index %d using 2:($1==%d?$3:NaN) "
				     "with points",
				b, p);
			put_lc(out, s);
			fprintf(out, " pt %d ps 1.8 notitle", phases[p].pt);
		}
	}
	for (int p = 0; p < (int)N_ELEMS(phases); p++) {
		if (!used[p])
			continue;
		clause(out, &n);
		fprintf(out, "keyentry with points lc rgb '#404040' pt %d "
			     "ps 1.6 title ", phases[p].pt);
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
		fprintf(out, "data index %d using 2:%d with linespoints", b,
			col);
		put_lc(out, s);
		fprintf(out, " lw 2 pt %d title ", series_pt(s));
		plot_quote(out, s->label);
	}
	if (slo_ms > 0.0 && isfinite(slo_ms)) {
		clause(out, &n);
		fprintf(out, "%.6g with lines lc rgb '#B00000' dt 4 lw 2 "
			     "title '%s SLO (%.6g ms)'", slo_ms, what, slo_ms);
	}
	fputc('\n', out);
}

/* Whether column 'col' of every series varies by less than 10%: a panel
   that would be flat lines. */
static bool column_flat(const struct plot_chart *c, int col)
{
	for (size_t i = 0; i < c->nseries; i++) {
		const struct plot_series *s = &c->series[i];
		double lo = HUGE_VAL, hi = 0.0;

		for (size_t r = 0; r < s->rows; r++) {
			double v = s->v[r * (size_t)c->ncols + (size_t)col];

			if (isfinite(v)) {
				lo = fmin(lo, v);
				hi = fmax(hi, v);
			}
		}
		if (s->rows > 1 && hi > 1.1 * lo)
			return false;
	}
	return true;
}

static void script_latency(FILE *out, const struct plot_chart *c)
{
	char t[PLOT_LABEL_MAX + 48];
	/* TTFT flat across the sweep (the batch sweep's prefill of one
	   request): its panel says nothing, its value goes in the key */
	bool ttft = !column_flat(c, 3);

	fprintf(out, "set multiplot layout 1,%d title ", ttft ? 2 : 1);
	plot_quote(out, c->title);
	if (c->held[0]) {
		fputs(".\"\\n\".", out);
		plot_quote(out, c->held);
	}
	fputs(" font ',13'\n"
	      "set xlabel 'output throughput per GPU (tokens/s)'\n"
	      "set logscale xy 10\n"
	      "set key top left font ',10'\n",
	      out);
	if (c->load[0])
		snprintf(t, sizeof(t), "time per output token (%s)", c->load);
	else
		snprintf(t, sizeof(t), "%s",
			 "time per output token (batch 1, 2, 4, ...)");
	fputs("set title ", out);
	plot_quote(out, t);
	fputs("\nset ylabel 'TPOT (ms)'\n", out);
	if (!ttft)
		fputs("set key title 'TTFT is flat across this range and not "
		      "drawn' font ',9'\n",
		      out);
	latency_panel(out, c, 3, c->tpot_slo_ms, "TPOT");
	if (ttft) {
		if (c->load[0])
			snprintf(t, sizeof(t), "time to first token (%s)",
				 c->load);
		else
			snprintf(t, sizeof(t), "%s",
				 "time to first token (batch 1, 2, 4, ...)");
		fputs("set title ", out);
		plot_quote(out, t);
		fputs("\nset ylabel 'TTFT (ms)'\n", out);
		latency_panel(out, c, 4, c->ttft_slo_ms, "TTFT");
	}
	fputs("unset multiplot\n", out);
}

static void script_replicas(FILE *out, const struct plot_chart *c)
{
	int n = 0;

	set_title(out, c);
	fputs("set xlabel 'request rate (requests/s)'\n"
	      "set ylabel 'GPUs needed (replicas x GPUs per replica)'\n"
	      "set logscale xy 10\n"
	      "set key top left font ',10' title ",
	      out);
	plot_quote(out, c->note);
	fputc('\n', out);
	for (size_t i = 0; i < c->nseries; i++) {
		const struct plot_series *s = &c->series[i];
		int b = block_of(c, i);

		if (b < 0)
			continue;
		clause(out, &n);
		fprintf(out, "data index %d using 1:2 with linespoints", b);
		put_lc(out, s);
		fprintf(out, " lw 2 pt %d title ", series_pt(s));
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

/* The bars of column 'col' of series 0, one per category in its
   device's colour, at x = row + 'dx' ('pattern': hatched). */
static void energy_bars(FILE *out, const struct plot_chart *c, int b,
			int col, double dx, bool pattern, int *n)
{
	const struct plot_series *s = &c->series[0];

	for (size_t r = 0; r < s->rows; r++) {
		int cat = (int)s->v[r * (size_t)c->ncols];

		if (!isfinite(s->v[r * (size_t)c->ncols + (size_t)col]))
			continue;
		clause(out, n);
		fprintf(out, "data index %d every ::%zu::%zu using ($1%+.3g):%d "
			     "with boxes lc rgb '%s' fs %s notitle",
			b, r, r, dx, col + 1,
			cat >= 0 && cat < c->ncats && c->cat_rgb[cat][0] ?
				c->cat_rgb[cat] :
				"#0072B2",
			pattern ? "pattern 4 border" : "solid 0.85 border");
	}
}

static void script_energy(FILE *out, const struct plot_chart *c)
{
	int b = c->nseries ? block_of(c, 0) : -1;
	/* a panel without a number (a model that trains nowhere, or serves
	   nowhere, at this size) is left out, not drawn empty */
	bool train = column_has_data(c, 1);
	bool serve = column_has_data(c, 2) || column_has_data(c, 3);
	int n;

	if (b < 0)
		b = 0;
	fprintf(out, "set multiplot layout 1,%d title ",
		train && serve ? 2 : 1);
	plot_quote(out, c->title);
	if (c->held[0]) {
		fputs(".\"\\n\".", out);
		plot_quote(out, c->held);
	}
	fputs(" font ',13'\n"
	      "set yrange [0:*]\n"
	      "set offsets 0, 0, graph 0.15, 0\n"
	      "set key top left font ',10'\n",
	      out);
	set_cat_tics(out, c);
	if (train || !serve) {
		n = 0;
		cat_reasons(out, c, 0);
		fputs("set title 'energy to train (facility)'\n"
		      "set ylabel 'energy to train (MWh)'\n"
		      "set boxwidth 0.6\n",
		      out);
		energy_bars(out, c, b, 1, 0.0, false, &n);
		fputc('\n', out);
	}
	if (serve) {
		n = 0;
		cat_reasons(out, c, 1);
		fputs("set title 'energy per output token (facility)'\n"
		      "set ylabel 'energy per output token (J)'\n"
		      "set boxwidth 0.36\n",
		      out);
		energy_bars(out, c, b, 2, -0.19, false, &n);
		energy_bars(out, c, b, 3, 0.19, true, &n);
		clause(out, &n);
		fputs("keyentry with boxes lc rgb '#404040' fs solid 0.85 "
		      "title 'solid: no power cap'", out);
		clause(out, &n);
		fputs("keyentry with boxes lc rgb '#404040' fs pattern 4 "
		      "title ", out);
		{
			char t[PLOT_LABEL_MAX + 16];

			snprintf(t, sizeof(t), "hatched: %s", c->note);
			plot_quote(out, t);
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
