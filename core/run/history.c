// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Across runs: before the checks, the earlier bundles of this host in --out
 * (a scheduled audit keeps one a day) give the levels the trends of finite
 * resources continue from. What was taken goes into this run's captures as
 * raw/history.cap, so `sonde analyze` of the new bundle reproduces the same
 * trends without the earlier bundles, and the report can name each one.
 *
 * Only the checks that declare the "history" collector are served, and only
 * their own metrics are taken from each earlier findings.json. The host id
 * proves nothing by itself: anyone can compute it from the world-readable
 * machine-id and plant a bundle that claims it in a shared --out. So a file
 * is looked at only when it is the running user's own (bundle/earlier.h: a
 * regular file owned by the effective uid, not writable by others); the others
 * are refused unopened, and the record names them. Then a bundle is used only
 * when its manifest, read alone first, says it is of this machine: its host
 * id (a keyed hash of the machine-id, util/hostid.h) equals this one's; a
 * bundle without one (an older sonde's), or a host whose machine-id cannot be
 * read, by the hostname. Two hosts of one name are never mixed, and a
 * redacted bundle (named after host-1) is still this host's by its id. The
 * file name is a first filter, never the proof; at most HISTORY_BUNDLES, the
 * newest, each opened under the untrusted-bundle rules (bundle/read.c) and
 * removed afterwards, one file once however many hard links name it, all of
 * them within one budget of time and extracted bytes: what is left over is
 * skipped, and the record says so.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bundle/bundle.h"
#include "bundle/earlier.h"
#include "bundle/read.h"
#include "run/run.h"
#include "util/clock.h"
#include "util/file.h"
#include "util/hostid.h"
#include "util/json_read.h"

#define HISTORY_BUNDLES 8         /* the newest earlier bundles used */
#define HISTORY_NAMES 4096        /* names like a bundle of this host looked at in --out */
#define HISTORY_REFUSED_SHOWN 32  /* refused files named one by one; the others counted */
#define HISTORY_METRICS 4096      /* metrics taken from one bundle */
#define HISTORY_JSON_MAX (16u << 20)
#define HISTORY_SECONDS 20.0      /* the budget: all the earlier bundles' reading, at most */
#define HISTORY_TIMEOUT_SHARE 4   /* ... and a quarter of what --timeout leaves */
#define HISTORY_BYTES (64ULL << 20) /* the budget: what is extracted of them, in all */
#define HISTORY_ONE_SECONDS 5.0   /* one extraction */
#define REDACTED_HOST "host-1"    /* what --redact names this host (docs/redaction.md) */

/* What reading the earlier bundles may still take: time (monotonic) and extracted bytes. */
struct history_budget {
	int64_t start_ns, end_ns;
	double seconds;
	uint64_t bytes, bytes_used;
};

static double budget_left(const struct history_budget *b)
{
	return (b->end_ns - clock__ns(CLOCK_MONOTONIC)) / 1e9;
}

/* Whether another extraction fits: some time and some bytes left. */
static int budget_open(const struct history_budget *b)
{
	return budget_left(b) > 0.05 && b->bytes_used + 4096 < b->bytes;
}

/* The limits of one extraction: what is left of the budget, capped for one bundle. */
static struct bundle_open_limits budget_limits(const struct history_budget *b)
{
	double left = budget_left(b);

	return (struct bundle_open_limits){
		.max_member_bytes = HISTORY_JSON_MAX,
		.max_total_bytes = b->bytes - b->bytes_used,
		.max_entries = 100000,
		.max_memory_bytes = 256ULL << 20,
		.max_seconds = left < HISTORY_ONE_SECONDS ? left : HISTORY_ONE_SECONDS,
	};
}

static struct jval *read_json(const char *dir, const char *member, uint64_t *bytes, char *err,
			      size_t errlen)
{
	static const struct json_read_limits lim = {
		.max_bytes = HISTORY_JSON_MAX, .max_depth = 32, .max_items = 1u << 20,
		.max_string = 1u << 16,
	};
	char path[4400], *buf = NULL;
	struct jval *v = NULL;
	size_t len;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", dir, member);
	rc = file__read_bounded(AT_FDCWD, path, HISTORY_JSON_MAX, &buf, &len);
	if (rc) {
		snprintf(err, errlen, "%s: %s", member, strerror(-rc));
		return NULL;
	}
	*bytes += len;
	if (json_read(buf, len, &lim, &v, err, errlen))
		v = NULL;
	free(buf);
	return v;
}

/* The boot_id an earlier bundle's host.cap recorded, or "-". */
static void bundle_boot_id(const char *dir, char *out, size_t len, uint64_t *bytes)
{
	struct capture_stream st = { 0 };
	char path[4400], *text = NULL, err[128];
	const struct capture_rec *r;
	size_t n;

	snprintf(out, len, "-");
	snprintf(path, sizeof(path), "%s/raw/host.cap", dir);
	if (file__read_bounded(AT_FDCWD, path, HISTORY_JSON_MAX, &text, &n))
		return;
	*bytes += n;
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

enum history_outcome { HISTORY_USED, HISTORY_SKIPPED, HISTORY_REFUSED };

/*
 * One earlier bundle, open at fd (the user's own: bundle__open_own): its
 * manifest alone first, to know whether it is this host's (bundle__same_host:
 * how says by what), then its findings and host.cap, its levels into a
 * "bundle:NAME" record. 0 when used, else -1 with why.
 */
static int history__read(int fd, const char *name, const char *host, const char *id,
			 const struct strv *served, struct capture_writer *w,
			 struct history_budget *b, const char **how, char *why, size_t whylen)
{
	static const struct bundle_want want[] = { { "findings.json", 0 }, { "raw/host.cap", 1 } };
	const char *tmp = getenv("TMPDIR");
	struct bundle_open_limits lim = budget_limits(b);
	char dir[4200], err[512], boot[64];
	struct bundle_head head;
	struct jval *fin = NULL;
	struct strbuf rec = { 0 };
	const struct jval *win;
	int64_t end_ns;
	int rc = -1;

	if (!tmp || !*tmp)
		tmp = "/tmp";
	/* the manifest under the same caps as the findings: one member, within what is left */
	rc = bundle__read_head(fd, tmp, lim.max_seconds,
			       lim.max_total_bytes < lim.max_member_bytes ? lim.max_total_bytes :
									    lim.max_member_bytes,
			       &head, err, sizeof(err));
	b->bytes_used += head.bytes;
	if (rc) {
		snprintf(why, whylen, "no readable manifest: %s", err);
		return -1;
	}
	if (!bundle__same_host(&head, host, id, how, why, whylen))
		return -1;
	if (!budget_open(b)) {
		snprintf(why, whylen, "the history budget ran out before its findings were read");
		return -1;
	}
	lim = budget_limits(b);
	if (bundle__extract_some_fd(fd, tmp, &lim, want, 2, dir, sizeof(dir), err, sizeof(err))) {
		snprintf(why, whylen, "not opened: %s", err);
		return -1;
	}
	rc = -1;
	if (!(fin = read_json(dir, "findings.json", &b->bytes_used, err, sizeof(err)))) {
		snprintf(why, whylen, "no readable findings: %s", err);
		goto cleanup;
	}
	win = jval__get(fin, "window");
	end_ns = clock__iso8601_ns(win ? jval__str(win, "end") : NULL);
	if (!end_ns) {
		snprintf(why, whylen, "findings.json has no window end");
		goto cleanup;
	}
	bundle_boot_id(dir, boot, sizeof(boot), &b->bytes_used);
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
	jval__free(fin);
	bundle__remove_tree(dir);
	return rc;
}

/*
 * One candidate: refused (not the user's own, or no longer), skipped (not this
 * host's, unreadable, over the budget) or used; why says why not, how by what
 * it matched.
 */
static enum history_outcome history__one(int dfd, const struct bundle_file *c, const char *host,
					 const char *id, const struct strv *served,
					 struct capture_writer *w, struct history_budget *b,
					 const char **how, char *why, size_t whylen)
{
	struct stat st;
	int fd, rc;

	if (c->refused[0]) {
		snprintf(why, whylen, "%s", c->refused);
		return HISTORY_REFUSED;
	}
	/* checked again on the open file: the name may have changed since it was listed */
	fd = bundle__open_own(dfd, c->name, &st, why, whylen);
	if (fd < 0)
		return fd == -EPERM ? HISTORY_REFUSED : HISTORY_SKIPPED;
	rc = history__read(fd, c->name, host, id, served, w, b, how, why, whylen);
	close(fd);
	return rc ? HISTORY_SKIPPED : HISTORY_USED;
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
	const struct bundle_file *x = a, *y = b;
	int c = strncmp(name_time(x->name), name_time(y->name), 16);

	return -(c ? c : strcmp(x->name, y->name));
}

/* The names a bundle of this host may have: after its hostname, or host-1 (--redact). */
struct history_names {
	char prefix[300], redacted[32];
	int by_id; /* this host has an id to match a redacted bundle by */
};

static int history_match(const char *name, void *arg)
{
	const struct history_names *hn = arg;

	return !strncmp(name, hn->prefix, strlen(hn->prefix)) ||
	       (hn->by_id && !strncmp(name, hn->redacted, strlen(hn->redacted)));
}

/*
 * The files of --out whose name says they may be of host, newest first (the
 * time is in the name): named after host, or, when this host has an id to
 * match them by, after host-1 (a bundle written with --redact); those that are
 * not the running user's own marked refused (bundle__list).
 */
static void history__candidates(int dfd, const char *host, int by_id, struct bundle_files *c)
{
	struct history_names hn = { .by_id = by_id };
	char part[64];

	bundle__host_part(host, part, sizeof(part));
	snprintf(hn.prefix, sizeof(hn.prefix), "sonde-%s-", part);
	snprintf(hn.redacted, sizeof(hn.redacted), "sonde-%s-", REDACTED_HOST);
	/* out of memory: those listed so far */
	bundle__list(dfd, history_match, &hn, HISTORY_NAMES, c);
	if (c->n)
		qsort(c->v, c->n, sizeof(*c->v), by_time_desc);
}

/* An earlier candidate that is the same file (a hard link), or NULL. */
static const char *same_file(const struct bundle_files *c, size_t i)
{
	for (size_t k = 0; k < i; k++)
		if (!c->v[k].refused[0] && c->v[k].st.st_dev == c->v[i].st.st_dev &&
		    c->v[k].st.st_ino == c->v[i].st.st_ino)
			return c->v[k].name;
	return NULL;
}

/* The budget of this run: HISTORY_SECONDS, and never more than a share of what --timeout leaves. */
static void budget_start(struct history_budget *b, const struct run_opts *o)
{
	int64_t now = clock__ns(CLOCK_MONOTONIC);
	double left = o->timeout_s > 0 ? o->timeout_s - (now - o->start_ns) / 1e9 : HISTORY_SECONDS;

	b->seconds = left / HISTORY_TIMEOUT_SHARE < HISTORY_SECONDS ?
			     left / HISTORY_TIMEOUT_SHARE : HISTORY_SECONDS;
	if (b->seconds < 0)
		b->seconds = 0;
	b->start_ns = now;
	b->end_ns = now + (int64_t)(b->seconds * 1e9);
	b->bytes = HISTORY_BYTES;
	b->bytes_used = 0;
}

/* Every candidate, newest first, into the log: used, skipped or refused, and why. */
static void history__walk(int dfd, const struct bundle_files *c, const char *host, const char *id,
			  const struct strv *served, struct capture_writer *w,
			  struct history_budget *b, struct strbuf *log)
{
	size_t used = 0, refused = 0;
	const char *how = "", *twin;
	char why[600];

	for (size_t i = 0; i < c->n; i++) {
		const char *name = c->v[i].name;
		enum history_outcome r;

		if (c->v[i].refused[0]) {
			if (refused++ < HISTORY_REFUSED_SHOWN)
				strbuf__printf(log, "refused %s: %s\n", name, c->v[i].refused);
			continue;
		}
		if (used == HISTORY_BUNDLES) {
			strbuf__printf(log, "skipped %s: %d newer bundles are enough\n", name,
				       HISTORY_BUNDLES);
			continue;
		}
		if ((twin = same_file(c, i))) {
			strbuf__printf(log, "skipped %s: the same file as %s (a hard link)\n", name,
				       twin);
			continue;
		}
		if (!budget_open(b)) {
			strbuf__printf(log, "skipped %s: the history budget ran out (%.0f s, %llu MiB "
					    "extracted in all)\n", name, b->seconds,
				       (unsigned long long)(b->bytes >> 20));
			continue;
		}
		r = history__one(dfd, &c->v[i], host, id, served, w, b, &how, why, sizeof(why));
		clean(why);
		if (r == HISTORY_USED)
			used++;
		if (r == HISTORY_REFUSED && refused++ >= HISTORY_REFUSED_SHOWN)
			continue;
		if (r == HISTORY_USED)
			strbuf__printf(log, "used %s (%s)\n", name, how);
		else
			strbuf__printf(log, "%s %s: %s\n", r == HISTORY_REFUSED ? "refused" : "skipped",
				       name, why);
	}
	if (refused > HISTORY_REFUSED_SHOWN)
		strbuf__printf(log, "refused %zu more: not this user's own, or writable by others\n",
			       refused - HISTORY_REFUSED_SHOWN);
}

void run_history__gather(const struct run_opts *o, const struct run_plan *p, const char *raw)
{
	struct strv served = { 0 };
	struct bundle_files cands = { 0 };
	struct history_budget b;
	struct capture_writer w;
	struct strbuf log = { 0 };
	char host[256] = "", id[HOST_ID_LEN + 1] = "", idwhy[256];
	int dfd;

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
	budget_start(&b, o);
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
	strbuf__printf(&log, "trusted: files owned by uid %u, not writable by others; budget: "
			     "%.1f s, %llu MiB extracted in all\n", (unsigned)geteuid(), b.seconds,
		       (unsigned long long)(b.bytes >> 20));
	dfd = open(o->out_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0 && host[0]) {
		history__candidates(dfd, host, id[0] != '\0', &cands);
		history__walk(dfd, &cands, host, id, &served, &w, &b, &log);
	}
	if (dfd >= 0)
		close(dfd);
	strbuf__printf(&log, "spent %.2f s, %llu KiB extracted\n",
		       (clock__ns(CLOCK_MONOTONIC) - b.start_ns) / 1e9,
		       (unsigned long long)(b.bytes_used >> 10));
	if (!log.oom)
		capture_writer__record(&w, 0, clock__ns(CLOCK_REALTIME), clock__ns(CLOCK_MONOTONIC),
				       "sonde:history", log.buf, log.len, 0);
	capture_writer__close(&w);
	strbuf__free(&log);
	bundle_files__free(&cands);
	strv__free(&served);
}
