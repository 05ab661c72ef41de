/* outfile.c - output files: temporary file and rename, or write-through
   for what is not a regular file; see outfile.h. */
/* realpath is XSI */
#define _XOPEN_SOURCE 700

#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tempfile.h"

static void release(struct outfile *o)
{
	free(o->target);
	free(o->tmp);
	o->target = NULL;
	o->tmp = NULL;
	o->f = NULL;
	o->write_path = NULL;
	o->slot = -1;
}

static int fail(struct outfile *o, struct diag *err, const char *why)
{
	if (o->to_stdout)
		diag_set_io(err, NULL, 0, 0,
			    "cannot write to standard output: %s", why);
	else
		diag_set_io(err, NULL, 0, 0, "cannot write '%s': %s", o->path,
			    why);
	release(o);
	return -1;
}

/* The permission bits a new file gets: 0666 less the umask. */
static mode_t new_file_mode(void)
{
	mode_t mask = umask(0);

	umask(mask);
	return 0666 & ~mask;
}

/* Whether 'st' is the file standard output is. */
static bool is_stdout(const struct stat *st)
{
	struct stat out;

	return fstat(STDOUT_FILENO, &out) == 0 && out.st_dev == st->st_dev &&
	       out.st_ino == st->st_ino;
}

/*
 * Decide how 'o->path' is written: stdout, through, or a temporary file
 * beside 'o->target' with the mode and owner of the file it replaces.
 * With 'open_stream' a stream is opened too.
 */
static int setup(struct outfile *o, const char *path, bool open_stream,
		 struct diag *err)
{
	struct stat st, lst;
	bool exists, have_owner = false;
	mode_t mode;
	int fd;

	memset(o, 0, sizeof(*o));
	o->path = path;
	o->slot = -1;
	if (strcmp(path, "-") == 0 ||
	    (stat(path, &st) == 0 && is_stdout(&st))) {
		if (!open_stream)
			return fail(o, err, "standard output cannot be named "
					    "here");
		o->to_stdout = true;
		o->f = stdout;
		return 0;
	}
	if (path[0] == '\0')
		return fail(o, err, strerror(ENOENT));
	exists = lstat(path, &lst) == 0;
	if (!exists && errno != ENOENT)
		return fail(o, err, strerror(errno));
	if (exists && S_ISLNK(lst.st_mode)) {
		/* follow the link: its file is written, the link stays */
		if (stat(path, &st) != 0)
			return fail(o, err, errno == ENOENT ?
					"it is a symbolic link to a missing "
					"file" : strerror(errno));
		lst = st;
		if (S_ISREG(st.st_mode)) {
			o->target = realpath(path, NULL);
			if (!o->target)
				return fail(o, err, strerror(errno));
		}
	}
	if (exists && S_ISDIR(lst.st_mode))
		return fail(o, err, "it is a directory");
	if (exists && !S_ISREG(lst.st_mode)) {
		/* /dev/null, a FIFO, a terminal: written in place */
		o->through = true;
		o->write_path = path;
		if (!open_stream)
			return 0;
		fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
		if (fd < 0)
			return fail(o, err, strerror(errno));
		o->f = fdopen(fd, "w");
		if (!o->f) {
			close(fd);
			return fail(o, err, strerror(errno));
		}
		return 0;
	}
	if (!o->target) {
		o->target = strdup(path);
		if (!o->target)
			return fail(o, err, strerror(ENOMEM));
	}
	if (exists) {
		/* refused, not replaced: what cannot be written stays */
		if (!(lst.st_mode & 0222))
			return fail(o, err, "the file is read-only (it has no "
					    "write permission)");
		if (access(o->target, W_OK) != 0)
			return fail(o, err, strerror(errno));
		mode = lst.st_mode & 0777;
		have_owner = true;
	} else {
		mode = new_file_mode();
	}
	fd = tempfile_create(o->target, &o->tmp, &o->slot);
	if (fd < 0)
		return fail(o, err, strerror(errno));
	if (fchmod(fd, mode) != 0) {
		int e = errno;

		close(fd);
		tempfile_remove(o->slot);
		return fail(o, err, strerror(e));
	}
	/* the owner and group too, as far as we may (root may; others keep
	   at least a group they belong to); a file of ours otherwise */
	if (have_owner && fchown(fd, lst.st_uid, lst.st_gid) != 0 &&
	    fchown(fd, (uid_t)-1, lst.st_gid) != 0) {
		/* best effort, as cp -p without root */
	}
	o->write_path = o->tmp;
	if (!open_stream) {
		close(fd);
		return 0;
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		int e = errno;

		close(fd);
		tempfile_remove(o->slot);
		return fail(o, err, strerror(e));
	}
	return 0;
}

int outfile_open(struct outfile *o, const char *path, struct diag *err)
{
	return setup(o, path, true, err);
}

int outfile_prepare(struct outfile *o, const char *path, struct diag *err)
{
	return setup(o, path, false, err);
}

int outfile_commit(struct outfile *o, struct diag *err)
{
	int e = 0;

	if (o->f && (fflush(o->f) != 0 || ferror(o->f)))
		e = errno ? errno : EIO;
	/* the data are on disk before the name points at them */
	if (o->f && !e && o->tmp && fsync(fileno(o->f)) != 0)
		e = errno;
	if (o->f && !o->to_stdout && fclose(o->f) != 0 && !e)
		e = errno ? errno : EIO;
	if (!o->f && o->tmp && !e) {
		/* written by another program: synced here */
		int fd = open(o->tmp, O_RDONLY | O_CLOEXEC);

		if (fd < 0 || fsync(fd) != 0)
			e = errno;
		if (fd >= 0)
			close(fd);
	}
	o->f = NULL;
	if (!e && o->tmp && rename(o->tmp, o->target) != 0)
		e = errno;
	if (e) {
		tempfile_remove(o->slot);
		return fail(o, err, strerror(e));
	}
	tempfile_forget(o->slot);
	release(o);
	return 0;
}

void outfile_abort(struct outfile *o)
{
	if (o->f && !o->to_stdout)
		fclose(o->f);
	o->f = NULL;
	tempfile_remove(o->slot);
	release(o);
}
