// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The report model (model.h), built once from a ranked run: the verdict, the
 * findings with their sentences, the USE matrix, and the document people
 * read, opening with the verdict, the matrix and the findings (the later
 * sections are in sections.c). Each check's section is anchored at its check
 * id, and every matrix cell links to the check that decided it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/units.h"
#include "report/model.h"

#define TOP_FINDINGS 3

/* The findings after the first (the verdict's), linked: what else to read, before the matrix. */
static void doc_top_findings(struct report_model *m)
{
	size_t n = m->rr->nrank;

	if (n < 2)
		return;
	inl__words(doc__para(&m->doc), "Also found:");
	for (size_t k = 1; k < n && k <= TOP_FINDINGS; k++) {
		const struct check_result *r = m->findings[k].r;
		struct inlines *in = doc__item(&m->doc);

		inl__words(in, "%s: ", status__name(r->st));
		inl__link(in, r->def->id);
		inl__text(in, r->def->title);
		inl__close(in);
	}
	if (n > TOP_FINDINGS + 1)
		inl__words(doc__item(&m->doc), "and %zu more, below", n - TOP_FINDINGS - 1);
}

static void doc_header(struct report_model *m)
{
	const struct analysis *an = m->rr->an;
	struct inlines *in;
	char when[64], mem[64], win[64], nsamples[64], every[64];
	time_t s = (time_t)(an->start_wall_ns / 1000000000);
	struct tm tm;

	gmtime_r(&s, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	in = doc__heading(&m->doc, 1, NULL);
	inl__words(in, "sonde report: ");
	inl__text(in, an->hostname[0] ? an->hostname : "unknown host");

	in = doc__para(&m->doc);
	units__value(win, sizeof(win), an->elapsed_s, "s");
	units__value(nsamples, sizeof(nsamples), an->samples, "samples");
	units__value(every, sizeof(every), an->interval_s, "s");
	inl__words(in, "%s · %s window (%s, every %s)", when, win, nsamples, every);
	if (an->partial) {
		inl__words(in, " · ");
		inl__open(in, SPAN_STRONG);
		inl__words(in, "partial: the window was cut short");
		inl__close(in);
	}
	inl__words(in, " · kernel ");
	inl__text(in, an->kernel);
	inl__words(in, " · %d CPUs · ", an->cpus);
	units__value(mem, sizeof(mem), (double)an->mem_total, "bytes");
	inl__text(in, mem);
	if (an->virt[0]) {
		inl__words(in, " · ");
		inl__text(in, an->virt);
	}

	inl__words(doc__heading(&m->doc, 2, NULL), "Verdict");
	in = doc__para(&m->doc);
	inl__open(in, SPAN_STRONG);
	inl__text(in, m->verdict);
	inl__close(in);
	if (m->next[0]) {
		in = doc__para(&m->doc);
		inl__words(in, "Next: ");
		inl__text(in, m->next);
	}
	doc_top_findings(m);
}

/* A resource's cell: its status and deciding metric, linked to the deciding check. */
static void matrix_cell_text(struct block *t, const struct matrix_cell *c)
{
	const struct metric *mt = c->decider ? report__worst_metric(c->decider) : NULL;
	struct inlines *in;
	char v[64];

	if (c->na) {
		inl__words(doc__cell(t, CELL_NA), "n/a");
		return;
	}
	in = doc__cell(t, cell_status__of(c->st));
	if (c->decider)
		inl__link(in, c->decider->def->id);
	inl__words(in, "%s", status__name(c->st));
	if (mt) {
		units__value(v, sizeof(v), mt->value, mt->unit);
		inl__words(in, " ");
		inl__text(in, mt->name);
		if (mt->instance) {
			inl__words(in, " ");
			inl__text(in, mt->instance);
		}
		inl__words(in, " ");
		inl__text(in, v);
	}
	if (c->decider)
		inl__close(in);
}

static void inst_cell_text(struct block *t, const struct inst_cell *c, int na)
{
	struct inlines *in;
	char v[64];

	if (na || (c && !c->m && c->na_reason)) {
		inl__words(doc__cell(t, CELL_NA), "n/a");
		return;
	}
	if (!c || !c->m) {
		/* no check of this cell reported the instance: neither ok nor unknown */
		inl__words(doc__cell(t, CELL_PLAIN), "·");
		return;
	}
	units__value(v, sizeof(v), c->m->value, c->m->unit);
	in = doc__cell(t, cell_status__of(c->m->st));
	inl__link(in, c->r->def->id);
	inl__words(in, "%s ", status__name(c->m->st));
	inl__text(in, c->m->name);
	inl__words(in, " ");
	inl__text(in, v);
	inl__close(in);
}

static void matrix_instances(struct block *t, const struct use_matrix *u,
			     const struct matrix_row *row)
{
	size_t nmetrics = u->m->metrics.n;

	for (size_t k = 0; k < row->ninst && k < MATRIX_INSTANCES_SHOWN; k++) {
		struct inlines *in = doc__cell(t, CELL_PLAIN);

		if (in)
			t->cells[t->ncells - 1].child = 1;
		inl__words(in, "↳ ");
		inl__text(in, row->inst[k].instance);
		for (size_t mi = 0; mi < nmetrics; mi++)
			inst_cell_text(t, mi < MATRIX_COLS ? &row->inst[k].cell[mi] : NULL,
				       row->cells[mi].na);
	}
	if (row->ninst > MATRIX_INSTANCES_SHOWN) {
		struct inlines *in = doc__cell(t, CELL_PLAIN);

		if (in)
			t->cells[t->ncells - 1].child = 1;
		inl__words(in, "↳ %zu more (findings.json: ",
			   row->ninst - MATRIX_INSTANCES_SHOWN);
		inl__text(in, "use_matrix_instances");
		inl__words(in, ")");
		for (size_t mi = 0; mi < nmetrics; mi++)
			doc__cell(t, CELL_PLAIN);
	}
}

/* The USE matrix: a row per resource, then its instances ("↳ sda"), worst first. */
static void doc_matrix(struct report_model *m)
{
	const struct use_matrix *u = &m->use;
	size_t ncols = 1 + u->m->metrics.n;
	char *align = malloc(ncols + 1);
	struct block *t;

	inl__words(doc__heading(&m->doc, 2, NULL), "USE matrix");
	if (!align) {
		m->doc.oom = 1;
		return;
	}
	memset(align, 'l', ncols);
	align[ncols] = '\0';
	t = doc__table(&m->doc, align);
	free(align);
	inl__words(doc__cell(t, CELL_PLAIN), "resource");
	for (size_t mi = 0; mi + 1 < ncols; mi++)
		inl__words(doc__cell(t, CELL_PLAIN), "%s", u->m->metrics.v[mi]);
	for (size_t ri = 0; ri < u->m->resources.n; ri++) {
		const struct matrix_row *row = &u->rows[ri];

		inl__words(doc__cell(t, CELL_PLAIN), "%s", row->resource);
		for (size_t mi = 0; mi + 1 < ncols; mi++)
			matrix_cell_text(t, &row->cells[mi]);
		matrix_instances(t, u, row);
	}
}

static void doc_finding(struct report_model *m, size_t k)
{
	const struct report_finding *f = &m->findings[k];
	const struct check_result *r = f->r;
	struct inlines *in = doc__heading(&m->doc, 3, r->def->id);
	int fold;

	inl__words(in, "%zu. %s: ", k + 1, status__name(r->st));
	inl__text(in, r->def->title);
	inl__words(in, " (");
	inl__text(in, r->def->id);
	inl__words(in, ")");
	doc__prose(&m->doc, f->summary);
	if (f->explained[0]) {
		in = doc__para(&m->doc);
		inl__open(in, SPAN_EM);
		inl__text(in, f->explained);
		inl__close(in);
	}
	report__doc_culprits(&m->doc, r);
	/* the page's first screen is for the findings: their details one click away */
	fold = report__fold_evidence(&m->doc, r);
	report__doc_metrics(&m->doc, r);
	report__doc_evidence(&m->doc, r);
	if (fold)
		doc__fold_end(&m->doc);
	if (r->next.n) {
		inl__words(doc__para(&m->doc), "Next:");
		for (size_t i = 0; i < r->next.n; i++)
			inl__text(doc__item(&m->doc), r->next.v[i]);
	}
}

static void doc_build(struct report_model *m)
{
	doc_header(m);
	if (m->use.m)
		doc_matrix(m);
	inl__words(doc__heading(&m->doc, 2, NULL), "Findings");
	if (!m->rr->nrank)
		inl__words(doc__para(&m->doc), "No check crossed a warning threshold.");
	for (size_t k = 0; k < m->rr->nrank; k++)
		doc_finding(m, k);
	report__doc_workload(m);
	report__doc_use_details(m);
	report__doc_drilldown(m);
	report__doc_unknowns(m);
	report__doc_host(m);
	report__doc_appendix(m);
}

int report__build(const struct run_report *rr, struct report_model **out)
{
	struct report_model *m = calloc(1, sizeof(*m));

	*out = NULL;
	if (!m)
		return -ENOMEM;
	m->rr = rr;
	report__verdict(rr, m->verdict, sizeof(m->verdict));
	if (rr->drill_by_hand[0] && rr->drill_note)
		snprintf(m->next, sizeof(m->next), "%s", rr->drill_note);
	m->worst = report__worst(rr);
	m->findings = calloc(rr->nrank + 1, sizeof(*m->findings));
	if (!m->findings || matrix__build(&m->use, rr))
		goto fail;
	for (size_t k = 0; k < rr->nrank; k++) {
		struct report_finding *f = &m->findings[k];

		f->res = rr->rank[k];
		f->r = &rr->res[f->res];
		report__finding_summary(f->r, f->summary, sizeof(f->summary));
		report__explained(rr, f->res, f->explained, sizeof(f->explained));
	}
	/* Read once: the Host section and findings.json's host.context show the same facts. */
	if (host_context__read(&rr->an->cs, &m->host))
		goto fail;
	snprintf(m->title, sizeof(m->title), "sonde report: %s", rr->an->hostname);
	doc__init(&m->doc, m->title);
	doc_build(m);
	if (doc__finish(&m->doc))
		goto fail;
	*out = m;
	return 0;
fail:
	report__free(m);
	return -ENOMEM;
}

void report__free(struct report_model *m)
{
	if (!m)
		return;
	doc__free(&m->doc);
	matrix__free(&m->use);
	host_context__free(&m->host);
	free(m->findings);
	free(m);
}
