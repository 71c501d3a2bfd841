// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Redacting files: every regular file under a directory (a stage), the
 * captures first, each read by its kind (capture stream record by record,
 * JSON, Markdown, HTML, plain text) and replaced through a temporary.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle/redact_int.h"
#include "collect/capture.h"
#include "util/file.h"
#include "util/str.h"

/* Files under a stage are ours or come from a bundle opened under caps; this bounds memory. */
#define REDACT_FILE_MAX (512u << 20)
#define REDACT_MAX_DEPTH 8

static unsigned int path_ctx(const char *path)
{
	size_t n = strlen(path);

	if (!strcmp(path, "/proc/sys/kernel/hostname"))
		return REDACT_HOSTNAME;
	if (!strcmp(path, "/proc/sys/kernel/domainname"))
		return REDACT_DOMAIN;
	if (!strcmp(path, "sonde:containers"))
		return REDACT_CONTAINERS;
	if (n >= 8 && !strcmp(path + n - 8, "/cmdline"))
		return REDACT_CMDLINE | REDACT_ARGV;
	return REDACT_TEXT;
}

/*
 * A record of one task's stat line, "PID (COMM) STATE ...": /proc/PID/stat,
 * /proc/PID/task/TID/stat and sonde:task/PID (docs/capture-format.md).
 */
static int comm_record(const char *path)
{
	const char *p = path + 6;

	if (!strncmp(path, "sonde:task/", 11))
		return 1;
	if (strncmp(path, "/proc/", 6) || !is_digit((unsigned char)*p))
		return 0;
	while (is_digit((unsigned char)*p))
		p++;
	if (!strncmp(p, "/task/", 6) && is_digit((unsigned char)p[6]))
		for (p += 6; is_digit((unsigned char)*p);)
			p++;
	return !strcmp(p, "/stat");
}

/*
 * A stat line's COMM is any 15 bytes its process chose, parentheses and
 * "token=" included, and its readers find it between the first '(' and the
 * last ')'. A rule that ran on across the ')' (a secret's value ends at a
 * blank) would take the parenthesis with it, and the line would lose its
 * shape: the process gone from the analysis. So the COMM is a text of its
 * own, redacted as a unit, and the rest another: no match spans the two,
 * and the parentheses stay where they are.
 */
static int redact_comm_line(struct redactor *r, const char *s, size_t n, unsigned int ctx,
			    struct strbuf *out)
{
	const char *open = memchr(s, '(', n), *close = NULL;
	int rc;

	for (size_t i = n; open && i > (size_t)(open - s); i--)
		if (s[i - 1] == ')') {
			close = s + i - 1;
			break;
		}
	if (!close)
		return redact__plain(r, s, n, ctx, out);
	if ((rc = redact__plain(r, s, (size_t)(open - s) + 1, REDACT_TEXT, out)) ||
	    (rc = redact__plain(r, open + 1, (size_t)(close - open - 1), REDACT_TEXT, out)))
		return rc;
	return redact__plain(r, close, n - (size_t)(close - s), ctx, out);
}

/* One record's payload: learned from (out NULL) or redacted into out. */
static int redact_payload(struct redactor *r, const struct capture_rec *c, unsigned int ctx,
			  struct strbuf *out)
{
	if (comm_record(c->path))
		return redact_comm_line(r, c->data, c->len, ctx, out);
	return redact__plain(r, c->data, c->len, ctx, out);
}

static int path_then_index(const void *a, const void *b, void *arg)
{
	const struct capture_rec *rec = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(rec[x].path, rec[y].path);

	return c ? c : x < y ? -1 : x > y;
}

/*
 * For each record, the index of the previous record of the same path
 * (SIZE_MAX for the first): a sort by path, no hash table a crafted stream
 * could flood. NULL when out of memory.
 */
static size_t *previous_of_path(const struct capture_stream *st)
{
	size_t *ord = malloc((st->n + 1) * sizeof(*ord)), *prev = malloc((st->n + 1) * sizeof(*prev));

	if (!ord || !prev) {
		free(ord);
		free(prev);
		return NULL;
	}
	for (size_t i = 0; i < st->n; i++)
		ord[i] = i;
	qsort_r(ord, st->n, sizeof(*ord), path_then_index, st->rec);
	for (size_t k = 0; k < st->n; k++)
		prev[ord[k]] = k && !strcmp(st->rec[ord[k - 1]].path, st->rec[ord[k]].path) ?
				       ord[k - 1] : SIZE_MAX;
	free(ord);
	return prev;
}

/*
 * c repeats the bytes of p, the previous read of its path. A '=' record
 * shares its data with the record it repeats, so most are told at once;
 * equal '@' records are compared (their bytes are in the file, once each).
 */
static int repeats(const struct capture_rec *c, const struct capture_rec *p)
{
	return !c->err && !p->err && c->len == p->len && c->truncated == p->truncated &&
	       (c->data == p->data || !memcmp(c->data, p->data, c->len));
}

/* What redacting one stream keeps per record: the previous of its path, and what it became. */
struct redacted_stream {
	size_t *prev;
	size_t *out_len;  /* the redacted payload's length */
	char **out_path;  /* the redacted path, until the next record of the path takes it */
};

static void redacted_stream__free(struct redacted_stream *rs, size_t n)
{
	for (size_t i = 0; rs->out_path && i < n; i++)
		free(rs->out_path[i]);
	free(rs->out_path);
	free(rs->out_len);
	free(rs->prev);
}

/*
 * Record i of st, redacted, into w (or learned from, w NULL). A repeat of
 * the path's previous read is learned once and written as a repeat: a '='
 * record costs a line in the bundle, and must cost no more in the copy (a
 * bundle of '=' records of one 1 MiB read would otherwise expand a
 * thousandfold). 0 or -errno.
 */
static int redact_record(struct redactor *r, const struct capture_stream *st, size_t i,
			 struct redacted_stream *rs, struct capture_writer *w, struct strbuf *path,
			 struct strbuf *payload)
{
	const struct capture_rec *c = &st->rec[i];
	size_t p = rs->prev[i];
	unsigned int ctx = path_ctx(c->path) | (c->truncated ? REDACT_TRUNCATED : 0);
	int rep = p != SIZE_MAX && repeats(c, &st->rec[p]), rc;

	if (!w) {
		rc = redact__plain(r, c->path, strlen(c->path), REDACT_TEXT, NULL);
		if (!rc && !c->err && !rep)
			rc = redact_payload(r, c, ctx, NULL);
		return rc;
	}
	path->len = 0;
	strbuf__append(path, "", 0);
	rc = redact__plain(r, c->path, strlen(c->path), REDACT_TEXT, path);
	if (rc)
		return rc;
	/* The reader matches a repeat by path: only where the path redacts alike. */
	if (rep && rs->out_path[p] && !strcmp(rs->out_path[p], path->buf)) {
		rc = capture_writer__repeat(w, c->seq, c->wall_ns, c->mono_ns, path->buf,
					    rs->out_len[p]);
		rs->out_len[i] = rs->out_len[p];
	} else if (c->err) {
		rc = capture_writer__error(w, c->seq, c->wall_ns, c->mono_ns, path->buf, c->err);
	} else {
		payload->len = 0;
		strbuf__append(payload, "", 0);
		rc = redact_payload(r, c, ctx, payload);
		if (!rc)
			rc = capture_writer__record(w, c->seq, c->wall_ns, c->mono_ns, path->buf,
						    payload->buf, payload->len, c->truncated);
		rs->out_len[i] = payload->len;
	}
	if (p != SIZE_MAX) {
		free(rs->out_path[p]);
		rs->out_path[p] = NULL;
	}
	if (!rc && !(rs->out_path[i] = strdup(path->buf)))
		rc = -ENOMEM;
	return rc;
}

/*
 * A capture stream, record by record. Written anew with the capture writer,
 * so a repeat ('=') is written where the redacted bytes repeat, and every
 * length is that of the redacted payload.
 */
static int capture_file(struct redactor *r, const char *dir, const char *rel, int learn,
			char *err, size_t errlen)
{
	struct capture_stream st = { 0 };
	struct capture_writer w = { 0 };
	struct redacted_stream rs = { 0 };
	struct strbuf path = { 0 }, payload = { 0 };
	char full[4200], raw_dir[4200], stream[512], tmp[4800];
	const char *base = strrchr(rel, '/');
	char *text = NULL;
	size_t len = 0, bl;
	int rc, wopen = 0;

	snprintf(full, sizeof(full), "%s/%s", dir, rel);
	base = base ? base + 1 : rel;
	bl = strlen(base);
	snprintf(raw_dir, sizeof(raw_dir), "%s/%.*s", dir, (int)(base - rel), rel);
	snprintf(stream, sizeof(stream), "%.*s", (int)(bl - 4), base);
	rc = file__read_bounded(AT_FDCWD, full, REDACT_FILE_MAX, &text, &len);
	if (rc) {
		snprintf(err, errlen, "%s: %s", rel, strerror(-rc));
		return rc;
	}
	st.name = (char *)rel;
	rc = capture_stream__parse(&st, text, len, err, errlen);
	if (rc)
		goto cleanup;
	rs.prev = previous_of_path(&st);
	if (!learn) {
		rs.out_len = calloc(st.n + 1, sizeof(*rs.out_len));
		rs.out_path = calloc(st.n + 1, sizeof(*rs.out_path));
	}
	if (!rs.prev || (!learn && (!rs.out_len || !rs.out_path))) {
		rc = -ENOMEM;
		goto cleanup;
	}
	if (!learn) {
		/* ".redact-NAME" is skipped by capture readers and renamed before anyone looks. */
		snprintf(tmp, sizeof(tmp), "%s/.redact-%s.cap", raw_dir, stream);
		unlink(tmp);
		snprintf(tmp, sizeof(tmp), ".redact-%s", stream);
		rc = capture_writer__open(&w, raw_dir, tmp);
		if (rc) {
			snprintf(err, errlen, "%s: writing its redacted copy: %s", rel,
				 strerror(-rc));
			goto cleanup;
		}
		wopen = 1;
	}
	for (size_t i = 0; i < st.n && !rc; i++) {
		rc = redact_record(r, &st, i, &rs, learn ? NULL : &w, &path, &payload);
		if (rc && rc != -ENOMEM)
			snprintf(err, errlen, "%s: writing its redacted copy: %s", rel,
				 strerror(-rc));
	}
cleanup:
	if (rc == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", rel);
	if (wopen) {
		int crc = capture_writer__close(&w);

		if (!rc && crc) {
			rc = crc;
			snprintf(err, errlen, "%s: writing its redacted copy: %s", rel,
				 strerror(-rc));
		}
		snprintf(tmp, sizeof(tmp), "%s/.redact-%s.cap", raw_dir, stream);
		if (!rc && rename(tmp, full)) {
			rc = -errno;
			snprintf(err, errlen, "%s: %s", rel, strerror(-rc));
		}
		if (rc)
			unlink(tmp);
	}
	redacted_stream__free(&rs, st.n);
	free(st.text);
	free(st.rec);
	strbuf__free(&path);
	strbuf__free(&payload);
	return rc;
}

static int one_file(struct redactor *r, const char *dir, const char *rel, int learn, char *err,
		    size_t errlen)
{
	struct strbuf out = { 0 };
	char full[4200], *text = NULL;
	size_t len = 0;
	int rc;

	if (str__has_suffix(rel, ".cap"))
		return capture_file(r, dir, rel, learn, err, errlen);
	snprintf(full, sizeof(full), "%s/%s", dir, rel);
	rc = file__read_bounded(AT_FDCWD, full, REDACT_FILE_MAX, &text, &len);
	if (rc) {
		snprintf(err, errlen, "%s: %s", rel, strerror(-rc));
		return rc;
	}
	if (!learn)
		strbuf__append(&out, "", 0);
	if (str__has_suffix(rel, ".json"))
		rc = redact__json(r, text, len, learn ? NULL : &out);
	else if (str__has_suffix(rel, ".md"))
		rc = redact__md(r, text, len, learn ? NULL : &out);
	else if (str__has_suffix(rel, ".html") || str__has_suffix(rel, ".htm"))
		rc = redact__html(r, text, len, learn ? NULL : &out);
	else
		rc = redact__plain(r, text, len, REDACT_TEXT, learn ? NULL : &out);
	if (!rc && out.oom)
		rc = -ENOMEM;
	if (rc)
		snprintf(err, errlen, "%s: %s", rel,
			 rc == -ENOMEM ? "out of memory" : strerror(-rc));
	if (!rc && !learn) {
		/* fsynced before the rename: a crash never leaves a capture empty */
		rc = file__replace(full, out.buf, out.len, 0600);
		if (rc)
			snprintf(err, errlen, "writing %s: %s", rel, strerror(-rc));
	}
	strbuf__free(&out);
	free(text);
	return rc;
}

struct file_list {
	char **v;
	size_t n, cap;
};

static int list_files(const char *dir, const char *rel, int depth, struct file_list *fl)
{
	char path[4200];
	struct dirent *de;
	DIR *d;
	int rc = 0;

	if (depth > REDACT_MAX_DEPTH)
		return -ELOOP;
	snprintf(path, sizeof(path), "%s%s%s", dir, *rel ? "/" : "", rel);
	d = opendir(path);
	if (!d)
		return -errno;
	while (!rc && (de = readdir(d))) {
		char sub[4200], child[4400];
		struct stat sb;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", de->d_name);
		snprintf(child, sizeof(child), "%s/%s", dir, sub);
		if (lstat(child, &sb)) {
			rc = -errno;
			break;
		}
		if (S_ISDIR(sb.st_mode)) {
			rc = list_files(dir, sub, depth + 1, fl);
		} else if (S_ISREG(sb.st_mode) && !(depth == 0 && !strcmp(sub, "manifest.json"))) {
			if (fl->n == fl->cap) {
				size_t ncap = fl->cap ? fl->cap * 2 : 32;
				char **nv = realloc(fl->v, ncap * sizeof(*nv));

				if (!nv) {
					rc = -ENOMEM;
					break;
				}
				fl->v = nv;
				fl->cap = ncap;
			}
			fl->v[fl->n] = strdup(sub);
			if (!fl->v[fl->n]) {
				rc = -ENOMEM;
				break;
			}
			fl->n++;
		}
	}
	closedir(d);
	return rc;
}

/* The host's captures first (host-1 is the host itself), then the captures, then the rest. */
static int file_rank(const char *rel)
{
	if (!strcmp(rel, "raw/host.cap") || !strcmp(rel, "host.cap"))
		return 0;
	return str__has_suffix(rel, ".cap") ? 1 : 2;
}

static int file_cmp(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	int rx = file_rank(x), ry = file_rank(y);

	return rx != ry ? rx - ry : strcmp(x, y);
}

static int each_file(struct redactor *r, const char *dir, int learn, char *err, size_t errlen)
{
	struct file_list fl = { 0 };
	int rc = list_files(dir, "", 0, &fl);

	if (rc)
		snprintf(err, errlen, "listing %s: %s", dir, strerror(-rc));
	else
		qsort(fl.v, fl.n, sizeof(*fl.v), file_cmp);
	for (size_t i = 0; i < fl.n && !rc; i++)
		rc = one_file(r, dir, fl.v[i], learn, err, errlen);
	for (size_t i = 0; i < fl.n; i++)
		free(fl.v[i]);
	free(fl.v);
	return rc;
}

int redactor__learn_dir(struct redactor *r, const char *dir, char *err, size_t errlen)
{
	return each_file(r, dir, 1, err, errlen);
}

int redactor__apply_file(struct redactor *r, const char *dir, const char *rel, char *err,
			 size_t errlen)
{
	return one_file(r, dir, rel, 0, err, errlen);
}

int redactor__apply_dir(struct redactor *r, const char *dir, char *err, size_t errlen)
{
	return each_file(r, dir, 0, err, errlen);
}

struct redactor *redact__dir(const char *dir, const char *command, char **command_out,
			     char *err, size_t errlen)
{
	struct redactor *r = redactor__new();
	int rc = r ? 0 : -ENOMEM;

	if (!rc)
		rc = redactor__learn_dir(r, dir, err, errlen);
	if (!rc && command)
		rc = redactor__learn(r, command, strlen(command), REDACT_CMDLINE);
	if (!rc)
		rc = redactor__apply_dir(r, dir, err, errlen);
	if (!rc && command &&
	    !(*command_out = redactor__text(r, command, strlen(command), REDACT_CMDLINE, NULL)))
		rc = -ENOMEM;
	if (rc) {
		/* learn_dir and apply_dir name the file; the others only fail for memory */
		if (!err[0])
			snprintf(err, errlen, "%s", strerror(-rc));
		redactor__free(r);
		return NULL;
	}
	return r;
}
