/* mix_power.c - the largest load a power budget serves with a mixed
   fleet; see mix_power.h and specs/models.md 10.9.23. */
#include "mix_power.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double watts_per_mw = 1e6;

/* A simulated fleet that misses backs off to this share of its scale at
   most; one over the budget to budget / its power when that is less. */
static const double backoff_share = 0.95;
static const double backoff_missed = 0.9;

/* The units of one parallel pass and their return codes. */
struct pass {
	struct mix_plan *m;
	int *rc;
	struct diag *err; /* the first failure's (unit order) */
};

static void measure_one(int i, void *arg)
{
	struct pass *p = arg;
	struct diag e;

	diag_clear(&e);
	p->rc[i] = mix_plan_measure(p->m, i, &e);
}

static void simulate_one(int i, void *arg)
{
	struct pass *p = arg;
	struct diag e;

	diag_clear(&e);
	p->rc[i] = mix_plan_simulate(p->m, i, &e);
}

/* Run 'one' over 'n' units; -1 (out of memory, the only failure of a
   unit) when one fails. */
static int run_all(struct mix_plan *m, int n, void (*one)(int, void *),
		   mix_each_fn each, struct diag *err)
{
	struct pass p = { m, calloc((size_t)(n > 0 ? n : 1), sizeof(int)),
			  err };
	int rc = 0;

	if (!p.rc)
		return diag_set_kind(err, DIAG_NOMEM, NULL, 0, 0,
				     "out of memory");
	if (each)
		each(n, one, &p);
	else
		for (int i = 0; i < n; i++)
			one(i, &p);
	for (int i = 0; i < n; i++)
		if (p.rc[i] != 0)
			rc = diag_set_kind(err, DIAG_NOMEM, NULL, 0, 0,
					   "out of memory");
	free(p.rc);
	return rc;
}

/* Plan the load at 'scale' and solve for the least power: 1 with the
   program's fleet, 0 when no fleet serves that load (why in 'why'), -1
   out of memory. */
static int least_at(struct mix_plan *m, double scale, mix_each_fn each,
		    char *why, size_t size, struct diag *err)
{
	struct diag e;

	if (mix_plan_scale(m, scale, err) != 0 ||
	    run_all(m, mix_plan_measure_count(m), measure_one, each, err) != 0)
		return -1;
	diag_clear(&e);
	if (mix_plan_solve_for(m, MIX_LEAST_POWER, &e) != 0) {
		if (e.kind == DIAG_NOMEM) {
			*err = e;
			return -1;
		}
		snprintf(why, size, "%.300s", e.msg);
		return 0;
	}
	return 1;
}

/* The program's fleet is one replica. */
static bool one_replica(const struct mix_plan *m)
{
	int n = 0;

	for (int i = 0; i < mix_plan_pool_count(m); i++)
		n += mix_plan_pool(m, i)->ip_replicas;
	return n == 1;
}

/* Plan, solve and simulate the fleet at 'scale' ('planned': the plan
   holds that scale's program already): 1 when it meets the targets (its
   simulated power in '*w', the program's in '*ip_w'), 0 when it does
   not or no fleet serves that load (why in 'why'), -1 out of memory. */
static int fleet_at(struct mix_plan *m, double scale, bool planned,
		    mix_each_fn each, double *w, double *ip_w, char *why,
		    size_t size, struct diag *err)
{
	const struct mix_result *r;
	int ok = planned ? 1 : least_at(m, scale, each, why, size, err);

	*w = 0.0;
	*ip_w = ok > 0 ? mix_plan_result(m)->ip_power_w : 0.0;
	if (ok <= 0)
		return ok;
	if (run_all(m, mix_plan_pool_count(m), simulate_one, each, err) != 0)
		return -1;
	r = mix_plan_result(m);
	*w = r->power_w;
	if (!r->meets)
		snprintf(why, size, "%.300s", r->why);
	return r->meets ? 1 : 0;
}

int mix_plan_power_fit(struct mix_plan *m, double budget_w, mix_each_fn each,
		       const struct progress_hook *hook,
		       struct mix_power_fit *out, struct diag *err)
{
	const double tol = MIX_POWER_SCALE_TOL;
	double lo = 0.0, hi, w_lo = 0.0, miss_w = 0.0, miss_scale = 0.0;
	double best = 0.0, over = HUGE_VAL, s, w, ip_w;
	bool rose = false;
	char why[320];
	int ok, step = 0, total = MIX_POWER_STEPS_MAX + MIX_POWER_BACKOFFS + 2;

	memset(out, 0, sizeof(*out));
	out->budget_w = budget_w;
	if (!(budget_w > 0.0) || !isfinite(budget_w))
		return diag_set(err, NULL, 0, 0,
				"the power budget must be positive, not %g W",
				budget_w);
	/* the load as given: the saturated capacities bound the scale */
	progress_hook_call(hook, 0, (size_t)total, "planning");
	ok = least_at(m, 1.0, each, why, sizeof(why), err);
	out->steps = 1;
	if (ok < 0)
		return -1;
	out->least_w = mix_plan_least_power(m);
	if (ok == 0 || !(out->least_w > 0.0) || !isfinite(out->least_w))
		return diag_set(err, NULL, 0, 0, "%s",
				ok == 0 ? why : "no device serves the load");
	if (mix_plan_result(m)->ip_power_w <= budget_w) {
		lo = 1.0;
		w_lo = mix_plan_result(m)->ip_power_w;
		rose = true;
	} else {
		miss_w = mix_plan_result(m)->ip_power_w;
		miss_scale = 1.0;
	}
	/* no fleet serves more than the budget over the least power per
	   request/s, bucket by bucket */
	hi = fmax(budget_w / out->least_w, lo);

	/* 1. the largest scale whose least-power fleet (the program's) is
	   within the budget: after a scale that fits, the next is where
	   its power, scaled in proportion, meets the budget (the fleet's
	   power grows about as the load); else the midpoint */
	for (int k = 0; k < MIX_POWER_STEPS_MAX && (hi - lo) > tol * hi;
	     k++) {
		double mid = 0.5 * (lo + hi);

		s = mid;
		if (rose && w_lo > 0.0) {
			double guess = lo * budget_w / w_lo;

			if (guess > lo + tol * hi && guess < hi - tol * hi)
				s = guess;
		}
		progress_hook_call(hook, (size_t)++step, (size_t)total,
				   "largest load");
		ok = least_at(m, s, each, why, sizeof(why), err);
		out->steps++;
		if (ok < 0)
			return -1;
		rose = ok > 0 && mix_plan_result(m)->ip_power_w <= budget_w;
		if (rose) {
			lo = s;
			w_lo = mix_plan_result(m)->ip_power_w;
		} else {
			hi = s;
			miss_scale = s;
			miss_w = ok > 0 ? mix_plan_result(m)->ip_power_w : 0.0;
		}
	}
	if (!(lo > 0.0)) {
		if (miss_w > 0.0 && one_replica(m))
			snprintf(out->why, sizeof(out->why),
				 "the replica of least power draws %.3g kW, "
				 "over the %.3g kW budget",
				 miss_w / 1e3, budget_w / 1e3);
		else if (miss_w > 0.0)
			snprintf(out->why, sizeof(out->why),
				 "the least-power fleet for %.3g of the load "
				 "draws %.3g kW, over the %.3g kW budget",
				 miss_scale, miss_w / 1e3, budget_w / 1e3);
		else
			snprintf(out->why, sizeof(out->why), "%.300s", why);
		return 0;
	}

	/* 2. that fleet simulated: a pool that grows may take it past the
	   budget or miss the targets (back off), one that shrinks leaves
	   power over (go up in proportion, below a scale that failed);
	   the largest scale whose simulated fleet meets the targets within
	   the budget is kept */
	s = lo;
	for (int t = 0; t < MIX_POWER_BACKOFFS; t++) {
		double next;

		progress_hook_call(hook, (size_t)++step, (size_t)total,
				   "fleet simulated");
		bool planned = t == 0 && mix_plan_scale_of(m) == s;

		ok = fleet_at(m, s, planned, each, &w, &ip_w, why, sizeof(why),
			      err);
		out->steps += !planned;
		if (ok < 0)
			return -1;
		if (ok > 0 && w <= budget_w) {
			best = s;
			/* within the budget's tolerance, or no fewer
			   replicas than the program's: a larger scale's
			   program was over the budget (step 1) */
			if (w >= (1.0 - tol) * budget_w ||
			    w >= ip_w * (1.0 - tol))
				break;
			next = fmin(s * budget_w / w, 0.5 * (s + over));
			if (next < s * (1.0 + tol))
				break;
		} else {
			snprintf(out->why, sizeof(out->why), "%.300s",
				 ok > 0 ? "its simulated fleet is over the "
					  "budget" :
					  why);
			over = s;
			if (best > 0.0)
				next = 0.5 * (best + s);
			else
				next = s * (ok > 0 && w > 0.0 ?
						    fmin(backoff_share,
							 budget_w / w) :
						    backoff_missed);
			if (best > 0.0 && next < best * (1.0 + tol))
				break;
		}
		s = next;
	}
	if (best > 0.0 && mix_plan_scale_of(m) != best) {
		/* the plan holds a later try: plan the answer again */
		ok = fleet_at(m, best, false, each, &w, &ip_w, why,
			      sizeof(why), err);
		out->steps++;
		if (ok < 0)
			return -1;
		if (ok == 0 || w > budget_w)
			best = 0.0; /* not expected: the same plan */
	}
	out->scale = mix_plan_scale_of(m);
	out->rate_per_s = mix_plan_rate(m);
	out->power_w = mix_plan_result(m)->power_w;
	if (!(best > 0.0))
		return 0;
	out->feasible = true;
	out->why[0] = '\0';
	out->output_tokens_per_s = out->rate_per_s * mix_plan_output_mean(m);
	out->output_tokens_per_s_per_mw =
		out->output_tokens_per_s / (budget_w / watts_per_mw);
	return 0;
}
