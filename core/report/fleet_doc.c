// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The fleet summary's renderings (fleet.h): a document (doc.h) that the
 * Markdown and HTML renderers draw, fleet.json, and the terminal summary.
 * Every string from a bundle (host names, verdicts, summaries, units, paths)
 * is a TEXT span or a JSON string, never markup.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "report/fleet_int.h"
#include "report/model.h"
#include "util/json.h"
#include "util/tty.h"

/* Rows shown in the document; fleet.json has them all. */
#define DOC_OUTLIERS 100
#define DOC_UNIQUE 200
#define DOC_HOST_NAMES 6
#define DOC_HEAT_HOSTS 20

static const char *const sev_name[] = { "ok", "warn", "crit" };

static const char *worst_name(int w)
{
	return w >= 0 && w <= 2 ? sev_name[w] : "unknown";
}

static enum cell_status worst_cell(int w)
{
	return w == 2 ? CELL_CRIT : w == 1 ? CELL_WARN : w == 0 ? CELL_OK : CELL_UNKNOWN;
}

/* A latency in us, as a person reads it. */
static void fmt_us(char *buf, size_t len, double us)
{
	if (isnan(us))
		snprintf(buf, len, "-");
	else if (us < 1000)
		snprintf(buf, len, "%.0f us", us);
	else if (us < 1e6)
		snprintf(buf, len, "%.3g ms", us / 1e3);
	else
		snprintf(buf, len, "%.3g s", us / 1e6);
}

static void host_counts(struct inlines *in, const struct fleet_host *h)
{
	if (!h->ncrit && !h->nwarn)
		inl__words(in, "none");
	else if (!h->nwarn)
		inl__words(in, "%zu crit", h->ncrit);
	else if (!h->ncrit)
		inl__words(in, "%zu warn", h->nwarn);
	else
		inl__words(in, "%zu crit, %zu warn", h->ncrit, h->nwarn);
}

static void doc_intro(const struct fleet *f, struct doc *d)
{
	size_t by[4] = { 0 };
	const char *first = NULL, *last = NULL;
	struct inlines *p;

	for (size_t i = 0; i < f->nhosts; i++) {
		const struct fleet_host *h = &f->hosts[i];

		by[h->worst >= 0 && h->worst <= 2 ? h->worst : 3]++;
		if (h->start[0] && (!first || strcmp(h->start, first) < 0))
			first = h->start;
		if (h->start[0] && (!last || strcmp(h->start, last) > 0))
			last = h->start;
	}
	inl__words(doc__heading(d, 1, "fleet"), "sonde fleet summary");
	p = doc__para(d);
	inl__words(p, "%zu host%s from %zu bundle%s", f->nhosts, f->nhosts == 1 ? "" : "s",
		   f->bundles, f->bundles == 1 ? "" : "s");
	if (f->older)
		inl__words(p, " (%zu older bundle%s of the same hosts not counted: the latest "
			   "window stands for its host)", f->older, f->older == 1 ? "" : "s");
	if (f->nrefused)
		inl__words(p, "; %zu bundle%s could not be read (listed at the end)", f->nrefused,
			   f->nrefused == 1 ? "" : "s");
	if (f->nconflicts)
		inl__words(p, "; %zu host name%s claimed by more than one machine (see below)",
			   f->nconflicts, f->nconflicts == 1 ? " is" : "s are");
	if (f->nfuture + f->future_cut)
		inl__words(p, "; %zu bundle%s dated in the future, not trusted (see below)",
			   f->nfuture + f->future_cut, f->nfuture + f->future_cut == 1 ? "" : "s");
	if (first) {
		inl__words(p, "; windows from ");
		inl__text(p, first);
		inl__words(p, " to ");
		inl__text(p, last);
	}
	inl__words(p, ".");
	p = doc__para(d);
	inl__open(p, SPAN_STRONG);
	inl__words(p, "Hosts by their worst finding: %zu crit, %zu warn, %zu ok", by[2], by[1],
		   by[0]);
	if (by[3])
		inl__words(p, ", %zu not said", by[3]);
	inl__close(p);
	inl__words(p, ".");
}

/* A host's name, and its host id when another machine claims the name too. */
static void host_name(struct inlines *in, const struct fleet_host *h)
{
	inl__text(in, h->host);
	if (!h->conflict)
		return;
	inl__words(in, " (host id ");
	if (h->host_id)
		inl__text(in, h->host_id);
	else
		inl__words(in, "none");
	inl__words(in, ")");
}

/* Names claimed by several host ids, and bundles dated in the future. */
static void doc_distrust(const struct fleet *f, struct doc *d)
{
	static const char *const head[] = { "host", "host id", "worst", "window", "bundle" };
	struct block *t;

	if (f->nconflicts) {
		inl__words(doc__heading(d, 2, "conflicts"),
			   "Host names claimed by several machines");
		inl__words(doc__para(d), "Bundles of different host ids (machines) give the same "
			   "host name: each is a row of its own, and one of them may not be what "
			   "it says. A host id is none when the bundle records none.");
		t = doc__table_head(d, "lllll", head);
		for (size_t c = 0; c < f->nconflicts; c++)
			for (size_t k = 0; k < f->conflicts[c].n; k++) {
				size_t i = f->by_name[f->conflicts[c].first + k];
				const struct fleet_host *h = &f->hosts[i];

				inl__text(doc__cell(t, CELL_PLAIN), h->host);
				if (h->host_id)
					inl__code(doc__cell(t, CELL_PLAIN), h->host_id);
				else
					inl__words(doc__cell(t, CELL_PLAIN), "none");
				inl__words(doc__cell(t, worst_cell(h->worst)), "%s",
					   worst_name(h->worst));
				inl__text(doc__cell(t, CELL_PLAIN), h->start);
				inl__text_cut(doc__cell(t, CELL_PLAIN), h->bundle, 160);
			}
	}
	if (!f->nfuture && !f->future_cut)
		return;
	inl__words(doc__heading(d, 2, "future"), "Bundles dated in the future");
	inl__words(doc__para(d), "Their window starts or ends more than %d minutes after this "
		   "host's clock: not trusted, they never stand for a host that another bundle "
		   "stands for.", FLEET_FUTURE_SKEW_S / 60);
	for (size_t i = 0; i < f->nfuture; i++) {
		struct inlines *p = doc__item(d);

		inl__text_cut(p, f->future[i].bundle, 160);
		inl__words(p, ": ");
		inl__text(p, f->future[i].host);
		inl__words(p, ", window ");
		inl__text(p, f->future[i].start);
	}
	if (f->future_cut)
		inl__words(doc__para(d), "And %zu more.", f->future_cut);
}

static void doc_hosts(const struct fleet *f, struct doc *d)
{
	static const char *const head[] = { "host", "worst", "findings", "verdict", "window",
					    "case", "bundle" };
	struct block *t;

	inl__words(doc__heading(d, 2, "hosts"), "Hosts");
	t = doc__table_head(d, "lllllll", head);
	for (size_t k = 0; k < f->nhosts; k++) {
		const struct fleet_host *h = &f->hosts[f->order[k]];
		struct inlines *w;

		host_name(doc__cell(t, h->conflict ? CELL_WARN : CELL_PLAIN), h);
		inl__words(doc__cell(t, worst_cell(h->worst)), "%s", worst_name(h->worst));
		host_counts(doc__cell(t, CELL_PLAIN), h);
		inl__text_cut(doc__cell(t, CELL_PLAIN), h->verdict, 300);
		w = doc__cell(t, h->future ? CELL_WARN : CELL_PLAIN);
		inl__text(w, h->start);
		if (h->partial)
			inl__words(w, " (partial)");
		if (h->future)
			inl__words(w, " (in the future: not trusted)");
		inl__text(doc__cell(t, CELL_PLAIN), h->case_id ? h->case_id : "");
		w = doc__cell(t, CELL_PLAIN);
		inl__text_cut(w, h->bundle, 160);
		if (h->older)
			inl__words(w, " (+%zu older)", h->older);
	}
}

static void doc_shared(const struct fleet *f, struct doc *d)
{
	static const char *const head[] = { "check", "hosts", "crit", "warn", "on" };
	struct block *t;

	inl__words(doc__heading(d, 2, "shared-findings"), "Findings shared by several hosts");
	if (!f->nshared) {
		inl__words(doc__para(d), "No finding is shared by two hosts or more.");
		return;
	}
	inl__words(doc__para(d), "The same check found something on two hosts or more: a "
		   "fleet-wide cause (a release, a configuration, a shared dependency) is likelier "
		   "than a host's own.");
	t = doc__table_head(d, "lrrrl", head);
	for (size_t i = 0; i < f->nshared; i++) {
		const struct fleet_shared *s = &f->shared[i];
		struct inlines *on;

		inl__code(doc__cell(t, CELL_PLAIN), f->checks.v[s->check]);
		inl__words(doc__cell(t, CELL_PLAIN), "%zu of %zu", s->nhosts, f->nhosts);
		inl__words(doc__cell(t, s->ncrit ? CELL_CRIT : CELL_PLAIN), "%zu", s->ncrit);
		inl__words(doc__cell(t, s->nwarn ? CELL_WARN : CELL_PLAIN), "%zu", s->nwarn);
		on = doc__cell(t, CELL_PLAIN);
		for (size_t k = 0; k < s->nhosts && k < DOC_HOST_NAMES; k++) {
			if (k)
				inl__words(on, ", ");
			inl__text(on, f->hosts[s->hosts[k]].host);
		}
		if (s->nhosts > DOC_HOST_NAMES)
			inl__words(on, " and %zu more", s->nhosts - DOC_HOST_NAMES);
	}
}

/* A table of n rows under its header, or, with none, the sentence that says so (NULL). */
static struct block *table_or(struct doc *d, size_t n, const char *none, const char *align,
			      const char *const *head)
{
	if (n)
		return doc__table_head(d, align, head);
	inl__words(doc__para(d), "%s", none);
	return NULL;
}

static void doc_unique(const struct fleet *f, struct doc *d)
{
	static const char *const head[] = { "host", "severity", "check", "summary" };
	struct block *t;

	inl__words(doc__heading(d, 2, "unique-findings"), "Findings on one host only");
	t = table_or(d, f->nunique, "No finding is unique to one host.", "llll", head);
	if (!t)
		return;
	for (size_t i = 0; i < f->nunique && i < DOC_UNIQUE; i++) {
		const struct fleet_unique *u = &f->unique[i];

		inl__text(doc__cell(t, CELL_PLAIN), f->hosts[u->host].host);
		inl__words(doc__cell(t, worst_cell(u->sev)), "%s", worst_name(u->sev));
		inl__code(doc__cell(t, CELL_PLAIN), f->checks.v[u->check]);
		inl__text(doc__cell(t, CELL_PLAIN), u->summary);
	}
	if (f->nunique > DOC_UNIQUE)
		inl__words(doc__para(d), "And %zu more in fleet.json.", f->nunique - DOC_UNIQUE);
}

static void doc_outliers(const struct fleet *f, struct doc *d)
{
	static const char *const head[] = { "host", "check", "metric", "value", "fleet median",
					    "robust z" };
	struct block *t;

	inl__words(doc__heading(d, 2, "outliers"), "Outliers");
	inl__words(doc__para(d), "A host is an outlier on a metric when its modified z-score, "
		   "0.6745 (value - median) / MAD over the hosts that have the metric, is beyond "
		   "%.1f (the median absolute deviation, so the outliers do not hide themselves; "
		   "the mean absolute deviation when most hosts share one value), and its value is "
		   "at least %.0f%% away from the median. Metrics measured on fewer than %d hosts "
		   "are not judged.", FLEET_OUTLIER_Z, 100 * FLEET_OUTLIER_MIN_REL,
		   FLEET_OUTLIER_MIN_HOSTS);
	t = table_or(d, f->noutliers, "No host stands out on any metric.", "lllrrr", head);
	if (!t)
		return;
	for (size_t i = 0; i < f->noutliers && i < DOC_OUTLIERS; i++) {
		const struct fleet_outlier *o = &f->outliers[i];
		const char *check, *metric, *unit = f->key_units[o->key];
		size_t clen;
		char buf[64];

		fleet__key_split(f->keys.v[o->key], &check, &clen, &metric);
		inl__text(doc__cell(t, CELL_PLAIN), f->hosts[o->host].host);
		inl__text_n(doc__cell(t, CELL_PLAIN), check, clen);
		inl__text(doc__cell(t, CELL_PLAIN), metric);
		report__fmt_value(buf, sizeof(buf), o->value, unit);
		inl__text(doc__cell(t, CELL_PLAIN), buf);
		report__fmt_value(buf, sizeof(buf), o->median, unit);
		inl__text(doc__cell(t, CELL_PLAIN), buf);
		inl__words(doc__cell(t, CELL_PLAIN), "%+.1f", o->z);
	}
	if (f->noutliers > DOC_OUTLIERS || f->outliers_cut)
		inl__words(doc__para(d), "And %zu more (fleet.json has %zu).",
			   f->noutliers - (f->noutliers > DOC_OUTLIERS ? DOC_OUTLIERS : f->noutliers) +
				   f->outliers_cut, f->noutliers);
}

static void doc_heat(const struct fleet *f, struct doc *d, int kind)
{
	static const char *const anchors[] = { "runqlat-heatmap", "biolatency-heatmap" };
	static const char *const head[] = { "host", "p50", "p99", "count" };
	const struct fleet_heat *ht = &f->heat[kind];
	size_t without = f->nhosts - ht->nhosts, shown = 0;
	struct inlines *p;
	struct block *t;
	char a[32], b[32];

	inl__words(doc__heading(d, 3, anchors[kind]), "%s (%s)", ht->hm.title,
		   fleet_hist_tool[kind]);
	p = doc__para(d);
	fmt_us(a, sizeof(a), ht->p50);
	fmt_us(b, sizeof(b), ht->p99);
	inl__words(p, "%zu host%s with a histogram; the fleet merged: p50 %s, p99 %s. Each column "
		   "is one host's histogram coloured by its own share, so hosts of unlike load "
		   "compare by shape; the first column merges every host's counts.", ht->nhosts,
		   ht->nhosts == 1 ? "" : "s", a, b);
	if (ht->nhosts > FLEET_HEAT_COLS)
		inl__words(p, " The %d slowest hosts are drawn; fleet.json has every histogram.",
			   FLEET_HEAT_COLS);
	doc__heatmap(d, &ht->hm);
	if (ht->nhosts) {
		t = doc__table_head(d, "lrrr", head);
		for (size_t k = 0; k < ht->nhosts && k < DOC_HEAT_HOSTS; k++) {
			const struct fleet_host *h = &f->hosts[ht->col_host[k]];

			inl__text(doc__cell(t, CELL_PLAIN), h->host);
			fmt_us(a, sizeof(a), h->p50[kind]);
			inl__words(doc__cell(t, CELL_PLAIN), "%s", a);
			fmt_us(a, sizeof(a), h->p99[kind]);
			inl__words(doc__cell(t, CELL_PLAIN), "%s", a);
			inl__words(doc__cell(t, CELL_PLAIN), "%.0f", h->hist[kind].total);
		}
	}
	if (!without)
		return;
	inl__words(doc__para(d), "%zu host%s without this histogram:", without,
		   without == 1 ? "" : "s");
	for (size_t k = 0; k < f->nhosts && shown < DOC_HEAT_HOSTS; k++) {
		const struct fleet_host *h = &f->hosts[f->order[k]];

		if (h->hist[kind].have && h->hist[kind].total > 0)
			continue;
		p = doc__item(d);
		inl__text(p, h->host);
		inl__words(p, ": ");
		inl__text(p, h->hist[kind].have ? "no event in the window" : h->hist[kind].why);
		shown++;
	}
}

int fleet__doc(const struct fleet *f, struct doc *d)
{
	if (!f->finished)
		return -EINVAL;
	doc_intro(f, d);
	doc_hosts(f, d);
	doc_distrust(f, d);
	doc_shared(f, d);
	doc_unique(f, d);
	doc_outliers(f, d);
	inl__words(doc__heading(d, 2, "heatmaps"), "Latency heat maps");
	doc_heat(f, d, FLEET_RUNQLAT);
	doc_heat(f, d, FLEET_BIOLATENCY);
	if (f->nrefused) {
		inl__words(doc__heading(d, 2, "refused"), "Bundles not read");
		for (size_t i = 0; i < f->nrefused; i++) {
			struct inlines *p = doc__item(d);

			inl__text(p, f->refused[i].name);
			inl__words(p, ": ");
			inl__text(p, f->refused[i].reason);
		}
	}
	return doc__finish(d);
}

/* ---- fleet.json ---- */

static void kv_str(struct json *j, const char *k, const char *v)
{
	json__key(j, k);
	if (v)
		json__string(j, v);
	else
		json__null(j);
}

static void kv_num(struct json *j, const char *k, double v)
{
	json__key(j, k);
	json__number(j, v); /* NaN: null */
}

/* The k-th host in the summary's order, its object opened with its name. */
static const struct fleet_host *json_host(const struct fleet *f, struct json *j, size_t k)
{
	const struct fleet_host *h = &f->hosts[f->order[k]];

	json__begin_object(j);
	kv_str(j, "host", h->host);
	kv_str(j, "host_id", h->host_id);
	return h;
}

static void json_hosts(const struct fleet *f, struct json *j)
{
	json__key(j, "hosts");
	json__begin_array(j);
	for (size_t k = 0; k < f->nhosts; k++) {
		const struct fleet_host *h = json_host(f, j, k);

		json__key(j, "name_conflict");
		json__bool(j, h->conflict);
		kv_str(j, "worst", worst_name(h->worst));
		kv_str(j, "verdict", h->verdict);
		kv_num(j, "crit", (double)h->ncrit);
		kv_num(j, "warn", (double)h->nwarn);
		kv_num(j, "unknowns", (double)h->nunknowns);
		kv_str(j, "start", h->start);
		json__key(j, "partial");
		json__bool(j, h->partial);
		json__key(j, "future_window");
		json__bool(j, h->future);
		kv_str(j, "case_id", h->case_id);
		kv_str(j, "bundle", h->bundle);
		kv_num(j, "older_bundles", (double)h->older);
		json__key(j, "findings");
		json__begin_array(j);
		for (size_t i = 0; i < h->nf; i++) {
			json__begin_object(j);
			kv_str(j, "check", f->checks.v[h->f[i].check]);
			kv_str(j, "severity", sev_name[h->f[i].sev]);
			kv_str(j, "summary", h->f[i].summary);
			json__end_object(j);
		}
		json__end_array(j);
		json__end_object(j);
	}
	json__end_array(j);
}

static void json_distrust(const struct fleet *f, struct json *j)
{
	json__key(j, "conflicts");
	json__begin_array(j);
	for (size_t c = 0; c < f->nconflicts; c++) {
		const struct fleet_conflict *x = &f->conflicts[c];

		json__begin_object(j);
		kv_str(j, "host", f->hosts[f->by_name[x->first]].host);
		json__key(j, "host_ids");
		json__begin_array(j);
		for (size_t k = 0; k < x->n; k++) {
			const char *id = f->hosts[f->by_name[x->first + k]].host_id;

			if (id)
				json__string(j, id);
			else
				json__null(j);
		}
		json__end_array(j);
		json__end_object(j);
	}
	json__end_array(j);
	kv_num(j, "future_skew_s", FLEET_FUTURE_SKEW_S);
	json__key(j, "future_bundles");
	json__begin_array(j);
	for (size_t i = 0; i < f->nfuture; i++) {
		json__begin_object(j);
		kv_str(j, "bundle", f->future[i].bundle);
		kv_str(j, "host", f->future[i].host);
		kv_str(j, "host_id", f->future[i].host_id);
		kv_str(j, "start", f->future[i].start);
		json__end_object(j);
	}
	json__end_array(j);
	kv_num(j, "future_bundles_not_listed", (double)f->future_cut);
}

static void json_findings(const struct fleet *f, struct json *j)
{
	json__key(j, "shared_findings");
	json__begin_array(j);
	for (size_t i = 0; i < f->nshared; i++) {
		const struct fleet_shared *s = &f->shared[i];

		json__begin_object(j);
		kv_str(j, "check", f->checks.v[s->check]);
		kv_num(j, "hosts", (double)s->nhosts);
		kv_num(j, "crit", (double)s->ncrit);
		kv_num(j, "warn", (double)s->nwarn);
		json__key(j, "on");
		json__begin_array(j);
		for (size_t k = 0; k < s->nhosts; k++)
			json__string(j, f->hosts[s->hosts[k]].host);
		json__end_array(j);
		json__end_object(j);
	}
	json__end_array(j);
	json__key(j, "unique_findings");
	json__begin_array(j);
	for (size_t i = 0; i < f->nunique; i++) {
		json__begin_object(j);
		kv_str(j, "check", f->checks.v[f->unique[i].check]);
		kv_str(j, "host", f->hosts[f->unique[i].host].host);
		kv_str(j, "severity", sev_name[f->unique[i].sev]);
		kv_str(j, "summary", f->unique[i].summary);
		json__end_object(j);
	}
	json__end_array(j);
}

static void json_outliers(const struct fleet *f, struct json *j)
{
	json__key(j, "outlier_rule");
	json__begin_object(j);
	kv_str(j, "score", "modified z: 0.6745 (value - median) / MAD; MeanAD when MAD is 0");
	kv_num(j, "threshold", FLEET_OUTLIER_Z);
	kv_num(j, "min_relative_distance", FLEET_OUTLIER_MIN_REL);
	kv_num(j, "min_hosts", FLEET_OUTLIER_MIN_HOSTS);
	json__end_object(j);
	json__key(j, "outliers");
	json__begin_array(j);
	for (size_t i = 0; i < f->noutliers; i++) {
		const struct fleet_outlier *o = &f->outliers[i];
		const char *check, *metric;
		size_t clen;

		fleet__key_split(f->keys.v[o->key], &check, &clen, &metric);
		json__begin_object(j);
		kv_str(j, "host", f->hosts[o->host].host);
		json__key(j, "check");
		json__string_n(j, check, clen);
		kv_str(j, "metric", metric);
		kv_str(j, "unit", f->key_units[o->key][0] ? f->key_units[o->key] : NULL);
		kv_num(j, "value", o->value);
		kv_num(j, "median", o->median);
		kv_num(j, "mad", o->mad);
		kv_num(j, "z", o->z);
		json__end_object(j);
	}
	json__end_array(j);
	kv_num(j, "outliers_not_listed", (double)f->outliers_cut);
}

static void json_counts(struct json *j, const double *b)
{
	json__begin_array(j);
	for (size_t i = 0; i < FLEET_BUCKETS; i++)
		json__number(j, b[i]);
	json__end_array(j);
}

static void json_heat(const struct fleet *f, struct json *j, int kind)
{
	const struct fleet_heat *ht = &f->heat[kind];

	json__key(j, fleet_hist_tool[kind]);
	json__begin_object(j);
	kv_str(j, "unit", "us");
	kv_str(j, "buckets", "log2: bucket i counts [2^i, 2^(i+1)) us, bucket 0 also 0");
	kv_num(j, "p50_us", ht->p50);
	kv_num(j, "p99_us", ht->p99);
	json__key(j, "fleet");
	json_counts(j, ht->fleet);
	json__key(j, "hosts");
	json__begin_array(j);
	for (size_t k = 0; k < f->nhosts; k++) {
		const struct fleet_host *h = json_host(f, j, k);

		if (h->hist[kind].have) {
			kv_num(j, "p50_us", h->p50[kind]);
			kv_num(j, "p99_us", h->p99[kind]);
			json__key(j, "counts");
			json_counts(j, h->hist[kind].b);
		} else {
			kv_str(j, "missing", h->hist[kind].why);
		}
		json__end_object(j);
	}
	json__end_array(j);
	json__end_object(j);
}

int fleet__json(const struct fleet *f, struct strbuf *out)
{
	struct json j = { .pretty = 1, .out = *out };

	if (!f->finished)
		return -EINVAL;
	json__begin_object(&j);
	kv_str(&j, "schema", FLEET_SCHEMA);
	kv_num(&j, "bundles", (double)f->bundles);
	kv_num(&j, "older_bundles", (double)f->older);
	json_hosts(f, &j);
	json_distrust(f, &j);
	json_findings(f, &j);
	json_outliers(f, &j);
	json__key(&j, "heatmaps");
	json__begin_object(&j);
	json_heat(f, &j, FLEET_RUNQLAT);
	json_heat(f, &j, FLEET_BIOLATENCY);
	json__end_object(&j);
	json__key(&j, "refused");
	json__begin_array(&j);
	for (size_t i = 0; i < f->nrefused; i++) {
		json__begin_object(&j);
		kv_str(&j, "bundle", f->refused[i].name);
		kv_str(&j, "reason", f->refused[i].reason);
		json__end_object(&j);
	}
	json__end_array(&j);
	json__end_object(&j);
	strbuf__append(&j.out, "\n", 1);
	*out = j.out;
	return out->oom ? -ENOMEM : 0;
}

/* ---- the terminal ---- */

/* Bundle text to the terminal: at most max bytes, cut between characters, through util/tty. */
static void tty(FILE *out, const char *s, size_t max)
{
	char buf[256];
	size_t n = s ? strlen(s) : 0;

	if (max >= sizeof(buf))
		max = sizeof(buf) - 1;
	if (n > max) {
		n = max;
		while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	}
	memcpy(buf, s ? s : "", n);
	buf[n] = '\0';
	tty__clean_str(buf);
	fputs(buf, out);
}

void fleet__terminal(const struct fleet *f, FILE *out)
{
	size_t by[3] = { 0 };

	for (size_t i = 0; i < f->nhosts; i++)
		if (f->hosts[i].worst >= 0 && f->hosts[i].worst <= 2)
			by[f->hosts[i].worst]++;
	fprintf(out, "sonde fleet · %zu host%s from %zu bundle%s", f->nhosts,
		f->nhosts == 1 ? "" : "s", f->bundles, f->bundles == 1 ? "" : "s");
	if (f->nrefused)
		fprintf(out, " (%zu refused)", f->nrefused);
	fprintf(out, "\n\nHosts: %zu crit, %zu warn, %zu ok\n", by[2], by[1], by[0]);
	for (size_t k = 0; k < f->nhosts && k < 20; k++) {
		const struct fleet_host *h = &f->hosts[f->order[k]];

		fprintf(out, "  %-7s ", worst_name(h->worst));
		tty(out, h->host, 30);
		if (h->conflict) {
			fputs(" (host id ", out);
			tty(out, h->host_id ? h->host_id : "none", 40);
			fputs(")", out);
		}
		fputs("  ", out);
		tty(out, h->verdict, 110);
		fputc('\n', out);
	}
	if (f->nhosts > 20)
		fprintf(out, "  ... %zu more hosts in the report\n", f->nhosts - 20);
	if (f->nconflicts) {
		fprintf(out, "\nHost names claimed by several machines (host ids): %zu\n",
			f->nconflicts);
		for (size_t c = 0; c < f->nconflicts && c < 10; c++) {
			fputs("  ", out);
			tty(out, f->hosts[f->by_name[f->conflicts[c].first]].host, 60);
			fprintf(out, ": %zu machines\n", f->conflicts[c].n);
		}
	}
	if (f->nfuture + f->future_cut)
		fprintf(out, "\nBundles dated in the future, not trusted: %zu\n",
			f->nfuture + f->future_cut);
	if (f->nshared)
		fprintf(out, "\nShared findings (on 2 hosts or more):\n");
	for (size_t i = 0; i < f->nshared && i < 10; i++) {
		fputs("  ", out);
		tty(out, f->checks.v[f->shared[i].check], 60);
		fprintf(out, ": %zu of %zu hosts (%zu crit, %zu warn)\n", f->shared[i].nhosts,
			f->nhosts, f->shared[i].ncrit, f->shared[i].nwarn);
	}
	fprintf(out, "\nFindings on one host only: %zu\n", f->nunique);
	fprintf(out, "Outliers (robust z beyond %.1f): %zu\n", FLEET_OUTLIER_Z,
		f->noutliers + f->outliers_cut);
	for (size_t i = 0; i < f->noutliers && i < 5; i++) {
		const struct fleet_outlier *o = &f->outliers[i];
		const char *check, *metric;
		char v[64], m[64];
		size_t clen;

		fleet__key_split(f->keys.v[o->key], &check, &clen, &metric);
		report__fmt_value(v, sizeof(v), o->value, f->key_units[o->key]);
		report__fmt_value(m, sizeof(m), o->median, f->key_units[o->key]);
		fputs("  ", out);
		tty(out, f->hosts[o->host].host, 30);
		fputs(" ", out);
		tty(out, check, clen < 60 ? clen : 60);
		fputs(" ", out);
		tty(out, metric, 60);
		fputs(" = ", out);
		tty(out, v, 64);
		fputs(" (fleet median ", out);
		tty(out, m, 64);
		fprintf(out, ", z %+.1f)\n", o->z);
	}
	for (size_t i = 0; i < f->nrefused; i++) {
		fputs(i ? "  " : "\nNot read:\n  ", out);
		tty(out, f->refused[i].name, 200);
		fputs(": ", out);
		tty(out, f->refused[i].reason, 300);
		fputc('\n', out);
	}
}
