/* test_outfile.c - output files (outfile.c) and the temporary-file
   registry (tempfile.c), cmocka. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"
#include "tempfile.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/test_outfile_XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Files in the test folder. */
static int entries(void)
{
	char cmd[128];
	FILE *p;
	int n = 0, c;

	snprintf(cmd, sizeof(cmd), "ls -A '%s'", dir);
	p = popen(cmd, "r");
	assert_non_null(p);
	while ((c = fgetc(p)) != EOF)
		n += c == '\n';
	pclose(p);
	return n;
}

static void put(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, mode), 0);
}

static char *slurp(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void write_ok(const char *path, const char *text)
{
	struct outfile o;
	struct diag d;

	diag_clear(&d);
	if (outfile_open(&o, path, &d) != 0)
		fail_msg("%s", d.msg);
	fputs(text, o.f);
	if (outfile_commit(&o, &d) != 0)
		fail_msg("%s", d.msg);
}

static void test_replace_keeps_mode(void **state)
{
	char p[128];
	struct stat st;

	(void)state;
	snprintf(p, sizeof(p), "%s/a.txt", dir);
	put(p, "old", 0640);
	write_ok(p, "new");
	assert_string_equal(slurp(p), "new");
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0640);
	assert_int_equal(entries(), 1);
	unlink(p);
}

static void test_read_only_refused(void **state)
{
	char p[128], msg[320];
	struct outfile o;
	struct diag d;

	(void)state;
	snprintf(p, sizeof(p), "%s/ro.txt", dir);
	put(p, "old", 0444);
	diag_clear(&d);
	assert_int_equal(outfile_open(&o, p, &d), -1);
	assert_int_equal(d.kind, DIAG_IO);
	snprintf(msg, sizeof(msg), "cannot write '%s': the file is read-only "
				   "(it has no write permission)", p);
	assert_string_equal(d.msg, msg);
	assert_string_equal(slurp(p), "old");
	assert_int_equal(entries(), 1);
	unlink(p);
}

static void test_abort_leaves_old(void **state)
{
	char p[128];
	struct outfile o;
	struct diag d;

	(void)state;
	snprintf(p, sizeof(p), "%s/keep.txt", dir);
	put(p, "old", 0644);
	diag_clear(&d);
	assert_int_equal(outfile_open(&o, p, &d), 0);
	assert_non_null(o.tmp);
	fputs("half", o.f);
	outfile_abort(&o);
	assert_string_equal(slurp(p), "old");
	assert_int_equal(entries(), 1);
	unlink(p);
}

static void test_symlink_followed(void **state)
{
	char target[128], link[128];
	struct stat st;

	(void)state;
	snprintf(target, sizeof(target), "%s/target.txt", dir);
	snprintf(link, sizeof(link), "%s/link.txt", dir);
	put(target, "old", 0604);
	assert_int_equal(symlink("target.txt", link), 0);
	write_ok(link, "new");
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_string_equal(slurp(target), "new");
	assert_int_equal(stat(target, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0604);
	assert_int_equal(entries(), 2);
	unlink(link);
	unlink(target);
}

static void test_through_and_stdout(void **state)
{
	struct outfile o;
	struct diag d;
	struct stat st, out;
	bool null_is_stdout;

	(void)state;
	diag_clear(&d);
	/* run with standard output on /dev/null (make mutate does), the
	   path names standard output and is written as such */
	assert_int_equal(stat("/dev/null", &st), 0);
	null_is_stdout = fstat(STDOUT_FILENO, &out) == 0 &&
			 out.st_dev == st.st_dev && out.st_ino == st.st_ino;
	assert_int_equal(outfile_open(&o, "/dev/null", &d), 0);
	if (null_is_stdout)
		assert_true(o.to_stdout);
	else
		assert_true(o.through);
	assert_null(o.tmp);
	fputs("x", o.f);
	assert_int_equal(outfile_commit(&o, &d), 0);
	assert_int_equal(stat("/dev/null", &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	assert_int_equal(outfile_open(&o, "-", &d), 0);
	assert_true(o.to_stdout);
	assert_ptr_equal(o.f, stdout);
	assert_int_equal(outfile_commit(&o, &d), 0);
	/* a child cannot be handed standard output */
	assert_int_equal(outfile_prepare(&o, "-", &d), -1);
	assert_string_equal(d.msg, "cannot write '-': standard "
				   "output cannot be named here");
}

static void test_prepare_for_a_child(void **state)
{
	char p[128];
	struct outfile o;
	struct diag d;
	struct stat st;

	(void)state;
	snprintf(p, sizeof(p), "%s/chart.svg", dir);
	diag_clear(&d);
	assert_int_equal(outfile_prepare(&o, p, &d), 0);
	assert_null(o.f);
	assert_ptr_equal(o.write_path, o.tmp);
	assert_int_equal(stat(o.tmp, &st), 0); /* created, empty */
	assert_int_equal(st.st_size, 0);
	put(o.tmp, "<svg/>", 0600);
	assert_int_equal(outfile_commit(&o, &d), 0);
	assert_string_equal(slurp(p), "<svg/>");
	assert_int_equal(entries(), 1);
	unlink(p);
}

/* A 255-byte name has no room for a suffix: the temporary file gets a
   short name of its own. */
static void test_long_name(void **state)
{
	char base[256], p[512], *name;
	int fd, slot;

	(void)state;
	memset(base, 'n', 255);
	base[255] = '\0';
	snprintf(p, sizeof(p), "%s/%s", dir, base);
	fd = tempfile_create(p, &name, &slot);
	assert_true(fd >= 0);
	close(fd);
	assert_non_null(strstr(name, "/.capplan.tmp"));
	tempfile_remove(slot);
	free(name);
	write_ok(p, "long");
	assert_string_equal(slurp(p), "long");
	assert_int_equal(entries(), 1);
	unlink(p);
}

static void test_registry_full(void **state)
{
	char p[128], *names[TEMPFILE_MAX], *extra;
	int slots[TEMPFILE_MAX], slot;

	(void)state;
	snprintf(p, sizeof(p), "%s/x", dir);
	for (int i = 0; i < TEMPFILE_MAX; i++) {
		int fd = tempfile_create(p, &names[i], &slots[i]);

		assert_true(fd >= 0);
		close(fd);
	}
	errno = 0;
	assert_int_equal(tempfile_create(p, &extra, &slot), -1);
	assert_int_equal(errno, EMFILE);
	for (int i = 0; i < TEMPFILE_MAX; i++) {
		tempfile_remove(slots[i]);
		free(names[i]);
	}
	assert_int_equal(entries(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replace_keeps_mode),
		cmocka_unit_test(test_read_only_refused),
		cmocka_unit_test(test_abort_leaves_old),
		cmocka_unit_test(test_symlink_followed),
		cmocka_unit_test(test_through_and_stdout),
		cmocka_unit_test(test_prepare_for_a_child),
		cmocka_unit_test(test_long_name),
		cmocka_unit_test(test_registry_full),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
