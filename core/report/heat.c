// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A check's heat map (ctx:heatmap, evidence kind EV_HEATMAP) as a document
 * block: report.html draws it (chart.h), report.md prints a compact form.
 *
 * Latency over the window: a column per interval, a row per log2 bucket from
 * the fastest to the slowest that has a count (the empty ones around them are
 * left out), colour on a log scale so one slow outlier among thousands stays
 * visible; report.md gives each column's count, p50, p99 and maximum bucket.
 * Subsecond offsets: a column per second, a row per offset in the second;
 * report.md gives each offset's total with a bar (a periodic stall is one
 * long bar). Past HEAT_DRAWN columns, neighbours are merged (summed) so the
 * page stays small; findings.json keeps every interval.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/chart.h"
#include "report/model.h"
#include "util/units.h"

#define HEAT_DRAWN 12 /* columns drawn at most: a 10 s window's 50 intervals as 10 of 1 s */

static const char *heat_str(struct doc *d, const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = doc__alloc(d, n);

	if (p)
		memcpy(p, s, n);
	return p;
}

/* The row names: "1 us-2 us" (slot 0 also holds 0: "0-2 us"), or "120-160 ms" offsets. */
static void heat_rows(struct doc *d, const struct evidence *e, const char **rows, size_t first,
		      size_t n)
{
	for (size_t r = 0; r < n; r++) {
		char buf[80];
		size_t s = first + r;

		if (e->hm_row_ms > 0) {
			snprintf(buf, sizeof(buf), "%.0f-%.0f ms", (double)s * e->hm_row_ms,
				 (double)(s + 1) * e->hm_row_ms);
		} else {
			units__range(buf, sizeof(buf), s ? ldexp(1, (int)s) : 0,
				     ldexp(1, (int)s + 1), e->unit);
		}
		rows[r] = heat_str(d, buf);
	}
}

/* The rows of e with a count, from the first to the last (every row for offsets); 0: none. */
static int heat_span(const struct evidence *e, size_t *first, size_t *last)
{
	size_t in_cols = e->hm_rows ? e->nvalues / e->hm_rows : 0;
	int any = 0;

	if (e->hm_row_ms > 0) {
		*first = 0;
		*last = e->hm_rows ? e->hm_rows - 1 : 0;
		return e->hm_rows > 0 && in_cols > 0;
	}
	for (size_t r = 0; r < e->hm_rows; r++)
		for (size_t c = 0; c < in_cols; c++)
			if (e->values[c * e->hm_rows + r] > 0) {
				*first = any ? *first : r;
				*last = r;
				any = 1;
				break;
			}
	return any && in_cols;
}

/* e's map over its rows [first, last] (any: e has data), its columns merged to HEAT_DRAWN. */
static struct heatmap *heat_build(struct doc *d, const struct evidence *e, int any, size_t first,
				  size_t last)
{
	size_t in_cols = e->hm_rows ? e->nvalues / e->hm_rows : 0, k, nc, nr;
	struct heatmap *hm = doc__alloc(d, sizeof(*hm));
	char buf[96];
	double *counts;
	const char **cols, **rows;

	if (!hm)
		return NULL;
	hm->title = e->title;
	hm->log_scale = 1;
	hm->compact = 1;
	if (e->hm_row_ms > 0) {
		hm->x_label = "second of the window";
		hm->y_label = "offset in the second";
		hm->md = HEATMAP_MD_ROWS;
		/* a share of the samples: linear colours (the square root), its mean per row */
		if (e->unit && !strcmp(e->unit, "%")) {
			hm->count_label = "% busy";
			hm->log_scale = 0;
			hm->md_mean = 1;
		} else {
			hm->count_label = "busy samples";
		}
	} else {
		hm->x_label = "time in the window";
		hm->y_label = "latency";
		hm->count_label = "events";
		hm->md = HEATMAP_MD_QUANTILES;
	}
	if (!any || !in_cols || last < first)
		return hm; /* "no data" */
	k = (in_cols + HEAT_DRAWN - 1) / HEAT_DRAWN;
	nc = (in_cols + k - 1) / k;
	nr = last - first + 1;
	counts = doc__alloc(d, nc * nr * sizeof(*counts));
	cols = doc__alloc(d, nc * sizeof(*cols));
	rows = doc__alloc(d, nr * sizeof(*rows));
	if (!counts || !cols || !rows)
		return hm;
	/* rows past e's own (a pair's common range) count nothing */
	for (size_t c = 0; c < in_cols; c++)
		for (size_t r = 0; r < nr && first + r < e->hm_rows; r++)
			counts[c / k * nr + r] += e->values[c * e->hm_rows + first + r];
	for (size_t c = 0; c < nc; c++) {
		double from = (double)(c * k) * e->step_s, to = (double)((c + 1) * k) * e->step_s;

		if (e->hm_row_ms > 0 && k == 1)
			snprintf(buf, sizeof(buf), "%.0f s", from);
		else
			units__range(buf, sizeof(buf), from, to, "s");
		cols[c] = heat_str(d, buf);
	}
	heat_rows(d, e, rows, first, nr);
	hm->ncols = nc;
	hm->nrows = nr;
	hm->cols = cols;
	hm->rows = rows;
	hm->counts = counts;
	return hm;
}

void report__doc_heatmap(struct doc *d, const struct evidence *e)
{
	size_t first = 0, last = 0;
	int any = heat_span(e, &first, &last);
	struct heatmap *hm = heat_build(d, e, any, first, last);

	if (hm)
		doc__heatmap(d, hm);
}

void report__doc_heatmap_pair(struct doc *d, const struct evidence *a, const struct evidence *b,
			      const char *label_a, const char *label_b)
{
	char title[600];
	size_t fa = 0, la = 0, fb = 0, lb = 0, first, last;
	int aa = heat_span(a, &fa, &la), ab = heat_span(b, &fb, &lb);
	struct heatmap *ha, *hb;

	/* one row range for both, so that a band that moved is seen to move */
	first = aa && ab ? (fa < fb ? fa : fb) : aa ? fa : fb;
	last = aa && ab ? (la > lb ? la : lb) : aa ? la : lb;
	ha = heat_build(d, a, aa, first, last);
	hb = heat_build(d, b, ab, first, last);
	if (!ha || !hb)
		return;
	snprintf(title, sizeof(title), "%s: %s", label_a, a->title ? a->title : "");
	ha->title = heat_str(d, title);
	snprintf(title, sizeof(title), "%s: %s", label_b, b->title ? b->title : "");
	hb->title = heat_str(d, title);
	doc__heatmap_pair(d, ha, hb);
}
