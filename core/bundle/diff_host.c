// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sonde diff, the host: what changed in the host's configuration between two
 * findings.json (host.kernel and host.context, docs/findings-schema.md): the
 * kernel release, build, command line and taint, the OS, the cgroup version,
 * the CPU model, transparent huge pages and the frequency governor, every
 * sysctl, the modules loaded and the units failed. Each change is one
 * finding of the diff: a slower host after a kernel update or a sysctl
 * change is the first thing to know. Both documents are untrusted: sorted
 * merges, never a search per key, so a document at the reader's limits
 * costs n log n.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/diff.h"
#include "util/strbuf.h"
#include "util/json_read.h"

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

static int add(struct strv *checks, struct strv *lines, const char *check, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int add(struct strv *checks, struct strv *lines, const char *check, const char *fmt, ...)
{
	char line[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (strv__push(checks, check))
		return -ENOMEM;
	if (strv__push(lines, line)) {
		free(checks->v[--checks->n]);
		return -ENOMEM;
	}
	return 0;
}

/* A field of both sides that differs (a side without it: nothing to compare). */
static int field(const struct jval *o, const struct jval *n, const char *key, const char *check,
		 const char *label, struct strv *checks, struct strv *lines)
{
	char a[1024], b[1024];

	if (!value_text(jval__get(o, key), a, sizeof(a)) ||
	    !value_text(jval__get(n, key), b, sizeof(b)) || !strcmp(a, b))
		return 0;
	return add(checks, lines, check, "%s: %s -> %s", label, a, b);
}

struct kv {
	const char *key;
	const struct jval *val;
};

static int by_key(const void *a, const void *b)
{
	return strcmp(((const struct kv *)a)->key, ((const struct kv *)b)->key);
}

/* An object's members (or an array's strings as keys), sorted; NULL with *n 0 when none. */
static struct kv *sorted(const struct jval *v, size_t *n)
{
	struct kv *kv;

	*n = 0;
	if (!v || (v->type != J_OBJECT && v->type != J_ARRAY) || !v->len)
		return NULL;
	kv = calloc(v->len, sizeof(*kv));
	if (!kv)
		return NULL;
	for (size_t i = 0; i < v->len; i++) {
		if (v->type == J_OBJECT)
			kv[*n] = (struct kv){ v->keys[i], &v->items[i] };
		else if (v->items[i].type == J_STRING)
			kv[*n] = (struct kv){ v->items[i].str, NULL };
		else
			continue;
		(*n)++;
	}
	qsort(kv, *n, sizeof(*kv), by_key);
	return kv;
}

/*
 * Two objects (sysctls: changed, set, gone) or two arrays of names (modules,
 * failed units: added, removed) merged in key order.
 */
static int merge(const struct jval *o, const struct jval *n, const char *check, const char *label,
		 struct strv *checks, struct strv *lines)
{
	size_t no, nn, i = 0, k = 0;
	struct kv *a = sorted(o, &no), *b = sorted(n, &nn);
	char va[1024], vb[1024];
	int rc = 0;

	if ((o && o->len && !a) || (n && n->len && !b))
		rc = -ENOMEM;
	while (!rc && (i < no || k < nn)) {
		int c = i == no ? 1 : k == nn ? -1 : strcmp(a[i].key, b[k].key);

		if (c < 0) {
			rc = add(checks, lines, check, "%s %s: %s", label, a[i].key,
				 a[i].val ? "gone" : "removed");
			i++;
		} else if (c > 0) {
			const char *key = b[k].key;

			if (b[k].val && value_text(b[k].val, vb, sizeof(vb)))
				rc = add(checks, lines, check, "%s %s: set to %s", label, key, vb);
			else if (!b[k].val)
				rc = add(checks, lines, check, "%s %s: added", label, key);
			k++;
		} else {
			const char *key = a[i].key;

			if (a[i].val && value_text(a[i].val, va, sizeof(va)) &&
			    value_text(b[k].val, vb, sizeof(vb)) && strcmp(va, vb))
				rc = add(checks, lines, check, "%s %s: %s -> %s", label, key, va,
					 vb);
			i++;
			k++;
		}
	}
	free(a);
	free(b);
	return rc;
}

int diff_host__compare(const struct jval *old_doc, const struct jval *new_doc,
		       struct strv *checks, struct strv *lines)
{
	const struct jval *oh = jval__get(old_doc, "host"), *nh = jval__get(new_doc, "host");
	const struct jval *oc = jval__get(oh, "context"), *nc = jval__get(nh, "context");
	const struct jval *ocpu = jval__get(oc, "cpu"), *ncpu = jval__get(nc, "cpu");
	int rc;

	if ((rc = field(oh, nh, "kernel", "host.kernel", "kernel release", checks, lines)) ||
	    (rc = field(oc, nc, "kernel_build", "host.kernel", "kernel build", checks, lines)) ||
	    (rc = field(oc, nc, "kernel_cmdline", "host.kernel", "kernel command line", checks,
			lines)) ||
	    (rc = field(oc, nc, "tainted", "host.kernel", "kernel taint", checks, lines)) ||
	    (rc = field(oc, nc, "os", "host.os", "OS", checks, lines)) ||
	    (rc = field(oc, nc, "cgroup", "host.cgroup", "cgroup version", checks, lines)) ||
	    (rc = field(ocpu, ncpu, "model", "host.cpu", "CPU model", checks, lines)) ||
	    (rc = field(oc, nc, "transparent_hugepage", "host.memory", "transparent huge pages",
			checks, lines)) ||
	    (rc = field(oc, nc, "transparent_hugepage_defrag", "host.memory",
			"transparent huge page defrag", checks, lines)) ||
	    (rc = field(ocpu, ncpu, "frequency_governor", "host.cpu", "CPU frequency governor",
			checks, lines)))
		return rc;
	/* Only where both sides have the list: an older bundle without it changed nothing. */
	if (jval__get(oc, "sysctl") && jval__get(nc, "sysctl") &&
	    (rc = merge(jval__get(oc, "sysctl"), jval__get(nc, "sysctl"), "host.sysctl", "sysctl",
			checks, lines)))
		return rc;
	if (jval__get(oc, "modules") && jval__get(nc, "modules") &&
	    (rc = merge(jval__get(oc, "modules"), jval__get(nc, "modules"), "host.modules",
			"module", checks, lines)))
		return rc;
	if (jval__get(oc, "failed_units") && jval__get(nc, "failed_units") &&
	    jval__get(oc, "failed_units")->type == J_ARRAY &&
	    jval__get(nc, "failed_units")->type == J_ARRAY)
		rc = merge(jval__get(oc, "failed_units"), jval__get(nc, "failed_units"),
			   "host.units", "failed unit", checks, lines);
	return rc;
}
