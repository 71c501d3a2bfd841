// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * execsnoop: the processes started during the window, which top and /proc
 * sampling miss when they live less than a sampling interval. Aggregated in
 * the kernel: execs per parent and per command, forks per parent, the
 * lifetime (fork to exit) of every process that started and ended in the
 * window as a log2 histogram. Streamed, bounded: argv of the first execs of the
 * window and of a few per command, through a ring buffer (a full buffer is a
 * counted drop) read once after the window.
 *
 * Three variants of the same logic: tp_btf (typed arguments), raw_tp (same
 * arguments, read through CO-RE), classic tracepoint (the event's record;
 * the task is the current one in all three hooks, except the fork's child).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "sonde.bpf.h"
#include "execsnoop.h"

/* CLOCK_MONOTONIC when the tool was configured: a task that started after it started in the window. */
const volatile __u64 targ_since_ns = 0;
const volatile __u32 targ_first_samples = EXECSNOOP_FIRST_SAMPLES;
const volatile __u32 targ_per_comm = 4; /* argv samples per command after the first ones */

/*
 * Sampling counters. Checked then incremented without BPF_FETCH (kernels
 * before 5.12 lack it), so concurrent execs on several CPUs may overshoot a
 * bound by at most one per CPU; the ring buffer's size bounds the rest.
 */
__u64 nfirst = 0;
__u64 nsamples = 0;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, EXECSNOOP_TOTAL_NR);
	__type(key, __u32);
	__type(value, __u64);
} totals SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct execsnoop_hist);
} lifetimes SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, EXECSNOOP_MAX_PARENTS);
	__type(key, __u32); /* the parent's tgid */
	__type(value, struct execsnoop_parent);
} parents SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, EXECSNOOP_MAX_COMMS);
	__type(key, char[16]);
	__type(value, struct execsnoop_comm);
} comms SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, EXECSNOOP_RINGBUF_BYTES);
} samples SEC(".maps");

static __always_inline void total_add(__u32 which)
{
	__u64 *v = bpf_map_lookup_elem(&totals, &which);

	if (v)
		(*v)++; /* per CPU */
}

static __always_inline struct execsnoop_parent *parent_of(__u32 ppid, struct task_struct *parent)
{
	struct execsnoop_parent zero = {}, *p;

	p = bpf_map_lookup_elem(&parents, &ppid);
	if (p)
		return p;
	BPF_CORE_READ_STR_INTO(&zero.comm, parent, comm);
	return sonde_lookup_or_init(&parents, &ppid, &zero);
}

/* Should this exec's argv be sampled? The first execs of the window, then a few per command. */
static __always_inline int want_sample(struct execsnoop_comm *c)
{
	if (nsamples >= EXECSNOOP_MAX_SAMPLES)
		return 0;
	if (nfirst < targ_first_samples) {
		__sync_fetch_and_add(&nfirst, 1);
	} else {
		if (!c || c->sampled >= targ_per_comm)
			return 0;
		__sync_fetch_and_add(&c->sampled, 1);
	}
	__sync_fetch_and_add(&nsamples, 1);
	return 1;
}

static __always_inline void sample(struct task_struct *task, __u32 ppid, const char *pcomm,
				   const char *comm, const void *filename)
{
	struct execsnoop_sample *e;
	unsigned long start, end;
	__u64 len;

	e = bpf_ringbuf_reserve(&samples, sizeof(*e), 0);
	if (!e) {
		sonde_count(SONDE_STAT_DROPS);
		return;
	}
	e->ts_ns = bpf_ktime_get_ns();
	e->pid = BPF_CORE_READ(task, tgid);
	e->ppid = ppid;
	e->uid = (__u32)bpf_get_current_uid_gid();
	__builtin_memcpy(e->comm, comm, sizeof(e->comm));
	__builtin_memcpy(e->pcomm, pcomm, sizeof(e->pcomm));
	if (bpf_probe_read_kernel_str(e->filename, sizeof(e->filename), filename) < 0)
		e->filename[0] = '\0';
	/*
	 * The new image's argv, as exec laid it on the new stack (the pages are
	 * present: the kernel just wrote them). Never read past arg_end: the
	 * environment follows, and it is not ours to record.
	 */
	start = BPF_CORE_READ(task, mm, arg_start);
	end = BPF_CORE_READ(task, mm, arg_end);
	len = end > start ? end - start : 0;
	e->args_cut = 0;
	if (len > EXECSNOOP_ARGS_MAX - 1) {
		len = EXECSNOOP_ARGS_MAX - 1;
		e->args_cut = 1;
	}
	len &= EXECSNOOP_ARGS_MAX - 1; /* for the verifier: a bound it can see */
	if (len && bpf_probe_read_user(e->args, len, (const void *)start))
		len = 0;
	e->args[len & (EXECSNOOP_ARGS_MAX - 1)] = '\0';
	e->args_len = (__u32)len;
	bpf_ringbuf_submit(e, 0);
}

static __always_inline void on_exec(struct task_struct *task, const void *filename)
{
	struct execsnoop_comm czero = {}, *c;
	struct execsnoop_parent *p;
	struct task_struct *parent;
	char comm[16] = {}, pcomm[16] = {};
	__u32 ppid;

	sonde_count(SONDE_STAT_RUNS);
	total_add(EXECSNOOP_EXECS);
	parent = BPF_CORE_READ(task, real_parent);
	ppid = BPF_CORE_READ(parent, tgid);
	BPF_CORE_READ_STR_INTO(&pcomm, parent, comm);
	p = parent_of(ppid, parent);
	if (p)
		__sync_fetch_and_add(&p->execs, 1);
	/* The new image's comm: exec has set it by the time the tracepoint fires. */
	BPF_CORE_READ_STR_INTO(&comm, task, comm);
	c = bpf_map_lookup_elem(&comms, comm);
	if (!c) {
		if (bpf_probe_read_kernel_str(czero.filename, sizeof(czero.filename), filename) < 0)
			czero.filename[0] = '\0';
		c = sonde_lookup_or_init(&comms, comm, &czero);
	}
	if (c) {
		__sync_fetch_and_add(&c->execs, 1);
		/* an entry made at exit (a fork that never execed) has no path yet */
		if (!c->filename[0] &&
		    bpf_probe_read_kernel_str(c->filename, sizeof(c->filename), filename) < 0)
			c->filename[0] = '\0';
	}
	if (want_sample(c))
		sample(task, ppid, pcomm, comm, filename);
	else
		total_add(EXECSNOOP_NOT_SAMPLED);
}

/* child_is_thread: 1 a thread, 0 a process, -1 unknown (the classic tracepoint). */
static __always_inline void on_fork(struct task_struct *parent, int child_is_thread)
{
	struct execsnoop_parent *p;

	sonde_count(SONDE_STAT_RUNS);
	if (child_is_thread == 1) {
		total_add(EXECSNOOP_THREADS);
		return;
	}
	total_add(EXECSNOOP_FORKS);
	p = parent_of(BPF_CORE_READ(parent, tgid), parent);
	if (p)
		__sync_fetch_and_add(&p->forks, 1);
}

static __always_inline void on_exit(struct task_struct *task)
{
	struct execsnoop_comm czero = {}, *c;
	struct execsnoop_hist *h;
	char comm[16] = {};
	__u64 start, life, slot;
	__u32 k = 0;

	sonde_count(SONDE_STAT_RUNS);
	/*
	 * The hook fires for every thread; a process ends with its main thread
	 * (a leader that exits before its other threads is counted early, rare).
	 */
	if (BPF_CORE_READ(task, pid) != BPF_CORE_READ(task, tgid))
		return;
	total_add(EXECSNOOP_EXITS);
	start = BPF_CORE_READ(task, start_time); /* CLOCK_MONOTONIC ns at fork */
	if (start < targ_since_ns)
		return;
	life = bpf_ktime_get_ns() - start;
	if ((__s64)life < 0)
		return;
	total_add(EXECSNOOP_EXITS_NEW);
	h = bpf_map_lookup_elem(&lifetimes, &k);
	if (h) {
		slot = sonde_log2(life / 1000);
		if (slot >= EXECSNOOP_SLOTS)
			slot = EXECSNOOP_SLOTS - 1;
		h->slots[slot]++;
		h->total_ns += life;
	}
	BPF_CORE_READ_STR_INTO(&comm, task, comm);
	c = sonde_lookup_or_init(&comms, comm, &czero);
	if (c) {
		__sync_fetch_and_add(&c->exits_new, 1);
		__sync_fetch_and_add(&c->life_ns, life);
	}
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(exec_btf, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	on_exec(p, BPF_CORE_READ(bprm, filename));
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(fork_btf, struct task_struct *parent, struct task_struct *child)
{
	on_fork(parent, BPF_CORE_READ(child, pid) != BPF_CORE_READ(child, tgid));
	return 0;
}

/* Newer kernels add a bool group_dead; only the task is read, which every kernel passes. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(exit_btf, struct task_struct *p)
{
	on_exit(p);
	return 0;
}

SEC("raw_tp/sched_process_exec")
int BPF_PROG(exec_raw, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	on_exec(p, BPF_CORE_READ(bprm, filename));
	return 0;
}

SEC("raw_tp/sched_process_fork")
int BPF_PROG(fork_raw, struct task_struct *parent, struct task_struct *child)
{
	on_fork(parent, BPF_CORE_READ(child, pid) != BPF_CORE_READ(child, tgid));
	return 0;
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(exit_raw, struct task_struct *p)
{
	on_exit(p);
	return 0;
}

SEC("tp/sched/sched_process_exec")
int exec_tp(struct trace_event_raw_sched_process_exec *ctx)
{
	/* __data_loc: the low 16 bits are the filename's offset in the record */
	unsigned int off = ctx->__data_loc_filename & 0xFFFF;

	on_exec((struct task_struct *)bpf_get_current_task(), (const char *)ctx + off);
	return 0;
}

SEC("tp/sched/sched_process_fork")
int fork_tp(struct trace_event_raw_sched_process_fork *ctx)
{
	/* The record names the child by tid only: thread or process cannot be told apart. */
	on_fork((struct task_struct *)bpf_get_current_task(), -1);
	return 0;
}

SEC("tp/sched/sched_process_exit")
int exit_tp(struct trace_event_raw_sched_process_template *ctx)
{
	/* do_exit runs in the exiting task: it is the current one */
	on_exit((struct task_struct *)bpf_get_current_task());
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
