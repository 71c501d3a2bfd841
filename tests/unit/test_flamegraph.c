// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Flame graphs, from folding (perf/fold.c: duplicates merged,
 * bad lines refused with a reason, depth, frame, stack-count caps), the SVG
 * (widths proportional to counts, children inside their parents, narrow
 * frames merged, the page budget), hostile frame names (only text, XML that
 * parses, one script: sonde's, allowed by hash), the wire form, and the
 * document's placing of the graph in a page (report/doc.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lua/engine.h"
#include "perf/fold.h"
#include "report/flamegraph.h"
#include "report/doc.h"
#include "util/file.h"
#include "util/json.h"
#include "util/sha256.h"
#include "tap.h"

static void evidence_free(struct evidence *e)
{
	free(e->title);
	free(e->unit);
	folded_stacks__free(&e->fg);
	memset(e, 0, sizeof(*e));
}

/* Fold text into e; returns the fold's rc, err holds the reason. */
static int fold(const char *text, struct evidence *e, char *err, size_t errlen)
{
	struct fold *f = fold__new();
	int rc;

	memset(e, 0, sizeof(*e));
	e->kind = EV_FLAMEGRAPH;
	err[0] = '\0';
	rc = fold__text(f, text, strlen(text), err, errlen);
	if (!rc)
		rc = fold__finish(f, &e->fg);
	fold__free(f);
	return rc;
}

static char *render(const struct evidence *e)
{
	struct strbuf sb = { 0 };

	if (flamegraph__html(e, &sb)) {
		strbuf__free(&sb);
		return NULL;
	}
	return sb.buf;
}

struct frame {
	char name[1200];
	double n, x, y, w;
};

static char *unescape(const char *s, size_t n, char *out, size_t cap)
{
	size_t k = 0;

	for (size_t i = 0; i < n && k + 1 < cap; i++) {
		if (s[i] == '&') {
			static const struct { const char *ent; char c; } ents[] = {
				{ "&amp;", '&' }, { "&lt;", '<' }, { "&gt;", '>' },
				{ "&quot;", '"' }, { "&#39;", '\'' },
			};
			size_t j;

			for (j = 0; j < 5; j++)
				if (!strncmp(s + i, ents[j].ent, strlen(ents[j].ent)))
					break;
			if (j < 5) {
				out[k++] = ents[j].c;
				i += strlen(ents[j].ent) - 1;
				continue;
			}
		}
		out[k++] = s[i];
	}
	out[k] = '\0';
	return out;
}

/* The frames of a rendered SVG, as the script would read them. */
static size_t parse_frames(const char *html, struct frame *fr, size_t max)
{
	const char *p = html;
	size_t n = 0;

	while ((p = strstr(p, "<g class=")) && n < max) {
		const char *t = strstr(p, "<title>"), *te = strstr(p, "</title>");
		const char *r = strstr(p, "<rect ");

		if (!t || !te || !r)
			break;
		sscanf(strstr(p, "data-n=\"") + 8, "%lf", &fr[n].n);
		unescape(t + 7, (size_t)(te - t - 7), fr[n].name, sizeof(fr[n].name));
		sscanf(r, "<rect x=\"%lf\" y=\"%lf\" width=\"%lf\"", &fr[n].x, &fr[n].y, &fr[n].w);
		n++;
		p = r;
	}
	return n;
}

static const struct frame *find(const struct frame *fr, size_t n, const char *name, double y)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(fr[i].name, name) && (y < 0 || fr[i].y == y))
			return &fr[i];
	return NULL;
}

/* Every frame above the root lies within one frame of the row below it. */
static int nested(const struct frame *fr, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int inside = 0;

		if (fr[i].n == 0)
			return 0;
		if (!strcmp(fr[i].name, "all"))
			continue;
		for (size_t k = 0; k < n && !inside; k++)
			inside = fr[k].y == fr[i].y + 16 && fr[k].x <= fr[i].x + 1e-9 &&
				 fr[i].x + fr[i].w <= fr[k].x + fr[k].w + 1e-9 && fr[k].n >= fr[i].n;
		if (!inside) {
			printf("# frame '%s' at x=%g y=%g w=%g has no parent around it\n",
			       fr[i].name, fr[i].x, fr[i].y, fr[i].w);
			return 0;
		}
	}
	return 1;
}

static int valid_utf8(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);

	for (size_t i = 0; i < n;) {
		size_t len = utf8__seq_len(p + i, n - i);

		if (!len)
			return 0;
		i += len;
	}
	return 1;
}

static size_t count_of(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/*
 * Every attribute name in every tag is one we write; none starts with "on"
 * and no value holds "javascript:". Tags come only from our list too.
 */
static int markup_ok(const char *html)
{
	static const char *const tags[] = { "figure", "div", "input", "button", "span", "svg",
					    "g", "title", "rect", "text", "figcaption", "p" };
	static const char *const attrs[] = { "class", "type", "placeholder", "aria-label",
					     "xmlns", "viewBox", "width", "height", "data-total",
					     "data-unit", "data-n", "x", "y" };
	const char *p = html;

	while ((p = strchr(p, '<'))) {
		size_t n, i;
		int known = 0;

		p++;
		if (*p == '/')
			p++;
		n = strspn(p, "abcdefghijklmnopqrstuvwxyzA-Z");
		for (i = 0; i < sizeof(tags) / sizeof(*tags); i++)
			known |= strlen(tags[i]) == n && !strncmp(p, tags[i], n);
		if (!known) {
			printf("# unexpected tag near: %.40s\n", p);
			return 0;
		}
		p += n;
		while (*p && *p != '>') {
			const char *a;
			size_t an;

			while (*p == ' ' || *p == '\n')
				p++;
			if (*p == '/' || *p == '>')
				break;
			a = p;
			an = strcspn(p, "= />");
			known = 0;
			for (i = 0; i < sizeof(attrs) / sizeof(*attrs); i++)
				known |= strlen(attrs[i]) == an && !strncmp(a, attrs[i], an);
			if (!known || !strncasecmp(a, "on", 2)) {
				printf("# unexpected attribute: %.*s\n", (int)an, a);
				return 0;
			}
			p += an;
			if (*p == '=') {
				const char *end;

				if (p[1] != '"')
					return 0;
				end = strchr(p + 2, '"');
				if (!end || memchr(p + 2, '<', (size_t)(end - p - 2)))
					return 0;
				if (strstr(p, "javascript:") && strstr(p, "javascript:") < end)
					return 0;
				p = end + 1;
			}
		}
		if (*p == '/')
			p++;
	}
	return 1;
}

/* xmllint over the <svg> element alone: 1 parses, 0 does not, -1 no xmllint. */
static int svg_parses(const char *html)
{
	const char *a = strstr(html, "<svg"), *b = strstr(html, "</svg>");
	char path[] = "/tmp/sonde-fg-XXXXXX";
	char cmd[128];
	FILE *f;
	int fd, rc;

	if (system("command -v xmllint >/dev/null 2>&1"))
		return -1;
	if (!a || !b)
		return 0;
	fd = mkstemp(path);
	if (fd < 0)
		return 0;
	f = fdopen(fd, "w");
	fwrite(a, 1, (size_t)(b - a) + 6, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "xmllint --noout %s", path);
	rc = system(cmd);
	unlink(path);
	return rc == 0;
}

static void test_fold(void)
{
	struct evidence e;
	char err[160];
	int rc;

	rc = fold("a;b;c 3\n\n  \na;b;c 2\r\na;b 5\na;d 0\nx 1  \n", &e, err, sizeof(err));
	is_int(rc, 0, "fold: plain folded text");
	is_int(e.fg.stacks.n, 3, "duplicates merged, zero counts dropped");
	is_int(e.fg.total, 11, "total is the sum of the counts");
	is_int(e.fg.stacks_in, 3, "three distinct stacks given");
	ok(e.fg.stacks.n == 3 && !strcmp(e.fg.stacks.v[0], "a;b") && e.fg.counts[0] == 5 &&
		   !strcmp(e.fg.stacks.v[1], "a;b;c") && e.fg.counts[1] == 5 && !strcmp(e.fg.stacks.v[2], "x"),
	   "largest first, ties by name");
	evidence_free(&e);

	rc = fold("a;;c 2\n", &e, err, sizeof(err));
	ok(!rc && e.fg.stacks.n == 1 && !strcmp(e.fg.stacks.v[0], "a;[unknown];c"),
	   "an empty frame is [unknown]");
	evidence_free(&e);

	rc = fold("int operator new(unsigned long);main 7\n", &e, err, sizeof(err));
	ok(!rc && !strcmp(e.fg.stacks.v[0], "int operator new(unsigned long);main"),
	   "frames may hold spaces: the count is after the last one");
	evidence_free(&e);

	rc = fold("a;b;c 1\na;b\n", &e, err, sizeof(err));
	ok(rc == -EINVAL && strstr(err, "line 2") && strstr(err, "count"),
	   "a line without a count is refused with its number: %s", err);
	evidence_free(&e);
	rc = fold("a;b 12x\n", &e, err, sizeof(err));
	ok(rc == -EINVAL && strstr(err, "unsigned integer"), "a bad count is refused: %s", err);
	evidence_free(&e);
	rc = fold("a -3\n", &e, err, sizeof(err));
	ok(rc == -EINVAL, "a negative count is refused: %s", err);
	evidence_free(&e);
	rc = fold("a 99999999999999999999\n", &e, err, sizeof(err));
	ok(rc == -EINVAL, "a count past 2^53 is refused: %s", err);
	evidence_free(&e);
	rc = fold("a 9007199254740000\nb 9007199254740000\n", &e, err, sizeof(err));
	ok(rc == -EINVAL && strstr(err, "add up"), "counts adding up past 2^53: %s", err);
	evidence_free(&e);
	rc = fold(" 5\n", &e, err, sizeof(err));
	ok(rc == -EINVAL, "a count without a stack is refused: %s", err);
	evidence_free(&e);
}

static void test_caps(void)
{
	struct strbuf in = { 0 }, deep = { 0 }, longname = { 0 };
	struct evidence e;
	char err[160];
	double sum = 0;
	size_t nframes = 1;
	int rc;

	/* 6000 distinct stacks: 4999 kept, the rest in [other]. */
	for (int i = 0; i < 6000; i++)
		strbuf__printf(&in, "p;f%d;g 1%s", i, i < 10 ? "00\n" : "\n");
	rc = fold(in.buf, &e, err, sizeof(err));
	is_int(rc, 0, "6000 stacks fold");
	is_int(e.fg.stacks.n, FG_MAX_STACKS, "at most %d stacks kept", FG_MAX_STACKS);
	is_int(e.fg.stacks_in, 6000, "the distinct stacks given are counted");
	ok(!strcmp(e.fg.stacks.v[e.fg.stacks.n - 1], FG_OTHER) && e.fg.other == 6000 - (FG_MAX_STACKS - 1),
	   "the rest are merged into [other] (%llu)", (unsigned long long)e.fg.other);
	for (size_t i = 0; i < e.fg.stacks.n; i++)
		sum += e.fg.counts[i];
	ok(sum == (double)e.fg.total && e.fg.total == 10 * 100 + 5990,
	   "no count is lost in the cut");
	ok(e.fg.counts[0] == 100, "the largest stacks are the ones kept");
	evidence_free(&e);

	/* 300 frames deep: cut at FG_MAX_DEPTH, root side kept. */
	for (int i = 0; i < 300; i++)
		strbuf__printf(&deep, "%sd%d", i ? ";" : "", i);
	strbuf__puts(&deep, " 4\n");
	rc = fold(deep.buf, &e, err, sizeof(err));
	for (const char *p = e.fg.stacks.n ? e.fg.stacks.v[0] : ""; *p; p++)
		nframes += *p == ';';
	ok(!rc && nframes == FG_MAX_DEPTH && e.fg.depth_cut == 1, "a deep stack is cut at %d frames",
	   FG_MAX_DEPTH);
	ok(e.fg.stacks.n && !strncmp(e.fg.stacks.v[0], "d0;d1;", 6) &&
		   strstr(e.fg.stacks.v[0], ";" FG_DEEPER) &&
		   !strcmp(strstr(e.fg.stacks.v[0], ";" FG_DEEPER), ";" FG_DEEPER),
	   "the root side is kept, the cut is a named frame");
	{
		char *html = render(&e);
		struct frame *fr = calloc(300, sizeof(*fr));
		size_t n = html ? parse_frames(html, fr, 300) : 0;

		is_int(n, FG_MAX_DEPTH + 1, "every kept level is drawn (and the root)");
		ok(n && nested(fr, n), "deep frames nest");
		free(fr);
		free(html);
	}
	evidence_free(&e);

	/* A 10000-byte frame name is cut at FG_MAX_FRAME bytes. */
	strbuf__puts(&longname, "main;");
	for (int i = 0; i < 10000; i++)
		strbuf__puts(&longname, i % 2 ? "\xc3\xa9" : "x");
	strbuf__puts(&longname, " 3\n");
	rc = fold(longname.buf, &e, err, sizeof(err));
	ok(!rc && strlen(e.fg.stacks.v[0]) <= 5 + FG_MAX_FRAME && strstr(e.fg.stacks.v[0], "..."),
	   "a long frame name is cut at %d bytes", FG_MAX_FRAME);
	ok(valid_utf8(e.fg.stacks.v[0]), "and cut on a UTF-8 boundary");
	evidence_free(&e);
	strbuf__free(&in);
	strbuf__free(&deep);
	strbuf__free(&longname);
}

static void test_geometry(void)
{
	struct evidence e;
	struct frame fr[64];
	char err[160], *html;
	size_t n;
	int bad = 0;

	fold("bash;main;do_work;spin 1200\nbash;main;do_work;io 300\nbash;main;idle 400\n"
	     "bash;init 99\nbash;main;tiny 1\n",
	     &e, err, sizeof(err));
	html = render(&e);
	n = html ? parse_frames(html, fr, 64) : 0;
	ok(n == 8, "all frames of 0.1%% or more are drawn (%zu)", n);
	ok(!find(fr, n, "tiny", -1), "a frame under 0.1%% of the total is merged into its parent");
	for (size_t i = 0; i < n; i++) {
		double want = fr[i].n / 2000.0 * 1200;

		if (fabs(fr[i].w - want) > 0.1 + 1e-9) {
			printf("# %s: width %g, want %g\n", fr[i].name, fr[i].w, want);
			bad++;
		}
	}
	ok(n && !bad, "widths are proportional to counts (to 0.1 px)");
	ok(find(fr, n, "main", -1) && find(fr, n, "main", -1)->n == 1901,
	   "a frame's count includes the merged child");
	ok(nested(fr, n), "children lie inside their parents");
	{
		const struct frame *all = find(fr, n, "all", -1), *io = find(fr, n, "io", -1),
				   *spin = find(fr, n, "spin", -1);

		ok(all && all->x == 0 && all->w == 1200, "the root spans the width");
		ok(io && spin && io->y == spin->y && io->x + io->w <= spin->x + 1e-9,
		   "siblings side by side, alphabetical");
		ok(all && spin && spin->y == all->y - 64, "one row per depth, root at the bottom");
	}
	ok(strstr(html, "data-total=\"2000\"") && strstr(html, "data-unit=\"samples\""),
	   "the total and unit are on the svg for the script");
	ok(svg_parses(html) != 0, "the SVG parses as XML");
	free(html);
	evidence_free(&e);

	/* Single frame. */
	fold("only 5\n", &e, err, sizeof(err));
	html = render(&e);
	n = html ? parse_frames(html, fr, 64) : 0;
	ok(n == 2 && find(fr, n, "only", -1) && find(fr, n, "only", -1)->w == 1200,
	   "a single frame spans the width above the root");
	free(html);
	evidence_free(&e);

	/* Empty input. */
	ok(fold("", &e, err, sizeof(err)) == 0 && e.fg.stacks.n == 0 && e.fg.total == 0,
	   "empty folded text is an empty flame graph");
	html = render(&e);
	ok(html && !strstr(html, "<svg") && strstr(html, "empty"), "rendered as a sentence");
	free(html);
	evidence_free(&e);

	/* Unit us. */
	fold("a;b 1500\n", &e, err, sizeof(err));
	e.unit = strdup("us");
	html = render(&e);
	ok(html && strstr(html, "data-unit=\"us\"") && strstr(html, "1.5 ms"),
	   "unit us: counts shown as time");
	free(html);
	evidence_free(&e);
}

static const char *const hostile[] = {
	"<script>alert(1)</script>",
	"\"onload=\"alert(1)",
	"' onmouseover='alert(1)",
	"]]>",
	"<![CDATA[x]]>",
	"</svg><script>alert(2)</script>",
	"bad\xff\xfe\xc0\xafutf8",
	"\xef\xbf\xbe nonchar",
	"ctl\x01\x1b[31m",
	"&amp;&#x3c;",
	"javascript:alert(1)",
};

static void test_hostile(void)
{
	struct strbuf in = { 0 };
	struct evidence e;
	struct frame *fr;
	char err[160], *html, *page;
	size_t n, found = 0;
	int rc;

	for (size_t i = 0; i < sizeof(hostile) / sizeof(*hostile); i++)
		strbuf__printf(&in, "proc;%s;leaf%zu %zu\nproc;x;%s 50\n", hostile[i], i, 100 + i,
			       hostile[i]);
	strbuf__puts(&in, "proc;");
	for (int i = 0; i < 5000; i++)
		strbuf__puts(&in, "<\"&'>");
	strbuf__puts(&in, " 500\n");
	rc = fold(in.buf, &e, err, sizeof(err));
	is_int(rc, 0, "hostile names fold");
	html = render(&e);
	ok(html != NULL, "and render");
	if (!html)
		return;
	ok(!strstr(html, "<script") && !strstr(html, "<![CDATA") && !strstr(html, "]]>"),
	   "no script element, CDATA section or CDATA end in the fragment");
	ok(markup_ok(html), "only our tags and attributes: no handler attribute from data");
	ok(valid_utf8(html), "valid UTF-8 throughout");
	rc = svg_parses(html);
	if (rc < 0)
		printf("ok %d # skip xmllint is not installed (make deps: libxml2-utils)\n", ++tap_n);
	else
		ok(rc == 1, "the SVG with hostile names parses as XML (xmllint --noout)");

	fr = calloc(200, sizeof(*fr));
	n = parse_frames(html, fr, 200);
	for (size_t i = 0; i < sizeof(hostile) / sizeof(*hostile); i++)
		found += find(fr, n, hostile[i], -1) != NULL;
	ok(found >= 5, "names read back as text are the names given (%zu of %zu)", found,
	   sizeof(hostile) / sizeof(*hostile));
	ok(nested(fr, n), "hostile names do not break the layout");
	free(fr);

	/* The whole page: one script, ours, allowed by its hash. */
	{
		const char *script = flamegraph__script();
		char *file = NULL;
		size_t flen = 0;
		struct doc d;
		struct strbuf pg = { 0 };
		uint8_t dg[32];
		struct sha256 h;
		static const char b64[] =
			"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
		char want[64] = "'sha256-";
		size_t k = 8;

		/* run from the top of the tree, as make check does */
		rc = file__read_bounded(AT_FDCWD, "core/report/flamegraph.js", 1u << 20, &file,
					&flen);
		ok(script && !rc && flen == strlen(script) && !memcmp(file, script, flen),
		   "the script is core/report/flamegraph.js, compiled in as it is");
		free(file);
		if (!script)
			goto out;
		doc__init(&d, "t");
		inl__words(doc__heading(&d, 1, NULL), "r");
		doc__flamegraph(&d, &e);
		inl__text(doc__para(&d), "text <!-- sonde:embed 0 --><script>x</script>");
		doc__flamegraph(&d, &e);
		rc = doc__finish(&d) || doc__html(&d, &pg);
		page = rc ? NULL : pg.buf;
		doc__free(&d);
		ok(page != NULL, "page with a flame graph renders");
		if (!page)
			goto out;
		is_int(count_of(page, "<script"), 1, "one script element in the page");
		ok(script && strstr(page, "<script>") &&
			   !strncmp(strstr(page, "<script>") + 8, script, strlen(script)) &&
			   count_of(page, "</script>") == 1,
		   "and it is sonde's own");
		is_int(count_of(page, "<figure class=\"fg\">"), 1, "the graph is drawn once");
		ok(strstr(page, "shown above"), "a second place of the same graph points to it");
		ok(strstr(page, "&lt;!-- sonde:embed 0 --&gt;&lt;script&gt;x&lt;/script&gt;"),
		   "a marker or a script from data stays text");
		sha256__init(&h);
		sha256__update(&h, script, strlen(script));
		sha256__final(&h, dg);
		for (size_t i = 0; i < 32; i += 3) {
			uint32_t v = (uint32_t)dg[i] << 16 |
				     (i + 1 < 32 ? (uint32_t)dg[i + 1] << 8 : 0) |
				     (i + 2 < 32 ? dg[i + 2] : 0);

			want[k++] = b64[v >> 18 & 63];
			want[k++] = b64[v >> 12 & 63];
			want[k++] = i + 1 < 32 ? b64[v >> 6 & 63] : '=';
			want[k++] = i + 2 < 32 ? b64[v & 63] : '=';
		}
		want[k++] = '\'';
		want[k] = '\0';
		ok(strstr(page, "script-src ") && strstr(page, want),
		   "the CSP allows exactly that script, by hash");
		ok(strstr(page, "default-src 'none'"), "and nothing else is loaded");
		ok(!strstr(script, "innerHTML") && !strstr(script, "eval") &&
			   !strstr(script, "insertAdjacentHTML") &&
			   !strstr(script, "document.write"),
		   "the script writes text only");
		free(page);

		pg = (struct strbuf){ 0 };
		doc__init(&d, "t");
		inl__words(doc__para(&d), "x");
		rc = doc__finish(&d) || doc__html(&d, &pg);
		ok(!rc && !strstr(pg.buf, "<script") && !strstr(pg.buf, "script-src"),
		   "a page without flame graphs has no script");
		strbuf__free(&pg);
		doc__free(&d);
	}
out:
	free(html);
	evidence_free(&e);
	strbuf__free(&in);
}

/* Many stacks and long names: the fragment stays within its budget. */
static void test_budget(void)
{
	struct strbuf in = { 0 };
	struct evidence e;
	char err[160], *html;
	unsigned seed = 1;
	int rc;

	for (int i = 0; i < 20000; i++) {
		int depth = 5 + (int)((seed = seed * 1103515245 + 12345) >> 16) % 40;

		strbuf__printf(&in, "proc%d", i % 7);
		for (int d = 0; d < depth; d++) {
			seed = seed * 1103515245 + 12345;
			strbuf__printf(&in, ";ns::Class%u::method_with_a_long_name_%u<int>",
				       (seed >> 16) % 50, d);
		}
		strbuf__printf(&in, " %u\n", 1 + (seed >> 8) % 20);
	}
	rc = fold(in.buf, &e, err, sizeof(err));
	is_int(rc, 0, "20000 random stacks fold");
	html = render(&e);
	ok(html && strlen(html) <= FG_HTML_BUDGET, "the fragment stays under %u KiB (%zu bytes)",
	   FG_HTML_BUDGET >> 10, html ? strlen(html) : 0);
	ok(html && svg_parses(html) != 0, "and parses");
	free(html);
	evidence_free(&e);

	/* 900 equal stacks of 40 distinct 200-byte frames: 36000 frames over 0.1% each. */
	in.len = 0;
	for (int i = 0; i < 900; i++) {
		strbuf__printf(&in, "p%d", i);
		for (int d = 0; d < 40; d++)
			strbuf__printf(&in, ";%0200d", i * 40 + d);
		strbuf__puts(&in, " 1\n");
	}
	fold(in.buf, &e, err, sizeof(err));
	html = render(&e);
	ok(html && strlen(html) <= FG_HTML_BUDGET && strstr(html, "widest frames are drawn"),
	   "36000 wide frames with long names: fewer drawn, under budget (%zu bytes), and said",
	   html ? strlen(html) : 0);
	free(html);
	evidence_free(&e);
	strbuf__free(&in);
}

static void test_wire(void)
{
	struct check_result r = { 0 }, back;
	struct strbuf sb = { 0 };
	struct evidence e;
	char err[160];
	int rc;

	fold("a;b 3\na;c 2\n", &e, err, sizeof(err));
	e.title = strdup("CPU <profile>");
	e.unit = strdup("samples");
	r.st = ST_OK;
	r.evidence = &e;
	r.nevidence = 1;
	check_result__encode(&r, &sb);
	rc = check_result__decode(&back, sb.buf, sb.len);
	ok(!rc && back.nevidence == 1 && back.evidence[0].kind == EV_FLAMEGRAPH &&
		   back.evidence[0].fg.stacks.n == 2 && back.evidence[0].fg.total == 5 &&
		   back.evidence[0].fg.counts[1] == 2 && !strcmp(back.evidence[0].fg.stacks.v[1], "a;c") &&
		   !strcmp(back.evidence[0].title, "CPU <profile>"),
	   "a flame graph crosses the wire");
	if (!rc)
		check_result__free(&back);
	/* Cut anywhere, the decoder refuses it. */
	rc = 0;
	for (size_t cut = 0; cut < sb.len; cut++)
		if (!check_result__decode(&back, sb.buf, cut)) {
			check_result__free(&back);
			rc = 1;
		}
	ok(!rc, "every truncation of it is refused");
	strbuf__free(&sb);
	evidence_free(&e);
}

/*
 * A differential graph (sonde diff): the new profile's shape, each frame's
 * class its change of share of the total against the old profile (or the
 * median of several), its share before on hover.
 */
static void test_diff(void)
{
	struct evidence a, b, c, now;
	const struct folded_stacks *olds[3];
	struct flamediff fd;
	struct strbuf sb = { 0 };
	char err[256];

	fold("app;fast 90\napp;slow 10\n", &a, err, sizeof(err));
	fold("app;fast 10\napp;slow 90\napp;new 5\n", &now, err, sizeof(err));
	olds[0] = &a.fg;
	fd = (struct flamediff){ &now.fg, olds, 1, "samples" };
	ok(!flamegraph__diff_html(&fd, &sb) && sb.buf, "a differential graph renders");
	/* of 105 samples: slow 85.7% (was 10%), fast 9.5% (was 90%), new 4.8% (was none) */
	ok(sb.buf && strstr(sb.buf, "<g class=\"dp4\" data-n=\"90\" data-was=\"10.00%\"><title>slow<"),
	   "a frame 75 points hotter: the darkest red, its share before on it");
	ok(sb.buf && strstr(sb.buf, "<g class=\"dn4\" data-n=\"10\" data-was=\"90.00%\"><title>fast<"),
	   "80 points colder: the darkest blue");
	ok(sb.buf && strstr(sb.buf, "<g class=\"dp3\" data-n=\"5\" data-was=\"0.00%\"><title>new<"),
	   "a frame the old profile lacked: from 0, 4.8 points (3 to 10: dp3)");
	ok(sb.buf && strstr(sb.buf, "<g class=\"d0\" data-n=\"105\" data-was=\"100.00%\"><title>app<"),
	   "the root's process, all of both: unchanged");
	ok(sb.buf && strstr(sb.buf, "against the old profile"), "the caption says what it compares");
	ok(sb.buf && strstr(sb.buf, "<figure class=\"fg\">"), "the same figure as a flame graph: the script serves it");
	strbuf__free(&sb);

	/* a baseline of three: each frame's median share before (fast: 90, 10, 50 -> 50%) */
	fold("app;fast 10\napp;slow 90\n", &b, err, sizeof(err));
	fold("app;fast 50\napp;slow 50\n", &c, err, sizeof(err));
	olds[1] = &b.fg;
	olds[2] = &c.fg;
	fd.nbefore = 3;
	ok(!flamegraph__diff_html(&fd, &sb) && sb.buf &&
		   strstr(sb.buf, "data-was=\"50.00%\"><title>fast<") &&
		   strstr(sb.buf, "the baseline's median"),
	   "against a baseline: the median share of its profiles");
	strbuf__free(&sb);
	evidence_free(&a);
	evidence_free(&b);
	evidence_free(&c);
	evidence_free(&now);
}

int main(void)
{
	test_fold();
	test_diff();
	test_caps();
	test_geometry();
	test_hostile();
	test_budget();
	test_wire();
	return tap_done();
}
