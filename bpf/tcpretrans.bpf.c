// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tcpretrans: TCP retransmits, and resets sent and received, counted in the
 * kernel per connection (family, local addr:port, remote addr:port, TCP state
 * at the event). Totals are kept apart so they stay exact when the
 * per-connection map is full (each key lost is a counted drop).
 *
 * Every variant reads the connection from the socket (struct sock) through
 * CO-RE: the classic tracepoint records differ between kernels (the reset
 * events changed layout twice), but all of them carry the socket pointer
 * right after the skb pointer, or first (tcp_receive_reset).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include "sonde.bpf.h"
#include "tcpretrans.h"

#define AF_INET 2
#define AF_INET6 10

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TCPRETRANS_MAX_FLOWS);
	__type(key, struct tcpretrans_key);
	__type(value, struct tcpretrans_val);
} flows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TCPRETRANS_TOTAL_NR);
	__type(key, __u32);
	__type(value, __u64);
} totals SEC(".maps");

static __always_inline void count_total(__u32 which)
{
	__u64 *v = bpf_map_lookup_elem(&totals, &which);

	if (v)
		(*v)++;
}

static __always_inline void on_event(const struct sock *sk, __u32 which)
{
	struct tcpretrans_val zero = {}, *v;
	struct tcpretrans_key k = {};

	sonde_count(SONDE_STAT_RUNS);
	count_total(which);
	/* A reset sent for a packet no socket owns (a closed port): counted in the total only. */
	if (!sk)
		return;
	k.family = BPF_CORE_READ(sk, __sk_common.skc_family);
	k.state = BPF_CORE_READ(sk, __sk_common.skc_state);
	k.lport = BPF_CORE_READ(sk, __sk_common.skc_num);
	k.rport = bpf_ntohs(BPF_CORE_READ(sk, __sk_common.skc_dport));
	if (k.family == AF_INET) {
		__u32 l = BPF_CORE_READ(sk, __sk_common.skc_rcv_saddr);
		__u32 r = BPF_CORE_READ(sk, __sk_common.skc_daddr);

		__builtin_memcpy(k.laddr, &l, 4);
		__builtin_memcpy(k.raddr, &r, 4);
	} else if (k.family == AF_INET6) {
		BPF_CORE_READ_INTO(&k.laddr, sk, __sk_common.skc_v6_rcv_saddr.in6_u.u6_addr8);
		BPF_CORE_READ_INTO(&k.raddr, sk, __sk_common.skc_v6_daddr.in6_u.u6_addr8);
	}
	v = sonde_lookup_or_init(&flows, &k, &zero);
	if (!v)
		return;
	if (which == TCPRETRANS_RETRANSMITS)
		__sync_fetch_and_add(&v->retransmits, 1);
	else if (which == TCPRETRANS_RESETS_SENT)
		__sync_fetch_and_add(&v->resets_sent, 1);
	else
		__sync_fetch_and_add(&v->resets_received, 1);
}

/* tp_btf: typed arguments (newer kernels add more after these; they are not read) */

SEC("tp_btf/tcp_retransmit_skb")
int BPF_PROG(retransmit_btf, const struct sock *sk)
{
	on_event(sk, TCPRETRANS_RETRANSMITS);
	return 0;
}

SEC("tp_btf/tcp_send_reset")
int BPF_PROG(send_reset_btf, const struct sock *sk)
{
	on_event(sk, TCPRETRANS_RESETS_SENT);
	return 0;
}

SEC("tp_btf/tcp_receive_reset")
int BPF_PROG(receive_reset_btf, struct sock *sk)
{
	on_event(sk, TCPRETRANS_RESETS_RECEIVED);
	return 0;
}

/* raw_tp: the same arguments, read as u64 */

SEC("raw_tp/tcp_retransmit_skb")
int BPF_PROG(retransmit_raw, const struct sock *sk)
{
	on_event(sk, TCPRETRANS_RETRANSMITS);
	return 0;
}

SEC("raw_tp/tcp_send_reset")
int BPF_PROG(send_reset_raw, const struct sock *sk)
{
	on_event(sk, TCPRETRANS_RESETS_SENT);
	return 0;
}

SEC("raw_tp/tcp_receive_reset")
int BPF_PROG(receive_reset_raw, struct sock *sk)
{
	on_event(sk, TCPRETRANS_RESETS_RECEIVED);
	return 0;
}

/*
 * Classic tracepoints: the records' first fields after the common header,
 * stable since the events appeared (4.15/4.16): tcp_retransmit_skb and
 * tcp_send_reset start with skbaddr, skaddr; tcp_receive_reset with skaddr.
 * Not CO-RE types on purpose: the record type names changed between kernels.
 */
struct tcpretrans_rec_skb_sk {
	__u64 common;
	const void *skbaddr;
	const void *skaddr;
};

struct tcpretrans_rec_sk {
	__u64 common;
	const void *skaddr;
};

SEC("tp/tcp/tcp_retransmit_skb")
int retransmit_tp(struct tcpretrans_rec_skb_sk *ctx)
{
	on_event(ctx->skaddr, TCPRETRANS_RETRANSMITS);
	return 0;
}

SEC("tp/tcp/tcp_send_reset")
int send_reset_tp(struct tcpretrans_rec_skb_sk *ctx)
{
	on_event(ctx->skaddr, TCPRETRANS_RESETS_SENT);
	return 0;
}

SEC("tp/tcp/tcp_receive_reset")
int receive_reset_tp(struct tcpretrans_rec_sk *ctx)
{
	on_event(ctx->skaddr, TCPRETRANS_RESETS_RECEIVED);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
