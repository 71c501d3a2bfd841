/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sandbox every check, lib module and definition file runs in (private to
 * core/lua/): one lua_State per check with a memory cap, an instruction and
 * wall-clock budget, and only the allow-listed libraries (sandbox.c).
 */
#ifndef SONDE_SANDBOX_H
#define SONDE_SANDBOX_H

#include <stddef.h>
#include <stdint.h>

#include <lua.h>

#include "lua/catalog.h"
#include "lua/engine.h"

/* What one state may spend, and what it spent (the allocator's userdata). */
struct budget {
	size_t used, peak, cap;
	uint64_t instructions, max_instructions;
	int64_t deadline_ns;
	int doomed;     /* a budget is blown, or sandbox__stop: every instruction raises */
	char why[512];  /* the reason, for the check's error */
};

/*
 * A fresh state within lim, whose require() finds cat's lib modules; b (the
 * caller's) counts what it spends. NULL when out of memory.
 */
lua_State *sandbox__new(const struct catalog *cat, struct budget *b,
			const struct engine_limits *lim);
/* Close a state so that no finalizer a check left behind can loop. */
void sandbox__close(lua_State *L);
/* Load a chunk as text with the sandbox environment; LUA_OK leaves the function. */
int sandbox__load(lua_State *L, const char *src, size_t len, const char *origin);
/* lua_pcall with a message handler that adds a traceback and never runs user code. */
int sandbox__pcall(lua_State *L, int nargs, int nres);
/*
 * Stop the running check for good, as a blown budget does: pcall cannot
 * catch it, and the message (printf-style) becomes the check's error. For
 * a check that breaks a rule of the host (reading what it did not declare).
 */
int sandbox__stop(lua_State *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* units.c: the `units` library, numbers for people (util/units.h). */
int luaopen_units(lua_State *L);
/* A checks/lib module name: [a-z0-9_-]{1,64}. */
int sandbox__lib_name_ok(const char *name);

#endif
