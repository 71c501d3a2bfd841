// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ctx.proc: the network tables that run out (net.sockets: listeners, local
 * ports, conntrack) and what kind of link each interface is with its queues
 * (net.links). Built from sonde's composed records (docs/capture-format.md),
 * one line at a time; a line that does not parse is skipped, the others stand.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "collect/analysis.h"
#include "util/parse.h"
#include "lua/ctx.h"

/* Append a new sample table (with t) to the series at index s; it is left on top. */
static void series_push(lua_State *L, int s, double t)
{
	s = lua_absindex(L, s);
	lua_newtable(L);
	ctx__set_num(L, "t", t);
	lua_pushvalue(L, -1);
	lua_rawseti(L, s, (lua_Integer)lua_rawlen(L, s) + 1);
}

/* t[k] = a new empty series; the series is left on top. */
static void new_series(lua_State *L, const char *k)
{
	lua_newtable(L);
	ctx__series_mt(L);
	lua_pushvalue(L, -1);
	lua_setfield(L, -3, k);
}

/* A new table { addr, port, name, series = {} } on top: a listener or a destination. */
static void push_endpoint(lua_State *L, const char *addr, unsigned port, const char *name)
{
	lua_newtable(L);
	lua_pushstring(L, addr);
	lua_setfield(L, -2, "addr");
	lua_pushinteger(L, port);
	lua_setfield(L, -2, "port");
	lua_pushstring(L, name);
	lua_setfield(L, -2, "name");
	new_series(L, "series");
	lua_pop(L, 1);
}

/* ---- listeners ---- */

/* Where the listeners' records go: the result's stack indices, the record's time. */
struct listen_walk {
	lua_State *L;
	int list, by; /* the list of listeners, and them by inode and by "addr port" */
	double t;
};

/* One line of sonde:listen into the listener of its inode (by[inode], created in list). */
static int listen_line(const struct net_listen_line *l, void *arg)
{
	struct listen_walk *w = arg;
	lua_State *L = w->L;
	char addr[64];

	if (l->cut) {
		lua_pushboolean(L, 1);
		lua_setfield(L, w->list, "cut");
		return 0;
	}
	if (!parse_word_cstr(l->addr, addr, sizeof(addr)))
		return 0;
	lua_pushinteger(L, (lua_Integer)l->inode);
	if (lua_rawget(L, w->by) == LUA_TNIL) {
		char key[96];

		lua_pop(L, 1);
		snprintf(key, sizeof(key), l->family == 6 ? "[%s]:%u" : "%s:%u", addr, l->port);
		push_endpoint(L, addr, l->port, key);
		lua_pushinteger(L, l->family);
		lua_setfield(L, -2, "family");
		lua_pushinteger(L, (lua_Integer)l->inode);
		lua_setfield(L, -2, "inode");
		lua_pushinteger(L, l->uid);
		lua_setfield(L, -2, "uid");
		lua_pushinteger(L, (lua_Integer)l->inode);
		lua_pushvalue(L, -2);
		lua_rawset(L, w->by);
		/* also by "addr port", for sonde:accepts */
		snprintf(key, sizeof(key), "%s %u", addr, l->port);
		lua_pushstring(L, key);
		lua_pushvalue(L, -2);
		lua_rawset(L, w->by);
		lua_pushvalue(L, -1);
		lua_rawseti(L, w->list, (lua_Integer)lua_rawlen(L, w->list) + 1);
	}
	lua_getfield(L, -1, "series");
	series_push(L, -1, w->t);
	ctx__set_u64(L, "queue", l->queue);
	ctx__set_u64(L, "backlog", l->backlog);
	lua_pop(L, 3);
	return 0;
}

static int accepts_line(const struct net_accepts_line *a, void *arg)
{
	struct listen_walk *w = arg;
	lua_State *L = w->L;
	char key[96];

	if (a->addr.n >= 64)
		return 0;
	snprintf(key, sizeof(key), "%.*s %u", (int)a->addr.n, a->addr.p, a->port);
	if (lua_getfield(L, w->by, key) != LUA_TTABLE) {
		lua_pop(L, 1);
		return 0;
	}
	if (lua_getfield(L, -1, "accepts") != LUA_TTABLE) {
		lua_pop(L, 1);
		new_series(L, "accepts");
	}
	series_push(L, -1, w->t);
	ctx__set_u64(L, "accepted", a->accepted);
	if (a->has_fresh)
		ctx__set_u64(L, "new", a->fresh);
	lua_pop(L, 3);
	return 0;
}

/* Where sonde:owners goes: the listeners by inode, and the result (owner_walk, owners). */
struct owners_walk {
	lua_State *L;
	int by, result;
};

/* sonde:owners: "INODE PID FD" lines and the "scanned PROCS FDS [cut]" line, into by[inode].owner */
static int owners_line(const struct net_owner_line *o, void *arg)
{
	struct owners_walk *w = arg;
	lua_State *L = w->L;

	if (o->scanned) {
		lua_newtable(L);
		ctx__set_u64(L, "processes", o->procs);
		ctx__set_u64(L, "fds", o->fds);
		lua_pushboolean(L, o->cut);
		lua_setfield(L, -2, "cut");
		lua_setfield(L, w->result, "owner_walk");
		return 0;
	}
	lua_pushinteger(L, (lua_Integer)o->inode);
	if (lua_rawget(L, w->by) == LUA_TTABLE) {
		lua_newtable(L);
		lua_pushinteger(L, o->pid);
		lua_setfield(L, -2, "pid");
		lua_pushinteger(L, o->fd);
		lua_setfield(L, -2, "fd");
		lua_setfield(L, -2, "owner");
	}
	lua_pop(L, 1);
	/* every owner by inode, for local ports too */
	lua_getfield(L, w->result, "owners");
	lua_pushinteger(L, (lua_Integer)o->inode);
	lua_pushinteger(L, o->pid);
	lua_rawset(L, -3);
	lua_pop(L, 1);
	return 0;
}

static void owners_record(lua_State *L, int by, int result, const struct capture_rec *r)
{
	struct owners_walk w = { L, by, result };

	parse_net_owners(r->data, r->len, owners_line, &w);
}

/*
 * ctx.proc.listeners() -> { listener, ... } with .owner_walk, .cut: each TCP
 * listener { family, addr, port, name, inode, uid, series (queue, backlog),
 * accepts = series (accepted, new) for the suspects, owner = { pid, fd } }.
 */
static int proc_listeners(lua_State *L)
{
	struct analysis *an = ctx__analysis(L);
	const struct capture_stream *st = ctx__stream(L, "net.sockets");
	int list, by, n = 0;

	if (!st)
		return ctx__missing(L, st, "net.sockets", "sonde:listen", NULL);
	lua_newtable(L);
	list = lua_gettop(L);
	lua_newtable(L);
	by = lua_gettop(L);
	lua_newtable(L);
	lua_setfield(L, list, "owners");
	for (size_t i = 0; i < st->n; i++) {
		const struct capture_rec *r = &st->rec[i];
		struct listen_walk w = { L, list, by, analysis__t(an, r) };

		if (r->err)
			continue;
		if (!strcmp(r->path, "sonde:listen")) {
			n++;
			parse_net_listen(r->data, r->len, listen_line, &w);
		} else if (!strcmp(r->path, "sonde:accepts")) {
			parse_net_accepts(r->data, r->len, accepts_line, &w);
		} else if (!strcmp(r->path, "sonde:owners")) {
			owners_record(L, by, list, r);
		}
	}
	lua_pop(L, 1);
	if (!n) {
		lua_pop(L, 1);
		return ctx__missing(L, st, "net.sockets", "sonde:listen",
				    "sock_diag (NETLINK_SOCK_DIAG) answered nothing");
	}
	return 1;
}

/* ---- local ports ---- */

/* Where one sonde:ports record goes: the result's stack indices, its time and round. */
struct ports_walk {
	lua_State *L;
	int res, dests;
	double t;
	lua_Integer seq;
	uint64_t busiest;
};

static void ports_dst(struct ports_walk *w, const struct net_ports_line *d)
{
	lua_State *L = w->L;
	char addr[64], key[96];

	if (!parse_word_cstr(d->addr, addr, sizeof(addr)))
		return;
	snprintf(key, sizeof(key), strchr(addr, ':') ? "[%s]:%u" : "%s:%u", addr, d->port);
	if (lua_getfield(L, w->dests, key) != LUA_TTABLE) {
		lua_pop(L, 1);
		push_endpoint(L, addr, d->port, key);
		lua_pushvalue(L, -1);
		lua_setfield(L, w->dests, key);
	}
	/* the inodes of its last round: whose owners sonde:owners names */
	lua_newtable(L);
	for (size_t k = 0; k < d->ninodes; k++) {
		lua_pushinteger(L, (lua_Integer)d->inodes[k]);
		lua_rawseti(L, -2, (lua_Integer)k + 1);
	}
	lua_setfield(L, -2, "inodes");
	lua_getfield(L, -1, "series");
	series_push(L, -1, w->t);
	ctx__set_u64(L, "count", d->count);
	if (d->has_timewait)
		ctx__set_u64(L, "timewait", d->timewait);
	lua_pushinteger(L, w->seq);
	lua_setfield(L, -2, "seq");
	lua_pop(L, 3);
}

/* One line of a sonde:ports record; the sample of the totals is on top. */
static int ports_line(const struct net_ports_line *l, void *arg)
{
	struct ports_walk *w = arg;
	lua_State *L = w->L;
	char name[32];

	switch (l->kind) {
	case NET_PORTS_RANGE:
		lua_newtable(L);
		lua_pushinteger(L, l->lo);
		lua_rawseti(L, -2, 1);
		lua_pushinteger(L, l->hi);
		lua_rawseti(L, -2, 2);
		lua_setfield(L, w->res, "range");
		break;
	case NET_PORTS_DST:
		ports_dst(w, l);
		if (l->count > w->busiest)
			w->busiest = l->count;
		break;
	case NET_PORTS_CUT:
		lua_pushboolean(L, 1);
		lua_setfield(L, -2, "cut");
		break;
	case NET_PORTS_TOTAL:
		if (parse_word_cstr(l->name, name, sizeof(name)))
			ctx__set_u64(L, name, l->value);
		break;
	}
	return 0;
}

/* One sonde:ports record: a sample of the totals, and the busiest destinations. */
static void ports_record(lua_State *L, int res, int total, int dests, const struct capture_rec *r,
			 double t)
{
	struct ports_walk w = { L, res, dests, t, r->seq, 0 };

	series_push(L, total, t);
	lua_pushinteger(L, r->seq);
	lua_setfield(L, -2, "seq");
	parse_net_ports(r->data, r->len, ports_line, &w);
	ctx__set_u64(L, "busiest", w.busiest);
	lua_pop(L, 1);
}

/*
 * ctx.proc.local_ports() -> { range = { lo, hi }, tw_reuse (net.ipv4.tcp_tw_reuse,
 * when read), series (sockets timewait ports other busiest), destinations =
 * { ["addr:port"] = { addr, port, name, series (count timewait seq), inodes } },
 * owners = { [inode] = pid } }.
 */
static int proc_local_ports(lua_State *L)
{
	struct analysis *an = ctx__analysis(L);
	const struct capture_stream *st = ctx__stream(L, "net.sockets");
	int res, total, dests, n = 0;

	if (!st)
		return ctx__missing(L, st, "net.sockets", "sonde:ports", NULL);
	lua_newtable(L);
	res = lua_gettop(L);
	new_series(L, "series");
	total = lua_gettop(L);
	lua_newtable(L);
	lua_pushvalue(L, -1);
	lua_setfield(L, res, "destinations");
	dests = lua_gettop(L);
	lua_newtable(L);
	lua_setfield(L, res, "owners");
	for (size_t i = 0; i < st->n; i++) {
		const struct capture_rec *r = &st->rec[i];

		if (r->err)
			continue;
		if (!strcmp(r->path, "sonde:ports")) {
			ports_record(L, res, total, dests, r, analysis__t(an, r));
			n++;
		} else if (!strcmp(r->path, "sonde:owners")) {
			lua_newtable(L); /* no listener index here: owners only */
			owners_record(L, lua_gettop(L), res, r);
			lua_pop(L, 1);
		}
	}
	lua_pop(L, 2);
	if (!n) {
		lua_pop(L, 1);
		return ctx__missing(L, st, "net.sockets", "sonde:ports",
				    "no ip_local_port_range, or sock_diag answered nothing");
	}
	ctx__set_rec_u64(L, "tw_reuse", ctx__rec(st, "/proc/sys/net/ipv4/tcp_tw_reuse", 0));
	return 1;
}

/* ---- conntrack ---- */

/* ctx.proc.conntrack() -> series (count, max), or nil, reason (no nf_conntrack) */
static int proc_conntrack(lua_State *L)
{
	struct analysis *an = ctx__analysis(L);
	const struct capture_stream *st = ctx__stream(L, "net.sockets");
	const char *cpath = "/proc/sys/net/netfilter/nf_conntrack_count";
	const char *mpath = "/proc/sys/net/netfilter/nf_conntrack_max";
	uint64_t max = 0, v;
	int n = 0;

	if (!st)
		return ctx__missing(L, st, "net.sockets", cpath, NULL);
	lua_newtable(L);
	for (size_t i = 0; i < st->n; i++) {
		const struct capture_rec *r = &st->rec[i];

		if (r->err)
			continue;
		/* the maximum comes after the count in each round: it completes that sample */
		if (!strcmp(r->path, mpath) && !parse_value_u64(r->data, r->len, &max) && n) {
			lua_rawgeti(L, -1, n);
			ctx__set_u64(L, "max", max);
			lua_pop(L, 1);
		} else if (!strcmp(r->path, cpath) && !parse_value_u64(r->data, r->len, &v)) {
			lua_newtable(L);
			ctx__set_num(L, "t", analysis__t(an, r));
			ctx__set_u64(L, "count", v);
			lua_rawseti(L, -2, ++n);
		}
	}
	if (!n) {
		lua_pop(L, 1);
		return ctx__missing(L, st, "net.sockets", cpath,
				    "no connection tracking table: nf_conntrack is not loaded "
				    "(nothing to fill)");
	}
	ctx__series_mt(L);
	return 1;
}

/* ---- links ---- */

/* Where sonde:links and sonde:qdisc go: the result's stack indices, the record's time. */
struct links_walk {
	lua_State *L;
	int res, byidx; /* the result by name, and by ifindex */
	double t;
};

static int link_line(const struct net_link_line *l, void *arg)
{
	struct links_walk *w = arg;
	lua_State *L = w->L;
	char name[64];

	if (!parse_word_cstr(l->name, name, sizeof(name)) || l->kind.n >= 32)
		return 0;
	lua_newtable(L);
	lua_pushinteger(L, l->ifindex);
	lua_setfield(L, -2, "ifindex");
	if (l->kind.n) {
		lua_pushlstring(L, l->kind.p, l->kind.n);
		lua_setfield(L, -2, "kind");
	}
	if (l->master) {
		lua_pushinteger(L, l->master);
		lua_setfield(L, -2, "master");
	}
	lua_pushvalue(L, -1);
	lua_rawseti(L, w->byidx, l->ifindex);
	lua_setfield(L, w->res, name);
	return 0;
}

static int qdisc_line(const struct net_qdisc_line *q, void *arg)
{
	struct links_walk *w = arg;
	lua_State *L = w->L;

	/* the root qdisc holds the interface's whole egress queue; ingress is not a queue */
	if (q->parent != 0xffffffffu || q->kind.n >= 32)
		return 0;
	lua_rawgeti(L, w->byidx, q->ifindex);
	if (!lua_istable(L, -1)) {
		lua_pop(L, 1);
		return 0;
	}
	if (lua_getfield(L, -1, "qdisc") != LUA_TTABLE) {
		lua_pop(L, 1);
		new_series(L, "qdisc");
	}
	series_push(L, -1, w->t);
	lua_pushlstring(L, q->kind.p, q->kind.n);
	lua_setfield(L, -2, "kind");
	ctx__set_u64(L, "bytes", q->bytes);
	ctx__set_u64(L, "packets", q->packets);
	ctx__set_u64(L, "drops", q->drops);
	ctx__set_u64(L, "overlimits", q->overlimits);
	ctx__set_u64(L, "requeues", q->requeues);
	ctx__set_u64(L, "backlog", q->backlog);
	ctx__set_u64(L, "qlen", q->qlen);
	lua_pop(L, 3);
	return 0;
}

/*
 * ctx.proc.links() -> { [name] = { ifindex, kind (nil: a physical device),
 * master (ifindex, nil when none), qdisc = series of its root qdisc (kind
 * bytes packets drops overlimits requeues backlog qlen) } }
 */
static int proc_links(lua_State *L)
{
	struct analysis *an = ctx__analysis(L);
	const struct capture_stream *st = ctx__stream(L, "net.links");
	const struct capture_rec *lr = ctx__rec(st, "sonde:links", 0);
	struct links_walk w = { .L = L };

	if (!lr || lr->err)
		return ctx__missing(L, st, "net.links", "sonde:links",
				    "rtnetlink answered nothing");
	lua_newtable(L);
	w.res = lua_gettop(L);
	lua_newtable(L);
	w.byidx = lua_gettop(L);
	parse_net_links(lr->data, lr->len, link_line, &w);
	for (size_t i = 0; i < st->n; i++) {
		const struct capture_rec *r = &st->rec[i];

		if (r->err || strcmp(r->path, "sonde:qdisc"))
			continue;
		w.t = analysis__t(an, r);
		parse_net_qdisc(r->data, r->len, qdisc_line, &w);
	}
	lua_pop(L, 1);
	return 1;
}

static const luaL_Reg net_functions[] = {
	{ "listeners", proc_listeners },
	{ "local_ports", proc_local_ports },
	{ "conntrack", proc_conntrack },
	{ "links", proc_links },
	{ NULL, NULL },
};

void ctx_proc_net__register(lua_State *L, void *an)
{
	lua_pushlightuserdata(L, an);
	luaL_setfuncs(L, net_functions, 1);
}
