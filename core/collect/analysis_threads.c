// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The thread states of a window (proc.threads, sonde:threads records) as
 * time: for each process, its threads' seconds on a CPU, waiting for one,
 * and off CPU by what they waited in (analysis.h, struct thread_states).
 *
 * Between two rounds a thread's on-CPU and run-queue time are exact (its
 * counters); the rest of the interval it was off CPU. A thread with no line
 * in a round did not change: it slept the whole interval in the wait its
 * last line names (parked). One that changed is split between the waits the
 * sampler saw it in during the interval (W lines), else the wait at either
 * end. Which wait is a lock, a disk or an idle pool is the checks' business
 * (checks/lib/waits.lua): here a wait is only what the capture says.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/analysis.h"
#include "util/hash.h"
#include "util/parse.h"
#include "util/pidmap.h"

/* A wait's words, interned: its identity (what it waits in) and its fields. */
struct words_info {
	uint64_t hash;
	char *text;           /* the words as captured */
	uint32_t ident;       /* the wait identity (words less the arguments that vary) */
	char state;
	int running;          /* R: on a CPU or runnable, not a wait */
};

struct ident_info {
	uint64_t hash;
	struct thread_wait w; /* its fields (s, threads, ... unused here) */
};

/* A thread followed through the window. */
struct thr {
	int tid;              /* a pidmap entry */
	int tgid;
	int alive;            /* seen, not gone */
	uint64_t start, run, runq, nvcsw;
	uint32_t words;       /* its last line's words (index + 1) */
	int64_t base_mono;    /* when its counters were last known */
	uint32_t recent[4];   /* the last wait rows it was counted in (distinct threads a row) */
	int touched;          /* had a line this round */
	int d_proc_counted;
};

/* A W line waiting for its round's end. */
struct pending_w {
	int tid;
	uint32_t words;
	uint64_t count;
};

/* A T line waiting for its round's end: the sampler's W lines of the round come after it. */
struct pending_t {
	int tid, tgid;
	uint64_t start, run, runq, nvcsw;
	uint32_t words;
};

struct tbuild {
	struct thread_states *ts;
	struct pidmap thr;    /* struct thr by tid */
	struct pidmap procix; /* struct { int pid; uint32_t ix; } */
	struct words_info *words;
	size_t nwords, words_cap;
	uint32_t *words_ix;   /* hash -> index + 1 */
	size_t words_ix_cap;
	struct ident_info *idents;
	size_t nidents, idents_cap;
	uint32_t *ident_ix;
	size_t ident_ix_cap;
	uint64_t *row_ix;     /* (proc, ident) -> row + 1 packed as proc << 32 | row */
	size_t row_cap, nrows;
	struct pending_w *w;
	size_t nw, w_cap;
	struct pending_t *t;
	size_t nt, t_cap;
	int *covered;         /* this round's L lines */
	size_t ncovered, covered_cap;
	int listed;
	int64_t mono;         /* this round's */
	int64_t first_mono;   /* the first round's */
	int in_round;
	const struct analysis *an;
};

struct proc_ix {
	int pid;
	uint32_t ix;
};

/* ---- interning ---- */

static char *dup_n(const char *p, size_t n)
{
	char *s = malloc(n + 1);

	if (s) {
		memcpy(s, p, n);
		s[n] = '\0';
	}
	return s;
}

static int grow_ix(uint32_t **ix, size_t *cap, size_t n, const void *base, size_t esize)
{
	size_t ncap = *cap ? *cap : 1024;
	uint32_t *ni;

	if ((n + 1) * 2 <= *cap)
		return 0;
	while ((n + 1) * 2 > ncap)
		ncap *= 2;
	ni = calloc(ncap, sizeof(*ni));
	if (!ni)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		uint64_t h = *(const uint64_t *)((const char *)base + i * esize);
		size_t k = h & (ncap - 1);

		while (ni[k])
			k = (k + 1) & (ncap - 1);
		ni[k] = (uint32_t)i + 1;
	}
	free(*ix);
	*ix = ni;
	*cap = ncap;
	return 0;
}

/* The futex command of op (FUTEX_CMD_MASK), and whether it is a lock's. */
static const char *futex_cmd(uint64_t op)
{
	static const char *const names[] = {
		"WAIT", "WAKE", "FD", "REQUEUE", "CMP_REQUEUE", "WAKE_OP", "LOCK_PI", "UNLOCK_PI",
		"TRYLOCK_PI", "WAIT_BITSET", "WAKE_BITSET", "WAIT_REQUEUE_PI", "CMP_REQUEUE_PI",
		"LOCK_PI2",
	};
	unsigned cmd = (unsigned)(op & 0x7f);

	return cmd < sizeof(names) / sizeof(names[0]) ? names[cmd] : "?";
}

static char *intern_str(struct tbuild *b, const struct threads_word *w);

/* The identity of a wait: what it waits in, without what varies per call. */
static int ident_of(struct tbuild *b, const struct threads_line *l, uint32_t *out)
{
	char key[1200];
	int n;
	uint64_t h;
	size_t k;
	int futex = l->syscall.n == 5 && !memcmp(l->syscall.p, "futex", 5) && l->has_args;
	const char *flags = l->flags.p;
	int iowait = l->flags.n && memchr(flags, 'i', l->flags.n), pollfd = l->flags.n &&
		     memchr(flags, 'p', l->flags.n);
	struct ident_info *ii;

	n = snprintf(key, sizeof(key), "%c%d%d\t%.*s\t%.*s\t%.*s\t", l->state, !!iowait, !!pollfd,
		     (int)l->syscall.n, l->syscall.p, (int)l->object.n, l->object.p,
		     (int)l->kstack.n, l->kstack.p);
	if (futex && n > 0 && (size_t)n < sizeof(key))
		n += snprintf(key + n, sizeof(key) - (size_t)n, "%llx %s %d",
			      (unsigned long long)l->args_v[0], futex_cmd(l->args_v[1]),
			      l->args_v[2] == 2);
	if (n < 0 || (size_t)n >= sizeof(key))
		n = sizeof(key) - 1;
	h = fnv1a(key, (size_t)n, FNV1A_OFFSET);
	if (grow_ix(&b->ident_ix, &b->ident_ix_cap, b->nidents, b->idents, sizeof(*b->idents)))
		return -ENOMEM;
	for (k = h & (b->ident_ix_cap - 1); b->ident_ix[k]; k = (k + 1) & (b->ident_ix_cap - 1))
		if (b->idents[b->ident_ix[k] - 1].hash == h) {
			*out = b->ident_ix[k] - 1;
			return 0;
		}
	if (b->nidents == b->idents_cap) {
		size_t ncap = b->idents_cap ? b->idents_cap * 2 : 256;
		struct ident_info *ni = realloc(b->idents, ncap * sizeof(*ni));

		if (!ni)
			return -ENOMEM;
		b->idents = ni;
		b->idents_cap = ncap;
	}
	ii = &b->idents[b->nidents];
	memset(ii, 0, sizeof(*ii));
	ii->hash = h;
	ii->w.state = l->state;
	ii->w.iowait = !!iowait;
	ii->w.pollfd = !!pollfd;
	ii->w.syscall = intern_str(b, &l->syscall);
	ii->w.object = intern_str(b, &l->object);
	ii->w.kstack = intern_str(b, &l->kstack);
	if (!ii->w.syscall || !ii->w.object || !ii->w.kstack)
		return -ENOMEM;
	if (futex) {
		ii->w.futex_addr = l->args_v[0];
		ii->w.futex_cmd = futex_cmd(l->args_v[1]);
		ii->w.futex_val2 = l->args_v[2] == 2;
	}
	b->ident_ix[k] = (uint32_t)++b->nidents;
	*out = b->nidents - 1;
	return 0;
}

/* Strings are owned by the result (thread_states.strings), one copy each. */
static char *intern_str(struct tbuild *b, const struct threads_word *w)
{
	struct thread_states *ts = b->ts;
	char *s;

	if (!w->n)
		return "";
	if (ts->nstrings == ts->strings_cap) {
		size_t ncap = ts->strings_cap ? ts->strings_cap * 2 : 256;
		char **ns = realloc(ts->strings, ncap * sizeof(*ns));

		if (!ns)
			return NULL;
		ts->strings = ns;
		ts->strings_cap = ncap;
	}
	s = dup_n(w->p, w->n);
	if (s)
		ts->strings[ts->nstrings++] = s;
	return s;
}

/* The words of a T or W line, interned: index + 1, 0 when out of memory. */
static uint32_t words_of(struct tbuild *b, const struct threads_line *l)
{
	uint64_t h = fnv1a(l->words.p, l->words.n, FNV1A_OFFSET);
	struct words_info *wi;
	size_t k;

	if (grow_ix(&b->words_ix, &b->words_ix_cap, b->nwords, b->words, sizeof(*b->words)))
		return 0;
	for (k = h & (b->words_ix_cap - 1); b->words_ix[k]; k = (k + 1) & (b->words_ix_cap - 1)) {
		wi = &b->words[b->words_ix[k] - 1];
		if (wi->hash == h && strlen(wi->text) == l->words.n &&
		    !memcmp(wi->text, l->words.p, l->words.n))
			return b->words_ix[k];
	}
	if (b->nwords == b->words_cap) {
		size_t ncap = b->words_cap ? b->words_cap * 2 : 256;
		struct words_info *nw = realloc(b->words, ncap * sizeof(*nw));

		if (!nw)
			return 0;
		b->words = nw;
		b->words_cap = ncap;
	}
	wi = &b->words[b->nwords];
	memset(wi, 0, sizeof(*wi));
	wi->hash = h;
	wi->state = l->state;
	wi->running = l->state == 'R';
	if (!(wi->text = dup_n(l->words.p, l->words.n)) || ident_of(b, l, &wi->ident)) {
		free(wi->text);
		return 0;
	}
	b->words_ix[k] = (uint32_t)++b->nwords;
	return b->nwords;
}

/* ---- processes and their rows ---- */

static struct thread_proc *proc_of(struct tbuild *b, int pid)
{
	struct thread_states *ts = b->ts;
	struct proc_ix *pi = pidmap__get(&b->procix, pid);

	if (!pi)
		return NULL;
	if (!pi->ix) {
		if (ts->nprocs == ts->procs_cap) {
			size_t ncap = ts->procs_cap ? ts->procs_cap * 2 : 256;
			struct thread_proc *np = realloc(ts->procs, ncap * sizeof(*np));

			if (!np)
				return NULL;
			ts->procs = np;
			ts->procs_cap = ncap;
		}
		memset(&ts->procs[ts->nprocs], 0, sizeof(ts->procs[0]));
		ts->procs[ts->nprocs].pid = pid;
		pi->ix = (uint32_t)++ts->nprocs;
	}
	return &ts->procs[pi->ix - 1];
}

/* The row of process p for wait identity ident (created): index + 1, 0 when out of memory. */
static uint32_t row_of(struct tbuild *b, struct thread_proc *p, uint32_t ident)
{
	uint32_t pix = (uint32_t)(p - b->ts->procs);
	uint64_t key = (uint64_t)pix << 32 | ident, h = key * 0x9e3779b97f4a7c15ull;
	size_t k;

	if ((b->nrows + 1) * 2 > b->row_cap) {
		size_t ncap = b->row_cap ? b->row_cap * 2 : 1024;
		uint64_t *ni = calloc(ncap * 2, sizeof(*ni));

		if (!ni)
			return 0;
		for (size_t i = 0; i < b->row_cap; i++) {
			if (!b->row_ix[2 * i + 1])
				continue;
			for (k = (b->row_ix[2 * i] * 0x9e3779b97f4a7c15ull) & (ncap - 1); ni[2 * k + 1];
			     k = (k + 1) & (ncap - 1))
				;
			ni[2 * k] = b->row_ix[2 * i];
			ni[2 * k + 1] = b->row_ix[2 * i + 1];
		}
		free(b->row_ix);
		b->row_ix = ni;
		b->row_cap = ncap;
	}
	for (k = h & (b->row_cap - 1); b->row_ix[2 * k + 1]; k = (k + 1) & (b->row_cap - 1))
		if (b->row_ix[2 * k] == key)
			return (uint32_t)b->row_ix[2 * k + 1];
	if (p->nwaits == p->wcap) {
		size_t ncap = p->wcap ? p->wcap * 2 : 4;
		struct thread_wait *nw = realloc(p->waits, ncap * sizeof(*nw));

		if (!nw)
			return 0;
		p->waits = nw;
		p->wcap = ncap;
	}
	p->waits[p->nwaits] = b->idents[ident].w;
	b->row_ix[2 * k] = key;
	b->row_ix[2 * k + 1] = ++p->nwaits;
	b->nrows++;
	return (uint32_t)p->nwaits;
}

/* Charge s seconds of off-CPU time (and its wakes) of thread t to the wait of words. */
static void charge(struct tbuild *b, struct thr *t, struct thread_proc *p, uint32_t words,
		   double s, double wakes, int parked)
{
	uint32_t row;
	struct thread_wait *w;
	int known = 0;

	if (s <= 0)
		return;
	row = words ? row_of(b, p, b->words[words - 1].ident) : 0;
	if (!row) {
		p->unsampled_s += s;
		return;
	}
	w = &p->waits[row - 1];
	w->s += s;
	w->wakes += wakes;
	w->samples++;
	if (parked)
		w->parked_s += s;
	for (int i = 0; i < 4; i++)
		known |= t->recent[i] == row;
	if (!known) {
		w->threads++;
		memmove(&t->recent[1], &t->recent[0], 3 * sizeof(t->recent[0]));
		t->recent[0] = row;
	}
}

/* ---- a round ---- */

static int covered(const struct tbuild *b, int tgid)
{
	if (!b->listed)
		return 1;
	for (size_t i = 0; i < b->ncovered; i++)
		if (b->covered[i] == tgid)
			return 1;
	return 0;
}

/* A changed thread's interval: its counters' deltas, its off-CPU time by the sampler's W lines. */
static void changed(struct tbuild *b, struct thr *t, const struct pending_t *l, uint32_t words)
{
	struct thread_proc *p = proc_of(b, t->tgid);
	double drun = (double)(l->run - t->run) / 1e9, drunq = (double)(l->runq - t->runq) / 1e9;
	double span = (double)(b->mono - t->base_mono) / 1e9, off, wakes, total = 0;
	uint32_t fallback = 0;

	if (!p || l->run < t->run || l->runq < t->runq || span <= 0)
		return;
	off = span - drun - drunq;
	if (off < 0)
		off = 0;
	wakes = l->nvcsw >= t->nvcsw ? (double)(l->nvcsw - t->nvcsw) : 0;
	p->oncpu_s += drun;
	p->runq_s += drunq;
	p->offcpu_s += off;
	p->observed_s += drun + drunq + off;
	p->wakes += wakes;
	for (size_t i = 0; i < b->nw; i++)
		if (b->w[i].tid == t->tid && !b->words[b->w[i].words - 1].running)
			total += (double)b->w[i].count;
	if (total > 0) {
		for (size_t i = 0; i < b->nw; i++)
			if (b->w[i].tid == t->tid && !b->words[b->w[i].words - 1].running) {
				double share = (double)b->w[i].count / total;

				charge(b, t, p, b->w[i].words, off * share, wakes * share, 0);
			}
		p->sampled_s += off;
		return;
	}
	/* not sampled: the wait at either end of the interval */
	if (words && !b->words[words - 1].running)
		fallback = words;
	else if (t->words && !b->words[t->words - 1].running)
		fallback = t->words;
	charge(b, t, p, fallback, off, wakes, 0);
}

/* A thread's line at its round's end: a new thread, or one that changed. */
static int thread_line(struct tbuild *b, const struct pending_t *l)
{
	uint32_t words = l->words;
	struct thr *t = pidmap__get(&b->thr, l->tid);
	struct thread_proc *p;
	int fresh;

	if (!t)
		return -ENOMEM;
	fresh = !t->alive || t->tgid != l->tgid || t->start != l->start;
	if (fresh) {
		memset(t, 0, sizeof(*t));
		t->tid = l->tid;
		t->tgid = l->tgid;
		t->start = l->start;
		t->alive = 1;
		/* born in the window: its counters started at zero, at its start */
		if (b->an && l->start > (uint64_t)b->an->start_mono_ns &&
		    l->start < (uint64_t)b->mono) {
			t->base_mono = (int64_t)l->start;
			changed(b, t, l, words);
		}
		if (!(p = proc_of(b, l->tgid)))
			return -ENOMEM;
		p->threads++;
	} else {
		changed(b, t, l, words);
	}
	t->run = l->run;
	t->runq = l->runq;
	t->nvcsw = l->nvcsw;
	t->words = words;
	t->base_mono = b->mono;
	t->touched = 1;
	return 0;
}

static int round_end(struct tbuild *b)
{
	struct thread_states *ts = b->ts;
	uint32_t nd = 0, nr = 0;

	if (!b->in_round)
		return 0;
	for (size_t i = 0; i < b->nt; i++)
		if (thread_line(b, &b->t[i]))
			return -ENOMEM;
	b->nt = 0;
	for (size_t i = 0; i < b->thr.cap; i++) {
		struct thr *t = pidmap__slot(&b->thr, i);
		struct thread_proc *p;
		double span;

		if (!t || !t->alive)
			continue;
		if (t->words && b->words[t->words - 1].state == 'D') {
			nd++;
			if ((p = proc_of(b, t->tgid)))
				p->d_count++;
		} else if (t->words && b->words[t->words - 1].running) {
			nr++;
		}
		if (t->touched) {
			t->touched = 0;
			continue;
		}
		if (!covered(b, t->tgid))
			continue; /* not read this round: its next line covers the span */
		/* unchanged: asleep in the same wait all along */
		span = (double)(b->mono - t->base_mono) / 1e9;
		if (span > 0 && (p = proc_of(b, t->tgid))) {
			p->observed_s += span;
			if (b->words[t->words - 1].running) {
				p->runq_s += span; /* runnable with no run-queue accounting (no sched_info) */
			} else {
				p->offcpu_s += span;
				charge(b, t, p, t->words, span, 0, 1);
			}
		}
		t->base_mono = b->mono;
	}
	if (ts->rounds < THREAD_STATES_ROUNDS) {
		ts->d_series[ts->rounds] = nd;
		ts->r_series[ts->rounds] = nr;
		ts->t_series[ts->rounds] = b->an ? (double)(b->mono - b->an->start_mono_ns) / 1e9 : 0;
	}
	ts->rounds++;
	ts->d_sum += nd;
	ts->r_sum += nr;
	b->nw = 0;
	b->ncovered = 0;
	b->in_round = 0;
	return 0;
}

static int line_t(struct tbuild *b, const struct threads_line *l)
{
	struct pending_t *pt;

	if (b->nt == b->t_cap) {
		size_t ncap = b->t_cap ? b->t_cap * 2 : 1024;
		struct pending_t *n = realloc(b->t, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		b->t = n;
		b->t_cap = ncap;
	}
	pt = &b->t[b->nt];
	pt->tid = l->tid;
	pt->tgid = l->tgid;
	pt->start = l->start;
	pt->run = l->run;
	pt->runq = l->runq;
	pt->nvcsw = l->nvcsw;
	if (!(pt->words = words_of(b, l)))
		return -ENOMEM;
	b->nt++;
	return 0;
}

static int line(struct tbuild *b, const struct threads_line *l, const struct capture_rec *r)
{
	struct thr *t;

	switch (l->kind) {
	case 'H':
		if (round_end(b))
			return -ENOMEM;
		b->in_round = 1;
		b->listed = l->listed;
		b->mono = r->mono_ns;
		if (!b->first_mono)
			b->first_mono = r->mono_ns;
		b->ts->listed |= l->listed;
		return 0;
	case 'T':
		return b->in_round ? line_t(b, l) : 0;
	case 'W':
		if (b->nw == b->w_cap) {
			size_t ncap = b->w_cap ? b->w_cap * 2 : 256;
			struct pending_w *nw = realloc(b->w, ncap * sizeof(*nw));

			if (!nw)
				return -ENOMEM;
			b->w = nw;
			b->w_cap = ncap;
		}
		b->w[b->nw].tid = l->tid;
		b->w[b->nw].count = l->count;
		if (!(b->w[b->nw].words = words_of(b, l)))
			return -ENOMEM;
		b->nw++;
		return 0;
	case 'X':
		if ((t = pidmap__find(&b->thr, l->tid)))
			t->alive = 0;
		return 0;
	case 'L':
		if (b->ncovered == b->covered_cap) {
			size_t ncap = b->covered_cap ? b->covered_cap * 2 : 256;
			int *nc = realloc(b->covered, ncap * sizeof(*nc));

			if (!nc)
				return -ENOMEM;
			b->covered = nc;
			b->covered_cap = ncap;
		}
		b->covered[b->ncovered++] = l->tgid;
		return 0;
	case 'C': {
		struct thread_proc *p = proc_of(b, l->tgid);

		if (!p)
			return -ENOMEM;
		p->passes += l->passes;
		p->run_sum += l->run_sum;
		if (l->run_max > p->run_max)
			p->run_max = (uint32_t)l->run_max;
		return 0;
	}
	case 'S':
		b->ts->sampler_passes += l->passes;
		b->ts->sampler_cpu_ns += l->run_max;
		b->ts->sampler_lost += l->run_sum;
		return 0;
	}
	return 0;
}

static int wait_cmp(const void *a, const void *b)
{
	const struct thread_wait *x = a, *y = b;

	return (x->s < y->s) - (x->s > y->s);
}

static int proc_cmp(const void *a, const void *b)
{
	const struct thread_proc *x = a, *y = b;

	return (x->offcpu_s < y->offcpu_s) - (x->offcpu_s > y->offcpu_s);
}

static void tbuild__free(struct tbuild *b)
{
	for (size_t i = 0; i < b->nwords; i++)
		free(b->words[i].text);
	free(b->words);
	free(b->words_ix);
	free(b->idents);
	free(b->ident_ix);
	free(b->row_ix);
	free(b->w);
	free(b->t);
	free(b->covered);
	pidmap__free(&b->thr);
	pidmap__free(&b->procix);
}

void thread_states__free(struct thread_states *ts)
{
	if (!ts)
		return;
	for (size_t i = 0; i < ts->nprocs; i++)
		free(ts->procs[i].waits);
	free(ts->procs);
	for (size_t i = 0; i < ts->nstrings; i++)
		free(ts->strings[i]);
	free(ts->strings);
	free(ts);
}

int thread_states__build(const struct analysis *an, const struct capture_stream *st,
			 struct thread_states **out, char *why, size_t whylen)
{
	struct tbuild b = { 0 };
	int err = 0;

	*out = NULL;
	b.ts = calloc(1, sizeof(*b.ts));
	if (!b.ts)
		return -ENOMEM;
	b.an = an;
	b.thr = (struct pidmap)PIDMAP_INIT(sizeof(struct thr));
	b.procix = (struct pidmap)PIDMAP_INIT(sizeof(struct proc_ix));
	for (size_t i = 0; i < st->n && !err; i++) {
		const struct capture_rec *r = &st->rec[i];
		const char *pos = r->data, *end = r->data + r->len, *ls, *le;
		size_t lineno = 0;

		if (r->err || strcmp(r->path, "sonde:threads"))
			continue;
		while (!err && pos < end) {
			struct threads_line l;

			le = memchr(pos, '\n', (size_t)(end - pos));
			if (!le)
				break; /* a cut record keeps its complete lines */
			ls = pos;
			pos = le + 1;
			lineno++;
			if (parse_threads_line(ls, le, &l)) {
				snprintf(why, whylen, "raw/proc.threads.cap: round %u, line %zu: "
					 "not a thread-state line", r->seq, lineno);
				err = -EINVAL;
				break;
			}
			err = line(&b, &l, r);
		}
	}
	if (!err)
		err = round_end(&b);
	if (err) {
		if (err == -ENOMEM)
			snprintf(why, whylen, "thread states: %s", strerror(ENOMEM));
		thread_states__free(b.ts);
		tbuild__free(&b);
		return err;
	}
	for (size_t i = 0; i < b.ts->nprocs; i++) {
		struct thread_proc *p = &b.ts->procs[i];

		qsort(p->waits, p->nwaits, sizeof(*p->waits), wait_cmp);
		p->d_mean = b.ts->rounds ? (double)p->d_count / b.ts->rounds : 0;
	}
	qsort(b.ts->procs, b.ts->nprocs, sizeof(*b.ts->procs), proc_cmp);
	b.ts->d_mean = b.ts->rounds ? (double)b.ts->d_sum / b.ts->rounds : 0;
	b.ts->span_s = (double)(b.mono - b.first_mono) / 1e9;
	b.ts->r_mean = b.ts->rounds ? (double)b.ts->r_sum / b.ts->rounds : 0;
	tbuild__free(&b);
	*out = b.ts;
	return 0;
}

int analysis__threads(struct analysis *an, const struct thread_states **out, char *why,
		      size_t whylen)
{
	const struct capture_stream *st;
	int err;

	*out = NULL;
	if (an->threads_built) {
		if (!an->threads) {
			snprintf(why, whylen, "%s", an->threads_why);
			return an->threads_why[0] ? -EINVAL : -ENOENT;
		}
		*out = an->threads;
		return 0;
	}
	an->threads_built = 1;
	st = capture_set__stream(&an->cs, "proc.threads");
	if (!st) {
		const char *w = capture_set__why(&an->cs, "proc.threads");

		if (!w)
			return -ENOENT;
		snprintf(an->threads_why, sizeof(an->threads_why), "raw/%s", w);
		snprintf(why, whylen, "%s", an->threads_why);
		return -EINVAL;
	}
	err = thread_states__build(an, st, &an->threads, an->threads_why,
				   sizeof(an->threads_why));
	if (err) {
		snprintf(why, whylen, "%s", an->threads_why);
		return err;
	}
	*out = an->threads;
	return 0;
}
