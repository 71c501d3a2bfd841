// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Heat maps over the window (issue 13): ctx:heatmap's reader (core/lua/
 * ctx_heat.c) on good and bad tables (wrong types, ragged rows, huge and
 * impossible counts, sizes past the bounds), the evidence's wire form, the
 * document block and its renderings (core/report/heat.c, chart.c, markdown.c),
 * and the BPF side's interval plan and JSON (core/trace/maps.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "lua/ctx.h"
#include "lua/result.h"
#include "report/chart.h"
#include "report/doc.h"
#include "report/model.h"
#include "trace/maps.h"
#include "util/json.h"
#include "tap.h"

/* Evaluate "return <expr>" and read its value as a heat map: 0 or -1 with err. */
static int read_expr(lua_State *L, const char *expr, struct evidence *e, char *err, size_t n)
{
	char code[8192];
	int rc, top = lua_gettop(L);

	memset(e, 0, sizeof(*e));
	e->kind = EV_HEATMAP;
	snprintf(code, sizeof(code), "return %s", expr);
	if (luaL_dostring(L, code)) {
		snprintf(err, n, "lua: %s", lua_tostring(L, -1));
		lua_settop(L, top);
		return -2;
	}
	rc = ctx_heat__read(L, -1, e, err, n);
	ok(lua_gettop(L) == top + 1, "the reader leaves the stack as it found it (%s)", expr);
	lua_settop(L, top);
	return rc;
}

static void clear(struct evidence *e)
{
	free(e->unit);
	free(e->values);
	memset(e, 0, sizeof(*e));
}

static void test_good(lua_State *L)
{
	struct evidence e;
	char err[256] = "";

	is_int(read_expr(L, "{ interval_ms = 200, unit = 'us', counts = { {1, 2, 3}, {}, {0, 5} } }",
			 &e, err, sizeof(err)),
	       0, "a latency map reads (%s)", err);
	is_int(e.hm_rows, 3, "rows: the longest column");
	is_int(e.nvalues, 9, "3 columns of 3");
	ok(e.values[0] == 1 && e.values[2] == 3 && e.values[3] == 0 && e.values[5] == 0 &&
		   e.values[7] == 5 && e.values[8] == 0,
	   "ragged rows are padded with zeros, column after column");
	ok(fabs(e.step_s - 0.2) < 1e-12 && e.hm_row_ms == 0, "interval 0.2 s, a latency map");
	is_str(e.unit, "us", "unit kept");
	clear(&e);

	is_int(read_expr(L, "{ interval_ms = 1000, unit = 'ns', counts = { { 18446744073709551615 } } }",
			 &e, err, sizeof(err)),
	       0, "a count near 2^64 (a u64 counter) is a count (%s)", err);
	ok(e.values[0] > 1.8e19, "kept as a double");
	clear(&e);

	is_int(read_expr(L, "{ interval_ms = 1000, row_ms = 50, unit = '%', counts = { {100, 0, 7} } }",
			 &e, err, sizeof(err)),
	       0, "a subsecond map reads (%s)", err);
	is_int(e.hm_rows, 20, "every offset row of the second: 1000 / 50");
	ok(e.hm_row_ms == 50 && e.values[0] == 100 && e.values[2] == 7 && e.values[19] == 0,
	   "offsets padded to the whole second");
	clear(&e);

	is_int(read_expr(L, "{ interval_ms = 100, unit = 'us', counts = {} }", &e, err, sizeof(err)),
	       0, "no interval at all is a map with no data");
	is_int(e.nvalues, 0, "no value");
	clear(&e);
}

static void test_bad(lua_State *L)
{
	static const struct {
		const char *expr, *want;
	} cases[] = {
		{ "42", "heatmap needs { interval_ms =, unit =, counts = { ... } }" },
		{ "{ unit = 'us', counts = {} }", "interval_ms must be a whole number" },
		{ "{ interval_ms = '200', unit = 'us', counts = {} }", "interval_ms must be a whole" },
		{ "{ interval_ms = 0.5, unit = 'us', counts = {} }", "interval_ms must be a whole" },
		{ "{ interval_ms = 0, unit = 'us', counts = {} }", "interval_ms must be a whole" },
		{ "{ interval_ms = 100, unit = 'ms', counts = {} }", "unit must be \"us\" or \"ns\"" },
		{ "{ interval_ms = 100, counts = {} }", "unit must be" },
		{ "{ interval_ms = 100, unit = 'us' }", "counts must be a list of lists" },
		{ "{ interval_ms = 100, unit = 'us', counts = 'x' }", "counts must be a list of lists" },
		{ "{ interval_ms = 100, unit = 'us', counts = { 1, 2 } }",
		  "counts[1] must be a list of counts" },
		{ "{ interval_ms = 100, unit = 'us', counts = { {1}, {2, 'x'} } }",
		  "counts[2][2] must be a whole number from 0 to 2^64" },
		{ "{ interval_ms = 100, unit = 'us', counts = { {-1} } }", "counts[1][1] must be" },
		{ "{ interval_ms = 100, unit = 'us', counts = { {1.5} } }", "counts[1][1] must be" },
		{ "{ interval_ms = 100, unit = 'us', counts = { {0/0} } }", "counts[1][1] must be" },
		{ "{ interval_ms = 100, unit = 'us', counts = { {math.huge} } }", "counts[1][1] must be" },
		{ "{ interval_ms = 100, unit = 'us', counts = { {1e30} } }", "counts[1][1] must be" },
		{ "{ interval_ms = 100, unit = 'us', counts = { {true} } }", "counts[1][1] must be" },
		{ "{ interval_ms = 100, unit = 'us', counts = { (function() local t = {} for i = 1, 65 do t[i] = 1 end return t end)() } }",
		  "counts[1] has more than 64 buckets" },
		{ "{ interval_ms = 100, unit = 'us', counts = (function() local t = {} for i = 1, 257 do t[i] = {} end return t end)() }",
		  "counts has 257 intervals, at most 256" },
		{ "{ interval_ms = 1000, row_ms = 50, unit = 'us', counts = {} }",
		  "a map with row_ms counts unit = \"samples\" or \"%\"" },
		{ "{ interval_ms = 1000, row_ms = 30, unit = 'samples', counts = {} }",
		  "row_ms that divides 1000" },
		{ "{ interval_ms = 1500, row_ms = 50, unit = 'samples', counts = {} }",
		  "subsecond offsets need whole seconds" },
		{ "{ interval_ms = 1000, row_ms = 0, unit = 'samples', counts = {} }",
		  "row_ms must be a whole number" },
		{ "{ interval_ms = 1000, row_ms = 50, unit = 'samples', counts = { {1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1} } }",
		  "counts[1] has more than 20 buckets" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct evidence e;
		char err[256] = "";
		int rc = read_expr(L, cases[i].expr, &e, err, sizeof(err));

		ok(rc == -1 && strstr(err, cases[i].want) && !strchr(err, '\n'),
		   "refused with one line: %s", cases[i].want);
		if (rc != -1 || !strstr(err, cases[i].want))
			printf("#   got %d '%s'\n", rc, err);
		clear(&e);
	}
}

/* The evidence through the pipe from the check's child, and a corrupt one refused. */
static void test_wire(void)
{
	double v[6] = { 1, 2, 3, 4, 5, 6 };
	struct evidence ev = { .kind = EV_HEATMAP, .title = "t", .unit = "us", .values = v,
			       .nvalues = 6, .step_s = 0.2, .hm_rows = 3 };
	struct check_result r = { .st = ST_OK, .evidence = &ev, .nevidence = 1 }, back;
	struct strbuf sb = { 0 };

	check_result__encode(&r, &sb);
	is_int(check_result__decode(&back, sb.buf, sb.len), 0, "a heat map decodes");
	ok(back.nevidence == 1 && back.evidence[0].kind == EV_HEATMAP &&
		   back.evidence[0].hm_rows == 3 && back.evidence[0].nvalues == 6 &&
		   back.evidence[0].values[5] == 6 && fabs(back.evidence[0].step_s - 0.2) < 1e-12,
	   "rows, counts and interval come back");
	check_result__free(&back);
	strbuf__free(&sb);

	ev.hm_rows = 4; /* 6 values are not whole columns of 4 */
	check_result__encode(&r, &sb);
	ok(check_result__decode(&back, sb.buf, sb.len) < 0, "counts not in whole columns: refused");
	strbuf__free(&sb);
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (const char *p = s; p && (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

static void test_render(void)
{
	double *v = calloc(50 * 4, sizeof(*v));
	struct evidence ev = { .kind = EV_HEATMAP, .title = "Run <queue>", .unit = "us",
			       .values = v, .nvalues = 50 * 4, .step_s = 0.2, .hm_rows = 4 };
	struct strbuf html = { 0 }, md = { 0 };
	struct doc d;

	/* 50 intervals; slot 1 (2-4 us) always, slot 3 (8-16 us) once: one outlier */
	for (size_t c = 0; c < 50; c++)
		v[c * 4 + 1] = 1000;
	v[7 * 4 + 3] = 1;
	doc__init(&d, "t");
	report__doc_heatmap(&d, &ev);
	ok(!d.oom && d.n == 1 && d.v[0]->kind == BLOCK_HEATMAP && d.v[0]->hm, "one HEATMAP block");
	if (d.n == 1 && d.v[0]->hm) {
		const struct heatmap *hm = d.v[0]->hm;

		is_int(hm->ncols, 10, "50 intervals drawn as 10 columns (5 summed each)");
		is_int(hm->nrows, 3, "rows from the first bucket with a count to the last (2-4 .. 8-16 us)");
		is_str(hm->rows[0], "2-4 us", "a bucket's name, one unit for both ends");
		is_str(hm->cols[0], "0-1 s", "a column's span");
		ok(hm->counts[0] == 5000 && hm->counts[1 * 3 + 2] == 1, "counts summed per column");
		ok(hm->log_scale && hm->compact, "log colours, compact cells");
	}
	doc__finish(&d);
	doc__html(&d, &html);
	doc__markdown(&d, &md);
	ok(html.buf && count(html.buf, "<use href=\"#hm") == 11, "a <use> per cell with a count (10 + the outlier)");
	ok(html.buf && count(html.buf, "<g transform=\"translate(") == 10, "a group per column");
	ok(html.buf && strstr(html.buf, "<title>1-2 s \xc2\xb7 8-16 us: 1</title>"),
	   "the outlier's tooltip: interval, bucket, count");
	ok(html.buf && !strstr(html.buf, "<queue>") && strstr(html.buf, "Run &lt;queue&gt;"),
	   "the title is escaped");
	ok(html.buf && !strstr(html.buf, "<script"), "no script");
	ok(html.buf && strstr(html.buf, "<rect id=\"hm1-2\" width=\"28\" height=\"14\" fill=\"#fed976\"/>") &&
		   strstr(html.buf, "<g transform=\"translate(120)\"><use href=\"#hm1-8\" y=\"34\">") &&
		   strstr(html.buf, "<use href=\"#hm1-2\" y=\"6\">"),
	   "the one outlier (1 among 5000) is a clear colour, not the palest: log scale");
	ok(md.buf && strstr(md.buf, "| time in the window | events | p50 | p99 | max |"),
	   "report.md: the quantile table");
	ok(md.buf && strstr(md.buf, "| 1-2 s | 5001 | 2-4 us | 2-4 us | 8-16 us |"),
	   "report.md: count, p50, p99, max of a column");
	doc__free(&d);
	strbuf__free(&html);
	strbuf__free(&md);

	/* all zero: "no data", no error */
	memset(v, 0, 50 * 4 * sizeof(*v));
	doc__init(&d, "t");
	report__doc_heatmap(&d, &ev);
	doc__finish(&d);
	html.len = 0;
	doc__html(&d, &html);
	ok(html.buf && strstr(html.buf, "heatmap-none\">no data"), "a map without a count says no data");
	doc__free(&d);
	strbuf__free(&html);

	/* a subsecond map: rows of the second, mean % per row in report.md */
	ev.unit = "%";
	ev.hm_row_ms = 50;
	ev.hm_rows = 20;
	ev.nvalues = 2 * 20;
	ev.step_s = 1;
	v[0] = 100;
	v[20] = 50;
	doc__init(&d, "t");
	report__doc_heatmap(&d, &ev);
	doc__finish(&d);
	md.len = 0;
	doc__markdown(&d, &md);
	ok(md.buf && strstr(md.buf, "| 0-50 ms | 75 | ##############################"),
	   "report.md: an offset row's mean share with its bar");
	ok(md.buf && strstr(md.buf, "| 950-1000 ms | 0 |"), "every row of the second");
	if (d.n == 1 && d.v[0]->hm)
		is_str(d.v[0]->hm->cols[1], "1 s", "a column is a second");
	doc__free(&d);
	strbuf__free(&md);
	free(v);
}

/* sonde diff: an old and a new map side by side, on one range of rows. */
static void test_pair(void)
{
	double va[2 * 8] = { 0 }, vb[3 * 12] = { 0 };
	struct evidence a = { .kind = EV_HEATMAP, .title = "disk", .unit = "us", .values = va,
			      .nvalues = 2 * 8, .step_s = 1, .hm_rows = 8 };
	struct evidence b = { .kind = EV_HEATMAP, .title = "disk", .unit = "us", .values = vb,
			      .nvalues = 3 * 12, .step_s = 1, .hm_rows = 12 };
	struct strbuf html = { 0 }, md = { 0 };
	struct doc d;

	/* old: 64-128 us (slot 6); new: 1-2 ms (slot 10), the disk 16 times slower */
	va[6] = va[8 + 6] = 100;
	vb[10] = vb[12 + 10] = vb[24 + 10] = 90;
	doc__init(&d, "t");
	report__doc_heatmap_pair(&d, &a, &b, "old", "new");
	ok(!d.oom && d.n == 1 && d.v[0]->kind == BLOCK_HEATMAP && d.v[0]->hm && d.v[0]->hm2,
	   "one block, two maps");
	if (d.n == 1 && d.v[0]->hm && d.v[0]->hm2) {
		const struct heatmap *x = d.v[0]->hm, *y = d.v[0]->hm2;

		is_int(x->nrows, 5, "the old map spans both maps' rows (slots 6 to 10)");
		is_int(y->nrows, 5, "and so does the new one: a band that moved is seen to move");
		is_str(x->rows[0], "64-128 us", "the first row, the old band");
		ok(x->counts[0] == 100 && x->counts[4] == 0 && y->counts[4] == 90 && y->counts[0] == 0,
		   "each map's own counts, rows past a map's own empty");
		is_str(x->title, "old: disk", "titles say which is which");
		is_str(y->title, "new: disk", "and the other");
	}
	doc__finish(&d);
	doc__html(&d, &html);
	doc__markdown(&d, &md);
	ok(html.buf && strstr(html.buf, "<div class=\"hm-pair\">") &&
		   count(html.buf, "<figure class=\"heatmap\"") == 2,
	   "report.html: both figures in one side-by-side row");
	ok(md.buf && strstr(md.buf, "old: disk") && strstr(md.buf, "new: disk"),
	   "report.md: one after the other");
	doc__free(&d);
	strbuf__free(&html);
	strbuf__free(&md);
}

static void test_trace(void)
{
	unsigned long long c[3 * 4] = { 0, 1, 0, 0, /* interval 1 empty */ 0, 0, 0, 0, 5, 0, 0, 7 };
	struct json j = { 0 };

	is_int(trace__interval_ns(10) / 1000000, 200, "10 s: intervals of 200 ms (50)");
	is_int(trace__interval_ns(1) / 1000000, 100, "1 s: 100 ms (10)");
	is_int(trace__interval_ns(5) / 1000000, 100, "5 s: 100 ms (50)");
	is_int(trace__interval_ns(60) / 1000000, 2000, "60 s: 2 s (30)");
	is_int(trace__interval_ns(3600) / 1000000, 120000, "an hour: 2 min (30)");
	is_int(trace__interval_ns(86400) / 1000000, 1800000, "a day: 30 min (48)");
	ok(10.0 / ((double)trace__interval_ns(10) / 1e9) >= 10, "a 10 s window has at least 10");
	for (double w = 0.5; w < 200000; w *= 1.7)
		ok(ceil(w / ((double)trace__interval_ns(w) / 1e9)) <= TRACE_MAX_INTERVALS,
		   "a %.1f s window fits the %d intervals", w, TRACE_MAX_INTERVALS);
	json__begin_object(&j);
	trace__json_intervals(&j, 200000000ull, "us", c, 3, 4);
	json__end_object(&j);
	is_str(j.out.buf, "{\"intervals\":{\"interval_ms\":200,\"unit\":\"us\",\"counts\":[[0,1],[],[5,0,0,7]]}}",
	       "the capture's shape: trailing zeros cut, an empty interval []");
	strbuf__free(&j.out);
}

int main(void)
{
	lua_State *L = luaL_newstate();

	luaL_openlibs(L);
	test_good(L);
	test_bad(L);
	lua_close(L);
	test_wire();
	test_render();
	test_pair();
	test_trace();
	return tap_done();
}
