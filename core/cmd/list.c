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
#include "util/json.h"
#include "util/tty.h"

#define F(field) offsetof(struct run_opts, field)

static const struct cmd_option options[] = {
	{ .name = "checks", .letter = 'C', .arg = "DIR", .kind = CMD_OPT_STRING,
	  .field = F(checks_dir), .help = "also load DIR/<methodology>/*.lua (and DIR/lib/*.lua)" },
	{ .name = "no-bpf", .kind = CMD_OPT_FLAG, .field = F(no_bpf),
	  .help = "do not load and attach each BPF tool to probe it" },
	{ .name = "no-perf", .kind = CMD_OPT_FLAG, .field = F(no_perf),
	  .help = "do not open perf counters to probe them" },
	{ .name = "json", .letter = 'j', .kind = CMD_OPT_FLAG, .field = F(json),
	  .help = "the same as JSON, with each check's thresholds and the\n"
		  "metrics it judges (for scripts; docs/list-schema.md)" },
	/* A test hook, not in --help: probe a made-up /proc and /sys. */
	{ .name = "root", .arg = "DIR", .kind = CMD_OPT_STRING, .field = F(root) },
	{ NULL },
};

const struct cmd_help cmd_list_help = {
	.usage = "sonde list [--checks DIR] [--no-bpf] [--no-perf] [--json]",
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
					trace__probe_collector(d->collect.v[k], why,
							       sizeof(why))))) {
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
		char id[256];

		check_tags(d, tags, sizeof(tags));
		/* A --checks file's name is its id: text only to the terminal (util/tty.h). */
		snprintf(id, sizeof(id), "%s", d->id);
		tty__clean_str(id);
		w[0] = wider(w[0], id);
		w[1] = wider(w[1], d->methodology);
		w[2] = wider(w[2], d->resource);
		w[3] = wider(w[3], d->metric);
		w[4] = wider(w[4], tags);
	}
	printf("%-*s %-*s %-*s %-*s %-*s %s\n", w[0], "CHECK", w[1], "METHODOLOGY", w[2],
	       "RESOURCE", w[3], "METRIC", w[4], "TAGS", "AVAILABLE HERE");
	for (size_t i = 0; i < cat->nchecks; i++) {
		const struct check_def *d = &cat->checks[i];
		char id[256];

		snprintf(id, sizeof(id), "%s", d->id);
		tty__clean_str(id);
		check_tags(d, tags, sizeof(tags));
		check_available(o, d, root, avail, sizeof(avail));
		printf("%-*s %-*s %-*s %-*s %-*s %s\n", w[0], id, w[1], d->methodology, w[2],
		       d->resource, w[3], d->metric, w[4], tags, avail);
	}
}

/* perf.counters here: 0, or why not (*sw_ok: the software counters do open). */
static int probe_perf(const struct run_opts *o, int *sw_ok, char *why, size_t len)
{
	*sw_ok = 0;
	if (o->no_perf)
		return snprintf(why, len, "disabled (--no-perf)"), 1;
	return perf_counters__probe(sw_ok, why, len);
}

/* A BPF tool here, loaded and attached for a moment: 0 with how it attached, or why not. */
static int probe_tool(const struct run_opts *o, const struct trace_tool *t, enum trace_attach *a,
		      char *why, size_t len)
{
	if (o->no_bpf)
		return snprintf(why, len, "disabled (--no-bpf)"), 1;
	return trace_tool__probe(t, a, why, len);
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
	bad = probe_perf(o, &sw_ok, why, sizeof(why));
	printf("%-16s %-52s %s%s\n", PERF_COLLECTOR, PERF_COLLECTOR_WHAT,
	       bad ? (sw_ok ? "partly: " : "no: ") : "yes", bad ? why : "");
}

/* Each tool is loaded and attached for a moment: only the kernel can say if it works. */
static void list_tools(const struct run_opts *o)
{
	printf("\n%-16s %-52s %s\n", "BPF TOOL", "WHAT", "WORKS HERE");
	for (const struct trace_tool *const *t = trace_tools; *t; t++) {
		char why[1024] = "", name[40];
		enum trace_attach a;
		int bad = probe_tool(o, *t, &a, why, sizeof(why));

		snprintf(name, sizeof(name), "bpf.%s", (*t)->name);
		if (bad)
			printf("%-16s %-52s no: %s\n", name, (*t)->what, why);
		else
			printf("%-16s %-52s yes (%s)\n", name, (*t)->what, trace_attach__name(a));
	}
}

/* "yes" or "partly: why" (check_available, the probes) as available: bool and why. */
static void availability(struct json *j, int yes, const char *why)
{
	json__key(j, "available");
	json__bool(j, yes);
	json__kv_str(j, "why", yes ? NULL : why);
}

static void json_args(struct json *j, const struct check_def *d, const struct metric_decl *m,
		      int nm)
{
	static const char *const types[] = { "number", "string", "boolean" };

	json__key(j, "args");
	json__begin_array(j);
	for (const struct check_arg *a = check__next_arg(d, NULL); a; a = check__next_arg(d, a)) {
		json__begin_object(j);
		json__kv_str(j, "name", a->name);
		json__kv_str(j, "type", types[a->type]);
		json__key(j, "default");
		if (a->type == ARG_NUMBER)
			json__number(j, a->num);
		else if (a->type == ARG_BOOLEAN)
			json__bool(j, a->boolean);
		else if (a->str)
			json__string(j, a->str);
		else
			json__null(j);
		json__kv_str(j, "unit", check__arg_unit(m, nm, a->name));
		json__kv_str(j, "help", a->help);
		json__end_object(j);
	}
	json__end_array(j);
}

/* The metrics a check's source judges against thresholds (explain.c's reading). */
static void json_metrics(struct json *j, const struct metric_decl *m, int nm)
{
	json__key(j, "metrics");
	json__begin_array(j);
	for (int i = 0; i < nm; i++) {
		json__begin_object(j);
		json__kv_str(j, "name", m[i].name);
		json__kv_str(j, "unit", m[i].unit[0] ? m[i].unit : NULL);
		json__kv_str(j, "warn", m[i].has_warn ? m[i].warn_expr : NULL);
		json__kv_str(j, "crit", m[i].has_crit ? m[i].crit_expr : NULL);
		json__kv_str(j, "warn_arg", m[i].warn[0] ? m[i].warn : NULL);
		json__kv_str(j, "crit_arg", m[i].crit[0] ? m[i].crit : NULL);
		json__key(j, "lower_is_worse");
		json__bool(j, m[i].lower);
		json__end_object(j);
	}
	json__end_array(j);
}

static void json_checks(struct json *j, const struct run_opts *o, const struct catalog *cat,
			const char *root)
{
	json__key(j, "checks");
	json__begin_array(j);
	for (size_t i = 0; i < cat->nchecks; i++) {
		const struct check_def *d = &cat->checks[i];
		struct metric_decl m[64];
		int nm = check__metric_decls(d, m, 64);
		char avail[512];

		check_available(o, d, root, avail, sizeof(avail));
		json__begin_object(j);
		json__kv_str(j, "id", d->id);
		json__kv_str(j, "title", d->title);
		json__kv_str(j, "description", d->description);
		json__kv_str(j, "methodology", d->methodology);
		json__kv_str(j, "resource", d->resource);
		json__kv_str(j, "metric", d->metric);
		json__kv_strv(j, "tags", &d->tags);
		json__kv_strv(j, "collect", &d->collect);
		json__kv_str(j, "origin", d->origin);
		json__key(j, "user");
		json__bool(j, d->user);
		availability(j, !strcmp(avail, "yes"),
			     strncmp(avail, "partly: ", 8) ? avail : avail + 8);
		json_args(j, d, m, nm);
		json_metrics(j, m, nm);
		json__end_object(j);
	}
	json__end_array(j);
}

static void json_sources(struct json *j, const struct run_opts *o, const char *root)
{
	char why[1024] = "";
	int sw_ok = 0, bad;

	json__key(j, "collectors");
	json__begin_array(j);
	for (const struct collector *const *c = collectors; *c; c++) {
		char cwhy[400] = "";
		int cbad = (*c)->probe && (*c)->probe(root, cwhy, sizeof(cwhy));

		json__begin_object(j);
		json__kv_str(j, "name", (*c)->name);
		json__kv_str(j, "what", (*c)->what);
		availability(j, !cbad, cwhy);
		json__end_object(j);
	}
	bad = probe_perf(o, &sw_ok, why, sizeof(why));
	json__begin_object(j);
	json__kv_str(j, "name", PERF_COLLECTOR);
	json__kv_str(j, "what", PERF_COLLECTOR_WHAT);
	availability(j, !bad, why);
	json__end_object(j);
	json__end_array(j);

	json__key(j, "tools");
	json__begin_array(j);
	for (const struct trace_tool *const *t = trace_tools; *t; t++) {
		char twhy[1024] = "", name[40];
		enum trace_attach a;
		int tbad = probe_tool(o, *t, &a, twhy, sizeof(twhy));

		snprintf(name, sizeof(name), "bpf.%s", (*t)->name);
		json__begin_object(j);
		json__kv_str(j, "name", name);
		json__kv_str(j, "what", (*t)->what);
		availability(j, !tbad, twhy);
		json__kv_str(j, "attach", tbad ? NULL : trace_attach__name(a));
		json__end_object(j);
	}
	json__end_array(j);
}

/* sonde list --json: the catalog and what works here, for scripts (docs/list-schema.md). */
static void list_json(const struct run_opts *o, const struct catalog *cat, const char *root)
{
	struct json j = { .pretty = 1 };

	json__begin_object(&j);
	json__kv_str(&j, "schema", "sonde.list/1");
	json__kv_str(&j, "version", SONDE_VERSION);
	json__key(&j, "methodologies");
	json__begin_array(&j);
	for (size_t i = 0; i < cat->nmeth; i++) {
		json__begin_object(&j);
		json__kv_str(&j, "id", cat->meth[i].id);
		json__kv_str(&j, "title", cat->meth[i].title);
		json__kv_strv(&j, "tags", &cat->meth[i].tags);
		json__end_object(&j);
	}
	json__end_array(&j);
	json_checks(&j, o, cat, root);
	json_sources(&j, o, root);
	json__end_object(&j);
	strbuf__puts(&j.out, "\n");
	if (j.out.oom)
		run__die_oom();
	fwrite(j.out.buf, 1, j.out.len, stdout);
	strbuf__free(&j.out);
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
	if (o.json) {
		list_json(&o, &cat, root);
		catalog__free(&cat);
		return 0;
	}
	list_checks(&o, &cat, root);
	list_collectors(&o, root);
	list_tools(&o);
	catalog__free(&cat);
	return 0;
}
