// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Verifying an extracted bundle against its manifest.json: every member
 * listed, nothing missing, nothing extra, sizes and sha256 equal. The
 * manifest is read as untrusted input (json_read) and checked for shape
 * before anything is compared.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle/bundle.h"
#include "bundle/read.h"
#include "util/file.h"
#include "util/json_read.h"
#include "util/tty.h"

#define MANIFEST_MAX (64u << 20)

static int read_manifest(const char *dir, char **buf, size_t *len, char *err, size_t errlen)
{
	char path[4096];
	int rc;

	snprintf(path, sizeof(path), "%s/manifest.json", dir);
	rc = file__read_bounded(AT_FDCWD, path, MANIFEST_MAX, buf, len);
	if (rc == -EFBIG || rc == -EINVAL || rc == -ELOOP)
		snprintf(err, errlen, "manifest.json: not a regular file of at most %u MiB",
			 MANIFEST_MAX >> 20);
	else if (rc)
		snprintf(err, errlen, "manifest.json: %s", strerror(-rc));
	return rc;
}

struct listed {
	const char *path, *sha256;
	double size;
};

static int cmp_listed(const void *a, const void *b)
{
	return strcmp(((const struct listed *)a)->path, ((const struct listed *)b)->path);
}

static int is_hex64(const char *s)
{
	if (!s || strlen(s) != 64)
		return 0;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return 0;
	return 1;
}

/* A name shown in a message: cleaned for a terminal (util/tty.h), length bounded. */
static const char *shown(const char *s, char *buf, size_t len)
{
	snprintf(buf, len, "%s", s ? s : "");
	tty__clean_str(buf);
	return buf;
}

int bundle__verify_dir(const char *dir, char *err, size_t errlen)
{
	struct bundle_list bl = { 0 };
	struct jval *doc = NULL;
	const struct jval *files;
	struct listed *ls = NULL;
	char *text = NULL, jerr[256], name[160];
	size_t len = 0, n, i, k;
	int rc;

	rc = read_manifest(dir, &text, &len, err, errlen);
	if (rc)
		return rc == -ENOMEM ? rc : -EINVAL;
	rc = json_read(text, len, &json_read_default_limits, &doc, jerr, sizeof(jerr));
	if (rc) {
		snprintf(err, errlen, "manifest.json: not valid JSON: %s", jerr);
		rc = -EINVAL;
		goto cleanup;
	}
	if (!jval__str(doc, "schema") || strncmp(jval__str(doc, "schema"), "sonde.manifest/", 15)) {
		snprintf(err, errlen, "manifest.json: not a sonde manifest (no \"schema\": "
				      "\"sonde.manifest/N\")");
		rc = -EINVAL;
		goto cleanup;
	}
	files = jval__get(doc, "files");
	if (!files || files->type != J_ARRAY) {
		snprintf(err, errlen, "manifest.json: \"files\" is not a list");
		rc = -EINVAL;
		goto cleanup;
	}
	n = files->len;
	ls = calloc(n + 1, sizeof(*ls));
	if (!ls) {
		rc = -ENOMEM;
		goto cleanup;
	}
	for (i = 0; i < n; i++) {
		const struct jval *f = &files->items[i];

		ls[i].path = jval__str(f, "path");
		ls[i].sha256 = jval__str(f, "sha256");
		if (!ls[i].path || jval__num(f, "size", &ls[i].size) || ls[i].size < 0 ||
		    !is_hex64(ls[i].sha256)) {
			snprintf(err, errlen, "manifest.json: files[%zu] lacks a path, size or sha256",
				 i);
			rc = -EINVAL;
			goto cleanup;
		}
	}
	qsort(ls, n, sizeof(*ls), cmp_listed);
	for (i = 1; i < n; i++)
		if (!strcmp(ls[i - 1].path, ls[i].path)) {
			snprintf(err, errlen, "%s: listed twice in the manifest",
				 shown(ls[i].path, name, sizeof(name)));
			rc = -EINVAL;
			goto cleanup;
		}

	rc = bundle__scan(dir, &bl);
	if (rc) {
		snprintf(err, errlen, "reading the bundle's members: %s", strerror(-rc));
		goto cleanup;
	}
	/* Both lists are sorted by strcmp: walk them together. */
	for (i = 0, k = 0; i < n || k < bl.n;) {
		int c = i == n ? 1 : k == bl.n ? -1 : strcmp(ls[i].path, bl.m[k].path);

		if (c < 0) {
			snprintf(err, errlen, "%s: listed in the manifest but missing from the bundle",
				 shown(ls[i].path, name, sizeof(name)));
			rc = -EINVAL;
			goto cleanup;
		}
		if (c > 0) {
			snprintf(err, errlen, "%s: in the bundle but not in the manifest",
				 shown(bl.m[k].path, name, sizeof(name)));
			rc = -EINVAL;
			goto cleanup;
		}
		if ((double)bl.m[k].size != ls[i].size) {
			snprintf(err, errlen, "%s: %llu bytes, the manifest says %.0f",
				 shown(bl.m[k].path, name, sizeof(name)),
				 (unsigned long long)bl.m[k].size, ls[i].size);
			rc = -EINVAL;
			goto cleanup;
		}
		if (strcmp(bl.m[k].sha256, ls[i].sha256)) {
			snprintf(err, errlen, "%s: sha256 differs from the manifest",
				 shown(bl.m[k].path, name, sizeof(name)));
			rc = -EINVAL;
			goto cleanup;
		}
		i++;
		k++;
	}
	rc = 0;
cleanup:
	bundle_list__free(&bl);
	free(ls);
	jval__free(doc);
	free(text);
	return rc;
}
