/*
 * cmd_size_power.c - 'capplan size --power-cap POWER' of a workload that
 * only serves: per device, the largest load the facility's power budget
 * serves within the latency targets, and the output tokens per second per
 * MW (issue 42; specs/models.md 10.9.21, specs/output.md "capplan size").
 */
#include "cli.h"
#include "cmd_size_internal.h"
#include "cli_output.h"
#include "infer_power.h"
#include "progress.h"
#include "report.h"
#include "serve_fleet.h"
#include "units.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct power_job {
	const struct workload *wl;
	const struct gpu_spec *const *gpus;
	double budget_w;
	struct infer_power_fit *fits;
	int *rc;
	bool *nomem;
	char (*err)[DIAG_MSG_MAX];
	struct progress *pr;
	struct progress_hook hook;
};

static void fit_one(int i, void *arg)
{
	struct power_job *j = arg;
	struct diag err;

	diag_clear(&err);
	j->rc[i] = infer_plan_power_fit(j->wl, j->gpus[i], j->budget_w,
					&j->hook, &j->fits[i], &err);
	j->nomem[i] = j->rc[i] != 0 && err.kind == DIAG_NOMEM;
	snprintf(j->err[i], DIAG_MSG_MAX, "%s", err.msg);
	progress_add(j->pr, 1);
}

/* The order of the table: served devices first, most tokens per MW. */
static int by_tokens(const void *pa, const void *pb)
{
	const struct infer_power_fit *a = *(const struct infer_power_fit *const *)pa;
	const struct infer_power_fit *b = *(const struct infer_power_fit *const *)pb;

	if (a->feasible != b->feasible)
		return a->feasible ? -1 : 1;
	return (a->output_tokens_per_s_per_mw < b->output_tokens_per_s_per_mw) -
	       (a->output_tokens_per_s_per_mw > b->output_tokens_per_s_per_mw);
}

static void add_fit(struct record *rec, const struct infer_power_fit *f,
		    int rc, const char *err)
{
	const struct infer_plan *p = &f->plan;
	bool planned = rc == 0;

	rec_str(rec, NULL, "gpu", "gpu", f->plan.gpu ? f->plan.gpu->name : "",
		RF_GRID);
	rec_bool(rec, NULL, "feasible", "serves", planned && f->feasible,
		 RF_GRID);
	rec_num(rec, NULL, "power_cap_w", "budget", f->budget_w, UNIT_POWER,
		0);
	if (planned) {
		rec_int(rec, NULL, "tp", "tp", p->config.tp, RF_GRID | RF_WIDE);
		rec_int(rec, NULL, "batch", "batch", p->config.batch,
			RF_GRID | RF_WIDE);
		rec_num(rec, NULL, "replica_power_w", "kW/replica",
			f->replica_w, UNIT_POWER, RF_GRID | RF_WIDE);
		rec_int(rec, NULL, "replicas", "replicas", f->replicas,
			RF_GRID);
	} else {
		rec_null(rec, NULL, "tp", "tp", RF_GRID | RF_WIDE);
		rec_null(rec, NULL, "batch", "batch", RF_GRID | RF_WIDE);
		rec_null(rec, NULL, "replica_power_w", "kW/replica",
			 RF_GRID | RF_WIDE);
		rec_null(rec, NULL, "replicas", "replicas", RF_GRID);
	}
	if (planned && f->feasible) {
		rec_num(rec, NULL, "rate_per_s", "requests/s", f->rate_per_s,
			UNIT_KIND_COUNT, RF_GRID);
		rec_num(rec, NULL, "output_tokens_per_s", "output tok/s",
			f->output_tokens_per_s, UNIT_COUNT, RF_GRID);
		rec_num(rec, NULL, "output_tokens_per_s_per_mw", "tok/s per MW",
			f->output_tokens_per_s_per_mw, UNIT_COUNT, RF_GRID);
		rec_num(rec, NULL, "tokens_per_mwh", "tok/MWh",
			f->tokens_per_mwh, UNIT_COUNT, RF_GRID | RF_WIDE);
		rec_num(rec, NULL, "ttft_p_s", "TTFT p", p->ttft_p_s, UNIT_TIME,
			RF_GRID | RF_WIDE);
		rec_num(rec, NULL, "cost_usd_per_million_tokens", "$/Mtok",
			p->cost_usd_per_million_tokens, UNIT_MONEY, RF_GRID);
	} else {
		rec_null(rec, NULL, "rate_per_s", "requests/s", RF_GRID);
		rec_null(rec, NULL, "output_tokens_per_s", "output tok/s",
			 RF_GRID);
		rec_null(rec, NULL, "output_tokens_per_s_per_mw",
			 "tok/s per MW", RF_GRID);
		rec_null(rec, NULL, "tokens_per_mwh", "tok/MWh",
			 RF_GRID | RF_WIDE);
		rec_null(rec, NULL, "ttft_p_s", "TTFT p", RF_GRID | RF_WIDE);
		rec_null(rec, NULL, "cost_usd_per_million_tokens", "$/Mtok",
			 RF_GRID);
	}
	rec_str(rec, NULL, "why", "why not",
		!planned ? err : f->feasible ? "" : f->why, 0);
}

void size_power_rows_free(struct power_rows *pw)
{
	free(pw->fits);
	free(pw->order);
	free(pw->rcs);
	free(pw->nomem);
	free(pw->errs);
	memset(pw, 0, sizeof(*pw));
}

int size_power_rows(struct cli_ctx *ctx, double budget_w,
		    struct power_rows *pw, struct report *rep)
{
	int n = ctx->ngpus;
	struct progress pr;
	char buf[64];

	memset(pw, 0, sizeof(*pw));
	pw->n = n;
	pw->fits = calloc((size_t)n, sizeof(*pw->fits));
	pw->order = calloc((size_t)n, sizeof(*pw->order));
	pw->rcs = calloc((size_t)n, sizeof(*pw->rcs));
	pw->nomem = calloc((size_t)n, sizeof(*pw->nomem));
	pw->errs = calloc((size_t)n, sizeof(*pw->errs));
	report_init(rep, true);
	if (!pw->fits || !pw->order || !pw->rcs || !pw->nomem || !pw->errs)
		goto nomem;
	progress_init(&pr, "size");
	{
		struct power_job job = { &ctx->wl, ctx->gpus, budget_w,
					 pw->fits, pw->rcs, pw->nomem,
					 pw->errs, &pr,
					 progress_hook_of(&pr) };

		progress_update(&pr, 0, (size_t)n, "devices");
		cli_parallel_for(n, fit_one, &job);
	}
	progress_end(&pr);
	for (int i = 0; i < n; i++) {
		if (pw->nomem[i])
			goto nomem;
		if (pw->rcs[i] != 0)
			pw->fits[i].plan.gpu = ctx->gpus[i];
		pw->order[i] = &pw->fits[i];
		pw->served += pw->rcs[i] == 0 && pw->fits[i].feasible;
	}
	qsort(pw->order, (size_t)n, sizeof(*pw->order), by_tokens);
	units_format(buf, sizeof(buf), budget_w, UNIT_POWER, 4);
	snprintf(rep->title, sizeof(rep->title),
		 "Largest load within %s of facility power: %s", buf,
		 ctx->wl.model.name[0] ? ctx->wl.model.name : "model");
	for (int i = 0; i < n; i++) {
		struct record *rec = report_add_record(rep);
		int k = (int)(pw->order[i] - pw->fits);

		if (!rec)
			goto nomem;
		add_fit(rec, pw->order[i], pw->rcs[k], pw->errs[k]);
		cli_rec_stacks(rec, &ctx->wl, true, false, RF_MACHINE);
	}
	cli_note_stacks(rep, &ctx->wl, true, false);
	for (int i = 0; i < n; i++) {
		int k = (int)(pw->order[i] - pw->fits);

		if (pw->rcs[k] != 0 || !pw->order[i]->feasible)
			report_note(rep, "%s: %s", ctx->gpus[k]->name,
				    pw->rcs[k] != 0 ? pw->errs[k] :
						      pw->order[i]->why);
	}
	report_note(rep, "per device: the replicas the budget provisions "
			 "(GPUs at TDP, hosts, PUE %.2f) and the largest "
			 "%s they serve within the targets; the "
			 "workload's %s picks tp and batch",
		    ctx->wl.cluster.pue,
		    serve_arrival(&ctx->wl.inference) == SIM_ARRIVAL_TRACE ?
			    "speed-up of the trace" :
			    "Poisson rate",
		    serve_arrival(&ctx->wl.inference) == SIM_ARRIVAL_TRACE ?
			    "trace" :
			    "qps");
	return EXIT_OK;
nomem:
	report_release(rep);
	size_power_rows_free(pw);
	fprintf(stderr, "capplan: error: out of memory\n");
	return EXIT_INTERNAL;
}

int size_power(struct cli_ctx *ctx, double budget_w)
{
	struct power_rows pw;
	struct report rep;
	int rc = size_power_rows(ctx, budget_w, &pw, &rep);

	if (rc != EXIT_OK)
		return rc;
	rc = cli_emit(ctx, &rep);
	report_release(&rep);
	if (rc == EXIT_OK && pw.served == 0)
		rc = EXIT_INFEASIBLE;
	size_power_rows_free(&pw);
	return rc;
}
