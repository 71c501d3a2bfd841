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
#define TASKS_HAVE_WAIT 0x40 /* a struct tasks_wait (and its stack) follows the record */

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
	__u32 tail, pad2;             /* bytes after this record: its struct tasks_wait and stack */
};

/*
 * What a thread waits in, now: the thread-state analysis of one pass
 * (Gregg's TSA method). Written after the tasks_rec of every thread with an
 * address space and of a kernel thread in uninterruptible sleep, and alone,
 * one per thread of the suspects, by the sampler (dump_wait). The syscall
 * the thread is in and its first three arguments (from the registers saved
 * at kernel entry), the file behind its fd argument (a socket's addresses, a
 * pipe, a file's device and inode, an anonymous inode's name) and, in
 * uninterruptible sleep, its kernel stack (nstack addresses follow).
 */
#define TASKS_KSTACK 12

/* tasks_wait flags */
#define WAIT_ONCPU 0x1    /* on a CPU now (task->on_cpu) */
#define WAIT_IOWAIT 0x2   /* in_iowait: sleeping on I/O the kernel counts as iowait */
#define WAIT_SYSCALL 0x4  /* syscall and args are read (registers known) */
#define WAIT_FD 0x8       /* the fd argument's file is known: mode, dev, ino */
#define WAIT_SOCK 0x10    /* it is a socket: the sk_* fields */
#define WAIT_POLLFD 0x20  /* the fd came from poll's array (user memory), fd says which */
#define WAIT_DELAYS 0x40  /* the delay accounting fields are read (task->delays) */
#define WAIT_KTHREAD 0x80 /* a kernel thread */
#define WAIT_ANON 0x100   /* an anonymous inode: anon holds its name */

struct tasks_wait {
	__u32 pid, tgid;
	__u32 state, flags;
	__u64 start_time;                 /* ns, CLOCK_MONOTONIC (task->start_time) */
	__u64 sum_exec, run_delay;        /* ns on a CPU, ns waiting on a run queue */
	__u64 nvcsw, nivcsw;
	__s64 syscall;                    /* -1: not in a syscall (user mode, a fault) */
	__u64 args[3];
	__u64 delay_blkio, delay_swapin, delay_freepages, delay_thrashing; /* ns */
	__s32 fd;                         /* the fd resolved, -1 none */
	__u32 i_mode, dev;                /* its inode's mode (S_IFMT bits), i_sb->s_dev */
	__u32 nstack;                     /* kernel stack addresses after this struct */
	__u64 ino;
	__u16 sk_family, sk_type, sk_proto, sk_lport, sk_rport; /* ports in host order */
	__u8 sk_state, pad;
	__u32 sk_backlog;                 /* a listener's accept queue (sk_ack_backlog) */
	__u8 sk_laddr[16], sk_raddr[16];  /* IPv4 in the first 4 bytes */
	char anon[16];                    /* an anonymous inode's name: [eventpoll], ... */
};

/* Syscall numbers the pass resolves an fd argument for: a bitmap, set by user space. */
#define TASKS_SYSCALL_BITS 512

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
