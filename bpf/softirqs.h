/* SPDX-License-Identifier: GPL-2.0-or-later */
/* softirqs: time spent in each softirq type, per CPU; shared with user space. */
#ifndef SONDE_SOFTIRQS_H
#define SONDE_SOFTIRQS_H

#define SOFTIRQS_SLOTS 32   /* log2 nanoseconds: up to 2^32 ns (4.3 s) */
#define SOFTIRQS_MAX_VEC 16 /* the kernel has 10 (NR_SOFTIRQS); room for new ones */

/* One softirq type on one CPU (a per-CPU array indexed by vec). */
struct softirqs_val {
	__u64 count, total_ns;
	__u64 slots[SOFTIRQS_SLOTS];
};

#endif
