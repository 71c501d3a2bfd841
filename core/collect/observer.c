// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Where sonde itself runs, for the run facts (sonde:run): in the host's PID
 * and cgroup namespaces or its own, in a container or not, with which
 * capabilities. sonde run from a privileged DaemonSet with hostPID sees the
 * host; from a container without them it sees its own processes, its own
 * cgroup subtree, no BPF: the report says so (analysis_observer.c), rather
 * than let a container's view pass for the host's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/collectors.h"
#include "util/cgpath.h"
#include "util/file.h"
#include "util/parse.h"

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

/* CapEff of /proc/self/status (parse_kv): a hex mask. */
static int cap_eff_line(const char *k, size_t kl, const char *v, size_t vl, void *arg)
{
	return parse_word_is_str((struct parse_word){ k, kl }, "CapEff") && !parse_kv_hex(v, vl, arg);
}

static unsigned long long cap_eff(void)
{
	char buf[8192];
	ssize_t n = file__read_small("/proc/self/status", buf, sizeof(buf));
	uint64_t cap = 0;

	if (n > 0)
		parse_kv(buf, (size_t)n, cap_eff_line, &cap);
	return cap;
}

/* sonde's own cgroup (/proc/self/cgroup) is a container's by the runtimes' conventions. */
static int cgroup_is_container(void)
{
	char line[1024];
	FILE *f = fopen("/proc/self/cgroup", "re");
	int yes = 0;

	while (f && !yes && fgets(line, sizeof(line), f)) {
		char *path = strchr(line, ':');
		struct cgpath_container c;

		path = path ? strchr(path + 1, ':') : NULL;
		if (!path)
			continue;
		path[strcspn(path, "\n")] = '\0';
		yes = cgpath__container(path + 1, &c) == CGPATH_CONTAINER;
	}
	if (f)
		fclose(f);
	return yes;
}

/*
 * The root file system a container gets: its runtime pivots into an image's overlay (Docker,
 * containerd, CRI-O, podman) or into a bundle's directory (runc by hand: the "/" mount's root
 * is then that directory, not "/"). A host's "/" is its block device's root; a systemd
 * service in a mount namespace of its own keeps it.
 */
/* A mount of /proc/self/mountinfo (parse_mountinfo): the last "/" one says. */
static int root_mount(const struct mountinfo_line *m, void *arg)
{
	if (!parse_word_is_str(m->point, "/"))
		return 0;
	/* the last "/" mount is the one in force (a mount stacked on another) */
	*(int *)arg = !parse_word_is_str(m->root, "/") || parse_word_is_str(m->fstype, "overlay") ||
		      parse_word_is_str(m->fstype, "fuse-overlayfs") ||
		      parse_word_is_str(m->fstype, "aufs");
	return 0;
}

static int root_is_container(void)
{
	/* a host with thousands of mounts: the "/" ones come first, a cut tail is left out */
	size_t cap = 1 << 20;
	char *buf = malloc(cap);
	ssize_t n = buf ? file__read_small("/proc/self/mountinfo", buf, cap) : -ENOMEM;
	int yes = 0;

	if (n > 0)
		parse_mountinfo(buf, (size_t)n, root_mount, &yes);
	free(buf);
	return yes;
}

/*
 * In a container or not: its own PID namespace; or a container's root file system, or its
 * own cgroup a container's by the runtimes' conventions (docker run --pid=host, a DaemonSet
 * with hostPID). Only then the marker files and variables say whose ("/.dockerenv" alone is
 * no proof: images keep it, and this VM's root file system has one). PID 1's namespaces
 * would tell, but a host may hide them even from root (this VM's init does).
 */
static const char *container_of(const char *pidns)
{
	const char *env = getenv("container");

	if (strcmp(pidns, "own") && !root_is_container() && !cgroup_is_container())
		return "none";
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
	char buf[64];
	const char *pidns, *cgns;

	/* a made-up root (tests) is not where sonde runs: nothing of it is said */
	if (root && root[0])
		return;
	pidns = ns_of("/proc/self/ns/pid", PID_INIT, buf, sizeof(buf));
	cgns = ns_of("/proc/self/ns/cgroup", CGROUP_INIT, buf, sizeof(buf));
	strbuf__printf(b, "observer_pid_ns: %s\nobserver_cgroup_ns: %s\nobserver_container: %s\n",
		       pidns, cgns, container_of(pidns));
	strbuf__printf(b, "observer_cap_eff: %016llx\n", cap_eff());
}
