/*
 * report.h - results as records of named fields, written as a readable
 * table, CSV or JSON.
 *
 * Commands fill records (one per row: a plan, a device); the writers here
 * render them the same way for every command.  Field keys are the stable
 * machine-readable names documented in specs/output.md; numbers are SI
 * (bytes, seconds, FLOP/s, watts, joules, dollars).  Machine formats print
 * numbers with 17 significant digits in the C locale; the table rounds and
 * shows units.
 */
#ifndef CAPPLAN_REPORT_H
#define CAPPLAN_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "units.h"

#define REPORT_MAX_FIELDS 128
#define REPORT_STR_MAX 256 /* a string field with its NUL: "chosen" with every key is 192 bytes */
#define REPORT_MAX_NOTES 24
#define REPORT_NOTE_MAX 512

enum report_format {
	FORMAT_TABLE,
	FORMAT_CSV,
	FORMAT_JSON,
	FORMAT_COUNT
};

/* "table", "csv", "json" -> format; -1 when unknown. */
int report_format_parse(const char *name, enum report_format *out);

enum rfield_type {
	RF_NUM,  /* double */
	RF_INT,  /* long long */
	RF_BOOL,
	RF_STR,
	RF_NULL, /* not applicable here: JSON null, empty CSV cell, "-" */
	RF_HEADING, /* a section title of the table; not in CSV or JSON */
	RF_PAIR  /* an interval [num, num2]: a JSON array of two numbers,
		    two CSV columns KEY.lo and KEY.hi, "lo - hi" in tables */
};

/* Flags of a field. */
enum {
	RF_GRID = 1,    /* a column of the table when records are rows */
	RF_PERCENT = 2, /* a fraction shown as a percentage in tables */
	RF_MACHINE = 4, /* only in CSV and JSON (the table has a note) */
	RF_WIDE = 8,    /* a grid column the table leaves out, right to
			   left, when it would be wider than its width
			   (report_write_width); --wide shows it */
	RF_TABLE = 16,  /* only in tables (a short status), not in CSV or
			   JSON */
	RF_REASON = 32, /* with RF_GRID: why a row is infeasible, written in
			   the row in place of its empty cells ("-") rather
			   than as a column (a column with --wide) */
	RF_PAIR_NULL = 64, /* on an RF_NULL: an interval with no value,
			      still two CSV columns KEY.lo and KEY.hi, so
			      that the header does not depend on the
			      values */
};

/* Columns a table keeps within unless it is written wide: the width
   when the caller gives none (report_write_wide), or report_table_width
   finds none; and the bounds of a width given. */
#define REPORT_TABLE_WIDTH 100
#define REPORT_TABLE_MIN_WIDTH 40
#define REPORT_TABLE_MAX_WIDTH 1000

struct rfield {
	const char *group; /* JSON sub-object, NULL at top level */
	const char *key;   /* JSON / CSV name */
	const char *label; /* table label */
	enum rfield_type type;
	double num;
	double num2;       /* RF_PAIR: the upper end */
	long long inum;
	bool b;
	char str[REPORT_STR_MAX];
	enum unit_kind unit; /* for tables; UNIT_KIND_COUNT: plain number */
	int flags;
};

struct record {
	struct rfield f[REPORT_MAX_FIELDS];
	int n;
	bool overflow;  /* a field did not fit: report_write fails */
};

struct report {
	char title[REPORT_NOTE_MAX];
	struct record *rec;
	size_t nrec, cap;
	bool list;             /* JSON array / table grid even for one row */
	bool one_as_record;    /* with 'list': a table of one row shows it as
				  a record, every field on a line of its own
				  (the JSON stays an array) */
	/* With 'list_key': JSON is an object holding the fields of 'meta',
	   the records as an array under 'list_key', and the notes; the
	   table shows 'meta' above the grid; CSV has the records only. */
	const char *list_key;
	struct record meta;
	char notes[REPORT_MAX_NOTES][REPORT_NOTE_MAX];
	int nnotes;
	const char *notes_key; /* JSON key of the notes array, or NULL */
};

void report_init(struct report *r, bool list);
void report_release(struct report *r);

/* Append an empty record; NULL when out of memory. */
struct record *report_add_record(struct report *r);

/* Add a note: a line under the table, an entry of the JSON notes array. */
void report_note(struct report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

void rec_num(struct record *rec, const char *group, const char *key,
	     const char *label, double v, enum unit_kind unit, int flags);
void rec_int(struct record *rec, const char *group, const char *key,
	     const char *label, long long v, int flags);
void rec_bool(struct record *rec, const char *group, const char *key,
	      const char *label, bool v, int flags);
void rec_str(struct record *rec, const char *group, const char *key,
	     const char *label, const char *v, int flags);
void rec_null(struct record *rec, const char *group, const char *key,
	      const char *label, int flags);
/* rec_num, or rec_null where 'v' is not finite: a quantity that does not
   exist here (the MTBF of a cluster that never fails, the time of a job
   that never finishes). */
void rec_num_finite(struct record *rec, const char *group, const char *key,
		    const char *label, double v, enum unit_kind unit,
		    int flags);
void rec_heading(struct record *rec, const char *title);
/* An interval [lo, hi] of a quantity of 'unit' (RF_PAIR). */
void rec_pair(struct record *rec, const char *group, const char *key,
	      const char *label, double lo, double hi, enum unit_kind unit,
	      int flags);

/*
 * Write 'r' to 'out' in 'fmt'.  Returns 0; -1 when a number is not finite
 * (a model defect, never printed) or memory runs out, with a message in
 * 'why'.  Write errors are the caller's to detect (ferror).
 *
 * CSV has a column for each field of any record (the first record's
 * order, then those first seen in later ones) and in every row a cell for
 * each column, empty where the record lacks the field; a text cell that
 * begins with '=', '+', '-', '@', a tab or CR is written as "'TEXT", so
 * that a spreadsheet does not run it (specs/output.md).
 */
int report_write(FILE *out, const struct report *r, enum report_format fmt,
		 const char **why);

/*
 * report_write, where a table with 'wide' shows every grid column (no
 * RF_WIDE column left out) and does not wrap its notes.  In a grid every
 * number column of a unit has one unit, chosen for the column's values
 * and given in its heading ("cost ($M)"), and no number is in
 * scientific notation; CSV and JSON are the same either way.
 */
int report_write_wide(FILE *out, const struct report *r,
		      enum report_format fmt, bool wide, const char **why);

/*
 * The width of a table written to 'out', in columns: $COLUMNS when it is
 * set (a whole number), else the terminal's width when 'out' is a
 * terminal (TIOCGWINSZ), else REPORT_TABLE_WIDTH; kept within
 * REPORT_TABLE_MIN_WIDTH and REPORT_TABLE_MAX_WIDTH.  Output to a pipe or
 * a file thus depends on $COLUMNS alone, never on a terminal.
 */
int report_table_width(FILE *out);

/*
 * report_write_wide with a table of 'width' columns (report_table_width;
 * report_write_wide's is REPORT_TABLE_WIDTH): the optional columns that
 * fit, and where notes and long values wrap.  CSV and JSON do not
 * depend on it.
 */
int report_write_width(FILE *out, const struct report *r,
		       enum report_format fmt, bool wide, int width,
		       const char **why);

struct cJSON;

/*
 * The JSON value report_write would print for 'r' (cJSON's; the caller
 * cJSON_Deletes it), for a document that holds several reports; NULL with
 * a message in '*why' when a number is not finite or memory runs out.
 */
struct cJSON *report_json(const struct report *r, const char **why);

/*
 * 'r' as an HTML table (its title and notes left to the caller): a grid of
 * every RF_GRID column, numbers in the unit of their column (as tables
 * show them), or for a single record a two-column table.  Text is
 * escaped (html.h).  Returns 0, or -1 as report_write does.
 */
int report_write_html(FILE *out, const struct report *r, const char **why);

#endif
