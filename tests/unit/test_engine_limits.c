/* test_engine_limits.c - an engine's limits on a device (engine_limits.c):
   vLLM V1's batch limits and SGLang 0.5's memory settings by device, each
   worked by hand from the rule its source states (specs/stacks.md
   "Defaults by device"), the workload's and the stack row's values kept,
   and TensorRT-LLM's share of the free memory; cmocka. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine_limits.h"
#include "model_memory.h"
#include "stack.h"
#include "workload.h"

#define MIB 1048576.0

static struct gpu_spec device(const char *name, double mem_bytes)
{
	struct gpu_spec g;

	memset(&g, 0, sizeof(g));
	snprintf(g.name, sizeof(g.name), "%s", name);
	g.mem_bytes = mem_bytes;
	return g;
}

/* A workload naming 'engine' with the embedded stack table applied, and
   any --set pairs. */
static void engine_workload(struct workload *wl, const char *engine,
			    const char *set1, const char *set2)
{
	struct stack_table t;
	struct diag err;
	char expr[64];

	diag_clear(&err);
	workload_init(wl);
	snprintf(expr, sizeof(expr), "inference.engine=%s", engine);
	assert_int_equal(workload_set(wl, expr, &err), 0);
	if (set1)
		assert_int_equal(workload_set(wl, set1, &err), 0);
	if (set2)
		assert_int_equal(workload_set(wl, set2, &err), 0);
	assert_int_equal(stack_load_default(&t, &err), 0);
	if (stack_apply(&t, wl, &err) != 0)
		fail_msg("%s", err.msg);
	stack_release(&t);
}

static void test_vllm_v1(void **state)
{
	struct workload wl;
	struct engine_limits el;
	/* H100 SXM as the driver reports it: 81559 MiB */
	struct gpu_spec h100 = device("H100-SXM", 81559 * MIB);
	struct gpu_spec a100 = device("A100-SXM-80GB", 81920 * MIB);
	struct gpu_spec l40s = device("L40S", 46068 * MIB);
	struct gpu_spec at70 = device("X", 70.0 * 1024 * MIB);
	struct gpu_spec under = device("X", 70.0 * 1024 * MIB - 1.0);

	(void)state;
	engine_workload(&wl, "vllm@0.11", NULL, NULL);
	assert_int_equal(wl.inference.device_defaults, WL_DEVDEF_VLLM_V1);
	assert_int_equal(wl.inference.max_batch, WL_AUTO);
	engine_limits_on(&wl, &h100, 1, &el);
	assert_int_equal(el.max_batch, 1024);
	assert_int_equal(el.max_batched_tokens, 8192);
	assert_true(el.by_rule);
	assert_true(fabs(el.memory_fraction - 0.9) < 1e-12);
	assert_false(el.fraction_of_free);
	/* the A100 80 GB by name, whatever its memory (vLLM PR #17885) */
	engine_limits_on(&wl, &a100, 1, &el);
	assert_int_equal(el.max_batch, 256);
	assert_int_equal(el.max_batched_tokens, 2048);
	engine_limits_on(&wl, &l40s, 2, &el);
	assert_int_equal(el.max_batch, 256);
	assert_int_equal(el.max_batched_tokens, 2048);
	/* 70 GiB is large, a byte less is not */
	engine_limits_on(&wl, &at70, 1, &el);
	assert_int_equal(el.max_batch, 1024);
	engine_limits_on(&wl, &under, 1, &el);
	assert_int_equal(el.max_batch, 256);

	/* a value the workload gives is kept; the other still the rule's */
	engine_workload(&wl, "vllm@0.11", "inference.max_batch=64", NULL);
	engine_limits_on(&wl, &a100, 1, &el);
	assert_int_equal(el.max_batch, 64);
	assert_int_equal(el.max_batched_tokens, 2048);

	/* vLLM 0.6 has no rule: its row's 256 on every device */
	engine_workload(&wl, "vllm@0.6", NULL, NULL);
	engine_limits_on(&wl, &h100, 1, &el);
	assert_int_equal(el.max_batch, 256);
	assert_int_equal(el.max_batched_tokens, WL_AUTO);
	assert_false(el.by_rule);
}

/* SGLang's memory share by hand: (MiB - reserved) / MiB to three places. */
static double sglang_share(double mib, double reserved)
{
	return round(1000.0 * (mib - reserved) / mib) / 1000.0;
}

static void test_sglang_05(void **state)
{
	struct workload wl;
	struct engine_limits el;
	struct gpu_spec h100 = device("H100-SXM", 81559 * MIB);
	struct gpu_spec l40s = device("L40S", 46068 * MIB);
	struct gpu_spec rtx = device("RTX-4090", 24564 * MIB);
	struct gpu_spec mi300x = device("MI300X", 196592 * MIB);

	(void)state;
	engine_workload(&wl, "sglang", NULL, NULL);
	assert_int_equal(wl.inference.device_defaults, WL_DEVDEF_SGLANG_05);
	assert_int_equal(wl.inference.max_batch, 4096);
	/* 80 GB at tp 1: chunks of 8192, graphs to 256: 512 + 12288 + 512 +
	   128 = 13440 MiB over the 10 GiB floor, 0.835 */
	engine_limits_on(&wl, &h100, 1, &el);
	assert_int_equal(el.max_batched_tokens, 8192);
	assert_int_equal(el.cuda_graph_max_bs, 256);
	assert_true(fabs(el.memory_fraction - 0.835) < 1e-12);
	assert_int_equal(el.max_batch, 4096); /* the row's pool */
	/* tp 4: graphs to 512 and 512 MiB for the ranks: 14336 */
	engine_limits_on(&wl, &h100, 4, &el);
	assert_int_equal(el.cuda_graph_max_bs, 512);
	assert_true(fabs(el.memory_fraction -
			 sglang_share(81559, 14336)) < 1e-12);
	assert_true(fabs(el.memory_fraction - 0.824) < 1e-12);
	/* 45 GiB: chunks of 4096, graphs to 32: 512 + 6144 + 64 + 128 */
	engine_limits_on(&wl, &l40s, 1, &el);
	assert_int_equal(el.max_batched_tokens, 4096);
	assert_true(fabs(el.memory_fraction - sglang_share(46068, 6848)) <
		    1e-12);
	/* 24 GB: chunks of 2048 (1.5 x 2048), graphs to 24 */
	engine_limits_on(&wl, &rtx, 1, &el);
	assert_int_equal(el.max_batched_tokens, 2048);
	assert_true(fabs(el.memory_fraction - sglang_share(24564, 3760)) <
		    1e-12);
	/* 192 GB: chunks of 16384, graphs to 512 at any tp */
	engine_limits_on(&wl, &mi300x, 1, &el);
	assert_int_equal(el.max_batched_tokens, 16384);
	assert_true(fabs(el.memory_fraction -
			 sglang_share(196592, 512 + 24576 + 1024 + 128)) <
		    1e-12);

	/* multi-token prediction drafts reserve 2 GiB more */
	engine_workload(&wl, "sglang", "inference.speculative_tokens=2",
			"inference.speculative_method=mtp");
	engine_limits_on(&wl, &h100, 1, &el);
	assert_true(fabs(el.memory_fraction -
			 sglang_share(81559, 13440 + 2048)) < 1e-12);

	/* a given chunk size sets the reserve; a given share is kept */
	engine_workload(&wl, "sglang", "inference.max_batched_tokens=16384",
			NULL);
	engine_limits_on(&wl, &h100, 1, &el);
	assert_int_equal(el.max_batched_tokens, 16384);
	assert_true(fabs(el.memory_fraction -
			 sglang_share(81559, 512 + 24576 + 512 + 128)) <
		    1e-12);
	engine_workload(&wl, "sglang", "inference.memory_fraction=0.7", NULL);
	engine_limits_on(&wl, &h100, 1, &el);
	assert_true(fabs(el.memory_fraction - 0.7) < 1e-12);
	assert_int_equal(el.max_batched_tokens, 8192);
	/* an older SGLang's row gives its own share */
	engine_workload(&wl, "sglang@0.4", NULL, NULL);
	engine_limits_on(&wl, &h100, 1, &el);
	assert_true(fabs(el.memory_fraction - 0.88) < 1e-12);
	assert_false(el.by_rule);
}

static void test_trtllm_free(void **state)
{
	struct workload wl;
	struct engine_limits el;
	struct gpu_spec h100 = device("H100-SXM", 80e9);
	double used = 70e9;

	(void)state;
	engine_workload(&wl, "trtllm", NULL, NULL);
	engine_limits_on(&wl, &h100, 2, &el);
	assert_true(el.fraction_of_free);
	assert_int_equal(el.max_batch, 2048);
	/* 0.9 of what 70 GB of weights and activations and the 1 GB
	   context leave: a reserve of 1 GB + 0.1 x 9 GB */
	assert_true(fabs(infer_memory_reserve_free(80e9, 0.9, used) - 1.9e9) <
		    1.0);
	/* more than the device: only the context */
	assert_true(fabs(infer_memory_reserve_free(80e9, 0.9, 90e9) - 1e9) <
		    1.0);
	/* a share of the device, for comparison: 1 GB + 8 GB */
	assert_true(fabs(infer_memory_reserve(80e9, 0.9) - 9e9) < 1.0);
	assert_int_equal(el.kv_cache_tokens, WL_AUTO);
	/* llama.cpp's n_ctx and MLC's local-mode cache, whatever memory is
	   left */
	engine_workload(&wl, "llama.cpp", NULL, NULL);
	engine_limits_on(&wl, &h100, 1, &el);
	assert_int_equal(el.kv_cache_tokens, 4096);
	assert_int_equal(el.max_batch, 1);
	engine_workload(&wl, "mlc", NULL, NULL);
	engine_limits_on(&wl, &h100, 1, &el);
	assert_int_equal(el.kv_cache_tokens, 8192);
	engine_workload(&wl, "mlc", "inference.kv_cache_tokens=auto", NULL);
	engine_limits_on(&wl, &h100, 1, &el);
	assert_int_equal(el.kv_cache_tokens, WL_AUTO);
	/* the generic engine's share is of the device */
	engine_workload(&wl, "generic", NULL, NULL);
	engine_limits_on(&wl, &h100, 1, &el);
	assert_false(el.fraction_of_free);
	assert_int_equal(el.max_batch, WL_AUTO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vllm_v1),
		cmocka_unit_test(test_sglang_05),
		cmocka_unit_test(test_trtllm_free),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
