// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * oomkill: one record per OOM kill: the victim (pid, comm, resident pages, its
 * memory cgroup) and the trigger, the task that was allocating when the kill
 * was decided (current at that point), which is often not the victim.
 *
 * Variants, in order:
 *  - kprobe on oom_kill_process(oc, message), bcc's hook: oc->chosen is the
 *    victim, oc->totalpages the memory it was weighed against, oc->memcg the
 *    cgroup that ran out (NULL for a host-wide OOM). Needs the perf kprobe PMU.
 *  - tp_btf / raw_tp on oom:mark_victim(task, uid): the victim is marked just
 *    before SIGKILL is sent. Kernels before the (task, uid) prototype passed
 *    only the pid: a first argument below PID_MAX_LIMIT is taken as that pid.
 *  - the classic tracepoint: the record's pid, comm and rss fields (older
 *    kernels have only the pid).
 * Records go to a small ring buffer read after the window (about 60 kills);
 * a kill that does not fit is a counted drop.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "sonde.bpf.h"
#include "oomkill.h"

#define PID_MAX_LIMIT (4 * 1024 * 1024)

/* Read once after the window: a full buffer drops (and counts) the later kills. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, OOMKILL_EVENTS_BYTES);
} events SEC(".maps");

static __always_inline void cgroup_name(char *dst, struct cgroup_subsys_state *css)
{
	const char *name;

	if (!css)
		return;
	name = BPF_CORE_READ(css, cgroup, kn, name);
	if (name)
		bpf_probe_read_kernel_str(dst, OOMKILL_CGROUP_LEN, name);
}

/* The victim's fields; flags says which could be read. */
static __always_inline void fill_victim(struct oomkill_event *e, struct task_struct *victim)
{
	struct mm_struct *mm = BPF_CORE_READ(victim, mm);

	e->victim_pid = BPF_CORE_READ(victim, pid);
	e->victim_tgid = BPF_CORE_READ(victim, tgid);
	e->flags |= OOMKILL_HAVE_VICTIM_TID;
	bpf_probe_read_kernel_str(e->victim_comm, sizeof(e->victim_comm), victim->comm);
	e->oom_score_adj = BPF_CORE_READ(victim, signal, oom_score_adj);
	if (mm) {
		e->victim_file_pages = sonde_rss_pages(mm, 0);
		e->victim_anon_pages = sonde_rss_pages(mm, 1);
		e->victim_shmem_pages = sonde_rss_pages(mm, 3);
		e->victim_total_vm_pages = BPF_CORE_READ(mm, total_vm);
		e->flags |= OOMKILL_HAVE_RSS;
	}
	if (bpf_core_enum_value_exists(enum cgroup_subsys_id, memory_cgrp_id)) {
		int id = bpf_core_enum_value(enum cgroup_subsys_id, memory_cgrp_id);
		struct css_set *cs = BPF_CORE_READ(victim, cgroups);
		struct cgroup_subsys_state *css = NULL;

		if (cs && id >= 0 && id < 16) {
			bpf_core_read(&css, sizeof(css), &cs->subsys[id]);
			if (css) {
				cgroup_name(e->victim_memcg, css);
				e->flags |= OOMKILL_HAVE_VICTIM_CG;
			}
		}
	}
}

/* A fresh record with the trigger (current) filled, or NULL (counted as a drop). */
static __always_inline struct oomkill_event *new_event(void)
{
	struct oomkill_event *e;
	__u64 id = bpf_get_current_pid_tgid();

	sonde_count(SONDE_STAT_RUNS);
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		sonde_count(SONDE_STAT_DROPS);
		return NULL;
	}
	__builtin_memset(e, 0, sizeof(*e));
	e->ts_ns = bpf_ktime_get_ns();
	e->trigger_pid = (__u32)id;
	e->trigger_tgid = id >> 32;
	bpf_get_current_comm(e->trigger_comm, sizeof(e->trigger_comm));
	return e;
}

static __always_inline void submit(struct oomkill_event *e)
{
	/* no wakeup: nobody polls, user space reads the buffer once after the window */
	bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
}

static __always_inline void on_mark_victim(struct task_struct *task)
{
	struct oomkill_event *e = new_event();

	if (!e)
		return;
	if ((unsigned long)task < PID_MAX_LIMIT) {
		/* the older prototype, mark_victim(int pid): the victim's pid only */
		e->victim_pid = e->victim_tgid = (__u32)(unsigned long)task;
	} else {
		fill_victim(e, task);
	}
	submit(e);
}

SEC("kprobe/oom_kill_process")
int BPF_KPROBE(oom_kill_process_kprobe, struct oom_control *oc, const char *message)
{
	struct task_struct *victim = BPF_CORE_READ(oc, chosen);
	struct mem_cgroup *memcg = BPF_CORE_READ(oc, memcg);
	struct oomkill_event *e = new_event();

	if (!e)
		return 0;
	e->totalpages = BPF_CORE_READ(oc, totalpages);
	e->flags |= OOMKILL_HAVE_TOTALPAGES;
	if (memcg)
		cgroup_name(e->oom_memcg, &memcg->css);
	if (victim)
		fill_victim(e, victim);
	submit(e);
	return 0;
}

SEC("tp_btf/mark_victim")
int BPF_PROG(mark_victim_btf, struct task_struct *task)
{
	on_mark_victim(task);
	return 0;
}

SEC("raw_tp/mark_victim")
int BPF_PROG(mark_victim_raw, struct task_struct *task)
{
	on_mark_victim(task);
	return 0;
}

SEC("tp/oom/mark_victim")
int mark_victim_tp(struct trace_event_raw_mark_victim *ctx)
{
	struct oomkill_event *e = new_event();
	__u32 off;

	if (!e)
		return 0;
	/* The record has the victim's pid (the thread-group leader the kernel names), not a tid. */
	e->victim_pid = e->victim_tgid = ctx->pid;
	if (bpf_core_field_exists(ctx->__data_loc_comm)) {
		off = BPF_CORE_READ(ctx, __data_loc_comm) & 0xffff;
		bpf_probe_read_kernel_str(e->victim_comm, sizeof(e->victim_comm), (void *)ctx + off);
	}
	if (bpf_core_field_exists(ctx->anon_rss)) {
		/* the record's rss fields are in kB */
		e->victim_anon_pages = BPF_CORE_READ(ctx, anon_rss);
		e->victim_file_pages = BPF_CORE_READ(ctx, file_rss);
		e->victim_shmem_pages = BPF_CORE_READ(ctx, shmem_rss);
		e->victim_total_vm_pages = BPF_CORE_READ(ctx, total_vm);
		e->flags |= OOMKILL_HAVE_RSS | OOMKILL_RSS_IN_KB;
	}
	if (bpf_core_field_exists(ctx->oom_score_adj))
		e->oom_score_adj = BPF_CORE_READ(ctx, oom_score_adj);
	submit(e);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
