// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tcpdrop: every packet the kernel frees as dropped (skb:kfree_skb), counted
 * in the kernel by drop reason and skb->protocol, and for TCP and UDP also by
 * (reason, source addr:port, destination addr:port) as the packet's headers
 * say. User space names the reasons from the running kernel's BTF.
 *
 * The reason argument came with enum skb_drop_reason (5.17): where the enum is
 * absent the reason is TCPDROP_REASON_UNKNOWN, and the CO-RE guard removes the
 * read of an argument the tracepoint does not have (the verifier would refuse it).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include "sonde.bpf.h"
#include "tcpdrop.h"

#define AF_INET 2
#define AF_INET6 10
#define ETH_P_IP 0x0800
#define ETH_P_IPV6 0x86DD
#define L4_TCP 6
#define L4_UDP 17

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TCPDROP_MAX_REASONS);
	__type(key, struct tcpdrop_reason_key);
	__type(value, __u64);
} reasons SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TCPDROP_MAX_FLOWS);
	__type(key, struct tcpdrop_flow_key);
	__type(value, __u64);
} flows SEC(".maps");

/* Not drops: the kernel's "freed after use" values, whose flows are not worth a key. */
static __always_inline int not_a_drop(__u32 reason)
{
	if (bpf_core_enum_value_exists(enum skb_drop_reason, SKB_NOT_DROPPED_YET) &&
	    reason == bpf_core_enum_value(enum skb_drop_reason, SKB_NOT_DROPPED_YET))
		return 1;
	if (bpf_core_enum_value_exists(enum skb_drop_reason, SKB_CONSUMED) &&
	    reason == bpf_core_enum_value(enum skb_drop_reason, SKB_CONSUMED))
		return 1;
	return 0;
}

static __always_inline void add(void *map, const void *key)
{
	__u64 zero = 0, *v = sonde_lookup_or_init(map, key, &zero);

	if (v)
		__sync_fetch_and_add(v, 1);
}

/* Source and destination of an IPv4/IPv6 TCP or UDP packet; 0 when it is not one. */
static __always_inline int read_flow(const struct sk_buff *skb, __u16 protocol,
				     struct tcpdrop_flow_key *f)
{
	unsigned char *head = BPF_CORE_READ(skb, head);
	__u16 nh = BPF_CORE_READ(skb, network_header);
	__u16 th = BPF_CORE_READ(skb, transport_header);
	__u16 l4_off;

	/* ~0: not set. Before IP has parsed it, the transport offset still points at the IP header. */
	if (!head || nh == 0xffff)
		return 0;
	if (protocol == ETH_P_IP) {
		struct iphdr ip;

		if (bpf_probe_read_kernel(&ip, sizeof(ip), head + nh))
			return 0;
		if (ip.version != 4 || (ip.protocol != L4_TCP && ip.protocol != L4_UDP))
			return 0;
		f->family = AF_INET;
		f->l4 = ip.protocol;
		__builtin_memcpy(f->saddr, &ip.saddr, 4);
		__builtin_memcpy(f->daddr, &ip.daddr, 4);
		l4_off = nh + ip.ihl * 4;
	} else if (protocol == ETH_P_IPV6) {
		struct ipv6hdr ip6;

		if (bpf_probe_read_kernel(&ip6, sizeof(ip6), head + nh))
			return 0;
		/* Extension headers are not walked: such packets count by reason only. */
		if (ip6.version != 6 || (ip6.nexthdr != L4_TCP && ip6.nexthdr != L4_UDP))
			return 0;
		f->family = AF_INET6;
		f->l4 = ip6.nexthdr;
		__builtin_memcpy(f->saddr, &ip6.saddr, 16);
		__builtin_memcpy(f->daddr, &ip6.daddr, 16);
		l4_off = nh + sizeof(ip6);
	} else {
		return 0;
	}
	if (th != 0xffff && th > nh)
		l4_off = th;
	{
		__be16 ports[2];

		if (bpf_probe_read_kernel(ports, sizeof(ports), head + l4_off))
			return 0;
		f->sport = bpf_ntohs(ports[0]);
		f->dport = bpf_ntohs(ports[1]);
	}
	return 1;
}

static __always_inline void on_drop(const struct sk_buff *skb, __u32 reason, __u16 protocol)
{
	struct tcpdrop_reason_key rk = { .reason = reason, .protocol = protocol };
	struct tcpdrop_flow_key fk = { .reason = reason };

	sonde_count(SONDE_STAT_RUNS);
	add(&reasons, &rk);
	if (not_a_drop(reason) || !skb)
		return;
	if (read_flow(skb, protocol, &fk))
		add(&flows, &fk);
}

SEC("tp_btf/kfree_skb")
int BPF_PROG(kfree_skb_btf, struct sk_buff *skb, void *location)
{
	__u32 reason = TCPDROP_REASON_UNKNOWN;

	if (bpf_core_type_exists(enum skb_drop_reason))
		reason = (__u32)ctx[2];
	on_drop(skb, reason, bpf_ntohs(BPF_CORE_READ(skb, protocol)));
	return 0;
}

SEC("raw_tp/kfree_skb")
int BPF_PROG(kfree_skb_raw, struct sk_buff *skb, void *location)
{
	__u32 reason = TCPDROP_REASON_UNKNOWN;

	if (bpf_core_type_exists(enum skb_drop_reason))
		reason = (__u32)ctx[2];
	on_drop(skb, reason, bpf_ntohs(BPF_CORE_READ(skb, protocol)));
	return 0;
}

/* The classic record: protocol since always (host order), reason since 5.17. */
SEC("tp/skb/kfree_skb")
int kfree_skb_tp(struct trace_event_raw_kfree_skb *ctx)
{
	__u32 reason = TCPDROP_REASON_UNKNOWN;

	if (bpf_core_field_exists(ctx->reason))
		reason = (__u32)BPF_CORE_READ(ctx, reason);
	on_drop(ctx->skbaddr, reason, ctx->protocol);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
