// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sonde config: every option the config file can set, for every command
 * (or those named), with its effective value and where it came from: the
 * command line cannot be given here, so the environment, the file, or the
 * default. Each command's own code sets its defaults and parses its options
 * (conf.c, options.c), in a child process that prints them and exits before
 * the command would do anything: what is printed is what that command sees.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "run/run.h"

static const struct cmd_option options[] = {
	{ NULL },
};

const struct cmd_help cmd_config_help = {
	.usage = "sonde config [COMMAND...] [--config FILE]",
	.description =
		"Print, for each command (or each COMMAND named), every option the config file\n"
		"can set, its effective value and where that comes from: the environment\n"
		"(SONDE_<COMMAND>_<OPTION>), the file and line, or the default. The output is\n"
		"itself a valid config file. A bad line of the file is an error naming file\n"
		"and line (exit 2).\n",
	.options = options,
	.notes = "Precedence: command line, then environment, then file, then defaults.\n"
		 "The file: " CMD_CONFIG_FILE ", or --config FILE, or $SONDE_CONFIG;\n"
		 "its syntax: 'man sonde.conf'.\n",
};

/* The command's own parsing, in a child: it prints and exits there (conf__dump). */
static int dump_command(const struct cmd *c, const char *config)
{
	/* argv[-1] is "sonde", as main() passes it: run and analyze record the command line. */
	char *argv[] = { "sonde", (char *)c->name, "--config", (char *)config, NULL };
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("sonde: fork");
		return EXIT_RUN_FAILED;
	}
	if (pid == 0) {
		conf__dumping = 1;
		/* A command that returned without parsing would be a bug here: say so. */
		c->fn(config ? 3 : 1, argv + 1);
		fprintf(stderr, "sonde: config: 'sonde %s' did not parse its options\n", c->name);
		_exit(EXIT_RUN_FAILED);
	}
	if (waitpid(pid, &status, 0) < 0) {
		perror("sonde: waitpid");
		return EXIT_RUN_FAILED;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : EXIT_RUN_FAILED;
}

static int settable(const struct cmd *c)
{
	return c->help && c->help->options && c->help->options->name;
}

int cmd_config(int argc, char **argv)
{
	const char *cmd = "config", *config = NULL, *file;
	int idx, found, rc;

	/* --config is the only option; the children are given it again. */
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--config") && i + 1 < argc)
			config = argv[++i];
		else if (!strncmp(argv[i], "--config=", 9))
			config = argv[i] + 9;
	idx = cmd__parse(cmd, &cmd_config_help, NULL, argc, argv);
	for (int i = idx; i < argc; i++) {
		const struct cmd *c = cmd__find(argv[i]);

		if (!c)
			run__die_usage(cmd, "'%s': no such command", argv[i]);
		if (!settable(c))
			run__die_usage(cmd, "'sonde %s' has no options to set", argv[i]);
	}
	file = conf__path(config, &found);
	printf("# sonde config: each option's effective value and where it comes from\n"
	       "# file: %s%s\n",
	       file, found ? "" : " (absent: nothing read from it)");
	for (const struct cmd *c = cmd__table; c && c->name; c++) {
		int named = idx == argc;

		for (int i = idx; i < argc; i++)
			named |= !strcmp(argv[i], c->name);
		if (!named || !settable(c))
			continue;
		if ((rc = dump_command(c, config)))
			return rc;
	}
	return 0;
}
