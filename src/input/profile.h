/*
 * profile.h - a calibration profile: the device and stack parameters
 * 'capplan calibrate' fitted to a user's measurements, as a readable,
 * commented INI text (inih) that every planning command takes with
 * --profile (specs/calibration.md).
 *
 *   [fit]                      measurements, sigma_log (the rms of
 *                              ln(measured / predicted) after the fit,
 *                              for intervals), created, from
 *   [device NAME]              matmul_eff, fp8_matmul_eff, mem_eff
 *                              (catalog columns), intra_comm_eff,
 *                              inter_comm_eff (the collectives' share
 *                              of intra_bw and inter_bw, gpu_spec)
 *   [engine NAME@VERSION]      kernel_overhead, host_request_overhead,
 *                              host_step_overhead (workload keys), for
 *                              a per-sample model framework_overhead and
 *                              launch_overhead, and devices: where they
 *                              were measured
 *   [framework NAME@VERSION]   production_efficiency (the workload
 *                              key), and devices: where it was measured
 *   [interval CLASS]           sigma_log, rows, devices, stacks: the
 *                              spread of a new measurement of a class of
 *                              estimate (training, per_sample, ttft,
 *                              tpot, throughput, offline, sample_serving,
 *                              and production: a training run's
 *                              GPU-hours, time to train or cost, where a
 *                              framework's production efficiency was
 *                              fitted to two or more of them) about a
 *                              calibrated plan, on those devices and
 *                              stacks (NAME@VERSION), for the 80%
 *                              intervals
 *
 * A device's values apply to that catalog row; an engine's wherever the
 * workload runs that engine and version, a framework's wherever it
 * trains with that framework and version, as the stack table's values do
 * (a key the workload gives keeps its own).
 */
#ifndef CAPPLAN_PROFILE_H
#define CAPPLAN_PROFILE_H

#include <stdbool.h>
#include <stdio.h>

#include "catalog.h"
#include "diag.h"
#include "workload.h"

#define PROFILE_DEVICES_MAX 64
#define PROFILE_STACKS_MAX 32 /* engines and frameworks */
#define PROFILE_TEXT_MAX 256
#define PROFILE_BANDS_MAX 16
#define PROFILE_CLASS_MAX 24
/* the band of production figures ([interval production]) */
#define PROFILE_PRODUCTION_BAND "production"

struct profile_device {
	char gpu[64];
	double matmul_eff; /* 0: not in the profile */
	double fp8_matmul_eff;
	double mem_eff;
	double intra_comm_eff;
	double inter_comm_eff;
};

/* A stack's entry: a serving engine's host times, or (framework) a
   training framework's production efficiency. */
struct profile_engine {
	char name[WL_STACK_NAME_MAX];
	char version[WL_STACK_VERSION_MAX];
	bool framework;    /* a [framework NAME@VERSION] section */
	bool has_kernel, has_request, has_step;
	double kernel_overhead_s;
	double host_request_s;
	double host_step_s;
	bool has_production;
	double production_efficiency; /* [training] production_efficiency */
	/* a per-sample model's serving on the engine (recommenders and
	   networks: inference.framework_overhead, launch_overhead) */
	bool has_framework_oh, has_launch_oh;
	double framework_overhead_s;
	double launch_overhead_s;
	char devices[PROFILE_TEXT_MAX]; /* comma-separated catalog names */
};

/* The calibrated interval of one class of estimate. */
struct profile_band {
	char cls[PROFILE_CLASS_MAX]; /* interval_class_name(), interval.h */
	double sigma_log;  /* ln-sd of a new measurement about the plan */
	int rows;          /* measurements of the class behind it */
	char devices[PROFILE_TEXT_MAX]; /* comma-separated catalog names */
	char stacks[PROFILE_TEXT_MAX];  /* engines or frameworks measured,
					   NAME@VERSION, comma-separated */
};

struct profile {
	char file[256];
	int measurements;
	double sigma_log;      /* 0: unknown */
	char created[64];
	char from[PROFILE_TEXT_MAX];
	struct profile_device dev[PROFILE_DEVICES_MAX];
	int ndev;
	struct profile_engine eng[PROFILE_STACKS_MAX];
	int neng;
	struct profile_band band[PROFILE_BANDS_MAX];
	int nband;
};

/* Parse profile text ('name' in messages) into 'p'.  0, or -1 with file
   and line in 'err'. */
int profile_parse(const char *buf, size_t len, const char *name,
		  struct profile *p, struct diag *err);
int profile_load_file(const char *path, struct profile *p,
		      struct diag *err);

/* Write 'p' as profile text, with 'comment' (lines, may be NULL) at the
   top.  0, or -1 when a write fails. */
int profile_write(FILE *out, const struct profile *p, const char *comment);

/* The profile's parameters of device 'gpu' (any case), or NULL. */
const struct profile_device *profile_device(const struct profile *p,
					    const char *gpu);

/* The profile's interval of class 'cls' (a name), or NULL. */
const struct profile_band *profile_band(const struct profile *p,
					const char *cls);

/* Replace 'g''s efficiencies by the profile's for its name; returns
   whether any applied. */
bool profile_apply_device(const struct profile *p, struct gpu_spec *g);

/*
 * Apply the profile's engine parameters for the workload's engine and
 * version (after stack_apply) to the keys the workload does not give.
 * Returns the engine entry that applied, or NULL.
 */
const struct profile_engine *profile_apply_engine(const struct profile *p,
						  struct workload *wl);

/*
 * The same for the workload's training framework and version: its
 * production efficiency where the workload does not give one.  Returns
 * the framework entry that applied, or NULL.
 */
const struct profile_engine *profile_apply_framework(const struct profile *p,
						     struct workload *wl);

#endif
