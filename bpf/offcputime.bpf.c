// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * offcputime: where threads block, and for how long. At sched_switch the
 * thread going off CPU (still "current" there, so the stack helpers walk its
 * stacks) is stamped with the time and its (tgid, pid, comm, kernel stack,
 * user stack) when it blocks (state not TASK_RUNNING: sleeps, I/O, locks;
 * a preempted thread waits for a CPU, which is runqlat's business). When it
 * is switched back in, the time off CPU is added to that key.
 *
 * Each counted block's duration also goes into a log2 histogram of the
 * interval of the window it ended in (per CPU), for the heat map.
 *
 * Everything needed at switch-in was taken from "current" at switch-out, so
 * the three variants (tp_btf, raw_tp, classic tracepoint) share the logic and
 * differ only in how they read prev's state and next's pid.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#define SONDE_INTERVALS
#include "sonde.bpf.h"
#include "offcputime.h"

#define EFAULT 14
#define TASK_RUNNING 0
#define PF_KTHREAD 0x00200000

const volatile __u32 targ_self_tgid = 0; /* sonde: its own blocking is left out */
const volatile __u64 targ_min_ns = OFFCPU_DEFAULT_MIN_US * 1000ULL;

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, OFFCPU_MAX_STACKS);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, OFFCPU_STACK_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OFFCPU_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct offcpu_start);
} starts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OFFCPU_MAX_KEYS);
	__type(key, struct offcpu_key);
	__type(value, struct offcpu_val);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, OFFCPU_STAT_NR);
	__type(key, __u32);
	__type(value, __u64);
} ostats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SONDE_MAX_INTERVALS);
	__type(key, __u32);
	__type(value, struct offcpu_hist);
} hist SEC(".maps");

/* A scratch start record: too big for the 512-byte stack with the key beside it. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct offcpu_start);
} scratch SEC(".maps");

static __always_inline void ocount(__u32 which, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&ostats, &which);

	if (v)
		*v += n;
}

struct task_struct___old {
	long state;
} __attribute__((preserve_access_index));

static __always_inline long task_state(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state);
	return BPF_CORE_READ((struct task_struct___old *)t, state);
}

/* prev (== current) blocks: stamp it with its stacks. */
static __always_inline void switch_out(void *ctx, long prev_state)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct offcpu_start *s;
	struct task_struct *task;
	__u32 pid = (__u32)id, tgid = id >> 32, zero = 0;

	if (!pid || prev_state == TASK_RUNNING || tgid == targ_self_tgid || !sonde_traced(tgid))
		return;
	s = bpf_map_lookup_elem(&scratch, &zero);
	if (!s)
		return;
	ocount(OFFCPU_BLOCKS, 1);
	s->key.tgid = tgid;
	s->key.pid = pid;
	bpf_get_current_comm(s->key.comm, sizeof(s->key.comm));
	s->key.kstack = bpf_get_stackid(ctx, &stacks, 0);
	s->key.ustack = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);
	if (s->key.kstack < 0)
		ocount(OFFCPU_KSTACK_LOST, 1);
	if (s->key.ustack < 0) {
		task = (struct task_struct *)bpf_get_current_task();
		if (s->key.ustack != -EFAULT)
			ocount(OFFCPU_USTACK_LOST, 1);
		else if (!(BPF_CORE_READ(task, flags) & PF_KTHREAD))
			ocount(OFFCPU_USTACK_FAULT, 1);
	}
	s->ts = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&starts, &pid, s, BPF_ANY)) {
		ocount(OFFCPU_STARTS_DROPPED, 1);
		sonde_count(SONDE_STAT_DROPS);
	}
}

/* next comes back: add its time off CPU to the key it was stamped with. */
static __always_inline void switch_in(__u32 pid)
{
	struct offcpu_val zero = {}, *v;
	struct offcpu_start *s;
	struct offcpu_hist *h;
	__u64 delta, now, slot;
	__u32 iv;

	if (!pid)
		return;
	s = bpf_map_lookup_elem(&starts, &pid);
	if (!s)
		return;
	now = bpf_ktime_get_ns();
	delta = now - s->ts;
	if ((__s64)delta < 0)
		goto out;
	if (delta < targ_min_ns) {
		ocount(OFFCPU_SHORT, 1);
		goto out;
	}
	iv = sonde_interval(now);
	h = sonde_iv_ns ? bpf_map_lookup_elem(&hist, &iv) : NULL;
	if (h) {
		slot = sonde_log2(delta / 1000);
		if (slot >= OFFCPU_SLOTS)
			slot = OFFCPU_SLOTS - 1;
		h->slots[slot]++; /* per CPU */
	}
	v = bpf_map_lookup_elem(&counts, &s->key);
	if (!v) {
		bpf_map_update_elem(&counts, &s->key, &zero, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&counts, &s->key);
		if (!v) {
			ocount(OFFCPU_KEYS_DROPPED, 1);
			ocount(OFFCPU_LOST_NS, delta);
			sonde_count(SONDE_STAT_DROPS);
			goto out;
		}
	}
	ocount(OFFCPU_COUNTED, 1);
	__sync_fetch_and_add(&v->total_ns, delta);
	__sync_fetch_and_add(&v->count, 1);
out:
	bpf_map_delete_elem(&starts, &pid);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(switch_btf, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	sonde_count(SONDE_STAT_RUNS);
	switch_out(ctx, task_state(prev));
	switch_in(BPF_CORE_READ(next, pid));
	return 0;
}

SEC("raw_tp/sched_switch")
int BPF_PROG(switch_raw, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	sonde_count(SONDE_STAT_RUNS);
	switch_out(ctx, task_state(prev));
	switch_in(BPF_CORE_READ(next, pid));
	return 0;
}

SEC("tp/sched/sched_switch")
int switch_tp(struct trace_event_raw_sched_switch *ctx)
{
	sonde_count(SONDE_STAT_RUNS);
	/*
	 * Not ctx->prev_state: the record folds preemption into it
	 * (TASK_REPORT_MAX, whose value changed across kernels). prev is
	 * current here, so its state is read as in the other variants.
	 */
	switch_out(ctx, task_state((struct task_struct *)bpf_get_current_task()));
	switch_in(ctx->next_pid);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
