// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The catalog (lua/catalog.h): the methodologies, the checks, their lib
 * modules (all embedded in the binary, plus a user's --checks DIR) and the
 * ranking rules (ranking.c), each file run once in a throwaway sandbox and
 * validated field by field (loader.c); `--set ID.ARG=VALUE` against a check's
 * declared args.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <lua.h>

#include "collect/collect.h"
#include "perf/counters.h"
#include "trace/trace.h"
#include "util/file.h"
#include "util/strbuf.h"
#include "lua/catalog_int.h"
#include "lua/loader.h"
#include "lua/sandbox.h"

char *catalog__dup(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

/*
 * A check's description from its doc comment: the first sentence of the block
 * that opens the file ("--- text" then "-- text" or "--- text" lines), joined by
 * one space. The first line alone cut many mid-sentence ("..., and with").
 */
static char *doc_sentence(const char *src, size_t len)
{
	const char *p = src + 4, *end = src + len;
	struct strbuf sb = { 0 };
	char *d;

	for (;;) {
		size_t n = strcspn(p, "\n");
		const char *dot = NULL;

		if (p + n > end)
			n = (size_t)(end - p);
		for (size_t i = 0; i < n && !dot; i++)
			if (p[i] && strchr(".?!", p[i]) && (i + 1 == n || p[i + 1] == ' '))
				dot = p + i + 1;
		if (sb.len)
			strbuf__puts(&sb, " ");
		strbuf__append(&sb, p, dot ? (size_t)(dot - p) : n);
		p += n;
		if (dot || end - p < 4 || (strncmp(p, "\n-- ", 4) && strncmp(p, "\n--- ", 5)))
			break;
		p += p[3] == '-' ? 5 : 4;
	}
	d = sb.oom ? NULL : catalog__dup(sb.buf ? sb.buf : "", sb.len);
	strbuf__free(&sb);
	return d;
}

static void catalog_free_methodology(struct methodology *m)
{
	free(m->id);
	free(m->title);
	free(m->description);
	strv__free(&m->resources);
	strv__free(&m->metrics);
	strv__free(&m->tags);
	strv__free(&m->na_cells);
	strv__free(&m->na_reasons);
	for (size_t i = 0; i < m->nrules; i++) {
		free(m->rules[i].trigger);
		strv__free(&m->rules[i].run);
		free(m->rules[i].why);
	}
	free(m->rules);
	memset(m, 0, sizeof(*m));
}

/*
 * rules = { { trigger = "use.cpu-saturation", run = { "drilldown.cpu-why" }, why = "..." }, ... }
 * The ids are checked once every check is loaded (catalog__check_rules).
 */
static int catalog_load_rules(struct loader *ld, int t, struct methodology *m)
{
	int type = lua_getfield(ld->L, t, "rules"), rc = 0;

	if (type == LUA_TNIL) {
		lua_pop(ld->L, 1);
		return 0;
	}
	if (type != LUA_TTABLE) {
		lua_pop(ld->L, 1);
		return loader__fail(ld, "field 'rules': must be a list of rules");
	}
	for (lua_Integer i = 1;; i++) {
		static const char *const fields[] = { "trigger", "run", "why", "filter", NULL };
		struct drill_rule r = { 0 }, *nr;
		char *filter = NULL;
		int rt = lua_gettop(ld->L) + 1;

		if (lua_rawgeti(ld->L, -1, i) == LUA_TNIL) {
			lua_pop(ld->L, 1);
			break;
		}
		if (lua_type(ld->L, rt) != LUA_TTABLE)
			rc = loader__fail(ld, "rules[%lld]: must be a table", (long long)i);
		if (!rc)
			rc = loader__only_fields(ld, rt, fields);
		if (!rc)
			rc = loader__string(ld, rt, "trigger", 1, &r.trigger);
		if (!rc)
			rc = loader__string(ld, rt, "why", 1, &r.why);
		if (!rc)
			rc = loader__strv(ld, rt, "run", &r.run, NULL, NULL);
		if (!rc && !r.run.n)
			rc = loader__fail(ld, "rules[%lld]: field 'run': no check to run",
					  (long long)i);
		if (!rc)
			rc = loader__string(ld, rt, "filter", 0, &filter);
		if (!rc && filter && strcmp(filter, "culprits"))
			rc = loader__fail(ld, "rules[%lld]: field 'filter': '%s' is not 'culprits'",
					  (long long)i, filter);
		r.filter_culprits = filter != NULL;
		free(filter);
		lua_settop(ld->L, rt - 1);
		if (!rc && !(nr = realloc(m->rules, (m->nrules + 1) * sizeof(*nr))))
			rc = -ENOMEM;
		if (rc) {
			free(r.trigger);
			free(r.why);
			strv__free(&r.run);
			break;
		}
		m->rules = nr;
		m->rules[m->nrules++] = r;
	}
	lua_pop(ld->L, 1);
	return rc;
}

/* Every rule names a check that exists, and runs drill-down checks only. */
int catalog__check_rules(struct catalog *cat, char *err, size_t errlen)
{
	for (size_t i = 0; i < cat->nmeth; i++)
		for (size_t k = 0; k < cat->meth[i].nrules; k++) {
			const struct drill_rule *r = &cat->meth[i].rules[k];
			const char *id = cat->meth[i].id;

			if (!catalog__check(cat, r->trigger)) {
				snprintf(err, errlen,
					 "methodologies/%s.lua: rules[%zu]: "
					 "trigger '%s' is not a check",
					 id, k + 1, r->trigger);
				return -EINVAL;
			}
			for (size_t j = 0; j < r->run.n; j++) {
				const struct check_def *d = catalog__check(cat, r->run.v[j]);

				if (d && !strcmp(d->methodology, "drilldown"))
					continue;
				snprintf(err, errlen,
					 "methodologies/%s.lua: rules[%zu]: "
					 "'%s' is not a drill-down check",
					 id, k + 1, r->run.v[j]);
				return -EINVAL;
			}
		}
	return 0;
}

int catalog__load_methodology(struct catalog *cat, const char *origin, const char *src,
				    size_t len, char *err, size_t errlen)
{
	static const char *const known[] = { "id", "title", "description", "order", "resources",
					     "metrics", "tags", "not_applicable", "rules", NULL };
	struct loader ld = { .origin = origin, .err = err, .errlen = errlen };
	struct methodology m = { 0 }, *nm;
	int t, rc;
	char expect[64];
	const char *base = strrchr(origin, '/');

	rc = loader__open(&ld, cat, src, len, known);
	t = ld.t;
	if (rc || (rc = loader__string(&ld, t, "id", 1, &m.id)) ||
	    (rc = loader__string(&ld, t, "title", 1, &m.title)) ||
	    (rc = loader__string(&ld, t, "description", 0, &m.description)) ||
	    (rc = loader__strv(&ld, t, "resources", &m.resources, NULL, NULL)) ||
	    (rc = loader__strv(&ld, t, "metrics", &m.metrics, NULL, NULL)) ||
	    (rc = loader__strv(&ld, t, "tags", &m.tags, NULL, NULL)))
		goto cleanup;
	snprintf(expect, sizeof(expect), "%.*s", (int)strcspn(base ? base + 1 : origin, "."),
		 base ? base + 1 : origin);
	if (strcmp(m.id, expect)) {
		snprintf(err, errlen, "%s: field 'id': '%s' does not match the file name ('%s')",
			 origin, m.id, expect);
		rc = -EINVAL;
		goto cleanup;
	}
	lua_getfield(ld.L, t, "order");
	m.order = (int)lua_tointeger(ld.L, -1);
	lua_pop(ld.L, 1);
	if (lua_getfield(ld.L, t, "not_applicable") == LUA_TTABLE) {
		lua_pushnil(ld.L);
		while (lua_next(ld.L, -2)) {
			if (lua_type(ld.L, -2) == LUA_TSTRING &&
			    lua_type(ld.L, -1) == LUA_TSTRING &&
			    (strv__push(&m.na_cells, lua_tostring(ld.L, -2)) ||
			     strv__push(&m.na_reasons, lua_tostring(ld.L, -1)))) {
				snprintf(err, errlen, "%s: out of memory", origin);
				rc = -ENOMEM;
				goto cleanup;
			}
			lua_pop(ld.L, 1);
		}
	}
	lua_pop(ld.L, 1);
	if ((rc = catalog_load_rules(&ld, t, &m)))
		goto cleanup;
	nm = realloc(cat->meth, (cat->nmeth + 1) * sizeof(*nm));
	if (!nm) {
		rc = -ENOMEM;
		goto cleanup;
	}
	cat->meth = nm;
	cat->meth[cat->nmeth++] = m;
	memset(&m, 0, sizeof(m));
cleanup:
	catalog_free_methodology(&m);
	loader__close(&ld);
	return rc;
}

void catalog__free_check(struct check_def *d)
{
	free(d->id);
	free(d->title);
	free(d->description);
	free(d->methodology);
	free(d->resource);
	free(d->metric);
	strv__free(&d->tags);
	strv__free(&d->collect);
	for (size_t i = 0; i < d->nargs; i++) {
		free(d->args[i].name);
		free(d->args[i].help);
		free(d->args[i].str);
	}
	free(d->args);
	free(d->origin);
	free(d->source);
}

static int catalog_load_args(struct loader *ld, int t, struct check_def *d)
{
	int ty = lua_getfield(ld->L, t, "args");

	if (ty == LUA_TNIL) {
		lua_pop(ld->L, 1);
		return 0;
	}
	if (ty != LUA_TTABLE) {
		lua_pop(ld->L, 1);
		return loader__fail(ld, "field 'args': must be a table of name = { type =, "
				    "default = }");
	}
	lua_pushnil(ld->L);
	while (lua_next(ld->L, -2)) {
		struct check_arg a = { 0 };
		const char *ts;
		char name[80];
		struct check_arg *na;

		if (lua_type(ld->L, -2) != LUA_TSTRING || !lua_istable(ld->L, -1)) {
			lua_pop(ld->L, 3);
			return loader__fail(ld, "field 'args': each entry must be name = { type =, "
					    "default = }");
		}
		snprintf(name, sizeof(name), "%.64s", lua_tostring(ld->L, -2));
		lua_getfield(ld->L, -1, "type");
		ts = lua_tostring(ld->L, -1);
		if (ts && !strcmp(ts, "number"))
			a.type = ARG_NUMBER;
		else if (ts && !strcmp(ts, "string"))
			a.type = ARG_STRING;
		else if (ts && !strcmp(ts, "boolean"))
			a.type = ARG_BOOLEAN;
		else {
			lua_pop(ld->L, 4);
			return loader__fail(ld, "field 'args.%s.type': must be \"number\", "
					    "\"string\" or \"boolean\"", name);
		}
		lua_pop(ld->L, 1);
		ty = lua_getfield(ld->L, -1, "default");
		if ((a.type == ARG_NUMBER && ty != LUA_TNUMBER) ||
		    (a.type == ARG_STRING && ty != LUA_TSTRING) ||
		    (a.type == ARG_BOOLEAN && ty != LUA_TBOOLEAN)) {
			lua_pop(ld->L, 4);
			return loader__fail(ld, "field 'args.%s.default': must be a %s", name, ts);
		}
		if (a.type == ARG_NUMBER)
			a.num = lua_tonumber(ld->L, -1);
		else if (a.type == ARG_STRING)
			a.str = strdup(lua_tostring(ld->L, -1));
		else
			a.boolean = lua_toboolean(ld->L, -1);
		lua_pop(ld->L, 1);
		if (lua_getfield(ld->L, -1, "help") == LUA_TSTRING)
			a.help = strdup(lua_tostring(ld->L, -1));
		lua_pop(ld->L, 1);
		a.name = strdup(name);
		na = realloc(d->args, (d->nargs + 1) * sizeof(*na));
		if (!na) {
			lua_pop(ld->L, 3);
			return -ENOMEM;
		}
		d->args = na;
		d->args[d->nargs++] = a;
		lua_pop(ld->L, 1);
	}
	lua_pop(ld->L, 1);
	return 0;
}

/* collect = { ... }: each a collector, a BPF tool ("bpf.runqlat") or the perf counters. */
static int catalog_load_collect(struct loader *ld, int t, struct check_def *d)
{
	struct strv known = { 0 };
	int rc = 0;

	for (const struct collector *const *c = collectors; *c && !rc; c++)
		rc = strv__push(&known, (*c)->name);
	for (const struct trace_tool *const *tt = trace_tools; *tt && !rc; tt++) {
		char nm[64];

		snprintf(nm, sizeof(nm), "bpf.%s", (*tt)->name);
		rc = strv__push(&known, nm);
	}
	if (!rc)
		rc = strv__push(&known, PERF_COLLECTOR);
	if (!rc)
		rc = strv__push(&known, HISTORY_COLLECTOR);
	if (rc)
		snprintf(ld->err, ld->errlen, "%s: out of memory", ld->origin);
	else
		rc = loader__strv(ld, t, "collect", &d->collect, &known, "the collectors");
	strv__free(&known);
	return rc;
}

/* "checks/use/cpu-saturation.lua" (rel = "use/cpu-saturation.lua") -> "use.cpu-saturation" */
static int catalog_id_from_path(const char *rel, char *id, size_t idlen, char *dir, size_t dirlen)
{
	const char *slash = strchr(rel, '/');
	size_t dl, nl;

	if (!slash || strchr(slash + 1, '/'))
		return -EINVAL;
	dl = (size_t)(slash - rel);
	nl = strlen(slash + 1);
	if (nl <= 4 || strcmp(slash + 1 + nl - 4, ".lua") || dl + 1 + nl - 4 >= idlen ||
	    dl >= dirlen)
		return -EINVAL;
	snprintf(dir, dirlen, "%.*s", (int)dl, rel);
	snprintf(id, idlen, "%.*s.%.*s", (int)dl, rel, (int)(nl - 4), slash + 1);
	return 0;
}

int catalog__load_check(struct catalog *cat, const char *origin, const char *rel,
			      const char *src, size_t len, int user, char *err, size_t errlen)
{
	static const char *const known[] = { "id", "title", "description", "methodology",
					     "resource", "metric", "tags", "collect", "args",
					     "run", NULL };
	struct loader ld = { .origin = origin, .err = err, .errlen = errlen };
	struct check_def d = { 0 };
	const struct methodology *m;
	char want_id[256], dir[128];
	int t, rc;

	if (catalog_id_from_path(rel, want_id, sizeof(want_id), dir, sizeof(dir))) {
		snprintf(err, errlen, "%s: a check lives at <methodology>/<resource>-<metric>.lua",
			 origin);
		return -EINVAL;
	}
	rc = loader__open(&ld, cat, src, len, known);
	t = ld.t;
	if (rc || (rc = loader__string(&ld, t, "id", 1, &d.id)) ||
	    (rc = loader__string(&ld, t, "title", 1, &d.title)) ||
	    (rc = loader__string(&ld, t, "description", 0, &d.description)) ||
	    (rc = loader__string(&ld, t, "methodology", 1, &d.methodology)) ||
	    (rc = loader__string(&ld, t, "resource", 1, &d.resource)) ||
	    (rc = loader__string(&ld, t, "metric", 1, &d.metric)))
		goto cleanup;
	if (strcmp(d.id, want_id)) {
		snprintf(err, errlen,
			 "%s: field 'id': '%.64s' does not match its path (expected '%s')", origin,
			 d.id, want_id);
		rc = -EINVAL;
		goto cleanup;
	}
	m = catalog__methodology(cat, d.methodology);
	if (!m || strcmp(d.methodology, dir)) {
		snprintf(err, errlen,
			 "%s: field 'methodology': '%.64s' %s", origin, d.methodology,
			 !m ? "is not a known methodology (see methodologies/)" :
			      "does not match the check's folder");
		rc = -EINVAL;
		goto cleanup;
	}
	if ((rc = loader__vocab(&ld, "resource", d.resource, &m->resources)) ||
	    (rc = loader__vocab(&ld, "metric", d.metric, &m->metrics)) ||
	    (rc = loader__strv(&ld, t, "tags", &d.tags, &m->tags, "the tags of this methodology")))
		goto cleanup;
	if ((rc = catalog_load_collect(&ld, t, &d)) || (rc = catalog_load_args(&ld, t, &d)))
		goto cleanup;
	if (lua_getfield(ld.L, t, "run") != LUA_TFUNCTION) {
		snprintf(err, errlen, "%s: field 'run': must be a function run(ctx, args)", origin);
		rc = -EINVAL;
		goto cleanup;
	}
	if (catalog__check(cat, d.id)) {
		snprintf(err, errlen, "%s: id '%s' is already defined by %s", origin, d.id,
			 catalog__check(cat, d.id)->origin);
		rc = -EINVAL;
		goto cleanup;
	}
	/* The doc comment ("--- text") on the first line is the description when none is given. */
	if (!d.description && len > 4 && !strncmp(src, "--- ", 4))
		d.description = doc_sentence(src, len);
	d.origin = strdup(origin);
	d.source = catalog__dup(src, len);
	d.source_len = len;
	d.user = user;
	rc = catalog__adopt_check(cat, &d);
cleanup:
	catalog__free_check(&d);
	loader__close(&ld);
	return rc;
}

int catalog__adopt_check(struct catalog *cat, struct check_def *d)
{
	struct check_def *nd = realloc(cat->checks, (cat->nchecks + 1) * sizeof(*nd));

	if (!nd)
		return -ENOMEM;
	cat->checks = nd;
	cat->checks[cat->nchecks++] = *d;
	memset(d, 0, sizeof(*d));
	return 0;
}

int catalog__add_lib(struct catalog *cat, const char *name, const char *origin,
			   const char *src, size_t len, char *err, size_t errlen)
{
	struct lib_source *nl;

	for (size_t i = 0; i < cat->nlibs; i++)
		if (!strcmp(cat->libs[i].name, name)) {
			snprintf(err, errlen, "%s: module '%s' is already defined by %s", origin,
				 name, cat->libs[i].origin);
			return -EINVAL;
		}
	nl = realloc(cat->libs, (cat->nlibs + 1) * sizeof(*nl));
	if (!nl)
		return -ENOMEM;
	cat->libs = nl;
	cat->libs[cat->nlibs].name = strdup(name);
	cat->libs[cat->nlibs].origin = strdup(origin);
	cat->libs[cat->nlibs].source = catalog__dup(src, len);
	cat->libs[cat->nlibs].source_len = len;
	cat->nlibs++;
	return 0;
}

int catalog__lib_name(const char *file, char *name, size_t nlen)
{
	size_t l = strlen(file);

	if (l <= 4 || strcmp(file + l - 4, ".lua") || l - 4 >= nlen)
		return -EINVAL;
	snprintf(name, nlen, "%.*s", (int)(l - 4), file);
	return sandbox__lib_name_ok(name) ? 0 : -EINVAL;
}

static int catalog_order(const struct catalog *cat, const struct check_def *d, int *mo,
			 int *ro, int *xo)
{
	const struct methodology *m = catalog__methodology(cat, d->methodology);

	*mo = m ? m->order : 0;
	*ro = *xo = 0;
	for (size_t i = 0; m && i < m->resources.n; i++)
		if (!strcmp(m->resources.v[i], d->resource))
			*ro = (int)i;
	for (size_t i = 0; m && i < m->metrics.n; i++)
		if (!strcmp(m->metrics.v[i], d->metric))
			*xo = (int)i;
	return 0;
}

static int catalog_cmp_check(const void *a, const void *b, void *arg)
{
	const struct catalog *sort_cat = arg;
	const struct check_def *x = a, *y = b;
	int xm, xr, xx, ym, yr, yx;

	catalog_order(sort_cat, x, &xm, &xr, &xx);
	catalog_order(sort_cat, y, &ym, &yr, &yx);
	if (xm != ym)
		return xm - ym;
	if (xr != yr)
		return xr - yr;
	if (xx != yx)
		return xx - yx;
	return strcmp(x->id, y->id);
}

int catalog__validate_check(const struct catalog *cat, const char *rel, const char *src,
			    size_t len, char *err, size_t errlen)
{
	/* A shallow copy: the methodologies and libs are shared, only the new check is freed. */
	struct catalog tmp = *cat;
	int rc;

	tmp.checks = NULL;
	tmp.nchecks = 0;
	rc = catalog__load_check(&tmp, rel, rel, src, len, 1, err, errlen);
	for (size_t i = 0; i < tmp.nchecks; i++)
		catalog__free_check(&tmp.checks[i]);
	free(tmp.checks);
	return rc;
}

void catalog__finish(struct catalog *cat)
{
	if (cat->nchecks)
		qsort_r(cat->checks, cat->nchecks, sizeof(*cat->checks), catalog_cmp_check, cat);
}

void catalog__free(struct catalog *cat)
{
	for (size_t i = 0; i < cat->nmeth; i++)
		catalog_free_methodology(&cat->meth[i]);
	free(cat->meth);
	for (size_t i = 0; i < cat->nchecks; i++)
		catalog__free_check(&cat->checks[i]);
	free(cat->checks);
	for (size_t i = 0; i < cat->nlibs; i++) {
		free(cat->libs[i].name);
		free(cat->libs[i].origin);
		free(cat->libs[i].source);
	}
	free(cat->libs);
	for (size_t i = 0; i < cat->nexplains; i++) {
		free(cat->explains[i].cause);
		free(cat->explains[i].consequence);
		free(cat->explains[i].reason);
	}
	free(cat->explains);
	for (size_t i = 0; i < cat->ncapacity; i++) {
		free(cat->capacity[i].check);
		free(cat->capacity[i].metric);
	}
	free(cat->capacity);
	for (size_t i = 0; i < cat->nexhaustion; i++) {
		free(cat->exhaustion[i].check);
		free(cat->exhaustion[i].metric);
	}
	free(cat->exhaustion);
	memset(cat, 0, sizeof(*cat));
}

int catalog__set_arg(struct catalog *cat, const char *as, char *err, size_t errlen)
{
	const char *eq = strchr(as, '='), *dot;
	char id[256], name[128];
	struct check_def *d = NULL;

	if (!eq) {
		snprintf(err, errlen, "--set %s: expected CHECK-ID.ARG=VALUE", as);
		return -EINVAL;
	}
	/* The arg name follows the last dot before '=' (check ids contain one dot). */
	for (dot = eq; dot > as && *dot != '.'; dot--)
		;
	if (dot == as || (size_t)(dot - as) >= sizeof(id) || (size_t)(eq - dot) >= sizeof(name)) {
		snprintf(err, errlen, "--set %s: expected CHECK-ID.ARG=VALUE", as);
		return -EINVAL;
	}
	snprintf(id, sizeof(id), "%.*s", (int)(dot - as), as);
	snprintf(name, sizeof(name), "%.*s", (int)(eq - dot - 1), dot + 1);
	for (size_t i = 0; i < cat->nchecks; i++)
		if (!strcmp(cat->checks[i].id, id))
			d = &cat->checks[i];
	if (!d) {
		snprintf(err, errlen, "--set %s: no check '%s' (see sonde list)", as, id);
		return -ENOENT;
	}
	for (size_t i = 0; i < d->nargs; i++) {
		struct check_arg *a = &d->args[i];
		char *end;

		if (strcmp(a->name, name))
			continue;
		if (a->type == ARG_NUMBER) {
			double v = strtod(eq + 1, &end);

			if (end == eq + 1 || *end || !isfinite(v)) {
				snprintf(err, errlen, "--set %s: '%s' is not a number", as, eq + 1);
				return -EINVAL;
			}
			a->num = v;
		} else if (a->type == ARG_BOOLEAN) {
			if (!strcmp(eq + 1, "true") || !strcmp(eq + 1, "1"))
				a->boolean = 1;
			else if (!strcmp(eq + 1, "false") || !strcmp(eq + 1, "0"))
				a->boolean = 0;
			else {
				snprintf(err, errlen, "--set %s: expected true or false", as);
				return -EINVAL;
			}
		} else {
			free(a->str);
			a->str = strdup(eq + 1);
		}
		return 0;
	}
	snprintf(err, errlen, "--set %s: check '%s' has no argument '%s'", as, id, name);
	return -ENOENT;
}
