/* SPDX-License-Identifier: GPL-2.0-or-later */
/* profile: timed on-CPU stack samples, counted in the kernel; shared with user space. */
#ifndef SONDE_PROFILE_H
#define SONDE_PROFILE_H

#define PROFILE_STACK_DEPTH 127     /* PERF_MAX_STACK_DEPTH */
#define PROFILE_MAX_STACKS 10240    /* distinct stacks (kernel and user) in the stack map */
#define PROFILE_MAX_KEYS 10240      /* distinct (thread, kernel stack, user stack) */
#define PROFILE_DEFAULT_HZ 49       /* per CPU: off the beat of 50/100 Hz timers */
#define PROFILE_MAX_HZ 999

/*
 * Subsecond offsets ("subsecond", docs/bpf-tools.md): samples and busy ones per
 * column (a second of the window, or targ_subsec_s seconds for a window too
 * long for PROFILE_SUBSEC_COLS) and offset in the second (PROFILE_SUBSEC_ROWS
 * rows of 50 ms), per CPU, and per process in a hash of (tgid, cell).
 */
#define PROFILE_SUBSEC_ROWS 20
#define PROFILE_SUBSEC_COLS 64
#define PROFILE_SUBSEC_PROC_CELLS 16384

struct profile_subsec {
	__u64 samples; /* every sample of the cell (idle, sonde's own included) */
	__u64 busy;    /* of them, neither idle nor sonde */
};

struct profile_subsec_key {
	__u32 tgid;
	__u32 cell; /* column * PROFILE_SUBSEC_ROWS + row */
};

/* One counted on-CPU stack of one thread. A stack id < 0 is the -errno of bpf_get_stackid. */
struct profile_key {
	__u32 tgid, pid;
	__s32 kstack, ustack;
	char comm[16];
};

/* Counters (per-CPU array "pstats"): why samples have no (or a partial) stack. */
enum {
	PROFILE_SAMPLES,        /* every sample, idle included */
	PROFILE_IDLE,           /* the CPU was idle (pid 0): counted, no stack kept */
	PROFILE_KSTACK_LOST,    /* kernel stack not stored: the stack map was full or collided */
	PROFILE_USTACK_LOST,    /* user stack not stored: idem */
	PROFILE_USTACK_FAULT,   /* user stack of a user thread could not be walked (-EFAULT) */
	PROFILE_KEYS_DROPPED,   /* the counts map was full: the sample is lost */
	PROFILE_SUBSEC_DROPPED, /* the per-process subsecond map was full (or raced): not counted there */
	PROFILE_STAT_NR,
};

#endif
