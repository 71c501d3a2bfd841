// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The config file (/etc/sonde/sonde.conf, or --config FILE) and the
 * environment (SONDE_<COMMAND>_<OPTION>): what an operator sets once. Both
 * are read into the same fields as the command line, through the same option
 * tables and the same value checks (cmd_option__set), so the tables stay the
 * one truth about what can be set. Precedence: command line, environment,
 * file, defaults. `sonde config` prints every value and where it came from.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "run/run.h"
#include "util/strbuf.h"
#include "util/trust.h"

/* A config file is a page of settings; this bounds what a wrong --config can make us read. */
#define CONF_MAX_BYTES (1u << 20)
/* More than any command's options (options.c has the same bound). */
#define CONF_MAX_OPTIONS 40

enum source { SRC_DEFAULT, SRC_FILE, SRC_ENV, SRC_CMDLINE };

/* Where each option of the command being parsed got its value (sonde config prints it). */
static struct option_source {
	enum source src;
	char where[320];
	struct strv items; /* a list: where each item came from */
} sources[CONF_MAX_OPTIONS];

int conf__dumping;

static int is_kv_list(const struct cmd_option *o)
{
	return o->kind == CMD_OPT_LIST && o->arg && strchr(o->arg, '=');
}

/* The options the file can set: those --help shows. */
static const struct cmd_option *find_option(const struct cmd_help *h, const char *name)
{
	for (const struct cmd_option *o = h ? h->options : NULL; o && o->name; o++)
		if (o->help && !strcmp(o->name, name))
			return o;
	return NULL;
}

static int has_settable(const struct cmd *c)
{
	return c->help && c->help->options && c->help->options->name;
}

static void die_line(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));
static void die_line(const char *file, int line, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* One hint: a message that points to a command's --help keeps that one. */
	if (!strstr(msg, "(see "))
		strncat(msg, " (see 'man sonde.conf')", sizeof(msg) - strlen(msg) - 1);
	if (line)
		run__die_usage(NULL, "%s:%d: %s", file, line, msg);
	run__die_usage(NULL, "%s: %s", file, msg);
}

/* "[run], [analyze], ..." for the messages. */
static void section_names(char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (const struct cmd *c = cmd__table; c && c->name && n + 1 < len; c++)
		if (has_settable(c))
			n += (size_t)snprintf(buf + n, len - n, "%s[%s]", n ? ", " : "", c->name);
}

static void note(const struct cmd_help *h, const struct cmd_option *o, enum source src,
		 const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void note(const struct cmd_help *h, const struct cmd_option *o, enum source src,
		 const char *fmt, ...)
{
	struct option_source *s = &sources[o - h->options];
	va_list ap;

	s->src = src;
	va_start(ap, fmt);
	vsnprintf(s->where, sizeof(s->where), fmt, ap);
	va_end(ap);
	if (o->kind == CMD_OPT_LIST && strv__push(&s->items, s->where))
		run__die_oom();
}

/* A higher source sets a list: the lower sources' items go, unless it is a KEY=VALUE list. */
static void replace_list(const struct cmd_help *h, const struct cmd_option *o, void *opts,
			 enum source src)
{
	struct option_source *s = &sources[o - h->options];

	if (o->kind != CMD_OPT_LIST || is_kv_list(o) || s->src == SRC_DEFAULT || s->src >= src)
		return;
	if (opts)
		strv__free((struct strv *)((char *)opts + o->field));
	strv__free(&s->items);
}

void conf__from_cmdline(const struct cmd_help *h, const struct cmd_option *o, void *opts)
{
	replace_list(h, o, opts, SRC_CMDLINE);
	note(h, o, SRC_CMDLINE, "command line");
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* A '#' after a blank starts a comment (a value may hold '#' elsewhere: a path's). */
static void strip_comment(char *v)
{
	for (char *p = v; *p; p++)
		if (*p == '#' && (p == v || isspace((unsigned char)p[-1]))) {
			*p = '\0';
			return;
		}
}

/*
 * One `OPTION = VALUE` line of section sec: checked, and stored when sec is
 * the command being parsed (opts may then still be NULL: only checked).
 */
static void file_setting(const char *file, int line, const struct cmd *sec, char *text,
			 const char *cmd, const struct cmd_help *h, void *opts)
{
	char *eq = strchr(text, '='), *key, *val, err[1024], names[512];
	const struct cmd_option *o;

	if (!eq)
		die_line(file, line, "expected 'OPTION = VALUE' or '[COMMAND]', got '%.80s'", text);
	*eq = '\0';
	key = trim(text);
	val = eq + 1;
	strip_comment(val);
	val = trim(val);
	if (!sec) {
		section_names(names, sizeof(names));
		die_line(file, line,
			 "'%s' is outside a section: put it under the command it is for (%s)", key,
			 names);
	}
	if (!(o = find_option(sec->help, key)))
		die_line(file, line, "'sonde %s' has no option '%s' (see 'sonde %s --help')",
			 sec->name, key, sec->name);
	if (!*val)
		die_line(file, line, "%s: no value", key);
	if (strcmp(sec->name, cmd)) {
		if (cmd_option__set(o, NULL, val, err, sizeof(err)))
			die_line(file, line, "%s %s", key, err);
		return;
	}
	if (cmd_option__set(o, opts, val, err, sizeof(err)))
		die_line(file, line, "%s %s", key, err);
	note(h, o, SRC_FILE, "%s:%d", file, line);
}

/*
 * The whole file, NUL-terminated; never freed: the option fields point into it.
 * Only a file no other user can change is read (util/trust.h): it sets what
 * root runs (--checks DIR, --out, the thresholds), as sshd_config and sudoers
 * do, and is held to their rule.
 */
static char *read_conf(const char *file, int explicit_path)
{
	char *text, why[1024], real[PATH_MAX];
	int rc = trust__path(file, real, why, sizeof(why));
	FILE *f;
	size_t n;

	if (rc == -ENOENT && !explicit_path)
		return NULL;
	if (rc == -EPERM)
		die_line(file, 0, "%s: refused: another user could change what sonde does", why);
	f = rc ? NULL : fopen(real, "re");
	if (!f)
		die_line(file, 0, "%s", rc ? why : strerror(errno));
	text = malloc(CONF_MAX_BYTES + 1);
	if (!text)
		run__die_oom();
	n = fread(text, 1, CONF_MAX_BYTES + 1, f);
	if (ferror(f))
		die_line(file, 0, "%s", strerror(errno ? errno : EIO));
	fclose(f);
	if (n > CONF_MAX_BYTES)
		die_line(file, 0, "larger than %u bytes: not a config file", CONF_MAX_BYTES);
	if (memchr(text, '\0', n))
		die_line(file, 0, "a NUL byte: not a text file");
	text[n] = '\0';
	return text;
}

const char *conf__path(const char *path, int *found)
{
	const char *env = getenv("SONDE_CONFIG");
	FILE *f;

	if (!path)
		path = env && *env ? env : CMD_CONFIG_FILE;
	f = fopen(path, "re");
	*found = f != NULL;
	if (f)
		fclose(f);
	return path;
}

static void load_file(const char *file, int explicit_path, const char *cmd,
		      const struct cmd_help *h, void *opts)
{
	char *text = read_conf(file, explicit_path), *next, names[512];
	const struct cmd *sec = NULL;
	int line = 0;

	for (char *l = text; l; l = next) {
		next = strchr(l, '\n');
		if (next)
			*next++ = '\0';
		line++;
		l = trim(l);
		if (!*l || *l == '#' || *l == ';')
			continue;
		if (*l != '[') {
			file_setting(file, line, sec, l, cmd, h, opts);
			continue;
		}
		if (l[strlen(l) - 1] != ']')
			die_line(file, line, "'%.80s': a section is '[COMMAND]'", l);
		l[strlen(l) - 1] = '\0';
		l = trim(l + 1);
		sec = cmd__find(l);
		if (!sec || !has_settable(sec)) {
			section_names(names, sizeof(names));
			die_line(file, line, "[%s]: not a command with options (%s)", l, names);
		}
	}
}

/* SONDE_RUN_FAIL_ON */
static void env_name(const char *cmd, const char *opt, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "SONDE_%s_%s", cmd, opt);

	for (size_t i = 0; i < n && i < len; i++)
		buf[i] = buf[i] == '-' ? '_' : (char)toupper((unsigned char)buf[i]);
}

static void load_env(const char *cmd, const struct cmd_help *h, void *opts)
{
	for (const struct cmd_option *o = h->options; o->name; o++) {
		char name[128], err[1024], *copy, *tok, *save;
		const char *v;

		if (!o->help)
			continue;
		env_name(cmd, o->name, name, sizeof(name));
		v = getenv(name);
		if (!v || !*v)
			continue;
		if (o->kind != CMD_OPT_LIST) {
			if (cmd_option__set(o, opts, v, err, sizeof(err)))
				run__die_usage(cmd, "environment %s: %s", name, err);
			note(h, o, SRC_ENV, "environment %s", name);
			continue;
		}
		replace_list(h, o, opts, SRC_ENV);
		if (!(copy = strdup(v)))
			run__die_oom();
		for (tok = strtok_r(copy, " \t\n", &save); tok;
		     tok = strtok_r(NULL, " \t\n", &save)) {
			if (cmd_option__set(o, opts, tok, err, sizeof(err)))
				run__die_usage(cmd, "environment %s: %s", name, err);
			note(h, o, SRC_ENV, "environment %s", name);
		}
		free(copy);
	}
}

void conf__load(const char *cmd, const struct cmd_help *h, void *opts, const char *path)
{
	int found;
	const char *file = conf__path(path, &found);
	const char *env = getenv("SONDE_CONFIG");

	for (size_t i = 0; i < CONF_MAX_OPTIONS; i++) {
		strv__free(&sources[i].items);
		sources[i] = (struct option_source){ .src = SRC_DEFAULT };
	}
	if (!h->options)
		return;
	load_file(file, path || (env && *env), cmd, h, opts);
	load_env(cmd, h, opts);
}

/* One value as the file would write it; "" when it has none. */
static void format_value(const struct cmd_option *o, const void *field, char *buf, size_t len)
{
	buf[0] = '\0';
	switch (o->kind) {
	case CMD_OPT_FLAG:
		snprintf(buf, len, "%s", *(const int *)field ? "yes" : "no");
		break;
	case CMD_OPT_CONST:
		snprintf(buf, len, "%s", *(const int *)field == o->value ? "yes" : "no");
		break;
	case CMD_OPT_STRING:
		if (*(const char *const *)field)
			snprintf(buf, len, "%s", *(const char *const *)field);
		break;
	case CMD_OPT_SECONDS:
	case CMD_OPT_PERCENT:
		/* 0 seconds is no value: the command derives one (--timeout from --window). */
		if (o->kind == CMD_OPT_PERCENT || *(const double *)field > 0)
			snprintf(buf, len, "%g", *(const double *)field);
		break;
	case CMD_OPT_COUNT:
		snprintf(buf, len, "%d", *(const int *)field);
		break;
	case CMD_OPT_CHOICE:
		for (const struct cmd_choice *c = o->choices; c->name; c++)
			if (c->value == *(const int *)field)
				snprintf(buf, len, "%s", c->name);
		break;
	case CMD_OPT_LIST:
		break;
	}
}

static void dump_line(const char *name, const char *value, const char *where)
{
	char left[512];

	if (*value)
		snprintf(left, sizeof(left), "%s = %s", name, value);
	else
		snprintf(left, sizeof(left), "# %s =", name);
	printf("%-40s # %s\n", left, where);
}

void conf__dump(const char *cmd, const struct cmd_help *h, const void *opts)
{
	printf("\n[%s]\n", cmd);
	for (const struct cmd_option *o = h->options; o && o->name; o++) {
		const struct option_source *s = &sources[o - h->options];
		const void *field = (const char *)opts + o->field;
		char value[1024];

		if (!o->help)
			continue;
		if (o->kind == CMD_OPT_LIST) {
			const struct strv *l = field;

			if (!l->n)
				dump_line(o->name, "", "default: none");
			for (size_t i = 0; i < l->n; i++)
				dump_line(o->name, l->v[i], i < s->items.n ? s->items.v[i] : "?");
			continue;
		}
		format_value(o, field, value, sizeof(value));
		if (s->src != SRC_DEFAULT)
			dump_line(o->name, value, s->where);
		else
			dump_line(o->name, value, *value ? "default" : "default: not set");
	}
	fflush(stdout);
	exit(0);
}
