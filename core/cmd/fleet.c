// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sonde fleet DIR|BUNDLE...: one summary of many hosts' bundles (the fan-out
 * of contrib/ansible fetches them into one directory, a folder per host).
 * Bundles are read by worker processes, each under the untrusted-bundle
 * rules, and only a small summary of each is kept (core/report/fleet.c); the
 * summary is printed and written as fleet.md, fleet.html and fleet.json.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bundle/bundle.h"
#include "bundle/read.h"
#include "cmd/cmd.h"
#include "report/fleet.h"
#include "run/run.h"
#include "util/file.h"
#include "util/json_read.h"
#include "util/sha256.h"
#include "util/strv.h"
#include "util/tty.h"
#include "util/wire.h"

/* How deep a directory is searched for bundles (DIR/HOST/sonde-*.tar.xz is 2). */
#define FLEET_WALK_DEPTH 8
#define FLEET_MAX_BUNDLES 1000000

struct fleet_opts {
	const char *out_dir;
	int json, md, fail_on;
};

static const struct cmd_option options[] = {
	{ .name = "out", .letter = 'o', .arg = "DIR", .kind = CMD_OPT_STRING,
	  .field = offsetof(struct fleet_opts, out_dir),
	  .help = "where fleet.md, fleet.html and fleet.json go (default: the\n"
		  "current directory; each replaced atomically)" },
	{ .name = "json", .letter = 'j', .kind = CMD_OPT_FLAG,
	  .field = offsetof(struct fleet_opts, json),
	  .help = "print fleet.json instead of the summary" },
	{ .name = "md", .kind = CMD_OPT_FLAG, .field = offsetof(struct fleet_opts, md),
	  .help = "print fleet.md instead of the summary" },
	{ .name = "fail-on", .letter = 'f', .arg = "LEVEL", .kind = CMD_OPT_CHOICE,
	  .field = offsetof(struct fleet_opts, fail_on), .choices = cmd_fail_on_levels,
	  .help = "exit 3 when a host's worst finding is at least LEVEL" },
	{ NULL },
};

const struct cmd_help cmd_fleet_help = {
	.usage = "sonde fleet DIR|BUNDLE... [--out DIR] [--json | --md]",
	.description =
		"One summary of many hosts' bundles: a row per host (a host id with a host\n"
		"name) with its verdict (the latest bundle stands for its host, but never one\n"
		"whose window is in the future), the host names several machines claim, the\n"
		"findings several hosts share and those on one host only, the hosts far from\n"
		"the fleet on a metric (a robust z-score on the median absolute deviation),\n"
		"and fleet-wide latency heat maps (each host's run-queue and block I/O\n"
		"latency histograms, merged and side by side). A DIR is searched for\n"
		"bundles (*.tar.xz, .txz, .tar.gz, .tgz, .tar.zst, .tzst) and extracted ones, as\n"
		"contrib/ansible/sonde-fleet.yml fetches them (DIR/HOST/...). Each bundle is\n"
		"opened as untrusted input and what is read of it is checked against its\n"
		"manifest; a bundle that fails is listed with the reason, and the others are\n"
		"read. Prints a summary and writes fleet.md, fleet.html and fleet.json\n"
		"(docs/fleet.md).\n",
	.options = options,
	.notes = "Exit status: 0 at least one bundle was read, 1 none could be, 2 usage\n"
		 "error, 3 a host reached --fail-on.\n",
};

/* The members fleet reads, as read: NULL where the bundle has none. */
/*
 * The histograms come from the first window or, for a tool that hooks a hot path
 * (runqlat: every context switch), from the drill-down window that ran it.
 */
enum { M_FINDINGS, M_MANIFEST, M_RUNQLAT, M_BIOLATENCY, M_RUNQLAT_DD, M_BIOLATENCY_DD, M_N };
static const char *const member_names[M_N] = {
	"findings.json", "manifest.json", "raw/bpf/runqlat.json", "raw/bpf/biolatency.json",
	"raw/drilldown/bpf/runqlat.json", "raw/drilldown/bpf/biolatency.json",
};
static const uint64_t member_max[M_N] = { 64u << 20, 64u << 20, 16u << 20,
					  16u << 20, 16u << 20, 16u << 20 };
/* What is taken out of a bundle file: only these members (the histograms may be absent). */
static const struct bundle_want member_want[M_N] = {
	{ "findings.json", 0 }, { "manifest.json", 0 },
	{ "raw/bpf/runqlat.json", 1 }, { "raw/bpf/biolatency.json", 1 },
	{ "raw/drilldown/bpf/runqlat.json", 1 }, { "raw/drilldown/bpf/biolatency.json", 1 },
};

struct fleet_texts {
	char *text[M_N];
	size_t len[M_N];
};

static void fleet_texts__free(struct fleet_texts *t)
{
	for (int k = 0; k < M_N; k++)
		free(t->text[k]);
	memset(t, 0, sizeof(*t));
}

/*
 * The members read against manifest.json (the bundle's own claim): each one
 * listed with its size and sha256, each one listed present. Only what fleet
 * reads is hashed, not every capture (sonde verify checks a whole bundle).
 */
static int check_members(const struct fleet_texts *t, char *err, size_t errlen)
{
	const struct jval *files;
	struct jval *man = NULL;
	char why[256];
	int rc = 0;

	if (json_read(t->text[M_MANIFEST], t->len[M_MANIFEST], &json_read_default_limits, &man,
		      why, sizeof(why))) {
		snprintf(err, errlen, "manifest.json: %s", why);
		return -EINVAL;
	}
	files = jval__get(man, "files");
	for (int k = 0; !rc && k < M_N; k++) {
		const struct jval *e = NULL;
		char hex[65];
		struct sha256 h;
		double size;

		if (k == M_MANIFEST)
			continue;
		for (size_t i = 0; files && files->type == J_ARRAY && i < files->len && !e; i++) {
			const char *path = jval__str(&files->items[i], "path");

			if (path && !strcmp(path, member_names[k]))
				e = &files->items[i];
		}
		if (!e && !t->text[k])
			continue;
		if (!e || !t->text[k]) {
			snprintf(err, errlen, "%s: %s", member_names[k],
				 e ? "listed in the manifest but missing" :
				     "in the bundle but not in the manifest");
			rc = -EINVAL;
			break;
		}
		sha256__init(&h);
		sha256__update(&h, t->text[k], t->len[k]);
		sha256__final_hex(&h, hex);
		if (jval__num(e, "size", &size) || size != (double)t->len[k] ||
		    !jval__str(e, "sha256") || strcmp(jval__str(e, "sha256"), hex)) {
			snprintf(err, errlen, "%s: size or sha256 differs from the manifest",
				 member_names[k]);
			rc = -EINVAL;
		}
	}
	jval__free(man);
	return rc;
}

/*
 * The one place sonde fleet opens a bundle (core/bundle/read.c): from a file only
 * the members fleet reads are extracted, under the untrusted-bundle limits, into a
 * private directory; they are read and checked against the manifest, and the
 * directory is removed; a directory is an extracted bundle, read as it is.
 * 0, or -EINVAL with the reason in err.
 */
static int fleet_read_bundle(const char *path, int is_dir, struct fleet_texts *t, char *err,
			     size_t errlen)
{
	const char *tmp = getenv("TMPDIR");
	char dir[4500], file[4600];
	int rc = 0;

	if (is_dir)
		snprintf(dir, sizeof(dir), "%s", path);
	else if (bundle__extract_some(path, tmp && *tmp ? tmp : "/tmp", &bundle_open_default_limits,
				      member_want, M_N, dir, sizeof(dir), err, errlen))
		return -EINVAL;
	for (int k = 0; !rc && k < M_N; k++) {
		snprintf(file, sizeof(file), "%s/%s", dir, member_names[k]);
		rc = file__read_bounded(AT_FDCWD, file, member_max[k], &t->text[k], &t->len[k]);
		if (rc == -ENOENT && k > M_MANIFEST)
			rc = 0;
		else if (rc)
			snprintf(err, errlen, "%s: %s", member_names[k], strerror(-rc));
	}
	if (!is_dir)
		bundle__remove_tree(dir);
	if (!rc)
		rc = check_members(t, err, errlen);
	if (rc)
		fleet_texts__free(t);
	return rc ? -EINVAL : 0;
}

static int has_findings(const char *dir)
{
	char path[4500];
	struct stat sb;

	if (snprintf(path, sizeof(path), "%s/findings.json", dir) >= (int)sizeof(path))
		return 0;
	return !lstat(path, &sb) && S_ISREG(sb.st_mode);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Bundles under dir: files named like bundles and directories holding a
 * findings.json (extracted bundles), in name order; symlinks are not
 * followed. "d:" or "f:" before each path says which.
 */
static int walk(const char *dir, int depth, struct strv *out)
{
	struct strv names = { 0 };
	struct dirent *e;
	DIR *d;
	int rc = 0;

	if (depth > FLEET_WALK_DEPTH || !(d = opendir(dir)))
		return 0;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strv__push(&names, e->d_name))
			rc = -ENOMEM;
	closedir(d);
	if (names.n)
		qsort(names.v, names.n, sizeof(*names.v), name_cmp);
	for (size_t i = 0; !rc && i < names.n; i++) {
		char path[4400], entry[4404];
		struct stat sb;

		if (snprintf(path, sizeof(path), "%s/%s", dir, names.v[i]) >= (int)sizeof(path) ||
		    lstat(path, &sb))
			continue;
		if (out->n >= FLEET_MAX_BUNDLES)
			break;
		/* a hidden name is no bundle: a temporary being written, or put aside */
		if (S_ISREG(sb.st_mode) && names.v[i][0] != '.' && bundle__ext(names.v[i])) {
			snprintf(entry, sizeof(entry), "f:%s", path);
			rc = strv__push(out, entry);
		} else if (S_ISDIR(sb.st_mode) && has_findings(path)) {
			snprintf(entry, sizeof(entry), "d:%s", path);
			rc = strv__push(out, entry);
		} else if (S_ISDIR(sb.st_mode)) {
			rc = walk(path, depth + 1, out);
		}
	}
	strv__free(&names);
	return rc;
}

/* The bundles the arguments name: files as they are, directories searched. */
static void find_bundles(int argc, char **argv, struct strv *out)
{
	for (int i = 0; i < argc; i++) {
		struct stat sb;
		char entry[4200];

		if (stat(argv[i], &sb))
			run__die_usage("fleet", "%s: %s", argv[i], strerror(errno));
		if (S_ISDIR(sb.st_mode) && !has_findings(argv[i])) {
			if (walk(argv[i], 0, out))
				run__die_oom();
			continue;
		}
		snprintf(entry, sizeof(entry), "%c:%s", S_ISDIR(sb.st_mode) ? 'd' : 'f', argv[i]);
		if (strv__push(out, entry))
			run__die_oom();
	}
}

/* A file of the summary (NAME in dir), replaced atomically. 0 or -1 (said). */
static int write_output(const char *dir, const char *name, const struct strbuf *sb)
{
	char path[4200];
	int rc;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	rc = file__replace(path, sb->buf, sb->len, 0644);
	if (rc)
		fprintf(stderr, "sonde: writing %s: %s\n", path, strerror(-rc));
	return rc ? -1 : 0;
}

static int json_flush(void *arg, struct strbuf *out)
{
	int rc = fd__write_all(*(int *)arg, out->buf, out->len);

	out->len = 0;
	return rc;
}

/*
 * fleet.json into dir, written as it is made (a fleet's JSON can be larger
 * than any summary kept in memory) and, with print, copied from there to
 * stdout. 0 or -1 (said).
 */
static int write_json(const struct fleet *f, const char *dir, int print)
{
	char path[4200], tmp[4300], buf[65536];
	struct strbuf js = { 0 };
	int fd, rc;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/fleet.json", dir);
	fd = file__replace_open(path, tmp, sizeof(tmp));
	if (fd < 0) {
		fprintf(stderr, "sonde: writing %s: %s\n", path, strerror(-fd));
		return -1;
	}
	rc = fleet__json(f, &js, json_flush, &fd);
	strbuf__free(&js);
	if (rc == -ENOMEM)
		run__die_oom();
	if (!rc && print && lseek(fd, 0, SEEK_SET) == 0)
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			fwrite(buf, 1, (size_t)n, stdout);
	rc = file__replace_commit(fd, tmp, path, 0644, rc != 0) ?: rc;
	if (rc)
		fprintf(stderr, "sonde: writing %s: %s\n", path, strerror(-rc));
	return rc ? -1 : 0;
}

/*
 * Reading runs in a pool of worker processes, two per CPU (FLEET_MAX_JOBS at
 * most), forked once before the first bundle while this process is still
 * small: a fork copies the parent's page tables, and forking a worker per
 * bundle from a parent that grew with the summary cost more with every
 * bundle. A worker is sent a bundle's entry ("f:PATH" or "d:PATH",
 * length-prefixed) over its socket; it extracts, verifies and parses the
 * bundle (the parse of an untrusted document, and its memory, stay in the
 * worker) and answers, length-prefixed, 'O' and the bundle's record
 * (fleet__summarize) or 'E' and why it was refused. A worker that dies on a
 * bundle has the bundle refused and is replaced.
 */
#define FLEET_MAX_JOBS 8
#define FLEET_REPLY_MAX (16u << 20)
#define FLEET_ENTRY_MAX 4404 /* "f:" and a path of walk's 4400 bytes at most */
/* A worker returns its heap to the system after a bundle this large. */
#define FLEET_TRIM_BYTES (8u << 20)

struct worker {
	pid_t pid;
	int fd;            /* the socket to the worker, -1: none */
	const char *entry; /* the bundle it reads ("f:PATH" or "d:PATH"), NULL when idle */
	struct strbuf in;  /* its reply so far */
};

/* n bytes from fd; 0, or -1 at the end of the stream or on an error. */
static int read_full(int fd, void *buf, size_t n)
{
	for (size_t got = 0; got < n;) {
		ssize_t r = read(fd, (char *)buf + got, n - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

/* A tool's document: the first window's when it ran there, else the drill-down's. */
static const struct jval *tool_doc(const struct jval *first, const struct jval *drill)
{
	const char *st = jval__str(first, "status");

	if (first && st && !strcmp(st, "ok"))
		return first;
	return drill ? drill : first;
}

/* In the worker: a bundle's record ('O' ...) or why it is refused ('E' ...) into out. */
static void worker_read(const char *entry, struct strbuf *out, size_t *bytes)
{
	struct fleet_texts t = { 0 };
	struct jval *v[M_N] = { 0 };
	char err[1024], why[256];
	size_t start = out->len;
	int rc;

	*bytes = 0;
	rc = fleet_read_bundle(entry + 2, entry[0] == 'd', &t, err, sizeof(err));
	for (int k = 0; !rc && k < M_N; k++) {
		*bytes += t.len[k];
		if (t.text[k] && json_read(t.text[k], t.len[k], &json_read_default_limits, &v[k],
					   why, sizeof(why))) {
			snprintf(err, sizeof(err), "%s: %s", member_names[k], why);
			rc = -EINVAL;
		}
	}
	fleet_texts__free(&t);
	if (!rc) {
		struct fleet_members m = { v[M_FINDINGS], v[M_MANIFEST],
					   tool_doc(v[M_RUNQLAT], v[M_RUNQLAT_DD]),
					   tool_doc(v[M_BIOLATENCY], v[M_BIOLATENCY_DD]) };

		strbuf__append(out, "O", 1);
		rc = fleet__summarize(&m, out, err, sizeof(err));
	}
	for (int k = 0; k < M_N; k++)
		jval__free(v[k]);
	if (rc) {
		out->len = start;
		err[strcspn(err, "\n")] = '\0';
		strbuf__printf(out, "E%s", err);
	}
}

static void __attribute__((noreturn)) worker_main(int fd, pid_t parent)
{
	struct strbuf out = { 0 };
	char entry[FLEET_ENTRY_MAX + 1];
	uint64_t n;
	size_t bytes;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (getppid() != parent)
		_exit(1);
	while (!read_full(fd, &n, sizeof(n)) && n <= FLEET_ENTRY_MAX &&
	       !read_full(fd, entry, (size_t)n)) {
		entry[n] = '\0';
		out.len = 0;
		wire__put_u64(&out, 0); /* the length, filled in below */
		worker_read(entry, &out, &bytes);
		if (out.oom)
			_exit(1);
		n = out.len - sizeof(n);
		memcpy(out.buf, &n, sizeof(n));
		if (fd__write_all(fd, out.buf, out.len))
			_exit(1);
		if (out.cap > (1u << 20))
			strbuf__free(&out);
		if (bytes > FLEET_TRIM_BYTES)
			malloc_trim(0);
	}
	_exit(0);
}

static int worker_start(struct worker *w, const struct worker *all, size_t n)
{
	pid_t parent = getpid();
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -errno;
	fflush(NULL);
	w->pid = fork();
	if (w->pid < 0) {
		close(sv[0]);
		close(sv[1]);
		return -errno;
	}
	if (!w->pid) {
		/* the other workers' sockets: they must see their end when the parent closes it */
		for (size_t k = 0; k < n; k++)
			if (all[k].fd >= 0)
				close(all[k].fd);
		close(sv[0]);
		worker_main(sv[1], parent);
	}
	close(sv[1]);
	w->fd = sv[0];
	w->entry = NULL;
	w->in.len = 0;
	return 0;
}

/* The worker's end: its socket closed (it exits at the end of the stream), or killed. */
static void worker_stop(struct worker *w, int kill_it)
{
	if (w->fd < 0)
		return;
	if (kill_it)
		kill(w->pid, SIGKILL);
	close(w->fd);
	w->fd = -1;
	while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
		;
}

static int worker_send(struct worker *w, const char *entry)
{
	char msg[sizeof(uint64_t) + FLEET_ENTRY_MAX];
	uint64_t n = strlen(entry);
	size_t len = sizeof(n) + n;

	if (n > FLEET_ENTRY_MAX)
		return -ENAMETOOLONG;
	memcpy(msg, &n, sizeof(n));
	memcpy(msg + sizeof(n), entry, n);
	for (size_t done = 0; done < len;) {
		ssize_t r = send(w->fd, msg + done, len - done, MSG_NOSIGNAL);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		done += (size_t)r;
	}
	w->entry = entry;
	return 0;
}

/* A bundle not read: said on stderr (its name and the reason cleaned) and listed. */
static void refuse(struct fleet *f, const char *entry, const char *why)
{
	fputs("sonde: ", stderr);
	tty__puts(stderr, entry + 2);
	fputs(": ", stderr);
	tty__puts(stderr, why);
	fputc('\n', stderr);
	if (fleet__refused(f, entry + 2, why))
		run__die_oom();
}

/* A worker's whole reply: its bundle into f, or refused. */
static void worker_reply(struct fleet *f, struct worker *w)
{
	const char *p = w->in.buf + sizeof(uint64_t);
	size_t n = w->in.len - sizeof(uint64_t);
	char err[1024];
	int rc = -EINVAL;

	if (n && p[0] == 'O')
		rc = fleet__add(f, w->entry + 2, p + 1, n - 1, err, sizeof(err));
	else if (n && p[0] == 'E')
		snprintf(err, sizeof(err), "%.*s", (int)(n - 1), p + 1);
	else
		snprintf(err, sizeof(err), "the worker's reply is malformed");
	if (rc == -ENOMEM)
		run__die_oom();
	if (rc)
		refuse(f, w->entry, err);
	w->entry = NULL;
	w->in.len = 0;
	if (w->in.cap > (1u << 20))
		strbuf__free(&w->in);
}

/* What came from worker w: 1 when its reply is whole (or it died: refused, stopped), else 0. */
static int worker_input(struct fleet *f, struct worker *w, const char *buf, ssize_t n)
{
	uint64_t len;

	if (n > 0 && w->in.len + (size_t)n <= FLEET_REPLY_MAX + sizeof(len)) {
		strbuf__append(&w->in, buf, (size_t)n);
		if (w->in.oom)
			run__die_oom();
		if (w->in.len < sizeof(len))
			return 0;
		memcpy(&len, w->in.buf, sizeof(len));
		if (len > FLEET_REPLY_MAX || w->in.len > len + sizeof(len)) {
			refuse(f, w->entry, "the worker's reply is malformed");
		} else if (w->in.len < len + sizeof(len)) {
			return 0;
		} else {
			worker_reply(f, w);
			return 1;
		}
	} else {
		refuse(f, w->entry, n > 0 ? "the worker's reply is too large" :
			   "the worker reading it ended early (killed, or out of memory)");
	}
	w->entry = NULL;
	worker_stop(w, 1);
	return 1;
}

/* Every bundle into f, read by njobs workers. */
static void read_all(struct fleet *f, const struct strv *bundles, size_t njobs)
{
	struct worker w[FLEET_MAX_JOBS];
	struct pollfd pfd[FLEET_MAX_JOBS];
	size_t next = 0, busy = 0;
	char buf[65536];

	memset(w, 0, sizeof(w));
	for (size_t k = 0; k < njobs; k++)
		w[k].fd = -1;
	while (next < bundles->n || busy) {
		for (size_t k = 0; k < njobs && next < bundles->n; k++) {
			if (w[k].entry)
				continue;
			/* a worker that died since its last bundle is replaced, once */
			if ((w[k].fd < 0 && worker_start(&w[k], w, njobs)) ||
			    (worker_send(&w[k], bundles->v[next]) &&
			     (worker_stop(&w[k], 1), worker_start(&w[k], w, njobs) ||
			      worker_send(&w[k], bundles->v[next])))) {
				fprintf(stderr, "sonde: cannot start a worker: %s\n",
					strerror(errno));
				exit(EXIT_RUN_FAILED);
			}
			next++;
			busy++;
		}
		for (size_t k = 0; k < njobs; k++)
			pfd[k] = (struct pollfd){ .fd = w[k].entry ? w[k].fd : -1,
						  .events = POLLIN };
		if (poll(pfd, njobs, -1) < 0 && errno != EINTR)
			run__die_oom();
		for (size_t k = 0; k < njobs; k++) {
			ssize_t n;

			if (!w[k].entry || !(pfd[k].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = read(w[k].fd, buf, sizeof(buf));
			if (n < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			busy -= (size_t)worker_input(f, &w[k], buf, n);
		}
	}
	for (size_t k = 0; k < njobs; k++) {
		if (w[k].fd >= 0)
			close(w[k].fd); /* all at once: the workers end together */
		strbuf__free(&w[k].in);
	}
	for (size_t k = 0; k < njobs; k++)
		while (w[k].pid > 0 && waitpid(w[k].pid, NULL, 0) < 0 && errno == EINTR)
			;
}

int cmd_fleet(int argc, char **argv)
{
	const char *cmd = "fleet", *tmp = getenv("TMPDIR");
	struct fleet_opts o = { .fail_on = ST_OK };
	struct strbuf md = { 0 }, html = { 0 };
	struct strv bundles = { 0 };
	struct fleet *f;
	struct doc d;
	char what[1024];
	size_t njobs;
	int idx, code;

	idx = cmd__parse(cmd, &cmd_fleet_help, &o, argc, argv);
	if (idx >= argc)
		run__die_usage(cmd, "which bundles? sonde fleet DIR|BUNDLE...");
	if (o.json && o.md)
		run__die_usage(cmd, "--json or --md, not both");
	if (!o.out_dir)
		o.out_dir = ".";
	run_plan__check_out_dir(cmd, o.out_dir);
	find_bundles(argc - idx, argv + idx, &bundles);
	if (!bundles.n)
		run__die_usage(cmd, "no bundle (sonde-*.tar.xz) under %s", argv[idx]);
	f = fleet__new((int64_t)time(NULL), tmp && *tmp ? tmp : "/tmp");
	if (!f)
		run__die_oom();
	/* two per CPU: a worker waits for the disk as much as it decompresses */
	njobs = 2 * (size_t)sysconf(_SC_NPROCESSORS_ONLN);
	njobs = njobs < 2 ? 2 : njobs > FLEET_MAX_JOBS ? FLEET_MAX_JOBS : njobs;
	read_all(f, &bundles, njobs);
	doc__init(&d, "sonde fleet summary");
	if (fleet__finish(f) || fleet__doc(f, &d) || doc__markdown(&d, &md) ||
	    doc__html(&d, &html))
		run__die_oom();
	doc__free(&d);
	code = fleet__bundles_read(f) ? 0 : EXIT_RUN_FAILED;
	if (write_output(o.out_dir, "fleet.md", &md) ||
	    write_output(o.out_dir, "fleet.html", &html))
		code = EXIT_RUN_FAILED;
	strbuf__free(&html);
	if (o.md)
		fwrite(md.buf, 1, md.len, stdout);
	strbuf__free(&md);
	if (write_json(f, o.out_dir, o.json))
		code = EXIT_RUN_FAILED;
	if (!o.json && !o.md) {
		fleet__terminal(f, stdout);
		printf("\nWritten: %s/fleet.md, fleet.html, fleet.json\n", o.out_dir);
	}
	if (!code) {
		enum status worst = fleet__worst(f, what, sizeof(what));

		code = run_finish__fail_on(o.fail_on, worst, what);
	}
	if (!fleet__bundles_read(f))
		fprintf(stderr, "sonde: none of the %zu bundles could be read\n", bundles.n);
	strv__free(&bundles);
	fleet__free(f);
	return code;
}
