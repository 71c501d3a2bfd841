/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a cgroup path says about the container in it: the naming conventions
 * of the container runtimes and of the kubelet (cgroup v1 and v2, the
 * systemd and cgroupfs drivers), decoded from the path alone. The collector
 * uses it to know whose state to read; the analysis to attribute a cgroup of
 * any bundle, also one taken before sonde read the runtimes' state.
 */
#ifndef SONDE_CGPATH_H
#define SONDE_CGPATH_H

#include <stddef.h>

enum cgpath_role {
	CGPATH_NONE = 0,
	CGPATH_CONTAINER, /* a container's cgroup (or one below it) */
	CGPATH_MONITOR,   /* the runtime's monitor beside a container: conmon, lxc.monitor */
	CGPATH_POD,       /* a Kubernetes pod's cgroup, above its containers */
};

struct cgpath_container {
	enum cgpath_role role;
	/* "docker", "containerd", "cri-o", "podman", "lxc", "systemd-nspawn", "machine", or ""
	 * where the path alone does not say (a bare 64-hex id: containerd, Docker under a pod, runc) */
	char runtime[16];
	char id[128];      /* a 64-hex container id, or an LXC or machine name (systemd escapes undone) */
	char pod_uid[40];  /* the Kubernetes pod UID (with its dashes), "" outside a pod */
	char qos[12];      /* the pod's QoS class: "guaranteed", "burstable", "besteffort", "" */
	size_t len;        /* bytes of the path up to the end of the part that names it */
};

/*
 * Decode path (a cgroup path relative to its hierarchy's root: "/kubepods/burstable/pod.../ID").
 * The innermost container wins (a container nested in another); below it (a sub-cgroup of the
 * container) still belongs to it. Returns the role (CGPATH_NONE: nothing decoded, out zeroed).
 */
enum cgpath_role cgpath__container(const char *path, struct cgpath_container *out);
/* s is a 64-character lowercase hex container id. */
int cgpath__is_id(const char *s, size_t len);

#endif
