/* fuzz_trace.c - libFuzzer target: the trace CSV reader must never crash
   or leak; an error comes with a message, a position and no requests; what
   it accepts is sorted, in range, and reads back the same when written as
   a trace again. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_request(const struct sim_request *r)
{
	if (!isfinite(r->arrival_s) || r->arrival_s < 0.0 ||
	    r->arrival_s > TRACE_ARRIVAL_MAX_S || r->prompt_tokens < 1 ||
	    r->prompt_tokens > TRACE_TOKENS_MAX || r->output_tokens < 1 ||
	    r->output_tokens > TRACE_TOKENS_MAX)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sim_request *reqs = (struct sim_request *)&reqs;
	struct sim_request *again = NULL;
	size_t n = 1, n_again = 0;
	struct diag err;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	diag_clear(&err);
	if (trace_parse((const char *)data, size, "fuzz", &reqs, &n, &err) !=
	    0) {
		/* an error: a message and a place, and nothing handed out */
		if (reqs || n != 0 || !diag_has_error(&err) ||
		    strcmp(err.file, "fuzz") != 0)
			abort();
		if ((err.line < 1 || err.col < 1) &&
		    strcmp(err.msg, "out of memory") != 0)
			abort();
		return 0;
	}
	if (!reqs || n == 0 || n > TRACE_REQUESTS_MAX)
		abort();
	for (size_t i = 0; i < n; i++) {
		check_request(&reqs[i]);
		if (i > 0 && reqs[i].arrival_s < reqs[i - 1].arrival_s)
			abort();
	}
	/* %.17g round-trips a double: the same requests in the same order */
	f = open_memstream(&text, &len);
	if (!f)
		abort();
	fputs("arrival_s,prompt_tokens,output_tokens\n", f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%.17g,%d,%d\n", reqs[i].arrival_s,
			reqs[i].prompt_tokens, reqs[i].output_tokens);
	fclose(f);
	diag_clear(&err);
	if (trace_parse(text, len, "again", &again, &n_again, &err) != 0 ||
	    n_again != n)
		abort();
	for (size_t i = 0; i < n; i++) {
		if (again[i].arrival_s != reqs[i].arrival_s ||
		    again[i].prompt_tokens != reqs[i].prompt_tokens ||
		    again[i].output_tokens != reqs[i].output_tokens)
			abort();
	}
	free(text);
	free(again);
	free(reqs);
	return 0;
}
