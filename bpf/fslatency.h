/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fslatency: how long file syscalls take, per process, syscall class and mount,
 * per interval of the window, and the slowest calls; shared with user space.
 */
#ifndef SONDE_FSLATENCY_H
#define SONDE_FSLATENCY_H

#define FSLAT_MAX_ID 512         /* syscall numbers at or above: not traced (x86-64, arm64 stay under) */
#define FSLAT_SLOTS 27           /* log2 slots of microseconds: the last is 2^26 us (67 s) and more */
#define FSLAT_MAX_THREADS 16384  /* calls in flight (LRU: the stalest go first) */
#define FSLAT_MAX_KEYS 4096      /* (process, class, mount) seen */
#define FSLAT_MAX_PROCS 4096     /* processes named */
#define FSLAT_MAX_MOUNTS 1024    /* mounts seen */
#define FSLAT_TOP 16             /* slowest calls kept per CPU */
#define FSLAT_NAME 32            /* file name bytes kept (the dentry's last component) */

/* The syscall classes (targ_class[id]); 0: not traced. User space names them. */
enum fslat_class {
	FSLAT_NONE,
	FSLAT_READ,            /* read */
	FSLAT_WRITE,           /* write */
	FSLAT_PREAD,           /* pread64, preadv, preadv2 */
	FSLAT_PWRITE,          /* pwrite64, pwritev, pwritev2 */
	FSLAT_READV,           /* readv */
	FSLAT_WRITEV,          /* writev */
	FSLAT_OPEN,            /* open, openat, openat2, creat: the file is the one returned */
	FSLAT_FSYNC,           /* fsync */
	FSLAT_FDATASYNC,       /* fdatasync */
	FSLAT_SYNC_FILE_RANGE, /* sync_file_range, sync_file_range2 */
	FSLAT_IO_URING_ENTER,  /* io_uring_enter: the ring's fd, waiting for completions included */
	FSLAT_NR_CLASSES,
};

/* A call in flight on one thread. */
struct fslat_inflight {
	__u64 start_ns;
	__s32 fd;       /* -1: resolved at exit from the return value (open) */
	__u32 class;
};

struct fslat_key {
	__u32 tgid;
	__u32 class;
	__u32 mnt_id;   /* the mount's id (/proc/PID/mountinfo's first field); 0: no file */
	__u32 pad;
};

/* Per CPU, summed by user space (max_ns: the largest over the CPUs). */
struct fslat_stat {
	__u64 count, total_ns, max_ns, bytes;
	__u64 slots[FSLAT_SLOTS];
};

struct fslat_mount {
	__u32 dev;      /* the superblock's s_dev (kernel encoding: major << 20 | minor) */
	__u32 pad;
	char fstype[16];
};

struct fslat_comm {
	char comm[16];
};

/* One of the slowest calls. */
struct fslat_slow {
	__u64 lat_ns;
	__u64 at_ns;    /* the call's end (CLOCK_MONOTONIC) */
	__s64 ret;
	__u32 tgid, tid;
	__u32 class, mnt_id;
	__s32 fd;
	__u32 pad;
	char comm[16];
	char name[FSLAT_NAME];
};

/* A CPU's slowest calls (a per-CPU array of one). */
struct fslat_top {
	__u64 min_ns;   /* the smallest latency kept (0 while a slot is free) */
	__u32 min_idx;  /* its slot: the next to be replaced */
	__u32 pad;
	struct fslat_slow e[FSLAT_TOP];
};

#endif
