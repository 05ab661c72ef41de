/* plot_build_replicas.c - the replicas chart (plot_build.c's kind
   PLOT_REPLICAS): each device's plan at 21 request rates; see
   plot_build_replicas.h. */
#include "plot_build_replicas.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infer_plan.h"
#include "plot_build.h"

/* Request rates of the chart: a geometric range. */
#define PLOT_QPS_MIN 0.5
#define PLOT_QPS_MAX 1000.0
#define PLOT_QPS_STEPS 20

/* The latency targets of the replicas chart's key, those that are set
   only: "p99 SLO: TPOT 50 ms", "p99 SLO: TTFT 500 ms, TPOT 50 ms", or
   "no latency SLO". */
static void slo_note(const struct inference_spec *is, char *buf, size_t n)
{
	char ttft[32] = "", tpot[32] = "";

	if (is->ttft_slo_s > 0.0)
		snprintf(ttft, sizeof(ttft), "TTFT %.4g ms",
			 is->ttft_slo_s * 1e3);
	if (is->tpot_slo_s > 0.0)
		snprintf(tpot, sizeof(tpot), "TPOT %.4g ms",
			 is->tpot_slo_s * 1e3);
	if (!ttft[0] && !tpot[0])
		snprintf(buf, n, "no latency SLO");
	else
		snprintf(buf, n, "%s SLO: %s%s%s",
			 slo_percentile_name(is->percentile), ttft,
			 ttft[0] && tpot[0] ? ", " : "", tpot);
}

/* One point of the replicas chart: a device's plan at one rate. */
struct replicas_point {
	bool planned;   /* infer_plan_make answered */
	bool serves;    /* it fits and meets the targets */
	bool oom;       /* no memory for the plan */
	char why[sizeof(((struct infer_plan *)0)->why)];
	double row[5];  /* rate, GPUs, replicas, tp, tokens/s per MW */
};

struct replicas_job {
	const struct cli_ctx *ctx;
	const struct plot_chart *c;
	struct replicas_point *pts; /* device by device, the rates of each */
	/* each device's replica capacity by tp, from its first rate's plan
	   (the capacity does not depend on the rate): the other rates'
	   plans take it instead of measuring it again */
	double (*cap)[INFER_TP_SLOTS];
	bool later;                 /* the rates after the first */
	/* the later points: first each device's chain (chain[i]: the first
	   of its rates planned one after the other, each with what the
	   last learnt of its large fleets; 'rates' when none), then the
	   points before the chains, one job each (lone[]: device x rates +
	   rate) */
	int *chain;
	int *lone;
	int nlone;
};

/* A device's rates with fleets that may be simulated in part
   (SERVE_SIM_REPLICAS_MAX replicas and more, struct fleet_share) are
   planned in a chain, from the first rate that the device's best replica
   capacity serves only with this many replicas: a quarter of the 32, as
   the count sized is commonly 1.5-2.5 times that bound, so the chain
   starts a rate or two before its fleets reach 32 and its first sizing
   there has an edge to start from (specs/models.md 10.9.12). */
#define REPLICAS_CHAIN_FROM (SERVE_SIM_REPLICAS_MAX / 4)

static double replicas_rate(int k)
{
	return PLOT_QPS_MIN *
	       pow(PLOT_QPS_MAX / PLOT_QPS_MIN, (double)k / PLOT_QPS_STEPS);
}

/* Plan device i at rate k into its point, with the capacities of its
   first rate (later rates) and what sizings at lower rates learnt
   ('share', NULL: nothing); 'learnt' (NULL: not wanted) gets what this
   plan knows of each tp's large fleets. */
static void replicas_plan(const struct replicas_job *rj, int i, int k,
			  const struct fleet_share *share,
			  struct fleet_share *learnt)
{
	const struct gpu_spec *g = rj->ctx->gpus[i];
	struct replicas_point *pt = &rj->pts[i * (PLOT_QPS_STEPS + 1) + k];
	struct workload w = rj->ctx->wl;
	struct infer_plan *p = malloc(sizeof(*p));
	struct diag err;

	if (!p) {
		pt->oom = true;
		return;
	}
	w.inference.qps = replicas_rate(k);
	if (rj->later)
		w.inference.capacity_by_tp_qps = rj->cap[i];
	w.inference.share_by_tp = share;
	diag_clear(&err);
	if (infer_plan_make(&w, g, p, &err) != 0) {
		snprintf(pt->why, sizeof(pt->why), "%.250s", err.msg);
	} else {
		pt->planned = true;
		pt->serves = p->fits && p->meets_slo;
		snprintf(pt->why, sizeof(pt->why), "%s", p->why);
		pt->row[0] = w.inference.qps;
		pt->row[1] = p->gpus_total;
		pt->row[2] = p->replicas;
		pt->row[3] = p->config.tp;
		pt->row[4] = p->output_tokens_per_s_per_mw > 0.0 ?
				     p->output_tokens_per_s_per_mw :
				     (double)NAN;
		if (!rj->later)
			memcpy(rj->cap[i], p->capacity_by_tp_qps,
			       sizeof(rj->cap[i]));
		if (learnt)
			memcpy(learnt, p->share_by_tp,
			       sizeof(p->share_by_tp));
	}
	free(p);
}

/* Job j on a thread: of the first rates (device j, rate 0), or of the
   later ones (a device's chain, or a point before it). */
static void replicas_one(int j, void *arg)
{
	const struct replicas_job *rj = arg;
	int rates = PLOT_QPS_STEPS + 1;
	struct fleet_share share[INFER_TP_SLOTS] = { { 0.0, 0.0 } };

	if (!rj->later) {
		plot_progress(rj->ctx, rj->c, j);
		replicas_plan(rj, j, 0, NULL, NULL);
		return;
	}
	if (j >= rj->ctx->ngpus) {
		int l = rj->lone[j - rj->ctx->ngpus];

		replicas_plan(rj, l / rates, l % rates, NULL, NULL);
		return;
	}
	/* the chain: a rate's plan takes what the lower rates' learnt,
	   the same points whatever the threads (issue 43) */
	for (int k = rj->chain[j]; k < rates; k++)
		replicas_plan(rj, j, k, share, share);
}

/* Where device i's chain starts: the first later rate that its best
   capacity (any tp, from the first rate's plan) serves only with
   REPLICAS_CHAIN_FROM replicas or more. */
static int chain_start(const struct replicas_job *rj, int i)
{
	int rates = PLOT_QPS_STEPS + 1;
	double best = 0.0;

	for (int t = 0; t < INFER_TP_SLOTS; t++)
		best = fmax(best, rj->cap[i][t]);
	if (!(best > 0.0))
		return rates; /* none measured: every point on its own */
	for (int k = 1; k < rates; k++)
		if (replicas_rate(k) >= REPLICAS_CHAIN_FROM * best)
			return k;
	return rates;
}

/*
 * Every device at every rate, planned on the threads (issue 43), then
 * read in the order of the devices and rates as a loop over them would:
 * a device whose first plan fails is skipped with its reason; a later
 * failure ends its series.  The first rates first, for the capacities;
 * then each device's rates with large fleets one after the other (what
 * one rate's sizing learns narrows the next: struct fleet_share), and the
 * points below them each on its own.
 */
int plot_build_replicas(struct cli_ctx *ctx, struct plot_chart *c)
{
	const struct inference_spec *is = &ctx->wl.inference;
	int rates = PLOT_QPS_STEPS + 1;
	struct replicas_job rj = { ctx, c, NULL, NULL, false, NULL, NULL, 0 };
	int rc = EXIT_OK;

	snprintf(c->title, sizeof(c->title), "GPUs for a request rate: %s",
		 plot_wl_name(ctx));
	plot_serve_held(ctx, c->held, sizeof(c->held));
	slo_note(is, c->note, sizeof(c->note));
	if (!plot_serving_arch(ctx))
		return EXIT_OK;
	rj.pts = calloc((size_t)ctx->ngpus * rates, sizeof(*rj.pts));
	rj.cap = calloc((size_t)ctx->ngpus, sizeof(*rj.cap));
	rj.chain = calloc((size_t)ctx->ngpus, sizeof(*rj.chain));
	rj.lone = calloc((size_t)ctx->ngpus * rates, sizeof(*rj.lone));
	if (!rj.pts || !rj.cap || !rj.chain || !rj.lone) {
		rc = plot_oom();
		goto done;
	}
	cli_parallel_for(ctx->ngpus, replicas_one, &rj);
	rj.later = true;
	for (int i = 0; i < ctx->ngpus; i++) {
		rj.chain[i] = chain_start(&rj, i);
		for (int k = 1; k < rj.chain[i]; k++)
			rj.lone[rj.nlone++] = i * rates + k;
	}
	cli_parallel_for(ctx->ngpus + rj.nlone, replicas_one, &rj);
	for (int i = 0; i < ctx->ngpus; i++) {
		const struct gpu_spec *g = ctx->gpus[i];
		struct plot_series *s = NULL;
		char why[sizeof(rj.pts[0].why)] = "it meets the SLO at no rate";
		bool planned = false;

		for (int k = 0; k < rates; k++) {
			const struct replicas_point *pt = &rj.pts[i * rates + k];

			if (pt->oom) {
				rc = plot_oom();
				goto done;
			}
			if (!pt->planned) {
				if (!planned)
					plot_note_skip(ctx, g, pt->why);
				break;
			}
			planned = true;
			if (!pt->serves) {
				if (pt->why[0])
					snprintf(why, sizeof(why), "%s",
						 pt->why);
				continue;
			}
			if (!s)
				s = plot_chart_add_device(c, g->name, g->name,
							  i + 1);
			if (!s || plot_series_add_row(c, s, pt->row) != 0) {
				rc = plot_oom();
				goto done;
			}
		}
		if (!s && planned)
			plot_note_skip(ctx, g, why);
	}
done:
	free(rj.pts);
	free(rj.cap);
	free(rj.chain);
	free(rj.lone);
	return rc;
}
