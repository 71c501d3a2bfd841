// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A check's result, and its wire form: each check runs in a child process
 * (see engine__run_check) and hands its result to the parent through a pipe
 * in this length-prefixed binary form. The parent trusts nothing in it: every
 * count and length is bounded before anything is allocated.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lua/engine.h"
#include "util/json.h"

static const char *const status_names[] = { "ok", "warn", "crit", "unknown", "skip", "error" };

const char *status__name(enum status st)
{
	return status_names[st];
}

int status__rank(enum status st)
{
	static const int rank[] = { [ST_SKIP] = 0, [ST_OK] = 1,    [ST_UNKNOWN] = 2,
				    [ST_ERROR] = 3, [ST_WARN] = 4, [ST_CRIT] = 5 };
	return rank[st];
}

void check_result__free(struct check_result *r)
{
	for (size_t i = 0; i < r->nmetrics; i++) {
		free(r->metrics[i].name);
		free(r->metrics[i].instance);
		free(r->metrics[i].unit);
	}
	free(r->metrics);
	for (size_t i = 0; i < r->nunknowns; i++) {
		free(r->unknowns[i].name);
		free(r->unknowns[i].reason);
	}
	free(r->unknowns);
	for (size_t i = 0; i < r->nnas; i++) {
		free(r->nas[i].name);
		free(r->nas[i].instance);
		free(r->nas[i].reason);
	}
	free(r->nas);
	for (size_t i = 0; i < r->nculprits; i++) {
		free(r->culprits[i].comm);
		free(r->culprits[i].cmdline);
	}
	free(r->culprits);
	for (size_t i = 0; i < r->nevidence; i++) {
		struct evidence *e = &r->evidence[i];

		free(e->title);
		free(e->unit);
		for (size_t k = 0; k < e->nrows; k++) {
			for (size_t c = 0; c < e->columns.n; c++)
				free(e->rows[k][c]);
			free(e->rows[k]);
		}
		free(e->rows);
		strv__free(&e->columns);
		free(e->values);
		folded_stacks__free(&e->fg);
	}
	free(r->evidence);
	strv__free(&r->next);
	free(r->summary);
	free(r->error);
	free(r->traceback);
	memset(r, 0, sizeof(*r));
}

/* ---- writing ---- */

static void put(struct strbuf *sb, const void *p, size_t n)
{
	strbuf__append(sb, p, n);
}

static void put_u64(struct strbuf *sb, uint64_t v)
{
	put(sb, &v, sizeof(v));
}

static void put_f64(struct strbuf *sb, double v)
{
	put(sb, &v, sizeof(v));
}

/* NULL and "" differ: NULL is written as length UINT64_MAX. */
static void put_str(struct strbuf *sb, const char *s)
{
	if (!s) {
		put_u64(sb, UINT64_MAX);
		return;
	}
	put_u64(sb, strlen(s));
	put(sb, s, strlen(s));
}

static void put_strv(struct strbuf *sb, const struct strv *sv)
{
	put_u64(sb, sv->n);
	for (size_t i = 0; i < sv->n; i++)
		put_str(sb, sv->v[i]);
}

void check_result__encode(const struct check_result *r, struct strbuf *sb)
{
	put_u64(sb, r->st);
	put_u64(sb, r->nmetrics);
	for (size_t i = 0; i < r->nmetrics; i++) {
		const struct metric *m = &r->metrics[i];

		put_str(sb, m->name);
		put_str(sb, m->instance);
		put_str(sb, m->unit);
		put_f64(sb, m->value);
		put_u64(sb, (uint64_t)m->has_warn | (uint64_t)m->has_crit << 1 |
				    (uint64_t)m->lower_is_worse << 2);
		put_f64(sb, m->warn);
		put_f64(sb, m->crit);
		put_u64(sb, m->st);
		put_u64(sb, (uint64_t)m->has_range);
		put_f64(sb, m->range_lo);
		put_f64(sb, m->range_hi);
	}
	put_u64(sb, r->nunknowns);
	for (size_t i = 0; i < r->nunknowns; i++) {
		put_str(sb, r->unknowns[i].name);
		put_str(sb, r->unknowns[i].reason);
	}
	put_u64(sb, r->nculprits);
	for (size_t i = 0; i < r->nculprits; i++) {
		put_u64(sb, (uint64_t)r->culprits[i].pid);
		put_str(sb, r->culprits[i].comm);
		put_str(sb, r->culprits[i].cmdline);
		put_f64(sb, r->culprits[i].share);
		put_u64(sb, (uint64_t)r->culprits[i].kernel_thread);
	}
	put_u64(sb, r->nevidence);
	for (size_t i = 0; i < r->nevidence; i++) {
		const struct evidence *e = &r->evidence[i];

		put_u64(sb, e->kind);
		put_str(sb, e->title);
		put_str(sb, e->unit);
		put_strv(sb, &e->columns);
		put_u64(sb, e->nrows);
		for (size_t k = 0; k < e->nrows; k++)
			for (size_t c = 0; c < e->columns.n; c++)
				put_str(sb, e->rows[k][c]);
		put_u64(sb, e->nvalues);
		for (size_t k = 0; k < e->nvalues; k++)
			put_f64(sb, e->values[k]);
		put_f64(sb, e->step_s);
		put_strv(sb, &e->fg.stacks);
		for (size_t k = 0; k < e->fg.stacks.n; k++)
			put_f64(sb, e->fg.counts[k]);
		put_u64(sb, e->fg.total);
		put_u64(sb, e->fg.stacks_in);
		put_u64(sb, e->fg.other);
		put_u64(sb, e->fg.depth_cut);
	}
	put_strv(sb, &r->next);
	put_str(sb, r->summary);
	put_str(sb, r->error);
	put_str(sb, r->traceback);
	put_f64(sb, r->elapsed_ms);
	put_u64(sb, r->mem_peak);
	put_u64(sb, r->instructions);
	put_f64(sb, r->score);
	put_u64(sb, r->nnas);
	for (size_t i = 0; i < r->nnas; i++) {
		put_str(sb, r->nas[i].name);
		put_str(sb, r->nas[i].instance);
		put_str(sb, r->nas[i].reason);
	}
}

/* ---- reading ---- */

struct reader_buf {
	const char *p, *end;
	int bad;
};

/* Bounds on what a result may hold (the producer bounds them tighter). */
#define WIRE_MAX_ITEMS 100000
#define WIRE_MAX_STR (1u << 20)

static uint64_t get_u64(struct reader_buf *rb)
{
	uint64_t v = 0;

	if (rb->bad || (size_t)(rb->end - rb->p) < sizeof(v)) {
		rb->bad = 1;
		return 0;
	}
	memcpy(&v, rb->p, sizeof(v));
	rb->p += sizeof(v);
	return v;
}

static double get_f64(struct reader_buf *rb)
{
	double v = 0;

	if (rb->bad || (size_t)(rb->end - rb->p) < sizeof(v)) {
		rb->bad = 1;
		return 0;
	}
	memcpy(&v, rb->p, sizeof(v));
	rb->p += sizeof(v);
	return v;
}

static size_t get_count(struct reader_buf *rb)
{
	uint64_t n = get_u64(rb);

	if (n > WIRE_MAX_ITEMS) {
		rb->bad = 1;
		return 0;
	}
	return (size_t)n;
}

static char *get_str(struct reader_buf *rb)
{
	uint64_t n = get_u64(rb);
	char *s;

	if (rb->bad || n == UINT64_MAX)
		return NULL;
	if (n > WIRE_MAX_STR || n > (uint64_t)(rb->end - rb->p)) {
		rb->bad = 1;
		return NULL;
	}
	s = malloc((size_t)n + 1);
	if (!s) {
		rb->bad = 1;
		return NULL;
	}
	memcpy(s, rb->p, (size_t)n);
	s[n] = '\0';
	rb->p += n;
	return s;
}

static void *get_array(struct reader_buf *rb, size_t n, size_t size)
{
	void *a;

	if (rb->bad)
		return NULL;
	a = calloc(n + 1, size);
	if (!a)
		rb->bad = 1;
	return a;
}

static void get_strv(struct reader_buf *rb, struct strv *sv)
{
	size_t n = get_count(rb);

	for (size_t i = 0; i < n && !rb->bad; i++) {
		char *s = get_str(rb);

		if (strv__push(sv, s ? s : ""))
			rb->bad = 1;
		free(s);
	}
}

static enum status get_status(struct reader_buf *rb)
{
	uint64_t v = get_u64(rb);

	if (v > ST_ERROR) {
		rb->bad = 1;
		return ST_ERROR;
	}
	return (enum status)v;
}

int check_result__decode(struct check_result *r, const void *buf, size_t len)
{
	struct reader_buf rb = { buf, (const char *)buf + len, 0 };
	size_t n;

	memset(r, 0, sizeof(*r));
	r->st = get_status(&rb);
	n = get_count(&rb);
	r->metrics = get_array(&rb, n, sizeof(*r->metrics));
	for (size_t i = 0; i < n && !rb.bad; i++, r->nmetrics++) {
		struct metric *m = &r->metrics[i];
		uint64_t flags;

		m->name = get_str(&rb);
		m->instance = get_str(&rb);
		m->unit = get_str(&rb);
		m->value = get_f64(&rb);
		flags = get_u64(&rb);
		m->has_warn = flags & 1;
		m->has_crit = !!(flags & 2);
		m->lower_is_worse = !!(flags & 4);
		m->warn = get_f64(&rb);
		m->crit = get_f64(&rb);
		m->st = get_status(&rb);
		m->has_range = get_u64(&rb) != 0;
		m->range_lo = get_f64(&rb);
		m->range_hi = get_f64(&rb);
		if (!m->name)
			m->name = strdup("?");
	}
	n = get_count(&rb);
	r->unknowns = get_array(&rb, n, sizeof(*r->unknowns));
	for (size_t i = 0; i < n && !rb.bad; i++, r->nunknowns++) {
		r->unknowns[i].name = get_str(&rb);
		r->unknowns[i].reason = get_str(&rb);
		if (!r->unknowns[i].name)
			r->unknowns[i].name = strdup("?");
		if (!r->unknowns[i].reason)
			r->unknowns[i].reason = strdup("?");
	}
	n = get_count(&rb);
	r->culprits = get_array(&rb, n, sizeof(*r->culprits));
	for (size_t i = 0; i < n && !rb.bad; i++, r->nculprits++) {
		r->culprits[i].pid = (int)get_u64(&rb);
		r->culprits[i].comm = get_str(&rb);
		r->culprits[i].cmdline = get_str(&rb);
		r->culprits[i].share = get_f64(&rb);
		r->culprits[i].kernel_thread = get_u64(&rb) != 0;
		if (!r->culprits[i].comm)
			r->culprits[i].comm = strdup("?");
	}
	n = get_count(&rb);
	r->evidence = get_array(&rb, n, sizeof(*r->evidence));
	for (size_t i = 0; i < n && !rb.bad; i++, r->nevidence++) {
		struct evidence *e = &r->evidence[i];
		size_t nrows, nvalues;
		uint64_t kind = get_u64(&rb);

		if (kind > EV_FLAMEGRAPH)
			rb.bad = 1;
		e->kind = kind <= EV_FLAMEGRAPH ? (enum evidence_kind)kind : EV_NOTE;
		e->title = get_str(&rb);
		e->unit = get_str(&rb);
		get_strv(&rb, &e->columns);
		nrows = get_count(&rb);
		e->rows = get_array(&rb, nrows, sizeof(*e->rows));
		for (size_t k = 0; k < nrows && !rb.bad; k++, e->nrows++) {
			e->rows[k] = get_array(&rb, e->columns.n, sizeof(char *));
			for (size_t c = 0; c < e->columns.n && !rb.bad; c++)
				e->rows[k][c] = get_str(&rb);
			if (rb.bad)
				break;
		}
		nvalues = get_count(&rb);
		e->values = get_array(&rb, nvalues, sizeof(double));
		for (size_t k = 0; k < nvalues && !rb.bad; k++)
			e->values[e->nvalues++] = get_f64(&rb);
		e->step_s = get_f64(&rb);
		get_strv(&rb, &e->fg.stacks);
		/* one count per stack */
		e->fg.counts = get_array(&rb, e->fg.stacks.n, sizeof(double));
		for (size_t k = 0; k < e->fg.stacks.n && !rb.bad; k++)
			e->fg.counts[k] = get_f64(&rb);
		e->fg.total = get_u64(&rb);
		e->fg.stacks_in = get_u64(&rb);
		e->fg.other = get_u64(&rb);
		e->fg.depth_cut = get_u64(&rb);
	}
	get_strv(&rb, &r->next);
	r->summary = get_str(&rb);
	r->error = get_str(&rb);
	r->traceback = get_str(&rb);
	r->elapsed_ms = get_f64(&rb);
	r->mem_peak = (size_t)get_u64(&rb);
	r->instructions = get_u64(&rb);
	r->score = get_f64(&rb);
	n = get_count(&rb);
	r->nas = get_array(&rb, n, sizeof(*r->nas));
	for (size_t i = 0; i < n && !rb.bad; i++, r->nnas++) {
		r->nas[i].name = get_str(&rb);
		r->nas[i].instance = get_str(&rb);
		r->nas[i].reason = get_str(&rb);
		if (!r->nas[i].name)
			r->nas[i].name = strdup("?");
		if (!r->nas[i].reason)
			r->nas[i].reason = strdup("?");
	}
	if (rb.bad || rb.p != rb.end) {
		check_result__free(r);
		return -EINVAL;
	}
	return 0;
}
