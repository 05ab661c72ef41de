/*
 * model_energy.h - power, energy and cost of running GPUs.
 *
 * Power of a GPU grows linearly from idle to its board limit with the
 * share of time its compute units are busy (a linear utilisation model,
 * as in Fan et al. 2007 and used for GPUs by Patel et al. 2024).  Facility
 * energy adds host power and the data centre's PUE (The Green Grid 2007).
 * specs/models.md, section "Energy and cost".
 */
#ifndef CAPPLAN_MODEL_ENERGY_H
#define CAPPLAN_MODEL_ENERGY_H

#include "catalog.h"
#include "cluster.h"

/* Average board power of a GPU busy 'busy_fraction' (0..1) of the time. */
double gpu_power_w(const struct gpu_spec *g, double busy_fraction);

struct run_cost {
	double time_s;          /* wall-clock time of the run */
	double gpu_hours;
	double gpu_power_w;     /* average per GPU */
	double facility_power_w;/* whole job: GPUs, hosts, PUE */
	double energy_j;        /* facility energy of the run */
	double energy_kwh;
	double cost_usd;        /* GPU-hours at the GPU-hour price */
	double energy_cost_usd; /* facility energy at the kWh price */
};

/*
 * Cost of running 'gpus' GPUs for 'time_s' seconds at 'busy_fraction'.
 * 'cost_usd' is the GPU-hours at cl->price_usd_per_gpu_hour (with pricing
 * = owned that price already holds power at the rated power, so
 * 'energy_cost_usd' is not to be added to it).
 */
void run_cost_eval(const struct gpu_spec *g, const struct cluster *cl,
		   int gpus, double time_s, double busy_fraction,
		   struct run_cost *out);

/* A Julian year of 365.25 days of 24 h, and its twelfth: the hours of
   an amortization year and of a month of rent or serving. */
#define ENERGY_HOURS_PER_YEAR 8766.0
#define ENERGY_HOURS_PER_MONTH (ENERGY_HOURS_PER_YEAR / 12.0)

/* What an owned GPU-hour costs: the inputs (specs/models.md, "Energy and
   cost"), all per GPU. */
struct owned_price_in {
	double capex_usd;          /* purchase of one GPU with its share of
				      server, network and install, > 0 */
	double amortization_years; /* years the capex is spread over, > 0 */
	double tdp_w;              /* rated power of the device */
	double host_overhead;      /* host power / GPU power */
	double pue;                /* facility / IT power */
	double price_usd_per_kwh;
	double hosting_usd_per_kw_month; /* colocation per kW of IT power */
};

/* ... and the answer, in US dollars per GPU-hour. */
struct owned_price {
	double capex_usd_per_hour;   /* capex / (years x 8766 h) */
	double power_usd_per_hour;   /* IT power x PUE at the kWh price */
	double hosting_usd_per_hour; /* IT power x rent / 730.5 h */
	double total_usd_per_hour;   /* the sum: the effective price */
};

/*
 * The effective price of one owned GPU-hour, running all the time at its
 * rated power: the capex straight-line over the amortization (a year of
 * 8766 h, 365.25 days), the IT power tdp x (1 + host_overhead) at the
 * facility's PUE and the kWh price, and the colocation rent of that IT
 * power (a month of 730.5 h, a twelfth of the year).
 */
void owned_price_eval(const struct owned_price_in *in,
		      struct owned_price *out);

#endif
