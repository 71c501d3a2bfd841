// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The report layer's renderers: a document (report/doc.h) as Markdown and as
 * HTML, each from the document, and the report model of a run (report.h)
 * through findings.json, report.md, report.html and the terminal.
 *
 * Host strings in every position can only ever become text: in the HTML
 * every tag is from a short allow-list, with no handler attribute and no
 * script URL, and the one script is the flame graph's, allowed by its hash;
 * in the Markdown no table loses a column, and cmark's reading of it shows
 * the literal text (no emphasis, link, HTML, heading or list item created by
 * data). Colours come from statuses, never from the text of a cell.
 */
#include <cmark.h>
#include <ctype.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lua/catalog.h"
#include "perf/fold.h"
#include "report/chart.h"
#include "report/doc.h"
#include "report/escape.h"
#include "report/flamegraph.h"
#include "report/model.h"
#include "report/report.h"
#include "util/file.h"
#include "util/json_read.h"
#include "util/units.h"
#include "tap.h"

static const char *const hostile[] = {
	"<script>alert(1)</script>",
	"*x*",
	"| a | b |",
	"crit",
	"[x](javascript:alert(1))",
	"ctl\x01\x1b[31m\nline\r\n| x |",
	"bad\xff\xfe\xc0\xafname\xed\xa0\x80",
	"<img src=x onerror=alert(1)>",
	"`code|span` and ``",
	"trailing backslash \\",
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
	"warn 99%",
	"\xe2\x80\xa8\xc2\xa0nbsp",
	"\" onmouseover=\"alert(1)",
	"' x='y",
	"use.cpu-saturation\" onclick=\"x",
	"1) one",
	"+ plus",
	"* * *",
	"_ _ _",
	"title #",
	"C# ##",
	"a_b_c snake_case_name",
	"_lead trail_",
	"x](javascript:alert(1))",
	"[a] [b](#c) ]( x",
	"<a",
	"&copy; &#x41;",
	"~~~",
	"```",
	"10.1 s 2026. 50%",
	"]: x",
	"a*b*c",
	"back\\slash\\",
};
#define NHOSTILE (sizeof(hostile) / sizeof(*hostile))

static const char *const allowed_tags[] = {
	"html", "head",  "meta",  "title", "style", "body",	  "main",   "h1",	  "h2",
	"h3",	"h4",	 "h5",	  "h6",	   "p",	    "ul",	  "li",	    "table",	  "thead",
	"tbody", "tr",	 "th",	  "td",	   "code",  "pre",	  "em",	    "strong",	  "a",
	"div",	"figure", "svg",  "path",  "circle", "figcaption", "span", "nav", "details",
	"summary",
};

static const char *const allowed_attrs[] = {
	"lang", "charset", "name", "content", "http-equiv", "id", "class", "style", "href",
	"viewBox", "width", "height", "role", "aria-label", "d", "cx", "cy", "r", "colspan",
};

static int in_list(const char *s, size_t n, const char *const *list, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		if (strlen(list[i]) == n && !memcmp(list[i], s, n))
			return 1;
	return 0;
}

/*
 * Every '<' begins "<!DOCTYPE html>" (at the start) or a tag from
 * allowed_tags whose attributes are all from allowed_attrs, double-quoted,
 * with no '<' inside, and an href that is a fragment of the page.
 */
static int tags_ok(const char *html)
{
	const char *p = html, *name, *val;
	size_t n, vn;

	while ((p = strchr(p, '<'))) {
		if (p == html && !strncmp(p, "<!DOCTYPE html>", 15)) {
			p += 15;
			continue;
		}
		/* the stylesheet is sonde's (core/report/report.css), not markup */
		if (!strncmp(p, "<style>", 7) && strstr(p, "</style>"))
			p = strstr(p, "</style>");
		p++;
		if (*p == '/')
			p++;
		for (name = p; isalnum((unsigned char)*p); p++)
			;
		n = (size_t)(p - name);
		if (!in_list(name, n, allowed_tags, sizeof(allowed_tags) / sizeof(*allowed_tags))) {
			printf("# tag not allowed: <%.*s\n", (int)n + 10, name);
			return 0;
		}
		for (;;) {
			while (*p == ' ')
				p++;
			if (*p == '>' || !strncmp(p, "/>", 2))
				break;
			for (name = p; isalpha((unsigned char)*p) || *p == '-'; p++)
				;
			n = (size_t)(p - name);
			if (!n || !in_list(name, n, allowed_attrs,
					   sizeof(allowed_attrs) / sizeof(*allowed_attrs))) {
				printf("# attribute not allowed: %.20s\n", name);
				return 0;
			}
			if (p[0] != '=' || p[1] != '"') {
				printf("# unquoted attribute value: %.20s\n", name);
				return 0;
			}
			val = p + 2;
			p = strchr(val, '"');
			if (!p)
				return 0;
			vn = (size_t)(p - val);
			p++;
			if (memchr(val, '<', vn) || (n == 4 && !memcmp(name, "href", 4) && *val != '#')) {
				printf("# bad attribute value: %.*s\n", (int)vn, val);
				return 0;
			}
		}
	}
	return 1;
}

static int utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		unsigned char lo = 0x80, hi = 0xbf;
		size_t len;

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
		for (size_t i = 2; i < len; i++)
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

/* What a reader sees of data: controls as spaces, U+FFFD, HTML-escaped; trim: blanks cut. */
static void seen(struct strbuf *sb, const char *s, int trim)
{
	char *esc = md__escape(s, strlen(s));
	struct strbuf plain = { 0 };
	size_t a = 0, b;

	/* md__escape's output minus its backslashes is the sanitized text. */
	strbuf__append(&plain, "", 0);
	for (const char *p = esc; *p; p++) {
		if (*p == '\\')
			p++;
		strbuf__append(&plain, p, 1);
	}
	free(esc);
	b = plain.len;
	if (trim) {
		while (a < b && plain.buf[a] == ' ')
			a++;
		while (b > a && plain.buf[b - 1] == ' ')
			b--;
	}
	sb->len = 0;
	strbuf__append(sb, "", 0);
	html__escape_text(sb, plain.buf + a, b - a);
	strbuf__free(&plain);
}

static char *md_of(struct doc *d)
{
	struct strbuf out = { 0 };

	if (doc__markdown(d, &out)) {
		strbuf__free(&out);
		return NULL;
	}
	return out.buf;
}

static char *html_of(struct doc *d)
{
	struct strbuf out = { 0 };

	if (doc__html(d, &out)) {
		strbuf__free(&out);
		return NULL;
	}
	return out.buf;
}

/* Unescaped '|' on a line: a row of n cells has n + 1. */
static size_t pipes(const char *line, size_t n)
{
	size_t nr = 0;

	for (size_t i = 0; i < n; i++) {
		if (line[i] == '\\' && i + 1 < n) {
			i++;
			continue;
		}
		nr += line[i] == '|';
	}
	return nr;
}

/* Every line of md starting with '|' has want unescaped pipes. */
static int rows_keep_columns(const char *md, size_t want)
{
	for (const char *p = md; *p;) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (n && *p == '|' && pipes(p, n) != want) {
			printf("# row with %zu pipes: %.*s\n", pipes(p, n), (int)n, p);
			return 0;
		}
		p += n + (e != NULL);
	}
	return 1;
}

/* Escaping by position: only what Markdown would read as markup there. */
static void test_md_escape_at(void)
{
	enum { MID, LINE, CELL, LINK, HEAD_END };
	static const struct md_at at[] = {
		[MID] = { .prev = ' ', .next = ' ' },
		[LINE] = { .prev = 0, .next = 0, .line_start = 1 },
		[CELL] = { .prev = ' ', .next = ' ', .cell = 1 },
		[LINK] = { .prev = '[', .next = ']', .link = 1 },
		[HEAD_END] = { .prev = ' ', .next = 0 },
	};
	static const struct {
		int at;
		const char *in, *want;
	} cases[] = {
		/* numbers, identifiers, paths and sentences stay as they are */
		{ MID, "10.1 s", "10.1 s" },
		{ MID, "use.cpu-utilization", "use.cpu-utilization" },
		{ MID, "busy_pct 50.0% (crit): 3.513e+05 bytes/s", "busy_pct 50.0% (crit): 3.513e+05 bytes/s" },
		{ MID, "/process_api/bb6a85f9 0000:00:02.0", "/process_api/bb6a85f9 0000:00:02.0" },
		{ MID, "date +%s%N; mkdir -p -m 700 /tmp/x", "date +%s%N; mkdir -p -m 700 /tmp/x" },
		{ MID, "[kworker/0:1] a < b && c > d ##", "[kworker/0:1] a < b && c > d ##" },
		{ MID, "2 * 3 = 6 and x _ y", "2 * 3 = 6 and x _ y" },
		{ LINE, "10.1 s", "10.1 s" },
		{ LINE, "-1.5 degrees", "-1.5 degrees" },
		{ LINE, "2026 was a year", "2026 was a year" },
		/* emphasis, strikethrough and code can open or close */
		{ MID, "*x*", "\\*x\\*" },
		{ MID, "a*b", "a\\*b" },
		{ MID, "_x_ a_b", "\\_x_ a_b" },
		{ MID, "__do_sys_open x__y", "__do_sys_open x__y" },
		{ MID, "do_syscall_64_[k] a_b_", "do_syscall_64_[k] a_b_" },
		{ MID, "__a b_[k]", "\\_\\_a b_[k]" },
		{ MID, "_lead and trail_", "\\_lead and trail_" },
		{ MID, "~~s~~", "\\~\\~s\\~\\~" },
		{ MID, "`x`", "\\`x\\`" },
		{ MID, "back\\slash", "back\\\\slash" },
		/* links, HTML and entities */
		{ MID, "[x](javascript:alert(1))", "[x\\](javascript:alert(1))" },
		{ MID, "![i](y) [r][s]", "![i\\](y) [r\\][s]" },
		{ LINK, "a]b [c", "a\\]b \\[c" },
		{ MID, "<script> </b> <!-- <?php <http:x>", "\\<script> \\</b> \\<!-- \\<?php \\<http:x>" },
		{ MID, "&lt; &#60; & x", "\\&lt; \\&#60; & x" },
		/* what ends a table cell */
		{ CELL, "a|b", "a\\|b" },
		{ MID, "a|b", "a|b" },
		/* block markers at a line's start */
		{ LINE, "# h", "\\# h" },
		{ LINE, "> q", "\\> q" },
		{ LINE, "- item", "\\- item" },
		{ LINE, "+ item", "\\+ item" },
		{ LINE, "* item", "\\* item" },
		{ LINE, "-", "\\-" },
		{ LINE, "---", "\\---" },
		{ LINE, "- - -", "\\- - -" },
		{ LINE, "_ _ _", "\\_ _ _" },
		{ LINE, "===", "\\===" },
		{ LINE, "1. x", "1\\. x" },
		{ LINE, "12) x", "12\\) x" },
		{ LINE, "3.", "3\\." },
		{ LINE, "[ref]: javascript:x", "\\[ref\\]: javascript:x" },
		{ LINE, "    indented", "indented" },
		{ LINE, "\t\x01# h", "\\# h" },
		{ LINE, "~~~", "\\~\\~\\~" },
		/* a heading's closing sequence */
		{ HEAD_END, "a #", "a \\#" },
		{ HEAD_END, "a ###", "a \\###" },
		{ HEAD_END, "C#", "C#" },
		{ MID, "a # b", "a # b" },
	};
	struct strbuf sb = { 0 };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		sb.len = 0;
		md__escape_at(&sb, cases[i].in, strlen(cases[i].in), &at[cases[i].at]);
		is_str(sb.buf, cases[i].want, "md__escape_at case %zu: %s", i, cases[i].in);
	}
	strbuf__free(&sb);
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
		/* nothing known around: every character that could be markup somewhere */
		{ "*_`[]()#+-.!<>&~\"'={}\\", 22, "\\*\\_\\`\\[\\]()#+-.!<>&\\~\"'={}\\\\" },
		{ "a\nb\rc\td\x01"
		  "e\x7f",
		  10, "a b c d e " },
		{ "nul\0x", 5, "nul x" },
		{ "bad\xff\xc0\xaf", 6, "bad\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
		{ "\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14,
		  "\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80" },
		{ "", 0, "" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = md__escape(cases[i].in, cases[i].len);

		is_str(s, cases[i].want, "md__escape case %zu", i);
		free(s);
	}
	test_md_escape_at();
}

/*
 * report.md as cmark reads it: data in a heading, a paragraph, a check's
 * prose, a list item and a link shows as its literal text, in the block sonde
 * made and no other; in a table row it keeps the row's column count.
 */
static void test_markdown_cmark(void)
{
	struct strbuf want = { 0 }, want0 = { 0 }, find = { 0 };

	for (size_t i = 0; i < NHOSTILE; i++) {
		const char *h = hostile[i];
		struct doc d;
		struct block *t;
		char *md, *html;
		int good = 1;

		doc__init(&d, "t");
		inl__text(doc__heading(&d, 2, NULL), h);
		inl__text(doc__para(&d), h);
		doc__prose(&d, h);
		inl__text(doc__item(&d), h);
		inl__words(doc__para(&d), "see ");
		inl__link(&d.v[d.n - 1]->in, "use.x");
		inl__text(&d.v[d.n - 1]->in, h);
		inl__close(&d.v[d.n - 1]->in);
		/* two of it on one line, between sonde's words: each sees the other */
		inl__words(doc__para(&d), "x ");
		inl__text(&d.v[d.n - 1]->in, h);
		inl__words(&d.v[d.n - 1]->in, " y ");
		inl__text(&d.v[d.n - 1]->in, h);
		inl__words(&d.v[d.n - 1]->in, " z");
		t = doc__table(&d, "lr");
		inl__text(doc__cell(t, CELL_PLAIN), h);
		inl__words(doc__cell(t, CELL_PLAIN), "b");
		inl__text(doc__cell(t, CELL_PLAIN), h);
		inl__text_cut(doc__cell(t, CELL_OK), h, 5);
		md = doc__finish(&d) ? NULL : md_of(&d);
		if (!md) {
			ok(0, "hostile %zu renders as Markdown", i);
			doc__free(&d);
			continue;
		}
		html = cmark_markdown_to_html(md, strlen(md), CMARK_OPT_DEFAULT);
		seen(&want, h, 1);
		seen(&want0, h, 0); /* inside a line, blanks are text */
		find.len = 0;
		strbuf__printf(&find,
			       "<h2>%s</h2>\n<p>%s</p>\n<p>%s</p>\n<ul>\n<li>%s</li>\n</ul>\n"
			       "<p>see <a href=\"#use.x\">%s</a></p>\n<p>x %s y %s z</p>\n",
			       want.buf, want.buf, want.buf, want.buf, want0.buf, want0.buf, want0.buf);
		if (!html || strncmp(html, find.buf, find.len)) {
			printf("# data %zu: cmark reads\n# %s# want\n# %s", i, html ? html : "",
			       find.buf);
			good = 0;
		}
		if (!rows_keep_columns(md, 3))
			good = 0;
		ok(good, "Markdown of data %zu is its literal text to cmark: %.30s", i, want.buf);
		free(html);
		free(md);
		doc__free(&d);
	}
	strbuf__free(&want);
	strbuf__free(&want0);
	strbuf__free(&find);
}

static void test_page(void)
{
	static const char head[] =
		"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
		"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		"style-src 'unsafe-inline'; img-src data:\"><title>";
	struct doc d;
	char *html, *css = NULL;
	const char *style;
	size_t len = 0;

	doc__init(&d, "<b>\"Tom's\" & co</b>");
	inl__words(doc__para(&d), "hi");
	html = doc__finish(&d) ? NULL : html_of(&d);
	ok(html && !strncmp(html, head, strlen(head)), "page head: doctype, charset, viewport, CSP");
	ok(html && strstr(html, "<title>&lt;b&gt;&quot;Tom&#39;s&quot; &amp; co&lt;/b&gt;</title>"),
	   "title escaped");
	/* run from the top of the tree, as make check does */
	ok(html && !file__read_bounded(AT_FDCWD, "core/report/report.css", 1u << 20, &css, &len) &&
		   (style = strstr(html, "<style>\n")) && !strncmp(style + 8, css, len) &&
		   !strncmp(style + 8 + len, "</style></head><body>\n<nav ", 27),
	   "the stylesheet is core/report/report.css, compiled in and inlined as it is");
	free(css);
	ok(html && strstr(html, "<nav class=\"toc\" aria-label=\"Contents\"><ul>\n</ul></nav>\n<main>"),
	   "contents (none: no section), then the page");
	ok(html && strstr(html, "<p>hi</p>\n</main></body></html>\n"), "page tail");
	ok(html && !strstr(html, "<script") && !strstr(html, "script-src"),
	   "no flame graph: no script, and the policy allows none");
	free(html);
	doc__free(&d);

	doc__init(&d, "bad\xff\xc0\xaf\nname\t<");
	html = doc__finish(&d) ? NULL : html_of(&d);
	ok(html && strstr(html, "<title>bad\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd name &lt;</title>"),
	   "title: invalid UTF-8 replaced, controls become spaces");
	ok(html && strstr(html, "<main>\n</main>"), "no blocks: an empty page");
	ok(html && utf8_valid(html), "valid UTF-8");
	free(html);
	doc__free(&d);
}

static void test_blocks(void)
{
	struct doc d;
	struct block *t;
	struct inlines *in;
	char *html, *md;

	doc__init(&d, "t");
	inl__words(doc__heading(&d, 1, NULL), "sonde report: db01");
	inl__words(doc__heading(&d, 2, NULL), "CPU saturation (run queue)");
	inl__words(doc__heading(&d, 2, NULL), "CPU saturation (run queue)");
	inl__words(doc__heading(&d, 2, NULL), "!!!");
	inl__words(doc__heading(&d, 3, "use.cpu-saturation"), "1. crit: CPU");
	inl__words(doc__heading(&d, 3, "use.cpu-saturation"), "Again");
	inl__words(doc__heading(&d, 3, "Upper\" onclick=\"x"), "Bad");
	inl__words(doc__heading(&d, 4, NULL), "Caf\xc3\xa9 100%% and a very long heading that goes "
					      "on and on and on and on and on");
	doc__anchor(&d, "use.disk-errors");
	doc__anchor(&d, "use.disk-errors");
	in = doc__para(&d);
	inl__words(in, "The bottleneck is ");
	inl__open(in, SPAN_STRONG);
	inl__words(in, "CPU");
	inl__close(in);
	inl__words(in, ", see ");
	inl__link(in, "use.cpu-saturation");
	inl__words(in, "there");
	inl__close(in);
	inl__words(in, " and ");
	inl__open(in, SPAN_EM);
	inl__code(in, "a`b\nc");
	inl__close(in);
	t = doc__table(&d, "lr");
	inl__words(doc__cell(t, CELL_PLAIN), "crit");
	inl__words(doc__cell(t, CELL_PLAIN), "value");
	inl__words(doc__cell(t, CELL_PLAIN), "crit");
	inl__words(doc__cell(t, CELL_CRIT), "fine");
	inl__words(doc__cell(t, CELL_NA), "n/a");
	doc__cell(t, CELL_PLAIN);
	t = doc__table(&d, "l");
	inl__words(doc__cell(t, CELL_PLAIN), "empty");
	inl__words(doc__item(&d), "one");
	inl__words(doc__item(&d), "two");
	doc__code(&d, "line <1>\n\tline ~~~ 2");
	html = doc__finish(&d) ? NULL : html_of(&d);
	md = md_of(&d);
	ok(html && md, "a document of every block renders both ways");
	if (!html || !md)
		goto out;
	ok(strstr(html, "<h1 id=\"sonde-report-db01\">sonde report: db01</h1>") &&
		   strstr(html, "<h2 id=\"cpu-saturation-run-queue\">CPU saturation (run queue)</h2>") &&
		   strstr(html, "<h2 id=\"cpu-saturation-run-queue-2\">") &&
		   strstr(html, "<h2 id=\"section\">!!!</h2>"),
	   "headings: a slug of their text, unique, \"section\" when there is none");
	ok(strstr(html, "<h3 id=\"use.cpu-saturation\">1. crit: CPU</h3>") &&
		   strstr(html, "<h3 id=\"again\">Again</h3>") &&
		   count(html, "id=\"use.cpu-saturation\"") == 1,
	   "a check's section has its id once; a second claim gets a slug");
	ok(strstr(html, "<h3 id=\"-pper--onclick--x\">Bad</h3>") && !strstr(html, "onclick=\""),
	   "an anchor keeps [a-z0-9._-] only");
	ok(strstr(html, "<h4 id=\"caf-100-and-a-very-long-heading-that-goes-on-and-on-and-on-and-o\">"),
	   "non-ASCII dropped from a slug, cut at 64 bytes");
	is_int(count(html, "<div id=\"use.disk-errors\"></div>"), 1,
	       "an anchor without a heading marks its place, once");
	ok(strstr(html, "<p>The bottleneck is <strong>CPU</strong>, see <a href=\"#use.cpu-"
			"saturation\">there</a> and <em><code>a`b c</code></em></p>\n"),
	   "inline spans: strong, a link to a section, emphasis, code");
	ok(strstr(md, "The bottleneck is **CPU**, see [there](#use.cpu-saturation) and *`a'b'c`*\n"),
	   "the same in Markdown; a code span cannot be closed or broken from inside");
	ok(strstr(html, "<thead>\n<tr>\n<th>crit</th>\n<th style=\"text-align:right\">value</th>\n"
			"</tr>\n</thead>\n<tbody>\n<tr>\n<td>crit</td>\n<td style=\"text-align:right\" "
			"class=\"st-crit\">fine</td>\n</tr>\n<tr>\n<td class=\"st-na\">n/a</td>\n"
			"<td style=\"text-align:right\"></td>\n</tr>\n</tbody>"),
	   "cells: alignment, and a class from the cell's status only (\"crit\" as text gets none)");
	ok(strstr(md, "| crit | value |\n|---|---:|\n| crit | fine |\n| n/a |  |\n"),
	   "the table in Markdown");
	ok(strstr(html, "<table>\n<thead>\n<tr>\n<th>empty</th>\n</tr>\n</thead>\n</table>\n"),
	   "a table without rows has no tbody");
	ok(strstr(html, "<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n") &&
		   strstr(md, "\n- one\n- two\n"),
	   "consecutive items make one list");
	ok(strstr(html, "<pre><code>line &lt;1&gt;\n\tline ~~~ 2\n</code></pre>\n") &&
		   strstr(md, "~~~~~~~~~~\nline <1>\n\tline --- 2\n~~~~~~~~~~\n"),
	   "a code block keeps its lines; in Markdown no '~' can close its fence");
	ok(!strstr(md, "sonde:") && !strstr(md, "<!--"), "report.md carries no HTML comments");
	ok(strncmp(md, "# sonde report: db01\n\n## CPU", 28) == 0, "blocks are one blank line apart");
	ok(tags_ok(html) && utf8_valid(html), "only allowed tags and attributes, valid UTF-8");
out:
	free(html);
	free(md);
	doc__free(&d);
}

/* Data in every position of a page: text only. */
static void test_html_hostile(void)
{
	struct strbuf want = { 0 }, find = { 0 };
	double v[] = { 1, NAN, 3 };
	struct evidence ev = { .kind = EV_SERIES, .values = v, .nvalues = 3 };

	for (size_t i = 0; i < NHOSTILE; i++) {
		const char *h = hostile[i], *labels[5] = { h, h, h, h, h };
		struct doc d;
		struct block *t;
		struct inlines *in;
		char *html;
		int good = 1;

		ev.title = (char *)h;
		doc__init(&d, h);
		inl__text(doc__heading(&d, 2, NULL), h);
		in = doc__para(&d);
		inl__text(in, h);
		inl__open(in, SPAN_STRONG);
		inl__text(in, h);
		inl__close(in);
		inl__link(in, h);
		inl__text(in, h);
		inl__close(in);
		inl__code(in, h);
		doc__prose(&d, h);
		inl__text(doc__item(&d), h);
		t = doc__table(&d, "lr");
		inl__text(doc__cell(t, CELL_PLAIN), h);
		inl__text(doc__cell(t, CELL_PLAIN), h);
		inl__text(doc__cell(t, CELL_PLAIN), h);
		inl__text(doc__cell(t, CELL_WARN), h);
		doc__code(&d, h);
		inl__text(doc__series(&d, &ev, labels, 0, 1), h);
		doc__anchor(&d, h);
		html = doc__finish(&d) ? NULL : html_of(&d);
		if (!html) {
			ok(0, "hostile %zu renders", i);
			doc__free(&d);
			continue;
		}
		if (!tags_ok(html) || strstr(html, "<script") || strstr(html, "<img") ||
		    !utf8_valid(html))
			good = 0;
		seen(&want, h, 0);
		find.len = 0;
		strbuf__printf(&find, "<th>%s</th>\n<th style=\"text-align:right\">%s</th>\n</tr>\n"
				      "</thead>\n<tbody>\n<tr>\n<td>%s</td>\n"
				      "<td style=\"text-align:right\" class=\"st-warn\">%s</td>",
			       want.buf, want.buf, want.buf, want.buf);
		if (!strstr(html, find.buf)) {
			printf("# data %zu: cells not found: %s\n", i, find.buf);
			good = 0;
		}
		find.len = 0;
		strbuf__printf(&find, "<li>%s</li>", want.buf);
		if (!strstr(html, find.buf))
			good = 0;
		if (count(html, "<table>") != 1 || count(html, "<tr>") != 2 || count(html, "<h2") != 1 ||
		    count(html, "<li>") != 2 || count(html, "<figure class=\"spark\">") != 1) {
			printf("# data %zu: the page's shape changed\n", i);
			good = 0;
		}
		ok(good, "data %zu in every position of a page stays text: %.30s", i, want.buf);
		free(html);
		doc__free(&d);
	}
	strbuf__free(&want);
	strbuf__free(&find);
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

	chart__sparkline(&sb, "CPU busy %", v, 5, &l);
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

	chart__sparkline(&sb, "t", inf, 3, NULL);
	ok(!sb.oom && strstr(sb.buf, "<path d=\"M80.0 16.0 h0\"/>") && !strstr(sb.buf, "inf") &&
		   !strstr(sb.buf, "nan"),
	   "infinite values are skipped too; a flat series is drawn at mid-height");
	strbuf__free(&sb);

	chart__sparkline(&sb, "one", one, 1, &l);
	ok(!sb.oom && strstr(sb.buf, "<path d=\"M80.0 16.0 h0\"/>"), "one value: a dot in the middle");
	strbuf__free(&sb);

	chart__sparkline(&sb, "empty", NULL, 0, &l);
	ok(!sb.oom && !strstr(sb.buf, "<path") && !strstr(sb.buf, "<circle") &&
		   strstr(sb.buf, "no values") && !strstr(sb.buf, "spark-min"),
	   "empty series: the figure says so, no line, no labels");
	strbuf__free(&sb);

	chart__sparkline(&sb, "nulls", nan2, 2, &l);
	ok(!sb.oom && !strstr(sb.buf, "<path") && strstr(sb.buf, "no values"),
	   "a series of nulls only: no line");
	strbuf__free(&sb);

	{
		const double full[] = { 100, 100, 100 }, zero[] = { 0, 0 };
		const struct spark_labels ax = { .min = "100%", .max = "100%", .last = "100%",
						 .axis_lo = "0%", .axis_hi = "100%", .lo = 0,
						 .hi = 100 };
		const struct spark_labels az = { .min = "0%", .max = "0%", .last = "0%",
						 .axis_lo = "0%", .axis_hi = "1%", .lo = 0, .hi = 1 };

		chart__sparkline(&sb, "busy", full, 3, &ax);
		ok(!sb.oom && strstr(sb.buf, "<path d=\"M2.0 2.0 L80.0 2.0 L158.0 2.0\"/>") &&
			   strstr(sb.buf, "<span class=\"spark-axis\"><span>100%</span><span>0%</span>") &&
			   strstr(sb.buf, "constant 100%") && !strstr(sb.buf, "spark-max"),
		   "a constant 100%% on a 0-100%% axis: a flat line at the top, the axis labelled, "
		   "the value printed");
		strbuf__free(&sb);
		chart__sparkline(&sb, "idle", zero, 2, &az);
		ok(!sb.oom && strstr(sb.buf, "<path d=\"M2.0 30.0 L158.0 30.0\"/>") &&
			   strstr(sb.buf, "constant 0%"),
		   "a constant 0: a flat line at the bottom");
		strbuf__free(&sb);
	}

	chart__sparkline(&sb, "<script>alert(1)</script>\"'&", v, 5, &evil);
	ok(!sb.oom && !strstr(sb.buf, "<script") && !strstr(sb.buf, "<b>") &&
		   !strstr(sb.buf, "\"onload") &&
		   strstr(sb.buf, "aria-label=\"&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;\"") &&
		   strstr(sb.buf, "<title>&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;</title>") &&
		   strstr(sb.buf, "min &lt;b&gt;") && strstr(sb.buf, "max &quot;onload=x") &&
		   strstr(sb.buf, "last &amp;"),
	   "a hostile title and labels are escaped in the attribute, the title and the caption");
	strbuf__free(&sb);
}

/* ---- the report model of a run ---- */

static char *dup(const char *s)
{
	return s ? strdup(s) : NULL;
}

static void add_metric(struct check_result *r, const char *name, const char *inst, double v,
		       double warn, double crit)
{
	struct metric *m;

	r->metrics = realloc(r->metrics, (r->nmetrics + 1) * sizeof(*m));
	m = &r->metrics[r->nmetrics++];
	*m = (struct metric){ .name = dup(name), .instance = dup(inst), .unit = dup("%"),
			      .value = v, .has_warn = 1, .warn = warn, .has_crit = 1,
			      .crit = crit };
	m->st = v >= crit ? ST_CRIT : v >= warn ? ST_WARN : ST_OK;
}

static struct evidence *add_evidence(struct check_result *r, enum evidence_kind kind,
				     const char *title)
{
	struct evidence *e;

	r->evidence = realloc(r->evidence, (r->nevidence + 1) * sizeof(*e));
	e = &r->evidence[r->nevidence++];
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->title = dup(title);
	return e;
}

/* A check whose every string is hostile[i], with a culprit named "crit". */
static void hostile_result(struct check_result *r, const struct check_def *def, size_t i)
{
	const char *h = hostile[i % NHOSTILE];
	struct evidence *e;

	memset(r, 0, sizeof(*r));
	r->def = def;
	add_metric(r, h, h, 95, 50, 90);
	add_metric(r, "crit", NULL, 1, 50, 90);
	r->st = ST_CRIT;
	r->culprits = calloc(2, sizeof(*r->culprits));
	r->culprits[0] = (struct culprit){ .pid = 4, .comm = dup("crit"), .share = 0.5,
					   .cmdline = dup(h) };
	r->culprits[1] = (struct culprit){ .pid = 5, .comm = dup(h), .share = 0.25 };
	r->nculprits = 2;
	r->unknowns = calloc(1, sizeof(*r->unknowns));
	r->unknowns[0] = (struct unknown_metric){ .name = dup(h), .reason = dup(h) };
	r->nunknowns = 1;
	r->summary = dup(h);
	if (strv__push(&r->next, h))
		abort();
	add_evidence(r, EV_NOTE, h);
	e = add_evidence(r, EV_TABLE, h);
	if (strv__push(&e->columns, h) || strv__push(&e->columns, "status"))
		abort();
	e->rows = calloc(1, sizeof(*e->rows));
	e->rows[0] = calloc(2, sizeof(char *));
	e->rows[0][0] = dup(h);
	e->rows[0][1] = dup("crit");
	e->nrows = 1;
	e = add_evidence(r, EV_SERIES, h);
	e->values = calloc(3, sizeof(double));
	e->values[0] = 1;
	e->values[1] = NAN;
	e->values[2] = 3;
	e->nvalues = 3;
	e->step_s = 1;
}

static struct analysis an;

/* Cut every <figure class="fg">...</figure> and the <script> element out of page. */
static void cut_flamegraph(char *page)
{
	static const char *const open[] = { "<figure class=\"fg\">", "<script>" };
	static const char *const close[] = { "</figure>", "</script>" };

	for (int k = 0; k < 2; k++) {
		char *a, *b;

		while ((a = strstr(page, open[k])) && (b = strstr(a, close[k])))
			memmove(a, b + strlen(close[k]), strlen(b + strlen(close[k])) + 1);
	}
}

static void check_model_outputs(struct report_model *m, const struct run_report *rr)
{
	struct strbuf js = { 0 }, md = { 0 }, html = { 0 };
	struct jval *doc = NULL;
	char err[256], *tty = NULL;
	size_t ttylen = 0;
	FILE *f;

	ok(!report__json(m, &js) && !report__markdown(m, &md) && !report__html(m, &html),
	   "the model renders as findings.json, report.md and report.html");
	if (js.oom || md.oom || html.oom || !html.buf || !md.buf || !js.buf)
		goto out;
	ok(!json_read(js.buf, js.len, &json_read_default_limits, &doc, err, sizeof(err)) &&
		   !strcmp(jval__str(doc, "worst"), "crit"),
	   "findings.json parses, with its worst severity");
	ok(strstr(html.buf, "<h3 id=\"use.cpu-saturation\">1. crit: ") &&
		   strstr(html.buf, "<h2 id=\"verdict\">Verdict</h2>") &&
		   strstr(html.buf, "<h2 id=\"use-matrix\">USE matrix</h2>") &&
		   strstr(html.buf, "<h4 id=\"workload.process-who\">") &&
		   strstr(html.buf, "<div id=\"use.disk-errors\"></div>"),
	   "sections: headings with the expected ids; a failed check's place is marked");
	ok(strstr(html.buf, "<td class=\"st-crit\"><a href=\"#use.cpu-saturation\">crit "),
	   "a matrix cell links to the check that decided it, coloured by its status");
	ok(strstr(html.buf, "<td style=\"text-align:right\">4</td>\n<td>crit</td>"),
	   "a process named crit gets no class");
	ok(strstr(html.buf, "<td>crit</td>\n<td style=\"text-align:right\">1%</td>") &&
		   strstr(html.buf, "<td class=\"st-ok\">ok</td>") &&
		   strstr(html.buf, "<td class=\"st-crit\">crit</td>"),
	   "a metric named crit gets none either; status cells get their status's class");
	ok(strstr(html.buf, "<td>runqlat</td>\n<td class=\"st-ok\">ok</td>") &&
		   strstr(html.buf, "<td>biolatency</td>\n<td>crit</td>") &&
		   strstr(html.buf, "<td>crit</td>\n</tr>"),
	   "the tools table colours its status field's ok only; a table a check wrote, nothing");
	ok(count(html.buf, "<figure class=\"spark\">") >= 1 && strstr(html.buf, "<path d=\"M2.0 "),
	   "a series draws its sparkline");
	is_int(count(html.buf, "<script"), 1, "exactly one script: the flame graph's");
	ok(strstr(html.buf, "script-src 'sha256-"), "allowed by its hash");
	ok(!strstr(md.buf, "<!--"), "report.md holds no HTML comment");
	ok(strstr(md.buf, "| 4 | crit | 50.0% |"), "the culprit in report.md, its share as written");
	cut_flamegraph(html.buf);
	ok(tags_ok(html.buf) && utf8_valid(html.buf),
	   "report.html: only allowed tags and attributes outside the flame graph, valid UTF-8");
	ok(!strstr(html.buf, "<script") && !strstr(html.buf, "<img"),
	   "no data became an element");
	f = open_memstream(&tty, &ttylen);
	if (f) {
		report__terminal(m, f, 0);
		fclose(f);
	}
	ok(tty && ttylen && strstr(tty, "Verdict: The bottleneck is cpu saturation (crit)") &&
		   !strchr(tty, '\x1b') && !strchr(tty, '\r'),
	   "terminal: the verdict, no escape sequence from data");
	ok(tty && strstr(tty, "\n5 checks, 1 failed (see the report's appendix); 5 known unknowns (") &&
		   strstr(tty, "\n    1 need tracefs: mount tracefs at /sys/kernel/tracing") &&
		   strstr(tty, "\n    1 need privileges: run as root") &&
		   strstr(tty, "\n    1 need ptrace rights: keep CAP_SYS_PTRACE") &&
		   strstr(tty, "\n    2 other: see \"Known unknowns\" in report.md"),
	   "terminal: one line per kind of unknown, with how to get it; root refused /proc/PID/io "
	   "is not told to run as root");
	(void)rr;
out:
	free(tty);
	jval__free(doc);
	strbuf__free(&js);
	strbuf__free(&md);
	strbuf__free(&html);
}

static void test_model(void)
{
	static const char *const ids[] = { "use.cpu-saturation", "use.cpu-utilization",
					   "workload.process-who", "use.disk-errors",
					   "workload.cpu-why" };
	struct catalog cat;
	struct check_result res[5];
	struct tool_summary tools[2] = { { .name = "runqlat", .status = "ok", .attach = "tp_btf",
					  .cost_source = "kernel" },
					 { .name = "biolatency", .status = "crit",
					   .reason = "crit" } };
	struct run_report rr = { 0 };
	struct report_model *m = NULL;
	struct fold *f;
	struct evidence *e;
	char err[512];

	if (catalog__load(&cat, NULL, err, sizeof(err))) {
		ok(0, "the embedded catalog loads: %s", err);
		return;
	}
	for (size_t i = 0; i < 5; i++)
		hostile_result(&res[i], catalog__check(&cat, ids[i]), i * 7);
	res[1].st = ST_OK;
	res[1].metrics[0].st = ST_OK;
	res[2].st = ST_OK;
	res[3].st = ST_ERROR;
	res[3].error = dup("boom <b>");
	res[3].traceback = dup("stack traceback:\n\t[C]: in ~~~ <x>");
	res[4].st = ST_OK;
	/* unknowns of known kinds, for the terminal's lines of how to get them */
	free(res[1].unknowns[0].reason);
	res[1].unknowns[0].reason = dup("tracefs is not mounted (a classic tracepoint needs it)");
	free(res[2].unknowns[0].reason);
	res[2].unknowns[0].reason = dup("permission denied (BPF needs root, or CAP_BPF)");
	/* root already: what workload.process-who says of a /proc/PID/io the kernel refused */
	free(res[4].unknowns[0].reason);
	res[4].unknowns[0].reason = dup("/proc/PID/io was refused for 2 of 3 processes although "
					"sonde ran as root: the kernel shows it only to who may "
					"ptrace the process, and sonde may not ptrace these");
	e = add_evidence(&res[4], EV_FLAMEGRAPH, "profile");
	f = fold__new();
	fold__text(f, "a;b 3\na;<c> 2\n", 14, err, sizeof(err));
	fold__finish(f, &e->fg);
	fold__free(f);

	snprintf(an.hostname, sizeof(an.hostname), "db<1>");
	snprintf(an.kernel, sizeof(an.kernel), "6.1 *x*");
	an.elapsed_s = 10;
	an.samples = 10;
	an.interval_s = 1;
	an.bpf_loaded = 1;
	an.tools = tools;
	an.ntools = 2;
	rr.cat = &cat;
	rr.an = &an;
	rr.res = res;
	rr.nres = 5;
	rr.command = "sonde run `x` \x1b[31m";
	ok(!report__rank(&rr) && rr.nrank == 1, "one finding ranked");
	ok(!report__build(&rr, &m) && m, "the model builds");
	if (m)
		check_model_outputs(m, &rr);
	report__free(m);
	free(rr.rank);
	for (size_t i = 0; i < 5; i++)
		check_result__free(&res[i]);
	catalog__free(&cat);
}

/*
 * The verdict's exhaustion rule (ranking/verdict.lua, issue 11): among findings of one
 * severity, a resource running out ranks before one merely busy, the soonest first; a
 * worse severity still ranks first.
 */
static void test_exhaustion_rank(void)
{
	static const char *const ids[] = { "use.cpu-saturation", "use.fd-runout",
					   "use.filesystem-runout", "use.memory-runout",
					   "use.disk-saturation" };
	/* value, status of the one metric each result has */
	static const struct { const char *metric; double v; enum status st; } m[] = {
		{ "psi_some_pct", 80, ST_CRIT }, { "time_left_s", 300, ST_CRIT },
		{ "time_left_s", 30, ST_CRIT },  { "time_left_s", 3600, ST_WARN },
		{ "psi_some_pct", 20, ST_WARN },
	};
	struct catalog cat;
	struct check_result res[5];
	struct run_report rr = { 0 };
	struct analysis a = { 0 };
	char err[512];

	if (catalog__load(&cat, NULL, err, sizeof(err))) {
		ok(0, "the embedded catalog loads: %s", err);
		return;
	}
	for (size_t i = 0; i < 5; i++) {
		memset(&res[i], 0, sizeof(res[i]));
		res[i].def = catalog__check(&cat, ids[i]);
		add_metric(&res[i], m[i].metric, "x", m[i].v, 0, 0);
		res[i].metrics[0].st = m[i].st;
		res[i].st = m[i].st;
	}
	rr.cat = &cat;
	rr.an = &a;
	rr.res = res;
	rr.nres = 5;
	ok(!report__rank(&rr) && rr.nrank == 5, "five findings ranked");
	if (rr.nrank == 5) {
		ok(rr.rank[0] == 2 && rr.rank[1] == 1,
		   "crit: /srv full in 30 s, then fds out in 300 s (got %zu, %zu)", rr.rank[0],
		   rr.rank[1]);
		ok(rr.rank[2] == 0, "then the merely busy CPU, crit (got %zu)", rr.rank[2]);
		ok(rr.rank[3] == 3 && rr.rank[4] == 4,
		   "warn: memory out in an hour before a busy disk (got %zu, %zu)", rr.rank[3],
		   rr.rank[4]);
		ok(report__time_left(&rr, &res[2]) == 30 && report__time_left(&rr, &res[0]) < 0,
		   "time left: the exhaustion metric at warn or crit, none for a busy resource");
	}
	free(rr.rank);
	for (size_t i = 0; i < 5; i++)
		check_result__free(&res[i]);
	catalog__free(&cat);
}

/*
 * Evidence of a tool that traced part of the window (a duty cycle, the overhead guard, the
 * drill-down) says so under its title, in report.md and report.html, and the span survives
 * the pipe from the check's child; one that traced the whole window says nothing.
 */
static void test_span(void)
{
	static const struct { struct evidence_span sp; const char *want; } c[] = {
		{ { 1, 0, -0.006, 1.039, 3.004 },
		  "traced 1.0 s of the 3.0 s window (0.0 to 1.0 s)" },
		{ { 1, 0, -0.02, 3.1, 3.0 }, NULL }, /* attached before, read after: all of it */
		{ { 1, 0, 0.9, 2.0, 10.0 }, "traced 1.1 s of the 10.0 s window (0.9 to 2.0 s)" },
		{ { 1, 1, -7.4, 0.113, 2.0 },
		  "traced 0.1 s of the 2.0 s drill-down window (0.0 to 0.1 s)" },
		{ { 1, 1, -0.002, 2.1, 2.04 },
		  "traced 2.0 s, in the drill-down window after the first" },
		{ { 0, 0, 0, 1, 3 }, NULL },	   /* no span given */
		{ { 1, 0, 0, NAN, 3 }, NULL },	   /* not a number: nothing said */
	};
	struct check_result r = { 0 }, back = { 0 };
	struct strbuf sb = { 0 };
	struct evidence *e;
	struct doc d;
	char buf[160], *md, *html;

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		int said = report__span_text(&c[i].sp, buf, sizeof(buf));

		if (c[i].want)
			ok(said && !strcmp(buf, c[i].want), "span %zu: \"%s\" (got \"%s\")", i,
			   c[i].want, said ? buf : "");
		else
			ok(!said, "span %zu: nothing to say", i);
	}

	e = add_evidence(&r, EV_TABLE, "Processes waiting on futexes (futexctn)");
	e->span = c[0].sp;
	if (strv__push(&e->columns, "pid"))
		abort();
	e = add_evidence(&r, EV_HEATMAP, "Latency over the window");
	e->span = c[0].sp;
	e->unit = dup("us");
	e->step_s = 1;
	e->hm_rows = 2;
	e->values = calloc(6, sizeof(double));
	e->nvalues = 6;
	e->values[1] = 5;
	e = add_evidence(&r, EV_TABLE, "The whole window");
	e->span = c[1].sp;
	if (strv__push(&e->columns, "pid"))
		abort();
	check_result__encode(&r, &sb);
	is_int(sb.oom ? -1 : check_result__decode(&back, sb.buf, sb.len), 0, "spans decode");
	ok(back.nevidence == 3 && back.evidence[0].span.set && !back.evidence[0].span.drilldown &&
		   back.evidence[0].span.to_s == 1.039 && back.evidence[0].span.window_s == 3.004,
	   "the span crosses the pipe from the check's child");
	doc__init(&d, "t");
	report__doc_evidence(&d, &back);
	md = md_of(&d);
	html = html_of(&d);
	ok(md && strstr(md, "**Processes waiting on futexes (futexctn)**\n\n*traced 1.0 s of the "
			    "3.0 s window (0.0 to 1.0 s)*\n\n| pid |"),
	   "report.md: the table's span on the line under its title");
	ok(md && strstr(md, "**Latency over the window**\n\n*traced 1.0 s of the 3.0 s window"),
	   "report.md: the heat map's too");
	ok(md && count(md, "traced") == 2, "the table of the whole window says nothing");
	ok(html && count(html, "<em>traced 1.0 s of the 3.0 s window (0.0 to 1.0 s)</em>") == 2,
	   "report.html: both, in emphasis");
	free(md);
	free(html);
	doc__free(&d);
	strbuf__free(&sb);
	check_result__free(&r);
	check_result__free(&back);
}

/* one of a counted noun is singular, whatever its case; symbols and rates are not nouns */
static void test_fmt_value(void)
{
	static const struct { double v; const char *unit, *want; } c[] = {
		{ 1, "CPUs", "1 CPU" },	      { 2, "CPUs", "2 CPUs" },
		{ 1, "threads", "1 thread" }, { 1, "s", "1 s" },
		{ 1, "packets/s", "1 packets/s" }, { 1, "bytes", "1 B" },
		{ 1, "IOPS", "1 IOPS" },	      { 1, "ms", "1 ms" },
	};
	char buf[64];

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		units__value(buf, sizeof(buf), c[i].v, c[i].unit);
		ok(!strcmp(buf, c[i].want), "units__value %g %s: \"%s\" (got \"%s\")", c[i].v,
		   c[i].unit, c[i].want, buf);
	}
}

int main(void)
{
	test_fmt_value();
	test_md_escape();
	test_markdown_cmark();
	test_page();
	test_blocks();
	test_html_hostile();
	test_sparkline();
	test_model();
	test_exhaustion_rank();
	test_span();
	return tap_done();
}
