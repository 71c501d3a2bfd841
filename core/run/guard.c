// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The budget of a window (--max-overhead) and the overhead guard that keeps
 * it. sonde's own bookkeeping (the sampling rounds, the thread-state sampler,
 * the profile's stack pollers) is paid first: its share is predicted (from the
 * last window, or a calibration) and reserved before the tools are admitted
 * (trace/cost.h). While the window runs, the guard, a thread of its own,
 * measures sonde's own CPU by part (util/selfcpu.h) and each tool's, and
 * judges each tool by its own cost against what it was admitted for
 * (trace_cost__guard): sonde's own going over its estimate is sonde's to
 * report, never a tool's to pay. The run facts say what was reserved and
 * what was used (docs/bpf-tools.md, "Cost").
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "run/run.h"
#include "trace/cost.h"
#include "trace/trace.h"
#include "util/clock.h"
#include "util/selfcpu.h"

#define GUARD_PERIOD_NS 100000000
#define GUARD_SELF_SPAN 10 /* periods: sonde's own CPU is judged over a second */
/*
 * The calibration of the first window, in passes of the task iterator timed
 * before it: the first round costs FIRST_FIXED_NS and FIRST_PASSES passes
 * (every process's command line and first-sight files), every other round
 * ROUND_FIXED_NS (the small collectors' files) and, when it reads every
 * process, ROUND_PASSES passes (the pass, each process's record written, the
 * thread states); a middle round skips that after one that cost over
 * PIDS_ROUND_BUDGET of the interval. Fitted with the default checks on this
 * project's 2-CPU VM (docs/bpf-tools.md, "Cost"): with 100, 5,000 and
 * 10,000 processes a pass took 0.25, 9 and 19 ms, the first round 9, 63-115
 * and 113-167 ms, the others 2.4, 11-12 and 15-20 ms on average.
 */
#define FIRST_FIXED_NS 7000000.0
#define FIRST_PASSES 7.0
#define ROUND_FIXED_NS 2000000.0
#define ROUND_PASSES 1.3

/* What the last window measured, for the next one's reserve. */
static struct last_window {
	int valid;
	int pids, threads, profile;   /* it sampled the processes, their threads; it profiled */
	uint32_t samples;
	int64_t rounds_ns, max_round_ns;
	double part_pct[SELF_PARTS];  /* each part's share of the host over it */
} last;

struct overhead_guard {
	struct trace_set *ts;
	double budget_pct, window_s;
	int ncpu;
	int admitting;      /* a budget, and tools asked for: the reserve was made */
	/* reserved before the tools were admitted */
	double reserved_pct, reserved_part_pct[SELF_PARTS];
	char reserved_how[600];
	int pids, threads, profile;
	pthread_t thread;
	int running;
	volatile int stop;
	pthread_mutex_t mu; /* max_pct, max_at_s: the run facts read them from the main thread */
	int64_t self_ns[GUARD_SELF_SPAN], part_ns[GUARD_SELF_SPAN][SELF_PARTS];
	int64_t at_ns[GUARD_SELF_SPAN];
	unsigned ticks;
	int64_t last_cost[TRACE_MAX_TOOLS];
	int64_t start_ns, start_self_ns, start_part_ns[SELF_PARTS];
	double max_pct, max_at_s; /* sonde's own costliest second, and when it ended */
};

/* One window at a time: static, as the tools are. */
static struct overhead_guard guard = { .mu = PTHREAD_MUTEX_INITIALIZER };

static int wants(const char *const *names, const char *name)
{
	for (const char *const *n = names; n && *n; n++)
		if (!strcmp(*n, name))
			return 1;
	return 0;
}

/* ns of CPU over span_ns as a share of the host's CPU (%). */
static double share(double ns, double span_ns, int ncpu)
{
	return span_ns > 0 ? 100 * ns / span_ns / ncpu : 0;
}

/* The rounds of a window: at its start, every interval, at its end. */
static double rounds_of(double window_s, double interval_s)
{
	return interval_s > 0 ? ceil(window_s / interval_s - 1e-9) + 1 : 1;
}

/*
 * The sampling rounds' share: the last window's rounds (its first, the
 * costliest, then the others' mean) when it sampled the processes as this one
 * does; else calibrated, one pass of the task iterator timed now (the
 * rounds in passes: FIRST_PASSES, ROUND_PASSES).
 */
static double reserve_rounds(struct overhead_guard *g, double window_s, double interval_s,
			     struct trace_tasks *tasks, char *how, size_t len)
{
	double n = rounds_of(window_s, interval_s), span = window_s * 1e9;
	struct task_source src;
	char why[160];
	int64_t c0;
	double pass, passes;

	if (last.valid && last.pids == g->pids && last.samples) {
		double first = (double)last.max_round_ns;
		double rest = last.samples > 1 ? ((double)last.rounds_ns - first) /
							  (last.samples - 1) : first;

		snprintf(how, len,
			 "the last window's sampling rounds: the first %.1f ms, then %.1f ms each, "
			 "x %.0f rounds over %.1f s",
			 first / 1e6, rest / 1e6, n, window_s);
		return share(first + rest * (n - 1), span, g->ncpu);
	}
	if (!g->pids) {
		snprintf(how, len, "no process is sampled: a few files a round, not reserved");
		return 0;
	}
	if (!tasks) {
		snprintf(how, len,
			 "not predicted: the rounds read /proc (no task iterator to time); the "
			 "guard judges the tools by their own cost");
		return 0;
	}
	c0 = clock__ns(CLOCK_THREAD_CPUTIME_ID);
	if (trace_tasks__read(tasks, why, sizeof(why))) {
		snprintf(how, len, "not predicted: timing a pass of the task iterator: %s", why);
		return 0;
	}
	pass = (double)(clock__ns(CLOCK_THREAD_CPUTIME_ID) - c0);
	trace_tasks__source(tasks, &src);
	/* after the first: the last round and the middle ones, every other when costly */
	passes = n - 1;
	if (n > 2 && pass * ROUND_PASSES > PIDS_ROUND_BUDGET * interval_s * 1e9)
		passes = 1 + ceil((n - 2) / 2);
	snprintf(how, len,
		 "calibrated: one pass of the task iterator took %.1f ms here (%zu processes); "
		 "the first round about %.0f ms and %.0f passes, each of the %.0f others %.0f ms "
		 "and, in %.0f of them, %.1f passes, over %.1f s",
		 pass / 1e6, src.count(src.arg), FIRST_FIXED_NS / 1e6, FIRST_PASSES, n - 1,
		 ROUND_FIXED_NS / 1e6, passes, ROUND_PASSES, window_s);
	return share(FIRST_FIXED_NS + FIRST_PASSES * pass + ROUND_FIXED_NS * (n - 1) +
			     ROUND_PASSES * pass * passes,
		     span, g->ncpu);
}

void run_guard__reserve(const char *const *names, double window_s, double interval_s,
			double budget_pct, struct trace_tasks *tasks, struct trace_opts *to)
{
	struct overhead_guard *g = &guard;
	char rounds[300];
	size_t used;

	g->ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (g->ncpu < 1)
		g->ncpu = 1;
	g->pids = wants(names, "proc.pids") || wants(names, "proc.threads");
	g->threads = wants(names, "proc.threads");
	g->profile = wants(names, "bpf.profile");
	memset(g->reserved_part_pct, 0, sizeof(g->reserved_part_pct));
	g->reserved_how[0] = '\0';
	g->reserved_pct = 0;
	/* nothing to admit: no figure to reserve, no pass to time */
	g->admitting = budget_pct > 0 && trace_set__wanted(names);
	if (!g->admitting)
		goto out;
	g->reserved_part_pct[SELF_ROUNDS] =
		reserve_rounds(g, window_s, interval_s, tasks, rounds, sizeof(rounds));
	used = (size_t)snprintf(g->reserved_how, sizeof(g->reserved_how), "%s", rounds);
	/* the sampler keeps its own measured CPU within its budget: that ceiling */
	if (g->threads) {
		int measured = last.valid && last.threads && last.part_pct[SELF_SAMPLER] > 0;

		g->reserved_part_pct[SELF_SAMPLER] = measured ? last.part_pct[SELF_SAMPLER] :
							       100 * THREADS_SAMPLER_BUDGET / g->ncpu;
		used += (size_t)snprintf(g->reserved_how + used, sizeof(g->reserved_how) - used,
					 "; the thread-state sampler %.2f%% (%s)",
					 g->reserved_part_pct[SELF_SAMPLER],
					 measured ? "the last window's" : "its ceiling");
	}
	if (g->profile && used < sizeof(g->reserved_how)) {
		g->reserved_part_pct[SELF_POLLERS] = last.valid && last.profile ?
							     last.part_pct[SELF_POLLERS] : 0;
		snprintf(g->reserved_how + used, sizeof(g->reserved_how) - used,
			 "; the stack pollers %s",
			 last.valid && last.profile ? "as in the last window" :
						      "not predicted (measured in the window)");
	}
	for (int p = 0; p < SELF_PARTS; p++)
		g->reserved_pct += g->reserved_part_pct[p];
out:
	to->self_pct = g->reserved_pct;
	to->self_from = !g->reserved_how[0] ? "" :
			last.valid && last.pids == g->pids ? "from the last window" :
							     "calibrated before this window";
}

/* Detach the tool i of the set now, saying why and whose the cost was: s. */
static void guard_cut(struct overhead_guard *g, size_t i, const struct tool_stop *s)
{
	struct trace_run *t = &g->ts->runs[i];
	char why[1024], tools[400] = "", parts[300] = "";
	size_t u = 0, v = 0;

	for (size_t k = 0; k < s->ntools && u < sizeof(tools); k++)
		u += (size_t)snprintf(tools + u, sizeof(tools) - u, "%s%s %.2f%% (admitted %.2f%%)",
				      k ? ", " : "", s->tools[k].name, s->tools[k].pct,
				      s->tools[k].admitted_pct);
	for (int p = 0; p < SELF_PARTS && v < sizeof(parts); p++)
		v += (size_t)snprintf(parts + v, sizeof(parts) - v, "%s %.2f%%, ",
				      self_part__what((enum self_part)p), s->own_part_pct[p]);
	if (v < sizeof(parts))
		snprintf(parts + v, sizeof(parts) - v, "the rest %.2f%%", s->own_rest_pct);
	snprintf(why, sizeof(why),
		 "detached %.1f s into the window by the overhead guard: it used %.2f%% of the "
		 "host's CPU over the last %.1f s, more than the %.2f%% it was admitted for "
		 "(its prediction x%.1f), while the spend was %.2f%% against %.2f%% (--max-"
		 "overhead %g%%; sonde's own counted up to its %.2f%% reserve). Whose: %s; "
		 "sonde's own %.2f%% over the last second (%s)",
		 s->at_s, s->pct, (double)GUARD_PERIOD_NS / 1e9, s->admitted_pct,
		 TRACE_GUARD_MARGIN, s->spend_pct, s->capacity_pct, s->budget_pct,
		 s->own_reserved_pct, tools, s->own_pct, parts);
	trace_run__detach(t, why, s);
	fprintf(stderr, "\rsonde: overhead guard: %s %s\n", t->tool->name, why);
}

static void guard_duty(struct trace_run *t, int64_t now, int64_t start, double window_s)
{
	struct tool_stop s = { .by = TOOL_STOP_DUTY, .at_s = (double)(now - start) / 1e9 };
	char why[512];

	if (!t->stop_at_mono_ns || now < t->stop_at_mono_ns || !trace_run__attached(t))
		return;
	snprintf(why, sizeof(why),
		 "detached %.1f s into the %.1f s window, as planned: its predicted cost is more "
		 "than the budget left for it, so it traced part of the window (a duty cycle)",
		 s.at_s, window_s);
	trace_run__detach(t, why, &s);
}

/* What the model admitted a tool for (% of the host): its prediction with the margin. */
static double tool_admitted(const struct trace_set *ts, const struct trace_run *t)
{
	for (size_t i = 0; i < ts->nout; i++)
		if (ts->outcome[i].tool == t->tool)
			return ts->outcome[i].pred.done ?
				       ts->outcome[i].pred.pct * TRACE_GUARD_MARGIN : 0;
	return 0;
}

/* sonde's own CPU over the last second, whole and by part (% of the host), into s. */
static void guard_own(struct overhead_guard *g, int64_t now, struct tool_stop *s)
{
	unsigned k = g->ticks % GUARD_SELF_SPAN;
	int full = g->ticks >= GUARD_SELF_SPAN;
	int64_t self = self_cpu__total(), part[SELF_PARTS];
	/*
	 * Over the last second (the ring's oldest), or since the window began but
	 * over a second at least: the first round, at the window's start, reads
	 * every process's files once, a burst the interval amortizes.
	 */
	double span = full ? (double)(now - g->at_ns[k]) : GUARD_SELF_SPAN * (double)GUARD_PERIOD_NS;
	const int64_t *from = full ? g->part_ns[k] : g->start_part_ns;

	self_cpu__read(part);
	s->own_pct = share((double)(self - (full ? g->self_ns[k] : g->start_self_ns)), span, g->ncpu);
	s->own_rest_pct = s->own_pct;
	for (int p = 0; p < SELF_PARTS; p++) {
		s->own_part_pct[p] = share((double)(part[p] - from[p]), span, g->ncpu);
		s->own_rest_pct -= s->own_part_pct[p];
	}
	if (s->own_rest_pct < 0)
		s->own_rest_pct = 0;
	g->self_ns[k] = self;
	memcpy(g->part_ns[k], part, sizeof(part));
	g->at_ns[k] = now;
	g->ticks++;
	pthread_mutex_lock(&g->mu);
	if (s->own_pct > g->max_pct) {
		g->max_pct = s->own_pct;
		g->max_at_s = (double)(now - g->start_ns) / 1e9;
	}
	pthread_mutex_unlock(&g->mu);
}

/* One period: the duty cycles that end, the spend against the budget, the tools to detach. */
static void guard_tick(struct overhead_guard *g, int64_t now)
{
	struct trace_set *ts = g->ts;
	size_t n = ts->nruns < TRACE_MAX_TOOLS ? ts->nruns : TRACE_MAX_TOOLS;
	struct trace_guard j = { .budget_pct = g->budget_pct, .n = n };
	struct tool_stop s = { .by = TOOL_STOP_GUARD, .budget_pct = g->budget_pct };

	s.at_s = (double)(now - g->start_ns) / 1e9;
	guard_own(g, now, &s);
	j.own_pct = s.own_pct;
	j.own_reserved_pct = s.own_reserved_pct = g->reserved_pct;
	for (size_t i = 0; i < n; i++) {
		struct trace_run *t = &ts->runs[i];
		int64_t c = trace_run__cost_ns(t);

		j.tool[i].pct = -1;
		guard_duty(t, now, g->start_ns, g->window_s);
		if (c < 0 || !trace_run__attached(t))
			continue;
		j.tool[i].pct = share((double)(c - g->last_cost[i]), GUARD_PERIOD_NS, g->ncpu);
		j.tool[i].admitted_pct = tool_admitted(ts, t);
		/* a duty cycle's burst was planned: the budget holds it while it traces */
		j.tool[i].burst = t->stop_at_mono_ns != 0;
		g->last_cost[i] = c;
		snprintf(s.tools[s.ntools].name, sizeof(s.tools[0].name), "%s", t->tool->name);
		s.tools[s.ntools].pct = j.tool[i].pct;
		s.tools[s.ntools++].admitted_pct = j.tool[i].admitted_pct;
	}
	if (!trace_cost__guard(&j))
		return;
	s.spend_pct = j.spend_pct;
	s.capacity_pct = j.capacity_pct;
	for (size_t i = 0; i < n; i++)
		if (j.tool[i].cut) {
			s.pct = j.tool[i].pct;
			s.admitted_pct = j.tool[i].admitted_pct;
			guard_cut(g, i, &s);
		}
}

/* The earliest end of a duty cycle still attached, or before (INT64_MAX: none). */
static int64_t duty_due(const struct trace_set *ts, int64_t before)
{
	int64_t at = INT64_MAX;

	for (size_t i = 0; i < ts->nruns && i < TRACE_MAX_TOOLS; i++) {
		const struct trace_run *t = &ts->runs[i];

		if (t->stop_at_mono_ns && t->stop_at_mono_ns < at && t->stop_at_mono_ns < before &&
		    trace_run__attached(t))
			at = t->stop_at_mono_ns;
	}
	return at;
}

static void sleep_until(int64_t at)
{
	struct timespec ts = { .tv_sec = at / 1000000000, .tv_nsec = at % 1000000000 };

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

static void *guard_main(void *arg)
{
	struct overhead_guard *g = arg;
	int64_t next = g->start_ns;

	pthread_setname_np(pthread_self(), "sonde-guard");
	self_cpu__enter(SELF_GUARD);
	while (!g->stop) {
		int64_t at;

		next += GUARD_PERIOD_NS;
		/*
		 * A duty cycle that ends before the next period ends on time (one of
		 * 50 ms costs as planned, not twice that): the thread wakes for it.
		 */
		while (!g->stop && (at = duty_due(g->ts, next)) < next) {
			sleep_until(at);
			for (size_t i = 0; i < g->ts->nruns && i < TRACE_MAX_TOOLS; i++)
				guard_duty(&g->ts->runs[i], clock__ns(CLOCK_MONOTONIC), g->start_ns,
					   g->window_s);
		}
		sleep_until(next);
		if (g->stop)
			break;
		guard_tick(g, clock__ns(CLOCK_MONOTONIC));
	}
	return NULL;
}

/* The guard's baseline: what setting the tools up cost is not the window's overhead. */
void run_guard__start(struct trace_set *ts, double budget_pct, double window_s, int enforce)
{
	struct overhead_guard *g = &guard;

	g->ts = ts;
	g->budget_pct = budget_pct;
	g->window_s = window_s;
	g->stop = 0;
	g->ticks = 0;
	g->max_pct = g->max_at_s = 0;
	g->start_ns = clock__ns(CLOCK_MONOTONIC);
	g->start_self_ns = self_cpu__total();
	self_cpu__read(g->start_part_ns);
	for (size_t i = 0; i < ts->nruns && i < TRACE_MAX_TOOLS; i++)
		g->last_cost[i] = trace_run__cost_ns(&ts->runs[i]);
	if (!enforce || !ts->nruns)
		return;
	g->running = !pthread_create(&g->thread, NULL, guard_main, g);
}

/* sonde's own CPU since the window began, whole (returned) and by part, in ns. */
static int64_t own_since_start(const struct overhead_guard *g, int64_t part[SELF_PARTS])
{
	self_cpu__read(part);
	for (int p = 0; p < SELF_PARTS; p++)
		part[p] -= g->start_part_ns[p];
	return self_cpu__total() - g->start_self_ns;
}

void run_guard__facts(void *arg, struct strbuf *out)
{
	struct overhead_guard *g = &guard;
	double span = (double)(clock__ns(CLOCK_MONOTONIC) - g->start_ns), rest;
	int64_t part[SELF_PARTS], self;

	(void)arg;
	if (!g->start_ns)
		return;
	self = own_since_start(g, part);
	rest = (double)self;
	if (g->admitting) {
		strbuf__printf(out, "budget_pct: %g\nself_reserved_pct: %.4f\n", g->budget_pct,
			       g->reserved_pct);
		for (int p = 0; p < SELF_PARTS; p++)
			if (g->reserved_part_pct[p] > 0)
				strbuf__printf(out, "self_reserved_%s_pct: %.4f\n",
					       self_part__name((enum self_part)p),
					       g->reserved_part_pct[p]);
		strbuf__printf(out, "self_reserved_how: %s\n", g->reserved_how);
	}
	strbuf__printf(out, "self_pct: %.4f\n", share((double)self, span, g->ncpu));
	for (int p = 0; p < SELF_PARTS; p++) {
		strbuf__printf(out, "self_%s_pct: %.4f\n", self_part__name((enum self_part)p),
			       share((double)part[p], span, g->ncpu));
		rest -= (double)part[p];
	}
	strbuf__printf(out, "self_rest_pct: %.4f\n", share(rest > 0 ? rest : 0, span, g->ncpu));
	pthread_mutex_lock(&g->mu);
	if (g->max_pct > 0)
		strbuf__printf(out, "self_max_pct: %.4f\nself_max_at_s: %.1f\n", g->max_pct,
			       g->max_at_s);
	pthread_mutex_unlock(&g->mu);
}

double run_guard__stop(const struct window_result *wr)
{
	struct overhead_guard *g = &guard;
	int64_t part[SELF_PARTS], self, span = clock__ns(CLOCK_MONOTONIC) - g->start_ns;

	if (g->running) {
		g->stop = 1;
		pthread_join(g->thread, NULL);
		g->running = 0;
	}
	if (!g->start_ns || span <= 0)
		return 0;
	self = own_since_start(g, part);
	g->start_ns = 0;
	/* for the next window's reserve, when this one ended as planned */
	last.valid = wr && !wr->abandoned && wr->samples;
	if (last.valid) {
		last.pids = g->pids;
		last.threads = g->threads;
		last.profile = g->profile;
		last.samples = wr->samples;
		last.rounds_ns = wr->rounds_cpu_ns;
		last.max_round_ns = wr->max_round_cpu_ns;
		for (int p = 0; p < SELF_PARTS; p++)
			last.part_pct[p] = share((double)part[p], (double)span, g->ncpu);
	}
	return (double)self / 1e9;
}
