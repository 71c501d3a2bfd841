// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * checks/lib/trend.lua, the one trend fit every exhaustion check uses, run in
 * the sandbox the checks run in (the embedded catalog's copy, as sonde
 * requires it) against the cases of tests/unit/test_trend.lua: fixed series
 * with known slopes, noise, steps, churn, too few points. The Lua file gets a
 * TAP table (ok, near) and the C side prints the plan.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>

#include <lauxlib.h>
#include <lua.h>

#include "lua/catalog.h"
#include "lua/sandbox.h"
#include "util/file.h"
#include "tap.h"

/* tap.ok(cond, name) */
static int lua_ok(lua_State *L)
{
	ok(lua_toboolean(L, 1), "%s", luaL_optstring(L, 2, "?"));
	return 0;
}

/* tap.diag(text) */
static int lua_diag(lua_State *L)
{
	printf("# %s\n", luaL_checkstring(L, 1));
	return 0;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "tests/unit/test_trend.lua";
	struct engine_limits lim = engine_default_limits;
	struct budget b = { 0 };
	struct catalog cat;
	char err[512];
	char *src = NULL;
	size_t len = 0;
	lua_State *L;

	if (catalog__load(&cat, NULL, err, sizeof(err))) {
		ok(0, "the embedded catalog loads: %s", err);
		return tap_done();
	}
	if (file__read_bounded(AT_FDCWD, path, 1 << 20, &src, &len)) {
		ok(0, "%s is readable", path);
		catalog__free(&cat);
		return tap_done();
	}
	lim.wall_s = 60;
	L = sandbox__new(&cat, &b, &lim);
	ok(L != NULL, "a sandboxed state");
	if (L) {
		int rc = sandbox__load(L, src, len, path);

		ok(rc == LUA_OK, "%s loads: %s", path, rc == LUA_OK ? "" : lua_tostring(L, -1));
		if (rc == LUA_OK) {
			lua_newtable(L);
			lua_pushcfunction(L, lua_ok);
			lua_setfield(L, -2, "ok");
			lua_pushcfunction(L, lua_diag);
			lua_setfield(L, -2, "diag");
			rc = sandbox__pcall(L, 1, 0);
			ok(rc == LUA_OK, "%s runs to the end: %s", path,
			   rc == LUA_OK ? "" : lua_tostring(L, -1));
		}
		sandbox__close(L);
	}
	free(src);
	catalog__free(&cat);
	return tap_done();
}
