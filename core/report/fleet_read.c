// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One bundle's record for the fleet summary (fleet.h): what a worker process
 * reads of a bundle's findings.json, manifest.json and BPF histograms, cut to
 * the bounds of fleet_int.h, and its wire form (util/wire.h) to the parent,
 * which reads it back checking every length and count again: the parse of an
 * untrusted document, and its memory, stay in the worker.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/fleet_int.h"
#include "report/report.h"
#include "util/hostid.h"
#include "util/wire.h"

#define RECORD_MAGIC 0x31544c46u /* "FLT1" */
/* a check id or metric name longer than this is no sonde check's: skipped */
#define FLEET_ID_MAX 128
#define FLEET_UNIT_MAX 16
#define FLEET_CASE_MAX 64

const char *const fleet_hist_tool[FLEET_NHIST] = { "runqlat", "biolatency" };

char *fleet__cut_dup(const char *s, size_t max)
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

/* Why a host has no histogram (one line, cut) into *why. 0 or -ENOMEM. */
static int say_why(char **why, const char *text)
{
	*why = fleet__cut_dup(text, FLEET_WHY_MAX);
	return *why ? 0 : -ENOMEM;
}

/* runqlat's histogram, or every disk's every operation merged (queue + service). */
static int record_hist(struct fleet_record *r, int kind, const struct jval *doc)
{
	const char *tool = fleet_hist_tool[kind], *st = jval__str(doc, "status");
	const char *reason = jval__str(doc, "reason");
	const struct jval *data = member(doc, "data", J_OBJECT), *disks;
	struct fleet_hist *h = &r->hist[kind];
	char why[FLEET_WHY_MAX];
	int bad = 0;

	if (!doc) {
		snprintf(why, sizeof(why), "no raw/bpf/%s.json in the bundle", tool);
		return say_why(&r->why[kind], why);
	}
	if (!st || strcmp(st, "ok")) {
		snprintf(why, sizeof(why), "%s: %.60s%s%.120s", tool, st ? st : "no status",
			 reason ? ": " : "", reason ? reason : "");
		return say_why(&r->why[kind], why);
	}
	if (!data) {
		snprintf(why, sizeof(why), "%s: no data", tool);
		return say_why(&r->why[kind], why);
	}
	if (kind == FLEET_RUNQLAT) {
		bad = hist_add(h, jval__get(data, "hist"));
	} else {
		disks = member(data, "disks", J_ARRAY);
		for (size_t d = 0; !bad && disks && d < disks->len; d++) {
			const struct jval *ops = member(&disks->items[d], "ops", J_OBJECT);

			for (size_t o = 0; !bad && ops && o < ops->len; o++)
				bad = hist_add(h, jval__get(&ops->items[o], "total"));
		}
	}
	if (bad) {
		memset(h, 0, sizeof(*h));
		snprintf(why, sizeof(why), "%s: %s histogram is malformed", tool,
			 kind == FLEET_RUNQLAT ? "its" : "a");
		return say_why(&r->why[kind], why);
	}
	h->have = 1;
	return 0;
}

static int record_findings(struct fleet_record *r, const struct jval *doc)
{
	const struct jval *fs = member(doc, "findings", J_ARRAY);

	if (!fs || !fs->len)
		return 0;
	r->f = calloc(fs->len < FLEET_FINDINGS_MAX ? fs->len : FLEET_FINDINGS_MAX, sizeof(*r->f));
	if (!r->f)
		return -ENOMEM;
	for (size_t i = 0; i < fs->len && r->nf < FLEET_FINDINGS_MAX; i++) {
		const char *check = jval__str(&fs->items[i], "check");
		int sev = status__severity(jval__str(&fs->items[i], "severity"));
		struct fleet_record_finding *rf = &r->f[r->nf];

		if (!check || sev < 1 || strlen(check) > FLEET_ID_MAX)
			continue;
		rf->sev = sev;
		rf->check = strdup(check);
		rf->summary = fleet__cut_dup(jval__str(&fs->items[i], "summary"),
					     FLEET_SUMMARY_MAX);
		r->nf++;
		if (!rf->check || !rf->summary)
			return -ENOMEM;
	}
	return 0;
}

/* Every check's host-level metrics (those without an instance), for the outliers. */
static int record_metrics(struct fleet_record *r, const struct jval *doc)
{
	const struct jval *cs = member(doc, "checks", J_ARRAY);

	for (size_t i = 0; cs && i < cs->len && r->nm < FLEET_VALUES_MAX; i++) {
		const struct jval *ms = member(&cs->items[i], "metrics", J_ARRAY);
		const char *id = jval__str(&cs->items[i], "id");

		if (id && strlen(id) > FLEET_ID_MAX)
			continue;
		for (size_t k = 0; id && ms && k < ms->len && r->nm < FLEET_VALUES_MAX; k++) {
			const struct jval *m = &ms->items[k], *inst = jval__get(m, "instance");
			const char *name = jval__str(m, "name");
			struct fleet_record_metric *rm;
			double v;

			if (!name || strlen(name) > FLEET_ID_MAX ||
			    (inst && inst->type != J_NULL) || jval__num(m, "value", &v) ||
			    !isfinite(v))
				continue;
			if (!(r->nm & (r->nm - 1))) {
				void *nm = realloc(r->m, (r->nm ? r->nm * 2 : 1) * sizeof(*r->m));

				if (!nm)
					return -ENOMEM;
				r->m = nm;
			}
			rm = &r->m[r->nm++];
			rm->value = v;
			rm->check = strdup(id);
			rm->name = strdup(name);
			rm->unit = fleet__cut_dup(jval__str(m, "unit"), FLEET_UNIT_MAX);
			if (!rm->check || !rm->name || !rm->unit)
				return -ENOMEM;
		}
	}
	return 0;
}

static int record_read(struct fleet_record *r, const struct fleet_members *m, char *err,
		       size_t errlen)
{
	const struct jval *doc = m->findings, *win = member(doc, "window", J_OBJECT);
	const struct jval *mhost = member(m->manifest, "host", J_OBJECT), *unk;
	const char *schema = jval__str(doc, "schema"), *host, *id, *case_id;
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
	r->worst = status__severity(jval__str(doc, "worst"));
	r->partial = partial && partial->type == J_BOOL && partial->boolean;
	unk = member(doc, "unknowns", J_ARRAY);
	r->nunknowns = unk ? unk->len : 0;
	snprintf(r->start, sizeof(r->start), "%s", jval__str(win, "start") ?: "");
	snprintf(r->end, sizeof(r->end), "%s", jval__str(win, "end") ?: "");
	/* which machine: the manifest's host id; one that is not a host id is none */
	id = jval__str(mhost, "host_id");
	if (id && host_id__valid(id) && !(r->host_id = strdup(id)))
		return -ENOMEM;
	case_id = jval__str(m->manifest, "case_id");
	if (case_id && !(r->case_id = fleet__cut_dup(case_id, FLEET_CASE_MAX)))
		return -ENOMEM;
	r->host = fleet__cut_dup(host, FLEET_HOST_MAX);
	r->verdict = fleet__cut_dup(jval__str(doc, "verdict"), FLEET_VERDICT_MAX);
	if (!r->host || !r->verdict || record_findings(r, doc) || record_metrics(r, doc) ||
	    record_hist(r, FLEET_RUNQLAT, m->runqlat) ||
	    record_hist(r, FLEET_BIOLATENCY, m->biolatency))
		return -ENOMEM;
	return 0;
}

static void record_put(struct strbuf *out, const struct fleet_record *r)
{
	wire__put_u64(out, RECORD_MAGIC);
	wire__put_str(out, r->host);
	wire__put_str(out, r->host_id);
	wire__put_str(out, r->verdict);
	wire__put_str(out, r->case_id);
	wire__put_str(out, r->start);
	wire__put_str(out, r->end);
	wire__put_u64(out, (uint64_t)(r->worst + 1));
	wire__put_u64(out, (uint64_t)r->partial);
	wire__put_u64(out, r->nunknowns);
	wire__put_u64(out, r->nf);
	for (size_t i = 0; i < r->nf; i++) {
		wire__put_str(out, r->f[i].check);
		wire__put_u64(out, (uint64_t)r->f[i].sev);
		wire__put_str(out, r->f[i].summary);
	}
	wire__put_u64(out, r->nm);
	for (size_t i = 0; i < r->nm; i++) {
		wire__put_str(out, r->m[i].check);
		wire__put_str(out, r->m[i].name);
		wire__put_str(out, r->m[i].unit);
		wire__put_f64(out, r->m[i].value);
	}
	for (int k = 0; k < FLEET_NHIST; k++) {
		wire__put_u64(out, (uint64_t)r->hist[k].have);
		wire__put_str(out, r->why[k]);
		for (size_t b = 0; r->hist[k].have && b < FLEET_BUCKETS; b++)
			wire__put_f64(out, r->hist[k].b[b]);
	}
}

int fleet__summarize(const struct fleet_members *m, struct strbuf *out, char *err, size_t errlen)
{
	struct fleet_record r = { 0 };
	int rc = record_read(&r, m, err, errlen);

	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	if (!rc) {
		record_put(out, &r);
		if (out->oom) {
			snprintf(err, errlen, "out of memory");
			rc = -ENOMEM;
		}
	}
	fleet_record__free(&r);
	return rc;
}

/* A string of the wire of at most max bytes (NULL allowed when nullable), or bad. */
static char *get_str(struct wire_reader *rb, size_t max, int nullable)
{
	size_t len = 0;
	char *s = wire__mem(rb, &len);

	if (rb->bad || (!s && !nullable) || (s && (len > max || strlen(s) != len))) {
		free(s);
		rb->bad = 1;
		return NULL;
	}
	return s;
}

static void get_findings(struct wire_reader *rb, struct fleet_record *r)
{
	size_t n;

	rb->max_items = FLEET_FINDINGS_MAX;
	n = wire__count(rb);
	if (rb->bad || !n || !(r->f = calloc(n, sizeof(*r->f)))) {
		rb->bad |= n > 0;
		return;
	}
	for (; r->nf < n && !rb->bad; r->nf++) {
		struct fleet_record_finding *f = &r->f[r->nf];
		uint64_t sev;

		f->check = get_str(rb, FLEET_ID_MAX, 0);
		sev = wire__u64(rb);
		f->summary = get_str(rb, FLEET_SUMMARY_MAX, 0);
		f->sev = (int)sev;
		rb->bad |= sev < 1 || sev > 2;
	}
}

static void get_metrics(struct wire_reader *rb, struct fleet_record *r)
{
	size_t n;

	rb->max_items = FLEET_VALUES_MAX;
	n = wire__count(rb);
	if (rb->bad || !n || !(r->m = calloc(n, sizeof(*r->m)))) {
		rb->bad |= n > 0;
		return;
	}
	for (; r->nm < n && !rb->bad; r->nm++) {
		struct fleet_record_metric *m = &r->m[r->nm];

		m->check = get_str(rb, FLEET_ID_MAX, 0);
		m->name = get_str(rb, FLEET_ID_MAX, 0);
		m->unit = get_str(rb, FLEET_UNIT_MAX, 0);
		m->value = wire__f64(rb);
		rb->bad |= !isfinite(m->value);
	}
}

int fleet_record__decode(const void *buf, size_t len, struct fleet_record *r)
{
	struct wire_reader rb = { .p = buf, .end = (const char *)buf + len,
				  .max_str = FLEET_NAME_MAX };
	char *start, *end;
	uint64_t worst;

	memset(r, 0, sizeof(*r));
	if (wire__u64(&rb) != RECORD_MAGIC)
		return -EINVAL;
	r->host = get_str(&rb, FLEET_HOST_MAX, 0);
	r->host_id = get_str(&rb, HOST_ID_LEN, 1);
	r->verdict = get_str(&rb, FLEET_VERDICT_MAX, 0);
	r->case_id = get_str(&rb, FLEET_CASE_MAX, 1);
	start = get_str(&rb, sizeof(r->start) - 1, 0);
	end = get_str(&rb, sizeof(r->end) - 1, 0);
	if (start && end) {
		memcpy(r->start, start, strlen(start) + 1);
		memcpy(r->end, end, strlen(end) + 1);
	}
	free(start);
	free(end);
	worst = wire__u64(&rb);
	r->worst = (int)worst - 1;
	r->partial = wire__u64(&rb) != 0;
	r->nunknowns = (size_t)wire__u64(&rb);
	rb.bad |= worst > 3 || !r->host || !*r->host || (r->host_id && !host_id__valid(r->host_id));
	get_findings(&rb, r);
	get_metrics(&rb, r);
	for (int k = 0; k < FLEET_NHIST && !rb.bad; k++) {
		r->hist[k].have = wire__u64(&rb) != 0;
		r->why[k] = get_str(&rb, FLEET_WHY_MAX, 1);
		for (size_t b = 0; r->hist[k].have && b < FLEET_BUCKETS; b++) {
			double v = wire__f64(&rb);

			rb.bad |= !isfinite(v) || v < 0;
			r->hist[k].b[b] = v;
			r->hist[k].total += v;
		}
		rb.bad |= !r->hist[k].have && !r->why[k];
	}
	rb.bad |= rb.p != rb.end;
	if (rb.bad) {
		fleet_record__free(r);
		return -EINVAL;
	}
	return 0;
}

void fleet_record__free(struct fleet_record *r)
{
	free(r->host);
	free(r->host_id);
	free(r->verdict);
	free(r->case_id);
	for (size_t i = 0; i < r->nf; i++) {
		free(r->f[i].check);
		free(r->f[i].summary);
	}
	free(r->f);
	for (size_t i = 0; i < r->nm; i++) {
		free(r->m[i].check);
		free(r->m[i].name);
		free(r->m[i].unit);
	}
	free(r->m);
	for (int k = 0; k < FLEET_NHIST; k++)
		free(r->why[k]);
	memset(r, 0, sizeof(*r));
}
