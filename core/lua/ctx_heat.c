// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ctx:heatmap(title, iv): a heat map over the window from a table a check
 * hands over, checked here before the report sees it. Two shapes:
 *
 *   latency (a BPF tool's "intervals", docs/bpf-tools.md):
 *     { interval_ms = 200, unit = "us" | "ns", counts = { { c0, c1, ... }, ... } }
 *     counts[i][s]: events of interval i in the log2 slot s, [2^s, 2^(s+1)) units
 *   subsecond offsets (the profile's "subsecond"):
 *     { interval_ms = 1000, row_ms = 50, unit = "samples" | "%", counts = { { ... }, ... } }
 *     counts[i][r]: busy samples (or their share of the samples, in %) of
 *     second i whose offset in the second is in [r * row_ms, (r + 1) * row_ms)
 *
 * Rows may be ragged (short ones are padded with zeros: the BPF tools cut
 * trailing empty slots). Counts are whole numbers from 0 to 2^64; anything
 * else is refused with a one-line reason naming the element.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "lua/ctx.h"

#define HEAT_MAX_MS 86400000 /* an interval of one day at most */

/* A one-line reason into err; the value the readers return on it. */
#define HEAT_FAIL(...) (snprintf(err, errlen, __VA_ARGS__), -1)

/* t[k] as a whole number from lo to hi into *v: 0, 1 when absent, -1 when not one. */
static int heat_int_field(lua_State *L, int t, const char *k, lua_Integer lo, lua_Integer hi,
			  lua_Integer *v)
{
	int ty = lua_getfield(L, t, k), isnum = 0;
	lua_Integer x = 0;

	if (ty == LUA_TNIL) {
		lua_pop(L, 1);
		return 1;
	}
	if (ty == LUA_TNUMBER)
		x = lua_tointegerx(L, -1, &isnum);
	lua_pop(L, 1);
	if (!isnum || x < lo || x > hi)
		return -1;
	*v = x;
	return 0;
}

/* The count at the top of the stack: 0 with *v, or -1. */
static int heat_count(lua_State *L, double *v)
{
	double x;

	if (lua_type(L, -1) != LUA_TNUMBER)
		return -1;
	x = lua_tonumber(L, -1);
	if (!isfinite(x) || x < 0 || x != floor(x) || x > 18446744073709551616.0)
		return -1;
	*v = x;
	return 0;
}

/* Check counts (at the top) and find its size: columns and the longest row. */
static int heat_size(lua_State *L, size_t maxrows, size_t *ncols, size_t *nrows, char *err,
		     size_t errlen)
{
	lua_Integer n = (lua_Integer)lua_rawlen(L, -1);

	if (n > HEAT_MAX_COLS)
		return HEAT_FAIL("heatmap: counts has %lld intervals, at most %d", (long long)n,
				 HEAT_MAX_COLS);
	*ncols = (size_t)n;
	*nrows = 0;
	for (lua_Integer i = 1; i <= n; i++) {
		lua_Integer len;

		if (lua_rawgeti(L, -1, i) != LUA_TTABLE) {
			lua_pop(L, 1);
			return HEAT_FAIL("heatmap: counts[%lld] must be a list of counts",
					 (long long)i);
		}
		len = (lua_Integer)lua_rawlen(L, -1);
		if (len > (lua_Integer)maxrows) {
			lua_pop(L, 1);
			return HEAT_FAIL("heatmap: counts[%lld] has more than %zu buckets",
					 (long long)i, maxrows);
		}
		for (lua_Integer s = 1; s <= len; s++) {
			double v;
			int bad;

			lua_rawgeti(L, -1, s);
			bad = heat_count(L, &v);
			lua_pop(L, 1);
			if (bad) {
				lua_pop(L, 1);
				snprintf(err, errlen,
					 "heatmap: counts[%lld][%lld] must be a whole number from 0 "
					 "to 2^64",
					 (long long)i, (long long)s);
				return -1;
			}
		}
		if ((size_t)len > *nrows)
			*nrows = (size_t)len;
		lua_pop(L, 1);
	}
	return 0;
}

int ctx_heat__read(lua_State *L, int idx, struct evidence *e, char *err, size_t errlen)
{
	lua_Integer iv_ms = 0, row_ms = 0;
	size_t ncols, nrows, maxrows = HEAT_MAX_ROWS;
	const char *unit;
	int rc;

	idx = lua_absindex(L, idx);
	if (!lua_istable(L, idx)) {
		snprintf(err, errlen, "heatmap needs { interval_ms =, unit =, counts = { ... } }");
		return -1;
	}
	if (heat_int_field(L, idx, "interval_ms", 1, HEAT_MAX_MS, &iv_ms))
		return HEAT_FAIL("heatmap: interval_ms must be a whole number of milliseconds "
				 "from 1 to %d",
				 HEAT_MAX_MS);
	rc = heat_int_field(L, idx, "row_ms", 1, 1000, &row_ms);
	if (rc < 0)
		return HEAT_FAIL("heatmap: row_ms must be a whole number of milliseconds from 1 "
				 "to 1000");
	lua_getfield(L, idx, "unit");
	unit = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
	if (row_ms) {
		if (strcmp(unit, "samples") && strcmp(unit, "%")) {
			lua_pop(L, 1);
			snprintf(err, errlen,
				 "heatmap: a map with row_ms counts unit = \"samples\" or \"%%\"");
			return -1;
		}
		if (iv_ms % 1000 || 1000 % row_ms) {
			lua_pop(L, 1);
			snprintf(err, errlen,
				 "heatmap: subsecond offsets need whole seconds (interval_ms) and a "
				 "row_ms that divides 1000");
			return -1;
		}
		maxrows = (size_t)(1000 / row_ms);
	} else if (strcmp(unit, "us") && strcmp(unit, "ns")) {
		lua_pop(L, 1);
		snprintf(err, errlen, "heatmap: unit must be \"us\" or \"ns\" (latency), or "
				      "\"samples\" or \"%%\" with row_ms");
		return -1;
	}
	e->unit = strdup(unit);
	lua_pop(L, 1);
	if (!e->unit) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (lua_getfield(L, idx, "counts") != LUA_TTABLE) {
		lua_pop(L, 1);
		snprintf(err, errlen, "heatmap: counts must be a list of lists of counts");
		return -1;
	}
	if (heat_size(L, maxrows, &ncols, &nrows, err, errlen)) {
		lua_pop(L, 1);
		return -1;
	}
	e->step_s = (double)iv_ms / 1e3;
	e->hm_row_ms = (double)row_ms;
	e->hm_rows = row_ms ? maxrows : nrows;
	e->values = calloc(ncols * e->hm_rows + 1, sizeof(double));
	if (!e->values) {
		lua_pop(L, 1);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	e->nvalues = ncols * e->hm_rows;
	for (size_t c = 0; c < ncols; c++) {
		lua_Integer len;

		lua_rawgeti(L, -1, (lua_Integer)c + 1);
		len = (lua_Integer)lua_rawlen(L, -1);
		for (lua_Integer s = 1; s <= len; s++) {
			lua_rawgeti(L, -1, s);
			e->values[c * e->hm_rows + (size_t)(s - 1)] = lua_tonumber(L, -1);
			lua_pop(L, 1);
		}
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
	return 0;
}
