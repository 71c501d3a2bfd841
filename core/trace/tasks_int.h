/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The task iterator's state, shared by its two files: tasks.c (the pass,
 * folded into processes for proc.pids) and tasks_wait.c (what each thread
 * waits in, for proc.threads, and the per-process sampler). Private to
 * core/trace.
 */
#ifndef SONDE_TRACE_TASKS_INT_H
#define SONDE_TRACE_TASKS_INT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "trace/trace.h"
#include "tasks.h"
#include "tasks.skel.h"

struct symbolizer;

/* What this process showed last: user and system time never go back between rounds. */
struct cputime_prev {
	uint32_t tgid;
	uint64_t start;        /* start_boottime: a reused pid is another process */
	uint64_t utime, stime; /* ns */
	uint32_t round;        /* last seen; older entries are dropped when the table grows */
};

struct proc_fold {
	const struct tasks_rec *leader;
	uint64_t utime, stime, sum_exec, min_flt, maj_flt;
	struct tasks_io io;
};

/* One process the sampler follows: an iterator link over its threads alone. */
struct tasks_sampled {
	int tgid;
	struct bpf_link *link;
};

#define TASKS_SAMPLED_MAX 16

struct trace_tasks {
	struct tasks_bpf *skel;
	struct bpf_link *link;
	struct bpf_link *cmd_link; /* the command lines pass; NULL where the kernel refused it */
	char cmd_why[200];         /* why it is NULL */
	char *cmd_buf;             /* its records */
	size_t cmd_cap, cmd_len;
	uint32_t *cmd_ix;          /* tgid -> offset of its record + 1, open addressing */
	size_t cmd_ix_cap;
	char *buf;               /* one pass's records */
	size_t cap;
	const struct tasks_rec **recs; /* the pass's records, in its order */
	size_t nrecs, recs_cap;
	uint32_t pass_seq;       /* the round the pass was read for (+1; 0 none) */
	struct proc_fold *procs; /* one pass's processes */
	size_t nprocs, procs_cap;
	uint32_t *ix;            /* tgid -> procs index + 1, open addressing */
	size_t ix_cap;
	struct cputime_prev *prev;
	size_t prev_cap, prev_n;
	uint32_t round;
	long clk_tck;
	/* thread states (tasks_wait.c) */
	char threads_lost[300];  /* what this kernel's pass lacks, "" nothing */
	struct symbolizer *ksyms; /* kernel stacks of D threads; loaded at the first one */
	pthread_mutex_t ksyms_mu; /* the round's thread and the sampler's both name frames */
	int wait_prog;           /* the sampler's program: 1 dump_wait (poll fds), 0 dump_wait_ns */
	struct tasks_sampled sampled[TASKS_SAMPLED_MAX];
	char *sbuf;              /* the sampler's pass (its own thread) */
	size_t scap;
	char sampler_why[200];   /* why there is no per-process sampler, "" when there is */
};

/* ---- tasks_pass.c ---- */

/* Every record of one pass of link's iterator into *buf (of *cap); the byte count, or -errno. */
ssize_t tasks__read_pass(struct bpf_link *link, char **buf, size_t *cap);

/* The /proc/PID/stat state letter: the kernel's task_state_index() (bit values of 5.14 on). */
char tasks__state_letter(uint32_t state, uint32_t exit_state);

/* ---- tasks_wait.c ---- */

/* The knobs of the wait fields before load: fd syscalls, poll's numbers, delay accounting. */
void tasks_wait__configure(struct tasks_bpf *skel);
/* After load: the sampler's program, and whether per-process links work (sampler_why). */
void tasks_wait__init(struct trace_tasks *t);
void tasks_wait__fini(struct trace_tasks *t);
int tasks_wait__each_thread(struct trace_tasks *t, thread_visit_fn visit, void *ctx);
int tasks_wait__sample_process(struct trace_tasks *t, int tgid, thread_visit_fn visit, void *ctx);
void tasks_wait__sample_drop(struct trace_tasks *t, int tgid);

#endif
