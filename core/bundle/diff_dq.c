// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sonde diff: quantities and their noise (diff_int.h). Every section judges
 * its changes the same way: a value and the interval its noise leaves it
 * in on each side; a baseline of several audits takes their median and the
 * span of all their intervals; a change is one whose intervals do not
 * overlap, and one the shown figure rounds away is none.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ctype.h>

#include "bundle/diff_int.h"
#include "util/units.h"

void dq__json_interval(struct json *j, const char *key, const struct dq *q)
{
	json__key(j, key);
	if (!q->has) {
		json__null(j);
		return;
	}
	json__begin_array(j);
	json__number(j, q->lo);
	json__number(j, q->hi);
	json__end_array(j);
}

void diff__fold_ids(char *s)
{
	char *w = s;

	for (char *p = s; *p;) {
		size_t n = 0;

		while (isxdigit((unsigned char)p[n]))
			n++;
		if (n >= 12) {
			*w++ = '*';
			p += n;
		} else {
			memmove(w, p, n ? n : 1);
			w += n ? n : 1;
			p += n ? n : 1;
		}
	}
	*w = '\0';
}

const char *const dverdict_names[] = { "same", "up", "down", "within noise",
				       "changed, spread unknown" };

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double diff__median(double *v, size_t n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	return v[(n - 1) / 2];
}

struct dq dq__baseline(const struct dq *q, size_t n)
{
	struct dq b = { .v = NAN };
	double vals[DIFF_BASELINE_MAX];
	size_t k = 0;

	for (size_t i = 0; i < n && k < DIFF_BASELINE_MAX; i++) {
		double lo = q[i].has ? q[i].lo : q[i].v, hi = q[i].has ? q[i].hi : q[i].v;

		if (isnan(q[i].v))
			continue;
		vals[k++] = q[i].v;
		b.lo = b.has ? fmin(b.lo, fmin(lo, q[i].v)) : fmin(lo, q[i].v);
		b.hi = b.has ? fmax(b.hi, fmax(hi, q[i].v)) : fmax(hi, q[i].v);
		b.has = 1;
	}
	/* one audit: its own interval, or none */
	if (k == 1) {
		for (size_t i = 0; i < n; i++)
			if (!isnan(q[i].v))
				return q[i];
	}
	b.v = diff__median(vals, k);
	return b;
}

enum dverdict dq__verdict(const struct dq *o, const struct dq *n, const char *unit)
{
	char a[64], b[64];

	units__value(a, sizeof(a), o->v, unit);
	units__value(b, sizeof(b), n->v, unit);
	if (o->v == n->v || !strcmp(a, b))
		return DV_SAME;
	if (!o->has || !n->has)
		return DV_UNKNOWN;
	/* half-open, as log2 slots are: [lo, hi) and [hi, ...) do not overlap */
	if (n->lo >= o->hi && n->v > o->v)
		return DV_UP;
	if (n->hi <= o->lo && n->v < o->v)
		return DV_DOWN;
	return DV_WITHIN;
}

