/* fuzz_set.c - libFuzzer target: '--set section.key=value' expressions,
   one a line, applied in order to a small model, never crash and either
   apply or explain why not; a workload they leave valid is planned for
   training and unloaded serving without crashing and with finite
   results, so that counts at the keys' bounds (issue 14) reach the
   planner. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "catalog.h"
#include "infer_plan.h"
#include "plan.h"
#include "workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Most expressions of one input. */
#define FUZZ_SET_MAX 8

static struct catalog *cat;

/* A two-layer model that plans in microseconds. */
static void toy(struct workload *wl)
{
	workload_init(wl);
	strcpy(wl->model.name, "toy");
	wl->model.layers = 2;
	wl->model.hidden = 64;
	wl->model.heads = 2;
	wl->model.vocab = 100;
	wl->model.seq_len = 16;
}

static void plan(struct workload *wl)
{
	const struct gpu_spec *g = catalog_at(cat, 0);
	struct train_plan tp;
	struct infer_plan ip;
	struct sample_serve_plan sp;

	if (train_plan_make(wl, g, &tp, NULL) == 0 && tp.has_arch &&
	    tp.fits &&
	    (!isfinite(tp.result.time.step_s) || tp.result.time.step_s <= 0))
		abort();
	/* serving without a load: a simulated one steps through every
	   token, too slow for a fuzzer at the keys' bounds */
	wl->inference.qps = 0.0;
	wl->inference.arrival = WL_AUTO_NEG;
	wl->inference.concurrency = 0;
	wl->inference.trace[0] = '\0';
	wl->inference.replicas = WL_AUTO;
	if (wl->model.kind != MODEL_TRANSFORMER) {
		if (sample_serve_plan_make(wl, g, &sp, NULL) == 0 &&
		    sp.result.fits && !isfinite(sp.result.latency_s))
			abort();
		return;
	}
	if (model_has_arch(&wl->model) &&
	    infer_plan_make(wl, g, &ip, NULL) == 0 && ip.fits &&
	    !isfinite(ip.result.tpot_s))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char text[FUZZ_SET_MAX * 128], *line, *save = NULL;
	struct workload wl;
	struct diag err;
	int n = 0;

	if (!cat) {
		gsl_set_error_handler_off();
		if (catalog_load_default(&cat, NULL) != 0)
			abort();
	}
	if (size >= sizeof(text) || memchr(data, '\0', size))
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	toy(&wl);
	for (line = strtok_r(text, "\n", &save); line && n < FUZZ_SET_MAX;
	     line = strtok_r(NULL, "\n", &save), n++) {
		/* hf_config and trace name files to read (a FIFO would
		   block): not what this target is about */
		if (strstr(line, "hf_config") || strstr(line, "trace"))
			return 0;
		diag_clear(&err);
		if (workload_set(&wl, line, &err) != 0 && !diag_has_error(&err))
			abort();
	}
	diag_clear(&err);
	if (workload_validate(&wl, &err) != 0) {
		if (!diag_has_error(&err))
			abort();
		return 0;
	}
	plan(&wl);
	return 0;
}
