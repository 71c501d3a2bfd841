// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sonde: the command line. One static table of commands; each command parses
 * its own options. Exit status: 0 the run completed (whatever it found),
 * 1 the run failed, 2 usage error, 3 a finding reached --fail-on.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "collect/analysis.h"
#include "bundle/bundle.h"
#include "bundle/read.h"
#include "bundle/diff.h"
#include "util/embedded.h"
#include "util/file.h"
#include "util/json_read.h"
#include "collect/collect.h"
#include "perf/counters.h"
#include "trace/trace.h"
#include "lua/engine.h"
#include "util/json.h"
#include "bundle/redact.h"
#include "report/report.h"

#define EXIT_RUN_FAILED 1
#define EXIT_USAGE 2
#define EXIT_FAIL_ON 3
#define MANIFEST_SCHEMA "sonde.manifest/1"

static volatile sig_atomic_t stop_requested;

/* A second signal, or any after the window: leave at once, without a half-written bundle. */
static void on_abort_signal(int sig)
{
	bundle__abort_cleanup();
	_exit(128 + sig);
}

static void set_signal_handler(void (*fn)(int))
{
	struct sigaction sa = { 0 };

	sa.sa_handler = fn;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/*
 * sonde runs on hosts that are already in trouble: by default it yields the
 * CPU (nice 10) and the disk (the idle I/O class: its reads of /proc cost no
 * disk I/O, but writing the bundle does). Failures are ignored: a container
 * may forbid ioprio_set, and that only means sonde keeps its priority.
 */
#define SONDE_NICE 10
#define IOPRIO_CLASS_IDLE 3
#define IOPRIO_CLASS_SHIFT 13
#define IOPRIO_WHO_PROCESS 1

static void lower_priority(void)
{
	errno = 0;
	if (nice(SONDE_NICE) == -1 && errno)
		return;
	syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, IOPRIO_CLASS_IDLE << IOPRIO_CLASS_SHIFT);
}

/* First Ctrl-C/TERM during the window: end it early; the next one aborts. */
static void on_stop_signal(int sig)
{
	stop_requested = STOP_SIGNAL;
	set_signal_handler(on_abort_signal);
}

/*
 * --timeout: the run's deadline, kept by SIGALRM from outside the work it
 * bounds. In the window it ends the window (the checks run on what was
 * captured); later, the run stops at once and keeps its captures, named in the
 * message, so nothing gathered is lost.
 */
static volatile sig_atomic_t in_window;
static char deadline_msg[4400];
static size_t deadline_msg_len;

static void on_deadline(int sig)
{
	ssize_t w;

	if (in_window) {
		stop_requested = STOP_DEADLINE;
		return;
	}
	bundle__abort_cleanup();
	w = write(STDERR_FILENO, deadline_msg, deadline_msg_len);
	(void)w;
	_exit(EXIT_RUN_FAILED);
}

/*
 * Staging directories (.sonde-run-PID-XXXXXX) and bundle temporaries
 * (.NAME.tmp.PID) left in dir by a run that was killed: removed when that
 * process is gone.
 */
static void remove_stale(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		const char *p = NULL;
		char path[4096];
		long pid;

		if (!strncmp(de->d_name, ".sonde-run-", 11))
			p = de->d_name + 11;
		else if (!strncmp(de->d_name, ".sonde-", 7) && strstr(de->d_name, ".tmp."))
			p = strstr(de->d_name, ".tmp.") + 5;
		if (!p || (pid = strtol(p, NULL, 10)) <= 0)
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		bundle__remove_tree(path);
	}
	closedir(d);
}

static void die_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void die_usage(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fputs("sonde: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	/* One hint per line: a message that already points somewhere keeps its own. */
	if (!strstr(fmt, "(see "))
		fprintf(stderr, " (see 'sonde %s%s--help')", cmd ? cmd : "", cmd ? " " : "");
	fputc('\n', stderr);
	exit(EXIT_USAGE);
}

/* ---- options shared by run and analyze ---- */

struct opts {
	const char *cmd;
	double window_s, interval_s;
	const char *out_dir;
	const char *checks_dir;
	const char *root;
	int json, md, html;
	int normal_priority; /* --priority normal: do not lower sonde's CPU and I/O priority */
	int redact;
	int no_bpf;          /* --no-bpf: no BPF tool is loaded; their cells are known unknowns */
	double max_overhead_pct; /* the overhead guard's budget, % of the host's CPU; 0: off */
	double timeout_s;    /* --timeout: the run's deadline; 0 until defaulted */
	int no_drilldown;    /* --no-drilldown */
	double drill_window_s; /* the second window: half the first, at least 2 s */
	int live;            /* `run`: the host is here (drill-down can observe) */
	const char *methodology; /* --methodology: only this one's checks */
	int no_perf;         /* --no-perf: no perf_event counter is opened (perf.counters) */
	enum status fail_on; /* ST_OK: never */
	struct strv only_checks, tags, sets;
	int progress; /* -1 auto */
	int progress_shown;
	char *command_line;
};

static void die_oom(void)
{
	fprintf(stderr, "sonde: out of memory\n");
	exit(EXIT_RUN_FAILED);
}

static double parse_seconds(const char *cmd, const char *opt, const char *s, double max)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(v))
		die_usage(cmd, "%s '%s': not a number of seconds", opt, s);
	if (v <= 0)
		die_usage(cmd, "%s %s: must be more than 0 seconds", opt, s);
	if (v > max)
		die_usage(cmd, "%s %s: at most %g seconds", opt, s, max);
	return v;
}

static char *join_argv(int argc, char **argv)
{
	struct strbuf sb = { 0 };

	for (int i = 0; i < argc; i++) {
		if (i)
			strbuf__puts(&sb, " ");
		strbuf__puts(&sb, argv[i]);
	}
	return sb.buf ? sb.buf : strdup("");
}

enum { OPT_SET = 256, OPT_ROOT, OPT_NO_PROGRESS, OPT_PROGRESS, OPT_MD, OPT_HTML, OPT_PRIORITY, OPT_NO_BPF,
       OPT_MAX_OVERHEAD, OPT_TIMEOUT, OPT_NO_DRILLDOWN, OPT_METHODOLOGY, OPT_NO_PERF };

static const struct option long_opts[] = {
	{ "window", required_argument, NULL, 'w' },
	{ "interval", required_argument, NULL, 'i' },
	{ "out", required_argument, NULL, 'o' },
	{ "json", no_argument, NULL, 'j' },
	{ "fail-on", required_argument, NULL, 'f' },
	{ "checks", required_argument, NULL, 'C' },
	{ "check", required_argument, NULL, 'c' },
	{ "tag", required_argument, NULL, 't' },
	{ "set", required_argument, NULL, OPT_SET },
	{ "root", required_argument, NULL, OPT_ROOT },
	{ "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
	{ "progress", no_argument, NULL, OPT_PROGRESS },
	{ "md", no_argument, NULL, OPT_MD },
	{ "html", no_argument, NULL, OPT_HTML },
	{ "redact", no_argument, NULL, 'r' },
	{ "priority", required_argument, NULL, OPT_PRIORITY },
	{ "no-bpf", no_argument, NULL, OPT_NO_BPF },
	{ "max-overhead", required_argument, NULL, OPT_MAX_OVERHEAD },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "no-drilldown", no_argument, NULL, OPT_NO_DRILLDOWN },
	{ "methodology", required_argument, NULL, OPT_METHODOLOGY },
	{ "no-perf", no_argument, NULL, OPT_NO_PERF },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse_opts(struct opts *o, int argc, char **argv, const char *allowed,
		      void (*help)(void))
{
	int c;

	o->window_s = 10;
	o->interval_s = 1;
	o->out_dir = NULL;
	o->progress = -1;
	o->fail_on = ST_OK;
	o->max_overhead_pct = 2;
	optind = 1;
	opterr = 0;
	for (;;) {
		int li = -1;
		char optname[32];

		c = getopt_long(argc, argv, "w:i:o:jf:C:c:t:h", long_opts, &li);
		if (c == -1)
			break;
		if (li >= 0)
			snprintf(optname, sizeof(optname), "--%s", long_opts[li].name);
		else
			snprintf(optname, sizeof(optname), "-%c", c);
		if (c != '?' && c != 'h' && c < 256 && !strchr(allowed, c))
			die_usage(o->cmd, "'sonde %s' does not take %s", o->cmd, optname);
		switch (c) {
		case 'w':
			o->window_s = parse_seconds(o->cmd, "--window", optarg, 3600);
			break;
		case 'i':
			o->interval_s = parse_seconds(o->cmd, "--interval", optarg, 3600);
			break;
		case 'o':
			o->out_dir = optarg;
			break;
		case 'j':
			o->json = 1;
			break;
		case 'r':
			o->redact = 1;
			break;
		case 'f':
			if (!strcmp(optarg, "warn"))
				o->fail_on = ST_WARN;
			else if (!strcmp(optarg, "crit"))
				o->fail_on = ST_CRIT;
			else
				die_usage(o->cmd, "--fail-on '%s': expected warn or crit", optarg);
			break;
		case 'C':
			o->checks_dir = optarg;
			break;
		case 'c':
			if (strv__push(&o->only_checks, optarg))
				die_oom();
			break;
		case 't':
			if (strv__push(&o->tags, optarg))
				die_oom();
			break;
		case OPT_SET:
			if (strv__push(&o->sets, optarg))
				die_oom();
			break;
		case OPT_ROOT:
			o->root = optarg;
			break;
		case OPT_NO_PROGRESS:
			o->progress = 0;
			break;
		case OPT_NO_BPF:
			o->no_bpf = 1;
			break;
		case OPT_NO_DRILLDOWN:
			o->no_drilldown = 1;
			break;
		case OPT_METHODOLOGY:
			o->methodology = optarg;
			break;
		case OPT_TIMEOUT:
			o->timeout_s = parse_seconds(o->cmd, "--timeout", optarg, 86400);
			break;
		case OPT_MAX_OVERHEAD: {
			char *end;

			errno = 0;
			o->max_overhead_pct = strtod(optarg, &end);
			if (end == optarg || (*end && strcmp(end, "%")) || errno ||
			    !isfinite(o->max_overhead_pct) || o->max_overhead_pct < 0 ||
			    o->max_overhead_pct > 100)
				die_usage(o->cmd, "--max-overhead '%s': a percentage from 0 (no guard) "
						  "to 100", optarg);
			break;
		}
		case OPT_NO_PERF:
			o->no_perf = 1;
			break;
		case OPT_PROGRESS:
			o->progress = 1;
			break;
		case OPT_PRIORITY:
			if (!strchr(allowed, 'P'))
				die_usage(o->cmd, "'sonde %s' does not take --priority", o->cmd);
			if (!strcmp(optarg, "normal"))
				o->normal_priority = 1;
			else if (!strcmp(optarg, "low"))
				o->normal_priority = 0;
			else
				die_usage(o->cmd, "--priority '%s': expected low or normal", optarg);
			break;
		case OPT_HTML:
			if (!strchr(allowed, 'H'))
				die_usage(o->cmd, "'sonde %s' does not take --html", o->cmd);
			o->html = 1;
			break;
		case OPT_MD:
			if (!strchr(allowed, 'm'))
				die_usage(o->cmd, "'sonde %s' does not take --md", o->cmd);
			o->md = 1;
			break;
		case 'h':
			help();
			exit(0);
		default:
			if (optopt && strchr("wiofCct", optopt))
				die_usage(o->cmd, "%s needs a value", argv[optind - 1]);
			die_usage(o->cmd, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (o->interval_s > o->window_s)
		die_usage(o->cmd, "--interval %g is longer than --window %g", o->interval_s,
			  o->window_s);
	if (o->window_s / o->interval_s > 100000)
		die_usage(o->cmd, "--interval %g: more than 100000 samples in the window",
			  o->interval_s);
	return optind;
}

static void check_out_dir(const struct opts *o, const char *dir)
{
	struct stat sb;

	if (stat(dir, &sb))
		die_usage(o->cmd, "--out %s: %s", dir, strerror(errno));
	if (!S_ISDIR(sb.st_mode))
		die_usage(o->cmd, "--out %s: not a directory", dir);
	if (access(dir, W_OK | X_OK))
		die_usage(o->cmd, "--out %s: not writable: %s", dir, strerror(errno));
}

static void load_catalog(struct opts *o, struct catalog *cat)
{
	char err[1024];

	if (catalog__load(cat, o->checks_dir, err, sizeof(err))) {
		fprintf(stderr, "sonde: %s\n", err);
		exit(EXIT_USAGE);
	}
	for (size_t i = 0; i < o->sets.n; i++)
		if (catalog__set_arg(cat, o->sets.v[i], err, sizeof(err)))
			die_usage(o->cmd, "%s", err);
}

/* The checks this run executes, in catalog (run) order. */
/* Does a drill-down rule fire on this check? */
static int is_trigger(const struct catalog *cat, const char *id)
{
	for (size_t m = 0; m < cat->nmeth; m++)
		for (size_t k = 0; k < cat->meth[m].nrules; k++)
			if (!strcmp(cat->meth[m].rules[k].trigger, id))
				return 1;
	return 0;
}

static const struct check_def **select_checks(struct opts *o, const struct catalog *cat, size_t *n)
{
	if (o->methodology && !catalog__methodology(cat, o->methodology))
		die_usage(o->cmd, "--methodology %s: no such methodology (use, workload, drilldown)",
			  o->methodology);
	const struct check_def **sel = calloc(cat->nchecks + 1, sizeof(*sel));

	*n = 0;
	if (!sel)
		return NULL;
	for (size_t i = 0; i < o->only_checks.n; i++)
		if (!catalog__check(cat, o->only_checks.v[i]))
			die_usage(o->cmd, "--check %s: no such check (see 'sonde list')",
				  o->only_checks.v[i]);
	for (size_t i = 0; i < cat->nchecks; i++) {
		const struct check_def *d = &cat->checks[i];
		int take;

		if (o->only_checks.n)
			take = strv__has(&o->only_checks, d->id);
		else if (o->tags.n) {
			take = 0;
			for (size_t k = 0; k < o->tags.n; k++)
				take |= strv__has(&d->tags, o->tags.v[k]);
		} else
			take = strv__has(&d->tags, "default") || d->user;
		/* drill-down checks run only when a rule calls for them (drill_down) */
		if (!o->only_checks.n && !strcmp(d->methodology, "drilldown"))
			take = 0;
		if (take && o->methodology && strcmp(o->methodology, "drilldown"))
			take = !strcmp(d->methodology, o->methodology);
		else if (take && o->methodology)
			take = is_trigger(cat, d->id);
		if (take)
			sel[(*n)++] = d;
	}
	if (!*n)
		die_usage(o->cmd, "no check selected");
	return sel;
}

/* ---- writing the bundle ---- */

static int write_file(const char *dir, const char *name, const char *data, size_t len)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return file__write_all(path, data, len);
}

static int copy_file(const char *src, const char *dst)
{
	char buf[65536];
	int in, out, err = 0;
	ssize_t n;

	in = open(src, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (in < 0)
		return -errno;
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (out < 0) {
		err = -errno;
		close(in);
		return err;
	}
	while ((n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		if ((err = fd__write_all(out, buf, (size_t)n)))
			break;
	}
	if (close(out) && !err)
		err = -errno;
	close(in);
	return err;
}

static int write_manifest(const char *stage, const struct run_report *rr, char *err, size_t errlen)
{
	struct bundle_list bl = { 0 };
	struct json j = { .pretty = 1 };
	const struct analysis *an = rr->an;
	char t[64];
	int rc;

	rc = bundle__scan(stage, &bl);
	if (rc) {
		snprintf(err, errlen, "listing %s: %s", stage, strerror(-rc));
		return rc;
	}
	json__begin_object(&j);
	json__key(&j, "schema");
	json__string(&j, MANIFEST_SCHEMA);
	json__key(&j, "sonde_version");
	json__string(&j, SONDE_VERSION);
	json__key(&j, "command");
	json__string(&j, rr->command ? rr->command : "");
	json__key(&j, "host");
	json__begin_object(&j);
	json__key(&j, "hostname");
	json__string(&j, an->hostname);
	json__key(&j, "kernel");
	json__string(&j, an->kernel);
	json__key(&j, "cpus");
	json__int(&j, an->cpus);
	json__key(&j, "mem_total_bytes");
	json__int(&j, (int64_t)an->mem_total);
	json__key(&j, "virtualization");
	if (an->virt[0])
		json__string(&j, an->virt);
	else
		json__null(&j);
	json__end_object(&j);
	clock__iso8601(an->start_wall_ns, t, sizeof(t), 0);
	json__key(&j, "start");
	json__string(&j, t);
	clock__iso8601(an->end_wall_ns, t, sizeof(t), 0);
	json__key(&j, "end");
	json__string(&j, t);
	json__key(&j, "partial");
	json__bool(&j, an->partial);
	json__key(&j, "files");
	json__begin_array(&j);
	for (size_t i = 0; i < bl.n; i++) {
		json__begin_object(&j);
		json__key(&j, "path");
		json__string(&j, bl.m[i].path);
		json__key(&j, "size");
		json__int(&j, (int64_t)bl.m[i].size);
		json__key(&j, "sha256");
		json__string(&j, bl.m[i].sha256);
		json__end_object(&j);
	}
	json__end_array(&j);
	json__end_object(&j);
	strbuf__puts(&j.out, "\n");
	bundle_list__free(&bl);
	rc = j.out.oom ? -ENOMEM : write_file(stage, "manifest.json", j.out.buf, j.out.len);
	if (rc)
		snprintf(err, errlen, "writing manifest.json: %s", strerror(-rc));
	strbuf__free(&j.out);
	return rc;
}

/* Host names become part of a file name: keep [A-Za-z0-9.-] only. */
static void bundle_path(const char *dir, const struct analysis *an, char *out, size_t len)
{
	char host[64], t[32];
	size_t k = 0;

	for (const char *p = an->hostname; *p && k + 1 < sizeof(host); p++)
		host[k++] = ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			     (*p >= '0' && *p <= '9') || *p == '.' || *p == '-') ? *p : '_';
	host[k] = '\0';
	if (!k)
		snprintf(host, sizeof(host), "unknown");
	clock__iso8601(an->start_wall_ns, t, sizeof(t), 1);
	/* A clash with an existing bundle is resolved when it is published (bundle__write). */
	snprintf(out, len, "%s/sonde-%s-%s.tar.xz", dir, host, t);
}

/* ---- analysis shared by run and analyze ---- */

struct outcome {
	struct run_report rr;
	struct report_model *report; /* built once from rr by write_reports */
	struct analysis drill_an;
	int drill_open;
	struct check_result *res;
	char bundle[4096];
	char map[4200]; /* the redaction map next to the bundle (--redact) */
};

static void run_checks(const struct catalog *cat, const struct check_def **sel, size_t nsel,
		       struct analysis *an, struct outcome *oc)
{
	oc->res = calloc(nsel + 1, sizeof(*oc->res));
	if (!oc->res) {
		fprintf(stderr, "sonde: out of memory\n");
		exit(EXIT_RUN_FAILED);
	}
	for (size_t i = 0; i < nsel; i++)
		engine__run_check(cat, sel[i], an, &engine_default_limits, &oc->res[i]);
	oc->rr.cat = cat;
	oc->rr.an = an;
	oc->rr.res = oc->res;
	oc->rr.nres = nsel;
	report__rank(&oc->rr);
}

/* sonde and the processes its checks ran in (reaped by now). */
static void measure_cost(struct run_cost *c)
{
	struct rusage self, kids;

	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	c->user_s = (double)(self.ru_utime.tv_sec + kids.ru_utime.tv_sec) +
		    (double)(self.ru_utime.tv_usec + kids.ru_utime.tv_usec) / 1e6;
	c->sys_s = (double)(self.ru_stime.tv_sec + kids.ru_stime.tv_sec) +
		   (double)(self.ru_stime.tv_usec + kids.ru_stime.tv_usec) / 1e6;
	c->peak_rss_kb = self.ru_maxrss > kids.ru_maxrss ? self.ru_maxrss : kids.ru_maxrss;
}

/* Next to the bundle, never in it: sonde-HOST-TIME.redaction-map.json. */
static void map_path(const char *bundle, char *out, size_t len)
{
	size_t n = strlen(bundle);

	if (n > 7 && !strcmp(bundle + n - 7, ".tar.xz"))
		n -= 7;
	snprintf(out, len, "%.*s.redaction-map.json", (int)n, bundle);
}

/*
 * findings.json, report.md, report.html, manifest.json into stage; then the
 * bundle, and with red (--redact) the redaction map next to it.
 */
static int write_reports(const char *stage, struct outcome *oc, const char *out_dir,
			 struct redactor *red, char *err, size_t errlen)
{
	static const char *const reports[] = { "findings.json", "report.md", "report.html" };
	struct strbuf js = { 0 }, md = { 0 }, html = { 0 };
	int rc;

	if (out_dir) {
		bundle_path(out_dir, oc->rr.an, oc->bundle, sizeof(oc->bundle));
	}
	measure_cost(&oc->rr.cost);
	/* One model, three renderings of it (and the summary, in finish). */
	if ((rc = report__build(&oc->rr, &oc->report)) || (rc = report__json(oc->report, &js)) ||
	    (rc = report__markdown(oc->report, &md)) || (rc = report__html(oc->report, &html))) {
		snprintf(err, errlen, "building the report: out of memory");
		goto cleanup;
	}
	if ((rc = write_file(stage, "findings.json", js.buf, js.len)) ||
	    (rc = write_file(stage, "report.md", md.buf, md.len)) ||
	    (rc = write_file(stage, "report.html", html.buf, html.len))) {
		snprintf(err, errlen, "writing the report into %s: %s", stage, strerror(-rc));
		goto cleanup;
	}
	/*
	 * The reports were computed from redacted captures; this pass catches
	 * what came from elsewhere: the command line, a path in a check's error.
	 * Pseudonyms already in them are kept as they are.
	 */
	for (size_t i = 0; red && i < sizeof(reports) / sizeof(*reports); i++)
		if ((rc = redactor__apply_file(red, stage, reports[i], err, errlen)))
			goto cleanup;
	/* After redaction: the manifest hashes the files as they go into the bundle. */
	if ((rc = write_manifest(stage, &oc->rr, err, errlen)))
		goto cleanup;
	if (out_dir)
		rc = bundle__write(stage, oc->bundle, sizeof(oc->bundle), err, errlen);
	if (!rc && out_dir && red) {
		char why[400];

		map_path(oc->bundle, oc->map, sizeof(oc->map));
		rc = redactor__write_map(red, oc->map, why, sizeof(why));
		if (rc) {
			snprintf(err, errlen,
				 "the redacted bundle %.500s is written, but not its map: %s",
				 oc->bundle, why);
			oc->map[0] = '\0';
		}
	}
cleanup:
	strbuf__free(&js);
	strbuf__free(&md);
	strbuf__free(&html);
	return rc;
}

/*
 * The terminal summary through the redactor: the checks saw only redacted
 * captures, but a check's error message may quote a path or the command line.
 */
static void print_redacted_summary(struct outcome *oc, struct redactor *red)
{
	char *buf = NULL, *text = NULL;
	size_t len = 0, tlen = 0;
	FILE *mf = open_memstream(&buf, &len);

	if (mf) {
		report__terminal(oc->report, mf, isatty(STDOUT_FILENO));
		if (fclose(mf))
			len = 0;
	}
	if (buf && len)
		text = redactor__text(red, buf, len, 0, &tlen);
	/* Never the unredacted text instead: the bundle and 'sonde show' have it all. */
	if (text)
		fwrite(text, 1, tlen, stdout);
	else
		fprintf(stderr, "sonde: out of memory for the summary (see 'sonde show BUNDLE')\n");
	free(text);
	free(buf);
}

static int print_member(const char *dir, const char *member);

static int finish(struct opts *o, struct outcome *oc, const char *stage, struct redactor *red)
{
	enum status worst = report__worst(&oc->rr);

	if (o->json) {
		print_member(stage, "findings.json");
		if (oc->bundle[0])
			fprintf(stderr, "sonde: bundle written: %s\n", oc->bundle);
		if (oc->map[0])
			fprintf(stderr, "sonde: redaction map (keep it, never send it): %s\n",
				oc->map);
	} else {
		if (red)
			print_redacted_summary(oc, red);
		else
			report__terminal(oc->report, stdout, isatty(STDOUT_FILENO));
		if (oc->bundle[0])
			printf("Bundle: %s\n", oc->bundle);
		if (oc->map[0])
			printf("Redaction map (keep it, never send it): %s\n", oc->map);
	}
	fflush(stdout);
	if (o->fail_on != ST_OK && status__rank(worst) >= status__rank(o->fail_on))
		return EXIT_FAIL_ON;
	return 0;
}

static void free_outcome(struct outcome *oc)
{
	report__free(oc->report);
	for (size_t i = 0; i < oc->rr.nres; i++)
		check_result__free(&oc->res[i]);
	free(oc->res);
	free(oc->rr.rank);
	free(oc->rr.drill);
	if (oc->drill_open)
		analysis__close(&oc->drill_an);
}

/* Static: a few KiB of outcomes, and the abort path must not need the stack. */
static struct trace_set tracing;
static struct perf_counters counters;

/*
 * The overhead guard: after every sampling round, the CPU sonde used since the
 * last round (its own, from getrusage, plus its BPF programs') against a
 * budget, a share of the host's CPU time. Past it, the costliest tool still
 * attached is read and detached (what it gathered is kept), so the run goes on
 * cheaper; the tool's capture and the report say so. Judged over the last round,
 * not the whole window: detaching cannot undo what was spent before.
 */
struct overhead_guard {
	double budget_pct;
	int ncpu;
	int64_t last_ns, last_self_ns;
	int64_t last_cost[TRACE_MAX_TOOLS];
};

static int64_t self_cpu_ns(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (int64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000 +
	       (int64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
}

static void overhead_tick(void *arg, int64_t now, int64_t start)
{
	struct overhead_guard *g = arg;
	int64_t self = self_cpu_ns(), used, costliest_ns = -1, span;
	size_t costliest = 0;

	span = now - g->last_ns;
	if (span < 200000000) /* too short to judge */
		return;
	used = self - g->last_self_ns;
	for (size_t i = 0; i < tracing.nruns && i < TRACE_MAX_TOOLS; i++) {
		int64_t c = trace_run__cost_ns(&tracing.runs[i]), d;

		if (c < 0)
			continue;
		d = c - g->last_cost[i];
		g->last_cost[i] = c;
		used += d;
		if (d > costliest_ns) {
			costliest_ns = d;
			costliest = i;
		}
	}
	/* A tool that is not a tenth of the spend is not what to cut (sonde's own sampling is). */
	if (costliest_ns >= 0 && costliest_ns * 10 >= used &&
	    (double)used > g->budget_pct / 100 * g->ncpu * (double)span) {
		char why[512];

		snprintf(why, sizeof(why),
			 "detached %.1f s into the window by the overhead guard: sonde and its BPF "
			 "programs used %.2f%% of the host's CPU over the last %.1f s (budget "
			 "--max-overhead %g%%); this tool was the costliest (%.2f%%)",
			 (double)(now - start) / 1e9,
			 100 * (double)used / ((double)span * g->ncpu), (double)span / 1e9,
			 g->budget_pct, 100 * (double)costliest_ns / ((double)span * g->ncpu));
		trace_run__stop_early(&tracing.runs[costliest], why);
		fprintf(stderr, "\rsonde: overhead guard: %s %s\n", tracing.runs[costliest].tool->name,
			why);
	}
	g->last_ns = now;
	g->last_self_ns = self;
}

/* The collectors the checks ask for, each once, NULL-terminated (window_opts.names). */
static int collector_names(const struct check_def *const *defs, size_t n, struct strv *names)
{
	char **v;

	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; defs[i] && k < defs[i]->collect.n; k++)
			if (!strv__has(names, defs[i]->collect.v[k]) &&
			    strv__push(names, defs[i]->collect.v[k]))
				return -ENOMEM;
	v = realloc(names->v, (names->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	names->v = v;
	names->v[names->n] = NULL;
	return 0;
}

/*
 * One observation window into raw (the first, or the drill-down one): the BPF
 * tools and perf counters names asks for start just before it and are read
 * just after, the overhead guard watches it, a hung read ends it. 0, or
 * non-zero with the message in err.
 */
static int observe(const struct opts *o, const char *const *names, const char *raw,
		   double window_s, double interval_s, int progress, struct window_result *wr,
		   char *err, size_t errlen)
{
	struct window_opts wo = { 0 };
	struct overhead_guard guard = { 0 };
	struct trace_opts to = { .self_pid = getpid(), .window_s = window_s };
	int rc;

	wo.root = o->root ? o->root : "";
	wo.raw_dir = raw;
	wo.window_s = window_s;
	wo.interval_s = interval_s;
	wo.names = names;
	wo.progress = progress;
	wo.stop = &stop_requested;
	wo.stall_s = interval_s * 2 > 5 ? interval_s * 2 : 5;
	guard.budget_pct = o->max_overhead_pct;
	guard.ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (guard.ncpu < 1)
		guard.ncpu = 1;
	if (o->max_overhead_pct > 0) {
		wo.tick = overhead_tick;
		wo.tick_arg = &guard;
	}
	in_window = 1;
	if (progress && trace_set__wanted(names))
		fprintf(stderr, "  loading BPF tools...\r");
	rc = trace_set__start(&tracing, names, raw, &to,
			      o->no_bpf ? "BPF tools disabled (--no-bpf)" : NULL, err, errlen);
	if (rc < 0)
		goto out;
	rc = perf_counters__start(&counters, names, raw,
				  o->no_perf ? "perf counters disabled (--no-perf)" : NULL, err,
				  errlen);
	if (rc < 0)
		goto out;
	/* The guard's baseline: what setting the tools up cost is not the window's overhead. */
	guard.last_ns = clock__ns(CLOCK_MONOTONIC);
	guard.last_self_ns = self_cpu_ns();
	for (size_t i = 0; i < tracing.nruns && i < TRACE_MAX_TOOLS; i++)
		guard.last_cost[i] = trace_run__cost_ns(&tracing.runs[i]);
	rc = window__observe(&wo, wr, err, errlen);
	in_window = 0;
	if (wr->abandoned)
		fprintf(stderr, "\rsonde: %s\n", wr->stop_reason);
	if (!rc)
		rc = perf_counters__finish(&counters, wr->start_mono_ns, wr->end_mono_ns, err,
					   errlen);
	if (!rc)
		rc = trace_set__finish(&tracing, wr->start_mono_ns, wr->end_mono_ns, err, errlen);
out:
	in_window = 0;
	perf_counters__destroy(&counters);
	trace_set__destroy(&tracing);
	return rc;
}

/* ---- drill-down: a second, shorter window for the checks the findings call for ---- */


/* Did this check run already (selected with --check for the first window)? */
static int ran(const struct outcome *oc, const char *id)
{
	for (size_t i = 0; i < oc->rr.nres; i++)
		if (!strcmp(oc->res[i].def->id, id))
			return 1;
	return 0;
}

/*
 * The rules whose trigger check ended in warn or crit; the checks they run,
 * each once, and not again when the first window already ran them.
 */
static size_t drill_fired(const struct catalog *cat, struct outcome *oc, struct strv *run)
{
	for (size_t m = 0; m < cat->nmeth; m++)
		for (size_t k = 0; k < cat->meth[m].nrules; k++) {
			const struct drill_rule *r = &cat->meth[m].rules[k];

			for (size_t i = 0; i < oc->rr.nres; i++) {
				const struct check_result *res = &oc->res[i];
				struct drill_fired *nd;

				if (strcmp(res->def->id, r->trigger) ||
				    (res->st != ST_WARN && res->st != ST_CRIT))
					continue;
				nd = realloc(oc->rr.drill, (oc->rr.ndrill + 1) * sizeof(*nd));
				if (!nd)
					break;
				oc->rr.drill = nd;
				nd[oc->rr.ndrill].rule = r;
				nd[oc->rr.ndrill++].trigger_status = res->st;
				for (size_t j = 0; j < r->run.n; j++)
					if (!strv__has(run, r->run.v[j]) && !ran(oc, r->run.v[j]) &&
					    strv__push(run, r->run.v[j]))
						die_oom();
				break;
			}
		}
	return oc->rr.ndrill;
}

/* The second window (sonde run): its captures go to raw/drilldown. 0 or -1 with a message. */
static int drill_observe(struct opts *o, const struct catalog *cat, const struct strv *run,
			 const char *raw2, struct redactor *red)
{
	const struct check_def **defs = calloc(run->n + 1, sizeof(*defs));
	struct strv names = { 0 };
	struct window_result wr;
	char err[1024];
	int rc;

	for (size_t i = 0; defs && i < run->n; i++)
		defs[i] = catalog__check(cat, run->v[i]);
	if (!defs || collector_names(defs, run->n, &names)) {
		fprintf(stderr, "sonde: out of memory\n");
		free(defs);
		strv__free(&names);
		return -1;
	}
	free(defs);
	if (mkdir(raw2, 0700)) {
		fprintf(stderr, "sonde: %s: %s\n", raw2, strerror(errno));
		strv__free(&names);
		return -1;
	}
	/* Ctrl-C now ends the drill-down window; the first window's results stay. */
	stop_requested = 0;
	set_signal_handler(on_stop_signal);
	if (o->progress_shown)
		fprintf(stderr, "\r\033[K  drill-down: %zu checks, a %.0f s window...\n", run->n,
			o->drill_window_s);
	rc = observe(o, (const char *const *)names.v, raw2, o->drill_window_s,
		     o->interval_s < o->drill_window_s ? o->interval_s : o->drill_window_s,
		     o->progress_shown, &wr, err, sizeof(err));
	set_signal_handler(on_abort_signal);
	strv__free(&names);
	if (rc) {
		fprintf(stderr, "sonde: drill-down window: %s\n", err);
		return -1;
	}
	if (red && (redactor__learn_dir(red, raw2, err, sizeof(err)) ||
		    redactor__apply_dir(red, raw2, err, sizeof(err)))) {
		fprintf(stderr, "sonde: redacting the drill-down captures: %s\n", err);
		return -1;
	}
	return 0;
}

/*
 * After the first checks: the rules of methodologies/drilldown.lua that fired
 * name deeper checks; `run` observes a second, shorter window for them
 * (raw/drilldown), `analyze` replays the one a bundle recorded. Their results
 * join the others; the report says what fired and why.
 */
static void drill_down(struct opts *o, const struct catalog *cat, struct outcome *oc,
		       struct redactor *red)
{
	struct strv run = { 0 };
	char raw2[4200], err[1024];
	struct check_result *nr;
	struct stat sb;

	if (!drill_fired(cat, oc, &run) || !run.n)
		goto out;
	if (o->no_drilldown) {
		oc->rr.drill_note = "--no-drilldown";
		goto out;
	}
	snprintf(raw2, sizeof(raw2), "%s/drilldown", oc->rr.an->raw_dir);
	if (o->live) {
		if (drill_observe(o, cat, &run, raw2, red)) {
			oc->rr.drill_note = "the drill-down window failed (see the terminal)";
			goto out;
		}
	} else if (stat(raw2, &sb) || !S_ISDIR(sb.st_mode)) {
		oc->rr.drill_note = "this bundle recorded no drill-down window (raw/drilldown)";
		goto out;
	}
	if (analysis__open(&oc->drill_an, raw2, err, sizeof(err))) {
		fprintf(stderr, "sonde: reading the drill-down captures: %s\n", err);
		oc->rr.drill_note = "the drill-down captures could not be read";
		goto out;
	}
	oc->drill_open = 1;
	oc->rr.drill_an = &oc->drill_an;
	nr = realloc(oc->res, (oc->rr.nres + run.n + 1) * sizeof(*nr));
	if (!nr)
		goto out;
	oc->res = oc->rr.res = nr;
	for (size_t i = 0; i < run.n; i++) {
		memset(&oc->res[oc->rr.nres], 0, sizeof(*nr));
		engine__run_check(cat, catalog__check(cat, run.v[i]), &oc->drill_an,
				  &engine_default_limits, &oc->res[oc->rr.nres]);
		oc->rr.nres++;
	}
	free(oc->rr.rank);
	oc->rr.rank = NULL;
	oc->rr.nrank = 0;
	report__rank(&oc->rr);
out:
	strv__free(&run);
}

/*
 * The part run and analyze share: the checks over the analysis, the reports
 * into stage (and the bundle into out_dir when set), the summary or the JSON.
 * On a failure to write, stage is kept when it holds this run's only copy of
 * the captures (keep_on_error), else removed. With red, the captures in stage
 * are already redacted and the reports, the summary and the map follow.
 */
/*
 * analyze: the bundle carries the findings of the checks that ran then; with
 * today's checks they may differ. Say how, or that they are the same.
 */
static void print_changes(const char *recorded_dir, const char *stage)
{
	char path[4200], err[512], buf[4096];
	enum status worst;
	size_t changes = 0, n;
	struct stat sb;
	FILE *tmp;

	snprintf(path, sizeof(path), "%s/findings.json", recorded_dir);
	if (stat(path, &sb))
		return; /* a bare raw/ directory: nothing recorded to compare with */
	tmp = tmpfile();
	if (!tmp)
		return;
	if (diff__run(recorded_dir, stage, "as recorded", "as analyzed now", DIFF_TEXT, NULL, tmp,
		      &worst, &changes, err, sizeof(err))) {
		printf("\n(cannot compare with the findings recorded in the bundle: %s)\n", err);
	} else if (!changes) {
		printf("\nSame findings as recorded in the bundle.\n");
	} else {
		printf("\nCompared with the findings recorded in the bundle:\n");
		rewind(tmp);
		while ((n = fread(buf, 1, sizeof(buf), tmp)) > 0)
			fwrite(buf, 1, n, stdout);
	}
	fclose(tmp);
}

static int report_and_finish(struct opts *o, const struct catalog *cat,
			     const struct check_def **sel, size_t nsel, struct analysis *an,
			     const char *stage, const struct window_result *wr, int keep_on_error,
			     struct redactor *red, const char *recorded_dir)
{
	struct outcome oc = { 0 };
	char err[1024];
	int64_t t0 = clock__ns(CLOCK_MONOTONIC);
	int code;

	run_checks(cat, sel, nsel, an, &oc);
	drill_down(o, cat, &oc, red);
	oc.rr.cost.analysis_ms = (double)(clock__ns(CLOCK_MONOTONIC) - t0) / 1e6;
	oc.rr.command = o->command_line;
	if (wr) {
		oc.rr.cost.reads = wr->reads;
		oc.rr.cost.read_bytes = wr->read_bytes;
		oc.rr.cost.read_errors = wr->read_errors;
		oc.rr.cost.capture_bytes = wr->capture_bytes;
	}
	if (o->progress_shown)
		fputs("\r\033[K", stderr);
	if (write_reports(stage, &oc, o->out_dir, red, err, sizeof(err))) {
		if (keep_on_error) {
			/* The captures are the evidence: keep them where the user can get them. */
			fprintf(stderr, "sonde: %s; the captures and reports are kept in %s\n", err,
				stage);
		} else {
			fprintf(stderr, "sonde: %s\n", err);
			bundle__remove_tree(stage);
		}
		free_outcome(&oc);
		return EXIT_RUN_FAILED;
	}
	code = finish(o, &oc, stage, red);
	if (recorded_dir && !o->json)
		print_changes(recorded_dir, stage);
	bundle__remove_tree(stage);
	free_outcome(&oc);
	return code;
}

/* ---- commands ---- */

static void run_help(void)
{
	printf("usage: sonde run [options]\n\n"
	       "Observe this host for one window, run the checks over what was captured,\n"
	       "print the verdict and write a bundle (report.md, report.html, findings.json,\n"
	       "manifest.json and the raw captures) named sonde-HOST-UTCTIME.tar.xz, mode 0600.\n\n"
	       "  -w, --window SECONDS   length of the observation window (default 10)\n"
	       "  -i, --interval SECONDS sampling interval inside the window (default 1)\n"
	       "  -o, --out DIR          where the bundle goes (default: the current directory)\n"
	       "  -j, --json             print findings.json on stdout instead of the summary\n"
	       "  -f, --fail-on LEVEL    exit 3 when a finding is at least LEVEL (warn or crit)\n"
	       "  -C, --checks DIR       also load DIR/<methodology>/*.lua (and DIR/lib/*.lua);\n"
	       "                         they run with the default set unless --check selects\n"
	       "  -c, --check ID         run only this check (repeatable; see 'sonde list')\n"
	       "  -t, --tag TAG          run the checks with this tag (default: 'default')\n"
	       "      --priority low|normal  low (default): nice 10 and the idle I/O class, so\n"
	       "                         sonde yields to the workload it observes\n"
	       "      --set ID.ARG=VAL   set a check argument, e.g. use.cpu-saturation.warn_runnable=2\n"
	       "      --no-progress      no progress line (it is shown only on a terminal anyway)\n"
	       "      --no-bpf           load no BPF tool: the checks run on /proc and /sys only,\n"
	       "                         and what needed tracing is reported as a known unknown\n"
	       "      --timeout SECONDS  the run's deadline (default: the window + 300 s). A read\n"
	       "                         of /proc that hangs is given up after max(5 s, two\n"
	       "                         intervals) and the window ends there; past the\n"
	       "                         deadline the window ends, or, after it, sonde stops\n"
	       "                         and keeps the captures. The report says what hung\n"
	       "      --methodology M    only the checks of M: use, workload, or drilldown (the\n"
	       "                         checks whose findings trigger a drill-down, then it)\n"
	       "      --no-drilldown     no second window: a finding that calls for deeper\n"
	       "                         checks (methodologies/drilldown.lua) only says so.\n"
	       "                         By default it runs half as long as the first (>= 2 s)\n"
	       "      --max-overhead PCT the overhead guard (default 2): when sonde and its BPF\n"
	       "                         programs use more than PCT%% of the host's CPU over a\n"
	       "                         sampling interval, the costliest BPF tool is detached\n"
	       "                         (its data so far kept, the report says so); 0: no guard\n"
	       "      --no-perf          open no perf_event counter (perf.counters): IPC, stalls\n"
	       "                         and software counters become known unknowns\n"
	       "      --redact           pseudonymize host, domain and user names and IPv4, IPv6\n"
	       "                         and MAC addresses, drop secrets from command lines, in\n"
	       "                         every file of the bundle and on the terminal; what each\n"
	       "                         pseudonym stands for goes next to the bundle, never in\n"
	       "                         it: NAME.redaction-map.json, mode 0600. What is caught\n"
	       "                         and what is not: docs/redaction.md\n\n"
	       "Ctrl-C ends the window early: the checks run on what was captured so far and\n"
	       "the bundle is written, marked partial. A second Ctrl-C (or one after the\n"
	       "window) exits at once; the next run removes what it left.\n\n"
	       "Exit status: 0 the run completed (whatever it found), 1 the run failed,\n"
	       "2 usage error, 3 a finding reached --fail-on.\n");
}

static void analyze_help(void)
{
	printf("usage: sonde analyze BUNDLE [options]\n\n"
	       "Run the current checks again over a bundle's captures: BUNDLE is a bundle\n"
	       "file (opened safely in a private directory), an extracted bundle's directory,\n"
	       "or a raw/ directory. Nothing is read from this host. Then it says whether the\n"
	       "findings differ from those recorded in the bundle (newer checks, other\n"
	       "thresholds), as sonde diff would.\n\n"
	       "  -j, --json             print findings.json instead of the summary\n"
	       "  -o, --out DIR          also write a new bundle there\n"
	       "  -f, --fail-on LEVEL    exit 3 when a finding is at least LEVEL (warn or crit)\n"
	       "  -C, --checks DIR       also load the checks in DIR\n"
	       "  -c, --check ID         run only this check (repeatable)\n"
	       "  -t, --tag TAG          run the checks with this tag\n"
	       "      --set ID.ARG=VAL   set a check argument\n");
}

static int cmd_run(int argc, char **argv)
{
	struct opts o = { .cmd = "run" };
	struct catalog cat;
	const struct check_def **sel;
	size_t nsel;
	struct strv names = { 0 };
	char stage[4096], raw[4200], err[1024];
	struct window_result wr;
	struct redactor *red = NULL;
	struct analysis an;
	int rc, code, progress;

	o.command_line = join_argv(argc + 1, argv - 1);
	if (parse_opts(&o, argc, argv, "wiojfCctrP", run_help) < argc)
		die_usage(o.cmd, "unexpected argument '%s'", argv[optind]);
	if (!o.out_dir)
		o.out_dir = ".";
	if (!o.timeout_s)
		o.timeout_s = o.window_s + 300;
	o.live = 1;
	o.drill_window_s = o.window_s / 2 > 2 ? o.window_s / 2 : 2;
	check_out_dir(&o, o.out_dir);
	load_catalog(&o, &cat);
	sel = select_checks(&o, &cat, &nsel);
	if (collector_names(sel, nsel, &names)) {
		fprintf(stderr, "sonde: out of memory\n");
		return EXIT_RUN_FAILED;
	}

	remove_stale(o.out_dir);
	snprintf(stage, sizeof(stage), "%s/.sonde-run-%d-XXXXXX", o.out_dir, (int)getpid());
	if (!mkdtemp(stage)) {
		fprintf(stderr, "sonde: cannot create a working directory in %s: %s\n", o.out_dir,
			strerror(errno));
		return EXIT_RUN_FAILED;
	}
	snprintf(raw, sizeof(raw), "%s/raw", stage);
	if (mkdir(raw, 0700)) {
		fprintf(stderr, "sonde: %s: %s\n", raw, strerror(errno));
		bundle__remove_tree(stage);
		return EXIT_RUN_FAILED;
	}

	set_signal_handler(on_stop_signal);
	if (!o.normal_priority)
		lower_priority();
	deadline_msg_len = (size_t)snprintf(deadline_msg, sizeof(deadline_msg),
					    "sonde: the --timeout deadline (%g s) passed after the window; "
					    "the captures are kept in %s\n",
					    o.timeout_s, stage);
	if (deadline_msg_len >= sizeof(deadline_msg))
		deadline_msg_len = sizeof(deadline_msg) - 1;
	{
		struct sigaction sa = { 0 };
		struct itimerval it = { 0 };

		sa.sa_handler = on_deadline;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGALRM, &sa, NULL);
		it.it_value.tv_sec = (time_t)o.timeout_s;
		it.it_value.tv_usec = (suseconds_t)((o.timeout_s - (double)(time_t)o.timeout_s) * 1e6);
		in_window = 1;
		setitimer(ITIMER_REAL, &it, NULL);
	}

	progress = o.progress == -1 ? (isatty(STDOUT_FILENO) && isatty(STDERR_FILENO)) : o.progress;
	rc = observe(&o, (const char *const *)names.v, raw, o.window_s, o.interval_s, progress, &wr,
		     err, sizeof(err));
	/* From here a signal means "stop now": the checks and the bundle take a second or less. */
	set_signal_handler(on_abort_signal);
	if (rc) {
		fprintf(stderr, "sonde: observing: %s (captures kept in %s)\n", err, stage);
		return EXIT_RUN_FAILED;
	}
	if (progress)
		fprintf(stderr, "  analyzing: %zu checks over %u samples...\r", nsel, wr.samples);

	/*
	 * --redact: the captures are redacted before anything reads them, so the
	 * checks, the reports and the summary see only pseudonyms, and a command
	 * line cut to fit a table cell is cut after redaction, never in the middle
	 * of a name or an address (which no rule could then recognise).
	 */
	if (o.redact) {
		char *cmd = NULL;

		err[0] = '\0';
		red = redact__dir(stage, o.command_line, &cmd, err, sizeof(err));
		if (!red) {
			fprintf(stderr, "sonde: redacting the captures: %s (kept in %s)\n", err,
				stage);
			return EXIT_RUN_FAILED;
		}
		free(o.command_line);
		o.command_line = cmd;
	}

	rc = analysis__open(&an, raw, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "sonde: reading the captures: %s (kept in %s)\n", err, stage);
		return EXIT_RUN_FAILED;
	}
	o.progress_shown = progress;
	code = report_and_finish(&o, &cat, sel, nsel, &an, stage, &wr, 1, red, NULL);
	analysis__close(&an);
	redactor__free(red);
	free(sel);
	catalog__free(&cat);
	strv__free(&names);
	free(o.command_line);
	return code;
}

/*
 * A bundle file is opened into a private directory (bundle__extract: a child
 * process with memory and time limits, refusing anything a bundle never
 * holds); a directory is used as it is. *opened tells the caller to remove it.
 */
/* Bundles opened by this command (diff opens two), removed at exit. */
static char opened_bundle_dirs[2][4096];
static int opened_bundles;

static void remove_opened_bundle(void)
{
	for (int i = 0; i < opened_bundles; i++)
		bundle__remove_tree(opened_bundle_dirs[i]);
	opened_bundles = 0;
}

static void open_bundle(const struct opts *o, const char *path, char *dir, size_t len, int *opened)
{
	const char *tmp = getenv("TMPDIR");
	char err[1024];
	struct stat sb;
	int rc;

	*opened = 0;
	if (stat(path, &sb))
		die_usage(o->cmd, "%s: %s", path, strerror(errno));
	if (S_ISDIR(sb.st_mode)) {
		snprintf(dir, len, "%s", path);
		return;
	}
	rc = bundle__extract(path, tmp && *tmp ? tmp : "/tmp", &bundle_open_default_limits, dir,
			     len, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "sonde: %s: %s\n", path, err);
		exit(EXIT_RUN_FAILED);
	}
	*opened = 1;
	/* Removed on every way out, early errors included. */
	if (opened_bundles < 2) {
		snprintf(opened_bundle_dirs[opened_bundles], sizeof(opened_bundle_dirs[0]), "%s",
			 dir);
		if (!opened_bundles++)
			atexit(remove_opened_bundle);
	}
}

/* An extracted bundle (DIR/raw) or a raw directory itself. */
static void find_raw(const struct opts *o, const char *dir, char *raw, size_t len)
{
	struct stat sb;

	snprintf(raw, len, "%s/raw", dir);
	if (!stat(raw, &sb) && S_ISDIR(sb.st_mode))
		return;
	snprintf(raw, len, "%s/sonde.cap", dir);
	if (!stat(raw, &sb)) {
		snprintf(raw, len, "%s", dir);
		return;
	}
	if (stat(dir, &sb))
		die_usage(o->cmd, "%s: %s", dir, strerror(errno));
	die_usage(o->cmd, "%s: no captures here (expected DIR/raw/sonde.cap or DIR/sonde.cap)", dir);
}

static int cmd_analyze(int argc, char **argv)
{
	struct opts o = { .cmd = "analyze" };
	struct catalog cat;
	const struct check_def **sel;
	size_t nsel;
	char raw[4200], stage[4096], err[1024], opened_dir[4096];
	struct analysis an;
	const char *dir;
	int idx, code, opened;

	o.command_line = join_argv(argc + 1, argv - 1);
	/* getopt permutes: options may come before or after DIR. */
	idx = parse_opts(&o, argc, argv, "ojfCct", analyze_help);
	if (idx >= argc)
		die_usage(o.cmd, "which captures? sonde analyze BUNDLE (or an extracted bundle's DIR)");
	if (idx + 1 < argc)
		die_usage(o.cmd, "unexpected argument '%s'", argv[idx + 1]);
	open_bundle(&o, argv[idx], opened_dir, sizeof(opened_dir), &opened);
	dir = opened_dir;
	find_raw(&o, dir, raw, sizeof(raw));
	if (o.out_dir)
		check_out_dir(&o, o.out_dir);
	load_catalog(&o, &cat);
	sel = select_checks(&o, &cat, &nsel);
	if (analysis__open(&an, raw, err, sizeof(err))) {
		fprintf(stderr, "sonde: %s\n", err);
		return EXIT_RUN_FAILED;
	}
	/* The new reports need a staging dir that holds the same raw/ (linked, not copied). */
	snprintf(stage, sizeof(stage), "%s/.sonde-analyze-XXXXXX", o.out_dir ? o.out_dir : "/tmp");
	if (!mkdtemp(stage)) {
		fprintf(stderr, "sonde: cannot create a working directory: %s\n", strerror(errno));
		return EXIT_RUN_FAILED;
	}
	/* The new bundle holds the same captures, byte for byte, read from the files again. */
	{
		char dst[4200];

		snprintf(dst, sizeof(dst), "%s/raw", stage);
		if (mkdir(dst, 0700)) {
			fprintf(stderr, "sonde: %s: %s\n", dst, strerror(errno));
			bundle__remove_tree(stage);
			return EXIT_RUN_FAILED;
		}
		for (size_t i = 0; i < an.cs.n; i++) {
			char src[4400];
			int cerr;

			snprintf(src, sizeof(src), "%s/%s.cap", raw, an.cs.s[i].name);
			snprintf(dst, sizeof(dst), "%s/raw/%s.cap", stage, an.cs.s[i].name);
			cerr = copy_file(src, dst);
			if (cerr) {
				fprintf(stderr, "sonde: copying %s: %s\n", src, strerror(-cerr));
				bundle__remove_tree(stage);
				return EXIT_RUN_FAILED;
			}
		}
	}
	code = report_and_finish(&o, &cat, sel, nsel, &an, stage, NULL, 0, NULL, dir);
	analysis__close(&an);
	free(sel);
	catalog__free(&cat);
	free(o.command_line);
	return code;
}

static void verify_help(void)
{
	printf("usage: sonde verify BUNDLE\n\n"
	       "Open the bundle safely (a private directory; links, devices, paths leaving the\n"
	       "bundle and oversized members are refused) and check every member against\n"
	       "manifest.json: nothing missing, nothing extra, sizes and sha256 equal.\n"
	       "Exit status: 0 verified, 1 refused or a mismatch (named on stderr), 2 usage.\n");
}

static int cmd_verify(int argc, char **argv)
{
	struct opts o = { .cmd = "verify" };
	char dir[4096], err[1024];
	int idx, opened, rc;

	idx = parse_opts(&o, argc, argv, "", verify_help);
	if (idx >= argc)
		die_usage(o.cmd, "which bundle? sonde verify BUNDLE");
	if (idx + 1 < argc)
		die_usage(o.cmd, "unexpected argument '%s'", argv[idx + 1]);
	open_bundle(&o, argv[idx], dir, sizeof(dir), &opened);
	rc = bundle__verify_dir(dir, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "sonde: %s: %s\n", argv[idx], err);
		return EXIT_RUN_FAILED;
	}
	printf("%s: verified: every member matches manifest.json\n", argv[idx]);
	return 0;
}

static void redact_help(void)
{
	printf("usage: sonde redact BUNDLE [--out DIR]\n\n"
	       "Write a redacted copy of a bundle, to send it where the host's names must not\n"
	       "go. In every member, captures included: host and domain names, user names,\n"
	       "IPv4, IPv6 and MAC addresses become pseudonyms, the same everywhere (host-1,\n"
	       "user-1, 10.0.1.7: private stays private, addresses that shared a /24 still do);\n"
	       "secrets in command lines (--password=..., token=..., Bearer ..., the password\n"
	       "of scheme://user:pass@host) become REDACTED. The bundle is verified first and\n"
	       "opened in a private directory; the original is not changed.\n\n"
	       "  -o, --out DIR   where the copy goes (default: the bundle's directory)\n\n"
	       "The copy is named after the pseudonymized host. Next to it (never in it) goes\n"
	       "NAME.redaction-map.json, mode 0600: what each pseudonym stands for. Keep it;\n"
	       "do not send it. 'sonde run --redact' writes a redacted bundle directly.\n"
	       "What is and is not caught: docs/redaction.md.\n");
}

static int cmd_redact(int argc, char **argv)
{
	struct opts o = { .cmd = "redact" };
	char dir[4096], path[4200], out_dir[4096], bundle[4096], map[4200], err[1024] = "";
	struct run_report rr = { 0 };
	struct redactor *red = NULL;
	struct jval *manifest = NULL;
	struct analysis an;
	const char *command;
	char *text = NULL, *cmd = NULL;
	int idx, opened, rc, code = EXIT_RUN_FAILED, an_open = 0;
	struct stat sb;
	size_t len;

	idx = parse_opts(&o, argc, argv, "o", redact_help);
	if (idx >= argc)
		die_usage(o.cmd, "which bundle? sonde redact BUNDLE [--out DIR]");
	if (idx + 1 < argc)
		die_usage(o.cmd, "unexpected argument '%s'", argv[idx + 1]);
	if (stat(argv[idx], &sb))
		die_usage(o.cmd, "%s: %s", argv[idx], strerror(errno));
	/* Redacting rewrites every file: only ever a private copy, never someone's directory. */
	if (S_ISDIR(sb.st_mode))
		die_usage(o.cmd, "%s: a directory; sonde redact takes a bundle file", argv[idx]);
	if (o.out_dir) {
		snprintf(out_dir, sizeof(out_dir), "%s", o.out_dir);
	} else {
		const char *slash = strrchr(argv[idx], '/');

		if (!slash)
			snprintf(out_dir, sizeof(out_dir), ".");
		else
			snprintf(out_dir, sizeof(out_dir), "%.*s",
				 slash == argv[idx] ? 1 : (int)(slash - argv[idx]), argv[idx]);
	}
	check_out_dir(&o, out_dir);
	open_bundle(&o, argv[idx], dir, sizeof(dir), &opened);
	/* A bundle that does not verify is not laundered into a redacted one that does. */
	if (bundle__verify_dir(dir, err, sizeof(err))) {
		fprintf(stderr, "sonde: %s: %s\n", argv[idx], err);
		return EXIT_RUN_FAILED;
	}
	/* The command line that made the bundle is in its manifest, not in the captures. */
	snprintf(path, sizeof(path), "%s/manifest.json", dir);
	rc = file__read_bounded(AT_FDCWD, path, 16u << 20, &text, &len);
	if (rc || json_read(text, len, &json_read_default_limits, &manifest, err, sizeof(err))) {
		fprintf(stderr, "sonde: %s: manifest.json: %s\n", argv[idx],
			rc ? strerror(-rc) : err);
		goto cleanup;
	}
	command = jval__str(manifest, "command");
	if (!command)
		command = "";

	red = redact__dir(dir, command, &cmd, err, sizeof(err));
	if (!red) {
		fprintf(stderr, "sonde: %s: redacting: %s\n", argv[idx], err);
		goto cleanup;
	}
	/* The host facts of the new manifest come from the redacted captures, as in a run. */
	unlink(path);
	snprintf(path, sizeof(path), "%s/raw", dir);
	if (analysis__open(&an, path, err, sizeof(err))) {
		fprintf(stderr, "sonde: %s: reading the redacted captures: %s\n", argv[idx], err);
		goto cleanup;
	}
	an_open = 1;
	rr.an = &an;
	rr.command = cmd;
	if (write_manifest(dir, &rr, err, sizeof(err))) {
		fprintf(stderr, "sonde: %s\n", err);
		goto cleanup;
	}
	bundle_path(out_dir, &an, bundle, sizeof(bundle));
	if (bundle__write(dir, bundle, sizeof(bundle), err, sizeof(err))) {
		fprintf(stderr, "sonde: %s\n", err);
		goto cleanup;
	}
	map_path(bundle, map, sizeof(map));
	if (redactor__write_map(red, map, err, sizeof(err))) {
		fprintf(stderr, "sonde: the redacted bundle %s is written, but not its map: %s\n",
			bundle, err);
		goto cleanup;
	}
	printf("Bundle: %s\nRedaction map (keep it, never send it): %s\n", bundle, map);
	code = 0;
cleanup:
	if (an_open)
		analysis__close(&an);
	redactor__free(red);
	jval__free(manifest);
	free(text);
	free(cmd);
	return code;
}

static void show_help(void)
{
	printf("usage: sonde show BUNDLE [MEMBER] [--json | --md]\n\n"
	       "Print a bundle's summary (verdict, USE matrix, findings) from its findings.json,\n"
	       "or findings.json itself (--json), or report.md (--md), or one MEMBER as it is\n"
	       "(e.g. raw/proc.stat.cap). The bundle is opened in a private directory that is\n"
	       "removed afterwards; nothing else is written.\n");
}

/* Copy a member of the opened bundle to stdout; host text goes to a terminal sanitized. */
static int print_member(const char *dir, const char *member)
{
	char path[8192], buf[65536];
	int fd, tty = isatty(STDOUT_FILENO);
	ssize_t n;

	if (!*member || member[0] == '/' || strstr(member, "..")) {
		fprintf(stderr, "sonde: %s: not a member name\n", member);
		return EXIT_USAGE;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, member);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		fprintf(stderr, "sonde: %s: %s\n", member, strerror(errno));
		return EXIT_RUN_FAILED;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		if (tty)
			for (ssize_t i = 0; i < n; i++)
				if (((unsigned char)buf[i] < 0x20 && buf[i] != '\n' && buf[i] != '\t') ||
				    buf[i] == 0x7f)
					buf[i] = '?';
		fwrite(buf, 1, (size_t)n, stdout);
	}
	close(fd);
	return 0;
}

static void show_text(const char *s)
{
	for (; s && *s; s++)
		putchar(((unsigned char)*s < 0x20 || *s == 0x7f) ? '?' : *s);
}

/* The terminal summary, rebuilt from findings.json (read as untrusted). */
static int show_summary(const char *dir)
{
	char path[4200], err[256], *text = NULL;
	const struct jval *v, *m, *f;
	struct jval *doc = NULL;
	size_t len = 0;
	double num;
	int rc;

	snprintf(path, sizeof(path), "%s/findings.json", dir);
	rc = file__read_bounded(AT_FDCWD, path, 64u << 20, &text, &len);
	if (rc || json_read(text, len, &json_read_default_limits, &doc, err, sizeof(err))) {
		fprintf(stderr, "sonde: findings.json: %s\n", rc ? strerror(-rc) : err);
		free(text);
		return EXIT_RUN_FAILED;
	}
	v = jval__get(doc, "host");
	printf("bundle of ");
	show_text(jval__str(v, "hostname"));
	m = jval__get(doc, "window");
	printf(" · %s", jval__str(m, "start") ? jval__str(m, "start") : "?");
	if (!jval__num(m, "seconds", &num))
		printf(" · %.1f s window", num);
	v = jval__get(m, "partial");
	if (v && v->type == J_BOOL && v->boolean)
		printf(" (partial)");
	printf("\n\nVerdict: ");
	show_text(jval__str(doc, "verdict"));
	printf("\n");
	m = jval__get(doc, "use_matrix");
	if (m && m->type == J_OBJECT) {
		printf("\n%-10s  %-12s  %-12s  %-12s\n", "USE", "utilization", "saturation", "errors");
		for (size_t i = 0; i < m->len; i++) {
			static const char *const cols[] = { "utilization", "saturation", "errors" };

			printf("  %-8.8s", m->keys[i]);
			for (int c = 0; c < 3; c++) {
				const char *st = jval__str(jval__get(&m->items[i], cols[c]), "status");

				printf("  %-12.12s", st ? st : "-");
			}
			printf("\n");
		}
	}
	f = jval__get(doc, "findings");
	if (f && f->type == J_ARRAY && f->len) {
		printf("\nFindings:\n");
		for (size_t i = 0; i < f->len; i++) {
			printf("  %zu. %-4s ", i + 1,
			       jval__str(&f->items[i], "severity") ? jval__str(&f->items[i], "severity") :
								      "?");
			show_text(jval__str(&f->items[i], "summary"));
			printf("\n");
		}
	}
	jval__free(doc);
	free(text);
	return 0;
}

static int cmd_show(int argc, char **argv)
{
	struct opts o = { .cmd = "show" };
	char dir[4096];
	int idx, opened;

	idx = parse_opts(&o, argc, argv, "jm", show_help);
	if (idx >= argc)
		die_usage(o.cmd, "which bundle? sonde show BUNDLE [MEMBER]");
	if (idx + 2 < argc)
		die_usage(o.cmd, "unexpected argument '%s'", argv[idx + 2]);
	if ((o.json || o.md) && idx + 1 < argc)
		die_usage(o.cmd, "give a MEMBER or --json/--md, not both");
	open_bundle(&o, argv[idx], dir, sizeof(dir), &opened);
	if (idx + 1 < argc)
		return print_member(dir, argv[idx + 1]);
	if (o.json)
		return print_member(dir, "findings.json");
	if (o.md)
		return print_member(dir, "report.md");
	return show_summary(dir);
}

static void diff_help(void)
{
	printf("usage: sonde diff OLD NEW [--json | --md | --html] [--fail-on warn|crit]\n\n"
	       "What changed between two bundles (of one host, or of two): findings new,\n"
	       "resolved, persisting, worse and better, and each metric's change judged\n"
	       "against the spread of its per-interval values in both windows, so that\n"
	       "noise is not called a regression. OLD and NEW are bundle files (opened\n"
	       "safely) or extracted bundle directories.\n\n"
	       "Exit status: 0 compared, 1 a bundle could not be read, 2 usage error,\n"
	       "3 a new or worse finding reached --fail-on.\n");
}

static int cmd_diff(int argc, char **argv)
{
	struct opts o = { .cmd = "diff" };
	const struct embedded_file *css = embedded__find("reports/report.css");
	enum diff_format fmt = DIFF_TEXT;
	char a[4096], b[4096], err[1024];
	enum status worst;
	int idx, opened;

	idx = parse_opts(&o, argc, argv, "jmHf", diff_help);
	if (argc - idx != 2)
		die_usage(o.cmd, "which bundles? sonde diff OLD NEW");
	if (o.json + o.md + o.html > 1)
		die_usage(o.cmd, "one of --json, --md, --html");
	fmt = o.json ? DIFF_JSON : o.md ? DIFF_MD : o.html ? DIFF_HTML : DIFF_TEXT;
	open_bundle(&o, argv[idx], a, sizeof(a), &opened);
	open_bundle(&o, argv[idx + 1], b, sizeof(b), &opened);
	if (diff__run(a, b, argv[idx], argv[idx + 1], fmt, css ? css->data : "", stdout, &worst,
		      NULL, err, sizeof(err))) {
		fprintf(stderr, "sonde: %s\n", err);
		return EXIT_RUN_FAILED;
	}
	fflush(stdout);
	if (o.fail_on != ST_OK && status__rank(worst) >= status__rank(o.fail_on))
		return EXIT_FAIL_ON;
	return 0;
}

static void list_help(void)
{
	printf("usage: sonde list [--checks DIR] [--no-bpf] [--no-perf]\n\n"
	       "Every check (id, methodology, resource, metric, tags) and whether this host can\n"
	       "feed it, then every collector and every BPF tool and whether it works here\n"
	       "(and if not, why). Each BPF tool is loaded and attached for a moment to find\n"
	       "out; --no-bpf skips that. perf.counters opens one software and one hardware\n"
	       "counter for a moment; --no-perf skips that.\n");
}

static int cmd_list(int argc, char **argv)
{
	struct opts o = { .cmd = "list" };
	struct catalog cat;
	const char *root;

	if (parse_opts(&o, argc, argv, "C", list_help) < argc)
		die_usage(o.cmd, "unexpected argument '%s'", argv[optind]);
	load_catalog(&o, &cat);
	root = o.root ? o.root : "";
	printf("%-28s %-12s %-9s %-12s %-20s %s\n", "CHECK", "METHODOLOGY", "RESOURCE", "METRIC",
	       "TAGS", "AVAILABLE HERE");
	for (size_t i = 0; i < cat.nchecks; i++) {
		const struct check_def *d = &cat.checks[i];
		char tags[128] = "", avail[512] = "yes";
		size_t t = 0;

		for (size_t k = 0; k < d->tags.n && t + 2 < sizeof(tags); k++)
			t += (size_t)snprintf(tags + t, sizeof(tags) - t, "%s%s", k ? "," : "",
					      d->tags.v[k]);
		for (size_t k = 0; k < d->collect.n; k++) {
			const struct collector *c = collector__find(d->collect.v[k]);
			char why[400];

			int sw_ok;

			if (!strcmp(d->collect.v[k], PERF_COLLECTOR)) {
				if (o.no_perf || perf_counters__probe(&sw_ok, why, sizeof(why))) {
					if (o.no_perf)
						snprintf(why, sizeof(why), "perf disabled");
					snprintf(avail, sizeof(avail), "partly: %s", why);
					break;
				}
				continue;
			}
			if ((c && c->probe && c->probe(root, why, sizeof(why))) ||
			    (!c && (o.no_bpf ? snprintf(why, sizeof(why), "BPF disabled") :
					       trace__probe(why, sizeof(why))))) {
				snprintf(avail, sizeof(avail), "partly: %s", why);
				break;
			}
		}
		printf("%-28s %-12s %-9s %-12s %-20s %s\n", d->id, d->methodology, d->resource,
		       d->metric, tags, avail);
	}
	printf("\n%-16s %-52s %s\n", "COLLECTOR", "WHAT", "WORKS HERE");
	for (const struct collector *const *c = collectors; *c; c++) {
		char why[400] = "";
		int bad = (*c)->probe && (*c)->probe(root, why, sizeof(why));

		printf("%-16s %-52s %s\n", (*c)->name, (*c)->what, bad ? why : "yes");
	}
	{
		char why[1024] = "";
		int sw_ok = 0, bad = o.no_perf ? (snprintf(why, sizeof(why), "disabled (--no-perf)"), 1) :
				      perf_counters__probe(&sw_ok, why, sizeof(why));

		printf("%-16s %-52s %s%s\n", PERF_COLLECTOR,
		       "CPU counters per CPU (perf_event_open): IPC, stalls, LLC, ...",
		       bad ? (sw_ok ? "partly: " : "no: ") : "yes", bad ? why : "");
	}
	/* Each tool is loaded and attached for a moment: only the kernel can say if it works. */
	printf("\n%-16s %-52s %s\n", "BPF TOOL", "WHAT", "WORKS HERE");
	for (const struct trace_tool *const *t = trace_tools; *t; t++) {
		char why[1024] = "", name[40];
		enum trace_attach a;
		int bad = o.no_bpf ? (snprintf(why, sizeof(why), "disabled (--no-bpf)"), 1) :
				     trace_tool__probe(*t, &a, why, sizeof(why));

		snprintf(name, sizeof(name), "bpf.%s", (*t)->name);
		if (bad)
			printf("%-16s %-52s no: %s\n", name, (*t)->what, why);
		else
			printf("%-16s %-52s yes (%s)\n", name, (*t)->what, trace_attach__name(a));
	}
	catalog__free(&cat);
	return 0;
}

static void main_help(void)
{
	printf("usage: sonde COMMAND [options]\n\n"
	       "sonde finds the bottleneck of a Linux host in one short observation window:\n"
	       "it samples /proc and /sys, runs USE-method and workload checks (Lua) over\n"
	       "the captures, prints the verdict and writes a bundle with the report and\n"
	       "the raw evidence.\n\n"
	       "commands:\n"
	       "  run        observe this host and report (sonde run --help)\n"
	       "  analyze    run the checks again over a bundle (no live host access)\n"
	       "  verify     check a bundle's members against its manifest\n"
	       "  redact     a copy of a bundle with names, addresses and secrets pseudonymized\n"
	       "  diff       what changed between two bundles (findings, metrics beyond noise)\n"
	       "  show       print a bundle's summary, report or one member\n"
	       "  list       the checks and collectors, and what this host can provide\n"
	       "  help       this text; 'sonde help COMMAND' for a command\n"
	       "  version    print the version\n\n"
	       "examples:\n"
	       "  sonde run                         10 s window, verdict on the terminal\n"
	       "  sonde run -w 5 -o /var/tmp --json  findings.json on stdout\n"
	       "  sonde run --fail-on crit          for cron/CI: exit 3 on a critical finding\n");
}

static int cmd_version(int argc, char **argv)
{
	printf("sonde %s\n", SONDE_VERSION);
	return 0;
}

static int cmd_help(int argc, char **argv);

static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	void (*help)(void);
} commands[] = {
	{ "run", cmd_run, run_help },
	{ "analyze", cmd_analyze, analyze_help },
	{ "list", cmd_list, list_help },
	{ "verify", cmd_verify, verify_help },
	{ "redact", cmd_redact, redact_help },
	{ "diff", cmd_diff, diff_help },
	{ "show", cmd_show, show_help },
	{ "help", cmd_help, main_help },
	{ "version", cmd_version, NULL },
	{ NULL, NULL, NULL },
};

static int cmd_help(int argc, char **argv)
{
	if (argc > 1)
		for (const struct command *c = commands; c->name; c++)
			if (!strcmp(c->name, argv[1]) && c->help) {
				c->help();
				return 0;
			}
	main_help();
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		main_help();
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		main_help();
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))
		return cmd_version(0, NULL);
	for (const struct command *c = commands; c->name; c++)
		if (!strcmp(c->name, argv[1]))
			return c->fn(argc - 1, argv + 1);
	die_usage(NULL, "unknown command '%s'", argv[1]);
	return EXIT_USAGE;
}
