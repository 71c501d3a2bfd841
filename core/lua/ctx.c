// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The ctx a check runs with: host and window facts, the domains it reads
 * through (ctx.proc, ctx.bpf, ctx.perf) and, as its methods, the report
 * (ctx_report.c). Which check it is goes into the registry, for ctx__need.
 */
#include <lauxlib.h>
#include <lua.h>

#include "lua/ctx.h"

/* ctx.host.observer: where sonde ran (collect/analysis_observer.c), when the run said. */
static void ctx_push_observer(lua_State *L, struct analysis *an)
{
	struct observer o;

	if (analysis__observer(an, &o))
		return;
	lua_createtable(L, 0, 3);
	lua_pushstring(L, o.pid_ns);
	lua_setfield(L, -2, "pid_ns");
	lua_pushstring(L, o.cgroup_ns);
	lua_setfield(L, -2, "cgroup_ns");
	lua_pushstring(L, o.container);
	lua_setfield(L, -2, "container");
	lua_setfield(L, -2, "observer");
}

static void ctx_push_host(lua_State *L, struct analysis *an)
{
	lua_createtable(L, 0, 12);
	lua_pushstring(L, an->hostname);
	lua_setfield(L, -2, "hostname");
	lua_pushstring(L, an->kernel);
	lua_setfield(L, -2, "kernel");
	lua_pushinteger(L, an->cpus);
	lua_setfield(L, -2, "cpus");
	lua_pushinteger(L, (lua_Integer)an->mem_total);
	lua_setfield(L, -2, "mem_total");
	if (an->virt[0]) {
		lua_pushstring(L, an->virt);
		lua_setfield(L, -2, "virtualization");
	}
	if (an->boot_id[0]) {
		lua_pushstring(L, an->boot_id);
		lua_setfield(L, -2, "boot_id");
	}
	lua_pushinteger(L, (lua_Integer)an->threads_max);
	lua_setfield(L, -2, "threads_max");
	lua_pushinteger(L, (lua_Integer)an->pid_max);
	lua_setfield(L, -2, "pid_max");
	lua_pushinteger(L, (lua_Integer)an->nr_open);
	lua_setfield(L, -2, "nr_open");
	lua_pushinteger(L, an->clk_tck);
	lua_setfield(L, -2, "clk_tck");
	lua_pushinteger(L, an->page_size);
	lua_setfield(L, -2, "page_size");
	if (an->euid >= 0) {
		lua_pushinteger(L, an->euid);
		lua_setfield(L, -2, "euid"); /* sonde's, during the window */
	}
	if (an->proc_hidepid[0]) {
		lua_pushstring(L, an->proc_hidepid);
		lua_setfield(L, -2, "proc_hidepid");
	}
	ctx_push_observer(L, an);
}

static void ctx_push_window(lua_State *L, const struct analysis *an)
{
	lua_createtable(L, 0, 8);
	lua_pushnumber(L, an->elapsed_s);
	lua_setfield(L, -2, "seconds");
	lua_pushnumber(L, an->window_s);
	lua_setfield(L, -2, "requested");
	lua_pushnumber(L, an->interval_s);
	lua_setfield(L, -2, "interval");
	lua_pushinteger(L, an->samples);
	lua_setfield(L, -2, "samples");
	lua_pushboolean(L, an->partial);
	lua_setfield(L, -2, "partial");
	lua_pushnumber(L, (double)an->start_wall_ns / 1e9);
	lua_setfield(L, -2, "start");
	lua_pushnumber(L, an->uptime_start);
	lua_setfield(L, -2, "uptime_start");
	/*
	 * CLOCK_MONOTONIC at the window start, in seconds: kernel log timestamps
	 * (/dev/kmsg) come from the same clock, which, unlike uptime, does not
	 * count time the machine was suspended.
	 */
	lua_pushnumber(L, (double)an->start_mono_ns / 1e9);
	lua_setfield(L, -2, "kernel_clock_start");
}

void ctx__push(lua_State *L, struct analysis *an, struct check_result *res)
{
	lua_pushlightuserdata(L, (void *)res->def);
	lua_setfield(L, LUA_REGISTRYINDEX, CTX_REG_CHECK);
	lua_createtable(L, 0, 6);
	ctx_push_host(L, an);
	lua_setfield(L, -2, "host");
	ctx_push_window(L, an);
	lua_setfield(L, -2, "window");
	/* --container, --pod: the workload the report narrows to (checks/lib/containers.lua) */
	if (an->focus_container || an->focus_pod) {
		lua_createtable(L, 0, 1);
		lua_pushstring(L, an->focus_container ? an->focus_container : an->focus_pod);
		lua_setfield(L, -2, an->focus_container ? "container" : "pod");
		lua_setfield(L, -2, "focus");
	}
	lua_pushlightuserdata(L, an);
	luaopen_sonde_proc(L);
	lua_setfield(L, -2, "proc");
	lua_pushlightuserdata(L, an);
	luaopen_sonde_bpf(L);
	lua_setfield(L, -2, "bpf");
	lua_pushlightuserdata(L, an), luaopen_sonde_perf(L), lua_setfield(L, -2, "perf");
	ctx_history__push(L, an);
	lua_setfield(L, -2, "history");
	ctx_report__set_methods(L, res);
}
