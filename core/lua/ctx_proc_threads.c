// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ctx.proc.threads(): the thread states of the window (proc.threads,
 * summarized once in C by analysis__threads): per process, its threads' time
 * on a CPU, waiting for one and off CPU by wait; how they were read (the run
 * facts threads_*), and the threads in D and R at each round.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "collect/analysis.h"
#include "lua/ctx.h"
#include "util/parse.h"
#include "util/pidmap.h"

/* The run facts of proc.threads (threads_source, threads_sampler_hz, ...) into the table on top. */
static int threads_fact(const char *k, size_t kl, const char *v, size_t vl, void *arg)
{
	lua_State *L = arg;
	static const char *const text[] = { "threads_source", "threads_source_why", "threads_lost",
					    "threads_sampler", "threads_sampler_why", NULL };
	static const char *const num[] = { "threads_sampler_hz", "threads_sampler_passes",
					   "threads_sampler_cpu_ns", NULL };

	while (vl && (v[vl - 1] == ' ' || v[vl - 1] == '\r'))
		vl--;
	while (vl && *v == ' ') {
		v++;
		vl--;
	}
	/* the middle rounds whose pass over the processes was skipped for its cost (big hosts) */
	if (kl == strlen("tasks_rounds_skipped") && !memcmp(k, "tasks_rounds_skipped", kl)) {
		double d;

		if (!parse_kv_decimal(v, vl, &d)) {
			lua_pushnumber(L, d);
			lua_setfield(L, -2, "rounds_skipped");
		}
		return 0;
	}
	for (const char *const *t = text; *t; t++)
		if (kl == strlen(*t) && !memcmp(k, *t, kl)) {
			lua_pushlstring(L, v, vl);
			lua_setfield(L, -2, *t + 8); /* "source", "sampler_why", ... */
			return 0;
		}
	for (const char *const *t = num; *t; t++)
		if (kl == strlen(*t) && !memcmp(k, *t, kl)) {
			double d;

			if (!parse_kv_decimal(v, vl, &d)) {
				lua_pushnumber(L, d);
				lua_setfield(L, -2, *t + 8);
			}
			return 0;
		}
	return 0;
}

static void set_str(lua_State *L, const char *k, const char *v)
{
	if (!v || !*v)
		return;
	lua_pushstring(L, v);
	lua_setfield(L, -2, k);
}

static void push_wait(lua_State *L, const struct thread_wait *w)
{
	char addr[32];

	lua_createtable(L, 0, 14);
	lua_pushlstring(L, &w->state, 1);
	lua_setfield(L, -2, "state");
	lua_pushboolean(L, w->iowait);
	lua_setfield(L, -2, "iowait");
	lua_pushboolean(L, w->pollfd);
	lua_setfield(L, -2, "pollfd");
	set_str(L, "syscall", w->syscall);
	set_str(L, "object", w->object);
	set_str(L, "kstack", w->kstack);
	if (w->futex_cmd) {
		lua_createtable(L, 0, 3);
		snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)w->futex_addr);
		lua_pushstring(L, addr);
		lua_setfield(L, -2, "addr");
		lua_pushstring(L, w->futex_cmd);
		lua_setfield(L, -2, "cmd");
		lua_pushboolean(L, w->futex_val2);
		lua_setfield(L, -2, "val2");
		lua_setfield(L, -2, "futex");
	}
	lua_pushinteger(L, w->ident);
	lua_setfield(L, -2, "ident");
	ctx__set_num(L, "s", w->s);
	ctx__set_num(L, "parked_s", w->parked_s);
	ctx__set_num(L, "wakes", w->wakes);
	lua_pushinteger(L, w->threads);
	lua_setfield(L, -2, "threads");
	lua_pushinteger(L, w->samples);
	lua_setfield(L, -2, "samples");
}

struct pid_task_ix {
	int pid;
	const struct task_summary *t;
};

static void push_proc(lua_State *L, const struct thread_proc *p, const struct task_summary *t)
{
	lua_createtable(L, 0, 20);
	lua_pushinteger(L, p->pid);
	lua_setfield(L, -2, "pid");
	if (t) {
		set_str(L, "comm", t->comm);
		set_str(L, "cmdline", t->cmdline);
		lua_pushboolean(L, t->self);
		lua_setfield(L, -2, "self");
		lua_pushboolean(L, t->kernel_thread);
		lua_setfield(L, -2, "kernel_thread");
	}
	lua_pushinteger(L, p->threads);
	lua_setfield(L, -2, "threads");
	ctx__set_num(L, "oncpu_s", p->oncpu_s);
	ctx__set_num(L, "runq_s", p->runq_s);
	ctx__set_num(L, "offcpu_s", p->offcpu_s);
	ctx__set_num(L, "observed_s", p->observed_s);
	ctx__set_num(L, "sampled_s", p->sampled_s);
	ctx__set_num(L, "unsampled_s", p->unsampled_s);
	ctx__set_num(L, "wakes", p->wakes);
	ctx__set_num(L, "d_mean", p->d_mean);
	lua_pushinteger(L, (lua_Integer)p->passes);
	lua_setfield(L, -2, "passes");
	if (p->passes) {
		lua_pushinteger(L, p->run_max);
		lua_setfield(L, -2, "run_max");
		ctx__set_num(L, "run_mean", (double)p->run_sum / (double)p->passes);
	}
	lua_createtable(L, (int)p->nwaits, 0);
	for (size_t i = 0; i < p->nwaits; i++) {
		push_wait(L, &p->waits[i]);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	lua_setfield(L, -2, "waits");
}

/*
 * A group of quiet processes: { threads, waits (one member's: each the
 * same), pids = { ... }, comms = { ... }, cmdlines = { ... } }, the members
 * in pid order.
 */
static void push_group(lua_State *L, const struct thread_states *ts, const struct thread_group *g,
		       const struct pidmap *ix)
{
	const struct thread_proc *rep = &ts->procs[g->rep];

	lua_createtable(L, 0, 4);
	lua_pushinteger(L, rep->threads);
	lua_setfield(L, -2, "threads");
	lua_createtable(L, (int)rep->nwaits, 0);
	for (size_t i = 0; i < rep->nwaits; i++) {
		push_wait(L, &rep->waits[i]);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	lua_setfield(L, -2, "waits");
	lua_createtable(L, (int)g->npids, 0);
	for (size_t i = 0; i < g->npids; i++) {
		lua_pushinteger(L, g->pids[i]);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	lua_setfield(L, -2, "pids");
	lua_createtable(L, (int)g->npids, 0);
	for (size_t i = 0; i < g->npids; i++) {
		const struct pid_task_ix *e = pidmap__find(ix, g->pids[i]);

		lua_pushstring(L, e && e->t ? e->t->comm : "?");
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	lua_setfield(L, -2, "comms");
	lua_createtable(L, (int)g->npids, 0);
	for (size_t i = 0; i < g->npids; i++) {
		const struct pid_task_ix *e = pidmap__find(ix, g->pids[i]);

		lua_pushstring(L, e && e->t && e->t->cmdline ? e->t->cmdline : "");
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	lua_setfield(L, -2, "cmdlines");
}

/* ctx.proc.threads() -> the thread states, or nil, reason */
int ctx_proc__threads(lua_State *L)
{
	struct analysis *an = ctx__analysis(L);
	const struct thread_states *ts;
	const struct task_summary *tasks = NULL;
	const struct capture_stream *meta;
	const struct capture_rec *run;
	struct pidmap ix = PIDMAP_INIT(sizeof(struct pid_task_ix));
	size_t ntasks = 0;
	char why[300] = "";
	int err;

	ctx__need(L, "proc", "proc.threads");
	err = analysis__threads(an, &ts, why, sizeof(why));
	if (err == -ENOENT)
		return ctx__missing(L, NULL, "proc.threads", "sonde:threads", NULL);
	if (err) {
		lua_pushnil(L);
		lua_pushstring(L, why[0] ? why : strerror(-err));
		return 2;
	}
	if (!analysis__tasks(an, &tasks, &ntasks))
		for (size_t i = 0; i < ntasks; i++) {
			struct pid_task_ix *e = pidmap__get(&ix, tasks[i].pid);

			if (e)
				e->t = &tasks[i]; /* the last of a reused pid: the one alive at the end */
		}
	lua_createtable(L, 0, 16);
	meta = capture_set__stream(&an->cs, "sonde");
	if (meta && (run = capture_stream__last(meta, "sonde:run")))
		parse_kv(run->data, run->len, threads_fact, L);
	lua_pushinteger(L, ts->rounds);
	lua_setfield(L, -2, "rounds");
	ctx__set_num(L, "interval_s", an->interval_s);
	ctx__set_num(L, "span_s", ts->span_s);
	ctx__set_num(L, "d_mean", ts->d_mean);
	ctx__set_num(L, "r_mean", ts->r_mean);
	lua_pushboolean(L, ts->listed);
	lua_setfield(L, -2, "listed");
	ctx__set_u64(L, "sampler_lost", ts->sampler_lost);
	lua_createtable(L, (int)ts->rounds, 0);
	for (uint32_t i = 0; i < ts->rounds && i < THREAD_STATES_ROUNDS; i++) {
		lua_createtable(L, 0, 3);
		ctx__set_num(L, "t", ts->t_series[i]);
		ctx__set_num(L, "d", ts->d_series[i]);
		ctx__set_num(L, "r", ts->r_series[i]);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	lua_setfield(L, -2, "series");
	lua_createtable(L, (int)ts->nactive, 0);
	for (size_t i = 0; i < ts->nactive; i++) {
		const struct pid_task_ix *e = pidmap__find(&ix, ts->procs[i].pid);

		push_proc(L, &ts->procs[i], e ? e->t : NULL);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	lua_setfield(L, -2, "processes");
	lua_createtable(L, (int)ts->ngroups, 0);
	for (size_t g = 0; g < ts->ngroups; g++) {
		push_group(L, ts, &ts->groups[g], &ix);
		lua_rawseti(L, -2, (lua_Integer)g + 1);
	}
	lua_setfield(L, -2, "quiet");
	pidmap__free(&ix);
	return 1;
}
