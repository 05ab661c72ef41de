/* cmd_calibrate.c - 'capplan calibrate MEASUREMENTS... [-o PROFILE]':
   fit a device's GEMM and bandwidth efficiency and an engine's host costs
   to the user's own measurements (calibrate.h), print each parameter's
   prior, fitted value and 80% range and each measurement's error before,
   after and left out, and write the profile that --profile reads
   (profile.h; the outputs are cmd_calibrate_out.c's).
   specs/calibration.md. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "benchlog.h"
#include "calibrate.h"
#include "cli.h"
#include "cmd_calibrate_internal.h"
#include "interval.h"
#include "model_kernel.h"
#include "measure.h"
#include "outfile.h"
#include "progress.h"
#include "serve_fleet.h"
#include "text.h"

/* A measurement's run-to-run spread, in ln units: about 3% (specs/
   calibration.md). */
static const double cal_sigma_log = 0.03;

/*
 * The spread a calibrated plan keeps on measurements it was not fitted
 * on, in ln units: what the parameters cannot hold (another batch, load
 * or length of the same stack on the same device).  In the intervals
 * only, not the fit.  Set so that the calibrated 80% intervals cover
 * about 80% of the held-out rows of `make validate-calibration`
 * (specs/calibration.md, "Intervals").
 */
static const double cal_discrepancy_log = 0.10;

/* The metrics calibrate takes: the fields of 'capplan train' and 'capplan
   infer' that carry an interval (specs/calibration.md). */
enum { CLS_TRAIN = -2, CLS_RATE = -3 }; /* resolved by the plan */
static const struct cal_metric cal_metrics[] = {
	{ MEASURE_TRAIN, false, "step_time_s", CLS_TRAIN, false },
	{ MEASURE_TRAIN, false, "tokens_per_s", CLS_TRAIN, false },
	{ MEASURE_TRAIN, false, "tokens_per_s_per_gpu", CLS_TRAIN, false },
	{ MEASURE_TRAIN, false, "samples_per_s", CLS_TRAIN, false },
	{ MEASURE_TRAIN, false, "model_tflops_per_gpu", CLS_TRAIN, false },
	{ MEASURE_TRAIN, false, "hardware_tflops_per_gpu", CLS_TRAIN, false },
	{ MEASURE_TRAIN, false, "mfu", CLS_TRAIN, false },
	{ MEASURE_TRAIN, false, "time_to_train_s", CLS_TRAIN, false },
	{ MEASURE_TRAIN, false, "gpu_hours", CLS_TRAIN, false },
	{ MEASURE_TRAIN, false, "cost_usd", CLS_TRAIN, false },
	{ MEASURE_INFER, false, "ttft_s", INTERVAL_TTFT, false },
	{ MEASURE_INFER, false, "tpot_s", INTERVAL_TPOT, false },
	{ MEASURE_INFER, false, "throughput_tokens_per_s", CLS_RATE, false },
	{ MEASURE_INFER, false, "throughput_tokens_per_s_per_gpu", CLS_RATE, false },
	{ MEASURE_INFER, false, "ttft_mean_s", INTERVAL_TTFT, true },
	{ MEASURE_INFER, false, "ttft_p50_s", INTERVAL_TTFT, true },
	{ MEASURE_INFER, false, "ttft_p90_s", INTERVAL_TTFT, true },
	{ MEASURE_INFER, false, "ttft_p99_s", INTERVAL_TTFT, true },
	{ MEASURE_INFER, false, "tpot_mean_s", INTERVAL_TPOT, true },
	{ MEASURE_INFER, false, "tpot_p50_s", INTERVAL_TPOT, true },
	{ MEASURE_INFER, false, "tpot_p90_s", INTERVAL_TPOT, true },
	{ MEASURE_INFER, false, "tpot_p99_s", INTERVAL_TPOT, true },
	{ MEASURE_INFER, false, "request_throughput_per_s",
	  INTERVAL_THROUGHPUT, true },
	{ MEASURE_INFER, false, "output_tokens_per_s", INTERVAL_THROUGHPUT, true },
	{ MEASURE_INFER, true, "latency_s", INTERVAL_SAMPLE_SERVING, false },
	{ MEASURE_INFER, true, "throughput_samples_per_s",
	  INTERVAL_SAMPLE_SERVING, false },
	{ MEASURE_INFER, true, "throughput_samples_per_s_per_gpu",
	  INTERVAL_SAMPLE_SERVING, false },
};

static const struct cal_metric *cal_metric_find(enum measure_command cmd,
						bool sample, const char *key)
{
	for (size_t i = 0; i < sizeof(cal_metrics) / sizeof(cal_metrics[0]);
	     i++)
		if (cal_metrics[i].cmd == cmd &&
		    (cmd == MEASURE_TRAIN || cal_metrics[i].sample == sample) &&
		    strcmp(cal_metrics[i].key, key) == 0)
			return &cal_metrics[i];
	return NULL;
}

/* The metrics of 'cmd' (and kind) as a comma-separated list. */
static void cal_metric_list(enum measure_command cmd, bool sample,
			    char *buf, size_t size)
{
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(cal_metrics) / sizeof(cal_metrics[0]);
	     i++) {
		int n;

		if (cal_metrics[i].cmd != cmd ||
		    (cmd == MEASURE_INFER && cal_metrics[i].sample != sample))
			continue;
		n = snprintf(buf + at, size - at, "%s%s", at ? ", " : "",
			     cal_metrics[i].key);
		if (n < 0 || (size_t)n >= size - at)
			break;
		at += (size_t)n;
	}
}


/* A numeric field of 'rec' by its JSON name ("key" or "group.key"):
   0 with the value, 1 when it is not a number (null, text), -1 when there
   is no such field. */
static int record_value(const struct record *rec, const char *metric,
			double *out)
{
	const char *dot = strchr(metric, '.');

	for (int i = 0; i < rec->n; i++) {
		const struct rfield *f = &rec->f[i];
		bool match;

		if (f->flags & RF_TABLE || f->type == RF_HEADING)
			continue;
		if (dot)
			match = f->group &&
				strlen(f->group) == (size_t)(dot - metric) &&
				strncmp(f->group, metric,
					(size_t)(dot - metric)) == 0 &&
				strcmp(f->key, dot + 1) == 0;
		else
			match = !f->group && strcmp(f->key, metric) == 0;
		if (!match)
			continue;
		if (f->type == RF_NUM && isfinite(f->num)) {
			*out = f->num;
			return 0;
		}
		if (f->type == RF_INT) {
			*out = (double)f->inum;
			return 0;
		}
		return 1;
	}
	return -1;
}

/* What one plan needs: a workload to change, its record, and the plan;
   one per call of eval_row, which runs on several threads. */
struct scratch {
	struct workload wl;
	struct record rec;
	struct train_plan tp;
	struct infer_plan ip;
	struct sample_serve_plan sp;
};

/* Plan row 'r' with 'wl' on 'g' and read its metric into 'out'. */
static int plan_metric(struct scratch *sc, const struct cal_row *r,
		       const struct workload *wl, const struct gpu_spec *g,
		       double *out, struct diag *err)
{
	int rc = r->m->command == MEASURE_TRAIN ?
			 cli_train_record(wl, g, &sc->tp, &sc->rec, err) :
		 r->sample ? cli_sample_record(wl, g, &sc->sp, &sc->rec, err) :
			     cli_infer_record(wl, g, &sc->ip, &sc->rec, err);

	if (rc != 0)
		return -1;
	rc = record_value(&sc->rec, r->m->metric, out);
	if (rc != 0 || !(*out > 0.0)) {
		if (err)
			diag_set(err, r->m->file, r->m->line,
				 r->m->col_metric,
				 "'%s' is not a positive number in this plan "
				 "of '%s'%s",
				 r->m->metric,
				 measure_command_name(r->m->command),
				 r->metric && r->metric->load ?
					 " (a figure of a simulated load: give "
					 "the load, inference.qps, concurrency "
					 "or arrival)" :
					 "");
		return -1;
	}
	return 0;
}

/* Row 'r''s workload and device at the parameters 'theta' into 'sc->wl'
   and 'g'. */
static void row_at(const struct cal_ctx *c, const struct cal_row *r,
		   const double *theta, struct scratch *sc, struct gpu_spec *g)
{
	const int *d = c->dev_param[r->dev];

	*g = *r->gpu;
	if (d[P_MATMUL] >= 0)
		g->matmul_eff = theta[d[P_MATMUL]];
	if (d[P_FP8] >= 0)
		g->fp8_matmul_eff = theta[d[P_FP8]];
	if (d[P_MEM] >= 0)
		g->mem_eff = theta[d[P_MEM]];
	if (d[P_INTRA] >= 0)
		g->intra_comm_eff = theta[d[P_INTRA]];
	if (d[P_INTER] >= 0)
		g->inter_comm_eff = theta[d[P_INTER]];
	sc->wl = *r->wl;
	if (r->eng >= 0) {
		const double *e = &theta[c->eng_base + P_ENGINE * r->eng];

		if (!workload_key_given(&sc->wl, c->key_kernel))
			sc->wl.inference.kernel_overhead_s = e[P_KERNEL];
		if (!workload_key_given(&sc->wl, c->key_request))
			sc->wl.inference.host_request_s = e[P_REQUEST];
		if (!workload_key_given(&sc->wl, c->key_step))
			sc->wl.inference.host_step_s = e[P_STEP];
	}
	if (r->smp >= 0) {
		const int *q = c->smp_param[r->smp];

		if (q[P_FRAMEWORK_OH] >= 0 &&
		    !workload_key_given(&sc->wl, c->key_framework_oh))
			sc->wl.inference.framework_overhead_s =
				theta[q[P_FRAMEWORK_OH]];
		if (q[P_LAUNCH_OH] >= 0 &&
		    !workload_key_given(&sc->wl, c->key_launch_oh))
			sc->wl.inference.launch_overhead_s =
				theta[q[P_LAUNCH_OH]];
	}
	if (r->plan_fw >= 0 &&
	    !workload_key_given(&sc->wl, c->key_production))
		sc->wl.training.production_efficiency =
			theta[c->fw_base + r->plan_fw];
}

/* Row i of a share at 'theta': from the point's slot, or planned once for
   every member into a new slot.  Called with the share's lock held. */
static int eval_shared(const struct cal_ctx *c, struct cal_share *sh,
		       const double *theta, size_t i, double *pred)
{
	const struct cal_row *r = &c->rows[i];
	size_t bytes = c->p * sizeof(double);
	struct scratch *sc;
	struct gpu_spec g;
	int k, rc;

	for (k = 0; k < CAL_SHARE_SLOTS; k++)
		if (sh->slot[k].used &&
		    memcmp(sh->slot[k].theta, theta, bytes) == 0) {
			*pred = sh->slot[k].val[r->member];
			return sh->slot[k].rc[r->member];
		}
	sc = malloc(sizeof(*sc));
	if (!sc)
		return -1;
	k = sh->next;
	sh->next = (sh->next + 1) % CAL_SHARE_SLOTS;
	sh->slot[k].used = false;
	row_at(c, r, theta, sc, &g);
	rc = plan_metric(sc, r, &sc->wl, &g, pred, NULL);
	for (int j = 0; j < sh->n; j++) {
		const struct cal_row *o = &c->rows[sh->row[j]];

		if (rc != 0)
			sh->slot[k].rc[j] = -1;
		else if (sh->row[j] == i) {
			sh->slot[k].val[j] = *pred;
			sh->slot[k].rc[j] = 0;
		} else
			sh->slot[k].rc[j] =
				record_value(&sc->rec, o->m->metric,
					     &sh->slot[k].val[j]) != 0 ||
						!(sh->slot[k].val[j] > 0.0) ?
					-1 :
					0;
	}
	memcpy(sh->slot[k].theta, theta, bytes);
	sh->slot[k].used = true;
	free(sc);
	return rc;
}

/* calibrate.h's eval: thread-safe (its own scratch, or a share's lock;
   the rows and the catalog are only read). */
static int eval_row(void *ctx, const double *theta, size_t i, double *pred)
{
	const struct cal_ctx *c = ctx;
	const struct cal_row *r = &c->rows[i];
	struct scratch *sc;
	struct gpu_spec g;
	int rc;

	if (r->share >= 0) {
		struct cal_share *sh = &c->share[r->share];

		pthread_mutex_lock(&sh->mu);
		rc = eval_shared(c, sh, theta, i, pred);
		pthread_mutex_unlock(&sh->mu);
		return rc;
	}
	sc = malloc(sizeof(*sc));
	if (!sc)
		return -1;
	row_at(c, r, theta, sc, &g);
	rc = plan_metric(sc, r, &sc->wl, &g, pred, NULL);
	free(sc);
	return rc;
}

/* Whether measurements a and b plan the same configuration. */
static bool same_plan(const struct cal_row *a, const struct cal_row *b)
{
	const struct measurement *x = a->m, *y = b->m;

	return x->command == y->command && a->sample == b->sample &&
	       a->gpu == b->gpu && x->gpus == y->gpus &&
	       strcmp(x->workload, y->workload) == 0 &&
	       strcmp(x->set, y->set) == 0;
}

/* Group the rows that plan the same configuration into shares (a row
   alone keeps share -1); 0, or -1 out of memory. */
static int build_shares(struct cal_ctx *c)
{
	for (size_t i = 0; i < c->m; i++)
		c->rows[i].share = -1;
	c->share = calloc(c->m ? c->m : 1, sizeof(*c->share));
	if (!c->share)
		return -1;
	for (size_t i = 0; i < c->m; i++) {
		struct cal_row *r = &c->rows[i];
		struct cal_share *sh;

		if (r->share >= 0)
			continue;
		sh = &c->share[c->nshare];
		sh->row[sh->n++] = i;
		for (size_t j = i + 1; j < c->m && sh->n < CAL_SHARE_ROWS;
		     j++)
			if (c->rows[j].share < 0 && same_plan(r, &c->rows[j])) {
				c->rows[j].share = c->nshare;
				c->rows[j].member = sh->n;
				sh->row[sh->n++] = j;
			}
		if (sh->n < 2) {
			sh->n = 0;
			continue;
		}
		r->share = c->nshare;
		r->member = 0;
		pthread_mutex_init(&sh->mu, NULL);
		c->nshare++;
	}
	return 0;
}

/* calibrate.h's parallel: a batch of plans on every processor, and the
   progress line after it. */
static void run_batch(void *pctx, int n, void (*fn)(int i, void *arg),
		      void *arg)
{
	struct cal_ctx *c = pctx;

	cli_parallel_for(n, fn, arg);
	c->plans += (size_t)n;
	progress_update(&c->pr, c->plans, 0, "plans");
}

/* The workload of measurement 'm', its stack applied and validated. */
static int row_workload(struct cli_ctx *ctx, const struct measurement *m,
			struct workload *wl)
{
	struct diag err;
	char set[MEASURE_TEXT_MAX], *item, *save = NULL;

	diag_clear(&err);
	workload_init(wl);
	if (workload_load_file(m->workload, wl, &err) != 0) {
		diag_print(stderr, &err);
		return err.kind == DIAG_IO ? EXIT_IO : EXIT_INPUT;
	}
	if (m->gpus > 0) {
		char expr[64];

		snprintf(expr, sizeof(expr), "training.gpus=%d", m->gpus);
		if (workload_set(wl, expr, &err) != 0)
			goto bad_set;
	}
	snprintf(set, sizeof(set), "%s", m->set);
	for (item = strtok_r(set, ";", &save); item;
	     item = strtok_r(NULL, ";", &save)) {
		while (*item == ' ')
			item++;
		if (!*item)
			continue;
		if (workload_set(wl, item, &err) != 0)
			goto bad_set;
	}
	if (stack_apply(&ctx->stacks, wl, &err) != 0 ||
	    workload_validate(wl, &err) != 0) {
		diag_print(stderr, &err);
		return EXIT_INPUT;
	}
	return EXIT_OK;
bad_set:
	cli_message("", "%s:%d:%d: %s", m->file, m->line, m->col_set,
		    err.msg);
	return EXIT_INPUT;
}


/* A stack's NAME@VERSION as the profile's [interval] sections name it:
   the row's engine when it serves, its framework when it trains. */
static void row_stack(const struct cal_row *r, char *buf, size_t size)
{
	const char *name = r->m->command == MEASURE_TRAIN ?
				   r->wl->training.framework :
				   r->wl->inference.engine;
	const char *version = r->m->command == MEASURE_TRAIN ?
				      r->wl->training.framework_version :
				      r->wl->inference.engine_version;

	snprintf(buf, size, "%s@%s", name[0] ? name : STACK_GENERIC, version);
}

/*
 * The calibrated intervals, one band per class of the measurements: the
 * spread of a new measurement about a calibrated plan, in ln units,
 *
 *   sigma^2 = mean e_i^2 + mean sd_i^2 + d^2
 *
 * over the class's rows: e_i the row's error left out of the fit (its
 * error after the fit where it alone determines a parameter), sd_i the
 * sd of its prediction from the parameters' uncertainty, d the
 * discrepancy the parameters cannot hold (cal_discrepancy_log).  Only
 * on the devices and stacks of those rows.
 */
static void make_bands(const struct cal_ctx *c, const struct cal_result *res,
		       struct profile *p)
{
	p->nband = 0;
	/* the classes of interval.h, then the production figures (k ==
	   INTERVAL_COUNT): a run's production figure is not a steady
	   one, and its band holds only those */
	for (int k = 0; k <= INTERVAL_COUNT && p->nband < PROFILE_BANDS_MAX;
	     k++) {
		struct profile_band *b = &p->band[p->nband];
		double e2 = 0.0, v = 0.0;
		int n = 0;

		memset(b, 0, sizeof(*b));
		for (size_t i = 0; i < c->m; i++) {
			const struct cal_row *r = &c->rows[i];
			double meas = r->m->measured;
			double e = log(res->loo[i] / meas);
			char stack[80];

			if (k == INTERVAL_COUNT ? r->fw < 0 :
						  r->cls != k || r->fw >= 0)
				continue;
			if (!isfinite(e))
				e = log(res->pred[i] / meas);
			e2 += e * e;
			v += res->pred_sd_log[i] * res->pred_sd_log[i];
			n++;
			text_list_add(b->devices, sizeof(b->devices), r->gpu->name);
			row_stack(r, stack, sizeof(stack));
			text_list_add(b->stacks, sizeof(b->stacks), stack);
		}
		/* one production figure says nothing of how the next run
		   of the stack varies: the public production spread stays
		   (cli_rec_interval_pairs) */
		if (n == 0 || (k == INTERVAL_COUNT && n < 2))
			continue;
		snprintf(b->cls, sizeof(b->cls), "%s",
			 k == INTERVAL_COUNT ?
				 PROFILE_PRODUCTION_BAND :
				 interval_class_name((enum interval_class)k));
		b->rows = n;
		b->sigma_log = sqrt(e2 / n + v / n +
				    cal_discrepancy_log * cal_discrepancy_log);
		p->nband++;
	}
}


/* Whether file 'f' (of length n) is a measurements CSV: its name ends in
   .csv, or it is standard input; anything else is a benchmark result or
   a training log. */
static bool measurements_csv(const char *f, size_t n)
{
	return (n > 4 && strcasecmp(f + n - 4, ".csv") == 0) ||
	       strcmp(f, "-") == 0;
}

/* The first planning of the rows: one result each. */
struct prep_out {
	int rc;            /* 0; 1: a plan fails (err); -1: out of memory */
	struct diag err;
};

/*
 * The device parameters row 'r''s plan at the priors ('sc') depends on:
 * its GEMMs and memory always; fp8 GEMMs where its math runs on the
 * fp8/fp4 path; collectives within a node where it spans more than one
 * GPU, across nodes where it spans more than a node (or moves a
 * disaggregated replica's KV cache over the network).
 */
static void row_uses(struct cal_row *r, const struct scratch *sc)
{
	int gpus, node;
	bool fp8, net = false;

	if (r->m->command == MEASURE_TRAIN) {
		enum precision q = device_math_precision(
			r->gpu, sc->tp.config.precision);

		gpus = sc->tp.config.gpus;
		node = sc->tp.cluster.gpus_per_node;
		fp8 = q == PREC_FP8 || q == PREC_FP4;
	} else if (r->sample) {
		gpus = sc->sp.tp;
		node = sc->sp.cluster.gpus_per_node;
		fp8 = false;
		r->eager = !sample_serve_costs(r->wl).cuda_graphs;
	} else {
		const struct infer_plan *ip = &sc->ip;

		gpus = infer_gpus_per_replica(&ip->config);
		if (ip->prefill_tp > gpus)
			gpus = ip->prefill_tp;
		if (ip->decode_tp > gpus)
			gpus = ip->decode_tp;
		node = ip->cluster.gpus_per_node;
		fp8 = infer_config_fp8_math(r->gpu, &ip->config);
		net = ip->simulated && ip->fleet.disagg;
	}
	r->uses[P_MATMUL] = true;
	r->uses[P_FP8] = fp8;
	r->uses[P_MEM] = true;
	r->uses[P_INTRA] = gpus > 1;
	r->uses[P_INTER] = net || gpus > node;
}

struct prep_job {
	struct cal_ctx *c;
	struct prep_out *out;
	int base;          /* the first row of the batch being planned */
};

/*
 * Plan row i at the priors, fix the configuration that plan chose (kept
 * only when the plan of the fixed configuration is the same plan), and
 * note the class of its interval.  Safe on several threads: its own
 * scratch; the row is its own.
 */
static void prepare_row(int i, void *arg)
{
	struct prep_job *pj = arg;
	struct cal_row *r = &pj->c->rows[pj->base + i];
	struct prep_out *o = &pj->out[pj->base + i];
	const struct measurement *m = r->m;
	struct scratch *sc = malloc(sizeof(*sc)), *sc2 = malloc(sizeof(*sc2));
	struct workload *fixed_wl = malloc(sizeof(*fixed_wl));
	struct diag err;
	double before, fixed;

	diag_clear(&o->err);
	if (!sc || !sc2 || !fixed_wl) {
		o->rc = -1;
		goto out;
	}
	if (plan_metric(sc, r, r->wl, r->gpu, &before, &o->err) != 0) {
		o->rc = 1;
		goto out;
	}
	*fixed_wl = *r->wl;
	/* the replica's capacity decides none of the metrics calibrate
	   takes (cal_metrics): measured once */
	if (m->command == MEASURE_INFER && !r->sample)
		fixed_wl->inference.capacity_hint_qps =
			sc->ip.fleet.capacity_qps;
	diag_clear(&err);
	if ((m->command == MEASURE_TRAIN ?
		     cli_train_fix(&sc->tp, fixed_wl, &err) :
	     r->sample ? cli_sample_fix(&sc->sp, fixed_wl, &err) :
			 cli_infer_fix(&sc->ip, fixed_wl, &err)) == 0 &&
	    plan_metric(sc2, r, fixed_wl, r->gpu, &fixed, NULL) == 0 &&
	    fabs(fixed / before - 1.0) < 1e-9)
		*r->wl = *fixed_wl;
	r->simulated = m->command == MEASURE_INFER && !r->sample &&
		       sc->ip.simulated;
	row_uses(r, sc);
	/* the class of its interval, as the plan at the priors reports it */
	r->cls = r->metric->cls == CLS_TRAIN ?
			 (sc->tp.per_sample ? INTERVAL_PER_SAMPLE :
					      INTERVAL_TRAINING) :
		 r->metric->cls == CLS_RATE ?
			 (sc->ip.simulated ? INTERVAL_THROUGHPUT :
					     INTERVAL_OFFLINE) :
			 r->metric->cls;
	o->rc = 0;
out:
	free(sc);
	free(sc2);
	free(fixed_wl);
}

int cmd_calibrate(struct cli_ctx *ctx)
{
	struct measure_set ms = { NULL, 0 };
	struct cal_ctx *c = calloc(1, sizeof(*c));
	struct cal_problem pb;
	struct cal_result res;
	double *measured = NULL;
	unsigned char *dep = NULL, *noisy = NULL;
	int *share = NULL;
	struct outfile prof;
	struct profile *bands = NULL;
	bool prof_open = false;
	struct diag err;
	int rc = EXIT_OK;

	memset(&res, 0, sizeof(res));
	diag_clear(&err);
	if (!c) {
		cli_error("out of memory");
		return EXIT_INTERNAL;
	}
	rc = cli_load_stacks(ctx);
	for (int i = 0; rc == EXIT_OK && i < ctx->nfiles; i++) {
		const char *f = ctx->files[i];
		size_t n = strlen(f);
		int r;

		if (!measurements_csv(f, n)) {
			/* a benchmark's result or a training log (benchlog.h
			   knows them by their content): of which run, on
			   what */
			if (!ctx->workload_path || !ctx->gpu_arg) {
				rc = cli_usage(ctx->cmd,
					       "'%s' is a benchmark result or a "
					       "training log: give the workload "
					       "it ran with --workload FILE and "
					       "the device with --gpu NAME", f);
				break;
			}
			r = benchlog_load_file(f, ctx->workload_path,
					       ctx->gpu_arg, &ms, &err);
		} else {
			r = measure_load_file(f, &ms, &err);
		}
		if (r != 0) {
			diag_print(stderr, &err);
			rc = err.kind == DIAG_IO ? EXIT_IO : EXIT_INPUT;
		}
	}
	if (rc == EXIT_OK && (ctx->workload_path || ctx->gpu_arg)) {
		bool result = false;

		for (int i = 0; i < ctx->nfiles; i++)
			result |= !measurements_csv(ctx->files[i],
						    strlen(ctx->files[i]));
		if (!result)
			rc = cli_usage(ctx->cmd, "%s",
				       "--workload and --gpu name the run of a "
				       "benchmark result or a training log; a "
				       "measurements CSV (.csv) names its own "
				       "in each row");
	}
	if (rc == EXIT_OK && ms.n == 0) {
		cli_error("no measurement in %s", ctx->files[0]);
		rc = EXIT_INPUT;
	}
	/* the profile's file first: a folder that cannot be written fails
	   before the fit, and nothing is left behind */
	if (rc == EXIT_OK && ctx->output_path) {
		diag_clear(&err);
		if (outfile_open(&prof, ctx->output_path, &err) != 0) {
			diag_print(stderr, &err);
			rc = EXIT_IO;
		} else {
			prof_open = true;
		}
	}
	if (rc != EXIT_OK)
		goto out;
	c->m = ms.n;
	c->key_kernel = (size_t)workload_key_find("inference",
						  "kernel_overhead");
	c->key_request = (size_t)workload_key_find("inference",
						   "host_request_overhead");
	c->key_step = (size_t)workload_key_find("inference",
						"host_step_overhead");
	c->key_production = (size_t)workload_key_find(
		"training", "production_efficiency");
	c->key_framework_oh = (size_t)workload_key_find("inference",
							"framework_overhead");
	c->key_launch_oh = (size_t)workload_key_find("inference",
						     "launch_overhead");
	c->rows = calloc(ms.n, sizeof(*c->rows));
	measured = calloc(ms.n, sizeof(double));
	if (!c->rows || !measured) {
		cli_error("out of memory");
		rc = EXIT_INTERNAL;
		goto out;
	}
	/* each measurement's workload, its plan at the priors, and the
	   configuration that plan chose, fixed for the fit */
	for (size_t i = 0; i < ms.n; i++) {
		const struct measurement *m = &ms.rows[i];
		struct cal_row *r = &c->rows[i];

		r->m = m;
		measured[i] = m->measured;
		r->gpu = catalog_find(ctx->cat, m->gpu, NULL);
		if (!r->gpu) {
			cli_message("", "%s:%d:%d: unknown gpu '%s' ('capplan "
					"catalog' lists them)",
				    m->file, m->line, m->col_gpu, m->gpu);
			rc = EXIT_INPUT;
			goto out;
		}
		r->wl = malloc(sizeof(*r->wl));
		if (!r->wl) {
			cli_error("out of memory");
			rc = EXIT_INTERNAL;
			goto out;
		}
		rc = row_workload(ctx, m, r->wl);
		if (rc != EXIT_OK)
			goto out;
		r->sample = m->command == MEASURE_INFER &&
			    r->wl->model.kind != MODEL_TRANSFORMER;
		if (m->command == MEASURE_INFER && !r->sample &&
		    !model_has_arch(&r->wl->model)) {
			cli_message("", "%s:%d: calibrate takes the serving "
					"measurements of transformers with an "
					"architecture (layers, hidden, heads, "
					"vocab, seq_len)",
				    m->file, m->line);
			rc = EXIT_INPUT;
			goto out;
		}
		r->metric = cal_metric_find(m->command, r->sample, m->metric);
		if (!r->metric) {
			char list[1024];

			cal_metric_list(m->command, r->sample, list,
					sizeof(list));
			cli_message("", "%s:%d:%d: '%s' is not a metric "
					"calibrate takes for '%s'%s: expected "
					"one of %s",
				    m->file, m->line, m->col_metric,
				    m->metric, measure_command_name(m->command),
				    r->sample ? " of a per-sample model" : "",
				    list);
			rc = EXIT_INPUT;
			goto out;
		}
	}
	/* each row's plan at the priors and its configuration fixed, in
	   parallel (prepare_row); then, in order, the first failure */
	{
		struct prep_job pj = { c, calloc(ms.n, sizeof(*pj.out)), 0 };
		/* batches of a few rows a processor: the progress line moves */
		int batch = 4 * cli_threads();

		if (!pj.out) {
			cli_error("out of memory");
			rc = EXIT_INTERNAL;
			goto out;
		}
		progress_init(&c->pr, "calibrate");
		for (pj.base = 0; pj.base < (int)ms.n; pj.base += batch) {
			int n = (int)ms.n - pj.base < batch ?
					(int)ms.n - pj.base :
					batch;

			cli_parallel_for(n, prepare_row, &pj);
			progress_update(&c->pr, (size_t)(pj.base + n), ms.n,
					"measurements planned");
		}
		for (size_t i = 0; i < ms.n && rc == EXIT_OK; i++)
			if (pj.out[i].rc != 0) {
				progress_end(&c->pr);
				if (pj.out[i].rc < 0) {
					cli_error("out of memory");
					rc = EXIT_INTERNAL;
				} else {
					diag_print(stderr, &pj.out[i].err);
					rc = EXIT_INPUT;
				}
			}
		free(pj.out);
		if (rc != EXIT_OK)
			goto out;
	}
	for (size_t i = 0; i < ms.n; i++) {
		const struct measurement *m = &ms.rows[i];
		struct cal_row *r = &c->rows[i];

		r->dev = cal_device_index(c, r->gpu);
		/* a per-sample model's serving has host times of its own */
		r->eng = m->command == MEASURE_INFER && !r->sample ?
				 cal_engine_index(c, r->wl, r->gpu->name) :
				 -1;
		r->smp = m->command == MEASURE_INFER && r->sample ?
				 cal_sample_index(c, r->wl, r->gpu->name) :
				 -1;
		r->fw = m->command == MEASURE_TRAIN &&
				cal_production_metric(m->metric) ?
				cal_framework_index(c, r->wl, r->gpu->name) :
				-1;
		if (r->dev < 0 ||
		    (m->command == MEASURE_INFER && !r->sample && r->eng < 0) ||
		    (m->command == MEASURE_INFER && r->sample && r->smp < 0) ||
		    (m->command == MEASURE_TRAIN &&
		     cal_production_metric(m->metric) && r->fw < 0)) {
			progress_end(&c->pr);
			cli_error("more than %d devices or %d engines or "
				  "frameworks of a kind",
				  CAL_DEVICES_MAX, CAL_ENGINES_MAX);
			rc = EXIT_INPUT;
			goto out;
		}
	}
	if (cal_build_params(c) != 0) {
		progress_end(&c->pr);
		cli_error("the measurements need more than %d parameters "
			  "(%d device%s, %d engine%s, %d framework%s): "
			  "calibrate fewer devices or stacks at once",
			  CAL_PARAMS_MAX, c->ndev, c->ndev == 1 ? "" : "s",
			  c->neng + c->nsmp,
			  c->neng + c->nsmp == 1 ? "" : "s", c->nfw,
			  c->nfw == 1 ? "" : "s");
		rc = EXIT_INPUT;
		goto out;
	}
	dep = calloc(c->m * (c->p ? c->p : 1), 1);
	noisy = calloc(c->m ? c->m : 1, 1);
	share = calloc(c->m ? c->m : 1, sizeof(*share));
	if (!dep || !noisy || !share || build_shares(c) != 0) {
		progress_end(&c->pr);
		cli_error("out of memory");
		rc = EXIT_INTERNAL;
		goto out;
	}
	/* a share's one plan takes the production efficiency that any of
	   its figures depends on */
	for (size_t i = 0; i < c->m; i++)
		c->rows[i].plan_fw = c->rows[i].fw;
	for (int k = 0; k < c->nshare; k++) {
		int fw = -1;

		for (int j = 0; j < c->share[k].n; j++)
			if (c->rows[c->share[k].row[j]].fw >= 0)
				fw = c->rows[c->share[k].row[j]].fw;
		for (int j = 0; j < c->share[k].n; j++)
			c->rows[c->share[k].row[j]].plan_fw = fw;
	}
	for (size_t i = 0; i < c->m; i++) {
		const struct cal_row *r = &c->rows[i];

		for (int k = 0; k < P_DEVICE; k++)
			if (r->uses[k])
				dep[i * c->p +
				    (size_t)c->dev_param[r->dev][k]] = 1;
		for (int k = 0; r->eng >= 0 && k < P_ENGINE; k++)
			dep[i * c->p + (size_t)(c->eng_base +
						P_ENGINE * r->eng + k)] = 1;
		if (r->fw >= 0)
			dep[i * c->p + (size_t)(c->fw_base + r->fw)] = 1;
		if (r->smp >= 0) {
			const int *q = c->smp_param[r->smp];

			dep[i * c->p + (size_t)q[P_FRAMEWORK_OH]] = 1;
			if (r->eager && q[P_LAUNCH_OH] >= 0)
				dep[i * c->p + (size_t)q[P_LAUNCH_OH]] = 1;
		}
	}
	memset(&pb, 0, sizeof(pb));
	pb.m = c->m;
	pb.p = c->p;
	pb.measured = measured;
	pb.sigma_log = cal_sigma_log;
	pb.param = c->param;
	pb.dep = dep;
	for (size_t i = 0; i < c->m; i++)
		noisy[i] = c->rows[i].simulated;
	pb.noisy = noisy;
	for (size_t i = 0; i < c->m; i++)
		share[i] = c->rows[i].share;
	pb.share = share;
	pb.eval = eval_row;
	pb.ctx = c;
	pb.parallel = run_batch;
	pb.parallel_ctx = c;
	diag_clear(&err);
	if (cal_fit(&pb, &res, &err) != 0) {
		progress_end(&c->pr);
		cli_error("%s", err.msg);
		rc = EXIT_INTERNAL;
		goto out;
	}
	progress_end(&c->pr);
	bands = calloc(1, sizeof(*bands));
	if (!bands) {
		cli_error("out of memory");
		rc = EXIT_INTERNAL;
		goto out;
	}
	make_bands(c, &res, bands);
	{
		struct job job = { c, &res, measured, bands };
		const char *path = ctx->output_path;

		/* the fit goes to stdout; -o names the profile */
		ctx->output_path = NULL;
		rc = cli_write(ctx, ctx->format == FORMAT_JSON ? cal_write_json :
				    ctx->format == FORMAT_CSV  ? cal_write_csv :
								 cal_write_table,
			       &job);
		ctx->output_path = path;
	}
	if (rc == EXIT_OK && prof_open) {
		prof_open = false; /* cal_write_profile commits or aborts it */
		rc = cal_write_profile(ctx, c, &res, bands, &prof);
	}
out:
	progress_end(&c->pr);
	if (prof_open)
		outfile_abort(&prof);
	cal_result_free(&res);
	if (c->rows)
		for (size_t i = 0; i < c->m; i++)
			free(c->rows[i].wl);
	for (int i = 0; i < c->nshare; i++)
		pthread_mutex_destroy(&c->share[i].mu);
	free(c->share);
	free(c->rows);
	free(c);
	free(measured);
	free(dep);
	free(noisy);
	free(share);
	free(bands);
	measure_release(&ms);
	return rc;
}
