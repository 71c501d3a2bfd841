/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The host context (stream host.context, collected in the first round of
 * every window by hostctx.c; docs/capture-format.md), read back as facts
 * (hostctx_read.c) for the report's Host section, findings.json's
 * host.context and sonde diff. Nothing here touches the live host.
 */
#ifndef SONDE_HOSTCTX_H
#define SONDE_HOSTCTX_H

#include <stddef.h>
#include <stdint.h>

#include "collect/capture.h"
#include "util/strv.h"

#define HOSTCTX_STREAM "host.context"
/* The composed record of `systemctl list-units --state=failed` (or its failure). */
#define HOSTCTX_FAILED_UNITS "sonde:systemd-failed-units"
/* The composed record of the installed packages, after the window (hostctx_pkgs.c). */
#define HOSTCTX_PACKAGES "sonde:packages"

struct host_numa_node {
	int id;
	char cpus[256];    /* its cpulist, "0-3,8-11" */
	uint64_t mem_kb;   /* MemTotal of its meminfo; 0 unknown */
	char distance[256];
};

struct host_context {
	int collected;            /* the stream is there (bundles of older sondes have none) */
	char os[256];             /* PRETTY_NAME of os-release, "" unknown */
	char kernel[256];         /* release (host stream) */
	char kernel_build[512];   /* /proc/sys/kernel/version */
	char *cmdline;            /* /proc/cmdline, NULL unknown */
	int64_t tainted;          /* /proc/sys/kernel/tainted, -1 unknown */
	char taint_flags[64];     /* the kernel's letters for the bits set, "G" when none */
	double uptime_s;          /* at the window start, -1 unknown */
	struct strv modules;      /* loaded module names, as /proc/modules lists them */
	int modules_known;
	char cgroup[32];          /* "v2", "v1", "hybrid (v1 and v2)", "" unknown */
	char cpu_model[256];
	int cpus;                 /* processors in /proc/cpuinfo */
	struct strv cpu_flags;    /* the first processor's flags */
	struct host_numa_node *numa;
	size_t nnuma;
	char thp[32], thp_defrag[32], governor[64]; /* the selected word; "" unknown */
	struct strv sysctl_names; /* dotted: "vm.swappiness", sorted */
	struct strv sysctl_values; /* parallel: the value, blanks folded to one space */
	struct strv kmsg;         /* the last kernel log lines, "[seconds] text", oldest first */
	char kmsg_why[256];       /* why there are none, "" when read */
	struct strv failed_units; /* unit names */
	char failed_why[256];     /* why unknown ("" when known) */
	/* the installed packages (HOSTCTX_PACKAGES), read after the window */
	char pkg_manager[16];     /* "dpkg", "rpm"; "" unknown (pkg_why) */
	struct strv pkg_names;    /* "NAME", or "NAME:ARCH" where several architectures have it */
	struct strv pkg_versions; /* parallel: its version */
	char pkg_why[160];        /* why unknown */
};

/* The facts from a window's streams (host and host.context). 0 or -ENOMEM. */
int host_context__read(struct capture_set *cs, struct host_context *hc);
void host_context__free(struct host_context *hc);
/* What a taint letter means ("W" -> "a kernel warning was issued"), or NULL. */
const char *host_context__taint_meaning(char letter);

#endif
