/*
 * engine_limits.c - an engine's running sequences, step tokens and
 * memory share on one device (engine_limits.h; specs/stacks.md
 * "Defaults by device").
 */
#include "engine_limits.h"

#include <ctype.h>
#include <math.h>
#include <string.h>

/* Whether 'name' holds 'part', letters compared without case. */
static bool contains_nocase(const char *name, const char *part)
{
	size_t n = strlen(part);

	for (; *name; name++) {
		size_t i = 0;

		while (i < n && name[i] &&
		       tolower((unsigned char)name[i]) ==
			       tolower((unsigned char)part[i]))
			i++;
		if (i == n)
			return true;
	}
	return false;
}

/*
 * vLLM V1 (v0.11.0, vllm/engine/arg_utils.py, EngineArgs._set_default_
 * args for the OpenAI API server): max_num_seqs 1024 and
 * max_num_batched_tokens 8192 on a GPU of at least 70 GiB whose name
 * does not hold "a100" (vLLM PR #17885 keeps the A100 80 GB on the small
 * ones), 256 and 2048 on every other GPU.
 */
static void vllm_v1(const struct inference_spec *is,
		    const struct gpu_spec *g, struct engine_limits *el)
{
	bool large = g->mem_bytes >= ENGINE_VLLM_V1_LARGE_MEM_BYTES &&
		     !contains_nocase(g->name, "a100");

	if (is->max_batch == WL_AUTO) {
		el->max_batch = large ? ENGINE_VLLM_V1_LARGE_MAX_BATCH :
					ENGINE_VLLM_V1_SMALL_MAX_BATCH;
		el->by_rule = true;
	}
	if (is->max_batched_tokens == WL_AUTO) {
		el->max_batched_tokens = large ? ENGINE_VLLM_V1_LARGE_TOKENS :
						 ENGINE_VLLM_V1_SMALL_TOKENS;
		el->by_rule = true;
	}
}

/*
 * SGLang 0.5 (python/sglang/srt/server_args.py, ServerArgs._handle_gpu_
 * memory_settings), with the GPU's memory in MiB: chunked_prefill_size
 * (capplan's max_batched_tokens) and cuda_graph_max_bs by memory, then
 * mem_fraction_static = (memory - reserved) / memory, rounded to three
 * places, with reserved = 512 + 1.5 max(chunked_prefill_size, 2048) +
 * 2 cuda_graph_max_bs + 1024 tp / 8 MiB (pp 1), at least 10 GiB on GPUs
 * of more than 60 GiB, plus 2 GiB for EAGLE-style drafts (capplan's mtp)
 * or 6 GiB for a separate draft model (STANDALONE).
 */
static void sglang_05(const struct workload *wl, const struct gpu_spec *g,
		      int tp, struct engine_limits *el)
{
	const struct inference_spec *is = &wl->inference;
	double mib = g->mem_bytes / 1048576.0, reserved;
	int chunk, bs;
	int frac = workload_key_find("inference", "memory_fraction");

	if (mib < 20.0 * 1024) {
		chunk = 2048;
		bs = 8;
	} else if (mib < 35.0 * 1024) {
		chunk = 2048;
		bs = tp < 4 ? 24 : 80;
	} else if (mib < 60.0 * 1024) {
		chunk = 4096;
		bs = tp < 4 ? 32 : 160;
	} else if (mib < 160.0 * 1024) {
		chunk = 8192;
		bs = tp < 4 ? 256 : 512;
	} else {
		chunk = 16384;
		bs = 512;
	}
	el->cuda_graph_max_bs = bs;
	if (is->max_batched_tokens == WL_AUTO) {
		el->max_batched_tokens = chunk;
		el->by_rule = true;
	} else {
		chunk = is->max_batched_tokens; /* the size SGLang was given */
	}
	if (frac >= 0 && (workload_key_given(wl, (size_t)frac) ||
			  workload_key_stacked(wl, (size_t)frac)))
		return;
	reserved = 512.0 + 1.5 * fmax(chunk, 2048) + 2.0 * bs +
		   1024.0 * tp / 8.0;
	if (mib > 60.0 * 1024)
		reserved = fmax(reserved, 10.0 * 1024);
	if (is->speculative_tokens > 0)
		reserved += is->speculative_method == WL_SPEC_MTP ? 2048.0 :
								    6144.0;
	/* a fraction of at least 0.001 of what is left (a device smaller
	   than the reserve keeps a sliver, and its plan finds no room) */
	el->memory_fraction = fmax(round(1000.0 * (mib - reserved) / mib),
				   1.0) / 1000.0;
	el->by_rule = true;
}

void engine_limits_on(const struct workload *wl, const struct gpu_spec *g,
		      int tp, struct engine_limits *el)
{
	const struct inference_spec *is = &wl->inference;

	memset(el, 0, sizeof(*el));
	el->max_batch = is->max_batch;
	el->max_batched_tokens = is->max_batched_tokens;
	el->memory_fraction = is->memory_fraction;
	el->fraction_of_free = is->memory_fraction_of == WL_MEMFRAC_FREE;
	el->kv_cache_tokens = is->kv_cache_tokens;
	if (!g)
		return;
	if (tp < 1)
		tp = 1;
	switch (is->device_defaults) {
	case WL_DEVDEF_VLLM_V1:
		vllm_v1(is, g, el);
		break;
	case WL_DEVDEF_SGLANG_05:
		sglang_05(wl, g, tp, el);
		break;
	default:
		break;
	}
}
