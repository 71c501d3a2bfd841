/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host strings on their way into report.md and report.html: every process
 * name, command line, device or cgroup the report shows goes through one of
 * these, so that it can only ever become text. Both replace control
 * characters with spaces and invalid UTF-8 with U+FFFD.
 */
#ifndef SONDE_ESCAPE_H
#define SONDE_ESCAPE_H

#include <stddef.h>

#include "util/strbuf.h"

/*
 * Markdown: every ASCII punctuation character is backslash-escaped (CommonMark
 * lets any be, so no construct and no table pipe survives, and no list has to
 * be kept in sync), control characters (a newline would end a table row or
 * start a block) become spaces.
 */
void md__escape_to(struct strbuf *out, const char *s, size_t n);
/* The same into a malloc'ed string; NULL on allocation failure. */
char *md__escape(const char *s, size_t n);
/*
 * The same where the text starts a line (a paragraph, a list item): leading
 * blanks are dropped too, since four of them would start a code block.
 */
void md__escape_line_to(struct strbuf *out, const char *s, size_t n);

/*
 * HTML element content: & < > " as entities (what cmark writes for text, so
 * a prose fragment and a table cell read alike); ' stays.
 */
void html__escape_text(struct strbuf *out, const char *s, size_t n);
/* A double-quoted attribute value or the page title: ' becomes &#39; too. */
void html__escape_attr(struct strbuf *out, const char *s, size_t n);
/* The text of a <pre> block: as element content, keeping its newlines and tabs. */
void html__escape_pre(struct strbuf *out, const char *s, size_t n);

#endif
