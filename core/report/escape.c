// SPDX-License-Identifier: GPL-2.0-or-later
/* Markdown and HTML escaping of host strings (escape.h). */
#include <stdlib.h>
#include <string.h>

#include "report/escape.h"
#include "util/json.h" /* utf8__seq_len */

/*
 * The length of the next unit of s: 1 for ASCII (controls included), the
 * length of a well-formed UTF-8 sequence, or 0 for a byte that starts none.
 */
static size_t unit_len(const unsigned char *p, size_t n)
{
	return p[0] < 0x80 ? 1 : utf8__seq_len(p, n);
}

/* Controls as spaces, invalid UTF-8 as U+FFFD: the text a reader gets. */
static void md_sanitize(struct strbuf *out, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;

	strbuf__append(out, "", 0);
	for (size_t i = 0, len; i < n; i += len ? len : 1) {
		len = unit_len(p + i, n - i);
		if (!len)
			strbuf__append(out, "\xef\xbf\xbd", 3);
		else if (p[i] < 0x20 || p[i] == 0x7f)
			strbuf__append(out, " ", 1);
		else
			strbuf__append(out, s + i, len);
	}
}

static int is_alnum(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* A blank for flanking: a space, or a line's start or end. */
static int is_blank(int c)
{
	return c == ' ' || c == 0;
}

/* '*' or '~' between blanks can neither open nor close emphasis or strikethrough. */
static int delim_inert(int p, int q)
{
	return is_blank(p) && is_blank(q);
}

/* CommonMark's punctuation for flanking (ASCII; an unknown neighbour counts as one). */
static int is_punct(int c)
{
	return c < 0 || (c > 0x20 && c < 0x7f && !is_alnum(c));
}

/*
 * The run of '_' at [a, b) of s, by CommonMark's flanking rules: can it
 * open emphasis (left-flanking, and not right-flanking or after
 * punctuation), or close it (right-flanking, and not left-flanking or
 * before punctuation)?
 */
static void underscore_run(const char *s, size_t n, size_t a, size_t b, const struct md_at *at,
			   int *opens, int *closes)
{
	int p = a ? (unsigned char)s[a - 1] : at->prev;
	int q = b < n ? (unsigned char)s[b] : at->next;
	int left = !is_blank(q) && (!is_punct(q) || is_blank(p) || is_punct(p));
	int right = !is_blank(p) && (!is_punct(p) || is_blank(q) || is_punct(q));

	*opens = left && (!right || is_punct(p));
	*closes = right && (!left || is_punct(q));
}

/* Could a '_' after b close emphasis: a run later in s, or one on the line after s? */
static int underscore_closer_after(const char *s, size_t n, size_t b, const struct md_at *at)
{
	for (size_t a = b; a < n; a = b) {
		int opens, closes;

		while (a < n && s[a] != '_')
			a++;
		if (a == n)
			break;
		for (b = a; b < n && s[b] == '_'; b++)
			;
		underscore_run(s, n, a, b, at, &opens, &closes);
		if (closes)
			return 1;
	}
	return at->later_underscore;
}

/* At a line's start: the index of the character that would make s a block marker, or -1. */
static long md_block_marker(const char *s, size_t n)
{
	size_t d = 0;

	if (!n)
		return -1;
	switch (s[0]) {
	case '#': case '>': case '[': case '=':
		return 0;
	case '-': case '+': case '*': case '_': {
		/* a list marker ("- x", "-"), or a rule ("***", "- - -") */
		size_t same = 0, other = 0;

		if (s[0] != '_' && (n == 1 || s[1] == ' ' || s[1] == '\t'))
			return 0;
		for (size_t i = 0; i < n; i++)
			same += s[i] == s[0], other += s[i] != s[0] && s[i] != ' ';
		return same >= 3 && !other ? 0 : -1;
	}
	default:
		break;
	}
	while (d < n && d < 10 && s[d] >= '0' && s[d] <= '9')
		d++;
	if (d && d <= 9 && d < n && (s[d] == '.' || s[d] == ')') && (d + 1 == n || s[d + 1] == ' '))
		return (long)d;
	return -1;
}

/* Escape c at i of s (sanitized, length n) in position at? */
static int md_needs_escape(const char *s, size_t n, size_t i, const struct md_at *at)
{
	int c = (unsigned char)s[i];
	int p = i ? (unsigned char)s[i - 1] : at->prev;
	int q = i + 1 < n ? (unsigned char)s[i + 1] : at->next;

	switch (c) {
	case '\\': case '`':
		return 1;
	case '*': case '~':
		return !delim_inert(p, q);
	case '_': {
		size_t a = i, b = i;
		int opens, closes;

		while (a && s[a - 1] == '_')
			a--;
		while (b < n && s[b] == '_')
			b++;
		underscore_run(s, n, a, b, at, &opens, &closes);
		return opens && underscore_closer_after(s, n, b, at);
	}
	case '<':
		return q < 0 || (is_alnum(q) && !(q >= '0' && q <= '9')) || q == '/' || q == '!' ||
		       q == '?';
	case '&':
		return q < 0 || is_alnum(q) || q == '#';
	case '[':
		return at->link;
	case ']':
		return at->link || q < 0 || q == '(' || q == '[' || q == ':';
	case '|':
		return at->cell;
	case '#': {
		/* the closing sequence of an ATX heading: a run of '#' to the line's end after a blank */
		size_t j = i;

		if (i && s[i - 1] == '#')
			return 0;
		if (!(is_blank(p) || p < 0))
			return 0;
		while (j < n && s[j] == '#')
			j++;
		return j == n && at->next <= 0;
	}
	default:
		return 0;
	}
}

void md__escape_at(struct strbuf *out, const char *s, size_t n, const struct md_at *at)
{
	struct strbuf t = { 0 };
	long marker = -1;
	size_t i = 0;

	md_sanitize(&t, s, n);
	if (t.oom) {
		out->oom = 1;
		strbuf__free(&t);
		return;
	}
	strbuf__append(out, "", 0);
	if (at->line_start) {
		/* a control character became a space: a blank too; four would start a code block */
		while (i < t.len && t.buf[i] == ' ')
			i++;
		marker = md_block_marker(t.buf + i, t.len - i);
		if (marker >= 0)
			marker += (long)i;
	}
	for (size_t k = i; k < t.len; k++) {
		struct md_at here = *at;

		if (at->line_start && k == i)
			here.prev = 0;
		if ((long)k == marker || md_needs_escape(t.buf + i, t.len - i, k - i, &here))
			strbuf__append(out, "\\", 1);
		strbuf__append(out, t.buf + k, 1);
	}
	strbuf__free(&t);
}

void md__escape_to(struct strbuf *out, const char *s, size_t n)
{
	static const struct md_at unknown = { .prev = -1, .next = -1, .cell = 1, .link = 1,
					       .later_underscore = 1 };

	md__escape_at(out, s, n, &unknown);
}

void md__escape_line_to(struct strbuf *out, const char *s, size_t n)
{
	static const struct md_at line = { .prev = 0, .next = 0, .line_start = 1,
					    .later_underscore = 0 };

	md__escape_at(out, s, n, &line);
}

char *md__escape(const char *s, size_t n)
{
	struct strbuf out = { 0 };

	md__escape_to(&out, s, n);
	if (out.oom) {
		strbuf__free(&out);
		return NULL;
	}
	return out.buf;
}

enum html_ctx { HTML_TEXT, HTML_ATTR, HTML_PRE };

static void html_escape(struct strbuf *out, const char *s, size_t n, enum html_ctx ctx)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0, len; i < n; i += len ? len : 1) {
		len = unit_len(p + i, n - i);
		if (!len) {
			strbuf__append(out, "\xef\xbf\xbd", 3);
			continue;
		}
		switch (p[i]) {
		case '&': strbuf__puts(out, "&amp;"); break;
		case '<': strbuf__puts(out, "&lt;"); break;
		case '>': strbuf__puts(out, "&gt;"); break;
		case '"': strbuf__puts(out, "&quot;"); break;
		case '\'': strbuf__puts(out, ctx == HTML_ATTR ? "&#39;" : "'"); break;
		default:
			if (ctx == HTML_PRE && (p[i] == '\n' || p[i] == '\t'))
				strbuf__append(out, s + i, 1);
			else if (p[i] < 0x20 || p[i] == 0x7f)
				strbuf__append(out, " ", 1);
			else
				strbuf__append(out, s + i, len);
			break;
		}
	}
}

void html__escape_text(struct strbuf *out, const char *s, size_t n)
{
	html_escape(out, s, n, HTML_TEXT);
}

void html__escape_attr(struct strbuf *out, const char *s, size_t n)
{
	html_escape(out, s, n, HTML_ATTR);
}

void html__escape_pre(struct strbuf *out, const char *s, size_t n)
{
	html_escape(out, s, n, HTML_PRE);
}
