// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sonde diff: the comparison. The bundles are opened as sides (diff_base.c),
 * each section compares them (findings and metrics here, the host in
 * diff_host.c, processes in diff_procs*.c, latency in diff_lat.c, code in
 * diff_code.c), and diff_out.c renders the result. Everything read from a
 * bundle is untrusted: findings.json through json_read, each string escaped
 * for its output (the terminal's through util/tty.h, Markdown, HTML, JSON);
 * --md and --html are one document (report/doc.h) rendered twice, never
 * HTML made from Markdown.
 *
 * Two bundles, or a baseline: with several earlier audits, a finding's old
 * severity is their median, a metric's old value their median and its noise
 * the span of all their windows' ranges, the host's configuration is
 * compared with the newest of them.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/diff_int.h"
#include "report/report.h"
#include "util/units.h"

static const char *const severity_names[] = { "ok", "warn", "crit" };

static const struct jval *array_of(const struct jval *doc, const char *key)
{
	const struct jval *v = jval__get(doc, key);

	return v && v->type == J_ARRAY ? v : NULL;
}

static int severity_rank(const char *s)
{
	return !s ? 0 : !strcmp(s, "crit") ? 2 : !strcmp(s, "warn") ? 1 : 0;
}

/*
 * Matching by key, in O(n log n) whatever the bundles hold: the items of one
 * side are sorted by key (then by position, so the first of equal keys comes
 * first, as a linear search would find it) and looked up by binary search. A
 * hash table would do on average, but its keys come from a crafted file: a
 * sort has no worst case to aim for.
 */
struct keyed {
	const char *k1, *k2, *k3; /* check; metric name; instance (NULL sorts first) */
	size_t order;
	const struct jval *v;
};

struct keyed_index {
	struct keyed *k;
	size_t n;
};

static int str_cmp_null(const char *a, const char *b)
{
	if (!a || !b)
		return !a ? (b ? -1 : 0) : 1;
	return strcmp(a, b);
}

static int keyed_cmp_key(const struct keyed *a, const struct keyed *b)
{
	int c = strcmp(a->k1, b->k1);

	if (!c && a->k2)
		c = strcmp(a->k2, b->k2);
	if (!c && a->k2)
		c = str_cmp_null(a->k3, b->k3);
	return c;
}

static int keyed_cmp(const void *x, const void *y)
{
	const struct keyed *a = x, *b = y;
	int c = keyed_cmp_key(a, b);

	return c ? c : a->order < b->order ? -1 : a->order > b->order;
}

/* The first item (by position) whose key is key's, or NULL. */
static const struct jval *keyed_find(const struct keyed_index *ix, const struct keyed *key)
{
	size_t lo = 0, hi = ix->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (keyed_cmp_key(&ix->k[mid], key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ix->n && !keyed_cmp_key(&ix->k[lo], key) ? ix->k[lo].v : NULL;
}

/* A side's findings by check id (a finding without one matches nothing). */
static int findings_index(const struct diff_side *sd, struct keyed_index *ix)
{
	const struct jval *list = array_of(sd->doc, "findings");

	ix->n = 0;
	ix->k = calloc(list ? list->len + 1 : 1, sizeof(*ix->k));
	if (!ix->k)
		return -ENOMEM;
	for (size_t i = 0; list && i < list->len; i++) {
		const char *c = jval__str(&list->items[i], "check");

		if (c)
			ix->k[ix->n++] =
				(struct keyed){ .k1 = c, .order = i, .v = &list->items[i] };
	}
	qsort(ix->k, ix->n, sizeof(*ix->k), keyed_cmp);
	return 0;
}

/* A side's metrics by (check id, name, instance), in the order checks list them. */
static int metrics_index(const struct diff_side *sd, struct keyed_index *ix)
{
	const struct jval *checks = array_of(sd->doc, "checks");
	size_t cap = 1, order = 0;

	ix->n = 0;
	for (size_t i = 0; checks && i < checks->len; i++) {
		const struct jval *ms = array_of(&checks->items[i], "metrics");

		cap += ms ? ms->len : 0;
	}
	ix->k = calloc(cap, sizeof(*ix->k));
	if (!ix->k)
		return -ENOMEM;
	for (size_t i = 0; checks && i < checks->len; i++) {
		const struct jval *ms = array_of(&checks->items[i], "metrics");
		const char *id = jval__str(&checks->items[i], "id");

		for (size_t k = 0; id && ms && k < ms->len; k++) {
			const char *n = jval__str(&ms->items[k], "name");

			if (n)
				ix->k[ix->n++] = (struct keyed){
					.k1 = id, .k2 = n,
					.k3 = jval__str(&ms->items[k], "instance"),
					.order = order++, .v = &ms->items[k],
				};
		}
	}
	qsort(ix->k, ix->n, sizeof(*ix->k), keyed_cmp);
	return 0;
}

/* Each side's findings and metrics indexed: [0, nold) the old sides, nold the new one. */
struct diff_indexes {
	struct keyed_index f[DIFF_BASELINE_MAX + 1], m[DIFF_BASELINE_MAX + 1];
};

static const struct jval *finding_at(const struct diff *d, size_t side, const char *check)
{
	struct keyed key = { .k1 = check };

	return check ? keyed_find(&d->ix->f[side], &key) : NULL;
}

/* The baseline's severity of check: the median over the audits (absent is ok). */
static int old_rank(const struct diff *d, const char *check, const char **summary)
{
	double r[DIFF_BASELINE_MAX];

	*summary = NULL;
	for (size_t i = 0; i < d->nold; i++) {
		const struct jval *f = finding_at(d, i, check);

		r[i] = f ? severity_rank(jval__str(f, "severity")) : 0;
		if (f && !*summary)
			*summary = jval__str(f, "summary");
	}
	return (int)diff__median(r, d->nold);
}

static int findings_compute(struct diff *d)
{
	const struct jval *nf = array_of(d->new_->doc, "findings");
	size_t cap = (nf ? nf->len : 0) + 1;

	for (size_t i = 0; i < d->nold; i++) {
		const struct jval *of = array_of(d->old[i]->doc, "findings");

		cap += of ? of->len : 0;
	}
	d->f = calloc(cap, sizeof(*d->f));
	if (!d->f)
		return -ENOMEM;
	for (size_t i = 0; nf && i < nf->len; i++) {
		const struct jval *f = &nf->items[i];
		struct finding_change *c = &d->f[d->nf];
		const char *osum;
		int rn, ro;

		c->check = jval__str(f, "check");
		/* the first finding of a check is its finding; a repeat is not another */
		if (!c->check || finding_at(d, d->nold, c->check) != f)
			continue;
		d->nf++;
		c->new_sev = jval__str(f, "severity");
		c->summary = jval__str(f, "summary");
		rn = severity_rank(c->new_sev);
		ro = old_rank(d, c->check, &osum);
		c->old_sev = ro ? severity_names[ro] : NULL;
		c->ch = !ro ? CH_NEW : rn > ro ? CH_WORSE : rn < ro ? CH_BETTER : CH_PERSISTING;
		if ((c->ch == CH_NEW || c->ch == CH_WORSE) && rn > d->worst) {
			d->worst = rn;
			d->worst_at = d->nf - 1;
		}
	}
	/* resolved: the baseline had it, the new audit does not (each check once) */
	for (size_t s = 0; s < d->nold; s++) {
		const struct jval *of = array_of(d->old[s]->doc, "findings");

		for (size_t i = 0; of && i < of->len; i++) {
			const char *check = jval__str(&of->items[i], "check"), *osum;
			struct finding_change *c = &d->f[d->nf];
			int ro, seen = finding_at(d, s, check) != &of->items[i];

			if (!check || finding_at(d, d->nold, check))
				continue;
			for (size_t k = 0; k < s && !seen; k++)
				seen = finding_at(d, k, check) != NULL;
			ro = seen ? 0 : old_rank(d, check, &osum);
			if (!ro)
				continue;
			*c = (struct finding_change){ CH_RESOLVED, check, severity_names[ro], NULL,
						      osum };
			d->nf++;
		}
	}
	return 0;
}

/* The host's configuration changes, against the newest old audit, as findings of the diff. */
static int host_compute(struct diff *d)
{
	struct finding_change *grown;
	size_t total;

	if (diff_host__sides(d->old[0], d->new_, &d->host))
		return -ENOMEM;
	if (!d->host.checks.n)
		return 0;
	total = d->nf + d->host.checks.n;
	grown = realloc(d->f, total * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	d->f = grown;
	for (size_t i = 0; i < d->host.checks.n; i++)
		d->f[d->nf++] = (struct finding_change){ .ch = CH_HOST,
							 .check = d->host.checks.v[i],
							 .new_sev = "warn",
							 .summary = d->host.lines.v[i] };
	if (d->worst < 1) {
		d->worst = 1;
		d->worst_at = d->nf - d->host.checks.n;
	}
	return 0;
}

/* The metric (check, name, instance) of old side s, or NULL. */
static const struct jval *metric_at(const struct diff *d, size_t s, const char *check,
				    const char *name, const char *instance)
{
	struct keyed key = { .k1 = check, .k2 = name, .k3 = instance };

	return keyed_find(&d->ix->m[s], &key);
}

/* A metric's value and its window's range (its noise), as a quantity. */
static struct dq metric_q(const struct jval *m)
{
	const struct jval *r = jval__get(m, "range");
	struct dq q = { .v = NAN };

	if (!m || jval__num(m, "value", &q.v))
		return (struct dq){ .v = NAN };
	if (r && r->type == J_ARRAY && r->len == 2 && r->items[0].type == J_NUMBER &&
	    r->items[1].type == J_NUMBER) {
		q.lo = r->items[0].number;
		q.hi = r->items[1].number;
		q.has = 1;
	}
	return q;
}

/*
 * A regression: beyond noise toward its threshold (up for a metric with warn
 * or crit, down when lower is worse), by a tenth of the threshold at least:
 * a level flat within each window (a file system 18.8% then 19.8% full) is
 * beyond their noise at any change, and a point of 85% is not one to fail a
 * deploy for. A metric without thresholds has no worse direction.
 */
static int metric_worse(const struct jval *m, const struct metric_change *c)
{
	const struct jval *low = jval__get(m, "lower_is_worse");
	int lower = low && low->type == J_BOOL && low->boolean;
	double t;

	if (jval__num(m, "warn", &t) && jval__num(m, "crit", &t))
		return 0;
	if (lower ? c->verdict != DV_DOWN : c->verdict != DV_UP)
		return 0;
	return fabs(c->n.v - c->o.v) >= 0.1 * fabs(t);
}

/*
 * Beyond the windows' ranges is not enough for a level: memory in use, open
 * files, threads are flat within a few seconds and move a little between
 * any two audits. A change is material at 10% of the value (and a point of
 * a percentage) at least.
 */
static int material(const struct metric_change *c)
{
	double d = fabs(c->n.v - c->o.v);

	if (c->unit && !strcmp(c->unit, "%") && d < 1)
		return 0;
	return d >= 0.1 * fmax(fabs(c->o.v), fabs(c->n.v));
}

static int metrics_compute(struct diff *d)
{
	const struct jval *nc = array_of(d->new_->doc, "checks");
	size_t cap = 1;

	for (size_t i = 0; nc && i < nc->len; i++) {
		const struct jval *ms = array_of(&nc->items[i], "metrics");

		cap += ms ? ms->len : 0;
	}
	d->m = calloc(cap, sizeof(*d->m));
	if (!d->m)
		return -ENOMEM;
	for (size_t i = 0; nc && i < nc->len; i++) {
		const char *check = jval__str(&nc->items[i], "id");
		const struct jval *ms = array_of(&nc->items[i], "metrics");

		for (size_t k = 0; check && ms && k < ms->len; k++) {
			const struct jval *nm = &ms->items[k];
			struct metric_change *c = &d->m[d->nm];
			struct dq q[DIFF_BASELINE_MAX];

			c->check = check;
			c->name = jval__str(nm, "name");
			c->instance = jval__str(nm, "instance");
			c->unit = jval__str(nm, "unit");
			c->n = metric_q(nm);
			if (!c->name || isnan(c->n.v))
				continue;
			for (size_t s = 0; s < d->nold; s++)
				q[s] = metric_q(metric_at(d, s, check, c->name, c->instance));
			c->o = dq__baseline(q, d->nold);
			if (isnan(c->o.v))
				continue;
			units__value(c->old_s, sizeof(c->old_s), c->o.v, c->unit);
			units__value(c->new_s, sizeof(c->new_s), c->n.v, c->unit);
			c->verdict = dq__verdict(&c->o, &c->n, c->unit);
			if ((c->verdict == DV_UP || c->verdict == DV_DOWN) && !material(c))
				c->verdict = DV_WITHIN;
			c->worse = metric_worse(nm, c);
			d->beyond += c->verdict == DV_UP || c->verdict == DV_DOWN;
			d->within += c->verdict == DV_WITHIN;
			d->unknown_spread += c->verdict == DV_UNKNOWN;
			d->nm++;
		}
	}
	return 0;
}

static const char *or_dash(const char *s)
{
	return s ? s : "-";
}

/* Findings new or worse, metrics toward their thresholds, latencies up: the first one named. */
static void regressions(struct diff *d)
{
	char *w = d->regression_what;
	size_t len = sizeof(d->regression_what);

	for (size_t i = 0; i < d->nf; i++) {
		const struct finding_change *c = &d->f[i];

		if ((c->ch != CH_NEW && c->ch != CH_WORSE) || severity_rank(c->new_sev) < 1)
			continue;
		if (!d->regressions++)
			snprintf(w, len, "%s finding %s (%s): %.600s", change_names[c->ch],
				 or_dash(c->check), or_dash(c->new_sev), or_dash(c->summary));
	}
	for (size_t i = 0; i < d->nm; i++) {
		const struct metric_change *c = &d->m[i];

		if (!c->worse)
			continue;
		if (!d->regressions++)
			snprintf(w, len, "metric %s %s%s%s %s beyond noise: %s -> %s", c->check,
				 c->name, c->instance ? " " : "", c->instance ? c->instance : "",
				 dverdict_names[c->verdict], c->old_s, c->new_s);
	}
	d->regressions += diff_lat__regressions(&d->lat, d->regressions ? NULL : w, len);
}

static int diff_compute(struct diff *d)
{
	struct diff_indexes idx = { 0 };
	int rc = 0;

	d->ix = &idx;
	for (size_t s = 0; s <= d->nold && !rc; s++) {
		const struct diff_side *sd = s < d->nold ? d->old[s] : d->new_;

		if (findings_index(sd, &idx.f[s]) || metrics_index(sd, &idx.m[s]))
			rc = -ENOMEM;
	}
	if (!rc && (findings_compute(d) || host_compute(d) || metrics_compute(d) ||
		    diff_procs__compute(d->old, d->nold, d->new_, &d->procs) ||
		    diff_lat__compute(d->old, d->nold, d->new_, &d->lat) ||
		    diff_code__compute(d->old, d->nold, d->new_, &d->code)))
		rc = -ENOMEM;
	if (!rc)
		regressions(d);
	for (size_t s = 0; s <= d->nold; s++) {
		free(idx.f[s].k);
		free(idx.m[s].k);
	}
	d->ix = NULL;
	return rc;
}

static void diff_free(struct diff *d)
{
	free(d->f);
	free(d->m);
	strv__free(&d->host.checks);
	strv__free(&d->host.lines);
	diff_procs__free(&d->procs);
	diff_lat__free(&d->lat);
	diff_code__free(&d->code);
}

static int newest_first(const void *a, const void *b)
{
	const struct diff_side *x = *(struct diff_side *const *)a;
	const struct diff_side *y = *(struct diff_side *const *)b;

	return x->start_ns > y->start_ns ? -1 : x->start_ns < y->start_ns;
}

static int render(const struct diff *d, enum diff_format fmt, FILE *out)
{
	int rc = 0;

	if (fmt == DIFF_TEXT) {
		diff_out__text(out, d);
	} else if (fmt == DIFF_JSON) {
		struct json j = { .pretty = 1 };

		diff_out__json(&j, d);
		rc = j.out.oom ? -ENOMEM : 0;
		if (!rc)
			fwrite(j.out.buf, 1, j.out.len, out);
		strbuf__free(&j.out);
	} else {
		struct strbuf sb = { 0 };
		struct doc doc;

		doc__init(&doc, "sonde diff");
		rc = diff_out__doc(&doc, d);
		if (!rc)
			rc = fmt == DIFF_MD ? doc__markdown(&doc, &sb) : doc__html(&doc, &sb);
		if (!rc)
			fwrite(sb.buf, 1, sb.len, out);
		doc__free(&doc);
		strbuf__free(&sb);
	}
	return rc;
}

int diff__run(const struct diff_request *req, FILE *out, struct diff_result *res, char *err,
	      size_t errlen)
{
	const struct diff_input *old = req->old, *new_ = req->new_;
	size_t nold = req->nold;
	struct diff_side *sides = calloc(nold + 1, sizeof(*sides));
	struct diff_side *olds[DIFF_BASELINE_MAX];
	struct diff d = { 0 };
	size_t opened = 0;
	int rc = 0;

	memset(res, 0, sizeof(*res));
	res->worst = ST_OK;
	if (!sides || !nold || nold > DIFF_BASELINE_MAX) {
		free(sides);
		snprintf(err, errlen, "%s",
			 !sides ? "out of memory" : "between 1 and 16 earlier bundles");
		return !sides ? -ENOMEM : -EINVAL;
	}
	/* one side at a time: each keeps what its sections read, its captures closed again */
	for (; opened <= nold && !rc; opened++) {
		const struct diff_input *in = opened < nold ? &old[opened] : new_;

		rc = diff_side__open(&sides[opened], in->dir, in->name, !req->findings_only, err,
				     errlen);
	}
	if (rc) {
		opened--; /* the one that failed closed itself */
		goto cleanup;
	}
	for (size_t i = 0; i < nold; i++)
		olds[i] = &sides[i];
	qsort(olds, nold, sizeof(*olds), newest_first);
	d.old = olds;
	d.nold = nold;
	d.new_ = &sides[nold];
	d.findings_only = req->findings_only;
	rc = diff_compute(&d);
	if (!rc)
		rc = render(&d, req->fmt, out);
	if (rc) {
		snprintf(err, errlen, "out of memory");
		goto cleanup;
	}
	res->worst = d.worst == 2 ? ST_CRIT : d.worst == 1 ? ST_WARN : ST_OK;
	if (d.worst) {
		const struct finding_change *c = &d.f[d.worst_at];

		snprintf(res->worst_what, sizeof(res->worst_what), "%s finding %s (%s): %.600s",
			 change_names[c->ch], or_dash(c->check), or_dash(c->new_sev),
			 or_dash(c->summary));
	}
	res->changes = d.nf - diff__count(&d, CH_PERSISTING) + d.beyond + d.procs.n;
	res->regressions = d.regressions;
	snprintf(res->regression_what, sizeof(res->regression_what), "%s", d.regression_what);
cleanup:
	diff_free(&d);
	for (size_t i = 0; i < opened; i++)
		diff_side__close(&sides[i]);
	free(sides);
	return rc;
}
