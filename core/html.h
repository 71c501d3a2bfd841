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
};

char *html__render_page_ex(const char *md, size_t mdlen, const char *title, const char *css,
			   const struct html_extras *ex);

/*
 * Escape a string for use inside a Markdown table cell or paragraph: markup
 * characters are backslash-escaped, '|' too, newlines and other control
 * characters become spaces, invalid UTF-8 becomes U+FFFD. Appends to a
 * malloc'ed result; returns NULL on allocation failure.
 */
char *md__escape(const char *s, size_t n);

#endif
