/* SPDX-License-Identifier: GPL-2.0-or-later */
/* futexctn: time threads block in futex waits, per process and per futex; shared with user space. */
#ifndef SONDE_FUTEXCTN_H
#define SONDE_FUTEXCTN_H

/* futex(2) commands (include/uapi/linux/futex.h): the ones that block. */
#define FUTEX_CMD_WAIT 0
#define FUTEX_CMD_LOCK_PI 6
#define FUTEX_CMD_WAIT_BITSET 9
#define FUTEX_CMD_WAIT_REQUEUE_PI 11
#define FUTEX_CMD_LOCK_PI2 13
#define FUTEX_CMD_MASK (~(128 | 256)) /* without FUTEX_PRIVATE_FLAG, FUTEX_CLOCK_REALTIME */

#define FUTEXCTN_SLOTS 32          /* log2 us slots */
#define FUTEXCTN_MAX_THREADS 10240 /* threads in a futex wait at once (LRU) */
#define FUTEXCTN_MAX_PROCS 4096
#define FUTEXCTN_MAX_LOCKS 8192    /* (process, futex address) keys */

struct futexctn_stat {
	__u64 count, total_ns, max_ns;
	__u64 lock_count, lock_ns; /* of which lock-like waits (below) */
	__u64 errors;              /* waits that returned an error other than EAGAIN/ETIMEDOUT/EINTR */
};

/* A futex wait in flight on one thread. */
struct futexctn_inflight {
	__u64 start_ns;
	__u64 uaddr;
	__u32 kind; /* 1: lock-like (a glibc mutex waiting with value 2, or a PI lock) */
	__u32 pad;
};

struct futexctn_lock_key {
	__u32 tgid;
	__u32 pad;
	__u64 uaddr;
};

struct futexctn_proc {
	struct futexctn_stat s;
	char comm[16];
};

struct futexctn_hist {
	__u64 slots[FUTEXCTN_SLOTS];
	__u64 lock_slots[FUTEXCTN_SLOTS];
};

#endif
