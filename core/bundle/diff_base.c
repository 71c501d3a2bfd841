// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sonde diff: the sides. A side is one bundle, opened: its findings.json
 * kept, its captures read once by each section into what that section
 * compares, then closed. --baseline DIR takes the earlier bundles of the
 * same host in a directory sonde writes to (the running user's own files
 * only, as the trends across audits do: bundle/earlier.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bundle/diff_int.h"
#include "bundle/earlier.h"
#include "util/clock.h"
#include "util/file.h"

#define FINDINGS_MAX (64u << 20)

static int load_findings(struct diff_side *sd, const char *dir, char *err, size_t errlen)
{
	char path[4200], jerr[256];
	const char *schema, *start;
	size_t len;
	int rc;

	snprintf(path, sizeof(path), "%s/findings.json", dir);
	rc = file__read_bounded(AT_FDCWD, path, FINDINGS_MAX, &sd->text, &len);
	if (rc) {
		snprintf(err, errlen, "%s: findings.json: %s", sd->name,
			 rc == -EFBIG ? "too large" : strerror(-rc));
		return rc;
	}
	if (json_read(sd->text, len, &json_read_default_limits, &sd->doc, jerr, sizeof(jerr))) {
		snprintf(err, errlen, "%s: findings.json: %s", sd->name, jerr);
		return -EINVAL;
	}
	schema = jval__str(sd->doc, "schema");
	if (!schema || strncmp(schema, "sonde.findings/", 15)) {
		snprintf(err, errlen, "%s: findings.json is not a sonde findings document",
			 sd->name);
		return -EINVAL;
	}
	start = jval__str(jval__get(sd->doc, "window"), "start");
	if (start)
		clock__parse_iso8601(start, &sd->start_ns);
	snprintf(sd->hostname, sizeof(sd->hostname), "%s",
		 jval__str(jval__get(sd->doc, "host"), "hostname") ?: "");
	return 0;
}

/* Each section's facts from the captures of raw (and its drill-down); -ENOMEM only. */
static int load_captures(struct diff_side *sd, const char *dir)
{
	struct analysis an, dd;
	char raw[4200], ddir[4300], why[512];
	int rc = 0, dd_ok;

	snprintf(raw, sizeof(raw), "%s/raw", dir);
	if (analysis__open(&an, raw, why, sizeof(why))) {
		snprintf(sd->raw_why, sizeof(sd->raw_why), "no captures: %s", why);
		return 0;
	}
	snprintf(sd->host_id, sizeof(sd->host_id), "%s", an.host_id);
	if (an.hostname[0])
		snprintf(sd->hostname, sizeof(sd->hostname), "%s", an.hostname);
	snprintf(ddir, sizeof(ddir), "%s/drilldown", raw);
	dd_ok = !access(ddir, F_OK) && !analysis__open(&dd, ddir, why, sizeof(why));
	if (diff_procs__facts(&an, &sd->procs) == -ENOMEM ||
	    diff_lat__facts(&an, dd_ok ? &dd : NULL, &sd->lat) == -ENOMEM ||
	    diff_host__facts(&an, &sd->host) == -ENOMEM ||
	    diff_code__facts(raw, &sd->code) == -ENOMEM)
		rc = -ENOMEM;
	if (dd_ok)
		analysis__close(&dd);
	analysis__close(&an);
	return rc;
}

int diff_side__open(struct diff_side *sd, const char *dir, const char *name, int captures,
		    char *err, size_t errlen)
{
	int rc;

	memset(sd, 0, sizeof(*sd));
	sd->name = name;
	rc = load_findings(sd, dir, err, errlen);
	if (!captures)
		snprintf(sd->raw_why, sizeof(sd->raw_why), "not read");
	if (!rc && captures && (rc = load_captures(sd, dir)))
		snprintf(err, errlen, "%s: out of memory reading its captures", name);
	if (rc)
		diff_side__close(sd);
	return rc;
}

void diff_side__close(struct diff_side *sd)
{
	diff_procs__facts_free(sd->procs);
	diff_lat__facts_free(sd->lat);
	diff_code__facts_free(sd->code);
	diff_host__facts_free(sd->host);
	jval__free(sd->doc);
	free(sd->text);
	memset(sd, 0, sizeof(*sd));
}

/* ---- --baseline DIR: the earlier audits of the host in a directory ---- */

struct candidate {
	char *name;
	int64_t start_ns;
};

static int by_start_desc(const void *a, const void *b)
{
	const struct candidate *x = a, *y = b;

	return x->start_ns > y->start_ns ? -1 : x->start_ns < y->start_ns;
}

int diff__baseline_dir(const char *dir, const char *new_dir, size_t max, struct strv *paths,
		       struct strv *notes, char *err, size_t errlen)
{
	struct bundle_files files = { 0 };
	struct bundle_head nh;
	struct candidate *c = NULL;
	char why[512];
	size_t nc = 0;
	int dfd, rc;

	/* the new audit says which host, and from when the earlier ones are */
	if (bundle__read_head_dir(new_dir, &nh, why, sizeof(why))) {
		snprintf(err, errlen, "the new bundle: %s", why);
		return -EINVAL;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -errno;
	}
	rc = bundle__list(dfd, NULL, NULL, 4096, &files);
	if (rc) {
		snprintf(err, errlen, "%s: %s", dir, strerror(-rc));
		goto cleanup;
	}
	c = calloc(files.n + 1, sizeof(*c));
	if (!c) {
		rc = -ENOMEM;
		goto cleanup;
	}
	for (size_t i = 0; i < files.n; i++) {
		struct bundle_head h;
		struct stat st;
		const char *how;
		char line[600];
		const char *tmp = getenv("TMPDIR");
		int fd;

		if (files.v[i].refused[0]) {
			snprintf(line, sizeof(line), "refused %s: %s", files.v[i].name,
				 files.v[i].refused);
			if (strv__push(notes, line))
				rc = -ENOMEM;
			continue;
		}
		fd = bundle__open_own(dfd, files.v[i].name, &st, why, sizeof(why));
		if (fd < 0)
			continue;
		if (bundle__read_head(fd, tmp && *tmp ? tmp : "/tmp", 5, 1u << 20, &h, why,
				      sizeof(why))) {
			close(fd);
			continue;
		}
		close(fd);
		if (!bundle__same_host(&h, nh.hostname, nh.host_id, &how, why, sizeof(why)) ||
		    h.start_ns >= nh.start_ns)
			continue;
		c[nc].name = files.v[i].name;
		c[nc++].start_ns = h.start_ns;
	}
	qsort(c, nc, sizeof(*c), by_start_desc);
	for (size_t i = 0; i < nc && i < max && !rc; i++) {
		char path[4200];

		snprintf(path, sizeof(path), "%s/%s", dir, c[i].name);
		if (strv__push(paths, path))
			rc = -ENOMEM;
	}
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
cleanup:
	free(c);
	bundle_files__free(&files);
	close(dfd);
	return rc;
}
