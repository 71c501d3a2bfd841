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
	CMD_OPT_COUNT,   /* int: a whole number from 0 to .max */
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
	double max;          /* CMD_OPT_SECONDS, CMD_OPT_COUNT */
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

/* What perf.counters is, for sonde list and explain (it is no collector of the table). */
#define PERF_COLLECTOR_WHAT "CPU counters per CPU (perf_event_open): IPC, stalls, LLC, ..."

/* --fail-on's levels (enum status values), for the commands that take it. */
extern const struct cmd_choice cmd_fail_on_levels[];
/* --color's modes (enum color_mode in run/run.h), for the commands that colour their output. */
extern const struct cmd_choice cmd_color_modes[];

/*
 * main.c's table of commands, which main() sets before it dispatches: sonde
 * config and sonde completion walk it (they are below main.c and cannot
 * include it). Ends with { NULL }.
 */
extern const struct cmd *cmd__table;

/* options.c */
void cmd_help__print(const struct cmd_help *h, FILE *f);
/*
 * Parse argv's options (getopt_long, so options and arguments may mix) into
 * opts by h's table, after the config file's and the environment's values for
 * cmd (conf.c; precedence: command line, environment, file, the defaults
 * already in opts). -h/--help prints the help and exits 0; --config FILE
 * names the file. An option cmd does not take, a missing value or a bad one
 * is a usage error (exit 2), and so is a bad line of the file (naming file
 * and line). Returns the index of the first argument that is not an option.
 */
int cmd__parse(const char *cmd, const struct cmd_help *h, void *opts, int argc, char **argv);
/*
 * Check arg for o and, with opts, store it in o's field (a list: appended).
 * arg is NULL for an option without a value on the command line; a flag from
 * the file or the environment gets yes/no (no clears a flag, and leaves a
 * CONST option alone). 0, or -EINVAL with why in err, starting with the value
 * ("'abc': not a number of seconds"): the caller says where it came from.
 */
int cmd_option__set(const struct cmd_option *o, void *opts, const char *arg, char *err,
		    size_t errlen);
/* The command of the table named name, or NULL. */
const struct cmd *cmd__find(const char *name);

/*
 * conf.c: the config file and the environment, read into the same fields
 * as the command line, by the same option tables. The file has a [COMMAND]
 * section per command, `OPTION = VALUE` lines (the option's long name, the
 * value as on the command line; a flag takes yes or no; a list option may
 * repeat); the environment SONDE_<COMMAND>_<OPTION> (upper case, '-' as
 * '_'; a list's values separated by blanks). A higher source replaces a
 * list of a lower one, except lists of KEY=VALUE (--set), where it adds, so
 * that for one key the higher source wins. docs/man/sonde.conf.5.scd.
 */
#ifndef SONDE_SYSCONFDIR
#define SONDE_SYSCONFDIR "/etc"
#endif
#define CMD_CONFIG_FILE SONDE_SYSCONFDIR "/sonde/sonde.conf"

/*
 * The file (path: --config's value; NULL: $SONDE_CONFIG, else the default
 * file, which may be absent) and the environment, into opts (NULL: only
 * checked). Every section of the file is checked, not only cmd's: a bad
 * line is a usage error naming file and line.
 */
void conf__load(const char *cmd, const struct cmd_help *h, void *opts, const char *path);
/* The command line sets o next: a list it replaces is emptied of the lower sources' values. */
void conf__from_cmdline(const struct cmd_help *h, const struct cmd_option *o, void *opts);
/* The file that is read (path as for conf__load); *found: it exists. */
const char *conf__path(const char *path, int *found);
/*
 * sonde config: set in the process that prints a command's options; then
 * cmd__parse prints, once the options are parsed, every option the file can
 * set, its value and where it came from, and exits 0 (conf__dump).
 */
extern int conf__dumping;
void conf__dump(const char *cmd, const struct cmd_help *h, const void *opts)
	__attribute__((noreturn));
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
/* The same, returning 0 or -errno with err instead of exiting on a bundle it cannot open. */
int cmd__try_open_members(const char *cmd, const char *path, const struct bundle_want *want,
			  size_t nwant, char *dir, size_t len, int *opened, char *err,
			  size_t errlen);
/*
 * From now on SIGINT, SIGTERM, SIGHUP and SIGPIPE remove this process's
 * scratch directories (util/scratch.h) and a bundle being written, then do
 * what they would have done. cmd__open_members arms it.
 */
void cmd__cleanup_on_signals(void);

/*
 * explain.c: the ctx:metric calls of a check's source, as written: each
 * metric's name and unit and the arguments its thresholds come from.
 */
struct check_def;
struct metric_decl {
	char name[64], unit[32];
	char warn[64], crit[64]; /* the args.NAME of each threshold; "" when computed */
	char warn_expr[96], crit_expr[96]; /* each threshold's expression as written */
	int has_warn, has_crit;
	int warn_plain, crit_plain; /* the threshold is args.NAME alone (not under a condition) */
	int lower;                  /* lower_is_worse */
};
/* Up to max metrics, one per name, into out; how many. */
int check__metric_decls(const struct check_def *d, struct metric_decl *out, size_t max);
/* A check's arguments by name: the one after prev (the first: prev NULL), or NULL. */
struct check_arg;
const struct check_arg *check__next_arg(const struct check_def *d, const struct check_arg *prev);
/* The unit of the metric whose threshold arg is, or NULL. */
const char *check__arg_unit(const struct metric_decl *m, int nm, const char *arg);

/* One per file in core/cmd/. */
int cmd_run(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_redact(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_fleet(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_config(int argc, char **argv);
int cmd_completion(int argc, char **argv);
extern const struct cmd_help cmd_run_help, cmd_analyze_help, cmd_verify_help, cmd_redact_help,
	cmd_diff_help, cmd_show_help, cmd_list_help, cmd_fleet_help, cmd_explain_help,
	cmd_config_help, cmd_completion_help;

#endif
