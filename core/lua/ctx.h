/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The Lua modules a check sees through its ctx (lua_proc.c, lua_report.c). */
#ifndef SONDE_LUA_MODULES_H
#define SONDE_LUA_MODULES_H

#include <lua.h>

#include "collect/analysis.h"
#include "lua/engine.h"

/* ctx.proc: parsed series from the captures; upvalue: the analysis. */
int luaopen_sonde_proc(lua_State *L);
int luaopen_sonde_bpf(lua_State *L);
/* ctx.perf: raw/perf/counters.json (lua_perf.c); same calling convention. */
int luaopen_sonde_perf(lua_State *L);
/* Push the ctx table for one check: host, window, proc, and the result methods. */
void lua_modules__push_ctx(lua_State *L, struct analysis *an, struct check_result *res);

#endif
