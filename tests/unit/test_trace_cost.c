// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The cost model without the kernel: the event counters read from a made-up
 * root (and from hostile or missing files), the prediction of a tool's cost
 * from two readings, and the budget shared among a window's tools.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect/rates.h"
#include "trace/cost.h"
#include "trace/trace.h"
#include "tap.h"

static char root[256];

static void put(const char *rel, const char *text)
{
	char path[512], dir[512], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	for (char *p = dir + strlen(root) + 1; (slash = strchr(p, '/')); p = slash + 1) {
		*slash = '\0';
		mkdir(dir, 0700);
		*slash = '/';
	}
	f = fopen(path, "w");
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
}

/* A host at one instant: n is added to every counter. */
static void host_at(unsigned long long n)
{
	char buf[1024];

	snprintf(buf, sizeof(buf),
		 "cpu  1 0 1 1 0 0 0 0 0 0\ncpu0 1 0 1 1 0 0 0 0 0 0\nintr %llu %llu 0 %llu\n"
		 "ctxt %llu\nbtime 1\nprocesses %llu\nprocs_running 1\nprocs_blocked 0\n"
		 "softirq %llu 0 0\n",
		 1000 + 3 * n, 500 + n / 2, n / 2, 2000 + 2 * n, 300 + n / 100, 4000 + 3 * n);
	put("/proc/stat", buf);
	/* vda is a disk (it has /sys/block/vda), vda1 a partition: its I/Os are vda's too */
	snprintf(buf, sizeof(buf),
		 " 253 0 vda %llu 0 0 0 %llu 0 0 0 0 0 0 0 0 0 0 0 0\n"
		 " 253 1 vda1 %llu 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
		 10 + n / 10, 20 + n / 10, 10 + n / 10);
	put("/proc/diskstats", buf);
	snprintf(buf, sizeof(buf),
		 "Ip: Forwarding InDiscards InHdrErrors\nIp: 1 %llu 0\n"
		 "Tcp: RtoAlgorithm RetransSegs OutRsts EstabResets InErrs\nTcp: 1 %llu 0 0 0\n"
		 "Udp: InDatagrams NoPorts InErrors\nUdp: 5 %llu 0\n",
		 n / 1000, n / 50, n / 1000);
	put("/proc/net/snmp", buf);
	snprintf(buf, sizeof(buf), "nr_free_pages 100\noom_kill %llu\n", n / 100000);
	put("/proc/vmstat", buf);
	snprintf(buf, sizeof(buf),
		 "rchar: 1\nwchar: 1\nsyscr: %llu\nsyscw: %llu\nread_bytes: 0\n"
		 "write_bytes: 0\ncancelled_write_bytes: 0\n",
		 n, n);
	put("/proc/100/io", buf);
	put("/proc/200/io", "syscr: 5\nsyscw: 5\n");
	/* a hostile name: the CPU times are counted after the last ')' */
	snprintf(buf, sizeof(buf),
		 "100 (a) R 1 (b) S 1 1 1 0 -1 0 0 0 0 0 %llu %llu 0 0 20 0 1 0 5 0 0\n",
		 7 + n / 1000, 3 + n / 1000);
	put("/proc/100/stat", buf);
}

static void test_counters(void)
{
	struct host_events a, b;
	unsigned all = (1u << HEV_NR) - 1;
	int pid = 100;

	host_at(0);
	is_int(host_events__read(root, all, &pid, 1, &a), 0, "counters: read from a root");
	b = a;
	host_at(10000);
	is_int(host_events__read(root, all, &pid, 1, &b), 0, "counters: read again");
	b.mono_ns = a.mono_ns + 1000000000; /* one second apart */
	is_int((long long)host_events__rate(&a, &b, HEV_CTXT), 20000, "rate: context switches");
	is_int((long long)host_events__rate(&a, &b, HEV_IRQ), 10000,
	       "rate: device interrupts, the numbered IRQs (not the total: the local timer's too)");
	is_int((long long)host_events__rate(&a, &b, HEV_SOFTIRQ), 30000, "rate: softirqs");
	is_int((long long)host_events__rate(&a, &b, HEV_FORK), 100, "rate: forks");
	is_int((long long)host_events__rate(&a, &b, HEV_BLOCK_IO), 2000,
	       "rate: block I/Os of whole disks only (the partition is not counted twice)");
	is_int((long long)host_events__rate(&a, &b, HEV_SYSCALL), 20000,
	       "rate: read and write syscalls of every process");
	is_int((long long)host_events__suspect_rate(&a, &b), 20000, "rate: the suspect's syscalls");
	is_int((long long)host_events__pid_rate(&a, &b, 0), 20000, "rate: ... that suspect's own");
	is_int((long long)(host_events__cpus(&a, &b, 0) * sysconf(_SC_CLK_TCK) + 0.5), 20,
	       "cpus: the suspect's ticks (utime + stime) over the second");
	ok(a.busy_read && b.busy_read && b.busy_ticks == a.busy_ticks,
	   "cpus: the host's busy ticks read from /proc/stat");
	is_int((long long)host_events__rate(&a, &b, HEV_TCP_RESEND), 200, "rate: retransmits");
	is_int((long long)host_events__rate(&a, &b, HEV_NET_DROP), 20, "rate: drops");

	/* hostile: garbage, a missing file, a counter going backwards */
	a = b; /* the reading at +10000 */
	host_at(0);
	put("/proc/stat", "ctxt banana\nintr\nsoftirq -5\n");
	{
		char p[512];

		snprintf(p, sizeof(p), "%s/proc/vmstat", root);
		unlink(p);
	}
	host_events__read(root, all, &pid, 1, &b);
	ok(!(b.have & HEV_BIT(HEV_CTXT)) && !(b.have & HEV_BIT(HEV_IRQ)) &&
		   !(b.have & HEV_BIT(HEV_SOFTIRQ)),
	   "hostile /proc/stat: no counter read from words or a bare key");
	ok(!(b.have & HEV_BIT(HEV_OOM)), "missing /proc/vmstat: no OOM counter");
	is_int((long long)host_events__rate(&a, &b, HEV_CTXT), -1, "a counter read once: no rate");
	b.mono_ns = a.mono_ns + 1000000000;
	is_int((long long)host_events__rate(&a, &b, HEV_SYSCALL), 0,
	       "a counter that went backwards (a process gone): no events, not a huge rate");
	is_int(host_events__read("/nonexistent-sonde-root", all, NULL, 0, &b), -ENOENT,
	       "no counter readable at all: -ENOENT");
	is_int(host_events__read("/nonexistent-sonde-root", 0, NULL, 0, &b), 0,
	       "nothing asked: nothing to fail");
}

static const struct trace_tool tool_sys = {
	.name = "sys", .hooks = { { HEV_SYSCALL, 2 } }, .run_cost = 3.0, .filters = 1,
	.attach = { ATTACH_TP_BTF, ATTACH_NR },
};
static const struct trace_tool tool_rare = {
	.name = "rare", .hooks = { { HEV_FORK, 3 } }, .run_cost = 5.0,
	.attach = { ATTACH_TP_BTF, ATTACH_NR },
};
static const struct trace_tool tool_sampler = {
	.name = "sampler", .runs_per_cpu_s = 49, .run_cost = 30.0, .uncounted = "nothing",
	.attach = { ATTACH_PERF_EVENT, ATTACH_NR },
};

static void test_predict(void)
{
	struct trace_calibration cal = { .done = 1, .measured = 1, .empty_ns = 100 };
	struct host_events a = { .mono_ns = 0, .have = HEV_BIT(HEV_SYSCALL) | HEV_BIT(HEV_FORK) };
	struct host_events b = a;
	struct trace_prediction p, q, r, *all[3];

	a.suspects_read = b.suspects_read = 1;
	b.mono_ns = 1000000000;
	b.n[HEV_SYSCALL] = 500000; /* 500k syscalls a second */
	b.n[HEV_FORK] = 100;
	b.suspect_syscalls = 100000;
	trace_cost__predict(&tool_sys, ATTACH_TP_BTF, &cal, &a, &b, 0, 2, &p);
	/* 500k x 2 runs x 300 ns = 0.3 s a second = 15% of 2 CPUs */
	ok(p.pct > 14.9 && p.pct < 15.1,
	   "predict: 500k syscalls/s x 2 runs x 300 ns = 15%% of 2 CPUs (%.2f)", p.pct);
	is_int((long long)p.runs_per_s, 1000000, "predict: program runs a second");
	ok(strstr(p.how, "500000 syscalls/s") != NULL, "predict: says how, with the rate");
	trace_cost__predict(&tool_sys, ATTACH_TP_BTF, &cal, &a, &b, 1, 2, &q);
	/* filtered: 100k x 2 x 300 + 400k x 2 x 120 = 0.06 + 0.096 s = 7.8% */
	ok(q.pct > 7.7 && q.pct < 7.9,
	   "predict filtered: the suspects' syscalls full, the others a filtered-out run (%.2f)",
	   q.pct);
	trace_cost__predict(&tool_sys, ATTACH_TRACEPOINT, &cal, &a, &b, 0, 2, &r);
	ok(r.pct > p.pct * 1.5, "predict: a classic tracepoint costs more than tp_btf");
	trace_cost__predict(&tool_rare, ATTACH_TP_BTF, &cal, &a, &b, 0, 2, &q);
	ok(q.pct < 0.01 && !q.uncounted, "predict: a rare event costs next to nothing");
	trace_cost__predict(&tool_sampler, ATTACH_PERF_EVENT, &cal, &a, &b, 0, 2, &r);
	ok(r.uncounted && r.runs_per_s == 98,
	   "predict: a sampler runs at its rate, uncounted noted");

	/* a counter not readable: uncounted, never a negative cost */
	b.have = 0;
	trace_cost__predict(&tool_sys, ATTACH_TP_BTF, &cal, &a, &b, 0, 2, &r);
	ok(r.uncounted && r.pct == 0, "predict: an unreadable counter is uncounted, not negative");

	/* the budget: 2% of the host shared cheapest first */
	b.have = HEV_BIT(HEV_SYSCALL) | HEV_BIT(HEV_FORK);
	trace_cost__predict(&tool_sys, ATTACH_TP_BTF, &cal, &a, &b, 0, 2, &p);
	trace_cost__predict(&tool_rare, ATTACH_TP_BTF, &cal, &a, &b, 0, 2, &q);
	trace_cost__predict(&tool_sampler, ATTACH_PERF_EVENT, &cal, &a, &b, 0, 2, &r);
	all[0] = &p;
	all[1] = &q;
	all[2] = &r;
	trace_cost__allocate(all, 3, 2, 10);
	ok(q.duty == 1 && r.duty == 1, "allocate: the cheap tools run the whole window");
	ok(p.duty > 0.12 && p.duty < 0.14,
	   "allocate: 15%% against what is left of 2%%: about 2%%/15%% of a 10 s window (%.3f)",
	   p.duty);
	trace_cost__allocate(all, 3, 2, 1);
	ok(p.duty > 0.12 && p.duty < 0.14,
	   "allocate: ... of a 1 s window: 0.13 s of 500k syscalls a second is enough (%.3f)",
	   p.duty);
	trace_cost__allocate(all, 3, 2, 0.3);
	ok(p.duty == 0, "allocate: ... of a 0.3 s window, under 0.05 s traced: not attached (%.3f)",
	   p.duty);
	b.n[HEV_SYSCALL] = 1000; /* 1000 syscalls a second: 5000 of them take longer than 0.25 s */
	b.suspect_syscalls = 0;
	trace_cost__predict(&tool_sys, ATTACH_TP_BTF, &cal, &a, &b, 0, 2, &p);
	p.pct = p.load_pct = 15; /* as costly as above, but its events are few */
	trace_cost__allocate(all, 3, 2, 1);
	ok(p.duty == 0,
	   "allocate: a tool of 1000 events a second needs a quarter second: not attached (%.3f)",
	   p.duty);
	trace_cost__allocate(all, 3, 2, 10);
	ok(p.duty > 0.12 && p.duty < 0.14, "allocate: ... which 0.13 of a 10 s window has (%.3f)",
	   p.duty);
	b.n[HEV_SYSCALL] = 500000;
	b.suspect_syscalls = 100000;
	trace_cost__predict(&tool_sys, ATTACH_TP_BTF, &cal, &a, &b, 0, 2, &p);
	trace_cost__allocate(all, 3, 5, 10);
	ok(p.duty > 0.3 && p.duty < 0.34,
	   "allocate: 15%% against about 5%% left: a third of the window (%.3f)", p.duty);
	trace_cost__allocate(all, 3, 20, 10);
	ok(p.duty == 1, "allocate: a budget that fits runs it whole");
	trace_cost__allocate(all, 3, 0, 10);
	ok(p.duty == 0 && q.duty == 1 && r.duty == 0,
	   "allocate: no budget left: only what is under 0.01%% of the host runs");
}

/* What a tool adds to the work it traces: over the busy CPUs, and over a suspect's own. */
static void test_load(void)
{
	struct trace_calibration cal = { .done = 1, .measured = 1, .empty_ns = 100 };
	struct host_events a = { .mono_ns = 0, .have = HEV_BIT(HEV_SYSCALL) }, b;
	struct trace_prediction p, q, r, *all[2] = { &p, &q };
	long hz = sysconf(_SC_CLK_TCK);

	a.busy_read = 1;
	a.busy_ticks = 1000;
	a.suspects_read = 1;
	a.pid_syscalls_read = a.pid_cpu_read = 1;
	a.pid_cpu_ticks[0] = 500;
	b = a;
	b.mono_ns = 1000000000;
	b.n[HEV_SYSCALL] = 500000;
	b.suspect_syscalls = b.pid_syscalls[0] = 100000;
	b.busy_ticks = a.busy_ticks + (uint64_t)hz / 2;    /* half a CPU busy */
	b.pid_cpu_ticks[0] = a.pid_cpu_ticks[0] + (uint64_t)hz / 4; /* the suspect: a quarter */
	ok(host_events__cpus(&a, &b, -1) > 0.49 && host_events__cpus(&a, &b, -1) < 0.51,
	   "cpus: the host's busy CPUs between two readings");
	ok(host_events__cpus(&a, &b, 0) > 0.24 && host_events__cpus(&a, &b, 0) < 0.26,
	   "cpus: the suspect's");
	is_int((long long)host_events__cpus(&a, &b, 1), -1, "cpus: a suspect not read: unknown");
	trace_cost__predict(&tool_sys, ATTACH_TP_BTF, &cal, &a, &b, 0, 2, &p);
	/* 0.3 CPU-s a second: 15% of 2 CPUs, 60% more for the half CPU of work that pays it */
	ok(p.pct > 14.9 && p.pct < 15.1 && p.load_pct > 59.9 && p.load_pct < 60.1,
	   "load: the runs over the busy CPUs, not the host's (%.2f%%, %.2f%%)", p.pct, p.load_pct);
	trace_cost__predict(&tool_sys, ATTACH_TP_BTF, &cal, &a, &b, 1, 2, &q);
	/* the others' filtered-out runs 0.096 s over 0.5 CPU, the suspect's 0.06 s over its 0.25 */
	ok(q.load_pct > 43.1 && q.load_pct < 43.3,
	   "load filtered: the suspect pays its runs on its own CPU time (%.2f%%)", q.load_pct);
	ok(q.events_per_s > 99999 && q.events_per_s < 100001,
	   "load filtered: the events it records are the suspect's (%.0f/s)", q.events_per_s);
	b.pid_cpu_ticks[0] = a.pid_cpu_ticks[0];
	trace_cost__predict(&tool_sys, ATTACH_TP_BTF, &cal, &a, &b, 1, 2, &r);
	ok(r.load_pct > q.load_pct && r.load_pct < 1000,
	   "load: a suspect under one tick of CPU is weighed against one tick (%.0f%%)",
	   r.load_pct);
	b.busy_read = 0;
	trace_cost__predict(&tool_sys, ATTACH_TP_BTF, &cal, &a, &b, 0, 2, &r);
	ok(r.load_pct > 14.9 && r.load_pct < 15.1,
	   "load: the host's busy time unreadable: its CPUs (%.2f%%)", r.load_pct);
	/* the budget goes by the load: 2% does not hold a tool of 15% of the host, 60% of its work */
	b.busy_read = 1;
	b.pid_cpu_ticks[0] = a.pid_cpu_ticks[0] + (uint64_t)hz / 4;
	trace_cost__predict(&tool_sys, ATTACH_TP_BTF, &cal, &a, &b, 0, 2, &p);
	trace_cost__predict(&tool_rare, ATTACH_TP_BTF, &cal, &a, &b, 0, 2, &q);
	trace_cost__allocate(all, 2, 2, 10);
	ok(p.duty > 0.03 && p.duty < 0.04,
	   "allocate: 2%% against a load of 60%%: a thirtieth of the window (%.3f)", p.duty);
	ok(strstr(p.how, "more CPU time for the work it traces") != NULL,
	   "predict: says how, with the load");
}

/* A guard period: budget, sonde's own and its reserve, then (pct, admitted, burst) per tool. */
static void guard_set(struct trace_guard *g, double budget, double own, double reserved, size_t n,
		      const double (*tools)[3])
{
	memset(g, 0, sizeof(*g));
	g->budget_pct = budget;
	g->own_pct = own;
	g->own_reserved_pct = reserved;
	g->n = n;
	for (size_t i = 0; i < n; i++) {
		g->tool[i].pct = tools[i][0];
		g->tool[i].admitted_pct = tools[i][1];
		g->tool[i].burst = tools[i][2] != 0;
	}
}

/* The overhead guard judges each tool by its own cost against what it was admitted for. */
static void test_guard(void)
{
	static const double within[][3] = { { 0.5, 0.6, 0 }, { 0.2, 0.3, 0 } };
	static const double one_over[][3] = { { 1.5, 0.6, 0 }, { 0.2, 0.3, 0 } };
	static const double two_over[][3] = { { 1.5, 0.6, 0 }, { 2.0, 0.3, 0 }, { 0.1, 0.3, 0 } };
	static const double a_little[][3] = { { 0.65, 0.6, 0 } };
	static const double burst[][3] = { { 3.0, 3.3, 1 }, { 0.2, 0.3, 0 } };
	static const double gone[][3] = { { -1, 0.3, 0 }, { 0.2, 0.3, 0 } };
	static const double burst_over[][3] = { { 10.6, 1.11, 1 }, { 0.91, 0.13, 0 } };
	struct trace_guard g;

	/* issue 32: sonde's own sampling of 10,000 processes went over; the tools did not */
	guard_set(&g, 2, 3.3, 1.5, 2, within);
	is_int(trace_cost__guard(&g), 0,
	       "sonde's own over the budget, its tools within their admission: none is cut");
	ok(g.spend_pct > 2.19 && g.spend_pct < 2.21 && g.capacity_pct == 2,
	   "the spend counts sonde's own up to its reserve (%.2f%% of a 2%% capacity)", g.spend_pct);
	guard_set(&g, 2, 3.3, 0, 2, within);
	is_int(trace_cost__guard(&g), 0, "nothing reserved: sonde's own counts for nothing");
	guard_set(&g, 2, 0.4, 1.5, 2, one_over);
	is_int(trace_cost__guard(&g), 1, "a tool over its admission, the spend over the budget");
	ok(g.tool[0].cut && !g.tool[1].cut, "it is the one cut, the other stays");
	ok(g.spend_pct > 2.09 && g.spend_pct < 2.11,
	   "sonde's own under its reserve counts as it is (%.2f%%)", g.spend_pct);
	guard_set(&g, 2, 0.4, 0.2, 2, one_over);
	is_int(trace_cost__guard(&g), 0, "over its admission, but the spend fits: it stays");
	guard_set(&g, 2, 1, 1, 3, two_over);
	is_int(trace_cost__guard(&g), 2, "two tools over: both go in the same period");
	ok(g.tool[0].cut && g.tool[1].cut && !g.tool[2].cut, "and the one within its admission stays");
	/* 1 + 0.65 = 1.65 over 1: 0.05% over its admission cannot bring back 0.65% */
	guard_set(&g, 1, 1, 1, 1, a_little);
	is_int(trace_cost__guard(&g), 0,
	       "a tool a little over its admission, the overrun mostly sonde's reserve: it stays");
	guard_set(&g, 2, 1, 1, 2, burst);
	is_int(trace_cost__guard(&g), 0, "a duty cycle's burst within its admission: planned, kept");
	ok(g.capacity_pct > 5.29 && g.capacity_pct < 5.31,
	   "the capacity holds the burst (%.2f%%)", g.capacity_pct);
	/* offcputime's duty cycle 10x over, runqlat 7x: the cycle's room goes with it */
	guard_set(&g, 0.5, 0.4, 0, 2, burst_over);
	is_int(trace_cost__guard(&g), 2, "a duty cycle over its burst and a tool over: both at once");
	guard_set(&g, 0.1, 1, 1, 2, gone);
	is_int(trace_cost__guard(&g), 0, "a tool already detached is not weighed");
	ok(g.spend_pct > 1.19 && g.spend_pct < 1.21, "nor counted in the spend (%.2f%%)",
	   g.spend_pct);
}

int main(void)
{
	snprintf(root, sizeof(root), "/tmp/sonde-test-cost.XXXXXX");
	if (!mkdtemp(root)) {
		printf("1..0 # SKIP cannot make a temporary directory\n");
		return 0;
	}
	put("/sys/block/vda/size", "1000\n");
	test_counters();
	test_predict();
	test_load();
	test_guard();
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		if (system(cmd))
			printf("# could not remove %s\n", root);
	}
	return tap_done();
}
