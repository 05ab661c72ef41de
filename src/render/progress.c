/* progress.c - a progress line on a terminal; see progress.h. */
#include "progress.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "report.h"
#include "text.h"

static double now_s(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
		return 0.0;
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A variable set to something other than "", "0" or "false"; CI services
   set CI (to "true"), and the test scripts read it the same way. */
static bool env_set(const char *name)
{
	const char *v = getenv(name);

	return v && v[0] && strcmp(v, "0") != 0 && strcmp(v, "false") != 0;
}

/* CAPPLAN_PROGRESS: 1 draws always (at once, at every change), 0 never;
   unset or anything else: on a terminal outside CI. */
static int env_mode(void)
{
	const char *v = getenv("CAPPLAN_PROGRESS");

	if (v && strcmp(v, "1") == 0)
		return 1;
	if (v && strcmp(v, "0") == 0)
		return 0;
	return -1;
}

/* Append printf's output to 'buf' (of 'n' bytes, '*len' of them used),
   cut at its end. */
static void append(char *buf, size_t n, size_t *len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void append(char *buf, size_t n, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (*len + 1 >= n)
		return;
	va_start(ap, fmt);
	k = vsnprintf(buf + *len, n - *len, fmt, ap);
	va_end(ap);
	if (k > 0)
		*len = *len + (size_t)k < n ? *len + (size_t)k : n - 1;
}

/* The line as it reads now, into 'buf' of 'n' bytes: "WHAT: DONE/TOTAL
   UNIT, PHASE (N s)", cut to the terminal's width. */
static void compose(const struct progress *p, char *buf, size_t n, double t)
{
	size_t len = 0, cut;
	bool count = p->total > 0 || p->unit;
	double run_s = t - p->start_s;

	buf[0] = '\0';
	append(buf, n, &len, "%s:", p->what);
	if (p->total > 0)
		append(buf, n, &len, " %zu/%zu %s", p->done, p->total,
		       p->unit ? p->unit : "");
	else if (p->unit)
		append(buf, n, &len, " %zu %s", p->done, p->unit);
	if (p->phase[0]) {
		append(buf, n, &len, "%s %s", count ? "," : "", p->phase);
		if (!count && p->phase_total > 0)
			append(buf, n, &len, " %zu/%zu", p->phase_done,
			       p->phase_total);
	}
	/* whole seconds run: "(1 s)" once a second has passed */
	append(buf, n, &len, " (%ld s)", run_s > 0.0 ? (long)run_s : 0L);
	/* within the terminal: a line that wraps is not rewritten in place;
	   cut at a character, not inside one */
	cut = p->width > 1 ? (size_t)p->width - 1 : 0;
	if (cut > 0 && len > cut) {
		while (cut > 0 && ((unsigned char)buf[cut] & 0xC0) == 0x80)
			cut--;
		buf[cut] = '\0';
	}
}

/* Draw the line when it is due and has changed; p->lock held. */
static void draw_locked(struct progress *p, double t)
{
	char line[PROGRESS_LINE_MAX];

	if (!p->on || p->paused || t - p->start_s < p->after_s ||
	    (p->shown && t - p->last_s < p->every_s))
		return;
	compose(p, line, sizeof(line), t);
	if (p->shown && strcmp(line, p->line) == 0)
		return;
	fprintf(stderr, "\r\033[K%s", line);
	fflush(stderr);
	memcpy(p->line, line, sizeof(line));
	p->shown = true;
	p->last_s = t;
}

static void erase_locked(struct progress *p)
{
	if (p->shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		p->shown = false;
	}
}

/* The redrawing thread: every PROGRESS_EVERY_S until progress_end. */
static void *tick(void *arg)
{
	struct progress *p = arg;

	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += (long)(PROGRESS_EVERY_S * 1e9);
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&p->wake, &p->lock, &ts);
		if (!p->stop)
			draw_locked(p, now_s());
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

void progress_init(struct progress *p, const char *what)
{
	int mode = env_mode();
	pthread_condattr_t ca;

	memset(p, 0, sizeof(*p));
	p->what = what;
	p->on = mode == 1 ||
		(mode < 0 && isatty(STDERR_FILENO) == 1 && !env_set("CI"));
	if (!p->on)
		return;
	p->after_s = mode == 1 ? 0.0 : PROGRESS_AFTER_S;
	p->every_s = mode == 1 ? 0.0 : PROGRESS_EVERY_S;
	p->width = isatty(STDERR_FILENO) == 1 ? report_table_width(stderr) : 0;
	p->start_s = now_s();
	p->last_s = p->start_s;
	pthread_mutex_init(&p->lock, NULL);
	/* the thread waits on the monotonic clock: a clock set back does
	   not stall the line */
	if (pthread_condattr_init(&ca) == 0) {
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&p->wake, &ca);
		pthread_condattr_destroy(&ca);
	} else {
		pthread_cond_init(&p->wake, NULL);
	}
	/* without the thread the line moves with the work's updates only */
	p->ticking = pthread_create(&p->ticker, NULL, tick, p) == 0;
}

void progress_update(struct progress *p, size_t done, size_t total,
		     const char *unit)
{
	if (!p || !p->on)
		return;
	pthread_mutex_lock(&p->lock);
	p->done = done;
	p->total = total;
	p->unit = unit;
	draw_locked(p, now_s());
	pthread_mutex_unlock(&p->lock);
}

void progress_add(struct progress *p, size_t n)
{
	if (!p || !p->on)
		return;
	pthread_mutex_lock(&p->lock);
	p->done += n;
	draw_locked(p, now_s());
	pthread_mutex_unlock(&p->lock);
}

void progress_phase(struct progress *p, size_t done, size_t total,
		    const char *phase)
{
	if (!p || !p->on)
		return;
	pthread_mutex_lock(&p->lock);
	if (phase && phase[0])
		text_escape(phase, p->phase, sizeof(p->phase));
	else
		p->phase[0] = '\0';
	p->phase_done = done;
	p->phase_total = total;
	draw_locked(p, now_s());
	pthread_mutex_unlock(&p->lock);
}

static void hook_phase(void *ctx, size_t done, size_t total,
		       const char *phase)
{
	progress_phase(ctx, done, total, phase);
}

struct progress_hook progress_hook_of(struct progress *p)
{
	struct progress_hook h = { NULL, NULL };

	if (p && p->on) {
		h.fn = hook_phase;
		h.ctx = p;
	}
	return h;
}

void progress_pause(struct progress *p)
{
	if (!p || !p->on)
		return;
	pthread_mutex_lock(&p->lock);
	p->paused++;
	erase_locked(p);
	pthread_mutex_unlock(&p->lock);
}

void progress_resume(struct progress *p)
{
	if (!p || !p->on)
		return;
	pthread_mutex_lock(&p->lock);
	if (p->paused > 0)
		p->paused--;
	pthread_mutex_unlock(&p->lock);
}

void progress_end(struct progress *p)
{
	if (!p || !p->on)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_signal(&p->wake);
	pthread_mutex_unlock(&p->lock);
	if (p->ticking)
		pthread_join(p->ticker, NULL);
	erase_locked(p);
	pthread_cond_destroy(&p->wake);
	pthread_mutex_destroy(&p->lock);
	p->on = false;
	p->ticking = false;
}
