// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ctx.proc: per-process levels for the trends of finite resources, and the
 * suspects' open files (proc.pids: /proc/PID/stat every round, "sonde:fds",
 * "sonde:files"; or, where the task source served, "sonde:task/PID" records,
 * which carry the fd count; docs/capture-format.md).
 *
 * task_levels() converts the levels core/collect built once for every
 * process (analysis__levels: a check calling task_series(pid) for each of
 * ten thousand processes would read the stream ten thousand times) and keeps
 * the processes whose level moved: one that neither grew nor shrank has no
 * trend to fit.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "collect/analysis.h"
#include "util/parse.h"
#include "util/pidmap.h"
#include "lua/ctx.h"

/*
 * ctx.proc.task_levels() -> { [pid] = series (rss_bytes threads, fds where
 * counted, anon_bytes where known: every record of the task iterator, the
 * /proc walk's status reads) }, for each process whose RSS, threads, fd count
 * or anonymous memory moved during the window. .fds_counted is false when
 * this kernel gave no fd counts (before 6.2), with .fds_reason.
 */
int ctx_proc__task_levels(lua_State *L)
{
	struct analysis *an = ctx__analysis(L);
	const struct capture_stream *st = ctx__stream(L, "proc.pids");
	const struct pidmap *lt;
	int err, fds = 0;

	if (!st)
		return ctx__missing(L, st, "proc.pids", "/proc/PID/stat", NULL);
	if ((err = analysis__levels(an, &lt, &fds)))
		return luaL_error(L, "task_levels: %s", strerror(-err));
	lua_newtable(L);
	for (size_t i = 0; i < lt->cap; i++) {
		const struct task_levels *pl = pidmap__slot(lt, i);

		if (!pl || !task_levels__moved(pl))
			continue;
		lua_createtable(L, (int)pl->n, 0);
		for (size_t k = 0; k < pl->n; k++) {
			lua_createtable(L, 0, 5);
			ctx__set_num(L, "t", pl->v[k].t);
			ctx__set_u64(L, "rss_bytes", pl->v[k].rss);
			ctx__set_u64(L, "threads", pl->v[k].threads);
			if (pl->v[k].fds >= 0)
				ctx__set_u64(L, "fds", (uint64_t)pl->v[k].fds);
			if (pl->v[k].anon >= 0)
				ctx__set_u64(L, "anon_bytes", (uint64_t)pl->v[k].anon);
			lua_rawseti(L, -2, (lua_Integer)k + 1);
		}
		ctx__series_mt(L);
		lua_rawseti(L, -2, pl->pid);
	}
	lua_pushboolean(L, fds);
	lua_setfield(L, -2, "fds_counted");
	if (!fds) {
		lua_pushstring(L, "no per-round fd counts: stat() of /proc/PID/fd gives the count "
				  "from Linux 6.2 on (the end-of-window fd tables still count)");
		lua_setfield(L, -2, "fds_reason");
	}
	return 1;
}

/* ---- the suspects' open files ---- */

/* A path as mountinfo escapes it (\ooo), decoded onto the stack. */
static void push_unescaped(lua_State *L, struct parse_word w)
{
	luaL_Buffer b;
	char *out = luaL_buffinitsize(L, &b, w.n);

	luaL_pushresultsize(&b, parse_unescape_octal(w.p, w.n, out));
}

static void set_field_str(lua_State *L, const char *k, struct parse_word w)
{
	lua_pushlstring(L, w.p, w.n);
	lua_setfield(L, -2, k);
}

/* One line of sonde:files into res (suspects, files, cwd, cut). */
static int files_line(const struct files_line *f, void *arg)
{
	lua_State *L = arg;
	int res = lua_gettop(L);

	switch (f->kind) {
	case FILES_SUSPECT:
		lua_getfield(L, res, "suspects");
		lua_newtable(L);
		for (const char *p = f->reasons.p, *e = p + f->reasons.n; p < e;) {
			const char *c = memchr(p, ',', (size_t)(e - p));
			size_t k = c ? (size_t)(c - p) : (size_t)(e - p);

			lua_pushlstring(L, p, k);
			lua_pushboolean(L, 1);
			lua_rawset(L, -3);
			p += k + 1;
		}
		lua_rawseti(L, -2, f->pid);
		lua_pop(L, 1);
		break;
	case FILES_CWD:
		lua_getfield(L, res, "cwd");
		lua_newtable(L);
		set_field_str(L, "dev", f->dev);
		ctx__set_u64(L, "ino", f->ino);
		push_unescaped(L, f->path);
		lua_setfield(L, -2, "path");
		lua_rawseti(L, -2, f->pid);
		lua_pop(L, 1);
		break;
	case FILES_FILE:
		lua_getfield(L, res, "files");
		lua_newtable(L);
		lua_pushinteger(L, f->pid);
		lua_setfield(L, -2, "pid");
		ctx__set_u64(L, "fd", f->fd);
		set_field_str(L, "mode", f->mode);
		set_field_str(L, "dev", f->dev);
		ctx__set_u64(L, "ino", f->ino);
		ctx__set_u64(L, "size", f->size);
		ctx__set_u64(L, "blocks_bytes", f->blocks_bytes);
		ctx__set_u64(L, "nlink", f->nlink);
		lua_pushboolean(L, f->nlink == 0);
		lua_setfield(L, -2, "deleted");
		push_unescaped(L, f->path);
		lua_setfield(L, -2, "path");
		lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
		lua_pop(L, 1);
		break;
	case FILES_CUT:
		lua_pushboolean(L, 1);
		lua_setfield(L, res, "cut");
		break;
	}
	return 0;
}

/*
 * ctx.proc.open_files() -> { suspects = { [pid] = { reason = true, ... } },
 * files = { { pid, fd, mode, dev, ino, size, blocks_bytes, nlink, deleted,
 * path }, ... }, cwd = { [pid] = { dev, ino, path } }, cut }: the last
 * round's suspects (the top writers, fd openers and CPU users) and what they
 * held open.
 */
int ctx_proc__open_files(lua_State *L)
{
	const struct capture_stream *st = ctx__stream(L, "proc.pids");
	const struct capture_rec *r = ctx__rec(st, "sonde:files", 1);
	int res;

	if (!r || r->err)
		return ctx__missing(L, st, "proc.pids", "sonde:files",
				    "the suspects' open files are read in the window's last round");
	lua_newtable(L);
	res = lua_gettop(L);
	lua_newtable(L);
	lua_setfield(L, res, "suspects");
	lua_newtable(L);
	lua_setfield(L, res, "files");
	lua_newtable(L);
	lua_setfield(L, res, "cwd");
	parse_files_record(r->data, r->len, files_line, L);
	return 1;
}
