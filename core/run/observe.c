// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The observation window: what a signal and the --timeout deadline do before,
 * during and after it, sonde's lowered priority, the BPF tools and perf
 * counters started just before it and read just after, the overhead guard
 * that watches it, and --redact applied to what it captured.
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
#include "util/selfcpu.h"

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
 * CPU (nice 10) and the disk (the idle I/O class: its reads of /proc cost no
 * disk I/O, but writing the bundle does). Failures are ignored: a container
 * may forbid ioprio_set, and that only means sonde keeps its priority.
 */
#define SONDE_NICE 10
#define IOPRIO_CLASS_IDLE 3
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
	syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, IOPRIO_CLASS_IDLE << IOPRIO_CLASS_SHIFT);
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
 * The overhead guard, the safety net under the cost model (trace/cost.h): a
 * thread that wakes every GUARD_PERIOD_NS while the window runs. It weighs
 * sonde's own CPU (getrusage) over the last second, since its sampling comes
 * in bursts, once a round, plus each attached tool's cost over the last
 * period, against the budget, a share of the host's CPU, plus the bursts the
 * model planned (a duty-cycled tool costs more than the budget while it
 * traces, knowingly). Over it, every tool that costs more than the model
 * allowed it (its prediction with GUARD_MARGIN; nothing for events no counter
 * counts) by a tenth of the overrun at least is detached at once, most over
 * first, until the rest fits: within one period, not one tool per round. If
 * the tools are within their predictions and sonde is still over, the
 * costliest tools that are at least a tenth of the spend go too. What they gathered is kept; their captures and
 * the report say so. The same thread ends the duty cycles the model planned.
 */
#define GUARD_PERIOD_NS 100000000
#define GUARD_SELF_SPAN 10 /* periods: sonde's own CPU is judged over a second */
#define GUARD_MARGIN 1.5   /* a rate read over 0.1 s moves: a tool gets half as much again */

struct overhead_guard {
	double budget_pct;
	double self_s;             /* sonde's own CPU over the window */
	int ncpu;
	pthread_t thread;
	int running;
	volatile int stop;
	int64_t self_ns[GUARD_SELF_SPAN], at_ns[GUARD_SELF_SPAN];
	unsigned ticks;
	int64_t last_cost[TRACE_MAX_TOOLS];
	double self_pct;           /* sonde's own share over the window, for the next one */
	int64_t start_ns, start_self_ns;
};

static int64_t self_cpu_ns(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (int64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000 +
	       (int64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
}

static void guard_duty(struct trace_run *t, int64_t now, int64_t start, double window_s)
{
	char why[512];

	if (!t->stop_at_mono_ns || now < t->stop_at_mono_ns || !trace_run__attached(t))
		return;
	snprintf(why, sizeof(why),
		 "detached %.1f s into the %.1f s window, as planned: its predicted cost is more "
		 "than the budget left for it, so it traced part of the window (a duty cycle)",
		 (double)(now - start) / 1e9, window_s);
	trace_run__detach(t, why);
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

/* ns a second the model expects of a tool's runs (0 when it predicted nothing). */
static double tool_expected(const struct trace_run *t, int ncpu)
{
	const struct trace_outcome *oc = NULL;

	for (size_t i = 0; i < tracing.nout; i++)
		if (tracing.outcome[i].tool == t->tool)
			oc = &tracing.outcome[i];
	if (!oc || !oc->pred.done)
		return 0;
	return oc->pred.pct / 100 * ncpu * 1e9;
}

/* Detach the tool i of the set now, saying why; rate: what it cost (ns a second). */
static void guard_cut(struct overhead_guard *g, size_t i, double rate, double spend,
		      double self_rate, int64_t now, int64_t start)
{
	char why[512];

	snprintf(why, sizeof(why),
		 "detached %.1f s into the window by the overhead guard: sonde and its BPF "
		 "programs used %.2f%% of the host's CPU (sonde %.2f%% over the last second, "
		 "its tools over the last %.1f s; budget --max-overhead %g%%); this tool used "
		 "%.2f%%",
		 (double)(now - start) / 1e9, 100 * spend / 1e9 / g->ncpu,
		 100 * self_rate / 1e9 / g->ncpu, (double)GUARD_PERIOD_NS / 1e9, g->budget_pct,
		 100 * rate / 1e9 / g->ncpu);
	trace_run__detach(&tracing.runs[i], why);
	fprintf(stderr, "\rsonde: overhead guard: %s %s\n", tracing.runs[i].tool->name, why);
}

/* One period: the spend against the budget, and the tools to detach now. */
static void guard_tick(struct overhead_guard *g, int64_t now, int64_t start, double window_s)
{
	int64_t self = self_cpu_ns();
	double rate[TRACE_MAX_TOOLS], over[TRACE_MAX_TOOLS], capacity, self_rate, spend;
	unsigned k = g->ticks % GUARD_SELF_SPAN;
	int full = g->ticks >= GUARD_SELF_SPAN;
	size_t n = tracing.nruns < TRACE_MAX_TOOLS ? tracing.nruns : TRACE_MAX_TOOLS;

	/*
	 * sonde's own: over the last second (the ring's oldest), or since the window
	 * began but over a second at least: the first round, at the window's start,
	 * reads every process's files once, a burst the interval amortizes.
	 */
	self_rate = 1e9 * (double)(self - (full ? g->self_ns[k] : g->start_self_ns)) /
		    (double)(full ? now - g->at_ns[k] : GUARD_SELF_SPAN * (int64_t)GUARD_PERIOD_NS);
	g->self_ns[k] = self;
	g->at_ns[k] = now;
	g->ticks++;
	spend = self_rate;
	capacity = g->budget_pct / 100 * g->ncpu * 1e9;
	for (size_t i = 0; i < n; i++) {
		struct trace_run *t = &tracing.runs[i];
		int64_t c = trace_run__cost_ns(t);
		double expected = tool_expected(t, g->ncpu);

		rate[i] = -1;
		guard_duty(t, now, start, window_s);
		if (c < 0 || !trace_run__attached(t))
			continue;
		rate[i] = (double)(c - g->last_cost[i]) * 1e9 / GUARD_PERIOD_NS;
		g->last_cost[i] = c;
		spend += rate[i];
		over[i] = rate[i] - expected * GUARD_MARGIN;
		/* a duty cycle's burst was planned: the budget holds it while it traces */
		if (t->stop_at_mono_ns)
			capacity += expected * GUARD_MARGIN;
	}
	/*
	 * First the tools over their prediction by a tenth of the overrun at least,
	 * most over first; then the costliest. A tool a few us over cannot bring
	 * the spend back (sonde's own sampling of a crowded /proc can be all of
	 * it): cutting it would lose its evidence for nothing.
	 */
	for (int pass = 0; pass < 2 && spend > capacity; pass++)
		for (;;) {
			size_t worst = n;

			for (size_t i = 0; i < n; i++)
				if (rate[i] >= 0 &&
				    (pass ? rate[i] * 10 >= spend :
					    over[i] > 0 && over[i] * 10 >= spend - capacity) &&
				    (worst == n || (pass ? rate[i] > rate[worst] :
							   over[i] > over[worst])))
					worst = i;
			if (worst == n || spend <= capacity)
				break;
			guard_cut(g, worst, rate[worst], spend, self_rate, now, start);
			spend -= rate[worst];
			rate[worst] = -1;
		}
}

/* The earliest end of a duty cycle still attached, or before (INT64_MAX: none). */
static int64_t duty_due(int64_t before)
{
	int64_t at = INT64_MAX;

	for (size_t i = 0; i < tracing.nruns && i < TRACE_MAX_TOOLS; i++) {
		const struct trace_run *t = &tracing.runs[i];

		if (t->stop_at_mono_ns && t->stop_at_mono_ns < at && t->stop_at_mono_ns < before &&
		    trace_run__attached(t))
			at = t->stop_at_mono_ns;
	}
	return at;
}

struct guard_arg {
	struct overhead_guard *g;
	double window_s;
};

static struct guard_arg guard_arg;

static void *guard_main(void *arg)
{
	struct guard_arg *ga = arg;
	struct overhead_guard *g = ga->g;
	int64_t next = g->start_ns;

	pthread_setname_np(pthread_self(), "sonde-guard");
	self_cpu__enter(SELF_GUARD);
	while (!g->stop) {
		struct timespec ts;
		int64_t at;

		next += GUARD_PERIOD_NS;
		/*
		 * A duty cycle that ends before the next period ends on time (one of
		 * 50 ms costs as planned, not twice that): the thread wakes for it.
		 */
		while (!g->stop && (at = duty_due(next)) < next) {
			ts.tv_sec = at / 1000000000;
			ts.tv_nsec = at % 1000000000;
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
			for (size_t i = 0; i < tracing.nruns && i < TRACE_MAX_TOOLS; i++)
				guard_duty(&tracing.runs[i], clock__ns(CLOCK_MONOTONIC), g->start_ns,
					   ga->window_s);
		}
		ts.tv_sec = next / 1000000000;
		ts.tv_nsec = next % 1000000000;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		if (g->stop)
			break;
		guard_tick(g, clock__ns(CLOCK_MONOTONIC), g->start_ns, ga->window_s);
	}
	return NULL;
}

/* The guard's baseline: what setting the tools up cost is not the window's overhead. */
static void guard_start(struct overhead_guard *g, double window_s, int enforce)
{
	g->start_ns = clock__ns(CLOCK_MONOTONIC);
	g->start_self_ns = self_cpu_ns();
	for (size_t i = 0; i < tracing.nruns && i < TRACE_MAX_TOOLS; i++)
		g->last_cost[i] = trace_run__cost_ns(&tracing.runs[i]);
	if (!enforce || !tracing.nruns)
		return;
	guard_arg.g = g;
	guard_arg.window_s = window_s;
	g->running = !pthread_create(&g->thread, NULL, guard_main, &guard_arg);
}

static void guard_stop(struct overhead_guard *g)
{
	int64_t span = clock__ns(CLOCK_MONOTONIC) - g->start_ns;

	if (g->running) {
		g->stop = 1;
		pthread_join(g->thread, NULL);
		g->running = 0;
	}
	if (span > 0 && g->start_ns) {
		g->self_s = (double)(self_cpu_ns() - g->start_self_ns) / 1e9;
		g->self_pct = 100 * g->self_s * 1e9 / (double)span / g->ncpu;
	}
}

/* sonde's own share of the host's CPU in the last window: the next one's budget starts less it. */
static double last_self_pct;
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
	struct overhead_guard guard = { 0 };
	struct trace_opts to = {
		.self_pid = getpid(), .window_s = window_s, .root = o->root ? o->root : "",
		.budget_pct = o->max_overhead_pct,
	};
	struct task_source src = { 0 };
	struct trace_tasks *tasks;
	char tasks_why[256] = "";
	struct host_events ev[2];
	int rc, ev_ok;

	/*
	 * sonde's own cost comes from the budget first: the last window's, when this
	 * one samples every process again (most of it); unknown in the first window.
	 */
	for (const char *const *nm = names; nm && *nm; nm++)
		if (!strcmp(*nm, "proc.pids"))
			to.self_pct = last_self_pct;

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
	guard.budget_pct = o->max_overhead_pct;
	guard.ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (guard.ncpu < 1)
		guard.ncpu = 1;
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
	run_cost__mark(cost, "setup");
	guard_start(&guard, window_s, o->max_overhead_pct > 0);
	ev_ok = !o->no_bpf && !host_events__read(to.root, PRIOR_EVENTS, NULL, 0, &ev[0]);
	rc = window__observe(&wo, wr, err, errlen);
	ev_ok = ev_ok && !rc && !host_events__read(to.root, PRIOR_EVENTS, NULL, 0, &ev[1]);
	guard_stop(&guard);
	last_events_ok = ev_ok;
	if (ev_ok)
		memcpy(last_events, ev, sizeof(ev));
	last_self_pct = guard.self_pct;
	run_cost__mark(cost, "window");
	wr->self_cpu_s = guard.self_s;
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
	guard_stop(&guard);
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
