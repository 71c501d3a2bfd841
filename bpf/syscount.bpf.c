// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * syscount: every system call, counted in the kernel per process and per
 * syscall number, with its errors and the time spent in it (entry to exit,
 * blocking included), and every failure counted per (syscall, errno) and per
 * (process, syscall, errno).
 *
 * This hooks every syscall of the host, so the per-event work is kept to the
 * minimum: entry stamps the thread's in-flight slot (an LRU hash written in
 * place once the thread has one); exit adds to per-CPU counters (an array by
 * syscall number and a per-CPU hash by process: no atomics, no shared cache
 * lines). Strings are copied only when a process is first seen and after a
 * successful execve (its new name); failures, the rare case, go to shared
 * hashes. A syscall is counted at its exit, when it entered while traced:
 * exit and exit_group never return, so they are not counted.
 *
 * Three variants of the same logic: tp_btf, raw_tp (both get the pt_regs and
 * the id or return value) and the classic tracepoint (the event's record).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "sonde.bpf.h"
#include "syscount.h"

const volatile __u32 targ_self_tgid = 0; /* sonde: its own syscalls are left out */
/* The host's execve numbers (set from user space: they differ by architecture); -1 none. */
const volatile __u32 targ_nr_execve = (__u32)-1;
const volatile __u32 targ_nr_execveat = (__u32)-1;

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, SYSCOUNT_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct syscount_inflight);
} inflight SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SYSCOUNT_MAX_ID + 1);
	__type(key, __u32);
	__type(value, struct syscount_stat);
} by_id SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, SYSCOUNT_MAX_PROCS);
	__type(key, __u32);
	__type(value, struct syscount_stat);
} by_proc SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SYSCOUNT_MAX_PROCS);
	__type(key, __u32);
	__type(value, struct syscount_comm);
} comms SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SYSCOUNT_MAX_ERRS);
	__type(key, struct syscount_err_key);
	__type(value, __u64);
} errs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SYSCOUNT_MAX_PROC_ERRS);
	__type(key, struct syscount_proc_err_key);
	__type(value, __u64);
} proc_errs SEC(".maps");

static __always_inline void on_enter(long id)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid;
	struct syscount_inflight *f, init;

	sonde_count(SONDE_STAT_RUNS);
	if ((__u32)(pid_tgid >> 32) == targ_self_tgid || !sonde_traced((__u32)(pid_tgid >> 32)))
		return;
	/* In place when the thread already has a slot: an update would allocate. */
	f = bpf_map_lookup_elem(&inflight, &tid);
	if (f) {
		f->start_ns = bpf_ktime_get_ns();
		f->id = (__u32)id;
		return;
	}
	init.start_ns = bpf_ktime_get_ns();
	init.id = (__u32)id;
	init.pad = 0;
	/* An LRU hash evicts the stalest slot rather than fail: no drop to count. */
	bpf_map_update_elem(&inflight, &tid, &init, BPF_ANY);
}

/* One more failure under key: shared hashes, but only failures come here. */
static __always_inline void count_in(void *map, const void *key)
{
	__u64 one = 1, *c = bpf_map_lookup_elem(map, key);

	if (c) {
		__sync_fetch_and_add(c, 1);
		return;
	}
	if (!bpf_map_update_elem(map, key, &one, BPF_NOEXIST))
		return;
	/* EEXIST: another CPU inserted it just now; else the map is full. */
	c = bpf_map_lookup_elem(map, key);
	if (c)
		__sync_fetch_and_add(c, 1);
	else
		sonde_count(SONDE_STAT_DROPS);
}

static __always_inline void count_error(__u32 tgid, __u32 id, __u32 err)
{
	struct syscount_err_key ek = { .id = id, .err = err };
	struct syscount_proc_err_key pk = { .tgid = tgid, .id = id, .err = err };

	count_in(&errs, &ek);
	count_in(&proc_errs, &pk);
}

static __always_inline void set_comm(__u32 tgid)
{
	struct syscount_comm c;

	bpf_get_current_comm(c.comm, sizeof(c.comm));
	if (bpf_map_update_elem(&comms, &tgid, &c, BPF_ANY))
		sonde_count(SONDE_STAT_DROPS);
}

static __always_inline void on_exit(long ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid(), delta;
	__u32 tid = (__u32)pid_tgid, tgid = (__u32)(pid_tgid >> 32), id, slot;
	struct syscount_stat *s, zero = {};
	struct syscount_inflight *f;
	int failed;

	sonde_count(SONDE_STAT_RUNS);
	if (!sonde_traced(tgid))
		return;
	f = bpf_map_lookup_elem(&inflight, &tid);
	/* No slot: sonde itself, a syscall entered before tracing began, or a slot evicted. */
	if (!f || !f->start_ns)
		return;
	delta = bpf_ktime_get_ns() - f->start_ns;
	id = f->id;
	f->start_ns = 0;
	failed = ret < 0 && ret >= -SYSCOUNT_MAX_ERRNO;

	slot = id < SYSCOUNT_MAX_ID ? id : SYSCOUNT_MAX_ID;
	s = bpf_map_lookup_elem(&by_id, &slot);
	if (s) {
		s->count++;
		s->errors += failed;
		s->total_ns += delta;
	}
	s = bpf_map_lookup_elem(&by_proc, &tgid);
	if (!s) {
		set_comm(tgid);
		s = sonde_lookup_or_init(&by_proc, &tgid, &zero);
	}
	if (s) {
		s->count++;
		s->errors += failed;
		s->total_ns += delta;
	}
	if (failed)
		count_error(tgid, id, (__u32)-ret);
	else if (!ret && (id == targ_nr_execve || id == targ_nr_execveat))
		set_comm(tgid); /* the process has its new name now */
}

SEC("tp_btf/sys_enter")
int BPF_PROG(sys_enter_btf, struct pt_regs *regs, long id)
{
	on_enter(id);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(sys_exit_btf, struct pt_regs *regs, long ret)
{
	on_exit(ret);
	return 0;
}

SEC("raw_tp/sys_enter")
int BPF_PROG(sys_enter_raw, struct pt_regs *regs, long id)
{
	on_enter(id);
	return 0;
}

SEC("raw_tp/sys_exit")
int BPF_PROG(sys_exit_raw, struct pt_regs *regs, long ret)
{
	on_exit(ret);
	return 0;
}

SEC("tp/raw_syscalls/sys_enter")
int sys_enter_tp(struct trace_event_raw_sys_enter *ctx)
{
	on_enter(ctx->id);
	return 0;
}

SEC("tp/raw_syscalls/sys_exit")
int sys_exit_tp(struct trace_event_raw_sys_exit *ctx)
{
	on_exit(ctx->ret);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
