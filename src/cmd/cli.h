/*
 * cli.h - the command line: options shared by every subcommand, exit
 * statuses, and the edges that read inputs and write outputs.
 */
#ifndef CAPPLAN_CLI_H
#define CAPPLAN_CLI_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

#include "catalog.h"
#include "infer_plan.h"
#include "plan.h"
#include "cli_output.h"
#include "cluster.h"
#include "plot.h"
#include "profile.h"
#include "progress.h"
#include "report.h"
#include "stack.h"
#include "workload.h"

/* Exit statuses, the same for every command (man page, EXIT STATUS). */
enum cli_exit {
	EXIT_OK = 0,          /* success */
	EXIT_INFEASIBLE = 1,  /* no feasible plan: nothing fits or meets the SLO */
	EXIT_USAGE = 2,       /* bad command line */
	EXIT_INPUT = 3,       /* bad catalog or workload (file:line:col) */
	EXIT_IO = 4,          /* cannot read or write a file */
	EXIT_INTERNAL = 5,    /* out of memory or a model defect */
};

#define CLI_MAX_SETS 64
#define CLI_MAX_GPUS 256

struct cli_ctx {
	const char *cmd;
	const char *catalog_path;   /* NULL: the embedded catalog */
	const char *stacks_path;    /* --stacks; NULL: the embedded table */
	const char *profile_path;   /* --profile; NULL: none */
	struct profile *profile;    /* loaded from it; owned */
	const struct profile_engine *profile_engine; /* the engine entry
						 the workload took */
	const struct profile_engine *profile_framework; /* its training
							   framework's */
	const char *files[CLI_MAX_SETS]; /* calibrate: MEASUREMENTS... */
	int nfiles;
	const char *gpu_arg;        /* --gpu, maybe a comma-separated list */
	const char *gpus_arg;       /* --gpus */
	const char *sets[CLI_MAX_SETS];
	int nsets;
	enum report_format format;
	const char *output_path;    /* -o; NULL: stdout */
	const char *workload_path;  /* the positional argument; NULL: none
				       (only with --model) */
	const char *model_path;     /* --model FILE.json; NULL: not given */
	const char *varies[CLI_MAX_SETS]; /* --vary KEY=RANGE (sweep) */
	int nvaries;
	const char *deadline_arg;   /* --deadline, a duration */
	const char *budget_arg;     /* --budget, money */
	const char *power_cap_arg;  /* --power-cap, facility power */
	const char *serve_for_arg;  /* size --serve-for, a duration */
	const char *sort_arg;       /* --sort KEY */
	int top;                    /* --top K; 0: not given */
	bool search;                /* --search: list the best configurations */
	const char *kind_arg;       /* plot: the chart KIND before WORKLOAD */
	const char *plot_size_arg;  /* plot --size WxH */
	bool keep_script;           /* plot --keep-script */
	const char *plot_dir;       /* compare, size --plot DIR; NULL: none */
	bool plot_png;              /* --plot-format png: DIR/KIND.png */
	const char *plot_format_arg; /* --plot-format as given; NULL: none */
	bool wide;                  /* --wide: every column of a table */
	bool mixed;                 /* size --mixed: a fleet of several
				       devices for a serving load */
	struct catalog *cat;
	struct stack_table stacks;  /* loaded by cli_load_stacks */
	bool stacks_loaded;
	struct workload wl;
	const struct gpu_spec *gpus[CLI_MAX_GPUS]; /* resolved --gpu list */
	int ngpus;
	struct sim_request *trace;  /* inference.trace, read; owned */
	struct progress *progress;  /* the line of the work under way, for
				       the building blocks it calls (charts);
				       NULL: none */
	struct cli_plans *plans;    /* the workload's serving plan on each
				       device, kept (cli_infer_plan); owned */
};

/*
 * Write 'prefix' (as it is), then the formatted message with every control
 * character and byte that is not UTF-8 escaped (text_escape: values from
 * the command line or an input file are echoed in messages), then a
 * newline, to stderr.  'prefix' is e.g. "capplan: error: ", or a file name
 * and ": " (escaped too).  The message is one line: a newline in it is
 * escaped.
 */
void cli_message(const char *prefix, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * The serving plan of 'wl' on device 'g': where 'wl' is the command's
 * workload (ctx->wl, byte for byte), made by infer_plan_make_progress the
 * first time and kept by device (CLI_MAX_GPUS of them at most), so that
 * a later call copies it out without planning again (the table and the
 * charts of compare and report plan the workload on each device once;
 * issue 43).  Another workload (a chart's variant: another rate, a power
 * cap) is planned afresh and not kept.  Calls may run on threads at once
 * (one for a device that another thread is planning plans it apart).
 * Returns what infer_plan_make_progress returns, with 'err' as it set it.
 */
int cli_infer_plan(const struct cli_ctx *ctx, const struct workload *wl,
		   const struct gpu_spec *g, const struct progress_hook *hook,
		   struct infer_plan *p, struct diag *err);

/* cli_message with the prefix "capplan: error: ". */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * A usage error: cli_error of the message, then "see 'capplan CMD --help'"
 * ('cmd' NULL: "see 'capplan --help'").  Returns EXIT_USAGE.
 */
int cli_vusage(const char *cmd, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/* cli_vusage with the arguments themselves. */
int cli_usage(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Run capplan with 'argv'; returns an enum cli_exit status. */
int cli_main(int argc, char **argv);

/* Load the stack table (--stacks or embedded) unless it is loaded;
   prints the error.  Returns an enum cli_exit status. */
int cli_load_stacks(struct cli_ctx *ctx);

/*
 * --profile: the profile's notes for a plan on 'gpu' (NULL: the plans of
 * several devices) in 'rep': which of its parameters the plan uses, and a
 * warning when its engine values were fitted on other devices.
 */
void cli_note_profile(struct report *rep, const struct cli_ctx *ctx,
		      const char *gpu);

/*
 * Whether the workload only serves: a serving load (a rate, a closed loop,
 * a burst or a trace) and no training asked for (no tokens, or for a
 * per-sample model no samples, and no GPU count).  compare, size and
 * report then plan no training run (issue 40: a serving workload got a
 * 1.4T-token training plan from the defaults).
 */
bool cli_serving_only(const struct workload *wl);

/* Load the catalog (--catalog or embedded); prints the error. */
int cli_load_catalog(struct cli_ctx *ctx);

/*
 * Load the workload named on the command line, apply --gpus and --set,
 * validate; prints the error.  Returns an enum cli_exit status.
 */
int cli_load_workload(struct cli_ctx *ctx);

/* The name to put before a message about the input: the workload file,
   else the --model file. */
const char *cli_input_name(const struct cli_ctx *ctx);

/*
 * EXIT_OK for a transformer workload; otherwise print that 'what' (e.g.
 * "'capplan size'") covers transformers only, naming the workload's kind
 * and what to run instead, and return EXIT_USAGE.
 */
int cli_transformer_only(const struct cli_ctx *ctx, const char *what);

/* Resolve --gpu (a name or a comma list, at most CLI_MAX_GPUS devices; a
   device named twice, in any case, counts once, in the place it first
   has) or, with 'all_if_none', every catalog device, and check that the
   workload can price each of them (cluster_resolve: an owned GPU needs a
   capex; EXIT_INPUT when not).  Prints the error; returns an enum
   cli_exit status. */
int cli_resolve_gpus(struct cli_ctx *ctx, bool all_if_none);

/*
 * --plot DIR of compare and size: every chart kind that applies to the
 * workload, drawn for 'gpus' (the command's best rows, at most
 * CLI_PLOT_SET_GPUS of them) as DIR/KIND.svg; DIR is created when missing.
 * A kind with nothing to draw is skipped with a note.  Returns EXIT_OK, or
 * EXIT_IO (a chart not written, gnuplot missing) / EXIT_INTERNAL after
 * trying every kind.
 */
#define CLI_PLOT_SET_GPUS 8

/* compare and report weigh a mixed fleet (size --mixed) of their devices
   when they are at most this many (the mix measures every device on every
   bucket of lengths: over the whole catalog it takes seconds). */
#define CLI_MIX_GPUS_MAX 8

/*
 * The mixed fleet of ctx's devices (2 to CLI_MIX_GPUS_MAX) for its
 * serving load (a transformer's Poisson rate or trace, colocated, single
 * requests), planned as size --mixed plans it (cmd_size_mixed.c): when
 * its simulation meets the targets and it costs less than 'single_month'
 * (USD a month, the cheapest single-device fleet, 'single_gpu'), a
 * sentence naming its devices, its cost, the saving and its output
 * tokens/s per MW into 'buf'.  Returns 1 when written, 0 when the load is
 * not one the mix plans or no mix is cheaper, -1 out of memory (said).
 */
int cli_mix_summary(struct cli_ctx *ctx, double single_month,
		    const char *single_gpu, char *buf, size_t size);
/* Check (and create) the --plot folder before any work: EXIT_OK or
   EXIT_IO with a message. */
int cli_plot_prepare(const struct cli_ctx *ctx);
int cli_plot_set(struct cli_ctx *ctx, const struct gpu_spec *const *gpus,
		 int ngpus);

/* The devices of the charts: --gpu, else those of a standard set the
   catalog has, else its first devices.  Returns an enum cli_exit status. */
int cli_plot_devices(struct cli_ctx *ctx);

/* 'size --power-cap POWER' of a workload that only serves: per device,
   the largest load the budget serves within the targets
   (cmd_size_power.c).  Returns an enum cli_exit status. */
int size_power(struct cli_ctx *ctx, double budget_w);

/* Whether chart 'kind' applies to the workload, for the chart sets of
   --plot and the report: per-sample models have every chart but the
   roofline of the transformer's GEMMs; a workload that only serves has
   no training charts (scaling, cost-time, memory); the cache chart needs
   a load with a prefix cache (plot_cache_applies). */
bool cli_plot_kind_applies(const struct cli_ctx *ctx, enum plot_kind kind);

/*
 * Chart 'kind' of the workload on ctx->gpus, drawn by gnuplot in 'format'
 * at 'width_px' x 'height_px' into memory: '*chart' (to free) of
 * '*chart_len' bytes, for SVG the text from the <svg> element on
 * (NUL-terminated), for PNG the file.  The data, script and chart are
 * temporary files beside 'beside', removed before it returns.  Returns
 * EXIT_OK, EXIT_INFEASIBLE (no device gave a point; nothing printed),
 * EXIT_IO (gnuplot missing or failing, with a message) or EXIT_INTERNAL.
 */
int cli_plot_render(struct cli_ctx *ctx, enum plot_kind kind,
		    const char *beside, enum plot_format format, int width_px,
		    int height_px, char **chart, size_t *chart_len);

/* Threads for large searches: the online processors, at most 64. */
int cli_threads(void);

/*
 * Run fn(i, arg) for i in [0, n) on up to cli_threads() threads (each i
 * once; calls for different i must not share state).  Falls back to one
 * thread when threads cannot start.
 */
void cli_parallel_for(int n, void (*fn)(int i, void *arg), void *arg);

/* Commands (cmd_*.c). */
int cmd_train(struct cli_ctx *ctx);
int cmd_fit(struct cli_ctx *ctx);
int cmd_infer(struct cli_ctx *ctx);
int cmd_sweep(struct cli_ctx *ctx);
int cmd_compare(struct cli_ctx *ctx);
int cmd_size(struct cli_ctx *ctx);
int cmd_catalog(struct cli_ctx *ctx);
int cmd_stacks(struct cli_ctx *ctx);
int cmd_calibrate(struct cli_ctx *ctx);

/*
 * For calibrate: the plan of 'wl' on 'g' and its record as 'train' and
 * 'infer' print it (the same JSON fields), or -1 with the error; and the
 * keys the plan chose written into 'wl', so that the next plan times the
 * same configuration (train: its layout; infer: tp, batch and, under a
 * load, the replicas, with no latency target left to decide whether the
 * fleet is simulated).
 */
int cli_train_record(const struct workload *wl, const struct gpu_spec *g,
		     struct train_plan *p, struct record *rec,
		     struct diag *err);
int cli_train_fix(const struct train_plan *p, struct workload *wl,
		  struct diag *err);
int cli_infer_record(const struct workload *wl, const struct gpu_spec *g,
		     struct infer_plan *p, struct record *rec,
		     struct diag *err);
int cli_infer_fix(const struct infer_plan *p, struct workload *wl,
		  struct diag *err);
/* The same for a per-sample model's serving plan (tp and batch fixed). */
int cli_sample_record(const struct workload *wl, const struct gpu_spec *g,
		      struct sample_serve_plan *p, struct record *rec,
		      struct diag *err);
int cli_sample_fix(const struct sample_serve_plan *p, struct workload *wl,
		   struct diag *err);
int cmd_plot(struct cli_ctx *ctx);
int cmd_report(struct cli_ctx *ctx);

#endif
