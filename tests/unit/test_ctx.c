// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * core/lua/ctx.h: the field setters every ctx_proc file builds its tables
 * with: ctx__set_lstr (a counted string, as the parsers hand fields over:
 * not NUL-terminated, may hold a NUL), ctx__set_u64 (an integer while Lua's
 * integers hold it, a float beyond), ctx__set_num.
 */
#include <stdint.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "lua/ctx.h"
#include "tap.h"

static int field_is(lua_State *L, const char *k, const char *want, size_t n)
{
	size_t len = 0;
	const char *got;
	int same;

	lua_getfield(L, -1, k);
	got = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : NULL;
	same = got && len == n && !memcmp(got, want, n);
	lua_pop(L, 1);
	return same;
}

int main(void)
{
	lua_State *L = luaL_newstate();
	const char line[] = "ext4 /dev/sda1 rw";

	lua_newtable(L);
	ctx__set_lstr(L, "fstype", line, 4);
	ok(field_is(L, "fstype", "ext4", 4), "a field cut from a line: its n bytes, not the rest");
	ctx__set_lstr(L, "empty", line, 0);
	ok(field_is(L, "empty", "", 0), "zero bytes: the empty string, not nil");
	ctx__set_lstr(L, "nul", "a\0b", 3);
	ok(field_is(L, "nul", "a\0b", 3), "a NUL inside is kept (a Lua string is counted)");
	ctx__set_lstr(L, "fstype", "xfs", 3);
	ok(field_is(L, "fstype", "xfs", 3), "a second set replaces the first");

	ctx__set_u64(L, "small", 42);
	lua_getfield(L, -1, "small");
	ok(lua_isinteger(L, -1) && lua_tointeger(L, -1) == 42,
	   "a u64 Lua's integers hold: an integer");
	lua_pop(L, 1);
	ctx__set_u64(L, "big", UINT64_MAX);
	lua_getfield(L, -1, "big");
	ok(!lua_isinteger(L, -1) && lua_tonumber(L, -1) > 1.8e19,
	   "a u64 beyond LUA_MAXINTEGER: a float, not a negative integer");
	lua_pop(L, 1);
	ok(lua_gettop(L) == 1, "the table stays on top, nothing else left on the stack");
	lua_close(L);
	return tap_done();
}
