/* mix_plan.c - sizing a mixed serving fleet; see mix_plan.h and
   specs/models.md 10.9.22. */
#include "mix_plan.h"
#include "mix_plan_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "cluster.h"
#include "infer_plan.h"
#include "model_flops.h"
#include "serve_fleet.h"
#include "serve_load.h"

/* A Poisson load is drawn for this long at its rate (within
   MIX_REQUESTS_MIN and MIX_REQUESTS_MAX requests), and for at most
   mix_tokens_max output tokens in all (serve_fleet.c bounds its own runs
   by 16 million decoded tokens the same way). */
static const double mix_horizon_s = 120.0;
static const double mix_tokens_max = 16e6;
static const int mix_requests_floor = 1000;

/* The program's search stops here and keeps the best fleet it found. */
static const double mix_time_limit_s = 10.0;


/* The rate one replica sustains within the targets is searched as a
   share of its saturated capacity: this share first (most loads meet
   their targets near saturation), then halving down to the lowest
   share, then bisection steps between the last share that missed and
   the first that met. */
static const double mix_share_first = 0.95;
static const double mix_share_min = 0.125;
static const int mix_share_steps = 3;


static double price_of(const struct workload *wl, const struct gpu_spec *g)
{
	struct cluster cl;

	if (cluster_resolve(&wl->cluster, g, &cl, NULL) != 0)
		return 0.0;
	return cl.price_usd_per_gpu_hour;
}

/* The tensor-parallel sizes a replica of 'g' may take: the workload's,
   or the powers of two within a node that split the heads (as
   infer_plan_make tries them). */
static int tps_of(const struct workload *wl, const struct arch *a,
		  const struct gpu_spec *g, int *tps)
{
	struct cluster cl;
	int n = 0;

	if (wl->inference.tp != WL_AUTO) {
		tps[0] = wl->inference.tp;
		return 1;
	}
	if (cluster_resolve(&wl->cluster, g, &cl, NULL) != 0)
		return 0;
	for (int tp = 1; tp <= cl.gpus_per_node && n < MIX_TPS_MAX; tp *= 2) {
		if (a->heads % tp != 0 ||
		    (a->kv_heads % tp != 0 && tp % a->kv_heads != 0))
			continue;
		tps[n++] = tp;
	}
	return n;
}

/* Draw the Poisson load of 'wl' at 'qps' as requests: exponential gaps
   at that rate, lengths as the simulator draws them (serve_load.h). */
static int draw_requests(struct mix_plan *m, double qps, struct diag *err)
{
	const struct inference_spec *is = &m->wl->inference;
	struct sim_load l;
	struct sim_lengths lg;
	gsl_rng *rng;
	double n, t = 0.0;

	if (is->requests != WL_AUTO) {
		n = is->requests;
	} else {
		n = fmin(fmax(qps * mix_horizon_s, MIX_REQUESTS_MIN),
			 MIX_REQUESTS_MAX);
		n = fmax(fmin(n, mix_tokens_max / fmax(1.0, is->output_tokens)),
			 mix_requests_floor);
	}
	free(m->own);
	m->nreq = (size_t)n;
	m->own = calloc(m->nreq, sizeof(*m->own));
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (!m->own || !rng) {
		gsl_rng_free(rng);
		return diag_set_kind(err, DIAG_NOMEM, NULL, 0, 0,
				     "out of memory");
	}
	gsl_rng_set(rng, (unsigned long)is->seed);
	memset(&l, 0, sizeof(l));
	l.length_dist = (enum sim_length_dist)is->length_dist;
	l.prompt_tokens_mean = is->prompt_tokens;
	l.output_tokens_mean = is->output_tokens;
	l.max_context_tokens = m->arch.seq_len;
	sim_lengths_init(&lg, &l);
	for (size_t i = 0; i < m->nreq; i++) {
		t += gsl_ran_exponential(rng, 1.0 / qps);
		m->own[i].arrival_s = t;
		(void)sim_lengths_draw(&lg, rng, &m->own[i]);
	}
	gsl_rng_free(rng);
	m->req = m->own;
	m->rate_per_s = qps;
	m->output_mean = is->output_tokens;
	return 0;
}

/* The trace's requests and their rate: requests over the time from the
   first arrival to the last; at a 'scale' other than 1, a copy whose
   requests arrive that many times as fast (their gaps divided by it). */
static int trace_requests(struct mix_plan *m, double scale, struct diag *err)
{
	const struct inference_spec *is = &m->wl->inference;
	double span, t0, out = 0.0;

	m->req = is->trace_requests;
	m->nreq = is->trace_len;
	if (!m->req || m->nreq < 2)
		return diag_set(err, m->wl->file, 0, 0,
				"--mixed needs a trace of at least two "
				"requests");
	span = m->req[m->nreq - 1].arrival_s - m->req[0].arrival_s;
	if (!(span > 0.0))
		return diag_set(err, m->wl->file, 0, 0,
				"--mixed needs a trace whose requests arrive "
				"over time: all %zu arrive at once", m->nreq);
	for (size_t i = 0; i < m->nreq; i++)
		out += m->req[i].output_tokens;
	m->output_mean = out / (double)m->nreq;
	m->rate_per_s = scale * (double)m->nreq / span;
	if (scale == 1.0)
		return 0;
	free(m->own);
	m->own = malloc(m->nreq * sizeof(*m->own));
	if (!m->own)
		return diag_set_kind(err, DIAG_NOMEM, NULL, 0, 0,
				     "out of memory");
	t0 = m->req[0].arrival_s;
	for (size_t i = 0; i < m->nreq; i++) {
		m->own[i] = m->req[i];
		m->own[i].arrival_s = t0 + (m->req[i].arrival_s - t0) / scale;
	}
	m->req = m->own;
	return 0;
}

/* What mixed fleets do not plan yet, or a load that has no rate. */
static int check_load(const struct workload *wl, struct diag *err)
{
	const struct inference_spec *is = &wl->inference;
	int arrival = serve_arrival(is);

	if (arrival != SIM_ARRIVAL_POISSON && arrival != SIM_ARRIVAL_TRACE)
		return diag_set(err, wl->file, 0, 0,
				"--mixed needs a request rate: give "
				"'inference.qps' or 'inference.trace'%s",
				arrival < 0 ? "" :
					      " (a closed loop or a burst "
					      "has no rate to share out)");
	if (is->turns > 1)
		return diag_set(err, wl->file, 0, 0,
				"--mixed routes single requests by length; "
				"sessions ('inference.turns' %d) are not "
				"planned yet", is->turns);
	if (is->shared_prefix_tokens > 0 && arrival == SIM_ARRIVAL_POISSON)
		return diag_set(err, wl->file, 0, 0,
				"--mixed does not plan a shared prefix "
				"('inference.shared_prefix_tokens') yet");
	return 0;
}

/*
 * The rarest buckets whose shares add up to at most 1 - p of the requests
 * (1% at p99): all their requests may miss the targets and the load's
 * percentile still meets them, so they are measured without the targets
 * (a bucket of a few very long prompts would otherwise find no device
 * whose replicas meet the targets on it alone).
 */
static void mark_rare(struct mix_plan *m)
{
	double left = 1.0 - slo_fraction(m->wl->inference.percentile);

	memset(m->rare, 0, sizeof(m->rare));
	for (;;) {
		int pick = -1;

		for (int b = 0; b < m->nb; b++)
			if (!m->rare[b] &&
			    (pick < 0 ||
			     m->buckets[b].share < m->buckets[pick].share))
				pick = b;
		if (pick < 0 || m->buckets[pick].share > left + 1e-12)
			return;
		left -= m->buckets[pick].share;
		m->rare[pick] = true;
	}
}

/* The requests of the load at 'scale' times its rate, their buckets and
   routes' room. */
static int load_at(struct mix_plan *m, double scale, struct diag *err)
{
	int *dense, *route;

	if ((serve_arrival(&m->wl->inference) == SIM_ARRIVAL_TRACE ?
		     trace_requests(m, scale, err) :
		     draw_requests(m, scale * m->wl->inference.qps, err)) != 0)
		return -1;
	m->scale = scale;
	dense = realloc(m->dense, m->nreq * sizeof(*m->dense));
	if (dense)
		m->dense = dense;
	route = realloc(m->route, m->nreq * sizeof(*m->route));
	if (route)
		m->route = route;
	if (!dense || !route)
		return diag_set_kind(err, DIAG_NOMEM, NULL, 0, 0,
				     "out of memory");
	m->nb = mix_buckets_make(m->req, m->nreq, m->rate_per_s, m->buckets,
				 m->dense);
	mark_rare(m);
	return 0;
}

int mix_plan_new(const struct workload *wl, const struct gpu_spec *const *gpus,
		 int n, struct mix_plan **out, struct diag *err)
{
	struct mix_plan *m;
	int tps[MIX_TPS_MAX];
	int ep = wl->inference.ep != WL_AUTO && wl->inference.ep > 1 ?
			 wl->inference.ep :
			 1;

	*out = NULL;
	if (n < 2)
		return diag_set(err, NULL, 0, 0,
				"--mixed needs at least two devices in --gpu, "
				"got %d", n);
	if (wl->model.kind != MODEL_TRANSFORMER)
		return diag_set(err, wl->file, 0, 0,
				"--mixed plans the serving of a transformer, "
				"not a per-sample model");
	if (check_load(wl, err) != 0)
		return -1;
	m = calloc(1, sizeof(*m));
	if (!m)
		return diag_set_kind(err, DIAG_NOMEM, NULL, 0, 0,
				     "out of memory");
	m->wl = wl;
	m->gpus = gpus;
	m->ngpus = n;
	if (arch_from_spec(&wl->model, &m->arch) != 0) {
		diag_set(err, wl->file, 0, 0,
			 "inference needs the architecture: give [model] "
			 "layers, hidden, heads, vocab and seq_len");
		goto fail;
	}
	if (load_at(m, 1.0, err) != 0)
		goto fail;
	m->opt_first = calloc((size_t)n + 1, sizeof(*m->opt_first));
	if (!m->opt_first)
		goto nomem;

	for (int d = 0; d < n; d++)
		m->no += tps_of(wl, &m->arch, gpus[d], tps);
	if (m->no < 1 || m->no > MIX_OPTIONS_MAX) {
		diag_set(err, wl->file, 0, 0,
			 "--mixed plans 1 to %d devices and tensor-parallel "
			 "sizes, got %d", MIX_OPTIONS_MAX, m->no);
		goto fail;
	}
	m->opt_gpu = calloc((size_t)m->no, sizeof(*m->opt_gpu));
	m->opt_tp = calloc((size_t)m->no, sizeof(*m->opt_tp));
	m->opt_price = calloc((size_t)m->no, sizeof(*m->opt_price));
	m->opt_w = calloc((size_t)m->no, sizeof(*m->opt_w));
	m->opt_gpus = calloc((size_t)m->no, sizeof(*m->opt_gpus));
	m->replicas = calloc((size_t)m->no, sizeof(*m->replicas));
	m->cap = calloc((size_t)m->no * MIX_BUCKETS, sizeof(*m->cap));
	m->capsat = calloc((size_t)m->no * MIX_BUCKETS, sizeof(*m->capsat));
	m->slices = calloc((size_t)m->no * MIX_BUCKETS, sizeof(*m->slices));
	m->why = calloc((size_t)n * MIX_BUCKETS, sizeof(*m->why));
	if (!m->opt_gpu || !m->opt_tp || !m->opt_price || !m->opt_w ||
	    !m->opt_gpus || !m->replicas || !m->cap || !m->capsat ||
	    !m->slices || !m->why)
		goto nomem;
	for (int d = 0, o = 0; d < n; d++) {
		int k = tps_of(wl, &m->arch, gpus[d], tps);
		double price = price_of(wl, gpus[d]);
		struct cluster cl;
		bool resolved = cluster_resolve(&wl->cluster, gpus[d], &cl,
						NULL) == 0;

		if (k > 0 && !(price > 0.0)) {
			diag_set(err, wl->file, 0, 0,
				 "'%s' has no price per GPU-hour: a mixed "
				 "fleet is chosen by its cost", gpus[d]->name);
			goto fail;
		}
		m->opt_first[d] = o;
		for (int i = 0; i < k; i++, o++) {
			m->opt_gpu[o] = d;
			m->opt_tp[o] = tps[i];
			m->opt_gpus[o] = tps[i] * ep;
			m->opt_price[o] = price * tps[i] * ep;
			m->opt_w[o] = resolved ?
					      infer_replica_w(
						      gpus[d], &cl,
						      wl->inference.power_cap_w,
						      tps[i] * ep) :
					      0.0;
		}
		if (k == 0)
			snprintf(m->why[(size_t)d * m->nb], MIX_WHY_MAX,
				 "no tensor-parallel size splits its heads "
				 "within a node");
	}
	m->opt_first[n] = m->no;
	*out = m;
	return 0;
nomem:
	diag_set_kind(err, DIAG_NOMEM, NULL, 0, 0, "out of memory");
fail:
	mix_plan_free(m);
	return -1;
}

void mix_plan_free(struct mix_plan *m)
{
	if (!m)
		return;
	free(m->result.pools);
	free(m->route);
	free(m->slices);
	free(m->replicas);
	free(m->why);
	free(m->capsat);
	free(m->cap);
	free(m->opt_gpus);
	free(m->opt_w);
	free(m->opt_price);
	free(m->opt_tp);
	free(m->opt_gpu);
	free(m->opt_first);
	free(m->dense);
	free(m->own);
	free(m);
}

double mix_plan_rate(const struct mix_plan *m)
{
	return m->rate_per_s;
}

int mix_plan_bucket_count(const struct mix_plan *m)
{
	return m->nb;
}

const struct mix_bucket *mix_plan_bucket(const struct mix_plan *m, int b)
{
	return b >= 0 && b < m->nb ? &m->buckets[b] : NULL;
}

int mix_plan_measure_count(const struct mix_plan *m)
{
	return m->ngpus * m->nb;
}

/* The workload of one replica's measurement on bucket 'b': its mean
   lengths, fixed, at its rate. */
static void bucket_workload(const struct mix_plan *m,
			    const struct mix_bucket *b, struct workload *w)
{
	struct inference_spec *is = &w->inference;

	*w = *m->wl;
	is->prompt_tokens = (int)fmax(1.0, round(b->prompt_mean));
	is->output_tokens = (int)fmax(1.0, round(b->output_mean));
	is->length_dist = SIM_LEN_FIXED;
	is->arrival = SIM_ARRIVAL_POISSON;
	is->qps = b->rate_per_s;
	is->concurrency = 0;
	is->trace[0] = '\0';
	is->trace_requests = NULL;
	is->trace_len = 0;
	is->replicas = WL_AUTO;
	is->requests = WL_AUTO;
	is->disaggregated = false;
	is->capacity_hint_qps = 0.0;
}

/*
 * Do 'n' replicas of 'g' at 'tp' meet the targets of 'w' (its bucket,
 * fixed lengths) under a Poisson rate of 'share' of their saturated
 * capacity, n x 'cap'?  Returns 1 or 0, or -1 when out of memory.
 */
static int fleet_meets(const struct workload *w, const struct gpu_spec *g,
		       int tp, int n, double cap, double share,
		       struct diag *err)
{
	struct workload x = *w;
	struct infer_plan *p = malloc(sizeof(*p));
	struct diag e;
	int rc;

	if (!p)
		return diag_set_kind(err, DIAG_NOMEM, NULL, 0, 0,
				     "out of memory");
	x.inference.tp = tp;
	x.inference.replicas = n;
	x.inference.qps = share * n * cap;
	x.inference.capacity_hint_qps = cap;
	diag_clear(&e);
	if (infer_plan_make(&x, g, p, &e) != 0)
		rc = e.kind == DIAG_NOMEM ? -1 : 0;
	else if (p->out_of_memory)
		rc = -1;
	else
		rc = p->fits && p->meets_slo && p->simulated;
	free(p);
	if (rc < 0)
		diag_set_kind(err, DIAG_NOMEM, NULL, 0, 0, "out of memory");
	return rc;
}

/*
 * The most requests/s a replica serves within the targets on a bucket
 * (Melange's "maximum throughput" of a device under the SLO): measured
 * on the fleet the bucket alone would take at saturation, n =
 * ceil(rate / cap) replicas (at least one), so that the queueing such a
 * fleet pools counts, as the share of their saturated capacity 'cap'
 * that mix_share_first, halving and bisection find; 0 when even
 * mix_share_min of it misses.  Returns 0, or -1 when out of memory.
 */
static int slo_rate(const struct workload *w, const struct gpu_spec *g,
		    int tp, double cap, double *rate, struct diag *err)
{
	double lo = 0.0, hi = mix_share_first, s = mix_share_first;
	double k = ceil(w->inference.qps / cap);
	int n = k < 1.0 ? 1 : k > mix_pool_replicas_max ?
				   mix_pool_replicas_max :
				   (int)k;
	int ok;

	*rate = 0.0;
	ok = fleet_meets(w, g, tp, n, cap, s, err);
	if (ok < 0)
		return -1;
	if (ok) {
		*rate = s * cap;
		return 0;
	}
	for (s = 0.5; s >= mix_share_min; s *= 0.5) {
		ok = fleet_meets(w, g, tp, n, cap, s, err);
		if (ok < 0)
			return -1;
		if (ok) {
			lo = s;
			break;
		}
		hi = s;
	}
	if (lo <= 0.0)
		return 0;
	for (int i = 0; i < mix_share_steps; i++) {
		s = 0.5 * (lo + hi);
		ok = fleet_meets(w, g, tp, n, cap, s, err);
		if (ok < 0)
			return -1;
		if (ok)
			lo = s;
		else
			hi = s;
	}
	*rate = lo * cap;
	return 0;
}

int mix_plan_measure(struct mix_plan *m, int u, struct diag *err)
{
	int d = u / m->nb, b = u % m->nb;
	const struct mix_bucket *bk = &m->buckets[b];
	const struct gpu_spec *g = m->gpus[d];
	char *why = m->why[(size_t)d * m->nb + b];
	double best = HUGE_VAL;
	struct workload w;

	bucket_workload(m, bk, &w);
	if (m->rare[b]) {
		w.inference.ttft_slo_s = 0.0;
		w.inference.tpot_slo_s = 0.0;
	}
	for (int o = m->opt_first[d]; o < m->opt_first[d + 1]; o++) {
		struct infer_plan p;
		struct diag e;
		double blocks, per, rate;

		diag_clear(&e);
		if (infer_plan_capacity(&w, g, m->opt_tp[o], &p, &e) != 0) {
			if (e.kind == DIAG_NOMEM) {
				*err = e;
				return -1;
			}
			snprintf(why, MIX_WHY_MAX, "at tp %d: %.*s",
				 m->opt_tp[o], MIX_WHY_MAX - 16, e.msg);
			continue;
		}
		if (!p.fits || !p.meets_slo) {
			snprintf(why, MIX_WHY_MAX, "at tp %d: %.*s",
				 m->opt_tp[o], MIX_WHY_MAX - 16, p.why);
			continue;
		}
		blocks = ceil((double)bk->tokens_max /
			      p.fleet.engine.kv_block_tokens);
		if (blocks > p.fleet.engine.kv_blocks) {
			snprintf(why, MIX_WHY_MAX,
				 "at tp %d: its longest request (%d tokens) "
				 "needs more KV cache than a replica holds",
				 m->opt_tp[o], bk->tokens_max);
			continue;
		}
		if (!(p.fleet.capacity_qps > 0.0))
			continue;
		if (m->rare[b])
			rate = mix_share_first * p.fleet.capacity_qps;
		else if (slo_rate(&w, g, m->opt_tp[o], p.fleet.capacity_qps,
				  &rate, err) != 0)
			return -1;
		if (!(rate > 0.0)) {
			snprintf(why, MIX_WHY_MAX,
				 "at tp %d: its replicas miss the targets even "
				 "at %.3g of their capacity", m->opt_tp[o],
				 mix_share_min);
			continue;
		}
		m->capsat[(size_t)o * m->nb + b] = p.fleet.capacity_qps;
		m->cap[(size_t)o * m->nb + b] = rate;
		why[0] = '\0';
		/* a larger tp that costs more per request/s: the ones after
		   it are not measured */
		per = m->opt_price[o] / rate;
		if (per >= best)
			break;
		best = per;
	}
	return 0;
}

/* "2048-8191 prompt and 128-511 output tokens" */
static void bucket_text(const struct mix_bucket *b, char *buf, size_t size)
{
	int plo, phi, olo, ohi;

	mix_bucket_range(b->id, &plo, &phi, &olo, &ohi);
	if (phi)
		snprintf(buf, size, "%d-%d prompt ", plo, phi - 1);
	else
		snprintf(buf, size, "%d+ prompt ", plo);
	if (ohi)
		snprintf(buf + strlen(buf), size - strlen(buf),
			 "and %d-%d output tokens", olo, ohi - 1);
	else
		snprintf(buf + strlen(buf), size - strlen(buf),
			 "and %d+ output tokens", olo);
}

/* A bucket no option serves: why, each device's reason (at its largest
   tensor-parallel size tried) as far as the message holds them. */
static int unserved(const struct mix_plan *m, struct diag *err)
{
	for (int b = 0; b < m->nb; b++) {
		bool any = false;
		char text[96], why[320];
		size_t len = 0;

		for (int o = 0; o < m->no && !any; o++)
			any = m->cap[(size_t)o * m->nb + b] > 0.0;
		if (any)
			continue;
		why[0] = '\0';
		for (int d = 0; d < m->ngpus && len + 40 < sizeof(why); d++) {
			const char *w = m->why[(size_t)d * m->nb + b];
			int k = snprintf(why + len, sizeof(why) - len,
					 "%s%s %s", d ? "; " : "",
					 m->gpus[d]->name,
					 w[0] ? w : "has no capacity");

			len = k < 0 ? len : len + (size_t)k;
			if (len >= sizeof(why))
				len = sizeof(why) - 1;
		}
		bucket_text(&m->buckets[b], text, sizeof(text));
		return diag_set(err, NULL, 0, 0,
				"no device serves the requests of %s (%.3g%% "
				"of them): %s", text,
				100.0 * m->buckets[b].share, why);
	}
	return 0;
}

int mix_plan_solve(struct mix_plan *m, struct diag *err)
{
	return mix_plan_solve_for(m, MIX_CHEAPEST, err);
}

int mix_plan_solve_for(struct mix_plan *m, enum mix_objective objective,
		       struct diag *err)
{
	struct mix_result *r = &m->result;
	double rates[MIX_BUCKETS];
	struct mix_problem p;
	struct mix_solution s;
	int np = 0;

	if (unserved(m, err) != 0)
		return -1;
	for (int b = 0; b < m->nb; b++)
		rates[b] = m->buckets[b].rate_per_s;
	p = (struct mix_problem){
		.nb = m->nb,
		.no = m->no,
		.rate_per_s = rates,
		.price_per_h = m->opt_price,
		.cap_qps = m->cap,
		.slices = MIX_SLICES,
		.replicas_max = mix_pool_replicas_max,
		.time_limit_s = mix_time_limit_s,
		.power_w = m->opt_w,
		.min_power = objective == MIX_LEAST_POWER,
	};
	s = (struct mix_solution){ .replicas = m->replicas,
				   .slices = m->slices };
	if (mix_solve(&p, &s, err) != 0)
		return -1;
	if (mix_route(m->dense, m->nreq, m->slices, m->no, m->nb, m->route) !=
	    0)
		return diag_set_kind(err, DIAG_NOMEM, NULL, 0, 0,
				     "out of memory");
	for (int o = 0; o < m->no; o++)
		np += m->replicas[o] > 0;
	free(r->pools);
	memset(r, 0, sizeof(*r));
	r->pools = calloc((size_t)np, sizeof(*r->pools));
	if (!r->pools)
		return diag_set_kind(err, DIAG_NOMEM, NULL, 0, 0,
				     "out of memory");
	r->optimal = s.optimal;
	r->ip_cost_per_h = s.cost_per_h;
	r->ip_power_w = s.power_w;
	for (int o = 0; o < m->no; o++) {
		struct mix_pool *pl;
		double work = 0.0;

		if (m->replicas[o] <= 0)
			continue;
		pl = &r->pools[r->npools++];
		pl->gpu = m->gpus[m->opt_gpu[o]];
		pl->tp = m->opt_tp[o];
		pl->gpus_per_replica = m->opt_gpus[o];
		pl->price_per_h = m->opt_price[o];
		pl->replica_w = m->opt_w[o];
		pl->ip_replicas = pl->replicas = m->replicas[o];
		for (int b = 0; b < m->nb; b++) {
			size_t k = (size_t)o * m->nb + b;
			double rate = m->buckets[b].rate_per_s *
				      m->slices[k] / MIX_SLICES;

			if (m->slices[k] <= 0)
				continue;
			pl->buckets++;
			pl->rate_per_s += rate;
			work += rate / m->cap[k];
		}
		pl->capacity_qps = work > 0.0 ? pl->rate_per_s / work : 0.0;
		for (size_t i = 0; i < m->nreq; i++) {
			if (m->route[i] != o)
				continue;
			pl->requests++;
			pl->prompt_mean += m->req[i].prompt_tokens;
			pl->output_mean += m->req[i].output_tokens;
		}
		if (pl->requests) {
			pl->prompt_mean /= (double)pl->requests;
			pl->output_mean /= (double)pl->requests;
		}
	}
	return 0;
}

int mix_plan_scale(struct mix_plan *m, double scale, struct diag *err)
{
	size_t cells = (size_t)m->no * MIX_BUCKETS;

	if (!(scale > 0.0) || !isfinite(scale))
		return diag_set(err, NULL, 0, 0,
				"a load's scale must be positive, not %g",
				scale);
	if (load_at(m, scale, err) != 0)
		return -1;
	memset(m->cap, 0, cells * sizeof(*m->cap));
	memset(m->capsat, 0, cells * sizeof(*m->capsat));
	memset(m->slices, 0, cells * sizeof(*m->slices));
	memset(m->replicas, 0, (size_t)m->no * sizeof(*m->replicas));
	memset(m->why, 0, (size_t)m->ngpus * MIX_BUCKETS * sizeof(*m->why));
	for (int d = 0; d < m->ngpus; d++)
		for (int b = 0; b < m->nb &&
				m->opt_first[d] == m->opt_first[d + 1];
		     b++)
			snprintf(m->why[(size_t)d * m->nb + b], MIX_WHY_MAX,
				 "no tensor-parallel size splits its heads "
				 "within a node");
	free(m->result.pools);
	memset(&m->result, 0, sizeof(m->result));
	return 0;
}

double mix_plan_scale_of(const struct mix_plan *m)
{
	return m->scale;
}

double mix_plan_output_mean(const struct mix_plan *m)
{
	return m->output_mean;
}

double mix_plan_least_power(const struct mix_plan *m)
{
	double w = 0.0;

	for (int b = 0; b < m->nb; b++) {
		double least = HUGE_VAL;

		for (int o = 0; o < m->no; o++) {
			size_t k = (size_t)o * m->nb + b;

			if (m->cap[k] > 0.0 && m->capsat[k] > 0.0 &&
			    m->opt_w[o] > 0.0)
				least = fmin(least, m->opt_w[o] / m->capsat[k]);
		}
		w += m->buckets[b].rate_per_s * least;
	}
	return w;
}

int mix_plan_run(const struct workload *wl, const struct gpu_spec *const *gpus,
		 int n, struct mix_plan **out, struct diag *err)
{
	struct mix_plan *m;

	if (mix_plan_new(wl, gpus, n, &m, err) != 0)
		return -1;
	for (int u = 0; u < mix_plan_measure_count(m); u++)
		if (mix_plan_measure(m, u, err) != 0)
			goto fail;
	if (mix_plan_solve(m, err) != 0)
		goto fail;
	for (int i = 0; i < mix_plan_pool_count(m); i++)
		if (mix_plan_simulate(m, i, err) != 0)
			goto fail;
	(void)mix_plan_result(m);
	*out = m;
	return 0;
fail:
	mix_plan_free(m);
	return -1;
}
