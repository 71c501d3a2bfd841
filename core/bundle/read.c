// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Extracting a bundle that may have been crafted. libarchive runs in a forked
 * child with an address-space limit and a deadline, so a decompression bomb,
 * a dictionary sized to exhaust memory or a decoder bug costs a refused
 * bundle, not the analysis. The child creates only regular files and
 * directories, relative to a private directory and never through a symlink,
 * and refuses with a one-line reason anything bundle__write never produces.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "bundle/read.h"
#include "bundle/want.h"
#include "util/child.h"
#include "util/file.h"
#include "util/hash.h"
#include "util/scratch.h"
#include "util/tty.h"

const struct bundle_open_limits bundle_open_default_limits = {
	.max_member_bytes = 1ULL << 30,
	.max_total_bytes = 4ULL << 30,
	.max_entries = 100000,
	.max_memory_bytes = 768ULL << 20,
	.max_seconds = 120,
};

/* Read size for the archive and for member data; large enough to keep syscalls rare. */
#define EXTRACT_IO_SIZE (64 * 1024)
/* bundle__write walks at most this many directories deep (BUNDLE_MAX_DEPTH in bundle.c). */
#define EXTRACT_MAX_DEPTH 16
#define EXTRACT_MAX_COMPONENT NAME_MAX
/* Longest name that can pass the checks: every component at its maximum, and a file. */
#define EXTRACT_PATH_SIZE ((EXTRACT_MAX_DEPTH + 1) * (EXTRACT_MAX_COMPONENT + 1) + 1)
/* The child's reason, as it travels through the pipe ("<errno> <line>"). */
#define EXTRACT_ERR_SIZE 1024
/* Enough of a member name to recognise it; a 1 MB pax path must not hide the reason. */
#define EXTRACT_NAME_SHOWN 200

/* Explicit member names seen so far, to refuse a duplicate (open addressing, FNV-1a). */
struct name_set {
	char **slot;
	size_t cap; /* a power of two, or 0 */
	size_t n;
};

struct extract {
	struct archive *a;
	const struct bundle_open_limits *lim;
	int root_fd;
	uint64_t total;   /* member bytes read so far, all members */
	uint64_t entries; /* headers seen so far */
	struct name_set names;
	char *io;         /* EXTRACT_IO_SIZE bytes */
	char path[EXTRACT_PATH_SIZE];
	char prev[EXTRACT_PATH_SIZE]; /* the last member, for a stream that breaks after it */
	char err[EXTRACT_ERR_SIZE];
	struct want_set wants; /* bundle__extract_some: the members to write */
};

static bool name_slot_is(const char *slot, const char *name, size_t len)
{
	return !strncmp(slot, name, len) && slot[len] == '\0';
}

static int name_set_grow(struct name_set *set)
{
	size_t cap = set->cap ? set->cap * 2 : 1024, i;
	char **slot = calloc(cap, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	for (i = 0; i < set->cap; i++) {
		const char *s = set->slot[i];
		size_t j;

		if (!s)
			continue;
		j = fnv1a(s, strlen(s), FNV1A_OFFSET) & (cap - 1);
		while (slot[j])
			j = (j + 1) & (cap - 1);
		slot[j] = set->slot[i];
	}
	free(set->slot);
	set->slot = slot;
	set->cap = cap;
	return 0;
}

/* 1 if name was added, 0 if it was there already, or -ENOMEM. */
static int name_set_add(struct name_set *set, const char *name, size_t len)
{
	size_t j;
	int err;

	/* Half full at most, so probe sequences stay short. */
	if ((set->n + 1) * 2 > set->cap) {
		err = name_set_grow(set);
		if (err)
			return err;
	}
	j = fnv1a(name, len, FNV1A_OFFSET) & (set->cap - 1);
	for (; set->slot[j]; j = (j + 1) & (set->cap - 1)) {
		if (name_slot_is(set->slot[j], name, len))
			return 0;
	}
	set->slot[j] = strndup(name, len);
	if (!set->slot[j])
		return -ENOMEM;
	set->n++;
	return 1;
}

static void name_set_free(struct name_set *set)
{
	size_t i;

	for (i = 0; i < set->cap; i++)
		free(set->slot[i]);
	free(set->slot);
	set->slot = NULL;
	set->cap = set->n = 0;
}

/*
 * A reason ends up on one line of a terminal or a log: a member name must not
 * break it, hide it or bring an escape sequence (util/tty.h).
 */
static void one_line(char *s)
{
	tty__clean_str(s);
}

static void show_name(char *dst, size_t size, const char *name)
{
	size_t len = strlen(name);

	if (len > EXTRACT_NAME_SHOWN)
		snprintf(dst, size, "%.*s...", EXTRACT_NAME_SHOWN, name);
	else
		snprintf(dst, size, "%s", name);
	one_line(dst);
}

static void errf(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void errf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	one_line(err);
}

static void size_text(char *buf, size_t len, uint64_t n)
{
	if (n && !(n % (1ULL << 30)))
		snprintf(buf, len, "%llu GiB", (unsigned long long)(n >> 30));
	else if (n && !(n % (1ULL << 20)))
		snprintf(buf, len, "%llu MiB", (unsigned long long)(n >> 20));
	else if (n && !(n % (1ULL << 10)))
		snprintf(buf, len, "%llu KiB", (unsigned long long)(n >> 10));
	else
		snprintf(buf, len, "%llu bytes", (unsigned long long)n);
}

static int extract_fail(struct extract *x, int ret, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Record the reason (the first one wins) and return ret, so callers can `return extract_fail()`. */
static int extract_fail(struct extract *x, int ret, const char *name, const char *fmt, ...)
{
	size_t len = 0;
	va_list ap;

	if (x->err[0])
		return ret;
	if (name) {
		/* The name is cut to EXTRACT_NAME_SHOWN: the reason always fits after it. */
		show_name(x->err, sizeof(x->err), name);
		len = strlen(x->err);
		x->err[len++] = ':';
		x->err[len++] = ' ';
	}
	va_start(ap, fmt);
	vsnprintf(x->err + len, sizeof(x->err) - len, fmt, ap);
	va_end(ap);
	one_line(x->err);
	return ret;
}

/* libarchive's reason, with the limit named when it is what ran out. */
static int extract_archive_fail(struct extract *x, const char *name, const char *suffix)
{
	const char *msg = archive_error_string(x->a);
	char mem[32];

	if (!msg)
		msg = "libarchive error";
	if (archive_errno(x->a) == ENOMEM) {
		size_text(mem, sizeof(mem), x->lim->max_memory_bytes);
		return extract_fail(x, -EINVAL, name,
				    "%s%s (over the extraction's %s memory limit)", msg, suffix,
				    mem);
	}
	return extract_fail(x, -EINVAL, name, "%s%s", msg, suffix);
}

static const char extract_sparse[] = "a sparse file (bundles hold regular files only)";

/*
 * Why a member name is refused, or NULL. Names come from bundle__write
 * walking its own staging tree: relative, canonical, printable, shallow.
 * *key_len gets the length without a directory's trailing '/'.
 */
static const char *extract_bad_name(const char *name, bool is_dir, size_t *key_len)
{
	size_t len = strlen(name), i, start, ncomp = 0, ndirs;

	if (!len)
		return "an empty name";
	if (name[0] == '/')
		return "path is absolute";
	/* Names a terminal shows as they are (util/tty.h): every message may quote one. */
	if (tty__printable(name, len, 0) != len)
		return "a control character, or bytes that are not text, in the name";
	if (memchr(name, '\\', len))
		return "a backslash in the name";
	/* tar writes directories with one trailing '/'; anywhere else it is an empty component. */
	if (is_dir && name[len - 1] == '/')
		len--;
	for (start = 0; start <= len; start = i + 1) {
		size_t clen;

		for (i = start; i < len && name[i] != '/'; i++)
			;
		clen = i - start;
		if (!clen)
			return "an empty path component";
		if (clen == 2 && name[start] == '.' && name[start + 1] == '.')
			return "path leaves the bundle";
		if (clen == 1 && name[start] == '.')
			return "a '.' path component";
		if (clen > EXTRACT_MAX_COMPONENT)
			return "a path component over 255 bytes";
		/* Checked as we go: a name of a million components stops here, early. */
		ndirs = is_dir ? ncomp + 1 : ncomp;
		if (ndirs > EXTRACT_MAX_DEPTH)
			return "more than 16 directories deep";
		ncomp++;
	}
	*key_len = len;
	return NULL;
}

/* Why an entry type is refused, or NULL for a regular file or a directory. */
static const char *extract_bad_type(struct archive_entry *e)
{
	/* tar stores a hard link as a regular file that names another; the name is what counts. */
	if (archive_entry_hardlink(e))
		return "a hard link";
	if (archive_entry_symlink(e))
		return "a symbolic link";
	switch (archive_entry_filetype(e)) {
	case AE_IFREG:
	case AE_IFDIR:
		return NULL;
	case AE_IFLNK:
		return "a symbolic link";
	case AE_IFCHR:
		return "a character device";
	case AE_IFBLK:
		return "a block device";
	case AE_IFIFO:
		return "a FIFO";
	case AE_IFSOCK:
		return "a socket";
	default:
		return "an entry of unknown type";
	}
}

/*
 * Open the directory that holds the last component of x->path, creating the
 * missing ones 0700, and point *last at that component (x->path is cut).
 * O_NOFOLLOW at every step: we never create a symlink, but the walk must not
 * depend on that.
 */
static int extract_open_parent(struct extract *x, const char *name, char **last)
{
	char *comp = x->path, *slash;
	int dfd, fd, err;

	dfd = fcntl(x->root_fd, F_DUPFD_CLOEXEC, 0);
	if (dfd < 0)
		return extract_fail(x, -errno, name, "%s", strerror(errno));
	while ((slash = strchr(comp, '/'))) {
		*slash = '\0';
		fd = openat(dfd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT) {
			if (mkdirat(dfd, comp, 0700) && errno != EEXIST)
				goto fail;
			fd = openat(dfd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
		if (fd < 0)
			goto fail;
		close(dfd);
		dfd = fd;
		comp = slash + 1;
	}
	*last = comp;
	return dfd;

fail:
	err = errno;
	close(dfd);
	/* Only an earlier member can be in the way: "a" as a file, then "a/b". */
	if (err == ENOTDIR || err == ELOOP)
		return extract_fail(x, -EINVAL, name,
				    "%s is a file in this bundle, not a directory", comp);
	return extract_fail(x, -err, name, "creating %s: %s", comp, strerror(err));
}

/*
 * Copy the member's data, counting what libarchive delivers rather than
 * trusting the header: the caps hold even if a reader bug or a format quirk
 * makes the two disagree.
 */
static int extract_copy(struct extract *x, struct archive_entry *e, const char *name, int fd)
{
	const struct bundle_open_limits *lim = x->lim;
	uint64_t got = 0;
	char cap[32];
	int err;

	for (;;) {
		la_ssize_t n = archive_read_data(x->a, x->io, EXTRACT_IO_SIZE);

		if (n == 0)
			break;
		if (n < 0)
			return extract_archive_fail(x, name, "");
		got += n;
		x->total += n;
		if (got > lim->max_member_bytes) {
			size_text(cap, sizeof(cap), lim->max_member_bytes);
			return extract_fail(x, -EINVAL, name, "larger than the %s member cap", cap);
		}
		if (x->total > lim->max_total_bytes) {
			size_text(cap, sizeof(cap), lim->max_total_bytes);
			return extract_fail(x, -EINVAL, name,
					    "the members add up to more than the %s total cap",
					    cap);
		}
		err = fd__write_all(fd, x->io, n);
		if (err)
			return extract_fail(x, err, name, "writing: %s", strerror(-err));
	}
	if (archive_entry_size_is_set(e) && (uint64_t)archive_entry_size(e) != got)
		return extract_fail(x, -EINVAL, name,
				    "the header says %lld bytes, the data holds %llu",
				    (long long)archive_entry_size(e), (unsigned long long)got);
	return 0;
}

/* After the last member: every wanted member that is not optional is out, as a file. */
static int extract_check_wants(struct extract *x)
{
	bool is_dir = false;
	const char *name = want_set__missing(&x->wants, &is_dir);

	if (name && is_dir)
		return extract_fail(x, -EISDIR, name,
				    "a directory in the bundle, not a member: name a file in it");
	if (name)
		return extract_fail(x, -ENOENT, name, "not in the bundle");
	return 0;
}

static int extract_member(struct extract *x, struct archive_entry *e)
{
	const struct bundle_open_limits *lim = x->lim;
	const char *name = archive_entry_pathname(e), *why;
	bool is_dir = archive_entry_filetype(e) == AE_IFDIR;
	size_t key_len = 0;
	char *last = NULL, cap[32];
	struct stat st;
	int dfd = -1, fd = -1, ret;

	if (!name)
		return extract_fail(x, -EINVAL, x->prev[0] ? x->prev : NULL,
				    "the next entry has no readable name");
	snprintf(x->prev, sizeof(x->prev), "%s", name);

	if (++x->entries > lim->max_entries)
		return extract_fail(x, -EINVAL, name, "more than %llu entries",
				    (unsigned long long)lim->max_entries);
	/*
	 * "tar -cJf b.tar.xz -C dir ." (how anyone re-packs a bundle) names every
	 * member "./..." and adds "./" itself: a leading "./" is the bundle's top.
	 */
	while (name[0] == '.' && name[1] == '/')
		name += 2;
	if (!name[0] || (name[0] == '.' && !name[1])) {
		if (is_dir)
			return 0; /* the top directory itself */
		return extract_fail(x, -EINVAL, x->prev, "a file named like the bundle's top");
	}
	why = extract_bad_name(name, is_dir, &key_len);
	if (why)
		return extract_fail(x, -EINVAL, name, "%s", why);
	why = extract_bad_type(e);
	if (why)
		return extract_fail(x, -EINVAL, name, "%s (bundles hold regular files only)", why);
	/* Holes would be read back as zeros past any size we could check in the header. */
	if (archive_entry_sparse_count(e) > 0)
		return extract_fail(x, -EINVAL, name, "%s", extract_sparse);
	if (is_dir && archive_entry_size(e) > 0)
		return extract_fail(x, -EINVAL, name, "a directory that carries data");
	/*
	 * libarchive's tar reader delivers exactly the header's size or fails, so
	 * a header over the cap is refused before anything is written; the
	 * counting in extract_copy is what the cap does not depend on.
	 */
	if (archive_entry_size_is_set(e) &&
	    (uint64_t)archive_entry_size(e) > lim->max_member_bytes) {
		size_text(cap, sizeof(cap), lim->max_member_bytes);
		return extract_fail(x, -EINVAL, name, "larger than the %s member cap", cap);
	}

	ret = name_set_add(&x->names, name, key_len);
	if (ret < 0)
		return extract_fail(x, ret, name, "%s", strerror(-ret));
	if (!ret)
		return extract_fail(x, -EINVAL, name, "a duplicate member");
	/* Checked like the others, but not written: only what the command reads goes to disk. */
	if (!want_set__match(&x->wants, name, key_len, is_dir)) {
		if (archive_read_data_skip(x->a) != ARCHIVE_OK)
			return extract_archive_fail(x, name, "");
		return 0;
	}
	/* The total cap before a byte is written, from the header (exact for tar, see above). */
	if (!is_dir && archive_entry_size_is_set(e) &&
	    x->total + (uint64_t)archive_entry_size(e) > lim->max_total_bytes) {
		size_text(cap, sizeof(cap), lim->max_total_bytes);
		return extract_fail(x, -EINVAL, name,
				    "the members add up to more than the %s total cap", cap);
	}

	memcpy(x->path, name, key_len);
	x->path[key_len] = '\0';
	dfd = extract_open_parent(x, name, &last);
	if (dfd < 0)
		return dfd;

	if (is_dir) {
		ret = 0;
		if (!mkdirat(dfd, last, 0700))
			goto cleanup;
		if (errno != EEXIST) {
			ret = extract_fail(x, -errno, name, "creating: %s", strerror(errno));
			goto cleanup;
		}
		/* Made already as an earlier file's parent; the name set rules out the rest. */
		if (fstatat(dfd, last, &st, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(st.st_mode))
			ret = extract_fail(x, -EINVAL, name, "a duplicate member (already a file)");
		goto cleanup;
	}

	fd = openat(dfd, last, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		if (errno == EEXIST)
			ret = extract_fail(x, -EINVAL, name,
					   "a duplicate member (already a directory)");
		else
			ret = extract_fail(x, -errno, name, "creating: %s", strerror(errno));
		goto cleanup;
	}
	ret = extract_copy(x, e, name, fd);
	/*
	 * GNU sparse 1.0 keeps its map at the start of the data; libarchive 3.6
	 * reads it with the header, a reader that waits for the data would not.
	 */
	if (!ret && archive_entry_sparse_count(e) > 0)
		ret = extract_fail(x, -EINVAL, name, "%s", extract_sparse);
	if (!ret && close(fd))
		ret = extract_fail(x, -errno, name, "writing: %s", strerror(errno));
	fd = -1;

cleanup:
	if (fd >= 0)
		close(fd);
	close(dfd);
	return ret;
}

/* One filter, and one of ours: tar.gz.xz or a plain tar is not a bundle. */
static bool extract_filter_ok(struct archive *a)
{
	if (archive_filter_count(a) != 2)
		return false;
	switch (archive_filter_code(a, 0)) {
	case ARCHIVE_FILTER_XZ:
	case ARCHIVE_FILTER_GZIP:
	case ARCHIVE_FILTER_ZSTD:
		return true;
	default:
		return false;
	}
}

/* ARCHIVE_ERRNO_FILE_FORMAT, private to libarchive: "Unrecognized archive format". */
#define EXTRACT_ERRNO_FORMAT EILSEQ

static const char extract_not_bundle[] = "not a sonde bundle (only tar.xz, tar.gz or tar.zst)";

static int extract_run(struct extract *x, int archive_fd)
{
	struct archive_entry *e;
	bool first = true;
	int ret = 0, r;

	x->a = archive_read_new();
	if (!x->a)
		return extract_fail(x, -ENOMEM, NULL, "%s", strerror(ENOMEM));
	/*
	 * ARCHIVE_WARN from a filter means libarchive would run an external
	 * program (xz, gzip, zstd) rather than its library: refuse to start.
	 */
	if (archive_read_support_format_tar(x->a) != ARCHIVE_OK ||
	    archive_read_support_filter_xz(x->a) != ARCHIVE_OK ||
	    archive_read_support_filter_gzip(x->a) != ARCHIVE_OK ||
	    archive_read_support_filter_zstd(x->a) != ARCHIVE_OK) {
		ret = extract_fail(x, -ENOTSUP, NULL,
				   "this libarchive cannot read tar with xz, gzip and zstd itself");
		goto cleanup;
	}
	/* libarchive 3.6 chooses the filters and the format here, reading the first bytes. */
	if (archive_read_open_fd(x->a, archive_fd, EXTRACT_IO_SIZE) != ARCHIVE_OK) {
		if (archive_errno(x->a) != ENOMEM &&
		    (!extract_filter_ok(x->a) || archive_errno(x->a) == EXTRACT_ERRNO_FORMAT))
			ret = extract_fail(x, -EINVAL, NULL, "%s", extract_not_bundle);
		else
			ret = extract_archive_fail(x, NULL, "");
		goto cleanup;
	}

	for (;;) {
		r = archive_read_next_header(x->a, &e);
		if (first) {
			first = false;
			if (!extract_filter_ok(x->a) ||
			    (r != ARCHIVE_OK && archive_errno(x->a) == EXTRACT_ERRNO_FORMAT)) {
				ret = extract_fail(x, -EINVAL, NULL, "%s", extract_not_bundle);
				break;
			}
		}
		if (r == ARCHIVE_EOF)
			break;
		/*
		 * WARN and RETRY too: a bundle we wrote gives neither, and RETRY
		 * ("Damaged tar archive") invites skipping ahead to whatever looks
		 * like a header.
		 */
		if (r != ARCHIVE_OK) {
			/* libarchive clears the entry first: a name there is this header's. */
			const char *cur = e ? archive_entry_pathname(e) : NULL;

			if (cur && cur[0])
				ret = extract_archive_fail(x, cur, "");
			else if (x->prev[0])
				ret = extract_archive_fail(x, x->prev,
							   " (in the header after this member)");
			else
				ret = extract_archive_fail(x, NULL, "");
			break;
		}
		ret = extract_member(x, e);
		if (ret || want_set__done(&x->wants))
			break;
	}
	if (!ret)
		ret = extract_check_wants(x);

cleanup:
	archive_read_free(x->a);
	x->a = NULL;
	return ret;
}

/* Address space mapped now, in bytes; 0 if /proc cannot say. */
static uint64_t vm_size(void)
{
	unsigned long long pages = 0;
	char buf[128];
	ssize_t n;
	int fd;

	fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if (sscanf(buf, "%llu", &pages) != 1)
		return 0;
	return (uint64_t)pages * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* a + b as an rlimit: "no limit" rather than a wrap to a tiny one. */
static rlim_t limit_add(uint64_t a, uint64_t b)
{
	if (a >= RLIM_INFINITY || b >= RLIM_INFINITY - a)
		return RLIM_INFINITY;
	return a + b;
}

static int extract_set_limits(struct extract *x)
{
	const struct bundle_open_limits *lim = x->lim;
	struct rlimit rl;

	/*
	 * The limit is on what extraction adds to the address space the child
	 * inherits: a parent that already maps more than max_memory_bytes
	 * (libraries, Lua, thread arenas) must not leave libarchive nothing.
	 * Under AddressSanitizer an allocation the limit refuses aborts the
	 * child (unless allocator_may_return_null=1), hence SONDE_NO_RLIMIT_AS
	 * for sanitizer runs of the tests.
	 */
	if (!getenv("SONDE_NO_RLIMIT_AS")) {
		rl.rlim_cur = rl.rlim_max = limit_add(vm_size(), lim->max_memory_bytes);
		if (setrlimit(RLIMIT_AS, &rl))
			return extract_fail(x, -errno, NULL, "setting the memory limit: %s",
					    strerror(errno));
	}
	/* A second guard behind the counting, should it ever be wrong. */
	rl.rlim_cur = rl.rlim_max = limit_add(lim->max_member_bytes, 1);
	if (setrlimit(RLIMIT_FSIZE, &rl))
		return extract_fail(x, -errno, NULL, "setting the file size limit: %s",
				    strerror(errno));
	/* A decoder crashing on crafted input must not leave a core the size of its heap. */
	rl.rlim_cur = rl.rlim_max = 0;
	setrlimit(RLIMIT_CORE, &rl);
	return 0;
}

/* What the child is asked for: the archive, where to put it, within what, which members. */
struct extract_job {
	int archive_fd, root_fd;
	const struct bundle_open_limits *lim;
	const struct bundle_want *want; /* NULL: every member */
	size_t nwant;
};

static void __attribute__((noreturn))
extract_child(const struct extract_job *job, int report_fd, pid_t parent)
{
	static struct extract x;
	static char io[EXTRACT_IO_SIZE];
	char line[EXTRACT_ERR_SIZE + 16];
	int ret = 0, n;

	/* Killed with the parent, so an interrupted sonde leaves no decompressor behind. */
	child__tie(parent);
	/* Past RLIMIT_FSIZE, write fails with EFBIG rather than killing us with no reason given. */
	signal(SIGXFSZ, SIG_IGN);

	x.lim = job->lim;
	x.root_fd = job->root_fd;
	x.io = io;
	if (want_set__init(&x.wants, job->want, job->nwant))
		ret = extract_fail(&x, -ENOMEM, NULL, "%s", strerror(ENOMEM));
	if (!ret)
		ret = extract_set_limits(&x);
	if (!ret)
		ret = extract_run(&x, job->archive_fd);
	name_set_free(&x.names);
	want_set__free(&x.wants);
	if (ret) {
		n = snprintf(line, sizeof(line), "%d %s\n", -ret,
			     x.err[0] ? x.err : "extraction failed");
		if (n > (int)sizeof(line) - 1)
			n = sizeof(line) - 1;
		if (fd__write_all(report_fd, line, n))
			_exit(2);
	}
	/* _exit: the parent's atexit handlers and stdio buffers belong to the parent. */
	_exit(ret ? 1 : 0);
}

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Collect the child's report until it exits or the deadline passes (then
 * SIGKILL), and reap it. *timed_out says which.
 */
static int extract_wait(pid_t pid, int report_fd, double max_seconds, char *report,
			size_t report_len, int *status, bool *timed_out)
{
	double deadline = now_seconds() + max_seconds;
	struct pollfd pfd = { .fd = report_fd, .events = POLLIN };
	size_t len = 0;
	char drain[256];
	int ret = 0;

	*timed_out = false;
	for (;;) {
		double left = deadline - now_seconds();
		ssize_t n;
		int r;

		if (left <= 0) {
			*timed_out = true;
			break;
		}
		r = poll(&pfd, 1, left > INT_MAX / 1000 ? INT_MAX : (int)(left * 1000) + 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		if (!r)
			continue;
		/* Past the buffer the report is drained, not kept: its first line is the reason. */
		if (len + 1 < report_len)
			n = read(report_fd, report + len, report_len - 1 - len);
		else
			n = read(report_fd, drain, sizeof(drain));
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			ret = -errno;
			break;
		}
		/* End of file: the child has exited (nothing else holds the write end). */
		if (!n)
			break;
		if (len + 1 < report_len)
			len += n;
	}
	report[len] = '\0';

	if (*timed_out || ret)
		kill(pid, SIGKILL);
	while (waitpid(pid, status, 0) < 0) {
		if (errno != EINTR) {
			if (!ret)
				ret = -errno;
			break;
		}
	}
	return ret;
}

/* Leftovers of extractions whose process died (SIGKILL, a crash): once per parent directory. */
static void extract_sweep(const char *parent)
{
	static char swept[PATH_MAX];

	if (!strcmp(swept, parent))
		return;
	snprintf(swept, sizeof(swept), "%s", parent);
	scratch__sweep(parent, ".sonde-open-");
}

/* The bundle file: a regular file, opened without blocking on a FIFO. The fd, or -errno. */
static int extract_open_archive(const char *path, char *err, size_t errlen)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK), ret;

	if (fd < 0 || fstat(fd, &st)) {
		ret = -errno;
		errf(err, errlen, "%s", strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		ret = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
		errf(err, errlen, S_ISDIR(st.st_mode) ? "a directory, not a bundle file" :
							"not a regular file");
	} else {
		return fd;
	}
	if (fd >= 0)
		close(fd);
	return ret;
}

/* The extraction of the bundle open at archive_fd (read from where it stands). */
static int extract_from(int archive_fd, const char *parent, const struct bundle_open_limits *lim,
			const struct bundle_want *want, size_t nwant, char *out_dir,
			size_t out_len, char *err, size_t errlen)
{
	char dir[PATH_MAX], report[EXTRACT_ERR_SIZE + 16];
	int pipefd[2] = { -1, -1 };
	int ret = 0, status = 0, code;
	bool made_dir = false, timed_out;
	struct extract_job job = { .root_fd = -1, .lim = lim, .want = want, .nwant = nwant };
	pid_t pid, self = getpid();
	const char *reason;
	char *end;

	extract_sweep(parent);
	code = snprintf(dir, sizeof(dir), "%s/.sonde-open-XXXXXX", parent);
	if (code < 0 || (size_t)code >= sizeof(dir) || (size_t)code >= out_len) {
		ret = -ENAMETOOLONG;
		errf(err, errlen, "%s: %s", parent, strerror(ENAMETOOLONG));
		goto cleanup;
	}
	/* Removed at exit and on a fatal signal; a dead owner's is swept by the next one. */
	ret = scratch__mkdtemp(dir, SCRATCH_REMOVE);
	if (ret) {
		errf(err, errlen, "%s: %s", parent, strerror(-ret));
		goto cleanup;
	}
	made_dir = true;
	job.archive_fd = archive_fd;
	job.root_fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (job.root_fd < 0 || pipe2(pipefd, O_CLOEXEC)) {
		ret = -errno;
		errf(err, errlen, "%s: %s", dir, strerror(errno));
		goto cleanup;
	}

	pid = fork();
	if (pid < 0) {
		ret = -errno;
		errf(err, errlen, "fork: %s", strerror(errno));
		goto cleanup;
	}
	if (!pid) {
		close(pipefd[0]);
		extract_child(&job, pipefd[1], self);
	}
	close(pipefd[1]);
	pipefd[1] = -1;

	ret = extract_wait(pid, pipefd[0], lim->max_seconds, report, sizeof(report), &status,
			   &timed_out);
	if (timed_out) {
		ret = -ETIMEDOUT;
		errf(err, errlen, "took longer than %g s (the extraction was stopped)",
		     lim->max_seconds);
		goto cleanup;
	}
	if (ret) {
		errf(err, errlen, "waiting for the extraction: %s", strerror(-ret));
		goto cleanup;
	}
	if (WIFEXITED(status) && !WEXITSTATUS(status) && !report[0])
		goto cleanup;

	/* "<errno> <reason>\n" from extract_child. */
	code = strtol(report, &end, 10);
	if (report[0] && end != report && *end == ' ' && code > 0) {
		reason = end + 1;
		end = strchr(reason, '\n');
		if (end)
			*end = '\0';
		ret = -code;
		errf(err, errlen, "%s", reason);
	} else if (WIFSIGNALED(status)) {
		/* SIGSEGV in a decoder, or the OOM killer: either way this bundle does not open. */
		ret = -EINVAL;
		errf(err, errlen, "the extraction died of signal %d (%s)", WTERMSIG(status),
		     strsignal(WTERMSIG(status)));
	} else {
		ret = -EIO;
		errf(err, errlen, "the extraction exited with status %d and no reason",
		     WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	}

cleanup:
	if (pipefd[0] >= 0)
		close(pipefd[0]);
	if (pipefd[1] >= 0)
		close(pipefd[1]);
	if (job.root_fd >= 0)
		close(job.root_fd);
	if (ret && made_dir)
		scratch__remove(dir);
	else if (!ret)
		snprintf(out_dir, out_len, "%s", dir);
	return ret;
}

/* The arguments every extraction checks (src: a path or an fd was given); lim NULL: the defaults. */
static int extract_args(bool src, const char *parent, const struct bundle_open_limits **lim,
			char *out_dir, size_t out_len, char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	if (out_dir && out_len)
		out_dir[0] = '\0';
	if (!*lim)
		*lim = &bundle_open_default_limits;
	if (!src || !parent || !out_dir || !out_len || !((*lim)->max_seconds > 0)) {
		errf(err, errlen, "bundle__extract: bad arguments");
		return -EINVAL;
	}
	return 0;
}

int bundle__extract_some(const char *path, const char *parent,
			 const struct bundle_open_limits *lim, const struct bundle_want *want,
			 size_t nwant, char *out_dir, size_t out_len, char *err, size_t errlen)
{
	int fd, ret = extract_args(path != NULL, parent, &lim, out_dir, out_len, err, errlen);

	if (ret)
		return ret;
	fd = extract_open_archive(path, err, errlen);
	if (fd < 0)
		return fd;
	ret = extract_from(fd, parent, lim, want, nwant, out_dir, out_len, err, errlen);
	close(fd);
	return ret;
}

int bundle__extract_some_fd(int fd, const char *parent, const struct bundle_open_limits *lim,
			    const struct bundle_want *want, size_t nwant, char *out_dir,
			    size_t out_len, char *err, size_t errlen)
{
	int ret = extract_args(fd >= 0, parent, &lim, out_dir, out_len, err, errlen);
	struct stat st;

	if (ret)
		return ret;
	/* The child reads through this fd: from the start, whatever read it before. */
	if (fstat(fd, &st) || lseek(fd, 0, SEEK_SET)) {
		ret = -errno;
		errf(err, errlen, "%s", strerror(errno));
		return ret;
	}
	if (!S_ISREG(st.st_mode)) {
		errf(err, errlen, "not a regular file");
		return -EINVAL;
	}
	return extract_from(fd, parent, lim, want, nwant, out_dir, out_len, err, errlen);
}

int bundle__extract(const char *path, const char *parent, const struct bundle_open_limits *lim,
		    char *out_dir, size_t out_len, char *err, size_t errlen)
{
	return bundle__extract_some(path, parent, lim, NULL, 0, out_dir, out_len, err, errlen);
}

int bundle__remove_tree(const char *dir)
{
	return scratch__remove(dir);
}
