// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sonde diff's renderings: the terminal summary, the document (--md,
 * --html: report/doc.h, rendered by the report layer) and the JSON (schema
 * sonde.diff/2, docs/findings-schema.md). Each section but the findings,
 * metrics and host has its own three in its file.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bundle/diff_int.h"
#include "util/tty.h"
#include "util/units.h"

#define PKG_LINES_SHOWN 10 /* package changes listed one by one (JSON lists them all) */

const char *const change_names[] = { "new", "worse", "resolved", "persisting", "better", "host" };

size_t diff__count(const struct diff *d, enum change ch)
{
	size_t n = 0;

	for (size_t i = 0; i < d->nf; i++)
		n += d->f[i].ch == ch;
	return n;
}

static const char *or_dash(const char *s)
{
	return s ? s : "-";
}

static int beyond(const struct metric_change *c)
{
	return c->verdict == DV_UP || c->verdict == DV_DOWN;
}

/* Whether finding change i is shown one by one (package changes past the first 10 are not). */
static int listed(const struct diff *d, size_t i, size_t *pkgs)
{
	const struct finding_change *c = &d->f[i];

	if (c->ch != CH_HOST || !c->check || strcmp(c->check, "host.packages"))
		return 1;
	return ++*pkgs <= PKG_LINES_SHOWN;
}

static size_t packages(const struct diff *d)
{
	size_t n = 0;

	for (size_t i = 0; i < d->host.checks.n; i++)
		n += !strcmp(d->host.checks.v[i], "host.packages");
	return n;
}

/* ---- the terminal ---- */

static void tty_severity(FILE *out, const char *s)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%s", s ? s : "-");
	tty__clean_str(buf);
	fprintf(out, "%-4s", buf);
}

static void side_label(FILE *out, const struct diff_side *sd)
{
	const struct jval *win = jval__get(sd->doc, "window");

	tty__puts(out, sd->name);
	fputs(" (", out);
	tty__puts(out, sd->hostname[0] ? sd->hostname : "-");
	fputs(", ", out);
	tty__puts(out, or_dash(jval__str(win, "start")));
	fputs(")", out);
}

static void text_head(FILE *out, const struct diff *d)
{
	fputs("sonde diff: ", out);
	if (d->nold > 1) {
		fprintf(out, "a baseline of %zu earlier audits, the newest ", d->nold);
		side_label(out, d->old[0]);
	} else {
		side_label(out, d->old[0]);
	}
	fputs("\n        ->  ", out);
	side_label(out, d->new_);
	fputc('\n', out);
	if (d->nold > 1)
		fputs("(the median of the audits; their spread, with each window's, as the "
		      "noise)\n",
		      out);
}

static void text_findings(FILE *out, const struct diff *d)
{
	size_t pk = 0;

	fprintf(out,
		"\nFindings: %zu new, %zu worse, %zu resolved, %zu persisting, %zu better, "
		"%zu host changes\n",
		diff__count(d, CH_NEW), diff__count(d, CH_WORSE), diff__count(d, CH_RESOLVED),
		diff__count(d, CH_PERSISTING), diff__count(d, CH_BETTER), diff__count(d, CH_HOST));
	for (size_t i = 0; i < d->nf; i++) {
		const struct finding_change *c = &d->f[i];

		if (!listed(d, i, &pk))
			continue;
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
	if (pk > PKG_LINES_SHOWN)
		fprintf(out, "  ... and %zu more package changes (--json lists them)\n",
			pk - PKG_LINES_SHOWN);
}

static void text_metrics(FILE *out, const struct diff *d)
{
	fprintf(out, "\nMetrics beyond the noise of their windows: %zu\n", d->beyond);
	for (size_t i = 0; i < d->nm; i++) {
		const struct metric_change *c = &d->m[i];
		char lo[48], hi[48], nl[48], nh[48];

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
		units__value(lo, sizeof(lo), c->o.lo, c->unit);
		units__value(hi, sizeof(hi), c->o.hi, c->unit);
		units__value(nl, sizeof(nl), c->n.lo, c->unit);
		units__value(nh, sizeof(nh), c->n.hi, c->unit);
		fputs(": ", out);
		tty__puts(out, c->old_s);
		fputs(" -> ", out);
		tty__puts(out, c->new_s);
		fprintf(out, " %s%s (%s ", dverdict_names[c->verdict], c->worse ? ", worse" : "",
			d->nold > 1 ? "baseline" : "old window");
		tty__puts(out, lo);
		fputs("..", out);
		tty__puts(out, hi);
		fputs(", new ", out);
		tty__puts(out, nl);
		fputs("..", out);
		tty__puts(out, nh);
		fputs(")\n", out);
	}
	fprintf(out, "Within noise: %zu; changed with no spread known: %zu\n", d->within,
		d->unknown_spread);
}

void diff_out__text(FILE *out, const struct diff *d)
{
	text_head(out, d);
	text_findings(out, d);
	text_metrics(out, d);
	if (d->findings_only)
		return;
	diff_procs__text(out, &d->procs);
	diff_lat__text(out, &d->lat);
	diff_code__text(out, &d->code);
	fprintf(out, "\nRegressions: %zu", d->regressions);
	if (d->regressions) {
		fputs(" (the first: ", out);
		tty__puts(out, d->regression_what);
		fputc(')', out);
	}
	fputc('\n', out);
}

/* ---- the document ---- */

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
	size_t pk = 0;

	inl__words(doc__heading(doc, 2, "findings"), "Findings");
	inl__words(doc__para(doc),
		   "%zu new, %zu worse, %zu resolved, %zu persisting, %zu better, %zu host changes",
		   diff__count(d, CH_NEW), diff__count(d, CH_WORSE), diff__count(d, CH_RESOLVED),
		   diff__count(d, CH_PERSISTING), diff__count(d, CH_BETTER),
		   diff__count(d, CH_HOST));
	if (!d->nf)
		return;
	t = doc__table_head(doc, "lllll", head);
	for (size_t i = 0; i < d->nf; i++) {
		const struct finding_change *c = &d->f[i];

		if (!listed(d, i, &pk))
			continue;
		inl__words(doc__cell(t, CELL_PLAIN), "%s", change_names[c->ch]);
		cell_text(t, c->old_sev, severity_cell(c->old_sev));
		cell_text(t, c->new_sev, severity_cell(c->new_sev));
		cell_text(t, c->check, CELL_PLAIN);
		cell_text(t, c->summary, CELL_PLAIN);
	}
	if (pk > PKG_LINES_SHOWN)
		inl__words(doc__para(doc), "... and %zu more package changes (--json lists them).",
			   pk - PKG_LINES_SHOWN);
}

static void range_cell(struct block *t, const struct dq *q, const char *unit)
{
	char a[48], b[48];
	struct inlines *in = doc__cell(t, CELL_PLAIN);

	if (!q->has)
		return;
	units__value(a, sizeof(a), q->lo, unit);
	units__value(b, sizeof(b), q->hi, unit);
	inl__text(in, a);
	inl__words(in, "..");
	inl__text(in, b);
}

static void doc_metrics(struct doc *doc, const struct diff *d)
{
	static const char *const head[] = { "check", "metric", "old", "new", "old noise",
					    "new window", "verdict" };
	struct block *t;

	inl__words(doc__heading(doc, 2, "metrics"), "Metrics");
	inl__words(doc__para(doc),
		   "%zu beyond the noise of their windows, %zu within noise, %zu changed with no "
		   "spread known. A metric changed when its new window's per-interval range does "
		   "not overlap the old one (%s).",
		   d->beyond, d->within, d->unknown_spread,
		   d->nold > 1 ? "the baseline's: the span of every earlier audit's value and "
				 "window" :
				 "the old window's");
	if (!d->nm)
		return;
	t = doc__table_head(doc, "llrrlll", head);
	for (size_t i = 0; i < d->nm; i++) {
		const struct metric_change *c = &d->m[i];
		struct inlines *in;

		if (c->verdict == DV_SAME)
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
		range_cell(t, &c->o, c->unit);
		range_cell(t, &c->n, c->unit);
		inl__words(doc__cell(t, c->worse ? CELL_WARN : CELL_PLAIN), "%s%s",
			   dverdict_names[c->verdict], c->worse ? ", worse" : "");
	}
}

static void doc_sides(struct doc *doc, const struct diff *d)
{
	static const char *const head[] = { "", "bundle", "host", "window start" };
	struct block *t = doc__table_head(doc, "llll", head);

	for (size_t k = 0; k <= d->nold; k++) {
		const struct diff_side *sd = k < d->nold ? d->old[k] : d->new_;

		inl__words(doc__cell(t, CELL_PLAIN), "%s",
			   k == d->nold ? "new" : d->nold > 1 ? "baseline" : "old");
		cell_text(t, sd->name, CELL_PLAIN);
		cell_text(t, sd->hostname[0] ? sd->hostname : NULL, CELL_PLAIN);
		cell_text(t, jval__str(jval__get(sd->doc, "window"), "start"), CELL_PLAIN);
	}
}

int diff_out__doc(struct doc *doc, const struct diff *d)
{
	struct inlines *in;

	inl__words(doc__heading(doc, 1, NULL), "sonde diff");
	if (d->nold > 1)
		inl__words(doc__para(doc),
			   "The new audit against a baseline of %zu earlier audits of the host: "
			   "each value their median, their spread (with each window's) the noise; "
			   "the host's configuration against the newest of them.",
			   d->nold);
	doc_sides(doc, d);
	in = doc__para(doc);
	inl__words(in, "Regressions: %zu", d->regressions);
	if (d->regressions) {
		inl__words(in, " (the first: ");
		inl__text(in, d->regression_what);
		inl__words(in, ")");
	}
	inl__words(in, ".");
	doc_findings(doc, d);
	doc_metrics(doc, d);
	if (!d->findings_only) {
		diff_procs__doc(doc, &d->procs);
		diff_lat__doc(doc, &d->lat);
		diff_code__doc(doc, &d->code);
	}
	return doc__finish(doc);
}

/* ---- JSON ---- */

static void json_side(struct json *j, const struct diff_side *sd)
{
	json__begin_object(j);
	json__kv_str(j, "bundle", sd->name);
	json__kv_str(j, "hostname", sd->hostname[0] ? sd->hostname : NULL);
	json__kv_str(j, "start", jval__str(jval__get(sd->doc, "window"), "start"));
	json__end_object(j);
}

static void json_findings(struct json *j, const struct diff *d)
{
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
}

static void json_metrics(struct json *j, const struct diff *d)
{
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
		json__kv_number(j, "old", c->o.v);
		json__kv_number(j, "new", c->n.v);
		json__kv_number(j, "delta", c->n.v - c->o.v);
		dq__json_interval(j, "old_range", &c->o);
		dq__json_interval(j, "new_range", &c->n);
		json__kv_str(j, "verdict", dverdict_names[c->verdict]);
		json__key(j, "regression");
		json__bool(j, c->worse);
		json__end_object(j);
	}
	json__end_array(j);
}

void diff_out__json(struct json *j, const struct diff *d)
{
	static const char *const sev[] = { "ok", "warn", "crit" };

	json__begin_object(j);
	json__kv_str(j, "schema", DIFF_SCHEMA);
	json__key(j, "old");
	json_side(j, d->old[0]);
	json__key(j, "new");
	json_side(j, d->new_);
	json__key(j, "baseline");
	if (d->nold > 1) {
		json__begin_array(j);
		for (size_t i = 0; i < d->nold; i++)
			json_side(j, d->old[i]);
		json__end_array(j);
	} else {
		json__null(j);
	}
	json__kv_str(j, "worst", sev[d->worst]);
	json__kv_int(j, "regressions", (int64_t)d->regressions);
	json__kv_str(j, "regression", d->regressions ? d->regression_what : NULL);
	json__kv_int(j, "package_changes", (int64_t)packages(d));
	json_findings(j, d);
	json_metrics(j, d);
	diff_procs__json(j, &d->procs);
	diff_lat__json(j, &d->lat);
	diff_code__json(j, &d->code);
	json__end_object(j);
	strbuf__puts(&j->out, "\n");
}
