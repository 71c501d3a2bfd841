// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The cost model of the BPF tools: one program run timed on this host at
 * start-up, the tools' own factors (bench/tool-cost.sh), the event rates of
 * the kernel's counters, and the budget shared among the tools of a window.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "trace/cost.h"
#include "trace/maps.h"
#include "util/clock.h"

/*
 * The reference figure when nothing can be timed: an empty program on a
 * raw_tp/tp_btf syscall hook measured 80-110 ns on a small VM (DESIGN.md 5).
 */
#define REF_EMPTY_NS 100.0
/* Timing: CAL_BATCHES batches of CAL_CALLS getppid() each, the fastest kept. */
#define CAL_CALLS 1000
#define CAL_BATCHES 5
/* A filtered-out run: the program runs, reads its tgid and returns. */
#define FILTERED_RUN_COST 1.2

_Static_assert(TRACE_MAX_TGIDS <= HEV_MAX_PIDS, "every suspect's counters are read apart");

/* What each attach mode costs next to a raw_tp run (DESIGN.md 5: 150-170 ns against 80-110). */
static const double attach_factor[ATTACH_NR] = {
	[ATTACH_TP_BTF] = 1.0,     [ATTACH_RAW_TP] = 1.0, [ATTACH_TRACEPOINT] = 1.6,
	[ATTACH_FENTRY] = 1.0,     [ATTACH_KPROBE] = 2.5, [ATTACH_PERF_EVENT] = 1.0,
	/* an event written into a tracefs instance, then read and parsed by sonde (ftrace.c) */
	[ATTACH_TRACEFS] = 4.0,
};

static int64_t batch_ns(void)
{
	int64_t t0 = clock__ns(CLOCK_MONOTONIC);

	for (int i = 0; i < CAL_CALLS; i++)
		syscall(SYS_getppid);
	return clock__ns(CLOCK_MONOTONIC) - t0;
}

static int64_t fastest_batch(void)
{
	int64_t best = INT64_MAX;

	for (int i = 0; i < CAL_BATCHES; i++) {
		int64_t b = batch_ns();

		if (b < best)
			best = b;
	}
	return best;
}

/* The counting program (count_prog_load) and its per-CPU counters: all, the suspects'. */
static int count_prog = -1, count_map = -1;

enum { R0, R1, R2, R6 = 6, R7, R10 = 10 };

/* (*map[key])++ for the key in r7 (per CPU: no atomic); 10 instructions at i. */
static size_t emit_increment(struct bpf_insn *in, size_t i, int map)
{
	/* *(u32 *)(fp - 4) = r7, the key */
	in[i++] = (struct bpf_insn){ .code = BPF_STX | BPF_MEM | BPF_W, .dst_reg = R10,
				     .src_reg = R7, .off = -4 };
	in[i++] = (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = R2,
				     .src_reg = R10 };
	in[i++] = (struct bpf_insn){ .code = BPF_ALU64 | BPF_ADD | BPF_K, .dst_reg = R2,
				     .imm = -4 };
	/* r1 = the map: a 16-byte load of its fd */
	in[i++] = (struct bpf_insn){ .code = BPF_LD | BPF_DW | BPF_IMM, .dst_reg = R1,
				     .src_reg = BPF_PSEUDO_MAP_FD, .imm = map };
	in[i++] = (struct bpf_insn){ 0 };
	in[i++] = (struct bpf_insn){ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_map_lookup_elem };
	in[i++] = (struct bpf_insn){ .code = BPF_JMP | BPF_JEQ | BPF_K, .dst_reg = R0, .off = 3 };
	in[i++] = (struct bpf_insn){ .code = BPF_LDX | BPF_MEM | BPF_DW, .dst_reg = R1,
				     .src_reg = R0 };
	in[i++] = (struct bpf_insn){ .code = BPF_ALU64 | BPF_ADD | BPF_K, .dst_reg = R1, .imm = 1 };
	in[i++] = (struct bpf_insn){ .code = BPF_STX | BPF_MEM | BPF_DW, .dst_reg = R0,
				     .src_reg = R1 };
	return i;
}

/*
 * The counting program: what every tool does first (read the current tgid,
 * then sonde_count: one per-CPU counter incremented), and nothing else. Key 0
 * counts every run, key 1 + k the runs of the k-th suspect's tgid (up to
 * TRACE_MAX_TGIDS, as immediates). Timed against no program, a run of it is
 * the cost of one run here; attached to sys_enter for a moment, it counts the
 * host's syscalls and the suspects' apart, which no kernel counter does
 * (/proc/PID/io counts reads and writes only: a third of a network server's
 * syscalls, none of a lock's futex calls). A new program replaces the last.
 */
static int count_prog_load(const int *tgids, size_t n)
{
	struct bpf_insn in[28 + 3 * TRACE_MAX_TGIDS];
	size_t i = 0;

	if (n > TRACE_MAX_TGIDS)
		n = TRACE_MAX_TGIDS;
	if (count_map < 0) {
		count_map = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "sonde_count", 4, 8,
					   1 + TRACE_MAX_TGIDS, NULL);
		if (count_map < 0)
			return -errno;
	}
	in[i++] = (struct bpf_insn){ .code = BPF_JMP | BPF_CALL,
				     .imm = BPF_FUNC_get_current_pid_tgid };
	in[i++] = (struct bpf_insn){ .code = BPF_ALU64 | BPF_RSH | BPF_K, .dst_reg = R0, .imm = 32 };
	in[i++] = (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = R6,
				     .src_reg = R0 };
	in[i++] = (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = R7 };
	i = emit_increment(in, i, count_map);
	/*
	 * Suspect k: key 1 + k too. Its tgid test jumps to its block (two
	 * instructions: the key, then to the second increment); none matched jumps
	 * past them all. With no suspect, no second increment: the verifier refuses
	 * code no path reaches.
	 */
	for (size_t k = 0; k < n; k++)
		in[i++] = (struct bpf_insn){ .code = BPF_JMP | BPF_JEQ | BPF_K, .dst_reg = R6,
					     .off = (short)(n + k), .imm = tgids[k] };
	if (n) {
		in[i++] = (struct bpf_insn){ .code = BPF_JMP | BPF_JA, .off = (short)(2 * n + 10) };
		for (size_t k = 0; k < n; k++) {
			in[i++] = (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_K,
						     .dst_reg = R7, .imm = (int)(1 + k) };
			in[i++] = (struct bpf_insn){ .code = BPF_JMP | BPF_JA,
						     .off = (short)(2 * (n - k - 1)) };
		}
		i = emit_increment(in, i, count_map);
	}
	in[i++] = (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = R0 };
	in[i++] = (struct bpf_insn){ .code = BPF_JMP | BPF_EXIT };
	if (count_prog >= 0)
		close(count_prog);
	count_prog = bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, "sonde_count", "GPL", in, i, NULL);
	return count_prog < 0 ? -errno : 0;
}

/* The counting program's runs so far under key (0 all, 1 + k suspect k's), over every CPU. */
static uint64_t count_runs(uint32_t key)
{
	long ncpu = libbpf_num_possible_cpus();
	uint64_t *v, sum = 0;

	if (count_map < 0 || ncpu <= 0 || !(v = calloc((size_t)ncpu, sizeof(*v))))
		return 0;
	if (!bpf_map_lookup_elem(count_map, &key, v))
		for (long i = 0; i < ncpu; i++)
			sum += v[i];
	free(v);
	return sum;
}

/* The counting program on sys_enter and sys_exit: two runs a syscall. 0 or -errno. */
static int time_empty(struct trace_calibration *c)
{
	int enter = -1, leave = -1, err;
	int64_t bare, traced, bare2;

	err = count_prog_load(NULL, 0);
	if (err)
		return err;
	bare = fastest_batch();
	enter = bpf_raw_tracepoint_open("sys_enter", count_prog);
	leave = enter < 0 ? -1 : bpf_raw_tracepoint_open("sys_exit", count_prog);
	if (enter < 0 || leave < 0) {
		err = -errno;
		goto cleanup;
	}
	traced = fastest_batch();
	close(enter);
	close(leave);
	enter = leave = -1;
	bare2 = fastest_batch();
	if (bare2 < bare)
		bare = bare2;
	c->syscall_ns = (double)bare / CAL_CALLS;
	c->empty_ns = (double)(traced - bare) / CAL_CALLS / 2;
cleanup:
	if (enter >= 0)
		close(enter);
	if (leave >= 0)
		close(leave);
	return err;
}

const struct trace_calibration *trace_cost__calibrate(void)
{
	static struct trace_calibration cal;
	int64_t t0;
	int err;

	if (cal.done)
		return &cal;
	cal.done = 1;
	t0 = clock__ns(CLOCK_MONOTONIC);
	err = time_empty(&cal);
	/* a busy host can take the CPU in every batch of one side: once more */
	if (!err && (cal.empty_ns < 10 || cal.empty_ns > 5000))
		err = time_empty(&cal);
	cal.ms = (double)(clock__ns(CLOCK_MONOTONIC) - t0) / 1e6;
	if (err) {
		snprintf(cal.why, sizeof(cal.why),
			 "an empty BPF program could not be timed here (%s): the reference "
			 "figure of a small VM stands",
			 strerror(-err));
	} else if (cal.empty_ns < 10 || cal.empty_ns > 5000) {
		/* Lost in noise (a busy host took the CPU in every batch): keep the reference. */
		snprintf(cal.why, sizeof(cal.why),
			 "timing an empty BPF program gave %.0f ns a run, not believable (a busy "
			 "host): the reference figure of a small VM stands",
			 cal.empty_ns);
	} else {
		cal.measured = 1;
		return &cal;
	}
	cal.empty_ns = REF_EMPTY_NS;
	return &cal;
}

double trace_cost__run_ns(const struct trace_calibration *cal, const struct trace_tool *tool,
			  enum trace_attach a)
{
	double empty = cal && cal->done ? cal->empty_ns : REF_EMPTY_NS;
	double factor = tool->run_cost > 0 ? tool->run_cost : 1;

	return empty * factor * (a < ATTACH_NR ? attach_factor[a] : 1);
}

unsigned trace_cost__events(const struct trace_tool *tool)
{
	unsigned mask = 0;

	for (size_t i = 0; i < sizeof(tool->hooks) / sizeof(tool->hooks[0]) && tool->hooks[i].runs;
	     i++)
		mask |= HEV_BIT(tool->hooks[i].ev);
	return mask;
}

enum trace_attach trace_cost__likely_attach(const struct trace_tool *tool)
{
	return tool->attach[0] < ATTACH_NR ? tool->attach[0] : ATTACH_TP_BTF;
}

/* Append to p->how; "; " between parts. */
static void how_add(struct trace_prediction *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void how_add(struct trace_prediction *p, const char *fmt, ...)
{
	size_t used = strlen(p->how);
	va_list ap;

	if (used + 3 >= sizeof(p->how))
		return;
	if (used) {
		memcpy(p->how + used, "; ", 3);
		used += 2;
	}
	va_start(ap, fmt);
	vsnprintf(p->how + used, sizeof(p->how) - used, fmt, ap);
	va_end(ap);
}

/*
 * Suspect k's share of a filtered hook: its runs at full cost over its own CPU
 * time, into load[k]; 0 when no suspect could be read apart.
 */
static int suspects_load(const struct host_events *ea, const struct host_events *eb,
			 double runs_per_event, double run_ns, double *load)
{
	int read = 0;

	for (size_t k = 0; k < HEV_MAX_PIDS; k++) {
		double r = host_events__pid_rate(ea, eb, k), cpus = host_events__cpus(ea, eb, (int)k);

		if (r < 0 || cpus <= 0)
			continue;
		load[k] += r * runs_per_event * run_ns / (cpus * 1e9);
		read = 1;
	}
	return read;
}

void trace_cost__predict(const struct trace_tool *tool, enum trace_attach a,
			 const struct trace_calibration *cal, const struct host_events *ea,
			 const struct host_events *eb, int filtered, int ncpu,
			 struct trace_prediction *p)
{
	double run_ns = trace_cost__run_ns(cal, tool, a), ns_per_s = 0;
	double empty = cal && cal->done ? cal->empty_ns : REF_EMPTY_NS;
	/* where the runs land: on every busy CPU (spread), on a suspect (load), a sample per CPU */
	double spread_ns = 0, sample_ns = 0, load[HEV_MAX_PIDS] = { 0 }, worst = 0, busy;
	int counted = 0;

	memset(p, 0, sizeof(*p));
	p->done = 1;
	p->duty = 1;
	p->run_ns = run_ns;
	if (ncpu < 1)
		ncpu = 1;
	for (size_t i = 0; i < sizeof(tool->hooks) / sizeof(tool->hooks[0]) && tool->hooks[i].runs;
	     i++) {
		const struct trace_hook *h = &tool->hooks[i];
		double rate = host_events__rate(ea, eb, h->ev), pass = -1;

		if (rate < 0) {
			p->uncounted = 1;
			how_add(p, "%s: not readable here (%s)", host_event__name(h->ev),
				host_event__source(h->ev));
			continue;
		}
		counted = 1;
		if (filtered && h->ev == HEV_SYSCALL)
			pass = host_events__suspect_rate(ea, eb);
		if (h->ev == HEV_SYSCALL && eb->syscalls_counted)
			how_add(p, "syscalls counted for %.1f s by an empty program on sys_enter "
				   "(more than the read and write syscalls of /proc/PID/io)",
				(double)(eb->mono_ns - ea->mono_ns) / 1e9);
		p->runs_per_s += rate * h->runs;
		if (pass >= 0 && pass <= rate) {
			/* Every syscall runs the program; the suspects' pass the filter. */
			double out = (rate - pass) * h->runs * empty * FILTERED_RUN_COST;

			ns_per_s += pass * h->runs * run_ns + out;
			spread_ns += out;
			if (!suspects_load(ea, eb, h->runs, run_ns, load))
				spread_ns += pass * h->runs * run_ns;
			p->events_per_s += pass;
			how_add(p, "%.0f %s/s x %g runs (%.0f/s of them the suspects'; %s)", rate,
				host_event__name(h->ev), h->runs, pass, host_event__source(h->ev));
		} else {
			ns_per_s += rate * h->runs * run_ns;
			spread_ns += rate * h->runs * run_ns;
			p->events_per_s += rate;
			how_add(p, "%.0f %s/s x %g runs (%s)", rate, host_event__name(h->ev),
				h->runs, host_event__source(h->ev));
		}
	}
	if (tool->runs_per_cpu_s > 0) {
		double r = tool->runs_per_cpu_s * ncpu;

		counted = 1;
		p->runs_per_s += r;
		p->events_per_s += r;
		ns_per_s += r * run_ns;
		sample_ns += r * run_ns;
		how_add(p, "%.0f samples/s (%g Hz x %d CPUs)", r, tool->runs_per_cpu_s, ncpu);
	}
	if (tool->uncounted) {
		p->uncounted = 1;
		how_add(p, "%s: no kernel counter, not predicted (the overhead guard watches it)",
			tool->uncounted);
	}
	if (!counted)
		p->events_per_s = -1;
	p->pct = 100 * ns_per_s / 1e9 / ncpu;
	/*
	 * The work's slowdown: a sample lands on a CPU whatever it runs (a share of
	 * each CPU), an event's runs on the busy CPUs that make the events (the
	 * host's busy time; all of it when unreadable), a suspect's on its own.
	 */
	busy = host_events__cpus(ea, eb, -1);
	if (busy <= 0 || busy > ncpu)
		busy = ncpu;
	for (size_t k = 0; k < HEV_MAX_PIDS; k++)
		if (load[k] > worst)
			worst = load[k];
	p->load_pct = 100 * (sample_ns / 1e9 / ncpu + spread_ns / 1e9 / busy + worst);
	if (p->load_pct < p->pct)
		p->load_pct = p->pct;
	how_add(p, "%.0f ns a run (%s)", run_ns,
		cal && cal->measured ? "an empty program timed here x the tool's factor" :
				       "the reference figure x the tool's factor");
	if (ns_per_s > 0)
		how_add(p,
			"%.2f%% more CPU time for the work it traces: its runs over the %.2f "
			"busy CPUs%s",
			p->load_pct, busy,
			worst > 0 ? ", and a suspect's over that suspect's own CPU time" : "");
}

static int by_load(const void *a, const void *b)
{
	const struct trace_prediction *x = *(struct trace_prediction *const *)a;
	const struct trace_prediction *y = *(struct trace_prediction *const *)b;

	return (x->load_pct > y->load_pct) - (x->load_pct < y->load_pct);
}

/*
 * The shortest trace worth attaching a tool for: TRACE_MIN_EVENTS of the
 * events it records, at the rate predicted, between TRACE_MIN_TRACED_FLOOR_S
 * and TRACE_MIN_TRACED_S (a tool whose events no counter counts: the latter).
 */
static double min_traced_s(const struct trace_prediction *q)
{
	double s;

	if (q->events_per_s <= 0)
		return TRACE_MIN_TRACED_S;
	s = TRACE_MIN_EVENTS / q->events_per_s;
	return s < TRACE_MIN_TRACED_FLOOR_S ? TRACE_MIN_TRACED_FLOOR_S :
	       s > TRACE_MIN_TRACED_S	    ? TRACE_MIN_TRACED_S :
					      s;
}

void trace_cost__allocate(struct trace_prediction *const *p, size_t n, double budget_pct,
			  double window_s)
{
	struct trace_prediction **order = malloc(n * sizeof(*order));
	double left = budget_pct > 0 ? budget_pct : 0;

	if (!order) {
		/* No memory to sort: every tool runs whole, the guard is the safety net. */
		for (size_t i = 0; i < n; i++)
			p[i]->duty = 1;
		return;
	}
	memcpy(order, p, n * sizeof(*order));
	qsort(order, n, sizeof(*order), by_load);
	for (size_t i = 0; i < n; i++) {
		struct trace_prediction *q = order[i];
		double cost = q->load_pct > q->pct ? q->load_pct : q->pct;
		double min_duty = window_s > 0 ? min_traced_s(q) / window_s : 1;

		q->budget_pct = left;
		if (q->pct <= TRACE_NEGLIGIBLE_PCT) {
			q->duty = 1;
			left = left > cost ? left - cost : 0;
		} else if (cost <= left) {
			q->duty = 1;
			left -= cost;
		} else if (cost > 0 && left / cost >= min_duty) {
			q->duty = left / cost;
			left = 0;
		} else {
			q->duty = 0;
		}
	}
	free(order);
}

size_t trace_cost__guard(struct trace_guard *g)
{
	size_t n = g->n < TRACE_MAX_TOOLS ? g->n : TRACE_MAX_TOOLS, ncut = 0;
	double own = g->own_pct < g->own_reserved_pct ? g->own_pct : g->own_reserved_pct;
	double spend = own > 0 ? own : 0, capacity = g->budget_pct;

	for (size_t i = 0; i < n; i++) {
		struct trace_guard_tool *t = &g->tool[i];

		t->cut = 0;
		if (t->pct < 0)
			continue;
		spend += t->pct;
		if (t->burst)
			capacity += t->admitted_pct;
	}
	g->spend_pct = spend;
	g->capacity_pct = capacity;
	while (spend > capacity) {
		size_t worst = n;

		for (size_t i = 0; i < n; i++) {
			const struct trace_guard_tool *t = &g->tool[i];
			double over = t->pct - t->admitted_pct;

			if (t->pct < 0 || t->cut || over <= 0 || over * 10 < spend - capacity)
				continue;
			if (worst == n || over > g->tool[worst].pct - g->tool[worst].admitted_pct)
				worst = i;
		}
		if (worst == n)
			break;
		g->tool[worst].cut = 1;
		spend -= g->tool[worst].pct;
		/* a duty cycle cut: its planned burst no longer holds room for the others */
		if (g->tool[worst].burst)
			capacity -= g->tool[worst].admitted_pct;
		ncut++;
	}
	return ncut;
}

/*
 * The rates are read twice this far apart at least: long enough that a few
 * hundred events a second show, short enough not to delay the window much.
 */
#define RATE_SPAN_NS 100000000

/*
 * The host's syscalls, and the suspects', counted over the rate span by the
 * counting program on sys_enter (one run a syscall): into eb, where they are
 * more than the counters' reading (/proc/PID/io: reads and writes only).
 */
static void count_syscalls(const struct host_events *ea, struct host_events *eb, uint64_t all,
			   const uint64_t *each, size_t n, int64_t t0, int64_t t1)
{
	double dt = (double)(t1 - t0) / 1e9, span = (double)(eb->mono_ns - ea->mono_ns) / 1e9;
	uint64_t suspects = 0;

	if (dt <= 0 || !(ea->have & eb->have & HEV_BIT(HEV_SYSCALL)))
		return;
	for (size_t k = 0; k < n && k < HEV_MAX_PIDS; k++) {
		double scaled = (double)each[k] * span / dt;

		suspects += each[k];
		if (!(ea->pid_syscalls_read & eb->pid_syscalls_read & (1u << k)))
			continue;
		if (eb->pid_syscalls[k] < ea->pid_syscalls[k] ||
		    (double)(eb->pid_syscalls[k] - ea->pid_syscalls[k]) < scaled)
			eb->pid_syscalls[k] = ea->pid_syscalls[k] + (uint64_t)scaled;
	}
	/* the counted rates over the counters' span; a process that exited took its count */
	if (eb->n[HEV_SYSCALL] < ea->n[HEV_SYSCALL] ||
	    (double)(eb->n[HEV_SYSCALL] - ea->n[HEV_SYSCALL]) < (double)all * span / dt) {
		eb->n[HEV_SYSCALL] = ea->n[HEV_SYSCALL] + (uint64_t)((double)all * span / dt);
		eb->syscalls_counted = 1;
	}
	if (ea->suspects_read && eb->suspects_read == ea->suspects_read &&
	    (eb->suspect_syscalls < ea->suspect_syscalls ||
	     (double)(eb->suspect_syscalls - ea->suspect_syscalls) <
		     (double)suspects * span / dt))
		eb->suspect_syscalls = ea->suspect_syscalls +
				       (uint64_t)((double)suspects * span / dt);
}

/*
 * The tool's prediction from the rates over the last window instead, when
 * those are higher: 0.1 s can fall in a lull of the work (a benchmark between
 * two of its tests, a server between two bursts), and the window ahead is
 * seconds long. Only for tools whose every event the last window's counters
 * hold; not the syscalls (every process's /proc/PID/io is not read twice for
 * it), which the counting program counts over the 0.1 s.
 */
static void prior_predict(struct trace_outcome *oc, const struct trace_calibration *cal,
			  const struct host_events *pa, const struct host_events *pb, int ncpu)
{
	unsigned ev = trace_cost__events(oc->tool);
	struct trace_prediction q;

	if (!ev || (ev & HEV_BIT(HEV_SYSCALL)) || (pa->have & pb->have & ev) != ev)
		return;
	trace_cost__predict(oc->tool, trace_cost__likely_attach(oc->tool), cal, pa, pb, 0, ncpu,
			    &q);
	if (q.load_pct <= oc->pred.load_pct)
		return;
	how_add(&q, "the rates over the last window (%.1f s), higher than over the 0.1 s before "
		    "this one",
		(double)(pb->mono_ns - pa->mono_ns) / 1e9);
	oc->pred = q;
}

void trace_cost__plan(struct trace_set *ts, const struct trace_opts *o)
{
	struct trace_prediction *preds[TRACE_MAX_TOOLS];
	const struct trace_calibration *cal;
	struct host_events ea, eb;
	unsigned mask = 0;
	int64_t left, c0 = 0, c1 = 0;
	uint64_t all0 = 0, each0[TRACE_MAX_TGIDS] = { 0 }, each[TRACE_MAX_TGIDS] = { 0 };
	size_t nt = o->ntgids < TRACE_MAX_TGIDS ? o->ntgids : TRACE_MAX_TGIDS;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int counting = -1;
	size_t n = 0;

	ts->budget_pct = o->budget_pct;
	ts->self_pct = o->self_pct > 0 ? o->self_pct : 0;
	snprintf(ts->self_from, sizeof(ts->self_from), "%s", o->self_from ? o->self_from : "");
	if (o->budget_pct <= 0 || !ts->nout)
		return;
	for (size_t i = 0; i < ts->nout; i++)
		mask |= trace_cost__events(ts->outcome[i].tool);
	cal = trace_cost__calibrate();
	host_events__read(o->root, mask, o->tgids, o->ntgids, &ea);
	if ((mask & HEV_BIT(HEV_SYSCALL)) && !count_prog_load(o->tgids, o->ntgids)) {
		all0 = count_runs(0);
		for (size_t k = 0; k < nt; k++)
			each0[k] = count_runs((uint32_t)(1 + k));
		c0 = clock__ns(CLOCK_MONOTONIC);
		counting = bpf_raw_tracepoint_open("sys_enter", count_prog);
	}
	/* reading every process's /proc/PID/io can take a while: the count gets its own span */
	left = RATE_SPAN_NS - (clock__ns(CLOCK_MONOTONIC) - (counting >= 0 ? c0 : ea.mono_ns));
	if (mask && left > 0) {
		struct timespec ts_left = { .tv_sec = 0, .tv_nsec = (long)left };

		nanosleep(&ts_left, NULL);
	}
	if (counting >= 0) {
		c1 = clock__ns(CLOCK_MONOTONIC);
		close(counting);
	}
	host_events__read(o->root, mask, o->tgids, o->ntgids, &eb);
	if (counting >= 0) {
		for (size_t k = 0; k < nt; k++)
			each[k] = count_runs((uint32_t)(1 + k)) - each0[k];
		count_syscalls(&ea, &eb, count_runs(0) - all0, each, nt, c0, c1);
	}
	for (size_t i = 0; i < ts->nout; i++) {
		struct trace_outcome *oc = &ts->outcome[i];

		trace_cost__predict(oc->tool, ts->no_bpf && oc->tool->ftrace ? ATTACH_TRACEFS :
				    trace_cost__likely_attach(oc->tool), cal, &ea, &eb,
				    trace_opts__filters(o, oc->tool), (int)(ncpu > 0 ? ncpu : 1),
				    &oc->pred);
		preds[n++] = &oc->pred;
	}
	for (size_t i = 0; o->prior[0] && o->prior[1] && i < ts->nout; i++)
		prior_predict(&ts->outcome[i], cal, o->prior[0], o->prior[1], (int)(ncpu > 0 ? ncpu : 1));
	trace_cost__allocate(preds, n, o->budget_pct - (o->self_pct > 0 ? o->self_pct : 0),
			     o->window_s);
}

void trace_cost__json(struct json *j, const struct trace_prediction *p, const char *instead)
{
	const struct trace_calibration *cal = trace_cost__calibrate();
	const struct {
		const char *key;
		double v;
	} nums[] = {
		{ "cpu_pct", p->pct },	  { "load_pct", p->load_pct },
		{ "events_per_s", p->events_per_s }, { "runs_per_s", p->runs_per_s },
		{ "run_ns", p->run_ns },  { "budget_left_pct", p->budget_pct },
		{ "duty", p->duty },	  { "empty_run_ns", cal->empty_ns },
		{ "calibration_ms", cal->ms },
	};

	if (!p->done)
		return;
	json__key(j, "predicted");
	json__begin_object(j);
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		json__key(j, nums[i].key);
		json__number(j, nums[i].v);
	}
	json__key(j, "uncounted");
	json__bool(j, p->uncounted);
	json__key(j, "how");
	json__string(j, p->how);
	json__key(j, "calibration");
	json__string(j, cal->measured ? "timed here" : cal->why);
	json__end_object(j);
	if (instead && p->duty < 1) {
		json__key(j, "instead");
		json__string(j, instead);
	}
}
