// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ctx methods through which a check reports: metrics with thresholds (the
 * runner, not the script, derives ok/warn/crit), known unknowns, culprits,
 * evidence (tables, per-second series, notes, flame graphs), a summary sentence and
 * suggested next steps. Everything a check hands over is bounded here so a
 * runaway or hostile check cannot blow up the report.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "collect/analysis.h"
#include "perf/fold.h"
#include "util/strv.h"
#include "util/units.h"
#include "lua/ctx.h"
#include "lua/sandbox.h"

#define MAX_METRICS 256
#define MAX_UNKNOWNS 64
#define MAX_CULPRITS 20
#define MAX_EVIDENCE 24
#define MAX_ROWS 100
#define MAX_COLUMNS 12
#define MAX_VALUES 4096
#define MAX_TEXT 2048
#define MAX_NEXT 10

static struct check_result *report_result(lua_State *L)
{
	return lua_touserdata(L, lua_upvalueindex(1));
}

/* A bounded copy of a string argument. */
static char *report_text_arg(lua_State *L, int idx)
{
	size_t n;
	const char *s = luaL_checklstring(L, idx, &n);
	char *d;

	if (n > MAX_TEXT)
		n = MAX_TEXT;
	d = malloc(n + 1);
	if (!d)
		luaL_error(L, "out of memory");
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

static char *report_text_field(lua_State *L, int t, const char *k)
{
	char *s = NULL;

	if (lua_getfield(L, t, k) == LUA_TSTRING)
		s = report_text_arg(L, lua_gettop(L));
	else if (!lua_isnil(L, -1))
		luaL_error(L, "field '%s' must be a string", k);
	lua_pop(L, 1);
	return s;
}

static int report_opt_number(lua_State *L, int t, const char *k, double *out)
{
	int ty = lua_getfield(L, t, k), ok = 0;

	if (ty == LUA_TNUMBER) {
		*out = lua_tonumber(L, -1);
		ok = 1;
	} else if (ty != LUA_TNIL) {
		luaL_error(L, "option '%s' must be a number", k);
	}
	lua_pop(L, 1);
	return ok;
}

/*
 * Option traced = info (a BPF tool's info, ctx.bpf): the span it traced, for the
 * report to say beside the evidence when it is part of the window. Only the numbers
 * are taken; an info without them (a bundle of an older sonde) leaves no span.
 */
static void report_span(lua_State *L, int t, struct evidence_span *sp)
{
	double from = 0, to = 0, win = 0;
	int ty = lua_getfield(L, t, "traced");

	if (ty == LUA_TNIL) {
		lua_pop(L, 1);
		return;
	}
	if (ty != LUA_TTABLE)
		luaL_error(L, "option 'traced' must be a BPF tool's info (the second value of "
			      "ctx.bpf.<tool>())");
	t = lua_gettop(L);
	if (report_opt_number(L, t, "traced_from_s", &from) &&
	    report_opt_number(L, t, "traced_to_s", &to) &&
	    report_opt_number(L, t, "window_s", &win) && isfinite(from) && isfinite(to) &&
	    isfinite(win) && win > 0 && to > from) {
		sp->set = 1;
		sp->from_s = from;
		sp->to_s = to;
		sp->window_s = win;
		lua_getfield(L, t, "drilldown");
		sp->drilldown = lua_toboolean(L, -1);
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
}

static void *report_grow(lua_State *L, void *p, size_t n, size_t size)
{
	void *np = realloc(p, (n + 1) * size);

	if (!np)
		luaL_error(L, "out of memory");
	return np;
}

/*
 * agg=, node_exporter= and help= of ctx:metric: what the metrics export says
 * of it (docs/metrics.md). A value outside the vocabulary is the check's
 * mistake, raised like any wrong argument.
 */
static void report_metric_export(lua_State *L, struct metric *m)
{
	m->agg = report_text_field(L, 4, "agg");
	m->node_exporter = report_text_field(L, 4, "node_exporter");
	m->help = report_text_field(L, 4, "help");
	if (m->agg && !metric__agg_ok(m->agg))
		luaL_error(L, "option 'agg' must be mean, min, peak, last, total, fit or a "
			      "percentile (p50, p99, p999), not '%s'", m->agg);
	if (m->node_exporter && !metric__family_ok(m->node_exporter))
		luaL_error(L, "option 'node_exporter' must be a Prometheus family name, not '%s'",
			   m->node_exporter);
	if (m->help && strlen(m->help) > 200)
		luaL_error(L, "option 'help' is one short line (200 bytes at most)");
}

/*
 * ctx:metric(name, value [, { unit=, warn=, crit=, lower_is_worse=, instance=, over=, agg=,
 * node_exporter=, help= }])
 */
static int report_metric(lua_State *L)
{
	struct check_result *r = report_result(L);
	struct metric m = { 0 };
	double v = luaL_checknumber(L, 3);

	luaL_argcheck(L, isfinite(v), 3, "metric value must be a finite number");
	luaL_checkstring(L, 2);
	if (!lua_isnoneornil(L, 4)) {
		luaL_checktype(L, 4, LUA_TTABLE);
		m.has_warn = report_opt_number(L, 4, "warn", &m.warn);
		m.has_crit = report_opt_number(L, 4, "crit", &m.crit);
		lua_getfield(L, 4, "lower_is_worse");
		m.lower_is_worse = lua_toboolean(L, -1);
		lua_pop(L, 1);
		m.unit = report_text_field(L, 4, "unit");
		m.instance = report_text_field(L, 4, "instance");
		report_metric_export(L, &m);
		/* over = { per-interval values }: their range is the metric's noise (sonde diff) */
		if (lua_getfield(L, 4, "over") == LUA_TTABLE) {
			lua_Integer n = (lua_Integer)lua_rawlen(L, -1);

			for (lua_Integer i = 1; i <= n && i <= 100000; i++) {
				double x;

				lua_rawgeti(L, -1, i);
				x = lua_tonumber(L, -1);
				lua_pop(L, 1);
				if (!isfinite(x))
					continue;
				if (!m.has_range || x < m.range_lo)
					m.range_lo = x;
				if (!m.has_range || x > m.range_hi)
					m.range_hi = x;
				m.has_range = 1;
			}
		}
		lua_pop(L, 1);
	}
	m.value = v;
	m.st = ST_OK;
	if (m.lower_is_worse) {
		if (m.has_crit && v <= m.crit)
			m.st = ST_CRIT;
		else if (m.has_warn && v <= m.warn)
			m.st = ST_WARN;
	} else {
		if (m.has_crit && v >= m.crit)
			m.st = ST_CRIT;
		else if (m.has_warn && v >= m.warn)
			m.st = ST_WARN;
	}
	if (r->nmetrics >= MAX_METRICS) {
		/*
		 * Full (a metric per mount on a host with hundreds of them): a metric
		 * worse than one kept takes its place, so the status, derived from the
		 * metrics, never hides the one full file system behind 255 fine ones.
		 */
		size_t least = 0;

		for (size_t i = 1; i < r->nmetrics; i++)
			if (status__rank(r->metrics[i].st) < status__rank(r->metrics[least].st))
				least = i;
		if (status__rank(r->metrics[least].st) >= status__rank(m.st)) {
			free(m.unit);
			free(m.instance);
			free(m.agg);
			free(m.node_exporter);
			free(m.help);
			lua_pushstring(L, status__name(m.st));
			return 1;
		}
		m.name = report_text_arg(L, 2);
		free(r->metrics[least].name);
		free(r->metrics[least].instance);
		free(r->metrics[least].unit);
		free(r->metrics[least].agg);
		free(r->metrics[least].node_exporter);
		free(r->metrics[least].help);
		memmove(&r->metrics[least], &r->metrics[least + 1],
			(r->nmetrics - least - 1) * sizeof(*r->metrics));
		r->metrics[r->nmetrics - 1] = m;
		lua_pushstring(L, status__name(m.st));
		return 1;
	}
	m.name = report_text_arg(L, 2);
	r->metrics = report_grow(L, r->metrics, r->nmetrics, sizeof(*r->metrics));
	r->metrics[r->nmetrics++] = m;
	/* its status, decided here once: a check asks, never compares thresholds again */
	lua_pushstring(L, status__name(m.st));
	return 1;
}

/* ctx:unknown(metric, reason): this host cannot show the metric, and why. */
static int report_unknown(lua_State *L)
{
	struct check_result *r = report_result(L);
	struct unknown_metric u;

	luaL_checkstring(L, 2);
	luaL_checkstring(L, 3);
	if (r->nunknowns >= MAX_UNKNOWNS)
		return 0;
	u.name = report_text_arg(L, 2);
	u.reason = report_text_arg(L, 3);
	r->unknowns = report_grow(L, r->unknowns, r->nunknowns, sizeof(*r->unknowns));
	r->unknowns[r->nunknowns++] = u;
	return 0;
}

/*
 * ctx:not_applicable(metric, reason [, { instance = }]): the metric does not
 * apply there (a virtual link has no line rate), which is a fact, not something
 * this host failed to show. Without an instance, the check's whole cell.
 */
static int report_not_applicable(lua_State *L)
{
	struct check_result *r = report_result(L);
	struct na_metric na = { 0 };

	luaL_checkstring(L, 2);
	luaL_checkstring(L, 3);
	if (r->nnas >= MAX_UNKNOWNS)
		return 0;
	if (!lua_isnoneornil(L, 4)) {
		luaL_checktype(L, 4, LUA_TTABLE);
		na.instance = report_text_field(L, 4, "instance");
	}
	na.name = report_text_arg(L, 2);
	na.reason = report_text_arg(L, 3);
	r->nas = report_grow(L, r->nas, r->nnas, sizeof(*r->nas));
	r->nas[r->nnas++] = na;
	return 0;
}

/* ctx:culprit{ pid =, comm =, share = [, cmdline =, kernel_thread = ] } */
static int report_culprit(lua_State *L)
{
	struct check_result *r = report_result(L);
	struct culprit c = { 0 };
	double share = 0, pid = 0;

	luaL_checktype(L, 2, LUA_TTABLE);
	if (r->nculprits >= MAX_CULPRITS)
		return 0;
	if (!report_opt_number(L, 2, "pid", &pid) || pid < 0 || pid > 1e9)
		return luaL_argerror(L, 2, "culprit needs a pid");
	/* sonde is never its own culprit: its cost is one line of the report's appendix */
	if (pid > 0 && (int)pid == ctx__analysis(L)->sonde_pid)
		return 0;
	report_opt_number(L, 2, "share", &share);
	c.pid = (int)pid;
	c.share = isfinite(share) ? share : 0;
	c.comm = report_text_field(L, 2, "comm");
	c.cmdline = report_text_field(L, 2, "cmdline");
	lua_getfield(L, 2, "kernel_thread");
	c.kernel_thread = lua_toboolean(L, -1);
	lua_pop(L, 1);
	if (!c.comm)
		c.comm = strdup("?");
	r->culprits = report_grow(L, r->culprits, r->nculprits, sizeof(*r->culprits));
	r->culprits[r->nculprits++] = c;
	return 0;
}

static int report_summary(lua_State *L)
{
	struct check_result *r = report_result(L);

	free(r->summary);
	r->summary = report_text_arg(L, 2);
	return 0;
}

static int report_next(lua_State *L)
{
	struct check_result *r = report_result(L);

	if (r->next.n < MAX_NEXT) {
		char *s = report_text_arg(L, 2);
		int rc = strv__push(&r->next, s);

		free(s);
		if (rc)
			return luaL_error(L, "not enough memory");
	}
	return 0;
}

static struct evidence *report_new_evidence(lua_State *L, struct check_result *r,
						enum evidence_kind k)
{
	struct evidence *e;

	if (r->nevidence >= MAX_EVIDENCE)
		return NULL;
	r->evidence = report_grow(L, r->evidence, r->nevidence, sizeof(*r->evidence));
	e = &r->evidence[r->nevidence++];
	memset(e, 0, sizeof(*e));
	e->kind = k;
	return e;
}

/*
 * A table or bars given more than MAX_ROWS rows keep the first MAX_ROWS, and a
 * note beside them says so: the rows past the cap must not vanish unsaid (a
 * per-CPU table of 192 CPUs lost cpu100 to cpu191 that way).
 */
static void report_cut_note(lua_State *L, struct check_result *r, const char *title,
			    lua_Integer given)
{
	char buf[MAX_TEXT];
	struct evidence *n;

	/* formatted first: the new evidence may move r->evidence, and the table with it */
	snprintf(buf, sizeof(buf), "%s: the first %d of %lld rows (a table keeps at most %d)",
		 title ? title : "table", MAX_ROWS, (long long)given, MAX_ROWS);
	n = report_new_evidence(L, r, EV_NOTE);
	if (n && !(n->title = strdup(buf)))
		luaL_error(L, "out of memory");
}

/* A cell: strings as they are, numbers formatted compactly, booleans as yes/no. */
static char *report_cell_text(lua_State *L, int idx)
{
	char buf[64];

	switch (lua_type(L, idx)) {
	case LUA_TNUMBER:
		if (lua_isinteger(L, idx))
			snprintf(buf, sizeof(buf), "%lld", (long long)lua_tointeger(L, idx));
		else
			units__num(buf, sizeof(buf), lua_tonumber(L, idx));
		return strdup(buf);
	case LUA_TSTRING:
		return report_text_arg(L, idx);
	case LUA_TBOOLEAN:
		return strdup(lua_toboolean(L, idx) ? "yes" : "no");
	case LUA_TNIL:
		return strdup("");
	default:
		luaL_error(L, "table cell must be a string, number or boolean");
		return NULL;
	}
}

/*
 * code = { "function", ... }: the columns, by name, whose cells are symbols
 * (functions, stacks): shown as code, never as Markdown to escape.
 */
static uint32_t report_code_columns(lua_State *L, int idx, const struct evidence *e)
{
	uint32_t bits = 0;

	if (lua_getfield(L, idx, "code") == LUA_TNIL) {
		lua_pop(L, 1);
		return 0;
	}
	if (!lua_istable(L, -1))
		luaL_argerror(L, idx, "table's code must be a list of column names");
	for (lua_Integer i = 1; lua_rawgeti(L, -1, i) != LUA_TNIL; i++) {
		const char *name = lua_tostring(L, -1);
		size_t c = 0;

		while (name && c < e->columns.n && strcmp(e->columns.v[c], name))
			c++;
		if (!name || c == e->columns.n)
			luaL_error(L, "table's code names \"%s\", not one of its columns",
				   name ? name : "?");
		bits |= 1u << c;
		lua_pop(L, 1);
	}
	lua_pop(L, 2);
	return bits;
}

/*
 * ctx:table{ title =, columns = { ... }, rows = { { ... }, ... } [, code = { column, ... }]
 * [, traced = info] }
 */
static int report_table(lua_State *L)
{
	struct check_result *r = report_result(L);
	struct evidence *e;
	lua_Integer ncol, nrow, given;

	luaL_checktype(L, 2, LUA_TTABLE);
	if (lua_getfield(L, 2, "columns") != LUA_TTABLE)
		return luaL_argerror(L, 2, "table needs columns = { ... }");
	if (lua_getfield(L, 2, "rows") != LUA_TTABLE)
		return luaL_argerror(L, 2, "table needs rows = { { ... }, ... }");
	e = report_new_evidence(L, r, EV_TABLE);
	if (!e)
		return 0;
	e->title = report_text_field(L, 2, "title");
	report_span(L, 2, &e->span);
	ncol = (lua_Integer)lua_rawlen(L, -2);
	if (ncol > MAX_COLUMNS)
		ncol = MAX_COLUMNS;
	for (lua_Integer c = 1; c <= ncol; c++) {
		char *s;

		lua_rawgeti(L, -2, c);
		s = report_cell_text(L, -1);
		if (strv__push(&e->columns, s)) {
			free(s);
			return luaL_error(L, "not enough memory");
		}
		free(s);
		lua_pop(L, 1);
	}
	e->code_cols = report_code_columns(L, 2, e);
	given = nrow = (lua_Integer)lua_rawlen(L, -1);
	if (nrow > MAX_ROWS)
		nrow = MAX_ROWS;
	e->rows = calloc((size_t)nrow + 1, sizeof(*e->rows));
	if (!e->rows)
		return luaL_error(L, "out of memory");
	for (lua_Integer i = 1; i <= nrow; i++) {
		char **row = calloc(e->columns.n + 1, sizeof(*row));

		if (!row)
			return luaL_error(L, "out of memory");
		e->rows[e->nrows++] = row;
		if (lua_rawgeti(L, -1, i) != LUA_TTABLE)
			return luaL_error(L, "table row %d is not a list", (int)i);
		for (size_t c = 0; c < e->columns.n; c++) {
			lua_rawgeti(L, -1, (lua_Integer)c + 1);
			row[c] = report_cell_text(L, -1);
			lua_pop(L, 1);
		}
		lua_pop(L, 1);
	}
	lua_pop(L, 2);
	if (given > MAX_ROWS)
		report_cut_note(L, r, e->title, given);
	return 0;
}

#define MAX_BAR_CATEGORIES 16

/*
 * ctx:bars{ title =, unit =, label =, categories = { ... }, rows = { { label =,
 * values = { ... } }, ... } }: a stacked bar per row (each row's values are
 * its shares of 100, one per category), drawn in HTML, a table elsewhere.
 */
static int report_bars(lua_State *L)
{
	struct check_result *r = report_result(L);
	struct evidence *e;
	char *label;
	lua_Integer ncat, nrow, given;

	luaL_checktype(L, 2, LUA_TTABLE);
	if (lua_getfield(L, 2, "categories") != LUA_TTABLE)
		return luaL_argerror(L, 2, "bars need categories = { ... }");
	if (lua_getfield(L, 2, "rows") != LUA_TTABLE)
		return luaL_argerror(L, 2, "bars need rows = { { label =, values = { ... } }, ... }");
	ncat = (lua_Integer)lua_rawlen(L, -2);
	if (ncat < 1 || ncat > MAX_BAR_CATEGORIES)
		return luaL_argerror(L, 2, "bars need 1 to 16 categories");
	e = report_new_evidence(L, r, EV_BARS);
	if (!e)
		return 0;
	e->title = report_text_field(L, 2, "title");
	e->unit = report_text_field(L, 2, "unit");
	label = report_text_field(L, 2, "label");
	if (strv__push(&e->columns, label ? label : "")) {
		free(label);
		return luaL_error(L, "not enough memory");
	}
	free(label);
	for (lua_Integer c = 1; c <= ncat; c++) {
		char *s;

		lua_rawgeti(L, -2, c);
		s = report_cell_text(L, -1);
		lua_pop(L, 1);
		if (strv__push(&e->columns, s)) {
			free(s);
			return luaL_error(L, "not enough memory");
		}
		free(s);
	}
	given = nrow = (lua_Integer)lua_rawlen(L, -1);
	if (nrow > MAX_ROWS)
		nrow = MAX_ROWS;
	e->rows = calloc((size_t)nrow + 1, sizeof(*e->rows));
	e->values = calloc((size_t)(nrow * ncat) + 1, sizeof(*e->values));
	if (!e->rows || !e->values)
		return luaL_error(L, "out of memory");
	for (lua_Integer i = 1; i <= nrow; i++) {
		char **row = calloc((size_t)ncat + 2, sizeof(*row)), buf[32];

		if (!row)
			return luaL_error(L, "out of memory");
		e->rows[e->nrows++] = row;
		if (lua_rawgeti(L, -1, i) != LUA_TTABLE || lua_getfield(L, -1, "values") != LUA_TTABLE)
			return luaL_error(L, "bars row %d needs values = { ... }", (int)i);
		row[0] = report_text_field(L, -2, "label");
		if (!row[0])
			row[0] = strdup("");
		for (lua_Integer c = 1; c <= ncat; c++) {
			double v;

			lua_rawgeti(L, -1, c);
			v = lua_tonumber(L, -1);
			lua_pop(L, 1);
			if (!isfinite(v) || v < 0)
				return luaL_error(L, "bars row %d value %d must be a number from 0", (int)i,
						  (int)c);
			e->values[e->nvalues++] = v;
			snprintf(buf, sizeof(buf), "%.0f%s", v, e->unit ? e->unit : "");
			row[c] = strdup(buf);
		}
		lua_pop(L, 2);
	}
	lua_pop(L, 2);
	if (given > MAX_ROWS)
		report_cut_note(L, r, e->title, given);
	return 0;
}

/* ctx:series(title, { v1, v2, ... } [, { unit =, step = seconds, traced = info }]): a chart */
static int report_series(lua_State *L)
{
	struct check_result *r = report_result(L);
	struct evidence *e;
	lua_Integer n;

	luaL_checkstring(L, 2);
	luaL_checktype(L, 3, LUA_TTABLE);
	e = report_new_evidence(L, r, EV_SERIES);
	if (!e)
		return 0;
	e->title = report_text_arg(L, 2);
	e->step_s = 1;
	if (lua_istable(L, 4)) {
		e->unit = report_text_field(L, 4, "unit");
		report_opt_number(L, 4, "step", &e->step_s);
		report_span(L, 4, &e->span);
	}
	n = (lua_Integer)lua_rawlen(L, 3);
	if (n > MAX_VALUES)
		n = MAX_VALUES;
	e->values = calloc((size_t)n + 1, sizeof(double));
	if (!e->values)
		return luaL_error(L, "out of memory");
	for (lua_Integer i = 1; i <= n; i++) {
		lua_rawgeti(L, 3, i);
		e->values[e->nvalues++] = lua_isnumber(L, -1) ? lua_tonumber(L, -1) : NAN;
		lua_pop(L, 1);
	}
	return 0;
}

static int report_note(lua_State *L)
{
	struct check_result *r = report_result(L);
	struct evidence *e = report_new_evidence(L, r, EV_NOTE);

	if (e)
		e->title = report_text_arg(L, 2);
	return 0;
}

/*
 * ctx:flamegraph{ title =, folded = "a;b;c 12\n..." or { "a;b;c 12", ... },
 *                 unit = "samples" | "us" [, traced = info] }
 * Folded stacks, root first; bounded and merged in perf/fold.c. Input
 * is checked before anything is allocated in C, and the C side raises only
 * after freeing, so an error never leaks the builder.
 */
static int report_flamegraph(lua_State *L)
{
	struct check_result *r = report_result(L);
	struct fold *f = NULL;
	struct evidence *e;
	char err[160] = "";
	char *title, *unit;
	int ty, rc = 0;
	lua_Integer n = 0;
	struct evidence_span sp = { 0 };

	luaL_checktype(L, 2, LUA_TTABLE);
	report_span(L, 2, &sp); /* before anything is allocated: a bad option raises */
	ty = lua_getfield(L, 2, "folded");
	if (ty == LUA_TTABLE) {
		n = (lua_Integer)lua_rawlen(L, -1);
		for (lua_Integer i = 1; i <= n; i++) {
			if (lua_rawgeti(L, -1, i) != LUA_TSTRING)
				return luaL_error(L, "flamegraph folded[%d] must be a string", (int)i);
			lua_pop(L, 1);
		}
	} else if (ty != LUA_TSTRING) {
		return luaL_argerror(L, 2, "flamegraph needs folded = \"a;b;c 12\n...\" or a list");
	}
	unit = report_text_field(L, 2, "unit");
	if (unit && strcmp(unit, "samples") && strcmp(unit, "us")) {
		free(unit);
		return luaL_argerror(L, 2, "flamegraph unit must be \"samples\" or \"us\"");
	}
	title = report_text_field(L, 2, "title");
	f = fold__new();
	if (!f) {
		rc = -1;
		snprintf(err, sizeof(err), "out of memory");
	} else if (ty == LUA_TSTRING) {
		size_t len;
		const char *s = lua_tolstring(L, -1, &len);

		rc = fold__text(f, s, len, err, sizeof(err));
	} else {
		for (lua_Integer i = 1; i <= n && !rc; i++) {
			size_t len;
			const char *s;

			lua_rawgeti(L, -1, i);
			s = lua_tolstring(L, -1, &len);
			rc = fold__text(f, s, len, err, sizeof(err));
			lua_pop(L, 1);
		}
	}
	lua_pop(L, 1);
	e = rc ? NULL : report_new_evidence(L, r, EV_FLAMEGRAPH);
	if (e) {
		e->span = sp;
		e->title = title;
		e->unit = unit ? unit : strdup("samples");
		title = unit = NULL;
		if (fold__finish(f, &e->fg)) {
			rc = -1;
			snprintf(err, sizeof(err), "out of memory");
		}
	}
	free(title);
	free(unit);
	fold__free(f);
	if (rc)
		return luaL_error(L, "flamegraph: %s", err);
	return 0;
}

/* ctx:heatmap(title, iv [, { traced = info }]): latency or subsecond offsets (ctx_heat.c) */
static int report_heatmap(lua_State *L)
{
	struct check_result *r = report_result(L);
	struct evidence_span sp = { 0 };
	struct evidence *e;
	char err[200];

	luaL_checkstring(L, 2);
	if (!lua_isnoneornil(L, 4)) {
		luaL_checktype(L, 4, LUA_TTABLE);
		report_span(L, 4, &sp);
	}
	e = report_new_evidence(L, r, EV_HEATMAP);
	if (!e)
		return 0;
	if (ctx_heat__read(L, 3, e, err, sizeof(err))) {
		/* not kept: a check that catches the error reports on without it */
		free(e->unit);
		free(e->values);
		r->nevidence--;
		return luaL_error(L, "%s", err);
	}
	e->title = report_text_arg(L, 2);
	e->span = sp;
	return 0;
}

static const luaL_Reg report_methods[] = {
	{ "metric", report_metric }, { "unknown", report_unknown }, { "culprit", report_culprit },
	{ "not_applicable", report_not_applicable },
	{ "summary", report_summary }, { "next", report_next },     { "table", report_table },
	{ "series", report_series }, { "note", report_note },       { "flamegraph", report_flamegraph },
	{ "heatmap", report_heatmap },
	{ "bars", report_bars },
	{ NULL, NULL },
};

void ctx_report__set_methods(lua_State *L, struct check_result *res)
{
	lua_createtable(L, 0, 2); /* metatable: the report methods */
	luaL_newlibtable(L, report_methods);
	lua_pushlightuserdata(L, res);
	luaL_setfuncs(L, report_methods, 1);
	lua_setfield(L, -2, "__index");
	lua_pushstring(L, "ctx");
	lua_setfield(L, -2, "__metatable");
	lua_setmetatable(L, -2);
}
