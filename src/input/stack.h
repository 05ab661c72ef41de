/*
 * stack.h - software stacks: the serving engines and training frameworks
 * a workload runs on, each a row of a table of the values it gives
 * workload keys (specs/stacks.csv, embedded; specs/stacks.md).
 *
 * A row is an engine ([inference] keys: vLLM's max_num_seqs is
 * inference.max_batch, its max_num_batched_tokens
 * inference.max_batched_tokens, ...) or a framework ([training] keys:
 * Megatron-Core's --overlap-grad-reduce is training.overlap_grad_reduce,
 * ...), named with a version; a workload names its stack with
 * [inference] engine and [training] framework ("vllm", or "vllm@0.6" for
 * a version), and each key the workload leaves out takes the row's value.
 * A key the workload (or --set) gives keeps its value: the table holds
 * defaults, never overrides.  With no stack named, the row "generic"
 * applies, whose values are capplan's own defaults.
 *
 * The file is CSV (libcsv, csv_read.h): '#' comment lines, a header
 * naming the columns kind, name, version, source and workload keys of
 * [inference] or [training] (without the section), then one row per
 * stack version.  Every value is checked as the workload would check it,
 * with the file, line and column in the message.
 */
#ifndef CAPPLAN_STACK_H
#define CAPPLAN_STACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "diag.h"
#include "workload.h"

#define STACK_NAME_MAX 32
#define STACK_VERSION_MAX 16
#define STACK_VALUE_MAX 64
#define STACK_SOURCE_MAX 256
#define STACK_COLUMNS_MAX 48
#define STACK_ROWS_MAX 1024
/* the name of the stack of a workload that names none */
#define STACK_GENERIC "generic"

enum stack_kind {
	STACK_ENGINE = 0, /* [inference] engine */
	STACK_FRAMEWORK,  /* [training] framework */
	STACK_KIND_COUNT,
};

/* One value of a row: a workload key (its index in the key table) and
   the text the file gives it, with its place. */
struct stack_cell {
	int key;
	char value[STACK_VALUE_MAX];
	int line, col;
};

struct stack_row {
	enum stack_kind kind;
	char name[STACK_NAME_MAX];
	char version[STACK_VERSION_MAX];
	char source[STACK_SOURCE_MAX];
	int line;
	int ncells;
	struct stack_cell cells[STACK_COLUMNS_MAX];
};

struct stack_table {
	char file[256];          /* for messages: the path or "<embedded>" */
	struct stack_row *rows;  /* owned */
	size_t n;
};

/* The name of a kind ("engine", "framework") and the workload key that
   names a stack of it ("inference.engine", "training.framework"). */
const char *stack_kind_name(enum stack_kind k);
const char *stack_kind_key(enum stack_kind k);

/*
 * Parse 'buf' ('len' bytes; 'name' in messages) into 't'.  Returns 0, or
 * -1 with file, line and column in 'err'.  On success release 't' with
 * stack_release.
 */
int stack_parse(const char *buf, size_t len, const char *name,
		struct stack_table *t, struct diag *err);
int stack_load_file(const char *path, struct stack_table *t,
		    struct diag *err);
/* The embedded table (specs/stacks.csv as built). */
int stack_load_default(struct stack_table *t, struct diag *err);
const char *stack_default_csv(size_t *len);
void stack_release(struct stack_table *t);

/*
 * The columns of 't' (the keys any row gives, in the order of the key
 * table) and its rows in the stack table's CSV format, which stack_parse
 * reads back.  Returns 0, or -1 when a write fails.
 */
int stack_write_csv(FILE *out, const struct stack_table *t);

/* The value row 'r' gives key 'key' (an index of the key table), or
   NULL. */
const char *stack_value(const struct stack_row *r, int key);

/*
 * The row of 'kind' that 'spec' names: "NAME" (any case) is the newest
 * version of NAME (versions compare as dotted numbers), "NAME@V" the
 * newest whose version is V or begins with "V.".  NULL when there is none.
 */
const struct stack_row *stack_find(const struct stack_table *t,
				   enum stack_kind kind, const char *spec);

/*
 * Apply the stacks 'wl' names ([inference] engine, [training] framework;
 * "generic" when it names none) from 't': each key of the row that the
 * workload did not give takes the row's value, and the names become the
 * rows' ("vllm" and "0.11.0" in inference.engine and engine_version).
 * A name the table lacks is an error at the key that gave it, listing the
 * names it has; no generic row leaves the workload as it is.  Returns 0,
 * or -1 with the message in 'err' (the workload unchanged).
 */
int stack_apply(const struct stack_table *t, struct workload *wl,
		struct diag *err);

#endif
