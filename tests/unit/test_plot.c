/* test_plot.c - chart records, gnuplot string escaping, and the data and
   script writers (cmocka). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "plot.h"

/* Text a writer produced into a memory stream (free it). */
struct sink {
	FILE *f;
	char *buf;
	size_t len;
};

static void sink_open(struct sink *s)
{
	s->buf = NULL;
	s->len = 0;
	s->f = open_memstream(&s->buf, &s->len);
	assert_non_null(s->f);
}

static char *sink_close(struct sink *s)
{
	assert_int_equal(fclose(s->f), 0);
	return s->buf;
}

static char *quoted(const char *text, bool path)
{
	struct sink s;

	sink_open(&s);
	if (path)
		plot_quote_path(s.f, text);
	else
		plot_quote(s.f, text);
	return sink_close(&s);
}

static void check_quote(const char *in, const char *want)
{
	char *got = quoted(in, false);

	assert_string_equal(got, want);
	free(got);
}

static void test_quote_plain(void **state)
{
	(void)state;
	check_quote("H100-SXM", "'H100-SXM'");
	check_quote("", "''");
	check_quote("a b\\c", "'a b\\c'");
}

static void test_quote_doubles_quotes(void **state)
{
	(void)state;
	check_quote("it's", "'it''s'");
	check_quote("'", "''''");
	check_quote("x';system('touch /tmp/p');'",
		    "'x'';system(''touch /tmp/p'');'''");
}

static void test_quote_control_characters(void **state)
{
	(void)state;
	check_quote("a\nb", "'a b'");
	check_quote("a\r\n!touch x", "'a  !touch x'");
	check_quote("t\tab\x7f\x01", "'t ab  '");
}

static void test_quote_keeps_backquotes_and_macros(void **state)
{
	(void)state;
	/* inert inside single quotes: no substitution happens there */
	check_quote("`id`@macro", "'`id`@macro'");
}

static void test_quote_path(void **state)
{
	char *got;

	(void)state;
	got = quoted("chart.png", true);
	assert_string_equal(got, "'./chart.png'");
	free(got);
	got = quoted("/tmp/c.png", true);
	assert_string_equal(got, "'/tmp/c.png'");
	free(got);
	got = quoted("|touch x", true);
	assert_string_equal(got, "'./|touch x'");
	free(got);
	got = quoted("<cat /etc/passwd", true);
	assert_string_equal(got, "'./<cat /etc/passwd'");
	free(got);
	got = quoted("~/a'b", true);
	assert_string_equal(got, "'./~/a''b'");
	free(got);
}

static void test_kind_names(void **state)
{
	enum plot_kind k;

	(void)state;
	for (int i = 0; i < PLOT_KIND_COUNT; i++) {
		const char *const *cols = NULL;

		assert_non_null(plot_kind_name((enum plot_kind)i));
		assert_non_null(plot_kind_summary((enum plot_kind)i));
		assert_int_equal(plot_kind_parse(plot_kind_name((enum plot_kind)i),
						 &k),
				 0);
		assert_int_equal(k, i);
		assert_true(plot_kind_columns(k, &cols) >= 2);
		assert_non_null(cols);
	}
	assert_int_equal(plot_kind_parse("Scaling", &k), -1);
	assert_int_equal(plot_kind_parse("", &k), -1);
	assert_null(plot_kind_name(PLOT_KIND_COUNT));
}

static void test_format_from_path(void **state)
{
	enum plot_format f = PLOT_SVG;

	(void)state;
	assert_int_equal(plot_format_from_path("a.png", &f), 0);
	assert_int_equal(f, PLOT_PNG);
	assert_int_equal(plot_format_from_path("dir.x/b.SVG", &f), 0);
	assert_int_equal(f, PLOT_SVG);
	assert_int_equal(plot_format_from_path("a.pdf", &f), -1);
	assert_int_equal(plot_format_from_path("png", &f), -1);
	assert_int_equal(plot_format_from_path(".png", &f), -1);
	assert_int_equal(plot_format_from_path("d.png/x", &f), -1);
	assert_int_equal(plot_format_from_path("d/.png", &f), -1);
}

static void test_size_parse(void **state)
{
	int w = 0, h = 0;

	(void)state;
	assert_int_equal(plot_size_parse("1024x640", &w, &h), 0);
	assert_int_equal(w, 1024);
	assert_int_equal(h, 640);
	assert_int_equal(plot_size_parse("100x10000", &w, &h), 0);
	assert_int_equal(plot_size_parse("99x640", &w, &h), -1);
	assert_int_equal(plot_size_parse("1024x10001", &w, &h), -1);
	assert_int_equal(plot_size_parse("1024X640", &w, &h), -1);
	assert_int_equal(plot_size_parse("1024x", &w, &h), -1);
	assert_int_equal(plot_size_parse("x640", &w, &h), -1);
	assert_int_equal(plot_size_parse("-200x640", &w, &h), -1);
	assert_int_equal(plot_size_parse(" 200x640", &w, &h), -1);
	assert_int_equal(plot_size_parse("200x640 ", &w, &h), -1);
	assert_int_equal(plot_size_parse("1e3x640", &w, &h), -1);
	assert_int_equal(w, 100);
	assert_int_equal(h, 10000);
}

/* A small scaling chart: two devices, the second without points. */
static struct plot_chart *small_chart(const char *label)
{
	struct plot_chart *c = plot_chart_new(PLOT_SCALING);
	struct plot_series *s;
	const double r1[4] = { 8, 123.456789, 123.456789, 0.99 };
	const double r2[4] = { 16, 64.5, NAN, 0.985 };

	assert_non_null(c);
	snprintf(c->title, sizeof(c->title), "Time to train: %s", label);
	assert_non_null(plot_chart_add_series(c, "empty", PLOT_ROLE_DEVICE,
					      1));
	s = plot_chart_add_series(c, label, PLOT_ROLE_DEVICE, 2);
	assert_non_null(s);
	assert_int_equal(plot_series_add_row(c, s, r1), 0);
	assert_int_equal(plot_series_add_row(c, s, r2), 0);
	return c;
}

static void test_chart_records(void **state)
{
	struct plot_chart *c = plot_chart_new(PLOT_MEMORY);
	struct plot_series *s;
	double row[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };

	(void)state;
	assert_non_null(c);
	assert_int_equal(c->ncols, 8);
	assert_false(plot_chart_has_data(c));
	s = plot_chart_add_series(c, "m", PLOT_ROLE_BARS, 0);
	assert_non_null(s);
	assert_false(plot_chart_has_data(c));
	for (int i = 0; i < 100; i++) {
		row[0] = i;
		assert_int_equal(plot_series_add_row(c, s, row), 0);
	}
	assert_int_equal(s->rows, 100);
	assert_true(s->v[99 * 8] == 99.0);
	assert_true(plot_chart_has_data(c));
	for (int i = 0; i < PLOT_MAX_CATS; i++)
		assert_int_equal(plot_chart_add_cat(c, "x"), i);
	assert_int_equal(plot_chart_add_cat(c, "x"), -1);
	plot_chart_free(c);
	plot_chart_free(NULL);
	assert_null(plot_chart_new(PLOT_KIND_COUNT));
}

static void test_write_data(void **state)
{
	struct plot_chart *c = small_chart("H1'00");
	struct sink s;
	char *got;

	(void)state;
	sink_open(&s);
	assert_int_equal(plot_write_data(s.f, c), 0);
	got = sink_close(&s);
	assert_string_equal(got,
			    "# capplan plot scaling: 'Time to train: H1''00'\n"
			    "# columns: gpus time_days ideal_days goodput\n"
			    "\n\n"
			    "# index 0: 'H1''00'\n"
			    "# gpus time_days ideal_days goodput\n"
			    "8 123.457 123.457 0.99\n"
			    "16 64.5 NaN 0.985\n");
	free(got);
	plot_chart_free(c);
}

/*
 * True when every line of 'script' closes the single quotes it opens
 * ('' inside a string is a quote) and no text outside the quotes
 * contains 'bad'.
 */
static bool quotes_balanced(const char *script, const char *bad)
{
	char outside[8192];
	size_t n = 0;
	bool in = false;

	for (const char *p = script; *p; p++) {
		if (*p == '\n') {
			if (in)
				return false;
			outside[n++] = '\n';
		} else if (*p == '\'') {
			if (in && p[1] == '\'')
				p++;
			else
				in = !in;
		} else if (!in && n + 1 < sizeof(outside)) {
			outside[n++] = *p;
		}
	}
	outside[n] = '\0';
	return !in && !strstr(outside, bad);
}

static void test_write_script(void **state)
{
	struct plot_chart *c = small_chart("x';system('touch /tmp/p');'`id`");
	struct plot_output o = { "d.dat", "/out/o.png", PLOT_PNG, 800, 600 };
	struct sink s;
	char *got;

	(void)state;
	sink_open(&s);
	assert_int_equal(plot_write_script(s.f, c, &o), 0);
	got = sink_close(&s);
	assert_non_null(strstr(got, "\nset terminal pngcairo noenhanced "
				    "size 800,600\n"));
	assert_non_null(strstr(got, "\nset output '/out/o.png'\n"));
	assert_non_null(strstr(got, "\ndata = './d.dat'\n"));
	assert_non_null(strstr(got, "\nset logscale x 2\n"));
	/* the empty series has no block: the device is index 0 */
	assert_non_null(strstr(got, "plot data index 0 using 1:2 with "
				    "linespoints lc 2 lw 2 pt 7 ps 1.1 title "
				    "'x'';system(''touch /tmp/p'');''`id`'"));
	assert_null(strstr(got, "index 1"));
	assert_non_null(strstr(got, "'dashed: ideal linear scaling from "
				    "each device''s most efficient point'\n"
				    "unset output\n"));
	assert_true(quotes_balanced(got, "system"));
	assert_true(quotes_balanced(got, "`"));
	free(got);

	o.format = PLOT_SVG;
	sink_open(&s);
	assert_int_equal(plot_write_script(s.f, c, &o), 0);
	got = sink_close(&s);
	assert_non_null(strstr(got, "\nset terminal svg noenhanced "
				    "size 800,600\n"));
	free(got);
	plot_chart_free(c);
}

/* A newline in a name cannot start a new gnuplot command ('!' runs a
   shell command at the start of a line). */
static void test_script_newline_in_names(void **state)
{
	static const char *const evil = "a\n!touch /tmp/pwned\nsystem('id')";
	struct plot_output o = { "a\nb.dat", "c\n.svg", PLOT_SVG, 400, 300 };
	struct sink s;
	char *got;

	(void)state;
	/* each kind, of a transformer and of a per-sample model */
	for (int ks = 0; ks < 2 * PLOT_KIND_COUNT; ks++) {
		int k = ks % PLOT_KIND_COUNT;
		struct plot_chart *c = plot_chart_new((enum plot_kind)k);
		struct plot_series *ser;
		double row[PLOT_MAX_COLS] = { 0, 1, 2, 3, 4, 5, 6, 7 };

		assert_non_null(c);
		if (ks >= PLOT_KIND_COUNT) {
			plot_chart_set_per_sample(c);
			c->samples = 1e6;
			c->deadline_s = 3600;
			c->deadline_days = 3600.0 / 86400.0;
			c->budget_usd = 10;
			c->latency_slo_ms = 5;
		}
		snprintf(c->title, sizeof(c->title), "%s", evil);
		snprintf(c->note, sizeof(c->note), "%s", evil);
		c->tpot_slo_ms = 50;
		assert_int_equal(plot_chart_add_cat(c, evil), 0);
		ser = plot_chart_add_series(c, evil, PLOT_ROLE_DEVICE, 1);
		assert_non_null(ser);
		assert_int_equal(plot_series_add_row(c, ser, row), 0);
		ser = plot_chart_add_series(c, evil, PLOT_ROLE_POINTS, 1);
		assert_non_null(ser);
		assert_int_equal(plot_series_add_row(c, ser, row), 0);
		ser = plot_chart_add_series(c, evil, PLOT_ROLE_FRONT, 0);
		assert_non_null(ser);
		assert_int_equal(plot_series_add_row(c, ser, row), 0);

		sink_open(&s);
		assert_int_equal(plot_write_script(s.f, c, &o), 0);
		got = sink_close(&s);
		assert_null(strstr(got, "\n!"));
		assert_null(strstr(got, "\nsystem"));
		assert_true(quotes_balanced(got, "system"));
		assert_true(quotes_balanced(got, "touch"));
		free(got);

		sink_open(&s);
		assert_int_equal(plot_write_data(s.f, c), 0);
		got = sink_close(&s);
		/* every line is a comment or numbers */
		for (char *line = got; *line;) {
			char *end = strchr(line, '\n');

			assert_true(*line == '#' || *line == '\n' ||
				    (*line >= '0' && *line <= '9') ||
				    *line == '-');
			if (!end)
				break;
			line = end + 1;
		}
		free(got);
		plot_chart_free(c);
	}
}

/* A fake gnuplot: a shell script of 'body' in a new folder that is put
   first on PATH (the old PATH in 'old', to restore). */
static void fake_gnuplot(char *dir, const char *body, char **old)
{
	char path[128];
	const char *p = getenv("PATH");
	char *new_path;
	FILE *f;

	strcpy(dir, "/tmp/test_plot_XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/gnuplot", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\n%s\n", body);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, 0755), 0);
	*old = strdup(p ? p : "/usr/bin:/bin");
	new_path = malloc(strlen(dir) + strlen(*old) + 2);
	assert_non_null(new_path);
	sprintf(new_path, "%s:%s", dir, *old);
	assert_int_equal(setenv("PATH", new_path, 1), 0);
	free(new_path);
}

static void unfake_gnuplot(const char *dir, char *old)
{
	char path[128];

	assert_int_equal(setenv("PATH", old, 1), 0);
	free(old);
	snprintf(path, sizeof(path), "%s/gnuplot", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/args", dir);
	unlink(path);
	rmdir(dir);
}

static double seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A gnuplot that hangs is killed at the time limit and reported. */
static void test_gnuplot_time_limit(void **state)
{
	char dir[32], why[256];
	char *old;
	double t0, dt;

	(void)state;
	fake_gnuplot(dir, "exec sleep 30", &old);
	t0 = seconds();
	assert_int_equal(plot_run_gnuplot("x.gp", 0.3, why, sizeof(why)),
			 PLOT_RUN_FAILED);
	dt = seconds() - t0;
	assert_string_equal(why, "gnuplot did not finish within 0.3 s and was "
				 "stopped");
	if (dt < 0.3 || dt > 5.0)
		fail_msg("waited %g s for a limit of 0.3 s", dt);
	unfake_gnuplot(dir, old);
	assert_true(PLOT_GNUPLOT_TIMEOUT_S == 60.0);
}

/* A script name that starts with '-' reaches gnuplot as a file. */
static void test_gnuplot_dash_name(void **state)
{
	char dir[32], why[256], body[160], args[128], line[64];
	char *old;
	FILE *f;

	(void)state;
	fake_gnuplot(dir, "", &old);
	/* rewrite the fake now that its folder is known */
	snprintf(args, sizeof(args), "%s/args", dir);
	snprintf(body, sizeof(body), "printf '%%s\\n' \"$@\" >%s", args);
	{
		char path[128];

		snprintf(path, sizeof(path), "%s/gnuplot", dir);
		f = fopen(path, "w");
		assert_non_null(f);
		fprintf(f, "#!/bin/sh\n%s\n", body);
		assert_int_equal(fclose(f), 0);
	}
	assert_int_equal(plot_run_gnuplot("-dash.gp", 10.0, why, sizeof(why)),
			 PLOT_RUN_OK);
	f = fopen(args, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	fclose(f);
	assert_string_equal(line, "./-dash.gp\n");
	assert_int_equal(plot_run_gnuplot("plain.gp", 10.0, why, sizeof(why)),
			 PLOT_RUN_OK);
	f = fopen(args, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	fclose(f);
	assert_string_equal(line, "plain.gp\n");
	unfake_gnuplot(dir, old);
}

/* A device keeps one style in every chart; the default devices have
   distinct colours; no colour is Okabe-Ito's yellow; an unknown name
   gets a palette colour from its hash, the same each time. */
static void test_device_style(void **state)
{
	static const char *const defaults[] = { "A100-SXM-80GB", "H100-SXM",
						"H200-SXM", "B200", "MI300X",
						"GB200" };
	char rgb[6][8], a[8], b[8];
	int pt, pa, pb;

	(void)state;
	for (int i = 0; i < 6; i++) {
		plot_device_style(defaults[i], rgb[i], &pt);
		assert_int_equal(strlen(rgb[i]), 7);
		assert_int_equal(rgb[i][0], '#');
		assert_string_not_equal(rgb[i], "#F0E442");
		for (int j = 0; j < i; j++)
			assert_string_not_equal(rgb[i], rgb[j]);
	}
	/* the common inference cards differ from each other and from the
	   defaults in colour or point type */
	{
		static const char *const cards[] = {
			"A100-SXM-80GB", "H100-SXM", "H200-SXM", "B200",
			"MI300X", "GB200", "L4", "T4", "A10", "A30", "L40",
			"A40", "V100-SXM-32GB", "H20", "B300", "MI355X",
		};
		char c[16][8];
		int p[16];

		for (int i = 0; i < 16; i++) {
			plot_device_style(cards[i], c[i], &p[i]);
			for (int j = 0; j < i; j++)
				assert_true(strcmp(c[i], c[j]) != 0 ||
					    p[i] != p[j]);
		}
	}
	plot_device_style("Acme-X9", a, &pa);
	plot_device_style("Acme-X9", b, &pb);
	assert_string_equal(a, b);
	assert_int_equal(pa, pb);
	assert_true(pa > 0);
	assert_string_not_equal(a, "#F0E442");
}

/* Devices of one chart that share a colour are told apart: the common
   device keeps its own, the other takes a colour no device of the chart
   has, every series of one device keeps one colour, and bars too. */
static void test_distinct_colours(void **state)
{
	struct plot_chart *c = plot_chart_new(PLOT_ROOFLINE);
	struct plot_series *roof_x, *pts_x, *roof_h, *pts_h, *front;
	char h100[8], b200[8];
	int pt;

	(void)state;
	assert_non_null(c);
	plot_device_style("H100-SXM", h100, &pt);
	plot_device_style("B200", b200, &pt);
	/* an uncommon device first, in H100's colour */
	roof_x = plot_chart_add_series(c, "Acme-X9", PLOT_ROLE_DEVICE, 0);
	pts_x = plot_chart_add_series(c, "Acme-X9", PLOT_ROLE_POINTS, 0);
	roof_h = plot_chart_add_device(c, "H100-SXM", "H100-SXM", 3);
	pts_h = plot_chart_add_series(c, "H100-SXM", PLOT_ROLE_POINTS, 0);
	front = plot_chart_add_series(c, "front", PLOT_ROLE_FRONT, 0);
	assert_non_null(front);
	/* a device's series: its role, label, colour index and style */
	assert_int_equal(roof_h->role, PLOT_ROLE_DEVICE);
	assert_string_equal(roof_h->label, "H100-SXM");
	assert_int_equal(roof_h->color, 3);
	assert_string_equal(roof_h->rgb, h100);
	plot_series_set_device(pts_h, "H100-SXM");
	snprintf(roof_x->rgb, 8, "%s", h100);
	snprintf(pts_x->rgb, 8, "%s", h100);
	plot_chart_distinct_colours(c);
	assert_string_equal(roof_h->rgb, h100);
	assert_string_equal(pts_h->rgb, h100);
	assert_string_not_equal(roof_x->rgb, h100);
	assert_string_equal(pts_x->rgb, roof_x->rgb);
	assert_string_equal(front->rgb, "");
	plot_chart_free(c);

	/* bars: B200 keeps its colour, the other moves; distinct devices
	   already apart are left as they are */
	c = plot_chart_new(PLOT_ENERGY);
	assert_non_null(c);
	assert_int_equal(plot_chart_add_cat(c, "Acme-X9"), 0);
	assert_int_equal(plot_chart_add_cat(c, "B200"), 1);
	assert_int_equal(plot_chart_add_cat(c, "H100-SXM"), 2);
	snprintf(c->cat_rgb[0], 8, "%s", b200);
	snprintf(c->cat_rgb[1], 8, "%s", b200);
	snprintf(c->cat_rgb[2], 8, "%s", h100);
	plot_chart_distinct_colours(c);
	assert_string_equal(c->cat_rgb[1], b200);
	assert_string_equal(c->cat_rgb[2], h100);
	assert_string_not_equal(c->cat_rgb[0], b200);
	assert_string_not_equal(c->cat_rgb[0], h100);
	assert_int_equal(c->cat_rgb[0][0], '#');
	plot_chart_free(c);
}

/* Texts of the chart that come from names (the front's labels, the
   reasons in place of bars, the lines above bars) stay quoted. */
static void test_script_labels_quoted(void **state)
{
	static const char *const evil = "x';system('id');'`id`";
	static const enum plot_kind kinds[] = { PLOT_COST_TIME, PLOT_MEMORY,
						PLOT_ENERGY };
	double row[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	struct plot_output o = { "d.dat", "o.svg", PLOT_SVG, 800, 600 };

	(void)state;
	for (size_t ks = 0; ks < 2 * sizeof(kinds) / sizeof(kinds[0]); ks++) {
		size_t k = ks % (sizeof(kinds) / sizeof(kinds[0]));
		struct plot_chart *c = plot_chart_new(kinds[k]);
		struct plot_series *ser;
		struct sink s;
		char *got;

		assert_non_null(c);
		if (ks >= sizeof(kinds) / sizeof(kinds[0]))
			plot_chart_set_per_sample(c);
		assert_int_equal(plot_chart_add_cat(c, evil), 0);
		snprintf(c->cat_why[0][0], PLOT_WHY_MAX, "%s", evil);
		snprintf(c->cat_why[0][1], PLOT_WHY_MAX, "%s", evil);
		snprintf(c->cat_sub[0], PLOT_LABEL_MAX, "%s;%s", evil, evil);
		plot_chart_add_label(c, 1.0, 2.0, evil);
		snprintf(c->held, sizeof(c->held), "%s", evil);
		ser = plot_chart_add_series(c, evil, PLOT_ROLE_BARS, 1);
		assert_non_null(ser);
		plot_series_set_device(ser, evil);
		assert_int_equal(plot_series_add_row(c, ser, row), 0);
		sink_open(&s);
		assert_int_equal(plot_write_script(s.f, c, &o), 0);
		got = sink_close(&s);
		assert_true(quotes_balanced(got, "system"));
		assert_true(quotes_balanced(got, "`"));
		free(got);
		plot_chart_free(c);
	}
}

/* A per-sample chart has its own columns, summary and scripts: in
   samples, time in the unit of its range, limits per million samples. */
static void test_per_sample_charts(void **state)
{
	struct plot_output o = { "d.dat", "o.svg", PLOT_SVG, 800, 600 };
	struct plot_chart *c;
	struct plot_series *ser;
	struct sink s;
	char *got;

	(void)state;
	/* columns and summaries */
	assert_string_equal(plot_kind_summary_for(PLOT_SCALING, false),
			    plot_kind_summary(PLOT_SCALING));
	assert_non_null(strstr(plot_kind_summary_for(PLOT_SCALING, true),
			       "samples/s per GPU"));
	assert_string_equal(plot_kind_summary_for(PLOT_MEMORY, true),
			    plot_kind_summary(PLOT_MEMORY));
	assert_null(plot_kind_summary_for(PLOT_KIND_COUNT, true));

	/* scaling: samples/s per GPU, the deadline as the rate it needs */
	c = plot_chart_new(PLOT_SCALING);
	assert_non_null(c);
	plot_chart_set_per_sample(c);
	assert_int_equal(c->ncols, 4);
	c->samples = 7.2e9;
	c->deadline_s = 3600.0;
	ser = plot_chart_add_series(c, "H100-SXM", PLOT_ROLE_DEVICE, 1);
	assert_non_null(ser);
	assert_int_equal(plot_series_add_row(c, ser, (double[]){ 8, 5e3, 5e3,
								 0.99 }),
			 0);
	sink_open(&s);
	assert_int_equal(plot_write_data(s.f, c), 0);
	got = sink_close(&s);
	assert_non_null(strstr(got, "# columns: gpus samples_per_s_per_gpu "
				    "ideal_samples_per_s_per_gpu goodput\n"));
	free(got);
	sink_open(&s);
	assert_int_equal(plot_write_script(s.f, c, &o), 0);
	got = sink_close(&s);
	assert_non_null(strstr(got, "samples/s"));
	/* 7.2e9 samples in 3600 s: 2e6 samples/s over x GPUs */
	assert_non_null(strstr(got, "2e+06/x with lines"));
	free(got);
	plot_chart_free(c);

	/* cost-time: minutes for a run of minutes, the budget per million
	   samples ($10 for 1e6 samples: $10 per million) */
	c = plot_chart_new(PLOT_COST_TIME);
	assert_non_null(c);
	plot_chart_set_per_sample(c);
	assert_int_equal(c->ncols, 3);
	c->samples = 1e6;
	c->budget_usd = 10.0;
	ser = plot_chart_add_series(c, "H100-SXM", PLOT_ROLE_DEVICE, 1);
	assert_non_null(ser);
	assert_int_equal(plot_series_add_row(c, ser, (double[]){ 0.01, 2.5,
								 8 }),
			 0);
	sink_open(&s);
	assert_int_equal(plot_write_script(s.f, c, &o), 0);
	got = sink_close(&s);
	assert_non_null(strstr(got, "expected time to train (minutes)"));
	assert_non_null(strstr(got, "using ($1*1440):2"));
	assert_non_null(strstr(got, "cost per million samples"));
	assert_non_null(strstr(got, "\n     10 with lines"));
	free(got);
	plot_chart_free(c);

	/* latency: three columns, two panels, the target line */
	c = plot_chart_new(PLOT_LATENCY);
	assert_non_null(c);
	plot_chart_set_per_sample(c);
	assert_int_equal(c->ncols, 3);
	c->latency_slo_ms = 5.0;
	ser = plot_chart_add_series(c, "L4", PLOT_ROLE_DEVICE, 1);
	assert_non_null(ser);
	assert_int_equal(plot_series_add_row(c, ser, (double[]){ 1, 100, 1 }),
			 0);
	assert_int_equal(plot_series_add_row(c, ser,
					     (double[]){ 64, 3000, 21 }),
			 0);
	sink_open(&s);
	assert_int_equal(plot_write_script(s.f, c, &o), 0);
	got = sink_close(&s);
	assert_non_null(strstr(got, "set multiplot layout 1,2"));
	assert_non_null(strstr(got, "using 1:3 with linespoints"));
	assert_non_null(strstr(got, "using 2:3 with linespoints"));
	assert_non_null(strstr(got, "latency SLO (5 ms)"));
	assert_null(strstr(got, "TPOT"));
	free(got);
	plot_chart_free(c);

	/* energy: one unit for both panels, kJ here */
	c = plot_chart_new(PLOT_ENERGY);
	assert_non_null(c);
	plot_chart_set_per_sample(c);
	assert_int_equal(c->ncols, 3);
	assert_int_equal(plot_chart_add_cat(c, "B200"), 0);
	ser = plot_chart_add_series(c, "energy", PLOT_ROLE_BARS, 0);
	assert_non_null(ser);
	assert_int_equal(plot_series_add_row(c, ser,
					     (double[]){ 0, 1.8e5, 7.8e4 }),
			 0);
	sink_open(&s);
	assert_int_equal(plot_write_script(s.f, c, &o), 0);
	got = sink_close(&s);
	assert_non_null(strstr(got, "energy per million samples trained (kJ)"));
	assert_non_null(strstr(got, "energy per million samples served (kJ)"));
	assert_non_null(strstr(got, "($2/1000)"));
	free(got);
	plot_chart_free(c);
}

/* The script of chart 'c' at 'width' x 'height' pixels (free it). */
static char *script_of(const struct plot_chart *c, int width, int height)
{
	struct plot_output o = { "d.dat", "o.png", PLOT_PNG, width, height };
	struct sink s;

	sink_open(&s);
	assert_int_equal(plot_write_script(s.f, c, &o), 0);
	return sink_close(&s);
}

/* The line of 'script' that sets the label 'text' (NUL-terminated in a
   copy; free it), or NULL. */
static char *label_line(const char *script, const char *text)
{
	char want[64];
	const char *at, *end;

	snprintf(want, sizeof(want), "set label '%s' at ", text);
	at = strstr(script, want);
	if (!at)
		return NULL;
	end = strchr(at, '\n');
	return strndup(at, end ? (size_t)(end - at) : strlen(at));
}

/* Memory: the optimizer states a device offloads to host memory, which
   its bar leaves out, are written above the bar; none, nothing. */
static void test_memory_host(void **state)
{
	static const double offloads[8] = { 0, 35.28, 17.64, 0, 23.03,
					    5.276, 85.52, 105.83 };
	static const double keeps[8] = { 1, 17.64, 17.64, 105.83, 46.06,
					 11.29, 205.8, 0 };
	struct plot_chart *c = plot_chart_new(PLOT_MEMORY);
	struct plot_series *s;
	char *got;

	(void)state;
	assert_non_null(c);
	assert_int_equal(plot_chart_add_cat(c, "H100-SXM"), 0);
	assert_int_equal(plot_chart_add_cat(c, "MI300X"), 1);
	snprintf(c->cat_sub[0], PLOT_LABEL_MAX, "tp4 pp1 dp1;ZeRO 2, mb 1");
	snprintf(c->cat_sub[1], PLOT_LABEL_MAX, "tp8 pp1 dp1;ZeRO 0, mb 2");
	s = plot_chart_add_series(c, "memory per GPU", PLOT_ROLE_BARS, 0);
	assert_non_null(s);
	assert_int_equal(plot_series_add_row(c, s, offloads), 0);
	assert_int_equal(plot_series_add_row(c, s, keeps), 0);
	got = script_of(c, 1024, 640);
	assert_non_null(strstr(got, "set label 'tp4 pp1 dp1'.\"\\n\"."
				    "'ZeRO 2, mb 1'.\"\\n\"."
				    "'optimizer on host: 105.8 GB' at first 0, "
				    "first 85.52 "));
	assert_non_null(strstr(got, "set label 'tp8 pp1 dp1'.\"\\n\"."
				    "'ZeRO 0, mb 2' at first 1, first 205.8 "));
	assert_null(strstr(strstr(got, "on host") + 1, "on host"));
	free(got);
	plot_chart_free(c);
}

/* Roofline: the intensity axis is the roofs' span (a decade around the
   points and ridges, plot_build.c), not 0.1 to 10000. */
static void test_roofline_axis(void **state)
{
	struct plot_chart *c = plot_chart_new(PLOT_ROOFLINE);
	struct plot_series *roof, *pts;
	char *got;

	(void)state;
	assert_non_null(c);
	roof = plot_chart_add_series(c, "H100-SXM", PLOT_ROLE_DEVICE, 1);
	assert_non_null(roof);
	assert_int_equal(plot_series_add_row(c, roof,
					     (double[]){ -1, 10, 30.15 }), 0);
	assert_int_equal(plot_series_add_row(c, roof,
					     (double[]){ -1, 246.1, 742.1 }),
			 0);
	assert_int_equal(plot_series_add_row(c, roof,
					     (double[]){ -1, 50000, 742.1 }),
			 0);
	pts = plot_chart_add_series(c, "H100-SXM", PLOT_ROLE_POINTS, 1);
	assert_non_null(pts);
	assert_int_equal(plot_series_add_row(c, pts,
					     (double[]){ 2, 100.5, 303.2 }), 0);
	got = script_of(c, 1024, 640);
	assert_non_null(strstr(got, "\nset xrange [10:50000]\n"));
	assert_non_null(strstr(got, "\nset xtics ('10' 10, '20' 20, "));
	assert_non_null(strstr(got, "'50K' 50000)\n"));
	/* the y axis spans the roofs and points, with a margin */
	assert_non_null(strstr(got, "\nset yrange [24.12:927.625]\n"));
	free(got);
	plot_chart_free(c);
}

/* Scaling: a note (the goodput every device has) is a line of the key
   without a sample; no note, no line. */
static void test_scaling_note(void **state)
{
	struct plot_chart *c = small_chart("H100-SXM");
	char *got;

	(void)state;
	got = script_of(c, 1024, 640);
	assert_null(strstr(got, "nodraw"));
	free(got);
	snprintf(c->note, sizeof(c->note), "goodput 99.1%% at 8 to 98.5%% at "
		 "16 GPUs, the same on every device");
	got = script_of(c, 1024, 640);
	assert_non_null(strstr(got, ", \\\n     keyentry with lines lt nodraw "
				    "title 'goodput 99.1% at 8 to 98.5% at 16 "
				    "GPUs, the same on every device'\n"));
	free(got);
	plot_chart_set_per_sample(c);
	got = script_of(c, 1024, 640);
	assert_non_null(strstr(got, "keyentry with lines lt nodraw "
				    "title 'goodput 99.1%"));
	free(got);
	plot_chart_free(c);
}

/* The cache chart: the x axis of its mode, the hits in percent, open
   points where the fleet is overloaded, the SLO line, and the key as a
   strip of its own with a line for each style used. */
static void test_script_cache(void **state)
{
	static const double rows[3][9] = {
		/* kv_gb host_gb fraction hits host ttft_ms cap offered over */
		{ 3.2, 0, 0.26, 0.485, (double)NAN, 117307, 3.74, 7.5, 1 },
		{ 28.9, 0, 0.56, 0.678, (double)NAN, 388.15, 8.96, 7.5, 0 },
		{ 58.3, 0, 0.9, 0.882, (double)NAN, 222.46, 9.88, 7.5, 0 },
	};
	struct plot_output o = { "c.dat", "c.svg", PLOT_SVG, 1024, 640 };
	struct plot_chart *c = plot_chart_new(PLOT_CACHE);
	struct plot_series *s;
	struct sink k;
	char *got;

	(void)state;
	assert_non_null(c);
	assert_string_equal(plot_kind_name(PLOT_CACHE), "cache");
	c->ttft_slo_ms = 1000;
	snprintf(c->percentile, sizeof(c->percentile), "p99");
	s = plot_chart_add_device(c, "H100-SXM (4 replicas, tp1)", "H100-SXM",
				  1);
	assert_non_null(s);
	for (int r = 0; r < 3; r++)
		assert_int_equal(plot_series_add_row(c, s, rows[r]), 0);
	sink_open(&k);
	assert_int_equal(plot_write_script(k.f, c, &o), 0);
	got = sink_close(&k);
	assert_non_null(strstr(got, "set xlabel 'KV cache per replica (GB)'"));
	assert_non_null(strstr(got, "set logscale x 10"));
	assert_non_null(strstr(got, "using 1:($4*100) with linespoints"));
	/* TTFT past ten seconds: in seconds, the SLO too */
	assert_non_null(strstr(got, "set ylabel 'TTFT p99 (s)'"));
	assert_non_null(strstr(got, "using 1:($9==1?$6/1000:NaN) with points"));
	assert_non_null(strstr(got, "1 with lines lc rgb '#B00000'"));
	assert_non_null(strstr(got, "title 'TTFT SLO (1000 ms)'"));
	assert_non_null(strstr(got, "title 'open point: overloaded"));
	assert_non_null(strstr(got, "title 'dashed: requests/s offered"));
	assert_null(strstr(got, "host tier"));
	assert_non_null(strstr(got, "title 'H100-SXM (4 replicas, tp1)'"));
	assert_non_null(strstr(got, "unset multiplot"));
	free(got);

	/* a host tier: its axis from 0, its share dashed, nothing overloaded,
	   TTFT in ms */
	plot_chart_free(c);
	c = plot_chart_new(PLOT_CACHE);
	assert_non_null(c);
	c->cache_host = true;
	snprintf(c->percentile, sizeof(c->percentile), "p90");
	s = plot_chart_add_device(c, "MI300X", "MI300X", 1);
	assert_non_null(s);
	for (int r = 0; r < 3; r++) {
		double v[9];

		memcpy(v, rows[r], sizeof(v));
		v[1] = 16.0 * r;
		v[4] = 0.05 * r;
		v[5] = 150.0 + r;
		v[7] = (double)NAN;
		v[8] = 0;
		assert_int_equal(plot_series_add_row(c, s, v), 0);
	}
	sink_open(&k);
	assert_int_equal(plot_write_script(k.f, c, &o), 0);
	got = sink_close(&k);
	assert_non_null(strstr(got, "set xlabel 'host tier per replica (GB)'"));
	assert_non_null(strstr(got, "set xrange [-0.96:33.6]"));
	assert_non_null(strstr(got, "using 2:($5*100) with linespoints"));
	assert_non_null(strstr(got, "title 'dashed: of them from the host tier'"));
	assert_non_null(strstr(got, "set ylabel 'TTFT p90 (ms)'"));
	assert_null(strstr(got, "overloaded"));
	assert_null(strstr(got, "offered"));
	assert_null(strstr(got, "SLO"));
	free(got);
	plot_chart_free(c);
}

/* Cost-time: a label of the Pareto front takes the first free spot
   around its point (above right, or below left for every second one);
   a point of another device there sends it to the next spot. */
static void test_front_labels(void **state)
{
	struct plot_chart *c = plot_chart_new(PLOT_COST_TIME);
	struct plot_series *dev, *other;
	char *got, *line;

	(void)state;
	assert_non_null(c);
	/* axes 1 to 1000 days and $10 to $10000 with their margins (1.25
	   each side: 3.19 decades) over the plot area, the chart less its
	   titles and tics (1024 x 640: 909 x 500 pixels) */
	dev = plot_chart_add_series(c, "A", PLOT_ROLE_DEVICE, 1);
	assert_non_null(dev);
	assert_int_equal(plot_series_add_row(c, dev,
					     (double[]){ 1, 10000, 8 }), 0);
	assert_int_equal(plot_series_add_row(c, dev,
					     (double[]){ 10, 100, 64 }), 0);
	assert_int_equal(plot_series_add_row(c, dev,
					     (double[]){ 1000, 10, 512 }), 0);
	plot_chart_add_label(c, 10, 100, "A x64");
	plot_chart_add_label(c, 1000, 10, "A x512");
	got = script_of(c, 1024, 640);
	line = label_line(got, "A x64");
	assert_non_null(line);
	assert_non_null(strstr(line, " at 10,100 left offset graph 0.0066, "
				     "graph 0.0180 "));
	free(line);
	/* the second label: below left */
	line = label_line(got, "A x512");
	assert_non_null(line);
	assert_non_null(strstr(line, " right offset graph -0.0066, graph "
				     "-0.0180 "));
	free(line);
	free(got);
	/* a point of another device 20 pixels right of and 10 above the
	   first label's point, where its text would go: not there */
	other = plot_chart_add_series(c, "B", PLOT_ROLE_DEVICE, 2);
	assert_non_null(other);
	{
		double decades = log10(1000 * 1.25 * 1.25);
		double row[3] = { 10 * pow(10.0, decades * 20 / 909.0),
				  100 * pow(10.0, decades * 10 / 500.0), 8 };

		assert_int_equal(plot_series_add_row(c, other, row), 0);
	}
	got = script_of(c, 1024, 640);
	line = label_line(got, "A x64");
	assert_non_null(line);
	assert_null(strstr(line, " left offset graph 0.0066, graph 0.0180 "));
	assert_non_null(strstr(line, " right offset graph -0.0066, graph "
				     "-0.0180 "));
	free(line);
	free(got);
	plot_chart_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quote_plain),
		cmocka_unit_test(test_quote_doubles_quotes),
		cmocka_unit_test(test_quote_control_characters),
		cmocka_unit_test(test_quote_keeps_backquotes_and_macros),
		cmocka_unit_test(test_quote_path),
		cmocka_unit_test(test_kind_names),
		cmocka_unit_test(test_format_from_path),
		cmocka_unit_test(test_size_parse),
		cmocka_unit_test(test_chart_records),
		cmocka_unit_test(test_write_data),
		cmocka_unit_test(test_write_script),
		cmocka_unit_test(test_script_newline_in_names),
		cmocka_unit_test(test_gnuplot_time_limit),
		cmocka_unit_test(test_gnuplot_dash_name),
		cmocka_unit_test(test_device_style),
		cmocka_unit_test(test_distinct_colours),
		cmocka_unit_test(test_script_labels_quoted),
		cmocka_unit_test(test_per_sample_charts),
		cmocka_unit_test(test_memory_host),
		cmocka_unit_test(test_roofline_axis),
		cmocka_unit_test(test_scaling_note),
		cmocka_unit_test(test_front_labels),
		cmocka_unit_test(test_script_cache),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
