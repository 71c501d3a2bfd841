// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sonde list: every check and whether this host can feed it, then every
 * collector and every BPF tool and whether it works here (and if not, why).
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "perf/counters.h"
#include "run/run.h"
#include "trace/trace.h"

#define F(field) offsetof(struct run_opts, field)

static const struct cmd_option options[] = {
	{ .name = "checks", .letter = 'C', .arg = "DIR", .kind = CMD_OPT_STRING,
	  .field = F(checks_dir), .help = "also load DIR/<methodology>/*.lua (and DIR/lib/*.lua)" },
	{ .name = "check", .letter = 'c', .arg = "ID", .kind = CMD_OPT_LIST,
	  .field = F(only_checks),
	  .help = "only this check (repeatable): its description and its --set arguments" },
	{ .name = "no-bpf", .kind = CMD_OPT_FLAG, .field = F(no_bpf),
	  .help = "do not load and attach each BPF tool to probe it" },
	{ .name = "no-perf", .kind = CMD_OPT_FLAG, .field = F(no_perf),
	  .help = "do not open perf counters to probe them" },
	/* A test hook, not in --help: probe a made-up /proc and /sys. */
	{ .name = "root", .arg = "DIR", .kind = CMD_OPT_STRING, .field = F(root) },
	{ NULL },
};

const struct cmd_help cmd_list_help = {
	.usage = "sonde list [--checks DIR] [--check ID]... [--no-bpf] [--no-perf]",
	.description =
		"Every check (id, methodology, resource, metric, tags) and whether this host can\n"
		"feed it, then every collector and every BPF tool and whether it works here\n"
		"(and if not, why). Each BPF tool is loaded and attached for a moment to find\n"
		"out; --no-bpf skips that. perf.counters opens one software and one hardware\n"
		"counter for a moment; --no-perf skips that.\n",
	.options = options,
};

/* "yes", or "partly: " and the first collector of d this host cannot provide. */
static void check_available(const struct run_opts *o, const struct check_def *d,
			    const char *root, char *avail, size_t len)
{
	snprintf(avail, len, "yes");
	for (size_t k = 0; k < d->collect.n; k++) {
		const struct collector *c = collector__find(d->collect.v[k]);
		char why[400];
		int sw_ok;

		if (!strcmp(d->collect.v[k], PERF_COLLECTOR)) {
			if (o->no_perf || perf_counters__probe(&sw_ok, why, sizeof(why))) {
				if (o->no_perf)
					snprintf(why, sizeof(why), "perf disabled");
				snprintf(avail, len, "partly: %s", why);
				break;
			}
			continue;
		}
		if ((c && c->probe && c->probe(root, why, sizeof(why))) ||
		    (!c && (o->no_bpf ? snprintf(why, sizeof(why), "BPF disabled") :
					trace__probe(why, sizeof(why))))) {
			snprintf(avail, len, "partly: %s", why);
			break;
		}
	}
}

static void check_tags(const struct check_def *d, char *tags, size_t len)
{
	size_t t = 0;

	tags[0] = '\0';
	for (size_t k = 0; k < d->tags.n && t + 2 < len; k++)
		t += (size_t)snprintf(tags + t, len - t, "%s%s", k ? "," : "", d->tags.v[k]);
}

static int wider(int w, const char *s)
{
	return s && (int)strlen(s) > w ? (int)strlen(s) : w;
}

/* Columns as wide as their longest value: a long check id never shifts the others. */
static void list_checks(const struct run_opts *o, const struct catalog *cat, const char *root)
{
	int w[5] = { 5, 11, 8, 6, 4 };
	char tags[128], avail[512];

	for (size_t i = 0; i < cat->nchecks; i++) {
		const struct check_def *d = &cat->checks[i];

		check_tags(d, tags, sizeof(tags));
		w[0] = wider(w[0], d->id);
		w[1] = wider(w[1], d->methodology);
		w[2] = wider(w[2], d->resource);
		w[3] = wider(w[3], d->metric);
		w[4] = wider(w[4], tags);
	}
	printf("%-*s %-*s %-*s %-*s %-*s %s\n", w[0], "CHECK", w[1], "METHODOLOGY", w[2],
	       "RESOURCE", w[3], "METRIC", w[4], "TAGS", "AVAILABLE HERE");
	for (size_t i = 0; i < cat->nchecks; i++) {
		const struct check_def *d = &cat->checks[i];

		check_tags(d, tags, sizeof(tags));
		check_available(o, d, root, avail, sizeof(avail));
		printf("%-*s %-*s %-*s %-*s %-*s %s\n", w[0], d->id, w[1], d->methodology, w[2],
		       d->resource, w[3], d->metric, w[4], tags, avail);
	}
}

/* sonde list --check ID: what the check is, and each argument --set ID.ARG=VALUE takes. */
static int list_check_args(const struct run_opts *o, const struct catalog *cat)
{
	for (size_t k = 0; k < o->only_checks.n; k++) {
		const struct check_def *d = catalog__check(cat, o->only_checks.v[k]);

		if (!d) {
			fprintf(stderr, "sonde: list: no check '%s' (sonde list shows them all)\n",
				o->only_checks.v[k]);
			return EXIT_USAGE;
		}
		printf("%s%s: %s\n", k ? "\n" : "", d->id, d->title ? d->title : "");
		if (d->description) {
			/* each line indented; a control character (a --checks file's) as '?' */
			fputs("  ", stdout);
			for (const char *c = d->description; *c; c++)
				if (*c == '\n')
					fputs(c[1] ? "\n  " : "", stdout);
				else
					putchar((unsigned char)*c < 0x20 || *c == 0x7f ? '?' : *c);
			putchar('\n');
		}
		printf("  %zu argument%s%s\n", d->nargs, d->nargs == 1 ? "" : "s",
		       d->nargs ? " (--set ID.ARG=VALUE):" : "");
		for (size_t a = 0; a < d->nargs; a++) {
			const struct check_arg *x = &d->args[a];

			printf("    %s.%s=", d->id, x->name);
			if (x->type == ARG_NUMBER)
				printf("%g", x->num);
			else if (x->type == ARG_BOOLEAN)
				printf("%s", x->boolean ? "true" : "false");
			else
				printf("%s", x->str ? x->str : "");
			printf("  (%s, default)%s%s\n",
			       x->type == ARG_NUMBER ? "number" :
			       x->type == ARG_BOOLEAN ? "boolean" : "string",
			       x->help ? ": " : "", x->help ? x->help : "");
		}
	}
	return 0;
}

static void list_collectors(const struct run_opts *o, const char *root)
{
	char why[1024] = "";
	int sw_ok = 0, bad;

	printf("\n%-16s %-52s %s\n", "COLLECTOR", "WHAT", "WORKS HERE");
	for (const struct collector *const *c = collectors; *c; c++) {
		char cwhy[400] = "";
		int cbad = (*c)->probe && (*c)->probe(root, cwhy, sizeof(cwhy));

		printf("%-16s %-52s %s\n", (*c)->name, (*c)->what, cbad ? cwhy : "yes");
	}
	bad = o->no_perf ? (snprintf(why, sizeof(why), "disabled (--no-perf)"), 1) :
			   perf_counters__probe(&sw_ok, why, sizeof(why));
	printf("%-16s %-52s %s%s\n", PERF_COLLECTOR,
	       "CPU counters per CPU (perf_event_open): IPC, stalls, LLC, ...",
	       bad ? (sw_ok ? "partly: " : "no: ") : "yes", bad ? why : "");
}

/* Each tool is loaded and attached for a moment: only the kernel can say if it works. */
static void list_tools(const struct run_opts *o)
{
	printf("\n%-16s %-52s %s\n", "BPF TOOL", "WHAT", "WORKS HERE");
	for (const struct trace_tool *const *t = trace_tools; *t; t++) {
		char why[1024] = "", name[40];
		enum trace_attach a;
		int bad = o->no_bpf ? (snprintf(why, sizeof(why), "disabled (--no-bpf)"), 1) :
				      trace_tool__probe(*t, &a, why, sizeof(why));

		snprintf(name, sizeof(name), "bpf.%s", (*t)->name);
		if (bad)
			printf("%-16s %-52s no: %s\n", name, (*t)->what, why);
		else
			printf("%-16s %-52s yes (%s)\n", name, (*t)->what, trace_attach__name(a));
	}
}

int cmd_list(int argc, char **argv)
{
	struct run_opts o;
	struct catalog cat;
	const char *root;
	int idx;

	run_opts__init(&o, "list");
	idx = cmd__parse(o.cmd, &cmd_list_help, &o, argc, argv);
	if (idx < argc)
		run__die_usage(o.cmd, "unexpected argument '%s'", argv[idx]);
	run_plan__load_catalog(&o, &cat);
	root = o.root ? o.root : "";
	if (o.only_checks.n) {
		int rc = list_check_args(&o, &cat);

		catalog__free(&cat);
		return rc;
	}
	list_checks(&o, &cat, root);
	list_collectors(&o, root);
	list_tools(&o);
	catalog__free(&cat);
	return 0;
}
