// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * report.md -> report.html.
 *
 * Safety rests on cmark's safe mode (the default since cmark 0.29): raw HTML
 * becomes "<!-- raw HTML omitted -->" and javascript:, vbscript:, file: and
 * most data: URLs become empty. Everything this file writes itself (heading
 * ids, table markup, the title, fallbacks) is either a fixed string, ASCII
 * [a-z0-9-], or HTML-escaped here, so data reaching the report can only ever
 * become text. Data should still enter the Markdown through md__escape, so
 * that a process called "*x*" is not shown as emphasis.
 *
 * Tables. Plain CommonMark has no tables, so a top-level paragraph whose
 * source lines hold a GitHub-style pipe table (a header row starting with
 * '|', a delimiter row such as |---|:--:|---:|, body rows starting with '|')
 * is rendered here. Cells split on '|' unless it is backslash-escaped or
 * inside a backtick code span; each cell is then rendered by cmark as inline
 * content. A body row with too few cells is padded, extra cells are dropped,
 * as GFM does. The first line after the table that does not start with '|'
 * ends it (GFM would keep it as a row; our writers always lead with '|').
 *
 * Status cells. Safe-mode Markdown cannot carry classes, so the table
 * renderer adds them: a body cell whose plain text is a status word, alone or
 * followed by more text after a space or punctuation ("warn", "crit 98%",
 * "error: EACCES"), gets class="st-<word>". The words are those of the output
 * contract: ok, warn, crit, unknown, error, skip (lowercase, as written by
 * the report), and "n/a" (class st-na: a USE cell that does not apply).
 * reports/report.css colours .st-ok ... .st-na. A cell whose content is a
 * link ("[warn 93%](#use.disk-utilization)") is classed by its text alike.
 *
 * Headings get id="slug" (lowercase ASCII letters, digits and '-', made
 * unique with -2, -3, ...), so a report can link to [cpu](#cpu-saturation).
 * A stable id: an HTML block "<!-- sonde:id ID -->" (ID of [a-z0-9._-], at
 * most SLUG_MAX bytes) gives the next heading that id instead of its slug
 * (report.c marks each check's section with its check id, which has a '.'
 * that no slug has, so the two never collide); a second use of an id is
 * dropped. Links report.c writes are fragments ("#" + such an id) only.
 */
#include <cmark.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/html.h"
#include "util/json.h"
#include "util/sha256.h"

/* Heading ids longer than this are cut; they only need to be distinct. */
#define SLUG_MAX 64

/*
 * Every cell is parsed behind a NO-BREAK SPACE. cmark counts it as Unicode
 * whitespace for emphasis flanking (so "*x*" and "_x_" still open at the
 * start of the cell) but not as indentation, so no cell text can start a
 * block: "- 5%", "# of tasks", "1. x" or "> 90%" stay a paragraph of inline
 * content, which is what a GFM cell is.
 */
#define CELL_LEAD "\xc2\xa0"
#define CELL_LEAD_LEN 2

struct html_render {
	struct strbuf *out;
	const struct html_extras *ex;
	unsigned char *embedded; /* ex->embeds[i] already placed once */
	char **slugs;
	size_t nr_slugs, slugs_cap;
	char pending_id[SLUG_MAX + 1]; /* from "<!-- sonde:id ID -->", for the next heading */
	int failed; /* an allocation failed somewhere; the page is dropped */
};

/* Line table of one Markdown source, for slicing paragraphs by line number. */
struct src_lines {
	const char *md;
	size_t *start; /* start[i]: offset of line i (0-based) */
	size_t *end;   /* end[i]: offset just before line i's line ending */
	size_t nr;
};


static int is_ascii_punct(unsigned char c)
{
	return (c >= 0x21 && c <= 0x2f) || (c >= 0x3a && c <= 0x40) ||
	       (c >= 0x5b && c <= 0x60) || (c >= 0x7b && c <= 0x7e);
}

static int is_ascii_alnum(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static void trim(const char **s, size_t *n)
{
	while (*n && is_blank(**s)) {
		(*s)++;
		(*n)--;
	}
	while (*n && is_blank((*s)[*n - 1]))
		(*n)--;
}

/*
 * HTML-escape text for element content and attribute values alike; controls
 * become spaces and invalid UTF-8 becomes U+FFFD, so the page stays valid.
 */
static void html_escape(struct strbuf *sb, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, len;

	while (i < n) {
		unsigned char c = p[i];

		switch (c) {
		case '&': strbuf__puts(sb, "&amp;"); break;
		case '<': strbuf__puts(sb, "&lt;"); break;
		case '>': strbuf__puts(sb, "&gt;"); break;
		case '"': strbuf__puts(sb, "&quot;"); break;
		case '\'': strbuf__puts(sb, "&#39;"); break;
		default:
			if (c < 0x20 || c == 0x7f) {
				strbuf__append(sb, " ", 1);
			} else if (c >= 0x80) {
				len = utf8__seq_len(p + i, n - i);
				if (!len) {
					strbuf__append(sb, "\xef\xbf\xbd", 3);
				} else {
					strbuf__append(sb, s + i, len);
					i += len - 1;
				}
			} else {
				strbuf__append(sb, s + i, 1);
			}
			break;
		}
		i++;
	}
}

char *md__escape(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	struct strbuf out = { 0 };
	size_t i = 0, len;

	strbuf__append(&out, "", 0);
	while (i < n) {
		unsigned char c = p[i];

		if (c < 0x20 || c == 0x7f) {
			/* A newline would end a table row or start a block. */
			strbuf__append(&out, " ", 1);
			i++;
		} else if (c < 0x80) {
			/*
			 * CommonMark lets any ASCII punctuation be escaped, so
			 * escaping all of it covers every construct (and '|' for
			 * our table splitter) without a list to keep in sync.
			 */
			if (is_ascii_punct(c))
				strbuf__append(&out, "\\", 1);
			strbuf__append(&out, s + i, 1);
			i++;
		} else {
			len = utf8__seq_len(p + i, n - i);
			if (!len) {
				strbuf__append(&out, "\xef\xbf\xbd", 3);
				i++;
			} else {
				strbuf__append(&out, s + i, len);
				i += len;
			}
		}
	}
	if (out.oom) {
		strbuf__free(&out);
		return NULL;
	}
	return out.buf;
}

/* cmark ends lines at "\n", "\r\n" and a lone "\r"; so must our numbering. */
static int src_lines__init(struct src_lines *l, const char *md, size_t n)
{
	size_t i, nr = 1, k = 0;

	memset(l, 0, sizeof(*l));
	for (i = 0; i < n; i++)
		if (md[i] == '\n' || (md[i] == '\r' && (i + 1 == n || md[i + 1] != '\n')))
			nr++;
	l->start = malloc(nr * sizeof(*l->start));
	l->end = malloc(nr * sizeof(*l->end));
	if (!l->start || !l->end) {
		free(l->start);
		free(l->end);
		return -1;
	}
	l->md = md;
	l->start[0] = 0;
	for (i = 0; i < n; i++) {
		if (md[i] == '\r' && i + 1 < n && md[i + 1] == '\n')
			continue;
		if (md[i] != '\n' && md[i] != '\r')
			continue;
		l->end[k] = (i && md[i] == '\n' && md[i - 1] == '\r') ? i - 1 : i;
		l->start[++k] = i + 1;
	}
	l->end[k] = n;
	l->nr = k + 1;
	return 0;
}

static void src_lines__free(struct src_lines *l)
{
	free(l->start);
	free(l->end);
}

/* Line i with surrounding blanks removed. */
static void src_lines__get(const struct src_lines *l, size_t i, const char **s, size_t *n)
{
	*s = l->md + l->start[i];
	*n = l->end[i] - l->start[i];
	trim(s, n);
}

/*
 * A backtick run at s[i] opens a code span only if a run of the same length
 * closes it; returns the index after the span, or after the run if the
 * backticks are literal.
 */
static size_t skip_code_span(const char *s, size_t n, size_t i)
{
	size_t open = i, k, j, run;

	while (i < n && s[i] == '`')
		i++;
	k = i - open;
	for (j = i; j < n;) {
		if (s[j] != '`') {
			j++;
			continue;
		}
		run = j;
		while (j < n && s[j] == '`')
			j++;
		if (j - run == k)
			return j;
	}
	return i;
}

struct row_iter {
	const char *s;
	size_t n, pos;
};

/* s, n: a trimmed row; a leading '|' is optional, a trailing one closes. */
static void row_iter__init(struct row_iter *it, const char *s, size_t n)
{
	it->s = s;
	it->n = n;
	it->pos = (n && s[0] == '|') ? 1 : 0;
}

/*
 * Next cell, untrimmed. A row ending in '|' leaves pos == n after its last
 * cell, so the empty text after the closing pipe is not a cell.
 */
static int row_iter__next(struct row_iter *it, const char **cell, size_t *len)
{
	const char *s = it->s;
	size_t i = it->pos;

	if (it->pos >= it->n)
		return 0;
	while (i < it->n) {
		if (s[i] == '\\' && i + 1 < it->n) {
			i += 2;
		} else if (s[i] == '`') {
			i = skip_code_span(s, it->n, i);
		} else if (s[i] == '|') {
			break;
		} else {
			i++;
		}
	}
	*cell = s + it->pos;
	*len = i - it->pos;
	it->pos = i + 1;
	return 1;
}

static size_t row_count_cells(const char *s, size_t n)
{
	struct row_iter it;
	const char *c;
	size_t len, nr = 0;

	row_iter__init(&it, s, n);
	while (row_iter__next(&it, &c, &len))
		nr++;
	return nr;
}

enum align { ALIGN_NONE, ALIGN_LEFT, ALIGN_CENTER, ALIGN_RIGHT };

/* Every cell :?-+:? and at least one '|', as GFM requires. Returns cells. */
static size_t parse_delimiter_row(const char *s, size_t n, enum align *align, size_t max)
{
	struct row_iter it;
	const char *c;
	size_t len, nr = 0, i;
	int left, right;

	if (!memchr(s, '|', n))
		return 0;
	row_iter__init(&it, s, n);
	while (row_iter__next(&it, &c, &len)) {
		trim(&c, &len);
		left = len && c[0] == ':';
		right = len > (size_t)left && c[len - 1] == ':';
		if (len <= (size_t)(left + right))
			return 0;
		for (i = left; i < len - right; i++)
			if (c[i] != '-')
				return 0;
		if (align && nr < max) {
			if (left && right)
				align[nr] = ALIGN_CENTER;
			else if (right)
				align[nr] = ALIGN_RIGHT;
			else if (left)
				align[nr] = ALIGN_LEFT;
			else
				align[nr] = ALIGN_NONE;
		}
		nr++;
	}
	return nr;
}

static int is_row_line(const struct src_lines *l, size_t i)
{
	const char *s;
	size_t n;

	src_lines__get(l, i, &s, &n);
	return n && s[0] == '|';
}

/* Lines i and i+1 open a table: returns its column count, else 0. */
static size_t table_starts_at(const struct src_lines *l, size_t i)
{
	const char *s;
	size_t n, cols;

	if (!is_row_line(l, i))
		return 0;
	src_lines__get(l, i, &s, &n);
	cols = row_count_cells(s, n);
	if (!cols)
		return 0;
	src_lines__get(l, i + 1, &s, &n);
	if (parse_delimiter_row(s, n, NULL, 0) != cols)
		return 0;
	return cols;
}

static const char *const status_words[] = { "ok", "warn", "crit", "unknown", "error", "skip",
					     "n/a" };

/* "st-warn" for "warn 93%", NULL when the cell does not start with a status. */
static const char *status_class(const char *s, size_t n)
{
	static const char *const classes[] = {
		"st-ok", "st-warn", "st-crit", "st-unknown", "st-error", "st-skip", "st-na",
	};
	size_t i, w;
	unsigned char next;

	/* Plain text still starts with CELL_LEAD and maybe other blanks. */
	for (;;) {
		if (n >= CELL_LEAD_LEN && !memcmp(s, CELL_LEAD, CELL_LEAD_LEN)) {
			s += CELL_LEAD_LEN;
			n -= CELL_LEAD_LEN;
		} else if (n && is_blank(*s)) {
			s++;
			n--;
		} else {
			break;
		}
	}
	for (i = 0; i < sizeof(status_words) / sizeof(status_words[0]); i++) {
		w = strlen(status_words[i]);
		if (n < w || memcmp(s, status_words[i], w))
			continue;
		if (n == w)
			return classes[i];
		/* "ok-ish", "errors", "skipped" are words of their own. */
		next = s[w];
		if (next == ' ' || next == '\t' ||
		    (is_ascii_punct(next) && next != '-' && next != '_'))
			return classes[i];
	}
	return NULL;
}

/* Text and code literals under node: what a reader sees, without markup. */
static void plain_text(struct strbuf *sb, cmark_node *node)
{
	cmark_iter *iter = cmark_iter_new(node);
	cmark_event_type ev;
	cmark_node *cur;
	const char *lit;

	if (!iter) {
		sb->oom = 1;
		return;
	}
	while ((ev = cmark_iter_next(iter)) != CMARK_EVENT_DONE) {
		if (ev != CMARK_EVENT_ENTER)
			continue;
		cur = cmark_iter_get_node(iter);
		switch (cmark_node_get_type(cur)) {
		case CMARK_NODE_TEXT:
		case CMARK_NODE_CODE:
			lit = cmark_node_get_literal(cur);
			if (lit)
				strbuf__puts(sb, lit);
			break;
		case CMARK_NODE_SOFTBREAK:
		case CMARK_NODE_LINEBREAK:
			strbuf__append(sb, " ", 1);
			break;
		default:
			break;
		}
	}
	cmark_iter_free(iter);
}

/* GFM semantics: "\|" in a cell is a pipe, even inside a code span. */
static void unescape_pipes(struct strbuf *sb, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 1 < n) {
			if (s[i + 1] != '|')
				strbuf__append(sb, s + i, 1);
			strbuf__append(sb, s + i + 1, 1);
			i++;
		} else {
			strbuf__append(sb, s + i, 1);
		}
	}
}

static void render_cell(struct html_render *r, const char *tag, enum align align, int body,
			const char *text, size_t n)
{
	static const char *const align_style[] = {
		[ALIGN_LEFT] = "text-align:left",
		[ALIGN_CENTER] = "text-align:center",
		[ALIGN_RIGHT] = "text-align:right",
	};
	struct strbuf src = { 0 }, plain = { 0 };
	cmark_node *doc = NULL, *para;
	char *html = NULL;
	const char *inner = NULL, *cls = NULL;
	size_t inner_len = 0, hlen;

	trim(&text, &n);
	if (n) {
		strbuf__append(&src, CELL_LEAD, CELL_LEAD_LEN);
		unescape_pipes(&src, text, n);
		if (src.oom)
			goto fail;
		doc = cmark_parse_document(src.buf, src.len, CMARK_OPT_DEFAULT);
		if (!doc)
			goto fail;
		para = cmark_node_first_child(doc);
		if (para && cmark_node_get_type(para) == CMARK_NODE_PARAGRAPH &&
		    !cmark_node_next(para)) {
			html = cmark_render_html(para, CMARK_OPT_DEFAULT);
			if (!html)
				goto fail;
			hlen = strlen(html);
			if (hlen >= 3 + CELL_LEAD_LEN + 5 && !memcmp(html, "<p>" CELL_LEAD, 5) &&
			    !memcmp(html + hlen - 5, "</p>\n", 5)) {
				inner = html + 5;
				inner_len = hlen - 10;
				plain_text(&plain, para);
			}
		}
		/* Not expected with CELL_LEAD in front; show the text, escaped. */
		if (!inner) {
			strbuf__free(&plain);
			strbuf__append(&plain, src.buf, src.len);
		}
		if (plain.oom)
			goto fail;
		if (body)
			cls = status_class(plain.buf, plain.len);
	}

	strbuf__printf(r->out, "<%s", tag);
	if (align != ALIGN_NONE)
		strbuf__printf(r->out, " style=\"%s\"", align_style[align]);
	if (cls)
		strbuf__printf(r->out, " class=\"%s\"", cls);
	strbuf__append(r->out, ">", 1);
	if (inner)
		strbuf__append(r->out, inner, inner_len);
	else if (n)
		html_escape(r->out, src.buf + CELL_LEAD_LEN, src.len - CELL_LEAD_LEN);
	strbuf__printf(r->out, "</%s>\n", tag);
	goto out;
fail:
	r->failed = 1;
out:
	free(html);
	if (doc)
		cmark_node_free(doc);
	strbuf__free(&src);
	strbuf__free(&plain);
}

static void render_row(struct html_render *r, const struct src_lines *l, size_t line,
		       const enum align *align, size_t cols, int body)
{
	struct row_iter it;
	const char *s, *c;
	size_t n, len, col = 0;
	const char *tag = body ? "td" : "th";

	src_lines__get(l, line, &s, &n);
	strbuf__puts(r->out, "<tr>\n");
	row_iter__init(&it, s, n);
	while (col < cols && row_iter__next(&it, &c, &len))
		render_cell(r, tag, align[col++], body, c, len);
	for (; col < cols; col++)
		render_cell(r, tag, align[col], body, "", 0);
	strbuf__puts(r->out, "</tr>\n");
}

/* Lines first (header), first + 1 (delimiter), first + 2 .. last (body). */
static void render_table(struct html_render *r, const struct src_lines *l, size_t first,
			 size_t last, size_t cols)
{
	enum align *align;
	const char *s;
	size_t n, i;

	align = calloc(cols, sizeof(*align));
	if (!align) {
		r->failed = 1;
		return;
	}
	src_lines__get(l, first + 1, &s, &n);
	parse_delimiter_row(s, n, align, cols);

	strbuf__puts(r->out, "<table>\n<thead>\n");
	render_row(r, l, first, align, cols, 0);
	strbuf__puts(r->out, "</thead>\n");
	if (last >= first + 2) {
		strbuf__puts(r->out, "<tbody>\n");
		for (i = first + 2; i <= last; i++)
			render_row(r, l, i, align, cols, 1);
		strbuf__puts(r->out, "</tbody>\n");
	}
	strbuf__puts(r->out, "</table>\n");
	free(align);
}

static void render_markdown(struct html_render *r, const char *md, size_t len);

/* Lines first..last of l, reparsed as a document of their own. */
static void render_lines(struct html_render *r, const struct src_lines *l, size_t first,
			 size_t last)
{
	render_markdown(r, l->md + l->start[first], l->end[last] - l->start[first]);
}

/*
 * Render the tables in a paragraph, and the text around them as Markdown.
 * Returns 0 (nothing written) if the paragraph holds no table.
 */
static int render_paragraph_tables(struct html_render *r, const struct src_lines *l,
				   cmark_node *para)
{
	int start = cmark_node_get_start_line(para), end = cmark_node_get_end_line(para);
	size_t first, last, i, pos, stop, cols;
	int found = 0;

	if (start < 1 || end < start || (size_t)start > l->nr)
		return 0;
	first = start - 1;
	last = (size_t)end > l->nr ? l->nr - 1 : (size_t)end - 1;

	pos = first;
	for (i = first; i < last;) {
		cols = table_starts_at(l, i);
		if (!cols) {
			i++;
			continue;
		}
		/* Text before the table, e.g. a caption line without a blank line. */
		if (i > pos)
			render_lines(r, l, pos, i - 1);
		for (stop = i + 2; stop <= last && is_row_line(l, stop); stop++)
			;
		render_table(r, l, i, stop - 1, cols);
		found = 1;
		pos = i = stop;
	}
	if (!found)
		return 0;
	if (pos <= last)
		render_lines(r, l, pos, last);
	return 1;
}

static int id_taken(const struct html_render *r, const char *id)
{
	for (size_t i = 0; i < r->nr_slugs; i++)
		if (!strcmp(r->slugs[i], id))
			return 1;
	return 0;
}

/* Remember an id of the page, so that no later heading or marker takes it. */
static int id_register(struct html_render *r, const char *id)
{
	char **slugs;

	if (r->nr_slugs == r->slugs_cap) {
		size_t cap = r->slugs_cap ? r->slugs_cap * 2 : 16;

		slugs = realloc(r->slugs, cap * sizeof(*slugs));
		if (!slugs)
			return -1;
		r->slugs = slugs;
		r->slugs_cap = cap;
	}
	r->slugs[r->nr_slugs] = strdup(id);
	if (!r->slugs[r->nr_slugs])
		return -1;
	r->nr_slugs++;
	return 0;
}

/* Lowercase ASCII alnum runs joined by '-'; unique within the page. */
static void make_slug(struct html_render *r, cmark_node *heading, struct strbuf *slug)
{
	struct strbuf text = { 0 };
	size_t i, base, k;
	int dash = 0;
	unsigned char c;

	plain_text(&text, heading);
	strbuf__append(slug, "", 0);
	for (i = 0; i < text.len; i++) {
		c = text.buf[i];
		if (!is_ascii_alnum(c)) {
			dash = slug->len > 0;
			continue;
		}
		if (slug->len + dash + 1 > SLUG_MAX)
			break;
		if (dash)
			strbuf__append(slug, "-", 1);
		dash = 0;
		c = (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c;
		strbuf__append(slug, (const char *)&c, 1);
	}
	strbuf__free(&text);
	if (!slug->len)
		strbuf__puts(slug, "section");

	base = slug->len;
	for (k = 2; !slug->oom && id_taken(r, slug->buf); k++) {
		slug->len = base;
		strbuf__printf(slug, "-%zu", k);
	}
	if (slug->oom || id_register(r, slug->buf))
		r->failed = 1;
}

static void render_heading(struct html_render *r, cmark_node *node)
{
	struct strbuf slug = { 0 };
	char *html;

	html = cmark_render_html(node, CMARK_OPT_DEFAULT);
	if (!html) {
		r->failed = 1;
		return;
	}
	/* cmark writes "<hN>"; put the id in before the '>'. */
	if (html[0] == '<' && html[1] == 'h' && html[2] >= '1' && html[2] <= '6' &&
	    html[3] == '>') {
		/* a marker's id is already registered (render_anchor) */
		if (r->pending_id[0])
			strbuf__puts(&slug, r->pending_id);
		else
			make_slug(r, node, &slug);
		r->pending_id[0] = '\0';
		strbuf__append(r->out, html, 3);
		strbuf__printf(r->out, " id=\"%s\"", slug.oom ? "" : slug.buf);
		strbuf__puts(r->out, html + 3);
	} else {
		strbuf__puts(r->out, html);
	}
	strbuf__free(&slug);
	free(html);
}

/* A marker not followed by a heading still marks its place. */
static void flush_anchor(struct html_render *r)
{
	if (!r->pending_id[0])
		return;
	strbuf__printf(r->out, "<div id=\"%s\"></div>\n", r->pending_id);
	r->pending_id[0] = '\0';
}

/*
 * "<!-- sonde:id ID -->" alone in an HTML block: the next heading's id. Only
 * [a-z0-9._-] gets through, so the id is safe in an attribute as written.
 */
static int render_anchor(struct html_render *r, cmark_node *node)
{
	static const char pre[] = "<!-- sonde:id ";
	const char *lit = cmark_node_get_literal(node), *p;
	size_t n = 0;

	if (!lit || strncmp(lit, pre, sizeof(pre) - 1))
		return 0;
	p = lit + sizeof(pre) - 1;
	while ((p[n] >= 'a' && p[n] <= 'z') || (p[n] >= '0' && p[n] <= '9') || p[n] == '.' ||
	       p[n] == '_' || p[n] == '-')
		n++;
	if (!n || n > SLUG_MAX || strcmp(p + n, " -->\n"))
		return 0;
	flush_anchor(r);
	memcpy(r->pending_id, p, n);
	r->pending_id[n] = '\0';
	if (id_taken(r, r->pending_id)) {
		r->pending_id[0] = '\0';
		return 1;
	}
	if (id_register(r, r->pending_id))
		r->failed = 1;
	return 1;
}

static void render_node(struct html_render *r, cmark_node *node)
{
	char *html = cmark_render_html(node, CMARK_OPT_DEFAULT);

	if (!html) {
		r->failed = 1;
		return;
	}
	strbuf__puts(r->out, html);
	free(html);
}

/*
 * "<!-- sonde:embed N -->" alone in an HTML block: report.c's marker for a
 * fragment it rendered itself (a flame graph, a sparkline). Data cannot write
 * it: every string reaches report.md through md__escape, which escapes '<'.
 * Were one forged anyway, it could only place one of sonde's own fragments.
 * Each is placed once, unless ex->reusable says it may be placed again (a
 * sparkline shown both in a finding and in the workload section); a second
 * marker for a flame graph says where it is.
 */
static int render_embed(struct html_render *r, cmark_node *node)
{
	static const char pre[] = "<!-- sonde:embed ";
	const char *lit = cmark_node_get_literal(node), *p;
	unsigned long idx = 0;

	if (!r->ex || !lit || strncmp(lit, pre, sizeof(pre) - 1))
		return 0;
	p = lit + sizeof(pre) - 1;
	if (*p < '0' || *p > '9')
		return 0;
	for (; *p >= '0' && *p <= '9' && idx < 1000000; p++)
		idx = idx * 10 + (unsigned long)(*p - '0');
	if (strcmp(p, " -->\n") || idx >= r->ex->nembeds || !r->ex->embeds[idx])
		return 0;
	if (r->embedded[idx] && !(r->ex->reusable && r->ex->reusable[idx])) {
		strbuf__puts(r->out, "<p class=\"fg-seen\">(The flame graph is shown above.)</p>\n");
		return 1;
	}
	r->embedded[idx] = 1;
	strbuf__puts(r->out, r->ex->embeds[idx]);
	return 1;
}

static void render_markdown(struct html_render *r, const char *md, size_t len)
{
	struct src_lines lines;
	cmark_node *doc, *node;

	doc = cmark_parse_document(md, len, CMARK_OPT_DEFAULT);
	if (!doc) {
		r->failed = 1;
		return;
	}
	if (src_lines__init(&lines, md, len)) {
		r->failed = 1;
		cmark_node_free(doc);
		return;
	}
	for (node = cmark_node_first_child(doc); node; node = cmark_node_next(node)) {
		if (cmark_node_get_type(node) != CMARK_NODE_HEADING &&
		    cmark_node_get_type(node) != CMARK_NODE_HTML_BLOCK)
			flush_anchor(r);
		switch (cmark_node_get_type(node)) {
		case CMARK_NODE_PARAGRAPH:
			if (!render_paragraph_tables(r, &lines, node))
				render_node(r, node);
			break;
		case CMARK_NODE_HEADING:
			render_heading(r, node);
			break;
		case CMARK_NODE_HTML_BLOCK:
			if (!render_embed(r, node) && !render_anchor(r, node))
				render_node(r, node);
			break;
		default:
			render_node(r, node);
			break;
		}
	}
	src_lines__free(&lines);
	cmark_node_free(doc);
}

/* Nothing to load and nothing to run, even if some escape were missed. */
static const char page_head[] =
	"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
	"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
	"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	"style-src 'unsafe-inline'; img-src data:\"><title>";

static void base64(struct strbuf *sb, const uint8_t *p, size_t n)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16;
		char q[4];

		if (i + 1 < n)
			v |= (uint32_t)p[i + 1] << 8;
		if (i + 2 < n)
			v |= p[i + 2];
		q[0] = tab[v >> 18 & 63];
		q[1] = tab[v >> 12 & 63];
		q[2] = i + 1 < n ? tab[v >> 6 & 63] : '=';
		q[3] = i + 2 < n ? tab[v & 63] : '=';
		strbuf__append(sb, q, 4);
	}
}

void html__sparkline(struct strbuf *out, const char *title, const double *values, size_t n,
		     const struct spark_labels *labels)
{
	static const char *const names[] = { "min", "max", "last" };
	const char *text[3] = { 0 };
	double lo = INFINITY, hi = -INFINITY, lx = 0, ly = 0;
	int gap = 1, any = 0;

	title = title ? title : "";
	for (size_t i = 0; i < n; i++)
		if (isfinite(values[i])) {
			lo = fmin(lo, values[i]);
			hi = fmax(hi, values[i]);
		}
	strbuf__puts(out, "<figure class=\"spark\"><svg class=\"spark-svg\" viewBox=\"0 0 ");
	strbuf__printf(out, "%d %d\" width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"", SPARK_W,
		       SPARK_H, SPARK_W, SPARK_H);
	html_escape(out, title, strlen(title));
	strbuf__puts(out, "\"><title>");
	html_escape(out, title, strlen(title));
	strbuf__puts(out, "</title>");
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
		lx = x;
		ly = y;
	}
	if (any)
		strbuf__printf(out, "\"/><circle cx=\"%.1f\" cy=\"%.1f\" r=\"2\"/>", lx, ly);
	strbuf__puts(out, "</svg><figcaption><span class=\"spark-title\">");
	html_escape(out, title, strlen(title));
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
		html_escape(out, text[k], strlen(text[k]));
		strbuf__puts(out, "</span>");
	}
	strbuf__puts(out, "</figcaption></figure>\n");
}

char *html__render_page(const char *md, size_t mdlen, const char *title, const char *css)
{
	return html__render_page_ex(md, mdlen, title, css, NULL);
}

char *html__render_page_ex(const char *md, size_t mdlen, const char *title, const char *css,
			   const struct html_extras *ex)
{
	struct strbuf out = { 0 };
	struct html_render r = { .out = &out, .ex = ex };
	const char *script = ex ? ex->script : NULL;
	size_t i;

	if (!md) {
		md = "";
		mdlen = 0;
	}
	/* Our script must not be able to end its own element early. */
	if (script && (strstr(script, "</") || strstr(script, "<!--")))
		return NULL;
	if (ex && ex->nembeds) {
		r.embedded = calloc(ex->nembeds, 1);
		if (!r.embedded)
			return NULL;
	}
	strbuf__puts(&out, page_head);
	if (script) {
		/*
		 * Only this exact script may run: the policy names its hash, so
		 * nothing else (no handler attribute, no injected element) would
		 * execute even if an escape were missed.
		 */
		uint8_t d[32];
		struct sha256 h;

		out.len -= strlen("\"><title>");
		sha256__init(&h);
		sha256__update(&h, script, strlen(script));
		sha256__final(&h, d);
		strbuf__puts(&out, "; script-src 'sha256-");
		base64(&out, d, sizeof(d));
		strbuf__puts(&out, "'\"><title>");
	}
	if (title)
		html_escape(&out, title, strlen(title));
	strbuf__puts(&out, "</title><style>\n");
	if (css)
		strbuf__puts(&out, css);
	strbuf__puts(&out, "</style></head><body><main>\n");
	render_markdown(&r, md, mdlen);
	flush_anchor(&r);
	strbuf__puts(&out, "</main>");
	if (script) {
		strbuf__puts(&out, "<script>");
		strbuf__puts(&out, script);
		strbuf__puts(&out, "</script>");
	}
	strbuf__puts(&out, "</body></html>\n");
	free(r.embedded);

	for (i = 0; i < r.nr_slugs; i++)
		free(r.slugs[i]);
	free(r.slugs);
	if (out.oom || r.failed) {
		strbuf__free(&out);
		return NULL;
	}
	return out.buf;
}
