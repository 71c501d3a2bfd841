// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * runqlat: how long runnable threads wait for a CPU. A thread is stamped when
 * it becomes runnable (wakeup, or preempted while still running) and measured
 * when it is switched in. Aggregated in the kernel: a log2 histogram per
 * interval of the window and per CPU (summed by user space into the window's
 * histogram and its intervals) and totals per thread.
 *
 * Three variants of the same logic: tp_btf (typed arguments, cheapest), raw_tp
 * (same arguments, read through CO-RE), classic tracepoint (the event's record:
 * pids only, no task pointers).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#define SONDE_INTERVALS
#include "sonde.bpf.h"
#include "runqlat.h"

#define TASK_RUNNING 0

const volatile __u32 targ_self_tgid = 0; /* sonde: its own waits are left out */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, RUNQLAT_MAX_TASKS);
	__type(key, __u32);
	__type(value, __u64);
} enqueued SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SONDE_MAX_INTERVALS); /* one histogram per interval */
	__type(key, __u32);
	__type(value, struct runqlat_hist);
} hist SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, RUNQLAT_MAX_TASKS);
	__type(key, __u32);
	__type(value, struct runqlat_task);
} tasks SEC(".maps");

/* Older kernels call the field "state", newer ones "__state". */
struct task_struct___old {
	long state;
} __attribute__((preserve_access_index));

static __always_inline long task_state(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state);
	return BPF_CORE_READ((struct task_struct___old *)t, state);
}

static __always_inline void stamp(__u32 pid)
{
	__u64 ts;

	if (!pid)
		return;
	ts = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&enqueued, &pid, &ts, BPF_ANY))
		sonde_count(SONDE_STAT_DROPS);
}

static __always_inline void measure(__u32 pid, __u32 tgid, const char *comm_src, int comm_kernel)
{
	struct runqlat_task zero = {}, *t;
	struct runqlat_hist *h;
	__u64 *tsp, delta, slot, now;
	__u32 k;

	if (!pid)
		return;
	tsp = bpf_map_lookup_elem(&enqueued, &pid);
	if (!tsp)
		return;
	now = bpf_ktime_get_ns();
	delta = now - *tsp;
	bpf_map_delete_elem(&enqueued, &pid);
	if ((__s64)delta < 0)
		return;
	k = sonde_interval(now);
	h = bpf_map_lookup_elem(&hist, &k);
	if (h) {
		slot = sonde_log2(delta / 1000);
		if (slot >= RUNQLAT_SLOTS)
			slot = RUNQLAT_SLOTS - 1;
		h->slots[slot]++;
		h->count++;
		h->total_ns += delta;
	}
	if (tgid && tgid == targ_self_tgid)
		return;
	t = bpf_map_lookup_elem(&tasks, &pid);
	if (!t) {
		zero.tgid = tgid;
		if (comm_kernel)
			bpf_probe_read_kernel_str(zero.comm, sizeof(zero.comm), comm_src);
		else
			__builtin_memcpy(zero.comm, comm_src, sizeof(zero.comm));
		t = sonde_lookup_or_init(&tasks, &pid, &zero);
		if (!t)
			return;
	}
	__sync_fetch_and_add(&t->count, 1);
	__sync_fetch_and_add(&t->total_ns, delta);
	if (delta > t->max_ns)
		t->max_ns = delta;
}

static __always_inline void on_switch(struct task_struct *prev, struct task_struct *next)
{
	sonde_count(SONDE_STAT_RUNS);
	if (task_state(prev) == TASK_RUNNING)
		stamp(BPF_CORE_READ(prev, pid));
	measure(BPF_CORE_READ(next, pid), BPF_CORE_READ(next, tgid), (const char *)next->comm, 1);
}

static __always_inline void on_wakeup(struct task_struct *p)
{
	sonde_count(SONDE_STAT_RUNS);
	stamp(BPF_CORE_READ(p, pid));
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(wakeup_btf, struct task_struct *p)
{
	on_wakeup(p);
	return 0;
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(wakeup_new_btf, struct task_struct *p)
{
	on_wakeup(p);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(switch_btf, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	on_switch(prev, next);
	return 0;
}

SEC("raw_tp/sched_wakeup")
int BPF_PROG(wakeup_raw, struct task_struct *p)
{
	on_wakeup(p);
	return 0;
}

SEC("raw_tp/sched_wakeup_new")
int BPF_PROG(wakeup_new_raw, struct task_struct *p)
{
	on_wakeup(p);
	return 0;
}

SEC("raw_tp/sched_switch")
int BPF_PROG(switch_raw, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	on_switch(prev, next);
	return 0;
}

SEC("tp/sched/sched_wakeup")
int wakeup_tp(struct trace_event_raw_sched_wakeup_template *ctx)
{
	sonde_count(SONDE_STAT_RUNS);
	stamp(ctx->pid);
	return 0;
}

SEC("tp/sched/sched_wakeup_new")
int wakeup_new_tp(struct trace_event_raw_sched_wakeup_template *ctx)
{
	sonde_count(SONDE_STAT_RUNS);
	stamp(ctx->pid);
	return 0;
}

SEC("tp/sched/sched_switch")
int switch_tp(struct trace_event_raw_sched_switch *ctx)
{
	sonde_count(SONDE_STAT_RUNS);
	if (ctx->prev_state == TASK_RUNNING)
		stamp(ctx->prev_pid);
	/* The record has no tgid: 0 means unknown (user space fills it from /proc). */
	measure(ctx->next_pid, 0, ctx->next_comm, 0);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
