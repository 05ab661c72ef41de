/* serve_fleet.c - replicas under load, by simulation; see serve_fleet.h
   and specs/models.md, section "Serving under load". */
#include "serve_fleet.h"
#include "engine_limits.h"
#include "model_comm.h"
#include "workload_keys.h"
#include "units.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Requests of the saturation run that measures capacity: this many per
   client, within these bounds. */
static const int capacity_requests_per_client = 8;
static const int capacity_requests_min = 1000;
static const int capacity_requests_max = 20000;

/* Work bounds of one simulation, so that long answers (thousands of
   tokens each) plan in seconds, not minutes: a saturation run holds at
   most about capacity_steps_max steps (its requests' tokens over the
   batch it keeps running), and a run under load, its length left to
   capplan, at most sim_tokens_max decoded tokens; neither goes below
   capacity_rounds_min rounds of its clients, or sim_requests_min
   requests.  At the workloads of specs/validation.md neither binds. */
static const double capacity_steps_max = 2e6;
static const double capacity_rounds_min = 3.0;
static const double sim_tokens_max = 16e6;
static const int sim_requests_min = 200;

/* The longest KV transfer of a mean prompt a disaggregated fleet is
   simulated with when no TTFT target bounds it: a minute, beyond any
   interactive first token (and a simulation of it would run for
   minutes). */
static const double kv_transfer_max_s = 60.0;

/* Warm-up and run lengths in fills of a replica (fill_s), the tail of
   lengths with one (in means), and the most requests a run grows to. */
static const double warmup_fills = 2.0;
static const double run_fills = 7.0;
static const double fill_tail_means = 5.0;
static const int fill_requests_max = 50000;
static const int fill_rounds = 4;

/* Largest fleet simulated whole under a trace (which cannot be scaled). */
static const int trace_replicas_max = 4096;

/* Most replicas of a disaggregated fleet (both pools) one simulation
   holds; larger fleets are simulated in part, as SERVE_SIM_REPLICAS_MAX
   for a colocated one. */
static const int disagg_sim_max = 64;

/* Sizing gives up when doubling the replicas twice in a row improves the
   missed percentile by less than this fraction: the target is below what
   an unloaded replica gives. */
static const double sizing_min_gain = 0.01;

/*
 * The floor of a sizing (floor_misses): once a fleet of
 * SERVE_SIM_REPLICAS_MAX replicas or more misses the targets by more
 * than floor_min_missed and growing it gained less than floor_gain on
 * the missed percentile, the same
 * simulation with each request alone on its replica tells whether any
 * number can meet them; only a miss by more than floor_margin ends the
 * sizing (a request alone is its fastest, but the runs at rates per
 * replica differ in their warm-up and length, so a floor at the target
 * is left to the sizing).
 */
static const double floor_gain = 0.05;
static const double floor_margin = 0.02;
/* ...and only when the fleet missed by more than this: a nearer miss
   more often has its floor under the target, and a run of lone requests
   costs as much as a fleet's at its floor, spent for nothing when it
   passes (the sizing then goes on as without it). */
static const double floor_min_missed = 1.1;
/* ...and only once the fleet is this many times the count the rate
   alone needs (its capacity bound): a fleet that serves its load is
   commonly 1.5-2.5 times that bound, and misses nearer it are the
   load's, not the floor's (the 70B example's replicas chart asked two
   floors at 1.2-1.3 times it, both passed). */
static const double floor_over_bound = 4.0;
/* A replica's rate in the floor's run, as a share of its capacity: its
   requests almost never meet one another. */
static const double floor_load = 1e-4;

/* The bisection of a sizing stops once the passing count is within this
   share of the failing one below it (and one replica at least): a fleet
   of hundreds of replicas is reported to 1% of its size, not to the
   replica (issue 43: 21 of the replicas chart's 816 simulations, its
   largest fleets', about 7% of its instructions). */
static const double sizing_rel_tolerance = 0.01;

/* The first step up from a learnt edge's count that missed the targets
   (share_bounds), a share of that count, doubling after each miss: the
   edge drifts by about this much from rate to rate (specs/models.md
   10.9.12, learnt edges). */
static const double share_step = 0.02;

int serve_arrival(const struct inference_spec *is)
{
	if (is->arrival != WL_AUTO_NEG)
		return is->arrival;
	if (is->trace[0] || is->trace_len > 0)
		return SIM_ARRIVAL_TRACE;
	if (is->concurrency > 0)
		return SIM_ARRIVAL_CLOSED;
	if (is->qps > 0.0)
		return SIM_ARRIVAL_POISSON;
	return -1;
}

bool serve_has_load(const struct inference_spec *is)
{
	return serve_arrival(is) >= 0;
}

static double pick(enum slo_percentile p, double p50, double p90,
		   double p99)
{
	return p == SLO_P50 ? p50 : p == SLO_P90 ? p90 : p99;
}

double serve_ttft_at(const struct sim_result *r, enum slo_percentile p)
{
	return pick(p, r->ttft_p50_s, r->ttft_p90_s, r->ttft_p99_s);
}

double serve_tpot_at(const struct sim_result *r, enum slo_percentile p)
{
	return pick(p, r->tpot_p50_s, r->tpot_p90_s, r->tpot_p99_s);
}

int serve_fleet_init(const struct workload *wl, const struct arch *a,
		     const struct infer_config *c, const struct gpu_spec *g,
		     struct serve_fleet *f, struct diag *err)
{
	const struct inference_spec *is = &wl->inference;
	struct sim_engine *e = &f->engine;
	struct sim_load *l = &f->load;
	struct infer_config cc = *c;
	struct engine_limits el;
	double tokens;

	memset(f, 0, sizeof(*f));
	/* the engine's limits on this device at this pool's tp */
	engine_limits_on(wl, g, c->tp, &el);
	cc.memory_fraction = el.memory_fraction;
	cc.memory_of_free = el.fraction_of_free;
	e->max_batch = el.max_batch != WL_AUTO ? el.max_batch : c->batch;
	if (e->max_batch < 1)
		e->max_batch = 1;
	e->chunked_prefill = is->chunked_prefill;
	/* the default step budget holds a decode token of every running
	   sequence: a max_batch above it raises it (issue 40: the default
	   was blamed for a max_batch the user gave) */
	e->max_batched_tokens = el.max_batched_tokens != WL_AUTO ?
					el.max_batched_tokens :
				e->chunked_prefill ?
					(e->max_batch > SERVE_CHUNK_TOKENS_DEFAULT ?
						 e->max_batch :
						 SERVE_CHUNK_TOKENS_DEFAULT) :
					SERVE_PREFILL_TOKENS_DEFAULT;
	e->kv_block_tokens = is->kv_block_tokens > 0 ? is->kv_block_tokens :
						       16;
	e->scheduler_steps = is->scheduler_steps > 0 ? is->scheduler_steps :
						       1;
	e->host_request_s = is->host_request_s;
	e->host_step_s = is->host_step_s;
	e->speculative_tokens = is->speculative_tokens;
	e->acceptance_rate = is->acceptance_rate;
	e->draft_cost_ratio = is->draft_cost_ratio;
	/* multi-token prediction: a draft token runs the model's MTP
	   modules, mtp_layers of its layers (specs/models.md 10.9.24) */
	if (is->speculative_method == WL_SPEC_MTP &&
	    !workload_key_given(wl, (size_t)wl_find_key_index(
					    "inference", "draft_cost_ratio")))
		e->draft_cost_ratio = fmin(1.0, (double)wl->model.mtp_layers /
							 a->layers);
	/* auto: the engine's (its stack row); capplan's own engine does
	   not cache */
	e->prefix_caching = is->prefix_caching == 1;
	if (e->chunked_prefill && e->max_batched_tokens < e->max_batch)
		/* every running sequence decodes a token of the budget
		   (vLLM refuses the same) */
		return diag_set(err, wl->file, 0, 0,
				"'inference.max_batched_tokens' (%d) must be at "
				"least the running sequences (max_batch %d) "
				"with chunked prefill", e->max_batched_tokens,
				e->max_batch);
	cc.batch = e->max_batch;
	tokens = infer_kv_capacity_tokens(a, &cc, g, e->max_batched_tokens);
	/* an engine whose cache holds a set number of tokens (llama.cpp's
	   n_ctx) holds no more, whatever memory is left */
	if (el.kv_cache_tokens != WL_AUTO && tokens > el.kv_cache_tokens)
		tokens = el.kv_cache_tokens;
	e->kv_blocks = floor(tokens / e->kv_block_tokens);
	if (e->kv_blocks < 1.0)
		return diag_set(err, wl->file, 0, 0,
				"no memory is left for the KV cache on %s at "
				"tp %d: the weights and a step of %d tokens "
				"fill its %.3g GB", g->name, c->tp,
				e->max_batched_tokens, g->mem_bytes / 1e9);

	if (is->kv_offload_memory_bytes > 0.0 && e->prefix_caching) {
		double link = wl->cluster.host_link_bw_bytes_per_s > 0.0 ?
				      wl->cluster.host_link_bw_bytes_per_s :
				      g->host_link_bw_bytes_per_s;
		struct link hl;

		if (!(link > 0.0))
			return diag_set(err, wl->file, 0, 0,
					"'inference.kv_offload_memory' needs the "
					"host link's bandwidth: %s has none in "
					"the catalog; give '[cluster] "
					"host_link_bw'", g->name);
		hl = link_intra_node(link, false);
		e->offload_block_bytes = infer_kv_bytes_per_token_gpu(a, &cc) *
					 c->tp * e->kv_block_tokens;
		e->offload_blocks = floor(is->kv_offload_memory_bytes /
					  e->offload_block_bytes);
		/* each GPU of the replica copies its shard over its own link */
		e->offload_bw_bytes_per_s = hl.bw_bytes_per_s * c->tp;
		e->offload_latency_s = hl.latency_s;
	}
	if (is->kv_offload_storage_bytes > 0.0 && e->prefix_caching) {
		/* the node's drives shared by its GPUs, or the store's link
		   the workload gives (per replica) */
		double node = wl->cluster.ssd_bw_bytes_per_s > 0.0 ?
				      wl->cluster.ssd_bw_bytes_per_s :
				      WL_SSD_BW_BYTES_PER_S;
		int per_node = wl->cluster.gpus_per_node > 0 ?
				       wl->cluster.gpus_per_node :
				       g->gpus_per_node > 0 ? g->gpus_per_node :
							      1;

		e->offload_block_bytes = infer_kv_bytes_per_token_gpu(a, &cc) *
					 c->tp * e->kv_block_tokens;
		e->storage_blocks = floor(is->kv_offload_storage_bytes /
					  e->offload_block_bytes);
		e->storage_bw_bytes_per_s =
			is->kv_storage_bw_bytes_per_s > 0.0 ?
				is->kv_storage_bw_bytes_per_s :
				node * fmin(1.0, (double)c->tp / per_node);
	}

	l->arrival = (enum sim_arrival)serve_arrival(is);
	l->rate_per_s = is->qps;
	l->concurrency = is->concurrency;
	l->requests = is->requests;
	l->length_dist = (enum sim_length_dist)is->length_dist;
	l->prompt_tokens_mean = is->prompt_tokens;
	l->output_tokens_mean = is->output_tokens;
	l->max_context_tokens = a->seq_len;
	l->seed = (unsigned long)is->seed;
	l->turns = is->turns > 1 ? is->turns : 1;
	l->think_time_s = is->think_time_s;
	l->shared_prefix_tokens = is->shared_prefix_tokens;
	l->prefix_groups = is->prefix_groups;
	l->session_routing = is->routing == 1 ||
			     (is->routing == WL_AUTO_NEG && e->prefix_caching);
	l->turn_tokens_mean = is->turn_tokens != WL_AUTO ?
				      is->turn_tokens :
				      fmax(1.0, (double)is->prompt_tokens -
							is->shared_prefix_tokens);
	l->trace = is->trace_requests;
	l->trace_len = is->trace_len;
	if (l->arrival == SIM_ARRIVAL_TRACE && !l->trace)
		return diag_set(err, wl->file, 0, 0,
				"'inference.arrival' is trace but no "
				"'inference.trace' file was read");
	f->replicas = is->replicas != WL_AUTO ? is->replicas : 1;
	return 0;
}

/*
 * Time for a replica to fill: the life of a long request (the mean
 * answer, or five times it for lengths with a tail, within the context)
 * at the step time of the batch the load keeps running: by Little's law
 * the rate per replica times the requests' life (a few rounds of the
 * fixed point from one sequence), or the clients per replica of a closed
 * loop, within max_batch.  The warm-up lasts two fills and a Poisson run
 * at least seven, so that the statistics see the steady state, not the
 * filling queue.
 */
static double fill_s(const struct sim_load *l, const struct sim_engine *e,
		     struct infer_step_model *step, int replicas)
{
	struct sim_mix m;
	double out = l->output_tokens_mean, life = 0.0, b = 1.0;

	if (l->length_dist != SIM_LEN_FIXED)
		out = fmin(fill_tail_means * out,
			   l->max_context_tokens > 0 ?
				   l->max_context_tokens - l->prompt_tokens_mean :
				   HUGE_VAL);
	out = fmax(out, 1.0);
	if (l->arrival == SIM_ARRIVAL_CLOSED)
		b = (double)l->concurrency / replicas;
	for (int i = 0; i < fill_rounds; i++) {
		b = fmin(fmax(b, 1.0), e->max_batch);
		memset(&m, 0, sizeof(m));
		m.decode_seqs = b;
		m.decode_ctx_tokens = b * (l->prompt_tokens_mean + 0.5 * out);
		m.logit_rows = b;
		life = out * infer_step_s(step, &m);
		if (l->arrival != SIM_ARRIVAL_POISSON)
			break;
		b = l->rate_per_s / replicas * l->output_tokens_mean / out *
		    life;
	}
	return life;
}

/* The requests of a run of 'n' simulated replicas and its warm-up: a
   given count, or the default, and a Poisson run of at least run_fills
   fills of the replicas that decode ('e' and 'step', 'n_decode' of
   them). */
static void run_length(struct sim_load *l, int requests_given,
		       const struct sim_engine *e,
		       struct infer_step_model *step, int n_decode, int n)
{
	l->requests = requests_given != WL_AUTO ? requests_given :
						  sim_default_requests(l, n);
	if (l->arrival == SIM_ARRIVAL_POISSON ||
	    l->arrival == SIM_ARRIVAL_CLOSED) {
		double fill = fill_s(l, e, step, n_decode);

		double want;

		l->warmup_s = warmup_fills * fill;
		if (l->turns > 1)
			/* conversations build up over a session's life: its
			   turns (a fill bounds each) and the pauses between */
			l->warmup_s = fmax(l->warmup_s,
					   l->turns * fill +
						   (l->turns - 1) *
							   l->think_time_s);
		/* a Poisson run lasts run_fills fills past the warm-up, and
		   twice the warm-up, which holds at most half the requests */
		want = l->rate_per_s *
		       fmax(run_fills * fill,
			    l->turns > 1 ? fmax(2.0 * l->warmup_s,
						l->warmup_s + run_fills * fill) :
					   0.0);
		if (requests_given == WL_AUTO &&
		    l->arrival == SIM_ARRIVAL_POISSON && want > l->requests)
			l->requests = want > fill_requests_max ?
					      fill_requests_max :
					      (int)ceil(want);
		/* a closed loop of conversations: two sessions a client */
		if (requests_given == WL_AUTO &&
		    l->arrival == SIM_ARRIVAL_CLOSED && l->turns > 1 &&
		    2.0 * l->turns * l->concurrency > l->requests)
			l->requests = 2.0 * l->turns * l->concurrency >
						      fill_requests_max ?
					      fill_requests_max :
					      2 * l->turns * l->concurrency;
	}
	if (requests_given == WL_AUTO && l->arrival != SIM_ARRIVAL_TRACE) {
		double cap = fmax(sim_requests_min,
				  sim_tokens_max /
					  fmax(1.0, l->output_tokens_mean));

		if (l->arrival == SIM_ARRIVAL_CLOSED)
			cap = fmax(cap, capacity_rounds_min * l->concurrency);
		if (l->requests > cap)
			l->requests = (int)cap;
	}
}

/* Simulate 'replicas' replicas (a part of them, scaled, when many). */
static int fleet_sim(const struct serve_fleet *f,
		     struct infer_step_model *step, int replicas,
		     int requests_given, struct sim_result *r, int *sim_r,
		     struct diag *err)
{
	struct sim_load l = f->load;
	int n = replicas;
	double scale = 1.0;

	if (replicas > SERVE_SIM_REPLICAS_MAX &&
	    l.arrival == SIM_ARRIVAL_BURST && requests_given == WL_AUTO)
		/* the burst is the fleet's: a part of it gets its share */
		requests_given = sim_default_requests(&l, replicas);
	if (replicas > SERVE_SIM_REPLICAS_MAX &&
	    l.arrival != SIM_ARRIVAL_TRACE) {
		n = SERVE_SIM_REPLICAS_MAX;
		scale = (double)n / replicas;
		l.rate_per_s *= scale;
		l.concurrency = (int)ceil(l.concurrency * scale);
		if (requests_given != WL_AUTO)
			requests_given = (int)ceil(requests_given * scale);
	} else if (replicas > trace_replicas_max) {
		return diag_set(err, NULL, 0, 0,
				"a trace is simulated on at most %d replicas, "
				"not %d", trace_replicas_max, replicas);
	}
	run_length(&l, requests_given, &f->engine, step, n, n);
	l.phase_split = true; /* the cost of input and output tokens */
	if (sim_run_pool(&(struct sim_pool){ &f->engine, n, infer_step_s, step,
					     infer_decode_steps_s },
			 &l, r, err) != 0)
		return -1;
	r->request_throughput_per_s /= scale;
	r->output_tokens_per_s /= scale;
	r->input_tokens_per_s /= scale;
	*sim_r = n;
	return 0;
}

static int pool_capacity(const struct sim_engine *e, struct sim_load l,
			 struct infer_step_model *step, double *qps,
			 struct diag *err);
static struct sim_load capacity_load(const struct sim_load *in);

int serve_fleet_capacity(struct serve_fleet *f, struct infer_step_model *step,
			 struct diag *err)
{
	return pool_capacity(&f->engine, capacity_load(&f->load), step,
			     &f->capacity_qps, err);
}

/* What a sizing run checks. */
enum { CHECK_TTFT = 1u, CHECK_TPOT = 2u, CHECK_ALL = 3u };

/* Is the Poisson rate over what the fleet's replicas sustain?  Writes
   why. */
static bool over_capacity(struct serve_fleet *f, unsigned checks)
{
	const char *pool = "";
	double rate = f->load.rate_per_s, cap = f->capacity_qps;
	int n = f->replicas;

	if (f->load.arrival != SIM_ARRIVAL_POISSON)
		return false;
	if (f->disagg) {
		if (rate >= f->prefill_replicas * f->prefill_capacity_qps) {
			pool = "prefill ";
			n = f->prefill_replicas;
			cap = f->prefill_capacity_qps;
		} else if ((checks & CHECK_TPOT) &&
			   rate >= f->decode_replicas *
					   f->decode_capacity_qps) {
			pool = "decode ";
			n = f->decode_replicas;
			cap = f->decode_capacity_qps;
		} else {
			return false;
		}
	} else if (rate < n * cap) {
		return false;
	}
	snprintf(f->why, sizeof(f->why),
		 "overloaded: %.3g requests/s is more than %d %sreplica%s "
		 "sustain (%.3g requests/s each)", rate, n, pool,
		 n == 1 ? "" : "s", cap);
	return true;
}

/* Does the simulated fleet meet the targets?  Writes why not. */
static bool judge(const struct workload *wl, struct serve_fleet *f,
		  unsigned checks)
{
	const struct inference_spec *is = &wl->inference;
	const char *pn = slo_percentile_name(is->percentile);
	double ttft = serve_ttft_at(&f->sim, is->percentile);
	double tpot = serve_tpot_at(&f->sim, is->percentile);

	f->why[0] = '\0';
	f->overloaded = false;
	if (over_capacity(f, checks)) {
		f->overloaded = true;
		return false;
	}
	if (f->sim.overloaded && (checks & CHECK_TPOT)) {
		f->overloaded = true;
		snprintf(f->why, sizeof(f->why),
			 "overloaded: the queue of %d replica%s grew through "
			 "the run (%.3g requests/s offered)", f->replicas,
			 f->replicas == 1 ? "" : "s", f->load.rate_per_s);
		return false;
	}
	if ((checks & CHECK_TTFT) && is->ttft_slo_s > 0.0 &&
	    ttft > is->ttft_slo_s) {
		snprintf(f->why, sizeof(f->why),
			 "the %s time to first token is %.3g ms under the "
			 "load, over the %.3g ms target", pn, 1e3 * ttft,
			 1e3 * is->ttft_slo_s);
		return false;
	}
	if ((checks & CHECK_TPOT) && is->tpot_slo_s > 0.0 &&
	    tpot > is->tpot_slo_s) {
		snprintf(f->why, sizeof(f->why),
			 "the %s time per output token is %.3g ms under the "
			 "load, over the %.3g ms target", pn, 1e3 * tpot,
			 1e3 * is->tpot_slo_s);
		return false;
	}
	return true;
}

/* The missed percentile, to see whether more replicas still help. */
static double missed(const struct workload *wl, const struct serve_fleet *f,
		     unsigned checks)
{
	const struct inference_spec *is = &wl->inference;
	double ttft = serve_ttft_at(&f->sim, is->percentile);
	double tpot = serve_tpot_at(&f->sim, is->percentile);

	if ((checks & CHECK_TTFT) && is->ttft_slo_s > 0.0 &&
	    ttft > is->ttft_slo_s)
		return ttft / is->ttft_slo_s;
	return (checks & CHECK_TPOT) && is->tpot_slo_s > 0.0 ?
		       tpot / is->tpot_slo_s :
		       0.0;
}

/* One sizing: the replicas of a colocated fleet (dim 0), or of the
   prefill (1) or decode (2) pool of a disaggregated one. */
struct sizing {
	const struct workload *wl;
	struct serve_fleet *f;
	struct infer_step_model *step;  /* a replica, or a prefill one */
	struct infer_step_model *dstep; /* a decode replica */
	int dim;
	unsigned checks;
	bool skipped;  /* the last try was settled without a simulation */
};

static int fleet_sim_disagg(const struct serve_fleet *f,
			    struct infer_step_model *pstep,
			    struct infer_step_model *dstep, int np, int nd,
			    int requests_given, struct sim_result *r,
			    int *sim_r, struct diag *err);

/* Decode replicas held while the prefill pool is sized: enough for the
   rate with a margin, or as many as the prefill pool's capacity needs. */
static int decode_for(const struct serve_fleet *f, int np)
{
	double d;

	if (!(f->decode_capacity_qps > 0.0))
		return np;
	d = f->load.arrival == SIM_ARRIVAL_POISSON ?
		    1.25 * f->load.rate_per_s / f->decode_capacity_qps + 1.0 :
		    np * f->prefill_capacity_qps / f->decode_capacity_qps;
	d = ceil(d);
	return d < 1.0 ? 1 : d > SERVE_REPLICAS_MAX ? SERVE_REPLICAS_MAX :
						     (int)d;
}

/*
 * Try 'n' replicas of z's dimension.  With 'prune', a count whose
 * replicas cannot sustain the Poisson rate (rate >= n x capacity) is
 * settled as overloaded without simulating it (judge says the same of
 * any simulation of it); f->sim is then not that count's.
 */
static int try_replicas(struct sizing *z, int n, bool prune,
			struct diag *err)
{
	struct serve_fleet *f = z->f;
	int requests = z->wl->inference.requests;

	z->skipped = false;
	if (z->dim == 0) {
		f->replicas = n;
		if (prune && over_capacity(f, z->checks)) {
			f->meets = false;
			f->overloaded = true;
			z->skipped = true;
			return 0;
		}
		if (fleet_sim(f, z->step, n, requests, &f->sim,
			      &f->sim_replicas, err) != 0)
			return -1;
	} else {
		if (z->dim == 1) {
			f->prefill_replicas = n;
			f->decode_replicas = decode_for(f, n);
		} else {
			f->decode_replicas = n;
		}
		f->replicas = f->prefill_replicas + f->decode_replicas;
		if (prune && over_capacity(f, z->checks)) {
			f->meets = false;
			f->overloaded = true;
			z->skipped = true;
			return 0;
		}
		if (fleet_sim_disagg(f, z->step, z->dstep,
				     f->prefill_replicas, f->decode_replicas,
				     requests, &f->sim, &f->sim_replicas,
				     err) != 0)
			return -1;
	}
	f->meets = judge(z->wl, f, z->checks);
	return 0;
}

/* The capacity of one replica of the dimension sized. */
static double dim_capacity(const struct sizing *z)
{
	return z->dim == 0 ? z->f->capacity_qps :
	       z->dim == 1 ? z->f->prefill_capacity_qps :
			     z->f->decode_capacity_qps;
}

/* Whether what a sizing learns of a fleet simulated in part holds at
   every rate (struct fleet_share): a Poisson load whose run length
   capplan sets (a given count of requests is scaled by the fleet's
   size, not by the rate per replica), a colocated fleet. */
static bool share_applies(const struct sizing *z)
{
	return z->dim == 0 && z->f->load.arrival == SIM_ARRIVAL_POISSON &&
	       z->wl->inference.requests == WL_AUTO;
}

/*
 * Whether the targets are out of reach at any number of replicas: the
 * fleet simulated as SERVE_SIM_REPLICAS_MAX replicas (as every larger
 * fleet is, with the same requests drawn) at a rate so low that each
 * request runs alone, which no load improves on (a step with more work
 * is no shorter, a queue no faster).  Only a colocated Poisson sizing of
 * capplan's run length, without speculation, sessions or a shared
 * prefix (where a lone request is not the fastest: the cache fills, the
 * draws change; a prefix cache with no prefix to share hits nothing
 * either way).  Returns 1 with the floor's missed percentile in '*m' and
 * the reason in 'why' when it misses by more than floor_margin, 0, or
 * -1.
 */
static int floor_misses(const struct sizing *z, double *m, char *why,
			size_t why_size, struct diag *err)
{
	const struct inference_spec *is = &z->wl->inference;
	struct serve_fleet *g;
	int sim_r, rc;

	*m = 0.0;
	if (!share_applies(z) || z->f->capacity_qps <= 0.0 ||
	    is->speculative_tokens > 0 || is->turns > 1 ||
	    (z->f->engine.prefix_caching && is->shared_prefix_tokens > 0))
		return 0;
	g = malloc(sizeof(*g));
	if (!g)
		return diag_set_kind(err, DIAG_NOMEM, NULL, 0, 0,
				     "out of memory");
	*g = *z->f;
	g->load.rate_per_s = floor_load * SERVE_SIM_REPLICAS_MAX *
			     g->capacity_qps;
	rc = fleet_sim(g, z->step, SERVE_SIM_REPLICAS_MAX, WL_AUTO, &g->sim,
		       &sim_r, err);
	if (rc == 0)
		*m = missed(z->wl, g, z->checks);
	if (rc == 0 && *m > 1.0 + floor_margin) {
		const char *pn = slo_percentile_name(is->percentile);
		double ttft = serve_ttft_at(&g->sim, is->percentile);
		bool t = (z->checks & CHECK_TTFT) && is->ttft_slo_s > 0.0 &&
			 ttft > is->ttft_slo_s;

		snprintf(why, why_size,
			 "no number of replicas meets the targets: with each "
			 "request alone on a replica, the %s %s is %.3g ms, "
			 "over the %.3g ms target", pn,
			 t ? "time to first token" : "time per output token",
			 1e3 * (t ? ttft : serve_tpot_at(&g->sim, is->percentile)),
			 1e3 * (t ? is->ttft_slo_s : is->tpot_slo_s));
	}
	free(g);
	if (rc != 0)
		return -1;
	return *m > 1.0 + floor_margin;
}

/*
 * Start a sizing where the last sizing of this replica at another rate
 * found the targets' edge (f->share): a fleet of n >=
 * SERVE_SIM_REPLICAS_MAX replicas is simulated as that many at the rate
 * per replica r / n, so the first try '*hi' is the count at which the
 * edge's rate per replica met the targets, and '*lo' the count at which
 * it missed them (the bisection's premise: more replicas are no worse);
 * a sizing stopped at its limit learnt a miss alone.  Returns the step
 * of the search up from '*hi' should it miss (share_step of it, one at
 * least), 0 when no count was learnt to meet them.  The relative 1e-9
 * keeps a rate's own count from rounding to its neighbour.
 */
static long long share_bounds(const struct serve_fleet *f, long long *lo,
			      long long *hi)
{
	double r = f->load.rate_per_s, n;
	long long step = 0;

	if (f->share.pass_qps > 0.0) {
		n = ceil(r / f->share.pass_qps * (1.0 - 1e-9));
		if (n >= SERVE_SIM_REPLICAS_MAX && n <= SERVE_REPLICAS_MAX &&
		    n > (double)*lo) {
			*hi = (long long)n;
			step = (long long)(share_step * n) > 1 ?
				       (long long)(share_step * n) :
				       1;
		}
	}
	if (f->share.fail_qps > 0.0) {
		n = floor(r / f->share.fail_qps * (1.0 + 1e-9));
		if (n >= SERVE_SIM_REPLICAS_MAX && n < SERVE_REPLICAS_MAX &&
		    n > (double)*lo)
			*lo = (long long)n;
	}
	if (*hi <= *lo)
		*hi = *lo + 1;
	return step;
}

/* Keep where this sizing found the targets' edge, 'lo' replicas
   missing them and 'hi' meeting them (hi 0: none met up to lo), as
   rates per replica where the fleet is simulated in part
   (share_bounds). */
static void share_learn(struct serve_fleet *f, long long lo, long long hi)
{
	struct fleet_share *s = &f->share;
	double r = f->load.rate_per_s;

	s->fail_qps = lo >= SERVE_SIM_REPLICAS_MAX ? r / lo : 0.0;
	if (hi >= SERVE_SIM_REPLICAS_MAX)
		s->pass_qps = r / hi;
	else if (hi > 0 || (s->fail_qps > 0.0 && s->pass_qps >= s->fail_qps))
		s->pass_qps = 0.0; /* met below, or a pass above the miss */
}

/*
 * The fewest replicas of z's dimension that meet z's checks: from the
 * rate's lower bound (rate / capacity) up, growing by a quarter, or
 * doubling when far off or stalled, then bisection.  Gives up when
 * doubling twice improves the missed percentile by less than
 * sizing_min_gain.  Returns 0 (f->meets says whether it found one) or -1.
 */
static int size_dim(struct sizing *z, struct diag *err)
{
	struct serve_fleet *f = z->f;
	double cap = dim_capacity(z);
	long long lo, hi;
	double prev = HUGE_VAL;
	int stalls = 0;
	long long step = 0; /* > 0: up from a learnt edge (share_bounds) */
	bool tried_floor = false;
	long long bound;
	struct serve_fleet pass;

	f->over_limit = false;
	lo = 0;
	hi = 1;
	if (f->load.arrival == SIM_ARRIVAL_POISSON && cap > 0.0) {
		double guess = ceil(f->load.rate_per_s / cap);

		if (guess > SERVE_REPLICAS_MAX)
			guess = SERVE_REPLICAS_MAX;
		hi = guess > 1.0 ? (long long)guess : 1;
		lo = hi - 1;
	}
	bound = hi; /* the rate's lower bound (1 without one) */
	if (share_applies(z))
		step = share_bounds(f, &lo, &hi);
	if (z->dim == 0 && f->replicas_limit > 0 &&
	    lo >= f->replicas_limit) {
		/* the rate alone needs more than the limit */
		f->replicas = (int)hi;
		f->meets = false;
		f->over_limit = true;
		snprintf(f->why, sizeof(f->why),
			 "more than %d replicas are needed", f->replicas_limit);
		return 0;
	}
	if (z->dim == 0 && f->replicas_limit > 0 && hi > f->replicas_limit)
		hi = f->replicas_limit; /* (a pass learnt past it) */
	for (;;) {
		double m;

		if (try_replicas(z, (int)hi, true, err) != 0)
			return -1;
		if (f->meets)
			break;
		if (z->dim == 0 && f->replicas_limit > 0 &&
		    hi >= f->replicas_limit) {
			/* a plan of fewer GPUs is known: its count is not
			   looked for past the limit */
			f->over_limit = true;
			snprintf(f->why, sizeof(f->why),
				 "more than %d replicas are needed",
				 f->replicas_limit);
			if (share_applies(z) && !z->skipped)
				share_learn(f, hi, 0);
			return 0;
		}
		m = f->overloaded ? HUGE_VAL : missed(z->wl, f, z->checks);
		if (!tried_floor && !f->overloaded && z->dim == 0 &&
		    hi >= SERVE_SIM_REPLICAS_MAX && prev < HUGE_VAL &&
		    hi >= floor_over_bound * bound &&
		    m > prev * (1.0 - floor_gain) && m > floor_min_missed) {
			/* little gained by more replicas: can any number
			   meet the targets? */
			double mf;
			int fr;

			tried_floor = true;
			fr = floor_misses(z, &mf, f->why, sizeof(f->why), err);
			if (fr < 0)
				return -1;
			if (fr > 0)
				return 0; /* the last fleet tried, reported */
		}
		if (!f->overloaded && m > prev * (1.0 - sizing_min_gain)) {
			if (++stalls >= 2)
				break;
		} else {
			stalls = 0;
		}
		if (!f->overloaded)
			prev = m;
		if (hi >= SERVE_REPLICAS_MAX)
			break;
		lo = hi;
		/* near the rate's lower bound a few more replicas are
		   enough; far from it, grow faster */
		hi = hi + (hi + 3) / 4;
		if (step > 0 && hi > lo + step) {
			/* near the edge a rate before found */
			hi = lo + step;
			step *= 2;
		}
		if (stalls > 0 || m > 2.0)
			hi = 2 * lo;
		if (hi > SERVE_REPLICAS_MAX)
			hi = SERVE_REPLICAS_MAX;
		if (z->dim == 0 && f->replicas_limit > 0 &&
		    hi > f->replicas_limit)
			hi = f->replicas_limit;
	}
	if (!f->meets) {
		char why[sizeof(f->why)];

		/* the fleet reported is simulated, even when overloaded */
		if (z->skipped && try_replicas(z, (int)hi, false, err) != 0)
			return -1;

		snprintf(why, sizeof(why), "no number of %sreplicas meets the "
			 "targets (at %d: %.190s)",
			 z->dim == 1 ? "prefill " :
			 z->dim == 2 ? "decode " : "",
			 z->dim == 1 ? f->prefill_replicas :
			 z->dim == 2 ? f->decode_replicas : f->replicas,
			 f->why);
		memcpy(f->why, why, sizeof(f->why));
		return 0;
	}
	pass = *f;
	while (hi - lo > 1 && hi - lo > (long long)(sizing_rel_tolerance * hi)) {
		long long mid = lo + (hi - lo) / 2;

		if (try_replicas(z, (int)mid, true, err) != 0)
			return -1;
		if (f->meets) {
			hi = mid;
			pass = *f;
		} else {
			lo = mid;
		}
	}
	*f = pass;
	if (share_applies(z))
		share_learn(f, lo, hi);
	return 0;
}

int serve_fleet_run(const struct workload *wl,
		    struct infer_step_model *step,
		    struct serve_fleet *f, struct diag *err)
{
	struct sizing z = { wl, f, step, NULL, 0, CHECK_ALL, false };

	if (!(f->capacity_qps > 0.0) &&
	    serve_fleet_capacity(f, step, err) != 0)
		return -1;
	if (wl->inference.replicas != WL_AUTO)
		return try_replicas(&z, wl->inference.replicas, false, err);
	f->sized = true;
	return size_dim(&z, err);
}

/* ---------------------------------------------------------------------
 * Prefill/decode disaggregation
 */

int serve_fleet_init_disagg(const struct workload *wl, const struct arch *a,
			    const struct infer_config *cp,
			    const struct infer_config *cd,
			    const struct gpu_spec *g, const struct cluster *cl,
			    struct serve_fleet *f, struct diag *err)
{
	const struct inference_spec *is = &wl->inference;
	struct serve_fleet dec;
	struct link l;
	int links = cp->tp < cd->tp ? cp->tp : cd->tp;

	if (serve_fleet_init(wl, a, cp, g, f, err) != 0 ||
	    serve_fleet_init(wl, a, cd, g, &dec, err) != 0)
		return -1;
	f->disagg = true;
	f->decode_engine = dec.engine;
	/* a prefill replica never decodes: it drafts nothing */
	f->engine.speculative_tokens = 0;
	f->prefill_replicas = is->prefill_replicas != WL_AUTO ?
				      is->prefill_replicas :
				      1;
	f->decode_replicas = is->decode_replicas != WL_AUTO ?
				     is->decode_replicas :
				     1;
	f->replicas = f->prefill_replicas + f->decode_replicas;
	/* each decode GPU receives its shard of every token's KV cache;
	   min(tp) GPU pairs carry it at once, or the link given */
	f->xfer.bytes_per_token = infer_kv_bytes_per_token_gpu(a, cd) * cd->tp;
	if (is->kv_transfer_bw_bytes_per_s > 0.0) {
		l = link_inter_node(is->kv_transfer_bw_bytes_per_s);
		f->xfer.bw_bytes_per_s = l.bw_bytes_per_s;
	} else {
		l = comm_inter_link(cl);
		f->xfer.bw_bytes_per_s = l.bw_bytes_per_s * links;
	}
	f->xfer.latency_s = l.latency_s;
	if (!(f->xfer.bw_bytes_per_s > 0.0))
		return diag_set(err, wl->file, 0, 0,
				"the KV transfer needs a network: give "
				"'inference.kv_transfer_bw' or "
				"'cluster.inter_bw'");
	/* a transfer slower than the first-token target (or than
	   kv_transfer_max_s) cannot be served: said here, of the
	   bandwidth, rather than after simulating ever more decode
	   replicas for minutes (issue 40) */
	{
		double t = f->xfer.latency_s +
			   f->load.prompt_tokens_mean * f->xfer.bytes_per_token /
				   f->xfer.bw_bytes_per_s;
		double most = is->ttft_slo_s > 0.0 ? is->ttft_slo_s :
						     kv_transfer_max_s;

		if (t > most) {
			char bw[32], tt[32], lim[32];

			units_format(bw, sizeof(bw), f->xfer.bw_bytes_per_s,
				     UNIT_BANDWIDTH, 3);
			units_format(tt, sizeof(tt), t, UNIT_TIME, 3);
			units_format(lim, sizeof(lim), most, UNIT_TIME, 3);
			return diag_set(err, wl->file, 0, 0,
					"the KV cache of a mean prompt (%.0f "
					"tokens) takes %s to move at %s, over "
					"the %s %s: raise "
					"'inference.kv_transfer_bw' (or "
					"'cluster.inter_bw')",
					f->load.prompt_tokens_mean, tt, bw,
					lim,
					is->ttft_slo_s > 0.0 ?
						"TTFT target" :
						"a disaggregated fleet can "
						"wait for it");
		}
	}
	return 0;
}

/* The capacity of one replica of a pool under 'l' (a closed loop of
   twice its max_batch clients). */
static int pool_capacity(const struct sim_engine *e, struct sim_load l,
			 struct infer_step_model *step, double *qps,
			 struct diag *err)
{
	struct sim_result r;
	long long n;

	double b, cap;

	l.arrival = SIM_ARRIVAL_CLOSED;
	l.concurrency = 2 * e->max_batch;
	n = (long long)capacity_requests_per_client * l.concurrency;
	n = n < capacity_requests_min ? capacity_requests_min :
	    n > capacity_requests_max ? capacity_requests_max :
					n;
	/* the batch it keeps running: max_batch, or what the KV cache
	   holds of mean requests */
	b = fmin(e->max_batch,
		 e->kv_blocks * e->kv_block_tokens /
			 fmax(1.0, l.prompt_tokens_mean +
					   l.output_tokens_mean));
	cap = fmax(capacity_rounds_min * l.concurrency,
		   capacity_steps_max * fmax(1.0, b) /
			   fmax(1.0, l.output_tokens_mean));
	if (n > cap)
		n = (long long)cap;
	l.requests = (int)n;
	if (sim_run_pool(&(struct sim_pool){ e, 1, infer_step_s, step,
					     infer_decode_steps_s },
			 &l, &r, err) != 0)
		return -1;
	*qps = r.request_throughput_per_s;
	return 0;
}

/* The load of a capacity run: a trace's mean lengths, exponential;
   sessions without their think time (saturated). */
static struct sim_load capacity_load(const struct sim_load *in)
{
	struct sim_load l = *in;

	l.think_time_s = 0.0;
	if (l.arrival == SIM_ARRIVAL_TRACE) {
		double p = 0.0, o = 0.0;

		for (size_t i = 0; i < l.trace_len; i++) {
			p += l.trace[i].prompt_tokens;
			o += l.trace[i].output_tokens;
		}
		l.prompt_tokens_mean = fmax(1.0, p / (double)l.trace_len);
		l.output_tokens_mean = fmax(1.0, o / (double)l.trace_len);
		l.length_dist = SIM_LEN_EXPONENTIAL;
		l.trace = NULL;
		l.trace_len = 0;
	}
	return l;
}

int serve_fleet_capacity_disagg(struct serve_fleet *f,
				struct infer_step_model *prefill,
				struct infer_step_model *decode,
				struct diag *err)
{
	struct sim_load l = capacity_load(&f->load);

	l.output_tokens_max = 1;
	if (pool_capacity(&f->engine, l, prefill, &f->prefill_capacity_qps,
			  err) != 0)
		return -1;
	l.output_tokens_max = 0;
	l.prefilled = true;
	if (pool_capacity(&f->decode_engine, l, decode,
			  &f->decode_capacity_qps, err) != 0)
		return -1;
	f->capacity_qps = fmin(f->prefill_capacity_qps,
			       f->decode_capacity_qps);
	return 0;
}

/* Simulate np prefill and nd decode replicas; past disagg_sim_max
   together, a part of each pool with the load scaled (the smaller of
   the two parts' shares, so that neither pool is lighter than its
   share). */
static int fleet_sim_disagg(const struct serve_fleet *f,
			    struct infer_step_model *pstep,
			    struct infer_step_model *dstep, int np, int nd,
			    int requests_given, struct sim_result *r,
			    int *sim_r, struct diag *err)
{
	struct sim_load l = f->load;
	struct sim_pool p = { &f->engine, np, infer_step_s, pstep,
			      infer_decode_steps_s };
	struct sim_pool d = { &f->decode_engine, nd, infer_step_s, dstep,
			      infer_decode_steps_s };
	double scale = 1.0;

	if ((long long)np + nd > disagg_sim_max &&
	    l.arrival != SIM_ARRIVAL_TRACE) {
		double k = (double)disagg_sim_max / ((double)np + nd);

		p.replicas = (int)fmax(1.0, round(np * k));
		d.replicas = (int)fmax(1.0, round(nd * k));
		scale = fmin((double)p.replicas / np,
			     (double)d.replicas / nd);
		l.rate_per_s *= scale;
		l.concurrency = (int)ceil(l.concurrency * scale);
		if (requests_given != WL_AUTO)
			requests_given = (int)ceil(requests_given * scale);
	} else if ((long long)np + nd > trace_replicas_max) {
		return diag_set(err, NULL, 0, 0,
				"a trace is simulated on at most %d replicas, "
				"not %d", trace_replicas_max, np + nd);
	}
	run_length(&l, requests_given, &f->decode_engine, dstep, d.replicas,
		   p.replicas + d.replicas);
	if (sim_run_disaggregated(&p, &d, &f->xfer, &l, r, err) != 0)
		return -1;
	r->request_throughput_per_s /= scale;
	r->output_tokens_per_s /= scale;
	r->input_tokens_per_s /= scale;
	*sim_r = p.replicas + d.replicas;
	return 0;
}

int serve_fleet_run_disagg(const struct workload *wl,
			   struct infer_step_model *prefill,
			   struct infer_step_model *decode,
			   struct serve_fleet *f, struct diag *err)
{
	const struct inference_spec *is = &wl->inference;
	struct sizing z = { wl, f, prefill, decode, 2, CHECK_ALL, false };

	if (!(f->capacity_qps > 0.0) &&
	    serve_fleet_capacity_disagg(f, prefill, decode, err) != 0)
		return -1;
	if (is->prefill_replicas != WL_AUTO)
		return try_replicas(&z, is->decode_replicas, false, err);
	f->sized = true;
	/* the prefill pool alone sets the time to first token */
	z.dim = 1;
	z.checks = CHECK_TTFT;
	if (size_dim(&z, err) != 0)
		return -1;
	if (!f->meets)
		return 0;
	z.dim = 2;
	z.checks = CHECK_ALL;
	f->decode_replicas = 1;
	return size_dim(&z, err);
}
