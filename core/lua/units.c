// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The sandbox's `units` library: the one formatter of numbers for people
 * (util/units.h), so that a check's sentence says "21.6k/s" and "2.8 ms"
 * as the report around it does. units.value(v, unit), units.num(v),
 * units.range(lo, hi, unit); pure functions of their arguments.
 */
#include <lauxlib.h>
#include <lua.h>

#include "lua/sandbox.h"
#include "util/units.h"

static int units_value(lua_State *L)
{
	char buf[128];

	units__value(buf, sizeof(buf), luaL_checknumber(L, 1), luaL_optstring(L, 2, ""));
	lua_pushstring(L, buf);
	return 1;
}

static int units_num(lua_State *L)
{
	char buf[128];

	units__num(buf, sizeof(buf), luaL_checknumber(L, 1));
	lua_pushstring(L, buf);
	return 1;
}

static int units_range(lua_State *L)
{
	char buf[256];

	units__range(buf, sizeof(buf), luaL_checknumber(L, 1), luaL_checknumber(L, 2),
		     luaL_optstring(L, 3, ""));
	lua_pushstring(L, buf);
	return 1;
}

static const luaL_Reg units_fns[] = {
	{ "value", units_value },
	{ "num", units_num },
	{ "range", units_range },
	{ NULL, NULL },
};

int luaopen_units(lua_State *L)
{
	luaL_newlib(L, units_fns);
	return 1;
}
