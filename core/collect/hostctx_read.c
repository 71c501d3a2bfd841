// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The host context as facts, from the host and host.context streams of a
 * window (live or from a bundle: the text is untrusted, every field is
 * bounded). What is missing stays unknown, with the reason where the capture
 * recorded one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/hostctx.h"
#include "util/parse.h"

/* The kernel's taint letters by bit (kernel/panic.c taint_flags), and what each means. */
static const struct taint {
	char letter;
	const char *meaning;
} taints[] = {
	{ 'P', "a proprietary module was loaded" },
	{ 'F', "a module was force-loaded" },
	{ 'S', "the kernel runs on an out-of-specification system" },
	{ 'R', "a module was force-unloaded" },
	{ 'M', "the processor reported a machine check" },
	{ 'B', "a bad page was referenced or some unexpected page flags seen" },
	{ 'U', "user space asked to taint the kernel" },
	{ 'D', "the kernel died recently (an oops or BUG)" },
	{ 'A', "an ACPI table was overridden" },
	{ 'W', "the kernel issued a warning" },
	{ 'C', "a staging driver was loaded" },
	{ 'I', "a workaround for a platform firmware bug is active" },
	{ 'O', "an externally-built (out-of-tree) module was loaded" },
	{ 'E', "an unsigned module was loaded" },
	{ 'L', "a soft lockup occurred" },
	{ 'K', "the kernel was live-patched" },
	{ 'X', "an auxiliary taint, defined by the distribution" },
	{ 'T', "the kernel was built with the struct randomization plugin" },
	{ 'N', "an in-kernel test was run" },
};

const char *host_context__taint_meaning(char letter)
{
	for (size_t i = 0; i < sizeof(taints) / sizeof(*taints); i++)
		if (taints[i].letter == letter)
			return taints[i].meaning;
	return NULL;
}

static const struct capture_rec *first_ok(const struct capture_stream *st, const char *path)
{
	for (size_t i = 0; st && i < st->n; i++)
		if (!st->rec[i].err && !strcmp(st->rec[i].path, path))
			return &st->rec[i];
	return NULL;
}

static const struct capture_rec *first_of(const struct capture_stream *st, const char *path)
{
	for (size_t i = 0; st && i < st->n; i++)
		if (!strcmp(st->rec[i].path, path))
			return &st->rec[i];
	return NULL;
}

/* A record's text, trimmed, control characters as '?', into buf. */
static void copy_text(char *buf, size_t len, const char *s, size_t n)
{
	size_t k = 0;

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	for (size_t i = 0; i < n && k + 1 < len; i++) {
		int ctl = (unsigned char)s[i] < 0x20 || s[i] == 0x7f;

		buf[k++] = !ctl ? s[i] : s[i] == '\t' ? ' ' : '?';
	}
	buf[k] = '\0';
}

static void rec_text(const struct capture_rec *r, char *buf, size_t len)
{
	buf[0] = '\0';
	if (r)
		copy_text(buf, len, r->data, r->len);
}

/* A record's lines, one at a time (the last may lack its newline). */
struct lines {
	const char *p, *end;
};

static struct lines lines_of(const struct capture_rec *r)
{
	return (struct lines){ r ? r->data : NULL, r ? r->data + r->len : NULL };
}

static int next_line(struct lines *it, const char **line, size_t *n)
{
	const char *eol;

	if (!it->p || it->p >= it->end)
		return 0;
	eol = memchr(it->p, '\n', (size_t)(it->end - it->p));
	*line = it->p;
	*n = eol ? (size_t)(eol - it->p) : (size_t)(it->end - it->p);
	it->p = eol ? eol + 1 : it->end;
	return 1;
}

/* The value of KEY= in os-release, unquoted. */
static void os_release(const struct capture_rec *r, char *buf, size_t len)
{
	const char *keys[] = { "PRETTY_NAME=", "NAME=" };

	buf[0] = '\0';
	for (size_t k = 0; r && k < 2 && !buf[0]; k++) {
		struct lines it = lines_of(r);
		size_t kl = strlen(keys[k]), n;
		const char *p;

		while (next_line(&it, &p, &n)) {
			if (n <= kl || strncmp(p, keys[k], kl))
				continue;
			p += kl;
			n -= kl;
			if (n >= 2 && (*p == '"' || *p == '\'') && p[n - 1] == *p) {
				p++;
				n -= 2;
			}
			copy_text(buf, len, p, n);
			break;
		}
	}
}

/* "always [madvise] never" -> "madvise" */
static void selected_word(const struct capture_rec *r, char *buf, size_t len)
{
	char all[256];
	const char *open, *close;

	rec_text(r, all, sizeof(all));
	if ((open = strchr(all, '[')) && (close = strchr(open, ']')))
		snprintf(buf, len, "%.*s", (int)(close - open - 1), open + 1);
	else
		snprintf(buf, len, "%s", all);
}

static int push(struct strv *sv, const char *s, size_t n)
{
	char tmp[1024];

	copy_text(tmp, sizeof(tmp), s, n);
	return strv__push(sv, tmp);
}

/* Each line's first word (module names, unit names). */
static int first_words(const struct capture_rec *r, struct strv *out)
{
	struct lines it = lines_of(r);
	const char *p;
	size_t n;

	while (next_line(&it, &p, &n)) {
		size_t lead = strspn(p, " "), w;

		if (lead >= n)
			continue;
		w = strcspn(p + lead, " \t\n");
		if (w && lead + w <= n && push(out, p + lead, w))
			return -ENOMEM;
	}
	return 0;
}

static void read_cpuinfo(const struct capture_stream *host, struct host_context *hc)
{
	struct lines it = lines_of(first_ok(host, "/proc/cpuinfo"));
	int flags_done = 0;
	const char *p;
	size_t n;

	while (next_line(&it, &p, &n)) {
		const char *colon = memchr(p, ':', n);

		if (colon && !strncmp(p, "processor", 9))
			hc->cpus++;
		if (colon && !hc->cpu_model[0] && !strncmp(p, "model name", 10)) {
			const char *v = colon + 1 + strspn(colon + 1, " \t");

			if (v < p + n)
				copy_text(hc->cpu_model, sizeof(hc->cpu_model), v,
					  (size_t)(p + n - v));
		}
		/* x86 "flags", arm64 "Features": the first processor's. */
		if (colon && !flags_done &&
		    (!strncmp(p, "flags", 5) || !strncmp(p, "Features", 8))) {
			for (const char *f = colon + 1; f < p + n;) {
				size_t w;

				f += strspn(f, " \t");
				w = strcspn(f, " \t\n");
				if (!w)
					break;
				if (push(&hc->cpu_flags, f, w))
					break;
				f += w;
			}
			flags_done = 1;
		}
	}
}

/* "MemTotal: 16083148 kB" of a node's meminfo, in kB as it says. */
static int node_mem_total(const char *k, size_t kl, const char *v, size_t vl, void *arg)
{
	if (kl != 8 || memcmp(k, "MemTotal", 8))
		return 0;
	parse_kv_u64(v, vl, 0, arg);
	return 1;
}

static void read_numa(const struct capture_stream *st, struct host_context *hc)
{
	struct lines it = lines_of(first_ok(st, "/sys/devices/system/node"));
	char path[256], name[64];
	const char *p;
	size_t n;

	while (next_line(&it, &p, &n)) {
		struct host_numa_node *nn, *grown;
		const struct capture_rec *r;

		int id = parse_numbered_name(p, n, "node");

		if (id < 0 || n >= sizeof(name) || hc->nnuma >= 1024)
			break;
		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		grown = realloc(hc->numa, (hc->nnuma + 1) * sizeof(*hc->numa));
		if (!grown)
			break;
		hc->numa = grown;
		nn = memset(&hc->numa[hc->nnuma++], 0, sizeof(*nn));
		nn->id = id;
		snprintf(path, sizeof(path), "/sys/devices/system/node/%s/cpulist", name);
		rec_text(first_ok(st, path), nn->cpus, sizeof(nn->cpus));
		snprintf(path, sizeof(path), "/sys/devices/system/node/%s/distance", name);
		rec_text(first_ok(st, path), nn->distance, sizeof(nn->distance));
		snprintf(path, sizeof(path), "/sys/devices/system/node/%s/meminfo", name);
		if ((r = first_ok(st, path)))
			parse_node_meminfo(r->data, r->len, node_mem_total, &nn->mem_kb);
	}
}

struct sysctl_pair {
	char name[256], value[1024];
};

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct sysctl_pair *)a)->name, ((const struct sysctl_pair *)b)->name);
}

/* Every /proc/sys record of the stream, dotted and sorted (kernel.tainted is shown apart). */
static int read_sysctls(const struct capture_stream *st, struct host_context *hc)
{
	struct sysctl_pair *p = st && st->n ? calloc(st->n, sizeof(*p)) : NULL;
	size_t n = 0;
	int rc = 0;

	for (size_t i = 0; p && i < st->n; i++) {
		const struct capture_rec *r = &st->rec[i];
		char *o;

		if (r->err || strncmp(r->path, "/proc/sys/", 10) ||
		    !strcmp(r->path, "/proc/sys/kernel/tainted"))
			continue;
		snprintf(p[n].name, sizeof(p[n].name), "%s", r->path + 10);
		for (char *c = p[n].name; *c; c++)
			*c = *c == '/' ? '.' : *c;
		copy_text(p[n].value, sizeof(p[n].value), r->data, r->len);
		/* tcp_rmem is "4096\t131072\t6291456": one space between words. */
		o = p[n].value;
		for (char *c = p[n].value;; c++) {
			if (*c == ' ' && o > p[n].value && o[-1] == ' ')
				continue;
			if (!(*o++ = *c))
				break;
		}
		n++;
	}
	if (n)
		qsort(p, n, sizeof(*p), by_name);
	for (size_t i = 0; i < n && !rc; i++) {
		/* A file read twice (it should not be) is listed once. */
		if (i && !strcmp(p[i].name, p[i - 1].name))
			continue;
		if (!(rc = strv__push(&hc->sysctl_names, p[i].name)) &&
		    (rc = strv__push(&hc->sysctl_values, p[i].value)))
			free(hc->sysctl_names.v[--hc->sysctl_names.n]);
	}
	free(p);
	return st && st->n && !p ? -ENOMEM : rc;
}

/* A line of /dev/kmsg into hc->kmsg: a record as "[5.678901] text", another line as it is. */
static int kmsg_line(const struct kmsg_line *k, void *arg)
{
	struct host_context *hc = arg;
	char line[1200];
	int used;

	/* The dictionary lines (" SUBSYSTEM=...") are the record's, not text. */
	if (!k->line.n || k->kind == KMSG_DICT)
		return 0;
	if (k->kind == KMSG_RECORD) {
		used = snprintf(line, sizeof(line), "[%llu.%06llu] ",
				(unsigned long long)(k->usec / 1000000),
				(unsigned long long)(k->usec % 1000000));
		copy_text(line + used, sizeof(line) - (size_t)used, k->text.p, k->text.n);
	} else {
		copy_text(line, sizeof(line), k->line.p, k->line.n);
	}
	return strv__push(&hc->kmsg, line) ? -ENOMEM : 0;
}

/* /dev/kmsg records ("6,1234,5678901,-;text") as "[5.678901] text"; other lines as they are. */
static int read_kmsg(const struct capture_stream *st, struct host_context *hc)
{
	const struct capture_rec *r = first_of(st, "/dev/kmsg");

	if (!r) {
		snprintf(hc->kmsg_why, sizeof(hc->kmsg_why), "not collected");
		return 0;
	}
	if (r->err) {
		int denied = r->err == EPERM || r->err == EACCES;

		snprintf(hc->kmsg_why, sizeof(hc->kmsg_why), "/dev/kmsg: %s%s", strerror(r->err),
			 denied ? " (reading it needs CAP_SYSLOG)" : "");
		return 0;
	}
	return parse_kmsg(r->data, r->len, kmsg_line, hc);
}

static void read_failed(const struct capture_stream *st, struct host_context *hc)
{
	const struct capture_rec *r = first_of(st, HOSTCTX_FAILED_UNITS);

	if (first_of(st, "/run/systemd/system")) {
		snprintf(hc->failed_why, sizeof(hc->failed_why),
			 "the host was not booted with systemd (no /run/systemd/system)");
		return;
	}
	if (!r) {
		snprintf(hc->failed_why, sizeof(hc->failed_why), "not collected");
		return;
	}
	if (r->err == ETIMEDOUT)
		snprintf(hc->failed_why, sizeof(hc->failed_why),
			 "systemctl did not answer within 2 s");
	else if (r->err == ENOENT)
		snprintf(hc->failed_why, sizeof(hc->failed_why), "no systemctl in PATH");
	else if (r->err)
		snprintf(hc->failed_why, sizeof(hc->failed_why), "systemctl list-units failed: %s",
			 strerror(r->err));
	else if (first_words(r, &hc->failed_units))
		snprintf(hc->failed_why, sizeof(hc->failed_why), "out of memory");
}

/* The next line of the record at *p (tab-split into at most 3 fields); 0 at its end. */
static int pkg_line(const char **p, const char *end, const char *f[3], size_t n[3])
{
	const char *eol;

	if (*p >= end)
		return 0;
	eol = memchr(*p, '\n', (size_t)(end - *p));
	if (!eol)
		eol = end;
	for (int i = 0; i < 3; i++) {
		const char *tab = i < 2 ? memchr(*p, '\t', (size_t)(eol - *p)) : NULL;

		f[i] = *p;
		n[i] = (size_t)((tab ? tab : eol) - *p);
		*p = tab ? tab + 1 : eol;
	}
	*p = eol + 1;
	return 1;
}

/* The installed packages: "manager M", then "NAME\tVERSION\tARCH" lines, sorted by name. */
static int read_packages(const struct capture_stream *st, struct host_context *hc)
{
	const struct capture_rec *r = first_of(st, HOSTCTX_PACKAGES);
	const char *p, *end, *f[3], *pf[3] = { "", "", "" }, *nf[3] = { "", "", "" };
	size_t n[3], pn[3] = { 0 }, nn[3] = { 0 };
	int have_prev = 0, prev_shared = 0;
	char name[512], ver[256];

	if (!r) {
		snprintf(hc->pkg_why, sizeof(hc->pkg_why), "not collected (an older sonde)");
		return 0;
	}
	if (r->err) {
		snprintf(hc->pkg_why, sizeof(hc->pkg_why), "%s",
			 r->err == ENOENT ? "no package database (dpkg or rpm)" : strerror(r->err));
		return 0;
	}
	p = r->data;
	end = r->data + r->len;
	if (!pkg_line(&p, end, f, n) || n[0] < 9 || strncmp(f[0], "manager ", 8)) {
		snprintf(hc->pkg_why, sizeof(hc->pkg_why), "a record without its manager line");
		return 0;
	}
	copy_text(hc->pkg_manager, sizeof(hc->pkg_manager), f[0] + 8, n[0] - 8);
	/* one line behind: a name shared with the next line (another architecture) says its arch */
	for (int more = 1; more;) {
		more = pkg_line(&p, end, nf, nn);
		if (have_prev) {
			int shared_next = more && nn[0] == pn[0] && !memcmp(nf[0], pf[0], pn[0]);

			if (shared_next || prev_shared)
				snprintf(name, sizeof(name), "%.*s:%.*s", (int)pn[0], pf[0],
					 (int)pn[2], pf[2]);
			else
				snprintf(name, sizeof(name), "%.*s", (int)pn[0], pf[0]);
			copy_text(ver, sizeof(ver), pf[1], pn[1]);
			if (strv__push(&hc->pkg_names, name) || strv__push(&hc->pkg_versions, ver))
				return -ENOMEM;
			prev_shared = shared_next;
		}
		memcpy(pf, nf, sizeof(pf));
		memcpy(pn, nn, sizeof(pn));
		have_prev = more && nn[0] > 0;
	}
	return 0;
}

static void read_cgroup(const struct capture_stream *st, struct host_context *hc)
{
	const struct capture_rec *list = first_ok(st, "/sys/fs/cgroup");

	if (first_ok(st, "/sys/fs/cgroup/cgroup.controllers"))
		snprintf(hc->cgroup, sizeof(hc->cgroup), "v2");
	else if (first_ok(st, "/sys/fs/cgroup/unified/cgroup.controllers"))
		snprintf(hc->cgroup, sizeof(hc->cgroup), "hybrid (v1 and v2)");
	else if (list && (strstr(list->data, "memory\n") || strstr(list->data, "cpu\n") ||
			  strstr(list->data, "cpu,cpuacct\n")))
		snprintf(hc->cgroup, sizeof(hc->cgroup), "v1");
}

int host_context__read(struct capture_set *cs, struct host_context *hc)
{
	const struct capture_stream *st = capture_set__stream(cs, HOSTCTX_STREAM);
	const struct capture_stream *host = capture_set__stream(cs, "host");
	const struct capture_rec *r;

	memset(hc, 0, sizeof(*hc));
	hc->tainted = -1;
	hc->uptime_s = -1;
	rec_text(first_ok(host, "/proc/sys/kernel/osrelease"), hc->kernel, sizeof(hc->kernel));
	rec_text(first_ok(host, "/proc/sys/kernel/version"), hc->kernel_build,
		 sizeof(hc->kernel_build));
	if ((r = first_ok(host, "/proc/uptime")))
		parse_uptime(r->data, r->len, &hc->uptime_s, NULL);
	read_cpuinfo(host, hc);
	if (!st)
		return 0;
	hc->collected = 1;
	r = first_ok(st, "/etc/os-release");
	os_release(r ? r : first_ok(st, "/usr/lib/os-release"), hc->os, sizeof(hc->os));
	if ((r = first_ok(st, "/proc/cmdline"))) {
		char tmp[4096];

		copy_text(tmp, sizeof(tmp), r->data, r->len);
		hc->cmdline = strdup(tmp);
	}
	if ((r = first_ok(st, "/proc/sys/kernel/tainted"))) {
		uint64_t tainted;
		size_t k = 0;

		/* an unsigned long of flags; -1 stays "unknown" when it is no number */
		if (!parse_value_u64(r->data, r->len, &tainted) && tainted <= INT64_MAX)
			hc->tainted = (int64_t)tainted;
		for (size_t b = 0; hc->tainted > 0 && b < sizeof(taints) / sizeof(*taints); b++)
			if (hc->tainted & (1LL << b) && k + 1 < sizeof(hc->taint_flags))
				hc->taint_flags[k++] = taints[b].letter;
		hc->taint_flags[k] = '\0';
	}
	if ((r = first_ok(st, "/proc/modules"))) {
		hc->modules_known = 1;
		if (first_words(r, &hc->modules))
			return -ENOMEM;
	} else if ((r = first_of(st, "/proc/modules")) && r->err == ENOENT) {
		/* A kernel built without loadable modules has no /proc/modules: none loaded. */
		hc->modules_known = 1;
	}
	read_cgroup(st, hc);
	selected_word(first_ok(st, "/sys/kernel/mm/transparent_hugepage/enabled"), hc->thp,
		      sizeof(hc->thp));
	selected_word(first_ok(st, "/sys/kernel/mm/transparent_hugepage/defrag"), hc->thp_defrag,
		      sizeof(hc->thp_defrag));
	rec_text(first_ok(st, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
		 hc->governor, sizeof(hc->governor));
	read_numa(st, hc);
	read_failed(st, hc);
	if (read_sysctls(st, hc) || read_kmsg(st, hc) || read_packages(st, hc))
		return -ENOMEM;
	return 0;
}

void host_context__free(struct host_context *hc)
{
	free(hc->cmdline);
	free(hc->numa);
	strv__free(&hc->modules);
	strv__free(&hc->cpu_flags);
	strv__free(&hc->sysctl_names);
	strv__free(&hc->sysctl_values);
	strv__free(&hc->kmsg);
	strv__free(&hc->failed_units);
	strv__free(&hc->pkg_names);
	strv__free(&hc->pkg_versions);
	memset(hc, 0, sizeof(*hc));
}
