// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The bundle: walk the staging directory, hash its members for the manifest,
 * and pack them into a tar.xz that appears at its final path whole or not at
 * all.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "bundle/bundle.h"
#include "util/sha256.h"
#include "util/str.h"
#include "util/tty.h"

/* Read size for hashing and archiving; large enough to keep syscalls rare. */
#define BUNDLE_IO_SIZE (64 * 1024)
/* The staging tree is ours and shallow; a deep one means a loop or a bug. */
#define BUNDLE_MAX_DEPTH 16

/*
 * xz level 0 rather than the default 6: the bundle is written at the end of
 * the run, inside its 1.5 s budget. On 6.8 MB of sampled /proc text, level 1
 * took 70-130 ms of CPU and level 6 1.2-1.6 s for an output only 10% smaller
 * (6.5 MB of C headers: 0.4-0.6 s against 3.5 s, 17% smaller). Level 0 (its
 * 256 KiB dictionary holds a round's records: the next round repeats them)
 * on a bundle of 10,000 processes, 6.5 MB staged: 0.12 s against 0.19 s for
 * level 1, 786 KB against 779 KB (tar | xz -0 / -1 -T1, twice each).
 */
#define BUNDLE_XZ_LEVEL "0"

/* Members that lead the archive, so `tar -tJf` shows the readable ones first. */
static const char *const bundle_lead[] = {
	"manifest.json",
	"findings.json",
	"report.md",
	"report.html",
};
#define BUNDLE_NR_LEAD (sizeof(bundle_lead) / sizeof(bundle_lead[0]))

struct bundle_walk {
	struct bundle_list *bl;
	size_t cap;
	bool skip_manifest;
	bool hash;
	char *io;                  /* BUNDLE_IO_SIZE bytes */
	char rel[PATH_MAX];        /* path of the directory being walked, with a trailing '/' */
};

static void bundle_errf(char *errbuf, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void bundle_errf(char *errbuf, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!errbuf || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(errbuf, errlen, fmt, ap);
	va_end(ap);
	/* The reason ends up on one line of a terminal or a log; a member name must not break it. */
	tty__clean_str(errbuf);
}

/* read(2) that retries on EINTR and fills as much of buf as the file has. */
static ssize_t bundle_read_full(int fd, char *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, buf + got, len - got);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		got += n;
	}
	return got;
}

static int bundle_hash_fd(int fd, char *io, uint64_t *size, char hex[65])
{
	struct sha256 s;
	uint64_t total = 0;
	ssize_t n;

	sha256__init(&s);
	while ((n = bundle_read_full(fd, io, BUNDLE_IO_SIZE)) > 0) {
		sha256__update(&s, io, n);
		total += n;
	}
	if (n < 0)
		return n;
	sha256__final_hex(&s, hex);
	/* Size from the bytes hashed, not fstat, so the two always describe the same data. */
	*size = total;
	return 0;
}

static int bundle_add(struct bundle_walk *w, const char *path, int dfd, const char *name)
{
	struct bundle_list *bl = w->bl;
	struct bundle_member *m;
	int fd, err;

	if (bl->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 64;
		struct bundle_member *nm = realloc(bl->m, cap * sizeof(*nm));

		if (!nm)
			return -ENOMEM;
		bl->m = nm;
		w->cap = cap;
	}

	m = &bl->m[bl->n];
	memset(m, 0, sizeof(*m));
	m->path = strdup(path);
	if (!m->path)
		return -ENOMEM;
	bl->n++;

	if (!w->hash)
		return 0;

	/* O_NOFOLLOW: the lstat said regular file; don't let a swap make us read elsewhere. */
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = bundle_hash_fd(fd, w->io, &m->size, m->sha256);
	close(fd);
	return err;
}

/* Walk the directory open at dfd, which this function takes ownership of. */
static int bundle_walk_dir(struct bundle_walk *w, int dfd, int depth)
{
	size_t rel_len = strlen(w->rel);
	struct dirent *de;
	struct stat st;
	DIR *d;
	int err = 0;

	if (depth > BUNDLE_MAX_DEPTH) {
		close(dfd);
		return -ELOOP;
	}

	d = fdopendir(dfd);
	if (!d) {
		err = -errno;
		close(dfd);
		return err;
	}

	for (;;) {
		const char *name;

		errno = 0;
		de = readdir(d);
		if (!de) {
			err = -errno;
			break;
		}
		name = de->d_name;
		if (!strcmp(name, ".") || !strcmp(name, ".."))
			continue;
		/* The manifest lists the other members, so it cannot list itself. */
		if (depth == 0 && w->skip_manifest && !strcmp(name, "manifest.json"))
			continue;

		if (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW)) {
			err = -errno;
			break;
		}
		if (rel_len + strlen(name) + 2 > sizeof(w->rel)) {
			err = -ENAMETOOLONG;
			break;
		}

		if (S_ISDIR(st.st_mode)) {
			int sub = openat(dirfd(d), name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (sub < 0) {
				err = -errno;
				break;
			}
			sprintf(w->rel + rel_len, "%s/", name);
			err = bundle_walk_dir(w, sub, depth + 1);
			w->rel[rel_len] = '\0';
		} else if (S_ISREG(st.st_mode)) {
			sprintf(w->rel + rel_len, "%s", name);
			err = bundle_add(w, w->rel, dirfd(d), name);
			w->rel[rel_len] = '\0';
		}
		/* Symlinks, fifos, sockets, devices: not bundle content, and unsafe to read. */
		if (err)
			break;
	}

	closedir(d);
	return err;
}

static int bundle_cmp_path(const void *a, const void *b)
{
	const struct bundle_member *ma = a, *mb = b;

	return strcmp(ma->path, mb->path);
}

static size_t bundle_rank(const char *path)
{
	size_t i;

	for (i = 0; i < BUNDLE_NR_LEAD; i++) {
		if (!strcmp(path, bundle_lead[i]))
			return i;
	}
	return BUNDLE_NR_LEAD;
}

static int bundle_cmp_archive_order(const void *a, const void *b)
{
	const struct bundle_member *ma = a, *mb = b;
	size_t ra = bundle_rank(ma->path), rb = bundle_rank(mb->path);

	if (ra != rb)
		return ra < rb ? -1 : 1;
	return strcmp(ma->path, mb->path);
}

/* Collect the regular files under the directory open at rootfd (not consumed). */
static int bundle_collect(int rootfd, bool skip_manifest, bool hash, struct bundle_list *out)
{
	struct bundle_walk *w;
	int dfd, err;

	out->m = NULL;
	out->n = 0;

	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->bl = out;
	w->skip_manifest = skip_manifest;
	w->hash = hash;
	if (hash) {
		w->io = malloc(BUNDLE_IO_SIZE);
		if (!w->io) {
			err = -ENOMEM;
			goto cleanup;
		}
	}

	/* A fresh open, not dup(): fdopendir's stream must not share rootfd's offset. */
	dfd = openat(rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		err = -errno;
		goto cleanup;
	}
	err = bundle_walk_dir(w, dfd, 0);
	if (err)
		goto cleanup;

	qsort(out->m, out->n, sizeof(*out->m),
	      skip_manifest ? bundle_cmp_path : bundle_cmp_archive_order);

cleanup:
	if (err)
		bundle_list__free(out);
	free(w->io);
	free(w);
	return err;
}

int bundle__scan(const char *stage_dir, struct bundle_list *out)
{
	int rootfd, err;

	out->m = NULL;
	out->n = 0;

	rootfd = open(stage_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return -errno;
	err = bundle_collect(rootfd, true, true, out);
	close(rootfd);
	return err;
}

void bundle_list__free(struct bundle_list *bl)
{
	size_t i;

	if (!bl)
		return;
	for (i = 0; i < bl->n; i++)
		free(bl->m[i].path);
	free(bl->m);
	bl->m = NULL;
	bl->n = 0;
}

/* -errno for the last libarchive failure; libarchive's own codes become -EIO. */
static int bundle_archive_err(struct archive *a)
{
	int e = archive_errno(a);

	return e > 0 ? -e : -EIO;
}

static const char *bundle_archive_msg(struct archive *a)
{
	const char *s;

	if (archive_errno(a) > 0)
		return strerror(archive_errno(a));
	s = archive_error_string(a);
	return s ? s : "libarchive error";
}

/*
 * Copy one member into the archive. The size goes into the header before the
 * data, so the file must not change length while we read it; a short read
 * would otherwise be zero-padded by libarchive into a silently wrong member.
 */
static int bundle_write_member(struct archive *a, int rootfd, const char *path, char *io,
			       char *errbuf, size_t errlen)
{
	struct archive_entry *e = NULL;
	uint64_t left;
	struct stat st;
	int fd, err = 0;

	fd = openat(rootfd, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		bundle_errf(errbuf, errlen, "opening %s: %s", path, strerror(-err));
		return err;
	}
	if (fstat(fd, &st)) {
		err = -errno;
		bundle_errf(errbuf, errlen, "stat %s: %s", path, strerror(-err));
		goto cleanup;
	}
	if (!S_ISREG(st.st_mode)) {
		err = -EINVAL;
		bundle_errf(errbuf, errlen, "%s: no longer a regular file", path);
		goto cleanup;
	}

	e = archive_entry_new();
	if (!e) {
		err = -ENOMEM;
		bundle_errf(errbuf, errlen, "writing %s: %s", path, strerror(ENOMEM));
		goto cleanup;
	}
	/* Owner and mode are fixed: the bundle travels, our uid means nothing elsewhere. */
	archive_entry_set_pathname(e, path);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0600);
	archive_entry_set_uid(e, 0);
	archive_entry_set_gid(e, 0);
	archive_entry_set_size(e, st.st_size);
	archive_entry_set_mtime(e, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);

	/* ARCHIVE_WARN still wrote the header (e.g. a name it could not transcode). */
	if (archive_write_header(a, e) < ARCHIVE_WARN) {
		err = bundle_archive_err(a);
		bundle_errf(errbuf, errlen, "writing %s: %s", path, bundle_archive_msg(a));
		goto cleanup;
	}

	left = st.st_size;
	while (left) {
		size_t want = left < BUNDLE_IO_SIZE ? left : BUNDLE_IO_SIZE;
		ssize_t n = bundle_read_full(fd, io, want);
		const char *p = io;

		if (n < 0) {
			err = n;
			bundle_errf(errbuf, errlen, "reading %s: %s", path, strerror(-err));
			goto cleanup;
		}
		if (n == 0) {
			err = -EIO;
			bundle_errf(errbuf, errlen, "reading %s: file shrank while archiving",
				    path);
			goto cleanup;
		}
		left -= n;
		while (n > 0) {
			la_ssize_t w = archive_write_data(a, p, n);

			if (w <= 0) {
				err = bundle_archive_err(a);
				bundle_errf(errbuf, errlen, "writing %s: %s", path,
					    bundle_archive_msg(a));
				goto cleanup;
			}
			p += w;
			n -= w;
		}
	}

	if (archive_write_finish_entry(a) < ARCHIVE_WARN) {
		err = bundle_archive_err(a);
		bundle_errf(errbuf, errlen, "writing %s: %s", path, bundle_archive_msg(a));
	}

cleanup:
	archive_entry_free(e);
	close(fd);
	return err;
}

/* fsync a directory so a rename in it survives a crash. */
static int bundle_sync_dir(const char *dir)
{
	int fd, err = 0;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* Some filesystems cannot sync a directory at all; nothing more to do there. */
	if (fsync(fd) && errno != EINVAL)
		err = -errno;
	close(fd);
	return err;
}

/*
 * The directory of final_path (to sync after the rename) and the temporary's
 * path. The temporary lives next to final_path so the rename stays on one
 * filesystem and is atomic.
 */
static int bundle_tmp_path(const char *final_path, char dir[PATH_MAX], char tmp[PATH_MAX])
{
	const char *slash = strrchr(final_path, '/');
	const char *base = slash ? slash + 1 : final_path;
	int plen = slash ? (int)(slash - final_path) : 0;
	int n;

	if (!*base)
		return -EISDIR;
	if (!slash)
		n = snprintf(dir, PATH_MAX, ".");
	else if (!plen)
		n = snprintf(dir, PATH_MAX, "/");
	else
		n = snprintf(dir, PATH_MAX, "%.*s", plen, final_path);
	if (n >= PATH_MAX)
		return -ENAMETOOLONG;

	/* A template for mkostemp: unique in every PID namespace sharing the directory. */
	if (slash)
		n = snprintf(tmp, PATH_MAX, "%.*s/.%s.tmp.XXXXXX", plen, final_path, base);
	else
		n = snprintf(tmp, PATH_MAX, ".%s.tmp.XXXXXX", base);
	return n >= PATH_MAX ? -ENAMETOOLONG : 0;
}

/*
 * The temporary being written, for bundle__abort_cleanup: a signal handler may
 * only unlink a path it can read without locks, so it is kept here.
 */
static char inflight_tmp[PATH_MAX];
static volatile sig_atomic_t inflight_set;

void bundle__abort_cleanup(void)
{
	if (inflight_set)
		unlink(inflight_tmp);
}

/*
 * Move the finished temporary to final_path without ever replacing a file:
 * two runs started in the same second pick the same name, and the second must
 * not destroy the first's bundle. On a clash, "-2", "-3", ... go before the
 * extension and final_path is updated to the name actually used.
 */
const char *const bundle_exts[] = { BUNDLE_EXT, ".txz", ".tar.gz", ".tgz", ".tar.zst", ".tzst",
				    NULL };

const char *bundle__ext(const char *name)
{
	size_t n = strlen(name);

	for (const char *const *e = bundle_exts; *e; e++)
		if (n > strlen(*e) && str__has_suffix(name, *e))
			return name + n - strlen(*e);
	return NULL;
}

static int bundle_publish(const char *tmp, char *final_path, size_t final_size)
{
	char stem[PATH_MAX], ext[16] = "";
	const char *e = bundle__ext(final_path);
	size_t fl = strlen(final_path);

	if (fl >= sizeof(stem))
		return -ENAMETOOLONG;
	memcpy(stem, final_path, fl + 1);
	if (e) {
		snprintf(ext, sizeof(ext), "%s", e);
		stem[e - final_path] = '\0';
	}
	for (int n = 1; n < 1000; n++) {
		if (n > 1 && snprintf(final_path, final_size, "%s-%d%s", stem, n, ext) >=
				     (int)final_size)
			return -ENAMETOOLONG;
		if (!renameat2(AT_FDCWD, tmp, AT_FDCWD, final_path, RENAME_NOREPLACE))
			return 0;
		if (errno == EEXIST)
			continue;
		if (errno != EINVAL && errno != ENOSYS)
			return -errno;
		/* A file system without RENAME_NOREPLACE: link(2) refuses to replace too. */
		if (!link(tmp, final_path)) {
			unlink(tmp);
			return 0;
		}
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/*
 * Create the temporary the archive is written to (tmp, a template, becomes
 * its name), mode 0600 exactly, with an flock held on it until *lock_fd is
 * closed: a sweep of the directory (util/scratch.h) takes only the
 * temporaries no live writer holds. The fd, or -errno with errbuf.
 */
static int bundle_create_tmp(char *tmp, int *lock_fd, char *errbuf, size_t errlen)
{
	int fd, err;

	/* mkostemp: O_EXCL, so we never write through a file or symlink someone else placed. */
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		bundle_errf(errbuf, errlen, "creating %s: %s", tmp, strerror(-err));
		return err;
	}
	memcpy(inflight_tmp, tmp, sizeof(inflight_tmp));
	inflight_set = 1;
	/*
	 * The lock lives as long as any fd of this open file: a duplicate keeps it
	 * past the close that reports the last write errors, until the rename.
	 */
	*lock_fd = -1;
	if (!flock(fd, LOCK_EX | LOCK_NB))
		*lock_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	/* The umask may have cleared bits of 0600; the bundle holds host details, so be exact. */
	if (fchmod(fd, 0600)) {
		err = -errno;
		bundle_errf(errbuf, errlen, "chmod %s: %s", tmp, strerror(-err));
		close(fd);
		if (*lock_fd >= 0)
			close(*lock_fd);
		*lock_fd = -1;
		unlink(tmp);
		inflight_set = 0;
		return err;
	}
	return fd;
}

/* An xz-compressed tar writer on fd into *out. 0 or -errno with errbuf. */
static int bundle_archive_open(int fd, const char *final_path, struct archive **out,
			       char *errbuf, size_t errlen)
{
	struct archive *a = archive_write_new();

	*out = a;
	if (!a) {
		bundle_errf(errbuf, errlen, "writing %s: %s", final_path, strerror(ENOMEM));
		return -ENOMEM;
	}
	/* pax restricted: plain ustar headers unless a name needs more than 100 bytes. */
	if (archive_write_set_format_pax_restricted(a) != ARCHIVE_OK ||
	    archive_write_add_filter_xz(a) < ARCHIVE_WARN ||
	    archive_write_set_filter_option(a, "xz", "compression-level", BUNDLE_XZ_LEVEL) !=
		    ARCHIVE_OK ||
	    archive_write_open_fd(a, fd) != ARCHIVE_OK) {
		bundle_errf(errbuf, errlen, "setting up %s: %s", final_path,
			    bundle_archive_msg(a));
		return bundle_archive_err(a);
	}
	return 0;
}

/*
 * The archive is complete: its data on disk (fsync), fd closed (*fd = -1),
 * then it is published under final_path and the directory synced. 0 or
 * -errno with errbuf; *published says whether the temporary is gone.
 */
static int bundle_commit(int *fd, const char *tmp, const char *dir, char *final_path,
			 size_t final_size, bool *published, char *errbuf, size_t errlen)
{
	int err;

	/* Data on disk before the name, or a crash can leave an empty file under the final name. */
	if (fsync(*fd)) {
		err = -errno;
		bundle_errf(errbuf, errlen, "syncing %s: %s", tmp, strerror(-err));
		return err;
	}
	/* close(2) can report a deferred write error (NFS); don't publish past it. */
	err = close(*fd) ? -errno : 0;
	*fd = -1;
	if (err) {
		bundle_errf(errbuf, errlen, "closing %s: %s", tmp, strerror(-err));
		return err;
	}

	err = bundle_publish(tmp, final_path, final_size);
	if (err) {
		bundle_errf(errbuf, errlen, "renaming %s to %s: %s", tmp, final_path,
			    strerror(-err));
		return err;
	}
	*published = true;
	inflight_set = 0;

	/*
	 * The bundle is complete and in place from here on. A failed directory
	 * sync still leaves it there (undoing the rename would lose it outright),
	 * so report the error with that said and let the caller decide.
	 */
	err = bundle_sync_dir(dir);
	if (err)
		bundle_errf(errbuf, errlen, "%s written but syncing %s failed: %s", final_path,
			    dir, strerror(-err));
	return err;
}

int bundle__write(const char *stage_dir, char *final_path, size_t final_size, char *errbuf,
		  size_t errlen)
{
	struct bundle_list bl = { 0 };
	struct archive *a = NULL;
	char dir[PATH_MAX], tmp[PATH_MAX];
	bool tmp_created = false, published = false, closed = false;
	int rootfd = -1, fd = -1, lock_fd = -1, err;
	char *io = NULL;
	size_t i;

	if (errbuf && errlen)
		errbuf[0] = '\0';

	err = bundle_tmp_path(final_path, dir, tmp);
	if (err) {
		bundle_errf(errbuf, errlen, "%s: %s", final_path,
			    err == -EISDIR ? "bundle path names a directory" : strerror(-err));
		goto cleanup;
	}

	rootfd = open(stage_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0) {
		err = -errno;
		bundle_errf(errbuf, errlen, "opening staging dir %s: %s", stage_dir,
			    strerror(-err));
		goto cleanup;
	}
	err = bundle_collect(rootfd, false, false, &bl);
	if (err) {
		bundle_errf(errbuf, errlen, "walking staging dir %s: %s", stage_dir,
			    strerror(-err));
		goto cleanup;
	}
	/* Archive order puts manifest.json first; without it the bundle cannot be verified. */
	if (!bl.n || strcmp(bl.m[0].path, "manifest.json")) {
		err = -ENOENT;
		bundle_errf(errbuf, errlen, "manifest.json missing from staging dir %s",
			    stage_dir);
		goto cleanup;
	}

	io = malloc(BUNDLE_IO_SIZE);
	if (!io) {
		err = -ENOMEM;
		bundle_errf(errbuf, errlen, "writing %s: %s", final_path, strerror(ENOMEM));
		goto cleanup;
	}

	fd = bundle_create_tmp(tmp, &lock_fd, errbuf, errlen);
	if (fd < 0) {
		err = fd;
		goto cleanup;
	}
	tmp_created = true;
	err = bundle_archive_open(fd, final_path, &a, errbuf, errlen);
	if (err)
		goto cleanup;
	for (i = 0; i < bl.n; i++) {
		err = bundle_write_member(a, rootfd, bl.m[i].path, io, errbuf, errlen);
		if (err)
			goto cleanup;
	}

	/* Close flushes the xz stream and the tar trailer: a full disk often shows up only here. */
	closed = true;
	if (archive_write_close(a) != ARCHIVE_OK) {
		err = bundle_archive_err(a);
		bundle_errf(errbuf, errlen, "finishing %s after %s: %s", final_path,
			    bl.m[bl.n - 1].path, bundle_archive_msg(a));
		goto cleanup;
	}
	err = bundle_commit(&fd, tmp, dir, final_path, final_size, &published, errbuf, errlen);

cleanup:
	if (a && !closed) {
		/*
		 * Mark the archive fatal so close() does not pad the half-written
		 * member with zeros (compressing up to its full size for nothing),
		 * but still call close(): libarchive 3.6's free() skips close() on a
		 * fatal archive, and only close() ends the lzma stream, leaking the
		 * encoder (~9 MB at level 1) on every failed write otherwise. Never
		 * twice, though: a second close() would write to an fd we closed.
		 */
		archive_write_fail(a);
		archive_write_close(a);
	}
	if (a)
		archive_write_free(a);
	if (fd >= 0)
		close(fd);
	if (tmp_created && !published)
		unlink(tmp);
	inflight_set = 0;
	if (lock_fd >= 0)
		close(lock_fd);
	if (rootfd >= 0)
		close(rootfd);
	free(io);
	bundle_list__free(&bl);
	return err;
}
