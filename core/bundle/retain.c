// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Retention (sonde run --keep N): after a run wrote its bundle, the older
 * bundles of the same host in the same directory beyond the newest N go,
 * each with its redaction map. Only names sonde writes are touched
 * (sonde-HOST-YYYYmmddTHHMMSSZ[-K].tar.xz, manifest.c), only regular files,
 * and never the bundle just written, whatever the clock did.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle/bundle.h"
#include "util/strv.h"

/* "20261121T153955Z" then nothing, or "-K" (a clash resolved by bundle__write), then .tar.xz */
static int is_time_suffix(const char *s)
{
	static const char shape[] = "ddddddddTddddddZ";

	for (size_t i = 0; i < sizeof(shape) - 1; i++)
		if (shape[i] == 'd' ? (s[i] < '0' || s[i] > '9') : s[i] != shape[i])
			return 0;
	s += sizeof(shape) - 1;
	if (*s == '-' && s[1] >= '0' && s[1] <= '9')
		for (s++; *s >= '0' && *s <= '9'; s++)
			;
	return !strcmp(s, ".tar.xz");
}

static int newest_first(const void *a, const void *b)
{
	return strcmp(*(char *const *)b, *(char *const *)a);
}

int bundle__retain(const char *bundle, int keep, int *removed, char *err, size_t errlen)
{
	const char *slash = strrchr(bundle, '/'), *base = slash ? slash + 1 : bundle;
	char dir[4096], prefix[256], path[8192], map[8300];
	struct strv older = { 0 };
	struct dirent *e;
	size_t plen;
	DIR *d;
	int rc = 0;

	*removed = 0;
	plen = strlen(base);
	/* sonde-HOST- : the name without its time and suffix (.tar.xz, "-K" and the time). */
	if (keep <= 0 || plen < 6 + 2 + 16 + 7 || strncmp(base, "sonde-", 6))
		return 0;
	for (plen = 6; base[plen]; plen++)
		if (base[plen] == '-' && is_time_suffix(base + plen + 1))
			break;
	if (!base[plen] || plen + 2 > sizeof(prefix))
		return 0;
	snprintf(prefix, sizeof(prefix), "%.*s", (int)plen + 1, base);
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - bundle) : 1, slash ? bundle : ".");
	if (!(d = opendir(dir))) {
		snprintf(err, errlen, "--keep: %s: %s", dir, strerror(errno));
		return -errno;
	}
	while ((e = readdir(d))) {
		struct stat sb;

		if (strncmp(e->d_name, prefix, plen + 1) || !is_time_suffix(e->d_name + plen + 1) ||
		    !strcmp(e->d_name, base))
			continue;
		if (fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) || !S_ISREG(sb.st_mode))
			continue;
		if (strv__push(&older, e->d_name)) {
			rc = -ENOMEM;
			snprintf(err, errlen, "--keep: out of memory");
			goto cleanup;
		}
	}
	/* The time in the name orders them; this run's bundle is one of the keep. */
	qsort(older.v, older.n, sizeof(*older.v), newest_first);
	for (size_t i = (size_t)keep - 1; i < older.n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, older.v[i]);
		if (unlink(path) && errno != ENOENT) {
			rc = -errno;
			snprintf(err, errlen, "--keep: removing %s: %s", path, strerror(errno));
			goto cleanup;
		}
		(*removed)++;
		bundle__map_path(path, map, sizeof(map));
		unlink(map);
	}
cleanup:
	closedir(d);
	strv__free(&older);
	return rc;
}
