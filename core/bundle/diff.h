/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sonde diff: what changed between two bundles (of one host, or of two), or
 * between a bundle and a baseline of earlier audits of its host, and is it
 * the cause: findings new, resolved, persisting, worse, better; each
 * metric's change judged against its noise; the host's configuration
 * (kernel, boot parameters, sysctls, packages, mounts, cgroup limits,
 * topology); the processes, matched by command and cgroup, not by pid; the
 * latency histograms' percentiles with their confidence and heat maps side
 * by side; the code: the functions and stacks whose share of the profile
 * changed beyond sampling noise, and a differential flame graph.
 * docs/audits.md says how each noise is computed; docs/findings-schema.md
 * the JSON.
 */
#ifndef SONDE_DIFF_H
#define SONDE_DIFF_H

#include <stddef.h>
#include <stdio.h>

#include "lua/engine.h"
#include "util/strv.h"

enum diff_format { DIFF_TEXT, DIFF_JSON, DIFF_MD, DIFF_HTML };

#define DIFF_SCHEMA "sonde.diff/2"
#define DIFF_BASELINE_MAX 16 /* earlier audits a baseline takes at most */

/* An opened bundle: its directory, and its name as the user gave it. */
struct diff_input {
	const char *dir, *name;
};

struct diff_result {
	enum status worst;       /* the worst severity of findings new or worse (ST_OK: none) */
	char worst_what[1024];   /* the first of those, one line */
	size_t changes;          /* findings that did not persist, and quantities beyond noise */
	/*
	 * Regressions: a finding new or worse (a check's, not a host change), a
	 * metric that moved toward its threshold beyond noise, a latency
	 * percentile that rose beyond its confidence interval.
	 */
	size_t regressions;
	char regression_what[1024];
};

struct diff_request {
	const struct diff_input *old; /* nold of them: one bundle, or a baseline's audits */
	size_t nold;
	const struct diff_input *new_;
	enum diff_format fmt;
	int findings_only;            /* findings, metrics and the host only: no captures read */
};

/*
 * Compare req's new bundle with its old one or with the baseline of its
 * earlier audits, and print the result in req->fmt to out. res is set.
 * Returns 0, or -errno with err (one line that names the bundle at fault).
 */
int diff__run(const struct diff_request *req, FILE *out, struct diff_result *res, char *err,
	      size_t errlen);

/*
 * The bundles of dir that are earlier audits of the host new_dir (an
 * extracted bundle) is of: the running user's own bundle files (as the
 * trends across audits trust them, bundle/earlier.h), of the same machine
 * (host id, else hostname), whose window started before new_dir's; the
 * newest max of them, newest first, into paths ("dir/name"); what was
 * refused and why into notes. 0, or -errno with err.
 */
int diff__baseline_dir(const char *dir, const char *new_dir, size_t max, struct strv *paths,
		       struct strv *notes, char *err, size_t errlen);

#endif
