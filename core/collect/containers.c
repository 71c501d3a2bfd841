// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Who the containers are: after proc.cgroups' walk, the containers its kept
 * cgroups name (util/cgpath.h) and the runtimes' own state on the host are
 * read once, without any daemon's API, into one composed record,
 * "sonde:containers" (docs/capture-format.md). The runtimes' files hold the
 * containers' environment (passwords, tokens): they are parsed here, bounded
 * (util/json_read.h), and only the fields below reach the capture, never the
 * files themselves.
 *
 * Where each runtime keeps what (all read relative to the reader's root):
 *   runc      /run/runc/<id>/state.json (libcontainer's State: id, init_process_pid,
 *             cgroup_paths, config.labels = the OCI annotations and "bundle=...");
 *             containerd's runc shim: /run/containerd/runc/<namespace>/<id>/state.json;
 *             Docker's: /run/docker/runtime-runc/<namespace>/<id>/state.json
 *   crun      /run/crun/<id>/status (pid, cgroup-path)
 *   Docker    /var/lib/docker/containers/<id>/config.v2.json (Name, Config.Image,
 *             Config.Labels: cri-dockerd's io.kubernetes.* labels)
 *   containerd /run/containerd/io.containerd.runtime.v2.task/<namespace>/<id>/config.json
 *             (the OCI spec; the CRI plugin's io.kubernetes.cri.* annotations)
 *   CRI-O     /var/lib/containers/storage/overlay-containers/<id>/userdata/config.json
 *             (io.kubernetes.* and io.kubernetes.cri-o.* annotations)
 *   podman    /var/lib/containers/storage/overlay-containers/containers.json (names, metadata's
 *             image-name), root's storage only
 *   machined  /run/systemd/machines/<name> (CLASS, SERVICE, ROOT: systemd-nspawn, VMs)
 *   kubelet   /var/log/pods/<namespace>_<pod>_<uid>/ (pkg/kubelet/kuberuntime/helpers.go,
 *             BuildPodLogsDirectory), /var/log/containers/<pod>_<namespace>_<container>-<id>.log
 *             (legacy.go, legacyLogSymlink), /var/lib/kubelet/pods/<uid>/etc-hosts (the pod's
 *             hostname, for a pod with no log directory)
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/collectors.h"
#include "util/cgpath.h"
#include "util/json_read.h"

#define CT_MAX 256      /* containers named in one record */
#define CT_MAX_PODS 128
#define CT_MAX_STATES 512 /* runtime state directories looked at, over all roots */
#define CT_JSON_MAX (1u << 20)

struct ct_want {
	char id[128], runtime[16], pod[40];
	int named;          /* a name, or a Kubernetes container name, was found */
	char why[400];      /* what was tried, for a container left unnamed */
};

struct ct_ctx {
	struct reader *rd;
	const struct strv *dirs; /* the kept cgroups: mount point + path */
	const struct strv *rels; /* the same, relative to their hierarchy */
	struct strbuf out;
	struct ct_want *want;
	size_t nwant;
	char pods[CT_MAX_PODS][40];
	size_t npods;
	struct jval *podman;     /* containers.json, parsed once when a podman container is named */
	int podman_tried;
	char podman_why[200];
};

/* One line of the record: KEY TAB FIELD TAB VALUE; the value's tabs, newlines and backslashes
 * escaped, other control characters dropped (a name is shown, never interpreted). */
static void ct_put(struct ct_ctx *c, const char *key, const char *field, const char *v)
{
	struct strbuf val = { 0 };

	if (!v || !*v)
		return;
	for (const char *p = v; *p && val.len < 4096; p++) {
		if (*p == '\\')
			strbuf__printf(&val, "\\\\");
		else if (*p == '\t')
			strbuf__printf(&val, "\\t");
		else if (*p == '\n')
			strbuf__printf(&val, "\\n");
		else if ((unsigned char)*p >= 0x20 && *p != 0x7f)
			strbuf__printf(&val, "%c", *p);
	}
	if (val.buf)
		record__printf(&c->out, "%s\t%s\t%s\n", key, field, val.buf);
	strbuf__free(&val);
}

static struct ct_want *ct_find(struct ct_ctx *c, const char *id)
{
	for (size_t i = 0; i < c->nwant; i++)
		if (!strcmp(c->want[i].id, id))
			return &c->want[i];
	return NULL;
}

static void ct_why(struct ct_want *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Add to what was tried for w ("; " between the reasons), cut at its size. */
static void ct_why(struct ct_want *w, const char *fmt, ...)
{
	size_t l = strlen(w->why);
	va_list ap;

	if (l && l + 2 < sizeof(w->why))
		l += (size_t)snprintf(w->why + l, sizeof(w->why) - l, "; ");
	if (l + 1 >= sizeof(w->why))
		return;
	va_start(ap, fmt);
	vsnprintf(w->why + l, sizeof(w->why) - l, fmt, ap);
	va_end(ap);
}

/* Read and parse a JSON file of the runtime's state: 0 with *doc, or -errno and why. */
static int ct_json(struct ct_ctx *c, const char *path, struct jval **doc, char *why, size_t wl)
{
	static const struct json_read_limits lim = {
		.max_bytes = CT_JSON_MAX, .max_depth = 64, .max_items = 200000,
		.max_string = 1u << 16,
	};
	const char *data;
	size_t len;
	int trunc = 0, err;
	char jerr[160];

	*doc = NULL;
	err = reader__read(c->rd, path, CT_JSON_MAX, &data, &len, &trunc);
	if (err) {
		snprintf(why, wl, "%s: %s", path, strerror(-err));
		return err;
	}
	if (trunc) {
		snprintf(why, wl, "%s: larger than %u KiB, not read", path, CT_JSON_MAX >> 10);
		return -EFBIG;
	}
	err = json_read(data, len, &lim, doc, jerr, sizeof(jerr));
	if (err)
		snprintf(why, wl, "%s: not JSON sonde can read (%s)", path, jerr);
	return err;
}

/* Annotations and labels that name a Kubernetes workload, a container or its image. */
static const struct {
	const char *key, *field;
} ct_labels[] = {
	{ "io.kubernetes.cri.container-name", "k8s-container" }, /* containerd's CRI plugin */
	{ "io.kubernetes.cri.sandbox-name", "pod-name" },
	{ "io.kubernetes.cri.sandbox-namespace", "pod-namespace" },
	{ "io.kubernetes.cri.sandbox-uid", "pod-uid" },
	{ "io.kubernetes.cri.image-name", "image" },
	{ "io.kubernetes.cri.container-type", "kind" },
	{ "io.kubernetes.container.name", "k8s-container" },     /* CRI-O, cri-dockerd */
	{ "io.kubernetes.pod.name", "pod-name" },
	{ "io.kubernetes.pod.namespace", "pod-namespace" },
	{ "io.kubernetes.pod.uid", "pod-uid" },
	{ "io.kubernetes.cri-o.ImageName", "image" },
	{ "io.kubernetes.cri-o.ContainerType", "kind" },
	{ "io.kubernetes.docker.type", "kind" },
	{ "nerdctl/name", "name" },
};

static void ct_label(struct ct_ctx *c, struct ct_want *w, const char *k, size_t kl, const char *v)
{
	for (size_t i = 0; i < sizeof(ct_labels) / sizeof(ct_labels[0]); i++) {
		const char *f = ct_labels[i].field;

		if (strlen(ct_labels[i].key) != kl || memcmp(ct_labels[i].key, k, kl))
			continue;
		/* the pause container: "sandbox" (CRI), "podsandbox" (cri-dockerd) */
		if (!strcmp(f, "kind"))
			v = strstr(v, "sandbox") ? "sandbox" : "container";
		ct_put(c, w->id, f, v);
		/* a pod's pause container is named by its pod */
		if (!strcmp(f, "k8s-container") || !strcmp(f, "name") || !strcmp(v, "sandbox"))
			w->named = 1;
	}
}

/* An object of labels ({"k": "v"}) or libcontainer's list of "k=v" strings. */
static void ct_labels_of(struct ct_ctx *c, struct ct_want *w, const struct jval *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->len && (v->type == J_OBJECT || v->type == J_ARRAY); i++) {
		const struct jval *e = &v->items[i];

		if (e->type != J_STRING)
			continue;
		if (v->type == J_OBJECT) {
			ct_label(c, w, v->keys[i], strlen(v->keys[i]), e->str);
		} else {
			const char *eq = strchr(e->str, '=');

			if (eq)
				ct_label(c, w, e->str, (size_t)(eq - e->str), eq + 1);
		}
	}
}

/* A cgroup directory of the runtime's state is one of the kept cgroups (full or relative). */
static int ct_kept(const struct ct_ctx *c, const char *dir)
{
	return strv__has(c->dirs, dir) || strv__has(c->rels, dir);
}

static struct ct_want *ct_add(struct ct_ctx *c, const char *id, const char *runtime)
{
	struct ct_want *w = ct_find(c, id);

	if (w || c->nwant >= CT_MAX)
		return w;
	w = &c->want[c->nwant++];
	memset(w, 0, sizeof(*w));
	snprintf(w->id, sizeof(w->id), "%s", id);
	snprintf(w->runtime, sizeof(w->runtime), "%s", runtime);
	return w;
}

/*
 * One container of an OCI runtime's state root: runc's state.json or crun's status. Kept
 * when a path decoded it or when its cgroup is one of the kept ones (runc run by hand: no
 * convention names its cgroup).
 */
static void ct_state(struct ct_ctx *c, const char *root, const char *id, const char *runtime)
{
	char path[600], why[300], pid[32];
	const struct jval *paths, *config;
	struct jval *doc;
	struct ct_want *w = ct_find(c, id);
	int crun = !strcmp(runtime, "crun"), mine = w != NULL;
	double p = 0;

	snprintf(path, sizeof(path), "%s/%s/%s", root, id, crun ? "status" : "state.json");
	if (ct_json(c, path, &doc, why, sizeof(why))) {
		if (w)
			ct_why(w, "%s", why);
		return;
	}
	paths = jval__get(doc, crun ? "cgroup-path" : "cgroup_paths");
	if (paths && paths->type == J_STRING && ct_kept(c, paths->str))
		mine = 1;
	for (size_t i = 0; paths && paths->type == J_OBJECT && i < paths->len; i++)
		if (paths->items[i].type == J_STRING && ct_kept(c, paths->items[i].str))
			mine = 1;
	if (!mine || !(w = w ? w : ct_add(c, id, runtime)))
		goto cleanup;
	ct_put(c, id, "state", path);
	/* a runtime the path did not say: the state root does (containerd's shim, Docker's runc) */
	if (!w->runtime[0])
		snprintf(w->runtime, sizeof(w->runtime), "%s", runtime);
	ct_put(c, id, "runtime", w->runtime);
	if (!jval__num(doc, crun ? "pid" : "init_process_pid", &p) && p > 0 && p < 1e9) {
		snprintf(pid, sizeof(pid), "%.0f", p);
		ct_put(c, id, "pid", pid);
	}
	if (paths && paths->type == J_STRING)
		ct_put(c, id, "cgroup", paths->str);
	for (size_t i = 0; paths && paths->type == J_OBJECT && i < paths->len && i < 16; i++)
		if (paths->items[i].type == J_STRING && ct_kept(c, paths->items[i].str))
			ct_put(c, id, "cgroup", paths->items[i].str);
	config = jval__get(doc, "config");
	ct_labels_of(c, w, jval__get(config, "labels"));
	/* runc by hand, crun: the id is the name its owner gave (no other name exists) */
	if (!strcmp(runtime, "runc") || crun) {
		ct_put(c, id, "name", id);
		w->named = 1;
	}
cleanup:
	jval__free(doc);
}

/* The OCI runtimes' state roots: runc, crun, containerd's and Docker's runc, per namespace. */
static void ct_states(struct ct_ctx *c)
{
	static const struct {
		const char *root, *runtime;
		int per_namespace;
	} roots[] = {
		{ "/run/runc", "runc", 0 },
		{ "/run/crun", "crun", 0 },
		{ "/run/containerd/runc", "containerd", 1 },
		{ "/run/docker/runtime-runc", "docker", 1 },
	};
	size_t looked = 0;

	for (size_t r = 0; r < sizeof(roots) / sizeof(roots[0]); r++) {
		struct strv ns = { 0 };

		if (roots[r].per_namespace) {
			if (reader__list_dir(c->rd, roots[r].root, &ns) < 0 && !ns.n)
				continue;
		} else if (strv__push(&ns, "")) {
			continue;
		}
		for (size_t n = 0; n < ns.n; n++) {
			struct strv ids = { 0 };
			char dir[300];
			const char *rt = roots[r].runtime;

			snprintf(dir, sizeof(dir), "%s%s%s", roots[r].root, ns.v[n][0] ? "/" : "",
				 ns.v[n]);
			/* Docker's namespace in containerd is "moby" */
			if (!strcmp(ns.v[n], "moby"))
				rt = "docker";
			reader__list_dir(c->rd, dir, &ids);
			for (size_t i = 0; i < ids.n && looked < CT_MAX_STATES; i++, looked++)
				ct_state(c, dir, ids.v[i], rt);
			strv__free(&ids);
		}
		strv__free(&ns);
	}
}

/* Docker's config.v2.json: the name (without its leading "/"), the image, the labels. */
static void ct_docker(struct ct_ctx *c, struct ct_want *w)
{
	char path[300], why[300];
	const struct jval *cfg;
	const char *name, *image;
	struct jval *doc;

	snprintf(path, sizeof(path), "/var/lib/docker/containers/%s/config.v2.json", w->id);
	if (ct_json(c, path, &doc, why, sizeof(why))) {
		ct_why(w, "Docker: %s", why);
		return;
	}
	ct_put(c, w->id, "source", path);
	if (!strcmp(w->runtime, "") || !strcmp(w->runtime, "docker")) {
		snprintf(w->runtime, sizeof(w->runtime), "docker");
		ct_put(c, w->id, "runtime", "docker");
	}
	name = jval__str(doc, "Name");
	if (name) {
		ct_put(c, w->id, "name", name[0] == '/' ? name + 1 : name);
		w->named = 1;
	}
	cfg = jval__get(doc, "Config");
	image = jval__str(cfg, "Image");
	ct_put(c, w->id, "image", image);
	ct_labels_of(c, w, jval__get(cfg, "Labels"));
	jval__free(doc);
}

/* An OCI spec's annotations (containerd's task bundle, CRI-O's userdata). */
static int ct_spec(struct ct_ctx *c, struct ct_want *w, const char *path, const char *what)
{
	char why[300];
	struct jval *doc;

	if (ct_json(c, path, &doc, why, sizeof(why))) {
		ct_why(w, "%s: %s", what, why);
		return -1;
	}
	ct_put(c, w->id, "source", path);
	ct_labels_of(c, w, jval__get(doc, "annotations"));
	jval__free(doc);
	return 0;
}

/* containerd: the task's bundle in one of its namespaces (k8s.io for Kubernetes, moby, default). */
static void ct_containerd(struct ct_ctx *c, struct ct_want *w)
{
	static const char dir[] = "/run/containerd/io.containerd.runtime.v2.task";
	struct strv ns = { 0 };
	int err = reader__list_dir(c->rd, dir, &ns);

	if (err < 0 && !ns.n) {
		ct_why(w, "containerd: %s: %s", dir, strerror(-err));
		return;
	}
	for (size_t i = 0; i < ns.n; i++) {
		char path[420], probe[400];
		const char *d;
		size_t l;
		int t;

		snprintf(probe, sizeof(probe), "%s/%s/%s", dir, ns.v[i], w->id);
		snprintf(path, sizeof(path), "%s/config.json", probe);
		if (reader__read(c->rd, path, 1, &d, &l, &t))
			continue;
		if (!w->runtime[0]) {
			snprintf(w->runtime, sizeof(w->runtime), "%s",
				 strcmp(ns.v[i], "moby") ? "containerd" : "docker");
			ct_put(c, w->id, "runtime", w->runtime);
		}
		ct_put(c, w->id, "namespace", ns.v[i]);
		ct_spec(c, w, path, "containerd");
		break;
	}
	if (!w->named)
		ct_why(w, "containerd: no task of this id under %s with a name annotation (outside "
		       "Kubernetes containerd keeps names in its database, which sonde does not read)",
		       dir);
	strv__free(&ns);
}

/* podman: root's containers.json, read once: the names and the image. */
static void ct_podman(struct ct_ctx *c, struct ct_want *w)
{
	static const char path[] = "/var/lib/containers/storage/overlay-containers/containers.json";

	if (!c->podman_tried) {
		c->podman_tried = 1;
		ct_json(c, path, &c->podman, c->podman_why, sizeof(c->podman_why));
	}
	if (!c->podman) {
		ct_why(w, "podman: %s (rootless containers keep theirs in their user's home)",
		       c->podman_why);
		return;
	}
	for (size_t i = 0; c->podman->type == J_ARRAY && i < c->podman->len; i++) {
		const struct jval *e = &c->podman->items[i], *names = jval__get(e, "names");
		const char *id = jval__str(e, "id"), *meta = jval__str(e, "metadata");
		struct jval *m = NULL;
		char jerr[80];

		if (!id || strcmp(id, w->id))
			continue;
		ct_put(c, w->id, "source", path);
		if (names && names->type == J_ARRAY && names->len && names->items[0].type == J_STRING) {
			ct_put(c, w->id, "name", names->items[0].str);
			w->named = 1;
		}
		/* metadata is a JSON document inside a string */
		if (meta && !json_read(meta, strlen(meta), NULL, &m, jerr, sizeof(jerr)))
			ct_put(c, w->id, "image", jval__str(m, "image-name"));
		jval__free(m);
		return;
	}
	ct_why(w, "podman: not in %s", path);
}

/* systemd-machined's record of a machine: its class (container, vm) and service. */
static void ct_machine(struct ct_ctx *c, struct ct_want *w)
{
	char path[300];
	const char *d;
	size_t l;
	int t, err;

	ct_put(c, w->id, "name", w->id);
	w->named = 1;
	snprintf(path, sizeof(path), "/run/systemd/machines/%s", w->id);
	err = reader__read(c->rd, path, 8192, &d, &l, &t);
	if (err) {
		ct_put(c, w->id, "note", strerror(-err));
		return;
	}
	for (const char *p = d, *e = d + l; p < e;) {
		const char *nl = memchr(p, '\n', (size_t)(e - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(e - p);
		char line[512];

		snprintf(line, sizeof(line), "%.*s", (int)n, p);
		if (!strncmp(line, "CLASS=", 6))
			ct_put(c, w->id, "class", line + 6);
		else if (!strncmp(line, "SERVICE=", 8))
			ct_put(c, w->id, "service", line + 8);
		else if (!strncmp(line, "ROOT=", 5))
			ct_put(c, w->id, "image", line + 5);
		p += n + 1;
	}
}

/* What the path named: the runtime's own files, by runtime. */
static void ct_named(struct ct_ctx *c, struct ct_want *w)
{
	const char *rt = w->runtime;
	char path[300];

	if (!strcmp(rt, "docker") || !rt[0])
		ct_docker(c, w);
	if (!w->named && (!strcmp(rt, "containerd") || !rt[0]))
		ct_containerd(c, w);
	if (!w->named && !strcmp(rt, "cri-o")) {
		snprintf(path, sizeof(path),
			 "/var/lib/containers/storage/overlay-containers/%s/userdata/config.json", w->id);
		ct_spec(c, w, path, "CRI-O");
	}
	if (!w->named && !strcmp(rt, "podman"))
		ct_podman(c, w);
	if (!strcmp(rt, "systemd-nspawn") || !strcmp(rt, "machine") || !strcmp(rt, "lxc")) {
		if (!strcmp(rt, "lxc")) {
			ct_put(c, w->id, "name", w->id);
			w->named = 1;
		} else {
			ct_machine(c, w);
		}
	}
}

/* "NS_POD_UID" (a directory of /var/log/pods): the namespace and name of pod uid. */
static int ct_pod_dir(const char *e, const char *uid, char *ns, size_t nsl, char *name, size_t nl)
{
	size_t len = strlen(e);
	const char *u = e + len - 36, *us;

	if (len < 36 + 4 || strcmp(u, uid) || u[-1] != '_')
		return 0;
	us = strchr(e, '_');
	if (!us || us >= u - 1)
		return 0;
	/* namespaces and pod names are DNS labels and subdomains: no '_' in either */
	snprintf(ns, nsl, "%.*s", (int)(us - e), e);
	snprintf(name, nl, "%.*s", (int)(u - 1 - us - 1), us + 1);
	return 1;
}

/* The pod's hostname in the hosts file the kubelet writes for it: its name, unless set apart. */
static int ct_pod_hosts(struct ct_ctx *c, const char *uid, char *name, size_t nl)
{
	char path[200];
	const char *d, *last = NULL, *p, *e, *s;
	size_t l;
	int t;

	snprintf(path, sizeof(path), "/var/lib/kubelet/pods/%s/etc-hosts", uid);
	if (reader__read(c->rd, path, 16384, &d, &l, &t))
		return 0;
	e = d + l;
	for (p = d; p < e;) {
		const char *nl2 = memchr(p, '\n', (size_t)(e - p));
		size_t n = nl2 ? (size_t)(nl2 - p) : (size_t)(e - p);

		if (n && *p != '#')
			last = p;
		p += n + 1;
	}
	if (!last)
		return 0;
	/* "IP<TAB>HOSTNAME[.SUBDOMAIN...]": its first name after the address, at most 127 bytes */
	p = last;
	while (p < e && *p != ' ' && *p != '\t' && *p != '\n')
		p++;
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	for (s = p; p < e && *p != ' ' && *p != '\t' && *p != '\n' && *p != '.';)
		p++;
	if (p == s || !nl)
		return 0;
	snprintf(name, nl, "%.*s", (int)(p - s < 127 ? p - s : 127), s);
	return strcmp(name, "localhost") != 0;
}

/* The pods: namespace and name from the kubelet's log directories (else its hosts file). */
static void ct_pods(struct ct_ctx *c)
{
	struct strv logs = { 0 }, links = { 0 };
	int lerr;

	if (!c->npods)
		return;
	lerr = reader__list_dir(c->rd, "/var/log/pods", &logs);
	for (size_t p = 0; p < c->npods; p++) {
		char key[48], ns[256] = "", name[256] = "";
		int found = 0;

		snprintf(key, sizeof(key), "pod:%s", c->pods[p]);
		for (size_t i = 0; i < logs.n && !found; i++)
			found = ct_pod_dir(logs.v[i], c->pods[p], ns, sizeof(ns), name, sizeof(name));
		if (found) {
			ct_put(c, key, "namespace", ns);
			ct_put(c, key, "name", name);
			ct_put(c, key, "source", "/var/log/pods");
		} else if (ct_pod_hosts(c, c->pods[p], name, 128)) {
			ct_put(c, key, "name", name);
			ct_put(c, key, "source", "/var/lib/kubelet/pods/UID/etc-hosts");
			ct_put(c, key, "why", "no /var/log/pods directory of this pod: its name is its "
			       "hostname in the kubelet's hosts file, its namespace unknown");
		} else {
			ct_put(c, key, "why", lerr < 0 ? "/var/log/pods unreadable and no "
			       "/var/lib/kubelet/pods/UID/etc-hosts (sonde runs without the kubelet's "
			       "directories, or not on the node)" : "no directory of this pod in "
			       "/var/log/pods nor a hosts file in /var/lib/kubelet/pods/UID");
		}
	}
	/* container names: the kubelet's symlinks POD_NS_CONTAINER-ID.log */
	reader__list_dir(c->rd, "/var/log/containers", &links);
	for (size_t i = 0; i < links.n; i++) {
		const char *e = links.v[i], *dash, *us1, *us2;
		size_t len = strlen(e);
		struct ct_want *w;
		char id[65], cname[256];

		if (len < 64 + 5 + 5 || strcmp(e + len - 4, ".log"))
			continue;
		dash = e + len - 4 - 64 - 1;
		if (*dash != '-' || !cgpath__is_id(dash + 1, 64))
			continue;
		snprintf(id, sizeof(id), "%.64s", dash + 1);
		w = ct_find(c, id);
		us1 = strchr(e, '_');
		us2 = us1 ? strchr(us1 + 1, '_') : NULL;
		if (!w || !us2 || us2 > dash)
			continue;
		snprintf(cname, sizeof(cname), "%.*s", (int)(dash - us2 - 1), us2 + 1);
		ct_put(c, id, "k8s-container", cname);
		w->named = 1;
	}
	strv__free(&links);
	strv__free(&logs);
}

void containers__record(struct reader *rd, struct capture_writer *w, const struct strv *dirs,
			const struct strv *rels)
{
	struct ct_ctx c = { .rd = rd, .dirs = dirs, .rels = rels };

	c.want = calloc(CT_MAX, sizeof(*c.want));
	if (!c.want)
		return;
	for (size_t i = 0; i < rels->n; i++) {
		struct cgpath_container d;
		enum cgpath_role role = cgpath__container(rels->v[i], &d);
		int seen = 0;

		if (d.pod_uid[0]) {
			for (size_t p = 0; p < c.npods; p++)
				seen |= !strcmp(c.pods[p], d.pod_uid);
			if (!seen && c.npods < CT_MAX_PODS)
				memcpy(c.pods[c.npods++], d.pod_uid, sizeof(c.pods[0]));
		}
		if (role == CGPATH_CONTAINER)
			ct_add(&c, d.id, d.runtime);
	}
	ct_states(&c);
	for (size_t i = 0; i < c.nwant; i++)
		if (!c.want[i].named)
			ct_named(&c, &c.want[i]);
	ct_pods(&c);
	for (size_t i = 0; i < c.nwant; i++) {
		if (!c.want[i].named)
			ct_put(&c, c.want[i].id, "why", c.want[i].why[0] ? c.want[i].why :
			       "no state of its runtime on this host names it");
	}
	reader__tee_text(rd, w, "sonde:containers", c.out.buf ? c.out.buf : "", c.out.len);
	strbuf__free(&c.out);
	jval__free(c.podman);
	free(c.want);
}
