// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ctx.proc.containers(): the containers and Kubernetes pods of the window
 * (collect/analysis_containers.c), named as their owners name them, with
 * the cgroups and processes that are theirs. checks/lib/containers.lua is
 * what the checks use.
 */
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "collect/analysis.h"
#include "lua/ctx.h"

static void ct_str(lua_State *L, const char *k, const char *v)
{
	if (!v || !*v)
		return;
	lua_pushstring(L, v);
	lua_setfield(L, -2, k);
}

static void ct_pod(lua_State *L, const struct container_set *s, const struct container_pod *p)
{
	char label[600];
	struct container_cgroup g = { .container = -1, .pod = (int)(p - s->pods) };

	lua_newtable(L);
	ct_str(L, "uid", p->uid);
	ct_str(L, "namespace", p->namespace);
	ct_str(L, "name", p->name);
	ct_str(L, "qos", p->qos);
	ct_str(L, "why", p->why);
	container_set__label(s, &g, label, sizeof(label));
	ct_str(L, "label", label);
}

static void ct_container(lua_State *L, const struct container_set *s, const struct container *c,
			 int pods)
{
	char label[600], shortid[16];
	struct container_cgroup g = { .container = (int)(c - s->c), .pod = c->pod };

	lua_newtable(L);
	ct_str(L, "id", c->id);
	snprintf(shortid, sizeof(shortid), "%.12s", c->id);
	ct_str(L, "short", shortid);
	ct_str(L, "runtime", c->runtime[0] ? c->runtime : NULL);
	ct_str(L, "name", c->name);
	ct_str(L, "image", c->image);
	ct_str(L, "k8s_container", c->k8s_container);
	ct_str(L, "kind", c->kind);
	ct_str(L, "class", c->machine_class);
	if (!c->name && !c->k8s_container && !(c->kind && !strcmp(c->kind, "sandbox")))
		ct_str(L, "why", c->why ? c->why : s->has_record ? "no state of its runtime names it" :
		       "the capture predates sonde's reading of the runtimes' state: id only");
	container_set__label(s, &g, label, sizeof(label));
	ct_str(L, "label", label);
	if (c->pid > 0) {
		lua_pushinteger(L, c->pid);
		lua_setfield(L, -2, "pid");
	}
	lua_pushinteger(L, c->npids);
	lua_setfield(L, -2, "processes");
	if (c->pod >= 0) {
		lua_rawgeti(L, pods, c->pod + 1);
		lua_setfield(L, -2, "pod");
	}
	lua_newtable(L);
	lua_setfield(L, -2, "cgroups");
}

/*
 * ctx.proc.containers() -> { container, ..., pods = { pod, ... }, cgroups = { [path] = { label,
 * container, pod, monitor, focus } }, pids = { [pid] = path }, names = bool } or nil, reason.
 * See docs/writing-a-check.md for the fields.
 */
int ctx_proc__containers(lua_State *L)
{
	const struct capture_stream *st = ctx__stream(L, "proc.cgroups");
	struct analysis *an = ctx__analysis(L);
	const struct container_set *s;
	int res, pods, cgs;

	if (!st || analysis__containers(an, &s))
		return ctx__missing(L, st, "proc.cgroups", "sonde:cgroups", NULL);
	lua_newtable(L);
	res = lua_gettop(L);
	lua_newtable(L);
	pods = lua_gettop(L);
	for (size_t i = 0; i < s->npods; i++) {
		ct_pod(L, s, &s->pods[i]);
		lua_rawseti(L, pods, (lua_Integer)i + 1);
	}
	for (size_t i = 0; i < s->n; i++) {
		ct_container(L, s, &s->c[i], pods);
		lua_rawseti(L, res, (lua_Integer)i + 1);
	}
	lua_newtable(L);
	cgs = lua_gettop(L);
	for (size_t k = 0; k < s->ncg; k++) {
		const struct container_cgroup *g = &s->cg[k];
		char label[600];

		lua_newtable(L);
		container_set__label(s, g, label, sizeof(label));
		ct_str(L, "label", label);
		if (g->container >= 0) {
			lua_rawgeti(L, res, g->container + 1);
			/* the container's own list of its cgroups */
			lua_getfield(L, -1, "cgroups");
			lua_pushstring(L, g->rel);
			lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
			lua_pop(L, 1);
			lua_setfield(L, -2, "container");
		}
		if (g->pod >= 0) {
			lua_rawgeti(L, pods, g->pod + 1);
			lua_setfield(L, -2, "pod");
		}
		lua_pushboolean(L, g->monitor);
		lua_setfield(L, -2, "monitor");
		if (container_set__in_focus(s, g, an->focus_container, an->focus_pod)) {
			lua_pushboolean(L, 1);
			lua_setfield(L, -2, "focus");
		}
		lua_setfield(L, cgs, g->rel);
	}
	lua_newtable(L);
	for (size_t i = 0; i < s->by_pid.cap; i++) {
		const int *pe = pidmap__slot(&s->by_pid, i);
		const struct container_cgroup *g = pe ? container_set__of_pid(s, *pe) : NULL;

		if (g) {
			lua_pushstring(L, g->rel);
			lua_rawseti(L, -2, *pe);
		}
	}
	lua_setfield(L, res, "pids");
	lua_pushvalue(L, cgs);
	lua_setfield(L, res, "cgroups");
	lua_pushvalue(L, pods);
	lua_setfield(L, res, "pods");
	lua_pushboolean(L, s->has_record);
	lua_setfield(L, res, "names");
	lua_settop(L, res);
	return 1;
}
