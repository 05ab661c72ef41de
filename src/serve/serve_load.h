/*
 * serve_load.h - the requests of a simulated load (serve_sim.h): prompt
 * and output lengths drawn around the workload's means, fixed,
 * geometric or ShareGPT-shaped (a bounded log-normal), with GSL's random
 * numbers.  Pure; used by serve_sim.c.  specs/models.md, section
 * "Serving under load".
 */
#ifndef CAPPLAN_SERVE_LOAD_H
#define CAPPLAN_SERVE_LOAD_H

#include <stdbool.h>

#include <gsl/gsl_rng.h>

#include "serve_sim.h"

/* A length distribution, prepared once per run. */
struct sim_lengths {
	enum sim_length_dist dist;
	double prompt_mean, output_mean;
	double prompt_mu, output_mu;   /* sharegpt */
	double prompt_scale, output_scale; /* exponential */
	double prompt_max, total_max;
};

/* Prepare the distribution of 'l' (its kind, means and context bound). */
void sim_lengths_init(struct sim_lengths *lg, const struct sim_load *l);

/* Draw one request's prompt and output lengths (>= 1 each, within the
   context) from 'rng'.  Returns whether the draws did not fit the context
   and the request was shortened to it. */
bool sim_lengths_draw(const struct sim_lengths *lg, gsl_rng *rng,
		      struct sim_request *q);

#endif
