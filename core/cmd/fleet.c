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
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bundle/read.h"
#include "cmd/cmd.h"
#include "report/fleet.h"
#include "run/run.h"
#include "util/embedded.h"
#include "util/file.h"
#include "util/json_read.h"
#include "util/sha256.h"
#include "util/strv.h"
#include "util/tty.h"

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
		"sonde-*.tar.xz (.gz, .zst) bundles and extracted ones, as\n"
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
	char dir[4096], file[4400];
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

static int is_bundle_name(const char *name)
{
	static const char *const ext[] = { ".tar.xz", ".tar.gz", ".tgz", ".tar.zst" };
	size_t n = strlen(name);

	if (name[0] == '.')
		return 0; /* a temporary being written (bundle__write's .NAME.tmp) */
	for (size_t i = 0; i < sizeof(ext) / sizeof(*ext); i++)
		if (n > strlen(ext[i]) && !strcmp(name + n - strlen(ext[i]), ext[i]))
			return 1;
	return 0;
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
		if (S_ISREG(sb.st_mode) && is_bundle_name(names.v[i])) {
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

/* fleet.md, fleet.html, fleet.json into dir, each replaced atomically. 0 or -1 (said). */
static int write_outputs(const char *dir, const struct strbuf *md, const struct strbuf *html,
			 const struct strbuf *js)
{
	const struct { const char *name; const struct strbuf *sb; } files[] = {
		{ "fleet.md", md }, { "fleet.html", html }, { "fleet.json", js },
	};

	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
		char path[4200];
		int rc;

		snprintf(path, sizeof(path), "%s/%s", dir, files[i].name);
		rc = file__replace(path, files[i].sb->buf, files[i].sb->len, 0644);
		if (rc) {
			fprintf(stderr, "sonde: writing %s: %s\n", path, strerror(-rc));
			return -1;
		}
	}
	return 0;
}

/*
 * Reading runs in worker processes, one per bundle and up to two per CPU at
 * a time (FLEET_MAX_JOBS at most): each extracts, verifies and reads its
 * bundle and sends the members back through a pipe ("OK\n", then per member
 * its length or -1 and its bytes; or "ERR reason\n"). The summaries are made
 * here, one bundle at a time, so only the bundles in flight are in memory.
 */
#define FLEET_MAX_JOBS 8
#define FLEET_JOB_OUTPUT_MAX (200u << 20)

struct job {
	pid_t pid;
	int fd;
	const char *entry; /* "f:PATH" or "d:PATH" */
	struct strbuf out;
};

static void __attribute__((noreturn)) job_child(const char *entry, int fd)
{
	struct fleet_texts t = { 0 };
	char err[1024], head[32];

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (fleet_read_bundle(entry + 2, entry[0] == 'd', &t, err, sizeof(err))) {
		err[strcspn(err, "\n")] = '\0';
		_exit(fd__write_all(fd, "ERR ", 4) || fd__write_all(fd, err, strlen(err)) ||
		      fd__write_all(fd, "\n", 1));
	}
	if (fd__write_all(fd, "OK\n", 3))
		_exit(1);
	for (int k = 0; k < M_N; k++) {
		int n = snprintf(head, sizeof(head), "%lld\n",
				 t.text[k] ? (long long)t.len[k] : -1LL);

		if (fd__write_all(fd, head, (size_t)n) ||
		    (t.text[k] && fd__write_all(fd, t.text[k], t.len[k])))
			_exit(1);
	}
	_exit(0);
}

static int job_start(struct job *j, const char *entry)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	fflush(NULL);
	j->pid = fork();
	if (j->pid < 0) {
		close(p[0]);
		close(p[1]);
		return -errno;
	}
	if (!j->pid) {
		close(p[0]);
		job_child(entry, p[1]);
	}
	close(p[1]);
	j->fd = p[0];
	j->entry = entry;
	j->out.len = 0;
	return 0;
}

/* A worker's output as members (taken over into t), or -EINVAL with the reason. */
static int job_decode(struct job *j, struct fleet_texts *t, char *err, size_t errlen)
{
	const char *p = j->out.buf ? j->out.buf : "", *end = p + j->out.len;

	if (j->out.len > 4 && !strncmp(p, "ERR ", 4)) {
		snprintf(err, errlen, "%.*s", (int)strcspn(p + 4, "\n"), p + 4);
		return -EINVAL;
	}
	if (j->out.len < 3 || strncmp(p, "OK\n", 3))
		goto truncated;
	p += 3;
	for (int k = 0; k < M_N; k++) {
		char *nl;
		long long n = strtoll(p, &nl, 10);

		if (nl >= end || *nl != '\n' || n < -1 || n > end - nl - 1)
			goto truncated;
		p = nl + 1;
		if (n < 0)
			continue;
		t->text[k] = malloc((size_t)n + 1);
		if (!t->text[k])
			run__die_oom();
		memcpy(t->text[k], p, (size_t)n);
		t->text[k][n] = '\0';
		t->len[k] = (size_t)n;
		p += n;
	}
	return 0;
truncated:
	fleet_texts__free(t);
	snprintf(err, errlen, "the worker reading it ended early (killed, or out of memory)");
	return -EINVAL;
}

/* A tool's document: the first window's when it ran there, else the drill-down's. */
static const struct jval *tool_doc(const struct jval *first, const struct jval *drill)
{
	const char *st = jval__str(first, "status");

	if (first && st && !strcmp(st, "ok"))
		return first;
	return drill ? drill : first;
}

/* A bundle's members into f: parsed as untrusted JSON, then summarized. */
static int add_bundle(struct fleet *f, const char *path, struct fleet_texts *t, char *err,
		      size_t errlen)
{
	struct jval *v[M_N] = { 0 };
	char why[256];
	int rc = 0;

	for (int k = 0; !rc && k < M_N; k++)
		if (t->text[k] && json_read(t->text[k], t->len[k], &json_read_default_limits, &v[k],
					    why, sizeof(why))) {
			snprintf(err, errlen, "%s: %s", member_names[k], why);
			rc = -EINVAL;
		}
	if (!rc) {
		struct fleet_members m = { v[M_FINDINGS], v[M_MANIFEST],
					   tool_doc(v[M_RUNQLAT], v[M_RUNQLAT_DD]),
					   tool_doc(v[M_BIOLATENCY], v[M_BIOLATENCY_DD]) };

		rc = fleet__add(f, path, &m, err, errlen);
		if (rc == -ENOMEM)
			run__die_oom();
	}
	for (int k = 0; k < M_N; k++)
		jval__free(v[k]);
	return rc;
}

/* A worker has finished: its bundle into f, or refused (said on stderr too). */
static void job_finish(struct fleet *f, struct job *j)
{
	struct fleet_texts t = { 0 };
	char err[1024];
	int st = 0, rc;

	close(j->fd);
	j->fd = -1;
	while (waitpid(j->pid, &st, 0) < 0 && errno == EINTR)
		;
	rc = job_decode(j, &t, err, sizeof(err));
	if (!rc)
		rc = add_bundle(f, j->entry + 2, &t, err, sizeof(err));
	fleet_texts__free(&t);
	if (rc) {
		/* a file name from the directory, a reason naming the bundle's text: cleaned */
		fputs("sonde: ", stderr);
		tty__puts(stderr, j->entry + 2);
		fputs(": ", stderr);
		tty__puts(stderr, err);
		fputc('\n', stderr);
		if (fleet__refused(f, j->entry + 2, err))
			run__die_oom();
	}
}

/* Every bundle into f, up to njobs read at a time. */
static void read_all(struct fleet *f, const struct strv *bundles, size_t njobs)
{
	struct job jobs[FLEET_MAX_JOBS];
	struct pollfd pfd[FLEET_MAX_JOBS];
	size_t next = 0, running = 0;
	char buf[65536];

	memset(jobs, 0, sizeof(jobs));
	for (size_t k = 0; k < njobs; k++)
		jobs[k].fd = -1;
	while (next < bundles->n || running) {
		for (size_t k = 0; k < njobs && next < bundles->n; k++)
			if (jobs[k].fd < 0) {
				if (job_start(&jobs[k], bundles->v[next])) {
					fprintf(stderr, "sonde: cannot start a worker: %s\n",
						strerror(errno));
					exit(EXIT_RUN_FAILED);
				}
				next++;
				running++;
			}
		for (size_t k = 0; k < njobs; k++)
			pfd[k] = (struct pollfd){ .fd = jobs[k].fd, .events = POLLIN };
		if (poll(pfd, njobs, -1) < 0 && errno != EINTR)
			run__die_oom();
		for (size_t k = 0; k < njobs; k++) {
			ssize_t n;

			if (jobs[k].fd < 0 || !(pfd[k].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = read(jobs[k].fd, buf, sizeof(buf));
			if (n < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (n > 0 && jobs[k].out.len + (size_t)n <= FLEET_JOB_OUTPUT_MAX) {
				strbuf__append(&jobs[k].out, buf, (size_t)n);
				if (jobs[k].out.oom)
					run__die_oom();
				continue;
			}
			if (n > 0) /* more than any bundle's members: cut, refused as truncated */
				kill(jobs[k].pid, SIGKILL);
			job_finish(f, &jobs[k]);
			running--;
		}
	}
	for (size_t k = 0; k < njobs; k++)
		strbuf__free(&jobs[k].out);
}

int cmd_fleet(int argc, char **argv)
{
	const char *cmd = "fleet";
	struct fleet_opts o = { .fail_on = ST_OK };
	const struct embedded_file *css = embedded__find("reports/report.css");
	struct strbuf md = { 0 }, html = { 0 }, js = { 0 };
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
	f = fleet__new((int64_t)time(NULL));
	if (!f)
		run__die_oom();
	/* two per CPU: a worker waits for the disk as much as it decompresses */
	njobs = 2 * (size_t)sysconf(_SC_NPROCESSORS_ONLN);
	njobs = njobs < 2 ? 2 : njobs > FLEET_MAX_JOBS ? FLEET_MAX_JOBS : njobs;
	read_all(f, &bundles, njobs);
	doc__init(&d, "sonde fleet summary");
	if (fleet__finish(f) || fleet__doc(f, &d) || doc__markdown(&d, &md) ||
	    doc__html(&d, css ? css->data : "", &html) || fleet__json(f, &js))
		run__die_oom();
	code = fleet__bundles_read(f) ? 0 : EXIT_RUN_FAILED;
	if (write_outputs(o.out_dir, &md, &html, &js))
		code = EXIT_RUN_FAILED;
	if (o.json)
		fwrite(js.buf, 1, js.len, stdout);
	else if (o.md)
		fwrite(md.buf, 1, md.len, stdout);
	else {
		fleet__terminal(f, stdout);
		printf("\nWritten: %s/fleet.md, fleet.html, fleet.json\n", o.out_dir);
	}
	if (!code) {
		enum status worst = fleet__worst(f, what, sizeof(what));

		code = run_finish__fail_on(o.fail_on, worst, what);
	}
	if (!fleet__bundles_read(f))
		fprintf(stderr, "sonde: none of the %zu bundles could be read\n", bundles.n);
	doc__free(&d);
	strbuf__free(&md);
	strbuf__free(&html);
	strbuf__free(&js);
	strv__free(&bundles);
	fleet__free(f);
	return code;
}
