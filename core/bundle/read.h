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

/*
 * Extract the tar (compressed with xz, gzip or zstd: nothing else) at path
 * into a new directory created under parent (mode 0700); its path goes to
 * out_dir. Refused, with a one-line error naming the member: absolute paths,
 * '..' or empty components, names with control characters, symlinks, hard
 * links, devices, FIFOs, sockets, a member or a total over the caps, too many
 * entries, a duplicate member, an unknown format or filter, a corrupt or
 * truncated stream. Nothing is ever written outside out_dir; on failure
 * out_dir is removed. Returns 0 or -errno (-EINVAL for a refusal).
 */
int bundle__extract(const char *path, const char *parent, const struct bundle_open_limits *lim,
		    char *out_dir, size_t out_len, char *err, size_t errlen);

/*
 * Check every member of an extracted bundle against its manifest.json:
 * nothing missing, nothing extra, sizes and sha256 equal. The first mismatch
 * goes to err ("raw/proc.stat.cap: sha256 differs from the manifest").
 * Returns 0, or -EINVAL on a mismatch or an unreadable manifest.
 */
int bundle__verify_dir(const char *dir, char *err, size_t errlen);

/* Remove a directory tree (or a single regular file) without following symlinks. */
int bundle__remove_tree(const char *dir);

#endif
