/* fuzz_catalog.c - libFuzzer target: the catalog CSV parser must never
   crash, leak or accept a catalog that fails its own consistency check,
   and what it accepts must survive an export and re-parse unchanged. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
	for (size_t i = 0; i < catalog_count(cat); i++)
		if (gpu_spec_check(catalog_at(cat, i), NULL) != 0)
			abort();
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
