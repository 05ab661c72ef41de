/* fuzz_catalog.c - libFuzzer target: the catalog CSV parser must never
   crash, leak or accept a catalog that fails its own consistency check,
   what it accepts must survive an export and re-parse unchanged, and a
   small model must plan on every row it accepts (the node size and the
   rates of a row reach the planner's loops and products, issue 14). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "catalog.h"
#include "infer_plan.h"
#include "plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Train and serve a two-layer model on 'g': no crash, finite results. */
static void plan_on(const struct gpu_spec *g)
{
	struct workload wl;
	struct train_plan tp;
	struct infer_plan ip;

	workload_init(&wl);
	wl.model.layers = 2;
	wl.model.hidden = 64;
	wl.model.heads = 2;
	wl.model.vocab = 100;
	wl.model.seq_len = 16;
	wl.training.gpus = 8;
	if (train_plan_make(&wl, g, &tp, NULL) == 0 && tp.fits &&
	    !(isfinite(tp.result.time.step_s) && tp.result.time.step_s > 0))
		abort();
	if (infer_plan_make(&wl, g, &ip, NULL) == 0 && ip.fits &&
	    !isfinite(ip.result.tpot_s))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct catalog *cat = NULL, *again = NULL;
	struct diag err;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	diag_clear(&err);
	if (catalog_parse((const char *)data, size, "fuzz", &cat, &err) != 0) {
		if (cat || !diag_has_error(&err))
			abort(); /* an error must come with a message only */
		return 0;
	}
	gsl_set_error_handler_off();
	for (size_t i = 0; i < catalog_count(cat); i++) {
		if (gpu_spec_check(catalog_at(cat, i), NULL) != 0)
			abort();
		plan_on(catalog_at(cat, i));
	}
	f = open_memstream(&text, &len);
	if (!f || catalog_write_csv(f, cat) != 0)
		abort();
	fclose(f);
	diag_clear(&err);
	if (catalog_parse(text, len, "export", &again, &err) != 0 ||
	    catalog_count(again) != catalog_count(cat))
		abort();
	free(text);
	catalog_free(again);
	catalog_free(cat);
	return 0;
}
