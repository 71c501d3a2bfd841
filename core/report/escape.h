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
 * Markdown, by position: a character is backslash-escaped only where a
 * CommonMark (or GitHub) reader could take it for markup there, so numbers,
 * paths and identifiers read as they are ("10.1 s", "cpu-utilization",
 * "/sys/fs/cgroup"). Control characters (a newline would end a table row or
 * start a block) become spaces, invalid UTF-8 U+FFFD.
 *
 * Always escaped: '\\' and '`'. Where they could open or close markup: '*'
 * and '~' unless both neighbours are blanks; a run of '_' that could open
 * emphasis (CommonMark's flanking rules) when a '_' follows on the line
 * (so "__do_sys_open" stays as it is); '<' before a letter, '/', '!' or '?'; '&' before a letter,
 * a digit or '#'; ']' before '(', '[' or ':'; '[' and ']' inside a link's
 * text; '|' in a table cell; a run of '#' that ends the line after a blank
 * (an ATX heading's closing sequence). At the start of a line's content:
 * '#', '>', '[', '=', a '-', '+' or '*' list marker or rule, "1." and "1)".
 */
struct md_at {
	int prev;       /* the byte just before: 0 at a line start, -1 unknown */
	int next;       /* the byte just after: 0 at the line's end, -1 unknown */
	int line_start; /* s starts a line's content: its leading blanks are dropped */
	int cell;       /* s is in a table cell: '|' ends it */
	int link;       /* s is a link's text: brackets nest */
	int later_underscore; /* the line has a '_' after s (or may have) */
};
void md__escape_at(struct strbuf *out, const char *s, size_t n, const struct md_at *at);
/* With nothing known of the neighbours: in a table cell, a link, between unknowns. */
void md__escape_to(struct strbuf *out, const char *s, size_t n);
/* The same into a malloc'ed string; NULL on allocation failure. */
char *md__escape(const char *s, size_t n);
/*
 * A whole line's content (a paragraph, a list item): leading blanks are
 * dropped too, since four of them would start a code block.
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
