// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One bounded whole-file reader (captures, manifests, findings, checks, redaction), one writer,
 * and one that replaces a file atomically (what another program reads while we write).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

int file__replace(const char *path, const void *data, size_t len, unsigned int mode)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	char tmp[4200];
	int fd, err;

	/* A dot name, which readers of *.prom or *.md globs do not match. */
	if (snprintf(tmp, sizeof(tmp), "%.*s.%s.tmp-XXXXXX", (int)(base - path), path, base) >=
	    (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = fd__write_all(fd, data, len);
	if (!err && fchmod(fd, (mode_t)mode))
		err = -errno;
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}
