// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The fleet summary (report/fleet.h) and the heat map (report/chart.h):
 * percentiles of log2 histograms, hosts replaced by their latest bundle,
 * shared and unique findings, outliers by the robust z-score (the MAD, the
 * mean absolute deviation when the MAD is 0, the minimum distance and host
 * count), histograms merged, crafted bundles refused or read as text, and a
 * heat map that only ever turns names into text.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/chart.h"
#include "report/fleet_int.h"
#include "util/log2hist.h"
#include "util/json_read.h"
#include "tap.h"

/* 2026-07-01T00:00:00Z: the fleet's clock */
#define NOW 1782864000
/* where the hosts' details go: a file (as sonde fleet has it), or memory */
static const char *SPOOL = "/tmp";

static struct jval *parse(const char *text)
{
	struct jval *v = NULL;
	char err[256];

	if (json_read(text, strlen(text), &json_read_default_limits, &v, err, sizeof(err)))
		printf("# bad test JSON: %s\n", err);
	return v;
}

/* A host's findings.json: its name, window start, worst, one metric, one finding (or none). */
static struct jval *findings(const char *host, const char *start, double busy, const char *finding)
{
	char buf[2048];

	snprintf(buf, sizeof(buf),
		 "{\"schema\":\"sonde.findings/1\",\"host\":{\"hostname\":\"%s\"},"
		 "\"window\":{\"start\":\"%s\",\"partial\":false},\"verdict\":\"v of %s\","
		 "\"worst\":\"%s\",\"findings\":[%s%s%s],\"unknowns\":[],"
		 "\"checks\":[{\"id\":\"use.cpu-utilization\",\"metrics\":["
		 "{\"name\":\"busy_pct\",\"value\":%.17g,\"unit\":\"%%\"},"
		 "{\"name\":\"zero\",\"value\":0},"
		 "{\"name\":\"per_disk\",\"value\":5,\"instance\":\"sda\"}]}]}",
		 host, start, host, finding ? "crit" : "ok", finding ? "{\"check\":\"" : "",
		 finding ? finding : "", finding ? "\",\"severity\":\"crit\",\"summary\":\"s\"}" : "",
		 busy);
	return parse(buf);
}

static struct jval *runqlat(const char *hist)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "{\"status\":\"ok\",\"data\":{\"hist\":%s}}", hist);
	return parse(buf);
}

static void test_percentiles(void)
{
	double b[FLEET_BUCKETS] = { 0 };
	char name[32];

	ok(isnan(log2hist__percentile(b, FLEET_BUCKETS, 50)), "an empty histogram has no percentile");
	b[3] = 100; /* [8, 16) us */
	ok(fabs(log2hist__percentile(b, FLEET_BUCKETS, 50) - 12) < 1e-9,
	   "p50 of one bucket: its middle, linearly");
	b[10] = 1; /* [1024, 2048) */
	ok(log2hist__percentile(b, FLEET_BUCKETS, 99.5) > 1024, "the tail's bucket sets p99.5");
	fleet__bucket_name(0, name, sizeof(name));
	is_str(name, "0-2 us", "bucket 0 also counts 0");
	fleet__bucket_name(9, name, sizeof(name));
	is_str(name, "512 us-1.02 ms", "bucket 9: each end in the unit it reaches");
	fleet__bucket_name(21, name, sizeof(name));
	is_str(name, "2.1-4.19 s", "bucket 21 in s");
}

/* A bundle's members as a worker summarizes them, added as the parent adds the record. */
static int add_members(struct fleet *f, const char *name, const struct fleet_members *m,
		       char *err, size_t errlen)
{
	struct strbuf rec = { 0 };
	int rc = fleet__summarize(m, &rec, err, errlen);

	if (!rc)
		rc = fleet__add(f, name, rec.buf, rec.len, err, errlen);
	strbuf__free(&rec);
	return rc;
}

static void add(struct fleet *f, const char *name, struct jval *doc, struct jval *rq, int want)
{
	struct fleet_members m = { .findings = doc, .runqlat = rq };
	char err[256] = "";
	int rc = add_members(f, name, &m, err, sizeof(err));

	ok(want ? rc == 0 : rc != 0, "%s: %s%s", name, want ? "read" : "refused: ", err);
	if (rc)
		fleet__refused(f, name, err);
	jval__free(doc);
	jval__free(rq);
}

static const struct fleet_host *host(const struct fleet *f, const char *name)
{
	for (size_t i = 0; i < f->nhosts; i++)
		if (!strcmp(f->hosts[i].host, name))
			return &f->hosts[i];
	return NULL;
}

static void test_fleet(void)
{
	struct fleet *f = fleet__new(NOW, SPOOL);
	char name[32];
	struct doc d;
	struct strbuf md = { 0 }, html = { 0 }, js = { 0 };

	/* ten hosts within 1% of 50% busy, one at 90%: the outlier */
	for (int i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "h%d", i);
		add(f, name, findings(name, "2026-01-01T00:00:00Z", 50 + 0.05 * i,
				      i < 3 ? "use.cpu-saturation" : i == 5 ? "use.fd-errors" : NULL),
		    runqlat(i == 9 ? "[0,0,0,0,0,0,0,0,0,0,10]" : "[1,2,3]"), 1);
	}
	add(f, "out", findings("outlier", "2026-01-01T00:00:00Z", 90, NULL), NULL, 1);
	/* h0 again, older: counted, not used; then newer: replaces it */
	add(f, "h0-old", findings("h0", "2025-01-01T00:00:00Z", 1, NULL), NULL, 1);
	add(f, "h1-new", findings("h1", "2026-06-01T00:00:00Z", 50.2, "use.cpu-saturation"),
	    runqlat("[5]"), 1);
	/* crafted */
	add(f, "noschema", parse("{\"host\":{\"hostname\":\"x\"}}"), NULL, 0);
	add(f, "nohost", parse("{\"schema\":\"sonde.findings/1\",\"host\":{\"hostname\":\"\"}}"),
	    NULL, 0);
	add(f, "types", parse("{\"schema\":\"sonde.findings/1\",\"host\":{\"hostname\":\"<b>t|*\"},"
			      "\"findings\":{},\"checks\":[1,{\"id\":2},{\"id\":\"c\",\"metrics\":"
			      "[{\"name\":\"m\",\"value\":\"x\"}]}],\"window\":7}"),
	    parse("{\"status\":\"ok\",\"data\":{\"hist\":[1,-5]}}"), 1);

	ok(!fleet__finish(f), "the fleet finishes");
	is_int(fleet__hosts(f), 12, "12 hosts: h0..h9, the outlier, the crafted one");
	is_int(fleet__bundles_read(f), 14, "14 bundles read (the older and the newer one of a host)");
	ok(host(f, "h0") && host(f, "h0")->older == 1 && !strcmp(host(f, "h0")->start,
								   "2026-01-01T00:00:00Z"),
	   "an older bundle of h0 is counted, the latest stands");
	ok(host(f, "h1") && !strcmp(host(f, "h1")->start, "2026-06-01T00:00:00Z") &&
		   host(f, "h1")->older == 1,
	   "a newer bundle of h1 replaces the first");
	{
		const struct fleet_host *t = host(f, "<b>t|*");
		struct fleet_detail dt = { 0 };

		ok(t && !t->hist[FLEET_RUNQLAT].have && !fleet__detail(f, t, &dt) &&
			   dt.why[FLEET_RUNQLAT] && strstr(dt.why[FLEET_RUNQLAT], "malformed"),
		   "a negative count: no histogram for that host, and why");
		fleet_detail__free(&dt);
	}
	is_int(f->nrefused, 2, "two refused");
	is_str(f->refused[0].name, "nohost", "refusals in name order");

	is_int(f->nshared, 1, "one finding shared");
	ok(f->nshared && !strcmp(f->checks.v[f->shared[0].check], "use.cpu-saturation") &&
		   f->shared[0].nhosts == 3 && f->shared[0].ncrit == 3,
	   "use.cpu-saturation on 3 hosts, crit");
	ok(f->nunique == 1 && !strcmp(f->hosts[f->unique[0].host].host, "h5"),
	   "use.fd-errors is unique to h5");

	ok(f->noutliers == 1 && !strcmp(f->hosts[f->outliers[0].host].host, "outlier") &&
		   f->outliers[0].z > 3.5,
	   "the host at 90%% is the one outlier (z %.1f)", f->noutliers ? f->outliers[0].z : 0);

	ok(f->heat[FLEET_RUNQLAT].nhosts == 10 && f->heat[FLEET_RUNQLAT].fleet[0] == 8 + 5 &&
		   f->heat[FLEET_RUNQLAT].fleet[10] == 10 && f->heat[FLEET_RUNQLAT].fleet[2] == 24,
	   "the fleet's histogram is the hosts' merged (h1's replaced by its newer one)");
	ok(f->heat[FLEET_RUNQLAT].hm.ncols == 11 &&
		   !strcmp(f->heat[FLEET_RUNQLAT].hm.cols[1], "h9") &&
		   f->heat[FLEET_RUNQLAT].hm.nrows == 11,
	   "columns: the fleet, then the slowest p99 first; rows from the fastest used bucket");
	ok(!f->heat[FLEET_BIOLATENCY].hm.ncols, "no biolatency anywhere: a map with no data");

	doc__init(&d, "fleet");
	ok(!fleet__doc(f, &d) && !doc__markdown(&d, &md) && !doc__html(&d, &html) &&
		   !fleet__json(f, &js, NULL, NULL),
	   "the summary renders");
	ok(md.buf && strstr(md.buf, "\\<b>t\\|\\*") && html.buf &&
		   strstr(html.buf, "&lt;b&gt;t|*") && !strstr(html.buf, "<b>t"),
	   "a hostile host name is text in both");
	ok(html.buf && strstr(html.buf, "<figure class=\"heatmap\">") &&
		   strstr(html.buf, "heatmap-none\">no data"),
	   "the HTML draws one map and says the other has no data");
	ok(js.buf && strstr(js.buf, "\"schema\": \"sonde.fleet/1\""), "fleet.json");
	doc__free(&d);
	strbuf__free(&md);
	strbuf__free(&html);
	strbuf__free(&js);
	fleet__free(f);
}

/* When most hosts share a value the MAD is 0: the mean absolute deviation decides. */
static void test_outlier_rules(void)
{
	struct fleet *f = fleet__new(NOW, SPOOL);
	char name[32];

	for (int i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "z%d", i);
		add(f, name, findings(name, "2026-01-01T00:00:00Z", i == 7 ? 3 : 0, NULL), NULL, 1);
	}
	ok(!fleet__finish(f) && f->noutliers == 1 && !strcmp(f->hosts[f->outliers[0].host].host,
								  "z7") && f->outliers[0].mad == 0,
	   "seven hosts at 0, one at 3: the one at 3 (MAD 0, mean absolute deviation)");
	fleet__free(f);

	f = fleet__new(NOW, SPOOL);
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "few%d", i);
		add(f, name, findings(name, "2026-01-01T00:00:00Z", i == 3 ? 99 : 1, NULL), NULL, 1);
	}
	ok(!fleet__finish(f) && f->noutliers == 0, "four hosts: too few to judge");
	fleet__free(f);
}

/* A bundle of host (id: its manifest's host id, or NULL) with its window and worst. */
static void add_bundle(struct fleet *f, const char *name, const char *host, const char *id,
		       const char *start, const char *end, const char *worst)
{
	char doc[1024], man[256];

	snprintf(doc, sizeof(doc),
		 "{\"schema\":\"sonde.findings/1\",\"host\":{\"hostname\":\"%s\"},"
		 "\"window\":{\"start\":\"%s\",\"end\":\"%s\"},\"verdict\":\"%s of %s\","
		 "\"worst\":\"%s\",\"findings\":[]}", host, start, end, worst, name, worst);
	snprintf(man, sizeof(man), "{\"host\":{\"hostname\":\"%s\",\"host_id\":%s%s%s}}", host,
		 id ? "\"" : "", id ? id : "null", id ? "\"" : "");
	{
		struct jval *d = parse(doc), *m = parse(man);
		struct fleet_members mem = { .findings = d, .manifest = m };
		char err[256] = "";

		ok(!add_members(f, name, &mem, err, sizeof(err)), "%s read %s", name, err);
		jval__free(d);
		jval__free(m);
	}
}

#define ID_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define ID_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

/*
 * Another machine's bundle that claims a host's name, dated in the future,
 * must not take the host's row (nor hide its crit from --fail-on), in either
 * order; a forged host id with a future date does not either.
 */
static void test_trust(void)
{
	for (int order = 0; order < 2; order++) {
		struct fleet *f = fleet__new(NOW, SPOOL);
		const struct fleet_host *a = NULL, *b = NULL;
		struct strbuf md = { 0 }, js = { 0 };
		char what[1024];
		struct doc d;

		if (!order)
			add_bundle(f, "real", "db-1", ID_A, "2026-06-30T23:00:00Z",
				   "2026-06-30T23:00:10Z", "crit");
		add_bundle(f, "other", "db-1", ID_B, "2999-01-01T00:00:00Z", "2999-01-01T00:00:10Z",
			   "ok");
		add_bundle(f, "forged-id", "db-1", ID_A, "2999-01-01T00:00:00Z",
			   "2999-01-01T00:00:10Z", "ok");
		add_bundle(f, "ends-later", "db-1", ID_A, "2026-07-01T00:04:00Z",
			   "2026-07-01T00:06:00Z", "ok");
		add_bundle(f, "no-date", "db-1", ID_A, "~", "~", "ok");
		if (order)
			add_bundle(f, "real", "db-1", ID_A, "2026-06-30T23:00:00Z",
				   "2026-06-30T23:00:10Z", "crit");
		add_bundle(f, "web", "web-1", NULL, "2026-06-30T23:59:00Z", "2026-07-01T00:04:00Z",
			   "ok");
		ok(!fleet__finish(f), "order %d: the fleet finishes", order);
		for (size_t i = 0; i < f->nhosts; i++) {
			const struct fleet_host *h = &f->hosts[i];

			if (!strcmp(h->host, "db-1") && h->host_id && !strcmp(h->host_id, ID_A))
				a = h;
			if (!strcmp(h->host, "db-1") && h->host_id && !strcmp(h->host_id, ID_B))
				b = h;
		}
		is_int(fleet__hosts(f), 3, "order %d: db-1 of each host id, and web-1", order);
		ok(a && !strcmp(a->bundle, "real") && a->worst == 2 && a->older == 3 && !a->future,
		   "order %d: db-1 (id A) stays its real crit bundle: a future date, one that ends "
		   "after the skew, one with no date do not replace it", order);
		ok(b && b->future && a && a->conflict && b->conflict,
		   "order %d: the other machine's db-1 is a row of its own, in the future, and "
		   "both are marked as a conflict", order);
		is_int(f->nconflicts, 1, "order %d: one name claimed twice", order);
		is_int(f->nfuture, 3, "order %d: three bundles dated in the future listed", order);
		ok(fleet__worst(f, what, sizeof(what)) == ST_CRIT &&
			   strstr(what, "host db-1 (host id " ID_A ") is crit"),
		   "order %d: --fail-on crit sees the crit (%s)", order, what);
		doc__init(&d, "fleet");
		ok(!fleet__doc(f, &d) && !doc__markdown(&d, &md) &&
			   !fleet__json(f, &js, NULL, NULL) &&
			   strstr(md.buf, "Host names claimed by several machines") &&
			   strstr(md.buf, "(in the future: not trusted)") &&
			   strstr(js.buf, "\"host_ids\": [\n        \"" ID_A "\",\n"
					  "        \"" ID_B "\""),
		   "order %d: the summary shows the conflict and the future window", order);
		doc__free(&d);
		strbuf__free(&md);
		strbuf__free(&js);
		fleet__free(f);
	}
}

/* A bundle of host name with its window's start, no test line of its own. */
static void add_quiet(struct fleet *f, const char *name, const char *start)
{
	struct jval *doc = findings(name, start, 1, NULL);
	struct fleet_members m = { .findings = doc };
	char err[256];

	if (add_members(f, name, &m, err, sizeof(err)))
		printf("# %s: %s\n", name, err);
	jval__free(doc);
}

/* fleet.json and --fail-on's message of the same bundles read in the given order. */
static void order_result(const int *order, struct strbuf *js, char *what, size_t n)
{
	static const char *const hosts[] = { "k", "m", "b", "x", "c", "d", "e" };
	static const char *const checks[] = { "z.one", "a.two", "m.three", NULL, NULL, NULL, NULL };
	struct fleet *f = fleet__new(NOW, SPOOL);

	for (int i = 0; i < 7; i++) {
		int h = order[i];

		/* two outliers as far out as each other on one metric */
		add(f, hosts[h], findings(hosts[h], "2026-01-01T00:00:00Z", h == 1 || h == 3 ? 90 :
					  50 + 0.01 * h, checks[h]), NULL, 1);
	}
	ok(!fleet__finish(f) && !fleet__json(f, js, NULL, NULL), "the fleet finishes");
	fleet__worst(f, what, n);
	fleet__free(f);
}

/* The summary is the same whatever the order the bundles are read in (the workers finish
 * in any order). */
static void test_order(void)
{
	static const int fwd[] = { 0, 1, 2, 3, 4, 5, 6 }, back[] = { 6, 5, 4, 3, 2, 1, 0 };
	struct strbuf a = { 0 }, b = { 0 };
	char wa[1024], wb[1024];

	order_result(fwd, &a, wa, sizeof(wa));
	order_result(back, &b, wb, sizeof(wb));
	ok(a.len && a.len == b.len && !memcmp(a.buf, b.buf, a.len),
	   "fleet.json is the same read forwards and backwards");
	is_str(wa, wb, "--fail-on names the same host");
	strbuf__free(&a);
	strbuf__free(&b);

	/* more bundles dated in the future than are listed: the same ones listed */
	for (int dir = 0; dir < 2; dir++) {
		struct fleet *f = fleet__new(NOW, SPOOL);
		char name[32];

		for (int i = 0; i < FLEET_FUTURE_MAX + 100; i++) {
			int k = dir ? FLEET_FUTURE_MAX + 99 - i : i;

			snprintf(name, sizeof(name), "f%04d", k);
			add_quiet(f, name, "2999-01-01T00:00:00Z");
		}
		fleet__finish(f);
		fleet__json(f, dir ? &b : &a, NULL, NULL);
		if (dir)
			ok(f->nfuture == FLEET_FUTURE_MAX && f->future_cut == 100 &&
				   !strcmp(f->future[0].bundle, "f0000") &&
				   !strcmp(f->future[FLEET_FUTURE_MAX - 1].bundle, "f0999"),
			   "the first %d by name are listed, 100 counted", FLEET_FUTURE_MAX);
		fleet__free(f);
	}
	ok(a.len && a.len == b.len && !memcmp(a.buf, b.buf, a.len),
	   "and fleet.json is the same read forwards and backwards");
	strbuf__free(&a);
	strbuf__free(&b);
}

static int collect(void *arg, struct strbuf *out)
{
	strbuf__append(arg, out->buf, out->len);
	out->len = 0;
	return 0;
}

/*
 * Hosts' details past the spool's buffer are read back from its file;
 * fleet.json handed over in pieces is the same text; a record that is cut,
 * padded or not one is refused, never read.
 */
static void test_spool_and_records(void)
{
	struct fleet *f = fleet__new(NOW, SPOOL);
	struct strbuf whole = { 0 }, pieces = { 0 }, js = { 0 }, rec = { 0 };
	char name[32], doc[64 * 1024], err[256];
	size_t n = 0, bad = 0;
	struct jval *v;

	for (int i = 0; i < 40; i++) {
		int len = snprintf(doc, sizeof(doc),
				   "{\"schema\":\"sonde.findings/1\","
				   "\"host\":{\"hostname\":\"s%d\"},"
				   "\"window\":{\"start\":\"2026-01-01T00:00:00Z\"},"
				   "\"worst\":\"crit\","
				   "\"findings\":[", i);

		for (int k = 0; k < 30; k++)
			len += snprintf(doc + len, sizeof(doc) - len,
					"%s{\"check\":\"c%d\",\"severity\":\"warn\",\"summary\":"
					"\"%d.%d %0300d\"}", k ? "," : "", k, i, k, 0);
		snprintf(doc + len, sizeof(doc) - len, "]}");
		snprintf(name, sizeof(name), "s%d", i);
		v = parse(doc);
		{
			struct fleet_members m = { .findings = v };

			n += !add_members(f, name, &m, err, sizeof(err));
		}
		jval__free(v);
	}
	is_int(n, 40, "40 hosts of 30 findings of 300 bytes each");
	ok(!fleet__finish(f), "they finish");
	if (SPOOL)
		ok(f->spool_fd >= 0 && f->spool_base > 0, "their details went to the spool's file "
		   "(%llu bytes)", (unsigned long long)f->spool_base);
	{
		const struct fleet_host *h = host(f, "s0");
		struct fleet_detail dt = { 0 };

		ok(h && h->detail < f->spool_base + !SPOOL && !fleet__detail(f, h, &dt) &&
			   dt.nsummary == 30 && !strncmp(dt.summary[29], "0.29 000", 8) &&
			   strlen(dt.summary[29]) == 300 && dt.why[0],
		   "the first host's 30 summaries read back whole");
		fleet_detail__free(&dt);
	}
	ok(!fleet__json(f, &whole, NULL, NULL) && !fleet__json(f, &js, collect, &pieces) &&
		   !js.len && pieces.len == whole.len && !memcmp(pieces.buf, whole.buf, whole.len),
	   "fleet.json in pieces (%zu bytes) is fleet.json whole", whole.len);
	strbuf__free(&whole);
	strbuf__free(&pieces);
	strbuf__free(&js);

	/* one good record, then broken ones */
	v = findings("r", "2026-01-01T00:00:00Z", 1, "use.x");
	{
		struct fleet_members m = { .findings = v };

		ok(!fleet__summarize(&m, &rec, err, sizeof(err)), "a record");
	}
	jval__free(v);
	for (size_t cut = 0; cut < rec.len; cut += 7)
		bad += fleet__add(f, "cut", rec.buf, cut, err, sizeof(err)) == -EINVAL;
	is_int(bad, (rec.len + 6) / 7, "every record cut short is refused");
	strbuf__append(&rec, "x", 1);
	ok(fleet__add(f, "padded", rec.buf, rec.len, err, sizeof(err)) == -EINVAL &&
		   strstr(err, "malformed"), "one with a byte more too: %s", err);
	rec.len--;
	rec.buf[0] ^= 1;
	ok(fleet__add(f, "magic", rec.buf, rec.len, err, sizeof(err)) == -EINVAL,
	   "one that is not a record");
	rec.buf[0] ^= 1;
	memset(rec.buf + 8, 0xff, 8); /* the host name's length: 2^64 - 1 is NULL, never allowed */
	ok(fleet__add(f, "nohost", rec.buf, rec.len, err, sizeof(err)) == -EINVAL,
	   "one without a host name");
	strbuf__free(&rec);
	fleet__free(f);
}

static void test_heatmap(void)
{
	static const char *const cols[] = { "a<script>", "b\"onload=x" };
	static const char *const rows[] = { "0-2 us", "2-4 us&" };
	const double counts[] = { 1, 0, 5, 5 };
	struct heatmap hm = { .title = "<t>", .x_label = "x", .y_label = "y", .count_label = "c",
			      .ncols = 2, .nrows = 2, .cols = cols, .rows = rows,
			      .counts = counts, .per_column = 1 };
	struct strbuf sb = { 0 };

	chart__heatmap(&sb, &hm);
	ok(sb.buf && !strstr(sb.buf, "<script") && strstr(sb.buf, "a&lt;script&gt;") &&
		   strstr(sb.buf, "b&quot;onload=x") && !strstr(sb.buf, "b\"onload"),
	   "names are text, in titles and labels");
	ok(strstr(sb.buf, "fill=\"#800026\"><title>a&lt;script&gt; · 0-2 us: 1 c (100.0%)"),
	   "a column's only bucket gets the darkest colour (its share is 100%%)");
	ok(strstr(sb.buf, "b&quot;onload=x · 2-4 us&amp;: 5 c (50.0%)") != NULL,
	   "a tooltip: column, row, count, share");
	ok(!strstr(sb.buf, "href") && !strstr(sb.buf, "http"), "no link, nothing to load");
	strbuf__free(&sb);
	hm.ncols = 0;
	chart__heatmap(&sb, &hm);
	ok(sb.buf && strstr(sb.buf, "no data") && !strstr(sb.buf, "<svg"), "no column: no data");
	strbuf__free(&sb);
}

int main(void)
{
	test_percentiles();
	/* the hosts' details in a spool file, as sonde fleet has them, then in memory */
	for (int spool = 0; spool < 2; spool++) {
		SPOOL = spool ? NULL : "/tmp";
		test_fleet();
		test_outlier_rules();
		test_trust();
		test_spool_and_records();
		test_order();
	}
	test_heatmap();
	return tap_done();
}
