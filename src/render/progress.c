/* progress.c - a progress line on a terminal; see progress.h. */
#include "progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
		return 0.0;
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CI services set CI (to "true"); the test scripts read it the same way. */
static bool in_ci(void)
{
	const char *ci = getenv("CI");

	return ci && ci[0] && strcmp(ci, "0") != 0 &&
	       strcmp(ci, "false") != 0;
}

void progress_init(struct progress *p, const char *what)
{
	p->on = isatty(STDERR_FILENO) == 1 && !in_ci();
	p->shown = false;
	p->what = what;
	p->start_s = p->on ? now_s() : 0.0;
	p->last_s = p->start_s;
}

void progress_update(struct progress *p, size_t done, size_t total,
		     const char *unit)
{
	double t;

	if (!p->on)
		return;
	t = now_s();
	if (t - p->start_s < PROGRESS_AFTER_S ||
	    (p->shown && t - p->last_s < PROGRESS_EVERY_S))
		return;
	if (total > 0)
		fprintf(stderr, "\r\033[K%s: %zu/%zu %s", p->what, done, total,
			unit);
	else
		fprintf(stderr, "\r\033[K%s: %zu %s", p->what, done, unit);
	fflush(stderr);
	p->shown = true;
	p->last_s = t;
}

void progress_end(struct progress *p)
{
	if (p->shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		p->shown = false;
	}
}
