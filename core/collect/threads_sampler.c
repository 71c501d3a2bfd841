// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The thread-state sampler: the threads of the suspects (the few processes
 * whose threads waited most while they kept switching, chosen each round by
 * threads.c) sampled many times a round from a thread of its own,
 * "sonde-states". A thread that switches a thousand times a second is
 * asleep in many waits between two rounds; its exact off-CPU time (from the
 * counters) is split between the waits it was seen in here.
 *
 * Each pass costs the suspects' threads alone (a task iterator link per
 * process, Linux 6.1; else /proc/PID/task/TID/...), and the rate adapts so
 * that the sampler stays within SAMPLER_BUDGET of one CPU: its own CPU time
 * is measured, never assumed.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collect/collectors.h"
#include "collect/threads.h"
#include "util/clock.h"
#include "util/hash.h"
#include "util/selfcpu.h"

#define SAMPLER_HZ_MAX 50.0
#define SAMPLER_HZ_MIN 1.0
#define SAMPLER_HZ_START 20.0
#define SAMPLER_BUDGET THREADS_SAMPLER_BUDGET /* of one CPU: 2 ms of CPU a second */
#define SAMPLES_MAX 8192       /* distinct (thread, wait) an interval; more are counted lost */
#define SAMPLER_JOIN_S 2       /* a sampler stuck in a /proc read is left after this */

struct sample_slot {
	int tid;        /* 0: empty */
	uint32_t count;
	uint64_t key;
	size_t text;    /* offset of its words in the arena */
};

struct followed {
	int tgid;
	int gone;                 /* its last pass found no thread */
	uint32_t passes, run_max; /* this interval: passes, most of its threads on a CPU at once */
	uint64_t run_sum;         /* threads on a CPU, summed over the passes */
};

struct sampler {
	const struct task_source *src;
	const char *root;
	int self;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int started, stop, done, stuck;
	struct followed follow[THREADS_SUSPECTS];
	size_t nfollow;
	int dropped[THREADS_SUSPECTS]; /* no longer followed: their links go (sampler thread) */
	size_t ndropped;
	/* the interval's samples, under mu */
	struct sample_slot *agg;
	size_t agg_cap, nagg;
	struct strbuf arena;
	uint64_t lost, passes, interval_passes;
	int64_t cpu_ns, interval_cpu_ns, first_ns, last_ns;
	double hz;
	int use_proc;             /* sampling from /proc */
	char why[256];            /* why from /proc */
};

struct sampler *sampler__new(const struct task_source *src, const char *root, int self)
{
	struct sampler *sp = calloc(1, sizeof(*sp));
	pthread_condattr_t ca;

	if (!sp)
		return NULL;
	sp->src = src;
	sp->root = root;
	sp->self = self;
	sp->hz = SAMPLER_HZ_START;
	sp->agg_cap = SAMPLES_MAX * 2;
	sp->agg = calloc(sp->agg_cap, sizeof(*sp->agg));
	if (!sp->agg) {
		free(sp);
		return NULL;
	}
	pthread_mutex_init(&sp->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&sp->cv, &ca);
	pthread_condattr_destroy(&ca);
	if (root[0]) {
		sp->use_proc = -1; /* a replayed tree: nothing to sample */
		snprintf(sp->why, sizeof(sp->why), "--root replays a tree, not this kernel's threads");
	} else if (!src || !src->sample_process) {
		sp->use_proc = 1;
		snprintf(sp->why, sizeof(sp->why), "%s",
			 src && src->sampler_why && src->sampler_why[0] ? src->sampler_why :
			 "no task source: /proc/PID/task/TID/{stat,schedstat,syscall}");
	}
	return sp;
}

/* ---- one pass over one process ---- */

struct pass_ctx {
	struct sampler *sp;
	uint32_t running;
	struct strbuf words;
};

/* Count one sample of (tid, its wait) in this interval (under mu). */
static void agg_add(struct sampler *sp, int tid, const char *text, size_t len)
{
	uint64_t key = fnv1a(text, len, FNV1A_OFFSET);
	size_t h = (((uint64_t)(uint32_t)tid * 2654435761u) ^ key) & (sp->agg_cap - 1);

	for (; sp->agg[h].tid; h = (h + 1) & (sp->agg_cap - 1))
		if (sp->agg[h].tid == tid && sp->agg[h].key == key) {
			sp->agg[h].count++;
			return;
		}
	if (sp->nagg >= SAMPLES_MAX) {
		sp->lost++;
		return;
	}
	sp->agg[h].tid = tid;
	sp->agg[h].key = key;
	sp->agg[h].count = 1;
	sp->agg[h].text = sp->arena.len;
	strbuf__append(&sp->arena, text, len);
	strbuf__append(&sp->arena, "", 1);
	sp->nagg++;
}

static int pass_visit(void *arg, struct thread_sample *t)
{
	struct pass_ctx *pc = arg;

	thread_sample__words(t);
	if (t->state == 'R' && (t->flags & THREAD_ONCPU))
		pc->running++;
	pc->words.len = 0;
	threads__words(&pc->words, t);
	if (pc->words.oom)
		return 0;
	pthread_mutex_lock(&pc->sp->mu);
	agg_add(pc->sp, t->tid, pc->words.buf, pc->words.len);
	pthread_mutex_unlock(&pc->sp->mu);
	return 0;
}

/* The followed entry of tgid (under mu), or NULL when a round no longer follows it. */
static struct followed *followed_of(struct sampler *sp, int tgid)
{
	for (size_t i = 0; i < sp->nfollow; i++)
		if (sp->follow[i].tgid == tgid)
			return &sp->follow[i];
	return NULL;
}

/* One pass over process tgid; the source's link is made at its first. */
static void sample_one(struct sampler *sp, int tgid, struct pass_ctx *pc)
{
	struct followed *f;
	int err;

	pc->running = 0;
	if (sp->use_proc)
		err = threads_proc__sample(sp->root, tgid, pass_visit, pc);
	else
		err = sp->src->sample_process(sp->src->arg, tgid, pass_visit, pc);
	if (err && err != -ESRCH && !sp->use_proc) {
		/* the kernel refused what the probe allowed: /proc from now on, and why */
		snprintf(sp->why, sizeof(sp->why), "%s failed for pid %d: %s; from /proc since",
			 sp->src->sampler_name ? sp->src->sampler_name : "the source", tgid,
			 strerror(-err));
		sp->use_proc = 1;
		return;
	}
	pthread_mutex_lock(&sp->mu);
	if ((f = followed_of(sp, tgid))) {
		if (err) {
			f->gone = 1;
		} else {
			f->passes++;
			f->run_sum += pc->running;
			if (pc->running > f->run_max)
				f->run_max = pc->running;
		}
	}
	pthread_mutex_unlock(&sp->mu);
}

/* Keep within the budget: the rate at which the last passes' CPU time would use it. */
static void adapt(struct sampler *sp, int64_t cpu_ns, size_t nprocs)
{
	double hz;

	if (!nprocs || cpu_ns <= 0)
		return;
	hz = SAMPLER_BUDGET * 1e9 / (double)cpu_ns;
	/* move halfway: one slow pass (a page fault, a preemption) does not halve the rate */
	hz = (sp->hz + hz) / 2;
	sp->hz = hz < SAMPLER_HZ_MIN ? SAMPLER_HZ_MIN : hz > SAMPLER_HZ_MAX ? SAMPLER_HZ_MAX : hz;
}

static void *sampler_main(void *arg)
{
	struct sampler *sp = arg;
	struct pass_ctx pc = { sp, 0, { 0 } };
	int64_t next = clock__ns(CLOCK_MONOTONIC);
	sigset_t all;

	pthread_setname_np(pthread_self(), "sonde-states");
	self_cpu__enter(SELF_SAMPLER);
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_mutex_lock(&sp->mu);
	while (!sp->stop) {
		int tgids[THREADS_SUSPECTS], dropped[THREADS_SUSPECTS];
		size_t n = 0, nd = sp->ndropped;
		int64_t c0, now;
		struct timespec dl;

		for (size_t i = 0; i < sp->nfollow; i++)
			if (!sp->follow[i].gone)
				tgids[n++] = sp->follow[i].tgid;
		memcpy(dropped, sp->dropped, sizeof(dropped));
		sp->ndropped = 0;
		pthread_mutex_unlock(&sp->mu);
		c0 = clock__ns(CLOCK_THREAD_CPUTIME_ID);
		for (size_t i = 0; !sp->use_proc && sp->src->sample_drop && i < nd; i++)
			sp->src->sample_drop(sp->src->arg, dropped[i]);
		for (size_t i = 0; i < n; i++)
			sample_one(sp, tgids[i], &pc);
		c0 = clock__ns(CLOCK_THREAD_CPUTIME_ID) - c0;
		now = clock__ns(CLOCK_MONOTONIC);
		pthread_mutex_lock(&sp->mu);
		if (n) {
			if (!sp->first_ns)
				sp->first_ns = now;
			sp->last_ns = now;
			sp->passes++;
			sp->interval_passes++;
			sp->cpu_ns += c0;
			sp->interval_cpu_ns += c0;
			adapt(sp, c0, n);
		}
		next += (int64_t)(1e9 / sp->hz);
		if (next < now)
			next = now + (int64_t)(1e9 / sp->hz); /* late: no catching up */
		dl.tv_sec = next / 1000000000;
		dl.tv_nsec = next % 1000000000;
		while (!sp->stop && pthread_cond_timedwait(&sp->cv, &sp->mu, &dl) != ETIMEDOUT)
			;
	}
	sp->done = 1;
	pthread_cond_broadcast(&sp->cv);
	pthread_mutex_unlock(&sp->mu);
	strbuf__free(&pc.words);
	return NULL;
}

void sampler__follow(struct sampler *sp, const int *tgids, size_t n)
{
	struct followed next[THREADS_SUSPECTS];

	if (!sp)
		return;
	pthread_mutex_lock(&sp->mu);
	for (size_t i = 0; i < n && i < THREADS_SUSPECTS; i++) {
		memset(&next[i], 0, sizeof(next[i]));
		next[i].tgid = tgids[i];
	}
	/* who leaves: its link is closed by the sampler thread, which owns the links */
	for (size_t j = 0; j < sp->nfollow; j++) {
		size_t i;

		for (i = 0; i < n && sp->follow[j].tgid != tgids[i]; i++)
			;
		if (i == n && sp->ndropped < THREADS_SUSPECTS)
			sp->dropped[sp->ndropped++] = sp->follow[j].tgid;
	}
	memcpy(sp->follow, next, sizeof(next));
	sp->nfollow = n < THREADS_SUSPECTS ? n : THREADS_SUSPECTS;
	pthread_mutex_unlock(&sp->mu);
}

void sampler__start(struct sampler *sp)
{
	if (!sp || sp->started || sp->use_proc < 0)
		return;
	if (!pthread_create(&sp->th, NULL, sampler_main, sp))
		sp->started = 1;
	else
		snprintf(sp->why, sizeof(sp->why), "the sampler's thread could not start");
}

void sampler__stop(struct sampler *sp)
{
	struct timespec dl;
	int64_t t;

	if (!sp || !sp->started || sp->stuck)
		return;
	pthread_mutex_lock(&sp->mu);
	sp->stop = 1;
	pthread_cond_broadcast(&sp->cv);
	t = clock__ns(CLOCK_MONOTONIC) + (int64_t)SAMPLER_JOIN_S * 1000000000;
	dl.tv_sec = t / 1000000000;
	dl.tv_nsec = t % 1000000000;
	while (!sp->done && pthread_cond_timedwait(&sp->cv, &sp->mu, &dl) != ETIMEDOUT)
		;
	pthread_mutex_unlock(&sp->mu);
	if (!sp->done) {
		/* blocked in a /proc read: it is left, and with it what it points to */
		sp->stuck = 1;
		snprintf(sp->why, sizeof(sp->why), "the sampler hung in a read and was left");
		return;
	}
	pthread_join(sp->th, NULL);
	sp->started = 0;
}

void sampler__lines(struct sampler *sp, struct strbuf *b)
{
	if (!sp || sp->stuck)
		return;
	pthread_mutex_lock(&sp->mu);
	if (sp->interval_passes || sp->lost)
		strbuf__printf(b, "S\t%" PRIu64 "\t%" PRId64 "\t%" PRIu64 "\n", sp->interval_passes,
			       sp->interval_cpu_ns, sp->lost);
	for (size_t i = 0; i < sp->agg_cap; i++) {
		const struct sample_slot *s = &sp->agg[i];

		if (s->tid)
			strbuf__printf(b, "W\t%d\t%u\t%s\n", s->tid, s->count, sp->arena.buf + s->text);
	}
	for (size_t i = 0; i < sp->nfollow; i++) {
		struct followed *f = &sp->follow[i];

		if (f->passes)
			strbuf__printf(b, "C\t%d\t%u\t%u\t%" PRIu64 "\n", f->tgid, f->passes,
				       f->run_max, f->run_sum);
		f->passes = f->run_max = 0;
		f->run_sum = 0;
	}
	memset(sp->agg, 0, sp->agg_cap * sizeof(*sp->agg));
	sp->nagg = 0;
	sp->arena.len = 0;
	sp->arena.oom = 0;
	sp->lost = sp->interval_passes = 0;
	sp->interval_cpu_ns = 0;
	pthread_mutex_unlock(&sp->mu);
}

void sampler__facts(const struct sampler *sp, struct strbuf *b)
{
	double span;

	if (!sp)
		return;
	if (sp->use_proc < 0) {
		strbuf__printf(b, "threads_sampler: none\nthreads_sampler_why: %s\n", sp->why);
		return;
	}
	strbuf__printf(b, "threads_sampler: %s\n",
		       sp->use_proc ? "proc" : sp->src->sampler_name ? sp->src->sampler_name :
		       sp->src->name);
	if (sp->why[0])
		strbuf__printf(b, "threads_sampler_why: %s\n", sp->why);
	span = (double)(sp->last_ns - sp->first_ns) / 1e9;
	strbuf__printf(b, "threads_sampler_passes: %" PRIu64 "\nthreads_sampler_hz: %.1f\n"
			  "threads_sampler_cpu_ns: %" PRId64 "\n", sp->passes,
		       span > 0 && sp->passes > 1 ? (double)(sp->passes - 1) / span : 0.0,
		       sp->cpu_ns);
}

int sampler__free(struct sampler *sp)
{
	if (!sp)
		return 0;
	sampler__stop(sp);
	if (sp->stuck)
		return 1;
	pthread_cond_destroy(&sp->cv);
	pthread_mutex_destroy(&sp->mu);
	strbuf__free(&sp->arena);
	free(sp->agg);
	free(sp);
	return 0;
}
