/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Parsers for the /proc and /sys text formats sonde captures: system-wide
 * files in parse_proc.c, per-process files in parse_pid.c.
 *
 * Every parser takes a buffer and its length (the buffer need not be
 * NUL-terminated; nothing is read past len), never allocates unless it says
 * so, and returns 0 or -EINVAL/-ENOMEM. A truncated or hostile file yields
 * either a partial result with the fields that were complete, or -EINVAL;
 * never a crash and never a read out of bounds.
 */
#ifndef SONDE_PARSE_H
#define SONDE_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* One line of /proc/stat "cpu" or "cpuN", in USER_HZ ticks. */
struct cpu_times {
	uint64_t user, nice, system, idle, iowait, irq, softirq, steal, guest, guest_nice;
};

/* /proc/stat. cpu[] is allocated (ncpu entries, cpu_id[] gives each N of "cpuN"). */
struct proc_stat {
	struct cpu_times total;
	int ncpu;
	int *cpu_id;
	struct cpu_times *cpu;
	uint64_t ctxt, processes, procs_running, procs_blocked, btime;
};
int parse_proc_stat(const char *buf, size_t len, struct proc_stat *out);
void proc_stat__free(struct proc_stat *ps);

/* /proc/loadavg: "0.20 0.18 0.12 1/80 11206" */
struct loadavg {
	double load1, load5, load15;
	uint64_t runnable, threads, last_pid;
};
int parse_loadavg(const char *buf, size_t len, struct loadavg *out);

/* /proc/pressure/<res>: "some avg10=.. avg60=.. avg300=.. total=..", optional "full ..." */
struct psi_line {
	int present;
	double avg10, avg60, avg300;
	uint64_t total_us;
};
struct psi {
	struct psi_line some, full;
};
int parse_pressure(const char *buf, size_t len, struct psi *out);

/*
 * Key/value files: /proc/meminfo ("Key:   123 kB"), /proc/vmstat ("key 123"),
 * /proc/PID/io ("key: 123"), /proc/PID/status ("Key:\tvalue"), /proc/net/snmp
 * and /proc/net/netstat (a header line "Tcp: A B" then a value line
 * "Tcp: 1 2"; keys are reported as "Tcp.A").
 * The callback gets the key (not NUL-terminated, klen bytes) and the value
 * text with surrounding blanks removed (vlen bytes). A non-zero return from
 * the callback stops the walk and is returned.
 */
typedef int (*kv_fn)(const char *key, size_t klen, const char *val, size_t vlen, void *arg);
int parse_kv(const char *buf, size_t len, kv_fn fn, void *arg);
int parse_snmp(const char *buf, size_t len, kv_fn fn, void *arg);

/*
 * Numeric value of a kv value text: leading integer, an optional " kB" unit is
 * multiplied out to bytes when to_bytes is set. Returns 0 or -EINVAL.
 */
int parse_kv_u64(const char *val, size_t vlen, int to_bytes, uint64_t *out);
/* A non-negative decimal value ("12.5"), leading blanks skipped. 0 or -EINVAL. */
int parse_kv_decimal(const char *val, size_t vlen, double *out);
/* Signed variant (vmstat has a few counters that can go negative, e.g. nr_* drift). */
int parse_kv_i64(const char *val, size_t vlen, int64_t *out);

/* /proc/diskstats, one device per line; fields after 14 are optional (kernel >= 4.18, 5.5). */
struct diskstat {
	unsigned major, minor;
	char name[64];
	uint64_t rd_ios, rd_merges, rd_sectors, rd_ticks;
	uint64_t wr_ios, wr_merges, wr_sectors, wr_ticks;
	uint64_t in_flight, io_ticks, time_in_queue;
	uint64_t dc_ios, dc_merges, dc_sectors, dc_ticks; /* discard, 0 when absent */
	uint64_t fl_ios, fl_ticks;                        /* flush, 0 when absent */
	int nfields;                                      /* numeric fields found */
};
typedef int (*diskstat_fn)(const struct diskstat *ds, void *arg);
int parse_diskstats(const char *buf, size_t len, diskstat_fn fn, void *arg);

/* /proc/net/dev, one interface per line after the two header lines. */
struct netdev {
	char name[64];
	uint64_t rx_bytes, rx_packets, rx_errs, rx_drop, rx_fifo, rx_frame, rx_compressed, rx_multicast;
	uint64_t tx_bytes, tx_packets, tx_errs, tx_drop, tx_fifo, tx_colls, tx_carrier, tx_compressed;
};
typedef int (*netdev_fn)(const struct netdev *nd, void *arg);
int parse_net_dev(const char *buf, size_t len, netdev_fn fn, void *arg);

/* /proc/sys/fs/file-nr: "allocated unused max" */
struct file_nr {
	uint64_t allocated, unused, max;
};
int parse_file_nr(const char *buf, size_t len, struct file_nr *out);

/*
 * /proc/PID/stat. comm is whatever lies between the first '(' and the LAST ')'
 * (a process may call itself "a) S 1 (b"); bytes are kept as they are (up to
 * 63, NUL-terminated), the renderers escape them.
 */
struct pid_stat {
	int pid;
	char comm[64];
	char state;
	int ppid;
	uint64_t minflt, majflt, utime, stime;
	int64_t nice;
	uint64_t num_threads, starttime, vsize, rss_pages;
	int processor;
	uint64_t blkio_ticks; /* delayacct_blkio_ticks, 0 when absent */
	int nfields;          /* fields after the comm that were found */
};
int parse_pid_stat(const char *buf, size_t len, struct pid_stat *out);

/*
 * A sonde:task/PID record (docs/capture-format.md): one process as a task
 * source (the BPF task iterator) gave it, in /proc's units, one line:
 * "PID (COMM) STATE PPID KTHREAD THREADS RSS_PAGES PROCESSOR UTIME STIME
 * MINFLT MAJFLT BLKIO_TICKS STARTTIME UID VOL_CTXT NONVOL_CTXT RUN_NS WAIT_NS
 * SLICES FDS NOFILE_SOFT NOFILE_HARD RCHAR WCHAR SYSCR SYSCW READ_BYTES
 * WRITE_BYTES"; UID, FDS and the six I/O counters may be "-" (unknown: all
 * six or none), the limits "unlimited".
 */
struct pid_task {
	int pid, ppid;
	char comm[64];
	char state;
	int kernel_thread;
	uint64_t threads, rss_pages;
	int processor;
	uint64_t utime, stime, minflt, majflt, blkio_ticks, starttime;
	int64_t uid;
	uint64_t vol_ctxt, nonvol_ctxt, run_ns, wait_ns, slices;
	int64_t fds;                       /* -1 unknown */
	uint64_t nofile_soft, nofile_hard; /* UINT64_MAX unlimited */
	int has_io;
	uint64_t rchar, wchar, syscr, syscw, read_bytes, write_bytes;
	uint64_t anon_pages, swap_pages;   /* RssAnon, VmSwap; UINT64_MAX unknown (or absent) */
	/* as scanned, before the checks above */
	uint64_t ppid_u, kthread_u, processor_u, uid_u, fds_u;
};
int parse_task_record(const char *buf, size_t len, struct pid_task *out);

/* Selected fields of /proc/PID/status. */
struct pid_status {
	char name[64]; /* as the kernel prints it (escaped by the kernel) */
	char state;
	int ppid;
	int64_t uid;   /* real uid, -1 when absent */
	uint64_t threads;
	uint64_t vm_rss_kb;
	uint64_t rss_anon_kb, vm_swap_kb; /* anonymous resident and swapped-out memory */
	int has_anon, has_swap;           /* kernel threads have neither line */
	uint64_t vol_ctxt, nonvol_ctxt;
	int has_ctxt;
};
int parse_pid_status(const char *buf, size_t len, struct pid_status *out);

/* /proc/PID/io */
struct pid_io {
	uint64_t rchar, wchar, syscr, syscw, read_bytes, write_bytes, cancelled_write_bytes;
	int present;
};
int parse_pid_io(const char *buf, size_t len, struct pid_io *out);

/*
 * /proc/PID/schedstat: "run_ns wait_ns timeslices\n": time on a CPU, time
 * runnable but waiting on a run queue (0 on kernels without sched_info
 * accounting), and the number of times it was scheduled in.
 */
struct pid_schedstat {
	uint64_t run_ns, wait_ns, slices;
};
int parse_pid_schedstat(const char *buf, size_t len, struct pid_schedstat *out);

/*
 * /proc/PID/task/TID/syscall: "NR ARG0 ... ARG5 SP PC" while blocked in a
 * syscall (args in hex), "-1 SP PC" blocked outside one (a fault), "running".
 */
struct pid_syscall {
	long nr;           /* -1: not in a syscall (or running) */
	int running;
	int nargs;
	uint64_t args[6];
};
int parse_pid_syscall(const char *buf, size_t len, struct pid_syscall *out);
/*
 * /proc/PID/task/TID/stack ("[<0>] fn+0x1/0x2" a line, leaf first) as the
 * thread states write a kernel stack: "fn<fn<fn", the scheduler's frames at
 * the top left out (util/waits.h). 0, or -ENOENT with no frame.
 */
int parse_kernel_stack(const char *buf, size_t len, char *out, size_t outlen);
/* The socket of inode ino in /proc/net/tcp, tcp6, udp or udp6 (v6: the 6 files). */
struct net_inet_sock {
	uint8_t laddr[16], raddr[16]; /* network order */
	unsigned lport, rport, state, rx_queue;
};
int parse_net_inet_find(const char *buf, size_t len, uint64_t ino, int v6,
			struct net_inet_sock *out);

/*
 * One line of the thread states' record, sonde:threads (docs/capture-format.md,
 * proc.threads), without its '\n'. Words point into the line (not
 * NUL-terminated; n 0 for "-").
 */
struct threads_word {
	const char *p;
	size_t n;
};

struct threads_line {
	char kind;                /* H T W X L C S */
	int tid, tgid;            /* T both; W X tid; L C tgid */
	uint64_t start, run, runq, nvcsw, nivcsw; /* T */
	int has_delays;
	uint64_t delays[4];       /* T: blkio, swapin, reclaim, thrashing ns */
	uint64_t count;           /* W */
	uint64_t passes, run_max, run_sum; /* C; S: passes, cpu_ns, lost */
	uint64_t dt;              /* H: ns since the last round */
	int listed;               /* H: only the processes of L lines were read */
	/* T and W: the wait, STATE FLAGS SYSCALL ARGS OBJECT KSTACK (words: all of it) */
	struct threads_word words, flags, syscall, args, object, kstack;
	char state;
	int has_args;
	uint64_t args_v[3];
};
int parse_threads_line(const char *ls, const char *le, struct threads_line *out);

/* /proc/PID/limits: the "Max open files" soft and hard limits; UINT64_MAX for "unlimited". */
int parse_pid_limits_nofile(const char *buf, size_t len, uint64_t *soft, uint64_t *hard);

/* A field of /proc/PID/mountinfo unescaped in place: space, tab, newline and backslash come as \ooo. */
void parse_mountinfo_unescape(char *s);

/*
 * The increase of a cumulative counter between two readings. A counter that
 * went backwards is either a 32-bit counter that wrapped (prev near the top
 * of the 32-bit range, cur near the bottom: the wrapped distance is
 * returned) or a reset or backward step (0 is returned and *reset is set).
 * reset may be NULL.
 */
uint64_t counter__delta(uint64_t prev, uint64_t cur, int *reset);

/*
 * /proc/interrupts: one callback per line with the line's name ("0", "MCE",
 * "LOC"), its description (text after the per-CPU counts, trimmed) and the
 * sum of its per-CPU counts. The first line (CPU header) gives the column count.
 */
typedef int (*interrupts_fn)(const char *name, size_t nlen, const char *desc, size_t dlen,
			     uint64_t total, void *arg);
int parse_interrupts(const char *buf, size_t len, interrupts_fn fn, void *arg);

/*
 * /proc/schedstat (CONFIG_SCHEDSTATS): one callback per "cpuN" line with the
 * time its run queue ran tasks, the time tasks waited on it to run (run
 * delay), both in ns, and the timeslices it gave. Domain lines are skipped;
 * versions before 15 (other field order) are -EINVAL.
 */
typedef int (*schedstat_fn)(int cpu, uint64_t run_ns, uint64_t wait_ns, uint64_t slices,
			    void *arg);
int parse_schedstat(const char *buf, size_t len, schedstat_fn fn, void *arg);

/*
 * One line of a tracefs instance's trace_pipe with options/record-tgid on
 * (parse_ftrace.c): "COMM-PID (TGID) [CPU] FLAGS SECONDS: EVENT: FIELDS".
 * event and fields point into the line (not NUL-terminated).
 */
struct ftrace_line {
	char comm[16];
	int pid, tgid;  /* tgid -1 when the line has none ("-----") */
	int cpu;
	uint64_t ts_ns; /* the instance's trace_clock (sonde sets mono: CLOCK_MONOTONIC) */
	const char *event, *fields;
	size_t event_len, fields_len;
};
int parse_ftrace_line(const char *ls, const char *le, struct ftrace_line *out);
/* "CPU:3 [LOST 12 EVENTS]": 0 with the count, or -EINVAL for any other line. */
int parse_ftrace_lost(const char *ls, const char *le, uint64_t *lost);
/*
 * The value of name= in an event's fields: up to the next " key=" (a comm
 * may hold blanks). 0, or -ENOENT. parse_ftrace_int: a decimal value;
 * -ENOENT or -EINVAL.
 */
int parse_ftrace_field(const char *fields, size_t len, const char *name, const char **val,
		       size_t *vlen);
int parse_ftrace_int(const char *fields, size_t len, const char *name, int64_t *out);

#endif
