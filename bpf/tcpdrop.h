/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tcpdrop: packets the kernel dropped (skb:kfree_skb), by reason; shared with user space. */
#ifndef SONDE_TCPDROP_H
#define SONDE_TCPDROP_H

#define TCPDROP_MAX_REASONS 1024
#define TCPDROP_MAX_FLOWS 4096
/* The reason on kernels whose kfree_skb has none (before 5.17). */
#define TCPDROP_REASON_UNKNOWN 0xffffffffu

struct tcpdrop_reason_key {
	__u32 reason;   /* enum skb_drop_reason (subsystem in the high 16 bits) */
	__u16 protocol; /* skb->protocol, host order: 0x0800 IPv4, 0x86dd IPv6, ... */
	__u16 pad;
};

/* A dropped TCP or UDP packet: as the packet says (source -> destination). */
struct tcpdrop_flow_key {
	__u32 reason;
	__u16 family; /* AF_INET 2, AF_INET6 10 */
	__u8 l4;      /* IPPROTO_TCP 6, IPPROTO_UDP 17 */
	__u8 pad;
	__u16 sport, dport; /* host order */
	__u8 saddr[16], daddr[16];
};

#endif
