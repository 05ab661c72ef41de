/*
 * readfile.h - read a whole input file into memory, without waiting on a
 * FIFO and without reading a directory.
 *
 * Files named on the command line (a workload, --catalog) may be anything
 * that reads like a file: a regular file, a FIFO or /dev/stdin (as with
 * 'capplan train <(generate)'), but not a directory; "-" is the standard
 * input.  Files named inside
 * an input or standing in for one (hf_config, --model, a trace) must be
 * regular files: they are opened without blocking, so that a FIFO is an
 * error at once instead of a hang.
 */
#ifndef CAPPLAN_READFILE_H
#define CAPPLAN_READFILE_H

#include <stddef.h>

#include "diag.h"

/* How messages name the standard input ("-"), as compilers do. */
#define READFILE_STDIN_NAME "<stdin>"

/* The name messages give 'path': READFILE_STDIN_NAME for "-". */
const char *readfile_display_name(const char *path);

enum readfile_mode {
	READFILE_ANY,     /* anything but a directory, "-" the standard
			     input; may block */
	READFILE_REGULAR, /* a regular file only; never blocks */
};

/*
 * Read all of 'path' into a new buffer '*buf' (to free; one byte more
 * than '*len' is allocated and set to NUL), at most 'max' bytes.
 * Returns 0, or -1 with the error in 'err' (no file name, the path in the
 * message): DIAG_IO for a file that cannot be opened or read or is not of
 * the kind 'mode' allows, DIAG_INPUT for one larger than 'max', DIAG_NOMEM.
 */
int readfile_all(const char *path, enum readfile_mode mode, size_t max,
		 char **buf, size_t *len, struct diag *err);

/* "a directory", "a FIFO", "a character device", ... for a file mode. */
const char *readfile_kind_name(unsigned mode);

#endif
