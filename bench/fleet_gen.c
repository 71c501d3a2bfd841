// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fleet-gen: N bundles of N made-up hosts from one real bundle, for sonde
 * fleet's benchmark (bench/fleet.sh) and tests (tests/cli/fleet.t). Each is a
 * real bundle (bundle__write, a manifest that verifies) of the template's
 * size, whose findings.json, manifest.json and BPF histograms differ by host
 * in a way written down, so a reader can tell whether sonde fleet found it:
 *
 *   host i is "fleet-NNNN", its window i minutes before the template's (none
 *   in the future, which sonde fleet would not trust), its
 *   host id in the manifest that of a machine-id made from i (one per host);
 *   every host-level metric of every check is the template's times
 *   1 + 0.02 u (u in [-1, 1] from a hash of host and metric);
 *   hosts i % 10 == 3: the first non-zero host-level metric is 50 times larger
 *   (an outlier), listed in TRUTH as "outlier HOST CHECK METRIC";
 *   findings: i % 3 == 0 a crit of use.cpu-saturation, i % 4 == 1 a warn of
 *   use.disk-saturation, host 5 a crit of use.fd-errors (unique): TRUTH says
 *   "finding HOST CHECK SEVERITY";
 *   runqlat's histogram shifted up i % 4 buckets, biolatency's i % 3.
 *
 * Usage: fleet-gen TEMPLATE-DIR N OUT-DIR TRUTH-FILE [WORKERS]
 * (TEMPLATE-DIR: an extracted bundle; WORKERS processes share the hosts.)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bundle/bundle.h"
#include "bundle/read.h"
#include "util/file.h"
#include "util/hash.h"
#include "util/hostid.h"
#include "util/json.h"
#include "util/json_read.h"

static const char *const changed[] = { "findings.json", "manifest.json", "raw/bpf/runqlat.json",
				       "raw/bpf/biolatency.json" };

static struct jval *load(const char *dir, const char *name)
{
	char path[4200], err[256], *text = NULL;
	struct jval *v = NULL;
	size_t len;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (file__read_bounded(AT_FDCWD, path, 256u << 20, &text, &len))
		return NULL;
	if (json_read(text, len, &json_read_default_limits, &v, err, sizeof(err)))
		fprintf(stderr, "fleet-gen: %s: %s\n", name, err);
	free(text);
	return v;
}

static void emit(struct json *j, const struct jval *v)
{
	switch (v->type) {
	case J_NULL:
		json__null(j);
		break;
	case J_BOOL:
		json__bool(j, v->boolean);
		break;
	case J_NUMBER:
		json__number(j, v->number);
		break;
	case J_STRING:
		json__string_n(j, v->str, v->len);
		break;
	case J_ARRAY:
		json__begin_array(j);
		for (size_t i = 0; i < v->len; i++)
			emit(j, &v->items[i]);
		json__end_array(j);
		break;
	case J_OBJECT:
		json__begin_object(j);
		for (size_t i = 0; i < v->len; i++) {
			json__key(j, v->keys[i]);
			emit(j, &v->items[i]);
		}
		json__end_object(j);
		break;
	}
}

static int save(const char *dir, const char *name, const struct jval *v)
{
	struct json j = { .pretty = 1 };
	char path[4200];
	int rc;

	emit(&j, v);
	strbuf__puts(&j.out, "\n");
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	rc = j.out.oom ? -ENOMEM : file__write_all(path, j.out.buf, j.out.len);
	strbuf__free(&j.out);
	return rc;
}

static struct jval *get(struct jval *v, const char *key)
{
	return (struct jval *)jval__get(v, key);
}

static void set_str(struct jval *v, const char *s)
{
	if (!v || v->type != J_STRING)
		return;
	free(v->str);
	v->str = strdup(s);
	v->len = strlen(s);
}

/* u in [-1, 1], uniform, from host i and a name (FNV-1a, then splitmix64's mixer). */
static double noise(size_t i, const char *name)
{
	uint64_t z = fnv1a(name, strlen(name), FNV1A_OFFSET) + (i + 1) * 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return (double)(z >> 11) / 9007199254740992.0 * 2 - 1;
}

/* "2026-11-25T11:33:46Z" minus minutes. */
static void shift_time(struct jval *v, size_t minutes)
{
	struct tm tm = { 0 };
	char buf[64];
	time_t t;

	if (!v || v->type != J_STRING || !strptime(v->str, "%Y-%m-%dT%H:%M:%SZ", &tm))
		return;
	t = timegm(&tm) - (time_t)minutes * 60;
	gmtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	set_str(v, buf);
}

static void metrics(struct jval *doc, size_t i, FILE *truth, const char *host)
{
	struct jval *cs = get(doc, "checks");
	int outlier = i % 10 == 3;

	for (size_t c = 0; cs && cs->type == J_ARRAY && c < cs->len; c++) {
		struct jval *ms = get(&cs->items[c], "metrics");
		const char *id = jval__str(&cs->items[c], "id");

		for (size_t k = 0; id && ms && ms->type == J_ARRAY && k < ms->len; k++) {
			struct jval *v = get(&ms->items[k], "value");
			const char *name = jval__str(&ms->items[k], "name");
			const struct jval *inst = jval__get(&ms->items[k], "instance");
			char key[512];

			if (!v || v->type != J_NUMBER || !name)
				continue;
			snprintf(key, sizeof(key), "%s/%s", id, name);
			v->number *= 1 + 0.02 * noise(i, key);
			if (outlier && !inst && v->number > 0) {
				v->number *= 50;
				fprintf(truth, "outlier %s %s %s\n", host, id, name);
				outlier = 0;
			}
		}
	}
}

/* What v holds (not v itself: it is an element of its parent's array). */
static void free_members(struct jval *v)
{
	for (size_t k = 0; (v->type == J_ARRAY || v->type == J_OBJECT) && k < v->len; k++) {
		free_members(&v->items[k]);
		if (v->type == J_OBJECT)
			free(v->keys[k]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
	memset(v, 0, sizeof(*v));
}

/* The host's findings: the template's replaced by the made-up ones, in rank order. */
static void findings(struct jval *doc, size_t i, FILE *truth, const char *host)
{
	static const struct { const char *check, *resource, *metric, *sev; } menu[] = {
		{ "use.cpu-saturation", "cpu", "saturation", "crit" },
		{ "use.disk-saturation", "disk", "saturation", "warn" },
		{ "use.fd-errors", "fd", "errors", "crit" },
	};
	int on[3] = { i % 3 == 0, i % 4 == 1, i == 5 };
	struct jval *fs = get(doc, "findings"), *worst = get(doc, "worst");
	size_t n = 0;
	char text[256];

	if (!fs || fs->type != J_ARRAY)
		return;
	free_members(fs);
	fs->type = J_ARRAY;
	fs->items = calloc(3, sizeof(*fs->items));
	for (int m = 0; m < 3; m++) {
		static const char *const keys[] = { "check", "resource", "metric", "severity",
						     "summary" };
		struct jval *f;

		if (!on[m])
			continue;
		f = &fs->items[n++];
		f->type = J_OBJECT;
		f->len = 5;
		f->keys = calloc(5, sizeof(char *));
		f->items = calloc(5, sizeof(struct jval));
		snprintf(text, sizeof(text), "made up for %s by fleet-gen", host);
		for (int k = 0; k < 5; k++) {
			const char *val[] = { menu[m].check, menu[m].resource, menu[m].metric,
					      menu[m].sev, text };

			f->keys[k] = strdup(keys[k]);
			f->items[k].type = J_STRING;
			f->items[k].str = strdup(val[k]);
			f->items[k].len = strlen(val[k]);
		}
		fprintf(truth, "finding %s %s %s\n", host, menu[m].check, menu[m].sev);
	}
	fs->len = n;
	set_str(worst, on[0] || on[2] ? "crit" : on[1] ? "warn" : "ok");
	snprintf(text, sizeof(text), "made-up verdict of %s", host);
	set_str(get(doc, "verdict"), text);
}

/* Counts moved up by shift buckets (the slower host); the array grows by as many. */
static void shift_hist(struct jval *h, size_t shift)
{
	struct jval *items;

	if (!h || h->type != J_ARRAY || !shift)
		return;
	items = realloc(h->items, (h->len + shift) * sizeof(*items));
	if (!items)
		return;
	h->items = items;
	for (size_t k = h->len; k < h->len + shift; k++)
		items[k] = (struct jval){ .type = J_NUMBER };
	h->len += shift;
	for (size_t k = h->len; k-- > 0;)
		items[k].number = k >= shift ? items[k - shift].number : 0;
}

static void histograms(struct jval *rq, struct jval *bio, size_t i)
{
	struct jval *disks = get(get(bio, "data"), "disks");

	shift_hist(get(get(rq, "data"), "hist"), i % 4);
	for (size_t d = 0; disks && disks->type == J_ARRAY && d < disks->len; d++) {
		struct jval *ops = get(&disks->items[d], "ops");

		for (size_t o = 0; ops && ops->type == J_OBJECT && o < ops->len; o++)
			shift_hist(get(&ops->items[o], "total"), i % 3);
	}
}

/* The manifest's host: findings.json's, without its context, with host i's own host id. */
static void manifest_host(struct json *j, const struct jval *host, size_t i)
{
	char machine_id[40], id[HOST_ID_LEN + 1];

	json__begin_object(j);
	for (size_t k = 0; host && host->type == J_OBJECT && k < host->len; k++) {
		if (!strcmp(host->keys[k], "context") || !strcmp(host->keys[k], "host_id"))
			continue;
		json__key(j, host->keys[k]);
		emit(j, &host->items[k]);
	}
	snprintf(machine_id, sizeof(machine_id), "%016llx%016zx", 0x5eed5eed5eed5eedULL, i);
	json__key(j, "host_id");
	if (!host_id__derive(machine_id, strlen(machine_id), id))
		json__string(j, id);
	else
		json__null(j);
	json__end_object(j);
}

/* The manifest of stage (the template's, with this host and every member's size and hash). */
static int manifest(const char *stage, struct jval *man, const struct jval *doc, size_t i)
{
	struct bundle_list bl = { 0 };
	struct json j = { .pretty = 1 };
	char path[4400];
	int rc;

	if (bundle__scan(stage, &bl))
		return -EIO;
	json__begin_object(&j);
	for (size_t k = 0; k < man->len; k++) {
		json__key(&j, man->keys[k]);
		if (!strcmp(man->keys[k], "host"))
			manifest_host(&j, jval__get(doc, "host"), i);
		else if (!strcmp(man->keys[k], "start") || !strcmp(man->keys[k], "end"))
			emit(&j, jval__get(jval__get(doc, "window"), man->keys[k]));
		else if (strcmp(man->keys[k], "files"))
			emit(&j, &man->items[k]);
		else
			bundle__manifest_files(&j, &bl);
	}
	json__end_object(&j);
	strbuf__puts(&j.out, "\n");
	bundle_list__free(&bl);
	snprintf(path, sizeof(path), "%s/manifest.json", stage);
	rc = file__write_all(path, j.out.buf, j.out.len);
	strbuf__free(&j.out);
	return rc;
}

/* Hard links to the template's members but those this host changes. */
static int link_tree(const char *from, const char *to, const char *rel)
{
	char src[4200], dst[4200];
	struct stat sb;

	snprintf(src, sizeof(src), "%s/%s", from, rel);
	snprintf(dst, sizeof(dst), "%s/%s", to, rel);
	if (lstat(src, &sb))
		return -errno;
	if (S_ISDIR(sb.st_mode)) {
		DIR *d = opendir(src);
		struct dirent *e;
		int rc = 0;

		if (!d || (mkdir(dst, 0700) && errno != EEXIST)) {
			rc = -errno;
			goto done;
		}
		while (!rc && (e = readdir(d))) {
			char sub[1024];

			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			if (snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", e->d_name) >=
			    (int)sizeof(sub))
				rc = -ENAMETOOLONG;
			else
				rc = link_tree(from, to, sub);
		}
done:
		if (d)
			closedir(d);
		return rc;
	}
	for (size_t k = 0; k < sizeof(changed) / sizeof(*changed); k++)
		if (!strcmp(rel, changed[k]))
			return 0;
	return link(src, dst) ? -errno : 0;
}

static int one_host(const char *tmpl, size_t i, const char *out, FILE *truth)
{
	struct jval *doc = load(tmpl, "findings.json"), *man = load(tmpl, "manifest.json");
	struct jval *rq = load(tmpl, "raw/bpf/runqlat.json");
	struct jval *bio = load(tmpl, "raw/bpf/biolatency.json");
	char host[32], stage[4200], bundle[4200], err[512];
	int rc = -EINVAL;

	snprintf(host, sizeof(host), "fleet-%04zu", i);
	snprintf(stage, sizeof(stage), "%s/.stage-%zu", out, i);
	if (!doc || !man)
		goto out;
	set_str(get(get(doc, "host"), "hostname"), host);
	shift_time(get(get(doc, "window"), "start"), i);
	shift_time(get(get(doc, "window"), "end"), i);
	metrics(doc, i, truth, host);
	findings(doc, i, truth, host);
	histograms(rq, bio, i);
	bundle__remove_tree(stage);
	if (link_tree(tmpl, stage, "") || save(stage, "findings.json", doc) ||
	    (rq && save(stage, "raw/bpf/runqlat.json", rq)) ||
	    (bio && save(stage, "raw/bpf/biolatency.json", bio)) || manifest(stage, man, doc, i))
		goto out;
	snprintf(bundle, sizeof(bundle), "%s/%s/sonde-%s.tar.xz", out, host, host);
	snprintf(err, sizeof(err), "%s/%s", out, host);
	mkdir(err, 0700);
	rc = bundle__write(stage, bundle, sizeof(bundle), err, sizeof(err));
	if (rc)
		fprintf(stderr, "fleet-gen: %s: %s\n", host, err);
out:
	bundle__remove_tree(stage);
	jval__free(doc);
	jval__free(man);
	jval__free(rq);
	jval__free(bio);
	return rc;
}

int main(int argc, char **argv)
{
	size_t n, workers;
	FILE *truth;
	int failed = 0;

	if (argc < 5) {
		fprintf(stderr, "usage: fleet-gen TEMPLATE-DIR N OUT-DIR TRUTH-FILE [WORKERS]\n");
		return 2;
	}
	n = strtoul(argv[2], NULL, 10);
	workers = argc > 5 ? strtoul(argv[5], NULL, 10) : 1;
	workers = workers ? workers : 1;
	truth = fopen(argv[4], "w");
	if (!truth)
		return 1;
	for (size_t w = 0; w < workers; w++) {
		pid_t pid = fork();

		if (pid == 0) {
			char part[4200];
			FILE *t;

			snprintf(part, sizeof(part), "%s.%zu", argv[4], w);
			t = fopen(part, "w");
			for (size_t i = w; t && i < n; i += workers)
				if (one_host(argv[1], i, argv[3], t))
					_exit(1);
			_exit(t && !fclose(t) ? 0 : 1);
		}
	}
	for (size_t w = 0; w < workers; w++) {
		int st;

		if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			failed = 1;
	}
	/* the workers' truths, one file */
	for (size_t w = 0; w < workers; w++) {
		char part[4200], line[1024];
		FILE *t;

		snprintf(part, sizeof(part), "%s.%zu", argv[4], w);
		t = fopen(part, "r");
		while (t && fgets(line, sizeof(line), t))
			fputs(line, truth);
		if (t)
			fclose(t);
		unlink(part);
	}
	fclose(truth);
	return failed;
}
