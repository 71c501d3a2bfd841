/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A document for people: headings with stable anchors, paragraphs of inline
 * spans, check-written prose, lists, tables whose cells carry a status,
 * code blocks, and evidence drawn as charts (series, flame graphs). The
 * report (model.c) and sonde diff build one; markdown.c and html.c render
 * it, each on its own: report.html is never made from report.md.
 *
 * What is data and what is sonde's is in the type of each span: a TEXT span
 * is a host string and is escaped for its target (escape.h); a WORDS span is
 * sonde's own words and numbers, written as they are. Styling comes from the
 * cell status a builder sets from data (a check's status), never from the
 * text of the cell.
 */
#ifndef SONDE_DOC_H
#define SONDE_DOC_H

#include <stddef.h>

#include "lua/result.h"
#include "util/strbuf.h"

/* What a table cell says, for its colour (report.css st-ok ... st-na); PLAIN: data only. */
enum cell_status { CELL_PLAIN, CELL_OK, CELL_WARN, CELL_CRIT, CELL_UNKNOWN, CELL_ERROR,
		   CELL_SKIP, CELL_NA };
enum cell_status cell_status__of(enum status st);

enum span_kind {
	SPAN_TEXT,   /* a host string: escaped for the target */
	SPAN_WORDS,  /* sonde's words and numbers: nothing a Markdown reader would misread */
	SPAN_CODE,   /* a code span */
	SPAN_STRONG, /* the spans up to the matching SPAN_END are strong, */
	SPAN_EM,     /* emphasised, */
	SPAN_LINK,   /* or a link to the anchor in text */
	SPAN_END,
};

struct span {
	enum span_kind kind;
	const char *text; /* TEXT, WORDS, CODE: the characters; LINK: the anchor */
	size_t len;
};

struct doc;

struct inlines {
	struct doc *doc;
	struct span *v;
	size_t n, cap;
};

enum block_kind {
	BLOCK_HEADING,
	BLOCK_PARA,
	BLOCK_PROSE,      /* a paragraph a check wrote (summary, note): Markdown-escaped text */
	BLOCK_LIST,
	BLOCK_TABLE,
	BLOCK_CODE,
	BLOCK_SERIES,     /* a list line with the numbers, and in HTML its sparkline */
	BLOCK_FLAMEGRAPH, /* HTML only: the interactive graph (its text summary is other blocks) */
	BLOCK_ANCHOR,     /* HTML only: an anchor where no heading starts the section */
	BLOCK_HEATMAP,    /* a latency heat map: in HTML the SVG, in Markdown a table of counts */
	BLOCK_BARS,       /* HTML only: stacked bars (their numbers are the table after) */
	BLOCK_FOLD,       /* HTML only: the blocks up to FOLD_END are folded behind in (a */
	BLOCK_FOLD_END,   /* line), or when empty the heading after (a check that is ok) */
};

enum align { ALIGN_NONE, ALIGN_RIGHT };

struct cell {
	struct inlines in;
	enum cell_status st;
	/*
	 * The first cell of a row that belongs under the row above it (an
	 * instance under its resource, worst first): HTML shows the first of a
	 * run of them and folds the rest.
	 */
	int child;
};

struct block {
	enum block_kind kind;
	int level;              /* HEADING: 1 to 6 */
	const char *anchor;     /* HEADING, ANCHOR: the id, [a-z0-9._-] (after doc__finish) */
	struct inlines in;      /* HEADING, PARA, SERIES */
	const char *text;       /* PROSE, CODE */
	struct inlines *items;  /* LIST */
	size_t nitems, items_cap;
	enum align *align;      /* TABLE: per column */
	size_t ncols;
	struct cell *cells;     /* TABLE: row by row, the header row first */
	size_t ncells, cells_cap;
	const struct evidence *ev; /* SERIES, FLAMEGRAPH, BARS */
	const char *spark[5];   /* SERIES: the min, max, last, axis bottom and top labels, or NULL */
	double axis[2];         /* SERIES: the y axis, bottom and top (none when top <= bottom) */
	int repeat;             /* FLAMEGRAPH: this graph is already drawn above */
	const struct flamediff *fd; /* FLAMEGRAPH: a differential one (flamegraph.h), not ev */
	const struct heatmap *hm; /* HEATMAP (chart.h): the builder's, alive while the doc is */
	const struct heatmap *hm2; /* HEATMAP: a second map, side by side with the first (a diff) */
};

struct arena_chunk;

struct doc {
	const char *title;
	struct block **v;
	size_t n, cap;
	struct arena_chunk *arena;
	int oom; /* an allocation failed: the renderers refuse the document */
};

void doc__init(struct doc *d, const char *title);
void doc__free(struct doc *d);
/*
 * Anchors: a heading's explicit anchor, unless the page already has it, else
 * a slug of its text (lowercase ASCII letters and digits, runs of anything
 * else as one '-', at most 64 bytes, "section" when empty, -2, -3, ... when
 * taken); a second ANCHOR of one id is dropped. Call once, after building.
 * Returns 0, or -ENOMEM when any step of the building failed.
 */
int doc__finish(struct doc *d);

/*
 * Builders. Each returns where the block's text goes, or NULL when out of
 * memory (d->oom is set; every inl__ and doc__cell accept NULL).
 * anchor: NULL for a slug; anything outside [a-z0-9._-] becomes '-'.
 */
struct inlines *doc__heading(struct doc *d, int level, const char *anchor);
struct inlines *doc__para(struct doc *d);
void doc__prose(struct doc *d, const char *text);
/* A list item: appended to the list just before, or the first of a new list. */
struct inlines *doc__item(struct doc *d);
/* align: one letter per column, 'l' or 'r'. The first ncols cells are the header. */
struct block *doc__table(struct doc *d, const char *align);
/* The same with a header of sonde's words, head[i] for column i. */
struct block *doc__table_head(struct doc *d, const char *align, const char *const *head);
struct inlines *doc__cell(struct block *table, enum cell_status st);
void doc__code(struct doc *d, const char *text);
/*
 * labels: min, max, last, the axis's bottom and top as text (NULL each when
 * none); lo, hi: the axis (lo >= hi: none). Returns the line's text.
 */
struct inlines *doc__series(struct doc *d, const struct evidence *e, const char *const labels[5],
			    double lo, double hi);
/* Stacked bars of an EV_BARS evidence (HTML only; its table follows for every renderer). */
void doc__bars(struct doc *d, const struct evidence *e);
void doc__flamegraph(struct doc *d, const struct evidence *e);
struct flamediff;
/* A differential flame graph (HTML only); fd must outlive the rendering (doc__alloc it). */
void doc__flamediff(struct doc *d, const struct flamediff *fd);
void doc__anchor(struct doc *d, const char *id);
/*
 * Fold what follows, up to doc__fold_end, in HTML behind a one-line summary:
 * the returned inlines, or when they stay empty the heading that follows.
 */
struct inlines *doc__fold(struct doc *d);
void doc__fold_end(struct doc *d);
/* n zeroed bytes, 8-byte aligned, freed with the document; NULL (d->oom) when out of memory. */
void *doc__alloc(struct doc *d, size_t n);
struct heatmap;
/* hm is not copied: it must outlive the rendering (doc__alloc'd, or the builder's). */
void doc__heatmap(struct doc *d, const struct heatmap *hm);
/* Two maps side by side in HTML (old, new), one after the other elsewhere. */
void doc__heatmap_pair(struct doc *d, const struct heatmap *a, const struct heatmap *b);

void inl__text(struct inlines *in, const char *s);
void inl__text_n(struct inlines *in, const char *s, size_t n);
/* At most max bytes (cut at a UTF-8 boundary), then " …" when cut. */
void inl__text_cut(struct inlines *in, const char *s, size_t max);
void inl__code_n(struct inlines *in, const char *s, size_t n);
/* A code span, cut as inl__text_cut cuts. */
void inl__code_cut(struct inlines *in, const char *s, size_t max);
void inl__words(struct inlines *in, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void inl__code(struct inlines *in, const char *s);
void inl__open(struct inlines *in, enum span_kind kind); /* SPAN_STRONG or SPAN_EM */
void inl__link(struct inlines *in, const char *anchor);
void inl__close(struct inlines *in);

/*
 * Walk the spans of in for a renderer, nesting resolved: visit(arg, sp, 0)
 * for each text, code or opening span, visit(arg, open, 1) where the span
 * open (STRONG, EM, or LINK with its anchor) ends. An end without an opening
 * is skipped; what is still open at the end is closed there.
 */
void inlines__walk(const struct inlines *in,
		   void (*visit)(void *arg, const struct span *sp, int end), void *arg);

/* report.md: 0, or -ENOMEM. */
int doc__markdown(const struct doc *d, struct strbuf *out);
/*
 * report.html: one self-contained page, its stylesheet (report.css beside
 * html.c, compiled in; never data) inlined as is, the flame graph script
 * (flamegraph.js, a constant) allowed by its hash when the document has a
 * flame graph, nothing else to run or to load.
 * 0, or -ENOMEM.
 */
int doc__html(const struct doc *d, struct strbuf *out);

#endif
