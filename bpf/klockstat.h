/* SPDX-License-Identifier: GPL-2.0-or-later */
/* klockstat: kernel lock contention from lock:contention_begin/end; shared with user space. */
#ifndef SONDE_KLOCKSTAT_H
#define SONDE_KLOCKSTAT_H

/*
 * The contention_begin flags (include/trace/events/lock.h, Linux 5.19+). They
 * are #defines, not in the BTF: copied here. Combinations name the lock type
 * (core/trace/klockstat.c): 0 semaphore, SPIN spinlock, SPIN|READ rwlock:R,
 * SPIN|WRITE rwlock:W, READ rwsem:R, WRITE rwsem:W, RT rt-mutex, RT|READ
 * rwlock-rt:R, RT|WRITE rwlock-rt:W, PERCPU|READ pcpu-sem:R, PERCPU|WRITE
 * pcpu-sem:W, MUTEX mutex, MUTEX|SPIN mutex:spin (optimistic spinning).
 */
#define KLOCK_F_SPIN (1U << 0)
#define KLOCK_F_READ (1U << 1)
#define KLOCK_F_WRITE (1U << 2)
#define KLOCK_F_RT (1U << 3)
#define KLOCK_F_PERCPU (1U << 4)
#define KLOCK_F_MUTEX (1U << 5)
#define KLOCK_TYPES 64 /* flags & (KLOCK_TYPES - 1) index the per-type array */

#define KLOCK_SLOTS 32          /* log2 ns slots: up to 2^32 ns (4.3 s) and more in the last */
#define KLOCK_STACK_DEPTH 12    /* kernel frames kept: the tracer's own, the lock's, its callers */
#define KLOCK_MAX_STACKS 4096
#define KLOCK_MAX_WAITERS 10240 /* threads waiting for a lock at once */
#define KLOCK_MAX_CALLERS 4096  /* (stack, type) keys */
#define KLOCK_MAX_PROCS 4096    /* processes */

struct klock_stat {
	__u64 count, total_ns, max_ns;
};

/* Per lock type. */
struct klock_type_stat {
	__u64 count, total_ns, max_ns;
	__u64 slots[KLOCK_SLOTS];
};

/* One thread waiting for a lock. */
struct klock_wait {
	__u64 start_ns;
	__u64 lock;
	__u32 flags;
	__s32 stackid;
};

struct klock_caller_key {
	__s32 stackid; /* < 0: the stack was not kept (-EEXIST collision, -ENOMEM full) */
	__u32 flags;
};

struct klock_proc {
	struct klock_stat s;
	char comm[16];
};

/* Events that were not measured (global counters in a per-CPU array). */
enum {
	KLOCK_NESTED,     /* a begin while the thread already waits for another lock */
	KLOCK_UNMATCHED,  /* an end with no begin seen (begun before tracing, or nested) */
	KLOCK_NO_STACK,   /* waits whose stack was not kept */
	KLOCK_WAITERS_FULL,
	KLOCK_CNT_NR,
};

#endif
