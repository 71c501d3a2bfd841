// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The sandbox: the state a check, a lib module or a definition file runs in.
 *
 * Each check runs in its own lua_State, created with a counting allocator
 * (memory cap) and a count hook (instruction and wall-clock budget). Once a
 * budget is blown the state is "doomed": the allocator refuses growth past
 * the cap and the hook raises an error on every instruction, so a check that
 * wraps its loop in pcall gets the error again at its very next instruction
 * and unwinds all the way out. Only one allow-list of the standard library
 * and our wrappers is reachable (sandbox_globals),
 * through an environment table whose metatable makes reading or writing an
 * undeclared global an error; never luaL_openlibs. require() finds only the
 * modules of checks/lib (and a user's --checks DIR/lib).
 *
 * Lua runs message handlers (after an error raised by a hook) and __gc
 * finalizers with hooks off, and its pattern matcher is C code the hook never
 * interrupts; so xpcall handlers are skipped once a check is doomed, __gc is
 * refused, and beyond all that each check runs in a worker process that the
 * parent kills when the check's wall-clock budget is past (engine.c).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "util/clock.h"
#include "util/strbuf.h"
#include "lua/sandbox.h"

#define HOOK_EVERY 1000

/* ---- budgets ---- */

static void sandbox_doom(struct budget *b, const char *why)
{
	if (!b->doomed) {
		b->doomed = 1;
		snprintf(b->why, sizeof(b->why), "%s", why);
	}
}

static void *sandbox_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
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
		sandbox_doom(b, why);
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

static struct budget *sandbox_budget(lua_State *L)
{
	void *ud;

	lua_getallocf(L, &ud);
	return ud;
}

static void sandbox_hook(lua_State *L, lua_Debug *ar)
{
	struct budget *b = sandbox_budget(L);

	b->instructions += HOOK_EVERY;
	if (!b->doomed) {
		if (b->instructions > b->max_instructions)
			sandbox_doom(b, "instruction budget exceeded");
		else if (clock__ns(CLOCK_MONOTONIC) > b->deadline_ns)
			sandbox_doom(b, "time budget exceeded");
	}
	if (b->doomed) {
		/* From now on every instruction raises: pcall cannot keep the check alive. */
		lua_sethook(L, sandbox_hook, LUA_MASKCOUNT, 1);
		luaL_error(L, "check stopped: %s", b->why);
	}
}

int sandbox__stop(lua_State *L, const char *fmt, ...)
{
	struct budget *b = sandbox_budget(L);
	char why[sizeof(b->why)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	sandbox_doom(b, why);
	lua_sethook(L, sandbox_hook, LUA_MASKCOUNT, 1);
	return luaL_error(L, "check stopped: %s", b->why);
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
	if (sandbox_budget(L)->doomed)
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

int sandbox__lib_name_ok(const char *s)
{
	if (!*s || strlen(s) > 64)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_' ||
		      *s == '-'))
			return 0;
	return 1;
}

/*
 * A chunk's compiled form, kept by this process: a run compiles each check
 * and each checks/lib module once (at the catalog's load, before the checks'
 * workers fork and inherit them) instead of again in every check's state: a
 * module was compiled once a check that requires it, most of the checks'
 * loading time (63 checks, 95 KB of modules). Only what this process compiled
 * is loaded as binary, for the same text under the same name (compared whole,
 * the hash only finds the candidate); a chunk whose dump fails is not kept.
 */
#define CHUNK_CACHE_MAX 256

static struct chunk_compiled {
	uint64_t hash;
	char *text, *name;
	size_t len;
	char *code;
	size_t code_len;
} chunk_cache[CHUNK_CACHE_MAX];
static size_t chunks_cached;

static uint64_t text_hash(const char *s, size_t n, const char *name)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 1099511628211ULL;
	return h;
}

static int dump_to(lua_State *L, const void *p, size_t sz, void *ud)
{
	(void)L;
	strbuf__append(ud, p, sz);
	return ((struct strbuf *)ud)->oom;
}

/* Leave the chunk of text src on the stack, compiled once a process; LUA_OK or the error. */
static int load_cached(lua_State *L, const char *src, size_t len, const char *chunkname)
{
	uint64_t h = text_hash(src, len, chunkname);
	struct strbuf sb = { 0 };
	struct chunk_compiled *c;
	int st;

	for (size_t i = 0; i < chunks_cached; i++) {
		c = &chunk_cache[i];
		if (c->hash == h && c->len == len && !memcmp(c->text, src, len) &&
		    !strcmp(c->name, chunkname))
			return luaL_loadbufferx(L, c->code, c->code_len, chunkname, "b");
	}
	st = luaL_loadbufferx(L, src, len, chunkname, "t");
	if (st != LUA_OK || chunks_cached >= CHUNK_CACHE_MAX)
		return st;
	c = &chunk_cache[chunks_cached];
	if (lua_dump(L, dump_to, &sb, 0) || sb.oom || !(c->text = malloc(len ? len : 1)) ||
	    !(c->name = strdup(chunkname))) {
		free(c->text);
		c->text = NULL;
		strbuf__free(&sb);
		return st;
	}
	memcpy(c->text, src, len);
	c->hash = h;
	c->len = len;
	c->code = sb.buf;
	c->code_len = sb.len;
	chunks_cached++;
	return st;
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
	if (!sandbox__lib_name_ok(name))
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
		if (load_cached(L, lib->source, lib->source_len, chunkname) != LUA_OK)
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

static const char *const sandbox_os_fields[] = { "time", "clock", "date", "difftime", NULL };

/*
 * The one allow-list: every global a check sees, and nothing else (never
 * luaL_openlibs). A base function is the standard one unless we replace it
 * (ours) where it would open a way out of the sandbox; a library is opened
 * with open and copied into the check's environment (so edits stay there),
 * all of it but drop, or only fields.
 */
static const struct sandbox_global {
	const char *name;
	lua_CFunction ours;
	lua_CFunction open;
	const char *const *fields;
	const char *drop;
} sandbox_globals[] = {
#define STANDARD(fn) { .name = fn }
	STANDARD("_VERSION"), STANDARD("assert"), STANDARD("error"), STANDARD("getmetatable"),
	STANDARD("ipairs"), STANDARD("next"), STANDARD("pairs"), STANDARD("pcall"),
	STANDARD("rawequal"), STANDARD("rawget"), STANDARD("rawlen"), STANDARD("select"),
	STANDARD("tonumber"), STANDARD("tostring"), STANDARD("type"),
#undef STANDARD
	{ .name = "rawset", .ours = sandbox_rawset },             /* not on the environment */
	{ .name = "xpcall", .ours = sandbox_xpcall },             /* no handler once stopped */
	{ .name = "setmetatable", .ours = sandbox_setmetatable }, /* no __gc */
	{ .name = "load", .ours = sandbox_load },                 /* text only, in the sandbox */
	{ .name = "require", .ours = sandbox_require },           /* checks/lib only */
	{ .name = LUA_STRLIBNAME, .open = luaopen_string, .drop = "dump" }, /* no bytecode out */
	{ .name = LUA_TABLIBNAME, .open = luaopen_table },
	{ .name = LUA_MATHLIBNAME, .open = luaopen_math },
	{ .name = LUA_UTF8LIBNAME, .open = luaopen_utf8 },
	{ .name = LUA_OSLIBNAME, .open = luaopen_os, .fields = sandbox_os_fields },
	{ .name = "units", .open = luaopen_units },               /* numbers for people */
	{ .name = NULL },
};

/* Library g, opened, into the environment at env as a copy of the fields it allows. */
static void sandbox_library(lua_State *L, int env, const struct sandbox_global *g)
{
	luaL_requiref(L, g->name, g->open, 0);
	lua_newtable(L);
	if (g->fields) {
		for (const char *const *f = g->fields; *f; f++) {
			lua_getfield(L, -2, *f);
			lua_setfield(L, -2, *f);
		}
	} else {
		lua_pushnil(L);
		while (lua_next(L, -3)) {
			lua_pushvalue(L, -2);
			lua_insert(L, -2);
			lua_settable(L, -4);
		}
	}
	if (g->drop) {
		lua_pushnil(L);
		lua_setfield(L, -2, g->drop);
		/* The library is reachable too (the string metatable's __index): drop it there. */
		lua_pushnil(L);
		lua_setfield(L, -3, g->drop);
	}
	lua_setfield(L, env, g->name);
	lua_pop(L, 1);
}

/* The table checks see as their globals: the allow-list, strict about the rest. */
static void sandbox_env(lua_State *L)
{
	int env;

	lua_newtable(L);
	env = lua_gettop(L);
	luaL_requiref(L, LUA_GNAME, luaopen_base, 0);
	/* the standard setmetatable, for our wrapper to call */
	lua_getfield(L, -1, "setmetatable");
	lua_setfield(L, LUA_REGISTRYINDEX, "sonde.setmetatable");
	for (const struct sandbox_global *g = sandbox_globals; g->name; g++) {
		if (g->open) {
			sandbox_library(L, env, g);
			continue;
		}
		if (g->ours)
			lua_pushcfunction(L, g->ours);
		else
			lua_getfield(L, env + 1, g->name);
		lua_setfield(L, env, g->name);
	}
	lua_pop(L, 1);

	lua_newtable(L); /* strict metatable */
	lua_pushcfunction(L, sandbox_undeclared_read);
	lua_setfield(L, -2, "__index");
	lua_pushcfunction(L, sandbox_undeclared_write);
	lua_setfield(L, -2, "__newindex");
	lua_pushstring(L, "the global environment is locked");
	lua_setfield(L, -2, "__metatable");
	lua_setmetatable(L, env);
}

lua_State *sandbox__new(const struct catalog *cat, struct budget *b,
			const struct engine_limits *lim)
{
	lua_State *L;

	memset(b, 0, sizeof(*b));
	b->cap = lim->mem_bytes;
	b->max_instructions = lim->instructions;
	b->deadline_ns = clock__ns(CLOCK_MONOTONIC) + (int64_t)(lim->wall_s * 1e9);
	L = lua_newstate(sandbox_alloc, b);
	if (!L)
		return NULL;
	sandbox_env(L);
	lua_setfield(L, LUA_REGISTRYINDEX, REG_ENV);
	lua_newtable(L);
	lua_setfield(L, LUA_REGISTRYINDEX, REG_LOADED);
	lua_pushlightuserdata(L, (void *)cat);
	lua_setfield(L, LUA_REGISTRYINDEX, REG_CATALOG);
	lua_sethook(L, sandbox_hook, LUA_MASKCOUNT, HOOK_EVERY);
	return L;
}

void sandbox__close(lua_State *L)
{
	struct budget *b = sandbox_budget(L);

	/* Finalizers a check left behind run at close: doom them so none can loop. */
	sandbox_doom(b, "closing");
	lua_sethook(L, sandbox_hook, LUA_MASKCOUNT, 1);
	lua_close(L);
}

/* Load a chunk as text with the sandbox environment; leaves the function or an error. */
int sandbox__load(lua_State *L, const char *src, size_t len, const char *origin)
{
	char chunkname[512];
	int st;

	snprintf(chunkname, sizeof(chunkname), "@%s", origin);
	st = load_cached(L, src, len, chunkname);
	if (st != LUA_OK)
		return st;
	lua_getfield(L, LUA_REGISTRYINDEX, REG_ENV);
	lua_setupvalue(L, -2, 1);
	return LUA_OK;
}

/* Message handler: never runs user code (no __tostring on a hostile error object). */
static int sandbox_msgh(lua_State *L)
{
	struct budget *b = sandbox_budget(L);
	const char *msg = lua_tostring(L, 1);

	/* Leave room to build the message even after a memory bomb. */
	b->cap += 1u << 20;
	if (!msg)
		msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
	luaL_traceback(L, L, msg, 1);
	return 1;
}

int sandbox__pcall(lua_State *L, int nargs, int nres)
{
	int base = lua_gettop(L) - nargs, st;

	lua_pushcfunction(L, sandbox_msgh);
	lua_insert(L, base);
	st = lua_pcall(L, nargs, nres, base);
	lua_remove(L, base);
	return st;
}
