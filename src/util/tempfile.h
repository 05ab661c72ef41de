/*
 * tempfile.h - temporary files that never outlive the program: a small
 * registry of the files being written (as git's tempfile.c keeps), removed
 * at exit and on SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGPIPE.
 *
 * The signal handler kills the child being waited for (gnuplot, which
 * writes into a temporary file), removes every registered file and then
 * dies of the same signal, so that the parent shell sees the usual status.
 * A signal that was ignored when the first file was registered stays
 * ignored (nohup).  The registry is for the main thread: register and
 * forget files from one thread only.
 */
#ifndef CAPPLAN_TEMPFILE_H
#define CAPPLAN_TEMPFILE_H

#include <stddef.h>
#include <sys/types.h>

/* Files that may be registered at once. */
#define TEMPFILE_MAX 16

/*
 * Create a new empty file (mode 0600) in the folder of 'path', named
 * after it: "NAME.tmpXXXXXX", or ".capplan.tmpXXXXXX" when that would be
 * longer than a file name may be (a legal 255-byte NAME has no room for
 * the suffix), and register it.  Returns its descriptor, with its name in
 * '*name' (to free) and its registry slot in '*slot'; or -1 with errno
 * set (EMFILE: the registry is full).
 */
int tempfile_create(const char *path, char **name, int *slot);

/* Forget the file of 'slot' (it was renamed into place); -1 is a no-op. */
void tempfile_forget(int slot);

/* Remove the file of 'slot' and forget it; -1 is a no-op. */
void tempfile_remove(int slot);

/* The child to kill (SIGKILL) before the files are removed on a signal;
   0: none. */
void tempfile_watch_child(pid_t pid);

#endif
