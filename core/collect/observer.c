// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Where sonde itself runs, for the run facts (sonde:run): in the host's PID
 * and cgroup namespaces or its own, in a container or not, with which
 * capabilities. sonde run from a privileged DaemonSet with hostPID sees the
 * host; from a container without them it sees its own processes, its own
 * cgroup subtree, no BPF: the report says so (analysis_observer.c), rather
 * than let a container's view pass for the host's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/collectors.h"

/*
 * The initial namespaces have fixed inode numbers (include/linux/proc_ns.h:
 * PROC_PID_INIT_INO 0xEFFFFFFC, PROC_CGROUP_INIT_INO 0xEFFFFFFB), whatever the
 * kernel: a process in the host's namespace reads exactly these.
 */
#define PID_INIT "pid:[4026531836]"
#define CGROUP_INIT "cgroup:[4026531835]"

static const char *ns_of(const char *link, const char *init, char *buf, size_t len)
{
	ssize_t n = readlink(link, buf, len - 1);

	if (n <= 0)
		return "unknown";
	buf[n] = '\0';
	return strcmp(buf, init) ? "own" : "host";
}

/*
 * In a container or not, from the namespaces: its own PID namespace, or the host's with another
 * mount namespace than the host's init (docker run --pid=host). Only then the marker files and
 * variables say whose ("/.dockerenv" alone is no proof: images keep it, and this VM's root
 * file system has one).
 */
static const char *container_of(const char *pidns)
{
	const char *env = getenv("container");
	char a[64], b[64];
	ssize_t na, nb;

	if (strcmp(pidns, "own")) {
		na = readlink("/proc/self/ns/mnt", a, sizeof(a) - 1);
		nb = readlink("/proc/1/ns/mnt", b, sizeof(b) - 1);
		if (na <= 0 || nb <= 0 || (na == nb && !memcmp(a, b, (size_t)na)))
			return "none";
	}
	if (getenv("KUBERNETES_SERVICE_HOST"))
		return "kubernetes";
	if (!access("/run/.containerenv", F_OK))
		return "podman";
	if (!access("/.dockerenv", F_OK))
		return "docker";
	if (env && (!strcmp(env, "systemd-nspawn") || !strcmp(env, "lxc") || !strcmp(env, "podman")))
		return env;
	return "container";
}

void observer__facts(const char *root, struct strbuf *b)
{
	char buf[64], line[256];
	const char *pidns, *cgns;
	FILE *f;

	/* a made-up root (tests) is not where sonde runs: nothing of it is said */
	if (root && root[0])
		return;
	pidns = ns_of("/proc/self/ns/pid", PID_INIT, buf, sizeof(buf));
	cgns = ns_of("/proc/self/ns/cgroup", CGROUP_INIT, buf, sizeof(buf));
	strbuf__printf(b, "observer_pid_ns: %s\nobserver_cgroup_ns: %s\nobserver_container: %s\n",
		       pidns, cgns, container_of(pidns));
	f = fopen("/proc/self/status", "re");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "CapEff:", 7)) {
			unsigned long long cap = strtoull(line + 7, NULL, 16);

			strbuf__printf(b, "observer_cap_eff: %016llx\n", cap);
		}
	if (f)
		fclose(f);
}
