// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The container a cgroup path names, from the runtimes' conventions alone.
 * Each convention with where its owner writes it:
 *
 *   kubelet (pkg/kubelet/cm/cgroup_manager_linux.go, qos_container_manager_linux.go):
 *     cgroupfs  /kubepods[/burstable|/besteffort]/pod<UID>
 *     systemd   /kubepods.slice[/kubepods-<qos>.slice]/kubepods[-<qos>]-pod<UID, '-' as '_'>.slice
 *     (kind and some distributions put it below another slice: kubelet-kubepods-...)
 *   containerd's CRI plugin: systemd  cri-containerd-<ID>.scope;  cgroupfs  <pod cgroup>/<ID>
 *   CRI-O (internal/config/cgmgr): systemd  crio-<ID>.scope, conmon in crio-conmon-<ID>.scope;
 *     cgroupfs  <pod cgroup>/crio-<ID>
 *   Docker (daemon/oci_linux.go): systemd  /system.slice/docker-<ID>.scope;  cgroupfs  /docker/<ID>
 *   podman (libpod/runtime_ctr.go, oci_conmon_linux.go): systemd  libpod-<ID>.scope (conmon in
 *     libpod-conmon-<ID>.scope), below machine.slice or the user's slice; cgroupfs
 *     /libpod_parent/libpod-<ID>
 *   containerd alone (ctr, nerdctl): /<namespace>/<ID>, a bare id
 *   systemd-nspawn: systemd-nspawn@<machine>.service, or machine-<machine>.scope when it
 *     registers with systemd-machined (also what libvirt's VMs get)
 *   LXC 4+ (src/lxc/cgroups/cgfsng.c): lxc.payload.<name>, its monitor lxc.monitor.<name>;
 *     LXC 3 and before: /lxc/<name>
 *
 * runc run by hand names the cgroup as its caller asks (by default the container's id below the
 * caller's cgroup): no path convention; its state file says (collect/containers.c).
 */
#include <stdio.h>
#include <string.h>

#include "util/cgpath.h"

int cgpath__is_id(const char *s, size_t len)
{
	if (len != 64)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

/* A pod UID, 36 characters, sep where the dashes go ('-' cgroupfs, '_' systemd). */
static int is_uid(const char *s, size_t len, char sep)
{
	if (len != 36)
		return 0;
	for (size_t i = 0; i < 36; i++) {
		int dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? s[i] != sep : !((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	}
	return 1;
}

static int has_prefix(const char *s, size_t len, const char *p, size_t *plen)
{
	*plen = strlen(p);
	return len > *plen && !memcmp(s, p, *plen);
}

static int has_suffix(const char *s, size_t len, const char *x)
{
	size_t xl = strlen(x);

	return len > xl && !memcmp(s + len - xl, x, xl);
}

static int equals(const char *s, size_t len, const char *w)
{
	return strlen(w) == len && !memcmp(s, w, len);
}

static int contains(const char *s, size_t len, const char *w)
{
	size_t wl = strlen(w);

	for (size_t i = 0; i + wl <= len; i++)
		if (!memcmp(s + i, w, wl))
			return 1;
	return 0;
}

/* A systemd unit name's "\xHH" escapes undone (machine names: "web\x2d1" is "web-1"). */
static void unescape_into(char *out, size_t cap, const char *s, size_t len)
{
	size_t o = 0;

	for (size_t i = 0; i < len && o + 1 < cap; i++) {
		unsigned v = 0;
		int ok = 0;

		if (s[i] == '\\' && i + 3 < len && s[i + 1] == 'x') {
			ok = 1;
			for (int k = 2; k < 4; k++) {
				char c = s[i + k];

				v <<= 4;
				if (c >= '0' && c <= '9')
					v |= (unsigned)(c - '0');
				else if (c >= 'a' && c <= 'f')
					v |= (unsigned)(c - 'a' + 10);
				else if (c >= 'A' && c <= 'F')
					v |= (unsigned)(c - 'A' + 10);
				else
					ok = 0;
			}
		}
		if (ok) {
			i += 3;
			if (v >= 0x20 && v != 0x7f && v != '/')
				out[o++] = (char)v;
		} else if ((unsigned char)s[i] >= 0x20 && s[i] != 0x7f) {
			out[o++] = s[i];
		}
	}
	out[o] = '\0';
}

static void set(struct cgpath_container *c, enum cgpath_role role, const char *runtime,
		const char *id, size_t idlen, int escaped, size_t end)
{
	c->role = role;
	snprintf(c->runtime, sizeof(c->runtime), "%s", runtime);
	if (escaped) {
		unescape_into(c->id, sizeof(c->id), id, idlen);
	} else {
		if (idlen >= sizeof(c->id))
			idlen = sizeof(c->id) - 1;
		memcpy(c->id, id, idlen);
		c->id[idlen] = '\0';
	}
	c->len = end;
}

/* The pod UID of a component, into uid (dashes), or 0. */
static int pod_of(const char *s, size_t n, char *uid)
{
	size_t pl;
	const char *u = NULL;

	if (has_prefix(s, n, "pod", &pl) && is_uid(s + pl, n - pl, '-')) {
		memcpy(uid, s + pl, 36);
	} else if (has_suffix(s, n, ".slice") && contains(s, n, "kubepods")) {
		for (size_t i = 0; i + 4 <= n; i++)
			if (!memcmp(s + i, "-pod", 4))
				u = s + i + 4;
		if (!u || (size_t)(s + n - u) != 36 + strlen(".slice") || !is_uid(u, 36, '_'))
			return 0;
		for (int i = 0; i < 36; i++)
			uid[i] = u[i] == '_' ? '-' : u[i];
	} else {
		return 0;
	}
	uid[36] = '\0';
	return 1;
}

/* A container (or monitor) named by component s (parent: the component above it, or ""). */
static int container_of(struct cgpath_container *c, const char *s, size_t n, const char *parent,
			size_t pn, size_t end)
{
	static const struct {
		const char *prefix, *suffix, *runtime;
		enum cgpath_role role;
	} scopes[] = {
		/* the monitors first: "libpod-conmon-" also starts with "libpod-" */
		{ "libpod-conmon-", ".scope", "podman", CGPATH_MONITOR },
		{ "crio-conmon-", ".scope", "cri-o", CGPATH_MONITOR },
		{ "docker-", ".scope", "docker", CGPATH_CONTAINER },
		{ "cri-containerd-", ".scope", "containerd", CGPATH_CONTAINER },
		{ "crio-", ".scope", "cri-o", CGPATH_CONTAINER },
		{ "libpod-", ".scope", "podman", CGPATH_CONTAINER },
		{ "crio-", "", "cri-o", CGPATH_CONTAINER },
		{ "libpod-", "", "podman", CGPATH_CONTAINER },
	};
	size_t pl;

	for (size_t i = 0; i < sizeof(scopes) / sizeof(scopes[0]); i++) {
		size_t sl = strlen(scopes[i].suffix);

		if (!has_prefix(s, n, scopes[i].prefix, &pl) || (sl && !has_suffix(s, n, scopes[i].suffix)))
			continue;
		if (!cgpath__is_id(s + pl, n - pl - sl))
			continue;
		set(c, scopes[i].role, scopes[i].runtime, s + pl, n - pl - sl, 0, end);
		return 1;
	}
	if (cgpath__is_id(s, n)) {
		set(c, CGPATH_CONTAINER, equals(parent, pn, "docker") ? "docker" : "", s, n, 0, end);
		return 1;
	}
	if (has_prefix(s, n, "systemd-nspawn@", &pl) && has_suffix(s, n, ".service")) {
		set(c, CGPATH_CONTAINER, "systemd-nspawn", s + pl, n - pl - strlen(".service"), 1, end);
		return 1;
	}
	if (has_prefix(s, n, "machine-", &pl) && has_suffix(s, n, ".scope")) {
		set(c, CGPATH_CONTAINER, "machine", s + pl, n - pl - strlen(".scope"), 1, end);
		return 1;
	}
	if (has_prefix(s, n, "lxc.payload.", &pl)) {
		set(c, CGPATH_CONTAINER, "lxc", s + pl, n - pl, 1, end);
		return 1;
	}
	if (has_prefix(s, n, "lxc.monitor.", &pl)) {
		set(c, CGPATH_MONITOR, "lxc", s + pl, n - pl, 1, end);
		return 1;
	}
	if (equals(parent, pn, "lxc") || equals(parent, pn, "lxc.payload")) {
		set(c, CGPATH_CONTAINER, "lxc", s, n, 1, end);
		return 1;
	}
	return 0;
}

enum cgpath_role cgpath__container(const char *path, struct cgpath_container *out)
{
	const char *p = path, *parent = "";
	size_t pn = 0;
	int kube = 0;
	char qos[12] = "";

	memset(out, 0, sizeof(*out));
	if (!path)
		return CGPATH_NONE;
	while (*p) {
		const char *s;
		size_t n;
		char uid[40];

		while (*p == '/')
			p++;
		s = p;
		while (*p && *p != '/')
			p++;
		n = (size_t)(p - s);
		if (!n)
			break;
		if (contains(s, n, "kubepods"))
			kube = 1;
		if (kube && (equals(s, n, "burstable") || contains(s, n, "-burstable")))
			snprintf(qos, sizeof(qos), "burstable");
		if (kube && (equals(s, n, "besteffort") || contains(s, n, "-besteffort")))
			snprintf(qos, sizeof(qos), "besteffort");
		if (kube && pod_of(s, n, uid)) {
			/* a pod: what was named above it (a node running in a container) is left */
			memset(out, 0, sizeof(*out));
			out->role = CGPATH_POD;
			memcpy(out->pod_uid, uid, sizeof(out->pod_uid));
			snprintf(out->qos, sizeof(out->qos), "%s", qos[0] ? qos : "guaranteed");
			out->len = (size_t)(p - path);
		} else {
			container_of(out, s, n, parent, pn, (size_t)(p - path));
		}
		parent = s;
		pn = n;
	}
	return out->role;
}
