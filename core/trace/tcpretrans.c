// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tcpretrans: TCP retransmits and resets per connection. data = {
 *   retransmits, resets_sent, resets_received   (totals of the window, exact),
 *   flows_seen                                  (connections in the kernel's map),
 *   flows = top 50 by retransmits, then resets: { family ("ipv4"|"ipv6"),
 *     laddr, lport, raddr, rport, state ("ESTABLISHED", ...), retransmits,
 *     resets_sent, resets_received } }.
 * A connection that changed state during the window has one entry per state.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

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

static int tcpretrans_collect(struct trace_run *t, struct json *j)
{
	struct tcpretrans_bpf *skel = t->skel;
	uint64_t tot[TCPRETRANS_TOTAL_NR];
	struct flow_row *rows = NULL;
	size_t nrows = 0;
	int err;

	if ((err = trace_map__counters(bpf_map__fd(skel->maps.totals), tot, TCPRETRANS_TOTAL_NR)) ||
	    (err = trace_map__read(bpf_map__fd(skel->maps.flows), &flow_rows, 0, (void **)&rows,
				   &nrows)))
		goto cleanup;
	qsort(rows, nrows, sizeof(*rows), by_retransmits_desc);

	trace__json_int(j, "retransmits", tot[TCPRETRANS_RETRANSMITS]);
	trace__json_int(j, "resets_sent", tot[TCPRETRANS_RESETS_SENT]);
	trace__json_int(j, "resets_received", tot[TCPRETRANS_RESETS_RECEIVED]);
	trace__json_top(j, "flows_seen", "flows", rows, nrows, sizeof(*rows), TOP_FLOWS, json_flow,
			NULL);
cleanup:
	free(rows);
	return err;
}

static void tcpretrans_destroy(void *skel)
{
	tcpretrans_bpf__destroy(skel);
}

const struct trace_tool trace_tcpretrans = {
	.name = "tcpretrans",
	.what = "TCP retransmits and resets per connection and state",
	.attach = { ATTACH_TP_BTF, ATTACH_RAW_TP, ATTACH_TRACEPOINT, ATTACH_NR },
	.open = tcpretrans_open,
	.collect = tcpretrans_collect,
	.destroy = tcpretrans_destroy,
	.hooks = { { HEV_TCP_RESEND, 1 } },
	.run_cost = 3.0,
	.instead = "the retransmit and reset counters of /proc/net/snmp",
};
