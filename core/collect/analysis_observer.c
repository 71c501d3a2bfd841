// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Where sonde ran (the observer_* run facts, collect/observer.c) and what it
 * could not see from there: the report's Host section and findings.json say
 * it in these words, so that a container's view never passes for the host's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/analysis.h"
#include "util/parse.h"

/* capability numbers (include/uapi/linux/capability.h) */
#define CAP_SYS_PTRACE 19
#define CAP_SYS_ADMIN 21
#define CAP_PERFMON 38
#define CAP_BPF 39

static int has_cap(const struct observer *o, int cap)
{
	return (o->cap_eff >> cap) & 1;
}

/* A line of sonde:run (parse_kv): the observer_* facts, each a word but cap_eff, a hex mask. */
static int observer_fact(const char *k, size_t kl, const char *v, size_t vl, void *arg)
{
	struct observer *o = arg;
	struct parse_word key = { k, kl };
	int n = 0;

	/* the fact is its first word (parse_kv trimmed the blanks around it) */
	while ((size_t)n < vl && n < 64 && v[n] != ' ' && v[n] != '\t')
		n++;
	if (parse_word_is_str(key, "observer_pid_ns"))
		snprintf(o->pid_ns, sizeof(o->pid_ns), "%.*s", n < 7 ? n : 7, v);
	else if (parse_word_is_str(key, "observer_cgroup_ns"))
		snprintf(o->cgroup_ns, sizeof(o->cgroup_ns), "%.*s", n < 7 ? n : 7, v);
	else if (parse_word_is_str(key, "observer_container"))
		snprintf(o->container, sizeof(o->container), "%.*s", n < 23 ? n : 23, v);
	else if (parse_word_is_str(key, "observer_cap_eff") && !parse_kv_hex(v, vl, &o->cap_eff))
		o->has_caps = 1;
	return 0;
}

int analysis__observer(struct analysis *an, struct observer *o)
{
	const struct capture_stream *st = capture_set__stream(&an->cs, "sonde");
	const struct capture_rec *r = st ? capture_stream__last(st, "sonde:run") : NULL;

	memset(o, 0, sizeof(*o));
	if (!r || r->err)
		return -ENOENT;
	parse_kv(r->data, r->len, observer_fact, o);
	o->known = o->pid_ns[0] != '\0';
	return o->known ? 0 : -ENOENT;
}

void observer__where(const struct observer *o, char *buf, size_t len)
{
	static const struct {
		int cap;
		const char *name;
	} caps[] = { { CAP_SYS_ADMIN, "SYS_ADMIN" }, { CAP_BPF, "BPF" }, { CAP_PERFMON, "PERFMON" },
		     { CAP_SYS_PTRACE, "SYS_PTRACE" } };
	size_t n;

	n = (size_t)snprintf(buf, len, "%s, %s PID namespace, %s cgroup namespace",
			     strcmp(o->container, "none") ? "in a container" : "on the host",
			     o->pid_ns, o->cgroup_ns);
	if (strcmp(o->container, "none") && n < len)
		n += (size_t)snprintf(buf + n, len - n, " (%s)", o->container);
	if (!o->has_caps || n >= len)
		return;
	n += (size_t)snprintf(buf + n, len - n, "; capabilities:");
	for (size_t i = 0, k = 0; i < sizeof(caps) / sizeof(caps[0]) && n < len; i++)
		if (has_cap(o, caps[i].cap))
			n += (size_t)snprintf(buf + n, len - n, "%s CAP_%s", k++ ? "," : "",
					      caps[i].name);
	if (n < len && !(o->cap_eff & ((1ull << CAP_SYS_ADMIN) | (1ull << CAP_BPF) |
				       (1ull << CAP_PERFMON) | (1ull << CAP_SYS_PTRACE))))
		snprintf(buf + n, len - n, " none of those sonde uses");
}

/* Some container's name is unknown because a runtime's file is missing where sonde looked. */
static int state_missing(struct analysis *an)
{
	const struct container_set *s;

	if (analysis__containers(an, &s))
		return 0;
	for (size_t i = 0; i < s->n; i++)
		if (!s->c[i].name && !s->c[i].k8s_container && s->c[i].why &&
		    strstr(s->c[i].why, "No such file"))
			return 1;
	return 0;
}

int observer__limits(struct analysis *an, const struct observer *o, struct strv *out)
{
	int in_ct = strcmp(o->container, "none") != 0, err = 0;

	if (!o->known)
		return 0;
	if (!strcmp(o->pid_ns, "own"))
		err |= strv__push(out, "sonde ran in its own PID namespace: it saw the processes of "
			"its container only, not the host's; the process tables, thread states and "
			"culprits cover those alone (give it the host's: hostPID: true in Kubernetes, "
			"docker run --pid=host)");
	if (!strcmp(o->cgroup_ns, "own"))
		err |= strv__push(out, "sonde ran in its own cgroup namespace: /sys/fs/cgroup showed "
			"it its own subtree, so the other containers' cgroups, limits and throttling "
			"were not seen (run it with the host's cgroup namespace: cgroupns=host, or the "
			"host's /sys/fs/cgroup mounted)");
	if (o->has_caps && !has_cap(o, CAP_BPF) && !has_cap(o, CAP_SYS_ADMIN))
		err |= strv__push(out, "without CAP_BPF (or CAP_SYS_ADMIN) no BPF tool could load: "
			"run-queue latency, off-CPU time, syscall counts, exec, OOM and signal tracing "
			"are known unknowns");
	if (o->has_caps && !has_cap(o, CAP_PERFMON) && !has_cap(o, CAP_SYS_ADMIN))
		err |= strv__push(out, "without CAP_PERFMON (or CAP_SYS_ADMIN) the CPU counters and "
			"profiles depend on kernel.perf_event_paranoid");
	if (o->has_caps && !has_cap(o, CAP_SYS_PTRACE) && !has_cap(o, CAP_SYS_ADMIN))
		err |= strv__push(out, "without CAP_SYS_PTRACE the other processes' /proc/PID/io, "
			"stack, syscall and fd tables were refused");
	if (in_ct && state_missing(an))
		err |= strv__push(out, "the container runtimes' state is not mounted in sonde's "
			"container: containers are named by id only (mount /run/containerd, "
			"/var/lib/docker, /var/lib/containers, /var/log/pods and /var/lib/kubelet/pods "
			"read-only, as contrib/kubernetes does)");
	return err ? -ENOMEM : 0;
}
