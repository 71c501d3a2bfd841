/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * How often the events BPF tools hook happen on this host now, from counters
 * the kernel keeps anyway: read twice, some tens of milliseconds apart, before
 * a tool is attached, so that its cost can be predicted (trace/cost.c) rather
 * than paid and then noticed. Not evidence: nothing here is captured.
 */
#ifndef SONDE_RATES_H
#define SONDE_RATES_H

#include <stddef.h>
#include <stdint.h>

enum host_event {
	HEV_SYSCALL,     /* read and write syscalls: /proc/PID/io syscr + syscw of every process */
	HEV_CTXT,        /* context switches: /proc/stat ctxt */
	HEV_IRQ,         /* hard interrupts: /proc/stat intr */
	HEV_SOFTIRQ,     /* softirqs run: /proc/stat softirq */
	HEV_FORK,        /* processes and threads created: /proc/stat processes */
	HEV_BLOCK_IO,    /* block requests completed: /proc/diskstats, whole disks */
	HEV_TCP_RESEND,  /* TCP segments retransmitted and resets: /proc/net/snmp */
	HEV_NET_DROP,    /* packets dropped: /proc/net/dev and /proc/net/snmp drop counters */
	HEV_OOM,         /* OOM kills: /proc/vmstat oom_kill */
	HEV_NR
};

#define HEV_BIT(e) (1u << (e))

/* Suspects read apart, at most (a drill-down's, trace/trace.h TRACE_MAX_TGIDS). */
#define HEV_MAX_PIDS 8

/* One reading of the counters asked for. */
struct host_events {
	int64_t mono_ns;
	unsigned have;                /* HEV_BIT of every counter read */
	uint64_t n[HEV_NR];
	/*
	 * The CPU time the work on this host uses, to weigh a tool's cost against
	 * (trace/cost.c): the host's busy time (/proc/stat cpu: all but idle and
	 * iowait) and each suspect's (/proc/PID/stat utime + stime, every thread),
	 * in USER_HZ ticks; busy_read and the bits of pid_cpu_read say which were.
	 */
	uint64_t busy_ticks;
	int busy_read;
	uint64_t pid_cpu_ticks[HEV_MAX_PIDS];
	unsigned pid_cpu_read;
	/*
	 * HEV_SYSCALL of the suspects only (the pids given): their sum, how many of
	 * them were readable, and each one's (the bits of pid_syscalls_read).
	 */
	uint64_t suspect_syscalls;
	size_t suspects_read;
	uint64_t pid_syscalls[HEV_MAX_PIDS];
	unsigned pid_syscalls_read;
	int syscalls_counted;         /* n[HEV_SYSCALL] was counted by tracing (trace/cost.c) */
};

/* "syscalls", "context switches", ... */
const char *host_event__name(enum host_event e);
/* Where the count comes from, and what it misses, in words for the report. */
const char *host_event__source(enum host_event e);

/*
 * Read the counters of mask (HEV_BIT of each event) under root ("" for the
 * live host); pids (npids of them, may be NULL) are the suspects whose
 * syscalls are also counted apart. A counter that cannot be read is left out of
 * out->have. 0, or -errno when none could be read.
 */
int host_events__read(const char *root, unsigned mask, const int *pids, size_t npids,
		      struct host_events *out);

/* Events per second of e between two readings; -1 when either lacks it. */
double host_events__rate(const struct host_events *a, const struct host_events *b,
			 enum host_event e);
/* The suspects' syscalls per second between two readings; -1 when unknown. */
double host_events__suspect_rate(const struct host_events *a, const struct host_events *b);
/* Suspect k's (the k-th pid given) syscalls per second between two readings; -1 when unknown. */
double host_events__pid_rate(const struct host_events *a, const struct host_events *b, size_t k);
/*
 * CPUs busy between two readings: the host's (k < 0) or suspect k's, never less
 * than one tick over the span (what the counters can tell apart from nothing);
 * -1 when either reading lacks it.
 */
double host_events__cpus(const struct host_events *a, const struct host_events *b, int k);

#endif
