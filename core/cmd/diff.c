// SPDX-License-Identifier: GPL-2.0-or-later
/* sonde diff: what changed between two bundles, judged against each metric's noise. */
#include <stddef.h>
#include <stdio.h>

#include "bundle/diff.h"
#include "bundle/read.h"
#include "cmd/cmd.h"
#include "run/run.h"
#include "util/tty.h"

struct diff_opts {
	int json, md, html, fail_on;
};

#define F(field) offsetof(struct diff_opts, field)

static const struct cmd_option options[] = {
	{ .name = "json", .letter = 'j', .kind = CMD_OPT_FLAG, .field = F(json),
	  .help = "the changes as JSON" },
	{ .name = "md", .kind = CMD_OPT_FLAG, .field = F(md), .help = "the changes as Markdown" },
	{ .name = "html", .kind = CMD_OPT_FLAG, .field = F(html),
	  .help = "the changes as an HTML page" },
	{ .name = "fail-on", .letter = 'f', .arg = "LEVEL", .kind = CMD_OPT_CHOICE,
	  .field = F(fail_on), .choices = cmd_fail_on_levels,
	  .help = "exit 3 when a new or worse finding is at least LEVEL\n(warn or crit)" },
	{ NULL },
};

const struct cmd_help cmd_diff_help = {
	.usage = "sonde diff OLD NEW [--json | --md | --html] [--fail-on warn|crit]",
	.description =
		"What changed between two bundles (of one host, or of two): findings new,\n"
		"resolved, persisting, worse and better, and each metric's change judged\n"
		"against the spread of its per-interval values in both windows, so that\n"
		"noise is not called a regression. OLD and NEW are bundle files (opened\n"
		"safely) or extracted bundle directories.\n",
	.options = options,
	.notes = "Exit status: 0 compared, 1 a bundle could not be read, 2 usage error,\n"
		 "3 a new or worse finding reached --fail-on.\n",
};

int cmd_diff(int argc, char **argv)
{
	static const struct bundle_want findings = { "findings.json", 0 };
	const char *cmd = "diff";
	struct diff_opts o = { .fail_on = ST_OK };
	enum diff_format fmt = DIFF_TEXT;
	char a[4096], b[4096], err[1024], what[1024] = "";
	enum status worst;
	int idx, opened;

	idx = cmd__parse(cmd, &cmd_diff_help, &o, argc, argv);
	if (argc - idx != 2)
		run__die_usage(cmd, "which bundles? sonde diff OLD NEW");
	if (o.json + o.md + o.html > 1)
		run__die_usage(cmd, "one of --json, --md, --html");
	fmt = o.json ? DIFF_JSON : o.md ? DIFF_MD : o.html ? DIFF_HTML : DIFF_TEXT;
	/* findings.json is all diff reads of a bundle: nothing else is written out. */
	cmd__open_members(cmd, argv[idx], &findings, 1, a, sizeof(a), &opened);
	cmd__open_members(cmd, argv[idx + 1], &findings, 1, b, sizeof(b), &opened);
	if (diff__run(a, b, argv[idx], argv[idx + 1], fmt, stdout, &worst,
		      what, sizeof(what), NULL, err, sizeof(err))) {
		/* it names the bundle as given (a glob's file name) and the bundle's fault */
		fputs("sonde: ", stderr);
		tty__puts(stderr, err);
		fputc('\n', stderr);
		return EXIT_RUN_FAILED;
	}
	fflush(stdout);
	return run_finish__fail_on(o.fail_on, worst, what);
}
