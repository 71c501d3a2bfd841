// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bundle__scan and bundle__write against a staging tree with the awkward
 * cases (symlinks, a fifo, an empty file, a >100-byte name, '.' sorting
 * before '/'), checked with GNU tar; plus the failure paths: missing
 * directory, missing manifest, and (root only) a full filesystem and a
 * member that shrinks under us.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle/bundle.h"
#include "util/scratch.h"
#include "util/sha256.h"
#include "tap.h"

#define LONG_NAME "raw/long_name_to_force_a_pax_header_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" \
		  "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx.cap"

/* A fixed mtime, so the test can see it survive the archive. */
#define FIXED_MTIME 1609556645

struct stage_file {
	const char *path;
	char *data;        /* filled by build_stage */
	size_t len;
};

/* Every regular file of the staging tree, in strcmp order as bundle__scan returns them. */
static struct stage_file files[] = {
	{ .path = "findings.json" },
	{ .path = "raw/a.cap" },
	{ .path = "raw/empty.cap" },
	{ .path = LONG_NAME },
	{ .path = "raw/sub.x" },      /* '.' < '/': before raw/sub/, unlike a per-directory sort */
	{ .path = "raw/sub/b.cap" },
	{ .path = "report.html" },
	{ .path = "report.md" },
};
#define NR_FILES (sizeof(files) / sizeof(files[0]))

static const char manifest[] = "{\"version\":1,\"members\":[]}\n";

static char root[] = "/tmp/test_bundle.XXXXXX";

/* The whole of buf in one update, as the manifest writes it (sha256__final_hex). */
static void one_shot(const void *buf, size_t len, char hex[65])
{
	struct sha256 s;

	sha256__init(&s);
	sha256__update(&s, buf, len);
	sha256__final_hex(&s, hex);
}

static int write_file(const char *path, const void *data, size_t len)
{
	int fd, ret = 0;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (len && write(fd, data, len) != (ssize_t)len)
		ret = -EIO;
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

static char *read_file(const char *path, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	ssize_t r;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || !buf) {
		if (fd >= 0)
			close(fd);
		free(buf);
		return NULL;
	}
	for (;;) {
		if (n == cap) {
			char *nb = realloc(buf, cap *= 2);

			if (!nb) {
				free(buf);
				close(fd);
				return NULL;
			}
			buf = nb;
		}
		r = read(fd, buf + n, cap - n);
		if (r <= 0)
			break;
		n += r;
	}
	close(fd);
	if (r < 0) {
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

/* stdout of a shell command, NUL-terminated, or NULL if it failed. */
static char *run(const char *cmd)
{
	size_t cap = 1 << 16, n = 0, r;
	char *out = malloc(cap);
	FILE *p;

	if (!out)
		return NULL;
	p = popen(cmd, "r");
	if (!p) {
		free(out);
		return NULL;
	}
	while ((r = fread(out + n, 1, cap - 1 - n, p)) > 0)
		n += r;
	out[n] = '\0';
	if (pclose(p) != 0) {
		printf("#   command failed: %s\n", cmd);
		free(out);
		return NULL;
	}
	return out;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static void rm_tree(const char *path)
{
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* bundle__write with a name that may not be changed in place (a literal or a fixed buffer). */
static int bw(const char *stage, const char *final, char *errbuf, size_t errlen)
{
	char name[PATH_MAX];

	snprintf(name, sizeof(name), "%s", final);
	return bundle__write(stage, name, sizeof(name), errbuf, errlen);
}

static int path_exists(const char *path)
{
	struct stat st;

	return !lstat(path, &st);
}

/* Entries in dir other than keep (NULL: any); 0 means no temporary was left behind. */
static int count_others(const char *dir, const char *keep)
{
	struct dirent *de;
	int n = 0;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (keep && !strcmp(de->d_name, keep))
			continue;
		printf("#   found %s/%s\n", dir, de->d_name);
		n++;
	}
	closedir(d);
	return n;
}

static void fill_text(char *buf, size_t len, unsigned int seed)
{
	size_t n = 0;

	/* Capture-like lines, long enough to cross the 64 KiB read size. */
	while (n < len) {
		char line[96];
		int l = snprintf(line, sizeof(line), "%u (worker/%u) S 1 %u 0 -1 4194560 %u 0\n",
				 seed, seed % 7, seed * 3, seed * 17);

		memcpy(buf + n, line, len - n < (size_t)l ? len - n : (size_t)l);
		n += l;
		seed++;
	}
}

static int build_stage(const char *stage)
{
	const struct timespec mtime[2] = { { FIXED_MTIME, 0 }, { FIXED_MTIME, 0 } };
	char path[1024];
	size_t i;

	for (i = 0; i < NR_FILES; i++) {
		const char *p = files[i].path;

		if (!strcmp(p, "raw/a.cap")) {
			files[i].len = 200000;
			files[i].data = malloc(files[i].len);
			if (!files[i].data)
				return -ENOMEM;
			fill_text(files[i].data, files[i].len, 1);
		} else if (!strcmp(p, "raw/sub/b.cap")) {
			/* Binary, with NULs: tar must not treat members as text. */
			files[i].len = 70001;
			files[i].data = malloc(files[i].len);
			if (!files[i].data)
				return -ENOMEM;
			for (size_t j = 0; j < files[i].len; j++)
				files[i].data[j] = (char)(j * 7 + j / 256);
		} else if (!strcmp(p, "raw/empty.cap")) {
			files[i].len = 0;
			files[i].data = strdup("");
		} else {
			if (asprintf(&files[i].data, "contents of %s\n", p) < 0)
				return -ENOMEM;
			files[i].len = strlen(files[i].data);
		}
	}

	snprintf(path, sizeof(path), "%s/raw", stage);
	if (mkdir(stage, 0700) || mkdir(path, 0700))
		return -errno;
	snprintf(path, sizeof(path), "%s/raw/sub", stage);
	if (mkdir(path, 0700))
		return -errno;

	snprintf(path, sizeof(path), "%s/manifest.json", stage);
	if (write_file(path, manifest, strlen(manifest)))
		return -EIO;
	for (i = 0; i < NR_FILES; i++) {
		snprintf(path, sizeof(path), "%s/%s", stage, files[i].path);
		if (write_file(path, files[i].data, files[i].len))
			return -EIO;
	}

	/* Not bundle content: a file symlink, a directory symlink (a loop if followed), a fifo. */
	snprintf(path, sizeof(path), "%s/raw/link.cap", stage);
	if (symlink("a.cap", path))
		return -errno;
	snprintf(path, sizeof(path), "%s/raw/sub/loop", stage);
	if (symlink("..", path))
		return -errno;
	snprintf(path, sizeof(path), "%s/raw/fifo", stage);
	if (mkfifo(path, 0600))
		return -errno;

	snprintf(path, sizeof(path), "%s/report.md", stage);
	if (utimensat(AT_FDCWD, path, mtime, AT_SYMLINK_NOFOLLOW))
		return -errno;
	return 0;
}

static void test_scan(const char *stage)
{
	struct bundle_list bl;
	char hex[65];
	size_t i;
	int err;

	err = bundle__scan(stage, &bl);
	is_int(err, 0, "bundle__scan succeeds");
	is_int(bl.n, NR_FILES, "scan finds the regular files, minus manifest, symlinks, fifo");
	for (i = 0; i < NR_FILES && i < bl.n; i++) {
		one_shot(files[i].data, files[i].len, hex);
		is_str(bl.m[i].path, files[i].path, "member %zu is %s", i, files[i].path);
		is_int(bl.m[i].size, files[i].len, "%s size", files[i].path);
		is_str(bl.m[i].sha256, hex, "%s sha256", files[i].path);
	}
	bundle_list__free(&bl);
	ok(bl.m == NULL && bl.n == 0, "bundle_list__free resets the list");

	err = bundle__scan("/nonexistent/stage", &bl);
	is_int(err, -ENOENT, "scan of a missing dir is -ENOENT");
	is_int(bl.n, 0, "and leaves an empty list");
}

/* Every member a 0600 regular file owned by 0/0, not by whoever ran sonde. */
static void check_owner_mode(const char *cmd)
{
	char *listing = run(cmd), *line, *save = NULL;
	int n = 0, good = 0;

	for (line = listing ? strtok_r(listing, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		n++;
		if (!strncmp(line, "-rw------- 0/0 ", 15))
			good++;
		else
			printf("#   %s\n", line);
	}
	is_int(n, NR_FILES + 1, "tar -tv lists every member");
	is_int(good, n, "every member is -rw------- 0/0");
	free(listing);
}

/* bundle__ext: the one answer to "is this a bundle file's name", and where its extension starts. */
static void test_ext(void)
{
	static const struct {
		const char *name, *ext;
	} cases[] = {
		{ "sonde-vm-20260101T000000Z.tar.xz", ".tar.xz" },
		{ "/out/dir.d/sonde-vm.tar.xz", ".tar.xz" },
		{ "a.txz", ".txz" },
		{ "a.tar.gz", ".tar.gz" },
		{ "a.tgz", ".tgz" },
		{ "a.tar.zst", ".tar.zst" },
		{ "a.tzst", ".tzst" },
		{ "a.tar.gz.xz", NULL },     /* the reader takes one filter */
		{ "a.tar", NULL },           /* an uncompressed tar is refused */
		{ "a.xz", NULL },
		{ "a.TAR.XZ", NULL },        /* case counts */
		{ ".tar.xz", NULL },         /* an extension alone names nothing */
		{ "a.tar.xz.tmp", NULL },
		{ "", NULL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		const char *e = bundle__ext(cases[i].name);

		if (cases[i].ext)
			is_str(e, cases[i].ext, "bundle__ext(\"%s\")", cases[i].name);
		else
			ok(!e, "bundle__ext(\"%s\"): no bundle", cases[i].name);
	}
	ok(!strcmp(bundle_exts[0], BUNDLE_EXT), "what sonde writes is the first of what it reads");
}

/* A bare file name puts the bundle (and its temporary) in the cwd. */
static void test_write_bare_name(const char *stage, const char *out)
{
	char errbuf[256];
	int cwd, err;

	cwd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cwd < 0 || chdir(out)) {
		ok(0, "chdir to %s", out);
		goto cleanup;
	}
	err = bw(stage, "bare.tar.xz", errbuf, sizeof(errbuf));
	is_int(err, 0, "write to a bare file name succeeds");
	ok(path_exists("bare.tar.xz"), "bare-name bundle is in the cwd");
	unlink("bare.tar.xz");
	if (fchdir(cwd))
		perror("fchdir");
cleanup:
	if (cwd >= 0)
		close(cwd);
}

static void test_write(const char *stage, const char *out)
{
	char final[512], cmd[4096], xdir[512], path[1024], errbuf[256];
	struct stat st = { 0 };
	char *listing;
	size_t i, len;
	mode_t old;
	int err, same = 1;
	char *got;

	snprintf(final, sizeof(final), "%s/sonde-test.tar.xz", out);

	/* A restrictive umask would give 0400; the bundle must still end up 0600. */
	old = umask(0277);
	err = bw(stage, final, errbuf, sizeof(errbuf));
	umask(old);
	is_int(err, 0, "bundle__write succeeds");
	is_str(errbuf, "", "no error message on success");
	ok(!stat(final, &st) && S_ISREG(st.st_mode), "bundle exists");
	is_int(st.st_mode & 07777, 0600, "bundle mode is 0600 despite umask 0277");
	is_int(count_others(out, "sonde-test.tar.xz"), 0, "no temporary file left");

	got = read_file(final, &len);
	ok(got && len > 6 && !memcmp(got, "\xfd" "7zXZ\0", 6), "bundle is xz");
	free(got);

	snprintf(cmd, sizeof(cmd), "tar -tJf '%s'", final);
	listing = run(cmd);
	is_str(listing,
	       "manifest.json\nfindings.json\nreport.md\nreport.html\n"
	       "raw/a.cap\nraw/empty.cap\n" LONG_NAME "\nraw/sub.x\nraw/sub/b.cap\n",
	       "tar -tJf lists the documented order");
	free(listing);

	snprintf(cmd, sizeof(cmd), "tar --numeric-owner -tvJf '%s'", final);
	check_owner_mode(cmd);

	snprintf(xdir, sizeof(xdir), "%s/x", out);
	mkdir(xdir, 0700);
	snprintf(cmd, sizeof(cmd), "tar -xJf '%s' -C '%s'", final, xdir);
	listing = run(cmd);
	ok(listing != NULL, "tar -xJf extracts");
	free(listing);

	snprintf(path, sizeof(path), "%s/manifest.json", xdir);
	got = read_file(path, &len);
	ok(got && len == strlen(manifest) && !memcmp(got, manifest, len),
	   "extracted manifest.json is identical");
	free(got);
	for (i = 0; i < NR_FILES; i++) {
		snprintf(path, sizeof(path), "%s/%s", xdir, files[i].path);
		got = read_file(path, &len);
		if (!got || len != files[i].len || memcmp(got, files[i].data, len)) {
			printf("#   %s differs\n", files[i].path);
			same = 0;
		}
		free(got);
	}
	ok(same, "every extracted member is byte-identical");

	snprintf(path, sizeof(path), "%s/raw/link.cap", xdir);
	ok(!path_exists(path), "symlink not archived");
	snprintf(path, sizeof(path), "%s/raw/fifo", xdir);
	ok(!path_exists(path), "fifo not archived");
	snprintf(path, sizeof(path), "%s/report.md", xdir);
	ok(!stat(path, &st) && st.st_mtime == FIXED_MTIME, "member keeps the file's mtime");
	rm_tree(xdir);

	/* A second write under the same name never replaces the first: it gets "-2". */
	{
		char second[PATH_MAX];
		struct stat st1, st2;

		snprintf(second, sizeof(second), "%s", final);
		stat(final, &st1);
		err = bundle__write(stage, second, sizeof(second), errbuf, sizeof(errbuf));
		is_int(err, 0, "a second bundle under a taken name is written");
		ok(strlen(second) > 9 && !strcmp(second + strlen(second) - 9, "-2.tar.xz"),
		   "under the next free name: %s", second);
		ok(!stat(final, &st2) && st1.st_ino == st2.st_ino, "the first bundle is untouched");
		unlink(second);
	}
	is_int(count_others(out, "sonde-test.tar.xz"), 0, "still no temporary left");
	unlink(final);

	/*
	 * A leftover temporary with our pid (an earlier run killed mid-write, or a
	 * live writer in another PID namespace: a pid says nothing) must not block
	 * us, and is not ours to remove: the sweep takes it, as no one holds it.
	 */
	snprintf(path, sizeof(path), "%s/.sonde-test.tar.xz.tmp.%d", out, (int)getpid());
	write_file(path, "stale", 5);
	err = bw(stage, final, errbuf, sizeof(errbuf));
	is_int(err, 0, "write succeeds beside a stale temporary with our pid");
	is_int(count_others(out, "sonde-test.tar.xz"), 1, "  ...which the write leaves alone");
	is_int(scratch__sweep_files(out, ".sonde-", ".tmp."), 1, "a sweep takes it (no one holds it)");
	is_int(count_others(out, "sonde-test.tar.xz"), 0, "stale temporary gone");

	test_write_bare_name(stage, out);
	unlink(final);
}

static void test_failures(const char *stage, const char *out, const char *stage2)
{
	char final[512], path[1024], errbuf[256];
	size_t len;
	char *got;
	int err;

	snprintf(final, sizeof(final), "%s/no/such/dir/b.tar.xz", out);
	err = bw(stage, final, errbuf, sizeof(errbuf));
	is_int(err, -ENOENT, "write into a missing directory is -ENOENT");
	ok(errbuf[0] && !strchr(errbuf, '\n'), "with a one-line message");
	printf("#   errbuf: %s\n", errbuf);
	ok(!path_exists(final), "and no bundle");

	err = bw(stage, final, NULL, 0);
	is_int(err, -ENOENT, "a NULL errbuf is allowed");

	err = bw(stage, "/tmp/", errbuf, sizeof(errbuf));
	is_int(err, -EISDIR, "a path ending in '/' is refused");

	/* Same tree without manifest.json; an old bundle at final_path must survive. */
	mkdir(stage2, 0700);
	snprintf(path, sizeof(path), "%s/report.md", stage2);
	write_file(path, "# r\n", 4);
	snprintf(path, sizeof(path), "%s/sub", stage2);
	mkdir(path, 0700);
	/* A manifest.json below the top does not count. */
	snprintf(path, sizeof(path), "%s/sub/manifest.json", stage2);
	write_file(path, "{}", 2);
	snprintf(final, sizeof(final), "%s/old.tar.xz", out);
	write_file(final, "old bundle", 10);

	err = bw(stage2, final, errbuf, sizeof(errbuf));
	is_int(err, -ENOENT, "write without manifest.json fails with -ENOENT");
	ok(strstr(errbuf, "manifest.json") != NULL, "message names manifest.json");
	printf("#   errbuf: %s\n", errbuf);
	got = read_file(final, &len);
	ok(got && len == 10 && !memcmp(got, "old bundle", 10), "existing final_path untouched");
	free(got);
	is_int(count_others(out, "old.tar.xz"), 0, "no temporary left");
	unlink(final);
	rm_tree(stage2);

	err = bw("/nonexistent/stage", final, errbuf, sizeof(errbuf));
	is_int(err, -ENOENT, "missing staging dir is -ENOENT");
	ok(!path_exists(final), "and no bundle");
}

static void skip(const char *reason)
{
	printf("ok %d # SKIP %s\n", ++tap_n, reason);
}

static void test_enospc(const char *base)
{
	char mnt[256], stage[256], path[1024], final[512], errbuf[256], why[128];
	const size_t rlen = 1 << 20;
	char *rnd = NULL;
	size_t got = 0;
	int err;

	snprintf(mnt, sizeof(mnt), "%s/full", base);
	snprintf(stage, sizeof(stage), "%s/stage-big", base);
	if (geteuid() != 0) {
		skip("ENOSPC test needs root to mount a small tmpfs");
		return;
	}
	if (mkdir(mnt, 0700) || mount("tmpfs", mnt, "tmpfs", 0, "size=64k,mode=0700")) {
		snprintf(why, sizeof(why), "mount -t tmpfs -o size=64k failed: %s",
			 strerror(errno));
		skip(why);
		return;
	}

	rnd = malloc(rlen);
	while (rnd && got < rlen) {
		ssize_t n = getrandom(rnd + got, rlen - got, 0);

		if (n < 0)
			break;
		got += n;
	}
	mkdir(stage, 0700);
	snprintf(path, sizeof(path), "%s/raw", stage);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/manifest.json", stage);
	write_file(path, manifest, strlen(manifest));
	snprintf(path, sizeof(path), "%s/raw/proc.pids.cap", stage);
	if (!rnd || got != rlen || write_file(path, rnd, rlen)) {
		ok(0, "set up 1 MiB random member");
		goto cleanup;
	}

	snprintf(final, sizeof(final), "%s/full.tar.xz", mnt);
	err = bw(stage, final, errbuf, sizeof(errbuf));
	is_int(err, -ENOSPC, "1 MiB of random data into a 64 KiB tmpfs is -ENOSPC");
	is_str(errbuf, "writing raw/proc.pids.cap: No space left on device",
	       "message names the member and the reason");
	ok(!path_exists(final), "no bundle on the full filesystem");
	is_int(count_others(mnt, NULL), 0, "no temporary left on the full filesystem");

cleanup:
	free(rnd);
	if (umount2(mnt, 0))
		printf("# umount %s: %s\n", mnt, strerror(errno));
	rm_tree(stage);
	rmdir(mnt);
}

/*
 * A member whose size lies: sysfs reports 4096 bytes and returns a few. The
 * header is out before the data shows it, so the write must fail, not pad.
 */
static void test_shrink(const char *base)
{
	static const char sysfs_file[] = "/sys/devices/system/cpu/online";
	char stage[256], path[1024], final[512], errbuf[256], why[160];
	int mounted = 0, err;

	snprintf(stage, sizeof(stage), "%s/stage-shrink", base);
	snprintf(final, sizeof(final), "%s/out-shrink/shrink.tar.xz", base);
	snprintf(path, sizeof(path), "%s/out-shrink", base);
	mkdir(path, 0700);
	mkdir(stage, 0700);
	snprintf(path, sizeof(path), "%s/manifest.json", stage);
	write_file(path, manifest, strlen(manifest));
	snprintf(path, sizeof(path), "%s/cpu.online", stage);
	write_file(path, "", 0);

	if (geteuid() != 0) {
		skip("shrinking-member test needs root to bind-mount a sysfs file");
		goto cleanup;
	}
	if (mount(sysfs_file, path, NULL, MS_BIND, NULL)) {
		snprintf(why, sizeof(why), "bind-mounting %s failed: %s", sysfs_file,
			 strerror(errno));
		skip(why);
		goto cleanup;
	}
	mounted = 1;

	err = bw(stage, final, errbuf, sizeof(errbuf));
	is_int(err, -EIO, "a member shorter than its stat size fails with -EIO");
	is_str(errbuf, "reading cpu.online: file shrank while archiving",
	       "message names the member");
	ok(!path_exists(final), "and no bundle");
	snprintf(path, sizeof(path), "%s/out-shrink", base);
	is_int(count_others(path, NULL), 0, "and no temporary left");

cleanup:
	snprintf(path, sizeof(path), "%s/cpu.online", stage);
	if (mounted && umount2(path, 0))
		printf("# umount %s: %s\n", path, strerror(errno));
	rm_tree(stage);
}

int main(void)
{
	char stage[256], out[256], fail[256], stage2[256];
	size_t i;
	int err;

	/* Line-buffered so our lines and tar's stderr interleave in order. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(stage, sizeof(stage), "%s/stage", root);
	snprintf(out, sizeof(out), "%s/out", root);

	err = build_stage(stage);
	is_int(err, 0, "staging tree built");
	mkdir(out, 0700);
	snprintf(fail, sizeof(fail), "%s/fail", root);
	snprintf(stage2, sizeof(stage2), "%s/stage-nomanifest", root);
	mkdir(fail, 0700);

	test_ext();
	test_scan(stage);
	test_write(stage, out);
	test_failures(stage, fail, stage2);
	test_enospc(root);
	test_shrink(root);

	rm_tree(root);
	ok(!path_exists(root), "temp dirs removed");
	for (i = 0; i < NR_FILES; i++)
		free(files[i].data);
	return tap_done();
}
