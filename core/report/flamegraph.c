// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Folded stacks (perf/fold.h) -> an SVG in report.html.
 *
 * Layout, as in Brendan Gregg's flamegraph.pl: the root ("all") at the
 * bottom, one row per stack depth, each frame as wide as its count (its own
 * samples plus its children's), children side by side in alphabetical order
 * inside their parent. Positions are computed once, in count units, from the
 * left edge of the whole graph, then each edge is rounded to 0.1 px
 * independently: a child's edges are the rounding of offsets inside its
 * parent's range, so it can never stick out of its parent, and widths stay
 * proportional to counts to 0.1 px.
 *
 * Safety: the SVG holds names only as XML-escaped text (the <title> of each
 * frame, the <text> labels); numbers are written by us. Invalid UTF-8 and the
 * characters XML 1.0 forbids become U+FFFD or a space, so the SVG parses as
 * XML too. The script holds no data and reads names with textContent.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/fold.h"
#include "report/flamegraph.h"
#include "util/embedded.h"
#include "util/hash.h"
#include "util/json.h"
#include "util/units.h"

/* ---- rendering ---- */

#define FG_WIDTH 1200   /* viewBox width */
#define FG_ROW 16       /* row height */
#define FG_CHAR_W 7     /* average glyph width of the 12 px label font */
#define FG_DRAWN_MAX 4000
#define FG_MIN_SHARE 1000 /* frames of 1/1000 of the total or less are merged into their parent */

struct fg_node {
	const char *name;
	uint32_t len;
	uint32_t parent;
	uint32_t depth;
	uint64_t value;
	double offset; /* in count units, from the graph's left edge */
};

struct fg_tree {
	struct fg_node *nodes;
	size_t n, cap;
	uint32_t *hash; /* node index + 1, 0 free */
	size_t hcap;
	uint64_t total;
};

static uint64_t node_hash(uint32_t parent, const char *s, size_t n)
{
	return fnv1a(s, n, FNV1A_OFFSET ^ ((uint64_t)parent * 0x9e3779b97f4a7c15ull));
}

static int tree_rehash(struct fg_tree *t, size_t hcap)
{
	uint32_t *h = calloc(hcap, sizeof(*h));

	if (!h)
		return -ENOMEM;
	for (size_t i = 1; i < t->n; i++) {
		size_t k = node_hash(t->nodes[i].parent, t->nodes[i].name, t->nodes[i].len) &
			   (hcap - 1);

		while (h[k])
			k = (k + 1) & (hcap - 1);
		h[k] = (uint32_t)i + 1;
	}
	free(t->hash);
	t->hash = h;
	t->hcap = hcap;
	return 0;
}

/* The child of parent called name, made if new; -1 when out of memory. */
static long tree_child(struct fg_tree *t, uint32_t parent, const char *name, size_t len)
{
	size_t k;

	if (t->n * 2 >= t->hcap && tree_rehash(t, t->hcap * 2))
		return -1;
	k = node_hash(parent, name, len) & (t->hcap - 1);
	for (; t->hash[k]; k = (k + 1) & (t->hcap - 1)) {
		struct fg_node *c = &t->nodes[t->hash[k] - 1];

		if (c->parent == parent && c->len == len && !memcmp(c->name, name, len))
			return (long)t->hash[k] - 1;
	}
	if (t->n == t->cap) {
		size_t cap = t->cap * 2;
		struct fg_node *nn = realloc(t->nodes, cap * sizeof(*nn));

		if (!nn)
			return -1;
		t->nodes = nn;
		t->cap = cap;
	}
	t->nodes[t->n] = (struct fg_node){ .name = name, .len = (uint32_t)len, .parent = parent,
					   .depth = t->nodes[parent].depth + 1 };
	t->hash[k] = (uint32_t)t->n + 1;
	return (long)t->n++;
}

/* The child of parent called name, or -1 when it has none. */
static long tree_find(const struct fg_tree *t, uint32_t parent, const char *name, size_t len)
{
	for (size_t k = node_hash(parent, name, len) & (t->hcap - 1); t->hash[k];
	     k = (k + 1) & (t->hcap - 1)) {
		const struct fg_node *c = &t->nodes[t->hash[k] - 1];

		if (c->parent == parent && c->len == len && !memcmp(c->name, name, len))
			return (long)t->hash[k] - 1;
	}
	return -1;
}

static void tree_free(struct fg_tree *t)
{
	free(t->nodes);
	free(t->hash);
}

static int tree_build(struct fg_tree *t, const struct folded_stacks *fs)
{
	memset(t, 0, sizeof(*t));
	t->cap = 256;
	t->hcap = 512;
	t->nodes = malloc(t->cap * sizeof(*t->nodes));
	t->hash = calloc(t->hcap, sizeof(*t->hash));
	if (!t->nodes || !t->hash)
		return -ENOMEM;
	t->nodes[0] = (struct fg_node){ .name = "all", .len = 3 };
	t->n = 1;
	for (size_t i = 0; i < fs->stacks.n; i++) {
		const char *s = fs->stacks.v[i];
		uint64_t c = fs->counts[i] > 0 ? (uint64_t)fs->counts[i] : 0;
		uint32_t cur = 0;

		if (!c)
			continue;
		t->nodes[0].value += c;
		for (const char *p = s;; p++) {
			const char *q = strchr(p, ';');
			size_t len = q ? (size_t)(q - p) : strlen(p);
			long k;

			if (t->nodes[cur].depth >= FG_MAX_DEPTH)
				break; /* evidence from the wire is not trusted to be folded by us */
			k = tree_child(t, cur, p, len);
			if (k < 0)
				return -ENOMEM;
			cur = (uint32_t)k;
			t->nodes[cur].value += c;
			if (!q)
				break;
			p = q;
		}
	}
	t->total = t->nodes[0].value;
	return 0;
}

static const struct fg_tree *sort_tree;

static int name_cmp(const struct fg_node *x, const struct fg_node *y)
{
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->name, y->name, n);

	return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* Siblings together, alphabetical within. */
static int cmp_by_parent(const void *a, const void *b)
{
	const struct fg_node *x = &sort_tree->nodes[*(const uint32_t *)a];
	const struct fg_node *y = &sort_tree->nodes[*(const uint32_t *)b];

	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	return name_cmp(x, y);
}

/* Widest first; an ancestor (as wide or wider, less deep) always before its descendants. */
static int cmp_by_width(const void *a, const void *b)
{
	const struct fg_node *x = &sort_tree->nodes[*(const uint32_t *)a];
	const struct fg_node *y = &sort_tree->nodes[*(const uint32_t *)b];

	if (x->value != y->value)
		return x->value > y->value ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/*
 * Offsets: node i's children start at its own offset, one after the other.
 * Sorted by parent index, a parent's group comes after its own parent's
 * (a parent is always created before its children), so its offset is known.
 */
static int tree_layout(struct fg_tree *t, uint32_t *order)
{
	double *next = malloc(t->n * sizeof(*next));

	if (!next)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++)
		order[i] = (uint32_t)i;
	sort_tree = t;
	qsort(order + 1, t->n - 1, sizeof(*order), cmp_by_parent);
	t->nodes[0].offset = 0;
	next[0] = 0;
	for (size_t i = 1; i < t->n; i++) {
		struct fg_node *c = &t->nodes[order[i]];

		c->offset = next[c->parent];
		next[c->parent] += (double)c->value;
		next[order[i]] = c->offset;
	}
	free(next);
	return 0;
}

/* XML text and attribute values: nothing but text can come out of it. */
static void xml_escape(struct strbuf *sb, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < n;) {
		unsigned char c = p[i];
		size_t len;

		switch (c) {
		case '&': strbuf__puts(sb, "&amp;"); break;
		case '<': strbuf__puts(sb, "&lt;"); break;
		case '>': strbuf__puts(sb, "&gt;"); break;
		case '"': strbuf__puts(sb, "&quot;"); break;
		case '\'': strbuf__puts(sb, "&#39;"); break;
		default:
			if (c < 0x20 || c == 0x7f) {
				strbuf__append(sb, " ", 1);
			} else if (c < 0x80) {
				strbuf__append(sb, s + i, 1);
			} else {
				len = utf8__seq_len(p + i, n - i);
				/* U+FFFE and U+FFFF are not XML characters either. */
				if (!len || (len == 3 && c == 0xef && p[i + 1] == 0xbf && p[i + 2] >= 0xbe)) {
					strbuf__append(sb, "\xef\xbf\xbd", 3);
				} else {
					strbuf__append(sb, s + i, len);
					i += len;
					continue;
				}
			}
			break;
		}
		i++;
	}
}

void flamegraph__fmt_count(char *buf, size_t len, double v, const char *unit)
{
	units__value(buf, len, v, unit && !strcmp(unit, "us") ? "us" : "samples");
}

static int special_name(const struct fg_node *nd)
{
	return nd->len && nd->name[0] == '[' && nd->name[nd->len - 1] == ']';
}

/*
 * What one drawing shows: the folded stacks (for the caption), their unit,
 * and for a differential graph each frame's class (its change) and its
 * share before, which the script shows on hover.
 */
struct fg_view {
	const struct folded_stacks *fs;
	const char *unit;
	const char *const *cls; /* per node, NULL: coloured by name */
	const double *was;      /* per node: its share of the total before (0 to 1) */
	size_t nbefore;         /* audits before (a differential graph) */
};

/* Pixel edges in tenths: each edge rounded on its own, so children nest exactly. */
static long edge10(const struct fg_tree *t, double off)
{
	return lround(off / (double)t->total * FG_WIDTH * 10);
}

static void put_tenths(struct strbuf *sb, long v)
{
	strbuf__printf(sb, "%ld.%ld", v / 10, v % 10);
}

static void render_frame(struct strbuf *sb, const struct fg_view *v, const struct fg_node *nd,
			 uint32_t idx, long x10, long w10, int height)
{
	int y = height - (int)(nd->depth + 1) * FG_ROW;
	long chars = (w10 / 10 - 6) / FG_CHAR_W;

	strbuf__printf(sb, "<g class=\"%s\" data-n=\"%llu\"",
		       v->cls ? v->cls[idx] :
		       special_name(nd) ? "cx" : (const char *[]){ "c0", "c1", "c2", "c3", "c4",
								  "c5", "c6", "c7" }
						 [fnv1a(nd->name, nd->len, 0) % 8],
		       (unsigned long long)nd->value);
	if (v->was)
		strbuf__printf(sb, " data-was=\"%.2f%%\"", 100 * v->was[idx]);
	strbuf__puts(sb, "><title>");
	xml_escape(sb, nd->name, nd->len);
	strbuf__puts(sb, "</title><rect x=\"");
	put_tenths(sb, x10);
	strbuf__printf(sb, "\" y=\"%d\" width=\"", y);
	put_tenths(sb, w10);
	strbuf__printf(sb, "\" height=\"%d\"/>", FG_ROW - 1);
	/* A label only where three characters fit; the script relabels after a zoom. */
	if (chars >= 3) {
		size_t n = nd->len;
		int cut = 0;

		if (n > (size_t)chars) {
			n = (size_t)chars - 2;
			while (n > 0 && ((unsigned char)nd->name[n] & 0xc0) == 0x80)
				n--;
			cut = 1;
		}
		strbuf__puts(sb, "<text x=\"");
		put_tenths(sb, x10 + 30);
		strbuf__printf(sb, "\" y=\"%d\">", y + FG_ROW - 4);
		xml_escape(sb, nd->name, n);
		if (cut)
			strbuf__puts(sb, "..");
		strbuf__puts(sb, "</text>");
	}
	strbuf__puts(sb, "</g>\n");
}

static void render(struct strbuf *sb, const struct fg_view *v, const struct fg_tree *t,
		   const uint32_t *by_width, size_t drawn, size_t eligible)
{
	const struct folded_stacks *fs = v->fs;
	uint32_t maxdepth = 0;
	int height;
	char tot[64];

	for (size_t i = 0; i < drawn; i++)
		if (t->nodes[by_width[i]].depth > maxdepth)
			maxdepth = t->nodes[by_width[i]].depth;
	height = (int)(maxdepth + 1) * FG_ROW;
	strbuf__puts(sb, "<figure class=\"fg\">\n<div class=\"fg-bar\">"
			 "<input type=\"search\" class=\"fg-q\" placeholder=\"Search frames\" "
			 "aria-label=\"Search frames\"> <button type=\"button\" class=\"fg-reset\">"
			 "Reset zoom</button> <span class=\"fg-info\">Hover a frame for its count, "
			 "click to zoom.</span></div>\n");
	strbuf__printf(sb, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"fg-svg\" "
			   "viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" data-total=\"%llu\" "
			   "data-unit=\"%s\">\n",
		       FG_WIDTH, height, FG_WIDTH, height, (unsigned long long)t->total,
		       v->unit && !strcmp(v->unit, "us") ? "us" : "samples");
	/* Depth order (root first), so a frame is drawn after, and above, its parent. */
	for (uint32_t d = 0; d <= maxdepth; d++)
		for (size_t i = 0; i < drawn; i++) {
			const struct fg_node *nd = &t->nodes[by_width[i]];
			long x10, w10;

			if (nd->depth != d)
				continue;
			x10 = edge10(t, nd->offset);
			w10 = edge10(t, nd->offset + (double)nd->value) - x10;
			if (w10 > 0)
				render_frame(sb, v, nd, by_width[i], x10, w10, height);
		}
	strbuf__puts(sb, "</svg>\n<figcaption>");
	if (v->cls)
		strbuf__printf(sb, "The new profile's shape, each frame coloured by the change "
				   "of its share of the total against %s: red grew, blue "
				   "shrank, the darker the more (0.25, 1, 3 and 10 points); "
				   "hover for its share before. Frames the new profile lacks "
				   "are not drawn. ",
			       v->nbefore > 1 ? "the baseline's median" : "the old profile");
	flamegraph__fmt_count(tot, sizeof(tot), (double)t->total, v->unit);
	xml_escape(sb, tot, strlen(tot));
	strbuf__printf(sb, " in %llu distinct stack%s. ", (unsigned long long)fs->stacks_in,
		       fs->stacks_in == 1 ? "" : "s");
	if (drawn < eligible)
		strbuf__printf(sb, "The %zu widest frames are drawn; narrower ones are merged into "
				   "their parent to bound the page size. ", drawn);
	else
		strbuf__printf(sb, "Frames of 0.1%% of the total or less are merged into their parent "
				   "(%zu frames drawn). ", drawn);
	if (fs->other)
		strbuf__printf(sb, "%llu stacks beyond the %zu largest are merged into "
				   "&quot;[other]&quot;. ",
			       (unsigned long long)(fs->stacks_in + 1 - fs->stacks.n), fs->stacks.n - 1);
	if (fs->depth_cut)
		strbuf__printf(sb, "%llu stacks deeper than %d frames are cut at the leaf end. ",
			       (unsigned long long)fs->depth_cut, FG_MAX_DEPTH);
	strbuf__puts(sb, "</figcaption>\n</figure>\n");
}

/* The graph of t (built) as v shows it, within the page budget. */
static int draw(const struct fg_view *v, struct fg_tree *t_, struct strbuf *out)
{
	struct fg_tree t = *t_;
	uint32_t *order = NULL;
	size_t eligible = 0, budget = FG_DRAWN_MAX;
	int rc = -ENOMEM;

	if (!t.total) {
		strbuf__puts(out, "<p class=\"fg-empty\">The flame graph is empty: no samples.</p>\n");
		rc = out->oom ? -ENOMEM : 0;
		goto cleanup;
	}
	order = malloc(t.n * sizeof(*order));
	if (!order || tree_layout(&t, order))
		goto cleanup;
	for (size_t i = 0; i < t.n; i++)
		order[i] = (uint32_t)i;
	sort_tree = &t;
	qsort(order, t.n, sizeof(*order), cmp_by_width);
	while (eligible < t.n && t.nodes[order[eligible]].value * FG_MIN_SHARE > t.total)
		eligible++;
	for (;;) {
		struct strbuf sb = { 0 };
		size_t drawn = eligible < budget ? eligible : budget;

		render(&sb, v, &t, order, drawn, eligible);
		if (sb.oom) {
			strbuf__free(&sb);
			goto cleanup;
		}
		/* Long names take room: draw fewer frames until the page budget holds. */
		if (sb.len > FG_HTML_BUDGET && drawn > 16) {
			strbuf__free(&sb);
			budget = drawn / 2;
			continue;
		}
		strbuf__append(out, sb.buf, sb.len);
		strbuf__free(&sb);
		break;
	}
	rc = out->oom ? -ENOMEM : 0;
cleanup:
	free(order);
	return rc;
}

int flamegraph__html(const struct evidence *e, struct strbuf *out)
{
	struct fg_view v = { .fs = &e->fg, .unit = e->unit };
	struct fg_tree t;
	int rc = -ENOMEM;

	if (!tree_build(&t, &e->fg))
		rc = draw(&v, &t, out);
	tree_free(&t);
	return rc;
}

/* A change of share (points of the total) as a class: dn4 (much colder) .. d0 .. dp4. */
static const char *delta_class(double points)
{
	static const char *const up[] = { "d0", "dp1", "dp2", "dp3", "dp4" };
	static const char *const down[] = { "d0", "dn1", "dn2", "dn3", "dn4" };
	static const double steps[] = { 0.25, 1, 3, 10 };
	double a = fabs(points);
	int k = 0;

	while (k < 4 && a >= steps[k])
		k++;
	return points > 0 ? up[k] : down[k];
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * For each frame of now, its share of the total in each profile before (the
 * same path from the root; 0 where it has none), their median as was[i].
 */
static int shares_before(const struct fg_tree *now, struct fg_tree *bt, size_t nb, double *was)
{
	long *map = malloc(now->n * nb * sizeof(*map));
	double *vals = malloc((nb ? nb : 1) * sizeof(*vals));

	if (!map || !vals) {
		free(map);
		free(vals);
		return -ENOMEM;
	}
	for (size_t i = 0; i < now->n; i++) {
		const struct fg_node *nd = &now->nodes[i];

		for (size_t b = 0; b < nb; b++) {
			/* nodes come after their parents: the parent's match is known */
			long pm = i ? map[nd->parent * nb + b] : 0;
			long m = !i     ? 0 :
				 pm < 0 ? -1 :
					  tree_find(&bt[b], (uint32_t)pm, nd->name, nd->len);

			map[i * nb + b] = m;
			vals[b] = m >= 0 && bt[b].total ?
					  (double)bt[b].nodes[m].value / (double)bt[b].total :
					  0;
		}
		qsort(vals, nb, sizeof(*vals), cmp_dbl);
		was[i] = nb ? vals[(nb - 1) / 2] : 0;
	}
	free(map);
	free(vals);
	return 0;
}

int flamegraph__diff_html(const struct flamediff *fd, struct strbuf *out)
{
	struct fg_tree t = { 0 }, *bt = calloc(fd->nbefore ? fd->nbefore : 1, sizeof(*bt));
	struct fg_view v = { .fs = fd->now, .unit = fd->unit, .nbefore = fd->nbefore };
	const char **cls = NULL;
	double *was = NULL;
	size_t built = 0;
	int rc = -ENOMEM;

	if (!bt || tree_build(&t, fd->now)) {
		free(bt);
		tree_free(&t);
		return -ENOMEM;
	}
	for (; built < fd->nbefore; built++)
		if (tree_build(&bt[built], fd->before[built]))
			goto cleanup;
	cls = malloc(t.n * sizeof(*cls));
	was = malloc(t.n * sizeof(*was));
	if (!cls || !was || shares_before(&t, bt, fd->nbefore, was))
		goto cleanup;
	for (size_t i = 0; i < t.n; i++)
		cls[i] = delta_class(t.total ? 100 * ((double)t.nodes[i].value / (double)t.total -
						      was[i]) :
					       0);
	v.cls = cls;
	v.was = was;
	rc = draw(&v, &t, out);
cleanup:
	/* a tree that failed to build was freed by tree_free in its caller's place */
	for (size_t b = 0; b < built; b++)
		tree_free(&bt[b]);
	if (built < fd->nbefore)
		tree_free(&bt[built]);
	free(bt);
	free(cls);
	free(was);
	tree_free(&t);
	return rc;
}

/*
 * Hover: name, count and share in the status line. Click: zoom (the frame
 * fills the width, its ancestors span it, everything else hides). Search:
 * frames whose name contains the text (case-insensitive) are highlighted and
 * the share of the total they cover (nested matches counted once) is shown.
 * Everything is read from the SVG: numbers from attributes we wrote, names
 * with textContent; everything written goes through textContent or numeric
 * attributes. No innerHTML, no eval, no data inside this text. The script is
 * flamegraph.js beside this file, compiled into the binary (build-aux/embedgen).
 */
const char *flamegraph__script(void)
{
	const struct embedded_file *f = embedded__find("core/report/flamegraph.js");

	return f ? f->data : NULL;
}
