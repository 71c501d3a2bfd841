// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * killsnoop: every signal generated during the window (signal:signal_generate,
 * so kill(2), tkill, the kernel's own SIGSEGV/SIGKILL/SIGCHLD... alike),
 * counted per (sender process, target thread, signal, result, si_code). The
 * sender is the task running when the signal was generated: the caller of
 * kill(2); for a fault, the faulting task itself; for the OOM killer, the task
 * that was allocating; for SIGCHLD, the exiting child. Fatal signals (a mask
 * set by user space) are also kept one by one in a ring buffer (the first
 * ~KILLSNOOP_FATAL_BYTES / 80 of them; the rest are counted drops) to answer "who killed my process?" with times.
 *
 * Variants: tp_btf and raw_tp (sig, info, task, group, result), and the classic
 * tracepoint (its record has the target's pid and comm, not its tgid).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "sonde.bpf.h"
#include "killsnoop.h"

#define SI_USER 0
#define SI_KERNEL 0x80

const volatile __u64 targ_fatal_mask = KILLSNOOP_FATAL_DEFAULT;
/* sonde: signals it sends or is sent (Ctrl-C) are counted apart, never as the host's */
const volatile __u32 targ_self_tgid = 0;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} self_signals SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KILLSNOOP_MAX_KEYS);
	__type(key, struct killsnoop_key);
	__type(value, struct killsnoop_val);
} signals SEC(".maps");

/* Read once after the window: a full buffer drops (and counts) the later fatal signals. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, KILLSNOOP_FATAL_BYTES);
} fatal SEC(".maps");

static __always_inline void record(int sig, int code, __u32 target_pid, __u32 target_tgid,
				   const char *target_comm, int comm_kernel, int group, int result)
{
	struct killsnoop_key key = {};
	struct killsnoop_val zero = {}, *v;
	struct killsnoop_event *e;
	__u64 id = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns();

	sonde_count(SONDE_STAT_RUNS);
	if (targ_self_tgid &&
	    ((__u32)(id >> 32) == targ_self_tgid || target_tgid == targ_self_tgid ||
	     (!target_tgid && target_pid == targ_self_tgid))) {
		__u32 zero = 0;
		__u64 *n = bpf_map_lookup_elem(&self_signals, &zero);

		if (n)
			(*n)++;
		return;
	}
	key.sender_tgid = id >> 32;
	key.target_pid = target_pid;
	key.sig = sig;
	key.result = result;
	key.code = code;
	bpf_get_current_comm(key.sender_comm, sizeof(key.sender_comm));
	if (comm_kernel)
		bpf_probe_read_kernel_str(key.target_comm, sizeof(key.target_comm), target_comm);
	else
		__builtin_memcpy(key.target_comm, target_comm, sizeof(key.target_comm));

	zero.first_ns = now;
	v = sonde_lookup_or_init(&signals, &key, &zero);
	if (v) {
		__sync_fetch_and_add(&v->count, 1);
		v->last_ns = now;
		v->sender_pid = (__u32)id;
		v->target_tgid = target_tgid;
		v->group = group;
	}

	if (sig <= 0 || sig >= 64 || !((targ_fatal_mask >> sig) & 1))
		return;
	e = bpf_ringbuf_reserve(&fatal, sizeof(*e), 0);
	if (!e) {
		sonde_count(SONDE_STAT_DROPS);
		return;
	}
	e->ts_ns = now;
	e->sender_pid = (__u32)id;
	e->sender_tgid = id >> 32;
	e->target_pid = target_pid;
	e->target_tgid = target_tgid;
	e->sig = sig;
	e->result = result;
	e->code = code;
	e->group = group;
	__builtin_memcpy(e->sender_comm, key.sender_comm, sizeof(e->sender_comm));
	__builtin_memcpy(e->target_comm, key.target_comm, sizeof(e->target_comm));
	/* no wakeup: nobody polls, user space reads the buffer once after the window */
	bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
}

static __always_inline void on_generate(int sig, struct kernel_siginfo *info,
					struct task_struct *task, int group, int result)
{
	int code;

	/* The kernel's special siginfo pointers, decoded as its tracepoint does. */
	if ((unsigned long)info == 0)       /* SEND_SIG_NOINFO: from user space (kill) */
		code = SI_USER;
	else if ((unsigned long)info == 1)  /* SEND_SIG_PRIV: from the kernel */
		code = SI_KERNEL;
	else
		code = BPF_CORE_READ(info, si_code);
	record(sig, code, BPF_CORE_READ(task, pid), BPF_CORE_READ(task, tgid),
	       (const char *)task->comm, 1, group, result);
}

SEC("tp_btf/signal_generate")
int BPF_PROG(signal_generate_btf, int sig, struct kernel_siginfo *info, struct task_struct *task,
	     int group, int result)
{
	on_generate(sig, info, task, group, result);
	return 0;
}

SEC("raw_tp/signal_generate")
int BPF_PROG(signal_generate_raw, int sig, struct kernel_siginfo *info, struct task_struct *task,
	     int group, int result)
{
	on_generate(sig, info, task, group, result);
	return 0;
}

SEC("tp/signal/signal_generate")
int signal_generate_tp(struct trace_event_raw_signal_generate *ctx)
{
	/* The record has the target's pid and comm, not its tgid: 0 means unknown. */
	record(ctx->sig, ctx->code, ctx->pid, 0, ctx->comm, 0, ctx->group, ctx->result);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
