// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ctx.proc: per-process levels for the trends of finite resources, and the
 * suspects' open files (proc.pids: /proc/PID/stat every round, "sonde:fds",
 * "sonde:files"; or, where the task source served, "sonde:task/PID" records,
 * which carry the fd count; docs/capture-format.md).
 *
 * task_levels() reads the stream once for every process (a check calling
 * task_series(pid) for each of ten thousand processes would read it ten
 * thousand times) and keeps the processes whose level moved: one that
 * neither grew nor shrank has no trend to fit.
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

struct level {
	uint32_t seq;
	double t;
	uint64_t rss, threads;
	int64_t fds;  /* -1: not counted that round */
	int64_t anon; /* anonymous resident bytes; -1: not known that round */
};

struct proc_levels {
	int pid;     /* 0: empty slot */
	uint64_t starttime;
	const char *last_data; /* the payload of its last sonde:task record (a repeat shares it) */
	struct level *v;
	size_t n, cap;
};

static void levels__free(struct pidmap *lt)
{
	for (size_t i = 0; i < lt->cap; i++) {
		struct proc_levels *pl = pidmap__slot(lt, i);

		if (pl)
			free(pl->v);
	}
	pidmap__free(lt);
}

/* A level of process pid at round r; NULL on -ENOMEM (*err). */
static struct level *levels__add(struct pidmap *lt, const struct analysis *an, int pid,
				 uint64_t starttime, const struct capture_rec *r, int *err)
{
	struct proc_levels *pl;

	if (!(pl = pidmap__get(lt, pid)))
		goto nomem;
	/* a pid reused by another process: the new one starts its own levels */
	if (pl->n && pl->starttime != starttime)
		pl->n = 0;
	pl->starttime = starttime;
	if (pl->n == pl->cap) {
		size_t nc = pl->cap ? pl->cap * 2 : 8;
		struct level *nv = realloc(pl->v, nc * sizeof(*nv));

		if (!nv)
			goto nomem;
		pl->v = nv;
		pl->cap = nc;
	}
	pl->v[pl->n] = (struct level){ r->seq, analysis__t(an, r), 0, 0, -1, -1 };
	return &pl->v[pl->n++];
nomem:
	*err = -ENOMEM;
	return NULL;
}

/* One /proc/PID/stat record: a level of its process. 0 or -ENOMEM. */
static int levels__stat(struct pidmap *lt, const struct analysis *an, int pid,
			const struct capture_rec *r)
{
	struct pid_stat ps;
	struct level *l;
	int err = 0;

	if (parse_pid_stat(r->data, r->len, &ps) || ps.nfields < 20)
		return 0;
	if ((l = levels__add(lt, an, pid, ps.starttime, r, &err))) {
		l->rss = ps.rss_pages * (uint64_t)an->page_size;
		l->threads = ps.num_threads;
	}
	return err;
}

/*
 * One sonde:task/PID record: a level with its fd count (counted by the
 * source). A repeat (an unchanged process) shares its payload: its last
 * level again, without parsing. 0 or -ENOMEM; *fds set when a count was there.
 */
static int levels__task(struct pidmap *lt, const struct analysis *an, int pid,
			const struct capture_rec *r, int *fds)
{
	struct proc_levels *pl = pidmap__find(lt, pid);
	struct pid_task pt;
	struct level *l;
	int err = 0;

	if (pl && pl->n && pl->last_data == r->data) {
		struct level prev = pl->v[pl->n - 1];

		if ((l = levels__add(lt, an, pid, pl->starttime, r, &err))) {
			prev.seq = l->seq;
			prev.t = l->t;
			*l = prev;
		}
		return err;
	}
	if (parse_task_record(r->data, r->len, &pt))
		return 0;
	if (!(l = levels__add(lt, an, pid, pt.starttime, r, &err)))
		return err;
	l->rss = pt.rss_pages * (uint64_t)an->page_size;
	l->threads = pt.threads;
	l->fds = pt.fds;
	if (pt.anon_pages != UINT64_MAX)
		l->anon = (int64_t)(pt.anon_pages * (uint64_t)an->page_size);
	if (pt.fds >= 0)
		*fds = 1;
	pl = pidmap__find(lt, pid);
	pl->last_data = r->data;
	return 0;
}

/* "sonde:fds" of round seq: each "PID N" line completes that process's level of the round. */
struct fds_round {
	struct pidmap *lt;
	uint32_t seq;
};

static int levels__fds_line(int pid, uint64_t count, void *arg)
{
	struct fds_round *fr = arg;
	struct proc_levels *pl = pidmap__find(fr->lt, pid);

	if (!pl)
		return 0;
	/* its stat of the same round: the latest, unless the records are not in round order */
	for (size_t k = pl->n; k-- > 0;)
		if (pl->v[k].seq == fr->seq) {
			pl->v[k].fds = (int64_t)count;
			break;
		} else if (pl->v[k].seq < fr->seq) {
			break;
		}
	return 0;
}

static void levels__fds(struct pidmap *lt, const struct capture_rec *r)
{
	struct fds_round fr = { lt, r->seq };

	parse_fds_record(r->data, r->len, levels__fds_line, &fr);
}

/*
 * A /proc/PID/status record (the /proc walk reads it at first sight for a
 * process born in the window, and in the last round): its RssAnon completes
 * the process's level of that round, read from its stat just before. Two
 * points at most: the check says so rather than fit them.
 */
static void levels__status(struct pidmap *lt, int pid, const struct capture_rec *r)
{
	struct proc_levels *pl = pidmap__find(lt, pid);
	struct pid_status ps;

	if (!pl || !pl->n || parse_pid_status(r->data, r->len, &ps) || !ps.has_anon)
		return;
	for (size_t k = pl->n; k-- > 0;)
		if (pl->v[k].seq == r->seq) {
			pl->v[k].anon = (int64_t)(ps.rss_anon_kb * 1024);
			break;
		} else if (pl->v[k].seq < r->seq) {
			break;
		}
}

/* One of a level's values (fds, anon) moved between the rounds it was known in. */
static int known_moved(int64_t v, int64_t *seen)
{
	if (v < 0)
		return 0;
	if (*seen >= 0 && v != *seen)
		return 1;
	*seen = v;
	return 0;
}

static int levels__moved(const struct proc_levels *pl)
{
	int64_t fds = -1, anon = -1;

	for (size_t k = 0; k < pl->n; k++) {
		if (pl->v[k].rss != pl->v[0].rss || pl->v[k].threads != pl->v[0].threads)
			return 1;
		if (known_moved(pl->v[k].fds, &fds) || known_moved(pl->v[k].anon, &anon))
			return 1;
	}
	return 0;
}

/*
 * ctx.proc.task_levels() -> { [pid] = series (rss_bytes threads, fds where
 * counted, anon_bytes where known: every record of the task iterator, the
 * /proc walk's status reads) }, for each process whose RSS, threads, fd count
 * or anonymous memory moved during the window. .fds_counted is false when
 * this kernel gave no fd counts (before 6.2), with .fds_reason.
 */
int ctx_proc__task_levels(lua_State *L)
{
	struct analysis *an = ctx_proc__analysis(L);
	const struct capture_stream *st = ctx_proc__stream(L, "proc.pids");
	struct pidmap lt = PIDMAP_INIT(sizeof(struct proc_levels));
	int err = 0, fds = 0;

	if (!st)
		return ctx_proc__missing(L, st, "proc.pids", "/proc/PID/stat", NULL);
	for (size_t i = 0; i < st->n && !err; i++) {
		const struct capture_rec *r = &st->rec[i];
		const char *file;
		int pid;

		if (r->err)
			continue;
		if (!strcmp(r->path, "sonde:fds")) {
			levels__fds(&lt, r);
			fds = 1;
			continue;
		}
		pid = parse_capture_pid_path(r->path, &file);
		if (pid < 0)
			continue;
		if (!strncmp(r->path, "sonde:task/", 11))
			err = levels__task(&lt, an, pid, r, &fds);
		else if (!strcmp(file, "stat"))
			err = levels__stat(&lt, an, pid, r);
		else if (!strcmp(file, "status"))
			levels__status(&lt, pid, r);
	}
	if (err) {
		levels__free(&lt);
		return luaL_error(L, "task_levels: %s", strerror(-err));
	}
	lua_newtable(L);
	for (size_t i = 0; i < lt.cap; i++) {
		const struct proc_levels *pl = pidmap__slot(&lt, i);

		if (!pl || !levels__moved(pl))
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
		ctx_proc__series_mt(L);
		lua_rawseti(L, -2, pl->pid);
	}
	levels__free(&lt);
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
	const struct capture_stream *st = ctx_proc__stream(L, "proc.pids");
	const struct capture_rec *r = ctx_proc__rec(st, "sonde:files", 1);
	int res;

	if (!r || r->err)
		return ctx_proc__missing(L, st, "proc.pids", "sonde:files",
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
