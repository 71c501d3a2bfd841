// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sonde diff: findings and metric deltas between two bundles. Both
 * findings.json are read as untrusted (json_read); every string from them is
 * escaped for its output (the terminal's through util/tty.h, Markdown, HTML,
 * JSON); --md and --html are one document (report/doc.h) rendered twice,
 * never HTML made from Markdown.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fcntl.h>

#include "bundle/diff.h"
#include "report/report.h"
#include "util/file.h"
#include "report/doc.h"
#include "util/json.h"
#include "util/json_read.h"
#include "util/tty.h"

#define FINDINGS_MAX (64u << 20)

struct side {
	char *text;
	struct jval *doc;
	const char *name; /* the bundle as the user named it */
};

static int side__load(struct side *sd, const char *dir, const char *name, char *err,
		      size_t errlen)
{
	char path[4200], jerr[256];
	size_t len;
	int rc;

	memset(sd, 0, sizeof(*sd));
	sd->name = name;
	snprintf(path, sizeof(path), "%s/findings.json", dir);
	rc = file__read_bounded(AT_FDCWD, path, FINDINGS_MAX, &sd->text, &len);
	if (rc) {
		snprintf(err, errlen, "%s: findings.json: %s", name,
			 rc == -EFBIG ? "too large" : strerror(-rc));
		return rc;
	}
	if (json_read(sd->text, len, &json_read_default_limits, &sd->doc, jerr, sizeof(jerr))) {
		snprintf(err, errlen, "%s: findings.json: %s", name, jerr);
		return -EINVAL;
	}
	if (!jval__str(sd->doc, "schema") ||
	    strncmp(jval__str(sd->doc, "schema"), "sonde.findings/", 15)) {
		snprintf(err, errlen, "%s: findings.json is not a sonde findings document", name);
		return -EINVAL;
	}
	return 0;
}

static void side__free(struct side *sd)
{
	jval__free(sd->doc);
	free(sd->text);
}

static const struct jval *array_of(const struct jval *doc, const char *key)
{
	const struct jval *v = jval__get(doc, key);

	return v && v->type == J_ARRAY ? v : NULL;
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

struct keyed_index {
	struct keyed *k;
	size_t n;
};

static int keyed_index__sort(struct keyed_index *ix)
{
	if (ix->n > 1)
		qsort(ix->k, ix->n, sizeof(*ix->k), keyed_cmp);
	return 0; /* so that the builders can end with it */
}

/* The first item (by position) whose key is key's, or NULL. */
static const struct jval *keyed_index__find(const struct keyed_index *ix, const struct keyed *key)
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

/* The findings of one side by check id (a finding without one matches nothing). */
static int findings_index(const struct jval *list, struct keyed_index *ix)
{
	ix->n = 0;
	ix->k = calloc(list ? list->len + 1 : 1, sizeof(*ix->k));
	if (!ix->k)
		return -ENOMEM;
	for (size_t i = 0; list && i < list->len; i++) {
		const char *c = jval__str(&list->items[i], "check");

		if (c)
			ix->k[ix->n++] = (struct keyed){ .k1 = c, .order = i, .v = &list->items[i] };
	}
	return keyed_index__sort(ix);
}

static const struct jval *find_finding(const struct keyed_index *ix, const char *check)
{
	struct keyed key = { .k1 = check };

	return check ? keyed_index__find(ix, &key) : NULL;
}

enum change { CH_NEW, CH_WORSE, CH_RESOLVED, CH_PERSISTING, CH_BETTER, CH_HOST };
static const char *const change_names[] = { "new",    "worse",  "resolved",
					     "persisting", "better", "host" };

struct finding_change {
	enum change ch;
	const char *check, *old_sev, *new_sev, *summary;
};

struct metric_change {
	const char *check, *name, *instance, *unit, *verdict;
	double old_v, new_v;
	char old_s[48], new_s[48]; /* as shown, in the unit: a change that rounds away is none */
	int old_has_range, new_has_range;
	double old_lo, old_hi, new_lo, new_hi;
};

struct diff {
	struct finding_change *f;
	size_t nf;
	struct metric_change *m;
	size_t nm;
	size_t beyond, within, unknown_spread;
	int worst;
	size_t worst_at;              /* the first finding change at worst, when worst > 0 */
	struct strv host_checks, host_lines; /* diff_host.c: the host's changes */
};

static int range_of(const struct jval *m, double *lo, double *hi)
{
	const struct jval *r = jval__get(m, "range");

	if (!r || r->type != J_ARRAY || r->len != 2 || r->items[0].type != J_NUMBER ||
	    r->items[1].type != J_NUMBER)
		return 0;
	*lo = r->items[0].number;
	*hi = r->items[1].number;
	return 1;
}

/* The metrics of one side by (check id, name, instance), in the order checks list them. */
static int metrics_index(const struct jval *checks, struct keyed_index *ix)
{
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
					.k1 = id, .k2 = n, .k3 = jval__str(&ms->items[k], "instance"),
					.order = order++, .v = &ms->items[k],
				};
		}
	}
	return keyed_index__sort(ix);
}

static const struct jval *find_metric(const struct keyed_index *ix, const char *check,
				      const char *name, const char *instance)
{
	struct keyed key = { .k1 = check, .k2 = name, .k3 = instance };

	return keyed_index__find(ix, &key);
}

/* The host's configuration changes appended to d's findings: 0 or -ENOMEM. */
static int diff_add_host(const struct side *o, const struct side *n, struct diff *d)
{
	size_t total;
	struct finding_change *grown;

	if (diff_host__compare(o->doc, n->doc, &d->host_checks, &d->host_lines))
		return -ENOMEM;
	if (!d->host_checks.n)
		return 0;
	total = d->nf + d->host_checks.n;
	grown = realloc(d->f, total * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	d->f = grown;
	for (size_t i = 0; i < d->host_checks.n; i++)
		d->f[d->nf++] = (struct finding_change){ .ch = CH_HOST,
							 .check = d->host_checks.v[i],
							 .new_sev = "warn",
							 .summary = d->host_lines.v[i] };
	if (d->worst < 1) {
		d->worst = 1;
		d->worst_at = d->nf - d->host_checks.n;
	}
	return 0;
}

static int diff__compute(const struct side *o, const struct side *n, struct diff *d)
{
	const struct jval *of = array_of(o->doc, "findings"), *nf = array_of(n->doc, "findings");
	const struct jval *oc = array_of(o->doc, "checks"), *nc = array_of(n->doc, "checks");
	size_t cap = (of ? of->len : 0) + (nf ? nf->len : 0) + 1;
	struct keyed_index ofi = { 0 }, nfi = { 0 }, omi = { 0 };
	int rc = -ENOMEM;

	memset(d, 0, sizeof(*d));
	d->f = calloc(cap, sizeof(*d->f));
	if (!d->f || findings_index(of, &ofi) || findings_index(nf, &nfi) ||
	    metrics_index(oc, &omi))
		goto cleanup;
	for (size_t i = 0; nf && i < nf->len; i++) {
		const struct jval *f = &nf->items[i], *prev;
		struct finding_change *c = &d->f[d->nf++];
		int rn, ro;

		c->check = jval__str(f, "check");
		c->new_sev = jval__str(f, "severity");
		c->summary = jval__str(f, "summary");
		prev = find_finding(&ofi, c->check);
		rn = status__severity(c->new_sev);
		if (!prev) {
			c->ch = CH_NEW;
		} else {
			c->old_sev = jval__str(prev, "severity");
			ro = status__severity(c->old_sev);
			c->ch = rn > ro ? CH_WORSE : rn < ro ? CH_BETTER : CH_PERSISTING;
		}
		if ((c->ch == CH_NEW || c->ch == CH_WORSE) && rn > d->worst) {
			d->worst = rn;
			d->worst_at = d->nf - 1;
		}
	}
	for (size_t i = 0; of && i < of->len; i++) {
		const struct jval *f = &of->items[i];
		struct finding_change *c;

		if (find_finding(&nfi, jval__str(f, "check")))
			continue;
		c = &d->f[d->nf++];
		c->ch = CH_RESOLVED;
		c->check = jval__str(f, "check");
		c->old_sev = jval__str(f, "severity");
		c->summary = jval__str(f, "summary");
	}

	/* The host's configuration: each change a finding of the diff, of severity warn. */
	if (diff_add_host(o, n, d))
		goto cleanup;

	/* Metrics of the new run that the old run also measured. */
	cap = 1;
	for (size_t i = 0; nc && i < nc->len; i++) {
		const struct jval *ms = array_of(&nc->items[i], "metrics");

		cap += ms ? ms->len : 0;
	}
	d->m = calloc(cap, sizeof(*d->m));
	if (!d->m)
		goto cleanup;
	for (size_t i = 0; nc && i < nc->len; i++) {
		const char *check = jval__str(&nc->items[i], "id");
		const struct jval *ms = array_of(&nc->items[i], "metrics");

		for (size_t k = 0; check && ms && k < ms->len; k++) {
			const struct jval *nm = &ms->items[k], *om;
			struct metric_change *c = &d->m[d->nm];

			c->check = check;
			c->name = jval__str(nm, "name");
			c->instance = jval__str(nm, "instance");
			c->unit = jval__str(nm, "unit");
			if (!c->name || jval__num(nm, "value", &c->new_v))
				continue;
			om = find_metric(&omi, check, c->name, c->instance);
			if (!om || jval__num(om, "value", &c->old_v))
				continue;
			c->old_has_range = range_of(om, &c->old_lo, &c->old_hi);
			c->new_has_range = range_of(nm, &c->new_lo, &c->new_hi);
			report__fmt_value(c->old_s, sizeof(c->old_s), c->old_v, c->unit);
			report__fmt_value(c->new_s, sizeof(c->new_s), c->new_v, c->unit);
			if (c->old_v == c->new_v || !strcmp(c->old_s, c->new_s)) {
				c->verdict = "same";
			} else if (c->old_has_range && c->new_has_range) {
				/* A change is one the windows' own spreads cannot explain. */
				if (c->new_lo > c->old_hi)
					c->verdict = "up";
				else if (c->new_hi < c->old_lo)
					c->verdict = "down";
				else
					c->verdict = "within noise";
			} else {
				c->verdict = "changed, spread unknown";
			}
			if (!strcmp(c->verdict, "up") || !strcmp(c->verdict, "down"))
				d->beyond++;
			else if (!strcmp(c->verdict, "within noise"))
				d->within++;
			else if (strcmp(c->verdict, "same"))
				d->unknown_spread++;
			d->nm++;
		}
	}
	rc = 0;
cleanup:
	free(ofi.k);
	free(nfi.k);
	free(omi.k);
	return rc;
}

/* A severity read from a bundle, cleaned for the terminal, in a column of 4. */
static void tty_severity(FILE *out, const char *s)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%s", s ? s : "-");
	tty__clean_str(buf);
	fprintf(out, "%-4s", buf);
}

static const char *or_dash(const char *s)
{
	return s ? s : "-";
}

static void side_label(FILE *out, const struct side *sd)
{
	const struct jval *host = jval__get(sd->doc, "host"), *win = jval__get(sd->doc, "window");

	tty__puts(out, sd->name);
	fputs(" (", out);
	tty__puts(out, or_dash(jval__str(host, "hostname")));
	fputs(", ", out);
	tty__puts(out, or_dash(jval__str(win, "start")));
	fputs(")", out);
}

static int counts(const struct diff *d, enum change ch)
{
	int n = 0;

	for (size_t i = 0; i < d->nf; i++)
		n += d->f[i].ch == ch;
	return n;
}

static int beyond(const struct metric_change *c)
{
	return !strcmp(c->verdict, "up") || !strcmp(c->verdict, "down");
}

/* "lo..hi" in the unit (from the bundle: text), to out or into in. */
static void range_text(FILE *out, struct inlines *in, const char *pre, double lo, double hi,
		       const char *unit)
{
	char a[48], b[48], s[100];

	report__fmt_value(a, sizeof(a), lo, unit);
	report__fmt_value(b, sizeof(b), hi, unit);
	snprintf(s, sizeof(s), "%s..%s", a, b);
	if (out) {
		fputs(pre, out);
		tty__puts(out, s);
	} else {
		inl__words(in, "%s", pre);
		inl__text(in, s);
	}
}

static void print_text(FILE *out, const struct side *o, const struct side *n, const struct diff *d)
{
	fputs("sonde diff: ", out);
	side_label(out, o);
	fputs("\n        ->  ", out);
	side_label(out, n);
	fprintf(out,
		"\n\nFindings: %d new, %d worse, %d resolved, %d persisting, %d better, "
		"%d host changes\n",
		counts(d, CH_NEW), counts(d, CH_WORSE), counts(d, CH_RESOLVED),
		counts(d, CH_PERSISTING), counts(d, CH_BETTER), counts(d, CH_HOST));
	for (size_t i = 0; i < d->nf; i++) {
		const struct finding_change *c = &d->f[i];

		fprintf(out, "  %-10s ", change_names[c->ch]);
		tty_severity(out, c->old_sev);
		fputs(" -> ", out);
		tty_severity(out, c->new_sev);
		fputs("  ", out);
		tty__puts(out, or_dash(c->check));
		fputs(": ", out);
		tty__puts(out, or_dash(c->summary));
		fputc('\n', out);
	}
	fprintf(out, "\nMetrics beyond the noise of their windows: %zu\n", d->beyond);
	for (size_t i = 0; i < d->nm; i++) {
		const struct metric_change *c = &d->m[i];

		if (!beyond(c))
			continue;
		fputs("  ", out);
		tty__puts(out, c->check);
		fputc(' ', out);
		tty__puts(out, c->name);
		if (c->instance) {
			fputc(' ', out);
			tty__puts(out, c->instance);
		}
		fputs(": ", out);
		tty__puts(out, c->old_s);
		fputs(" -> ", out);
		tty__puts(out, c->new_s);
		fprintf(out, " %s", c->verdict);
		range_text(out, NULL, " (old window ", c->old_lo, c->old_hi, c->unit);
		range_text(out, NULL, ", new ", c->new_lo, c->new_hi, c->unit);
		fputs(")\n", out);
	}
	fprintf(out, "Within noise: %zu; changed with no spread known: %zu\n", d->within,
		d->unknown_spread);
}

/* A severity read from findings.json: coloured only when it is one of the contract's words. */
static enum cell_status severity_cell(const char *sev)
{
	static const char *const words[] = { "ok", "warn", "crit" };
	static const enum status st[] = { ST_OK, ST_WARN, ST_CRIT };

	for (size_t i = 0; sev && i < sizeof(words) / sizeof(*words); i++)
		if (!strcmp(sev, words[i]))
			return cell_status__of(st[i]);
	return CELL_PLAIN;
}

static void cell_text(struct block *t, const char *s, enum cell_status st)
{
	inl__text(doc__cell(t, st), s ? s : "-");
}

static void doc_findings(struct doc *doc, const struct diff *d)
{
	static const char *const head[] = { "change", "old", "new", "check", "summary" };
	struct block *t;

	inl__words(doc__heading(doc, 2, NULL), "Findings");
	inl__words(doc__para(doc),
		   "%d new, %d worse, %d resolved, %d persisting, %d better, %d host changes",
		   counts(d, CH_NEW), counts(d, CH_WORSE), counts(d, CH_RESOLVED),
		   counts(d, CH_PERSISTING), counts(d, CH_BETTER), counts(d, CH_HOST));
	if (!d->nf)
		return;
	t = doc__table_head(doc, "lllll", head);
	for (size_t i = 0; i < d->nf; i++) {
		const struct finding_change *c = &d->f[i];

		inl__words(doc__cell(t, CELL_PLAIN), "%s", change_names[c->ch]);
		cell_text(t, c->old_sev, severity_cell(c->old_sev));
		cell_text(t, c->new_sev, severity_cell(c->new_sev));
		cell_text(t, c->check, CELL_PLAIN);
		cell_text(t, c->summary, CELL_PLAIN);
	}
}

static void doc_metrics(struct doc *doc, const struct diff *d)
{
	static const char *const head[] = { "check", "metric", "old", "new", "old window",
					    "new window", "verdict" };
	struct block *t;

	inl__words(doc__heading(doc, 2, NULL), "Metrics");
	inl__words(doc__para(doc),
		   "%zu beyond the noise of their windows, %zu within noise, %zu changed with no "
		   "spread known.",
		   d->beyond, d->within, d->unknown_spread);
	if (!d->nm)
		return;
	t = doc__table_head(doc, "llrrlll", head);
	for (size_t i = 0; i < d->nm; i++) {
		const struct metric_change *c = &d->m[i];
		struct inlines *in;

		if (!strcmp(c->verdict, "same"))
			continue;
		cell_text(t, c->check, CELL_PLAIN);
		in = doc__cell(t, CELL_PLAIN);
		inl__text(in, c->name);
		if (c->instance) {
			inl__words(in, " ");
			inl__text(in, c->instance);
		}
		inl__text(doc__cell(t, CELL_PLAIN), c->old_s);
		inl__text(doc__cell(t, CELL_PLAIN), c->new_s);
		in = doc__cell(t, CELL_PLAIN);
		if (c->old_has_range)
			range_text(NULL, in, "", c->old_lo, c->old_hi, c->unit);
		in = doc__cell(t, CELL_PLAIN);
		if (c->new_has_range)
			range_text(NULL, in, "", c->new_lo, c->new_hi, c->unit);
		cell_text(t, c->verdict, CELL_PLAIN);
	}
}

/* --md and --html: one document, rendered by the report layer's two renderers. */
static int build_doc(struct doc *doc, const struct side *o, const struct side *n,
		     const struct diff *d)
{
	static const char *const head[] = { "", "bundle", "host", "window start" };
	struct block *t;

	inl__words(doc__heading(doc, 1, NULL), "sonde diff");
	t = doc__table_head(doc, "llll", head);
	for (int k = 0; k < 2; k++) {
		const struct side *sd = k ? n : o;

		inl__words(doc__cell(t, CELL_PLAIN), k ? "new" : "old");
		cell_text(t, sd->name, CELL_PLAIN);
		cell_text(t, jval__str(jval__get(sd->doc, "host"), "hostname"), CELL_PLAIN);
		cell_text(t, jval__str(jval__get(sd->doc, "window"), "start"), CELL_PLAIN);
	}
	doc_findings(doc, d);
	doc_metrics(doc, d);
	return doc__finish(doc);
}

static void build_json(struct json *j, const struct side *o, const struct side *n,
		       const struct diff *d)
{
	static const char *const sev[] = { "ok", "warn", "crit" };

	json__begin_object(j);
	json__kv_str(j, "schema", DIFF_SCHEMA);
	for (int k = 0; k < 2; k++) {
		const struct side *sd = k ? n : o;

		json__key(j, k ? "new" : "old");
		json__begin_object(j);
		json__kv_str(j, "bundle", sd->name);
		json__kv_str(j, "hostname", jval__str(jval__get(sd->doc, "host"), "hostname"));
		json__kv_str(j, "start", jval__str(jval__get(sd->doc, "window"), "start"));
		json__end_object(j);
	}
	json__kv_str(j, "worst", sev[d->worst]);
	json__key(j, "findings");
	json__begin_array(j);
	for (size_t i = 0; i < d->nf; i++) {
		const struct finding_change *c = &d->f[i];

		json__begin_object(j);
		json__kv_str(j, "change", change_names[c->ch]);
		json__kv_str(j, "check", c->check);
		json__kv_str(j, "old_severity", c->old_sev);
		json__kv_str(j, "new_severity", c->new_sev);
		json__kv_str(j, "summary", c->summary);
		json__end_object(j);
	}
	json__end_array(j);
	json__key(j, "metrics");
	json__begin_array(j);
	for (size_t i = 0; i < d->nm; i++) {
		const struct metric_change *c = &d->m[i];

		json__begin_object(j);
		json__kv_str(j, "check", c->check);
		json__kv_str(j, "name", c->name);
		if (c->instance)
			json__kv_str(j, "instance", c->instance);
		if (c->unit)
			json__kv_str(j, "unit", c->unit);
		json__key(j, "old");
		json__number(j, c->old_v);
		json__key(j, "new");
		json__number(j, c->new_v);
		json__key(j, "delta");
		json__number(j, c->new_v - c->old_v);
		for (int k = 0; k < 2; k++) {
			int has = k ? c->new_has_range : c->old_has_range;

			json__key(j, k ? "new_range" : "old_range");
			if (!has) {
				json__null(j);
				continue;
			}
			json__begin_array(j);
			json__number(j, k ? c->new_lo : c->old_lo);
			json__number(j, k ? c->new_hi : c->old_hi);
			json__end_array(j);
		}
		json__kv_str(j, "verdict", c->verdict);
		json__end_object(j);
	}
	json__end_array(j);
	json__end_object(j);
	strbuf__puts(&j->out, "\n");
}

int diff__run(const char *old_dir, const char *new_dir, const char *old_name,
	      const char *new_name, enum diff_format fmt, FILE *out,
	      enum status *worst, char *worst_what, size_t what_len, size_t *changes, char *err,
	      size_t errlen)
{
	struct side o, n;
	struct diff d = { 0 };
	int rc;

	*worst = ST_OK;
	memset(&n, 0, sizeof(n));
	rc = side__load(&o, old_dir, old_name, err, errlen);
	if (!rc)
		rc = side__load(&n, new_dir, new_name, err, errlen);
	if (!rc)
		rc = diff__compute(&o, &n, &d);
	if (rc) {
		if (rc == -ENOMEM)
			snprintf(err, errlen, "out of memory");
		goto cleanup;
	}
	*worst = d.worst == 2 ? ST_CRIT : d.worst == 1 ? ST_WARN : ST_OK;
	if (worst_what && what_len && d.worst) {
		const struct finding_change *c = &d.f[d.worst_at];

		snprintf(worst_what, what_len, "%s finding %s (%s): %.600s", change_names[c->ch],
			 or_dash(c->check), or_dash(c->new_sev), or_dash(c->summary));
	}
	if (changes)
		*changes = d.nf - (size_t)counts(&d, CH_PERSISTING) + d.beyond;
	if (fmt == DIFF_TEXT) {
		print_text(out, &o, &n, &d);
	} else if (fmt == DIFF_JSON) {
		struct json j = { .pretty = 1 };

		build_json(&j, &o, &n, &d);
		fwrite(j.out.buf, 1, j.out.len, out);
		strbuf__free(&j.out);
	} else {
		struct strbuf sb = { 0 };
		struct doc doc;

		doc__init(&doc, "sonde diff");
		if (!build_doc(&doc, &o, &n, &d) &&
		    !(fmt == DIFF_MD ? doc__markdown(&doc, &sb) :
				       doc__html(&doc, &sb)))
			fwrite(sb.buf, 1, sb.len, out);
		doc__free(&doc);
		strbuf__free(&sb);
	}
cleanup:
	free(d.f);
	free(d.m);
	strv__free(&d.host_checks);
	strv__free(&d.host_lines);
	side__free(&o);
	side__free(&n);
	return rc;
}
