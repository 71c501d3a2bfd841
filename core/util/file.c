// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One bounded whole-file reader (captures, manifests, findings, checks, redaction), one writer,
 * one that replaces a file atomically (what another program reads while we write), and one
 * tree remover.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/file.h"

int file__read_bounded(int dirfd, const char *path, uint64_t max, char **out, size_t *len)
{
	struct stat sb;
	char *buf = NULL;
	size_t got = 0;
	int fd, err = 0;

	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb)) {
		err = -errno;
		goto cleanup;
	}
	if (!S_ISREG(sb.st_mode)) {
		err = -EINVAL;
		goto cleanup;
	}
	if ((uint64_t)sb.st_size > max) {
		err = -EFBIG;
		goto cleanup;
	}
	buf = malloc((size_t)sb.st_size + 1);
	if (!buf) {
		err = -ENOMEM;
		goto cleanup;
	}
	/* The size is the one fstat saw: a file that grows meanwhile is read up to it. */
	while (got < (size_t)sb.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)sb.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			goto cleanup;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	buf[got] = '\0';
	*out = buf;
	*len = got;
	buf = NULL;
cleanup:
	free(buf);
	close(fd);
	return err;
}

int fd__write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		/* write(2) returns 0 only for len 0; never loop on it */
		if (w == 0)
			return -EIO;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

int file__write_all(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	int err;

	if (fd < 0)
		return -errno;
	err = fd__write_all(fd, data, len);
	if (close(fd) && !err)
		err = -errno;
	return err;
}

int file__replace_open(const char *path, char *tmp, size_t tmplen)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	int fd;

	/* A dot name, which readers of *.prom or *.md globs do not match. */
	if (snprintf(tmp, tmplen, "%.*s.%s.tmp-XXXXXX", (int)(base - path), path, base) >=
	    (int)tmplen)
		return -ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int file__replace_commit(int fd, const char *tmp, const char *path, unsigned int mode,
			 int abandon)
{
	int err = 0;

	if (!abandon && fchmod(fd, (mode_t)mode))
		err = -errno;
	if (!abandon && !err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!abandon && !err && rename(tmp, path))
		err = -errno;
	if (abandon || err)
		unlink(tmp);
	return err;
}

int file__replace(const char *path, const void *data, size_t len, unsigned int mode)
{
	char tmp[4200];
	int fd = file__replace_open(path, tmp, sizeof(tmp)), err;

	if (fd < 0)
		return fd;
	err = fd__write_all(fd, data, len);
	return file__replace_commit(fd, tmp, path, mode, err != 0) ?: err;
}

/* Deeper than any tree sonde creates; stops before running out of fds or stack. */
#define REMOVE_MAX_DEPTH 64
/* Passes over one directory: entries made while it is emptied are taken by the next one. */
#define REMOVE_MAX_PASSES 4

/* getdents64's record (linux/dirent.h's struct linux_dirent64). */
struct dirent64_rec {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

static int remove_entry(int dfd, const char *name, int depth);

/*
 * Empty the directory open at dfd. Reads with getdents64 into a buffer on the
 * stack, never readdir (which allocates): the remover must run in a signal
 * handler. *seen is set when the pass found anything to remove.
 */
static int remove_pass(int dfd, int depth, int *seen)
{
	char buf[2048] __attribute__((aligned(8)));
	int ret = 0, sub;

	*seen = 0;
	if (lseek(dfd, 0, SEEK_SET) < 0)
		return -errno;
	for (;;) {
		long n = syscall(SYS_getdents64, dfd, buf, sizeof(buf));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return ret ? ret : -errno;
		}
		if (!n)
			return ret;
		for (long off = 0; off < n;) {
			const struct dirent64_rec *de = (const void *)(buf + off);

			off += de->d_reclen;
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			*seen = 1;
			sub = remove_entry(dfd, de->d_name, depth);
			if (sub && !ret)
				ret = sub;
		}
	}
}

/* Remove name in dfd: a directory with what it holds, anything else by itself. */
static int remove_entry(int dfd, const char *name, int depth)
{
	struct stat st;
	int sub, ret = 0, seen = 1;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(st.st_mode)) {
		/* A symlink is removed itself, never what it points to. */
		if (unlinkat(dfd, name, 0) && errno != ENOENT)
			return -errno;
		return 0;
	}
	if (depth >= REMOVE_MAX_DEPTH)
		return -ELOOP;
	/* O_NOFOLLOW: a directory swapped for a symlink since fstatat is not entered. */
	sub = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sub < 0)
		return errno == ENOENT ? 0 : -errno;
	for (int pass = 0; pass < REMOVE_MAX_PASSES && seen && !ret; pass++)
		ret = remove_pass(sub, depth + 1, &seen);
	close(sub);
	if (unlinkat(dfd, name, AT_REMOVEDIR) && errno != ENOENT && !ret)
		ret = -errno;
	return ret;
}

int file__remove_tree(const char *path)
{
	char buf[4096];
	const char *name;
	struct stat st;
	size_t n;
	char *slash;
	int dfd, ret;

	if (!path || !path[0])
		return -EINVAL;
	if (lstat(path, &st))
		return -errno;
	/* A single regular file (a bundle temporary); a symlink at the top stays refused. */
	if (S_ISREG(st.st_mode))
		return unlink(path) ? -errno : 0;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	n = strlen(path);
	if (n >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, n + 1);
	while (n > 1 && buf[n - 1] == '/')
		buf[--n] = '\0';
	/* From its parent, so that the top is removed through the same no-follow steps. */
	slash = strrchr(buf, '/');
	if (!slash) {
		dfd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		name = buf;
	} else if (slash == buf) {
		dfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		name = buf + 1;
	} else {
		*slash = '\0';
		dfd = open(buf, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		name = slash + 1;
	}
	if (dfd < 0)
		return -errno;
	ret = *name ? remove_entry(dfd, name, 0) : -EINVAL;
	close(dfd);
	return ret;
}

ssize_t file__read_small(const char *path, char *buf, size_t cap)
{
	ssize_t n = 0, len = 0;
	int fd;

	if (!cap)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((size_t)len < cap - 1 && (n = read(fd, buf + len, cap - 1 - (size_t)len)) > 0)
		len += n;
	if (n < 0 && !len)
		len = -errno;
	close(fd);
	if (len >= 0)
		buf[len] = '\0';
	return len;
}
