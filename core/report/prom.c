// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Prometheus exposition (prom.h): the families sonde publishes, their names
 * and labels, and the text format. Samples are kept per family in the order
 * they came, a family's lines together under its HELP and TYPE.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lua/result.h"
#include "report/prom.h"
#include "util/json.h" /* utf8__seq_len */

/* Bounds: a check may report 256 metrics; a family keeps the first of them. */
#define PROM_MAX_FAMILIES 2048
#define PROM_MAX_SAMPLES 256     /* per fixed family (findings, checks, matrix cells) */
#define PROM_MAX_CHECK_SAMPLES 64 /* per family of a check's metric (its objects) */
#define PROM_LABEL_MAX 128       /* bytes of a label value */
#define PROM_NAME_MAX 200

struct prom_sample {
	char *labels; /* k="v",... or "" */
	double value;
};

struct prom_family {
	char *name, *help;
	struct prom_sample *s;
	size_t n, cap, max;
};

struct prom {
	struct prom_family *f;
	size_t n, cap;
	int oom;
	/* counts, kept up to date in the summary samples prom__run made */
	size_t nfindings, nwarn, ncrit, nunknowns;
	size_t left_object, left_cap, left_value, left_host;
	unsigned int flags;
	char *(*redact)(void *arg, const char *value);
	void *redact_arg;
};

struct prom *prom__new(unsigned int flags)
{
	struct prom *p = calloc(1, sizeof(struct prom));

	if (p)
		p->flags = flags;
	return p;
}

void prom__free(struct prom *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++) {
		for (size_t k = 0; k < p->f[i].n; k++)
			free(p->f[i].s[k].labels);
		free(p->f[i].s);
		free(p->f[i].name);
		free(p->f[i].help);
	}
	free(p->f);
	free(p);
}

void prom__redact_with(struct prom *p, char *(*fn)(void *arg, const char *value), void *arg)
{
	p->redact = fn;
	p->redact_arg = arg;
}

/*
 * A label value that came from the host, through the redactor when there is
 * one; *owned is the copy to free. NULL for NULL, or when out of memory.
 */
static const char *host_value(struct prom *p, const char *v, char **owned)
{
	*owned = NULL;
	if (!v || !p->redact)
		return v;
	*owned = p->redact(p->redact_arg, v);
	p->oom |= !*owned;
	return *owned;
}

static struct prom_family *family(struct prom *p, const char *name, const char *help, size_t max)
{
	struct prom_family *f;

	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->f[i].name, name))
			return &p->f[i];
	if (p->n >= PROM_MAX_FAMILIES)
		return NULL;
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;
		void *nf = realloc(p->f, cap * sizeof(*p->f));

		if (!nf) {
			p->oom = 1;
			return NULL;
		}
		p->f = nf;
		p->cap = cap;
	}
	f = &p->f[p->n];
	memset(f, 0, sizeof(*f));
	f->name = strdup(name);
	f->help = strdup(help);
	f->max = max;
	if (!f->name || !f->help) {
		free(f->name);
		free(f->help);
		p->oom = 1;
		return NULL;
	}
	p->n++;
	return f;
}

/*
 * A sample of f with labels (taken over). add: a sample with the same labels
 * gets value added (a culprit's comm seen twice); else the first one stays.
 */
static void sample(struct prom *p, struct prom_family *f, char *labels, double value, int add)
{
	if (!f || !labels) {
		p->oom |= !labels;
		free(labels);
		return;
	}
	for (size_t k = 0; k < f->n; k++)
		if (!strcmp(f->s[k].labels, labels)) {
			if (add)
				f->s[k].value += value;
			free(labels);
			return;
		}
	if (f->n >= f->max) {
		p->left_cap++;
		free(labels);
		return;
	}
	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 8;
		void *ns = realloc(f->s, cap * sizeof(*f->s));

		if (!ns) {
			p->oom = 1;
			free(labels);
			return;
		}
		f->s = ns;
		f->cap = cap;
	}
	f->s[f->n].labels = labels;
	f->s[f->n].value = value;
	f->n++;
}

/*
 * A label value: valid UTF-8, an invalid byte as U+FFFD (as findings.json
 * writes it, so a bundle gives the same label), a control character as '?',
 * at most PROM_LABEL_MAX bytes cut at a character boundary, with the
 * format's escapes for backslash and double quote.
 */
static void label_value(struct strbuf *sb, const char *s)
{
	const unsigned char *u = (const unsigned char *)(s ? s : "");
	size_t left = strlen((const char *)u), used = 0;

	while (left && used < PROM_LABEL_MAX) {
		size_t n = utf8__seq_len(u, left);

		if (used + (n ? n : 3) > PROM_LABEL_MAX)
			break;
		if (!n)
			strbuf__append(sb, "\xef\xbf\xbd", 3);
		else if (*u < 0x20 || *u == 0x7f)
			strbuf__puts(sb, "?");
		else if (*u == '\\' || *u == '"')
			strbuf__printf(sb, "\\%c", *u);
		else
			strbuf__append(sb, (const char *)u, n);
		used += n ? n : 3;
		n = n ? n : 1;
		u += n;
		left -= n;
	}
}

/* k1, v1, k2, v2, ..., NULL: k="v" pairs, malloc'ed ("" for none); NULL when out of memory. */
static char *labels(const char *k, ...)
{
	struct strbuf sb = { 0 };
	va_list ap;

	strbuf__append(&sb, "", 0);
	va_start(ap, k);
	for (int first = 1; k; k = va_arg(ap, const char *), first = 0) {
		const char *v = va_arg(ap, const char *);

		strbuf__printf(&sb, "%s%s=\"", first ? "" : ",", k);
		label_value(&sb, v);
		strbuf__puts(&sb, "\"");
	}
	va_end(ap);
	if (sb.oom) {
		strbuf__free(&sb);
		return NULL;
	}
	return sb.buf;
}

static void gauge(struct prom *p, const char *name, const char *help, double v)
{
	if (isfinite(v))
		sample(p, family(p, name, help, 1), labels(NULL), v, 0);
}

void prom__run(struct prom *p, const struct prom_run *r)
{
	struct prom_family *f;
	char *host, *kernel;

	sample(p, family(p, "sonde_run_info", "sonde's version, the version that took the "
			 "captures, and the host (always 1)", 1),
	       labels("version", r->version, "captured_by", r->captured_by, "hostname",
		      host_value(p, r->hostname, &host), "kernel",
		      host_value(p, r->kernel, &kernel), NULL), 1, 0);
	free(host);
	free(kernel);
	gauge(p, "sonde_run_timestamp_seconds",
	      "when the run's observation window ended (Unix time)", r->end_s);
	gauge(p, "sonde_run_window_seconds", "length of the observation window", r->window_s);
	gauge(p, "sonde_run_interval_seconds", "sampling interval inside the window",
	      r->interval_s);
	gauge(p, "sonde_run_samples", "sampling rounds in the window", r->samples);
	gauge(p, "sonde_run_partial", "1 when the window ended early (interrupted, deadline, "
	      "hung read)", r->partial ? 1 : 0);
	gauge(p, "sonde_run_cpu_seconds", "CPU time sonde used for the whole run, its checks' "
	      "processes included (the run's total)", r->cpu_s);
	gauge(p, "sonde_run_window_cpu_seconds", "CPU time sonde used while its window ran "
	      "(sampling, tracing's readers, the guard): its overhead on the host it observed, "
	      "the window's total", r->window_cpu_s);
	gauge(p, "sonde_run_peak_rss_bytes", "sonde's peak resident memory during the run",
	      r->peak_rss_bytes);
	/* node_exporter has them (node_memory_MemTotal_bytes, node_cpu_seconds_total's cpus) */
	if (p->flags & PROM_HOST) {
		gauge(p, "sonde_host_cpus", "CPUs of the host, as the window ended (node_exporter: "
		      "count of node_cpu_seconds_total{mode=\"idle\"})", r->cpus);
		gauge(p, "sonde_host_memory_bytes", "memory of the host (MemTotal), as the window "
		      "ended (node_exporter: node_memory_MemTotal_bytes)", r->mem_bytes);
	} else {
		p->left_host += isfinite(r->cpus) + isfinite(r->mem_bytes);
	}
	/* Counted as the findings and checks come (summary()). */
	f = family(p, "sonde_findings", "findings of the run by severity", 2);
	sample(p, f, labels("severity", "warn", NULL), 0, 0);
	sample(p, f, labels("severity", "crit", NULL), 0, 0);
	gauge(p, "sonde_worst_severity", "the worst finding: 0 none, 1 warn, 2 crit", 0);
	gauge(p, "sonde_known_unknowns", "metrics the checks could not see on this host, with "
	      "the reason in the report", 0);
}

/* The summary samples, from the counts so far (the families may have moved: look them up). */
static void summary(struct prom *p)
{
	for (size_t i = 0; i < p->n; i++) {
		struct prom_family *f = &p->f[i];

		if (!strcmp(f->name, "sonde_findings") && f->n == 2) {
			f->s[0].value = (double)p->nwarn;
			f->s[1].value = (double)p->ncrit;
		} else if (!strcmp(f->name, "sonde_worst_severity") && f->n == 1) {
			f->s[0].value = p->ncrit ? 2 : p->nwarn ? 1 : 0;
		} else if (!strcmp(f->name, "sonde_known_unknowns") && f->n == 1) {
			f->s[0].value = (double)p->nunknowns;
		}
	}
}

void prom__finding(struct prom *p, const char *check, const char *methodology,
		   const char *resource, const char *metric, const char *severity_name,
		   const char *culprit)
{
	int sev = status__severity(severity_name);
	char *owned;

	p->nfindings++;
	p->nwarn += sev == 1;
	p->ncrit += sev == 2;
	summary(p);
	sample(p, family(p, "sonde_finding", "a finding of the run: its check, the USE cell, the "
			 "severity and the first culprit's process name (always 1)",
			 PROM_MAX_SAMPLES),
	       labels("check", check, "methodology", methodology, "resource", resource, "metric",
		      metric, "severity", severity_name, "culprit",
		      culprit ? host_value(p, culprit, &owned) : "", NULL),
	       1, 0);
	if (culprit)
		free(owned);
	sample(p, family(p, "sonde_finding_rank", "the finding's rank, 1 the most important "
			 "(docs/verdict.md)", PROM_MAX_SAMPLES),
	       labels("check", check, NULL), (double)p->nfindings, 0);
}

void prom__culprit(struct prom *p, const char *check, const char *comm, double share)
{
	char *owned;

	if (!isfinite(share)) {
		p->left_value++;
		return;
	}
	sample(p, family(p, "sonde_finding_culprit_share_ratio",
			 "share of the finding's load over the window caused by the processes "
			 "of this name (their shares summed)", PROM_MAX_SAMPLES),
	       labels("check", check, "comm", host_value(p, comm, &owned), NULL), share, 1);
	free(owned);
}

void prom__use_cell(struct prom *p, const char *resource, const char *metric, const char *status)
{
	int sev = status__severity(status);

	if (sev >= 0)
		sample(p, family(p, "sonde_use_severity", "the USE matrix: 0 ok, 1 warn, 2 crit "
				 "(cells the host could not show are sonde_use_unknown)",
				 PROM_MAX_SAMPLES),
		       labels("resource", resource, "metric", metric, NULL), sev, 0);
	else if (status && (!strcmp(status, "unknown") || !strcmp(status, "error")))
		sample(p, family(p, "sonde_use_unknown", "a USE cell this host could not show "
				 "(a known unknown, or its check failed; always 1)",
				 PROM_MAX_SAMPLES),
		       labels("resource", resource, "metric", metric, NULL), 1, 0);
}

void prom__use_object(struct prom *p, const char *resource, const char *object,
		      const char *metric, const char *status)
{
	int sev = status__severity(status);
	char *owned;

	if (sev < 0)
		return;
	object = host_value(p, object, &owned);
	if (!prom__object_ok(object)) {
		p->left_object += !!object;
		free(owned);
		return;
	}
	sample(p, family(p, "sonde_use_object_severity", "the USE matrix per object (disk, "
			 "interface, CPU, cgroup...): 0 ok, 1 warn, 2 crit", PROM_MAX_SAMPLES),
	       labels("resource", resource, "object", object, "metric", metric, NULL), sev, 0);
	free(owned);
}

void prom__check(struct prom *p, const char *check, const char *status, size_t nunknowns)
{
	int sev = status__severity(status);

	p->nunknowns += nunknowns;
	summary(p);
	if (sev >= 0)
		sample(p, family(p, "sonde_check_severity", "each check's status: 0 ok, 1 warn, "
				 "2 crit", PROM_MAX_SAMPLES),
		       labels("check", check, NULL), sev, 0);
	else if (status && !strcmp(status, "error"))
		sample(p, family(p, "sonde_check_failed", "a check that failed (its error is in "
				 "the report; always 1)", PROM_MAX_SAMPLES),
		       labels("check", check, NULL), 1, 0);
	if (nunknowns)
		sample(p, family(p, "sonde_check_unknown_metrics", "metrics a check could not see "
				 "on this host (known unknowns)", PROM_MAX_SAMPLES),
		       labels("check", check, NULL), (double)nunknowns, 0);
}

/* How the window made a metric's value, for its HELP (lua/result.h's aggregations). */
static void agg_text(char *buf, size_t len, const char *agg, int drilldown)
{
	static const struct {
		const char *agg, *before, *after; /* the window goes between */
	} texts[] = {
		{ "mean", "mean over ", "" },
		{ "min", "minimum over ", "" },
		{ "peak", "peak (largest sample or event) in ", "" },
		{ "last", "last value, at the end of ", "" },
		{ "total", "count over ", " (this window's, not a counter)" },
		{ "fit", "from the trend fitted over ", " and earlier audits" },
	};
	const char *w = drilldown ? "the drill-down window" : "the window";

	if (!agg) {
		snprintf(buf, len, "its check does not say how %s made it", w);
		return;
	}
	for (size_t i = 0; i < sizeof(texts) / sizeof(*texts); i++)
		if (!strcmp(agg, texts[i].agg)) {
			snprintf(buf, len, "%s%s%s", texts[i].before, w, texts[i].after);
			return;
		}
	/* a percentile: p50, p99, p999 (99.9) */
	if (strlen(agg) == 4)
		snprintf(buf, len, "%c%c.%cth percentile of the events of %s", agg[1], agg[2],
			 agg[3], w);
	else
		snprintf(buf, len, "%sth percentile of the events of %s", agg + 1, w);
}

void prom__check_metric(struct prom *p, const struct prom_metric *m)
{
	char fam[PROM_NAME_MAX + 1], help[900], how[80], *owned = NULL;
	const char *unit = m->unit, *instance = m->instance;
	double scale;

	if (!isfinite(m->value)) {
		p->left_value++;
		return;
	}
	/* node_exporter publishes it: only on request (PROM_HOST) */
	if (m->node_exporter && !(p->flags & PROM_HOST)) {
		p->left_host++;
		return;
	}
	if (instance && !prom__object_ok(instance = host_value(p, instance, &owned))) {
		p->left_object += !!instance;
		goto cleanup;
	}
	if (prom__check_family(m->check, m->name, unit, fam, sizeof(fam), &scale)) {
		p->left_value++;
		goto cleanup;
	}
	agg_text(how, sizeof(how), m->agg, m->drilldown);
	snprintf(help, sizeof(help), "check %.200s, metric %.200s%s%.40s%s: %s%s%.200s%s%.128s",
		 m->check, m->name, unit && *unit ? " (" : "", unit ? unit : "",
		 unit && *unit ? scale != 1 ? ", in base units)" : ")" : "", how,
		 m->help ? "; " : "", m->help ? m->help : "",
		 m->node_exporter ? "; node_exporter has it: " : "",
		 m->node_exporter ? m->node_exporter : "");
	sample(p, family(p, fam, help, PROM_MAX_CHECK_SAMPLES),
	       instance ? labels("object", instance, NULL) : labels(NULL), m->value * scale, 0);
cleanup:
	free(owned);
}

/* A value as Go's ParseFloat reads it: integers plainly, else the fewest digits that read back. */
static void prom_number(struct strbuf *out, double v)
{
	char buf[40];

	if (v > -9007199254740992.0 && v < 9007199254740992.0 && v == (double)(long long)v) {
		strbuf__printf(out, "%lld", (long long)v);
		return;
	}
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (prec == 17 || strtod(buf, NULL) == v)
			break;
	}
	/* a locale's decimal comma is not Prometheus's */
	for (char *c = buf; *c; c++)
		if (*c == ',')
			*c = '.';
	strbuf__puts(out, buf);
}

/* HELP text: backslash and newline escaped, nothing else. */
static void help_text(struct strbuf *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			strbuf__puts(out, "\\\\");
		else if (*s == '\n')
			strbuf__puts(out, "\\n");
		else if ((unsigned char)*s < 0x20 || *s == 0x7f)
			strbuf__puts(out, "?");
		else
			strbuf__append(out, s, 1);
	}
}

int prom__write(const struct prom *p, struct strbuf *out)
{
	if (p->oom)
		return -ENOMEM;
	if (p->left_object)
		strbuf__printf(out, "# sonde: %zu sample%s left out: their object is not a bounded "
			       "name (a process, a pid, words)\n", p->left_object,
			       p->left_object == 1 ? "" : "s");
	if (p->left_cap)
		strbuf__printf(out, "# sonde: %zu sample%s left out: more objects than a family "
			       "keeps (%d)\n", p->left_cap, p->left_cap == 1 ? "" : "s",
			       PROM_MAX_CHECK_SAMPLES);
	if (p->left_value)
		strbuf__printf(out, "# sonde: %zu sample%s left out: no finite value or no "
			       "usable name\n", p->left_value, p->left_value == 1 ? "" : "s");
	if (p->left_host)
		strbuf__printf(out, "# sonde: %zu sample%s left out: node_exporter publishes "
			       "%s (--metrics-host adds %s)\n", p->left_host,
			       p->left_host == 1 ? "" : "s", p->left_host == 1 ? "it" : "them",
			       p->left_host == 1 ? "it" : "them");
	for (size_t i = 0; i < p->n; i++) {
		const struct prom_family *f = &p->f[i];

		if (!f->n)
			continue;
		strbuf__printf(out, "# HELP %s ", f->name);
		help_text(out, f->help);
		strbuf__printf(out, "\n# TYPE %s gauge\n", f->name);
		for (size_t k = 0; k < f->n; k++) {
			strbuf__puts(out, f->name);
			if (f->s[k].labels[0])
				strbuf__printf(out, "{%s}", f->s[k].labels);
			strbuf__puts(out, " ");
			prom_number(out, f->s[k].value);
			strbuf__puts(out, "\n");
		}
	}
	return out->oom ? -ENOMEM : 0;
}

/* ---- names ---- */

enum unit_kind { U_NONE, U_PERCENT, U_TIME, U_BYTES, U_BYTE_RATE };

struct unit_rule {
	const char *unit;
	enum unit_kind kind;
	double scale;
	const char *token; /* how the unit is spelled inside a name */
};

static const struct unit_rule unit_rules[] = {
	{ "%", U_PERCENT, 0.01, "pct" },      { "ns", U_TIME, 1e-9, "ns" },
	{ "us", U_TIME, 1e-6, "us" },	      { "ms", U_TIME, 1e-3, "ms" },
	{ "s", U_TIME, 1, "s" },	      { "seconds", U_TIME, 1, "seconds" },
	{ "bytes", U_BYTES, 1, "bytes" },     { "B", U_BYTES, 1, "b" },
	{ "KiB", U_BYTES, 1024, "kib" },      { "MiB", U_BYTES, 1048576, "mib" },
	{ "GiB", U_BYTES, 1073741824, "gib" }, { "kB", U_BYTES, 1e3, "kb" },
	{ "MB", U_BYTES, 1e6, "mb" },	      { "GB", U_BYTES, 1e9, "gb" },
	{ "bytes/s", U_BYTE_RATE, 1, "bytes" }, { "B/s", U_BYTE_RATE, 1, "b" },
	{ "KiB/s", U_BYTE_RATE, 1024, "kib" }, { "MiB/s", U_BYTE_RATE, 1048576, "mib" },
	{ "kB/s", U_BYTE_RATE, 1e3, "kb" },    { "MB/s", U_BYTE_RATE, 1e6, "mb" },
	{ "GB/s", U_BYTE_RATE, 1e9, "gb" },
};

#define MAX_TOKENS 32

struct tokens {
	const char *t[MAX_TOKENS];
	size_t n;
};

static int tok_is(const char *t, const char *a)
{
	return t && !strcmp(t, a);
}

/* Remove every token equal to one of words (NULL-terminated). */
static void tok_drop(struct tokens *tk, const char *const *words)
{
	size_t k = 0;

	for (size_t i = 0; i < tk->n; i++) {
		int drop = 0;

		for (const char *const *w = words; *w && !drop; w++)
			drop = tok_is(tk->t[i], *w);
		if (!drop)
			tk->t[k++] = tk->t[i];
	}
	tk->n = k;
}

static void tok_push(struct tokens *tk, const char *t)
{
	if (tk->n < MAX_TOKENS)
		tk->t[tk->n++] = t;
}

/* The name's words: lowercase, [a-z0-9] runs (buf holds them). */
static void tokenize(const char *name, char *buf, size_t len, struct tokens *tk)
{
	size_t k = 0;
	int in = 0;

	tk->n = 0;
	for (const char *s = name; *s && k + 2 < len; s++) {
		char c = *s >= 'A' && *s <= 'Z' ? (char)(*s - 'A' + 'a') : *s;

		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
			if (!in && tk->n < MAX_TOKENS)
				tk->t[tk->n++] = buf + k;
			in = 1;
			buf[k++] = c;
		} else if (in) {
			buf[k++] = '\0';
			in = 0;
		}
	}
	buf[k] = '\0';
}

/* What the unit of a metric asks of its name: the words that spell the unit go, the suffix comes. */
static void apply_unit(struct tokens *tk, const struct unit_rule *u)
{
	static const char *const pct[] = { "pct", "percent", "percentage", "ratio", NULL };
	static const char *const bytes[] = { "bytes", "byte", "b", NULL };
	const char *own[] = { u->token, "seconds", NULL };

	switch (u->kind) {
	case U_PERCENT:
		tok_drop(tk, pct);
		tok_push(tk, "ratio");
		break;
	case U_TIME:
		tok_drop(tk, own);
		tok_push(tk, "seconds");
		break;
	case U_BYTES:
		tok_drop(tk, bytes);
		own[1] = NULL;
		tok_drop(tk, own);
		tok_push(tk, "bytes");
		break;
	case U_BYTE_RATE:
		/* rx_bytes_per_s, memory_read_mb_s: the rate's words at the end, the unit's anywhere */
		while (tk->n && (tok_is(tk->t[tk->n - 1], "s") || tok_is(tk->t[tk->n - 1], "sec") ||
				 tok_is(tk->t[tk->n - 1], "second") || tok_is(tk->t[tk->n - 1], "per")))
			tk->n--;
		tok_drop(tk, bytes);
		own[1] = NULL;
		tok_drop(tk, own);
		tok_push(tk, "bytes");
		tok_push(tk, "per");
		tok_push(tk, "second");
		break;
	case U_NONE:
		break;
	}
}

int prom__check_family(const char *check, const char *name, const char *unit, char *out,
		       size_t len, double *scale)
{
	char cbuf[PROM_NAME_MAX], nbuf[PROM_NAME_MAX];
	struct tokens ck, tk;
	const struct unit_rule *u = NULL;
	size_t k;

	*scale = 1;
	for (size_t i = 0; unit && i < sizeof(unit_rules) / sizeof(*unit_rules); i++)
		if (!strcmp(unit, unit_rules[i].unit))
			u = &unit_rules[i];
	tokenize(check ? check : "", cbuf, sizeof(cbuf), &ck);
	tokenize(name ? name : "", nbuf, sizeof(nbuf), &tk);
	if (!tk.n)
		return -EINVAL;
	if (u) {
		*scale = u->scale;
		apply_unit(&tk, u);
	}
	/* Abbreviated time units are not Prometheus's: per_s is per_second, a lone s is seconds. */
	for (size_t i = 0; i < tk.n; i++)
		if (tok_is(tk.t[i], "s") || tok_is(tk.t[i], "sec"))
			tk.t[i] = i && tok_is(tk.t[i - 1], "per") ? "second" : "seconds";
	/* _total, _count, _sum and _bucket belong to counters, histograms and summaries. */
	if (tok_is(tk.t[tk.n - 1], "total") || tok_is(tk.t[tk.n - 1], "count") ||
	    tok_is(tk.t[tk.n - 1], "sum") || tok_is(tk.t[tk.n - 1], "bucket"))
		tok_push(&tk, "value");
	k = (size_t)snprintf(out, len, "sonde_check");
	for (size_t i = 0; i < ck.n && k < len; i++)
		k += (size_t)snprintf(out + k, len - k, "_%s", ck.t[i]);
	for (size_t i = 0; i < tk.n && k < len; i++)
		k += (size_t)snprintf(out + k, len - k, "_%s", tk.t[i]);
	return k < len ? 0 : -EINVAL;
}

int prom__object_ok(const char *s)
{
	size_t n = 0;
	int digits_only = 1;

	if (!s)
		return 0;
	for (; s[n]; n++) {
		char c = s[n];

		if (n >= PROM_LABEL_MAX)
			return 0;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      strchr("._:/@+=-", c)))
			return 0;
		if (c < '0' || c > '9')
			digits_only = 0;
	}
	return n && !digits_only;
}
