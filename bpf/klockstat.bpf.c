// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * klockstat: kernel lock contention. lock:contention_begin(lock, flags) fires
 * when a thread fails to take a kernel lock at once (spinlock and rwlock slow
 * paths, rwsem, mutex, semaphore, percpu-rwsem, rt-mutex); contention_end(lock,
 * ret) when it got it (or gave up: ret != 0). The wait between the two is
 * counted per lock type (the flags), per caller (a short kernel stack) and
 * per process, with a log2 histogram per type. Hold times are not visible here.
 *
 * A thread waits for one lock at a time; a begin for another lock while it
 * waits (a spinlock inside the mutex slow path, an interrupt handler spinning
 * on the interrupted thread's time) is nested: counted, not measured. A second
 * begin for the same lock (a mutex that spun, then sleeps) keeps the first
 * stamp and takes the new flags. Keyed by thread id; the idle task (tid 0 on
 * every CPU) by CPU instead.
 *
 * Variants: tp_btf, raw_tp, classic tracepoint (its record has the same two
 * arguments).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "sonde.bpf.h"
#include "klockstat.h"

const volatile __u32 targ_self_tgid = 0; /* sonde: its own waits are left out */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KLOCK_MAX_WAITERS);
	__type(key, __u32);
	__type(value, struct klock_wait);
} waiting SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, KLOCK_MAX_STACKS);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, KLOCK_STACK_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

/* Shared, with atomics: contended waits are slow paths already. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, KLOCK_TYPES);
	__type(key, __u32);
	__type(value, struct klock_type_stat);
} by_type SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KLOCK_MAX_CALLERS);
	__type(key, struct klock_caller_key);
	__type(value, struct klock_stat);
} by_caller SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KLOCK_MAX_PROCS);
	__type(key, __u32);
	__type(value, struct klock_proc);
} by_proc SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KLOCK_CNT_NR);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

static __always_inline void count(__u32 which)
{
	__u64 *v = bpf_map_lookup_elem(&counters, &which);

	if (v)
		(*v)++;
}

static __always_inline __u32 waiter_key(__u32 tid)
{
	return tid ? tid : 0x80000000U | bpf_get_smp_processor_id();
}

static __always_inline void add(struct klock_stat *s, __u64 d)
{
	__sync_fetch_and_add(&s->count, 1);
	__sync_fetch_and_add(&s->total_ns, d);
	if (d > s->max_ns)
		s->max_ns = d; /* racy by design: a max lost to a race is off by one wait */
}

static __always_inline void on_begin(void *ctx, __u64 lock, __u32 flags)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 key = waiter_key((__u32)pid_tgid);
	struct klock_wait w = {}, *p;

	sonde_count(SONDE_STAT_RUNS);
	if ((__u32)(pid_tgid >> 32) == targ_self_tgid && targ_self_tgid)
		return;
	if (!sonde_traced((__u32)(pid_tgid >> 32)))
		return;
	p = bpf_map_lookup_elem(&waiting, &key);
	if (p && p->start_ns) {
		if (p->lock == lock)
			p->flags = flags; /* mutex: spun, now sleeps: one wait */
		else
			count(KLOCK_NESTED);
		return;
	}
	w.start_ns = bpf_ktime_get_ns();
	w.lock = lock;
	w.flags = flags;
	w.stackid = bpf_get_stackid(ctx, &stacks, 0);
	if (bpf_map_update_elem(&waiting, &key, &w, BPF_ANY))
		sonde_count(SONDE_STAT_DROPS);
}

static __always_inline void on_end(__u64 lock)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid(), d;
	__u32 key = waiter_key((__u32)pid_tgid), tgid = (__u32)(pid_tgid >> 32), t, slot;
	struct klock_caller_key ck = {};
	struct klock_proc zero = {}, *pp;
	struct klock_type_stat *ts;
	struct klock_stat *cs, czero = {};
	struct klock_wait *p;

	sonde_count(SONDE_STAT_RUNS);
	if (!sonde_traced(tgid))
		return;
	p = bpf_map_lookup_elem(&waiting, &key);
	if (!p || !p->start_ns || p->lock != lock) {
		if (!(tgid == targ_self_tgid && targ_self_tgid))
			count(KLOCK_UNMATCHED);
		return;
	}
	d = bpf_ktime_get_ns() - p->start_ns;
	t = p->flags & (KLOCK_TYPES - 1);
	ck.stackid = p->stackid;
	ck.flags = t;
	bpf_map_delete_elem(&waiting, &key); /* threads come and go: keep the map to waiters */

	ts = bpf_map_lookup_elem(&by_type, &t);
	if (ts) {
		__sync_fetch_and_add(&ts->count, 1);
		__sync_fetch_and_add(&ts->total_ns, d);
		if (d > ts->max_ns)
			ts->max_ns = d;
		slot = sonde_log2(d);
		if (slot >= KLOCK_SLOTS)
			slot = KLOCK_SLOTS - 1;
		__sync_fetch_and_add(&ts->slots[slot], 1);
	}
	if (ck.stackid < 0)
		count(KLOCK_NO_STACK);
	cs = sonde_lookup_or_init(&by_caller, &ck, &czero);
	if (cs)
		add(cs, d);
	pp = bpf_map_lookup_elem(&by_proc, &tgid);
	if (!pp) {
		bpf_get_current_comm(zero.comm, sizeof(zero.comm));
		pp = sonde_lookup_or_init(&by_proc, &tgid, &zero);
	}
	if (pp)
		add(&pp->s, d);
}

SEC("tp_btf/contention_begin")
int BPF_PROG(begin_btf, void *lock, unsigned int flags)
{
	on_begin(ctx, (__u64)lock, flags);
	return 0;
}

SEC("tp_btf/contention_end")
int BPF_PROG(end_btf, void *lock, int ret)
{
	on_end((__u64)lock);
	return 0;
}

SEC("raw_tp/contention_begin")
int BPF_PROG(begin_raw, void *lock, unsigned int flags)
{
	on_begin(ctx, (__u64)lock, flags);
	return 0;
}

SEC("raw_tp/contention_end")
int BPF_PROG(end_raw, void *lock, int ret)
{
	on_end((__u64)lock);
	return 0;
}

SEC("tp/lock/contention_begin")
int begin_tp(struct trace_event_raw_contention_begin *ctx)
{
	on_begin(ctx, (__u64)ctx->lock_addr, ctx->flags);
	return 0;
}

SEC("tp/lock/contention_end")
int end_tp(struct trace_event_raw_contention_end *ctx)
{
	on_end((__u64)ctx->lock_addr);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
