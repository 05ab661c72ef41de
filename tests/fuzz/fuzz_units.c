/* fuzz_units.c - libFuzzer target: units_parse never crashes, never
   returns a non-finite or negative value, and what it formats it reads
   back. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char text[256], buf[64];
	double v, back;

	if (size >= sizeof(text))
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	for (int k = 0; k < UNIT_KIND_COUNT; k++) {
		const char *why = NULL;

		if (units_parse(text, (enum unit_kind)k, &v, &why) != 0) {
			if (!why)
				abort();
			continue;
		}
		if (!isfinite(v) || v < 0.0)
			abort();
		units_format_exact(buf, sizeof(buf), v, (enum unit_kind)k);
		if (units_parse(buf, (enum unit_kind)k, &back, NULL) != 0 ||
		    fabs(back - v) > 1e-12 * fabs(v) + 1e-300)
			abort();
	}
	return 0;
}
