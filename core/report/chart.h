/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Charts in report.html, each an inline SVG with nothing to load and no
 * script (the page's Content-Security-Policy allows neither).
 *
 * A per-interval series as a small inline chart: an
 * SVG sparkline (no script, no external resource) in a <figure class="spark">
 * with its y axis labelled at both ends (unit included), its title and the
 * min, max and last labels. Only numbers from values
 * reach the SVG: coordinates, printed with "%.1f"; NaN and infinite values
 * are gaps in the line. title and the three labels (preformatted text, e.g.
 * "12.5 MiB"; NULL for none) are HTML-escaped here. An empty series, or one
 * without a finite value, gives the figure with "no values" and no line.
 */
#ifndef SONDE_CHART_H
#define SONDE_CHART_H

#include <stddef.h>

#include "util/strbuf.h"

#define SPARK_W 160
#define SPARK_H 32
#define SPARK_PAD 2

/*
 * min, max, last: the series' own, in its unit. axis_lo and axis_hi (lo,
 * hi): the y axis, labelled at its bottom and top; a constant series is a
 * flat line where its value falls on it, and its caption says "constant".
 * Without an axis (hi <= lo) the line spans the series' own min..max.
 */
struct spark_labels {
	const char *min, *max, *last;
	const char *axis_lo, *axis_hi;
	double lo, hi;
};

void chart__sparkline(struct strbuf *out, const char *title, const double *values, size_t n,
		      const struct spark_labels *labels);

/*
 * A latency heat map: columns side by side (hosts of a fleet, or intervals
 * of one window), each a log2 latency histogram drawn as a column of cells,
 * row 0 (the fastest bucket) at the bottom; a cell's colour is its count,
 * from pale (few) to dark red (many), on one scale for the whole map, or per
 * column (each column's share of its own total) when columns of very
 * different sizes are to be compared by shape. Every cell with a count has a
 * tooltip (an SVG title: column, row, count and share); empty cells are the
 * background. Names and labels are text, HTML-escaped here; only numbers from
 * counts reach attributes. A map with no column or no row says "no data".
 * Latency over a window (intervals as columns) and subsecond offsets use it
 * too (core/report/evidence.c).
 */
struct heatmap {
	const char *title;       /* the figure's title */
	const char *x_label;     /* what the columns are ("hosts, slowest p99 first") */
	const char *y_label;     /* what the rows are ("run-queue latency") */
	const char *count_label; /* what is counted ("waits") */
	size_t ncols, nrows;
	const char *const *cols; /* ncols names */
	const char *const *rows; /* nrows names, row 0 at the bottom ("2-4 us") */
	const double *counts;    /* ncols * nrows, column after column: counts[c * nrows + r] */
	int per_column;          /* colour by each column's share of its own total */
	/*
	 * Colour by the logarithm of the count (log(1 + n) / log(1 + max)), so a
	 * bucket with one event among thousands is still clearly coloured; else
	 * by its square root.
	 */
	int log_scale;
	/*
	 * A smaller page: each cell a <use> of one of the palette's cells (defined
	 * once per map) in a group per column, whole-pixel coordinates, the
	 * tooltip without the share.
	 */
	int compact;
	/* report.md's form: the counts (rows by columns), or compact summaries */
	enum heatmap_md {
		HEATMAP_MD_COUNTS,    /* the counts, rows by the first columns */
		HEATMAP_MD_QUANTILES, /* one line per column: count, p50, p99, max (the rows' names) */
		HEATMAP_MD_ROWS,      /* one line per row: its total over the columns, a text bar */
	} md;
	int md_mean; /* HEATMAP_MD_ROWS: each row's mean over the columns (a share), not its total */
};

#define HEATMAP_MAX_W 880 /* the plot's width at most; a cell is 4 to 28 px wide */
#define HEATMAP_CELL_H 14

void chart__heatmap(struct strbuf *out, const struct heatmap *hm);

/*
 * An EV_BARS evidence as an SVG: a horizontal bar a row, its segments the
 * categories in order (a colour each, named in the legend), each row's
 * values its shares of 100; a tooltip per segment.
 */
struct evidence;
void chart__bars(struct strbuf *out, const struct evidence *e);

#endif
