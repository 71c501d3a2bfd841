// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The containers and pods of a window (analysis.h, struct container_set):
 * proc.cgroups' kept cgroups decoded by their paths (util/cgpath.h), joined
 * with what sonde:containers read of the runtimes' state, and the processes
 * each cgroup listed at either end of the window. A bundle without
 * sonde:containers (an earlier sonde's) still gets its containers from the
 * paths, by id, without names.
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/analysis.h"
#include "util/cgpath.h"
#include "util/parse.h"
#include "util/pidmap.h"

#define CS_MAX_CONTAINERS 1024
#define CS_MAX_PODS 512
#define CS_MAX_HIER 16

struct pid_entry {
	int pid;
	int cgroup; /* index in set->cg + 1 */
};

/* The first record of path (the cgroup listings and facts are written once, in the first round). */
static const struct capture_rec *cs_first(const struct capture_stream *st,
							const char *path)
{
	for (size_t i = 0; i < st->n; i++)
		if (!strcmp(st->rec[i].path, path))
			return &st->rec[i];
	return NULL;
}

/* "KEY\tFIELD\tVALUE": the value's \\t \\n \\\\ undone (collect/containers.c). */
static char *cs_unescape(const char *s, size_t n)
{
	char *out = malloc(n + 1);
	size_t o = 0;

	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 1 < n) {
			i++;
			out[o++] = s[i] == 't' ? '\t' : s[i] == 'n' ? '\n' : s[i];
		} else {
			out[o++] = s[i];
		}
	}
	out[o] = '\0';
	return out;
}

static struct container *cs_container(struct container_set *s, const char *id)
{
	struct container *c;

	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->c[i].id, id))
			return &s->c[i];
	if (s->n >= CS_MAX_CONTAINERS || strlen(id) >= sizeof(c->id))
		return NULL;
	c = realloc(s->c, (s->n + 1) * sizeof(*c));
	if (!c)
		return NULL;
	s->c = c;
	c += s->n++;
	memset(c, 0, sizeof(*c));
	snprintf(c->id, sizeof(c->id), "%s", id);
	c->pod = -1;
	return c;
}

static struct container_pod *cs_pod(struct container_set *s, const char *uid)
{
	struct container_pod *p;

	for (size_t i = 0; i < s->npods; i++)
		if (!strcmp(s->pods[i].uid, uid))
			return &s->pods[i];
	if (s->npods >= CS_MAX_PODS || strlen(uid) >= sizeof(p->uid))
		return NULL;
	p = realloc(s->pods, (s->npods + 1) * sizeof(*p));
	if (!p)
		return NULL;
	s->pods = p;
	p += s->npods++;
	memset(p, 0, sizeof(*p));
	snprintf(p->uid, sizeof(p->uid), "%s", uid);
	return p;
}

/* A field of a container or pod: the first value wins (sources are read best first). */
static void cs_set(char **slot, char *v)
{
	if (*slot || !v || !*v) {
		free(v);
		return;
	}
	*slot = v;
}

static void cs_cgroup_fact(struct container *c, char *v)
{
	char **nv;

	if (!v || c->nstate_cgroups >= 16) {
		free(v);
		return;
	}
	nv = realloc(c->state_cgroups, (c->nstate_cgroups + 1) * sizeof(*nv));
	if (!nv) {
		free(v);
		return;
	}
	c->state_cgroups = nv;
	nv[c->nstate_cgroups++] = v;
}

static void cs_fact(struct container_set *s, const char *key, const char *field, char *v)
{
	if (!strncmp(key, "pod:", 4)) {
		struct container_pod *p = cs_pod(s, key + 4);

		if (!p)
			free(v);
		else if (!strcmp(field, "namespace"))
			cs_set(&p->namespace, v);
		else if (!strcmp(field, "name"))
			cs_set(&p->name, v);
		else if (!strcmp(field, "why"))
			cs_set(&p->why, v);
		else
			free(v);
		return;
	}
	struct container *c = cs_container(s, key);

	if (!c) {
		free(v);
		return;
	}
	c->facts = 1;
	if (!strcmp(field, "runtime") && v && strlen(v) < sizeof(c->runtime)) {
		snprintf(c->runtime, sizeof(c->runtime), "%s", v);
		free(v);
	} else if (!strcmp(field, "pid")) {
		int64_t pid;

		c->pid = v && !parse_kv_i64(v, strlen(v), &pid) && pid > 0 && pid <= INT_MAX ?
				 (int)pid : 0;
		free(v);
	} else if (!strcmp(field, "cgroup")) {
		cs_cgroup_fact(c, v);
	} else {
		static const struct {
			const char *field;
			size_t off;
		} f[] = {
			{ "name", offsetof(struct container, name) },
			{ "image", offsetof(struct container, image) },
			{ "k8s-container", offsetof(struct container, k8s_container) },
			{ "pod-name", offsetof(struct container, pod_name) },
			{ "pod-namespace", offsetof(struct container, pod_namespace) },
			{ "pod-uid", offsetof(struct container, pod_uid_fact) },
			{ "kind", offsetof(struct container, kind) },
			{ "why", offsetof(struct container, why) },
			{ "class", offsetof(struct container, machine_class) },
		};

		for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
			if (!strcmp(field, f[i].field)) {
				cs_set((char **)((char *)c + f[i].off), v);
				return;
			}
		free(v);
	}
}

/* The record sonde:containers into containers and pods. */
static void cs_facts(struct container_set *s, const struct capture_rec *r)
{
	const char *p = r->data, *end = r->data + r->len;

	s->has_record = 1;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end, *t1 = memchr(p, '\t', (size_t)(le - p)), *t2;
		char key[160], field[32];

		t2 = t1 ? memchr(t1 + 1, '\t', (size_t)(le - t1 - 1)) : NULL;
		if (t2 && (size_t)(t1 - p) < sizeof(key) && (size_t)(t2 - t1 - 1) < sizeof(field)) {
			snprintf(key, sizeof(key), "%.*s", (int)(t1 - p), p);
			snprintf(field, sizeof(field), "%.*s", (int)(t2 - t1 - 1), t1 + 1);
			cs_fact(s, key, field, cs_unescape(t2 + 1, (size_t)(le - t2 - 1)));
		}
		p = le + 1;
	}
}

/* The container whose runtime state names cgroup dir (mount + rel), or a directory above it. */
static struct container *cs_by_state(struct container_set *s, const char *full, const char *rel)
{
	for (size_t i = 0; i < s->n; i++)
		for (size_t k = 0; k < s->c[i].nstate_cgroups; k++) {
			const char *v = s->c[i].state_cgroups[k];
			size_t vl = strlen(v);

			if (!strcmp(v, full) || !strcmp(v, rel) ||
			    (!strncmp(full, v, vl) && full[vl] == '/'))
				return &s->c[i];
		}
	return NULL;
}

static int cs_add_cgroup(struct container_set *s, const char *rel, int container, int pod,
			 int monitor)
{
	struct container_cgroup *g;

	for (size_t i = 0; i < s->ncg; i++)
		if (!strcmp(s->cg[i].rel, rel))
			return (int)i;
	g = realloc(s->cg, (s->ncg + 1) * sizeof(*g));
	if (!g)
		return -1;
	s->cg = g;
	g += s->ncg;
	g->rel = strdup(rel);
	if (!g->rel)
		return -1;
	g->container = container;
	g->pod = pod;
	g->monitor = monitor;
	return (int)s->ncg++;
}

/* One kept cgroup (rel, below mount): its container or pod, if any. */
static void cs_kept(struct container_set *s, const char *mount, const char *rel)
{
	struct cgpath_container d;
	enum cgpath_role role = cgpath__container(rel, &d);
	struct container *c = NULL;
	struct container_pod *p = NULL;
	char full[1024];

	snprintf(full, sizeof(full), "%s%s", mount, rel);
	if (d.pod_uid[0] && (p = cs_pod(s, d.pod_uid)) && !p->qos[0])
		snprintf(p->qos, sizeof(p->qos), "%s", d.qos);
	if (role == CGPATH_CONTAINER || role == CGPATH_MONITOR) {
		c = cs_container(s, d.id);
		if (c && !c->runtime[0])
			snprintf(c->runtime, sizeof(c->runtime), "%s", d.runtime);
	} else if (role == CGPATH_NONE) {
		c = cs_by_state(s, full, rel);
	}
	if (c && p && c->pod < 0)
		c->pod = (int)(p - s->pods);
	if (c || p)
		cs_add_cgroup(s, rel, c ? (int)(c - s->c) : -1, p ? (int)(p - s->pods) : -1,
			      role == CGPATH_MONITOR);
}

struct cs_pid_walk {
	struct container_set *s;
	int g;
};

/* A pid of cgroup g's cgroup.procs (parse_pid_list): g is its cgroup when deeper than the last. */
static int cs_pid(int pid, void *arg)
{
	const struct cs_pid_walk *w = arg;
	struct container_set *s = w->s;
	struct pid_entry *pe = pidmap__get(&s->by_pid, pid);

	if (pe && (!pe->cgroup || strlen(s->cg[pe->cgroup - 1].rel) < strlen(s->cg[w->g].rel)))
		pe->cgroup = w->g + 1;
	return 0;
}

/* Every pid a kept cgroup listed (cgroup.procs, at either end) to its deepest cgroup. */
static void cs_pids(struct container_set *s, const struct capture_stream *st, char mounts[][300],
		    int nm)
{
	struct cs_pid_walk pw = { .s = s };

	for (size_t i = 0; i < st->n; i++) {
		const struct capture_rec *r = &st->rec[i];
		size_t pl = strlen(r->path), sl = strlen("/cgroup.procs");
		const char *rel = NULL;
		char dir[1024];
		int g = -1;

		if (r->err || pl <= sl || pl - sl >= sizeof(dir) || strcmp(r->path + pl - sl, "/cgroup.procs"))
			continue;
		snprintf(dir, sizeof(dir), "%.*s", (int)(pl - sl), r->path);
		for (int m = 0; m < nm && !rel; m++) {
			size_t ml = strlen(mounts[m]);

			if (!strncmp(dir, mounts[m], ml) && dir[ml] == '/')
				rel = dir + ml;
		}
		for (size_t k = 0; rel && k < s->ncg; k++)
			if (!strcmp(s->cg[k].rel, rel))
				g = (int)k;
		if (g < 0)
			continue;
		pw.g = g;
		parse_pid_list(r->data, r->len, cs_pid, &pw);
	}
}

/* A pod's namespace and name from its containers' annotations, where the kubelet's did not. */
static void cs_link_pods(struct container_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		struct container *c = &s->c[i];
		struct container_pod *p;

		if (c->pod < 0 && c->pod_uid_fact && (p = cs_pod(s, c->pod_uid_fact)))
			c->pod = (int)(p - s->pods);
		if (c->pod < 0)
			continue;
		p = &s->pods[c->pod];
		if (!p->name && c->pod_name)
			p->name = strdup(c->pod_name);
		if (!p->namespace && c->pod_namespace)
			p->namespace = strdup(c->pod_namespace);
	}
	for (size_t k = 0; k < s->ncg; k++) {
		struct container_cgroup *g = &s->cg[k];

		if (g->container >= 0 && g->pod < 0)
			g->pod = s->c[g->container].pod;
	}
}

struct cs_hier_walk {
	struct container_set *s;
	const struct capture_stream *st;
	char (*mounts)[300];
	int nm;
};

/* A hierarchy of sonde:cgroups (parse_cgroups_record): its mount, and the cgroups kept in it. */
static int cs_hier(const struct cgroup_hier_line *hl, void *arg)
{
	struct cs_hier_walk *w = arg;
	const struct capture_rec *list;
	char *mount = w->mounts[w->nm];

	if (w->nm >= CS_MAX_HIER)
		return 1;
	if (!parse_word_cstr(hl->mount, mount, sizeof(w->mounts[0])))
		return 0;
	list = cs_first(w->st, mount);
	for (const char *q = list && !list->err ? list->data : NULL,
		*qe = q ? list->data + list->len : NULL; q && q < qe;) {
		const char *qn = memchr(q, '\n', (size_t)(qe - q));
		size_t ql = qn ? (size_t)(qn - q) : (size_t)(qe - q);
		char rel[700];

		if (ql && ql < sizeof(rel)) {
			snprintf(rel, sizeof(rel), "%.*s", (int)ql, q);
			cs_kept(w->s, mount, rel);
		}
		q += ql + 1;
	}
	w->nm++;
	return 0;
}

static int cs_build(struct container_set *s, const struct capture_stream *st)
{
	const struct capture_rec *h = cs_first(st, "sonde:cgroups");
	const struct capture_rec *facts = cs_first(st, "sonde:containers");
	char mounts[CS_MAX_HIER][300];
	struct cs_hier_walk hw = { s, st, mounts, 0 };

	if (!h || h->err)
		return -ENOENT;
	if (facts && !facts->err)
		cs_facts(s, facts);
	parse_cgroups_record(h->data, h->len, cs_hier, &hw);
	cs_link_pods(s);
	cs_pids(s, st, mounts, hw.nm);
	for (size_t i = 0; i < s->by_pid.cap; i++) {
		const struct pid_entry *pe = pidmap__slot(&s->by_pid, i);
		int c = pe ? s->cg[pe->cgroup - 1].container : -1;

		if (c >= 0)
			s->c[c].npids++;
	}
	return 0;
}

int analysis__containers(struct analysis *an, const struct container_set **out)
{
	const struct capture_stream *st;

	*out = NULL;
	if (!an->containers_built) {
		an->containers_built = 1;
		st = capture_set__stream(&an->cs, "proc.cgroups");
		an->containers = calloc(1, sizeof(*an->containers));
		if (!an->containers)
			return -ENOMEM;
		an->containers->by_pid = (struct pidmap)PIDMAP_INIT(sizeof(struct pid_entry));
		if (!st || cs_build(an->containers, st)) {
			container_set__free(an->containers);
			an->containers = NULL;
		}
	}
	*out = an->containers;
	return an->containers ? 0 : -ENOENT;
}

const struct container_cgroup *container_set__of_pid(const struct container_set *s, int pid)
{
	const struct pid_entry *pe = s ? pidmap__find(&s->by_pid, pid) : NULL;

	return pe && pe->cgroup ? &s->cg[pe->cgroup - 1] : NULL;
}

const struct container_cgroup *container_set__of_cgroup(const struct container_set *s,
						       const char *rel)
{
	for (size_t i = 0; s && i < s->ncg; i++)
		if (!strcmp(s->cg[i].rel, rel))
			return &s->cg[i];
	return NULL;
}

/*
 * How a report names the workload of g, in its owners' words: "pod shop/web-1, container
 * nginx", "docker web", "runc sonde-hog"; without a name its runtime and short id and why.
 */
void container_set__label(const struct container_set *s, const struct container_cgroup *g,
			  char *buf, size_t len)
{
	const struct container *c = g && g->container >= 0 ? &s->c[g->container] : NULL;
	const struct container_pod *p = g && g->pod >= 0 ? &s->pods[g->pod] : NULL;
	char pod[300] = "", who[300] = "";
	const char *rt = c && c->runtime[0] ? c->runtime : "container";

	buf[0] = '\0';
	if (!g)
		return;
	if (p)
		snprintf(pod, sizeof(pod), "pod %s/%s", p->namespace ? p->namespace : "?",
			 p->name ? p->name : p->uid);
	if (c && c->kind && !strcmp(c->kind, "sandbox"))
		snprintf(who, sizeof(who), "pause container");
	else if (c && c->k8s_container)
		snprintf(who, sizeof(who), "container %s", c->k8s_container);
	else if (c && c->name)
		snprintf(who, sizeof(who), "%s %s", rt, c->name);
	else if (c)
		snprintf(who, sizeof(who), "%s %.12s", rt, c->id);
	if (pod[0] && who[0])
		snprintf(buf, len, "%s, %s%s", pod, who, g->monitor ? " (its monitor)" : "");
	else
		snprintf(buf, len, "%s%s", pod[0] ? pod : who, g->monitor ? " (its monitor)" : "");
}

int container_set__in_focus(const struct container_set *s, const struct container_cgroup *g,
			    const char *container, const char *pod)
{
	const struct container *c = g && g->container >= 0 ? &s->c[g->container] : NULL;
	const struct container_pod *p = g && g->pod >= 0 ? &s->pods[g->pod] : NULL;

	if (!g || g->monitor)
		return 0;
	if (container) {
		size_t n = strlen(container);

		/* a name, a Kubernetes container name, the id, or 4+ characters of it */
		return c && ((c->name && !strcmp(c->name, container)) ||
			     (c->k8s_container && !strcmp(c->k8s_container, container)) ||
			     !strcmp(c->id, container) ||
			     (n >= 4 && cgpath__is_id(c->id, strlen(c->id)) &&
			      !strncmp(c->id, container, n)));
	}
	if (pod && p) {
		const char *slash = strchr(pod, '/');

		if (!slash)
			return !strcmp(p->uid, pod);
		return p->namespace && p->name && strlen(p->namespace) == (size_t)(slash - pod) &&
		       !strncmp(p->namespace, pod, (size_t)(slash - pod)) && !strcmp(p->name, slash + 1);
	}
	return 0;
}

size_t container_set__focus_pids(const struct container_set *s, const char *container,
				 const char *pod, int *pids, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; s && i < s->by_pid.cap && n < max; i++) {
		const struct pid_entry *pe = pidmap__slot(&s->by_pid, i);

		if (pe && container_set__in_focus(s, &s->cg[pe->cgroup - 1], container, pod))
			pids[n++] = pe->pid;
	}
	return n;
}

void container_set__free(struct container_set *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		struct container *c = &s->c[i];

		free(c->name);
		free(c->image);
		free(c->k8s_container);
		free(c->pod_name);
		free(c->pod_namespace);
		free(c->pod_uid_fact);
		free(c->kind);
		free(c->why);
		free(c->machine_class);
		for (size_t k = 0; k < c->nstate_cgroups; k++)
			free(c->state_cgroups[k]);
		free(c->state_cgroups);
	}
	for (size_t i = 0; i < s->npods; i++) {
		free(s->pods[i].name);
		free(s->pods[i].namespace);
		free(s->pods[i].why);
	}
	for (size_t i = 0; i < s->ncg; i++)
		free(s->cg[i].rel);
	free(s->c);
	free(s->pods);
	free(s->cg);
	pidmap__free(&s->by_pid);
	free(s);
}
