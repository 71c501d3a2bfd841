// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The fleet summary's hosts (fleet.h): each bundle's record (fleet_read.c,
 * made in a worker) added as one small host, the latest bundle standing for
 * its host; the hosts' details (finding summaries, why a histogram is
 * missing) kept in a spool file rather than in memory. What the fleet
 * shares and where hosts stand out is fleet_finish.c; the renderings are
 * fleet_doc.c and fleet_json.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/fleet_int.h"
#include "report/report.h"
#include "util/units.h"
#include "util/clock.h"
#include "util/hash.h"
#include "util/hostid.h"
#include "util/wire.h"

/* The spool's buffer is written out past this size. */
#define SPOOL_FLUSH (256u << 10)

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

void fleet__key_split(const char *key, const char **check, size_t *check_len, const char **metric)
{
	const char *sep = strchr(key, '\x1f');

	*check = key;
	*check_len = sep ? (size_t)(sep - key) : strlen(key);
	*metric = sep ? sep + 1 : "";
}

void fleet__bucket_name(size_t i, char *buf, size_t len)
{
	units__range(buf, len, i ? ldexp(1, (int)i) : 0, ldexp(1, (int)i + 1), "us");
}

/* ---- the spool ---- */

/* The spool in dir, a file no one else sees (unlinked at once); in memory when there is none. */
static void spool_open(struct fleet *f, const char *dir)
{
	char path[4200];
	int fd = -1;

	f->spool_fd = -1;
	if (!dir)
		return;
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0 && snprintf(path, sizeof(path), "%s/.sonde-fleet-XXXXXX", dir) <
			      (int)sizeof(path)) {
		fd = mkostemp(path, O_CLOEXEC);
		if (fd >= 0)
			unlink(path);
	}
	f->spool_fd = fd;
}

/* What the buffer holds to the file; kept in memory when it cannot be written. */
static void spool_flush(struct fleet *f)
{
	if (f->spool_fd < 0 || f->spool_full || !f->spool_buf.len)
		return;
	if (pwrite(f->spool_fd, f->spool_buf.buf, f->spool_buf.len, (off_t)f->spool_base) !=
	    (ssize_t)f->spool_buf.len) {
		/* a full disk: what is written stays readable, the rest stays in memory */
		f->spool_full = 1;
		return;
	}
	f->spool_base += f->spool_buf.len;
	f->spool_buf.len = 0;
}

/* A host's detail, appended: its offset and length into h. 0 or -ENOMEM. */
static int spool_put(struct fleet *f, struct fleet_host *h, const struct fleet_record *r)
{
	size_t before = f->spool_buf.len;

	for (size_t i = 0; i < r->nf; i++)
		if (r->f[i].sev) /* kept (host_make) */
			wire__put_str(&f->spool_buf, r->f[i].summary);
	for (int k = 0; k < FLEET_NHIST; k++)
		wire__put_str(&f->spool_buf, r->hist[k].have ? NULL : r->why[k]);
	if (f->spool_buf.oom)
		return -ENOMEM;
	h->detail = f->spool_base + before;
	h->detail_len = f->spool_buf.len - before;
	if (f->spool_buf.len > SPOOL_FLUSH)
		spool_flush(f);
	return 0;
}

int fleet__detail(const struct fleet *f, const struct fleet_host *h, struct fleet_detail *d)
{
	struct wire_reader rb = { .max_str = FLEET_NAME_MAX };
	char *buf = NULL;
	int rc = 0;

	memset(d, 0, sizeof(*d));
	if (h->detail >= f->spool_base) {
		rb.p = f->spool_buf.buf + (h->detail - f->spool_base);
	} else {
		buf = malloc(h->detail_len + 1);
		if (!buf)
			return -ENOMEM;
		if (pread(f->spool_fd, buf, h->detail_len, (off_t)h->detail) !=
		    (ssize_t)h->detail_len) {
			free(buf);
			return -EIO;
		}
		rb.p = buf;
	}
	rb.end = rb.p + h->detail_len;
	d->summary = calloc(h->nf + 1, sizeof(*d->summary));
	if (!d->summary)
		rc = -ENOMEM;
	else
		d->nsummary = h->nf;
	for (size_t i = 0; !rc && i < h->nf; i++)
		d->summary[i] = wire__str(&rb);
	for (int k = 0; !rc && k < FLEET_NHIST; k++)
		d->why[k] = wire__str(&rb);
	free(buf);
	if (!rc && rb.bad)
		rc = -EIO;
	for (size_t i = 0; !rc && i < h->nf; i++)
		if (!d->summary[i])
			rc = -EIO;
	if (rc)
		fleet_detail__free(d);
	return rc;
}

void fleet_detail__free(struct fleet_detail *d)
{
	for (size_t i = 0; i < d->nsummary; i++)
		free(d->summary[i]);
	free(d->summary);
	for (int k = 0; k < FLEET_NHIST; k++)
		free(d->why[k]);
	memset(d, 0, sizeof(*d));
}

/* ---- one bundle ---- */

static void host_free(struct fleet_host *h)
{
	free(h->host);
	free(h->host_id);
	free(h->bundle);
	free(h->verdict);
	free(h->case_id);
	free(h->f);
	free(h->vals);
	memset(h, 0, sizeof(*h));
}

/* A metric's slot for host-level metrics ("check\x1fname"); its unit remembered once. */
static size_t metric_key(struct fleet *f, const struct fleet_record_metric *m)
{
	char key[512];
	size_t k, before = f->keys.n;

	if (snprintf(key, sizeof(key), "%s\x1f%s", m->check, m->name) >= (int)sizeof(key))
		return SIZE_MAX;
	k = names_find(&f->keys, key, 1, FLEET_KEYS_MAX);
	if (k != SIZE_MAX && f->keys.n > before) {
		char **nu = realloc(f->key_units, f->keys.cap * sizeof(*nu));

		if (!nu)
			return SIZE_MAX;
		f->key_units = nu;
		f->key_units[k] = strdup(m->unit);
		if (!f->key_units[k])
			return SIZE_MAX;
	}
	return k;
}

static int key_cmp(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : x[1] < y[1] ? -1 : x[1] > y[1];
}

/* The record's metrics as h's values, by key; of one key twice, the first. 0 or -ENOMEM. */
static int host_values(struct fleet *f, struct fleet_host *h, const struct fleet_record *r)
{
	uint32_t (*by)[2] = calloc(r->nm + 1, sizeof(*by));
	size_t n = 0;

	if (!by)
		return -ENOMEM;
	for (size_t i = 0; i < r->nm; i++) {
		size_t k = metric_key(f, &r->m[i]);

		if (k != SIZE_MAX) {
			by[n][0] = (uint32_t)k;
			by[n++][1] = (uint32_t)i;
		}
	}
	qsort(by, n, sizeof(*by), key_cmp);
	h->vals = malloc(n * (sizeof(double) + sizeof(uint16_t)) + 1);
	if (!h->vals) {
		free(by);
		return -ENOMEM;
	}
	h->vkeys = (uint16_t *)(h->vals + n);
	for (size_t i = 0; i < n; i++) {
		if (h->nvals && h->vkeys[h->nvals - 1] == by[i][0])
			continue;
		h->vkeys[h->nvals] = (uint16_t)by[i][0];
		h->vals[h->nvals++] = r->m[by[i][1]].value;
	}
	free(by);
	return 0;
}

int fleet__value(const struct fleet_host *h, size_t key, double *v)
{
	size_t lo = 0, hi = h->nvals;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (h->vkeys[mid] == key) {
			*v = h->vals[mid];
			return 0;
		}
		if (h->vkeys[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -ENOENT;
}

/*
 * The window as this host's clock sees it: its start (INT64_MIN when it does
 * not read as a time, so it never stands over one that does), and whether it
 * starts or ends in the future.
 */
static void host_window(const struct fleet *f, struct fleet_host *h, const struct fleet_record *r)
{
	int64_t start, end;

	h->start_s = clock__parse_iso8601(r->start, &start) ? INT64_MIN : start;
	h->future = (h->start_s != INT64_MIN && h->start_s > f->now + FLEET_FUTURE_SKEW_S) ||
		    (!clock__parse_iso8601(r->end, &end) && end > f->now + FLEET_FUTURE_SKEW_S);
}

/* The record as a host (the strings taken over from r). 0 or -ENOMEM. */
static int host_make(struct fleet *f, struct fleet_host *h, const char *name,
		     struct fleet_record *r)
{
	h->host = r->host;
	h->host_id = r->host_id;
	h->verdict = r->verdict;
	h->case_id = r->case_id;
	r->host = r->host_id = r->verdict = r->case_id = NULL;
	memcpy(h->start, r->start, sizeof(h->start));
	host_window(f, h, r);
	h->worst = r->worst;
	h->partial = r->partial;
	h->nunknowns = r->nunknowns;
	memcpy(h->hist, r->hist, sizeof(h->hist));
	h->bundle = fleet__cut_dup(name, FLEET_NAME_MAX);
	if (!h->bundle || (r->nf && !(h->f = calloc(r->nf, sizeof(*h->f)))))
		return -ENOMEM;
	for (size_t i = 0; i < r->nf; i++) {
		size_t c = names_find(&f->checks, r->f[i].check, 1, FLEET_CHECKS_MAX);

		if (c == SIZE_MAX) {
			r->f[i].sev = 0; /* a check beyond the cap: not kept, nor its summary */
			continue;
		}
		h->f[h->nf].check = (uint32_t)c;
		h->f[h->nf].sev = r->f[i].sev;
		h->nwarn += r->f[i].sev == 1;
		h->ncrit += r->f[i].sev == 2;
		h->nf++;
	}
	return host_values(f, h, r);
}

struct fleet *fleet__new(int64_t now, const char *spool_dir)
{
	struct fleet *f = calloc(1, sizeof(struct fleet));

	if (!f)
		return NULL;
	f->now = now;
	spool_open(f, spool_dir);
	return f;
}

/*
 * A bundle dated in the future, listed: FLEET_FUTURE_MAX of them, the first by
 * name whatever the reading order (one listed before is let go for it), the
 * others counted.
 */
static int note_future(struct fleet *f, const struct fleet_host *h)
{
	struct fleet_future *e;

	if (f->nfuture >= FLEET_FUTURE_MAX) {
		size_t last = 0;

		f->future_cut++;
		for (size_t i = 1; i < f->nfuture; i++)
			if (strcmp(f->future[i].bundle, f->future[last].bundle) > 0)
				last = i;
		if (strcmp(h->bundle, f->future[last].bundle) >= 0)
			return 0;
		e = &f->future[last];
		free(e->bundle);
		free(e->host);
		free(e->host_id);
		f->nfuture--;
		if (last != f->nfuture)
			*e = f->future[f->nfuture];
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

int fleet__add(struct fleet *f, const char *name, const void *rec, size_t len, char *err,
	       size_t errlen)
{
	struct fleet_record r;
	struct fleet_host h = { 0 };
	char key[HOST_ID_LEN + FLEET_HOST_MAX + 8];
	size_t idx, before;
	int rc;

	if (fleet_record__decode(rec, len, &r)) {
		snprintf(err, errlen, "the worker's record of it is malformed");
		return -EINVAL;
	}
	rc = host_make(f, &h, name, &r);
	if (!rc)
		rc = spool_put(f, &h, &r);
	fleet_record__free(&r);
	if (rc)
		goto oom;
	f->bundles++;
	if (h.future && note_future(f, &h))
		goto oom;
	/* the host: its id and its name (two machines may claim one name) */
	snprintf(key, sizeof(key), "%s\x1f%s", h.host_id ? h.host_id : "", h.host);
	before = f->host_keys.n;
	idx = names_find(&f->host_keys, key, 1, SIZE_MAX);
	if (idx == SIZE_MAX)
		goto oom;
	if (f->host_keys.n > before) {
		if (grow(&f->hosts, &f->cap, f->nhosts, sizeof(*f->hosts)))
			goto oom;
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
oom:
	host_free(&h);
	snprintf(err, errlen, "out of memory");
	return -ENOMEM;
}

int fleet__refused(struct fleet *f, const char *name, const char *reason)
{
	if (grow(&f->refused, &f->refused_cap, f->nrefused, sizeof(*f->refused)))
		return -ENOMEM;
	f->refused[f->nrefused].name = fleet__cut_dup(name, FLEET_NAME_MAX);
	f->refused[f->nrefused].reason = fleet__cut_dup(reason, 1024);
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

	/* in the summary's order once it is made: the same host whatever the reading order */
	for (size_t k = 0; k < f->nhosts; k++) {
		const struct fleet_host *h = &f->hosts[f->finished ? f->order[k] : k];

		if (h->worst <= 0)
			continue;
		if (worst && h->worst == worst->worst)
			also++;
		if (!worst || h->worst > worst->worst) {
			worst = h;
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
	if (f->spool_fd >= 0)
		close(f->spool_fd);
	strbuf__free(&f->spool_buf);
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
