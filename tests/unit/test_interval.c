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

/* A production figure (a time): the production band's log bounds,
   inverted, times its new-source factor, and the extrapolation factor
   on a device none of its runs used; a per-sample run's: its class's
   band widened both ways by z times the production sigma. */
static void test_production(void **state)
{
	const struct interval_band *b = &interval_production_band;
	double w = b->source_widen, out[2], base[2], s;

	(void)state;
	assert_true(b->rows >= 2);
	assert_true(b->lo_log < b->hi_log);
	interval_of_production(INTERVAL_TRAINING, "A100-SXM-80GB", 10.0, out);
	assert_rel(out[0], 10.0 * exp(-w * b->hi_log), 1e-15);
	assert_rel(out[1], 10.0 * exp(-w * b->lo_log), 1e-15);
	interval_of_production(INTERVAL_TRAINING, "MI300X", 10.0, out);
	assert_rel(out[0],
		   10.0 * exp(-INTERVAL_EXTRAPOLATION_WIDEN * w * b->hi_log),
		   1e-15);
	assert_rel(out[1],
		   10.0 * exp(-INTERVAL_EXTRAPOLATION_WIDEN * w * b->lo_log),
		   1e-15);
	s = interval_production_sigma_log();
	assert_rel(s, (b->hi_log - b->lo_log) / (2.0 * INTERVAL_LEVEL_Z) *
			      (w > 1.0 ? w : 1.0),
		   1e-15);
	interval_of(INTERVAL_PER_SAMPLE, "A100-SXM-80GB", 10.0, true, base);
	interval_of_production(INTERVAL_PER_SAMPLE, "A100-SXM-80GB", 10.0,
			       out);
	assert_rel(out[0], base[0] * exp(-INTERVAL_LEVEL_Z * s), 1e-15);
	assert_rel(out[1], base[1] * exp(INTERVAL_LEVEL_Z * s), 1e-15);
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

/* The offline class covers the batches of its rows (16 to 1280 today),
   the classes of fleets under load and of training runs every batch. */
static void test_batch_validated(void **state)
{
	const struct interval_band *b = &interval_bands[INTERVAL_OFFLINE];

	(void)state;
	assert_true(b->batch_lo > 1 && b->batch_lo <= b->batch_hi);
	assert_true(interval_batch_validated(INTERVAL_OFFLINE, b->batch_lo));
	assert_true(interval_batch_validated(INTERVAL_OFFLINE, b->batch_hi));
	assert_false(interval_batch_validated(INTERVAL_OFFLINE,
					      b->batch_lo - 1));
	assert_false(interval_batch_validated(INTERVAL_OFFLINE,
					      b->batch_hi + 1));
	assert_int_equal(interval_bands[INTERVAL_THROUGHPUT].batch_lo, 0);
	assert_true(interval_batch_validated(INTERVAL_THROUGHPUT, 1));
	assert_true(interval_batch_validated(INTERVAL_TRAINING, 100000));
}

/*
 * A rate over two times: work / (t1 + t2) with both times at their
 * intervals' ends.  By hand: prefill 10 ms and decode 90 ms of a rate of
 * 500; the TTFT band's time ends x [e^-(w hi), e^-(w lo)], the TPOT
 * band's likewise.
 */
static void test_sum_rate(void **state)
{
	const struct interval_band *f = &interval_bands[INTERVAL_TTFT];
	const struct interval_band *d = &interval_bands[INTERVAL_TPOT];
	const char *gpu = "H100-SXM";
	double out[2], lo, hi, t1 = 0.010, t2 = 0.090;

	(void)state;
	assert_true(interval_validated_on(INTERVAL_TTFT, gpu));
	assert_true(interval_validated_on(INTERVAL_TPOT, gpu));
	interval_of_sum_rate(INTERVAL_TTFT, t1, INTERVAL_TPOT, t2, gpu, 500.0,
			     out);
	lo = 500.0 * 0.1 /
	     (t1 * exp(-f->source_widen * f->lo_log) +
	      t2 * exp(-d->source_widen * d->lo_log));
	hi = 500.0 * 0.1 /
	     (t1 * exp(-f->source_widen * f->hi_log) +
	      t2 * exp(-d->source_widen * d->hi_log));
	assert_rel(out[0], lo, 1e-14);
	assert_rel(out[1], hi, 1e-14);
	assert_true(out[0] < 500.0 && out[1] > 500.0);
	/* a rate all decode: exactly the TPOT interval's, inverted */
	interval_of_sum_rate(INTERVAL_TTFT, 0.0, INTERVAL_TPOT, t2, gpu,
			     500.0, out);
	assert_rel(out[0], 500.0 * exp(d->source_widen * d->lo_log), 1e-14);
	assert_rel(out[1], 500.0 * exp(d->source_widen * d->hi_log), 1e-14);
}

/* A replica's rate takes the latencies' intervals at a batch below the
   offline rows', and leaves 'out' alone at one of their batches. */
static void test_replica_rate(void **state)
{
	const struct interval_band *b = &interval_bands[INTERVAL_OFFLINE];
	double out[2] = { -1.0, -1.0 }, sum[2];

	(void)state;
	assert_false(interval_of_replica_rate("H100-SXM", b->batch_lo, 0.01,
					      0.09, 500.0, out));
	assert_true(out[0] == -1.0 && out[1] == -1.0);
	assert_true(interval_of_replica_rate("H100-SXM", 1, 0.01, 0.09,
					     500.0, out));
	interval_of_sum_rate(INTERVAL_TTFT, 0.01, INTERVAL_TPOT, 0.09,
			     "H100-SXM", 500.0, sum);
	assert_rel(out[0], sum[0], 1e-15);
	assert_rel(out[1], sum[1], 1e-15);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_validated_on),
		cmocka_unit_test(test_interval_of),
		cmocka_unit_test(test_production),
		cmocka_unit_test(test_bands),
		cmocka_unit_test(test_batch_validated),
		cmocka_unit_test(test_sum_rate),
		cmocka_unit_test(test_replica_rate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
