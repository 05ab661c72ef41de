/* table.h - a validation CSV file held whole: its header and cells, for
   the harnesses validate_serving.c and validate_ep.c (libcsv, strict). */
#ifndef CAPPLAN_VALIDATION_TABLE_H
#define CAPPLAN_VALIDATION_TABLE_H

#define TABLE_MAX_ROWS 256
#define TABLE_MAX_COLS 40

struct table {
	int rows, cols;
	char *head[TABLE_MAX_COLS];
	char *cell[TABLE_MAX_ROWS][TABLE_MAX_COLS];
	int r, c;  /* the parser's place */
	int bad;   /* too many rows or columns, a ragged row, no memory */
};

/* Read 'path' into 't' (cleared first); 0, or -1 with the reason on
   stderr.  table_free releases it either way. */
int table_load(const char *path, struct table *t);

void table_free(struct table *t);

/* The cell of column 'name' in row 'row' ("" when empty), or NULL when
   the file has no such column. */
const char *table_cell(const struct table *t, int row, const char *name);

#endif
