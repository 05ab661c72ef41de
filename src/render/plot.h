/*
 * plot.h - charts: their data as plain records, the .dat writer
 * (plot.c), the gnuplot script writer (plot_script.c) and the gnuplot
 * driver (plot.c).
 *
 * A chart is a list of series (one data block each in the .dat file,
 * gnuplot's 'index') of rows of 'ncols' numbers, plus the category labels
 * of bar charts.  Commands fill a chart from the models (cmd_plot.c); the
 * writers here render it.  Every text that reaches a gnuplot script (a
 * title, a device name, a file name) goes through plot_quote: a
 * single-quoted gnuplot string, inert to backquotes, macros and
 * system().  The writers take a FILE * and keep no state.
 */
#ifndef CAPPLAN_PLOT_H
#define CAPPLAN_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define PLOT_LABEL_MAX 96
#define PLOT_TITLE_MAX 192
#define PLOT_MAX_COLS 10
#define PLOT_MAX_CATS 256

/* Chart kinds (the KIND argument of 'capplan plot'). */
enum plot_kind {
	PLOT_SCALING,    /* time to train against GPUs, per device */
	PLOT_COST_TIME,  /* cost against time to train, Pareto front */
	PLOT_MEMORY,     /* stacked training memory per GPU, per device */
	PLOT_ROOFLINE,   /* attainable FLOP/s against intensity */
	PLOT_LATENCY,    /* TPOT and TTFT against throughput per GPU */
	PLOT_REPLICAS,   /* GPUs needed against request rate */
	PLOT_ENERGY,     /* energy to train, energy per token, power cap */
	PLOT_CACHE,      /* prefix-cache hits, TTFT and capacity against
			    the KV-cache memory or the host tier */
	PLOT_KIND_COUNT
};

/* What a series is, for the script of its kind. */
enum plot_role {
	PLOT_ROLE_DEVICE = 0, /* a device's line or points */
	PLOT_ROLE_FRONT,      /* cost-time: the Pareto front */
	PLOT_ROLE_POINTS,     /* roofline: a device's workload points */
	PLOT_ROLE_BARS,       /* memory, energy: one row per category */
};

/* Rows of a roofline PLOT_ROLE_POINTS series: column 0 is the phase. */
enum plot_phase {
	PLOT_PHASE_TRAINING = 0,
	PLOT_PHASE_PREFILL = 1,
	PLOT_PHASE_DECODE = 2,
};

/* Output formats, from the chart file's extension. */
enum plot_format {
	PLOT_PNG,  /* gnuplot pngcairo */
	PLOT_SVG,  /* gnuplot svg */
};

struct plot_series {
	char label[PLOT_LABEL_MAX]; /* legend text; untrusted (device name) */
	enum plot_role role;
	int color;                  /* gnuplot line type, 1-based; used
				       when 'rgb' is empty */
	char rgb[8];                /* "#RRGGBB": the device's colour
				       (plot_device_style); "" none */
	int pt;                     /* gnuplot point type of the device */
	double *v;                  /* rows x chart ncols, row-major; NaN:
				       missing */
	size_t rows, cap;
};

/* A text at a point of the chart (the Pareto front's devices). */
struct plot_label {
	double x, y;
	char text[PLOT_LABEL_MAX];  /* untrusted */
};

#define PLOT_MAX_LABELS 48
#define PLOT_WHY_MAX 40

struct plot_chart {
	enum plot_kind kind;
	char title[PLOT_TITLE_MAX]; /* untrusted (the workload's name) */
	char held[PLOT_TITLE_MAX];  /* what was held fixed, under the title
				       ("bf16, global batch 512"); "" none */
	char note[PLOT_LABEL_MAX];  /* kind-specific text: the SLO of
				       replicas, the power cap of energy,
				       the goodput of scaling when every
				       device has the same (a line of the
				       key) */
	int ncols;                  /* columns of every series */
	struct plot_series *series;
	size_t nseries, cap;
	char cats[PLOT_MAX_CATS][PLOT_LABEL_MAX]; /* bar labels; untrusted */
	char cat_rgb[PLOT_MAX_CATS][8];  /* each category's device colour */
	char cat_sub[PLOT_MAX_CATS][PLOT_LABEL_MAX]; /* a second line under
						 a bar (its configuration) */
	char cat_why[PLOT_MAX_CATS][2][PLOT_WHY_MAX]; /* why a bar of panel
						  0 or 1 is missing, written
						  in its place; "" none */
	int ncats;
	struct plot_label labels[PLOT_MAX_LABELS];
	int nlabels;
	double deadline_days;       /* scaling, cost-time: a vertical or
				       horizontal limit; 0 none */
	double budget_usd;          /* cost-time: a horizontal limit; 0 */
	double tpot_slo_ms;         /* latency: SLO lines; 0 none */
	double ttft_slo_ms;
	char load[PLOT_LABEL_MAX];  /* latency: "" for the batch sweep, else
				       the simulated load ("p99, Poisson,
				       one replica"): column 1 is then the
				       offered request rate */
	bool per_sample;            /* a model costed per sample (kind
				       generic or recsys): the columns of
				       plot_chart_set_per_sample */
	double samples;             /* per_sample: the samples trained on
				       (cost-time: the budget per million
				       samples) */
	double deadline_s;          /* per_sample scaling: the deadline as
				       the samples/s per GPU it needs */
	double latency_slo_ms;      /* per_sample latency, replicas: the
				       latency target of a batch; 0 none */
	bool cache_host;            /* cache: the x axis is the host tier
				       (column host_gb), not the KV-cache
				       memory (column kv_gb) */
	char percentile[8];         /* cache: the TTFT's percentile ("p99");
				       ttft_slo_ms its target */
};

/* Where the script reads its data and writes the chart. */
struct plot_output {
	const char *data_path;
	const char *chart_path;
	enum plot_format format;
	int width_px, height_px;
};

/* "scaling", "cost-time", ... for a kind; NULL when out of range. */
const char *plot_kind_name(enum plot_kind k);

/* One line about a kind, for help texts. */
const char *plot_kind_summary(enum plot_kind k);

/* plot_kind_summary of the kind's chart of a model costed per sample
   ('per_sample'), or of a transformer. */
const char *plot_kind_summary_for(enum plot_kind k, bool per_sample);

/* Look up a kind by name (exact).  Returns 0, or -1 when unknown. */
int plot_kind_parse(const char *name, enum plot_kind *out);

/* The data columns of a kind (their names are the .dat header). */
int plot_kind_columns(enum plot_kind k, const char *const **names);

/*
 * The format of a chart file from its extension, ".png" or ".svg" (any
 * case).  Returns 0, or -1 for anything else.
 */
int plot_format_from_path(const char *path, enum plot_format *out);

/* Parse "WIDTHxHEIGHT" in pixels, each 100..10000.  Returns 0 or -1. */
int plot_size_parse(const char *text, int *width_px, int *height_px);

/* A new empty chart of 'k' (columns from the kind); NULL: no memory. */
struct plot_chart *plot_chart_new(enum plot_kind k);

/*
 * Make 'c' (without rows yet) a chart of a model costed per sample: its
 * columns are those of the kind's per-sample form (specs/output.md,
 * "capplan plot"): samples/s per GPU for scaling, the cost per million
 * samples for cost-time, the latency of a batch for latency-throughput,
 * the energy per million samples for energy.
 */
void plot_chart_set_per_sample(struct plot_chart *c);

/* Free a chart and its series; NULL is a no-op. */
void plot_chart_free(struct plot_chart *c);

/* Append a series; NULL when out of memory.  'label' is copied
   (truncated to PLOT_LABEL_MAX - 1 bytes). */
struct plot_series *plot_chart_add_series(struct plot_chart *c,
					  const char *label,
					  enum plot_role role, int color);

/*
 * The colour ("#RRGGBB", colour-blind safe: Okabe and Ito's palette
 * without its yellow and black) and point type of device 'name': fixed per
 * device, so that a device looks the same in every chart.  Known devices
 * have their own entry; any other gets one from a hash of its name.
 */
void plot_device_style(const char *name, char rgb[8], int *pt);

/*
 * Keep the devices of chart 'c' apart: a device (a series label or a bar
 * category with a colour) whose colour an earlier device of the chart
 * already has takes the first palette colour no device of the chart has,
 * while one is left (its point type stays); every series and bar of one
 * device keeps one colour.  The Pareto front is left as it is.
 */
void plot_chart_distinct_colours(struct plot_chart *c);

/* Give series 's' the style of device 'name'. */
void plot_series_set_device(struct plot_series *s, const char *name);

/* Append a series of device 'device' (PLOT_ROLE_DEVICE, in the device's
   style); NULL when out of memory. */
struct plot_series *plot_chart_add_device(struct plot_chart *c,
					  const char *label,
					  const char *device, int color);

/* Add a text at (x, y) of the chart; ignored past PLOT_MAX_LABELS. */
void plot_chart_add_label(struct plot_chart *c, double x, double y,
			  const char *text);

/* Append a row of the chart's 'ncols' values.  Returns 0 or -1 (memory). */
int plot_series_add_row(struct plot_chart *c, struct plot_series *s,
			const double *v);

/* Append a category label (bar charts).  Returns its index, or -1 when
   PLOT_MAX_CATS are taken. */
int plot_chart_add_cat(struct plot_chart *c, const char *label);

/* The gnuplot 'index' of series 'i' in the .dat file (series without rows
   get no block): its block number, or -1 when it has no rows. */
int plot_series_block(const struct plot_chart *c, size_t i);

/* True when some series has a row: there is something to draw. */
bool plot_chart_has_data(const struct plot_chart *c);

/*
 * Write 's' as a gnuplot single-quoted string: quotes around it, a quote
 * inside doubled, control characters (below 0x20, and 0x7f) written as a
 * space.  Nothing in it is then evaluated by gnuplot: backquotes, '@'
 * macros and system() stay text.
 */
void plot_quote(FILE *out, const char *s);

/*
 * plot_quote for a file name: a relative name gets a leading "./", so
 * that no name can start with '|' or '<' (which gnuplot would run as a
 * command) or '~'.
 */
void plot_quote_path(FILE *out, const char *path);

/*
 * Write the chart's data: a commented header, then one block per series
 * that has rows (gnuplot 'index' 0, 1, ... in that order), separated by
 * two blank lines; numbers with %.6g in the C locale, missing values as
 * NaN.  Returns 0, or -1 when the stream has an error.
 */
int plot_write_data(FILE *out, const struct plot_chart *c);

/*
 * Write a gnuplot 5 script that reads 'o->data_path' (as written by
 * plot_write_data) and draws the chart into 'o->chart_path' in
 * 'o->format' at the given size.  Returns 0, or -1 when the stream has
 * an error.
 */
int plot_write_script(FILE *out, const struct plot_chart *c,
		      const struct plot_output *o);

/* Results of plot_run_gnuplot. */
enum plot_run {
	PLOT_RUN_OK = 0,
	PLOT_RUN_MISSING,  /* no gnuplot program on PATH */
	PLOT_RUN_FAILED,   /* it ran and failed; see 'why' */
};

/* How long capplan waits for gnuplot to draw one chart, seconds. */
#define PLOT_GNUPLOT_TIMEOUT_S 60.0

/*
 * Run "gnuplot SCRIPT" (found on PATH; no shell; a SCRIPT that starts
 * with '-' is passed as "./SCRIPT", never as an option) with standard
 * input from /dev/null and wait for it, at most 'timeout_s' seconds:
 * then it is killed (SIGKILL) and the run has failed.  While it runs it
 * is the child that tempfile.h kills on a fatal signal.  On
 * PLOT_RUN_FAILED, 'why' (of 'n' bytes) says how.
 */
enum plot_run plot_run_gnuplot(const char *script, double timeout_s,
			       char *why, size_t n);

#endif
