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

static void tree_free(struct fg_tree *t)
{
	free(t->nodes);
	free(t->hash);
}

static int tree_build(struct fg_tree *t, const struct evidence *e)
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
	for (size_t i = 0; i < e->fg.stacks.n; i++) {
		const char *s = e->fg.stacks.v[i];
		uint64_t c = e->fg.counts[i] > 0 ? (uint64_t)e->fg.counts[i] : 0;
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
	if (unit && !strcmp(unit, "us")) {
		if (v >= 1e6)
			snprintf(buf, len, "%.2f s", v / 1e6);
		else if (v >= 1e3)
			snprintf(buf, len, "%.1f ms", v / 1e3);
		else
			snprintf(buf, len, "%.0f us", v);
	} else {
		snprintf(buf, len, "%.0f samples", v);
	}
}

static int special_name(const struct fg_node *nd)
{
	return nd->len && nd->name[0] == '[' && nd->name[nd->len - 1] == ']';
}

/* Pixel edges in tenths: each edge rounded on its own, so children nest exactly. */
static long edge10(const struct fg_tree *t, double off)
{
	return lround(off / (double)t->total * FG_WIDTH * 10);
}

static void put_tenths(struct strbuf *sb, long v)
{
	strbuf__printf(sb, "%ld.%ld", v / 10, v % 10);
}

static void render_frame(struct strbuf *sb, const struct fg_tree *t, const struct fg_node *nd,
			 long x10, long w10, int height)
{
	int y = height - (int)(nd->depth + 1) * FG_ROW;
	long chars = (w10 / 10 - 6) / FG_CHAR_W;

	strbuf__printf(sb, "<g class=\"%s\" data-n=\"%llu\"><title>",
		       special_name(nd) ? "cx" : (const char *[]){ "c0", "c1", "c2", "c3", "c4",
								  "c5", "c6", "c7" }
						 [fnv1a(nd->name, nd->len, 0) % 8],
		       (unsigned long long)nd->value);
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

static void render(struct strbuf *sb, const struct evidence *e, const struct fg_tree *t,
		   const uint32_t *by_width, size_t drawn, size_t eligible)
{
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
		       e->unit && !strcmp(e->unit, "us") ? "us" : "samples");
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
				render_frame(sb, t, nd, x10, w10, height);
		}
	strbuf__puts(sb, "</svg>\n<figcaption>");
	flamegraph__fmt_count(tot, sizeof(tot), (double)t->total, e->unit);
	xml_escape(sb, tot, strlen(tot));
	strbuf__printf(sb, " in %llu distinct stacks. ", (unsigned long long)e->fg.stacks_in);
	if (drawn < eligible)
		strbuf__printf(sb, "The %zu widest frames are drawn; narrower ones are merged into "
				   "their parent to bound the page size. ", drawn);
	else
		strbuf__printf(sb, "Frames of 0.1%% of the total or less are merged into their parent "
				   "(%zu frames drawn). ", drawn);
	if (e->fg.other)
		strbuf__printf(sb, "%llu stacks beyond the %zu largest are merged into "
				   "&quot;[other]&quot;. ",
			       (unsigned long long)(e->fg.stacks_in + 1 - e->fg.stacks.n), e->fg.stacks.n - 1);
	if (e->fg.depth_cut)
		strbuf__printf(sb, "%llu stacks deeper than %d frames are cut at the leaf end. ",
			       (unsigned long long)e->fg.depth_cut, FG_MAX_DEPTH);
	strbuf__puts(sb, "</figcaption>\n</figure>\n");
}

int flamegraph__html(const struct evidence *e, struct strbuf *out)
{
	struct fg_tree t;
	uint32_t *order = NULL;
	size_t eligible = 0, budget = FG_DRAWN_MAX;
	int rc = -ENOMEM;

	if (tree_build(&t, e))
		goto cleanup;
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

		render(&sb, e, &t, order, drawn, eligible);
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
