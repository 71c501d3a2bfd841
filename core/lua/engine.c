// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Running the checks (lua/engine.h): worker processes, each of which runs
 * the checks the parent gives it one at a time, builds each one's sandbox
 * (sandbox.c) and ctx (ctx_*.c), runs it and sends its result back over a
 * socket; the parent reads it under a watchdog, so a check stuck where the
 * Lua hook cannot reach, or one that crashes, ends in status error (its
 * worker killed or gone) and the next check still runs, in a new worker.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
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

/*
 * A worker: a child process that runs the checks the parent hands it, one at
 * a time, each in a fresh sandboxed state. Over a socket pair, the parent
 * sends a check's index (4 bytes; MSG_NOSIGNAL: a dead worker is not the
 * parent's SIGPIPE); the worker answers with a frame (the index and the
 * length, 4 bytes each, then the encoded result) and waits for the next. One fork serves many checks: the copy of the
 * parent's page tables and the copy-on-write faults of a child's heap were a
 * third of the checks' time on a host of 10,000 processes (63 forks), and
 * what a check builds from the captures (the threads, the cgroups) is built
 * once a worker. Each check still has its own deadline: a worker stuck in a
 * check is killed, that check ends in error, and a new worker takes the rest.
 */
struct engine_worker {
	pid_t pid;               /* 0: no worker in this slot */
	int fd;                  /* the parent's end of the socket pair */
	long cur;                /* the check it runs (-1: none, waiting for one) */
	int64_t t0, deadline;    /* CLOCK_MONOTONIC ns, of the current check */
	struct strbuf buf;       /* what it wrote, not yet a whole frame */
};

#define FRAME_HEAD 8

/* In the worker: the next check's index; 0 when the parent closed its end. */
static int read_index(int fd, uint32_t *idx)
{
	size_t got = 0;

	while (got < sizeof(*idx)) {
		ssize_t k = read(fd, (char *)idx + got, sizeof(*idx) - got);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return 0;
		got += (size_t)k;
	}
	return 1;
}

/* In the worker: run the checks the parent sends until it closes its end. */
static void __attribute__((noreturn))
engine_worker_main(int fd, pid_t parent, const struct catalog *cat,
		   const struct check_def *const *defs, size_t n, struct analysis *an,
		   const struct engine_limits *lim)
{
	uint32_t idx;

	child__tie(parent);
	while (read_index(fd, &idx) && idx < n) {
		struct check_result r;
		struct strbuf sb = { 0 };
		uint32_t head[2];

		engine_run_here(cat, defs[idx], an, lim, &r);
		check_result__encode(&r, &sb);
		check_result__free(&r);
		if (sb.oom || sb.len > RESULT_MAX)
			_exit(2);
		head[0] = idx;
		head[1] = (uint32_t)sb.len;
		if (fd__write_all(fd, head, sizeof(head)) || fd__write_all(fd, sb.buf, sb.len))
			_exit(2);
		strbuf__free(&sb);
	}
	_exit(0);
}

/*
 * Start a worker in slot j of w[nw]; 0, or -1 when no socket or no child can
 * be had. The child closes the other workers' ends, which it inherits: held
 * open there, a worker told to go (its end closed) would never see it.
 */
static int engine_worker_start(struct engine_worker *all, unsigned nw, unsigned j,
			       const struct catalog *cat, const struct check_def *const *defs,
			       size_t n, struct analysis *an, const struct engine_limits *lim)
{
	struct engine_worker *w = &all[j];
	int sv[2];
	pid_t pid, parent = getpid();

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	if (pid == 0) {
		close(sv[0]);
		for (unsigned k = 0; k < nw; k++)
			if (k != j && all[k].pid)
				close(all[k].fd);
		engine_worker_main(sv[1], parent, cat, defs, n, an, lim);
	}
	close(sv[1]);
	*w = (struct engine_worker){ .pid = pid, .fd = sv[0], .cur = -1 };
	return 0;
}

/* Hand check i to the worker; 0, or -1 when it is gone (the caller ends it). */
static int engine_worker_give(struct engine_worker *w, size_t i, const struct engine_limits *lim)
{
	uint32_t idx = (uint32_t)i;
	ssize_t k;

	w->cur = (long)i;
	w->t0 = clock__ns(CLOCK_MONOTONIC);
	w->deadline = w->t0 + (int64_t)((lim->wall_s + WATCHDOG_GRACE_S) * 1e9);
	while ((k = send(w->fd, &idx, sizeof(idx), MSG_NOSIGNAL)) < 0 && errno == EINTR)
		;
	return k == (ssize_t)sizeof(idx) ? 0 : -1;
}

/*
 * The worker is gone, or is to go (killed: stuck past its check's deadline):
 * reap it, and its current check, if it has one, ends in error with the reason.
 */
static void engine_worker_end(struct engine_worker *w, int killed,
			      const struct check_def *const *defs, struct check_result *out)
{
	int status = 0;

	if (killed)
		kill(w->pid, SIGKILL);
	close(w->fd);
	while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR)
		;
	if (w->cur >= 0) {
		struct check_result *o = &out[w->cur];

		if (killed)
			engine_set_failure(o, "stopped from outside after %.1f s: stuck where the "
					   "Lua hook cannot reach (a pathological pattern match, "
					   "or a long C call)",
					   (double)(clock__ns(CLOCK_MONOTONIC) - w->t0) / 1e9);
		else if (WIFSIGNALED(status))
			engine_set_failure(o, "the check's process died: %s",
					   strsignal(WTERMSIG(status)));
		else
			engine_set_failure(o, "the check's process returned no readable result "
					   "(exit status %d)",
					   WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		o->def = defs[w->cur];
		o->elapsed_ms = (double)(clock__ns(CLOCK_MONOTONIC) - w->t0) / 1e6;
	}
	strbuf__free(&w->buf);
	w->pid = 0;
	w->cur = -1;
}

/*
 * Read what the worker wrote; a whole frame is its current check's result,
 * decoded into out (the worker then waits for the next check: cur is -1).
 * 1 when the worker closed its end (it is gone), 2 when it wrote what is not
 * a frame of its check (it is to be killed), 0 otherwise.
 */
static int engine_worker_read(struct engine_worker *w, const struct check_def *const *defs,
			      struct check_result *out)
{
	char chunk[65536];
	ssize_t n = read(w->fd, chunk, sizeof(chunk));
	uint32_t head[2];

	if (n < 0)
		return errno != EINTR && errno != EAGAIN;
	if (n == 0)
		return 1;
	strbuf__append(&w->buf, chunk, (size_t)n);
	if (w->buf.oom)
		return 2;
	if (w->buf.len < FRAME_HEAD)
		return 0;
	memcpy(head, w->buf.buf, sizeof(head));
	if (w->cur < 0 || head[0] != (uint32_t)w->cur || head[1] > RESULT_MAX)
		return 2;
	if (w->buf.len < FRAME_HEAD + (size_t)head[1])
		return 0;
	if (check_result__decode(&out[w->cur], w->buf.buf + FRAME_HEAD, head[1]))
		return 2;
	out[w->cur].def = defs[w->cur];
	w->cur = -1;
	/* a frame answers one check: nothing may follow it before the next is given */
	if (w->buf.len != FRAME_HEAD + (size_t)head[1])
		return 2;
	w->buf.len = 0;
	return 0;
}

/*
 * Checks run in worker processes (above): the hook and the allocator stop what
 * Lua can stop, and the parent's watchdog kills what it cannot (a pathological
 * pattern match is C code that never returns to the hook). A crash in a check
 * is contained the same way. The workers inherit the captures copy-on-write
 * (everything the checks read is preloaded before the first fork) and send
 * each result back through a pipe (check_result__encode). Up to `jobs`
 * workers run at once, each check under its own deadline, and the results land
 * in out[] in the order of defs[], whichever finishes first. Where no worker
 * can be had, the checks run here, one after the other.
 */
void engine__run_checks(const struct catalog *cat, const struct check_def *const *defs,
			size_t n, struct analysis *an, const struct engine_limits *lim,
			unsigned jobs, struct check_result *out)
{
	struct engine_worker w[ENGINE_MAX_JOBS];
	const struct task_summary *tasks;
	size_t next = 0, ntasks;
	unsigned active = 0;

	if (jobs < 1)
		jobs = 1;
	if (jobs > ENGINE_MAX_JOBS)
		jobs = ENGINE_MAX_JOBS;
	if (jobs > n)
		jobs = (unsigned)(n ? n : 1);
	memset(w, 0, sizeof(w));
	for (size_t i = 0; i < n; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		out[i].def = defs[i];
		/* preload what every check reads, in the parent: the workers share it */
		for (size_t k = 0; k < defs[i]->collect.n; k++)
			analysis__preload(an, defs[i]->collect.v[k]);
	}
	analysis__tasks(an, &tasks, &ntasks);
	while (next < n || active) {
		struct pollfd p[ENGINE_MAX_JOBS];
		int np = 0, slot[ENGINE_MAX_JOBS];
		int64_t now;

		/* a worker for every free slot while checks are left, each given one */
		for (unsigned j = 0; j < jobs && next < n; j++) {
			if (!w[j].pid) {
				if (engine_worker_start(w, jobs, j, cat, defs, n, an, lim)) {
					if (active)
						break; /* the running workers will take the rest */
					engine_run_here(cat, defs[next], an, lim, &out[next]);
					next++;
					continue;
				}
				active++;
			}
			/* one it cannot take: it is gone, and its status says why */
			if (w[j].cur < 0 && engine_worker_give(&w[j], next++, lim)) {
				engine_worker_end(&w[j], 0, defs, out);
				active--;
			}
		}
		/* no check left to give: the idle workers are told to go */
		for (unsigned j = 0; j < jobs && next >= n; j++)
			if (w[j].pid && w[j].cur < 0) {
				engine_worker_end(&w[j], 0, defs, out);
				active--;
			}
		for (unsigned j = 0; j < jobs; j++) {
			if (!w[j].pid)
				continue;
			p[np] = (struct pollfd){ .fd = w[j].fd, .events = POLLIN };
			slot[np++] = (int)j;
		}
		if (!np)
			continue;
		/* A timeout or EINTR: the watchdog looks again. */
		if (poll(p, (nfds_t)np, WATCHDOG_TICK_MS) > 0) {
			for (int k = 0; k < np; k++) {
				int r;

				if (!(p[k].revents & (POLLIN | POLLHUP | POLLERR)) ||
				    !(r = engine_worker_read(&w[slot[k]], defs, out)))
					continue;
				/* gone by itself (1), or to be killed: what it wrote is no frame */
				engine_worker_end(&w[slot[k]], r == 2, defs, out);
				active--;
			}
		}
		now = clock__ns(CLOCK_MONOTONIC);
		for (int k = 0; k < np; k++) {
			struct engine_worker *x = &w[slot[k]];

			if (!x->pid || x->cur < 0 || (now < x->deadline && x->buf.len <= RESULT_MAX))
				continue;
			engine_worker_end(x, 1, defs, out);
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
