/* cmd_infer.c - 'capplan infer': a serving plan as a report.  Field names
   are specified in specs/output.md. */
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "engine_limits.h"
#include "interval.h"
#include "infer_plan.h"

/* The note that the running-sequence limit binds: the replicas run at
   least this share of it on average, and the p99 queue wait is over this
   share of the p99 TTFT (the queue, not the prefill, makes the wait). */
static const double batch_full_fraction = 0.9;
static const double queue_wait_ttft_fraction = 0.5;

/* A table of the simulated load, or nulls (the JSON keys stay). */
static const struct load_field {
	const char *key;
	const char *label;
	size_t offset; /* in struct sim_result */
	enum unit_kind unit;
	int cls;       /* its interval's class; -1: none (the field is not
			  a metric calibrate takes) */
	const char *interval_label; /* its interval's in a table */
} load_fields[] = {
	{ "ttft_mean_s", "TTFT mean", offsetof(struct sim_result, ttft_mean_s),
	  UNIT_TIME, INTERVAL_TTFT, NULL },
	{ "ttft_p50_s", "TTFT p50", offsetof(struct sim_result, ttft_p50_s),
	  UNIT_TIME, INTERVAL_TTFT, "  TTFT p50 (under load)" },
	{ "ttft_p90_s", "TTFT p90", offsetof(struct sim_result, ttft_p90_s),
	  UNIT_TIME, INTERVAL_TTFT, NULL },
	{ "ttft_p99_s", "TTFT p99", offsetof(struct sim_result, ttft_p99_s),
	  UNIT_TIME, INTERVAL_TTFT, NULL },
	{ "tpot_mean_s", "TPOT mean", offsetof(struct sim_result, tpot_mean_s),
	  UNIT_TIME, INTERVAL_TPOT, NULL },
	{ "tpot_p50_s", "TPOT p50", offsetof(struct sim_result, tpot_p50_s),
	  UNIT_TIME, INTERVAL_TPOT, "  TPOT p50 (under load)" },
	{ "tpot_p90_s", "TPOT p90", offsetof(struct sim_result, tpot_p90_s),
	  UNIT_TIME, INTERVAL_TPOT, NULL },
	{ "tpot_p99_s", "TPOT p99", offsetof(struct sim_result, tpot_p99_s),
	  UNIT_TIME, INTERVAL_TPOT, NULL },
	{ "e2e_mean_s", "end-to-end mean",
	  offsetof(struct sim_result, e2e_mean_s), UNIT_TIME, -1, NULL },
	{ "e2e_p50_s", "end-to-end p50", offsetof(struct sim_result, e2e_p50_s),
	  UNIT_TIME, -1, NULL },
	{ "e2e_p99_s", "end-to-end p99", offsetof(struct sim_result, e2e_p99_s),
	  UNIT_TIME, -1, NULL },
	{ "queue_wait_p99_s", "queue wait p99",
	  offsetof(struct sim_result, queue_wait_p99_s), UNIT_TIME, -1, NULL },
	{ "request_throughput_per_s", "requests/s (fleet)",
	  offsetof(struct sim_result, request_throughput_per_s),
	  UNIT_KIND_COUNT, INTERVAL_THROUGHPUT, NULL },
	{ "output_tokens_per_s", "output tokens/s (fleet)",
	  offsetof(struct sim_result, output_tokens_per_s), UNIT_COUNT,
	  INTERVAL_THROUGHPUT, NULL },
	{ "mean_batch", "mean running sequences",
	  offsetof(struct sim_result, mean_batch), UNIT_KIND_COUNT, -1, NULL },
	{ "kv_utilization", "KV cache in use",
	  offsetof(struct sim_result, kv_utilization), UNIT_KIND_COUNT, -1,
	  NULL },
	{ "tokens_per_decode_step", "tokens per decode step",
	  offsetof(struct sim_result, tokens_per_decode_step),
	  UNIT_KIND_COUNT, -1, NULL },
};

/* Sessions and the prefix cache of a simulated load: null (and not in
   tables) where there are none. */
static void add_prefix(struct record *rec, const struct workload *wl,
		       const struct infer_plan *p)
{
	const struct sim_result *r = &p->fleet.sim;
	bool caching = p->simulated && p->fleet.engine.prefix_caching &&
		       !p->fleet.disagg;

	if (p->simulated)
		rec_bool(rec, NULL, "prefix_caching", "prefix caching",
			 caching, RF_MACHINE);
	else
		rec_null(rec, NULL, "prefix_caching", "prefix caching",
			 RF_MACHINE);
	if (p->simulated && wl->inference.turns > 1)
		rec_int(rec, NULL, "sessions", "sessions (conversations)",
			r->sessions, 0);
	else
		rec_null(rec, NULL, "sessions", "sessions (conversations)",
			 RF_MACHINE);
	if (caching) {
		rec_num(rec, NULL, "prefix_hit_rate",
			"prefix-cache hits (tokens)",
			r->prefix_hit_rate, UNIT_KIND_COUNT, RF_PERCENT);
		rec_num(rec, NULL, "prefix_hit_requests",
			"prefix-cache hits (requests)",
			r->prefix_hit_requests, UNIT_KIND_COUNT, RF_PERCENT);
	} else {
		rec_null(rec, NULL, "prefix_hit_rate",
			 "prefix-cache hits (tokens)", RF_MACHINE);
		rec_null(rec, NULL, "prefix_hit_requests",
			 "prefix-cache hits (requests)", RF_MACHINE);
	}
	if (caching && p->fleet.engine.offload_blocks > 0.0)
		rec_num(rec, NULL, "offload_hit_rate",
			"  from host memory (tokens)", r->offload_hit_rate,
			UNIT_KIND_COUNT, RF_PERCENT);
	else
		rec_null(rec, NULL, "offload_hit_rate",
			 "  from host memory (tokens)", RF_MACHINE);
	if (caching && p->fleet.engine.storage_blocks > 0.0)
		rec_num(rec, NULL, "storage_hit_rate",
			"  from storage (tokens)", r->storage_hit_rate,
			UNIT_KIND_COUNT, RF_PERCENT);
	else
		rec_null(rec, NULL, "storage_hit_rate",
			 "  from storage (tokens)", RF_MACHINE);
	if (caching && (p->fleet.engine.offload_blocks > 0.0 ||
			p->fleet.engine.storage_blocks > 0.0))
		rec_num(rec, NULL, "offload_load_mean_s", "  copy back, mean",
			r->offload_load_mean_s, UNIT_TIME, 0);
	else
		rec_null(rec, NULL, "offload_load_mean_s", "  copy back, mean",
			 RF_MACHINE);
}

static void add_load(struct record *rec, const struct workload *wl,
		     const struct infer_plan *p)
{
	static const char *const arrivals[] = { "poisson", "closed", "burst",
						"trace" };
	const struct sim_result *r = &p->fleet.sim;
	int arrival = serve_arrival(&wl->inference);

	rec_heading(rec, "under load (simulated, continuous batching)");
	if (p->simulated)
		rec_str(rec, NULL, "arrival", "arrivals", arrivals[arrival], 0);
	else
		rec_null(rec, NULL, "arrival", "arrivals", 0);
	for (size_t i = 0; i < sizeof(load_fields) / sizeof(load_fields[0]);
	     i++) {
		const struct load_field *f = &load_fields[i];

		/* no request of a second token has a time per output
		   token: none is reported, rather than 0 s */
		if (!p->simulated ||
		    (f->cls == INTERVAL_TPOT && r->tpot_requests == 0)) {
			rec_null(rec, NULL, f->key, f->label, 0);
			continue;
		}
		rec_num(rec, NULL, f->key, f->label,
			*(const double *)((const char *)r + f->offset),
			f->unit,
			strcmp(f->key, "kv_utilization") == 0 ? RF_PERCENT :
								0);
	}
	if (p->simulated) {
		rec_num(rec, NULL, "capacity_qps", "capacity per replica (1/s)",
			p->fleet.capacity_qps, UNIT_KIND_COUNT, 0);
		rec_int(rec, NULL, "preemptions", "preemptions",
			(long long)r->preemptions, 0);
		rec_int(rec, NULL, "simulated_requests", "simulated requests",
			r->simulated_requests, 0);
		rec_int(rec, NULL, "shortened_requests",
			"  shortened to the context", r->shortened_requests,
			RF_MACHINE);
		rec_bool(rec, NULL, "overloaded", "overloaded",
			 p->fleet.overloaded, 0);
		add_prefix(rec, wl, p);
	} else {
		rec_null(rec, NULL, "capacity_qps",
			 "capacity per replica (1/s)", 0);
		rec_null(rec, NULL, "preemptions", "preemptions", 0);
		rec_null(rec, NULL, "simulated_requests", "simulated requests",
			 0);
		rec_null(rec, NULL, "shortened_requests",
			 "  shortened to the context", RF_MACHINE);
		rec_null(rec, NULL, "overloaded", "overloaded", 0);
		add_prefix(rec, wl, p);
	}
}

/* The pools of a disaggregated fleet; null (and not in tables) for
   one of a single kind of replica. */
static void add_disagg(struct record *rec, const struct infer_plan *p)
{
	const struct serve_fleet *f = &p->fleet;

	if (!(p->simulated && f->disagg)) {
		rec_null(rec, NULL, "prefill_replicas", "prefill replicas",
			 RF_MACHINE);
		rec_null(rec, NULL, "decode_replicas", "decode replicas",
			 RF_MACHINE);
		rec_null(rec, NULL, "prefill_tp", "prefill tp", RF_MACHINE);
		rec_null(rec, NULL, "decode_tp", "decode tp", RF_MACHINE);
		rec_null(rec, NULL, "prefill_capacity_qps",
			 "prefill capacity (1/s)", RF_MACHINE);
		rec_null(rec, NULL, "decode_capacity_qps",
			 "decode capacity (1/s)", RF_MACHINE);
		rec_null(rec, NULL, "kv_transfer_mean_s", "KV transfer mean",
			 RF_MACHINE);
		return;
	}
	rec_int(rec, NULL, "prefill_replicas", "prefill replicas",
		f->prefill_replicas, 0);
	rec_int(rec, NULL, "decode_replicas", "decode replicas",
		f->decode_replicas, 0);
	rec_int(rec, NULL, "prefill_tp", "prefill tp", p->prefill_tp, 0);
	rec_int(rec, NULL, "decode_tp", "decode tp", p->decode_tp, 0);
	rec_num(rec, NULL, "prefill_capacity_qps",
		"prefill capacity (1/s)", f->prefill_capacity_qps,
		UNIT_KIND_COUNT, 0);
	rec_num(rec, NULL, "decode_capacity_qps",
		"decode capacity (1/s)", f->decode_capacity_qps,
		UNIT_KIND_COUNT, 0);
	rec_num(rec, NULL, "kv_transfer_mean_s", "KV transfer mean",
		f->sim.kv_transfer_mean_s, UNIT_TIME, 0);
}

/* The 80% intervals (interval.h, or the profile's, cli_output.h): the
   one-replica figures in the table, and every metric calibrate takes in
   JSON and CSV. */
static void add_infer_intervals(struct record *rec, const struct workload *wl,
				const struct infer_plan *p,
				const struct profile *prof)
{
	const struct infer_result *r = &p->result;
	const struct sim_result *sim = &p->fleet.sim;
	/* under load the fleet's output rate (the class of the serving
	   rows), else the replica's at its batch (the class of the offline
	   batches) */
	int rate_cls = p->simulated ? INTERVAL_THROUGHPUT : INTERVAL_OFFLINE;
	double rate = p->simulated ? sim->output_tokens_per_s :
				     r->throughput_tokens_per_s;
	double per_gpu = p->gpus_total > 0 ? rate / p->gpus_total :
					     (double)NAN;
	struct cli_estimate est[2 + 2 + sizeof(load_fields) /
					sizeof(load_fields[0])] = {
		{ INTERVAL_TTFT, "ttft_s", "  TTFT (full batch)",
		  r->ttft_s, true, UNIT_TIME, p->simulated ? RF_MACHINE : 0,
		  false, { 0.0, 0.0 } },
		{ INTERVAL_TPOT, "tpot_s", "  TPOT (full batch)",
		  p->config.output_tokens >= 2 ? r->tpot_s : (double)NAN, true,
		  UNIT_TIME, p->simulated ? RF_MACHINE : 0, false,
		  { 0.0, 0.0 } },
		{ rate_cls, "throughput_tokens_per_s",
		  p->simulated ? "  output tokens/s (fleet)" :
				 "  output tokens/s",
		  rate, false, UNIT_COUNT, 0, false, { 0.0, 0.0 } },
		{ rate_cls, "throughput_tokens_per_s_per_gpu",
		  "  output tokens/s per GPU", per_gpu, false, UNIT_COUNT,
		  RF_MACHINE, false, { 0.0, 0.0 } },
	};
	struct cli_basis b;
	double range[2];
	int n = 4;

	cli_basis_init(&b, prof, p->gpu->name, wl);
	/* at a batch the offline rows do not cover, the rate from the
	   latencies' intervals, on the devices of theirs */
	if (!p->simulated && !cli_basis_band(&b, INTERVAL_OFFLINE) &&
	    interval_of_replica_rate(
		    p->gpu->name, p->config.batch,
		    r->prefill_batch_s, r->service_s - r->prefill_batch_s,
		    r->throughput_tokens_per_s, range)) {
		est[2].has_range = est[3].has_range = true;
		est[2].range[0] = range[0];
		est[2].range[1] = range[1];
		est[3].range[0] = range[0] * per_gpu / rate;
		est[3].range[1] = range[1] * per_gpu / rate;
	}
	/* the simulated load's latencies and rates: null without one */
	for (size_t i = 0; i < sizeof(load_fields) / sizeof(load_fields[0]);
	     i++) {
		const struct load_field *f = &load_fields[i];

		if (f->cls < 0)
			continue;
		/* under a load, the table shows the intervals of the p50s
		   the requests see instead of the full batch's */
		bool shown = p->simulated &&
			     (strcmp(f->key, "ttft_p50_s") == 0 ||
			      strcmp(f->key, "tpot_p50_s") == 0);

		est[n++] = (struct cli_estimate){
			f->cls, f->key, shown ? f->interval_label : f->label,
			p->simulated && !(f->cls == INTERVAL_TPOT &&
					  sim->tpot_requests == 0) ?
				*(const double *)((const char *)sim +
						  f->offset) :
				(double)NAN,
			f->unit == UNIT_TIME, f->unit, shown ? 0 : RF_MACHINE,
			false, { 0.0, 0.0 }
		};
	}
	cli_rec_intervals(rec, &b, est, n);
}

/* The engine's limits on the plan's device at its tp (engine_limits.h):
   the table says them for a named engine, the JSON always. */
static void add_engine_limits(struct record *rec, const struct workload *wl,
			      const struct infer_plan *p)
{
	struct engine_limits el;
	char text[REPORT_STR_MAX], seqs[32], tokens[32];
	bool named = wl->inference.engine[0] &&
		     strcmp(wl->inference.engine, STACK_GENERIC) != 0;

	engine_limits_on(wl, p->gpu, p->config.tp, &el);
	if (el.max_batch != WL_AUTO)
		rec_int(rec, NULL, "engine_max_batch", "", el.max_batch,
			RF_MACHINE);
	else
		rec_null(rec, NULL, "engine_max_batch", "", RF_MACHINE);
	if (el.max_batched_tokens != WL_AUTO)
		rec_int(rec, NULL, "engine_max_batched_tokens", "",
			el.max_batched_tokens, RF_MACHINE);
	else
		rec_null(rec, NULL, "engine_max_batched_tokens", "",
			 RF_MACHINE);
	rec_num(rec, NULL, "memory_fraction", "", el.memory_fraction,
		UNIT_COUNT, RF_MACHINE);
	rec_str(rec, NULL, "memory_fraction_of", "",
		el.fraction_of_free ? "free" : "device", RF_MACHINE);
	if (el.kv_cache_tokens != WL_AUTO)
		rec_int(rec, NULL, "engine_kv_cache_tokens", "",
			el.kv_cache_tokens, RF_MACHINE);
	else
		rec_null(rec, NULL, "engine_kv_cache_tokens", "", RF_MACHINE);
	if (!named)
		return;
	if (el.max_batch != WL_AUTO)
		snprintf(seqs, sizeof(seqs), "%d", el.max_batch);
	else
		snprintf(seqs, sizeof(seqs), "auto");
	snprintf(tokens, sizeof(tokens),
		 el.max_batched_tokens != WL_AUTO ? "%d" : "auto",
		 el.max_batched_tokens);
	if (el.kv_cache_tokens != WL_AUTO)
		snprintf(text, sizeof(text),
			 "%s seq%s, %s tokens/step, KV cache %d tokens", seqs,
			 el.max_batch == 1 ? "" : "s", tokens,
			 el.kv_cache_tokens);
	else
		snprintf(text, sizeof(text),
			 "%s seq%s, %s tokens/step, %.3g of %s", seqs,
			 el.max_batch == 1 ? "" : "s", tokens,
			 el.memory_fraction,
			 el.fraction_of_free ? "free memory" : "memory");
	rec_str(rec, NULL, "engine_limits", "  on this GPU", text, RF_TABLE);
}

static void add_infer_plan(struct record *rec, const struct workload *wl,
			   const struct infer_plan *p,
			   const struct profile *prof)
{
	const struct inference_spec *is = &wl->inference;
	const struct infer_result *r = &p->result;
	const struct infer_memory *m = &r->memory;

	rec_str(rec, NULL, "model", "model",
		wl->model.name[0] ? wl->model.name : "model", 0);
	rec_str(rec, NULL, "gpu", "gpu", p->gpu->name, 0);
	cli_rec_stacks(rec, wl, true, false, 0);
	add_engine_limits(rec, wl, p);
	if (p->config.ep > 1) {
		/* attention data-parallel over ep groups of tp GPUs, the
		   experts spread over all of them */
		rec_int(rec, NULL, "tp", "tensor parallelism (tp)",
			p->config.tp, 0);
		rec_int(rec, NULL, "ep", "expert parallelism (ep)",
			p->config.ep, 0);
		rec_int(rec, NULL, "gpus_per_replica", "GPUs per replica",
			infer_gpus_per_replica(&p->config), 0);
	} else {
		rec_int(rec, NULL, "tp", "GPUs per replica (tp)", p->config.tp,
			0);
	}
	rec_int(rec, NULL, "batch", "batch (concurrent sequences)",
		p->config.batch, 0);
	rec_str(rec, NULL, "weight_precision", "weight precision",
		precision_name(p->config.weight_precision), 0);
	if (p->config.weight_only)
		rec_str(rec, NULL, "weight_math", "  math (weight-only)",
			precision_name(infer_config_math_precision(&p->config)),
			RF_TABLE);
	/* the format the GEMMs run in on this device (int4 weights, and
	   fp4 ones without fp4 tensor cores: 16-bit math; fp8 without fp8
	   tensor cores: bf16); the table names it only when it is not the
	   weights' (bf16 and fp16 count as one) */
	{
		enum precision w = p->config.weight_precision;
		enum precision q = device_math_precision(
			p->gpu, infer_config_math_precision(&p->config));
		bool same = q == w || ((q == PREC_BF16 || q == PREC_FP16) &&
				       (w == PREC_BF16 || w == PREC_FP16));

		rec_str(rec, NULL, "math_precision", "  math on this device",
			q == PREC_COUNT ? "none" : precision_name(q),
			same || p->config.weight_only ? RF_MACHINE : 0);
	}
	rec_bool(rec, NULL, "weight_only", "weight-only (W8A16)",
		 p->config.weight_only, RF_MACHINE);
	/* an MoE's weights outside its routed experts, named by the table
	   when they have a format of their own */
	rec_str(rec, NULL, "non_expert_precision", "  outside the experts",
		precision_name(p->config.non_expert_own ?
				       p->config.non_expert_precision :
				       p->config.weight_precision),
		p->config.non_expert_own ? 0 : RF_MACHINE);
	/* the block scales of fp4 weights; the table names them for fp4 */
	rec_str(rec, NULL, "fp4_format", "  fp4 blocks",
		p->config.weight_precision != PREC_FP4 ? "none" :
		p->config.mxfp4			       ? "mxfp4" :
							 "nvfp4",
		p->config.weight_precision == PREC_FP4 ? 0 : RF_MACHINE);
	rec_str(rec, NULL, "kv_precision", "KV-cache precision",
		precision_name(p->config.kv_precision), 0);
	rec_int(rec, NULL, "prompt_tokens", "prompt tokens",
		p->config.prompt_tokens, 0);
	rec_int(rec, NULL, "output_tokens", "output tokens",
		p->config.output_tokens, 0);
	/* the table names the kernel only when it is not the default */
	rec_str(rec, NULL, "decode_attention", "decode attention",
		p->config.decode_per_head ? "per_head" : "grouped",
		p->config.decode_per_head ? 0 : RF_MACHINE);

	rec_heading(rec, "memory per GPU");
	rec_num(rec, NULL, "weights_bytes", "weights", m->weights_bytes,
		UNIT_BYTES, 0);
	rec_num(rec, NULL, "kv_cache_bytes_per_token",
		"KV cache per token (model)", m->kv_cache_bytes_per_token,
		UNIT_BYTES, 0);
	rec_num(rec, NULL, "kv_cache_bytes", "KV cache (batch, full context)",
		m->kv_cache_bytes, UNIT_BYTES, 0);
	rec_num(rec, NULL, "activations_bytes", "activations",
		m->activations_bytes, UNIT_BYTES, 0);
	rec_num(rec, NULL, "reserve_bytes", "framework reserve",
		m->reserve_bytes, UNIT_BYTES, 0);
	rec_num(rec, NULL, "memory_total_bytes", "total", m->total_bytes,
		UNIT_BYTES, 0);
	rec_num(rec, NULL, "capacity_bytes", "capacity", m->capacity_bytes,
		UNIT_BYTES, 0);
	rec_bool(rec, NULL, "fits", "fits", p->fits, 0);
	rec_int(rec, NULL, "max_batch", "largest batch that fits",
		p->max_batch, 0);
	if (infer_tpot_target_s(is) > 0.0)
		rec_int(rec, NULL, "max_batch_slo",
			"largest batch within TPOT SLO", p->max_batch_slo,
			0);
	else
		rec_null(rec, NULL, "max_batch_slo",
			 "largest batch within TPOT SLO", 0);

	/* a replica at its full batch with no queue: the figures the
	   batch, tp and memory are chosen on; under a load the simulated
	   figures below are what requests see (issue 40: two TPOTs) */
	rec_heading(rec, "latency and throughput (one replica, full batch, "
			 "no queue)");
	rec_num(rec, NULL, "ttft_s", "time to first token", r->ttft_s,
		UNIT_TIME, 0);
	/* a one-token answer has no time per output token */
	rec_num_finite(rec, NULL, "tpot_s", "time per output token",
		       p->config.output_tokens >= 2 ? r->tpot_s : (double)NAN,
		       UNIT_TIME, 0);
	rec_num(rec, NULL, "e2e_latency_s", "end-to-end latency",
		r->e2e_latency_s, UNIT_TIME, 0);
	rec_num(rec, NULL, "throughput_tokens_per_s", "output tokens/s",
		r->throughput_tokens_per_s, UNIT_COUNT, 0);
	rec_num(rec, NULL, "throughput_tokens_per_s_per_gpu",
		"output tokens/s per GPU", r->throughput_tokens_per_s_per_gpu,
		UNIT_COUNT, 0);
	rec_num(rec, NULL, "prefill_flops_per_byte",
		"prefill intensity (FLOP/byte)", r->prefill_flops_per_byte,
		UNIT_KIND_COUNT, 0);
	rec_num(rec, NULL, "decode_flops_per_byte",
		"decode intensity (FLOP/byte)", r->decode_flops_per_byte,
		UNIT_KIND_COUNT, 0);

	rec_heading(rec, "fleet");
	if (p->has_rate && (!p->simulated ||
			    p->fleet.load.arrival == SIM_ARRIVAL_POISSON))
		rec_num(rec, NULL, "qps", "request rate (1/s)", is->qps,
			UNIT_KIND_COUNT, 0);
	else
		rec_null(rec, NULL, "qps", "request rate (1/s)", 0);
	if (p->has_rate || p->simulated)
		rec_num(rec, NULL, "ttft_p_s", "TTFT at the SLO percentile",
			p->ttft_p_s, UNIT_TIME, 0);
	else
		rec_null(rec, NULL, "ttft_p_s", "TTFT at the SLO percentile",
			 0);
	rec_str(rec, NULL, "percentile", "SLO percentile",
		slo_percentile_name(is->percentile), 0);
	rec_int(rec, NULL, "replicas", "replicas", p->replicas, 0);
	add_disagg(rec, p);
	rec_int(rec, NULL, "gpus_total", "GPUs in total", p->gpus_total, 0);
	if ((p->has_rate || p->simulated) && p->utilization > 0.0)
		rec_num(rec, NULL, "utilization", "utilization", p->utilization,
			UNIT_KIND_COUNT, RF_PERCENT);
	else
		rec_null(rec, NULL, "utilization", "utilization", 0);
	rec_bool(rec, NULL, "meets_slo", "meets the SLO", p->meets_slo, 0);

	add_load(rec, wl, p);

	rec_heading(rec, "energy and cost");
	rec_num(rec, NULL, "power_w_per_gpu", "power per GPU", r->gpu_power_w,
		UNIT_POWER, 0);
	rec_num(rec, NULL, "clock_fraction", "math clock (power cap)",
		r->clock_fraction, UNIT_KIND_COUNT, RF_PERCENT);
	rec_num(rec, NULL, "energy_j_per_token", "energy per token (J)",
		r->energy_j_per_token, UNIT_KIND_COUNT, 0);
	rec_num(rec, NULL, "energy_j_per_request", "energy per request (J)",
		r->energy_j_per_token * p->config.output_tokens,
		UNIT_KIND_COUNT, 0);
	rec_num(rec, NULL, "tokens_per_joule", "tokens per joule",
		r->tokens_per_joule, UNIT_KIND_COUNT, 0);
	rec_num(rec, NULL, "cost_usd_per_million_tokens",
		"cost per million tokens", p->cost_usd_per_million_tokens,
		UNIT_MONEY, 0);
	rec_num(rec, NULL, "cost_usd_per_million_input_tokens",
		"  per million input tokens",
		p->cost_usd_per_million_input_tokens, UNIT_MONEY, 0);
	rec_num(rec, NULL, "cost_usd_per_million_output_tokens",
		"  per million output tokens",
		p->cost_usd_per_million_output_tokens, UNIT_MONEY, 0);
	rec_num(rec, NULL, "prefill_time_fraction",
		"  GPU time in prefill", p->prefill_time_fraction,
		UNIT_KIND_COUNT, RF_PERCENT);
	rec_num(rec, NULL, "output_tokens_per_s_per_mw",
		"output tokens/s per MW", p->output_tokens_per_s_per_mw,
		UNIT_COUNT, 0);
	rec_num(rec, NULL, "cost_usd_per_month", "cost per month (fleet)",
		p->cost_usd_per_month, UNIT_MONEY, 0);
	cli_rec_price(rec, &p->cluster, 0);
	add_infer_intervals(rec, wl, p, prof);
	rec_str(rec, NULL, "chosen", "chosen by capplan",
		(p->chosen & (1u << ICHOSE_TP)) ?
			((p->chosen & (1u << ICHOSE_BATCH)) ? "tp,batch" :
							      "tp") :
			((p->chosen & (1u << ICHOSE_BATCH)) ? "batch" : ""),
		RF_MACHINE);
}

/* 'capplan infer --search': every weight precision x tp x batch that
   serves within the SLO, cheapest per token first. */
/* One (precision, tp) of infer --search: 5 formats by tp 1 to 128. */
#define SEARCH_CANDS_MAX 40
/* Candidates sized at once past the first fleets found (search_plan). */
#define SEARCH_WAVE 2
struct search_cand {
	enum precision precision;
	int tp;
	bool ok;        /* planned, fits, meets the SLO */
	bool not_sized; /* needs more GPUs than the k-th shown: not sized */
};

struct search_job {
	const struct workload *wl;
	const struct gpu_spec *gpu;
	struct search_cand *cand;
	struct infer_plan *plans; /* plans[i] for cand[i] */
	const int *pass;          /* the candidates of this pass */
	int bound;                /* 0: measure a replica; INT_MAX: size */
	struct progress *pr;
	struct progress_hook hook;
};

static void search_one(int k, void *arg)
{
	struct search_job *j = arg;
	int i = j->pass[k];
	struct workload w = *j->wl;
	struct infer_plan *p = &j->plans[i];

	w.inference.weight_precision = j->cand[i].precision;
	w.inference.tp = j->cand[i].tp;
	if (j->bound > 0 && p->pruned && p->fleet.capacity_qps > 0.0)
		/* measured by the first pass */
		w.inference.capacity_hint_qps = p->fleet.capacity_qps;
	j->cand[i].ok = infer_plan_make_within(&w, j->gpu, &j->hook, j->bound,
					       p, NULL) == 0 &&
			p->fits && p->meets_slo;
	progress_add(j->pr, 1);
}

/* Plan the candidates of 'pass' (n of them) on the threads. */
static void search_pass(struct search_job *j, const int *pass, int n,
			int bound)
{
	j->pass = pass;
	j->bound = bound;
	cli_parallel_for(n, search_one, j);
}

/* May candidates be left unsized (search_plan)?  A Poisson load whose
   replicas capplan sizes, with more candidates than are shown. */
static bool search_prunes(const struct workload *wl, int evaluated,
			  int keep)
{
	const struct inference_spec *is = &wl->inference;

	return keep < evaluated && serve_has_load(is) &&
	       is->replicas == WL_AUTO &&
	       (!is->disaggregated || is->prefill_replicas == WL_AUTO) &&
	       serve_arrival(is) == SIM_ARRIVAL_POISSON;
}

/*
 * Plan every candidate; where search_prunes, only those that can rank
 * among the 'keep' cheapest (issue 43).  A first pass measures each
 * candidate's replica: the fewest GPUs that keep up with the rate bound
 * the fleet it is sized to from below.  The 'keep' candidates with the
 * lowest bounds are sized, then every other whose bound is not above the
 * keep-th fewest GPUs found: a fleet that keeps up costs its GPUs' price
 * over the offered tokens, so a candidate with more GPUs than the keep-th
 * costs more per token and is not shown.  Such a candidate is not sized
 * (its not_sized set).  Returns how many were not sized.
 */
static int search_plan(struct search_job *j, int evaluated, int keep)
{
	int all[SEARCH_CANDS_MAX], need[SEARCH_CANDS_MAX];
	int gpus[SEARCH_CANDS_MAX];
	int n_need = 0, pos = 0, skipped = 0;

	for (int i = 0; i < evaluated; i++)
		all[i] = i;
	if (!search_prunes(j->wl, evaluated, keep)) {
		search_pass(j, all, evaluated, INT_MAX);
		return 0;
	}
	search_pass(j, all, evaluated, 0);
	for (int i = 0; i < evaluated; i++) {
		int at;

		if (!j->plans[i].pruned) {
			progress_add(j->pr, 1); /* settled: it cannot serve */
			continue;
		}
		/* by its bound, ties in the order of the candidates */
		at = n_need++;
		while (at > 0 && j->plans[need[at - 1]].gpus_total >
					 j->plans[i].gpus_total) {
			need[at] = need[at - 1];
			at--;
		}
		need[at] = i;
	}
	/* in waves, by bound: as many as the shown fleets still missing,
	   then SEARCH_WAVE at a time while their bound is within the
	   keep-th fleet's GPUs (fixed waves: the answer does not depend on
	   the threads) */
	while (pos < n_need) {
		int n_ok = 0, kth = INT_MAX, wave;

		for (int i = 0; i < evaluated; i++) {
			int at;

			if (!j->cand[i].ok)
				continue;
			at = n_ok++;
			while (at > 0 &&
			       gpus[at - 1] > j->plans[i].gpus_total) {
				gpus[at] = gpus[at - 1];
				at--;
			}
			gpus[at] = j->plans[i].gpus_total;
		}
		if (n_ok >= keep)
			kth = gpus[keep - 1];
		if (j->plans[need[pos]].gpus_total > kth)
			break; /* and every later bound */
		wave = n_ok < keep ? keep - n_ok : SEARCH_WAVE;
		if (wave > n_need - pos)
			wave = n_need - pos;
		for (int i = 1; i < wave; i++)
			if (j->plans[need[pos + i]].gpus_total > kth) {
				wave = i;
				break;
			}
		search_pass(j, need + pos, wave, INT_MAX);
		pos += wave;
	}
	for (; pos < n_need; pos++) {
		j->cand[need[pos]].not_sized = true;
		skipped++;
		progress_add(j->pr, 1);
	}
	return skipped;
}

static int infer_search_report(struct cli_ctx *ctx)
{
	static const enum precision formats[] = { PREC_BF16, PREC_FP8,
						  PREC_INT8, PREC_INT4,
						  PREC_FP4 };
	_Static_assert(sizeof(formats) / sizeof(formats[0]) * 8 <=
			       SEARCH_CANDS_MAX,
		       "every format at tp 1 to 128");
	struct infer_plan plans[SEARCH_CANDS_MAX];
	struct search_cand cand[SEARCH_CANDS_MAX];
	struct search_job job = { NULL, NULL, cand, NULL, NULL, 0, NULL, { 0 } };
	int n = 0, k = ctx->top > 0 ? ctx->top : 10, rc, not_sized;
	int evaluated = 0; /* precision x tp pairs planned */
	struct progress pr;
	struct report rep;

	for (size_t f = 0; f < sizeof(formats) / sizeof(formats[0]); f++) {
		/* fp4 where the device has fp4 tensor cores (elsewhere it
		   runs as int4 does, 16-bit math on 4-bit weights) */
		if (formats[f] == PREC_FP4 &&
		    device_math_precision(ctx->gpus[0], PREC_FP4) != PREC_FP4)
			continue;
		for (int tp = 1; tp <= 128; tp *= 2) {
			if (tp > ctx->gpus[0]->gpus_per_node &&
			    ctx->wl.cluster.gpus_per_node < tp)
				break;
			if (ctx->wl.inference.tp != WL_AUTO &&
			    tp != ctx->wl.inference.tp)
				continue;
			memset(&job.cand[evaluated], 0,
			       sizeof(job.cand[evaluated]));
			memset(&plans[evaluated], 0, sizeof(plans[evaluated]));
			job.cand[evaluated].precision = formats[f];
			job.cand[evaluated].tp = tp;
			evaluated++;
		}
	}
	/* each candidate is planned (and its load simulated) on a thread
	   of its own; the order stays that of the candidates */
	job.wl = &ctx->wl;
	job.gpu = ctx->gpus[0];
	job.plans = plans;
	progress_init(&pr, "infer");
	progress_update(&pr, 0,
			(size_t)evaluated *
				(search_prunes(&ctx->wl, evaluated, k) ? 2 : 1),
			"configurations");
	job.pr = &pr;
	job.hook = progress_hook_of(&pr);
	not_sized = search_plan(&job, evaluated, k);
	progress_end(&pr);
	for (int i = 0; i < evaluated; i++)
		if (job.cand[i].ok)
			plans[n++] = plans[i];
	/* cheapest per token first (insertion sort: a few dozen plans) */
	for (int i = 1; i < n; i++) {
		struct infer_plan t = plans[i];
		int j = i;

		while (j > 0 && plans[j - 1].cost_usd_per_million_tokens >
					t.cost_usd_per_million_tokens) {
			plans[j] = plans[j - 1];
			j--;
		}
		plans[j] = t;
	}
	report_init(&rep, true);
	rep.list_key = "configurations";
	snprintf(rep.title, sizeof(rep.title),
		 "Serving configurations: %s on %s, cheapest per token first",
		 ctx->wl.model.name[0] ? ctx->wl.model.name : "model",
		 ctx->gpus[0]->name);
	rec_str(&rep.meta, NULL, "model", "model",
		ctx->wl.model.name[0] ? ctx->wl.model.name : "model", 0);
	rec_str(&rep.meta, NULL, "gpu", "gpu", ctx->gpus[0]->name, 0);
	rec_int(&rep.meta, NULL, "configs_evaluated",
		"configurations evaluated", evaluated, 0);
	rec_int(&rep.meta, NULL, "configs_feasible", "feasible", n, 0);
	/* (the table shows the count only when there is one) */
	rec_int(&rep.meta, NULL, "configs_not_sized",
		"not sized (cannot rank)", not_sized,
		not_sized > 0 ? 0 : RF_MACHINE);
	cli_rec_price(&rep.meta, n > 0 ? &plans[0].cluster : NULL, 0);
	for (int i = 0; i < n && i < k; i++) {
		const struct infer_plan *p = &plans[i];
		struct record *rec = report_add_record(&rep);

		if (!rec) {
			report_release(&rep);
			fprintf(stderr, "capplan: error: out of memory\n");
			return EXIT_INTERNAL;
		}
		rec_int(rec, NULL, "rank", "#", i + 1, RF_GRID);
		rec_str(rec, NULL, "weight_precision", "weights",
			precision_name(p->config.weight_precision), RF_GRID);
		rec_int(rec, NULL, "tp", "tp", p->config.tp, RF_GRID);
		rec_int(rec, NULL, "batch", "batch", p->config.batch, RF_GRID);
		rec_num(rec, NULL, "ttft_s", "TTFT", p->result.ttft_s,
			UNIT_TIME, RF_GRID);
		rec_num_finite(rec, NULL, "tpot_s", "TPOT",
			       p->config.output_tokens >= 2 ?
				       p->result.tpot_s :
				       (double)NAN,
			       UNIT_TIME, RF_GRID);
		rec_num(rec, NULL, "throughput_tokens_per_s_per_gpu",
			"tok/s/GPU", p->result.throughput_tokens_per_s_per_gpu,
			UNIT_COUNT, RF_GRID);
		rec_int(rec, NULL, "replicas", "replicas", p->replicas,
			RF_GRID);
		rec_int(rec, NULL, "gpus_total", "GPUs", p->gpus_total,
			RF_GRID);
		rec_num(rec, NULL, "energy_j_per_token", "J/token",
			p->result.energy_j_per_token, UNIT_KIND_COUNT, RF_GRID);
		rec_num(rec, NULL, "cost_usd_per_million_tokens", "$/Mtok",
			p->cost_usd_per_million_tokens, UNIT_MONEY, RF_GRID);
	}
	report_note(&rep, "quantization can cost accuracy: capplan models "
			  "speed and memory, not model quality");
	if (n == 0)
		report_note(&rep, "no precision, tp and batch serves within "
				  "the SLO and memory");
	if (not_sized > 0)
		report_note(&rep, "%d configuration%s not sized: keeping up "
				  "with the rate takes more GPUs than #%d has "
				  "(--top sizes more)",
			    not_sized, not_sized == 1 ? " was" : "s were", k);
	rc = cli_emit(ctx, &rep);
	report_release(&rep);
	return rc == EXIT_OK && n == 0 ? EXIT_INFEASIBLE : rc;
}

/* The catalog's devices (at most CLI_MAX_GPUS), for suggestions. */
static int catalog_devices(const struct cli_ctx *ctx,
			   const struct gpu_spec *all[CLI_MAX_GPUS])
{
	int n = 0;

	for (size_t i = 0; i < catalog_count(ctx->cat) && n < CLI_MAX_GPUS;
	     i++)
		all[n++] = catalog_at(ctx->cat, i);
	return n;
}

/* 'capplan infer' for a network costed per sample. */
/* The parts of a served batch's latency, and a recommender's tables
   (specs/output.md, per-sample models). */
static void add_sample_latency(struct record *rec, const struct workload *wl,
			       const struct sample_infer *r)
{
	const char *g = "latency";

	rec_num(rec, g, "gpu_s", "  kernels on the GPU", r->gpu_s, UNIT_TIME,
		0);
	rec_num(rec, g, "host_s", "  framework per batch", r->host_s,
		UNIT_TIME, 0);
	rec_num(rec, g, "request_s", "  server per request", r->request_s,
		UNIT_TIME, 0);
	rec_num(rec, g, "copy_s", "  inputs to the GPU", r->copy_s, UNIT_TIME,
		0);
	rec_num(rec, g, "kernels", "  kernels per batch", r->kernels,
		UNIT_COUNT, 0);
	rec_bool(rec, g, "launch_bound", "  host-bound kernel launches",
		 r->launch_bound, 0);
	if (wl->model.kind != MODEL_RECSYS)
		return;
	g = "embeddings";
	rec_heading(rec, "embedding tables (per GPU)");
	rec_str(rec, g, "sharding", "placement",
		recsys_sharding_name(r->place.sharding), 0);
	rec_num(rec, g, "tables_per_gpu", "tables on the busiest GPU",
		r->place.tables_max, UNIT_COUNT, 0);
	rec_num(rec, g, "hbm_bytes", "in HBM", r->place.hbm_bytes, UNIT_BYTES,
		0);
	rec_num(rec, g, "offload_bytes", "in host memory or on SSD",
		r->place.offload_bytes, UNIT_BYTES, 0);
	rec_str(rec, g, "tier", "beyond HBM", recsys_tier_name(r->place.tier),
		0);
	rec_num(rec, g, "cache_hit_rate", "HBM cache hit rate",
		r->place.hit_rate, UNIT_KIND_COUNT, RF_PERCENT);
	rec_num(rec, g, "lookup_s", "lookups per batch", r->emb_s, UNIT_TIME,
		0);
	rec_num(rec, g, "miss_s", "cache misses per batch", r->miss_s,
		UNIT_TIME, 0);
	rec_num(rec, g, "alltoall_s", "all-to-all per batch", r->a2a_s,
		UNIT_TIME, 0);
	rec_num(rec, g, "dense_s", "dense network per batch", r->dense_s,
		UNIT_TIME, 0);
}

/* A per-sample model's serving plan (specs/output.md). */
static void add_sample_plan(struct record *rec, const struct workload *wl,
			    const struct sample_serve_plan *p,
			    const struct profile *prof)
{
	rec_str(rec, NULL, "model", "model",
		wl->model.name[0] ? wl->model.name : "model", 0);
	rec_str(rec, NULL, "kind", "kind", model_kind_name(wl->model.kind),
		0);
	rec_str(rec, NULL, "gpu", "gpu", p->gpu->name, 0);
	rec_int(rec, NULL, "tp", "GPUs per replica", p->tp, 0);
	rec_int(rec, NULL, "batch", "batch (samples)", p->batch, 0);
	rec_heading(rec, "memory per GPU");
	rec_num(rec, NULL, "weights_bytes", "weights and tables",
		p->result.weights_bytes, UNIT_BYTES, 0);
	rec_num(rec, NULL, "memory_total_bytes", "total",
		p->result.memory_total_bytes, UNIT_BYTES, 0);
	rec_num(rec, NULL, "capacity_bytes", "capacity",
		p->result.capacity_bytes, UNIT_BYTES, 0);
	rec_bool(rec, NULL, "fits", "fits", p->result.fits, 0);
	rec_heading(rec, "latency and throughput (one replica)");
	rec_num(rec, NULL, "latency_s", "batch latency", p->result.latency_s,
		UNIT_TIME, 0);
	rec_num(rec, NULL, "throughput_samples_per_s", "samples/s",
		p->result.throughput_per_s, UNIT_COUNT, 0);
	rec_num(rec, NULL, "throughput_samples_per_s_per_gpu",
		"samples/s per GPU", p->result.throughput_per_s / p->tp,
		UNIT_COUNT, 0);
	add_sample_latency(rec, wl, &p->result);
	rec_heading(rec, "fleet");
	if (p->has_rate) {
		rec_num(rec, NULL, "qps", "request rate (samples/s)",
			wl->inference.qps, UNIT_COUNT, 0);
		rec_num(rec, NULL, "latency_p_s", "latency at the percentile",
			p->latency_p_s, UNIT_TIME, 0);
	} else {
		rec_null(rec, NULL, "qps", "request rate (samples/s)", 0);
		rec_null(rec, NULL, "latency_p_s", "latency at the percentile",
			 0);
	}
	rec_int(rec, NULL, "replicas", "replicas", p->replicas, 0);
	rec_int(rec, NULL, "gpus_total", "GPUs in total", p->gpus_total, 0);
	if (p->has_rate && p->utilization > 0.0)
		rec_num(rec, NULL, "utilization", "utilization", p->utilization,
			UNIT_KIND_COUNT, RF_PERCENT);
	else
		rec_null(rec, NULL, "utilization", "utilization", 0);
	rec_bool(rec, NULL, "meets_slo", "meets the SLO", p->meets_slo, 0);
	rec_heading(rec, "energy and cost");
	rec_num(rec, NULL, "power_w_per_gpu", "power per GPU",
		p->result.gpu_power_w, UNIT_POWER, 0);
	rec_num(rec, NULL, "energy_j_per_sample", "energy per sample (J)",
		p->energy_j_per_sample, UNIT_KIND_COUNT, 0);
	rec_num(rec, NULL, "cost_usd_per_million_samples",
		"cost per million samples", p->cost_usd_per_million_samples,
		UNIT_MONEY, 0);
	rec_num(rec, NULL, "cost_usd_per_month", "cost per month (fleet)",
		p->cost_usd_per_month, UNIT_MONEY, 0);
	cli_rec_price(rec, &p->cluster, 0);
	{
		/* one replica's batch, from the per-sample serving rows */
		const struct cli_estimate est[] = {
			{ INTERVAL_SAMPLE_SERVING, "latency_s",
			  "  batch latency", p->result.latency_s, true,
			  UNIT_TIME, 0, false, { 0.0, 0.0 } },
			{ INTERVAL_SAMPLE_SERVING, "throughput_samples_per_s",
			  "  samples/s", p->result.throughput_per_s, false,
			  UNIT_COUNT, 0, false, { 0.0, 0.0 } },
			{ INTERVAL_SAMPLE_SERVING,
			  "throughput_samples_per_s_per_gpu",
			  "  samples/s per GPU",
			  p->result.throughput_per_s / p->tp, false, UNIT_COUNT,
			  RF_MACHINE, false, { 0.0, 0.0 } },
		};
		struct cli_basis b;

		cli_basis_init(&b, prof, p->gpu->name, wl);
		cli_rec_intervals(rec, &b, est,
				  (int)(sizeof(est) / sizeof(est[0])));
	}
}

static int sample_serve_report(struct cli_ctx *ctx)
{
	struct sample_serve_plan p;
	struct report rep;
	struct record *rec;
	struct diag err;
	int rc;

	diag_clear(&err);
	if (sample_serve_plan_make(&ctx->wl, ctx->gpus[0], &p, &err) != 0) {
		diag_print(stderr, &err);
		return EXIT_INFEASIBLE;
	}
	report_init(&rep, false);
	snprintf(rep.title, sizeof(rep.title), "Serving plan: %s on %s",
		 ctx->wl.model.name[0] ? ctx->wl.model.name : "model",
		 p.gpu->name);
	rec = report_add_record(&rep);
	if (!rec) {
		fprintf(stderr, "capplan: error: out of memory\n");
		return EXIT_INTERNAL;
	}
	add_sample_plan(rec, &ctx->wl, &p, ctx->profile);
	if (ctx->wl.model.kind == MODEL_GENERIC && ctx->wl.model.graph.n_ops &&
	    ctx->wl.inference.fusion)
		report_note(&rep,
			    "costed operator by operator from '%s': %.0f "
			    "operators, %.0f of them fused into their "
			    "producers as an inference engine fuses them "
			    "(inference.fusion)",
			    ctx->wl.model.onnx, ctx->wl.model.graph.nodes,
			    ctx->wl.model.graph.fused);
	else if (ctx->wl.model.kind == MODEL_GENERIC &&
		 ctx->wl.model.graph.n_ops)
		report_note(&rep,
			    "costed operator by operator from '%s': %.0f "
			    "operators run as an eager framework runs them, "
			    "%.0f of them inside one framework operator "
			    "(SiLU, GELU, a Linear's bias, attention); "
			    "inference.fusion = true fuses %.0f as an "
			    "inference engine does",
			    ctx->wl.model.onnx, ctx->wl.model.graph.nodes,
			    ctx->wl.model.graph.efused,
			    ctx->wl.model.graph.fused);
	if (ctx->wl.model.kind == MODEL_GENERIC &&
	    ctx->wl.model.graph.norms_folded)
		report_note(&rep,
			    "the graph has no normalization: %s",
			    ctx->wl.inference.fusion ?
				    "its batch norms stay folded into the "
				    "convolutions, as the export and an "
				    "inference engine fold them" :
				    "served eagerly, its convolutions run "
				    "the batch norms an inference export "
				    "folds into them, as the framework "
				    "serving the network does");
	if (ctx->wl.model.kind == MODEL_GENERIC &&
	    ctx->wl.model.graph.written_norms > 0.0) {
		char note[160];

		report_note(&rep, "%s",
			    graph_norms_note(&ctx->wl.model.graph, note,
					     sizeof(note)));
	}
	if (ctx->wl.model.kind == MODEL_GENERIC && ctx->wl.model.graph.n_ops) {
		double kind_s[GOP_KINDS];
		char shares[256];

		if (sample_graph_infer_kinds(&ctx->wl.model, p.tp, p.batch,
					     ctx->wl.inference.weight_precision,
					     ctx->wl.inference.fusion, p.gpu,
					     kind_s) == 0) {
			graph_kind_shares(kind_s, shares, sizeof(shares));
			report_note(&rep, "batch time by operator kind: %s",
				    shares);
		}
	} else if (ctx->wl.model.kind == MODEL_GENERIC)
		report_note(&rep,
			    "a network given by params and flops_per_sample "
			    "is one roofline over its totals: memory-bound "
			    "layers do not show; [model] onnx costs it "
			    "operator by operator");
	if (!p.meets_slo) {
		const struct gpu_spec *all[CLI_MAX_GPUS];
		char hint[REPORT_NOTE_MAX - 64];
		int n = catalog_devices(ctx, all);

		sample_serve_suggest(&ctx->wl, p.gpu, all, n, hint,
				     sizeof(hint));
		report_note(&rep, "no feasible plan: %s", p.why);
		report_note(&rep, "what would meet it: %s", hint);
	}
	rc = cli_emit(ctx, &rep);
	report_release(&rep);
	return rc == EXIT_OK && !p.meets_slo ? EXIT_INFEASIBLE : rc;
}

int cmd_infer(struct cli_ctx *ctx)
{
	struct infer_plan p;
	struct engine_limits el;
	struct progress pr;
	struct progress_hook hook;
	struct report rep;
	struct record *rec;
	struct diag err;
	int rc;

	rc = cli_load_workload(ctx);
	if (rc == EXIT_OK)
		rc = cli_resolve_gpus(ctx, false);
	if (rc != EXIT_OK)
		return rc;
	if (ctx->ngpus != 1)
		return cli_usage("infer", "%s",
				 "infer needs one --gpu NAME ('capplan "
				 "catalog' lists them)");
	if (ctx->wl.model.kind != MODEL_TRANSFORMER) {
		rc = ctx->search || ctx->top > 0 ?
			     cli_transformer_only(ctx, "--search (or --top)") :
			     EXIT_OK;
		return rc != EXIT_OK ? rc : sample_serve_report(ctx);
	}
	if (!model_has_arch(&ctx->wl.model)) {
		cli_message(cli_input_name(ctx),
			    ": inference needs the architecture: give "
			    "[model] layers, hidden, heads, vocab and seq_len");
		return EXIT_INFEASIBLE;
	}
	if (ctx->search || ctx->top > 0)
		return infer_search_report(ctx);
	diag_clear(&err);
	progress_init(&pr, "infer");
	hook = progress_hook_of(&pr);
	if (infer_plan_make_progress(&ctx->wl, ctx->gpus[0], &hook, &p,
				     &err) != 0) {
		progress_end(&pr);
		diag_print(stderr, &err);
		return err.kind == DIAG_NOMEM ? EXIT_INTERNAL : EXIT_INFEASIBLE;
	}
	report_init(&rep, false);
	snprintf(rep.title, sizeof(rep.title), "Serving plan: %s on %s",
		 ctx->wl.model.name[0] ? ctx->wl.model.name : "model",
		 p.gpu->name);
	rec = report_add_record(&rep);
	if (!rec) {
		progress_end(&pr);
		fprintf(stderr, "capplan: error: out of memory\n");
		return EXIT_INTERNAL;
	}
	add_infer_plan(rec, &ctx->wl, &p, ctx->profile);
	if (p.chosen) {
		char tp[32] = "", batch[32] = "";

		if (p.chosen & (1u << ICHOSE_TP))
			snprintf(tp, sizeof(tp), " inference.tp=%d",
				 p.config.tp);
		if (p.chosen & (1u << ICHOSE_BATCH))
			snprintf(batch, sizeof(batch), " inference.batch=%d",
				 p.config.batch);
		report_note(&rep, "chosen by capplan:%s%s", tp, batch);
	}
	cli_note_profile(&rep, ctx, p.gpu->name);
	/* draws longer than the context, shortened: the load is not the one
	   asked for (issue 40) */
	if (p.simulated && p.fleet.sim.shortened_requests > 0)
		report_note(&rep,
			    "%d of %d simulated requests were drawn longer "
			    "than the model's context (seq_len %d) and "
			    "shortened to it: the load is lighter than asked",
			    p.fleet.sim.shortened_requests,
			    p.fleet.sim.simulated_requests,
			    ctx->wl.model.seq_len);
	engine_limits_on(&ctx->wl, p.gpu, p.config.tp, &el);
	/* the running-sequence limit binds: requests queue while memory
	   would hold more at once (a newcomer's edge example with
	   batch = 1 and four clients waited 9.9 s without a word) */
	if (p.simulated && !p.fleet.disagg &&
	    p.fleet.engine.max_batch < p.max_batch &&
	    p.fleet.sim.mean_batch >=
		    batch_full_fraction * p.fleet.engine.max_batch &&
	    p.fleet.sim.queue_wait_p99_s >
		    queue_wait_ttft_fraction * p.fleet.sim.ttft_p99_s)
		report_note(&rep,
			    "each replica runs at most %d sequence%s (%s) and "
			    "requests wait up to %.3g s in its queue (p99); "
			    "memory holds %d: a larger %s serves more at once",
			    p.fleet.engine.max_batch,
			    p.fleet.engine.max_batch == 1 ? "" : "s",
			    ctx->wl.inference.max_batch != WL_AUTO ?
				    "inference.max_batch" :
			    el.max_batch != WL_AUTO ?
				    "the engine's default on this GPU" :
			    ctx->wl.inference.batch != WL_AUTO ?
				    "inference.batch" :
				    "the batch capplan chose",
			    p.fleet.sim.queue_wait_p99_s, p.max_batch,
			    ctx->wl.inference.max_batch != WL_AUTO ||
					    el.max_batch != WL_AUTO ?
				    "inference.max_batch" :
				    "inference.batch");
	if (!p.fits || !p.meets_slo) {
		const struct gpu_spec *all[CLI_MAX_GPUS];
		char hint[REPORT_NOTE_MAX - 64];
		int n = catalog_devices(ctx, all);

		progress_phase(&pr, 0, 0, "looking for what would meet it");
		if (p.kv_capped_tokens > 0)
			/* no device changes the engine's own cap */
			snprintf(hint, sizeof(hint),
				 "inference.kv_cache_tokens of at least %d (the "
				 "engine's context size, llama.cpp's -c), or "
				 "shorter requests", p.kv_capped_tokens);
		else
			infer_plan_suggest(&ctx->wl, p.gpu, all, n, hint,
					   sizeof(hint));
		report_note(&rep, "no feasible plan: %s", p.why);
		report_note(&rep, "what would meet it: %s", hint);
	}
	progress_end(&pr);
	rc = cli_emit(ctx, &rep);
	report_release(&rep);
	if (rc == EXIT_OK && (!p.fits || !p.meets_slo))
		rc = EXIT_INFEASIBLE;
	return rc;
}

int cli_infer_record(const struct workload *wl, const struct gpu_spec *g,
		     struct infer_plan *p, struct record *rec,
		     struct diag *err)
{
	if (infer_plan_make(wl, g, p, err) != 0)
		return -1;
	memset(rec, 0, sizeof(*rec));
	add_infer_plan(rec, wl, p, NULL);
	return 0;
}

int cli_sample_record(const struct workload *wl, const struct gpu_spec *g,
		      struct sample_serve_plan *p, struct record *rec,
		      struct diag *err)
{
	if (sample_serve_plan_make(wl, g, p, err) != 0)
		return -1;
	memset(rec, 0, sizeof(*rec));
	add_sample_plan(rec, wl, p, NULL);
	return 0;
}

int cli_sample_fix(const struct sample_serve_plan *p, struct workload *wl,
		   struct diag *err)
{
	char expr[64];

	snprintf(expr, sizeof(expr), "inference.tp=%d", p->tp);
	if (workload_set(wl, expr, err) != 0)
		return -1;
	snprintf(expr, sizeof(expr), "inference.batch=%d", p->batch);
	return workload_set(wl, expr, err) != 0 ? -1 : 0;
}

int cli_infer_fix(const struct infer_plan *p, struct workload *wl,
		  struct diag *err)
{
	char expr[64];

	snprintf(expr, sizeof(expr), "inference.tp=%d", p->config.tp);
	if (workload_set(wl, expr, err) != 0)
		return -1;
	snprintf(expr, sizeof(expr), "inference.batch=%d", p->config.batch);
	if (workload_set(wl, expr, err) != 0)
		return -1;
	if (serve_has_load(&wl->inference) && !wl->inference.disaggregated &&
	    wl->inference.replicas == WL_AUTO && p->replicas > 0) {
		snprintf(expr, sizeof(expr), "inference.replicas=%d",
			 p->replicas);
		if (workload_set(wl, expr, err) != 0)
			return -1;
	}
	/* a measurement is what happened: no target decides whether the
	   fleet is simulated */
	wl->inference.ttft_slo_s = 0.0;
	wl->inference.tpot_slo_s = 0.0;
	return 0;
}

