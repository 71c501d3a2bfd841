/* SPDX-License-Identifier: GPL-2.0-or-later */
/* runqlat: run-queue latency (wakeup or preemption to running), shared with user space. */
#ifndef SONDE_RUNQLAT_H
#define SONDE_RUNQLAT_H

#define RUNQLAT_SLOTS 32 /* log2 microseconds */
#define RUNQLAT_MAX_TASKS 10240

struct runqlat_hist {
	__u64 slots[RUNQLAT_SLOTS];
	__u64 count, total_ns;
};

struct runqlat_task {
	__u64 count, total_ns, max_ns;
	__u32 tgid;
	char comm[16];
};

#endif
