// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fleet.json (fleet.h, docs/findings-schema.md): every host, finding,
 * outlier and histogram, written as it is made and handed to the caller's
 * flush every 64 KiB, so a fleet of any size never holds its whole JSON in
 * memory. Strings from bundles are JSON strings, escaped by util/json.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "report/fleet_int.h"
#include "util/json.h"

#define JSON_FLUSH (64u << 10)

/* The writer and where its text goes. */
struct fleet_jw {
	struct json j;
	int (*flush)(void *arg, struct strbuf *out);
	void *arg;
	int err; /* the first error: flush's, or the spool's */
};

/* Hand what is written to flush once there is enough of it. */
static void jw_flush(struct fleet_jw *w, int end)
{
	if (!w->flush || w->err || w->j.out.oom || (!end && w->j.out.len < JSON_FLUSH))
		return;
	w->err = w->flush(w->arg, &w->j.out);
}

/* The k-th host in the summary's order, its object opened with its name. */
static const struct fleet_host *json_host(const struct fleet *f, struct json *j, size_t k)
{
	const struct fleet_host *h = &f->hosts[f->order[k]];

	json__begin_object(j);
	json__kv_str(j, "host", h->host);
	json__kv_str(j, "host_id", h->host_id);
	return h;
}

static void json_hosts(const struct fleet *f, struct fleet_jw *w)
{
	struct json *j = &w->j;

	json__key(j, "hosts");
	json__begin_array(j);
	for (size_t k = 0; k < f->nhosts && !w->err; k++) {
		const struct fleet_host *h = json_host(f, j, k);
		struct fleet_detail dt;

		json__key(j, "name_conflict");
		json__bool(j, h->conflict);
		json__kv_str(j, "worst", fleet__sev_name(h->worst));
		json__kv_str(j, "verdict", h->verdict);
		json__kv_number(j, "crit", (double)h->ncrit);
		json__kv_number(j, "warn", (double)h->nwarn);
		json__kv_number(j, "unknowns", (double)h->nunknowns);
		json__kv_str(j, "start", h->start);
		json__key(j, "partial");
		json__bool(j, h->partial);
		json__key(j, "future_window");
		json__bool(j, h->future);
		json__kv_str(j, "case_id", h->case_id);
		json__kv_str(j, "bundle", h->bundle);
		json__kv_number(j, "older_bundles", (double)h->older);
		json__key(j, "findings");
		json__begin_array(j);
		w->err = fleet__detail(f, h, &dt);
		for (size_t i = 0; !w->err && i < h->nf; i++) {
			json__begin_object(j);
			json__kv_str(j, "check", f->checks.v[h->f[i].check]);
			json__kv_str(j, "severity", fleet__sev_name(h->f[i].sev));
			json__kv_str(j, "summary", dt.summary[i]);
			json__end_object(j);
		}
		if (!w->err)
			fleet_detail__free(&dt);
		json__end_array(j);
		json__end_object(j);
		jw_flush(w, 0);
	}
	json__end_array(j);
}

static void json_distrust(const struct fleet *f, struct fleet_jw *w)
{
	struct json *j = &w->j;

	json__key(j, "conflicts");
	json__begin_array(j);
	for (size_t c = 0; c < f->nconflicts; c++) {
		const struct fleet_conflict *x = &f->conflicts[c];

		json__begin_object(j);
		json__kv_str(j, "host", f->hosts[f->by_name[x->first]].host);
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
		jw_flush(w, 0);
	}
	json__end_array(j);
	json__kv_number(j, "future_skew_s", FLEET_FUTURE_SKEW_S);
	json__key(j, "future_bundles");
	json__begin_array(j);
	for (size_t i = 0; i < f->nfuture; i++) {
		json__begin_object(j);
		json__kv_str(j, "bundle", f->future[i].bundle);
		json__kv_str(j, "host", f->future[i].host);
		json__kv_str(j, "host_id", f->future[i].host_id);
		json__kv_str(j, "start", f->future[i].start);
		json__end_object(j);
		jw_flush(w, 0);
	}
	json__end_array(j);
	json__kv_number(j, "future_bundles_not_listed", (double)f->future_cut);
}

static void json_findings(const struct fleet *f, struct fleet_jw *w)
{
	struct json *j = &w->j;

	json__key(j, "shared_findings");
	json__begin_array(j);
	for (size_t i = 0; i < f->nshared; i++) {
		const struct fleet_shared *s = &f->shared[i];

		json__begin_object(j);
		json__kv_str(j, "check", f->checks.v[s->check]);
		json__kv_number(j, "hosts", (double)s->nhosts);
		json__kv_number(j, "crit", (double)s->ncrit);
		json__kv_number(j, "warn", (double)s->nwarn);
		json__key(j, "on");
		json__begin_array(j);
		for (size_t k = 0; k < s->nhosts; k++) {
			json__string(j, f->hosts[s->hosts[k]].host);
			jw_flush(w, 0);
		}
		json__end_array(j);
		json__end_object(j);
	}
	json__end_array(j);
	json__key(j, "unique_findings");
	json__begin_array(j);
	for (size_t i = 0; i < f->nunique && !w->err; i++) {
		const struct fleet_unique *u = &f->unique[i];
		struct fleet_detail dt;

		w->err = fleet__detail(f, &f->hosts[u->host], &dt);
		if (w->err)
			break;
		json__begin_object(j);
		json__kv_str(j, "check", f->checks.v[u->check]);
		json__kv_str(j, "host", f->hosts[u->host].host);
		json__kv_str(j, "severity", fleet__sev_name(u->sev));
		json__kv_str(j, "summary",
			     u->finding < dt.nsummary ? dt.summary[u->finding] : NULL);
		json__end_object(j);
		fleet_detail__free(&dt);
		jw_flush(w, 0);
	}
	json__end_array(j);
}

static void json_outliers(const struct fleet *f, struct fleet_jw *w)
{
	struct json *j = &w->j;

	json__key(j, "outlier_rule");
	json__begin_object(j);
	json__kv_str(j, "score", "modified z: 0.6745 (value - median) / MAD; MeanAD when MAD is 0");
	json__kv_number(j, "threshold", FLEET_OUTLIER_Z);
	json__kv_number(j, "min_relative_distance", FLEET_OUTLIER_MIN_REL);
	json__kv_number(j, "min_hosts", FLEET_OUTLIER_MIN_HOSTS);
	json__end_object(j);
	json__key(j, "outliers");
	json__begin_array(j);
	for (size_t i = 0; i < f->noutliers; i++) {
		const struct fleet_outlier *o = &f->outliers[i];
		const char *check, *metric;
		size_t clen;

		fleet__key_split(f->keys.v[o->key], &check, &clen, &metric);
		json__begin_object(j);
		json__kv_str(j, "host", f->hosts[o->host].host);
		json__key(j, "check");
		json__string_n(j, check, clen);
		json__kv_str(j, "metric", metric);
		json__kv_str(j, "unit", f->key_units[o->key][0] ? f->key_units[o->key] : NULL);
		json__kv_number(j, "value", o->value);
		json__kv_number(j, "median", o->median);
		json__kv_number(j, "mad", o->mad);
		json__kv_number(j, "z", o->z);
		json__end_object(j);
		jw_flush(w, 0);
	}
	json__end_array(j);
	json__kv_number(j, "outliers_not_listed", (double)f->outliers_cut);
}

static void json_counts(struct json *j, const double *b)
{
	json__begin_array(j);
	for (size_t i = 0; i < FLEET_BUCKETS; i++)
		json__number(j, b[i]);
	json__end_array(j);
}

static void json_heat(const struct fleet *f, struct fleet_jw *w, int kind)
{
	const struct fleet_heat *ht = &f->heat[kind];
	struct json *j = &w->j;

	json__key(j, fleet_hist_tool[kind]);
	json__begin_object(j);
	json__kv_str(j, "unit", "us");
	json__kv_str(j, "buckets", "log2: bucket i counts [2^i, 2^(i+1)) us, bucket 0 also 0");
	json__kv_number(j, "p50_us", ht->p50);
	json__kv_number(j, "p99_us", ht->p99);
	json__key(j, "fleet");
	json_counts(j, ht->fleet);
	json__key(j, "hosts");
	json__begin_array(j);
	for (size_t k = 0; k < f->nhosts && !w->err; k++) {
		const struct fleet_host *h = json_host(f, j, k);
		struct fleet_detail dt;

		if (h->hist[kind].have) {
			json__kv_number(j, "p50_us", h->p50[kind]);
			json__kv_number(j, "p99_us", h->p99[kind]);
			json__key(j, "counts");
			json_counts(j, h->hist[kind].b);
		} else if (!(w->err = fleet__detail(f, h, &dt))) {
			json__kv_str(j, "missing", dt.why[kind]);
			fleet_detail__free(&dt);
		}
		json__end_object(j);
		jw_flush(w, 0);
	}
	json__end_array(j);
	json__end_object(j);
}

int fleet__json(const struct fleet *f, struct strbuf *out,
		int (*flush)(void *arg, struct strbuf *out), void *arg)
{
	struct fleet_jw w = { .j = { .pretty = 1, .out = *out }, .flush = flush, .arg = arg };
	struct json *j = &w.j;

	if (!f->finished)
		return -EINVAL;
	json__begin_object(j);
	json__kv_str(j, "schema", FLEET_SCHEMA);
	json__kv_number(j, "bundles", (double)f->bundles);
	json__kv_number(j, "older_bundles", (double)f->older);
	json_hosts(f, &w);
	json_distrust(f, &w);
	json_findings(f, &w);
	json_outliers(f, &w);
	json__key(j, "heatmaps");
	json__begin_object(j);
	json_heat(f, &w, FLEET_RUNQLAT);
	json_heat(f, &w, FLEET_BIOLATENCY);
	json__end_object(j);
	json__key(j, "refused");
	json__begin_array(j);
	for (size_t i = 0; i < f->nrefused; i++) {
		json__begin_object(j);
		json__kv_str(j, "bundle", f->refused[i].name);
		json__kv_str(j, "reason", f->refused[i].reason);
		json__end_object(j);
		jw_flush(&w, 0);
	}
	json__end_array(j);
	json__end_object(j);
	strbuf__append(&j->out, "\n", 1);
	jw_flush(&w, 1);
	*out = j->out;
	return w.err ? w.err : out->oom ? -ENOMEM : 0;
}

/* ---- the terminal ---- */
