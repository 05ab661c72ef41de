/* test_model_queue.c - M/M/c waiting times against textbook values and a
   discrete-event simulation (cmocka). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "model_queue.h"

static void assert_rel(double got, double want, double tol)
{
	double scale = fabs(want) > 0.0 ? fabs(want) : 1.0;

	if (!(fabs(got - want) <= tol * scale)) {
		print_error("got %.17g, want %.17g (tol %g)\n", got, want, tol);
		fail();
	}
}

/*
 * Erlang C by the classic formula (Kleinrock 1975, eq. 3.42), evaluated
 * directly for small c:
 *   C = [a^c/c! * c/(c-a)] / [sum_{k<c} a^k/k! + a^c/c! * c/(c-a)].
 */
static double erlang_c_classic(int c, double a)
{
	double term = 1.0, sum = 0.0, top;

	for (int k = 0; k < c; k++) {
		sum += term;
		term *= a / (k + 1);
	}
	top = term * c / (c - a);
	return top / (sum + top);
}

/* ------------------------------------------------------------------ */

static void test_erlang_c_textbook(void **state)
{
	(void)state;
	/* c=2, a=1: C = (1/2 * 2) / (1 + 1 + 1) = 1/3 */
	assert_rel(queue_erlang_c(2.0, 1.0), 1.0 / 3.0, 1e-12);
	/* one server: C = rho */
	assert_rel(queue_erlang_c(1.0, 0.3), 0.3, 1e-12);
	assert_rel(queue_erlang_c(1.0, 0.8713), 0.8713, 1e-12);
	/* exact rational arithmetic in python3 (fractions.Fraction) of the
	   classic formula */
	assert_rel(queue_erlang_c(10.0, 8.0), 0.40918015079644354, 1e-9);
	assert_rel(queue_erlang_c(10.0, 8.237), 0.46411304070155407, 1e-9);
	assert_rel(queue_erlang_c(4.0, 3.2), 0.5964324717874044, 1e-9);
	assert_rel(queue_erlang_c(7.0, 4.123), 0.1530755531315776, 1e-9);
	assert_rel(queue_erlang_c(32.0, 28.0), 0.3630080574996472, 1e-9);
}

static void test_erlang_c_matches_classic_formula(void **state)
{
	(void)state;
	for (int c = 1; c <= 40; c += 3)
		for (double f = 0.05; f < 0.99; f += 0.137) {
			double a = f * c;

			assert_rel(queue_erlang_c(c, a), erlang_c_classic(c, a),
				   1e-9);
		}
}

static void test_erlang_c_large(void **state)
{
	double c;

	(void)state;
	/* thousands of servers: the factorials of the classic formula
	   overflow, the log-gamma route does not.  Reference: Erlang B
	   recursion B_k = a B_{k-1} / (k + a B_{k-1}) in 50-digit mpmath */
	c = queue_erlang_c(5000.0, 4900.0);
	assert_true(isfinite(c));
	assert_true(c > 0.0 && c < 1.0);
	assert_rel(c, 0.099937877234487662, 1e-9);
	/* heavier load on many servers: more waiting */
	assert_true(queue_erlang_c(5000.0, 4990.0) > c);
	assert_true(queue_erlang_c(5000.0, 4800.0) < c);
}

static void test_erlang_c_limits(void **state)
{
	(void)state;
	/* unstable: everyone waits */
	assert_rel(queue_erlang_c(4.0, 4.0), 1.0, 0.0);
	assert_rel(queue_erlang_c(4.0, 6.5), 1.0, 0.0);
	assert_rel(queue_erlang_c(0.0, 0.5), 1.0, 0.0);
	/* no load: nobody waits */
	assert_rel(queue_erlang_c(4.0, 0.0), 0.0, 0.0);
	/* monotone in the load, below 1 just under saturation */
	assert_true(queue_erlang_c(4.0, 3.99) < 1.0);
	assert_true(queue_erlang_c(4.0, 3.99) > queue_erlang_c(4.0, 3.9));
}

static void test_wait_formulas(void **state)
{
	double servers = 7.0, rate = 2.917, service = 1.4137;
	double load = rate * service;
	double c = erlang_c_classic(7, load);
	double drain = servers / service - rate;

	(void)state;
	/* mean wait C / (c mu - lambda) */
	assert_rel(queue_wait_mean_s(servers, rate, service), c / drain, 1e-9);
	/* P(W > t) = C exp(-(c mu - lambda) t) */
	assert_rel(queue_wait_percentile_s(servers, rate, service, 0.99),
		   log(c / 0.01) / drain, 1e-9);
	assert_rel(queue_wait_percentile_s(servers, rate, service, 0.9),
		   log(c / 0.1) / drain, 1e-9);
	/* a percentile that most requests reach without waiting: 0 */
	assert_true(c < 0.5);
	assert_rel(queue_wait_percentile_s(servers, rate, service, 0.5), 0.0,
		   0.0);
	/* percentiles grow with p */
	assert_true(queue_wait_percentile_s(servers, rate, service, 0.999) >
		    queue_wait_percentile_s(servers, rate, service, 0.99));
}

static void test_wait_unstable_and_idle(void **state)
{
	(void)state;
	/* load 4 x 1.25 = 5 on 5 servers */
	assert_true(queue_wait_mean_s(5.0, 4.0, 1.25) == HUGE_VAL);
	assert_true(queue_wait_percentile_s(5.0, 4.0, 1.25, 0.9) == HUGE_VAL);
	assert_true(queue_wait_mean_s(5.0, 9.0, 1.25) == HUGE_VAL);
	assert_true(queue_wait_percentile_s(5.0, 9.0, 1.25, 0.5) == HUGE_VAL);
	/* no arrivals: no waiting */
	assert_rel(queue_wait_mean_s(5.0, 0.0, 1.25), 0.0, 0.0);
	assert_rel(queue_wait_percentile_s(5.0, 0.0, 1.25, 0.99), 0.0, 0.0);
}

static void test_gsl_error(void **state)
{
	(void)state;
	/* a server count GSL's log-gamma rejects (NaN passes the load
	   checks): -1, passed on by the waiting times */
	assert_rel(queue_erlang_c(NAN, 1.0), -1.0, 0.0);
	assert_rel(queue_wait_mean_s(NAN, 1.0, 1.0), -1.0, 0.0);
	assert_rel(queue_wait_percentile_s(NAN, 1.0, 1.0, 0.9), -1.0, 0.0);
}

/* ------------------------------------------------------------------ */

/* What the simulation measured over the customers it kept. */
struct sim_stats {
	double p_wait;
	double mean;
	double p90;
	double p99;
};

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/*
 * First-come-first-served M/M/c: Poisson arrivals of 'rate', exponential
 * service of mean 'service', each customer takes the server that frees
 * first.  Measures the waiting times of 'n' customers after 'warm'
 * discarded ones (the queue starts empty).
 */
static void simulate(int c, double rate, double service, int n, int warm,
		     unsigned long seed, struct sim_stats *st)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double *free_at = calloc((size_t)c, sizeof(*free_at));
	double *w = malloc((size_t)n * sizeof(*w));
	double t = 0.0, sum = 0.0;
	int waited = 0;

	assert_non_null(rng);
	assert_non_null(free_at);
	assert_non_null(w);
	gsl_rng_set(rng, seed);
	for (int i = 0; i < warm + n; i++) {
		int s = 0;
		double start, wait;

		t += gsl_ran_exponential(rng, 1.0 / rate);
		for (int k = 1; k < c; k++)
			if (free_at[k] < free_at[s])
				s = k;
		start = free_at[s] > t ? free_at[s] : t;
		wait = start - t;
		free_at[s] = start + gsl_ran_exponential(rng, service);
		if (i >= warm) {
			w[i - warm] = wait;
			sum += wait;
			waited += wait > 0.0;
		}
	}
	qsort(w, (size_t)n, sizeof(*w), cmp_double);
	st->p_wait = (double)waited / n;
	st->mean = sum / n;
	st->p90 = w[(int)ceil(0.90 * n) - 1];
	st->p99 = w[(int)ceil(0.99 * n) - 1];
	free(w);
	free(free_at);
	gsl_rng_free(rng);
}

/*
 * Tolerances: waiting times in a queue at 80-90% load are strongly
 * correlated (a busy period spans hundreds of customers), so a million
 * customers hold only a few thousand independent samples.  Over 40 seeds
 * of this simulation with 10^6 customers, the relative spread (one
 * standard deviation) of the probability of waiting, the mean, p90 and p99
 * was 0.35%, 1.4%, 1.3% and 2.0% at c=4, load 3.2, and 1.3%, 2.8%, 2.6%
 * and 3.3% at c=32, load 28.  The tolerances are about four standard
 * deviations, so a wrong formula (a factor like 1/(1 - rho) or c/(c - a)
 * off) fails and sampling noise does not.
 */
static void check_sim(int c, double rate, double service,
		      const struct sim_stats *st, const double tol[4])
{
	double load = rate * service;

	assert_rel(st->p_wait, queue_erlang_c(c, load), tol[0]);
	assert_rel(st->mean, queue_wait_mean_s(c, rate, service), tol[1]);
	assert_rel(st->p90, queue_wait_percentile_s(c, rate, service, 0.90),
		   tol[2]);
	assert_rel(st->p99, queue_wait_percentile_s(c, rate, service, 0.99),
		   tol[3]);
}

static void test_simulation_small(void **state)
{
	struct sim_stats st;
	static const double tol[4] = { 0.015, 0.06, 0.05, 0.08 };

	(void)state;
	simulate(4, 3.2, 1.0, 1000000, 20000, 20240611UL, &st);
	check_sim(4, 3.2, 1.0, &st, tol);
}

static void test_simulation_many_servers(void **state)
{
	struct sim_stats st;
	static const double tol[4] = { 0.05, 0.12, 0.11, 0.14 };

	(void)state;
	/* 32 servers, load 35 x 0.8 = 28 Erlangs */
	simulate(32, 35.0, 0.8, 1000000, 20000, 97531UL, &st);
	check_sim(32, 35.0, 0.8, &st, tol);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_erlang_c_textbook),
		cmocka_unit_test(test_erlang_c_matches_classic_formula),
		cmocka_unit_test(test_erlang_c_large),
		cmocka_unit_test(test_erlang_c_limits),
		cmocka_unit_test(test_wait_formulas),
		cmocka_unit_test(test_wait_unstable_and_idle),
		cmocka_unit_test(test_gsl_error),
		cmocka_unit_test(test_simulation_small),
		cmocka_unit_test(test_simulation_many_servers),
	};

	gsl_set_error_handler_off();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
