/* SPDX-License-Identifier: GPL-2.0-or-later */
/* offcputime: time threads spent blocked, by stack; shared with user space. */
#ifndef SONDE_OFFCPUTIME_H
#define SONDE_OFFCPUTIME_H

#define OFFCPU_STACK_DEPTH 127
#define OFFCPU_MAX_STACKS 10240   /* distinct stacks in the stack map */
#define OFFCPU_MAX_KEYS 10240     /* distinct (thread, kernel stack, user stack) */
#define OFFCPU_MAX_THREADS 10240  /* threads off CPU at one time, stamped */
#define OFFCPU_DEFAULT_MIN_US 1   /* shorter blocks are not counted (knob) */
#define OFFCPU_SLOTS 32           /* log2 microseconds: block durations per interval */

/* The counted blocks that ended in one interval of the window, by duration. */
struct offcpu_hist {
	__u64 slots[OFFCPU_SLOTS];
};

struct offcpu_key {
	__u32 tgid, pid;
	__s32 kstack, ustack;
	char comm[16];
};

/* A thread that went off CPU: when, and the key its time will be added to. */
struct offcpu_start {
	__u64 ts;
	struct offcpu_key key;
};

struct offcpu_val {
	__u64 total_ns, count;
};

/* Counters (per-CPU array "ostats"). */
enum {
	OFFCPU_BLOCKS,          /* blocked switch-outs stamped */
	OFFCPU_COUNTED,         /* switch-ins that added time */
	OFFCPU_SHORT,           /* blocks shorter than the minimum: not counted */
	OFFCPU_KSTACK_LOST,     /* kernel stack not stored (stack map full or collided) */
	OFFCPU_USTACK_LOST,     /* user stack not stored */
	OFFCPU_USTACK_FAULT,    /* user stack of a user thread could not be walked (-EFAULT) */
	OFFCPU_STARTS_DROPPED,  /* too many threads off CPU at once: the block is lost */
	OFFCPU_KEYS_DROPPED,    /* the counts map was full: the time is lost */
	OFFCPU_LOST_NS,         /* off-CPU time lost with those drops (ns) */
	OFFCPU_STAT_NR,
};

#endif
