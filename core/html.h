/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report.md -> report.html. cmark (CommonMark, safe mode: raw HTML and
 * javascript:/vbscript:/file:/data: links are dropped) renders every block;
 * pipe tables, which plain CommonMark lacks, are recognised from the source
 * lines of a paragraph and rendered here, each cell's inline content again by
 * cmark. The page is one self-contained file: inline CSS, no scripts from
 * data, no external resources.
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
 * Escape a string for use inside a Markdown table cell or paragraph: markup
 * characters are backslash-escaped, '|' too, newlines and other control
 * characters become spaces, invalid UTF-8 becomes U+FFFD. Appends to a
 * malloc'ed result; returns NULL on allocation failure.
 */
char *md__escape(const char *s, size_t n);

#endif
