/* precision.c - numeric formats; see precision.h. */
#include "precision.h"

#include <strings.h>

static const struct {
	const char *name;
	double bytes;
} precisions[PREC_COUNT] = {
	[PREC_FP32] = { "fp32", 4.0 },
	[PREC_TF32] = { "tf32", 4.0 },
	[PREC_BF16] = { "bf16", 2.0 },
	[PREC_FP16] = { "fp16", 2.0 },
	[PREC_FP8] = { "fp8", 1.0 },
	[PREC_INT8] = { "int8", 1.0 },
	[PREC_INT4] = { "int4", 0.5 },
	[PREC_FP4] = { "fp4", 0.5 },
};

const char *precision_name(enum precision p)
{
	return (unsigned)p < PREC_COUNT ? precisions[p].name : "?";
}

double precision_bytes(enum precision p)
{
	return (unsigned)p < PREC_COUNT ? precisions[p].bytes : 0.0;
}

int precision_parse(const char *name, enum precision *out)
{
	for (int i = 0; i < PREC_COUNT; i++) {
		if (strcasecmp(name, precisions[i].name) == 0) {
			*out = (enum precision)i;
			return 0;
		}
	}
	return -1;
}
