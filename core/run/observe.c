// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The observation window: what a signal and the --timeout deadline do before,
 * during and after it, sonde's lowered priority, the BPF tools and perf
 * counters started just before it and read just after, within the budget
 * the overhead guard keeps (guard.c), and --redact applied to what it
 * captured.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "bundle/bundle.h"
#include "bundle/redact.h"
#include "perf/counters.h"
#include "run/run.h"
#include "trace/trace.h"
#include "util/clock.h"

_Static_assert(RUN_MAX_SUSPECTS == TRACE_MAX_TGIDS, "a drill-down's suspects fit the filter");

static volatile sig_atomic_t stop_requested;

/* A second signal, or any after the window: leave at once, without a half-written bundle. */
static void on_abort_signal(int sig)
{
	bundle__abort_cleanup();
	_exit(128 + sig);
}

static void set_signal_handler(void (*fn)(int))
{
	struct sigaction sa = { 0 };

	sa.sa_handler = fn;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/*
 * sonde runs on hosts that are already in trouble: by default it yields the
 * CPU (nice 10) and the disk (the lowest level of the best-effort I/O class:
 * its reads of /proc cost no disk I/O, but writing the bundle does). Not the
 * idle class: on a saturated disk an idle-class request waits behind every
 * other (mq-deadline ages it for 10 s, BFQ longer), and what sonde reads from
 * the disk is on its critical path: its own code where reclaim took it, the
 * directories it writes its captures in, dpkg's lists. Measured here with a
 * thrashing cgroup holding vda's queue at 45 requests: in the idle class a
 * sampling round waited 10 s on one page fault of sonde's code and the
 * window ended with one round. Failures are ignored: a container may forbid
 * ioprio_set, and that only means sonde keeps its priority.
 */
#define SONDE_NICE 10
#define IOPRIO_CLASS_BE 2
#define IOPRIO_BE_LOWEST 7
#define IOPRIO_CLASS_SHIFT 13
#define IOPRIO_WHO_PROCESS 1

/*
 * What lower_priority() changed, so a stop can give it back. Linux keeps the
 * nice value and the I/O class per thread: the main thread's, which the
 * threads it creates later (the checks') inherit.
 */
static volatile sig_atomic_t lowered;
static pid_t main_tid;
static int saved_nice, saved_ioprio;

static void lower_priority(void)
{
	main_tid = (pid_t)syscall(SYS_gettid);
	errno = 0;
	saved_nice = getpriority(PRIO_PROCESS, (id_t)main_tid);
	if (saved_nice == -1 && errno)
		return;
	saved_ioprio = (int)syscall(SYS_ioprio_get, IOPRIO_WHO_PROCESS, main_tid);
	errno = 0;
	if (nice(SONDE_NICE) == -1 && errno)
		return;
	lowered = 1;
	syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0,
		(IOPRIO_CLASS_BE << IOPRIO_CLASS_SHIFT) | IOPRIO_BE_LOWEST);
}

/*
 * A stop signal: the user is now waiting for the report, and what is left (the
 * rest of the set-up, the checks, the bundle) is short. At nice 10 on a host
 * whose CPUs are saturated it would get a few percent of a CPU and take tens
 * of seconds. Only raw system calls, so it is safe in a signal handler (on
 * whichever thread it runs: the main thread is named by its id); raising the
 * priority back needs CAP_SYS_NICE, and without it sonde stays at nice 10.
 */
static void restore_priority(void)
{
	int e = errno;

	if (lowered) {
		lowered = 0;
		syscall(SYS_setpriority, PRIO_PROCESS, main_tid, saved_nice);
		if (saved_ioprio >= 0)
			syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, main_tid, saved_ioprio);
	}
	errno = e;
}

/* First Ctrl-C/TERM during the window: end it early; the next one aborts. */
static void on_stop_signal(int sig)
{
	(void)sig;
	stop_requested = STOP_SIGNAL;
	restore_priority();
	set_signal_handler(on_abort_signal);
}

void run_observe__stop_ends_window(void)
{
	stop_requested = 0;
	set_signal_handler(on_stop_signal);
}

int run_observe__stopped(void)
{
	return stop_requested;
}

void run_observe__stop_aborts(void)
{
	set_signal_handler(on_abort_signal);
}

/*
 * --timeout: the run's deadline, kept by SIGALRM from outside the work it
 * bounds. In the window it ends the window (the checks run on what was
 * captured); later, the run stops at once and keeps its captures, named in the
 * message, so nothing gathered is lost.
 */
static volatile sig_atomic_t in_window;
static char deadline_msg[4400];
static size_t deadline_msg_len;

static volatile sig_atomic_t deadline_code = EXIT_RUN_FAILED, bundle_done;

static void on_deadline(int sig)
{
	ssize_t w;

	if (in_window) {
		stop_requested = STOP_DEADLINE;
		return;
	}
	if (!bundle_done)
		bundle__abort_cleanup();
	w = write(STDERR_FILENO, deadline_msg, deadline_msg_len);
	(void)w;
	_exit(deadline_code);
}

void run_observe__bundle_done(const struct run_opts *o, const char *stage, const char *bundle,
			      int code)
{
	sigset_t alrm, old;
	int n;

	/* the handler reads the message: not while it is rewritten */
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	sigprocmask(SIG_BLOCK, &alrm, &old);
	n = snprintf(deadline_msg, sizeof(deadline_msg),
		     "sonde: the --timeout deadline (%g s) passed while removing the captures' "
		     "stage %s (a slow disk): the bundle is written (%s); a later run removes "
		     "what is left of the stage\n",
		     o->timeout_s, stage, bundle && *bundle ? bundle : "no bundle asked for");
	deadline_msg_len = n < 0 ? 0 : (size_t)n >= sizeof(deadline_msg) ? sizeof(deadline_msg) - 1 : (size_t)n;
	deadline_code = code;
	bundle_done = 1;
	sigprocmask(SIG_SETMASK, &old, NULL);
}

void run_observe__arm(const struct run_opts *o, const char *stage)
{
	struct sigaction sa = { 0 };
	struct itimerval it = { 0 };
	double left;

	set_signal_handler(on_stop_signal);
	if (!o->normal_priority)
		lower_priority();
	deadline_msg_len = (size_t)snprintf(deadline_msg, sizeof(deadline_msg),
					    "sonde: the --timeout deadline (%g s) passed after the window; "
					    "the captures are kept in %s\n",
					    o->timeout_s, stage);
	if (deadline_msg_len >= sizeof(deadline_msg))
		deadline_msg_len = sizeof(deadline_msg) - 1;
	sa.sa_handler = on_deadline;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	/* What is left of --timeout: it counts from the start, loading the checks included. */
	left = o->timeout_s - (double)(clock__ns(CLOCK_MONOTONIC) - o->start_ns) / 1e9;
	if (left < 0.001)
		left = 0.001;
	it.it_value.tv_sec = (time_t)left;
	it.it_value.tv_usec = (suseconds_t)((left - (double)(time_t)left) * 1e6);
	in_window = 1;
	setitimer(ITIMER_REAL, &it, NULL);
}

/* Static: a few KiB of outcomes, and the abort path must not need the stack. */
static struct trace_set tracing;
static struct perf_counters counters;

/*
 * The processes of the window from the BPF task iterator, one pass a round,
 * where BPF is allowed (not --no-bpf, not a replayed --root) and the kernel
 * has iter/task; else from /proc, and why is kept for the run facts.
 */
static struct trace_tasks *tasks_open(const struct run_opts *o, const char *const *names,
				      struct task_source *src, char *why, size_t whylen)
{
	struct trace_tasks *t = NULL;
	int wanted = 0;

	for (const char *const *n = names; n && *n; n++)
		wanted |= !strcmp(*n, "proc.pids");
	if (!wanted)
		return NULL;
	if (o->no_bpf)
		snprintf(why, whylen, "BPF disabled (--no-bpf)");
	else if (o->root && o->root[0])
		snprintf(why, whylen, "--root replays a tree, not this kernel's tasks");
	else if (!trace_tasks__open(&t, why, whylen))
		trace_tasks__source(t, src);
	return t;
}

/*
 * The event counters at the last window's start and end, for the next one's
 * cost model (trace_opts.prior): every counter but the syscalls, a few
 * hundred microseconds a reading. last_events_ok: both were read.
 */
static struct host_events last_events[2];
static int last_events_ok;
#define PRIOR_EVENTS (((1u << HEV_NR) - 1) & ~HEV_BIT(HEV_SYSCALL))

int run_observe__window(const struct run_opts *o, const char *const *names, const char *raw,
			double window_s, double interval_s, int progress,
			const struct run_suspects *sus, struct window_result *wr,
			struct run_cost *cost, char *err, size_t errlen)
{
	struct window_opts wo = { 0 };
	struct trace_opts to = {
		.self_pid = getpid(), .window_s = window_s, .root = o->root ? o->root : "",
		.budget_pct = o->max_overhead_pct,
	};
	struct task_source src = { 0 };
	struct trace_tasks *tasks;
	char tasks_why[256] = "";
	struct host_events ev[2];
	int rc, ev_ok;

	if (last_events_ok) {
		to.prior[0] = &last_events[0];
		to.prior[1] = &last_events[1];
	}
	if (sus) {
		to.ntgids = sus->n < TRACE_MAX_TGIDS ? sus->n : TRACE_MAX_TGIDS;
		memcpy(to.tgids, sus->pids, to.ntgids * sizeof(to.tgids[0]));
		to.filtered = (const char *const *)sus->tools.v;
	}
	wo.root = o->root ? o->root : "";
	wo.raw_dir = raw;
	wo.window_s = window_s;
	wo.interval_s = interval_s;
	wo.names = names;
	wo.progress = progress;
	wo.stop = &stop_requested;
	wo.stall_s = interval_s * 2 > 5 ? interval_s * 2 : 5;
	wo.facts = run_guard__facts;
	in_window = 1;
	if (progress && trace_set__wanted(names))
		fprintf(stderr, "  loading BPF tools...\r");
	memset(wr, 0, sizeof(*wr));
	tasks = tasks_open(o, names, &src, tasks_why, sizeof(tasks_why));
	wo.tasks = tasks ? &src : NULL;
	wo.tasks_why = tasks_why;
	/* sonde's own share is the budget's first: reserved before the tools are admitted */
	run_guard__reserve(names, window_s, interval_s, o->no_bpf ? 0 : o->max_overhead_pct, tasks,
			   &to);
	rc = trace_set__start(&tracing, names, raw, &to,
			      o->no_bpf ? "BPF tools disabled (--no-bpf)" : NULL, err, errlen);
	if (rc < 0)
		goto out;
	rc = perf_counters__start(&counters, names, raw,
				  o->no_perf ? "perf counters disabled (--no-perf)" : NULL, err,
				  errlen);
	if (rc < 0)
		goto out;
	run_cost__mark(cost, "setup");
	run_guard__start(&tracing, o->max_overhead_pct, window_s, o->max_overhead_pct > 0);
	ev_ok = !o->no_bpf && !host_events__read(to.root, PRIOR_EVENTS, NULL, 0, &ev[0]);
	rc = window__observe(&wo, wr, err, errlen);
	ev_ok = ev_ok && !rc && !host_events__read(to.root, PRIOR_EVENTS, NULL, 0, &ev[1]);
	wr->self_cpu_s = run_guard__stop(wr);
	last_events_ok = ev_ok;
	if (ev_ok)
		memcpy(last_events, ev, sizeof(ev));
	run_cost__mark(cost, "window");
	in_window = 0;
	if (wr->abandoned)
		fprintf(stderr, "\rsonde: %s\n", wr->stop_reason);
	if (!rc)
		rc = perf_counters__finish(&counters, wr->start_mono_ns, wr->end_mono_ns, err,
					   errlen);
	if (!rc)
		rc = trace_set__finish(&tracing, wr->start_mono_ns, wr->end_mono_ns, err, errlen);
	if (!rc)
		run_cost__mark(cost, "collect");
out:
	run_guard__stop(NULL);
	in_window = 0;
	perf_counters__destroy(&counters);
	trace_set__destroy(&tracing);
	/* an abandoned round may still be in the source: it stays, as the window's state does */
	if (!wr->abandoned)
		trace_tasks__close(tasks);
	return rc;
}

/*
 * --redact: the captures are redacted before anything reads them, so the
 * checks, the reports and the summary see only pseudonyms, and a command
 * line cut to fit a table cell is cut after redaction, never in the middle
 * of a name or an address (which no rule could then recognise).
 */
struct redactor *run_observe__redact(struct run_opts *o, const char *stage)
{
	struct redactor *red;
	char *cmd = NULL, err[1024] = "";

	red = redact__dir(stage, o->command_line, &cmd, err, sizeof(err));
	if (!red) {
		fprintf(stderr, "sonde: redacting the captures: %s (kept in %s)\n", err, stage);
		return NULL;
	}
	free(o->command_line);
	o->command_line = cmd;
	return red;
}
