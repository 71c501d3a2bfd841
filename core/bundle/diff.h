/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sonde diff: what changed between two bundles' findings (of one host, or of
 * two): findings new, resolved, persisting, worse, better; and every metric's
 * delta judged against the spread of its per-interval values in each window,
 * so that noise is not called a regression.
 */
#ifndef SONDE_DIFF_H
#define SONDE_DIFF_H

#include <stdio.h>

#include "lua/engine.h"

enum diff_format { DIFF_TEXT, DIFF_JSON, DIFF_MD, DIFF_HTML };

#define DIFF_SCHEMA "sonde.diff/1"

/*
 * Compare the findings.json of two opened bundles (directories), print the
 * result in fmt to out, set *worst to the highest severity among findings
 * that are new or worse (ST_OK when none) and *changes (may be NULL) to the
 * number of findings that did not persist plus metrics beyond noise.
 * Returns 0, or -errno with err.
 */
int diff__run(const char *old_dir, const char *new_dir, const char *old_name,
	      const char *new_name, enum diff_format fmt, const char *css, FILE *out,
	      enum status *worst, size_t *changes, char *err, size_t errlen);

#endif
