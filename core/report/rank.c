// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Ranking (docs/verdict.md): which findings explain others
 * (ranking/verdict.lua), their order, the verdict sentence and each
 * finding's own sentence.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/units.h"
#include "report/model.h"

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

/*
 * Seconds until the finding's resource runs out: its exhaustion metric
 * (ranking/verdict.lua) at warn or crit, the soonest instance; -1 when none.
 */
double report__time_left(const struct run_report *rr, const struct check_result *r)
{
	double left = -1;

	for (size_t i = 0; i < rr->cat->nexhaustion; i++) {
		const struct capacity_rule *c = &rr->cat->exhaustion[i];

		if (strcmp(c->check, r->def->id))
			continue;
		for (size_t k = 0; k < r->nmetrics; k++) {
			const struct metric *m = &r->metrics[k];

			if (!strcmp(m->name, c->metric) && (m->st == ST_WARN || m->st == ST_CRIT) &&
			    (left < 0 || m->value < left))
				left = m->value;
		}
	}
	return left;
}

static int cmp_rank(const void *a, const void *b, void *arg)
{
	const struct run_report *rr = arg;
	size_t ia = *(const size_t *)a, ib = *(const size_t *)b;
	const struct check_result *x = &rr->res[ia], *y = &rr->res[ib];
	int sx = status__rank(x->st), sy = status__rank(y->st);
	int ex = rr->explained_by[ia] != SIZE_MAX, ey = rr->explained_by[ib] != SIZE_MAX;
	double cx, cy, tx, ty;
	int mx, my;

	/* a consequence of another finding is never the bottleneck */
	if (ex != ey)
		return ex - ey;
	if (sx != sy)
		return sy - sx;
	/* a resource running out before one merely busy, the soonest first */
	tx = report__time_left(rr, x);
	ty = report__time_left(rr, y);
	if ((tx >= 0) != (ty >= 0))
		return tx >= 0 ? -1 : 1;
	if (tx != ty)
		return tx < ty ? -1 : 1;
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

int report__is_finding(const struct check_result *r)
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

			if (j == i || !report__is_finding(c) || strcmp(c->def->id, e->cause) ||
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
		if (report__is_finding(&rr->res[i])) {
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
const struct metric *report__worst_metric(const struct check_result *r)
{
	const struct metric *w = NULL;

	for (size_t i = 0; i < r->nmetrics; i++) {
		const struct metric *m = &r->metrics[i];

		if (!w || status__rank(m->st) > status__rank(w->st))
			w = m;
	}
	return w;
}

/* A finding's sentence: the check's own summary, else its deciding metric. */
void report__finding_summary(const struct check_result *r, char *buf, size_t len)
{
	const struct metric *m;
	char v[64], t[64];

	if (r->summary) {
		snprintf(buf, len, "%s", r->summary);
		return;
	}
	m = report__worst_metric(r);
	if (!m) {
		snprintf(buf, len, "%s: %s", r->def->title, status__name(r->st));
		return;
	}
	units__value(v, sizeof(v), m->value, m->unit);
	units__value(t, sizeof(t), m->st == ST_CRIT ? m->crit : m->warn, m->unit);
	snprintf(buf, len, "%s: %s%s%s is %s (%s at %s)", r->def->title, m->name,
		 m->instance ? " on " : "", m->instance ? m->instance : "", v,
		 status__name(m->st), t);
}

static void culprit_text(const struct culprit *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s (pid %d, %.0f%%)%s%s", c->comm, c->pid, c->share * 100,
		 c->container ? " in " : "", c->container ? c->container->label : "");
}

void report__verdict(const struct run_report *rr, char *buf, size_t len)
{
	const struct check_result *r;
	char sum[512], cul[800];
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
	report__finding_summary(r, sum, sizeof(sum));
	if (r->nculprits)
		culprit_text(&r->culprits[0], cul, sizeof(cul));
	if (report__time_left(rr, r) >= 0)
		/* the exhaustion checks' sentence says when, at what rate, and who */
		o = snprintf(buf, len, "Running out (%s): %s", status__name(r->st), sum);
	else
		o = snprintf(buf, len, "The bottleneck is %s %s (%s): %s%s%s", r->def->resource,
			     r->def->metric, status__name(r->st), sum,
			     r->nculprits ? "; culprit: " : "", r->nculprits ? cul : "");
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
void report__explained(const struct run_report *rr, size_t i, char *buf, size_t len)
{
	*buf = '\0';
	if (rr->explained_by && rr->explained_by[i] != SIZE_MAX)
		snprintf(buf, len, "explained by %s (%s): %s", rr->res[rr->explained_by[i]].def->id,
			 rr->res[rr->explained_by[i]].def->title, rr->why[i]->reason);
}

