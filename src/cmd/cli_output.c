/* cli_output.c - a command's result to -o FILE or stdout, and the price
   and interval fields of its records; see cli_output.h. */
#include <cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "interval.h"
#include "outfile.h"
#include "text.h"

int cli_output_open(const struct cli_ctx *ctx, struct outfile *o)
{
	struct diag err;

	diag_clear(&err);
	/* no -o, or -o -: standard output (outfile.h has the rules) */
	if (outfile_open(o, ctx->output_path ? ctx->output_path : "-",
			 &err) != 0) {
		diag_print(stderr, &err);
		return EXIT_IO;
	}
	return EXIT_OK;
}

int cli_output_finish(struct outfile *o, cli_writer write, const void *arg)
{
	const char *why = NULL;
	struct diag err;

	diag_clear(&err);
	if (write(o->f, arg, &why) != 0) {
		outfile_abort(o);
		cli_error("%s", why ? why : "the result cannot be written");
		return EXIT_INTERNAL;
	}
	if (outfile_commit(o, &err) != 0) {
		diag_print(stderr, &err);
		return EXIT_IO;
	}
	return EXIT_OK;
}

int cli_write(const struct cli_ctx *ctx, cli_writer write, const void *arg)
{
	struct outfile o;
	int rc = cli_output_open(ctx, &o);

	return rc != EXIT_OK ? rc : cli_output_finish(&o, write, arg);
}

struct report_job {
	const struct report *r;
	enum report_format format;
	bool wide;
};

static int write_report(FILE *out, const void *arg, const char **why)
{
	const struct report_job *job = arg;

	/* the terminal's width (COLUMNS, else the terminal's), 100 for a
	   pipe or a file */
	return report_write_width(out, job->r, job->format, job->wide,
				  report_table_width(out), why);
}

void cli_estimate_production(struct cli_estimate *e, const char *gpu)
{
	if (!isfinite(e->value))
		return;
	interval_of_production((enum interval_class)e->cls, gpu, e->value,
			       e->range);
	e->has_range = true;
}

void cli_basis_init(struct cli_basis *b, const struct profile *profile,
		    const char *gpu, const struct workload *wl)
{
	const struct training_spec *t = &wl->training;
	const struct inference_spec *s = &wl->inference;

	b->profile = profile;
	b->gpu = gpu;
	snprintf(b->framework, sizeof(b->framework), "%s@%s",
		 t->framework[0] ? t->framework : STACK_GENERIC,
		 t->framework_version);
	snprintf(b->engine, sizeof(b->engine), "%s@%s",
		 s->engine[0] ? s->engine : STACK_GENERIC, s->engine_version);
}

const struct profile_band *cli_basis_band(const struct cli_basis *b,
					  int cls)
{
	const struct profile_band *band;
	bool training = cls == INTERVAL_TRAINING || cls == INTERVAL_PER_SAMPLE;

	if (!b || !b->profile)
		return NULL;
	band = profile_band(b->profile,
			    interval_class_name((enum interval_class)cls));
	if (!band || !(band->sigma_log > 0.0) ||
	    !text_list_has(band->devices, b->gpu) ||
	    !text_list_has(band->stacks, training ? b->framework : b->engine))
		return NULL;
	return band;
}

const struct profile_band *cli_basis_production_band(
	const struct cli_basis *b)
{
	const struct profile_band *band;

	if (!b || !b->profile)
		return NULL;
	band = profile_band(b->profile, PROFILE_PRODUCTION_BAND);
	if (!band || !(band->sigma_log > 0.0) ||
	    !text_list_has(band->devices, b->gpu) ||
	    !text_list_has(band->stacks, b->framework))
		return NULL;
	return band;
}

void cli_rec_intervals(struct record *rec, const struct cli_basis *b,
		       const struct cli_estimate *est, int n)
{
	bool seen = true, calibrated = false, all = n > 0;

	for (int i = 0; i < n; i++) {
		bool cal = cli_basis_band(b, est[i].cls) != NULL;

		calibrated |= cal;
		all &= cal;
		seen = seen && (cal || interval_validated_on(
					       (enum interval_class)est[i].cls,
					       b->gpu));
	}
	rec_heading(rec, all ? "80% interval (from the calibration profile)" :
			 calibrated ?
			       "80% interval (the profile where it measured "
			       "the class, else validation)" :
			 seen ? "80% interval (from the validation errors)" :
				"80% interval (from the validation errors, "
				"widened: device not validated)");
	rec_num(rec, "interval", "level", "level", INTERVAL_LEVEL,
		UNIT_KIND_COUNT, RF_MACHINE);
	rec_bool(rec, "interval", "validated_device", "device validated",
		 seen, RF_MACHINE);
	rec_bool(rec, "interval", "calibrated", "calibrated", calibrated,
		 RF_MACHINE);
	cli_rec_interval_pairs(rec, b, est, n, 0);
}

void cli_rec_interval_pairs(struct record *rec, const struct cli_basis *b,
			    const struct cli_estimate *est, int n, int flags)
{
	for (int i = 0; i < n; i++) {
		double r[2] = { (double)NAN, (double)NAN };
		const struct profile_band *band = cli_basis_band(b, est[i].cls);

		/* a training class's estimate with a range of its own is a
		   production figure (cli_estimate_production): a profile's
		   spread widened by the production efficiency's */
		bool production = est[i].has_range &&
				  (est[i].cls == INTERVAL_TRAINING ||
				   est[i].cls == INTERVAL_PER_SAMPLE);

		const struct profile_band *pband =
			production ? cli_basis_production_band(b) : NULL;

		if (isfinite(est[i].value) && pband) {
			/* the stack's own production runs, two or more */
			interval_of_sigma(est[i].value, pband->sigma_log, r);
		} else if (isfinite(est[i].value) && band) {
			interval_of_sigma(
				est[i].value,
				production ?
					hypot(band->sigma_log,
					      interval_production_sigma_log()) :
					band->sigma_log,
				r);
		} else if (isfinite(est[i].value) && est[i].has_range) {
			r[0] = est[i].range[0];
			r[1] = est[i].range[1];
		} else if (isfinite(est[i].value)) {
			interval_of((enum interval_class)est[i].cls, b->gpu,
				    est[i].value, est[i].time_like, r);
		}
		cli_rec_interval_range(rec, &est[i], r, flags);
	}
}

void cli_rec_interval_range(struct record *rec,
			    const struct cli_estimate *est,
			    const double range[2], int flags)
{
	if (!isfinite(est->value))
		rec_null(rec, "interval", est->key, est->label,
			 est->flags | flags | RF_PAIR_NULL);
	else
		rec_pair(rec, "interval", est->key, est->label, range[0],
			 range[1], est->unit, est->flags | flags);
}

void cli_rec_price(struct record *rec, const struct cluster *cl, int flags)
{
	static const char *const key = "price_usd_per_gpu_hour";
	static const char *const label = "price per GPU-hour";

	if (!cl) {
		rec_null(rec, NULL, key, label, flags);
		rec_null(rec, NULL, "price_basis", "price basis", flags);
		return;
	}
	rec_num(rec, NULL, key, label, cl->price_usd_per_gpu_hour, UNIT_MONEY,
		flags);
	rec_str(rec, NULL, "price_basis", "price basis", cl->price_basis,
		flags);
}

const char *cli_stack_label(const char *name, const char *version,
			    char *buf, size_t size)
{
	if (!name[0] || strcmp(name, STACK_GENERIC) == 0)
		snprintf(buf, size, "%s (capplan's defaults)", STACK_GENERIC);
	else
		snprintf(buf, size, "%s%s%s", name, version[0] ? " " : "",
			 version);
	return buf;
}

static void rec_stack(struct record *rec, const char *key,
		      const char *vkey, const char *label, const char *name,
		      const char *version, int flags)
{
	char text[REPORT_STR_MAX];

	rec_str(rec, NULL, key, label, name[0] ? name : STACK_GENERIC,
		flags | RF_MACHINE);
	rec_str(rec, NULL, vkey, label, version, flags | RF_MACHINE);
	if (!(flags & RF_MACHINE))
		rec_str(rec, NULL, key, label,
			cli_stack_label(name, version, text, sizeof(text)),
			flags | RF_TABLE);
}

void cli_rec_stacks(struct record *rec, const struct workload *wl,
		    bool engine, bool framework, int flags)
{
	if (engine)
		rec_stack(rec, "engine", "engine_version", "serving engine",
			  wl->inference.engine, wl->inference.engine_version,
			  flags);
	if (framework)
		rec_stack(rec, "framework", "framework_version",
			  "training framework", wl->training.framework,
			  wl->training.framework_version, flags);
}

void cli_note_stacks(struct report *rep, const struct workload *wl,
		     bool engine, bool framework)
{
	char e[REPORT_STR_MAX], f[REPORT_STR_MAX];

	cli_stack_label(wl->inference.engine, wl->inference.engine_version, e,
		    sizeof(e));
	cli_stack_label(wl->training.framework, wl->training.framework_version,
		    f, sizeof(f));
	if (engine && framework)
		report_note(rep, "stacks: engine %s, framework %s ('capplan "
				 "stacks')", e, f);
	else if (engine || framework)
		report_note(rep, "stack: %s %s ('capplan stacks')",
			    engine ? "engine" : "framework",
			    engine ? e : f);
}

int cli_json_print(FILE *out, struct cJSON *doc, const char **why)
{
	char *text = doc ? cJSON_Print(doc) : NULL;

	cJSON_Delete(doc);
	if (!text) {
		*why = "out of memory";
		return -1;
	}
	fputs(text, out);
	fputc('\n', out);
	free(text);
	return 0;
}

int cli_emit(const struct cli_ctx *ctx, const struct report *r)
{
	struct report_job job = { r, ctx->format, ctx->wide };

	return cli_write(ctx, write_report, &job);
}
