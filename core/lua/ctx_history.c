// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ctx.history(metric): the levels earlier bundles of this host recorded for
 * the calling check's metric (raw/history.cap, written by the run layer
 * before the checks; core/run/history.c), so a trend can continue across
 * runs. A check sees only its own metrics, and only when it declares the
 * "history" collector.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "collect/analysis.h"
#include "collect/collect.h"
#include "lua/catalog.h"
#include "lua/ctx.h"
#include "util/parse.h"

struct point {
	const char *inst;  /* into the capture, not NUL-terminated */
	size_t inst_len;
	double t, value, when;
	const char *bundle; /* the record's path after "bundle:" */
	int same_boot;
};

struct points {
	struct point *v;
	size_t n, cap;
};

struct history_walk {
	struct points *pts;
	const struct analysis *an;
	const struct capture_rec *r;
	const char *check, *metric;
	char boot[64];
	int64_t end_ns;
};

/* A line of the record (parse_history_record): the boot and end it states, then its points. */
static int history_line(const struct history_line *h, void *arg)
{
	struct history_walk *w = arg;
	struct points *pts = w->pts;

	if (h->kind == HISTORY_BOOT_ID) {
		snprintf(w->boot, sizeof(w->boot), "%.*s", (int)(h->boot_id.n < 63 ? h->boot_id.n : 63),
			 h->boot_id.p);
		return 0;
	}
	if (h->kind == HISTORY_END_WALL_NS) {
		w->end_ns = h->end_wall_ns;
		return 0;
	}
	if (!w->end_ns || !parse_word_is_str(h->check, w->check) ||
	    !parse_word_is_str(h->metric, w->metric))
		return 0;
	if (pts->n == pts->cap) {
		size_t nc = pts->cap ? 2 * pts->cap : 64;
		struct point *nv = realloc(pts->v, nc * sizeof(*nv));

		if (!nv)
			return -1;
		pts->v = nv;
		pts->cap = nc;
	}
	pts->v[pts->n++] = (struct point){
		.inst = h->instance.p, .inst_len = h->instance.n,
		.t = (double)(w->end_ns - w->an->start_wall_ns) / 1e9,
		.value = h->value, .when = (double)w->end_ns / 1e9,
		.bundle = w->r->path + 7,
		.same_boot = w->an->boot_id[0] && !strcmp(w->boot, w->an->boot_id),
	};
	return 0;
}

/* One "bundle:NAME" record: its points of check's metric. 0 or -1 when out of memory. */
static int history_record(struct points *pts, const struct analysis *an,
			  const struct capture_rec *r, const char *check, const char *metric)
{
	struct history_walk w = { pts, an, r, check, metric, "-", 0 };

	return parse_history_record(r->data, r->len, history_line, &w) ? -1 : 0;
}

/* By instance, then oldest first. */
static int cmp_point(const void *x, const void *y)
{
	const struct point *a = x, *b = y;
	size_t n = a->inst_len < b->inst_len ? a->inst_len : b->inst_len;
	int c = memcmp(a->inst, b->inst, n);

	if (c || a->inst_len != b->inst_len)
		return c ? c : (a->inst_len < b->inst_len ? -1 : 1);
	return a->t < b->t ? -1 : a->t > b->t;
}

/* { [instance] = { point, ... } } from the sorted points. */
static void push_points(lua_State *L, const struct points *pts)
{
	lua_newtable(L);
	for (size_t i = 0; i < pts->n; i++) {
		const struct point *q = &pts->v[i];

		if (!i || pts->v[i - 1].inst_len != q->inst_len ||
		    memcmp(pts->v[i - 1].inst, q->inst, q->inst_len)) {
			lua_newtable(L);
			lua_pushlstring(L, q->inst, q->inst_len);
			lua_pushvalue(L, -2);
			lua_rawset(L, -4);
		} else {
			lua_pushlstring(L, q->inst, q->inst_len);
			lua_rawget(L, -2);
		}
		lua_createtable(L, 0, 5);
		ctx__set_num(L, "t", q->t);
		ctx__set_num(L, "value", q->value);
		lua_pushstring(L, q->bundle);
		lua_setfield(L, -2, "bundle");
		ctx__set_num(L, "when", q->when);
		lua_pushboolean(L, q->same_boot);
		lua_setfield(L, -2, "same_boot");
		lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
		lua_pop(L, 1);
	}
}

/*
 * ctx.history(metric) -> { [instance] = { { t (seconds, negative: before this
 * window), value, bundle, when (epoch seconds), same_boot }, ... } }, or nil
 * and why (no earlier bundle of this host, or none was looked for).
 */
static int ctx_history(lua_State *L)
{
	struct analysis *an = lua_touserdata(L, lua_upvalueindex(1));
	const char *metric = luaL_checkstring(L, 1);
	const struct capture_stream *st;
	const struct capture_rec *log;
	const struct check_def *def;
	struct points pts = { 0 };

	ctx__need(L, "history", HISTORY_COLLECTOR);
	lua_getfield(L, LUA_REGISTRYINDEX, CTX_REG_CHECK);
	def = lua_touserdata(L, -1);
	lua_pop(L, 1);
	st = capture_set__stream(&an->cs, HISTORY_COLLECTOR);
	if (!st) {
		lua_pushnil(L);
		lua_pushstring(L, "no earlier bundles were looked for (this capture has no "
				  "raw/history.cap)");
		return 2;
	}
	for (size_t i = 0; i < st->n; i++)
		if (!st->rec[i].err && !strncmp(st->rec[i].path, "bundle:", 7) &&
		    history_record(&pts, an, &st->rec[i], def ? def->id : "", metric)) {
			free(pts.v);
			return luaL_error(L, "history: out of memory");
		}
	if (pts.n) {
		qsort(pts.v, pts.n, sizeof(*pts.v), cmp_point);
		push_points(L, &pts);
		free(pts.v);
		return 1;
	}
	lua_pushnil(L);
	log = capture_stream__last(st, "sonde:history");
	if (log && !log->err)
		lua_pushfstring(L, "no earlier level of %s from a bundle of this host (%s)", metric,
				strstr(log->data, "\nused ") ? "other metrics only" :
							       "none used: see raw/history.cap");
	else
		lua_pushfstring(L, "no earlier level of %s from a bundle of this host", metric);
	return 2;
}

void ctx_history__push(lua_State *L, struct analysis *an)
{
	lua_pushlightuserdata(L, an);
	lua_pushcclosure(L, ctx_history, 1);
}
