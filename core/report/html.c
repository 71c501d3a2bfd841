// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A document as one self-contained HTML page (report.html, sonde diff
 * --html), rendered from the document itself, never from its Markdown.
 *
 * Safety: everything this file writes is a fixed string, a number, an
 * anchor of [a-z0-9._-] (doc.c), or text through escape.h, so a host string
 * can only ever become text. Prose a check wrote is rendered by cmark in safe
 * mode from the same Markdown fragment report.md holds (escaped there, so the
 * page shows what a reader of report.md sees; raw HTML and script links would
 * be dropped even if it were not). The page loads nothing, and its one script
 * (the flame graph's, flamegraph.js, a constant) runs only because the
 * Content-Security-Policy names its hash. Its stylesheet is report.css, beside
 * this file; both are compiled into the binary (build-aux/embedgen.c).
 * Colours come from a cell's status (doc.h), never its text.
 */
#include <cmark.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/chart.h"
#include "report/doc.h"
#include "report/escape.h"
#include "report/flamegraph.h"
#include "report/model.h"
#include "util/embedded.h"
#include "util/sha256.h"

static const char *const cell_class[] = {
	[CELL_OK] = "st-ok",	       [CELL_WARN] = "st-warn",   [CELL_CRIT] = "st-crit",
	[CELL_UNKNOWN] = "st-unknown", [CELL_ERROR] = "st-error", [CELL_SKIP] = "st-skip",
	[CELL_NA] = "st-na",
};

static void text(struct strbuf *out, const char *s, size_t n)
{
	html__escape_text(out, s, n);
}

static void html_span(void *arg, const struct span *sp, int end)
{
	struct strbuf *out = arg;

	switch (sp->kind) {
	case SPAN_TEXT:
	case SPAN_WORDS:
		text(out, sp->text, sp->len);
		break;
	case SPAN_CODE:
		strbuf__puts(out, "<code>");
		text(out, sp->text, sp->len);
		strbuf__puts(out, "</code>");
		break;
	case SPAN_STRONG:
		strbuf__puts(out, end ? "</strong>" : "<strong>");
		break;
	case SPAN_EM:
		strbuf__puts(out, end ? "</em>" : "<em>");
		break;
	case SPAN_LINK:
		/* an anchor (doc.c): the link is a fragment of this page */
		if (end)
			strbuf__puts(out, "</a>");
		else
			strbuf__printf(out, "<a href=\"#%s\">", sp->text);
		break;
	case SPAN_END:
		break;
	}
}

static void html_inlines(struct strbuf *out, const struct inlines *in)
{
	inlines__walk(in, html_span, out);
}

static void html_cell(struct strbuf *out, const struct cell *c, enum align align, int body)
{
	strbuf__puts(out, body ? "<td" : "<th");
	if (align == ALIGN_RIGHT)
		strbuf__puts(out, " style=\"text-align:right\"");
	if (body && c->st != CELL_PLAIN)
		strbuf__printf(out, " class=\"%s\"", cell_class[c->st]);
	strbuf__puts(out, ">");
	html_inlines(out, &c->in);
	strbuf__puts(out, body ? "</td>\n" : "</th>\n");
}

static void html_row(struct strbuf *out, const struct block *b, size_t first, int body)
{
	strbuf__puts(out, first < b->ncells && b->cells[first].child ? "<tr class=\"child\">\n" :
								      "<tr>\n");
	for (size_t c = 0; c < b->ncols && first + c < b->ncells; c++)
		html_cell(out, &b->cells[first + c], b->align[c], body);
	strbuf__puts(out, "</tr>\n");
}

static int is_child_row(const struct block *b, size_t r)
{
	return r + b->ncols <= b->ncells && b->cells[r].child;
}

/* Rows [r, end) folded in one row behind "N more WHAT", as a table of their own. */
static void html_fold_rows(struct strbuf *out, const struct block *b, size_t r, size_t end,
			   const char *what)
{
	strbuf__printf(out, "<tr class=\"more\"><td colspan=\"%zu\"><details><summary>%zu more%s"
			    "</summary>\n<table>\n<tbody>\n", b->ncols, (end - r) / b->ncols, what);
	for (size_t k = r; k < end; k += b->ncols)
		html_row(out, b, k, 1);
	strbuf__puts(out, "</tbody>\n</table>\n</details></td></tr>\n");
}

/*
 * The rows under a row (instances under their resource, worst first): the
 * first shown, the others folded. Returns the row after them.
 */
static size_t html_children(struct strbuf *out, const struct block *b, size_t r)
{
	size_t end = r, n = 0;

	while (is_child_row(b, end)) {
		end += b->ncols;
		n++;
	}
	html_row(out, b, r, 1);
	if (n < 2)
		return end;
	html_fold_rows(out, b, r + b->ncols, end, "");
	return end;
}

/* A long table shows its first TABLE_ROWS_SHOWN rows; the rest are one folded row. */
#define TABLE_ROWS_SHOWN 10
#define TABLE_ROWS_FOLD 15 /* from this many rows on */

static void html_table(struct strbuf *out, const struct block *b)
{
	int fold = 0;

	if (!b->ncols)
		return;
	for (size_t r = b->ncols; r + b->ncols <= b->ncells && !fold; r += b->ncols)
		fold = b->cells[r].child;
	strbuf__puts(out, fold ? "<table class=\"fold\">\n<thead>\n" : "<table>\n<thead>\n");
	html_row(out, b, 0, 0);
	strbuf__puts(out, "</thead>\n");
	if (b->ncells >= 2 * b->ncols) {
		size_t nrows = b->ncells / b->ncols - 1, shown = 0;
		size_t last = b->ncols * (nrows + 1);

		strbuf__puts(out, "<tbody>\n");
		for (size_t r = b->ncols; r < last;) {
			if (!fold && nrows >= TABLE_ROWS_FOLD && shown == TABLE_ROWS_SHOWN) {
				html_fold_rows(out, b, r, last, " rows");
				break;
			}
			shown++;
			if (is_child_row(b, r)) {
				r = html_children(out, b, r);
				continue;
			}
			html_row(out, b, r, 1);
			r += b->ncols;
		}
		strbuf__puts(out, "</tbody>\n");
	}
	strbuf__puts(out, "</table>\n");
}

/* A check's prose: report.md's fragment, rendered by cmark (safe mode). */
static int html_prose(struct strbuf *out, const char *s)
{
	struct strbuf md = { 0 };
	char *html;

	md__escape_line_to(&md, s, strlen(s));
	if (md.oom)
		return -ENOMEM;
	/* safe mode: the default since cmark 0.29, asked for by name for older ones */
	html = cmark_markdown_to_html(md.buf, md.len, CMARK_OPT_DEFAULT | CMARK_OPT_SAFE);
	strbuf__free(&md);
	if (!html)
		return -ENOMEM;
	strbuf__puts(out, html);
	free(html);
	return 0;
}

static void html_list(struct strbuf *out, const struct inlines *items, size_t n)
{
	strbuf__puts(out, "<ul>\n");
	for (size_t i = 0; i < n; i++) {
		strbuf__puts(out, "<li>");
		html_inlines(out, &items[i]);
		strbuf__puts(out, "</li>\n");
	}
	strbuf__puts(out, "</ul>\n");
}

/* The line of numbers, as in report.md, then the chart. */
static void html_series(struct strbuf *out, const struct block *b)
{
	const struct evidence *e = b->ev;
	struct spark_labels l = { b->spark[0], b->spark[1], b->spark[2], b->spark[3], b->spark[4],
				  b->axis[0], b->axis[1] };

	html_list(out, &b->in, 1);
	chart__sparkline(out, e->title, e->values, e->nvalues, &l);
}

static int html_block(struct strbuf *out, const struct block *b)
{
	switch (b->kind) {
	case BLOCK_HEADING:
		strbuf__printf(out, "<h%d id=\"%s\">", b->level, b->anchor ? b->anchor : "");
		html_inlines(out, &b->in);
		strbuf__printf(out, "</h%d>\n", b->level);
		break;
	case BLOCK_PARA:
		strbuf__puts(out, "<p>");
		html_inlines(out, &b->in);
		strbuf__puts(out, "</p>\n");
		break;
	case BLOCK_PROSE:
		return html_prose(out, b->text);
	case BLOCK_LIST:
		html_list(out, b->items, b->nitems);
		break;
	case BLOCK_TABLE:
		html_table(out, b);
		break;
	case BLOCK_CODE:
		strbuf__puts(out, "<pre><code>");
		html__escape_pre(out, b->text, strlen(b->text));
		strbuf__puts(out, "\n</code></pre>\n");
		break;
	case BLOCK_SERIES:
		html_series(out, b);
		break;
	case BLOCK_FLAMEGRAPH:
		if (b->fd)
			return flamegraph__diff_html(b->fd, out);
		if (!b->repeat)
			return flamegraph__html(b->ev, out);
		strbuf__puts(out, "<p class=\"fg-seen\">(The flame graph is shown above.)</p>\n");
		break;
	case BLOCK_ANCHOR:
		if (b->anchor)
			strbuf__printf(out, "<div id=\"%s\"></div>\n", b->anchor);
		break;
	case BLOCK_HEATMAP:
		if (b->hm2)
			strbuf__puts(out, "<div class=\"hm-pair\">\n");
		if (b->hm)
			chart__heatmap(out, b->hm);
		if (b->hm2) {
			chart__heatmap(out, b->hm2);
			strbuf__puts(out, "</div>\n");
		}
		break;
	case BLOCK_BARS:
		chart__bars(out, b->ev);
		break;
	case BLOCK_FOLD:
	case BLOCK_FOLD_END:
		break; /* doc__html's walk */
	}
	return 0;
}

/* A heading's words without its markup (a link inside the contents' link would nest). */
static void toc_span(void *arg, const struct span *sp, int end)
{
	if (!end && (sp->kind == SPAN_TEXT || sp->kind == SPAN_WORDS || sp->kind == SPAN_CODE))
		text(arg, sp->text, sp->len);
}

#define TOC_SUB_MAX 12 /* a section's subsections listed, at most */

/*
 * The contents, kept in view beside the page (report.css): every section,
 * and under it its subsections that are not folded (the findings, the
 * checks that are not ok), the first TOC_SUB_MAX of them.
 */
static void html_toc(struct strbuf *out, const struct doc *d)
{
	int fold = 0, open = 0;
	size_t nsub = 0;

	strbuf__puts(out, "<nav class=\"toc\" aria-label=\"Contents\"><ul>\n");
	for (size_t i = 0; i < d->n; i++) {
		const struct block *b = d->v[i];

		fold += b->kind == BLOCK_FOLD;
		fold -= b->kind == BLOCK_FOLD_END && fold > 0;
		if (b->kind != BLOCK_HEADING || !b->anchor || b->level < 2 || b->level > 3 ||
		    (b->level == 3 && (fold || ++nsub > TOC_SUB_MAX)))
			continue;
		if (b->level == 2) {
			strbuf__puts(out, open == 2 ? "</ul></li>\n" : open ? "</li>\n" : "");
			open = 1;
			nsub = 0;
		} else if (open == 1) {
			strbuf__puts(out, "<ul>\n");
			open = 2;
		}
		strbuf__printf(out, "<li class=\"toc%d\"><a href=\"#%s\">", b->level, b->anchor);
		inlines__walk(&b->in, toc_span, out);
		strbuf__puts(out, b->level == 3 ? "</a></li>\n" : "</a>");
	}
	strbuf__puts(out, open == 2 ? "</ul></li>\n" : open ? "</li>\n" : "");
	strbuf__puts(out, "</ul></nav>\n");
}

/*
 * The blocks in order; a fold (doc__fold) is a <details> whose summary is
 * the heading after it, so a check that is ok takes one line until opened.
 */
static int html_blocks(struct strbuf *out, const struct doc *d)
{
	int folds = 0, summary = 0, rc = 0;

	for (size_t i = 0; i < d->n && !rc; i++) {
		const struct block *b = d->v[i];

		if (b->kind == BLOCK_FOLD) {
			strbuf__puts(out, "<details class=\"fold\">");
			folds++;
			summary = !b->in.n;
			if (b->in.n) {
				strbuf__puts(out, "<summary>");
				html_inlines(out, &b->in);
				strbuf__puts(out, "</summary>\n");
			}
			continue;
		}
		if (b->kind == BLOCK_FOLD_END) {
			if (folds) {
				strbuf__puts(out, summary ? "<summary>…</summary></details>\n" :
							    "</details>\n");
				folds--;
			}
			summary = 0;
			continue;
		}
		if (summary) {
			strbuf__puts(out, "<summary>");
			if (b->kind == BLOCK_HEADING)
				rc = html_block(out, b);
			strbuf__puts(out, "</summary>\n");
			summary = 0;
			if (b->kind == BLOCK_HEADING)
				continue;
		}
		rc = html_block(out, b);
	}
	while (folds--)
		strbuf__puts(out, "</details>\n");
	return rc;
}

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

/*
 * Nothing to load and nothing to run, even if some escape were missed; with
 * a script, only that exact script may run: the policy names its hash, so no
 * handler attribute and no injected element would execute.
 */
static void page_head(struct strbuf *out, const char *title, const char *script, const char *css)
{
	strbuf__puts(out,
		     "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
		     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
		     "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		     "style-src 'unsafe-inline'; img-src data:");
	if (script) {
		uint8_t d[32];
		struct sha256 h;

		sha256__init(&h);
		sha256__update(&h, script, strlen(script));
		sha256__final(&h, d);
		strbuf__puts(out, "; script-src 'sha256-");
		base64(out, d, sizeof(d));
		strbuf__puts(out, "'");
	}
	strbuf__puts(out, "\"><title>");
	if (title)
		html__escape_attr(out, title, strlen(title));
	strbuf__puts(out, "</title><style>\n");
	if (css)
		strbuf__puts(out, css);
	strbuf__puts(out, "</style></head><body>\n");
}

/* The page's stylesheet: report.css beside this file, compiled into the binary. */
static const char *stylesheet(void)
{
	const struct embedded_file *f = embedded__find("core/report/report.css");

	return f ? f->data : "";
}

int doc__html(const struct doc *d, struct strbuf *out)
{
	const char *script = NULL;
	int rc = 0;

	if (d->oom)
		return -ENOMEM;
	for (size_t i = 0; i < d->n; i++)
		if (d->v[i]->kind == BLOCK_FLAMEGRAPH)
			script = flamegraph__script();
	/* Our script must not be able to end its own element early. */
	if (script && (strstr(script, "</") || strstr(script, "<!--")))
		return -EINVAL;
	page_head(out, d->title, script, stylesheet());
	html_toc(out, d);
	strbuf__puts(out, "<main>\n");
	rc = html_blocks(out, d);
	strbuf__puts(out, "</main>");
	if (script) {
		strbuf__puts(out, "<script>");
		strbuf__puts(out, script);
		strbuf__puts(out, "</script>");
	}
	strbuf__puts(out, "</body></html>\n");
	if (!rc && out->oom)
		rc = -ENOMEM;
	return rc;
}

/* report.html: the model's document. */
int report__html(const struct report_model *m, struct strbuf *out)
{
	return doc__html(&m->doc, out);
}
