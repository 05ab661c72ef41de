/*
 * serve_load.c - the requests of a simulated load: their lengths, and
 * the default number of requests; see serve_load.h and specs/models.md,
 * section "Serving under load".
 */
#include "serve_load.h"

#include <limits.h>
#include <math.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_roots.h>

/*
 * ShareGPT-shaped lengths: a log-normal of shape sigma (the log of the
 * length has this standard deviation), drawn within the bounds that the
 * ShareGPT samplers of vLLM's benchmark_serving.py and SGLang's
 * bench_serving.py keep (prompts and answers of at least 4 tokens,
 * prompts of at most 1024 and prompt plus answer of at most 2048 tokens),
 * with its location set so that the mean of the bounded distribution is
 * the workload's mean.  Sigma = 1 gives the long right tail of chat
 * lengths (a median about 0.6 of the mean); it is an assumption, not fitted
 * to any validation row (specs/models.md).
 */
static const double sharegpt_sigma = 1.0;
static const double sharegpt_min_tokens = 4.0;
static const double sharegpt_max_prompt_tokens = 1024.0;
static const double sharegpt_max_total_tokens = 2048.0;

/* Default run lengths: requests for a stable p99 (about 20 requests
   above it after the warm-up), and per replica of a fleet. */
static const int default_requests = 2000;
static const int default_requests_per_replica = 100;
static const int default_requests_max = SIM_REQUESTS_MAX;
static const int default_burst_requests = 1000;

/* Draws of a length before giving up on the bounds. */
static const int max_redraws = 1000;


/* Mean of a log-normal (location mu, shape s) bounded to [a, b]. */
static double lognormal_bounded_mean(double mu, double s, double a, double b)
{
	double za = (log(a) - mu) / s, zb = (log(b) - mu) / s;
	double mass = gsl_cdf_ugaussian_P(zb) - gsl_cdf_ugaussian_P(za);
	double part = gsl_cdf_ugaussian_P(zb - s) - gsl_cdf_ugaussian_P(za - s);

	if (mass <= 0.0)
		return mu < log(a) ? a : b;
	return exp(mu + 0.5 * s * s) * part / mass;
}

/*
 * The bounded mean to match.  With 'total' finite, the upper bound is
 * total - p for a prompt p drawn from its own bounded log-normal
 * (location pmu, bounds [pa, pb]): the mean is then averaged over
 * 'answer_quantiles' quantiles of the prompt, as the draws bound each
 * answer by what its prompt leaves of the context.
 */
struct mean_fn {
	double s, a, b, mean;
	double total, pmu, pa, pb;
};

static const int answer_quantiles = 32;

static double mean_at(const struct mean_fn *f, double mu)
{
	double za, zb, sum = 0.0;

	if (!isfinite(f->total))
		return lognormal_bounded_mean(mu, f->s, f->a, f->b);
	za = gsl_cdf_ugaussian_P((log(f->pa) - f->pmu) / f->s);
	zb = gsl_cdf_ugaussian_P((log(f->pb) - f->pmu) / f->s);
	for (int j = 0; j < answer_quantiles; j++) {
		double u = za + (j + 0.5) / answer_quantiles * (zb - za);
		double p = exp(f->pmu + f->s * gsl_cdf_ugaussian_Pinv(u));
		double b = fmax(f->a + 1.0, f->total - round(p));

		sum += lognormal_bounded_mean(mu, f->s, f->a, b);
	}
	return sum / answer_quantiles;
}

static double mean_excess(double mu, void *arg)
{
	const struct mean_fn *f = arg;

	return mean_at(f, mu) - f->mean;
}

/*
 * Location of the bounded log-normal whose mean is 'mean' (a < mean < b),
 * by Brent's method: the bounded mean grows with the location.
 */
static double lognormal_location(double mean, double a, double b,
				 const struct mean_fn *prompt)
{
	struct mean_fn f = { sharegpt_sigma, a, b, mean, HUGE_VAL, 0.0, 1.0,
			     1.0 };

	if (prompt) {
		f.total = prompt->total;
		f.pmu = prompt->pmu;
		f.pa = prompt->pa;
		f.pb = prompt->pb;
	}
	gsl_function fn = { mean_excess, &f };
	gsl_root_fsolver *s;
	double lo = log(a) - 6.0, hi = log(b) + 6.0, mu = log(mean);
	int status, iter = 0;

	if (mean_excess(lo, &f) >= 0.0 || mean_excess(hi, &f) <= 0.0)
		return mu;
	s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
	if (!s || gsl_root_fsolver_set(s, &fn, lo, hi) != GSL_SUCCESS) {
		gsl_root_fsolver_free(s);
		return mu;
	}
	do {
		if (gsl_root_fsolver_iterate(s) != GSL_SUCCESS)
			break;
		mu = gsl_root_fsolver_root(s);
		status = gsl_root_test_interval(gsl_root_fsolver_x_lower(s),
						gsl_root_fsolver_x_upper(s),
						1e-9, 0.0);
	} while (status == GSL_CONTINUE && ++iter < 200);
	gsl_root_fsolver_free(s);
	return mu;
}


/* The scale of the exponential whose value rounded up is geometric with
   mean 'mean' (>= 1): P(k) = (1 - q) q^(k - 1), q = 1 - 1 / mean. */
static double geometric_scale(double mean)
{
	return mean > 1.0 ? -1.0 / log1p(-1.0 / mean) : 0.0;
}

void sim_lengths_init(struct sim_lengths *lg, const struct sim_load *l)
{
	double total = l->max_context_tokens > 0 ? l->max_context_tokens :
						   HUGE_VAL;

	lg->dist = l->length_dist;
	lg->prompt_mean = l->prompt_tokens_mean;
	lg->output_mean = l->output_tokens_mean;
	lg->total_max = total;
	lg->prompt_max = total;
	lg->prompt_mu = lg->output_mu = 0.0;
	lg->prompt_scale = geometric_scale(l->prompt_tokens_mean);
	lg->output_scale = geometric_scale(l->output_tokens_mean);
	if (lg->dist == SIM_LEN_SHAREGPT) {
		struct mean_fn answer = { 0 };
		double pmax = fmin(sharegpt_max_prompt_tokens, total - 1.0);
		double tmax = fmin(sharegpt_max_total_tokens, total);

		/* the bounds hold the means only when the means are inside
		   them; a mean beyond them keeps the shape unbounded above */
		lg->prompt_max = l->prompt_tokens_mean <
						 0.5 * pmax ?
					 pmax :
					 total;
		lg->total_max = l->prompt_tokens_mean +
						l->output_tokens_mean <
					0.5 * tmax ?
				tmax :
				total;
		/* a prompt leaves room for the shortest answer */
		lg->prompt_max = fmin(lg->prompt_max,
				      lg->total_max - sharegpt_min_tokens);
		lg->prompt_mu = lognormal_location(
			lg->prompt_mean, sharegpt_min_tokens,
			isfinite(lg->prompt_max) ? lg->prompt_max : 1e12,
			NULL);
		/* each answer is bounded by what its prompt leaves */
		answer.total = lg->total_max;
		answer.pmu = lg->prompt_mu;
		answer.pa = sharegpt_min_tokens;
		answer.pb = isfinite(lg->prompt_max) ? lg->prompt_max : 1e12;
		lg->output_mu = lognormal_location(
			lg->output_mean, sharegpt_min_tokens,
			isfinite(lg->total_max) ? lg->total_max : 1e12,
			&answer);
	}
}

static int clamp_tokens(double x)
{
	if (!(x >= 1.0))
		return 1;
	return x > INT_MAX / 4 ? INT_MAX / 4 : (int)lround(x);
}

/* Draw one request's lengths. */
bool sim_lengths_draw(const struct sim_lengths *lg, gsl_rng *rng,
		      struct sim_request *q)
{
	double p = lg->prompt_mean, o = lg->output_mean;

	switch (lg->dist) {
	case SIM_LEN_FIXED:
		break;
	case SIM_LEN_EXPONENTIAL:
		/* geometric on 1, 2, ... with the means: an exponential of
		   scale -1 / ln(1 - 1 / mean), rounded up */
		for (int i = 0; i < max_redraws; i++) {
			p = ceil(gsl_ran_exponential(rng, lg->prompt_scale));
			o = ceil(gsl_ran_exponential(rng, lg->output_scale));
			if (p + o <= lg->total_max)
				break;
		}
		break;
	case SIM_LEN_SHAREGPT:
		for (int i = 0; i < max_redraws; i++) {
			p = round(gsl_ran_lognormal(rng, lg->prompt_mu,
						    sharegpt_sigma));
			if (p >= sharegpt_min_tokens && p <= lg->prompt_max)
				break;
		}
		for (int i = 0; i < max_redraws; i++) {
			o = round(gsl_ran_lognormal(rng, lg->output_mu,
						    sharegpt_sigma));
			if (o >= sharegpt_min_tokens && p + o <= lg->total_max)
				break;
		}
		break;
	}
	q->prompt_tokens = clamp_tokens(p);
	q->output_tokens = clamp_tokens(o);
	if (isfinite(lg->total_max) &&
	    (double)q->prompt_tokens + q->output_tokens > lg->total_max) {
		/* the draws did not land inside the context: shorten the
		   answer, then the prompt */
		double t = lg->total_max;

		if (q->prompt_tokens >= t)
			q->prompt_tokens = clamp_tokens(t - 1.0);
		q->output_tokens = clamp_tokens(t - q->prompt_tokens);
		return true;
	}
	return false;
}

int sim_default_requests(const struct sim_load *load, int replicas)
{
	long long n;

	if (load->arrival == SIM_ARRIVAL_TRACE)
		return load->trace_len > INT_MAX ? INT_MAX :
						   (int)load->trace_len;
	if (load->arrival == SIM_ARRIVAL_BURST)
		return default_burst_requests;
	n = (long long)default_requests_per_replica *
	    (replicas > 0 ? replicas : 1);
	if (n < default_requests)
		n = default_requests;
	if (n > default_requests_max)
		n = default_requests_max;
	if (load->arrival == SIM_ARRIVAL_CLOSED &&
	    n < 10LL * load->concurrency)
		n = 10LL * load->concurrency > default_requests_max ?
			    default_requests_max :
			    10LL * load->concurrency;
	return (int)n;
}
