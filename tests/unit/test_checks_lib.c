// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The helpers of checks/lib, run in the sandbox the checks run in (the
 * embedded catalog's copies, as sonde requires them), against the cases of
 * tests/unit/test_<module>.lua (or the files given), one file per module of
 * checks/lib: trend.lua (fixed series with known slopes, noise, steps, churn,
 * too few points), waits.lua (the thread states' classes: kernel stacks,
 * syscalls and their files, the evidence that tells a contended wait from an
 * idle one), cpu.lua (the per-CPU tables bounded at 192 and 1,024 CPUs), and
 * the others on real shapes of their inputs with the empty, nil and tied
 * cases. tests/layout/checks-lib.t holds that every module has its file here.
 * Each Lua file gets a TAP table (ok, is, diag) and the C side prints the plan.
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

/* tap.is(got, want, name): equal as Lua's == says (no metamethods); a failure shows both */
static int lua_is(lua_State *L)
{
	int eq = lua_rawequal(L, 1, 2);

	ok(eq, "%s", luaL_optstring(L, 3, "?"));
	if (!eq) {
		const char *got = luaL_tolstring(L, 1, NULL);
		const char *want = luaL_tolstring(L, 2, NULL);

		printf("# got %s, want %s\n", got, want);
		lua_pop(L, 2);
	}
	return 0;
}

/* tap.diag(text) */
static int lua_diag(lua_State *L)
{
	printf("# %s\n", luaL_checkstring(L, 1));
	return 0;
}

static const char *const cases[] = { "tests/unit/test_trend.lua", "tests/unit/test_waits.lua",
				     "tests/unit/test_cpu.lua", "tests/unit/test_fmt.lua",
				     "tests/unit/test_containers.lua", "tests/unit/test_bpf.lua",
				     "tests/unit/test_psi.lua", "tests/unit/test_tasks.lua",
				     "tests/unit/test_hist.lua", "tests/unit/test_syscount.lua",
				     "tests/unit/test_cgroups.lua", "tests/unit/test_offcpu.lua",
				     "tests/unit/test_net.lua", "tests/unit/test_disks.lua",
				     "tests/unit/test_locks.lua", "tests/unit/test_controllers.lua",
				     "tests/unit/test_runout.lua", NULL };

/* Run one Lua file of cases in a fresh sandbox. */
static void run_cases(const struct catalog *cat, const char *path)
{
	struct engine_limits lim = engine_default_limits;
	struct budget b = { 0 };
	char *src = NULL;
	size_t len = 0;
	lua_State *L;

	if (file__read_bounded(AT_FDCWD, path, 1 << 20, &src, &len)) {
		ok(0, "%s is readable", path);
		return;
	}
	lim.wall_s = 60;
	L = sandbox__new(cat, &b, &lim);
	ok(L != NULL, "a sandboxed state for %s", path);
	if (L) {
		int rc = sandbox__load(L, src, len, path);

		ok(rc == LUA_OK, "%s loads: %s", path, rc == LUA_OK ? "" : lua_tostring(L, -1));
		if (rc == LUA_OK) {
			lua_newtable(L);
			lua_pushcfunction(L, lua_ok);
			lua_setfield(L, -2, "ok");
			lua_pushcfunction(L, lua_is);
			lua_setfield(L, -2, "is");
			lua_pushcfunction(L, lua_diag);
			lua_setfield(L, -2, "diag");
			rc = sandbox__pcall(L, 1, 0);
			ok(rc == LUA_OK, "%s runs to the end: %s", path,
			   rc == LUA_OK ? "" : lua_tostring(L, -1));
		}
		sandbox__close(L);
	}
	free(src);
}

int main(int argc, char **argv)
{
	struct catalog cat;
	char err[512];

	if (catalog__load(&cat, NULL, err, sizeof(err))) {
		ok(0, "the embedded catalog loads: %s", err);
		return tap_done();
	}
	if (argc > 1)
		for (int i = 1; i < argc; i++)
			run_cases(&cat, argv[i]);
	else
		for (const char *const *c = cases; *c; c++)
			run_cases(&cat, *c);
	catalog__free(&cat);
	return tap_done();
}
