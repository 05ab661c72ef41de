/*
 * diag.h - error records for parsers and models.
 *
 * A diag carries where an error happened (file, line, column; 0 when not
 * known) and a message in git's style: lowercase, no trailing full stop,
 * the subject quoted.  Functions that can fail take a 'struct diag *' that
 * may be NULL; they fill it on the first error only.
 */
#ifndef CAPPLAN_DIAG_H
#define CAPPLAN_DIAG_H

#include <stdio.h>

#define DIAG_FILE_MAX 256
#define DIAG_MSG_MAX 512

/* What kind of error a record holds: the exit status follows from it
   (cli.h, man page EXIT STATUS). */
enum diag_kind {
	DIAG_INPUT = 0, /* the input is wrong: bad syntax, a bad value */
	DIAG_IO,        /* a file could not be read: missing, unreadable,
			   not a regular file where one is needed */
	DIAG_NOMEM,     /* out of memory */
};

struct diag {
	char file[DIAG_FILE_MAX]; /* "" when the error has no file */
	int line;                 /* 1-based, 0 when unknown */
	int col;                  /* 1-based, 0 when unknown */
	char msg[DIAG_MSG_MAX];
	enum diag_kind kind;      /* DIAG_INPUT unless set otherwise */
};

/* Clear a record: no error. */
void diag_clear(struct diag *d);

/*
 * Record an error unless one is already recorded (the first error wins).
 * 'file' may be NULL.  Does nothing when 'd' is NULL.  Always returns -1 so
 * that callers can write 'return diag_set(...)'.
 */
int diag_set(struct diag *d, const char *file, int line, int col,
	     const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* diag_set of an error of 'kind' (diag_set records DIAG_INPUT). */
int diag_set_kind(struct diag *d, enum diag_kind kind, const char *file,
		  int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/* diag_set_kind of DIAG_IO: a file that could not be read. */
int diag_set_io(struct diag *d, const char *file, int line, int col,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* True when an error is recorded. */
int diag_has_error(const struct diag *d);

/*
 * Write "file:line:col: msg" (parts that are unknown are left out) and a
 * newline to 'out', prefixed by "capplan: error: " when there is no file.
 * The file name and the message are written through text_fputs_escaped:
 * control characters and bytes that are not UTF-8 come out as \xHH.
 */
void diag_print(FILE *out, const struct diag *d);

#endif
