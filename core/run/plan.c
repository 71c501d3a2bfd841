// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The plan: what a run executes and what it needs before it starts. The
 * catalog with --set applied, the checks selected by --check, --tag and
 * --methodology, the collectors they ask for, the --out directory and the
 * staging directory in it. A mistake here is the user's: a usage error (exit 2)
 * before anything is observed.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle/read.h"
#include "collect/hostctx.h"
#include "run/run.h"
#include "util/clock.h"
#include "util/scratch.h"
#include "util/tty.h"

void run__die_usage(const char *cmd, const char *fmt, ...)
{
	char msg[16384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* It may quote a check's own error or a name from a file: text only (util/tty.h). */
	tty__clean_str(msg);
	fprintf(stderr, "sonde: %s", msg);
	/* One hint per line: a message that already points somewhere keeps its own. */
	if (!strstr(msg, "(see "))
		fprintf(stderr, " (see 'sonde %s%s--help')", cmd ? cmd : "", cmd ? " " : "");
	fputc('\n', stderr);
	exit(EXIT_USAGE);
}

void run__die_oom(void)
{
	fprintf(stderr, "sonde: out of memory\n");
	exit(EXIT_RUN_FAILED);
}

void run_opts__init(struct run_opts *o, const char *cmd)
{
	*o = (struct run_opts){
		.cmd = cmd,
		.window_s = 10,
		.interval_s = 1,
		.progress = -1,
		.fail_on = ST_OK,
		.max_overhead_pct = 2,
		.start_ns = clock__ns(CLOCK_MONOTONIC),
	};
}

void run_opts__free(struct run_opts *o)
{
	strv__free(&o->only_checks);
	strv__free(&o->tags);
	strv__free(&o->sets);
	free(o->command_line);
	o->command_line = NULL;
	free(o->upload_url_owned);
	o->upload_url_owned = NULL;
	if (o->upload_token)
		explicit_bzero(o->upload_token, strlen(o->upload_token));
	free(o->upload_token);
	o->upload_token = NULL;
}

void run_plan__check_out_dir(const char *cmd, const char *dir)
{
	struct stat sb;

	if (stat(dir, &sb))
		run__die_usage(cmd, "--out %s: %s", dir, strerror(errno));
	if (!S_ISDIR(sb.st_mode))
		run__die_usage(cmd, "--out %s: not a directory", dir);
	if (access(dir, W_OK | X_OK))
		run__die_usage(cmd, "--out %s: not writable: %s", dir, strerror(errno));
}

void run_plan__load_catalog(const struct run_opts *o, struct catalog *cat)
{
	int64_t deadline = 0;
	char err[1024];

	/* --timeout covers loading too: a check file's top-level code runs then. */
	if (o->timeout_s > 0)
		deadline = o->start_ns + (int64_t)(o->timeout_s * 1e9);
	if (catalog__load_until(cat, o->checks_dir, deadline, err, sizeof(err))) {
		/* A user's check file wrote part of it (its error()): text only. */
		tty__clean_str(err);
		fprintf(stderr, "sonde: %s\n", err);
		exit(EXIT_USAGE);
	}
	for (size_t i = 0; i < o->sets.n; i++)
		if (catalog__set_arg(cat, o->sets.v[i], err, sizeof(err)))
			run__die_usage(o->cmd, "%s", err);
}

/* Does a drill-down rule fire on this check? */
static int is_trigger(const struct catalog *cat, const char *id)
{
	for (size_t m = 0; m < cat->nmeth; m++)
		for (size_t k = 0; k < cat->meth[m].nrules; k++)
			if (!strcmp(cat->meth[m].rules[k].trigger, id))
				return 1;
	return 0;
}

/* The checks this run executes, in catalog (run) order. */
static const struct check_def **select_checks(const struct run_opts *o, const struct catalog *cat,
					      size_t *n)
{
	if (o->methodology && !catalog__methodology(cat, o->methodology))
		run__die_usage(o->cmd,
			       "--methodology %s: no such methodology (use, workload, drilldown)",
			       o->methodology);
	const struct check_def **sel = calloc(cat->nchecks + 1, sizeof(*sel));

	*n = 0;
	if (!sel)
		return NULL;
	for (size_t i = 0; i < o->only_checks.n; i++)
		if (!catalog__check(cat, o->only_checks.v[i]))
			run__die_usage(o->cmd, "--check %s: no such check (see 'sonde list')",
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
		run__die_usage(o->cmd, "no check selected");
	return sel;
}

int run_plan__collectors(const struct check_def *const *defs, size_t n, struct strv *names)
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

/* --container, --pod: one workload; a word of the report, so nothing it cannot show. */
static void check_focus(const struct run_opts *o)
{
	const char *v = o->focus_container ? o->focus_container : o->focus_pod;
	const char *slash;

	if (o->focus_container && o->focus_pod)
		run__die_usage(o->cmd, "--container and --pod name one workload: give one of them");
	if (!v)
		return;
	if (!*v || strlen(v) > 253)
		run__die_usage(o->cmd, "--%s: empty or longer than 253 characters",
			       o->focus_pod ? "pod" : "container");
	for (const char *c = v; *c; c++)
		if ((unsigned char)*c <= ' ' || *c == 0x7f)
			run__die_usage(o->cmd, "--%s: a blank or control character in '%s'",
				       o->focus_pod ? "pod" : "container", v);
	slash = strchr(v, '/');
	if (o->focus_pod && slash && (slash == v || !slash[1] || strchr(slash + 1, '/')))
		run__die_usage(o->cmd, "--pod %s: NAMESPACE/NAME (or the pod's UID)", v);
	if (o->focus_container && slash)
		run__die_usage(o->cmd, "--container %s: a container's name or id has no '/' "
			       "(a pod is --pod NAMESPACE/NAME)", v);
}

void run_plan__make(struct run_plan *p, const struct run_opts *o)
{
	*p = (struct run_plan){ 0 };
	check_focus(o);
	run_plan__load_catalog(o, &p->cat);
	p->sel = select_checks(o, &p->cat, &p->nsel);
	/*
	 * The host context in every bundle, whatever the checks ask for; read in the
	 * first window only (the drill-down window plans its own collectors).
	 */
	if (!p->sel || strv__push(&p->names, HOSTCTX_STREAM) ||
	    run_plan__collectors(p->sel, p->nsel, &p->names))
		run__die_oom();
	/* the workload of --container and --pod is found in the cgroups' captures */
	if ((o->focus_container || o->focus_pod) && !strv__has(&p->names, "proc.cgroups") &&
	    (strv__push(&p->names, "proc.cgroups") || run_plan__collectors(NULL, 0, &p->names)))
		run__die_oom();
}

void run_plan__free(struct run_plan *p)
{
	free(p->sel);
	catalog__free(&p->cat);
	strv__free(&p->names);
}

/*
 * Staging directories (.sonde-run-PID-XXXXXX) and bundle temporaries
 * (.NAME.tmp.XXXXXX) left in dir by a run that was killed: removed when no
 * process holds their lock (util/scratch.h), never by asking whether a PID
 * exists: a sonde in another PID namespace sharing --out (a container) would
 * find a live run's PID missing and take its captures.
 */
static void remove_stale(const char *dir)
{
	scratch__sweep(dir, ".sonde-run-");
	scratch__sweep_files(dir, ".sonde-", ".tmp.");
}

int run_plan__stage(const char *out_dir, char *stage, size_t len, char *raw, size_t rawlen)
{
	int err;

	remove_stale(out_dir);
	snprintf(stage, len, "%s/.sonde-run-%d-XXXXXX", out_dir, (int)getpid());
	/* Locked while this run lives; kept (with its captures) if it ends before the bundle. */
	err = scratch__mkdtemp(stage, 0);
	if (err) {
		fprintf(stderr, "sonde: cannot create a working directory in %s: %s\n", out_dir,
			strerror(-err));
		return -1;
	}
	snprintf(raw, rawlen, "%s/raw", stage);
	if (mkdir(raw, 0700)) {
		fprintf(stderr, "sonde: %s: %s\n", raw, strerror(errno));
		bundle__remove_tree(stage);
		return -1;
	}
	return 0;
}
