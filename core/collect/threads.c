// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * proc.threads: every thread's state, its scheduler counters and what it
 * waits in (Gregg's thread-state analysis), one record "sonde:threads" a
 * round (docs/capture-format.md).
 *
 * Where the task source gives threads (the BPF task iterator), they come
 * from the pass proc.pids reads anyway: no read per thread. A thread's line
 * is written at first sight and whenever it changed (its CPU time, its
 * run-queue time, its switch counts, its state or its wait); a thread with
 * no line in a round did not change, so it slept the whole interval in the
 * same wait: its one sample a round is exact. The others, which switched,
 * have their on-CPU and run-queue time exact from the counters, and what
 * they waited in sampled faster by the sampler (threads_sampler.c) for the
 * few processes whose threads waited most while switching (the suspects).
 * Without a source, /proc/PID/task/TID/{stat,schedstat,syscall,wchan,stack}
 * for a bounded set of processes a round (threads_proc.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/collectors.h"
#include "collect/threads.h"
#include "util/hash.h"
#include "util/pidmap.h"

int threads__probe(const char *root, char *why, size_t whylen)
{
	return collector__probe_path(root, "/proc/self/task", "no per-thread statistics", why,
				     whylen);
}

/* ---- suspects: the processes whose threads waited most while they kept switching ---- */

static void score_add(struct threads_state *ts, int tgid, uint64_t ns)
{
	struct tgid_score *s = pidmap__get(&ts->scores, tgid);

	if (s)
		s->ns += ns;
}

/* The THREADS_SUSPECTS processes of highest score, best first; how many. */
static size_t suspects_pick(const struct threads_state *ts, int *out)
{
	uint64_t best[THREADS_SUSPECTS];
	size_t n = 0;

	for (size_t i = 0; i < ts->scores.cap; i++) {
		const struct tgid_score *s = pidmap__slot(&ts->scores, i);
		size_t at;

		if (!s || !s->ns || s->tgid == ts->self)
			continue;
		for (at = n; at > 0 && best[at - 1] < s->ns; at--)
			;
		if (at == THREADS_SUSPECTS)
			continue;
		if (n < THREADS_SUSPECTS)
			n++;
		memmove(&best[at + 1], &best[at], (n - 1 - at) * sizeof(best[0]));
		memmove(&out[at + 1], &out[at], (n - 1 - at) * sizeof(out[0]));
		best[at] = s->ns;
		out[at] = s->tgid;
	}
	return n;
}

/* ---- the record ---- */

/* Write what is composed as one record, and start the next (a round may need several). */
static void record_flush(struct threads_state *ts, struct reader *rd, struct capture_writer *w)
{
	if (!ts->rec.len)
		return;
	reader__tee_text(rd, w, "sonde:threads", ts->rec.buf, ts->rec.len);
	ts->rec.len = 0;
	ts->rec.oom = 0;
}

static void record_line_end(struct threads_state *ts, struct reader *rd, struct capture_writer *w)
{
	strbuf__puts(&ts->rec, "\n");
	if (ts->rec.len >= THREADS_RECORD_FLUSH)
		record_flush(ts, rd, w);
}

static void line_thread(struct threads_state *ts, struct thread_sample *t)
{
	struct strbuf *b = &ts->rec;

	strbuf__printf(b, "T\t%d\t%d\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64
			  "\t", t->tid, t->tgid, t->start_ns, t->run_ns, t->runq_ns, t->nvcsw,
		       t->nivcsw);
	if (t->has_delays)
		strbuf__printf(b, "%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\t", t->blkio_ns,
			       t->swapin_ns, t->reclaim_ns, t->thrashing_ns);
	else
		strbuf__puts(b, "-\t");
	threads__words(b, t);
}

/* ---- one round ---- */

struct round_ctx {
	struct threads_state *ts;
	struct reader *rd;
	struct capture_writer *w;
	int64_t dt;      /* ns since the last round, 0 in the first */
	struct strbuf key;
};

static int thread_visit(void *arg, struct thread_sample *t)
{
	struct round_ctx *rc = arg;
	struct threads_state *ts = rc->ts;
	struct thread_slot *s;
	uint64_t key, sw = t->nvcsw + t->nivcsw;
	int fresh, changed;

	if (t->tid <= 0)
		return 0;
	s = pidmap__get(&ts->slots, t->tid);
	if (!s)
		return -ENOMEM;
	/* a tid reused by another process, or one that started again, is another thread */
	fresh = !s->seen || s->gone || s->tgid != t->tgid || s->start != t->start_ns;
	/*
	 * Neither ran nor was switched nor changed state: it cannot have left its
	 * wait, so its words are not even made (most threads of a big host).
	 */
	if (!fresh && s->run == t->run_ns && s->runq == t->runq_ns && s->sw == sw &&
	    s->state == t->state) {
		if (t->state == 'D' && rc->dt > 0 && !(t->flags & THREAD_KTHREAD))
			score_add(ts, t->tgid, (uint64_t)rc->dt);
		s->seen = rc->rd->seq + 1;
		ts->nthreads++;
		ts->nd += t->state == 'D';
		return 0;
	}
	thread_sample__words(t);
	rc->key.len = 0;
	threads__words(&rc->key, t);
	key = fnv1a(rc->key.buf ? rc->key.buf : "", rc->key.len, FNV1A_OFFSET);
	if (!fresh && rc->dt > 0 && !(t->flags & THREAD_KTHREAD)) {
		uint64_t drun = t->run_ns - s->run, drunq = t->runq_ns - s->runq;
		int64_t off = rc->dt - (int64_t)(drun + drunq);

		/* waited while switching: the sampler's business; asleep in D: always */
		if (t->state == 'D')
			score_add(ts, t->tgid, (uint64_t)rc->dt);
		else if (sw != s->sw && off > 0)
			score_add(ts, t->tgid, (uint64_t)off);
	}
	changed = fresh || s->run != t->run_ns || s->runq != t->runq_ns || s->sw != sw ||
		  s->state != t->state || s->key != key;
	if (changed) {
		line_thread(ts, t);
		record_line_end(ts, rc->rd, rc->w);
	}
	s->tgid = t->tgid;
	s->start = t->start_ns;
	s->run = t->run_ns;
	s->runq = t->runq_ns;
	s->sw = sw;
	s->state = t->state;
	s->key = key;
	s->gone = 0;
	s->seen = rc->rd->seq + 1;
	ts->nthreads++;
	if (t->state == 'D')
		ts->nd++;
	return 0;
}

/*
 * Threads a pass no longer has: they exited since the last round ("X TID"),
 * or a kernel thread left uninterruptible sleep. Their slots stay, marked
 * gone (a window is short: the table holds what it saw).
 */
static void threads_gone(struct threads_state *ts, struct reader *rd, struct capture_writer *w)
{
	for (size_t i = 0; i < ts->slots.cap; i++) {
		struct thread_slot *s = pidmap__slot(&ts->slots, i);

		/* in /proc mode only the processes read this round are judged */
		if (!s || s->gone || s->seen == rd->seq + 1 || !threads_proc__covered(ts, s->tgid))
			continue;
		strbuf__printf(&ts->rec, "X\t%d", s->tid);
		record_line_end(ts, rd, w);
		s->gone = 1;
	}
}

static struct threads_state *threads_state(struct collector_state *cs)
{
	struct threads_state *ts = cs->th;

	if (ts)
		return ts;
	ts = calloc(1, sizeof(*ts));
	if (!ts)
		return NULL;
	ts->slots = (struct pidmap)PIDMAP_INIT(sizeof(struct thread_slot));
	ts->scores = (struct pidmap)PIDMAP_INIT(sizeof(struct tgid_score));
	ts->self = cs->root[0] ? 0 : (int)getpid();
	ts->sampler = sampler__new(cs->tasks, cs->root, ts->self);
	cs->th = ts;
	return ts;
}

/* From the task source's pass; -errno (then /proc for the rest of the window) with ts->why. */
static int threads_from_source(struct collector_state *cs, struct round_ctx *rc)
{
	const struct task_source *src = cs->tasks;
	struct reader *rd = rc->rd;
	char why[200] = "";
	int err;

	if (rd->lock) {
		snprintf(rd->current, sizeof(rd->current), "%s", src->name);
		pthread_mutex_unlock(rd->lock);
	}
	err = src->read(src->arg, rd->seq, why, sizeof(why));
	if (rd->lock)
		pthread_mutex_lock(rd->lock);
	if (!err)
		err = src->each_thread(src->arg, thread_visit, rc);
	if (err)
		snprintf(rc->ts->why, sizeof(rc->ts->why), "%s failed in round %u: %s", src->name,
			 rd->seq, why[0] ? why : strerror(-err));
	return err;
}

int threads__sample(struct collector_state *cs, struct reader *rd, struct capture_writer *w,
		    int phase)
{
	struct threads_state *ts = threads_state(cs);
	struct round_ctx rc = { ts, rd, w, 0, { 0 } };
	int64_t now = clock__ns(CLOCK_MONOTONIC), c0;
	int suspects[THREADS_SUSPECTS], sourced;
	size_t ns;

	if (!ts)
		return -ENOMEM;
	/* proc.pids skipped this round's pass (a big host): so do the thread states */
	if (cs->pids && cs->pids->skipped)
		return 0;
	c0 = clock__ns(CLOCK_THREAD_CPUTIME_ID);
	rc.dt = ts->last_mono ? now - ts->last_mono : 0;
	/* the last interval's samples are all in before they are written */
	if (phase & PHASE_LAST)
		sampler__stop(ts->sampler);
	sourced = cs->tasks && cs->tasks->each_thread && !ts->why[0];
	pidmap__free(&ts->scores);
	ts->nthreads = ts->nd = 0;
	strbuf__printf(&ts->rec, "H\t%u\t%s\t%" PRId64 "\n", rd->seq, sourced ? "all" : "listed",
		       rc.dt);
	if (!sourced || threads_from_source(cs, &rc))
		threads_proc__round(cs, ts, rd, phase, thread_visit, &rc);
	else if (ts->proc)
		threads_proc__free(ts); /* every thread is judged again */
	threads_gone(ts, rd, w);
	sampler__lines(ts->sampler, &ts->rec);
	record_flush(ts, rd, w);
	strbuf__free(&rc.key);
	ts->last_mono = now;
	ns = suspects_pick(ts, suspects);
	if (!(phase & PHASE_LAST)) {
		sampler__follow(ts->sampler, suspects, ns);
		if (phase & PHASE_FIRST)
			sampler__start(ts->sampler);
	}
	cs->nproc = 0;
	/* the round's cost, which decides whether the next middle round reads the processes */
	if (cs->pids && !(phase & (PHASE_FIRST | PHASE_LAST)))
		cs->pids->round_cpu_ns += clock__ns(CLOCK_THREAD_CPUTIME_ID) - c0;
	return 0;
}

void threads__facts(const struct collector_state *cs, struct strbuf *b)
{
	const struct threads_state *ts = cs->th;
	const struct task_source *src = cs->tasks;

	if (!ts)
		return;
	if (src && src->each_thread && !ts->why[0]) {
		strbuf__printf(b, "threads_source: %s\n", src->name);
		if (src->threads_lost && src->threads_lost[0])
			strbuf__printf(b, "threads_lost: %s\n", src->threads_lost);
	} else {
		strbuf__printf(b, "threads_source: proc\nthreads_source_why: %s\n",
			       ts->why[0] ? ts->why :
			       src && src->threads_why && src->threads_why[0] ? src->threads_why :
			       cs->tasks_why[0] ? cs->tasks_why : "no task source was offered");
	}
	sampler__facts(ts->sampler, b);
}

void threads__stop(struct collector_state *cs)
{
	/*
	 * Called from the window's thread while an abandoned round may still be
	 * blocked in another collector: ts and its sampler are only read here,
	 * and the sampler has a lock of its own.
	 */
	if (cs->th)
		sampler__stop(cs->th->sampler);
}

void threads__fini(struct collector_state *cs)
{
	struct threads_state *ts = cs->th;

	if (!ts)
		return;
	/* a sampler stuck in a read is left running, with the state it points to */
	if (sampler__free(ts->sampler))
		return;
	threads_proc__free(ts);
	pidmap__free(&ts->slots);
	pidmap__free(&ts->scores);
	strbuf__free(&ts->rec);
	free(ts);
	cs->th = NULL;
}
