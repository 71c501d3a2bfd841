// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The fleet summary's data (fleet.h): one small record per host from each
 * bundle's findings.json, manifest.json and BPF histograms, then what the
 * fleet shares, where a host stands out, and the heat maps. The renderings
 * are in fleet_doc.c.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/fleet_int.h"
#include "report/report.h"
#include "util/clock.h"
#include "util/hash.h"
#include "util/hostid.h"

/* Bounds on what one bundle may bring, and on what the fleet keeps. */
#define FLEET_HOST_MAX 255
#define FLEET_VERDICT_MAX 400
#define FLEET_SUMMARY_MAX 300
#define FLEET_NAME_MAX 1024
#define FLEET_FINDINGS_MAX 256 /* per host */
#define FLEET_CHECKS_MAX 4096
#define FLEET_KEYS_MAX 2048
#define FLEET_OUTLIERS_MAX 1000

const char *const fleet_hist_tool[FLEET_NHIST] = { "runqlat", "biolatency" };

/* ---- interned names ---- */

static size_t names_slot(const struct fleet_names *t, const char *s)
{
	size_t j = fnv1a(s, strlen(s), FNV1A_OFFSET) & (t->scap - 1);

	while (t->slot[j] && strcmp(t->v[t->slot[j] - 1], s))
		j = (j + 1) & (t->scap - 1);
	return j;
}

static int names_grow(struct fleet_names *t)
{
	size_t scap = t->scap ? t->scap * 2 : 64;
	size_t *slot = calloc(scap, sizeof(*slot));
	struct fleet_names nt = { .v = t->v, .n = t->n, .slot = slot, .scap = scap };

	if (!slot)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++)
		slot[names_slot(&nt, t->v[i])] = i + 1;
	free(t->slot);
	t->slot = slot;
	t->scap = scap;
	return 0;
}

/* s's index; added when add and absent (below max). SIZE_MAX: absent, full, or out of memory. */
static size_t names_find(struct fleet_names *t, const char *s, int add, size_t max)
{
	size_t j;
	char *copy;

	if (t->scap) {
		j = names_slot(t, s);
		if (t->slot[j])
			return t->slot[j] - 1;
	}
	if (!add || t->n >= max)
		return SIZE_MAX;
	if ((t->n + 1) * 2 > t->scap && names_grow(t))
		return SIZE_MAX;
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		char **nv = realloc(t->v, cap * sizeof(*nv));

		if (!nv)
			return SIZE_MAX;
		t->v = nv;
		t->cap = cap;
	}
	copy = strdup(s);
	if (!copy)
		return SIZE_MAX;
	t->v[t->n] = copy;
	t->slot[names_slot(t, s)] = ++t->n;
	return t->n - 1;
}

static void names_free(struct fleet_names *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i]);
	free(t->v);
	free(t->slot);
	memset(t, 0, sizeof(*t));
}

/* ---- small helpers ---- */

/* Room for one more in *v (n used, *cap allocated, of size bytes each). 0 or -ENOMEM. */
static int grow(void *v, size_t *cap, size_t n, size_t size)
{
	void **pv = v, *nv;
	size_t ncap = *cap ? *cap * 2 : 16;

	if (n < *cap)
		return 0;
	nv = realloc(*pv, ncap * size);
	if (!nv)
		return -ENOMEM;
	*pv = nv;
	*cap = ncap;
	return 0;
}

/* A copy of at most max bytes, cut at a UTF-8 boundary; "" for NULL. NULL when out of memory. */
static char *cut_dup(const char *s, size_t max)
{
	size_t n = s ? strlen(s) : 0;
	char *c;

	if (n > max) {
		n = max;
		while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	}
	c = malloc(n + 1);
	if (c) {
		if (n)
			memcpy(c, s, n);
		c[n] = '\0';
	}
	return c;
}

static const struct jval *member(const struct jval *v, const char *key, enum jtype type)
{
	const struct jval *m = jval__get(v, key);

	return m && m->type == type ? m : NULL;
}

static int severity(const char *s)
{
	return !s ? -1 : !strcmp(s, "crit") ? 2 : !strcmp(s, "warn") ? 1 : !strcmp(s, "ok") ? 0 : -1;
}

void fleet__key_split(const char *key, const char **check, size_t *check_len, const char **metric)
{
	const char *sep = strchr(key, '\x1f');

	*check = key;
	*check_len = sep ? (size_t)(sep - key) : strlen(key);
	*metric = sep ? sep + 1 : "";
}

double fleet__percentile(const double *b, size_t n, double p)
{
	double total = 0, want, seen = 0;

	for (size_t i = 0; i < n; i++)
		total += b[i];
	if (total <= 0)
		return NAN;
	want = total * p / 100;
	for (size_t i = 0; i < n; i++) {
		double lo = i ? ldexp(1, (int)i) : 0, hi = ldexp(1, (int)i + 1);

		if (b[i] > 0 && seen + b[i] >= want)
			return lo + (hi - lo) * (want - seen) / b[i];
		seen += b[i];
	}
	return ldexp(1, (int)n);
}

void fleet__bucket_name(size_t i, char *buf, size_t len)
{
	double lo = i ? ldexp(1, (int)i) : 0, hi = ldexp(1, (int)i + 1);

	if (hi <= 1000)
		snprintf(buf, len, "%.0f-%.0f us", lo, hi);
	else if (hi <= 1e6)
		snprintf(buf, len, "%.3g-%.3g ms", lo / 1e3, hi / 1e3);
	else
		snprintf(buf, len, "%.3g-%.3g s", lo / 1e6, hi / 1e6);
}

/* ---- one bundle ---- */

static void host_free(struct fleet_host *h)
{
	free(h->host);
	free(h->host_id);
	free(h->bundle);
	free(h->verdict);
	free(h->case_id);
	for (size_t i = 0; i < h->nf; i++)
		free(h->f[i].summary);
	free(h->f);
	free(h->values);
	memset(h, 0, sizeof(*h));
}

/* Add the counts of a log2 histogram (a JSON array of counts) to h; -EINVAL when malformed. */
static int hist_add(struct fleet_hist *h, const struct jval *a)
{
	if (!a || a->type != J_ARRAY)
		return -EINVAL;
	for (size_t i = 0; i < a->len; i++) {
		double v = a->items[i].type == J_NUMBER ? a->items[i].number : -1;

		if (!isfinite(v) || v < 0 || v > 9007199254740992.0)
			return -EINVAL;
		/* slots past the last bucket are counted in it (a latency of hours) */
		h->b[i < FLEET_BUCKETS ? i : FLEET_BUCKETS - 1] += v;
		h->total += v;
	}
	return 0;
}

/* A tool's document: "ok" and its data, or why there is none (into h->why). */
static const struct jval *tool_data(const struct jval *doc, const char *tool, struct fleet_hist *h)
{
	const char *st = jval__str(doc, "status"), *why = jval__str(doc, "reason");

	if (!doc) {
		snprintf(h->why, sizeof(h->why), "no raw/bpf/%s.json in the bundle", tool);
		return NULL;
	}
	if (!st || strcmp(st, "ok")) {
		snprintf(h->why, sizeof(h->why), "%s: %.60s%s%.120s", tool, st ? st : "no status",
			 why ? ": " : "", why ? why : "");
		return NULL;
	}
	return member(doc, "data", J_OBJECT);
}

static void hist_runqlat(struct fleet_hist *h, const struct jval *doc)
{
	const struct jval *data = tool_data(doc, "runqlat", h);

	if (!data)
		return;
	if (hist_add(h, jval__get(data, "hist"))) {
		snprintf(h->why, sizeof(h->why), "runqlat: its histogram is malformed");
		memset(h->b, 0, sizeof(h->b));
		h->total = 0;
		return;
	}
	h->have = 1;
}

/* Every disk's every operation, their total (queue + service) times merged. */
static void hist_biolatency(struct fleet_hist *h, const struct jval *doc)
{
	const struct jval *data = tool_data(doc, "biolatency", h), *disks;

	if (!data)
		return;
	disks = member(data, "disks", J_ARRAY);
	for (size_t d = 0; disks && d < disks->len; d++) {
		const struct jval *ops = member(&disks->items[d], "ops", J_OBJECT);

		for (size_t o = 0; ops && o < ops->len; o++)
			if (hist_add(h, jval__get(&ops->items[o], "total"))) {
				snprintf(h->why, sizeof(h->why), "biolatency: a histogram is malformed");
				memset(h->b, 0, sizeof(h->b));
				h->total = 0;
				return;
			}
	}
	h->have = 1;
}

static int host_findings(struct fleet *f, struct fleet_host *h, const struct jval *doc)
{
	const struct jval *fs = member(doc, "findings", J_ARRAY), *unk = member(doc, "unknowns",
										 J_ARRAY);

	h->nunknowns = unk ? unk->len : 0;
	if (!fs || !fs->len)
		return 0;
	h->f = calloc(fs->len < FLEET_FINDINGS_MAX ? fs->len : FLEET_FINDINGS_MAX, sizeof(*h->f));
	if (!h->f)
		return -ENOMEM;
	for (size_t i = 0; i < fs->len && h->nf < FLEET_FINDINGS_MAX; i++) {
		const char *check = jval__str(&fs->items[i], "check");
		int sev = severity(jval__str(&fs->items[i], "severity"));
		size_t c;

		if (!check || sev < 1)
			continue;
		c = names_find(&f->checks, check, 1, FLEET_CHECKS_MAX);
		if (c == SIZE_MAX)
			continue;
		h->f[h->nf].check = c;
		h->f[h->nf].sev = sev;
		h->f[h->nf].summary = cut_dup(jval__str(&fs->items[i], "summary"), FLEET_SUMMARY_MAX);
		if (!h->f[h->nf].summary)
			return -ENOMEM;
		h->nwarn += sev == 1;
		h->ncrit += sev == 2;
		h->nf++;
	}
	return 0;
}

/* A metric's slot for host-level metrics ("check\x1fname"); its unit remembered once. */
static size_t metric_key(struct fleet *f, const char *check, const char *name, const char *unit)
{
	char key[512];
	size_t k, before = f->keys.n;

	if (snprintf(key, sizeof(key), "%s\x1f%s", check, name) >= (int)sizeof(key))
		return SIZE_MAX;
	k = names_find(&f->keys, key, 1, FLEET_KEYS_MAX);
	if (k != SIZE_MAX && f->keys.n > before) {
		char **nu = realloc(f->key_units, f->keys.cap * sizeof(*nu));

		if (!nu)
			return SIZE_MAX;
		f->key_units = nu;
		f->key_units[k] = cut_dup(unit, 16);
		if (!f->key_units[k])
			return SIZE_MAX;
	}
	return k;
}

/* Every check's host-level metrics (those without an instance), for the outliers. */
static int host_values(struct fleet *f, struct fleet_host *h, const struct jval *doc)
{
	const struct jval *cs = member(doc, "checks", J_ARRAY);

	for (size_t i = 0; cs && i < cs->len; i++) {
		const struct jval *ms = member(&cs->items[i], "metrics", J_ARRAY);
		const char *id = jval__str(&cs->items[i], "id");

		for (size_t k = 0; id && ms && k < ms->len; k++) {
			const struct jval *m = &ms->items[k], *inst = jval__get(m, "instance");
			const char *name = jval__str(m, "name");
			double v;
			size_t key;

			if (!name || (inst && inst->type != J_NULL) || jval__num(m, "value", &v) ||
			    !isfinite(v))
				continue;
			key = metric_key(f, id, name, jval__str(m, "unit"));
			if (key == SIZE_MAX)
				continue;
			if (key >= h->nvalues) {
				size_t n = f->keys.cap;
				double *nv = realloc(h->values, n * sizeof(*nv));

				if (!nv)
					return -ENOMEM;
				for (size_t j = h->nvalues; j < n; j++)
					nv[j] = NAN;
				h->values = nv;
				h->nvalues = n;
			}
			if (isnan(h->values[key]))
				h->values[key] = v;
		}
	}
	return 0;
}

/*
 * The window as this host's clock sees it: its start (INT64_MIN when it does
 * not read as a time, so it never stands over one that does), and whether it
 * starts or ends in the future.
 */
static void host_window(const struct fleet *f, struct fleet_host *h, const struct jval *win)
{
	int64_t start, end;

	h->start_s = clock__parse_iso8601(jval__str(win, "start"), &start) ? INT64_MIN : start;
	h->future = (h->start_s != INT64_MIN && h->start_s > f->now + FLEET_FUTURE_SKEW_S) ||
		    (!clock__parse_iso8601(jval__str(win, "end"), &end) &&
		     end > f->now + FLEET_FUTURE_SKEW_S);
}

static int host_read(struct fleet *f, struct fleet_host *h, const char *name,
		     const struct fleet_members *m, char *err, size_t errlen)
{
	const struct jval *doc = m->findings, *win = member(doc, "window", J_OBJECT);
	const char *schema = jval__str(doc, "schema"), *host, *id;
	const struct jval *partial = jval__get(win, "partial");

	if (!schema || strcmp(schema, FINDINGS_SCHEMA)) {
		snprintf(err, errlen, "findings.json: not %s", FINDINGS_SCHEMA);
		return -EINVAL;
	}
	host = jval__str(member(doc, "host", J_OBJECT), "hostname");
	if (!host || !*host) {
		snprintf(err, errlen, "findings.json names no host");
		return -EINVAL;
	}
	h->worst = severity(jval__str(doc, "worst"));
	h->partial = partial && partial->type == J_BOOL && partial->boolean;
	snprintf(h->start, sizeof(h->start), "%s", jval__str(win, "start") ? jval__str(win, "start") : "");
	host_window(f, h, win);
	/* which machine: the manifest's host id; one that is not a host id is none */
	id = jval__str(member(m->manifest, "host", J_OBJECT), "host_id");
	if (id && host_id__valid(id) && !(h->host_id = strdup(id)))
		return -ENOMEM;
	h->host = cut_dup(host, FLEET_HOST_MAX);
	h->bundle = cut_dup(name, FLEET_NAME_MAX);
	h->verdict = cut_dup(jval__str(doc, "verdict"), FLEET_VERDICT_MAX);
	h->case_id = m->manifest && jval__str(m->manifest, "case_id") ?
			     cut_dup(jval__str(m->manifest, "case_id"), 64) : NULL;
	if (!h->host || !h->bundle || !h->verdict || host_findings(f, h, doc) ||
	    host_values(f, h, doc))
		return -ENOMEM;
	hist_runqlat(&h->hist[FLEET_RUNQLAT], m->runqlat);
	hist_biolatency(&h->hist[FLEET_BIOLATENCY], m->biolatency);
	return 0;
}

struct fleet *fleet__new(int64_t now)
{
	struct fleet *f = calloc(1, sizeof(struct fleet));

	if (f)
		f->now = now;
	return f;
}

/* A bundle dated in the future, listed (the first FLEET_FUTURE_MAX; the others counted). */
static int note_future(struct fleet *f, const struct fleet_host *h)
{
	struct fleet_future *e;

	if (f->nfuture >= FLEET_FUTURE_MAX) {
		f->future_cut++;
		return 0;
	}
	if (grow(&f->future, &f->future_cap, f->nfuture, sizeof(*f->future)))
		return -ENOMEM;
	e = &f->future[f->nfuture];
	memset(e, 0, sizeof(*e));
	snprintf(e->start, sizeof(e->start), "%s", h->start);
	e->bundle = strdup(h->bundle);
	e->host = strdup(h->host);
	e->host_id = h->host_id ? strdup(h->host_id) : NULL;
	if (!e->bundle || !e->host || (h->host_id && !e->host_id)) {
		free(e->bundle);
		free(e->host);
		free(e->host_id);
		return -ENOMEM;
	}
	f->nfuture++;
	return 0;
}

/*
 * Whether bundle a stands for its host rather than b: a window in the future
 * never over one that is not (a forged date must not hide the host's real
 * state), then the later start (one that does not read as a time is the
 * earliest), then, of two with one start, the later name, whatever the order
 * the bundles were read in.
 */
static int stands_over(const struct fleet_host *a, const struct fleet_host *b)
{
	if (a->future != b->future)
		return b->future;
	if (a->start_s != b->start_s)
		return a->start_s > b->start_s;
	return strcmp(a->bundle, b->bundle) > 0;
}

int fleet__add(struct fleet *f, const char *name, const struct fleet_members *m, char *err,
	       size_t errlen)
{
	struct fleet_host h = { 0 };
	char key[HOST_ID_LEN + FLEET_HOST_MAX + 8];
	size_t idx, before;
	int rc;

	rc = host_read(f, &h, name, m, err, errlen);
	if (rc) {
		if (rc == -ENOMEM)
			snprintf(err, errlen, "out of memory");
		host_free(&h);
		return rc;
	}
	f->bundles++;
	if (h.future && note_future(f, &h)) {
		host_free(&h);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	/* the host: its id and its name (two machines may claim one name) */
	snprintf(key, sizeof(key), "%s\x1f%s", h.host_id ? h.host_id : "", h.host);
	before = f->host_keys.n;
	idx = names_find(&f->host_keys, key, 1, SIZE_MAX);
	if (idx == SIZE_MAX) {
		host_free(&h);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (f->host_keys.n > before) {
		if (grow(&f->hosts, &f->cap, f->nhosts, sizeof(*f->hosts))) {
			host_free(&h);
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		f->hosts[f->nhosts++] = h;
		return 0;
	}
	/* A host seen before: one bundle stands for it, the other is counted. */
	f->older++;
	if (stands_over(&h, &f->hosts[idx])) {
		h.older = f->hosts[idx].older + 1;
		host_free(&f->hosts[idx]);
		f->hosts[idx] = h;
	} else {
		f->hosts[idx].older++;
		host_free(&h);
	}
	return 0;
}

int fleet__refused(struct fleet *f, const char *name, const char *reason)
{
	if (grow(&f->refused, &f->refused_cap, f->nrefused, sizeof(*f->refused)))
		return -ENOMEM;
	f->refused[f->nrefused].name = cut_dup(name, FLEET_NAME_MAX);
	f->refused[f->nrefused].reason = cut_dup(reason, 1024);
	if (!f->refused[f->nrefused].name || !f->refused[f->nrefused].reason) {
		free(f->refused[f->nrefused].name);
		free(f->refused[f->nrefused].reason);
		return -ENOMEM;
	}
	f->nrefused++;
	return 0;
}

size_t fleet__hosts(const struct fleet *f)
{
	return f->nhosts;
}

size_t fleet__bundles_read(const struct fleet *f)
{
	return f->bundles;
}

enum status fleet__worst(const struct fleet *f, char *what, size_t n)
{
	const struct fleet_host *worst = NULL;
	size_t also = 0;

	for (size_t i = 0; i < f->nhosts; i++) {
		if (f->hosts[i].worst <= 0)
			continue;
		if (worst && f->hosts[i].worst == worst->worst)
			also++;
		if (!worst || f->hosts[i].worst > worst->worst) {
			worst = &f->hosts[i];
			also = 0;
		}
	}
	if (!worst) {
		if (what && n)
			*what = '\0';
		return ST_OK;
	}
	/* Which host tripped --fail-on, with its verdict: a job's log says where to look. */
	if (what && n)
		snprintf(what, n, "host %s%s%s%s is %s: %.600s%s", worst->host ? worst->host : "?",
			 worst->conflict ? " (host id " : "",
			 worst->conflict ? (worst->host_id ? worst->host_id : "none") : "",
			 worst->conflict ? ")" : "", worst->worst == 2 ? "crit" : "warn",
			 worst->verdict ? worst->verdict : "",
			 also ? " (and more hosts: see the summary)" : "");
	return worst->worst == 2 ? ST_CRIT : ST_WARN;
}

void fleet__free(struct fleet *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nhosts; i++)
		host_free(&f->hosts[i]);
	free(f->hosts);
	for (size_t i = 0; i < f->keys.n; i++)
		free(f->key_units[i]);
	free(f->key_units);
	names_free(&f->host_keys);
	names_free(&f->checks);
	names_free(&f->keys);
	for (size_t i = 0; i < f->nrefused; i++) {
		free(f->refused[i].name);
		free(f->refused[i].reason);
	}
	free(f->refused);
	for (size_t i = 0; i < f->nfuture; i++) {
		free(f->future[i].bundle);
		free(f->future[i].host);
		free(f->future[i].host_id);
	}
	free(f->future);
	free(f->order);
	free(f->by_name);
	free(f->conflicts);
	for (size_t i = 0; i < f->nshared; i++)
		free(f->shared[i].hosts);
	free(f->shared);
	free(f->unique);
	free(f->outliers);
	for (int k = 0; k < FLEET_NHIST; k++) {
		free(f->heat[k].col_host);
		free(f->heat[k].cols);
		free(f->heat[k].rows);
		free(f->heat[k].row_names);
		free(f->heat[k].counts);
	}
	free(f);
}

/* ---- the fleet ---- */

/* qsort has no argument for its comparisons: the fleet and the heat map being sorted. */
static const struct fleet *sort_fleet;
static int sort_kind;

/* By name, then by host id (none first). */
static int name_id_cmp(const struct fleet_host *x, const struct fleet_host *y)
{
	int rc = strcmp(x->host, y->host);

	if (rc || x->host_id == y->host_id)
		return rc;
	if (!x->host_id || !y->host_id)
		return x->host_id ? 1 : -1;
	return strcmp(x->host_id, y->host_id);
}

static int by_name_cmp(const void *a, const void *b)
{
	return name_id_cmp(&sort_fleet->hosts[*(const size_t *)a],
			   &sort_fleet->hosts[*(const size_t *)b]);
}

/* Worst first, then most critical and warning findings, then by name. */
static int host_cmp(const void *a, const void *b)
{
	const struct fleet_host *x = &sort_fleet->hosts[*(const size_t *)a];
	const struct fleet_host *y = &sort_fleet->hosts[*(const size_t *)b];

	if (x->worst != y->worst)
		return y->worst - x->worst;
	if (x->ncrit != y->ncrit)
		return x->ncrit < y->ncrit ? 1 : -1;
	if (x->nwarn != y->nwarn)
		return x->nwarn < y->nwarn ? 1 : -1;
	return name_id_cmp(x, y);
}

static int shared_cmp(const void *a, const void *b)
{
	const struct fleet_shared *x = a, *y = b;

	if (x->nhosts != y->nhosts)
		return x->nhosts < y->nhosts ? 1 : -1;
	if (x->ncrit != y->ncrit)
		return x->ncrit < y->ncrit ? 1 : -1;
	return strcmp(sort_fleet->checks.v[x->check], sort_fleet->checks.v[y->check]);
}

/* Which hosts have each check's finding: shared by two or more, or unique to one. */
static int find_shared(struct fleet *f)
{
	struct fleet_shared *all = calloc(f->checks.n + 1, sizeof(*all));
	size_t nunique = 0;

	if (!all)
		return -ENOMEM;
	for (size_t c = 0; c < f->checks.n; c++)
		all[c].check = c;
	for (size_t k = 0; k < f->nhosts; k++) {
		const struct fleet_host *h = &f->hosts[f->order[k]];

		for (size_t i = 0; i < h->nf; i++) {
			struct fleet_shared *s = &all[h->f[i].check];

			/* a check counted once per host, with its worst severity there */
			if (s->nhosts && s->hosts[s->nhosts - 1] == f->order[k])
				continue;
			if (!(s->nhosts & (s->nhosts - 1))) {
				size_t *nh = realloc(s->hosts, (s->nhosts ? s->nhosts * 2 : 1) *
							       sizeof(*nh));

				if (!nh)
					goto oom;
				s->hosts = nh;
			}
			s->hosts[s->nhosts++] = f->order[k];
			s->nwarn += h->f[i].sev == 1;
			s->ncrit += h->f[i].sev == 2;
		}
	}
	f->unique = calloc(f->checks.n + 1, sizeof(*f->unique));
	if (!f->unique)
		goto oom;
	for (size_t c = 0; c < f->checks.n; c++) {
		if (all[c].nhosts == 1) {
			const struct fleet_host *h = &f->hosts[all[c].hosts[0]];

			for (size_t i = 0; i < h->nf; i++)
				if (h->f[i].check == c) {
					f->unique[nunique++] = (struct fleet_unique){
						c, all[c].hosts[0], h->f[i].sev, h->f[i].summary };
					break;
				}
			free(all[c].hosts);
		} else if (all[c].nhosts > 1) {
			all[f->nshared++] = all[c];
		}
	}
	f->nunique = nunique;
	f->shared = all;
	sort_fleet = f;
	qsort(f->shared, f->nshared, sizeof(*f->shared), shared_cmp);
	return 0;
oom:
	for (size_t c = 0; c < f->checks.n; c++)
		free(all[c].hosts);
	free(all);
	return -ENOMEM;
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), dbl_cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int outlier_cmp(const void *a, const void *b)
{
	const struct fleet_outlier *x = a, *y = b;

	if (fabs(x->z) != fabs(y->z))
		return fabs(x->z) < fabs(y->z) ? 1 : -1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->host < y->host ? -1 : x->host > y->host;
}

/*
 * Per metric, the hosts far from the fleet's median: the modified z-score
 * 0.6745 (x - median) / MAD (Iglewicz and Hoaglin), robust to the outliers
 * themselves. When more than half the hosts share one value the MAD is 0;
 * then the mean absolute deviation stands in (z = (x - median) / (1.2533
 * MeanAD), the same scale for a normal distribution), and a metric on which
 * every host agrees has no outlier. A tight fleet makes a small MAD, and a
 * host 2% off its median would score high: a value is also to be
 * FLEET_OUTLIER_MIN_REL away from the median (relatively) to be far from it.
 */
static int find_outliers(struct fleet *f)
{
	double *v = malloc((f->nhosts + 1) * sizeof(*v)), *dev = malloc((f->nhosts + 1) * sizeof(*dev));
	int rc = -ENOMEM;

	if (!v || !dev)
		goto out;
	for (size_t k = 0; k < f->keys.n; k++) {
		double med, mad, mean_ad = 0, scale;
		size_t n = 0;

		for (size_t i = 0; i < f->nhosts; i++)
			if (k < f->hosts[i].nvalues && !isnan(f->hosts[i].values[k]))
				v[n++] = f->hosts[i].values[k];
		if (n < FLEET_OUTLIER_MIN_HOSTS)
			continue;
		med = median(v, n);
		for (size_t i = 0; i < n; i++) {
			dev[i] = fabs(v[i] - med);
			mean_ad += dev[i] / (double)n;
		}
		mad = median(dev, n);
		scale = mad > 0 ? mad / 0.6745 : 1.253314 * mean_ad;
		if (!(scale > 0) || !isfinite(scale))
			continue;
		for (size_t i = 0; i < f->nhosts; i++) {
			const struct fleet_host *h = &f->hosts[i];
			double z;

			if (k >= h->nvalues || isnan(h->values[k]))
				continue;
			z = (h->values[k] - med) / scale;
			if (fabs(z) <= FLEET_OUTLIER_Z ||
			    fabs(h->values[k] - med) < FLEET_OUTLIER_MIN_REL * fabs(med))
				continue;
			if (f->noutliers >= FLEET_OUTLIERS_MAX) {
				f->outliers_cut++;
				continue;
			}
			if (!f->outliers && !(f->outliers = calloc(FLEET_OUTLIERS_MAX,
								   sizeof(*f->outliers))))
				goto out;
			f->outliers[f->noutliers++] = (struct fleet_outlier){ k, i, h->values[k],
									      med, mad, z };
		}
	}
	qsort(f->outliers, f->noutliers, sizeof(*f->outliers), outlier_cmp);
	rc = 0;
out:
	free(v);
	free(dev);
	return rc;
}

static int heat_cmp(const void *a, const void *b)
{
	const struct fleet_host *x = &sort_fleet->hosts[*(const size_t *)a];
	const struct fleet_host *y = &sort_fleet->hosts[*(const size_t *)b];
	int k = sort_kind;

	if (x->p99[k] != y->p99[k])
		return x->p99[k] < y->p99[k] ? 1 : -1;
	return name_id_cmp(x, y);
}

/*
 * One heat map: the fleet's merged histogram in the first column, then the
 * hosts side by side, the slowest p99 first (at most FLEET_HEAT_COLS of them),
 * rows from the fastest bucket any host used to the slowest.
 */
static int build_heat(struct fleet *f, int kind)
{
	static const char *const titles[] = { "Run-queue latency", "Block I/O latency" };
	static const char *const ylabels[] = { "run-queue latency (log2 buckets)",
					       "block I/O latency, queue + service (log2 buckets)" };
	static const char *const counted[] = { "waits", "I/Os" };
	struct fleet_heat *ht = &f->heat[kind];
	size_t *with = malloc((f->nhosts + 1) * sizeof(*with)), lo = FLEET_BUCKETS, hi = 0, ncols;

	if (!with)
		return -ENOMEM;
	for (size_t i = 0; i < f->nhosts; i++) {
		struct fleet_host *h = &f->hosts[i];

		h->p50[kind] = h->p99[kind] = NAN;
		if (!h->hist[kind].have)
			continue;
		h->p50[kind] = fleet__percentile(h->hist[kind].b, FLEET_BUCKETS, 50);
		h->p99[kind] = fleet__percentile(h->hist[kind].b, FLEET_BUCKETS, 99);
		for (size_t b = 0; b < FLEET_BUCKETS; b++) {
			ht->fleet[b] += h->hist[kind].b[b];
			if (h->hist[kind].b[b] > 0) {
				lo = b < lo ? b : lo;
				hi = b > hi ? b : hi;
			}
		}
		if (!isnan(h->p99[kind]))
			with[ht->nhosts++] = i;
	}
	ht->p50 = fleet__percentile(ht->fleet, FLEET_BUCKETS, 50);
	ht->p99 = fleet__percentile(ht->fleet, FLEET_BUCKETS, 99);
	sort_fleet = f;
	sort_kind = kind;
	qsort(with, ht->nhosts, sizeof(*with), heat_cmp);
	ht->hm.title = titles[kind];
	if (lo > hi) { /* no host with a count: a map with no data */
		free(with);
		return 0;
	}
	ncols = 1 + (ht->nhosts < FLEET_HEAT_COLS ? ht->nhosts : FLEET_HEAT_COLS);
	ht->first = lo;
	ht->col_host = with;
	ht->cols = calloc(ncols, sizeof(*ht->cols));
	ht->rows = calloc(hi - lo + 1, sizeof(*ht->rows));
	ht->row_names = calloc(hi - lo + 1, sizeof(*ht->row_names));
	ht->counts = calloc(ncols * (hi - lo + 1), sizeof(*ht->counts));
	if (!ht->cols || !ht->rows || !ht->row_names || !ht->counts)
		return -ENOMEM;
	for (size_t r = 0; r <= hi - lo; r++) {
		fleet__bucket_name(lo + r, ht->row_names[r], sizeof(ht->row_names[r]));
		ht->rows[r] = ht->row_names[r];
		ht->counts[r] = ht->fleet[lo + r];
	}
	ht->cols[0] = "(fleet)";
	for (size_t c = 1; c < ncols; c++) {
		const struct fleet_host *h = &f->hosts[with[c - 1]];

		ht->cols[c] = h->host;
		for (size_t r = 0; r <= hi - lo; r++)
			ht->counts[c * (hi - lo + 1) + r] = h->hist[kind].b[lo + r];
	}
	ht->hm = (struct heatmap){
		.title = titles[kind], .y_label = ylabels[kind], .count_label = counted[kind],
		.x_label = "the fleet merged, then each host, slowest p99 first",
		.ncols = ncols, .nrows = hi - lo + 1, .cols = ht->cols, .rows = ht->rows,
		.counts = ht->counts, .per_column = 1,
	};
	return 0;
}

/* Host names that more than one host id claims: each claimant a row, all marked. */
static int find_conflicts(struct fleet *f)
{
	f->by_name = malloc((f->nhosts + 1) * sizeof(*f->by_name));
	f->conflicts = calloc(f->nhosts / 2 + 1, sizeof(*f->conflicts));
	if (!f->by_name || !f->conflicts)
		return -ENOMEM;
	for (size_t i = 0; i < f->nhosts; i++)
		f->by_name[i] = i;
	sort_fleet = f;
	qsort(f->by_name, f->nhosts, sizeof(*f->by_name), by_name_cmp);
	for (size_t i = 0, j; i < f->nhosts; i = j) {
		for (j = i + 1; j < f->nhosts && !strcmp(f->hosts[f->by_name[i]].host,
							  f->hosts[f->by_name[j]].host); j++)
			;
		if (j - i < 2)
			continue;
		f->conflicts[f->nconflicts++] = (struct fleet_conflict){ i, j - i };
		for (size_t k = i; k < j; k++)
			f->hosts[f->by_name[k]].conflict = 1;
	}
	return 0;
}

static int refused_cmp(const void *a, const void *b)
{
	return strcmp(((const struct fleet_refused *)a)->name,
		      ((const struct fleet_refused *)b)->name);
}

static int future_cmp(const void *a, const void *b)
{
	return strcmp(((const struct fleet_future *)a)->bundle,
		      ((const struct fleet_future *)b)->bundle);
}

int fleet__finish(struct fleet *f)
{
	if (f->finished)
		return 0;
	/* in name order, whatever order the bundles were read in */
	if (f->nrefused)
		qsort(f->refused, f->nrefused, sizeof(*f->refused), refused_cmp);
	if (f->nfuture)
		qsort(f->future, f->nfuture, sizeof(*f->future), future_cmp);
	f->order = malloc((f->nhosts + 1) * sizeof(*f->order));
	if (!f->order)
		return -ENOMEM;
	for (size_t i = 0; i < f->nhosts; i++)
		f->order[i] = i;
	sort_fleet = f;
	qsort(f->order, f->nhosts, sizeof(*f->order), host_cmp);
	if (find_conflicts(f) || find_shared(f) || find_outliers(f) ||
	    build_heat(f, FLEET_RUNQLAT) || build_heat(f, FLEET_BIOLATENCY))
		return -ENOMEM;
	f->finished = 1;
	return 0;
}
