/* table.c - a validation CSV file held whole; see table.h. */
#include "table.h"

#include <csv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void on_field(void *s, size_t len, void *data)
{
	struct table *t = data;
	char *v;

	if (t->c >= TABLE_MAX_COLS || t->r > TABLE_MAX_ROWS) {
		t->bad = 1;
		return;
	}
	v = malloc(len + 1);
	if (!v) {
		t->bad = 1;
		return;
	}
	memcpy(v, s, len);
	v[len] = '\0';
	if (t->r == 0)
		t->head[t->c] = v;
	else
		t->cell[t->r - 1][t->c] = v;
	t->c++;
}

static void on_row(int ch, void *data)
{
	struct table *t = data;

	(void)ch;
	if (t->r == 0)
		t->cols = t->c;
	else if (t->c != t->cols)
		t->bad = 1;
	t->c = 0;
	t->r++;
	t->rows = t->r - 1;
}

int table_load(const char *path, struct table *t)
{
	struct csv_parser p;
	char buf[4096];
	size_t n;
	FILE *f = fopen(path, "rb");

	memset(t, 0, sizeof(*t));
	if (!f) {
		perror(path);
		return -1;
	}
	csv_init(&p, CSV_STRICT | CSV_APPEND_NULL);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		if (csv_parse(&p, buf, n, on_field, on_row, t) != n) {
			fprintf(stderr, "%s: %s\n", path,
				csv_strerror(csv_error(&p)));
			t->bad = 1;
			break;
		}
	csv_fini(&p, on_field, on_row, t);
	csv_free(&p);
	fclose(f);
	if (t->bad)
		fprintf(stderr, "%s: more than %d rows or %d columns, or a row "
				"of another width\n",
			path, TABLE_MAX_ROWS, TABLE_MAX_COLS);
	return t->bad ? -1 : 0;
}

void table_free(struct table *t)
{
	for (int c = 0; c < TABLE_MAX_COLS; c++) {
		free(t->head[c]);
		t->head[c] = NULL;
		for (int r = 0; r < TABLE_MAX_ROWS; r++) {
			free(t->cell[r][c]);
			t->cell[r][c] = NULL;
		}
	}
}

const char *table_cell(const struct table *t, int row, const char *name)
{
	for (int c = 0; c < t->cols; c++)
		if (strcmp(t->head[c], name) == 0)
			return t->cell[row][c] ? t->cell[row][c] : "";
	return NULL;
}
