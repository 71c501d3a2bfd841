// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Findings, the USE matrix, and their three renderings: findings.json for
 * machines, report.md for people (report.html is cmark's rendering of it),
 * and the terminal summary; flame graphs, which Markdown cannot hold, are
 * drawn into report.html by report__html. Every string that came from the host (process
 * names, command lines, device names) is escaped for its target: JSON
 * escaping, Markdown escaping (html.h md__escape), or control characters
 * replaced on the terminal.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "perf/fold.h"
#include "report/flamegraph.h"
#include "report/html.h"
#include "report/report.h"
#include "util/clock.h"

/* ---- ranking ---- */

static int meth_order(const struct catalog *cat, const char *id)
{
	const struct methodology *m = catalog__methodology(cat, id);

	return m ? m->order : 0;
}

/* How much of the resource's capacity the finding says was lost (a %), or -1: unknown. */
static double capacity_lost(const struct run_report *rr, const struct check_result *r)
{
	double lost = -1;

	for (size_t i = 0; i < rr->cat->ncapacity; i++) {
		const struct capacity_rule *c = &rr->cat->capacity[i];

		if (strcmp(c->check, r->def->id))
			continue;
		/* per-instance metrics (one per disk): the worst instance */
		for (size_t k = 0; k < r->nmetrics; k++)
			if (!strcmp(r->metrics[k].name, c->metric) && r->metrics[k].value > lost)
				lost = r->metrics[k].value;
	}
	return lost;
}

static int cmp_rank(const void *a, const void *b, void *arg)
{
	const struct run_report *rr = arg;
	size_t ia = *(const size_t *)a, ib = *(const size_t *)b;
	const struct check_result *x = &rr->res[ia], *y = &rr->res[ib];
	int sx = status__rank(x->st), sy = status__rank(y->st);
	int ex = rr->explained_by[ia] != SIZE_MAX, ey = rr->explained_by[ib] != SIZE_MAX;
	double cx, cy;
	int mx, my;

	/* a consequence of another finding is never the bottleneck */
	if (ex != ey)
		return ex - ey;
	if (sx != sy)
		return sy - sx;
	cx = capacity_lost(rr, x);
	cy = capacity_lost(rr, y);
	if (cx != cy)
		return cx > cy ? -1 : 1;
	/* USE findings before workload ones at equal severity: they name a resource. */
	mx = meth_order(rr->cat, x->def->methodology);
	my = meth_order(rr->cat, y->def->methodology);
	if (mx != my)
		return mx - my;
	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return ia < ib ? -1 : ia > ib;
}

static int is_finding(const struct check_result *r)
{
	return r->st == ST_WARN || r->st == ST_CRIT;
}

/* The cause's first culprit is one of the consequence's culprits (by pid). */
static int shares_culprit(const struct check_result *cause, const struct check_result *cons)
{
	if (!cause->nculprits)
		return 0;
	for (size_t i = 0; i < cons->nculprits; i++)
		if (cons->culprits[i].pid == cause->culprits[0].pid)
			return 1;
	return 0;
}

/* The consequence's first culprit is a kernel thread (its CPU time serves others). */
static int kernel_culprit(const struct check_result *cons)
{
	return cons->nculprits && cons->culprits[0].kernel_thread;
}

/* The first rule (table order) whose cause is a finding explains res[i]. */
static void explain(struct run_report *rr, size_t i)
{
	const struct check_result *r = &rr->res[i];

	for (size_t k = 0; k < rr->cat->nexplains; k++) {
		const struct explain_rule *e = &rr->cat->explains[k];

		if (strcmp(e->consequence, r->def->id))
			continue;
		for (size_t j = 0; j < rr->nres; j++) {
			const struct check_result *c = &rr->res[j];

			if (j == i || !is_finding(c) || strcmp(c->def->id, e->cause) ||
			    (e->same_culprit && !shares_culprit(c, r) &&
			     !(e->or_kernel && kernel_culprit(r))))
				continue;
			/* two findings that would explain each other: the first rule stands */
			if (rr->explained_by[j] == i)
				continue;
			rr->explained_by[i] = j;
			rr->why[i] = e;
			return;
		}
	}
}

int report__rank(struct run_report *rr)
{
	size_t n = rr->nres + 1;

	free(rr->rank);
	rr->nrank = 0;
	/* one block: rank, explained_by, why (report.h) */
	rr->rank = calloc(3 * n, sizeof(size_t));
	if (!rr->rank)
		return -1;
	rr->explained_by = rr->rank + n;
	rr->why = (const struct explain_rule **)(rr->rank + 2 * n);
	for (size_t i = 0; i < rr->nres; i++)
		rr->explained_by[i] = SIZE_MAX;
	for (size_t i = 0; i < rr->nres; i++)
		if (is_finding(&rr->res[i])) {
			rr->rank[rr->nrank++] = i;
			explain(rr, i);
		}
	qsort_r(rr->rank, rr->nrank, sizeof(*rr->rank), cmp_rank, rr);
	return 0;
}

enum status report__worst(const struct run_report *rr)
{
	return rr->nrank ? rr->res[rr->rank[0]].st : ST_OK;
}

/* The metric that decided the status (worst, then furthest past its threshold). */
static const struct metric *worst_metric(const struct check_result *r)
{
	const struct metric *w = NULL;

	for (size_t i = 0; i < r->nmetrics; i++) {
		const struct metric *m = &r->metrics[i];

		if (!w || status__rank(m->st) > status__rank(w->st))
			w = m;
	}
	return w;
}

static void fmt_value(char *buf, size_t len, double v, const char *unit)
{
	const char *u = unit ? unit : "";

	if (!strcmp(u, "%"))
		snprintf(buf, len, "%.1f%%", v);
	else if (!strcmp(u, "bytes")) {
		const char *sfx[] = { "B", "KiB", "MiB", "GiB", "TiB" };
		int k = 0;

		while (fabs(v) >= 1024 && k < 4)
			v /= 1024, k++;
		snprintf(buf, len, k ? "%.1f %s" : "%.0f %s", v, sfx[k]);
	} else if (!strcmp(u, "ratio"))
		snprintf(buf, len, "%.2f", v);
	else if (*u)
		snprintf(buf, len, "%.4g %s", v, u);
	else
		snprintf(buf, len, "%.4g", v);
}

/* A finding's sentence: the check's own summary, else its deciding metric. */
static void finding_summary(const struct check_result *r, char *buf, size_t len)
{
	const struct metric *m;
	char v[64], t[64];

	if (r->summary) {
		snprintf(buf, len, "%s", r->summary);
		return;
	}
	m = worst_metric(r);
	if (!m) {
		snprintf(buf, len, "%s: %s", r->def->title, status__name(r->st));
		return;
	}
	fmt_value(v, sizeof(v), m->value, m->unit);
	fmt_value(t, sizeof(t), m->st == ST_CRIT ? m->crit : m->warn, m->unit);
	snprintf(buf, len, "%s: %s%s%s is %s (%s at %s)", r->def->title, m->name,
		 m->instance ? " on " : "", m->instance ? m->instance : "", v,
		 status__name(m->st), t);
}

static void culprit_text(const struct culprit *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s (pid %d, %.0f%%)", c->comm, c->pid, c->share * 100);
}

void report__verdict(const struct run_report *rr, char *buf, size_t len)
{
	const struct check_result *r;
	char sum[512], cul[160];
	size_t unknowns = 0, nexp = 0;
	int o;

	for (size_t i = 0; i < rr->nres; i++)
		unknowns += rr->res[i].nunknowns;
	if (!rr->nrank) {
		snprintf(buf, len,
			 "No bottleneck found: no check crossed a warning threshold over the %.1f s window "
			 "(%zu known unknowns).",
			 rr->an->elapsed_s, unknowns);
		return;
	}
	r = &rr->res[rr->rank[0]];
	finding_summary(r, sum, sizeof(sum));
	if (r->nculprits)
		culprit_text(&r->culprits[0], cul, sizeof(cul));
	o = snprintf(buf, len, "The bottleneck is %s %s (%s): %s%s%s", r->def->resource,
		     r->def->metric, status__name(r->st), sum, r->nculprits ? "; culprit: " : "",
		     r->nculprits ? cul : "");
	/* the findings it explains, so the reader does not chase them */
	for (size_t k = 1; k < rr->nrank && o > 0 && (size_t)o < len; k++) {
		const struct check_result *c = &rr->res[rr->rank[k]];

		if (rr->explained_by[rr->rank[k]] != rr->rank[0])
			continue;
		o += snprintf(buf + o, len - (size_t)o, "%s%s", nexp++ ? ", " : "; it explains ",
			      c->def->title);
	}
	if (o > 0 && (size_t)o < len)
		snprintf(buf + o, len - (size_t)o, ".");
}

/* "explained by CHECK: reason" for a finding the ranking demoted, else "". */
static void explained_text(const struct run_report *rr, size_t i, char *buf, size_t len)
{
	*buf = '\0';
	if (rr->explained_by && rr->explained_by[i] != SIZE_MAX)
		snprintf(buf, len, "explained by %s (%s): %s", rr->res[rr->explained_by[i]].def->id,
			 rr->res[rr->explained_by[i]].def->title, rr->why[i]->reason);
}

/* ---- USE matrix ---- */

struct cell {
	enum status st;
	const struct check_result *decider;
	int na;
	const char *na_reason;
	int has_check;
};

static struct cell matrix_cell(const struct run_report *rr, const struct methodology *m,
			       const char *resource, const char *metric)
{
	struct cell c = { .st = ST_UNKNOWN };
	char key[128];

	snprintf(key, sizeof(key), "%s.%s", resource, metric);
	for (size_t i = 0; i < m->na_cells.n; i++)
		if (!strcmp(m->na_cells.v[i], key)) {
			c.na = 1;
			c.na_reason = m->na_reasons.v[i];
			c.st = ST_SKIP;
			return c;
		}
	for (size_t i = 0; i < rr->nres; i++) {
		const struct check_result *r = &rr->res[i];

		if (strcmp(r->def->methodology, m->id) || strcmp(r->def->resource, resource) ||
		    strcmp(r->def->metric, metric))
			continue;
		if (!c.has_check || status__rank(r->st) > status__rank(c.st) ||
		    (c.st == ST_UNKNOWN && r->st == ST_OK)) {
			c.st = r->st;
			c.decider = r;
		}
		c.has_check = 1;
	}
	return c;
}

/*
 * Per-instance rows (one per disk, interface, cgroup, CPU, process: whatever
 * the checks of a resource name in their metrics' `instance`): each cell is
 * the worst metric of that instance among the checks of the cell. The
 * resource row stays the worst of its checks, so it is at least as bad as any
 * of its instances (a check's status is the worst of its metrics).
 */
#define MATRIX_COLS 8
/* report.md and the HTML show this many instances per resource, worst first */
#define MATRIX_INSTANCES_SHOWN 12

struct inst_cell {
	const struct check_result *r;
	const struct metric *m; /* NULL: no check of the cell reported this instance */
};

struct inst_row {
	const char *instance;
	struct inst_cell cell[MATRIX_COLS];
	enum status worst;
	size_t first; /* order of first appearance, to keep the sort stable */
};

static int cmp_inst(const void *a, const void *b)
{
	const struct inst_row *x = a, *y = b;
	int rx = status__rank(x->worst), ry = status__rank(y->worst);

	if (rx != ry)
		return ry - rx;
	return x->first < y->first ? -1 : x->first > y->first;
}

static int col_of(const struct methodology *m, const char *metric)
{
	for (size_t i = 0; i < m->metrics.n && i < MATRIX_COLS; i++)
		if (!strcmp(m->metrics.v[i], metric))
			return (int)i;
	return -1;
}

/* The instance rows of resource, worst first, in *out (malloc'ed); -1 when out of memory. */
static int matrix_instances(const struct run_report *rr, const struct methodology *m,
			    const char *resource, struct inst_row **out, size_t *nout)
{
	struct inst_row *rows = NULL;
	size_t n = 0, cap = 0;

	*out = NULL;
	*nout = 0;
	for (size_t i = 0; i < rr->nres; i++) {
		const struct check_result *r = &rr->res[i];
		int col;

		if (strcmp(r->def->methodology, m->id) || strcmp(r->def->resource, resource))
			continue;
		col = col_of(m, r->def->metric);
		if (col < 0)
			continue;
		for (size_t k = 0; k < r->nmetrics; k++) {
			const struct metric *mt = &r->metrics[k];
			struct inst_cell *c;
			size_t j;

			if (!mt->instance)
				continue;
			for (j = 0; j < n; j++)
				if (!strcmp(rows[j].instance, mt->instance))
					break;
			if (j == n) {
				if (n == cap) {
					size_t nc = cap ? 2 * cap : 16;
					struct inst_row *nr = realloc(rows, nc * sizeof(*nr));

					if (!nr) {
						free(rows);
						return -1;
					}
					rows = nr;
					cap = nc;
				}
				rows[n] = (struct inst_row){ .instance = mt->instance, .first = n,
							     .worst = mt->st };
				n++;
			}
			c = &rows[j].cell[col];
			if (!c->m || status__rank(mt->st) > status__rank(c->m->st)) {
				c->r = r;
				c->m = mt;
			}
			if (status__rank(mt->st) > status__rank(rows[j].worst))
				rows[j].worst = mt->st;
		}
	}
	if (n)
		qsort(rows, n, sizeof(*rows), cmp_inst);
	*out = rows;
	*nout = n;
	return 0;
}

static int cell_na(const struct methodology *m, const char *resource, const char *metric)
{
	char key[128];

	snprintf(key, sizeof(key), "%s.%s", resource, metric);
	for (size_t i = 0; i < m->na_cells.n; i++)
		if (!strcmp(m->na_cells.v[i], key))
			return 1;
	return 0;
}

/*
 * The id of a check's section in report.html ("<!-- sonde:id ID -->", html.c):
 * its check id, every byte outside [a-z0-9._-] made '-' (ids from paths have
 * none), so a link to it is a fragment and nothing else.
 */
static void check_anchor(const struct check_def *d, char *buf, size_t len)
{
	size_t i;

	for (i = 0; d->id[i] && i + 1 < len; i++) {
		char c = d->id[i];

		buf[i] = ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
			  c == '-') ? c : '-';
	}
	buf[i] = '\0';
}

/* ---- JSON ---- */

static void json_time(struct json *j, const char *key, int64_t ns)
{
	char buf[64];

	clock__iso8601(ns, buf, sizeof(buf), 0);
	json__key(j, key);
	json__string(j, buf);
}

static void json_tools(struct json *j, struct analysis *an);
static void json_matrix_instances(struct json *j, const struct run_report *rr);
static void json_drilldown(struct json *j, const struct run_report *rr);
static void md_drilldown(struct strbuf *sb, const struct run_report *rr);
static void md_tools(struct strbuf *sb, struct analysis *an);

static void json_kv_str(struct json *j, const char *k, const char *v)
{
	json__key(j, k);
	if (v)
		json__string(j, v);
	else
		json__null(j);
}

static void json_kv_num(struct json *j, const char *k, double v)
{
	json__key(j, k);
	json__number(j, v);
}

static void json_culprits(struct json *j, const struct check_result *r)
{
	json__key(j, "culprits");
	json__begin_array(j);
	for (size_t i = 0; i < r->nculprits; i++) {
		json__begin_object(j);
		json__key(j, "pid");
		json__int(j, r->culprits[i].pid);
		json_kv_str(j, "comm", r->culprits[i].comm);
		json_kv_num(j, "share", r->culprits[i].share);
		if (r->culprits[i].cmdline)
			json_kv_str(j, "cmdline", r->culprits[i].cmdline);
		if (r->culprits[i].kernel_thread) {
			json__key(j, "kernel_thread");
			json__bool(j, 1);
		}
		json__end_object(j);
	}
	json__end_array(j);
}

static void json_metric(struct json *j, const struct metric *m)
{
	json__begin_object(j);
	json_kv_str(j, "name", m->name);
	json_kv_num(j, "value", m->value);
	if (m->unit)
		json_kv_str(j, "unit", m->unit);
	if (m->instance)
		json_kv_str(j, "instance", m->instance);
	if (m->has_warn)
		json_kv_num(j, "warn", m->warn);
	if (m->has_crit)
		json_kv_num(j, "crit", m->crit);
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
	json_kv_str(j, "status", status__name(m->st));
	json__end_object(j);
}

static void json_evidence(struct json *j, const struct evidence *e)
{
	static const char *const kinds[] = { "table", "series", "note", "flamegraph" };

	json__begin_object(j);
	json_kv_str(j, "kind", kinds[e->kind]);
	json_kv_str(j, "title", e->title);
	if (e->kind == EV_TABLE) {
		json__key(j, "columns");
		json__begin_array(j);
		for (size_t c = 0; c < e->columns.n; c++)
			json__string(j, e->columns.v[c]);
		json__end_array(j);
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
			json_kv_str(j, "unit", e->unit);
		json_kv_num(j, "step_seconds", e->step_s);
		json__key(j, "values");
		json__begin_array(j);
		for (size_t i = 0; i < e->nvalues; i++)
			json__number(j, e->values[i]);
		json__end_array(j);
	} else if (e->kind == EV_FLAMEGRAPH) {
		struct strbuf line = { 0 };

		json_kv_str(j, "unit", e->unit ? e->unit : "samples");
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
	}
	json__end_object(j);
}

void report__json(const struct run_report *rr, struct strbuf *out)
{
	struct json j = { .pretty = 1 };
	const struct analysis *an = rr->an;
	char verdict[1024];

	json__begin_object(&j);
	json_kv_str(&j, "schema", FINDINGS_SCHEMA);
	json__key(&j, "sonde");
	json__begin_object(&j);
	json_kv_str(&j, "version", SONDE_VERSION);
	json_kv_str(&j, "captured_by", an->version[0] ? an->version : NULL);
	json__end_object(&j);

	json__key(&j, "host");
	json__begin_object(&j);
	json_kv_str(&j, "hostname", an->hostname);
	json_kv_str(&j, "kernel", an->kernel);
	json__key(&j, "cpus");
	json__int(&j, an->cpus);
	json__key(&j, "mem_total_bytes");
	json__int(&j, (int64_t)an->mem_total);
	json_kv_str(&j, "virtualization", an->virt[0] ? an->virt : NULL);
	json__end_object(&j);

	json__key(&j, "window");
	json__begin_object(&j);
	json_time(&j, "start", an->start_wall_ns);
	json_time(&j, "end", an->end_wall_ns);
	json_kv_num(&j, "seconds", an->elapsed_s);
	json_kv_num(&j, "requested_seconds", an->window_s);
	json_kv_num(&j, "interval_seconds", an->interval_s);
	json__key(&j, "samples");
	json__int(&j, an->samples);
	json__key(&j, "partial");
	json__bool(&j, an->partial);
	json_kv_str(&j, "stop_reason", an->stop_reason);
	json__end_object(&j);

	report__verdict(rr, verdict, sizeof(verdict));
	json_kv_str(&j, "verdict", verdict);
	json_kv_str(&j, "worst", status__name(report__worst(rr)));

	json__key(&j, "findings");
	json__begin_array(&j);
	for (size_t k = 0; k < rr->nrank; k++) {
		const struct check_result *r = &rr->res[rr->rank[k]];
		char sum[1024];

		finding_summary(r, sum, sizeof(sum));
		json__begin_object(&j);
		json__key(&j, "rank");
		json__int(&j, (int64_t)k + 1);
		json_kv_str(&j, "check", r->def->id);
		json_kv_str(&j, "methodology", r->def->methodology);
		json_kv_str(&j, "resource", r->def->resource);
		json_kv_str(&j, "metric", r->def->metric);
		json_kv_str(&j, "severity", status__name(r->st));
		json_kv_str(&j, "summary", sum);
		if (rr->explained_by[rr->rank[k]] != SIZE_MAX) {
			json__key(&j, "explained_by");
			json__begin_object(&j);
			json_kv_str(&j, "check", rr->res[rr->explained_by[rr->rank[k]]].def->id);
			json_kv_str(&j, "reason", rr->why[rr->rank[k]]->reason);
			json__end_object(&j);
		}
		json_culprits(&j, r);
		json__key(&j, "evidence");
		json__begin_array(&j);
		for (size_t i = 0; i < r->nmetrics; i++)
			if (r->metrics[i].st == ST_WARN || r->metrics[i].st == ST_CRIT)
				json_metric(&j, &r->metrics[i]);
		json__end_array(&j);
		json__key(&j, "next");
		json__begin_array(&j);
		for (size_t i = 0; i < r->next.n; i++)
			json__string(&j, r->next.v[i]);
		json__end_array(&j);
		json__end_object(&j);
	}
	json__end_array(&j);

	json__key(&j, "use_matrix");
	json__begin_object(&j);
	{
		const struct methodology *m = catalog__methodology(rr->cat, "use");

		for (size_t ri = 0; m && ri < m->resources.n; ri++) {
			json__key(&j, m->resources.v[ri]);
			json__begin_object(&j);
			for (size_t mi = 0; mi < m->metrics.n; mi++) {
				struct cell c = matrix_cell(rr, m, m->resources.v[ri],
							    m->metrics.v[mi]);

				json__key(&j, m->metrics.v[mi]);
				json__begin_object(&j);
				json_kv_str(&j, "status", c.na ? "n/a" : status__name(c.st));
				if (c.na)
					json_kv_str(&j, "reason", c.na_reason);
				else if (!c.has_check)
					json_kv_str(&j, "reason", "no check selected for this cell");
				if (c.decider)
					json_kv_str(&j, "check", c.decider->def->id);
				json__end_object(&j);
			}
			json__end_object(&j);
		}
	}
	json__end_object(&j);
	json_matrix_instances(&j, rr);

	json__key(&j, "unknowns");
	json__begin_array(&j);
	for (size_t i = 0; i < rr->nres; i++)
		for (size_t k = 0; k < rr->res[i].nunknowns; k++) {
			json__begin_object(&j);
			json_kv_str(&j, "check", rr->res[i].def->id);
			json_kv_str(&j, "resource", rr->res[i].def->resource);
			json_kv_str(&j, "metric", rr->res[i].unknowns[k].name);
			json_kv_str(&j, "reason", rr->res[i].unknowns[k].reason);
			json__end_object(&j);
		}
	json__end_array(&j);

	json__key(&j, "checks");
	json__begin_array(&j);
	for (size_t i = 0; i < rr->nres; i++) {
		const struct check_result *r = &rr->res[i];

		json__begin_object(&j);
		json_kv_str(&j, "id", r->def->id);
		json_kv_str(&j, "title", r->def->title);
		json_kv_str(&j, "methodology", r->def->methodology);
		json_kv_str(&j, "resource", r->def->resource);
		json_kv_str(&j, "metric", r->def->metric);
		json_kv_str(&j, "status", status__name(r->st));
		if (r->summary)
			json_kv_str(&j, "summary", r->summary);
		json__key(&j, "metrics");
		json__begin_array(&j);
		for (size_t k = 0; k < r->nmetrics; k++)
			json_metric(&j, &r->metrics[k]);
		json__end_array(&j);
		json__key(&j, "unknowns");
		json__begin_array(&j);
		for (size_t k = 0; k < r->nunknowns; k++) {
			json__begin_object(&j);
			json_kv_str(&j, "metric", r->unknowns[k].name);
			json_kv_str(&j, "reason", r->unknowns[k].reason);
			json__end_object(&j);
		}
		json__end_array(&j);
		json_culprits(&j, r);
		json__key(&j, "evidence");
		json__begin_array(&j);
		for (size_t k = 0; k < r->nevidence; k++)
			json_evidence(&j, &r->evidence[k]);
		json__end_array(&j);
		if (r->error) {
			json_kv_str(&j, "error", r->error);
			json_kv_str(&j, "traceback", r->traceback);
		}
		json_kv_num(&j, "elapsed_ms", r->elapsed_ms);
		json__key(&j, "mem_peak_bytes");
		json__int(&j, (int64_t)r->mem_peak);
		json__key(&j, "instructions");
		json__int(&j, (int64_t)r->instructions);
		json__end_object(&j);
	}
	json__end_array(&j);

	json__key(&j, "cost");
	json__begin_object(&j);
	json_kv_num(&j, "cpu_seconds", rr->cost.user_s + rr->cost.sys_s);
	json_kv_num(&j, "user_seconds", rr->cost.user_s);
	json_kv_num(&j, "system_seconds", rr->cost.sys_s);
	json__key(&j, "peak_rss_bytes");
	json__int(&j, (int64_t)rr->cost.peak_rss_kb * 1024);
	json_kv_num(&j, "analysis_ms", rr->cost.analysis_ms);
	json__key(&j, "reads");
	json__int(&j, (int64_t)rr->cost.reads);
	json__key(&j, "captured_bytes");
	json__int(&j, (int64_t)rr->cost.capture_bytes);
	json__end_object(&j);
	json_tools(&j, rr->an);
	json_drilldown(&j, rr);
	json__end_object(&j);
	strbuf__append(&j.out, "\n", 1);
	*out = j.out;
}

/* "use_matrix_instances": the matrix's per-instance rows, all of them, worst first per resource. */
static void json_matrix_instances(struct json *j, const struct run_report *rr)
{
	const struct methodology *m = catalog__methodology(rr->cat, "use");

	json__key(j, "use_matrix_instances");
	json__begin_array(j);
	for (size_t ri = 0; m && ri < m->resources.n; ri++) {
		const char *res = m->resources.v[ri];
		struct inst_row *rows;
		size_t n;

		if (matrix_instances(rr, m, res, &rows, &n)) {
			j->out.oom = 1;
			break;
		}
		for (size_t k = 0; k < n; k++) {
			json__begin_object(j);
			json_kv_str(j, "resource", res);
			json_kv_str(j, "instance", rows[k].instance);
			json_kv_str(j, "status", status__name(rows[k].worst));
			for (size_t mi = 0; mi < m->metrics.n && mi < MATRIX_COLS; mi++) {
				const struct inst_cell *c = &rows[k].cell[mi];

				json__key(j, m->metrics.v[mi]);
				if (cell_na(m, res, m->metrics.v[mi])) {
					json__begin_object(j);
					json_kv_str(j, "status", "n/a");
					json__end_object(j);
					continue;
				}
				if (!c->m) {
					json__null(j);
					continue;
				}
				json__begin_object(j);
				json_kv_str(j, "status", status__name(c->m->st));
				json_kv_str(j, "check", c->r->def->id);
				json_kv_str(j, "metric", c->m->name);
				json_kv_num(j, "value", c->m->value);
				if (c->m->unit)
					json_kv_str(j, "unit", c->m->unit);
				json__end_object(j);
			}
			json__end_object(j);
		}
		free(rows);
	}
	json__end_array(j);
}

/* The BPF tools of the window: what ran, how, and what it cost (raw/bpf/<tool>.json). */
static void json_tools(struct json *j, struct analysis *an)
{
	const struct tool_summary *t;
	size_t n = 0;

	json__key(j, "tools");
	json__begin_array(j);
	if (!analysis__tools(an, &t, &n))
		for (size_t i = 0; i < n; i++) {
			json__begin_object(j);
			json_kv_str(j, "name", t[i].name);
			json_kv_str(j, "status", t[i].status);
			if (t[i].reason[0])
				json_kv_str(j, "reason", t[i].reason);
			if (!strcmp(t[i].status, "ok")) {
				json_kv_str(j, "attach", t[i].attach);
				json__key(j, "runs");
				json__int(j, (int64_t)t[i].runs);
				json__key(j, "drops");
				json__int(j, (int64_t)t[i].drops);
				json_kv_num(j, "cpu_ns", t[i].cpu_ns);
				json_kv_str(j, "cost_source", t[i].cost_source);
				json_kv_num(j, "setup_ms", t[i].setup_ms);
				json_kv_num(j, "teardown_ms", t[i].teardown_ms);
				if (t[i].stopped[0])
					json_kv_str(j, "stopped_early", t[i].stopped);
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
		json_kv_str(j, "trigger", r->trigger);
		json_kv_str(j, "trigger_status", status__name(rr->drill[i].trigger_status));
		json_kv_str(j, "why", r->why);
		json__key(j, "run");
		json__begin_array(j);
		for (size_t k = 0; k < r->run.n; k++)
			json__string(j, r->run.v[k]);
		json__end_array(j);
		json__end_object(j);
	}
	json__end_array(j);
	if (rr->drill_an) {
		json__key(j, "window");
		json__begin_object(j);
		json_kv_num(j, "seconds", rr->drill_an->elapsed_s);
		json__key(j, "samples");
		json__int(j, rr->drill_an->samples);
		json__key(j, "partial");
		json__bool(j, rr->drill_an->partial);
		json_kv_str(j, "stop_reason", rr->drill_an->stop_reason);
		json__end_object(j);
	}
	if (rr->drill_note)
		json_kv_str(j, "note", rr->drill_note);
	json__end_object(j);
}

/* ---- Markdown ---- */

static void md_text_n(struct strbuf *sb, const char *s, size_t n)
{
	char *e = md__escape(s ? s : "", s ? n : 0);

	if (e)
		strbuf__puts(sb, e);
	free(e);
}

static void md_text(struct strbuf *sb, const char *s)
{
	md_text_n(sb, s, s ? strlen(s) : 0);
}

/* Table cells stay readable: long command lines are cut (at a UTF-8 boundary) with a mark. */
#define MD_CELL_MAX 160

static void md_cell_text(struct strbuf *sb, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n <= MD_CELL_MAX) {
		md_text_n(sb, s, n);
		return;
	}
	n = MD_CELL_MAX;
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	md_text_n(sb, s, n);
	strbuf__puts(sb, " …");
}

/* Evidence report.html draws itself in place of a marker (report__html). */
static int is_embedded(const struct evidence *e)
{
	return e->kind == EV_FLAMEGRAPH || e->kind == EV_SERIES;
}

/* Drawn evidence in run order: the N of report.html's "<!-- sonde:embed N -->". */
static size_t embed_index(const struct run_report *rr, const struct evidence *want)
{
	size_t n = 0;

	for (size_t i = 0; i < rr->nres; i++)
		for (size_t k = 0; k < rr->res[i].nevidence; k++) {
			const struct evidence *e = &rr->res[i].evidence[k];

			if (e == want)
				return n;
			n += is_embedded(e);
		}
	return n;
}

static const char *const spark[] = { "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };

/*
 * A series: its numbers as a text line (a Unicode sparkline, min, mean, max),
 * then the marker where report.html draws it as a chart (report__html).
 */
static void md_series(struct strbuf *sb, const struct run_report *rr, const struct evidence *e)
{
	double lo = INFINITY, hi = -INFINITY, sum = 0;
	size_t n = 0;
	char a[48], b[48], c[48];

	for (size_t i = 0; i < e->nvalues; i++)
		if (isfinite(e->values[i])) {
			lo = fmin(lo, e->values[i]);
			hi = fmax(hi, e->values[i]);
			sum += e->values[i];
			n++;
		}
	strbuf__puts(sb, "- ");
	md_text(sb, e->title);
	strbuf__puts(sb, ": `");
	for (size_t i = 0; i < e->nvalues; i++) {
		int k = 0;

		if (!isfinite(e->values[i])) {
			strbuf__puts(sb, " ");
			continue;
		}
		if (hi > lo)
			k = (int)((e->values[i] - lo) / (hi - lo) * 7.999);
		strbuf__puts(sb, spark[k < 0 ? 0 : k > 7 ? 7 : k]);
	}
	strbuf__puts(sb, "`");
	if (n) {
		fmt_value(a, sizeof(a), lo, e->unit);
		fmt_value(b, sizeof(b), sum / (double)n, e->unit);
		fmt_value(c, sizeof(c), hi, e->unit);
		strbuf__printf(sb, " min ");
		md_text(sb, a);
		strbuf__printf(sb, ", mean ");
		md_text(sb, b);
		strbuf__printf(sb, ", max ");
		md_text(sb, c);
		strbuf__printf(sb, " (every %.4g s)", e->step_s);
	}
	strbuf__printf(sb, "\n\n<!-- sonde:embed %zu -->\n", embed_index(rr, e));
}

static void md_table_row(struct strbuf *sb, char *const *cells, size_t n)
{
	strbuf__puts(sb, "|");
	for (size_t c = 0; c < n; c++) {
		strbuf__puts(sb, " ");
		md_cell_text(sb, cells[c]);
		strbuf__puts(sb, " |");
	}
	strbuf__puts(sb, "\n");
}

/* Stacks shown from the leaf end, where the time is, cut to this many bytes. */
#define MD_STACK_MAX 150
#define MD_FG_TOP 10

struct md_frame {
	const char *name;
	size_t len;
	double self, incl;
	size_t seen; /* the last stack that counted it in incl (recursion counts once) */
};

static int cmp_frame_self(const void *a, const void *b)
{
	const struct md_frame *x = a, *y = b;

	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	return x->incl > y->incl ? -1 : x->incl < y->incl;
}

static void md_pct(struct strbuf *sb, double part, double total)
{
	strbuf__printf(sb, "%.1f%%", total > 0 ? 100 * part / total : 0);
}

/*
 * The text side of a flame graph: its hottest frames (own time, and time
 * with their callees) and its largest stacks. The graph is in report.html.
 */
static void md_flamegraph(struct strbuf *sb, const struct run_report *rr,
			  const struct evidence *e)
{
	struct md_frame *fr = NULL;
	size_t nfr = 0, cap = 0;
	double total = (double)e->fg.total;
	char tot[64];

	strbuf__printf(sb, "\n<!-- sonde:embed %zu -->\n\n", embed_index(rr, e));
	flamegraph__fmt_count(tot, sizeof(tot), total, e->unit);
	strbuf__puts(sb, "Flame graph: ");
	md_text(sb, tot);
	strbuf__printf(sb, " in %llu distinct stacks", (unsigned long long)e->fg.stacks_in);
	if (e->fg.other)
		strbuf__printf(sb, " (the %zu largest kept, the rest merged into \\[other\\])",
			       e->fg.stacks.n - 1);
	if (e->fg.depth_cut)
		strbuf__printf(sb, "; %llu stacks cut at %d frames",
			       (unsigned long long)e->fg.depth_cut, FG_MAX_DEPTH);
	strbuf__puts(sb, ". The interactive graph (hover, zoom, search) is in report.html.\n");
	if (!e->fg.stacks.n || !(total > 0))
		return;

	/* Frames by their own count; a name seen several times in one stack counts once in incl. */
	for (size_t i = 0; i < e->fg.stacks.n; i++) {
		const char *p = e->fg.stacks.v[i];

		for (;;) {
			const char *q = strchr(p, ';');
			size_t len = q ? (size_t)(q - p) : strlen(p), k;

			for (k = 0; k < nfr; k++)
				if (fr[k].len == len && !memcmp(fr[k].name, p, len))
					break;
			if (k == nfr) {
				if (nfr == cap) {
					size_t nc = cap ? cap * 2 : 64;
					struct md_frame *nf = realloc(fr, nc * sizeof(*nf));

					if (!nf) {
						sb->oom = 1;
						free(fr);
						return;
					}
					fr = nf;
					cap = nc;
				}
				fr[nfr++] = (struct md_frame){ .name = p, .len = len, .seen = i + 1 };
				fr[k].incl += e->fg.counts[i];
			} else if (fr[k].seen != i + 1) {
				fr[k].seen = i + 1;
				fr[k].incl += e->fg.counts[i];
			}
			if (!q) {
				fr[k].self += e->fg.counts[i];
				break;
			}
			p = q + 1;
		}
		/* Enough for a top ten; the table is a summary, not the data. */
		if (nfr > 20000)
			break;
	}
	qsort(fr, nfr, sizeof(*fr), cmp_frame_self);
	strbuf__puts(sb, "\n| hottest frame | own | own % | with callees % |\n|---|---:|---:|---:|\n");
	for (size_t k = 0; k < nfr && k < MD_FG_TOP && fr[k].self > 0; k++) {
		char c[64];

		strbuf__puts(sb, "| ");
		md_text_n(sb, fr[k].name, fr[k].len);
		flamegraph__fmt_count(c, sizeof(c), fr[k].self, e->unit);
		strbuf__puts(sb, " | ");
		md_text(sb, c);
		strbuf__puts(sb, " | ");
		md_pct(sb, fr[k].self, total);
		strbuf__puts(sb, " | ");
		md_pct(sb, fr[k].incl, total);
		strbuf__puts(sb, " |\n");
	}
	free(fr);

	strbuf__puts(sb, "\n| largest stacks (leaf last) | count | share |\n|---|---:|---:|\n");
	for (size_t i = 0; i < e->fg.stacks.n && i < MD_FG_TOP; i++) {
		const char *s = e->fg.stacks.v[i];
		size_t n = strlen(s), from = 0;
		char c[64];

		if (n > MD_STACK_MAX) {
			from = n - MD_STACK_MAX;
			while (from < n && ((unsigned char)s[from] & 0xc0) == 0x80)
				from++;
		}
		strbuf__puts(sb, "| ");
		if (from)
			strbuf__puts(sb, "… ");
		/* Frames one by one (a ';' would show as "\\;" in the Markdown source). */
		for (const char *p = s + from;;) {
			const char *q = strchr(p, ';');

			md_text_n(sb, p, q ? (size_t)(q - p) : strlen(p));
			if (!q)
				break;
			strbuf__puts(sb, " → ");
			p = q + 1;
		}
		flamegraph__fmt_count(c, sizeof(c), e->fg.counts[i], e->unit);
		strbuf__puts(sb, " | ");
		md_text(sb, c);
		strbuf__puts(sb, " | ");
		md_pct(sb, e->fg.counts[i], total);
		strbuf__puts(sb, " |\n");
	}
}

static void md_evidence(struct strbuf *sb, const struct run_report *rr,
			const struct check_result *r)
{
	for (size_t i = 0; i < r->nevidence; i++) {
		const struct evidence *e = &r->evidence[i];

		if (e->kind == EV_SERIES) {
			strbuf__puts(sb, "\n");
			md_series(sb, rr, e);
			continue;
		}
		if (e->kind == EV_NOTE) {
			strbuf__puts(sb, "\n");
			md_text(sb, e->title);
			strbuf__puts(sb, "\n");
			continue;
		}
		if (e->title) {
			strbuf__puts(sb, "\n**");
			md_text(sb, e->title);
			strbuf__puts(sb, "**\n");
		}
		if (e->kind == EV_FLAMEGRAPH) {
			md_flamegraph(sb, rr, e);
			continue;
		}
		if (!e->columns.n)
			continue;
		strbuf__puts(sb, "\n");
		md_table_row(sb, e->columns.v, e->columns.n);
		strbuf__puts(sb, "|");
		for (size_t c = 0; c < e->columns.n; c++)
			strbuf__puts(sb, "---|");
		strbuf__puts(sb, "\n");
		for (size_t k = 0; k < e->nrows; k++)
			md_table_row(sb, e->rows[k], e->columns.n);
	}
}

static void md_metrics(struct strbuf *sb, const struct check_result *r)
{
	char v[64], w[64], c[64];

	if (!r->nmetrics)
		return;
	strbuf__puts(sb, "\n| metric | value | warn | crit | status |\n|---|---:|---:|---:|---|\n");
	for (size_t i = 0; i < r->nmetrics; i++) {
		const struct metric *m = &r->metrics[i];

		fmt_value(v, sizeof(v), m->value, m->unit);
		if (m->has_warn)
			fmt_value(w, sizeof(w), m->warn, m->unit);
		if (m->has_crit)
			fmt_value(c, sizeof(c), m->crit, m->unit);
		strbuf__puts(sb, "| ");
		md_text(sb, m->name);
		if (m->instance) {
			strbuf__puts(sb, " (");
			md_text(sb, m->instance);
			strbuf__puts(sb, ")");
		}
		strbuf__puts(sb, " | ");
		md_text(sb, v);
		strbuf__puts(sb, " | ");
		md_text(sb, m->has_warn ? w : "");
		strbuf__puts(sb, " | ");
		md_text(sb, m->has_crit ? c : "");
		strbuf__printf(sb, " | %s |\n", status__name(m->st));
	}
}

static void md_culprits(struct strbuf *sb, const struct check_result *r)
{
	if (!r->nculprits)
		return;
	strbuf__puts(sb, "\n| pid | process | share | command line |\n|---:|---|---:|---|\n");
	for (size_t i = 0; i < r->nculprits; i++) {
		const struct culprit *c = &r->culprits[i];
		char share[32];

		snprintf(share, sizeof(share), "%.1f%%", c->share * 100);
		strbuf__printf(sb, "| %d | ", c->pid);
		md_text(sb, c->comm);
		strbuf__puts(sb, " | ");
		md_text(sb, share);
		strbuf__puts(sb, " | ");
		md_cell_text(sb, c->cmdline ? c->cmdline : "");
		strbuf__puts(sb, " |\n");
	}
}

/* "[text](#check.id)": the cell links to the section of the check that decided it. */
static void md_link_open(struct strbuf *sb, const struct check_result *r)
{
	if (r)
		strbuf__puts(sb, "[");
}

static void md_link_close(struct strbuf *sb, const struct check_result *r)
{
	char id[128];

	if (!r)
		return;
	check_anchor(r->def, id, sizeof(id));
	strbuf__printf(sb, "](#%s)", id);
}

/* Where a check's section starts: report.html gives its heading the check's id. */
static void md_anchor(struct strbuf *sb, const struct check_result *r)
{
	char id[128];

	check_anchor(r->def, id, sizeof(id));
	strbuf__printf(sb, "\n<!-- sonde:id %s -->\n", id);
}

static void md_cell(struct strbuf *sb, const struct cell *c)
{
	const struct metric *m;
	char v[64];

	if (c->na) {
		strbuf__puts(sb, "n/a");
		return;
	}
	md_link_open(sb, c->decider);
	strbuf__puts(sb, status__name(c->st));
	if (c->decider && (m = worst_metric(c->decider))) {
		fmt_value(v, sizeof(v), m->value, m->unit);
		strbuf__puts(sb, " ");
		md_text(sb, m->name);
		if (m->instance) {
			strbuf__puts(sb, " ");
			md_text(sb, m->instance);
		}
		strbuf__puts(sb, " ");
		md_text(sb, v);
	}
	md_link_close(sb, c->decider);
}

static void md_inst_cell(struct strbuf *sb, const struct inst_cell *c, int na)
{
	char v[64];

	if (na) {
		strbuf__puts(sb, "n/a");
		return;
	}
	if (!c->m) {
		/* no check of this cell reported the instance: neither ok nor unknown */
		strbuf__puts(sb, "·");
		return;
	}
	fmt_value(v, sizeof(v), c->m->value, c->m->unit);
	md_link_open(sb, c->r);
	strbuf__printf(sb, "%s ", status__name(c->m->st));
	md_text(sb, c->m->name);
	strbuf__puts(sb, " ");
	md_text(sb, v);
	md_link_close(sb, c->r);
}

/* The USE matrix: a row per resource, then its instances ("↳ sda"), worst first. */
static void md_matrix(struct strbuf *sb, const struct run_report *rr, const struct methodology *use)
{
	strbuf__puts(sb, "\n## USE matrix\n\n| resource |");
	for (size_t mi = 0; mi < use->metrics.n; mi++)
		strbuf__printf(sb, " %s |", use->metrics.v[mi]);
	strbuf__puts(sb, "\n|---|");
	for (size_t mi = 0; mi < use->metrics.n; mi++)
		strbuf__puts(sb, "---|");
	strbuf__puts(sb, "\n");
	for (size_t ri = 0; ri < use->resources.n; ri++) {
		const char *res = use->resources.v[ri];
		struct inst_row *rows;
		size_t n;

		strbuf__printf(sb, "| %s |", res);
		for (size_t mi = 0; mi < use->metrics.n; mi++) {
			struct cell c = matrix_cell(rr, use, res, use->metrics.v[mi]);

			strbuf__puts(sb, " ");
			md_cell(sb, &c);
			strbuf__puts(sb, " |");
		}
		strbuf__puts(sb, "\n");
		if (matrix_instances(rr, use, res, &rows, &n)) {
			sb->oom = 1;
			return;
		}
		for (size_t k = 0; k < n && k < MATRIX_INSTANCES_SHOWN; k++) {
			strbuf__puts(sb, "| ↳ ");
			md_text(sb, rows[k].instance);
			strbuf__puts(sb, " |");
			for (size_t mi = 0; mi < use->metrics.n; mi++) {
				static const struct inst_cell none;

				strbuf__puts(sb, " ");
				md_inst_cell(sb, mi < MATRIX_COLS ? &rows[k].cell[mi] : &none,
					     cell_na(use, res, use->metrics.v[mi]));
				strbuf__puts(sb, " |");
			}
			strbuf__puts(sb, "\n");
		}
		if (n > MATRIX_INSTANCES_SHOWN) {
			strbuf__printf(sb, "| ↳ %zu more (findings.json: use\\_matrix\\_instances) |",
				       n - MATRIX_INSTANCES_SHOWN);
			for (size_t mi = 0; mi < use->metrics.n; mi++)
				strbuf__puts(sb, "  |");
			strbuf__puts(sb, "\n");
		}
		free(rows);
	}
}

/*
 * Workload characterization, a section of its own: the checks of methodology
 * workload grouped by their question (who, what, how, why: the methodology's
 * metrics, in its order), each with its summary and evidence; series are
 * drawn as charts in report.html, so the section shows how the load changed
 * over the window. A workload check that is also a finding has its section
 * (and anchor) under Findings; here it links there.
 */
static void md_workload(struct strbuf *sb, const struct run_report *rr)
{
	const struct methodology *w = catalog__methodology(rr->cat, "workload");
	size_t shown = 0;

	strbuf__puts(sb, "\n## Workload\n\nWho causes the load, what it is, how it behaves and why, "
			 "from the workload characterization checks; the series show how it changed "
			 "over the window.\n");
	for (size_t q = 0; w && q <= w->metrics.n; q++) {
		int heading = 0;

		for (size_t i = 0; i < rr->nres; i++) {
			const struct check_result *r = &rr->res[i];
			int in_vocab = w->metrics.n && col_of(w, r->def->metric) >= 0;

			if (strcmp(r->def->methodology, "workload") || r->st == ST_ERROR)
				continue;
			/* q == metrics.n: checks of a metric outside the vocabulary, if any */
			if (q < w->metrics.n ? strcmp(r->def->metric, w->metrics.v[q]) : in_vocab)
				continue;
			if (!heading) {
				const char *name = q < w->metrics.n ? w->metrics.v[q] : "Other";

				strbuf__puts(sb, "\n### ");
				if (name[0] >= 'a' && name[0] <= 'z') {
					char up = (char)(name[0] - 'a' + 'A');

					strbuf__append(sb, &up, 1);
					md_text(sb, name + 1);
				} else {
					md_text(sb, name);
				}
				strbuf__puts(sb, "\n");
				heading = 1;
			}
			if (!is_finding(r))
				md_anchor(sb, r);
			strbuf__puts(sb, "\n#### ");
			md_text(sb, r->def->title);
			strbuf__puts(sb, "\n");
			if (is_finding(r)) {
				char id[128];

				check_anchor(r->def, id, sizeof(id));
				strbuf__printf(sb, "\nA finding (%s): [see it above](#%s).\n",
					       status__name(r->st), id);
			}
			if (r->summary) {
				strbuf__puts(sb, "\n");
				md_text(sb, r->summary);
				strbuf__puts(sb, "\n");
			}
			md_evidence(sb, rr, r);
			shown++;
		}
	}
	if (!shown)
		strbuf__puts(sb, "\nNo workload check ran.\n");
}

void report__markdown(const struct run_report *rr, struct strbuf *sb)
{
	const struct analysis *an = rr->an;
	const struct methodology *use = catalog__methodology(rr->cat, "use");
	char verdict[1024], when[64];
	time_t s = (time_t)(an->start_wall_ns / 1000000000);
	struct tm tm;
	size_t nunk = 0, nerr = 0;

	gmtime_r(&s, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	strbuf__puts(sb, "# sonde report: ");
	md_text(sb, an->hostname[0] ? an->hostname : "unknown host");
	strbuf__puts(sb, "\n\n");
	strbuf__printf(sb, "%s · %.1f s window (%u samples, every %.3g s)%s · kernel ", when,
		       an->elapsed_s, an->samples, an->interval_s,
		       an->partial ? " · **partial: the window was cut short**" : "");
	md_text(sb, an->kernel);
	strbuf__printf(sb, " · %d CPUs · ", an->cpus);
	{
		char mem[64];

		fmt_value(mem, sizeof(mem), (double)an->mem_total, "bytes");
		md_text(sb, mem);
	}
	if (an->virt[0]) {
		strbuf__puts(sb, " · ");
		md_text(sb, an->virt);
	}
	strbuf__puts(sb, "\n\n## Verdict\n\n**");
	report__verdict(rr, verdict, sizeof(verdict));
	md_text(sb, verdict);
	strbuf__puts(sb, "**\n");

	if (use)
		md_matrix(sb, rr, use);

	strbuf__puts(sb, "\n## Findings\n");
	if (!rr->nrank)
		strbuf__puts(sb, "\nNo check crossed a warning threshold.\n");
	for (size_t k = 0; k < rr->nrank; k++) {
		const struct check_result *r = &rr->res[rr->rank[k]];
		char sum[1024], exp[512];

		finding_summary(r, sum, sizeof(sum));
		md_anchor(sb, r);
		strbuf__printf(sb, "\n### %zu. %s: ", k + 1, status__name(r->st));
		md_text(sb, r->def->title);
		strbuf__puts(sb, " (");
		md_text(sb, r->def->id);
		strbuf__puts(sb, ")\n\n");
		md_text(sb, sum);
		strbuf__puts(sb, "\n");
		explained_text(rr, rr->rank[k], exp, sizeof(exp));
		if (*exp) {
			strbuf__puts(sb, "\n*");
			md_text(sb, exp);
			strbuf__puts(sb, "*\n");
		}
		md_culprits(sb, r);
		md_metrics(sb, r);
		md_evidence(sb, rr, r);
		if (r->next.n) {
			strbuf__puts(sb, "\nNext:\n\n");
			for (size_t i = 0; i < r->next.n; i++) {
				strbuf__puts(sb, "- ");
				md_text(sb, r->next.v[i]);
				strbuf__puts(sb, "\n");
			}
		}
	}

	md_workload(sb, rr);

	strbuf__puts(sb, "\n## USE details\n");
	for (size_t i = 0; i < rr->nres; i++) {
		const struct check_result *r = &rr->res[i];

		if (strcmp(r->def->methodology, "use") || r->st == ST_WARN || r->st == ST_CRIT ||
		    r->st == ST_ERROR)
			continue;
		md_anchor(sb, r);
		strbuf__printf(sb, "\n### %s: ", status__name(r->st));
		md_text(sb, r->def->title);
		strbuf__puts(sb, "\n");
		if (r->summary) {
			strbuf__puts(sb, "\n");
			md_text(sb, r->summary);
			strbuf__puts(sb, "\n");
		}
		md_metrics(sb, r);
		md_evidence(sb, rr, r);
	}

	for (size_t i = 0; i < rr->nres; i++)
		nunk += rr->res[i].nunknowns;
	md_drilldown(sb, rr);
	strbuf__puts(sb, "\n## Known unknowns\n\n");
	if (!nunk)
		strbuf__puts(sb, "None: every metric the checks asked for was measured.\n");
	else
		strbuf__puts(sb, "| check | metric | why it is unknown here |\n|---|---|---|\n");
	for (size_t i = 0; i < rr->nres; i++)
		for (size_t k = 0; k < rr->res[i].nunknowns; k++) {
			strbuf__puts(sb, "| ");
			md_text(sb, rr->res[i].def->id);
			strbuf__puts(sb, " | ");
			md_text(sb, rr->res[i].unknowns[k].name);
			strbuf__puts(sb, " | ");
			md_text(sb, rr->res[i].unknowns[k].reason);
			strbuf__puts(sb, " |\n");
		}

	strbuf__puts(sb, "\n## Appendix\n\n### Checks\n\n"
			 "| check | status | time (ms) | Lua memory peak | instructions |\n"
			 "|---|---|---:|---:|---:|\n");
	for (size_t i = 0; i < rr->nres; i++) {
		const struct check_result *r = &rr->res[i];

		strbuf__puts(sb, "| ");
		md_text(sb, r->def->id);
		strbuf__printf(sb, " | %s | %.1f | %zu KiB | %llu |\n", status__name(r->st),
			       r->elapsed_ms, r->mem_peak / 1024,
			       (unsigned long long)r->instructions);
		nerr += r->st == ST_ERROR;
	}
	if (nerr) {
		strbuf__puts(sb, "\n### Check errors\n");
		for (size_t i = 0; i < rr->nres; i++) {
			const struct check_result *r = &rr->res[i];

			if (r->st != ST_ERROR)
				continue;
			/* a failed drill-down check has its section in the drill-down */
			if (strcmp(r->def->methodology, "drilldown"))
				md_anchor(sb, r);
			strbuf__puts(sb, "\n**");
			md_text(sb, r->def->id);
			strbuf__puts(sb, "** (");
			md_text(sb, r->def->origin);
			strbuf__puts(sb, "): ");
			md_text(sb, r->error);
			strbuf__puts(sb, "\n");
			if (r->traceback) {
				/* A fence longer than any backtick run inside keeps the block closed. */
				strbuf__puts(sb, "\n~~~~~~~~~~\n");
				for (const char *p = r->traceback; *p; p++)
					strbuf__append(sb, (*p == '~') ? "-" : p, 1);
				strbuf__puts(sb, "\n~~~~~~~~~~\n");
			}
		}
	}
	md_tools(sb, rr->an);
	strbuf__puts(sb, "\n### This run\n\n");
	strbuf__puts(sb, "- command: `");
	for (const char *p = rr->command ? rr->command : ""; *p; p++)
		strbuf__append(sb, (*p == '`' || (unsigned char)*p < 0x20) ? "'" : p, 1);
	strbuf__puts(sb, "`\n");
	strbuf__printf(sb, "- sonde %s; window stop: ", SONDE_VERSION);
	md_text(sb, an->stop_reason);
	strbuf__printf(sb, "\n- sonde's own cost: %.3f s CPU (%.3f user, %.3f system), peak RSS %.1f MiB, "
			   "analysis %.1f ms\n",
		       rr->cost.user_s + rr->cost.sys_s, rr->cost.user_s, rr->cost.sys_s,
		       (double)rr->cost.peak_rss_kb / 1024, rr->cost.analysis_ms);
	if (rr->cost.reads)
		strbuf__printf(sb, "- %llu reads of /proc and /sys (%llu failed: processes that "
				   "exited, files this host lacks), %.1f MiB captured under raw/\n",
			       (unsigned long long)rr->cost.reads,
			       (unsigned long long)rr->cost.read_errors,
			       (double)rr->cost.capture_bytes / (1 << 20));
	strbuf__puts(sb, "- sonde's own cost above is counted up to this report: writing and "
			 "compressing the bundle comes after it\n");
}

/* A series as report.html's chart: the sparkline, labelled as report.md's numbers are. */
static int series_html(const struct evidence *e, struct strbuf *sb)
{
	double lo = INFINITY, hi = -INFINITY, last = NAN;
	char a[48], b[48], c[48];
	struct spark_labels l = { 0 };

	for (size_t i = 0; i < e->nvalues; i++)
		if (isfinite(e->values[i])) {
			lo = fmin(lo, e->values[i]);
			hi = fmax(hi, e->values[i]);
			last = e->values[i];
		}
	if (isfinite(last)) {
		fmt_value(a, sizeof(a), lo, e->unit);
		fmt_value(b, sizeof(b), hi, e->unit);
		fmt_value(c, sizeof(c), last, e->unit);
		l = (struct spark_labels){ .min = a, .max = b, .last = c };
	}
	html__sparkline(sb, e->title, e->values, e->nvalues, &l);
	return sb->oom ? -1 : 0;
}

char *report__html(const struct run_report *rr, const char *md, size_t mdlen, const char *title,
		   const char *css)
{
	struct html_extras ex = { 0 };
	char **embeds = NULL;
	unsigned char *reusable = NULL;
	size_t n = 0, nfg = 0;
	char *html = NULL;

	for (size_t i = 0; i < rr->nres; i++)
		for (size_t k = 0; k < rr->res[i].nevidence; k++) {
			n += is_embedded(&rr->res[i].evidence[k]);
			nfg += rr->res[i].evidence[k].kind == EV_FLAMEGRAPH;
		}
	if (n) {
		embeds = calloc(n, sizeof(*embeds));
		reusable = calloc(n, 1);
		if (!embeds || !reusable)
			goto cleanup;
	}
	/* In the order embed_index numbers them. */
	for (size_t i = 0, m = 0; i < rr->nres; i++)
		for (size_t k = 0; k < rr->res[i].nevidence; k++) {
			const struct evidence *e = &rr->res[i].evidence[k];
			struct strbuf sb = { 0 };

			if (!is_embedded(e))
				continue;
			if (e->kind == EV_FLAMEGRAPH ? flamegraph__html(e, &sb) :
						       series_html(e, &sb)) {
				strbuf__free(&sb);
				goto cleanup;
			}
			/* a series of a workload finding is drawn in both of its sections */
			reusable[m] = e->kind == EV_SERIES;
			embeds[m++] = sb.buf;
		}
	ex.embeds = (const char *const *)embeds;
	ex.nembeds = n;
	ex.reusable = reusable;
	ex.script = nfg ? flamegraph__script : NULL;
	html = html__render_page_ex(md, mdlen, title, css, &ex);
cleanup:
	for (size_t i = 0; embeds && i < n; i++)
		free(embeds[i]);
	free(embeds);
	free(reusable);
	return html;
}

static void md_drilldown(struct strbuf *sb, const struct run_report *rr)
{
	if (!rr->ndrill)
		return;
	strbuf__puts(sb, "\n## Drill-down\n\n");
	if (rr->drill_an)
		strbuf__printf(sb, "A second window of %.1f s (%u samples%s) looked deeper, because:\n\n",
			       rr->drill_an->elapsed_s, rr->drill_an->samples,
			       rr->drill_an->partial ? ", partial" : "");
	else {
		strbuf__puts(sb, "Findings called for deeper checks, which did not run: ");
		md_text(sb, rr->drill_note ? rr->drill_note : "--no-drilldown");
		strbuf__puts(sb, ".\n\n");
	}
	for (size_t i = 0; i < rr->ndrill; i++) {
		const struct drill_rule *r = rr->drill[i].rule;

		strbuf__puts(sb, "- ");
		md_text(sb, r->trigger);
		strbuf__printf(sb, " (%s): ", status__name(rr->drill[i].trigger_status));
		md_text(sb, r->why);
		strbuf__puts(sb, " -> ");
		for (size_t k = 0; k < r->run.n; k++) {
			if (k)
				strbuf__puts(sb, ", ");
			md_text(sb, r->run.v[k]);
		}
		strbuf__puts(sb, "\n");
	}
	for (size_t i = 0; i < rr->nres; i++) {
		const struct check_result *res = &rr->res[i];

		if (strcmp(res->def->methodology, "drilldown"))
			continue;
		if (!is_finding(res))
			md_anchor(sb, res);
		strbuf__puts(sb, "\n### ");
		md_text(sb, res->def->title ? res->def->title : res->def->id);
		strbuf__puts(sb, " (");
		md_text(sb, res->def->id);
		strbuf__printf(sb, ", %s)\n", status__name(res->st));
		if (res->summary) {
			strbuf__puts(sb, "\n");
			md_text(sb, res->summary);
			strbuf__puts(sb, "\n");
		}
		if (res->st == ST_ERROR && res->error) {
			strbuf__puts(sb, "\nThe check failed: ");
			md_text(sb, res->error);
			strbuf__puts(sb, "\n");
		}
		md_metrics(sb, res);
		md_evidence(sb, rr, res);
	}
}

static void md_tools(struct strbuf *sb, struct analysis *an)
{
	const struct tool_summary *t;
	size_t n = 0;

	if (analysis__tools(an, &t, &n) || !n)
		return;
	strbuf__puts(sb, "\n### BPF tools\n\n"
			 "| tool | status | attach | program runs | dropped | own CPU (ms) | setup / "
			 "teardown (ms) | notes |\n|---|---|---|---:|---:|---:|---:|---|\n");
	for (size_t i = 0; i < n; i++) {
		strbuf__puts(sb, "| ");
		md_text(sb, t[i].name);
		strbuf__puts(sb, " | ");
		md_text(sb, t[i].status);
		if (!strcmp(t[i].status, "ok")) {
			strbuf__puts(sb, " | ");
			md_text(sb, t[i].attach);
			strbuf__printf(sb, " | %llu | %llu | %.2f | %.1f / %.1f | ",
				       (unsigned long long)t[i].runs, (unsigned long long)t[i].drops,
				       t[i].cpu_ns / 1e6, t[i].setup_ms, t[i].teardown_ms);
			md_text(sb, !strcmp(t[i].cost_source, "kernel") ?
					    "CPU counted by the kernel" :
					    "CPU estimated from program runs (kernel.bpf_stats_enabled is off)");
			if (t[i].stopped[0]) {
				strbuf__puts(sb, "; **");
				md_text(sb, t[i].stopped);
				strbuf__puts(sb, "**");
			}
		} else {
			strbuf__puts(sb, " |  |  |  |  |  | ");
			md_text(sb, t[i].reason);
		}
		strbuf__puts(sb, " |\n");
	}
}

/* ---- terminal ---- */

/* Host-provided text on a terminal: no escape sequences get through. */
static void tty_text(FILE *f, const char *s)
{
	for (; s && *s; s++)
		fputc(((unsigned char)*s < 0x20 || *s == 0x7f) ? '?' : *s, f);
}

static const char *st_color(enum status st, int color)
{
	if (!color)
		return "";
	switch (st) {
	case ST_CRIT:
		return "\033[1;31m";
	case ST_WARN:
		return "\033[33m";
	case ST_OK:
		return "\033[32m";
	case ST_ERROR:
		return "\033[35m";
	default:
		return "\033[2m";
	}
}

void report__terminal(const struct run_report *rr, FILE *f, int color)
{
	const struct methodology *use = catalog__methodology(rr->cat, "use");
	const char *reset = color ? "\033[0m" : "", *bold = color ? "\033[1m" : "";
	char verdict[1024];
	size_t nunk = 0, nerr = 0;

	fprintf(f, "sonde %s · ", SONDE_VERSION);
	tty_text(f, rr->an->hostname);
	fprintf(f, " · %.1f s window, %u samples%s\n\n", rr->an->elapsed_s, rr->an->samples,
		rr->an->partial ? " (partial: cut short)" : "");
	report__verdict(rr, verdict, sizeof(verdict));
	fprintf(f, "%sVerdict:%s ", bold, reset);
	tty_text(f, verdict);
	fputs("\n\n", f);
	if (use) {
		int rw = 8; /* the longest resource name sets the first column */

		for (size_t ri = 0; ri < use->resources.n; ri++)
			if ((int)strlen(use->resources.v[ri]) > rw)
				rw = (int)strlen(use->resources.v[ri]);
		fprintf(f, "%-*s", rw + 2, "USE");
		for (size_t mi = 0; mi < use->metrics.n; mi++)
			fprintf(f, "  %-12s", use->metrics.v[mi]);
		fputc('\n', f);
		for (size_t ri = 0; ri < use->resources.n; ri++) {
			fprintf(f, "  %-*s", rw, use->resources.v[ri]);
			for (size_t mi = 0; mi < use->metrics.n; mi++) {
				struct cell c = matrix_cell(rr, use, use->resources.v[ri],
							    use->metrics.v[mi]);
				const char *w = c.na ? "n/a" : status__name(c.st);

				fprintf(f, "  %s%-12s%s", st_color(c.st, color), w, reset);
			}
			fputc('\n', f);
		}
	}
	if (rr->nrank > 1) {
		fputs("\nOther findings:\n", f);
		for (size_t k = 1; k < rr->nrank; k++) {
			const struct check_result *r = &rr->res[rr->rank[k]];
			char sum[1024], exp[512];

			finding_summary(r, sum, sizeof(sum));
			fprintf(f, "  %zu. %s%-4s%s ", k + 1, st_color(r->st, color),
				status__name(r->st), reset);
			tty_text(f, sum);
			explained_text(rr, rr->rank[k], exp, sizeof(exp));
			if (*exp) {
				fputs(" [", f);
				tty_text(f, exp);
				fputc(']', f);
			}
			fputc('\n', f);
		}
	}
	for (size_t i = 0; i < rr->nres; i++) {
		nunk += rr->res[i].nunknowns;
		nerr += rr->res[i].st == ST_ERROR;
	}
	fprintf(f, "\n%zu checks", rr->nres);
	if (nerr)
		fprintf(f, ", %s%zu failed%s (see the report's appendix)", st_color(ST_ERROR, color),
			nerr, reset);
	fprintf(f, "; %zu known unknowns (metrics this host cannot show, with the reason, in the "
		   "report)\n",
		nunk);
}
