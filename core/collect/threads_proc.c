// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The thread states from /proc, where no task source gives threads (no BPF,
 * an old kernel, --no-bpf): /proc/PID/task/TID/{stat,schedstat,syscall},
 * and for a thread in D its stack (root) or wchan; the fd a thread blocks on
 * from its link, a socket's addresses from the process's /proc/net tables.
 *
 * A read per file per thread is 10 to 20 us: every thread of the host in
 * the first round (up to PROC_THREADS_MAX), then a round reads the threads
 * of the processes proc.pids saw run, those that had a thread in D, within
 * the same bound. The record lists the processes read ("L TGID"): the
 * others' threads are unknown in that round, not unchanged.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "collect/collectors.h"
#include "collect/threads.h"
#include "util/clock.h"
#include "util/file.h"
#include "util/parse.h"
#include "util/waits.h"

#define PROC_THREADS_MAX 2048  /* threads read a round */
#define PROC_SAMPLE_MAX 256    /* threads of one process a sampler pass reads */
#define PROC_D_MAX 64          /* processes with a thread in D, read again the next round */
#define NET_CAP (1u << 20)     /* a /proc/net table read to find one socket */

struct proc_threads {
	int listed;             /* this round was read from /proc */
	int *covered;           /* the processes read this round, sorted */
	size_t ncovered, cap;
	int dprocs[PROC_D_MAX]; /* processes that had a thread in D (read again next round) */
	size_t nd;
	int ndnext;
	int nextd[PROC_D_MAX];
};

/* root + path into buf (NUL-terminated); the length, or -errno. */
static ssize_t read_small(const char *root, const char *path, char *buf, size_t cap)
{
	char full[4200];

	snprintf(full, sizeof(full), "%s%s", root, path);
	return file__read_small(full, buf, cap);
}

/* A socket's inode in the process's own network tables: "tcp ...", "udp ...", or "sock". */
static void socket_object(const char *root, int tgid, uint64_t ino, char *out, size_t len)
{
	static const struct { const char *file; int family, proto, v6; } tables[] = {
		{ "tcp", AF_INET, 6, 0 }, { "tcp6", AF_INET6, 6, 1 },
		{ "udp", AF_INET, 17, 0 }, { "udp6", AF_INET6, 17, 1 },
	};
	char *buf = malloc(NET_CAP), path[96];

	snprintf(out, len, "sock");
	for (size_t i = 0; buf && i < sizeof(tables) / sizeof(tables[0]); i++) {
		struct net_inet_sock s;
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/%d/net/%s", tgid, tables[i].file);
		n = read_small(root, path, buf, NET_CAP);
		if (n <= 0 || parse_net_inet_find(buf, (size_t)n, ino, tables[i].v6, &s))
			continue;
		waits__inet(out, len, tables[i].family, tables[i].proto,
			    tables[i].proto == 6 ? SOCK_STREAM : SOCK_DGRAM, s.laddr, s.lport,
			    s.raddr, s.rport, s.state, s.rx_queue);
		break;
	}
	free(buf);
}

/* The file behind a thread's fd, from its link ("socket:[123]", "pipe:[4]", a path). */
static void fd_object(const char *root, int tgid, uint64_t fd, char *out, size_t len)
{
	char path[4200], link[512];
	uint64_t ino;
	struct stat st;
	ssize_t n;

	out[0] = '\0';
	if (fd > 1u << 30)
		return;
	snprintf(path, sizeof(path), "%s/proc/%d/fd/%" PRIu64, root, tgid, fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return;
	link[n] = '\0';
	if (!parse_socket_link(link, (size_t)n, &ino))
		socket_object(root, tgid, ino, out, len);
	else if (!strncmp(link, "pipe:", 5))
		snprintf(out, len, "pipe");
	else if (!strncmp(link, "anon_inode:", 11))
		snprintf(out, len, "anon %.40s", link + 11);
	else if (stat(path, &st))
		snprintf(out, len, "other");
	else if (S_ISREG(st.st_mode))
		snprintf(out, len, "file %u:%u %llu", major(st.st_dev), minor(st.st_dev),
			 (unsigned long long)st.st_ino);
	else if (S_ISDIR(st.st_mode))
		snprintf(out, len, "dir %u:%u %llu", major(st.st_dev), minor(st.st_dev),
			 (unsigned long long)st.st_ino);
	else
		snprintf(out, len, S_ISCHR(st.st_mode) ? "chr" : S_ISBLK(st.st_mode) ? "blk" : "other");
}

/* What a sleeping thread waits in: its syscall, the fd's file, in D its stack (or wchan). */
static void thread_wait(const char *root, const char *dir, int tgid, struct thread_sample *t)
{
	char path[128], buf[4096];
	struct pid_syscall sc;
	const char *name;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/syscall", dir);
	n = read_small(root, path, buf, sizeof(buf));
	if (n <= 0 || parse_pid_syscall(buf, (size_t)n, &sc)) {
		snprintf(t->syscall, sizeof(t->syscall), "?"); /* not root: ptrace rights needed */
	} else if (sc.running || sc.nr < 0) {
		snprintf(t->syscall, sizeof(t->syscall), "-");
	} else {
		name = waits__syscall_name(sc.nr);
		if (name)
			snprintf(t->syscall, sizeof(t->syscall), "%s", name);
		else
			snprintf(t->syscall, sizeof(t->syscall), "#%ld", sc.nr);
		t->has_args = sc.nargs >= 3;
		memcpy(t->args, sc.args, sizeof(t->args));
		if (name && t->has_args && waits__takes_fd(name))
			fd_object(root, tgid, t->args[0], t->object, sizeof(t->object));
	}
	if (t->state != 'D')
		return;
	snprintf(path, sizeof(path), "%s/stack", dir);
	n = read_small(root, path, buf, sizeof(buf));
	if (n > 0 && !parse_kernel_stack(buf, (size_t)n, t->kstack, sizeof(t->kstack)))
		return;
	snprintf(path, sizeof(path), "%s/wchan", dir);
	n = read_small(root, path, buf, sizeof(buf));
	if (n > 0 && strcmp(buf, "0"))
		snprintf(t->kstack, sizeof(t->kstack), "%.*s", (int)strcspn(buf, "\n"), buf);
}

/* One thread from /proc/TGID/task/TID: 0, or -errno (gone). */
static int thread_read(const char *root, int tgid, int tid, int64_t boot_to_mono,
		       struct thread_sample *t)
{
	char dir[64], path[96], buf[1024];
	struct pid_schedstat ss;
	struct pid_stat ps;
	long hz = sysconf(_SC_CLK_TCK);
	ssize_t n;

	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->tgid = tgid;
	snprintf(dir, sizeof(dir), "/proc/%d/task/%d", tgid, tid);
	snprintf(path, sizeof(path), "%s/stat", dir);
	n = read_small(root, path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	if (parse_pid_stat(buf, (size_t)n, &ps) || ps.nfields < 20)
		return -EINVAL;
	t->state = ps.state;
	/* starttime is in ticks of CLOCK_BOOTTIME; the capture's clock is CLOCK_MONOTONIC */
	if (hz > 0 && (int64_t)(ps.starttime * (1000000000 / (uint64_t)hz)) > boot_to_mono)
		t->start_ns = ps.starttime * (1000000000 / (uint64_t)hz) - (uint64_t)boot_to_mono;
	snprintf(path, sizeof(path), "%s/schedstat", dir);
	n = read_small(root, path, buf, sizeof(buf));
	if (n > 0 && !parse_pid_schedstat(buf, (size_t)n, &ss)) {
		t->run_ns = ss.run_ns;
		t->runq_ns = ss.wait_ns;
		t->nvcsw = ss.slices; /* times scheduled: /proc has no split without status */
	}
	t->words = 1; /* read whole from /proc */
	/* /proc cannot tell running from runnable: R counts as on a CPU */
	if (t->state == 'R') {
		t->flags |= THREAD_ONCPU;
		snprintf(t->syscall, sizeof(t->syscall), "-");
		return 0;
	}
	if (t->state == 'S' || t->state == 'D')
		thread_wait(root, dir, tgid, t);
	else
		snprintf(t->syscall, sizeof(t->syscall), "-");
	return 0;
}

static int64_t boot_offset;
static pthread_once_t boot_once = PTHREAD_ONCE_INIT;

static void boot_offset_init(void)
{
	boot_offset = clock__ns(CLOCK_BOOTTIME) - clock__ns(CLOCK_MONOTONIC);
}

/*
 * CLOCK_BOOTTIME - CLOCK_MONOTONIC, read once: a thread's start must read the
 * same every round (it says which thread it is), and the offset changes only
 * across a suspend.
 */
static int64_t boot_to_mono(void)
{
	pthread_once(&boot_once, boot_offset_init);
	return boot_offset;
}

/* Every thread of tgid (at most max) to visit; *nd counts those in D. Threads read, or -errno. */
static int process_threads(const char *root, int tgid, size_t max, thread_visit_fn visit,
			   void *ctx, size_t *nd)
{
	char path[4200];
	struct thread_sample t;
	struct dirent *de;
	int64_t off = boot_to_mono();
	int n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/proc/%d/task", root, tgid);
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? -ESRCH : -errno;
	while ((size_t)n < max && (de = readdir(d))) {
		int tid = parse_pid_name(de->d_name, strlen(de->d_name));

		if (tid <= 0 || thread_read(root, tgid, tid, off, &t))
			continue;
		n++;
		if (t.state == 'D' && nd)
			(*nd)++;
		if (visit(ctx, &t))
			break;
	}
	closedir(d);
	return n;
}

int threads_proc__sample(const char *root, int tgid, thread_visit_fn visit, void *ctx)
{
	int n = process_threads(root, tgid, PROC_SAMPLE_MAX, visit, ctx, NULL);

	return n < 0 ? n : n == 0 ? -ESRCH : 0;
}

static int int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int threads_proc__covered(const struct threads_state *ts, int tgid)
{
	const struct proc_threads *pt = ts->proc;

	if (!pt || !pt->listed)
		return 1;
	return bsearch(&tgid, pt->covered, pt->ncovered, sizeof(int), int_cmp) != NULL;
}

/* Read tgid's threads this round (once), within what is left of the bound. */
static void cover(struct threads_state *ts, int tgid, size_t *left, thread_visit_fn visit,
		  void *ctx, const char *root)
{
	struct proc_threads *pt = ts->proc;
	size_t nd = 0;
	int n;

	if (!*left || tgid <= 0)
		return;
	for (size_t i = 0; i < pt->ncovered; i++)
		if (pt->covered[i] == tgid)
			return;
	if (pt->ncovered == pt->cap) {
		size_t ncap = pt->cap ? pt->cap * 2 : 256;
		int *nc = realloc(pt->covered, ncap * sizeof(*nc));

		if (!nc)
			return;
		pt->covered = nc;
		pt->cap = ncap;
	}
	n = process_threads(root, tgid, *left, visit, ctx, &nd);
	if (n <= 0)
		return;
	pt->covered[pt->ncovered++] = tgid;
	*left -= (size_t)n < *left ? (size_t)n : *left;
	strbuf__printf(&ts->rec, "L\t%d\n", tgid);
	if (nd && pt->ndnext < PROC_D_MAX)
		pt->nextd[pt->ndnext++] = tgid;
}

void threads_proc__round(struct collector_state *cs, struct threads_state *ts,
			 struct reader *rd, int phase, thread_visit_fn visit, void *ctx)
{
	struct proc_threads *pt = ts->proc;
	size_t left = PROC_THREADS_MAX;

	if (!pt && !(pt = ts->proc = calloc(1, sizeof(*pt))))
		return;
	pt->listed = 0; /* until this round's set is sorted, every thread is judged */
	pt->ncovered = 0;
	pt->ndnext = 0;
	if ((phase & PHASE_FIRST) || !cs->pids) {
		char path[4200];
		struct dirent *de;
		DIR *d;

		snprintf(path, sizeof(path), "%s/proc", cs->root);
		d = opendir(path);
		while (d && left && (de = readdir(d)))
			cover(ts, parse_pid_name(de->d_name, strlen(de->d_name)), &left, visit,
			      ctx, cs->root);
		if (d)
			closedir(d);
	} else {
		for (size_t i = 0; i < cs->pids->nactive; i++)
			cover(ts, cs->pids->active[i], &left, visit, ctx, cs->root);
		for (size_t i = 0; i < pt->nd; i++)
			cover(ts, pt->dprocs[i], &left, visit, ctx, cs->root);
	}
	memcpy(pt->dprocs, pt->nextd, sizeof(pt->dprocs));
	pt->nd = (size_t)pt->ndnext;
	qsort(pt->covered, pt->ncovered, sizeof(int), int_cmp);
	pt->listed = 1;
	(void)rd;
}

void threads_proc__free(struct threads_state *ts)
{
	if (!ts->proc)
		return;
	free(ts->proc->covered);
	free(ts->proc);
	ts->proc = NULL;
}
