/*
 * cmd_size_mixed.c - 'capplan size --mixed': the cheapest fleet of several
 * devices for a serving load (mix_plan.h, specs/models.md 10.9.22), beside
 * the single-device rows of cmd_size.c.  Field names are specified in
 * specs/output.md.
 */
#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_size_internal.h"
#include "infer_plan.h"
#include "mix_plan.h"

struct mix_job {
	struct mix_plan *m;
	struct progress *pr;
	int fail;          /* first failed unit + 1; 0: none */
	struct diag err;   /* its error */
	pthread_mutex_t lock;
};

static void mix_fail(struct mix_job *j, int i, const struct diag *e)
{
	pthread_mutex_lock(&j->lock);
	if (!j->fail || i + 1 < j->fail) {
		j->fail = i + 1;
		j->err = *e;
	}
	pthread_mutex_unlock(&j->lock);
}

static void mix_measure_one(int i, void *arg)
{
	struct mix_job *j = arg;
	struct diag e;

	diag_clear(&e);
	if (mix_plan_measure(j->m, i, &e) != 0)
		mix_fail(j, i, &e);
	progress_add(j->pr, 1);
}

static void mix_simulate_one(int i, void *arg)
{
	struct mix_job *j = arg;
	struct diag e;

	diag_clear(&e);
	if (mix_plan_simulate(j->m, i, &e) != 0)
		mix_fail(j, i, &e);
	progress_add(j->pr, 1);
}

/* The fleet the command answers with: the mix, or the cheapest single
   device's fleet where the mix is no cheaper (or misses the targets). */
struct mix_answer {
	const struct mix_result *mix;
	const struct size_row *single; /* the cheapest feasible row; NULL:
					  none */
	bool fallback;                 /* the answer is 'single' */
	double cost_per_h;
	bool meets;
};

static int single_tp(const struct size_row *r)
{
	return r->replicas > 0 ? r->gpus_inference / r->replicas : 1;
}

/* The fleet's summary above its devices (its fields are the JSON object
   "fleet"). */
static void mix_add_meta(struct record *rec, const struct mix_answer *a,
			 const struct workload *wl)
{
	const struct size_row *s = a->single;
	double month = a->cost_per_h * ENERGY_HOURS_PER_MONTH;
	bool beats = s && !a->fallback && a->meets;
	double single_month = s ? s->cost_usd_per_month : 0.0;
	int gpus = 0, replicas = 0;

	if (a->fallback) {
		gpus = s->gpus_inference;
		replicas = s->replicas;
	} else {
		gpus = a->mix->gpus;
		replicas = a->mix->replicas;
	}
	rec_num(rec, NULL, "cost_usd_per_month", "cost per month", month,
		UNIT_MONEY, 0);
	rec_num(rec, NULL, "cost_usd_per_hour", "cost per hour", a->cost_per_h,
		UNIT_MONEY, 0);
	rec_bool(rec, NULL, "meets_slo", "meets the SLO", a->meets, 0);
	rec_int(rec, NULL, "replicas", "replicas", replicas, 0);
	rec_int(rec, NULL, "gpus", "GPUs", gpus, 0);
	rec_str(rec, NULL, "percentile", "percentile",
		slo_percentile_name(wl->inference.percentile), RF_MACHINE);
	rec_bool(rec, NULL, "mixed", "mixed", !a->fallback &&
		 a->mix->npools > 1, RF_MACHINE);
	if (s) {
		rec_str(rec, NULL, "single_gpu", "cheapest single device",
			s->gpu->name, 0);
		rec_num(rec, NULL, "single_cost_usd_per_month",
			"its cost per month", single_month, UNIT_MONEY, 0);
	} else {
		rec_null(rec, NULL, "single_gpu", "cheapest single device", 0);
		rec_null(rec, NULL, "single_cost_usd_per_month",
			 "its cost per month", 0);
	}
	if (beats && single_month > 0.0)
		rec_num(rec, NULL, "saving_fraction", "saving",
			1.0 - month / single_month, UNIT_KIND_COUNT,
			RF_PERCENT);
	else
		rec_null(rec, NULL, "saving_fraction", "saving", 0);
	size_rec_num_or_null(rec, "mix_cost_usd_per_month",
			"the best mix's cost per month",
			a->mix->cost_per_h * ENERGY_HOURS_PER_MONTH, UNIT_MONEY,
			a->mix->npools > 0, RF_MACHINE);
	rec_bool(rec, NULL, "mix_meets_slo", "the best mix meets the SLO",
		 a->mix->npools > 0 && a->mix->meets, RF_MACHINE);
	/* the program's own fleet, before its simulation (none when it
	   found no mix) */
	if (a->mix->npools > 0) {
		rec_num(rec, NULL, "ip_cost_usd_per_hour",
			"integer program's cost per hour",
			a->mix->ip_cost_per_h, UNIT_MONEY, RF_MACHINE);
		rec_bool(rec, NULL, "ip_optimal", "proven cheapest",
			 a->mix->optimal, RF_MACHINE);
	} else {
		rec_null(rec, NULL, "ip_cost_usd_per_hour",
			 "integer program's cost per hour", RF_MACHINE);
		rec_null(rec, NULL, "ip_optimal", "proven cheapest",
			 RF_MACHINE);
	}
	rec_str(rec, NULL, "why", "why not",
		a->meets ? "" : a->mix->why, a->meets ? RF_MACHINE : 0);
}

static void rec_sim(struct record *rec, const char *key, const char *label,
		    double v, bool known, int flags)
{
	if (known)
		rec_num(rec, NULL, key, label, v, UNIT_TIME, flags);
	else
		rec_null(rec, NULL, key, label, flags);
}

/* Table labels of the latency at each percentile (enum slo_percentile). */
static const char *const ttft_label[] = { "TTFT p50", "TTFT p90",
					  "TTFT p99" };
static const char *const tpot_label[] = { "TPOT p50", "TPOT p90",
					  "TPOT p99" };

void size_mix_add_pool(struct record *rec, const struct mix_pool *pl,
		       const struct workload *wl, bool power)
{
	enum slo_percentile pc = wl->inference.percentile;
	const struct sim_result *r = &pl->sim;
	bool k = pl->simulated;
	int g = RF_GRID, at = (unsigned)pc <= SLO_P99 ? (int)pc : SLO_P99;

	rec_str(rec, NULL, "gpu", "gpu", pl->gpu->name, g);
	rec_int(rec, NULL, "replicas", "replicas", pl->replicas, g);
	rec_int(rec, NULL, "tp", "tp", pl->tp, g);
	rec_str(rec, NULL, "role", "role", "both", g);
	rec_int(rec, NULL, "gpus", "GPUs", pl->replicas * pl->gpus_per_replica,
		g);
	if (power)
		rec_num(rec, NULL, "power_w", "power",
			pl->replicas * pl->replica_w, UNIT_POWER, g);
	rec_num(rec, NULL, "cost_usd_per_month", "$/month",
		pl->replicas * pl->price_per_h * ENERGY_HOURS_PER_MONTH,
		UNIT_MONEY, g);
	rec_num(rec, NULL, "requests_per_s", "req/s", pl->rate_per_s,
		UNIT_KIND_COUNT, g);
	rec_num(rec, NULL, "prompt_tokens_mean", "prompt", pl->prompt_mean,
		UNIT_KIND_COUNT, g | RF_WIDE);
	rec_num(rec, NULL, "output_tokens_mean", "output", pl->output_mean,
		UNIT_KIND_COUNT, g | RF_WIDE);
	rec_int(rec, NULL, "buckets", "buckets", pl->buckets, RF_MACHINE);
	rec_num(rec, NULL, "capacity_qps", "capacity/replica",
		pl->capacity_qps, UNIT_KIND_COUNT, RF_MACHINE);
	rec_int(rec, NULL, "ip_replicas", "IP replicas", pl->ip_replicas,
		RF_MACHINE);
	rec_int(rec, NULL, "simulated_requests", "simulated requests",
		(long long)pl->requests, RF_MACHINE);
	rec_sim(rec, "ttft_p50_s", "TTFT p50", r->ttft_p50_s, k, RF_MACHINE);
	rec_sim(rec, "ttft_p90_s", "TTFT p90", r->ttft_p90_s, k, RF_MACHINE);
	rec_sim(rec, "ttft_p99_s", "TTFT p99", r->ttft_p99_s, k, RF_MACHINE);
	rec_sim(rec, "tpot_p50_s", "TPOT p50", r->tpot_p50_s, k, RF_MACHINE);
	rec_sim(rec, "tpot_p90_s", "TPOT p90", r->tpot_p90_s, k, RF_MACHINE);
	rec_sim(rec, "tpot_p99_s", "TPOT p99", r->tpot_p99_s, k, RF_MACHINE);
	rec_sim(rec, "ttft_s", ttft_label[at], serve_ttft_at(r, pc), k,
		g | RF_TABLE);
	rec_sim(rec, "tpot_s", tpot_label[at], serve_tpot_at(r, pc), k,
		g | RF_TABLE);
	rec_bool(rec, NULL, "meets_slo", "meets", pl->meets, g);
	rec_str(rec, NULL, "why", "why not", pl->meets ? "" : pl->why,
		g | RF_REASON);
}

/* The roles of a device entry. */
enum mix_role { ROLE_BOTH, ROLE_PREFILL, ROLE_DECODE };

static const char *const role_name[] = { "both", "prefill", "decode" };

/* The single-device fleet the answer falls back on, one entry per role
   (a disaggregated row: its prefill and decode pools): the keys of a
   pool, the simulation the row's (of the whole load, both pools), null
   where the row does not know them. */
static void mix_add_single(struct record *rec, const struct size_row *s,
			   enum mix_role role, struct mix_plan *m,
			   const struct workload *wl)
{
	enum slo_percentile pc = wl->inference.percentile;
	int g = RF_GRID, at = (unsigned)pc <= SLO_P99 ? (int)pc : SLO_P99;
	const struct sim_result *r = &s->sim;
	bool k = s->simulated;
	double price = s->cluster.price_usd_per_gpu_hour;
	double prompt = 0.0, output = 0.0;
	int nb = mix_plan_bucket_count(m);
	int replicas = role == ROLE_PREFILL ? s->prefill_replicas :
		       role == ROLE_DECODE  ? s->decode_replicas :
					      s->replicas;
	int tp = role == ROLE_PREFILL ? s->prefill_tp :
		 role == ROLE_DECODE  ? s->decode_tp :
					single_tp(s);
	int gpus = role == ROLE_BOTH ? s->gpus_inference :
		   replicas * tp * (s->gpus_inference /
				    (s->prefill_replicas * s->prefill_tp +
				     s->decode_replicas * s->decode_tp));

	for (int b = 0; b < nb; b++) {
		prompt += mix_plan_bucket(m, b)->share *
			  mix_plan_bucket(m, b)->prompt_mean;
		output += mix_plan_bucket(m, b)->share *
			  mix_plan_bucket(m, b)->output_mean;
	}
	rec_str(rec, NULL, "gpu", "gpu", s->gpu->name, g);
	rec_int(rec, NULL, "replicas", "replicas", replicas, g);
	rec_int(rec, NULL, "tp", "tp", tp, g);
	rec_str(rec, NULL, "role", "role", role_name[role], g);
	rec_int(rec, NULL, "gpus", "GPUs", gpus, g);
	rec_num(rec, NULL, "cost_usd_per_month", "$/month",
		role == ROLE_BOTH ? s->cost_usd_per_month :
				    gpus * price * ENERGY_HOURS_PER_MONTH,
		UNIT_MONEY, g);
	rec_num(rec, NULL, "requests_per_s", "req/s", mix_plan_rate(m),
		UNIT_KIND_COUNT, g);
	rec_num(rec, NULL, "prompt_tokens_mean", "prompt", prompt,
		UNIT_KIND_COUNT, g | RF_WIDE);
	rec_num(rec, NULL, "output_tokens_mean", "output", output,
		UNIT_KIND_COUNT, g | RF_WIDE);
	rec_int(rec, NULL, "buckets", "buckets", nb, RF_MACHINE);
	rec_null(rec, NULL, "capacity_qps", "capacity/replica", RF_MACHINE);
	rec_null(rec, NULL, "ip_replicas", "IP replicas", RF_MACHINE);
	size_rec_int_or_null(rec, "simulated_requests", "simulated requests",
			s->sim.simulated_requests, k, RF_MACHINE);
	rec_sim(rec, "ttft_p50_s", "TTFT p50", r->ttft_p50_s, k, RF_MACHINE);
	rec_sim(rec, "ttft_p90_s", "TTFT p90", r->ttft_p90_s, k, RF_MACHINE);
	rec_sim(rec, "ttft_p99_s", "TTFT p99", r->ttft_p99_s, k, RF_MACHINE);
	rec_sim(rec, "tpot_p50_s", "TPOT p50", r->tpot_p50_s, k, RF_MACHINE);
	rec_sim(rec, "tpot_p90_s", "TPOT p90", r->tpot_p90_s, k, RF_MACHINE);
	rec_sim(rec, "tpot_p99_s", "TPOT p99", r->tpot_p99_s, k, RF_MACHINE);
	rec_sim(rec, "ttft_s", ttft_label[at], serve_ttft_at(r, pc), k,
		g | RF_TABLE);
	rec_sim(rec, "tpot_s", tpot_label[at], serve_tpot_at(r, pc), k,
		g | RF_TABLE);
	rec_bool(rec, NULL, "meets_slo", "meets", true, g);
	rec_str(rec, NULL, "why", "why not", "", g | RF_REASON);
}

/* "H20 tp1 3/4, L40S tp1 1/4": where a bucket's slices go. */
static void bucket_routes(struct mix_plan *m, const struct mix_result *r,
			  int b, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int i = 0; i < r->npools && len < size; i++) {
		int y = mix_plan_slices(m, b, i);

		if (y <= 0)
			continue;
		len += (size_t)snprintf(buf + len, size - len, "%s%s tp%d",
					len ? ", " : "", r->pools[i].gpu->name,
					r->pools[i].tp);
		if (y < MIX_SLICES && len < size)
			len += (size_t)snprintf(buf + len, size - len,
						" %d/%d", y, MIX_SLICES);
	}
}

void size_mix_add_bucket(struct record *rec, struct mix_plan *m,
			 const struct mix_result *r, int b, const char *route)
{
	const struct mix_bucket *bk = mix_plan_bucket(m, b);
	int plo, phi, olo, ohi, g = RF_GRID;
	char routes[REPORT_STR_MAX];

	mix_bucket_range(bk->id, &plo, &phi, &olo, &ohi);
	rec_int(rec, NULL, "prompt_tokens_min", "prompt from", plo, g);
	size_rec_int_or_null(rec, "prompt_tokens_max", "to", phi - 1, phi > 0, g);
	rec_int(rec, NULL, "output_tokens_min", "output from", olo, g);
	size_rec_int_or_null(rec, "output_tokens_max", "to", ohi - 1, ohi > 0, g);
	rec_num(rec, NULL, "share", "share", bk->share, UNIT_KIND_COUNT,
		g | RF_PERCENT);
	rec_num(rec, NULL, "requests_per_s", "req/s", bk->rate_per_s,
		UNIT_KIND_COUNT, g);
	rec_num(rec, NULL, "prompt_tokens_mean", "mean prompt",
		bk->prompt_mean, UNIT_KIND_COUNT, g | RF_WIDE);
	rec_num(rec, NULL, "output_tokens_mean", "mean output",
		bk->output_mean, UNIT_KIND_COUNT, g | RF_WIDE);
	if (route)
		snprintf(routes, sizeof(routes), "%s", route);
	else
		bucket_routes(m, r, b, routes, sizeof(routes));
	rec_str(rec, NULL, "served_by", "served by", routes, g);
}

/* One bucket of requests (a record of "buckets"), served by the fleet
   of 'a'. */
static void mix_add_bucket(struct record *rec, struct mix_plan *m,
			   const struct mix_answer *a, int b)
{
	char routes[REPORT_STR_MAX];

	if (a->fallback && a->single->disagg)
		snprintf(routes, sizeof(routes), "%s tp%d prefill, tp%d decode",
			 a->single->gpu->name, a->single->prefill_tp,
			 a->single->decode_tp);
	else if (a->fallback)
		snprintf(routes, sizeof(routes), "%s tp%d",
			 a->single->gpu->name, single_tp(a->single));
	size_mix_add_bucket(rec, m, a->mix, b,
			    a->fallback ? routes : NULL);
}

struct size_mix_out {
	const struct report *fleet, *buckets, *single;
	enum report_format format;
	bool wide;
};

static int size_mix_write(FILE *out, const void *arg, const char **why)
{
	const struct size_mix_out *o = arg;
	int width = report_table_width(out);

	if (o->format == FORMAT_CSV)
		/* the fleet's devices; the single rows are size's own CSV */
		return report_write_width(out, o->fleet, o->format, o->wide,
					  width, why);
	if (o->format == FORMAT_JSON) {
		cJSON *doc = cJSON_CreateObject();
		cJSON *f = report_json(o->fleet, why);
		cJSON *s = f ? report_json(o->single, why) : NULL;
		cJSON *b = s ? report_json(o->buckets, why) : NULL;

		if (!doc || !f || !s || !b) {
			cJSON_Delete(doc);
			cJSON_Delete(f);
			cJSON_Delete(s);
			cJSON_Delete(b);
			if (!*why)
				*why = "out of memory";
			return -1;
		}
		cJSON_AddItemToObject(doc, "fleet", f);
		cJSON_AddItemToObject(doc, "single", s);
		cJSON_AddItemToObject(doc, "buckets", b);
		return cli_json_print(out, doc, why);
	}
	if (report_write_width(out, o->fleet, o->format, o->wide, width,
			       why) != 0)
		return -1;
	fputc('\n', out);
	if (report_write_width(out, o->buckets, o->format, o->wide, width,
			       why) != 0)
		return -1;
	fputc('\n', out);
	return report_write_width(out, o->single, o->format, o->wide, width,
				  why);
}

int size_mix_emit(struct cli_ctx *ctx, struct report *fleet,
		  const struct report *buckets, const struct report *single,
		  bool meets)
{
	struct size_mix_out o = { fleet, buckets, single, ctx->format,
				  ctx->wide };
	int rc;

	/* the JSON "fleet" holds the notes (a table has them at its end) */
	for (int k = 0; k < single->nnotes && ctx->format == FORMAT_JSON; k++)
		report_note(fleet, "%s", single->notes[k]);
	rc = cli_write(ctx, size_mix_write, &o);
	return rc == EXIT_OK && !meets ? EXIT_INFEASIBLE : rc;
}

/* The mix, or the cheapest single device where the mix is no cheaper or
   misses the targets. */
static struct mix_answer mix_choose(const struct mix_result *mix,
				    const struct size_row *rows, int n)
{
	struct mix_answer a = { mix, NULL, false, mix->cost_per_h,
				mix->meets };

	for (int i = 0; i < n; i++)
		if (rows[i].feasible && rows[i].has_infer &&
		    (!a.single || rows[i].cost_usd_per_month <
					  a.single->cost_usd_per_month))
			a.single = &rows[i];
	if (a.single && (!mix->meets ||
			 a.single->cost_usd_per_month <=
				 mix->cost_per_h * ENERGY_HOURS_PER_MONTH)) {
		a.fallback = true;
		a.meets = true;
		a.cost_per_h = a.single->cost_usd_per_month /
			       ENERGY_HOURS_PER_MONTH;
	}
	return a;
}

static void mix_notes(struct report *rep, const struct mix_answer *a,
		      const struct workload *wl, int nbuckets)
{
	const struct size_row *s = a->single;
	char money[32];

	if (a->fallback && a->mix->meets &&
	    a->mix->cost_per_h * ENERGY_HOURS_PER_MONTH <=
		    s->cost_usd_per_month * (1.0 + 1e-12)) {
		report_note(rep, "one device is cheapest: %s, %d replica%s (no "
				 "mix of the devices costs less)",
			    s->gpu->name, s->replicas,
			    s->replicas == 1 ? "" : "s");
	} else if (a->fallback && a->mix->meets) {
		units_format(money, sizeof(money),
			     a->mix->cost_per_h * ENERGY_HOURS_PER_MONTH,
			     UNIT_MONEY, 3);
		report_note(rep, "no mix is cheaper than the cheapest "
				 "single-device fleet, %s (%d replica%s): the "
				 "best mix found costs %s a month",
			    s->gpu->name, s->replicas,
			    s->replicas == 1 ? "" : "s", money);
	} else if (a->fallback) {
		report_note(rep, "no mix meets the targets: the answer is "
				 "the cheapest single-device fleet, %s "
				 "(%.320s)",
			    s->gpu->name, a->mix->why);
	} else if (s && a->meets) {
		units_format(money, sizeof(money),
			     (s->cost_usd_per_month -
			      a->cost_per_h * ENERGY_HOURS_PER_MONTH),
			     UNIT_MONEY, 3);
		report_note(rep, "the mix beats the cheapest single-device "
				 "fleet, %s (%d replica%s), by %s a month",
			    s->gpu->name, s->replicas,
			    s->replicas == 1 ? "" : "s", money);
	} else if (!s) {
		report_note(rep, "no single device serves the whole load "
				 "within the SLO");
	}
	report_note(rep, "requests in %d bucket%s of prompt and output "
			 "length, each cut in %d slices routed to devices "
			 "(Melange); each device's replicas simulated under "
			 "the requests routed to them (specs/models.md "
			 "10.9.22)",
		    nbuckets, nbuckets == 1 ? "" : "s", MIX_SLICES);
	if (wl->inference.disaggregated)
		report_note(rep, "the mix is planned colocated (role 'both'): "
				 "prefill and decode pools per device are not "
				 "planned yet; the single rows are "
				 "disaggregated");
	if (!a->fallback && !a->mix->optimal)
		report_note(rep, "the integer program stopped at its time "
				 "limit: a cheaper mix may exist");
}

/* Usage errors of --mixed: options that do not apply, a workload that
   does not serve a load. */
static int mix_check(struct cli_ctx *ctx, const struct size_limits *lim)
{
	const struct workload *wl = &ctx->wl;

	if (ctx->deadline_arg || ctx->budget_arg)
		return cli_usage("size", "--mixed sizes a serving fleet: "
				 "--deadline and --budget do not apply to "
				 "it");
	if (ctx->plot_dir)
		return cli_usage("size", "--plot does not apply with --mixed");
	if (wl->model.kind != MODEL_TRANSFORMER ||
	    !model_has_arch(&wl->model))
		return cli_usage("size", "--mixed plans the serving of a "
				 "transformer with its architecture ([model] "
				 "layers, hidden, heads, vocab, seq_len)");
	if (wl->inference.disaggregated && lim->power_cap_w > 0.0)
		return cli_usage("size", "--mixed --power-cap plans colocated "
				 "fleets: a disaggregated workload's two "
				 "pools would split the budget (not modelled "
				 "yet); --set inference.disaggregated=false");
	if (wl->training.tokens > 0.0)
		return cli_usage("size", "--mixed sizes serving only, and the "
				 "workload trains ('training.tokens'): size "
				 "it without --mixed");
	if (serve_arrival(&wl->inference) != SIM_ARRIVAL_POISSON &&
	    serve_arrival(&wl->inference) != SIM_ARRIVAL_TRACE)
		return cli_usage("size", "--mixed needs a serving load with a "
				 "rate: give 'inference.qps' or "
				 "'inference.trace'%s",
				 serve_has_load(&wl->inference) ?
					 " (a closed loop or a burst has no "
					 "rate to share among devices)" :
					 "");
	if (wl->inference.turns > 1)
		return cli_usage("size", "--mixed routes single requests by "
				 "length; sessions ('inference.turns' %d) "
				 "are not planned yet", wl->inference.turns);
	if (ctx->ngpus < 2)
		return cli_usage("size", "--mixed needs at least two devices "
				 "in --gpu, got %d", ctx->ngpus);
	return EXIT_OK;
}

/* Whether compare and report weigh a mix of ctx's devices for its load
   (cli_mix_summary). */
static bool mix_applies(const struct cli_ctx *ctx)
{
	const struct workload *wl = &ctx->wl;
	int arrival = serve_arrival(&wl->inference);

	return ctx->ngpus >= 2 && ctx->ngpus <= CLI_MIX_GPUS_MAX &&
	       wl->model.kind == MODEL_TRANSFORMER &&
	       model_has_arch(&wl->model) &&
	       (arrival == SIM_ARRIVAL_POISSON ||
		arrival == SIM_ARRIVAL_TRACE) &&
	       wl->inference.turns <= 1 && !wl->inference.disaggregated &&
	       !(wl->inference.shared_prefix_tokens > 0 &&
		 arrival == SIM_ARRIVAL_POISSON);
}

int cli_mix_summary(struct cli_ctx *ctx, double single_month,
		    const char *single_gpu, char *buf, size_t size)
{
	struct workload wl;
	struct mix_job job;
	struct mix_plan *m = NULL;
	const struct mix_result *r;
	struct progress pr;
	char money[32], saved[32], fleet[REPORT_STR_MAX], mw[32];
	double month, tokens;
	size_t len = 0;
	int rc = 0;

	buf[0] = '\0';
	if (!mix_applies(ctx) || !(single_month > 0.0) ||
	    !isfinite(single_month))
		return 0;
	wl = ctx->wl;
	wl.inference.replicas = WL_AUTO;
	memset(&job, 0, sizeof(job));
	diag_clear(&job.err);
	if (mix_plan_new(&wl, ctx->gpus, ctx->ngpus, &m, &job.err) != 0) {
		rc = job.err.kind == DIAG_NOMEM ? -1 : 0;
		goto out;
	}
	progress_init(&pr, "mix");
	job.m = m;
	job.pr = &pr;
	pthread_mutex_init(&job.lock, NULL);
	progress_update(&pr, 0, (size_t)mix_plan_measure_count(m),
			"buckets measured");
	cli_parallel_for(mix_plan_measure_count(m), mix_measure_one, &job);
	if (!job.fail && mix_plan_solve(m, &job.err) != 0) {
		/* no mix: a bucket no device serves */
		job.fail = job.err.kind == DIAG_NOMEM ? -1 : -2;
	}
	if (!job.fail) {
		progress_update(&pr, 0, (size_t)mix_plan_pool_count(m),
				"devices simulated");
		cli_parallel_for(mix_plan_pool_count(m), mix_simulate_one,
				 &job);
	}
	pthread_mutex_destroy(&job.lock);
	progress_end(&pr);
	if (job.fail) {
		rc = job.fail == -2 || job.err.kind != DIAG_NOMEM ? 0 : -1;
		goto out;
	}
	r = mix_plan_result(m);
	month = r->cost_per_h * ENERGY_HOURS_PER_MONTH;
	if (!r->meets || r->npools < 2 || month >= single_month)
		goto out;
	fleet[0] = '\0';
	for (int i = 0; i < r->npools && len < sizeof(fleet); i++) {
		int k = snprintf(fleet + len, sizeof(fleet) - len,
				 "%s%d x %s tp%d", i ? " + " : "",
				 r->pools[i].replicas, r->pools[i].gpu->name,
				 r->pools[i].tp);

		len = k < 0 ? len : len + (size_t)k;
	}
	units_format(money, sizeof(money), month, UNIT_MONEY, 4);
	units_format(saved, sizeof(saved), single_month - month, UNIT_MONEY,
		     3);
	tokens = mix_plan_rate(m) * mix_plan_output_mean(m);
	units_format_plain(mw, sizeof(mw),
			   r->power_w > 0.0 ? tokens / (r->power_w / 1e6) : 0.0,
			   UNIT_COUNT, 3);
	snprintf(buf, size, "a mixed fleet is cheaper: %.200s, %s a month, "
			    "%s (%.3g%%) below the cheapest single device, "
			    "%s; %s output tokens/s per MW ('capplan size "
			    "--mixed')",
		 fleet, money, saved,
		 100.0 * (1.0 - month / single_month), single_gpu, mw);
	rc = 1;
out:
	mix_plan_free(m);
	if (rc < 0)
		fprintf(stderr, "capplan: error: out of memory\n");
	return rc;
}

int size_mixed(struct cli_ctx *ctx, const struct size_limits *lim)
{
	struct report fleet, buckets, single;
	struct mix_job job;
	struct mix_answer ans;
	struct mix_plan *m = NULL;
	const struct mix_result *res;
	struct size_row *rows;
	struct progress pr;
	struct mix_result none;
	struct diag err;
	bool nomix = false;
	int rc, fixed;

	rc = mix_check(ctx, lim);
	if (rc != EXIT_OK)
		return rc;
	if (lim->power_cap_w > 0.0)
		return size_mixed_power(ctx, lim->power_cap_w);
	memset(&none, 0, sizeof(none));
	/* every fleet is sized: a fixed one is no answer to "how many" */
	fixed = ctx->wl.inference.replicas;
	ctx->wl.inference.replicas = WL_AUTO;
	rows = calloc((size_t)ctx->ngpus, sizeof(*rows));
	if (!rows) {
		fprintf(stderr, "capplan: error: out of memory\n");
		return EXIT_INTERNAL;
	}
	diag_clear(&err);
	progress_init(&pr, "size");
	/* today's rows: each device's own fleet for the whole load */
	for (int i = 0; i < ctx->ngpus; i++) {
		rows[i].gpu = ctx->gpus[i];
		rows[i].order = i;
		rows[i].feasible = true;
		(void)cluster_resolve(&ctx->wl.cluster, rows[i].gpu,
				      &rows[i].cluster, NULL);
	}
	{
		struct infer_job ij = { &ctx->wl, rows, &pr,
					progress_hook_of(&pr) };

		progress_update(&pr, 0, (size_t)ctx->ngpus, "devices served");
		cli_parallel_for(ctx->ngpus, size_infer_one, &ij);
	}
	for (int i = 0; i < ctx->ngpus; i++) {
		rows[i].total_cost_usd = size_row_total(&rows[i], lim->serve_s);
		rows[i].rank = size_rank_key(&rows[i], lim, false);
	}
	qsort(rows, (size_t)ctx->ngpus, sizeof(*rows), size_row_cmp);

	/* the mix */
	rc = EXIT_OK;
	if (mix_plan_new(&ctx->wl, ctx->gpus, ctx->ngpus, &m, &err) != 0) {
		/* a load the mix does not plan */
		progress_end(&pr);
		diag_print(stderr, &err);
		free(rows);
		return err.kind == DIAG_NOMEM ? EXIT_INTERNAL : EXIT_USAGE;
	}
	memset(&job, 0, sizeof(job));
	job.m = m;
	job.pr = &pr;
	pthread_mutex_init(&job.lock, NULL);
	progress_update(&pr, 0, (size_t)mix_plan_measure_count(m),
			"buckets measured");
	cli_parallel_for(mix_plan_measure_count(m), mix_measure_one, &job);
	if (!job.fail && mix_plan_solve(m, &job.err) != 0) {
		/* no mix (a bucket no device serves): a single device may
		   still serve every request at a tp the program left */
		if (job.err.kind == DIAG_NOMEM)
			job.fail = -1;
		nomix = true;
		none.meets = false;
		snprintf(none.why, sizeof(none.why), "%.300s", job.err.msg);
	}
	if (!job.fail && !nomix) {
		progress_update(&pr, 0, (size_t)mix_plan_pool_count(m),
				"devices simulated");
		cli_parallel_for(mix_plan_pool_count(m), mix_simulate_one,
				 &job);
	}
	pthread_mutex_destroy(&job.lock);
	if (job.fail) {
		err = job.err;
		goto out_err;
	}
	progress_end(&pr);
	res = nomix ? &none : mix_plan_result(m);
	ans = mix_choose(res, rows, ctx->ngpus);
	if (nomix && !ans.fallback) {
		cli_error("%s", none.why);
		mix_plan_free(m);
		free(rows);
		return EXIT_INFEASIBLE;
	}

	report_init(&fleet, true);
	report_init(&buckets, true);
	report_init(&single, true);
	snprintf(fleet.title, sizeof(fleet.title), "Mixed fleet: %s",
		 ctx->wl.model.name[0] ? ctx->wl.model.name : "model");
	snprintf(buckets.title, sizeof(buckets.title),
		 "Requests by length and where they go");
	snprintf(single.title, sizeof(single.title),
		 "Single-device fleets");
	fleet.list_key = "devices";
	fleet.notes_key = "notes";
	mix_add_meta(&fleet.meta, &ans, &ctx->wl);
	if (ans.fallback) {
		enum mix_role first = ans.single->disagg ? ROLE_PREFILL :
							   ROLE_BOTH;
		enum mix_role last = ans.single->disagg ? ROLE_DECODE :
							  ROLE_BOTH;

		for (int role = first; role <= (int)last; role++) {
			struct record *rec = report_add_record(&fleet);

			if (!rec)
				goto out_nomem;
			mix_add_single(rec, ans.single, (enum mix_role)role, m,
				       &ctx->wl);
		}
	} else {
		for (int i = 0; i < res->npools; i++) {
			struct record *rec = report_add_record(&fleet);

			if (!rec)
				goto out_nomem;
			size_mix_add_pool(rec, &res->pools[i], &ctx->wl,
					  false);
		}
	}
	for (int b = 0; b < mix_plan_bucket_count(m); b++) {
		struct record *rec = report_add_record(&buckets);

		if (!rec)
			goto out_nomem;
		mix_add_bucket(rec, m, &ans, b);
	}
	for (int i = 0; i < ctx->ngpus; i++) {
		struct record *rec = report_add_record(&single);
		bool hits = false;

		for (int k = 0; k < ctx->ngpus; k++)
			hits = hits || rows[k].has_hits;
		if (!rec)
			goto out_nomem;
		size_add_row(rec, &rows[i], false, true, false, hits, ctx);
		cli_rec_stacks(rec, &ctx->wl, true, false, RF_MACHINE);
	}
	cli_note_stacks(&single, &ctx->wl, true, false);
	cli_note_profile(&single, ctx, NULL);
	mix_notes(&single, &ans, &ctx->wl, mix_plan_bucket_count(m));
	if (fixed != WL_AUTO)
		report_note(&single, "inference.replicas (%d) left open: "
				     "--mixed sizes every fleet", fixed);
	rc = size_mix_emit(ctx, &fleet, &buckets, &single, ans.meets);
	goto out_reports;
out_nomem:
	fprintf(stderr, "capplan: error: out of memory\n");
	rc = EXIT_INTERNAL;
out_reports:
	report_release(&single);
	report_release(&buckets);
	report_release(&fleet);
	mix_plan_free(m);
	free(rows);
	return rc;
out_err:
	progress_end(&pr);
	diag_print(stderr, &err);
	mix_plan_free(m);
	free(rows);
	return err.kind == DIAG_NOMEM ? EXIT_INTERNAL : EXIT_INFEASIBLE;
}
