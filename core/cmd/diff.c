// SPDX-License-Identifier: GPL-2.0-or-later
/* sonde diff: what changed between two bundles, or against a baseline of earlier audits. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle/diff.h"
#include "bundle/read.h"
#include "cmd/cmd.h"
#include "run/run.h"
#include "util/file.h"
#include "util/tty.h"

#define BASELINE_FROM_DIR 8 /* earlier audits a --baseline directory gives, the newest */
#define FAIL_REGRESSION 100 /* --fail-on regression: not a severity */

struct diff_opts {
	int json, md, baseline, fail_on;
	const char *html;
};

#define F(field) offsetof(struct diff_opts, field)

static const struct cmd_choice fail_on_levels[] = {
	{ "warn", ST_WARN },
	{ "crit", ST_CRIT },
	{ "regression", FAIL_REGRESSION },
	{ NULL, 0 },
};

static const struct cmd_option options[] = {
	{ .name = "json", .letter = 'j', .kind = CMD_OPT_FLAG, .field = F(json),
	  .help = "the changes as JSON (schema sonde.diff/2)" },
	{ .name = "md", .kind = CMD_OPT_FLAG, .field = F(md), .help = "the changes as Markdown" },
	{ .name = "html", .arg = "FILE", .kind = CMD_OPT_STRING, .field = F(html),
	  .help = "the changes as one self-contained HTML page in FILE\n(- for stdout)" },
	{ .name = "baseline", .letter = 'b', .kind = CMD_OPT_FLAG, .field = F(baseline),
	  .help = "compare NEW with the earlier audits named before it\n(bundles, or directories "
		  "of bundles: the host's 8 newest)" },
	{ .name = "fail-on", .letter = 'f', .arg = "LEVEL", .kind = CMD_OPT_CHOICE,
	  .field = F(fail_on), .choices = fail_on_levels,
	  .help = "exit 3 when a new or worse finding is at least LEVEL\n(warn or crit), or on "
		  "any regression (regression)" },
	{ NULL },
};

const struct cmd_help cmd_diff_help = {
	.usage = "sonde diff OLD NEW | --baseline DIR|BUNDLE... NEW [--json | --md | --html FILE]\n"
		 "       [--fail-on warn|crit|regression]",
	.description =
		"What changed between two bundles (of one host, or of two), or between a\n"
		"bundle and a baseline of earlier audits of its host (their median, their\n"
		"spread as the noise): findings new, resolved, persisting, worse and better;\n"
		"each metric's change judged against its noise; the host's configuration\n"
		"(kernel, boot parameters, sysctls, packages, mounts, cgroup limits,\n"
		"topology); the processes, by command and cgroup; the latency percentiles\n"
		"with their confidence; the functions and stacks whose share of the profile\n"
		"changed beyond sampling noise, and a differential flame graph (--html).\n"
		"Bundles are bundle files (opened safely) or extracted bundle directories.\n",
	.options = options,
	.notes = "Exit status: 0 compared, 1 a bundle could not be read, 2 usage error,\n"
		 "3 --fail-on was reached (named on stderr).\n",
};

/* What the diff reads of a bundle: its findings, its manifest and its captures. */
static const struct bundle_want want[] = {
	{ "findings.json", 0 },
	{ "manifest.json", 1 },
	{ "raw/", 1 },
};

struct opened {
	struct diff_input in[DIFF_BASELINE_MAX + 1];
	char dir[DIFF_BASELINE_MAX + 1][4096];
	size_t n;
};

static void open_one(const char *cmd, const char *path, struct opened *o)
{
	char err[1024];
	int was;

	if (o->n > DIFF_BASELINE_MAX)
		run__die_usage(cmd, "at most %d earlier bundles in a baseline", DIFF_BASELINE_MAX);
	/*
	 * Its captures are the larger part (a hostile or huge bundle, a small
	 * TMPDIR): without them the diff still compares the findings, and says so.
	 */
	if (cmd__try_open_members(cmd, path, want, sizeof(want) / sizeof(*want), o->dir[o->n],
				  sizeof(o->dir[o->n]), &was, err, sizeof(err))) {
		/* want's first two: the findings and the manifest */
		cmd__open_members(cmd, path, want, 2, o->dir[o->n], sizeof(o->dir[o->n]), &was);
		fputs("sonde: ", stderr);
		tty__puts(stderr, path);
		fputs(": its captures were not read (", stderr);
		tty__puts(stderr, err);
		fputs("): findings only\n", stderr);
	}
	o->in[o->n].dir = o->dir[o->n];
	o->in[o->n].name = path;
	o->n++;
}

/* A directory that is not an extracted bundle: the earlier audits of new_dir's host in it. */
static void open_dir(const char *cmd, const char *dir, const char *new_dir, struct opened *o)
{
	struct strv paths = { 0 }, notes = { 0 };
	char err[1024];

	if (diff__baseline_dir(dir, new_dir, BASELINE_FROM_DIR, &paths, &notes, err, sizeof(err))) {
		fputs("sonde: --baseline ", stderr);
		tty__puts(stderr, err);
		fputc('\n', stderr);
		exit(EXIT_RUN_FAILED);
	}
	for (size_t i = 0; i < notes.n; i++) {
		fputs("sonde: --baseline: ", stderr);
		tty__puts(stderr, notes.v[i]);
		fputc('\n', stderr);
	}
	if (!paths.n)
		run__die_usage(cmd, "%s: no earlier audit of this host in it", dir);
	/* the names live as long as the command: paths is not freed */
	for (size_t i = 0; i < paths.n; i++)
		open_one(cmd, paths.v[i], o);
	strv__free(&notes);
}

static int is_bundle_dir(const char *path)
{
	char f[4200];
	struct stat sb;

	if (stat(path, &sb) || !S_ISDIR(sb.st_mode))
		return 1; /* a file: a bundle (its opening says otherwise) */
	snprintf(f, sizeof(f), "%s/findings.json", path);
	return !access(f, F_OK);
}

/* The output: stdout, or FILE replaced whole once it is written. */
static int write_out(const char *html, char *buf, size_t len)
{
	int rc;

	if (!html || !strcmp(html, "-")) {
		fwrite(buf, 1, len, stdout);
		return fflush(stdout) ? -EIO : 0;
	}
	rc = file__replace(html, buf, len, 0600);
	if (rc)
		fprintf(stderr, "sonde: --html %s: %s\n", html, strerror(-rc));
	return rc;
}

static int fail_on(int level, const struct diff_result *res)
{
	if (level != FAIL_REGRESSION)
		return run_finish__fail_on(level, res->worst, res->worst_what);
	if (!res->regressions)
		return 0;
	fprintf(stderr, "sonde: --fail-on regression: %zu regression%s; the first: ",
		res->regressions, res->regressions == 1 ? "" : "s");
	tty__puts(stderr, res->regression_what);
	fputc('\n', stderr);
	return EXIT_FAIL_ON;
}

int cmd_diff(int argc, char **argv)
{
	const char *cmd = "diff";
	struct diff_opts o = { .fail_on = ST_OK };
	struct opened *op = calloc(1, sizeof(*op));
	enum diff_format fmt;
	struct diff_result res;
	char err[1024], *buf = NULL;
	size_t len = 0;
	FILE *mem;
	int idx, nargs, rc;

	if (!op)
		return EXIT_RUN_FAILED;
	idx = cmd__parse(cmd, &cmd_diff_help, &o, argc, argv);
	nargs = argc - idx;
	if (!o.baseline && nargs != 2)
		run__die_usage(cmd, "which bundles? sonde diff OLD NEW");
	if (o.baseline && nargs < 2)
		run__die_usage(cmd, "which audits? sonde diff --baseline DIR|BUNDLE... NEW");
	if (o.json + o.md + (o.html != NULL) > 1)
		run__die_usage(cmd, "one of --json, --md, --html");
	fmt = o.json ? DIFF_JSON : o.md ? DIFF_MD : o.html ? DIFF_HTML : DIFF_TEXT;
	/* the new audit first: a baseline directory is read for its host */
	open_one(cmd, argv[argc - 1], op);
	for (int i = idx; i < argc - 1; i++) {
		if (o.baseline && !is_bundle_dir(argv[i]))
			open_dir(cmd, argv[i], op->dir[0], op);
		else
			open_one(cmd, argv[i], op);
	}
	mem = open_memstream(&buf, &len);
	if (!mem)
		return EXIT_RUN_FAILED;
	{
		const struct diff_request req = { &op->in[1], op->n - 1, &op->in[0], fmt, 0 };

		rc = diff__run(&req, mem, &res, err, sizeof(err));
	}
	fclose(mem);
	if (rc) {
		/* it names the bundle as given (a glob's file name) and the bundle's fault */
		fputs("sonde: ", stderr);
		tty__puts(stderr, err);
		fputc('\n', stderr);
		free(buf);
		return EXIT_RUN_FAILED;
	}
	rc = write_out(fmt == DIFF_HTML ? o.html : NULL, buf, len);
	free(buf);
	free(op);
	if (rc)
		return EXIT_RUN_FAILED;
	return fail_on(o.fail_on, &res);
}
