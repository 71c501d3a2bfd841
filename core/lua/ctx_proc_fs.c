// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ctx.proc, file systems and swap: statvfs of every mount (sonde's statfs
 * record), ext4 error counts and /proc/swaps, from the proc.mounts capture.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lua.h>

#include "collect/analysis.h"
#include "util/parse.h"
#include "lua/ctx.h"

/* The numbers of a statfs line: "frsize blocks bfree bavail files ffree flag". */
static void statfs_numbers(lua_State *L, const char *nums)
{
	unsigned long frsize, flag;
	unsigned long long blocks, bfree, bavail, files, ffree;
	double used;

	if (sscanf(nums, "%lu %llu %llu %llu %llu %llu %lu", &frsize, &blocks, &bfree, &bavail,
		   &files, &ffree, &flag) != 7)
		return;
	/*
	 * As df: used is size - free. The blocks free but not available (ext4's root
	 * reserve) are reported apart, never as used: counting them as used made a file
	 * system that df shows 18 GB used read 187.5 GB.
	 */
	used = (double)(blocks - (bfree < blocks ? bfree : blocks));
	ctx__set_num(L, "size_bytes", (double)blocks * frsize);
	ctx__set_num(L, "used_bytes", used * frsize);
	ctx__set_num(L, "free_bytes", (double)bfree * frsize);
	ctx__set_num(L, "avail_bytes", (double)bavail * frsize);
	ctx__set_num(L, "reserved_bytes", (double)(bfree > bavail ? bfree - bavail : 0) * frsize);
	/* df's Use%: used of what non-root users can have (root's reserve left out) */
	if (used + bavail > 0)
		ctx__set_num(L, "used_pct", 100.0 * used / (used + (double)bavail));
	ctx__set_num(L, "inodes", (double)files);
	ctx__set_num(L, "inodes_free", (double)ffree);
	if (files > 0) {
		double iused = (double)(files - (ffree < files ? ffree : files));

		ctx__set_num(L, "inodes_used", iused);
		ctx__set_num(L, "inodes_pct", 100.0 * iused / (double)files);
	}
	lua_pushboolean(L, (flag & 1) != 0); /* ST_RDONLY */
	lua_setfield(L, -2, "readonly");
}

/* One "sonde:statfs" record (collect.c mounts_sample) into { [mount] = series }. */
static void parse_statfs(const struct capture_rec *r, struct ctx_keyed *w)
{
	lua_State *L = w->L;
	const char *p = r->data, *end = r->data + r->len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *f[7];
		size_t fl[7];
		int nf = 0;
		char mnt[1024], nums[256];

		/* status dev fstype source mount device numbers: tab-separated */
		for (const char *q = p, *e = p + l; nf < 7 && q <= e;) {
			const char *tab = memchr(q, '\t', (size_t)(e - q));
			size_t n = tab ? (size_t)(tab - q) : (size_t)(e - q);

			f[nf] = q;
			fl[nf++] = n;
			q += n + 1;
			if (!tab)
				break;
		}
		p += l + 1;
		if (nf < 6 || fl[4] == 0 || fl[4] >= sizeof(mnt))
			continue;
		memcpy(mnt, f[4], fl[4]);
		mnt[fl[4]] = '\0';
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
		ctx__set_lstr(L, "status", f[0], fl[0]);
		ctx__set_lstr(L, "dev", f[1], fl[1]);
		ctx__set_lstr(L, "fstype", f[2], fl[2]);
		ctx__set_lstr(L, "source", f[3], fl[3]);
		if (!(fl[5] == 1 && f[5][0] == '-'))
			ctx__set_lstr(L, "device", f[5], fl[5]);
		if (nf == 7 && fl[6] < sizeof(nums)) {
			memcpy(nums, f[6], fl[6]);
			nums[fl[6]] = '\0';
			statfs_numbers(L, nums);
		} else if (!strncmp(f[0], "err=", 4)) {
			lua_pushfstring(L, "statvfs %s: %s", mnt, strerror(atoi(f[0] + 4)));
			lua_setfield(L, -2, "reason");
		}
		ctx__keyed_end(L);
	}
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

			if (r0 && !r0->err && r1 && !r1->err && r1 != r0) {
				ctx__set_num(L, "errors_first", strtod(r0->data, NULL));
				ctx__set_num(L, "errors_last", strtod(r1->data, NULL));
			} else {
				lua_pushfstring(L, "%s: %s", path,
						!r0 ? "not in the captures" :
						r0->err ? strerror(r0->err) : "read once only");
				lua_setfield(L, -2, "errors_reason");
			}
		}
		lua_pop(L, 1);
	}
	return 1;
}

/* /proc/swaps: "Filename Type Size Used Priority", sizes in KiB. */
static void parse_swaps(const struct capture_rec *r, struct ctx_keyed *w)
{
	lua_State *L = w->L;
	const char *p = r->data, *end = r->data + r->len;
	int first = 1;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char line[1200], name[1024], type[32];
		unsigned long long size, used;
		long prio;

		if (!first && l < sizeof(line)) {
			memcpy(line, p, l);
			line[l] = '\0';
			if (sscanf(line, "%1023s %31s %llu %llu %ld", name, type, &size, &used, &prio) == 5) {
				ctx__keyed_begin(L, name, w->t);
				ctx__set_lstr(L, "type", type, strlen(type));
				ctx__set_num(L, "size_bytes", (double)size * 1024);
				ctx__set_num(L, "used_bytes", (double)used * 1024);
				ctx__set_num(L, "priority", (double)prio);
				ctx__keyed_end(L);
			}
		}
		first = 0;
		p += l + 1;
	}
}

/* ctx.proc.swaps() -> { [swap device or file] = series(size_bytes used_bytes priority) } */
int ctx_proc__swaps(lua_State *L)
{
	return ctx__keyed_series(L, "proc.mounts", "/proc/swaps", parse_swaps);
}
