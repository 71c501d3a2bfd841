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
#include <stdio.h>
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
static void levels__fds(struct pidmap *lt, const struct capture_rec *r)
{
	const char *p = r->data, *end = r->data + r->len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		char line[64];
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		long long pid, count;
		struct proc_levels *pl;

		snprintf(line, sizeof(line), "%.*s", (int)(n < sizeof(line) ? n : sizeof(line) - 1),
			 p);
		p += n + 1;
		if (sscanf(line, "%lld %lld", &pid, &count) != 2 || pid <= 0 || pid > 1 << 30 ||
		    count < 0 || !(pl = pidmap__find(lt, (int)pid)))
			continue;
		/* its stat of the same round: the latest, unless the records are not in round order */
		for (size_t k = pl->n; k-- > 0;)
			if (pl->v[k].seq == r->seq) {
				pl->v[k].fds = count;
				break;
			} else if (pl->v[k].seq < r->seq) {
				break;
			}
	}
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
	struct analysis *an = ctx__analysis(L);
	const struct capture_stream *st = ctx__stream(L, "proc.pids");
	struct pidmap lt = PIDMAP_INIT(sizeof(struct proc_levels));
	int err = 0, fds = 0;

	if (!st)
		return ctx__missing(L, st, "proc.pids", "/proc/PID/stat", NULL);
	for (size_t i = 0; i < st->n && !err; i++) {
		const struct capture_rec *r = &st->rec[i];
		long pid = 0;
		const char *q;

		if (r->err)
			continue;
		if (!strcmp(r->path, "sonde:fds")) {
			levels__fds(&lt, r);
			fds = 1;
			continue;
		}
		if (!strncmp(r->path, "sonde:task/", 11)) {
			for (q = r->path + 11; *q >= '0' && *q <= '9' && pid < 1 << 30; q++)
				pid = pid * 10 + (*q - '0');
			if (pid > 0 && !*q)
				err = levels__task(&lt, an, (int)pid, r, &fds);
			continue;
		}
		if (strncmp(r->path, "/proc/", 6))
			continue;
		for (q = r->path + 6; *q >= '0' && *q <= '9' && pid < 1 << 30; q++)
			pid = pid * 10 + (*q - '0');
		if (pid > 0 && !strcmp(q, "/stat"))
			err = levels__stat(&lt, an, (int)pid, r);
		else if (pid > 0 && !strcmp(q, "/status"))
			levels__status(&lt, (int)pid, r);
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
		ctx__series_mt(L);
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
static void push_unescaped(lua_State *L, const char *s, size_t n)
{
	luaL_Buffer b;

	luaL_buffinit(L, &b);
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 3 < n && s[i + 1] >= '0' && s[i + 1] <= '3' &&
		    s[i + 2] >= '0' && s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7') {
			luaL_addchar(&b, (char)((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 +
						(s[i + 3] - '0')));
			i += 3;
		} else {
			luaL_addchar(&b, s[i]);
		}
	}
	luaL_pushresult(&b);
}

/* The tab-separated fields of a line into f (at most max); returns how many. */
static int split_tabs(const char *line, size_t len, const char **f, size_t *fl, int max)
{
	int n = 0;
	const char *p = line, *end = line + len;

	while (n < max) {
		const char *tab = memchr(p, '\t', (size_t)(end - p));

		f[n] = p;
		fl[n] = tab ? (size_t)(tab - p) : (size_t)(end - p);
		n++;
		if (!tab)
			break;
		p = tab + 1;
	}
	return n;
}

static void set_field_u64(lua_State *L, const char *k, const char *s, size_t n)
{
	char num[32];

	snprintf(num, sizeof(num), "%.*s", (int)(n < sizeof(num) ? n : sizeof(num) - 1), s);
	ctx__set_u64(L, k, strtoull(num, NULL, 10));
}

/* One line of sonde:files into res (suspects, files, cwd). */
static void files_line(lua_State *L, int res, const char *line, size_t len)
{
	const char *f[10];
	size_t fl[10];
	int n = split_tabs(line, len, f, fl, 10);
	char pid[16];

	if (n < 2)
		return;
	snprintf(pid, sizeof(pid), "%.*s", (int)(fl[1] < 15 ? fl[1] : 15), f[1]);
	if (n == 3 && fl[0] == 7 && !memcmp(f[0], "suspect", 7)) {
		lua_getfield(L, res, "suspects");
		lua_newtable(L);
		for (const char *p = f[2], *e = f[2] + fl[2]; p < e;) {
			const char *c = memchr(p, ',', (size_t)(e - p));
			size_t k = c ? (size_t)(c - p) : (size_t)(e - p);

			lua_pushlstring(L, p, k);
			lua_pushboolean(L, 1);
			lua_rawset(L, -3);
			p += k + 1;
		}
		lua_rawseti(L, -2, strtol(pid, NULL, 10));
		lua_pop(L, 1);
	} else if (n == 5 && fl[0] == 3 && !memcmp(f[0], "cwd", 3)) {
		lua_getfield(L, res, "cwd");
		lua_newtable(L);
		ctx__set_lstr(L, "dev", f[2], fl[2]);
		set_field_u64(L, "ino", f[3], fl[3]);
		push_unescaped(L, f[4], fl[4]);
		lua_setfield(L, -2, "path");
		lua_rawseti(L, -2, strtol(pid, NULL, 10));
		lua_pop(L, 1);
	} else if (n == 10 && fl[0] == 4 && !memcmp(f[0], "file", 4)) {
		lua_getfield(L, res, "files");
		lua_newtable(L);
		lua_pushinteger(L, strtol(pid, NULL, 10));
		lua_setfield(L, -2, "pid");
		set_field_u64(L, "fd", f[2], fl[2]);
		ctx__set_lstr(L, "mode", f[3], fl[3]);
		ctx__set_lstr(L, "dev", f[4], fl[4]);
		set_field_u64(L, "ino", f[5], fl[5]);
		set_field_u64(L, "size", f[6], fl[6]);
		set_field_u64(L, "blocks_bytes", f[7], fl[7]);
		set_field_u64(L, "nlink", f[8], fl[8]);
		lua_pushboolean(L, fl[8] == 1 && f[8][0] == '0');
		lua_setfield(L, -2, "deleted");
		push_unescaped(L, f[9], fl[9]);
		lua_setfield(L, -2, "path");
		lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
		lua_pop(L, 1);
	} else if (fl[0] == 3 && !memcmp(f[0], "cut", 3)) {
		lua_pushboolean(L, 1);
		lua_setfield(L, res, "cut");
	}
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
	const char *p, *end;
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
	for (p = r->data, end = r->data + r->len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		files_line(L, res, p, n);
		p += n + 1;
	}
	return 1;
}
