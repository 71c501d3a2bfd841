// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Option values by kind (struct cmd_option): checked and stored the same way
 * whether they come from the command line (options.c), the config file or
 * the environment (conf.c); and what the commands share: the command table
 * main() hands over, --fail-on's levels, --color's modes.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd/cmd.h"
#include "run/run.h"
#include "util/strbuf.h"

const struct cmd_choice cmd_fail_on_levels[] = {
	{ "warn", ST_WARN },
	{ "crit", ST_CRIT },
	{ NULL, 0 },
};

const struct cmd_choice cmd_color_modes[] = {
	{ "auto", COLOR_AUTO },
	{ "always", COLOR_ALWAYS },
	{ "never", COLOR_NEVER },
	{ NULL, 0 },
};

const struct cmd *cmd__table;

const struct cmd *cmd__find(const char *name)
{
	for (const struct cmd *c = cmd__table; c && c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

/* A number, the whole word (with pct, a '%' after it allowed). 0 or -EINVAL. */
static int parse_number(const char *s, int pct, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (end == s || (*end && (!pct || strcmp(end, "%"))) || errno || !isfinite(*v))
		return -EINVAL;
	return 0;
}

/* The value's problem into err, starting with the value; -EINVAL. */
static int bad(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int parse_seconds(const struct cmd_option *o, const char *s, double *v, char *err,
			 size_t len)
{
	if (parse_number(s, 0, v))
		return bad(err, len, "'%s': not a number of seconds", s);
	if (*v <= 0)
		return bad(err, len, "%s: must be more than 0 seconds", s);
	if (*v > o->max)
		return bad(err, len, "%s: at most %g seconds", s, o->max);
	return 0;
}

static int parse_count(const struct cmd_option *o, const char *s, int *v, char *err, size_t len)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(s, &end, 10);
	if (end == s || *end || errno || n < 0 || *s == '+' || *s == '-')
		return bad(err, len, "'%s': not a whole number", s);
	if (n > o->max)
		return bad(err, len, "%s: at most %g", s, o->max);
	*v = (int)n;
	return 0;
}

/* "'x': expected warn or crit" */
static int parse_choice(const struct cmd_option *o, const char *s, int *v, char *err, size_t len)
{
	struct strbuf names = { 0 };
	const struct cmd_choice *c;

	for (c = o->choices; c->name; c++)
		if (!strcmp(c->name, s)) {
			*v = c->value;
			return 0;
		}
	for (c = o->choices; c->name; c++)
		strbuf__printf(&names, "%s%s", c == o->choices ? "" : c[1].name ? ", " : " or ",
			       c->name);
	bad(err, len, "'%s': expected %s", s, names.buf ? names.buf : "");
	strbuf__free(&names);
	return -EINVAL;
}

/* A flag's value in the config file or the environment: 1 yes, 0 no. */
static int parse_yes_no(const char *s, int *v, char *err, size_t len)
{
	static const char *const yes[] = { "yes", "true", "on", "1", NULL };
	static const char *const no[] = { "no", "false", "off", "0", NULL };

	for (int i = 0; yes[i]; i++)
		if (!strcasecmp(s, yes[i]) || !strcasecmp(s, no[i])) {
			*v = !!strcasecmp(s, no[i]);
			return 0;
		}
	return bad(err, len, "'%s': expected yes or no", s);
}

int cmd_option__set(const struct cmd_option *o, void *opts, const char *arg, char *err,
		    size_t errlen)
{
	void *field = opts ? (char *)opts + o->field : NULL;
	double d;
	int i = 0, rc = 0;

	switch (o->kind) {
	case CMD_OPT_FLAG:
	case CMD_OPT_CONST:
		i = 1;
		if (arg && (rc = parse_yes_no(arg, &i, err, errlen)))
			return rc;
		if (field && o->kind == CMD_OPT_FLAG)
			*(int *)field = i;
		else if (field && i)
			*(int *)field = o->value;
		return 0;
	case CMD_OPT_STRING:
		if (!*arg)
			return bad(err, errlen, "'': needs a value");
		if (field)
			*(const char **)field = arg;
		return 0;
	case CMD_OPT_LIST:
		if (!*arg)
			return bad(err, errlen, "'': needs a value");
		if (field && strv__push(field, arg))
			run__die_oom();
		return 0;
	case CMD_OPT_SECONDS:
	case CMD_OPT_PERCENT:
		if (o->kind == CMD_OPT_SECONDS)
			rc = parse_seconds(o, arg, &d, err, errlen);
		else if (parse_number(arg, 1, &d) || d < 0 || d > 100)
			rc = bad(err, errlen, "'%s': a percentage from 0 (no guard) to 100", arg);
		if (!rc && field)
			*(double *)field = d;
		return rc;
	case CMD_OPT_CHOICE:
	case CMD_OPT_COUNT:
		rc = o->kind == CMD_OPT_CHOICE ? parse_choice(o, arg, &i, err, errlen) :
						 parse_count(o, arg, &i, err, errlen);
		if (!rc && field)
			*(int *)field = i;
		return rc;
	}
	return bad(err, errlen, "'%s': an option of an unknown kind", arg);
}

