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

/*
 * CFI unwinding (issue 14): for a sample of a user thread the program also
 * copies the user registers and up to PROFILE_USTACK_BYTES of the user stack
 * (from the stack pointer up) into the ring buffer "ustacks", with the
 * sample's counts key, so user space can unwind it with the binaries'
 * .eh_frame after the window (core/perf/unwind.c) and replace the sample's
 * frame-pointer stack where that one is broken. The sample is counted in
 * "counts" either way: a copy that is lost only leaves the FP stack.
 */
#define PROFILE_USTACK_BYTES 8192       /* stack bytes copied per sample, at most */
/*
 * The ring buffer's size is set at load time from the CPUs and the sampling
 * rate (core/trace/profile.c: PROFILE_USTACK_HOLD_MS of copies, a power of
 * two from PROFILE_USTACK_RING_MIN to PROFILE_USTACK_RING_MAX): its pages are
 * mapped into sonde twice and all count in its RSS. This is the size in the
 * object file, before that.
 */
#define PROFILE_USTACK_RING (256u << 10)
#define PROFILE_NREGS 17                /* x86_64 DWARF registers 0-16: rax..r15, rip */

/* One record of "ustacks" (core/perf/ustack.c parses it by these offsets). */
struct profile_ustack {
	struct profile_key key;         /* 0: the sample's counts key */
	__u64 regs[PROFILE_NREGS];      /* 32: DWARF order: ax dx cx bx si di bp sp r8..r15 ip */
	__u32 size;                     /* 168: bytes of data copied from regs[7] (sp) up */
	__u32 flags;                    /* 172: PROFILE_USTACK_* */
	__u8 data[PROFILE_USTACK_BYTES]; /* 176 */
};

#define PROFILE_USTACK_IN_KERNEL 1 /* the sample hit kernel mode: regs are the user regs at entry */

/* Counters (per-CPU array "cfistats"), separate from pstats. */
enum {
	PROFILE_CFI_COPIED,     /* records submitted */
	PROFILE_CFI_RING_FULL,  /* ring buffer full: the sample keeps its FP stack only */
	PROFILE_CFI_FAULT,      /* the first page of the stack could not be read (not resident) */
	PROFILE_CFI_NO_REGS,    /* no user registers (kernel thread, or not this architecture) */
	PROFILE_CFI_STAT_NR,
};

#endif
