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

int reader__read(struct reader *rd, const char *path, size_t cap, const char **data, size_t *len,
		 int *truncated)
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

		if (got == rd->cap) {
			if (rd->cap >= cap) {
				char probe;

				/* One more byte tells a file of cap bytes from a longer one. */
				*truncated = read(fd, &probe, 1) > 0;
				break;
			}
			if (reader__grow(rd, rd->cap * 2 > cap ? cap : rd->cap * 2)) {
				err = -ENOMEM;
				goto cleanup;
			}
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
		/*
		 * seq_file (all of /proc we read) and sysfs fill the buffer until the end
		 * of the file, so a short read is the end: asking again to see 0 would
		 * cost one more syscall per file, 16,000 a run with 1,000 processes.
		 */
		if ((size_t)n < want)
			break;
		if (got >= cap) {
			char probe;

			*truncated = read(fd, &probe, 1) > 0;
			break;
		}
	}
	*data = rd->buf;
	*len = got;
	rd->reads++;
	rd->read_bytes += got;
cleanup:
	close(fd);
	if (rd->lock)
		pthread_mutex_lock(rd->lock);
	return err;
}

int reader__tee(struct reader *rd, struct capture_writer *w, const char *path, const char **data,
		size_t *len)
{
	int64_t wall = clock__ns(CLOCK_REALTIME), mono = clock__ns(CLOCK_MONOTONIC);
	const char *d = NULL;
	size_t l = 0;
	int trunc = 0, err;

	err = reader__read(rd, path, READ_CAP, &d, &l, &trunc);
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
