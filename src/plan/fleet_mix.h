/*
 * fleet_mix.h - the integer program of a mixed serving fleet, as Melange
 * sets it (Griggs et al., "Melange: Cost Efficient Large Language Model
 * Serving by Exploiting GPU Heterogeneity", arXiv:2404.14527, 2024):
 * requests are bucketed by prompt and output length, each bucket's rate
 * is cut into equal slices, every slice is served by one option (a device
 * at a tensor-parallel size), and the cheapest replicas of each option
 * whose capacity holds the slices routed to it are chosen.  GLPK solves
 * the program (branch and cut on its LP relaxation).
 *
 * Pure: no I/O, no globals of its own (GLPK keeps a per-thread
 * environment, freed after each solve).  specs/models.md 10.9.22.
 */
#ifndef CAPPLAN_FLEET_MIX_H
#define CAPPLAN_FLEET_MIX_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"
#include "request.h"

/* Slices each bucket's rate is cut into: Melange's released solver takes
   it as 'slice_factor', and its README finds 4 enough for most cases. */
#define MIX_SLICES 4

/* Length ranges of the buckets, per side (prompt, output): tokens in
   [edge_k, edge_k+1), the last one unbounded (fleet_mix.c). */
#define MIX_LENGTH_RANGES 6
#define MIX_BUCKETS (MIX_LENGTH_RANGES * MIX_LENGTH_RANGES)

/* Most options (device x tensor-parallel size) one program holds. */
#define MIX_OPTIONS_MAX 1024

/* The bucket of a request of 'prompt' and 'output' tokens (>= 1 each):
   0 .. MIX_BUCKETS - 1, prompt range major. */
int mix_bucket_of(int prompt_tokens, int output_tokens);

/* The token ranges of bucket 'b': [lo, hi); hi 0 when unbounded. */
void mix_bucket_range(int b, int *prompt_lo, int *prompt_hi, int *output_lo,
		      int *output_hi);

/* A bucket that holds requests. */
struct mix_bucket {
	int id;                /* mix_bucket_of's */
	size_t count;          /* requests in it */
	double share;          /* of all the requests */
	double rate_per_s;     /* its requests per second */
	double prompt_mean;    /* tokens */
	double output_mean;
	int tokens_max;        /* its longest prompt + output */
};

/*
 * The non-empty buckets of 'n' requests that arrive at 'rate_per_s' in
 * all (> 0): each bucket's share of the requests times the rate, its mean
 * lengths and longest request, in bucket order, into 'out' (room for
 * MIX_BUCKETS); 'dense' (n entries, or NULL) gets each request's index in
 * 'out'.  Returns the number of buckets (0 when n is 0).
 */
int mix_buckets_make(const struct sim_request *q, size_t n, double rate_per_s,
		     struct mix_bucket *out, int *dense);

/* The program: 'nb' buckets, 'no' options. */
struct mix_problem {
	int nb, no;
	const double *rate_per_s;   /* [nb]: each bucket's requests/s */
	const double *price_per_h;  /* [no]: one replica of the option, USD
				       per hour (its GPUs x the GPU-hour) */
	const double *cap_qps;      /* [no x nb], option-major: the requests/s
				       one replica of option o sustains on
				       bucket b's requests; 0: it cannot
				       serve them */
	int slices;                 /* per bucket (MIX_SLICES) */
	int replicas_max;           /* of one option */
	double time_limit_s;        /* of the search; the best fleet found
				       by then is kept (not optimal) */
	const double *power_w;      /* [no]: one replica's facility power,
				       W; NULL: not known */
	bool min_power;             /* minimise sum power_w A_o instead of
				       the price (power_w needed) */
};

/* Its answer. */
struct mix_solution {
	int *replicas;       /* [no], caller's */
	int *slices;         /* [no x nb], caller's: slices of bucket b on
				option o */
	double cost_per_h;   /* sum of replicas x price_per_h */
	bool optimal;        /* proven optimal (else the time limit) */
	double power_w;      /* sum of replicas x power_w (0 without it) */
};

/*
 * Solve 'p':
 *
 *   minimise   sum_o price_o A_o      (min_power: sum_o power_o A_o)
 *   subject to sum_o y_ob = S                          every bucket b
 *              sum_b y_ob rate_b / (S cap_ob) <= A_o   every option o
 *              y_ob in {0..S} (0 where cap_ob = 0),  A_o in {0..max}
 *
 * (Melange's slices x_{s,o} in {0, 1}, counted per bucket: the S slices
 * of a bucket are alike).  Returns 0 with 's' filled, or -1 with a
 * message: a bucket no option serves, no fleet within replicas_max, or
 * the solver's failure.
 */
int mix_solve(const struct mix_problem *p, struct mix_solution *s,
	      struct diag *err);

/*
 * Route requests to options by their buckets: request i (of bucket
 * dense[i]) goes to an option holding slices of its bucket, in proportion
 * to them, taking a bucket's requests in order (smooth weighted round
 * robin: the option furthest behind its share).  'slices' as in
 * mix_solution ('no' options, 'nb' buckets); 'option' gets n entries.
 * Returns 0, or -1 when a request's bucket has no slices.
 */
int mix_route(const int *dense, size_t n, const int *slices, int no, int nb,
	      int *option);

#endif
