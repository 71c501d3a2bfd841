// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Running one check (lua/engine.h): a child process per check, which builds
 * the check's sandbox (sandbox.c) and ctx (ctx_*.c), runs it and sends its
 * result back through a pipe; the parent reads it under a watchdog, so a
 * check stuck where the Lua hook cannot reach, or one that crashes, ends in
 * status error and the next check still runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <lua.h>

#include "util/child.h"
#include "util/clock.h"
#include "util/file.h"
#include "lua/ctx.h"
#include "lua/sandbox.h"

const struct engine_limits engine_default_limits = {
	.mem_bytes = 64u << 20,
	.instructions = 200000000,
	.wall_s = 5.0,
};

static void engine_push_args(lua_State *L, const struct check_def *d)
{
	lua_createtable(L, 0, (int)d->nargs);
	for (size_t i = 0; i < d->nargs; i++) {
		const struct check_arg *a = &d->args[i];

		if (a->type == ARG_NUMBER)
			lua_pushnumber(L, a->num);
		else if (a->type == ARG_STRING)
			lua_pushstring(L, a->str ? a->str : "");
		else
			lua_pushboolean(L, a->boolean);
		lua_setfield(L, -2, a->name);
	}
}

static void engine_set_error(struct check_result *out, const char *msg)
{
	const char *nl = strchr(msg, '\n');

	free(out->error);
	free(out->traceback);
	out->error = nl ? strndup(msg, (size_t)(nl - msg)) : strdup(msg);
	out->traceback = nl ? strdup(nl + 1) : NULL;
}

static void engine_derive_status(struct check_result *out)
{
	enum status worst = ST_OK;
	double score = 0;

	if (!out->nmetrics) {
		out->st = out->nunknowns ? ST_UNKNOWN : ST_OK;
		return;
	}
	for (size_t i = 0; i < out->nmetrics; i++) {
		struct metric *m = &out->metrics[i];
		double thr = m->st == ST_CRIT ? m->crit : m->warn, s = 0;

		if (status__rank(m->st) > status__rank(worst))
			worst = m->st;
		if ((m->st == ST_WARN || m->st == ST_CRIT) && thr != 0)
			s = m->lower_is_worse ? thr / (m->value ? m->value : 1e-9) : m->value / thr;
		if (s > score)
			score = s;
	}
	out->st = worst;
	out->score = score;
}

/* Run one check in this process (the child, see engine__run_check). */
static void engine_run_here(const struct catalog *cat, const struct check_def *def,
			    struct analysis *an, const struct engine_limits *lim,
			    struct check_result *out)
{
	struct budget b;
	int64_t t0 = clock__ns(CLOCK_MONOTONIC);
	lua_State *L;
	int st;

	memset(out, 0, sizeof(*out));
	out->def = def;
	L = sandbox__new(cat, &b, lim);
	if (!L) {
		out->st = ST_ERROR;
		engine_set_error(out, "cannot create a Lua state (out of memory)");
		return;
	}
	st = sandbox__load(L, def->source, def->source_len, def->origin);
	if (st == LUA_OK)
		st = sandbox__pcall(L, 0, 1);
	if (st == LUA_OK && lua_istable(L, -1) && lua_getfield(L, -1, "run") == LUA_TFUNCTION) {
		ctx__push(L, an, out);
		engine_push_args(L, def);
		lua_pushvalue(L, -1);
		lua_setfield(L, -3, "args");
		st = sandbox__pcall(L, 2, 0);
	} else if (st == LUA_OK) {
		lua_pushstring(L, "the check did not return a table with run()");
		st = LUA_ERRRUN;
	}
	if (st != LUA_OK) {
		const char *msg = lua_tostring(L, -1);
		char why[sizeof(b.why)];

		out->st = ST_ERROR;
		if (b.doomed && strcmp(b.why, "closing")) {
			/* The stop's reason (a budget, a broken rule) is the error, whatever
			 * message the unwinding produced. */
			snprintf(why, sizeof(why), "%s", b.why);
			engine_set_error(out, msg ? msg : why);
			free(out->error);
			out->error = strdup(why);
		} else {
			engine_set_error(out, msg ? msg : "error (no message)");
		}
	} else {
		engine_derive_status(out);
	}
	out->instructions = b.instructions;
	out->mem_peak = b.peak;
	sandbox__close(L);
	out->elapsed_ms = (double)(clock__ns(CLOCK_MONOTONIC) - t0) / 1e6;
}

/* How far past its own wall budget a check's process may go before it is killed from outside. */
#define WATCHDOG_GRACE_S 1.0
/* How often the watchdog looks at the clock while the check says nothing. */
#define WATCHDOG_TICK_MS 50
/* A result larger than this is not a result. */
#define RESULT_MAX (64u << 20)

static void engine_set_failure(struct check_result *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void engine_set_failure(struct check_result *out, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	check_result__free(out);
	out->st = ST_ERROR;
	out->error = strdup(msg);
}

/* The watchdog's question: is it past the deadline at arg (CLOCK_MONOTONIC ns)? */
static int past_deadline(void *arg)
{
	return clock__ns(CLOCK_MONOTONIC) >= *(const int64_t *)arg;
}

/*
 * Each check runs in a child process: the hook and the allocator stop what Lua
 * can stop, and the parent's watchdog kills what it cannot (a pathological
 * pattern match is C code that never returns to the hook). A crash in a check
 * is contained the same way. The child inherits the captures copy-on-write
 * and sends its result back through a pipe (check_result__encode).
 */
void engine__run_check(const struct catalog *cat, const struct check_def *def,
		       struct analysis *an, const struct engine_limits *lim,
		       struct check_result *out)
{
	const struct task_summary *tasks;
	struct strbuf buf = { 0 };
	int64_t t0 = clock__ns(CLOCK_MONOTONIC), deadline;
	size_t ntasks;
	int fds[2], status = 0, killed = 0;
	pid_t pid, parent;

	memset(out, 0, sizeof(*out));
	/*
	 * Built or loaded once here, so that children share them instead of each
	 * building its own: the captures the check declared, the process summaries.
	 */
	for (size_t i = 0; i < def->collect.n; i++)
		analysis__preload(an, def->collect.v[i]);
	analysis__tasks(an, &tasks, &ntasks);
	if (pipe2(fds, O_CLOEXEC)) {
		engine_run_here(cat, def, an, lim, out);
		return;
	}
	fflush(NULL);
	parent = getpid();
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		engine_run_here(cat, def, an, lim, out);
		return;
	}
	if (pid == 0) {
		struct check_result r;
		struct strbuf sb = { 0 };

		/* A check must not outlive a sonde that was killed (kill -9 included). */
		child__tie(parent);
		close(fds[0]);
		engine_run_here(cat, def, an, lim, &r);
		check_result__encode(&r, &sb);
		_exit(sb.oom || fd__write_all(fds[1], sb.buf, sb.len) ? 2 : 0);
	}
	close(fds[1]);
	deadline = t0 + (int64_t)((lim->wall_s + WATCHDOG_GRACE_S) * 1e9);
	killed = child__collect(pid, fds[0], &buf, RESULT_MAX, WATCHDOG_TICK_MS, past_deadline,
				&deadline, &status);
	if (killed)
		engine_set_failure(out, "stopped from outside after %.1f s: stuck where the Lua "
				   "hook cannot reach (a pathological pattern match, or a long C "
				   "call)",
				   (double)(clock__ns(CLOCK_MONOTONIC) - t0) / 1e9);
	else if (WIFSIGNALED(status))
		engine_set_failure(out, "the check's process died: %s",
				   strsignal(WTERMSIG(status)));
	else if (buf.oom || check_result__decode(out, buf.buf, buf.len))
		engine_set_failure(out, "the check's process returned no readable result "
				   "(exit status %d)",
				   WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	out->def = def;
	if (out->st == ST_ERROR && !out->elapsed_ms)
		out->elapsed_ms = (double)(clock__ns(CLOCK_MONOTONIC) - t0) / 1e6;
	strbuf__free(&buf);
}
