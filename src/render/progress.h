/*
 * progress.h - a progress line on standard error for long work (a sweep,
 * the devices of size or compare, the charts of report), shown only when
 * standard error is a terminal, never in CI (CI set and not "0" or
 * "false"), and only once the work has run for PROGRESS_AFTER_S: a pipe,
 * a log or a quick command sees nothing.  The line is rewritten in place
 * ("\r") at most every PROGRESS_EVERY_S and erased at the end.
 */
#ifndef CAPPLAN_PROGRESS_H
#define CAPPLAN_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

#define PROGRESS_AFTER_S 1.0
#define PROGRESS_EVERY_S 0.1

struct progress {
	bool on;          /* stderr is a terminal and not CI */
	bool shown;       /* a line is on the terminal */
	double start_s, last_s;
	const char *what; /* "sweep", "size", ...: the line's first word */
};

/* Start timing 'what' (a static string). */
void progress_init(struct progress *p, const char *what);

/* "WHAT: DONE/TOTAL UNIT" when due ("WHAT: DONE UNIT" when the total
   is not known: 0). */
void progress_update(struct progress *p, size_t done, size_t total,
		     const char *unit);

/* Erase the line, if one was shown. */
void progress_end(struct progress *p);

#endif
