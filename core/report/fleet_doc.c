// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The fleet summary's renderings (fleet.h): a document (doc.h) that the
 * Markdown and HTML renderers draw, and the terminal summary (fleet.json is
 * fleet_json.c). Every string from a bundle (host names, verdicts,
 * summaries, units, paths) is a TEXT span, never markup, and goes through
 * util/tty on the terminal.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "util/units.h"
#include "report/fleet_int.h"
#include "report/model.h"
#include "util/tty.h"

/* Rows shown in the document; fleet.json has them all. */
/* hosts and conflicting claims: a document of 10,000 rows is for no reader, and costs memory */
#define DOC_HOSTS 1000
#define DOC_OUTLIERS 100
#define DOC_UNIQUE 200
#define DOC_HOST_NAMES 6
#define DOC_HEAT_HOSTS 20

const char *fleet__sev_name(int w)
{
	static const char *const names[] = { "ok", "warn", "crit" };

	return w >= 0 && w <= 2 ? names[w] : "unknown";
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
	else
		units__value(buf, len, us, "us");
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
	size_t rows = 0;

	if (f->nconflicts) {
		inl__words(doc__heading(d, 2, "conflicts"),
			   "Host names claimed by several machines");
		inl__words(doc__para(d), "Bundles of different host ids (machines) give the same "
			   "host name: each is a row of its own, and one of them may not be what "
			   "it says. A host id is none when the bundle records none.");
		t = doc__table_head(d, "lllll", head);
		for (size_t c = 0; c < f->nconflicts && rows < DOC_HOSTS; c++)
			for (size_t k = 0; k < f->conflicts[c].n && rows++ < DOC_HOSTS; k++) {
				size_t i = f->by_name[f->conflicts[c].first + k];
				const struct fleet_host *h = &f->hosts[i];

				inl__text(doc__cell(t, CELL_PLAIN), h->host);
				if (h->host_id)
					inl__code(doc__cell(t, CELL_PLAIN), h->host_id);
				else
					inl__words(doc__cell(t, CELL_PLAIN), "none");
				inl__words(doc__cell(t, worst_cell(h->worst)), "%s",
					   fleet__sev_name(h->worst));
				inl__text(doc__cell(t, CELL_PLAIN), h->start);
				inl__text_cut(doc__cell(t, CELL_PLAIN), h->bundle, 160);
			}
		if (rows > DOC_HOSTS)
			inl__words(doc__para(d), "And more in fleet.json (%zu names).",
				   f->nconflicts);
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

	size_t by[4] = { 0 };

	inl__words(doc__heading(d, 2, "hosts"), "Hosts");
	t = doc__table_head(d, "lllllll", head);
	for (size_t k = DOC_HOSTS; k < f->nhosts; k++) {
		int w = f->hosts[f->order[k]].worst;

		by[w >= 0 && w <= 2 ? w : 3]++;
	}
	for (size_t k = 0; k < f->nhosts && k < DOC_HOSTS; k++) {
		const struct fleet_host *h = &f->hosts[f->order[k]];
		struct inlines *w;

		host_name(doc__cell(t, h->conflict ? CELL_WARN : CELL_PLAIN), h);
		inl__words(doc__cell(t, worst_cell(h->worst)), "%s", fleet__sev_name(h->worst));
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
	if (f->nhosts > DOC_HOSTS)
		inl__words(doc__para(d), "And %zu more hosts (%zu crit, %zu warn, %zu ok, %zu not "
			   "said), listed in fleet.json.", f->nhosts - DOC_HOSTS, by[2], by[1],
			   by[0], by[3]);
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

/* Text of h's detail into in: the summary of its finding i, or (i SIZE_MAX) why it lacks kind. */
static int detail_text(const struct fleet *f, const struct fleet_host *h, size_t i, int kind,
		       struct inlines *in)
{
	struct fleet_detail dt;
	int rc = fleet__detail(f, h, &dt);

	if (rc)
		return rc;
	inl__text(in, i == SIZE_MAX ? dt.why[kind] : i < dt.nsummary ? dt.summary[i] : NULL);
	fleet_detail__free(&dt);
	return 0;
}

static int doc_unique(const struct fleet *f, struct doc *d)
{
	static const char *const head[] = { "host", "severity", "check", "summary" };
	struct block *t;
	int rc = 0;

	inl__words(doc__heading(d, 2, "unique-findings"), "Findings on one host only");
	t = table_or(d, f->nunique, "No finding is unique to one host.", "llll", head);
	if (!t)
		return 0;
	for (size_t i = 0; !rc && i < f->nunique && i < DOC_UNIQUE; i++) {
		const struct fleet_unique *u = &f->unique[i];

		inl__text(doc__cell(t, CELL_PLAIN), f->hosts[u->host].host);
		inl__words(doc__cell(t, worst_cell(u->sev)), "%s", fleet__sev_name(u->sev));
		inl__code(doc__cell(t, CELL_PLAIN), f->checks.v[u->check]);
		rc = detail_text(f, &f->hosts[u->host], u->finding, 0, doc__cell(t, CELL_PLAIN));
	}
	if (f->nunique > DOC_UNIQUE)
		inl__words(doc__para(d), "And %zu more in fleet.json.", f->nunique - DOC_UNIQUE);
	return rc;
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
		units__value(buf, sizeof(buf), o->value, unit);
		inl__text(doc__cell(t, CELL_PLAIN), buf);
		units__value(buf, sizeof(buf), o->median, unit);
		inl__text(doc__cell(t, CELL_PLAIN), buf);
		inl__words(doc__cell(t, CELL_PLAIN), "%+.1f", o->z);
	}
	if (f->noutliers > DOC_OUTLIERS || f->outliers_cut)
		inl__words(doc__para(d), "And %zu more (fleet.json has %zu).",
			   f->noutliers - (f->noutliers > DOC_OUTLIERS ? DOC_OUTLIERS : f->noutliers) +
				   f->outliers_cut, f->noutliers);
}

static int doc_heat(const struct fleet *f, struct doc *d, int kind)
{
	static const char *const anchors[] = { "runqlat-heatmap", "biolatency-heatmap" };
	static const char *const head[] = { "host", "p50", "p99", "count" };
	const struct fleet_heat *ht = &f->heat[kind];
	size_t without = f->nhosts - ht->nhosts, shown = 0;
	struct inlines *p;
	struct block *t;
	char a[32], b[32];
	int rc;

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
		return 0;
	inl__words(doc__para(d), "%zu host%s without this histogram:", without,
		   without == 1 ? "" : "s");
	for (size_t k = 0; k < f->nhosts && shown < DOC_HEAT_HOSTS; k++) {
		const struct fleet_host *h = &f->hosts[f->order[k]];

		if (h->hist[kind].have && h->hist[kind].total > 0)
			continue;
		p = doc__item(d);
		inl__text(p, h->host);
		inl__words(p, ": ");
		if (h->hist[kind].have)
			inl__words(p, "no event in the window");
		else if ((rc = detail_text(f, h, SIZE_MAX, kind, p)))
			return rc;
		shown++;
	}
	return 0;
}

int fleet__doc(const struct fleet *f, struct doc *d)
{
	int rc;

	if (!f->finished)
		return -EINVAL;
	doc_intro(f, d);
	doc_hosts(f, d);
	doc_distrust(f, d);
	doc_shared(f, d);
	rc = doc_unique(f, d);
	doc_outliers(f, d);
	inl__words(doc__heading(d, 2, "heatmaps"), "Latency heat maps");
	if (!rc)
		rc = doc_heat(f, d, FLEET_RUNQLAT);
	if (!rc)
		rc = doc_heat(f, d, FLEET_BIOLATENCY);
	if (rc)
		return rc;
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

		fprintf(out, "  %-7s ", fleet__sev_name(h->worst));
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
		units__value(v, sizeof(v), o->value, f->key_units[o->key]);
		units__value(m, sizeof(m), o->median, f->key_units[o->key]);
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
