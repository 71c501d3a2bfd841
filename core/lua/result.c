// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A check's result, and its wire form: each check runs in a worker process
 * (engine.c) and hands its result to the parent over a socket in this
 * length-prefixed binary form. The parent trusts nothing in it: every
 * count and length is bounded before anything is allocated.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/analysis.h"
#include "lua/engine.h"
#include "util/json.h"
#include "util/strbuf.h"
#include "util/wire.h"

static const char *const status_names[] = { "ok", "warn", "crit", "unknown", "skip", "error" };

const char *status__name(enum status st)
{
	return status_names[st];
}

int status__rank(enum status st)
{
	static const int rank[] = { [ST_SKIP] = 0, [ST_OK] = 1,    [ST_UNKNOWN] = 2,
				    [ST_ERROR] = 3, [ST_WARN] = 4, [ST_CRIT] = 5 };
	return rank[st];
}

int status__parse(const char *name)
{
	for (int st = ST_OK; name && st <= ST_ERROR; st++)
		if (!strcmp(name, status_names[st]))
			return st;
	return -1;
}

int status__severity(const char *name)
{
	int st = status__parse(name);

	return st <= ST_CRIT ? st : -1;
}

static char *dup_or_null(const char *s)
{
	return s && *s ? strdup(s) : NULL;
}

static void culprit_container__free(struct culprit_container *c)
{
	if (!c)
		return;
	free(c->label);
	free(c->id);
	free(c->runtime);
	free(c->name);
	free(c->image);
	free(c->k8s_container);
	free(c->pod_namespace);
	free(c->pod_name);
	free(c);
}

static struct culprit_container *culprit_container(const struct container_set *s,
						    const struct container_cgroup *g)
{
	const struct container *c = g->container >= 0 ? &s->c[g->container] : NULL;
	const struct container_pod *p = g->pod >= 0 ? &s->pods[g->pod] : NULL;
	struct culprit_container *cc = calloc(1, sizeof(*cc));
	char label[600];

	if (!cc)
		return NULL;
	container_set__label(s, g, label, sizeof(label));
	cc->label = strdup(label);
	if (c) {
		cc->id = dup_or_null(c->id);
		cc->runtime = dup_or_null(c->runtime);
		cc->name = dup_or_null(c->name);
		cc->image = dup_or_null(c->image);
		cc->k8s_container = dup_or_null(c->k8s_container);
	}
	if (p) {
		cc->pod_namespace = dup_or_null(p->namespace);
		cc->pod_name = dup_or_null(p->name ? p->name : p->uid);
	}
	if (!cc->label) {
		culprit_container__free(cc);
		return NULL;
	}
	return cc;
}

/*
 * --container, --pod: the culprits outside the workload leave the finding (its metrics, the
 * host view, stay), named in a note so the reader knows what else the host blamed.
 */
static void narrow_culprits(const struct analysis *an, const struct container_set *s,
			    struct check_result *r)
{
	struct strbuf out = { 0 };
	size_t kept = 0, left = 0;
	struct evidence *e;

	for (size_t k = 0; k < r->nculprits; k++) {
		struct culprit *c = &r->culprits[k];

		if (container_set__in_focus(s, container_set__of_pid(s, c->pid), an->focus_container,
					    an->focus_pod)) {
			r->culprits[kept++] = *c;
			continue;
		}
		strbuf__printf(&out, "%s%s (pid %d, %.0f%%)", left++ ? ", " : "", c->comm, c->pid,
			       c->share * 100);
		free(c->comm);
		free(c->cmdline);
		culprit_container__free(c->container);
	}
	r->nculprits = kept;
	if (left && (e = realloc(r->evidence, (r->nevidence + 1) * sizeof(*e)))) {
		r->evidence = e;
		e += r->nevidence++;
		memset(e, 0, sizeof(*e));
		e->kind = EV_NOTE;
		if (asprintf(&e->title, "--%s %s: %zu culprit%s outside it left out: %s",
			     an->focus_container ? "container" : "pod",
			     an->focus_container ? an->focus_container : an->focus_pod, left,
			     left == 1 ? "" : "s", out.buf ? out.buf : "") < 0)
			e->title = NULL;
		if (!e->title)
			r->nevidence--;
	}
	strbuf__free(&out);
}

void check_results__name_containers(struct analysis *an, struct check_result *results, size_t n)
{
	const struct container_set *s;
	int probe, focus;

	if (analysis__containers(an, &s))
		return;
	/* a workload that matches nothing here narrows nothing (the run says so) */
	focus = (an->focus_container || an->focus_pod) &&
		container_set__focus_pids(s, an->focus_container, an->focus_pod, &probe, 1);
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < results[i].nculprits; k++) {
			struct culprit *c = &results[i].culprits[k];
			const struct container_cgroup *g = container_set__of_pid(s, c->pid);

			if (g && !c->container)
				c->container = culprit_container(s, g);
		}
		if (focus)
			narrow_culprits(an, s, &results[i]);
	}
}

void check_result__free(struct check_result *r)
{
	for (size_t i = 0; i < r->nmetrics; i++) {
		free(r->metrics[i].name);
		free(r->metrics[i].instance);
		free(r->metrics[i].unit);
		free(r->metrics[i].agg);
		free(r->metrics[i].node_exporter);
		free(r->metrics[i].help);
	}
	free(r->metrics);
	for (size_t i = 0; i < r->nunknowns; i++) {
		free(r->unknowns[i].name);
		free(r->unknowns[i].reason);
	}
	free(r->unknowns);
	for (size_t i = 0; i < r->nnas; i++) {
		free(r->nas[i].name);
		free(r->nas[i].instance);
		free(r->nas[i].reason);
	}
	free(r->nas);
	for (size_t i = 0; i < r->nculprits; i++) {
		free(r->culprits[i].comm);
		free(r->culprits[i].cmdline);
		culprit_container__free(r->culprits[i].container);
	}
	free(r->culprits);
	for (size_t i = 0; i < r->nevidence; i++) {
		struct evidence *e = &r->evidence[i];

		free(e->title);
		free(e->unit);
		for (size_t k = 0; k < e->nrows; k++) {
			for (size_t c = 0; c < e->columns.n; c++)
				free(e->rows[k][c]);
			free(e->rows[k]);
		}
		free(e->rows);
		strv__free(&e->columns);
		free(e->values);
		folded_stacks__free(&e->fg);
	}
	free(r->evidence);
	strv__free(&r->next);
	free(r->summary);
	free(r->error);
	free(r->traceback);
	memset(r, 0, sizeof(*r));
}

int metric__agg_ok(const char *agg)
{
	static const char *const words[] = { "mean", "min", "peak", "last", "total", "fit" };
	size_t n = agg ? strlen(agg) : 0;

	for (size_t i = 0; agg && i < sizeof(words) / sizeof(*words); i++)
		if (!strcmp(agg, words[i]))
			return 1;
	/* p10 to p99, and p990 to p999 for 99.0 to 99.9; not p0 or p100 (a minimum, a peak) */
	if (!agg || agg[0] != 'p' || agg[1] < '1' || agg[1] > '9' || agg[2] < '0' || agg[2] > '9')
		return 0;
	return n == 3 || (n == 4 && agg[1] == '9' && agg[2] == '9' && agg[3] >= '0' &&
			  agg[3] <= '9');
}

int metric__family_ok(const char *name)
{
	size_t n = name ? strlen(name) : 0;

	if (!n || n > 128 || (name[0] >= '0' && name[0] <= '9'))
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == ':'))
			return 0;
	}
	return 1;
}

/* ---- writing ---- */

void check_result__encode(const struct check_result *r, struct strbuf *sb)
{
	wire__put_u64(sb, r->st);
	wire__put_u64(sb, r->nmetrics);
	for (size_t i = 0; i < r->nmetrics; i++) {
		const struct metric *m = &r->metrics[i];

		wire__put_str(sb, m->name);
		wire__put_str(sb, m->instance);
		wire__put_str(sb, m->unit);
		wire__put_str(sb, m->agg);
		wire__put_str(sb, m->node_exporter);
		wire__put_str(sb, m->help);
		wire__put_f64(sb, m->value);
		wire__put_u64(sb, (uint64_t)m->has_warn | (uint64_t)m->has_crit << 1 |
				    (uint64_t)m->lower_is_worse << 2);
		wire__put_f64(sb, m->warn);
		wire__put_f64(sb, m->crit);
		wire__put_u64(sb, m->st);
		wire__put_u64(sb, (uint64_t)m->has_range);
		wire__put_f64(sb, m->range_lo);
		wire__put_f64(sb, m->range_hi);
	}
	wire__put_u64(sb, r->nunknowns);
	for (size_t i = 0; i < r->nunknowns; i++) {
		wire__put_str(sb, r->unknowns[i].name);
		wire__put_str(sb, r->unknowns[i].reason);
	}
	wire__put_u64(sb, r->nculprits);
	for (size_t i = 0; i < r->nculprits; i++) {
		wire__put_u64(sb, (uint64_t)r->culprits[i].pid);
		wire__put_str(sb, r->culprits[i].comm);
		wire__put_str(sb, r->culprits[i].cmdline);
		wire__put_f64(sb, r->culprits[i].share);
		wire__put_u64(sb, (uint64_t)r->culprits[i].kernel_thread);
	}
	wire__put_u64(sb, r->nevidence);
	for (size_t i = 0; i < r->nevidence; i++) {
		const struct evidence *e = &r->evidence[i];

		wire__put_u64(sb, e->kind);
		wire__put_str(sb, e->title);
		wire__put_str(sb, e->unit);
		wire__put_strv(sb, &e->columns);
		wire__put_u64(sb, e->nrows);
		for (size_t k = 0; k < e->nrows; k++)
			for (size_t c = 0; c < e->columns.n; c++)
				wire__put_str(sb, e->rows[k][c]);
		wire__put_u64(sb, e->code_cols);
		wire__put_u64(sb, e->nvalues);
		for (size_t k = 0; k < e->nvalues; k++)
			wire__put_f64(sb, e->values[k]);
		wire__put_f64(sb, e->step_s);
		wire__put_strv(sb, &e->fg.stacks);
		for (size_t k = 0; k < e->fg.stacks.n; k++)
			wire__put_f64(sb, e->fg.counts[k]);
		wire__put_u64(sb, e->fg.total);
		wire__put_u64(sb, e->fg.stacks_in);
		wire__put_u64(sb, e->fg.other);
		wire__put_u64(sb, e->fg.depth_cut);
		wire__put_u64(sb, e->hm_rows);
		wire__put_f64(sb, e->hm_row_ms);
		wire__put_u64(sb, (uint64_t)e->span.set | (uint64_t)e->span.drilldown << 1);
		wire__put_f64(sb, e->span.from_s);
		wire__put_f64(sb, e->span.to_s);
		wire__put_f64(sb, e->span.window_s);
	}
	wire__put_strv(sb, &r->next);
	wire__put_str(sb, r->summary);
	wire__put_str(sb, r->error);
	wire__put_str(sb, r->traceback);
	wire__put_f64(sb, r->elapsed_ms);
	wire__put_f64(sb, r->cpu_ms);
	wire__put_u64(sb, r->mem_peak);
	wire__put_u64(sb, r->instructions);
	wire__put_f64(sb, r->score);
	wire__put_u64(sb, r->nnas);
	for (size_t i = 0; i < r->nnas; i++) {
		wire__put_str(sb, r->nas[i].name);
		wire__put_str(sb, r->nas[i].instance);
		wire__put_str(sb, r->nas[i].reason);
	}
}

/* ---- reading ---- */

static void *get_array(struct wire_reader *rb, size_t n, size_t size)
{
	void *a;

	if (rb->bad)
		return NULL;
	a = calloc(n + 1, size);
	if (!a)
		rb->bad = 1;
	return a;
}

static enum status get_status(struct wire_reader *rb)
{
	uint64_t v = wire__u64(rb);

	if (v > ST_ERROR) {
		rb->bad = 1;
		return ST_ERROR;
	}
	return (enum status)v;
}

static void get_metric(struct wire_reader *rb, struct metric *m)
{
	uint64_t flags;

	m->name = wire__str(rb);
	m->instance = wire__str(rb);
	m->unit = wire__str(rb);
	m->agg = wire__str(rb);
	m->node_exporter = wire__str(rb);
	m->help = wire__str(rb);
	m->value = wire__f64(rb);
	flags = wire__u64(rb);
	m->has_warn = flags & 1;
	m->has_crit = !!(flags & 2);
	m->lower_is_worse = !!(flags & 4);
	m->warn = wire__f64(rb);
	m->crit = wire__f64(rb);
	m->st = get_status(rb);
	m->has_range = wire__u64(rb) != 0;
	m->range_lo = wire__f64(rb);
	m->range_hi = wire__f64(rb);
	if (!m->name)
		m->name = strdup("?");
}

/* One evidence of a result; rb->bad when it is not well formed. */
static void decode_evidence(struct wire_reader *rb, struct evidence *e)
{
	size_t nrows, nvalues;
	uint64_t kind = wire__u64(rb), span;

	if (kind > EV_BARS)
		rb->bad = 1;
	e->kind = kind <= EV_BARS ? (enum evidence_kind)kind : EV_NOTE;
	e->title = wire__str(rb);
	e->unit = wire__str(rb);
	wire__strv(rb, &e->columns);
	nrows = wire__count(rb);
	e->rows = get_array(rb, nrows, sizeof(*e->rows));
	for (size_t k = 0; k < nrows && !rb->bad; k++, e->nrows++) {
		e->rows[k] = get_array(rb, e->columns.n, sizeof(char *));
		for (size_t c = 0; c < e->columns.n && !rb->bad; c++)
			e->rows[k][c] = wire__str(rb);
		if (rb->bad)
			break;
	}
	/* only columns the table has */
	e->code_cols = (uint32_t)(wire__u64(rb) &
				  (e->columns.n >= 32 ? 0xffffffffu : (1u << e->columns.n) - 1));
	nvalues = wire__count(rb);
	e->values = get_array(rb, nvalues, sizeof(double));
	for (size_t k = 0; k < nvalues && !rb->bad; k++)
		e->values[e->nvalues++] = wire__f64(rb);
	e->step_s = wire__f64(rb);
	wire__strv(rb, &e->fg.stacks);
	/* one count per stack */
	e->fg.counts = get_array(rb, e->fg.stacks.n, sizeof(double));
	for (size_t k = 0; k < e->fg.stacks.n && !rb->bad; k++)
		e->fg.counts[k] = wire__f64(rb);
	e->fg.total = wire__u64(rb);
	e->fg.stacks_in = wire__u64(rb);
	e->fg.other = wire__u64(rb);
	e->fg.depth_cut = wire__u64(rb);
	e->hm_rows = (size_t)wire__u64(rb);
	e->hm_row_ms = wire__f64(rb);
	span = wire__u64(rb);
	e->span.set = (span & 1) != 0;
	e->span.drilldown = (span & 2) != 0;
	e->span.from_s = wire__f64(rb);
	e->span.to_s = wire__f64(rb);
	e->span.window_s = wire__f64(rb);
	/* a heat map's counts are whole columns of at most 64 rows */
	if (e->kind == EV_HEATMAP &&
	    (e->hm_rows > 64 || (e->hm_rows ? e->nvalues % e->hm_rows : e->nvalues)))
		rb->bad = 1;
	/* bars: a label column and a value per category and row */
	if (e->kind == EV_BARS &&
	    (e->columns.n < 2 || e->nvalues != e->nrows * (e->columns.n - 1)))
		rb->bad = 1;
}

int check_result__decode(struct check_result *r, const void *buf, size_t len)
{
	struct wire_reader rb = { .p = buf, .end = (const char *)buf + len };
	size_t n;

	memset(r, 0, sizeof(*r));
	r->st = get_status(&rb);
	n = wire__count(&rb);
	r->metrics = get_array(&rb, n, sizeof(*r->metrics));
	for (size_t i = 0; i < n && !rb.bad; i++, r->nmetrics++)
		get_metric(&rb, &r->metrics[i]);
	n = wire__count(&rb);
	r->unknowns = get_array(&rb, n, sizeof(*r->unknowns));
	for (size_t i = 0; i < n && !rb.bad; i++, r->nunknowns++) {
		r->unknowns[i].name = wire__str(&rb);
		r->unknowns[i].reason = wire__str(&rb);
		if (!r->unknowns[i].name)
			r->unknowns[i].name = strdup("?");
		if (!r->unknowns[i].reason)
			r->unknowns[i].reason = strdup("?");
	}
	n = wire__count(&rb);
	r->culprits = get_array(&rb, n, sizeof(*r->culprits));
	for (size_t i = 0; i < n && !rb.bad; i++, r->nculprits++) {
		r->culprits[i].pid = (int)wire__u64(&rb);
		r->culprits[i].comm = wire__str(&rb);
		r->culprits[i].cmdline = wire__str(&rb);
		r->culprits[i].share = wire__f64(&rb);
		r->culprits[i].kernel_thread = wire__u64(&rb) != 0;
		if (!r->culprits[i].comm)
			r->culprits[i].comm = strdup("?");
	}
	n = wire__count(&rb);
	r->evidence = get_array(&rb, n, sizeof(*r->evidence));
	for (size_t i = 0; i < n && !rb.bad; i++, r->nevidence++)
		decode_evidence(&rb, &r->evidence[i]);
	wire__strv(&rb, &r->next);
	r->summary = wire__str(&rb);
	r->error = wire__str(&rb);
	r->traceback = wire__str(&rb);
	r->elapsed_ms = wire__f64(&rb);
	r->cpu_ms = wire__f64(&rb);
	r->mem_peak = (size_t)wire__u64(&rb);
	r->instructions = wire__u64(&rb);
	r->score = wire__f64(&rb);
	n = wire__count(&rb);
	r->nas = get_array(&rb, n, sizeof(*r->nas));
	for (size_t i = 0; i < n && !rb.bad; i++, r->nnas++) {
		r->nas[i].name = wire__str(&rb);
		r->nas[i].instance = wire__str(&rb);
		r->nas[i].reason = wire__str(&rb);
		if (!r->nas[i].name)
			r->nas[i].name = strdup("?");
		if (!r->nas[i].reason)
			r->nas[i].reason = strdup("?");
	}
	if (rb.bad || rb.p != rb.end) {
		check_result__free(r);
		return -EINVAL;
	}
	return 0;
}
