// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The network tables that run out, as sonde composes them from sock_diag
 * and rtnetlink (docs/capture-format.md, net.sockets and net.links):
 * sonde:listen, sonde:accepts, sonde:owners, sonde:ports, sonde:links and
 * sonde:qdisc; and the "socket:[INODE]" of an fd's link. Formats in
 * parse.h; the rules every parser keeps are at the top of parse.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "util/parse.h"
#include "util/parse_scan.h"

/* A whole decimal field that fits in 32 bits (the kernel's u32 and unsigned int). */
static int scan_u32(const char **pp, const char *end, unsigned *out)
{
	uint64_t v;

	if (parse_scan_u64_field(pp, end, &v) || v > UINT32_MAX)
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

static int scan_hex32(const char **pp, const char *end, unsigned *out)
{
	const char *p = parse_skip_blanks(*pp, end);
	uint64_t v;

	if (parse_scan_hex(&p, end, &v) || v > UINT32_MAX || !parse_at_boundary(p, end))
		return -EINVAL;
	*out = (unsigned)v;
	*pp = p;
	return 0;
}

static int scan_port(const char **pp, const char *end, unsigned *out)
{
	return scan_u32(pp, end, out) || *out > 65535 ? -EINVAL : 0;
}

/* Nothing but blanks left on the line. */
static bool at_end(const char *p, const char *le)
{
	return parse_skip_blanks(p, le) == le;
}

static bool line_is(const char *ls, const char *le, const char *lit)
{
	const char *p = parse_skip_blanks(ls, le), *e = parse_token_end(p, le);

	return parse_word_is(p, (size_t)(e - p), lit) && at_end(e, le);
}

typedef int (*scan_fn)(const char *ls, const char *le, void *line);

/* The next complete line of [*pos, end) that scan accepts into line; false at the end. */
static bool next_scanned(const char **pos, const char *end, scan_fn scan, void *line)
{
	const char *ls, *le;

	while (parse_next_line(pos, end, &ls, &le))
		if (!scan(ls, le, line))
			return true;
	return false;
}

/* ---- sonde:listen ---- */

static int listen_line(const char *p, const char *le, void *out)
{
	struct net_listen_line *l = out;

	memset(l, 0, sizeof(*l));
	if (line_is(p, le, "cut")) {
		l->cut = 1;
		return 0;
	}
	if (scan_u32(&p, le, &l->family) || (l->family != 4 && l->family != 6) ||
	    parse_scan_word(&p, le, &l->addr) || scan_port(&p, le, &l->port) ||
	    scan_u32(&p, le, &l->queue) || scan_u32(&p, le, &l->backlog) ||
	    parse_scan_u64_field(&p, le, &l->inode) || scan_u32(&p, le, &l->uid) || !at_end(p, le))
		return -EINVAL;
	return 0;
}

int parse_net_listen(const char *buf, size_t len, net_listen_fn fn, void *arg)
{
	const char *pos = buf;
	struct net_listen_line l;
	int ret = 0;

	while (!ret && buf && next_scanned(&pos, buf + len, listen_line, &l))
		ret = fn(&l, arg);
	return ret;
}

/* ---- sonde:accepts ---- */

static int accepts_line(const char *p, const char *le, void *out)
{
	struct net_accepts_line *a = out;
	struct parse_word fresh;

	memset(a, 0, sizeof(*a));
	if (parse_scan_word(&p, le, &a->addr) || scan_port(&p, le, &a->port) ||
	    parse_scan_u64_field(&p, le, &a->accepted) || parse_scan_word(&p, le, &fresh) ||
	    !at_end(p, le))
		return -EINVAL;
	/* NEW is "-" the first time the listener is followed */
	if (parse_word_is(fresh.p, fresh.n, "-"))
		return 0;
	if (parse_word_u64(fresh, &a->fresh))
		return -EINVAL;
	a->has_fresh = 1;
	return 0;
}

int parse_net_accepts(const char *buf, size_t len, net_accepts_fn fn, void *arg)
{
	const char *pos = buf;
	struct net_accepts_line a;
	int ret = 0;

	while (!ret && buf && next_scanned(&pos, buf + len, accepts_line, &a))
		ret = fn(&a, arg);
	return ret;
}

/* ---- sonde:owners ---- */

static int owners_line(const char *p, const char *le, void *out)
{
	struct net_owner_line *o = out;
	const char *w = parse_skip_blanks(p, le), *we = parse_token_end(w, le);
	struct parse_word cut;

	memset(o, 0, sizeof(*o));
	if (parse_word_is(w, (size_t)(we - w), "scanned")) {
		p = we;
		if (parse_scan_u64_field(&p, le, &o->procs) ||
		    parse_scan_u64_field(&p, le, &o->fds))
			return -EINVAL;
		if (!parse_scan_word(&p, le, &cut)) {
			if (!parse_word_is(cut.p, cut.n, "cut") || !at_end(p, le))
				return -EINVAL;
			o->cut = 1;
		}
		o->scanned = 1;
		return 0;
	}
	if (parse_scan_u64_field(&p, le, &o->inode) || scan_u32(&p, le, &o->pid) ||
	    scan_u32(&p, le, &o->fd) || !at_end(p, le))
		return -EINVAL;
	return 0;
}

int parse_net_owners(const char *buf, size_t len, net_owner_fn fn, void *arg)
{
	const char *pos = buf;
	struct net_owner_line o;
	int ret = 0;

	while (!ret && buf && next_scanned(&pos, buf + len, owners_line, &o))
		ret = fn(&o, arg);
	return ret;
}

/* ---- sonde:ports ---- */

/* "-", or INODE[,INODE...] */
static int ports_inodes(struct parse_word w, struct net_ports_line *l)
{
	const char *p = w.p, *end = w.p + w.n;

	if (parse_word_is(w.p, w.n, "-"))
		return 0;
	for (;;) {
		uint64_t v;

		if (parse_scan_u64(&p, end, &v))
			return -EINVAL;
		if (l->ninodes < NET_PORTS_INODES)
			l->inodes[l->ninodes++] = v;
		if (p == end)
			return 0;
		if (*p++ != ',')
			return -EINVAL;
	}
}

/* "dst ADDR PORT COUNT INODES [TIMEWAIT]" (TIMEWAIT since the record had it) */
static int ports_dst(const char *p, const char *le, struct net_ports_line *l)
{
	struct parse_word inodes;

	l->kind = NET_PORTS_DST;
	if (parse_scan_word(&p, le, &l->addr) || scan_port(&p, le, &l->port) ||
	    parse_scan_u64_field(&p, le, &l->count) || parse_scan_word(&p, le, &inodes) ||
	    ports_inodes(inodes, l))
		return -EINVAL;
	if (at_end(p, le))
		return 0;
	if (parse_scan_u64_field(&p, le, &l->timewait) || !at_end(p, le))
		return -EINVAL;
	l->has_timewait = 1;
	return 0;
}

static int ports_line(const char *p, const char *le, void *out)
{
	struct net_ports_line *l = out;
	struct parse_word w;

	memset(l, 0, sizeof(*l));
	if (parse_scan_word(&p, le, &w))
		return -EINVAL;
	if (parse_word_is(w.p, w.n, "cut")) {
		l->kind = NET_PORTS_CUT;
		return at_end(p, le) ? 0 : -EINVAL;
	}
	if (parse_word_is(w.p, w.n, "dst"))
		return ports_dst(p, le, l);
	if (parse_word_is(w.p, w.n, "range")) {
		l->kind = NET_PORTS_RANGE;
		return scan_port(&p, le, &l->lo) || scan_port(&p, le, &l->hi) || !at_end(p, le) ?
			       -EINVAL : 0;
	}
	/* "sockets N", "timewait N", "ports N", "other N" */
	l->kind = NET_PORTS_TOTAL;
	l->name = w;
	return parse_scan_u64_field(&p, le, &l->value) || !at_end(p, le) ? -EINVAL : 0;
}

int parse_net_ports(const char *buf, size_t len, net_ports_fn fn, void *arg)
{
	const char *pos = buf;
	struct net_ports_line l;
	int ret = 0;

	while (!ret && buf && next_scanned(&pos, buf + len, ports_line, &l))
		ret = fn(&l, arg);
	return ret;
}

/* ---- sonde:links, sonde:qdisc ---- */

static int links_line(const char *p, const char *le, void *out)
{
	struct net_link_line *l = out;

	memset(l, 0, sizeof(*l));
	if (scan_u32(&p, le, &l->ifindex) || l->ifindex > INT_MAX ||
	    parse_scan_word(&p, le, &l->name) || parse_scan_word(&p, le, &l->kind) ||
	    scan_u32(&p, le, &l->master) || !at_end(p, le))
		return -EINVAL;
	if (parse_word_is(l->kind.p, l->kind.n, "-"))
		l->kind.n = 0; /* a physical device */
	return 0;
}

int parse_net_links(const char *buf, size_t len, net_link_fn fn, void *arg)
{
	const char *pos = buf;
	struct net_link_line l;
	int ret = 0;

	while (!ret && buf && next_scanned(&pos, buf + len, links_line, &l))
		ret = fn(&l, arg);
	return ret;
}

static int qdisc_line(const char *p, const char *le, void *out)
{
	struct net_qdisc_line *q = out;
	unsigned *u32s[] = { &q->packets, &q->drops, &q->overlimits, &q->requeues, &q->backlog,
			     &q->qlen };

	memset(q, 0, sizeof(*q));
	if (scan_u32(&p, le, &q->ifindex) || q->ifindex > INT_MAX ||
	    parse_scan_word(&p, le, &q->kind) || scan_hex32(&p, le, &q->handle) ||
	    scan_hex32(&p, le, &q->parent) || parse_scan_u64_field(&p, le, &q->bytes))
		return -EINVAL;
	for (size_t i = 0; i < sizeof(u32s) / sizeof(u32s[0]); i++)
		if (scan_u32(&p, le, u32s[i]))
			return -EINVAL;
	return at_end(p, le) ? 0 : -EINVAL;
}

int parse_net_qdisc(const char *buf, size_t len, net_qdisc_fn fn, void *arg)
{
	const char *pos = buf;
	struct net_qdisc_line q;
	int ret = 0;

	while (!ret && buf && next_scanned(&pos, buf + len, qdisc_line, &q))
		ret = fn(&q, arg);
	return ret;
}

/* ---- an fd's link ---- */

int parse_socket_link(const char *s, size_t n, uint64_t *inode)
{
	const char *p = s, *end = s + n;

	if (n < 10 || memcmp(s, "socket:[", 8))
		return -EINVAL;
	p += 8;
	if (parse_scan_u64(&p, end, inode) || p + 1 != end || *p != ']')
		return -EINVAL;
	return 0;
}
