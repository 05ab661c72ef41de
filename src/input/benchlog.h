/*
 * benchlog.h - the result files and logs of the benchmarks people already
 * run, read as measurements for 'capplan calibrate' (specs/calibration.md,
 * "Benchmark results", names each format's source).
 *
 * Serving ('capplan infer' measurements, MEASURE_INFER):
 *  - vLLM's serving benchmark ('vllm bench serve --save-result', formerly
 *    benchmarks/benchmark_serving.py): a JSON object with the run's load
 *    (num_prompts, request_rate: a number or "inf", max_concurrency: a
 *    number or null, burstiness), its totals (completed,
 *    total_input_tokens, total_output_tokens) and results
 *    (request_throughput, output_throughput, mean_ttft_ms, median_ttft_ms,
 *    mean_tpot_ms, median_tpot_ms, ...).  SGLang's bench_serving writes the
 *    same keys (without num_prompts, and an unlimited rate as the bare
 *    token Infinity, read here as "inf").
 *  - SGLang's bench_serving '--output-file': the same object, one per line
 *    (JSONL), a line appended per run.
 *  - genai-perf's profile_export_genai_perf.json and AIPerf's
 *    profile_export_aiperf.json: metric objects ({"unit": "ms", "avg":
 *    .., "p50": .., ...}) and the run's options under "input_config".
 * The load becomes the measurement's 'set' (a Poisson rate, a closed loop
 * of clients, or a burst; the requests and their mean lengths), and each
 * result a measurement of the matching field of 'capplan infer'
 * (ttft_p50_s, ttft_mean_s, tpot_p50_s, tpot_mean_s,
 * request_throughput_per_s, output_tokens_per_s), in SI units.
 *
 * Training ('capplan train' measurements, MEASURE_TRAIN), medians over
 * the logged intervals after the warm-up ones:
 *  - Megatron-LM's training log (training_log in
 *    megatron/training/training.py): step_time_s, model_tflops_per_gpu.
 *  - torchtitan's training log (MetricsProcessor.log in
 *    torchtitan/components/metrics.py): tokens_per_s_per_gpu,
 *    model_tflops_per_gpu, mfu.
 *
 * Every reader appends to 's' and returns 0, or returns -1 with the error
 * in 'err' (file, line where there is one, what was expected and what was
 * found) and 's' as it was.  'name' is the file's name in messages and in
 * the measurements (NULL: "result"); 'workload' and 'gpu' name the run
 * (the workload file it ran, the device) and are copied into every
 * measurement.  No reader keeps a pointer to its arguments.
 */
#ifndef CAPPLAN_BENCHLOG_H
#define CAPPLAN_BENCHLOG_H

#include <stddef.h>

#include "diag.h"
#include "measure.h"

/*
 * Append the measurements of a vLLM (or SGLang) serving result 'buf'
 * ('len' bytes: one JSON object) to 's'.  Returns 0, or -1 with the error
 * in 'err' ('s' as it was).
 */
int benchlog_vllm_parse(const char *buf, size_t len, const char *name,
			const char *workload, const char *gpu,
			struct measure_set *s, struct diag *err);

/*
 * Append the measurements of SGLang's bench_serving JSONL 'buf': one JSON
 * object per line (blank lines skipped), each read as
 * benchlog_vllm_parse reads one object; each measurement carries its
 * line, and an error names it ("r.jsonl:3: ...").  At least one object.
 * Returns 0, or -1 with the error in 'err' ('s' as it was).
 */
int benchlog_sglang_jsonl_parse(const char *buf, size_t len,
				const char *name, const char *workload,
				const char *gpu, struct measure_set *s,
				struct diag *err);

/*
 * Append the measurements of a genai-perf or AIPerf JSON export 'buf'
 * (profile_export_genai_perf.json, profile_export_aiperf.json):
 * time_to_first_token avg and p50 (ttft_mean_s, ttft_p50_s),
 * inter_token_latency avg and p50 (tpot_mean_s, tpot_p50_s), converted
 * from their "unit" (ns, us, ms, s or sec), request_throughput avg
 * (request_throughput_per_s; "requests/sec") and output_token_throughput
 * avg (output_tokens_per_s; "tokens/sec").  The set: the load of
 * input_config (AIPerf: loadgen.concurrency, loadgen.request_rate and
 * loadgen.request_rate_mode; genai-perf: perf_analyzer.stimulus, or the
 * top-level concurrency and request_rate of versions before the config
 * file), request_count avg (or value) as the requests, and the
 * input_sequence_length and output_sequence_length avg as the mean
 * lengths.  Returns 0, or -1 with the error in 'err' ('s' as it was).
 */
int benchlog_genai_perf_parse(const char *buf, size_t len, const char *name,
			      const char *workload, const char *gpu,
			      struct measure_set *s, struct diag *err);

/*
 * Append the measurements of a Megatron-LM training log 'buf' (the
 * standard output of pretrain_gpt.py and its kin): of the lines with
 * "elapsed time per iteration (ms): X" (iterations increasing), the
 * warm-up ones are dropped (below), and of the others step_time_s is the
 * median of X / 1000 and model_tflops_per_gpu the median of "throughput
 * per GPU (TFLOP/s/GPU): Y" (TFLOP/s, as 'capplan train' writes it), when
 * the log has it (--log-throughput).  Megatron's figure is
 * num_floating_point_operations per global batch over the step time and
 * the world size: model FLOPs, 3 x the forward GEMMs (forward, weight and
 * data gradient), 2 per multiply-add, the logits included and activation
 * recomputation not counted, with the core attention counted for the
 * causal half of the scores (capplan's model FLOPs count it in full, so
 * Megatron's figure is lower by half the attention share).  The set:
 * "training.global_batch=N" from "global batch size: N", which must not
 * change over the lines kept; else empty.
 *
 * Warm-up: a logged line averages the iterations since the one before.
 * The first logged line always holds the run's first iteration.  Megatron
 * since January 2026 also logs the first iteration on its own, off its
 * --log-interval schedule, without resetting its timer, so the next line
 * holds it too: when the first line's iteration is not a multiple of the
 * spacing of the next lines (the second to the third, else the first to
 * the second), the first two lines are dropped, else the first.  At least
 * one line must remain.  Returns 0, or -1 with the error in 'err' ('s' as
 * it was).
 */
int benchlog_megatron_parse(const char *buf, size_t len, const char *name,
			    const char *workload, const char *gpu,
			    struct measure_set *s, struct diag *err);

/*
 * Append the measurements of a torchtitan training log 'buf': its metrics
 * lines "step: N  loss: ..  memory: ..  tps: T  tflops: F  mfu: M%" (ANSI
 * colour codes and any logger prefix allowed; thousands separators read;
 * "validate step:" lines skipped; when lines carry torchrun's "[rankK]:"
 * prefix, only the rank of the first metrics line is read), steps
 * increasing.  The first logged line is warm-up and dropped: it times
 * everything since the metrics were set up (step 1 of a fresh run, with
 * compilation; after a resume, the loading of the checkpoint too); at
 * least one line must remain.  Of the others: tokens_per_s_per_gpu, the
 * median of tps (torchtitan's tps is per device: the tokens of its
 * data-parallel shard over the time and the GPUs that share the shard),
 * model_tflops_per_gpu, the median of tflops (TFLOP/s: 6 x the non-embedding
 * parameters plus the attention in full per token, times tps), and mfu,
 * the median of mfu / 100 (absent when torchtitan prints "N/A", with
 * float8 or MX quantization).  The set is empty.  Returns 0, or -1 with
 * the error in 'err' ('s' as it was).
 */
int benchlog_torchtitan_parse(const char *buf, size_t len, const char *name,
			      const char *workload, const char *gpu,
			      struct measure_set *s, struct diag *err);

/*
 * Recognise the format of 'buf' from its content and read it with the
 * reader above: a JSON object with "completed" (vLLM, SGLang); several
 * JSON objects, one per line (SGLang's JSONL); a JSON object with metric
 * objects such as "time_to_first_token" or "request_throughput"
 * (genai-perf, AIPerf); text with Megatron-LM's "elapsed time per
 * iteration (ms):"; text with torchtitan's "step:" and "tps:".  Anything
 * else is an error that lists these.  Returns 0, or -1 with the error in
 * 'err' ('s' as it was).
 */
int benchlog_parse(const char *buf, size_t len, const char *name,
		   const char *workload, const char *gpu,
		   struct measure_set *s, struct diag *err);

/*
 * benchlog_parse of the file at 'path' ("-": the standard input; at most
 * 256 MiB), its name in messages as readfile_display_name gives it.
 */
int benchlog_load_file(const char *path, const char *workload,
		       const char *gpu, struct measure_set *s,
		       struct diag *err);

#endif
