/* readfile.c - read a whole input file; see readfile.h. */
#include "readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *readfile_kind_name(unsigned mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	if (S_ISREG(mode))
		return "a regular file";
	return "a special file";
}

static int read_fd(int fd, const char *path, size_t max, char **out,
		   size_t *out_len, struct diag *err)
{
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap + 1);

	if (!buf)
		return diag_set_kind(err, DIAG_NOMEM, NULL, 0, 0,
				     "out of memory");
	for (;;) {
		ssize_t got;

		if (len == cap) {
			char *nbuf;

			if (cap > max)
				goto out_too_large;
			nbuf = realloc(buf, 2 * cap + 1);
			if (!nbuf) {
				diag_set_kind(err, DIAG_NOMEM, NULL, 0, 0,
					      "out of memory");
				goto out_free;
			}
			buf = nbuf;
			cap *= 2;
		}
		got = read(fd, buf + len, cap - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			diag_set_io(err, NULL, 0, 0, "cannot read '%s': %s",
				    path, strerror(errno));
			goto out_free;
		}
		if (got == 0)
			break;
		len += (size_t)got;
	}
	if (len > max)
		goto out_too_large;
	buf[len] = '\0';
	*out = buf;
	*out_len = len;
	return 0;
out_too_large:
	diag_set(err, NULL, 0, 0, "cannot read '%s': larger than %zu bytes",
		 path, max);
out_free:
	free(buf);
	return -1;
}

/* "-": the standard input, already open (a pipe, a file, a terminal). */
static int read_stdin(size_t max, char **buf, size_t *len, struct diag *err)
{
	struct stat st;

	if (fstat(STDIN_FILENO, &st) != 0)
		return diag_set_io(err, NULL, 0, 0,
				   "cannot read the standard input: %s",
				   strerror(errno));
	if (S_ISDIR(st.st_mode))
		return diag_set_io(err, NULL, 0, 0,
				   "cannot read the standard input: expected "
				   "a file, found a directory");
	return read_fd(STDIN_FILENO, READFILE_STDIN_NAME, max, buf, len, err);
}

int readfile_all(const char *path, enum readfile_mode mode, size_t max,
		 char **buf, size_t *len, struct diag *err)
{
	struct stat st;
	int fd, rc = -1;
	int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY;

	*buf = NULL;
	*len = 0;
	if (mode == READFILE_ANY && strcmp(path, "-") == 0)
		return read_stdin(max, buf, len, err);
	/* O_NONBLOCK: opening a FIFO without a writer must not hang */
	if (mode == READFILE_REGULAR)
		flags |= O_NONBLOCK;
	fd = open(path, flags);
	if (fd < 0)
		return diag_set_io(err, NULL, 0, 0, "cannot read '%s': %s",
				   path, strerror(errno));
	if (fstat(fd, &st) != 0) {
		diag_set_io(err, NULL, 0, 0, "cannot read '%s': %s", path,
			    strerror(errno));
		goto out_close;
	}
	if (mode == READFILE_REGULAR && !S_ISREG(st.st_mode)) {
		diag_set_io(err, NULL, 0, 0,
			    "cannot read '%s': expected a regular file, found "
			    "%s",
			    path, readfile_kind_name(st.st_mode));
		goto out_close;
	}
	if (S_ISDIR(st.st_mode)) {
		diag_set_io(err, NULL, 0, 0,
			    "cannot read '%s': expected a file, found a "
			    "directory",
			    path);
		goto out_close;
	}
	if (S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (unsigned long long)st.st_size > max) {
		diag_set(err, NULL, 0, 0,
			 "cannot read '%s': larger than %zu bytes", path, max);
		goto out_close;
	}
	rc = read_fd(fd, path, max, buf, len, err);
out_close:
	close(fd);
	return rc;
}

const char *readfile_display_name(const char *path)
{
	return strcmp(path, "-") == 0 ? READFILE_STDIN_NAME : path;
}
