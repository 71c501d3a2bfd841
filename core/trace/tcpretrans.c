// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tcpretrans: TCP retransmits and resets per connection. data = {
 *   retransmits, resets_sent, resets_received   (totals of the window, exact),
 *   flows_seen                                  (connections in the kernel's map),
 *   flows = top 50 by retransmits, then resets: { family ("ipv4"|"ipv6"),
 *     laddr, lport, raddr, rport, state ("ESTABLISHED", ...), retransmits,
 *     resets_sent, resets_received } }.
 * A connection that changed state during the window has one entry per state.
 *
 * Without BPF, the same from tcp:tcp_retransmit_skb, tcp_send_reset and
 * tcp_receive_reset in a tracefs instance (ftrace.h), counted in sonde from
 * the addresses and state the events print.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "trace/ftrace.h"
#include "trace/maps.h"
#include "trace/trace.h"
#include "tcpretrans.h"
#include "tcpretrans.skel.h"

#define TOP_FLOWS 50

static void *tcpretrans_open(struct bpf_object **obj)
{
	struct tcpretrans_bpf *skel = tcpretrans_bpf__open();

	if (skel)
		*obj = skel->obj;
	return skel;
}

/* include/net/tcp_states.h */
static const char *const tcp_state_names[] = {
	[1] = "ESTABLISHED", [2] = "SYN_SENT",   [3] = "SYN_RECV",   [4] = "FIN_WAIT1",
	[5] = "FIN_WAIT2",   [6] = "TIME_WAIT",  [7] = "CLOSE",      [8] = "CLOSE_WAIT",
	[9] = "LAST_ACK",    [10] = "LISTEN",    [11] = "CLOSING",   [12] = "NEW_SYN_RECV",
};

static void json_state(struct json *j, unsigned int state)
{
	char buf[16];

	if (state < sizeof(tcp_state_names) / sizeof(tcp_state_names[0]) && tcp_state_names[state]) {
		json__string(j, tcp_state_names[state]);
		return;
	}
	snprintf(buf, sizeof(buf), "state %u", state);
	json__string(j, buf);
}

/* An address from the kernel's bytes as text; "?" for a family other than IPv4/IPv6. */
static void json_addr(struct json *j, unsigned int family, const unsigned char *addr)
{
	char buf[INET6_ADDRSTRLEN];

	if (family == AF_INET && inet_ntop(AF_INET, addr, buf, sizeof(buf)))
		json__string(j, buf);
	else if (family == AF_INET6 && inet_ntop(AF_INET6, addr, buf, sizeof(buf)))
		json__string(j, buf);
	else
		json__string(j, "?");
}

static const char *family_name(unsigned int family)
{
	return family == AF_INET ? "ipv4" : family == AF_INET6 ? "ipv6" : "other";
}

struct flow_row {
	struct tcpretrans_key k;
	struct tcpretrans_val v;
};

static const struct trace_map_row flow_rows = TRACE_MAP_ROW(struct flow_row, k, v);

static int by_retransmits_desc(const void *a, const void *b)
{
	const struct tcpretrans_val *x = &((const struct flow_row *)a)->v;
	const struct tcpretrans_val *y = &((const struct flow_row *)b)->v;

	if (x->retransmits != y->retransmits)
		return trace__cmp_desc(x->retransmits, y->retransmits);
	return trace__cmp_desc(x->resets_sent + x->resets_received,
			       y->resets_sent + y->resets_received);
}

static void json_flow(struct json *j, const void *row, void *arg)
{
	const struct flow_row *r = row;

	json__key(j, "family");
	json__string(j, family_name(r->k.family));
	json__key(j, "laddr");
	json_addr(j, r->k.family, r->k.laddr);
	trace__json_int(j, "lport", r->k.lport);
	json__key(j, "raddr");
	json_addr(j, r->k.family, r->k.raddr);
	trace__json_int(j, "rport", r->k.rport);
	json__key(j, "state");
	json_state(j, r->k.state);
	trace__json_int(j, "retransmits", r->v.retransmits);
	trace__json_int(j, "resets_sent", r->v.resets_sent);
	trace__json_int(j, "resets_received", r->v.resets_received);
}

/* The data, whichever way the totals and the flows were counted (maps, tracefs). */
static void json_flows(struct json *j, const uint64_t *tot, struct flow_row *rows, size_t nrows)
{
	qsort(rows, nrows, sizeof(*rows), by_retransmits_desc);

	trace__json_int(j, "retransmits", tot[TCPRETRANS_RETRANSMITS]);
	trace__json_int(j, "resets_sent", tot[TCPRETRANS_RESETS_SENT]);
	trace__json_int(j, "resets_received", tot[TCPRETRANS_RESETS_RECEIVED]);
	trace__json_top(j, "flows_seen", "flows", rows, nrows, sizeof(*rows), TOP_FLOWS, json_flow,
			NULL);
}

static int tcpretrans_collect(struct trace_run *t, struct json *j)
{
	struct tcpretrans_bpf *skel = t->skel;
	uint64_t tot[TCPRETRANS_TOTAL_NR];
	struct flow_row *rows = NULL;
	size_t nrows = 0;
	int err;

	if (!(err = trace_map__counters(bpf_map__fd(skel->maps.totals), tot, TCPRETRANS_TOTAL_NR)) &&
	    !(err = trace_map__read(bpf_map__fd(skel->maps.flows), &flow_rows, 0, (void **)&rows,
				    &nrows)))
		json_flows(j, tot, rows, nrows);
	free(rows);
	return err;
}

/* ---- the tracefs variant ---- */

struct ft_state {
	uint64_t tot[TCPRETRANS_TOTAL_NR];
	struct flow_row *rows;
	size_t nrows;
	uint64_t dropped;
};

static void *ft_new(void)
{
	struct ft_state *st = calloc(1, sizeof(*st));

	if (st && !(st->rows = calloc(TCPRETRANS_MAX_FLOWS, sizeof(*st->rows)))) {
		free(st);
		st = NULL;
	}
	return st;
}

static void ft_free(void *state)
{
	struct ft_state *st = state;

	free(st->rows);
	free(st);
}

/* field name's value as a NUL-terminated string in buf; 0 or -ENOENT */
static int ft_text(const struct ftrace_line *l, const char *name, char *buf, size_t cap)
{
	const char *v;
	size_t n;

	if (parse_ftrace_field(l->fields, l->fields_len, name, &v, &n) || n >= cap)
		return -ENOENT;
	memcpy(buf, v, n);
	buf[n] = '\0';
	return 0;
}

/* "TCP_ESTABLISHED" -> 1; 0 when unknown (as the BPF programs' "no socket") */
static __u8 ft_state_of(const struct ftrace_line *l)
{
	char buf[32];

	if (ft_text(l, "state", buf, sizeof(buf)) || strncmp(buf, "TCP_", 4))
		return TCPRETRANS_NO_SOCKET;
	for (__u8 s = 1; s < sizeof(tcp_state_names) / sizeof(tcp_state_names[0]); s++)
		if (!strcmp(buf + 4, tcp_state_names[s]))
			return s;
	return TCPRETRANS_NO_SOCKET;
}

/* "1.2.3.4:80" or "[::1]:80" (%pISpc) into family, address, port; 0 or -EINVAL */
static int ft_sockaddr(const char *text, __u16 *family, __u8 *addr, __u16 *port)
{
	char host[INET6_ADDRSTRLEN + 2];
	const char *colon = strrchr(text, ':');
	size_t n;

	if (!colon || (n = (size_t)(colon - text)) >= sizeof(host))
		return -EINVAL;
	memcpy(host, text, n);
	host[n] = '\0';
	*port = (__u16)strtoul(colon + 1, NULL, 10);
	if (host[0] == '[' && n > 2 && host[n - 1] == ']') {
		host[n - 1] = '\0';
		*family = AF_INET6;
		return inet_pton(AF_INET6, host + 1, addr) == 1 ? 0 : -EINVAL;
	}
	*family = AF_INET;
	return inet_pton(AF_INET, host, addr) == 1 ? 0 : -EINVAL;
}

/*
 * The flow of an event: "family=AF_INET sport= dport= saddr= daddr= saddrv6=
 * daddrv6= state=" (retransmit_skb, receive_reset, and send_reset before
 * 6.x), or "src=ADDR:PORT dest=ADDR:PORT state=" (send_reset since).
 */
static int ft_key(const struct ftrace_line *l, struct tcpretrans_key *k)
{
	char a[64], b[64];
	int64_t sp, dp;

	memset(k, 0, sizeof(*k));
	k->state = ft_state_of(l);
	if (!ft_text(l, "src", a, sizeof(a)) && !ft_text(l, "dest", b, sizeof(b))) {
		__u16 fb;

		return ft_sockaddr(a, &k->family, k->laddr, &k->lport) ||
		       ft_sockaddr(b, &fb, k->raddr, &k->rport) ? -EINVAL : 0;
	}
	if (ft_text(l, "family", a, sizeof(a)) ||
	    parse_ftrace_int(l->fields, l->fields_len, "sport", &sp) ||
	    parse_ftrace_int(l->fields, l->fields_len, "dport", &dp))
		return -EINVAL;
	k->lport = (__u16)sp;
	k->rport = (__u16)dp;
	if (!strcmp(a, "AF_INET6")) {
		k->family = AF_INET6;
		return ft_text(l, "saddrv6", a, sizeof(a)) || ft_text(l, "daddrv6", b, sizeof(b)) ||
		       inet_pton(AF_INET6, a, k->laddr) != 1 || inet_pton(AF_INET6, b, k->raddr) != 1 ?
			       -EINVAL : 0;
	}
	k->family = AF_INET;
	return ft_text(l, "saddr", a, sizeof(a)) || ft_text(l, "daddr", b, sizeof(b)) ||
	       inet_pton(AF_INET, a, k->laddr) != 1 || inet_pton(AF_INET, b, k->raddr) != 1 ?
		       -EINVAL : 0;
}

static void ft_line(void *state, const struct ftrace_line *l, int self)
{
	static const char *const events[TCPRETRANS_TOTAL_NR] = {
		[TCPRETRANS_RETRANSMITS] = "tcp_retransmit_skb",
		[TCPRETRANS_RESETS_SENT] = "tcp_send_reset",
		[TCPRETRANS_RESETS_RECEIVED] = "tcp_receive_reset",
	};
	struct ft_state *st = state;
	struct tcpretrans_key k;
	size_t i;
	int which;

	for (which = 0; which < TCPRETRANS_TOTAL_NR; which++)
		if (l->event_len == strlen(events[which]) &&
		    !memcmp(l->event, events[which], l->event_len))
			break;
	if (which == TCPRETRANS_TOTAL_NR)
		return;
	st->tot[which]++; /* exact, whatever the flow table holds */
	if (ft_key(l, &k))
		return;
	for (i = 0; i < st->nrows && memcmp(&st->rows[i].k, &k, sizeof(k)); i++)
		;
	if (i == st->nrows) {
		if (i == TCPRETRANS_MAX_FLOWS) {
			st->dropped++;
			return;
		}
		st->rows[st->nrows++].k = k;
	}
	if (which == TCPRETRANS_RETRANSMITS)
		st->rows[i].v.retransmits++;
	else if (which == TCPRETRANS_RESETS_SENT)
		st->rows[i].v.resets_sent++;
	else
		st->rows[i].v.resets_received++;
}

static int ft_collect(struct trace_run *t, void *state, struct json *j)
{
	struct ft_state *st = state;

	t->c.drops += st->dropped;
	json_flows(j, st->tot, st->rows, st->nrows);
	return 0;
}

static const struct ftrace_tool tcpretrans_ftrace = {
	/* the resets' events came later than the retransmits' (4.15, 4.16) */
	.events = { { "tcp", "tcp_retransmit_skb", NULL, 0 }, { "tcp", "tcp_send_reset", NULL, 1 },
		    { "tcp", "tcp_receive_reset", NULL, 1 } },
	.state_new = ft_new,
	.line = ft_line,
	.collect = ft_collect,
	.state_free = ft_free,
};

static void tcpretrans_destroy(void *skel)
{
	tcpretrans_bpf__destroy(skel);
}

const struct trace_tool trace_tcpretrans = {
	.name = "tcpretrans",
	.what = "TCP retransmits and resets per connection and state",
	.attach = { ATTACH_TP_BTF, ATTACH_RAW_TP, ATTACH_TRACEPOINT, ATTACH_TRACEFS, ATTACH_NR },
	.ftrace = &tcpretrans_ftrace,
	.open = tcpretrans_open,
	.collect = tcpretrans_collect,
	.destroy = tcpretrans_destroy,
	.hooks = { { HEV_TCP_RESEND, 1 } },
	.run_cost = 3.0,
	.instead = "the retransmit and reset counters of /proc/net/snmp",
};
