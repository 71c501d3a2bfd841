// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * softirqs: how long each softirq type (HI, TIMER, NET_TX, NET_RX, BLOCK,
 * IRQ_POLL, TASKLET, SCHED, HRTIMER, RCU) runs, per CPU: count, total time and
 * a log2 histogram of each run (bcc softirqs -d). Softirqs do not nest on one
 * CPU (a hard interrupt arriving during one never starts another), so one
 * start stamp per CPU is enough. Time in ksoftirqd counts too: the same
 * entry/exit tracepoints fire there.
 *
 * Variants: tp_btf, raw_tp (both get vec_nr as the argument) and the classic
 * tracepoint (the record's vec field).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "sonde.bpf.h"
#include "softirqs.h"

struct start {
	__u64 ts;
	__u32 vec;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct start);
} starts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SOFTIRQS_MAX_VEC);
	__type(key, __u32);
	__type(value, struct softirqs_val);
} vecs SEC(".maps");

static __always_inline void on_entry(unsigned int vec)
{
	__u32 k = 0;
	struct start *s = bpf_map_lookup_elem(&starts, &k);

	sonde_count(SONDE_STAT_RUNS);
	if (!s)
		return;
	s->ts = bpf_ktime_get_ns();
	s->vec = vec;
}

static __always_inline void on_exit(unsigned int vec)
{
	__u32 k = 0, slot;
	struct start *s = bpf_map_lookup_elem(&starts, &k);
	struct softirqs_val *v;
	__u64 delta;

	sonde_count(SONDE_STAT_RUNS);
	/* no stamp: the softirq started before the tool attached */
	if (!s || !s->ts || s->vec != vec)
		return;
	delta = bpf_ktime_get_ns() - s->ts;
	s->ts = 0;
	if (vec >= SOFTIRQS_MAX_VEC) {
		sonde_count(SONDE_STAT_DROPS); /* a softirq type newer than this tool */
		return;
	}
	v = bpf_map_lookup_elem(&vecs, &vec);
	if (!v)
		return;
	slot = sonde_log2(delta);
	if (slot >= SOFTIRQS_SLOTS)
		slot = SOFTIRQS_SLOTS - 1;
	v->slots[slot]++; /* per CPU: no atomics needed */
	v->count++;
	v->total_ns += delta;
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(softirq_entry_btf, unsigned int vec)
{
	on_entry(vec);
	return 0;
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(softirq_exit_btf, unsigned int vec)
{
	on_exit(vec);
	return 0;
}

SEC("raw_tp/softirq_entry")
int BPF_PROG(softirq_entry_raw, unsigned int vec)
{
	on_entry(vec);
	return 0;
}

SEC("raw_tp/softirq_exit")
int BPF_PROG(softirq_exit_raw, unsigned int vec)
{
	on_exit(vec);
	return 0;
}

SEC("tp/irq/softirq_entry")
int softirq_entry_tp(struct trace_event_raw_softirq *ctx)
{
	on_entry(ctx->vec);
	return 0;
}

SEC("tp/irq/softirq_exit")
int softirq_exit_tp(struct trace_event_raw_softirq *ctx)
{
	on_exit(ctx->vec);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
