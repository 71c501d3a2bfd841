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

const struct capture_limits capture_default_limits = {
	.max_stream_bytes = 512u << 20,
	/* an hour at 1 s over 1,000 processes: 0.7 (idle) to 3.6 (busy) million */
	.max_records = 4u << 20,
	.max_memory_bytes = 768u << 20,
};

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

/* As last_forget, without growing the table: a path it does not hold has nothing to forget. */
static void last_forget_held(struct capture_writer *w, const char *path)
{
	if (!w->last_cap)
		return;
	for (size_t i = path_hash(path) & (w->last_cap - 1); w->last[i].path;
	     i = (i + 1) & (w->last_cap - 1))
		if (!strcmp(w->last[i].path, path)) {
			w->last[i].len = SIZE_MAX;
			return;
		}
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

/* An '@' record of len bytes. */
static int write_full(struct capture_writer *w, uint32_t seq, int64_t wall_ns, int64_t mono_ns,
		      const char *path, const void *buf, size_t len, int truncated)
{
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
	return write_full(w, seq, wall_ns, mono_ns, path, buf, len, truncated);
}

int capture_writer__record_once(struct capture_writer *w, uint32_t seq, int64_t wall_ns,
				int64_t mono_ns, const char *path, const void *buf, size_t len,
				int truncated)
{
	int rc = writer_ready(w, path);

	if (rc)
		return rc;
	w->last_repeat = 0;
	/* a '=' after this must not repeat an earlier record of path */
	last_forget_held(w, path);
	return write_full(w, seq, wall_ns, mono_ns, path, buf, len, truncated);
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

int capture_writer__repeat_last(struct capture_writer *w, uint32_t seq, int64_t wall_ns,
				int64_t mono_ns, const char *path)
{
	struct capture_last *l;
	int rc = writer_ready(w, path);

	if (rc)
		return rc;
	l = w->last_cap ? last_slot(w, path) : NULL;
	if (!l || !l->path || l->len == SIZE_MAX)
		return -ENOENT;
	return write_repeat(w, seq, wall_ns, mono_ns, path, l->len);
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

/* What one parse may still take: records, and bytes for them and the index. */
struct parse_budget {
	uint64_t max_records;
	uint64_t bytes;  /* for st->rec and the path index together */
	size_t rec_cap;  /* records allocated */
};

static int budget_allows(const struct parse_budget *b, size_t rec_cap, size_t ix_cap)
{
	return (uint64_t)rec_cap * sizeof(struct capture_rec) + (uint64_t)ix_cap * sizeof(size_t) <=
	       b->bytes;
}

static size_t *path_index__slot(struct path_index *ix, const struct capture_rec *rec,
				const char *path, const struct parse_budget *b)
{
	size_t i;

	if ((ix->n + 1) * 2 > ix->cap) {
		size_t ncap = ix->cap ? ix->cap * 2 : 1024;
		size_t *n;

		if (!budget_allows(b, b->rec_cap, ncap))
			return NULL;
		n = calloc(ncap, sizeof(*n));
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
				  const char *end, struct capture_rec *r,
				  const struct parse_budget *b, char *errbuf, size_t errlen)
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
		size_t *slot = path_index__slot(ix, st->rec, r->path, b);
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

/* Room for one more record in st->rec, within the budget. 0, -E2BIG (records) or -ENOMEM. */
static int capture_stream__grow(struct capture_stream *st, struct parse_budget *b,
				const struct path_index *ix)
{
	size_t ncap;
	struct capture_rec *nr;

	if (st->n < b->rec_cap)
		return 0;
	if (st->n >= b->max_records)
		return -E2BIG;
	ncap = b->rec_cap ? b->rec_cap * 2 : 64;
	if (ncap > b->max_records)
		ncap = (size_t)b->max_records;
	/* Short of memory for doubling: grow by what is left, a record at least. */
	while (ncap > st->n + 1 && !budget_allows(b, ncap, ix->cap))
		ncap = st->n + (ncap - st->n) / 2;
	if (!budget_allows(b, ncap, ix->cap))
		return -ENOMEM;
	nr = realloc(st->rec, ncap * sizeof(*nr));
	if (!nr)
		return -ENOMEM;
	st->rec = nr;
	b->rec_cap = ncap;
	return 0;
}

/* Parse st->text within b; errbuf says what was over which limit. */
static int capture_stream__parse_bounded(struct capture_stream *st, struct parse_budget *b,
					 char *errbuf, size_t errlen)
{
	size_t maglen = strlen(CAPTURE_MAGIC);
	const char *end = st->text + st->text_len;
	struct path_index ix = { 0 };
	int rc = 0;
	char *p;

	st->rec = NULL;
	st->n = 0;
	if (st->text_len < maglen || memcmp(st->text, CAPTURE_MAGIC, maglen)) {
		set_err(errbuf, errlen, st->name, 0, "not a sonde capture stream");
		return -EINVAL;
	}
	p = st->text + maglen;
	while (p < end) {
		struct capture_rec r;
		size_t *slot;
		char *at = p;

		rc = capture_stream__record(st, &ix, &p, end, &r, b, errbuf, errlen);
		if (rc <= 0)
			break;
		rc = capture_stream__grow(st, b, &ix);
		if (!rc) {
			st->rec[st->n++] = r;
			/* Failed reads are indexed too: a repeat can never refer past one. */
			slot = path_index__slot(&ix, st->rec, r.path, b);
			if (!slot)
				rc = -ENOMEM;
			else if (!*slot)
				ix.n++;
			if (slot)
				*slot = st->n;
		}
		if (rc == -E2BIG && errbuf)
			snprintf(errbuf, errlen, "%s: more than %" PRIu64 " records (the most a "
				 "stream may hold), at byte %zu", st->name, b->max_records,
				 (size_t)(at - st->text));
		else if (rc == -ENOMEM && errbuf)
			snprintf(errbuf, errlen, "%s: its %zu records at byte %zu take the captures "
				 "past their memory limit", st->name, st->n, (size_t)(at - st->text));
		if (rc)
			break;
	}
	free(ix.slot);
	if (!rc && st->n && st->n < b->rec_cap) {
		/* Give back what doubling left unused. */
		struct capture_rec *nr = realloc(st->rec, st->n * sizeof(*nr));

		if (nr) {
			st->rec = nr;
			b->rec_cap = st->n;
		}
	}
	return rc;
}

int capture_stream__parse(struct capture_stream *st, char *text, size_t len, char *errbuf,
			  size_t errlen)
{
	struct parse_budget b = { .max_records = capture_default_limits.max_records,
				  .bytes = capture_default_limits.max_memory_bytes };

	int rc;

	st->text = text;
	st->text_len = len;
	rc = capture_stream__parse_bounded(st, &b, errbuf, errlen);
	/* a stream parsed from memory is loaded: a set made of such streams reads them as they are */
	if (!rc)
		st->loaded = 1;
	return rc;
}

static int stream_cmp(const void *a, const void *b)
{
	return strcmp(((const struct capture_stream *)a)->name,
		      ((const struct capture_stream *)b)->name);
}

static void capture_stream__drop(struct capture_stream *st)
{
	free(st->text);
	free(st->rec);
	st->text = NULL;
	st->rec = NULL;
	st->n = 0;
	st->text_len = 0;
}

/* Read and parse st (listed, not yet loaded), charging cs. 0, or -errno with st->why. */
static int capture_set__load_stream(struct capture_set *cs, struct capture_stream *st)
{
	char file[4200], why[600] = "", msg[512] = "";
	struct parse_budget b = { .max_records = cs->lim.max_records };
	uint64_t room = cs->lim.max_memory_bytes > cs->held ? cs->lim.max_memory_bytes - cs->held : 0;
	struct stat sb;
	int err;

	st->loaded = 1;
	snprintf(file, sizeof(file), "%s/%s.cap", cs->raw_dir, st->name);
	/* The size is known before reading: a stream that cannot fit is not read at all. */
	if (!stat(file, &sb) && (uint64_t)sb.st_size + 1 > room &&
	    (uint64_t)sb.st_size <= cs->lim.max_stream_bytes) {
		err = -ENOMEM;
		snprintf(why, sizeof(why), "%s.cap: %.1f MiB would take the captures past their "
			 "%.1f MiB memory limit (%.1f MiB loaded)", st->name,
			 (double)sb.st_size / 1048576, (double)cs->lim.max_memory_bytes / 1048576,
			 (double)cs->held / 1048576);
		goto refused;
	}
	err = file__read_bounded(AT_FDCWD, file, cs->lim.max_stream_bytes, &st->text,
				 &st->text_len);
	if (err) {
		snprintf(why, sizeof(why), "%s.cap: %s", st->name,
			 err == -EFBIG ? "capture stream too large" : strerror(-err));
		goto refused;
	}
	b.bytes = room > st->text_len + 1 ? room - st->text_len - 1 : 0;
	err = capture_stream__parse_bounded(st, &b, msg, sizeof(msg));
	if (err) {
		size_t nl = strlen(st->name);

		/* "NAME: what" from the parser, as the bundle member it is */
		snprintf(why, sizeof(why), "%s.cap: %s", st->name,
			 !strncmp(msg, st->name, nl) && msg[nl] == ':' ? msg + nl + 2 : msg);
		goto refused;
	}
	st->held = st->text_len + 1 + (uint64_t)st->n * sizeof(*st->rec);
	cs->held += st->held;
	return 0;
refused:
	capture_stream__drop(st);
	st->loaded = -1;
	st->why = strdup(why[0] ? why : strerror(-err));
	return err;
}

int capture_set__open(struct capture_set *cs, const char *raw_dir, const struct capture_limits *lim,
		      char *errbuf, size_t errlen)
{
	DIR *d;
	struct dirent *de;
	size_t cap = 0;
	int err = 0;

	memset(cs, 0, sizeof(*cs));
	cs->lim = lim ? *lim : capture_default_limits;
	cs->raw_dir = strdup(raw_dir);
	d = cs->raw_dir ? opendir(raw_dir) : NULL;
	if (!d) {
		err = cs->raw_dir ? -errno : -ENOMEM;
		if (errbuf)
			snprintf(errbuf, errlen, "%s: %s", raw_dir, strerror(-err));
		capture_set__free(cs);
		return err;
	}
	while ((de = readdir(d))) {
		size_t nl = strlen(de->d_name);

		if (nl <= 4 || strcmp(de->d_name + nl - 4, ".cap") || de->d_name[0] == '.')
			continue;
		if (cs->n == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			struct capture_stream *ns = realloc(cs->s, ncap * sizeof(*ns));

			if (!ns) {
				err = -ENOMEM;
				break;
			}
			cs->s = ns;
			cap = ncap;
		}
		memset(&cs->s[cs->n], 0, sizeof(cs->s[0]));
		cs->s[cs->n].name = strndup(de->d_name, nl - 4);
		if (!cs->s[cs->n].name) {
			err = -ENOMEM;
			break;
		}
		cs->n++;
	}
	closedir(d);
	if (err) {
		if (errbuf)
			snprintf(errbuf, errlen, "%s: %s", raw_dir, strerror(-err));
		capture_set__free(cs);
		return err;
	}
	if (cs->n)
		qsort(cs->s, cs->n, sizeof(*cs->s), stream_cmp);
	return 0;
}

int capture_set__load(struct capture_set *cs, const char *raw_dir, char *errbuf, size_t errlen)
{
	int err = capture_set__open(cs, raw_dir, NULL, errbuf, errlen);

	for (size_t i = 0; !err && i < cs->n; i++)
		if (capture_set__load_stream(cs, &cs->s[i])) {
			err = -EINVAL;
			if (errbuf)
				snprintf(errbuf, errlen, "%s/%s", raw_dir, cs->s[i].why);
		}
	if (err)
		capture_set__free(cs);
	return err;
}

void capture_set__free(struct capture_set *cs)
{
	for (size_t i = 0; i < cs->n; i++) {
		free(cs->s[i].name);
		free(cs->s[i].why);
		capture_stream__drop(&cs->s[i]);
	}
	free(cs->s);
	free(cs->raw_dir);
	memset(cs, 0, sizeof(*cs));
}

static struct capture_stream *capture_set__find(const struct capture_set *cs, const char *name)
{
	struct capture_stream key = { .name = (char *)name };

	return cs->n ? bsearch(&key, cs->s, cs->n, sizeof(*cs->s), stream_cmp) : NULL;
}

const struct capture_stream *capture_set__stream(struct capture_set *cs, const char *name)
{
	struct capture_stream *st = capture_set__find(cs, name);

	if (!st)
		return NULL;
	if (!st->loaded)
		capture_set__load_stream(cs, st);
	return st->loaded > 0 ? st : NULL;
}

const char *capture_set__why(const struct capture_set *cs, const char *name)
{
	const struct capture_stream *st = capture_set__find(cs, name);

	return st && st->loaded < 0 ? st->why : NULL;
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
