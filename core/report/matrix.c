// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The USE matrix (model.h), computed once: per resource and metric the check
 * that decided the cell, or why it does not apply; per resource the rows of
 * its instances, worst first.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/model.h"

static int cell_na(const struct methodology *m, const char *resource, const char *metric,
		   const char **reason)
{
	char key[128];

	snprintf(key, sizeof(key), "%s.%s", resource, metric);
	for (size_t i = 0; i < m->na_cells.n; i++)
		if (!strcmp(m->na_cells.v[i], key)) {
			*reason = m->na_reasons.v[i];
			return 1;
		}
	return 0;
}

/* The reason a check gave for its whole cell not applying, or NULL. */
static const char *cell_na_of(const struct check_result *r)
{
	for (size_t i = 0; i < r->nnas; i++)
		if (!r->nas[i].instance)
			return r->nas[i].reason;
	return NULL;
}

/*
 * Whether r's deciding metric is of the whole resource (no instance). At the
 * same status, such a check decides the cell rather than one whose deciding
 * metric is one instance's level (a runout check's "host" level, kept for the
 * trends across runs, says less than the utilization check's percentage).
 */
static int whole_resource(const struct check_result *r)
{
	const struct metric *mt = r ? report__worst_metric(r) : NULL;

	return mt && !mt->instance;
}

/*
 * Which check decides a cell: the worst status, except that a measured ok
 * beats an unknown. A cell several checks fill (saturation from queues and
 * from thread states) is unknown only when none of them could measure it;
 * whichever order they ran in.
 */
static int cell_rank(enum status st)
{
	static const int rank[] = { [ST_SKIP] = 0, [ST_UNKNOWN] = 1, [ST_OK] = 2,
				    [ST_ERROR] = 3, [ST_WARN] = 4, [ST_CRIT] = 5 };
	return rank[st];
}

static struct matrix_cell matrix_cell(const struct run_report *rr, const struct methodology *m,
				      const char *resource, const char *metric)
{
	struct matrix_cell c = { .st = ST_UNKNOWN };

	if (cell_na(m, resource, metric, &c.na_reason)) {
		c.na = 1;
		c.st = ST_SKIP;
		return c;
	}
	for (size_t i = 0; i < rr->nres; i++) {
		const struct check_result *r = &rr->res[i];
		const char *na;

		if (strcmp(r->def->methodology, m->id) || strcmp(r->def->resource, resource) ||
		    strcmp(r->def->metric, metric))
			continue;
		/* a check that measured nothing because nothing there has the capacity */
		if (!r->nmetrics && (r->st == ST_OK || r->st == ST_UNKNOWN) && (na = cell_na_of(r))) {
			if (!c.na_reason)
				c.na_reason = na;
			continue;
		}
		if (!c.has_check || cell_rank(r->st) > cell_rank(c.st) ||
		    (r->st == c.st && whole_resource(r) && !whole_resource(c.decider))) {
			c.st = r->st;
			c.decider = r;
		}
		c.has_check = 1;
	}
	if (!c.has_check && c.na_reason) {
		c.na = 1;
		c.st = ST_SKIP;
	} else {
		c.na_reason = NULL;
	}
	return c;
}

static int cmp_inst(const void *a, const void *b)
{
	const struct inst_row *x = a, *y = b;
	int rx = status__rank(x->worst), ry = status__rank(y->worst);

	if (rx != ry)
		return ry - rx;
	return x->first < y->first ? -1 : x->first > y->first;
}

int matrix__col(const struct methodology *m, const char *metric)
{
	for (size_t i = 0; i < m->metrics.n && i < MATRIX_COLS; i++)
		if (!strcmp(m->metrics.v[i], metric))
			return (int)i;
	return -1;
}

/* The row of instance in rows (added when new, with status st); NULL when out of memory. */
static struct inst_row *inst_row(struct matrix_row *row, size_t *cap, const char *instance,
				 enum status st)
{
	size_t j;

	for (j = 0; j < row->ninst; j++)
		if (!strcmp(row->inst[j].instance, instance))
			return &row->inst[j];
	if (row->ninst == *cap) {
		size_t nc = *cap ? 2 * *cap : 16;
		struct inst_row *nr = realloc(row->inst, nc * sizeof(*nr));

		if (!nr)
			return NULL;
		row->inst = nr;
		*cap = nc;
	}
	row->inst[j] = (struct inst_row){ .instance = instance, .first = j, .worst = st };
	row->ninst++;
	return &row->inst[j];
}

/* The instance rows of row's resource, worst first; -ENOMEM when out of memory. */
static int matrix_instances(struct matrix_row *row, const struct run_report *rr,
			    const struct methodology *m)
{
	size_t cap = 0;

	for (size_t i = 0; i < rr->nres; i++) {
		const struct check_result *r = &rr->res[i];
		int col;

		if (strcmp(r->def->methodology, m->id) || strcmp(r->def->resource, row->resource))
			continue;
		col = matrix__col(m, r->def->metric);
		if (col < 0)
			continue;
		for (size_t k = 0; k < r->nmetrics; k++) {
			const struct metric *mt = &r->metrics[k];
			struct inst_row *ir;
			struct inst_cell *c;

			if (!mt->instance)
				continue;
			ir = inst_row(row, &cap, mt->instance, mt->st);
			if (!ir)
				return -ENOMEM;
			c = &ir->cell[col];
			if (!c->m || status__rank(mt->st) > status__rank(c->m->st)) {
				c->r = r;
				c->m = mt;
			}
			if (status__rank(mt->st) > status__rank(ir->worst))
				ir->worst = mt->st;
		}
		/* instances where the metric does not apply: n/a, unless another metric spoke */
		for (size_t k = 0; k < r->nnas; k++) {
			struct inst_row *ir;

			if (!r->nas[k].instance)
				continue;
			ir = inst_row(row, &cap, r->nas[k].instance, ST_SKIP);
			if (!ir)
				return -ENOMEM;
			if (!ir->cell[col].m && !ir->cell[col].na_reason) {
				ir->cell[col].r = r;
				ir->cell[col].na_reason = r->nas[k].reason;
			}
		}
	}
	if (row->ninst)
		qsort(row->inst, row->ninst, sizeof(*row->inst), cmp_inst);
	return 0;
}

int matrix__build(struct use_matrix *u, const struct run_report *rr)
{
	const struct methodology *m = catalog__methodology(rr->cat, "use");

	memset(u, 0, sizeof(*u));
	if (!m)
		return 0;
	u->m = m;
	u->rows = calloc(m->resources.n + 1, sizeof(*u->rows));
	if (!u->rows)
		return -ENOMEM;
	for (size_t ri = 0; ri < m->resources.n; ri++) {
		struct matrix_row *row = &u->rows[ri];

		row->resource = m->resources.v[ri];
		row->cells = calloc(m->metrics.n + 1, sizeof(*row->cells));
		if (!row->cells || matrix_instances(row, rr, m))
			return -ENOMEM;
		for (size_t mi = 0; mi < m->metrics.n; mi++)
			row->cells[mi] = matrix_cell(rr, m, row->resource, m->metrics.v[mi]);
	}
	return 0;
}

void matrix__free(struct use_matrix *u)
{
	for (size_t ri = 0; u->m && u->rows && ri < u->m->resources.n; ri++) {
		free(u->rows[ri].cells);
		free(u->rows[ri].inst);
	}
	free(u->rows);
	memset(u, 0, sizeof(*u));
}
