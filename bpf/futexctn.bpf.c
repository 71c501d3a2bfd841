// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * futexctn: time threads spend blocked in futex waits (user-space lock
 * contention: a pthread mutex taken by another thread ends in futex(WAIT)),
 * per process and per (process, futex address), with log2 histograms.
 *
 * Hooks raw_syscalls sys_enter/sys_exit: every syscall of the host, so the
 * first thing each program does is compare the syscall number with the futex
 * ones (set from the build host's headers) and return, counting the run only
 * (the cost estimate needs every run). At exit the number is
 * read from the saved registers (x86 orig_ax, arm64 syscallno, through CO-RE);
 * where neither exists the thread's in-flight slot is looked up instead.
 *
 * Waits counted: futex(2) FUTEX_WAIT, FUTEX_WAIT_BITSET, FUTEX_WAIT_REQUEUE_PI,
 * FUTEX_LOCK_PI, FUTEX_LOCK_PI2; futex_waitv(2) (keyed by its first futex) and
 * futex_wait(2) (Linux 6.7+) when the headers know them. A wait is "lock-like"
 * when it is a PI lock, or a FUTEX_WAIT(_BITSET) expecting the value 2: glibc's
 * lll_lock_wait (pthread_mutex_lock of a contended normal mutex) waits with 2;
 * condition variables, semaphores and idle worker pools wait with other values.
 *
 * Variants: tp_btf, raw_tp, classic tracepoint (records with id and args).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "sonde.bpf.h"
#include "futexctn.h"

#define EINTR 4
#define EAGAIN 11
#define ETIMEDOUT 110

const volatile __u32 targ_self_tgid = 0;
const volatile __s32 targ_nr_futex = -1;
const volatile __s32 targ_nr_futex_waitv = -1;
const volatile __s32 targ_nr_futex_wait = -1;

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, FUTEXCTN_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct futexctn_inflight);
} inflight SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct futexctn_hist);
} hist SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FUTEXCTN_MAX_PROCS);
	__type(key, __u32);
	__type(value, struct futexctn_proc);
} by_proc SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FUTEXCTN_MAX_LOCKS);
	__type(key, struct futexctn_lock_key);
	__type(value, struct futexctn_stat);
} by_lock SEC(".maps");

static __always_inline int is_futex(long id)
{
	return id == targ_nr_futex || id == targ_nr_futex_waitv || id == targ_nr_futex_wait;
}

/* uaddr: the futex; arg1/arg2: futex(2)'s op and val (ignored for the others). */
static __always_inline void on_enter(long id, __u64 uaddr, __u64 op, __u64 val)
{
	struct futexctn_inflight f = {};
	__u64 pid_tgid;
	__u32 tid, cmd;

	pid_tgid = bpf_get_current_pid_tgid();
	if ((__u32)(pid_tgid >> 32) == targ_self_tgid && targ_self_tgid)
		return;
	if (!sonde_traced((__u32)(pid_tgid >> 32)))
		return;
	if (id == targ_nr_futex) {
		cmd = (__u32)op & FUTEX_CMD_MASK;
		if (cmd == FUTEX_CMD_LOCK_PI || cmd == FUTEX_CMD_LOCK_PI2)
			f.kind = 1;
		else if (cmd == FUTEX_CMD_WAIT || cmd == FUTEX_CMD_WAIT_BITSET)
			f.kind = (__u32)val == 2;
		else if (cmd != FUTEX_CMD_WAIT_REQUEUE_PI)
			return; /* a wake, requeue, ...: does not block */
		f.uaddr = uaddr;
	} else if (id == targ_nr_futex_waitv) {
		/* struct futex_waitv { u64 val; u64 uaddr; u32 flags; u32 reserved; }[nr] */
		bpf_probe_read_user(&f.uaddr, sizeof(f.uaddr), (void *)(uaddr + 8));
	} else {
		f.uaddr = uaddr;
	}
	tid = (__u32)pid_tgid;
	f.start_ns = bpf_ktime_get_ns();
	/* LRU: a full map evicts the stalest slot (a thread long gone) rather than fail. */
	bpf_map_update_elem(&inflight, &tid, &f, BPF_ANY);
}

static __always_inline void add(struct futexctn_stat *s, __u64 d, __u32 kind, int err)
{
	__sync_fetch_and_add(&s->count, 1);
	__sync_fetch_and_add(&s->total_ns, d);
	if (d > s->max_ns)
		s->max_ns = d;
	if (kind) {
		__sync_fetch_and_add(&s->lock_count, 1);
		__sync_fetch_and_add(&s->lock_ns, d);
	}
	if (err)
		__sync_fetch_and_add(&s->errors, 1);
}

static __always_inline void on_exit(long ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid(), d, slot;
	__u32 tid = (__u32)pid_tgid, k = 0;
	struct futexctn_lock_key lk = {};
	struct futexctn_proc zero = {}, *pp;
	struct futexctn_stat szero = {}, *ls;
	struct futexctn_inflight *f;
	struct futexctn_hist *h;
	int err;

	f = bpf_map_lookup_elem(&inflight, &tid);
	if (!f)
		return;
	d = bpf_ktime_get_ns() - f->start_ns;
	lk.tgid = (__u32)(pid_tgid >> 32);
	lk.uaddr = f->uaddr;
	k = f->kind;
	bpf_map_delete_elem(&inflight, &tid);
	err = ret < 0 && ret != -EAGAIN && ret != -ETIMEDOUT && ret != -EINTR;

	slot = sonde_log2(d / 1000);
	if (slot >= FUTEXCTN_SLOTS)
		slot = FUTEXCTN_SLOTS - 1;
	{
		__u32 zero_key = 0;

		h = bpf_map_lookup_elem(&hist, &zero_key);
		if (h) {
			h->slots[slot]++;
			if (k)
				h->lock_slots[slot]++;
		}
	}
	pp = bpf_map_lookup_elem(&by_proc, &lk.tgid);
	if (!pp) {
		bpf_get_current_comm(zero.comm, sizeof(zero.comm));
		pp = sonde_lookup_or_init(&by_proc, &lk.tgid, &zero);
	}
	if (pp)
		add(&pp->s, d, k, err);
	ls = sonde_lookup_or_init(&by_lock, &lk, &szero);
	if (ls)
		add(ls, d, k, err);
}

static __always_inline void on_exit_regs(struct pt_regs *regs, long ret)
{
	long id = sonde_exit_syscall_id(regs);

	sonde_count(SONDE_STAT_RUNS); /* every run, for the cost estimate */
	if (id != -1 && !is_futex(id))
		return;
	on_exit(ret);
}

static __always_inline void on_enter_regs(struct pt_regs *regs, long id)
{
	if (!is_futex(id)) {
		sonde_count(SONDE_STAT_RUNS); /* every run, for the cost estimate */
		return;
	}
	sonde_count(SONDE_STAT_RUNS);
	on_enter(id, PT_REGS_PARM1_CORE_SYSCALL(regs), PT_REGS_PARM2_CORE_SYSCALL(regs),
		 PT_REGS_PARM3_CORE_SYSCALL(regs));
}

SEC("tp_btf/sys_enter")
int BPF_PROG(sys_enter_btf, struct pt_regs *regs, long id)
{
	on_enter_regs(regs, id);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(sys_exit_btf, struct pt_regs *regs, long ret)
{
	on_exit_regs(regs, ret);
	return 0;
}

SEC("raw_tp/sys_enter")
int BPF_PROG(sys_enter_raw, struct pt_regs *regs, long id)
{
	on_enter_regs(regs, id);
	return 0;
}

SEC("raw_tp/sys_exit")
int BPF_PROG(sys_exit_raw, struct pt_regs *regs, long ret)
{
	on_exit_regs(regs, ret);
	return 0;
}

SEC("tp/raw_syscalls/sys_enter")
int sys_enter_tp(struct trace_event_raw_sys_enter *ctx)
{
	long id = ctx->id;

	sonde_count(SONDE_STAT_RUNS);
	if (!is_futex(id))
		return 0;
	on_enter(id, ctx->args[0], ctx->args[1], ctx->args[2]);
	return 0;
}

SEC("tp/raw_syscalls/sys_exit")
int sys_exit_tp(struct trace_event_raw_sys_exit *ctx)
{
	sonde_count(SONDE_STAT_RUNS);
	if (!is_futex(ctx->id))
		return 0;
	on_exit(ctx->ret);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
