// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * core/util/scratch.c: a scratch directory is told live or dead by the flock
 * on its lock file, never by a PID. A live owner's (another process, here a
 * child holding it) is never swept; a dead owner's (a child that _exit()ed
 * without cleaning up, as SIGKILL would leave it) is, lock file and all; a
 * directory without a lock, a planted FIFO or symlink are left alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/scratch.h"
#include "tap.h"

static char root[] = "/tmp/test_scratch.XXXXXX";

static int exists(const char *path)
{
	struct stat st;

	return !lstat(path, &st);
}

static int entries(void)
{
	char cmd[PATH_MAX + 32];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls -A %s | wc -l", root);
	p = popen(cmd, "r");
	if (p && fscanf(p, "%d", &n) != 1)
		n = -1;
	if (p)
		pclose(p);
	return n;
}

/* A child makes a scratch directory, says its name through fd, then waits or exits. */
static pid_t owner(int stay, char *dir, size_t len)
{
	int fds[2];
	pid_t pid;
	ssize_t n;

	if (pipe(fds))
		return -1;
	pid = fork();
	if (!pid) {
		char t[PATH_MAX];

		close(fds[0]);
		snprintf(t, sizeof(t), "%s/.sonde-test-XXXXXX", root);
		if (scratch__mkdtemp(t, SCRATCH_REMOVE) || write(fds[1], t, strlen(t) + 1) < 0)
			_exit(1);
		close(fds[1]);
		if (stay)
			pause();
		_exit(0); /* no atexit, no cleanup: what SIGKILL leaves */
	}
	close(fds[1]);
	n = read(fds[0], dir, len - 1);
	dir[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	return pid;
}

int main(void)
{
	char dir[PATH_MAX], lock[PATH_MAX + 64], path[PATH_MAX + 32], mine[PATH_MAX];
	struct stat st;
	pid_t live, dead;
	int status, fd;

	if (!mkdtemp(root)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	snprintf(mine, sizeof(mine), "%s/.sonde-test-XXXXXX", root);
	is_int(scratch__mkdtemp(mine, SCRATCH_REMOVE), 0, "a scratch directory");
	snprintf(lock, sizeof(lock), "%s.lock", mine);
	ok(!stat(mine, &st) && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700,
	   "  ...mode 0700");
	ok(!stat(lock, &st) && S_ISREG(st.st_mode), "  ...with its lock file beside it");
	is_int(scratch__sweep(root, ".sonde-test-"), 0, "our own, alive: not swept");
	ok(exists(mine) && exists(lock), "  ...both still there");

	live = owner(1, dir, sizeof(dir));
	dead = owner(0, path, sizeof(path));
	waitpid(dead, &status, 0);
	ok(dir[0] && path[0] && exists(path), "a live owner's and a dead owner's directories");
	/* A directory no lock was ever made for (an older sonde's): not ours to judge. */
	snprintf(lock, sizeof(lock), "%s/.sonde-test-nolock", root);
	mkdir(lock, 0700);
	/* A FIFO named like a lock: opening it must not block the sweep. */
	snprintf(lock, sizeof(lock), "%s/.sonde-test-fifo.lock", root);
	mkfifo(lock, 0600);
	is_int(scratch__sweep(root, ".sonde-test-"), 1, "a sweep takes the dead owner's only");
	ok(!exists(path), "  ...its directory is gone");
	snprintf(lock, sizeof(lock), "%s.lock", path);
	ok(!exists(lock), "  ...and its lock file");
	ok(exists(dir), "  ...the live owner's stays");
	snprintf(lock, sizeof(lock), "%s/.sonde-test-nolock", root);
	ok(exists(lock), "  ...a directory without a lock stays");
	kill(live, SIGKILL);
	waitpid(live, &status, 0);
	is_int(scratch__sweep(root, ".sonde-test-"), 1, "killed with SIGKILL: swept at once");
	ok(!exists(dir), "  ...gone");

	/* Temporaries locked by their writer. */
	snprintf(path, sizeof(path), "%s/.sonde-x.tar.xz.tmp.held", root);
	fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0600);
	ok(fd >= 0 && !flock(fd, LOCK_EX), "a temporary held by its writer");
	snprintf(lock, sizeof(lock), "%s/.sonde-y.tar.xz.tmp.dead", root);
	close(open(lock, O_CREAT | O_RDWR, 0600));
	if (!fork()) {
		/* Another process: flock owners are open files, not processes, so fork a sweeper. */
		_exit(scratch__sweep_files(root, ".sonde-", ".tmp.") == 1 ? 0 : 1);
	}
	wait(&status);
	ok(WIFEXITED(status) && !WEXITSTATUS(status), "a sweep takes the unheld one only");
	ok(exists(path) && !exists(lock), "  ...the held one stays");
	close(fd);
	unlink(path);

	/* Ours, removed: the lock goes with it; the rest at exit. */
	is_int(scratch__remove(mine), 0, "scratch__remove");
	snprintf(lock, sizeof(lock), "%s.lock", mine);
	ok(!exists(mine) && !exists(lock), "  ...the directory and its lock file");
	snprintf(mine, sizeof(mine), "%s/.sonde-test-XXXXXX", root);
	scratch__mkdtemp(mine, SCRATCH_REMOVE);
	snprintf(dir, sizeof(dir), "%s/.sonde-test-XXXXXX", root);
	scratch__mkdtemp(dir, 0);
	scratch__cleanup();
	ok(!exists(mine), "cleanup: a SCRATCH_REMOVE directory is removed");
	snprintf(lock, sizeof(lock), "%s.lock", dir);
	ok(exists(dir) && exists(lock), "cleanup: one without stays, with its lock for the next sweep");
	scratch__remove(dir);
	snprintf(path, sizeof(path), "%s/.sonde-test-nolock", root);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/.sonde-test-fifo.lock", root);
	unlink(path);
	is_int(entries(), 0, "nothing left");
	rmdir(root);
	return tap_done();
}
