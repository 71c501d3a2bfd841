// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sonde: the command line. One static table of commands (core/cmd/, one file
 * each, with its own options and --help); main() finds the command and runs it.
 * Exit status: 0 the run completed (whatever it found), 1 the run failed,
 * 2 usage error, 3 a finding reached --fail-on, 4 run --upload could not send the
 * bundle (it is written).
 */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "run/run.h"

static int cmd_help(int argc, char **argv);
static int cmd_version(int argc, char **argv);

static const struct cmd commands[] = {
	{ "run", cmd_run, "observe this host and report (sonde run --help)", &cmd_run_help },
	{ "analyze", cmd_analyze, "run the checks again over a bundle (no live host access)",
	  &cmd_analyze_help },
	{ "verify", cmd_verify, "check a bundle's members against its manifest", &cmd_verify_help },
	{ "redact", cmd_redact, "a copy of a bundle with names, addresses and secrets pseudonymized",
	  &cmd_redact_help },
	{ "diff", cmd_diff, "what changed between two bundles (findings, metrics beyond noise)",
	  &cmd_diff_help },
	{ "show", cmd_show, "print a bundle's summary, report or one member", &cmd_show_help },
	{ "list", cmd_list, "the checks and collectors, and what this host can provide",
	  &cmd_list_help },
	{ "fleet", cmd_fleet, "one summary of many hosts' bundles", &cmd_fleet_help },
	{ "explain", cmd_explain, "what a check reads, its thresholds and the findings it raises",
	  &cmd_explain_help },
	{ "config", cmd_config, "every configurable option's value and where it comes from",
	  &cmd_config_help },
	{ "completion", cmd_completion, "print the bash or zsh completion script",
	  &cmd_completion_help },
	{ "help", cmd_help, "this text; 'sonde help COMMAND' for a command", NULL },
	{ "version", cmd_version, "print the version", NULL },
	{ NULL, NULL, NULL, NULL },
};

static void main_help(FILE *f)
{
	fprintf(f, "usage: sonde COMMAND [options]\n\n"
		   "sonde finds the bottleneck of a Linux host in one short observation window:\n"
		   "it samples /proc and /sys, runs USE-method and workload checks (Lua) over\n"
		   "the captures, prints the verdict and writes a bundle with the report and\n"
		   "the raw evidence.\n\n"
		   "commands:\n");
	for (const struct cmd *c = commands; c->name; c++)
		fprintf(f, "  %-10s %s\n", c->name, c->summary);
	fprintf(f, "\nexamples:\n"
		   "  sonde run                         10 s window, verdict on the terminal\n"
		   "  sonde run -w 5 -o /var/tmp --json  findings.json on stdout\n"
		   "  sonde run --fail-on crit          for cron/CI: exit 3 on a critical finding\n");
}

/* The static build (make static) says so: it cannot upload, a support engineer asks which one ran. */
#ifdef SONDE_STATIC
#define SONDE_BUILD " (static)"
#else
#define SONDE_BUILD ""
#endif

static int cmd_version(int argc, char **argv)
{
	printf("sonde %s%s\n", SONDE_VERSION, SONDE_BUILD);
	return 0;
}

/* sonde help [COMMAND]: the command's --help, or this one. */
static int cmd_help(int argc, char **argv)
{
	if (argc > 1)
		for (const struct cmd *c = commands; c->name; c++)
			if (!strcmp(c->name, argv[1]) && c->help) {
				cmd_help__print(c->help, stdout);
				return 0;
			}
	main_help(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	cmd__table = commands;
	if (argc < 2) {
		main_help(stdout);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		main_help(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))
		return cmd_version(0, NULL);
	for (const struct cmd *c = commands; c->name; c++)
		if (!strcmp(c->name, argv[1]))
			return c->fn(argc - 1, argv + 1);
	run__die_usage(NULL, "unknown command '%s'", argv[1]);
}
