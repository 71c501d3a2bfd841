/* SPDX-License-Identifier: GPL-2.0-or-later */
/* biolatency: block I/O latency per disk and operation, shared with user space. */
#ifndef SONDE_BIOLATENCY_H
#define SONDE_BIOLATENCY_H

#define BIOLAT_SLOTS 32       /* log2 microseconds */
#define BIOLAT_MAX_DISK_OPS 1024 /* (disk, op) pairs: 5 ops for 200 disks */
#define BIOLAT_MAX_INFLIGHT 16384 /* requests between insert/issue and complete */
#define BIOLAT_TOP 20         /* slowest I/Os kept per CPU; user space keeps the global top */
#define BIOLAT_MAX_IV_KEYS 4096 /* (disk, interval) pairs: 64 disks over 64 intervals */

enum biolat_op {
	BIOLAT_OP_READ,
	BIOLAT_OP_WRITE,
	BIOLAT_OP_DISCARD, /* discard and secure erase */
	BIOLAT_OP_FLUSH,
	BIOLAT_OP_OTHER,   /* write zeroes, zone management, driver-private */
	BIOLAT_OP_NR,
};

/* dev is the kernel's dev_t encoding: major << 20 | minor. */
struct biolat_key {
	__u32 dev;
	__u32 op;
};

struct biolat_stats {
	__u64 queue[BIOLAT_SLOTS];   /* insert -> issue, I/Os whose insert was seen */
	__u64 service[BIOLAT_SLOTS]; /* issue -> complete, every measured I/O */
	__u64 total[BIOLAT_SLOTS];   /* insert (or issue when no insert) -> complete */
	__u64 completed;             /* completions seen, measured or not */
	__u64 measured;              /* completions whose issue was seen */
	__u64 queued;                /* of those, whose insert was seen too */
	__u64 errors;                /* completions with an error status */
	__u64 bytes;                 /* bytes completed (all completions) */
	__u64 queue_ns, service_ns, total_ns;
};

/* The total latency of one disk's I/Os (every op) in one interval of the window. */
struct biolat_iv_key {
	__u32 dev;
	__u32 interval;
};

struct biolat_iv {
	__u64 slots[BIOLAT_SLOTS];
};

/* A started request: keyed by the request pointer, or (dev, sector) for classic tracepoints. */
struct biolat_start_key {
	__u64 a, b;
};

struct biolat_start {
	__u64 insert_ns; /* 0: not seen */
	__u64 issue_ns;  /* 0: not yet issued */
	__u32 pid;       /* thread that inserted or issued it (the first seen) */
	char comm[16];
};

struct biolat_slow {
	__u64 total_ns, queue_ns, service_ns;
	__u32 dev, op, bytes, pid;
	__u32 queued; /* 1: queue_ns measured (insert seen) */
	char comm[16];
};

struct biolat_top {
	struct biolat_slow io[BIOLAT_TOP];
	__u32 n;       /* slots used */
	__u32 min_idx; /* the fastest kept, replaced first */
};

#endif
