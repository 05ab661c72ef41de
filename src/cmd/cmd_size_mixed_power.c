/*
 * cmd_size_mixed_power.c - 'capplan size --mixed --power-cap POWER': the
 * largest load a mixed fleet serves within a facility power budget
 * (mix_power.h, specs/models.md 10.9.23), beside each device's own
 * (size --power-cap, cmd_size_power.c).  Field names are specified in
 * specs/output.md.
 */
#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_size_internal.h"
#include "infer_plan.h"
#include "mix_power.h"
#include "serve_fleet.h"

/* The answer: the mix, or the device whose own fleet serves the most
   within the budget where the mix serves no more. */
struct power_answer {
	const struct mix_power_fit *mix;
	const struct mix_result *res;
	const struct infer_power_fit *single; /* the best device; NULL:
						 none serves */
	bool fallback;
	double rate_per_s, output_tokens_per_s, tokens_per_mw, power_w;
	double cost_per_h;
	int replicas, gpus;
	bool meets;
};

static int fit_tp(const struct infer_power_fit *f)
{
	return f->plan.config.tp > 0 ? f->plan.config.tp : 1;
}

static int fit_gpus(const struct infer_power_fit *f)
{
	return f->plan.replicas * infer_gpus_per_replica(&f->plan.config);
}

static struct power_answer choose(const struct mix_power_fit *mix,
				  const struct mix_result *res,
				  const struct power_rows *pw)
{
	struct power_answer a;

	memset(&a, 0, sizeof(a));
	a.mix = mix;
	a.res = res;
	if (pw->served > 0)
		a.single = pw->order[0]; /* served first, most tokens per MW */
	a.fallback = a.single && (!mix->feasible ||
				  a.single->rate_per_s >= mix->rate_per_s);
	if (a.fallback) {
		const struct infer_power_fit *s = a.single;

		a.rate_per_s = s->rate_per_s;
		a.output_tokens_per_s = s->output_tokens_per_s;
		a.tokens_per_mw = s->output_tokens_per_s_per_mw;
		a.power_w = s->plan.replicas * s->replica_w;
		a.cost_per_h = s->plan.cost_usd_per_month /
			       ENERGY_HOURS_PER_MONTH;
		a.replicas = s->plan.replicas;
		a.gpus = fit_gpus(s);
		a.meets = true;
	} else {
		a.rate_per_s = mix->rate_per_s;
		a.output_tokens_per_s = mix->output_tokens_per_s;
		a.tokens_per_mw = mix->output_tokens_per_s_per_mw;
		a.power_w = mix->power_w;
		a.cost_per_h = res->cost_per_h;
		a.replicas = res->replicas;
		a.gpus = res->gpus;
		a.meets = mix->feasible;
	}
	return a;
}

/* The fleet's summary above its devices (the JSON object "fleet"). */
static void add_meta(struct record *rec, const struct power_answer *a,
		     const struct workload *wl, double budget_w)
{
	const struct infer_power_fit *s = a->single;
	bool known = a->meets;

	rec_num(rec, NULL, "power_cap_w", "budget", budget_w, UNIT_POWER, 0);
	size_rec_num_or_null(rec, "power_w", "fleet power", a->power_w,
			     UNIT_POWER, known, 0);
	size_rec_num_or_null(rec, "load_scale", "load served (x the "
			     "workload's)",
			     a->fallback ? a->rate_per_s / a->mix->rate_per_s *
						   a->mix->scale :
					   a->mix->scale,
			     UNIT_KIND_COUNT,
			     known && (!a->fallback || a->mix->rate_per_s > 0.0),
			     0);
	size_rec_num_or_null(rec, "rate_per_s", "requests/s", a->rate_per_s,
			     UNIT_KIND_COUNT, known, 0);
	size_rec_num_or_null(rec, "output_tokens_per_s", "output tok/s",
			     a->output_tokens_per_s, UNIT_COUNT, known, 0);
	size_rec_num_or_null(rec, "output_tokens_per_s_per_mw",
			     "tok/s per MW", a->tokens_per_mw, UNIT_COUNT,
			     known, 0);
	size_rec_num_or_null(rec, "cost_usd_per_month", "cost per month",
			     a->cost_per_h * ENERGY_HOURS_PER_MONTH,
			     UNIT_MONEY, known, 0);
	size_rec_num_or_null(rec, "cost_usd_per_hour", "cost per hour",
			     a->cost_per_h, UNIT_MONEY, known, 0);
	rec_bool(rec, NULL, "meets_slo", "meets the SLO", a->meets, 0);
	rec_int(rec, NULL, "replicas", "replicas", known ? a->replicas : 0, 0);
	rec_int(rec, NULL, "gpus", "GPUs", known ? a->gpus : 0, 0);
	rec_str(rec, NULL, "percentile", "percentile",
		slo_percentile_name(wl->inference.percentile), RF_MACHINE);
	rec_bool(rec, NULL, "mixed", "mixed",
		 !a->fallback && a->res->npools > 1, RF_MACHINE);
	if (s) {
		rec_str(rec, NULL, "single_gpu", "best single device",
			s->plan.gpu->name, 0);
		rec_num(rec, NULL, "single_rate_per_s", "its requests/s",
			s->rate_per_s, UNIT_KIND_COUNT, 0);
		rec_num(rec, NULL, "single_output_tokens_per_s_per_mw",
			"its tok/s per MW", s->output_tokens_per_s_per_mw,
			UNIT_COUNT, 0);
	} else {
		rec_null(rec, NULL, "single_gpu", "best single device", 0);
		rec_null(rec, NULL, "single_rate_per_s", "its requests/s", 0);
		rec_null(rec, NULL, "single_output_tokens_per_s_per_mw",
			 "its tok/s per MW", 0);
	}
	if (s && !a->fallback && a->meets && s->rate_per_s > 0.0)
		rec_num(rec, NULL, "gain_fraction", "more load than it",
			a->rate_per_s / s->rate_per_s - 1.0, UNIT_KIND_COUNT,
			RF_PERCENT);
	else
		rec_null(rec, NULL, "gain_fraction", "more load than it", 0);
	size_rec_num_or_null(rec, "mix_rate_per_s", "the best mix's requests/s",
			     a->mix->rate_per_s, UNIT_KIND_COUNT,
			     a->mix->feasible, RF_MACHINE);
	rec_int(rec, NULL, "mix_steps", "scales planned", a->mix->steps,
		RF_MACHINE);
	rec_str(rec, NULL, "why", "why not", a->meets ? "" : a->mix->why,
		a->meets ? RF_MACHINE : 0);
}

/* The best device's fleet as the answer: one entry, the keys of a
   pool. */
static void add_single(struct record *rec, const struct infer_power_fit *f,
		       const struct workload *wl)
{
	enum slo_percentile pc = wl->inference.percentile;
	const struct infer_plan *p = &f->plan;
	const struct sim_result *r = &p->fleet.sim;
	bool k = p->simulated;
	int g = RF_GRID;

	rec_str(rec, NULL, "gpu", "gpu", p->gpu->name, g);
	rec_int(rec, NULL, "replicas", "replicas", p->replicas, g);
	rec_int(rec, NULL, "tp", "tp", fit_tp(f), g);
	rec_str(rec, NULL, "role", "role", "both", g);
	rec_int(rec, NULL, "gpus", "GPUs", fit_gpus(f), g);
	rec_num(rec, NULL, "power_w", "power", p->replicas * f->replica_w,
		UNIT_POWER, g);
	rec_num(rec, NULL, "cost_usd_per_month", "$/month",
		p->cost_usd_per_month, UNIT_MONEY, g);
	rec_num(rec, NULL, "requests_per_s", "req/s", f->rate_per_s,
		UNIT_KIND_COUNT, g);
	if (k) {
		rec_num(rec, NULL, "ttft_s", "TTFT", serve_ttft_at(r, pc),
			UNIT_TIME, g);
		rec_num(rec, NULL, "tpot_s", "TPOT", serve_tpot_at(r, pc),
			UNIT_TIME, g);
	} else {
		rec_null(rec, NULL, "ttft_s", "TTFT", g);
		rec_null(rec, NULL, "tpot_s", "TPOT", g);
	}
	rec_bool(rec, NULL, "meets_slo", "meets", true, g);
	rec_str(rec, NULL, "why", "why not", "", g | RF_REASON);
}

static void add_notes(struct report *rep, const struct power_answer *a,
		      const struct workload *wl, int nbuckets)
{
	const struct infer_power_fit *s = a->single;
	bool trace = serve_arrival(&wl->inference) == SIM_ARRIVAL_TRACE;

	if (a->fallback && a->mix->feasible)
		report_note(rep, "no mix serves more than the best single "
				 "device, %s (%d replica%s, %.4g requests/s): "
				 "the best mix found serves %.4g requests/s",
			    s->plan.gpu->name, s->plan.replicas,
			    s->plan.replicas == 1 ? "" : "s", s->rate_per_s,
			    a->mix->rate_per_s);
	else if (a->fallback)
		report_note(rep, "no mix serves a load within the budget "
				 "(%.300s): the answer is the best single "
				 "device, %s",
			    a->mix->why, s->plan.gpu->name);
	else if (s && a->meets)
		report_note(rep, "the mix serves %.3g%% more load than the "
				 "best single device, %s (%d replica%s, %.4g "
				 "requests/s)",
			    100.0 * (a->rate_per_s / s->rate_per_s - 1.0),
			    s->plan.gpu->name, s->plan.replicas,
			    s->plan.replicas == 1 ? "" : "s", s->rate_per_s);
	else if (!s && a->meets)
		report_note(rep, "no single device serves a load within the "
				 "budget");
	report_note(rep, "the largest scale of the workload's %s whose "
			 "least-power mixed fleet (the integer program of "
			 "10.9.22 minimising facility power: GPUs at TDP, "
			 "hosts, PUE %.2f) is within the budget, by "
			 "bisection to %g%%; that fleet simulated device by "
			 "device (specs/models.md 10.9.23); %d bucket%s",
		    trace ? "trace (its requests arriving faster)" :
			    "Poisson rate (drawn again at each scale)",
		    wl->cluster.pue, 100.0 * MIX_POWER_SCALE_TOL, nbuckets,
		    nbuckets == 1 ? "" : "s");
}


int size_mixed_power(struct cli_ctx *ctx, double budget_w)
{
	struct report fleet, buckets, single;
	struct power_rows pw;
	struct power_answer ans;
	struct mix_power_fit fit;
	struct mix_plan *m = NULL;
	const struct mix_result *res;
	struct progress pr;
	struct progress_hook hook;
	struct diag err;
	char buf[64], route[REPORT_STR_MAX];
	int rc, fixed;

	fixed = ctx->wl.inference.replicas;
	ctx->wl.inference.replicas = WL_AUTO;
	/* each device's own fleet within the budget: size --power-cap */
	rc = size_power_rows(ctx, budget_w, &pw, &single);
	if (rc != EXIT_OK)
		return rc;
	diag_clear(&err);
	if (mix_plan_new(&ctx->wl, ctx->gpus, ctx->ngpus, &m, &err) != 0) {
		diag_print(stderr, &err);
		rc = err.kind == DIAG_NOMEM ? EXIT_INTERNAL : EXIT_USAGE;
		goto out_single;
	}
	progress_init(&pr, "size");
	hook = progress_hook_of(&pr);
	rc = mix_plan_power_fit(m, budget_w, cli_parallel_for, &hook, &fit,
				&err);
	progress_end(&pr);
	if (rc != 0 && err.kind == DIAG_NOMEM) {
		diag_print(stderr, &err);
		rc = EXIT_INTERNAL;
		goto out_plan;
	}
	if (rc != 0) {
		/* no mix at all (a bucket no device serves) */
		memset(&fit, 0, sizeof(fit));
		fit.budget_w = budget_w;
		snprintf(fit.why, sizeof(fit.why), "%.300s", err.msg);
	}
	res = mix_plan_result(m);
	ans = choose(&fit, res, &pw);
	if (!ans.meets && !ans.single && rc != 0) {
		cli_error("%s", fit.why);
		rc = EXIT_INFEASIBLE;
		goto out_plan;
	}

	report_init(&fleet, true);
	report_init(&buckets, true);
	units_format(buf, sizeof(buf), budget_w, UNIT_POWER, 4);
	snprintf(fleet.title, sizeof(fleet.title),
		 "Mixed fleet within %s of facility power: %s", buf,
		 ctx->wl.model.name[0] ? ctx->wl.model.name : "model");
	snprintf(buckets.title, sizeof(buckets.title),
		 "Requests by length and where they go");
	fleet.list_key = "devices";
	fleet.notes_key = "notes";
	add_meta(&fleet.meta, &ans, &ctx->wl, budget_w);
	if (ans.fallback) {
		struct record *rec = report_add_record(&fleet);

		if (!rec)
			goto out_nomem;
		add_single(rec, ans.single, &ctx->wl);
	} else if (ans.meets) {
		for (int i = 0; i < res->npools; i++) {
			struct record *rec = report_add_record(&fleet);

			if (!rec)
				goto out_nomem;
			size_mix_add_pool(rec, &res->pools[i], &ctx->wl, true);
		}
	}
	if (ans.fallback)
		snprintf(route, sizeof(route), "%s tp%d",
			 ans.single->plan.gpu->name, fit_tp(ans.single));
	for (int b = 0; b < mix_plan_bucket_count(m) && ans.meets &&
			(ans.fallback || res->npools > 0);
	     b++) {
		struct record *rec = report_add_record(&buckets);

		if (!rec)
			goto out_nomem;
		size_mix_add_bucket(rec, m, res, b,
				    ans.fallback ? route : NULL);
	}
	add_notes(&single, &ans, &ctx->wl, mix_plan_bucket_count(m));
	if (fixed != WL_AUTO)
		report_note(&single, "inference.replicas (%d) left open: the "
				     "budget sizes every fleet", fixed);
	rc = size_mix_emit(ctx, &fleet, &buckets, &single, ans.meets);
	goto out_reports;
out_nomem:
	fprintf(stderr, "capplan: error: out of memory\n");
	rc = EXIT_INTERNAL;
out_reports:
	report_release(&buckets);
	report_release(&fleet);
out_plan:
	mix_plan_free(m);
out_single:
	report_release(&single);
	size_power_rows_free(&pw);
	return rc;
}
