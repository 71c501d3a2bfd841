/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fleet summary (sonde fleet, docs/fleet.md): many bundles, one row per
 * host. A worker process reads each bundle into a small record
 * (fleet__summarize: the host's verdict, its findings, its host-level
 * metrics, its run-queue and block I/O latency histograms); the parent adds
 * the records one at a time, keeping a compact host each and the findings'
 * summaries in a spool file, so its memory grows with the hosts, by a few
 * kilobytes each, not with the bundles' sizes. fleet__finish then finds the findings
 * many hosts share and those unique to one, the outliers of every metric (a
 * robust z-score on the median absolute deviation) and the fleet's latency
 * heat maps; the summary is a document (doc.h) for the Markdown and HTML
 * renderers, plus fleet.json and a terminal summary.
 *
 *	fleet__summarize(&members, &rec, err, errlen);       (in a worker)
 *	f = fleet__new(time(NULL), tmpdir);
 *	fleet__add(f, path, rec.buf, rec.len, err, errlen);  (or fleet__refused)
 *	fleet__finish(f);
 *	fleet__doc(f, &doc); fleet__json(f, &js, flush, arg); fleet__terminal(f, stdout);
 *	fleet__free(f);
 *
 * Everything from a bundle is untrusted: any member may be missing or of
 * another type, strings are cut and only ever become text.
 */
#ifndef SONDE_FLEET_H
#define SONDE_FLEET_H

#include <stdint.h>
#include <stdio.h>

#include "report/doc.h"
#include "util/json_read.h"
#include "util/strbuf.h"

#define FLEET_SCHEMA "sonde.fleet/1"
/* A metric is judged for outliers when at least this many hosts have it. */
#define FLEET_OUTLIER_MIN_HOSTS 5
/* |modified z| above this is an outlier (Iglewicz and Hoaglin's 3.5), */
#define FLEET_OUTLIER_Z 3.5
/* when the value is also this far from the median, relatively (any distance from a median of 0) */
#define FLEET_OUTLIER_MIN_REL 0.10
/*
 * A window that starts or ends later than this host's clock plus this many
 * seconds is in the future: its bundle is listed as not trusted and never
 * stands for a host another bundle stands for (clocks disagree by seconds,
 * not minutes, where NTP runs).
 */
#define FLEET_FUTURE_SKEW_S 300

/* What sonde fleet reads of one bundle; NULL: the member is absent. */
struct fleet_members {
	const struct jval *findings;   /* findings.json (required) */
	const struct jval *manifest;   /* manifest.json */
	const struct jval *runqlat;    /* raw/bpf/runqlat.json, or the drill-down window's */
	const struct jval *biolatency; /* raw/bpf/biolatency.json, or the drill-down window's */
};

struct fleet;

/*
 * One bundle's members as a record for fleet__add, appended to out. 0; -EINVAL
 * with err when it is not a sonde bundle's findings.json; -ENOMEM.
 */
int fleet__summarize(const struct fleet_members *m, struct strbuf *out, char *err, size_t errlen);

/*
 * now: this host's clock, seconds since the epoch (what "in the future" is
 * measured from); spool_dir: where the hosts' details go, in a file no one
 * sees (NULL, or when it cannot be made: in memory).
 */
struct fleet *fleet__new(int64_t now, const char *spool_dir);
void fleet__free(struct fleet *f);
/*
 * Add one bundle's record (rec, len bytes: fleet__summarize's, checked again)
 * (name: how the user named the bundle). A host is a host id (the
 * manifest's host.host_id, or none) with a host name: two machines that claim
 * one name are two rows, and a conflict the summary shows. A second bundle of
 * a host replaces the first when its window is later, else it is counted as
 * older; a bundle whose window is in the future (FLEET_FUTURE_SKEW_S) never
 * replaces one that is not. 0; -EINVAL with err when the record is malformed
 * (the caller records it with fleet__refused); -ENOMEM.
 */
int fleet__add(struct fleet *f, const char *name, const void *rec, size_t len, char *err,
	       size_t errlen);
/* A bundle that could not be read, and why (one line). 0 or -ENOMEM. */
int fleet__refused(struct fleet *f, const char *name, const char *reason);
/* Hosts, shared and unique findings, outliers, heat maps: after the last bundle. 0 or -ENOMEM. */
int fleet__finish(struct fleet *f);

size_t fleet__hosts(const struct fleet *f);
size_t fleet__bundles_read(const struct fleet *f);
/* The worst severity among the hosts (ST_OK when none); what (n bytes, may be NULL) names the
 * first host at that severity and its verdict. */
enum status fleet__worst(const struct fleet *f, char *what, size_t n);

/* The summary as a document (doc__init'ed by the caller; valid while f lives). 0 or -ENOMEM. */
int fleet__doc(const struct fleet *f, struct doc *d);
/*
 * fleet.json ("sonde.fleet/1"), appended to out; with flush, handed over
 * whenever out holds more than 64 KiB and at the end (flush writes and
 * empties out; it returns 0 or -errno). 0, -ENOMEM, -EIO (the spool) or
 * flush's error.
 */
int fleet__json(const struct fleet *f, struct strbuf *out,
		int (*flush)(void *arg, struct strbuf *out), void *arg);
void fleet__terminal(const struct fleet *f, FILE *out);

#endif
