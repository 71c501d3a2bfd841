// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sonde explain CHECK: what a check is for, what it reads, its thresholds
 * (the --set arguments with their defaults and units) and the findings it
 * can raise (the metrics it judges against those thresholds), from the
 * catalog and from the check's own source: the ctx:metric calls as written,
 * so that what is explained is what runs.
 */
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "perf/counters.h"
#include "run/run.h"
#include "trace/trace.h"

#define F(field) offsetof(struct run_opts, field)

static const struct cmd_option options[] = {
	{ .name = "checks", .letter = 'C', .arg = "DIR", .kind = CMD_OPT_STRING,
	  .field = F(checks_dir), .help = "also load DIR/<methodology>/*.lua (and DIR/lib/*.lua)" },
	{ NULL },
};

const struct cmd_help cmd_explain_help = {
	.usage = "sonde explain CHECK [--checks DIR]",
	.description =
		"What CHECK (an id of 'sonde list') is for, what it reads (its collectors and\n"
		"BPF tools), its thresholds (the arguments --set ID.ARG=VALUE changes, with\n"
		"their defaults and units), the findings it can raise (each metric it judges,\n"
		"against which threshold), and the drill-down a finding of it starts.\n",
	.options = options,
};

/* The end of the Lua string literal that starts at s (a quote), or NULL. */
static const char *skip_string(const char *s, const char *end)
{
	char q = *s++;

	for (; s < end; s++) {
		if (*s == '\\' && s + 1 < end)
			s++;
		else if (*s == q)
			return s + 1;
		else if (*s == '\n')
			return NULL;
	}
	return NULL;
}

/* The ')' that closes the '(' at s, skipping strings and comments; NULL if none. */
static const char *matching_paren(const char *s, const char *end)
{
	int depth = 0;

	while (s < end) {
		if (*s == '"' || *s == '\'') {
			if (!(s = skip_string(s, end)))
				return NULL;
			continue;
		}
		if (s[0] == '-' && s + 1 < end && s[1] == '-') {
			s = memchr(s, '\n', (size_t)(end - s));
			if (!s)
				return NULL;
			continue;
		}
		if (*s == '(' || *s == '{')
			depth++;
		else if ((*s == ')' || *s == '}') && --depth == 0)
			return s;
		s++;
	}
	return NULL;
}

/*
 * The value of `key = VALUE` in the options table of a call (depth 2: inside
 * "(" and "{"): the first
 * args.NAME in it (*arg), and whether VALUE is that alone (*plain); a string
 * literal's text (*str). 1 when the key is there.
 */
static int call_field(const char *s, const char *end, const char *key, char *arg, size_t arglen,
		      int *plain, char *str, size_t strlen_, char *expr, size_t exprlen)
{
	size_t kl = strlen(key);
	int depth = 0;

	arg[0] = '\0';
	if (str)
		str[0] = '\0';
	for (const char *p = s; p < end; p++) {
		const char *v, *e;

		if (*p == '"' || *p == '\'') {
			const char *q = skip_string(p, end);

			if (!q)
				return 0;
			p = q - 1;
			continue;
		}
		if (*p == '{' || *p == '(')
			depth++;
		else if (*p == '}' || *p == ')')
			depth--;
		if (depth != 2 || strncmp(p, key, kl) || (p > s && (isalnum((unsigned char)p[-1]) ||
								    p[-1] == '_' || p[-1] == '.')))
			continue;
		v = p + kl;
		while (v < end && isspace((unsigned char)*v))
			v++;
		if (v >= end || *v != '=' || (v + 1 < end && v[1] == '='))
			continue;
		for (v++; v < end && isspace((unsigned char)*v); v++)
			;
		/* VALUE runs to the ',' or '}' that ends it at this depth. */
		e = v;
		for (int d = 0; e < end && (d > 0 || (*e != ',' && *e != '}')); e++)
			d += (*e == '(' || *e == '{') - (*e == ')' || *e == '}');
		while (e > v && isspace((unsigned char)e[-1]))
			e--;
		if (expr)
			snprintf(expr, exprlen, "%.*s", (int)(e - v), v);
		if (str && (*v == '"' || *v == '\'') && e - v >= 2)
			snprintf(str, strlen_, "%.*s", (int)(e - v - 2), v + 1);
		for (const char *a = v; a + 5 < e; a++)
			if (!strncmp(a, "args.", 5) && (a == v || !isalnum((unsigned char)a[-1]))) {
				size_t n = strspn(a + 5, "abcdefghijklmnopqrstuvwxyz"
							"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");

				snprintf(arg, arglen, "%.*s", (int)n, a + 5);
				*plain = (size_t)(e - a) == 5 + n;
				break;
			}
		return 1;
	}
	return 0;
}

int check__metric_decls(const struct check_def *d, struct metric_decl *out, size_t max)
{
	const char *s = d->source, *end = d->source + d->source_len;
	size_t n = 0, k;

	while (s && s < end && n < max) {
		const char *call = NULL, *close;
		struct metric_decl m = { 0 };
		char scratch[64];
		int plain;

		/* The next ctx:metric( outside strings and comments. */
		while (s < end) {
			if (*s == '"' || *s == '\'') {
				s = skip_string(s, end);
				if (!s)
					return (int)n;
			} else if (s[0] == '-' && s + 1 < end && s[1] == '-') {
				s = memchr(s, '\n', (size_t)(end - s));
				if (!s)
					return (int)n;
			} else if (!strncmp(s, "ctx:metric(", 11)) {
				call = s + 10;
				break;
			} else {
				s++;
			}
		}
		if (!call || !(close = matching_paren(call, end)))
			break;
		s = close + 1;
		for (call++; call < close && isspace((unsigned char)*call); call++)
			;
		if (*call == '"')
			snprintf(m.name, sizeof(m.name), "%.*s", (int)strcspn(call + 1, "\"\n"),
				 call + 1);
		else
			snprintf(m.name, sizeof(m.name), "(computed)");
		m.has_warn = call_field(call - 1, close + 1, "warn", m.warn, sizeof(m.warn),
					&m.warn_plain, NULL, 0, m.warn_expr, sizeof(m.warn_expr));
		m.has_crit = call_field(call - 1, close + 1, "crit", m.crit, sizeof(m.crit),
					&m.crit_plain, NULL, 0, m.crit_expr, sizeof(m.crit_expr));
		call_field(call - 1, close + 1, "unit", scratch, sizeof(scratch), &plain, m.unit,
			   sizeof(m.unit), NULL, 0);
		m.lower = strstr(call, "lower_is_worse") && strstr(call, "lower_is_worse") < close;
		if (!m.has_warn && !m.has_crit && !m.unit[0])
			continue;
		/* One line per metric: a check may call it once per instance. */
		for (k = 0; k < n && strcmp(out[k].name, m.name); k++)
			;
		if (k == n)
			out[n++] = m;
		else if (!out[k].has_warn && !out[k].has_crit)
			out[k] = m;
	}
	return (int)n;
}

const char *check__arg_unit(const struct metric_decl *m, int nm, const char *arg)
{
	for (int i = 0; i < nm; i++)
		if (!strcmp(m[i].warn, arg) || !strcmp(m[i].crit, arg))
			return m[i].unit[0] ? m[i].unit : NULL;
	return NULL;
}

static void print_collectors(const struct check_def *d)
{
	printf("\nReads:\n");
	for (size_t k = 0; k < d->collect.n; k++) {
		const char *name = d->collect.v[k], *what = NULL;
		const struct collector *c = collector__find(name);
		const struct trace_tool *t = c ? NULL : trace_tool__find(name);

		if (c)
			what = c->what;
		else if (t)
			what = t->what;
		else if (!strcmp(name, PERF_COLLECTOR))
			what = PERF_COLLECTOR_WHAT;
		printf("  %-20s %s%s\n", name, what ? what : "?", t ? " (BPF tool)" : "");
	}
}

const struct check_arg *check__next_arg(const struct check_def *d, const struct check_arg *prev)
{
	const struct check_arg *best = NULL;

	for (size_t i = 0; i < d->nargs; i++) {
		const struct check_arg *a = &d->args[i];

		if ((!prev || strcmp(a->name, prev->name) > 0) &&
		    (!best || strcmp(a->name, best->name) < 0))
			best = a;
	}
	return best;
}

static void print_value(const struct check_arg *a)
{
	if (a->type == ARG_NUMBER)
		printf("%-10g", a->num);
	else if (a->type == ARG_BOOLEAN)
		printf("%-10s", a->boolean ? "true" : "false");
	else
		printf("%-10s", a->str ? a->str : "");
}

static void print_threshold(const char *level, const char *arg, const char *expr, int plain,
			    int has, const struct check_def *d, int lower)
{
	char *end;

	if (!has)
		return;
	if (!arg[0]) {
		strtod(expr, &end);
		if (*expr && !*end)
			printf(", %s at %s %s", level, lower ? "<=" : ">=", expr);
		else
			printf(", %s at a threshold the check computes (%s)", level, expr);
		return;
	}
	printf(", %s at %s %s", level, lower ? "<=" : ">=", arg);
	for (size_t i = 0; i < d->nargs; i++)
		if (!strcmp(d->args[i].name, arg) && d->args[i].type == ARG_NUMBER)
			printf(" (%g)", d->args[i].num);
	if (!plain)
		printf(" when the check's condition holds");
}

static void print_check(const struct catalog *cat, const struct check_def *d)
{
	struct metric_decl m[64];
	int nm = check__metric_decls(d, m, 64), judged = 0;

	printf("%s: %s\n", d->id, d->title);
	if (d->description)
		printf("  %s\n", d->description);
	printf("\nmethodology %s, resource %s, metric %s; tags:", d->methodology, d->resource,
	       d->metric);
	for (size_t k = 0; k < d->tags.n; k++)
		printf("%s %s", k ? "," : "", d->tags.v[k]);
	printf("\nsource: %s%s\n", d->origin, d->user ? " (--checks)" : " (built in)");
	print_collectors(d);

	printf("\nThresholds (--set %s.ARG=VALUE):\n", d->id);
	if (!d->nargs)
		printf("  none\n");
	/* By name: the catalog keeps them in the Lua table's order, which varies. */
	for (const struct check_arg *a = check__next_arg(d, NULL); a; a = check__next_arg(d, a)) {
		const char *unit = check__arg_unit(m, nm, a->name);

		printf("  %-24s ", a->name);
		print_value(a);
		printf(" %-8s %s\n", unit ? unit : "-", a->help ? a->help : "");
	}

	printf("\nFindings it can raise "
	       "(a metric past a threshold makes the check warn or crit):\n");
	for (int i = 0; i < nm; i++) {
		if (!m[i].has_warn && !m[i].has_crit)
			continue;
		judged++;
		printf("  %s/%s: %s", d->resource, d->metric, m[i].name);
		if (m[i].unit[0])
			printf(" (%s)", m[i].unit);
		print_threshold("warn", m[i].warn, m[i].warn_expr, m[i].warn_plain,
				m[i].has_warn, d, m[i].lower);
		print_threshold("crit", m[i].crit, m[i].crit_expr, m[i].crit_plain,
				m[i].has_crit, d, m[i].lower);
		printf("\n");
	}
	if (!judged)
		printf("  none: it describes (tables, metrics without thresholds)\n");
	for (size_t mi = 0; mi < cat->nmeth; mi++)
		for (size_t k = 0; k < cat->meth[mi].nrules; k++) {
			const struct drill_rule *r = &cat->meth[mi].rules[k];

			if (strcmp(r->trigger, d->id))
				continue;
			printf("\nDrill-down: a finding of it runs");
			for (size_t j = 0; j < r->run.n; j++)
				printf("%s %s", j ? "," : "", r->run.v[j]);
			printf(" (%s)\n", r->why ? r->why : "");
		}
}

int cmd_explain(int argc, char **argv)
{
	struct run_opts o;
	struct catalog cat;
	const struct check_def *d;
	int idx;

	run_opts__init(&o, "explain");
	idx = cmd__parse(o.cmd, &cmd_explain_help, &o, argc, argv);
	if (idx >= argc)
		run__die_usage(o.cmd, "which check? sonde explain CHECK (see 'sonde list')");
	if (idx + 1 < argc)
		run__die_usage(o.cmd, "unexpected argument '%s'", argv[idx + 1]);
	run_plan__load_catalog(&o, &cat);
	d = catalog__check(&cat, argv[idx]);
	if (!d)
		run__die_usage(o.cmd, "%s: no such check (see 'sonde list')", argv[idx]);
	print_check(&cat, d);
	catalog__free(&cat);
	return 0;
}
