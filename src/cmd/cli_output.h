/*
 * cli_output.h - the output edge of the command line: a command's result
 * written to -o FILE or standard output, and the fields its records share
 * (the price, the 80% intervals).
 */
#ifndef CAPPLAN_CLI_OUTPUT_H
#define CAPPLAN_CLI_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "cluster.h"
#include "profile.h"
#include "report.h"
#include "units.h"
#include "workload.h"

struct cli_ctx;
struct outfile;

/*
 * A writer of one command's output: 0, or -1 with a message in '*why'
 * when the result cannot be written (not a finite number, no memory).
 * Write errors are found from the stream.
 */
typedef int (*cli_writer)(FILE *out, const void *arg, const char **why);

/*
 * Run 'write' on -o FILE (outfile.h: a temporary file beside a regular
 * file, renamed into place only when everything was written; written
 * through what is not a regular file) or on stdout (no -o, or -o -).
 * Returns EXIT_OK, EXIT_IO or EXIT_INTERNAL, with a message on stderr.
 */
int cli_write(const struct cli_ctx *ctx, cli_writer write, const void *arg);

/*
 * cli_write in two halves, for a command that works between opening its
 * output and writing it (report draws its charts): cli_output_open opens
 * -o FILE or stdout into 'o' (EXIT_OK, or EXIT_IO with a message: a
 * folder that cannot be written fails before any work);
 * cli_output_finish runs 'write' on it and puts it in place (or, when
 * 'write' fails, removes the temporary file).  Its return is
 * cli_write's.
 */
int cli_output_open(const struct cli_ctx *ctx, struct outfile *o);
int cli_output_finish(struct outfile *o, cli_writer write, const void *arg);

/*
 * The price a plan's costs use and its basis, the fields
 * price_usd_per_gpu_hour and price_basis of 'rec' (specs/output.md);
 * 'cl' NULL: both null.  'flags' as for rec_num.
 */
void cli_rec_price(struct record *rec, const struct cluster *cl, int flags);

/* One estimate's interval: its class (enum interval_class), key, value,
   whether it is a time. */
struct cli_estimate {
	int cls;
	const char *key;
	const char *label;
	double value;
	bool time_like;
	enum unit_kind unit;
	int flags;          /* RF_PERCENT for fractions */
	bool has_range;     /* 'range' replaces the validation band's (a
			       rate derived from two classes' bands) */
	double range[2];
};

/*
 * Where a plan's intervals come from: the validation errors (interval.h),
 * or, for a class of estimate that a --profile measured on the plan's
 * device and stack, the calibration's own spread (profile.h's [interval
 * CLASS]; specs/calibration.md).
 */
struct cli_basis {
	const struct profile *profile; /* NULL: none */
	const char *gpu;               /* the plan's device */
	char framework[80];            /* the workload's stacks, */
	char engine[80];               /* NAME@VERSION */
};

/* Mark a production figure (time to train, GPU-hours, cost) of a
   training class: its interval widened by the production efficiency's
   spread (interval_of_production). */
void cli_estimate_production(struct cli_estimate *e, const char *gpu);

/* The basis of a plan of 'wl' on 'gpu' (its stacks applied). */
void cli_basis_init(struct cli_basis *b, const struct profile *profile,
		    const char *gpu, const struct workload *wl);

/* The profile's interval of class 'cls' for the basis, or NULL when the
   validation errors give it. */
const struct profile_band *cli_basis_band(const struct cli_basis *b,
					  int cls);

/* The profile's band of production figures (GPU-hours, time to train,
   cost) for the basis's device and framework, or NULL: then a
   production figure takes the class's band combined with the public
   production spread. */
const struct profile_band *cli_basis_production_band(
	const struct cli_basis *b);

/*
 * The "interval" group of 'rec' (specs/output.md): "level" (0.8),
 * "validated_device" (whether the device is among the class's validation
 * devices of every estimate's class; the interval is wider where it is
 * not), "calibrated" (whether a profile gave any of them) and an [lo, hi]
 * pair for each of the 'n' estimates (null where the value is not
 * finite), under a table heading.  interval.h gives the method.
 */
void cli_rec_intervals(struct record *rec, const struct cli_basis *b,
		       const struct cli_estimate *est, int n);

/* The [lo, hi] pairs of cli_rec_intervals alone, in the "interval" group,
   each with est[i].flags | 'flags' (RF_MACHINE for the rows of a wide
   table): for compare, size and sweep. */
void cli_rec_interval_pairs(struct record *rec, const struct cli_basis *b,
			    const struct cli_estimate *est, int n, int flags);

/* The pair of 'est' in the "interval" group as 'range' (made elsewhere,
   not from its class), with est->flags | 'flags'; null when est->value is
   not finite. */
void cli_rec_interval_range(struct record *rec,
			    const struct cli_estimate *est,
			    const double range[2], int flags);

/* The table note of commands whose intervals are in the machine formats
   only. */
#define CLI_INTERVAL_NOTE \
	"80% intervals of these figures: --format json or csv (interval.*)"

/* The stacks a plan assumes (stack.h): 'engine' and 'engine_version'
   (with 'engine'), 'framework' and 'framework_version' (with 'framework')
   in CSV and JSON, each one line of the table ("vllm 0.11.0";
   "generic (capplan's defaults)"); 'flags' are added to every field. */
void cli_rec_stacks(struct record *rec, const struct workload *wl,
		    bool engine, bool framework, int flags);

/* A stack as people read it: "vllm 0.11.0", or "generic (capplan's
   defaults)" for the generic row or none.  Returns 'buf'. */
const char *cli_stack_label(const char *name, const char *version,
			    char *buf, size_t size);

/* A note of 'rep' naming the stacks its rows assume. */
void cli_note_stacks(struct report *rep, const struct workload *wl,
		     bool engine, bool framework);

/* A cli_writer's end for a JSON document of its own: print 'doc'
   (freed here; NULL: out of memory) and a newline.  0, or -1 with 'why'. */
struct cJSON;
int cli_json_print(FILE *out, struct cJSON *doc, const char **why);

/* cli_write of a report in the --format of 'ctx'. */
int cli_emit(const struct cli_ctx *ctx, const struct report *r);

#endif
