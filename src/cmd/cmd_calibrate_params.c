/*
 * cmd_calibrate_params.c - the parameters of 'capplan calibrate': the
 * devices, engines and frameworks its measurements run on, and each
 * parameter's prior, width and bounds (specs/calibration.md,
 * "Parameters").  The fit itself is src/plan/calibrate.c; the
 * measurements' plans cmd_calibrate.c.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cmd_calibrate_internal.h"
#include "interval.h"
#include "model_comm.h"
#include "stack.h"
#include "text.h"

/* an engine's per-kernel cost may be a factor of 3 from the stack's at
   one prior width (engines differ 2-10x in host costs) */
static const double kernel_tau_log = 1.0986122886681098; /* ln 3 */
/* the prior widths of the host times: their stack value, at least */
static const double request_tau_min_s = 5e-3;
static const double step_tau_min_s = 2e-3;

int cal_device_index(struct cal_ctx *c, const struct gpu_spec *g)
{
	for (int i = 0; i < c->ndev; i++)
		if (c->dev[i] == g)
			return i;
	if (c->ndev == CAL_DEVICES_MAX)
		return -1;
	c->dev[c->ndev] = g;
	return c->ndev++;
}

/* The index of stack NAME@VERSION in 'list' (n of them), appended
   (zeroed, '*added' set) when it is not there, 'gpu' added to where it
   was measured; -1 when CAL_ENGINES_MAX are there already. */
static int stack_index(struct cal_engine *list, int *n, const char *name,
		       const char *version, const char *gpu, bool *added)
{
	struct cal_engine *e;
	int i;

	*added = false;
	for (i = 0; i < *n; i++)
		if (strcmp(list[i].name, name) == 0 &&
		    strcmp(list[i].version, version) == 0)
			break;
	if (i == *n) {
		if (*n == CAL_ENGINES_MAX)
			return -1;
		e = &list[(*n)++];
		memset(e, 0, sizeof(*e));
		snprintf(e->name, sizeof(e->name), "%s", name);
		snprintf(e->version, sizeof(e->version), "%s", version);
		*added = true;
	}
	text_list_add(list[i].devices, sizeof(list[i].devices), gpu);
	return i;
}

int cal_engine_index(struct cal_ctx *c, const struct workload *wl,
		     const char *gpu)
{
	const struct inference_spec *is = &wl->inference;
	bool added;
	int i = stack_index(c->eng, &c->neng,
			    is->engine[0] ? is->engine : STACK_GENERIC,
			    is->engine_version, gpu, &added);

	if (added) {
		c->eng[i].prior[P_KERNEL] = is->kernel_overhead_s;
		c->eng[i].prior[P_REQUEST] = is->host_request_s;
		c->eng[i].prior[P_STEP] = is->host_step_s;
	}
	return i;
}

/* Whether 'metric' of a training plan is a production figure (a run as
   production runs report it, specs/models.md 8.1.1), which the
   framework's production efficiency scales. */
bool cal_production_metric(const char *metric)
{
	return strcmp(metric, "time_to_train_s") == 0 ||
	       strcmp(metric, "gpu_hours") == 0 ||
	       strcmp(metric, "cost_usd") == 0;
}

/* The index of the workload's training framework and version among the
   fit's, added with its production efficiency as prior; -1 when there
   are CAL_ENGINES_MAX already. */
int cal_framework_index(struct cal_ctx *c, const struct workload *wl,
			const char *gpu)
{
	const struct training_spec *t = &wl->training;
	bool added;
	int i = stack_index(c->fw, &c->nfw,
			    t->framework[0] ? t->framework : STACK_GENERIC,
			    t->framework_version, gpu, &added);

	if (added)
		c->fw[i].prior[0] = t->production_efficiency > 0.0 ?
					    t->production_efficiency :
					    WL_PRODUCTION_EFFICIENCY;
	return i;
}

int cal_sample_index(struct cal_ctx *c, const struct workload *wl,
		     const char *gpu)
{
	const struct inference_spec *is = &wl->inference;
	bool added;
	int i = stack_index(c->smp, &c->nsmp,
			    is->engine[0] ? is->engine : STACK_GENERIC,
			    is->engine_version, gpu, &added);

	if (added) {
		c->smp[i].prior[P_FRAMEWORK_OH] = is->framework_overhead_s;
		c->smp[i].prior[P_LAUNCH_OH] = is->launch_overhead_s;
	}
	return i;
}

/* A band's width in ln units at one sd: the 80% band of the validation
   residuals over 2 z, widened for a new source. */
static double band_tau(enum interval_class k)
{
	const struct interval_band *b = &interval_bands[k];

	return (b->hi_log - b->lo_log) / (2.0 * CAL_LEVEL_Z) *
	       (b->source_widen > 1.0 ? b->source_widen : 1.0);
}

static void set_param(struct cal_param *prm, const char *name,
		      const char *what, double prior, double tau,
		      enum cal_scale scale, double lo, double hi)
{
	snprintf(prm->name, sizeof(prm->name), "%s %s", name, what);
	prm->prior = prior;
	prm->tau = tau;
	prm->scale = scale;
	prm->lo_bound = lo;
	prm->hi_bound = hi;
}

/* A device parameter's name, prior and prior width. */
static void device_param(struct cal_param *prm, const struct gpu_spec *g,
			 int k)
{
	double train_tau = band_tau(INTERVAL_TRAINING);

	switch (k) {
	case P_MATMUL:
		set_param(prm, g->name, "matmul_eff", g->matmul_eff, train_tau,
			  CAL_LOG, 0.02, 1.0);
		break;
	case P_FP8:
		set_param(prm, g->name, "fp8_matmul_eff",
			  gpu_matmul_eff(g, PREC_FP8), train_tau, CAL_LOG, 0.02,
			  1.0);
		break;
	case P_MEM:
		set_param(prm, g->name, "mem_eff", g->mem_eff,
			  band_tau(INTERVAL_TPOT), CAL_LOG, 0.02, 1.0);
		break;
	case P_INTRA:
		set_param(prm, g->name, "intra_comm_eff",
			  g->intra_comm_eff > 0.0 ? g->intra_comm_eff :
						    COMM_INTRA_NODE_EFF,
			  train_tau, CAL_LOG, 0.02, 1.0);
		break;
	default:
		set_param(prm, g->name, "inter_comm_eff",
			  g->inter_comm_eff > 0.0 ? g->inter_comm_eff :
						    COMM_INTER_NODE_EFF,
			  train_tau, CAL_LOG, 0.02, 1.0);
		break;
	}
}

/* The parameters: each device's that a measurement depends on, then
   three per engine, one per framework, and one or two per per-sample
   serving stack (the launch overhead where a serve is eager).  0, or -1
   when there are more than CAL_PARAMS_MAX. */
int cal_build_params(struct cal_ctx *c)
{
	size_t p = 0;

	for (int d = 0; d < c->ndev; d++)
		for (int k = 0; k < P_DEVICE; k++) {
			bool used = false;

			for (size_t i = 0; i < c->m && !used; i++)
				used = c->rows[i].dev == d &&
				       c->rows[i].uses[k];
			c->dev_param[d][k] = -1;
			if (!used)
				continue;
			if (p == CAL_PARAMS_MAX)
				return -1;
			c->dev_param[d][k] = (int)p;
			device_param(&c->param[p++], c->dev[d], k);
		}
	c->eng_base = (int)p;
	for (int e = 0; e < c->neng; e++) {
		char name[64];
		const double *pr = c->eng[e].prior;

		if (p + P_ENGINE > CAL_PARAMS_MAX)
			return -1;
		snprintf(name, sizeof(name), "%s@%s", c->eng[e].name,
			 c->eng[e].version);
		set_param(&c->param[p++], name, "kernel_overhead",
			  pr[P_KERNEL] > 0.0 ? pr[P_KERNEL] : 7e-6,
			  kernel_tau_log, CAL_LOG, 1e-7, 1e-3);
		set_param(&c->param[p++], name, "host_request_overhead",
			  pr[P_REQUEST],
			  fmax(pr[P_REQUEST], request_tau_min_s), CAL_LINEAR,
			  0.0, 1.0);
		set_param(&c->param[p++], name, "host_step_overhead",
			  pr[P_STEP], fmax(pr[P_STEP], step_tau_min_s),
			  CAL_LINEAR, 0.0, 1.0);
	}
	c->fw_base = (int)p;
	for (int f = 0; f < c->nfw; f++) {
		char name[64];

		if (p == CAL_PARAMS_MAX)
			return -1;
		snprintf(name, sizeof(name), "%s@%s", c->fw[f].name,
			 c->fw[f].version);
		/* its prior width: the production runs' spread about the
		   plans (specs/models.md 8.1.1) */
		set_param(&c->param[p++], name, "production_efficiency",
			  c->fw[f].prior[0], interval_production_sigma_log(),
			  CAL_LOG, 0.05, 1.0);
	}
	for (int e = 0; e < c->nsmp; e++) {
		char name[64];
		const double *pr = c->smp[e].prior;
		bool eager = false;

		for (size_t i = 0; i < c->m; i++)
			eager |= c->rows[i].smp == e && c->rows[i].eager;
		snprintf(name, sizeof(name), "%s@%s", c->smp[e].name,
			 c->smp[e].version);
		if (p + 2 > CAL_PARAMS_MAX)
			return -1;
		/* a per-sample stack's host times differ as an engine's do
		   (framework calls of 10-15 us each, a Triton or TensorFlow
		   serving path of hundreds: specs/models.md 14.7) */
		c->smp_param[e][P_FRAMEWORK_OH] = (int)p;
		set_param(&c->param[p++], name, "framework_overhead",
			  pr[P_FRAMEWORK_OH] > 0.0 ? pr[P_FRAMEWORK_OH] :
						     WL_FRAMEWORK_OVERHEAD_S,
			  kernel_tau_log, CAL_LOG, 1e-7, 0.1);
		c->smp_param[e][P_LAUNCH_OH] = -1;
		if (eager) {
			c->smp_param[e][P_LAUNCH_OH] = (int)p;
			set_param(&c->param[p++], name, "launch_overhead",
				  pr[P_LAUNCH_OH] > 0.0 ?
					  pr[P_LAUNCH_OH] :
					  WL_LAUNCH_OVERHEAD_S,
				  kernel_tau_log, CAL_LOG, 1e-7, 1e-2);
		}
	}
	c->p = p;
	return 0;
}
