/* infer_plan.c - resolve [inference] into a serving plan; see
   infer_plan.h. */
#include "infer_plan.h"

#include "engine_limits.h"
#include "model_energy.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>

#include "checked.h"
#include "model_queue.h"
#include "units.h"

/* Most replicas the rate search considers. */
static const int max_replicas = 1 << 24;

static const double seconds_per_hour = 3600.0;

static void phase_costs(const struct workload *wl, struct infer_plan *p);
static int tp_slot(int tp);

/* A number of a message for people (the reason a plan misses) with three
   significant digits and no exponent: "1019", "0.5", "20000000". */
struct num3 {
	char s[40];
};

static struct num3 n3(double v)
{
	struct num3 n;

	units_plain_number(n.s, sizeof(n.s), v, 3);
	return n;
}

double infer_tpot_target_s(const struct inference_spec *is)
{
	return is->output_tokens >= 2 ? is->tpot_slo_s : 0.0;
}

double slo_fraction(enum slo_percentile p)
{
	static const double f[] = { [SLO_P50] = 0.50, [SLO_P90] = 0.90,
				    [SLO_P99] = 0.99 };

	return (unsigned)p <= SLO_P99 ? f[p] : 0.99;
}

struct batch_fn {
	const struct arch *a;
	struct infer_config c;
	const struct gpu_spec *g;
	const struct cluster *cl;
	double target_s;
};

static double tpot_at(struct batch_fn *f, int batch)
{
	struct infer_result r;

	f->c.batch = batch;
	if (infer_evaluate(f->a, &f->c, f->g, f->cl, &r) != 0)
		return HUGE_VAL;
	return r.tpot_s;
}

/* Latency minus target, linear between whole batches: continuous and,
   like the latency, increasing, so Brent's method brackets its root. */
static double excess(double x, void *arg)
{
	struct batch_fn *f = arg;
	int lo = (int)floor(x);
	double y0 = tpot_at(f, lo);
	double y1 = tpot_at(f, lo + 1);

	return y0 + (x - lo) * (y1 - y0) - f->target_s;
}

/*
 * Largest batch in [1, hi] whose latency meets the target: 0 when even
 * batch 1 misses it.  The latency grows with the batch, so this is the
 * root of a monotone function, found with GSL's Brent solver.
 */
static int largest_batch_within(struct batch_fn *f, int hi)
{
	gsl_root_fsolver *s;
	gsl_function fn = { excess, f };
	double x = 1.0;
	int status, iter = 0;

	if (tpot_at(f, 1) > f->target_s)
		return 0;
	if (hi <= 1 || tpot_at(f, hi) <= f->target_s)
		return hi;
	s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
	if (!s)
		return 1;
	if (gsl_root_fsolver_set(s, &fn, 1.0, (double)hi) != GSL_SUCCESS) {
		gsl_root_fsolver_free(s);
		return 1;
	}
	do {
		status = gsl_root_fsolver_iterate(s);
		if (status != GSL_SUCCESS)
			break;
		x = gsl_root_fsolver_root(s);
		status = gsl_root_test_interval(gsl_root_fsolver_x_lower(s),
						gsl_root_fsolver_x_upper(s),
						0.25, 0.0);
	} while (status == GSL_CONTINUE && ++iter < 100);
	gsl_root_fsolver_free(s);
	/* the last whole batch at or below the root that meets the target */
	for (int b = (int)floor(x) + 1; b >= 1; b--)
		if (b <= hi && tpot_at(f, b) <= f->target_s)
			return b;
	return 0;
}

/*
 * The fewest replicas, each 'slots' servers, whose queue (arrivals at
 * 'rate', each served in 'service_s') keeps base_s plus the waiting time
 * at fraction 'frac' within slo_s, or that are merely stable without an
 * SLO (slo_s <= 0).  Doubling, then bisection: the wait falls as replicas
 * are added.  Returns 0 when none up to max_replicas does; else the count,
 * with base_s plus the wait in '*latency_p_s'.
 */
static int fewest_replicas(double slots, double rate, double service_s,
			   double base_s, double slo_s, double frac,
			   double *latency_p_s)
{
	long long lo, hi;

	if (slo_s > 0.0 && base_s > slo_s)
		return 0;
	/* stable needs replicas * slots > rate * service */
	if (rate * service_s / slots >= max_replicas)
		return 0;
	lo = (long long)floor(rate * service_s / slots);
	hi = lo + 1;
	for (;;) {
		double w = queue_wait_percentile_s(hi * slots, rate, service_s,
						   frac);

		if (w >= 0.0 && w < HUGE_VAL &&
		    (slo_s <= 0.0 || base_s + w <= slo_s))
			break;
		if (hi > max_replicas)
			return 0;
		lo = hi;
		hi *= 2;
	}
	while (hi - lo > 1) {
		long long mid = lo + (hi - lo) / 2;
		double w = queue_wait_percentile_s(mid * slots, rate, service_s,
						   frac);

		if (w >= 0.0 && w < HUGE_VAL &&
		    (slo_s <= 0.0 || base_s + w <= slo_s))
			hi = mid;
		else
			lo = mid;
	}
	if (hi > max_replicas)
		return 0;
	*latency_p_s = base_s + queue_wait_percentile_s(hi * slots, rate,
							service_s, frac);
	return (int)hi;
}

/* A plan that needs at least 'least' GPUs to keep up is not sized when
   a better one needs no more than 'bound'.  Returns true when pruned. */
static bool prune(struct infer_plan *p, double least, int bound)
{
	if (least <= bound)
		return false;
	p->meets_slo = false;
	p->pruned = true;
	p->gpus_total = least < INT_MAX ? (int)least : INT_MAX;
	snprintf(p->why, sizeof(p->why),
		 "at least %.0f GPUs keep up with the load", least);
	return true;
}

/*
 * Serve the load by simulation: the fleet of [inference] replicas, or the
 * fewest replicas that meet the targets.  A simulation that cannot run
 * (no room for the KV cache, a request longer than it holds) makes the
 * plan infeasible with the reason.
 */
static void plan_load(const struct workload *wl, struct infer_plan *p,
		      int bound)
{
	const struct inference_spec *is = &wl->inference;
	struct infer_step_model step;
	struct diag err;

	diag_clear(&err);
	if (infer_step_model_init(&step, &p->arch, &p->config, p->gpu,
				  &p->cluster, is->kernel_overhead_s) != 0)
		return;
	/* under a power cap the math runs at the capped clock */
	infer_step_model_clock(&step, p->result.clock_fraction);
	if (serve_fleet_init(wl, &p->arch, &p->config, p->gpu, &p->fleet,
			     &err) == 0 && p->capacity_hint_qps > 0.0)
		/* measured before for this tp (infer_plan_make) */
		p->fleet.capacity_qps = p->capacity_hint_qps;
	else if (err.msg[0] ||
		 serve_fleet_capacity(&p->fleet, &step, &err) != 0) {
		p->meets_slo = false;
		snprintf(p->why, sizeof(p->why), "%.200s", err.msg);
		p->out_of_memory = err.kind == DIAG_NOMEM;
		return;
	}
	/* what sizings of this tp at other rates learnt */
	if (is->share_by_tp && tp_slot(p->config.tp) >= 0)
		p->fleet.share = is->share_by_tp[tp_slot(p->config.tp)];
	if (is->replicas == WL_AUTO &&
	    p->fleet.load.arrival == SIM_ARRIVAL_POISSON) {
		/* the fewest GPUs that can keep up: no better than 'bound'
		   means no need to size this one */
		double least = ceil(is->qps / p->fleet.capacity_qps) *
			       infer_gpus_per_replica(&p->config);

		if (prune(p, least, bound))
			return;
		/* nor sized past the bound: a fleet of more GPUs is no
		   better than the plan that set it */
		if (bound < INT_MAX)
			p->fleet.replicas_limit =
				bound / infer_gpus_per_replica(&p->config);
	}
	if (serve_fleet_run(wl, &step, &p->fleet, &err) != 0) {
		p->meets_slo = false;
		snprintf(p->why, sizeof(p->why), "%.200s", err.msg);
		p->out_of_memory = err.kind == DIAG_NOMEM;
		return;
	}
	if (p->fleet.over_limit) {
		prune(p, (double)bound + 1.0, bound);
		snprintf(p->why, sizeof(p->why),
			 "meeting the targets takes more than %d GPUs",
			 bound);
		return;
	}
	p->simulated = true;
	p->replicas = p->fleet.replicas;
	p->meets_slo = p->fleet.meets;
	if (!p->fleet.meets)
		memcpy(p->why, p->fleet.why, sizeof(p->why));
	p->ttft_p_s = serve_ttft_at(&p->fleet.sim, is->percentile);
	if (p->fleet.load.arrival == SIM_ARRIVAL_POISSON &&
	    p->fleet.capacity_qps > 0.0)
		p->utilization = is->qps /
				 (p->replicas * p->fleet.capacity_qps);
	else
		p->utilization = p->fleet.sim.busy_fraction;
}

/*
 * Serve the load with disaggregated prefill and decode pools: each pool's
 * tp is [inference] prefill_tp / decode_tp or the plan's; each pool has
 * its own step model and KV cache.  The fleet's GPUs are both pools'.
 */
static void plan_load_disagg(const struct workload *wl, struct infer_plan *p,
			     int bound)
{
	const struct inference_spec *is = &wl->inference;
	struct infer_config cp = p->config, cd = p->config;
	struct infer_step_model ps, ds;
	struct serve_fleet *f = &p->fleet;
	struct diag err;

	diag_clear(&err);
	cp.tp = is->prefill_tp != WL_AUTO ? is->prefill_tp : p->config.tp;
	cd.tp = is->decode_tp != WL_AUTO ? is->decode_tp : p->config.tp;
	p->prefill_tp = cp.tp;
	p->decode_tp = cd.tp;
	if (infer_step_model_init(&ps, &p->arch, &cp, p->gpu, &p->cluster,
				  is->kernel_overhead_s) != 0 ||
	    infer_step_model_init(&ds, &p->arch, &cd, p->gpu, &p->cluster,
				  is->kernel_overhead_s) != 0)
		return;
	infer_step_model_clock(&ps, p->result.clock_fraction);
	infer_step_model_clock(&ds, p->result.clock_fraction);
	/* a decode step of one sequence after its prompt is the least time
	   per output token a decode replica gives: over the target, no
	   number of them meets it (said here, rather than after simulating
	   ever more decode replicas for minutes; issue 40) */
	if (is->tpot_slo_s > 0.0 && is->speculative_tokens == 0) {
		struct sim_mix one = { .decode_seqs = 1.0,
				       .decode_ctx_tokens = is->prompt_tokens,
				       .logit_rows = 1.0 };
		double step_s = infer_step_s(&ds, &one);

		if (step_s > is->tpot_slo_s) {
			p->meets_slo = false;
			snprintf(p->why, sizeof(p->why),
				 "a decode step of one sequence takes %s ms "
				 "at decode tp %d, over the %s ms TPOT "
				 "target: no number of decode replicas meets "
				 "it",
				 n3(1e3 * step_s).s, cd.tp,
				 n3(1e3 * is->tpot_slo_s).s);
			return;
		}
	}
	if (serve_fleet_init_disagg(wl, &p->arch, &cp, &cd, p->gpu,
				    &p->cluster, f, &err) != 0 ||
	    serve_fleet_capacity_disagg(f, &ps, &ds, &err) != 0) {
		p->meets_slo = false;
		snprintf(p->why, sizeof(p->why), "%.200s", err.msg);
		p->out_of_memory = err.kind == DIAG_NOMEM;
		return;
	}
	if (is->prefill_replicas == WL_AUTO &&
	    f->load.arrival == SIM_ARRIVAL_POISSON) {
		double ep = infer_gpus_per_replica(&p->config) / p->config.tp;
		double least = ceil(is->qps / f->prefill_capacity_qps) * cp.tp *
				       ep +
			       ceil(is->qps / f->decode_capacity_qps) * cd.tp *
				       ep;

		if (prune(p, least, bound))
			return;
	}
	if (serve_fleet_run_disagg(wl, &ps, &ds, f, &err) != 0) {
		p->meets_slo = false;
		snprintf(p->why, sizeof(p->why), "%.200s", err.msg);
		p->out_of_memory = err.kind == DIAG_NOMEM;
		return;
	}
	p->simulated = true;
	p->replicas = f->replicas;
	p->meets_slo = f->meets;
	if (!f->meets)
		memcpy(p->why, f->why, sizeof(p->why));
	p->ttft_p_s = serve_ttft_at(&f->sim, is->percentile);
	p->utilization = f->sim.busy_fraction;
}

/*
 * GPUs of 'replicas' replicas of tp x ep GPUs each.  A fleet larger than
 * the largest plan (WL_GPUS_MAX) does not meet the targets: '*meets' is
 * cleared and 'why' says so (the count is then at most INT_MAX).
 */
static int fleet_gpus(int replicas, int tp, int ep, bool *meets, char *why,
		      size_t n)
{
	int64_t gpus = ck_sat_mul_i64(ck_sat_mul_i64(replicas, tp), ep);

	if (gpus <= WL_GPUS_MAX)
		return (int)gpus;
	if (*meets) {
		*meets = false;
		snprintf(why, n, "%d replica%s of %lld GPUs need more than "
			 "the %d GPUs capplan plans for", replicas,
			 replicas == 1 ? "" : "s", (long long)tp * ep,
			 WL_GPUS_MAX);
	}
	return gpus < INT_MAX ? (int)gpus : INT_MAX;
}

/* GPUs of the fleet a plan serves with: its replicas, or both pools of a
   disaggregated fleet (fleet_gpus). */
static int plan_gpus(struct infer_plan *p)
{
	int ep = p->config.ep > 1 ? p->config.ep : 1;
	int64_t n;

	if (!(p->simulated && p->fleet.disagg))
		return fleet_gpus(p->replicas, p->config.tp, ep, &p->meets_slo,
				  p->why, sizeof(p->why));
	/* two counts of at most INT_MAX: their sum fits in 64 bits */
	n = (int64_t)fleet_gpus(p->fleet.prefill_replicas, p->prefill_tp, ep,
				&p->meets_slo, p->why, sizeof(p->why)) +
	    fleet_gpus(p->fleet.decode_replicas, p->decode_tp, ep,
		       &p->meets_slo, p->why, sizeof(p->why));
	if (n > WL_GPUS_MAX && p->meets_slo) {
		p->meets_slo = false;
		snprintf(p->why, sizeof(p->why), "the two pools need more than "
			 "the %d GPUs capplan plans for", WL_GPUS_MAX);
	}
	return n < INT_MAX ? (int)n : INT_MAX;
}

/* Evaluate one tp: batch, latency, replicas, cost.  Returns 0, or -1
   when the device cannot run the precision. */
static int plan_tp(const struct workload *wl, struct infer_plan *p, int tp,
		   int bound)
{
	const struct inference_spec *is = &wl->inference;
	struct infer_config *c = &p->config;
	struct batch_fn f;
	/* the bounds hold per attention group: under expert parallelism
	   each of the ep groups runs its own share of the batch */
	int groups = c->ep > 1 ? c->ep : 1;
	int batch_limit = ck_sat_mul_int(INFER_BATCH_LIMIT, groups);
	/* a one-token answer has no time per output token: a TPOT target
	   binds answers of two tokens or more only */
	double tpot_slo_s = infer_tpot_target_s(is);

	if (batch_limit > WL_INFER_BATCH_MAX)
		batch_limit = WL_INFER_BATCH_MAX; /* the key's own bound */
	int limit;
	int kv_batch = INT_MAX; /* sequences the engine's token cap holds */
	struct engine_limits el;

	c->tp = tp;
	/* the engine's limits on this device at this tp */
	engine_limits_on(wl, p->gpu, tp, &el);
	c->memory_fraction = el.memory_fraction;
	c->memory_of_free = el.fraction_of_free;
	c->batch = 1;
	p->why[0] = '\0';
	p->kv_capped_tokens = 0;
	if (infer_evaluate(&p->arch, c, p->gpu, &p->cluster, &p->result) != 0)
		return -1;
	p->max_batch = infer_max_batch_memory(&p->arch, c, p->gpu,
					      batch_limit);
	/* an engine whose KV cache holds a set number of tokens holds that
	   many sequences of the workload's length at most */
	if (el.kv_cache_tokens != WL_AUTO) {
		long long ctx = (long long)c->prompt_tokens + c->output_tokens;

		kv_batch = ctx > 0 ? (int)(el.kv_cache_tokens / ctx) : INT_MAX;
		if (kv_batch < p->max_batch)
			p->max_batch = kv_batch;
	}
	limit = p->max_batch;
	f.a = &p->arch;
	f.c = *c;
	f.g = p->gpu;
	f.cl = &p->cluster;
	p->max_batch_slo = batch_limit;
	if (tpot_slo_s > 0.0) {
		f.target_s = tpot_slo_s;
		p->max_batch_slo = largest_batch_within(&f, batch_limit);
	}
	if (is->batch != WL_AUTO) {
		c->batch = is->batch;
	} else {
		/* the engine's running sequences at most (its max_batch,
		   as the stack or the workload gives it) */
		int cap = el.max_batch != WL_AUTO ?
				  el.max_batch :
				  ck_sat_mul_int(INFER_BATCH_DEFAULT_MAX,
						 groups);

		limit = limit < p->max_batch_slo ? limit : p->max_batch_slo;
		c->batch = limit < cap ? limit : cap;
		if (c->batch < 1)
			c->batch = 1;
	}
	infer_evaluate(&p->arch, c, p->gpu, &p->cluster, &p->result);
	p->fits = p->result.memory.fits;
	p->meets_slo = true;
	p->ttft_p_s = p->result.ttft_s;
	if (is->power_cap_w > 0.0 && is->power_cap_w < p->gpu->idle_w) {
		p->meets_slo = false;
		snprintf(p->why, sizeof(p->why),
			 "the %.3g W power cap is below the device's idle "
			 "power (%.3g W)", is->power_cap_w, p->gpu->idle_w);
	} else if (!p->fits) {
		p->meets_slo = false; /* nothing runs */
		snprintf(p->why, sizeof(p->why),
			 "a batch of %d needs %s GB per GPU of %s GB",
			 c->batch, n3(p->result.memory.total_bytes / 1e9).s,
			 n3(p->gpu->mem_bytes / 1e9).s);
	} else if (c->batch > kv_batch) {
		p->meets_slo = false; /* the engine runs none of them */
		p->kv_capped_tokens = ck_sat_mul_int(
			c->batch, c->prompt_tokens + c->output_tokens);
		if (kv_batch < 1)
			snprintf(p->why, sizeof(p->why),
				 "a sequence of %d tokens (prompt and answer) "
				 "is longer than the %d the engine's KV cache "
				 "holds (inference.kv_cache_tokens)",
				 c->prompt_tokens + c->output_tokens,
				 el.kv_cache_tokens);
		else
			snprintf(p->why, sizeof(p->why),
				 "the engine's KV cache of %d tokens "
				 "(inference.kv_cache_tokens) holds %d "
				 "sequence%s of %d tokens, not %d",
				 el.kv_cache_tokens, kv_batch,
				 kv_batch == 1 ? "" : "s",
				 c->prompt_tokens + c->output_tokens, c->batch);
	} else if (tpot_slo_s > 0.0 && p->result.tpot_s > tpot_slo_s &&
		   !(is->speculative_tokens > 0 || is->disaggregated) &&
		   (!serve_has_load(is) || p->max_batch_slo < 1)) {
		/* (speculation and a decode pool of another tp change the
		   TPOT: the simulation judges those.  Under a load the
		   running batch is what the load keeps in flight, not the
		   full one, so the simulation judges a given batch too,
		   unless a sequence alone misses the target) */
		double t = p->result.tpot_s;
		int b = c->batch;

		if (serve_has_load(is) && b > 1) {
			struct infer_config one = *c;
			struct infer_result r1;

			one.batch = 1;
			if (infer_evaluate(&p->arch, &one, p->gpu, &p->cluster,
					   &r1) == 0) {
				t = r1.tpot_s;
				b = 1;
			}
		}
		p->meets_slo = false;
		snprintf(p->why, sizeof(p->why),
			 "time per output token is %s ms at batch %d, over "
			 "the %s ms SLO", n3(1e3 * t).s, b,
			 n3(1e3 * is->tpot_slo_s).s);
	} else if (is->ttft_slo_s > 0.0 &&
		   p->result.ttft_s > is->ttft_slo_s) {
		p->meets_slo = false;
		snprintf(p->why, sizeof(p->why),
			 "prefill alone takes %s ms, over the %s ms TTFT "
			 "SLO", n3(1e3 * p->result.ttft_s).s,
			 n3(1e3 * is->ttft_slo_s).s);
	}
	/* the fleet the user fixed, even where nothing is simulated (a plan
	   that fails before its load says so about their fleet) */
	p->replicas = is->replicas != WL_AUTO ? is->replicas : 1;
	p->utilization = 0.0;
	/* a request rate is a load: the simulation sizes the replicas */
	if (serve_has_load(is)) {
		if (p->fits && p->meets_slo) {
			if (is->disaggregated)
				plan_load_disagg(wl, p, bound);
			else
				plan_load(wl, p, bound);
		}
		if (p->pruned)
			return 0;
	}
	p->gpus_total = plan_gpus(p);
	p->cost_usd_per_month = p->gpus_total *
				p->cluster.price_usd_per_gpu_hour *
				ENERGY_HOURS_PER_MONTH;
	/* rented GPU time per million output tokens: at the planned
	   utilization with a rate, at full load without one */
	if (p->simulated && p->fleet.load.arrival == SIM_ARRIVAL_POISSON &&
	    !p->fleet.overloaded)
		/* a fleet that keeps up delivers the offered tokens */
		p->cost_usd_per_million_tokens =
			p->gpus_total * p->cluster.price_usd_per_gpu_hour /
			(is->qps * is->output_tokens * seconds_per_hour) * 1e6;
	else if (p->simulated && p->fleet.sim.output_tokens_per_s > 0.0)
		p->cost_usd_per_million_tokens =
			p->gpus_total * p->cluster.price_usd_per_gpu_hour /
			(p->fleet.sim.output_tokens_per_s * seconds_per_hour) *
			1e6;
	else if (p->has_rate && p->utilization > 0.0)
		p->cost_usd_per_million_tokens =
			p->gpus_total * p->cluster.price_usd_per_gpu_hour /
			(is->qps * is->output_tokens * seconds_per_hour) * 1e6;
	else
		p->cost_usd_per_million_tokens =
			infer_gpus_per_replica(c) *
			p->cluster.price_usd_per_gpu_hour /
			(p->result.throughput_tokens_per_s * seconds_per_hour) *
			1e6;
	phase_costs(wl, p);
	return 0;
}

/*
 * The cost of input and of output tokens (specs/models.md 10.9.20): the
 * fleet's GPU time (idle time included) split between prefill and decode
 * by the share of busy time each took, over the tokens each handled.
 * Simulated: the share the simulation measured (a disaggregated fleet:
 * each pool's GPUs) and its token rates; else one replica at full batch,
 * whose prefills take prefill_batch_s of its service time.
 */
static void phase_costs(const struct workload *wl, struct infer_plan *p)
{
	const struct inference_spec *is = &wl->inference;
	const struct infer_config *c = &p->config;
	double usd_per_s = p->cluster.price_usd_per_gpu_hour / seconds_per_hour;
	double gpus, f, in, out;

	if (p->simulated && p->fleet.disagg) {
		double pg = (double)p->fleet.prefill_replicas * p->prefill_tp,
		       dg = (double)p->fleet.decode_replicas * p->decode_tp;

		gpus = p->gpus_total;
		f = pg + dg > 0.0 ? pg / (pg + dg) : 0.0;
		in = p->fleet.sim.input_tokens_per_s;
		out = p->fleet.sim.output_tokens_per_s;
	} else if (p->simulated) {
		gpus = p->gpus_total;
		f = p->fleet.sim.prefill_time_fraction;
		in = p->fleet.sim.input_tokens_per_s;
		out = p->fleet.sim.output_tokens_per_s;
	} else {
		double svc = p->result.service_s;

		gpus = infer_gpus_per_replica(c);
		f = svc > 0.0 ? fmin(1.0, p->result.prefill_batch_s / svc) :
				0.0;
		in = svc > 0.0 ? c->batch * (double)is->prompt_tokens / svc :
				 0.0;
		out = p->result.throughput_tokens_per_s;
	}
	p->prefill_time_fraction = f;
	p->cost_usd_per_million_input_tokens =
		in > 0.0 ? gpus * usd_per_s * f / in * 1e6 : 0.0;
	p->cost_usd_per_million_output_tokens =
		out > 0.0 ? gpus * usd_per_s * (1.0 - f) / out * 1e6 : 0.0;
	/* tokens per provisioned MW: the fleet's rate over its replicas'
	   power (the offered rate when it keeps up, as the blended cost) */
	{
		double w = infer_plan_replica_w(p) * gpus /
			   infer_gpus_per_replica(c);
		double rate = p->simulated && p->fleet.load.arrival ==
							 SIM_ARRIVAL_POISSON &&
					      !p->fleet.overloaded ?
				      is->qps * is->output_tokens :
				      out;

		p->output_tokens_per_s_per_mw =
			w > 0.0 && isfinite(rate / (w / 1e6)) ?
				rate / (w / 1e6) :
				0.0;
	}
}

double infer_replica_w(const struct gpu_spec *g, const struct cluster *cl,
		       double power_cap_w, int gpus)
{
	double gpu = g->tdp_w;

	/* a cap below idle draws idle power all the same */
	if (power_cap_w > 0.0 && power_cap_w < gpu)
		gpu = fmax(power_cap_w, g->idle_w);
	return gpu * gpus * (1.0 + cl->host_overhead) * cl->pue;
}

double infer_plan_replica_w(const struct infer_plan *p)
{
	return infer_replica_w(p->gpu, &p->cluster, p->config.power_cap_w,
			       infer_gpus_per_replica(&p->config));
}

/* Is plan 'a' better than 'b': feasible first, then fewer GPUs for the
   rate (or cheaper tokens without one), then lower latency. */
static bool better(const struct infer_plan *a, const struct infer_plan *b)
{
	bool fa = a->fits && a->meets_slo, fb = b->fits && b->meets_slo;

	if (fa != fb)
		return fa;
	if (!fa) /* neither works: the nearer miss, to explain */
		return a->fits != b->fits ? a->fits :
					    a->result.tpot_s < b->result.tpot_s;
	if (a->has_rate && a->gpus_total != b->gpus_total)
		return a->gpus_total < b->gpus_total;
	if (a->cost_usd_per_million_tokens != b->cost_usd_per_million_tokens)
		return a->cost_usd_per_million_tokens <
		       b->cost_usd_per_million_tokens;
	return a->result.tpot_s < b->result.tpot_s;
}

/* The entry of a power-of-two tp in capacity_by_tp_qps, or -1. */
static int tp_slot(int tp)
{
	for (int i = 0; i < INFER_TP_SLOTS; i++)
		if (tp == 1 << i)
			return i;
	return -1;
}

/* A replica's capacity at 'tp' known from an earlier plan (0: none). */
static double known_capacity(const struct inference_spec *is, int tp)
{
	int i = tp_slot(tp);

	return is->capacity_by_tp_qps && i >= 0 ?
		       is->capacity_by_tp_qps[i] :
		       0.0;
}

int infer_plan_make(const struct workload *wl, const struct gpu_spec *g,
		    struct infer_plan *p, struct diag *err)
{
	return infer_plan_make_progress(wl, g, NULL, p, err);
}

int infer_plan_make_progress(const struct workload *wl,
			     const struct gpu_spec *g,
			     const struct progress_hook *hook,
			     struct infer_plan *p, struct diag *err)
{
	return infer_plan_make_within(wl, g, hook, INT_MAX, p, err);
}

int infer_plan_make_within(const struct workload *wl,
			   const struct gpu_spec *g,
			   const struct progress_hook *hook, int bound0,
			   struct infer_plan *p, struct diag *err)
{
	const struct inference_spec *is = &wl->inference;
	struct infer_plan best, cand;
	bool have = false, presize;
	int tps[32], least[32], ntp = 0;
	size_t steps, done = 0;
	double cap[32] = { 0.0 };
	double known[INFER_TP_SLOTS] = { 0.0 };
	struct fleet_share shares[INFER_TP_SLOTS] = { { 0.0, 0.0 } };
	struct engine_limits el;
	/* a disaggregated fleet with a decode tp: the plan's tp is it */
	int want_tp = is->tp != WL_AUTO ? is->tp :
		      is->disaggregated && is->decode_tp != WL_AUTO ?
						is->decode_tp :
						WL_AUTO;

	memset(p, 0, sizeof(*p));
	p->gpu = g;
	if (is->share_by_tp)
		memcpy(shares, is->share_by_tp, sizeof(shares));
	if (cluster_resolve(&wl->cluster, g, &p->cluster, err) != 0)
		return -1;
	if (arch_from_spec(&wl->model, &p->arch) != 0)
		return diag_set(err, wl->file, 0, 0,
				"inference needs the architecture: give "
				"[model] layers, hidden, heads, vocab and "
				"seq_len");
	if (is->kv_offload_memory_bytes > 0.0 && is->prefix_caching == 1 &&
	    !(p->cluster.host_link_bw_bytes_per_s > 0.0))
		/* an input the device's row lacks, not a plan that fails */
		return diag_set(err, wl->file, 0, 0,
				"'inference.kv_offload_memory' needs the host "
				"link's bandwidth: %s has none in the catalog; "
				"give '[cluster] host_link_bw'", g->name);
	p->config.weight_precision = is->weight_precision;
	p->config.kv_precision = is->kv_precision;
	p->config.prompt_tokens = is->prompt_tokens;
	p->config.output_tokens = is->output_tokens;
	p->config.sparse = is->sparsity_2_4;
	p->config.power_cap_w = is->power_cap_w;
	p->config.kernel_overhead_s = is->kernel_overhead_s;
	p->config.host_request_s = is->host_request_s;
	engine_limits_on(wl, g, 1, &el);
	p->config.memory_fraction = el.memory_fraction;
	p->config.memory_of_free = el.fraction_of_free;
	p->config.weight_only = is->weight_only;
	p->config.mxfp4 = is->fp4_format == 1;
	p->config.non_expert_own = is->non_expert_precision != PREC_COUNT;
	if (p->config.non_expert_own)
		p->config.non_expert_precision = is->non_expert_precision;
	p->config.decode_per_head = is->decode_attention == 1;
	/* the step budget the simulation resolves (serve_fleet_init),
	   without its raise to max_batch, which packs no more prompts */
	p->config.step_tokens = el.max_batched_tokens != WL_AUTO ?
					el.max_batched_tokens :
				is->chunked_prefill ?
					SERVE_CHUNK_TOKENS_DEFAULT :
					SERVE_PREFILL_TOKENS_DEFAULT;
	p->config.ep = is->ep != WL_AUTO ? is->ep : 1;
	p->config.expert_imbalance = is->expert_imbalance;
	p->config.ep_comm_overlap = is->ep_comm_overlap;
	p->config.redundant_experts = is->redundant_experts;
	p->has_rate = is->qps > 0.0;
	p->chosen = (is->tp == WL_AUTO ? 1u << ICHOSE_TP : 0) |
		    (is->batch == WL_AUTO ? 1u << ICHOSE_BATCH : 0);
	for (int tp = 1; tp > 0 && tp <= p->cluster.gpus_per_node && ntp < 32;
	     tp = ck_doubled_within(tp, p->cluster.gpus_per_node)) {
		if (want_tp != WL_AUTO && tp != want_tp)
			continue;
		if (p->arch.heads % tp != 0 ||
		    (p->arch.kv_heads % tp != 0 && tp % p->arch.kv_heads != 0))
			continue;
		tps[ntp] = tp;
		least[ntp++] = 0;
	}
	presize = ntp > 1 && serve_has_load(is) && is->replicas == WL_AUTO &&
		  (!is->disaggregated || is->prefill_replicas == WL_AUTO) &&
		  serve_arrival(is) == SIM_ARRIVAL_POISSON;
	/* the steps: each tp measured (presize), then each tp sized */
	steps = (size_t)ntp * (presize ? 2 : 1);
	if (presize) {
		/* size the tp that may need the fewest GPUs first; the rest
		   only while they may need fewer than the best so far */
		for (int i = 0; i < ntp; i++) {
			progress_hook_call(hook, done++, steps,
					   "measuring capacity");
			cand = *p;
			cand.out_of_memory = false;
			cand.capacity_hint_qps = known_capacity(is, tps[i]);
			least[i] = plan_tp(wl, &cand, tps[i], 0) == 0 &&
						   cand.pruned ?
					   cand.gpus_total :
					   INT_MAX;
			cap[i] = cand.pruned ? cand.fleet.capacity_qps : 0.0;
			if (tp_slot(tps[i]) >= 0 && cap[i] > 0.0)
				known[tp_slot(tps[i])] = cap[i];
			if (cand.out_of_memory)
				return diag_set_kind(err, DIAG_NOMEM, NULL, 0, 0,
						     "out of memory");
		}
		for (int i = 1; i < ntp; i++)
			for (int j = i; j > 0 && least[j] < least[j - 1]; j--) {
				int t = tps[j], l = least[j];
				double c = cap[j];

				tps[j] = tps[j - 1];
				least[j] = least[j - 1];
				cap[j] = cap[j - 1];
				tps[j - 1] = t;
				least[j - 1] = l;
				cap[j - 1] = c;
			}
	}
	for (int i = 0; i < ntp; i++) {
		int bound = have && best.fits && best.meets_slo &&
					    best.gpus_total < bound0 ?
				    best.gpus_total :
				    bound0;

		progress_hook_call(hook, done++, steps,
				   serve_has_load(is) ? "sizing replicas" :
							"planning");
		cand = *p;
		cand.capacity_hint_qps = cap[i];
		if (!(cand.capacity_hint_qps > 0.0))
			cand.capacity_hint_qps = known_capacity(is, tps[i]);
		if (!(cand.capacity_hint_qps > 0.0))
			cand.capacity_hint_qps = is->capacity_hint_qps;
		cand.out_of_memory = false;
		if (plan_tp(wl, &cand, tps[i], bound) != 0)
			continue;
		if (cand.out_of_memory)
			return diag_set_kind(err, DIAG_NOMEM, NULL, 0, 0,
					     "out of memory");
		if ((cand.simulated || cand.pruned) && !cand.fleet.disagg &&
		    tp_slot(tps[i]) >= 0 && cand.fleet.capacity_qps > 0.0)
			known[tp_slot(tps[i])] = cand.fleet.capacity_qps;
		/* sized, or stopped at its limit (pruned after the input's
		   edge was set: it holds it, or what the stop learnt) */
		if ((cand.simulated || cand.pruned) && !cand.fleet.disagg &&
		    tp_slot(tps[i]) >= 0)
			shares[tp_slot(tps[i])] = cand.fleet.share;
		if (cand.pruned && have)
			continue;
		if (!have || better(&cand, &best)) {
			best = cand;
			have = true;
		}
	}
	if (!have && want_tp != WL_AUTO) {
		/* a fixed tp that is not a power of two */
		cand = *p;
		if (p->arch.heads % want_tp == 0 &&
		    (p->arch.kv_heads % want_tp == 0 ||
		     want_tp % p->arch.kv_heads == 0) &&
		    plan_tp(wl, &cand, want_tp, bound0) == 0) {
			if (cand.out_of_memory)
				return diag_set_kind(err, DIAG_NOMEM, NULL, 0, 0,
						     "out of memory");
			best = cand;
			have = true;
		}
	}
	if (!have)
		return diag_set(err, wl->file, 0, 0,
				"no tensor-parallel size serves this model on "
				"%s (tp must divide heads %d, fit a node of "
				"%d, and the device must run %s)", g->name,
				p->arch.heads, p->cluster.gpus_per_node,
				precision_name(is->weight_precision));
	*p = best;
	memcpy(p->capacity_by_tp_qps, known, sizeof(known));
	memcpy(p->share_by_tp, shares, sizeof(shares));
	return 0;
}

int infer_plan_capacity(const struct workload *wl, const struct gpu_spec *g,
			int tp, struct infer_plan *p, struct diag *err)
{
	struct workload w = *wl;
	struct infer_step_model step;

	/* the plan of one replica: no load, so that nothing is sized */
	w.inference.tp = tp;
	w.inference.qps = 0.0;
	w.inference.arrival = WL_AUTO_NEG;
	w.inference.concurrency = 0;
	w.inference.trace[0] = '\0';
	w.inference.trace_requests = NULL;
	w.inference.trace_len = 0;
	w.inference.replicas = WL_AUTO;
	if (infer_plan_make(&w, g, p, err) != 0)
		return -1;
	if (!p->fits || !p->meets_slo)
		return 0;
	/* as plan_load measures it */
	if (infer_step_model_init(&step, &p->arch, &p->config, p->gpu,
				  &p->cluster,
				  wl->inference.kernel_overhead_s) != 0)
		return diag_set(err, wl->file, 0, 0,
				"no step model for %s at tp %d", g->name, tp);
	infer_step_model_clock(&step, p->result.clock_fraction);
	if (serve_fleet_init(wl, &p->arch, &p->config, p->gpu, &p->fleet,
			     err) != 0 ||
	    serve_fleet_capacity(&p->fleet, &step, err) != 0)
		return -1;
	p->has_rate = wl->inference.qps > 0.0;
	return 0;
}

/* Devices a suggestion names at most. */
static const int suggest_devices_max = 3;

/*
 * Append "another device: A, B" to buf (whose first *len bytes are
 * written) for up to suggest_devices_max devices of 'all', other than
 * 'g', on which 'serves' holds, in catalog order.  Returns how many.
 */
static int append_devices(char *buf, size_t size, size_t *len,
			  const struct workload *wl, const struct gpu_spec *g,
			  const struct gpu_spec *const *all, int n,
			  bool (*serves)(const struct workload *,
					 const struct gpu_spec *))
{
	int shown = 0;

	for (int i = 0; i < n && shown < suggest_devices_max && *len < size;
	     i++) {
		if (all[i] == g || !serves(wl, all[i]))
			continue;
		*len += (size_t)snprintf(buf + *len, size - *len, "%s%s",
					 shown ? ", " :
					 (*len ? "; another device: " :
						 "another device: "),
					 all[i]->name);
		shown++;
	}
	return shown;
}

/* Whether the transformer plan of 'wl' on 'g' fits and meets the SLO. */
static bool plan_serves(const struct workload *wl, const struct gpu_spec *g)
{
	struct infer_plan p;

	return infer_plan_make(wl, g, &p, NULL) == 0 && p.fits && p.meets_slo;
}

int infer_plan_suggest(const struct workload *wl, const struct gpu_spec *g,
		       const struct gpu_spec *const *all, int n, char *buf,
		       size_t size)
{
	static const enum precision lower[] = { PREC_FP8, PREC_INT8,
						PREC_FP4, PREC_INT4 };
	struct workload w;
	struct infer_plan p;
	size_t len = 0;
	int found = 0;

	if (size == 0)
		return -1;
	buf[0] = '\0';
	/* a fixed fleet: more replicas of the same replica */
	if (wl->inference.replicas != WL_AUTO && serve_has_load(&wl->inference)) {
		w = *wl;
		w.inference.replicas = WL_AUTO;
		if (infer_plan_make(&w, g, &p, NULL) == 0 && p.fits &&
		    p.meets_slo && p.replicas > wl->inference.replicas) {
			len += (size_t)snprintf(buf + len, size - len,
						"inference.replicas=%d "
						"(with tp=%d)", p.replicas,
						p.config.tp);
			found++;
		}
	}
	/* a fixed disaggregated fleet: the pools sized */
	if (wl->inference.disaggregated &&
	    wl->inference.prefill_replicas != WL_AUTO) {
		w = *wl;
		w.inference.prefill_replicas = WL_AUTO;
		w.inference.decode_replicas = WL_AUTO;
		if (infer_plan_make(&w, g, &p, NULL) == 0 && p.fits &&
		    p.meets_slo) {
			len += (size_t)snprintf(buf + len, size - len,
						"inference.prefill_replicas=%d "
						"inference.decode_replicas=%d "
						"(with prefill_tp=%d, "
						"decode_tp=%d)",
						p.fleet.prefill_replicas,
						p.fleet.decode_replicas,
						p.prefill_tp, p.decode_tp);
			found++;
		}
	}
	/* a larger tp */
	if (wl->inference.tp != WL_AUTO && len < size) {
		w = *wl;
		w.inference.tp = WL_AUTO;
		if (infer_plan_make(&w, g, &p, NULL) == 0 && p.fits &&
		    p.meets_slo) {
			len += (size_t)snprintf(buf + len, size - len,
						"%sinference.tp=%d",
						len ? "; " : "", p.config.tp);
			found++;
		}
	}
	/* a lower weight precision the device runs */
	for (size_t i = 0; i < sizeof(lower) / sizeof(lower[0]); i++) {
		if (precision_bytes(lower[i]) >=
		    precision_bytes(wl->inference.weight_precision))
			continue;
		/* fp4 only on fp4 tensor cores */
		if (lower[i] == PREC_FP4 &&
		    device_math_precision(g, PREC_FP4) != PREC_FP4)
			continue;
		w = *wl;
		w.inference.weight_precision = lower[i];
		if (precision_bytes(w.inference.kv_precision) >
		    precision_bytes(PREC_FP8) && lower[i] == PREC_FP8)
			w.inference.kv_precision = PREC_FP8;
		if (infer_plan_make(&w, g, &p, NULL) == 0 && p.fits &&
		    p.meets_slo && len < size) {
			len += (size_t)snprintf(buf + len, size - len,
						"%sinference.weight_precision=%s "
						"(with tp=%d)", len ? "; " : "",
						precision_name(lower[i]),
						p.config.tp);
			found++;
			break;
		}
	}
	found += append_devices(buf, size, &len, wl, g, all, n, plan_serves);
	if (!found) {
		snprintf(buf, size, "no larger tp, lower precision or other "
				    "device meets it");
		return -1;
	}
	return 0;
}

/* Samples per batch when [inference] batch is left open. */
static const int sample_default_batch = 256;

struct serve_costs sample_serve_costs(const struct workload *wl)
{
	const struct inference_spec *is = &wl->inference;
	struct serve_costs sc;

	/* auto: a recommender's served pass replays a CUDA graph
	   (DeepLearningExamples' DLRM inference, HugeCTR's), and so does a
	   network an inference engine fuses; an eager framework issues
	   every kernel from the host */
	sc.cuda_graphs = is->cuda_graphs >= 0 ? is->cuda_graphs == 1 :
			 wl->model.kind == MODEL_RECSYS || is->fusion;
	sc.framework_s = is->framework_overhead_s;
	sc.launch_s = is->launch_overhead_s;
	sc.fusion = is->fusion;
	sc.request_s = is->request_overhead_s >= 0.0 ?
			       is->request_overhead_s :
			       is->server == SERVER_TRITON ?
			       WL_TRITON_REQUEST_S :
			       0.0;
	return sc;
}

int sample_serve_plan_make(const struct workload *wl, const struct gpu_spec *g,
			   struct sample_serve_plan *p, struct diag *err)
{
	const struct inference_spec *is = &wl->inference;
	double facility, frac = slo_fraction(is->percentile);
	struct serve_costs sc;
	bool found = false;

	memset(p, 0, sizeof(*p));
	p->gpu = g;
	if (cluster_resolve(&wl->cluster, g, &p->cluster, err) != 0)
		return -1;
	p->batch = is->batch != WL_AUTO ? is->batch : sample_default_batch;
	p->has_rate = is->qps > 0.0;
	sc = sample_serve_costs(wl);
	/* the fewest GPUs per replica that hold the model (tables) in HBM;
	   when none does, the fewest that hold it with the rest of the
	   tables in host memory or on SSD behind an HBM cache */
	for (int pass = 0; pass < 2 && !found; pass++) {
		for (int tp = 1; tp > 0 && tp <= p->cluster.gpus_per_node;
		     tp = ck_doubled_within(tp, p->cluster.gpus_per_node)) {
			if (is->tp != WL_AUTO && tp != is->tp)
				continue;
			p->tp = tp;
			if (sample_infer_eval_costs(&wl->model, tp, p->batch,
						    is->weight_precision, &sc,
						    g, &p->cluster,
						    &p->result) != 0)
				return diag_set(
					err, NULL, 0, 0,
					"'%s' has no math for %s or wider",
					g->name,
					precision_name(is->weight_precision));
			if (p->result.fits &&
			    (pass == 1 ||
			     p->result.place.tier == RECSYS_TIER_HBM)) {
				found = true;
				break;
			}
		}
	}
	if (p->tp == 0)
		return diag_set(err, wl->file, 0, 0,
				"'inference.tp' (%d) must be a power of two "
				"within a node of %d", is->tp,
				p->cluster.gpus_per_node);
	p->meets_slo = p->result.fits;
	p->latency_p_s = p->result.latency_s;
	if (!p->result.fits)
		snprintf(p->why, sizeof(p->why),
			 "the model needs %s GB per GPU of %s GB",
			 n3(p->result.memory_total_bytes / 1e9).s,
			 n3(g->mem_bytes / 1e9).s);
	else if (is->ttft_slo_s > 0.0 && p->result.latency_s > is->ttft_slo_s) {
		p->meets_slo = false;
		snprintf(p->why, sizeof(p->why),
			 "a batch of %d takes %s ms, over the %s ms "
			 "latency SLO", p->batch, n3(1e3 * p->result.latency_s).s,
			 n3(1e3 * is->ttft_slo_s).s);
	}
	p->replicas = 1;
	if (p->has_rate && p->meets_slo) {
		/* batches arrive at qps / batch; each replica runs one at a
		   time for the batch latency (M/M/c over replicas) */
		double rate = is->qps / p->batch, service = p->result.latency_s;
		int n = fewest_replicas(1.0, rate, service, service,
					is->ttft_slo_s, frac, &p->latency_p_s);

		if (n == 0) {
			p->meets_slo = false;
			snprintf(p->why, sizeof(p->why),
				 "no number of replicas serves %s samples/s "
				 "within the SLO", n3(is->qps).s);
		} else {
			p->replicas = n;
			p->utilization = rate * service / n;
		}
	}
	p->gpus_total = fleet_gpus(p->replicas, p->tp, 1, &p->meets_slo,
				   p->why, sizeof(p->why));
	facility = p->result.gpu_power_w * p->tp *
		   (1.0 + p->cluster.host_overhead) * p->cluster.pue;
	p->energy_j_per_sample = facility / p->result.throughput_per_s;
	p->cost_usd_per_million_samples =
		p->has_rate && p->utilization > 0.0 ?
			p->gpus_total * p->cluster.price_usd_per_gpu_hour /
				(is->qps * seconds_per_hour) * 1e6 :
			p->tp * p->cluster.price_usd_per_gpu_hour /
				(p->result.throughput_per_s * seconds_per_hour) *
				1e6;
	p->cost_usd_per_month = p->gpus_total *
				p->cluster.price_usd_per_gpu_hour *
				ENERGY_HOURS_PER_MONTH;
	return 0;
}

/* Whether the per-sample plan of 'wl' on 'g' fits and meets the SLO. */
static bool sample_serves(const struct workload *wl, const struct gpu_spec *g)
{
	struct sample_serve_plan p;

	return sample_serve_plan_make(wl, g, &p, NULL) == 0 && p.result.fits &&
	       p.meets_slo;
}

int sample_serve_suggest(const struct workload *wl, const struct gpu_spec *g,
			 const struct gpu_spec *const *all, int n, char *buf,
			 size_t size)
{
	struct sample_serve_plan p;
	struct workload w = *wl;
	size_t len = 0;
	int found = 0;
	int batch = sample_serve_plan_make(wl, g, &p, NULL) == 0 ? p.batch : 0;

	if (size == 0)
		return -1;
	buf[0] = '\0';
	/* a smaller batch: latency falls with it, but so does the rate a
	   replica serves; bisect the largest one that meets the SLO */
	if (batch > 1) {
		int lo = 0, hi = batch; /* lo meets (0: none known), hi not */

		for (int b = batch / 2; b >= 1 && lo == 0; b /= 2) {
			w.inference.batch = b;
			if (sample_serves(&w, g))
				lo = b;
			else
				hi = b;
		}
		while (lo > 0 && hi - lo > 1) {
			int mid = lo + (hi - lo) / 2;

			w.inference.batch = mid;
			if (sample_serves(&w, g))
				lo = mid;
			else
				hi = mid;
		}
		if (lo > 0) {
			len += (size_t)snprintf(buf + len, size - len,
						"inference.batch=%d", lo);
			found++;
		}
		w.inference.batch = wl->inference.batch;
	}
	/* more GPUs per replica: the batch split over more of them */
	{
		struct cluster cl;

		(void)cluster_resolve(&wl->cluster, g, &cl, NULL); /* node */
		for (int tp = 2; tp > 0 && tp <= cl.gpus_per_node && len < size;
		     tp = ck_doubled_within(tp, cl.gpus_per_node)) {
			if (wl->inference.tp != WL_AUTO &&
			    tp <= wl->inference.tp)
				continue;
			w.inference.tp = tp;
			if (sample_serves(&w, g)) {
				len += (size_t)snprintf(buf + len, size - len,
							"%sinference.tp=%d",
							len ? "; " : "", tp);
				found++;
				break;
			}
		}
		w.inference.tp = wl->inference.tp;
	}
	found += append_devices(buf, size, &len, wl, g, all, n, sample_serves);
	if (!found) {
		snprintf(buf, size, "no smaller batch, larger tp or other "
				    "device meets it");
		return -1;
	}
	return 0;
}
