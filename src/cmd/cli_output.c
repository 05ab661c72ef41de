/* cli_output.c - a command's result to -o FILE or stdout, and the price
   and interval fields of its records; see cli_output.h. */
#include "cli.h"
#include "interval.h"
#include "outfile.h"

#include <math.h>

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

	return report_write_wide(out, job->r, job->format, job->wide, why);
}

void cli_rec_intervals(struct record *rec, const char *gpu,
		       const struct cli_estimate *est, int n)
{
	bool seen = true;

	for (int i = 0; i < n; i++)
		seen = seen && interval_validated_on(
				       (enum interval_class)est[i].cls, gpu);

	rec_heading(rec, seen ? "80% interval (from the validation errors)" :
				"80% interval (from the validation errors, "
				"widened: device not validated)");
	rec_num(rec, "interval", "level", "level", INTERVAL_LEVEL,
		UNIT_KIND_COUNT, RF_MACHINE);
	rec_bool(rec, "interval", "validated_device", "device validated",
		 seen, RF_MACHINE);
	cli_rec_interval_pairs(rec, gpu, est, n, 0);
}

void cli_rec_interval_pairs(struct record *rec, const char *gpu,
			    const struct cli_estimate *est, int n, int flags)
{
	for (int i = 0; i < n; i++) {
		double b[2] = { (double)NAN, (double)NAN };

		if (isfinite(est[i].value))
			interval_of((enum interval_class)est[i].cls, gpu,
				    est[i].value, est[i].time_like, b);
		cli_rec_interval_range(rec, &est[i], b, flags);
	}
}

void cli_rec_interval_range(struct record *rec,
			    const struct cli_estimate *est,
			    const double range[2], int flags)
{
	if (!isfinite(est->value))
		rec_null(rec, "interval", est->key, est->label,
			 est->flags | flags);
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

int cli_emit(const struct cli_ctx *ctx, const struct report *r)
{
	struct report_job job = { r, ctx->format, ctx->wide };

	return cli_write(ctx, write_report, &job);
}
