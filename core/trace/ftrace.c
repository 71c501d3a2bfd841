// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The tracefs variant of a tool (ftrace.h): a private instance per run and
 * tool, the tool's events enabled there with their in-kernel filters, the
 * instance's trace_pipe streamed by a reader thread into the tool's own
 * aggregation. This kernel's tracefs may lack hist triggers
 * (CONFIG_HIST_TRIGGERS, no events/.../hist file): every event is then a
 * line sonde reads and parses, which is why only tools whose events are
 * rare have this variant, and why their cost counts the reader's CPU.
 *
 * Nothing here outlives sonde but the instance itself, which the kernel
 * keeps until someone removes it: it is named sonde-PID-START-TOOL (START the
 * process's start time in clock ticks, /proc/PID/stat), so the next run
 * removes any whose process is gone or is another one (a reused PID), and
 * leaves a concurrent run's alone.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/file.h"
#include "util/parse.h"
#include "trace/ftrace.h"
#include "trace/trace.h"

/* The instance's ring, per CPU: rare events, read every 100 ms (the top-level default is 1.4 MB). */
#define FTRACE_BUF_KB 256
/*
 * One event written into the instance's buffer, its filter evaluated: an
 * estimate (a classic tracepoint with a BPF program is 150-170 ns here;
 * the ring buffer write and the filter are in that range again).
 */
#define FTRACE_KERNEL_NS 400
#define FTRACE_POLL_MS 100
#define FTRACE_LINE_MAX 4096

struct ftrace_run {
	char dir[512];
	int pipe_fd;
	int wake_fd; /* an eventfd: the reader's wait ends when ftrace__stop writes it */
	pthread_t reader;
	int reader_started;
	atomic_int stop;
	const struct ftrace_tool *ft;
	void *state;
	int self;
	atomic_uint_fast64_t events, lost, unparsed;
	clockid_t cpu_clock;
	int have_clock;
	atomic_int_fast64_t reader_cpu_ns;
	char carry[FTRACE_LINE_MAX];
	size_t ncarry;
};

static const char *tracefs_root(void)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char p[64];

	for (size_t i = 0; i < sizeof(roots) / sizeof(*roots); i++) {
		snprintf(p, sizeof(p), "%s/instances", roots[i]);
		if (!access(p, F_OK))
			return roots[i];
	}
	return NULL;
}

static int write_at(const char *dir, const char *rel, const char *text)
{
	char path[1600];
	size_t n = strlen(text);
	ssize_t w;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	w = write(fd, text, n);
	if (w < 0)
		w = -errno;
	close(fd);
	return w < 0 ? (int)w : (size_t)w == n ? 0 : -EIO;
}

static int access_at(const char *dir, const char *rel)
{
	char path[1600];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	return access(path, F_OK);
}

/* A process's start time (clock ticks after boot), 0 when it is gone. */
static uint64_t start_time(int pid)
{
	char path[64], buf[1024];
	struct pid_stat st;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	n = file__read_small(path, buf, sizeof(buf));
	if (n <= 0 || parse_pid_stat(buf, (size_t)n, &st))
		return 0;
	return st.starttime;
}

/*
 * Remove the instances of runs that are gone (kill -9 leaves them: the
 * kernel keeps an instance, its events on, until it is removed). Once a process.
 */
static void sweep(const char *root)
{
	static int done;
	char dir[256], path[768];
	struct dirent *e;
	DIR *d;

	if (done)
		return;
	done = 1;
	snprintf(dir, sizeof(dir), "%s/instances", root);
	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		int pid;
		unsigned long long start;

		if (sscanf(e->d_name, "sonde-%d-%llu", &pid, &start) != 2 || pid <= 0)
			continue;
		if (start_time(pid) == start)
			continue; /* a live run's, this one's included */
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		/* rmdir disables its events and frees its buffer in one step */
		rmdir(path);
	}
	closedir(d);
}

int ftrace__possible(char *why, size_t n)
{
	if (!tracefs_root()) {
		snprintf(why, n, "tracefs is not mounted (no /sys/kernel/tracing/instances; mount -t "
				 "tracefs nodev /sys/kernel/tracing: sonde does not mount it)");
		return 0;
	}
	return 1;
}

/* One line: an event for the tool, a lost-events notice, or noise. */
static void one_line(struct ftrace_run *f, const char *ls, const char *le)
{
	struct ftrace_line l;
	uint64_t lost;

	if (ls == le)
		return;
	if (!parse_ftrace_lost(ls, le, &lost)) {
		f->lost += lost;
		return;
	}
	if (parse_ftrace_line(ls, le, &l)) {
		f->unparsed++;
		return;
	}
	f->events++;
	f->ft->line(f->state, &l, f->self);
}

/* Split what was read into lines; a partial last line waits for the next read. */
static void feed(struct ftrace_run *f, const char *buf, size_t n)
{
	const char *p = buf, *end = buf + n, *nl;

	while (p < end && (nl = memchr(p, '\n', (size_t)(end - p)))) {
		if (f->ncarry) {
			size_t k = (size_t)(nl - p);

			if (f->ncarry + k < sizeof(f->carry)) {
				memcpy(f->carry + f->ncarry, p, k);
				one_line(f, f->carry, f->carry + f->ncarry + k);
			} else {
				f->unparsed++;
			}
			f->ncarry = 0;
		} else {
			one_line(f, p, nl);
		}
		p = nl + 1;
	}
	if (p < end) {
		size_t k = (size_t)(end - p);

		if (f->ncarry + k < sizeof(f->carry)) {
			memcpy(f->carry + f->ncarry, p, k);
			f->ncarry += k;
		} else {
			f->ncarry = 0;
			f->unparsed++;
		}
	}
}

/*
 * Drain the pipe every FTRACE_POLL_MS, not at each event: polling trace_pipe
 * wakes the reader for every line, 30 us of sonde's CPU an event where a
 * drain of what 100 ms gathered costs about one. The wait ends early when
 * ftrace__stop writes the eventfd.
 */
static void *reader_main(void *arg)
{
	struct ftrace_run *f = arg;
	char buf[1 << 16];

	for (;;) {
		struct pollfd pfd = { .fd = f->wake_fd, .events = POLLIN };
		int stopping = atomic_load(&f->stop);
		ssize_t n;

		while ((n = read(f->pipe_fd, buf, sizeof(buf))) > 0)
			feed(f, buf, (size_t)n);
		if (stopping || (n < 0 && errno != EAGAIN && errno != EINTR))
			break;
		if (poll(&pfd, 1, FTRACE_POLL_MS) < 0 && errno != EINTR)
			break;
	}
	if (f->have_clock) {
		struct timespec ts;

		if (!clock_gettime(f->cpu_clock, &ts))
			f->reader_cpu_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	}
	return NULL;
}

int ftrace__start(struct trace_run *t, const struct trace_opts *o, char *why, size_t n)
{
	const struct ftrace_tool *ft = t->tool->ftrace;
	const char *root = tracefs_root();
	struct ftrace_run *f;
	char rel[768], kb[16];
	int err;

	if (!root) {
		ftrace__possible(why, n);
		return -ENOENT;
	}
	sweep(root);
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->pipe_fd = -1;
	f->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	f->ft = ft;
	f->self = o->self_pid;
	t->ft = f;
	/* one instance per tool: trace_pipe has one reader */
	snprintf(f->dir, sizeof(f->dir), "%s/instances/sonde-%d-%" PRIu64 "-%s", root, (int)getpid(),
		 start_time(getpid()), t->tool->name);
	if (mkdir(f->dir, 0700) && errno != EEXIST) {
		err = -errno;
		snprintf(why, n, "tracefs: making the instance %s: %s", f->dir, strerror(-err));
		f->dir[0] = '\0';
		goto fail;
	}
	f->state = ft->state_new();
	if (!f->state) {
		err = -ENOMEM;
		snprintf(why, n, "tracefs: out of memory");
		goto fail;
	}
	/* sonde's own clock (CLOCK_MONOTONIC), and each line's process (record-tgid) */
	snprintf(kb, sizeof(kb), "%d", FTRACE_BUF_KB);
	if ((err = write_at(f->dir, "trace_clock", "mono")) ||
	    (err = write_at(f->dir, "options/record-tgid", "1")) ||
	    (err = write_at(f->dir, "buffer_size_kb", kb))) {
		snprintf(why, n, "tracefs: setting up the instance: %s", strerror(-err));
		goto fail;
	}
	for (const struct ftrace_event_spec *e = ft->events; e->system; e++) {
		snprintf(rel, sizeof(rel), "events/%s/%s/enable", e->system, e->event);
		if (e->optional && access_at(f->dir, rel))
			continue; /* an older kernel: the tool counts what it has */
		snprintf(rel, sizeof(rel), "events/%s/%s/filter", e->system, e->event);
		if (e->filter && (err = write_at(f->dir, rel, e->filter))) {
			snprintf(why, n, "tracefs: the filter of %s:%s: %s", e->system, e->event,
				 strerror(-err));
			goto fail;
		}
		snprintf(rel, sizeof(rel), "events/%s/%s/enable", e->system, e->event);
		if ((err = write_at(f->dir, rel, "1"))) {
			snprintf(why, n, "tracefs: enabling %s:%s: %s", e->system, e->event,
				 err == -ENOENT ? "this kernel has no such event" : strerror(-err));
			goto fail;
		}
	}
	snprintf(rel, sizeof(rel), "%s/trace_pipe", f->dir);
	f->pipe_fd = open(rel, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (f->pipe_fd < 0) {
		err = -errno;
		snprintf(why, n, "tracefs: %s: %s", rel, strerror(-err));
		goto fail;
	}
	if (f->wake_fd < 0) {
		err = -errno;
		snprintf(why, n, "tracefs: eventfd: %s", strerror(-err));
		goto fail;
	}
	err = -pthread_create(&f->reader, NULL, reader_main, f);
	if (err) {
		snprintf(why, n, "tracefs: the reader thread: %s", strerror(-err));
		goto fail;
	}
	f->reader_started = 1;
	pthread_setname_np(f->reader, "sonde-tracefs");
	f->have_clock = !pthread_getcpuclockid(f->reader, &f->cpu_clock);
	return 0;
fail:
	ftrace__destroy(t);
	return err ? err : -EINVAL;
}

void ftrace__stop(struct trace_run *t)
{
	struct ftrace_run *f = t->ft;
	char rel[160];

	if (!f || !f->reader_started)
		return;
	for (const struct ftrace_event_spec *e = f->ft->events; e->system; e++) {
		snprintf(rel, sizeof(rel), "events/%s/%s/enable", e->system, e->event);
		write_at(f->dir, rel, "0");
	}
	atomic_store(&f->stop, 1);
	{
		uint64_t one = 1;

		if (write(f->wake_fd, &one, sizeof(one)) < 0) {
			/* the reader wakes on its own within FTRACE_POLL_MS */
		}
	}
	pthread_join(f->reader, NULL);
	f->reader_started = 0;
}

int ftrace__collect(struct trace_run *t, struct json *j)
{
	struct ftrace_run *f = t->ft;

	if (!f)
		return -EINVAL;
	ftrace__stop(t);
	t->c.runs = f->events;
	t->c.drops = f->lost;
	t->c.cost_ns = ftrace__cost_ns(t);
	snprintf(t->c.cost_how, sizeof(t->c.cost_how),
		 "%" PRIu64 " events x %d ns written into the tracefs instance's buffer "
		 "(estimate), and %.2f ms of sonde's reader thread, which read and parsed them "
		 "(measured%s); %" PRIu64 " lines not understood",
		 (uint64_t)f->events, FTRACE_KERNEL_NS, (double)f->reader_cpu_ns / 1e6,
		 f->have_clock ? "" : ": no clock for it, 0", (uint64_t)f->unparsed);
	return f->ft->collect(t, f->state, j);
}

int64_t ftrace__cost_ns(const struct trace_run *t)
{
	struct ftrace_run *f = t->ft;
	struct timespec ts;
	int64_t reader = f->reader_cpu_ns;

	if (f->reader_started && f->have_clock && !clock_gettime(f->cpu_clock, &ts))
		reader = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	return (int64_t)f->events * FTRACE_KERNEL_NS + reader;
}

void ftrace__destroy(struct trace_run *t)
{
	struct ftrace_run *f = t->ft;

	if (!f)
		return;
	ftrace__stop(t);
	if (f->pipe_fd >= 0)
		close(f->pipe_fd);
	if (f->wake_fd >= 0)
		close(f->wake_fd);
	/* EBUSY when someone else reads its trace_pipe (a user's cat): the next run removes it */
	if (f->dir[0])
		rmdir(f->dir);
	if (f->state && f->ft->state_free)
		f->ft->state_free(f->state);
	free(f);
	t->ft = NULL;
}
