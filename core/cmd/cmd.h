/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The command line: one file per subcommand, each with its options as data
 * (struct cmd_option) from which options.c builds getopt_long's arrays and
 * --help's option list, so that man pages and shell completion can read the
 * same tables. main.c dispatches from one table of struct cmd.
 */
#ifndef SONDE_CMD_H
#define SONDE_CMD_H

#include <stddef.h>
#include <stdio.h>

/* What an option does to its field (struct cmd_option.field) in the command's options. */
enum cmd_opt_kind {
	CMD_OPT_FLAG,    /* int := 1 */
	CMD_OPT_CONST,   /* int := .value */
	CMD_OPT_STRING,  /* const char * := the argument */
	CMD_OPT_LIST,    /* struct strv: the argument appended (repeatable) */
	CMD_OPT_SECONDS, /* double: seconds, more than 0, at most .max */
	CMD_OPT_PERCENT, /* double: a percentage from 0 (off) to 100, a '%' after it allowed */
	CMD_OPT_CHOICE,  /* int := the .value of the choice named */
};

struct cmd_choice {
	const char *name;
	int value;
};

struct cmd_option {
	const char *name;    /* the long name, without "--" */
	char letter;         /* the short form, or 0 */
	const char *arg;     /* the argument's name in --help (SECONDS); NULL: takes none */
	const char *help;    /* lines, '\n' between them; NULL: not in --help (a test hook) */
	enum cmd_opt_kind kind;
	size_t field;        /* offsetof() the field it sets */
	double max;          /* CMD_OPT_SECONDS */
	int value;           /* CMD_OPT_CONST */
	const struct cmd_choice *choices; /* CMD_OPT_CHOICE, ends with { NULL } */
};

/* --help: usage line, description, the options (from the table), notes. */
struct cmd_help {
	const char *usage;       /* after "usage: " */
	const char *description; /* paragraphs, ending with '\n' */
	const struct cmd_option *options; /* ends with { NULL }; NULL: none */
	const char *notes;       /* after the options, or NULL */
};

/* One line of main.c's command table. */
struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv); /* argv[0] is the command's name; the exit status */
	const char *summary;              /* one line, for sonde --help */
	const struct cmd_help *help;      /* NULL: sonde help COMMAND shows sonde --help */
};

/* --fail-on's levels (enum status values), for the commands that take it. */
extern const struct cmd_choice cmd_fail_on_levels[];

/* options.c */
void cmd_help__print(const struct cmd_help *h, FILE *f);
/*
 * Parse argv's options (getopt_long, so options and arguments may mix) into
 * opts by h's table; -h/--help prints the help and exits 0. An option cmd
 * does not take, a missing value or a bad one is a usage error (exit 2).
 * Returns the index of the first argument that is not an option.
 */
int cmd__parse(const char *cmd, const struct cmd_help *h, void *opts, int argc, char **argv);
/* The command line, words joined by spaces, for the manifest and the report (malloc'ed). */
char *cmd__command_line(int argc, char **argv);

/*
 * open.c: a bundle named on the command line. A bundle file is opened into
 * a private directory (bundle__extract: a child process with memory and time
 * limits, refusing anything a bundle never holds), removed at exit and on a
 * signal that ends the command; a directory is used as it is. *opened says
 * which. Exits on failure.
 */
void cmd__open_bundle(const char *cmd, const char *path, char *dir, size_t len, int *opened);
/* The same, writing only the members in want (bundle__extract_some). */
struct bundle_want;
void cmd__open_members(const char *cmd, const char *path, const struct bundle_want *want,
		       size_t nwant, char *dir, size_t len, int *opened);
/*
 * From now on SIGINT, SIGTERM, SIGHUP and SIGPIPE remove this process's
 * scratch directories (util/scratch.h) and a bundle being written, then do
 * what they would have done. cmd__open_members arms it.
 */
void cmd__cleanup_on_signals(void);

/* One per file in core/cmd/. */
int cmd_run(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_redact(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_list(int argc, char **argv);
extern const struct cmd_help cmd_run_help, cmd_analyze_help, cmd_verify_help, cmd_redact_help,
	cmd_diff_help, cmd_show_help, cmd_list_help;

#endif
