/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tcpretrans: TCP retransmits and resets per connection, shared with user space. */
#ifndef SONDE_TCPRETRANS_H
#define SONDE_TCPRETRANS_H

#define TCPRETRANS_MAX_FLOWS 4096

/* tcp_states.h: 1 ESTABLISHED .. 12 NEW_SYN_RECV; 0 here: no socket (a reset sent for a packet) */
#define TCPRETRANS_NO_SOCKET 0

/* Totals kept apart from the per-connection map: exact even when the map is full. */
enum {
	TCPRETRANS_RETRANSMITS,
	TCPRETRANS_RESETS_SENT,
	TCPRETRANS_RESETS_RECEIVED,
	TCPRETRANS_TOTAL_NR,
};

struct tcpretrans_key {
	__u16 family; /* AF_INET 2, AF_INET6 10 */
	__u16 lport;  /* host order */
	__u16 rport;  /* host order */
	__u8 state;   /* TCP state at the event */
	__u8 pad;
	__u8 laddr[16]; /* IPv4: the first 4 bytes */
	__u8 raddr[16];
};

struct tcpretrans_val {
	__u64 retransmits, resets_sent, resets_received;
};

#endif
