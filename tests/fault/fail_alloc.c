/*
 * fail_alloc.c - allocation-failure injection for capplan's own code.
 *
 * Linked into a test build of the program with -Wl,--wrap=malloc,
 * --wrap=calloc, --wrap=realloc, every allocation the program's objects
 * make goes through here.  CAPPLAN_FAIL_ALLOC=N makes the N-th one fail
 * (returns NULL, errno ENOMEM); CAPPLAN_FAIL_ALLOC=0 fails none and, with
 * CAPPLAN_COUNT_ALLOC set, prints how many there were to stderr at exit,
 * so that a test can walk every allocation site.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);

static long calls;
static long fail_at = -1;

static void report(void)
{
	fprintf(stderr, "allocations: %ld\n", calls);
}

/* True when this allocation is to fail. */
static int failing(void)
{
	if (fail_at < 0) {
		const char *s = getenv("CAPPLAN_FAIL_ALLOC");

		fail_at = s ? strtol(s, NULL, 10) : 0;
		if (getenv("CAPPLAN_COUNT_ALLOC"))
			atexit(report);
	}
	if (++calls == fail_at) {
		errno = ENOMEM;
		return 1;
	}
	return 0;
}

void *__wrap_malloc(size_t size)
{
	return failing() ? NULL : __real_malloc(size);
}

void *__wrap_calloc(size_t n, size_t size)
{
	return failing() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t size)
{
	return failing() ? NULL : __real_realloc(p, size);
}
