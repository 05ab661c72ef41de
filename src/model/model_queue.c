/* model_queue.c - M/M/c waiting times; see model_queue.h. */
#include "model_queue.h"

#include <math.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_sf_gamma.h>

double queue_erlang_c(double servers, double load)
{
	gsl_sf_result lg, q;
	double log_pmf, erlang_b;

	if (load <= 0.0)
		return 0.0;
	if (load >= servers)
		return 1.0;
	/* Erlang B = Poisson(load) pmf at 'servers' / cdf up to 'servers';
	   the cdf is the regularized upper incomplete gamma Q(c + 1, a) */
	if (gsl_sf_lngamma_e(servers + 1.0, &lg) != GSL_SUCCESS ||
	    gsl_sf_gamma_inc_Q_e(servers + 1.0, load, &q) != GSL_SUCCESS ||
	    q.val <= 0.0)
		return -1.0;
	log_pmf = servers * log(load) - load - lg.val;
	erlang_b = exp(log_pmf) / q.val;
	if (erlang_b > 1.0)
		erlang_b = 1.0;
	/* Erlang C from Erlang B (Kleinrock 1975, eq. 3.45 rearranged) */
	return servers * erlang_b / (servers - load * (1.0 - erlang_b));
}

double queue_wait_percentile_s(double servers, double rate, double service_s,
			       double p)
{
	double load = rate * service_s;
	double c, drain;

	if (load >= servers)
		return HUGE_VAL;
	c = queue_erlang_c(servers, load);
	if (c < 0.0)
		return -1.0;
	/* P(W > t) = C exp(-(c mu - lambda) t) */
	if (c <= 1.0 - p)
		return 0.0;
	drain = servers / service_s - rate;
	return log(c / (1.0 - p)) / drain;
}

double queue_wait_mean_s(double servers, double rate, double service_s)
{
	double load = rate * service_s;
	double c;

	if (load >= servers)
		return HUGE_VAL;
	c = queue_erlang_c(servers, load);
	if (c < 0.0)
		return -1.0;
	return c / (servers / service_s - rate);
}
