// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Scratch directories owned by a live process, told from a dead owner's by an
 * flock on a lock file beside each (util/scratch.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/file.h"
#include "util/scratch.h"
#include "util/str.h"

#define LOCK_SUFFIX ".lock"
/* Names to try when a sweep takes the lock file between its creation and its lock. */
#define SCRATCH_TRIES 16

/* This process's scratch directories, read by a signal handler: fixed, no allocation. */
static struct scratch_entry {
	char dir[PATH_MAX];
	char lock[PATH_MAX + sizeof(LOCK_SUFFIX)];
	int lock_fd;
	unsigned int flags;
	pid_t owner;
	volatile sig_atomic_t used;
} scratch[SCRATCH_MAX];
static int scratch_atexit;

static void scratch_at_exit(void)
{
	scratch__cleanup();
}

/* fd is the file at path (not one a sweep replaced meanwhile). */
static int same_file(int fd, int dirfd, const char *path)
{
	struct stat a, b;

	return !fstat(fd, &a) && !fstatat(dirfd, path, &b, AT_SYMLINK_NOFOLLOW) &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/*
 * Create and lock templ's lock file, then the directory. A sweep may take a
 * lock file in the instant between its creation and its flock: then the name
 * no longer leads to the locked file, and another name is tried.
 */
static int scratch_make(char *templ, size_t tlen, struct scratch_entry *e)
{
	char lock[PATH_MAX + sizeof(LOCK_SUFFIX)];
	int fd, err;

	for (int tries = 0; tries < SCRATCH_TRIES; tries++) {
		memcpy(templ + tlen - 6, "XXXXXX", 6);
		snprintf(lock, sizeof(lock), "%s%s", templ, LOCK_SUFFIX);
		fd = mkostemps(lock, (int)strlen(LOCK_SUFFIX), O_CLOEXEC);
		if (fd < 0)
			return -errno;
		/*
		 * A file system without flock (ENOLCK, EINVAL) leaves the directory
		 * unlocked: a sweep cannot lock it either, so it never takes it.
		 */
		if ((flock(fd, LOCK_EX | LOCK_NB) && errno == EWOULDBLOCK) ||
		    !same_file(fd, AT_FDCWD, lock)) {
			close(fd);
			continue;
		}
		memcpy(templ + tlen - 6, lock + tlen - 6, 6);
		if (mkdir(templ, 0700)) {
			err = -errno;
			unlink(lock);
			close(fd);
			/* A directory left without a lock (an older sonde's): not ours to take. */
			if (err == -EEXIST)
				continue;
			return err;
		}
		snprintf(e->dir, sizeof(e->dir), "%s", templ);
		snprintf(e->lock, sizeof(e->lock), "%s", lock);
		e->lock_fd = fd;
		return 0;
	}
	return -EEXIST;
}

int scratch__mkdtemp(char *templ, unsigned int flags)
{
	size_t tlen = templ ? strlen(templ) : 0;
	struct scratch_entry *e = NULL;
	int err;

	if (tlen < 6 || strcmp(templ + tlen - 6, "XXXXXX") || tlen >= sizeof(e->dir))
		return -EINVAL;
	for (int i = 0; i < SCRATCH_MAX && !e; i++)
		if (!scratch[i].used)
			e = &scratch[i];
	if (!e)
		return -EMFILE;
	err = scratch_make(templ, tlen, e);
	if (err)
		return err;
	e->flags = flags;
	e->owner = getpid();
	e->used = 1;
	if (!scratch_atexit) {
		scratch_atexit = 1;
		atexit(scratch_at_exit);
	}
	return 0;
}

static void scratch_release(struct scratch_entry *e)
{
	e->used = 0;
	unlink(e->lock);
	close(e->lock_fd);
}

int scratch__remove(const char *dir)
{
	int ret = file__remove_tree(dir);

	for (int i = 0; i < SCRATCH_MAX; i++)
		if (scratch[i].used && scratch[i].owner == getpid() && !strcmp(scratch[i].dir, dir))
			scratch_release(&scratch[i]);
	return ret;
}

void scratch__cleanup(void)
{
	pid_t self = getpid();
	struct stat st;

	for (int i = 0; i < SCRATCH_MAX; i++) {
		struct scratch_entry *e = &scratch[i];

		if (!e->used || e->owner != self)
			continue;
		if (e->flags & SCRATCH_REMOVE)
			file__remove_tree(e->dir);
		/* A directory kept keeps its lock file: unlocked from now, for the next sweep. */
		if (lstat(e->dir, &st) && errno == ENOENT)
			scratch_release(e);
	}
}

/*
 * The lock file name in dfd, if no one holds it: locked by us now (the fd),
 * else -1. Regular files of this user only, opened without following a link
 * and without blocking (a FIFO planted under the name must not hang us).
 */
static int take_dead_lock(int dfd, const char *name)
{
	struct stat st;
	int fd;

	fd = openat(dfd, name, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    flock(fd, LOCK_EX | LOCK_NB) || !same_file(fd, dfd, name)) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The directory of a lock taken from its dead owner, if it is still there and
 * this user's; then the lock file, once the directory is gone. 1 if removed.
 */
static int sweep_dir(DIR *d, const char *dir, const char *lock)
{
	char name[NAME_MAX + 1], path[PATH_MAX + NAME_MAX + 2];
	struct stat st;
	int removed = 0;

	snprintf(name, sizeof(name), "%.*s", (int)(strlen(lock) - strlen(LOCK_SUFFIX)), lock);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) && S_ISDIR(st.st_mode) &&
	    st.st_uid == geteuid() && !file__remove_tree(path))
		removed = 1;
	if (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) && errno == ENOENT)
		unlinkat(dirfd(d), lock, 0);
	return removed;
}

/*
 * In dir, the entries named prefix...: with infix NULL, every NAME.lock no one
 * holds, with its directory NAME; else every file holding infix that no one
 * holds an flock on. The number of directories or files removed.
 */
static int sweep(const char *dir, const char *prefix, const char *infix)
{
	size_t plen = strlen(prefix);
	struct dirent *de;
	int removed = 0;
	DIR *d = opendir(dir);

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		const char *n = de->d_name;
		int lock = str__has_suffix(n, LOCK_SUFFIX), fd;

		if (strncmp(n, prefix, plen) || (infix ? lock || !strstr(n + plen, infix) : !lock))
			continue;
		fd = take_dead_lock(dirfd(d), n);
		if (fd < 0)
			continue;
		if (infix)
			removed += !unlinkat(dirfd(d), n, 0);
		else
			removed += sweep_dir(d, dir, n);
		close(fd);
	}
	closedir(d);
	return removed;
}

int scratch__sweep(const char *dir, const char *prefix)
{
	return sweep(dir, prefix, NULL);
}

int scratch__sweep_files(const char *dir, const char *prefix, const char *infix)
{
	return sweep(dir, prefix, infix);
}
