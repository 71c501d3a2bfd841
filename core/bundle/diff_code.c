// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sonde diff, the code: which functions and stacks take a larger or smaller
 * share of the profile. The profiles are the bundles' folded stacks
 * (raw/profile.folded, on-CPU samples; raw/offcputime.folded, off-CPU time
 * in microseconds; and their drill-down window's), each compared with its
 * kind where both sides have it.
 *
 * Shares, not counts, so that windows of different lengths compare. A
 * function's self share is the samples where it ran, its total share those
 * where it was on the stack (once per stack). Noise, for samples: a share
 * p of N samples is a binomial proportion; its 99% interval is Wilson's
 * score interval at z = 2.58, and a share changed when the two intervals do
 * not overlap (for equal N, a two-proportion test at about 3.6 standard
 * errors), and by at least 1 point of the total. Off-CPU time is traced,
 * not sampled: it has no sampling noise, and a share changed when it moved
 * by 5 points or more. A baseline's interval is the span of its audits'.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/diff_int.h"
#include "report/flamegraph.h"
#include "util/file.h"
#include "util/hash.h"
#include "util/tty.h"
#include "util/units.h"

#define NPROF 4
#define FOLDED_MAX (256u << 20)
#define Z99 2.58
#define FUNCS_SHOWN 30
#define STACKS_SHOWN 10
#define ROWS_JSON 200

static const struct {
	const char *kind, *file, *unit;
	int sampled;
} profs[NPROF] = {
	{ "on-CPU", "profile.folded", "samples", 1 },
	{ "on-CPU (drill-down)", "drilldown/profile.folded", "samples", 1 },
	{ "off-CPU", "offcputime.folded", "us", 0 },
	{ "off-CPU (drill-down)", "drilldown/offcputime.folded", "us", 0 },
};

/* Every function of a profile: its self and total count. */
struct fstat {
	const char *name;
	size_t len;
	double self, total;
	size_t last_stack; /* the stack it was last counted in, + 1 */
};

struct prof {
	int ok;
	struct folded_stacks fs;
	struct fstat *f;          /* open addressing on the name */
	size_t fcap, fn;
	uint32_t *by_stack;       /* stack indexes sorted by their text */
};

struct code_facts {
	struct prof p[NPROF];
	char why[256];
};

static struct fstat *fstat_of(struct prof *p, const char *name, size_t len)
{
	size_t k = fnv1a(name, len, FNV1A_OFFSET) & (p->fcap - 1);

	while (p->f[k].name && !(p->f[k].len == len && !memcmp(p->f[k].name, name, len)))
		k = (k + 1) & (p->fcap - 1);
	if (!p->f[k].name) {
		p->f[k].name = name;
		p->f[k].len = len;
		p->fn++;
	}
	return &p->f[k];
}

static const struct fstat *fstat_find(const struct prof *p, const char *name, size_t len)
{
	size_t k;

	if (!p->fcap)
		return NULL;
	k = fnv1a(name, len, FNV1A_OFFSET) & (p->fcap - 1);
	while (p->f[k].name) {
		if (p->f[k].len == len && !memcmp(p->f[k].name, name, len))
			return &p->f[k];
		k = (k + 1) & (p->fcap - 1);
	}
	return NULL;
}

static const struct prof *sort_prof;

static int by_text(const void *a, const void *b)
{
	return strcmp(sort_prof->fs.stacks.v[*(const uint32_t *)a],
		      sort_prof->fs.stacks.v[*(const uint32_t *)b]);
}

/* The functions' counts and the stacks' index, once the stacks are folded. */
static int prof_index(struct prof *p)
{
	size_t frames = 1;

	for (size_t i = 0; i < p->fs.stacks.n; i++)
		for (const char *c = p->fs.stacks.v[i]; *c; c++)
			frames += *c == ';';
	frames += p->fs.stacks.n;
	for (p->fcap = 64; p->fcap < frames * 2; p->fcap <<= 1)
		;
	p->f = calloc(p->fcap, sizeof(*p->f));
	p->by_stack = malloc((p->fs.stacks.n + 1) * sizeof(*p->by_stack));
	if (!p->f || !p->by_stack)
		return -ENOMEM;
	for (size_t i = 0; i < p->fs.stacks.n; i++) {
		const char *s = p->fs.stacks.v[i];
		double c = p->fs.counts[i];

		p->by_stack[i] = (uint32_t)i;
		for (const char *q = s;;) {
			const char *e = strchr(q, ';');
			size_t len = e ? (size_t)(e - q) : strlen(q);
			struct fstat *f = fstat_of(p, q, len);

			/* recursion: a function is on a stack once, however deep it recurses */
			if (f->last_stack != i + 1) {
				f->total += c;
				f->last_stack = i + 1;
			}
			if (!e) {
				f->self += c;
				break;
			}
			q = e + 1;
		}
	}
	sort_prof = p;
	qsort(p->by_stack, p->fs.stacks.n, sizeof(*p->by_stack), by_text);
	return 0;
}

static int prof_read(const char *raw, int k, struct prof *p)
{
	char path[4300], err[256];
	struct fold *f;
	char *text = NULL;
	size_t len = 0;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", raw, profs[k].file);
	if (file__read_bounded(AT_FDCWD, path, FOLDED_MAX, &text, &len))
		return 0; /* not in this bundle (or not readable): no such profile */
	f = fold__new();
	if (!f) {
		free(text);
		return -ENOMEM;
	}
	rc = fold__text(f, text, len, err, sizeof(err));
	free(text);
	if (rc == -ENOMEM || (!rc && (rc = fold__finish(f, &p->fs))))
		goto done;
	if (rc) { /* malformed: as if absent */
		rc = 0;
		goto done;
	}
	p->ok = p->fs.total > 0;
	rc = prof_index(p);
done:
	fold__free(f);
	return rc;
}

int diff_code__facts(const char *raw, struct code_facts **out)
{
	struct code_facts *cf = calloc(1, sizeof(*cf));
	int rc = 0, any = 0;

	*out = cf;
	if (!cf)
		return -ENOMEM;
	for (int k = 0; k < NPROF && !rc; k++) {
		rc = prof_read(raw, k, &cf->p[k]);
		any |= cf->p[k].ok;
	}
	if (!any)
		snprintf(cf->why, sizeof(cf->why), "no profile in the bundle");
	return rc;
}

void diff_code__facts_free(struct code_facts *cf)
{
	if (!cf)
		return;
	for (int k = 0; k < NPROF; k++) {
		folded_stacks__free(&cf->p[k].fs);
		free(cf->p[k].f);
		free(cf->p[k].by_stack);
	}
	free(cf);
}

/* ---- comparing ---- */

/* count of n as a share in %, with Wilson's 99% interval (sampled), or exactly (traced). */
static struct dq share_q(double count, double n, int sampled)
{
	double p = n > 0 ? count / n : 0, z2 = Z99 * Z99, c, h;

	if (!sampled || !(n > 0))
		return (struct dq){ 100 * p, 100 * p, 100 * p, n > 0 };
	c = (p + z2 / (2 * n)) / (1 + z2 / n);
	h = Z99 * sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n);
	return (struct dq){ 100 * p, 100 * fmax(0, c - h), 100 * fmin(1, c + h), 1 };
}

static const char *stack_find(const struct prof *p, const char *s, double *count)
{
	size_t lo = 0, hi = p->fs.stacks.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(p->fs.stacks.v[p->by_stack[mid]], s);

		if (!c) {
			*count = p->fs.counts[p->by_stack[mid]];
			return s;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*count = 0;
	return NULL;
}

struct cmp {
	const struct prof *np;
	const struct prof *op[DIFF_BASELINE_MAX];
	size_t nop;
	int sampled;
	double floor; /* points of the total a change must reach */
};

/* Measure m of row r, old (baseline) and new, its verdict, material or not. */
static int measure(const struct cmp *c, struct code_row *r, int m, const double *olds, double now)
{
	struct dq q[DIFF_BASELINE_MAX];

	for (size_t i = 0; i < c->nop; i++)
		q[i] = share_q(olds[i], (double)c->op[i]->fs.total, c->sampled);
	r->o[m] = dq__baseline(q, c->nop);
	r->n[m] = share_q(now, (double)c->np->fs.total, c->sampled);
	r->v[m] = dq__verdict(&r->o[m], &r->n[m], "%");
	if ((r->v[m] == DV_UP || r->v[m] == DV_DOWN) && fabs(r->n[m].v - r->o[m].v) < c->floor)
		r->v[m] = DV_WITHIN;
	return r->v[m] == DV_UP || r->v[m] == DV_DOWN;
}

static int push_row(struct code_profile *cp, size_t *cap, const struct code_row *r,
		    const char *name, size_t len)
{
	if (cp->nrows == *cap) {
		size_t nc = *cap ? *cap * 2 : 32;
		struct code_row *n = realloc(cp->rows, nc * sizeof(*n));

		if (!n)
			return -ENOMEM;
		cp->rows = n;
		*cap = nc;
	}
	cp->rows[cp->nrows] = *r;
	cp->rows[cp->nrows].name = strndup(name, len);
	return cp->rows[cp->nrows++].name ? 0 : -ENOMEM;
}

/* A function of either side (each once: from the new side, then the old ones' others). */
static int compare_function(const struct cmp *c, struct code_profile *cp, size_t *cap,
			    const char *name, size_t len)
{
	const struct fstat *nf = fstat_find(c->np, name, len);
	double oself[DIFF_BASELINE_MAX], otot[DIFF_BASELINE_MAX];
	struct code_row r = { 0 };
	int moved;

	for (size_t i = 0; i < c->nop; i++) {
		const struct fstat *of = fstat_find(c->op[i], name, len);

		oself[i] = of ? of->self : 0;
		otot[i] = of ? of->total : 0;
	}
	cp->functions++;
	moved = measure(c, &r, 0, oself, nf ? nf->self : 0);
	moved |= measure(c, &r, 1, otot, nf ? nf->total : 0);
	return moved ? push_row(cp, cap, &r, name, len) : 0;
}

static int compare_stack(const struct cmp *c, struct code_profile *cp, size_t *cap, const char *s)
{
	double olds[DIFF_BASELINE_MAX], now;
	struct code_row r = { .stack = 1 };

	stack_find(c->np, s, &now);
	for (size_t i = 0; i < c->nop; i++)
		stack_find(c->op[i], s, &olds[i]);
	cp->stacks++;
	if (!measure(c, &r, 0, olds, now))
		return 0;
	r.o[1] = r.o[0], r.n[1] = r.n[0], r.v[1] = r.v[0];
	return push_row(cp, cap, &r, s, strlen(s));
}

/* Functions before stacks, each by the size of its largest change. */
static int row_order(const void *a, const void *b)
{
	const struct code_row *x = a, *y = b;
	double dx = fmax(fabs(x->n[0].v - x->o[0].v), fabs(x->n[1].v - x->o[1].v));
	double dy = fmax(fabs(y->n[0].v - y->o[0].v), fabs(y->n[1].v - y->o[1].v));

	if (x->stack != y->stack)
		return x->stack - y->stack;
	if (dx != dy)
		return dx > dy ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Profile kind k of the new side against the old sides that have it. */
static int compare_profile(struct cmp *c, struct code_profile *cp, int k)
{
	size_t cap = 0;
	int rc = 0;

	cp->kind = profs[k].kind;
	cp->unit = profs[k].unit;
	cp->sampled = c->sampled = profs[k].sampled;
	c->floor = c->sampled ? 1 : 5;
	cp->total_new = (double)c->np->fs.total;
	cp->total_old = (double)c->op[0]->fs.total;
	for (size_t i = 0; i < c->np->fcap && !rc; i++)
		if (c->np->f[i].name)
			rc = compare_function(c, cp, &cap, c->np->f[i].name, c->np->f[i].len);
	for (size_t o = 0; o < c->nop && !rc; o++)
		for (size_t i = 0; i < c->op[o]->fcap && !rc; i++) {
			const struct fstat *f = &c->op[o]->f[i];
			int earlier = 0;

			if (!f->name || fstat_find(c->np, f->name, f->len))
				continue;
			for (size_t e = 0; e < o && !earlier; e++)
				earlier = fstat_find(c->op[e], f->name, f->len) != NULL;
			if (!earlier)
				rc = compare_function(c, cp, &cap, f->name, f->len);
		}
	for (size_t i = 0; i < c->np->fs.stacks.n && !rc; i++)
		rc = compare_stack(c, cp, &cap, c->np->fs.stacks.v[i]);
	/* stacks gone: in an old profile only (each once) */
	for (size_t o = 0; o < c->nop && !rc; o++)
		for (size_t i = 0; i < c->op[o]->fs.stacks.n && !rc; i++) {
			const char *st = c->op[o]->fs.stacks.v[i];
			double x;
			int earlier = stack_find(c->np, st, &x) != NULL;

			for (size_t e = 0; e < o && !earlier; e++)
				earlier = stack_find(c->op[e], st, &x) != NULL;
			if (!earlier)
				rc = compare_stack(c, cp, &cap, st);
		}
	if (!rc)
		qsort(cp->rows, cp->nrows, sizeof(*cp->rows), row_order);
	return rc;
}

int diff_code__compute(struct diff_side *const *old, size_t nold, const struct diff_side *new_,
		       struct code_diff *cd)
{
	int rc = 0;

	memset(cd, 0, sizeof(*cd));
	if (!new_->code) {
		snprintf(cd->why, sizeof(cd->why), "%s: %s", new_->name, new_->raw_why);
		return 0;
	}
	cd->p = calloc(NPROF, sizeof(*cd->p));
	if (!cd->p)
		return -ENOMEM;
	for (int k = 0; k < NPROF && !rc; k++) {
		struct cmp c = { .np = &new_->code->p[k] };
		struct code_profile *cp = &cd->p[cd->n];

		if (!c.np->ok)
			continue;
		for (size_t i = 0; i < nold; i++)
			if (old[i]->code && old[i]->code->p[k].ok)
				c.op[c.nop++] = &old[i]->code->p[k];
		if (!c.nop)
			continue;
		cd->n++;
		rc = compare_profile(&c, cp, k);
		cp->newest = &c.np->fs;
		cp->olds = calloc(c.nop, sizeof(*cp->olds));
		if (!cp->olds) {
			rc = -ENOMEM;
			break;
		}
		for (size_t i = 0; i < c.nop; i++)
			cp->olds[cp->nolds++] = &c.op[i]->fs;
	}
	for (size_t i = 0; !cd->n && !rc && i < nold && !cd->why[0]; i++)
		if (!old[i]->code)
			snprintf(cd->why, sizeof(cd->why), "%s: %s", old[i]->name, old[i]->raw_why);
	if (!cd->n && !rc && !cd->why[0])
		snprintf(cd->why, sizeof(cd->why), "no profile of one kind in both bundles%s%s",
			 new_->code->why[0] ? ": " : "", new_->code->why);
	return rc;
}

void diff_code__free(struct code_diff *cd)
{
	for (size_t i = 0; i < cd->n; i++) {
		for (size_t r = 0; r < cd->p[i].nrows; r++)
			free(cd->p[i].rows[r].name);
		free(cd->p[i].rows);
		free(cd->p[i].olds);
	}
	free(cd->p);
	memset(cd, 0, sizeof(*cd));
}

/* ---- rendering ---- */

static size_t count_rows(const struct code_profile *cp, int stack)
{
	size_t n = 0;

	for (size_t i = 0; i < cp->nrows; i++)
		n += cp->rows[i].stack == stack;
	return n;
}

/* "0.5% -> 62% up (99%: 0.1..2.6%, 55..68%)" of measure m */
static void share_words(char *buf, size_t len, const struct code_row *r, int m, int sampled)
{
	char a[32], b[32], ol[32], oh[32], nl[32], nh[32];

	units__value(a, sizeof(a), r->o[m].v, "%");
	units__value(b, sizeof(b), r->n[m].v, "%");
	if (!sampled || r->v[m] == DV_SAME || !r->o[m].has || !r->n[m].has) {
		snprintf(buf, len, "%s -> %s %s", a, b, dverdict_names[r->v[m]]);
		return;
	}
	units__value(ol, sizeof(ol), r->o[m].lo, "%");
	units__value(oh, sizeof(oh), r->o[m].hi, "%");
	units__value(nl, sizeof(nl), r->n[m].lo, "%");
	units__value(nh, sizeof(nh), r->n[m].hi, "%");
	snprintf(buf, len, "%s -> %s %s (99%%: %s..%s, %s..%s)", a, b, dverdict_names[r->v[m]], ol,
		 oh, nl, nh);
}

static void totals_words(char *buf, size_t len, const struct code_profile *cp)
{
	char a[48], b[48];

	units__value(a, sizeof(a), cp->total_old, cp->unit);
	units__value(b, sizeof(b), cp->total_new, cp->unit);
	snprintf(buf, len, "%s profile, %s -> %s", cp->kind, a, b);
}

void diff_code__text(FILE *out, const struct code_diff *cd)
{
	char w[512], t[160];

	if (!cd->n) {
		fputs("\nCode: not compared: ", out);
		tty__puts(out, cd->why);
		fputc('\n', out);
		return;
	}
	for (size_t i = 0; i < cd->n; i++) {
		const struct code_profile *cp = &cd->p[i];
		size_t shown[2] = { 0 };

		totals_words(t, sizeof(t), cp);
		fprintf(out,
			"\nCode, %s: %zu of %zu functions and %zu of %zu stacks changed "
			"beyond %s\n",
			t, count_rows(cp, 0), cp->functions, count_rows(cp, 1), cp->stacks,
			cp->sampled ? "sampling noise" : "5 points");
		for (size_t r = 0; r < cp->nrows; r++) {
			const struct code_row *row = &cp->rows[r];

			if (shown[row->stack]++ >= (row->stack ? STACKS_SHOWN : FUNCS_SHOWN))
				continue;
			fputs(row->stack ? "  stack    " : "  function ", out);
			tty__puts(out, row->name);
			share_words(w, sizeof(w), row, row->stack ? 0 : 1, cp->sampled);
			fputs(row->stack ? ": " : ": total ", out);
			tty__puts(out, w);
			if (!row->stack && row->v[0] != DV_SAME) {
				share_words(w, sizeof(w), row, 0, cp->sampled);
				fputs("; self ", out);
				tty__puts(out, w);
			}
			fputc('\n', out);
		}
	}
}

static void doc_profile(struct doc *d, const struct code_profile *cp)
{
	static const char *const fhead[] = { "function", "total (with callees)", "self" };
	static const char *const shead[] = { "stack (root first)", "share" };
	struct flamediff *fd;
	char w[512], t[160];
	struct block *tb;
	size_t shown = 0;

	totals_words(t, sizeof(t), cp);
	inl__words(doc__heading(d, 3, NULL), "%s", t);
	inl__words(doc__para(d), "%zu of %zu functions and %zu of %zu stacks changed beyond %s.",
		   count_rows(cp, 0), cp->functions, count_rows(cp, 1), cp->stacks,
		   cp->sampled ? "sampling noise (99% Wilson intervals that do not overlap, and 1 "
				 "point of the total at least)" :
				 "5 points of the total (traced time: no sampling noise)");
	if (count_rows(cp, 0)) {
		tb = doc__table_head(d, "lll", fhead);
		for (size_t r = 0; r < cp->nrows && shown < FUNCS_SHOWN; r++) {
			const struct code_row *row = &cp->rows[r];

			if (row->stack)
				continue;
			shown++;
			inl__code(doc__cell(tb, CELL_PLAIN), row->name);
			for (int m = 1; m >= 0; m--) {
				enum cell_status st = row->v[m] == DV_UP ? CELL_WARN :
						      row->v[m] == DV_DOWN ? CELL_OK : CELL_PLAIN;

				share_words(w, sizeof(w), row, m, cp->sampled);
				inl__words(doc__cell(tb, st), "%s", w);
			}
		}
	}
	if (count_rows(cp, 1)) {
		shown = 0;
		tb = doc__table_head(d, "ll", shead);
		for (size_t r = 0; r < cp->nrows && shown < STACKS_SHOWN; r++) {
			const struct code_row *row = &cp->rows[r];

			if (!row->stack)
				continue;
			shown++;
			inl__code_cut(doc__cell(tb, CELL_PLAIN), row->name, 300);
			share_words(w, sizeof(w), row, 0, cp->sampled);
			inl__words(doc__cell(tb, row->v[0] == DV_UP ? CELL_WARN : CELL_PLAIN), "%s",
				   w);
		}
	}
	fd = doc__alloc(d, sizeof(*fd));
	if (fd) {
		*fd = (struct flamediff){ cp->newest, cp->olds, cp->nolds, cp->unit };
		inl__words(doc__para(d), "Differential flame graph (report.html).");
		doc__flamediff(d, fd);
	}
}

void diff_code__doc(struct doc *d, const struct code_diff *cd)
{
	inl__words(doc__heading(d, 2, "code"), "Code");
	if (!cd->n) {
		struct inlines *in = doc__para(d);

		inl__words(in, "Not compared: ");
		inl__text(in, cd->why);
		return;
	}
	for (size_t i = 0; i < cd->n; i++)
		doc_profile(d, &cd->p[i]);
}

static void json_measure(struct json *j, const char *key, const struct code_row *r, int m)
{
	json__key(j, key);
	json__begin_object(j);
	json__kv_number(j, "old_pct", r->o[m].v);
	json__kv_number(j, "new_pct", r->n[m].v);
	dq__json_interval(j, "old_interval", &r->o[m]);
	dq__json_interval(j, "new_interval", &r->n[m]);
	json__kv_str(j, "verdict", dverdict_names[r->v[m]]);
	json__end_object(j);
}

void diff_code__json(struct json *j, const struct code_diff *cd)
{
	json__key(j, "code");
	json__begin_object(j);
	json__kv_str(j, "why", cd->n ? NULL : cd->why);
	json__key(j, "profiles");
	json__begin_array(j);
	for (size_t i = 0; i < cd->n; i++) {
		const struct code_profile *cp = &cd->p[i];

		json__begin_object(j);
		json__kv_str(j, "kind", cp->kind);
		json__kv_str(j, "unit", cp->unit);
		json__kv_number(j, "total_old", cp->total_old);
		json__kv_number(j, "total_new", cp->total_new);
		json__kv_int(j, "functions_compared", (int64_t)cp->functions);
		json__kv_int(j, "stacks_compared", (int64_t)cp->stacks);
		for (int st = 0; st < 2; st++) {
			size_t n = 0;

			json__key(j, st ? "stacks" : "functions");
			json__begin_array(j);
			for (size_t r = 0; r < cp->nrows && n < ROWS_JSON; r++) {
				if (cp->rows[r].stack != st)
					continue;
				n++;
				json__begin_object(j);
				json__kv_str(j, st ? "stack" : "function", cp->rows[r].name);
				json_measure(j, st ? "share" : "self", &cp->rows[r], 0);
				if (!st)
					json_measure(j, "total", &cp->rows[r], 1);
				json__end_object(j);
			}
			json__end_array(j);
		}
		json__end_object(j);
	}
	json__end_array(j);
	json__end_object(j);
}
