/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Charts in report.html. A per-interval series as a small inline chart: an
 * SVG sparkline (no script, no external resource) in a <figure class="spark">
 * with its title and the min, max and last labels. Only numbers from values
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

struct spark_labels {
	const char *min, *max, *last;
};

void chart__sparkline(struct strbuf *out, const char *title, const double *values, size_t n,
		      const struct spark_labels *labels);

#endif
