// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * net.sockets: the network tables that run out. Every round: each TCP
 * listener's accept queue against its backlog (sock_diag), the ephemeral
 * ports in use per destination against ip_local_port_range (sock_diag, the
 * kernel filtering on the port range), the conntrack table's count and
 * maximum, and /proc/net/sockstat. For the few listeners whose queue fills
 * (the suspects), the connections accepted each round; in the last round,
 * who owns the suspects' sockets and the busiest destination's (a walk of
 * the fd tables of the processes of the sockets' uids, bounded).
 *
 * All of it is counters the kernel keeps and tables it dumps on request: no
 * tracing, nothing per packet.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>

#include "collect/collectors.h"
#include "util/parse.h"

#define LISTEN_MAX 1024     /* listeners kept per round (a dump is cut past it) */
#define PORTS_MSGS 262144   /* sockets of the ephemeral-port dump handled per round */
#define DEST_MAX 4096       /* destinations counted; the rest go to "other" */
#define DEST_SLOTS 8192     /* their index (a power of two, twice DEST_MAX) */
#define DEST_SHOWN 8
#define SUSPECT_MAX 8       /* listeners whose accepts are followed */
#define ACCEPTED_MAX 65536  /* accepted sockets remembered per suspect listener */
#define OWNER_WANT_MAX 32   /* socket inodes whose owner is looked for */
#define OWNER_FD_BUDGET 200000 /* fds looked at in the owner walk, at most */

/* TCP states, as the kernel numbers them (include/net/tcp_states.h). */
enum { ST_ESTABLISHED = 1, ST_SYN_SENT, ST_SYN_RECV, ST_FIN_WAIT1, ST_FIN_WAIT2, ST_TIME_WAIT,
       ST_CLOSE, ST_CLOSE_WAIT, ST_LAST_ACK, ST_LISTEN, ST_CLOSING };

struct listener {
	int family;
	uint8_t addr[16];
	uint16_t port;
	uint32_t rq, backlog, uid;
	uint64_t inode;
};

struct suspect {
	struct listener l;
	uint64_t *accepted; /* inodes of its accepted sockets last round, sorted */
	size_t naccepted;
	int followed;       /* the accepted sockets were counted at least once */
};

struct dest {
	int family;
	uint8_t addr[16];
	uint16_t port;
	uint32_t count, timewait;
	uint64_t inode[4];  /* a few of its sockets, for the owner walk */
	uint32_t uid[4];
	int ninode;
};

struct sock_state {
	uint32_t lo, hi;            /* ip_local_port_range; hi 0: unknown */
	struct listener *ls;        /* this round's listeners */
	size_t nls;
	struct suspect sus[SUSPECT_MAX];
	size_t nsus;
	struct dest *dest;          /* this round's destinations */
	size_t ndest;
	uint16_t slot[DEST_SLOTS];  /* index+1 into dest, by dest_hash; 0 empty */
	uint64_t other, sockets, ports, timewait;
	uint8_t portmap[65536 / 8];
	int cut;
};

/* ---- sock_diag requests ---- */

struct diag_req {
	struct nlmsghdr nlh;
	struct inet_diag_req_v2 r;
	struct nlattr bc_hdr;
	struct inet_diag_bc_op bc[4];
};

/* The legacy request (TCPDIAG_GETSOCK): the kernel answers it for every family. */
struct diag_req_any {
	struct nlmsghdr nlh;
	struct inet_diag_req r;
	struct nlattr bc_hdr;
	struct inet_diag_bc_op bc[4];
};

/*
 * The filter: sport >= lo, then sport <= hi. A test that fails jumps past the
 * end of the program (rejected), one that holds goes to the next op.
 */
static void port_filter(struct nlattr *hdr, struct inet_diag_bc_op *bc, uint16_t lo, uint16_t hi)
{
	bc[0] = (struct inet_diag_bc_op){ INET_DIAG_BC_S_GE, 8, 20 };
	bc[1] = (struct inet_diag_bc_op){ 0, 0, lo };
	bc[2] = (struct inet_diag_bc_op){ INET_DIAG_BC_S_LE, 8, 12 };
	bc[3] = (struct inet_diag_bc_op){ 0, 0, hi };
	hdr->nla_type = INET_DIAG_REQ_BYTECODE;
	hdr->nla_len = NLA_HDRLEN + 4 * sizeof(*bc);
}

/*
 * A dump of TCP sockets of family in the states mask, with the source port
 * between lo and hi when hi is set (the kernel runs the filter: only matching
 * sockets cross into user space).
 */
static int diag_dump(struct reader *rd, int family, uint32_t states, uint16_t lo, uint16_t hi,
		     size_t max, netlink_fn fn, void *arg)
{
	struct diag_req q;

	memset(&q, 0, sizeof(q));
	q.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	q.r.sdiag_family = (uint8_t)family;
	q.r.sdiag_protocol = IPPROTO_TCP;
	q.r.idiag_states = states;
	q.nlh.nlmsg_len = NLMSG_LENGTH(sizeof(q.r));
	if (hi) {
		port_filter(&q.bc_hdr, q.bc, lo, hi);
		q.nlh.nlmsg_len = sizeof(q);
	}
	return netlink__dump(rd, NETLINK_SOCK_DIAG, &q.nlh, max, fn, arg);
}

/*
 * The same dump, IPv4 and IPv6 in one answer: the kernel walks its hash of
 * connected sockets (one bucket per few KB of RAM: MBs on a large host, most
 * of the cost of a round here) once, not once per family. The legacy request
 * asks for any family; a kernel without it says so (an error), and the caller
 * asks per family.
 */
static int diag_dump_any(struct reader *rd, uint32_t states, uint16_t lo, uint16_t hi,
			 size_t max, netlink_fn fn, void *arg)
{
	struct diag_req_any q;

	_Static_assert(sizeof(struct diag_req_any) ==
			       NLMSG_LENGTH(sizeof(struct inet_diag_req)) + NLA_HDRLEN +
				       4 * sizeof(struct inet_diag_bc_op),
		       "the filter follows the request, unpadded");
	memset(&q, 0, sizeof(q));
	q.nlh.nlmsg_type = TCPDIAG_GETSOCK;
	q.r.idiag_family = AF_INET; /* ignored: the legacy request dumps every family */
	q.r.idiag_states = states;
	port_filter(&q.bc_hdr, q.bc, lo, hi);
	q.nlh.nlmsg_len = sizeof(q);
	return netlink__dump(rd, NETLINK_SOCK_DIAG, &q.nlh, max, fn, arg);
}

static const struct inet_diag_msg *diag_msg(const struct nlmsghdr *h)
{
	/* the legacy request's answers carry its type */
	if ((h->nlmsg_type != SOCK_DIAG_BY_FAMILY && h->nlmsg_type != TCPDIAG_GETSOCK) ||
	    h->nlmsg_len < NLMSG_LENGTH(sizeof(struct inet_diag_msg)))
		return NULL;
	return NLMSG_DATA(h);
}

static void addr_copy(uint8_t *dst, const struct inet_diag_msg *m, int src)
{
	memset(dst, 0, 16);
	memcpy(dst, src ? m->id.idiag_src : m->id.idiag_dst, m->idiag_family == AF_INET ? 4 : 16);
}

static const char *addr_text(int family, const uint8_t *a, char *buf, size_t len)
{
	if (!inet_ntop(family, a, buf, (socklen_t)len))
		snprintf(buf, len, "?");
	return buf;
}

/* ---- listeners ---- */

static int on_listener(const struct nlmsghdr *h, void *arg)
{
	struct sock_state *s = arg;
	const struct inet_diag_msg *m = diag_msg(h);
	struct listener *l;

	if (!m || m->idiag_state != ST_LISTEN)
		return 0;
	if (s->nls == LISTEN_MAX) {
		s->cut = 1;
		return 1;
	}
	l = &s->ls[s->nls++];
	l->family = m->idiag_family;
	addr_copy(l->addr, m, 1);
	l->port = ntohs(m->id.idiag_sport);
	l->rq = m->idiag_rqueue;
	l->backlog = m->idiag_wqueue;
	l->uid = m->idiag_uid;
	l->inode = m->idiag_inode;
	return 0;
}

/* A listener whose accept queue reached half its backlog: its accepts are followed from now. */
static void suspects__note(struct sock_state *s, const struct listener *l)
{
	if (!l->backlog || 2 * (uint64_t)l->rq < l->backlog)
		return;
	for (size_t i = 0; i < s->nsus; i++)
		if (s->sus[i].l.inode == l->inode && s->sus[i].l.port == l->port)
			return;
	if (s->nsus == SUSPECT_MAX)
		return;
	memset(&s->sus[s->nsus], 0, sizeof(s->sus[0]));
	s->sus[s->nsus++].l = *l;
}

/* FAMILY ADDR PORT QUEUE BACKLOG INODE UID, one listener per line. */
static void listeners_sample(struct sock_state *s, struct reader *rd, struct capture_writer *w)
{
	static const int fams[] = { AF_INET, AF_INET6 };
	struct strbuf out = { 0 };
	int err = 0;

	s->nls = 0;
	s->cut = 0;
	for (size_t f = 0; f < 2 && !err; f++) {
		err = diag_dump(rd, fams[f], 1u << ST_LISTEN, 0, 0, LISTEN_MAX, on_listener, s);
		/* no IPv6 in this kernel: the IPv4 listeners stand */
		if (err == -EAFNOSUPPORT || err == -ENOENT)
			err = f ? 0 : err;
	}
	if (err && err != -E2BIG) {
		capture_writer__error(w, rd->seq, clock__ns(CLOCK_REALTIME),
				      clock__ns(CLOCK_MONOTONIC), "sonde:listen", -err);
		return;
	}
	for (size_t i = 0; i < s->nls; i++) {
		const struct listener *l = &s->ls[i];
		char a[64];

		record__printf(&out, "%d %s %u %u %u %llu %u\n", l->family == AF_INET ? 4 : 6,
			       addr_text(l->family, l->addr, a, sizeof(a)), l->port, l->rq,
			       l->backlog, (unsigned long long)l->inode, l->uid);
		suspects__note(s, l);
	}
	if (s->cut || err == -E2BIG)
		record__printf(&out, "cut\n");
	if (!out.oom)
		reader__tee_text(rd, w, "sonde:listen", out.buf ? out.buf : "", out.len);
	strbuf__free(&out);
}

/* ---- accepts of the suspect listeners ---- */

struct accept_walk {
	const struct suspect *sus;
	uint64_t *now;
	size_t n, cap;
};

static int on_child(const struct nlmsghdr *h, void *arg)
{
	struct accept_walk *a = arg;
	const struct inet_diag_msg *m = diag_msg(h);
	uint8_t src[16];

	if (!m || !m->idiag_inode || m->idiag_family != a->sus->l.family)
		return 0;
	/* A listener on a wildcard address takes connections to any local address. */
	addr_copy(src, m, 1);
	if (memcmp(a->sus->l.addr, (uint8_t[16]){ 0 }, 16) && memcmp(src, a->sus->l.addr, 16))
		return 0;
	if (a->n == a->cap)
		return 1;
	a->now[a->n++] = m->idiag_inode;
	return 0;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/*
 * ADDR PORT ACCEPTED NEW, one suspect listener per line: the connections it
 * has accepted (sockets of its port with an inode: accept() gives them one)
 * and how many of them were not there last round. A connection accepted and
 * closed between two rounds is missed: NEW is a lower bound of the accepts.
 */
static void accepts_sample(struct sock_state *s, struct reader *rd, struct capture_writer *w)
{
	const uint32_t states = (1u << ST_ESTABLISHED) | (1u << ST_CLOSE_WAIT) |
				(1u << ST_FIN_WAIT1) | (1u << ST_FIN_WAIT2) |
				(1u << ST_LAST_ACK) | (1u << ST_CLOSING);
	struct strbuf out = { 0 };

	if (!s->nsus)
		return;
	for (size_t i = 0; i < s->nsus; i++) {
		struct suspect *su = &s->sus[i];
		struct accept_walk a = { su, NULL, 0, ACCEPTED_MAX };
		size_t fresh = 0, k = 0;
		char addr[64];
		int err;

		a.now = malloc(ACCEPTED_MAX * sizeof(*a.now));
		if (!a.now)
			break;
		err = diag_dump(rd, su->l.family, states, su->l.port, su->l.port,
				ACCEPTED_MAX, on_child, &a);
		if (err && err != -E2BIG) {
			free(a.now);
			continue;
		}
		qsort(a.now, a.n, sizeof(*a.now), cmp_u64);
		for (size_t j = 0; j < a.n; j++) {
			while (k < su->naccepted && su->accepted[k] < a.now[j])
				k++;
			if (k == su->naccepted || su->accepted[k] != a.now[j])
				fresh++;
		}
		addr_text(su->l.family, su->l.addr, addr, sizeof(addr));
		/* The first count has no round before it: its NEW is unknown ("-"). */
		if (su->followed)
			record__printf(&out, "%s %u %zu %zu\n", addr, su->l.port, a.n, fresh);
		else
			record__printf(&out, "%s %u %zu -\n", addr, su->l.port, a.n);
		free(su->accepted);
		su->accepted = a.now;
		su->naccepted = a.n;
		su->followed = 1;
	}
	if (!out.oom && out.len)
		reader__tee_text(rd, w, "sonde:accepts", out.buf, out.len);
	strbuf__free(&out);
}

/* ---- ephemeral ports ---- */

/* FNV-1a over family, address and port: the slot of a destination in the index. */
static size_t dest_hash(int family, const uint8_t *a, uint16_t port)
{
	uint32_t h = 2166136261u;

	h = (h ^ (uint32_t)family) * 16777619u;
	for (int i = 0; i < 16; i++)
		h = (h ^ a[i]) * 16777619u;
	h = (h ^ port) * 16777619u;
	return h & (DEST_SLOTS - 1);
}

static struct dest *dest_of(struct sock_state *s, const struct inet_diag_msg *m)
{
	uint8_t a[16];
	uint16_t port = ntohs(m->id.idiag_dport);
	size_t h;

	addr_copy(a, m, 0);
	for (h = dest_hash(m->idiag_family, a, port); s->slot[h]; h = (h + 1) & (DEST_SLOTS - 1)) {
		struct dest *d = &s->dest[s->slot[h] - 1];

		if (d->port == port && d->family == m->idiag_family && !memcmp(d->addr, a, 16))
			return d;
	}
	if (s->ndest == DEST_MAX)
		return NULL;
	memset(&s->dest[s->ndest], 0, sizeof(s->dest[0]));
	s->dest[s->ndest].family = m->idiag_family;
	memcpy(s->dest[s->ndest].addr, a, 16);
	s->dest[s->ndest].port = port;
	s->slot[h] = (uint16_t)++s->ndest;
	return &s->dest[s->ndest - 1];
}

static int listening_port(const struct sock_state *s, uint16_t port)
{
	for (size_t i = 0; i < s->nls; i++)
		if (s->ls[i].port == port)
			return 1;
	return 0;
}

static int on_port(const struct nlmsghdr *h, void *arg)
{
	struct sock_state *s = arg;
	const struct inet_diag_msg *m = diag_msg(h);
	uint16_t sport;
	struct dest *d;

	if (!m || m->idiag_state == ST_LISTEN)
		return 0;
	sport = ntohs(m->id.idiag_sport);
	/* a connection accepted by a listener in the range holds no ephemeral port */
	if (listening_port(s, sport))
		return 0;
	s->sockets++;
	if (m->idiag_state == ST_TIME_WAIT)
		s->timewait++;
	if (!(s->portmap[sport / 8] & (1u << (sport % 8)))) {
		s->portmap[sport / 8] |= (uint8_t)(1u << (sport % 8));
		s->ports++;
	}
	d = dest_of(s, m);
	if (!d) {
		s->other++;
		return 0;
	}
	d->count++;
	if (m->idiag_state == ST_TIME_WAIT)
		d->timewait++;
	if (m->idiag_inode && d->ninode < 4) {
		d->inode[d->ninode] = m->idiag_inode;
		d->uid[d->ninode++] = m->idiag_uid;
	}
	return 0;
}

static int cmp_dest(const void *x, const void *y)
{
	const struct dest *a = x, *b = y;

	return a->count > b->count ? -1 : a->count < b->count;
}

/*
 * range LO HI / sockets N / timewait N / ports N / then the busiest
 * destinations: dst ADDR PORT COUNT INODES TIMEWAIT (a few of its sockets'
 * inodes, comma-separated, "-" when none has one; how many of them are in
 * TIME_WAIT, which tcp_tw_reuse may hand out again). A connect() needs a local
 * port free for its destination: the busiest one runs out first.
 */
static void ports_reset(struct sock_state *s)
{
	s->ndest = 0;
	memset(s->slot, 0, sizeof(s->slot));
	s->other = s->sockets = s->ports = s->timewait = 0;
	memset(s->portmap, 0, sizeof(s->portmap));
}

static void ports_sample(struct sock_state *s, struct reader *rd, struct capture_writer *w)
{
	static const int fams[] = { AF_INET, AF_INET6 };
	const uint32_t states = 0xfff & ~(1u << ST_LISTEN) & ~(1u << ST_CLOSE);
	struct strbuf out = { 0 };
	int err = 0, cut = 0;

	if (!s->hi)
		return;
	ports_reset(s);
	err = diag_dump_any(rd, states, (uint16_t)s->lo, (uint16_t)s->hi, PORTS_MSGS, on_port, s);
	if (err == -E2BIG) {
		cut = 1;
		err = 0;
	}
	if (err) {
		/* no legacy request: one dump per family, counted from nothing */
		ports_reset(s);
		for (size_t f = 0; f < 2; f++) {
			err = diag_dump(rd, fams[f], states, (uint16_t)s->lo, (uint16_t)s->hi,
					PORTS_MSGS, on_port, s);
			if (err == -E2BIG)
				cut = 1;
			else if (err && !(f && (err == -EAFNOSUPPORT || err == -ENOENT)))
				break;
			err = 0;
		}
	}
	if (err) {
		capture_writer__error(w, rd->seq, clock__ns(CLOCK_REALTIME),
				      clock__ns(CLOCK_MONOTONIC), "sonde:ports", -err);
		return;
	}
	qsort(s->dest, s->ndest, sizeof(*s->dest), cmp_dest);
	record__printf(&out, "range %u %u\nsockets %llu\ntimewait %llu\nports %llu\n", s->lo, s->hi,
		       (unsigned long long)s->sockets, (unsigned long long)s->timewait,
		       (unsigned long long)s->ports);
	for (size_t i = 0; i < s->ndest && i < DEST_SHOWN; i++) {
		char a[64];

		record__printf(&out, "dst %s %u %u ",
			       addr_text(s->dest[i].family, s->dest[i].addr, a, sizeof(a)),
			       s->dest[i].port, s->dest[i].count);
		/* a few of its sockets' inodes, whose owners sonde:owners names */
		for (int k = 0; k < s->dest[i].ninode; k++)
			record__printf(&out, "%s%llu", k ? "," : "",
				       (unsigned long long)s->dest[i].inode[k]);
		record__printf(&out, "%s %u\n", s->dest[i].ninode ? "" : "-", s->dest[i].timewait);
	}
	if (s->other)
		record__printf(&out, "other %llu\n", (unsigned long long)s->other);
	if (cut)
		record__printf(&out, "cut\n");
	if (!out.oom)
		reader__tee_text(rd, w, "sonde:ports", out.buf, out.len);
	strbuf__free(&out);
}

/* ---- owners (last round) ---- */

struct owner_walk {
	uint64_t inode[OWNER_WANT_MAX];
	uint32_t uid[OWNER_WANT_MAX];
	int found[OWNER_WANT_MAX];
	size_t n, nfound, fds, procs;
	int cut;
};

static void want(struct owner_walk *o, uint64_t inode, uint32_t uid)
{
	if (!inode || o->n == OWNER_WANT_MAX)
		return;
	for (size_t i = 0; i < o->n; i++)
		if (o->inode[i] == inode)
			return;
	o->inode[o->n] = inode;
	o->uid[o->n++] = uid;
}

static int uid_wanted(const struct owner_walk *o, uid_t uid)
{
	for (size_t i = 0; i < o->n; i++)
		if (!o->found[i] && o->uid[i] == uid)
			return 1;
	return 0;
}

/* One process's fd table: the wanted socket inodes it holds, one line each. */
static void owner_scan_pid(struct owner_walk *o, struct reader *rd, int procfd, const char *pid,
			   struct strbuf *out)
{
	char path[300], link[64];
	uint64_t ino;
	struct dirent *de;
	struct stat st;
	ssize_t n;
	DIR *d;
	int dfd;

	if (fstatat(procfd, pid, &st, 0) || !uid_wanted(o, st.st_uid))
		return;
	snprintf(path, sizeof(path), "%s/fd", pid);
	dfd = openat(procfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || !(d = fdopendir(dfd))) {
		if (dfd >= 0)
			close(dfd);
		return;
	}
	o->procs++;
	while ((de = readdir(d)) && o->nfound < o->n) {
		if (de->d_name[0] == '.')
			continue;
		if (o->fds++ >= OWNER_FD_BUDGET) {
			o->cut = 1;
			break;
		}
		/*
		 * The link's text names a socket's inode ("socket:[123]"): read, never
		 * followed, so an fd on a hung network file system cannot block the walk.
		 */
		n = readlinkat(dfd, de->d_name, link, sizeof(link) - 1);
		if (n <= 0 || parse_socket_link(link, (size_t)n, &ino))
			continue;
		for (size_t i = 0; i < o->n; i++)
			if (!o->found[i] && o->inode[i] == ino) {
				o->found[i] = 1;
				o->nfound++;
				record__printf(out, "%llu %s %s\n", (unsigned long long)ino, pid,
					       de->d_name);
			}
	}
	closedir(d);
}

/*
 * INODE PID FD for each wanted socket found, then "scanned PROCS FDS" (and
 * "cut" when the walk hit its budget). Only the processes of the sockets'
 * uids are walked: a listener of uid 0 among ten thousand user processes is
 * found among root's.
 */
static void owners_sample(struct sock_state *s, struct reader *rd, struct capture_writer *w)
{
	struct owner_walk o;
	struct strbuf out = { 0 };
	char procdir[4200];
	struct dirent *de;
	DIR *d;

	memset(&o, 0, sizeof(o));
	for (size_t i = 0; i < s->nsus; i++)
		want(&o, s->sus[i].l.inode, s->sus[i].l.uid);
	for (size_t i = 0; i < s->ndest && i < 2; i++)
		for (int k = 0; k < s->dest[i].ninode; k++)
			want(&o, s->dest[i].inode[k], s->dest[i].uid[k]);
	if (!o.n)
		return;
	snprintf(procdir, sizeof(procdir), "%s/proc", rd->root);
	d = opendir(procdir);
	if (!d)
		return;
	while ((de = readdir(d)) && o.nfound < o.n && !o.cut)
		if (de->d_name[0] >= '1' && de->d_name[0] <= '9')
			owner_scan_pid(&o, rd, dirfd(d), de->d_name, &out);
	closedir(d);
	record__printf(&out, "scanned %zu %zu%s\n", o.procs, o.fds, o.cut ? " cut" : "");
	if (!out.oom)
		reader__tee_text(rd, w, "sonde:owners", out.buf, out.len);
	strbuf__free(&out);
}

/* ---- the collector ---- */

int sockets__probe(const char *root, char *why, size_t whylen)
{
	return collector__probe_path(root, "/proc/net/sockstat", "no socket statistics", why,
				     whylen);
}

int sockets__sample(struct collector_state *cs, struct reader *rd, struct capture_writer *w,
		    int phase)
{
	struct sock_state *s = cs->sk;
	const char *d;
	size_t len;

	if (!s) {
		s = cs->sk = calloc(1, sizeof(*s));
		if (s)
			s->ls = calloc(LISTEN_MAX, sizeof(*s->ls));
		if (s)
			s->dest = calloc(DEST_MAX, sizeof(*s->dest));
		if (!s || !s->ls || !s->dest) {
			sockets__fini(cs);
			return -ENOMEM;
		}
	}
	if (phase & PHASE_FIRST) {
		uint64_t range[2];

		if (!reader__tee(rd, w, "/proc/sys/net/ipv4/ip_local_port_range", &d, &len) &&
		    !parse_value_u64s(d, len, range, 2) && range[0] <= range[1] && range[1] < 65536) {
			s->lo = (unsigned)range[0];
			s->hi = (unsigned)range[1];
		}
		/* 1: TIME_WAIT ports are reused for new connections, 2: toward loopback only */
		reader__tee(rd, w, "/proc/sys/net/ipv4/tcp_tw_reuse", NULL, NULL);
	}
	reader__tee(rd, w, "/proc/net/sockstat", NULL, NULL);
	/* ENOENT without the nf_conntrack module: recorded, the checks say so. */
	reader__tee(rd, w, "/proc/sys/net/netfilter/nf_conntrack_count", NULL, NULL);
	reader__tee(rd, w, "/proc/sys/net/netfilter/nf_conntrack_max", NULL, NULL);
	/* Follow the suspects of earlier rounds first: this round's may join next round. */
	accepts_sample(s, rd, w);
	listeners_sample(s, rd, w);
	ports_sample(s, rd, w);
	if (phase & PHASE_LAST)
		owners_sample(s, rd, w);
	return 0;
}

void sockets__fini(struct collector_state *cs)
{
	struct sock_state *s = cs->sk;

	if (!s)
		return;
	for (size_t i = 0; i < s->nsus; i++)
		free(s->sus[i].accepted);
	free(s->ls);
	free(s->dest);
	free(s);
	cs->sk = NULL;
}
