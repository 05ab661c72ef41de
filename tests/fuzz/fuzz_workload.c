/* fuzz_workload.c - libFuzzer target: the workload INI parser and the
   validator must never crash or leak, and every error carries a message;
   a validated workload is then planned on a device without crashing and
   without non-finite results. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include <gsl/gsl_errno.h>

#include "catalog.h"
#include "infer_plan.h"
#include "plan.h"
#include "workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct catalog *cat;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct workload wl;
	struct train_plan tp;
	struct infer_plan ip;
	struct diag err;

	if (!cat) {
		gsl_set_error_handler_off();
		if (catalog_load_default(&cat, NULL) != 0)
			abort();
	}
	diag_clear(&err);
	workload_init(&wl);
	if (workload_parse((const char *)data, size, "fuzz", &wl, &err) != 0) {
		if (!diag_has_error(&err))
			abort();
		return 0;
	}
	diag_clear(&err);
	if (workload_validate(&wl, &err) != 0) {
		if (!diag_has_error(&err))
			abort();
		return 0;
	}
	/* planning must stay finite; keep the search small for speed */
	if (wl.training.gpus == WL_AUTO || wl.training.gpus > 4096)
		wl.training.gpus = 8;
	if (train_plan_make(&wl, catalog_at(cat, 0), &tp, NULL) == 0 &&
	    tp.has_arch && tp.fits &&
	    (!isfinite(tp.result.time.step_s) || tp.result.time.step_s <= 0))
		abort();
	if (model_has_arch(&wl.model) &&
	    infer_plan_make(&wl, catalog_at(cat, 0), &ip, NULL) == 0 &&
	    ip.fits && !isfinite(ip.result.tpot_s))
		abort();
	return 0;
}
