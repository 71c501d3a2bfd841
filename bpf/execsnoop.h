/* SPDX-License-Identifier: GPL-2.0-or-later */
/* execsnoop: processes started during the window, shared with user space. */
#ifndef SONDE_EXECSNOOP_H
#define SONDE_EXECSNOOP_H

#define EXECSNOOP_SLOTS 32        /* log2 microseconds of lifetime */
#define EXECSNOOP_MAX_PARENTS 4096
#define EXECSNOOP_MAX_COMMS 4096
#define EXECSNOOP_ARGS_MAX 256    /* bytes of argv kept per sample (NULs between arguments) */
#define EXECSNOOP_FILENAME_MAX 128
#define EXECSNOOP_FIRST_SAMPLES 64 /* every exec of the window up to this many is sampled */
#define EXECSNOOP_MAX_SAMPLES 1024 /* no more samples than this per window, whatever the knobs */
/* Sized for EXECSNOOP_MAX_SAMPLES records of ~460 bytes (power of two, page multiple). */
#define EXECSNOOP_RINGBUF_BYTES (512 * 1024)

/* Global counters (index into the per-CPU totals array). */
enum execsnoop_total {
	EXECSNOOP_EXECS,           /* successful execs */
	EXECSNOOP_FORKS,           /* new processes (not threads; see forks_include_threads) */
	EXECSNOOP_THREADS,         /* new threads */
	EXECSNOOP_EXITS,           /* processes that exited (their main thread) */
	EXECSNOOP_EXITS_NEW,       /* of which started during the window: in the lifetime histogram */
	EXECSNOOP_NOT_SAMPLED,     /* execs whose argv was not sampled (over the sampling bounds) */
	EXECSNOOP_TOTAL_NR,
};

struct execsnoop_parent {
	__u64 execs;  /* execs by its children (the parent at the time of the exec) */
	__u64 forks;  /* processes it forked */
	char comm[16]; /* as first seen in the window */
};

struct execsnoop_comm {
	__u64 execs;        /* execs that took this comm (the new image's) */
	__u64 exits_new;    /* processes with this comm at exit that started in the window */
	__u64 life_ns;      /* their summed lifetime */
	__u64 sampled;      /* argv samples taken for it (bounded by targ_per_comm) */
	char filename[EXECSNOOP_FILENAME_MAX]; /* the first exec's path */
};

struct execsnoop_hist {
	__u64 slots[EXECSNOOP_SLOTS];
	__u64 total_ns;
};

/* One argv sample (ring buffer record). */
struct execsnoop_sample {
	__u64 ts_ns;       /* CLOCK_MONOTONIC */
	__u32 pid, ppid, uid;
	__u32 args_len;    /* bytes in args */
	__u32 args_cut;    /* 1: argv was longer than EXECSNOOP_ARGS_MAX - 1 and was cut */
	char comm[16];
	char pcomm[16];
	char filename[EXECSNOOP_FILENAME_MAX];
	char args[EXECSNOOP_ARGS_MAX];
};

#endif
