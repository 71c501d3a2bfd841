/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The earlier bundles in a directory sonde writes to (--out): which of its
 * files sonde may trust, and what each one is by its manifest, not its name.
 *
 * A directory may be shared. Anyone who can write in it can plant a file
 * named like a bundle of this host, with this host's id in its manifest (the
 * id is a keyed hash of the world-readable machine-id: anyone can compute
 * it). So a file counts only when it is the running user's own: a regular
 * file (never a link), owned by the effective uid and not writable by its
 * group or by others; and it is then read through the descriptor that was
 * checked, so the name cannot be swapped in between. Used across runs
 * (run/history.c) and by retention (retain.c).
 */
#ifndef SONDE_BUNDLE_EARLIER_H
#define SONDE_BUNDLE_EARLIER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "util/hostid.h"

/* What a bundle's manifest.json says it is. */
struct bundle_head {
	char hostname[256];
	char host_id[HOST_ID_LEN + 1]; /* "" when it records none (an older sonde) */
	char case_id[72];              /* "" when none */
	int64_t start_ns, end_ns;      /* its window (wall clock) */
	uint64_t bytes;                /* the manifest's size, as extracted */
};

/*
 * Whether st is a file the running user may trust: 0, or -EPERM with why
 * ("owned by uid 65534, not by this user (uid 0)", "writable by others (mode
 * 0666)", "not a regular file").
 */
int bundle__own(const struct stat *st, char *why, size_t whylen);

/* A file of a directory named like a bundle, as listed. */
struct bundle_file {
	char *name;
	struct stat st;    /* lstat, as listed: nothing was opened */
	char refused[160]; /* why it is not the running user's own (bundle__own), or "" */
	int64_t start_ns;  /* the caller's: its manifest's window start once read, else 0 */
};

struct bundle_files {
	struct bundle_file *v;
	size_t n, cap;
};

/*
 * The files of dfd named like a bundle (sonde-*.tar.xz, of the characters
 * bundle__path writes: [A-Za-z0-9._-]) that match(name, arg) accepts (NULL:
 * all), at most max of them, each looked at without being opened (lstat) and
 * marked refused when not the running user's own. Looking costs nothing, so
 * every such name is seen, however many were planted. 0, or -errno (those
 * listed so far kept).
 */
int bundle__list(int dfd, int (*match)(const char *name, void *arg), void *arg, size_t max,
		 struct bundle_files *out);
void bundle_files__free(struct bundle_files *f);

/*
 * Open name in dirfd for reading if it is the running user's own (bundle__own,
 * checked again on the open file: the same inode the name had). The fd, with
 * st filled, or -errno with why.
 */
int bundle__open_own(int dirfd, const char *name, struct stat *st, char *why, size_t whylen);

/*
 * The manifest of the bundle open at fd, and nothing else (it is the first
 * member sonde writes), extracted under parent within max_seconds and
 * max_bytes: the host, its id, the case id and the window. 0, or -errno with
 * err: not a bundle, no manifest, not a sonde manifest, no window.
 */
int bundle__read_head(int fd, const char *parent, double max_seconds, uint64_t max_bytes,
		      struct bundle_head *h, char *err, size_t errlen);

/* The same of an extracted bundle's directory (its manifest.json). */
int bundle__read_head_dir(const char *dir, struct bundle_head *h, char *err, size_t errlen);

/*
 * Whether the bundle whose manifest is h is of the host named host whose host
 * id is id ("" when it has none): by the host id when both have one, else by
 * the hostname. 1 with how (which matched), or 0 with why (what the manifest
 * says).
 */
int bundle__same_host(const struct bundle_head *h, const char *host, const char *id,
		      const char **how, char *why, size_t whylen);

#endif
