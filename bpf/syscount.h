/* SPDX-License-Identifier: GPL-2.0-or-later */
/* syscount: system calls per process and per syscall, with errors and time; shared with user space. */
#ifndef SONDE_SYSCOUNT_H
#define SONDE_SYSCOUNT_H

/*
 * Syscall numbers at or above this land in the last slot ("other"): x86-64 and
 * arm64 stay under 512; ia32 compat and x32 numbers do not (x32 sets bit 30).
 */
#define SYSCOUNT_MAX_ID 1024
#define SYSCOUNT_MAX_THREADS 16384   /* syscalls in flight (LRU: the stalest go first) */
#define SYSCOUNT_MAX_PROCS 10240     /* processes (tgid) seen making syscalls */
#define SYSCOUNT_MAX_ERRS 4096       /* distinct (syscall, errno) failures */
#define SYSCOUNT_MAX_PROC_ERRS 8192  /* distinct (process, syscall, errno) failures */
#define SYSCOUNT_MAX_ERRNO 4095      /* the kernel's error returns are -1 .. -4095 */

/* Per CPU, summed by user space. */
struct syscount_stat {
	__u64 count, errors, total_ns;
};

/* A syscall in flight on one thread. */
struct syscount_inflight {
	__u64 start_ns;
	__u32 id;
	__u32 pad;
};

struct syscount_err_key {
	__u32 id, err; /* err: the positive errno */
};

struct syscount_proc_err_key {
	__u32 tgid, id, err;
};

struct syscount_comm {
	char comm[16];
};

#endif
