// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The collector table, and the collectors small enough to be a few lines:
 * host facts, the every-round /proc files, disks and network interfaces.
 * The larger ones have a file each (pids.c, cgroups.c, mounts.c, kmsg.c).
 *
 * Collectors never interpret what they read beyond what they need to decide
 * what to read next (which pids exist, which disks and interfaces there are).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "collect/collectors.h"
#include "collect/hostctx.h"
#include "util/hostid.h"

static int tee_each(struct reader *rd, struct capture_writer *w, const char *const *paths)
{
	for (; *paths; paths++)
		reader__tee(rd, w, *paths, NULL, NULL);
	return 0;
}

/* ---- host facts (always) ---- */

static int host_sample(struct collector_state *cs, struct reader *rd, struct capture_writer *w,
		       int phase)
{
	static const char *const first[] = {
		"/proc/sys/kernel/hostname", "/proc/sys/kernel/osrelease",
		"/proc/sys/kernel/version", "/proc/cpuinfo", "/sys/devices/system/cpu/online",
		"/sys/class/dmi/id/sys_vendor", "/sys/class/dmi/id/product_name",
		"/sys/hypervisor/type", "/proc/sys/kernel/threads-max", "/proc/sys/kernel/pid_max",
		"/proc/sys/fs/nr_open", "/proc/sys/kernel/random/boot_id", NULL,
	};

	if (phase & PHASE_FIRST) {
		char id[HOST_ID_LEN + 1], why[256], text[300];

		tee_each(rd, w, first);
		/* which machine this is (util/hostid.h): never the machine-id itself */
		if (!host_id__read(rd->root, id, why, sizeof(why)))
			snprintf(text, sizeof(text), "%s\n", id);
		else
			snprintf(text, sizeof(text), "unknown: %s\n", why);
		reader__tee_text(rd, w, "sonde:host-id", text, strlen(text));
	}
	if (phase & (PHASE_FIRST | PHASE_LAST))
		reader__tee(rd, w, "/proc/uptime", NULL, NULL);
	return 0;
}

/* ---- simple every-round files ---- */

#define EVERY_ROUND(fn, ...)                                                                   \
	static int fn(struct collector_state *cs, struct reader *rd, struct capture_writer *w,  \
		      int phase)                                                                \
	{                                                                                       \
		static const char *const paths[] = { __VA_ARGS__, NULL };                       \
		return tee_each(rd, w, paths);                                                  \
	}

EVERY_ROUND(stat_sample, "/proc/stat")
EVERY_ROUND(loadavg_sample, "/proc/loadavg")
EVERY_ROUND(meminfo_sample, "/proc/meminfo")
EVERY_ROUND(vmstat_sample, "/proc/vmstat")
EVERY_ROUND(pressure_sample, "/proc/pressure/cpu", "/proc/pressure/memory", "/proc/pressure/io")
EVERY_ROUND(snmp_sample, "/proc/net/snmp", "/proc/net/netstat")

static int filenr_sample(struct collector_state *cs, struct reader *rd, struct capture_writer *w,
			 int phase)
{
	reader__tee(rd, w, "/proc/sys/fs/file-nr", NULL, NULL);
	return 0;
}

static int interrupts_sample(struct collector_state *cs, struct reader *rd,
			     struct capture_writer *w, int phase)
{
	/* Only the ends of the window: the counts are cumulative and the file is large. */
	if (phase & (PHASE_FIRST | PHASE_LAST))
		reader__tee(rd, w, "/proc/interrupts", NULL, NULL);
	return 0;
}

/*
 * Only the ends of the window: cumulative counters, and /proc/schedstat has a
 * few lines per CPU and scheduling domain.
 */
static int schedstat_sample(struct collector_state *cs, struct reader *rd,
			    struct capture_writer *w, int phase)
{
	if (phase & (PHASE_FIRST | PHASE_LAST))
		reader__tee(rd, w, "/proc/schedstat", NULL, NULL);
	return 0;
}

static int softirqs_sample(struct collector_state *cs, struct reader *rd,
			   struct capture_writer *w, int phase)
{
	if (phase & (PHASE_FIRST | PHASE_LAST))
		reader__tee(rd, w, "/proc/softirqs", NULL, NULL);
	return 0;
}

#define PROBE(fn, path, what)                                                                  \
	static int fn(const char *root, char *why, size_t whylen)                               \
	{                                                                                       \
		return collector__probe_path(root, path, what, why, whylen);                    \
	}

PROBE(stat_probe, "/proc/stat", "no CPU statistics")
PROBE(loadavg_probe, "/proc/loadavg", "no load average")
PROBE(meminfo_probe, "/proc/meminfo", "no memory statistics")
PROBE(vmstat_probe, "/proc/vmstat", "no VM statistics")
PROBE(pressure_probe, "/proc/pressure/cpu",
      "no pressure stall information (Linux 4.20+ with CONFIG_PSI, booted with psi=1 where it "
      "is off by default (RHEL 8))")
PROBE(snmp_probe, "/proc/net/snmp", "no network protocol statistics")
PROBE(filenr_probe, "/proc/sys/fs/file-nr", "no file table statistics")
PROBE(interrupts_probe, "/proc/interrupts", "no interrupt statistics")
PROBE(schedstat_probe, "/proc/schedstat",
      "no scheduler statistics (kernel without CONFIG_SCHEDSTATS)")
PROBE(softirqs_probe, "/proc/softirqs", "no softirq statistics")
PROBE(diskstats_probe, "/proc/diskstats", "no disk statistics")
PROBE(netdev_probe, "/proc/net/dev", "no network interface statistics")

/* ---- disks ---- */

static int diskstats_sample(struct collector_state *cs, struct reader *rd,
			    struct capture_writer *w, int phase)
{
	static const char *const queue_files[] = { "queue/rotational", "queue/nr_requests",
						   "queue/logical_block_size", "queue/scheduler",
						   "queue/max_sectors_kb", "size", NULL };
	char path[512];

	if (phase & PHASE_FIRST) {
		struct strbuf txt = { 0 };

		strv__free(&cs->names);
		/* Out of memory: the disks listed so far are read. */
		reader__list_dir(rd, "/sys/block", &cs->names);
		/* The listing itself is evidence: which disks existed. */
		for (size_t i = 0; i < cs->names.n; i++)
			strbuf__printf(&txt, "%s\n", cs->names.v[i]);
		if (!txt.oom)
			reader__tee_text(rd, w, "/sys/block", txt.buf ? txt.buf : "", txt.len);
		strbuf__free(&txt);
		for (size_t i = 0; i < cs->names.n; i++)
			for (const char *const *q = queue_files; *q; q++) {
				snprintf(path, sizeof(path), "/sys/block/%s/%s", cs->names.v[i],
					 *q);
				reader__tee(rd, w, path, NULL, NULL);
			}
		controllers__record(cs, rd, w, "/sys/block", "sonde:disk-controllers", 1);
	}
	if (phase & (PHASE_FIRST | PHASE_LAST))
		controllers__aer(cs, rd, w);
	reader__tee(rd, w, "/proc/diskstats", NULL, NULL);
	for (size_t i = 0; i < cs->names.n; i++) {
		snprintf(path, sizeof(path), "/sys/block/%s/inflight", cs->names.v[i]);
		reader__tee(rd, w, path, NULL, NULL);
		if (phase & (PHASE_FIRST | PHASE_LAST)) {
			/* SCSI disks count I/O errors here; most others expose none. */
			snprintf(path, sizeof(path), "/sys/block/%s/device/ioerr_cnt",
				 cs->names.v[i]);
			reader__tee(rd, w, path, NULL, NULL);
		}
	}
	return 0;
}

/* ---- network interfaces ---- */

static int netdev_sample(struct collector_state *cs, struct reader *rd, struct capture_writer *w,
			 int phase)
{
	static const char *const files[] = { "speed", "operstate", "mtu", "duplex", "type", NULL };
	char path[512];

	if (phase & PHASE_FIRST) {
		strv__free(&cs->names);
		/* Out of memory: the interfaces listed so far are read. */
		reader__list_dir(rd, "/sys/class/net", &cs->names);
		for (size_t i = 0; i < cs->names.n; i++)
			for (const char *const *q = files; *q; q++) {
				snprintf(path, sizeof(path), "/sys/class/net/%s/%s",
					 cs->names.v[i], *q);
				reader__tee(rd, w, path, NULL, NULL);
			}
		controllers__record(cs, rd, w, "/sys/class/net", "sonde:net-controllers", 0);
	}
	if (phase & (PHASE_FIRST | PHASE_LAST))
		controllers__aer(cs, rd, w);
	reader__tee(rd, w, "/proc/net/dev", NULL, NULL);
	return 0;
}

/* diskstats, netdev: the devices and their controllers */
static void names_fini(struct collector_state *cs)
{
	strv__free(&cs->names);
	strv__free(&cs->ctrls);
}

static const struct collector c_host = { "host", "host facts (kernel, CPUs, virtualization)", NULL,
					 host_sample, NULL, NULL, NULL };
static const struct collector c_stat = { "proc.stat", "CPU time per CPU (/proc/stat)", stat_probe,
					 stat_sample, NULL, NULL, NULL };
static const struct collector c_loadavg = { "proc.loadavg", "run queue (/proc/loadavg)",
					    loadavg_probe, loadavg_sample, NULL, NULL, NULL };
static const struct collector c_meminfo = { "proc.meminfo", "memory (/proc/meminfo)",
					    meminfo_probe, meminfo_sample, NULL, NULL, NULL };
static const struct collector c_vmstat = { "proc.vmstat", "paging and reclaim (/proc/vmstat)",
					   vmstat_probe, vmstat_sample, NULL, NULL, NULL };
static const struct collector c_pressure = { "proc.pressure", "pressure stalls (/proc/pressure)",
					     pressure_probe, pressure_sample, NULL, NULL, NULL };
static const struct collector c_diskstats = { "proc.diskstats",
					      "disks (/proc/diskstats, /sys/block)",
					      diskstats_probe, diskstats_sample, names_fini, NULL,
					      NULL };
static const struct collector c_netdev = { "proc.netdev",
					   "network interfaces (/proc/net/dev, /sys/class/net)",
					   netdev_probe, netdev_sample, names_fini, NULL, NULL };
static const struct collector c_snmp = { "proc.snmp", "TCP/IP counters (/proc/net/snmp, netstat)",
					 snmp_probe, snmp_sample, NULL, NULL, NULL };
static const struct collector c_filenr = { "proc.filenr", "file table (/proc/sys/fs/file-nr)",
					   filenr_probe, filenr_sample, NULL, NULL, NULL };
static const struct collector c_interrupts = { "proc.interrupts",
					       "interrupts and machine checks (/proc/interrupts)",
					       interrupts_probe, interrupts_sample, NULL, NULL,
					       NULL };
static const struct collector c_schedstat = { "proc.schedstat",
					      "run-queue time per CPU (/proc/schedstat)",
					      schedstat_probe, schedstat_sample, NULL, NULL, NULL };
static const struct collector c_softirqs = { "proc.softirqs", "softirqs per type (/proc/softirqs)",
					     softirqs_probe, softirqs_sample, NULL, NULL, NULL };
static const struct collector c_pids = { "proc.pids", "every process (/proc/PID/{stat,status,io})",
					 pids__probe, pids__sample, pids__fini, NULL, NULL };
static const struct collector c_threads = { "proc.threads",
					    "every thread's state and what it waits in "
					    "(task iterator, or /proc/PID/task)",
					    threads__probe, threads__sample, threads__fini,
					    threads__stop, NULL };
static const struct collector c_cgroups = { "proc.cgroups",
					    "resource controls: cgroups v1 and v2 (/sys/fs/cgroup)",
					    cgroups__probe, cgroups__sample, cgroups__fini, NULL,
					    NULL };
static const struct collector c_mounts = { "proc.mounts",
					   "file system and swap capacity "
					   "(mountinfo, statvfs, /proc/swaps)",
					   mounts__probe, mounts__sample, NULL, NULL, NULL };
static const struct collector c_sockets = { "net.sockets",
					    "network tables: listen queues, ephemeral ports, "
					    "conntrack (sock_diag, /proc/sys/net)",
					    sockets__probe, sockets__sample, sockets__fini, NULL,
					    NULL };
static const struct collector c_links = { "net.links",
					  "link kinds and queueing disciplines (rtnetlink)",
					  links__probe, links__sample, NULL, NULL, NULL };
static const struct collector c_hostctx = { HOSTCTX_STREAM,
					    "host context: OS, kernel command line and taint, "
					    "modules, sysctls, kernel log tail, cgroups, NUMA, "
					    "failed units; installed packages after the window",
					    NULL, hostctx__sample, NULL, NULL, hostctx__packages };
static const struct collector c_kmsg = { "kernel.log",
					 "kernel log: OOM and I/O error records (/dev/kmsg)",
					 kmsg__probe, kmsg__sample, NULL, NULL, NULL };

const struct collector *const collectors[] = {
	&c_host, &c_hostctx, &c_stat, &c_loadavg, &c_meminfo, &c_vmstat, &c_pressure, &c_diskstats,
	&c_netdev, &c_snmp, &c_filenr, &c_interrupts, &c_pids, &c_threads, &c_kmsg, &c_cgroups,
	&c_mounts, &c_schedstat, &c_softirqs, &c_sockets, &c_links, NULL,
};

const struct collector *collector__find(const char *name)
{
	for (const struct collector *const *c = collectors; *c; c++)
		if (!strcmp((*c)->name, name))
			return *c;
	return NULL;
}
