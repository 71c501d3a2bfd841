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
	{ .name = "no-bpf", .kind = CMD_OPT_FLAG, .field = F(no_bpf),
	  .help = "do not load and attach each BPF tool to probe it" },
	{ .name = "no-perf", .kind = CMD_OPT_FLAG, .field = F(no_perf),
	  .help = "do not open perf counters to probe them" },
	/* A test hook, not in --help: probe a made-up /proc and /sys. */
	{ .name = "root", .arg = "DIR", .kind = CMD_OPT_STRING, .field = F(root) },
	{ NULL },
};

const struct cmd_help cmd_list_help = {
	.usage = "sonde list [--checks DIR] [--no-bpf] [--no-perf]",
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

		if (!strcmp(d->collect.v[k], HISTORY_COLLECTOR))
			continue; /* earlier bundles: whatever --out holds */
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

static void list_checks(const struct run_opts *o, const struct catalog *cat, const char *root)
{
	printf("%-28s %-12s %-9s %-12s %-20s %s\n", "CHECK", "METHODOLOGY", "RESOURCE", "METRIC",
	       "TAGS", "AVAILABLE HERE");
	for (size_t i = 0; i < cat->nchecks; i++) {
		const struct check_def *d = &cat->checks[i];
		char tags[128] = "", avail[512];
		size_t t = 0;

		for (size_t k = 0; k < d->tags.n && t + 2 < sizeof(tags); k++)
			t += (size_t)snprintf(tags + t, sizeof(tags) - t, "%s%s", k ? "," : "",
					      d->tags.v[k]);
		check_available(o, d, root, avail, sizeof(avail));
		printf("%-28s %-12s %-9s %-12s %-20s %s\n", d->id, d->methodology, d->resource,
		       d->metric, tags, avail);
	}
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
	printf("%-16s %-52s %s\n", HISTORY_COLLECTOR,
	       "levels from earlier bundles of this host in --out", "yes");
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
	list_checks(&o, &cat, root);
	list_collectors(&o, root);
	list_tools(&o);
	catalog__free(&cat);
	return 0;
}
