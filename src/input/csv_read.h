/*
 * csv_read.h - feed a CSV text to libcsv so that every field and every
 * error has its line and column (the catalog and trace readers).
 *
 * The text is read strictly (libcsv's CSV_STRICT): records end at LF, a
 * CR before it is dropped, a UTF-8 byte-order mark at the start is
 * skipped, and a NUL byte, a stray '"', text after a closing quote or an
 * unterminated quoted field is an error.  With 'comments', blank lines
 * and lines whose first non-blank byte is '#' are skipped between
 * records.  For each field 'on_field' gets its text (NUL-terminated) and
 * its place: its first non-blank byte; for an empty field the byte after
 * its ',' (the line's start for the first field).  At each record's end
 * 'on_record' runs.  Positions are 1-based, in bytes, and stop at
 * INT_MAX.  The callbacks run in the C numeric locale (c_numeric.h).
 * The first error wins: csv_read_fail records it and later ones are
 * dropped, and no callback runs after it.
 */
#ifndef CAPPLAN_CSV_READ_H
#define CAPPLAN_CSV_READ_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"

struct csv_pos {
	int line; /* 1-based */
	int col;  /* 1-based, in bytes */
};

struct csv_reader {
	/* set by the caller */
	const char *file;       /* for messages */
	struct diag *err;       /* the first error */
	bool comments;          /* skip blank and '#' lines between records */
	void (*on_field)(struct csv_reader *r, const char *text, size_t len,
			 struct csv_pos at);
	void (*on_record)(struct csv_reader *r);

	/* for the callbacks to read */
	bool failed;            /* an error was recorded */
	struct csv_pos cur;     /* the byte being fed (a record's '\n') */
	int field;              /* index of the field being ended, from 0 */

	/* the reader's own */
	bool line_start;        /* the next byte begins a record */
	bool field_open;        /* a non-blank byte of this field was fed */
	struct csv_pos content; /* its first non-blank byte */
	struct csv_pos after_delim; /* the byte after the last ',' */
};

/*
 * Read 'buf' ('len' bytes) with 'r', its caller's part set and the rest
 * zero (a reader is embedded first in the caller's context, so that the
 * callbacks can convert 'r' back).  Returns 0, or -1 with the error in
 * 'r->err' (DIAG_INPUT; out of memory too).
 */
int csv_read(struct csv_reader *r, const char *buf, size_t len);

/* Record an error at 'at' unless one was recorded before; returns -1. */
__attribute__((format(printf, 3, 4)))
int csv_read_fail(struct csv_reader *r, struct csv_pos at, const char *fmt,
		  ...);

/* 'n' + 1, stopping at INT_MAX. */
int csv_read_inc(int n);

#endif
