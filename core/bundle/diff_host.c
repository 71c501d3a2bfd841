// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sonde diff, the host: what changed in the host's configuration between two
 * bundles. From findings.json (host.kernel and host.context,
 * docs/findings-schema.md): the kernel release, build and taint, each boot
 * parameter, the OS, the cgroup version, the CPU model, flags and frequency
 * governor, the CPUs, the memory and the NUMA nodes, transparent huge pages,
 * every sysctl, the modules loaded and the units failed. From the captures:
 * the installed packages and their versions (host.context's
 * sonde:packages), the mounts and their options (proc.mounts' mountinfo),
 * the cgroups' limits (proc.cgroups: cpu.max, memory.max, pids.max and
 * their v1 forms). Each change is one line, a finding of the diff: a slower
 * host after a kernel update or a sysctl change is the first thing to know.
 * Everything read is untrusted: sorted merges, never a search per key, so a
 * document at the reader's limits costs n log n.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/diff_int.h"
#include "collect/hostctx.h"
#include "util/strbuf.h"
#include "util/units.h"

struct host_facts {
	struct host_context hc;
	int hc_read;
	struct strv pkgs;   /* "NAME\tVERSION", sorted */
	struct strv mounts; /* "MOUNT POINT\tFSTYPE SOURCE OPTIONS", sorted */
	struct strv limits; /* "CGROUP FILE\tVALUE", sorted */
};

/* One value as text: a string as it is, a number as %g, anything else absent. */
static int value_text(const struct jval *v, char *buf, size_t len)
{
	if (v && v->type == J_STRING)
		snprintf(buf, len, "%s", v->str);
	else if (v && v->type == J_NUMBER)
		snprintf(buf, len, "%.15g", v->number);
	else
		return 0;
	return 1;
}

static int add(struct host_changes *hc, const char *check, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int add(struct host_changes *hc, const char *check, const char *fmt, ...)
{
	char line[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (strv__push(&hc->checks, check))
		return -ENOMEM;
	if (strv__push(&hc->lines, line)) {
		free(hc->checks.v[--hc->checks.n]);
		return -ENOMEM;
	}
	return 0;
}

/* A field of both sides that differs (a side without it: nothing to compare). */
static int field(const struct jval *o, const struct jval *n, const char *key, const char *check,
		 const char *label, struct host_changes *hc)
{
	char a[1024], b[1024];

	if (!value_text(jval__get(o, key), a, sizeof(a)) ||
	    !value_text(jval__get(n, key), b, sizeof(b)) || !strcmp(a, b))
		return 0;
	return add(hc, check, "%s: %s -> %s", label, a, b);
}

/* A number of both sides that differs, in its unit ("memory: 23.5 GiB -> 31.4 GiB"). */
static int number(const struct jval *o, const struct jval *n, const char *key, const char *unit,
		  const char *check, const char *label, struct host_changes *hc)
{
	double a, b;
	char sa[64], sb[64];

	if (jval__num(o, key, &a) || jval__num(n, key, &b) || a == b)
		return 0;
	units__value(sa, sizeof(sa), a, unit);
	units__value(sb, sizeof(sb), b, unit);
	return add(hc, check, "%s: %s -> %s", label, sa, sb);
}

static int by_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "KEY\tVALUE" lines into key and value. */
static void split(const char *s, char *key, size_t kl, const char **val)
{
	const char *tab = strchr(s, '\t');

	snprintf(key, kl, "%.*s", (int)(tab ? (size_t)(tab - s) : strlen(s)), s);
	*val = tab ? tab + 1 : "";
}

/*
 * Two sorted lists of "KEY\tVALUE" merged: "LABEL KEY: A -> B", "LABEL KEY:
 * added (B)" or "added" without a value, "LABEL KEY: gone (was A)".
 */
static int kv_merge(const struct strv *a, const struct strv *b, const char *check,
		    const char *label, struct host_changes *hc)
{
	size_t i = 0, k = 0;
	int rc = 0;

	while (!rc && (i < a->n || k < b->n)) {
		char ka[1024], kb[1024];
		const char *va = "", *vb = "";
		int c;

		if (i < a->n)
			split(a->v[i], ka, sizeof(ka), &va);
		if (k < b->n)
			split(b->v[k], kb, sizeof(kb), &vb);
		c = i == a->n ? 1 : k == b->n ? -1 : strcmp(ka, kb);
		if (c < 0)
			rc = *va ? add(hc, check, "%s %s: gone (was %s)", label, ka, va) :
				   add(hc, check, "%s %s: gone", label, ka);
		else if (c > 0)
			rc = *vb ? add(hc, check, "%s %s: added (%s)", label, kb, vb) :
				   add(hc, check, "%s %s: added", label, kb);
		else if (strcmp(va, vb))
			rc = add(hc, check, "%s %s: %s -> %s", label, ka, va, vb);
		i += c <= 0;
		k += c >= 0;
	}
	return rc;
}

/* An object's members ("KEY\tVALUE") or an array's strings ("NAME\t"), sorted. */
static int kv_of(const struct jval *v, struct strv *out)
{
	char line[2300], val[1024];

	for (size_t i = 0; v && (v->type == J_OBJECT || v->type == J_ARRAY) && i < v->len; i++) {
		if (v->type == J_OBJECT && value_text(&v->items[i], val, sizeof(val)))
			snprintf(line, sizeof(line), "%.1023s\t%s", v->keys[i], val);
		else if (v->type == J_ARRAY && v->items[i].type == J_STRING)
			snprintf(line, sizeof(line), "%.1023s\t", v->items[i].str);
		else
			continue;
		if (strv__push(out, line))
			return -ENOMEM;
	}
	qsort(out->v, out->n, sizeof(*out->v), by_str);
	return 0;
}

/* A JSON object or array of both sides merged as kv_merge does; 0 when either side lacks it. */
static int json_merge(const struct jval *o, const struct jval *n, const char *check,
		      const char *label, struct host_changes *hc)
{
	struct strv a = { 0 }, b = { 0 };
	int rc;

	if (!o || !n || o->type != n->type)
		return 0;
	rc = kv_of(o, &a) || kv_of(n, &b) ? -ENOMEM : kv_merge(&a, &b, check, label, hc);
	strv__free(&a);
	strv__free(&b);
	return rc;
}

/* The kernel command line's parameters ("KEY\tVALUE", "" for a flag), sorted. */
static int params_of(const char *cmdline, struct strv *out)
{
	char tok[1024], line[1100];

	for (const char *p = cmdline; p && *p;) {
		size_t n = strcspn(p, " \t");
		char *eq;

		if (n) {
			snprintf(tok, sizeof(tok), "%.*s", (int)n, p);
			eq = strchr(tok, '=');
			if (eq)
				*eq = '\0';
			snprintf(line, sizeof(line), "%s\t%s", tok, eq ? eq + 1 : "");
			if (strv__push(out, line))
				return -ENOMEM;
		}
		p += n;
		p += strspn(p, " \t");
	}
	qsort(out->v, out->n, sizeof(*out->v), by_str);
	return 0;
}

static int boot_params(const struct jval *oc, const struct jval *nc, struct host_changes *hc)
{
	const char *a = jval__str(oc, "kernel_cmdline"), *b = jval__str(nc, "kernel_cmdline");
	struct strv pa = { 0 }, pb = { 0 };
	int rc;

	if (!a || !b || !strcmp(a, b))
		return 0;
	rc = params_of(a, &pa) || params_of(b, &pb) ?
		     -ENOMEM :
		     kv_merge(&pa, &pb, "host.kernel", "boot parameter", hc);
	strv__free(&pa);
	strv__free(&pb);
	return rc;
}

/* The NUMA nodes as "node N\tCPUS cpus, MEM" lines. */
static int numa_of(const struct jval *cpu, struct strv *out)
{
	const struct jval *nodes = jval__get(cpu, "numa");
	char line[600], mem[64];
	double id, bytes;

	for (size_t i = 0; nodes && nodes->type == J_ARRAY && i < nodes->len; i++) {
		const struct jval *nd = &nodes->items[i];

		if (jval__num(nd, "node", &id))
			continue;
		if (jval__num(nd, "mem_bytes", &bytes))
			snprintf(mem, sizeof(mem), "?");
		else
			units__value(mem, sizeof(mem), bytes, "bytes");
		snprintf(line, sizeof(line), "node %.0f\tCPUs %.256s, %s", id,
			 jval__str(nd, "cpus") ?: "?", mem);
		if (strv__push(out, line))
			return -ENOMEM;
	}
	qsort(out->v, out->n, sizeof(*out->v), by_str);
	return 0;
}

static int topology(const struct jval *oh, const struct jval *nh, struct host_changes *hc)
{
	const struct jval *oc = jval__get(jval__get(oh, "context"), "cpu");
	const struct jval *nc = jval__get(jval__get(nh, "context"), "cpu");
	struct strv a = { 0 }, b = { 0 };
	int rc;

	if ((rc = number(oh, nh, "cpus", "CPUs", "host.cpu", "CPUs online", hc)) ||
	    (rc = number(oh, nh, "mem_total_bytes", "bytes", "host.memory", "memory", hc)) ||
	    (rc = json_merge(jval__get(oc, "flags"), jval__get(nc, "flags"), "host.cpu",
			     "CPU flag", hc)))
		return rc;
	if (!jval__get(oc, "numa") || !jval__get(nc, "numa"))
		return 0;
	rc = numa_of(oc, &a) || numa_of(nc, &b) ? -ENOMEM :
						  kv_merge(&a, &b, "host.memory", "NUMA", hc);
	strv__free(&a);
	strv__free(&b);
	return rc;
}

/* What findings.json says of the host. */
static int from_findings(const struct jval *old_doc, const struct jval *new_doc,
			 struct host_changes *hc)
{
	const struct jval *oh = jval__get(old_doc, "host"), *nh = jval__get(new_doc, "host");
	const struct jval *oc = jval__get(oh, "context"), *nc = jval__get(nh, "context");
	const struct jval *ocpu = jval__get(oc, "cpu"), *ncpu = jval__get(nc, "cpu");
	int rc;

	if ((rc = field(oh, nh, "kernel", "host.kernel", "kernel release", hc)) ||
	    (rc = field(oc, nc, "kernel_build", "host.kernel", "kernel build", hc)) ||
	    (rc = boot_params(oc, nc, hc)) ||
	    (rc = field(oc, nc, "tainted", "host.kernel", "kernel taint", hc)) ||
	    (rc = field(oc, nc, "os", "host.os", "OS", hc)) ||
	    (rc = field(oc, nc, "cgroup", "host.cgroup", "cgroup version", hc)) ||
	    (rc = field(ocpu, ncpu, "model", "host.cpu", "CPU model", hc)) ||
	    (rc = field(oc, nc, "transparent_hugepage", "host.memory", "transparent huge pages",
			hc)) ||
	    (rc = field(oc, nc, "transparent_hugepage_defrag", "host.memory",
			"transparent huge page defrag", hc)) ||
	    (rc = field(ocpu, ncpu, "frequency_governor", "host.cpu", "CPU frequency governor",
			hc)) ||
	    (rc = topology(oh, nh, hc)))
		return rc;
	/* Only where both sides have the list: an older bundle without it changed nothing. */
	if ((rc = json_merge(jval__get(oc, "sysctl"), jval__get(nc, "sysctl"), "host.sysctl",
			     "sysctl", hc)) ||
	    (rc = json_merge(jval__get(oc, "modules"), jval__get(nc, "modules"), "host.modules",
			     "module", hc)))
		return rc;
	return json_merge(jval__get(oc, "failed_units"), jval__get(nc, "failed_units"),
			  "host.units", "failed unit", hc);
}

/* ---- what the captures hold ---- */

static int pseudo_fs(const char *fstype)
{
	static const char *const pseudo[] = {
		"proc", "sysfs", "cgroup", "cgroup2", "devpts", "debugfs", "tracefs", "securityfs",
		"pstore", "bpf", "mqueue", "configfs", "fusectl", "binfmt_misc", "nsfs",
		"rpc_pipefs", "selinuxfs", "efivarfs", "autofs", NULL,
	};

	for (const char *const *p = pseudo; *p; p++)
		if (!strcmp(*p, fstype))
			return 1;
	return 0;
}

/* The first mountinfo of the window: "MOUNT POINT\tFSTYPE SOURCE OPTIONS,SUPER" per mount. */
static int mounts_of(struct analysis *an, struct strv *out)
{
	const struct capture_stream *st = capture_set__stream(&an->cs, "proc.mounts");
	const struct capture_rec *r = NULL;

	for (size_t i = 0; st && i < st->n && !r; i++)
		if (!st->rec[i].err && !strcmp(st->rec[i].path, "/proc/self/mountinfo"))
			r = &st->rec[i];
	for (const char *p = r ? r->data : NULL, *end = p + (r ? r->len : 0); p && p < end;) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *dash;
		char line[4096], mnt[1024], opts[1024], fs[64], src[512], super[1024], out_l[4200];

		if (!eol)
			eol = end;
		snprintf(line, sizeof(line), "%.*s", (int)(eol - p), p);
		p = eol + 1;
		dash = strstr(line, " - ");
		if (!dash || sscanf(line, "%*s %*s %*s %*s %1023s %1023s", mnt, opts) != 2 ||
		    sscanf(dash + 3, "%63s %511s %1023s", fs, src, super) != 3 || pseudo_fs(fs))
			continue;
		diff__fold_ids(mnt);
		diff__fold_ids(src);
		snprintf(out_l, sizeof(out_l), "%s\t%s %s %s,%s", mnt, fs, src, opts, super);
		if (strv__push(out, out_l))
			return -ENOMEM;
	}
	qsort(out->v, out->n, sizeof(*out->v), by_str);
	return 0;
}

/* The limits each cgroup had at the window's start ("/system.slice/x memory.max\t512M"). */
static int limits_of(struct analysis *an, struct strv *out)
{
	static const char *const files[] = { "cpu.max", "memory.max", "pids.max",
					     "cpu.cfs_quota_us", "cpu.cfs_period_us",
					     "memory.limit_in_bytes", NULL };
	const struct capture_stream *st = capture_set__stream(&an->cs, "proc.cgroups");

	for (size_t i = 0; st && i < st->n; i++) {
		const struct capture_rec *r = &st->rec[i];
		const char *slash = strrchr(r->path, '/');
		char cg[1024], val[256], line[1400];
		size_t n;

		if (r->err || r->seq || !slash || strncmp(r->path, "/sys/fs/cgroup", 14))
			continue;
		for (n = 0; files[n] && strcmp(slash + 1, files[n]); n++)
			;
		if (!files[n])
			continue;
		snprintf(cg, sizeof(cg), "%.*s", (int)(slash - r->path - 14), r->path + 14);
		diff__fold_ids(cg);
		n = strcspn(r->data, "\n");
		snprintf(val, sizeof(val), "%.*s", (int)(n < r->len ? n : r->len), r->data);
		snprintf(line, sizeof(line), "%s %s\t%s", cg[0] ? cg : "/", slash + 1, val);
		if (strv__push(out, line))
			return -ENOMEM;
	}
	qsort(out->v, out->n, sizeof(*out->v), by_str);
	return 0;
}

int diff_host__facts(struct analysis *an, struct host_facts **out)
{
	struct host_facts *hf = calloc(1, sizeof(*hf));
	char line[1200];

	*out = hf;
	if (!hf)
		return -ENOMEM;
	if (host_context__read(&an->cs, &hf->hc))
		return -ENOMEM;
	hf->hc_read = 1;
	for (size_t i = 0; i < hf->hc.pkg_names.n; i++) {
		snprintf(line, sizeof(line), "%s\t%s", hf->hc.pkg_names.v[i],
			 hf->hc.pkg_versions.v[i]);
		if (strv__push(&hf->pkgs, line))
			return -ENOMEM;
	}
	qsort(hf->pkgs.v, hf->pkgs.n, sizeof(*hf->pkgs.v), by_str);
	if (mounts_of(an, &hf->mounts) || limits_of(an, &hf->limits))
		return -ENOMEM;
	return 0;
}

void diff_host__facts_free(struct host_facts *hf)
{
	if (!hf)
		return;
	if (hf->hc_read)
		host_context__free(&hf->hc);
	strv__free(&hf->pkgs);
	strv__free(&hf->mounts);
	strv__free(&hf->limits);
	free(hf);
}

int diff_host__sides(const struct diff_side *o, const struct diff_side *n,
		     struct host_changes *hc)
{
	const struct host_facts *a = o->host, *b = n->host;
	int rc = from_findings(o->doc, n->doc, hc);

	if (rc || !a || !b)
		return rc;
	/* a side that could not read its list changed nothing */
	if (a->hc.pkg_manager[0] && b->hc.pkg_manager[0] &&
	    (rc = kv_merge(&a->pkgs, &b->pkgs, "host.packages", "package", hc)))
		return rc;
	if (a->mounts.n && b->mounts.n && (rc = kv_merge(&a->mounts, &b->mounts, "host.mounts",
							  "mount", hc)))
		return rc;
	if (a->limits.n && b->limits.n)
		rc = kv_merge(&a->limits, &b->limits, "host.cgroup", "cgroup", hc);
	return rc;
}
