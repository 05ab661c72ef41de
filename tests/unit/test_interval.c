/* test_interval.c - prediction intervals from validation errors
   (cmocka). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>

#include "interval.h"

static void assert_rel(double got, double want, double tol)
{
	if (!(fabs(got - want) <= tol * fabs(want))) {
		print_error("got %.17g, want %.17g\n", got, want);
		fail();
	}
}

static void test_validated_on(void **state)
{
	(void)state;
	/* the training rows come from A100-80GB and H100 runs */
	assert_true(interval_validated_on(INTERVAL_TRAINING, "H100-SXM"));
	assert_true(interval_validated_on(INTERVAL_TRAINING,
					  "A100-SXM-80GB"));
	/* whole names only */
	assert_false(interval_validated_on(INTERVAL_TRAINING, "H100"));
	assert_false(interval_validated_on(INTERVAL_TRAINING, "H100-SXM-X"));
	assert_false(interval_validated_on(INTERVAL_TRAINING, "MI300X"));
	assert_false(interval_validated_on(INTERVAL_TRAINING, ""));
}

/* A rate: value x e^(w band); a time: value x e^-(w band) reversed, w the
   class's new-source widening; on a device outside the rows both log
   bounds grow by the extrapolation factor too. */
static void test_interval_of(void **state)
{
	const struct interval_band *b = &interval_bands[INTERVAL_TRAINING];
	double w = b->source_widen, out[2];

	(void)state;
	assert_true(b->rows >= 9);
	assert_true(b->lo_log < 0.0 && b->hi_log > 0.0);
	assert_true(w >= 1.0 && w <= 2.0);
	interval_of(INTERVAL_TRAINING, "H100-SXM", 100.0, false, out);
	assert_rel(out[0], 100.0 * exp(w * b->lo_log), 1e-15);
	assert_rel(out[1], 100.0 * exp(w * b->hi_log), 1e-15);
	interval_of(INTERVAL_TRAINING, "H100-SXM", 10.0, true, out);
	assert_rel(out[0], 10.0 * exp(-w * b->hi_log), 1e-15);
	assert_rel(out[1], 10.0 * exp(-w * b->lo_log), 1e-15);
	assert_true(out[0] < 10.0 && out[1] > 10.0);
	interval_of(INTERVAL_TRAINING, "MI300X", 100.0, false, out);
	assert_rel(out[0], 100.0 * exp(INTERVAL_EXTRAPOLATION_WIDEN * w *
				       b->lo_log),
		   1e-15);
	assert_rel(out[1], 100.0 * exp(INTERVAL_EXTRAPOLATION_WIDEN * w *
				       b->hi_log),
		   1e-15);
}

/* Every class has rows and a band around no error at all: the model is
   sometimes too fast and sometimes too slow on each. */
static void test_bands(void **state)
{
	(void)state;
	for (int c = 0; c < INTERVAL_COUNT; c++) {
		assert_true(interval_bands[c].rows >= 3);
		assert_true(interval_bands[c].lo_log <
			    interval_bands[c].hi_log);
		assert_non_null(interval_bands[c].devices);
		assert_true(interval_bands[c].source_widen >= 1.0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_validated_on),
		cmocka_unit_test(test_interval_of),
		cmocka_unit_test(test_bands),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
