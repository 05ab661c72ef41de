/*
 * plot_script_internal.h - what the gnuplot script writers share
 * (plot_script.c) with the cache chart's (plot_script_cache.c).  Private
 * to src/render/plot_script*.c.
 */
#ifndef CAPPLAN_PLOT_SCRIPT_INTERNAL_H
#define CAPPLAN_PLOT_SCRIPT_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>

#include "plot.h"

/* Start the next clause of a plot command: "plot " or ", \" and a new
   line. */
void ps_clause(FILE *out, int *n);
/* " lc rgb '#RRGGBB'" of a series (its device's colour), or its line
   type. */
void ps_put_lc(FILE *out, const struct plot_series *s);
/* Its point type. */
int ps_series_pt(const struct plot_series *s);
/* Smallest and largest positive finite value of column 'col' over the
   series of 'role' (-1: every role); false when there is none. */
bool ps_column_range(const struct plot_chart *c, int col, int role,
		     double *lo, double *hi);
/* A log axis around [lo, hi] with a margin. */
void ps_log_axis(FILE *out, const char *axis, double lo, double hi,
		 bool money);
/* The cache chart (plot_script_cache.c). */
void ps_script_cache(FILE *out, const struct plot_chart *c,
		     const struct plot_output *o);

#endif
