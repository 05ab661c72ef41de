/* fuzz_stacks.c - libFuzzer target: the stack table reader must never
   crash or leak, an error comes with a message and no rows, what it
   accepts survives an export and re-parse with the same rows and values,
   and every row it accepts applies to a new workload that then
   validates or fails with a message (never a crash). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stack.h"
#include "workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct stack_table t, again;
	struct workload *wl;
	struct diag err;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	diag_clear(&err);
	if (stack_parse((const char *)data, size, "fuzz", &t, &err) != 0) {
		if (t.rows || t.n || !diag_has_error(&err))
			abort(); /* an error must come with a message only */
		return 0;
	}
	f = open_memstream(&text, &len);
	if (!f || stack_write_csv(f, &t) != 0)
		abort();
	fclose(f);
	diag_clear(&err);
	if (stack_parse(text, len, "export", &again, &err) != 0 ||
	    again.n != t.n)
		abort();
	for (size_t i = 0; i < t.n; i++) {
		if (again.rows[i].ncells != t.rows[i].ncells ||
		    strcmp(again.rows[i].name, t.rows[i].name) != 0)
			abort();
		for (int c = 0; c < t.rows[i].ncells; c++) {
			const char *v = stack_value(&again.rows[i],
						    t.rows[i].cells[c].key);

			if (!v || strcmp(v, t.rows[i].cells[c].value) != 0)
				abort();
		}
	}
	wl = malloc(sizeof(*wl));
	if (!wl)
		abort();
	for (size_t i = 0; i < t.n; i++) {
		char *spec = t.rows[i].kind == STACK_ENGINE ?
				     wl->inference.engine :
				     wl->training.framework;

		workload_init(wl);
		if (snprintf(spec, WL_STACK_NAME_MAX, "%s@%s", t.rows[i].name,
			     t.rows[i].version) >= WL_STACK_NAME_MAX)
			continue; /* longer than the key takes */
		diag_clear(&err);
		if (stack_apply(&t, wl, &err) != 0 && !diag_has_error(&err))
			abort();
		diag_clear(&err);
		(void)workload_validate(wl, &err);
	}
	free(wl);
	free(text);
	stack_release(&again);
	stack_release(&t);
	return 0;
}
