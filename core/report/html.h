/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report.md -> report.html. cmark (CommonMark, safe mode: raw HTML and
 * javascript:/vbscript:/file:/data: links are dropped) renders every block;
 * pipe tables, which plain CommonMark lacks, are recognised from the source
 * lines of a paragraph and rendered here, each cell's inline content again by
 * cmark. The page is one self-contained file: inline CSS, no scripts from
 * data (sonde's own flame graph script only), no external resources.
 */
#ifndef SONDE_HTML_H
#define SONDE_HTML_H

#include <stddef.h>

#include "util/json.h" /* struct strbuf */

/*
 * Render markdown (md, mdlen bytes) into a complete HTML page with the given
 * title (escaped here) and stylesheet (inserted in a <style> element as is:
 * it comes from reports/, never from data). Returns a malloc'ed NUL-terminated
 * string or NULL on allocation failure.
 */
char *html__render_page(const char *md, size_t mdlen, const char *title, const char *css);

/*
 * Fragments sonde rendered itself (flame graphs), each placed where report.md
 * has an HTML block "<!-- sonde:embed N -->" (N indexes embeds; anything else
 * there is dropped as raw HTML is), and the page's one script (a constant,
 * never data; allowed by hash in the Content-Security-Policy). NULL entries
 * and a NULL script are fine.
 */
struct html_extras {
	const char *const *embeds;
	size_t nembeds;
	const char *script;
	const unsigned char *reusable; /* NULL, or per embed: may be placed more than once */
};

char *html__render_page_ex(const char *md, size_t mdlen, const char *title, const char *css,
			   const struct html_extras *ex);

/*
 * A per-interval series as a small inline chart: an SVG sparkline (no script,
 * no external resource) in a <figure class="spark"> with its title and the
 * min, max and last labels, appended to out. Only numbers from values reach
 * the SVG: coordinates, printed with "%.1f"; NaN and infinite values are
 * gaps in the line. title and the three labels (preformatted text, e.g.
 * "12.5 MiB"; NULL for none) are HTML-escaped here. An empty series, or one
 * without a finite value, gives the figure with "no values" and no line.
 */
#define SPARK_W 160
#define SPARK_H 32
#define SPARK_PAD 2

struct spark_labels {
	const char *min, *max, *last;
};

void html__sparkline(struct strbuf *out, const char *title, const double *values, size_t n,
		     const struct spark_labels *labels);

/*
 * Escape a string for use inside a Markdown table cell or paragraph: markup
 * characters are backslash-escaped, '|' too, newlines and other control
 * characters become spaces, invalid UTF-8 becomes U+FFFD. Appends to a
 * malloc'ed result; returns NULL on allocation failure.
 */
char *md__escape(const char *s, size_t n);

#endif
