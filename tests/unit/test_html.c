// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * core/html.c: a report-like document renders to the expected structure;
 * hostile data, escaped with md__escape or not escaped at all, can only ever
 * become text: every tag in the output is from a short allow-list, no event
 * handler attributes, no script URLs, and the output is valid UTF-8.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/html.h"
#include "util/json.h"
#include "tap.h"

static const char test_css[] = "body { color: #111; }\n";

static const char *const allowed_tags[] = {
	"html", "head",	 "meta",   "title", "style", "body", "main",	   "h1",
	"h2",	"h3",	 "h4",	   "h5",    "h6",    "p",    "ul",	   "ol",
	"li",	"table", "thead",  "tbody", "tr",    "th",   "td",	   "code",
	"pre",	"em",	 "strong", "a",	    "hr",    "br",   "blockquote", "div",
};

static const char *const allowed_attrs[] = {
	"lang",	 "charset", "name",  "content", "http-equiv", "id",  "class",
	"style", "href",    "title", "start",	"src",	      "alt",
};

static int in_list(const char *s, size_t n, const char *const *list, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (strlen(list[i]) == n && !memcmp(list[i], s, n))
			return 1;
	return 0;
}

static int starts_with_ci(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);

	return n >= k && !strncasecmp(s, prefix, k);
}

/*
 * Every '<' must begin "<!DOCTYPE html>" (at the start), cmark's
 * "<!-- raw HTML omitted -->", or a tag from allowed_tags (img only when
 * allow_img) whose attributes are all from allowed_attrs, quoted, with no
 * script URL in href/src.
 */
static int tags_ok(const char *html, int allow_img)
{
	static const char omitted[] = "<!-- raw HTML omitted -->";
	const char *p = html, *name, *val;
	size_t n, vn;

	while ((p = strchr(p, '<'))) {
		if (p == html && !strncmp(p, "<!DOCTYPE html>", 15)) {
			p += 15;
			continue;
		}
		if (!strncmp(p, omitted, sizeof(omitted) - 1)) {
			p += sizeof(omitted) - 1;
			continue;
		}
		p++;
		if (*p == '/')
			p++;
		for (name = p; isalnum((unsigned char)*p); p++)
			;
		n = p - name;
		if (!in_list(name, n, allowed_tags,
			     sizeof(allowed_tags) / sizeof(allowed_tags[0])) &&
		    !(allow_img && n == 3 && !memcmp(name, "img", 3))) {
			printf("# tag not allowed: <%.*s at offset %zu\n", (int)n + 10, name - 1,
			       (size_t)(name - html));
			return 0;
		}
		for (;;) {
			while (*p == ' ')
				p++;
			if (*p == '>' || !strncmp(p, "/>", 2))
				break;
			for (name = p; islower((unsigned char)*p) || *p == '-'; p++)
				;
			n = p - name;
			if (!n || !in_list(name, n, allowed_attrs,
					   sizeof(allowed_attrs) / sizeof(allowed_attrs[0]))) {
				printf("# attribute not allowed: %.20s\n", name);
				return 0;
			}
			if (*p != '=')
				continue;
			if (p[1] != '"') {
				printf("# unquoted attribute value: %.20s\n", name);
				return 0;
			}
			val = p + 2;
			p = strchr(val, '"');
			if (!p)
				return 0;
			vn = p - val;
			p++;
			if ((starts_with_ci(name, n, "href") || starts_with_ci(name, n, "src")) &&
			    (starts_with_ci(val, vn, "javascript:") ||
			     starts_with_ci(val, vn, "vbscript:") ||
			     starts_with_ci(val, vn, "data:text"))) {
				printf("# script URL: %.*s\n", (int)vn, val);
				return 0;
			}
			if (memchr(val, '<', vn)) {
				printf("# '<' in attribute value\n");
				return 0;
			}
		}
	}
	return 1;
}

static int utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned char lo, hi;
	size_t len, i;

	while (*p) {
		lo = 0x80;
		hi = 0xbf;
		if (*p < 0x80) {
			p++;
			continue;
		} else if (*p >= 0xc2 && *p <= 0xdf) {
			len = 2;
		} else if (*p >= 0xe0 && *p <= 0xef) {
			len = 3;
			lo = *p == 0xe0 ? 0xa0 : 0x80;
			hi = *p == 0xed ? 0x9f : 0xbf;
		} else if (*p >= 0xf0 && *p <= 0xf4) {
			len = 4;
			lo = *p == 0xf0 ? 0x90 : 0x80;
			hi = *p == 0xf4 ? 0x8f : 0xbf;
		} else {
			return 0;
		}
		if (p[1] < lo || p[1] > hi)
			return 0;
		for (i = 2; i < len; i++)
			if (p[i] < 0x80 || p[i] > 0xbf)
				return 0;
		p += len;
	}
	return 1;
}

static size_t count(const char *hay, const char *needle)
{
	size_t nr = 0, k = strlen(needle);

	while ((hay = strstr(hay, needle))) {
		nr++;
		hay += k;
	}
	return nr;
}

static int contains_ci(const char *hay, const char *needle)
{
	return strcasestr(hay, needle) != NULL;
}

/* Each <tr> in the output has exactly cells <td> or <th> elements. */
static int rows_have_cells(const char *html, size_t cells)
{
	const char *tr = html, *end;
	size_t nr;
	char *row;
	int good = 1;

	while ((tr = strstr(tr, "<tr>"))) {
		end = strstr(tr, "</tr>");
		if (!end)
			return 0;
		row = strndup(tr, end - tr);
		nr = count(row, "<td") + count(row, "<th");
		if (nr != cells) {
			printf("# row with %zu cells: %s\n", nr, row);
			good = 0;
		}
		free(row);
		tr = end;
	}
	return good;
}

static char *render(const char *md)
{
	return html__render_page(md, strlen(md), "sonde report", test_css);
}

static void test_report(void)
{
	static const char md[] =
		"# sonde report: db01\n"
		"\n"
		"The bottleneck is **CPU saturation**: see [details](#cpu-saturation).\n"
		"\n"
		"## USE matrix\n"
		"\n"
		"| resource | utilization | saturation | errors |\n"
		"|----------|:-----------:|-----------:|:-------|\n"
		"| cpu | warn 93% | crit 4.2 | ok |\n"
		"| disk \\| nvme0n1 | ok | `a|b` | unknown |\n"
		"| memory | skip |\n"
		"| net | error: EACCES | ok | ok | extra | cells |\n"
		"\n"
		"## CPU saturation\n"
		"\n"
		"- run queue length 4.2 per CPU\n"
		"- top culprit: `postgres` (pid 4242)\n"
		"\n"
		"1. first\n"
		"2. second\n"
		"\n"
		"```\n"
		"runqlat: 95th percentile <8ms>\n"
		"```\n"
		"\n"
		"> a note\n"
		"\n"
		"---\n"
		"\n"
		"## CPU saturation\n";
	char *html = render(md);

	ok(html != NULL, "report renders");
	if (!html)
		return;
	ok(strstr(html, "<h1 id=\"sonde-report-db01\">sonde report: db01</h1>") != NULL,
	   "h1 with id");
	ok(strstr(html, "<p>The bottleneck is <strong>CPU saturation</strong>: see "
			"<a href=\"#cpu-saturation\">details</a>.</p>") != NULL,
	   "paragraph with strong and in-page link");
	ok(strstr(html, "<h2 id=\"use-matrix\">USE matrix</h2>") != NULL, "h2 with id");
	ok(strstr(html, "<h2 id=\"cpu-saturation\">CPU saturation</h2>") != NULL, "slug");
	ok(strstr(html, "<h2 id=\"cpu-saturation-2\">CPU saturation</h2>") != NULL,
	   "a repeated heading gets a distinct id");
	is_int(count(html, "<table>"), 1, "one table");
	ok(strstr(html, "<thead>\n<tr>\n<th>resource</th>\n<th style=\"text-align:center\">"
			"utilization</th>\n<th style=\"text-align:right\">saturation</th>\n"
			"<th style=\"text-align:left\">errors</th>\n</tr>\n</thead>") != NULL,
	   "header row with alignment");
	ok(strstr(html, "<td style=\"text-align:center\" class=\"st-warn\">warn 93%</td>") != NULL,
	   "status cell with alignment and class");
	ok(strstr(html, "<td style=\"text-align:right\" class=\"st-crit\">crit 4.2</td>") != NULL,
	   "crit class");
	ok(strstr(html, "<td style=\"text-align:left\" class=\"st-ok\">ok</td>") != NULL,
	   "ok class");
	ok(strstr(html, "<td class=\"st-unknown\">unknown</td>") == NULL &&
		   strstr(html, "<td style=\"text-align:left\" class=\"st-unknown\">unknown</td>"),
	   "unknown class");
	ok(strstr(html, "<td>disk | nvme0n1</td>") != NULL, "escaped pipe is cell content");
	ok(strstr(html, "<td style=\"text-align:right\"><code>a|b</code></td>") != NULL,
	   "pipe inside a code span is cell content");
	ok(strstr(html, "<td>memory</td>\n"
			"<td style=\"text-align:center\" class=\"st-skip\">skip</td>\n"
			"<td style=\"text-align:right\"></td>\n"
			"<td style=\"text-align:left\"></td>"),
	   "short row padded with empty cells");
	ok(strstr(html, "class=\"st-error\">error: EACCES</td>") != NULL, "error class");
	ok(!strstr(html, "extra") && !strstr(html, "cells"), "extra cells dropped");
	ok(rows_have_cells(html, 4), "every row has 4 cells");
	ok(strstr(html, "<ul>\n<li>run queue length 4.2 per CPU</li>\n<li>top culprit: "
			"<code>postgres</code> (pid 4242)</li>\n</ul>") != NULL,
	   "bullet list with inline code");
	ok(strstr(html, "<ol>\n<li>first</li>\n<li>second</li>\n</ol>") != NULL, "ordered list");
	ok(strstr(html, "<pre><code>runqlat: 95th percentile &lt;8ms&gt;\n</code></pre>") != NULL,
	   "fenced code escaped");
	ok(strstr(html, "<blockquote>\n<p>a note</p>\n</blockquote>") != NULL, "blockquote");
	ok(strstr(html, "<hr />") != NULL, "thematic break");
	ok(tags_ok(html, 0), "only allowed tags and attributes");
	ok(utf8_valid(html), "valid UTF-8");
	free(html);
}

static void test_page(void)
{
	static const char head[] =
		"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
		"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		"style-src 'unsafe-inline'; img-src data:\"><title>";
	char *html;

	html = html__render_page("hi\n", 3, "<b>\"Tom's\" & co</b>", test_css);
	ok(html && !strncmp(html, head, strlen(head)),
	   "page head: doctype, charset, viewport, CSP");
	if (!html)
		return;
	ok(strstr(html, "<title>&lt;b&gt;&quot;Tom&#39;s&quot; &amp; co&lt;/b&gt;</title>") != NULL,
	   "title escaped");
	ok(strstr(html, "<style>\nbody { color: #111; }\n</style></head><body><main>\n") != NULL,
	   "stylesheet inlined as is");
	ok(strstr(html, "<p>hi</p>\n</main></body></html>\n") != NULL, "page tail");
	ok(!contains_ci(html, "<script"), "no script element");
	ok(tags_ok(html, 0), "page tags allowed");
	free(html);

	html = html__render_page("x", 1, "bad\xff\xc0\xaf\nname\t<", NULL);
	ok(html && strstr(html, "<title>bad\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd name &lt;</title>"),
	   "title: invalid UTF-8 replaced, controls become spaces");
	ok(html && strstr(html, "<style>\n</style>"), "NULL css gives an empty style element");
	ok(html && utf8_valid(html), "valid UTF-8");
	free(html);

	html = html__render_page(NULL, 0, NULL, NULL);
	ok(html && strstr(html, "<title></title>") && strstr(html, "<main>\n</main>"),
	   "NULL markdown and title give an empty page");
	free(html);
}

static void test_md_escape(void)
{
	static const struct {
		const char *in;
		size_t len;
		const char *want;
	} cases[] = {
		{ "plain text 42", 13, "plain text 42" },
		{ "a|b", 3, "a\\|b" },
		{ "*_`[]()#+-.!<>&~\"'={}\\", 22,
		  "\\*\\_\\`\\[\\]\\(\\)\\#\\+\\-\\.\\!\\<\\>\\&\\~\\\"\\'\\=\\{\\}\\\\" },
		{ "a\nb\rc\td\x01"
		  "e\x7f",
		  10, "a b c d e " },
		{ "nul\0x", 5, "nul x" },
		{ "bad\xff\xc0\xaf", 6, "bad\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
		{ "\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14,
		  "\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80" },
		{ "", 0, "" },
	};
	size_t i;
	char *s;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		s = md__escape(cases[i].in, cases[i].len);
		is_str(s, cases[i].want, "md__escape case %zu", i);
		free(s);
	}
}

/* What a reader should see for data: controls as spaces, U+FFFD, escaped. */
static void expected_text(struct strbuf *sb, const char *s, int trim)
{
	char *esc = md__escape(s, strlen(s));
	const char *p;
	size_t n;

	/* md__escape's output minus its backslashes is the sanitized text. */
	for (p = esc; *p; p++) {
		if (*p == '\\')
			p++;
		switch (*p) {
		case '&': strbuf__puts(sb, "&amp;"); break;
		case '<': strbuf__puts(sb, "&lt;"); break;
		case '>': strbuf__puts(sb, "&gt;"); break;
		case '"': strbuf__puts(sb, "&quot;"); break;
		default: strbuf__append(sb, p, 1); break;
		}
	}
	free(esc);
	strbuf__append(sb, "", 0);
	if (trim) {
		for (p = sb->buf; *p == ' '; p++)
			;
		n = strlen(p);
		memmove(sb->buf, p, n + 1);
		while (n && sb->buf[n - 1] == ' ')
			sb->buf[--n] = '\0';
		sb->len = n;
	}
}

static void test_hostile_escaped(void)
{
	static const char *const data[] = {
		"<img src=x onerror=alert(1)>",
		"[x](javascript:alert(1))",
		"<script>alert(1)</script>",
		"<javascript:alert(1)>",
		"a|b|c",
		"pipe at end |",
		"line1\nline2\r\n| x | y |\n|---|---|",
		"bad\xff\xfe\xc0\xafname\xed\xa0\x80",
		"`code|span` and ``",
		"trailing backslash \\",
		"\\|",
		"**bold** _u_ # h ~~s~~",
		"&lt;script&gt; &amp; &#60;",
		"<!-- c --> <?php ?> <![CDATA[x]]>",
		"- list",
		"1. ordered",
		"# heading",
		"> quote",
		"---",
		"===",
		"    indented",
		"![i](javascript:alert(1))",
		"[ref]: javascript:alert(1)",
		"warn",
		"\xe2\x80\xa8\xc2\xa0nbsp",
	};
	struct strbuf md = { 0 }, want = { 0 }, find = { 0 };
	size_t i;
	char *e, *html;
	int all_ok;

	for (i = 0; i < sizeof(data) / sizeof(data[0]); i++) {
		e = md__escape(data[i], strlen(data[i]));
		md.len = 0;
		strbuf__printf(&md,
			       "# Report\n\nName: %s\n\n%s\n\n"
			       "| name | status |\n|---|---|\n| %s | ok |\n| x | %s |\n",
			       e, e, e, e);
		free(e);
		html = render(md.buf);
		if (!html) {
			ok(0, "hostile %zu renders", i);
			continue;
		}

		all_ok = 1;
		if (!tags_ok(html, 0)) {
			printf("# data %zu: disallowed markup\n", i);
			all_ok = 0;
		}
		if (contains_ci(html, "<script") || contains_ci(html, "<img")) {
			printf("# data %zu: script or img element\n", i);
			all_ok = 0;
		}
		if (count(html, "<table>") != 1 || !rows_have_cells(html, 2)) {
			printf("# data %zu: table shape changed\n", i);
			all_ok = 0;
		}
		if (count(html, "<h1") != 1 || strstr(html, "<h2") || strstr(html, "<ul") ||
		    strstr(html, "<ol") || strstr(html, "<blockquote") || strstr(html, "<hr")) {
			printf("# data %zu: data created a block\n", i);
			all_ok = 0;
		}
		if (!utf8_valid(html)) {
			printf("# data %zu: invalid UTF-8\n", i);
			all_ok = 0;
		}

		/* The data is shown, as text, in the paragraph and in both cells. */
		want.len = 0;
		expected_text(&want, data[i], 0);
		find.len = 0;
		strbuf__printf(&find, "<p>Name: %s</p>", want.buf);
		if (!strstr(html, find.buf)) {
			printf("# data %zu: paragraph text not found: %s\n", i, find.buf);
			all_ok = 0;
		}
		want.len = 0;
		expected_text(&want, data[i], 1);
		find.len = 0;
		/* ">" not "<td>": data that is a status word ("warn") gets its class. */
		strbuf__printf(&find, ">%s</td>\n<td class=\"st-ok\">ok</td>", want.buf);
		if (!strstr(html, find.buf)) {
			printf("# data %zu: cell text not found: %s\n", i, find.buf);
			all_ok = 0;
		}
		ok(all_ok, "escaped data %zu stays text: %.30s", i, want.buf);
		free(html);
	}
	strbuf__free(&md);
	strbuf__free(&want);
	strbuf__free(&find);
}

static void test_hostile_raw(void)
{
	static const char md[] =
		"# Raw\n"
		"\n"
		"<script>alert(1)</script>\n"
		"\n"
		"<img src=x onerror=alert(1)>\n"
		"\n"
		"text <span onclick=\"alert(1)\">hi</span> <SCRIPT>x</SCRIPT>\n"
		"\n"
		"[a](javascript:alert(1)) [b](JAVASCRIPT:alert(1)) [c](vbscript:x) "
		"[d](data:text/html;base64,PHNjcmlwdD4=) <javascript:alert(1)> [e][r]\n"
		"\n"
		"[r]: javascript:alert(1)\n"
		"\n"
		"<a href=\"javascript:x\">raw a</a>\n"
		"\n"
		"| a | b |\n"
		"|---|---|\n"
		"| <script>x</script> | [l](javascript:y) |\n"
		"| <img src=x onerror=alert(1)> | ok |\n"
		"\n"
		"## <script>alert(1)</script> \"quoted\" & co\n";
	char *html = render(md);

	ok(html != NULL, "raw hostile markdown renders");
	if (!html)
		return;
	ok(!contains_ci(html, "<script"), "no script element");
	ok(!contains_ci(html, "<img") && !contains_ci(html, "<span"), "no raw HTML element");
	ok(!contains_ci(html, "onerror") && !contains_ci(html, "onclick"), "no event handler text");
	ok(!contains_ci(html, "href=\"javascript") && !contains_ci(html, "href=\"vbscript") &&
		   !contains_ci(html, "href=\"data"),
	   "no script URL in any href");
	ok(count(html, "raw HTML omitted") >= 5, "cmark safe mode omitted the raw HTML");
	ok(strstr(html, "<a href=\"\">a</a>") != NULL,
	   "javascript: link keeps its text, loses href");
	ok(strstr(html, "<a href=\"\">e</a>") != NULL,
	   "reference-style javascript: link neutralised");
	ok(rows_have_cells(html, 2), "table rows keep 2 cells");
	ok(strstr(html, "<h2 id=\"alert-1-quoted-co\">") != NULL, "heading id from text only");
	ok(tags_ok(html, 0), "only allowed tags and attributes");
	ok(utf8_valid(html), "valid UTF-8");
	free(html);

	html = render("![i](javascript:alert(1)) ![p](data:image/png;base64,iVBORw0KGgo=)\n");
	ok(html && strstr(html, "<img src=\"\" alt=\"i\" />") &&
		   strstr(html, "<img src=\"data:image/png;base64,iVBORw0KGgo=\""),
	   "image: javascript: src dropped, data:image kept (CSP allows img-src data:)");
	ok(html && tags_ok(html, 1), "images carry only safe attributes");
	free(html);
}

static void test_tables(void)
{
	char *html;

	html = render("| a | b\n|---|---\n| 1 | 2\n");
	ok(html && strstr(html, "<th>a</th>\n<th>b</th>") && strstr(html, "<td>1</td>\n<td>2</td>"),
	   "rows without a trailing pipe");
	free(html);

	html = render("| h1 | h2 |\n|---|---|\n| a \\\\| b |\n");
	ok(html && strstr(html, "<td>a \\</td>\n<td>b</td>"), "escaped backslash before a pipe");
	free(html);

	html = render("| h1 | h2 |\n|---|---|\n| `a | b |\n");
	ok(html && strstr(html, "<td>`a</td>\n<td>b</td>"), "unmatched backtick splits");
	free(html);

	html = render("| h1 | h2 |\n|---|---|\n| ``a ` | b`` | c |\n| `a\\|b` | d |\n");
	ok(html && strstr(html, "<td><code>a ` | b</code></td>\n<td>c</td>") &&
		   strstr(html, "<td><code>a|b</code></td>\n<td>d</td>"),
	   "code spans: double backticks, \\| inside code is a pipe (GFM)");
	free(html);

	html = render("| a | b |\n|---|\n| 1 | 2 |\n");
	ok(html && !strstr(html, "<table") && strstr(html, "<p>| a | b |"),
	   "delimiter with a different cell count: not a table");
	free(html);

	html = render("| a |\n|-x-|\n| 1 |\n");
	ok(html && !strstr(html, "<table"), "bad delimiter row: not a table");
	free(html);

	html = render("| a |\n|:-:|\n");
	ok(html && strstr(html, "<table>\n<thead>\n<tr>\n<th style=\"text-align:center\">a</th>\n"
				"</tr>\n</thead>\n</table>\n"),
	   "header-only table has no tbody");
	free(html);

	html = render("| a | b |\r\n|---|--:|\r\n| 1 | 2 |\r\n\r\nafter\r\n");
	ok(html && strstr(html, "<td>1</td>\n<td style=\"text-align:right\">2</td>\n") &&
		   strstr(html, "<p>after</p>") && !strchr(html, '\r'),
	   "CRLF line endings");
	free(html);

	html = render("Table 1: load\n| a |\n|---|\n| 1 |\nnote below\n| b |\n|---|\n| 2 |\n");
	ok(html && strstr(html, "<p>Table 1: load</p>\n<table>") &&
		   strstr(html, "</table>\n<p>note below</p>\n<table>") &&
		   count(html, "<table>") == 2,
	   "text around tables in one paragraph stays text");
	free(html);

	html = render("## Disks\n   | a |\n   |---|\n   | 1 |\n");
	ok(html && strstr(html, "<h2 id=\"disks\">Disks</h2>\n<table>") &&
		   strstr(html, "<td>1</td>"),
	   "table right after a heading, indented");
	free(html);

	html = render("| x |\n|---|\n| - 5% |\n| # of tasks |\n| 1. x |\n| > 90% |\n| *em* _u_ |\n"
		      "| [l](https://example.com/a?b=1&c=2) |\n| |\n");
	ok(html && strstr(html, "<td>- 5%</td>") && strstr(html, "<td># of tasks</td>") &&
		   strstr(html, "<td>1. x</td>") && strstr(html, "<td>&gt; 90%</td>") &&
		   strstr(html, "<td><em>em</em> <em>u</em></td>") &&
		   strstr(html, "<td><a href=\"https://example.com/a?b=1&amp;c=2\">l</a></td>") &&
		   strstr(html, "<td></td>") && !strstr(html, "<ul") && !strstr(html, "<h1"),
	   "cell content is inline only: no lists, headings, quotes from cells");
	free(html);

	html = render("| ok | status |\n|---|---|\n| okay | errors |\n| ok-ish | skipped |\n"
		      "| **crit** | unknown. |\n| warn | ok, then |\n| OK | `ok` |\n");
	ok(html && strstr(html, "<th>ok</th>") && !strstr(html, "<th class"),
	   "header cells get no status class");
	ok(html && strstr(html, "<td>okay</td>") && strstr(html, "<td>errors</td>") &&
		   strstr(html, "<td>ok-ish</td>") && strstr(html, "<td>skipped</td>") &&
		   strstr(html, "<td>OK</td>"),
	   "words that only start like a status get no class");
	ok(html && strstr(html, "<td class=\"st-crit\"><strong>crit</strong></td>") &&
		   strstr(html, "<td class=\"st-unknown\">unknown.</td>") &&
		   strstr(html, "<td class=\"st-warn\">warn</td>") &&
		   strstr(html, "<td class=\"st-ok\">ok, then</td>") &&
		   strstr(html, "<td class=\"st-ok\"><code>ok</code></td>"),
	   "status class from the plain text of the cell");
	free(html);
}

static void test_headings(void)
{
	static const char md[] =
		"## CPU saturation (run queue)\n"
		"## !!!\n"
		"## !!!\n"
		"Setext *title*\n"
		"==============\n"
		"### `runqlat` histogram\n"
		"#### Caf\xc3\xa9 100%\n"
		"## A very long heading that goes on and on and on and on and on and "
		"on and on and on\n";
	char *html = render(md);

	ok(html && strstr(html, "<h2 id=\"cpu-saturation-run-queue\">CPU saturation (run "
				"queue)</h2>"),
	   "slug: lowercase, punctuation runs become one dash");
	ok(html && strstr(html, "<h2 id=\"section\">!!!</h2>") &&
		   strstr(html, "<h2 id=\"section-2\">!!!</h2>"),
	   "empty slug falls back to section, then section-2");
	ok(html && strstr(html, "<h1 id=\"setext-title\">Setext <em>title</em></h1>"),
	   "setext heading, emphasis text in slug");
	ok(html && strstr(html, "<h3 id=\"runqlat-histogram\"><code>runqlat</code> histogram</h3>"),
	   "code text in slug");
	ok(html && strstr(html, "<h4 id=\"caf-100\">Caf\xc3\xa9 100%</h4>"), "non-ASCII dropped");
	ok(html && strstr(html,
			  "<h2 id=\"a-very-long-heading-that-goes-on-and-on-and-on-and-on-and-on-"
			  "and\">"),
	   "long slug cut at 64 characters");
	free(html);
}

static void test_large(void)
{
	struct strbuf md = { 0 };
	char *html;
	int i;

	strbuf__puts(&md, "| pid | comm | share |\n|--:|---|--:|\n");
	for (i = 0; i < 5000; i++)
		strbuf__printf(&md, "| %d | worker\\|%d | %d.%d%% |\n", i, i, i % 100, i % 10);
	html = render(md.buf);
	ok(html && count(html, "<tr>") == 5001 && rows_have_cells(html, 3) &&
		   strstr(html, "<td>worker|4999</td>"),
	   "5000-row table");
	free(html);
	strbuf__free(&md);
}

/* Sparklines: values become points, gaps stay gaps, nothing from data but numbers and text. */
static void test_sparkline(void)
{
	const double v[] = { 0, 5, 10, NAN, 10 };
	const double inf[] = { INFINITY, 4, -INFINITY };
	const double nan2[] = { NAN, NAN };
	const double one[] = { 7 };
	const struct spark_labels l = { .min = "0%", .max = "10%", .last = "10%" };
	const struct spark_labels evil = { .min = "<b>", .max = "\"onload=x", .last = "&" };
	struct strbuf sb = { 0 };

	html__sparkline(&sb, "CPU busy %", v, 5, &l);
	ok(!sb.oom && strstr(sb.buf, "<path d=\"M2.0 30.0 L41.0 16.0 L80.0 2.0 M158.0 2.0 h0\"/>"),
	   "values -> points: x spread over the width, y scaled min..max, a NaN breaks the line, "
	   "a lone point is a dot");
	ok(strstr(sb.buf, "<circle cx=\"158.0\" cy=\"2.0\" r=\"2\"/>"), "the last value is marked");
	ok(strstr(sb.buf, "<span class=\"spark-min\">min 0%</span>") &&
		   strstr(sb.buf, "<span class=\"spark-max\">max 10%</span>") &&
		   strstr(sb.buf, "<span class=\"spark-last\">last 10%</span>"),
	   "min, max and last labels");
	ok(strstr(sb.buf, "viewBox=\"0 0 160 32\"") && strstr(sb.buf, "<title>CPU busy %</title>"),
	   "fixed size, the title as the SVG's title");
	ok(!strstr(sb.buf, "<script") && !strstr(sb.buf, "href") && !strstr(sb.buf, "http"),
	   "no script, no link, no external resource");
	strbuf__free(&sb);

	html__sparkline(&sb, "t", inf, 3, NULL);
	ok(!sb.oom && strstr(sb.buf, "<path d=\"M80.0 16.0 h0\"/>") && !strstr(sb.buf, "inf") &&
		   !strstr(sb.buf, "nan"),
	   "infinite values are skipped too; a flat series is drawn at mid-height");
	strbuf__free(&sb);

	html__sparkline(&sb, "one", one, 1, &l);
	ok(!sb.oom && strstr(sb.buf, "<path d=\"M80.0 16.0 h0\"/>"), "one value: a dot in the middle");
	strbuf__free(&sb);

	html__sparkline(&sb, "empty", NULL, 0, &l);
	ok(!sb.oom && !strstr(sb.buf, "<path") && !strstr(sb.buf, "<circle") &&
		   strstr(sb.buf, "no values") && !strstr(sb.buf, "spark-min"),
	   "empty series: the figure says so, no line, no labels");
	strbuf__free(&sb);

	html__sparkline(&sb, "nulls", nan2, 2, &l);
	ok(!sb.oom && !strstr(sb.buf, "<path") && strstr(sb.buf, "no values"),
	   "a series of nulls only: no line");
	strbuf__free(&sb);

	html__sparkline(&sb, "<script>alert(1)</script>\"'&", v, 5, &evil);
	ok(!sb.oom && !strstr(sb.buf, "<script") && !strstr(sb.buf, "<b>") &&
		   !strstr(sb.buf, "\"onload") &&
		   strstr(sb.buf, "aria-label=\"&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;\"") &&
		   strstr(sb.buf, "<title>&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;</title>") &&
		   strstr(sb.buf, "min &lt;b&gt;") && strstr(sb.buf, "max &quot;onload=x") &&
		   strstr(sb.buf, "last &amp;"),
	   "a hostile title and labels are escaped in the attribute, the title and the caption");
	strbuf__free(&sb);
}

/* Stable ids for check sections, and matrix cells that link to them. */
static void test_anchors(void)
{
	static const char md[] =
		"# r\n\n"
		"| resource | utilization | saturation |\n|---|---|---|\n"
		"| disk | [crit busy\\_pct sda 99%](#use.disk-utilization) | n/a |\n"
		"| ↳ sda | [warn x](javascript:alert(1)) | · |\n"
		"\n<!-- sonde:id use.disk-utilization -->\n\n### 1. crit: Disk utilization\n"
		"\n<!-- sonde:id use.disk-utilization -->\n### Again\n"
		"\n<!-- sonde:id use.x\" onclick=\"y -->\n### Bad id\n"
		"\n<!-- sonde:id Upper.Case -->\n### Upper\n"
		"\n<!-- sonde:id workload.process-who -->\n\ntext, not a heading\n";
	char *html = render(md);

	ok(html && strstr(html, "<h3 id=\"use.disk-utilization\">1. crit: Disk utilization</h3>"),
	   "a marker gives the next heading its id");
	ok(html && strstr(html, "<td class=\"st-crit\"><a href=\"#use.disk-utilization\">crit "
				"busy_pct sda 99%</a></td>"),
	   "a cell that links keeps its status class, the link is a fragment");
	ok(html && strstr(html, "<td class=\"st-na\">n/a</td>"), "n/a gets st-na");
	ok(html && strstr(html, "<td>·</td>"), "a cell without status gets no class");
	ok(html && !contains_ci(html, "javascript:") && strstr(html, "<td class=\"st-warn\">"),
	   "a script link in a cell is dropped by cmark, the status class stays");
	ok(html && strstr(html, "<h3 id=\"again\">Again</h3>") &&
		   count(html, "id=\"use.disk-utilization\"") == 1,
	   "an id used twice: the second heading keeps its slug");
	ok(html && strstr(html, "<h3 id=\"bad-id\">Bad id</h3>") && !strstr(html, "onclick=\""),
	   "a marker with characters outside [a-z0-9._-] is not an id");
	ok(html && strstr(html, "<h3 id=\"upper\">Upper</h3>"), "uppercase is not an id either");
	ok(html && strstr(html, "<div id=\"workload.process-who\"></div>\n<p>text, not a heading</p>"),
	   "a marker before a paragraph marks its place");
	ok(html && tags_ok(html, 0) && utf8_valid(html), "only allowed tags and attributes");
	free(html);
}

/* A reusable embed (a sparkline) is placed at every marker; a flame graph once. */
static void test_embeds_reusable(void)
{
	static const char md[] = "<!-- sonde:embed 0 -->\n\n<!-- sonde:embed 0 -->\n\n"
				 "<!-- sonde:embed 1 -->\n\n<!-- sonde:embed 1 -->\n";
	const char *const embeds[] = { "<p>SPARK</p>\n", "<p>FLAME</p>\n" };
	const unsigned char reusable[] = { 1, 0 };
	struct html_extras ex = { .embeds = embeds, .nembeds = 2, .reusable = reusable };
	char *html = html__render_page_ex(md, strlen(md), "t", "", &ex);

	ok(html && count(html, "SPARK") == 2 && count(html, "FLAME") == 1 &&
		   strstr(html, "shown above"),
	   "reusable embed placed twice, the other once");
	free(html);
}

int main(void)
{
	test_report();
	test_page();
	test_md_escape();
	test_hostile_escaped();
	test_hostile_raw();
	test_tables();
	test_headings();
	test_large();
	test_sparkline();
	test_anchors();
	test_embeds_reusable();
	return tap_done();
}
