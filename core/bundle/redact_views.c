// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Views of encoded text: JSON string values, Markdown and HTML read as their
 * readers see them (escapes and entities decoded), each byte mapped back to
 * the offset it came from, so the rules match on the view and replace whole
 * source spans, and every byte outside a match is written back unchanged.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/redact_int.h"

/* A text as its reader sees it, with the source offset of each byte. */
struct view {
	char *v;
	size_t *map;
	size_t n, cap;
	int oom;
};

static void view__put(struct view *w, const char *bytes, size_t k, size_t src)
{
	if (w->n + k + 1 > w->cap) {
		size_t ncap = w->cap ? w->cap * 2 : 256;
		char *nv;
		size_t *nm;

		while (ncap < w->n + k + 1)
			ncap *= 2;
		nv = realloc(w->v, ncap);
		if (nv)
			w->v = nv;
		nm = realloc(w->map, ncap * sizeof(*nm));
		if (nm)
			w->map = nm;
		if (!nv || !nm) {
			w->oom = 1;
			return;
		}
		w->cap = ncap;
	}
	for (size_t i = 0; i < k; i++) {
		w->v[w->n] = bytes[i];
		w->map[w->n++] = src;
	}
}

static size_t utf8_put(char *o, uint32_t cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* Scan one view (its map ending at src_end) and go on with the file from there. */
static int view__scan(struct redactor *r, struct view *w, size_t src_end, const char *src,
		      size_t *emitted, struct strbuf *out, unsigned int ctx)
{
	struct scan sc = {
		.r = r, .v = w->v, .n = w->n, .src = src, .emitted = emitted, .out = out,
		.ctx = ctx,
	};

	if (w->oom)
		return -ENOMEM;
	view__put(w, "", 0, 0);
	if (w->oom)
		return -ENOMEM;
	w->map[w->n] = src_end;
	sc.map = w->map;
	redact__scan(&sc);
	w->n = 0;
	return r->oom ? -ENOMEM : 0;
}

/* The rest of the file after the last view (unless rc says it failed); the view freed. rc. */
static int view__finish(struct view *w, const char *s, size_t n, size_t emitted,
			struct strbuf *out, int rc)
{
	if (!rc && out && n > emitted)
		strbuf__append(out, s + emitted, n - emitted);
	free(w->v);
	free(w->map);
	return rc;
}

static unsigned int hex4(const char *s, size_t avail, int *ok)
{
	unsigned int v = 0;

	*ok = avail >= 4;
	for (int i = 0; *ok && i < 4; i++) {
		int h = hexval((unsigned char)s[i]);

		if (h < 0)
			*ok = 0;
		v = v << 4 | (unsigned int)(h < 0 ? 0 : h);
	}
	return v;
}

/* The end of the JSON string that opens at s[i] (its closing quote), or n. */
static size_t json_string_end(const char *s, size_t n, size_t i)
{
	size_t k;

	for (k = i + 1; k < n && s[k] != '"'; k++)
		if (s[k] == '\\')
			k++;
	return k < n ? k : n;
}

static size_t json_skip_space(const char *s, size_t n, size_t i)
{
	while (i < n && is_space((unsigned char)s[i]))
		i++;
	return i;
}

/*
 * The value that closes at s[k] is followed by `, "KEY_cut": true` (key the
 * name before it, [ka, kb)): a capture cut at a cap, whose last token is a
 * fragment (execsnoop's "args" and "args_cut"). Only the next sibling is
 * looked at, so a long object costs nothing more.
 */
static int json_value_cut(const char *s, size_t n, size_t k, size_t ka, size_t kb)
{
	size_t i = json_skip_space(s, n, k + 1), e;

	if (kb <= ka || i >= n || s[i] != ',')
		return 0;
	i = json_skip_space(s, n, i + 1);
	if (i >= n || s[i] != '"')
		return 0;
	e = json_string_end(s, n, i);
	if (e - i - 1 != kb - ka + 4 || memcmp(s + i + 1, s + ka, kb - ka) ||
	    memcmp(s + i + 1 + (kb - ka), "_cut", 4))
		return 0;
	i = json_skip_space(s, n, e + 1);
	if (i >= n || s[i] != ':')
		return 0;
	i = json_skip_space(s, n, i + 1);
	return i + 4 <= n && !memcmp(s + i, "true", 4);
}

/* JSON: the string values, decoded; keys and everything between them are structure. */
int redact__json(struct redactor *r, const char *s, size_t n, struct strbuf *out)
{
	struct view w = { 0 };
	size_t i = 0, emitted = 0, ka = 0, kb = 0;
	int rc = 0;

	while (i < n && !rc) {
		size_t k, after;

		if (s[i] != '"') {
			i++;
			continue;
		}
		k = json_string_end(s, n, i);
		if (k >= n)
			break;
		after = json_skip_space(s, n, k + 1);
		if (after < n && s[after] == ':') {
			/* A key: the name of the value after it. */
			ka = i + 1;
			kb = k;
			i = k + 1;
			continue;
		}
		for (size_t p = i + 1; p < k && !w.oom;) {
			char buf[4];
			size_t at = p;

			if (s[p] != '\\') {
				view__put(&w, s + p, 1, p);
				p++;
				continue;
			}
			switch (s[p + 1]) {
			case 'b': buf[0] = '\b'; break;
			case 'f': buf[0] = '\f'; break;
			case 'n': buf[0] = '\n'; break;
			case 'r': buf[0] = '\r'; break;
			case 't': buf[0] = '\t'; break;
			case 'u': {
				int ok, ok2;
				unsigned int cp = hex4(s + p + 2, k - p - 2, &ok), lo;

				if (!ok) {
					view__put(&w, s + p, 1, p);
					p++;
					continue;
				}
				p += 6;
				if (cp >= 0xd800 && cp < 0xdc00 && p + 6 <= k && s[p] == '\\' &&
				    s[p + 1] == 'u' &&
				    (lo = hex4(s + p + 2, k - p - 2, &ok2), ok2) && lo >= 0xdc00 &&
				    lo < 0xe000) {
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
					p += 6;
				} else if (cp >= 0xd800 && cp < 0xe000) {
					cp = 0xfffd;
				}
				view__put(&w, buf, utf8_put(buf, cp), at);
				continue;
			}
			default: buf[0] = s[p + 1]; break;
			}
			view__put(&w, buf, 1, at);
			p += 2;
		}
		rc = view__scan(r, &w, k, s, &emitted, out,
				json_value_cut(s, n, k, ka, kb) ? REDACT_TRUNCATED : 0);
		ka = kb = 0;
		i = k + 1;
	}
	return view__finish(&w, s, n, emitted, out, rc);
}

static int is_ascii_punct(unsigned char c)
{
	return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') ||
	       (c >= '{' && c <= '~');
}

/* Markdown: read "\\." as "." (md__escape_at escapes ASCII punctuation where it could be markup). */
int redact__md(struct redactor *r, const char *s, size_t n, struct strbuf *out)
{
	struct view w = { 0 };
	size_t emitted = 0;
	int rc;

	for (size_t i = 0; i < n;) {
		if (s[i] == '\\' && i + 1 < n && is_ascii_punct((unsigned char)s[i + 1])) {
			view__put(&w, s + i + 1, 1, i);
			i += 2;
		} else {
			view__put(&w, s + i, 1, i);
			i++;
		}
	}
	rc = view__scan(r, &w, n, s, &emitted, out, 0);
	return view__finish(&w, s, n, emitted, out, rc);
}

/* The entities cmark and html.c write (and a few more); others stay as written. */
static const char *named_entity(const char *name, size_t len)
{
	static const struct {
		const char *name;
		const char *bytes;
	} named[] = {
		{ "amp", "&" }, { "lt", "<" }, { "gt", ">" }, { "quot", "\"" }, { "apos", "'" },
		{ "nbsp", "\xc2\xa0" },
	};

	for (size_t k = 0; k < sizeof(named) / sizeof(*named); k++)
		if (len == strlen(named[k].name) && !memcmp(name, named[k].name, len))
			return named[k].bytes;
	return NULL;
}

/* Decode HTML text [a, b) (entities) into w. */
static void html_view(struct view *w, const char *s, size_t a, size_t b)
{
	for (size_t i = a; i < b;) {
		size_t semi = i + 1;
		const char *bytes;
		char buf[4];
		int done = 0;

		if (s[i] != '&') {
			view__put(w, s + i, 1, i);
			i++;
			continue;
		}
		while (semi < b && semi - i < 12 && s[semi] != ';')
			semi++;
		if (semi < b && s[semi] == ';') {
			const char *ent = s + i + 1;
			size_t el = semi - i - 1;

			if (el > 1 && ent[0] == '#') {
				uint32_t cp = 0;
				int hex = ent[1] == 'x' || ent[1] == 'X', ok = 1;

				for (size_t k = hex ? 2 : 1; k < el && ok; k++) {
					unsigned char ch = (unsigned char)ent[k];
					int d = hex ? hexval(ch) : is_digit(ch) ? ch - '0' : -1;

					ok = d >= 0 && cp < 0x110000;
					cp = cp * (hex ? 16 : 10) + (uint32_t)(d < 0 ? 0 : d);
				}
				if (ok && el > (size_t)(hex ? 2 : 1) && cp && cp < 0x110000 &&
				    (cp < 0xd800 || cp > 0xdfff)) {
					view__put(w, buf, utf8_put(buf, cp), i);
					done = 1;
				}
			} else if ((bytes = named_entity(ent, el))) {
				view__put(w, bytes, strlen(bytes), i);
				done = 1;
			}
		}
		if (done) {
			i = semi + 1;
		} else {
			view__put(w, s + i, 1, i);
			i++;
		}
	}
}

static int html_segment(struct redactor *r, struct view *w, const char *s, size_t a, size_t b,
			size_t *emitted, struct strbuf *out)
{
	if (b <= a)
		return 0;
	html_view(w, s, a, b);
	return view__scan(r, w, b, s, emitted, out, 0);
}

/* Case-insensitive search for the lowercase needle in s[from, n). */
static size_t find_ci(const char *s, size_t n, size_t from, const char *needle)
{
	size_t nl = strlen(needle);

	for (size_t i = from; i + nl <= n; i++)
		if (eq_ci(s + i, nl, needle))
			return i;
	return n;
}

/* HTML: text between tags and attribute values; tag and attribute names, <style>, stay. */
int redact__html(struct redactor *r, const char *s, size_t n, struct strbuf *out)
{
	struct view w = { 0 };
	size_t i = 0, emitted = 0;
	int rc = 0;

	while (i < n && !rc) {
		size_t t, name, ne;

		if (s[i] != '<') {
			for (t = i; t < n && s[t] != '<'; t++)
				;
			rc = html_segment(r, &w, s, i, t, &emitted, out);
			i = t;
			continue;
		}
		if (i + 4 <= n && !memcmp(s + i, "<!--", 4)) {
			t = find_ci(s, n, i + 4, "-->");
			rc = html_segment(r, &w, s, i + 4, t, &emitted, out);
			i = t + 3 < n ? t + 3 : n;
			continue;
		}
		name = i + 1 + (i + 1 < n && s[i + 1] == '/');
		for (ne = name; ne < n && (is_alpha((unsigned char)s[ne]) ||
					   is_digit((unsigned char)s[ne]));
		     ne++)
			;
		for (t = ne; t < n && s[t] != '>' && !rc; t++) {
			char q = s[t];
			size_t e;

			if (q != '"' && q != '\'')
				continue;
			for (e = t + 1; e < n && s[e] != q; e++)
				;
			rc = html_segment(r, &w, s, t + 1, e, &emitted, out);
			t = e;
		}
		i = t < n ? t + 1 : n;
		/* The stylesheet is core/report/report.css, never data; so would a script be. */
		if (s[name - 1] != '/' &&
		    (eq_ci(s + name, ne - name, "style") || eq_ci(s + name, ne - name, "script"))) {
			char close[16];

			snprintf(close, sizeof(close), "</%s", eq_ci(s + name, ne - name, "style") ?
								   "style" : "script");
			i = find_ci(s, n, i, close);
		}
	}
	return view__finish(&w, s, n, emitted, out, rc);
}
