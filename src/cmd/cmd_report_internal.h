/*
 * cmd_report_internal.h - what the two files of 'capplan report' share:
 * the plans of each device (cmd_report.c computes them) and the page that
 * shows them (cmd_report_page.c writes it).  Private to src/cmd/.
 */
#ifndef CAPPLAN_CMD_REPORT_INTERNAL_H
#define CAPPLAN_CMD_REPORT_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>

#include "cli.h"
#include "infer_plan.h"
#include "plan.h"
#include "plot.h"

/* One device's plans. */
struct report_row {
	const struct gpu_spec *gpu;
	int train_rc;
	struct train_plan train;
	char train_why[DIAG_MSG_MAX];
	bool serving;     /* per-token serving was planned */
	int infer_rc;
	struct infer_plan infer;
	char infer_why[DIAG_MSG_MAX];  /* or why 'serve' misses */
	bool per_sample;  /* kind generic or recsys: serving is 'serve' */
	int serve_rc;
	struct sample_serve_plan serve;
};

/* Everything the page shows, computed before it is written. */
struct report_page {
	struct cli_ctx *ctx;
	bool serving_only;   /* no training planned (cli_serving_only) */
	struct report_row *rows;
	int nrows;
	char *svg[PLOT_KIND_COUNT]; /* NULL: not drawn; SVG text or PNG */
	size_t svg_len[PLOT_KIND_COUNT];
	bool png;                   /* --plot-format png: data: URIs */
	char chart_note[256];       /* why charts are missing; "" none */
	char mix_note[REPORT_STR_MAX + 256]; /* a mixed fleet cheaper than
						every device's own
						(cli_mix_summary); "" none */
};

/* Whether a row has a training plan that fits and finishes; a serving
   plan that fits and meets its targets; a per-sample serving plan that
   does. */
bool report_trained(const struct report_row *r);
bool report_served(const struct report_row *r);
bool report_served_samples(const struct report_row *r);

/* The workload's name for titles ("workload" when it has none). */
const char *report_wl_name(const struct cli_ctx *ctx);

/* The page (cmd_report_page.c), a cli_writer of 'arg', a struct
   report_page. */
int report_write_page(FILE *out, const void *arg, const char **why);

#endif
