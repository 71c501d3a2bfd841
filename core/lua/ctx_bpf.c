// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ctx.bpf: what the BPF tools aggregated during the window, read from
 * raw/bpf/<tool>.json (live and from a bundle alike).
 *
 *   local d, info = ctx.bpf.runqlat()   -- d: the tool's data (docs/bpf-tools.md)
 *   if not d then ctx:unknown("runq_p99_ms", info) end   -- info: the reason
 *
 *   local f = ctx.bpf.fslatency()   -- file syscall latency per process, syscall, mount;
 *                                   -- f.intervals.counts[i][s]: per-interval log2 histograms
 *
 * info, when the tool ran: { attach, runs, drops, traced_from_s, traced_to_s, window_s,
 * filtered_to (the pids it traced alone, when it was filtered), stopped_early (why),
 * drilldown (true: it traced the drill-down window) }; ctx:table{ traced = info } and the
 * other evidence take it, so the report says when it covers part of the window.
 * Every call builds fresh tables: a check may change what it gets.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "collect/analysis.h"
#include "util/json_read.h"
#include "trace/trace.h"
#include "lua/ctx.h"

static void bpf_push_jval(lua_State *L, const struct jval *v, int depth)
{
	luaL_checkstack(L, 4, "BPF tool data nested too deep");
	switch (v->type) {
	case J_NULL:
		lua_pushnil(L);
		break;
	case J_BOOL:
		lua_pushboolean(L, v->boolean);
		break;
	case J_NUMBER:
		if (v->number == floor(v->number) && fabs(v->number) < 9007199254740992.0)
			lua_pushinteger(L, (lua_Integer)v->number);
		else
			lua_pushnumber(L, v->number);
		break;
	case J_STRING:
		lua_pushlstring(L, v->str, v->len);
		break;
	case J_ARRAY:
		lua_createtable(L, (int)(v->len < 1u << 24 ? v->len : 0), 0);
		for (size_t i = 0; i < v->len; i++) {
			bpf_push_jval(L, &v->items[i], depth + 1);
			lua_rawseti(L, -2, (lua_Integer)i + 1);
		}
		break;
	case J_OBJECT:
		lua_createtable(L, 0, (int)(v->len < 1u << 24 ? v->len : 0));
		for (size_t i = 0; i < v->len; i++) {
			bpf_push_jval(L, &v->items[i], depth + 1);
			lua_setfield(L, -2, v->keys[i]);
		}
		break;
	}
}

static int bpf_push_tool(lua_State *L, struct analysis *an, const char *name)
{
	static const char *const info_keys[] = { "attach", "runs", "drops", "traced_from_s",
						 "traced_to_s", "window_s", "filtered_to",
						 "stopped_early", NULL };
	const struct jval *doc;
	char why[768], collector[64];

	snprintf(collector, sizeof(collector), "bpf.%s", name);
	ctx__need(L, "bpf", collector);
	doc = analysis__bpf(an, name, why, sizeof(why));
	if (!doc) {
		lua_pushnil(L);
		lua_pushstring(L, why);
		return 2;
	}
	bpf_push_jval(L, jval__get(doc, "data"), 0);
	lua_createtable(L, 0, 8);
	for (const char *const *k = info_keys; *k; k++) {
		const struct jval *v = jval__get(doc, *k);

		if (v) {
			bpf_push_jval(L, v, 0);
			lua_setfield(L, -2, *k);
		}
	}
	if (an->drilldown) {
		lua_pushboolean(L, 1);
		lua_setfield(L, -2, "drilldown");
	}
	return 2;
}

/* ctx.bpf.<tool>(): upvalue 1 the analysis, upvalue 2 the tool's name. */
static int bpf_tool_fn(lua_State *L)
{
	return bpf_push_tool(L, lua_touserdata(L, lua_upvalueindex(1)),
			     lua_tostring(L, lua_upvalueindex(2)));
}

/* ctx.bpf.tool(name): the same, by name. */
static int bpf_tool(lua_State *L)
{
	const char *name = luaL_checkstring(L, 1);

	if (!trace_tool__find(name))
		return luaL_argerror(L, 1, "no such BPF tool");
	return bpf_push_tool(L, lua_touserdata(L, lua_upvalueindex(1)), name);
}

/* Expects the analysis as a light userdata on top; replaces it with the module. */
int luaopen_sonde_bpf(lua_State *L)
{
	void *an = lua_touserdata(L, -1);

	lua_pop(L, 1);
	lua_createtable(L, 0, 16);
	lua_pushlightuserdata(L, an);
	lua_pushcclosure(L, bpf_tool, 1);
	lua_setfield(L, -2, "tool");
	for (const struct trace_tool *const *t = trace_tools; *t; t++) {
		lua_pushlightuserdata(L, an);
		lua_pushstring(L, (*t)->name);
		lua_pushcclosure(L, bpf_tool_fn, 2);
		lua_setfield(L, -2, (*t)->name);
	}
	return 1;
}
