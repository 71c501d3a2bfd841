// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sonde run: observe this host for one window, run the checks over what was
 * captured, print the verdict and write the bundle. The stages are in
 * core/run/; this file is the order they run in.
 */
#include <stddef.h>
#include <unistd.h>

#include "bundle/redact.h"
#include "cmd/cmd.h"
#include "run/run.h"

#define F(field) offsetof(struct run_opts, field)

static const struct cmd_choice priorities[] = {
	{ "low", 0 },
	{ "normal", 1 },
	{ NULL, 0 },
};

static const struct cmd_option options[] = {
	{ .name = "window", .letter = 'w', .arg = "SECONDS", .kind = CMD_OPT_SECONDS,
	  .field = F(window_s), .max = 3600,
	  .help = "length of the observation window (default 10)" },
	{ .name = "interval", .letter = 'i', .arg = "SECONDS", .kind = CMD_OPT_SECONDS,
	  .field = F(interval_s), .max = 3600,
	  .help = "sampling interval inside the window (default 1)" },
	{ .name = "out", .letter = 'o', .arg = "DIR", .kind = CMD_OPT_STRING, .field = F(out_dir),
	  .help = "where the bundle goes (default: the current directory)" },
	{ .name = "json", .letter = 'j', .kind = CMD_OPT_FLAG, .field = F(json),
	  .help = "print findings.json on stdout instead of the summary" },
	{ .name = "fail-on", .letter = 'f', .arg = "LEVEL", .kind = CMD_OPT_CHOICE,
	  .field = F(fail_on), .choices = cmd_fail_on_levels,
	  .help = "exit 3 when a finding is at least LEVEL (warn or crit)" },
	{ .name = "checks", .letter = 'C', .arg = "DIR", .kind = CMD_OPT_STRING,
	  .field = F(checks_dir),
	  .help = "also load DIR/<methodology>/*.lua (and DIR/lib/*.lua);\n"
		  "they run with the default set unless --check selects" },
	{ .name = "check", .letter = 'c', .arg = "ID", .kind = CMD_OPT_LIST,
	  .field = F(only_checks),
	  .help = "run only this check (repeatable; see 'sonde list')" },
	{ .name = "tag", .letter = 't', .arg = "TAG", .kind = CMD_OPT_LIST, .field = F(tags),
	  .help = "run the checks with this tag (default: 'default')" },
	{ .name = "priority", .arg = "low|normal", .kind = CMD_OPT_CHOICE,
	  .field = F(normal_priority), .choices = priorities,
	  .help = "low (default): nice 10 and the idle I/O class, so\n"
		  "sonde yields to the workload it observes" },
	{ .name = "set", .arg = "ID.ARG=VAL", .kind = CMD_OPT_LIST, .field = F(sets),
	  .help = "set a check argument, e.g. use.cpu-saturation.warn_runnable=2" },
	{ .name = "no-progress", .kind = CMD_OPT_CONST, .value = 0, .field = F(progress),
	  .help = "no progress line (it is shown only on a terminal anyway)" },
	{ .name = "no-bpf", .kind = CMD_OPT_FLAG, .field = F(no_bpf),
	  .help = "load no BPF tool: the checks run on /proc and /sys only,\n"
		  "and what needed tracing is reported as a known unknown" },
	{ .name = "timeout", .arg = "SECONDS", .kind = CMD_OPT_SECONDS, .field = F(timeout_s),
	  .max = 86400,
	  .help = "the run's deadline (default: the window + 300 s). A read\n"
		  "of /proc that hangs is given up after max(5 s, two\n"
		  "intervals) and the window ends there; past the\n"
		  "deadline the window ends, or, after it, sonde stops\n"
		  "and keeps the captures. The report says what hung" },
	{ .name = "methodology", .arg = "M", .kind = CMD_OPT_STRING, .field = F(methodology),
	  .help = "only the checks of M: use, workload, or drilldown (the\n"
		  "checks whose findings trigger a drill-down, then it)" },
	{ .name = "no-drilldown", .kind = CMD_OPT_FLAG, .field = F(no_drilldown),
	  .help = "no second window: a finding that calls for deeper\n"
		  "checks (methodologies/drilldown.lua) only says so.\n"
		  "By default it runs half as long as the first (>= 2 s)" },
	{ .name = "max-overhead", .arg = "PCT", .kind = CMD_OPT_PERCENT,
	  .field = F(max_overhead_pct),
	  .help = "the overhead guard (default 2): when sonde and its BPF\n"
		  "programs use more than PCT% of the host's CPU over a\n"
		  "sampling interval, the costliest BPF tool is detached\n"
		  "(its data so far kept, the report says so); 0: no guard" },
	{ .name = "no-perf", .kind = CMD_OPT_FLAG, .field = F(no_perf),
	  .help = "open no perf_event counter (perf.counters): IPC, stalls\n"
		  "and software counters become known unknowns" },
	{ .name = "redact", .kind = CMD_OPT_FLAG, .field = F(redact),
	  .help = "pseudonymize host, domain and user names and IPv4, IPv6\n"
		  "and MAC addresses, drop secrets from command lines, in\n"
		  "every file of the bundle and on the terminal; what each\n"
		  "pseudonym stands for goes next to the bundle, never in\n"
		  "it: NAME.redaction-map.json, mode 0600. What is caught\n"
		  "and what is not: docs/redaction.md" },
	{ .name = "keep", .arg = "N", .kind = CMD_OPT_COUNT, .field = F(keep), .max = 1000000,
	  .help = "retention: after writing the bundle, remove this host's\n"
		  "older bundles in --out beyond the newest N (and their\n"
		  "redaction maps); 0 (default): keep them all" },
	{ .name = "color", .arg = "auto|always|never", .kind = CMD_OPT_CHOICE, .field = F(color),
	  .choices = cmd_color_modes,
	  .help = "colour the summary (default: auto,\n"
		  "on a terminal unless NO_COLOR is set)" },
	/* Test hooks, not in --help: a made-up /proc and /sys; progress off a terminal. */
	{ .name = "root", .arg = "DIR", .kind = CMD_OPT_STRING, .field = F(root) },
	{ .name = "progress", .kind = CMD_OPT_CONST, .value = 1, .field = F(progress) },
	{ NULL },
};

const struct cmd_help cmd_run_help = {
	.usage = "sonde run [options]",
	.description =
		"Observe this host for one window, run the checks over what was captured,\n"
		"print the verdict and write a bundle (report.md, report.html, findings.json,\n"
		"manifest.json and the raw captures) named sonde-HOST-UTCTIME.tar.xz, mode 0600.\n",
	.options = options,
	.notes = "Ctrl-C ends the window early: the checks run on what was captured so far\n"
		 "(no drill-down window follows) and the bundle is written, marked partial.\n"
		 "A second Ctrl-C (or one after the window) exits at once; the next run\n"
		 "removes what it left.\n\n"
		 "Exit status: 0 the run completed (whatever it found), 1 the run failed,\n"
		 "2 usage error, 3 a finding reached --fail-on.\n",
};

/* The options, checked together and completed with their defaults. */
static void parse(struct run_opts *o, int argc, char **argv)
{
	int idx;

	run_opts__init(o, "run");
	o->command_line = cmd__command_line(argc + 1, argv - 1);
	idx = cmd__parse(o->cmd, &cmd_run_help, o, argc, argv);
	if (o->interval_s > o->window_s)
		run__die_usage(o->cmd, "--interval %g is longer than --window %g", o->interval_s,
			       o->window_s);
	if (o->window_s / o->interval_s > 100000)
		run__die_usage(o->cmd, "--interval %g: more than 100000 samples in the window",
			       o->interval_s);
	if (idx < argc)
		run__die_usage(o->cmd, "unexpected argument '%s'", argv[idx]);
	if (!o->out_dir)
		o->out_dir = ".";
	if (!o->timeout_s)
		o->timeout_s = o->window_s + 300;
	o->live = 1;
	o->drill_window_s = o->window_s / 2 > 2 ? o->window_s / 2 : 2;
	run_plan__check_out_dir(o->cmd, o->out_dir);
}

int cmd_run(int argc, char **argv)
{
	struct run_opts o;
	struct run_plan plan;
	struct run_outcome oc = { 0 };
	char stage[4096], raw[4200], err[1024];
	struct window_result wr;
	struct redactor *red = NULL;
	struct analysis an;
	int rc, code, progress;

	parse(&o, argc, argv);
	run_plan__make(&plan, &o);
	if (run_plan__stage(o.out_dir, stage, sizeof(stage), raw, sizeof(raw)))
		return EXIT_RUN_FAILED;

	run_observe__arm(&o, stage);
	progress = o.progress == -1 ? (isatty(STDOUT_FILENO) && isatty(STDERR_FILENO)) : o.progress;
	rc = run_observe__window(&o, (const char *const *)plan.names.v, raw, o.window_s,
				 o.interval_s, progress, &wr, err, sizeof(err));
	/* From here a signal means "stop now": the checks and the bundle take a second or less. */
	run_observe__stop_aborts();
	if (rc) {
		fprintf(stderr, "sonde: observing: %s (captures kept in %s)\n", err, stage);
		return EXIT_RUN_FAILED;
	}
	if (progress)
		fprintf(stderr, "  analyzing: %zu checks over %u samples...\r", plan.nsel, wr.samples);
	if (o.redact && !(red = run_observe__redact(&o, stage)))
		return EXIT_RUN_FAILED;

	rc = analysis__open(&an, raw, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "sonde: reading the captures: %s (kept in %s)\n", err, stage);
		return EXIT_RUN_FAILED;
	}
	o.progress_shown = progress;
	run_analyze__checks(&o, &plan, &an, &wr, red, &oc);
	code = run_finish__reports(&o, &oc, stage, 1, red, NULL);
	analysis__close(&an);
	redactor__free(red);
	run_plan__free(&plan);
	run_opts__free(&o);
	return code;
}
