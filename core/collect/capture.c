// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Capture streams: writer (collectors, during the window) and reader (the
 * analysis, from a fresh run or from a bundle). Format in capture.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect/capture.h"
#include "util/file.h"
#include "util/hash.h"

/* A capture stream larger than this is refused when loading (bounded memory). */
#define CAPTURE_STREAM_MAX (512u << 20)

int capture_writer__open(struct capture_writer *w, const char *raw_dir, const char *stream)
{
	char path[4096];
	int fd;

	memset(w, 0, sizeof(*w));
	if (snprintf(path, sizeof(path), "%s/%s.cap", raw_dir, stream) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	w->f = fdopen(fd, "w");
	if (!w->f) {
		int err = -errno;

		close(fd);
		return err;
	}
	w->path = strdup(path);
	if (fputs(CAPTURE_MAGIC, w->f) == EOF)
		w->err = -EIO;
	return 0;
}

static int path_ok(const char *path)
{
	return path && *path && !strchr(path, '\n') && strlen(path) < 1024;
}

/* Payloads above this are always written in full (bounds the memory kept per path). */
#define REPEAT_MAX 4096

static uint64_t path_hash(const char *s)
{
	return fnv1a(s, strlen(s), FNV1A_OFFSET);
}

/* The slot of path (existing or empty); NULL when the table cannot grow. */
static struct capture_last *last_slot(struct capture_writer *w, const char *path)
{
	size_t i;

	if ((w->last_n + 1) * 2 > w->last_cap) {
		size_t ncap = w->last_cap ? w->last_cap * 2 : 1024;
		struct capture_last *n = calloc(ncap, sizeof(*n));

		if (!n)
			return NULL;
		for (size_t k = 0; k < w->last_cap; k++) {
			if (!w->last[k].path)
				continue;
			for (i = path_hash(w->last[k].path) & (ncap - 1); n[i].path; i = (i + 1) & (ncap - 1))
				;
			n[i] = w->last[k];
		}
		free(w->last);
		w->last = n;
		w->last_cap = ncap;
	}
	for (i = path_hash(path) & (w->last_cap - 1); w->last[i].path; i = (i + 1) & (w->last_cap - 1))
		if (!strcmp(w->last[i].path, path))
			return &w->last[i];
	return &w->last[i];
}

/* Remember buf as path's last payload; returns 1 when it equals the previous one. */
static int last_same(struct capture_writer *w, const char *path, const void *buf, size_t len)
{
	struct capture_last *l = last_slot(w, path);
	char *copy;

	if (!l)
		return 0;
	if (l->path && l->len == len && (!len || !memcmp(l->data, buf, len)))
		return 1;
	if (!l->path) {
		l->path = strdup(path);
		if (!l->path)
			return 0;
		w->last_n++;
	}
	copy = len ? realloc(l->data, len) : l->data;
	if (len && !copy) {
		l->len = SIZE_MAX;
		return 0;
	}
	if (len)
		memcpy(copy, buf, len);
	l->data = copy;
	l->len = len;
	return 0;
}

static void last_forget(struct capture_writer *w, const char *path)
{
	struct capture_last *l = w->last_cap ? last_slot(w, path) : NULL;

	if (l && l->path)
		l->len = SIZE_MAX;
}

/* The writer is open, path is one a record may carry, no write has failed: 0, else why not. */
static int writer_ready(const struct capture_writer *w, const char *path)
{
	if (!w->f)
		return -EBADF;
	if (!path_ok(path))
		return -EINVAL;
	return w->err;
}

/* A '=' record: the same len bytes as path's previous read. */
static int write_repeat(struct capture_writer *w, uint32_t seq, int64_t wall_ns, int64_t mono_ns,
			const char *path, size_t len)
{
	w->last_repeat = 1;
	if (fprintf(w->f, "= %" PRIu32 " %" PRId64 " %" PRId64 " %zu - %s\n", seq, wall_ns, mono_ns,
		    len, path) < 0) {
		w->err = errno ? -errno : -EIO;
		return w->err;
	}
	w->records++;
	return 0;
}

int capture_writer__record(struct capture_writer *w, uint32_t seq, int64_t wall_ns, int64_t mono_ns,
			   const char *path, const void *buf, size_t len, int truncated)
{
	int rc = writer_ready(w, path);

	if (rc)
		return rc;
	w->last_repeat = 0;
	if (!truncated && len <= REPEAT_MAX && last_same(w, path, buf, len))
		return write_repeat(w, seq, wall_ns, mono_ns, path, len);
	if (truncated || len > REPEAT_MAX)
		last_forget(w, path);
	if (fprintf(w->f, "@ %" PRIu32 " %" PRId64 " %" PRId64 " %zu %c %s\n", seq, wall_ns, mono_ns,
		    len, truncated ? 't' : '-', path) < 0 ||
	    (len && fwrite(buf, 1, len, w->f) != len) || fputc('\n', w->f) == EOF) {
		w->err = errno ? -errno : -EIO;
		return w->err;
	}
	w->bytes += len;
	w->records++;
	return 0;
}

int capture_writer__repeat(struct capture_writer *w, uint32_t seq, int64_t wall_ns, int64_t mono_ns,
			   const char *path, size_t len)
{
	int rc = writer_ready(w, path);

	if (rc)
		return rc;
	/* path's last payload (if kept) stays what it was: the bytes are the same. */
	return write_repeat(w, seq, wall_ns, mono_ns, path, len);
}

int capture_writer__error(struct capture_writer *w, uint32_t seq, int64_t wall_ns, int64_t mono_ns,
			  const char *path, int err)
{
	int rc = writer_ready(w, path);

	if (rc)
		return rc;
	w->last_repeat = 0;
	last_forget(w, path);
	if (fprintf(w->f, "! %" PRIu32 " %" PRId64 " %" PRId64 " %d - %s\n", seq, wall_ns, mono_ns,
		    err < 0 ? -err : err, path) < 0) {
		w->err = errno ? -errno : -EIO;
		return w->err;
	}
	w->records++;
	return 0;
}

int capture_writer__close(struct capture_writer *w)
{
	int err = w->err;

	if (w->f) {
		if (fflush(w->f) == EOF && !err)
			err = errno ? -errno : -EIO;
		if (fclose(w->f) == EOF && !err)
			err = errno ? -errno : -EIO;
	}
	for (size_t i = 0; i < w->last_cap; i++) {
		free(w->last[i].path);
		free(w->last[i].data);
	}
	free(w->last);
	free(w->path);
	memset(w, 0, sizeof(*w));
	return err;
}

/* ---- reader ---- */

/* Bounded decimal scanner: digits up to the next blank, no sign unless allowed. */
static int scan_num(const char **p, const char *end, int allow_sign, int64_t *out)
{
	const char *s = *p;
	int neg = 0;
	uint64_t v = 0;
	int nd = 0;

	if (allow_sign && s < end && *s == '-') {
		neg = 1;
		s++;
	}
	while (s < end && *s >= '0' && *s <= '9') {
		if (++nd > 19)
			return -EINVAL;
		v = v * 10 + (uint64_t)(*s - '0');
		s++;
	}
	if (!nd || s >= end || *s != ' ')
		return -EINVAL;
	if (v > INT64_MAX)
		return -EINVAL;
	*out = neg ? -(int64_t)v : (int64_t)v;
	*p = s + 1;
	return 0;
}

static void set_err(char *errbuf, size_t errlen, const char *name, size_t off, const char *what)
{
	if (errbuf && errlen)
		snprintf(errbuf, errlen, "%s: malformed capture at byte %zu: %s", name, off, what);
}

/* path -> index of its last record with data, while parsing ('=' records refer to it) */
struct path_index {
	size_t *slot; /* index + 1; 0 is empty */
	size_t cap, n;
};

static size_t *path_index__slot(struct path_index *ix, const struct capture_rec *rec,
				const char *path)
{
	size_t i;

	if ((ix->n + 1) * 2 > ix->cap) {
		size_t ncap = ix->cap ? ix->cap * 2 : 1024;
		size_t *n = calloc(ncap, sizeof(*n));

		if (!n)
			return NULL;
		for (size_t k = 0; k < ix->cap; k++) {
			if (!ix->slot[k])
				continue;
			for (i = path_hash(rec[ix->slot[k] - 1].path) & (ncap - 1); n[i];
			     i = (i + 1) & (ncap - 1))
				;
			n[i] = ix->slot[k];
		}
		free(ix->slot);
		ix->slot = n;
		ix->cap = ncap;
	}
	for (i = path_hash(path) & (ix->cap - 1); ix->slot[i]; i = (i + 1) & (ix->cap - 1))
		if (!strcmp(rec[ix->slot[i] - 1].path, path))
			return &ix->slot[i];
	return &ix->slot[i];
}

/*
 * One record at *pp (its header parsed in place: the path's '\n' becomes a
 * NUL, and so does the payload's). 1 with *r and *pp past it; 0 for a tail a
 * killed run left (a header or payload cut short: the records before it
 * stand); -EINVAL with errbuf; -ENOMEM.
 */
static int capture_stream__record(struct capture_stream *st, struct path_index *ix, char **pp,
				  const char *end, struct capture_rec *r, char *errbuf,
				  size_t errlen)
{
	char *p = *pp, *nl;
	const char *q = p;
	int64_t seq, wall, mono, num;
	char kind = *q, flag;

	if (q + 2 > end)
		return 0; /* a record header cut after its first byte */
	if ((kind != '@' && kind != '!' && kind != '=') || q[1] != ' ')
		goto bad;
	q += 2;
	if (scan_num(&q, end, 0, &seq) || seq > UINT32_MAX || scan_num(&q, end, 1, &wall) ||
	    scan_num(&q, end, 1, &mono) || scan_num(&q, end, 0, &num))
		goto bad_or_short;
	if (q + 2 > end || q[1] != ' ')
		goto bad_or_short;
	flag = q[0];
	q += 2;
	nl = memchr(q, '\n', (size_t)(end - q));
	if (!nl)
		return 0; /* header cut short: a killed run; keep what came before */
	if (nl == q)
		goto bad;
	*nl = '\0';
	memset(r, 0, sizeof(*r));
	r->seq = (uint32_t)seq;
	r->wall_ns = wall;
	r->mono_ns = mono;
	r->path = q;
	if (kind == '!') {
		r->err = num > 4095 || num <= 0 ? EIO : (int)num;
		*pp = nl + 1;
	} else if (kind == '=') {
		/* The same bytes as this path's previous read (see capture_writer__record). */
		size_t *slot = path_index__slot(ix, st->rec, r->path);
		const struct capture_rec *prev;

		if (!slot)
			return -ENOMEM;
		prev = *slot ? &st->rec[*slot - 1] : NULL;
		if (!prev || prev->err || (int64_t)prev->len != num) {
			set_err(errbuf, errlen, st->name, (size_t)(p - st->text),
				"a repeat record with no matching earlier read");
			return -EINVAL;
		}
		r->data = prev->data;
		r->len = prev->len;
		r->truncated = prev->truncated;
		*pp = nl + 1;
	} else {
		if (flag != '-' && flag != 't')
			goto bad;
		r->truncated = flag == 't';
		if ((uint64_t)num > (uint64_t)(end - (nl + 1)) ||
		    (uint64_t)num + 1 > (uint64_t)(end - (nl + 1)))
			return 0; /* payload cut short */
		r->data = nl + 1;
		r->len = (size_t)num;
		if (r->data[r->len] != '\n')
			goto bad;
		/* The trailing newline becomes a NUL: payloads are C strings too. */
		((char *)r->data)[r->len] = '\0';
		*pp = (char *)r->data + r->len + 1;
	}
	return 1;
bad_or_short:
	/* A header line with no newline yet is a killed run's tail, not corruption. */
	if (!memchr(p, '\n', (size_t)(end - p)))
		return 0;
bad:
	set_err(errbuf, errlen, st->name, (size_t)(p - st->text), "bad record header");
	return -EINVAL;
}

int capture_stream__parse(struct capture_stream *st, char *text, size_t len, char *errbuf,
			  size_t errlen)
{
	size_t maglen = strlen(CAPTURE_MAGIC), cap = 0;
	const char *end = text + len;
	struct path_index ix = { 0 };
	int rc = 0;
	char *p;

	st->text = text;
	st->text_len = len;
	st->rec = NULL;
	st->n = 0;
	if (len < maglen || memcmp(text, CAPTURE_MAGIC, maglen)) {
		set_err(errbuf, errlen, st->name, 0, "not a sonde capture stream");
		return -EINVAL;
	}
	p = text + maglen;
	while (p < end) {
		struct capture_rec r;
		size_t *slot;

		rc = capture_stream__record(st, &ix, &p, end, &r, errbuf, errlen);
		if (rc <= 0)
			break;
		rc = 0;
		if (st->n == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			struct capture_rec *nr = realloc(st->rec, ncap * sizeof(*nr));

			if (!nr) {
				rc = -ENOMEM;
				break;
			}
			st->rec = nr;
			cap = ncap;
		}
		st->rec[st->n++] = r;
		/* Failed reads are indexed too: a repeat can never refer past one. */
		slot = path_index__slot(&ix, st->rec, r.path);
		if (!slot) {
			rc = -ENOMEM;
			break;
		}
		if (!*slot)
			ix.n++;
		*slot = st->n;
	}
	free(ix.slot);
	return rc;
}

static int stream_cmp(const void *a, const void *b)
{
	return strcmp(((const struct capture_stream *)a)->name,
		      ((const struct capture_stream *)b)->name);
}

int capture_set__load(struct capture_set *cs, const char *raw_dir, char *errbuf, size_t errlen)
{
	DIR *d;
	struct dirent *de;
	size_t cap = 0;
	int err = 0;

	memset(cs, 0, sizeof(*cs));
	d = opendir(raw_dir);
	if (!d) {
		err = -errno;
		if (errbuf)
			snprintf(errbuf, errlen, "%s: %s", raw_dir, strerror(-err));
		return err;
	}
	while ((de = readdir(d))) {
		size_t nl = strlen(de->d_name);
		struct capture_stream st = { 0 };
		char *text = NULL;
		size_t len = 0;

		if (nl <= 4 || strcmp(de->d_name + nl - 4, ".cap") || de->d_name[0] == '.')
			continue;
		err = file__read_bounded(dirfd(d), de->d_name, CAPTURE_STREAM_MAX, &text, &len);
		if (err) {
			if (errbuf)
				snprintf(errbuf, errlen, "%s/%s: %s", raw_dir, de->d_name,
					 err == -EFBIG ? "capture stream too large" : strerror(-err));
			goto cleanup;
		}
		st.name = strndup(de->d_name, nl - 4);
		if (!st.name) {
			free(text);
			err = -ENOMEM;
			goto cleanup;
		}
		err = capture_stream__parse(&st, text, len, errbuf, errlen);
		if (cs->n == cap && !err) {
			size_t ncap = cap ? cap * 2 : 16;
			struct capture_stream *ns = realloc(cs->s, ncap * sizeof(*ns));

			if (!ns)
				err = -ENOMEM;
			else {
				cs->s = ns;
				cap = ncap;
			}
		}
		if (err) {
			free(st.name);
			free(st.text);
			free(st.rec);
			goto cleanup;
		}
		cs->s[cs->n++] = st;
	}
	if (cs->n)
		qsort(cs->s, cs->n, sizeof(*cs->s), stream_cmp);
cleanup:
	closedir(d);
	if (err)
		capture_set__free(cs);
	return err;
}

void capture_set__free(struct capture_set *cs)
{
	for (size_t i = 0; i < cs->n; i++) {
		free(cs->s[i].name);
		free(cs->s[i].text);
		free(cs->s[i].rec);
	}
	free(cs->s);
	memset(cs, 0, sizeof(*cs));
}

const struct capture_stream *capture_set__stream(const struct capture_set *cs, const char *name)
{
	for (size_t i = 0; i < cs->n; i++)
		if (!strcmp(cs->s[i].name, name))
			return &cs->s[i];
	return NULL;
}

const struct capture_rec *capture_stream__last(const struct capture_stream *st, const char *path)
{
	if (!st)
		return NULL;
	for (size_t i = st->n; i-- > 0;)
		if (!strcmp(st->rec[i].path, path))
			return &st->rec[i];
	return NULL;
}
