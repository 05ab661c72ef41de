/* mix_pool.c - a mixed fleet's pools, each device's replicas simulated
   under the requests routed to them; see mix_plan.h and specs/models.md
   10.9.22 step 4. */
#include "mix_plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infer_plan.h"
#include "mix_plan_internal.h"
#include "serve_fleet.h"

int mix_plan_pool_count(const struct mix_plan *m)
{
	return m->result.npools;
}

const struct mix_pool *mix_plan_pool(const struct mix_plan *m, int i)
{
	return i >= 0 && i < m->result.npools ? &m->result.pools[i] : NULL;
}

/* The option of pool 'pl'. */
static int option_of(const struct mix_plan *m, const struct mix_pool *pl)
{
	for (int o = 0; o < m->no; o++)
		if (m->gpus[m->opt_gpu[o]] == pl->gpu && m->opt_tp[o] == pl->tp)
			return o;
	return -1;
}

/* The missed percentile over its target (the larger of TTFT and TPOT);
   0 when both are met. */
static double miss_of(const struct workload *wl, const struct sim_result *r)
{
	const struct inference_spec *is = &wl->inference;
	double m = 0.0;

	if (is->ttft_slo_s > 0.0)
		m = fmax(m, serve_ttft_at(r, is->percentile) / is->ttft_slo_s);
	if (is->tpot_slo_s > 0.0)
		m = fmax(m, serve_tpot_at(r, is->percentile) / is->tpot_slo_s);
	return m;
}

/*
 * Simulate 'n' replicas of pool 'pl' under its requests 'sub'.  Returns
 * 0 with 'p' (p->simulated: the simulation ran), 1 when the pool cannot
 * be planned at all (pl->why), -1 when out of memory.
 */
static int pool_try(const struct mix_plan *m, struct mix_pool *pl,
		    const struct sim_request *sub, size_t nsub, int n,
		    struct infer_plan *p, struct diag *err)
{
	struct workload w = *m->wl;
	struct inference_spec *is = &w.inference;
	struct diag e;

	is->tp = pl->tp;
	is->prompt_tokens = (int)fmax(1.0, round(pl->prompt_mean));
	is->output_tokens = (int)fmax(1.0, round(pl->output_mean));
	is->arrival = SIM_ARRIVAL_TRACE;
	is->qps = 0.0;
	is->concurrency = 0;
	is->trace[0] = '\0';
	is->trace_requests = sub;
	is->trace_len = nsub;
	is->replicas = n;
	is->requests = WL_AUTO;
	is->disaggregated = false;
	is->capacity_hint_qps = pl->capacity_qps;
	diag_clear(&e);
	if (infer_plan_make(&w, pl->gpu, p, &e) != 0) {
		if (e.kind == DIAG_NOMEM) {
			*err = e;
			return -1;
		}
		snprintf(pl->why, sizeof(pl->why), "%.250s", e.msg);
		return 1;
	}
	if (p->out_of_memory)
		return diag_set_kind(err, DIAG_NOMEM, NULL, 0, 0,
				     "out of memory");
	return 0;
}

/* Keep the simulation of 'p' of 'n' replicas in 'pl'. */
static void pool_keep(struct mix_pool *pl, const struct infer_plan *p, int n)
{
	pl->replicas = n;
	pl->simulated = p->simulated;
	if (p->simulated)
		pl->sim = p->fleet.sim;
	pl->meets = p->fits && p->meets_slo && p->simulated;
	if (pl->meets)
		pl->why[0] = '\0';
	else
		snprintf(pl->why, sizeof(pl->why), "%.250s",
			 p->why[0] ? p->why : "does not meet the targets");
}

int mix_plan_simulate(struct mix_plan *m, int i, struct diag *err)
{
	struct mix_pool *pl = &m->result.pools[i];
	struct sim_request *sub;
	struct infer_plan *p;
	int o = option_of(m, pl), rc = 0, stalls = 0;
	long long lo, hi, floor_n;
	double least;
	double prev = HUGE_VAL;
	size_t k = 0;

	if (o < 0 || pl->requests == 0) {
		/* slices too thin to hold a request of the draw */
		pl->meets = true;
		return 0;
	}
	sub = malloc(pl->requests * sizeof(*sub));
	p = malloc(sizeof(*p));
	if (!sub || !p) {
		rc = diag_set_kind(err, DIAG_NOMEM, NULL, 0, 0,
				   "out of memory");
		goto out_free;
	}
	for (size_t j = 0; j < m->nreq; j++)
		if (m->route[j] == o)
			sub[k++] = m->req[j];
	hi = pl->ip_replicas;
	lo = hi - 1;
	/* fewer than the saturated capacities hold cannot keep up */
	least = 0.0;
	for (int b = 0; b < m->nb; b++) {
		size_t c = (size_t)o * m->nb + b;

		if (m->slices[c] > 0)
			least += m->buckets[b].rate_per_s * m->slices[c] /
				 MIX_SLICES / m->capsat[c];
	}
	floor_n = (long long)ceil(least - 1e-9);
	if (floor_n < 1)
		floor_n = 1;
	for (;;) {
		double miss;

		rc = pool_try(m, pl, sub, k, (int)hi, p, err);
		if (rc != 0)
			goto out_rc;
		pool_keep(pl, p, (int)hi);
		if (pl->meets || !p->simulated)
			break;
		miss = miss_of(m->wl, &p->fleet.sim);
		if (miss > prev * (1.0 - mix_min_gain)) {
			if (++stalls >= 2)
				break;
		} else {
			stalls = 0;
		}
		prev = miss;
		if (hi >= mix_pool_replicas_max)
			break;
		lo = hi;
		hi = stalls > 0 || miss > 2.0 ? 2 * hi : hi + (hi + 3) / 4;
		if (hi > mix_pool_replicas_max)
			hi = mix_pool_replicas_max;
	}
	if (!pl->meets)
		goto out_free;
	/* the program's replicas met the targets at once: fewer may too,
	   down to what the saturated capacities need (a pool of several
	   buckets, or more replicas than one bucket's measure, pools its
	   queue better than the measurements did) */
	if (hi == pl->ip_replicas)
		lo = floor_n - 1;
	/* the fewest between the last that missed and the first that met */
	while (hi - lo > 1) {
		long long mid = lo + (hi - lo) / 2;
		struct mix_pool keep = *pl;

		rc = pool_try(m, pl, sub, k, (int)mid, p, err);
		if (rc != 0)
			goto out_rc;
		pool_keep(pl, p, (int)mid);
		if (pl->meets) {
			hi = mid;
		} else {
			*pl = keep;
			lo = mid;
		}
	}
	goto out_free;
out_rc:
	if (rc > 0) {
		/* the pool cannot be planned: pl->why says why */
		pl->meets = false;
		rc = 0;
	}
out_free:
	free(p);
	free(sub);
	return rc;
}

int mix_plan_slices(const struct mix_plan *m, int b, int i)
{
	int o;

	if (b < 0 || b >= m->nb || i < 0 || i >= m->result.npools)
		return 0;
	o = option_of(m, &m->result.pools[i]);
	return o < 0 ? 0 : m->slices[(size_t)o * m->nb + b];
}

const struct mix_result *mix_plan_result(struct mix_plan *m)
{
	struct mix_result *r = &m->result;

	r->cost_per_h = 0.0;
	r->power_w = 0.0;
	r->gpus = 0;
	r->replicas = 0;
	r->meets = true;
	r->why[0] = '\0';
	for (int i = 0; i < r->npools; i++) {
		const struct mix_pool *pl = &r->pools[i];

		r->cost_per_h += pl->replicas * pl->price_per_h;
		r->power_w += pl->replicas * pl->replica_w;
		r->gpus += pl->replicas * pl->gpus_per_replica;
		r->replicas += pl->replicas;
		if (!pl->meets && r->meets) {
			r->meets = false;
			snprintf(r->why, sizeof(r->why), "%s at tp %d: %.200s",
				 pl->gpu->name, pl->tp, pl->why);
		}
	}
	return r;
}
