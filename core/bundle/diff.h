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
#include "util/strv.h"

struct jval;

enum diff_format { DIFF_TEXT, DIFF_JSON, DIFF_MD, DIFF_HTML };

#define DIFF_SCHEMA "sonde.diff/1"

/*
 * Compare the findings.json of two opened bundles (directories), print the
 * result in fmt to out, set *worst to the highest severity among findings
 * that are new or worse (ST_OK when none), worst_what (may be NULL) to the
 * first of those at that severity, one line, and *changes (may be NULL) to
 * the number of findings that did not persist plus metrics beyond noise.
 * A change of the host's configuration (diff_host.c) is a finding of the
 * diff, of severity warn. Returns 0, or -errno with err.
 */
int diff__run(const char *old_dir, const char *new_dir, const char *old_name,
	      const char *new_name, enum diff_format fmt, FILE *out,
	      enum status *worst, char *worst_what, size_t what_len, size_t *changes, char *err,
	      size_t errlen);

/*
 * diff_host.c: the changes of the host's kernel, OS, cgroups, CPU, memory
 * settings, sysctls, modules and failed units between two findings.json,
 * one each: the finding's check ("host.sysctl") in checks, its sentence
 * ("sysctl vm.swappiness: 60 -> 10") in lines. 0 or -ENOMEM.
 */
int diff_host__compare(const struct jval *old_doc, const struct jval *new_doc,
		       struct strv *checks, struct strv *lines);

#endif
