// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Across runs: before the checks, the earlier bundles of this host in --out
 * (a scheduled audit keeps one a day) give the levels the trends of finite
 * resources continue from. What was taken goes into this run's captures as
 * raw/history.cap, so `sonde analyze` of the new bundle reproduces the same
 * trends without the earlier bundles, and the report can name each one.
 *
 * Only the checks that declare the "history" collector are served, and only
 * their own metrics are taken from each earlier findings.json. A bundle is
 * used only when its manifest says it is of this machine: its host id (a
 * keyed hash of the machine-id, util/hostid.h) equals this one's; a bundle
 * without one (an older sonde's), or a host whose machine-id cannot be read,
 * by the hostname. Two hosts of one name are never mixed, and a redacted
 * bundle (named after host-1) is still this host's by its id. The file name is
 * a first filter, never the proof; at most HISTORY_BUNDLES, the newest, each
 * opened under the untrusted-bundle rules (bundle/read.c) and removed
 * afterwards.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bundle/bundle.h"
#include "bundle/read.h"
#include "run/run.h"
#include "util/clock.h"
#include "util/file.h"
#include "util/hostid.h"
#include "util/json_read.h"

#define HISTORY_BUNDLES 8        /* the newest earlier bundles read */
#define HISTORY_CANDIDATES 256   /* file names considered in --out */
#define HISTORY_METRICS 4096     /* metrics taken from one bundle */
#define HISTORY_JSON_MAX (16u << 20)
#define REDACTED_HOST "host-1"      /* what --redact names this host (docs/redaction.md) */

static const struct bundle_open_limits history_limits = {
	.max_member_bytes = 256ULL << 20,
	.max_total_bytes = 512ULL << 20,
	.max_entries = 20000,
	.max_memory_bytes = 512ULL << 20,
	.max_seconds = 30,
};

/*
 * The one place a bundle is opened here: into a private directory under parent.
 * (Only manifest.json, findings.json and raw/host.cap are read from it.)
 */
static int history__open_bundle(const char *path, const char *parent, char *dir, size_t len,
				char *err, size_t errlen)
{
	return bundle__extract(path, parent, &history_limits, dir, len, err, errlen);
}

static struct jval *read_json(const char *dir, const char *member, char *err, size_t errlen)
{
	static const struct json_read_limits lim = {
		.max_bytes = HISTORY_JSON_MAX, .max_depth = 32, .max_items = 1u << 20,
		.max_string = 1u << 16,
	};
	char path[4200], *buf = NULL;
	struct jval *v = NULL;
	size_t len;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", dir, member);
	rc = file__read_bounded(AT_FDCWD, path, HISTORY_JSON_MAX, &buf, &len);
	if (rc) {
		snprintf(err, errlen, "%s: %s", member, strerror(-rc));
		return NULL;
	}
	if (json_read(buf, len, &lim, &v, err, errlen))
		v = NULL;
	free(buf);
	return v;
}

/* "2026-11-20T10:00:00Z" -> ns since the epoch; 0 when it does not parse. */
static int64_t iso_ns(const char *s)
{
	struct tm tm = { 0 };
	char z = 0;

	if (!s || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%c", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
			 &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &z) != 7 || z != 'Z')
		return 0;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return (int64_t)timegm(&tm) * 1000000000LL;
}

/* The boot_id an earlier bundle's host.cap recorded, or "-". */
static void bundle_boot_id(const char *dir, char *out, size_t len)
{
	struct capture_stream st = { 0 };
	char path[4400], *text = NULL, err[128];
	const struct capture_rec *r;
	size_t n;

	snprintf(out, len, "-");
	snprintf(path, sizeof(path), "%s/raw/host.cap", dir);
	if (file__read_bounded(AT_FDCWD, path, 16u << 20, &text, &n))
		return;
	/* the parser owns text from here, on success and failure */
	if (capture_stream__parse(&st, text, n, err, sizeof(err)))
		return;
	r = capture_stream__last(&st, "/proc/sys/kernel/random/boot_id");
	if (r && !r->err && r->len >= 8) {
		size_t k = 0;

		for (; k < r->len && k + 1 < len && r->data[k] > ' ' && r->data[k] < 127; k++)
			out[k] = r->data[k];
		out[k] = '\0';
	}
	free(st.text);
	free(st.rec);
}

/* A string for a line of the record: no tab, newline or control character. */
static void clean(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < ' ' || *s == 127)
			*s = ' ';
}

/*
 * The metrics of the served checks in findings.json, one "metric" line each:
 * CHECK \t METRIC \t INSTANCE \t VALUE. Returns how many.
 */
static size_t take_metrics(const struct jval *findings, const struct strv *served,
			   struct strbuf *out)
{
	const struct jval *checks = jval__get(findings, "checks");
	size_t n = 0;

	for (size_t i = 0; checks && checks->type == J_ARRAY && i < checks->len; i++) {
		const struct jval *c = &checks->items[i], *ms = jval__get(c, "metrics");
		const char *id = jval__str(c, "id");

		if (!id || !strv__has(served, id) || !ms || ms->type != J_ARRAY)
			continue;
		for (size_t k = 0; k < ms->len && n < HISTORY_METRICS; k++) {
			const char *name = jval__str(&ms->items[k], "name");
			const char *inst = jval__str(&ms->items[k], "instance");
			char nm[128], in[512];
			double v;

			if (!name || jval__num(&ms->items[k], "value", &v))
				continue;
			snprintf(nm, sizeof(nm), "%s", name);
			snprintf(in, sizeof(in), "%s", inst ? inst : "");
			clean(nm);
			clean(in);
			strbuf__printf(out, "metric\t%s\t%s\t%s\t%.17g\n", id, nm, in, v);
			n++;
		}
	}
	return n;
}

/*
 * Whether the bundle whose manifest host section is h is of this host: by the
 * host id when both have one, else by the hostname. how says which matched;
 * why, when it is not, what the manifest says.
 */
static int same_host(const struct jval *h, const char *host, const char *id, const char **how,
		     char *why, size_t whylen)
{
	const char *bhost = h ? jval__str(h, "hostname") : NULL;
	const char *bid = h ? jval__str(h, "host_id") : NULL;

	if (bid && !host_id__valid(bid))
		bid = NULL;
	if (bid && id[0]) {
		if (strcmp(bid, id)) {
			snprintf(why, whylen, "another machine: its machine-id differs (its manifest "
					      "names %.200s)", bhost ? bhost : "no host");
			return 0;
		}
		*how = "same machine-id";
		return 1;
	}
	if (!bhost || strcmp(bhost, host)) {
		snprintf(why, whylen, "another host: its manifest says %.200s%s", bhost ? bhost : "none",
			 bid ? " (and this host has no machine-id to compare)" : "");
		return 0;
	}
	*how = bid ? "same hostname: this host has no machine-id to compare" :
		     "same hostname: it records no machine-id";
	return 1;
}

/*
 * One earlier bundle: opened, checked to be this host's (same_host: how says
 * by what), its levels into a "bundle:NAME" record. 0 when used, else -1 with
 * why.
 */
static int history__one(const char *out_dir, const char *name, const char *host, const char *id,
			const struct strv *served, struct capture_writer *w, const char **how,
			char *why, size_t whylen)
{
	char path[4200], dir[4200], err[512], boot[64];
	const char *tmp = getenv("TMPDIR");
	struct jval *man = NULL, *fin = NULL;
	struct strbuf rec = { 0 };
	const struct jval *h, *win;
	int64_t end_ns;
	int rc = -1;

	snprintf(path, sizeof(path), "%s/%s", out_dir, name);
	if (history__open_bundle(path, tmp && *tmp ? tmp : "/tmp", dir, sizeof(dir), err,
				 sizeof(err))) {
		snprintf(why, whylen, "not opened: %s", err);
		return -1;
	}
	if (!(man = read_json(dir, "manifest.json", err, sizeof(err)))) {
		snprintf(why, whylen, "no readable manifest: %s", err);
		goto cleanup;
	}
	h = jval__get(man, "host");
	if (!same_host(h, host, id, how, why, whylen))
		goto cleanup;
	if (!(fin = read_json(dir, "findings.json", err, sizeof(err)))) {
		snprintf(why, whylen, "no readable findings: %s", err);
		goto cleanup;
	}
	win = jval__get(fin, "window");
	end_ns = iso_ns(win ? jval__str(win, "end") : NULL);
	if (!end_ns) {
		snprintf(why, whylen, "findings.json has no window end");
		goto cleanup;
	}
	bundle_boot_id(dir, boot, sizeof(boot));
	strbuf__printf(&rec, "host %s\nboot_id %s\nend_wall_ns %lld\n", host, boot,
		       (long long)end_ns);
	if (!take_metrics(fin, served, &rec)) {
		snprintf(why, whylen, "none of the metrics the trends need (an older sonde, or "
				      "other checks)");
		goto cleanup;
	}
	if (!rec.oom) {
		char rpath[600];

		snprintf(rpath, sizeof(rpath), "bundle:%s", name);
		capture_writer__record(w, 0, clock__ns(CLOCK_REALTIME), clock__ns(CLOCK_MONOTONIC),
				       rpath, rec.buf, rec.len, 0);
		rc = 0;
	}
cleanup:
	strbuf__free(&rec);
	jval__free(man);
	jval__free(fin);
	bundle__remove_tree(dir);
	return rc;
}

/*
 * The time in a candidate's name, "YYYYMMDDTHHMMSSZ": the last such run of
 * characters, wherever a case id ("sonde-HOST-CASE-TIME") or a clash's "-2"
 * put it; "" when there is none (it sorts oldest).
 */
static const char *name_time(const char *name)
{
	static const char shape[] = "DDDDDDDDTDDDDDDZ";
	size_t n = strlen(name), k = sizeof(shape) - 1;

	for (size_t i = n >= k ? n - k + 1 : 0; i-- > 0;) {
		size_t j = 0;

		for (; j < k; j++) {
			char c = name[i + j];

			if (shape[j] == 'D' ? !(c >= '0' && c <= '9') : c != shape[j])
				break;
		}
		if (j == k)
			return name + i;
	}
	return "";
}

/* Newest first: by the time in the name, then by the name. */
static int by_time_desc(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	int c = strncmp(name_time(x), name_time(y), 16);

	return -(c ? c : strcmp(x, y));
}

/*
 * The bundles of out_dir whose name says they may be of host, newest first (the
 * time is in the name): named after host, or, when this host has an id to
 * match them by, after host-1 (a bundle written with --redact).
 */
static void history__candidates(const char *out_dir, const char *host, int by_id,
				struct strv *names)
{
	char prefix[300], redacted[32], part[64];
	const char *prefixes[2] = { prefix, NULL };
	struct dirent *de;
	DIR *d = opendir(out_dir);

	if (!d)
		return;
	bundle__host_part(host, part, sizeof(part));
	snprintf(prefix, sizeof(prefix), "sonde-%s-", part);
	snprintf(redacted, sizeof(redacted), "sonde-%s-", REDACTED_HOST);
	if (by_id && strcmp(prefix, redacted))
		prefixes[1] = redacted;
	while ((de = readdir(d)) && names->n < HISTORY_CANDIDATES) {
		size_t n = strlen(de->d_name);

		for (int i = 0; i < 2; i++) {
			size_t p = prefixes[i] ? strlen(prefixes[i]) : 0;

			if (p && n > p + 7 && !strncmp(de->d_name, prefixes[i], p) &&
			    !strcmp(de->d_name + n - 7, ".tar.xz") && !strchr(de->d_name + p, '/')) {
				if (strv__push(names, de->d_name))
					goto done; /* out of memory: those listed so far */
				break;
			}
		}
	}
done:
	closedir(d);
	if (names->n)
		qsort(names->v, names->n, sizeof(*names->v), by_time_desc);
}

void run_history__gather(const struct run_opts *o, const struct run_plan *p, const char *raw)
{
	struct strv served = { 0 }, names = { 0 };
	struct capture_writer w;
	struct strbuf log = { 0 };
	char host[256] = "", why[600], id[HOST_ID_LEN + 1] = "", idwhy[256];
	const char *how = "";
	size_t used = 0;

	for (size_t i = 0; i < p->nsel; i++)
		if (strv__has(&p->sel[i]->collect, HISTORY_COLLECTOR) &&
		    strv__push(&served, p->sel[i]->id))
			break; /* out of memory: the checks served so far */
	if (!served.n)
		return;
	if (capture_writer__open(&w, raw, HISTORY_COLLECTOR)) {
		strv__free(&served);
		return; /* the trends use this window alone; the stream's absence says so */
	}
	if (gethostname(host, sizeof(host) - 1))
		host[0] = '\0';
	if (host_id__read("", id, idwhy, sizeof(idwhy)))
		id[0] = '\0';
	strbuf__printf(&log, "looked in %s\n", o->out_dir);
	if (id[0])
		strbuf__printf(&log, "this host: %s, matched by machine-id (host id %s), by "
				     "hostname where a bundle records none\n", host, id);
	else
		strbuf__printf(&log, "this host: %s, matched by hostname: no machine-id (%s)\n",
			       host, idwhy);
	if (host[0])
		history__candidates(o->out_dir, host, id[0] != '\0', &names);
	for (size_t i = 0; i < names.n; i++) {
		if (used == HISTORY_BUNDLES) {
			strbuf__printf(&log, "skipped %s: %d newer bundles are enough\n", names.v[i],
				       HISTORY_BUNDLES);
			continue;
		}
		if (!history__one(o->out_dir, names.v[i], host, id, &served, &w, &how, why,
				  sizeof(why))) {
			used++;
			strbuf__printf(&log, "used %s (%s)\n", names.v[i], how);
		} else {
			strbuf__printf(&log, "skipped %s: %s\n", names.v[i], why);
		}
	}
	if (!log.oom)
		capture_writer__record(&w, 0, clock__ns(CLOCK_REALTIME), clock__ns(CLOCK_MONOTONIC),
				       "sonde:history", log.buf, log.len, 0);
	capture_writer__close(&w);
	strbuf__free(&log);
	strv__free(&names);
	strv__free(&served);
}
