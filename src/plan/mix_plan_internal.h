/*
 * mix_plan_internal.h - what the files of a mixed fleet's plan share: the
 * plan itself (mix_plan.c: the requests, their buckets, the measurements
 * and the program; mix_pool.c: the pools simulated).  Private to
 * src/plan/mix_*.c.
 */
#ifndef CAPPLAN_MIX_PLAN_INTERNAL_H
#define CAPPLAN_MIX_PLAN_INTERNAL_H

#include "mix_plan.h"
#include "model_flops.h"

/* A pool's growth gives up when two larger fleets in a row improve its
   missed percentile by less than this fraction (serve_fleet.c's
   sizing_min_gain), or past the replicas a trace is simulated on. */
static const double mix_min_gain = 0.01;
static const int mix_pool_replicas_max = 4096;

/* Tensor-parallel sizes of one device, at most. */
#define MIX_TPS_MAX 32

#define MIX_WHY_MAX 200

struct mix_plan {
	const struct workload *wl;
	const struct gpu_spec *const *gpus;
	int ngpus;
	struct arch arch;
	/* the requests: a Poisson draw (owned) or the trace's */
	struct sim_request *own;
	const struct sim_request *req;
	size_t nreq;
	double rate_per_s;
	double scale;         /* of the workload's load (mix_plan_scale) */
	double output_mean;   /* of the load's requests, tokens */
	struct mix_bucket buckets[MIX_BUCKETS];
	int nb;
	bool rare[MIX_BUCKETS]; /* too few requests to move the percentile:
				   measured without the targets */
	int *dense;      /* [nreq]: each request's bucket */
	/* options: device-major, tensor-parallel sizes ascending */
	int no;
	int *opt_gpu;    /* [no]: index into gpus */
	int *opt_tp;
	int *opt_first;  /* [ngpus]: a device's first option; [ngpus] = no */
	double *opt_price;   /* [no]: one replica, USD/h */
	double *opt_w;       /* [no]: one replica's facility power, W */
	int *opt_gpus;       /* [no]: GPUs of one replica */
	/* the arrays by bucket have room for MIX_BUCKETS (a scaled Poisson
	   load is drawn again: its buckets may change) */
	double *cap;         /* [no x nb]: requests/s of one replica within
				the targets (0: it serves none of them) */
	double *capsat;      /* [no x nb]: saturated (serve_fleet_capacity) */
	char (*why)[MIX_WHY_MAX]; /* [ngpus x nb]: why a device serves
				     nothing of a bucket */
	/* the program's answer and the routing */
	int *replicas;   /* [no] */
	int *slices;     /* [no x nb] */
	int *route;      /* [nreq] */
	struct mix_result result;
};

#endif
