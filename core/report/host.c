// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The host, as sos would describe it: the report's Host section and
 * findings.json's host.context, both from the host context of the window's
 * captures (collect/hostctx.h), read once when the model is built. What the
 * host did not show is said, with the reason.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/model.h"
#include "util/json.h"

static void fact(struct block *t, const char *name, const char *value, const char *unknown)
{
	inl__words(doc__cell(t, CELL_PLAIN), "%s", name);
	if (value && *value)
		inl__text(doc__cell(t, CELL_PLAIN), value);
	else
		inl__words(doc__cell(t, CELL_UNKNOWN), "%s", unknown ? unknown : "unknown");
}

static void taint_text(const struct host_context *hc, char *buf, size_t len)
{
	size_t n = 0;

	if (hc->tainted < 0) {
		buf[0] = '\0';
		return;
	}
	if (!hc->tainted) {
		snprintf(buf, len, "not tainted (0)");
		return;
	}
	n = (size_t)snprintf(buf, len, "%lld:", (long long)hc->tainted);
	for (const char *f = hc->taint_flags; *f && n < len; f++) {
		const char *why = host_context__taint_meaning(*f);

		n += (size_t)snprintf(buf + n, len - n, "%s %c (%s)",
				      f == hc->taint_flags ? "" : ";", *f, why ? why : "?");
	}
}

/* "a b c" of a vector, at most max bytes. */
static void joined(const struct strv *sv, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sv->n && n + 1 < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? " " : "", sv->v[i]);
}

static void doc_numa(struct doc *d, const struct host_context *hc)
{
	static const char *const head[] = { "node", "CPUs", "memory", "distances" };
	struct block *t;

	if (hc->nnuma < 2) {
		inl__words(doc__para(d), "NUMA: %s.",
			   hc->nnuma ? "one node" :
				       "no NUMA nodes shown by /sys/devices/system/node");
		return;
	}
	t = doc__table_head(d, "lllr", head);
	for (size_t i = 0; i < hc->nnuma; i++) {
		inl__words(doc__cell(t, CELL_PLAIN), "%d", hc->numa[i].id);
		inl__text(doc__cell(t, CELL_PLAIN), hc->numa[i].cpus);
		inl__words(doc__cell(t, CELL_PLAIN), "%.1f GiB",
			   (double)hc->numa[i].mem_kb / (1024.0 * 1024.0));
		inl__text(doc__cell(t, CELL_PLAIN), hc->numa[i].distance);
	}
}

/* The facts one a row, then NUMA, failed units, the kernel log's tail and the sysctls. */
/* Where sonde ran, and what it could not see from there (collect/analysis_observer.c). */
static void doc_observer(struct report_model *m, struct block *t)
{
	struct observer o;
	struct strv lim = { 0 };
	char buf[512];

	if (analysis__observer(m->rr->an, &o))
		return;
	observer__where(&o, buf, sizeof(buf));
	fact(t, "sonde ran", buf, NULL);
	observer__limits(m->rr->an, &o, &lim);
	for (size_t i = 0; i < lim.n; i++) {
		struct inlines *in = doc__para(&m->doc);

		inl__words(in, "What sonde could not see: ");
		inl__text(in, lim.v[i]);
	}
	strv__free(&lim);
}

void report__doc_host(struct report_model *m)
{
	const struct host_context *hc = &m->host;
	static const char *const head[] = { "fact", "value" };
	char buf[8192];
	struct strbuf sb = { 0 };
	struct block *t;

	inl__words(doc__heading(&m->doc, 2, NULL), "Host");
	if (!hc->collected)
		inl__words(doc__para(&m->doc),
			   "These captures hold no host context (raw/%s.cap): they were taken "
			   "by an older sonde. What the host stream says:",
			   HOSTCTX_STREAM);
	t = doc__table_head(&m->doc, "ll", head);
	if (hc->collected)
		fact(t, "OS", hc->os, NULL);
	fact(t, "kernel", hc->kernel, NULL);
	fact(t, "kernel build", hc->kernel_build, NULL);
	if (hc->collected) {
		fact(t, "kernel command line", hc->cmdline, NULL);
		taint_text(hc, buf, sizeof(buf));
		fact(t, "kernel taint", buf, NULL);
	}
	if (hc->uptime_s >= 2 * 86400)
		snprintf(buf, sizeof(buf), "%.0f days %.0f h", floor(hc->uptime_s / 86400),
			 floor(fmod(hc->uptime_s, 86400) / 3600));
	else
		snprintf(buf, sizeof(buf), "%.0f h %.0f min", floor(hc->uptime_s / 3600),
			 floor(fmod(hc->uptime_s, 3600) / 60));
	fact(t, "uptime", hc->uptime_s >= 0 ? buf : NULL, NULL);
	fact(t, "CPU model", hc->cpu_model, NULL);
	snprintf(buf, sizeof(buf), "%d", hc->cpus);
	fact(t, "processors", hc->cpus ? buf : NULL, NULL);
	joined(&hc->cpu_flags, buf, sizeof(buf));
	fact(t, "CPU flags", buf, NULL);
	doc_observer(m, t);
	if (!hc->collected)
		return;
	fact(t, "cgroups", hc->cgroup, NULL);
	fact(t, "transparent huge pages", hc->thp, "not shown (a kernel without THP)");
	fact(t, "THP defrag", hc->thp_defrag, "not shown");
	fact(t, "CPU frequency governor", hc->governor,
	     "none (no cpufreq driver: a VM, or a fixed frequency)");
	snprintf(buf, sizeof(buf), "%zu", hc->modules.n);
	fact(t, "modules loaded", hc->modules_known ? buf : NULL, NULL);
	snprintf(buf, sizeof(buf), "%zu (%s)", hc->pkg_names.n, hc->pkg_manager);
	fact(t, "packages installed", hc->pkg_manager[0] ? buf : NULL, hc->pkg_why);
	if (hc->failed_why[0])
		fact(t, "failed systemd units", NULL, hc->failed_why);
	else if (!hc->failed_units.n)
		fact(t, "failed systemd units", "none", NULL);
	else {
		joined(&hc->failed_units, buf, sizeof(buf));
		inl__words(doc__cell(t, CELL_PLAIN), "failed systemd units");
		inl__text(doc__cell(t, CELL_WARN), buf);
	}
	doc_numa(&m->doc, hc);

	if (hc->modules.n) {
		inl__words(doc__para(&m->doc), "Modules loaded:");
		joined(&hc->modules, buf, sizeof(buf));
		/* long lists behind a fold in HTML (the page stays short); Markdown shows them */
		inl__words(doc__fold(&m->doc), "the %zu modules", hc->modules.n);
		doc__code(&m->doc, buf);
		doc__fold_end(&m->doc);
	}
	inl__words(doc__para(&m->doc), "The last %zu lines of the kernel log%s%s:", hc->kmsg.n,
		   hc->kmsg_why[0] ? ": " : "", hc->kmsg_why);
	for (size_t i = 0; i < hc->kmsg.n; i++)
		strbuf__printf(&sb, "%s\n", hc->kmsg.v[i]);
	if (sb.len) {
		inl__words(doc__fold(&m->doc), "the %zu lines", hc->kmsg.n);
		doc__code(&m->doc, sb.buf);
		doc__fold_end(&m->doc);
	}
	strbuf__free(&sb);
	inl__words(doc__para(&m->doc),
		   "Sysctls (%zu: vm, net.core, net.ipv4.tcp_*, kernel.sched_*, fs limits):",
		   hc->sysctl_names.n);
	for (size_t i = 0; i < hc->sysctl_names.n; i++)
		strbuf__printf(&sb, "%s = %s\n", hc->sysctl_names.v[i], hc->sysctl_values.v[i]);
	if (sb.len) {
		inl__words(doc__fold(&m->doc), "the %zu sysctls", hc->sysctl_names.n);
		doc__code(&m->doc, sb.buf);
		doc__fold_end(&m->doc);
	}
	strbuf__free(&sb);
}

/*
 * A fact of the host context or of the observer: both keep "" for one that
 * could not be read, which findings.json says as null (json__kv_str writes
 * "" as "").
 */
static void kv_fact(struct json *j, const char *k, const char *v)
{
	json__kv_str(j, k, v && *v ? v : NULL);
}

/* findings.json's host.context (docs/findings-schema.md); null where unknown. */
void report__json_observer(struct json *j, struct analysis *an)
{
	struct observer o;
	struct strv lim = { 0 };
	char buf[512];

	if (analysis__observer(an, &o))
		return;
	json__key(j, "observer");
	json__begin_object(j);
	kv_fact(j, "pid_namespace", o.pid_ns);
	kv_fact(j, "cgroup_namespace", o.cgroup_ns);
	kv_fact(j, "container", o.container);
	if (o.has_caps) {
		snprintf(buf, sizeof(buf), "%016llx", (unsigned long long)o.cap_eff);
		kv_fact(j, "cap_eff", buf);
	}
	observer__where(&o, buf, sizeof(buf));
	kv_fact(j, "summary", buf);
	observer__limits(an, &o, &lim);
	json__kv_strv(j, "cannot_see", &lim);
	json__end_object(j);
	strv__free(&lim);
}

void report__json_host_context(struct json *j, const struct host_context *hc)
{
	json__key(j, "context");
	if (!hc->collected) {
		json__null(j);
		return;
	}
	json__begin_object(j);
	kv_fact(j, "os", hc->os);
	kv_fact(j, "kernel_build", hc->kernel_build);
	kv_fact(j, "kernel_cmdline", hc->cmdline);
	json__key(j, "tainted");
	if (hc->tainted >= 0)
		json__int(j, hc->tainted);
	else
		json__null(j);
	kv_fact(j, "taint_flags", hc->tainted > 0 ? hc->taint_flags : NULL);
	json__key(j, "uptime_seconds");
	if (hc->uptime_s >= 0)
		json__number(j, hc->uptime_s);
	else
		json__null(j);
	kv_fact(j, "cgroup", hc->cgroup);
	kv_fact(j, "transparent_hugepage", hc->thp);
	kv_fact(j, "transparent_hugepage_defrag", hc->thp_defrag);
	json__key(j, "cpu");
	json__begin_object(j);
	kv_fact(j, "model", hc->cpu_model);
	json__key(j, "processors");
	json__int(j, hc->cpus);
	kv_fact(j, "frequency_governor", hc->governor);
	json__kv_strv(j, "flags", &hc->cpu_flags);
	json__key(j, "numa");
	json__begin_array(j);
	for (size_t i = 0; i < hc->nnuma; i++) {
		json__begin_object(j);
		json__key(j, "node");
		json__int(j, hc->numa[i].id);
		kv_fact(j, "cpus", hc->numa[i].cpus);
		json__key(j, "mem_bytes");
		json__int(j, (int64_t)hc->numa[i].mem_kb * 1024);
		kv_fact(j, "distance", hc->numa[i].distance);
		json__end_object(j);
	}
	json__end_array(j);
	json__end_object(j);
	if (hc->modules_known)
		json__kv_strv(j, "modules", &hc->modules);
	else
		kv_fact(j, "modules", NULL);
	if (hc->failed_why[0])
		kv_fact(j, "failed_units", NULL);
	else
		json__kv_strv(j, "failed_units", &hc->failed_units);
	kv_fact(j, "failed_units_unknown", hc->failed_why);
	/* how many, not the list (raw/host.context.cap has it; sonde diff compares it) */
	json__key(j, "packages");
	if (hc->pkg_manager[0]) {
		json__begin_object(j);
		kv_fact(j, "manager", hc->pkg_manager);
		json__key(j, "installed");
		json__int(j, (int64_t)hc->pkg_names.n);
		json__end_object(j);
	} else {
		json__null(j);
	}
	kv_fact(j, "packages_unknown", hc->pkg_why);
	json__kv_strv(j, "kernel_log", &hc->kmsg);
	kv_fact(j, "kernel_log_unknown", hc->kmsg_why);
	json__key(j, "sysctl");
	json__begin_object(j);
	for (size_t i = 0; i < hc->sysctl_names.n; i++) {
		json__key(j, hc->sysctl_names.v[i]);
		json__string(j, hc->sysctl_values.v[i]);
	}
	json__end_object(j);
	json__end_object(j);
}
