// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a check shows under its heading, as document blocks: its culprits,
 * its metrics (the status column coloured by each metric's status), and its
 * evidence: tables, notes, series (a line of numbers, and a sparkline in
 * report.html) and flame graphs (the graph in report.html, and in both
 * renderings its hottest frames and largest stacks as tables), heat maps
 * (heat.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/units.h"
#include "report/flamegraph.h"
#include "report/model.h"

/* Table cells stay readable: long command lines are cut (at a UTF-8 boundary) with a mark. */
#define CELL_MAX 160
/* Stacks shown from the leaf end, where the time is, cut to this many bytes. */
#define STACK_MAX 150
#define FG_TOP 10

void report__doc_culprits(struct doc *d, const struct check_result *r)
{
	static const char *const head[] = { "pid", "process", "share", "command line" };
	/* the container column only where a culprit runs in one */
	static const char *const head_ct[] = { "pid", "process", "share", "container",
					       "command line" };
	struct block *t;
	int ct = 0;

	if (!r->nculprits)
		return;
	for (size_t i = 0; i < r->nculprits; i++)
		ct |= r->culprits[i].container != NULL;
	t = ct ? doc__table_head(d, "rlrll", head_ct) : doc__table_head(d, "rlrl", head);
	for (size_t i = 0; i < r->nculprits; i++) {
		const struct culprit *c = &r->culprits[i];
		char share[32];

		snprintf(share, sizeof(share), "%.1f%%", c->share * 100);
		inl__words(doc__cell(t, CELL_PLAIN), "%d", c->pid);
		inl__text(doc__cell(t, CELL_PLAIN), c->comm);
		inl__text(doc__cell(t, CELL_PLAIN), share);
		if (ct)
			inl__text(doc__cell(t, CELL_PLAIN), c->container ? c->container->label : "-");
		inl__text_cut(doc__cell(t, CELL_PLAIN), c->cmdline ? c->cmdline : "", CELL_MAX);
	}
}

void report__doc_metrics(struct doc *d, const struct check_result *r)
{
	static const char *const head[] = { "metric", "value", "warn", "crit", "status" };
	struct block *t;
	char v[64], w[64], c[64];

	/* what does not apply, and why: a cell's n/a has its reason here */
	for (size_t i = 0; i < r->nnas; i++) {
		struct inlines *in = doc__para(d);

		inl__words(in, "n/a: ");
		inl__text(in, r->nas[i].name);
		if (r->nas[i].instance) {
			inl__words(in, " (");
			inl__text(in, r->nas[i].instance);
			inl__words(in, ")");
		}
		inl__words(in, ": ");
		inl__text(in, r->nas[i].reason);
	}
	if (!r->nmetrics)
		return;
	t = doc__table_head(d, "lrrrl", head);
	for (size_t i = 0; i < r->nmetrics; i++) {
		const struct metric *m = &r->metrics[i];
		struct inlines *in = doc__cell(t, CELL_PLAIN);

		inl__text(in, m->name);
		if (m->instance) {
			inl__words(in, " (");
			inl__text(in, m->instance);
			inl__words(in, ")");
		}
		units__value(v, sizeof(v), m->value, m->unit);
		if (m->has_warn)
			units__value(w, sizeof(w), m->warn, m->unit);
		if (m->has_crit)
			units__value(c, sizeof(c), m->crit, m->unit);
		inl__text(doc__cell(t, CELL_PLAIN), v);
		inl__text(doc__cell(t, CELL_PLAIN), m->has_warn ? w : "");
		inl__text(doc__cell(t, CELL_PLAIN), m->has_crit ? c : "");
		inl__words(doc__cell(t, cell_status__of(m->st)), "%s", status__name(m->st));
	}
}

/*
 * What part of the observation an evidence covers, when it is not the whole first window:
 * a tool detached early (a duty cycle, the overhead guard) or one of the drill-down window.
 * Said beside the evidence, not only in the appendix, so that an empty stretch of a heat
 * map or a small count in a table is not read as a quiet host. 0 when there is nothing
 * to say (the tool traced the whole first window, or no span was given).
 */
int report__span_text(const struct evidence_span *sp, char *buf, size_t len)
{
	double from, to, secs;

	if (!sp->set || !isfinite(sp->from_s) || !isfinite(sp->to_s) || !isfinite(sp->window_s) ||
	    !(sp->window_s > 0))
		return 0;
	/* attached before the window and read after it: count the window's part only */
	from = fmax(0, sp->from_s);
	to = fmin(sp->window_s, sp->to_s);
	secs = fmax(0, to - from);
	/* a few ms short at either end is the attach and the read, not a part */
	if (!sp->drilldown && secs >= 0.95 * sp->window_s)
		return 0;
	if (sp->drilldown && secs >= 0.95 * sp->window_s)
		snprintf(buf, len, "traced %.1f s, in the drill-down window after the first", secs);
	else
		snprintf(buf, len, "traced %.1f s of the %.1f s %swindow (%.1f to %.1f s)", secs,
			 sp->window_s, sp->drilldown ? "drill-down " : "", from, to);
	return 1;
}

/* "(traced 1.0 s of the 3.0 s window)", in emphasis: after a series' title, under a table's. */
static void span_words(struct inlines *in, const struct evidence *e)
{
	char buf[160];

	if (!report__span_text(&e->span, buf, sizeof(buf)))
		return;
	inl__words(in, " (");
	inl__open(in, SPAN_EM);
	inl__text(in, buf);
	inl__close(in);
	inl__words(in, ")");
}

static void span_para(struct doc *d, const struct evidence *e)
{
	char buf[160];
	struct inlines *in;

	if (!report__span_text(&e->span, buf, sizeof(buf)))
		return;
	in = doc__para(d);
	inl__open(in, SPAN_EM);
	inl__text(in, buf);
	inl__close(in);
}

static const char *const spark[] = { "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };

/*
 * A series' y axis: from zero (or the lowest value, when below it) to the
 * highest value (or zero, when all are below it), so that a line's height
 * reads as its value and a constant series sits at its value; a series of
 * zeros only gets 0 to 1.
 */
static void series_axis(double lo, double hi, double *a0, double *a1)
{
	*a0 = fmin(0, lo);
	*a1 = fmax(0, hi);
	if (!(*a1 > *a0))
		*a1 = *a0 + 1;
}

/*
 * A series: its numbers as a text line (a Unicode sparkline on the axis,
 * min, mean, max; "constant" when all are one value), which report.html
 * follows with the chart, its axis labelled at both ends, min, max and last.
 */
static void doc_series(struct doc *d, const struct evidence *e)
{
	double lo = INFINITY, hi = -INFINITY, sum = 0, last = NAN, a0 = 0, a1 = 0;
	struct strbuf line = { 0 };
	struct inlines *in;
	size_t n = 0;
	char a[48], b[48], c[48], l[48], x0[48], x1[48], every[48];
	const char *labels[5] = { 0 };

	for (size_t i = 0; i < e->nvalues; i++)
		if (isfinite(e->values[i])) {
			lo = fmin(lo, e->values[i]);
			hi = fmax(hi, e->values[i]);
			sum += e->values[i];
			last = e->values[i];
			n++;
		}
	if (n) {
		units__value(a, sizeof(a), lo, e->unit);
		units__value(b, sizeof(b), sum / (double)n, e->unit);
		units__value(c, sizeof(c), hi, e->unit);
		units__value(l, sizeof(l), last, e->unit);
		labels[0] = a;
		labels[1] = c;
		labels[2] = l;
		series_axis(lo, hi, &a0, &a1);
		units__value(x0, sizeof(x0), a0, e->unit);
		units__value(x1, sizeof(x1), a1, e->unit);
		labels[3] = x0;
		labels[4] = x1;
	}
	for (size_t i = 0; i < e->nvalues; i++) {
		int k = 0;

		if (!isfinite(e->values[i])) {
			strbuf__puts(&line, " ");
			continue;
		}
		if (a1 > a0)
			k = (int)((e->values[i] - a0) / (a1 - a0) * 7.999);
		strbuf__puts(&line, spark[k < 0 ? 0 : k > 7 ? 7 : k]);
	}
	in = doc__series(d, e, labels, a0, a1);
	inl__text(in, e->title);
	span_words(in, e);
	inl__words(in, ": ");
	inl__code(in, line.buf ? line.buf : "");
	if (n && !strcmp(a, c)) {
		inl__words(in, " constant ");
		inl__text(in, a);
		inl__words(in, " (axis ");
		inl__text(in, x0);
		inl__words(in, " to ");
		inl__text(in, x1);
		units__value(every, sizeof(every), e->step_s, "s");
		inl__words(in, ", every %s)", every);
	} else if (n) {
		inl__words(in, " min ");
		inl__text(in, a);
		inl__words(in, ", mean ");
		inl__text(in, b);
		inl__words(in, ", max ");
		inl__text(in, c);
		inl__words(in, " (axis ");
		inl__text(in, x0);
		inl__words(in, " to ");
		inl__text(in, x1);
		units__value(every, sizeof(every), e->step_s, "s");
		inl__words(in, ", every %s)", every);
	}
	if (line.oom)
		d->oom = 1;
	strbuf__free(&line);
}

struct fg_frame {
	const char *name;
	size_t len;
	double self, incl;
	size_t seen; /* the last stack that counted it in incl (recursion counts once) */
};

static int cmp_frame_self(const void *a, const void *b)
{
	const struct fg_frame *x = a, *y = b;

	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	return x->incl > y->incl ? -1 : x->incl < y->incl;
}

/* Frames by their own count; a name seen several times in one stack counts once in incl. */
static struct fg_frame *fg_frames(const struct evidence *e, size_t *nout)
{
	struct fg_frame *fr = NULL;
	size_t nfr = 0, cap = 0;

	for (size_t i = 0; i < e->fg.stacks.n; i++) {
		for (const char *p = e->fg.stacks.v[i];;) {
			const char *q = strchr(p, ';');
			size_t len = q ? (size_t)(q - p) : strlen(p), k;

			for (k = 0; k < nfr; k++)
				if (fr[k].len == len && !memcmp(fr[k].name, p, len))
					break;
			if (k == nfr) {
				if (nfr == cap) {
					size_t nc = cap ? cap * 2 : 64;
					struct fg_frame *nf = realloc(fr, nc * sizeof(*nf));

					if (!nf) {
						free(fr);
						return NULL;
					}
					fr = nf;
					cap = nc;
				}
				fr[nfr++] = (struct fg_frame){ .name = p, .len = len };
			}
			if (fr[k].seen != i + 1) {
				fr[k].seen = i + 1;
				fr[k].incl += e->fg.counts[i];
			}
			if (!q) {
				fr[k].self += e->fg.counts[i];
				break;
			}
			p = q + 1;
		}
		/* Enough for a top ten; the table is a summary, not the data. */
		if (nfr > 20000)
			break;
	}
	qsort(fr, nfr, sizeof(*fr), cmp_frame_self);
	*nout = nfr;
	return fr;
}

static void pct(struct inlines *in, double part, double total)
{
	inl__words(in, "%.1f%%", total > 0 ? 100 * part / total : 0);
}

static void fg_hottest(struct doc *d, const struct evidence *e)
{
	static const char *const head[] = { "hottest frame", "own", "own %", "with callees %" };
	double total = (double)e->fg.total;
	struct fg_frame *fr;
	struct block *t;
	size_t nfr = 0;
	char c[64];

	fr = fg_frames(e, &nfr);
	if (!fr && e->fg.stacks.n) {
		d->oom = 1;
		return;
	}
	t = doc__table_head(d, "lrrr", head);
	for (size_t k = 0; k < nfr && k < FG_TOP && fr[k].self > 0; k++) {
		inl__code_n(doc__cell(t, CELL_PLAIN), fr[k].name, fr[k].len);
		flamegraph__fmt_count(c, sizeof(c), fr[k].self, e->unit);
		inl__text(doc__cell(t, CELL_PLAIN), c);
		pct(doc__cell(t, CELL_PLAIN), fr[k].self, total);
		pct(doc__cell(t, CELL_PLAIN), fr[k].incl, total);
	}
	free(fr);
}

static void fg_largest(struct doc *d, const struct evidence *e)
{
	static const char *const head[] = { "largest stacks (leaf last)", "count", "share" };
	struct block *t = doc__table_head(d, "lrr", head);
	char c[64];

	for (size_t i = 0; i < e->fg.stacks.n && i < FG_TOP; i++) {
		const char *s = e->fg.stacks.v[i];
		size_t n = strlen(s), from = 0;
		struct inlines *in = doc__cell(t, CELL_PLAIN);

		if (n > STACK_MAX) {
			from = n - STACK_MAX;
			while (from < n && ((unsigned char)s[from] & 0xc0) == 0x80)
				from++;
			inl__words(in, "… ");
		}
		/* Frames one by one, leaf last. */
		for (const char *p = s + from;;) {
			const char *q = strchr(p, ';');

			inl__code_n(in, p, q ? (size_t)(q - p) : strlen(p));
			if (!q)
				break;
			inl__words(in, " → ");
			p = q + 1;
		}
		flamegraph__fmt_count(c, sizeof(c), e->fg.counts[i], e->unit);
		inl__text(doc__cell(t, CELL_PLAIN), c);
		pct(doc__cell(t, CELL_PLAIN), e->fg.counts[i], (double)e->fg.total);
	}
}

/* The graph (report.html), then its text side: totals, hottest frames, largest stacks. */
static void doc_flamegraph(struct doc *d, const struct evidence *e)
{
	struct inlines *in;
	char tot[64];

	doc__flamegraph(d, e);
	flamegraph__fmt_count(tot, sizeof(tot), (double)e->fg.total, e->unit);
	in = doc__para(d);
	inl__words(in, "Flame graph: ");
	inl__text(in, tot);
	inl__words(in, " in %llu distinct stack%s", (unsigned long long)e->fg.stacks_in,
		   e->fg.stacks_in == 1 ? "" : "s");
	if (e->fg.other) {
		inl__words(in, " (the %zu largest kept, the rest merged into ", e->fg.stacks.n - 1);
		inl__text(in, "[other]");
		inl__words(in, ")");
	}
	if (e->fg.depth_cut)
		inl__words(in, "; %llu stacks cut at %d frames",
			   (unsigned long long)e->fg.depth_cut, FG_MAX_DEPTH);
	inl__words(in, ". The interactive graph (hover, zoom, search) is in report.html.");
	if (!e->fg.stacks.n || !((double)e->fg.total > 0))
		return;
	fg_hottest(d, e);
	fg_largest(d, e);
}

static void doc_table(struct doc *d, const struct evidence *e)
{
	struct block *t;
	char *align = malloc(e->columns.n + 1);

	if (!align) {
		d->oom = 1;
		return;
	}
	memset(align, 'l', e->columns.n);
	align[e->columns.n] = '\0';
	t = doc__table(d, align);
	free(align);
	for (size_t c = 0; c < e->columns.n; c++)
		inl__text_cut(doc__cell(t, CELL_PLAIN), e->columns.v[c], CELL_MAX);
	/* a symbol (a function, a stack) as code: as it is, never escaped into "\\_\\_x" */
	for (size_t r = 0; r < e->nrows; r++)
		for (size_t c = 0; c < e->columns.n; c++)
			(e->code_cols & (1u << c) ? inl__code_cut : inl__text_cut)(
				doc__cell(t, CELL_PLAIN), e->rows[r][c], CELL_MAX);
}

int report__fold_evidence(struct doc *d, const struct check_result *r)
{
	size_t ntab = 0, nser = 0, nfg = 0, nhm = 0;
	struct inlines *in;

	for (size_t i = 0; i < r->nevidence; i++) {
		ntab += r->evidence[i].kind == EV_TABLE;
		nser += r->evidence[i].kind == EV_SERIES;
		nfg += r->evidence[i].kind == EV_FLAMEGRAPH;
		nhm += r->evidence[i].kind == EV_HEATMAP;
		nser += r->evidence[i].kind == EV_BARS;
	}
	if (!r->nmetrics && !ntab && !nser && !nfg && !nhm)
		return 0;
	in = doc__fold(d);
	inl__words(in, "Evidence: %zu metric%s", r->nmetrics, r->nmetrics == 1 ? "" : "s");
	if (ntab)
		inl__words(in, ", %zu table%s", ntab, ntab == 1 ? "" : "s");
	if (nser)
		inl__words(in, ", %zu chart%s", nser, nser == 1 ? "" : "s");
	if (nfg)
		inl__words(in, ", %zu flame graph%s", nfg, nfg == 1 ? "" : "s");
	if (nhm)
		inl__words(in, ", %zu heat map%s", nhm, nhm == 1 ? "" : "s");
	return 1;
}

void report__doc_evidence(struct doc *d, const struct check_result *r)
{
	for (size_t i = 0; i < r->nevidence; i++) {
		const struct evidence *e = &r->evidence[i];

		if (e->kind == EV_SERIES) {
			doc_series(d, e);
			continue;
		}
		if (e->kind == EV_NOTE) {
			doc__prose(d, e->title);
			continue;
		}
		if (e->title) {
			struct inlines *in = doc__para(d);

			inl__open(in, SPAN_STRONG);
			inl__text(in, e->title);
			inl__close(in);
		}
		/* its own line under the title, which stays the table's name */
		span_para(d, e);
		if (e->kind == EV_BARS)
			doc__bars(d, e);
		if (e->kind == EV_FLAMEGRAPH)
			doc_flamegraph(d, e);
		else if (e->kind == EV_HEATMAP)
			report__doc_heatmap(d, e);
		else if (e->columns.n)
			doc_table(d, e);
	}
}
