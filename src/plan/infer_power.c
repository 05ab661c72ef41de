/* infer_power.c - the largest load a power budget serves; see
   infer_power.h and specs/models.md 10.9.21. */
#include "infer_power.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve_fleet.h"

static const double watts_per_mw = 1e6;
static const double joules_per_mwh = 3.6e9;

/* A trace's rate: its requests over the time from the first arrival to
   the last (0 when they all arrive at once). */
static double trace_rate(const struct inference_spec *is)
{
	double span;

	if (is->trace_len < 2 || !is->trace_requests)
		return 0.0;
	span = is->trace_requests[is->trace_len - 1].arrival_s -
	       is->trace_requests[0].arrival_s;
	return span > 0.0 ? (double)is->trace_len / span : 0.0;
}

/* Its mean output, tokens. */
static double trace_output_mean(const struct inference_spec *is)
{
	double sum = 0.0;

	for (size_t i = 0; i < is->trace_len; i++)
		sum += is->trace_requests[i].output_tokens;
	return is->trace_len ? sum / (double)is->trace_len : 0.0;
}

/*
 * Plan 'base' at rate 'qps' on 'replicas' replicas of its tp and batch:
 * a Poisson load at that rate, or the trace's requests arriving 'qps /
 * rate0' times as fast (their gaps divided by it; 'buf', room for the
 * trace, holds them).  0 with 'p', or -1 with a message.
 */
static int plan_at(const struct workload *base, const struct infer_plan *p0,
		   double qps, double rate0, struct sim_request *buf,
		   int replicas, struct infer_plan *p, struct diag *err)
{
	struct workload wl = *base;
	const struct inference_spec *is = &base->inference;

	if (buf) {
		double t0 = is->trace_requests[0].arrival_s,
		       k = rate0 / qps;

		for (size_t i = 0; i < is->trace_len; i++) {
			buf[i] = is->trace_requests[i];
			buf[i].arrival_s = t0 + (buf[i].arrival_s - t0) * k;
		}
		wl.inference.trace_requests = buf;
		wl.inference.trace[0] = '\0';
	} else {
		wl.inference.qps = qps;
	}
	wl.inference.replicas = replicas;
	wl.inference.tp = p0->config.tp;
	wl.inference.batch = p0->config.batch;
	return infer_plan_make(&wl, p0->gpu, p, err);
}

int infer_plan_power_fit(const struct workload *wl, const struct gpu_spec *g,
			 double budget_w, const struct progress_hook *hook,
			 struct infer_power_fit *out, struct diag *err)
{
	const struct inference_spec *is = &wl->inference;
	int arrival = serve_arrival(is);
	bool trace = arrival == SIM_ARRIVAL_TRACE;
	struct infer_plan p0, p;
	struct sim_request *buf = NULL;
	double lo = 0.0, hi, cap, rate0, output_mean;
	int n, rc = -1;

	memset(out, 0, sizeof(*out));
	out->budget_w = budget_w;
	if (!(budget_w > 0.0) || !isfinite(budget_w))
		return diag_set(err, wl->file, 0, 0,
				"the power budget must be positive, not %g W",
				budget_w);
	if ((arrival != SIM_ARRIVAL_POISSON && !trace) ||
	    (!trace && !(is->qps > 0.0)) || is->disaggregated)
		return diag_set(err, wl->file, 0, 0,
				"the largest load within a power budget is "
				"found for a Poisson load or a trace "
				"('inference.qps' or 'inference.trace', not a "
				"closed loop, a burst or a disaggregated "
				"fleet)");
	rate0 = trace ? trace_rate(is) : is->qps;
	if (!(rate0 > 0.0))
		return diag_set(err, wl->file, 0, 0,
				"the largest load within a power budget needs "
				"a trace of at least two requests that arrive "
				"over time");
	output_mean = trace ? trace_output_mean(is) : is->output_tokens;
	if (trace) {
		buf = malloc(is->trace_len * sizeof(*buf));
		if (!buf)
			return diag_set_kind(err, DIAG_NOMEM, NULL, 0, 0,
					     "out of memory");
	}
	progress_hook_call(hook, 0, INFER_POWER_STEPS_MAX + 1, "planning");
	if (infer_plan_make(wl, g, &p0, err) != 0)
		goto out;
	out->replica_w = infer_plan_replica_w(&p0);
	n = (int)fmin(floor(budget_w / out->replica_w), SERVE_REPLICAS_MAX);
	out->replicas = n;
	out->plan = p0;
	if (!p0.fits) {
		snprintf(out->why, sizeof(out->why), "%s", p0.why);
		rc = 0;
		goto out;
	}
	if (n < 1) {
		snprintf(out->why, sizeof(out->why),
			 "one replica draws %.3g kW, over the %.3g kW budget",
			 out->replica_w / 1e3, budget_w / 1e3);
		rc = 0;
		goto out;
	}
	cap = p0.fleet.capacity_qps;
	if (!(cap > 0.0)) {
		/* the plan failed before its load was simulated */
		snprintf(out->why, sizeof(out->why), "%s",
			 p0.why[0] ? p0.why : "no capacity was measured");
		rc = 0;
		goto out;
	}
	/* at the capacity of n replicas the queue grows: the rate is
	   below it */
	hi = n * cap;
	for (int k = 0; k < INFER_POWER_STEPS_MAX &&
			(hi - lo) > INFER_POWER_RATE_TOL * hi;
	     k++) {
		double mid = 0.5 * (lo + hi);

		progress_hook_call(hook, (size_t)k + 1,
				   INFER_POWER_STEPS_MAX + 1, "largest load");
		if (plan_at(wl, &p0, mid, rate0, buf, n, &p, err) != 0)
			goto out;
		if (p.meets_slo)
			lo = mid;
		else
			hi = mid;
	}
	if (!(lo > 0.0)) {
		/* even a light load misses: say why at the lowest tried */
		if (plan_at(wl, &p0, hi, rate0, buf, n, &p, err) != 0)
			goto out;
		out->plan = p;
		snprintf(out->why, sizeof(out->why), "%s",
			 p.why[0] ? p.why : "no load meets the targets");
		rc = 0;
		goto out;
	}
	if (plan_at(wl, &p0, lo, rate0, buf, n, &p, err) != 0)
		goto out;
	out->plan = p;
	out->feasible = p.meets_slo;
	if (!out->feasible)
		snprintf(out->why, sizeof(out->why), "%s", p.why);
	out->rate_per_s = lo;
	out->output_tokens_per_s = lo * output_mean;
	out->output_tokens_per_s_per_mw =
		out->output_tokens_per_s / (budget_w / watts_per_mw);
	out->tokens_per_mwh = p.result.energy_j_per_token > 0.0 ?
				      joules_per_mwh /
					      p.result.energy_j_per_token :
				      0.0;
	rc = 0;
out:
	/* the plan keeps no pointer to the scaled trace: its simulation
	   is summarised */
	out->plan.fleet.load.trace = NULL;
	free(buf);
	return rc;
}
