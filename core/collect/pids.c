// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * proc.pids: every process. Its stat every round (an idle one every
 * IDLE_EVERY rounds), and at first sight and at the end the files that cost
 * more: schedstat, status, io, cmdline, the fd table and, for a process with
 * many fds, its limits.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/collectors.h"

int pids__probe(const char *root, char *why, size_t whylen)
{
	return collector__probe_path(root, "/proc/self/stat", "no per-process statistics", why,
				     whylen);
}

static int pid_of(const char *name)
{
	long v = 0;

	if (!*name)
		return -1;
	for (const char *p = name; *p; p++) {
		if (*p < '0' || *p > '9' || v > 100000000)
			return -1;
		v = v * 10 + (*p - '0');
	}
	return (int)v;
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
static struct idle_slot *idle__slot(struct collector_state *cs, int pid)
{
	size_t i;

	if ((cs->idle_n + 1) * 2 > cs->idle_cap) {
		size_t ncap = cs->idle_cap ? cs->idle_cap * 2 : 2048;
		struct idle_slot *n = calloc(ncap, sizeof(*n));

		if (!n)
			return NULL;
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
	}
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

int pids__sample(struct collector_state *cs, struct reader *rd, struct capture_writer *w, int phase)
{
	char full[4096], path[64];
	struct dirent *de;
	DIR *d;

	snprintf(full, sizeof(full), "%s/proc", cs->root);
	d = opendir(full);
	if (!d)
		return -errno;
	cs->nproc = 0;
	while ((de = readdir(d))) {
		int pid = pid_of(de->d_name), first, rc;
		struct idle_slot *idle;
		const char *data;
		size_t len;

		if (pid <= 0)
			continue;
		cs->nproc++;
		first = !seen__test_and_set(cs, pid);
		idle = first ? NULL : idle__slot(cs, pid);
		/*
		 * A process whose stat came back unchanged twice in a row is idle: its
		 * cumulative counters are exact at the next read whenever that is, so it
		 * is read every IDLE_EVERY rounds (and in the first and last rounds).
		 * With 1,000 sleeping processes this is two thirds of all reads.
		 */
		if (idle && idle->same >= 2 && !(phase & (PHASE_FIRST | PHASE_LAST)) &&
		    rd->seq % IDLE_EVERY)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		/* Gone between readdir and open: it exited, nothing to keep. */
		rc = reader__tee(rd, w, path, &data, &len);
		if (rc == -ENOENT) {
			cs->nproc--;
			continue;
		}
		if (!rc)
			holders__stat(cs, pid, data, len, first, phase & PHASE_LAST);
		holders__fds(cs, rd, pid, first, phase & PHASE_LAST, !rc && !w->last_repeat);
		if (!idle)
			idle = idle__slot(cs, pid);
		if (idle)
			idle->same = w->last_repeat ? (idle->same < 255 ? idle->same + 1 : 255) : 0;
		if (first || (phase & PHASE_LAST)) {
			int sched_err;

			/* 30 bytes: CPU time, run-queue wait and times scheduled, at both ends. */
			snprintf(path, sizeof(path), "/proc/%d/schedstat", pid);
			sched_err = reader__tee(rd, w, path, NULL, NULL);
			/*
			 * status (uid, threads, RSS, switch counts) is the costliest file
			 * per process: at the end for all, at first sight only for a
			 * process born in the window (its only one if it dies) or where
			 * schedstat is missing and status must give the switch baseline.
			 */
			if ((phase & PHASE_LAST) || rd->seq > 0 || sched_err) {
				snprintf(path, sizeof(path), "/proc/%d/status", pid);
				reader__tee(rd, w, path, NULL, NULL);
			}
			snprintf(path, sizeof(path), "/proc/%d/io", pid);
			if (!reader__tee(rd, w, path, &data, &len))
				holders__io(cs, pid, data, len, first, phase & PHASE_LAST);
		}
		if (first) {
			int trunc;
			int64_t wall = clock__ns(CLOCK_REALTIME), mono = clock__ns(CLOCK_MONOTONIC);

			snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
			if (!reader__read(rd, path, CMDLINE_CAP, &data, &len, &trunc))
				capture_writer__record(w, rd->seq, wall, mono, path, data, len,
						       trunc);
		}
		if (phase & PHASE_LAST) {
			long nfds = tee_fd_listing(cs, rd, w, pid);

			/*
			 * RLIMIT_NOFILE matters only to a process that holds enough fds to
			 * approach it; reading limits for every process was 15% of the
			 * capture with 1,000 processes.
			 */
			if (nfds < 0 || nfds >= LIMITS_MIN_FDS) {
				snprintf(path, sizeof(path), "/proc/%d/limits", pid);
				reader__tee(rd, w, path, NULL, NULL);
			}
		}
	}
	closedir(d);
	holders__round(cs, rd, w, phase);
	return 0;
}

void pids__fini(struct collector_state *cs)
{
	holders__free(cs);
	free(cs->seen);
	cs->seen = NULL;
	free(cs->idle);
	cs->idle = NULL;
}
