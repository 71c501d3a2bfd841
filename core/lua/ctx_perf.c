// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ctx.perf: the CPU counters of the window, read from raw/perf/counters.json
 * (docs/perf-counters.md), live and from a bundle alike.
 *
 *   local ev, info = ctx.perf.counters()   -- nil, reason when none ran
 *   ev.cycles        -- { value, scaled, enabled_ns, running_ns, running_ratio,
 *                    --   unit, kind, per_cpu = { { cpu, value, scaled, ... }, ... } }
 *   info.unsupported.cycles   -- why an event has no value (absent from ev)
 *   local c, why = ctx.perf.counter("cycles")   -- one event, or nil and why
 *
 * An event the host could not count is never in ev: a check cannot mistake
 * it for a zero. Every call builds fresh tables.
 */
#include <math.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "collect/analysis.h"
#include "util/json_read.h"
#include "perf/counters.h"
#include "lua/ctx.h"

static void perf_push_num(lua_State *L, double d)
{
	if (d == floor(d) && fabs(d) < 9007199254740992.0)
		lua_pushinteger(L, (lua_Integer)d);
	else
		lua_pushnumber(L, d);
}

/* t[key] = number member key of v, when there is one. */
static void perf_copy_num(lua_State *L, const struct jval *v, const char *key)
{
	double d;

	if (jval__num(v, key, &d))
		return;
	perf_push_num(L, d);
	lua_setfield(L, -2, key);
}

static void perf_copy_str(lua_State *L, const struct jval *v, const char *key)
{
	const char *s = jval__str(v, key);

	if (!s)
		return;
	lua_pushstring(L, s);
	lua_setfield(L, -2, key);
}

static int perf_event_ok(const struct jval *ev)
{
	const char *st = jval__str(ev, "status");
	double d;

	return ev->type == J_OBJECT && st && !strcmp(st, "ok") && !jval__num(ev, "scaled", &d);
}

static void perf_push_event(lua_State *L, const struct jval *ev)
{
	static const char *const nums[] = { "value", "scaled", "enabled_ns", "running_ns",
					     "running_ratio", NULL };
	const struct jval *pc = jval__get(ev, "per_cpu");

	lua_createtable(L, 0, 8);
	for (const char *const *k = nums; *k; k++)
		perf_copy_num(L, ev, *k);
	perf_copy_str(L, ev, "unit");
	perf_copy_str(L, ev, "kind");
	lua_createtable(L, pc && pc->type == J_ARRAY ? (int)(pc->len & 0xffff) : 0, 0);
	if (pc && pc->type == J_ARRAY) {
		for (size_t i = 0; i < pc->len && i < PERF_MAX_CPUS; i++) {
			const struct jval *c = &pc->items[i];

			lua_createtable(L, 0, 7);
			perf_copy_num(L, c, "cpu");
			perf_copy_str(L, c, "status");
			perf_copy_str(L, c, "reason");
			for (const char *const *k = nums; *k; k++)
				perf_copy_num(L, c, *k);
			lua_rawseti(L, -2, (lua_Integer)i + 1);
		}
	}
	lua_setfield(L, -2, "per_cpu");
}

static const struct jval *perf_doc(lua_State *L, struct analysis *an)
{
	char why[768];
	const struct jval *doc;

	ctx__need(L, "perf", PERF_COLLECTOR);
	doc = analysis__perf_counters(an, why, sizeof(why));
	if (!doc) {
		lua_pushnil(L);
		lua_pushstring(L, why);
	}
	return doc;
}

/* ctx.perf.counters(): upvalue 1 the analysis. */
static int perf_counters(lua_State *L)
{
	static const char *const info_nums[] = { "perf_event_paranoid", "window_s",
						 "counted_from_s", "counted_to_s", NULL };
	const struct jval *doc = perf_doc(L, lua_touserdata(L, lua_upvalueindex(1)));
	const struct jval *evs, *v;

	if (!doc)
		return 2;
	evs = jval__get(doc, "events");
	lua_createtable(L, 0, (int)perf_nevents);
	for (size_t i = 0; i < evs->len; i++) {
		if (!perf_event_ok(&evs->items[i]))
			continue;
		perf_push_event(L, &evs->items[i]);
		lua_setfield(L, -2, evs->keys[i]);
	}
	lua_createtable(L, 0, 8);
	for (const char *const *k = info_nums; *k; k++)
		perf_copy_num(L, doc, *k);
	if ((v = jval__get(doc, "core_pmu")) && v->type == J_BOOL) {
		lua_pushboolean(L, v->boolean);
		lua_setfield(L, -2, "core_pmu");
	}
	if ((v = jval__get(doc, "vm_guest")) && v->type == J_BOOL) {
		lua_pushboolean(L, v->boolean);
		lua_setfield(L, -2, "vm_guest");
	}
	if ((v = jval__get(doc, "cpus")) && v->type == J_ARRAY)
		lua_pushinteger(L, (lua_Integer)v->len), lua_setfield(L, -2, "ncpus");
	lua_createtable(L, 0, 4);
	for (size_t i = 0; i < evs->len; i++) {
		const char *r = jval__str(&evs->items[i], "reason");

		if (perf_event_ok(&evs->items[i]))
			continue;
		lua_pushstring(L, r ? r : "no value recorded");
		lua_setfield(L, -2, evs->keys[i]);
	}
	lua_setfield(L, -2, "unsupported");
	return 2;
}

/* ctx.perf.counter(name): one event, or nil and why it has no value. */
static int perf_counter(lua_State *L)
{
	const char *name = luaL_checkstring(L, 1);
	const struct jval *doc, *ev;
	size_t i;

	for (i = 0; i < perf_nevents && strcmp(perf_event_specs[i].name, name); i++)
		;
	if (i == perf_nevents)
		return luaL_argerror(L, 1, "no such perf counter (see docs/perf-counters.md)");
	doc = perf_doc(L, lua_touserdata(L, lua_upvalueindex(1)));
	if (!doc)
		return 2;
	ev = jval__get(jval__get(doc, "events"), name);
	if (!ev || !perf_event_ok(ev)) {
		const char *r = ev ? jval__str(ev, "reason") : NULL;

		lua_pushnil(L);
		if (r)
			lua_pushstring(L, r);
		else
			lua_pushfstring(L, "%s: not recorded in raw/perf/counters.json", name);
		return 2;
	}
	perf_push_event(L, ev);
	return 1;
}

/* Expects the analysis as a light userdata on top; replaces it with the module. */
int luaopen_sonde_perf(lua_State *L)
{
	void *an = lua_touserdata(L, -1);

	lua_pop(L, 1);
	lua_createtable(L, 0, 2);
	lua_pushlightuserdata(L, an);
	lua_pushcclosure(L, perf_counters, 1);
	lua_setfield(L, -2, "counters");
	lua_pushlightuserdata(L, an);
	lua_pushcclosure(L, perf_counter, 1);
	lua_setfield(L, -2, "counter");
	return 1;
}
