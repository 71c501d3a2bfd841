// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The run as Prometheus metrics (docs/metrics.md), two ways to the same
 * names: from the report model (sonde run --metrics) and from a bundle's
 * findings.json (sonde show --metrics). Each walks its source in the order
 * findings.json is written (the run, the findings and their culprits, the USE
 * matrix and its objects, every check and its metrics) and hands prom.c the
 * same strings and numbers: findings.json writes every number so that it
 * reads back as the same double, so a run and its bundle give the same file.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "report/model.h"
#include "report/prom.h"
#include "util/clock.h"
#include "util/json_read.h"

/* ---- from the model ---- */

static void model_run(struct prom *p, const struct run_report *rr)
{
	const struct analysis *an = rr->an;
	struct prom_run r = {
		.version = SONDE_VERSION,
		.captured_by = an->version[0] ? an->version : NULL,
		.hostname = an->hostname,
		.kernel = an->kernel,
		/* findings.json's "end" has whole seconds */
		.end_s = (double)(an->end_wall_ns / 1000000000),
		.window_s = an->elapsed_s,
		.interval_s = an->interval_s,
		.samples = an->samples,
		.partial = an->partial,
		.cpus = an->cpus,
		.mem_bytes = (double)an->mem_total,
		.cpu_s = rr->cost.user_s + rr->cost.sys_s,
		.window_cpu_s = rr->cost.window_cpu_s,
		.peak_rss_bytes = (double)((int64_t)rr->cost.peak_rss_kb * 1024),
	};

	prom__run(p, &r);
}

static void model_matrix(struct prom *p, const struct use_matrix *u)
{
	for (size_t ri = 0; u->m && ri < u->m->resources.n; ri++)
		for (size_t mi = 0; mi < u->m->metrics.n; mi++) {
			const struct matrix_cell *c = &u->rows[ri].cells[mi];

			prom__use_cell(p, u->rows[ri].resource, u->m->metrics.v[mi],
				       c->na ? "n/a" : status__name(c->st));
		}
	for (size_t ri = 0; u->m && ri < u->m->resources.n; ri++) {
		const struct matrix_row *row = &u->rows[ri];

		for (size_t k = 0; k < row->ninst; k++)
			for (size_t mi = 0; mi < u->m->metrics.n && mi < MATRIX_COLS; mi++) {
				const struct inst_cell *c = &row->inst[k].cell[mi];

				if (!row->cells[mi].na && c->m)
					prom__use_object(p, row->resource, row->inst[k].instance,
							 u->m->metrics.v[mi], status__name(c->m->st));
			}
	}
}

/* A new exposition with opts applied, or NULL. */
static struct prom *prom_with(const struct metrics_opts *opts)
{
	struct prom *p = prom__new(opts && opts->host ? PROM_HOST : 0);

	if (p && opts && opts->redact)
		prom__redact_with(p, opts->redact, opts->redact_arg);
	return p;
}

int report__metrics(const struct report_model *m, const struct metrics_opts *opts,
		    struct strbuf *out)
{
	const struct run_report *rr = m->rr;
	struct prom *p = prom_with(opts);
	int rc;

	if (!p)
		return -ENOMEM;
	model_run(p, rr);
	for (size_t k = 0; k < rr->nrank; k++) {
		const struct check_result *r = m->findings[k].r;

		prom__finding(p, r->def->id, r->def->methodology, r->def->resource, r->def->metric,
			      status__name(r->st), r->nculprits ? r->culprits[0].comm : NULL);
		for (size_t i = 0; i < r->nculprits; i++)
			prom__culprit(p, r->def->id, r->culprits[i].comm, r->culprits[i].share);
	}
	model_matrix(p, &m->use);
	for (size_t i = 0; i < rr->nres; i++) {
		const struct check_result *r = &rr->res[i];

		prom__check(p, r->def->id, status__name(r->st), r->nunknowns);
		for (size_t k = 0; k < r->nmetrics; k++) {
			const struct metric *mt = &r->metrics[k];
			struct prom_metric pm = {
				.check = r->def->id, .name = mt->name, .unit = mt->unit,
				.instance = mt->instance, .agg = mt->agg,
				.node_exporter = mt->node_exporter, .help = mt->help,
				.drilldown = !strcmp(r->def->methodology, "drilldown"),
				.value = mt->value,
			};

			prom__check_metric(p, &pm);
		}
	}
	rc = prom__write(p, out);
	prom__free(p);
	return rc;
}

/* ---- from findings.json (read as untrusted: any member may be missing or of another type) ---- */

static double num_or_nan(const struct jval *v, const char *key)
{
	double d;

	return jval__num(v, key, &d) ? NAN : d;
}

static const struct jval *array(const struct jval *v, const char *key)
{
	const struct jval *a = jval__get(v, key);

	return a && a->type == J_ARRAY ? a : NULL;
}

/* "2026-11-21T15:39:55Z" as Unix seconds, or NaN (util/clock.h: one parser for them all). */
static double iso_seconds(const char *s)
{
	int64_t t;

	return s && !clock__parse_iso8601(s, &t) ? (double)t : NAN;
}

static void json_run(struct prom *p, const struct jval *doc)
{
	const struct jval *host = jval__get(doc, "host"), *win = jval__get(doc, "window");
	const struct jval *cost = jval__get(doc, "cost"), *sonde = jval__get(doc, "sonde");
	const struct jval *partial = jval__get(win, "partial");
	struct prom_run r = {
		.version = jval__str(sonde, "version"),
		.captured_by = jval__str(sonde, "captured_by"),
		.hostname = jval__str(host, "hostname"),
		.kernel = jval__str(host, "kernel"),
		.end_s = iso_seconds(jval__str(win, "end")),
		.window_s = num_or_nan(win, "seconds"),
		.interval_s = num_or_nan(win, "interval_seconds"),
		.samples = num_or_nan(win, "samples"),
		.partial = partial && partial->type == J_BOOL && partial->boolean,
		.cpus = num_or_nan(host, "cpus"),
		.mem_bytes = num_or_nan(host, "mem_total_bytes"),
		.cpu_s = num_or_nan(cost, "cpu_seconds"),
		.window_cpu_s = num_or_nan(cost, "window_cpu_seconds"),
		.peak_rss_bytes = num_or_nan(cost, "peak_rss_bytes"),
	};

	prom__run(p, &r);
}

static void json_findings(struct prom *p, const struct jval *doc)
{
	const struct jval *fs = array(doc, "findings");

	for (size_t i = 0; fs && i < fs->len; i++) {
		const struct jval *f = &fs->items[i], *cs = array(f, "culprits");
		const char *check = jval__str(f, "check");

		if (!check)
			continue;
		prom__finding(p, check, jval__str(f, "methodology"), jval__str(f, "resource"),
			      jval__str(f, "metric"), jval__str(f, "severity"),
			      cs && cs->len ? jval__str(&cs->items[0], "comm") : NULL);
		for (size_t k = 0; cs && k < cs->len; k++)
			prom__culprit(p, check, jval__str(&cs->items[k], "comm"),
				      num_or_nan(&cs->items[k], "share"));
	}
}

static void json_matrix(struct prom *p, const struct jval *doc)
{
	const struct jval *u = jval__get(doc, "use_matrix"), *inst = array(doc, "use_matrix_instances");

	for (size_t ri = 0; u && u->type == J_OBJECT && ri < u->len; ri++) {
		const struct jval *row = &u->items[ri];

		for (size_t mi = 0; row->type == J_OBJECT && mi < row->len; mi++)
			prom__use_cell(p, u->keys[ri], row->keys[mi],
				       jval__str(&row->items[mi], "status"));
	}
	for (size_t k = 0; inst && k < inst->len; k++) {
		const struct jval *row = &inst->items[k];
		const char *res = jval__str(row, "resource"), *obj = jval__str(row, "instance");

		for (size_t mi = 0; res && obj && row->type == J_OBJECT && mi < row->len; mi++) {
			const char *st = jval__str(&row->items[mi], "status");

			/* the cells are the objects among the members; n/a cells have no check */
			if (row->items[mi].type == J_OBJECT && jval__str(&row->items[mi], "check"))
				prom__use_object(p, res, obj, row->keys[mi], st);
		}
	}
}

static void json_checks(struct prom *p, const struct jval *doc)
{
	const struct jval *cs = array(doc, "checks");

	for (size_t i = 0; cs && i < cs->len; i++) {
		const struct jval *c = &cs->items[i], *ms = array(c, "metrics");
		const struct jval *unk = array(c, "unknowns");
		const char *id = jval__str(c, "id"), *meth = jval__str(c, "methodology");

		if (!id)
			continue;
		prom__check(p, id, jval__str(c, "status"), unk ? unk->len : 0);
		for (size_t k = 0; ms && k < ms->len; k++) {
			const struct jval *m = &ms->items[k];
			const char *agg = jval__str(m, "aggregation");
			const char *node = jval__str(m, "node_exporter");
			/* untrusted: only what a check could have declared */
			struct prom_metric pm = {
				.check = id, .name = jval__str(m, "name"), .unit = jval__str(m, "unit"),
				.instance = jval__str(m, "instance"),
				.agg = metric__agg_ok(agg) ? agg : NULL,
				.node_exporter = metric__family_ok(node) ? node : NULL,
				.help = jval__str(m, "help"),
				.drilldown = meth && !strcmp(meth, "drilldown"),
				.value = num_or_nan(m, "value"),
			};

			if (pm.name)
				prom__check_metric(p, &pm);
		}
	}
}

int report__metrics_from_findings(const struct jval *doc, const struct metrics_opts *opts,
				  struct strbuf *out, char *err, size_t errlen)
{
	const char *schema = jval__str(doc, "schema");
	struct prom *p;
	int rc;

	if (!schema || strcmp(schema, FINDINGS_SCHEMA)) {
		snprintf(err, errlen, "findings.json: schema is not %s", FINDINGS_SCHEMA);
		return -EINVAL;
	}
	p = prom_with(opts);
	if (!p) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	json_run(p, doc);
	json_findings(p, doc);
	json_matrix(p, doc);
	json_checks(p, doc);
	rc = prom__write(p, out);
	prom__free(p);
	if (rc)
		snprintf(err, errlen, "out of memory");
	return rc;
}
