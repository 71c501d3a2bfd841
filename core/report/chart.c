// SPDX-License-Identifier: GPL-2.0-or-later
/* Sparklines and heat maps (chart.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lua/result.h"
#include "report/chart.h"
#include "report/escape.h"

static void attr(struct strbuf *out, const char *s)
{
	html__escape_attr(out, s, strlen(s));
}

/* The line: x spread over the width, y scaled min..max; *lx, *ly: its last point. */
static int spark_path(struct strbuf *out, const double *values, size_t n,
		      const struct spark_labels *labels, double *lx, double *ly)
{
	double lo = INFINITY, hi = -INFINITY;
	int gap = 1, any = 0;

	for (size_t i = 0; i < n; i++)
		if (isfinite(values[i])) {
			lo = fmin(lo, values[i]);
			hi = fmax(hi, values[i]);
		}
	/* the axis the caller labelled, if it holds every value */
	if (labels && labels->hi > labels->lo && labels->lo <= lo && labels->hi >= hi) {
		lo = labels->lo;
		hi = labels->hi;
	}
	for (size_t i = 0; i < n; i++) {
		double x, y;

		if (!isfinite(values[i])) {
			gap = 1;
			continue;
		}
		x = n > 1 ? SPARK_PAD + (double)i * (SPARK_W - 2 * SPARK_PAD) / (double)(n - 1) :
			    SPARK_W / 2.0;
		y = hi > lo ? SPARK_PAD + (hi - values[i]) / (hi - lo) * (SPARK_H - 2 * SPARK_PAD) :
			      SPARK_H / 2.0;
		if (!any)
			strbuf__puts(out, "<path d=\"");
		/* a lone point is a zero-length segment: its round cap draws a dot */
		strbuf__printf(out, "%s%s%.1f %.1f%s", any ? " " : "", gap ? "M" : "L", x, y,
			       gap && (i + 1 == n || !isfinite(values[i + 1])) ? " h0" : "");
		gap = 0;
		any = 1;
		*lx = x;
		*ly = y;
	}
	return any;
}

void chart__sparkline(struct strbuf *out, const char *title, const double *values, size_t n,
		      const struct spark_labels *labels)
{
	static const char *const names[] = { "min", "max", "last" };
	const char *text[3] = { 0 };
	double lx = 0, ly = 0;
	int any;

	title = title ? title : "";
	strbuf__puts(out, "<figure class=\"spark\">");
	if (labels && labels->axis_lo && labels->axis_hi && labels->hi > labels->lo) {
		strbuf__puts(out, "<span class=\"spark-axis\"><span>");
		attr(out, labels->axis_hi);
		strbuf__puts(out, "</span><span>");
		attr(out, labels->axis_lo);
		strbuf__puts(out, "</span></span>");
	}
	strbuf__puts(out, "<svg class=\"spark-svg\" viewBox=\"0 0 ");
	strbuf__printf(out, "%d %d\" width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"",
		       SPARK_W, SPARK_H, SPARK_W, SPARK_H);
	attr(out, title);
	strbuf__puts(out, "\"><title>");
	attr(out, title);
	strbuf__puts(out, "</title>");
	any = spark_path(out, values, n, labels, &lx, &ly);
	if (any)
		strbuf__printf(out, "\"/><circle cx=\"%.1f\" cy=\"%.1f\" r=\"2\"/>", lx, ly);
	strbuf__puts(out, "</svg><figcaption><span class=\"spark-title\">");
	attr(out, title);
	strbuf__puts(out, "</span>");
	if (labels) {
		text[0] = labels->min;
		text[1] = labels->max;
		text[2] = labels->last;
	}
	if (!any)
		strbuf__puts(out, " <span class=\"spark-none\">no values</span>");
	if (any && text[0] && text[1] && !strcmp(text[0], text[1])) {
		/* a constant series: its one value, not a range */
		strbuf__puts(out, " <span class=\"spark-min\">constant ");
		attr(out, text[0]);
		strbuf__puts(out, "</span>");
		text[0] = text[1] = text[2] = NULL;
	}
	for (int k = 0; any && k < 3; k++) {
		if (!text[k])
			continue;
		strbuf__printf(out, " <span class=\"spark-%s\">%s ", names[k], names[k]);
		attr(out, text[k]);
		strbuf__puts(out, "</span>");
	}
	strbuf__puts(out, "</figcaption></figure>\n");
}

/* ---- heat maps ---- */

/* ColorBrewer's YlOrRd, nine steps from few to many. */
static const char *const heat_palette[] = { "#ffffcc", "#ffeda0", "#fed976", "#feb24c", "#fd8d3c",
					     "#fc4e2a", "#e31a1c", "#bd0026", "#800026" };
#define HEAT_STEPS (sizeof(heat_palette) / sizeof(*heat_palette))
#define HEAT_LOG_FIRST 2 /* the palest colour of a log-scale map */
#define HEAT_LEFT 92     /* room for the row names */
#define HEAT_BOTTOM 80   /* room for the column names, slanted */
#define HEAT_TOP 6
#define HEAT_NAME_SHOWN 22 /* bytes of a column name under its column */

static double heat_column_total(const struct heatmap *hm, size_t c)
{
	double t = 0;

	for (size_t r = 0; r < hm->nrows; r++)
		if (isfinite(hm->counts[c * hm->nrows + r]) && hm->counts[c * hm->nrows + r] > 0)
			t += hm->counts[c * hm->nrows + r];
	return t;
}

/* What a cell's colour measures: its count, or its share of its column. */
static double heat_value(const struct heatmap *hm, const double *totals, size_t c, size_t r)
{
	double v = hm->counts[c * hm->nrows + r];

	if (!isfinite(v) || v <= 0)
		return 0;
	return hm->per_column ? (totals[c] > 0 ? v / totals[c] : 0) : v;
}

/* Text of at most max bytes, cut at a UTF-8 boundary, "…" when cut. */
static void heat_text_cut(struct strbuf *out, const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n <= max) {
		html__escape_text(out, s, n);
		return;
	}
	while (max && ((unsigned char)s[max] & 0xc0) == 0x80)
		max--;
	html__escape_text(out, s, max);
	strbuf__puts(out, "\xe2\x80\xa6");
}

/* The colour step of value v on a map whose largest is vmax (> 0). */
static size_t heat_step(const struct heatmap *hm, double v, double vmax)
{
	size_t step;

	/*
	 * The square root lifts the rare buckets (the tail) out of the pale end;
	 * the log scale more so: a count of 1 among thousands is a clear colour
	 * (HEAT_LOG_FIRST), the largest the darkest.
	 */
	if (hm->log_scale)
		step = HEAT_LOG_FIRST + (size_t)(log(fmax(v, 1)) / log(fmax(vmax, 2)) *
						 ((double)(HEAT_STEPS - HEAT_LOG_FIRST) - 0.001));
	else
		step = (size_t)ceil(sqrt(v / vmax) * HEAT_STEPS) - 1;
	return step >= HEAT_STEPS ? HEAT_STEPS - 1 : step;
}

/* The id prefix of this map's cells: unique in the page, counted from the maps already in out. */
static unsigned heat_id(const struct strbuf *out)
{
	static const char mark[] = "<figure class=\"heatmap\">";
	unsigned n = 0;
	const char *p = out->buf, *end = out->buf ? out->buf + out->len : NULL;

	while (p && (p = memmem(p, (size_t)(end - p), mark, sizeof(mark) - 1))) {
		n++;
		p += sizeof(mark) - 1;
	}
	return n;
}

static void heat_cell_title(struct strbuf *out, const struct heatmap *hm, const double *totals,
			    size_t c, size_t r, double n)
{
	attr(out, hm->cols[c] ? hm->cols[c] : "");
	strbuf__puts(out, " \xc2\xb7 ");
	attr(out, hm->rows[r] ? hm->rows[r] : "");
	strbuf__printf(out, ": %.0f", n);
	if (hm->compact)
		return;
	strbuf__puts(out, " ");
	attr(out, hm->count_label ? hm->count_label : "");
	if (totals[c] > 0)
		strbuf__printf(out, " (%.1f%%)", 100 * n / totals[c]);
}

static void heat_cells(struct strbuf *out, const struct heatmap *hm, const double *totals,
		       double cw, double top)
{
	double vmax = 0;
	unsigned id = hm->compact ? heat_id(out) : 0;

	for (size_t c = 0; c < hm->ncols; c++)
		for (size_t r = 0; r < hm->nrows; r++)
			vmax = fmax(vmax, heat_value(hm, totals, c, r));
	if (hm->compact) {
		strbuf__puts(out, "<defs>");
		for (size_t i = 0; i < HEAT_STEPS; i++)
			strbuf__printf(out, "<rect id=\"hm%u-%zu\" width=\"%.0f\" height=\"%d\" "
				       "fill=\"%s\"/>", id, i, cw, HEATMAP_CELL_H, heat_palette[i]);
		strbuf__puts(out, "</defs>");
	}
	for (size_t c = 0; c < hm->ncols; c++) {
		int open = 0;

		for (size_t r = 0; r < hm->nrows; r++) {
			double v = heat_value(hm, totals, c, r), n = hm->counts[c * hm->nrows + r];
			double y = top + (double)(hm->nrows - 1 - r) * HEATMAP_CELL_H;
			size_t step;

			if (v <= 0 || vmax <= 0)
				continue;
			step = heat_step(hm, v, vmax);
			/* compact: a column's cells in one group, placed once */
			if (hm->compact && !open++)
				strbuf__printf(out, "<g transform=\"translate(%.0f)\">",
					       HEAT_LEFT + (double)c * cw);
			if (hm->compact)
				strbuf__printf(out, "<use href=\"#hm%u-%zu\" y=\"%.0f\"><title>", id,
					       step, y);
			else
				strbuf__printf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
					       "height=\"%d\" fill=\"%s\"><title>", HEAT_LEFT + c * cw,
					       y, cw, HEATMAP_CELL_H, heat_palette[step]);
			heat_cell_title(out, hm, totals, c, r, n);
			strbuf__puts(out, hm->compact ? "</title></use>" : "</title></rect>");
		}
		if (open)
			strbuf__puts(out, "</g>");
	}
}

static void heat_labels(struct strbuf *out, const struct heatmap *hm, double cw, double top)
{
	double bottom = top + (double)hm->nrows * HEATMAP_CELL_H;

	/* every row's name would crowd a tall map: every other one past 16 rows */
	for (size_t r = 0; r < hm->nrows; r += hm->nrows > 16 ? 2 : 1) {
		strbuf__printf(out, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" font-size=\"10\">",
			       HEAT_LEFT - 4, top + (double)(hm->nrows - r) * HEATMAP_CELL_H - 3);
		heat_text_cut(out, hm->rows[r] ? hm->rows[r] : "", HEAT_NAME_SHOWN);
		strbuf__puts(out, "</text>");
	}
	/* compact: level names under every few columns, at least 60 px apart */
	if (hm->compact) {
		size_t every = (size_t)ceil(60 / cw);

		for (size_t c = 0; c < hm->ncols; c += every) {
			strbuf__printf(out, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"10\">",
				       HEAT_LEFT + (double)c * cw, bottom + 12);
			heat_text_cut(out, hm->cols[c] ? hm->cols[c] : "", HEAT_NAME_SHOWN);
			strbuf__puts(out, "</text>");
		}
		return;
	}
	/* column names when there is room for them; the tooltips name every cell anyway */
	for (size_t c = 0; cw >= 9 && c < hm->ncols; c++) {
		double x = HEAT_LEFT + (c + 0.5) * cw;

		strbuf__printf(out, "<text x=\"%.1f\" y=\"%.1f\" transform=\"rotate(-55 %.1f %.1f)\" "
			       "text-anchor=\"end\" font-size=\"10\">", x, bottom + 10, x,
			       bottom + 10);
		heat_text_cut(out, hm->cols[c] ? hm->cols[c] : "", HEAT_NAME_SHOWN);
		strbuf__puts(out, "</text>");
	}
}

/* The scale: the nine colours from few to many. */
static void heat_legend(struct strbuf *out, const struct heatmap *hm)
{
	strbuf__puts(out, "<span class=\"heatmap-legend\">");
	strbuf__puts(out, hm->per_column ? "share of the column: small " :
		     hm->log_scale ? "count (log scale): few " : "count: few ");
	for (size_t i = hm->log_scale ? HEAT_LOG_FIRST : 0; i < HEAT_STEPS; i++)
		strbuf__printf(out, "<svg width=\"10\" height=\"10\" aria-hidden=\"true\"><rect "
			       "width=\"10\" height=\"10\" fill=\"%s\"/></svg>", heat_palette[i]);
	strbuf__puts(out, hm->per_column ? " large</span>" : " many</span>");
}

void chart__heatmap(struct strbuf *out, const struct heatmap *hm)
{
	const char *title = hm->title ? hm->title : "";
	double cw, w, h, *totals;

	strbuf__puts(out, "<figure class=\"heatmap\">");
	if (!hm->ncols || !hm->nrows || !hm->counts || !hm->cols || !hm->rows) {
		strbuf__puts(out, "<figcaption><span class=\"heatmap-title\">");
		attr(out, title);
		strbuf__puts(out, "</span> <span class=\"heatmap-none\">no data</span></figcaption>"
			     "</figure>\n");
		return;
	}
	totals = calloc(hm->ncols, sizeof(*totals));
	if (!totals) {
		out->oom = 1;
		return;
	}
	for (size_t c = 0; c < hm->ncols; c++)
		totals[c] = heat_column_total(hm, c);
	cw = fmin(28, fmax(4, (double)(HEATMAP_MAX_W - HEAT_LEFT) / (double)hm->ncols));
	if (hm->compact)
		cw = floor(cw);
	w = HEAT_LEFT + cw * (double)hm->ncols + 4;
	h = HEAT_TOP + (double)hm->nrows * HEATMAP_CELL_H +
	    (hm->compact ? 18 : cw >= 9 ? HEAT_BOTTOM : 8);
	strbuf__printf(out, "<svg class=\"heatmap-svg\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" "
		       "height=\"%.0f\" role=\"img\" aria-label=\"", w, h, w, h);
	attr(out, title);
	strbuf__puts(out, "\"><title>");
	attr(out, title);
	strbuf__printf(out, "</title><rect class=\"heatmap-bg\" x=\"%d\" y=\"%d\" width=\"%.1f\" "
		       "height=\"%d\" fill=\"#f6f8fa\"/>", HEAT_LEFT, HEAT_TOP,
		       cw * (double)hm->ncols, (int)hm->nrows * HEATMAP_CELL_H);
	heat_cells(out, hm, totals, cw, HEAT_TOP);
	heat_labels(out, hm, cw, HEAT_TOP);
	strbuf__puts(out, "</svg><figcaption><span class=\"heatmap-title\">");
	attr(out, title);
	strbuf__puts(out, "</span> <span class=\"heatmap-axes\">");
	attr(out, hm->x_label ? hm->x_label : "");
	strbuf__puts(out, " \xc3\x97 ");
	attr(out, hm->y_label ? hm->y_label : "");
	strbuf__puts(out, "</span> ");
	heat_legend(out, hm);
	strbuf__puts(out, "</figcaption></figure>\n");
	free(totals);
}

/* ---- stacked bars ---- */

/* A qualitative palette (Tableau 20's darker half, then its lighter): a colour a category. */
static const char *const bar_palette[16] = {
	"#2ca02c", "#bcbd22", "#d62728", "#8c564b", "#1f77b4", "#9467bd", "#ff7f0e", "#e377c2",
	"#17becf", "#7f7f7f", "#393b79", "#c7c7c7", "#dbdbdb", "#98df8a", "#aec7e8", "#ffbb78",
};
#define BAR_LEFT 220  /* room for the row labels */
#define BAR_W 460     /* the bar of a row at 100 */
#define BAR_H 16
#define BAR_GAP 6
#define BAR_LABEL 34  /* bytes of a label shown (the table after has it whole) */

void chart__bars(struct strbuf *out, const struct evidence *e)
{
	size_t ncat = e->columns.n > 1 ? e->columns.n - 1 : 0, rows = 0;
	const char *title = e->title ? e->title : "";
	int h;

	for (size_t r = 0; r < e->nrows && (r + 1) * ncat <= e->nvalues; r++)
		rows++;
	if (!ncat || !rows)
		return;
	h = (int)rows * (BAR_H + BAR_GAP);
	strbuf__puts(out, "<figure class=\"bars\"><svg class=\"bars-svg\" viewBox=\"0 0 ");
	strbuf__printf(out, "%d %d\" width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"",
		       BAR_LEFT + BAR_W + 8, h, BAR_LEFT + BAR_W + 8, h);
	attr(out, title);
	strbuf__puts(out, "\"><title>");
	attr(out, title);
	strbuf__puts(out, "</title>");
	for (size_t r = 0; r < rows; r++) {
		const double *v = &e->values[r * ncat];
		const char *label = e->rows[r][0] ? e->rows[r][0] : "";
		double sum = 0, x = BAR_LEFT;
		int y = (int)r * (BAR_H + BAR_GAP);
		char cut[BAR_LABEL + 4];

		for (size_t c = 0; c < ncat; c++)
			sum += v[c];
		snprintf(cut, sizeof(cut), strlen(label) > BAR_LABEL ? "%.*s..." : "%.*s", BAR_LABEL,
			 label);
		strbuf__printf(out, "<text x=\"%d\" y=\"%d\">", BAR_LEFT - 6, y + BAR_H - 4);
		attr(out, cut);
		strbuf__puts(out, "</text>");
		/* the values are shares of 100; a row that sums past 100 is scaled to fit */
		for (size_t c = 0; c < ncat; c++) {
			double w = BAR_W * v[c] / (sum > 100 ? sum : 100);

			if (!(w > 0.05))
				continue;
			strbuf__printf(out, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
				       "fill=\"%s\"><title>", x, y, w, BAR_H, bar_palette[c % 16]);
			attr(out, label);
			strbuf__puts(out, ": ");
			attr(out, e->columns.v[c + 1]);
			strbuf__printf(out, " %.1f", v[c]);
			if (e->unit)
				attr(out, e->unit);
			strbuf__puts(out, "</title></rect>");
			x += w;
		}
	}
	strbuf__puts(out, "</svg><figcaption><span class=\"bars-title\">");
	attr(out, title);
	strbuf__puts(out, "</span><span class=\"bars-legend\">");
	for (size_t c = 0; c < ncat; c++) {
		strbuf__printf(out, " <svg width=\"10\" height=\"10\" aria-hidden=\"true\"><rect "
			       "width=\"10\" height=\"10\" fill=\"%s\"/></svg> ", bar_palette[c % 16]);
		attr(out, e->columns.v[c + 1]);
	}
	strbuf__puts(out, "</span></figcaption></figure>\n");
}
