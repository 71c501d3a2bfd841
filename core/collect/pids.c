// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * proc.pids: every process. Its stat every round (an idle one every
 * IDLE_EVERY rounds), and at first sight and at the end the files that cost
 * more: schedstat, status, io, cmdline, the fd table and, for a process with
 * many fds, its limits. Or, where a task source serves (the BPF task
 * iterator, window_opts.tasks), all of that but the command line in one
 * pass and one record per process, sonde:task/PID.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/collectors.h"
#include "util/parse.h"

int pids__probe(const char *root, char *why, size_t whylen)
{
	return collector__probe_path(root, "/proc/self/stat", "no per-process statistics", why,
				     whylen);
}

static int seen__test_and_set(struct collector_state *cs, int pid)
{
	size_t byte = (size_t)pid / 8;
	int was;

	if (byte >= cs->seen_bytes) {
		size_t nb = byte * 2 + 64;
		uint8_t *n = realloc(cs->seen, nb);

		if (!n)
			return 1; /* no memory: behave as "seen" (skip first-sight extras) */
		memset(n + cs->seen_bytes, 0, nb - cs->seen_bytes);
		cs->seen = n;
		cs->seen_bytes = nb;
	}
	was = cs->seen[byte] & (1u << (pid % 8));
	cs->seen[byte] |= (uint8_t)(1u << (pid % 8));
	return was != 0;
}

/* The idle counter of pid (created at 0); NULL when the table cannot grow. */
/* The idle table moved to ncap slots (a power of two); -1 when out of memory. */
static int idle__resize(struct collector_state *cs, size_t ncap)
{
	struct idle_slot *n = calloc(ncap, sizeof(*n));
	size_t i;

	if (!n)
		return -1;
	for (size_t k = 0; k < cs->idle_cap; k++) {
		if (!cs->idle[k].pid)
			continue;
		for (i = ((uint32_t)cs->idle[k].pid * 2654435761u) & (ncap - 1); n[i].pid;
		     i = (i + 1) & (ncap - 1))
			;
		n[i] = cs->idle[k];
	}
	free(cs->idle);
	cs->idle = n;
	cs->idle_cap = ncap;
	return 0;
}

/*
 * Room for n processes in the tables kept per process, in one step instead
 * of a doubling at a time (each moves every entry into fresh memory): the
 * first round of a task source, which says how many there are.
 */
static void pids__reserve(struct collector_state *cs, size_t n)
{
	size_t ncap = cs->idle_cap ? cs->idle_cap : 2048;

	while ((n + 1) * 2 > ncap)
		ncap *= 2;
	if (ncap != cs->idle_cap)
		idle__resize(cs, ncap); /* else it grows as it goes */
	holders__reserve(cs, n);
}

static struct idle_slot *idle__slot(struct collector_state *cs, int pid)
{
	size_t i;

	if ((cs->idle_n + 1) * 2 > cs->idle_cap &&
	    idle__resize(cs, cs->idle_cap ? cs->idle_cap * 2 : 2048))
		return NULL;
	for (i = ((uint32_t)pid * 2654435761u) & (cs->idle_cap - 1); cs->idle[i].pid;
	     i = (i + 1) & (cs->idle_cap - 1))
		if (cs->idle[i].pid == pid)
			return &cs->idle[i];
	cs->idle[i].pid = pid;
	cs->idle[i].same = 0;
	cs->idle_n++;
	return &cs->idle[i];
}

/* The fd table as a listing of fd numbers: the count is what checks use. Returns the count. */
static long tee_fd_listing(struct collector_state *cs, struct reader *rd, struct capture_writer *w,
			   int pid)
{
	long count = 0;
	char dir[64], full[4200];
	struct dirent *de;
	struct strbuf s = { 0 };
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", pid);
	snprintf(full, sizeof(full), "%s%s", cs->root, dir);
	d = opendir(full);
	if (!d) {
		capture_writer__error(w, rd->seq, clock__ns(CLOCK_REALTIME),
				      clock__ns(CLOCK_MONOTONIC), dir, errno);
		return -1;
	}
	while ((de = readdir(d))) {
		size_t nl = strlen(de->d_name);

		if (de->d_name[0] == '.')
			continue;
		/* bounded; a table this large is still "huge" in the count */
		if (s.len + nl + 1 > READ_CAP)
			break;
		strbuf__printf(&s, "%s\n", de->d_name);
		if (s.oom)
			break;
		count++;
	}
	closedir(d);
	reader__tee_text(rd, w, dir, s.buf ? s.buf : "", s.len);
	strbuf__free(&s);
	return count;
}

/* Below this many open fds a process is far from any RLIMIT_NOFILE worth the name. */
#define LIMITS_MIN_FDS 16
/* An idle process's stat is read in one round of this many. */
#define IDLE_EVERY 5

/* The command line, at first sight: 4 KiB at most, never longer. */
static void tee_cmdline(struct reader *rd, struct capture_writer *w, int pid)
{
	char path[64];
	const char *data;
	size_t len;
	int trunc;
	int64_t wall = clock__ns(CLOCK_REALTIME), mono = clock__ns(CLOCK_MONOTONIC);

	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	if (!reader__read_one(rd, path, CMDLINE_CAP, &data, &len, &trunc))
		capture_writer__record_once(w, rd->seq, wall, mono, path, data, len, trunc);
}

/* ---- from a task source ---- */

struct source_round {
	struct collector_state *cs;
	struct reader *rd;
	struct capture_writer *w;
	int phase;
	int cmdlines; /* the source's command lines pass is there to read from */
	/*
	 * When the pass was read: the time of every record written from it. The
	 * pass is one sample of every process; a time a record (taken as each
	 * was written, microseconds apart) made every line of a round differ and
	 * halved what xz could match: at 10,000 processes, 0.09 s and 460 KB to
	 * compress the capture with them, 0.05 s and 160 KB with one a pass.
	 */
	int64_t wall, mono;
};

static void put_u64_or(struct strbuf *b, uint64_t v, const char *none)
{
	if (v == UINT64_MAX)
		strbuf__printf(b, " %s", none);
	else
		strbuf__printf(b, " %" PRIu64, v);
}

/* pid's command line at first sight: from the source's pass where it has it, else /proc. */
static void source_cmdline(struct source_round *sr, int pid)
{
	const struct task_source *src = sr->cs->tasks;
	const char *data;
	size_t len;
	int cut;

	if (sr->cmdlines && !src->cmdline(src->arg, pid, &data, &len, &cut)) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
		capture_writer__record_once(sr->w, sr->rd->seq, sr->wall, sr->mono, path, data, len,
					    cut);
		sr->cs->cmdlines_src++;
		return;
	}
	tee_cmdline(sr->rd, sr->w, pid);
}

/* One process as one line: the layout parse_task_record reads (util/parse.h, capture-format.md). */
static void task_record(struct strbuf *b, const struct task_sample *t)
{
	b->len = 0;
	strbuf__printf(b, "%d (%s) %c %d %d %" PRIu64 " %" PRIu64 " %d", t->pid, t->comm,
		       t->state ? t->state : '?', t->ppid, t->kernel_thread ? 1 : 0, t->threads,
		       t->rss_pages, t->processor);
	strbuf__printf(b, " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64,
		       t->utime, t->stime, t->minflt, t->majflt, t->blkio_ticks, t->starttime);
	put_u64_or(b, t->uid < 0 ? UINT64_MAX : (uint64_t)t->uid, "-");
	strbuf__printf(b, " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64, t->vol_ctxt,
		       t->nonvol_ctxt, t->run_ns, t->wait_ns, t->slices);
	put_u64_or(b, t->fds < 0 ? UINT64_MAX : (uint64_t)t->fds, "-");
	put_u64_or(b, t->nofile_soft, "unlimited");
	put_u64_or(b, t->nofile_hard, "unlimited");
	if (t->has_io)
		strbuf__printf(b, " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
			       " %" PRIu64, t->rchar, t->wchar, t->syscr, t->syscw,
			       t->read_bytes, t->write_bytes);
	else
		strbuf__puts(b, " - - - - - -");
	put_u64_or(b, t->anon_pages, "-");
	put_u64_or(b, t->swap_pages, "-");
	strbuf__puts(b, "\n");
}

/*
 * One process of the source's pass. Its record is written at first sight,
 * when it changed since the last one, every IDLE_EVERY rounds and in the last
 * round (so that whoever is alive at the end says so, and one that exits is
 * last seen at most IDLE_EVERY rounds before); an unchanged one as a repeat,
 * without composing it again.
 */
static int source_visit(void *ctx, const struct task_sample *t)
{
	struct source_round *sr = ctx;
	struct collector_state *cs = sr->cs;
	struct reader *rd = sr->rd;
	int first, same, pid = t->pid;
	struct idle_slot *idle;
	int64_t wall = sr->wall, mono = sr->mono;
	char path[64];

	if (pid <= 0)
		return 0;
	cs->nproc++;
	first = !seen__test_and_set(cs, pid);
	idle = idle__slot(cs, pid);
	if (idle)
		idle->pass = rd->seq + 1;
	same = !first && idle && idle->last && !memcmp(idle->last, t, sizeof(*t));
	/* the trends' levels and suspects come from the sample itself: no /proc read */
	holders__task(cs, t, first, sr->phase & PHASE_LAST);
	if (same && !(sr->phase & PHASE_LAST) && rd->seq % IDLE_EVERY)
		return 0;
	snprintf(path, sizeof(path), "sonde:task/%d", pid);
	if (!same || capture_writer__repeat_last(sr->w, rd->seq, wall, mono, path)) {
		task_record(&cs->line, t);
		if (cs->line.oom)
			return -ENOMEM;
		capture_writer__record(sr->w, rd->seq, wall, mono, path, cs->line.buf,
				       cs->line.len, 0);
		if (idle && (idle->last || (idle->last = malloc(sizeof(*t)))))
			*idle->last = *t;
	}
	/* kernel threads have no command line (and no address space to read one from) */
	if (first && !t->kernel_thread)
		source_cmdline(sr, pid);
	/* a file table too large for the source to count: its listing, as the /proc walk does */
	if ((sr->phase & PHASE_LAST) && t->fds < 0 && !t->kernel_thread)
		tee_fd_listing(cs, rd, sr->w, pid);
	return 0;
}

/* A round from the task source; -errno (the caller walks /proc instead) with cs->tasks_why. */
static int pids__sample_source(struct collector_state *cs, struct reader *rd,
			       struct capture_writer *w, int phase)
{
	const struct task_source *src = cs->tasks;
	struct source_round sr = { .cs = cs, .rd = rd, .w = w, .phase = phase };
	char why[200] = "";
	int err;

	cs->nproc = 0;
	/* like a file read, outside the watchdog's lock (collect.h, struct reader) */
	if (rd->lock) {
		snprintf(rd->current, sizeof(rd->current), "%s", src->name);
		pthread_mutex_unlock(rd->lock);
	}
	err = src->read(src->arg, rd->seq, why, sizeof(why));
	sr.wall = clock__ns(CLOCK_REALTIME);
	sr.mono = clock__ns(CLOCK_MONOTONIC);
	/* the first round sees every process for the first time: their command lines in one pass */
	if (!err && (phase & PHASE_FIRST)) {
		char cwhy[200] = "";

		pids__reserve(cs, src->count(src->arg));
		if (!src->cmdlines_read)
			snprintf(cs->cmdlines_why, sizeof(cs->cmdlines_why), "%s",
				 src->cmdlines_why && src->cmdlines_why[0] ? src->cmdlines_why
									   : "the source has none");
		else if (src->cmdlines_read(src->arg, cwhy, sizeof(cwhy)))
			snprintf(cs->cmdlines_why, sizeof(cs->cmdlines_why), "%s", cwhy);
		else
			sr.cmdlines = 1;
	}
	if (rd->lock)
		pthread_mutex_lock(rd->lock);
	if (!err)
		err = src->each(src->arg, source_visit, &sr);
	if (sr.cmdlines)
		src->cmdlines_drop(src->arg);
	/* the last samples of processes the pass no longer has: they exited (or are missed) */
	for (size_t i = 0; !err && i < cs->idle_cap; i++)
		if (cs->idle[i].last && cs->idle[i].pass != rd->seq + 1) {
			free(cs->idle[i].last);
			cs->idle[i].last = NULL;
		}
	if (err)
		snprintf(cs->tasks_why, sizeof(cs->tasks_why), "%s failed in round %u: %s",
			 cs->tasks->name, rd->seq, why[0] ? why : strerror(-err));
	return err;
}

/* One process from its /proc files: 1 when read, 0 when it is gone. */
static int pids__proc_one(struct collector_state *cs, struct reader *rd, struct capture_writer *w,
			  int phase, int pid)
{
	int first = !seen__test_and_set(cs, pid);
	struct idle_slot *idle = first ? NULL : idle__slot(cs, pid);
	const char *data;
	char path[64];
	size_t len;
	int rc;

	/*
	 * A process whose stat came back unchanged twice in a row is idle: its
	 * cumulative counters are exact at the next read whenever that is, so it
	 * is read every IDLE_EVERY rounds (and in the first and last rounds).
	 * With 1,000 sleeping processes this is two thirds of all reads.
	 */
	if (idle && idle->same >= 2 && !(phase & (PHASE_FIRST | PHASE_LAST)) &&
	    rd->seq % IDLE_EVERY)
		return 1;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	/* Gone between readdir and open: it exited, nothing to keep. */
	rc = reader__tee_one(rd, w, path, &data, &len);
	if (rc == -ENOENT)
		return 0;
	if (!rc)
		holders__stat(cs, pid, data, len, first, phase & PHASE_LAST);
	/* it ran (its stat changed): proc.threads reads its threads this round */
	if (!rc && !w->last_repeat && cs->nactive < sizeof(cs->active) / sizeof(cs->active[0]))
		cs->active[cs->nactive++] = pid;
	holders__fds(cs, rd, pid, first, phase & PHASE_LAST, !rc && !w->last_repeat);
	if (!idle)
		idle = idle__slot(cs, pid);
	if (idle)
		idle->same = w->last_repeat ? (idle->same < 255 ? idle->same + 1 : 255) : 0;
	if (first || (phase & PHASE_LAST)) {
		int sched_err;

		/* 30 bytes: CPU time, run-queue wait and times scheduled, at both ends. */
		snprintf(path, sizeof(path), "/proc/%d/schedstat", pid);
		sched_err = reader__tee_one(rd, w, path, NULL, NULL);
		/*
		 * status (uid, threads, RSS, switch counts) is the costliest file
		 * per process: at the end for all, at first sight only for a
		 * process born in the window (its only one if it dies) or where
		 * schedstat is missing and status must give the switch baseline.
		 */
		if ((phase & PHASE_LAST) || rd->seq > 0 || sched_err) {
			snprintf(path, sizeof(path), "/proc/%d/status", pid);
			reader__tee_one(rd, w, path, NULL, NULL);
		}
		snprintf(path, sizeof(path), "/proc/%d/io", pid);
		if (!reader__tee_one(rd, w, path, &data, &len))
			holders__io(cs, pid, data, len, first, phase & PHASE_LAST);
	}
	if (first)
		tee_cmdline(rd, w, pid);
	if (phase & PHASE_LAST) {
		long nfds = tee_fd_listing(cs, rd, w, pid);

		/*
		 * RLIMIT_NOFILE matters only to a process that holds enough fds to
		 * approach it; reading limits for every process was 15% of the
		 * capture with 1,000 processes.
		 */
		if (nfds < 0 || nfds >= LIMITS_MIN_FDS) {
			snprintf(path, sizeof(path), "/proc/%d/limits", pid);
			reader__tee_one(rd, w, path, NULL, NULL);
		}
	}
	return 1;
}

/*
 * The /proc walk: every process /proc lists, or (sourced) those the task
 * source did not give this round, which are kept (cs->missed) and read from
 * /proc in the rounds between. A source can miss some: the BPF task
 * iterator never shows pid 1 on some hosts (a sandbox's init), and a
 * process born between the pass and the walk is not in the pass. Listing
 * /proc makes the kernel look up every entry: done in the first and last
 * rounds only when a source serves.
 */
static int pids__walk(struct collector_state *cs, struct reader *rd, struct capture_writer *w,
		      int phase, int sourced)
{
	char full[4096];
	struct dirent *de;
	uint64_t missed = 0;
	DIR *d;

	snprintf(full, sizeof(full), "%s/proc", cs->root);
	d = opendir(full);
	if (!d)
		return -errno;
	if (!sourced)
		cs->nproc = 0;
	else
		cs->nmissed = 0;
	while ((de = readdir(d))) {
		int pid = parse_pid_name(de->d_name, strlen(de->d_name));

		if (pid <= 0)
			continue;
		if (sourced) {
			struct idle_slot *idle = idle__slot(cs, pid);

			if (idle && idle->pass == rd->seq + 1)
				continue;
			missed++;
			if (cs->nmissed < sizeof(cs->missed) / sizeof(cs->missed[0]))
				cs->missed[cs->nmissed++] = pid;
		}
		cs->nproc += pids__proc_one(cs, rd, w, phase, pid);
	}
	closedir(d);
	if (missed > cs->tasks_missed)
		cs->tasks_missed = missed;
	return 0;
}

static int pids__sample_round(struct collector_state *cs, struct reader *rd,
			      struct capture_writer *w, int phase)
{
	cs->nactive = 0;
	if (!cs->tasks || cs->tasks_why[0] || pids__sample_source(cs, rd, w, phase))
		return pids__walk(cs, rd, w, phase, 0);
	if (phase & (PHASE_FIRST | PHASE_LAST))
		return pids__walk(cs, rd, w, phase, 1);
	/* between: the processes the source missed when /proc was last listed */
	for (size_t i = 0; i < cs->nmissed; i++) {
		struct idle_slot *idle = idle__slot(cs, cs->missed[i]);

		if (!idle || idle->pass != rd->seq + 1)
			cs->nproc += pids__proc_one(cs, rd, w, phase, cs->missed[i]);
	}
	return 0;
}

/*
 * A middle round's pass over every process (and every thread, proc.threads)
 * may cost no more than this share of one CPU over the interval: past it,
 * on a big host, the pass is skipped every other middle round and every
 * process read every second interval (the first and last rounds always).
 * Counters are cumulative: nothing is lost but per-second detail, and a
 * 10 s window keeps 6 points for the trends. 10,000 processes cost 20 to
 * 30 ms a pass here.
 */
#define ROUND_BUDGET PIDS_ROUND_BUDGET

int pids__skip_policy(int64_t last_cost_ns, double interval_s, int skipped_last, int phase)
{
	double budget_ns = ROUND_BUDGET * (interval_s > 0 ? interval_s : 1) * 1e9;

	return !(phase & (PHASE_FIRST | PHASE_LAST)) && !skipped_last &&
	       (double)last_cost_ns > budget_ns;
}

int pids__sample(struct collector_state *cs, struct reader *rd, struct capture_writer *w, int phase)
{
	int64_t c0;
	int err;

	cs->skipped = pids__skip_policy(cs->round_cpu_ns, cs->interval_s, cs->skipped_last, phase);
	cs->skipped_last = cs->skipped;
	if (cs->skipped) {
		cs->nskipped++;
		return 0; /* every process as the last round read it */
	}
	c0 = clock__ns(CLOCK_THREAD_CPUTIME_ID);
	err = pids__sample_round(cs, rd, w, phase);
	if (!err)
		holders__round(cs, rd, w, phase);
	/* the middle rounds' cost decides (the first reads command lines, the last fd tables) */
	if (!(phase & (PHASE_FIRST | PHASE_LAST)))
		cs->round_cpu_ns = clock__ns(CLOCK_THREAD_CPUTIME_ID) - c0;
	return err;
}

void pids__fini(struct collector_state *cs)
{
	holders__free(cs);
	for (size_t i = 0; i < cs->idle_cap; i++)
		free(cs->idle[i].last);
	strbuf__free(&cs->line);
	free(cs->seen);
	cs->seen = NULL;
	free(cs->idle);
	cs->idle = NULL;
}
