/*
 * workload_check.c - the consistency checks of a whole workload
 * (workload_validate): every value in its range, and the keys together
 * (the model, the parallel layout and its stages, the serving modes and
 * the load); see workload.h.
 */
#include "workload_keys.h"
#include "request.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "text.h"

/* ---------------------------------------------------------------------
 * Validation
 */

/* The value of every key is one the file could have given (or unset). */
/* model.table_rows: at most WL_TABLES_MAX counts in the key's range. */
static int rows_check(const struct wl_key *k, const struct wl_rows *r,
		      const char *label, const char *file, struct diag *err)
{
	bool ok = r->n >= 0 && r->n <= WL_TABLES_MAX;

	for (int i = 0; ok && i < r->n; i++)
		ok = isfinite(r->rows[i]) && r->rows[i] > 0.0 &&
		     r->rows[i] <= k->max;
	if (ok)
		return 0;
	return diag_set(err, file, 0, 0,
			"'%s' must list at most %d tables, each of more than "
			"0 and at most %g rows", label, WL_TABLES_MAX, k->max);
}

static int key_check(const struct wl_key *k, const struct workload *wl,
		     const char *file, struct diag *err)
{
	const void *f = wl_key_cfield(k, wl);
	char lbuf[64], what[128], list[128];
	const char *label = wl_key_label(k, lbuf, sizeof(lbuf));
	double d;
	int v;

	if (wl_key_is_enum(k)) {
		v = wl_enum_load(k, wl);
		if (wl_names_have(k->names, v) ||
		    (k->type == WLT_INTENUM && k->max > 0 &&
		     wl_in_range(k, v)))
			return 0;
		wl_names_list(k->names, list, sizeof(list));
		return diag_set(err, file, 0, 0,
				"'%s' must be one of %s, got %d", label, list,
				v);
	}
	switch (k->type) {
	case WLT_INT:
		v = *(const int *)f;
		if (((k->flags & (WLK_AUTO | WLK_UNSET0)) && v == 0) ||
		    ((k->flags & WLK_AUTO_NEG) && v == WL_AUTO_NEG) ||
		    wl_in_range(k, v))
			return 0;
		wl_key_describe(k, what, sizeof(what));
		return diag_set(err, file, 0, 0, "'%s' must be %s, got %d",
				label, what, v);
	case WLT_FLAGS: {
		int all = 0;

		v = *(const int *)f;
		for (int i = 0; k->names[i].name; i++)
			all |= k->names[i].value;
		if (v >= 0 && (v & ~all) == 0)
			return 0;
		wl_names_list(k->names, list, sizeof(list));
		return diag_set(err, file, 0, 0,
				"'%s' must be a set of %s, got %d", label,
				list, v);
	}
	case WLT_WIDTHS: {
		const struct wl_widths *w = f;
		bool ok = w->n >= 0 && w->n <= WL_MLP_LAYERS_MAX;

		for (int i = 0; ok && i < w->n; i++)
			ok = wl_in_range(k, w->width[i]);
		if (ok)
			return 0;
		return diag_set(err, file, 0, 0,
				"'%s' must be at most %d layer widths from 1 "
				"to %d", label, WL_MLP_LAYERS_MAX,
				WL_MLP_WIDTH_MAX);
	}
	case WLT_TRISTATE:
		v = *(const int *)f;
		if (v == 0 || v == 1 || v == WL_AUTO_NEG)
			return 0;
		return diag_set(err, file, 0, 0,
				"'%s' must be true, false or auto, got %d",
				label, v);
	case WLT_ROWS: /* the list; then the mean, as a quantity */
		if (rows_check(k, &wl->model.table_rows, label, file, err) < 0)
			return -1;
		/* fall through */
	case WLT_FRACTION:
	case WLT_NUMBER:
	case WLT_QUANTITY:
		d = *(const double *)f;
		if (k->type == WLT_FRACTION && d == WL_OFFLOAD_AUTO)
			return 0;
		if (isfinite(d) &&
		    (((k->flags & WLK_UNSET0) && d == 0) ||
		     ((k->flags & WLK_AUTO_NEG) && d == WL_AUTO_NEG) ||
		     wl_in_range(k, d)))
			return 0;
		wl_key_describe(k, what, sizeof(what));
		return diag_set(err, file, 0, 0, "'%s' must be %s, got %g",
				label, what, d);
	default:
		return 0;
	}
}

static int check_tp(const char *label, int tp, const struct model_spec *m,
		    const char *file, struct diag *err)
{
	int kv = m->kv_heads > 0 ? m->kv_heads : m->heads;

	if (tp <= 0 || m->heads <= 0)
		return 0;
	if (m->heads % tp != 0)
		return diag_set(err, file, 0, 0,
				"'%s' (%d) must divide 'heads' (%d)", label,
				tp, m->heads);
	if (tp % kv != 0 && kv % tp != 0)
		return diag_set(err, file, 0, 0,
				"'%s' (%d) and 'kv_heads' (%d) must divide "
				"one another", label, tp, kv);
	return 0;
}

static int check_model(const struct model_spec *m, const char *file,
		       struct diag *err)
{
	if (m->kind == MODEL_GENERIC) {
		if (!(m->params > 0) || !(m->flops_per_sample > 0))
			return diag_set(err, file, 0, 0,
					"a generic model needs [model] params "
					"and flops_per_sample (and, for its "
					"memory, activation_bytes_per_sample)");
		return 0;
	}
	if (m->kind == MODEL_RECSYS)
		return 0; /* wl_check_recsys */
	if (!model_has_arch(m) && !(m->params > 0)) {
		if (m->layers || m->hidden || m->heads || m->vocab ||
		    m->seq_len)
			return diag_set(err, file, 0, 0,
					"incomplete model: give [model] "
					"layers, hidden, heads, vocab and "
					"seq_len, or params");
		return diag_set(err, file, 0, 0,
				"no model: give [model] layers, hidden, "
				"heads, vocab, seq_len or params");
	}
	if (m->heads > 0 && m->hidden > 0 && m->head_dim == 0 &&
	    m->hidden % m->heads != 0)
		return diag_set(err, file, 0, 0,
				"'heads' (%d) must divide 'hidden' (%d), or "
				"give 'head_dim'", m->heads, m->hidden);
	if (m->experts > 0) {
		if (m->experts_per_token > m->experts)
			return diag_set(err, file, 0, 0,
					"'experts_per_token' (%d) must not "
					"exceed 'experts' (%d)",
					m->experts_per_token, m->experts);
		if (m->layers > 0 && m->dense_layers >= m->layers)
			return diag_set(err, file, 0, 0,
					"'dense_layers' (%d) must be fewer "
					"than 'layers' (%d)", m->dense_layers,
					m->layers);
	} else if (m->experts_per_token || m->shared_experts ||
		   m->expert_ffn_hidden || m->dense_layers) {
		return diag_set(err, file, 0, 0,
				"'experts_per_token', 'shared_experts', "
				"'expert_ffn_hidden' and 'dense_layers' need "
				"'experts'");
	}
	if (m->kv_lora_rank == 0 &&
	    (m->q_lora_rank || m->rope_head_dim || m->v_head_dim))
		return diag_set(err, file, 0, 0,
				"'q_lora_rank', 'rope_head_dim' and "
				"'v_head_dim' need 'kv_lora_rank' (multi-head "
				"latent attention)");
	if (m->kv_heads > 0 && m->heads > 0) {
		if (m->kv_heads > m->heads)
			return diag_set(err, file, 0, 0,
					"'kv_heads' (%d) must not exceed "
					"'heads' (%d)", m->kv_heads, m->heads);
		if (m->heads % m->kv_heads != 0)
			return diag_set(err, file, 0, 0,
					"'kv_heads' (%d) must divide 'heads' "
					"(%d)", m->kv_heads, m->heads);
	}
	return 0;
}

/* first_stage_layers and last_stage_layers against layers, pp and vp
   (train_config.h: train_stage_split); open keys count at their least. */
static int check_stages(const struct training_spec *t,
			const struct model_spec *m, const char *file,
			struct diag *err)
{
	int f = t->first_stage_layers, l = t->last_stage_layers;
	int vp = t->vp > 0 ? t->vp : 1, lo = vp > 2 ? vp - 1 : 1;
	const char *key = f > 0 ? "first_stage_layers" : "last_stage_layers";
	int given = f > 0 ? f : l;
	long long middle, left;

	if (f == 0 && l == 0)
		return 0;
	if (m->layers > 0 && (f > m->layers || l > m->layers))
		return diag_set(err, file, 0, 0,
				"'%s' (%d) must not exceed 'layers' (%d)",
				f > m->layers ? "first_stage_layers" :
						"last_stage_layers",
				f > m->layers ? f : l, m->layers);
	if (t->pp == 1) {
		if (m->layers > 0 &&
		    ((f > 0 && f != m->layers) || (l > 0 && l != m->layers)))
			return diag_set(err, file, 0, 0,
					"'%s' (%d) must be 'layers' (%d) "
					"when 'pp' is 1: the one stage is the "
					"first and the last",
					f > 0 && f != m->layers ?
						"first_stage_layers" :
						"last_stage_layers",
					f > 0 && f != m->layers ? f : l,
					m->layers);
		return 0;
	}
	if (m->layers > 0 && f > 0 && l > 0 && (long long)f + l > m->layers)
		return diag_set(err, file, 0, 0,
				"'first_stage_layers' + 'last_stage_layers' "
				"(%d+%d) must not exceed 'layers' (%d)", f, l,
				m->layers);
	if ((f > 0 && f < lo) || (l > 0 && l < lo))
		return diag_set(err, file, 0, 0,
				"'%s' (%d) must be at least vp-1 (%d) with "
				"'vp' %d: a layer per chunk, but one chunk "
				"that holds only the %s",
				f > 0 && f < lo ? "first_stage_layers" :
						  "last_stage_layers",
				f > 0 && f < lo ? f : l, lo, vp,
				f > 0 && f < lo ? "embedding" :
						  "output layer");
	if (t->pp == 0 || m->layers == 0)
		return 0; /* pp open: the search checks each */
	if (t->pp == 2 && f > 0 && l > 0 && f + l != m->layers)
		return diag_set(err, file, 0, 0,
				"'first_stage_layers' + 'last_stage_layers' "
				"(%d+%d) must be 'layers' (%d) with 'pp' 2",
				f, l, m->layers);
	middle = ((long long)t->pp - 2) * vp;
	left = (long long)m->layers - (f > 0 ? f : 0) - (l > 0 ? l : 0);
	if (f > 0 && l > 0 && left < middle)
		return diag_set(err, file, 0, 0,
				"'first_stage_layers' + 'last_stage_layers' "
				"(%d+%d) leave %lld of 'layers' (%d) to the "
				"middle stages, which need at least "
				"(pp-2)*vp = %lld, a layer per chunk", f, l,
				left, m->layers, middle);
	if ((f == 0 || l == 0) && left < middle + lo)
		return diag_set(err, file, 0, 0,
				"'%s' (%d) leaves %lld of 'layers' (%d) to "
				"the other stages, which need at least %lld, "
				"a layer per chunk", key, given, left,
				m->layers, middle + lo);
	return 0;
}

static int check_training(const struct training_spec *t,
			  const struct model_spec *m, const char *file,
			  struct diag *err)
{
	long long mp = (long long)t->tp * t->pp * t->cp;
	long long dp = 0;

	if (check_tp("training.tp", t->tp, m, file, err) < 0)
		return -1;
	if (t->gpus > 0 && t->tp > 0 && t->pp > 0 && t->cp > 0) {
		if (t->gpus % mp != 0)
			return diag_set(err, file, 0, 0,
					"'gpus' (%d) must be a multiple of "
					"tp*pp*cp (%d*%d*%d = %lld)", t->gpus,
					t->tp, t->pp, t->cp, mp);
		dp = t->gpus / mp;
	}
	if (t->pp > 0 && m->layers > 0 && t->pp > m->layers)
		return diag_set(err, file, 0, 0,
				"'pp' (%d) must not exceed 'layers' (%d)",
				t->pp, m->layers);
	if (t->vp > 1) {
		long long chunks = (long long)t->pp * t->vp;

		if (t->pp == 1)
			return diag_set(err, file, 0, 0,
					"'vp' (%d) needs 'pp' greater than 1",
					t->vp);
		if (t->pp > 1 && m->layers > 0 && m->layers < chunks - 2)
			return diag_set(err, file, 0, 0,
					"'layers' (%d) must be at least "
					"pp*vp-2 (%d*%d-2 = %lld): a layer per "
					"chunk, but for the first and the last "
					"chunk, which may hold only the "
					"embedding and the output layer",
					m->layers, t->pp, t->vp, chunks - 2);
	}
	if (check_stages(t, m, file, err) < 0)
		return -1;
	if (t->global_batch > 0 && t->micro_batch > 0) {
		long long per_step = (long long)t->micro_batch * dp;

		if (t->global_batch % t->micro_batch != 0)
			return diag_set(err, file, 0, 0,
					"'global_batch' (%d) must be a "
					"multiple of 'micro_batch' (%d)",
					t->global_batch, t->micro_batch);
		if (dp > 0 && t->global_batch % per_step != 0)
			return diag_set(err, file, 0, 0,
					"'global_batch' (%d) must be a "
					"multiple of micro_batch*dp "
					"(%d*%lld = %lld)", t->global_batch,
					t->micro_batch, dp, per_step);
	}
	if (t->batch_tokens > 0.0 && t->global_batch > 0)
		return diag_set(err, file, 0, 0,
				"give 'global_batch' (%d sequences) or "
				"'batch_tokens' (tokens per step), not both",
				t->global_batch);
	if (t->batch_tokens > 0.0 && m->seq_len > 0 &&
	    t->batch_tokens < m->seq_len)
		return diag_set(err, file, 0, 0,
				"'batch_tokens' (%.17g) must be at least one "
				"sequence ('seq_len' %d)",
				t->batch_tokens, m->seq_len);
	if (t->ep > 1 && m->experts == 0)
		return diag_set(err, file, 0, 0,
				"'training.ep' (%d) needs a mixture-of-experts "
				"model ('experts')", t->ep);
	if (t->ep > 0 && m->experts > 0 && m->experts % t->ep != 0)
		return diag_set(err, file, 0, 0,
				"'training.ep' (%d) must divide 'experts' (%d)",
				t->ep, m->experts);
	if (t->cp > 0 && m->seq_len > 0 && m->seq_len % t->cp != 0)
		return diag_set(err, file, 0, 0,
				"'cp' (%d) must divide 'seq_len' (%d)", t->cp,
				m->seq_len);
	if (t->recompute_layers > 0 && t->recompute != RECOMPUTE_AUTO &&
	    t->recompute != RECOMPUTE_FULL)
		return diag_set(err, file, 0, 0,
				"'recompute_layers' (%d) needs 'recompute' "
				"full, got '%s'", t->recompute_layers,
				recompute_name(t->recompute));
	if (t->tp_comm_overlap == 1 &&
	    (t->sequence_parallel == 0 || t->tp == 1))
		return diag_set(err, file, 0, 0,
				"'tp_comm_overlap' needs sequence "
				"parallelism over tp > 1 ('%s' is %s)",
				t->tp == 1 ? "tp" : "sequence_parallel",
				t->tp == 1 ? "1" : "false");
	if (t->zero_shard != WL_ZERO_SHARD_ALL && t->zero == 0) {
		char v[16] = "node";

		if (t->zero_shard != WL_ZERO_SHARD_NODE)
			snprintf(v, sizeof(v), "%d", t->zero_shard);
		return diag_set(err, file, 0, 0,
				"'zero_shard' (%s) needs 'zero' 1 or more: "
				"with zero 0 nothing is sharded", v);
	}
	if (t->offload_optimizer > 0.0 && t->zero == 0)
		return diag_set(err, file, 0, 0,
				"'offload_optimizer' (%g) needs 'zero' 1 or "
				"more: the host steps each rank's shard of "
				"the distributed optimizer, as Megatron-Core "
				"and ZeRO-Offload do", t->offload_optimizer);
	if (t->offload_optimizer > 0.0 && m->kind != MODEL_TRANSFORMER)
		return diag_set(err, file, 0, 0,
				"'offload_optimizer' is modelled for "
				"transformers, not a %s model",
				model_kind_name(m->kind));
	return 0;
}

/* Speculative decoding and disaggregation: each key with what it needs;
   both are simulated, so they need a load. */
static int check_serving_modes(const struct inference_spec *is,
			       bool caching_given, const char *file,
			       struct diag *err)
{
	bool load = is->arrival != WL_AUTO_NEG || is->qps > 0.0 ||
		    is->concurrency > 0 || is->trace[0];

	if (is->weight_only && is->weight_precision != PREC_INT8 &&
	    is->weight_precision != PREC_FP8 &&
	    is->weight_precision != PREC_FP4)
		return diag_set(err, file, 0, 0,
				"'inference.weight_only' is for int8, fp8 and "
				"fp4 weights (int4 always runs weight-only, "
				"16-bit weights have nothing to dequantize); "
				"'inference.weight_precision' is %s",
				precision_name(is->weight_precision));
	if (is->fp4_format == 1 && is->weight_precision != PREC_FP4)
		return diag_set(err, file, 0, 0,
				"'inference.fp4_format' mxfp4 is for fp4 "
				"weights; 'inference.weight_precision' is %s",
				precision_name(is->weight_precision));
	if (is->speculative_tokens > 0 && !(is->acceptance_rate > 0.0))
		return diag_set(err, file, 0, 0,
				"'inference.speculative_tokens' needs "
				"'inference.acceptance_rate', the chance that "
				"a draft token is accepted (0 to 1)");
	if (is->acceptance_rate > 0.0 && is->speculative_tokens == 0)
		return diag_set(err, file, 0, 0,
				"'inference.acceptance_rate' is for "
				"speculative decoding: give "
				"'inference.speculative_tokens'");
	if ((is->speculative_tokens > 0 || is->disaggregated) && !load)
		return diag_set(err, file, 0, 0,
				"%s is simulated under load: give "
				"'inference.qps', 'concurrency', 'arrival = "
				"burst' or a 'trace'",
				is->disaggregated ?
					"'inference.disaggregated'" :
					"speculative decoding");
	/* (a stack's prefix cache, vLLM's and SGLang's default, has nothing
	   to serve without a load: only a user's asks for one) */
	if ((is->turns > 1 || is->shared_prefix_tokens > 0 ||
	     (is->prefix_caching == 1 && caching_given)) && !load)
		return diag_set(err, file, 0, 0,
				"%s simulated under load: give "
				"'inference.qps', 'concurrency', 'arrival = "
				"burst' or a 'trace'",
				is->turns > 1 ? "'inference.turns' (sessions) are" :
				is->shared_prefix_tokens > 0 ?
					"'inference.shared_prefix_tokens' is" :
					"'inference.prefix_caching' is");
	if (is->turns <= 1 &&
	    (is->think_time_s > 0.0 || is->turn_tokens != WL_AUTO))
		return diag_set(err, file, 0, 0,
				"'%s' is for sessions of several turns: give "
				"'inference.turns'",
				is->think_time_s > 0.0 ? "inference.think_time" :
							 "inference.turn_tokens");
	if (is->turns > 1 && (is->trace[0] || is->arrival == 3))
		return diag_set(err, file, 0, 0,
				"'inference.turns' builds sessions from the "
				"load; a trace's requests are replayed as they "
				"are");
	if (is->prefix_groups > 1 && is->shared_prefix_tokens <= 0)
		return diag_set(err, file, 0, 0,
				"'inference.prefix_groups' are groups of "
				"requests that share a prefix: give "
				"'inference.shared_prefix_tokens'");
	if (is->shared_prefix_tokens > 0 &&
	    is->shared_prefix_tokens >= is->prompt_tokens)
		return diag_set(err, file, 0, 0,
				"'inference.shared_prefix_tokens' (%d) must be "
				"less than 'inference.prompt_tokens' (%d): the "
				"prefix is part of the first prompt",
				is->shared_prefix_tokens, is->prompt_tokens);
	if ((is->kv_offload_memory_bytes > 0.0 ||
	     is->kv_offload_storage_bytes > 0.0) && is->prefix_caching == 0)
		return diag_set(err, file, 0, 0,
				"'%s' is a tier under the prefix cache: "
				"'inference.prefix_caching' is false",
				is->kv_offload_memory_bytes > 0.0 ?
					"inference.kv_offload_memory" :
					"inference.kv_offload_storage");
	if ((is->kv_offload_memory_bytes > 0.0 ||
	     is->kv_offload_storage_bytes > 0.0) && !load)
		return diag_set(err, file, 0, 0,
				"'%s' is simulated under load: give "
				"'inference.qps', 'concurrency', 'arrival = "
				"burst' or a 'trace'",
				is->kv_offload_memory_bytes > 0.0 ?
					"inference.kv_offload_memory" :
					"inference.kv_offload_storage");
	if (is->kv_storage_bw_bytes_per_s > 0.0 &&
	    !(is->kv_offload_storage_bytes > 0.0))
		return diag_set(err, file, 0, 0,
				"'inference.kv_storage_bw' is the read "
				"bandwidth of 'inference.kv_offload_storage': "
				"give its size");
	if (is->prefix_caching == 1 && is->disaggregated)
		return diag_set(err, file, 0, 0,
				"'inference.prefix_caching' is not modelled "
				"with 'inference.disaggregated' yet (the "
				"prefill pool's cache); set it false or auto");
	if (!is->disaggregated &&
	    (is->prefill_replicas != WL_AUTO ||
	     is->decode_replicas != WL_AUTO || is->prefill_tp != WL_AUTO ||
	     is->decode_tp != WL_AUTO || is->kv_transfer_bw_bytes_per_s > 0.0))
		return diag_set(err, file, 0, 0,
				"'prefill_replicas', 'decode_replicas', "
				"'prefill_tp', 'decode_tp' and "
				"'kv_transfer_bw' need 'inference.disaggregated "
				"= true'");
	if (is->disaggregated && is->replicas != WL_AUTO)
		return diag_set(err, file, 0, 0,
				"a disaggregated fleet is 'prefill_replicas' "
				"and 'decode_replicas', not "
				"'inference.replicas'");
	if (is->disaggregated &&
	    (is->prefill_replicas == WL_AUTO) !=
		    (is->decode_replicas == WL_AUTO))
		return diag_set(err, file, 0, 0,
				"give both 'inference.prefill_replicas' and "
				"'inference.decode_replicas' (a fixed fleet), "
				"or neither (sized)");
	return 0;
}

/*
 * Keys that only some kinds of model read, with the kinds that read them
 * (specs/workload.md, "Keys of one kind of model"): a key given for a
 * model that ignores it is an error, not a silent no-op.  A per-sample
 * model (generic, recsys) trains data-parallel over its samples and is
 * served a batch at a time (specs/models.md 14); a transformer's
 * parallelism, tokens and serving engine are not its, and the per-sample
 * keys are not a transformer's.  [cluster] keys describe the hardware
 * and are accepted for every kind.
 */
enum { KIND_T = 1 << MODEL_TRANSFORMER, KIND_G = 1 << MODEL_GENERIC,
       KIND_R = 1 << MODEL_RECSYS };

static const struct {
	const char *section;
	const char *key;
	int kinds;
} kind_keys[] = {
	{ "training", "tokens", KIND_T },
	{ "training", "batch_tokens", KIND_T },
	{ "training", "tp", KIND_T },
	{ "training", "pp", KIND_T },
	{ "training", "vp", KIND_T },
	{ "training", "first_stage_layers", KIND_T },
	{ "training", "last_stage_layers", KIND_T },
	{ "training", "cp", KIND_T },
	{ "training", "ep", KIND_T },
	{ "training", "recompute", KIND_T },
	{ "training", "recompute_modules", KIND_T },
	{ "training", "recompute_layers", KIND_T },
	{ "training", "sequence_parallel", KIND_T },
	{ "training", "attention", KIND_T },
	{ "training", "eager_ops", KIND_T },
	{ "training", "dropout", KIND_T },
	{ "training", "tp_comm_overlap", KIND_T },
	{ "training", "ep_comm_overlap", KIND_T },
	{ "training", "zero_shard", KIND_T },
	{ "training", "samples", KIND_G | KIND_R },
	{ "training", "epochs", KIND_G | KIND_R },
	{ "training", "step_overhead", KIND_G | KIND_R },
	{ "training", "embedding_sharding", KIND_R },
	{ "training", "embedding_update", KIND_R },
	{ "training", "bottom_mlp_placement", KIND_R },
	{ "training", "embedding_comm_overlap", KIND_R },
	{ "training", "input_bytes_per_sample", KIND_R },
	{ "training", "collective_cycle", KIND_R },
	{ "inference", "kv_precision", KIND_T },
	{ "inference", "prompt_tokens", KIND_T },
	{ "inference", "output_tokens", KIND_T },
	{ "inference", "ep", KIND_T },
	{ "inference", "sparsity", KIND_T },
	{ "inference", "arrival", KIND_T },
	{ "inference", "concurrency", KIND_T },
	{ "inference", "requests", KIND_T },
	{ "inference", "trace", KIND_T },
	{ "inference", "length_dist", KIND_T },
	{ "inference", "seed", KIND_T },
	{ "inference", "replicas", KIND_T },
	{ "inference", "max_batch", KIND_T },
	{ "inference", "max_batched_tokens", KIND_T },
	{ "inference", "chunked_prefill", KIND_T },
	{ "inference", "kv_block_tokens", KIND_T },
	{ "inference", "scheduler_steps", KIND_T },
	{ "inference", "kernel_overhead", KIND_T },
	{ "inference", "host_request_overhead", KIND_T },
	{ "inference", "host_step_overhead", KIND_T },
	{ "inference", "memory_fraction", KIND_T },
	{ "inference", "memory_fraction_of", KIND_T },
	{ "inference", "kv_cache_tokens", KIND_T },
	{ "inference", "device_defaults", KIND_T },
	{ "inference", "weight_only", KIND_T },
	{ "inference", "fp4_format", KIND_T },
	{ "inference", "non_expert_precision", KIND_T },
	{ "inference", "decode_attention", KIND_T },
	{ "inference", "speculative_tokens", KIND_T },
	{ "inference", "acceptance_rate", KIND_T },
	{ "inference", "draft_cost_ratio", KIND_T },
	{ "inference", "speculative_method", KIND_T },
	{ "inference", "expert_imbalance", KIND_T },
	{ "inference", "ep_comm_overlap", KIND_T },
	{ "inference", "redundant_experts", KIND_T },
	{ "inference", "turns", KIND_T },
	{ "inference", "think_time", KIND_T },
	{ "inference", "turn_tokens", KIND_T },
	{ "inference", "shared_prefix_tokens", KIND_T },
	{ "inference", "prefix_caching", KIND_T },
	{ "inference", "prefix_groups", KIND_T },
	{ "inference", "routing", KIND_T },
	{ "inference", "kv_offload_memory", KIND_T },
	{ "inference", "kv_offload_storage", KIND_T },
	{ "inference", "kv_storage_bw", KIND_T },
	{ "inference", "disaggregated", KIND_T },
	{ "inference", "prefill_replicas", KIND_T },
	{ "inference", "decode_replicas", KIND_T },
	{ "inference", "prefill_tp", KIND_T },
	{ "inference", "decode_tp", KIND_T },
	{ "inference", "kv_transfer_bw", KIND_T },
	{ "inference", "cuda_graphs", KIND_G | KIND_R },
	{ "inference", "framework_overhead", KIND_G | KIND_R },
	{ "inference", "launch_overhead", KIND_G | KIND_R },
	{ "inference", "fusion", KIND_G | KIND_R },
	{ "inference", "server", KIND_G | KIND_R },
	{ "inference", "request_overhead", KIND_G | KIND_R },
};

/* What a model of 'kind' does instead, for the message. */
static const char *kind_instead(enum model_kind kind, const char *section)
{
	bool train = strcmp(section, "training") == 0;

	if (kind == MODEL_TRANSFORMER)
		return train ? "a transformer trains on 'tokens' with its "
			       "parallelism (tp, pp, cp, ep)" :
			       "a transformer's fixed serving costs are "
			       "kernel_overhead, host_request_overhead and "
			       "host_step_overhead";
	return train ? "it trains data-parallel over its samples (gpus, "
		       "global_batch, micro_batch, zero, precision, "
		       "optimizer)" :
		       "it is served a batch at a time (batch, tp, "
		       "weight_precision, qps, ttft_slo, percentile and its "
		       "fixed costs)";
}

static int check_kind_keys(const struct workload *wl, const char *file,
			   struct diag *err)
{
	int kind = 1 << wl->model.kind;

	for (size_t i = 0; i < ARRAY_SIZE(kind_keys); i++) {
		int k = kind_keys[i].kinds;

		if ((k & kind) ||
		    !wl->given[wl_find_key_index(kind_keys[i].section,
						 kind_keys[i].key)])
			continue;
		return diag_set(err, file, 0, 0,
				"'%s.%s' is for %s models, not a %s model: "
				"%s (specs/workload.md)",
				kind_keys[i].section, kind_keys[i].key,
				k == KIND_T   ? "transformer" :
				k == KIND_R   ? "recsys" :
						"per-sample (generic and recsys)",
				model_kind_name(wl->model.kind),
				kind_instead(wl->model.kind,
					     kind_keys[i].section));
	}
	return 0;
}

/* The load of [inference] (serve_sim.h): each arrival kind has what it
   needs, and nothing meant for another kind. */
/* Multi-token prediction needs the model's modules; the keys of wide
   expert parallelism need experts spread over ranks (ep > 1). */
static int check_wide_ep(const struct workload *wl, const char *file,
			 struct diag *err)
{
	const struct inference_spec *is = &wl->inference;

	if (is->speculative_method == WL_SPEC_MTP &&
	    wl->model.mtp_layers == 0)
		return diag_set(err, file, 0, 0,
				"'inference.speculative_method' mtp drafts "
				"with the model's multi-token prediction "
				"modules: give 'model.mtp_layers' (a Hugging "
				"Face config's num_nextn_predict_layers)");
	if (is->speculative_method == WL_SPEC_MTP &&
	    is->speculative_tokens == 0)
		return diag_set(err, file, 0, 0,
				"'inference.speculative_method' is for "
				"speculative decoding: give "
				"'inference.speculative_tokens'");
	if ((is->expert_imbalance > 0.0 || is->ep_comm_overlap ||
	     is->redundant_experts > 0) &&
	    (wl->model.experts == 0 || is->ep == WL_AUTO || is->ep < 2))
		return diag_set(err, file, 0, 0,
				"'inference.%s' is for experts spread over "
				"ranks: give a mixture of experts and "
				"'inference.ep' of 2 or more",
				is->expert_imbalance > 0.0 ? "expert_imbalance" :
				is->ep_comm_overlap	   ? "ep_comm_overlap" :
							     "redundant_experts");
	return 0;
}

static int check_load(const struct workload *wl, const char *file,
		      struct diag *err)
{
	const struct inference_spec *is = &wl->inference;
	static const char *const kinds[] = { "poisson", "closed", "burst",
					     "trace" };
	int a = is->arrival;

	if (a == 0 && !(is->qps > 0.0))
		return diag_set(err, file, 0, 0,
				"'inference.arrival' is poisson: give "
				"'inference.qps', the requests per second");
	if (a == 1 && is->concurrency < 1)
		return diag_set(err, file, 0, 0,
				"'inference.arrival' is closed: give "
				"'inference.concurrency', the clients");
	if (a == 3 && !is->trace[0])
		return diag_set(err, file, 0, 0,
				"'inference.arrival' is trace: give "
				"'inference.trace', a CSV file of arrival_s, "
				"prompt_tokens, output_tokens");
	if (is->trace[0] && a != WL_AUTO_NEG && a != 3)
		return diag_set(err, file, 0, 0,
				"'inference.trace' needs 'arrival = trace' "
				"(not %s)", kinds[a]);
	if (is->concurrency > 0 && a != WL_AUTO_NEG && a != 1)
		return diag_set(err, file, 0, 0,
				"'inference.concurrency' is for closed loops "
				"('arrival = closed'), not %s", kinds[a]);
	if (is->qps > 0.0 && a > 0)
		return diag_set(err, file, 0, 0,
				"'inference.qps' is a Poisson rate: it does "
				"not go with 'arrival = %s'", kinds[a]);
	if (is->qps > 0.0 && a == WL_AUTO_NEG &&
	    (is->concurrency > 0 || is->trace[0]))
		return diag_set(err, file, 0, 0,
				"give one load: 'inference.qps', "
				"'inference.concurrency' or 'inference.trace'");
	if (is->concurrency > 0 && a == WL_AUTO_NEG && is->trace[0])
		return diag_set(err, file, 0, 0,
				"give 'inference.concurrency' or "
				"'inference.trace', not both");
	if (is->chunked_prefill && is->max_batched_tokens != WL_AUTO &&
	    is->max_batch != WL_AUTO && is->max_batched_tokens < is->max_batch)
		return diag_set(err, file, 0, 0,
				"'inference.max_batched_tokens' (%d) must be at "
				"least 'inference.max_batch' (%d) with chunked "
				"prefill: every running sequence decodes a "
				"token of the budget", is->max_batched_tokens,
				is->max_batch);
	if (is->replicas != WL_AUTO && a == WL_AUTO_NEG &&
	    !(is->qps > 0.0) && is->concurrency == 0 && !is->trace[0])
		return diag_set(err, file, 0, 0,
				"'inference.replicas' (a fixed fleet) needs a "
				"load: 'qps', 'concurrency', 'arrival = "
				"burst' or a 'trace'");
	return check_serving_modes(
		is,
		wl->given[wl_find_key_index("inference", "prefix_caching")],
		file, err);
}

/*
 * The key a name quoted in a message stands for: "section.key", or a key's
 * name that no other section has (wl_key_label's labels); -1 when none.
 */
static int key_of_label(const char *name)
{
	const char *dot = strchr(name, '.');
	int found = -1;

	if (dot) {
		char section[32];
		size_t n = (size_t)(dot - name);

		if (n >= sizeof(section))
			return -1;
		memcpy(section, name, n);
		section[n] = '\0';
		return wl_key_find(section, dot + 1);
	}
	for (size_t i = 0; i < wl_key_count; i++)
		if (strcmp(wl_keys[i].key, name) == 0) {
			if (found >= 0)
				return -1;
			found = (int)i;
		}
	return found;
}

/* The key a message of validate_all is about: the first quoted name in
   it that is a key's (the subject, in git's style); -1 when none is. */
static int subject_key(const char *msg)
{
	const char *p = msg, *q;

	while ((p = strchr(p, '\'')) != NULL &&
	       (q = strchr(p + 1, '\'')) != NULL) {
		char name[64];
		size_t n = (size_t)(q - p - 1);
		int idx;

		if (n > 0 && n < sizeof(name)) {
			memcpy(name, p + 1, n);
			name[n] = '\0';
			idx = key_of_label(name);
			if (idx >= 0)
				return idx;
		}
		p = q + 1;
	}
	return -1;
}

static int validate_all(const struct workload *wl, struct diag *err);

/* validate_all, its error placed at the key it is about where the file
   gave that key. */
int workload_validate(const struct workload *wl, struct diag *err)
{
	struct diag d;
	int k;

	diag_clear(&d);
	if (validate_all(wl, &d) == 0)
		return 0;
	k = subject_key(d.msg);
	if (d.line == 0 && k >= 0 && k < WL_GIVEN_MAX && d.file[0] &&
	    strcmp(d.file, wl->file) == 0 && wl->given_line[k] > 0) {
		d.line = wl->given_line[k];
		d.col = wl->given_col[k];
	}
	return diag_set_kind(err, d.kind, d.file[0] ? d.file : NULL, d.line,
			     d.col, "%s", d.msg);
}

static int validate_all(const struct workload *wl, struct diag *err)
{
	const char *file = wl->file[0] ? wl->file : NULL;

	for (size_t i = 0; i < wl_key_count; i++)
		if (key_check(&wl_keys[i], wl, file, err) < 0)
			return -1;
	if (wl->model.onnx[0]) {
		/* the graph gives the network: the per-sample totals and the
		   kind follow from it */
		static const char *const keys[] = {
			"params", "flops_per_sample",
			"activation_bytes_per_sample", "kind"
		};

		for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
			if (wl->given[wl_find_key_index("model", keys[i])] &&
			    (i < 3 || wl->model.kind != MODEL_GENERIC))
				return diag_set(err, file, 0, 0,
						"[model] onnx gives the "
						"network: leave out '%s'",
						keys[i]);
	}
	if (check_model(&wl->model, file, err) < 0)
		return -1;
	if (wl_check_recsys(&wl->model,
			    wl->given[wl_find_key_index("model",
						     "dense_params")] ||
				    wl->given[wl_find_key_index(
					    "model", "dense_flops_per_sample")],
			    file, err) < 0)
		return -1;
	if (check_kind_keys(wl, file, err) < 0 ||
	    check_training(&wl->training, &wl->model, file, err) < 0)
		return -1;
	if (wl->inference.non_expert_precision != PREC_COUNT &&
	    wl->model.experts == 0)
		return diag_set(err, file, 0, 0,
				"'inference.non_expert_precision' is for a "
				"mixture of experts (the weights outside its "
				"routed experts), and the model has no "
				"'experts'; 'inference.weight_precision' "
				"sets every weight of a dense model");
	if (wl->inference.ep > 1 && wl->model.experts == 0)
		return diag_set(err, file, 0, 0,
				"'inference.ep' (%d) needs a mixture-of-experts "
				"model ('experts')", wl->inference.ep);
	if (wl->inference.ep > 0 && wl->model.experts > 0 &&
	    (wl->model.experts + wl->inference.redundant_experts) %
			    wl->inference.ep !=
		    0)
		return wl->inference.redundant_experts > 0 ?
			       diag_set(err, file, 0, 0,
					"'inference.ep' (%d) must divide "
					"'experts' + "
					"'inference.redundant_experts' (%d)",
					wl->inference.ep,
					wl->model.experts +
						wl->inference
							.redundant_experts) :
			       diag_set(err, file, 0, 0,
					"'inference.ep' (%d) must divide "
					"'experts' (%d)",
					wl->inference.ep, wl->model.experts);
	if (check_wide_ep(wl, file, err) < 0 ||
	    check_load(wl, file, err) < 0)
		return -1;
	/* a request longer than the model's context is refused by an
	   engine (vLLM's max_model_len): not simulated shortened (issue
	   40); a trace's requests are checked as it is read */
	if (wl->model.kind == MODEL_TRANSFORMER && wl->model.seq_len > 0 &&
	    !wl->inference.trace[0] &&
	    (wl->given[wl_find_key_index("inference", "prompt_tokens")] ||
	     wl->given[wl_find_key_index("inference", "output_tokens")]) &&
	    (long long)wl->inference.prompt_tokens +
			    wl->inference.output_tokens >
		    wl->model.seq_len)
		return diag_set(err, file, 0, 0,
				"'inference.prompt_tokens' + 'output_tokens' "
				"(%d + %d) exceed the model's context "
				"(seq_len %d): an engine refuses such "
				"requests; shorten them or raise seq_len",
				wl->inference.prompt_tokens,
				wl->inference.output_tokens,
				wl->model.seq_len);
	if (check_tp("inference.prefill_tp", wl->inference.prefill_tp,
		     &wl->model, file, err) < 0 ||
	    check_tp("inference.decode_tp", wl->inference.decode_tp,
		     &wl->model, file, err) < 0)
		return -1;
	return check_tp("inference.tp", wl->inference.tp, &wl->model, file,
			err);
}
