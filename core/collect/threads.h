/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * proc.threads, private to core/collect: the collector (threads.c), its
 * sampler of the suspects' threads (threads_sampler.c) and its /proc
 * fallback (threads_proc.c).
 */
#ifndef SONDE_COLLECT_THREADS_H
#define SONDE_COLLECT_THREADS_H

#include <stddef.h>
#include <stdint.h>

#include "collect/collect.h"
#include "util/pidmap.h"
#include "util/strbuf.h"

#define THREADS_SUSPECTS 8               /* processes the sampler follows at once */
#define THREADS_RECORD_FLUSH (900u << 10) /* a record is cut past this (READ_CAP is 1 MiB) */

/* What a thread's last line said (or, unchanged since, still says). */
struct thread_slot {
	int tid, tgid;             /* tid first: a pidmap entry */
	uint32_t seen;             /* the round (+1) of the last pass or read that had it */
	char state, gone;          /* gone: its X line is written */
	uint64_t start, run, runq, sw;
	uint64_t key;              /* hash of its wait's words */
};

struct tgid_score {
	int tgid;
	uint64_t ns;
};

struct sampler;
struct proc_threads;

struct threads_state {
	struct pidmap slots;       /* struct thread_slot by tid */
	struct pidmap scores;      /* struct tgid_score: this round's waiting per process */
	struct strbuf rec;         /* the record being composed */
	int64_t last_mono;
	int self;                  /* sonde's pid: never a suspect */
	uint64_t nthreads, nd;     /* this round's threads, and those in D */
	char why[256];             /* why the source's threads are not used ("" while they are) */
	struct sampler *sampler;
	struct proc_threads *proc; /* the /proc fallback's state */
};

/* The words of a thread's wait: STATE FLAGS SYSCALL ARGS OBJECT KSTACK, tab-separated. */
void threads__words(struct strbuf *b, const struct thread_sample *t);

/* ---- threads_sampler.c: the suspects' threads, many times a round ---- */

/* NULL when out of memory (no sampling then). src may be NULL (/proc). */
struct sampler *sampler__new(const struct task_source *src, const char *root, int self);
/* Follow these processes from now on (the round's suspects, best first). */
void sampler__follow(struct sampler *sp, const int *tgids, size_t n);
/* Start its thread (first round); stop it and wait for it (last round). */
void sampler__start(struct sampler *sp);
void sampler__stop(struct sampler *sp);
/* Append the interval's "W" and "C" lines to b, and start a new interval. */
void sampler__lines(struct sampler *sp, struct strbuf *b);
/* The run facts: how the sampler sampled, at what rate, at what cost. */
void sampler__facts(const struct sampler *sp, struct strbuf *b);
/* Free it; 1 when its thread could not be stopped (it is left, and what it uses). */
int sampler__free(struct sampler *sp);

/* ---- threads_proc.c: /proc/PID/task/TID/... where no source gives threads ---- */

/*
 * A round from /proc: the threads of a bounded set of processes (every
 * process in the first round, up to the cap; then those proc.pids saw run,
 * those in D, and the sampler's suspects), each given to visit.
 */
void threads_proc__round(struct collector_state *cs, struct threads_state *ts,
			 struct reader *rd, int phase, thread_visit_fn visit, void *ctx);
/* Was tgid's set of threads read this round (always, where a source serves)? */
int threads_proc__covered(const struct threads_state *ts, int tgid);
/* One process's threads now, for the sampler. 0, -ESRCH when gone, or -errno. */
int threads_proc__sample(const char *root, int tgid, thread_visit_fn visit, void *ctx);
void threads_proc__free(struct threads_state *ts);

#endif
