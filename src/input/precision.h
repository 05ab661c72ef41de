/*
 * precision.h - numeric formats of weights, activations and tensor math.
 */
#ifndef CAPPLAN_PRECISION_H
#define CAPPLAN_PRECISION_H

#include <stdbool.h>

enum precision {
	PREC_FP32,
	PREC_TF32,
	PREC_BF16,
	PREC_FP16,
	PREC_FP8,
	PREC_INT8,
	PREC_INT4,
	PREC_FP4, /* 4-bit floating point (e2m1), block-scaled as NVFP4 */
	PREC_COUNT
};

/* Lower-case name as used in files and on the command line: "bf16". */
const char *precision_name(enum precision p);

/* Bytes per element: 4, 4 (tf32 is stored as fp32), 2, 2, 1, 1, 0.5, 0.5
   (without the block scales of int4 and fp4). */
double precision_bytes(enum precision p);

/*
 * Look up a name (case-insensitive).  Returns 0 and sets '*out', or -1 when
 * the name is unknown.
 */
int precision_parse(const char *name, enum precision *out);

#endif
