// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hardirqs: how long each hard interrupt handler runs, per CPU: count, total
 * time and a log2 histogram (bcc hardirqs -d), keyed by irq number and the
 * handler's name (irqaction->name, what /proc/interrupts shows). A shared irq
 * line runs several handlers: each is its own entry/exit pair and its own key.
 * Hard interrupt handlers do not nest on Linux (they run with interrupts off),
 * so one start stamp per CPU is enough.
 *
 * What it cannot see: system vectors that run no irqaction (the local APIC
 * timer, IPIs, ...) and NMIs; /proc/interrupts counts those.
 *
 * Variants: tp_btf and raw_tp (irq, struct irqaction *) and the classic
 * tracepoint (the entry record carries the name as a __data_loc string, the
 * exit record only the irq).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "sonde.bpf.h"
#include "hardirqs.h"

struct start {
	__u64 ts;
	struct hardirqs_key key;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct start);
} starts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, HARDIRQS_MAX_KEYS);
	__type(key, struct hardirqs_key);
	__type(value, struct hardirqs_val);
} irqs SEC(".maps");

/* The per-CPU start slot, stamped; the caller fills the key. */
static __always_inline struct start *stamp(int irq)
{
	__u32 k = 0;
	struct start *s = bpf_map_lookup_elem(&starts, &k);

	sonde_count(SONDE_STAT_RUNS);
	if (!s)
		return NULL;
	s->ts = bpf_ktime_get_ns();
	s->key.irq = (__u32)irq;
	return s;
}

static __always_inline void on_exit(int irq)
{
	static const struct hardirqs_val zero;
	__u32 k = 0, slot;
	struct start *s = bpf_map_lookup_elem(&starts, &k);
	struct hardirqs_val *v;
	__u64 delta;

	sonde_count(SONDE_STAT_RUNS);
	/* no stamp: the handler started before the tool attached */
	if (!s || !s->ts || s->key.irq != (__u32)irq)
		return;
	delta = bpf_ktime_get_ns() - s->ts;
	s->ts = 0;
	v = sonde_lookup_or_init(&irqs, &s->key, &zero);
	if (!v)
		return;
	slot = sonde_log2(delta);
	if (slot >= HARDIRQS_SLOTS)
		slot = HARDIRQS_SLOTS - 1;
	v->slots[slot]++; /* per CPU: no atomics needed */
	v->count++;
	v->total_ns += delta;
}

static __always_inline void on_entry_action(int irq, struct irqaction *action)
{
	struct start *s = stamp(irq);

	if (!s)
		return;
	__builtin_memset(s->key.name, 0, sizeof(s->key.name));
	bpf_probe_read_kernel_str(s->key.name, sizeof(s->key.name), BPF_CORE_READ(action, name));
}

SEC("tp_btf/irq_handler_entry")
int BPF_PROG(irq_handler_entry_btf, int irq, struct irqaction *action)
{
	on_entry_action(irq, action);
	return 0;
}

SEC("tp_btf/irq_handler_exit")
int BPF_PROG(irq_handler_exit_btf, int irq, struct irqaction *action, int ret)
{
	on_exit(irq);
	return 0;
}

SEC("raw_tp/irq_handler_entry")
int BPF_PROG(irq_handler_entry_raw, int irq, struct irqaction *action)
{
	on_entry_action(irq, action);
	return 0;
}

SEC("raw_tp/irq_handler_exit")
int BPF_PROG(irq_handler_exit_raw, int irq, struct irqaction *action, int ret)
{
	on_exit(irq);
	return 0;
}

SEC("tp/irq/irq_handler_entry")
int irq_handler_entry_tp(struct trace_event_raw_irq_handler_entry *ctx)
{
	struct start *s = stamp(ctx->irq);
	__u32 off;

	if (!s)
		return 0;
	__builtin_memset(s->key.name, 0, sizeof(s->key.name));
	/* __data_loc: the low 16 bits are the string's offset in the record */
	off = BPF_CORE_READ(ctx, __data_loc_name) & 0xffff;
	bpf_probe_read_kernel_str(s->key.name, sizeof(s->key.name), (void *)ctx + off);
	return 0;
}

SEC("tp/irq/irq_handler_exit")
int irq_handler_exit_tp(struct trace_event_raw_irq_handler_exit *ctx)
{
	on_exit(ctx->irq);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
