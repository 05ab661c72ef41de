/*
 * benchlog.c - serving benchmark results as measurements (vLLM, SGLang,
 * genai-perf, AIPerf) and the dispatcher over every format; the training
 * logs are in benchlog_train.c.  See benchlog.h and specs/calibration.md.
 */
#include "benchlog.h"
#include "benchlog_internal.h"

#include <cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "readfile.h"

#define BENCHLOG_FILE_MAX (256 * 1024 * 1024)
#define SNIP_MAX 40 /* bytes of a wrong value quoted in a message */

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

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static bool starts(const char *p, size_t n, const char *key)
{
	size_t k = strlen(key);

	return n >= k && memcmp(p, key, k) == 0;
}

/* Whether 'key' occurs in the 'len' bytes of 'buf' (NUL bytes and all). */
static bool has(const char *buf, size_t len, const char *key)
{
	size_t k = strlen(key);

	for (size_t i = 0; i + k <= len; i++)
		if (buf[i] == key[0] && memcmp(buf + i, key, k) == 0)
			return true;
	return false;
}

/* The first bytes of 'p' (up to a line's end) in 'out', for messages. */
static const char *snip(const char *p, size_t n, char out[SNIP_MAX + 4])
{
	size_t k = 0;

	while (k < n && k < SNIP_MAX && p[k] != '\n' && p[k] != '\r' &&
	       p[k] != '\0')
		k++;
	memcpy(out, p, k);
	strcpy(out + k, k < n && k == SNIP_MAX ? "..." : "");
	return out;
}

/*
 * Parse the JSON value of 'buf' as Python's json module writes it: its
 * bare Infinity and -Infinity (SGLang's unlimited request_rate) read as
 * the strings "inf" and "-inf", NaN as null.  '*o' is NULL when the text
 * is not JSON; '*more' says whether text other than white space follows
 * the value.  Returns 0, or -1 when out of memory.
 */
static int json_parse(const char *buf, size_t len, cJSON **o, bool *more)
{
	char *t = malloc(len + len / 3 + 8); /* "NaN" -> "null" grows most */
	const char *end = NULL;
	size_t n = 0;
	bool str = false, esc = false;

	*o = NULL;
	*more = false;
	if (!t)
		return -1;
	for (size_t i = 0; i < len; i++) {
		char c = buf[i];

		if (str) {
			if (esc)
				esc = false;
			else if (c == '\\')
				esc = true;
			else if (c == '"')
				str = false;
		} else if (c == '"') {
			str = true;
		} else if (starts(buf + i, len - i, "-Infinity")) {
			memcpy(t + n, "\"-inf\"", 6);
			n += 6;
			i += 8;
			continue;
		} else if (starts(buf + i, len - i, "Infinity")) {
			memcpy(t + n, "\"inf\"", 5);
			n += 5;
			i += 7;
			continue;
		} else if (starts(buf + i, len - i, "NaN")) {
			memcpy(t + n, "null", 4);
			n += 4;
			i += 2;
			continue;
		}
		t[n++] = c;
	}
	*o = cJSON_ParseWithLengthOpts(t, n, &end, 0);
	if (*o && end)
		for (const char *p = end; p < t + n; p++)
			if (!is_space(*p) && *p != '\0') {
				*more = true;
				break;
			}
	free(t);
	return 0;
}

int benchlog_check_names(const char *name, const char *workload,
			 const char *gpu, struct diag *err)
{
	if (strlen(workload) >= MEASURE_PATH_MAX ||
	    strlen(gpu) >= MEASURE_NAME_MAX)
		return diag_set(err, name, 0, 0,
				"the workload or gpu name is too long");
	return 0;
}

void benchlog_measurement_init(struct measurement *m, enum measure_command c,
			       const char *name, int line,
			       const char *workload, const char *gpu)
{
	memset(m, 0, sizeof(*m));
	m->command = c;
	snprintf(m->workload, sizeof(m->workload), "%s", workload);
	snprintf(m->gpu, sizeof(m->gpu), "%s", gpu);
	snprintf(m->file, sizeof(m->file), "%s", name);
	m->line = line;
}

/*
 * The measurements of one vLLM or SGLang result object 'o' (read from
 * 'line' of 'name'; 0: the whole file, whose measurements say line 1).
 */
static int vllm_read(const cJSON *o, const char *name, int line,
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
	int found = 0;

	done = number(o, "completed");
	in = number(o, "total_input_tokens");
	out = number(o, "total_output_tokens");
	prompts = number(o, "num_prompts");
	if (isnan(done) || isnan(in) || isnan(out))
		return diag_set(err, name, line, 0,
				"expected the keys completed, "
				"total_input_tokens and total_output_tokens "
				"(positive numbers) of a serving benchmark "
				"result");
	{
		double b = number(o, "burstiness");

		if (!isnan(b) && fabs(b - 1.0) > 1e-9)
			return diag_set(err, name, line, 0,
					"burstiness %.3g: capplan simulates "
					"Poisson arrivals (burstiness 1)", b);
	}
	/* the load: a Poisson rate, a closed loop, or a burst */
	rate = cJSON_GetObjectItemCaseSensitive(o, "request_rate");
	conc = cJSON_GetObjectItemCaseSensitive(o, "max_concurrency");
	if (cJSON_IsNumber(conc) && conc->valuedouble >= 1.0 &&
	    (!cJSON_IsNumber(rate) || !isfinite(rate->valuedouble)))
		snprintf(load, sizeof(load),
			 "inference.arrival=closed;inference.qps=0;"
			 "inference.concurrency=%.0f",
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
		snprintf(load, sizeof(load),
			 "inference.arrival=burst;inference.qps=0");
	else
		return diag_set(err, name, line, 0,
				"a request_rate and a max_concurrency at once: "
				"capplan simulates a Poisson rate or a closed "
				"loop, not both");
	benchlog_measurement_init(&m, MEASURE_INFER, name, line ? line : 1,
				  workload, gpu);
	snprintf(m.set, sizeof(m.set),
		 "%s;inference.requests=%.0f;inference.prompt_tokens=%.0f;"
		 "inference.output_tokens=%.0f",
		 load, isnan(prompts) ? done : prompts,
		 fmax(1.0, round(in / done)), fmax(1.0, round(out / done)));
	for (size_t i = 0; i < sizeof(results) / sizeof(results[0]); i++) {
		double v = number(o, results[i].key);

		if (isnan(v))
			continue;
		m.measured = v * results[i].scale;
		snprintf(m.metric, sizeof(m.metric), "%s", results[i].metric);
		if (add(s, &cap, &m) != 0) {
			s->n = before;
			return diag_set(err, name, line, 0,
					"out of memory, or more than %d "
					"measurements", MEASURE_ROWS_MAX);
		}
		found++;
	}
	if (!found) {
		s->n = before;
		return diag_set(err, name, line, 0,
				"no result to calibrate on: expected "
				"median_ttft_ms, mean_ttft_ms, median_tpot_ms, "
				"mean_tpot_ms, request_throughput or "
				"output_throughput");
	}
	return 0;
}

/* The names checked and the text parsed ('*o' NULL when it is not
   JSON, '*more' when text follows the value): 0, or -1 with the error. */
static int read_json(const char *buf, size_t len, const char *name,
		     const char *workload, const char *gpu, cJSON **o,
		     bool *more, struct diag *err)
{
	if (benchlog_check_names(name, workload, gpu, err) != 0)
		return -1;
	if (json_parse(buf, len, o, more) != 0)
		return diag_set_kind(err, DIAG_NOMEM, name, 0, 0,
				     "out of memory");
	return 0;
}

int benchlog_vllm_parse(const char *buf, size_t len, const char *name,
			const char *workload, const char *gpu,
			struct measure_set *s, struct diag *err)
{
	cJSON *o;
	bool more;
	int rc;

	if (!name)
		name = "result";
	if (read_json(buf, len, name, workload, gpu, &o, &more, err) != 0)
		return -1;
	if (!o || !cJSON_IsObject(o)) {
		cJSON_Delete(o);
		return diag_set(err, name, 0, 0,
				"expected a JSON object: the result of 'vllm "
				"bench serve --save-result' (or SGLang's "
				"bench_serving)");
	}
	if (more) {
		cJSON_Delete(o);
		return diag_set(err, name, 0, 0,
				"expected one JSON object, found more text "
				"after it (results one per line are SGLang's "
				"JSONL)");
	}
	rc = vllm_read(o, name, 0, workload, gpu, s, err);
	cJSON_Delete(o);
	return rc;
}

int benchlog_sglang_jsonl_parse(const char *buf, size_t len,
				const char *name, const char *workload,
				const char *gpu, struct measure_set *s,
				struct diag *err)
{
	size_t before = s->n, at = 0;
	int line = 0, objects = 0;

	if (!name)
		name = "result";
	if (benchlog_check_names(name, workload, gpu, err) != 0)
		return -1;
	while (at < len) {
		const char *p = buf + at;
		const char *nl = memchr(p, '\n', len - at);
		size_t n = nl ? (size_t)(nl - p) : len - at;
		char got[SNIP_MAX + 4];
		size_t lead = 0;
		cJSON *o;
		bool more;
		int rc;

		at += n + (nl ? 1 : 0);
		line++;
		while (lead < n && is_space(p[lead]))
			lead++;
		if (lead == n)
			continue;
		if (json_parse(p, n, &o, &more) != 0) {
			s->n = before;
			return diag_set_kind(err, DIAG_NOMEM, name, line, 0,
					     "out of memory");
		}
		if (!o || !cJSON_IsObject(o) || more) {
			cJSON_Delete(o);
			s->n = before;
			return diag_set(err, name, line, 0,
					"expected one JSON object on each line "
					"(SGLang's bench_serving "
					"--output-file), got '%s'",
					snip(p + lead, n - lead, got));
		}
		rc = vllm_read(o, name, line, workload, gpu, s, err);
		cJSON_Delete(o);
		if (rc != 0) {
			s->n = before;
			return -1;
		}
		objects++;
	}
	if (!objects)
		return diag_set(err, name, 0, 0,
				"expected JSON objects, one per line (SGLang's "
				"bench_serving --output-file), got none");
	return 0;
}

/* genai-perf and AIPerf */

enum gp_unit { GP_TIME, GP_REQUESTS_PER_S, GP_TOKENS_PER_S, GP_TOKENS,
	       GP_COUNT };

/* The units each kind of metric may carry, as the exporters write them
   (genai-perf's Statistics._add_units; AIPerf's metric_enums.py). */
static const struct gp_unit_name {
	enum gp_unit kind;
	const char *unit;
	double scale; /* to SI */
} gp_units[] = {
	{ GP_TIME, "ns", 1e-9 },
	{ GP_TIME, "us", 1e-6 },
	{ GP_TIME, "ms", 1e-3 },
	{ GP_TIME, "s", 1.0 },
	{ GP_TIME, "sec", 1.0 },
	{ GP_REQUESTS_PER_S, "requests/sec", 1.0 },
	{ GP_REQUESTS_PER_S, "requests/s", 1.0 },
	{ GP_TOKENS_PER_S, "tokens/sec", 1.0 },
	{ GP_TOKENS_PER_S, "tokens/s", 1.0 },
	{ GP_TOKENS, "tokens", 1.0 },
	{ GP_COUNT, "count", 1.0 },
	{ GP_COUNT, "requests", 1.0 },
};

static const char *const gp_expected[] = {
	[GP_TIME] = "ns, us, ms, s or sec",
	[GP_REQUESTS_PER_S] = "requests/sec",
	[GP_TOKENS_PER_S] = "tokens/sec",
	[GP_TOKENS] = "tokens",
	[GP_COUNT] = "count or requests",
};

/* The results read, each a statistic of a metric object. */
static const struct gp_result {
	const char *key, *stat;
	enum gp_unit kind;
	const char *metric; /* of 'capplan infer' */
} gp_results[] = {
	{ "time_to_first_token", "p50", GP_TIME, "ttft_p50_s" },
	{ "time_to_first_token", "avg", GP_TIME, "ttft_mean_s" },
	{ "inter_token_latency", "p50", GP_TIME, "tpot_p50_s" },
	{ "inter_token_latency", "avg", GP_TIME, "tpot_mean_s" },
	{ "request_throughput", "avg", GP_REQUESTS_PER_S,
	  "request_throughput_per_s" },
	{ "output_token_throughput", "avg", GP_TOKENS_PER_S,
	  "output_tokens_per_s" },
};

/* Whether 'o' holds metric objects as genai-perf and AIPerf write them. */
static bool gp_detect(const cJSON *o)
{
	for (size_t i = 0; i < sizeof(gp_results) / sizeof(gp_results[0]);
	     i++) {
		const cJSON *v =
			cJSON_GetObjectItemCaseSensitive(o, gp_results[i].key);

		if (cJSON_IsObject(v) &&
		    cJSON_GetObjectItemCaseSensitive(v, "unit"))
			return true;
	}
	return false;
}

/*
 * Statistic 'stat' (or, when 'alt' is given and 'stat' is absent, 'alt')
 * of metric 'key' of 'o', in SI units, in '*v': NAN when the metric or
 * the statistic is absent or not a positive number.  Returns -1 with the
 * error in 'err' when the metric is not an object or its unit is not one
 * of 'kind'.
 */
static int gp_stat(const cJSON *o, const char *key, const char *stat,
		   const char *alt, enum gp_unit kind, const char *name,
		   double *v, struct diag *err)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, key), *u;
	double scale = NAN;

	*v = NAN;
	if (!m)
		return 0;
	if (!cJSON_IsObject(m))
		return diag_set(err, name, 0, 0,
				"'%s' must be a metric object such as "
				"{\"unit\": \"%s\", \"avg\": ...}", key,
				kind == GP_TIME ? "ms" : gp_expected[kind]);
	u = cJSON_GetObjectItemCaseSensitive(m, "unit");
	for (size_t i = 0; cJSON_IsString(u) &&
			   i < sizeof(gp_units) / sizeof(gp_units[0]);
	     i++)
		if (gp_units[i].kind == kind &&
		    strcmp(gp_units[i].unit, u->valuestring) == 0)
			scale = gp_units[i].scale;
	if (isnan(scale))
		return diag_set(err, name, 0, 0,
				"'%s' has the unit '%.40s': expected %s", key,
				cJSON_IsString(u) ? u->valuestring : "(none)",
				gp_expected[kind]);
	*v = number(m, stat);
	if (isnan(*v) && alt)
		*v = number(m, alt);
	*v *= scale;
	return 0;
}

/* The load of input_config as a set, in 'load'. */
static int gp_load(const cJSON *o, const char *name, char *load, size_t n,
		   struct diag *err)
{
	const cJSON *ic = cJSON_GetObjectItemCaseSensitive(o, "input_config");
	const cJSON *lg, *pa, *at, *mode = NULL;
	const char *where;
	double conc, rate;

	if (!cJSON_IsObject(ic))
		return diag_set(err, name, 0, 0,
				"expected 'input_config', the run's options "
				"with its load, as genai-perf and AIPerf "
				"write it");
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "was_cancelled")))
		return diag_set(err, name, 0, 0,
				"'was_cancelled' is true: the run was cut "
				"short and its results are partial");
	lg = cJSON_GetObjectItemCaseSensitive(ic, "loadgen");
	pa = cJSON_GetObjectItemCaseSensitive(ic, "perf_analyzer");
	if (cJSON_IsObject(lg)) { /* AIPerf */
		at = lg;
		where = "input_config.loadgen";
		mode = cJSON_GetObjectItemCaseSensitive(lg,
							"request_rate_mode");
	} else if (cJSON_IsObject(pa) &&
		   cJSON_GetObjectItemCaseSensitive(pa, "stimulus")) {
		/* genai-perf with its config file: {"concurrency": N} */
		at = cJSON_GetObjectItemCaseSensitive(pa, "stimulus");
		where = "input_config.perf_analyzer.stimulus";
		if (!cJSON_IsObject(at))
			return diag_set(err, name, 0, 0,
					"'%s' must be an object such as "
					"{\"concurrency\": 8}", where);
		if (at->child && at->child->string &&
		    strcmp(at->child->string, "concurrency") != 0 &&
		    strcmp(at->child->string, "request_rate") != 0)
			return diag_set(err, name, 0, 0,
					"'%s' is '%.40s': capplan reads a "
					"'concurrency' or a 'request_rate'",
					where, at->child->string);
	} else { /* genai-perf before its config file */
		at = ic;
		where = "input_config";
	}
	conc = NAN;
	{
		const cJSON *c;

		c = cJSON_GetObjectItemCaseSensitive(at, "concurrency");

		if (cJSON_IsNumber(c) &&
		    !(c->valuedouble >= 1.0 && c->valuedouble <= 1e9))
			return diag_set(err, name, 0, 0,
					"'%s.concurrency' must be a number of "
					"clients from 1 to 1e9, got %g", where,
					c->valuedouble);
		if (cJSON_IsNumber(c))
			conc = c->valuedouble;
	}
	rate = number(at, "request_rate");
	if (!isnan(conc) && !isnan(rate))
		return diag_set(err, name, 0, 0,
				"'%s' has a concurrency (%g) and a "
				"request_rate (%g) at once: capplan simulates "
				"a Poisson rate or a closed loop, not both",
				where, conc, rate);
	if (!isnan(rate)) {
		if (cJSON_IsString(mode) &&
		    strcmp(mode->valuestring, "poisson") != 0)
			return diag_set(err, name, 0, 0,
					"'%s.request_rate_mode' is '%.40s': "
					"capplan simulates Poisson arrivals "
					"('poisson')", where,
					mode->valuestring);
		snprintf(load, n,
			 "inference.arrival=poisson;inference.qps=%.17g", rate);
		return 0;
	}
	if (!isnan(conc)) {
		snprintf(load, n,
			 "inference.arrival=closed;inference.qps=0;"
			 "inference.concurrency=%.0f",
			 conc);
		return 0;
	}
	if (at == ic)
		return diag_set(err, name, 0, 0,
				"no load found: expected "
				"'input_config.loadgen' with 'concurrency' or "
				"'request_rate' (AIPerf), "
				"'input_config.perf_analyzer.stimulus' "
				"(genai-perf), or 'input_config.concurrency' "
				"or 'input_config.request_rate' (older "
				"genai-perf)");
	return diag_set(err, name, 0, 0,
			"no load in '%s': expected a 'concurrency' (a number, "
			"at least 1) or a 'request_rate' (a positive number)",
			where);
}

static int gp_read(const cJSON *o, const char *name, const char *workload,
		   const char *gpu, struct measure_set *s, struct diag *err)
{
	size_t before = s->n, cap = s->n;
	struct measurement m;
	double isl, osl, count;
	char load[128], requests[64] = "";
	int found = 0;

	if (gp_stat(o, "input_sequence_length", "avg", NULL, GP_TOKENS, name,
		    &isl, err) != 0 ||
	    gp_stat(o, "output_sequence_length", "avg", NULL, GP_TOKENS, name,
		    &osl, err) != 0 ||
	    gp_stat(o, "request_count", "avg", "value", GP_COUNT, name,
		    &count, err) != 0)
		return -1;
	if (isnan(isl) || isnan(osl))
		return diag_set(err, name, 0, 0,
				"expected 'input_sequence_length' and "
				"'output_sequence_length' with an 'avg' in "
				"tokens (the requests' mean lengths)");
	if (gp_load(o, name, load, sizeof(load), err) != 0)
		return -1;
	if (!isnan(count))
		snprintf(requests, sizeof(requests),
			 ";inference.requests=%.0f", fmin(count, 1e9));
	benchlog_measurement_init(&m, MEASURE_INFER, name, 1, workload, gpu);
	snprintf(m.set, sizeof(m.set),
		 "%s%s;inference.prompt_tokens=%.0f;"
		 "inference.output_tokens=%.0f",
		 load, requests, fmin(fmax(1.0, round(isl)), 1e9),
		 fmin(fmax(1.0, round(osl)), 1e9));
	for (size_t i = 0; i < sizeof(gp_results) / sizeof(gp_results[0]);
	     i++) {
		const struct gp_result *r = &gp_results[i];
		double v;

		if (gp_stat(o, r->key, r->stat, NULL, r->kind, name, &v,
			    err) != 0) {
			s->n = before;
			return -1;
		}
		if (!(v > 0.0) || !isfinite(v))
			continue;
		m.measured = v;
		snprintf(m.metric, sizeof(m.metric), "%s", r->metric);
		if (add(s, &cap, &m) != 0) {
			s->n = before;
			return diag_set(err, name, 0, 0,
					"out of memory, or more than %d "
					"measurements", MEASURE_ROWS_MAX);
		}
		found++;
	}
	if (!found) {
		s->n = before;
		return diag_set(err, name, 0, 0,
				"no result to calibrate on: expected "
				"'time_to_first_token' or "
				"'inter_token_latency' (avg, p50), "
				"'request_throughput' or "
				"'output_token_throughput' (avg)");
	}
	return 0;
}

int benchlog_genai_perf_parse(const char *buf, size_t len, const char *name,
			      const char *workload, const char *gpu,
			      struct measure_set *s, struct diag *err)
{
	cJSON *o;
	bool more;
	int rc;

	if (!name)
		name = "result";
	if (read_json(buf, len, name, workload, gpu, &o, &more, err) != 0)
		return -1;
	if (!o || !cJSON_IsObject(o) || more) {
		cJSON_Delete(o);
		return diag_set(err, name, 0, 0,
				"expected one JSON object: genai-perf's "
				"profile_export_genai_perf.json or AIPerf's "
				"profile_export_aiperf.json");
	}
	rc = gp_read(o, name, workload, gpu, s, err);
	cJSON_Delete(o);
	return rc;
}

/* the dispatcher */

#define FORMATS                                                              \
	"vLLM's or SGLang's serving result (JSON with 'completed'), "        \
	"SGLang's JSONL (one such object per line), genai-perf's or "        \
	"AIPerf's profile export (JSON with 'time_to_first_token' or "       \
	"'request_throughput' objects), a Megatron-LM training log ('elapsed " \
	"time per iteration (ms):') or a torchtitan training log ('step:' "  \
	"... 'tps:')"

int benchlog_parse(const char *buf, size_t len, const char *name,
		   const char *workload, const char *gpu,
		   struct measure_set *s, struct diag *err)
{
	size_t lead = 0;
	bool object = false;
	char got[SNIP_MAX + 4];

	if (!name)
		name = "result";
	if (benchlog_check_names(name, workload, gpu, err) != 0)
		return -1;
	if (starts(buf, len, "\xef\xbb\xbf")) /* a UTF-8 byte order mark */
		lead = 3;
	while (lead < len && is_space(buf[lead]))
		lead++;
	/* JSON, unless a log's line that begins with '[' */
	if (lead < len && (buf[lead] == '{' || buf[lead] == '[')) {
		cJSON *o;
		bool more;
		int rc;

		object = buf[lead] == '{';
		if (json_parse(buf + lead, len - lead, &o, &more) != 0)
			return diag_set_kind(err, DIAG_NOMEM, name, 0, 0,
					     "out of memory");
		if (o && more && object) {
			cJSON_Delete(o);
			return benchlog_sglang_jsonl_parse(buf, len, name,
							   workload, gpu, s,
							   err);
		}
		if (o && !more) {
			if (cJSON_IsObject(o) &&
			    cJSON_GetObjectItemCaseSensitive(o, "completed"))
				rc = vllm_read(o, name, 0, workload, gpu, s,
					       err);
			else if (cJSON_IsObject(o) && gp_detect(o))
				rc = gp_read(o, name, workload, gpu, s, err);
			else
				rc = diag_set(err, name, 0, 0,
					      "JSON of no format capplan "
					      "reads: expected " FORMATS);
			cJSON_Delete(o);
			return rc;
		}
		cJSON_Delete(o);
	}
	if (has(buf, len, "elapsed time per iteration (ms):"))
		return benchlog_megatron_parse(buf, len, name, workload, gpu,
					       s, err);
	if (has(buf, len, "step:") && has(buf, len, "tps:"))
		return benchlog_torchtitan_parse(buf, len, name, workload,
						 gpu, s, err);
	if (object)
		return diag_set(err, name, 0, 0,
				"not valid JSON, which begins with '%s': "
				"expected " FORMATS,
				snip(buf + lead, len - lead, got));
	return diag_set(err, name, 0, 0,
			"not a benchmark result or training log capplan "
			"reads: expected " FORMATS);
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
	rc = benchlog_parse(buf, len, readfile_display_name(path), workload,
			    gpu, s, err);
	free(buf);
	return rc;
}
