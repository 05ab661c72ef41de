/* fuzz_set.c - libFuzzer target: '--set section.key=value' expressions
   never crash and either apply or explain why not. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char expr[512];
	struct workload wl;
	struct diag err;

	if (size >= sizeof(expr))
		return 0;
	memcpy(expr, data, size);
	expr[size] = '\0';
	workload_init(&wl);
	diag_clear(&err);
	if (workload_set(&wl, expr, &err) != 0 && !diag_has_error(&err))
		abort();
	diag_clear(&err);
	(void)workload_validate(&wl, &err);
	return 0;
}
