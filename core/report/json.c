// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * findings.json, the machine contract (docs/findings-schema.md), from the
 * report model: the run, the ranked findings with their sentences, the USE
 * matrix and its instance rows, every check's result, the tools and the
 * drill-down. Strings are JSON-escaped by util/json.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/model.h"
#include "util/clock.h"

static void json_time(struct json *j, const char *key, int64_t ns)
{
	char buf[64];

	clock__iso8601(ns, buf, sizeof(buf), 0);
	json__key(j, key);
	json__string(j, buf);
}

/* "container": { label, id, runtime, name, image, k8s_container, pod_namespace, pod_name } */
static void json_culprit_container(struct json *j, const struct culprit_container *c)
{
	json__key(j, "container");
	json__begin_object(j);
	json__kv_str(j, "label", c->label);
	if (c->id)
		json__kv_str(j, "id", c->id);
	if (c->runtime)
		json__kv_str(j, "runtime", c->runtime);
	if (c->name)
		json__kv_str(j, "name", c->name);
	if (c->image)
		json__kv_str(j, "image", c->image);
	if (c->k8s_container)
		json__kv_str(j, "k8s_container", c->k8s_container);
	if (c->pod_namespace)
		json__kv_str(j, "pod_namespace", c->pod_namespace);
	if (c->pod_name)
		json__kv_str(j, "pod_name", c->pod_name);
	json__end_object(j);
}

static void json_culprits(struct json *j, const struct check_result *r)
{
	json__key(j, "culprits");
	json__begin_array(j);
	for (size_t i = 0; i < r->nculprits; i++) {
		json__begin_object(j);
		json__key(j, "pid");
		json__int(j, r->culprits[i].pid);
		json__kv_str(j, "comm", r->culprits[i].comm);
		json__kv_number(j, "share", r->culprits[i].share);
		if (r->culprits[i].cmdline)
			json__kv_str(j, "cmdline", r->culprits[i].cmdline);
		if (r->culprits[i].kernel_thread) {
			json__key(j, "kernel_thread");
			json__bool(j, 1);
		}
		if (r->culprits[i].container)
			json_culprit_container(j, r->culprits[i].container);
		json__end_object(j);
	}
	json__end_array(j);
}

static void json_metric(struct json *j, const struct metric *m)
{
	json__begin_object(j);
	json__kv_str(j, "name", m->name);
	json__kv_number(j, "value", m->value);
	if (m->unit)
		json__kv_str(j, "unit", m->unit);
	if (m->instance)
		json__kv_str(j, "instance", m->instance);
	if (m->agg)
		json__kv_str(j, "aggregation", m->agg);
	if (m->node_exporter)
		json__kv_str(j, "node_exporter", m->node_exporter);
	if (m->help)
		json__kv_str(j, "help", m->help);
	if (m->has_warn)
		json__kv_number(j, "warn", m->warn);
	if (m->has_crit)
		json__kv_number(j, "crit", m->crit);
	if (m->lower_is_worse) {
		json__key(j, "lower_is_worse");
		json__bool(j, 1);
	}
	if (m->has_range) {
		json__key(j, "range");
		json__begin_array(j);
		json__number(j, m->range_lo);
		json__number(j, m->range_hi);
		json__end_array(j);
	}
	json__kv_str(j, "status", status__name(m->st));
	json__end_object(j);
}

/*
 * A heat map in the shape of the BPF tools' "intervals" (docs/bpf-tools.md):
 * interval_ms, unit, counts (a list per interval, trailing zeros cut), and
 * row_ms for subsecond offsets.
 */
static void json_heatmap(struct json *j, const struct evidence *e)
{
	size_t ncols = e->hm_rows ? e->nvalues / e->hm_rows : 0;

	json__kv_str(j, "unit", e->unit ? e->unit : "");
	json__key(j, "interval_ms");
	json__int(j, (int64_t)llround(e->step_s * 1e3));
	if (e->hm_row_ms > 0) {
		json__key(j, "row_ms");
		json__int(j, (int64_t)llround(e->hm_row_ms));
	}
	json__key(j, "counts");
	json__begin_array(j);
	for (size_t c = 0; c < ncols; c++) {
		const double *col = e->values + c * e->hm_rows;
		size_t n = e->hm_rows;

		while (n && col[n - 1] <= 0)
			n--;
		json__begin_array(j);
		for (size_t r = 0; r < n; r++)
			json__number(j, col[r]);
		json__end_array(j);
	}
	json__end_array(j);
}

/*
 * The span the BPF tool behind an evidence traced, in seconds from its window's start
 * (attached before it, read after it), and "covers": the sentence the report puts beside
 * the evidence when that is part of the window (absent when it is the whole first window).
 */
static void json_span(struct json *j, const struct evidence_span *sp)
{
	char buf[160];

	if (!sp->set)
		return;
	json__key(j, "traced");
	json__begin_object(j);
	json__kv_number(j, "from_s", sp->from_s);
	json__kv_number(j, "to_s", sp->to_s);
	json__kv_number(j, "window_s", sp->window_s);
	json__key(j, "drilldown");
	json__bool(j, sp->drilldown);
	if (report__span_text(sp, buf, sizeof(buf)))
		json__kv_str(j, "covers", buf);
	json__end_object(j);
}

static void json_evidence(struct json *j, const struct evidence *e)
{
	static const char *const kinds[] = { "table", "series", "note", "flamegraph", "heatmap",
					     "bars" };

	json__begin_object(j);
	json__kv_str(j, "kind", kinds[e->kind]);
	json__kv_str(j, "title", e->title);
	json_span(j, &e->span);
	if (e->kind == EV_TABLE) {
		json__kv_strv(j, "columns", &e->columns);
		if (e->code_cols) {
			json__key(j, "code_columns");
			json__begin_array(j);
			for (size_t c = 0; c < e->columns.n; c++)
				if (e->code_cols & (1u << c))
					json__string(j, e->columns.v[c]);
			json__end_array(j);
		}
		json__key(j, "rows");
		json__begin_array(j);
		for (size_t r = 0; r < e->nrows; r++) {
			json__begin_array(j);
			for (size_t c = 0; c < e->columns.n; c++)
				json__string(j, e->rows[r][c] ? e->rows[r][c] : "");
			json__end_array(j);
		}
		json__end_array(j);
	} else if (e->kind == EV_SERIES) {
		if (e->unit)
			json__kv_str(j, "unit", e->unit);
		json__kv_number(j, "step_seconds", e->step_s);
		json__key(j, "values");
		json__begin_array(j);
		for (size_t i = 0; i < e->nvalues; i++)
			json__number(j, e->values[i]);
		json__end_array(j);
	} else if (e->kind == EV_FLAMEGRAPH) {
		struct strbuf line = { 0 };

		json__kv_str(j, "unit", e->unit ? e->unit : "samples");
		json__key(j, "total");
		json__int(j, (int64_t)e->fg.total);
		json__key(j, "stacks");
		json__int(j, (int64_t)e->fg.stacks_in);
		json__key(j, "stacks_kept");
		json__int(j, (int64_t)e->fg.stacks.n - (e->fg.other ? 1 : 0));
		json__key(j, "other");
		json__int(j, (int64_t)e->fg.other);
		json__key(j, "depth_cut");
		json__int(j, (int64_t)e->fg.depth_cut);
		json__key(j, "folded");
		json__begin_array(j);
		for (size_t i = 0; i < e->fg.stacks.n; i++) {
			line.len = 0;
			strbuf__printf(&line, "%s %.0f", e->fg.stacks.v[i], e->fg.counts[i]);
			json__string_n(j, line.oom ? "" : line.buf, line.oom ? 0 : line.len);
		}
		json__end_array(j);
		strbuf__free(&line);
	} else if (e->kind == EV_HEATMAP) {
		json_heatmap(j, e);
	} else if (e->kind == EV_BARS) {
		size_t ncat = e->columns.n ? e->columns.n - 1 : 0;

		if (e->unit)
			json__kv_str(j, "unit", e->unit);
		json__kv_str(j, "label", e->columns.n ? e->columns.v[0] : "");
		json__key(j, "categories");
		json__begin_array(j);
		for (size_t c = 0; c < ncat; c++)
			json__string(j, e->columns.v[c + 1]);
		json__end_array(j);
		json__key(j, "rows");
		json__begin_array(j);
		for (size_t r = 0; r < e->nrows && (r + 1) * ncat <= e->nvalues; r++) {
			json__begin_object(j);
			json__kv_str(j, "label", e->rows[r][0] ? e->rows[r][0] : "");
			json__key(j, "values");
			json__begin_array(j);
			for (size_t c = 0; c < ncat; c++)
				json__number(j, e->values[r * ncat + c]);
			json__end_array(j);
			json__end_object(j);
		}
		json__end_array(j);
	}
	json__end_object(j);
}

/* The BPF tools of a window: what ran, how, and what it cost (raw/bpf/<tool>.json). */
static void json_tools(struct json *j, struct analysis *an)
{
	const struct tool_summary *t;
	size_t n = 0;

	json__key(j, "tools");
	json__begin_array(j);
	if (an && !analysis__tools(an, &t, &n))
		for (size_t i = 0; i < n; i++) {
			json__begin_object(j);
			json__kv_str(j, "name", t[i].name);
			json__kv_str(j, "status", t[i].status);
			if (t[i].reason[0])
				json__kv_str(j, "reason", t[i].reason);
			if (t[i].has_pred) {
				json__kv_number(j, "predicted_cpu_pct", t[i].predicted_pct);
				if (t[i].has_load)
					json__kv_number(j, "predicted_load_pct",
						    t[i].predicted_load_pct);
				json__kv_number(j, "duty", t[i].duty);
			}
			if (t[i].instead[0])
				json__kv_str(j, "instead", t[i].instead);
			if (!strcmp(t[i].status, "ok")) {
				json__kv_str(j, "attach", t[i].attach);
				if (t[i].filtered_to[0])
					json__kv_str(j, "filtered_to", t[i].filtered_to);
				json__key(j, "runs");
				json__int(j, (int64_t)t[i].runs);
				json__key(j, "drops");
				json__int(j, (int64_t)t[i].drops);
				json__kv_number(j, "cpu_ns", t[i].cpu_ns);
				json__kv_str(j, "cost_source", t[i].cost_source);
				json__kv_number(j, "setup_ms", t[i].setup_ms);
				json__kv_number(j, "teardown_ms", t[i].teardown_ms);
				if (t[i].stopped[0])
					json__kv_str(j, "stopped_early", t[i].stopped);
				tool_stop__json(j, &t[i].stop);
			}
			json__end_object(j);
		}
	json__end_array(j);
}

/* The drill-down: which rules fired (trigger, why, checks) and the second window. */
static void json_drilldown(struct json *j, const struct run_report *rr)
{
	json__key(j, "drilldown");
	json__begin_object(j);
	json__key(j, "fired");
	json__begin_array(j);
	for (size_t i = 0; i < rr->ndrill; i++) {
		const struct drill_rule *r = rr->drill[i].rule;

		json__begin_object(j);
		json__kv_str(j, "trigger", r->trigger);
		json__kv_str(j, "trigger_status", status__name(rr->drill[i].trigger_status));
		json__kv_str(j, "why", r->why);
		json__kv_strv(j, "run", &r->run);
		json__end_object(j);
	}
	json__end_array(j);
	if (rr->drill_an) {
		json__key(j, "window");
		json__begin_object(j);
		json__kv_number(j, "seconds", rr->drill_an->elapsed_s);
		json__key(j, "samples");
		json__int(j, rr->drill_an->samples);
		json__key(j, "partial");
		json__bool(j, rr->drill_an->partial);
		json__kv_str(j, "stop_reason", rr->drill_an->stop_reason);
		json__end_object(j);
		json_tools(j, rr->drill_an);
		report__json_budget(j, rr->drill_an);
	}
	if (rr->drill_note)
		json__kv_str(j, "note", rr->drill_note);
	if (rr->drill_by_hand[0])
		json__kv_str(j, "by_hand", rr->drill_by_hand);
	json__end_object(j);
}


static void json_run(struct json *j, struct analysis *an, const struct host_context *hc)
{
	json__kv_str(j, "schema", FINDINGS_SCHEMA);
	json__key(j, "sonde");
	json__begin_object(j);
	json__kv_str(j, "version", SONDE_VERSION);
	json__kv_str(j, "captured_by", an->version[0] ? an->version : NULL);
	json__end_object(j);

	json__key(j, "host");
	json__begin_object(j);
	json__kv_str(j, "hostname", an->hostname);
	json__kv_str(j, "kernel", an->kernel);
	json__key(j, "cpus");
	json__int(j, an->cpus);
	json__key(j, "mem_total_bytes");
	json__int(j, (int64_t)an->mem_total);
	json__kv_str(j, "virtualization", an->virt[0] ? an->virt : NULL);
	report__json_host_context(j, hc);
	report__json_observer(j, an);
	json__end_object(j);

	json__key(j, "window");
	json__begin_object(j);
	json_time(j, "start", an->start_wall_ns);
	json_time(j, "end", an->end_wall_ns);
	json__kv_number(j, "seconds", an->elapsed_s);
	json__kv_number(j, "requested_seconds", an->window_s);
	json__kv_number(j, "interval_seconds", an->interval_s);
	json__key(j, "samples");
	json__int(j, an->samples);
	json__key(j, "partial");
	json__bool(j, an->partial);
	json__kv_str(j, "stop_reason", an->stop_reason);
	json__end_object(j);
}

static void json_findings(struct json *j, const struct report_model *m)
{
	const struct run_report *rr = m->rr;

	json__key(j, "findings");
	json__begin_array(j);
	for (size_t k = 0; k < rr->nrank; k++) {
		const struct report_finding *f = &m->findings[k];
		const struct check_result *r = f->r;

		json__begin_object(j);
		json__key(j, "rank");
		json__int(j, (int64_t)k + 1);
		json__kv_str(j, "check", r->def->id);
		json__kv_str(j, "methodology", r->def->methodology);
		json__kv_str(j, "resource", r->def->resource);
		json__kv_str(j, "metric", r->def->metric);
		json__kv_str(j, "severity", status__name(r->st));
		json__kv_str(j, "summary", f->summary);
		if (rr->explained_by[f->res] != SIZE_MAX) {
			json__key(j, "explained_by");
			json__begin_object(j);
			json__kv_str(j, "check", rr->res[rr->explained_by[f->res]].def->id);
			json__kv_str(j, "reason", rr->why[f->res]->reason);
			json__end_object(j);
		}
		json_culprits(j, r);
		json__key(j, "evidence");
		json__begin_array(j);
		for (size_t i = 0; i < r->nmetrics; i++)
			if (r->metrics[i].st == ST_WARN || r->metrics[i].st == ST_CRIT)
				json_metric(j, &r->metrics[i]);
		json__end_array(j);
		json__kv_strv(j, "next", &r->next);
		json__end_object(j);
	}
	json__end_array(j);
}

static void json_matrix(struct json *j, const struct use_matrix *u)
{
	json__key(j, "use_matrix");
	json__begin_object(j);
	for (size_t ri = 0; u->m && ri < u->m->resources.n; ri++) {
		json__key(j, u->rows[ri].resource);
		json__begin_object(j);
		for (size_t mi = 0; mi < u->m->metrics.n; mi++) {
			const struct matrix_cell *c = &u->rows[ri].cells[mi];

			json__key(j, u->m->metrics.v[mi]);
			json__begin_object(j);
			json__kv_str(j, "status", c->na ? "n/a" : status__name(c->st));
			if (c->na)
				json__kv_str(j, "reason", c->na_reason);
			else if (!c->has_check)
				json__kv_str(j, "reason", "no check selected for this cell");
			if (c->decider)
				json__kv_str(j, "check", c->decider->def->id);
			json__end_object(j);
		}
		json__end_object(j);
	}
	json__end_object(j);
}

static void json_inst_cell(struct json *j, const struct inst_cell *c, int na)
{
	if (na || (!c->m && c->na_reason)) {
		json__begin_object(j);
		json__kv_str(j, "status", "n/a");
		if (!na)
			json__kv_str(j, "reason", c->na_reason);
		json__end_object(j);
		return;
	}
	if (!c->m) {
		json__null(j);
		return;
	}
	json__begin_object(j);
	json__kv_str(j, "status", status__name(c->m->st));
	json__kv_str(j, "check", c->r->def->id);
	json__kv_str(j, "metric", c->m->name);
	json__kv_number(j, "value", c->m->value);
	if (c->m->unit)
		json__kv_str(j, "unit", c->m->unit);
	json__end_object(j);
}

/* "use_matrix_instances": the matrix's per-instance rows, all of them, worst first per resource. */
static void json_matrix_instances(struct json *j, const struct use_matrix *u)
{
	json__key(j, "use_matrix_instances");
	json__begin_array(j);
	for (size_t ri = 0; u->m && ri < u->m->resources.n; ri++) {
		const struct matrix_row *row = &u->rows[ri];

		for (size_t k = 0; k < row->ninst; k++) {
			json__begin_object(j);
			json__kv_str(j, "resource", row->resource);
			json__kv_str(j, "instance", row->inst[k].instance);
			/* an instance where nothing applies (a veth's utilization only): n/a */
			json__kv_str(j, "status", row->inst[k].worst == ST_SKIP ?
							 "n/a" : status__name(row->inst[k].worst));
			for (size_t mi = 0; mi < u->m->metrics.n && mi < MATRIX_COLS; mi++) {
				json__key(j, u->m->metrics.v[mi]);
				json_inst_cell(j, &row->inst[k].cell[mi], row->cells[mi].na);
			}
			json__end_object(j);
		}
	}
	json__end_array(j);
}

static void json_unknowns(struct json *j, const struct run_report *rr)
{
	json__key(j, "unknowns");
	json__begin_array(j);
	for (size_t i = 0; i < rr->nres; i++)
		for (size_t k = 0; k < rr->res[i].nunknowns; k++) {
			json__begin_object(j);
			json__kv_str(j, "check", rr->res[i].def->id);
			json__kv_str(j, "resource", rr->res[i].def->resource);
			json__kv_str(j, "metric", rr->res[i].unknowns[k].name);
			json__kv_str(j, "reason", rr->res[i].unknowns[k].reason);
			json__end_object(j);
		}
	json__end_array(j);
}

static void json_check(struct json *j, const struct check_result *r)
{
	json__begin_object(j);
	json__kv_str(j, "id", r->def->id);
	json__kv_str(j, "title", r->def->title);
	json__kv_str(j, "methodology", r->def->methodology);
	json__kv_str(j, "resource", r->def->resource);
	json__kv_str(j, "metric", r->def->metric);
	json__kv_str(j, "status", status__name(r->st));
	if (r->summary)
		json__kv_str(j, "summary", r->summary);
	json__key(j, "metrics");
	json__begin_array(j);
	for (size_t k = 0; k < r->nmetrics; k++)
		json_metric(j, &r->metrics[k]);
	json__end_array(j);
	json__key(j, "unknowns");
	json__begin_array(j);
	for (size_t k = 0; k < r->nunknowns; k++) {
		json__begin_object(j);
		json__kv_str(j, "metric", r->unknowns[k].name);
		json__kv_str(j, "reason", r->unknowns[k].reason);
		json__end_object(j);
	}
	json__end_array(j);
	if (r->nnas) {
		json__key(j, "not_applicable");
		json__begin_array(j);
		for (size_t k = 0; k < r->nnas; k++) {
			json__begin_object(j);
			json__kv_str(j, "metric", r->nas[k].name);
			if (r->nas[k].instance)
				json__kv_str(j, "instance", r->nas[k].instance);
			json__kv_str(j, "reason", r->nas[k].reason);
			json__end_object(j);
		}
		json__end_array(j);
	}
	json_culprits(j, r);
	json__key(j, "evidence");
	json__begin_array(j);
	for (size_t k = 0; k < r->nevidence; k++)
		json_evidence(j, &r->evidence[k]);
	json__end_array(j);
	if (r->error) {
		json__kv_str(j, "error", r->error);
		json__kv_str(j, "traceback", r->traceback);
	}
	json__kv_number(j, "elapsed_ms", r->elapsed_ms);
	json__kv_number(j, "cpu_ms", r->cpu_ms);
	json__key(j, "mem_peak_bytes");
	json__int(j, (int64_t)r->mem_peak);
	json__key(j, "instructions");
	json__int(j, (int64_t)r->instructions);
	json__end_object(j);
}

static void json_cost(struct json *j, const struct run_cost *c)
{
	json__key(j, "cost");
	json__begin_object(j);
	json__kv_number(j, "cpu_seconds", c->user_s + c->sys_s);
	json__kv_number(j, "user_seconds", c->user_s);
	json__kv_number(j, "system_seconds", c->sys_s);
	json__kv_number(j, "window_cpu_seconds", c->window_cpu_s);
	json__key(j, "peak_rss_bytes");
	json__int(j, (int64_t)c->peak_rss_kb * 1024);
	json__kv_number(j, "analysis_ms", c->analysis_ms);
	json__key(j, "stages");
	json__begin_array(j);
	for (size_t i = 0; i < c->nstages; i++) {
		json__begin_object(j);
		json__kv_str(j, "stage", c->stages[i].name);
		json__kv_number(j, "wall_ms", c->stages[i].wall_ms);
		json__kv_number(j, "cpu_ms", c->stages[i].cpu_ms);
		json__end_object(j);
	}
	json__end_array(j);
	json__key(j, "reads");
	json__int(j, (int64_t)c->reads);
	json__key(j, "captured_bytes");
	json__int(j, (int64_t)c->capture_bytes);
	json__end_object(j);
}

int report__json(const struct report_model *m, struct strbuf *out)
{
	const struct run_report *rr = m->rr;
	struct json j = { .pretty = 1, .out = *out };

	json__begin_object(&j);
	json_run(&j, rr->an, &m->host);
	json__kv_str(&j, "verdict", m->verdict);
	json__kv_str(&j, "worst", status__name(m->worst));
	json_findings(&j, m);
	json_matrix(&j, &m->use);
	json_matrix_instances(&j, &m->use);
	json_unknowns(&j, rr);
	json__key(&j, "checks");
	json__begin_array(&j);
	for (size_t i = 0; i < rr->nres; i++)
		json_check(&j, &rr->res[i]);
	json__end_array(&j);
	json_cost(&j, &rr->cost);
	json_tools(&j, rr->an);
	report__json_budget(&j, rr->an);
	json_drilldown(&j, rr);
	json__end_object(&j);
	strbuf__append(&j.out, "\n", 1);
	*out = j.out;
	return out->oom ? -ENOMEM : 0;
}
