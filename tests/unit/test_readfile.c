/* test_readfile.c - reading whole input files (readfile.c), cmocka. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "readfile.h"

/* A new empty folder under /tmp, its path in 'dir' (64 bytes). */
static void make_dir(char *dir)
{
	strcpy(dir, "/tmp/test_readfile_XXXXXX");
	assert_non_null(mkdtemp(dir));
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void expect_fail(const char *path, enum readfile_mode mode,
			size_t max, enum diag_kind kind, const char *msg)
{
	struct diag d;
	char *buf = (char *)&d;
	size_t len = 7;

	diag_clear(&d);
	if (readfile_all(path, mode, max, &buf, &len, &d) != -1)
		fail_msg("%s (mode %d) was read", path, (int)mode);
	assert_null(buf);
	assert_int_equal(len, 0);
	assert_string_equal(d.file, "");
	assert_int_equal(d.kind, kind);
	assert_string_equal(d.msg, msg);
}

static void test_regular(void **state)
{
	char dir[64], path[96];
	struct diag d;
	char *buf;
	size_t len;

	(void)state;
	make_dir(dir);
	snprintf(path, sizeof(path), "%s/a.txt", dir);
	write_text(path, "0123456789");
	for (int mode = READFILE_ANY; mode <= READFILE_REGULAR; mode++) {
		diag_clear(&d);
		assert_int_equal(readfile_all(path, (enum readfile_mode)mode,
					      10, &buf, &len, &d),
				 0);
		assert_int_equal(len, 10);
		assert_string_equal(buf, "0123456789"); /* NUL-terminated */
		free(buf);
	}
	/* one byte more than allowed is bad input, not an I/O error */
	{
		char msg[160];

		snprintf(msg, sizeof(msg),
			 "cannot read '%s': larger than 9 bytes", path);
		expect_fail(path, READFILE_REGULAR, 9, DIAG_INPUT, msg);
	}
	unlink(path);
	rmdir(dir);
}

static void test_not_files(void **state)
{
	char dir[64], fifo[96], msg[256];
	struct diag d;
	char *buf;
	size_t len;

	(void)state;
	make_dir(dir);
	snprintf(msg, sizeof(msg),
		 "cannot read '%s': expected a file, found a directory", dir);
	expect_fail(dir, READFILE_ANY, 100, DIAG_IO, msg);
	snprintf(msg, sizeof(msg),
		 "cannot read '%s': expected a regular file, found a "
		 "directory", dir);
	expect_fail(dir, READFILE_REGULAR, 100, DIAG_IO, msg);
	/* a FIFO without a writer: an error at once, no hang */
	snprintf(fifo, sizeof(fifo), "%s/pipe", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	snprintf(msg, sizeof(msg),
		 "cannot read '%s': expected a regular file, found a FIFO",
		 fifo);
	expect_fail(fifo, READFILE_REGULAR, 100, DIAG_IO, msg);
	expect_fail("/dev/null", READFILE_REGULAR, 100, DIAG_IO,
		    "cannot read '/dev/null': expected a regular file, found "
		    "a character device");
	/* the command line may name a device: /dev/null reads empty */
	diag_clear(&d);
	assert_int_equal(readfile_all("/dev/null", READFILE_ANY, 100, &buf,
				      &len, &d),
			 0);
	assert_int_equal(len, 0);
	free(buf);
	expect_fail("/nonexistent/x", READFILE_ANY, 100, DIAG_IO,
		    "cannot read '/nonexistent/x': No such file or directory");
	unlink(fifo);
	rmdir(dir);
}

/* "-" reads the standard input, here a file put on fd 0. */
static void test_stdin(void **state)
{
	char dir[64], path[96];
	struct diag d;
	char *buf;
	size_t len;
	int saved, fd;

	(void)state;
	make_dir(dir);
	snprintf(path, sizeof(path), "%s/in.ini", dir);
	write_text(path, "[model]\n");
	saved = dup(STDIN_FILENO);
	assert_true(saved >= 0);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(dup2(fd, STDIN_FILENO), STDIN_FILENO);
	close(fd);
	diag_clear(&d);
	assert_int_equal(readfile_all("-", READFILE_ANY, 100, &buf, &len, &d),
			 0);
	assert_int_equal(len, 8);
	assert_string_equal(buf, "[model]\n");
	free(buf);
	/* over the limit: named as messages name it */
	assert_int_equal(lseek(STDIN_FILENO, 0, SEEK_SET), 0);
	expect_fail("-", READFILE_ANY, 3, DIAG_INPUT,
		    "cannot read '<stdin>': larger than 3 bytes");
	/* where a regular file is needed, "-" is a file name like another */
	expect_fail("-", READFILE_REGULAR, 100, DIAG_IO,
		    "cannot read '-': No such file or directory");
	assert_int_equal(dup2(saved, STDIN_FILENO), STDIN_FILENO);
	close(saved);
	assert_string_equal(readfile_display_name("-"), "<stdin>");
	assert_string_equal(readfile_display_name("a.ini"), "a.ini");
	assert_string_equal(readfile_display_name("./-"), "./-");
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_regular),
		cmocka_unit_test(test_not_files),
		cmocka_unit_test(test_stdin),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
