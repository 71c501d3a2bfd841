// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What every ctx domain builds on: the one rule for reading (ctx__need: a
 * check reads only the captures of the collectors it declared), the capture
 * streams of the analysis, and series.
 *
 * A series is an array of samples ({t = seconds since the window start,
 * field = value, ...}) whose metatable carries the methods below; delta and
 * rate treat fields as cumulative counters (wraps and resets handled by
 * counter__delta), the others as gauges.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "collect/analysis.h"
#include "util/parse.h"
#include "util/strv.h"
#include "lua/ctx.h"
#include "lua/sandbox.h"

#define SERIES_MT "sonde.series"

void ctx__need(lua_State *L, const char *domain, const char *collector)
{
	const struct check_def *def;
	lua_Debug ar;
	char accessor[96];

	lua_getfield(L, LUA_REGISTRYINDEX, CTX_REG_CHECK);
	def = lua_touserdata(L, -1);
	lua_pop(L, 1);
	if (def && strv__has(&def->collect, collector))
		return;
	/* The function the check called: the one running now, named as its caller knows it. */
	if (lua_getstack(L, 0, &ar) && lua_getinfo(L, "n", &ar) && ar.name)
		snprintf(accessor, sizeof(accessor), "ctx.%s.%.40s()", domain, ar.name);
	else
		snprintf(accessor, sizeof(accessor), "ctx.%s", domain);
	sandbox__stop(L, "%s reads %s, the capture of collector \"%s\", which it does not "
		      "declare: add \"%s\" to its collect list",
		      def ? def->id : "the check", accessor, collector, collector);
}

struct analysis *ctx__analysis(lua_State *L)
{
	return lua_touserdata(L, lua_upvalueindex(1));
}

const struct capture_stream *ctx__stream(lua_State *L, const char *collector)
{
	ctx__need(L, "proc", collector);
	return capture_set__stream(&ctx__analysis(L)->cs, collector);
}

void ctx__push_u64(lua_State *L, uint64_t v)
{
	if (v <= (uint64_t)LUA_MAXINTEGER)
		lua_pushinteger(L, (lua_Integer)v);
	else
		lua_pushnumber(L, (lua_Number)v);
}

void ctx__set_u64(lua_State *L, const char *k, uint64_t v)
{
	ctx__push_u64(L, v);
	lua_setfield(L, -2, k);
}

void ctx__set_u64_fields(lua_State *L, const void *s, const struct ctx_u64_field *f)
{
	for (; f->name; f++)
		ctx__set_u64(L, f->name, *(const uint64_t *)((const char *)s + f->off));
}

void ctx__set_num(lua_State *L, const char *k, double v)
{
	lua_pushnumber(L, v);
	lua_setfield(L, -2, k);
}

void ctx__set_lstr(lua_State *L, const char *k, const char *s, size_t n)
{
	lua_pushlstring(L, s, n);
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

double ctx__sample_t(lua_State *L, int s, lua_Integer i)
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
		double t = ctx__sample_t(L, 1, i);

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
	lua_pushnumber(L, n >= 2 ? ctx__sample_t(L, 1, n) - ctx__sample_t(L, 1, 1) : 0);
	return 1;
}

static const luaL_Reg series_methods[] = {
	{ "first", series_first }, { "last", series_last },     { "max", series_max },
	{ "min", series_min },     { "mean", series_mean },     { "delta", series_delta },
	{ "rate", series_rate },   { "deltas", series_deltas }, { "rates", series_rates },
	{ "values", series_values }, { "seconds", series_seconds }, { NULL, NULL },
};

void ctx__series_mt(lua_State *L)
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

const char *ctx__err_reason(lua_State *L, const char *path, int err, const char *hint)
{
	return lua_pushfstring(L, "%s: %s%s%s", path, strerror(err), hint ? " — " : "",
			       hint ? hint : "");
}

/*
 * nil, reason for a path with no readable record: the host's own error when
 * the read failed there, else "not collected".
 */
int ctx__missing(lua_State *L, const struct capture_stream *st, const char *stream,
		 const char *path, const char *hint)
{
	lua_pushnil(L);
	if (!st) {
		/* present but refused (over a limit, malformed): that is the reason */
		const char *why = capture_set__why(&ctx__analysis(L)->cs, stream);

		if (why)
			lua_pushfstring(L, "raw/%s", why);
		else
			lua_pushfstring(L, "%s was not collected in this run", stream);
		return 2;
	}
	for (size_t i = 0; i < st->n; i++)
		if (st->rec[i].err && !strcmp(st->rec[i].path, path)) {
			ctx__err_reason(L, path, st->rec[i].err, hint);
			return 2;
		}
	lua_pushfstring(L, "%s: not in the captures", path);
	return 2;
}

/* Series of every readable record of path: one table per record, filled by fn. */
int ctx__series(lua_State *L, const char *stream, const char *path, const char *hint,
		ctx_sample_fn fn, void *arg)
{
	struct analysis *an = ctx__analysis(L);
	const struct capture_stream *st = ctx__stream(L, stream);
	lua_Integer n = 0;

	if (!st)
		return ctx__missing(L, st, stream, path, hint);
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
		ctx__set_num(L, "t", analysis__t(an, r));
		lua_rawseti(L, -2, ++n);
	}
	if (!n) {
		lua_pop(L, 1);
		return ctx__missing(L, st, stream, path, hint);
	}
	ctx__series_mt(L);
	return 1;
}

int ctx__sample_pressure(lua_State *L, const struct capture_rec *r, void *arg)
{
	struct psi p;

	if (parse_pressure(r->data, r->len, &p))
		return -1;
	if (p.some.present) {
		ctx__set_num(L, "some_avg10", p.some.avg10);
		ctx__set_num(L, "some_avg60", p.some.avg60);
		ctx__set_num(L, "some_avg300", p.some.avg300);
		ctx__set_u64(L, "some_total", p.some.total_us);
	}
	if (p.full.present) {
		ctx__set_num(L, "full_avg10", p.full.avg10);
		ctx__set_num(L, "full_avg60", p.full.avg60);
		ctx__set_num(L, "full_avg300", p.full.avg300);
		ctx__set_u64(L, "full_total", p.full.total_us);
	}
	return 0;
}

/* ctx.proc.pressure("cpu"|"memory"|"io") */
void ctx__keyed_begin(lua_State *L, const char *name, double t)
{
	if (lua_getfield(L, -1, name) == LUA_TNIL) {
		lua_pop(L, 1);
		lua_newtable(L);
		ctx__series_mt(L);
		lua_pushvalue(L, -1);
		lua_setfield(L, -3, name);
	}
	lua_newtable(L);
	ctx__set_num(L, "t", t);
}

void ctx__keyed_end(lua_State *L)
{
	lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
	lua_pop(L, 1);
}

/* { [name] = series } from every readable record of path in stream. */
int ctx__keyed_series(lua_State *L, const char *stream, const char *path,
		      ctx_keyed_fn parse)
{
	struct analysis *an = ctx__analysis(L);
	const struct capture_stream *st = ctx__stream(L, stream);
	int n = 0;

	if (!st)
		return ctx__missing(L, st, stream, path, NULL);
	lua_newtable(L);
	for (size_t i = 0; i < st->n; i++) {
		const struct capture_rec *r = &st->rec[i];
		struct ctx_keyed w = { L, analysis__t(an, r) };

		if (r->err || strcmp(r->path, path))
			continue;
		parse(r, &w);
		n++;
	}
	if (!n) {
		lua_pop(L, 1);
		return ctx__missing(L, st, stream, path, NULL);
	}
	return 1;
}

/* The text of the first/last readable record of path, trimmed; NULL when none. */
const struct capture_rec *ctx__rec(const struct capture_stream *st, const char *path,
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

void ctx__set_text(lua_State *L, const char *k, const struct capture_rec *r)
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

void ctx__set_rec_u64(lua_State *L, const char *k, const struct capture_rec *r)
{
	uint64_t v;

	if (r && !r->err && !parse_value_u64(r->data, r->len, &v))
		ctx__set_u64(L, k, v);
}
