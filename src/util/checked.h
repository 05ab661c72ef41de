/*
 * checked.h - overflow-checked integer arithmetic for counts and sizes.
 *
 * Products of counts (GPUs, layers, sequences, tokens) are where a plain
 * 'int' multiplication wraps and turns a hostile but accepted input into a
 * division by zero or a silent wrong number.  These helpers compute in the
 * operands' type and report overflow instead of wrapping, the way SQLite's
 * sqlite3MulInt64 and git's st_mult do; they are built on GCC's and
 * clang's __builtin_*_overflow, which compute the exact result and say
 * whether it fits.
 *
 * The ck_*_overflows functions follow the builtins (and C23's ckd_mul):
 * they return true when the exact result does not fit, and then leave
 * '*r' unspecified; otherwise '*r' is the result.  The ck_sat_* functions
 * saturate instead, for counts that are only compared with a limit.
 * All are pure and static inline.
 */
#ifndef CAPPLAN_CHECKED_H
#define CAPPLAN_CHECKED_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if !defined(__GNUC__) && !defined(__clang__)
#error "checked.h needs __builtin_mul_overflow (GCC 5, clang 3.8 or later)"
#endif

/* a * b in int: true on overflow. */
static inline bool ck_mul_overflows_int(int a, int b, int *r)
{
	return __builtin_mul_overflow(a, b, r);
}

/* a + b in int: true on overflow. */
static inline bool ck_add_overflows_int(int a, int b, int *r)
{
	return __builtin_add_overflow(a, b, r);
}

/* a * b in int64_t: true on overflow. */
static inline bool ck_mul_overflows_i64(int64_t a, int64_t b, int64_t *r)
{
	return __builtin_mul_overflow(a, b, r);
}

/* a + b in int64_t: true on overflow. */
static inline bool ck_add_overflows_i64(int64_t a, int64_t b, int64_t *r)
{
	return __builtin_add_overflow(a, b, r);
}

/* a * b in size_t (an allocation size): true on overflow. */
static inline bool ck_mul_overflows_size(size_t a, size_t b, size_t *r)
{
	return __builtin_mul_overflow(a, b, r);
}

/* a * b for non-negative counts, or INT_MAX when it does not fit in int
   (or an operand is negative): "more than any limit". */
static inline int ck_sat_mul_int(int a, int b)
{
	int r;

	if (a < 0 || b < 0 || ck_mul_overflows_int(a, b, &r))
		return INT_MAX;
	return r;
}

/* a * b for non-negative counts, or INT64_MAX when it does not fit (or
   an operand is negative). */
static inline int64_t ck_sat_mul_i64(int64_t a, int64_t b)
{
	int64_t r;

	if (a < 0 || b < 0 || ck_mul_overflows_i64(a, b, &r))
		return INT64_MAX;
	return r;
}

/*
 * The next value of a doubling loop (1, 2, 4, ... or n, 2n, 4n, ...) up
 * to 'limit': 2 * v when that is at most 'limit', else 0, which ends a
 * loop written
 *   for (int t = 1; t > 0 && t <= limit; t = ck_doubled_within(t, limit))
 * without ever computing a product past INT_MAX (a plain 't *= 2' wraps
 * to 0 for a limit above 2^30 and never ends, or divides by zero).
 */
static inline int ck_doubled_within(int v, int limit)
{
	return v > 0 && v <= limit / 2 ? 2 * v : 0;
}

#endif
