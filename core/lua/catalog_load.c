// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * catalog__load: the embedded definitions (methodologies, lib modules,
 * checks), loaded here; then a user's --checks DIR, in a child process under
 * a watchdog, as a check's run() is (engine.c). A definition file's top-level
 * code runs when it is loaded: in the instruction hook's reach it is stopped
 * like a check, but a pathological pattern match is C code the hook never
 * interrupts, and in the parent it would hang list, analyze and run for good.
 * The child sends back what it loaded (util/wire.h); the parent kills it when
 * one file takes longer than a check may, or at the --timeout deadline.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lua/catalog_int.h"
#include "lua/engine.h"
#include "lua/loader.h"
#include "util/child.h"
#include "util/clock.h"
#include "util/embedded.h"
#include "util/file.h"
#include "util/trust.h"
#include "util/wire.h"

/* One file may take a check's wall budget (the hook's own limit), and this much more. */
#define LOAD_GRACE_S 1.0
/* How often the watchdog looks while the child says nothing. */
#define LOAD_TICK_MS 100
/* What the child sends back: every user check's source at most, and a margin. */
#define LOAD_REPLY_MAX (256u << 20)

/* Which file the loading child is on, since when: memory it shares with the parent. */
struct load_progress {
	volatile int64_t since_ns;
	char file[4608]; /* what catalog_load_user_file names ("DIR/SUB/NAME.lua") */
};

static struct load_progress *progress;

static void load_progress__start(const char *file)
{
	if (!progress)
		return;
	snprintf(progress->file, sizeof(progress->file), "%s", file);
	__atomic_store_n(&progress->since_ns, clock__ns(CLOCK_MONOTONIC), __ATOMIC_RELEASE);
}

static int catalog_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The .lua files of dir/sub, sorted (for a stable order of user checks). */
static int catalog_list_lua(const char *dir, struct strv *out)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (de->d_name[0] != '.' && l > 4 && !strcmp(de->d_name + l - 4, ".lua") &&
		    strv__push(out, de->d_name)) {
			closedir(d);
			return -ENOMEM;
		}
	}
	closedir(d);
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), catalog_cmp_str);
	return 0;
}

/* DIR/SUB/NAME.lua of a user's --checks DIR: a lib module when SUB is lib, else a check. */
static int catalog_load_user_file(struct catalog *cat, const char *path, const char *sub,
				  const char *name, char *err, size_t errlen)
{
	char file[4400], rel[512], lib[80], real[PATH_MAX], why[1024];
	char *src = NULL;
	size_t len = 0;
	int rc;

	snprintf(file, sizeof(file), "%s/%s", path, name);
	load_progress__start(file);
	/*
	 * The user's own folder: a symlinked check is fine; what it resolves to is
	 * held to the directory's rule (catalog_load_user_dir), and read.
	 */
	rc = trust__path(file, real, why, sizeof(why));
	if (rc == -EPERM) {
		snprintf(err, errlen,
			 "%s: %s: refused: another user could change the code sonde runs", file,
			 why);
		return rc;
	}
	if (!rc)
		rc = file__read_bounded(AT_FDCWD, real, CHECK_FILE_MAX, &src, &len);
	if (rc) {
		snprintf(err, errlen, "%s: %s", file, strerror(-rc));
		return rc;
	}
	if (strcmp(sub, "lib")) {
		snprintf(rel, sizeof(rel), "%s/%s", sub, name);
		rc = catalog__load_check(cat, file, rel, src, len, 1, err, errlen);
	} else if (catalog__lib_name(name, lib, sizeof(lib))) {
		snprintf(err, errlen, "%s: a module name is [a-z0-9_-]+.lua", file);
		rc = -EINVAL;
	} else {
		rc = catalog__add_lib(cat, lib, file, src, len, err, errlen);
	}
	free(src);
	return rc;
}

static int catalog_load_user_dir(struct catalog *cat, const char *udir, char *err, size_t errlen)
{
	char why[1024];
	struct stat sb;
	DIR *d;
	struct dirent *de;
	struct strv subdirs = { 0 };
	int rc = 0;

	/*
	 * Its files are code sonde runs (as root, for a run): the directory, its
	 * parents and every file loaded must be root's or this user's and writable
	 * by no one else, as sshd asks of authorized_keys (util/trust.h).
	 */
	if (trust__path(udir, NULL, why, sizeof(why)) == -EPERM) {
		snprintf(err, errlen,
			 "--checks %s: %s: refused: another user could change the code sonde runs",
			 udir, why);
		return -EPERM;
	}
	if (stat(udir, &sb) || !S_ISDIR(sb.st_mode)) {
		snprintf(err, errlen, "--checks %s: %s", udir,
			 errno && !S_ISDIR(sb.st_mode) ? strerror(errno) : "not a directory");
		return -ENOTDIR;
	}
	d = opendir(udir);
	if (!d) {
		snprintf(err, errlen, "--checks %s: %s", udir, strerror(errno));
		return -errno;
	}
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && strv__push(&subdirs, de->d_name)) {
			closedir(d);
			strv__free(&subdirs);
			snprintf(err, errlen, "--checks %s: out of memory", udir);
			return -ENOMEM;
		}
	closedir(d);
	if (subdirs.n)
		qsort(subdirs.v, subdirs.n, sizeof(*subdirs.v), catalog_cmp_str);
	/* lib/ first: checks may require it at load time. */
	for (int pass = 0; pass < 2 && !rc; pass++) {
		for (size_t i = 0; i < subdirs.n && !rc; i++) {
			char path[4096];
			struct strv files = { 0 };
			int is_lib = !strcmp(subdirs.v[i], "lib");

			if (is_lib != (pass == 0))
				continue;
			snprintf(path, sizeof(path), "%s/%s", udir, subdirs.v[i]);
			if (stat(path, &sb) || !S_ISDIR(sb.st_mode))
				continue;
			catalog_list_lua(path, &files);
			for (size_t k = 0; k < files.n && !rc; k++)
				rc = catalog_load_user_file(cat, path, subdirs.v[i], files.v[k],
							    err, errlen);
			strv__free(&files);
		}
	}
	strv__free(&subdirs);
	return rc;
}

/* ---- the wire form of what the child loaded ---- */

static void put_check(struct strbuf *sb, const struct check_def *d)
{
	const char *const strs[] = { d->id, d->title, d->description, d->methodology,
				     d->resource, d->metric, d->origin };

	for (size_t i = 0; i < sizeof(strs) / sizeof(*strs); i++)
		wire__put_str(sb, strs[i]);
	wire__put_strv(sb, &d->tags);
	wire__put_strv(sb, &d->collect);
	wire__put_u64(sb, d->nargs);
	for (size_t i = 0; i < d->nargs; i++) {
		const struct check_arg *a = &d->args[i];

		wire__put_str(sb, a->name);
		wire__put_str(sb, a->help);
		wire__put_u64(sb, a->type);
		wire__put_f64(sb, a->num);
		wire__put_str(sb, a->str);
		wire__put_u64(sb, (uint64_t)a->boolean);
	}
	wire__put_mem(sb, d->source, d->source_len);
	wire__put_u64(sb, (uint64_t)d->user);
}

static void get_check(struct wire_reader *rb, struct check_def *d)
{
	char **const strs[] = { &d->id, &d->title, &d->description, &d->methodology,
				&d->resource, &d->metric, &d->origin };

	for (size_t i = 0; i < sizeof(strs) / sizeof(*strs); i++)
		*strs[i] = wire__str(rb);
	wire__strv(rb, &d->tags);
	wire__strv(rb, &d->collect);
	d->nargs = wire__count(rb);
	d->args = rb->bad ? NULL : calloc(d->nargs + 1, sizeof(*d->args));
	if (!d->args) {
		rb->bad = 1;
		d->nargs = 0;
	}
	for (size_t i = 0; i < d->nargs && !rb->bad; i++) {
		struct check_arg *a = &d->args[i];
		uint64_t type;

		a->name = wire__str(rb);
		a->help = wire__str(rb);
		type = wire__u64(rb);
		a->type = type == ARG_STRING ? ARG_STRING : type == ARG_BOOLEAN ? ARG_BOOLEAN :
									   ARG_NUMBER;
		a->num = wire__f64(rb);
		a->str = wire__str(rb);
		a->boolean = wire__u64(rb) != 0;
		if (!a->name)
			rb->bad = 1;
	}
	d->source = wire__mem(rb, &d->source_len);
	d->user = wire__u64(rb) != 0;
	/* What catalog__load_check guarantees of every check it adds. */
	if (!d->id || !d->title || !d->methodology || !d->resource || !d->metric || !d->origin ||
	    !d->source)
		rb->bad = 1;
}

/*
 * The child: load the user's directory into its copy of the catalog, send
 * back the status, the error, then the lib modules and checks it added.
 */
static void __attribute__((noreturn))
load_child(struct catalog *cat, const char *udir, int fd, pid_t parent)
{
	size_t nchecks = cat->nchecks, nlibs = cat->nlibs;
	struct strbuf sb = { 0 };
	char err[8192] = "";
	int rc;

	/* It must not outlive a sonde that was killed, nor run the parent's handlers. */
	child__tie(parent);
	rc = catalog_load_user_dir(cat, udir, err, sizeof(err));
	wire__put_u64(&sb, (uint64_t)(rc < 0 ? -rc : rc));
	wire__put_str(&sb, err);
	if (!rc) {
		wire__put_u64(&sb, cat->nlibs - nlibs);
		for (size_t i = nlibs; i < cat->nlibs; i++) {
			wire__put_str(&sb, cat->libs[i].name);
			wire__put_str(&sb, cat->libs[i].origin);
			wire__put_mem(&sb, cat->libs[i].source, cat->libs[i].source_len);
		}
		wire__put_u64(&sb, cat->nchecks - nchecks);
		for (size_t i = nchecks; i < cat->nchecks; i++)
			put_check(&sb, &cat->checks[i]);
	}
	_exit(sb.oom || fd__write_all(fd, sb.buf, sb.len) ? 2 : 0);
}

/* The child's reply into cat: its error, or its lib modules and checks. */
static int load_reply(struct catalog *cat, const struct strbuf *reply, char *err, size_t errlen)
{
	struct wire_reader rb = { .p = reply->buf, .end = reply->buf + reply->len,
				  .max_str = CHECK_FILE_MAX };
	uint64_t rc = wire__u64(&rb);
	char *msg = wire__str(&rb);
	size_t n;
	int ret = 0;

	if (!rb.bad && rc) {
		snprintf(err, errlen, "%s", msg && *msg ? msg : strerror((int)rc));
		free(msg);
		return rc > 4095 ? -EINVAL : -(int)rc;
	}
	free(msg);
	n = wire__count(&rb);
	for (size_t i = 0; i < n && !rb.bad && !ret; i++) {
		char *name = wire__str(&rb), *origin = wire__str(&rb), *src;
		size_t len;

		src = wire__mem(&rb, &len);
		if (!rb.bad && name && origin && src)
			ret = catalog__add_lib(cat, name, origin, src, len, err, errlen);
		free(name);
		free(origin);
		free(src);
	}
	n = wire__count(&rb);
	for (size_t i = 0; i < n && !rb.bad && !ret; i++) {
		struct check_def d = { 0 };

		get_check(&rb, &d);
		ret = rb.bad ? 0 : catalog__adopt_check(cat, &d);
		catalog__free_check(&d);
	}
	if (!ret && (rb.bad || rb.p != rb.end)) {
		snprintf(err, errlen, "the process that loaded the checks sent no readable reply");
		ret = -EIO;
	}
	return ret;
}

/* What the watchdog of the loading child knows. */
struct load_watch {
	int64_t deadline_ns;
	const char *udir;
	char *err;
	size_t errlen;
};

/* Is it time to stop the child? Then err says why. */
static int load_overdue(void *arg)
{
	struct load_watch *w = arg;
	int64_t now = clock__ns(CLOCK_MONOTONIC);
	int64_t since = __atomic_load_n(&progress->since_ns, __ATOMIC_ACQUIRE);
	double per_file = engine_default_limits.wall_s + LOAD_GRACE_S;
	char file[sizeof(progress->file)];

	snprintf(file, sizeof(file), "%s", since ? progress->file : w->udir);
	if (since && now - since > (int64_t)(per_file * 1e9))
		snprintf(w->err, w->errlen,
			 "%s: loading it took longer than %.0f s and was stopped from outside: its "
			 "top-level code is stuck where the Lua hook cannot reach (a pathological "
			 "pattern match, or a long C call)",
			 file, per_file);
	else if (w->deadline_ns && now >= w->deadline_ns)
		snprintf(w->err, w->errlen,
			 "%s: still loading at the --timeout deadline; stopped from outside", file);
	else
		return 0;
	return 1;
}

/*
 * The user's directory, loaded by a child under the watchdog: one file may
 * take what a check's run() may; the whole, until deadline_ns (0: none).
 */
static int load_user_dir_watched(struct catalog *cat, const char *udir, int64_t deadline_ns,
				 char *err, size_t errlen)
{
	struct strbuf reply = { 0 };
	struct load_watch watch;
	int fds[2], status = 0, ret = 0;
	pid_t pid, parent = getpid();

	err[0] = '\0';
	progress = mmap(NULL, sizeof(*progress), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (progress == MAP_FAILED) {
		progress = NULL;
		snprintf(err, errlen, "--checks %s: %s", udir, strerror(errno));
		return -errno;
	}
	if (pipe2(fds, O_CLOEXEC)) {
		ret = -errno;
		goto cleanup;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		close(fds[0]);
		close(fds[1]);
		goto cleanup;
	}
	if (!pid) {
		close(fds[0]);
		load_child(cat, udir, fds[1], parent);
	}
	close(fds[1]);
	watch = (struct load_watch){ .deadline_ns = deadline_ns, .udir = udir, .err = err,
				     .errlen = errlen };
	if (child__collect(pid, fds[0], &reply, LOAD_REPLY_MAX, LOAD_TICK_MS, load_overdue, &watch,
			   &status))
		ret = -ETIMEDOUT;
	if (!ret && WIFSIGNALED(status)) {
		snprintf(err, errlen, "--checks %s: the process that loaded the checks died: %s",
			 udir, strsignal(WTERMSIG(status)));
		ret = -EIO;
	} else if (!ret && reply.oom) {
		ret = -ENOMEM;
	} else if (!ret) {
		ret = load_reply(cat, &reply, err, errlen);
	}
cleanup:
	if (ret && !err[0])
		snprintf(err, errlen, "--checks %s: %s", udir, strerror(-ret));
	strbuf__free(&reply);
	munmap(progress, sizeof(*progress));
	progress = NULL;
	return ret;
}

int catalog__load_until(struct catalog *cat, const char *user_dir, int64_t deadline_ns,
			char *err, size_t errlen)
{
	int rc = 0;

	memset(cat, 0, sizeof(*cat));
	for (const struct embedded_file *f = embedded_files; f->path && !rc; f++)
		if (!strncmp(f->path, "methodologies/", 14))
			rc = catalog__load_methodology(cat, f->path, f->data, f->len, err, errlen);
	for (const struct embedded_file *f = embedded_files; f->path && !rc; f++)
		if (!strncmp(f->path, "checks/lib/", 11)) {
			char name[80];

			if (!catalog__lib_name(f->path + 11, name, sizeof(name)))
				rc = catalog__add_lib(cat, name, f->path, f->data, f->len, err,
						      errlen);
		}
	for (const struct embedded_file *f = embedded_files; f->path && !rc; f++)
		if (!strncmp(f->path, "checks/", 7) && strncmp(f->path, "checks/lib/", 11))
			rc = catalog__load_check(cat, f->path, f->path + 7, f->data, f->len, 0,
						 err, errlen);
	/* The user's lib/ loads before the user's checks (catalog_load_user_dir does both). */
	if (!rc && user_dir)
		rc = load_user_dir_watched(cat, user_dir, deadline_ns, err, errlen);
	if (!rc)
		rc = catalog__check_rules(cat, err, errlen);
	if (!rc)
		rc = ranking__load(cat, err, errlen);
	if (rc) {
		catalog__free(cat);
		return rc;
	}
	catalog__finish(cat);
	return 0;
}

int catalog__load(struct catalog *cat, const char *user_dir, char *err, size_t errlen)
{
	return catalog__load_until(cat, user_dir, 0, err, errlen);
}
