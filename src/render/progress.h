/*
 * progress.h - a progress line on standard error for work that can pass a
 * second (the plans of infer, size, compare and sweep, the charts of plot
 * and report, calibrate's fit).
 *
 * Drawn only when standard error is a terminal and not in CI (CI set and
 * not "0" or "false"), and only once the work has run for
 * PROGRESS_AFTER_S: a pipe, a log or a quick command sees nothing, and
 * the work costs what it costs without the line.  CAPPLAN_PROGRESS=0
 * turns the line off; CAPPLAN_PROGRESS=1 draws it whatever standard error
 * is, from the start and at every change (for tests: capplan(1),
 * ENVIRONMENT).
 *
 * The line reads "WHAT: DONE/TOTAL UNIT, PHASE (N s)", rewritten in place
 * ("\r", then erase to the end of the line) and erased by progress_end.
 * A thread of its own redraws it at most every PROGRESS_EVERY_S, so the
 * elapsed seconds move even while one step of the work takes long; the
 * work only records how far it is.  Every function but progress_init and
 * progress_end may be called from several threads at once, and every one
 * takes a NULL progress as "no line" (a building block called with and
 * without one).
 */
#ifndef CAPPLAN_PROGRESS_H
#define CAPPLAN_PROGRESS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "progress_hook.h"

#define PROGRESS_AFTER_S 1.0
#define PROGRESS_EVERY_S 0.1

/* Longest line drawn, bytes (cut to the terminal's width). */
#define PROGRESS_LINE_MAX 160

struct progress {
	bool on;          /* the line may be drawn (see above) */
	bool ticking;     /* the redrawing thread runs */
	bool stop;        /* asks that thread to end */
	bool shown;       /* a line is on the terminal */
	int paused;       /* progress_pause calls not yet resumed */
	double after_s;   /* drawn once the work has run this long */
	double every_s;   /* redrawn at most this often */
	double start_s, last_s;
	int width;        /* the terminal's columns */
	const char *what; /* "sweep", "size", ...: the line's first word */
	size_t done, total;
	const char *unit;
	char phase[64];   /* what is under way, escaped */
	size_t phase_done, phase_total;
	char line[PROGRESS_LINE_MAX]; /* as last drawn */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t ticker;
};

/* Start timing 'what' (a static string) and, when the line may be drawn,
   the thread that redraws it.  Every progress_init needs its
   progress_end, on every path, before anything else is printed. */
void progress_init(struct progress *p, const char *what);

/* DONE of TOTAL UNITs (a static string) are done: "WHAT: DONE/TOTAL
   UNIT" ("WHAT: DONE UNIT" when the total is not known: 0). */
void progress_update(struct progress *p, size_t done, size_t total,
		     const char *unit);

/* DONE += n: a step done by one of several threads. */
void progress_add(struct progress *p, size_t n);

/* What is under way, after the count: 'phase' (copied, control
   characters escaped; NULL or "" clears it), and when the line has no
   count of its own, its 'done' of 'total' steps (total 0: none). */
void progress_phase(struct progress *p, size_t done, size_t total,
		    const char *phase);

/* A hook for the pure core (progress_hook.h) that calls progress_phase
   on 'p' (NULL: a hook that does nothing). */
struct progress_hook progress_hook_of(struct progress *p);

/* Erase the line and draw nothing until progress_resume: around a message
   printed while the work runs, so that it does not run into the line.
   Pairs nest. */
void progress_pause(struct progress *p);
void progress_resume(struct progress *p);

/* Stop the redrawing thread and erase the line, if one was shown.  A
   second call does nothing. */
void progress_end(struct progress *p);

#endif
