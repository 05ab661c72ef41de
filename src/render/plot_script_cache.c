/* plot_script_cache.c - the gnuplot script of the cache chart (prefix-cache
   hits, TTFT and capacity against cache memory); see plot.h and
   plot_script.c.  Every text from outside goes through plot_quote. */
#include "plot_script_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"

/* Whether some row of a series has 'col' equal to 'v'. */
static bool column_has_value(const struct plot_chart *c, int col, double v)
{
	for (size_t i = 0; i < c->nseries; i++) {
		const struct plot_series *s = &c->series[i];

		for (size_t r = 0; r < s->rows; r++)
			if (s->v[r * (size_t)c->ncols + (size_t)col] == v)
				return true;
	}
	return false;
}

/* Whether some row has a number in column 'col'. */
static bool column_any(const struct plot_chart *c, int col)
{
	double lo = 0.0, hi = 0.0;

	return ps_column_range(c, col, -1, &lo, &hi) ||
	       column_has_value(c, col, 0.0);
}

/* A clause of every device of the cache chart: 'using' and 'with' as
   given, in the device's colour and point type (+ 'pt_delta': -1 is the
   open point of a filled one), 'extra' after them; no title (the key is
   a strip of its own). */
static void cache_clauses(FILE *out, const struct plot_chart *c,
			  const char *using, const char *with, int pt_delta,
			  const char *extra, int *n)
{
	for (size_t i = 0; i < c->nseries; i++) {
		const struct plot_series *s = &c->series[i];
		int b = plot_series_block(c, i);

		if (b < 0)
			continue;
		ps_clause(out, n);
		fprintf(out, "data index %d using %s with %s", b, using, with);
		ps_put_lc(out, s);
		if (strstr(with, "points"))
			fprintf(out, " pt %d", ps_series_pt(s) + pt_delta);
		fprintf(out, "%s notitle", extra);
	}
}

/* The panels of the cache chart: left edge of the first, width of
   each and gap between them in screen fractions; above them the titles
   (pixels), below them the x axis (pixels) over the key, a strip of
   rows (pixels each) across the bottom. */
#define CACHE_PANEL_X0 0.075
#define CACHE_PANEL_W 0.245
#define CACHE_PANEL_GAP 0.085
#define CACHE_TITLES_PX 108.0
#define CACHE_AXIS_PX 62.0
#define CACHE_KEY_ROW_PX 19.0
#define CACHE_KEY_PAD_PX 10.0

/* The plot's rows of the cache chart, in screen fractions from the
   bottom: the key strip [0, key_top], the panels [y0, y1]. */
struct cache_rows {
	double key_top, y0, y1;
};

static struct cache_rows cache_rows_for(int height_px, int key_rows)
{
	double h = height_px > 0 ? height_px : 640;
	struct cache_rows r;

	r.key_top = (2.0 * CACHE_KEY_PAD_PX + key_rows * CACHE_KEY_ROW_PX) / h;
	r.y0 = r.key_top + CACHE_AXIS_PX / h;
	r.y1 = 1.0 - CACHE_TITLES_PX / h;
	if (r.y1 - r.y0 < 0.2) {
		/* a chart too small for the pixels: shares of it */
		r.key_top = 0.15;
		r.y0 = 0.3;
		r.y1 = 0.82;
	}
	return r;
}

/* Place panel 'k' of the cache chart. */
static void cache_panel(FILE *out, int k, const struct cache_rows *r)
{
	double l = CACHE_PANEL_X0 + k * (CACHE_PANEL_W + CACHE_PANEL_GAP);

	fprintf(out, "set lmargin at screen %.4g\nset rmargin at screen %.4g\n"
		     "set bmargin at screen %.4g\nset tmargin at screen %.4g\n",
		l, l + CACHE_PANEL_W, r->y0, r->y1);
}

/*
 * The cache chart: three panels against the memory the cache has (the
 * KV cache per replica on a log axis, or the host tier per replica from
 * 0): the share of prompt tokens the prefix cache served (and the host
 * tier's part of it), the TTFT at the SLO percentile (open points: an
 * overloaded fleet), a replica's capacity (and the rate it is offered);
 * then the key, a strip across the bottom.
 */
void ps_script_cache(FILE *out, const struct plot_chart *c,
			 const struct plot_output *o)
{
	int xcol = c->cache_host ? 2 : 1;
	bool host = column_any(c, 4), over = column_has_value(c, 8, 1.0);
	bool offered = column_any(c, 7);
	double lo = 1, hi = 1, slo = c->ttft_slo_ms, unit = 1.0;
	char x[16], t[96];
	int n = 0, entries = 0, key_rows;
	struct cache_rows rows;

	/* the key: the devices, then what the line styles say, in columns
	   of three rows or more */
	for (size_t i = 0; i < c->nseries; i++)
		entries += plot_series_block(c, i) >= 0;
	entries += host + (slo > 0.0 && isfinite(slo)) + over + offered;
	key_rows = entries > 9 ? (entries + 2) / 3 : 3;
	rows = cache_rows_for(o->height_px, key_rows);
	snprintf(x, sizeof(x), "%d", xcol);
	fputs("set multiplot title ", out);
	plot_quote(out, c->title);
	if (c->held[0]) {
		fputs(".\"\\n\".", out);
		plot_quote(out, c->held);
	}
	fputs(" font ',13'\nset key off\n", out);
	if (c->cache_host) {
		fputs("set xlabel 'host tier per replica (GB)'\n", out);
		if (ps_column_range(c, 1, -1, &lo, &hi))
			fprintf(out, "set xrange [%.6g:%.6g]\n", -hi * 0.03,
				hi * 1.05);
	} else {
		fputs("set xlabel 'KV cache per replica (GB)'\n", out);
		if (ps_column_range(c, 0, -1, &lo, &hi))
			ps_log_axis(out, "x", lo, hi, false);
	}

	/* hits */
	cache_panel(out, 0, &rows);
	fputs("set title 'prefix-cache hits'\n"
	      "set ylabel 'prompt tokens from the cache (%)'\n"
	      "set yrange [0:100]\n",
	      out);
	snprintf(t, sizeof(t), "%s:($4*100)", x);
	cache_clauses(out, c, t, "linespoints", 0, " lw 2", &n);
	if (host) {
		snprintf(t, sizeof(t), "%s:($5*100)", x);
		cache_clauses(out, c, t, "linespoints", -1, " lw 1 dt 2", &n);
	}
	fputc('\n', out);

	/* TTFT, log, in seconds when it reaches ten */
	n = 0;
	cache_panel(out, 1, &rows);
	if (ps_column_range(c, 5, -1, &lo, &hi)) {
		if (slo > 0.0 && isfinite(slo)) {
			lo = fmin(lo, slo);
			hi = fmax(hi, slo);
		}
		unit = hi >= 1e4 ? 1e3 : 1.0;
		ps_log_axis(out, "y", lo / unit, hi / unit, false);
	}
	/* the percentile's name is quoted as every text is */
	snprintf(t, sizeof(t), "time to first token (%s)", c->percentile);
	fputs("set title ", out);
	plot_quote(out, t);
	snprintf(t, sizeof(t), "TTFT %s (%s)", c->percentile,
		 unit > 1.0 ? "s" : "ms");
	fputs("\nset ylabel ", out);
	plot_quote(out, t);
	fputc('\n', out);
	snprintf(t, sizeof(t), "%s:($6/%g)", x, unit);
	cache_clauses(out, c, t, "lines", 0, " lw 2", &n);
	snprintf(t, sizeof(t), "%s:($9==0?$6/%g:NaN)", x, unit);
	cache_clauses(out, c, t, "points", 0, " ps 1.1", &n);
	if (over) {
		snprintf(t, sizeof(t), "%s:($9==1?$6/%g:NaN)", x, unit);
		cache_clauses(out, c, t, "points", -1, " ps 1.3", &n);
	}
	if (slo > 0.0 && isfinite(slo)) {
		ps_clause(out, &n);
		fprintf(out, "%.6g with lines lc rgb '#B00000' dt 4 lw 2 "
			     "notitle", slo / unit);
	}
	fputc('\n', out);

	/* capacity, linear from 0 */
	n = 0;
	cache_panel(out, 2, &rows);
	fputs("unset logscale y\nset ytics autofreq\n"
	      "set title 'capacity (a lower bound)'\n"
	      "set ylabel 'requests/s per replica'\n",
	      out);
	hi = 1.0;
	if (ps_column_range(c, 6, -1, &lo, &hi)) {
		double h2 = hi;

		if (ps_column_range(c, 7, -1, &lo, &h2))
			hi = fmax(hi, h2);
	}
	fprintf(out, "set yrange [0:%.6g]\n", hi * 1.15);
	snprintf(t, sizeof(t), "%s:7", x);
	cache_clauses(out, c, t, "linespoints", 0, " lw 2", &n);
	if (offered) {
		snprintf(t, sizeof(t), "%s:8", x);
		cache_clauses(out, c, t, "lines", 0, " lw 1 dt 2", &n);
	}
	fputc('\n', out);

	/* the key: a strip across the bottom, no axes */
	n = 0;
	fputs("unset title\nunset xlabel\nunset ylabel\nunset border\n"
	      "unset tics\nunset grid\nunset logscale\n"
	      "set xrange [0:1]\nset yrange [0:1]\n"
	      "set lmargin at screen 0.02\nset rmargin at screen 0.98\n"
	      "set bmargin at screen 0\n",
	      out);
	fprintf(out, "set tmargin at screen %.4g\n"
		     "set key on inside center center vertical maxrows %d "
		     "Left reverse font ',10' samplen 2.5 spacing 1.2 width -1\n",
		rows.key_top, key_rows);
	/* a plot of key entries alone trips gnuplot: a curve of nothing */
	ps_clause(out, &n);
	fputs("NaN notitle", out);
	for (size_t i = 0; i < c->nseries; i++) {
		const struct plot_series *s = &c->series[i];

		if (plot_series_block(c, i) < 0)
			continue;
		ps_clause(out, &n);
		fputs("keyentry with linespoints", out);
		ps_put_lc(out, s);
		fprintf(out, " lw 2 pt %d title ", ps_series_pt(s));
		plot_quote(out, s->label);
	}
	if (host) {
		ps_clause(out, &n);
		fputs("keyentry with linespoints lc rgb '#666666' lw 1 dt 2 "
		      "pt 6 title 'dashed: of them from the host tier'", out);
	}
	if (slo > 0.0 && isfinite(slo)) {
		ps_clause(out, &n);
		fprintf(out, "keyentry with lines lc rgb '#B00000' dt 4 lw 2 "
			     "title 'TTFT SLO (%.6g ms)'", slo);
	}
	if (over) {
		ps_clause(out, &n);
		fputs("keyentry with points lc rgb '#666666' pt 6 "
		      "title 'open point: overloaded, the queue grows'", out);
	}
	if (offered) {
		ps_clause(out, &n);
		fputs("keyentry with lines lc rgb '#666666' lw 1 dt 2 "
		      "title 'dashed: requests/s offered per replica'", out);
	}
	fputs("\nunset multiplot\n", out);
}
