// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Options as data: a command's table (struct cmd_option) becomes
 * getopt_long's arrays, the values are checked and stored by kind
 * (values.c), over those of the config file and the environment (conf.c),
 * and --help prints the same table. Every command parses the same way; each
 * accepts only its own options.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "run/run.h"
#include "util/strbuf.h"

/* More than any command has: the arrays below are on the stack. */
#define CMD_MAX_OPTIONS 40
/* --help: an option's text starts in this column ("  -w, --window SECONDS   length ..."). */
#define HELP_LEFT 22

static void print_option(const struct cmd_option *o, FILE *f)
{
	const char *text = o->help;
	size_t len = strcspn(text, "\n");
	char left[96];

	snprintf(left, sizeof(left), "%s%c%s--%s%s%s", o->letter ? "-" : " ",
		 o->letter ? o->letter : ' ', o->letter ? ", " : "  ", o->name, o->arg ? " " : "",
		 o->arg ? o->arg : "");
	/* A long left part keeps two spaces before its text: one would read as part of it. */
	if (strlen(left) <= HELP_LEFT)
		fprintf(f, "  %-*s %.*s\n", HELP_LEFT, left, (int)len, text);
	else
		fprintf(f, "  %s  %.*s\n", left, (int)len, text);
	while (text[len] == '\n') {
		text += len + 1;
		len = strcspn(text, "\n");
		fprintf(f, "%*s%.*s\n", HELP_LEFT + 3, "", (int)len, text);
	}
}

/* getopt_long's value for --config, which every command with an option table takes. */
#define OPT_CONFIG 200

static const struct cmd_option config_option = {
	.name = "config", .arg = "FILE", .kind = CMD_OPT_STRING,
	.help = "read FILE instead of " CMD_CONFIG_FILE "\n(see 'sonde config')",
};

void cmd_help__print(const struct cmd_help *h, FILE *f)
{
	int shown = 0;

	fprintf(f, "usage: %s\n\n%s", h->usage, h->description);
	for (const struct cmd_option *o = h->options; o && o->name; o++) {
		if (!o->help)
			continue;
		if (!shown++)
			fputc('\n', f);
		print_option(o, f);
	}
	if (h->options) {
		if (!shown)
			fputc('\n', f);
		print_option(&config_option, f);
	}
	if (h->notes)
		fprintf(f, "\n%s", h->notes);
}

/* getopt_long's value for an option: its letter, or one past the characters. */
static int option_val(const struct cmd_help *h, const struct cmd_option *o)
{
	return o->letter ? o->letter : 256 + (int)(o - h->options);
}

static const struct cmd_option *option_by_val(const struct cmd_help *h, int val)
{
	for (const struct cmd_option *o = h->options; val && o && o->name; o++)
		if (option_val(h, o) == val)
			return o;
	return NULL;
}

static void set_option(const char *cmd, const struct cmd_option *o, void *opts, const char *arg)
{
	char err[1024];

	if (cmd_option__set(o, opts, arg, err, sizeof(err)))
		run__die_usage(cmd, "--%s %s", o->name, err);
}

static void refuse_word(const char *cmd, const char *word)
{
	run__die_usage(cmd, "'sonde %s' does not take %.*s", cmd, (int)strcspn(word, "="), word);
}

/*
 * getopt_long said '?': an option cmd does not take (whether another command
 * takes it or none does), or one of its own without its value or with one it
 * does not take. argv[optind - 1] is the word at fault.
 */
static void refuse(const char *cmd, const struct cmd_help *h, char **argv)
{
	const struct cmd_option *o = option_by_val(h, optopt);
	const char *word = argv[optind - 1];

	if ((o && o->arg) || (optopt == OPT_CONFIG && h->options))
		run__die_usage(cmd, "%s needs a value", word);
	if (o || optopt == 'h')
		run__die_usage(cmd, "%.*s takes no value", (int)strcspn(word, "="), word);
	if (optopt)
		run__die_usage(cmd, "'sonde %s' does not take -%c", cmd, optopt);
	refuse_word(cmd, word);
}

/*
 * A long option is taken by its whole name only: getopt_long would read
 * `sonde list --check X` as list's --checks, an abbreviation the user never
 * meant. The word is the one just parsed, or the one before its value.
 */
static void check_whole_name(const char *cmd, const struct option *lo, char **argv)
{
	const char *word = argv[optind - 1];
	size_t len = strlen(lo->name);

	if (lo->has_arg && optarg == word)
		word = argv[optind - 2];
	if (strncmp(word + 2, lo->name, len) || (word[2 + len] && word[2 + len] != '='))
		refuse_word(cmd, word);
}

/*
 * --config's value, found before the options are parsed: the file's values
 * go under the command line's. A word that is another option's value is
 * skipped; the last --config wins, as getopt would have it.
 */
static const char *config_arg(const struct cmd_help *h, int argc, char **argv)
{
	const char *path = NULL;

	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		const char *w = argv[i];

		if (!strncmp(w, "--config=", 9)) {
			path = w + 9;
			continue;
		}
		if (!strcmp(w, "--config")) {
			if (i + 1 < argc)
				path = argv[++i];
			continue;
		}
		for (const struct cmd_option *o = h->options; o->name; o++)
			if (o->arg && !strchr(w, '=') &&
			    ((w[0] == '-' && w[1] == '-' && !strcmp(w + 2, o->name)) ||
			     (o->letter && w[0] == '-' && w[1] == o->letter && !w[2]))) {
				i++;
				break;
			}
	}
	return path;
}

int cmd__parse(const char *cmd, const struct cmd_help *h, void *opts, int argc, char **argv)
{
	struct option longopts[CMD_MAX_OPTIONS + 3];
	char shortopts[2 * CMD_MAX_OPTIONS + 2];
	size_t n = 0, s = 0;
	int c, li;

	for (const struct cmd_option *o = h->options; o && o->name; o++) {
		if (n == CMD_MAX_OPTIONS) {
			fprintf(stderr, "sonde: 'sonde %s' has more than %d options\n", cmd,
				CMD_MAX_OPTIONS);
			abort();
		}
		longopts[n++] = (struct option){ o->name, o->arg ? required_argument : no_argument,
						 NULL, option_val(h, o) };
		if (o->letter) {
			shortopts[s++] = o->letter;
			if (o->arg)
				shortopts[s++] = ':';
		}
	}
	longopts[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	if (h->options)
		longopts[n++] = (struct option){ "config", required_argument, NULL, OPT_CONFIG };
	longopts[n] = (struct option){ 0 };
	shortopts[s++] = 'h';
	shortopts[s] = '\0';

	/* The file and the environment first: the command line is parsed over them. */
	if (h->options)
		conf__load(cmd, h, opts, config_arg(h, argc, argv));
	optind = 1;
	opterr = 0;
	while ((li = -1, c = getopt_long(argc, argv, shortopts, longopts, &li)) != -1) {
		const struct cmd_option *o = option_by_val(h, c);

		if (c == '?')
			refuse(cmd, h, argv);
		if (li >= 0)
			check_whole_name(cmd, &longopts[li], argv);
		if (c == 'h') {
			cmd_help__print(h, stdout);
			exit(0);
		}
		if (c == OPT_CONFIG)
			continue;
		conf__from_cmdline(h, o, opts);
		set_option(cmd, o, opts, optarg);
	}
	if (conf__dumping)
		conf__dump(cmd, h, opts);
	return optind;
}

char *cmd__command_line(int argc, char **argv)
{
	struct strbuf sb = { 0 };

	for (int i = 0; i < argc; i++) {
		if (i)
			strbuf__puts(&sb, " ");
		strbuf__puts(&sb, argv[i]);
	}
	return sb.buf ? sb.buf : strdup("");
}
