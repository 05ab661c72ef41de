/* cmd_stacks.c - 'capplan stacks': list the stack table, the serving
   engines and training frameworks with the values they give workload
   keys (stack.h, specs/stacks.md). */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "text.h"

/* Column where a row's values start (after kind, name and version), and
   the table's width. */
#define VALUES_COL 32
#define TABLE_WIDTH 80

/* Write 's' from column 'at' of a line that is at column 'col', breaking
   at blanks so that no line passes TABLE_WIDTH when it can be helped;
   continuation lines start at column 'at'.  Returns the column after. */
static int put_wrapped(FILE *out, const char *s, int col, int at)
{
	while (*s) {
		size_t word = strcspn(s, " ");

		if (col > at && col + 1 + (int)word > TABLE_WIDTH) {
			fprintf(out, "\n%*s", at, "");
			col = at;
		} else if (col > at) {
			fputc(' ', out);
			col++;
		}
		{
			char w[STACK_SOURCE_MAX];

			snprintf(w, sizeof(w), "%.*s", (int)word, s);
			text_fputs_escaped(w, out);
		}
		col += (int)word;
		s += word;
		while (*s == ' ')
			s++;
	}
	return col;
}

static int write_table(FILE *out, const void *arg, const char **why)
{
	const struct stack_table *t = arg;

	(void)why;
	fprintf(out, "Software stacks (%s)\n", t->file);
	for (int kind = 0; kind < STACK_KIND_COUNT; kind++) {
		fprintf(out, "\n%-10s %-12s %-7s values ([%s] keys)\n",
			stack_kind_name((enum stack_kind)kind), "name",
			"version",
			kind == STACK_ENGINE ? "inference" : "training");
		for (size_t i = 0; i < t->n; i++) {
			const struct stack_row *r = &t->rows[i];
			char cell[160];
			int col;

			if ((int)r->kind != kind)
				continue;
			fprintf(out, "%-10s %-12s %-7s ", "", r->name,
				r->version);
			col = VALUES_COL;
			for (int c = 0; c < r->ncells; c++) {
				snprintf(cell, sizeof(cell), "%s=%s",
					 workload_key_name((size_t)r->cells[c].key),
					 r->cells[c].value);
				col = put_wrapped(out, cell, col, VALUES_COL);
			}
			if (r->ncells == 0)
				fputs("(none: capplan's defaults)", out);
			fprintf(out, "\n%*s", VALUES_COL, "");
			put_wrapped(out, r->source, VALUES_COL, VALUES_COL);
			fputc('\n', out);
		}
	}
	fputs("\nA workload names its stack with [inference] engine and [training]\n"
	      "framework (NAME, the newest version, or NAME@VERSION); a key the\n"
	      "workload gives keeps its value.  specs/stacks.md gives the sources.\n",
	      out);
	return 0;
}

static int write_json(FILE *out, const void *arg, const char **why)
{
	const struct stack_table *t = arg;
	cJSON *arr = cJSON_CreateArray();
	int rc = 0;

	if (!arr) {
		*why = "out of memory";
		return -1;
	}
	for (size_t i = 0; i < t->n && rc == 0; i++) {
		const struct stack_row *r = &t->rows[i];
		cJSON *o = cJSON_CreateObject(), *v = cJSON_CreateObject();

		if (!o || !v || !cJSON_AddItemToArray(arr, o)) {
			cJSON_Delete(o);
			cJSON_Delete(v);
			rc = -1;
			break;
		}
		cJSON_AddStringToObject(o, "kind", stack_kind_name(r->kind));
		cJSON_AddStringToObject(o, "name", r->name);
		cJSON_AddStringToObject(o, "version", r->version);
		for (int c = 0; c < r->ncells; c++)
			cJSON_AddStringToObject(v, workload_key_name((size_t)r->cells[c].key),
						r->cells[c].value);
		cJSON_AddItemToObject(o, "values", v);
		cJSON_AddStringToObject(o, "source", r->source);
	}
	if (rc != 0) {
		cJSON_Delete(arr);
		arr = NULL;
	}
	return cli_json_print(out, arr, why);
}

static int write_csv(FILE *out, const void *arg, const char **why)
{
	(void)why; /* only write errors, which the caller finds */
	return stack_write_csv(out, arg) == 0 ? 0 : -1;
}

int cmd_stacks(struct cli_ctx *ctx)
{
	int rc = cli_load_stacks(ctx);

	if (rc != EXIT_OK)
		return rc;
	switch (ctx->format) {
	case FORMAT_CSV:
		return cli_write(ctx, write_csv, &ctx->stacks);
	case FORMAT_JSON:
		return cli_write(ctx, write_json, &ctx->stacks);
	default:
		return cli_write(ctx, write_table, &ctx->stacks);
	}
}
