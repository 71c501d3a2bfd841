// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sonde analyze: today's checks over a bundle's captures, through the same
 * stages as sonde run but the window (core/run/), then how the findings
 * differ from those the bundle recorded.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "bundle/read.h"
#include "cmd/cmd.h"
#include "run/run.h"

#define F(field) offsetof(struct run_opts, field)

static const struct cmd_option options[] = {
	{ .name = "json", .letter = 'j', .kind = CMD_OPT_FLAG, .field = F(json),
	  .help = "print findings.json instead of the summary" },
	{ .name = "out", .letter = 'o', .arg = "DIR", .kind = CMD_OPT_STRING, .field = F(out_dir),
	  .help = "also write a new bundle there" },
	{ .name = "fail-on", .letter = 'f', .arg = "LEVEL", .kind = CMD_OPT_CHOICE,
	  .field = F(fail_on), .choices = cmd_fail_on_levels,
	  .help = "exit 3 when a finding is at least LEVEL (warn or crit)" },
	{ .name = "checks", .letter = 'C', .arg = "DIR", .kind = CMD_OPT_STRING,
	  .field = F(checks_dir), .help = "also load the checks in DIR" },
	{ .name = "check", .letter = 'c', .arg = "ID", .kind = CMD_OPT_LIST,
	  .field = F(only_checks), .help = "run only this check (repeatable)" },
	{ .name = "tag", .letter = 't', .arg = "TAG", .kind = CMD_OPT_LIST, .field = F(tags),
	  .help = "run the checks with this tag" },
	{ .name = "set", .arg = "ID.ARG=VAL", .kind = CMD_OPT_LIST, .field = F(sets),
	  .help = "set a check argument" },
	{ .name = "container", .arg = "NAME", .kind = CMD_OPT_STRING, .field = F(focus_container),
	  .help = "narrow the culprits, the process tables and the\n"
		  "drill-down's suspects to one container: its name, Kubernetes\n"
		  "container name, id or id prefix; the host view stays" },
	{ .name = "pod", .arg = "POD", .kind = CMD_OPT_STRING, .field = F(focus_pod),
	  .help = "the same for a Kubernetes pod: NAMESPACE/NAME, or its UID" },
	{ .name = "methodology", .arg = "M", .kind = CMD_OPT_STRING, .field = F(methodology),
	  .help = "only the checks of M: use, workload, or drilldown" },
	{ .name = "no-drilldown", .kind = CMD_OPT_FLAG, .field = F(no_drilldown),
	  .help = "do not replay the drill-down window the bundle recorded" },
	{ .name = "color", .arg = "auto|always|never", .kind = CMD_OPT_CHOICE, .field = F(color),
	  .choices = cmd_color_modes,
	  .help = "colour the summary (default: auto,\n"
		  "on a terminal unless NO_COLOR is set)" },
	{ NULL },
};

const struct cmd_help cmd_analyze_help = {
	.usage = "sonde analyze BUNDLE [options]",
	.description =
		"Run the current checks again over a bundle's captures: BUNDLE is a bundle\n"
		"file (opened safely in a private directory), an extracted bundle's directory,\n"
		"or a raw/ directory. Nothing is read from this host. Then it says whether the\n"
		"findings differ from those recorded in the bundle (newer checks, other\n"
		"thresholds), as sonde diff would.\n",
	.options = options,
};

/* An extracted bundle (DIR/raw) or a raw directory itself. */
static void find_raw(const char *cmd, const char *dir, char *raw, size_t len)
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
		run__die_usage(cmd, "%s: %s", dir, strerror(errno));
	run__die_usage(cmd, "%s: no captures here (expected DIR/raw/sonde.cap or DIR/sonde.cap)",
		       dir);
}

int cmd_analyze(int argc, char **argv)
{
	/* The captures, and the findings they gave then (compared with today's when present). */
	static const struct bundle_want want[] = { { "raw/", 0 }, { "findings.json", 1 } };
	struct run_opts o;
	struct run_plan plan;
	struct run_outcome oc = { 0 };
	char raw[4200], stage[4096], err[1024], dir[4096];
	struct analysis an;
	struct capture_limits lim = capture_default_limits;
	int idx, code, opened;

	run_cost__mark(&oc.rr.cost, NULL);
	run_opts__init(&o, "analyze");
	o.command_line = cmd__command_line(argc + 1, argv - 1);
	/* getopt permutes: options may come before or after DIR. */
	idx = cmd__parse(o.cmd, &cmd_analyze_help, &o, argc, argv);
	if (idx >= argc)
		run__die_usage(o.cmd,
			       "which captures? sonde analyze BUNDLE (or an extracted bundle's DIR)");
	if (idx + 1 < argc)
		run__die_usage(o.cmd, "unexpected argument '%s'", argv[idx + 1]);
	cmd__open_members(o.cmd, argv[idx], want, sizeof(want) / sizeof(*want), dir, sizeof(dir),
			  &opened);
	find_raw(o.cmd, dir, raw, sizeof(raw));
	if (o.out_dir)
		run_plan__check_out_dir(o.cmd, o.out_dir);
	run_plan__make(&plan, &o);
	run_cost__mark(&oc.rr.cost, "plan");
	/* The captures are parsed under the memory limit the bundle was extracted under. */
	lim.max_memory_bytes = bundle_open_default_limits.max_memory_bytes;
	if (analysis__open_limited(&an, raw, &lim, err, sizeof(err))) {
		fprintf(stderr, "sonde: %s\n", err);
		return EXIT_RUN_FAILED;
	}
	if (run_analyze__stage(&an, o.out_dir, stage, sizeof(stage)))
		return EXIT_RUN_FAILED;
	run_analyze__checks(&o, &plan, &an, NULL, NULL, &oc);
	code = run_finish__reports(&o, &oc, stage, 0, NULL, dir);
	analysis__close(&an);
	run_plan__free(&plan);
	run_opts__free(&o);
	return code;
}
