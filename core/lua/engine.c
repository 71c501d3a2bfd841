// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The Lua host.
 *
 * Each check runs in its own lua_State, created with a counting allocator
 * (memory cap) and a count hook (instruction and wall-clock budget). Once a
 * budget is blown the state is "doomed": the allocator refuses every growth
 * and the hook raises an error on every instruction, so a check that wraps
 * its loop in pcall gets the error again at its very next instruction and
 * unwinds all the way out. Only an allow-list of the standard library is
 * reachable, through an environment table whose metatable makes reading or
 * writing an undeclared global an error.
 *
 * Lua runs message handlers (after an error raised by a hook) and __gc
 * finalizers with hooks off, and its pattern matcher is C code the hook never
 * interrupts; so xpcall handlers are skipped once a check is doomed, __gc is
 * refused, and beyond all that each check runs in a child process that the
 * parent kills when its wall-clock budget is past (engine__run_check).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "collect/collect.h"
#include "perf/counters.h"
#include "trace/trace.h"
#include "util/embedded.h"
#include "lua/engine.h"
#include "util/file.h"
#include "util/json.h"
#include "lua/ctx.h"

const struct engine_limits engine_default_limits = {
	.mem_bytes = 64u << 20,
	.instructions = 200000000,
	.wall_s = 5.0,
};

#define HOOK_EVERY 1000
/* A check or a lib module larger than this is not a check. */
#define CHECK_FILE_MAX (4u << 20)

/* ---- budgets ---- */

struct budget {
	size_t used, peak, cap;
	uint64_t instructions, max_instructions;
	int64_t deadline_ns;
	int doomed;
	char why[128];
};

static void budget__doom(struct budget *b, const char *why)
{
	if (!b->doomed) {
		b->doomed = 1;
		snprintf(b->why, sizeof(b->why), "%s", why);
	}
}

static void *budget_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
	struct budget *b = ud;
	size_t old = ptr ? osize : 0;
	void *n;

	if (nsize == 0) {
		free(ptr);
		b->used -= old;
		return NULL;
	}
	if (nsize > old && b->used + (nsize - old) > b->cap) {
		char why[128];

		snprintf(why, sizeof(why), "memory budget exceeded (%zu MiB)", b->cap >> 20);
		budget__doom(b, why);
		return NULL;
	}
	n = realloc(ptr, nsize);
	if (!n)
		return NULL;
	b->used = b->used - old + nsize;
	if (b->used > b->peak)
		b->peak = b->used;
	return n;
}

static struct budget *budget_of(lua_State *L)
{
	void *ud;

	lua_getallocf(L, &ud);
	return ud;
}

static void budget_hook(lua_State *L, lua_Debug *ar)
{
	struct budget *b = budget_of(L);

	b->instructions += HOOK_EVERY;
	if (!b->doomed) {
		if (b->instructions > b->max_instructions)
			budget__doom(b, "instruction budget exceeded");
		else if (clock__ns(CLOCK_MONOTONIC) > b->deadline_ns)
			budget__doom(b, "time budget exceeded");
	}
	if (b->doomed) {
		/* From now on every instruction raises: pcall cannot keep the check alive. */
		lua_sethook(L, budget_hook, LUA_MASKCOUNT, 1);
		luaL_error(L, "check stopped: %s", b->why);
	}
}

/* ---- the sandbox ---- */

#define REG_ENV "sonde.env"
#define REG_LOADED "sonde.loaded"
#define REG_CATALOG "sonde.catalog"

static int sandbox_undeclared_read(lua_State *L)
{
	return luaL_error(L, "undeclared global '%s'", luaL_optstring(L, 2, "?"));
}

static int sandbox_undeclared_write(lua_State *L)
{
	return luaL_error(L, "assignment to undeclared global '%s' (use local)",
			  luaL_optstring(L, 2, "?"));
}

/* rawset on the environment would bypass the strict metatable. */
static int sandbox_rawset(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	lua_getfield(L, LUA_REGISTRYINDEX, REG_ENV);
	if (lua_rawequal(L, 1, -1))
		return luaL_error(L, "rawset on the global environment is not allowed");
	lua_pop(L, 1);
	luaL_checkany(L, 2);
	luaL_checkany(L, 3);
	lua_settop(L, 3);
	lua_rawset(L, 1);
	return 1;
}

/* load(chunk [, name [, mode [, env]]]): text only; the sandbox env unless one is given. */
static int sandbox_load(lua_State *L)
{
	size_t len;
	const char *s = luaL_checklstring(L, 1, &len);
	const char *name = luaL_optstring(L, 2, "=(load)");
	int status;

	status = luaL_loadbufferx(L, s, len, name, "t");
	if (status != LUA_OK) {
		luaL_pushfail(L);
		lua_insert(L, -2);
		return 2;
	}
	if (lua_istable(L, 4))
		lua_pushvalue(L, 4);
	else
		lua_getfield(L, LUA_REGISTRYINDEX, REG_ENV);
	if (!lua_setupvalue(L, -2, 1))
		lua_pop(L, 1);
	return 1;
}

/* The user's handler runs only for ordinary errors: after a budget stop, Lua would run it
 * with hooks off, where nothing could stop it. */
static int sandbox_xpcall_msgh(lua_State *L)
{
	if (budget_of(L)->doomed)
		return 1; /* keep the error as it is */
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	lua_call(L, lua_gettop(L) - 1, 1);
	return 1;
}

static int sandbox_xpcall(lua_State *L)
{
	int n = lua_gettop(L), st;

	luaL_checktype(L, 2, LUA_TFUNCTION);
	lua_pushvalue(L, 2);
	lua_pushcclosure(L, sandbox_xpcall_msgh, 1);
	lua_replace(L, 2);
	lua_pushboolean(L, 1);
	lua_pushvalue(L, 1);
	lua_rotate(L, 3, 2); /* f, msgh, true, f, args... */
	st = lua_pcall(L, n - 2, LUA_MULTRET, 2);
	if (st != LUA_OK) {
		lua_pushboolean(L, 0);
		lua_pushvalue(L, -2);
		return 2;
	}
	return lua_gettop(L) - 2;
}

/* Finalizers run with hooks off (nothing could stop a looping one): refused. */
static int sandbox_setmetatable(lua_State *L)
{
	if (lua_istable(L, 2)) {
		lua_pushliteral(L, "__gc");
		if (lua_rawget(L, 2) != LUA_TNIL)
			return luaL_error(L, "__gc finalizers are not allowed in checks");
		lua_pop(L, 1);
	}
	lua_getfield(L, LUA_REGISTRYINDEX, "sonde.setmetatable");
	lua_insert(L, 1);
	lua_call(L, lua_gettop(L) - 1, 1);
	return 1;
}

static int valid_lib_name(const char *s)
{
	if (!*s || strlen(s) > 64)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_' ||
		      *s == '-'))
			return 0;
	return 1;
}

/* require(name): only the helpers in checks/lib (embedded or from --checks DIR/lib). */
static int sandbox_require(lua_State *L)
{
	const char *name = luaL_checkstring(L, 1);
	const struct catalog *cat;
	const struct lib_source *lib = NULL;

	lua_getfield(L, LUA_REGISTRYINDEX, REG_LOADED);
	lua_getfield(L, -1, name);
	if (!lua_isnil(L, -1))
		return 1;
	lua_pop(L, 1);
	if (!valid_lib_name(name))
		return luaL_error(L, "require '%s': not a checks/lib module name", name);
	lua_getfield(L, LUA_REGISTRYINDEX, REG_CATALOG);
	cat = lua_touserdata(L, -1);
	lua_pop(L, 1);
	for (size_t i = 0; cat && i < cat->nlibs; i++)
		if (!strcmp(cat->libs[i].name, name))
			lib = &cat->libs[i];
	if (!lib)
		return luaL_error(L, "require '%s': no such module in checks/lib", name);
	{
		char chunkname[300];

		snprintf(chunkname, sizeof(chunkname), "@%s", lib->origin);
		if (luaL_loadbufferx(L, lib->source, lib->source_len, chunkname, "t") != LUA_OK)
			return lua_error(L);
	}
	lua_getfield(L, LUA_REGISTRYINDEX, REG_ENV);
	lua_setupvalue(L, -2, 1);
	lua_pushstring(L, name);
	lua_call(L, 1, 1);
	if (!lua_istable(L, -1))
		return luaL_error(L, "require '%s': %s must return a table", name, lib->origin);
	lua_pushvalue(L, -1);
	lua_setfield(L, -3, name); /* sonde.loaded[name] */
	return 1;
}

static const char *const base_allowed[] = {
	"assert", "error",  "getmetatable", "ipairs", "next",     "pairs",    "pcall",
	"rawequal", "rawget", "rawlen",     "select", "tonumber", "tostring", "type",
	"_VERSION", NULL,
};
static const char *const os_allowed[] = { "time", "clock", "date", "difftime", NULL };

/* One allow-list: these libraries, these base functions, our wrappers; nothing else. */
static const struct {
	const char *name;
	lua_CFunction open;
} libs_allowed[] = {
	{ LUA_GNAME, luaopen_base },       { LUA_STRLIBNAME, luaopen_string },
	{ LUA_TABLIBNAME, luaopen_table }, { LUA_MATHLIBNAME, luaopen_math },
	{ LUA_UTF8LIBNAME, luaopen_utf8 }, { LUA_OSLIBNAME, luaopen_os },
	{ NULL, NULL },
};

static lua_State *sandbox__new(const struct catalog *cat, struct budget *b,
			       const struct engine_limits *lim)
{
	lua_State *L;
	int env;

	memset(b, 0, sizeof(*b));
	b->cap = lim->mem_bytes;
	b->max_instructions = lim->instructions;
	b->deadline_ns = clock__ns(CLOCK_MONOTONIC) + (int64_t)(lim->wall_s * 1e9);
	L = lua_newstate(budget_alloc, b);
	if (!L)
		return NULL;
	for (int i = 0; libs_allowed[i].name; i++) {
		luaL_requiref(L, libs_allowed[i].name, libs_allowed[i].open, 0);
		lua_pop(L, 1);
	}

	lua_newtable(L); /* the environment checks see */
	env = lua_gettop(L);
	lua_pushglobaltable(L);
	for (int i = 0; base_allowed[i]; i++) {
		lua_getfield(L, -1, base_allowed[i]);
		lua_setfield(L, env, base_allowed[i]);
	}
	lua_pop(L, 1);
	lua_pushcfunction(L, sandbox_rawset);
	lua_setfield(L, env, "rawset");
	lua_pushcfunction(L, sandbox_xpcall);
	lua_setfield(L, env, "xpcall");
	lua_getglobal(L, "setmetatable");
	lua_setfield(L, LUA_REGISTRYINDEX, "sonde.setmetatable");
	lua_pushcfunction(L, sandbox_setmetatable);
	lua_setfield(L, env, "setmetatable");
	lua_pushcfunction(L, sandbox_load);
	lua_setfield(L, env, "load");
	lua_pushcfunction(L, sandbox_require);
	lua_setfield(L, env, "require");

	/* string without dump (no bytecode out), table, math, utf8: copies, so edits stay local. */
	static const char *const copied[] = { LUA_STRLIBNAME, LUA_TABLIBNAME, LUA_MATHLIBNAME,
					      LUA_UTF8LIBNAME, NULL };
	for (int i = 0; copied[i]; i++) {
		lua_newtable(L);
		luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
		lua_getfield(L, -1, copied[i]);
		lua_pushnil(L);
		while (lua_next(L, -2)) {
			lua_pushvalue(L, -2);
			lua_insert(L, -2);
			lua_settable(L, -6);
		}
		lua_pop(L, 2);
		lua_setfield(L, env, copied[i]);
	}
	lua_getfield(L, env, LUA_STRLIBNAME);
	lua_pushnil(L);
	lua_setfield(L, -2, "dump");
	lua_pop(L, 1);
	/* The string metatable's __index is the real string table: drop dump there too. */
	luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
	lua_getfield(L, -1, LUA_STRLIBNAME);
	lua_pushnil(L);
	lua_setfield(L, -2, "dump");
	lua_pop(L, 2);

	lua_newtable(L);
	luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
	lua_getfield(L, -1, LUA_OSLIBNAME);
	for (int i = 0; os_allowed[i]; i++) {
		lua_getfield(L, -1, os_allowed[i]);
		lua_setfield(L, -4, os_allowed[i]);
	}
	lua_pop(L, 2);
	lua_setfield(L, env, "os");

	lua_newtable(L); /* strict metatable */
	lua_pushcfunction(L, sandbox_undeclared_read);
	lua_setfield(L, -2, "__index");
	lua_pushcfunction(L, sandbox_undeclared_write);
	lua_setfield(L, -2, "__newindex");
	lua_pushstring(L, "the global environment is locked");
	lua_setfield(L, -2, "__metatable");
	lua_setmetatable(L, env);

	lua_pushvalue(L, env);
	lua_setfield(L, LUA_REGISTRYINDEX, REG_ENV);
	lua_newtable(L);
	lua_setfield(L, LUA_REGISTRYINDEX, REG_LOADED);
	lua_pushlightuserdata(L, (void *)cat);
	lua_setfield(L, LUA_REGISTRYINDEX, REG_CATALOG);
	lua_pop(L, 1);

	lua_sethook(L, budget_hook, LUA_MASKCOUNT, HOOK_EVERY);
	return L;
}

static void sandbox__close(lua_State *L)
{
	struct budget *b = budget_of(L);

	/* Finalizers a check left behind run at close: doom them so none can loop. */
	budget__doom(b, "closing");
	lua_sethook(L, budget_hook, LUA_MASKCOUNT, 1);
	lua_close(L);
}

/* Load a chunk as text with the sandbox environment; leaves the function or an error. */
static int sandbox__load(lua_State *L, const char *src, size_t len, const char *origin)
{
	char chunkname[512];
	int st;

	snprintf(chunkname, sizeof(chunkname), "@%s", origin);
	st = luaL_loadbufferx(L, src, len, chunkname, "t");
	if (st != LUA_OK)
		return st;
	lua_getfield(L, LUA_REGISTRYINDEX, REG_ENV);
	lua_setupvalue(L, -2, 1);
	return LUA_OK;
}

/* Message handler: never runs user code (no __tostring on a hostile error object). */
static int sandbox_msgh(lua_State *L)
{
	struct budget *b = budget_of(L);
	const char *msg = lua_tostring(L, 1);

	/* Leave room to build the message even after a memory bomb. */
	b->cap += 1u << 20;
	if (!msg)
		msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
	luaL_traceback(L, L, msg, 1);
	return 1;
}

static int sandbox__pcall(lua_State *L, int nargs, int nres)
{
	int base = lua_gettop(L) - nargs, st;

	lua_pushcfunction(L, sandbox_msgh);
	lua_insert(L, base);
	st = lua_pcall(L, nargs, nres, base);
	lua_remove(L, base);
	return st;
}

/* ---- catalog ---- */

static char *dup_n(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}


/* The table a file returns; fields read with these, errors name file and field. */
struct loader {
	lua_State *L;
	const char *origin;
	char *err;
	size_t errlen;
};

#define LOAD_FAIL(ld, ...)                                                                     \
	do {                                                                                   \
		int n_ = snprintf((ld)->err, (ld)->errlen, "%s: ", (ld)->origin);              \
		snprintf((ld)->err + n_, (ld)->errlen - (size_t)n_, __VA_ARGS__);              \
		return -EINVAL;                                                                \
	} while (0)

static int field_string(struct loader *ld, int t, const char *key, int required, char **out)
{
	int ty = lua_getfield(ld->L, t, key);

	if (ty == LUA_TNIL && !required) {
		lua_pop(ld->L, 1);
		*out = NULL;
		return 0;
	}
	if (ty != LUA_TSTRING || !lua_rawlen(ld->L, -1)) {
		lua_pop(ld->L, 1);
		LOAD_FAIL(ld, "field '%s': %s", key,
			  ty == LUA_TNIL ? "missing (a non-empty string is required)" :
					   "must be a non-empty string");
	}
	*out = strdup(lua_tostring(ld->L, -1));
	lua_pop(ld->L, 1);
	return 0;
}

static int field_strv(struct loader *ld, int t, const char *key, struct strv *out,
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
		LOAD_FAIL(ld, "field '%s': must be a list of strings", key);
	}
	n = (lua_Integer)lua_rawlen(ld->L, -1);
	for (lua_Integer i = 1; i <= n; i++) {
		const char *s;

		if (lua_rawgeti(ld->L, -1, i) != LUA_TSTRING) {
			lua_pop(ld->L, 2);
			LOAD_FAIL(ld, "field '%s'[%lld]: must be a string", key, (long long)i);
		}
		s = lua_tostring(ld->L, -1);
		if (allowed && !strv__has(allowed, s)) {
			char list[512] = "";
			size_t o = 0;

			for (size_t k = 0; k < allowed->n && o + 2 < sizeof(list); k++)
				o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s",
						      k ? ", " : "", allowed->v[k]);
			snprintf(ld->err, ld->errlen, "%s: field '%s': '%.64s' is not one of %s: %s",
				 ld->origin, key, s, vocab, list);
			lua_pop(ld->L, 2);
			return -EINVAL;
		}
		if (strv__push(out, s)) {
			snprintf(ld->err, ld->errlen, "%s: field '%s': out of memory", ld->origin, key);
			lua_pop(ld->L, 2);
			return -ENOMEM;
		}
		lua_pop(ld->L, 1);
	}
	lua_pop(ld->L, 1);
	return 0;
}

static int check_vocab(struct loader *ld, const char *key, const char *v, const struct strv *allowed)
{
	char list[512] = "";
	size_t o = 0;

	if (strv__has(allowed, v))
		return 0;
	for (size_t k = 0; k < allowed->n && o + 2 < sizeof(list); k++)
		o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s", k ? ", " : "",
				      allowed->v[k]);
	LOAD_FAIL(ld, "field '%s': '%.64s' is not one of: %s", key, v, list);
}

static int only_fields(struct loader *ld, int t, const char *const *known)
{
	lua_pushnil(ld->L);
	while (lua_next(ld->L, t)) {
		const char *k;
		int found = 0;

		lua_pop(ld->L, 1);
		if (lua_type(ld->L, -1) != LUA_TSTRING) {
			lua_pop(ld->L, 1);
			LOAD_FAIL(ld, "a field name is not a string");
		}
		k = lua_tostring(ld->L, -1);
		for (int i = 0; known[i]; i++)
			found |= !strcmp(known[i], k);
		if (!found) {
			char name[80];

			snprintf(name, sizeof(name), "%.64s", k);
			lua_pop(ld->L, 1);
			LOAD_FAIL(ld, "unknown field '%s'", name);
		}
	}
	return 0;
}

/* Run a definition file in a throwaway sandbox and leave its returned table on the stack. */
static int run_definition(struct loader *ld, const struct catalog *cat, const char *src,
			  size_t len)
{
	int st = sandbox__load(ld->L, src, len, ld->origin);

	if (st == LUA_OK)
		st = sandbox__pcall(ld->L, 0, 1);
	if (st != LUA_OK) {
		const char *m = lua_tostring(ld->L, -1);
		char line[400];

		/* The first line of a traceback is the message; a syntax error already names the file. */
		snprintf(line, sizeof(line), "%s", m ? m : "error");
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, ld->origin, strlen(ld->origin)))
			snprintf(ld->err, ld->errlen, "%s", line);
		else
			snprintf(ld->err, ld->errlen, "%s: %s", ld->origin, line);
		return -EINVAL;
	}
	if (!lua_istable(ld->L, -1))
		LOAD_FAIL(ld, "must return a table");
	return 0;
}

static void methodology__free(struct methodology *m)
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
static int load_rules(struct loader *ld, int t, struct methodology *m)
{
	int type = lua_getfield(ld->L, t, "rules"), rc = 0;

	if (type == LUA_TNIL) {
		lua_pop(ld->L, 1);
		return 0;
	}
	if (type != LUA_TTABLE) {
		snprintf(ld->err, ld->errlen, "%s: field 'rules': must be a list of rules", ld->origin);
		lua_pop(ld->L, 1);
		return -EINVAL;
	}
	for (lua_Integer i = 1;; i++) {
		static const char *const fields[] = { "trigger", "run", "why", NULL };
		struct drill_rule r = { 0 }, *nr;
		int rt = lua_gettop(ld->L) + 1;

		if (lua_rawgeti(ld->L, -1, i) == LUA_TNIL) {
			lua_pop(ld->L, 1);
			break;
		}
		if (lua_type(ld->L, rt) != LUA_TTABLE) {
			snprintf(ld->err, ld->errlen, "%s: rules[%lld]: must be a table", ld->origin,
				 (long long)i);
			rc = -EINVAL;
		}
		if (!rc)
			rc = only_fields(ld, rt, fields);
		if (!rc)
			rc = field_string(ld, rt, "trigger", 1, &r.trigger);
		if (!rc)
			rc = field_string(ld, rt, "why", 1, &r.why);
		if (!rc)
			rc = field_strv(ld, rt, "run", &r.run, NULL, NULL);
		if (!rc && !r.run.n) {
			snprintf(ld->err, ld->errlen, "%s: rules[%lld]: field 'run': no check to run",
				 ld->origin, (long long)i);
			rc = -EINVAL;
		}
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
static int catalog__check_rules(struct catalog *cat, char *err, size_t errlen)
{
	for (size_t i = 0; i < cat->nmeth; i++)
		for (size_t k = 0; k < cat->meth[i].nrules; k++) {
			const struct drill_rule *r = &cat->meth[i].rules[k];

			if (!catalog__check(cat, r->trigger)) {
				snprintf(err, errlen, "methodologies/%s.lua: rules[%zu]: trigger '%s' is "
						      "not a check", cat->meth[i].id, k + 1, r->trigger);
				return -EINVAL;
			}
			for (size_t j = 0; j < r->run.n; j++) {
				const struct check_def *d = catalog__check(cat, r->run.v[j]);

				if (!d || strcmp(d->methodology, "drilldown")) {
					snprintf(err, errlen, "methodologies/%s.lua: rules[%zu]: '%s' is "
							      "not a drill-down check",
						 cat->meth[i].id, k + 1, r->run.v[j]);
					return -EINVAL;
				}
			}
		}
	return 0;
}

static int load_methodology(struct catalog *cat, const char *origin, const char *src, size_t len,
			    char *err, size_t errlen)
{
	static const char *const known[] = { "id", "title", "description", "order", "resources",
					     "metrics", "tags", "not_applicable", "rules", NULL };
	struct budget b;
	struct loader ld = { .origin = origin, .err = err, .errlen = errlen };
	struct methodology m = { 0 }, *nm;
	int t, rc;
	char expect[64];
	const char *base = strrchr(origin, '/');

	ld.L = sandbox__new(cat, &b, &engine_default_limits);
	if (!ld.L)
		return -ENOMEM;
	rc = run_definition(&ld, cat, src, len);
	if (rc)
		goto cleanup;
	t = lua_gettop(ld.L);
	if ((rc = only_fields(&ld, t, known)) || (rc = field_string(&ld, t, "id", 1, &m.id)) ||
	    (rc = field_string(&ld, t, "title", 1, &m.title)) ||
	    (rc = field_string(&ld, t, "description", 0, &m.description)) ||
	    (rc = field_strv(&ld, t, "resources", &m.resources, NULL, NULL)) ||
	    (rc = field_strv(&ld, t, "metrics", &m.metrics, NULL, NULL)) ||
	    (rc = field_strv(&ld, t, "tags", &m.tags, NULL, NULL)))
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
			if (lua_type(ld.L, -2) == LUA_TSTRING && lua_type(ld.L, -1) == LUA_TSTRING &&
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
	if ((rc = load_rules(&ld, t, &m)))
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
	methodology__free(&m);
	sandbox__close(ld.L);
	return rc;
}

static void check_def__free(struct check_def *d)
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

static int load_args(struct loader *ld, int t, struct check_def *d)
{
	int ty = lua_getfield(ld->L, t, "args");

	if (ty == LUA_TNIL) {
		lua_pop(ld->L, 1);
		return 0;
	}
	if (ty != LUA_TTABLE) {
		lua_pop(ld->L, 1);
		LOAD_FAIL(ld, "field 'args': must be a table of name = { type =, default = }");
	}
	lua_pushnil(ld->L);
	while (lua_next(ld->L, -2)) {
		struct check_arg a = { 0 };
		const char *ts;
		char name[80];
		struct check_arg *na;

		if (lua_type(ld->L, -2) != LUA_TSTRING || !lua_istable(ld->L, -1)) {
			lua_pop(ld->L, 3);
			LOAD_FAIL(ld, "field 'args': each entry must be name = { type =, default = }");
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
			LOAD_FAIL(ld, "field 'args.%s.type': must be \"number\", \"string\" or \"boolean\"",
				  name);
		}
		lua_pop(ld->L, 1);
		ty = lua_getfield(ld->L, -1, "default");
		if ((a.type == ARG_NUMBER && ty != LUA_TNUMBER) ||
		    (a.type == ARG_STRING && ty != LUA_TSTRING) ||
		    (a.type == ARG_BOOLEAN && ty != LUA_TBOOLEAN)) {
			lua_pop(ld->L, 4);
			LOAD_FAIL(ld, "field 'args.%s.default': must be a %s", name, ts);
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

/* "checks/use/cpu-saturation.lua" (rel = "use/cpu-saturation.lua") -> "use.cpu-saturation" */
static int id_from_path(const char *rel, char *id, size_t idlen, char *dir, size_t dirlen)
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

static int load_check(struct catalog *cat, const char *origin, const char *rel, const char *src,
		      size_t len, int user, char *err, size_t errlen)
{
	static const char *const known[] = { "id", "title", "description", "methodology",
					     "resource", "metric", "tags", "collect", "args",
					     "run", NULL };
	struct budget b;
	struct loader ld = { .origin = origin, .err = err, .errlen = errlen };
	struct check_def d = { 0 }, *nd;
	const struct methodology *m;
	char want_id[256], dir[128];
	int t, rc;

	if (id_from_path(rel, want_id, sizeof(want_id), dir, sizeof(dir))) {
		snprintf(err, errlen, "%s: a check lives at <methodology>/<resource>-<metric>.lua",
			 origin);
		return -EINVAL;
	}
	ld.L = sandbox__new(cat, &b, &engine_default_limits);
	if (!ld.L)
		return -ENOMEM;
	rc = run_definition(&ld, cat, src, len);
	if (rc)
		goto cleanup;
	t = lua_gettop(ld.L);
	if ((rc = only_fields(&ld, t, known)) || (rc = field_string(&ld, t, "id", 1, &d.id)) ||
	    (rc = field_string(&ld, t, "title", 1, &d.title)) ||
	    (rc = field_string(&ld, t, "description", 0, &d.description)) ||
	    (rc = field_string(&ld, t, "methodology", 1, &d.methodology)) ||
	    (rc = field_string(&ld, t, "resource", 1, &d.resource)) ||
	    (rc = field_string(&ld, t, "metric", 1, &d.metric)))
		goto cleanup;
	if (strcmp(d.id, want_id)) {
		snprintf(err, errlen, "%s: field 'id': '%.64s' does not match its path (expected '%s')",
			 origin, d.id, want_id);
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
	if ((rc = check_vocab(&ld, "resource", d.resource, &m->resources)) ||
	    (rc = check_vocab(&ld, "metric", d.metric, &m->metrics)) ||
	    (rc = field_strv(&ld, t, "tags", &d.tags, &m->tags, "the tags of this methodology")))
		goto cleanup;
	{
		struct strv known_collectors = { 0 };

		rc = 0;
		for (const struct collector *const *c = collectors; *c && !rc; c++)
			rc = strv__push(&known_collectors, (*c)->name);
		for (const struct trace_tool *const *tt = trace_tools; *tt && !rc; tt++) {
			char nm[64];

			snprintf(nm, sizeof(nm), "bpf.%s", (*tt)->name);
			rc = strv__push(&known_collectors, nm);
		}
		if (!rc)
			rc = strv__push(&known_collectors, PERF_COLLECTOR);
		if (rc)
			snprintf(err, errlen, "%s: out of memory", origin);
		else
			rc = field_strv(&ld, t, "collect", &d.collect, &known_collectors,
					"the collectors");
		strv__free(&known_collectors);
		if (rc)
			goto cleanup;
	}
	if ((rc = load_args(&ld, t, &d)))
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
		d.description = dup_n(src + 4, strcspn(src + 4, "\n"));
	d.origin = strdup(origin);
	d.source = dup_n(src, len);
	d.source_len = len;
	d.user = user;
	nd = realloc(cat->checks, (cat->nchecks + 1) * sizeof(*nd));
	if (!nd) {
		rc = -ENOMEM;
		goto cleanup;
	}
	cat->checks = nd;
	cat->checks[cat->nchecks++] = d;
	memset(&d, 0, sizeof(d));
cleanup:
	check_def__free(&d);
	sandbox__close(ld.L);
	return rc;
}

static int add_lib(struct catalog *cat, const char *name, const char *origin, const char *src,
		   size_t len, char *err, size_t errlen)
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
	cat->libs[cat->nlibs].source = dup_n(src, len);
	cat->libs[cat->nlibs].source_len = len;
	cat->nlibs++;
	return 0;
}

const struct embedded_file *embedded__find(const char *path)
{
	for (const struct embedded_file *f = embedded_files; f->path; f++)
		if (!strcmp(f->path, path))
			return f;
	return NULL;
}

static int lib_name_of(const char *file, char *name, size_t nlen)
{
	size_t l = strlen(file);

	if (l <= 4 || strcmp(file + l - 4, ".lua") || l - 4 >= nlen)
		return -EINVAL;
	snprintf(name, nlen, "%.*s", (int)(l - 4), file);
	return valid_lib_name(name) ? 0 : -EINVAL;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The .lua files of dir/sub, sorted (for a stable order of user checks). */
static int list_lua(const char *dir, struct strv *out)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (de->d_name[0] != '.' && l > 4 && !strcmp(de->d_name + l - 4, ".lua") &&
		    strv__push(out, de->d_name)) {
			closedir(d);
			return -ENOMEM;
		}
	}
	closedir(d);
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), cmp_str);
	return 0;
}

static int load_user_dir(struct catalog *cat, const char *udir, char *err, size_t errlen)
{
	struct stat sb;
	DIR *d;
	struct dirent *de;
	struct strv subdirs = { 0 };
	int rc = 0;

	if (stat(udir, &sb) || !S_ISDIR(sb.st_mode)) {
		snprintf(err, errlen, "--checks %s: %s", udir,
			 errno && !S_ISDIR(sb.st_mode) ? strerror(errno) : "not a directory");
		return -ENOTDIR;
	}
	d = opendir(udir);
	if (!d) {
		snprintf(err, errlen, "--checks %s: %s", udir, strerror(errno));
		return -errno;
	}
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && strv__push(&subdirs, de->d_name)) {
			closedir(d);
			strv__free(&subdirs);
			snprintf(err, errlen, "--checks %s: out of memory", udir);
			return -ENOMEM;
		}
	closedir(d);
	if (subdirs.n)
		qsort(subdirs.v, subdirs.n, sizeof(*subdirs.v), cmp_str);
	/* lib/ first: checks may require it at load time. */
	for (int pass = 0; pass < 2 && !rc; pass++) {
		for (size_t i = 0; i < subdirs.n && !rc; i++) {
			char path[4096];
			struct strv files = { 0 };
			int is_lib = !strcmp(subdirs.v[i], "lib");

			if (is_lib != (pass == 0))
				continue;
			snprintf(path, sizeof(path), "%s/%s", udir, subdirs.v[i]);
			if (stat(path, &sb) || !S_ISDIR(sb.st_mode))
				continue;
			list_lua(path, &files);
			for (size_t k = 0; k < files.n && !rc; k++) {
				char file[4400], rel[512], name[80], real[PATH_MAX];
				char *src = NULL;
				size_t len = 0;

				snprintf(file, sizeof(file), "%s/%s", path, files.v[k]);
				/* The user's own folder: a symlinked check is fine, so resolve it first. */
				rc = realpath(file, real) ? file__read_bounded(AT_FDCWD, real,
									 CHECK_FILE_MAX, &src, &len) :
							    -errno;
				if (rc) {
					snprintf(err, errlen, "%s: %s", file, strerror(-rc));
					break;
				}
				if (is_lib) {
					if (lib_name_of(files.v[k], name, sizeof(name))) {
						snprintf(err, errlen, "%s: a module name is [a-z0-9_-]+.lua",
							 file);
						rc = -EINVAL;
					} else
						rc = add_lib(cat, name, file, src, len, err, errlen);
				} else {
					snprintf(rel, sizeof(rel), "%s/%s", subdirs.v[i], files.v[k]);
					rc = load_check(cat, file, rel, src, len, 1, err, errlen);
				}
				free(src);
			}
			strv__free(&files);
		}
	}
	strv__free(&subdirs);
	return rc;
}

static int check_order(const struct catalog *cat, const struct check_def *d, int *mo, int *ro,
		       int *xo)
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

static int cmp_check(const void *a, const void *b, void *arg)
{
	const struct catalog *sort_cat = arg;
	const struct check_def *x = a, *y = b;
	int xm, xr, xx, ym, yr, yx;

	check_order(sort_cat, x, &xm, &xr, &xx);
	check_order(sort_cat, y, &ym, &yr, &yx);
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
	rc = load_check(&tmp, rel, rel, src, len, 1, err, errlen);
	for (size_t i = 0; i < tmp.nchecks; i++)
		check_def__free(&tmp.checks[i]);
	free(tmp.checks);
	return rc;
}

/*
 * ranking/verdict.lua is not a methodology: it holds the ranking rules (which
 * findings explain which, and each check's capacity-lost metric), read here
 * into the catalog; every check id it names must be a loaded check.
 */
#define VERDICT_FILE "ranking/verdict.lua"
#define VERDICT_MAX_RULES 256

static int verdict_check_id(struct loader *ld, const struct catalog *cat, const char *field,
			    const char *id)
{
	if (!catalog__check(cat, id))
		LOAD_FAIL(ld, "field '%s': '%.64s' is not a known check (see 'sonde list')", field, id);
	return 0;
}

static int verdict_capacity(struct loader *ld, struct catalog *cat)
{
	lua_pushnil(ld->L);
	while (lua_next(ld->L, -2)) {
		struct capacity_rule *nc;
		int rc;

		if (lua_type(ld->L, -2) != LUA_TSTRING || lua_type(ld->L, -1) != LUA_TSTRING) {
			lua_pop(ld->L, 2);
			LOAD_FAIL(ld, "field 'capacity': maps a check id to a metric name");
		}
		if (cat->ncapacity >= VERDICT_MAX_RULES) {
			lua_pop(ld->L, 2);
			LOAD_FAIL(ld, "field 'capacity': more than %d entries", VERDICT_MAX_RULES);
		}
		rc = verdict_check_id(ld, cat, "capacity", lua_tostring(ld->L, -2));
		nc = rc ? NULL : realloc(cat->capacity, (cat->ncapacity + 1) * sizeof(*nc));
		if (!nc) {
			lua_pop(ld->L, 2);
			return rc ? rc : -ENOMEM;
		}
		cat->capacity = nc;
		nc[cat->ncapacity].check = strdup(lua_tostring(ld->L, -2));
		nc[cat->ncapacity++].metric = strdup(lua_tostring(ld->L, -1));
		lua_pop(ld->L, 1);
	}
	return 0;
}

/* One entry of 'explains' (the table on top of the stack), errors named by ld->origin. */
static int verdict_rule(struct loader *ld, struct catalog *cat)
{
	static const char *const known[] = { "cause", "consequences", "when", "reason", NULL };
	char *cause = NULL, *when = NULL, *reason = NULL;
	struct strv cons = { 0 };
	int r = lua_gettop(ld->L), rc;

	if ((rc = only_fields(ld, r, known)) || (rc = field_string(ld, r, "cause", 1, &cause)) ||
	    (rc = field_string(ld, r, "when", 1, &when)) ||
	    (rc = field_string(ld, r, "reason", 1, &reason)) ||
	    (rc = field_strv(ld, r, "consequences", &cons, NULL, NULL)) ||
	    (rc = verdict_check_id(ld, cat, "cause", cause)))
		goto cleanup;
	if (strcmp(when, "always") && strcmp(when, "same_culprit") &&
	    strcmp(when, "same_culprit_or_kernel")) {
		int n = snprintf(ld->err, ld->errlen, "%s: ", ld->origin);

		snprintf(ld->err + n, ld->errlen - (size_t)n,
			 "field 'when': '%.32s' is not one of: always, same_culprit, "
			 "same_culprit_or_kernel",
			 when);
		rc = -EINVAL;
		goto cleanup;
	}
	for (size_t k = 0; k < cons.n; k++) {
		struct explain_rule *ne;

		if ((rc = verdict_check_id(ld, cat, "consequences", cons.v[k])))
			goto cleanup;
		if (cat->nexplains >= VERDICT_MAX_RULES) {
			snprintf(ld->err, ld->errlen, "%s: more than %d rules", VERDICT_FILE,
				 VERDICT_MAX_RULES);
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

static int load_verdict(struct catalog *cat, const char *src, size_t len, char *err,
			size_t errlen)
{
	static const char *const known[] = { "capacity", "explains", NULL };
	struct budget b;
	struct loader ld = { .origin = VERDICT_FILE, .err = err, .errlen = errlen };
	int t, rc;

	ld.L = sandbox__new(cat, &b, &engine_default_limits);
	if (!ld.L)
		return -ENOMEM;
	rc = run_definition(&ld, cat, src, len);
	if (rc || (rc = only_fields(&ld, lua_gettop(ld.L), known)))
		goto cleanup;
	t = lua_gettop(ld.L);
	if (lua_getfield(ld.L, t, "capacity") == LUA_TTABLE && (rc = verdict_capacity(&ld, cat)))
		goto cleanup;
	lua_settop(ld.L, t);
	if (lua_getfield(ld.L, t, "explains") == LUA_TTABLE) {
		lua_Integer n = (lua_Integer)lua_rawlen(ld.L, -1);

		for (lua_Integer i = 1; i <= n && !rc; i++) {
			char origin[96];

			snprintf(origin, sizeof(origin), "%s: explains[%lld]", VERDICT_FILE, (long long)i);
			ld.origin = origin;
			if (lua_rawgeti(ld.L, -1, i) != LUA_TTABLE) {
				snprintf(err, errlen, "%s: must be a table", origin);
				rc = -EINVAL;
			} else {
				rc = verdict_rule(&ld, cat);
			}
			lua_pop(ld.L, 1);
			ld.origin = VERDICT_FILE;
		}
	}
cleanup:
	sandbox__close(ld.L);
	return rc;
}

int catalog__load(struct catalog *cat, const char *user_dir, char *err, size_t errlen)
{
	const struct embedded_file *css;
	int rc = 0;

	memset(cat, 0, sizeof(*cat));
	for (const struct embedded_file *f = embedded_files; f->path && !rc; f++)
		if (!strncmp(f->path, "methodologies/", 14))
			rc = load_methodology(cat, f->path, f->data, f->len, err, errlen);
	for (const struct embedded_file *f = embedded_files; f->path && !rc; f++)
		if (!strncmp(f->path, "checks/lib/", 11)) {
			char name[80];

			if (!lib_name_of(f->path + 11, name, sizeof(name)))
				rc = add_lib(cat, name, f->path, f->data, f->len, err, errlen);
		}
	for (const struct embedded_file *f = embedded_files; f->path && !rc; f++)
		if (!strncmp(f->path, "checks/", 7) && strncmp(f->path, "checks/lib/", 11))
			rc = load_check(cat, f->path, f->path + 7, f->data, f->len, 0, err,
					errlen);
	/* The user's lib/ loads before the user's checks (load_user_dir does both). */
	if (!rc && user_dir)
		rc = load_user_dir(cat, user_dir, err, errlen);
	if (!rc)
		rc = catalog__check_rules(cat, err, errlen);
	if (!rc) {
		const struct embedded_file *v = embedded__find(VERDICT_FILE);

		if (v)
			rc = load_verdict(cat, v->data, v->len, err, errlen);
	}
	if (rc) {
		catalog__free(cat);
		return rc;
	}
	css = embedded__find("reports/report.css");
	cat->css = css ? dup_n(css->data, css->len) : strdup("");
	if (cat->nchecks)
		qsort_r(cat->checks, cat->nchecks, sizeof(*cat->checks), cmp_check, cat);
	return 0;
}

void catalog__free(struct catalog *cat)
{
	for (size_t i = 0; i < cat->nmeth; i++)
		methodology__free(&cat->meth[i]);
	free(cat->meth);
	for (size_t i = 0; i < cat->nchecks; i++)
		check_def__free(&cat->checks[i]);
	free(cat->checks);
	for (size_t i = 0; i < cat->nlibs; i++) {
		free(cat->libs[i].name);
		free(cat->libs[i].origin);
		free(cat->libs[i].source);
	}
	free(cat->libs);
	free(cat->css);
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
	memset(cat, 0, sizeof(*cat));
}

const struct methodology *catalog__methodology(const struct catalog *cat, const char *id)
{
	for (size_t i = 0; i < cat->nmeth; i++)
		if (!strcmp(cat->meth[i].id, id))
			return &cat->meth[i];
	return NULL;
}

const struct check_def *catalog__check(const struct catalog *cat, const char *id)
{
	for (size_t i = 0; i < cat->nchecks; i++)
		if (!strcmp(cat->checks[i].id, id))
			return &cat->checks[i];
	return NULL;
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

/* ---- running a check ---- */

static void push_args(lua_State *L, const struct check_def *d)
{
	lua_createtable(L, 0, (int)d->nargs);
	for (size_t i = 0; i < d->nargs; i++) {
		const struct check_arg *a = &d->args[i];

		if (a->type == ARG_NUMBER)
			lua_pushnumber(L, a->num);
		else if (a->type == ARG_STRING)
			lua_pushstring(L, a->str ? a->str : "");
		else
			lua_pushboolean(L, a->boolean);
		lua_setfield(L, -2, a->name);
	}
}

static void set_error(struct check_result *out, const char *msg)
{
	const char *nl = strchr(msg, '\n');

	free(out->error);
	free(out->traceback);
	out->error = nl ? dup_n(msg, (size_t)(nl - msg)) : strdup(msg);
	out->traceback = nl ? strdup(nl + 1) : NULL;
}

static void derive_status(struct check_result *out)
{
	enum status worst = ST_OK;
	double score = 0;

	if (!out->nmetrics) {
		out->st = out->nunknowns ? ST_UNKNOWN : ST_OK;
		return;
	}
	for (size_t i = 0; i < out->nmetrics; i++) {
		struct metric *m = &out->metrics[i];
		double thr = m->st == ST_CRIT ? m->crit : m->warn, s = 0;

		if (status__rank(m->st) > status__rank(worst))
			worst = m->st;
		if ((m->st == ST_WARN || m->st == ST_CRIT) && thr != 0)
			s = m->lower_is_worse ? thr / (m->value ? m->value : 1e-9) : m->value / thr;
		if (s > score)
			score = s;
	}
	out->st = worst;
	out->score = score;
}

/* Run one check in this process (the child, see engine__run_check). */
static void run_check_here(const struct catalog *cat, const struct check_def *def,
			   struct analysis *an, const struct engine_limits *lim,
			   struct check_result *out)
{
	struct budget b;
	int64_t t0 = clock__ns(CLOCK_MONOTONIC);
	lua_State *L;
	int st;

	memset(out, 0, sizeof(*out));
	out->def = def;
	L = sandbox__new(cat, &b, lim);
	if (!L) {
		out->st = ST_ERROR;
		set_error(out, "cannot create a Lua state (out of memory)");
		return;
	}
	st = sandbox__load(L, def->source, def->source_len, def->origin);
	if (st == LUA_OK)
		st = sandbox__pcall(L, 0, 1);
	if (st == LUA_OK && lua_istable(L, -1) && lua_getfield(L, -1, "run") == LUA_TFUNCTION) {
		lua_modules__push_ctx(L, an, out);
		push_args(L, def);
		lua_pushvalue(L, -1);
		lua_setfield(L, -3, "args");
		st = sandbox__pcall(L, 2, 0);
	} else if (st == LUA_OK) {
		lua_pushstring(L, "the check did not return a table with run()");
		st = LUA_ERRRUN;
	}
	if (st != LUA_OK) {
		const char *msg = lua_tostring(L, -1);
		char why[256];

		out->st = ST_ERROR;
		if (b.doomed && strcmp(b.why, "closing")) {
			/* The budget is the reason, whatever message the unwinding produced. */
			snprintf(why, sizeof(why), "%s", b.why);
			set_error(out, msg ? msg : why);
			free(out->error);
			out->error = strdup(why);
		} else {
			set_error(out, msg ? msg : "error (no message)");
		}
	} else {
		derive_status(out);
	}
	out->instructions = b.instructions;
	out->mem_peak = b.peak;
	sandbox__close(L);
	out->elapsed_ms = (double)(clock__ns(CLOCK_MONOTONIC) - t0) / 1e6;
}

/* How far past its own wall budget a check's process may go before it is killed from outside. */
#define WATCHDOG_GRACE_S 1.0
/* A result larger than this is not a result. */
#define RESULT_MAX (64u << 20)

static void set_failure(struct check_result *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void set_failure(struct check_result *out, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	check_result__free(out);
	out->st = ST_ERROR;
	out->error = strdup(msg);
}

/*
 * Each check runs in a child process: the hook and the allocator stop what Lua
 * can stop, and the parent's watchdog kills what it cannot (a pathological
 * pattern match is C code that never returns to the hook). A crash in a check
 * is contained the same way. The child inherits the captures copy-on-write
 * and sends its result back through a pipe (check_result__encode).
 */
void engine__run_check(const struct catalog *cat, const struct check_def *def,
		       struct analysis *an, const struct engine_limits *lim,
		       struct check_result *out)
{
	const struct task_summary *tasks;
	struct strbuf buf = { 0 };
	int64_t t0 = clock__ns(CLOCK_MONOTONIC), deadline;
	size_t ntasks;
	int fds[2], status = 0, killed = 0;
	pid_t pid, parent;

	memset(out, 0, sizeof(*out));
	/* Built once here, so that children share them instead of each building its own. */
	analysis__tasks(an, &tasks, &ntasks);
	if (pipe2(fds, O_CLOEXEC)) {
		run_check_here(cat, def, an, lim, out);
		return;
	}
	fflush(NULL);
	parent = getpid();
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		run_check_here(cat, def, an, lim, out);
		return;
	}
	if (pid == 0) {
		struct check_result r;
		struct strbuf sb = { 0 };

		/* A check must not outlive a sonde that was killed (kill -9 included). */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
		close(fds[0]);
		run_check_here(cat, def, an, lim, &r);
		check_result__encode(&r, &sb);
		_exit(sb.oom || fd__write_all(fds[1], sb.buf, sb.len) ? 2 : 0);
	}
	close(fds[1]);
	deadline = t0 + (int64_t)((lim->wall_s + WATCHDOG_GRACE_S) * 1e9);
	for (;;) {
		int64_t now = clock__ns(CLOCK_MONOTONIC);
		struct pollfd p = { .fd = fds[0], .events = POLLIN };
		char chunk[65536];
		ssize_t n;
		int rc;

		if (now >= deadline || buf.len > RESULT_MAX) {
			kill(pid, SIGKILL);
			killed = 1;
			break;
		}
		rc = poll(&p, 1, (int)((deadline - now) / 1000000 + 1));
		if (rc <= 0)
			continue; /* timeout or EINTR: the deadline test decides */
		n = read(fds[0], chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		strbuf__append(&buf, chunk, (size_t)n);
	}
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (killed)
		set_failure(out, "stopped from outside after %.1f s: stuck where the Lua hook cannot "
				 "reach (a pathological pattern match, or a long C call)",
			    (double)(clock__ns(CLOCK_MONOTONIC) - t0) / 1e9);
	else if (WIFSIGNALED(status))
		set_failure(out, "the check's process died: %s", strsignal(WTERMSIG(status)));
	else if (buf.oom || check_result__decode(out, buf.buf, buf.len))
		set_failure(out, "the check's process returned no readable result (exit status %d)",
			    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	out->def = def;
	if (out->st == ST_ERROR && !out->elapsed_ms)
		out->elapsed_ms = (double)(clock__ns(CLOCK_MONOTONIC) - t0) / 1e6;
	strbuf__free(&buf);
}
