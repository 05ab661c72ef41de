/* plot_build_cache.c - the data of the cache chart: the prefix cache's
   hits, the TTFT at the SLO percentile and a replica's capacity against
   the KV-cache memory or the host tier, each device's fleet held; see
   plot_build_cache.h. */
#include "plot_build_cache.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_output.h"
#include "infer_plan.h"
#include "plot_build.h"
#include "units.h"

/* Points per device: few, each a simulated fleet (a second or less). */
#define CACHE_POINTS 6

/* The KV cache of each point as a share of the workload's: halved at
   each step, from the workload's memory_fraction down to a thirty-second
   of it, near where the memory holds the weights and little else (a
   chart's choice: specs/models.md 13). */
static const double kv_scales[CACHE_POINTS] = { 1.0,   0.5,    0.25,
						0.125, 0.0625, 0.03125 };
/* The host tier of each point as a multiple of the workload's. */
static const double host_scales[CACHE_POINTS] = { 0.0, 0.25, 0.5,
						  1.0, 2.0,  4.0 };
/* A memory_fraction below this is not planned (the engine would hold
   nothing but its weights). */
#define CACHE_MIN_FRACTION 0.01

bool plot_cache_applies(const struct workload *wl)
{
	const struct inference_spec *is = &wl->inference;

	return wl->model.kind == MODEL_TRANSFORMER &&
	       model_has_arch(&wl->model) && serve_has_load(is) &&
	       is->prefix_caching == 1 && !is->disaggregated;
}

/* The points of one device, planned on several threads. */
struct cache_job {
	const struct cli_ctx *ctx;
	const struct gpu_spec *g;
	int device;                   /* in ctx->gpus */
	struct workload w;            /* the workload, tp and replicas held */
	bool host;                    /* the host tier varies */
	double value[CACHE_POINTS];   /* memory_fraction, or host bytes;
					 NaN: not planned */
	int reuse;                    /* the point that is the workload's
					 own: its plan is p0 */
	struct infer_plan *plans;     /* CACHE_POINTS */
	bool ok[CACHE_POINTS];
	char why[CACHE_POINTS][DIAG_MSG_MAX];
};

static void cache_point(int k, void *arg)
{
	struct cache_job *j = arg;
	struct workload w = j->w;
	struct diag err;
	char phase[128];

	if (k == j->reuse || isnan(j->value[k]))
		return;
	if (j->ctx->progress) {
		snprintf(phase, sizeof(phase), "%s, device %d/%d %s, point %d/%d",
			 plot_kind_name(PLOT_CACHE), j->device + 1,
			 j->ctx->ngpus, j->g->name, k + 1, CACHE_POINTS);
		progress_phase(j->ctx->progress, 0, 0, phase);
	}
	diag_clear(&err);
	if (j->host) {
		w.inference.kv_offload_memory_bytes = j->value[k];
	} else {
		char set[64];

		/* given, as --set gives it: an engine's rule for the device
		   (SGLang's memory share) leaves it alone */
		snprintf(set, sizeof(set), "inference.memory_fraction=%.17g",
			 j->value[k]);
		if (workload_set(&w, set, &err) != 0) {
			snprintf(j->why[k], sizeof(j->why[k]), "%s", err.msg);
			return;
		}
	}
	if (infer_plan_make(&w, j->g, &j->plans[k], &err) != 0) {
		snprintf(j->why[k], sizeof(j->why[k]), "%s", err.msg);
		return;
	}
	if (!j->plans[k].simulated) {
		snprintf(j->why[k], sizeof(j->why[k]), "%s",
			 j->plans[k].why[0] ? j->plans[k].why :
					      "the load was not simulated");
		return;
	}
	j->ok[k] = true;
}

/* The row of a planned point (plot_kind_columns of PLOT_CACHE). */
static void point_row(const struct cache_job *j, int k, double *row)
{
	const struct infer_plan *q = &j->plans[k];
	const struct sim_engine *e = &q->fleet.engine;
	const struct inference_spec *is = &j->w.inference;
	double host = j->host ? j->value[k] : is->kv_offload_memory_bytes;

	/* the KV cache of a replica: its blocks at the model's bytes per
	   token (the replica's GPUs hold a shard each) */
	row[0] = e->kv_blocks * e->kv_block_tokens *
		 q->result.memory.kv_cache_bytes_per_token / 1e9;
	row[1] = host / 1e9;
	row[2] = q->config.memory_fraction;
	row[3] = q->fleet.sim.prefix_hit_rate;
	row[4] = e->offload_blocks > 0.0 ? q->fleet.sim.offload_hit_rate :
		 j->host		 ? 0.0 :
					   (double)NAN;
	row[5] = q->ttft_p_s * 1e3;
	row[6] = q->fleet.capacity_qps;
	/* the rate each replica is offered, beside its capacity */
	row[7] = q->fleet.load.arrival == SIM_ARRIVAL_POISSON && is->qps > 0.0 ?
			 is->qps / q->replicas :
			 (double)NAN;
	row[8] = q->fleet.overloaded ? 1.0 : 0.0;
}

/* The points of job 'j': the memory swept around its plan 'p0' (the
   workload's own point). */
static void sweep_values(struct cache_job *j, const struct infer_plan *p0)
{
	const struct inference_spec *is = &j->w.inference;
	const struct infer_memory *m = &p0->result.memory;
	/* the KV cache of a GPU grows by one byte for each byte of
	   memory_fraction x its memory (infer_memory_reserve); at the
	   plan's fraction (the workload's, or its engine's for the device)
	   it has what the weights, activations and reserve leave; a share
	   of the free memory (TensorRT-LLM) gives the cache that share of
	   it, so the cache scales with the fraction */
	double kv_gpu = m->capacity_bytes - m->weights_bytes -
			m->activations_bytes - m->reserve_bytes;
	double f0 = p0->config.memory_fraction > 0.0 ?
			    p0->config.memory_fraction :
			    INFER_MEMORY_FRACTION;

	j->reuse = -1;
	for (int k = 0; k < CACHE_POINTS; k++) {
		if (j->host) {
			j->value[k] = host_scales[k] *
				      is->kv_offload_memory_bytes;
			if (host_scales[k] == 1.0)
				j->reuse = k;
			continue;
		}
		j->value[k] = p0->config.memory_of_free ?
				      f0 * kv_scales[k] :
				      f0 - kv_gpu * (1.0 - kv_scales[k]) /
						   m->capacity_bytes;
		if (kv_scales[k] == 1.0) {
			j->value[k] = f0;
			j->reuse = k;
		}
		if (!(j->value[k] >= CACHE_MIN_FRACTION))
			j->value[k] = (double)NAN;
	}
}

/* What the chart holds fixed, on the title's second line. */
static void cache_held(const struct cli_ctx *ctx, bool host, char *buf,
		       size_t n)
{
	const struct inference_spec *is = &ctx->wl.inference;
	char engine[40], mem[16];

	cli_stack_label(is->engine, is->engine_version, engine,
			sizeof(engine));
	if (host) {
		units_format(mem, sizeof(mem), is->kv_offload_memory_bytes,
			     UNIT_BYTES, 3);
		snprintf(buf, n, "%s; host tier 0 to 4 x the workload's %s "
				 "per replica, memory_fraction %.3g; fleets "
				 "held (key)",
			 engine, mem, is->memory_fraction);
		return;
	}
	{
		int f = workload_key_find("inference", "memory_fraction");
		/* SGLang's share depends on the device (engine_limits.h) */
		bool by_device = is->device_defaults == WL_DEVDEF_SGLANG_05 &&
				 f >= 0 &&
				 !workload_key_given(&ctx->wl, (size_t)f) &&
				 !workload_key_stacked(&ctx->wl, (size_t)f);
		char from[48];

		if (by_device)
			snprintf(from, sizeof(from), "the engine's share");
		else
			snprintf(from, sizeof(from), "%.3g", is->memory_fraction);
		snprintf(buf, n, "%s; memory_fraction%s from %s down, halving "
				 "the KV cache each step; fleets held (key)",
			 engine,
			 is->memory_fraction_of == WL_MEMFRAC_FREE ?
				 " (of free memory)" :
				 "",
			 from);
	}
}

/* Device 'i': its plan at the workload's point, then the sweep. */
static int cache_device(struct cli_ctx *ctx, struct plot_chart *c, int i,
			struct cache_job *j)
{
	const struct gpu_spec *g = ctx->gpus[i];
	struct infer_plan *p0;
	struct plot_series *s = NULL;
	char label[PLOT_LABEL_MAX];
	const char *why = NULL;
	int dropped = 0, first = 0;
	struct diag err;

	plot_progress(ctx, c, i);
	memset(j->ok, 0, sizeof(j->ok));
	j->g = g;
	j->device = i;
	j->w = ctx->wl;
	j->host = c->cache_host;
	p0 = &j->plans[0];
	diag_clear(&err);
	if (cli_infer_plan(ctx, &ctx->wl, g, NULL, p0, &err) != 0) {
		plot_note_skip(ctx, g, err.msg);
		return EXIT_OK;
	}
	if (!p0->simulated || !p0->fleet.engine.prefix_caching) {
		plot_note_skip(ctx, g, !p0->simulated && p0->why[0] ?
					       p0->why :
					       "the load was not simulated with "
					       "a prefix cache");
		return EXIT_OK;
	}
	/* the fleet of the workload's point, held */
	j->w.inference.tp = p0->config.tp;
	j->w.inference.replicas = p0->replicas;
	/* a replica's capacity moves with its cache: measured at each point */
	j->w.inference.capacity_hint_qps = 0.0;
	snprintf(label, sizeof(label), "%s (%d replica%s, tp%d)", g->name,
		 p0->replicas, p0->replicas == 1 ? "" : "s", p0->config.tp);
	sweep_values(j, p0);
	if (j->reuse != 0)
		memcpy(&j->plans[j->reuse], p0, sizeof(*p0));
	j->ok[j->reuse] = true;
	/* p0 is plans[0], which a host tier's first point replaces */
	cli_parallel_for(CACHE_POINTS, cache_point, j);
	/* ascending in memory: the KV cache shrinks along the points, the
	   host tier grows */
	for (int n = 0; n < CACHE_POINTS; n++) {
		int k = j->host ? n : CACHE_POINTS - 1 - n;
		double row[9];

		if (!j->ok[k]) {
			if (!isnan(j->value[k]) && !why) {
				why = j->why[k];
				first = k;
			}
			dropped += !isnan(j->value[k]);
			continue;
		}
		if (!s)
			s = plot_chart_add_device(c, label, g->name, i + 1);
		if (!s)
			return plot_oom();
		point_row(j, k, row);
		if (plot_series_add_row(c, s, row) != 0)
			return plot_oom();
	}
	if (!s) {
		plot_note_skip(ctx, g, why ? why : "no point was planned");
	} else if (why) {
		/* the sweep's end that the device cannot serve: said, not
		   dropped in silence */
		char at[48];

		if (j->host)
			units_format(at, sizeof(at), j->value[first],
				     UNIT_BYTES, 3);
		else
			snprintf(at, sizeof(at), "%.3g", j->value[first]);
		progress_pause(ctx->progress);
		cli_message("capplan: note: ",
			    "cache: %d of %d points not drawn for '%s' "
			    "(at %s %s: %s)",
			    dropped, CACHE_POINTS, g->name,
			    j->host ? "a host tier of" : "memory_fraction", at,
			    why);
		progress_resume(ctx->progress);
	}
	return EXIT_OK;
}

int plot_build_cache(struct cli_ctx *ctx, struct plot_chart *c)
{
	const struct inference_spec *is = &ctx->wl.inference;
	struct cache_job *j;
	int rc = EXIT_OK;

	c->cache_host = is->kv_offload_memory_bytes > 0.0;
	snprintf(c->title, sizeof(c->title), "Prefix cache against %s: %s",
		 c->cache_host ? "its host-memory tier" : "KV-cache memory",
		 plot_wl_name(ctx));
	cache_held(ctx, c->cache_host, c->held, sizeof(c->held));
	snprintf(c->percentile, sizeof(c->percentile), "%s",
		 slo_percentile_name(is->percentile));
	c->ttft_slo_ms = is->ttft_slo_s * 1e3;
	j = calloc(1, sizeof(*j));
	if (!j)
		return plot_oom();
	j->plans = calloc(CACHE_POINTS, sizeof(*j->plans));
	if (!j->plans) {
		free(j);
		return plot_oom();
	}
	j->ctx = ctx;
	for (int i = 0; i < ctx->ngpus && rc == EXIT_OK; i++)
		rc = cache_device(ctx, c, i, j);
	free(j->plans);
	free(j);
	return rc;
}
