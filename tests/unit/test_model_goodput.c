/* test_model_goodput.c - failures, checkpoints and restarts (cmocka). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>

#include "model_goodput.h"

static void assert_rel(double got, double want, double tol)
{
	double scale = fabs(want) > 0.0 ? fabs(want) : 1.0;

	if (!(fabs(got - want) <= tol * scale)) {
		print_error("got %.17g, want %.17g (tol %g)\n", got, want, tol);
		fail();
	}
}

/* 1024 GPUs on 128 nodes failing every 10,000 s, a 10 s checkpoint
   (1.28 TB at 1 GB/s per node), a 600 s restart, 1e6 s of work in 1 s
   steps. */
static struct goodput_input base(void)
{
	struct goodput_input in = {
		.gpus = 1024,
		.nodes = 128,
		.ideal_s = 1e6,
		.step_s = 1.0,
		.checkpoint_bytes = 1.28e12,
		.storage_bw_bytes_per_s = 1e9,
		.snapshot_bw_bytes_per_s = 25e9,
		.failures_per_gpu_s = 1.0 / (1024 * 1e4),
		.restart_s = 600.0,
		.maintenance = 0.0,
	};
	return in;
}

/* Daly 2006, figures 3-5: M = 24 h, 6 h and 15 min with a 5 min dump
   give optimal intervals of 117, 57 and 9.1 minutes. */
static void test_daly_paper_intervals(void **state)
{
	(void)state;
	assert_true(fabs(goodput_daly_interval_s(300.0, 24 * 3600.0) / 60.0 -
			 117.0) < 0.5);
	assert_true(fabs(goodput_daly_interval_s(300.0, 6 * 3600.0) / 60.0 -
			 57.0) < 0.5);
	assert_true(fabs(goodput_daly_interval_s(300.0, 900.0) / 60.0 - 9.1) <
		    0.05);
	/* by hand: xi = 5 / 2880, 120 (1 + sqrt(xi)/3 + xi/9) - 5 min */
	assert_rel(goodput_daly_interval_s(300.0, 24 * 3600.0),
		   60.0 * (120.0 * (1.0 + sqrt(5.0 / 2880.0) / 3.0 +
				    5.0 / (9.0 * 2880.0)) -
			   5.0),
		   1e-12);
}

static void test_daly_long_dump_and_young(void **state)
{
	(void)state;
	/* a dump of two MTBFs or more: checkpoint every MTBF */
	assert_rel(goodput_daly_interval_s(100.0, 50.0), 50.0, 0.0);
	assert_rel(goodput_daly_interval_s(1000.0, 50.0), 50.0, 0.0);
	assert_true(isinf(goodput_daly_interval_s(10.0, HUGE_VAL)));
	/* Young: sqrt(2 x 10 x 1e4) */
	assert_rel(goodput_young_interval_s(10.0, 1e4), sqrt(2e5), 1e-15);
	/* Daly tends to Young for short dumps */
	assert_rel(goodput_daly_interval_s(0.01, 1e6),
		   goodput_young_interval_s(0.01, 1e6), 1e-4);
}

static void test_daly_time(void **state)
{
	double m = 1e4, tau = 440.0, d = 10.0, r = 600.0, ts = 1e6;
	double want = m * exp(r / m) * expm1((tau + d) / m) * ts / tau;

	(void)state;
	assert_rel(exp(goodput_daly_log_time(ts, tau, d, r, m)), want, 1e-12);
	/* first order in 1/M: Ts (1 + d/tau) (1 + (tau + d)/2M + R/M) */
	assert_rel(exp(goodput_daly_log_time(ts, tau, d, r, 1e9)),
		   ts * (1.0 + d / tau) * (1.0 + (tau + d) / 2e9 + r / 1e9),
		   1e-12);
	/* no failures: each interval and its dump */
	assert_rel(exp(goodput_daly_log_time(ts, tau, d, r, HUGE_VAL)),
		   (tau + d) * ts / tau, 1e-12);
	/* far past any plan, still a finite log */
	assert_true(isfinite(goodput_daly_log_time(ts, 1.0, 1.0, 1e6, 1e-3)));
}

/* The base case by hand: M = 1e4 s, d = 10 s, Daly's interval
   sqrt(2e5) (1 + sqrt(5e-4)/3 + 5e-4/9) - 10 = 440.56 s -> 441 steps. */
static void test_eval_by_hand(void **state)
{
	struct goodput_input in = base();
	struct goodput g;
	double tw = 1e4 * exp(600.0 / 1e4) * expm1(451.0 / 1e4) * 1e6 / 441.0;

	(void)state;
	goodput_eval(&in, &g);
	assert_true(g.finishes);
	assert_rel(g.job_mtbf_s, 1e4, 1e-12);
	assert_rel(g.checkpoint_write_s, 10.0, 1e-12);
	assert_rel(g.checkpoint_stall_s, 10.0, 1e-12);
	assert_rel(g.checkpoint_interval_steps, 441.0, 0.0);
	assert_rel(g.checkpoint_interval_s, 441.0, 1e-12);
	assert_rel(g.young_interval_s, sqrt(2e5), 1e-12);
	assert_rel(g.time_s, tw, 1e-12);
	assert_rel(g.goodput, 1e6 / tw, 1e-12);
	assert_rel(g.expected_interruptions, tw / 1e4, 1e-12);
	/* within 15% of Young's interval */
	assert_true(fabs(g.checkpoint_interval_s / g.young_interval_s - 1.0) <
		    0.15);
	/* each failure costs the restart and about half an interval */
	assert_rel(g.lost_per_failure_s, 600.0 + 451.0 / 2.0, 0.05);
	/* the GPUs are busy for the work and the rework only */
	assert_rel(g.busy_s,
		   tw - g.expected_interruptions * 600.0 - 1e6 / 441.0 * 10.0,
		   1e-12);
	assert_true(g.busy_s > 1e6 && g.busy_s < tw);
}

static void test_faster_storage_more_goodput(void **state)
{
	struct goodput_input in = base();
	struct goodput slow, fast;

	(void)state;
	goodput_eval(&in, &slow);
	in.storage_bw_bytes_per_s *= 10.0;
	goodput_eval(&in, &fast);
	assert_true(fast.goodput > slow.goodput);
	assert_true(fast.checkpoint_interval_s < slow.checkpoint_interval_s);
	assert_rel(fast.checkpoint_write_s, 1.0, 1e-12);
}

static void test_more_gpus_less_goodput(void **state)
{
	struct goodput_input in = base();
	struct goodput small, big;

	(void)state;
	goodput_eval(&in, &small);
	in.gpus *= 8;
	in.nodes *= 8;
	goodput_eval(&in, &big);
	assert_rel(big.job_mtbf_s, small.job_mtbf_s / 8.0, 1e-12);
	assert_true(big.goodput < small.goodput);
}

static void test_async(void **state)
{
	struct goodput_input in = base();
	struct goodput g;
	double stall = 1.28e12 / 1024 / 25e9; /* 50 ms */
	double tau, tw;

	(void)state;
	in.async_checkpoint = true;
	goodput_eval(&in, &g);
	assert_rel(g.checkpoint_stall_s, stall, 1e-12);
	assert_rel(g.checkpoint_write_s, 10.0, 1e-12);
	/* Daly's interval for the 50 ms stall, at least the 10 s write */
	tau = nearbyint(fmax(goodput_daly_interval_s(stall, 1e4), 10.0));
	assert_rel(g.checkpoint_interval_s, tau, 1e-12);
	/* the write counts as lost work on each failure */
	tw = 1e4 * exp(610.0 / 1e4) * expm1((tau + stall) / 1e4) * 1e6 / tau;
	assert_rel(g.time_s, tw, 1e-12);
	{
		struct goodput sync;

		in.async_checkpoint = false;
		goodput_eval(&in, &sync);
		assert_true(g.goodput > sync.goodput);
	}
	/* a write longer than Daly's interval bounds it from below */
	in.async_checkpoint = true;
	in.storage_bw_bytes_per_s = 1e6; /* 10,000 s writes */
	goodput_eval(&in, &g);
	assert_rel(g.checkpoint_interval_s, 1e4, 1e-12);
}

static void test_given_interval_and_steps(void **state)
{
	struct goodput_input in = base();
	struct goodput g;

	(void)state;
	in.interval_s = 1000.0;
	in.step_s = 7.0;
	goodput_eval(&in, &g);
	/* 1000 / 7 = 142.9 -> 143 steps of 7 s */
	assert_rel(g.checkpoint_interval_steps, 143.0, 0.0);
	assert_rel(g.checkpoint_interval_s, 1001.0, 1e-12);
	/* never shorter than a step nor longer than the run */
	in.interval_s = 1.0;
	goodput_eval(&in, &g);
	assert_rel(g.checkpoint_interval_s, 7.0, 1e-12);
	in.interval_s = 1e9;
	goodput_eval(&in, &g);
	assert_rel(g.checkpoint_interval_s, 1e6, 1e-12);
}

static void test_no_failures_and_maintenance(void **state)
{
	struct goodput_input in = base();
	struct goodput g;

	(void)state;
	in.failures_per_gpu_s = 0.0;
	goodput_eval(&in, &g);
	assert_true(isinf(g.job_mtbf_s));
	/* one checkpoint, at the end */
	assert_rel(g.checkpoint_interval_s, 1e6, 1e-12);
	assert_rel(g.time_s, 1e6 + 10.0, 1e-12);
	assert_rel(g.expected_interruptions, 0.0, 0.0);
	in.maintenance = 0.2;
	goodput_eval(&in, &g);
	assert_rel(g.time_s, (1e6 + 10.0) / 0.8, 1e-12);
	assert_rel(g.goodput, 1e6 * 0.8 / (1e6 + 10.0), 1e-12);
}

static void test_never_finishes(void **state)
{
	struct goodput_input in = base();
	struct goodput g;

	(void)state;
	/* a failure every millisecond and a 600 s restart */
	in.failures_per_gpu_s = 1.0 / 1024 * 1e3;
	goodput_eval(&in, &g);
	assert_false(g.finishes);
	assert_true(isinf(g.time_s));
	assert_true(g.goodput >= 0.0 && g.goodput < GOODPUT_MIN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_daly_paper_intervals),
		cmocka_unit_test(test_daly_long_dump_and_young),
		cmocka_unit_test(test_daly_time),
		cmocka_unit_test(test_eval_by_hand),
		cmocka_unit_test(test_faster_storage_more_goodput),
		cmocka_unit_test(test_more_gpus_less_goodput),
		cmocka_unit_test(test_async),
		cmocka_unit_test(test_given_interval_and_steps),
		cmocka_unit_test(test_no_failures_and_maintenance),
		cmocka_unit_test(test_never_finishes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
