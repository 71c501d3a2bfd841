// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The document (doc.h): blocks, inline spans, and the anchors of the page.
 * Strings are copied into the document's arena, freed all at once with it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "report/doc.h"

/* Heading ids longer than this are cut; they only need to be distinct. */
#define SLUG_MAX 64
#define ANCHOR_MAX 127
#define ARENA_CHUNK (64u << 10)

struct arena_chunk {
	struct arena_chunk *next;
	size_t used, cap;
	char data[];
};

enum cell_status cell_status__of(enum status st)
{
	static const enum cell_status map[] = {
		[ST_OK] = CELL_OK,	     [ST_WARN] = CELL_WARN, [ST_CRIT] = CELL_CRIT,
		[ST_UNKNOWN] = CELL_UNKNOWN, [ST_SKIP] = CELL_SKIP, [ST_ERROR] = CELL_ERROR,
	};

	return (unsigned)st < sizeof(map) / sizeof(*map) ? map[st] : CELL_PLAIN;
}

void doc__init(struct doc *d, const char *title)
{
	memset(d, 0, sizeof(*d));
	d->title = title;
}

static void inlines_free(struct inlines *in)
{
	free(in->v);
}

static void block_free(struct block *b)
{
	inlines_free(&b->in);
	for (size_t i = 0; i < b->nitems; i++)
		inlines_free(&b->items[i]);
	free(b->items);
	for (size_t i = 0; i < b->ncells; i++)
		inlines_free(&b->cells[i].in);
	free(b->cells);
	free(b->align);
	free(b);
}

void doc__free(struct doc *d)
{
	for (size_t i = 0; i < d->n; i++)
		block_free(d->v[i]);
	free(d->v);
	while (d->arena) {
		struct arena_chunk *c = d->arena;

		d->arena = c->next;
		free(c);
	}
	memset(d, 0, sizeof(*d));
}

/* n bytes plus a NUL from the arena, a copy of s; NULL (d->oom) when out of memory. */
static char *doc_strndup(struct doc *d, const char *s, size_t n)
{
	struct arena_chunk *c = d->arena;
	char *p;

	if (!c || c->cap - c->used < n + 1) {
		size_t cap = n + 1 > ARENA_CHUNK ? n + 1 : ARENA_CHUNK;

		c = malloc(sizeof(*c) + cap);
		if (!c) {
			d->oom = 1;
			return NULL;
		}
		c->used = 0;
		c->cap = cap;
		/* a chunk made for one large string goes behind the one being filled */
		if (d->arena && cap > ARENA_CHUNK) {
			c->next = d->arena->next;
			d->arena->next = c;
		} else {
			c->next = d->arena;
			d->arena = c;
		}
	}
	p = c->data + c->used;
	memcpy(p, s, n);
	p[n] = '\0';
	c->used += n + 1;
	return p;
}

/* Grow *v (of *cap elements of size) to hold one more than n; 0 or -ENOMEM. */
void *doc__alloc(struct doc *d, size_t n)
{
	struct arena_chunk *c = d->arena;
	size_t pad = 0;
	char *p;

	if (c)
		pad = (size_t)(-(uintptr_t)(c->data + c->used) & 7);
	if (!c || c->cap - c->used < n + pad) {
		/* a chunk of its own, behind the one being filled: its data is 8-byte aligned */
		c = malloc(sizeof(*c) + n + 8);
		if (!c) {
			d->oom = 1;
			return NULL;
		}
		c->cap = n + 8;
		pad = (size_t)(-(uintptr_t)c->data & 7);
		c->used = 0;
		if (d->arena) {
			c->next = d->arena->next;
			d->arena->next = c;
		} else {
			c->next = NULL;
			d->arena = c;
		}
	}
	p = c->data + c->used + pad;
	memset(p, 0, n);
	c->used += pad + n;
	return p;
}

static int grow(void **v, size_t *cap, size_t n, size_t size)
{
	void *nv;
	size_t nc;

	if (n < *cap)
		return 0;
	nc = *cap ? *cap * 2 : 8;
	nv = realloc(*v, nc * size);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = nc;
	return 0;
}

static struct block *new_block(struct doc *d, enum block_kind kind)
{
	struct block *b;

	if (d->oom)
		return NULL;
	if (grow((void **)&d->v, &d->cap, d->n, sizeof(*d->v)) || !(b = calloc(1, sizeof(*b)))) {
		d->oom = 1;
		return NULL;
	}
	b->kind = kind;
	b->in.doc = d;
	d->v[d->n++] = b;
	return b;
}

/* [a-z0-9._-] only, so an anchor is safe in an attribute and a link is a fragment. */
static const char *anchor_copy(struct doc *d, const char *id)
{
	char buf[ANCHOR_MAX + 1];
	size_t i;

	for (i = 0; id[i] && i < ANCHOR_MAX; i++) {
		char c = id[i];

		buf[i] = ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
			  c == '_' || c == '-') ? c : '-';
	}
	return doc_strndup(d, buf, i);
}

struct inlines *doc__heading(struct doc *d, int level, const char *anchor)
{
	struct block *b = new_block(d, BLOCK_HEADING);

	if (!b)
		return NULL;
	b->level = level < 1 ? 1 : level > 6 ? 6 : level;
	if (anchor)
		b->anchor = anchor_copy(d, anchor);
	return &b->in;
}

void doc__heatmap(struct doc *d, const struct heatmap *hm)
{
	struct block *b = new_block(d, BLOCK_HEATMAP);

	if (b)
		b->hm = hm;
}

void doc__heatmap_pair(struct doc *d, const struct heatmap *a, const struct heatmap *b)
{
	struct block *k = new_block(d, BLOCK_HEATMAP);

	if (k) {
		k->hm = a;
		k->hm2 = b;
	}
}

struct inlines *doc__para(struct doc *d)
{
	struct block *b = new_block(d, BLOCK_PARA);

	return b ? &b->in : NULL;
}

void doc__prose(struct doc *d, const char *text)
{
	struct block *b = new_block(d, BLOCK_PROSE);

	if (b)
		b->text = doc_strndup(d, text ? text : "", text ? strlen(text) : 0);
}

void doc__code(struct doc *d, const char *text)
{
	struct block *b = new_block(d, BLOCK_CODE);

	if (b)
		b->text = doc_strndup(d, text ? text : "", text ? strlen(text) : 0);
}

struct inlines *doc__item(struct doc *d)
{
	struct block *b = d->n && !d->oom ? d->v[d->n - 1] : NULL;
	struct inlines *in;

	if (!b || b->kind != BLOCK_LIST)
		b = new_block(d, BLOCK_LIST);
	if (!b)
		return NULL;
	if (grow((void **)&b->items, &b->items_cap, b->nitems, sizeof(*b->items))) {
		d->oom = 1;
		return NULL;
	}
	in = &b->items[b->nitems++];
	memset(in, 0, sizeof(*in));
	in->doc = d;
	return in;
}

struct block *doc__table(struct doc *d, const char *align)
{
	struct block *b = new_block(d, BLOCK_TABLE);

	if (!b)
		return NULL;
	b->ncols = strlen(align);
	b->align = calloc(b->ncols + 1, sizeof(*b->align));
	if (!b->align) {
		d->oom = 1;
		return NULL;
	}
	for (size_t i = 0; i < b->ncols; i++)
		b->align[i] = align[i] == 'r' ? ALIGN_RIGHT : ALIGN_NONE;
	return b;
}

struct block *doc__table_head(struct doc *d, const char *align, const char *const *head)
{
	struct block *t = doc__table(d, align);

	for (size_t i = 0; t && i < t->ncols; i++)
		inl__words(doc__cell(t, CELL_PLAIN), "%s", head[i]);
	return t;
}

/* The next cell, row by row; valid until the next doc__cell of the table. */
struct inlines *doc__cell(struct block *t, enum cell_status st)
{
	struct cell *c;

	if (!t)
		return NULL;
	if (grow((void **)&t->cells, &t->cells_cap, t->ncells, sizeof(*t->cells))) {
		t->in.doc->oom = 1;
		return NULL;
	}
	c = &t->cells[t->ncells++];
	memset(c, 0, sizeof(*c));
	c->in.doc = t->in.doc;
	c->st = st;
	return &c->in;
}

struct inlines *doc__series(struct doc *d, const struct evidence *e, const char *const labels[5],
			    double lo, double hi)
{
	struct block *b = new_block(d, BLOCK_SERIES);

	if (!b)
		return NULL;
	b->ev = e;
	b->axis[0] = lo;
	b->axis[1] = hi;
	for (int k = 0; k < 5; k++)
		if (labels && labels[k])
			b->spark[k] = doc_strndup(d, labels[k], strlen(labels[k]));
	return &b->in;
}

struct inlines *doc__fold(struct doc *d)
{
	struct block *b = new_block(d, BLOCK_FOLD);

	return b ? &b->in : NULL;
}

void doc__fold_end(struct doc *d)
{
	new_block(d, BLOCK_FOLD_END);
}

void doc__flamegraph(struct doc *d, const struct evidence *e)
{
	struct block *b;
	int seen = 0;

	/* A graph is drawn once; a second place of it (a finding's workload check) points up. */
	for (size_t i = 0; i < d->n && !seen; i++)
		seen = d->v[i]->kind == BLOCK_FLAMEGRAPH && d->v[i]->ev == e;
	b = new_block(d, BLOCK_FLAMEGRAPH);
	if (b) {
		b->ev = e;
		b->repeat = seen;
	}
}

void doc__flamediff(struct doc *d, const struct flamediff *fd)
{
	struct block *b = new_block(d, BLOCK_FLAMEGRAPH);

	if (b)
		b->fd = fd;
}

void doc__bars(struct doc *d, const struct evidence *e)
{
	struct block *b = new_block(d, BLOCK_BARS);

	if (b)
		b->ev = e;
}

void doc__anchor(struct doc *d, const char *id)
{
	struct block *b = new_block(d, BLOCK_ANCHOR);

	if (b)
		b->anchor = anchor_copy(d, id);
}

/* ---- inline spans ---- */

static void push(struct inlines *in, enum span_kind kind, const char *s, size_t n)
{
	struct doc *d;
	struct span *sp;

	if (!in || in->doc->oom)
		return;
	d = in->doc;
	if (grow((void **)&in->v, &in->cap, in->n, sizeof(*in->v))) {
		d->oom = 1;
		return;
	}
	sp = &in->v[in->n];
	sp->kind = kind;
	sp->len = n;
	sp->text = s ? doc_strndup(d, s, n) : NULL;
	if (s && !sp->text)
		return;
	in->n++;
}

void inl__text_n(struct inlines *in, const char *s, size_t n)
{
	push(in, SPAN_TEXT, s ? s : "", s ? n : 0);
}

void inl__text(struct inlines *in, const char *s)
{
	inl__text_n(in, s, s ? strlen(s) : 0);
}

/* s as a span of kind, cut at max bytes (at a UTF-8 boundary) and then " …". */
static void push_cut(struct inlines *in, enum span_kind kind, const char *s, size_t max)
{
	size_t n = s ? strlen(s) : 0;

	if (n > max) {
		n = max;
		while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	}
	push(in, kind, s ? s : "", n);
	if (s && n < strlen(s))
		push(in, SPAN_WORDS, " …", strlen(" …"));
}

void inl__text_cut(struct inlines *in, const char *s, size_t max)
{
	push_cut(in, SPAN_TEXT, s, max);
}

void inl__code_cut(struct inlines *in, const char *s, size_t max)
{
	push_cut(in, SPAN_CODE, s, max);
}

void inl__words(struct inlines *in, const char *fmt, ...)
{
	char buf[256], *big = NULL;
	va_list ap;
	int n;

	if (!in)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(buf)) {
		big = malloc((size_t)n + 1);
		if (!big) {
			in->doc->oom = 1;
			return;
		}
		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	push(in, SPAN_WORDS, big ? big : buf, (size_t)n);
	free(big);
}

void inl__code(struct inlines *in, const char *s)
{
	push(in, SPAN_CODE, s ? s : "", s ? strlen(s) : 0);
}

void inl__code_n(struct inlines *in, const char *s, size_t n)
{
	push(in, SPAN_CODE, s ? s : "", s ? n : 0);
}

void inl__open(struct inlines *in, enum span_kind kind)
{
	push(in, kind, NULL, 0);
}

void inl__link(struct inlines *in, const char *anchor)
{
	const char *a;

	if (!in || in->doc->oom)
		return;
	a = anchor_copy(in->doc, anchor);
	if (a)
		push(in, SPAN_LINK, a, strlen(a));
}

void inl__close(struct inlines *in)
{
	push(in, SPAN_END, NULL, 0);
}

#define NEST_MAX 8

void inlines__walk(const struct inlines *in,
		   void (*visit)(void *arg, const struct span *sp, int end), void *arg)
{
	const struct span *open[NEST_MAX];
	size_t nopen = 0;

	for (size_t i = 0; in && i < in->n; i++) {
		const struct span *sp = &in->v[i];

		switch (sp->kind) {
		case SPAN_STRONG:
		case SPAN_EM:
		case SPAN_LINK:
			if (nopen == NEST_MAX)
				break;
			open[nopen++] = sp;
			visit(arg, sp, 0);
			break;
		case SPAN_END:
			if (nopen)
				visit(arg, open[--nopen], 1);
			break;
		default:
			visit(arg, sp, 0);
			break;
		}
	}
	while (nopen)
		visit(arg, open[--nopen], 1);
}

/* ---- anchors ---- */

struct idset {
	const char **v;
	size_t n, cap;
};

static int id_taken(const struct idset *ids, const char *id)
{
	for (size_t i = 0; i < ids->n; i++)
		if (!strcmp(ids->v[i], id))
			return 1;
	return 0;
}

static int id_add(struct idset *ids, const char *id)
{
	if (grow((void **)&ids->v, &ids->cap, ids->n, sizeof(*ids->v)))
		return -ENOMEM;
	ids->v[ids->n++] = id;
	return 0;
}

/* The heading's text as a reader sees it, reduced to a slug not yet taken. */
static const char *make_slug(struct doc *d, const struct idset *ids, const struct inlines *in)
{
	char slug[SLUG_MAX + 16];
	size_t len = 0, base, k;
	int dash = 0;

	for (size_t i = 0; i < in->n; i++) {
		const struct span *sp = &in->v[i];

		if (sp->kind != SPAN_TEXT && sp->kind != SPAN_WORDS && sp->kind != SPAN_CODE)
			continue;
		for (size_t j = 0; j < sp->len; j++) {
			unsigned char c = (unsigned char)sp->text[j];

			if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
			      (c >= 'A' && c <= 'Z'))) {
				dash = len > 0;
				continue;
			}
			if (len + dash + 1 > SLUG_MAX)
				goto cut;
			if (dash)
				slug[len++] = '-';
			dash = 0;
			slug[len++] = (char)((c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c);
		}
	}
cut:
	if (!len)
		len = (size_t)snprintf(slug, sizeof(slug), "section");
	slug[len] = '\0';
	base = len;
	for (k = 2; id_taken(ids, slug); k++)
		snprintf(slug + base, sizeof(slug) - base, "-%zu", k);
	return doc_strndup(d, slug, strlen(slug));
}

int doc__finish(struct doc *d)
{
	struct idset ids = { 0 };

	for (size_t i = 0; i < d->n && !d->oom; i++) {
		struct block *b = d->v[i];

		if (b->kind != BLOCK_HEADING && b->kind != BLOCK_ANCHOR)
			continue;
		if (b->anchor && id_taken(&ids, b->anchor))
			b->anchor = NULL; /* the first place of an id keeps it */
		if (!b->anchor && b->kind == BLOCK_HEADING)
			b->anchor = make_slug(d, &ids, &b->in);
		if (b->anchor && id_add(&ids, b->anchor))
			d->oom = 1;
	}
	free(ids.v);
	return d->oom ? -ENOMEM : 0;
}
