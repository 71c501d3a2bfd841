// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The earlier bundles of a directory sonde writes to: whose they are (the
 * file's owner and mode, before a byte is read) and what they are (their
 * manifest, read alone, under a deadline and a size cap). See earlier.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bundle/bundle.h"
#include "bundle/earlier.h"
#include "bundle/read.h"
#include "util/clock.h"
#include "util/file.h"
#include "util/json_read.h"

#define MANIFEST_SCHEMA "sonde.manifest/1"

int bundle__own(const struct stat *st, char *why, size_t whylen)
{
	uid_t me = geteuid();

	if (!S_ISREG(st->st_mode))
		snprintf(why, whylen, "not a regular file");
	else if (st->st_uid != me)
		snprintf(why, whylen, "owned by uid %u, not by this user (uid %u)",
			 (unsigned)st->st_uid, (unsigned)me);
	else if (st->st_mode & (S_IWGRP | S_IWOTH))
		snprintf(why, whylen, "writable by %s (mode %04o)",
			 st->st_mode & S_IWOTH ? "others" : "its group",
			 (unsigned)(st->st_mode & 07777));
	else
		return 0;
	return -EPERM;
}

/* A name bundle__path can write: [A-Za-z0-9._-] only, so that a line that names it stays one. */
static int name_ok(const char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '.' || *s == '_' || *s == '-'))
			return 0;
	return 1;
}

static int files_push(struct bundle_files *f, const char *name, const struct stat *st,
		      const char *refused)
{
	struct bundle_file *x;

	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 64;

		x = realloc(f->v, cap * sizeof(*x));
		if (!x)
			return -ENOMEM;
		f->v = x;
		f->cap = cap;
	}
	x = &f->v[f->n];
	memset(x, 0, sizeof(*x));
	if (!(x->name = strdup(name)))
		return -ENOMEM;
	x->st = *st;
	snprintf(x->refused, sizeof(x->refused), "%s", refused);
	f->n++;
	return 0;
}

int bundle__list(int dfd, int (*match)(const char *name, void *arg), void *arg, size_t max,
		 struct bundle_files *out)
{
	int fd = dup(dfd), rc = 0;
	struct dirent *de;
	DIR *d;

	if (fd < 0 || !(d = fdopendir(fd))) {
		rc = -errno;
		if (fd >= 0)
			close(fd);
		return rc;
	}
	while (!rc && (de = readdir(d)) && out->n < max) {
		const char *ext = bundle__ext(de->d_name);
		char why[160] = "";
		struct stat st;

		/*
		 * Only what sonde writes (BUNDLE_EXT): retention removes what this
		 * lists, never a file the user recompressed or renamed.
		 */
		if (!ext || strcmp(ext, BUNDLE_EXT) || ext - de->d_name <= 6 ||
		    strncmp(de->d_name, "sonde-", 6) || !name_ok(de->d_name) ||
		    (match && !match(de->d_name, arg)))
			continue;
		if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue; /* gone since it was listed */
		if (S_ISLNK(st.st_mode))
			snprintf(why, sizeof(why), "a symbolic link");
		else
			bundle__own(&st, why, sizeof(why));
		rc = files_push(out, de->d_name, &st, why);
	}
	closedir(d);
	return rc;
}

void bundle_files__free(struct bundle_files *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->v[i].name);
	free(f->v);
	memset(f, 0, sizeof(*f));
}

int bundle__open_own(int dirfd, const char *name, struct stat *st, char *why, size_t whylen)
{
	struct stat was;
	int fd, rc;

	/* Nothing is opened that is not a regular file: opening a device can do something. */
	if (fstatat(dirfd, name, &was, AT_SYMLINK_NOFOLLOW)) {
		rc = -errno;
		snprintf(why, whylen, "%s", strerror(errno));
		return rc;
	}
	if (S_ISLNK(was.st_mode)) {
		snprintf(why, whylen, "a symbolic link");
		return -EPERM;
	}
	rc = bundle__own(&was, why, whylen);
	if (rc)
		return rc;
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		snprintf(why, whylen, "%s", strerror(errno));
		return rc;
	}
	if (fstat(fd, st)) {
		rc = -errno;
		snprintf(why, whylen, "%s", strerror(errno));
		close(fd);
		return rc;
	}
	rc = bundle__own(st, why, whylen);
	if (!rc && (st->st_dev != was.st_dev || st->st_ino != was.st_ino)) {
		snprintf(why, whylen, "replaced while it was being opened");
		rc = -EAGAIN;
	}
	if (rc) {
		close(fd);
		return rc;
	}
	return fd;
}

/* A string of the manifest into out, or "" when it has none or one that does not fit. */
static void head_str(const struct jval *v, const char *key, char *out, size_t len)
{
	const char *s = v ? jval__str(v, key) : NULL;

	if (!s || strlen(s) >= len)
		s = "";
	snprintf(out, len, "%s", s);
}

static int head_parse(const char *buf, size_t len, struct bundle_head *h, char *err,
		      size_t errlen)
{
	static const struct json_read_limits lim = {
		.max_bytes = 64u << 20, .max_depth = 16, .max_items = 1u << 20,
		.max_string = 1u << 16,
	};
	const struct jval *host;
	const char *schema;
	struct jval *v = NULL;
	int rc = -EINVAL;

	if (json_read(buf, len, &lim, &v, err, errlen))
		return -EINVAL;
	schema = jval__str(v, "schema");
	if (!schema || strcmp(schema, MANIFEST_SCHEMA)) {
		snprintf(err, errlen, "manifest.json: not a sonde manifest (schema %.60s)",
			 schema ? schema : "missing");
		goto cleanup;
	}
	host = jval__get(v, "host");
	head_str(host, "hostname", h->hostname, sizeof(h->hostname));
	head_str(host, "host_id", h->host_id, sizeof(h->host_id));
	if (h->host_id[0] && !host_id__valid(h->host_id))
		h->host_id[0] = '\0';
	head_str(v, "case_id", h->case_id, sizeof(h->case_id));
	h->start_ns = clock__iso8601_ns(jval__str(v, "start"));
	h->end_ns = clock__iso8601_ns(jval__str(v, "end"));
	if (!h->hostname[0] || !h->start_ns || !h->end_ns) {
		snprintf(err, errlen, "manifest.json: no %s", !h->hostname[0] ? "host name" :
							     "window (start and end)");
		goto cleanup;
	}
	rc = 0;
cleanup:
	jval__free(v);
	return rc;
}

/* dir/manifest.json (at most max_bytes) as h. */
static int head_of_dir(const char *dir, uint64_t max_bytes, struct bundle_head *h, char *err,
		       size_t errlen)
{
	char path[4200], *buf = NULL;
	size_t len = 0;
	int rc;

	memset(h, 0, sizeof(*h));
	snprintf(path, sizeof(path), "%s/manifest.json", dir);
	rc = file__read_bounded(AT_FDCWD, path, max_bytes, &buf, &len);
	if (rc)
		snprintf(err, errlen, "manifest.json: %s", strerror(-rc));
	else
		rc = head_parse(buf, len, h, err, errlen);
	h->bytes = len;
	free(buf);
	return rc;
}

int bundle__read_head(int fd, const char *parent, double max_seconds, uint64_t max_bytes,
		      struct bundle_head *h, char *err, size_t errlen)
{
	static const struct bundle_want want[] = { { "manifest.json", 0 } };
	const struct bundle_open_limits lim = {
		.max_member_bytes = max_bytes,
		.max_total_bytes = max_bytes,
		.max_entries = 100000,
		.max_memory_bytes = 256ULL << 20,
		.max_seconds = max_seconds,
	};
	char dir[4096];
	int rc;

	memset(h, 0, sizeof(*h));
	rc = bundle__extract_some_fd(fd, parent, &lim, want, 1, dir, sizeof(dir), err, errlen);
	if (rc)
		return rc;
	rc = head_of_dir(dir, max_bytes, h, err, errlen);
	bundle__remove_tree(dir);
	return rc;
}

int bundle__read_head_dir(const char *dir, struct bundle_head *h, char *err, size_t errlen)
{
	return head_of_dir(dir, 64u << 20, h, err, errlen);
}

int bundle__same_host(const struct bundle_head *h, const char *host, const char *id,
		      const char **how, char *why, size_t whylen)
{
	if (h->host_id[0] && id[0]) {
		if (strcmp(h->host_id, id)) {
			snprintf(why, whylen, "another machine: its machine-id differs (its manifest "
					      "names %.200s)", h->hostname);
			return 0;
		}
		*how = "same machine-id";
		return 1;
	}
	if (strcmp(h->hostname, host)) {
		snprintf(why, whylen, "another host: its manifest says %.200s%s", h->hostname,
			 h->host_id[0] ? " (and this host has no machine-id to compare)" : "");
		return 0;
	}
	*how = h->host_id[0] ? "same hostname: this host has no machine-id to compare" :
			       "same hostname: it records no machine-id";
	return 1;
}
