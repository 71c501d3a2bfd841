/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hardirqs: time spent in each hard interrupt handler, per CPU; shared with user space. */
#ifndef SONDE_HARDIRQS_H
#define SONDE_HARDIRQS_H

#define HARDIRQS_SLOTS 32      /* log2 nanoseconds */
#define HARDIRQS_NAME_LEN 32   /* irqaction->name, cut */
#define HARDIRQS_MAX_KEYS 1024 /* (irq, handler) pairs */

struct hardirqs_key {
	__u32 irq;
	char name[HARDIRQS_NAME_LEN];
};

/* One handler on one CPU (a per-CPU hash). */
struct hardirqs_val {
	__u64 count, total_ns;
	__u64 slots[HARDIRQS_SLOTS];
};

#endif
