// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * util/cgpath.h: the container a cgroup path names, for each runtime's
 * convention (v1 and v2 look alike below the mount point; systemd and
 * cgroupfs drivers differ), and what must not be taken for a container.
 */
#include <string.h>

#include "util/cgpath.h"
#include "tap.h"

#define ID "3f2a1b9c0d1e4f5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c"
#define ID2 "aa2a1b9c0d1e4f5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c"
#define UID "0d6b5e3c-1a2b-4c3d-8e9f-0a1b2c3d4e5f"
#define UIDU "0d6b5e3c_1a2b_4c3d_8e9f_0a1b2c3d4e5f"

static void expect(const char *path, enum cgpath_role role, const char *runtime, const char *id,
		   const char *pod, const char *qos, size_t len)
{
	struct cgpath_container c;

	is_int(cgpath__container(path, &c), role, "%s: role", path);
	is_str(c.runtime, runtime, "%s: runtime", path);
	is_str(c.id, id, "%s: id", path);
	is_str(c.pod_uid, pod, "%s: pod", path);
	is_str(c.qos, qos, "%s: qos", path);
	is_int(c.len, len, "%s: length of its part", path);
}

int main(void)
{
	const char *k8s_sd = "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UIDU ".slice";

	/* Docker: systemd and cgroupfs drivers */
	expect("/system.slice/docker-" ID ".scope", CGPATH_CONTAINER, "docker", ID, "", "",
	       strlen("/system.slice/docker-" ID ".scope"));
	expect("/docker/" ID, CGPATH_CONTAINER, "docker", ID, "", "", strlen("/docker/" ID));
	/* a sub-cgroup of a container (systemd in it, crun's "container") is still it */
	expect("/system.slice/docker-" ID ".scope/init.scope", CGPATH_CONTAINER, "docker", ID, "", "",
	       strlen("/system.slice/docker-" ID ".scope"));
	/* Kubernetes, containerd, systemd driver (v2 and v1 alike) */
	expect(k8s_sd, CGPATH_POD, "", "", UID, "burstable", strlen(k8s_sd));
	{
		char p[512];

		snprintf(p, sizeof(p), "%s/cri-containerd-%s.scope", k8s_sd, ID);
		expect(p, CGPATH_CONTAINER, "containerd", ID, UID, "burstable", strlen(p));
		snprintf(p, sizeof(p), "%s/crio-%s.scope", k8s_sd, ID);
		expect(p, CGPATH_CONTAINER, "cri-o", ID, UID, "burstable", strlen(p));
		snprintf(p, sizeof(p), "%s/crio-conmon-%s.scope", k8s_sd, ID);
		expect(p, CGPATH_MONITOR, "cri-o", ID, UID, "burstable", strlen(p));
		snprintf(p, sizeof(p), "%s/docker-%s.scope", k8s_sd, ID);
		expect(p, CGPATH_CONTAINER, "docker", ID, UID, "burstable", strlen(p));
	}
	/* cgroupfs driver: the runtime is not in the path of a bare id */
	expect("/kubepods/besteffort/pod" UID "/" ID, CGPATH_CONTAINER, "", ID, UID, "besteffort",
	       strlen("/kubepods/besteffort/pod" UID "/" ID));
	expect("/kubepods/pod" UID "/" ID, CGPATH_CONTAINER, "", ID, UID, "guaranteed",
	       strlen("/kubepods/pod" UID "/" ID));
	expect("/kubepods/pod" UID, CGPATH_POD, "", "", UID, "guaranteed",
	       strlen("/kubepods/pod" UID));
	expect("/kubepods/burstable/pod" UID "/crio-" ID, CGPATH_CONTAINER, "cri-o", ID, UID,
	       "burstable", strlen("/kubepods/burstable/pod" UID "/crio-" ID));
	/* guaranteed pods, systemd: no QoS slice */
	expect("/kubepods.slice/kubepods-pod" UIDU ".slice/cri-containerd-" ID ".scope",
	       CGPATH_CONTAINER, "containerd", ID, UID, "guaranteed",
	       strlen("/kubepods.slice/kubepods-pod" UIDU ".slice/cri-containerd-" ID ".scope"));
	/* kind: the kubelet's slice below another one, the node itself a Docker container */
	expect("/system.slice/docker-" ID2 ".scope/kubelet.slice/kubelet-kubepods.slice/"
	       "kubelet-kubepods-besteffort.slice/kubelet-kubepods-besteffort-pod" UIDU ".slice/"
	       "cri-containerd-" ID ".scope",
	       CGPATH_CONTAINER, "containerd", ID, UID, "besteffort",
	       strlen("/system.slice/docker-" ID2 ".scope/kubelet.slice/kubelet-kubepods.slice/"
		      "kubelet-kubepods-besteffort.slice/kubelet-kubepods-besteffort-pod" UIDU
		      ".slice/cri-containerd-" ID ".scope"));
	/* podman */
	expect("/machine.slice/libpod-" ID ".scope", CGPATH_CONTAINER, "podman", ID, "", "",
	       strlen("/machine.slice/libpod-" ID ".scope"));
	expect("/machine.slice/libpod-" ID ".scope/container", CGPATH_CONTAINER, "podman", ID, "", "",
	       strlen("/machine.slice/libpod-" ID ".scope"));
	expect("/machine.slice/libpod-conmon-" ID ".scope", CGPATH_MONITOR, "podman", ID, "", "",
	       strlen("/machine.slice/libpod-conmon-" ID ".scope"));
	expect("/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" ID ".scope",
	       CGPATH_CONTAINER, "podman", ID, "", "",
	       strlen("/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" ID ".scope"));
	expect("/libpod_parent/libpod-" ID, CGPATH_CONTAINER, "podman", ID, "", "",
	       strlen("/libpod_parent/libpod-" ID));
	/* containerd alone: a namespace and a bare id */
	expect("/default/" ID, CGPATH_CONTAINER, "", ID, "", "", strlen("/default/" ID));
	/* systemd-nspawn and machined; escapes undone */
	expect("/machine.slice/systemd-nspawn@web\\x2d1.service", CGPATH_CONTAINER, "systemd-nspawn",
	       "web-1", "", "", strlen("/machine.slice/systemd-nspawn@web\\x2d1.service"));
	expect("/machine.slice/machine-db\\x2dmain.scope/payload", CGPATH_CONTAINER, "machine",
	       "db-main", "", "", strlen("/machine.slice/machine-db\\x2dmain.scope"));
	/* an escape that would make a path or a control character is dropped */
	expect("/machine.slice/machine-a\\x2fb\\x0ac.scope", CGPATH_CONTAINER, "machine", "abc", "", "",
	       strlen("/machine.slice/machine-a\\x2fb\\x0ac.scope"));
	/* LXC: 4+ and 3 */
	expect("/lxc.payload.web", CGPATH_CONTAINER, "lxc", "web", "", "", strlen("/lxc.payload.web"));
	expect("/lxc.monitor.web", CGPATH_MONITOR, "lxc", "web", "", "", strlen("/lxc.monitor.web"));
	expect("/lxc/web/init.scope", CGPATH_CONTAINER, "lxc", "web", "", "", strlen("/lxc/web"));
	/* not containers */
	expect("/system.slice/sshd.service", CGPATH_NONE, "", "", "", "", 0);
	expect("/process_api/9b4c284ac827e0d4e69238abeb477225", CGPATH_NONE, "", "", "", "", 0);
	expect("/system.slice/docker-" ID ".scopex", CGPATH_NONE, "", "", "", "", 0);
	expect("/system.slice/docker-" ID "0.scope", CGPATH_NONE, "", "", "", "", 0);
	expect("/docker/" "3F2A1B9C0D1E4F5A6B7C8D9E0F1A2B3C4D5E6F708192A3B4C5D6E7F8091A2B3C",
	       CGPATH_NONE, "", "", "", "", 0);
	/* a pod outside kubepods is just a directory */
	expect("/pod" UID, CGPATH_NONE, "", "", "", "", 0);
	expect("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID ".slice",
	       CGPATH_NONE, "", "", "", "", 0);
	expect("", CGPATH_NONE, "", "", "", "", 0);
	expect("/", CGPATH_NONE, "", "", "", "", 0);
	expect("//docker//" ID, CGPATH_CONTAINER, "docker", ID, "", "", strlen("//docker//" ID));
	{
		struct cgpath_container c;

		is_int(cgpath__container(NULL, &c), CGPATH_NONE, "NULL is nothing");
	}
	ok(cgpath__is_id(ID, 64), "a 64-hex id");
	ok(!cgpath__is_id(ID, 63), "63 characters are not");
	return tap_done();
}
