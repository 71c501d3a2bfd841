// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Field readers for the table a definition file returns (lua/loader.h). The
 * file runs once, in a throwaway sandbox, and must only return a table: its
 * top level has no side effects, so `sonde list` loads every check without
 * running any.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lua.h>

#include "lua/loader.h"

int loader__fail(struct loader *ld, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(ld->err, ld->errlen, "%s: ", ld->origin);

	if (n < 0 || (size_t)n >= ld->errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(ld->err + n, ld->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int loader__string(struct loader *ld, int t, const char *key, int required, char **out)
{
	int ty = lua_getfield(ld->L, t, key);

	if (ty == LUA_TNIL && !required) {
		lua_pop(ld->L, 1);
		*out = NULL;
		return 0;
	}
	if (ty != LUA_TSTRING || !lua_rawlen(ld->L, -1)) {
		lua_pop(ld->L, 1);
		return loader__fail(ld, "field '%s': %s", key,
				    ty == LUA_TNIL ? "missing (a non-empty string is required)" :
						     "must be a non-empty string");
	}
	*out = strdup(lua_tostring(ld->L, -1));
	lua_pop(ld->L, 1);
	return 0;
}

/* "a, b, c": the allowed values, for an error (cut short past the buffer). */
static void loader_list(const struct strv *allowed, char *list, size_t size)
{
	size_t o = 0;

	list[0] = '\0';
	for (size_t k = 0; k < allowed->n && o + 2 < size; k++)
		o += (size_t)snprintf(list + o, size - o, "%s%s", k ? ", " : "", allowed->v[k]);
}

int loader__strv(struct loader *ld, int t, const char *key, struct strv *out,
		 const struct strv *allowed, const char *vocab)
{
	int ty = lua_getfield(ld->L, t, key);
	lua_Integer n;

	if (ty == LUA_TNIL) {
		lua_pop(ld->L, 1);
		return 0;
	}
	if (ty != LUA_TTABLE) {
		lua_pop(ld->L, 1);
		return loader__fail(ld, "field '%s': must be a list of strings", key);
	}
	n = (lua_Integer)lua_rawlen(ld->L, -1);
	for (lua_Integer i = 1; i <= n; i++) {
		const char *s;

		if (lua_rawgeti(ld->L, -1, i) != LUA_TSTRING) {
			lua_pop(ld->L, 2);
			return loader__fail(ld, "field '%s'[%lld]: must be a string", key,
					    (long long)i);
		}
		s = lua_tostring(ld->L, -1);
		if (allowed && !strv__has(allowed, s)) {
			char list[512];
			int rc;

			loader_list(allowed, list, sizeof(list));
			rc = loader__fail(ld, "field '%s': '%.64s' is not one of %s: %s", key, s,
					  vocab, list);
			lua_pop(ld->L, 2);
			return rc;
		}
		if (strv__push(out, s)) {
			loader__fail(ld, "field '%s': out of memory", key);
			lua_pop(ld->L, 2);
			return -ENOMEM;
		}
		lua_pop(ld->L, 1);
	}
	lua_pop(ld->L, 1);
	return 0;
}

int loader__vocab(struct loader *ld, const char *key, const char *v, const struct strv *allowed)
{
	char list[512];

	if (strv__has(allowed, v))
		return 0;
	loader_list(allowed, list, sizeof(list));
	return loader__fail(ld, "field '%s': '%.64s' is not one of: %s", key, v, list);
}

int loader__only_fields(struct loader *ld, int t, const char *const *known)
{
	lua_pushnil(ld->L);
	while (lua_next(ld->L, t)) {
		const char *k;
		int found = 0;

		lua_pop(ld->L, 1);
		if (lua_type(ld->L, -1) != LUA_TSTRING) {
			lua_pop(ld->L, 1);
			return loader__fail(ld, "a field name is not a string");
		}
		k = lua_tostring(ld->L, -1);
		for (int i = 0; known[i]; i++)
			found |= !strcmp(known[i], k);
		if (!found) {
			char name[80];

			snprintf(name, sizeof(name), "%.64s", k);
			lua_pop(ld->L, 1);
			return loader__fail(ld, "unknown field '%s'", name);
		}
	}
	return 0;
}

/* Run the file in ld->L and leave the table it returns on the stack. */
static int loader_run(struct loader *ld, const char *src, size_t len)
{
	int st = sandbox__load(ld->L, src, len, ld->origin);

	if (st == LUA_OK)
		st = sandbox__pcall(ld->L, 0, 1);
	if (st != LUA_OK) {
		const char *m = lua_tostring(ld->L, -1);
		char line[400];

		/* A traceback's first line is the message; a syntax error names the file. */
		snprintf(line, sizeof(line), "%s", m ? m : "error");
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, ld->origin, strlen(ld->origin)))
			snprintf(ld->err, ld->errlen, "%s", line);
		else
			snprintf(ld->err, ld->errlen, "%s: %s", ld->origin, line);
		return -EINVAL;
	}
	if (!lua_istable(ld->L, -1))
		return loader__fail(ld, "must return a table");
	return 0;
}

int loader__open(struct loader *ld, const struct catalog *cat, const char *src, size_t len,
		 const char *const *known)
{
	int rc;

	ld->L = sandbox__new(cat, &ld->budget, &engine_default_limits);
	if (!ld->L)
		return -ENOMEM;
	rc = loader_run(ld, src, len);
	ld->t = lua_gettop(ld->L);
	return rc ? rc : loader__only_fields(ld, ld->t, known);
}

void loader__close(struct loader *ld)
{
	if (ld->L)
		sandbox__close(ld->L);
	ld->L = NULL;
}
