// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * net.links: what kind of link each interface is, and its queueing
 * disciplines' counters (rtnetlink). The kind (veth, bridge, tun, bond, team,
 * vlan, ...; none for a physical NIC) says whether the speed the interface
 * reports is a capacity: a veth or a bridge forwards in software at whatever
 * rate the CPU allows, and its "10000 Mb/s" is a number it makes up. Such a
 * link saturates in its queues: the qdisc's backlog, drops and requeues,
 * read every round.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/gen_stats.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include "collect/collectors.h"

#define LINKS_MAX 4096  /* interfaces, qdiscs per dump */

struct link_req {
	struct nlmsghdr nlh;
	union {
		struct ifinfomsg ifi;
		struct tcmsg tcm;
	};
};

/* Every attribute of a message's payload after its fixed header of hdrlen bytes, by type. */
static void attrs_of(const struct nlmsghdr *h, size_t hdrlen, const struct rtattr **tb, int max)
{
	const struct rtattr *a = (const struct rtattr *)((const char *)NLMSG_DATA(h) +
							 NLMSG_ALIGN(hdrlen));
	int len = (int)h->nlmsg_len - (int)NLMSG_LENGTH(hdrlen);

	memset(tb, 0, sizeof(*tb) * (size_t)(max + 1));
	for (; RTA_OK(a, len); a = RTA_NEXT(a, len))
		if (a->rta_type <= max && !tb[a->rta_type])
			tb[a->rta_type] = a;
}

static void nested_of(const struct rtattr *n, const struct rtattr **tb, int max)
{
	const struct rtattr *a = RTA_DATA(n);
	int len = (int)RTA_PAYLOAD(n);

	memset(tb, 0, sizeof(*tb) * (size_t)(max + 1));
	for (; RTA_OK(a, len); a = RTA_NEXT(a, len))
		if (a->rta_type <= max && !tb[a->rta_type])
			tb[a->rta_type] = a;
}

/* A string attribute as a word with no blank or control character (names from the kernel). */
static void attr_word(const struct rtattr *a, char *buf, size_t len)
{
	size_t n = 0;

	if (a) {
		const char *s = RTA_DATA(a);
		size_t max = RTA_PAYLOAD(a);

		for (; n < max && n + 1 < len && s[n]; n++)
			buf[n] = (s[n] > ' ' && s[n] < 127) ? s[n] : '?';
	}
	if (!n)
		buf[n++] = '-';
	buf[n] = '\0';
}

static uint32_t attr_u32(const struct rtattr *a)
{
	uint32_t v = 0;

	if (a && RTA_PAYLOAD(a) >= sizeof(v))
		memcpy(&v, RTA_DATA(a), sizeof(v));
	return v;
}

/* IFINDEX NAME KIND MASTER: KIND "-" for a physical device, MASTER 0 when none. */
static int on_link(const struct nlmsghdr *h, void *arg)
{
	const struct rtattr *tb[IFLA_MAX + 1], *li[IFLA_INFO_MAX + 1];
	const struct ifinfomsg *ifi = NLMSG_DATA(h);
	char name[64], kind[32] = "-";

	if (h->nlmsg_type != RTM_NEWLINK || h->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)))
		return 0;
	attrs_of(h, sizeof(*ifi), tb, IFLA_MAX);
	attr_word(tb[IFLA_IFNAME], name, sizeof(name));
	if (tb[IFLA_LINKINFO]) {
		nested_of(tb[IFLA_LINKINFO], li, IFLA_INFO_MAX);
		attr_word(li[IFLA_INFO_KIND], kind, sizeof(kind));
	}
	record__printf(arg, "%d %s %s %u\n", ifi->ifi_index, name, kind,
		       attr_u32(tb[IFLA_MASTER]));
	return 0;
}

/*
 * IFINDEX KIND HANDLE PARENT BYTES PACKETS DROPS OVERLIMITS REQUEUES BACKLOG QLEN,
 * handles in hex: from TCA_STATS2 (basic and queue), else the old TCA_STATS.
 */
static int on_qdisc(const struct nlmsghdr *h, void *arg)
{
	const struct rtattr *tb[TCA_MAX + 1], *st[TCA_STATS_MAX + 1];
	const struct tcmsg *tcm = NLMSG_DATA(h);
	struct gnet_stats_basic b = { 0 };
	struct gnet_stats_queue q = { 0 };
	char kind[32];

	if (h->nlmsg_type != RTM_NEWQDISC || h->nlmsg_len < NLMSG_LENGTH(sizeof(*tcm)))
		return 0;
	attrs_of(h, sizeof(*tcm), tb, TCA_MAX);
	attr_word(tb[TCA_KIND], kind, sizeof(kind));
	if (tb[TCA_STATS2]) {
		nested_of(tb[TCA_STATS2], st, TCA_STATS_MAX);
		if (st[TCA_STATS_BASIC])
			memcpy(&b, RTA_DATA(st[TCA_STATS_BASIC]),
			       RTA_PAYLOAD(st[TCA_STATS_BASIC]) < sizeof(b) ?
				       RTA_PAYLOAD(st[TCA_STATS_BASIC]) : sizeof(b));
		if (st[TCA_STATS_QUEUE])
			memcpy(&q, RTA_DATA(st[TCA_STATS_QUEUE]),
			       RTA_PAYLOAD(st[TCA_STATS_QUEUE]) < sizeof(q) ?
				       RTA_PAYLOAD(st[TCA_STATS_QUEUE]) : sizeof(q));
	} else if (tb[TCA_STATS] && RTA_PAYLOAD(tb[TCA_STATS]) >= sizeof(struct tc_stats)) {
		struct tc_stats old;

		memcpy(&old, RTA_DATA(tb[TCA_STATS]), sizeof(old));
		b.bytes = old.bytes;
		b.packets = old.packets;
		q.drops = old.drops;
		q.overlimits = old.overlimits;
		q.backlog = old.backlog;
		q.qlen = old.qlen;
	}
	record__printf(arg, "%d %s %x %x %llu %u %u %u %u %u %u\n", tcm->tcm_ifindex, kind,
		       tcm->tcm_handle, tcm->tcm_parent, (unsigned long long)b.bytes, b.packets,
		       q.drops, q.overlimits, q.requeues, q.backlog, q.qlen);
	return 0;
}

/* One dump into the composed record path; a failure is recorded with its errno. */
static void dump_record(struct reader *rd, struct capture_writer *w, const char *path, int type,
			netlink_fn fn)
{
	struct link_req q;
	struct strbuf out = { 0 };
	int err;

	memset(&q, 0, sizeof(q));
	q.nlh.nlmsg_type = (uint16_t)type;
	q.nlh.nlmsg_len = NLMSG_LENGTH(type == RTM_GETLINK ? sizeof(q.ifi) : sizeof(q.tcm));
	err = netlink__dump(rd, NETLINK_ROUTE, &q.nlh, LINKS_MAX, fn, &out);
	if (err == -E2BIG) {
		record__printf(&out, "cut\n");
		err = 0;
	}
	if (err)
		capture_writer__error(w, rd->seq, clock__ns(CLOCK_REALTIME),
				      clock__ns(CLOCK_MONOTONIC), path, -err);
	else if (!out.oom)
		reader__tee_text(rd, w, path, out.buf ? out.buf : "", out.len);
	strbuf__free(&out);
}

int links__probe(const char *root, char *why, size_t whylen)
{
	return collector__probe_path(root, "/proc/net/dev", "no network interfaces", why, whylen);
}

int links__sample(struct collector_state *cs, struct reader *rd, struct capture_writer *w,
		  int phase)
{
	if (phase & PHASE_FIRST)
		dump_record(rd, w, "sonde:links", RTM_GETLINK, on_link);
	dump_record(rd, w, "sonde:qdisc", RTM_GETQDISC, on_qdisc);
	return 0;
}
