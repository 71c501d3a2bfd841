// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What proc.pids adds for the trends of finite resources (called from
 * pids.c, kept apart so the per-process sampling can change on its own):
 *
 * - every round, the number of open fds of each process whose stat was read
 *   and changed, or that holds 16 fds or more, and of every one at both ends
 *   (stat() of /proc/PID/fd gives it in st_size since Linux 6.2: one syscall,
 *   no directory walk), as record "sonde:fds"; where a task source serves,
 *   its sonde:task records carry the count and its samples the counters
 *   below (holders__task): nothing is read per process and round;
 * - in the last round, the suspects: the processes that wrote most
 *   (write_bytes, and wchar for file systems without a block device), opened
 *   most fds and used most CPU over the window, from the counters read
 *   anyway; then only for them, their open regular files (device, inode,
 *   size, links: a file deleted but still open has none) and their working
 *   directory, as record "sonde:files". The fd tables of ten thousand
 *   processes are never walked: thirty-two at most.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "collect/collectors.h"
#include "util/parse.h"
#include "util/pidmap.h"

#define TOP_EACH 8          /* suspects per reason */
#define FDS_FOLLOWED 16     /* an idle process with fewer fds is not counted every round */
#define FDS_PER_SUSPECT 4096
#define FILES_MAX 32768     /* lines of sonde:files */
#define CWD_MAX 256         /* other active processes whose working directory is recorded */

enum { R_WRITE_BYTES, R_WCHAR, R_FDS, R_CPU, R_N };
static const char *const reason_names[R_N] = { "write_bytes", "wchar", "fds", "cpu" };

/* One process: its counters when first seen and in the last round. */
struct held {
	int pid;               /* 0: empty slot */
	uint64_t starttime;
	int have0[R_N], have1[R_N];
	uint64_t v0[R_N], v1[R_N];
	uint8_t reasons;       /* bit per reason: a suspect */
	uint64_t fds_now;      /* its last fd count */
};

struct holders {
	struct pidmap t;       /* struct held by pid */
	int fds_checked, fds_ok; /* stat(/proc/PID/fd) gives a count on this kernel */
	struct strbuf fds;     /* this round's "PID N" lines */
};

static struct holders *holders__get(struct collector_state *cs)
{
	/* `make bench` measures proc.pids without this part, as its baseline (bench/runout.sh) */
	static int off = -1;

	if (off < 0)
		off = getenv("SONDE_BENCH_NO_HOLDERS") != NULL;
	if (!cs->hold && !off && (cs->hold = calloc(1, sizeof(*cs->hold))))
		cs->hold->t = (struct pidmap)PIDMAP_INIT(sizeof(struct held));
	return cs->hold;
}

static void held__set(struct held *e, int r, uint64_t v, int first, int last)
{
	if (first && !e->have0[r]) {
		e->v0[r] = v;
		e->have0[r] = 1;
	}
	if (last) {
		e->v1[r] = v;
		e->have1[r] = 1;
	}
}

void holders__stat(struct collector_state *cs, int pid, const char *data, size_t len, int first,
		   int last)
{
	struct holders *h = holders__get(cs);
	struct pid_stat ps;
	struct held *e;

	if (!h || (!first && !last) || parse_pid_stat(data, len, &ps) || ps.nfields < 20)
		return;
	e = pidmap__get(&h->t, pid);
	if (!e)
		return;
	/* A pid reused by another process within the window starts over. */
	if (e->starttime != ps.starttime) {
		memset(e, 0, sizeof(*e));
		e->pid = pid;
		e->starttime = ps.starttime;
		first = 1;
	}
	held__set(e, R_CPU, ps.utime + ps.stime, first, last);
}

void holders__io(struct collector_state *cs, int pid, const char *data, size_t len, int first,
		 int last)
{
	struct holders *h = holders__get(cs);
	struct pid_io io;
	struct held *e;

	if (!h || parse_pid_io(data, len, &io) || !io.present || !(e = pidmap__get(&h->t, pid)))
		return;
	held__set(e, R_WRITE_BYTES, io.write_bytes, first, last);
	held__set(e, R_WCHAR, io.wchar, first, last);
}

void holders__fds(struct collector_state *cs, struct reader *rd, int pid, int first, int last,
		  int changed)
{
	struct holders *h = holders__get(cs);
	char path[4200];
	struct held *e;
	struct stat st;

	if (!h || cs->root[0])
		return; /* a made-up root has directories, not fd tables */
	if (!h->fds_checked) {
		/* Before Linux 6.2 st_size is 0: sonde itself has fds open, so 0 means "not given". */
		h->fds_checked = 1;
		h->fds_ok = stat("/proc/self/fd", &st) == 0 && st.st_size > 0;
	}
	if (!h->fds_ok || !(e = pidmap__get(&h->t, pid)))
		return;
	/*
	 * Counted at both ends and whenever the process ran; in between, an idle one
	 * only when it holds enough fds to approach a limit: with ten thousand
	 * sleeping processes of a few fds each, most rounds count none of them.
	 */
	if (!first && !last && !changed && e->have0[R_FDS] && e->fds_now < FDS_FOLLOWED)
		return;
	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	reader__blocking_begin(rd, path);
	if (stat(path, &st)) {
		reader__blocking_end(rd);
		return; /* exited, or not ours to look at */
	}
	reader__blocking_end(rd);
	record__printf(&h->fds, "%d %lld\n", pid, (long long)st.st_size);
	e->fds_now = (uint64_t)st.st_size;
	held__set(e, R_FDS, (uint64_t)st.st_size, first || !e->have0[R_FDS], last);
}

void holders__reserve(struct collector_state *cs, size_t n)
{
	struct holders *h = holders__get(cs);

	if (h)
		pidmap__reserve(&h->t, n); /* without the room, the table grows as it goes */
}

void holders__task(struct collector_state *cs, const struct task_sample *t, int first, int last)
{
	struct holders *h;
	struct held *e;

	if ((!first && !last) || !(h = holders__get(cs)) || !(e = pidmap__get(&h->t, t->pid)))
		return;
	if (e->starttime != t->starttime) {
		memset(e, 0, sizeof(*e));
		e->pid = t->pid;
		e->starttime = t->starttime;
		first = 1;
	}
	held__set(e, R_CPU, t->utime + t->stime, first, last);
	if (t->has_io) {
		held__set(e, R_WRITE_BYTES, t->write_bytes, first, last);
		held__set(e, R_WCHAR, t->wchar, first, last);
	}
	if (t->fds >= 0) {
		e->fds_now = (uint64_t)t->fds;
		held__set(e, R_FDS, (uint64_t)t->fds, first || !e->have0[R_FDS], last);
	}
}

/* mountinfo's escapes for the characters that would break a line: tab, newline, backslash. */
static void path_escaped(struct strbuf *b, const char *s)
{
	for (; *s; s++)
		if (*s == '\t' || *s == '\n' || *s == '\\' || *s == ' ')
			record__printf(b, "\\%03o", (unsigned char)*s);
		else
			record__printf(b, "%c", *s);
}

/* The growth of reason r over the window, or 0. */
static uint64_t held__growth(const struct held *e, int r)
{
	if (!e->have0[r] || !e->have1[r] || e->v1[r] < e->v0[r])
		return 0;
	return e->v1[r] - e->v0[r];
}

/* Mark the TOP_EACH processes that grew most in each reason. */
static void suspects__pick(struct holders *h)
{
	for (int r = 0; r < R_N; r++) {
		struct held *top[TOP_EACH] = { 0 };

		for (size_t i = 0; i < h->t.cap; i++) {
			struct held *e = pidmap__slot(&h->t, i);
			uint64_t g = e ? held__growth(e, r) : 0;
			int k;

			if (!g)
				continue;
			for (k = TOP_EACH; k > 0 && (!top[k - 1] || held__growth(top[k - 1], r) < g);
			     k--)
				if (k < TOP_EACH)
					top[k] = top[k - 1];
			if (k < TOP_EACH)
				top[k] = e;
		}
		for (int k = 0; k < TOP_EACH && top[k]; k++)
			top[k]->reasons |= (uint8_t)(1u << r);
	}
}

static int by_cpu_growth(const void *a, const void *b)
{
	uint64_t x = held__growth(*(struct held *const *)a, R_CPU);
	uint64_t y = held__growth(*(struct held *const *)b, R_CPU);

	return x > y ? -1 : x < y;
}

/* One process's working directory as a "cwd" line; 1 when written. */
static size_t cwd__record(const struct collector_state *cs, struct reader *rd, int pid,
			  struct strbuf *out)
{
	char dir[4200], link[4096];
	struct statx sx;
	ssize_t n;
	int ok;

	snprintf(dir, sizeof(dir), "%s/proc/%d/cwd", cs->root, pid);
	reader__blocking_begin(rd, dir);
	/* DONT_SYNC: a file on a network file system answers from its cache, never the server. */
	ok = !statx(AT_FDCWD, dir, AT_STATX_DONT_SYNC, STATX_INO, &sx) &&
	     (n = readlink(dir, link, sizeof(link) - 1)) > 0;
	reader__blocking_end(rd);
	if (!ok)
		return 0;
	link[n] = '\0';
	record__printf(out, "cwd\t%d\t%u:%u\t%llu\t", pid, sx.stx_dev_major, sx.stx_dev_minor,
		       (unsigned long long)sx.stx_ino);
	path_escaped(out, link);
	record__printf(out, "\n");
	return 1;
}

/* One suspect's working directory and regular files, a line each. Returns the lines written. */
static size_t suspect__scan(const struct collector_state *cs, struct reader *rd, int pid,
			    struct strbuf *out, size_t room)
{
	char dir[4200], link[4096];
	size_t lines = cwd__record(cs, rd, pid, out), seen = 0;
	struct dirent *de;
	struct statx sx;
	DIR *d;
	ssize_t n;

	snprintf(dir, sizeof(dir), "%s/proc/%d/fd", cs->root, pid);
	if (!(d = opendir(dir)))
		return lines;
	while ((de = readdir(d)) && lines < room && seen++ < FDS_PER_SUSPECT) {
		struct stat ls;
		char fd[4500];
		const char *mode;

		if (de->d_name[0] == '.')
			continue;
		snprintf(fd, sizeof(fd), "%s/%s", dir, de->d_name);
		/* The link's own permissions are the open mode: r, w or both. */
		if (lstat(fd, &ls) || (n = readlink(fd, link, sizeof(link) - 1)) <= 0 ||
		    link[0] != '/')
			continue; /* sockets, pipes, anonymous inodes: not files */
		link[n] = '\0';
		reader__blocking_begin(rd, fd);
		if (statx(AT_FDCWD, fd, AT_STATX_DONT_SYNC, STATX_BASIC_STATS, &sx) ||
		    !S_ISREG(sx.stx_mode)) {
			reader__blocking_end(rd);
			continue;
		}
		reader__blocking_end(rd);
		mode = (ls.st_mode & S_IRUSR) ? ((ls.st_mode & S_IWUSR) ? "rw" : "r") :
						(ls.st_mode & S_IWUSR) ? "w" : "-";
		record__printf(out, "file\t%d\t%s\t%s\t%u:%u\t%llu\t%llu\t%llu\t%u\t", pid,
			       de->d_name, mode, sx.stx_dev_major, sx.stx_dev_minor,
			       (unsigned long long)sx.stx_ino, (unsigned long long)sx.stx_size,
			       (unsigned long long)sx.stx_blocks * 512, sx.stx_nlink);
		path_escaped(out, link);
		record__printf(out, "\n");
		lines++;
	}
	closedir(d);
	return lines;
}

/* suspect PID REASONS, then its cwd and file lines, for each suspect. */
static void suspects__record(struct collector_state *cs, struct holders *h, struct reader *rd,
			     struct capture_writer *w)
{
	struct strbuf out = { 0 };
	struct held **active;
	size_t lines = 0, nactive = 0;

	suspects__pick(h);
	for (size_t i = 0; i < h->t.cap && lines < FILES_MAX; i++) {
		const struct held *e = pidmap__slot(&h->t, i);
		const char *sep = "";

		if (!e || !e->reasons)
			continue;
		record__printf(&out, "suspect\t%d\t", e->pid);
		for (int r = 0; r < R_N; r++)
			if (e->reasons & (1u << r)) {
				record__printf(&out, "%s%s", sep, reason_names[r]);
				sep = ",";
			}
		record__printf(&out, "\n");
		lines += 1 + suspect__scan(cs, rd, e->pid, &out, FILES_MAX - lines);
	}
	/*
	 * Every other process that used the CPU in the window: where it works. One
	 * that creates empty files takes inodes and writes no byte; its working
	 * directory is the only trace. The busiest CWD_MAX, a syscall or two each.
	 */
	active = calloc(h->t.n + 1, sizeof(*active));
	for (size_t i = 0; active && i < h->t.cap; i++) {
		struct held *e = pidmap__slot(&h->t, i);

		if (e && !e->reasons && held__growth(e, R_CPU))
			active[nactive++] = e;
	}
	if (active)
		qsort(active, nactive, sizeof(*active), by_cpu_growth);
	for (size_t k = 0; k < nactive && k < CWD_MAX && lines < FILES_MAX; k++)
		lines += cwd__record(cs, rd, active[k]->pid, &out);
	free(active);
	if (lines >= FILES_MAX)
		record__printf(&out, "cut\n");
	if (!out.oom)
		reader__tee_text(rd, w, "sonde:files", out.buf ? out.buf : "", out.len);
	strbuf__free(&out);
}

void holders__round(struct collector_state *cs, struct reader *rd, struct capture_writer *w,
		    int phase)
{
	struct holders *h = cs->hold;

	if (!h)
		return;
	if (h->fds_ok && !h->fds.oom)
		reader__tee_text(rd, w, "sonde:fds", h->fds.buf ? h->fds.buf : "", h->fds.len);
	strbuf__free(&h->fds);
	memset(&h->fds, 0, sizeof(h->fds));
	if (phase & PHASE_LAST)
		suspects__record(cs, h, rd, w);
}

void holders__free(struct collector_state *cs)
{
	if (!cs->hold)
		return;
	strbuf__free(&cs->hold->fds);
	pidmap__free(&cs->hold->t);
	free(cs->hold);
	cs->hold = NULL;
}
