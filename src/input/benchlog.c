/*
 * benchlog.c - benchmark result files as measurements; see benchlog.h and
 * specs/calibration.md.
 */
#include "benchlog.h"

#include <cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "readfile.h"

#define BENCHLOG_FILE_MAX (256 * 1024 * 1024)

/* A number of 'o' (> 0 and finite), or NAN. */
static double number(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) ||
	    v->valuedouble <= 0.0)
		return NAN;
	return v->valuedouble;
}

static int add(struct measure_set *s, size_t *cap,
	       const struct measurement *m)
{
	if (s->n == MEASURE_ROWS_MAX)
		return -1;
	if (s->n == *cap) {
		size_t c = *cap ? 2 * *cap : 16;
		struct measurement *rows = realloc(s->rows, c * sizeof(*rows));

		if (!rows)
			return -1;
		s->rows = rows;
		*cap = c;
	}
	s->rows[s->n++] = *m;
	return 0;
}

int benchlog_vllm_parse(const char *buf, size_t len, const char *name,
			const char *workload, const char *gpu,
			struct measure_set *s, struct diag *err)
{
	static const struct {
		const char *key;    /* of the result */
		double scale;       /* to SI */
		const char *metric; /* of 'capplan infer' */
	} results[] = {
		{ "median_ttft_ms", 1e-3, "ttft_p50_s" },
		{ "mean_ttft_ms", 1e-3, "ttft_mean_s" },
		{ "median_tpot_ms", 1e-3, "tpot_p50_s" },
		{ "mean_tpot_ms", 1e-3, "tpot_mean_s" },
		{ "request_throughput", 1.0, "request_throughput_per_s" },
		{ "output_throughput", 1.0, "output_tokens_per_s" },
	};
	size_t before = s->n, cap = s->n;
	struct measurement m;
	const cJSON *rate, *conc;
	double done, in, out, prompts;
	char load[128];
	cJSON *o;
	int found = 0;

	if (!name)
		name = "result";
	if (strlen(workload) >= sizeof(m.workload) ||
	    strlen(gpu) >= sizeof(m.gpu))
		return diag_set(err, name, 0, 0,
				"the workload or gpu name is too long");
	o = cJSON_ParseWithLength(buf, len);
	if (!o || !cJSON_IsObject(o)) {
		cJSON_Delete(o);
		return diag_set(err, name, 0, 0,
				"expected a JSON object: the result of 'vllm "
				"bench serve --save-result' (or SGLang's "
				"bench_serving)");
	}
	done = number(o, "completed");
	in = number(o, "total_input_tokens");
	out = number(o, "total_output_tokens");
	prompts = number(o, "num_prompts");
	if (isnan(done) || isnan(in) || isnan(out)) {
		cJSON_Delete(o);
		return diag_set(err, name, 0, 0,
				"expected the keys completed, "
				"total_input_tokens and total_output_tokens "
				"(positive numbers) of a serving benchmark "
				"result");
	}
	{
		double b = number(o, "burstiness");

		if (!isnan(b) && fabs(b - 1.0) > 1e-9) {
			cJSON_Delete(o);
			return diag_set(err, name, 0, 0,
					"burstiness %.3g: capplan simulates "
					"Poisson arrivals (burstiness 1)", b);
		}
	}
	/* the load: a Poisson rate, a closed loop, or a burst */
	rate = cJSON_GetObjectItemCaseSensitive(o, "request_rate");
	conc = cJSON_GetObjectItemCaseSensitive(o, "max_concurrency");
	if (cJSON_IsNumber(conc) && conc->valuedouble >= 1.0 &&
	    (!cJSON_IsNumber(rate) || !isfinite(rate->valuedouble)))
		snprintf(load, sizeof(load),
			 "inference.arrival=closed;inference.concurrency=%.0f",
			 conc->valuedouble);
	else if (cJSON_IsNumber(rate) && isfinite(rate->valuedouble) &&
		 rate->valuedouble > 0.0 && !cJSON_IsNumber(conc))
		snprintf(load, sizeof(load),
			 "inference.arrival=poisson;inference.qps=%.17g",
			 rate->valuedouble);
	else if ((!rate || cJSON_IsNull(rate) ||
		  (cJSON_IsString(rate) &&
		   strcmp(rate->valuestring, "inf") == 0)) &&
		 !cJSON_IsNumber(conc))
		snprintf(load, sizeof(load), "inference.arrival=burst");
	else {
		cJSON_Delete(o);
		return diag_set(err, name, 0, 0,
				"a request_rate and a max_concurrency at once: "
				"capplan simulates a Poisson rate or a closed "
				"loop, not both");
	}
	memset(&m, 0, sizeof(m));
	m.command = MEASURE_INFER;
	snprintf(m.workload, sizeof(m.workload), "%s", workload);
	snprintf(m.gpu, sizeof(m.gpu), "%s", gpu);
	snprintf(m.file, sizeof(m.file), "%s", name);
	m.line = 1;
	snprintf(m.set, sizeof(m.set),
		 "%s;inference.requests=%.0f;inference.prompt_tokens=%.0f;"
		 "inference.output_tokens=%.0f",
		 load, isnan(prompts) ? done : prompts, fmax(1.0, round(in / done)),
		 fmax(1.0, round(out / done)));
	for (size_t i = 0; i < sizeof(results) / sizeof(results[0]); i++) {
		double v = number(o, results[i].key);

		if (isnan(v))
			continue;
		m.measured = v * results[i].scale;
		snprintf(m.metric, sizeof(m.metric), "%s", results[i].metric);
		if (add(s, &cap, &m) != 0) {
			s->n = before;
			cJSON_Delete(o);
			return diag_set(err, name, 0, 0,
					"out of memory, or more than %d "
					"measurements", MEASURE_ROWS_MAX);
		}
		found++;
	}
	cJSON_Delete(o);
	if (!found) {
		s->n = before;
		return diag_set(err, name, 0, 0,
				"no result to calibrate on: expected "
				"median_ttft_ms, mean_ttft_ms, median_tpot_ms, "
				"mean_tpot_ms, request_throughput or "
				"output_throughput");
	}
	return 0;
}

int benchlog_load_file(const char *path, const char *workload,
		       const char *gpu, struct measure_set *s,
		       struct diag *err)
{
	char *buf;
	size_t len;
	int rc;

	if (readfile_all(path, READFILE_ANY, BENCHLOG_FILE_MAX, &buf, &len,
			 err) != 0)
		return -1;
	rc = benchlog_vllm_parse(buf, len, readfile_display_name(path),
				 workload, gpu, s, err);
	free(buf);
	return rc;
}
