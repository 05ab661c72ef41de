/* interval.c - prediction intervals from validation errors; see
   interval.h. */
#include "interval.h"

#include <math.h>
#include <string.h>

bool interval_validated_on(enum interval_class c, const char *gpu)
{
	const char *p = interval_bands[c].devices;
	size_t n = strlen(gpu);

	while (p && *p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len == n && strncmp(p, gpu, n) == 0)
			return true;
		p = end ? end + 1 : NULL;
	}
	return false;
}

void interval_of(enum interval_class c, const char *gpu, double value,
		 bool time_like, double out[2])
{
	const struct interval_band *b = &interval_bands[c];
	double w = b->source_widen *
		   (interval_validated_on(c, gpu) ?
			    1.0 :
			    INTERVAL_EXTRAPOLATION_WIDEN);
	/* the measured rate lies in rate x [e^lo, e^hi]; a time in
	   time x [e^-hi, e^-lo] */
	double lo = w * b->lo_log, hi = w * b->hi_log;

	if (time_like) {
		out[0] = value * exp(-hi);
		out[1] = value * exp(-lo);
	} else {
		out[0] = value * exp(lo);
		out[1] = value * exp(hi);
	}
}
