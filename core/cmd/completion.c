// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sonde completion bash|zsh: the shell completion scripts. Both are small and
 * fixed: at each TAB they ask `sonde completion complete -- WORDS...`, which
 * answers from the same tables --help prints (main.c's commands, each
 * command's options and choices, its usage line's arguments) and from the
 * catalog (check ids, tags, methodologies, --set arguments, with a --checks
 * DIR given earlier on the line). So an option or a command added to a table
 * completes at once, and the two shells cannot disagree.
 *
 * The answer: one candidate a line ("word", a tab, a description), or one
 * directive line, ":files", ":dirs" or ":bundles", that lets the shell
 * complete file names itself.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/bundle.h"
#include "cmd/cmd.h"
#include "run/run.h"

const struct cmd_help cmd_completion_help = {
	.usage = "sonde completion bash|zsh",
	.description =
		"Print the shell completion script for bash or zsh. Installed packages put it\n"
		"where the shell finds it; from a source tree: source <(./sonde completion bash).\n"
		"The script completes commands, options and their values (check ids, tags,\n"
		"methodologies, --set arguments with their defaults, choices), directories\n"
		"and bundle files, asking sonde itself at each TAB.\n",
	.notes = "'sonde completion complete -- WORD...' is what the scripts ask: the candidates\n"
		 "for the last WORD, one a line (a tab before its description), or :files,\n"
		 ":dirs or :bundles for the shell to complete file names.\n",
};

/* Where a script names the bundle extensions (bundle_exts, without their dots, '|' between). */
#define EXTS "@EXTS@"

static const char bash_script[] =
	"# bash completion for sonde (printed by 'sonde completion bash')\n"
	"_sonde() {\n"
	"\tlocal cur prev words cword split\n"
	"\t_init_completion -s || return\n"
	"\tlocal line kind=words\n"
	"\tlocal -a ask=(\"${words[@]:0:cword}\") cand=()\n"
	"\t# --opt=value was split into prev and cur: sonde is asked about \"--opt value\"\n"
	"\t[[ $split == true ]] && ask+=(\"$prev\")\n"
	"\twhile IFS= read -r line; do\n"
	"\t\tcase $line in\n"
	"\t\t:files | :dirs | :bundles) kind=${line#:} ;;\n"
	"\t\t*) cand+=(\"${line%%$'\\t'*}\") ;;\n"
	"\t\tesac\n"
	"\tdone < <(\"${words[0]}\" completion complete -- \"${ask[@]}\" \"$cur\" 2>/dev/null)\n"
	"\tcase $kind in\n"
	"\tfiles) _filedir ;;\n"
	"\tdirs) _filedir -d ;;\n"
	"\tbundles) _filedir '@(" EXTS ")' ;;\n"
	"\t# Never through compgen -W, which expands $(...) in a word: a check id or a\n"
	"\t# --set default from a --checks DIR would run at TAB. sonde matched the prefix;\n"
	"\t# each word is quoted as it goes on the line (%q), so it stays a word.\n"
	"\t*) for line in \"${cand[@]}\"; do\n"
	"\t\tprintf -v line %q \"$line\" && COMPREPLY+=(\"$line\")\n"
	"\tdone ;;\n"
	"\tesac\n"
	"}\n"
	"complete -F _sonde sonde\n";

static const char zsh_script[] =
	"#compdef sonde\n"
	"# zsh completion for sonde (printed by 'sonde completion zsh')\n"
	"_sonde() {\n"
	"\tlocal line kind=words\n"
	"\tlocal -a cand\n"
	"\tfor line in \"${(@f)$(${words[1]} completion complete -- \"${(@)words[1,CURRENT]}\" "
	"2>/dev/null)}\"; do\n"
	"\t\tcase $line in\n"
	"\t\t:files | :dirs | :bundles) kind=${line#:} ;;\n"
	"\t\t*$'\\t'*) cand+=(\"${${line%%$'\\t'*}//:/\\\\:}:${line#*$'\\t'}\") ;;\n"
	"\t\t?*) cand+=(\"${line//:/\\\\:}\") ;;\n"
	"\t\tesac\n"
	"\tdone\n"
	"\tcase $kind in\n"
	"\tfiles) _files ;;\n"
	"\tdirs) _files -/ ;;\n"
	"\tbundles) _files -g '*.(" EXTS ")(-.)' ;;\n"
	"\t*) _describe -t values sonde cand ;;\n"
	"\tesac\n"
	"}\n"
	"_sonde \"$@\"\n";

/* The word being completed, and the prefix a candidate needs (--opt= when it was one word). */
struct want {
	const char *cur;
	char prefix[128];
};

/*
 * How long s runs before its first control character (C0: a newline, a tab,
 * ESC; DEL; C1 in UTF-8, U+0080-U+009F, which some terminals obey) or its end.
 */
static size_t printable_len(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;

	while (u[i] >= 0x20 && u[i] != 0x7f &&
	       !(u[i] == 0xc2 && u[i + 1] >= 0x80 && u[i + 1] <= 0x9f))
		i++;
	return i;
}

/*
 * A word from a user's --checks DIR (a file name, a --set default) is not
 * trusted: one with a control character, which would break the answer's lines
 * or the terminal, is not offered, and a description ends at the first one.
 * The scripts never let the shell expand a word.
 */
static void candidate(const struct want *w, const char *word, const char *descr)
{
	size_t dlen = descr ? printable_len(descr) : 0;

	if (strncmp(word, w->cur, strlen(w->cur)) || word[printable_len(word)])
		return;
	printf("%s%s", w->prefix, word);
	if (dlen)
		printf("\t%.*s", (int)dlen, descr);
	putchar('\n');
}

static void commands(const struct want *w, int settable_only)
{
	for (const struct cmd *c = cmd__table; c && c->name; c++)
		if (!settable_only || (c->help && c->help->options && c->help->options->name))
			candidate(w, c->name, c->summary);
}

/* --checks DIR (or -C DIR) earlier on the line: the user's checks complete too. */
static const char *checks_dir(int n, char **words)
{
	for (int i = 1; i + 1 < n; i++)
		if (!strcmp(words[i], "--checks") || !strcmp(words[i], "-C"))
			return words[i + 1];
		else if (!strncmp(words[i], "--checks=", 9))
			return words[i] + 9;
	return NULL;
}

enum catalog_words { CAT_CHECKS, CAT_TAGS, CAT_METHODOLOGIES, CAT_SETS };

/* From the catalog; a catalog that does not load completes nothing (no message at a TAB). */
static void catalog_words(const struct want *w, enum catalog_words what, const char *dir)
{
	struct catalog cat;
	struct strv seen = { 0 };
	char err[1024], word[512];

	if (catalog__load(&cat, dir, err, sizeof(err)))
		return;
	for (size_t i = 0; what == CAT_CHECKS && i < cat.nchecks; i++)
		candidate(w, cat.checks[i].id, cat.checks[i].title);
	for (size_t i = 0; what == CAT_METHODOLOGIES && i < cat.nmeth; i++)
		candidate(w, cat.meth[i].id, cat.meth[i].title);
	for (size_t i = 0; what == CAT_TAGS && i < cat.nmeth; i++)
		for (size_t k = 0; k < cat.meth[i].tags.n; k++)
			if (!strv__has(&seen, cat.meth[i].tags.v[k])) {
				if (strv__push(&seen, cat.meth[i].tags.v[k]))
					break;
				candidate(w, cat.meth[i].tags.v[k], NULL);
			}
	/* ID.ARG=DEFAULT: the whole word, ready to edit. */
	for (size_t i = 0; what == CAT_SETS && i < cat.nchecks; i++)
		for (size_t k = 0; k < cat.checks[i].nargs; k++) {
			const struct check_arg *a = &cat.checks[i].args[k];

			if (a->type == ARG_NUMBER)
				snprintf(word, sizeof(word), "%s.%s=%g", cat.checks[i].id, a->name,
					 a->num);
			else if (a->type == ARG_BOOLEAN)
				snprintf(word, sizeof(word), "%s.%s=%s", cat.checks[i].id, a->name,
					 a->boolean ? "true" : "false");
			else
				snprintf(word, sizeof(word), "%s.%s=%s", cat.checks[i].id, a->name,
					 a->str ? a->str : "");
			candidate(w, word, a->help);
		}
	strv__free(&seen);
	catalog__free(&cat);
}

/* What an argument named name (BUNDLE, DIR, CHECK, bash|zsh, ...) completes to. */
static void argument(const struct want *w, const char *name, size_t len, const char *dir)
{
	char word[64];

	snprintf(word, sizeof(word), "%.*s", (int)len, name);
	if (strstr(word, "BUNDLE") || !strcmp(word, "OLD") || !strcmp(word, "NEW"))
		puts(":bundles");
	else if (strstr(word, "DIR"))
		puts(":dirs");
	else if (strstr(word, "FILE"))
		puts(":files");
	else if (!strcmp(word, "CHECK") || !strcmp(word, "ID"))
		catalog_words(w, CAT_CHECKS, dir);
	else if (!strcmp(word, "TAG"))
		catalog_words(w, CAT_TAGS, dir);
	else if (!strcmp(word, "COMMAND"))
		commands(w, 1);
	else if (strchr(word, '|') && strspn(word, "abcdefghijklmnopqrstuvwxyz-|") == len)
		for (const char *p = word; *p; p += strcspn(p, "|"), p += !!*p) {
			char alt[64];

			snprintf(alt, sizeof(alt), "%.*s", (int)strcspn(p, "|"), p);
			candidate(w, alt, NULL);
		}
}

static void option_value(const struct want *w, const struct cmd_option *o, const char *dir)
{
	if (o->kind == CMD_OPT_CHOICE) {
		for (const struct cmd_choice *c = o->choices; c->name; c++)
			candidate(w, c->name, NULL);
	} else if (!strcmp(o->name, "methodology")) {
		catalog_words(w, CAT_METHODOLOGIES, dir);
	} else if (o->arg && strchr(o->arg, '=')) {
		catalog_words(w, CAT_SETS, dir);
	} else if (o->arg) {
		argument(w, o->arg, strlen(o->arg), dir);
	}
}

static const struct cmd_option config_opt = { .name = "config", .arg = "FILE",
					       .kind = CMD_OPT_STRING };

/* The option of c that word names (--name, -x), or NULL. */
static const struct cmd_option *option_named(const struct cmd *c, const char *word)
{
	const struct cmd_option *opts = c->help ? c->help->options : NULL;

	if (opts && !strcmp(word, "--config"))
		return &config_opt;
	for (const struct cmd_option *o = opts; o && o->name; o++)
		if ((word[0] == '-' && word[1] == '-' && !strcmp(word + 2, o->name)) ||
		    (o->letter && word[0] == '-' && word[1] == o->letter && !word[2]))
			return o;
	return NULL;
}

static void options(const struct want *w, const struct cmd *c)
{
	char word[96];

	for (const struct cmd_option *o = c->help->options; o && o->name; o++) {
		if (!o->help)
			continue;
		snprintf(word, sizeof(word), "--%s", o->name);
		candidate(w, word, o->help);
	}
	if (c->help->options)
		candidate(w, "--config", "read FILE instead of " CMD_CONFIG_FILE);
	candidate(w, "--help", "this command's options");
}

/*
 * The usage line's arguments after "sonde CMD", options and their groups
 * left out: "BUNDLE", "[MEMBER]", "[COMMAND...]", "bash|zsh". The pos-th
 * (the last one again when it repeats) completes.
 */
static void positional(const struct want *w, const struct cmd *c, int pos, const char *dir)
{
	const char *u = c->help->usage, *last = NULL;
	size_t lastlen = 0;
	int i = 0, depth = 0;

	u += strcspn(u, " ");
	u += strspn(u, " ");
	u += strcspn(u, " "); /* past "sonde CMD" */
	while (*u) {
		size_t n;
		const char *t;

		u += strspn(u, " ");
		n = strcspn(u, " ");
		t = u;
		u += n;
		if (!n)
			break;
		if (depth || t[0] == '-' || (t[0] == '[' && t[1] == '-') ||
		    !strncmp(t, "[options]", 9)) {
			for (size_t k = 0; k < n; k++)
				depth += (t[k] == '[') - (t[k] == ']');
			continue;
		}
		while (n && (*t == '[' || t[n - 1] == ']' || t[n - 1] == '.')) {
			if (*t == '[')
				t++, n--;
			else
				n--;
		}
		last = t;
		lastlen = n;
		if (i++ == pos) {
			argument(w, t, n, dir);
			return;
		}
	}
	if (last && strstr(c->help->usage, "..."))
		argument(w, last, lastlen, dir);
}

static void complete(int n, char **words)
{
	struct want w = { .cur = words[n - 1] };
	const char *dir = checks_dir(n, words);
	const struct cmd_option *o;
	const struct cmd *c;
	int pos = 0;

	if (n <= 2) {
		if (w.cur[0] == '-') {
			candidate(&w, "--help", "the commands");
			candidate(&w, "--version", "the version");
		}
		commands(&w, 0);
		return;
	}
	c = cmd__find(words[1]);
	if (!c)
		return;
	if (!c->help) {
		/* sonde help COMMAND */
		if (n == 3 && !strcmp(c->name, "help"))
			commands(&w, 0);
		return;
	}
	if ((o = option_named(c, words[n - 2])) && o->arg) {
		option_value(&w, o, dir);
		return;
	}
	if (!strncmp(w.cur, "--", 2) && strchr(w.cur, '=')) {
		char name[96];

		snprintf(name, sizeof(name), "%.*s", (int)(strchr(w.cur, '=') - w.cur), w.cur);
		if ((o = option_named(c, name)) && o->arg) {
			snprintf(w.prefix, sizeof(w.prefix), "%s=", name);
			w.cur = strchr(w.cur, '=') + 1;
			option_value(&w, o, dir);
		}
		return;
	}
	if (w.cur[0] == '-') {
		options(&w, c);
		return;
	}
	/* Which argument this is: the words before it that are not options or their values. */
	for (int i = 2; i < n - 1; i++) {
		if (!strcmp(words[i], "--"))
			continue;
		if (words[i][0] == '-') {
			o = option_named(c, words[i]);
			i += o && o->arg && !strchr(words[i], '=');
			continue;
		}
		pos++;
	}
	positional(&w, c, pos, dir);
}

/* A script, with the extensions of a bundle file (bundle/bundle.h) where it names them. */
static void print_script(const char *script)
{
	const char *at = strstr(script, EXTS);

	if (!at) {
		fputs(script, stdout);
		return;
	}
	fwrite(script, 1, (size_t)(at - script), stdout);
	for (const char *const *e = bundle_exts; *e; e++)
		printf("%s%s", e == bundle_exts ? "" : "|", *e + 1);
	print_script(at + strlen(EXTS));
}

int cmd_completion(int argc, char **argv)
{
	const char *cmd = "completion";

	if (argc >= 3 && !strcmp(argv[1], "complete") && !strcmp(argv[2], "--")) {
		if (argc > 3)
			complete(argc - 3, argv + 3);
		return 0;
	}
	cmd__parse(cmd, &cmd_completion_help, NULL, argc, argv);
	if (argc != 2)
		run__die_usage(cmd, "which shell? sonde completion bash|zsh");
	if (!strcmp(argv[1], "bash"))
		print_script(bash_script);
	else if (!strcmp(argv[1], "zsh"))
		print_script(zsh_script);
	else
		run__die_usage(cmd, "'%s': sonde completes bash and zsh", argv[1]);
	return 0;
}
