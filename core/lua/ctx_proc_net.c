// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ctx.proc: the network tables that run out (net.sockets: listeners, local
 * ports, conntrack) and what kind of link each interface is with its queues
 * (net.links). Built from sonde's composed records (docs/capture-format.md),
 * one line at a time; a line that does not parse is skipped, the others stand.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "collect/analysis.h"
#include "util/parse.h"
#include "lua/ctx.h"

/* Each line of a record, NUL-terminated in buf (cut at its size). Returns 0 at the end. */
static int next_line(const char **p, const char *end, char *buf, size_t len)
{
	const char *nl;
	size_t n;

	if (*p >= end)
		return 0;
	nl = memchr(*p, '\n', (size_t)(end - *p));
	n = nl ? (size_t)(nl - *p) : (size_t)(end - *p);
	snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), *p);
	*p += n + 1;
	return 1;
}

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

/* One line of sonde:listen into the listener of its inode (by[inode], created in list). */
static void listen_line(lua_State *L, int list, int by, const char *line, double t)
{
	char addr[64];
	unsigned fam, port, q, backlog, uid;
	unsigned long long inode;

	if (sscanf(line, "%u %63s %u %u %u %llu %u", &fam, addr, &port, &q, &backlog, &inode,
		   &uid) != 7)
		return;
	lua_pushinteger(L, (lua_Integer)inode);
	if (lua_rawget(L, by) == LUA_TNIL) {
		char key[96];

		lua_pop(L, 1);
		snprintf(key, sizeof(key), fam == 6 ? "[%s]:%u" : "%s:%u", addr, port);
		push_endpoint(L, addr, port, key);
		lua_pushinteger(L, fam);
		lua_setfield(L, -2, "family");
		lua_pushinteger(L, (lua_Integer)inode);
		lua_setfield(L, -2, "inode");
		lua_pushinteger(L, uid);
		lua_setfield(L, -2, "uid");
		lua_pushinteger(L, (lua_Integer)inode);
		lua_pushvalue(L, -2);
		lua_rawset(L, by);
		/* also by "addr port", for sonde:accepts */
		snprintf(key, sizeof(key), "%s %u", addr, port);
		lua_pushstring(L, key);
		lua_pushvalue(L, -2);
		lua_rawset(L, by);
		lua_pushvalue(L, -1);
		lua_rawseti(L, list, (lua_Integer)lua_rawlen(L, list) + 1);
	}
	lua_getfield(L, -1, "series");
	series_push(L, -1, t);
	ctx__set_u64(L, "queue", q);
	ctx__set_u64(L, "backlog", backlog);
	lua_pop(L, 3);
}

static void accepts_line(lua_State *L, int by, const char *line, double t)
{
	char addr[64], fresh[32], key[96];
	unsigned port;
	unsigned long long accepted;

	if (sscanf(line, "%63s %u %llu %31s", addr, &port, &accepted, fresh) != 4)
		return;
	snprintf(key, sizeof(key), "%s %u", addr, port);
	if (lua_getfield(L, by, key) != LUA_TTABLE) {
		lua_pop(L, 1);
		return;
	}
	if (lua_getfield(L, -1, "accepts") != LUA_TTABLE) {
		lua_pop(L, 1);
		new_series(L, "accepts");
	}
	series_push(L, -1, t);
	ctx__set_u64(L, "accepted", accepted);
	if (strcmp(fresh, "-"))
		ctx__set_u64(L, "new", strtoull(fresh, NULL, 10));
	lua_pop(L, 3);
}

/* sonde:owners: "INODE PID FD" lines and the "scanned PROCS FDS [cut]" line, into by[inode].owner */
static void owners_record(lua_State *L, int by, int result, const struct capture_rec *r)
{
	const char *p = r->data, *end = r->data + r->len;
	char line[256];

	while (next_line(&p, end, line, sizeof(line))) {
		unsigned long long inode, procs, fds;
		unsigned pid, fd;
		char cut[8] = "";

		if (sscanf(line, "scanned %llu %llu %7s", &procs, &fds, cut) >= 2) {
			lua_newtable(L);
			ctx__set_u64(L, "processes", procs);
			ctx__set_u64(L, "fds", fds);
			lua_pushboolean(L, !strcmp(cut, "cut"));
			lua_setfield(L, -2, "cut");
			lua_setfield(L, result, "owner_walk");
		} else if (sscanf(line, "%llu %u %u", &inode, &pid, &fd) == 3) {
			lua_pushinteger(L, (lua_Integer)inode);
			if (lua_rawget(L, by) == LUA_TTABLE) {
				lua_newtable(L);
				lua_pushinteger(L, pid);
				lua_setfield(L, -2, "pid");
				lua_pushinteger(L, fd);
				lua_setfield(L, -2, "fd");
				lua_setfield(L, -2, "owner");
			}
			lua_pop(L, 1);
			/* every owner by inode, for local ports too */
			lua_getfield(L, result, "owners");
			lua_pushinteger(L, (lua_Integer)inode);
			lua_pushinteger(L, pid);
			lua_rawset(L, -3);
			lua_pop(L, 1);
		}
	}
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
		double t = analysis__t(an, r);
		const char *p = r->data, *end = r->data + r->len;
		char line[256];

		if (r->err)
			continue;
		if (!strcmp(r->path, "sonde:listen")) {
			n++;
			while (next_line(&p, end, line, sizeof(line)))
				if (!strcmp(line, "cut")) {
					lua_pushboolean(L, 1);
					lua_setfield(L, list, "cut");
				} else {
					listen_line(L, list, by, line, t);
				}
		} else if (!strcmp(r->path, "sonde:accepts")) {
			while (next_line(&p, end, line, sizeof(line)))
				accepts_line(L, by, line, t);
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

static void ports_dst(lua_State *L, int dests, const char *line, double t, lua_Integer seq)
{
	char addr[64], inodes[128], key[96];
	unsigned port;
	unsigned long long count, tw = 0;
	int nf = sscanf(line, "dst %63s %u %llu %127s %llu", addr, &port, &count, inodes, &tw);

	if (nf < 4)
		return;
	snprintf(key, sizeof(key), strchr(addr, ':') ? "[%s]:%u" : "%s:%u", addr, port);
	if (lua_getfield(L, dests, key) != LUA_TTABLE) {
		lua_pop(L, 1);
		push_endpoint(L, addr, port, key);
		lua_pushvalue(L, -1);
		lua_setfield(L, dests, key);
	}
	/* the inodes of its last round: whose owners sonde:owners names */
	lua_newtable(L);
	for (char *save = NULL, *tok = strtok_r(inodes, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save))
		if (strcmp(tok, "-")) {
			lua_pushinteger(L, (lua_Integer)strtoull(tok, NULL, 10));
			lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
		}
	lua_setfield(L, -2, "inodes");
	lua_getfield(L, -1, "series");
	series_push(L, -1, t);
	ctx__set_u64(L, "count", count);
	if (nf == 5)
		ctx__set_u64(L, "timewait", tw);
	lua_pushinteger(L, seq);
	lua_setfield(L, -2, "seq");
	lua_pop(L, 3);
}

/* One sonde:ports record: a sample of the totals, and the busiest destinations. */
static void ports_record(lua_State *L, int res, int total, int dests, const struct capture_rec *r,
			 double t)
{
	const char *p = r->data, *end = r->data + r->len;
	char line[256], name[32];
	unsigned long long v, busiest = 0;
	unsigned lo, hi;

	series_push(L, total, t);
	lua_pushinteger(L, r->seq);
	lua_setfield(L, -2, "seq");
	while (next_line(&p, end, line, sizeof(line))) {
		if (sscanf(line, "range %u %u", &lo, &hi) == 2) {
			lua_newtable(L);
			lua_pushinteger(L, lo);
			lua_rawseti(L, -2, 1);
			lua_pushinteger(L, hi);
			lua_rawseti(L, -2, 2);
			lua_setfield(L, res, "range");
		} else if (!strncmp(line, "dst ", 4)) {
			char a[64];
			unsigned port;

			ports_dst(L, dests, line, t, r->seq);
			if (sscanf(line, "dst %63s %u %llu", a, &port, &v) == 3 && v > busiest)
				busiest = v;
		} else if (!strcmp(line, "cut")) {
			lua_pushboolean(L, 1);
			lua_setfield(L, -2, "cut");
		} else if (sscanf(line, "%31s %llu", name, &v) == 2) {
			ctx__set_u64(L, name, v);
		}
	}
	ctx__set_u64(L, "busiest", busiest);
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
		if (!strcmp(r->path, mpath) && !parse_kv_u64(r->data, r->len, 0, &max) && n) {
			lua_rawgeti(L, -1, n);
			ctx__set_u64(L, "max", max);
			lua_pop(L, 1);
		} else if (!strcmp(r->path, cpath) && !parse_kv_u64(r->data, r->len, 0, &v)) {
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

static void qdisc_line(lua_State *L, int byidx, const char *line, double t)
{
	char kind[32];
	int ifindex;
	unsigned handle, parent;
	unsigned long long bytes;
	unsigned packets, drops, over, requeues, backlog, qlen;

	if (sscanf(line, "%d %31s %x %x %llu %u %u %u %u %u %u", &ifindex, kind, &handle, &parent,
		   &bytes, &packets, &drops, &over, &requeues, &backlog, &qlen) != 11)
		return;
	/* the root qdisc holds the interface's whole egress queue; ingress is not a queue */
	if (parent != 0xffffffffu)
		return;
	lua_rawgeti(L, byidx, ifindex);
	if (!lua_istable(L, -1)) {
		lua_pop(L, 1);
		return;
	}
	if (lua_getfield(L, -1, "qdisc") != LUA_TTABLE) {
		lua_pop(L, 1);
		new_series(L, "qdisc");
	}
	series_push(L, -1, t);
	lua_pushstring(L, kind);
	lua_setfield(L, -2, "kind");
	ctx__set_u64(L, "bytes", bytes);
	ctx__set_u64(L, "packets", packets);
	ctx__set_u64(L, "drops", drops);
	ctx__set_u64(L, "overlimits", over);
	ctx__set_u64(L, "requeues", requeues);
	ctx__set_u64(L, "backlog", backlog);
	ctx__set_u64(L, "qlen", qlen);
	lua_pop(L, 3);
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
	const char *p, *end;
	char line[256];
	int res, byidx;

	if (!lr || lr->err)
		return ctx__missing(L, st, "net.links", "sonde:links",
				    "rtnetlink answered nothing");
	lua_newtable(L);
	res = lua_gettop(L);
	lua_newtable(L);
	byidx = lua_gettop(L);
	for (p = lr->data, end = lr->data + lr->len; next_line(&p, end, line, sizeof(line));) {
		char name[64], kind[32];
		int ifindex;
		unsigned master;

		if (sscanf(line, "%d %63s %31s %u", &ifindex, name, kind, &master) != 4)
			continue;
		lua_newtable(L);
		lua_pushinteger(L, ifindex);
		lua_setfield(L, -2, "ifindex");
		if (strcmp(kind, "-")) {
			lua_pushstring(L, kind);
			lua_setfield(L, -2, "kind");
		}
		if (master) {
			lua_pushinteger(L, master);
			lua_setfield(L, -2, "master");
		}
		lua_pushvalue(L, -1);
		lua_rawseti(L, byidx, ifindex);
		lua_setfield(L, res, name);
	}
	for (size_t i = 0; i < st->n; i++) {
		const struct capture_rec *r = &st->rec[i];

		if (r->err || strcmp(r->path, "sonde:qdisc"))
			continue;
		for (p = r->data, end = r->data + r->len; next_line(&p, end, line, sizeof(line));)
			qdisc_line(L, byidx, line, analysis__t(an, r));
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
