// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A document as Markdown (report.md, sonde diff --md): CommonMark with
 * GitHub pipe tables, for reading as plain text in a ticket. Blocks are
 * separated by one blank line; host strings (TEXT spans, prose) are escaped
 * by position (md__escape_at: only what Markdown would read as markup where
 * it stands), so a process named "*x*" or "| a |" stays text and no table
 * loses a column while "10.1 s" stays as it is; code spans and blocks cannot
 * be closed from inside, nor a table cell from a code span in it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/chart.h"
#include "report/doc.h"
#include "report/escape.h"
#include "report/model.h"

/*
 * No backtick (it would close the span) and no line break (it would end the
 * line). In a table cell a '|' is escaped too: GitHub splits a row into cells
 * before it reads code spans, and reads "\|" as a '|' of the cell's text.
 */
static void md_code_span(struct strbuf *out, const char *s, size_t n, int cell)
{
	strbuf__puts(out, "`");
	for (size_t i = 0; i < n; i++) {
		if (cell && s[i] == '|')
			strbuf__puts(out, "\\");
		strbuf__append(out, (s[i] == '`' || (unsigned char)s[i] < 0x20) ? "'" : s + i, 1);
	}
	strbuf__puts(out, "`");
}

/*
 * A line's spans, written in order. A TEXT span is held until the next
 * span shows which character follows it, since what needs escaping at its
 * end depends on that ("]" before "(" opens a link, a "#" run at the line's
 * end closes a heading).
 */
struct md_inline {
	struct strbuf *out;
	const struct inlines *in;
	const struct span *pending; /* a TEXT span not yet written */
	struct md_at at;            /* where pending goes (next set when written) */
	int line;                   /* the first span starts the line's content */
	int cell;                   /* a table cell: '|' ends it, a blank follows */
	int link;                   /* depth of links open */
	int any;                    /* something of the line written or held */
};

/* The first byte the span writes (an opening or a closing), -1 when it may be nothing. */
static int md_first_byte(const struct span *sp, int end)
{
	switch (sp->kind) {
	case SPAN_TEXT:
	case SPAN_WORDS:
		if (!sp->len)
			return -1;
		return (unsigned char)sp->text[0] < 0x20 ? ' ' : (unsigned char)sp->text[0];
	case SPAN_CODE:
		return '`';
	case SPAN_STRONG:
	case SPAN_EM:
		return '*';
	case SPAN_LINK:
		return end ? ']' : '[';
	default:
		return -1;
	}
}

/* A '_' in a text or words span after sp on its line (a closer for one sp opens)? */
static int md_underscore_after(const struct inlines *in, const struct span *sp)
{
	for (const struct span *q = sp + 1; in && q < in->v + in->n; q++)
		if ((q->kind == SPAN_TEXT || q->kind == SPAN_WORDS) && memchr(q->text, '_', q->len))
			return 1;
	return 0;
}

static void md_flush(struct md_inline *m, int next)
{
	if (!m->pending)
		return;
	m->at.next = next;
	md__escape_at(m->out, m->pending->text, m->pending->len, &m->at);
	m->pending = NULL;
}

/* The byte written last, as the previous neighbour: 0 at the line's start. */
static int md_prev(const struct md_inline *m)
{
	if (!m->any && m->line)
		return 0;
	return m->out->len ? (unsigned char)m->out->buf[m->out->len - 1] : -1;
}

static void md_span(void *arg, const struct span *sp, int end)
{
	struct md_inline *m = arg;
	struct strbuf *out = m->out;

	md_flush(m, md_first_byte(sp, end));
	if (sp->kind == SPAN_TEXT) {
		m->at = (struct md_at){ .prev = md_prev(m), .line_start = m->line && !m->any,
					.cell = m->cell, .link = m->link > 0,
					.later_underscore = md_underscore_after(m->in, sp) };
		m->pending = sp;
		m->any = 1;
		return;
	}
	m->any = 1;
	switch (sp->kind) {
	case SPAN_WORDS:
		strbuf__append(out, sp->text, sp->len);
		break;
	case SPAN_CODE:
		md_code_span(out, sp->text, sp->len, m->cell);
		break;
	case SPAN_STRONG:
		strbuf__puts(out, "**");
		break;
	case SPAN_EM:
		strbuf__puts(out, "*");
		break;
	case SPAN_LINK:
		if (end) {
			strbuf__printf(out, "](#%s)", sp->text);
			m->link--;
		} else {
			strbuf__puts(out, "[");
			m->link++;
		}
		break;
	default:
		break;
	}
}

/* line: the spans start a line's content (not a table cell). */
static void md_inlines(struct strbuf *out, const struct inlines *in, int line)
{
	struct md_inline m = { .out = out, .in = in, .line = line, .cell = !line };

	inlines__walk(in, md_span, &m);
	md_flush(&m, line ? 0 : ' ');
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

/* The row holding the p-th share (0-1) of column c's count, or the last with a count (p > 1). */
static size_t md_heat_row(const struct heatmap *hm, size_t c, double total, double p)
{
	const double *col = hm->counts + c * hm->nrows;
	double seen = 0;
	size_t last = 0;

	for (size_t r = 0; r < hm->nrows; r++) {
		if (col[r] <= 0)
			continue;
		seen += col[r];
		last = r;
		if (p <= 1 && seen >= p * total)
			return r;
	}
	return last;
}

/* One line per column: its count and the buckets of its p50, p99 and maximum. */
static void md_heat_quantiles(struct strbuf *out, const struct heatmap *hm)
{
	strbuf__puts(out, "| ");
	md_text(out, hm->x_label);
	strbuf__puts(out, " | ");
	md_text(out, hm->count_label);
	strbuf__puts(out, " | p50 | p99 | max |\n|---|---:|---|---|---|\n");
	for (size_t c = 0; c < hm->ncols; c++) {
		double total = 0;

		for (size_t r = 0; r < hm->nrows; r++)
			total += hm->counts[c * hm->nrows + r];
		strbuf__puts(out, "| ");
		md_text(out, hm->cols[c]);
		strbuf__printf(out, " | %.0f |", total);
		if (total <= 0) {
			strbuf__puts(out, " - | - | - |\n");
			continue;
		}
		for (int q = 0; q < 3; q++) {
			static const double ps[] = { 0.5, 0.99, 2 };

			strbuf__puts(out, " ");
			md_text(out, hm->rows[md_heat_row(hm, c, total, ps[q])]);
			strbuf__puts(out, " |");
		}
		strbuf__puts(out, "\n");
	}
}

/* One line per row (top first): its total (or mean) over every column, and a bar to the largest. */
static void md_heat_rows(struct strbuf *out, const struct heatmap *hm)
{
	double top = 0, *sum = calloc(hm->nrows, sizeof(*sum));

	if (!sum) {
		out->oom = 1;
		return;
	}
	for (size_t r = 0; r < hm->nrows; r++) {
		for (size_t c = 0; c < hm->ncols; c++)
			sum[r] += hm->counts[c * hm->nrows + r];
		if (hm->md_mean)
			sum[r] /= (double)hm->ncols;
		top = sum[r] > top ? sum[r] : top;
	}
	strbuf__puts(out, "| ");
	md_text(out, hm->y_label);
	strbuf__puts(out, " | ");
	md_text(out, hm->count_label);
	strbuf__printf(out, " (%s of %zu columns) | |\n|---|---:|---|\n",
		       hm->md_mean ? "mean" : "sum", hm->ncols);
	for (size_t r = hm->nrows; r-- > 0;) {
		int bar = top > 0 ? (int)(30 * sum[r] / top + 0.5) : 0;

		strbuf__puts(out, "| ");
		md_text(out, hm->rows[r]);
		strbuf__printf(out, " | %.0f | ", sum[r]);
		for (int i = 0; i < bar; i++)
			strbuf__puts(out, "#");
		strbuf__puts(out, " |\n");
	}
	free(sum);
}

/* One block, or 0 when it has no Markdown form (drawn in HTML only). */
static int md_block(struct strbuf *out, const struct block *b, int first)
{
	if (b->kind == BLOCK_FLAMEGRAPH || b->kind == BLOCK_ANCHOR || b->kind == BLOCK_FOLD ||
	    b->kind == BLOCK_FOLD_END || b->kind == BLOCK_BARS)
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
		for (int k = 0; k < 2; k++) {
			const struct heatmap *hm = k ? b->hm2 : b->hm;

			/* a pair: each map under its title, which says which is which */
			if (b->hm2 && hm && hm->title) {
				strbuf__puts(out, "*");
				md_text(out, hm->title);
				strbuf__puts(out, "*\n\n");
			}
			if (hm && hm->md == HEATMAP_MD_QUANTILES && hm->ncols && hm->nrows)
				md_heat_quantiles(out, hm);
			else if (hm && hm->md == HEATMAP_MD_ROWS && hm->ncols && hm->nrows)
				md_heat_rows(out, hm);
			else if (hm)
				md_heatmap(out, hm);
		}
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

/* report.md: the model's document. */
int report__markdown(const struct report_model *m, struct strbuf *out)
{
	return doc__markdown(&m->doc, out);
}
