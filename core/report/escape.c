// SPDX-License-Identifier: GPL-2.0-or-later
/* Markdown and HTML escaping of host strings (escape.h). */
#include <stdlib.h>

#include "report/escape.h"
#include "util/json.h" /* utf8__seq_len */

static int is_ascii_punct(unsigned char c)
{
	return (c >= 0x21 && c <= 0x2f) || (c >= 0x3a && c <= 0x40) ||
	       (c >= 0x5b && c <= 0x60) || (c >= 0x7b && c <= 0x7e);
}

/*
 * The length of the next unit of s: 1 for ASCII (controls included), the
 * length of a well-formed UTF-8 sequence, or 0 for a byte that starts none.
 */
static size_t unit_len(const unsigned char *p, size_t n)
{
	return p[0] < 0x80 ? 1 : utf8__seq_len(p, n);
}

void md__escape_to(struct strbuf *out, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;

	strbuf__append(out, "", 0);
	for (size_t i = 0, len; i < n; i += len ? len : 1) {
		len = unit_len(p + i, n - i);
		if (!len)
			strbuf__append(out, "\xef\xbf\xbd", 3);
		else if (p[i] < 0x20 || p[i] == 0x7f)
			strbuf__append(out, " ", 1);
		else if (len == 1 && is_ascii_punct(p[i]))
			strbuf__printf(out, "\\%c", p[i]);
		else
			strbuf__append(out, s + i, len);
	}
}

void md__escape_line_to(struct strbuf *out, const char *s, size_t n)
{
	/* a control character becomes a space: a blank too */
	while (n && ((unsigned char)*s <= 0x20 || *s == 0x7f)) {
		s++;
		n--;
	}
	md__escape_to(out, s, n);
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
