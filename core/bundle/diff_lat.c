// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sonde diff, latency: the log2 histograms of the latency tools
 * (raw/bpf/TOOL.json and the drill-down's: runqlat, biolatency per disk and
 * per operation, fslatency in all and per mount, offcputime's blocks), their
 * p50, p90 and p99 old and new, each with a confidence interval, and their
 * heat maps side by side.
 *
 * Confidence: a window's events are a sample of the workload's latencies,
 * so the number of events below the true percentile q is binomial; the
 * ranks N q -/+ 2.58 sqrt(N q (1 - q)) bound it at 99%, and each is widened
 * to the bounds of the log2 slot that holds it, since the histogram cannot
 * place it closer (util/log2hist.h). A percentile changed when the two
 * intervals do not overlap; a baseline's interval is the span of its
 * audits' intervals.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/diff_int.h"
#include "report/report.h"
#include "util/log2hist.h"
#include "util/tty.h"
#include "util/units.h"

#define SLOTS 64
#define Z99 2.58
#define HISTS_MAX 256

static const double qs[LAT_QS] = { 50, 90, 99 };

struct lhist {
	char *name;
	const char *unit;
	double b[SLOTS];
	double count;
	struct evidence *heat; /* EV_HEATMAP of its intervals, or NULL */
};

struct lat_facts {
	struct lhist *h;
	size_t n;
	char why[256];
};

/* A JSON array of numbers into b (zeroed first, at most SLOTS); the events counted. */
static double slots_of(const struct jval *a, double *b)
{
	double total = 0;

	memset(b, 0, SLOTS * sizeof(*b));
	for (size_t i = 0; a && a->type == J_ARRAY && i < a->len && i < SLOTS; i++)
		if (a->items[i].type == J_NUMBER && a->items[i].number > 0) {
			b[i] = a->items[i].number;
			total += b[i];
		}
	return total;
}

static void heat_free(struct evidence *e)
{
	if (!e)
		return;
	free(e->title);
	free(e->values);
	free(e);
}

/*
 * The heat map of intervals { interval_ms, counts: [[slot counts], ...] }
 * as an EV_HEATMAP evidence (columns the intervals, rows the log2 slots), or
 * NULL when there is none.
 */
static struct evidence *heat_of(const struct jval *iv, const char *title, const char *unit)
{
	const struct jval *counts = jval__get(iv, "counts");
	struct evidence *e;
	size_t rows = 1;
	double ms;

	if (!counts || counts->type != J_ARRAY || !counts->len ||
	    jval__num(iv, "interval_ms", &ms) || !(ms > 0))
		return NULL;
	for (size_t c = 0; c < counts->len; c++)
		if (counts->items[c].type == J_ARRAY && counts->items[c].len > rows)
			rows = counts->items[c].len;
	if (rows > SLOTS)
		rows = SLOTS;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->kind = EV_HEATMAP;
	e->title = strdup(title);
	e->unit = (char *)unit; /* static: never freed */
	e->hm_rows = rows;
	e->step_s = ms / 1000;
	e->nvalues = counts->len * rows;
	e->values = calloc(e->nvalues, sizeof(double));
	if (!e->title || !e->values) {
		heat_free(e);
		return NULL;
	}
	for (size_t c = 0; c < counts->len; c++) {
		const struct jval *col = &counts->items[c];

		for (size_t r = 0; col->type == J_ARRAY && r < col->len && r < rows; r++)
			if (col->items[r].type == J_NUMBER && col->items[r].number > 0)
				e->values[c * rows + r] = col->items[r].number;
	}
	return e;
}

static int add(struct lat_facts *lf, const char *name, const char *unit, const struct jval *hist,
	       const struct jval *intervals)
{
	struct lhist *h;
	char title[300];

	if (lf->n >= HISTS_MAX)
		return 0;
	if (!lf->h && !(lf->h = calloc(HISTS_MAX, sizeof(*lf->h))))
		return -ENOMEM;
	h = &lf->h[lf->n];
	h->name = strdup(name);
	if (!h->name)
		return -ENOMEM;
	h->unit = unit;
	h->count = slots_of(hist, h->b);
	/* no whole-window histogram (offcputime): the intervals' sum is it */
	if (!hist && intervals) {
		const struct jval *counts = jval__get(intervals, "counts");
		double col[SLOTS];

		for (size_t c = 0; counts && counts->type == J_ARRAY && c < counts->len; c++) {
			h->count += slots_of(&counts->items[c], col);
			for (size_t s = 0; s < SLOTS; s++)
				h->b[s] += col[s];
		}
	}
	snprintf(title, sizeof(title), "%s over the window", name);
	h->heat = heat_of(intervals, title, unit);
	lf->n++;
	return 0;
}

static const char *unit_of(const struct jval *data)
{
	const char *u = jval__str(data, "unit");

	return u && !strcmp(u, "ns") ? "ns" : "us";
}

/* One window's tools (suffix "" for the window, " (drill-down)" for the second one). */
static int window_hists(struct analysis *an, const char *suffix, struct lat_facts *lf)
{
	static const char *const ops[] = { "read", "write", "discard", "flush", "other" };
	const struct jval *doc, *data;
	char why[256], name[300];
	int rc = 0;

	if ((doc = analysis__bpf(an, "runqlat", why, sizeof(why))) &&
	    (data = jval__get(doc, "data"))) {
		snprintf(name, sizeof(name), "runqlat%s", suffix);
		rc = add(lf, name, unit_of(data), jval__get(data, "hist"),
			 jval__get(data, "intervals"));
	}
	if (!rc && (doc = analysis__bpf(an, "biolatency", why, sizeof(why))) &&
	    (data = jval__get(doc, "data"))) {
		const struct jval *disks = jval__get(data, "disks");

		for (size_t i = 0; !rc && disks && disks->type == J_ARRAY && i < disks->len; i++) {
			const struct jval *dk = &disks->items[i], *opv = jval__get(dk, "ops");
			const char *dn = jval__str(dk, "name");

			if (!dn)
				continue;
			/* the disk, every operation (its intervals), then each operation */
			if (jval__get(dk, "intervals")) {
				snprintf(name, sizeof(name), "biolatency %s%s", dn, suffix);
				rc = add(lf, name, "us", NULL, jval__get(dk, "intervals"));
			}
			for (size_t k = 0; !rc && k < sizeof(ops) / sizeof(*ops); k++) {
				const struct jval *op = jval__get(opv, ops[k]);

				if (!op)
					continue;
				snprintf(name, sizeof(name), "biolatency %s %s%s", dn, ops[k],
					 suffix);
				rc = add(lf, name, "us", jval__get(op, "total"), NULL);
			}
		}
	}
	if (!rc && (doc = analysis__bpf(an, "fslatency", why, sizeof(why))) &&
	    (data = jval__get(doc, "data"))) {
		const struct jval *mounts = jval__get(data, "by_mount");

		snprintf(name, sizeof(name), "fslatency%s", suffix);
		rc = add(lf, name, "us", jval__get(data, "hist"), jval__get(data, "intervals"));
		for (size_t i = 0; !rc && mounts && mounts->type == J_ARRAY && i < mounts->len;
		     i++) {
			const char *m = jval__str(&mounts->items[i], "mount");

			if (!m || !*m)
				continue;
			snprintf(name, sizeof(name), "fslatency %s%s", m, suffix);
			rc = add(lf, name, "us", jval__get(&mounts->items[i], "hist"), NULL);
		}
	}
	if (!rc && (doc = analysis__bpf(an, "offcputime", why, sizeof(why))) &&
	    (data = jval__get(doc, "data")) && jval__get(data, "intervals")) {
		snprintf(name, sizeof(name), "offcputime blocks%s", suffix);
		rc = add(lf, name, "us", NULL, jval__get(data, "intervals"));
	}
	return rc;
}

int diff_lat__facts(struct analysis *an, struct analysis *dd, struct lat_facts **out)
{
	struct lat_facts *lf = calloc(1, sizeof(*lf));
	int rc;

	*out = lf;
	if (!lf)
		return -ENOMEM;
	rc = window_hists(an, "", lf);
	if (!rc && dd)
		rc = window_hists(dd, " (drill-down)", lf);
	if (!rc && !lf->n)
		snprintf(lf->why, sizeof(lf->why), "no latency tool ran");
	return rc;
}

void diff_lat__facts_free(struct lat_facts *lf)
{
	if (!lf)
		return;
	for (size_t i = 0; i < lf->n; i++) {
		free(lf->h[i].name);
		heat_free(lf->h[i].heat);
	}
	free(lf->h);
	free(lf);
}

static const struct lhist *find(const struct lat_facts *lf, const char *name)
{
	for (size_t i = 0; lf && i < lf->n; i++)
		if (!strcmp(lf->h[i].name, name))
			return &lf->h[i];
	return NULL;
}

/* Percentile k of h with its 99% interval (NAN when h counts nothing). */
static struct dq pct_q(const struct lhist *h, int k)
{
	struct dq q = { .v = NAN };

	if (!h || !(h->count > 0))
		return q;
	q.v = log2hist__percentile(h->b, SLOTS, qs[k]);
	q.has = !log2hist__percentile_ci(h->b, SLOTS, qs[k], Z99, &q.lo, &q.hi);
	return q;
}

/* One histogram of the new side against the old ones that have it: 1 compared, 0 not. */
static int compare_hist(struct diff_side *const *old, size_t nold, const struct lhist *nh,
			struct lat_change *c)
{
	struct dq q[DIFF_BASELINE_MAX];
	size_t have = 0;

	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < nold; i++) {
		const struct lhist *oh = find(old[i]->lat, nh->name);

		if (oh && oh->count > 0) {
			have++;
			c->count_old = c->count_old > 0 ? c->count_old : oh->count;
			if (!c->heat[0])
				c->heat[0] = oh->heat; /* the newest baseline's */
		}
	}
	if (!have || !(nh->count > 0))
		return 0;
	for (int k = 0; k < LAT_QS; k++) {
		size_t m = 0;

		for (size_t i = 0; i < nold; i++)
			q[m++] = pct_q(find(old[i]->lat, nh->name), k);
		c->o[k] = dq__baseline(q, m);
		c->n[k] = pct_q(nh, k);
		c->v[k] = dq__verdict(&c->o[k], &c->n[k], nh->unit);
	}
	c->name = strdup(nh->name);
	c->unit = nh->unit;
	c->count_new = nh->count;
	c->heat[1] = nh->heat;
	if (!c->heat[0] || !c->heat[1])
		c->heat[0] = c->heat[1] = NULL;
	return c->name ? 1 : -ENOMEM;
}

int diff_lat__compute(struct diff_side *const *old, size_t nold, const struct diff_side *new_,
		      struct lat_diff *ld)
{
	int rc = 0;

	memset(ld, 0, sizeof(*ld));
	ld->nold = nold;
	if (!new_->lat || !new_->lat->n) {
		snprintf(ld->why, sizeof(ld->why), "%s: %s", new_->name,
			 new_->lat ? new_->lat->why : new_->raw_why);
		return 0;
	}
	ld->c = calloc(new_->lat->n, sizeof(*ld->c));
	if (!ld->c)
		return -ENOMEM;
	for (size_t i = 0; i < new_->lat->n && rc >= 0; i++) {
		rc = compare_hist(old, nold, &new_->lat->h[i], &ld->c[ld->n]);
		ld->n += rc > 0;
	}
	for (size_t i = 0; !ld->n && rc >= 0 && i < nold && !ld->why[0]; i++)
		if (!old[i]->lat)
			snprintf(ld->why, sizeof(ld->why), "%s: %s", old[i]->name, old[i]->raw_why);
	if (!ld->n && rc >= 0 && !ld->why[0])
		snprintf(ld->why, sizeof(ld->why),
			 "no latency histogram in both (the tools ran in one only, or counted "
			 "nothing)");
	return rc < 0 ? rc : 0;
}

void diff_lat__free(struct lat_diff *ld)
{
	for (size_t i = 0; i < ld->n; i++)
		free(ld->c[i].name);
	free(ld->c);
	memset(ld, 0, sizeof(*ld));
}

size_t diff_lat__regressions(const struct lat_diff *ld, char *what, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < ld->n; i++)
		for (int k = 0; k < LAT_QS; k++) {
			char a[48], b[48];

			if (ld->c[i].v[k] != DV_UP)
				continue;
			if (!n++ && what) {
				units__value(a, sizeof(a), ld->c[i].o[k].v, ld->c[i].unit);
				units__value(b, sizeof(b), ld->c[i].n[k].v, ld->c[i].unit);
				snprintf(what, len, "%s p%g rose beyond its confidence: %s -> %s",
					 ld->c[i].name, qs[k], a, b);
			}
		}
	return n;
}

/* "12 us -> 2.1 ms up (99%: 8..16 us, 1.02..4.1 ms)" */
static void pct_words(char *buf, size_t len, const struct lat_change *c, int k)
{
	char a[48], b[48], r[256];

	units__value(a, sizeof(a), c->o[k].v, c->unit);
	units__value(b, sizeof(b), c->n[k].v, c->unit);
	snprintf(buf, len, "%s -> %s %s", a, b, dverdict_names[c->v[k]]);
	if (c->v[k] != DV_SAME && c->o[k].has && c->n[k].has) {
		char ol[96], nl[96];

		units__range(ol, sizeof(ol), c->o[k].lo, c->o[k].hi, c->unit);
		units__range(nl, sizeof(nl), c->n[k].lo, c->n[k].hi, c->unit);
		snprintf(r, sizeof(r), " (99%%: %s, %s)", ol, nl);
		strncat(buf, r, len - strlen(buf) - 1);
	}
}

void diff_lat__text(FILE *out, const struct lat_diff *ld)
{
	char w[512], a[48], b[48];

	fputs("\nLatency: p50, p90, p99 old -> new (99% confidence intervals)", out);
	if (!ld->n) {
		fputs(": none compared: ", out);
		tty__puts(out, ld->why);
		fputc('\n', out);
		return;
	}
	fputc('\n', out);
	for (size_t i = 0; i < ld->n; i++) {
		const struct lat_change *c = &ld->c[i];

		units__value(a, sizeof(a), c->count_old, "events");
		units__value(b, sizeof(b), c->count_new, "events");
		fputs("  ", out);
		tty__puts(out, c->name);
		fprintf(out, " (%s -> %s)\n", a, b);
		for (int k = 0; k < LAT_QS; k++) {
			pct_words(w, sizeof(w), c, k);
			fprintf(out, "    p%g %s\n", qs[k], w);
		}
	}
}

void diff_lat__doc(struct doc *d, const struct lat_diff *ld)
{
	static const char *const head[] = { "histogram", "events", "p50", "p90", "p99" };
	char w[512], a[48], b[48];
	struct block *t;

	inl__words(doc__heading(d, 2, "latency"), "Latency");
	if (!ld->n) {
		struct inlines *in = doc__para(d);

		inl__words(in, "None compared: ");
		inl__text(in, ld->why);
		return;
	}
	inl__words(doc__para(d),
		   "Each percentile old -> new with its 99%% confidence interval: the events are "
		   "a sample, so the count below the true percentile q of N events is binomial; "
		   "the ranks N q -/+ 2.58 sqrt(N q (1 - q)) bound it, each widened to its log2 "
		   "slot. A percentile changed (up, down) when the two intervals do not overlap.");
	t = doc__table_head(d, "lrlll", head);
	for (size_t i = 0; i < ld->n; i++) {
		const struct lat_change *c = &ld->c[i];

		inl__code(doc__cell(t, CELL_PLAIN), c->name);
		units__num(a, sizeof(a), c->count_old);
		units__num(b, sizeof(b), c->count_new);
		inl__words(doc__cell(t, CELL_PLAIN), "%s -> %s", a, b);
		for (int k = 0; k < LAT_QS; k++) {
			pct_words(w, sizeof(w), c, k);
			inl__words(doc__cell(t, c->v[k] == DV_UP ? CELL_WARN :
						c->v[k] == DV_DOWN ? CELL_OK : CELL_PLAIN),
				   "%s", w);
		}
	}
	for (size_t i = 0; i < ld->n; i++)
		if (ld->c[i].heat[0] && ld->c[i].heat[1]) {
			struct inlines *in = doc__para(d);

			inl__code(in, ld->c[i].name);
			inl__words(in, " over the window, old (left) and new (right):");
			report__doc_heatmap_pair(d, ld->c[i].heat[0], ld->c[i].heat[1],
						 ld->nold > 1 ? "newest baseline" : "old", "new");
		}
}

static void json_dq(struct json *j, const char *v, const char *range, const struct dq *q)
{
	json__kv_number(j, v, q->v);
	dq__json_interval(j, range, q);
}

void diff_lat__json(struct json *j, const struct lat_diff *ld)
{
	json__key(j, "latency");
	json__begin_object(j);
	json__kv_str(j, "why", ld->n ? NULL : ld->why);
	json__key(j, "histograms");
	json__begin_array(j);
	for (size_t i = 0; i < ld->n; i++) {
		const struct lat_change *c = &ld->c[i];

		json__begin_object(j);
		json__kv_str(j, "name", c->name);
		json__kv_str(j, "unit", c->unit);
		json__kv_number(j, "events_old", c->count_old);
		json__kv_number(j, "events_new", c->count_new);
		json__key(j, "percentiles");
		json__begin_array(j);
		for (int k = 0; k < LAT_QS; k++) {
			json__begin_object(j);
			json__kv_number(j, "p", qs[k]);
			json_dq(j, "old", "old_interval", &c->o[k]);
			json_dq(j, "new", "new_interval", &c->n[k]);
			json__kv_str(j, "verdict", dverdict_names[c->v[k]]);
			json__end_object(j);
		}
		json__end_array(j);
		json__end_object(j);
	}
	json__end_array(j);
	json__end_object(j);
}
