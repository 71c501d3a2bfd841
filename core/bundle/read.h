/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Opening bundles that may have been crafted: extraction into a private
 * directory, in a child process with a memory limit and a deadline, refusing
 * everything a bundle never contains. Then verification against manifest.json.
 */
#ifndef SONDE_BUNDLE_READ_H
#define SONDE_BUNDLE_READ_H

#include <stddef.h>
#include <stdint.h>

struct bundle_open_limits {
	uint64_t max_member_bytes; /* one member, counted as read (headers can lie) */
	uint64_t max_total_bytes;  /* all members, counted as read */
	uint64_t max_entries;
	uint64_t max_memory_bytes; /* address space the extracting process may add to what it has */
	double max_seconds;        /* the extracting process is killed past this */
};

extern const struct bundle_open_limits bundle_open_default_limits;

/* A member a command needs: a file ("findings.json"), or a directory and all under it ("raw/"). */
struct bundle_want {
	const char *name;
	int optional; /* absent is no error: the caller looks for it */
};

/*
 * Extract the tar (compressed with xz, gzip or zstd: nothing else) at path
 * into a new directory created under parent (mode 0700); its path goes to
 * out_dir. Refused, with a one-line error naming the member: absolute paths,
 * '..' or empty components, names with control characters or bytes a
 * terminal would not show as text, symlinks, hard links, devices, FIFOs,
 * sockets, a member or a total over the caps, too many entries, a duplicate
 * member, an unknown format or filter, a corrupt or truncated stream. Nothing
 * is ever written outside out_dir; on failure out_dir is removed. Returns 0
 * or -errno (-EINVAL for a refusal).
 *
 * out_dir is a scratch directory (util/scratch.h): removed at exit and on a
 * fatal signal, by bundle__remove_tree before that; one that a killed process
 * left is removed by the next extraction into the same parent.
 */
int bundle__extract(const char *path, const char *parent, const struct bundle_open_limits *lim,
		    char *out_dir, size_t out_len, char *err, size_t errlen);

/*
 * The same, writing only the members in want (nwant of them; want NULL:
 * every member), so that a command reading findings.json writes findings.json
 * and nothing else: every header is still read and checked (a bundle refused
 * by one command is refused by all), the data of the others is skipped, never
 * written, and the caps count what is written, checked against each header
 * before its first byte is. With no directory wanted, reading stops as soon as
 * every wanted file is out (a later duplicate of one is then not seen). A
 * wanted member that is not optional and is not a file of the bundle fails the
 * extraction: "report.md: not in the bundle" (-ENOENT), "raw: a directory in
 * the bundle, not a member: name a file in it" (-EISDIR).
 *
 * To read one bundle's findings:
 *
 *	static const struct bundle_want want[] = { { "findings.json" } };
 *	char dir[PATH_MAX], err[1024];
 *
 *	if (bundle__extract_some(path, tmpdir, NULL, want, 1, dir, sizeof(dir), err, sizeof(err)))
 *		... err names the bundle's problem ...
 *	... read dir/findings.json (untrusted: util/json_read.h) ...
 *	bundle__remove_tree(dir);
 */
int bundle__extract_some(const char *path, const char *parent,
			 const struct bundle_open_limits *lim, const struct bundle_want *want,
			 size_t nwant, char *out_dir, size_t out_len, char *err, size_t errlen);

/*
 * The same, from a bundle file already open at fd (read from its start; fd
 * stays open): for a caller that checked what the file is (its owner, its
 * mode) on the fd, so that the name cannot be swapped in between.
 */
int bundle__extract_some_fd(int fd, const char *parent, const struct bundle_open_limits *lim,
			    const struct bundle_want *want, size_t nwant, char *out_dir,
			    size_t out_len, char *err, size_t errlen);

/*
 * Check every member of an extracted bundle against its manifest.json:
 * nothing missing, nothing extra, sizes and sha256 equal. The first mismatch
 * goes to err ("raw/proc.stat.cap: sha256 differs from the manifest").
 * Returns 0, or -EINVAL on a mismatch or an unreadable manifest.
 */
int bundle__verify_dir(const char *dir, char *err, size_t errlen);

/*
 * Remove a directory tree (or a single regular file) without following
 * symlinks; a scratch directory (what bundle__extract made) with its lock file.
 */
int bundle__remove_tree(const char *dir);

#endif
