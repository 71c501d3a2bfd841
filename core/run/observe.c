// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The observation window: what a signal and the --timeout deadline do before,
 * during and after it, sonde's lowered priority, the BPF tools and perf
 * counters started just before it and read just after, the overhead guard
 * that watches it, and --redact applied to what it captured.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include "bundle/bundle.h"
#include "bundle/redact.h"
#include "perf/counters.h"
#include "run/run.h"
#include "trace/trace.h"
#include "util/clock.h"

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
 * CPU (nice 10) and the disk (the idle I/O class: its reads of /proc cost no
 * disk I/O, but writing the bundle does). Failures are ignored: a container
 * may forbid ioprio_set, and that only means sonde keeps its priority.
 */
#define SONDE_NICE 10
#define IOPRIO_CLASS_IDLE 3
#define IOPRIO_CLASS_SHIFT 13
#define IOPRIO_WHO_PROCESS 1

static void lower_priority(void)
{
	errno = 0;
	if (nice(SONDE_NICE) == -1 && errno)
		return;
	syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, IOPRIO_CLASS_IDLE << IOPRIO_CLASS_SHIFT);
}

/* First Ctrl-C/TERM during the window: end it early; the next one aborts. */
static void on_stop_signal(int sig)
{
	stop_requested = STOP_SIGNAL;
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

static void on_deadline(int sig)
{
	ssize_t w;

	if (in_window) {
		stop_requested = STOP_DEADLINE;
		return;
	}
	bundle__abort_cleanup();
	w = write(STDERR_FILENO, deadline_msg, deadline_msg_len);
	(void)w;
	_exit(EXIT_RUN_FAILED);
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
 * The overhead guard: after every sampling round, the CPU sonde used since the
 * last round (its own, from getrusage, plus its BPF programs') against a
 * budget, a share of the host's CPU time. Past it, the costliest tool still
 * attached is read and detached (what it gathered is kept), so the run goes on
 * cheaper; the tool's capture and the report say so. Judged over the last round,
 * not the whole window: detaching cannot undo what was spent before.
 */
struct overhead_guard {
	double budget_pct;
	int ncpu;
	int64_t last_ns, last_self_ns;
	int64_t last_cost[TRACE_MAX_TOOLS];
};

static int64_t self_cpu_ns(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (int64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000 +
	       (int64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
}

static void overhead_tick(void *arg, int64_t now, int64_t start)
{
	struct overhead_guard *g = arg;
	int64_t self = self_cpu_ns(), used, costliest_ns = -1, span;
	size_t costliest = 0;

	span = now - g->last_ns;
	if (span < 200000000) /* too short to judge */
		return;
	used = self - g->last_self_ns;
	for (size_t i = 0; i < tracing.nruns && i < TRACE_MAX_TOOLS; i++) {
		int64_t c = trace_run__cost_ns(&tracing.runs[i]), d;

		if (c < 0)
			continue;
		d = c - g->last_cost[i];
		g->last_cost[i] = c;
		used += d;
		if (d > costliest_ns) {
			costliest_ns = d;
			costliest = i;
		}
	}
	/* A tool that is not a tenth of the spend is not what to cut (sonde's own sampling is). */
	if (costliest_ns >= 0 && costliest_ns * 10 >= used &&
	    (double)used > g->budget_pct / 100 * g->ncpu * (double)span) {
		char why[512];

		snprintf(why, sizeof(why),
			 "detached %.1f s into the window by the overhead guard: sonde and its BPF "
			 "programs used %.2f%% of the host's CPU over the last %.1f s (budget "
			 "--max-overhead %g%%); this tool was the costliest (%.2f%%)",
			 (double)(now - start) / 1e9,
			 100 * (double)used / ((double)span * g->ncpu), (double)span / 1e9,
			 g->budget_pct, 100 * (double)costliest_ns / ((double)span * g->ncpu));
		trace_run__stop_early(&tracing.runs[costliest], why);
		fprintf(stderr, "\rsonde: overhead guard: %s %s\n", tracing.runs[costliest].tool->name,
			why);
	}
	g->last_ns = now;
	g->last_self_ns = self;
}

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

int run_observe__window(const struct run_opts *o, const char *const *names, const char *raw,
			double window_s, double interval_s, int progress, struct window_result *wr,
			char *err, size_t errlen)
{
	struct window_opts wo = { 0 };
	struct overhead_guard guard = { 0 };
	struct trace_opts to = { .self_pid = getpid(), .window_s = window_s };
	struct task_source src = { 0 };
	struct trace_tasks *tasks;
	char tasks_why[256] = "";
	int rc;

	wo.root = o->root ? o->root : "";
	wo.raw_dir = raw;
	wo.window_s = window_s;
	wo.interval_s = interval_s;
	wo.names = names;
	wo.progress = progress;
	wo.stop = &stop_requested;
	wo.stall_s = interval_s * 2 > 5 ? interval_s * 2 : 5;
	guard.budget_pct = o->max_overhead_pct;
	guard.ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (guard.ncpu < 1)
		guard.ncpu = 1;
	if (o->max_overhead_pct > 0) {
		wo.tick = overhead_tick;
		wo.tick_arg = &guard;
	}
	in_window = 1;
	if (progress && trace_set__wanted(names))
		fprintf(stderr, "  loading BPF tools...\r");
	memset(wr, 0, sizeof(*wr));
	tasks = tasks_open(o, names, &src, tasks_why, sizeof(tasks_why));
	wo.tasks = tasks ? &src : NULL;
	wo.tasks_why = tasks_why;
	rc = trace_set__start(&tracing, names, raw, &to,
			      o->no_bpf ? "BPF tools disabled (--no-bpf)" : NULL, err, errlen);
	if (rc < 0)
		goto out;
	rc = perf_counters__start(&counters, names, raw,
				  o->no_perf ? "perf counters disabled (--no-perf)" : NULL, err,
				  errlen);
	if (rc < 0)
		goto out;
	/* The guard's baseline: what setting the tools up cost is not the window's overhead. */
	guard.last_ns = clock__ns(CLOCK_MONOTONIC);
	guard.last_self_ns = self_cpu_ns();
	for (size_t i = 0; i < tracing.nruns && i < TRACE_MAX_TOOLS; i++)
		guard.last_cost[i] = trace_run__cost_ns(&tracing.runs[i]);
	rc = window__observe(&wo, wr, err, errlen);
	in_window = 0;
	if (wr->abandoned)
		fprintf(stderr, "\rsonde: %s\n", wr->stop_reason);
	if (!rc)
		rc = perf_counters__finish(&counters, wr->start_mono_ns, wr->end_mono_ns, err,
					   errlen);
	if (!rc)
		rc = trace_set__finish(&tracing, wr->start_mono_ns, wr->end_mono_ns, err, errlen);
out:
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
