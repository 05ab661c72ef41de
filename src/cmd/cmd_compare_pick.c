/* cmd_compare_pick.c - what 'capplan compare' recommends: the best
   device for each question among those whose price basis rents the plan,
   and why the others have no plan; see cmd_compare_internal.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "infer_plan.h"
#include "plan.h"

#include "cmd_compare_internal.h"

/* The price basis of the row's device rents the GPUs of its training
   plan (and of one serving replica) as one job (cluster.h). */
static bool train_rentable(const struct compare_row *r)
{
	return cluster_price_covers(&r->train.cluster, r->gpu,
				    r->train.config.gpus);
}

static bool infer_rentable(const struct compare_row *r)
{
	return cluster_price_covers(&r->infer.cluster, r->gpu,
				    r->infer.config.tp);
}

/* Best row by 'key' among the feasible ones whose price covers the plan
   ('rentable'); NULL when none is. */
static const struct compare_row *
best_by(const struct compare_row *rows, int n,
	double (*key)(const struct compare_row *),
	bool (*rentable)(const struct compare_row *))
{
	const struct compare_row *best = NULL;

	for (int i = 0; i < n; i++)
		if (key(&rows[i]) < HUGE_VAL && rentable(&rows[i]) &&
		    (!best || key(&rows[i]) < key(best)))
			best = &rows[i];
	return best;
}

/* The GPUs one job of a row's plan rents: the training run, a serving
   replica. */
static int train_gpus(const struct compare_row *r)
{
	return r->train.config.gpus;
}

static int infer_gpus(const struct compare_row *r)
{
	return r->infer.config.tp;
}

static int serve_gpus(const struct compare_row *r)
{
	return r->serve.tp;
}

/*
 * A note for each row better than 'best' by 'key' that was passed over
 * because its price basis does not rent the 'gpus' of its 'what' ("training
 * plan") as one job (once per row: 'noted').
 */
static void note_unrentable(struct report *rep, const struct compare_row *rows,
			    int n, double (*key)(const struct compare_row *),
			    bool (*rentable)(const struct compare_row *),
			    int (*gpus)(const struct compare_row *),
			    const char *what, const struct compare_row *best,
			    bool *noted)
{
	for (int i = 0; i < n; i++) {
		const struct compare_row *r = &rows[i];

		if (noted[i] || key(r) == HUGE_VAL || rentable(r) ||
		    (best && key(r) >= key(best)))
			continue;
		noted[i] = true;
		report_note(rep, "%s: not recommended: its %s needs %d GPUs "
				 "and its price basis %s covers jobs of at "
				 "most %d",
			    r->gpu->name, what, gpus(r), r->gpu->price_basis,
			    r->gpu->rent_max_gpus);
	}
}

/* The fastest and the cheapest training among the rentable rows, with a
   note for each better one passed over ('noted' may be NULL: no notes). */
static void pick_training(struct report *rep, const struct compare_row *rows,
			  int n, bool *noted, const struct compare_row **fast,
			  const struct compare_row **cheap)
{
	*fast = best_by(rows, n, compare_key_time, train_rentable);
	*cheap = best_by(rows, n, compare_key_cost, train_rentable);
	if (!noted)
		return;
	note_unrentable(rep, rows, n, compare_key_time, train_rentable,
			train_gpus, "training plan", *fast, noted);
	note_unrentable(rep, rows, n, compare_key_cost, train_rentable,
			train_gpus, "training plan", *cheap, noted);
}

/* The price basis most rows share (the first such in the list). */
static const char *common_basis(const struct compare_row *rows, int n)
{
	const char *best = n > 0 ? rows[0].train.cluster.price_basis : "";
	int most = 0;

	for (int i = 0; i < n; i++) {
		const char *b = rows[i].train.cluster.price_basis;
		int k = 0;

		for (int j = 0; j < n; j++)
			k += strcmp(rows[j].train.cluster.price_basis, b) == 0;
		if (k > most) {
			most = k;
			best = b;
		}
	}
	return best;
}

/* ", price basis B" when row 'r' is priced on another basis than most
   rows ('common'), else "". */
static void basis_text(char *buf, size_t size, const struct compare_row *r,
		       const char *common)
{
	if (strcmp(r->train.cluster.price_basis, common) != 0)
		snprintf(buf, size, ", price basis %s",
			 r->train.cluster.price_basis);
	else
		buf[0] = '\0';
}

/* 'why' with the quoted device name "'name'" said as "the device", so
   that devices refused for the same reason share one note. */
static void why_of_any(const char *why, const char *name, char *out,
		       size_t size)
{
	char quoted[DIAG_MSG_MAX];
	const char *hit;
	size_t ql;

	snprintf(quoted, sizeof(quoted), "'%s'", name);
	ql = strlen(quoted);
	hit = strstr(why, quoted);
	if (!hit) {
		snprintf(out, size, "%s", why);
		return;
	}
	snprintf(out, size, "%.*sthe device%s", (int)(hit - why), why,
		 hit + ql);
}

/* The error of row 'r''s training (train) or serving plan, or NULL when it
   has a plan. */
static const char *no_plan_why(const struct compare_row *r, bool train)
{
	int rc = train ? r->train_rc :
			 r->per_sample ? r->serve_rc : r->infer_rc;
	const char *why = train ? r->train_why : r->infer_why;

	if (train && r->train_skipped)
		return NULL; /* not asked for: one note says so */
	return rc != 0 && why[0] ? why : NULL;
}

/*
 * Why the rows whose table cell says "no plan" have none: one note per
 * reason, naming the devices (at most 'list' of them, then a count).
 */
void compare_no_plan_notes(struct report *rep, const struct compare_row *rows,
			   int n)
{
	enum { list = 6 };

	for (int pass = 0; pass < 2; pass++) {
		bool train = pass == 0;

		for (int i = 0; i < n; i++) {
			char why[DIAG_MSG_MAX], other[DIAG_MSG_MAX];
			char names[REPORT_NOTE_MAX] = "";
			size_t used = 0;
			int count = 0, shown = 0;
			bool earlier = false;

			if (!no_plan_why(&rows[i], train))
				continue;
			why_of_any(no_plan_why(&rows[i], train),
				   rows[i].gpu->name, why, sizeof(why));
			for (int j = 0; j < i && !earlier; j++) {
				if (!no_plan_why(&rows[j], train))
					continue;
				why_of_any(no_plan_why(&rows[j], train),
					   rows[j].gpu->name, other,
					   sizeof(other));
				earlier = strcmp(why, other) == 0;
			}
			if (earlier)
				continue;
			for (int j = i; j < n; j++) {
				if (!no_plan_why(&rows[j], train))
					continue;
				why_of_any(no_plan_why(&rows[j], train),
					   rows[j].gpu->name, other,
					   sizeof(other));
				if (strcmp(why, other) != 0)
					continue;
				count++;
				if (shown < list && used < sizeof(names)) {
					int w = snprintf(names + used,
							 sizeof(names) - used,
							 "%s%s",
							 shown ? ", " : "",
							 rows[j].gpu->name);

					if (w > 0)
						used += (size_t)w;
					shown++;
				}
			}
			if (count > shown)
				report_note(rep, "%s: no plan on %s and %d more: "
						 "%s",
					    train ? "training" : "serving",
					    names, count - shown, why);
			else
				report_note(rep, "%s: no plan on %s: %s",
					    train ? "training" : "serving",
					    names, why);
		}
	}
}

void compare_recommend(struct report *rep, const struct compare_row *rows,
		       int n, const struct workload *wl)
{
	const struct compare_row *fast, *cheap;
	const struct compare_row *tok =
		best_by(rows, n, compare_key_token_cost, infer_rentable);
	const struct compare_row *lat =
		best_by(rows, n, compare_key_latency, infer_rentable);
	char t[32], c[32], m[32], b[GPU_BASIS_MAX + 32];
	bool *noted = calloc(n > 0 ? (size_t)n : 1, sizeof(*noted));
	/* a recommendation priced on another basis than most names it */
	const char *mixed = common_basis(rows, n);

	pick_training(rep, rows, n, noted, &fast, &cheap);
	if (fast) {
		units_format_plain(t, sizeof(t), fast->train.run.time_s, UNIT_TIME, 3);
		units_format_plain(c, sizeof(c), fast->train.run.cost_usd,
			     UNIT_MONEY, 3);
		basis_text(b, sizeof(b), fast, mixed);
		report_note(rep,
			    "training: fastest is %s (%s on %d GPUs, %s%s)",
			    fast->gpu->name, t, fast->train.config.gpus, c, b);
		if (cheap && cheap != fast) {
			units_format_plain(t, sizeof(t), cheap->train.run.time_s,
				     UNIT_TIME, 3);
			units_format_plain(c, sizeof(c), cheap->train.run.cost_usd,
				     UNIT_MONEY, 3);
			basis_text(b, sizeof(b), cheap, mixed);
			report_note(rep, "training: cheapest is %s (%s, %s%s)",
				    cheap->gpu->name, c, t, b);
		}
	} else if (model_has_arch(&wl->model) &&
		   !(n > 0 && rows[0].train_skipped)) {
		report_note(rep, "training: no device fits this configuration");
	}
	if (noted) {
		memset(noted, 0, (size_t)n * sizeof(*noted));
		note_unrentable(rep, rows, n, compare_key_token_cost,
				infer_rentable, infer_gpus, "serving plan", tok,
				noted);
		note_unrentable(rep, rows, n, compare_key_latency,
				infer_rentable, infer_gpus, "serving plan", lat,
				noted);
		free(noted);
	}
	if (tok) {
		units_format_plain(m, sizeof(m), tok->infer.cost_usd_per_million_tokens,
			     UNIT_MONEY, 3);
		units_format_plain(t, sizeof(t), tok->infer.result.tpot_s, UNIT_TIME,
			     3);
		basis_text(b, sizeof(b), tok, mixed);
		report_note(rep, "inference: cheapest per token%s is %s "
				 "(%s per million tokens, %s per token, "
				 "%d GPU%s%s)",
			    wl->inference.tpot_slo_s > 0.0 ||
					    wl->inference.ttft_slo_s > 0.0 ?
				    " within the SLO" :
				    "",
			    tok->gpu->name, m, t, tok->infer.gpus_total,
			    tok->infer.gpus_total == 1 ? "" : "s", b);
		if (lat && lat != tok) {
			units_format_plain(t, sizeof(t), lat->infer.result.tpot_s,
				     UNIT_TIME, 3);
			report_note(rep, "inference: lowest latency is %s (%s "
					 "per token)", lat->gpu->name, t);
		}
		if (wl->inference.power_cap_w > 0.0) {
			int serving = 0;

			for (int i = 0; i < n; i++)
				serving += compare_infer_ok(&rows[i]);
			report_note(rep, "inference: %d of %d devices serve "
					 "within the %.3g W power cap",
				    serving, n, wl->inference.power_cap_w);
		}
	} else if (model_has_arch(&wl->model)) {
		report_note(rep, "inference: no device serves it within the "
				 "SLO and memory");
	}
	if (fast && tok && fast->gpu != tok->gpu)
		report_note(rep, "training wants throughput at scale (%s); "
				 "serving wants cost per token (%s)",
			    fast->gpu->name, tok->gpu->name);
}

/* The serving batch of a per-sample compare (the same on every
   device): that of the first row with a serving plan, 0 without. */
int compare_serve_batch(const struct compare_row *rows, int n)
{
	for (int i = 0; i < n; i++)
		if (rows[i].serve_rc == 0)
			return rows[i].serve.batch;
	return 0;
}

static bool serve_rentable(const struct compare_row *r)
{
	return cluster_price_covers(&r->serve.cluster, r->gpu, r->serve.tp);
}

/* The recommendation for a per-sample model: training as for a
   transformer, serving by cost per million inferences and by the latency
   of a batch. */
void compare_recommend_samples(struct report *rep,
			       const struct compare_row *rows, int n)
{
	const struct compare_row *fast, *cheap;
	const struct compare_row *inf =
		best_by(rows, n, compare_key_sample_cost, serve_rentable);
	const struct compare_row *lat =
		best_by(rows, n, compare_key_latency, serve_rentable);
	char t[32], c[32], m[32], b[GPU_BASIS_MAX + 32];
	bool *noted = calloc(n > 0 ? (size_t)n : 1, sizeof(*noted));
	const char *mixed = common_basis(rows, n);

	pick_training(rep, rows, n, noted, &fast, &cheap);
	if (fast) {
		units_format_plain(t, sizeof(t), fast->train.run.time_s, UNIT_TIME, 3);
		units_format_plain(c, sizeof(c), fast->train.run.cost_usd,
			     UNIT_MONEY, 3);
		units_format_plain(m, sizeof(m),
			     fast->train.result.tokens_per_s_per_gpu,
			     UNIT_COUNT, 3);
		basis_text(b, sizeof(b), fast, mixed);
		report_note(rep, "training: fastest is %s (%s on %d GPUs, "
				 "%s samples/s per GPU, %s%s)",
			    fast->gpu->name, t, fast->train.config.gpus, m, c,
			    b);
		if (cheap && cheap != fast) {
			units_format_plain(t, sizeof(t), cheap->train.run.time_s,
				     UNIT_TIME, 3);
			units_format_plain(c, sizeof(c), cheap->train.run.cost_usd,
				     UNIT_MONEY, 3);
			units_format_plain(m, sizeof(m),
				     cheap->train.run.cost_usd * 1e6 /
					     compare_samples_of(cheap),
				     UNIT_MONEY, 3);
			basis_text(b, sizeof(b), cheap, mixed);
			report_note(rep, "training: cheapest is %s (%s, %s per "
					 "million samples, %s%s)",
				    cheap->gpu->name, c, m, t, b);
		}
	} else {
		/* the reason when no device could plan it at all (no samples) */
		int planned = 0;

		for (int i = 0; i < n; i++)
			planned += rows[i].train_rc == 0;
		if (planned > 0 || n == 0)
			report_note(rep, "training: no device fits this "
					 "configuration");
	}
	if (noted) {
		memset(noted, 0, (size_t)n * sizeof(*noted));
		note_unrentable(rep, rows, n, compare_key_sample_cost,
				serve_rentable, serve_gpus, "serving replica",
				inf, noted);
		free(noted);
	}
	if (inf) {
		units_format_plain(m, sizeof(m), inf->serve.cost_usd_per_million_samples,
			     UNIT_MONEY, 3);
		units_format_plain(t, sizeof(t), inf->serve.result.latency_s,
			     UNIT_TIME, 3);
		basis_text(b, sizeof(b), inf, mixed);
		report_note(rep, "serving: cheapest per inference is %s (%s per "
				 "million, %s for a batch of %d, %d GPU%s%s)",
			    inf->gpu->name, m, t, inf->serve.batch,
			    inf->serve.gpus_total,
			    inf->serve.gpus_total == 1 ? "" : "s", b);
		if (lat && lat != inf) {
			units_format_plain(t, sizeof(t), lat->serve.result.latency_s,
				     UNIT_TIME, 3);
			report_note(rep, "serving: lowest latency is %s (%s for "
					 "a batch of %d)",
				    lat->gpu->name, t, lat->serve.batch);
		}
	} else {
		report_note(rep, "serving: no device serves it within memory "
				 "and the latency target");
	}
	if (fast && inf && fast->gpu != inf->gpu)
		report_note(rep, "training wants throughput at scale (%s); "
				 "serving wants cost per inference (%s)",
			    fast->gpu->name, inf->gpu->name);
}
