/*
 * cmd_calibrate_internal.h - what the files of 'capplan calibrate' share
 * (cmd_calibrate.c: the measurements, their plans and the fit;
 * cmd_calibrate_params.c: the parameters and their priors;
 * cmd_calibrate_out.c: the table, JSON, CSV and the profile written).
 * Private: nothing outside src/cmd/ includes it.
 */
#ifndef CAPPLAN_CMD_CALIBRATE_INTERNAL_H
#define CAPPLAN_CMD_CALIBRATE_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

#include "calibrate.h"
#include "catalog.h"
#include "cli.h"
#include "measure.h"
#include "outfile.h"
#include "profile.h"
#include "progress.h"
#include "workload.h"


#define CAL_DEVICES_MAX 32
#define CAL_ENGINES_MAX 16

/* params per device (matmul_eff, fp8_matmul_eff, mem_eff, the
   collectives' efficiency within a node and across nodes: each only
   where a measurement depends on it) and per engine (kernel, request,
   step overheads) */
enum { P_MATMUL, P_FP8, P_MEM, P_INTRA, P_INTER, P_DEVICE };
enum { P_KERNEL, P_REQUEST, P_STEP, P_ENGINE };
/* params per per-sample serving stack (a recommender's or network's
   inference.engine): host time per batch, per kernel issued eagerly */
enum { P_FRAMEWORK_OH, P_LAUNCH_OH, P_SAMPLE };

/* A metric calibrate takes (the table cal_metrics of cmd_calibrate.c). */
struct cal_metric {
	enum measure_command cmd;
	bool sample;        /* infer: a per-sample model's field */
	const char *key;
	int cls;            /* interval class, or CLS_TRAIN (training or
			       per-sample training), CLS_RATE (under a
			       load or an offline batch) */
	bool load;          /* a figure of the simulated load only */
};

struct cal_row {
	const struct measurement *m;
	struct workload *wl;         /* its configuration fixed */
	const struct gpu_spec *gpu;  /* the catalog row */
	int dev, eng;                /* indices; eng -1 for training and
					per-sample serving */
	bool sample;                 /* a per-sample model's serving */
	const struct cal_metric *metric; /* NULL until it is checked */
	int cls;                     /* its interval class (interval.h) */
	bool simulated;              /* its plan at the priors simulated a
					load: a noisy row (calibrate.h) */
	bool uses[P_DEVICE];         /* the device parameters its plan at
					the priors depends on: GEMMs (every
					plan), fp8 GEMMs, memory (every
					plan), collectives in a node, across
					nodes */
	int fw;                      /* its framework's index: a
					production figure of a training run
					(production_metric), else -1 */
	int smp;                     /* its per-sample serving stack's
					index, or -1 */
	bool eager;                  /* a per-sample serve without CUDA
					graphs: the host issues each kernel
					(launch_overhead) */
	int plan_fw;                 /* the framework whose production
					efficiency its plan takes: its own,
					or that of another figure of its
					share (one plan for both) */
	int share;                   /* its plan's cal_share, or -1 */
	int member;                  /* its place among the share's rows */
};

/*
 * Measurements of one configuration (the same command, workload, device,
 * GPU count and --set pairs: a load's TTFT and TPOT, a log's several
 * figures) are one plan at each parameter point: the first of them to
 * be evaluated there plans it and keeps every member's figure, the others
 * read theirs (make bench: calibrate20.csv's ten served rows are five
 * loads).  A batch of the fit's plans holds a point and one step of each
 * parameter a row depends on: a few points a share, kept in a ring.
 * CAL_SHARE_SLOTS: a served row depends on 5 parameters (its device's 2,
 * its engine's 3), so a Jacobian's batch holds 5 points beside the base
 * of the batch before; 8 keeps them all (a point that falls out is
 * planned again: slower, never wrong).  CAL_SHARE_ROWS: figures of one
 * configuration a share holds (a further one starts another share).
 */
enum { CAL_SHARE_ROWS = 8, CAL_SHARE_SLOTS = 8 };

struct cal_share {
	pthread_mutex_t mu;     /* held while a point is planned: a member
				   waits for it rather than plan it twice */
	size_t row[CAL_SHARE_ROWS];
	int n;
	int next;               /* the slot the next point takes */
	struct {
		bool used;
		double theta[CAL_PARAMS_MAX];
		double val[CAL_SHARE_ROWS];
		int rc[CAL_SHARE_ROWS];
	} slot[CAL_SHARE_SLOTS];
};

struct cal_engine {
	char name[WL_STACK_NAME_MAX];
	char version[WL_STACK_VERSION_MAX];
	double prior[P_ENGINE];
	char devices[PROFILE_TEXT_MAX];
};

struct cal_ctx {
	struct cal_row *rows;
	size_t m;
	const struct gpu_spec *dev[CAL_DEVICES_MAX];
	int ndev;
	struct cal_engine eng[CAL_ENGINES_MAX];
	int neng;
	/* each device's parameters (index in param), -1 where no
	   measurement depends on it */
	int dev_param[CAL_DEVICES_MAX][P_DEVICE];
	int eng_base;           /* the first engine parameter */
	/* training frameworks of production figures: one parameter each,
	   the production efficiency, from fw_base on */
	struct cal_engine fw[CAL_ENGINES_MAX];
	int nfw;
	int fw_base;
	/* the per-sample serving stacks, their parameters' indices (-1
	   where no measurement depends on one) */
	struct cal_engine smp[CAL_ENGINES_MAX];
	int nsmp;
	int smp_param[CAL_ENGINES_MAX][P_SAMPLE];
	struct cal_param param[CAL_PARAMS_MAX];
	size_t p;
	struct progress pr;
	size_t plans;        /* made by the fit, for the progress line */
	/* the engine keys the fit moves, by index in the key table */
	size_t key_kernel, key_request, key_step, key_production;
	size_t key_framework_oh, key_launch_oh;
	struct cal_share *share; /* nshare of them, or NULL */
	int nshare;
};

/* The index of device 'g', of the workload's engine, of its training
   framework and of its per-sample serving stack (added with its priors, 'gpu' added to where it was
   measured) among the fit's; -1 when there are CAL_DEVICES_MAX or
   CAL_ENGINES_MAX already (cmd_calibrate_params.c). */
int cal_device_index(struct cal_ctx *c, const struct gpu_spec *g);
int cal_engine_index(struct cal_ctx *c, const struct workload *wl,
		     const char *gpu);
int cal_framework_index(struct cal_ctx *c, const struct workload *wl,
			const char *gpu);
int cal_sample_index(struct cal_ctx *c, const struct workload *wl,
		     const char *gpu);

/* Whether 'metric' of a training plan is a production figure (a run as
   production runs report it), which the framework's production
   efficiency scales. */
bool cal_production_metric(const char *metric);

/* The parameters of c's devices (those its rows use), engines and
   frameworks, with their priors; 0, or -1 when there are more than
   CAL_PARAMS_MAX. */
int cal_build_params(struct cal_ctx *c);

/* What the outputs print. */
struct job {
	struct cal_ctx *c;
	struct cal_result *res;
	const double *measured;
	const struct profile *bands; /* the calibrated intervals */
};

/* Whether the measurements determine a parameter (its posterior narrower
   than its prior: CAL_DETERMINED_SHRINK). */
bool cal_determined(const struct cal_param *prm);

/* The parameters and measurements as a table, JSON or CSV (cli_write's
   writers; 'arg' a struct job). */
int cal_write_table(FILE *out, const void *arg, const char **why);
int cal_write_json(FILE *out, const void *arg, const char **why);
int cal_write_csv(FILE *out, const void *arg, const char **why);

/* The profile of the fit into 'o' (opened by the caller; committed or
   aborted here): the fitted parameters that the measurements determine,
   the calibrated intervals 'bands', a comment of what and when.
   EXIT_OK or an exit status. */
int cal_write_profile(struct cli_ctx *ctx, const struct cal_ctx *c,
		      const struct cal_result *res,
		      const struct profile *bands, struct outfile *o);

#endif
