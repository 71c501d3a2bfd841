// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tcpdrop: packets the kernel dropped (skb:kfree_skb) by reason. data = {
 *   reason_source  where the reason names come from (the running kernel's BTF),
 *                  or why there are none,
 *   not_drops      reasons that mean "freed after use", not a drop
 *                  (CONSUMED, NOT_DROPPED_YET where the kernel has them):
 *                  counted under freed_not_dropped, left out of drops,
 *   drops, freed_not_dropped,
 *   reasons        [{ reason, code, count, drop }] every reason seen, most first
 *                  (reason "unknown": a kernel whose kfree_skb has no reason),
 *   by_protocol    [{ reason, protocol ("IPv4", "IPv6", "ARP", "none", "0x88cc"),
 *                  ethertype, count }] top 50, drops only,
 *   flows_seen, flows  [{ reason, proto ("tcp"|"udp"), family, saddr, sport,
 *                  daddr, dport, count }] top 50 dropped TCP/UDP packets by
 *                  source -> destination as the packet says, drops only }.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "trace/maps.h"
#include "trace/trace.h"
#include "tcpdrop.h"
#include "tcpdrop.skel.h"

#define TOP_ROWS 50
#define MAX_NAMES 1024

static void *tcpdrop_open(struct bpf_object **obj)
{
	struct tcpdrop_bpf *skel = tcpdrop_bpf__open();

	if (skel)
		*obj = skel->obj;
	return skel;
}

/* The names of enum skb_drop_reason, read from the running kernel at collect time. */
struct reason_names {
	int have;          /* the enum was found */
	char source[256];  /* where the names come from, or why there are none */
	size_t n;
	struct {
		__u32 code;
		char name[64];
	} e[MAX_NAMES];
};

static void reason_names__load(struct reason_names *rn)
{
	struct btf *btf = btf__load_vmlinux_btf();
	const struct btf_type *t;
	const struct btf_enum *e;
	int id;

	rn->have = 0;
	rn->n = 0;
	if (!btf) {
		snprintf(rn->source, sizeof(rn->source),
			 "none: the kernel's BTF could not be read (%s); reasons are codes",
			 strerror(errno));
		return;
	}
	id = btf__find_by_name_kind(btf, "skb_drop_reason", BTF_KIND_ENUM);
	if (id < 0) {
		snprintf(rn->source, sizeof(rn->source),
			 "none: this kernel has no enum skb_drop_reason (before 5.17): its "
			 "kfree_skb tracepoint carries no reason");
		goto cleanup;
	}
	t = btf__type_by_id(btf, id);
	e = btf_enum(t);
	for (int i = 0; i < btf_vlen(t) && rn->n < MAX_NAMES; i++, e++) {
		const char *name = btf__name_by_offset(btf, e->name_off);

		if (!name)
			continue;
		/* SKB_DROP_REASON_NO_SOCKET -> NO_SOCKET, SKB_CONSUMED -> CONSUMED */
		if (!strncmp(name, "SKB_DROP_REASON_", 16))
			name += 16;
		else if (!strncmp(name, "SKB_", 4))
			name += 4;
		rn->e[rn->n].code = (__u32)e->val;
		snprintf(rn->e[rn->n].name, sizeof(rn->e[rn->n].name), "%s", name);
		rn->n++;
	}
	rn->have = 1;
	snprintf(rn->source, sizeof(rn->source), "kernel BTF (enum skb_drop_reason, %zu values)",
		 rn->n);
cleanup:
	btf__free(btf);
}

static const char *reason_names__find(const struct reason_names *rn, __u32 code)
{
	for (size_t i = 0; i < rn->n; i++)
		if (rn->e[i].code == code)
			return rn->e[i].name;
	return NULL;
}

/*
 * Markers, not reasons: MAX ends the core list; the subsystem values are
 * shifts. They are never a packet's reason.
 */
static int reason_is_marker(const char *name)
{
	return !strcmp(name, "MAX") || !strncmp(name, "SUBSYS_", 7);
}

static int reason_is_not_drop(const struct reason_names *rn, __u32 code)
{
	const char *name = reason_names__find(rn, code);

	return name && (!strcmp(name, "CONSUMED") || !strcmp(name, "NOT_DROPPED_YET"));
}

static void json_reason(struct json *j, const struct reason_names *rn, __u32 code)
{
	const char *name = reason_names__find(rn, code);
	char buf[64];

	if (code == TCPDROP_REASON_UNKNOWN) {
		json__string(j, "unknown");
		return;
	}
	if (name && !reason_is_marker(name)) {
		json__string(j, name);
		return;
	}
	/* A subsystem's own reason (mac80211, openvswitch): its enum is in a module's BTF. */
	if (code >> 16)
		snprintf(buf, sizeof(buf), "subsystem %u reason %u", code >> 16, code & 0xffff);
	else
		snprintf(buf, sizeof(buf), "code %u", code);
	json__string(j, buf);
}

static void json_protocol(struct json *j, __u16 p)
{
	char buf[16];

	switch (p) {
	case 0x0800:
		json__string(j, "IPv4");
		return;
	case 0x86dd:
		json__string(j, "IPv6");
		return;
	case 0x0806:
		json__string(j, "ARP");
		return;
	case 0x8100:
		json__string(j, "VLAN");
		return;
	case 0:
		/* locally built packets that never had an L2 type (netlink, unix sockets) */
		json__string(j, "none");
		return;
	}
	snprintf(buf, sizeof(buf), "0x%04x", p);
	json__string(j, buf);
}

static void json_addr(struct json *j, unsigned int family, const unsigned char *addr)
{
	char buf[INET6_ADDRSTRLEN];

	if ((family == AF_INET || family == AF_INET6) && inet_ntop(family, addr, buf, sizeof(buf)))
		json__string(j, buf);
	else
		json__string(j, "?");
}

/* One key-value row of either map, with the count last for sorting. */
struct row {
	union {
		struct tcpdrop_reason_key r;
		struct tcpdrop_flow_key f;
	} k;
	__u64 count;
};

static const struct trace_map_row reason_rows = TRACE_MAP_ROW(struct row, k.r, count);
static const struct trace_map_row flow_rows = TRACE_MAP_ROW(struct row, k.f, count);

static int by_count_desc(const void *a, const void *b)
{
	return trace__cmp_desc(((const struct row *)a)->count, ((const struct row *)b)->count);
}

/* Every entry of a map of counts, most first. 0 or -errno. */
static int read_rows(int fd, const struct trace_map_row *l, struct row **rows, size_t *n)
{
	int err = trace_map__read(fd, l, 0, (void **)rows, n);

	if (!err && *n)
		qsort(*rows, *n, sizeof(**rows), by_count_desc);
	return err;
}

struct reason_total {
	__u32 code;
	__u64 count;
};

static int by_total_desc(const void *a, const void *b)
{
	return trace__cmp_desc(((const struct reason_total *)a)->count,
			       ((const struct reason_total *)b)->count);
}

/* The drops, the frees that are not drops, and the count of each reason (most first). */
struct drop_totals {
	__u64 drops, freed;
	struct reason_total *v;
	size_t n;
};

static int add_reasons(const struct reason_names *rn, const struct row *rows, size_t n,
		       struct drop_totals *dt)
{
	dt->v = calloc(n ? n : 1, sizeof(*dt->v));
	if (!dt->v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		size_t k;

		if (reason_is_not_drop(rn, rows[i].k.r.reason))
			dt->freed += rows[i].count;
		else
			dt->drops += rows[i].count;
		for (k = 0; k < dt->n && dt->v[k].code != rows[i].k.r.reason; k++)
			;
		if (k == dt->n)
			dt->v[dt->n++].code = rows[i].k.r.reason;
		dt->v[k].count += rows[i].count;
	}
	if (dt->n)
		qsort(dt->v, dt->n, sizeof(*dt->v), by_total_desc);
	return 0;
}

static void json_reasons(struct json *j, const struct reason_names *rn,
			 const struct drop_totals *dt)
{
	json__key(j, "reason_source");
	json__string(j, rn->source);
	json__key(j, "not_drops");
	json__begin_array(j);
	for (size_t i = 0; i < rn->n; i++)
		if (reason_is_not_drop(rn, rn->e[i].code))
			json__string(j, rn->e[i].name);
	json__end_array(j);
	trace__json_int(j, "drops", dt->drops);
	trace__json_int(j, "freed_not_dropped", dt->freed);

	json__key(j, "reasons");
	json__begin_array(j);
	for (size_t i = 0; i < dt->n; i++) {
		__u32 code = dt->v[i].code;

		json__begin_object(j);
		json__key(j, "reason");
		json_reason(j, rn, code);
		trace__json_int(j, "code", code == TCPDROP_REASON_UNKNOWN ? -1 : (int64_t)code);
		trace__json_int(j, "count", dt->v[i].count);
		json__key(j, "drop");
		json__bool(j, !reason_is_not_drop(rn, code));
		json__end_object(j);
	}
	json__end_array(j);
}

/* The top (reason, protocol) rows of drops (the frees that are not drops left out). */
static void json_by_protocol(struct json *j, const struct reason_names *rn,
			     const struct row *rows, size_t n)
{
	size_t shown = 0;

	json__key(j, "by_protocol");
	json__begin_array(j);
	for (size_t i = 0; i < n && shown < TOP_ROWS; i++) {
		const struct tcpdrop_reason_key *k = &rows[i].k.r;

		if (reason_is_not_drop(rn, k->reason))
			continue;
		shown++;
		json__begin_object(j);
		json__key(j, "reason");
		json_reason(j, rn, k->reason);
		json__key(j, "protocol");
		json_protocol(j, k->protocol);
		trace__json_int(j, "ethertype", k->protocol);
		trace__json_int(j, "count", rows[i].count);
		json__end_object(j);
	}
	json__end_array(j);
}

static void json_flow(struct json *j, const void *row, void *rn)
{
	const struct row *r = row;
	const struct tcpdrop_flow_key *k = &r->k.f;

	json__key(j, "reason");
	json_reason(j, rn, k->reason);
	json__key(j, "proto");
	json__string(j, k->l4 == 6 ? "tcp" : k->l4 == 17 ? "udp" : "?");
	json__key(j, "family");
	json__string(j, k->family == AF_INET ? "ipv4" : "ipv6");
	json__key(j, "saddr");
	json_addr(j, k->family, k->saddr);
	trace__json_int(j, "sport", k->sport);
	json__key(j, "daddr");
	json_addr(j, k->family, k->daddr);
	trace__json_int(j, "dport", k->dport);
	trace__json_int(j, "count", r->count);
}

static int tcpdrop_collect(struct trace_run *t, struct json *j)
{
	struct tcpdrop_bpf *skel = t->skel;
	struct reason_names *rn = calloc(1, sizeof(*rn));
	struct row *rrows = NULL, *frows = NULL;
	struct drop_totals dt = { 0 };
	size_t nr = 0, nf = 0;
	int err;

	if (!rn)
		return -ENOMEM;
	reason_names__load(rn);
	if ((err = read_rows(bpf_map__fd(skel->maps.reasons), &reason_rows, &rrows, &nr)) ||
	    (err = read_rows(bpf_map__fd(skel->maps.flows), &flow_rows, &frows, &nf)) ||
	    (err = add_reasons(rn, rrows, nr, &dt)))
		goto cleanup;

	json_reasons(j, rn, &dt);
	json_by_protocol(j, rn, rrows, nr);
	trace__json_top(j, "flows_seen", "flows", frows, nf, sizeof(*frows), TOP_ROWS, json_flow,
			rn);
cleanup:
	free(dt.v);
	free(rrows);
	free(frows);
	free(rn);
	return err;
}

static void tcpdrop_destroy(void *skel)
{
	tcpdrop_bpf__destroy(skel);
}

const struct trace_tool trace_tcpdrop = {
	.name = "tcpdrop",
	.what = "packets the kernel dropped, by drop reason, protocol and TCP/UDP flow",
	.attach = { ATTACH_TP_BTF, ATTACH_RAW_TP, ATTACH_TRACEPOINT, ATTACH_NR },
	.open = tcpdrop_open,
	.collect = tcpdrop_collect,
	.destroy = tcpdrop_destroy,
	.hooks = { { HEV_NET_DROP, 1 } },
	.run_cost = 3.0,
	.instead = "the drop counters of /proc/net/snmp and /proc/net/dev",
};
