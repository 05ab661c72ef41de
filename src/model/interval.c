/* interval.c - prediction intervals from validation errors; see
   interval.h. */
#include "interval.h"

#include <math.h>
#include <string.h>

/* Whether 'gpu' is one of the comma-separated names of 'list'. */
static bool text_in_list(const char *list, const char *gpu)
{
	const char *p = list;
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

bool interval_validated_on(enum interval_class c, const char *gpu)
{
	return text_in_list(interval_bands[c].devices, gpu);
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

bool interval_batch_validated(enum interval_class c, int batch)
{
	const struct interval_band *b = &interval_bands[c];

	return b->batch_lo == 0 || (batch >= b->batch_lo &&
				    batch <= b->batch_hi);
}

void interval_of_sum_rate(enum interval_class c1, double t1,
			  enum interval_class c2, double t2, const char *gpu,
			  double value, double out[2])
{
	double b1[2], b2[2];

	interval_of(c1, gpu, t1, true, b1);
	interval_of(c2, gpu, t2, true, b2);
	out[0] = value * (t1 + t2) / (b1[1] + b2[1]);
	out[1] = value * (t1 + t2) / (b1[0] + b2[0]);
}

bool interval_of_replica_rate(const char *gpu, int batch, double prefill_s,
			      double decode_s, double value, double out[2])
{
	if (interval_batch_validated(INTERVAL_OFFLINE, batch))
		return false;
	interval_of_sum_rate(INTERVAL_TTFT, prefill_s, INTERVAL_TPOT,
			     decode_s, gpu, value, out);
	return true;
}

double interval_production_sigma_log(void)
{
	const struct interval_band *b = &interval_production_band;

	return (b->hi_log - b->lo_log) / (2.0 * INTERVAL_LEVEL_Z) *
	       (b->source_widen > 1.0 ? b->source_widen : 1.0);
}

void interval_of_production(enum interval_class c, const char *gpu,
			    double value, double out[2])
{
	const struct interval_band *b = &interval_production_band;

	if (c == INTERVAL_TRAINING) {
		double w = b->source_widen *
			   (text_in_list(b->devices, gpu) ?
				    1.0 :
				    INTERVAL_EXTRAPOLATION_WIDEN);

		/* a time: the rate's log bounds, inverted */
		out[0] = value * exp(-w * b->hi_log);
		out[1] = value * exp(-w * b->lo_log);
	} else {
		double w = INTERVAL_LEVEL_Z * interval_production_sigma_log();

		interval_of(c, gpu, value, true, out);
		out[0] *= exp(-w);
		out[1] *= exp(w);
	}
}

static const char *const class_names[INTERVAL_COUNT] = {
	[INTERVAL_TRAINING] = "training",
	[INTERVAL_PER_SAMPLE] = "per_sample",
	[INTERVAL_TTFT] = "ttft",
	[INTERVAL_TPOT] = "tpot",
	[INTERVAL_THROUGHPUT] = "throughput",
	[INTERVAL_OFFLINE] = "offline",
	[INTERVAL_SAMPLE_SERVING] = "sample_serving",
};

const char *interval_class_name(enum interval_class c)
{
	return (unsigned)c < INTERVAL_COUNT ? class_names[c] : "";
}

int interval_class_of_name(const char *name)
{
	for (int c = 0; c < INTERVAL_COUNT; c++)
		if (strcmp(class_names[c], name) == 0)
			return c;
	return -1;
}

void interval_of_sigma(double value, double sigma_log, double out[2])
{
	out[0] = value * exp(-INTERVAL_LEVEL_Z * sigma_log);
	out[1] = value * exp(INTERVAL_LEVEL_Z * sigma_log);
}
