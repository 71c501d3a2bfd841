// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Folded stacks ("root;...;leaf COUNT" per line: stackcollapse-*.pl's format
 * and sonde's profiler's) -> a bounded set of stacks: duplicates merged,
 * frame names cut, deep stacks cut, the smallest stacks merged into one
 * "[other]", every cut counted. The report draws the result (report/flamegraph.c).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/fold.h"
#include "util/hash.h"
#include "util/strbuf.h"

struct fold_entry {
	char *stack; /* NULL: free slot */
	size_t len;
	uint64_t count;
};

struct fold {
	struct fold_entry *slots;
	size_t cap, used;
	uint64_t total, depth_cut, lines;
	struct strbuf line; /* the normalised stack of the current line */
};

struct fold *fold__new(void)
{
	struct fold *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->cap = 1024;
	f->slots = calloc(f->cap, sizeof(*f->slots));
	if (!f->slots) {
		free(f);
		return NULL;
	}
	return f;
}

void fold__free(struct fold *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->cap; i++)
		free(f->slots[i].stack);
	free(f->slots);
	strbuf__free(&f->line);
	free(f);
}

static int fold_grow(struct fold *f)
{
	size_t cap = f->cap * 2;
	struct fold_entry *ns = calloc(cap, sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	for (size_t i = 0; i < f->cap; i++) {
		struct fold_entry *e = &f->slots[i];
		size_t k;

		if (!e->stack)
			continue;
		k = fnv1a(e->stack, e->len, FNV1A_OFFSET) & (cap - 1);
		while (ns[k].stack)
			k = (k + 1) & (cap - 1);
		ns[k] = *e;
	}
	free(f->slots);
	f->slots = ns;
	f->cap = cap;
	return 0;
}

static int fold_add(struct fold *f, const char *s, size_t n, uint64_t count)
{
	size_t k;

	if (f->used * 2 >= f->cap && fold_grow(f))
		return -ENOMEM;
	k = fnv1a(s, n, FNV1A_OFFSET) & (f->cap - 1);
	while (f->slots[k].stack) {
		if (f->slots[k].len == n && !memcmp(f->slots[k].stack, s, n)) {
			f->slots[k].count += count;
			return 0;
		}
		k = (k + 1) & (f->cap - 1);
	}
	f->slots[k].stack = malloc(n + 1);
	if (!f->slots[k].stack)
		return -ENOMEM;
	memcpy(f->slots[k].stack, s, n);
	f->slots[k].stack[n] = '\0';
	f->slots[k].len = n;
	f->slots[k].count = count;
	f->used++;
	return 0;
}

/* One frame into f->line: empty is "[unknown]", NUL is '?', long names are cut. */
static void fold_frame(struct strbuf *sb, const char *s, size_t n)
{
	size_t cut = n, start;

	if (!n) {
		strbuf__puts(sb, "[unknown]");
		return;
	}
	if (n > FG_MAX_FRAME) {
		cut = FG_MAX_FRAME - 3;
		while (cut > 0 && ((unsigned char)s[cut] & 0xc0) == 0x80)
			cut--;
	}
	start = sb->len;
	strbuf__append(sb, s, cut);
	/* A NUL would end the name early everywhere downstream. */
	for (char *p = sb->oom ? NULL : sb->buf + start; p && p < sb->buf + sb->len; p++)
		if (!*p)
			*p = '?';
	if (cut < n)
		strbuf__puts(sb, "...");
}

static int fold_line(struct fold *f, const char *s, size_t n, char *err, size_t errlen)
{
	size_t sp, depth = 0, i, start;
	uint64_t count = 0;

	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	if (!n)
		return 0;
	f->lines++;
	if (n > FG_MAX_LINE) {
		snprintf(err, errlen, "line %llu: longer than %u bytes",
			 (unsigned long long)f->lines, FG_MAX_LINE);
		return -EINVAL;
	}
	for (sp = n; sp > 0 && s[sp - 1] != ' ' && s[sp - 1] != '\t'; sp--)
		;
	if (!sp || sp == n) {
		snprintf(err, errlen, "line %llu: no count after the stack (want \"a;b;c 12\")",
			 (unsigned long long)f->lines);
		return -EINVAL;
	}
	for (i = sp; i < n; i++) {
		if (s[i] < '0' || s[i] > '9' || count > FG_MAX_COUNT / 10) {
			snprintf(err, errlen,
				 "line %llu: the count must be an unsigned integer below 2^53",
				 (unsigned long long)f->lines);
			return -EINVAL;
		}
		count = count * 10 + (uint64_t)(s[i] - '0');
	}
	if (count > FG_MAX_COUNT || f->total + count > FG_MAX_COUNT) {
		snprintf(err, errlen, "line %llu: the counts add up past 2^53",
			 (unsigned long long)f->lines);
		return -EINVAL;
	}
	n = sp - 1;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (!n) {
		snprintf(err, errlen, "line %llu: empty stack", (unsigned long long)f->lines);
		return -EINVAL;
	}
	if (!count)
		return 0;
	f->line.len = 0;
	for (start = 0, i = 0; i <= n; i++) {
		if (i < n && s[i] != ';')
			continue;
		if (depth == FG_MAX_DEPTH - 1 && i < n) {
			/* Keep the root side, where the tree is; say what was cut. */
			strbuf__puts(&f->line, ";" FG_DEEPER);
			f->depth_cut++;
			depth++;
			break;
		}
		if (depth)
			strbuf__append(&f->line, ";", 1);
		fold_frame(&f->line, s + start, i - start);
		depth++;
		start = i + 1;
	}
	if (f->line.oom)
		return -ENOMEM;
	f->total += count;
	return fold_add(f, f->line.buf, f->line.len, count);
}

int fold__text(struct fold *f, const char *text, size_t n, char *err,
			  size_t errlen)
{
	size_t i = 0, eol;
	int rc;

	while (i < n) {
		const char *nl = memchr(text + i, '\n', n - i);

		eol = nl ? (size_t)(nl - text) : n;
		rc = fold_line(f, text + i, eol - i, err, errlen);
		if (rc == -ENOMEM)
			snprintf(err, errlen, "out of memory");
		if (rc)
			return rc;
		i = eol + 1;
	}
	return 0;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct fold_entry *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->stack, y->stack);
}

int fold__finish(struct fold *f, struct folded_stacks *e)
{
	struct fold_entry *v;
	size_t n = 0, keep, bytes = 0, total_bytes = 0, other_at = (size_t)-1;
	int cut;

	v = malloc((f->used + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < f->cap; i++)
		if (f->slots[i].stack) {
			v[n++] = f->slots[i];
			total_bytes += f->slots[i].len + 1;
		}
	qsort(v, n, sizeof(*v), cmp_entry);
	cut = n > FG_MAX_STACKS || total_bytes > FG_MAX_BYTES;
	keep = cut ? FG_MAX_STACKS - 1 : n;
	if (keep > n)
		keep = n;
	e->total = f->total;
	e->stacks_in = n;
	e->depth_cut = f->depth_cut;
	e->counts = calloc(keep + 2, sizeof(double));
	if (!e->counts) {
		free(v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		if (e->stacks.n < keep && bytes + v[i].len + 1 <= FG_MAX_BYTES) {
			if (!strcmp(v[i].stack, FG_OTHER))
				other_at = e->stacks.n;
			bytes += v[i].len + 1;
			if (strv__push(&e->stacks, v[i].stack))
				goto oom;
			e->counts[e->stacks.n - 1] = (double)v[i].count;
		} else {
			/* Smaller stacks only from here on: they all go to "[other]". */
			keep = e->stacks.n;
			e->other += v[i].count;
		}
	}
	if (e->other) {
		if (other_at != (size_t)-1) {
			e->counts[other_at] += (double)e->other;
		} else {
			if (strv__push(&e->stacks, FG_OTHER))
				goto oom;
			e->counts[e->stacks.n - 1] = (double)e->other;
		}
	}
	free(v);
	return 0;
oom:
	free(v);
	return -ENOMEM;
}

void folded_stacks__free(struct folded_stacks *fs)
{
	strv__free(&fs->stacks);
	free(fs->counts);
	memset(fs, 0, sizeof(*fs));
}
