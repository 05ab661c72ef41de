/* test_checked.c - overflow-checked integer arithmetic (checked.h) at the
   edges of each type (cmocka). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <limits.h>

#include "checked.h"

static void test_mul_int(void **state)
{
	int r = 0;

	(void)state;
	assert_false(ck_mul_overflows_int(46337, 46337, &r));
	assert_int_equal(r, 2147117569);
	assert_false(ck_mul_overflows_int(-3, 715827882, &r));
	assert_int_equal(r, -2147483646);
	assert_false(ck_mul_overflows_int(INT_MAX, 1, &r));
	assert_int_equal(r, INT_MAX);
	assert_false(ck_mul_overflows_int(INT_MIN, 1, &r));
	assert_int_equal(r, INT_MIN);
	assert_false(ck_mul_overflows_int(0, INT_MIN, &r));
	assert_int_equal(r, 0);
	/* the findings of issue 14: 2^30 * 2, 2147483647 * 8, 4096 * 2^19 */
	assert_true(ck_mul_overflows_int(1073741824, 2, &r));
	assert_true(ck_mul_overflows_int(INT_MAX, 8, &r));
	assert_true(ck_mul_overflows_int(4096, 524288, &r));
	assert_true(ck_mul_overflows_int(46341, 46341, &r));
	assert_true(ck_mul_overflows_int(INT_MIN, -1, &r));
	assert_true(ck_mul_overflows_int(-2, 1073741824 + 1, &r));
}

static void test_add_int(void **state)
{
	int r = 0;

	(void)state;
	assert_false(ck_add_overflows_int(INT_MAX - 17, 17, &r));
	assert_int_equal(r, INT_MAX);
	assert_false(ck_add_overflows_int(INT_MIN, INT_MAX, &r));
	assert_int_equal(r, -1);
	assert_true(ck_add_overflows_int(INT_MAX, 1, &r));
	assert_true(ck_add_overflows_int(INT_MIN, -1, &r));
	assert_true(ck_add_overflows_int(1073741824, 1073741824, &r));
}

static void test_mul_i64(void **state)
{
	int64_t r = 0;

	(void)state;
	/* 2^31 * 2^31 = 2^62 fits; what int would wrap, int64 holds */
	assert_false(ck_mul_overflows_i64(2147483648LL, 2147483648LL, &r));
	assert_true(r == 4611686018427387904LL);
	assert_false(ck_mul_overflows_i64(INT_MAX, 8, &r));
	assert_true(r == 17179869176LL);
	assert_false(ck_mul_overflows_i64(3037000499LL, 3037000499LL, &r));
	assert_true(r == 9223372030926249001LL);
	assert_true(ck_mul_overflows_i64(3037000500LL, 3037000500LL, &r));
	assert_true(ck_mul_overflows_i64(INT64_MAX, 2, &r));
	assert_true(ck_mul_overflows_i64(INT64_MIN, -1, &r));
	/* 2^63 does not fit in int64_t: -2^32 * 2^31 does, 2^32 * 2^31 not */
	assert_false(ck_mul_overflows_i64(-4294967296LL, 2147483648LL, &r));
	assert_true(r == INT64_MIN);
	assert_true(ck_mul_overflows_i64(4294967296LL, 2147483648LL, &r));
}

static void test_add_i64(void **state)
{
	int64_t r = 0;

	(void)state;
	assert_false(ck_add_overflows_i64(INT64_MAX - 5, 5, &r));
	assert_true(r == INT64_MAX);
	assert_true(ck_add_overflows_i64(INT64_MAX, 1, &r));
	assert_true(ck_add_overflows_i64(INT64_MIN, -1, &r));
	assert_false(ck_add_overflows_i64(INT64_MIN, INT64_MAX, &r));
	assert_true(r == -1);
}

static void test_mul_size(void **state)
{
	size_t r = 0;

	(void)state;
	assert_false(ck_mul_overflows_size(SIZE_MAX / 24, 24, &r));
	assert_true(r == SIZE_MAX / 24 * 24);
	assert_true(ck_mul_overflows_size(SIZE_MAX / 24 + 1, 24, &r));
	assert_true(ck_mul_overflows_size(SIZE_MAX, 2, &r));
	assert_false(ck_mul_overflows_size(0, SIZE_MAX, &r));
	assert_true(r == 0);
}

static void test_saturating(void **state)
{
	(void)state;
	assert_int_equal(ck_sat_mul_int(46337, 46337), 2147117569);
	assert_int_equal(ck_sat_mul_int(16777216, 128), INT_MAX);
	assert_int_equal(ck_sat_mul_int(INT_MAX, INT_MAX), INT_MAX);
	assert_int_equal(ck_sat_mul_int(-1, 5), INT_MAX);
	assert_int_equal(ck_sat_mul_int(0, INT_MAX), 0);
	assert_true(ck_sat_mul_i64(3037000499LL, 3037000499LL) ==
		    9223372030926249001LL);
	assert_true(ck_sat_mul_i64(3037000500LL, 3037000500LL) == INT64_MAX);
	assert_true(ck_sat_mul_i64(5, -1) == INT64_MAX);
}

/* A doubling loop visits 1, 2, 4, ... up to the limit and ends, also
   for a limit whose next power of two is past INT_MAX. */
static int pow2_loop(int limit, int *last)
{
	int n = 0;

	*last = 0;
	for (int t = 1; t > 0 && t <= limit; t = ck_doubled_within(t, limit)) {
		*last = t;
		n++;
	}
	return n;
}

static void test_doubled_within(void **state)
{
	int last;

	(void)state;
	assert_int_equal(ck_doubled_within(1, 8), 2);
	assert_int_equal(ck_doubled_within(4, 8), 8);
	assert_int_equal(ck_doubled_within(8, 8), 0);
	assert_int_equal(ck_doubled_within(4, 9), 8);
	assert_int_equal(ck_doubled_within(8, 15), 0);
	assert_int_equal(ck_doubled_within(1073741824, INT_MAX), 0);
	assert_int_equal(ck_doubled_within(0, 8), 0);
	assert_int_equal(ck_doubled_within(-4, 8), 0);
	assert_int_equal(pow2_loop(0, &last), 0);
	assert_int_equal(pow2_loop(1, &last), 1);
	assert_int_equal(last, 1);
	assert_int_equal(pow2_loop(72, &last), 7);
	assert_int_equal(last, 64);
	/* the finding: gpus_per_node 1073741825 */
	assert_int_equal(pow2_loop(1073741825, &last), 31);
	assert_int_equal(last, 1073741824);
	assert_int_equal(pow2_loop(INT_MAX, &last), 31);
	/* from another start: 72, 144, ... */
	assert_int_equal(ck_doubled_within(72, 200), 144);
	assert_int_equal(ck_doubled_within(144, 200), 0);
	assert_int_equal(ck_doubled_within(1000000000, INT_MAX), 2000000000);
	assert_int_equal(ck_doubled_within(1100000000, INT_MAX), 0);
	assert_int_equal(last, 1073741824);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mul_int),
		cmocka_unit_test(test_add_int),
		cmocka_unit_test(test_mul_i64),
		cmocka_unit_test(test_add_i64),
		cmocka_unit_test(test_mul_size),
		cmocka_unit_test(test_saturating),
		cmocka_unit_test(test_doubled_within),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
