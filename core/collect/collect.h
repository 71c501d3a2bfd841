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

/* The reader: all /proc and /sys access goes through it. */
struct reader {
	const char *root; /* "" on the live host; a directory standing in for / in tests */
	char *buf;        /* grown on demand up to READ_CAP */
	size_t cap;
	uint32_t seq;     /* current sample round */
	uint64_t reads, read_bytes, read_errors;
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
/* Read without recording (for directory walks' decisions). */
int reader__read(struct reader *rd, const char *path, size_t cap, const char **data, size_t *len,
		 int *truncated);
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

struct window_opts {
	const char *root;       /* "" for the live host */
	const char *raw_dir;    /* where the streams go */
	double window_s;        /* requested length */
	double interval_s;      /* sampling interval */
	const char *const *names; /* collectors to run (NULL-terminated); "host" and "sonde" always */
	int progress;           /* draw a progress line on stderr */
	volatile sig_atomic_t *stop; /* set by a signal handler: end the window early
				      * (STOP_SIGNAL, STOP_DEADLINE) */
	double stall_s;         /* a sampling round longer than this is abandoned (a hung read) */
	/* called after every sampling round (the overhead guard); may be NULL */
	void (*tick)(void *arg, int64_t now_mono_ns, int64_t start_mono_ns);
	void *tick_arg;
};

enum { STOP_SIGNAL = 1, STOP_DEADLINE = 2 };

struct window_result {
	int64_t start_wall_ns, end_wall_ns, start_mono_ns, end_mono_ns;
	uint32_t samples;
	int partial;            /* stopped before the requested end */
	int abandoned;          /* a round hung and was given up: its thread is left blocked */
	char stop_reason[400];  /* "complete", "interrupted after 3.2 s", "timed out: ..." */
	uint64_t reads, read_bytes, read_errors, capture_bytes;
};

/*
 * Run the observation window: every collector samples at t=0, every
 * interval, and at the end; a stop request ends the window after one last
 * round so per-process end values exist. Returns 0 or -errno with errbuf.
 */
int window__observe(const struct window_opts *o, struct window_result *res, char *errbuf,
		    size_t errlen);


#endif
