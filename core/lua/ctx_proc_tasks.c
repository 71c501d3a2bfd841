// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ctx.proc.tasks() and ctx.proc.task_series(pid): the processes of the
 * window, from the proc.pids capture (summarized once in C, analysis__tasks).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "collect/analysis.h"
#include "util/parse.h"
#include "lua/ctx.h"

/*
 * A task is a light userdata-backed object: fields are read from the C
 * summary when a check asks for them. Checks look at a few fields of each of
 * possibly thousands of processes; building a 35-field table for every one,
 * in every check, was most of the checks' time.
 */
#define TASK_MT "sonde.task"

struct task_ref {
	const struct analysis *an;
	const struct task_summary *t;
};

enum task_field {
	TF_ANON_BYTES, TF_SWAP_BYTES, TF_BLKIO_DELAY_S, TF_CMDLINE, TF_COMM, TF_CPU_SHARE, TF_EXITED, TF_FDS, TF_FIRST_T,
	TF_IO_DENIED, TF_KERNEL_THREAD, TF_LAST_T, TF_MAJFLT, TF_MINFLT, TF_NOFILE_HARD,
	TF_NOFILE_SOFT,
	TF_NONVOL_CTXT, TF_PID, TF_PPID, TF_PROCESSOR, TF_RCHAR, TF_READ_BYTES, TF_RSS_BYTES,
	TF_RUN_S, TF_RUNQ_WAIT_S, TF_SELF, TF_STARTED, TF_STATE, TF_STIME, TF_SWITCHES, TF_SYSCR,
	TF_SYSCW, TF_THREADS, TF_UID, TF_UTIME, TF_VOL_CTXT, TF_WCHAR, TF_WRITE_BYTES,
};

/* Each field a check may read, by name (the metatable's upvalue, task_index). */
static const struct {
	const char *name;
	enum task_field f;
} task_fields[] = {
	{ "anon_bytes", TF_ANON_BYTES },       { "blkio_delay_s", TF_BLKIO_DELAY_S },
	{ "cmdline", TF_CMDLINE },
	{ "comm", TF_COMM },                   { "cpu_share", TF_CPU_SHARE },
	{ "exited", TF_EXITED },               { "fds", TF_FDS },
	{ "first_t", TF_FIRST_T },             { "io_denied", TF_IO_DENIED },
	{ "kernel_thread", TF_KERNEL_THREAD },
	{ "last_t", TF_LAST_T },               { "majflt", TF_MAJFLT },
	{ "minflt", TF_MINFLT },               { "nofile_hard", TF_NOFILE_HARD },
	{ "nofile_soft", TF_NOFILE_SOFT },     { "nonvol_ctxt", TF_NONVOL_CTXT },
	{ "pid", TF_PID },                     { "ppid", TF_PPID },
	{ "processor", TF_PROCESSOR },         { "rchar", TF_RCHAR },
	{ "read_bytes", TF_READ_BYTES },       { "rss_bytes", TF_RSS_BYTES },
	{ "run_s", TF_RUN_S },                 { "runq_wait_s", TF_RUNQ_WAIT_S },
	{ "self", TF_SELF },                   { "started", TF_STARTED },
	{ "state", TF_STATE },                 { "stime", TF_STIME },
	{ "swap_bytes", TF_SWAP_BYTES },       { "switches", TF_SWITCHES },
	{ "syscr", TF_SYSCR },
	{ "syscw", TF_SYSCW },                 { "threads", TF_THREADS },
	{ "uid", TF_UID },                     { "utime", TF_UTIME },
	{ "vol_ctxt", TF_VOL_CTXT },           { "wchar", TF_WCHAR },
	{ "write_bytes", TF_WRITE_BYTES },
};

/* Push field f of t; nil where this host or window could not give it. */
static void push_task_field(lua_State *L, const struct analysis *an, const struct task_summary *t,
			    enum task_field f)
{
	double secs = an->elapsed_s > 0 ? an->elapsed_s : 1, hz = (double)an->clk_tck;

	switch (f) {
	case TF_PID: lua_pushinteger(L, t->pid); return;
	case TF_PPID: lua_pushinteger(L, t->ppid); return;
	case TF_COMM: lua_pushstring(L, t->comm); return;
	case TF_CMDLINE: lua_pushstring(L, t->cmdline ? t->cmdline : ""); return;
	case TF_STATE: lua_pushlstring(L, &t->state, 1); return;
	case TF_KERNEL_THREAD: lua_pushboolean(L, t->kernel_thread); return;
	case TF_SELF: lua_pushboolean(L, t->self); return;
	case TF_IO_DENIED: lua_pushboolean(L, t->io_denied); return;
	case TF_STARTED: lua_pushboolean(L, t->started); return;
	case TF_EXITED: lua_pushboolean(L, t->exited); return;
	case TF_FIRST_T: lua_pushnumber(L, t->first_t); return;
	case TF_LAST_T: lua_pushnumber(L, t->last_t); return;
	case TF_UTIME: ctx__push_u64(L, t->utime); return;
	case TF_STIME: ctx__push_u64(L, t->stime); return;
	/* Fraction of one CPU over the window (1.0 = one CPU busy for the whole window). */
	case TF_CPU_SHARE: lua_pushnumber(L, (double)(t->utime + t->stime) / hz / secs); return;
	case TF_MINFLT: ctx__push_u64(L, t->minflt); return;
	case TF_MAJFLT: ctx__push_u64(L, t->majflt); return;
	case TF_BLKIO_DELAY_S: lua_pushnumber(L, (double)t->blkio_ticks / hz); return;
	case TF_THREADS: ctx__push_u64(L, t->threads); return;
	case TF_RSS_BYTES: ctx__push_u64(L, t->rss_bytes); return;
	case TF_PROCESSOR: lua_pushinteger(L, t->processor); return;
	case TF_UID:
		if (t->uid >= 0)
			lua_pushinteger(L, t->uid);
		else
			lua_pushnil(L);
		return;
	case TF_ANON_BYTES:
	case TF_SWAP_BYTES: {
		int64_t v = f == TF_ANON_BYTES ? t->anon_bytes : t->swap_bytes;

		if (v >= 0)
			lua_pushinteger(L, v);
		else
			lua_pushnil(L);
		return;
	}
	case TF_FDS:
		if (t->fds >= 0)
			lua_pushinteger(L, t->fds);
		else
			lua_pushnil(L);
		return;
	case TF_NOFILE_SOFT:
	case TF_NOFILE_HARD: {
		uint64_t v = f == TF_NOFILE_SOFT ? t->nofile_soft : t->nofile_hard;

		if (!t->nofile_soft)
			lua_pushnil(L);
		else
			lua_pushnumber(L, v == UINT64_MAX ? HUGE_VAL : (double)v);
		return;
	}
	case TF_READ_BYTES: case TF_WRITE_BYTES: case TF_RCHAR: case TF_WCHAR: case TF_SYSCR:
	case TF_SYSCW:
		if (!t->has_io) {
			lua_pushnil(L);
			return;
		}
		ctx__push_u64(L, f == TF_READ_BYTES ? t->read_bytes :
				 f == TF_WRITE_BYTES ? t->write_bytes :
				 f == TF_RCHAR ? t->rchar : f == TF_WCHAR ? t->wchar :
				 f == TF_SYSCR ? t->syscr : t->syscw);
		return;
	case TF_VOL_CTXT: case TF_NONVOL_CTXT:
		if (t->has_ctxt)
			ctx__push_u64(L, f == TF_VOL_CTXT ? t->vol_ctxt : t->nonvol_ctxt);
		else
			lua_pushnil(L);
		return;
	/* The main thread's scheduling: times switched in, time on a CPU, time waiting for one. */
	case TF_SWITCHES:
		if (t->has_sched)
			ctx__push_u64(L, t->slices);
		else if (t->has_ctxt)
			ctx__push_u64(L, t->vol_ctxt + t->nonvol_ctxt);
		else
			lua_pushnil(L);
		return;
	case TF_RUN_S: case TF_RUNQ_WAIT_S:
		if (t->has_sched)
			lua_pushnumber(L, (double)(f == TF_RUN_S ? t->run_ns : t->wait_ns) / 1e9);
		else
			lua_pushnil(L);
		return;
	}
	lua_pushnil(L);
}

/*
 * t.field: the name is looked up in the metatable's upvalue, a table from
 * each field's (interned) name to its number, so a check's loop over
 * thousands of tasks pays a hash lookup a field, not a search of strings.
 * Only tasks have this metatable, and checks cannot reach it (__metatable).
 */
static int task_index(lua_State *L)
{
	const struct task_ref *ref = lua_touserdata(L, 1);
	int f;

	lua_pushvalue(L, 2);
	if (!ref || lua_rawget(L, lua_upvalueindex(1)) != LUA_TNUMBER) {
		lua_pushnil(L);
		return 1;
	}
	f = (int)lua_tointeger(L, -1);
	lua_pop(L, 1);
	push_task_field(L, ref->an, ref->t, (enum task_field)f);
	return 1;
}

static int task_newindex(lua_State *L)
{
	return luaL_error(L, "a task is read-only");
}

static int task_tostring(lua_State *L)
{
	const struct task_ref *ref = luaL_checkudata(L, 1, TASK_MT);

	lua_pushfstring(L, "task %d (%s)", ref->t->pid, ref->t->comm);
	return 1;
}

static const luaL_Reg task_metamethods[] = {
	{ "__index", task_index },
	{ "__newindex", task_newindex },
	{ "__tostring", task_tostring },
	{ NULL, NULL },
};

static void push_task(lua_State *L, const struct analysis *an, const struct task_summary *t)
{
	struct task_ref *ref = lua_newuserdatauv(L, sizeof(*ref), 0);

	ref->an = an;
	ref->t = t;
	if (luaL_newmetatable(L, TASK_MT)) {
		lua_createtable(L, 0, (int)(sizeof(task_fields) / sizeof(task_fields[0])));
		for (size_t i = 0; i < sizeof(task_fields) / sizeof(task_fields[0]); i++) {
			lua_pushinteger(L, task_fields[i].f);
			lua_setfield(L, -2, task_fields[i].name);
		}
		luaL_setfuncs(L, task_metamethods, 1);
		lua_pushstring(L, "read-only");
		lua_setfield(L, -2, "__metatable");
	}
	lua_setmetatable(L, -2);
}

/* ctx.proc.tasks() -> { task, ... }: one per process seen in the window */
int ctx_proc__tasks(lua_State *L)
{
	struct analysis *an = ctx__analysis(L);
	const struct task_summary *t;
	size_t n;
	int err;

	ctx__need(L, "proc", "proc.pids");
	err = analysis__tasks(an, &t, &n);
	if (err == -ENOENT)
		return ctx__missing(L, NULL, "proc.pids", "/proc/PID/stat", NULL);
	if (err)
		return luaL_error(L, "tasks: %s", strerror(-err));
	lua_createtable(L, (int)n, 0);
	for (size_t i = 0; i < n; i++) {
		push_task(L, an, &t[i]);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	return 1;
}

static int sample_pid_stat(lua_State *L, const struct capture_rec *r, void *arg)
{
	struct pid_stat ps;

	if (parse_pid_stat(r->data, r->len, &ps) || ps.nfields < 20)
		return -1;
	ctx__set_u64(L, "utime", ps.utime);
	ctx__set_u64(L, "stime", ps.stime);
	ctx__set_u64(L, "minflt", ps.minflt);
	ctx__set_u64(L, "majflt", ps.majflt);
	ctx__set_u64(L, "threads", ps.num_threads);
	ctx__set_u64(L, "rss_pages", ps.rss_pages);
	lua_pushinteger(L, ps.processor);
	lua_setfield(L, -2, "processor");
	lua_pushlstring(L, &ps.state, 1);
	lua_setfield(L, -2, "state");
	return 0;
}

/* ctx.proc.task_series(pid) -> series of /proc/PID/stat (utime, stime, state, processor...) */
int ctx_proc__task_series(lua_State *L)
{
	lua_Integer pid = luaL_checkinteger(L, 1);
	char path[64];

	luaL_argcheck(L, pid > 0 && pid < (1 << 30), 1, "not a pid");
	snprintf(path, sizeof(path), "/proc/%lld/stat", (long long)pid);
	return ctx__series(L, "proc.pids", path, NULL, sample_pid_stat, NULL);
}
