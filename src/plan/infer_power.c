/* infer_power.c - the largest load a power budget serves; see
   infer_power.h and specs/models.md 10.9.21. */
#include "infer_power.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "serve_fleet.h"

static const double watts_per_mw = 1e6;
static const double joules_per_mwh = 3.6e9;

/* Plan 'base' at rate 'qps' on 'replicas' replicas of its tp and batch;
   0 with 'p', or -1 with a message. */
static int plan_at(const struct workload *base, const struct infer_plan *p0,
		   double qps, int replicas, struct infer_plan *p,
		   struct diag *err)
{
	struct workload wl = *base;

	wl.inference.qps = qps;
	wl.inference.replicas = replicas;
	wl.inference.tp = p0->config.tp;
	wl.inference.batch = p0->config.batch;
	return infer_plan_make(&wl, p0->gpu, p, err);
}

int infer_plan_power_fit(const struct workload *wl, const struct gpu_spec *g,
			 double budget_w, const struct progress_hook *hook,
			 struct infer_power_fit *out, struct diag *err)
{
	struct infer_plan p0, p;
	double lo = 0.0, hi, cap;
	int n;

	memset(out, 0, sizeof(*out));
	out->budget_w = budget_w;
	if (!(budget_w > 0.0) || !isfinite(budget_w))
		return diag_set(err, wl->file, 0, 0,
				"the power budget must be positive, not %g W",
				budget_w);
	if (!(wl->inference.qps > 0.0) || wl->inference.concurrency > 0 ||
	    wl->inference.trace[0] || wl->inference.disaggregated)
		return diag_set(err, wl->file, 0, 0,
				"the largest load within a power budget is "
				"found for a Poisson load ('inference.qps', "
				"not a closed loop, a trace or a "
				"disaggregated fleet)");
	progress_hook_call(hook, 0, INFER_POWER_STEPS_MAX + 1, "planning");
	if (infer_plan_make(wl, g, &p0, err) != 0)
		return -1;
	out->replica_w = infer_plan_replica_w(&p0);
	n = (int)fmin(floor(budget_w / out->replica_w), SERVE_REPLICAS_MAX);
	out->replicas = n;
	out->plan = p0;
	if (!p0.fits) {
		snprintf(out->why, sizeof(out->why), "%s", p0.why);
		return 0;
	}
	if (n < 1) {
		snprintf(out->why, sizeof(out->why),
			 "one replica draws %.3g kW, over the %.3g kW budget",
			 out->replica_w / 1e3, budget_w / 1e3);
		return 0;
	}
	cap = p0.fleet.capacity_qps;
	if (!(cap > 0.0)) {
		/* the plan failed before its load was simulated */
		snprintf(out->why, sizeof(out->why), "%s",
			 p0.why[0] ? p0.why : "no capacity was measured");
		return 0;
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
		if (plan_at(wl, &p0, mid, n, &p, err) != 0)
			return -1;
		if (p.meets_slo)
			lo = mid;
		else
			hi = mid;
	}
	if (!(lo > 0.0)) {
		/* even a light load misses: say why at the lowest tried */
		if (plan_at(wl, &p0, hi, n, &p, err) != 0)
			return -1;
		out->plan = p;
		snprintf(out->why, sizeof(out->why), "%s",
			 p.why[0] ? p.why : "no load meets the targets");
		return 0;
	}
	if (plan_at(wl, &p0, lo, n, &p, err) != 0)
		return -1;
	out->plan = p;
	out->feasible = p.meets_slo;
	if (!out->feasible)
		snprintf(out->why, sizeof(out->why), "%s", p.why);
	out->rate_per_s = lo;
	out->output_tokens_per_s = lo * wl->inference.output_tokens;
	out->output_tokens_per_s_per_mw =
		out->output_tokens_per_s / (budget_w / watts_per_mw);
	out->tokens_per_mwh = p.result.energy_j_per_token > 0.0 ?
				      joules_per_mwh /
					      p.result.energy_j_per_token :
				      0.0;
	return 0;
}
