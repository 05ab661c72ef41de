/* fuzz_calibrate.c - libFuzzer target: the inputs of 'capplan calibrate'
   and --profile (a measurements CSV, a benchmark result or training log
   in every format benchlog_parse reads, a profile)
   must never crash or leak; an error comes with a message and leaves
   nothing behind; what a profile accepts survives a write and re-read. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchlog.h"
#include "measure.h"
#include "profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct measure_set s = { NULL, 0 };
	struct profile *p = malloc(sizeof(*p)), *q = malloc(sizeof(*q));
	struct diag err;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (!p || !q)
		abort();
	diag_clear(&err);
	if (measure_parse((const char *)data, size, "dir/m.csv", &s, &err) !=
	    0) {
		if (s.n != 0 || !diag_has_error(&err))
			abort();
	}
	for (size_t i = 0; i < s.n; i++)
		if (!(s.rows[i].measured > 0.0))
			abort();
	measure_release(&s);
	diag_clear(&err);
	if (benchlog_vllm_parse((const char *)data, size, "r.json", "w.ini",
				"H100-SXM", &s, &err) != 0) {
		if (s.n != 0 || !diag_has_error(&err))
			abort();
	}
	measure_release(&s);
	diag_clear(&err);
	if (benchlog_parse((const char *)data, size, "r.log", "w.ini",
			   "H100-SXM", &s, &err) != 0) {
		if (s.n != 0 || !diag_has_error(&err))
			abort();
	}
	for (size_t i = 0; i < s.n; i++)
		if (!(s.rows[i].measured > 0.0) ||
		    !(s.rows[i].measured < HUGE_VAL))
			abort();
	measure_release(&s);
	diag_clear(&err);
	if (profile_parse((const char *)data, size, "p.ini", p, &err) == 0) {
		f = open_memstream(&text, &len);
		if (!f || profile_write(f, p, NULL) != 0)
			abort();
		fclose(f);
		diag_clear(&err);
		if (profile_parse(text, len, "again", q, &err) != 0 ||
		    q->ndev != p->ndev || q->neng != p->neng ||
		    q->nband != p->nband)
			abort();
		for (int i = 0; i < p->nband; i++)
			if (strcmp(q->band[i].devices, p->band[i].devices) != 0 ||
			    strcmp(q->band[i].stacks, p->band[i].stacks) != 0)
				abort();
		for (int i = 0; i < p->neng; i++)
			if (strcmp(q->eng[i].devices, p->eng[i].devices) != 0)
				abort();
		free(text);
	} else if (!diag_has_error(&err)) {
		abort();
	}
	free(p);
	free(q);
	return 0;
}
