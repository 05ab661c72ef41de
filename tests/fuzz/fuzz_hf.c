/* fuzz_hf.c - libFuzzer target: the Hugging Face config.json reader never
   crashes or leaks, every error has a message, and what it accepts is an
   architecture capplan can count. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "hf_config.h"
#include "model_flops.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct model_spec m = { .layers = 0 };
	struct arch a;
	struct hf_quant q;
	struct diag err;

	diag_clear(&err);
	if (hf_config_parse((const char *)data, size, "fuzz", &m, &q, &err) !=
	    0) {
		if (!diag_has_error(&err))
			abort();
		return 0;
	}
	/* a read quantization is a format capplan has, else says why */
	if (q.present && q.known &&
	    (q.weights >= PREC_COUNT || q.kv >= PREC_COUNT))
		abort();
	if (q.present && !q.known && !q.why[0])
		abort();
	if (arch_from_spec(&m, &a) == 0 &&
	    (!isfinite(arch_params(&a)) || arch_params(&a) <= 0.0))
		abort();
	return 0;
}
