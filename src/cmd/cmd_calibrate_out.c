/* cmd_calibrate_out.c - what 'capplan calibrate' prints and writes: the
   parameters and measurements as a table, JSON or CSV, and the profile
   (specs/calibration.md; cmd_calibrate.c fits them). */
#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd_calibrate_internal.h"
#include "interval.h"
#include "text.h"
#include "units.h"

bool cal_determined(const struct cal_param *prm)
{
	return prm->rows > 0 && prm->shrink < CAL_DETERMINED_SHRINK;
}

/* A parameter's value as its kind reads: a time with its unit, an
   efficiency as a number. */
static const char *value_text(const struct cal_param *prm, double v,
			      char *buf, size_t size)
{
	if (strstr(prm->name, "overhead"))
		units_format(buf, size, v, UNIT_TIME, 3);
	else
		snprintf(buf, size, "%.3g", v);
	return buf;
}

/* predicted / measured - 1 as "+12.3%", or "-" when there is none. */
static const char *pct(double pred, double meas, char *buf, size_t size)
{
	if (isfinite(pred))
		snprintf(buf, size, "%+.1f%%", 100.0 * (pred / meas - 1.0));
	else
		snprintf(buf, size, "-");
	return buf;
}

int cal_write_table(FILE *out, const void *arg, const char **why)
{
	const struct job *j = arg;
	const struct cal_ctx *c = j->c;
	const struct cal_result *res = j->res;
	int width = 36;

	(void)why;
	fprintf(out, "Calibration: %zu measurement%s, %zu parameter%s; "
		     "rms error %.1f%% before, %.1f%% after\n\n",
		c->m, c->m == 1 ? "" : "s", c->p, c->p == 1 ? "" : "s",
		100.0 * (exp(res->rms0_log) - 1.0),
		100.0 * (exp(res->rms_log) - 1.0));
	/* the names' column as wide as the longest (a framework's
	   NAME@VERSION production_efficiency), within 36 to 50 */
	for (size_t k = 0; k < c->p; k++) {
		size_t n = strlen(c->param[k].name);

		if ((int)n > width)
			width = n < 50 ? (int)n : 50;
	}
	fprintf(out, "%-*s %9s %9s %19s %5s\n", width, "parameter", "prior",
		"fitted", "80% range", "rows");
	for (size_t k = 0; k < c->p; k++) {
		const struct cal_param *prm = &c->param[k];
		char name[54], a[24], b[24], lo[24], hi[24], range[52];

		text_escape(prm->name, name, (size_t)width + 1);
		snprintf(range, sizeof(range), "%s - %s",
			 value_text(prm, prm->lo, lo, sizeof(lo)),
			 value_text(prm, prm->hi, hi, sizeof(hi)));
		fprintf(out, "%-*s %9s %9s %19s %5d%s", width, name,
			value_text(prm, prm->prior, a, sizeof(a)),
			value_text(prm, prm->value, b, sizeof(b)), range,
			prm->rows,
			cal_determined(prm) ? "" : "  (not determined)");
		if (fabs(prm->u) > CAL_CONFLICT_U)
			fprintf(out, "  (%.1f prior widths away)", fabs(prm->u));
		fputc('\n', out);
	}
	fprintf(out, "\n%-20s %-14s %-24s %10s %8s %8s %8s\n", "measurement",
		"gpu", "metric", "measured", "before", "after", "left out");
	for (size_t i = 0; i < c->m; i++) {
		const struct measurement *m = c->rows[i].m;
		const char *base = strrchr(m->file, '/');
		char at[300], where[21], metric[25], e0[16], e1[16], e2[16];

		snprintf(at, sizeof(at), "%s:%d", base ? base + 1 : m->file,
			 m->line);
		text_escape(at, where, sizeof(where));
		text_escape(m->metric, metric, sizeof(metric));
		fprintf(out, "%-20s %-14.14s %-24s %10.4g %8s %8s %8s\n", where,
			c->rows[i].gpu->name, metric, m->measured,
			pct(res->pred0[i], m->measured, e0, sizeof(e0)),
			pct(res->pred[i], m->measured, e1, sizeof(e1)),
			pct(res->loo[i], m->measured, e2, sizeof(e2)));
	}
	for (size_t k = 0; k < c->p; k++)
		if (fabs(c->param[k].u) > CAL_CONFLICT_U) {
			fprintf(out, "\nA parameter more than %.0f prior widths "
				     "from its prior says that the measurements "
				     "and\nthe model disagree: check the "
				     "measurements and their workloads, or a "
				     "mechanism\nthe parameters do not hold "
				     "(specs/calibration.md).\n",
				CAL_CONFLICT_U);
			break;
		}
	if (j->bands->nband > 0) {
		fprintf(out, "\n%-16s %5s %17s  %s\n", "interval", "rows",
			"80% of a new one", "on");
		for (int k = 0; k < j->bands->nband; k++) {
			const struct profile_band *b = &j->bands->band[k];
			char on[600], shown[44];

			snprintf(on, sizeof(on), "%s; %s", b->devices,
				 b->stacks);
			text_escape(on, shown, sizeof(shown));
			fprintf(out, "%-16s %5d %7.1f%% %+7.1f%%  %s\n", b->cls,
				b->rows,
				100.0 * (exp(-CAL_LEVEL_Z * b->sigma_log) - 1.0),
				100.0 * (exp(CAL_LEVEL_Z * b->sigma_log) - 1.0),
				shown);
		}
	}
	fprintf(out, "\nErrors are predicted / measured - 1.  'left out' "
		     "predicts each measurement from\nthe others "
		     "(linearized; '-' where it alone determines a "
		     "parameter).  A plan with\n--profile gives the 80%% "
		     "intervals above to a class it measured.\n"
		     "%d iterations, %d plans.\n",
		res->iterations, res->evaluations);
	return 0;
}

int cal_write_json(FILE *out, const void *arg, const char **why)
{
	const struct job *j = arg;
	const struct cal_ctx *c = j->c;
	const struct cal_result *res = j->res;
	cJSON *o = cJSON_CreateObject(), *ps, *rs;

	if (!o) {
		*why = "out of memory";
		return -1;
	}
	cJSON_AddNumberToObject(o, "measurements", (double)c->m);
	cJSON_AddNumberToObject(o, "rms_log_before", res->rms0_log);
	cJSON_AddNumberToObject(o, "rms_log_after", res->rms_log);
	cJSON_AddNumberToObject(o, "iterations", res->iterations);
	ps = cJSON_AddArrayToObject(o, "parameters");
	for (size_t k = 0; ps && k < c->p; k++) {
		const struct cal_param *prm = &c->param[k];
		cJSON *q = cJSON_CreateObject(), *r;

		if (!q || !cJSON_AddItemToArray(ps, q))
			break;
		cJSON_AddStringToObject(q, "name", prm->name);
		cJSON_AddNumberToObject(q, "prior", prm->prior);
		cJSON_AddNumberToObject(q, "value", prm->value);
		r = cJSON_AddArrayToObject(q, "range");
		if (r) {
			cJSON_AddItemToArray(r, cJSON_CreateNumber(prm->lo));
			cJSON_AddItemToArray(r, cJSON_CreateNumber(prm->hi));
		}
		cJSON_AddNumberToObject(q, "rows", prm->rows);
		cJSON_AddBoolToObject(q, "determined", cal_determined(prm));
		cJSON_AddNumberToObject(q, "prior_widths", prm->u);
	}
	{
		cJSON *bs = cJSON_AddArrayToObject(o, "intervals");

		for (int k = 0; bs && k < j->bands->nband; k++) {
			const struct profile_band *b = &j->bands->band[k];
			cJSON *q = cJSON_CreateObject();

			if (!q || !cJSON_AddItemToArray(bs, q))
				break;
			cJSON_AddStringToObject(q, "class", b->cls);
			cJSON_AddNumberToObject(q, "rows", b->rows);
			cJSON_AddNumberToObject(q, "sigma_log", b->sigma_log);
			cJSON_AddStringToObject(q, "devices", b->devices);
			cJSON_AddStringToObject(q, "stacks", b->stacks);
		}
	}
	rs = cJSON_AddArrayToObject(o, "rows");
	for (size_t i = 0; rs && i < c->m; i++) {
		const struct measurement *m = c->rows[i].m;
		cJSON *q = cJSON_CreateObject();

		if (!q || !cJSON_AddItemToArray(rs, q))
			break;
		cJSON_AddStringToObject(q, "file", m->file);
		cJSON_AddNumberToObject(q, "line", m->line);
		cJSON_AddStringToObject(q, "command",
					measure_command_name(m->command));
		cJSON_AddStringToObject(q, "gpu", c->rows[i].gpu->name);
		cJSON_AddStringToObject(q, "metric", m->metric);
		cJSON_AddNumberToObject(q, "measured", m->measured);
		cJSON_AddNumberToObject(q, "predicted_before", res->pred0[i]);
		cJSON_AddNumberToObject(q, "predicted_after", res->pred[i]);
		if (isfinite(res->loo[i]))
			cJSON_AddNumberToObject(q, "predicted_left_out",
						res->loo[i]);
		else
			cJSON_AddNullToObject(q, "predicted_left_out");
	}
	return cli_json_print(out, o, why);
}

int cal_write_csv(FILE *out, const void *arg, const char **why)
{
	const struct job *j = arg;
	const struct cal_ctx *c = j->c;
	const struct cal_result *res = j->res;

	(void)why;
	fputs("file,line,command,gpu,metric,measured,predicted_before,"
	      "predicted_after,predicted_left_out\n", out);
	for (size_t i = 0; i < c->m; i++) {
		const struct measurement *m = c->rows[i].m;

		/* names are checked text; a file name may hold a comma */
		fprintf(out, "\"%s\",%d,%s,%s,%s,%.17g,%.17g,%.17g,", m->file,
			m->line, measure_command_name(m->command),
			c->rows[i].gpu->name, m->metric, m->measured,
			res->pred0[i], res->pred[i]);
		if (isfinite(res->loo[i]))
			fprintf(out, "%.17g", res->loo[i]);
		fputc('\n', out);
	}
	return 0;
}

/* The profile: the determined parameters, with comments saying what each
   is, its prior and its range. */
int cal_write_profile(struct cli_ctx *ctx, const struct cal_ctx *c,
			 const struct cal_result *res,
			 const struct profile *bands, struct outfile *o)
{
	struct profile *p = calloc(1, sizeof(*p));
	struct diag err;
	char comment[4096], stamp[64];
	size_t at = 0;
	time_t now = time(NULL);
	struct tm tm;
	int rc;

	if (!p) {
		outfile_abort(o);
		cli_error("out of memory");
		return EXIT_INTERNAL;
	}
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(p->created, sizeof(p->created), "%s", stamp);
	for (int i = 0; i < ctx->nfiles; i++) {
		size_t n = strlen(p->from);

		snprintf(p->from + n, sizeof(p->from) - n, "%s%s",
			 i ? " " : "", ctx->files[i]);
	}
	p->measurements = (int)c->m;
	memcpy(p->band, bands->band, sizeof(p->band));
	p->nband = bands->nband;
	/* the left-out errors' spread */
	{
		double s = 0.0;
		size_t n = 0;

		for (size_t i = 0; i < c->m; i++) {
			double e = log(res->loo[i] / c->rows[i].m->measured);

			if (!isfinite(e))
				continue;
			s += e * e;
			n++;
		}
		/* none left out: the fit's own, at least */
		p->sigma_log = n ? sqrt(s / (double)n) : res->rms_log;
	}
	at += (size_t)snprintf(comment + at, sizeof(comment) - at,
			       "# capplan calibration profile, written by "
			       "'capplan calibrate' on %s\n"
			       "# from %s (%zu measurement%s); read it with "
			       "--profile FILE (specs/calibration.md).\n"
			       "# A device's values replace its catalog "
			       "row's; an engine's apply wherever that\n"
			       "# engine and version run, under the keys a "
			       "workload gives.  sigma_log is the rms\n"
			       "# of ln(measured / predicted) with each "
			       "measurement left out of the fit.\n",
			       stamp, p->from, c->m, c->m == 1 ? "" : "s");
	for (int d = 0; d < c->ndev; d++) {
		struct profile_device *pd = &p->dev[p->ndev++];
		double *to[P_DEVICE] = { &pd->matmul_eff, &pd->fp8_matmul_eff,
					 &pd->mem_eff, &pd->intra_comm_eff,
					 &pd->inter_comm_eff };

		snprintf(pd->gpu, sizeof(pd->gpu), "%s", c->dev[d]->name);
		for (int k = 0; k < P_DEVICE; k++) {
			const struct cal_param *q;

			if (c->dev_param[d][k] < 0)
				continue;
			q = &c->param[c->dev_param[d][k]];
			*to[k] = cal_determined(q) ? q->value : 0.0;
			at += (size_t)snprintf(
				comment + at, sizeof(comment) - at,
				"# %s %.3g (before %.3g, 80%% %.3g-%.3g)%s\n",
				q->name, q->value, q->prior, q->lo, q->hi,
				cal_determined(q) ? "" : " not determined");
			if (at >= sizeof(comment))
				at = sizeof(comment) - 1;
		}
	}
	for (int e = 0; e < c->neng; e++) {
		const struct cal_param *k =
			&c->param[c->eng_base + P_ENGINE * e];
		struct profile_engine *pe;

		/* a stack without a version (a --stacks table without the
		   generic row) cannot be named in a profile */
		if (!c->eng[e].version[0])
			continue;
		pe = &p->eng[p->neng++];

		snprintf(pe->name, sizeof(pe->name), "%s", c->eng[e].name);
		snprintf(pe->version, sizeof(pe->version), "%s",
			 c->eng[e].version);
		snprintf(pe->devices, sizeof(pe->devices), "%s",
			 c->eng[e].devices);
		pe->has_kernel = cal_determined(&k[P_KERNEL]);
		pe->kernel_overhead_s = k[P_KERNEL].value;
		pe->has_request = cal_determined(&k[P_REQUEST]);
		pe->host_request_s = k[P_REQUEST].value;
		pe->has_step = cal_determined(&k[P_STEP]);
		pe->host_step_s = k[P_STEP].value;
		for (int q = 0; q < P_ENGINE; q++) {
			at += (size_t)snprintf(
				comment + at, sizeof(comment) - at,
				"# %s: %.3g s (stack %.3g s, 80%% %.3g-%.3g s)%s\n",
				k[q].name, k[q].value, k[q].prior, k[q].lo,
				k[q].hi,
				cal_determined(&k[q]) ? "" : " not determined");
			if (at >= sizeof(comment))
				at = sizeof(comment) - 1;
		}
	}
	/* a per-sample serving stack's host times join its engine's
	   section */
	for (int e = 0; e < c->nsmp; e++) {
		struct profile_engine *pe = NULL;

		if (!c->smp[e].version[0])
			continue;
		for (int k = 0; k < p->neng && !pe; k++)
			if (!p->eng[k].framework &&
			    strcmp(p->eng[k].name, c->smp[e].name) == 0 &&
			    strcmp(p->eng[k].version, c->smp[e].version) == 0)
				pe = &p->eng[k];
		if (!pe) {
			if (p->neng == PROFILE_STACKS_MAX)
				continue;
			pe = &p->eng[p->neng++];
			memset(pe, 0, sizeof(*pe));
			snprintf(pe->name, sizeof(pe->name), "%s",
				 c->smp[e].name);
			snprintf(pe->version, sizeof(pe->version), "%s",
				 c->smp[e].version);
		}
		for (const char *d = c->smp[e].devices; *d;) {
			size_t n = strcspn(d, ",");
			char gpu[64];

			snprintf(gpu, sizeof(gpu), "%.*s", (int)n, d);
			text_list_add(pe->devices, sizeof(pe->devices), gpu);
			d += n + (d[n] == ',');
		}
		for (int q = 0; q < P_SAMPLE; q++) {
			const struct cal_param *prm;

			if (c->smp_param[e][q] < 0)
				continue;
			prm = &c->param[c->smp_param[e][q]];
			if (q == P_FRAMEWORK_OH) {
				pe->has_framework_oh = cal_determined(prm);
				pe->framework_overhead_s = prm->value;
			} else {
				pe->has_launch_oh = cal_determined(prm);
				pe->launch_overhead_s = prm->value;
			}
			at += (size_t)snprintf(
				comment + at, sizeof(comment) - at,
				"# %s: %.3g s (before %.3g s, 80%% %.3g-%.3g "
				"s)%s\n",
				prm->name, prm->value, prm->prior, prm->lo,
				prm->hi,
				cal_determined(prm) ? "" : " not determined");
			if (at >= sizeof(comment))
				at = sizeof(comment) - 1;
		}
	}
	for (int f = 0; f < c->nfw && p->neng < PROFILE_STACKS_MAX; f++) {
		const struct cal_param *q = &c->param[c->fw_base + f];
		struct profile_engine *pe;

		if (!c->fw[f].version[0])
			continue;
		pe = &p->eng[p->neng++];
		memset(pe, 0, sizeof(*pe));
		pe->framework = true;
		snprintf(pe->name, sizeof(pe->name), "%s", c->fw[f].name);
		snprintf(pe->version, sizeof(pe->version), "%s",
			 c->fw[f].version);
		snprintf(pe->devices, sizeof(pe->devices), "%s",
			 c->fw[f].devices);
		pe->has_production = cal_determined(q);
		pe->production_efficiency = q->value;
		at += (size_t)snprintf(
			comment + at, sizeof(comment) - at,
			"# %s %.3g (before %.3g, 80%% %.3g-%.3g)%s\n", q->name,
			q->value, q->prior, q->lo, q->hi,
			cal_determined(q) ? "" : " not determined");
		if (at >= sizeof(comment))
			at = sizeof(comment) - 1;
	}
	diag_clear(&err);
	rc = profile_write(o->f, p, comment);
	free(p);
	if (rc != 0) {
		outfile_abort(o);
		cli_error("cannot write '%s'", ctx->output_path);
		return EXIT_IO;
	}
	if (outfile_commit(o, &err) != 0) {
		diag_print(stderr, &err);
		return EXIT_IO;
	}
	return EXIT_OK;
}

/* ------------------------------------------------------------------ */
