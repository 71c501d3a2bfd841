// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The reader: all /proc and /sys access of the collectors goes through it.
 * It knows the root (the live "/" or a tree standing in for it in tests),
 * bounds every read, and records each read (or its failure) verbatim with
 * the sample round and both clocks into the collector's capture stream.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/collectors.h"

/* reader__read_flags: the file is one record, so a short read is its end */
#define READ_ONE_RECORD 1u

static int reader__grow(struct reader *rd, size_t want)
{
	char *nb;

	if (want <= rd->cap)
		return 0;
	nb = realloc(rd->buf, want);
	if (!nb)
		return -ENOMEM;
	rd->buf = nb;
	rd->cap = want;
	return 0;
}

/*
 * Read root+path into rd->buf, at most cap bytes (*truncated when the file is
 * longer). A seq_file (most of /proc: mountinfo, diskstats, net/dev,
 * interrupts, vmstat...) hands out about one page per read() whatever the
 * buffer, so the file ends only where read() returns 0. READ_ONE_RECORD is
 * for files the kernel builds in one show() (single_open: /proc/PID/stat,
 * status, io, schedstat, limits) or copies whole (cmdline): their first
 * read returns everything that fits, so a short read is the end and the
 * extra read() that would say so (one per process and file, 16,000 a round
 * with 1,000 processes) is saved.
 */
static int reader__read_flags(struct reader *rd, const char *path, size_t cap, unsigned flags,
			      const char **data, size_t *len, int *truncated)
{
	char full[4096];
	size_t got = 0;
	int fd, err = 0;

	if (snprintf(full, sizeof(full), "%s%s", rd->root, path) >= (int)sizeof(full))
		return -ENAMETOOLONG;
	if (rd->lock) {
		snprintf(rd->current, sizeof(rd->current), "%s", path);
		pthread_mutex_unlock(rd->lock);
	}
	/* O_NONBLOCK: a FIFO planted where a /proc file is expected must not hang the window. */
	fd = open(full, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		err = -errno;
		rd->read_errors++;
		__atomic_add_fetch(&rd->finished, 1, __ATOMIC_RELAXED);
		if (rd->lock)
			pthread_mutex_lock(rd->lock);
		return err;
	}
	*truncated = 0;
	if (reader__grow(rd, rd->cap ? rd->cap : 16384)) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (;;) {
		ssize_t n;
		size_t want;

		if (got >= cap) {
			char probe;

			/* One more byte tells a file of cap bytes from a longer one: a real cut. */
			*truncated = read(fd, &probe, 1) > 0;
			break;
		}
		if (got == rd->cap && reader__grow(rd, rd->cap * 2 > cap ? cap : rd->cap * 2)) {
			err = -ENOMEM;
			goto cleanup;
		}
		want = (cap < rd->cap ? cap : rd->cap) - got;
		n = read(fd, rd->buf + got, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			/* A process that exits mid-read makes its files return ESRCH: ordinary. */
			err = -errno;
			rd->read_errors++;
			goto cleanup;
		}
		if (n == 0)
			break;
		got += (size_t)n;
		if ((flags & READ_ONE_RECORD) && (size_t)n < want)
			break;
	}
	*data = rd->buf;
	*len = got;
	rd->reads++;
	rd->read_bytes += got;
cleanup:
	close(fd);
	__atomic_add_fetch(&rd->finished, 1, __ATOMIC_RELAXED);
	if (rd->lock)
		pthread_mutex_lock(rd->lock);
	return err;
}

int reader__read(struct reader *rd, const char *path, size_t cap, const char **data, size_t *len,
		 int *truncated)
{
	return reader__read_flags(rd, path, cap, 0, data, len, truncated);
}

int reader__read_one(struct reader *rd, const char *path, size_t cap, const char **data,
		     size_t *len, int *truncated)
{
	return reader__read_flags(rd, path, cap, READ_ONE_RECORD, data, len, truncated);
}

static int reader__tee_flags(struct reader *rd, struct capture_writer *w, const char *path,
			     unsigned flags, const char **data, size_t *len)
{
	int64_t wall = clock__ns(CLOCK_REALTIME), mono = clock__ns(CLOCK_MONOTONIC);
	const char *d = NULL;
	size_t l = 0;
	int trunc = 0, err;

	err = reader__read_flags(rd, path, READ_CAP, flags, &d, &l, &trunc);
	if (err)
		capture_writer__error(w, rd->seq, wall, mono, path, err);
	else
		capture_writer__record(w, rd->seq, wall, mono, path, d, l, trunc);
	if (data)
		*data = d;
	if (len)
		*len = l;
	return err;
}

void reader__blocking_begin(struct reader *rd, const char *what)
{
	if (rd->lock) {
		snprintf(rd->current, sizeof(rd->current), "%s", what);
		pthread_mutex_unlock(rd->lock);
	}
}

void reader__blocking_end(struct reader *rd)
{
	if (rd->lock)
		pthread_mutex_lock(rd->lock);
}

int reader__tee(struct reader *rd, struct capture_writer *w, const char *path, const char **data,
		size_t *len)
{
	return reader__tee_flags(rd, w, path, 0, data, len);
}

int reader__tee_one(struct reader *rd, struct capture_writer *w, const char *path,
		    const char **data, size_t *len)
{
	return reader__tee_flags(rd, w, path, READ_ONE_RECORD, data, len);
}

void reader__free(struct reader *rd)
{
	free(rd->buf);
	rd->buf = NULL;
	rd->cap = 0;
}

void reader__tee_text(struct reader *rd, struct capture_writer *w, const char *path,
		      const char *text, size_t len)
{
	capture_writer__record(w, rd->seq, clock__ns(CLOCK_REALTIME), clock__ns(CLOCK_MONOTONIC),
			       path, text, len, 0);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int reader__list_dir(const struct reader *rd, const char *dir, struct strv *out)
{
	char full[4096];
	struct dirent *de;
	size_t first = out->n;
	int err = 0;
	DIR *d;

	snprintf(full, sizeof(full), "%s%s", rd->root, dir);
	d = opendir(full);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || strchr(de->d_name, '\n'))
			continue;
		/* Out of memory: keep what was listed; the collector reads fewer devices. */
		err = strv__push(out, de->d_name);
		if (err)
			break;
	}
	closedir(d);
	if (out->n > first)
		qsort(out->v + first, out->n - first, sizeof(*out->v), by_name);
	return err;
}

void record__printf(struct strbuf *b, const char *fmt, ...)
{
	size_t before = b->len;
	va_list ap;

	va_start(ap, fmt);
	strbuf__vprintf(b, fmt, ap);
	va_end(ap);
	if (b->len > READ_CAP) {
		b->len = before;
		b->buf[before] = '\0';
	}
}

int collector__probe_path(const char *root, const char *path, const char *what, char *why,
			  size_t whylen)
{
	char full[4096];

	snprintf(full, sizeof(full), "%s%s", root, path);
	if (access(full, R_OK) == 0)
		return 0;
	snprintf(why, whylen, "%s: %s: %s", what, path, strerror(errno));
	return -errno;
}
