// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ctx.proc.cgroups(): the cgroups the collector kept (proc.cgroups capture),
 * v1 hierarchies of the same path merged into one cgroup, with their
 * counters, gauges, limits, pressure and processes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "collect/analysis.h"
#include "util/parse.h"
#include "lua/ctx.h"

#define CG_PROCS_MAX 4096 /* pids kept per cgroup */

/* Cumulative counters: (file, key) -> (table, field), in the unit of the field name. */
static const struct cg_counter {
	const char *file, *key; /* key NULL: the file is one number */
	const char *sub, *field;
	unsigned div;
} cg_counters[] = {
	{ "cpu.stat", "usage_usec", "cpu", "usage_usec", 1 },
	{ "cpu.stat", "nr_periods", "cpu", "nr_periods", 1 },
	{ "cpu.stat", "nr_throttled", "cpu", "nr_throttled", 1 },
	{ "cpu.stat", "throttled_usec", "cpu", "throttled_usec", 1 },
	{ "cpu.stat", "throttled_time", "cpu", "throttled_usec", 1000 }, /* v1: ns */
	{ "cpuacct.usage", NULL, "cpu", "usage_usec", 1000 },            /* v1: ns */
	{ "memory.events", "oom", "memory", "oom", 1 },
	{ "memory.events", "oom_kill", "memory", "oom_kill", 1 },
	{ "memory.events", "max", "memory", "events_max", 1 },
	{ "memory.events", "high", "memory", "events_high", 1 },
	{ "memory.oom_control", "oom_kill", "memory", "oom_kill", 1 },
	{ "memory.oom_control", "under_oom", "memory", "under_oom", 1 },
	{ "memory.failcnt", NULL, "memory", "failcnt", 1 },
	{ "memory.memsw.failcnt", NULL, "memory", "memsw_failcnt", 1 },
	{ "pids.events", "max", "pids", "events_max", 1 },
};

struct cg_kv {
	lua_State *L;
	int entry;
	const char *file;
	double t;
};

/* entry[sub][which][field] = v; "first" only where not set yet (records come in round order). */
static void cg_set_counter(lua_State *L, int entry, const struct cg_counter *c, uint64_t v,
			   double t)
{
	lua_getfield(L, entry, c->sub);
	for (int which = 0; which < 2; which++) {
		lua_getfield(L, -1, which ? "last" : "first");
		if (which || lua_getfield(L, -1, c->field) == LUA_TNIL) {
			if (!which)
				lua_pop(L, 1);
			ctx__set_u64(L, c->field, v / c->div);
			/* when it was read: the first counters may be from the walk's round */
			ctx__set_num(L, "t", t);
		} else {
			lua_pop(L, 1);
		}
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
}

static int cg_kv_field(const char *k, size_t kl, const char *v, size_t vl, void *arg)
{
	struct cg_kv *o = arg;
	uint64_t u;

	if (parse_kv_u64(v, vl, 0, &u))
		return 0;
	for (size_t i = 0; i < sizeof(cg_counters) / sizeof(cg_counters[0]); i++) {
		const struct cg_counter *c = &cg_counters[i];

		if (c->key && !strcmp(c->file, o->file) && strlen(c->key) == kl &&
		    !memcmp(c->key, k, kl))
			cg_set_counter(o->L, o->entry, c, u, o->t);
	}
	return 0;
}

/* A limit file: a number, or "max" (v2) / -1 or PAGE_COUNTER_MAX (v1) for none. */
static int cg_limit(const char *s, size_t len, uint64_t *v)
{
	int64_t x;

	if (len >= 3 && !memcmp(s, "max", 3))
		return -1;
	if (parse_kv_i64(s, len, &x) || x < 0 || (uint64_t)x >= (1ull << 62))
		return -1;
	*v = (uint64_t)x;
	return 0;
}

static void cg_gauge(lua_State *L, int entry, const char *sub, const char *series,
		     const char *field, const struct capture_rec *r, double t)
{
	uint64_t v;

	if (parse_kv_u64(r->data, r->len, 0, &v))
		return;
	lua_getfield(L, entry, sub);
	lua_getfield(L, -1, series);
	lua_newtable(L);
	ctx__set_num(L, "t", t);
	ctx__set_u64(L, field, v);
	lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
	lua_pop(L, 2);
}

static void cg_set_limit(lua_State *L, int entry, const char *sub, const char *field,
			 const struct capture_rec *r)
{
	uint64_t v;

	if (cg_limit(r->data, r->len, &v))
		return; /* no limit: the field stays nil */
	lua_getfield(L, entry, sub);
	ctx__set_u64(L, field, v);
	lua_pop(L, 1);
}

static void cg_names(lua_State *L, const char *s, size_t len)
{
	lua_Integer n = 0;

	lua_newtable(L);
	while (len) {
		size_t k = 0;

		while (k < len && s[k] != ' ' && s[k] != '\n' && s[k] != ',')
			k++;
		if (k) {
			lua_pushlstring(L, s, k);
			lua_rawseti(L, -2, ++n);
		}
		if (k < len)
			k++;
		s += k;
		len -= k;
	}
}

/* A pid of cgroup.procs into the set on top: pid -> true (made a list at the end). */
static int cg_proc(int pid, void *arg)
{
	lua_State *L = arg;

	if (lua_rawlen(L, -1) >= CG_PROCS_MAX)
		return 1;
	lua_pushboolean(L, 1);
	lua_rawseti(L, -2, pid);
	return 0;
}

/* entry.io[which][dev][field] = v (which: "limits", "first", "last"); "first" keeps the first. */
static void cg_io_set(lua_State *L, int entry, const char *which, const char *dev, size_t dl,
		      const char *field, uint64_t v, double t)
{
	lua_getfield(L, entry, "io");
	lua_getfield(L, -1, which);
	lua_pushlstring(L, dev, dl);
	if (lua_rawget(L, -2) != LUA_TTABLE) {
		lua_pop(L, 1);
		lua_newtable(L);
		lua_pushlstring(L, dev, dl);
		lua_pushvalue(L, -2);
		lua_rawset(L, -4);
	}
	if (strcmp(which, "first") || lua_getfield(L, -1, "t") == LUA_TNIL ||
	    lua_tonumber(L, -1) == t) {
		if (strcmp(which, "first"))
			lua_pushnil(L);
		lua_pop(L, 1);
		ctx__set_u64(L, field, v);
		if (strcmp(which, "limits"))
			ctx__set_num(L, "t", t);
	} else {
		lua_pop(L, 1);
	}
	lua_pop(L, 3);
}

struct cg_io_walk {
	lua_State *L;
	int entry;
	double t;
	int v2max, v2stat, bytes, ios;
	const char *lim; /* the field of a v1 limit file */
};

/* A device's number (parse_cgroup_io) into entry.io, as the file it came from says. */
static int cg_io_line(const struct cgroup_io_line *l, void *arg)
{
	const struct cg_io_walk *w = arg;
	char dev[32], key[64];
	const char *f;

	if (!parse_word_cstr(l->dev, dev, sizeof(dev)))
		return 0;
	if (w->lim) {
		if (l->kind == CGIO_NUMBER)
			cg_io_set(w->L, w->entry, "limits", dev, strlen(dev), w->lim, l->value, w->t);
	} else if (w->bytes || w->ios) {
		f = l->kind != CGIO_WORD ? NULL :
		    parse_word_is_str(l->key, "Read") ? (w->bytes ? "rbytes" : "rios") :
		    parse_word_is_str(l->key, "Write") ? (w->bytes ? "wbytes" : "wios") : NULL;
		if (f) {
			cg_io_set(w->L, w->entry, "first", dev, strlen(dev), f, l->value, w->t);
			cg_io_set(w->L, w->entry, "last", dev, strlen(dev), f, l->value, w->t);
		}
	} else if ((w->v2max || w->v2stat) && l->kind == CGIO_PAIR &&
		   parse_word_cstr(l->key, key, sizeof(key))) {
		if (w->v2max) {
			cg_io_set(w->L, w->entry, "limits", dev, strlen(dev), key, l->value, w->t);
		} else {
			cg_io_set(w->L, w->entry, "first", dev, strlen(dev), key, l->value, w->t);
			cg_io_set(w->L, w->entry, "last", dev, strlen(dev), key, l->value, w->t);
		}
	}
	return 0;
}

/*
 * I/O per device: v2 io.max ("MAJ:MIN rbps=N wbps=max riops=N wiops=max") and io.stat
 * ("MAJ:MIN rbytes=N wbytes=N rios=N wios=N ..."); v1 blkio.throttle.*_device ("MAJ:MIN N")
 * and io_service_bytes / io_serviced ("MAJ:MIN Read N" ... "Total N").
 */
static void cg_io(lua_State *L, int entry, const char *file, const struct capture_rec *r,
		  double t)
{
	static const struct {
		const char *file, *field;
	} v1lim[] = {
		{ "blkio.throttle.read_bps_device", "rbps" },
		{ "blkio.throttle.write_bps_device", "wbps" },
		{ "blkio.throttle.read_iops_device", "riops" },
		{ "blkio.throttle.write_iops_device", "wiops" },
	};
	struct cg_io_walk w = {
		.L = L, .entry = entry, .t = t,
		.v2max = !strcmp(file, "io.max"), .v2stat = !strcmp(file, "io.stat"),
		.bytes = !strcmp(file, "blkio.throttle.io_service_bytes"),
		.ios = !strcmp(file, "blkio.throttle.io_serviced"),
	};

	for (size_t i = 0; i < sizeof(v1lim) / sizeof(v1lim[0]); i++)
		if (!strcmp(file, v1lim[i].file))
			w.lim = v1lim[i].field;
	parse_cgroup_io(r->data, r->len, cg_io_line, &w);
}

/* One record of a kept cgroup's file into its entry (at index entry). */
static void cg_record(lua_State *L, struct analysis *an, int entry, int v2, const char *file,
		      const struct capture_rec *r)
{
	double t = analysis__t(an, r);

	if (!strcmp(file, "cpu.pressure") || !strcmp(file, "memory.pressure") ||
	    !strcmp(file, "io.pressure")) {
		if (r->err) {
			ctx__err_reason(L, r->path, r->err,
					"this kernel has no PSI (Linux 4.20+ with CONFIG_PSI, "
					"booted with psi=1 where it is off by default (RHEL 8))");
			lua_setfield(L, entry, "pressure_reason");
			return;
		}
		lua_getfield(L, entry, "pressure");
		lua_pushlstring(L, file, strchr(file, '.') - file);
		if (lua_rawget(L, -2) == LUA_TNIL) {
			lua_pop(L, 1);
			lua_newtable(L);
			lua_pushlstring(L, file, strchr(file, '.') - file);
			lua_pushvalue(L, -2);
			lua_rawset(L, -4);
		}
		lua_newtable(L);
		if (ctx__sample_pressure(L, r, NULL)) {
			lua_pop(L, 3);
			return;
		}
		ctx__set_num(L, "t", t);
		if (lua_getfield(L, -2, "first") == LUA_TNIL) {
			lua_pop(L, 1);
			lua_pushvalue(L, -1);
			lua_setfield(L, -3, "first");
		} else {
			lua_pop(L, 1);
		}
		lua_setfield(L, -2, "last");
		lua_pop(L, 2);
		return;
	}
	if (r->err)
		return; /* a cgroup removed during the window: its series just end */
	if (!strncmp(file, "io.", 3) || !strncmp(file, "blkio.", 6)) {
		cg_io(L, entry, file, r, t);
	} else if (!strcmp(file, "cgroup.procs")) {
		lua_getfield(L, entry, "procs");
		parse_pid_list(r->data, r->len, cg_proc, L);
		lua_pop(L, 1);
	} else if (!strcmp(file, "cgroup.controllers")) {
		cg_names(L, r->data, r->len);
		lua_setfield(L, entry, "controllers");
	} else if (!strcmp(file, "memory.current") || !strcmp(file, "memory.usage_in_bytes")) {
		cg_gauge(L, entry, "memory", "usage", "bytes", r, t);
	} else if (!strcmp(file, "pids.current")) {
		cg_gauge(L, entry, "pids", "current", "current", r, t);
	} else if (!strcmp(file, "memory.max") || !strcmp(file, "memory.limit_in_bytes")) {
		cg_set_limit(L, entry, "memory", "limit", r);
	} else if (!strcmp(file, "memory.max_usage_in_bytes")) {
		cg_set_limit(L, entry, "memory", "max_usage", r);
	} else if (!strcmp(file, "pids.max")) {
		cg_set_limit(L, entry, "pids", "limit", r);
	} else if (!strcmp(file, "cpu.cfs_quota_us")) {
		cg_set_limit(L, entry, "cpu", "quota_usec", r);
	} else if (!strcmp(file, "cpu.cfs_period_us")) {
		cg_set_limit(L, entry, "cpu", "period_usec", r);
	} else if (!strcmp(file, "cpu.max")) {
		/* "QUOTA PERIOD", QUOTA "max" for none */
		const char *sp = memchr(r->data, ' ', r->len);

		cg_set_limit(L, entry, "cpu", "quota_usec", r);
		if (sp) {
			struct capture_rec rest = *r;

			rest.data = sp + 1;
			rest.len = r->len - (size_t)(sp + 1 - r->data);
			cg_set_limit(L, entry, "cpu", "period_usec", &rest);
		}
	} else {
		for (size_t i = 0; i < sizeof(cg_counters) / sizeof(cg_counters[0]); i++) {
			const struct cg_counter *c = &cg_counters[i];
			uint64_t v;

			if (strcmp(c->file, file))
				continue;
			if (c->key) {
				struct cg_kv o = { L, entry, file, t };

				parse_kv(r->data, r->len, cg_kv_field, &o);
				break;
			}
			if (!parse_kv_u64(r->data, r->len, 0, &v))
				cg_set_counter(L, entry, c, v, t);
		}
	}
	(void)v2;
}

static void cg_new_entry(lua_State *L, const char *rel, int version)
{
	lua_newtable(L);
	lua_pushstring(L, rel);
	lua_setfield(L, -2, "path");
	lua_pushinteger(L, version);
	lua_setfield(L, -2, "version");
	lua_newtable(L);
	lua_setfield(L, -2, "controllers");
	lua_newtable(L);
	lua_setfield(L, -2, "dirs");
	lua_newtable(L);
	lua_setfield(L, -2, "procs");
	for (int i = 0; i < 3; i++) {
		static const char *const subs[] = { "cpu", "memory", "pids" };

		lua_newtable(L);
		lua_newtable(L);
		lua_setfield(L, -2, "first");
		lua_newtable(L);
		lua_setfield(L, -2, "last");
		if (i) {
			lua_newtable(L);
			ctx__series_mt(L);
			lua_setfield(L, -2, i == 1 ? "usage" : "current");
		}
		lua_setfield(L, -2, subs[i]);
	}
	lua_newtable(L);
	for (int i = 0; i < 3; i++) {
		static const char *const io[] = { "limits", "first", "last" };

		lua_newtable(L);
		lua_setfield(L, -2, io[i]);
	}
	lua_setfield(L, -2, "io");
	if (version == 2) {
		lua_newtable(L);
		lua_setfield(L, -2, "pressure");
	} else {
		lua_pushstring(L, "cgroup v1 has no pressure stall information per cgroup "
				  "(PSI per cgroup needs cgroup v2)");
		lua_setfield(L, -2, "pressure_reason");
	}
}

/* Where ctx.proc.cgroups() builds its result: stack indices and counts. */
struct cg_walk {
	const struct capture_stream *st;
	int res;     /* the result: the entries 1..nres, v1, v2, truncated, hierarchies */
	int map;     /* "MOUNT/PATH" directory -> entry */
	int byname;  /* "VERSION:PATH" -> entry */
	int hier;    /* the hierarchies, 1..nh */
	int nres, nh;
};

/* Directory rel of a hierarchy (version ver at mnt, controllers ctrl) into its cgroup's entry. */
static void cg_dir(lua_State *L, struct cg_walk *w, int ver, const char *mnt, const char *ctrl,
		   const char *rel)
{
	char dir[900];

	snprintf(dir, sizeof(dir), "%d:%s", ver, rel);
	if (lua_getfield(L, w->byname, dir) == LUA_TNIL) {
		lua_pop(L, 1);
		cg_new_entry(L, rel, ver);
		lua_pushvalue(L, -1);
		lua_setfield(L, w->byname, dir);
		lua_pushvalue(L, -1);
		lua_rawseti(L, w->res, ++w->nres);
	}
	snprintf(dir, sizeof(dir), "%s%s", mnt, rel);
	lua_pushvalue(L, -1);
	lua_setfield(L, w->map, dir);
	if (ver == 1) {
		/* the cgroup's controllers: those of every hierarchy it is in */
		lua_getfield(L, -1, "controllers");
		lua_getfield(L, -2, "dirs");
		cg_names(L, ctrl, strlen(ctrl));
		for (lua_Integer k = 1; k <= (lua_Integer)lua_rawlen(L, -1); k++) {
			lua_rawgeti(L, -1, k);
			lua_pushvalue(L, -1);
			lua_rawseti(L, -5, (lua_Integer)lua_rawlen(L, -5) + 1);
			lua_pushstring(L, dir);
			lua_setfield(L, -4, lua_tostring(L, -2));
			lua_pop(L, 1);
		}
		lua_pop(L, 3);
	} else {
		lua_getfield(L, -1, "dirs");
		lua_pushstring(L, dir);
		lua_setfield(L, -2, "cgroup");
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
}

struct cg_hier_walk {
	lua_State *L;
	struct cg_walk *w;
};

/* One line "VERSION MOUNT [CONTROLLERS]" of the sonde:cgroups record: a hierarchy, its cgroups. */
static int cg_hierarchy(const struct cgroup_hier_line *h, void *arg)
{
	lua_State *L = ((struct cg_hier_walk *)arg)->L;
	struct cg_walk *w = ((struct cg_hier_walk *)arg)->w;
	char mnt[300], ctrl[128] = "";
	const struct capture_rec *list;
	const char *q, *qe;
	int ver = h->version;

	if (!parse_word_cstr(h->mount, mnt, sizeof(mnt)) ||
	    (h->controllers.n && !parse_word_cstr(h->controllers, ctrl, sizeof(ctrl))))
		return 0;
	lua_newtable(L);
	lua_pushinteger(L, ver);
	lua_setfield(L, -2, "version");
	lua_pushstring(L, mnt);
	lua_setfield(L, -2, "mount");
	cg_names(L, ctrl, strlen(ctrl));
	lua_setfield(L, -2, "controllers");
	lua_rawseti(L, w->hier, ++w->nh);
	lua_pushboolean(L, 1);
	lua_setfield(L, w->res, ver == 2 ? "v2" : "v1");
	/* the record named after the mount point lists the hierarchy's kept cgroups */
	list = ctx__rec(w->st, mnt, 0);
	if (list && list->truncated) {
		lua_pushboolean(L, 1);
		lua_setfield(L, w->res, "truncated");
	}
	if (!list || list->err)
		return 0;
	for (q = list->data, qe = list->data + list->len; q < qe;) {
		const char *qn = memchr(q, '\n', (size_t)(qe - q));
		size_t ql = qn ? (size_t)(qn - q) : (size_t)(qe - q);
		char rel[512];

		if (ql && ql < sizeof(rel)) {
			memcpy(rel, q, ql);
			rel[ql] = '\0';
			cg_dir(L, w, ver, mnt, ctrl, rel);
		}
		q += ql + 1;
	}
	return 0;
}

/* Every record of a kept cgroup's files into its entry. */
static void cg_records(lua_State *L, struct analysis *an, struct cg_walk *w)
{
	for (size_t i = 0; i < w->st->n; i++) {
		const struct capture_rec *r = &w->st->rec[i];
		const char *slash = strrchr(r->path, '/');
		char dir[900];
		int v2;

		if (!slash || (size_t)(slash - r->path) >= sizeof(dir))
			continue;
		memcpy(dir, r->path, (size_t)(slash - r->path));
		dir[slash - r->path] = '\0';
		if (lua_getfield(L, w->map, dir) != LUA_TTABLE) {
			lua_pop(L, 1);
			continue;
		}
		lua_getfield(L, -1, "version");
		v2 = lua_tointeger(L, -1) == 2;
		lua_pop(L, 1);
		cg_record(L, an, lua_gettop(L), v2, slash + 1, r);
		lua_pop(L, 1);
	}
}

static int cmp_pid(const void *a, const void *b)
{
	lua_Integer x = *(const lua_Integer *)a, y = *(const lua_Integer *)b;

	return (x > y) - (x < y);
}

/*
 * procs: each entry's set of pids becomes a sorted list. A cgroup may hold
 * all of a host's processes (10,000 sleepers in one service): sorted in C,
 * n log n, never by swaps on the Lua stack.
 */
static void cg_sort_procs(lua_State *L, struct cg_walk *w)
{
	lua_Integer *pids = NULL;
	size_t cap = 0;

	for (int k = 1; k <= w->nres; k++) {
		size_t n = 0;

		lua_rawgeti(L, w->res, k);
		lua_getfield(L, -1, "procs");
		lua_pushnil(L);
		while (lua_next(L, -2)) {
			lua_pop(L, 1);
			if (n == cap) {
				lua_Integer *np = realloc(pids, (cap = cap ? cap * 2 : 256) * sizeof(*np));

				if (!np) {
					free(pids);
					luaL_error(L, "out of memory");
				}
				pids = np;
			}
			pids[n++] = lua_tointeger(L, -1);
		}
		lua_pop(L, 1);
		qsort(pids, n, sizeof(*pids), cmp_pid);
		lua_createtable(L, (int)n, 0);
		for (size_t i = 0; i < n; i++) {
			lua_pushinteger(L, pids[i]);
			lua_rawseti(L, -2, (lua_Integer)i + 1);
		}
		lua_setfield(L, -2, "procs");
		lua_pop(L, 1);
	}
	free(pids);
}

/*
 * ctx.proc.cgroups() -> { cgroup, ... , hierarchies = {...}, truncated = bool }: every cgroup
 * the collector kept (it or a descendant held a process), v1 controllers of the same path
 * merged into one cgroup. See docs/writing-a-check.md for the fields.
 */
int ctx_proc__cgroups(lua_State *L)
{
	struct analysis *an = ctx__analysis(L);
	struct cg_walk w = { .st = ctx__stream(L, "proc.cgroups") };
	const struct capture_rec *hr = ctx__rec(w.st, "sonde:cgroups", 0);
	struct cg_hier_walk hw = { L, &w };

	if (!hr || hr->err)
		return ctx__missing(L, w.st, "proc.cgroups", "sonde:cgroups", NULL);
	lua_newtable(L);
	w.res = lua_gettop(L);
	lua_newtable(L);
	w.map = lua_gettop(L);
	lua_newtable(L);
	w.byname = lua_gettop(L);
	lua_newtable(L);
	w.hier = lua_gettop(L);
	parse_cgroups_record(hr->data, hr->len, cg_hierarchy, &hw);
	lua_pushvalue(L, w.hier);
	lua_setfield(L, w.res, "hierarchies");
	cg_records(L, an, &w);
	cg_sort_procs(L, &w);
	lua_settop(L, w.res);
	return 1;
}
