// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A document as Markdown (report.md, sonde diff --md): CommonMark with
 * GitHub pipe tables, for reading as plain text in a ticket. Blocks are
 * separated by one blank line; host strings (TEXT spans, prose) are escaped
 * by md__escape, so a process named "*x*" or "| a |" stays text and no table
 * loses a column; code spans and blocks cannot be closed from inside.
 */
#include <errno.h>
#include <string.h>

#include "report/chart.h"
#include "report/doc.h"
#include "report/escape.h"

/* No backtick (it would close the span) and no line break (it would end the line). */
static void md_code_span(struct strbuf *out, const char *s, size_t n)
{
	strbuf__puts(out, "`");
	for (size_t i = 0; i < n; i++)
		strbuf__append(out, (s[i] == '`' || (unsigned char)s[i] < 0x20) ? "'" : s + i, 1);
	strbuf__puts(out, "`");
}

struct md_inline {
	struct strbuf *out;
	/* the span that starts a line (not a table cell): leading blanks there would mean code */
	const struct span *first;
};

static void md_span(void *arg, const struct span *sp, int end)
{
	const struct md_inline *m = arg;
	struct strbuf *out = m->out;

	switch (sp->kind) {
	case SPAN_TEXT:
		if (sp == m->first)
			md__escape_line_to(out, sp->text, sp->len);
		else
			md__escape_to(out, sp->text, sp->len);
		break;
	case SPAN_WORDS:
		strbuf__append(out, sp->text, sp->len);
		break;
	case SPAN_CODE:
		md_code_span(out, sp->text, sp->len);
		break;
	case SPAN_STRONG:
		strbuf__puts(out, "**");
		break;
	case SPAN_EM:
		strbuf__puts(out, "*");
		break;
	case SPAN_LINK:
		if (end)
			strbuf__printf(out, "](#%s)", sp->text);
		else
			strbuf__puts(out, "[");
		break;
	case SPAN_END:
		break;
	}
}

static void md_inlines(struct strbuf *out, const struct inlines *in, int line)
{
	struct md_inline m = { out, line && in && in->n ? &in->v[0] : NULL };

	inlines__walk(in, md_span, &m);
}

/* A table row: "| a | b |", each cell's text between one space on each side. */
static void md_row(struct strbuf *out, const struct cell *cells, size_t n)
{
	strbuf__puts(out, "|");
	for (size_t c = 0; c < n; c++) {
		strbuf__puts(out, " ");
		md_inlines(out, &cells[c].in, 0);
		strbuf__puts(out, " |");
	}
	strbuf__puts(out, "\n");
}

static void md_table(struct strbuf *out, const struct block *b)
{
	if (!b->ncols)
		return;
	md_row(out, b->cells, b->ncols < b->ncells ? b->ncols : b->ncells);
	strbuf__puts(out, "|");
	for (size_t c = 0; c < b->ncols; c++)
		strbuf__puts(out, b->align[c] == ALIGN_RIGHT ? "---:|" : "---|");
	strbuf__puts(out, "\n");
	for (size_t r = b->ncols; r + b->ncols <= b->ncells; r += b->ncols)
		md_row(out, b->cells + r, b->ncols);
}

/* A fence longer than any run inside: a '~' in the text becomes '-'. */
static void md_code_block(struct strbuf *out, const char *s)
{
	strbuf__puts(out, "~~~~~~~~~~\n");
	for (const char *p = s; *p; p++)
		strbuf__append(out, *p == '~' ? "-" : p, 1);
	strbuf__puts(out, "\n~~~~~~~~~~\n");
}

static void md_list(struct strbuf *out, const struct inlines *items, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		strbuf__puts(out, "- ");
		md_inlines(out, &items[i], 1);
		strbuf__puts(out, "\n");
	}
}

/*
 * A heat map as a table of counts: its rows top (slowest) first, its first
 * MD_HEATMAP_COLS columns; the rest are in the HTML (and the JSON beside it).
 */
#define MD_HEATMAP_COLS 8

static void md_text(struct strbuf *out, const char *s)
{
	md__escape_to(out, s ? s : "", s ? strlen(s) : 0);
}

static void md_heatmap(struct strbuf *out, const struct heatmap *hm)
{
	size_t nc = hm->ncols < MD_HEATMAP_COLS ? hm->ncols : MD_HEATMAP_COLS;

	if (!hm->ncols || !hm->nrows || !hm->counts || !hm->cols || !hm->rows) {
		strbuf__puts(out, "(no data)\n");
		return;
	}
	strbuf__puts(out, "| ");
	md_text(out, hm->y_label);
	strbuf__puts(out, " |");
	for (size_t c = 0; c < nc; c++) {
		strbuf__puts(out, " ");
		md_text(out, hm->cols[c]);
		strbuf__puts(out, " |");
	}
	strbuf__puts(out, "\n|---|");
	for (size_t c = 0; c < nc; c++)
		strbuf__puts(out, "---:|");
	strbuf__puts(out, "\n");
	for (size_t r = hm->nrows; r-- > 0;) {
		strbuf__puts(out, "| ");
		md_text(out, hm->rows[r]);
		strbuf__puts(out, " |");
		for (size_t c = 0; c < nc; c++) {
			double v = hm->counts[c * hm->nrows + r];

			if (v > 0)
				strbuf__printf(out, " %.0f |", v);
			else
				strbuf__puts(out, " |");
		}
		strbuf__puts(out, "\n");
	}
	if (hm->ncols > nc)
		strbuf__printf(out, "\n(%zu more columns in the HTML page.)\n", hm->ncols - nc);
}

/* One block, or 0 when it has no Markdown form (drawn in HTML only). */
static int md_block(struct strbuf *out, const struct block *b, int first)
{
	if (b->kind == BLOCK_FLAMEGRAPH || b->kind == BLOCK_ANCHOR)
		return 0;
	if (!first)
		strbuf__puts(out, "\n");
	switch (b->kind) {
	case BLOCK_HEADING:
		for (int i = 0; i < b->level; i++)
			strbuf__puts(out, "#");
		strbuf__puts(out, " ");
		md_inlines(out, &b->in, 1);
		strbuf__puts(out, "\n");
		break;
	case BLOCK_PARA:
		md_inlines(out, &b->in, 1);
		strbuf__puts(out, "\n");
		break;
	case BLOCK_PROSE:
		md__escape_line_to(out, b->text, strlen(b->text));
		strbuf__puts(out, "\n");
		break;
	case BLOCK_LIST:
		md_list(out, b->items, b->nitems);
		break;
	case BLOCK_SERIES:
		md_list(out, &b->in, 1);
		break;
	case BLOCK_TABLE:
		md_table(out, b);
		break;
	case BLOCK_CODE:
		md_code_block(out, b->text);
		break;
	case BLOCK_HEATMAP:
		if (b->hm)
			md_heatmap(out, b->hm);
		break;
	default:
		break;
	}
	return 1;
}

int doc__markdown(const struct doc *d, struct strbuf *out)
{
	int first = 1;

	if (d->oom)
		return -ENOMEM;
	strbuf__append(out, "", 0);
	for (size_t i = 0; i < d->n; i++)
		if (md_block(out, d->v[i], first))
			first = 0;
	return out->oom ? -ENOMEM : 0;
}
