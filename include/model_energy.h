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
 */
void run_cost_eval(const struct gpu_spec *g, const struct cluster *cl,
		   int gpus, double time_s, double busy_fraction,
		   struct run_cost *out);

#endif
