/*
 * progress_hook.h - how work in the pure core says how far it has come
 * without printing: a function and its context, handed down by the
 * caller.  A command turns the calls into its progress line on a terminal
 * (render/progress.h, progress_hook_of); a test counts them.
 *
 * The work calls the hook between its steps (a tensor-parallel size
 * sized, a device planned), never in an inner loop, with the steps done,
 * the steps in all (0 when not known) and a phase: a static string that
 * says what the steps are ("sizing replicas").  It may be called from
 * several threads at once, so the function must be thread-safe, and it
 * must be cheap.  A NULL hook, or one with a NULL fn, is not called: the
 * work costs the same as without one.
 */
#ifndef CAPPLAN_PROGRESS_HOOK_H
#define CAPPLAN_PROGRESS_HOOK_H

#include <stddef.h>

struct progress_hook {
	void (*fn)(void *ctx, size_t done, size_t total, const char *phase);
	void *ctx;
};

/* Call 'h' when it is set (see above). */
static inline void progress_hook_call(const struct progress_hook *h,
				      size_t done, size_t total,
				      const char *phase)
{
	if (h && h->fn)
		h->fn(h->ctx, done, total, phase);
}

#endif
