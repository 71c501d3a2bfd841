/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading a whole file that may be hostile: regular files only, never through
 * a symlink, capped. Writing one, and removing a tree, the same way.
 */
#ifndef SONDE_FILE_H
#define SONDE_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Read path (relative to dirfd; AT_FDCWD for the cwd) into a malloc'ed,
 * NUL-terminated buffer. -EINVAL for anything but a regular file, -ELOOP for
 * a symlink, -EFBIG past max bytes, else -errno.
 */
int file__read_bounded(int dirfd, const char *path, uint64_t max, char **out, size_t *len);

/*
 * Write len bytes to path, created (mode 0600) or truncated, never through a
 * symlink; every short write continued. 0 or -errno (a failed close too).
 */
int file__write_all(const char *path, const void *data, size_t len);
/*
 * Replace path with len bytes atomically: a temporary beside it (".NAME.tmp-XXXXXX"),
 * given mode, fsynced, renamed over path; a reader sees the old file or the new
 * one, never part of either. On failure the temporary is removed and path is
 * untouched. 0 or -errno.
 */
int file__replace(const char *path, const void *data, size_t len, unsigned int mode);
/*
 * The same, written in pieces (a file too large to make in memory first):
 * file__replace_open makes the temporary (its fd, its name into tmp), the
 * caller writes it, file__replace_commit gives it mode, fsyncs and renames it
 * over path, or (abandon) removes it. Both 0 or -errno; the fd is closed.
 */
int file__replace_open(const char *path, char *tmp, size_t tmplen);
int file__replace_commit(int fd, const char *tmp, const char *path, unsigned int mode,
			 int abandon);
/*
 * Read a small pseudo-file (/proc, /sys: their size says 0) into buf, up to
 * cap - 1 bytes or its end, NUL-terminated. The length, or -errno.
 */
ssize_t file__read_small(const char *path, char *buf, size_t cap);

/* Write all len bytes to fd, continuing short writes and EINTR. 0 or -errno. */
int fd__write_all(int fd, const void *data, size_t len);

/*
 * Remove a directory tree (or a single regular file) without following
 * symlinks: a symlink in it is removed, never what it points to, and one at
 * the top is refused (-ENOTDIR). Async-signal-safe (openat, getdents64,
 * unlinkat: no allocation), so a signal handler may clean up with it.
 * 0 or the first -errno.
 */
int file__remove_tree(const char *path);

#endif
