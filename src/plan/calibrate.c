/*
 * calibrate.c - parameters fitted to measurements with priors; see
 * calibrate.h and specs/calibration.md.
 *
 * In standard coordinates u (u_j = 0 at the prior, 1 = one prior width)
 * the residuals are
 *
 *   r_i     = ln(pred_i(theta(u)) / measured_i) / sigma_log   i < m
 *   r_(m+j) = u_j                                              j < p
 *
 * so the least-squares solution is the posterior mode of log-normal
 * measurement errors under a normal prior, and the Jacobian's covariance
 * (J'J)^-1 is its uncertainty.  The Jacobian is a forward difference of
 * step CAL_STEP in u (a finite step, not machine epsilon: predictions
 * come from a discrete-event simulation, piecewise smooth in the step
 * times), taken only for the rows that depend on each parameter.
 */
#include "calibrate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_vector.h>

/* the difference step, in prior widths */
static const double cal_step = 0.05;

/* the difference step of a noisy row's Jacobian (cal_problem.noisy), in
   prior widths: a simulated percentile moves by 2-5% when a parameter
   moves by 0.05 widths, whatever the parameter (its events reorder: the
   p50 TTFT of examples/calibrate/measurements.csv went 0.159 -> 0.151 s
   for a 0.05-width step of the host time per step, 0.1 ms a step, which
   can only lengthen it), so
   such a Jacobian was noise and the fit stayed at the priors; half a
   width moves it by more than the noise (specs/calibration.md) */
static const double cal_step_noisy = 0.5;
/* Jacobians updated by Broyden's rank-one formula between two taken by
   differences: each update costs no plan (the residuals at the new point
   are known), a difference Jacobian one plan per (row, parameter) pair */
static const int cal_broyden_max = 5;

struct fit_ctx {
	struct cal_problem *pb;
	/* the last Jacobian (n x p, row-major), the point and residuals it
	   holds, and how many Broyden updates since the last one taken by
	   differences (broyden < 0: none held) */
	double *jac, *jac_x, *jac_f;
	int broyden;
	bool full_jacobian; /* the next one by differences (the final one,
			       for the covariance) */
	double *theta;      /* (2 p + 1) x p: the base point's, then each
			       parameter's step, then each one's step for
			       noisy rows */
	double *step;       /* 2 p + 1: each theta row's signed step in
			       prior widths (0 for the base) */
	double *base;       /* m: predictions at 'base_u' */
	double *base_u;     /* p */
	bool have_base;
	int evals;
	int failed;         /* a prediction failed: row + 1 */
	/* the batch of predictions being made */
	struct task *task;  /* up to m (p + 1) */
	int ntask;
	int *order;         /* ntask: the tasks, leads of shares first */
	int nfirst;         /* of which the first nfirst run before the
			       others */
	int *seen;          /* m: per share, 1 + the point of its last lead */
	unsigned char *is_lead; /* per task */
};

/* One prediction: row 'row' at the parameters of theta row 'set'. */
struct task {
	size_t row;
	size_t set;         /* 0: the base point; j + 1: parameter j's step;
			       p + j + 1: its step for a noisy row */
	double y;
	int rc;
};

double cal_value(const struct cal_param *prm, double u)
{
	double v = prm->scale == CAL_LOG ? prm->prior * exp(u * prm->tau) :
					   prm->prior + u * prm->tau;

	if (v < prm->lo_bound)
		v = prm->lo_bound;
	if (v > prm->hi_bound)
		v = prm->hi_bound;
	return v;
}

static bool depends(const struct cal_problem *pb, size_t i, size_t j)
{
	return !pb->dep || pb->dep[i * pb->p + j];
}

static void run_task(int k, void *arg)
{
	struct fit_ctx *c = arg;
	struct task *t = &c->task[c->order[k]];
	const double *theta = &c->theta[t->set * c->pb->p];

	t->rc = c->pb->eval(c->pb->ctx, theta, t->row, &t->y);
	if (t->rc == 0 && !(t->y > 0.0 && isfinite(t->y)))
		t->rc = -1;
}

/* The second part of a batch: tasks nfirst .. ntask - 1 of the order. */
static void run_rest(int k, void *arg)
{
	struct fit_ctx *c = arg;

	run_task(c->nfirst + k, c);
}

/* The order of the batch: a task whose row shares its plan with a task
   before it at the same point waits for that one, so it runs after
   every lead (the leads' plans on every thread at once). */
static void order_tasks(struct fit_ctx *c)
{
	const int *sh = c->pb->share;
	int n = 0;

	for (size_t i = 0; sh && i < c->pb->m; i++)
		c->seen[i] = 0;
	for (int k = 0; k < c->ntask; k++) {
		const struct task *t = &c->task[k];
		int g = sh ? sh[t->row] : -1;

		/* a batch asks a share at one point after another (its rows
		   are alike), so the last lead's point is the one to match */
		c->is_lead[k] = g < 0 || c->seen[g] != (int)t->set + 1;
		if (g >= 0)
			c->seen[g] = (int)t->set + 1;
		if (c->is_lead[k])
			c->order[n++] = k;
	}
	c->nfirst = n;
	for (int k = 0; k < c->ntask; k++)
		if (!c->is_lead[k])
			c->order[n++] = k;
}

/* Run the batch of tasks (in parallel where the caller allows); 0, or -1
   with the first failing row in c->failed. */
static int run_tasks(struct fit_ctx *c)
{
	order_tasks(c);
	if (c->pb->parallel && c->ntask > 1) {
		c->pb->parallel(c->pb->parallel_ctx, c->nfirst, run_task, c);
		if (c->ntask > c->nfirst)
			c->pb->parallel(c->pb->parallel_ctx,
					c->ntask - c->nfirst, run_rest, c);
	} else {
		for (int k = 0; k < c->ntask; k++)
			run_task(k, c);
	}
	c->evals += c->ntask;
	for (int k = 0; k < c->ntask; k++)
		if (c->task[k].rc != 0) {
			c->failed = (int)c->task[k].row + 1;
			return -1;
		}
	return 0;
}

/* The parameters at 'u' into theta row 0, and with parameter j one step
   further into row j + 1, and one noisy step further into row p + j + 1
   (steps: whether to fill those).  A step that a bound would clamp to
   nothing goes the other way. */
static void set_thetas(struct fit_ctx *c, const double *u, bool steps)
{
	size_t p = c->pb->p;

	for (size_t j = 0; j < p; j++)
		c->theta[j] = cal_value(&c->pb->param[j], u[j]);
	c->step[0] = 0.0;
	for (size_t s = 0; steps && s < 2 * p; s++) {
		size_t j = s % p;
		double *t = &c->theta[(s + 1) * p];
		double h = s < p ? cal_step : cal_step_noisy;
		const struct cal_param *prm = &c->pb->param[j];

		if (cal_value(prm, u[j] + h) == c->theta[j])
			h = -h;
		memcpy(t, c->theta, p * sizeof(double));
		t[j] = cal_value(prm, u[j] + h);
		c->step[s + 1] = h;
	}
}

/* Predictions of every row at 'u' into 'out'; 0 or -1. */
static int predict_all(struct fit_ctx *c, const double *u, double *out)
{
	struct cal_problem *pb = c->pb;

	set_thetas(c, u, false);
	c->ntask = 0;
	for (size_t i = 0; i < pb->m; i++)
		c->task[c->ntask++] = (struct task){ i, 0, 0.0, 0 };
	if (run_tasks(c) != 0)
		return -1;
	for (size_t i = 0; i < pb->m; i++)
		out[i] = c->task[i].y;
	return 0;
}

static int f_cb(const gsl_vector *x, void *params, gsl_vector *f)
{
	struct fit_ctx *c = params;
	struct cal_problem *pb = c->pb;

	for (size_t j = 0; j < pb->p; j++)
		c->base_u[j] = gsl_vector_get(x, j);
	if (predict_all(c, c->base_u, c->base) != 0)
		return GSL_EDOM;
	c->have_base = true;
	for (size_t i = 0; i < pb->m; i++)
		gsl_vector_set(f, i, log(c->base[i] / pb->measured[i]) /
					     pb->sigma_log);
	for (size_t j = 0; j < pb->p; j++)
		gsl_vector_set(f, pb->m + j, c->base_u[j]);
	return GSL_SUCCESS;
}

/* Keep J, the point and its residuals for the next Broyden update. */
static void jacobian_keep(struct fit_ctx *c, const gsl_vector *x,
			  const gsl_matrix *J)
{
	struct cal_problem *pb = c->pb;
	size_t n = pb->m + pb->p, p = pb->p;

	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < p; j++)
			c->jac[i * p + j] = gsl_matrix_get(J, i, j);
	for (size_t j = 0; j < p; j++)
		c->jac_x[j] = gsl_vector_get(x, j);
	for (size_t i = 0; i < pb->m; i++)
		c->jac_f[i] = log(c->base[i] / pb->measured[i]) / pb->sigma_log;
}

/*
 * Broyden's update of the measurement rows of the kept Jacobian to the
 * point x (whose predictions are in c->base): J += (df - J dx) dx' /
 * dx'dx, zero where a row does not depend on a parameter; the prior rows
 * stay the identity.  False when the step is too short to update from.
 */
static bool jacobian_broyden(struct fit_ctx *c, const gsl_vector *x,
			     gsl_matrix *J)
{
	struct cal_problem *pb = c->pb;
	size_t p = pb->p;
	double dx[CAL_PARAMS_MAX], dd = 0.0;

	for (size_t j = 0; j < p; j++) {
		dx[j] = gsl_vector_get(x, j) - c->jac_x[j];
		dd += dx[j] * dx[j];
	}
	if (!(dd > 1e-12))
		return false;
	for (size_t i = 0; i < pb->m; i++) {
		double *row = &c->jac[i * p];
		double f = log(c->base[i] / pb->measured[i]) / pb->sigma_log;
		double r = f - c->jac_f[i];

		for (size_t j = 0; j < p; j++)
			r -= row[j] * dx[j];
		for (size_t j = 0; j < p; j++)
			if (depends(pb, i, j))
				row[j] += r * dx[j] / dd;
	}
	gsl_matrix_set_zero(J);
	for (size_t i = 0; i < pb->m; i++)
		for (size_t j = 0; j < p; j++)
			gsl_matrix_set(J, i, j, c->jac[i * p + j]);
	for (size_t j = 0; j < p; j++)
		gsl_matrix_set(J, pb->m + j, j, 1.0);
	for (size_t j = 0; j < p; j++)
		c->jac_x[j] = gsl_vector_get(x, j);
	for (size_t i = 0; i < pb->m; i++)
		c->jac_f[i] = log(c->base[i] / pb->measured[i]) / pb->sigma_log;
	return true;
}

static int df_cb(const gsl_vector *x, void *params, gsl_matrix *J)
{
	struct fit_ctx *c = params;
	struct cal_problem *pb = c->pb;
	bool same = c->have_base;

	for (size_t j = 0; j < pb->p && same; j++)
		same = c->base_u[j] == gsl_vector_get(x, j);
	if (!same) {
		for (size_t j = 0; j < pb->p; j++)
			c->base_u[j] = gsl_vector_get(x, j);
		if (predict_all(c, c->base_u, c->base) != 0)
			return GSL_EDOM;
		c->have_base = true;
	}
	if (!c->full_jacobian && c->broyden >= 0 &&
	    c->broyden < cal_broyden_max && jacobian_broyden(c, x, J)) {
		c->broyden++;
		return GSL_SUCCESS;
	}
	/* every (row, parameter) pair that depends, one batch; a noisy
	   row takes the larger step */
	set_thetas(c, c->base_u, true);
	c->ntask = 0;
	for (size_t j = 0; j < pb->p; j++)
		for (size_t i = 0; i < pb->m; i++)
			if (depends(pb, i, j))
				c->task[c->ntask++] = (struct task){
					i,
					pb->noisy && pb->noisy[i] ?
						pb->p + j + 1 :
						j + 1,
					0.0, 0
				};
	if (run_tasks(c) != 0)
		return GSL_EDOM;
	gsl_matrix_set_zero(J);
	for (size_t j = 0; j < pb->p; j++)
		gsl_matrix_set(J, pb->m + j, j, 1.0);
	for (int k = 0; k < c->ntask; k++) {
		const struct task *t = &c->task[k];

		gsl_matrix_set(J, t->row, (t->set - 1) % pb->p,
			       log(t->y / c->base[t->row]) / pb->sigma_log /
				       c->step[t->set]);
	}
	jacobian_keep(c, x, J);
	c->broyden = 0;
	return GSL_SUCCESS;
}

void cal_result_free(struct cal_result *res)
{
	free(res->pred0);
	free(res->pred);
	free(res->loo);
	free(res->pred_sd_log);
	memset(res, 0, sizeof(*res));
}

static double rms_log(const double *pred, const double *meas, size_t m)
{
	double s = 0.0;

	for (size_t i = 0; i < m; i++) {
		double e = log(pred[i] / meas[i]);

		s += e * e;
	}
	return m ? sqrt(s / (double)m) : 0.0;
}

int cal_fit(struct cal_problem *pb, struct cal_result *res,
	    struct diag *err)
{
	const gsl_multifit_nlinear_type *T = gsl_multifit_nlinear_trust;
	gsl_multifit_nlinear_parameters fp =
		gsl_multifit_nlinear_default_parameters();
	gsl_multifit_nlinear_workspace *w = NULL;
	gsl_multifit_nlinear_fdf fdf;
	gsl_matrix *covar = NULL;
	gsl_vector *x0 = NULL;
	struct fit_ctx c;
	size_t m = pb->m, p = pb->p, n = m + p;
	double *u = NULL, chi2 = 0.0, hsum = 0.0, dof;
	int info = 0, rc = -1, status;
	gsl_error_handler_t *old;

	memset(res, 0, sizeof(*res));
	memset(&c, 0, sizeof(c));
	if (m == 0)
		return diag_set(err, NULL, 0, 0, "no measurement to fit");
	if (p > CAL_PARAMS_MAX)
		return diag_set(err, NULL, 0, 0,
				"more than %d parameters", CAL_PARAMS_MAX);
	c.pb = pb;
	c.theta = calloc((2 * p + 1) * (p ? p : 1), sizeof(double));
	c.step = calloc(2 * p + 1, sizeof(double));
	c.task = calloc(m * (p + 1), sizeof(*c.task));
	c.order = calloc(m * (p + 1), sizeof(*c.order));
	c.is_lead = calloc(m * (p + 1), sizeof(*c.is_lead));
	c.seen = calloc(m, sizeof(*c.seen));
	c.base_u = calloc(p ? p : 1, sizeof(double));
	c.base = calloc(m, sizeof(double));
	c.jac = calloc(n * (p ? p : 1), sizeof(double));
	c.jac_x = calloc(p ? p : 1, sizeof(double));
	c.jac_f = calloc(m, sizeof(double));
	c.broyden = -1;
	u = calloc(p ? p : 1, sizeof(double));
	res->pred0 = calloc(m, sizeof(double));
	res->pred = calloc(m, sizeof(double));
	res->loo = calloc(m, sizeof(double));
	res->pred_sd_log = calloc(m, sizeof(double));
	if (!c.theta || !c.step || !c.task || !c.order || !c.is_lead ||
	    !c.seen || !c.base_u || !c.base || !c.jac ||
	    !c.jac_x || !c.jac_f || !u || !res->pred0 ||
	    !res->pred || !res->loo || !res->pred_sd_log) {
		diag_set(err, NULL, 0, 0, "out of memory");
		goto out;
	}
	for (size_t j = 0; j < p; j++) {
		pb->param[j].rows = 0;
		for (size_t i = 0; i < m; i++)
			pb->param[j].rows += depends(pb, i, j);
	}
	if (predict_all(&c, u, res->pred0) != 0) {
		diag_set(err, NULL, 0, 0,
			 "measurement %d cannot be predicted at the priors",
			 c.failed);
		goto out;
	}
	res->rms0_log = rms_log(res->pred0, pb->measured, m);
	old = gsl_set_error_handler_off();
	if (p > 0) {
		fdf.f = f_cb;
		fdf.df = df_cb;
		fdf.fvv = NULL;
		fdf.n = n;
		fdf.p = p;
		fdf.params = &c;
		fp.trs = gsl_multifit_nlinear_trs_lm;
		w = gsl_multifit_nlinear_alloc(T, &fp, n, p);
		x0 = gsl_vector_calloc(p);
		covar = gsl_matrix_alloc(p, p);
		if (!w || !x0 || !covar) {
			gsl_set_error_handler(old);
			diag_set(err, NULL, 0, 0, "out of memory");
			goto out;
		}
		status = gsl_multifit_nlinear_init(x0, &fdf, w);
		if (status == GSL_SUCCESS)
			status = gsl_multifit_nlinear_driver(
				pb->max_iter > 0 ? (size_t)pb->max_iter : 50,
				1e-3, 1e-4, 1e-6, NULL, NULL, &info, w);
		/* running out of iterations still leaves the best point */
		if (status != GSL_SUCCESS && status != GSL_EMAXITER &&
		    status != GSL_ENOPROG) {
			gsl_set_error_handler(old);
			diag_set(err, NULL, 0, 0, "the fit failed: %s%s",
				 gsl_strerror(status),
				 c.failed ? " (a prediction failed)" : "");
			goto out;
		}
		res->iterations = (int)gsl_multifit_nlinear_niter(w);
		for (size_t j = 0; j < p; j++)
			u[j] = gsl_vector_get(w->x, j);
		/* the Jacobian at the solution, by differences, for the
		   covariance */
		c.full_jacobian = true;
		status = df_cb(w->x, &c, w->J);
		if (status == GSL_SUCCESS)
			status = gsl_multifit_nlinear_covar(w->J, 0.0, covar);
		if (status != GSL_SUCCESS) {
			gsl_set_error_handler(old);
			diag_set(err, NULL, 0, 0,
				 "no covariance at the solution: %s",
				 gsl_strerror(status));
			goto out;
		}
	}
	gsl_set_error_handler(old);
	if (predict_all(&c, u, res->pred) != 0) {
		diag_set(err, NULL, 0, 0,
			 "measurement %d cannot be predicted after the fit",
			 c.failed);
		goto out;
	}
	res->rms_log = rms_log(res->pred, pb->measured, m);
	/* leverage of each measurement: h_ii = J_i C J_i' */
	for (size_t i = 0; i < m; i++) {
		double r = log(res->pred[i] / pb->measured[i]) / pb->sigma_log;
		double h = 0.0;

		for (size_t a = 0; a < p && w; a++)
			for (size_t b = 0; b < p; b++)
				h += gsl_matrix_get(w->J, i, a) *
				     gsl_matrix_get(covar, a, b) *
				     gsl_matrix_get(w->J, i, b);
		if (h < 0.0)
			h = 0.0;
		res->pred_sd_log[i] = h; /* scaled below */
		hsum += h < 1.0 ? h : 1.0;
		chi2 += r * r;
		/* a measurement that alone determines a parameter (leverage
		   near 1) has no prediction from the others */
		res->loo[i] = h < CAL_LEVERAGE_MAX ?
				      pb->measured[i] *
					      exp(pb->sigma_log * r /
						  (1.0 - h)) :
				      (double)NAN;
	}
	/* measurements that disagree more than their noise widen the
	   parameters' ranges: chi^2 per degree of freedom (the effective
	   number of parameters being the leverages' sum) */
	dof = (double)m - hsum;
	res->scale = dof > 0.5 ? chi2 / dof : 1.0;
	if (res->scale < 1.0)
		res->scale = 1.0;
	for (size_t i = 0; i < m; i++)
		res->pred_sd_log[i] =
			pb->sigma_log * sqrt(res->pred_sd_log[i] * res->scale);
	for (size_t j = 0; j < p; j++) {
		struct cal_param *prm = &pb->param[j];
		double sd = sqrt(gsl_matrix_get(covar, j, j));
		double half = CAL_LEVEL_Z * sd * sqrt(res->scale);

		prm->value = cal_value(prm, u[j]);
		prm->u = u[j];
		prm->lo = cal_value(prm, u[j] - half);
		prm->hi = cal_value(prm, u[j] + half);
		prm->shrink = sd;
	}
	res->evaluations = c.evals;
	rc = 0;
out:
	if (rc != 0) {
		free(res->pred0);
		free(res->pred);
		free(res->loo);
		free(res->pred_sd_log);
		res->pred0 = res->pred = res->loo = res->pred_sd_log = NULL;
	}
	if (w)
		gsl_multifit_nlinear_free(w);
	gsl_vector_free(x0);
	gsl_matrix_free(covar);
	free(c.theta);
	free(c.step);
	free(c.task);
	free(c.order);
	free(c.is_lead);
	free(c.seen);
	free(c.base_u);
	free(c.base);
	free(c.jac);
	free(c.jac_x);
	free(c.jac_f);
	free(u);
	return rc;
}
