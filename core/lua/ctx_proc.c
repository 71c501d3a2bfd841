// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ctx.proc: what the checks read. Every function builds Lua values from the
 * capture streams (never from the live host) through the C parsers; a file
 * that was not collected, or could not be read on the host, gives
 * nil, reason, so that the check can report a known unknown.
 *
 * A series is an array of samples ({t = seconds since the window start,
 * field = value, ...}) whose metatable carries the methods below; delta and
 * rate treat fields as cumulative counters (wraps and resets handled by
 * counter__delta), the others as gauges.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "collect/analysis.h"
#include "lua/ctx.h"
#include "util/parse.h"

#define SERIES_MT "sonde.series"

static struct analysis *proc_analysis(lua_State *L)
{
	return lua_touserdata(L, lua_upvalueindex(1));
}

static void push_u64(lua_State *L, uint64_t v)
{
	if (v <= (uint64_t)LUA_MAXINTEGER)
		lua_pushinteger(L, (lua_Integer)v);
	else
		lua_pushnumber(L, (lua_Number)v);
}

static void set_u64(lua_State *L, const char *k, uint64_t v)
{
	push_u64(L, v);
	lua_setfield(L, -2, k);
}

static void set_num(lua_State *L, const char *k, double v)
{
	lua_pushnumber(L, v);
	lua_setfield(L, -2, k);
}

/* ---- series methods ---- */

/* Value of field f in sample i (1-based) as a double; 0 when absent. */
static int sample_value(lua_State *L, int s, lua_Integer i, const char *f, double *v,
			uint64_t *u)
{
	int ok;

	lua_rawgeti(L, s, i);
	lua_getfield(L, -1, f);
	ok = lua_isnumber(L, -1);
	if (ok) {
		if (lua_isinteger(L, -1)) {
			lua_Integer x = lua_tointeger(L, -1);

			*u = (uint64_t)x;
			*v = (double)x;
		} else {
			*v = lua_tonumber(L, -1);
			*u = *v > 0 ? (uint64_t)*v : 0;
		}
	}
	lua_pop(L, 2);
	return ok;
}

static double sample_t(lua_State *L, int s, lua_Integer i)
{
	double t;

	lua_rawgeti(L, s, i);
	lua_getfield(L, -1, "t");
	t = lua_tonumber(L, -1);
	lua_pop(L, 2);
	return t;
}

enum agg { AGG_FIRST, AGG_LAST, AGG_MAX, AGG_MIN, AGG_MEAN };

static int series_agg(lua_State *L, enum agg how)
{
	const char *f = luaL_checkstring(L, 2);
	lua_Integer n = (lua_Integer)lua_rawlen(L, 1);
	double acc = 0, v;
	uint64_t u;
	int found = 0;

	luaL_checktype(L, 1, LUA_TTABLE);
	for (lua_Integer i = 1; i <= n; i++) {
		if (!sample_value(L, 1, i, f, &v, &u))
			continue;
		if (how == AGG_FIRST) {
			acc = v;
			found = 1;
			break;
		}
		if (!found || how == AGG_LAST || (how == AGG_MAX && v > acc) ||
		    (how == AGG_MIN && v < acc))
			acc = how == AGG_MEAN ? acc + v : v;
		else if (how == AGG_MEAN)
			acc += v;
		found++;
	}
	if (!found) {
		lua_pushnil(L);
		return 1;
	}
	lua_pushnumber(L, how == AGG_MEAN ? acc / found : acc);
	return 1;
}

static int series_first(lua_State *L) { return series_agg(L, AGG_FIRST); }
static int series_last(lua_State *L) { return series_agg(L, AGG_LAST); }
static int series_max(lua_State *L) { return series_agg(L, AGG_MAX); }
static int series_min(lua_State *L) { return series_agg(L, AGG_MIN); }
static int series_mean(lua_State *L) { return series_agg(L, AGG_MEAN); }

/*
 * Walk consecutive pairs of samples that both carry f; for each, the counter
 * increase and the time between them. Returns the number of pairs.
 */
static int series_walk(lua_State *L, const char *f, int per_interval, int as_rate)
{
	lua_Integer n = (lua_Integer)lua_rawlen(L, 1), out = 0;
	double total = 0, t0 = 0, tprev = 0, vd;
	uint64_t prev = 0, cur;
	int have = 0, pairs = 0;

	if (per_interval)
		lua_createtable(L, (int)(n > 0 ? n - 1 : 0), 0);
	for (lua_Integer i = 1; i <= n; i++) {
		double t = sample_t(L, 1, i);

		if (!sample_value(L, 1, i, f, &vd, &cur))
			continue;
		if (have) {
			uint64_t d = counter__delta(prev, cur, NULL);
			double dt = t - tprev;

			total += (double)d;
			pairs++;
			if (per_interval) {
				lua_pushnumber(L, as_rate ? (dt > 0 ? (double)d / dt : 0) : (double)d);
				lua_rawseti(L, -2, ++out);
			}
		} else {
			t0 = t;
		}
		prev = cur;
		tprev = t;
		have = 1;
	}
	if (per_interval)
		return pairs;
	if (!pairs) {
		lua_pushnil(L);
		return 0;
	}
	if (as_rate)
		lua_pushnumber(L, tprev > t0 ? total / (tprev - t0) : 0);
	else
		lua_pushnumber(L, total);
	return pairs;
}

static int series_delta(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	series_walk(L, luaL_checkstring(L, 2), 0, 0);
	return 1;
}

static int series_rate(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	series_walk(L, luaL_checkstring(L, 2), 0, 1);
	return 1;
}

static int series_deltas(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	series_walk(L, luaL_checkstring(L, 2), 1, 0);
	return 1;
}

static int series_rates(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	series_walk(L, luaL_checkstring(L, 2), 1, 1);
	return 1;
}

static int series_values(lua_State *L)
{
	const char *f = luaL_checkstring(L, 2);
	lua_Integer n = (lua_Integer)lua_rawlen(L, 1), out = 0;
	double v;
	uint64_t u;

	luaL_checktype(L, 1, LUA_TTABLE);
	lua_createtable(L, (int)n, 0);
	for (lua_Integer i = 1; i <= n; i++)
		if (sample_value(L, 1, i, f, &v, &u)) {
			lua_pushnumber(L, v);
			lua_rawseti(L, -2, ++out);
		}
	return 1;
}

static int series_seconds(lua_State *L)
{
	lua_Integer n = (lua_Integer)lua_rawlen(L, 1);

	luaL_checktype(L, 1, LUA_TTABLE);
	lua_pushnumber(L, n >= 2 ? sample_t(L, 1, n) - sample_t(L, 1, 1) : 0);
	return 1;
}

static const luaL_Reg series_methods[] = {
	{ "first", series_first }, { "last", series_last },     { "max", series_max },
	{ "min", series_min },     { "mean", series_mean },     { "delta", series_delta },
	{ "rate", series_rate },   { "deltas", series_deltas }, { "rates", series_rates },
	{ "values", series_values }, { "seconds", series_seconds }, { NULL, NULL },
};

static void set_series_mt(lua_State *L)
{
	if (luaL_newmetatable(L, SERIES_MT)) {
		luaL_newlib(L, series_methods);
		lua_setfield(L, -2, "__index");
		lua_pushstring(L, "series");
		lua_setfield(L, -2, "__name");
	}
	lua_setmetatable(L, -2);
}

/* ---- building series ---- */

static const char *err_reason(lua_State *L, const char *path, int err, const char *hint)
{
	return lua_pushfstring(L, "%s: %s%s%s", path, strerror(err), hint ? " — " : "",
			       hint ? hint : "");
}

/*
 * nil, reason for a path with no readable record: the host's own error when
 * the read failed there, else "not collected".
 */
static int push_missing(lua_State *L, const struct capture_stream *st, const char *stream,
			const char *path, const char *hint)
{
	lua_pushnil(L);
	if (!st) {
		lua_pushfstring(L, "%s was not collected in this run", stream);
		return 2;
	}
	for (size_t i = 0; i < st->n; i++)
		if (st->rec[i].err && !strcmp(st->rec[i].path, path)) {
			err_reason(L, path, st->rec[i].err, hint);
			return 2;
		}
	lua_pushfstring(L, "%s: not in the captures", path);
	return 2;
}

typedef int (*sample_fn)(lua_State *L, const struct capture_rec *r, void *arg);

/* Series of every readable record of path: one table per record, filled by fn. */
static int push_series(lua_State *L, const char *stream, const char *path, const char *hint,
		       sample_fn fn, void *arg)
{
	struct analysis *an = proc_analysis(L);
	const struct capture_stream *st = capture_set__stream(&an->cs, stream);
	lua_Integer n = 0;

	if (!st)
		return push_missing(L, st, stream, path, hint);
	lua_newtable(L);
	for (size_t i = 0; i < st->n; i++) {
		const struct capture_rec *r = &st->rec[i];

		if (r->err || strcmp(r->path, path))
			continue;
		lua_newtable(L);
		if (fn(L, r, arg)) {
			lua_pop(L, 1);
			continue; /* unparsable sample: skipped, the others stand */
		}
		set_num(L, "t", analysis__t(an, r));
		lua_rawseti(L, -2, ++n);
	}
	if (!n) {
		lua_pop(L, 1);
		return push_missing(L, st, stream, path, hint);
	}
	set_series_mt(L);
	return 1;
}

/* kv files: every numeric value as a field. */
struct kv_opts {
	lua_State *L;
	int to_bytes;
};

static int kv_field(const char *k, size_t kl, const char *v, size_t vl, void *arg)
{
	struct kv_opts *o = arg;
	char key[128];
	uint64_t u;

	if (kl == 0 || kl >= sizeof(key) || parse_kv_u64(v, vl, o->to_bytes, &u))
		return 0;
	memcpy(key, k, kl);
	key[kl] = '\0';
	push_u64(o->L, u);
	lua_setfield(o->L, -2, key);
	return 0;
}

static int sample_kv(lua_State *L, const struct capture_rec *r, void *arg)
{
	struct kv_opts o = { L, arg != NULL };

	return parse_kv(r->data, r->len, kv_field, &o) < 0;
}

static int sample_snmp(lua_State *L, const struct capture_rec *r, void *arg)
{
	struct kv_opts o = { L, 0 };

	return parse_snmp(r->data, r->len, kv_field, &o) < 0;
}

static void set_cpu_times(lua_State *L, const struct cpu_times *c)
{
	set_u64(L, "user", c->user);
	set_u64(L, "nice", c->nice);
	set_u64(L, "system", c->system);
	set_u64(L, "idle", c->idle);
	set_u64(L, "iowait", c->iowait);
	set_u64(L, "irq", c->irq);
	set_u64(L, "softirq", c->softirq);
	set_u64(L, "steal", c->steal);
	set_u64(L, "guest", c->guest);
	set_u64(L, "guest_nice", c->guest_nice);
}

/* ctx.proc.stat() -> { total = series, cpus = { series, ... (each with .id) }, ncpu = n } */
static int proc_stat(lua_State *L)
{
	struct analysis *an = proc_analysis(L);
	const struct capture_stream *st = capture_set__stream(&an->cs, "proc.stat");
	int ncpu_max = 0, nsamples = 0, ids[4096];

	if (!st)
		return push_missing(L, st, "proc.stat", "/proc/stat", NULL);
	lua_newtable(L);        /* result */
	lua_newtable(L);        /* total series */
	lua_newtable(L);        /* cpu id -> series */
	for (size_t i = 0; i < st->n; i++) {
		const struct capture_rec *r = &st->rec[i];
		struct proc_stat ps = { 0 };
		double t = analysis__t(an, r);

		if (r->err || strcmp(r->path, "/proc/stat") || parse_proc_stat(r->data, r->len, &ps))
			continue;
		nsamples++;
		lua_newtable(L);
		set_num(L, "t", t);
		set_cpu_times(L, &ps.total);
		set_u64(L, "ctxt", ps.ctxt);
		set_u64(L, "processes", ps.processes);
		set_u64(L, "procs_running", ps.procs_running);
		set_u64(L, "procs_blocked", ps.procs_blocked);
		lua_rawseti(L, -3, nsamples);
		for (int c = 0; c < ps.ncpu; c++) {
			int id = ps.cpu_id[c];

			if (lua_rawgeti(L, -1, id + 1) == LUA_TNIL) {
				lua_pop(L, 1);
				lua_newtable(L);
				lua_pushvalue(L, -1);
				lua_rawseti(L, -3, id + 1);
				if (ncpu_max < (int)(sizeof(ids) / sizeof(ids[0])))
					ids[ncpu_max++] = id;
			}
			lua_newtable(L);
			set_num(L, "t", t);
			set_cpu_times(L, &ps.cpu[c]);
			lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
			lua_pop(L, 1);
		}
		proc_stat__free(&ps);
	}
	if (!nsamples) {
		lua_pop(L, 3);
		return push_missing(L, st, "proc.stat", "/proc/stat", NULL);
	}
	/* cpus as a dense array in id order, each series knowing its CPU number. */
	lua_newtable(L);
	for (int a = 0; a < ncpu_max; a++)
		for (int b = a + 1; b < ncpu_max; b++)
			if (ids[b] < ids[a]) {
				int x = ids[a];

				ids[a] = ids[b];
				ids[b] = x;
			}
	for (int k = 0; k < ncpu_max; k++) {
		lua_rawgeti(L, -2, ids[k] + 1);
		set_series_mt(L);
		lua_pushinteger(L, ids[k]);
		lua_setfield(L, -2, "id");
		lua_rawseti(L, -2, k + 1);
	}
	lua_setfield(L, -4, "cpus");
	lua_pop(L, 1);
	set_series_mt(L);
	lua_setfield(L, -2, "total");
	lua_pushinteger(L, ncpu_max);
	lua_setfield(L, -2, "ncpu");
	return 1;
}

static int sample_loadavg(lua_State *L, const struct capture_rec *r, void *arg)
{
	struct loadavg la;

	if (parse_loadavg(r->data, r->len, &la))
		return -1;
	set_num(L, "load1", la.load1);
	set_num(L, "load5", la.load5);
	set_num(L, "load15", la.load15);
	set_u64(L, "runnable", la.runnable);
	set_u64(L, "threads", la.threads);
	return 0;
}

static int proc_loadavg(lua_State *L)
{
	return push_series(L, "proc.loadavg", "/proc/loadavg", NULL, sample_loadavg, NULL);
}

static int proc_meminfo(lua_State *L)
{
	return push_series(L, "proc.meminfo", "/proc/meminfo", NULL, sample_kv, (void *)1);
}

static int proc_vmstat(lua_State *L)
{
	return push_series(L, "proc.vmstat", "/proc/vmstat", NULL, sample_kv, NULL);
}

static int sample_pressure(lua_State *L, const struct capture_rec *r, void *arg)
{
	struct psi p;

	if (parse_pressure(r->data, r->len, &p))
		return -1;
	if (p.some.present) {
		set_num(L, "some_avg10", p.some.avg10);
		set_num(L, "some_avg60", p.some.avg60);
		set_num(L, "some_avg300", p.some.avg300);
		set_u64(L, "some_total", p.some.total_us);
	}
	if (p.full.present) {
		set_num(L, "full_avg10", p.full.avg10);
		set_num(L, "full_avg60", p.full.avg60);
		set_num(L, "full_avg300", p.full.avg300);
		set_u64(L, "full_total", p.full.total_us);
	}
	return 0;
}

/* ctx.proc.pressure("cpu"|"memory"|"io") */
static int proc_pressure(lua_State *L)
{
	static const char *const res[] = { "cpu", "memory", "io", NULL };
	int i = luaL_checkoption(L, 1, NULL, res);
	char path[64];

	snprintf(path, sizeof(path), "/proc/pressure/%s", res[i]);
	return push_series(L, "proc.pressure", path,
			   "pressure stall information needs a kernel with CONFIG_PSI (and not psi=0)",
			   sample_pressure, NULL);
}

static int proc_snmp(lua_State *L)
{
	/* snmp and netstat merged per round: both are "Proto.Counter" keys. */
	int n = push_series(L, "proc.snmp", "/proc/net/snmp", NULL, sample_snmp, NULL);

	if (n != 1)
		return n;
	{
		struct analysis *an = proc_analysis(L);
		const struct capture_stream *st = capture_set__stream(&an->cs, "proc.snmp");
		lua_Integer len = (lua_Integer)lua_rawlen(L, -1), k = 0;

		for (size_t i = 0; i < st->n && k < len; i++) {
			const struct capture_rec *r = &st->rec[i];
			struct kv_opts o = { L, 0 };

			if (r->err || strcmp(r->path, "/proc/net/netstat"))
				continue;
			/* Pair netstat with the snmp sample of the same round. */
			for (lua_Integer j = 1; j <= len; j++) {
				double t = sample_t(L, -1, j);

				if (fabs(t - analysis__t(an, r)) < 0.5) {
					lua_rawgeti(L, -1, j);
					parse_snmp(r->data, r->len, kv_field, &o);
					lua_pop(L, 1);
					k++;
					break;
				}
			}
		}
	}
	return 1;
}

static int sample_filenr(lua_State *L, const struct capture_rec *r, void *arg)
{
	struct file_nr f;

	if (parse_file_nr(r->data, r->len, &f))
		return -1;
	set_u64(L, "allocated", f.allocated);
	set_u64(L, "unused", f.unused);
	set_u64(L, "max", f.max);
	return 0;
}

static int proc_filenr(lua_State *L)
{
	return push_series(L, "proc.filenr", "/proc/sys/fs/file-nr", NULL, sample_filenr, NULL);
}

/* ---- disks ---- */

struct keyed_walk {
	lua_State *L;
	double t;
};

/*
 * Files with one line per device (diskstats, net/dev) become { [name] = series }:
 * push a new sample table for name at time t; keyed_sample_end files it.
 */
static void keyed_sample_begin(lua_State *L, const char *name, double t)
{
	if (lua_getfield(L, -1, name) == LUA_TNIL) {
		lua_pop(L, 1);
		lua_newtable(L);
		set_series_mt(L);
		lua_pushvalue(L, -1);
		lua_setfield(L, -3, name);
	}
	lua_newtable(L);
	set_num(L, "t", t);
}

static void keyed_sample_end(lua_State *L)
{
	lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
	lua_pop(L, 1);
}

static int disk_sample(const struct diskstat *d, void *arg)
{
	struct keyed_walk *w = arg;
	lua_State *L = w->L;

	keyed_sample_begin(L, d->name, w->t);
	set_u64(L, "rd_ios", d->rd_ios);
	set_u64(L, "rd_merges", d->rd_merges);
	set_u64(L, "rd_sectors", d->rd_sectors);
	set_u64(L, "rd_ticks", d->rd_ticks);
	set_u64(L, "wr_ios", d->wr_ios);
	set_u64(L, "wr_merges", d->wr_merges);
	set_u64(L, "wr_sectors", d->wr_sectors);
	set_u64(L, "wr_ticks", d->wr_ticks);
	set_u64(L, "in_flight", d->in_flight);
	set_u64(L, "io_ticks", d->io_ticks);
	set_u64(L, "time_in_queue", d->time_in_queue);
	set_u64(L, "dc_ios", d->dc_ios);
	set_u64(L, "dc_sectors", d->dc_sectors);
	set_u64(L, "dc_ticks", d->dc_ticks);
	set_u64(L, "fl_ios", d->fl_ios);
	set_u64(L, "fl_ticks", d->fl_ticks);
	keyed_sample_end(L);
	return 0;
}

typedef void (*keyed_parse_fn)(const struct capture_rec *r, struct keyed_walk *w);

/* { [name] = series } from every readable record of path in stream. */
static int push_keyed_series(lua_State *L, const char *stream, const char *path,
			     keyed_parse_fn parse)
{
	struct analysis *an = proc_analysis(L);
	const struct capture_stream *st = capture_set__stream(&an->cs, stream);
	int n = 0;

	if (!st)
		return push_missing(L, st, stream, path, NULL);
	lua_newtable(L);
	for (size_t i = 0; i < st->n; i++) {
		const struct capture_rec *r = &st->rec[i];
		struct keyed_walk w = { L, analysis__t(an, r) };

		if (r->err || strcmp(r->path, path))
			continue;
		parse(r, &w);
		n++;
	}
	if (!n) {
		lua_pop(L, 1);
		return push_missing(L, st, stream, path, NULL);
	}
	return 1;
}

static void parse_disks(const struct capture_rec *r, struct keyed_walk *w)
{
	parse_diskstats(r->data, r->len, disk_sample, w);
}

/* ctx.proc.diskstats() -> { [name] = series } (partitions included; see disks()) */
static int proc_diskstats(lua_State *L)
{
	return push_keyed_series(L, "proc.diskstats", "/proc/diskstats", parse_disks);
}

/* The text of the first/last readable record of path, trimmed; NULL when none. */
static const struct capture_rec *rec_of(const struct capture_stream *st, const char *path,
					int last)
{
	const struct capture_rec *found = NULL;

	for (size_t i = 0; st && i < st->n; i++)
		if (!strcmp(st->rec[i].path, path)) {
			found = &st->rec[i];
			if (!last)
				break;
		}
	return found;
}

static void set_text(lua_State *L, const char *k, const struct capture_rec *r)
{
	size_t n;

	if (!r || r->err)
		return;
	n = r->len;
	while (n && (r->data[n - 1] == '\n' || r->data[n - 1] == ' '))
		n--;
	lua_pushlstring(L, r->data, n);
	lua_setfield(L, -2, k);
}

static void set_rec_u64(lua_State *L, const char *k, const struct capture_rec *r)
{
	uint64_t v;

	if (r && !r->err && !parse_kv_u64(r->data, r->len, 0, &v))
		set_u64(L, k, v);
}

/* Each name listed in a "/sys/block"-style record (one per line). */
static int each_listed(lua_State *L, const struct capture_rec *list,
		       void (*fn)(lua_State *L, const char *name, void *arg), void *arg)
{
	const char *p, *end;

	if (!list || list->err)
		return 0;
	for (p = list->data, end = list->data + list->len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		char name[128];
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (l && l < sizeof(name)) {
			memcpy(name, p, l);
			name[l] = '\0';
			fn(L, name, arg);
		}
		p += l + 1;
	}
	return 1;
}

static void disk_info(lua_State *L, const char *name, void *arg)
{
	const struct capture_stream *st = arg;
	struct analysis *an = proc_analysis(L);
	char path[256];
	const struct capture_rec *r0, *r1;
	lua_Integer n = 0;

	lua_newtable(L);
#define DISK_PATH(f) (snprintf(path, sizeof(path), "/sys/block/%s/%s", name, f), path)
	r0 = rec_of(st, DISK_PATH("queue/rotational"), 0);
	if (r0 && !r0->err) {
		lua_pushboolean(L, r0->len && r0->data[0] == '1');
		lua_setfield(L, -2, "rotational");
	}
	set_rec_u64(L, "nr_requests", rec_of(st, DISK_PATH("queue/nr_requests"), 0));
	set_rec_u64(L, "logical_block_size", rec_of(st, DISK_PATH("queue/logical_block_size"), 0));
	set_rec_u64(L, "max_sectors_kb", rec_of(st, DISK_PATH("queue/max_sectors_kb"), 0));
	set_text(L, "scheduler", rec_of(st, DISK_PATH("queue/scheduler"), 0));
	r0 = rec_of(st, DISK_PATH("size"), 0);
	{
		uint64_t sectors;

		if (r0 && !r0->err && !parse_kv_u64(r0->data, r0->len, 0, &sectors))
			set_u64(L, "size_bytes", sectors * 512);
	}
	r0 = rec_of(st, DISK_PATH("device/ioerr_cnt"), 0);
	r1 = rec_of(st, DISK_PATH("device/ioerr_cnt"), 1);
	if (r0 && !r0->err && r1 && !r1->err) {
		/* ioerr_cnt is hex ("0x1f"). */
		set_num(L, "ioerr_first", (double)strtoull(r0->data, NULL, 0));
		set_num(L, "ioerr_last", (double)strtoull(r1->data, NULL, 0));
	} else if (r0) {
		lua_pushfstring(L, "%s: %s", DISK_PATH("device/ioerr_cnt"),
				r0->err ? strerror(r0->err) : "read once only");
		lua_setfield(L, -2, "ioerr_reason");
	}
	lua_newtable(L); /* inflight series */
	DISK_PATH("inflight");
	for (size_t i = 0; i < st->n; i++) {
		const struct capture_rec *r = &st->rec[i];
		unsigned long long rd, wr;

		if (r->err || strcmp(r->path, path) || sscanf(r->data, "%llu %llu", &rd, &wr) != 2)
			continue;
		lua_newtable(L);
		set_num(L, "t", analysis__t(an, r));
		set_u64(L, "read", rd);
		set_u64(L, "write", wr);
		lua_rawseti(L, -2, ++n);
	}
	set_series_mt(L);
	lua_setfield(L, -2, "inflight");
#undef DISK_PATH
	lua_setfield(L, -2, name);
}

/* ctx.proc.disks() -> { [name] = { rotational, nr_requests, scheduler, inflight = series, ... } } */
static int proc_disks(lua_State *L)
{
	struct analysis *an = proc_analysis(L);
	const struct capture_stream *st = capture_set__stream(&an->cs, "proc.diskstats");
	const struct capture_rec *list = rec_of(st, "/sys/block", 0);

	if (!list)
		return push_missing(L, st, "proc.diskstats", "/sys/block", NULL);
	lua_newtable(L);
	each_listed(L, list, disk_info, (void *)st);
	return 1;
}

/* ---- network interfaces ---- */

static int net_sample(const struct netdev *d, void *arg)
{
	struct keyed_walk *w = arg;
	lua_State *L = w->L;

	keyed_sample_begin(L, d->name, w->t);
	set_u64(L, "rx_bytes", d->rx_bytes);
	set_u64(L, "rx_packets", d->rx_packets);
	set_u64(L, "rx_errs", d->rx_errs);
	set_u64(L, "rx_drop", d->rx_drop);
	set_u64(L, "rx_fifo", d->rx_fifo);
	set_u64(L, "rx_frame", d->rx_frame);
	set_u64(L, "tx_bytes", d->tx_bytes);
	set_u64(L, "tx_packets", d->tx_packets);
	set_u64(L, "tx_errs", d->tx_errs);
	set_u64(L, "tx_drop", d->tx_drop);
	set_u64(L, "tx_fifo", d->tx_fifo);
	set_u64(L, "tx_colls", d->tx_colls);
	set_u64(L, "tx_carrier", d->tx_carrier);
	keyed_sample_end(L);
	return 0;
}

static void parse_ifaces(const struct capture_rec *r, struct keyed_walk *w)
{
	parse_net_dev(r->data, r->len, net_sample, w);
}

/* ctx.proc.netdev() -> { [ifname] = series } */
static int proc_netdev(lua_State *L)
{
	return push_keyed_series(L, "proc.netdev", "/proc/net/dev", parse_ifaces);
}

/* ctx.proc.interfaces() -> { [ifname] = { speed_mbps | speed_reason, operstate, mtu, type } } */
static int proc_interfaces(lua_State *L)
{
	struct analysis *an = proc_analysis(L);
	const struct capture_stream *st = capture_set__stream(&an->cs, "proc.netdev");

	if (!st)
		return push_missing(L, st, "proc.netdev", "/sys/class/net", NULL);
	lua_newtable(L);
	for (size_t i = 0; i < st->n; i++) {
		const struct capture_rec *r = &st->rec[i];
		const char *p = r->path, *slash, *file;
		char name[128];
		int64_t v;

		if (strncmp(p, "/sys/class/net/", 15))
			continue;
		p += 15;
		slash = strchr(p, '/');
		if (!slash || (size_t)(slash - p) >= sizeof(name))
			continue;
		memcpy(name, p, (size_t)(slash - p));
		name[slash - p] = '\0';
		file = slash + 1;
		if (lua_getfield(L, -1, name) == LUA_TNIL) {
			lua_pop(L, 1);
			lua_newtable(L);
			lua_pushvalue(L, -1);
			lua_setfield(L, -3, name);
		}
		if (!strcmp(file, "speed")) {
			/* EINVAL (link down, virtual device) and -1 both mean "no speed". */
			if (!r->err && !parse_kv_i64(r->data, r->len, &v) && v > 0)
				set_num(L, "speed_mbps", (double)v);
			else {
				lua_pushfstring(L, "%s: %s", r->path,
						r->err ? strerror(r->err) :
							 "the driver reports no link speed");
				lua_setfield(L, -2, "speed_reason");
			}
		} else if (!strcmp(file, "mtu") || !strcmp(file, "type")) {
			set_rec_u64(L, file, r);
		} else {
			set_text(L, file, r);
		}
		lua_pop(L, 1);
	}
	return 1;
}

/* ---- controllers of disks and interfaces ---- */

/* Copy field i (tab-separated) of line [p, end) into out; "" when absent. */
static void tab_field(const char *p, const char *end, int i, char *out, size_t outlen)
{
	for (; i > 0 && p < end; i--) {
		const char *t = memchr(p, '\t', (size_t)(end - p));

		p = t ? t + 1 : end;
	}
	{
		const char *t = memchr(p, '\t', (size_t)(end - p));
		size_t n = t ? (size_t)(t - p) : (size_t)(end - p);

		if (n >= outlen)
			n = outlen - 1;
		memcpy(out, p, n);
		out[n] = '\0';
	}
}

/* t[k] = "text" unless text is "-" (unknown, none). */
static void set_field_dash(lua_State *L, const char *k, const char *v)
{
	if (!*v || !strcmp(v, "-"))
		return;
	lua_pushstring(L, v);
	lua_setfield(L, -2, k);
}

/* "TOTAL_ERR_COR 3" (or the sum of every counter when there is no TOTAL_ line). */
static int aer_total(const struct capture_rec *r, double *out)
{
	const char *p = r->data, *end = r->data + r->len;
	double sum = 0;
	int any = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end, *sp = memchr(p, ' ', (size_t)(le - p));
		uint64_t v;

		if (sp && !parse_kv_u64(sp + 1, (size_t)(le - sp - 1), 0, &v)) {
			if (!strncmp(p, "TOTAL_", 6)) {
				*out = (double)v;
				return 0;
			}
			sum += (double)v;
			any = 1;
		}
		p = le + 1;
	}
	*out = sum;
	return any ? 0 : -1;
}

/* The PCI facts of controller id: link = { speed_gts, width, max_... } | link_reason; aer. */
static void pci_facts(lua_State *L, const struct capture_stream *st, const char *id)
{
	static const char *const aer[] = { "aer_dev_correctable", "aer_dev_nonfatal",
					   "aer_dev_fatal", NULL };
	static const char *const aer_key[] = { "correctable", "nonfatal", "fatal" };
	char path[256];
	const struct capture_rec *sp, *wd, *msp, *mwd;
	double gts = 0, mgts = 0;
	uint64_t width = 0, mwidth = 0;
	int reason = 0;

#define PCI_PATH(f) (snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s", id, f), path)
	sp = rec_of(st, PCI_PATH("current_link_speed"), 0);
	wd = rec_of(st, PCI_PATH("current_link_width"), 0);
	msp = rec_of(st, PCI_PATH("max_link_speed"), 0);
	mwd = rec_of(st, PCI_PATH("max_link_width"), 0);
	/* "8.0 GT/s PCIe" ("Unknown" when the link is down or the device is not PCIe). */
	if (sp && !sp->err && wd && !wd->err && sscanf(sp->data, "%lf GT/s", &gts) == 1 && gts > 0 &&
	    !parse_kv_u64(wd->data, wd->len, 0, &width) && width > 0) {
		lua_newtable(L);
		set_num(L, "speed_gts", gts);
		set_u64(L, "width", width);
		if (msp && !msp->err && sscanf(msp->data, "%lf GT/s", &mgts) == 1 && mgts > 0)
			set_num(L, "max_speed_gts", mgts);
		if (mwd && !mwd->err && !parse_kv_u64(mwd->data, mwd->len, 0, &mwidth) && mwidth)
			set_u64(L, "max_width", mwidth);
		lua_setfield(L, -2, "link");
	} else {
		const struct capture_rec *bad = !sp || sp->err ? sp : wd;

		if (!sp)
			lua_pushfstring(L, "%s: not read", PCI_PATH("current_link_speed"));
		else if (bad && bad->err)
			lua_pushfstring(L, "%s: %s (not a PCI Express device: no link speed)",
					bad->path, strerror(bad->err));
		else
			lua_pushfstring(L, "%s: the link reports no speed or width (link down?)",
					sp->path);
		lua_setfield(L, -2, "link_reason");
	}
	lua_newtable(L);
	for (int i = 0; aer[i]; i++) {
		const struct capture_rec *r0 = rec_of(st, PCI_PATH(aer[i]), 0);
		const struct capture_rec *r1 = rec_of(st, path, 1);
		double v0, v1;

		if (r0 && !r0->err && r1 && r1 != r0 && !r1->err && !aer_total(r0, &v0) &&
		    !aer_total(r1, &v1)) {
			lua_newtable(L);
			set_num(L, "first", v0);
			set_num(L, "last", v1);
			lua_setfield(L, -2, aer_key[i]);
		} else if (!reason) {
			/* the first file that cannot be compared says why (usually: no AER) */
			lua_pushfstring(L, "%s: %s", path,
					!r0 ? "not read" :
					r0->err == ENOENT ? "No such file or directory (no PCIe "
							    "Advanced Error Reporting on this device)" :
					r0->err ? strerror(r0->err) :
					r1 == r0 ? "read once only" : "no counters in it");
			lua_setfield(L, -3, "aer_reason");
			reason = 1;
		}
	}
	lua_setfield(L, -2, "aer");
#undef PCI_PATH
}

/*
 * ctx.proc.controllers("disk" | "net") -> {
 *   devices = { [name] = { controller = id | nil, kind, driver, path, stacked_on = { ... } } },
 *   controllers = { [id] = { kind, driver, devices = { names, sorted },
 *                            link = { speed_gts, width, max_speed_gts, max_width } | nil,
 *                            link_reason, aer = { correctable = { first, last }, ... },
 *                            aer_reason } } }
 * from the sonde:disk-controllers / sonde:net-controllers record (docs/capture-format.md).
 */
static int proc_controllers(lua_State *L)
{
	static const char *const kinds[] = { "disk", "net", NULL };
	struct analysis *an = proc_analysis(L);
	int k = luaL_checkoption(L, 1, NULL, kinds);
	const char *stream = k ? "proc.netdev" : "proc.diskstats";
	const char *recname = k ? "sonde:net-controllers" : "sonde:disk-controllers";
	const struct capture_stream *st = capture_set__stream(&an->cs, stream);
	const struct capture_rec *rec = rec_of(st, recname, 0);
	const char *p, *end;
	int devs, ctrls;

	if (!rec || rec->err)
		return push_missing(L, st, stream, recname,
				    "the recording predates controller resolution");
	lua_newtable(L);
	lua_newtable(L);
	devs = lua_gettop(L);
	lua_newtable(L);
	ctrls = lua_gettop(L);
	for (p = rec->data, end = rec->data + rec->len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		char name[128], id[128], kind[32], driver[128], dev[512], lower[1024];

		tab_field(p, le, 0, name, sizeof(name));
		tab_field(p, le, 1, id, sizeof(id));
		tab_field(p, le, 2, kind, sizeof(kind));
		tab_field(p, le, 3, driver, sizeof(driver));
		tab_field(p, le, 4, dev, sizeof(dev));
		tab_field(p, le, 5, lower, sizeof(lower));
		p = le + 1;
		if (!*name)
			continue;
		lua_newtable(L);
		set_field_dash(L, "controller", id);
		set_field_dash(L, "kind", kind);
		set_field_dash(L, "driver", driver);
		set_field_dash(L, "path", dev);
		lua_newtable(L);
		if (*lower && strcmp(lower, "-")) {
			lua_Integer n = 0;

			for (char *s = lower, *c; s; s = c ? c + 1 : NULL) {
				c = strchr(s, ',');
				if (c)
					*c = '\0';
				if (*s) {
					lua_pushstring(L, s);
					lua_rawseti(L, -2, ++n);
				}
			}
		}
		lua_setfield(L, -2, "stacked_on");
		lua_setfield(L, devs, name);
		if (!*id || !strcmp(id, "-"))
			continue;
		if (lua_getfield(L, ctrls, id) == LUA_TNIL) {
			lua_pop(L, 1);
			lua_newtable(L);
			set_field_dash(L, "kind", kind);
			set_field_dash(L, "driver", driver);
			lua_newtable(L);
			lua_setfield(L, -2, "devices");
			if (!strcmp(kind, "pci"))
				pci_facts(L, st, id);
			else {
				lua_pushfstring(L, "%s is a %s device, not PCI: no link speed to bound it",
						id, kind);
				lua_setfield(L, -2, "link_reason");
				lua_pushfstring(L, "%s is a %s device, not PCI: no AER counters", id,
						kind);
				lua_setfield(L, -2, "aer_reason");
			}
			lua_pushvalue(L, -1);
			lua_setfield(L, ctrls, id);
		}
		/* the record lists devices sorted by name, so devices stays sorted */
		lua_getfield(L, -1, "devices");
		lua_pushstring(L, name);
		lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
		lua_pop(L, 2);
	}
	lua_setfield(L, -3, "controllers");
	lua_setfield(L, -2, "devices");
	return 1;
}

/* ---- interrupts, kernel log ---- */

struct irq_walk {
	lua_State *L;
	const char *field;
};

static int irq_line(const char *name, size_t nl, const char *desc, size_t dl, uint64_t total,
		    void *arg)
{
	struct irq_walk *w = arg;
	lua_State *L = w->L;

	lua_pushlstring(L, name, nl);
	if (lua_rawget(L, -2) == LUA_TNIL) {
		lua_pop(L, 1);
		lua_newtable(L);
		lua_pushlstring(L, desc, dl);
		lua_setfield(L, -2, "desc");
		lua_pushlstring(L, name, nl);
		lua_pushvalue(L, -2);
		lua_rawset(L, -4);
	}
	set_u64(L, w->field, total);
	lua_pop(L, 1);
	return 0;
}

/* ctx.proc.interrupts() -> { [name] = { desc, first, last } } (sums over CPUs) */
static int proc_interrupts(lua_State *L)
{
	struct analysis *an = proc_analysis(L);
	const struct capture_stream *st = capture_set__stream(&an->cs, "proc.interrupts");
	const struct capture_rec *r0 = rec_of(st, "/proc/interrupts", 0);
	const struct capture_rec *r1 = rec_of(st, "/proc/interrupts", 1);
	struct irq_walk w = { L, "first" };

	if (!r0 || r0->err)
		return push_missing(L, st, "proc.interrupts", "/proc/interrupts", NULL);
	lua_newtable(L);
	parse_interrupts(r0->data, r0->len, irq_line, &w);
	if (r1 && !r1->err) {
		w.field = "last";
		parse_interrupts(r1->data, r1->len, irq_line, &w);
	}
	return 1;
}

/* ctx.proc.kernel_log() -> { "line", ... } (OOM-related records only) */
static int proc_kernel_log(lua_State *L)
{
	struct analysis *an = proc_analysis(L);
	const struct capture_stream *st = capture_set__stream(&an->cs, "kernel.log");
	const struct capture_rec *r = rec_of(st, "/dev/kmsg", 1);
	const char *p, *end;
	lua_Integer n = 0;

	if (!r || r->err)
		return push_missing(L, st, "kernel.log", "/dev/kmsg",
				    "reading the kernel log needs root (or kernel.dmesg_restrict=0)");
	lua_newtable(L);
	for (p = r->data, end = r->data + r->len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (l) {
			lua_pushlstring(L, p, l);
			lua_rawseti(L, -2, ++n);
		}
		p += l + 1;
	}
	return 1;
}

/* ---- file systems and swap ---- */

static void set_field_str(lua_State *L, const char *k, const char *v, size_t n)
{
	lua_pushlstring(L, v, n);
	lua_setfield(L, -2, k);
}

/* One "sonde:statfs" record (collect.c mounts_sample) into { [mount] = series }. */
static void parse_statfs(const struct capture_rec *r, struct keyed_walk *w)
{
	lua_State *L = w->L;
	const char *p = r->data, *end = r->data + r->len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *f[7];
		size_t fl[7];
		int nf = 0;
		char mnt[1024], nums[256];

		/* status dev fstype source mount device numbers: tab-separated */
		for (const char *q = p, *e = p + l; nf < 7 && q <= e;) {
			const char *tab = memchr(q, '\t', (size_t)(e - q));
			size_t n = tab ? (size_t)(tab - q) : (size_t)(e - q);

			f[nf] = q;
			fl[nf++] = n;
			q += n + 1;
			if (!tab)
				break;
		}
		p += l + 1;
		if (nf < 6 || fl[4] == 0 || fl[4] >= sizeof(mnt))
			continue;
		memcpy(mnt, f[4], fl[4]);
		mnt[fl[4]] = '\0';
		/*
		 * A mount point mounted over (two lines, the later on top): statvfs saw the top
		 * one, so the later line of the record replaces the earlier.
		 */
		{
			int top = lua_gettop(L);

			if (lua_getfield(L, -1, mnt) == LUA_TTABLE) {
				lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
				int same = n > 0 && lua_rawgeti(L, top + 1, n) == LUA_TTABLE &&
					   lua_getfield(L, -1, "t") == LUA_TNUMBER &&
					   lua_tonumber(L, -1) == w->t;

				lua_settop(L, top + 1);
				if (same) {
					lua_pushnil(L);
					lua_rawseti(L, -2, n);
				}
			}
			lua_settop(L, top);
		}
		keyed_sample_begin(L, mnt, w->t);
		set_field_str(L, "status", f[0], fl[0]);
		set_field_str(L, "dev", f[1], fl[1]);
		set_field_str(L, "fstype", f[2], fl[2]);
		set_field_str(L, "source", f[3], fl[3]);
		if (!(fl[5] == 1 && f[5][0] == '-'))
			set_field_str(L, "device", f[5], fl[5]);
		if (nf == 7 && fl[6] < sizeof(nums)) {
			unsigned long frsize, flag;
			unsigned long long blocks, bfree, bavail, files, ffree;

			memcpy(nums, f[6], fl[6]);
			nums[fl[6]] = '\0';
			if (sscanf(nums, "%lu %llu %llu %llu %llu %llu %lu", &frsize, &blocks, &bfree,
				   &bavail, &files, &ffree, &flag) == 7) {
				double used = (double)(blocks - (bfree < blocks ? bfree : blocks));

				set_num(L, "size_bytes", (double)blocks * frsize);
				set_num(L, "used_bytes", used * frsize);
				set_num(L, "free_bytes", (double)bfree * frsize);
				set_num(L, "avail_bytes", (double)bavail * frsize);
				/* df's Use%: used of what non-root users can have (root's reserve left out) */
				if (used + bavail > 0)
					set_num(L, "used_pct", 100.0 * used / (used + (double)bavail));
				set_num(L, "inodes", (double)files);
				set_num(L, "inodes_free", (double)ffree);
				if (files > 0) {
					set_num(L, "inodes_used", (double)(files - (ffree < files ? ffree : files)));
					set_num(L, "inodes_pct",
						100.0 * (double)(files - (ffree < files ? ffree : files)) /
							(double)files);
				}
				lua_pushboolean(L, (flag & 1) != 0); /* ST_RDONLY */
				lua_setfield(L, -2, "readonly");
			}
		} else if (!strncmp(f[0], "err=", 4)) {
			lua_pushfstring(L, "statvfs %s: %s", mnt, strerror(atoi(f[0] + 4)));
			lua_setfield(L, -2, "reason");
		}
		keyed_sample_end(L);
	}
}

/*
 * ctx.proc.filesystems() -> { [mount point] = series } with status, dev, fstype, source,
 * device and the capacity fields; each series also has errors_first/errors_last (ext4's
 * errors_count) or errors_reason.
 */
static int proc_filesystems(lua_State *L)
{
	struct analysis *an = proc_analysis(L);
	const struct capture_stream *st = capture_set__stream(&an->cs, "proc.mounts");
	int ret = push_keyed_series(L, "proc.mounts", "sonde:statfs", parse_statfs);

	if (ret != 1 || lua_isnil(L, -1))
		return ret;
	lua_pushnil(L);
	while (lua_next(L, -2)) {
		lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
		int top = lua_gettop(L);
		char path[256] = "";

		if (n > 0 && lua_rawgeti(L, -1, n) == LUA_TTABLE &&
		    lua_getfield(L, -1, "device") == LUA_TSTRING &&
		    lua_getfield(L, -2, "fstype") == LUA_TSTRING && !strcmp(lua_tostring(L, -1), "ext4"))
			snprintf(path, sizeof(path), "/sys/fs/ext4/%s/errors_count", lua_tostring(L, -2));
		lua_settop(L, top);
		if (path[0]) {
			const struct capture_rec *r0 = rec_of(st, path, 0), *r1 = rec_of(st, path, 1);

			if (r0 && !r0->err && r1 && !r1->err && r1 != r0) {
				set_num(L, "errors_first", strtod(r0->data, NULL));
				set_num(L, "errors_last", strtod(r1->data, NULL));
			} else {
				lua_pushfstring(L, "%s: %s", path,
						!r0 ? "not in the captures" :
						r0->err ? strerror(r0->err) : "read once only");
				lua_setfield(L, -2, "errors_reason");
			}
		}
		lua_pop(L, 1);
	}
	return 1;
}

/* /proc/swaps: "Filename Type Size Used Priority", sizes in KiB. */
static void parse_swaps(const struct capture_rec *r, struct keyed_walk *w)
{
	lua_State *L = w->L;
	const char *p = r->data, *end = r->data + r->len;
	int first = 1;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char line[1200], name[1024], type[32];
		unsigned long long size, used;
		long prio;

		if (!first && l < sizeof(line)) {
			memcpy(line, p, l);
			line[l] = '\0';
			if (sscanf(line, "%1023s %31s %llu %llu %ld", name, type, &size, &used, &prio) == 5) {
				keyed_sample_begin(L, name, w->t);
				set_field_str(L, "type", type, strlen(type));
				set_num(L, "size_bytes", (double)size * 1024);
				set_num(L, "used_bytes", (double)used * 1024);
				set_num(L, "priority", (double)prio);
				keyed_sample_end(L);
			}
		}
		first = 0;
		p += l + 1;
	}
}

/* ctx.proc.swaps() -> { [swap device or file] = series(size_bytes used_bytes priority) } */
static int proc_swaps(lua_State *L)
{
	return push_keyed_series(L, "proc.mounts", "/proc/swaps", parse_swaps);
}

/* ---- resource controls: cgroups ---- */

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
			set_u64(L, c->field, v / c->div);
			/* when it was read: the first counters may be from the walk's round */
			set_num(L, "t", t);
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
	set_num(L, "t", t);
	set_u64(L, field, v);
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
	set_u64(L, field, v);
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

/* One record of a kept cgroup's file into its entry (at index entry). */
static void cg_record(lua_State *L, struct analysis *an, int entry, int v2, const char *file,
		      const struct capture_rec *r)
{
	double t = analysis__t(an, r);

	if (!strcmp(file, "cpu.pressure") || !strcmp(file, "memory.pressure") ||
	    !strcmp(file, "io.pressure")) {
		if (r->err) {
			err_reason(L, r->path, r->err, "this kernel has no PSI (CONFIG_PSI, psi=1)");
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
		if (sample_pressure(L, r, NULL)) {
			lua_pop(L, 3);
			return;
		}
		set_num(L, "t", t);
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
	if (!strcmp(file, "cgroup.procs")) {
		const char *p = r->data, *end = r->data + r->len;

		lua_getfield(L, entry, "procs");
		while (p < end && lua_rawlen(L, -1) < CG_PROCS_MAX) {
			long pid = strtol(p, NULL, 10);
			const char *nl = memchr(p, '\n', (size_t)(end - p));

			if (pid > 0) {
				/* a set while building: pid -> true (made a list at the end) */
				lua_pushboolean(L, 1);
				lua_rawseti(L, -2, pid);
			}
			if (!nl)
				break;
			p = nl + 1;
		}
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
			set_series_mt(L);
			lua_setfield(L, -2, i == 1 ? "usage" : "current");
		}
		lua_setfield(L, -2, subs[i]);
	}
	if (version == 2) {
		lua_newtable(L);
		lua_setfield(L, -2, "pressure");
	} else {
		lua_pushstring(L, "cgroup v1 has no pressure stall information per cgroup "
				  "(PSI per cgroup needs cgroup v2)");
		lua_setfield(L, -2, "pressure_reason");
	}
}

/*
 * ctx.proc.cgroups() -> { cgroup, ... , hierarchies = {...}, truncated = bool }: every cgroup
 * the collector kept (it or a descendant held a process), v1 controllers of the same path
 * merged into one cgroup. See docs/writing-a-check.md for the fields.
 */
static int proc_cgroups(lua_State *L)
{
	struct analysis *an = proc_analysis(L);
	const struct capture_stream *st = capture_set__stream(&an->cs, "proc.cgroups");
	const struct capture_rec *hr = rec_of(st, "sonde:cgroups", 0);
	const char *p, *end;
	int res, map, byname, nres = 0, nh = 0;

	if (!hr || hr->err)
		return push_missing(L, st, "proc.cgroups", "sonde:cgroups", NULL);
	lua_newtable(L);
	res = lua_gettop(L);
	lua_newtable(L);
	map = lua_gettop(L);    /* directory -> entry */
	lua_newtable(L);
	byname = lua_gettop(L); /* "VERSION:path" -> entry */
	lua_newtable(L);        /* hierarchies */
	for (p = hr->data, end = hr->data + hr->len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char line[512], mnt[300], ctrl[128] = "";
		const struct capture_rec *list;
		int ver;

		if (l >= sizeof(line) || !l)
			goto next;
		memcpy(line, p, l);
		line[l] = '\0';
		if (sscanf(line, "%d %299s %127s", &ver, mnt, ctrl) < 2 || (ver != 1 && ver != 2))
			goto next;
		lua_newtable(L);
		lua_pushinteger(L, ver);
		lua_setfield(L, -2, "version");
		lua_pushstring(L, mnt);
		lua_setfield(L, -2, "mount");
		cg_names(L, ctrl, strlen(ctrl));
		lua_setfield(L, -2, "controllers");
		lua_rawseti(L, -2, ++nh);
		lua_pushboolean(L, 1);
		lua_setfield(L, res, ver == 2 ? "v2" : "v1");
		list = rec_of(st, mnt, 0);
		if (list && list->truncated) {
			lua_pushboolean(L, 1);
			lua_setfield(L, res, "truncated");
		}
		for (const char *q = list && !list->err ? list->data : NULL,
				*qe = q ? list->data + list->len : NULL;
		     q && q < qe;) {
			const char *qn = memchr(q, '\n', (size_t)(qe - q));
			size_t ql = qn ? (size_t)(qn - q) : (size_t)(qe - q);
			char rel[512], dir[900];

			if (ql && ql < sizeof(rel)) {
				memcpy(rel, q, ql);
				rel[ql] = '\0';
				snprintf(dir, sizeof(dir), "%d:%s", ver, rel);
				if (lua_getfield(L, byname, dir) == LUA_TNIL) {
					lua_pop(L, 1);
					cg_new_entry(L, rel, ver);
					lua_pushvalue(L, -1);
					lua_setfield(L, byname, dir);
					lua_pushvalue(L, -1);
					lua_rawseti(L, res, ++nres);
				}
				snprintf(dir, sizeof(dir), "%s%s", mnt, rel);
				lua_pushvalue(L, -1);
				lua_setfield(L, map, dir);
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
			q += ql + 1;
		}
next:
		p += l + 1;
	}
	lua_setfield(L, res, "hierarchies");
	for (size_t i = 0; st && i < st->n; i++) {
		const struct capture_rec *r = &st->rec[i];
		const char *slash = strrchr(r->path, '/');
		char dir[900];

		if (!slash || (size_t)(slash - r->path) >= sizeof(dir))
			continue;
		memcpy(dir, r->path, (size_t)(slash - r->path));
		dir[slash - r->path] = '\0';
		if (lua_getfield(L, map, dir) != LUA_TTABLE) {
			lua_pop(L, 1);
			continue;
		}
		lua_getfield(L, -1, "version");
		{
			int v2 = lua_tointeger(L, -1) == 2;

			lua_pop(L, 1);
			cg_record(L, an, lua_gettop(L), v2, slash + 1, r);
		}
		lua_pop(L, 1);
	}
	/* procs: the set becomes a sorted list of pids */
	for (int k = 1; k <= nres; k++) {
		lua_Integer n = 0;

		lua_rawgeti(L, res, k);
		lua_getfield(L, -1, "procs");
		lua_newtable(L);
		lua_pushnil(L);
		while (lua_next(L, -3)) {
			lua_pop(L, 1);
			lua_pushvalue(L, -1);
			lua_rawseti(L, -3, ++n);
		}
		/* insertion sort: a few pids per cgroup, at most CG_PROCS_MAX */
		for (lua_Integer a = 2; a <= n; a++)
			for (lua_Integer b = a; b > 1; b--) {
				lua_Integer x, y;

				lua_rawgeti(L, -1, b - 1);
				lua_rawgeti(L, -2, b);
				x = lua_tointeger(L, -2);
				y = lua_tointeger(L, -1);
				if (x <= y) {
					lua_pop(L, 2);
					break;
				}
				lua_rawseti(L, -3, b - 1);
				lua_rawseti(L, -2, b);
			}
		lua_setfield(L, -3, "procs");
		lua_pop(L, 2);
	}
	lua_settop(L, res);
	return 1;
}

/* ---- processes ---- */

/*
 * A task is a light userdata-backed object: fields are read from the C
 * summary when a check asks for them. Checks look at a few fields of each of
 * possibly thousands of processes; building a 35-field table for every one,
 * in every check, was most of the checks' time.
 */
#define TASK_MT "sonde.task"

struct task_ref {
	const struct analysis *an;
	const struct task_summary *t;
};

enum task_field {
	TF_BLKIO_DELAY_S, TF_CMDLINE, TF_COMM, TF_CPU_SHARE, TF_EXITED, TF_FDS, TF_FIRST_T,
	TF_KERNEL_THREAD, TF_LAST_T, TF_MAJFLT, TF_MINFLT, TF_NOFILE_HARD, TF_NOFILE_SOFT,
	TF_NONVOL_CTXT, TF_PID, TF_PPID, TF_PROCESSOR, TF_RCHAR, TF_READ_BYTES, TF_RSS_BYTES,
	TF_RUN_S, TF_RUNQ_WAIT_S, TF_SELF, TF_STARTED, TF_STATE, TF_STIME, TF_SWITCHES, TF_SYSCR,
	TF_SYSCW, TF_THREADS, TF_UID, TF_UTIME, TF_VOL_CTXT, TF_WCHAR, TF_WRITE_BYTES,
};

/* Sorted by name, for bsearch. */
static const struct {
	const char *name;
	enum task_field f;
} task_fields[] = {
	{ "blkio_delay_s", TF_BLKIO_DELAY_S }, { "cmdline", TF_CMDLINE },
	{ "comm", TF_COMM },                   { "cpu_share", TF_CPU_SHARE },
	{ "exited", TF_EXITED },               { "fds", TF_FDS },
	{ "first_t", TF_FIRST_T },             { "kernel_thread", TF_KERNEL_THREAD },
	{ "last_t", TF_LAST_T },               { "majflt", TF_MAJFLT },
	{ "minflt", TF_MINFLT },               { "nofile_hard", TF_NOFILE_HARD },
	{ "nofile_soft", TF_NOFILE_SOFT },     { "nonvol_ctxt", TF_NONVOL_CTXT },
	{ "pid", TF_PID },                     { "ppid", TF_PPID },
	{ "processor", TF_PROCESSOR },         { "rchar", TF_RCHAR },
	{ "read_bytes", TF_READ_BYTES },       { "rss_bytes", TF_RSS_BYTES },
	{ "run_s", TF_RUN_S },                 { "runq_wait_s", TF_RUNQ_WAIT_S },
	{ "self", TF_SELF },                   { "started", TF_STARTED },
	{ "state", TF_STATE },                 { "stime", TF_STIME },
	{ "switches", TF_SWITCHES },           { "syscr", TF_SYSCR },
	{ "syscw", TF_SYSCW },                 { "threads", TF_THREADS },
	{ "uid", TF_UID },                     { "utime", TF_UTIME },
	{ "vol_ctxt", TF_VOL_CTXT },           { "wchar", TF_WCHAR },
	{ "write_bytes", TF_WRITE_BYTES },
};

static int task_field_cmp(const void *key, const void *elem)
{
	return strcmp(key, *(const char *const *)elem);
}

/* Push field f of t; nil where this host or window could not give it. */
static void push_task_field(lua_State *L, const struct analysis *an, const struct task_summary *t,
			    enum task_field f)
{
	double secs = an->elapsed_s > 0 ? an->elapsed_s : 1, hz = (double)an->clk_tck;

	switch (f) {
	case TF_PID: lua_pushinteger(L, t->pid); return;
	case TF_PPID: lua_pushinteger(L, t->ppid); return;
	case TF_COMM: lua_pushstring(L, t->comm); return;
	case TF_CMDLINE: lua_pushstring(L, t->cmdline ? t->cmdline : ""); return;
	case TF_STATE: lua_pushlstring(L, &t->state, 1); return;
	case TF_KERNEL_THREAD: lua_pushboolean(L, t->kernel_thread); return;
	case TF_SELF: lua_pushboolean(L, t->self); return;
	case TF_STARTED: lua_pushboolean(L, t->started); return;
	case TF_EXITED: lua_pushboolean(L, t->exited); return;
	case TF_FIRST_T: lua_pushnumber(L, t->first_t); return;
	case TF_LAST_T: lua_pushnumber(L, t->last_t); return;
	case TF_UTIME: push_u64(L, t->utime); return;
	case TF_STIME: push_u64(L, t->stime); return;
	/* Fraction of one CPU over the window (1.0 = one CPU busy for the whole window). */
	case TF_CPU_SHARE: lua_pushnumber(L, (double)(t->utime + t->stime) / hz / secs); return;
	case TF_MINFLT: push_u64(L, t->minflt); return;
	case TF_MAJFLT: push_u64(L, t->majflt); return;
	case TF_BLKIO_DELAY_S: lua_pushnumber(L, (double)t->blkio_ticks / hz); return;
	case TF_THREADS: push_u64(L, t->threads); return;
	case TF_RSS_BYTES: push_u64(L, t->rss_bytes); return;
	case TF_PROCESSOR: lua_pushinteger(L, t->processor); return;
	case TF_UID:
		if (t->uid >= 0)
			lua_pushinteger(L, t->uid);
		else
			lua_pushnil(L);
		return;
	case TF_FDS:
		if (t->fds >= 0)
			lua_pushinteger(L, t->fds);
		else
			lua_pushnil(L);
		return;
	case TF_NOFILE_SOFT:
	case TF_NOFILE_HARD: {
		uint64_t v = f == TF_NOFILE_SOFT ? t->nofile_soft : t->nofile_hard;

		if (!t->nofile_soft)
			lua_pushnil(L);
		else
			lua_pushnumber(L, v == UINT64_MAX ? HUGE_VAL : (double)v);
		return;
	}
	case TF_READ_BYTES: case TF_WRITE_BYTES: case TF_RCHAR: case TF_WCHAR: case TF_SYSCR:
	case TF_SYSCW:
		if (!t->has_io) {
			lua_pushnil(L);
			return;
		}
		push_u64(L, f == TF_READ_BYTES ? t->read_bytes : f == TF_WRITE_BYTES ? t->write_bytes :
			    f == TF_RCHAR ? t->rchar : f == TF_WCHAR ? t->wchar :
			    f == TF_SYSCR ? t->syscr : t->syscw);
		return;
	case TF_VOL_CTXT: case TF_NONVOL_CTXT:
		if (t->has_ctxt)
			push_u64(L, f == TF_VOL_CTXT ? t->vol_ctxt : t->nonvol_ctxt);
		else
			lua_pushnil(L);
		return;
	/* The main thread's scheduling: times switched in, time on a CPU, time waiting for one. */
	case TF_SWITCHES:
		if (t->has_sched)
			push_u64(L, t->slices);
		else if (t->has_ctxt)
			push_u64(L, t->vol_ctxt + t->nonvol_ctxt);
		else
			lua_pushnil(L);
		return;
	case TF_RUN_S: case TF_RUNQ_WAIT_S:
		if (t->has_sched)
			lua_pushnumber(L, (double)(f == TF_RUN_S ? t->run_ns : t->wait_ns) / 1e9);
		else
			lua_pushnil(L);
		return;
	}
	lua_pushnil(L);
}

static int task_index(lua_State *L)
{
	const struct task_ref *ref = luaL_checkudata(L, 1, TASK_MT);
	const char *key = lua_tostring(L, 2);
	const void *hit;

	if (!key || !(hit = bsearch(key, task_fields, sizeof(task_fields) / sizeof(task_fields[0]),
				    sizeof(task_fields[0]), task_field_cmp))) {
		lua_pushnil(L);
		return 1;
	}
	push_task_field(L, ref->an, ref->t, ((const typeof(task_fields[0]) *)hit)->f);
	return 1;
}

static int task_newindex(lua_State *L)
{
	return luaL_error(L, "a task is read-only");
}

static int task_tostring(lua_State *L)
{
	const struct task_ref *ref = luaL_checkudata(L, 1, TASK_MT);

	lua_pushfstring(L, "task %d (%s)", ref->t->pid, ref->t->comm);
	return 1;
}

static void push_task(lua_State *L, const struct analysis *an, const struct task_summary *t)
{
	struct task_ref *ref = lua_newuserdatauv(L, sizeof(*ref), 0);

	ref->an = an;
	ref->t = t;
	if (luaL_newmetatable(L, TASK_MT)) {
		lua_pushcfunction(L, task_index);
		lua_setfield(L, -2, "__index");
		lua_pushcfunction(L, task_newindex);
		lua_setfield(L, -2, "__newindex");
		lua_pushcfunction(L, task_tostring);
		lua_setfield(L, -2, "__tostring");
		lua_pushstring(L, "read-only");
		lua_setfield(L, -2, "__metatable");
	}
	lua_setmetatable(L, -2);
}

/* ctx.proc.tasks() -> { task, ... }: one per process seen in the window */
static int proc_tasks(lua_State *L)
{
	struct analysis *an = proc_analysis(L);
	const struct task_summary *t;
	size_t n;
	int err = analysis__tasks(an, &t, &n);

	if (err == -ENOENT)
		return push_missing(L, NULL, "proc.pids", "/proc/PID/stat", NULL);
	if (err)
		return luaL_error(L, "tasks: %s", strerror(-err));
	lua_createtable(L, (int)n, 0);
	for (size_t i = 0; i < n; i++) {
		push_task(L, an, &t[i]);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	return 1;
}

static int sample_pid_stat(lua_State *L, const struct capture_rec *r, void *arg)
{
	struct pid_stat ps;

	if (parse_pid_stat(r->data, r->len, &ps) || ps.nfields < 20)
		return -1;
	set_u64(L, "utime", ps.utime);
	set_u64(L, "stime", ps.stime);
	set_u64(L, "minflt", ps.minflt);
	set_u64(L, "majflt", ps.majflt);
	set_u64(L, "threads", ps.num_threads);
	set_u64(L, "rss_pages", ps.rss_pages);
	lua_pushinteger(L, ps.processor);
	lua_setfield(L, -2, "processor");
	lua_pushlstring(L, &ps.state, 1);
	lua_setfield(L, -2, "state");
	return 0;
}

/* ctx.proc.task_series(pid) -> series of /proc/PID/stat (utime, stime, state, processor...) */
static int proc_task_series(lua_State *L)
{
	lua_Integer pid = luaL_checkinteger(L, 1);
	char path[64];

	luaL_argcheck(L, pid > 0 && pid < (1 << 30), 1, "not a pid");
	snprintf(path, sizeof(path), "/proc/%lld/stat", (long long)pid);
	return push_series(L, "proc.pids", path, NULL, sample_pid_stat, NULL);
}

static const luaL_Reg proc_functions[] = {
	{ "stat", proc_stat },
	{ "loadavg", proc_loadavg },
	{ "meminfo", proc_meminfo },
	{ "vmstat", proc_vmstat },
	{ "pressure", proc_pressure },
	{ "snmp", proc_snmp },
	{ "filenr", proc_filenr },
	{ "diskstats", proc_diskstats },
	{ "disks", proc_disks },
	{ "netdev", proc_netdev },
	{ "interfaces", proc_interfaces },
	{ "controllers", proc_controllers },
	{ "interrupts", proc_interrupts },
	{ "kernel_log", proc_kernel_log },
	{ "filesystems", proc_filesystems },
	{ "swaps", proc_swaps },
	{ "cgroups", proc_cgroups },
	{ "tasks", proc_tasks },
	{ "task_series", proc_task_series },
	{ NULL, NULL },
};

/* Expects the analysis as a light userdata on top; replaces it with the module. */
int luaopen_sonde_proc(lua_State *L)
{
	void *an = lua_touserdata(L, -1);

	lua_pop(L, 1);
	luaL_newlibtable(L, proc_functions);
	lua_pushlightuserdata(L, an);
	luaL_setfuncs(L, proc_functions, 1);
	return 1;
}
