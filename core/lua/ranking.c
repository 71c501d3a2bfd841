// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The ranking rules: ranking/verdict.lua (docs/verdict.md) into the catalog.
 * It is not a methodology: it says which findings explain which, each
 * check's capacity-lost metric and each exhaustion check's time-left metric,
 * for the report's ranking (report__rank).
 * Every check id it names must be a loaded check, so it loads last.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lua.h>

#include "util/embedded.h"
#include "lua/loader.h"

#define RANKING_FILE "ranking/verdict.lua"
#define RANKING_MAX_RULES 256

static int ranking_check_id(struct loader *ld, const struct catalog *cat, const char *field,
			    const char *id)
{
	if (!catalog__check(cat, id))
		return loader__fail(ld, "field '%s': '%.64s' is not a known check "
				    "(see 'sonde list')", field, id);
	return 0;
}

/* A table mapping check ids to one of their metrics (capacity, exhaustion) into *rules. */
static int ranking_metric_map(struct loader *ld, struct catalog *cat, const char *field,
			      struct capacity_rule **rules, size_t *n)
{
	lua_pushnil(ld->L);
	while (lua_next(ld->L, -2)) {
		struct capacity_rule *nc;
		int rc;

		if (lua_type(ld->L, -2) != LUA_TSTRING || lua_type(ld->L, -1) != LUA_TSTRING) {
			lua_pop(ld->L, 2);
			return loader__fail(ld, "field '%s': maps a check id to a metric name", field);
		}
		if (*n >= RANKING_MAX_RULES) {
			lua_pop(ld->L, 2);
			return loader__fail(ld, "field '%s': more than %d entries", field,
					    RANKING_MAX_RULES);
		}
		rc = ranking_check_id(ld, cat, field, lua_tostring(ld->L, -2));
		nc = rc ? NULL : realloc(*rules, (*n + 1) * sizeof(*nc));
		if (!nc) {
			lua_pop(ld->L, 2);
			return rc ? rc : -ENOMEM;
		}
		*rules = nc;
		nc[*n].check = strdup(lua_tostring(ld->L, -2));
		nc[(*n)++].metric = strdup(lua_tostring(ld->L, -1));
		lua_pop(ld->L, 1);
	}
	return 0;
}

/* One entry of 'explains' (the table on top of the stack), errors named by ld->origin. */
static int ranking_rule(struct loader *ld, struct catalog *cat)
{
	static const char *const known[] = { "cause", "consequences", "when", "reason", NULL };
	char *cause = NULL, *when = NULL, *reason = NULL;
	struct strv cons = { 0 };
	int r = lua_gettop(ld->L), rc;

	if ((rc = loader__only_fields(ld, r, known)) ||
	    (rc = loader__string(ld, r, "cause", 1, &cause)) ||
	    (rc = loader__string(ld, r, "when", 1, &when)) ||
	    (rc = loader__string(ld, r, "reason", 1, &reason)) ||
	    (rc = loader__strv(ld, r, "consequences", &cons, NULL, NULL)) ||
	    (rc = ranking_check_id(ld, cat, "cause", cause)))
		goto cleanup;
	if (strcmp(when, "always") && strcmp(when, "same_culprit") &&
	    strcmp(when, "same_culprit_or_kernel")) {
		rc = loader__fail(ld, "field 'when': '%.32s' is not one of: always, same_culprit, "
				      "same_culprit_or_kernel", when);
		goto cleanup;
	}
	for (size_t k = 0; k < cons.n; k++) {
		struct explain_rule *ne;

		if ((rc = ranking_check_id(ld, cat, "consequences", cons.v[k])))
			goto cleanup;
		if (cat->nexplains >= RANKING_MAX_RULES) {
			snprintf(ld->err, ld->errlen, "%s: more than %d rules", RANKING_FILE,
				 RANKING_MAX_RULES);
			rc = -EINVAL;
			goto cleanup;
		}
		ne = realloc(cat->explains, (cat->nexplains + 1) * sizeof(*ne));
		if (!ne) {
			rc = -ENOMEM;
			goto cleanup;
		}
		cat->explains = ne;
		ne[cat->nexplains++] = (struct explain_rule){
			.cause = strdup(cause), .consequence = strdup(cons.v[k]),
			.reason = strdup(reason),
			.same_culprit = !!strncmp(when, "always", 6),
			.or_kernel = !strcmp(when, "same_culprit_or_kernel"),
		};
	}
cleanup:
	free(cause);
	free(when);
	free(reason);
	strv__free(&cons);
	return rc;
}

int ranking__load(struct catalog *cat, char *err, size_t errlen)
{
	static const char *const known[] = { "capacity", "exhaustion", "explains", NULL };
	const struct embedded_file *f = embedded__find(RANKING_FILE);
	struct loader ld = { .origin = RANKING_FILE, .err = err, .errlen = errlen };
	int t, rc;

	if (!f)
		return 0; /* no rules: findings rank by severity, methodology and score */
	rc = loader__open(&ld, cat, f->data, f->len, known);
	if (rc)
		goto cleanup;
	t = ld.t;
	if (lua_getfield(ld.L, t, "capacity") == LUA_TTABLE &&
	    (rc = ranking_metric_map(&ld, cat, "capacity", &cat->capacity, &cat->ncapacity)))
		goto cleanup;
	lua_settop(ld.L, t);
	if (lua_getfield(ld.L, t, "exhaustion") == LUA_TTABLE &&
	    (rc = ranking_metric_map(&ld, cat, "exhaustion", &cat->exhaustion, &cat->nexhaustion)))
		goto cleanup;
	lua_settop(ld.L, t);
	if (lua_getfield(ld.L, t, "explains") == LUA_TTABLE) {
		lua_Integer n = (lua_Integer)lua_rawlen(ld.L, -1);

		for (lua_Integer i = 1; i <= n && !rc; i++) {
			char origin[96];

			snprintf(origin, sizeof(origin), "%s: explains[%lld]", RANKING_FILE,
				 (long long)i);
			ld.origin = origin;
			if (lua_rawgeti(ld.L, -1, i) != LUA_TTABLE) {
				snprintf(err, errlen, "%s: must be a table", origin);
				rc = -EINVAL;
			} else {
				rc = ranking_rule(&ld, cat);
			}
			lua_pop(ld.L, 1);
			ld.origin = RANKING_FILE;
		}
	}
cleanup:
	loader__close(&ld);
	return rc;
}
