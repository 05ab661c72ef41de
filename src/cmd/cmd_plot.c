/* cmd_plot.c - 'capplan plot KIND WORKLOAD -o FILE.png|FILE.svg': a chart
   from the models (plot_build.c), drawn by gnuplot.  The data go to
   FILE.dat and the script to FILE.gp; gnuplot draws into a temporary file
   that is renamed into place only when it succeeded.  Also the charts of
   --plot DIR and of report. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "outfile.h"
#include "tempfile.h"
#include "text.h"
#include "infer_plan.h"
#include "plan.h"
#include "plot.h"
#include "plot_build.h"
#include "plot_build_cache.h"
#include "precision.h"
#include "units.h"
#include "readfile.h"

/* Devices drawn when --gpu is not given (those the catalog has). */
static const char *const default_gpus[] = { "A100-SXM-80GB", "H100-SXM",
					    "H200-SXM", "B200", "MI300X" };
/* ... and when the catalog has none of them: its first devices. */
#define PLOT_FALLBACK_GPUS 8

static int oom(void)
{
	fprintf(stderr, "capplan: error: out of memory\n");
	return EXIT_INTERNAL;
}

/* A usage error of plot; returns EXIT_USAGE. */
#define plot_usage(...) cli_usage("plot", __VA_ARGS__)

int cli_plot_devices(struct cli_ctx *ctx)
{
	size_t n = catalog_count(ctx->cat);

	if (ctx->gpu_arg)
		return cli_resolve_gpus(ctx, false);
	ctx->ngpus = 0;
	for (size_t i = 0; i < sizeof(default_gpus) / sizeof(default_gpus[0]);
	     i++) {
		const struct gpu_spec *g =
			catalog_find(ctx->cat, default_gpus[i], NULL);

		if (g)
			ctx->gpus[ctx->ngpus++] = g;
	}
	for (size_t i = 0; ctx->ngpus == 0 && i < n && i < PLOT_FALLBACK_GPUS;
	     i++)
		ctx->gpus[i] = catalog_at(ctx->cat, i);
	if (ctx->ngpus == 0)
		ctx->ngpus = (int)(n < PLOT_FALLBACK_GPUS ? n :
							  PLOT_FALLBACK_GPUS);
	return EXIT_OK;
}

/* Writers of the data and the script. */
static int write_data(FILE *out, const void *arg, const char **why)
{
	(void)why;
	plot_write_data(out, arg);
	return 0;
}

struct script_job {
	const struct plot_chart *chart;
	struct plot_output o;
};

static int write_script(FILE *out, const void *arg, const char **why)
{
	const struct script_job *job = arg;

	(void)why;
	plot_write_script(out, job->chart, &job->o);
	return 0;
}

/* A file gnuplot reads: written with 'write' to a new temporary file
   beside 'beside' (removed on a signal and at exit), its name in '*tmp'
   and its tempfile slot in '*slot'.  EXIT_OK, or EXIT_IO with a message
   and nothing left behind. */
static int write_run_file(const char *beside, cli_writer write,
			  const void *arg, char **tmp, int *slot)
{
	const char *why = NULL;
	FILE *f;
	int fd, e;

	fd = tempfile_create(beside, tmp, slot);
	if (fd < 0) {
		cli_error("cannot write '%s': %s", beside, strerror(errno));
		return EXIT_IO;
	}
	f = fdopen(fd, "w");
	if (!f) {
		e = errno;
		close(fd);
		goto out_remove;
	}
	errno = 0;
	if (write(f, arg, &why) != 0 || fflush(f) != 0 || ferror(f)) {
		e = errno ? errno : EIO;
		fclose(f);
		goto out_remove;
	}
	if (fclose(f) != 0) {
		e = errno;
		goto out_remove;
	}
	return EXIT_OK;
out_remove:
	tempfile_remove(*slot);
	*slot = -1;
	free(*tmp);
	*tmp = NULL;
	cli_error("cannot write '%s': %s", beside, strerror(e));
	return EXIT_IO;
}

/* A file the user keeps (FILE.dat, FILE.gp): written as -o files are
   (outfile.h).  EXIT_OK, or EXIT_IO with a message. */
static int write_kept(const char *path, cli_writer write, const void *arg)
{
	const char *why = NULL;
	struct outfile o;
	struct diag err;

	diag_clear(&err);
	if (outfile_open(&o, path, &err) != 0) {
		diag_print(stderr, &err);
		return EXIT_IO;
	}
	if (write(o.f, arg, &why) != 0) {
		outfile_abort(&o);
		return oom();
	}
	if (outfile_commit(&o, &err) != 0) {
		diag_print(stderr, &err);
		return EXIT_IO;
	}
	return EXIT_OK;
}

/* The files of one chart: FILE.png (or .svg), FILE.dat, FILE.gp. */
struct plot_files {
	char *base;  /* the chart path without its extension */
	char *data;
	char *script;
};

static int files_init(struct plot_files *f, const char *chart)
{
	size_t n = strlen(chart) + 8;
	const char *dot = strrchr(chart, '.');

	f->base = malloc(n);
	f->data = malloc(n);
	f->script = malloc(n);
	if (!f->base || !f->data || !f->script)
		return -1;
	snprintf(f->base, n, "%.*s", (int)(dot - chart), chart);
	snprintf(f->data, n, "%s.dat", f->base);
	snprintf(f->script, n, "%s.gp", f->base);
	return 0;
}

static void files_release(struct plot_files *f)
{
	free(f->base);
	free(f->data);
	free(f->script);
}

/* Write the kept FILE.dat and FILE.gp, the script naming the final
   files. */
static int keep_files(const struct plot_chart *c, const struct plot_files *f,
		      const struct plot_output *o)
{
	struct script_job job = { c, *o };
	int rc;

	job.o.data_path = f->data;
	rc = write_kept(f->data, write_data, c);
	return rc == EXIT_OK ? write_kept(f->script, write_script, &job) : rc;
}

/* Data, script, gnuplot, and the files into place. */
static int draw(const struct cli_ctx *ctx, const struct plot_chart *c,
		const struct plot_output *o)
{
	struct plot_files f = { NULL, NULL, NULL };
	struct script_job job = { c, *o };
	struct outfile chart;
	struct diag err;
	char *data_tmp = NULL, *run_tmp = NULL;
	int data_slot = -1, run_slot = -1;
	char why[256];
	struct stat st;
	int rc;

	if (files_init(&f, o->chart_path) != 0) {
		files_release(&f);
		return oom();
	}
	/* the chart: a temporary file gnuplot draws into, or the file
	   itself when it is not a regular one (a FIFO) */
	diag_clear(&err);
	if (outfile_prepare(&chart, o->chart_path, &err) != 0) {
		diag_print(stderr, &err);
		files_release(&f);
		return EXIT_IO;
	}
	rc = write_run_file(f.data, write_data, c, &data_tmp, &data_slot);
	if (rc != EXIT_OK)
		goto out;
	job.o.data_path = data_tmp;
	job.o.chart_path = chart.write_path;
	rc = write_run_file(f.script, write_script, &job, &run_tmp, &run_slot);
	if (rc != EXIT_OK)
		goto out;

	switch (plot_run_gnuplot(run_tmp, PLOT_GNUPLOT_TIMEOUT_S, why,
				 sizeof(why))) {
	case PLOT_RUN_MISSING:
		rc = keep_files(c, &f, o);
		if (rc == EXIT_OK) {
			fputs("capplan: gnuplot not found: wrote ", stderr);
			text_fputs_escaped(f.script, stderr);
			fputs(" and ", stderr);
			text_fputs_escaped(f.data, stderr);
			fputs("; run 'gnuplot ", stderr);
			text_fputs_escaped(f.script, stderr);
			fputs("' to draw the chart\n", stderr);
			rc = EXIT_IO;
		}
		break;
	case PLOT_RUN_FAILED:
		cli_error("%s; '%s' not written", why, o->chart_path);
		rc = EXIT_IO;
		break;
	case PLOT_RUN_OK:
		if (chart.tmp &&
		    (stat(chart.tmp, &st) != 0 || st.st_size == 0)) {
			cli_error("gnuplot wrote an empty chart; '%s' not "
				  "written", o->chart_path);
			rc = EXIT_IO;
			break;
		}
		diag_clear(&err);
		rc = outfile_commit(&chart, &err);
		if (rc != 0) {
			diag_print(stderr, &err);
			rc = EXIT_IO;
		}
		if (rc == EXIT_OK && ctx->keep_script)
			rc = keep_files(c, &f, o);
		break;
	}
out:
	outfile_abort(&chart); /* a no-op once committed */
	tempfile_remove(run_slot);
	tempfile_remove(data_slot);
	free(run_tmp);
	free(data_tmp);
	files_release(&f);
	return rc;
}

int cmd_plot(struct cli_ctx *ctx)
{
	struct plot_output o = { NULL, NULL, PLOT_PNG, 1024, 640 };
	enum plot_kind kind;
	struct plot_chart *c;
	struct progress pr;
	int rc;

	if (plot_kind_parse(ctx->kind_arg, &kind) != 0) {
		char kinds[256];
		size_t used = 0;

		kinds[0] = '\0';
		for (int k = 0; k < PLOT_KIND_COUNT && used < sizeof(kinds);
		     k++)
			used += (size_t)snprintf(
				kinds + used, sizeof(kinds) - used, "%s %s",
				k ? "," : "", plot_kind_name((enum plot_kind)k));
		return plot_usage("unknown chart kind '%s'; one of:%s",
				  ctx->kind_arg, kinds);
	}
	if (!ctx->output_path)
		return plot_usage("%s", "plot needs -o FILE.png or -o FILE.svg");
	if (strcmp(ctx->output_path, "-") == 0)
		return plot_usage("%s", "plot draws into a file, not to "
					"standard output: give -o FILE.png or "
					"-o FILE.svg");
	for (const char *p = ctx->output_path; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return plot_usage("%s", "the output file name must "
						"not contain control "
						"characters");
	if (plot_format_from_path(ctx->output_path, &o.format) != 0)
		return plot_usage("the output file must end in .png or .svg, "
				  "got '%s'", ctx->output_path);
	if (ctx->plot_size_arg &&
	    plot_size_parse(ctx->plot_size_arg, &o.width_px, &o.height_px) != 0)
		return plot_usage("--size must be WIDTHxHEIGHT in pixels from "
				  "100 to 10000, e.g. 1024x640, got '%s'",
				  ctx->plot_size_arg);
	o.chart_path = ctx->output_path;
	rc = cli_load_workload(ctx);
	if (rc != EXIT_OK)
		return rc;
	/* the roofline draws the transformer's GEMMs, the cache chart its
	   prefix cache */
	if (kind == PLOT_ROOFLINE || kind == PLOT_CACHE) {
		char what[64];

		snprintf(what, sizeof(what), "the '%s' chart",
			 plot_kind_name(kind));
		rc = cli_transformer_only(ctx, what);
		if (rc != EXIT_OK)
			return rc;
	}
	if (kind == PLOT_CACHE && !plot_cache_applies(&ctx->wl))
		return plot_usage("the 'cache' chart needs a serving load "
				  "simulated with a prefix cache: a rate "
				  "('inference.qps'), clients or a trace, and "
				  "'inference.prefix_caching = true' or an "
				  "engine that caches by default (%s), not "
				  "disaggregated",
				  "'capplan stacks'");
	rc = cli_plot_devices(ctx);
	if (rc != EXIT_OK)
		return rc;
	c = plot_chart_new(kind);
	if (!c)
		return oom();
	progress_init(&pr, "plot");
	ctx->progress = &pr;
	rc = plot_build(ctx, kind, c);
	ctx->progress = NULL;
	progress_end(&pr);
	if (rc == EXIT_OK && !plot_chart_has_data(c)) {
		fprintf(stderr, "capplan: error: nothing to plot: no device "
				"gave a point for the '%s' chart\n",
			plot_kind_name(kind));
		rc = EXIT_INFEASIBLE;
	}
	if (rc == EXIT_OK)
		rc = draw(ctx, c, &o);
	plot_chart_free(c);
	return rc;
}

bool cli_plot_kind_applies(const struct cli_ctx *ctx, enum plot_kind kind)
{
	/* a workload that only serves plans no training to chart (issue
	   40: compare --plot drew them anyway) */
	if (cli_serving_only(&ctx->wl) &&
	    (kind == PLOT_SCALING || kind == PLOT_COST_TIME ||
	     kind == PLOT_MEMORY))
		return false;
	if (kind == PLOT_CACHE)
		return plot_cache_applies(&ctx->wl);
	return ctx->wl.model.kind == MODEL_TRANSFORMER || kind != PLOT_ROOFLINE;
}

/* Create 'dir' when it does not exist; EXIT_OK or EXIT_IO. */
static int ensure_dir(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0777) == 0)
		return EXIT_OK;
	if (errno == EEXIST && stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
		return EXIT_OK;
	cli_error("--plot: cannot use '%s' as a folder: %s", dir,
		  errno == EEXIST ? "not a folder" : strerror(errno));
	return EXIT_IO;
}


int cli_plot_prepare(const struct cli_ctx *ctx)
{
	if (ctx->plot_format_arg && !ctx->plot_dir)
		return cli_usage(ctx->cmd, "%s",
				 "--plot-format needs --plot DIR");
	return ctx->plot_dir ? ensure_dir(ctx->plot_dir) : EXIT_OK;
}

int cli_plot_set(struct cli_ctx *ctx, const struct gpu_spec *const *gpus,
		 int ngpus)
{
	const struct gpu_spec *saved[CLI_MAX_GPUS];
	int nsaved = ctx->ngpus, rc = EXIT_OK, kinds = 0, done = 0;
	struct progress pr;
	bool keep;
	size_t n = strlen(ctx->plot_dir) + 32;
	char *path;

	if (ngpus <= 0) {
		fprintf(stderr, "capplan: note: --plot: no device has a plan "
				"to draw; no charts written\n");
		return EXIT_OK;
	}
	rc = ensure_dir(ctx->plot_dir);
	if (rc != EXIT_OK)
		return rc;
	path = malloc(n);
	if (!path)
		return oom();
	memcpy(saved, ctx->gpus, sizeof(saved));
	/* the folder holds the data and scripts too, to restyle */
	keep = ctx->keep_script;
	ctx->keep_script = true;
	ctx->ngpus = ngpus < CLI_PLOT_SET_GPUS ? ngpus : CLI_PLOT_SET_GPUS;
	for (int i = 0; i < ctx->ngpus; i++)
		ctx->gpus[i] = gpus[i];
	for (int k = 0; k < PLOT_KIND_COUNT; k++)
		kinds += cli_plot_kind_applies(ctx, (enum plot_kind)k);
	progress_init(&pr, ctx->cmd);
	ctx->progress = &pr;
	for (int k = 0; k < PLOT_KIND_COUNT; k++) {
		enum plot_kind kind = (enum plot_kind)k;
		struct plot_output o = { NULL, NULL,
					 ctx->plot_png ? PLOT_PNG : PLOT_SVG,
					 1024, 640 };
		struct plot_chart *c;
		int krc;

		if (!cli_plot_kind_applies(ctx, kind))
			continue;
		progress_update(&pr, (size_t)done++, (size_t)kinds, "charts");
		c = plot_chart_new(kind);
		if (!c) {
			rc = oom();
			break;
		}
		krc = plot_build(ctx, kind, c);
		/* gnuplot and the messages write to stderr: no line */
		progress_pause(&pr);
		if (krc == EXIT_OK && !plot_chart_has_data(c)) {
			fprintf(stderr, "capplan: note: --plot: nothing to draw "
					"for the '%s' chart\n",
				plot_kind_name(kind));
		} else if (krc == EXIT_OK) {
			snprintf(path, n, "%s/%s.%s", ctx->plot_dir,
				 plot_kind_name(kind),
				 ctx->plot_png ? "png" : "svg");
			o.chart_path = path;
			krc = draw(ctx, c, &o);
			if (krc == EXIT_OK)
				cli_message("capplan: ", "wrote %s", path);
		}
		progress_resume(&pr);
		plot_chart_free(c);
		if (krc != EXIT_OK && rc == EXIT_OK)
			rc = krc;
		if (krc == EXIT_INTERNAL)
			break;
	}
	ctx->progress = NULL;
	progress_end(&pr);
	memcpy(ctx->gpus, saved, sizeof(saved));
	ctx->ngpus = nsaved;
	ctx->keep_script = keep;
	free(path);
	return rc;
}

/* Largest chart cli_plot_render reads back, bytes. */
#define PLOT_SVG_MAX (64u << 20)

int cli_plot_render(struct cli_ctx *ctx, enum plot_kind kind,
		    const char *beside, enum plot_format format, int width_px,
		    int height_px, char **chart, size_t *chart_len)
{
	struct plot_output o = { NULL, NULL, format, width_px, height_px };
	struct script_job job;
	struct plot_chart *c;
	char *data_tmp = NULL, *run_tmp = NULL, *chart_tmp = NULL, *text;
	int data_slot = -1, run_slot = -1, chart_slot = -1, fd, rc;
	char why[256];
	struct diag err;
	size_t len;
	bool paused = false;

	*chart = NULL;
	*chart_len = 0;
	c = plot_chart_new(kind);
	if (!c)
		return oom();
	rc = plot_build(ctx, kind, c);
	if (rc == EXIT_OK && !plot_chart_has_data(c))
		rc = EXIT_INFEASIBLE;
	if (rc != EXIT_OK)
		goto out;
	/* gnuplot and the messages below write to stderr: no line */
	progress_pause(ctx->progress);
	paused = true;
	/* the chart: an empty temporary file gnuplot writes into */
	fd = tempfile_create(beside, &chart_tmp, &chart_slot);
	if (fd < 0) {
		cli_error("cannot write beside '%s': %s", beside,
			  strerror(errno));
		rc = EXIT_IO;
		goto out;
	}
	close(fd);
	rc = write_run_file(beside, write_data, c, &data_tmp, &data_slot);
	if (rc != EXIT_OK)
		goto out;
	o.data_path = data_tmp;
	o.chart_path = chart_tmp;
	job.chart = c;
	job.o = o;
	rc = write_run_file(beside, write_script, &job, &run_tmp, &run_slot);
	if (rc != EXIT_OK)
		goto out;
	switch (plot_run_gnuplot(run_tmp, PLOT_GNUPLOT_TIMEOUT_S, why,
				 sizeof(why))) {
	case PLOT_RUN_MISSING:
		cli_error("gnuplot not found: the '%s' chart is not drawn "
			  "(sh scripts/deps.sh installs gnuplot-nox)",
			  plot_kind_name(kind));
		rc = EXIT_IO;
		goto out;
	case PLOT_RUN_FAILED:
		cli_error("%s; the '%s' chart is not drawn", why,
			  plot_kind_name(kind));
		rc = EXIT_IO;
		goto out;
	case PLOT_RUN_OK:
		break;
	}
	diag_clear(&err);
	if (readfile_all(chart_tmp, READFILE_REGULAR, PLOT_SVG_MAX, &text,
			 &len, &err) != 0) {
		diag_print(stderr, &err);
		rc = err.kind == DIAG_NOMEM ? EXIT_INTERNAL : EXIT_IO;
		goto out;
	}
	if (format == PLOT_PNG) {
		if (len < 8 || memcmp(text, "\x89PNG", 4) != 0) {
			free(text);
			cli_error("gnuplot wrote no PNG for the '%s' chart",
				  plot_kind_name(kind));
			rc = EXIT_IO;
			goto out;
		}
		*chart = text;
		*chart_len = len;
		goto out;
	}
	/* from the <svg> element on: no XML declaration inside a page */
	if (!strstr(text, "<svg")) {
		free(text);
		cli_error("gnuplot wrote no SVG for the '%s' chart",
			  plot_kind_name(kind));
		rc = EXIT_IO;
		goto out;
	}
	len = strlen(strstr(text, "<svg"));
	memmove(text, strstr(text, "<svg"), len + 1);
	*chart = text;
	*chart_len = len;
out:
	tempfile_remove(run_slot);
	tempfile_remove(data_slot);
	tempfile_remove(chart_slot);
	free(run_tmp);
	free(data_tmp);
	free(chart_tmp);
	plot_chart_free(c);
	if (paused)
		progress_resume(ctx->progress);
	return rc;
}
