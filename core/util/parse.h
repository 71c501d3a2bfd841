/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Parsers for the /proc and /sys text formats sonde captures, and for the
 * records sonde composes beside them (docs/capture-format.md). This is where
 * text becomes numbers: the collectors and the Lua bindings above call these
 * and never scan numbers themselves (tests/layout/parse.t). One file per
 * family (core/util/README.md): system-wide files in parse_proc.c,
 * per-process files in parse_pid.c, the thread states in parse_thread.c,
 * one-value files in parse_value.c, mounts and capacity in parse_mount.c,
 * devices and nodes of /sys in parse_sys.c, the network tables in
 * parse_net.c.
 *
 * Every parser takes a buffer and its length (the buffer need not be
 * NUL-terminated; nothing is read past len), never allocates unless it says
 * so, and returns 0 or -EINVAL/-ENOMEM. A truncated or hostile file yields
 * either a partial result with the fields that were complete, or -EINVAL;
 * never a crash and never a read out of bounds.
 *
 * The truncated last line, one rule for every parser: the kernel ends every
 * line it prints with '\n', and so does sonde in every record it composes,
 * so bytes after the last '\n' are the cut-off part of a truncated read (the
 * file grew past the reader's buffer, a capture was cut short). A counter
 * "224074\n" cut to "2240" must not be reported as 2240: the next delta
 * would look like a reset. Therefore:
 *
 * - a multi-line file or record gives its complete lines only (a parser that
 *   calls back per line never calls back for the tail);
 * - a one-line file (loadavg, file-nr, uptime, a /proc/sys or /sys value) is
 *   -EINVAL until its '\n' is there;
 * - /proc/PID/stat, one long line, keeps only the fields that a following
 *   blank or '\n' proves complete (nfields counts them).
 *
 * Code that walks the lines of a record itself uses parse_line(), which
 * applies the same rule.
 */
#ifndef SONDE_PARSE_H
#define SONDE_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A word of a parsed line: it points into the caller's buffer, not NUL-terminated. */
struct parse_word {
	const char *p;
	size_t n;
};

/*
 * The next complete line at *pos, before end: [*ls, *le) with *le on its
 * '\n', *pos moved past it. False at the end and for a tail without '\n'
 * (the rule above).
 */
bool parse_line(const char **pos, const char *end, const char **ls, const char **le);
/* w as a C string in out; false (out "") when it does not fit in outlen - 1 bytes. */
bool parse_word_cstr(struct parse_word w, char *out, size_t outlen);
/* w is the C string lit. */
bool parse_word_is_str(struct parse_word w, const char *lit);

/* One line of /proc/stat "cpu" or "cpuN", in USER_HZ ticks. */
struct cpu_times {
	uint64_t user, nice, system, idle, iowait, irq, softirq, steal, guest, guest_nice;
};

/*
 * /proc/stat. cpu[] is allocated (ncpu entries, cpu_id[] gives each N of
 * "cpuN"). intr is the "intr" line's total, intr_numbered the sum of its
 * numbered IRQs (the total also counts the local timer and IPIs); softirq
 * the "softirq" line's total. have says which of the lines were read.
 */
enum {
	PROC_STAT_CTXT = 1, PROC_STAT_BTIME = 2, PROC_STAT_PROCESSES = 4,
	PROC_STAT_PROCS_RUNNING = 8, PROC_STAT_PROCS_BLOCKED = 16, PROC_STAT_INTR = 32,
	PROC_STAT_SOFTIRQ = 64,
};
struct proc_stat {
	struct cpu_times total;
	int ncpu;
	int *cpu_id;
	struct cpu_times *cpu;
	uint64_t ctxt, processes, procs_running, procs_blocked, btime;
	uint64_t intr, intr_numbered, softirq;
	unsigned have; /* PROC_STAT_* */
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

/*
 * A double as sonde prints it into its own records ("%.17g": sign, exponent,
 * "inf" and "nan" included), blanks around it skipped; it reads back the
 * same double. 0 or -EINVAL.
 */
int parse_kv_double(const char *val, size_t vlen, double *out);
/* A hex number alone ("000001ffffffffff", "0x1f": CapEff, sonde's observer_cap_eff), blanks around it. */
int parse_kv_hex(const char *val, size_t vlen, uint64_t *out);

/*
 * One-value files: /proc/sys and /sys attributes ("256\n", "-1\n",
 * "0x1f\n"). The line must be complete and hold the number alone (blanks
 * around it aside); 0 or -EINVAL. parse_value_hex takes hex digits with or
 * without "0x" (ioerr_cnt); parse_value_u64s a line of exactly n decimal
 * numbers apart by blanks (/sys/block/DEV/inflight "  0  0",
 * ip_local_port_range "32768\t60999").
 */
int parse_value_u64(const char *buf, size_t len, uint64_t *out);
int parse_value_i64(const char *buf, size_t len, int64_t *out);
int parse_value_hex(const char *buf, size_t len, uint64_t *out);
int parse_value_u64s(const char *buf, size_t len, uint64_t *v, size_t n);

/*
 * A bundle: record of raw/history.cap (docs/capture-format.md, history):
 * "boot_id ID", "end_wall_ns NS", "metric\tCHECK\tMETRIC\tINSTANCE\tVALUE"
 * (VALUE as parse_kv_double reads it); "host H" and other lines are skipped.
 */
struct history_line {
	enum { HISTORY_BOOT_ID, HISTORY_END_WALL_NS, HISTORY_METRIC } kind;
	struct parse_word boot_id;
	int64_t end_wall_ns;
	struct parse_word check, metric, instance;
	double value;
};
typedef int (*history_fn)(const struct history_line *h, void *arg);
int parse_history_record(const char *buf, size_t len, history_fn fn, void *arg);

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

/* /proc/uptime: "8710.75 2601.65", seconds up and idle (summed over the CPUs); idle may be NULL. */
int parse_uptime(const char *buf, size_t len, double *up, double *idle);

/*
 * /dev/kmsg as kernel.log and host.context capture it, one callback per
 * line: a record "PRIO,SEQ,USEC,FLAGS;TEXT" (kind KMSG_RECORD: prio, seq,
 * usec, text), a line of the record's dictionary (" SUBSYSTEM=pci",
 * KMSG_DICT) or anything else (KMSG_OTHER); line is the whole line.
 */
struct kmsg_line {
	enum { KMSG_RECORD, KMSG_DICT, KMSG_OTHER } kind;
	int prio;
	uint64_t seq, usec;
	struct parse_word text, line;
};
typedef int (*kmsg_fn)(const struct kmsg_line *k, void *arg);
int parse_kmsg(const char *buf, size_t len, kmsg_fn fn, void *arg);

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

/* ---- pids in names, and sonde's per-process records (parse_pid.c) ---- */

/* The largest pid a name may spell: above any pid_max (PID_MAX_LIMIT is 2^22). */
#define PARSE_PID_MAX (1 << 30)
/* A pid as /proc names its directory ("1234", all of [s, s + n)): 1..PARSE_PID_MAX, else -1. */
int parse_pid_name(const char *s, size_t n);
/*
 * The pid of a capture path: "/proc/PID/FILE" (*file: FILE) or
 * "sonde:task/PID" (*file: "task"); -1 for any other path.
 */
int parse_capture_pid_path(const char *path, const char **file);

/* sonde:fds (docs/capture-format.md): "PID N" a line, N the process's open fds that round. */
typedef int (*pid_fds_fn)(int pid, uint64_t fds, void *arg);
int parse_fds_record(const char *buf, size_t len, pid_fds_fn fn, void *arg);

/*
 * sonde:files, tab-separated lines: "suspect PID REASONS", "cwd PID MAJ:MIN
 * INO PATH", "file PID FD MODE MAJ:MIN INO SIZE ALLOCATED NLINK PATH" and
 * "cut" (the record's bound was reached). PATH is escaped as mountinfo's
 * (parse_unescape_octal); REASONS is comma-separated.
 */
struct files_line {
	enum { FILES_SUSPECT, FILES_CWD, FILES_FILE, FILES_CUT } kind;
	int pid;
	struct parse_word reasons;            /* suspect */
	struct parse_word dev, path;          /* cwd, file */
	uint64_t ino;
	struct parse_word mode;               /* file: "r", "w", "rw" */
	uint64_t fd, size, blocks_bytes, nlink;
};
typedef int (*files_fn)(const struct files_line *f, void *arg);
int parse_files_record(const char *buf, size_t len, files_fn fn, void *arg);

/* cgroup.procs (and a v1 "tasks"): a pid a line. */
typedef int (*pid_fn)(int pid, void *arg);
int parse_pid_list(const char *buf, size_t len, pid_fn fn, void *arg);

/* ---- mounts and their capacity (parse_mount.c) ---- */

/*
 * A path as mountinfo, /proc/swaps and sonde's records print it: space, tab,
 * newline and backslash come as \ooo. parse_unescape_octal writes the n
 * bytes at s unescaped into out (n bytes are enough; out may be s) and
 * returns their length; a cut escape ("\04" at the end) stays as it is.
 * parse_mountinfo_unescape does it in place on a C string.
 */
size_t parse_unescape_octal(const char *s, size_t n, char *out);
void parse_mountinfo_unescape(char *s);

/*
 * /proc/PID/mountinfo, one mount a line: "36 35 98:0 /mnt1 /mnt2 rw,noatime
 * master:1 - ext3 /dev/root rw,errors=continue". The words are as the kernel
 * escapes them (parse_unescape_octal); source is empty (n 0) for a mount
 * whose source was "". A line of another shape is skipped.
 */
struct mountinfo_line {
	uint64_t id, parent;
	unsigned major, minor;
	struct parse_word dev; /* "98:0" */
	struct parse_word root, point, options, fstype, source, super;
};
typedef int (*mountinfo_fn)(const struct mountinfo_line *m, void *arg);
int parse_mountinfo(const char *buf, size_t len, mountinfo_fn fn, void *arg);

/* /proc/swaps after its header line: "Filename Type Size Used Priority", sizes in KiB. */
struct swap_line {
	struct parse_word name, type; /* name escaped as in mountinfo */
	uint64_t size_kb, used_kb;
	int64_t priority;
};
typedef int (*swaps_fn)(const struct swap_line *s, void *arg);
int parse_swaps(const char *buf, size_t len, swaps_fn fn, void *arg);

/*
 * sonde:statfs (docs/capture-format.md), one mount a line, tab-separated:
 * "STATUS MAJ:MIN FSTYPE SOURCE MOUNT DEVICE", and for status "ok" the
 * statvfs numbers "frsize blocks bfree bavail files ffree flag". A line of
 * fewer than 6 fields, more than 7 or an empty mount point (the final
 * "cut\tN") is skipped.
 */
struct statfs_line {
	struct parse_word status, dev, fstype, source, point;
	struct parse_word device;  /* the kernel's name of the block device; n 0 for "-" */
	struct parse_word numbers; /* the 7th field as it is */
	int nfields;               /* 6 or 7 */
	int has_numbers;           /* the 7th field is the seven numbers */
	uint64_t frsize, blocks, bfree, bavail, files, ffree, flag;
	int has_err, err;          /* status "err=N": statvfs failed with errno N (0: unreadable N) */
};
typedef int (*statfs_fn)(const struct statfs_line *s, void *arg);
int parse_statfs_record(const char *buf, size_t len, statfs_fn fn, void *arg);

/*
 * sonde:cgroups (collect/cgroups.c), a hierarchy a line: "VERSION MOUNT
 * [CONTROLLERS]", VERSION 1 or 2, CONTROLLERS comma-separated (n 0: none
 * listed).
 */
struct cgroup_hier_line {
	int version;
	struct parse_word mount, controllers;
};
typedef int (*cgroup_hier_fn)(const struct cgroup_hier_line *h, void *arg);
int parse_cgroups_record(const char *buf, size_t len, cgroup_hier_fn fn, void *arg);

/*
 * A cgroup's per-device I/O file, a device "MAJ:MIN" a line: v2 io.max and
 * io.stat ("8:0 rbps=N wbps=max ...": CGIO_PAIR, one call per KEY=N, a
 * value that is no number such as "max" skipped), v1
 * blkio.throttle.*_device ("8:0 N": CGIO_NUMBER, no key) and
 * io_service_bytes / io_serviced ("8:0 Read N": CGIO_WORD, key the word).
 * Lines of another shape ("Total N") are skipped.
 */
struct cgroup_io_line {
	enum { CGIO_PAIR, CGIO_NUMBER, CGIO_WORD } kind;
	struct parse_word dev, key;
	uint64_t value;
};
typedef int (*cgroup_io_fn)(const struct cgroup_io_line *c, void *arg);
int parse_cgroup_io(const char *buf, size_t len, cgroup_io_fn fn, void *arg);

/* ---- the network tables (parse_net.c; docs/capture-format.md, net.sockets and net.links) ---- */

/*
 * sonde:listen: "FAMILY ADDR PORT QUEUE BACKLOG INODE UID" a TCP listener
 * (FAMILY 4 or 6, QUEUE its accept queue, BACKLOG the queue's maximum), or
 * "cut" (cut set, nothing else) when the record reached its bound.
 */
struct net_listen_line {
	int cut;
	unsigned family, port, queue, backlog, uid;
	struct parse_word addr;
	uint64_t inode;
};
typedef int (*net_listen_fn)(const struct net_listen_line *l, void *arg);
int parse_net_listen(const char *buf, size_t len, net_listen_fn fn, void *arg);

/* sonde:accepts: "ADDR PORT ACCEPTED NEW", NEW "-" (has_fresh 0) the first time. */
struct net_accepts_line {
	struct parse_word addr;
	unsigned port;
	uint64_t accepted, fresh;
	int has_fresh;
};
typedef int (*net_accepts_fn)(const struct net_accepts_line *a, void *arg);
int parse_net_accepts(const char *buf, size_t len, net_accepts_fn fn, void *arg);

/* sonde:owners: "INODE PID FD" a socket found in a process's fds, or "scanned PROCS FDS [cut]". */
struct net_owner_line {
	int scanned, cut;      /* the "scanned" line: procs, fds, cut */
	uint64_t procs, fds;
	uint64_t inode;        /* else the owner of socket inode */
	unsigned pid, fd;
};
typedef int (*net_owner_fn)(const struct net_owner_line *o, void *arg);
int parse_net_owners(const char *buf, size_t len, net_owner_fn fn, void *arg);

/*
 * sonde:ports: "range LO HI"; a total "sockets N", "timewait N", "ports N",
 * "other N" (name, value); a destination "dst ADDR PORT COUNT INODES
 * [TIMEWAIT]" (INODES "-" or comma-separated, the first NET_PORTS_INODES
 * kept); "cut".
 */
#define NET_PORTS_INODES 8
struct net_ports_line {
	enum { NET_PORTS_RANGE, NET_PORTS_TOTAL, NET_PORTS_DST, NET_PORTS_CUT } kind;
	unsigned lo, hi;                      /* range */
	struct parse_word name;               /* total */
	uint64_t value;
	struct parse_word addr;               /* dst */
	unsigned port;
	uint64_t count, timewait;
	int has_timewait;
	uint64_t inodes[NET_PORTS_INODES];
	size_t ninodes;
};
typedef int (*net_ports_fn)(const struct net_ports_line *l, void *arg);
int parse_net_ports(const char *buf, size_t len, net_ports_fn fn, void *arg);

/* sonde:links: "IFINDEX NAME KIND MASTER"; kind n 0 for "-" (a physical device), master 0: none. */
struct net_link_line {
	unsigned ifindex, master;
	struct parse_word name, kind;
};
typedef int (*net_link_fn)(const struct net_link_line *l, void *arg);
int parse_net_links(const char *buf, size_t len, net_link_fn fn, void *arg);

/*
 * sonde:qdisc: "IFINDEX KIND HANDLE PARENT BYTES PACKETS DROPS OVERLIMITS
 * REQUEUES BACKLOG QLEN", handles in hex (PARENT ffffffff: the root).
 */
struct net_qdisc_line {
	unsigned ifindex, handle, parent;
	struct parse_word kind;
	uint64_t bytes;
	unsigned packets, drops, overlimits, requeues, backlog, qlen;
};
typedef int (*net_qdisc_fn)(const struct net_qdisc_line *q, void *arg);
int parse_net_qdisc(const char *buf, size_t len, net_qdisc_fn fn, void *arg);

/* The link text of an fd (readlink of /proc/PID/fd/N): "socket:[INODE]" gives INODE, else -EINVAL. */
int parse_socket_link(const char *s, size_t n, uint64_t *inode);

/* ---- devices of /sys (parse_sys.c) ---- */

/*
 * /sys/bus/pci/devices/ID/{current,max}_link_speed: "8.0 GT/s PCIe" ("2.5
 * GT/s" on kernels before 4.17); -EINVAL for "Unknown" (the link is down or
 * the device is not PCI Express).
 */
int parse_pci_link_speed(const char *buf, size_t len, double *gts);
/*
 * /sys/bus/pci/devices/ID/aer_dev_{correctable,nonfatal,fatal}: "NAME N" a
 * line, "TOTAL_ERR_COR N" (or _FATAL, _NONFATAL) among them. The total is
 * the kernel's TOTAL_ line, or the sum of the counters on a kernel without
 * one; -EINVAL when there is no counter.
 */
int parse_aer_counters(const char *buf, size_t len, uint64_t *total);

/*
 * A CPU list as /sys prints it ("0-3,5,7-8": /sys/devices/system/cpu/online,
 * a node's cpulist): how many CPUs it names. -EINVAL for a cut or malformed
 * list.
 */
int parse_cpu_list(const char *buf, size_t len, unsigned *count);
/* A name made of prefix and a number, as /sys names its nodes ("node1"): the number, or -1. */
int parse_numbered_name(const char *s, size_t n, const char *prefix);
/* /sys/devices/system/node/nodeN/meminfo: "Node 0 MemTotal:  16083148 kB" lines, as parse_kv. */
int parse_node_meminfo(const char *buf, size_t len, kv_fn fn, void *arg);

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
