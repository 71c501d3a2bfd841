/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Collectors: each samples one family of /proc and /sys files during the one
 * observation window and tees every read, verbatim, into its capture stream
 * raw/<collector>.cap. Checks never read the host; they read what is here.
 * The reader is reader.c, the window window.c, the table collectors.c.
 */
#ifndef SONDE_COLLECT_H
#define SONDE_COLLECT_H

#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "collect/capture.h"
#include "util/clock.h"
#include "util/strbuf.h"

/* The reader: all /proc and /sys access goes through it. */
struct reader {
	const char *root; /* "" on the live host; a directory standing in for / in tests */
	char *buf;        /* grown on demand up to READ_CAP */
	size_t cap;
	uint32_t seq;     /* current sample round */
	uint64_t reads, read_bytes, read_errors;
	uint64_t finished;  /* opens and reads ended, failed too: the watchdog's sign of life (atomic) */
	/*
	 * Set while a sampling round runs in the window's worker thread: released
	 * around every open/read, so the watchdog can take it while a read blocks
	 * (and keep it, once it gives up on the round: the worker never resumes).
	 */
	pthread_mutex_t *lock;
	char current[256];  /* the path being read, for the watchdog's report */
};

#define READ_CAP (1u << 20)   /* a /proc file larger than this is cut (and marked 't') */
#define CMDLINE_CAP 4096      /* per-process command lines are never kept beyond this */

/*
 * Read root+path, record it (or the failure) into w, and return 0 with
 * data and len pointing into the reader's buffer (valid until the next read), or
 * -errno. A missing file is an ordinary outcome, recorded as such.
 */
int reader__tee(struct reader *rd, struct capture_writer *w, const char *path, const char **data,
		size_t *len);
/*
 * A file the kernel makes in one piece (single_open: /proc/PID/stat, status,
 * io, schedstat, limits; and /proc/PID/cmdline): the same, one read() fewer.
 */
int reader__tee_one(struct reader *rd, struct capture_writer *w, const char *path,
		    const char **data, size_t *len);
/* Read without recording (for directory walks' decisions); read() until it returns 0. */
int reader__read(struct reader *rd, const char *path, size_t cap, const char **data, size_t *len,
		 int *truncated);
/* reader__read of a file made in one piece (see reader__tee_one). */
int reader__read_one(struct reader *rd, const char *path, size_t cap, const char **data,
		     size_t *len, int *truncated);
void reader__free(struct reader *rd);

enum sample_phase {
	PHASE_FIRST = 1, /* first round of the window */
	PHASE_TICK = 2,  /* every round, the first and last included */
	PHASE_LAST = 4,  /* last round (end of window, or the round after an interrupt) */
};

struct collector_state;

struct collector {
	const char *name;        /* "proc.stat": also the capture stream raw/<name>.cap */
	const char *what;        /* for progress and `sonde list`: "CPU time per CPU" */
	/* 0 when this host can provide it, else -errno and a reason in why. */
	int (*probe)(const char *root, char *why, size_t whylen);
	int (*sample)(struct collector_state *cs, struct reader *rd, struct capture_writer *w,
		      int phase);
	void (*fini)(struct collector_state *cs);
	/*
	 * Optional: stop what the collector runs beside the rounds (a thread of
	 * its own) when the window ends, also when a round was abandoned and fini
	 * is not called: nothing of it may outlive what the window's caller frees.
	 */
	void (*stop)(struct collector_state *cs);
	/*
	 * Optional: once after the last round, outside the window (its end is
	 * already taken, so its cost is not the window's), and not when a round
	 * was abandoned: reads too large for a round that change only between
	 * audits (the installed packages). Records carry the last round's seq.
	 */
	void (*after)(struct collector_state *cs, struct reader *rd, struct capture_writer *w);
};

/*
 * Not a collector of the window: the levels that earlier bundles of this host
 * recorded, written by the run layer before the checks (raw/history.cap) for
 * the checks that declare it (trends across runs).
 */
#define HISTORY_COLLECTOR "history"

/* NULL-terminated static registry (collectors.c). */
extern const struct collector *const collectors[];
const struct collector *collector__find(const char *name);

/*
 * One process, as a task source gives it: what its /proc/PID/{stat,status,
 * io,schedstat,limits} and fd table say, in the same units (clock ticks,
 * pages). The pids collector writes it as one record, sonde:task/PID
 * (docs/capture-format.md).
 */
struct task_sample {
	int pid, ppid;
	char comm[16];
	char state;                        /* R S D T t X Z P I, as /proc/PID/stat */
	int kernel_thread;
	int processor;
	int64_t uid;                       /* real uid */
	uint64_t starttime;                /* clock ticks after boot: with pid, who it is */
	uint64_t utime, stime;             /* clock ticks, the whole process */
	uint64_t minflt, majflt, blkio_ticks;
	uint64_t threads, rss_pages;
	uint64_t vol_ctxt, nonvol_ctxt;    /* the main thread's, as status */
	uint64_t run_ns, wait_ns, slices;  /* the main thread's, as schedstat */
	int has_io;
	uint64_t rchar, wchar, syscr, syscw, read_bytes, write_bytes;
	int64_t fds;                       /* open fds; -1 unknown (read from /proc/PID/fd) */
	uint64_t nofile_soft, nofile_hard; /* RLIMIT_NOFILE; UINT64_MAX unlimited */
	uint64_t anon_pages, swap_pages;   /* RssAnon, VmSwap; UINT64_MAX unknown (no mm) */
};

typedef int (*task_visit_fn)(void *ctx, const struct task_sample *t);

/*
 * proc.pids (and proc.threads) skip their pass over the processes every
 * other middle round when the last one cost more than this share of one CPU
 * over the interval (pids.c): what the budget's calibration counts on.
 */
#define PIDS_ROUND_BUDGET 0.01

/*
 * proc.threads' sampler (the thread-state sampler, "sonde-states") keeps its
 * own measured CPU time within this share of one CPU (0.2%: 2 ms a second),
 * whatever the suspects' threads: its ceiling, which the budget reserves.
 */
#define THREADS_SAMPLER_BUDGET 0.002

/* thread_sample flags */
#define THREAD_ONCPU 0x1   /* on a CPU at the sample (else runnable, for state R) */
#define THREAD_IOWAIT 0x2  /* asleep on I/O the kernel counts as iowait */
#define THREAD_KTHREAD 0x4 /* a kernel thread */
#define THREAD_POLLFD 0x8  /* object is the first fd of the thread's poll(2) array */

/*
 * One thread, its scheduler counters and what it waits in, for the thread
 * states (proc.threads). A task source gives it from the kernel's task
 * structures; the /proc fallback from /proc/PID/task/TID/{stat,schedstat,
 * syscall,wchan,stack} and the fd's link. The text fields are the
 * capture's own words (docs/capture-format.md, proc.threads).
 */
struct thread_sample {
	int tid, tgid;
	char state;                   /* R S D T t X Z P I, as /proc/PID/task/TID/stat */
	unsigned flags;               /* THREAD_* */
	uint64_t start_ns;            /* CLOCK_MONOTONIC at its start; 0 unknown */
	uint64_t run_ns, runq_ns;     /* on a CPU, waiting on a run queue, since it started */
	uint64_t nvcsw, nivcsw;       /* voluntary, involuntary switches */
	int has_delays;               /* delay accounting (kernel.task_delayacct=1) */
	uint64_t blkio_ns, swapin_ns, reclaim_ns, thrashing_ns;
	char syscall[32];             /* "futex"; "-" not in a syscall; "?" unknown; "#N" unnamed */
	int has_args;
	uint64_t args[3];             /* its first three arguments */
	/*
	 * The file behind its fd argument: "tcp 10.0.0.1:40000>10.0.0.5:5432
	 * ESTABLISHED", "tcp 0.0.0.0:80 LISTEN q=0", "udp ...", "unix stream",
	 * "pipe", "file 8:1 1234", "anon [eventpoll]", "chr", ...; "" none.
	 */
	char object[160];
	char kstack[384];             /* uninterruptible sleep: "fn<fn<fn", leaf first; "" none */
	/*
	 * The text fields above (syscall to kstack) are filled: a source may hand
	 * a thread with its numbers only, and fill its words when the visitor asks
	 * (words_fill(words_arg, t)): a thread that did not run since the last
	 * round cannot have changed what it waits in, and most threads of a big
	 * host did not.
	 */
	int words;
	void (*words_fill)(void *arg, struct thread_sample *t);
	void *words_arg;
	const void *raw;              /* the source's record of it, for words_fill */
};

typedef int (*thread_visit_fn)(void *ctx, struct thread_sample *t);

/* Fill t's words now if its source left them for later. */
static inline void thread_sample__words(struct thread_sample *t)
{
	if (!t->words && t->words_fill)
		t->words_fill(t->words_arg, t);
	t->words = 1;
}

/*
 * Where the pids collector gets its processes from, when not from /proc: a
 * layer above fills it (the run layer, with the trace layer's task
 * iterator). Each round, read takes a snapshot of every process (0, or
 * -errno with why: the collector then walks /proc for the rest of the
 * window), then each calls visit once per process of it. read touches no
 * capture, so it runs outside the window watchdog's lock, as a file read does.
 */
struct task_source {
	const char *name; /* "bpf_iter_task": written in the run facts */
	/*
	 * The pass of round seq: read now, or already read this round by
	 * another collector (proc.pids and proc.threads share one pass).
	 */
	int (*read)(void *arg, uint32_t seq, char *why, size_t whylen);
	int (*each)(void *arg, task_visit_fn visit, void *ctx);
	size_t (*count)(void *arg); /* the processes of the last read */
	void *arg;
	/*
	 * Optional, NULL where the source has none (cmdlines_why says why): every
	 * process's command line in one pass, for the first round, where each is
	 * seen for the first time. cmdlines_read takes the pass (0, or -errno
	 * with why), outside the lock as read; cmdline gives pid's from it, as
	 * /proc/PID/cmdline would read with a cap of CMDLINE_CAP (0 with its
	 * bytes and whether it was cut; -ENOENT: read /proc); cmdlines_drop
	 * frees the pass.
	 */
	int (*cmdlines_read)(void *arg, char *why, size_t whylen);
	int (*cmdline)(void *arg, int pid, const char **data, size_t *len, int *cut);
	void (*cmdlines_drop)(void *arg);
	const char *cmdlines_why;
	/*
	 * Optional, NULL where the source has no thread states (threads_why says
	 * why): visit each thread of the last read, with what it waits in.
	 * threads_lost names what this kernel could not give ("" nothing).
	 */
	int (*each_thread)(void *arg, thread_visit_fn visit, void *ctx);
	const char *threads_why, *threads_lost;
	/*
	 * Optional (NULL: the sampler reads /proc, sampler_why says why): the
	 * threads of process tgid now, for the thread-state sampler, from its
	 * own thread. 0, -ESRCH when it is gone, or -errno.
	 */
	int (*sample_process)(void *arg, int tgid, thread_visit_fn visit, void *ctx);
	void (*sample_drop)(void *arg, int tgid); /* a suspect no longer sampled */
	const char *sampler_name, *sampler_why;
};

struct window_opts {
	const char *root;       /* "" for the live host */
	const char *raw_dir;    /* where the streams go */
	double window_s;        /* requested length */
	double interval_s;      /* sampling interval */
	const char *const *names; /* collectors to run (NULL-terminated); "host" and "sonde" always */
	int progress;           /* draw a progress line on stderr */
	volatile sig_atomic_t *stop; /* set by a signal handler: end the window early
				      * (STOP_SIGNAL, STOP_DEADLINE) */
	double stall_s;         /* a round with no read ending for this long is abandoned (hung) */
	/* called after every sampling round (the overhead guard); may be NULL */
	void (*tick)(void *arg, int64_t now_mono_ns, int64_t start_mono_ns);
	void *tick_arg;
	/*
	 * More lines for the run facts ("sonde:run"), the layer above's (the
	 * budget), appended when the window ends; may be NULL.
	 */
	void (*facts)(void *arg, struct strbuf *out);
	void *facts_arg;
	/* proc.pids: the processes from here (NULL: /proc, and tasks_why says why) */
	const struct task_source *tasks;
	const char *tasks_why;
};

enum { STOP_SIGNAL = 1, STOP_DEADLINE = 2 };

struct window_result {
	int64_t start_wall_ns, end_wall_ns, start_mono_ns, end_mono_ns;
	uint32_t samples;
	int partial;            /* stopped before the requested end */
	int abandoned;          /* a round hung and was given up: its thread is left blocked */
	char stop_reason[400];  /* "complete", "interrupted after 3.2 s", "timed out: ..." */
	uint64_t reads, read_bytes, read_errors, capture_bytes;
	/* CPU time of the sampling rounds (their thread's, syscalls included); the costliest one's */
	int64_t rounds_cpu_ns, max_round_cpu_ns;
	double self_cpu_s;      /* sonde's own CPU while the window ran (set by the run stage) */
};

/*
 * Run the observation window: every collector samples at t=0, every
 * interval, and at the end; a stop request ends the window after one last
 * round so per-process end values exist. Returns 0 or -errno with errbuf.
 */
int window__observe(const struct window_opts *o, struct window_result *res, char *errbuf,
		    size_t errlen);


#endif
