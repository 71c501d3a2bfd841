// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The document's sections after the findings: workload characterization,
 * the USE checks that found nothing, the drill-down, the known unknowns, and
 * the appendix (what ran, what failed, the BPF tools, what the run cost).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/analysis.h"
#include "collect/collect.h"
#include "report/model.h"

/* "### Who": the methodology's word for the question, capitalised. */
static void question_heading(struct doc *d, const char *name)
{
	struct inlines *in = doc__heading(d, 3, NULL);

	if (name[0] >= 'a' && name[0] <= 'z') {
		inl__words(in, "%c", name[0] - 'a' + 'A');
		inl__text(in, name + 1);
	} else {
		inl__text(in, name);
	}
}

/* A workload check under its question; a finding has its section above, and links there. */
static void workload_check(struct doc *d, const struct check_result *r)
{
	int finding = report__is_finding(r), fold = !finding;

	/*
	 * A check that is not a finding: one line in HTML until opened; a
	 * finding is a link to its section above, whose evidence it would repeat.
	 */
	if (fold)
		doc__fold(d);
	inl__text(doc__heading(d, 4, finding ? NULL : r->def->id), r->def->title);
	if (finding) {
		struct inlines *in = doc__para(d);

		inl__words(in, "A finding (%s): ", status__name(r->st));
		inl__link(in, r->def->id);
		inl__words(in, "see it above");
		inl__close(in);
		inl__words(in, ".");
		return;
	}
	if (r->summary)
		doc__prose(d, r->summary);
	report__doc_evidence(d, r);
	if (fold)
		doc__fold_end(d);
}

/*
 * A section whose checks are all ok is one line in HTML: "N checks, all ok"
 * (each check inside folded again). Returns whether it opened a fold.
 */
static int fold_if_all_ok(struct doc *d, const struct run_report *rr, const char *methodology)
{
	size_t n = 0;

	for (size_t i = 0; i < rr->nres; i++) {
		const struct check_result *r = &rr->res[i];

		if (strcmp(r->def->methodology, methodology) || r->st == ST_ERROR)
			continue;
		if (r->st != ST_OK)
			return 0;
		n++;
	}
	if (!n)
		return 0;
	inl__words(doc__fold(d), "%zu check%s, all ok", n, n == 1 ? "" : "s");
	return 1;
}

/*
 * Workload characterization, a section of its own: the checks of methodology
 * workload grouped by their question (who, what, how, why: the methodology's
 * metrics, in its order), each with its summary and evidence; series are
 * drawn as charts in report.html, so the section shows how the load changed
 * over the window.
 */
void report__doc_workload(struct report_model *m)
{
	const struct run_report *rr = m->rr;
	const struct methodology *w = catalog__methodology(rr->cat, "workload");
	size_t shown = 0;
	int all_ok;

	inl__words(doc__heading(&m->doc, 2, NULL), "Workload");
	inl__words(doc__para(&m->doc),
		   "Who causes the load, what it is, how it behaves and why, from the workload "
		   "characterization checks; the series show how it changed over the window.");
	all_ok = fold_if_all_ok(&m->doc, rr, "workload");
	for (size_t q = 0; w && q <= w->metrics.n; q++) {
		const char *question = q < w->metrics.n ? w->metrics.v[q] : "Other";
		int heading = 0;

		for (size_t i = 0; i < rr->nres; i++) {
			const struct check_result *r = &rr->res[i];
			int in_vocab = w->metrics.n && matrix__col(w, r->def->metric) >= 0;

			if (strcmp(r->def->methodology, "workload") || r->st == ST_ERROR)
				continue;
			/* q == metrics.n: checks of a metric outside the vocabulary, if any */
			if (q < w->metrics.n ? strcmp(r->def->metric, w->metrics.v[q]) : in_vocab)
				continue;
			if (!heading)
				question_heading(&m->doc, question);
			heading = 1;
			workload_check(&m->doc, r);
			shown++;
		}
	}
	if (all_ok)
		doc__fold_end(&m->doc);
	if (!shown)
		inl__words(doc__para(&m->doc), "No workload check ran.");
}

/* The USE checks that are not findings (and did not fail): what was measured, and how. */
void report__doc_use_details(struct report_model *m)
{
	const struct run_report *rr = m->rr;

	int all_ok;

	inl__words(doc__heading(&m->doc, 2, NULL), "USE details");
	all_ok = fold_if_all_ok(&m->doc, rr, "use");
	for (size_t i = 0; i < rr->nres; i++) {
		const struct check_result *r = &rr->res[i];
		struct inlines *in;

		if (strcmp(r->def->methodology, "use") || r->st == ST_WARN || r->st == ST_CRIT ||
		    r->st == ST_ERROR)
			continue;
		/*
		 * not a finding (nor failed): one line in HTML until opened; an
		 * unknown's reason is in Known unknowns too
		 */
		doc__fold(&m->doc);
		in = doc__heading(&m->doc, 3, r->def->id);
		inl__words(in, "%s: ", status__name(r->st));
		inl__text(in, r->def->title);
		if (r->summary)
			doc__prose(&m->doc, r->summary);
		report__doc_metrics(&m->doc, r);
		report__doc_evidence(&m->doc, r);
		doc__fold_end(&m->doc);
	}
	if (all_ok)
		doc__fold_end(&m->doc);
}

static void drill_check(struct doc *d, const struct check_result *r)
{
	struct inlines *in = doc__heading(d, 3, report__is_finding(r) ? NULL : r->def->id);
	int fold;

	inl__text(in, r->def->title ? r->def->title : r->def->id);
	inl__words(in, " (");
	inl__text(in, r->def->id);
	inl__words(in, ", %s)", status__name(r->st));
	if (r->summary)
		doc__prose(d, r->summary);
	if (r->st == ST_ERROR && r->error) {
		in = doc__para(d);
		inl__words(in, "The check failed: ");
		inl__text(in, r->error);
	}
	fold = report__fold_evidence(d, r);
	report__doc_metrics(d, r);
	report__doc_evidence(d, r);
	if (fold)
		doc__fold_end(d);
}

/* The drill-down: which rules fired and why, the second window, and its checks. */
void report__doc_drilldown(struct report_model *m)
{
	const struct run_report *rr = m->rr;
	struct inlines *in;
	size_t selected = 0;

	for (size_t i = 0; i < rr->nres; i++)
		selected += !strcmp(rr->res[i].def->methodology, "drilldown");
	if (!rr->ndrill && !selected)
		return;
	inl__words(doc__heading(&m->doc, 2, NULL), "Drill-down");
	in = doc__para(&m->doc);
	if (!rr->ndrill) {
		/* selected with --check: they ran over the first window */
		inl__words(in, "Drill-down checks selected with --check ran over the first "
			       "window.");
	} else if (rr->drill_an) {
		inl__words(in, "A second window of %.1f s (%u samples%s) looked deeper, because:",
			   rr->drill_an->elapsed_s, rr->drill_an->samples,
			   rr->drill_an->partial ? ", partial" : "");
	} else {
		inl__words(in, "Findings called for deeper checks, which did not run: ");
		inl__text(in, rr->drill_note ? rr->drill_note : "--no-drilldown");
		inl__words(in, ".");
	}
	for (size_t i = 0; i < rr->ndrill; i++) {
		const struct drill_rule *r = rr->drill[i].rule;

		in = doc__item(&m->doc);
		inl__text(in, r->trigger);
		inl__words(in, " (%s): ", status__name(rr->drill[i].trigger_status));
		inl__text(in, r->why);
		inl__words(in, " -> ");
		for (size_t k = 0; k < r->run.n; k++) {
			if (k)
				inl__words(in, ", ");
			inl__text(in, r->run.v[k]);
		}
	}
	/* a window that admitted no tool: its checks saw /proc alone, and how to do better */
	if (rr->drill_an && rr->drill_note) {
		in = doc__para(&m->doc);
		inl__open(in, SPAN_STRONG);
		inl__words(in, "Note: ");
		inl__text(in, rr->drill_note);
		inl__words(in, ".");
		inl__close(in);
	}
	for (size_t i = 0; i < rr->nres; i++)
		if (!strcmp(rr->res[i].def->methodology, "drilldown"))
			drill_check(&m->doc, &rr->res[i]);
}

void report__doc_unknowns(struct report_model *m)
{
	static const char *const head[] = { "check", "metric", "why it is unknown here" };
	const struct run_report *rr = m->rr;
	struct block *t = NULL;

	inl__words(doc__heading(&m->doc, 2, NULL), "Known unknowns");
	for (size_t i = 0; i < rr->nres; i++)
		for (size_t k = 0; k < rr->res[i].nunknowns; k++) {
			if (!t)
				t = doc__table_head(&m->doc, "lll", head);
			inl__text(doc__cell(t, CELL_PLAIN), rr->res[i].def->id);
			inl__text(doc__cell(t, CELL_PLAIN), rr->res[i].unknowns[k].name);
			inl__text(doc__cell(t, CELL_PLAIN), rr->res[i].unknowns[k].reason);
		}
	if (!t && !m->doc.oom)
		inl__words(doc__para(&m->doc),
			   "None: every metric the checks asked for was measured.");
}

static void appendix_checks(struct doc *d, const struct run_report *rr)
{
	static const char *const head[] = { "check", "status", "time (ms)", "CPU (ms)",
					    "Lua memory peak", "instructions" };
	struct block *t;

	/* reference, not reading: one line in HTML until opened */
	doc__fold(d);
	inl__words(doc__heading(d, 3, NULL), "Checks");
	t = doc__table_head(d, "llrrrr", head);
	for (size_t i = 0; i < rr->nres; i++) {
		const struct check_result *r = &rr->res[i];

		inl__text(doc__cell(t, CELL_PLAIN), r->def->id);
		inl__words(doc__cell(t, cell_status__of(r->st)), "%s", status__name(r->st));
		inl__words(doc__cell(t, CELL_PLAIN), "%.1f", r->elapsed_ms);
		inl__words(doc__cell(t, CELL_PLAIN), "%.1f", r->cpu_ms);
		inl__words(doc__cell(t, CELL_PLAIN), "%zu KiB", r->mem_peak / 1024);
		inl__words(doc__cell(t, CELL_PLAIN), "%llu", (unsigned long long)r->instructions);
	}
	doc__fold_end(d);
}

static void appendix_errors(struct doc *d, const struct run_report *rr)
{
	int heading = 0;

	for (size_t i = 0; i < rr->nres; i++) {
		const struct check_result *r = &rr->res[i];
		struct inlines *in;

		if (r->st != ST_ERROR)
			continue;
		if (!heading)
			inl__words(doc__heading(d, 3, NULL), "Check errors");
		heading = 1;
		/* a failed drill-down check has its section in the drill-down */
		if (strcmp(r->def->methodology, "drilldown"))
			doc__anchor(d, r->def->id);
		in = doc__para(d);
		inl__open(in, SPAN_STRONG);
		inl__text(in, r->def->id);
		inl__close(in);
		inl__words(in, " (");
		inl__text(in, r->def->origin);
		inl__words(in, "): ");
		inl__text(in, r->error);
		if (r->traceback)
			doc__code(d, r->traceback);
	}
}

/* The notes of a tool that ran: how its cost was known, its prediction, why it stopped early. */
static void tool_notes(struct inlines *in, const struct tool_summary *t)
{
	inl__text(in, !strcmp(t->cost_source, "kernel") ?
		"CPU counted by the kernel" :
		"CPU estimated from program runs (kernel.bpf_stats_enabled is off)");
	if (t->has_pred)
		inl__words(in, "; predicted %.2f%% of the host's CPU", t->predicted_pct);
	if (t->has_pred && t->has_load && t->predicted_load_pct >= t->predicted_pct + 0.005)
		inl__words(in, ", %.2f%% more CPU time for the work it traces",
			   t->predicted_load_pct);
	if (t->filtered_to[0]) {
		inl__words(in, "; traced only pid ");
		inl__text(in, t->filtered_to);
		inl__words(in, " (filtered in the kernel)");
	}
	if (t->stopped[0]) {
		inl__words(in, "; ");
		inl__open(in, SPAN_STRONG);
		inl__text(in, t->stopped);
		inl__close(in);
	}
	if (t->instead[0]) {
		inl__words(in, "; the rest of the window: ");
		inl__text(in, t->instead);
	}
}

/* The BPF tools of a window: what ran, how, and what it cost (raw/bpf/<tool>.json). */
static void appendix_tools(struct doc *d, struct analysis *an, const char *heading)
{
	static const char *const head[] = { "tool", "status", "attach", "program runs", "dropped",
					    "own CPU (ms)", "setup / teardown (ms)", "notes" };
	const struct tool_summary *t;
	struct block *tb;
	size_t n = 0;

	if (!an || analysis__tools(an, &t, &n) || !n)
		return;
	doc__fold(d);
	inl__words(doc__heading(d, 3, NULL), "%s", heading);
	report__doc_budget(d, an);
	tb = doc__table_head(d, "lllrrrrl", head);
	for (size_t i = 0; i < n; i++) {
		/* status: ok, or why it did not run (disabled, unavailable, over_budget, failed) */
		int ok = !strcmp(t[i].status, "ok");

		inl__text(doc__cell(tb, CELL_PLAIN), t[i].name);
		inl__text(doc__cell(tb, ok ? CELL_OK : CELL_PLAIN), t[i].status);
		if (!ok) {
			for (int k = 0; k < 5; k++)
				doc__cell(tb, CELL_PLAIN);
			inl__text(doc__cell(tb, CELL_PLAIN), t[i].reason);
			continue;
		}
		inl__text(doc__cell(tb, CELL_PLAIN), t[i].attach);
		inl__words(doc__cell(tb, CELL_PLAIN), "%llu", (unsigned long long)t[i].runs);
		inl__words(doc__cell(tb, CELL_PLAIN), "%llu", (unsigned long long)t[i].drops);
		inl__words(doc__cell(tb, CELL_PLAIN), "%.2f", t[i].cpu_ns / 1e6);
		inl__words(doc__cell(tb, CELL_PLAIN), "%.1f / %.1f", t[i].setup_ms,
			   t[i].teardown_ms);
		tool_notes(doc__cell(tb, CELL_PLAIN), &t[i]);
	}
	doc__fold_end(d);
}

/* What sonde's tools cost in both windows, and the signals it sent or was sent. */
static void self_tools(struct analysis *an, double *bpf_ms, uint64_t *signals)
{
	const struct tool_summary *t;
	size_t n = 0;

	if (!an || analysis__tools(an, &t, &n))
		return;
	for (size_t i = 0; i < n; i++) {
		*bpf_ms += t[i].cpu_ns / 1e6;
		*signals += t[i].self_signals;
	}
}

/*
 * sonde is never its own finding: its threads, CPU, I/O, BPF programs and the
 * signals it gets are left out of findings and culprits, and counted here.
 */
static void appendix_self(struct doc *d, const struct run_report *rr)
{
	const struct run_cost *c = &rr->cost;
	double bpf_ms = 0;
	uint64_t signals = 0;

	self_tools(rr->an, &bpf_ms, &signals);
	self_tools(rr->drill_an, &bpf_ms, &signals);
	inl__words(doc__item(d),
		   "sonde itself, left out of every finding and culprit: %.3f s of CPU (%.3f s "
		   "while the first window ran), %.1f ms of its BPF programs, %.2f MiB of "
		   "captures written, %llu signals sent to it or by it",
		   c->user_s + c->sys_s, c->window_cpu_s, bpf_ms,
		   (double)c->capture_bytes / (1 << 20), (unsigned long long)signals);
}

#define HISTORY_REFUSED_NAMED 5 /* refused files named in the report; raw/history.cap has them all */

/*
 * The earlier bundles the trends across runs looked at (raw/history.cap,
 * run/history.c): how many were used and skipped, and the files of --out
 * refused as not this user's own, by name, so that a planted bundle shows
 * where the report is read and not only in the captures.
 */
static void appendix_history(struct doc *d, struct analysis *an)
{
	const struct capture_stream *st = capture_set__stream(&an->cs, HISTORY_COLLECTOR);
	const struct capture_rec *log = st ? capture_stream__last(st, "sonde:history") : NULL;
	size_t used = 0, skipped = 0, refused = 0, named = 0;
	struct inlines *in;
	const char *p, *end;

	if (!log || log->err)
		return;
	for (p = log->data, end = log->data + log->len; p < end; p++) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p), more = 0;

		if (n > 5 && !strncmp(p, "used ", 5))
			used++;
		else if (n > 8 && !strncmp(p, "skipped ", 8))
			skipped++;
		else if (n > 8 && !strncmp(p, "refused ", 8))
			refused += sscanf(p + 8, "%zu more:", &more) == 1 ? more : 1;
		p += n;
	}
	in = doc__item(d);
	inl__words(in, "earlier bundles in --out (raw/history.cap): %zu used, %zu skipped, ", used,
		   skipped);
	if (!refused) {
		inl__words(in, "none refused");
		return;
	}
	inl__words(in, "%zu refused (not this user's own, or writable by others): ", refused);
	for (p = log->data; p < end && named < HISTORY_REFUSED_NAMED; p++) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char line[512];
		size_t more;

		if (n > 8 && !strncmp(p, "refused ", 8) && sscanf(p + 8, "%zu more:", &more) != 1) {
			snprintf(line, sizeof(line), "%.*s", (int)(n - 8), p + 8);
			inl__words(in, "%s", named++ ? "; " : "");
			inl__text(in, line);
		}
		p += n;
	}
	if (refused > named)
		inl__words(in, "; and %zu more", refused - named);
}

static void appendix_run(struct doc *d, const struct run_report *rr)
{
	const struct run_cost *c = &rr->cost;
	struct inlines *in;

	inl__words(doc__heading(d, 3, NULL), "This run");
	in = doc__item(d);
	inl__words(in, "command: ");
	inl__code(in, rr->command ? rr->command : "");
	in = doc__item(d);
	inl__words(in, "sonde %s; window stop: ", SONDE_VERSION);
	inl__text(in, rr->an->stop_reason);
	inl__words(doc__item(d),
		   "sonde's own cost: %.3f s CPU (%.3f user, %.3f system), peak RSS %.1f MiB, "
		   "analysis %.1f ms",
		   c->user_s + c->sys_s, c->user_s, c->sys_s, (double)c->peak_rss_kb / 1024,
		   c->analysis_ms);
	if (c->nstages) {
		char line[1024];
		size_t used = 0;

		for (size_t i = 0; i < c->nstages && used < sizeof(line); i++)
			used += (size_t)snprintf(line + used, sizeof(line) - used,
						 "%s%s %.0f ms (CPU %.0f ms)", i ? ", " : "",
						 c->stages[i].name, c->stages[i].wall_ms,
						 c->stages[i].cpu_ms);
		inl__words(doc__item(d), "its time by stage: %s", line);
	}
	if (c->reads)
		inl__words(doc__item(d),
			   "%llu reads of /proc and /sys (%llu failed: processes that exited, "
			   "files this host lacks), %.1f MiB captured under raw/",
			   (unsigned long long)c->reads, (unsigned long long)c->read_errors,
			   (double)c->capture_bytes / (1 << 20));
	appendix_history(d, rr->an);
	appendix_self(d, rr);
	inl__words(doc__item(d), "sonde's own cost above is counted up to this report: writing "
				 "and compressing the bundle comes after it");
}

void report__doc_appendix(struct report_model *m)
{
	inl__words(doc__heading(&m->doc, 2, NULL), "Appendix");
	appendix_checks(&m->doc, m->rr);
	appendix_errors(&m->doc, m->rr);
	appendix_tools(&m->doc, m->rr->an, "BPF tools");
	appendix_tools(&m->doc, m->rr->drill_an, "BPF tools of the drill-down window");
	appendix_run(&m->doc, m->rr);
}
