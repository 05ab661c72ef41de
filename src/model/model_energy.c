/* model_energy.c - power, energy and cost; see model_energy.h. */
#include "model_energy.h"

#include <math.h>

static const double seconds_per_hour = 3600.0;
static const double joules_per_kwh = 3.6e6;
static const double watts_per_kw = 1e3;

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

void owned_price_eval(const struct owned_price_in *in,
		      struct owned_price *out)
{
	/* IT power of one GPU with its share of the host, in kW */
	double it_kw = in->tdp_w * (1.0 + in->host_overhead) / watts_per_kw;

	out->capex_usd_per_hour =
		in->capex_usd / (in->amortization_years * ENERGY_HOURS_PER_YEAR);
	out->power_usd_per_hour = it_kw * in->pue * in->price_usd_per_kwh;
	out->hosting_usd_per_hour =
		it_kw * in->hosting_usd_per_kw_month / ENERGY_HOURS_PER_MONTH;
	out->total_usd_per_hour = out->capex_usd_per_hour +
				  out->power_usd_per_hour +
				  out->hosting_usd_per_hour;
}
