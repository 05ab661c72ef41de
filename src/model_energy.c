/* model_energy.c - power, energy and cost; see model_energy.h. */
#include "model_energy.h"

#include <math.h>

static const double seconds_per_hour = 3600.0;
static const double joules_per_kwh = 3.6e6;

double gpu_power_w(const struct gpu_spec *g, double busy_fraction)
{
	double u = fmin(1.0, fmax(0.0, busy_fraction));

	return g->idle_w + (g->tdp_w - g->idle_w) * u;
}

void run_cost_eval(const struct gpu_spec *g, const struct cluster *cl,
		   int gpus, double time_s, double busy_fraction,
		   struct run_cost *out)
{
	out->time_s = time_s;
	out->gpu_hours = gpus * time_s / seconds_per_hour;
	out->gpu_power_w = gpu_power_w(g, busy_fraction);
	out->facility_power_w = gpus * out->gpu_power_w *
				(1.0 + cl->host_overhead) * cl->pue;
	out->energy_j = out->facility_power_w * time_s;
	out->energy_kwh = out->energy_j / joules_per_kwh;
	out->cost_usd = out->gpu_hours * cl->price_usd_per_gpu_hour;
	out->energy_cost_usd = out->energy_kwh * cl->price_usd_per_kwh;
}
