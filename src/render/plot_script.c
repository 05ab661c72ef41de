/* plot_script.c - the gnuplot script of each chart kind; see plot.h.
   Every text from outside (a title, a device, a label) goes through
   plot_quote. */
#include "plot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plot_script_internal.h"
#include "units.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* Start the next clause of a plot command: "plot " or ", \" and a new
   line. */
void ps_clause(FILE *out, int *n)
{
	fputs(*n == 0 ? "plot " : ", \\\n     ", out);
	(*n)++;
}

/* " lc rgb '#RRGGBB'" of a series (its device's colour), or its line
   type. */
void ps_put_lc(FILE *out, const struct plot_series *s)
{
	if (s->rgb[0])
		fprintf(out, " lc rgb '%s'", s->rgb);
	else
		fprintf(out, " lc %d", s->color > 0 ? s->color : 1);
}

int ps_series_pt(const struct plot_series *s)
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
bool ps_column_range(const struct plot_chart *c, int col, int role,
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
		units_format_plain(buf, n, v, UNIT_MONEY, 3);
	else if (v >= 1e6)
		snprintf(buf, n, "%gM", v / 1e6);
	else if (v >= 1e4)
		snprintf(buf, n, "%gK", v / 1e3);
	else
		snprintf(buf, n, "%g", v);
}

/* The margin of a log axis ranged to data: a factor on each side. */
#define LOG_AXIS_MARGIN 1.25

/*
 * A log axis ranged to exactly [a, b] and its tics at 1, 2 and 5 times
 * the powers of ten inside, labelled; with fewer than four of those, 1
 * to 9 times.
 */
static void log_axis_exact(FILE *out, const char *axis, double a, double b,
			   bool money)
{
	static const double steps[2][9] = { { 1, 2, 5 },
					     { 1, 2, 3, 4, 5, 6, 7, 8, 9 } };
	static const int nsteps[2] = { 3, 9 };
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

/* A log axis ranged to [lo, hi] with a margin (LOG_AXIS_MARGIN), tics as
   log_axis_exact's. */
void ps_log_axis(FILE *out, const char *axis, double lo, double hi,
		     bool money)
{
	log_axis_exact(out, axis, lo / LOG_AXIS_MARGIN, hi * LOG_AXIS_MARGIN,
		       money);
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

/* Tics of a log-2 x axis of column 'col' (GPU counts, batches): every
   power of two in range, or every second, fourth, ... one so that at
   most 'most' are labelled. */
static void pow2_axis(FILE *out, const struct plot_chart *c, int col,
		      int most)
{
	double lo = 1, hi = 1, step = 2.0;
	char label[32];
	int sep = 0;

	if (!ps_column_range(c, col, -1, &lo, &hi))
		return;
	while (log(hi / lo) / log(step) + 1.0 > most)
		step *= 2.0;
	fprintf(out, "set logscale x 2\nset xrange [%.6g:%.6g]\nset xtics (",
		lo / 1.3, hi * 1.3);
	for (double g = pow(2.0, floor(log2(lo))); g <= hi * 1.01; g *= step) {
		if (g < lo * 0.99)
			continue;
		tic_label(label, sizeof(label), g, false);
		if (g >= 1024)
			snprintf(label, sizeof(label), "%gK", g / 1024.0);
		fprintf(out, "%s'%s' %.6g", sep++ ? ", " : "", label, g);
	}
	fputs(")\n", out);
}

/* Tics of a log-2 axis of GPU counts: every power of two in range. */
static void gpu_axis(FILE *out, const struct plot_chart *c)
{
	pow2_axis(out, c, 0, 64);
}

/* The unit of a time axis whose largest value is 'hi_days': minutes
   under two hours, hours under two days, else days. */
struct time_unit {
	double per_day; /* the axis value of one day */
	const char *name;
};

static struct time_unit time_unit_for(double hi_days)
{
	if (hi_days < 2.0 / 24.0)
		return (struct time_unit){ 1440.0, "minutes" };
	if (hi_days < 2.0)
		return (struct time_unit){ 24.0, "hours" };
	return (struct time_unit){ 1.0, "days" };
}

/* Column 'col' (1-based, gnuplot's $N) scaled by 'factor' in a 'using'
   clause: "2", or "($2*1440)". */
static const char *scaled_col(char *buf, size_t n, int col, double factor)
{
	if (factor == 1.0)
		snprintf(buf, n, "%d", col);
	else
		snprintf(buf, n, "($%d*%g)", col, factor);
	return buf;
}

/* The largest value of column 'col' (0 when none). */
static double column_max(const struct plot_chart *c, int col)
{
	double lo = 0.0, hi = 0.0;

	return ps_column_range(c, col, -1, &lo, &hi) ? hi : 0.0;
}

/* A unit of energy for values up to 'hi' joules: its factor and name. */
static double energy_unit(double hi, const char **name)
{
	static const struct {
		double factor;
		const char *name;
	} u[] = { { 1e9, "GJ" }, { 1e6, "MJ" }, { 1e3, "kJ" }, { 1.0, "J" } };

	for (size_t i = 0; i < N_ELEMS(u); i++)
		if (hi >= 2.0 * u[i].factor || u[i].factor == 1.0) {
			*name = u[i].name;
			return u[i].factor;
		}
	*name = "J";
	return 1.0;
}

/* A line of text in the key, without a sample: the chart's note (the
   goodput every device of a scaling chart has), when it has one. */
static void key_note(FILE *out, const struct plot_chart *c, int *n)
{
	if (!c->note[0])
		return;
	ps_clause(out, n);
	fputs("keyentry with lines lt nodraw title ", out);
	plot_quote(out, c->note);
}

/* Per-sample scaling: training samples/s per GPU against GPUs. */
static void script_scaling_sample(FILE *out, const struct plot_chart *c)
{
	double lo = 1, hi = 1;
	int n = 0;

	set_title(out, c);
	fputs("set xlabel 'GPUs'\n"
	      "set ylabel 'training throughput per GPU (samples/s), one step'\n"
	      "set key inside left bottom vertical font ',9' spacing 1.1 opaque box lc rgb '#cccccc'\n",
	      out);
	gpu_axis(out, c);
	if (ps_column_range(c, 1, -1, &lo, &hi))
		ps_log_axis(out, "y", lo / 1.5, hi * 1.2, false);
	for (size_t i = 0; i < c->nseries; i++) {
		const struct plot_series *s = &c->series[i];
		int b = plot_series_block(c, i);

		if (b < 0)
			continue;
		ps_clause(out, &n);
		fprintf(out, "data index %d using 1:2 with linespoints", b);
		ps_put_lc(out, s);
		fprintf(out, " lw 2 pt %d ps 1.1 title ", ps_series_pt(s));
		plot_quote(out, s->label);
		ps_clause(out, &n);
		fprintf(out, "data index %d using 1:3 with lines", b);
		ps_put_lc(out, s);
		fputs(" lw 1 dt 2 notitle", out);
	}
	ps_clause(out, &n);
	fputs("keyentry with lines lc rgb '#666666' lw 1 dt 2 "
	      "title 'dashed: ideal (best rate per GPU)'", out);
	key_note(out, c, &n);
	if (c->deadline_s > 0.0 && c->samples > 0.0) {
		/* the rate per GPU that trains the samples by the deadline */
		char t[48];

		units_format(t, sizeof(t), c->deadline_s, UNIT_TIME, 4);
		ps_clause(out, &n);
		fprintf(out, "%.6g/x with lines lc rgb '#B00000' lw 2 dt 4 "
			     "title 'deadline %s: rate needed'",
			c->samples / c->deadline_s, t);
	}
	fputc('\n', out);
}

static void script_scaling(FILE *out, const struct plot_chart *c,
			   const struct plot_output *o)
{
	double lo = 1, hi = 1;
	int n = 0;

	struct time_unit tu;
	char y[32];

	(void)o;
	if (c->per_sample) {
		script_scaling_sample(out, c);
		return;
	}
	tu = time_unit_for(fmax(column_max(c, 1), c->deadline_days));
	set_title(out, c);
	fputs("set xlabel 'GPUs'\n", out);
	fprintf(out, "set ylabel 'expected time to train (%s), failures and "
		     "restarts included'\n", tu.name);
	fputs("set key top right font ',10' spacing 1.1\n", out);
	gpu_axis(out, c);
	if (ps_column_range(c, 1, -1, &lo, &hi)) {
		if (c->deadline_days > 0.0) {
			lo = fmin(lo, c->deadline_days);
			hi = fmax(hi, c->deadline_days);
		}
		ps_log_axis(out, "y", lo * tu.per_day, hi * tu.per_day, false);
	}
	for (size_t i = 0; i < c->nseries; i++) {
		const struct plot_series *s = &c->series[i];
		int b = plot_series_block(c, i);

		if (b < 0)
			continue;
		ps_clause(out, &n);
		fprintf(out, "data index %d using 1:%s with linespoints", b,
			scaled_col(y, sizeof(y), 2, tu.per_day));
		ps_put_lc(out, s);
		fprintf(out, " lw 2 pt %d ps 1.1 title ", ps_series_pt(s));
		plot_quote(out, s->label);
		ps_clause(out, &n);
		fprintf(out, "data index %d using 1:%s with lines", b,
			scaled_col(y, sizeof(y), 3, tu.per_day));
		ps_put_lc(out, s);
		fputs(" lw 1 dt 2 notitle", out);
	}
	ps_clause(out, &n);
	fputs("keyentry with lines lc rgb '#666666' lw 1 dt 2 "
	      "title 'dashed: ideal linear scaling from each device''s "
	      "most efficient point'", out);
	key_note(out, c, &n);
	if (c->deadline_days > 0.0) {
		ps_clause(out, &n);
		fprintf(out, "%.6g with lines lc rgb '#B00000' lw 2 dt 4 "
			     "title 'deadline (%.6g %s)'",
			c->deadline_days * tu.per_day,
			c->deadline_days * tu.per_day, tu.name);
	}
	fputc('\n', out);
}

/*
 * Where the Pareto front's labels go.  Each label takes the first of a
 * few spots around its point (beside, above or below it, left or right
 * justified) that covers the fewest points, earlier labels, the key and
 * the plot's edges, judged in pixels from the chart's size: the plot area
 * is the chart less its titles, tics and axis labels, the text is
 * gnuplot's font 8, a point (ps 1.3) a disc.  Estimates: a label may
 * still touch a line, never (when a spot is free) a point.
 */
#define AREA_MARGIN_W_PX 115.0 /* y tics and label, right border */
#define AREA_MARGIN_H_PX 140.0 /* two title lines, x tics and label */
#define LABEL_CHAR_PX 6.5      /* font 8 */
#define LABEL_HEIGHT_PX 11.0
#define KEY_CHAR_PX 7.0        /* font 10 */
#define KEY_LINE_PX 16.0
#define POINT_RADIUS_PX 5.0

struct box {
	double x0, y0, x1, y1;
};

/* The chart's log axes and plot area, for pixels of a data point. */
struct chart_area {
	double w, h;              /* plot area, pixels */
	double x0, x1, y0, y1;    /* log10 of the ends of the axes */
};

static void area_px(const struct chart_area *a, double x, double y,
		    double *px, double *py)
{
	*px = a->w * (log10(x) - a->x0) / (a->x1 - a->x0);
	*py = a->h * (log10(y) - a->y0) / (a->y1 - a->y0);
}

static bool boxes_meet(const struct box *a, const struct box *b)
{
	return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 &&
	       b->y0 < a->y1;
}

/* The spots of a label around its point: the offset of the text's
   anchor from the point (pixels) and its justification.  Labels take
   the first two in turn (above right, below left), as neighbours on the
   front then alternate. */
static const struct {
	double dx, dy;
	const char *just;
} label_spots[] = {
	{ 6, 9, "left" },   { -6, -9, "right" }, { 6, -9, "left" },
	{ -6, 9, "right" }, { 9, 0, "left" },    { -9, 0, "right" },
	{ 0, 13, "center" }, { 0, -13, "center" },
};

#define N_SPOTS ((int)N_ELEMS(label_spots))

/* The box of label 'text' at spot 'k' of the point at (px, py). */
static struct box spot_box(int k, double px, double py, const char *text)
{
	double w = LABEL_CHAR_PX * (double)strlen(text);
	double x = px + label_spots[k].dx, y = py + label_spots[k].dy;
	struct box b = { x, y - LABEL_HEIGHT_PX / 2, x + w,
			 y + LABEL_HEIGHT_PX / 2 };

	if (label_spots[k].just[0] == 'r') {
		b.x0 = x - w;
		b.x1 = x;
	} else if (label_spots[k].just[0] == 'c') {
		b.x0 = x - w / 2;
		b.x1 = x + w / 2;
	}
	return b;
}

/* What label box 'b' of the point (own_x, own_y) covers: a point but
   its own (of any series), an earlier label, the key, the plot's edge
   (twice as bad). */
static int spot_cost(const struct plot_chart *c, const struct chart_area *a,
		     const struct box *b, double own_x, double own_y,
		     const struct box *placed, int nplaced,
		     const struct box *key)
{
	const double r = POINT_RADIUS_PX;
	int cost = 0;

	for (size_t i = 0; i < c->nseries; i++) {
		const struct plot_series *s = &c->series[i];

		for (size_t row = 0; row < s->rows; row++) {
			const double *v = s->v + row * (size_t)c->ncols;
			double px, py;

			if (!(v[0] > 0.0) || !(v[1] > 0.0) ||
			    (v[0] == own_x && v[1] == own_y))
				continue;
			area_px(a, v[0], v[1], &px, &py);
			cost += px > b->x0 - r && px < b->x1 + r &&
				py > b->y0 - r && py < b->y1 + r;
		}
	}
	for (int i = 0; i < nplaced; i++)
		cost += boxes_meet(b, &placed[i]);
	cost += boxes_meet(b, key);
	cost += 2 * (b->x0 < 0.0 || b->y0 < 0.0 || b->x1 > a->w ||
		     b->y1 > a->h);
	return cost;
}

/* The labels of the Pareto front, each at its least covered spot. */
static void front_labels(FILE *out, const struct plot_chart *c,
			 const struct chart_area *a, double per_day,
			 int key_lines)
{
	struct box placed[PLOT_MAX_LABELS];
	struct box key;
	size_t key_chars = 0;

	/* the key: top right, a line per entry */
	for (size_t i = 0; i < c->nseries; i++)
		if (strlen(c->series[i].label) > key_chars)
			key_chars = strlen(c->series[i].label);
	key = (struct box){ a->w - KEY_CHAR_PX * (double)key_chars - 60.0,
			    a->h - KEY_LINE_PX * key_lines - 8.0, a->w, a->h };
	for (int i = 0; i < c->nlabels && i < PLOT_MAX_LABELS; i++) {
		const struct plot_label *l = &c->labels[i];
		int best = -1, best_cost = 0;
		double px, py;

		area_px(a, l->x, l->y, &px, &py);
		for (int j = 0; j < N_SPOTS; j++) {
			/* odd labels try the spots in pairs swapped */
			int k = i % 2 ? j ^ 1 : j;
			struct box b = spot_box(k, px, py, l->text);
			int cost = spot_cost(c, a, &b, l->x, l->y, placed, i,
					     &key);

			if (best < 0 || cost < best_cost) {
				best = k;
				best_cost = cost;
				placed[i] = b;
			}
		}
		fputs("set label ", out);
		plot_quote(out, l->text);
		fprintf(out, " at %.6g,%.6g %s offset graph %.4f, graph %.4f "
			     "font ',8' tc rgb '#222222' front\n",
			l->x * per_day, l->y, label_spots[best].just,
			label_spots[best].dx / a->w,
			label_spots[best].dy / a->h);
	}
}

static void script_cost_time(FILE *out, const struct plot_chart *c,
			     const struct plot_output *o)
{
	double xlo = 1, xhi = 1, ylo = 1, yhi = 1;
	char x[32];
	int n = 0;
	struct time_unit tu =
		time_unit_for(fmax(column_max(c, 0), c->deadline_days));
	/* the budget on the y axis: per million samples for a per-sample
	   model */
	double budget = c->budget_usd > 0.0 && c->per_sample ?
				(c->samples > 0.0 ?
					 c->budget_usd * 1e6 / c->samples :
					 0.0) :
				c->budget_usd;

	set_title(out, c);
	fprintf(out, "set xlabel 'expected time to train (%s)'\n", tu.name);
	fprintf(out, "set ylabel '%s'\n",
		c->per_sample ? "training cost per million samples (USD)" :
				"cost (USD)");
	fputs("set key top right font ',10'\n", out);
	if (ps_column_range(c, 0, -1, &xlo, &xhi)) {
		if (c->deadline_days > 0.0)
			xhi = fmax(xhi, c->deadline_days);
		ps_log_axis(out, "x", xlo * tu.per_day, xhi * tu.per_day, false);
	}
	if (ps_column_range(c, 1, -1, &ylo, &yhi)) {
		if (budget > 0.0) {
			ylo = fmin(ylo, budget);
			yhi = fmax(yhi, budget);
		}
		ps_log_axis(out, "y", ylo, yhi, true);
	}
	if (c->deadline_days > 0.0)
		fprintf(out, "set arrow from %.6g, graph 0 to %.6g, graph 1 "
			     "nohead lc rgb '#B00000' lw 2 dt 4 front\n",
			c->deadline_days * tu.per_day,
			c->deadline_days * tu.per_day);
	/* the front's points: device and GPUs, each where it covers
	   nothing (the axes above, in days and dollars) */
	if (c->nlabels > 0 && xhi > 0.0 && yhi > 0.0) {
		struct chart_area a = {
			fmax(o->width_px - AREA_MARGIN_W_PX, 50.0),
			fmax(o->height_px - AREA_MARGIN_H_PX, 50.0),
			log10(xlo / LOG_AXIS_MARGIN),
			log10(xhi * LOG_AXIS_MARGIN),
			log10(ylo / LOG_AXIS_MARGIN),
			log10(yhi * LOG_AXIS_MARGIN),
		};

		front_labels(out, c, &a, tu.per_day,
			     (int)c->nseries + (c->deadline_days > 0.0) +
				     (budget > 0.0));
	}
	for (size_t i = 0; i < c->nseries; i++) {
		const struct plot_series *s = &c->series[i];
		int b = plot_series_block(c, i);

		if (b < 0)
			continue;
		ps_clause(out, &n);
		if (s->role == PLOT_ROLE_FRONT) {
			fprintf(out, "data index %d using %s:2 with lines "
				     "lc rgb '#000000' lw 1.5 title ", b,
				scaled_col(x, sizeof(x), 1, tu.per_day));
			plot_quote(out, s->label);
		} else {
			fprintf(out, "data index %d using %s:2 with points",
				b, scaled_col(x, sizeof(x), 1, tu.per_day));
			ps_put_lc(out, s);
			fprintf(out, " pt %d ps 1.3 title ", ps_series_pt(s));
			plot_quote(out, s->label);
		}
	}
	if (c->deadline_days > 0.0) {
		ps_clause(out, &n);
		fprintf(out, "keyentry with lines lc rgb '#B00000' lw 2 dt 4 "
			     "title 'deadline (%.6g %s)'",
			c->deadline_days * tu.per_day, tu.name);
	}
	if (budget > 0.0) {
		char money[48];

		units_format(money, sizeof(money), c->budget_usd, UNIT_MONEY,
			     4);
		ps_clause(out, &n);
		fprintf(out, "%.6g with lines lc rgb '#7F3C8D' lw 2 dt 5 "
			     "title 'budget (%s%s)'",
			budget, money,
			c->per_sample ? " for all the samples" : "");
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

/* Column 'col' of row 'row' of series 0 of a bar chart; 0 when absent. */
static double bar_value(const struct plot_chart *c, int row, int col)
{
	const struct plot_series *s = c->nseries ? &c->series[0] : NULL;

	if (!s || row < 0 || (size_t)row >= s->rows || col >= c->ncols)
		return 0.0;
	return s->v[(size_t)row * (size_t)c->ncols + (size_t)col];
}

static void script_memory(FILE *out, const struct plot_chart *c,
			  const struct plot_output *o)
{
	static const struct {
		const char *name, *rgb;
	} layers[] = { { "weights", "#1F4E79" },
		       { "gradients", "#4A90C2" },
		       { "optimizer states", "#A6CEE3" },
		       { "activations", "#F0A04B" },
		       { "framework reserve", "#BDBDBD" } };
	int n = 0, b = c->nseries ? plot_series_block(c, 0) : -1;

	(void)o;
	set_title(out, c);
	fputs("set style data histograms\n"
	      "set style histogram rowstacked\n"
	      "set style fill solid 0.9 border rgb '#404040'\n"
	      "set boxwidth 0.6 relative\n"
	      "set ylabel 'training memory per GPU (GB)'\n"
	      "set yrange [0:*]\n"
	      "set offsets 0, 0, graph 0.15, 0\n"
	      "set key outside right top font ',10'\n",
	      out);
	set_cat_tics(out, c);
	cat_reasons(out, c, 0);
	/* each bar's configuration above it, and the optimizer states it
	   offloads to host memory (column 7), which the bar leaves out */
	for (int i = 0; i < c->ncats; i++) {
		double top = bar_value(c, i, 6), gpu = 0.0;
		double host_gb = bar_value(c, i, 7);
		char line[PLOT_LABEL_MAX];

		if (!c->cat_sub[i][0] || b < 0)
			continue;
		for (int col = 1; col <= 5; col++)
			gpu += bar_value(c, i, col);
		fputs("set label ", out);
		put_lines(out, c->cat_sub[i]);
		if (host_gb > 0.0 && isfinite(host_gb)) {
			snprintf(line, sizeof(line),
				 "optimizer on host: %.4g GB", host_gb);
			fputs(".\"\\n\".", out);
			plot_quote(out, line);
		}
		fprintf(out, " at first %d, first %.6g center offset 0,%s "
			     "font ',8' front\n",
			i, fmax(top, gpu), host_gb > 0.0 ? "2.8" : "2.2");
	}
	if (b < 0)
		b = 0;
	for (int j = 0; j < (int)N_ELEMS(layers); j++) {
		ps_clause(out, &n);
		fprintf(out, "data index %d using %d lc rgb '%s' title ", b,
			j + 2, layers[j].rgb);
		plot_quote(out, layers[j].name);
	}
	ps_clause(out, &n);
	fprintf(out, "data index %d using ($1-0.4):7:(0.8):(0) with vectors "
		     "nohead lw 4 lc rgb '#D00000' title 'capacity'\n", b);
}

static void script_roofline(FILE *out, const struct plot_chart *c,
			    const struct plot_output *o)
{
	static const struct {
		int pt;
		const char *name;
	} phases[] = { [PLOT_PHASE_TRAINING] = { 5, "training" },
		       [PLOT_PHASE_PREFILL] = { 7, "prefill" },
		       [PLOT_PHASE_DECODE] = { 9, "decode" } };
	bool used[N_ELEMS(phases)] = { false };
	double lo = 1, hi = 1;
	int n = 0;

	(void)o;
	set_title(out, c);
	fputs("set xlabel 'arithmetic intensity (FLOP/byte)'\n"
	      "set ylabel 'attainable throughput per GPU (TFLOP/s)'\n"
	      "set logscale xy 10\n"
	      "set key left top font ',10'\n",
	      out);
	/* the roofs span the intensities the chart shows (plot_build.c: a
	   decade around the points and ridge points): the axis is theirs */
	if (ps_column_range(c, 1, PLOT_ROLE_DEVICE, &lo, &hi))
		log_axis_exact(out, "x", lo, hi, false);
	if (ps_column_range(c, 2, -1, &lo, &hi))
		ps_log_axis(out, "y", lo, hi, false);
	for (size_t i = 0; i < c->nseries; i++) {
		const struct plot_series *s = &c->series[i];
		int b = plot_series_block(c, i);

		if (b < 0)
			continue;
		if (s->role != PLOT_ROLE_POINTS) {
			ps_clause(out, &n);
			fprintf(out, "data index %d using 2:3 with lines", b);
			ps_put_lc(out, s);
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
			ps_clause(out, &n);
			fprintf(out, "data index %d using 2:($1==%d?$3:NaN) "
				     "with points",
				b, p);
			ps_put_lc(out, s);
			fprintf(out, " pt %d ps 1.8 notitle", phases[p].pt);
		}
	}
	for (int p = 0; p < (int)N_ELEMS(phases); p++) {
		if (!used[p])
			continue;
		ps_clause(out, &n);
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
		int b = plot_series_block(c, i);

		if (b < 0)
			continue;
		ps_clause(out, &n);
		fprintf(out, "data index %d using 2:%d with linespoints", b,
			col);
		ps_put_lc(out, s);
		fprintf(out, " lw 2 pt %d title ", ps_series_pt(s));
		plot_quote(out, s->label);
	}
	if (slo_ms > 0.0 && isfinite(slo_ms)) {
		ps_clause(out, &n);
		fprintf(out, "%.6g with lines lc rgb '#B00000' dt 4 lw 2 "
			     "title '%s SLO (%.6g ms)'", slo_ms, what, slo_ms);
	}
	fputc('\n', out);
}

/* The axes of a latency panel: throughput (column 1) and the latency in
   column 'col', with its SLO, ranged to the data. */
static void latency_range(FILE *out, const struct plot_chart *c, int col,
			  double slo_ms)
{
	double lo = 1, hi = 1;

	if (ps_column_range(c, 1, -1, &lo, &hi))
		ps_log_axis(out, "x", lo, hi, false);
	if (ps_column_range(c, col, -1, &lo, &hi)) {
		if (slo_ms > 0.0 && isfinite(slo_ms)) {
			lo = fmin(lo, slo_ms);
			hi = fmax(hi, slo_ms);
		}
		ps_log_axis(out, "y", lo, hi, false);
	}
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

/* Per-sample latency: the latency of a batch against the batch, and
   against the samples/s per GPU it serves, with the latency target. */
static void script_latency_sample(FILE *out, const struct plot_chart *c)
{
	static const struct {
		int x;
		const char *title, *xlabel;
	} panels[2] = {
		{ 0, "latency of a batch against the batch",
		  "batch (samples)" },
		{ 1, "latency against throughput per GPU",
		  "throughput per GPU (samples/s)" },
	};
	double lo = 1, hi = 1, slo = c->latency_slo_ms;

	fputs("set multiplot layout 1,2 title ", out);
	plot_quote(out, c->title);
	if (c->held[0]) {
		fputs(".\"\\n\".", out);
		plot_quote(out, c->held);
	}
	fputs(" font ',13'\n"
	      "set ylabel 'latency of a batch (ms)'\n"
	      "set key top left font ',10'\n",
	      out);
	for (int k = 0; k < 2; k++) {
		int n = 0;

		fputs("set title ", out);
		plot_quote(out, panels[k].title);
		fputs("\nset xlabel ", out);
		plot_quote(out, panels[k].xlabel);
		fputc('\n', out);
		if (k == 0) {
			pow2_axis(out, c, 0, 9);
		} else {
			fputs("unset logscale x\nunset key\n", out);
			if (ps_column_range(c, 1, -1, &lo, &hi))
				ps_log_axis(out, "x", lo, hi, false);
		}
		if (ps_column_range(c, 2, -1, &lo, &hi)) {
			if (slo > 0.0 && isfinite(slo)) {
				lo = fmin(lo, slo);
				hi = fmax(hi, slo);
			}
			ps_log_axis(out, "y", lo, hi, false);
		}
		for (size_t i = 0; i < c->nseries; i++) {
			const struct plot_series *s = &c->series[i];
			int b = plot_series_block(c, i);

			if (b < 0)
				continue;
			ps_clause(out, &n);
			fprintf(out, "data index %d using %d:3 with linespoints",
				b, panels[k].x + 1);
			ps_put_lc(out, s);
			fprintf(out, " lw 2 pt %d title ", ps_series_pt(s));
			plot_quote(out, s->label);
		}
		if (slo > 0.0 && isfinite(slo)) {
			ps_clause(out, &n);
			fprintf(out, "%.6g with lines lc rgb '#B00000' dt 4 lw 2 "
				     "title 'latency SLO (%.6g ms)'", slo, slo);
		}
		fputc('\n', out);
	}
	fputs("unset multiplot\n", out);
}

static void script_latency_tokens(FILE *out, const struct plot_chart *c)
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
	latency_range(out, c, 2, c->tpot_slo_ms);
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
		latency_range(out, c, 3, c->ttft_slo_ms);
		latency_panel(out, c, 4, c->ttft_slo_ms, "TTFT");
	}
	fputs("unset multiplot\n", out);
}

static void script_latency(FILE *out, const struct plot_chart *c,
			   const struct plot_output *o)
{
	(void)o;
	if (c->per_sample)
		script_latency_sample(out, c);
	else
		script_latency_tokens(out, c);
}

static void script_replicas(FILE *out, const struct plot_chart *c,
			    const struct plot_output *o)
{
	int n = 0;

	double lo = 1, hi = 1;
	/* output tokens/s per MW of each point's fleet (a serving chart of
	   tokens): thin dashed lines against the right axis */
	bool mw = !c->per_sample && ps_column_range(c, 4, -1, &lo, &hi);

	(void)o;
	set_title(out, c);
	fprintf(out, "set xlabel 'request rate (%s/s)'\n",
		c->per_sample ? "samples" : "requests");
	fputs("set ylabel 'GPUs needed (replicas x GPUs per replica)'\n"
	      "set logscale xy 10\n"
	      "set key top left font ',10' title ",
	      out);
	plot_quote(out, c->note);
	fputc('\n', out);
	if (mw) {
		fputs("set y2label 'output tokens/s per MW (dashed)'\n"
		      "set logscale y2 10\n"
		      "set y2tics nomirror\n"
		      "set ytics nomirror\n",
		      out);
		ps_log_axis(out, "y2", lo, hi * 1.5, false);
	}
	if (ps_column_range(c, 0, -1, &lo, &hi))
		ps_log_axis(out, "x", lo, hi, false);
	if (ps_column_range(c, 1, -1, &lo, &hi))
		ps_log_axis(out, "y", lo, hi * 1.5, false);
	for (size_t i = 0; i < c->nseries; i++) {
		const struct plot_series *s = &c->series[i];
		int b = plot_series_block(c, i);

		if (b < 0)
			continue;
		ps_clause(out, &n);
		fprintf(out, "data index %d using 1:2 with linespoints", b);
		ps_put_lc(out, s);
		fprintf(out, " lw 2 pt %d title ", ps_series_pt(s));
		plot_quote(out, s->label);
		if (!mw)
			continue;
		ps_clause(out, &n);
		fprintf(out, "data index %d using 1:5 axes x1y2 with lines dt 2",
			b);
		ps_put_lc(out, s);
		fputs(" lw 1 notitle", out);
	}
	if (mw) {
		ps_clause(out, &n);
		fputs("NaN with lines dt 2 lc rgb '#555555' lw 1 title "
		      "'dashed: output tokens/s per MW (right axis)'",
		      out);
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
			int col, double dx, double unit, bool pattern, int *n)
{
	char y[32];

	if (unit == 1.0)
		snprintf(y, sizeof(y), "%d", col + 1);
	else
		snprintf(y, sizeof(y), "($%d/%g)", col + 1, unit);
	const struct plot_series *s = &c->series[0];

	for (size_t r = 0; r < s->rows; r++) {
		int cat = (int)s->v[r * (size_t)c->ncols];

		if (!isfinite(s->v[r * (size_t)c->ncols + (size_t)col]))
			continue;
		ps_clause(out, n);
		fprintf(out, "data index %d every ::%zu::%zu using ($1%+.3g):%s "
			     "with boxes lc rgb '%s' fs %s notitle",
			b, r, r, dx, y,
			cat >= 0 && cat < c->ncats && c->cat_rgb[cat][0] ?
				c->cat_rgb[cat] :
				"#0072B2",
			pattern ? "pattern 4 border" : "solid 0.85 border");
	}
}

/* Per-sample energy: per million samples trained and served, a bar per
   device in each panel, in one unit for both. */
static void script_energy_sample(FILE *out, const struct plot_chart *c)
{
	static const char *const what[2] = { "trained", "served" };
	int b = c->nseries ? plot_series_block(c, 0) : -1;
	bool has[2] = { column_has_data(c, 1), column_has_data(c, 2) };
	const char *name;
	double unit = energy_unit(fmax(column_max(c, 1), column_max(c, 2)),
				  &name);

	if (b < 0)
		b = 0;
	fprintf(out, "set multiplot layout 1,%d title ",
		has[0] && has[1] ? 2 : 1);
	plot_quote(out, c->title);
	if (c->held[0]) {
		fputs(".\"\\n\".", out);
		plot_quote(out, c->held);
	}
	fputs(" font ',13'\n"
	      "set yrange [0:*]\n"
	      "set offsets 0, 0, graph 0.15, 0\n"
	      "set boxwidth 0.6\n"
	      "unset key\n",
	      out);
	set_cat_tics(out, c);
	for (int panel = 0; panel < 2; panel++) {
		int n = 0;

		if (!has[panel] && (panel == 1 || has[1]))
			continue;
		cat_reasons(out, c, panel);
		fprintf(out, "set title 'per million samples %s (facility)'\n"
			     "set ylabel 'energy per million samples %s "
			     "(%s)'\n",
			what[panel], what[panel], name);
		energy_bars(out, c, b, panel + 1, 0.0, unit, false, &n);
		fputc('\n', out);
	}
	fputs("unset multiplot\n", out);
}

static void script_energy_tokens(FILE *out, const struct plot_chart *c)
{
	int b = c->nseries ? plot_series_block(c, 0) : -1;
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
		energy_bars(out, c, b, 1, 0.0, 1.0, false, &n);
		fputc('\n', out);
	}
	if (serve) {
		n = 0;
		cat_reasons(out, c, 1);
		fputs("set title 'energy per output token (facility)'\n"
		      "set ylabel 'energy per output token (J)'\n"
		      "set boxwidth 0.36\n",
		      out);
		energy_bars(out, c, b, 2, -0.19, 1.0, false, &n);
		energy_bars(out, c, b, 3, 0.19, 1.0, true, &n);
		ps_clause(out, &n);
		fputs("keyentry with boxes lc rgb '#404040' fs solid 0.85 "
		      "title 'solid: no power cap'", out);
		ps_clause(out, &n);
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

static void script_energy(FILE *out, const struct plot_chart *c,
			  const struct plot_output *o)
{
	(void)o;
	if (c->per_sample)
		script_energy_sample(out, c);
	else
		script_energy_tokens(out, c);
}

static void (*const scripts[PLOT_KIND_COUNT])(
	FILE *out, const struct plot_chart *c, const struct plot_output *o) = {
	[PLOT_SCALING] = script_scaling,   [PLOT_COST_TIME] = script_cost_time,
	[PLOT_MEMORY] = script_memory,	   [PLOT_ROOFLINE] = script_roofline,
	[PLOT_LATENCY] = script_latency,   [PLOT_REPLICAS] = script_replicas,
	[PLOT_ENERGY] = script_energy,	   [PLOT_CACHE] = ps_script_cache,
};

int plot_write_script(FILE *out, const struct plot_chart *c,
		      const struct plot_output *o)
{
	fprintf(out,
		"# capplan plot %s: a gnuplot 5 script written by capplan.\n"
		"# It reads the data file named below; run it with\n"
		"# 'gnuplot SCRIPT' from the directory capplan ran in.\n",
		plot_kind_name(c->kind));
	fputs("set encoding utf8\n", out);
	fprintf(out, "set terminal %s noenhanced size %d,%d\n",
		o->format == PLOT_SVG ? "svg" : "pngcairo", o->width_px,
		o->height_px);
	fputs("set output ", out);
	plot_quote_path(out, o->chart_path);
	fputs("\ndata = ", out);
	plot_quote_path(out, o->data_path);
	fputs("\nset grid\n", out);
	scripts[c->kind](out, c, o);
	fputs("unset output\n", out);
	return ferror(out) ? -1 : 0;
}
