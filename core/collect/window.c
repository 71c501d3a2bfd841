// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The observation window: every wanted collector samples at t=0, every
 * interval and at the end, in a worker thread watched for hung reads; the
 * progress line; and the run facts record (raw/sonde.cap, "sonde:run").
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collect/collectors.h"
#include "util/parse.h"
#include "util/selfcpu.h"

#ifndef SONDE_VERSION
#define SONDE_VERSION "dev"
#endif

static void progress(const struct window_opts *o, double left, size_t ncol, uint64_t nproc,
		     uint64_t bytes)
{
	char line[160];
	int n;

	if (!o->progress)
		return;
	n = snprintf(line, sizeof(line), "\r\033[K  observing: %4.1f s left · %zu collectors", left,
		     ncol);
	if (nproc)
		n += snprintf(line + n, sizeof(line) - (size_t)n, " · %" PRIu64 " processes", nproc);
	snprintf(line + n, sizeof(line) - (size_t)n, " · %.1f MiB captured  (Ctrl-C ends early)",
		 (double)bytes / (1 << 20));
	fputs(line, stderr);
	fflush(stderr);
}

/*
 * /proc's hidepid= option (hides other users' processes from a non-root
 * sonde), from our own mountinfo; "" when absent or on a replayed root.
 */
struct hidepid {
	char *out;
	size_t len;
};

static int hidepid_mount(const struct mountinfo_line *m, void *arg)
{
	struct hidepid *h = arg;
	const char *opt, *end = m->super.p + m->super.n;

	if (!parse_word_is_str(m->point, "/proc") || !parse_word_is_str(m->fstype, "proc"))
		return 0;
	/* the last mount on /proc is the one that counts */
	h->out[0] = '\0';
	opt = memmem(m->super.p, m->super.n, "hidepid=", 8);
	if (opt) {
		size_t n = 0;

		for (opt += 8; opt + n < end && opt[n] != ','; n++)
			;
		snprintf(h->out, h->len, "%.*s", (int)(n < h->len ? n : h->len - 1), opt);
	}
	return 0;
}

static void proc_hidepid(const char *root, char *out, size_t len)
{
	struct hidepid h = { out, len };
	FILE *f;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	out[0] = '\0';
	if (root[0] || !(f = fopen("/proc/self/mountinfo", "re")))
		return;
	/* id parent major:minor root mountpoint options ... - fstype source superoptions */
	while ((n = getline(&line, &cap, f)) > 0)
		parse_mountinfo(line, (size_t)n, hidepid_mount, &h);
	free(line);
	fclose(f);
}

static int wanted(const struct window_opts *o, const char *name)
{
	if (!strcmp(name, "host"))
		return 1;
	/* the thread states read proc.pids's pass, and in /proc mode who it saw run */
	if (!strcmp(name, "proc.pids") && wanted(o, "proc.threads"))
		return 1;
	for (const char *const *n = o->names; n && *n; n++)
		if (!strcmp(*n, name))
			return 1;
	return 0;
}

/*
 * Sampling rounds run in a worker thread so that a read that never returns (a
 * process whose memory is stuck, a hung mount) cannot hang sonde: the window
 * waits for each round at most stall_s, then gives it up, keeps what was
 * captured, and says which read hung. The worker holds the lock for the whole
 * round except inside open/read, so once the window takes the lock after a
 * timeout and keeps it, the worker can never touch the captures again.
 */
struct round_worker {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t th;
	int go, done, quit;
	int phase;
	struct collector_state *st;
	size_t nst;
	struct reader *rd;
	int64_t cpu_ns, max_cpu_ns;  /* the rounds' CPU time in this thread, its syscalls included */
};

/*
 * One window's state. On the heap, and never freed once a round was
 * abandoned: the blocked worker still points into it (its reader, the
 * collectors' state, the lock the window keeps).
 */
struct window {
	struct round_worker wk;
	int worker;                  /* the worker thread was started */
	struct collector_state st[32];
	size_t nst;
	struct capture_writer meta;  /* raw/sonde.cap: the run facts */
	int meta_open;
	struct reader rd;
};

/* Where proc.pids took its processes from: the source, or /proc and why. */
static void tasks_source(const struct window *win, const struct window_opts *o, char *out,
			 size_t len)
{
	const char *why = o->tasks_why;

	for (size_t i = 0; i < win->nst; i++) {
		const struct collector_state *cs = &win->st[i];

		if (strcmp(cs->c->name, "proc.pids"))
			continue;
		if (cs->tasks && !cs->tasks_why[0]) {
			/*
			 * missed: processes /proc listed that the source did not give (read from
			 * /proc); skipped: middle rounds whose pass was over the round's budget
			 */
			int n = snprintf(out, len, "tasks_source: %s\ntasks_source_missed: %" PRIu64
					 "\ntasks_rounds_skipped: %u\n", cs->tasks->name,
					 cs->tasks_missed, cs->nskipped);

			if (n < 0 || (size_t)n >= len)
				return;
			/* where the first round's command lines came from */
			if (cs->cmdlines_why[0])
				snprintf(out + n, len - (size_t)n,
					 "tasks_cmdlines: proc\ntasks_cmdlines_why: %s\n",
					 cs->cmdlines_why);
			else
				snprintf(out + n, len - (size_t)n,
					 "tasks_cmdlines: %s\ntasks_cmdlines_from_source: %" PRIu64
					 "\n", cs->tasks->name, cs->cmdlines_src);
			return;
		}
		if (cs->tasks_why[0])
			why = cs->tasks_why;
		snprintf(out, len,
			 "tasks_source: proc\ntasks_source_why: %s\ntasks_rounds_skipped: %u\n",
			 why && why[0] ? why : "no task source was offered", cs->nskipped);
		return;
	}
	out[0] = '\0';
}

static void write_run_facts(const struct window *win, struct reader *rd, struct capture_writer *w,
			    const struct window_opts *o, const struct window_result *res)
{
	char txt[4096], hidepid[32], source[2000];
	struct strbuf threads = { 0 }, more = { 0 };
	int n;

	proc_hidepid(o->root, hidepid, sizeof(hidepid));
	tasks_source(win, o, source, sizeof(source));
	/* an abandoned round may still be inside proc.threads: its facts are not read then */
	for (size_t i = 0; i < win->nst && !res->abandoned; i++)
		if (!strcmp(win->st[i].c->name, "proc.threads"))
			threads__facts(&win->st[i], &threads);
	observer__facts(o->root, &threads);
	if (threads.len && !threads.oom)
		snprintf(source + strlen(source), sizeof(source) - strlen(source), "%s",
			 threads.buf);
	strbuf__free(&threads);
	n = snprintf(txt, sizeof(txt),
		     "version: %s\nwindow_s: %.3f\ninterval_s: %.3f\nstart_wall_ns: %" PRId64
		     "\nend_wall_ns: %" PRId64 "\nstart_mono_ns: %" PRId64 "\nend_mono_ns: %" PRId64
		     "\nsamples: %" PRIu32 "\npartial: %d\nstop_reason: %s\nclk_tck: %ld\n"
		     "page_size: %ld\npid: %ld\neuid: %d\nproc_hidepid: %s\n%s"
		     "rounds_cpu_ns: %" PRId64 "\nmax_round_cpu_ns: %" PRId64 "\n",
		     SONDE_VERSION, o->window_s, o->interval_s, res->start_wall_ns,
		     res->end_wall_ns, res->start_mono_ns, res->end_mono_ns, res->samples,
		     res->partial, res->stop_reason, sysconf(_SC_CLK_TCK), sysconf(_SC_PAGESIZE),
		     (long)getpid(), (int)geteuid(), hidepid, source, res->rounds_cpu_ns,
		     res->max_round_cpu_ns);
	if (n >= (int)sizeof(txt))
		n = (int)sizeof(txt) - 1;
	if (!o->facts) {
		reader__tee_text(rd, w, "sonde:run", txt, (size_t)n);
		return;
	}
	/* the layer above's lines (the budget) after the window's own */
	strbuf__append(&more, txt, (size_t)n);
	o->facts(o->facts_arg, &more);
	if (!more.oom)
		reader__tee_text(rd, w, "sonde:run", more.buf, more.len);
	else
		reader__tee_text(rd, w, "sonde:run", txt, (size_t)n);
	strbuf__free(&more);
}

static void *round_main(void *arg)
{
	struct round_worker *wk = arg;
	sigset_t all;
	int64_t c0;

	/* named, so `top -H` and perf tell sonde's threads apart */
	pthread_setname_np(pthread_self(), "sonde-round");
	self_cpu__enter(SELF_ROUNDS);
	/* Signals are the main thread's business. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_mutex_lock(&wk->mu);
	for (;;) {
		while (!wk->go && !wk->quit)
			pthread_cond_wait(&wk->cv, &wk->mu);
		if (wk->quit)
			break;
		wk->go = 0;
		c0 = clock__ns(CLOCK_THREAD_CPUTIME_ID);
		for (size_t i = 0; i < wk->nst; i++)
			wk->st[i].c->sample(&wk->st[i], wk->rd, &wk->st[i].w, wk->phase);
		c0 = clock__ns(CLOCK_THREAD_CPUTIME_ID) - c0;
		wk->cpu_ns += c0;
		if (c0 > wk->max_cpu_ns)
			wk->max_cpu_ns = c0;
		wk->done = 1;
		pthread_cond_broadcast(&wk->cv);
	}
	pthread_mutex_unlock(&wk->mu);
	return NULL;
}

/*
 * Run one round in the worker (main holds wk->mu). A round is hung when no
 * read ended for stall_s; one that is slow but moving (10,000 processes on a
 * host whose CPUs are all taken) is waited for, up to max_s + stall_s in all.
 * 0, or -ETIMEDOUT (hung) or -ETIME (still moving then) when it was given up.
 */
static int round_run(struct round_worker *wk, int phase, double stall_s, double max_s)
{
	struct timespec dl;
	/* looked at five times per stall_s: a hang is told within a fifth of it */
	int64_t poll = (int64_t)(stall_s * 1e9) / 5, now = clock__ns(CLOCK_MONOTONIC), moved = now;
	int64_t limit = now + (int64_t)((max_s + stall_s) * 1e9), next;
	uint64_t seen = __atomic_load_n(&wk->rd->finished, __ATOMIC_RELAXED), cur;

	wk->phase = phase;
	wk->done = 0;
	wk->go = 1;
	pthread_cond_broadcast(&wk->cv);
	next = now + poll;
	while (!wk->done) {
		dl.tv_sec = next / 1000000000;
		dl.tv_nsec = next % 1000000000;
		if (pthread_cond_timedwait(&wk->cv, &wk->mu, &dl) != ETIMEDOUT || wk->done)
			continue;
		cur = __atomic_load_n(&wk->rd->finished, __ATOMIC_RELAXED);
		now = clock__ns(CLOCK_MONOTONIC);
		if (cur != seen) {
			seen = cur;
			moved = now;
		} else if (now - moved >= (int64_t)(stall_s * 1e9)) {
			return -ETIMEDOUT;
		}
		if (now >= limit)
			return -ETIME;
		next = now + poll;
	}
	return 0;
}

/* raw/sonde.cap and the stream of every wanted collector. 0 or -errno with errbuf. */
static int window__open(struct window *win, const struct window_opts *o, char *errbuf,
			size_t errlen)
{
	int err = capture_writer__open(&win->meta, o->raw_dir, "sonde");

	if (err) {
		snprintf(errbuf, errlen, "%s: %s", o->raw_dir, strerror(-err));
		return err;
	}
	win->meta_open = 1;
	for (const struct collector *const *c = collectors; *c; c++) {
		struct collector_state *cs = &win->st[win->nst];

		if (!wanted(o, (*c)->name) || win->nst == sizeof(win->st) / sizeof(win->st[0]))
			continue;
		cs->c = *c;
		cs->root = o->root;
		cs->interval_s = o->interval_s;
		if (!strcmp((*c)->name, "proc.pids") || !strcmp((*c)->name, "proc.threads"))
			cs->tasks = o->tasks;
		/* why there is no task source, for proc.threads' run facts */
		if (!strcmp((*c)->name, "proc.threads") && !o->tasks && o->tasks_why)
			snprintf(cs->tasks_why, sizeof(cs->tasks_why), "%s", o->tasks_why);
		/* proc.threads comes after proc.pids in the table: the same round's data */
		if (!strcmp((*c)->name, "proc.threads"))
			for (size_t i = 0; i < win->nst; i++)
				if (!strcmp(win->st[i].c->name, "proc.pids"))
					cs->pids = &win->st[i];
		err = capture_writer__open(&cs->w, o->raw_dir, (*c)->name);
		if (err) {
			snprintf(errbuf, errlen, "%s/%s.cap: %s", o->raw_dir, (*c)->name,
				 strerror(-err));
			return err;
		}
		win->nst++;
	}
	return 0;
}

/* Start the worker thread, holding its lock (released only around reads). 0 or -errno. */
static int window__start_worker(struct window *win, char *errbuf, size_t errlen)
{
	struct round_worker *wk = &win->wk;
	pthread_condattr_t ca;
	int err;

	pthread_mutex_init(&wk->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&wk->cv, &ca);
	pthread_condattr_destroy(&ca);
	wk->st = win->st;
	wk->nst = win->nst;
	wk->rd = &win->rd;
	pthread_mutex_lock(&wk->mu);
	win->rd.lock = &wk->mu;
	err = pthread_create(&wk->th, NULL, round_main, wk);
	if (err) {
		pthread_mutex_unlock(&wk->mu);
		win->rd.lock = NULL;
		snprintf(errbuf, errlen, "cannot start the sampling thread: %s", strerror(err));
		return -err;
	}
	win->worker = 1;
	return 0;
}

/*
 * Sleep until next (monotonic ns), drawing the progress line. 1 when a stop
 * request ends the window early (res says why), 0 at next.
 */
static int window__wait(const struct window_opts *o, struct window_result *res, int64_t next,
			int64_t end, size_t ncol, uint64_t nproc, uint64_t bytes)
{
	for (;;) {
		int64_t now = clock__ns(CLOCK_MONOTONIC);
		struct timespec ts;

		if (o->stop && *o->stop) {
			res->partial = 1;
			snprintf(res->stop_reason, sizeof(res->stop_reason),
				 *o->stop == STOP_DEADLINE ?
					 "the --timeout deadline ended it after %.1f s" :
					 "interrupted after %.1f s",
				 (double)(now - res->start_mono_ns) / 1e9);
			return 1;
		}
		if (now >= next)
			return 0;
		progress(o, (double)(end - now) / 1e9, ncol, nproc, bytes);
		/* Wake at least every 250 ms so the progress line moves and a stop is seen. */
		if (next - now > 250000000)
			now += 250000000;
		else
			now = next;
		ts.tv_sec = now / 1000000000;
		ts.tv_nsec = now % 1000000000;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
}

/*
 * The sampling rounds: at t=0, every interval, and at the end; a stop
 * request ends the window after one last round so per-process end values
 * exist. A round that hangs ends the window at once (res->abandoned).
 */
static void window__rounds(struct window *win, const struct window_opts *o,
			   struct window_result *res)
{
	double stall_s = o->stall_s > 0 ? o->stall_s : 5;
	int64_t t0, end, interval_ns = (int64_t)(o->interval_s * 1e9);
	int last = 0, rc;

	res->start_wall_ns = clock__ns(CLOCK_REALTIME);
	t0 = res->start_mono_ns = clock__ns(CLOCK_MONOTONIC);
	end = t0 + (int64_t)(o->window_s * 1e9);
	snprintf(res->stop_reason, sizeof(res->stop_reason), "complete");

	for (uint32_t seq = 0;; seq++) {
		int64_t next;
		uint64_t bytes = 0, nproc = 0;

		win->rd.seq = seq;
		rc = round_run(&win->wk, PHASE_TICK | (seq == 0 ? PHASE_FIRST : 0) |
					      (last ? PHASE_LAST : 0),
			       stall_s, o->window_s);
		if (rc) {
			int64_t now = clock__ns(CLOCK_MONOTONIC);

			/* Keep wk.mu: the worker stays blocked; its round is not counted. */
			res->abandoned = res->partial = 1;
			if (rc == -ETIMEDOUT)
				snprintf(res->stop_reason, sizeof(res->stop_reason),
					 "timed out after %.1f s: no answer in %.1f s reading %s "
					 "(the window ended there)",
					 (double)(now - t0) / 1e9, stall_s, win->rd.current);
			else
				snprintf(res->stop_reason, sizeof(res->stop_reason),
					 "timed out after %.1f s: a sampling round still not done "
					 "after %.1f s, reading %s (the window ended there)",
					 (double)(now - t0) / 1e9, o->window_s + stall_s,
					 win->rd.current);
			return;
		}
		for (size_t i = 0; i < win->nst; i++) {
			bytes += win->st[i].w.bytes;
			nproc += win->st[i].nproc;
		}
		res->samples = seq + 1;
		res->rounds_cpu_ns = win->wk.cpu_ns;
		res->max_round_cpu_ns = win->wk.max_cpu_ns;
		if (last)
			return;
		if (o->tick)
			o->tick(o->tick_arg, clock__ns(CLOCK_MONOTONIC), t0);
		next = t0 + (int64_t)(seq + 1) * interval_ns;
		if (next >= end) {
			next = end;
			last = 1;
		}
		if (window__wait(o, res, next, end, win->nst, nproc, bytes))
			last = 1;
	}
}

/* The end of the window: its clocks, the reader's counts and the run facts. */
static void window__facts(struct window *win, const struct window_opts *o,
			  struct window_result *res)
{
	res->end_wall_ns = clock__ns(CLOCK_REALTIME);
	res->end_mono_ns = clock__ns(CLOCK_MONOTONIC);
	if (o->progress)
		fputs("\r\033[K", stderr);
	res->reads = win->rd.reads;
	res->read_bytes = win->rd.read_bytes;
	res->read_errors = win->rd.read_errors;
	for (size_t i = 0; i < win->nst; i++)
		res->capture_bytes += win->st[i].w.bytes;
	if (res->abandoned) {
		/* The blocked worker owns rd: a fresh reader (and buffer) for the facts. */
		struct reader facts = { .root = o->root };

		write_run_facts(win, &facts, &win->meta, o, res);
		reader__free(&facts);
	} else {
		write_run_facts(win, &win->rd, &win->meta, o, res);
	}
}

/*
 * Stop the worker and close every stream; err is the window's error so far,
 * kept over a close error. Frees win unless a round was abandoned.
 */
static int window__close(struct window *win, const struct window_result *res, int err,
			 char *errbuf, size_t errlen)
{
	struct round_worker *wk = &win->wk;

	if (win->worker && !res->abandoned) {
		wk->quit = 1;
		pthread_cond_broadcast(&wk->cv);
		pthread_mutex_unlock(&wk->mu);
		pthread_join(wk->th, NULL);
		win->rd.lock = NULL;
	}
	/* threads of a collector's own stop first, whether or not a round was abandoned */
	for (size_t i = 0; i < win->nst; i++)
		if (win->st[i].c->stop)
			win->st[i].c->stop(&win->st[i]);
	/* what is read once after the window, its end already taken (window__facts) */
	for (size_t i = 0; i < win->nst && !res->abandoned && !err; i++)
		if (win->st[i].c->after)
			win->st[i].c->after(&win->st[i], &win->rd, &win->st[i].w);
	for (size_t i = 0; i < win->nst; i++) {
		int cerr = capture_writer__close(&win->st[i].w);

		if (cerr && !err) {
			err = cerr;
			snprintf(errbuf, errlen, "writing raw/%s.cap: %s", win->st[i].c->name,
				 strerror(-cerr));
		}
		/* An abandoned round may still point into the collector's state. */
		if (win->st[i].c->fini && !res->abandoned)
			win->st[i].c->fini(&win->st[i]);
	}
	if (win->meta_open) {
		int merr = capture_writer__close(&win->meta);

		if (merr && !err) {
			err = merr;
			snprintf(errbuf, errlen, "writing raw/sonde.cap: %s", strerror(-merr));
		}
	}
	if (!res->abandoned) {
		reader__free(&win->rd); /* else the blocked read may still write into its buffer */
		if (win->worker) {
			pthread_cond_destroy(&wk->cv);
			pthread_mutex_destroy(&wk->mu);
		}
		free(win);
	}
	return err;
}

int window__observe(const struct window_opts *o, struct window_result *res, char *errbuf,
		    size_t errlen)
{
	struct window *win = calloc(1, sizeof(*win));
	int err;

	memset(res, 0, sizeof(*res));
	if (!win) {
		snprintf(errbuf, errlen, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	win->rd.root = o->root;
	err = window__open(win, o, errbuf, errlen);
	if (!err)
		err = window__start_worker(win, errbuf, errlen);
	if (!err) {
		window__rounds(win, o, res);
		window__facts(win, o, res);
	}
	return window__close(win, res, err, errbuf, errlen);
}
