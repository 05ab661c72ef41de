/*
 * outfile.h - output files written the way mature tools write them.
 *
 * 'capplan ... -o PATH' and the files of 'plot' go through here:
 *   - "-", or a path that names the file standard output already is
 *     (/dev/stdout, /proc/self/fd/1), is standard output;
 *   - a regular file, or a new one, is written to a temporary file in the
 *     same folder (tempfile.h: removed on failure, at exit and on fatal
 *     signals) and renamed into place only when everything was written, so
 *     that a failure leaves the old file whole; an existing file keeps its
 *     permission bits (and, as far as allowed, its owner and group); a
 *     file without write permission is refused, not replaced, even for
 *     root (as vim and rm treat write-protected files);
 *   - a symbolic link is followed: the file it leads to is replaced as
 *     above (in that file's folder) and the link stays a link; a link to a
 *     missing file is refused;
 *   - anything else that is not a directory (/dev/null, a FIFO, a
 *     terminal, a device) is written through, in place: such a file
 *     cannot be renamed over, and its writer may wait for a reader as a
 *     shell redirection does.
 * Errors fill a diag of kind DIAG_IO ("cannot write 'PATH': why").
 */
#ifndef CAPPLAN_OUTFILE_H
#define CAPPLAN_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "diag.h"

struct outfile {
	const char *path;   /* as given, for messages; not owned */
	FILE *f;            /* the stream to write (outfile_open) */
	char *target;       /* the file replaced: 'path' or the regular
			       file a symbolic link leads to; owned */
	char *tmp;          /* the temporary file beside 'target'; NULL
			       when writing through or to stdout; owned */
	const char *write_path; /* where a child writes (outfile_prepare):
				   'tmp', or 'path' when written through */
	int slot;           /* tempfile slot of 'tmp', or -1 */
	bool to_stdout;     /* standard output */
	bool through;       /* written in place: not a regular file */
};

/*
 * Open 'path' for writing into 'o->f' as described above.  Returns 0, or
 * -1 with 'err' set and nothing left behind.
 */
int outfile_open(struct outfile *o, const char *path, struct diag *err);

/*
 * Like outfile_open for a file another program writes (gnuplot's 'set
 * output'): no stream; the temporary file is created, empty, and its name
 * (or, written through, 'path') is in 'o->write_path'.  Standard output
 * is not possible here: "-" is refused.
 */
int outfile_prepare(struct outfile *o, const char *path, struct diag *err);

/*
 * Finish: flush and close the stream, then move the temporary file into
 * place (synced first).  Returns 0, or -1 with 'err' set; then the old
 * file is untouched and the temporary file removed.  'o' is released
 * either way.
 */
int outfile_commit(struct outfile *o, struct diag *err);

/* Give up: close the stream, remove the temporary file, release 'o'. */
void outfile_abort(struct outfile *o);

#endif
