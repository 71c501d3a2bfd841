// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Retention (sonde run --keep N): after a run wrote its bundle, the older
 * bundles of the same host in the same directory beyond the newest N go,
 * each with its redaction map.
 *
 * A file is chosen by what it is, never by its name: --out may be shared, and
 * anyone who can write in it can name a file like a bundle of this host, of any
 * time (a name dated 2999 once made every real bundle "older" and removed them
 * all). So a file counts only when it is the running user's own
 * (bundle/earlier.h: a regular file owned by the effective uid, not writable by
 * others), a sonde bundle by its manifest (read alone, under a deadline), of
 * the same host as the bundle just written (its host id, else its hostname:
 * bundle__same_host) and of the same case id; the newest are those whose
 * manifest's window starts last. The name is only a first filter
 * (sonde-*.tar.xz): nothing else is ever removed, nor the bundle just
 * written, whatever the clock did.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle/bundle.h"
#include "bundle/earlier.h"

#define RETAIN_MANIFEST_MAX (16ULL << 20)
#define RETAIN_SECONDS 10.0 /* reading one manifest: it is the first member */

/* Newest first: by the window's start in the manifest, then by the name. */
static int newest_first(const void *a, const void *b)
{
	const struct bundle_file *x = a, *y = b;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? 1 : -1;
	return strcmp(y->name, x->name);
}

static const char *scratch_parent(void)
{
	const char *tmp = getenv("TMPDIR");

	return tmp && *tmp ? tmp : "/tmp";
}

/* The head of name in dfd when it is the user's own bundle; 0, or -errno (*own: 0 when not theirs). */
static int own_head(int dfd, const char *name, struct bundle_head *h, struct stat *st, int *own)
{
	char why[256];
	int fd, rc;

	*own = 1;
	fd = bundle__open_own(dfd, name, st, why, sizeof(why));
	if (fd < 0) {
		*own = fd != -EPERM;
		return fd;
	}
	rc = bundle__read_head(fd, scratch_parent(), RETAIN_SECONDS, RETAIN_MANIFEST_MAX, h, why,
			       sizeof(why));
	close(fd);
	return rc;
}

static int not_mine(const char *name, void *base)
{
	return strcmp(name, base);
}

/*
 * The files of dfd named like a bundle, but base: those that are the user's
 * own bundles of the host and case of mine get their window's start (the
 * others keep 0: they sort last and are never removed). *refused counts the
 * files that are not the user's own.
 */
static int retain_list(int dfd, const char *base, const struct bundle_head *mine,
		       struct bundle_files *l, int *refused)
{
	struct bundle_head h;
	const char *how;
	char why[512];
	int rc, own;

	rc = bundle__list(dfd, not_mine, (void *)base, SIZE_MAX, l);
	for (size_t i = 0; !rc && i < l->n; i++) {
		struct bundle_file *f = &l->v[i];

		if (f->refused[0] || own_head(dfd, f->name, &h, &f->st, &own)) {
			*refused += f->refused[0] || !own;
			continue;
		}
		if (bundle__same_host(&h, mine->hostname, mine->host_id, &how, why, sizeof(why)) &&
		    !strcmp(h.case_id, mine->case_id))
			f->start_ns = h.start_ns;
	}
	return rc;
}

/* Remove name from dfd if it is still the file that was read; and its redaction map if ours. */
static int retain_remove(int dfd, const struct bundle_file *r)
{
	char map[8300], why[256];
	struct stat st;

	if (fstatat(dfd, r->name, &st, AT_SYMLINK_NOFOLLOW) || st.st_dev != r->st.st_dev ||
	    st.st_ino != r->st.st_ino)
		return 0; /* gone or replaced since it was read: not the bundle that was chosen */
	if (unlinkat(dfd, r->name, 0))
		return errno == ENOENT ? 0 : -errno;
	bundle__map_path(r->name, map, sizeof(map));
	if (!fstatat(dfd, map, &st, AT_SYMLINK_NOFOLLOW) && !bundle__own(&st, why, sizeof(why)))
		unlinkat(dfd, map, 0);
	return 1;
}

int bundle__retain(const char *bundle, int keep, int *removed, int *refused, char *err,
		   size_t errlen)
{
	const char *slash = strrchr(bundle, '/'), *base = slash ? slash + 1 : bundle;
	struct bundle_files older = { 0 };
	struct bundle_head mine;
	char dir[4096];
	struct stat st;
	int dfd, rc, own;

	*removed = *refused = 0;
	if (keep <= 0)
		return 0;
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - bundle) : 1, slash ? bundle : ".");
	dfd = open(dir[0] ? dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		rc = -errno;
		snprintf(err, errlen, "--keep: %s: %s", dir, strerror(errno));
		return rc;
	}
	/* What the others are compared with: the host and case of the bundle just written. */
	rc = own_head(dfd, base, &mine, &st, &own);
	if (rc) {
		snprintf(err, errlen, "--keep: %s: its manifest cannot be read (%s): nothing removed",
			 bundle, strerror(-rc));
		goto cleanup;
	}
	rc = retain_list(dfd, base, &mine, &older, refused);
	if (rc) {
		snprintf(err, errlen, "--keep: %s: %s", dir, strerror(-rc));
		goto cleanup;
	}
	qsort(older.v, older.n, sizeof(*older.v), newest_first);
	/* this run's bundle is one of the keep; the files that are not bundles of its host come last */
	for (size_t i = (size_t)keep - 1; i < older.n && older.v[i].start_ns; i++) {
		rc = retain_remove(dfd, &older.v[i]);
		if (rc < 0) {
			snprintf(err, errlen, "--keep: removing %s/%s: %s", dir, older.v[i].name,
				 strerror(-rc));
			goto cleanup;
		}
		*removed += rc;
		rc = 0;
	}
cleanup:
	close(dfd);
	bundle_files__free(&older);
	return rc;
}
