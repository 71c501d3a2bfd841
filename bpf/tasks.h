/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tasks: the task iterator's record, one per thread (bpf/tasks.bpf.c writes
 * them to the iterator's seq_file, core/trace/tasks.c reads them and folds
 * them into one sample per process). Raw kernel units: nanoseconds, pages.
 */
#ifndef SONDE_TASKS_H
#define SONDE_TASKS_H

#define TASKS_COMM_LEN 16

/* flags */
#define TASKS_LEADER 0x1     /* the thread-group leader: the per-process fields are set */
#define TASKS_HAVE_MM 0x2    /* has an address space (not a kernel thread or an exited leader) */
#define TASKS_HAVE_FILES 0x4 /* has a file table: fds counted */
#define TASKS_FDS_CUT 0x8    /* a table larger than the iterator counts: fds unknown */
#define TASKS_HAVE_IO 0x10   /* the kernel keeps I/O accounting (CONFIG_TASK_XACCT) */
#define TASKS_KTHREAD 0x20   /* PF_KTHREAD */

/* A file table is counted up to this many fds (bits of open_fds); a larger one is TASKS_FDS_CUT. */
#define TASKS_FDS_MAX 65536

struct tasks_io {
	__u64 rchar, wchar, syscr, syscw, read_bytes, write_bytes;
};

struct tasks_rec {
	__u32 pid, tgid, ppid, flags;
	__u32 state, exit_state; /* task->__state, ->exit_state */
	__u32 cpu, uid;          /* task_cpu(); the real uid */
	__u32 nr_threads, pad;
	char comm[TASKS_COMM_LEN];
	/* this thread */
	__u64 utime, stime, sum_exec; /* ns */
	__u64 min_flt, maj_flt;
	__u64 nvcsw, nivcsw;
	__u64 run_delay, pcount;      /* sched_info: time waiting on a run queue, times run */
	struct tasks_io io;
	/* the leader only: the process as a whole */
	__u64 start_boottime;         /* ns after boot */
	__u64 blkio_delay;            /* ns, 0 without delay accounting */
	__u64 rss_pages;              /* file + anon + shmem */
	__u64 sig_utime, sig_stime, sig_sum_exec; /* of the threads that exited */
	__u64 sig_min_flt, sig_maj_flt;
	struct tasks_io sig_io;
	__u64 prev_utime, prev_stime; /* what /proc last showed (signal->prev_cputime) */
	__u64 nofile_cur, nofile_max;
	__u64 fds;
	__u64 anon_pages, swap_pages; /* MM_ANONPAGES, MM_SWAPENTS: status's RssAnon, VmSwap */
};

/*
 * The command lines pass (dump_cmdline, a sleepable iterator, Linux 5.18 and
 * later for bpf_copy_from_user_task): one record per process with an address
 * space, the header then len bytes, unaligned. The bytes are what the process's
 * /proc/PID/cmdline would read, up to TASKS_CMDLINE_MAX (with setproctitle(3),
 * the first page up to its first NUL: the user side cuts it).
 */
#define TASKS_CMDLINE_MAX 4096

/* tasks_cmdline flags */
#define TASKS_CMDLINE_CUT 0x1       /* the area read is longer than TASKS_CMDLINE_MAX */
#define TASKS_CMDLINE_FAULT 0x2     /* its memory could not be read here: ask /proc */
#define TASKS_CMDLINE_PROCTITLE 0x4 /* overwritten by setproctitle(3): up to the first NUL */

struct tasks_cmdline {
	__u32 tgid, len, flags, pad;
};

#endif
