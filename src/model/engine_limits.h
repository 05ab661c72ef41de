/*
 * engine_limits.h - what a serving engine runs with on one device: the
 * running sequences, the tokens of a step and the share of memory it
 * fills, from the workload's keys and, where it leaves them to the
 * engine, the engine's own rule for the device (inference.device_
 * defaults; specs/stacks.md "Defaults by device").
 *
 * vLLM V1 and SGLang set these by the GPU's memory (and SGLang by the
 * tensor-parallel size): a stack row cannot hold one value for every
 * device, so the row names the rule and the plan of each device resolves
 * it here.  Pure: no I/O, no globals.
 */
#ifndef CAPPLAN_ENGINE_LIMITS_H
#define CAPPLAN_ENGINE_LIMITS_H

#include <stdbool.h>

#include "catalog.h"
#include "workload.h"

/* vLLM V1 (EngineArgs._set_default_args, OPENAI_API_SERVER context): a
   GPU of at least this much memory whose name has no "a100" runs the
   large limits, every other GPU the small ones. */
#define ENGINE_VLLM_V1_LARGE_MEM_BYTES (70.0 * 1073741824.0)
#define ENGINE_VLLM_V1_LARGE_MAX_BATCH 1024
#define ENGINE_VLLM_V1_LARGE_TOKENS 8192
#define ENGINE_VLLM_V1_SMALL_MAX_BATCH 256
#define ENGINE_VLLM_V1_SMALL_TOKENS 2048

struct engine_limits {
	int max_batch;          /* running sequences at most; WL_AUTO: the
				   plan's batch */
	int max_batched_tokens; /* tokens a step at most; WL_AUTO:
				   capplan's default budget */
	double memory_fraction; /* the share the engine fills (0: 0.9) */
	bool fraction_of_free;  /* ... of the memory the weights,
				   activations and context leave, not of
				   the device (TensorRT-LLM) */
	int kv_cache_tokens;    /* tokens the KV cache holds at most, all
				   sequences of a replica (llama.cpp's
				   n_ctx, MLC's local-mode
				   max_total_sequence_length); WL_AUTO:
				   what memory leaves */
	/* SGLang's rule only: the largest batch its CUDA graphs capture
	   (cuda_graph_max_bs), which its memory share reserves for; 0
	   otherwise */
	int cuda_graph_max_bs;
	bool by_rule;           /* some value came from the device rule */
};

/*
 * The limits of the engine of 'wl' on 'g' at tensor parallelism 'tp':
 * each of max_batch, max_batched_tokens and memory_fraction is the
 * workload's (given, or its stack row's), else the device rule's
 * (inference.device_defaults), else capplan's default (WL_AUTO for the
 * first two).
 */
void engine_limits_on(const struct workload *wl, const struct gpu_spec *g,
		      int tp, struct engine_limits *el);

#endif
