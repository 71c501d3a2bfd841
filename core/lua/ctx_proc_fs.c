// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ctx.proc, file systems and swap: statvfs of every mount (sonde's statfs
 * record), ext4 error counts and /proc/swaps, from the proc.mounts capture.
 */
#include <stdio.h>
#include <string.h>

#include <lua.h>

#include "collect/analysis.h"
#include "util/parse.h"
#include "lua/ctx.h"

static void set_field_str(lua_State *L, const char *k, const char *v, size_t n)
{
	lua_pushlstring(L, v, n);
	lua_setfield(L, -2, k);
}

/* The capacity fields of a statfs line's numbers. */
static void statfs_numbers(lua_State *L, const struct statfs_line *s)
{
	double used;

	/*
	 * As df: used is size - free. The blocks free but not available (ext4's root
	 * reserve) are reported apart, never as used: counting them as used made a file
	 * system that df shows 18 GB used read 187.5 GB.
	 */
	used = (double)(s->blocks - (s->bfree < s->blocks ? s->bfree : s->blocks));
	ctx__set_num(L, "size_bytes", (double)s->blocks * s->frsize);
	ctx__set_num(L, "used_bytes", used * s->frsize);
	ctx__set_num(L, "free_bytes", (double)s->bfree * s->frsize);
	ctx__set_num(L, "avail_bytes", (double)s->bavail * s->frsize);
	ctx__set_num(L, "reserved_bytes",
		     (double)(s->bfree > s->bavail ? s->bfree - s->bavail : 0) * s->frsize);
	/* df's Use%: used of what non-root users can have (root's reserve left out) */
	if (used + s->bavail > 0)
		ctx__set_num(L, "used_pct", 100.0 * used / (used + (double)s->bavail));
	ctx__set_num(L, "inodes", (double)s->files);
	ctx__set_num(L, "inodes_free", (double)s->ffree);
	if (s->files > 0) {
		double iused = (double)(s->files - (s->ffree < s->files ? s->ffree : s->files));

		ctx__set_num(L, "inodes_used", iused);
		ctx__set_num(L, "inodes_pct", 100.0 * iused / (double)s->files);
	}
	lua_pushboolean(L, (s->flag & 1) != 0); /* ST_RDONLY */
	lua_setfield(L, -2, "readonly");
}

/* One line of a "sonde:statfs" record (collect/mounts.c) into { [mount] = series }. */
static int statfs_line(const struct statfs_line *s, void *arg)
{
	struct ctx_keyed *w = arg;
	lua_State *L = w->L;
	char mnt[1024];

	if (!parse_word_cstr(s->point, mnt, sizeof(mnt)))
		return 0;
	/*
	 * A mount point mounted over (two lines, the later on top): statvfs saw the top
	 * one, so the later line of the record replaces the earlier.
	 */
	{
		int top = lua_gettop(L);

		if (lua_getfield(L, -1, mnt) == LUA_TTABLE) {
			lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
			int same = n > 0 && lua_rawgeti(L, top + 1, n) == LUA_TTABLE &&
				   lua_getfield(L, -1, "t") == LUA_TNUMBER &&
				   lua_tonumber(L, -1) == w->t;

			lua_settop(L, top + 1);
			if (same) {
				lua_pushnil(L);
				lua_rawseti(L, -2, n);
			}
		}
		lua_settop(L, top);
	}
	ctx__keyed_begin(L, mnt, w->t);
	set_field_str(L, "status", s->status.p, s->status.n);
	set_field_str(L, "dev", s->dev.p, s->dev.n);
	set_field_str(L, "fstype", s->fstype.p, s->fstype.n);
	set_field_str(L, "source", s->source.p, s->source.n);
	if (s->device.n)
		set_field_str(L, "device", s->device.p, s->device.n);
	if (s->nfields == 7) {
		if (s->has_numbers)
			statfs_numbers(L, s);
	} else if (s->has_err) {
		lua_pushfstring(L, "statvfs %s: %s", mnt, strerror(s->err));
		lua_setfield(L, -2, "reason");
	}
	ctx__keyed_end(L);
	return 0;
}

static void parse_statfs(const struct capture_rec *r, struct ctx_keyed *w)
{
	parse_statfs_record(r->data, r->len, statfs_line, w);
}

/*
 * ctx.proc.filesystems() -> { [mount point] = series } with status, dev, fstype, source,
 * device and the capacity fields; each series also has errors_first/errors_last (ext4's
 * errors_count) or errors_reason.
 */
int ctx_proc__filesystems(lua_State *L)
{
	const struct capture_stream *st = ctx__stream(L, "proc.mounts");
	int ret = ctx__keyed_series(L, "proc.mounts", "sonde:statfs", parse_statfs);

	if (ret != 1 || lua_isnil(L, -1))
		return ret;
	lua_pushnil(L);
	while (lua_next(L, -2)) {
		lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
		int top = lua_gettop(L);
		char path[256] = "";

		if (n > 0 && lua_rawgeti(L, -1, n) == LUA_TTABLE &&
		    lua_getfield(L, -1, "device") == LUA_TSTRING &&
		    lua_getfield(L, -2, "fstype") == LUA_TSTRING && !strcmp(lua_tostring(L, -1), "ext4"))
			snprintf(path, sizeof(path), "/sys/fs/ext4/%s/errors_count", lua_tostring(L, -2));
		lua_settop(L, top);
		if (path[0]) {
			const struct capture_rec *r0 = ctx__rec(st, path, 0);
			const struct capture_rec *r1 = ctx__rec(st, path, 1);
			uint64_t e0, e1;

			if (r0 && !r0->err && r1 && !r1->err && r1 != r0 &&
			    !parse_value_u64(r0->data, r0->len, &e0) &&
			    !parse_value_u64(r1->data, r1->len, &e1)) {
				ctx__set_num(L, "errors_first", (double)e0);
				ctx__set_num(L, "errors_last", (double)e1);
			} else {
				lua_pushfstring(L, "%s: %s", path,
						!r0 ? "not in the captures" :
						r0->err ? strerror(r0->err) :
						r1 && !r1->err && r1 != r0 ? "not a number" :
									     "read once only");
				lua_setfield(L, -2, "errors_reason");
			}
		}
		lua_pop(L, 1);
	}
	return 1;
}

/* One line of /proc/swaps into { [swap device or file] = series }. */
static int swap_line(const struct swap_line *s, void *arg)
{
	struct ctx_keyed *w = arg;
	char name[1024];

	if (!parse_word_cstr(s->name, name, sizeof(name)))
		return 0;
	ctx__keyed_begin(w->L, name, w->t);
	set_field_str(w->L, "type", s->type.p, s->type.n);
	ctx__set_num(w->L, "size_bytes", (double)s->size_kb * 1024);
	ctx__set_num(w->L, "used_bytes", (double)s->used_kb * 1024);
	ctx__set_num(w->L, "priority", (double)s->priority);
	ctx__keyed_end(w->L);
	return 0;
}

static void parse_swaps_rec(const struct capture_rec *r, struct ctx_keyed *w)
{
	parse_swaps(r->data, r->len, swap_line, w);
}

/* ctx.proc.swaps() -> { [swap device or file] = series(size_bytes used_bytes priority) } */
int ctx_proc__swaps(lua_State *L)
{
	return ctx__keyed_series(L, "proc.mounts", "/proc/swaps", parse_swaps_rec);
}
