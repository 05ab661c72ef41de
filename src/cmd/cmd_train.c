/* cmd_train.c - 'capplan train' and 'capplan fit': training plans as
   reports.  Field names are specified in specs/output.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "interval.h"
#include "model_recsys.h"
#include "model_recsys_dense.h"
#include "model_sample.h"
#include "plan.h"
#include "search.h"

/* Largest cluster 'fit' tries when suggesting more GPUs. */
static const int fit_max_gpus = 1 << 17;

static const char *model_name(const struct workload *wl)
{
	return wl->model.name[0] ? wl->model.name : "model";
}

/* "training.tp=8, training.pp=4" for the keys capplan chose. */
static void chosen_list(const struct train_plan *p, char *buf, size_t n,
			bool with_values)
{
	const struct train_config *c = &p->config;
	struct train_stages stages = { 0, 0, 0 };
	size_t len = 0;

	buf[0] = '\0';
	if (p->has_arch && !p->per_sample)
		train_stage_split(&p->arch, c, &stages);
	for (int k = 0; k < CHOSE_COUNT && len < n; k++) {
		char val[48];

		if (!(p->chosen & (1u << k)))
			continue;
		switch ((enum plan_choice)k) {
		case CHOSE_GPUS: snprintf(val, sizeof(val), "%d", c->gpus); break;
		case CHOSE_GLOBAL_BATCH:
			snprintf(val, sizeof(val), "%d", c->global_batch);
			break;
		case CHOSE_MICRO_BATCH:
			snprintf(val, sizeof(val), "%d", c->micro_batch);
			break;
		case CHOSE_TP: snprintf(val, sizeof(val), "%d", c->tp); break;
		case CHOSE_PP: snprintf(val, sizeof(val), "%d", c->pp); break;
		case CHOSE_VP: snprintf(val, sizeof(val), "%d", c->vp); break;
		case CHOSE_FIRST_STAGE:
			snprintf(val, sizeof(val), "%d", stages.first);
			break;
		case CHOSE_LAST_STAGE:
			snprintf(val, sizeof(val), "%d", stages.last);
			break;
		case CHOSE_CP: snprintf(val, sizeof(val), "%d", c->cp); break;
		case CHOSE_EP:
			snprintf(val, sizeof(val), "%d", train_config_ep(c));
			break;
		case CHOSE_ZERO: snprintf(val, sizeof(val), "%d", c->zero); break;
		case CHOSE_ZERO_SHARD: /* never chosen */
			break;
		case CHOSE_RECOMPUTE:
			snprintf(val, sizeof(val), "%s",
				 recompute_name(c->recompute));
			break;
		case CHOSE_SEQUENCE_PARALLEL:
			snprintf(val, sizeof(val), "%s",
				 c->sequence_parallel ? "true" : "false");
			break;
		case CHOSE_OVERLAP:
			snprintf(val, sizeof(val), "%s",
				 c->overlap_grad_reduce ? "true" : "false");
			break;
		case CHOSE_TP_OVERLAP:
			snprintf(val, sizeof(val), "%s",
				 c->tp_comm_overlap ? "true" : "false");
			break;
		case CHOSE_OFFLOAD:
			snprintf(val, sizeof(val), "%g", c->offload_fraction);
			break;
		case CHOSE_RECOMPUTE_LAYERS:
			snprintf(val, sizeof(val), "%d", c->recompute_layers);
			break;
		case CHOSE_TOKENS:
			snprintf(val, sizeof(val), "%.4g (20 x params)",
				 p->tokens);
			break;
		case CHOSE_COUNT: break;
		}
		/* machine form: the key without its section ("tp"), all
		   choices being training keys; human form: "training.tp=8" */
		const char *key = plan_choice_key((enum plan_choice)k);

		if (!with_values && strncmp(key, "training.", 9) == 0)
			key += 9;
		len += (size_t)snprintf(buf + len, n - len, "%s%s%s%s",
					len ? (with_values ? ", " : ",") : "",
					key, with_values ? "=" : "",
					with_values ? val : "");
	}
}

static void add_memory(struct record *rec, const struct train_memory *m,
		       int grid)
{
	const char *g = "memory";

	rec_num(rec, g, "weights_bytes", "weights", m->weights_bytes,
		UNIT_BYTES, grid);
	rec_num(rec, g, "gradients_bytes", "gradients", m->gradients_bytes,
		UNIT_BYTES, grid);
	rec_num(rec, g, "optimizer_bytes", "optimizer states",
		m->optimizer_bytes, UNIT_BYTES, grid);
	rec_num(rec, g, "activations_bytes", "activations",
		m->activations_bytes, UNIT_BYTES, grid);
	rec_num(rec, g, "reserve_bytes", "framework reserve", m->reserve_bytes,
		UNIT_BYTES, 0);
	rec_num(rec, g, "total_bytes", "total", m->total_bytes, UNIT_BYTES,
		grid);
	rec_num(rec, g, "capacity_bytes", "capacity", m->capacity_bytes,
		UNIT_BYTES, grid);
	/* the host side of an optimizer offload, per node */
	rec_num(rec, g, "host_bytes", "host memory per node (offload)",
		m->node_host_bytes, UNIT_BYTES, 0);
	if (m->host_capacity_bytes > 0.0)
		rec_num(rec, g, "host_capacity_bytes", "  host capacity",
			m->host_capacity_bytes, UNIT_BYTES, 0);
	else
		rec_null(rec, g, "host_capacity_bytes", "  host capacity", 0);
	rec_bool(rec, g, "fits", "fits", m->fits, grid);
}

/* An integer, or null when the plan has no architecture to decide it. */
static void rec_int_or_null(struct record *rec, const char *key,
			    const char *label, long long v, bool known)
{
	if (known)
		rec_int(rec, NULL, key, label, v, 0);
	else
		rec_null(rec, NULL, key, label, 0);
}

/* What a generic network given by its totals cannot show. */
static const char generic_totals_note[] =
	"a network given by params and flops_per_sample is one roofline "
	"over its totals: memory-bound layers (depthwise convolutions, "
	"squeeze-excitation, normalization) do not show; [model] onnx "
	"costs it operator by operator";

/* Layers of the first and last pipeline stage; null without layers. */
static void add_stage_layers(struct record *rec, const struct train_plan *p,
			     const struct train_config *c, int flags)
{
	struct train_stages s;

	if (!p->has_arch || p->per_sample) {
		rec_null(rec, NULL, "first_stage_layers", "first stage layers",
			 flags);
		rec_null(rec, NULL, "last_stage_layers", "last stage layers",
			 flags);
		return;
	}
	train_stage_split(&p->arch, c, &s);
	rec_int(rec, NULL, "first_stage_layers", "first stage layers",
		s.first, flags);
	rec_int(rec, NULL, "last_stage_layers", "last stage layers", s.last,
		flags);
}

/* Layers of each pipeline chunk that full recomputation repeats: the
   configuration's count, or the whole chunk; 0 without it. */
static int recomputed_layers(const struct train_plan *p,
			     const struct train_config *c)
{
	if (c->recompute != RECOMPUTE_FULL)
		return 0;
	return c->recompute_layers > 0 ? c->recompute_layers :
					 train_chunk_layers(&p->arch, c);
}

/* How many configurations the search enumerated, found legal and
   fitting, and timed. */
static void add_counts(struct record *rec, const struct train_plan *p,
		       int flags)
{
	rec_int(rec, NULL, "configs_enumerated", "configurations enumerated",
		p->enumerated, flags);
	rec_int(rec, NULL, "configs_legal", "legal", p->legal, flags);
	rec_int(rec, NULL, "configs_fitting", "fitting", p->fitting, flags);
	rec_int(rec, NULL, "configs_evaluated", "evaluated", p->evaluated,
		flags);
}

static void add_config(struct record *rec, const struct train_plan *p)
{
	const struct train_config *c = &p->config;
	bool k = p->has_arch;

	rec_int(rec, NULL, "tp", "tensor parallel (tp)", c->tp, 0);
	rec_int(rec, NULL, "pp", "pipeline parallel (pp)", c->pp, 0);
	rec_int_or_null(rec, "vp", "virtual stages (vp)", c->vp, k);
	add_stage_layers(rec, p, c, 0);
	rec_int(rec, NULL, "cp", "context parallel (cp)", c->cp, 0);
	rec_int(rec, NULL, "ep", "expert parallel (ep)", train_config_ep(c),
		0);
	rec_int(rec, NULL, "dp", "data parallel (dp)", c->dp, 0);
	rec_int_or_null(rec, "micro_batch",
			p->per_sample ? "micro-batch (samples)" :
					"micro-batch (sequences)",
			c->micro_batch, k);
	rec_int_or_null(rec, "global_batch",
			p->per_sample ? "global batch (samples)" :
					"global batch (sequences)",
			c->global_batch, k);
	rec_int(rec, NULL, "zero", "ZeRO stage", c->zero, 0);
	if (k) {
		char mods[96];

		/* the ranks one copy of the sharded states spans: dp * cp,
		   or with hybrid sharding those within a node */
		rec_int_or_null(rec, "zero_shard_ranks",
				"  shard group (ranks)",
				train_config_zero_shards(c, NULL),
				c->zero >= 1);

		rec_str(rec, NULL, "recompute", "recomputation",
			recompute_name(c->recompute), 0);
		if (c->recompute == RECOMPUTE_SELECTIVE)
			rec_str(rec, NULL, "recompute_modules",
				"  recomputed modules",
				recompute_modules_text(
					train_config_recompute_modules(c),
					mods, sizeof(mods)),
				0);
		else
			rec_null(rec, NULL, "recompute_modules",
				 "  recomputed modules", 0);
		rec_int(rec, NULL, "recompute_layers",
			"  layers recomputed per chunk",
			recomputed_layers(p, c), 0);
		rec_bool(rec, NULL, "sequence_parallel", "sequence parallel",
			 c->sequence_parallel, 0);
		rec_bool(rec, NULL, "tp_comm_overlap",
			 "tensor-parallel comm overlap",
			 c->tp_comm_overlap && c->tp > 1, 0);
		rec_bool(rec, NULL, "overlap_grad_reduce",
			 "gradient-reduction overlap", c->overlap_grad_reduce,
			 0);
		rec_num(rec, NULL, "offload_optimizer",
			"optimizer states on the host", c->offload_fraction,
			UNIT_KIND_COUNT, RF_PERCENT);
	} else {
		rec_null(rec, NULL, "recompute", "recomputation", 0);
		rec_null(rec, NULL, "recompute_modules",
			 "  recomputed modules", 0);
		rec_null(rec, NULL, "recompute_layers",
			 "  layers recomputed per chunk", 0);
		rec_null(rec, NULL, "sequence_parallel", "sequence parallel",
			 0);
		rec_null(rec, NULL, "tp_comm_overlap",
			 "tensor-parallel comm overlap", 0);
		rec_null(rec, NULL, "overlap_grad_reduce",
			 "gradient-reduction overlap", 0);
		/* a params-only plan applies a given offload to its states */
		rec_num(rec, NULL, "offload_optimizer",
			"optimizer states on the host", c->offload_fraction,
			UNIT_KIND_COUNT, RF_PERCENT);
	}
	rec_str(rec, NULL, "precision", "precision",
		precision_name(c->precision), 0);
}

/* The 80% intervals of the headline figures (interval.h); null without
   an architecture, and for the time, GPU-hours and cost of a job that
   does not finish. */
static void add_intervals(struct record *rec, const struct workload *wl,
			  const struct train_plan *p,
			  const struct profile *prof)
{
	const struct train_result *r = &p->result;
	const struct run_cost *run = &p->run;
	double na = p->has_arch ? 1.0 : (double)NAN;
	int cls = p->per_sample ? INTERVAL_PER_SAMPLE : INTERVAL_TRAINING;
	struct cli_basis b;
	struct cli_estimate est[] = {
		{ cls, "step_time_s", "  step time", na * r->time.step_s, true,
		  UNIT_TIME, 0, false, { 0.0, 0.0 } },
		{ cls, "tokens_per_s",
		  p->per_sample ? "  samples/s" : "  tokens/s",
		  na * r->tokens_per_s, false, UNIT_COUNT, 0,
		  false, { 0.0, 0.0 } },
		{ cls, "tokens_per_s_per_gpu",
		  p->per_sample ? "  samples/s per GPU" : "  tokens/s per GPU",
		  na * r->tokens_per_s_per_gpu, false, UNIT_COUNT, 0,
		  false, { 0.0, 0.0 } },
		/* a per-sample model's rate under its own name (calibrate
		   takes samples_per_s): null for a transformer */
		{ cls, "samples_per_s", "  samples/s",
		  p->per_sample ? na * r->tokens_per_s : (double)NAN, false,
		  UNIT_COUNT, RF_MACHINE, false, { 0.0, 0.0 } },
		{ cls, "model_tflops_per_gpu", "  model TFLOP/s per GPU",
		  na * r->model_flops_per_gpu / 1e12, false, UNIT_KIND_COUNT,
		  0, false, { 0.0, 0.0 } },
		{ cls, "hardware_tflops_per_gpu", "  hardware TFLOP/s per GPU",
		  na * r->hw_flops_per_gpu / 1e12, false, UNIT_KIND_COUNT, 0,
		  false, { 0.0, 0.0 } },
		{ cls, "mfu", "  MFU", na * r->mfu, false, UNIT_KIND_COUNT,
		  RF_PERCENT, false, { 0.0, 0.0 } },
		{ cls, "time_to_train_s", "  time to train", na * run->time_s, true,
		  UNIT_TIME, 0, false, { 0.0, 0.0 } },
		{ cls, "gpu_hours", "  GPU-hours", na * run->gpu_hours, true,
		  UNIT_COUNT, 0, false, { 0.0, 0.0 } },
		{ cls, "cost_usd", "  cost", na * run->cost_usd, true, UNIT_MONEY,
		  0, false, { 0.0, 0.0 } },
	};

	/* the production figures: the production band's interval
	   (interval_of_production) */
	for (size_t i = 0; i < sizeof(est) / sizeof(est[0]); i++)
		if (strcmp(est[i].key, "time_to_train_s") == 0 ||
		    strcmp(est[i].key, "gpu_hours") == 0 ||
		    strcmp(est[i].key, "cost_usd") == 0)
			cli_estimate_production(&est[i], p->gpu->name);
	cli_basis_init(&b, prof, p->gpu->name, wl);
	cli_rec_intervals(rec, &b, est, (int)(sizeof(est) / sizeof(est[0])));
}

/* A recommender's tables and the parts of its step (specs/output.md,
   per-sample models); per step, micro-batches summed. */
static void add_recsys(struct record *rec, const struct train_plan *p)
{
	const struct recsys_step *s = &p->recsys;
	const struct recsys_place *pl = &s->place;
	double mbs = p->config.micro_batches;
	const char *g = "embeddings";

	rec_heading(rec, "embedding tables (busiest GPU)");
	rec_str(rec, g, "sharding", "placement",
		recsys_sharding_name(pl->sharding), 0);
	rec_num(rec, g, "tables_per_gpu",
		pl->column_shards > 1 ? "shards on the busiest GPU" :
					"tables on the busiest GPU",
		pl->tables_max, UNIT_COUNT, 0);
	rec_int(rec, g, "column_shards", "column shards per table",
		pl->column_shards, 0);
	rec_num(rec, g, "bytes_per_gpu", "tables with optimizer rows",
		pl->bytes_per_gpu, UNIT_BYTES, 0);
	rec_num(rec, g, "hbm_bytes", "  in HBM", pl->hbm_bytes, UNIT_BYTES, 0);
	rec_num(rec, g, "offload_bytes", "  in host memory or on SSD",
		pl->offload_bytes, UNIT_BYTES, 0);
	rec_str(rec, g, "tier", "beyond HBM", recsys_tier_name(pl->tier), 0);
	rec_num(rec, g, "cache_hit_rate", "HBM cache hit rate", pl->hit_rate,
		UNIT_KIND_COUNT, RF_PERCENT);
	rec_num(rec, g, "gather_efficiency", "gather efficiency (row size)",
		s->gather_efficiency, UNIT_KIND_COUNT, RF_PERCENT);
	rec_heading(rec, "step (busiest GPU)");
	rec_num(rec, g, "lookup_s", "lookups and pooling",
		mbs * s->emb_fwd_s, UNIT_TIME, 0);
	rec_num(rec, g, "update_s", "gradients and sparse update",
		mbs * s->emb_bwd_s, UNIT_TIME, 0);
	rec_num(rec, g, "miss_s", "cache misses (host/SSD)",
		mbs * s->miss_s, UNIT_TIME, 0);
	rec_num(rec, g, "dense_s", "dense network", mbs * s->dense_s,
		UNIT_TIME, 0);
	rec_num(rec, g, "alltoall_bytes", "all-to-all sent per GPU",
		mbs * s->a2a_bytes, UNIT_BYTES, 0);
	rec_num(rec, g, "alltoall_s", "all-to-alls (forward, backward)",
		mbs * s->a2a_s, UNIT_TIME, 0);
	rec_num(rec, g, "input_dist_s", "indices to the tables' GPUs",
		mbs * s->input_dist_s, UNIT_TIME, 0);
	rec_num(rec, g, "comm_exposed_s", "  of them exposed",
		mbs * s->comm_exposed_s, UNIT_TIME, 0);
	rec_num(rec, g, "allreduce_s", "dense gradients (before overlap)",
		s->allreduce_s, UNIT_TIME, 0);
	rec_num(rec, g, "table_sync_s", "replicated tables' sync",
		s->table_sync_s, UNIT_TIME, 0);
	rec_num(rec, g, "input_data_s", "reading the training data",
		s->data_s, UNIT_TIME, 0);
	rec_num(rec, g, "input_stall_s", "  waiting for it", s->stall_s,
		UNIT_TIME, 0);
	rec_num(rec, g, "kernels", "kernels per micro-batch", s->kernels,
		UNIT_COUNT, 0);
	rec_str(rec, g, "bound", "bound by", s->bound, 0);
}

static void add_train_plan(struct record *rec, const struct workload *wl,
			   const struct train_plan *p,
			   const struct profile *prof)
{
	const struct train_result *r = &p->result;
	const struct train_time *t = &r->time;
	const struct run_cost *run = &p->run;
	const struct goodput *gp = &p->goodput;
	char chosen[512];

	rec_str(rec, NULL, "model", "model", model_name(wl), 0);
	rec_str(rec, NULL, "kind", "kind", model_kind_name(wl->model.kind), 0);
	rec_str(rec, NULL, "gpu", "gpu", p->gpu->name, 0);
	rec_int(rec, NULL, "gpus", "gpus", p->config.gpus, 0);
	cli_rec_stacks(rec, wl, false, true, 0);
	rec_num(rec, NULL, "params", "parameters", p->params, UNIT_COUNT, 0);
	/* a mixture of experts computes with its active parameters only, a
	   recommender with its dense network and the rows it gathers */
	rec_num(rec, NULL, "active_params",
		p->per_sample ? "active parameters per sample" :
				"active parameters per token",
		p->has_arch && !p->per_sample ? arch_active_params(&p->arch) :
		wl->model.kind == MODEL_RECSYS ?
			recsys_dense_params(&wl->model) +
				recsys_lookups(&wl->model) *
					(wl->model.embedding_dim +
					 (wl->model.wide ? 1.0 : 0.0)) :
			p->params,
		UNIT_COUNT, 0);
	rec_num(rec, NULL, "tokens", p->per_sample ? "samples to train on" :
						     "tokens to train on",
		p->tokens, UNIT_COUNT, 0);
	rec_heading(rec, "configuration");
	add_config(rec, p);
	rec_heading(rec, "memory per GPU (most loaded stage)");
	add_memory(rec, &r->memory, 0);
	if (p->has_arch)
		rec_int(rec, "memory", "max_micro_batch",
			"largest micro-batch that fits", p->max_micro_batch, 0);
	else
		rec_null(rec, "memory", "max_micro_batch",
			 "largest micro-batch that fits", 0);
	rec_heading(rec, "iteration");
	if (p->has_arch) {
		rec_num(rec, NULL, "step_time_s", "step time", t->step_s,
			UNIT_TIME, 0);
		rec_num(rec, "breakdown", "compute_s", "  compute", t->compute_s,
			UNIT_TIME, 0);
		rec_num(rec, "breakdown", "tp_comm_s", "  tensor-parallel comm",
			t->tp_comm_s, UNIT_TIME, 0);
		rec_num(rec, "breakdown", "pp_comm_s", "  pipeline sends",
			t->pp_comm_s, UNIT_TIME, 0);
		rec_num(rec, "breakdown", "cp_comm_s", "  context-parallel comm",
			t->cp_comm_s, UNIT_TIME, 0);
		rec_num(rec, "breakdown", "bubble_s", "  pipeline bubble",
			t->bubble_s, UNIT_TIME, 0);
		rec_num(rec, "breakdown", "dp_comm_s", "  data-parallel comm",
			t->dp_comm_s, UNIT_TIME, 0);
		rec_num(rec, "breakdown", "optimizer_s", "  optimizer step",
			t->optimizer_s, UNIT_TIME, 0);
		rec_num(rec, "breakdown", "offload_s",
			"  optimizer offload (host)", t->offload_s, UNIT_TIME,
			0);
		rec_num(rec, "breakdown", "host_s",
			"  training loop (host)", t->host_s, UNIT_TIME, 0);
		rec_num(rec, NULL, "tokens_per_s",
			p->per_sample ? "samples/s" : "tokens/s",
			r->tokens_per_s, UNIT_COUNT, 0);
		rec_num(rec, NULL, "tokens_per_s_per_gpu",
			p->per_sample ? "samples/s per GPU" :
					"tokens/s per GPU",
			r->tokens_per_s_per_gpu, UNIT_COUNT, 0);
		/* a per-sample model's rate under its own name as well (the
		   metric calibrate takes); null for a transformer */
		if (p->per_sample)
			rec_num(rec, NULL, "samples_per_s", "samples/s",
				r->tokens_per_s, UNIT_COUNT, RF_MACHINE);
		else
			rec_null(rec, NULL, "samples_per_s", "samples/s",
				 RF_MACHINE);
		rec_num(rec, NULL, "model_tflops_per_gpu",
			"model TFLOP/s per GPU", r->model_flops_per_gpu / 1e12,
			UNIT_KIND_COUNT, 0);
		rec_num(rec, NULL, "hardware_tflops_per_gpu",
			"hardware TFLOP/s per GPU", r->hw_flops_per_gpu / 1e12,
			UNIT_KIND_COUNT, 0);
		rec_num(rec, NULL, "mfu", "MFU", r->mfu, UNIT_KIND_COUNT,
			RF_PERCENT);
		rec_num(rec, NULL, "hfu", "HFU", r->hfu, UNIT_KIND_COUNT,
			RF_PERCENT);
		if (wl->model.kind == MODEL_RECSYS)
			add_recsys(rec, p);
		rec_heading(rec, "run, as production runs report it "
				 "(failures, restarts, overheads)");
		rec_num_finite(rec, NULL, "time_to_train_s",
			       "time to train (production)", run->time_s,
			       UNIT_TIME, 0);
		rec_num(rec, NULL, "steady_time_to_train_s",
			"  steady state", gp->ideal_s,
			UNIT_TIME, 0);
		/* the same, under its older name */
		rec_num(rec, NULL, "time_to_train_ideal_s",
			"  without failures", gp->ideal_s, UNIT_TIME,
			RF_MACHINE);
		rec_num(rec, NULL, "goodput", "goodput",
			gp->goodput, UNIT_KIND_COUNT, RF_PERCENT);
		rec_num(rec, NULL, "production_efficiency",
			"production efficiency", p->production_efficiency,
			UNIT_KIND_COUNT, RF_PERCENT);
		rec_num_finite(rec, NULL, "job_mtbf_s", "job MTBF",
			       gp->job_mtbf_s, UNIT_TIME, 0);
		rec_num_finite(rec, NULL, "expected_interruptions",
			       "interruptions (expected)",
			       gp->expected_interruptions, UNIT_COUNT, 0);
		rec_num_finite(rec, NULL, "interruptions_per_day",
			       "  per day", 86400.0 / gp->job_mtbf_s,
			       UNIT_COUNT, 0);
		rec_num(rec, NULL, "checkpoint_bytes", "checkpoint",
			gp->checkpoint_bytes, UNIT_BYTES, 0);
		rec_num(rec, NULL, "checkpoint_write_s", "  write time",
			gp->checkpoint_write_s, UNIT_TIME, 0);
		rec_num(rec, NULL, "checkpoint_stall_s",
			"  stall per checkpoint",
			gp->checkpoint_stall_s, UNIT_TIME, 0);
		rec_num(rec, NULL, "checkpoint_interval_s", "  interval",
			gp->checkpoint_interval_s, UNIT_TIME, 0);
		rec_num(rec, NULL, "checkpoint_interval_steps",
			"  interval (iterations)",
			gp->checkpoint_interval_steps, UNIT_COUNT, 0);
		rec_num_finite(rec, NULL, "gpu_hours", "GPU-hours (production)",
			       run->gpu_hours, UNIT_COUNT, 0);
		rec_num(rec, NULL, "steady_gpu_hours", "  steady state",
			gp->ideal_s * p->config.gpus / 3600.0, UNIT_COUNT, 0);
		rec_num(rec, NULL, "power_w_per_gpu", "power per GPU",
			run->gpu_power_w, UNIT_POWER, 0);
		rec_num(rec, NULL, "facility_power_w", "facility power",
			run->facility_power_w, UNIT_POWER, 0);
		rec_num_finite(rec, NULL, "energy_kwh", "energy (facility)",
			       run->energy_kwh, UNIT_ENERGY_KWH, 0);
		rec_num_finite(rec, NULL, "cost_usd",
			       "cost (GPU-hours x price)", run->cost_usd,
			       UNIT_MONEY, 0);
		rec_num_finite(rec, NULL, "energy_cost_usd",
			       "energy cost (kWh x price)",
			       run->energy_cost_usd, UNIT_MONEY, 0);
	} else {
		/* the same fields, not applicable without an architecture */
		static const struct {
			const char *group, *key;
		} unknown[] = {
			{ NULL, "step_time_s" },
			{ "breakdown", "compute_s" },
			{ "breakdown", "tp_comm_s" },
			{ "breakdown", "pp_comm_s" },
			{ "breakdown", "cp_comm_s" },
			{ "breakdown", "bubble_s" },
			{ "breakdown", "dp_comm_s" },
			{ "breakdown", "optimizer_s" },
			{ "breakdown", "offload_s" },
			{ "breakdown", "host_s" },
			{ NULL, "tokens_per_s" },
			{ NULL, "tokens_per_s_per_gpu" },
			{ NULL, "samples_per_s" },
			{ NULL, "model_tflops_per_gpu" },
			{ NULL, "hardware_tflops_per_gpu" },
			{ NULL, "mfu" },
			{ NULL, "hfu" },
			{ NULL, "time_to_train_s" },
			{ NULL, "steady_time_to_train_s" },
			{ NULL, "time_to_train_ideal_s" },
			{ NULL, "goodput" },
			{ NULL, "production_efficiency" },
			{ NULL, "job_mtbf_s" },
			{ NULL, "expected_interruptions" },
			{ NULL, "interruptions_per_day" },
			{ NULL, "checkpoint_bytes" },
			{ NULL, "checkpoint_write_s" },
			{ NULL, "checkpoint_stall_s" },
			{ NULL, "checkpoint_interval_s" },
			{ NULL, "checkpoint_interval_steps" },
			{ NULL, "gpu_hours" },
			{ NULL, "steady_gpu_hours" },
			{ NULL, "power_w_per_gpu" },
			{ NULL, "facility_power_w" },
			{ NULL, "energy_kwh" },
			{ NULL, "cost_usd" },
			{ NULL, "energy_cost_usd" },
		};

		for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]);
		     i++)
			rec_null(rec, unknown[i].group, unknown[i].key,
				 unknown[i].key, 0);
	}
	cli_rec_price(rec, &p->cluster, 0);
	add_intervals(rec, wl, p, prof);
	chosen_list(p, chosen, sizeof(chosen), false);
	rec_str(rec, NULL, "chosen", "chosen by capplan", chosen, RF_MACHINE);
	add_counts(rec, p, RF_MACHINE);
}

static int need_one_gpu(struct cli_ctx *ctx)
{
	int rc = cli_resolve_gpus(ctx, false);

	if (rc != EXIT_OK)
		return rc;
	if (ctx->ngpus != 1)
		return cli_usage(ctx->cmd,
				 "%s needs one --gpu NAME ('capplan catalog' "
				 "lists them)",
				 ctx->cmd);
	return EXIT_OK;
}

/* Configurations listed by --search when --top is not given. */
static const int default_top = 10;

/* 'capplan train --search': the fastest configurations that fit. */
static int train_search_report(struct cli_ctx *ctx)
{
	struct search_entry *top;
	struct train_plan p;
	struct report rep;
	struct diag err;
	int k = ctx->top > 0 ? ctx->top : default_top, n = 0, rc;

	top = malloc((size_t)k * sizeof(*top));
	if (!top) {
		fprintf(stderr, "capplan: error: out of memory\n");
		return EXIT_INTERNAL;
	}
	diag_clear(&err);
	rc = train_plan_rank(&ctx->wl, ctx->gpus[0], &p, top, k, &n,
			     cli_threads(), &err);
	if (rc != 0 || !p.has_arch) {
		free(top);
		if (rc == 0) {
			fprintf(stderr, "capplan: error: --search needs the "
					"architecture: give [model] layers, "
					"hidden, heads, vocab and seq_len\n");
			return EXIT_INPUT;
		}
		diag_print(stderr, &err);
		return EXIT_INFEASIBLE;
	}
	report_init(&rep, true);
	rep.list_key = "configurations";
	snprintf(rep.title, sizeof(rep.title),
		 "Fastest configurations: %s on %d x %s",
		 model_name(&ctx->wl), p.config.gpus, p.gpu->name);
	rec_str(&rep.meta, NULL, "model", "model", model_name(&ctx->wl), 0);
	rec_str(&rep.meta, NULL, "gpu", "gpu", p.gpu->name, 0);
	rec_int(&rep.meta, NULL, "gpus", "gpus", p.config.gpus, 0);
	add_counts(&rep.meta, &p, 0);
	rec_int(&rep.meta, NULL, "configs_fitting_listed", "listed", n, 0);
	for (int i = 0; i < n; i++) {
		const struct train_config *c = &top[i].config;
		const struct train_result *r = &top[i].result;
		struct record *rec = report_add_record(&rep);
		struct goodput gp;

		if (!rec) {
			report_release(&rep);
			free(top);
			fprintf(stderr, "capplan: error: out of memory\n");
			return EXIT_INTERNAL;
		}
		rec_int(rec, NULL, "rank", "#", i + 1, RF_GRID);
		rec_int(rec, NULL, "tp", "tp", c->tp, RF_GRID);
		rec_int(rec, NULL, "pp", "pp", c->pp, RF_GRID);
		rec_int(rec, NULL, "vp", "vp", c->vp, RF_GRID | RF_WIDE);
		add_stage_layers(rec, &p, c, 0);
		rec_int(rec, NULL, "cp", "cp", c->cp, RF_GRID | RF_WIDE);
		rec_int(rec, NULL, "ep", "ep", train_config_ep(c),
			RF_GRID | RF_WIDE);
		rec_int(rec, NULL, "dp", "dp", c->dp, RF_GRID);
		rec_int(rec, NULL, "micro_batch", "mb", c->micro_batch, RF_GRID);
		rec_int(rec, NULL, "global_batch", "gb", c->global_batch,
			RF_GRID | RF_WIDE);
		rec_int(rec, NULL, "zero", "zero", c->zero, RF_GRID);
		rec_str(rec, NULL, "recompute", "recompute",
			recompute_name(c->recompute), RF_GRID);
		rec_int(rec, NULL, "recompute_layers", "recompute layers",
			recomputed_layers(&p, c), 0);
		rec_bool(rec, NULL, "sequence_parallel", "sp",
			 c->sequence_parallel, RF_GRID | RF_WIDE);
		rec_bool(rec, NULL, "tp_comm_overlap", "tp overlap",
			 c->tp_comm_overlap, 0);
		rec_bool(rec, NULL, "overlap_grad_reduce", "dp overlap",
			 c->overlap_grad_reduce, 0);
		rec_num(rec, NULL, "offload_optimizer", "offload",
			c->offload_fraction, UNIT_KIND_COUNT,
			RF_GRID | RF_WIDE | RF_PERCENT);
		rec_num(rec, NULL, "step_time_s", "step", r->time.step_s,
			UNIT_TIME, RF_GRID);
		rec_num(rec, NULL, "tokens_per_s_per_gpu", "tok/s/GPU",
			r->tokens_per_s_per_gpu, UNIT_COUNT, RF_GRID);
		rec_num(rec, NULL, "mfu", "MFU", r->mfu, UNIT_KIND_COUNT,
			RF_GRID | RF_PERCENT);
		train_plan_goodput(&ctx->wl, &p, c, r, &gp);
		rec_num_finite(rec, NULL, "time_to_train_s", "time",
			       gp.time_s, UNIT_TIME, RF_GRID);
		rec_num(rec, "memory", "total_bytes", "memory",
			r->memory.total_bytes, UNIT_BYTES, RF_GRID);
	}
	free(top);
	if (n == 0)
		report_note(&rep, "no configuration fits in memory");
	rc = cli_emit(ctx, &rep);
	report_release(&rep);
	if (rc == EXIT_OK && n == 0)
		rc = EXIT_INFEASIBLE;
	return rc;
}

/* What the optimizer offload of plan 'p' costs: its three pipelined
   stages over the GPU's shard (specs/models.md 6.16). */
static void offload_note(struct report *rep, const struct train_plan *p)
{
	const struct train_time *t = &p->result.time;
	char d2h[32], cpu[32], h2d[32], exposed[32];

	units_format(d2h, sizeof(d2h), t->offload_d2h_s, UNIT_TIME, 3);
	units_format(cpu, sizeof(cpu), t->offload_cpu_s, UNIT_TIME, 3);
	units_format(h2d, sizeof(h2d), t->offload_h2d_s, UNIT_TIME, 3);
	units_format(exposed, sizeof(exposed), t->offload_s, UNIT_TIME, 3);
	report_note(rep, "optimizer offload: %.0f%% of each GPU's optimizer "
			 "states on the host; per step gradients to the host "
			 "%s, CPU step %s, weights back %s, pipelined: %s "
			 "beyond the GPU's step",
		    100.0 * p->config.offload_fraction, d2h, cpu, h2d,
		    exposed);
}

int cmd_train(struct cli_ctx *ctx)
{
	struct train_plan p;
	struct report rep;
	struct record *rec;
	struct diag err;
	char chosen[512];
	int rc;

	rc = cli_load_workload(ctx);
	if (rc == EXIT_OK)
		rc = need_one_gpu(ctx);
	if (rc != EXIT_OK)
		return rc;
	if (ctx->search || ctx->top > 0) {
		rc = cli_transformer_only(ctx, "--search (or --top)");
		return rc != EXIT_OK ? rc : train_search_report(ctx);
	}
	diag_clear(&err);
	if (train_plan_rank(&ctx->wl, ctx->gpus[0], &p, NULL, 0, NULL,
			    cli_threads(), &err) != 0) {
		diag_print(stderr, &err);
		return EXIT_INFEASIBLE;
	}
	report_init(&rep, false);
	snprintf(rep.title, sizeof(rep.title), "Training plan: %s on %d x %s",
		 model_name(&ctx->wl), p.config.gpus, p.gpu->name);
	rec = report_add_record(&rep);
	if (!rec) {
		fprintf(stderr, "capplan: error: out of memory\n");
		return EXIT_INTERNAL;
	}
	add_train_plan(rec, &ctx->wl, &p, ctx->profile);
	chosen_list(&p, chosen, sizeof(chosen), true);
	if (chosen[0])
		report_note(&rep, "chosen by capplan: %s", chosen);
	/* a run planned on one node because no count was given */
	if (ctx->wl.training.gpus == WL_AUTO && p.has_arch)
		report_note(&rep,
			    "planned on one node (%d GPUs): no training.gpus "
			    "or --gpus was given; 'capplan size WORKLOAD "
			    "--deadline TIME' finds the count a deadline "
			    "needs", p.config.gpus);
	/* the default batch says where it comes from */
	if (p.has_arch && !p.per_sample &&
	    ctx->wl.training.global_batch == WL_AUTO) {
		char tok[32], aim[32];

		units_format(tok, sizeof(tok),
			     (double)p.config.global_batch * p.arch.seq_len,
			     UNIT_COUNT, 3);
		units_format(aim, sizeof(aim), p.batch_tokens, UNIT_COUNT, 3);
		report_note(&rep,
			    "global batch %d sequences (%s tokens): %s %s "
			    "tokens, rounded to a power of two and to the "
			    "layout's steps; training.global_batch sets it",
			    p.config.global_batch, tok,
			    ctx->wl.training.batch_tokens > 0.0 ?
				    "training.batch_tokens," :
				    "the critical batch of DeepSeek LLM "
				    "(0.292 C^0.3271 for the run's compute C) is",
			    aim);
	}
	cli_note_profile(&rep, ctx, p.gpu->name);
	if (p.has_arch)
		report_note(&rep, "searched %lld configurations: %lld legal, "
			    "%lld fit, %lld timed", p.enumerated, p.legal,
			    p.fitting, p.evaluated);
	else
		report_note(&rep, "only 'params' is known: give [model] "
				  "layers, hidden, heads, vocab and seq_len for "
				  "activations, time, energy and cost");
	if (ctx->wl.model.kind == MODEL_GENERIC && ctx->wl.model.graph.n_ops)
		report_note(&rep,
			    "costed operator by operator from '%s': %.0f "
			    "operators, each its own kernel as in eager "
			    "training",
			    ctx->wl.model.onnx, ctx->wl.model.graph.nodes);
	else if (ctx->wl.model.kind == MODEL_GENERIC)
		report_note(&rep, "%s", generic_totals_note);
	if (ctx->wl.model.kind == MODEL_GENERIC && ctx->wl.model.graph.n_ops) {
		double kind_s[GOP_KINDS];
		char shares[256];

		if (sample_graph_train_kinds(&ctx->wl.model, &p.config, p.gpu,
					     kind_s) == 0) {
			graph_kind_shares(kind_s, shares, sizeof(shares));
			report_note(&rep, "compute by operator kind: %s",
				    shares);
		}
	}
	if (ctx->wl.model.kind == MODEL_RECSYS) {
		const struct recsys_place *pl = &p.recsys.place;

		report_note(&rep,
			    "tables %s over %d GPU%s, %s%s; the step is "
			    "bound by %s",
			    recsys_sharding_name(pl->sharding), pl->gpus,
			    pl->gpus == 1 ? "" : "s",
			    pl->tier == RECSYS_TIER_HBM ? "all in HBM" :
			    pl->tier == RECSYS_TIER_HOST ?
						      "partly in host memory behind an "
						      "HBM cache" :
						      "partly on SSD behind an HBM cache",
			    ctx->wl.training.embedding_sharding == EMB_AUTO ?
				    " (chosen by capplan: the fastest that fits)" :
				    "",
			    p.recsys.bound);
	}
	if (ctx->wl.model.kind == MODEL_GENERIC &&
	    ctx->wl.model.graph.written_norms > 0.0) {
		char note[160];

		report_note(&rep, "%s",
			    graph_norms_note(&ctx->wl.model.graph, note,
					     sizeof(note)));
	}
	if (ctx->wl.model.kind == MODEL_GENERIC &&
	    ctx->wl.model.graph.norms_folded)
		report_note(&rep,
			    "the graph has no normalization: its %.0f "
			    "convolutions train with the batch norms an "
			    "inference export folds into them",
			    ctx->wl.model.graph.folded_norms);
	if (p.has_arch && p.config.offload_fraction > 0.0)
		offload_note(&rep, &p);
	if (!p.fits) {
		const struct train_memory *m = &p.result.memory;
		char hint[256], need[32], have[32], why[160];

		train_plan_suggest(&ctx->wl, p.gpu, fit_max_gpus, hint,
				   sizeof(hint));
		if (m->total_bytes <= m->capacity_bytes &&
		    m->node_host_bytes > m->host_capacity_bytes) {
			units_format(need, sizeof(need), m->node_host_bytes,
				     UNIT_BYTES, 3);
			units_format(have, sizeof(have),
				     m->host_capacity_bytes, UNIT_BYTES, 3);
			snprintf(why, sizeof(why),
				 "the offloaded optimizer states of a node "
				 "need %s of host memory, more than its %s",
				 need, have);
		} else {
			snprintf(why, sizeof(why), "%s",
				 "the most loaded GPU needs more than its "
				 "memory");
		}
		report_note(&rep, "does not fit: %s; %s", why, hint);
	}
	/* a run that finishes but spends most of its time on checkpoints
	   (shorter than a write, or one every few steps) says so */
	if (p.has_arch && p.goodput.finishes && p.goodput.goodput < 0.5) {
		char w[32], work[32];

		units_format(w, sizeof(w), p.goodput.checkpoint_stall_s,
			     UNIT_TIME, 3);
		units_format(work, sizeof(work), p.goodput.ideal_s, UNIT_TIME,
			     3);
		report_note(&rep, "goodput %.1f%%: the run is mostly "
				  "checkpoints, restarts and maintenance (a "
				  "checkpoint stalls %s, every %.0f "
				  "iterations; the work alone takes %s): "
				  "raise training.checkpoint_interval or set "
				  "training.async_checkpoint",
			    100.0 * p.goodput.goodput, w,
			    p.goodput.checkpoint_interval_steps, work);
	}
	if (p.has_arch && !p.goodput.finishes) {
		char mtbf[32], lost[32];

		units_format(mtbf, sizeof(mtbf), p.goodput.job_mtbf_s,
			     UNIT_TIME, 3);
		units_format(lost, sizeof(lost),
			     p.goodput.checkpoint_interval_s / 2.0 +
				     p.goodput.checkpoint_stall_s +
				     ctx->wl.cluster.restart_s,
			     UNIT_TIME, 3);
		report_note(&rep, "does not finish: the job fails every %s "
				  "and each failure costs about %s (goodput "
				  "below %.0f%%); use fewer GPUs, a lower "
				  "cluster.failures_per_gpu_hour or a shorter "
				  "cluster.restart_time",
			    mtbf, lost, 100.0 * GOODPUT_MIN);
	}
	rc = cli_emit(ctx, &rep);
	report_release(&rep);
	if (rc == EXIT_OK && (!p.fits || (p.has_arch && !p.goodput.finishes)))
		rc = EXIT_INFEASIBLE;
	return rc;
}

/* fit's table: the columns --wide adds */
#define FIT_WIDE (RF_GRID | RF_WIDE)

/* fit's table: tp/pp/dp, with cp and ep where they are used. */
static void fit_layout_cell(struct record *rec, const struct train_config *c)
{
	char buf[96];
	int ep = train_config_ep(c);

	snprintf(buf, sizeof(buf), "%d/%d/%d%s%.0d%s%.0d", c->tp, c->pp,
		 c->dp, c->cp > 1 ? " cp" : "", c->cp > 1 ? c->cp : 0,
		 ep > 1 ? " ep" : "", ep > 1 ? ep : 0);
	rec_str(rec, NULL, "layout", "tp/pp/dp", buf, RF_GRID | RF_TABLE);
}

/* fit's table: memory per GPU against the capacity, in GB ('m' NULL:
   no plan). */
static void fit_memory_cell(struct record *rec, const struct train_memory *m,
			    const struct gpu_spec *g)
{
	char buf[64];

	if (m)
		snprintf(buf, sizeof(buf), "%.1f / %.1f", m->total_bytes / 1e9,
			 g->mem_bytes / 1e9);
	else
		snprintf(buf, sizeof(buf), "- / %.1f", g->mem_bytes / 1e9);
	rec_str(rec, NULL, "memory_gb", "GB used/cap", buf,
		RF_GRID | RF_TABLE);
}

int cmd_fit(struct cli_ctx *ctx)
{
	struct report rep;
	int rc, fits = 0;
	bool counts_act;

	rc = cli_load_workload(ctx);
	if (rc == EXIT_OK)
		rc = cli_resolve_gpus(ctx, true);
	if (rc != EXIT_OK)
		return rc;
	/* per-sample kinds count activations from their per-sample size */
	counts_act = model_has_arch(&ctx->wl.model) ||
		     ctx->wl.model.kind != MODEL_TRANSFORMER;
	report_init(&rep, true);
	snprintf(rep.title, sizeof(rep.title),
		 "Memory per GPU: %s%s", model_name(&ctx->wl),
		 counts_act ? "" : " (model states only)");
	for (int i = 0; i < ctx->ngpus; i++) {
		struct train_plan p;
		struct record *rec = report_add_record(&rep);
		struct diag err;
		char hint[256] = "";

		if (!rec) {
			report_release(&rep);
			fprintf(stderr, "capplan: error: out of memory\n");
			return EXIT_INTERNAL;
		}
		diag_clear(&err);
		rec_str(rec, NULL, "gpu", "gpu", ctx->gpus[i]->name, RF_GRID);
		cli_rec_stacks(rec, &ctx->wl, false, true, RF_MACHINE);
		if (train_plan_make(&ctx->wl, ctx->gpus[i], &p, &err) != 0) {
			/* no configuration at all on this device */
			rec_null(rec, NULL, "layout", "tp/pp/dp",
				 RF_GRID | RF_TABLE);
			fit_memory_cell(rec, NULL, ctx->gpus[i]);
			rec_int(rec, NULL, "gpus", "gpus", 0, FIT_WIDE);
			rec_null(rec, NULL, "tp", "tp", FIT_WIDE);
			rec_null(rec, NULL, "pp", "pp", FIT_WIDE);
			rec_null(rec, NULL, "cp", "cp", FIT_WIDE);
			rec_null(rec, NULL, "ep", "ep", FIT_WIDE);
			rec_null(rec, NULL, "dp", "dp", FIT_WIDE);
			rec_null(rec, NULL, "vp", "vp", 0);
			rec_null(rec, NULL, "micro_batch", "mb", FIT_WIDE);
			rec_null(rec, NULL, "zero", "zero", FIT_WIDE);
			rec_null(rec, NULL, "recompute", "recompute",
				 FIT_WIDE);
			rec_null(rec, NULL, "offload_optimizer", "offload", 0);
			rec_null(rec, "memory", "weights_bytes", "weights",
				 FIT_WIDE);
			rec_null(rec, "memory", "gradients_bytes", "grads",
				 FIT_WIDE);
			rec_null(rec, "memory", "optimizer_bytes", "optimizer",
				 FIT_WIDE);
			rec_null(rec, "memory", "activations_bytes",
				 "activations", FIT_WIDE);
			rec_null(rec, "memory", "reserve_bytes", "reserve", 0);
			rec_null(rec, "memory", "total_bytes", "total",
				 FIT_WIDE);
			rec_num(rec, "memory", "capacity_bytes", "capacity",
				ctx->gpus[i]->mem_bytes, UNIT_BYTES, FIT_WIDE);
			rec_null(rec, "memory", "host_bytes",
				 "host memory per node (offload)", 0);
			rec_null(rec, "memory", "host_capacity_bytes",
				 "  host capacity", 0);
			rec_bool(rec, "memory", "fits", "fits", false,
				 FIT_WIDE);
			rec_str(rec, NULL, "suggestion", "smallest change",
				err.msg, RF_GRID);
			continue;
		}
		fit_layout_cell(rec, &p.config);
		fit_memory_cell(rec, &p.result.memory, ctx->gpus[i]);
		rec_int(rec, NULL, "gpus", "gpus", p.config.gpus, FIT_WIDE);
		rec_int(rec, NULL, "tp", "tp", p.config.tp, FIT_WIDE);
		rec_int(rec, NULL, "pp", "pp", p.config.pp, FIT_WIDE);
		rec_int(rec, NULL, "cp", "cp", p.config.cp, FIT_WIDE);
		rec_int(rec, NULL, "ep", "ep", train_config_ep(&p.config),
			FIT_WIDE);
		rec_int(rec, NULL, "dp", "dp", p.config.dp, FIT_WIDE);
		if (p.has_arch)
			rec_int(rec, NULL, "vp", "vp", p.config.vp, 0);
		else
			rec_null(rec, NULL, "vp", "vp", 0);
		if (p.has_arch) {
			rec_int(rec, NULL, "micro_batch", "mb",
				p.config.micro_batch, FIT_WIDE);
			rec_int(rec, NULL, "zero", "zero", p.config.zero,
				FIT_WIDE);
			rec_str(rec, NULL, "recompute", "recompute",
				recompute_name(p.config.recompute), FIT_WIDE);
			rec_num(rec, NULL, "offload_optimizer", "offload",
				p.config.offload_fraction, UNIT_KIND_COUNT,
				RF_PERCENT);
		} else {
			rec_null(rec, NULL, "micro_batch", "mb", FIT_WIDE);
			rec_int(rec, NULL, "zero", "zero", p.config.zero,
				FIT_WIDE);
			rec_null(rec, NULL, "recompute", "recompute",
				 FIT_WIDE);
			rec_num(rec, NULL, "offload_optimizer", "offload",
				p.config.offload_fraction, UNIT_KIND_COUNT,
				RF_PERCENT);
		}
		add_memory(rec, &p.result.memory, FIT_WIDE);
		if (p.fits)
			fits++;
		else
			train_plan_suggest(&ctx->wl, ctx->gpus[i], fit_max_gpus,
					   hint, sizeof(hint));
		rec_str(rec, NULL, "suggestion", "smallest change",
			p.fits ? "" : hint, RF_GRID);
	}
	report_note(&rep, "%d of %d devices fit%s", fits, ctx->ngpus,
		    model_has_arch(&ctx->wl.model) ?
			    "; keys left open are chosen for speed among "
			    "configurations that fit" :
		    counts_act ? "; activations are "
				 "'activation_bytes_per_sample' per sample" :
				 "; activations are not counted (only "
				 "'params' is known)");
	cli_note_stacks(&rep, &ctx->wl, false, true);
	cli_note_profile(&rep, ctx, NULL);
	rc = cli_emit(ctx, &rep);
	report_release(&rep);
	if (rc == EXIT_OK && fits == 0)
		rc = EXIT_INFEASIBLE;
	return rc;
}

int cli_train_record(const struct workload *wl, const struct gpu_spec *g,
		     struct train_plan *p, struct record *rec,
		     struct diag *err)
{
	if (train_plan_make(wl, g, p, err) != 0)
		return -1;
	memset(rec, 0, sizeof(*rec));
	add_train_plan(rec, wl, p, NULL);
	return 0;
}

int cli_train_fix(const struct train_plan *p, struct workload *wl,
		  struct diag *err)
{
	char chosen[512], *item, *save = NULL;

	chosen_list(p, chosen, sizeof(chosen), true);
	for (item = strtok_r(chosen, ", ", &save); item;
	     item = strtok_r(NULL, ", ", &save))
		if (workload_set(wl, item, err) != 0)
			return -1;
	return 0;
}

