/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The bundle: one tar.xz holding report.md, report.html, findings.json,
 * manifest.json and raw/ (the captures). Built from a staging directory that
 * already holds every member but the manifest.
 */
#ifndef SONDE_BUNDLE_H
#define SONDE_BUNDLE_H

#include <stddef.h>
#include <stdint.h>

struct bundle_member {
	char *path;        /* relative to the staging dir, '/'-separated */
	uint64_t size;
	char sha256[65];
};

struct bundle_list {
	struct bundle_member *m;
	size_t n;
};

/*
 * Walk the staging dir (regular files only, sorted by path, skipping
 * manifest.json) and fill each member's size and sha256.
 * Returns 0 or -errno.
 */
int bundle__scan(const char *stage_dir, struct bundle_list *out);
void bundle_list__free(struct bundle_list *bl);

/*
 * Write every regular file under stage_dir (manifest.json included, in the
 * order: manifest.json, findings.json, report.md, report.html, then the rest
 * sorted) into a tar.xz at final_path. The archive is written to a temporary
 * name in the same directory with mode 0600, fsynced, and renamed to
 * final_path only when complete; on any failure the temporary file is removed
 * and final_path is untouched. An existing file is never replaced: the name
 * gets "-2", "-3", ... before ".tar.xz" and final_path (final_size bytes) is
 * updated to the name used. errbuf receives a one-line reason on failure.
 * Returns 0 or -errno.
 */
int bundle__write(const char *stage_dir, char *final_path, size_t final_size, char *errbuf,
		  size_t errlen);

/*
 * A bundle's file name: what sonde writes ends in BUNDLE_EXT; what it reads
 * is a tar compressed with xz, gzip or zstd (bundle/read.c), named with one
 * of bundle_exts (NULL-terminated: .tar.xz, .txz, .tar.gz, .tgz, .tar.zst,
 * .tzst). bundle__ext(name): where in name (a file name or a path) the
 * bundle extension starts, or NULL when it ends with none of them or is
 * nothing but one (".tar.xz" names no bundle). Case counts; a plain .tar is
 * no bundle (the reader refuses an uncompressed tar).
 */
#define BUNDLE_EXT ".tar.xz"
extern const char *const bundle_exts[];
const char *bundle__ext(const char *name);

/*
 * Async-signal-safe: remove the temporary of a bundle being written (a second
 * Ctrl-C during bundle__write exits at once and must not leave it behind).
 */
void bundle__abort_cleanup(void);

/* ---- manifest.c ---- */

struct analysis;
struct json;

/* The manifest's "files" array: every member's path, size and sha256. */
void bundle__manifest_files(struct json *j, const struct bundle_list *bl);

/*
 * stage/manifest.json: the schema, sonde's version, command (the command line
 * that made the bundle, as it goes into it: redacted with --redact), the case
 * id (or null), the host and the window from an, and every other member's
 * size and sha256. Written last, after every member is final. 0 or -errno
 * with a one-line err.
 */
int bundle__write_manifest(const char *stage, const char *command, const char *case_id,
			   const struct analysis *an, char *err, size_t errlen);
/*
 * dir/sonde-HOST-UTCTIME.tar.xz, from an's host name and window start; with a
 * case id (NULL: none), dir/sonde-HOST-CASEID-UTCTIME.tar.xz.
 */
void bundle__path(const char *dir, const struct analysis *an, const char *case_id, char *out,
		  size_t len);
/* A case id for a file name: 1 to 64 of [A-Za-z0-9._-], not starting with '.' or '-'. */
int bundle__case_id_ok(const char *id);
/* The host's part of a bundle's file name (as bundle__path writes it): [A-Za-z0-9.-], else '_'. */
void bundle__host_part(const char *hostname, char *out, size_t len);
/* The redaction map's path for a bundle: NAME.redaction-map.json beside NAME.tar.xz. */
void bundle__map_path(const char *bundle, char *out, size_t len);

/*
 * retain.c: keep the newest keep bundles of bundle's host (and case id) in its
 * directory (bundle, just written, always among them) and remove the others
 * with their redaction maps. A bundle is one by what it is: the running user's
 * own file (bundle/earlier.h), of the same host by its manifest, newest by the
 * window its manifest records; never by its name. *removed counts those
 * removed, *refused the files named like a bundle left alone as not the
 * user's own. 0, or -errno with err (nothing is removed when the new bundle's
 * own manifest cannot be read).
 */
int bundle__retain(const char *bundle, int keep, int *removed, int *refused, char *err,
		   size_t errlen);

#endif
