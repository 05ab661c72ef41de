/* cli.c - options, subcommand table, input and output edges; see cli.h. */
#include "cli.h"
#include "serve_fleet.h"
#include "cluster.h"
#include "text.h"
#include "trace.h"

#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#ifndef CAPPLAN_VERSION
#define CAPPLAN_VERSION "unknown"
#endif

/* Options a command accepts. */
enum {
	OPT_CATALOG = 1 << 0,
	OPT_GPU = 1 << 1,
	OPT_GPUS = 1 << 2,
	OPT_SET = 1 << 3,
	OPT_FORMAT = 1 << 4,
	OPT_OUTPUT = 1 << 5,
	OPT_VARY = 1 << 6,
	OPT_DEADLINE = 1 << 7,
	OPT_BUDGET = 1 << 8,
	OPT_POWER_CAP = 1 << 9,
	OPT_SORT = 1 << 10,
	OPT_TOP = 1 << 11,
	OPT_SEARCH = 1 << 12,
	OPT_SIZE = 1 << 13,
	OPT_KEEP_SCRIPT = 1 << 14,
	ARG_KIND = 1 << 15, /* not an option: a KIND before WORKLOAD (plot) */
	OPT_MODEL = 1 << 16,
	OPT_PLOT = 1 << 17,
	OPT_SERVE_FOR = 1 << 18,
	OPT_WIDE = 1 << 19,
	OPT_PLOT_FORMAT = 1 << 20,
	OPT_STACKS = 1 << 21,
	OPT_PROFILE = 1 << 22,
	OPT_WORKLOAD = 1 << 24,
	ARG_FILES = 1 << 23, /* not an option: one or more FILEs (calibrate) */
	OPT_MIXED = 1 << 25,
};

struct command {
	const char *name;
	int (*run)(struct cli_ctx *ctx);
	const char *summary;
	const char *usage;
	int options;
	bool workload; /* takes a WORKLOAD argument */
};

static const struct command commands[] = {
	{ "train", cmd_train, "plan a training run: time, memory, energy, cost",
	  "capplan train WORKLOAD|--model FILE.json --gpu NAME [--gpus N]\n"
	  "              [--set KEY=VALUE]... [--search [--top K]]\n"
	  "              [--format table|csv|json] [--wide] [-o FILE]\n"
	  "              [--catalog FILE] [--stacks FILE]\n"
	  "              [--profile FILE]",
	  OPT_CATALOG | OPT_GPU | OPT_GPUS | OPT_SET | OPT_STACKS | OPT_PROFILE | OPT_MODEL | OPT_FORMAT |
		  OPT_OUTPUT | OPT_SEARCH | OPT_TOP |
		  OPT_WIDE,
	  true },
	{ "fit", cmd_fit,
	  "memory per GPU on every device, and what makes it fit",
	  "capplan fit WORKLOAD|--model FILE.json [--gpu NAME[,NAME]...]\n"
	  "            [--gpus N] [--set KEY=VALUE]... [--format table|csv|json]\n"
	  "            [--wide] [-o FILE] [--catalog FILE] [--stacks FILE]\n"
	  "            [--profile FILE]",
	  OPT_CATALOG | OPT_GPU | OPT_GPUS | OPT_SET | OPT_STACKS | OPT_PROFILE | OPT_MODEL | OPT_FORMAT |
		  OPT_OUTPUT |
		  OPT_WIDE,
	  true },
	{ "infer", cmd_infer,
	  "plan serving: latency and replicas under load, energy, cost",
	  "capplan infer WORKLOAD|--model FILE.json --gpu NAME\n"
	  "              [--set KEY=VALUE]... [--search [--top K]]\n"
	  "              [--format table|csv|json] [--wide] [-o FILE]\n"
	  "              [--catalog FILE] [--stacks FILE]\n"
	  "              [--profile FILE]",
	  OPT_CATALOG | OPT_GPU | OPT_SET | OPT_STACKS | OPT_PROFILE | OPT_MODEL | OPT_FORMAT |
		  OPT_OUTPUT | OPT_SEARCH | OPT_TOP |
		  OPT_WIDE,
	  true },
	{ "sweep", cmd_sweep, "vary workload keys and tabulate the results",
	  "capplan sweep WORKLOAD|--model FILE.json --vary KEY=VALUES...\n"
	  "              [--gpu NAME] [--gpus N] [--set KEY=VALUE]...\n"
	  "              [--format table|csv|json] [--wide] [-o FILE]\n"
	  "              [--catalog FILE] [--stacks FILE]\n"
	  "              [--profile FILE]",
	  OPT_CATALOG | OPT_GPU | OPT_GPUS | OPT_SET | OPT_STACKS | OPT_PROFILE | OPT_MODEL | OPT_FORMAT |
		  OPT_OUTPUT | OPT_VARY |
		  OPT_WIDE,
	  true },
	{ "size", cmd_size,
	  "how many GPUs: within a deadline, a budget or a power cap",
	  "capplan size WORKLOAD|--model FILE.json [--deadline TIME]\n"
	  "             [--budget MONEY] [--power-cap POWER] [--serve-for TIME]\n"
	  "             [--gpu NAME[,NAME]...] [--set KEY=VALUE]...\n"
	  "             [--plot DIR [--plot-format png|svg]]\n"
	  "             [--format table|csv|json] [--wide] [-o FILE]\n"
	  "             [--catalog FILE] [--stacks FILE]\n"
	  "             [--profile FILE]\n"
	  "       capplan size WORKLOAD --mixed [--gpu NAME,NAME[,NAME]...]\n"
	  "             [--power-cap POWER] [--serve-for TIME] [--set KEY=VALUE]...\n"
	  "             [--format table|csv|json] [--wide] [-o FILE]\n\n"
	  "--mixed sizes the cheapest serving fleet of several devices for the\n"
	  "workload's rate or trace: requests routed to devices by their\n"
	  "lengths, as Melange does; the fleet is simulated device by device\n"
	  "and listed above the single-device fleets it is compared with;\n"
	  "with --power-cap, the largest load a mixed fleet serves within the\n"
	  "facility power budget, beside each device's own",
	  OPT_CATALOG | OPT_GPU | OPT_SET | OPT_STACKS | OPT_PROFILE | OPT_MODEL | OPT_FORMAT |
		  OPT_OUTPUT | OPT_DEADLINE | OPT_BUDGET | OPT_POWER_CAP |
		  OPT_PLOT | OPT_PLOT_FORMAT | OPT_SERVE_FOR |
		  OPT_WIDE | OPT_MIXED,
	  true },
	{ "compare", cmd_compare,
	  "devices side by side for training and serving, with a pick",
	  "capplan compare WORKLOAD|--model FILE.json [--gpu NAME[,NAME]...]\n"
	  "               [--gpus N] [--sort time|cost|energy|latency|"
	  "token-cost|\n"
	  "               throughput|token-energy|sample-cost|"
	  "sample-energy]\n"
	  "               [--set KEY=VALUE]...\n"
	  "               [--plot DIR [--plot-format png|svg]]\n"
	  "               [--format table|csv|json] [--wide] [-o FILE]\n"
	  "               [--catalog FILE] [--stacks FILE]\n"
	  "               [--profile FILE]",
	  OPT_CATALOG | OPT_GPU | OPT_GPUS | OPT_SET | OPT_STACKS | OPT_PROFILE | OPT_MODEL | OPT_FORMAT |
		  OPT_OUTPUT | OPT_SORT | OPT_PLOT | OPT_PLOT_FORMAT |
		  OPT_WIDE,
	  true },
	{ "calibrate", cmd_calibrate,
	  "fit device, engine and framework parameters to your measurements",
	  "capplan calibrate MEASUREMENTS.csv|RESULT|LOG... [-o PROFILE]\n"
	  "                  [--workload FILE --gpu NAME]\n"
	  "                  [--format table|csv|json] [--catalog FILE]\n"
	  "                  [--stacks FILE]\n\n"
	  "MEASUREMENTS has the columns command (train or infer), workload (a\n"
	  "workload file, relative to the CSV's folder), gpu, gpus (empty: as\n"
	  "the workload says), set (KEY=VALUE pairs separated by ';'), metric\n"
	  "(a field of the command's JSON output with an interval) and\n"
	  "measured.  Any other file is a result of --workload FILE on --gpu\n"
	  "NAME, known by its content: vLLM's or SGLang's serving benchmark,\n"
	  "genai-perf's or AIPerf's export, a Megatron-LM or torchtitan\n"
	  "training log.  The fit is printed; -o writes the profile that\n"
	  "--profile reads.",
	  OPT_CATALOG | OPT_STACKS | OPT_FORMAT | OPT_OUTPUT | OPT_WIDE |
		  OPT_GPU | OPT_WORKLOAD | ARG_FILES,
	  false },
	{ "stacks", cmd_stacks,
	  "list the software stacks: serving engines, training frameworks",
	  "capplan stacks [--format table|csv|json] [-o FILE] [--stacks FILE]\n\n"
	  "Each engine and framework with the values it gives workload keys\n"
	  "([inference] engine = NAME or NAME@VERSION, [training] framework);\n"
	  "CSV is the stack table's own format, for --stacks FILE",
	  OPT_STACKS | OPT_FORMAT | OPT_OUTPUT | OPT_WIDE, false },
	{ "catalog", cmd_catalog, "list the hardware catalog",
	  "capplan catalog [--gpu NAME[,NAME]...] [--format table|csv|json]\n"
	  "                [--wide] [-o FILE] [--catalog FILE]",
	  OPT_CATALOG | OPT_GPU | OPT_FORMAT | OPT_OUTPUT |
		  OPT_WIDE, false },
	{ "report", cmd_report,
	  "one HTML page for a planning review, with its charts",
	  "capplan report WORKLOAD|--model FILE.json -o FILE.html\n"
	  "               [--gpu NAME[,NAME]...] [--gpus N] [--set KEY=VALUE]...\n"
	  "               [--plot-format svg|png] [--catalog FILE] [--stacks FILE]\n"
	  "               [--profile FILE]\n\n"
	  "The page holds the workload, the assumptions and their sources, the\n"
	  "training and serving plan per device with their 80% intervals, the\n"
	  "recommendation and the charts drawn by gnuplot, inline: SVG, or PNG\n"
	  "as data: URIs with --plot-format png.  It loads nothing from the\n"
	  "network and needs no script.  Without --gpu: the devices the charts\n"
	  "draw by default",
	  OPT_CATALOG | OPT_GPU | OPT_GPUS | OPT_SET | OPT_STACKS | OPT_PROFILE | OPT_MODEL | OPT_OUTPUT |
		  OPT_PLOT_FORMAT,
	  true },
	{ "plot", cmd_plot, "draw a chart with gnuplot (PNG or SVG)",
	  "capplan plot KIND WORKLOAD|--model FILE.json -o FILE.png|FILE.svg\n"
	  "             [--gpu NAME[,NAME]...] [--gpus N] [--set KEY=VALUE]...\n"
	  "             [--size WxH] [--keep-script] [--catalog FILE] [--stacks FILE]\n"
	  "             [--profile FILE]\n\n"
	  "KIND is scaling, cost-time, memory, roofline, latency-throughput,\n"
	  "replicas, energy or cache (a load with a prefix cache: its hits,\n"
	  "TTFT and capacity against the KV-cache memory or host tier).\n"
	  "Beside FILE go FILE.dat (the data) and FILE.gp (the gnuplot\n"
	  "script), kept with --keep-script or when gnuplot is missing (then\n"
	  "the exit status is 4)",
	  OPT_CATALOG | OPT_GPU | OPT_GPUS | OPT_SET | OPT_STACKS | OPT_PROFILE | OPT_MODEL | OPT_OUTPUT |
		  OPT_SIZE | OPT_KEEP_SCRIPT | ARG_KIND,
	  true },
};

static const struct {
	int flag;
	const char *text;
} option_help[] = {
	{ OPT_GPU, "  --gpu NAME        the accelerator (catalog name, any case);\n"
		   "                    a comma-separated list where allowed" },
	{ OPT_GPUS, "  --gpus N          number of GPUs (same as --set training.gpus=N)" },
	{ OPT_MODEL, "  --model FILE.json the architecture from a Hugging Face config.json\n"
		     "                    (same as --set model.hf_config=FILE.json, applied\n"
		     "                    first); WORKLOAD may then be left out" },
	{ OPT_SET, "  --set KEY=VALUE   override a workload key, e.g. training.tp=8\n"
		   "                    (repeatable; applied after the file)" },
	{ OPT_FORMAT, "  --format FORMAT   table (default), csv or json" },
	{ OPT_OUTPUT, "  -o, --output FILE write to FILE (replaced atomically)" },
	{ OPT_CATALOG, "  --catalog FILE    use FILE instead of the embedded catalog\n"
			"                    (- reads it from standard input)" },
	{ OPT_WORKLOAD, "  --workload FILE   the workload a benchmark result (.json) ran" },
	{ OPT_PROFILE, "  --profile FILE    device and engine parameters from 'capplan\n"
			"                    calibrate' (its -o FILE)" },
	{ OPT_STACKS, "  --stacks FILE     use FILE instead of the embedded stack table\n"
		       "                    (engines and frameworks; 'capplan stacks')" },
	{ OPT_SEARCH, "  --search          list the best configurations (see --top)" },
	{ OPT_TOP, "  --top K           how many configurations to list (default 10)" },
	{ OPT_SORT, "  --sort KEY        order of the rows (see the command's help)" },
	{ OPT_VARY, "  --vary KEY=VALUES a workload key (or 'gpu') and its values:\n"
		    "                    a list 'a,b,c', a range 'a..b' (step 1),\n"
		    "                    'a..b+s' (step s) or 'a..bxf' (factor f);\n"
		    "                    repeatable: every combination is a row" },
	{ OPT_DEADLINE, "  --deadline TIME   train within TIME, e.g. 30d" },
	{ OPT_BUDGET, "  --budget MONEY    spend at most MONEY, e.g. 2M or $500K" },
	{ OPT_POWER_CAP, "  --power-cap POWER facility power at most POWER, e.g. 500kW" },
	{ OPT_SERVE_FOR, "  --serve-for TIME  serving time counted in the total cost\n"
			 "                    (default 1y)" },
	{ OPT_MIXED, "  --mixed           serving: the cheapest fleet of several devices,\n"
		     "                    requests routed to them by length (Melange);\n"
		     "                    --gpu lists the devices (default: the catalog);\n"
		     "                    with --power-cap, the largest load it serves" },
	{ OPT_PLOT, "  --plot DIR        also draw the standard charts for the best\n"
		    "                    devices (at most 8) as DIR/KIND.svg (.png)" },
	{ OPT_SIZE, "  --size WxH        chart size in pixels (default 1024x640)" },
	{ OPT_KEEP_SCRIPT, "  --keep-script     keep FILE.gp and FILE.dat beside the chart" },
	{ OPT_PLOT_FORMAT, "  --plot-format F   charts as svg (the default) or png" },
	{ OPT_WIDE, "  --wide            every column of a table, past 100 columns" },
};

static void print_version(FILE *out)
{
	fprintf(out, "capplan %s\n", CAPPLAN_VERSION);
}

static void print_main_help(FILE *out)
{
	fprintf(out,
		"usage: capplan COMMAND [ARGS]\n"
		"       capplan --help | --version\n\n"
		"Capacity planner for AI infrastructure: training time, memory,\n"
		"energy and cost of a workload on a hardware catalog.\n\n"
		"commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-9s %s\n", commands[i].name,
			commands[i].summary);
	fprintf(out, "  %-9s %s\n", "help",
		"show help for a command; 'help keys' lists the "
		"workload keys");
	fprintf(out,
		"\n'capplan COMMAND --help' shows a command's options.\n"
		"Exit status: 0 ok, 1 no feasible plan, 2 usage error, 3 bad\n"
		"input file, 4 I/O error, 5 internal error.  See capplan(1).\n");
}

/* 'text' from column 'indent' on, wrapped at blanks before column 80. */
static void print_wrapped(FILE *out, const char *text, int indent, int col)
{
	const char *p = text;

	while (*p) {
		const char *end = p, *brk = NULL;

		while (*end && col + (end - p) < 79) {
			if (*end == ' ')
				brk = end;
			end++;
		}
		if (*end && brk)
			end = brk;
		fprintf(out, "%.*s\n", (int)(end - p), p);
		p = *end == ' ' ? end + 1 : end;
		if (*p)
			fprintf(out, "%*s", indent, "");
		col = indent;
	}
}

/*
 * 'capplan help keys [SECTION]': every workload key, what it means and
 * what it accepts, from the key table itself.  Returns an exit status.
 */
static int print_keys(FILE *out, const char *section)
{
	static const char *const sections[] = { "model", "training",
						"inference", "cluster" };
	bool known = !section;

	for (size_t s = 0; s < sizeof(sections) / sizeof(sections[0]); s++)
		known = known || strcmp(section, sections[s]) == 0;
	if (!known)
		return cli_usage(NULL, "unknown section '%s'; one of model, "
				 "training, inference, cluster",
				 section);
	fprintf(out, "Workload keys: what each one means, then [its default] "
		     "and the values it\n"
		     "takes.  [auto]: capplan chooses it; [unset]: capplan "
		     "derives it from other\n"
		     "keys or does without.  specs/workload.md in capplan's "
		     "source has the rules.\n");
	for (size_t s = 0; s < sizeof(sections) / sizeof(sections[0]); s++) {
		if (section && strcmp(section, sections[s]) != 0)
			continue;
		fprintf(out, "\n[%s]\n", sections[s]);
		for (size_t i = 0; i < workload_key_count(); i++) {
			const char *sec, *key;
			char accepts[512], def[64], text[600];

			workload_key_info(i, &sec, &key, accepts,
					  sizeof(accepts));
			if (strcmp(sec, sections[s]) != 0)
				continue;
			workload_key_default(i, def, sizeof(def));
			snprintf(text, sizeof(text), "[%s] %s", def, accepts);
			/* the meaning beside the key (below a long one), the
			   values under it */
			if (strlen(key) > 24)
				fprintf(out, "  %s\n%27s", key, "");
			else
				fprintf(out, "  %-24s ", key);
			fprintf(out, "%s\n%27s", workload_key_meaning(i), "");
			print_wrapped(out, text, 27, 27);
		}
	}
	return EXIT_OK;
}

static void print_command_help(FILE *out, const struct command *c)
{
	fprintf(out, "usage: %s\n\n%s.\n\noptions:\n", c->usage, c->summary);
	for (size_t i = 0; i < sizeof(option_help) / sizeof(option_help[0]);
	     i++)
		if (c->options & option_help[i].flag)
			fprintf(out, "%s\n", option_help[i].text);
	fprintf(out, "  -h, --help        show this help\n");
	if (c->workload)
		fprintf(out, "\nWORKLOAD is an INI file (specs/workload.md); "
			     "- reads it\nfrom standard input.\n");
}

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

/* The formatted message, escaped, between 'prefix' and a newline. */
static void vmessage(const char *prefix, const char *fmt, va_list ap)
{
	char small[1024], *buf = small;
	va_list copy;
	int n;

	va_copy(copy, ap);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	if (n >= (int)sizeof(small)) {
		buf = malloc((size_t)n + 1);
		if (buf)
			vsnprintf(buf, (size_t)n + 1, fmt, copy);
		else
			buf = small; /* cut, but said */
	}
	va_end(copy);
	if (n < 0)
		snprintf(small, sizeof(small), "(message cannot be written)");
	text_fputs_escaped(prefix, stderr);
	text_fputs_escaped(buf, stderr);
	fputc('\n', stderr);
	if (buf != small)
		free(buf);
}

void cli_message(const char *prefix, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(prefix, fmt, ap);
	va_end(ap);
}

void cli_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("capplan: error: ", fmt, ap);
	va_end(ap);
}

int cli_vusage(const char *cmd, const char *fmt, va_list ap)
{
	vmessage("capplan: error: ", fmt, ap);
	fprintf(stderr, "see 'capplan%s%s --help'\n", cmd ? " " : "",
		cmd ? cmd : "");
	return EXIT_USAGE;
}

int cli_usage(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = cli_vusage(cmd, fmt, ap);
	va_end(ap);
	return rc;
}

int cli_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > 64 ? 64 : (int)n;
}

struct par_job {
	void (*fn)(int i, void *arg);
	void *arg;
	int n;
	int next;
	pthread_mutex_t lock;
};

static void *par_worker(void *p)
{
	struct par_job *j = p;

	for (;;) {
		int i;

		pthread_mutex_lock(&j->lock);
		i = j->next++;
		pthread_mutex_unlock(&j->lock);
		if (i >= j->n)
			return NULL;
		j->fn(i, j->arg);
	}
}

void cli_parallel_for(int n, void (*fn)(int i, void *arg), void *arg)
{
	struct par_job j = { fn, arg, n, 0, PTHREAD_MUTEX_INITIALIZER };
	pthread_t tid[64];
	int threads = cli_threads(), started = 0;

	if (threads > n)
		threads = n;
	for (; started < threads - 1; started++)
		if (pthread_create(&tid[started], NULL, par_worker, &j) != 0)
			break;
	par_worker(&j);
	for (int i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
}

/* The exit status of a failed read of an input (man page, EXIT STATUS). */
static int exit_of(const struct diag *err)
{
	switch (err->kind) {
	case DIAG_IO:
		return EXIT_IO;
	case DIAG_NOMEM:
		return EXIT_INTERNAL;
	case DIAG_INPUT:
	default:
		return EXIT_INPUT;
	}
}

int cli_load_catalog(struct cli_ctx *ctx)
{
	struct diag err;
	int rc;

	diag_clear(&err);
	rc = ctx->catalog_path ? catalog_load_file(ctx->catalog_path,
						   &ctx->cat, &err) :
				 catalog_load_default(&ctx->cat, &err);
	if (rc != 0) {
		diag_print(stderr, &err);
		/* a file we could not read is an I/O error, not bad input */
		return exit_of(&err);
	}
	return EXIT_OK;
}

/* --profile: read it and give its devices' efficiencies to the catalog's
   rows. */
static int cli_load_profile(struct cli_ctx *ctx)
{
	struct diag err;

	if (!ctx->profile_path)
		return EXIT_OK;
	ctx->profile = malloc(sizeof(*ctx->profile));
	if (!ctx->profile) {
		cli_error("out of memory");
		return EXIT_INTERNAL;
	}
	diag_clear(&err);
	if (profile_load_file(ctx->profile_path, ctx->profile, &err) != 0) {
		diag_print(stderr, &err);
		return exit_of(&err);
	}
	for (size_t i = 0; i < catalog_count(ctx->cat); i++)
		profile_apply_device(ctx->profile,
				     catalog_at_mutable(ctx->cat, i));
	return EXIT_OK;
}

void cli_note_profile(struct report *rep, const struct cli_ctx *ctx,
		      const char *gpu)
{
	const struct profile *p = ctx->profile;
	const struct profile_engine *e = ctx->profile_engine;
	char devs[256] = "";
	size_t at = 0;

	if (!p)
		return;
	for (int i = 0; i < p->ndev; i++) {
		int w = snprintf(devs + at, sizeof(devs) - at, "%s%s",
				 at ? ", " : "", p->dev[i].gpu);

		if (w < 0 || (size_t)w >= sizeof(devs) - at)
			break;
		at += (size_t)w;
	}
	if (e)
		report_note(rep, "calibrated by %s (%d measurements): "
				 "devices %s; engine %s %s",
			    p->file, p->measurements,
			    devs[0] ? devs : "none", e->name, e->version);
	else if (ctx->profile_framework && ctx->profile_framework->has_production)
		report_note(rep, "calibrated by %s (%d measurements): "
				 "devices %s; framework %s %s (production "
				 "efficiency %.3g)",
			    p->file, p->measurements,
			    devs[0] ? devs : "none",
			    ctx->profile_framework->name,
			    ctx->profile_framework->version,
			    ctx->profile_framework->production_efficiency);
	else
		report_note(rep, "calibrated by %s (%d measurements): "
				 "devices %s",
			    p->file, p->measurements,
			    devs[0] ? devs : "none");
	if (gpu && !profile_device(p, gpu))
		report_note(rep, "the profile has no values for %s: its "
				 "catalog row applies", gpu);
	/* the engine's values lean on devices the plan is not on */
	if (e && gpu && e->devices[0] && !text_list_has(e->devices, gpu))
		report_note(rep, "the engine's values (%s %s) were fitted on "
				 "%s, not on %s",
			    e->name, e->version, e->devices, gpu);
}

int cli_load_stacks(struct cli_ctx *ctx)
{
	struct diag err;
	int rc;

	if (ctx->stacks_loaded)
		return EXIT_OK;
	diag_clear(&err);
	rc = ctx->stacks_path ? stack_load_file(ctx->stacks_path, &ctx->stacks,
						&err) :
				stack_load_default(&ctx->stacks, &err);
	if (rc != 0) {
		diag_print(stderr, &err);
		return exit_of(&err);
	}
	ctx->stacks_loaded = true;
	return EXIT_OK;
}

const char *cli_input_name(const struct cli_ctx *ctx)
{
	if (ctx->wl.file[0])
		return ctx->wl.file;
	if (ctx->workload_path)
		return ctx->workload_path;
	return ctx->model_path ? ctx->model_path : "capplan";
}

int cli_transformer_only(const struct cli_ctx *ctx, const char *what)
{
	if (ctx->wl.model.kind == MODEL_TRANSFORMER)
		return EXIT_OK;
	cli_message(cli_input_name(ctx),
		    ": %s covers transformer models only; this "
		    "workload is kind = %s: 'train', 'fit', 'infer', "
		    "'compare', 'size', 'sweep', 'report' and every "
		    "chart but the roofline and cache cover it",
		    what, model_kind_name(ctx->wl.model.kind));
	return EXIT_USAGE;
}

bool cli_serving_only(const struct workload *wl)
{
	bool per_sample = wl->model.kind != MODEL_TRANSFORMER;

	return serve_has_load(&wl->inference) &&
	       !((per_sample ? wl->training.samples : wl->training.tokens) >
		 0.0) &&
	       wl->training.gpus == WL_AUTO;
}

int cli_load_workload(struct cli_ctx *ctx)
{
	struct diag err;
	char expr[64];
	int rc;

	diag_clear(&err);
	workload_init(&ctx->wl);
	if (ctx->workload_path &&
	    workload_load_file(ctx->workload_path, &ctx->wl, &err) != 0) {
		diag_print(stderr, &err);
		return exit_of(&err);
	}
	if (ctx->model_path) {
		/* the file's keys fill what the workload left open */
		static const char key[] = "model.hf_config=";
		size_t n = sizeof(key) + strlen(ctx->model_path);
		char *set;

		if (!ctx->model_path[0] ||
		    strlen(ctx->model_path) >= sizeof(ctx->wl.model.hf_config)) {
			return cli_usage(ctx->cmd,
					 "--model needs a file name of 1 to "
					 "%zu bytes",
					 sizeof(ctx->wl.model.hf_config) - 1);
		}
		set = malloc(n);
		if (!set) {
			fprintf(stderr, "capplan: error: out of memory\n");
			return EXIT_INTERNAL;
		}
		snprintf(set, n, "%s%s", key, ctx->model_path);
		rc = workload_set(&ctx->wl, set, &err);
		free(set);
		if (rc != 0) {
			/* name the option, not --set, which it goes through */
			if (strcmp(err.file, "--set") == 0)
				snprintf(err.file, sizeof(err.file), "--model");
			diag_print(stderr, &err);
			return exit_of(&err);
		}
		/* an unnamed model takes the file's name: 'qwen2-7b.json'
		   is 'qwen2-7b' (none when it holds a control character or
		   is not UTF-8) */
		if (!ctx->wl.model.name[0]) {
			const char *base = strrchr(ctx->model_path, '/');
			const char *dot;
			size_t len;

			base = base ? base + 1 : ctx->model_path;
			dot = strrchr(base, '.');
			len = dot && dot != base ? (size_t)(dot - base) :
						   strlen(base);
			if (len >= sizeof(ctx->wl.model.name))
				len = sizeof(ctx->wl.model.name) - 1;
			memcpy(ctx->wl.model.name, base, len);
			ctx->wl.model.name[len] = '\0';
			{
				size_t at;
				unsigned char byte;

				if (text_check_name(ctx->wl.model.name, len,
						    &at, &byte) != TEXT_OK)
					ctx->wl.model.name[0] = '\0';
			}
		}
	}
	if (ctx->gpus_arg) {
		snprintf(expr, sizeof(expr), "training.gpus=%s", ctx->gpus_arg);
		if (workload_set(&ctx->wl, expr, &err) != 0)
			return cli_usage(ctx->cmd,
					 "--gpus must be an integer from 1 to "
					 "%d, got '%s'",
					 WL_GPUS_MAX, ctx->gpus_arg);
	}
	for (int i = 0; i < ctx->nsets; i++) {
		if (workload_set(&ctx->wl, ctx->sets[i], &err) != 0) {
			diag_print(stderr, &err);
			/* a bad value is a usage error; a file it names that
			   cannot be read (model.hf_config) an I/O error */
			return err.kind == DIAG_INPUT ? EXIT_USAGE :
							exit_of(&err);
		}
	}
	rc = cli_load_stacks(ctx);
	if (rc != EXIT_OK)
		return rc;
	if (stack_apply(&ctx->stacks, &ctx->wl, &err) != 0) {
		diag_print(stderr, &err);
		/* a name given by --set is a usage error, as its values are */
		return strcmp(err.file, "--set") == 0 ? EXIT_USAGE : EXIT_INPUT;
	}
	if (ctx->profile) {
		ctx->profile_engine =
			profile_apply_engine(ctx->profile, &ctx->wl);
		ctx->profile_framework =
			profile_apply_framework(ctx->profile, &ctx->wl);
	}
	if (workload_validate(&ctx->wl, &err) != 0) {
		diag_print(stderr, &err);
		return EXIT_INPUT;
	}
	if (ctx->wl.inference.trace[0]) {
		/* the requests of a trace load, read once for every plan */
		size_t n = 0;

		free(ctx->trace);
		ctx->trace = NULL;
		if (trace_load_file(ctx->wl.inference.trace, &ctx->trace, &n,
				    &err) != 0) {
			diag_print(stderr, &err);
			return exit_of(&err);
		}
		ctx->wl.inference.trace_requests = ctx->trace;
		ctx->wl.inference.trace_len = n;
	}
	return EXIT_OK;
}

/* Every device named can be priced as the workload asks (an owned GPU
   needs a capex): EXIT_OK, or EXIT_INPUT with the message. */
static int check_prices(const struct cli_ctx *ctx)
{
	for (int i = 0; i < ctx->ngpus; i++) {
		struct cluster cl;
		struct diag err;

		diag_clear(&err);
		if (cluster_resolve(&ctx->wl.cluster, ctx->gpus[i], &cl,
				    &err) != 0) {
			diag_print(stderr, &err);
			return EXIT_INPUT;
		}
	}
	return EXIT_OK;
}

/*
 * The whole catalog, asked for by leaving --gpu out: with pricing = owned
 * the devices the catalog gives no capex cannot be priced; they are left
 * out with a note on stderr (a device named with --gpu is an error
 * instead, check_prices), and it is an error only when none is left.
 */
static int drop_unpriced(struct cli_ctx *ctx)
{
	int kept = 0, dropped = 0;
	struct diag first;

	diag_clear(&first);
	for (int i = 0; i < ctx->ngpus; i++) {
		struct cluster cl;
		struct diag err;

		diag_clear(&err);
		if (cluster_resolve(&ctx->wl.cluster, ctx->gpus[i], &cl,
				    &err) != 0) {
			if (dropped++ == 0)
				first = err;
			continue;
		}
		ctx->gpus[kept++] = ctx->gpus[i];
	}
	ctx->ngpus = kept;
	if (kept == 0 && dropped > 0) {
		diag_print(stderr, &first);
		return EXIT_INPUT;
	}
	if (dropped > 0)
		fprintf(stderr, "capplan: note: %d devices left out: with "
				"cluster.pricing=owned they need a capex "
				"(catalog capex_usd_per_gpu, or set "
				"cluster.capex_per_gpu and name devices with "
				"--gpu)\n",
			dropped);
	return EXIT_OK;
}

int cli_resolve_gpus(struct cli_ctx *ctx, bool all_if_none)
{
	char list[1024];
	char *save = NULL;

	ctx->ngpus = 0;
	if (!ctx->gpu_arg) {
		if (!all_if_none)
			return EXIT_OK;
		if (catalog_count(ctx->cat) > CLI_MAX_GPUS) {
			return cli_usage(ctx->cmd,
					 "the catalog has more than %d "
					 "devices; name them with --gpu",
					 CLI_MAX_GPUS);
		}
		for (size_t i = 0; i < catalog_count(ctx->cat); i++)
			ctx->gpus[ctx->ngpus++] = catalog_at(ctx->cat, i);
		return drop_unpriced(ctx);
	}
	if (strlen(ctx->gpu_arg) >= sizeof(list))
		return cli_usage(ctx->cmd, "%s", "--gpu list is too long");
	snprintf(list, sizeof(list), "%s", ctx->gpu_arg);
	for (char *name = strtok_r(list, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		struct diag err;
		const struct gpu_spec *g;

		diag_clear(&err);
		g = catalog_find(ctx->cat, name, &err);
		if (!g) {
			diag_print(stderr, &err);
			return EXIT_USAGE;
		}
		/* a device named twice (in any case) is listed once, where
		   it first appears */
		bool seen = false;

		for (int i = 0; i < ctx->ngpus; i++)
			seen = seen || ctx->gpus[i] == g;
		if (seen)
			continue;
		if (ctx->ngpus == CLI_MAX_GPUS)
			return cli_usage(ctx->cmd,
					 "too many devices in --gpu (at most "
					 "%d)", CLI_MAX_GPUS);
		ctx->gpus[ctx->ngpus++] = g;
	}
	if (ctx->ngpus == 0)
		return cli_usage(ctx->cmd, "%s", "--gpu names no device");
	return check_prices(ctx);
}

static int parse_options(struct cli_ctx *ctx, const struct command *c,
			 int argc, char **argv, bool *help)
{
	static const struct option longopts[] = {
		{ "catalog", required_argument, NULL, 'c' },
		{ "gpu", required_argument, NULL, 'g' },
		{ "gpus", required_argument, NULL, 'n' },
		{ "set", required_argument, NULL, 's' },
		{ "model", required_argument, NULL, 'm' },
		{ "plot", required_argument, NULL, 'P' },
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "vary", required_argument, NULL, 'v' },
		{ "deadline", required_argument, NULL, 'd' },
		{ "budget", required_argument, NULL, 'b' },
		{ "power-cap", required_argument, NULL, 'p' },
		{ "serve-for", required_argument, NULL, 'F' },
		{ "sort", required_argument, NULL, 'S' },
		{ "top", required_argument, NULL, 't' },
		{ "search", no_argument, NULL, 'x' },
		{ "size", required_argument, NULL, 'W' },
		{ "keep-script", no_argument, NULL, 'K' },
		{ "wide", no_argument, NULL, 'w' },
		{ "plot-format", required_argument, NULL, 'G' },
		{ "stacks", required_argument, NULL, 'T' },
		{ "profile", required_argument, NULL, 'R' },
		{ "workload", required_argument, NULL, 'L' },
		{ "mixed", no_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct {
		int ch, flag;
		const char *name;
	} owner[] = {
		{ 'c', OPT_CATALOG, "--catalog" }, { 'g', OPT_GPU, "--gpu" },
		{ 'n', OPT_GPUS, "--gpus" },       { 's', OPT_SET, "--set" },
		{ 'f', OPT_FORMAT, "--format" },   { 'o', OPT_OUTPUT, "--output" },
		{ 'v', OPT_VARY, "--vary" },       { 'd', OPT_DEADLINE, "--deadline" },
		{ 'b', OPT_BUDGET, "--budget" },   { 'p', OPT_POWER_CAP, "--power-cap" },
		{ 'S', OPT_SORT, "--sort" },       { 't', OPT_TOP, "--top" },
		{ 'x', OPT_SEARCH, "--search" },   { 'm', OPT_MODEL, "--model" },
		{ 'P', OPT_PLOT, "--plot" },       { 'F', OPT_SERVE_FOR, "--serve-for" },
		{ 'W', OPT_SIZE, "--size" },       { 'K', OPT_KEEP_SCRIPT, "--keep-script" },
		{ 'w', OPT_WIDE, "--wide" },       { 'G', OPT_PLOT_FORMAT, "--plot-format" },
		{ 'T', OPT_STACKS, "--stacks" },   { 'R', OPT_PROFILE, "--profile" },
		{ 'L', OPT_WORKLOAD, "--workload" }, { 'M', OPT_MIXED, "--mixed" },
	};
	int ch;

	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
		for (size_t i = 0; i < sizeof(owner) / sizeof(owner[0]); i++)
			if (owner[i].ch == ch && !(c->options & owner[i].flag))
				return cli_usage(c->name,
						 "option '%s' does not apply "
						 "to this command",
						 owner[i].name);
		switch (ch) {
		case 'c':
			ctx->catalog_path = optarg;
			break;
		case 'T':
			ctx->stacks_path = optarg;
			break;
		case 'R':
			ctx->profile_path = optarg;
			break;
		case 'L':
			ctx->workload_path = optarg;
			break;
		case 'g':
			ctx->gpu_arg = optarg;
			break;
		case 'n':
			ctx->gpus_arg = optarg;
			break;
		case 's':
			if (ctx->nsets == CLI_MAX_SETS)
				return cli_usage(c->name, "%s",
						 "too many --set options");
			ctx->sets[ctx->nsets++] = optarg;
			break;
		case 'f':
			if (report_format_parse(optarg, &ctx->format) != 0)
				return cli_usage(c->name,
						 "--format must be table, "
						 "csv or json, got '%s'",
						 optarg);
			break;
		case 'o':
			ctx->output_path = optarg;
			break;
		case 'm':
			ctx->model_path = optarg;
			break;
		case 'P':
			ctx->plot_dir = optarg;
			break;
		case 'v':
			if (ctx->nvaries == CLI_MAX_SETS)
				return cli_usage(c->name, "%s",
						 "too many --vary options");
			ctx->varies[ctx->nvaries++] = optarg;
			break;
		case 'd':
			ctx->deadline_arg = optarg;
			break;
		case 'b':
			ctx->budget_arg = optarg;
			break;
		case 'p':
			ctx->power_cap_arg = optarg;
			break;
		case 'F':
			ctx->serve_for_arg = optarg;
			break;
		case 'S':
			ctx->sort_arg = optarg;
			break;
		case 't': {
			char *end;
			long k;

			errno = 0;
			k = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || k < 1 ||
			    k > 1000)
				return cli_usage(c->name,
						 "--top must be an integer "
						 "from 1 to 1000, got '%s'",
						 optarg);
			ctx->top = (int)k;
			break;
		}
		case 'x':
			ctx->search = true;
			break;
		case 'W':
			ctx->plot_size_arg = optarg;
			break;
		case 'K':
			ctx->keep_script = true;
			break;
		case 'w':
			ctx->wide = true;
			break;
		case 'M':
			ctx->mixed = true;
			break;
		case 'G':
			if (strcmp(optarg, "png") == 0)
				ctx->plot_png = true;
			else if (strcmp(optarg, "svg") == 0)
				ctx->plot_png = false;
			else
				return cli_usage(c->name,
						 "--plot-format must be png "
						 "or svg, got '%s'",
						 optarg);
			ctx->plot_format_arg = optarg;
			break;
		case 'h':
			*help = true;
			return EXIT_OK;
		case ':':
			return cli_usage(c->name, "option '%s' needs a value",
					 argv[optind - 1]);
		default:
			return cli_usage(c->name, "unknown option '%s'",
					 argv[optind - 1]);
		}
	}
	if (c->options & ARG_KIND) {
		if (optind >= argc)
			return cli_usage(c->name, "%s",
					 "missing the chart KIND");
		ctx->kind_arg = argv[optind++];
	}
	if (c->workload) {
		/* with --model the workload file is optional */
		if (optind >= argc && !ctx->model_path)
			return cli_usage(c->name, "%s",
					 "missing the WORKLOAD file (or "
					 "--model FILE.json)");
		if (optind < argc)
			ctx->workload_path = argv[optind++];
	}
	if (c->options & ARG_FILES) {
		if (optind >= argc)
			return cli_usage(c->name, "%s",
					 "missing the MEASUREMENTS file");
		while (optind < argc) {
			if (ctx->nfiles == CLI_MAX_SETS)
				return cli_usage(c->name, "more than %d files",
						 CLI_MAX_SETS);
			ctx->files[ctx->nfiles++] = argv[optind++];
		}
	}
	if (optind < argc)
		return cli_usage(c->name, "unexpected argument '%s'",
				 argv[optind]);
	{
		/* one file at most from the standard input */
		int from_stdin = 0;

		from_stdin += ctx->workload_path &&
			      strcmp(ctx->workload_path, "-") == 0;
		from_stdin += ctx->catalog_path &&
			      strcmp(ctx->catalog_path, "-") == 0;
		from_stdin += ctx->stacks_path &&
			      strcmp(ctx->stacks_path, "-") == 0;
		from_stdin += ctx->profile_path &&
			      strcmp(ctx->profile_path, "-") == 0;
		for (int i = 0; i < ctx->nfiles; i++)
			from_stdin += strcmp(ctx->files[i], "-") == 0;
		if (from_stdin > 1)
			return cli_usage(c->name, "%s",
					 "only one input can be the standard "
					 "input ('-'): the WORKLOAD, --catalog, "
					 "--stacks, --profile or a measurements "
					 "file");
	}
	return EXIT_OK;
}

/* The serving plans of the command's workload, a device's each, kept
   (cli_infer_plan): the table of devices planned, under its lock; an
   entry's plan is written by the one thread that makes it. */
struct cli_plan_memo {
	const struct gpu_spec *g;
	bool ready;         /* planned */
	bool busy;          /* a thread is planning it */
	struct workload wl; /* planned */
	int rc;
	struct diag err;
	struct infer_plan plan;
};

struct cli_plans {
	pthread_mutex_t lock;
	int n;
	struct cli_plan_memo *m[CLI_MAX_GPUS];
};

int cli_infer_plan(const struct cli_ctx *ctx, const struct workload *wl,
		   const struct gpu_spec *g, const struct progress_hook *hook,
		   struct infer_plan *p, struct diag *err)
{
	struct cli_plans *t = ctx->plans;
	struct cli_plan_memo *m = NULL;
	bool hit = false;

	/* only the command's own workload is kept: a chart's variant of it
	   (another rate, a power cap) would push it out */
	if (!t || memcmp(wl, &ctx->wl, sizeof(*wl)) != 0)
		return infer_plan_make_progress(wl, g, hook, p, err);
	pthread_mutex_lock(&t->lock);
	for (int i = 0; i < t->n && !m; i++)
		if (t->m[i]->g == g)
			m = t->m[i];
	if (!m && t->n < CLI_MAX_GPUS) {
		m = malloc(sizeof(*m));
		if (m) {
			m->g = g;
			m->ready = m->busy = false;
			t->m[t->n++] = m;
		}
	}
	if (m && m->ready && memcmp(&m->wl, wl, sizeof(*wl)) == 0) {
		*p = m->plan;
		*err = m->err;
		hit = true;
	} else if (m && m->busy) {
		m = NULL; /* another thread plans it: plan this one apart */
	} else if (m) {
		m->ready = false;
		m->busy = true; /* this thread plans it */
	}
	pthread_mutex_unlock(&t->lock);
	if (hit)
		return m->rc;
	if (!m)
		return infer_plan_make_progress(wl, g, hook, p, err);
	memcpy(&m->wl, wl, sizeof(*wl));
	m->rc = infer_plan_make_progress(wl, g, hook, &m->plan, err);
	m->err = *err;
	*p = m->plan;
	pthread_mutex_lock(&t->lock);
	m->ready = true;
	m->busy = false;
	pthread_mutex_unlock(&t->lock);
	return m->rc;
}

static struct cli_plans *plans_new(void)
{
	struct cli_plans *t = calloc(1, sizeof(*t));

	if (t && pthread_mutex_init(&t->lock, NULL) != 0) {
		free(t);
		return NULL;
	}
	return t;
}

static void plans_free(struct cli_plans *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->n; i++)
		free(t->m[i]);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

int cli_main(int argc, char **argv)
{
	struct cli_ctx ctx;
	const struct command *c;
	bool help = false;
	int rc;

	if (argc < 2) {
		print_main_help(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		print_main_help(stdout);
		return EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0 ||
	    strcmp(argv[1], "version") == 0) {
		print_version(stdout);
		return EXIT_OK;
	}
	if (strcmp(argv[1], "help") == 0) {
		if (argc < 3) {
			print_main_help(stdout);
			return EXIT_OK;
		}
		if (strcmp(argv[2], "keys") == 0) {
			if (argc > 4)
				return cli_usage(NULL, "unexpected argument "
						 "'%s'",
						 argv[4]);
			return print_keys(stdout, argc > 3 ? argv[3] : NULL);
		}
		c = find_command(argv[2]);
		if (!c)
			return cli_usage(NULL, "unknown command '%s'", argv[2]);
		print_command_help(stdout, c);
		return EXIT_OK;
	}
	c = find_command(argv[1]);
	if (!c)
		return cli_usage(NULL, "unknown command '%s'", argv[1]);

	memset(&ctx, 0, sizeof(ctx));
	ctx.cmd = c->name;
	ctx.format = FORMAT_TABLE;
	rc = parse_options(&ctx, c, argc - 1, argv + 1, &help);
	if (rc != EXIT_OK)
		return rc;
	if (help) {
		print_command_help(stdout, c);
		return EXIT_OK;
	}
	/* (NULL when out of memory: every plan is then made afresh) */
	ctx.plans = plans_new();
	rc = cli_load_catalog(&ctx);
	if (rc == EXIT_OK)
		rc = cli_load_profile(&ctx);
	if (rc == EXIT_OK)
		rc = c->run(&ctx);
	catalog_free(ctx.cat);
	free(ctx.profile);
	stack_release(&ctx.stacks);
	free(ctx.trace);
	plans_free(ctx.plans);
	return rc;
}
