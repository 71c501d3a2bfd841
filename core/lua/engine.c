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
#include <poll.h>
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
	int64_t t0 = clock__ns(CLOCK_MONOTONIC), c0 = clock__ns(CLOCK_THREAD_CPUTIME_ID);
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
	out->cpu_ms = (double)(clock__ns(CLOCK_THREAD_CPUTIME_ID) - c0) / 1e6;
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

/* One check's child process, from its fork to its result. */
struct engine_job {
	pid_t pid;               /* 0: a free slot */
	int fd;                  /* the read end of its result pipe */
	struct check_result *out;
	const struct check_def *def;
	int64_t t0, deadline;    /* CLOCK_MONOTONIC ns */
	struct strbuf buf;
};

/*
 * Start one check: preload what it reads (in the parent, so that children
 * share it copy-on-write instead of each building its own), fork the child
 * and leave it in job. Where no pipe or no child can be had, the check runs
 * here and now, and job stays free.
 */
static void engine_job_start(struct engine_job *job, const struct catalog *cat,
			     const struct check_def *def, struct analysis *an,
			     const struct engine_limits *lim, struct check_result *out)
{
	const struct task_summary *tasks;
	size_t ntasks;
	int fds[2];
	pid_t pid, parent;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < def->collect.n; i++)
		analysis__preload(an, def->collect.v[i]);
	analysis__tasks(an, &tasks, &ntasks);
	job->t0 = clock__ns(CLOCK_MONOTONIC);
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
	job->pid = pid;
	job->fd = fds[0];
	job->out = out;
	job->def = def;
	job->deadline = job->t0 + (int64_t)((lim->wall_s + WATCHDOG_GRACE_S) * 1e9);
	job->buf = (struct strbuf){ 0 };
}

/* The child is gone (closed its pipe, or was killed): reap it and decode its result. */
static void engine_job_end(struct engine_job *job, int killed)
{
	struct check_result *out = job->out;
	int status = 0;

	if (killed)
		kill(job->pid, SIGKILL);
	close(job->fd);
	while (waitpid(job->pid, &status, 0) < 0 && errno == EINTR)
		;
	if (killed)
		engine_set_failure(out, "stopped from outside after %.1f s: stuck where the Lua "
				   "hook cannot reach (a pathological pattern match, or a long C "
				   "call)",
				   (double)(clock__ns(CLOCK_MONOTONIC) - job->t0) / 1e9);
	else if (WIFSIGNALED(status))
		engine_set_failure(out, "the check's process died: %s",
				   strsignal(WTERMSIG(status)));
	else if (job->buf.oom || check_result__decode(out, job->buf.buf, job->buf.len))
		engine_set_failure(out, "the check's process returned no readable result "
				   "(exit status %d)",
				   WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	out->def = job->def;
	if (out->st == ST_ERROR && !out->elapsed_ms)
		out->elapsed_ms = (double)(clock__ns(CLOCK_MONOTONIC) - job->t0) / 1e6;
	strbuf__free(&job->buf);
	job->pid = 0;
}

/* Read what the child has written; 1 when it closed its pipe (its result is whole). */
static int engine_job_read(struct engine_job *job)
{
	char chunk[65536];
	ssize_t n = read(job->fd, chunk, sizeof(chunk));

	if (n < 0)
		return errno != EINTR && errno != EAGAIN;
	if (n == 0)
		return 1;
	strbuf__append(&job->buf, chunk, (size_t)n);
	return 0;
}

/*
 * Each check runs in a child process: the hook and the allocator stop what Lua
 * can stop, and the parent's watchdog kills what it cannot (a pathological
 * pattern match is C code that never returns to the hook). A crash in a check
 * is contained the same way. The child inherits the captures copy-on-write
 * and sends its result back through a pipe (check_result__encode). Up to
 * `jobs` children run at once; each has its own deadline, and the results
 * land in out[] in the order of defs[], whichever finishes first.
 */
void engine__run_checks(const struct catalog *cat, const struct check_def *const *defs,
			size_t n, struct analysis *an, const struct engine_limits *lim,
			unsigned jobs, struct check_result *out)
{
	struct engine_job job[ENGINE_MAX_JOBS];
	size_t next = 0, active = 0;

	if (jobs < 1)
		jobs = 1;
	if (jobs > ENGINE_MAX_JOBS)
		jobs = ENGINE_MAX_JOBS;
	memset(job, 0, sizeof(job));
	while (next < n || active) {
		struct pollfd p[ENGINE_MAX_JOBS];
		int64_t now;
		int np = 0, slot[ENGINE_MAX_JOBS];

		for (unsigned j = 0; j < jobs && next < n; j++) {
			if (job[j].pid)
				continue;
			engine_job_start(&job[j], cat, defs[next], an, lim, &out[next]);
			next++;
			active += job[j].pid != 0;
		}
		for (unsigned j = 0; j < jobs; j++) {
			if (!job[j].pid)
				continue;
			p[np] = (struct pollfd){ .fd = job[j].fd, .events = POLLIN };
			slot[np++] = (int)j;
		}
		if (!np)
			continue;
		/* A timeout or EINTR: the watchdog looks again. */
		if (poll(p, (nfds_t)np, WATCHDOG_TICK_MS) > 0) {
			for (int k = 0; k < np; k++) {
				if (!(p[k].revents & (POLLIN | POLLHUP | POLLERR)) ||
				    !engine_job_read(&job[slot[k]]))
					continue;
				engine_job_end(&job[slot[k]], 0);
				active--;
			}
		}
		now = clock__ns(CLOCK_MONOTONIC);
		for (int k = 0; k < np; k++) {
			struct engine_job *jb = &job[slot[k]];

			if (!jb->pid || (now < jb->deadline && jb->buf.len <= RESULT_MAX))
				continue;
			engine_job_end(jb, 1);
			active--;
		}
	}
	check_results__name_containers(an, out, n);
}

void engine__run_check(const struct catalog *cat, const struct check_def *def,
		       struct analysis *an, const struct engine_limits *lim,
		       struct check_result *out)
{
	engine__run_checks(cat, &def, 1, an, lim, 1, out);
}

unsigned engine__jobs(void)
{
	/* `make bench` measures the checks one at a time too, as its baseline (bench/tasks.sh) */
	const char *env = getenv("SONDE_BENCH_CHECK_JOBS");
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	if (env && *env)
		return (unsigned)strtoul(env, NULL, 10);
	/*
	 * The checks use the CPUs the host has, up to ENGINE_MAX_JOBS: they are
	 * pure functions of the captures, so their order of completion changes
	 * nothing, and the run's wall time after the window shrinks with them.
	 * sonde already runs at a lowered priority, and so do its children.
	 */
	return ncpu < 1 ? 1 : ncpu > ENGINE_MAX_JOBS ? ENGINE_MAX_JOBS : (unsigned)ncpu;
}
