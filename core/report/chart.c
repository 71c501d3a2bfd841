// SPDX-License-Identifier: GPL-2.0-or-later
/* Sparklines (chart.h). */
#include <math.h>
#include <string.h>

#include "report/chart.h"
#include "report/escape.h"

static void attr(struct strbuf *out, const char *s)
{
	html__escape_attr(out, s, strlen(s));
}

/* The line: x spread over the width, y scaled min..max; *lx, *ly: its last point. */
static int spark_path(struct strbuf *out, const double *values, size_t n, double *lx, double *ly)
{
	double lo = INFINITY, hi = -INFINITY;
	int gap = 1, any = 0;

	for (size_t i = 0; i < n; i++)
		if (isfinite(values[i])) {
			lo = fmin(lo, values[i]);
			hi = fmax(hi, values[i]);
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
	strbuf__puts(out, "<figure class=\"spark\"><svg class=\"spark-svg\" viewBox=\"0 0 ");
	strbuf__printf(out, "%d %d\" width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"",
		       SPARK_W, SPARK_H, SPARK_W, SPARK_H);
	attr(out, title);
	strbuf__puts(out, "\"><title>");
	attr(out, title);
	strbuf__puts(out, "</title>");
	any = spark_path(out, values, n, &lx, &ly);
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
	for (int k = 0; any && k < 3; k++) {
		if (!text[k])
			continue;
		strbuf__printf(out, " <span class=\"spark-%s\">%s ", names[k], names[k]);
		attr(out, text[k]);
		strbuf__puts(out, "</span>");
	}
	strbuf__puts(out, "</figcaption></figure>\n");
}
