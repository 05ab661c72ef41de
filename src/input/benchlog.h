/*
 * benchlog.h - the result files of the benchmarks people already run,
 * read as measurements for 'capplan calibrate' (specs/calibration.md).
 *
 * vLLM's serving benchmark ('vllm bench serve --save-result', formerly
 * benchmarks/benchmark_serving.py): a JSON object with the run's load
 * (num_prompts, request_rate: a number or "inf", max_concurrency: a
 * number or null, burstiness), its totals (completed, total_input_tokens,
 * total_output_tokens) and results (request_throughput, output_throughput,
 * mean_ttft_ms, median_ttft_ms, mean_tpot_ms, median_tpot_ms, ...).  SGLang's
 * bench_serving writes the same keys.  The load becomes the measurement's
 * 'set' (a Poisson rate, a closed loop of max_concurrency clients, or a
 * burst; the requests and their mean lengths), and each result a
 * measurement of the matching field of 'capplan infer' (ttft_p50_s,
 * ttft_mean_s, tpot_p50_s, tpot_mean_s, request_throughput_per_s,
 * output_tokens_per_s).
 */
#ifndef CAPPLAN_BENCHLOG_H
#define CAPPLAN_BENCHLOG_H

#include <stddef.h>

#include "diag.h"
#include "measure.h"

/*
 * Append the measurements of a vLLM (or SGLang) serving result 'buf'
 * ('name' in messages) of a run of 'workload' on 'gpu' to 's'.  Returns
 * 0, or -1 with the error in 'err' ('s' as it was).
 */
int benchlog_vllm_parse(const char *buf, size_t len, const char *name,
			const char *workload, const char *gpu,
			struct measure_set *s, struct diag *err);

int benchlog_load_file(const char *path, const char *workload,
		       const char *gpu, struct measure_set *s,
		       struct diag *err);

#endif
