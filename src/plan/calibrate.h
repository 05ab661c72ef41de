/*
 * calibrate.h - fit physically meaningful parameters (a device's GEMM and
 * memory-bandwidth efficiency, an engine's per-kernel, per-request and
 * per-step host times) to a user's measurements: nonlinear least squares
 * on log errors (GSL's trust-region Levenberg-Marquardt) with a prior on
 * each parameter, so that a parameter moves only as far as the
 * measurements support and one they do not inform stays at its prior.
 * specs/calibration.md.
 *
 * Pure: no I/O, no globals; the caller's 'eval' computes a measurement's
 * prediction for a vector of parameter values.
 */
#ifndef CAPPLAN_CALIBRATE_H
#define CAPPLAN_CALIBRATE_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"
#include "interval.h"

#define CAL_PARAMS_MAX 64
#define CAL_LEVERAGE_MAX 0.9
#define CAL_CONFLICT_U 3.0
/* a parameter whose posterior sd is at least this share of its prior's
   was not determined by the measurements */
#define CAL_DETERMINED_SHRINK 0.9
#define CAL_LEVEL_Z INTERVAL_LEVEL_Z /* an 80% two-sided range */

/* How a parameter varies about its prior. */
enum cal_scale {
	CAL_LOG,    /* value = prior exp(u tau): a positive factor */
	CAL_LINEAR, /* value = max(0, prior + u tau): a time that may be 0 */
};

struct cal_param {
	/* set by the caller */
	char name[96];      /* for output: "H100-SXM matmul_eff" */
	double prior;       /* the value before calibration (> 0 for CAL_LOG) */
	double tau;         /* prior width: in ln units (CAL_LOG) or in the
			       value's unit (CAL_LINEAR), > 0 */
	enum cal_scale scale;
	double lo_bound, hi_bound; /* the value is clamped to these */
	/* results */
	double value;       /* fitted */
	double lo, hi;      /* its 80% range */
	double shrink;      /* posterior sd / prior sd in standard units:
			       near 1, the measurements did not inform it */
	double u;           /* the fitted value in prior widths from the
			       prior: beyond CAL_CONFLICT_U, the prior and
			       the measurements disagree */
	int rows;           /* measurements whose prediction depends on it */
};

/* A row's prediction for the parameter values 'theta' (> 0, finite), or
   -1 when the plan fails. */
typedef int (*cal_eval_fn)(void *ctx, const double *theta, size_t row,
			   double *pred);

struct cal_problem {
	size_t m;                 /* measurements */
	size_t p;                 /* parameters, at most CAL_PARAMS_MAX */
	const double *measured;   /* m values, > 0 */
	double sigma_log;         /* a measurement's spread in ln units
				     (run-to-run noise), > 0 */
	struct cal_param *param;  /* p of them */
	const unsigned char *dep; /* m x p: whether row i depends on
				     parameter j (row-major); NULL: all */
	const unsigned char *noisy; /* m: row i's prediction is a
				       simulation's, which small steps
				       reorder: its Jacobian takes a larger
				       difference step; NULL: none */
	const int *share;         /* m: rows of one share >= 0 are made by
				     one plan (the first asked plans, the
				     others wait for it): a batch runs one
				     row of each share and point first, so
				     that no thread waits; NULL: none */
	cal_eval_fn eval;
	void *ctx;
	/* runs fn(i, arg) for i in [0, n), maybe on several threads; NULL:
	   one after the other.  With it, 'eval' must be safe to call from
	   several threads at once. */
	void (*parallel)(void *pctx, int n, void (*fn)(int i, void *arg),
			 void *arg);
	void *parallel_ctx;       /* its first argument */
	int max_iter;             /* 0: 50 */
};

struct cal_result {
	/* m values each, allocated by cal_fit, freed by cal_result_free */
	double *pred0;    /* the prediction at the priors */
	double *pred;     /* after the fit */
	double *loo;      /* leave-one-out prediction (linearized: the
			     residual over 1 - h_ii of the hat matrix);
			     NaN when h_ii is at least CAL_LEVERAGE_MAX:
			     the measurement alone determines a
			     parameter, and the others do not predict it */
	double *pred_sd_log; /* the sd of ln(pred) after the fit from the
				parameters' uncertainty (sigma_log times
				sqrt(h_ii scale)): how far the fitted
				parameters leave the prediction open */
	int iterations;
	int evaluations;  /* calls of eval */
	double rms0_log;  /* rms of ln(measured / predicted) before */
	double rms_log;   /* after */
	double scale;     /* factor on the parameter covariance: the
			     residuals' chi^2 per degree of freedom when
			     above 1 */
};

/*
 * Fit 'pb''s parameters (param[].value etc. filled).  Returns 0, or -1
 * with a message in 'err' (a prediction that fails at the priors, out of
 * memory, GSL's error).
 */
int cal_fit(struct cal_problem *pb, struct cal_result *res,
	    struct diag *err);
void cal_result_free(struct cal_result *res);

/* The value of a parameter at standard coordinate 'u'. */
double cal_value(const struct cal_param *prm, double u);

#endif
