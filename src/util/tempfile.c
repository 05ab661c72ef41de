/* tempfile.c - temporary files removed at exit and on fatal signals; see
   tempfile.h.  The registry is static: the signal handler must find it. */
#include "tempfile.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef NAME_MAX
#define NAME_MAX 255
#endif

static struct {
	char *path;
	volatile sig_atomic_t active;
} temps[TEMPFILE_MAX];

static volatile sig_atomic_t child;
static bool installed;

static const int fatal_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT,
				     SIGPIPE };

/* Only async-signal-safe calls: kill, waitpid, unlink, sigaction, raise. */
static void remove_all(void)
{
	pid_t pid = (pid_t)child;

	if (pid > 0) {
		kill(pid, SIGKILL);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		child = 0;
	}
	for (int i = 0; i < TEMPFILE_MAX; i++)
		if (temps[i].active) {
			unlink(temps[i].path);
			temps[i].active = 0;
		}
}

static void on_signal(int sig)
{
	struct sigaction sa;
	int e = errno;

	remove_all();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
	errno = e;
	raise(sig); /* delivered when the handler returns */
}

static void on_exit_remove(void)
{
	remove_all();
}

static void install(void)
{
	if (installed)
		return;
	installed = true;
	atexit(on_exit_remove);
	for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]);
	     i++) {
		struct sigaction sa, old;

		if (sigaction(fatal_signals[i], NULL, &old) == 0 &&
		    old.sa_handler == SIG_IGN)
			continue; /* nohup: stay ignored */
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		for (size_t j = 0;
		     j < sizeof(fatal_signals) / sizeof(fatal_signals[0]); j++)
			sigaddset(&sa.sa_mask, fatal_signals[j]);
		sigaction(fatal_signals[i], &sa, NULL);
	}
}

int tempfile_create(const char *path, char **name, int *slot)
{
	static const char suffix[] = ".tmpXXXXXX";
	static const char fallback[] = ".capplan.tmpXXXXXX";
	const char *slash = strrchr(path, '/');
	size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
	size_t base_len = strlen(path) - dir_len;
	size_t n = dir_len + base_len + sizeof(suffix) + sizeof(fallback);
	char *tmp, *copy;
	int fd, s = -1, e;

	for (int i = 0; i < TEMPFILE_MAX && s < 0; i++)
		if (!temps[i].active && !temps[i].path)
			s = i;
	if (s < 0) {
		errno = EMFILE;
		return -1;
	}
	tmp = malloc(n);
	copy = malloc(n);
	if (!tmp || !copy) {
		free(tmp);
		free(copy);
		errno = ENOMEM;
		return -1;
	}
	if (base_len + sizeof(suffix) - 1 <= NAME_MAX)
		snprintf(tmp, n, "%s%s", path, suffix);
	else
		snprintf(tmp, n, "%.*s%s", (int)dir_len, path, fallback);
	install();
	fd = mkstemp(tmp);
	if (fd < 0) {
		e = errno;
		free(tmp);
		free(copy);
		errno = e;
		return -1;
	}
	memcpy(copy, tmp, strlen(tmp) + 1);
	temps[s].path = copy;
	temps[s].active = 1;
	*name = tmp;
	*slot = s;
	return fd;
}

void tempfile_forget(int slot)
{
	if (slot < 0 || slot >= TEMPFILE_MAX)
		return;
	temps[slot].active = 0;
	free(temps[slot].path);
	temps[slot].path = NULL;
}

void tempfile_remove(int slot)
{
	if (slot < 0 || slot >= TEMPFILE_MAX || !temps[slot].path)
		return;
	if (temps[slot].active)
		unlink(temps[slot].path);
	tempfile_forget(slot);
}

void tempfile_watch_child(pid_t pid)
{
	child = pid;
}
