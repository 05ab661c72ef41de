/* fuzz_onnx.c - libFuzzer target: the ONNX reader (onnx_read.c, on
   protobuf-c) never crashes or leaks on any bytes, every error has a
   message, and what it accepts is a network with finite, non-negative
   costs. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "onnx_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct graph_summary s;
	struct diag err;

	diag_clear(&err);
	if (onnx_summary_parse(data, size, "fuzz", &s, &err) != 0) {
		if (!diag_has_error(&err) || !err.msg[0])
			abort();
		return 0;
	}
	if (s.n_ops <= 0 || s.n_ops > GRAPH_CLASSES_MAX ||
	    !isfinite(s.flops) || s.flops < 0.0 || !isfinite(s.params) ||
	    s.params < 0.0 || !isfinite(s.saved_elems))
		abort();
	for (int i = 0; i < s.n_ops; i++)
		if (!(s.op[i].count >= 1.0) || !isfinite(s.op[i].flops) ||
		    !isfinite(s.op[i].in_elems) ||
		    !isfinite(s.op[i].out_elems))
			abort();
	return 0;
}
