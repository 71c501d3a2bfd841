// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * proc.cgroups: resource controls, cgroups v1 and v2. The hierarchies are
 * walked once, at the first round; the cgroups that hold a process are read
 * for the window.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "collect/collectors.h"
#include "util/parse.h"

/*
 * Which cgroups and files: the hierarchies are found in /proc/self/mountinfo
 * (cgroup2 anywhere; v1 only the cpu, cpuacct, memory, pids and blkio
 * controllers, which are the ones with USE counters and limits). Each
 * hierarchy is walked once, at the first round, at most CG_MAX_DEPTH levels
 * below its mount point and
 * CG_MAX_WALK directories in all; a cgroup is kept (its files read for the
 * window) when it or one of its descendants holds a process, so the dozens
 * of empty slices a systemd host carries cost one cgroup.procs read each. The
 * root cgroup of a hierarchy is the host itself (the host-wide checks cover
 * it) and is never kept. Cgroups created during the window are not seen.
 * Containers sit deep: a Kubernetes container under the systemd driver is 4
 * levels down (kubepods.slice/QOS.slice/POD.slice/CONTAINER.scope), 5 on
 * kind or with the kubelet below its own slice, 6 with crun's "container"
 * below it, 7 for a kind node's pods seen from its host; in cgroup v2 only
 * leaves hold processes, so a walk that stops above the container keeps
 * nothing of it.
 */
#define CG_MAX_DEPTH 7
#define CG_MAX_WALK 2048 /* directories looked at, over all hierarchies */
#define CG_MAX_KEPT 512  /* cgroups whose files are read every window */
#define CG_MAX_HIER 8

enum {
	CG_CPU = 1, CG_CPUACCT = 2, CG_MEMORY = 4, CG_PIDS = 8, CG_IO = 16,
};

struct cg_hier {
	char mnt[256];
	int v2;
	unsigned ctrl;   /* v1: the controllers of this hierarchy */
	int truncated;   /* the walk hit a bound */
};

struct cg_node {
	char *dir;       /* mount point + relative path, as read (without the root) */
	int hier, parent, depth;
	int busy;        /* it or a descendant has a process */
	unsigned ctrl;   /* v2: from its cgroup.controllers */
};

struct cg_state {
	struct cg_hier h[CG_MAX_HIER];
	int nh;
	struct cg_node *node; /* the walk; kept ones have busy set */
	int nnode;
};

static unsigned cg_ctrl_bits(const char *s, size_t n, const char *sep)
{
	static const struct {
		const char *name;
		unsigned bit;
	} names[] = { { "cpu", CG_CPU }, { "cpuacct", CG_CPUACCT }, { "memory", CG_MEMORY },
		      { "pids", CG_PIDS }, { "io", CG_IO },
		      { "blkio", CG_IO } };
	unsigned bits = 0;

	while (n) {
		size_t k = 0, tok;

		while (k < n && !strchr(sep, s[k]))
			k++;
		tok = k;
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strlen(names[i].name) == tok && !memcmp(names[i].name, s, tok))
				bits |= names[i].bit;
		if (k < n)
			k++;
		s += k;
		n -= k;
	}
	return bits;
}

struct cg_found {
	struct cg_hier *h;
	int *nh;
};

/* One mount of mountinfo: a hierarchy when it is cgroup2 or a v1 one with USE counters. */
static int cg_mount(const struct mountinfo_line *m, void *arg)
{
	struct cg_found *f = arg;
	struct cg_hier *h = f->h;
	unsigned bits = 0;
	char mnt[256];
	int v2;

	if (*f->nh >= CG_MAX_HIER || !parse_word_cstr(m->point, mnt, sizeof(mnt)))
		return 0;
	if (strchr(mnt, '\\'))
		return 0; /* an escaped (space-holding) mount point: not a standard one */
	v2 = parse_word_is_str(m->fstype, "cgroup2");
	if (!v2) {
		if (!parse_word_is_str(m->fstype, "cgroup"))
			return 0;
		bits = cg_ctrl_bits(m->super.p, m->super.n, ",");
		if (!bits)
			return 0; /* name=systemd, freezer, devices...: no USE counters */
	}
	/* A hierarchy mounted twice (bind mounts): the first mount stands for it. */
	for (int i = 0; i < *f->nh; i++)
		if (h[i].v2 == v2 && h[i].ctrl == bits)
			return 0;
	snprintf(h[*f->nh].mnt, sizeof(h[*f->nh].mnt), "%s", mnt);
	h[*f->nh].v2 = v2;
	h[*f->nh].ctrl = bits;
	h[*f->nh].truncated = 0;
	(*f->nh)++;
	return 0;
}

/* The cgroup mounts of mountinfo: 0 and nh hierarchies, or -errno. */
static int cg_find_hierarchies(const char *root, struct cg_hier *h, int *nh)
{
	struct cg_found found = { h, nh };
	char full[4096], *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f;

	*nh = 0;
	snprintf(full, sizeof(full), "%s/proc/self/mountinfo", root);
	f = fopen(full, "re");
	if (!f)
		return -errno;
	while ((n = getline(&line, &cap, f)) > 0 && *nh < CG_MAX_HIER)
		parse_mountinfo(line, (size_t)n, cg_mount, &found);
	free(line);
	fclose(f);
	return 0;
}

int cgroups__probe(const char *root, char *why, size_t whylen)
{
	struct cg_hier h[CG_MAX_HIER];
	int nh, err = cg_find_hierarchies(root, h, &nh);

	if (err) {
		snprintf(why, whylen, "no cgroup information: /proc/self/mountinfo: %s",
			 strerror(-err));
		return err;
	}
	if (!nh) {
		snprintf(why, whylen, "no cgroup hierarchy mounted (neither cgroup2 nor a v1 cpu, "
			 "cpuacct, memory or pids hierarchy in /proc/self/mountinfo)");
		return -ENOENT;
	}
	return 0;
}

static int cg_add(struct cg_state *cg, const char *dir, int hier, int parent, int depth)
{
	struct cg_node *n = realloc(cg->node, (size_t)(cg->nnode + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	cg->node = n;
	n += cg->nnode;
	memset(n, 0, sizeof(*n));
	n->dir = strdup(dir);
	if (!n->dir)
		return -ENOMEM;
	n->hier = hier;
	n->parent = parent;
	n->depth = depth;
	return cg->nnode++;
}

/*
 * Breadth-first walk of one hierarchy: the node list itself is the queue.
 * Each directory below the root gets its cgroup.procs read (recorded: which
 * processes were in it at the start); a non-empty one marks itself and its
 * ancestors busy.
 */
static void cg_walk(struct collector_state *cs, struct cg_state *cg, struct reader *rd,
		    struct capture_writer *w, int hier)
{
	struct cg_hier *h = &cg->h[hier];
	int first = cg->nnode;

	if (cg_add(cg, h->mnt, hier, -1, 0) < 0)
		return;
	for (int i = first; i < cg->nnode; i++) {
		char full[4096], path[4096];
		struct dirent *de;
		DIR *d;

		if (cg->node[i].depth > 0) {
			size_t len = 0;

			snprintf(path, sizeof(path), "%s/cgroup.procs", cg->node[i].dir);
			if (!reader__tee(rd, w, path, NULL, &len) && len > 0)
				for (int p = i; p >= 0 && !cg->node[p].busy; p = cg->node[p].parent)
					cg->node[p].busy = 1;
		}
		if (cg->node[i].depth >= CG_MAX_DEPTH)
			continue;
		snprintf(full, sizeof(full), "%s%s", cs->root, cg->node[i].dir);
		d = opendir(full);
		if (!d)
			continue;
		/* d_type spares a stat of each of the ~30 control files of every cgroup. */
		while ((de = readdir(d))) {
			char kid[4096];
			struct stat sb;

			if (de->d_name[0] == '.' || strchr(de->d_name, '\n'))
				continue;
			if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
				continue;
			snprintf(kid, sizeof(kid), "%s/%s", cg->node[i].dir, de->d_name);
			snprintf(full, sizeof(full), "%s%s", cs->root, kid);
			if (de->d_type == DT_UNKNOWN && (stat(full, &sb) || !S_ISDIR(sb.st_mode)))
				continue;
			if (cg->nnode >= CG_MAX_WALK) {
				h->truncated = 1;
				break;
			}
			if (cg_add(cg, kid, hier, i, cg->node[i].depth + 1) < 0)
				break;
		}
		closedir(d);
	}
}

/* Read one file of a kept cgroup. */
static void cg_tee(struct reader *rd, struct capture_writer *w, const struct cg_node *n,
		   const char *file)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", n->dir, file);
	reader__tee(rd, w, path, NULL, NULL);
}

/*
 * v1 blkio: the throttling limits (blkio.throttle.*_device: "MAJ:MIN VALUE" lines) at the
 * start, and what the throttling layer counted at both ends: it counts every I/O of the
 * cgroup, limited or not, on every kernel (the CFQ/BFQ files depend on the scheduler).
 */
static void cg_blkio(struct reader *rd, struct capture_writer *w, const struct cg_node *n,
		     int phase)
{
	if (phase & PHASE_FIRST) {
		cg_tee(rd, w, n, "blkio.throttle.read_bps_device");
		cg_tee(rd, w, n, "blkio.throttle.write_bps_device");
		cg_tee(rd, w, n, "blkio.throttle.read_iops_device");
		cg_tee(rd, w, n, "blkio.throttle.write_iops_device");
	}
	if (phase & (PHASE_FIRST | PHASE_LAST)) {
		cg_tee(rd, w, n, "blkio.throttle.io_service_bytes");
		cg_tee(rd, w, n, "blkio.throttle.io_serviced");
	}
}

static void cgroups_first(struct collector_state *cs, struct reader *rd, struct capture_writer *w)
{
	struct cg_state *cg = calloc(1, sizeof(*cg));
	struct strv dirs = { 0 }, rels = { 0 };
	char txt[4096];
	size_t tl = 0;
	int kept = 0, err;

	if (!cg)
		return;
	cs->cg = cg;
	err = cg_find_hierarchies(cs->root, cg->h, &cg->nh);
	if (err) {
		capture_writer__error(w, rd->seq, clock__ns(CLOCK_REALTIME),
				      clock__ns(CLOCK_MONOTONIC), "sonde:cgroups", -err);
		return;
	}
	for (int i = 0; i < cg->nh; i++) {
		const char *data;
		size_t len;

		if (cg->h[i].v2) {
			char path[300];

			/* The controllers the v2 hierarchy offers (its root's list). */
			snprintf(path, sizeof(path), "%s/cgroup.controllers", cg->h[i].mnt);
			if (!reader__tee(rd, w, path, &data, &len))
				cg->h[i].ctrl = cg_ctrl_bits(data, len, " \n");
		}
		cg_walk(cs, cg, rd, w, i);
	}
	/*
	 * The kept cgroups, as one listing per hierarchy (path: the mount point):
	 * these are the cgroups the rest of the stream reads, in walk order. The
	 * "sonde:cgroups" record names the hierarchies: "VERSION MOUNT CONTROLLERS".
	 */
	for (int i = 0; i < cg->nh; i++) {
		size_t ml = strlen(cg->h[i].mnt);
		struct strbuf list = { 0 };
		int trunc = cg->h[i].truncated;

		for (int k = 0; k < cg->nnode; k++) {
			if (cg->node[k].hier != i || !cg->node[k].busy || !cg->node[k].depth)
				continue;
			if (kept >= CG_MAX_KEPT) {
				cg->node[k].busy = 0;
				trunc = 1;
				continue;
			}
			kept++;
			strbuf__printf(&list, "%s\n", cg->node[k].dir + ml);
			if ((!strv__has(&rels, cg->node[k].dir + ml) &&
			     strv__push(&rels, cg->node[k].dir + ml)) ||
			    strv__push(&dirs, cg->node[k].dir))
				list.oom = 1;
			if (list.oom)
				break;
		}
		capture_writer__record(w, rd->seq, clock__ns(CLOCK_REALTIME),
				       clock__ns(CLOCK_MONOTONIC), cg->h[i].mnt,
				       list.buf ? list.buf : "", list.len, trunc);
		strbuf__free(&list);
		tl += (size_t)snprintf(txt + tl, sizeof(txt) - tl, "%d %s %s%s%s%s%s\n",
				       cg->h[i].v2 ? 2 : 1, cg->h[i].mnt,
				       cg->h[i].ctrl & CG_CPU ? "cpu," : "",
				       cg->h[i].ctrl & CG_CPUACCT ? "cpuacct," : "",
				       cg->h[i].ctrl & CG_MEMORY ? "memory," : "",
				       cg->h[i].ctrl & CG_PIDS ? "pids," : "",
				       cg->h[i].ctrl & CG_IO ? (cg->h[i].v2 ? "io," : "blkio,") : "");
		if (tl >= sizeof(txt))
			tl = sizeof(txt) - 1;
	}
	reader__tee_text(rd, w, "sonde:cgroups", txt, tl);
	/* who the containers among them are, once (collect/containers.c) */
	containers__record(rd, w, &dirs, &rels);
	strv__free(&dirs);
	strv__free(&rels);
}

int cgroups__sample(struct collector_state *cs, struct reader *rd, struct capture_writer *w,
		    int phase)
{
	struct cg_state *cg;
	int ends = phase & (PHASE_FIRST | PHASE_LAST);

	if (phase & PHASE_FIRST)
		cgroups_first(cs, rd, w);
	cg = cs->cg;
	if (!cg)
		return 0;
	for (int k = 0; k < cg->nnode; k++) {
		const struct cg_node *n = &cg->node[k];
		const struct cg_hier *h = &cg->h[n->hier];
		unsigned ctrl = h->ctrl;

		if (!n->busy || !n->depth)
			continue;
		if (h->v2) {
			/* cpu.stat and pressure: in every v2 cgroup; the rest by controller. */
			if (ends) {
				cg_tee(rd, w, n, "cpu.stat");
				cg_tee(rd, w, n, "cpu.pressure");
				cg_tee(rd, w, n, "memory.pressure");
				cg_tee(rd, w, n, "io.pressure");
			}
			if (phase & PHASE_FIRST) {
				cg_tee(rd, w, n, "cgroup.controllers");
				if (ctrl & CG_CPU)
					cg_tee(rd, w, n, "cpu.max");
				if (ctrl & CG_MEMORY)
					cg_tee(rd, w, n, "memory.max");
				if (ctrl & CG_PIDS)
					cg_tee(rd, w, n, "pids.max");
			}
			if (ctrl & CG_MEMORY) {
				cg_tee(rd, w, n, "memory.current");
				if (ends)
					cg_tee(rd, w, n, "memory.events");
			}
			if (ctrl & CG_PIDS) {
				cg_tee(rd, w, n, "pids.current");
				if (ends)
					cg_tee(rd, w, n, "pids.events");
			}
			if (ctrl & CG_IO) {
				if (phase & PHASE_FIRST)
					cg_tee(rd, w, n, "io.max");
				if (ends)
					cg_tee(rd, w, n, "io.stat");
			}
		} else {
			if (ctrl & CG_CPU) {
				if (ends)
					cg_tee(rd, w, n, "cpu.stat");
				if (phase & PHASE_FIRST) {
					cg_tee(rd, w, n, "cpu.cfs_quota_us");
					cg_tee(rd, w, n, "cpu.cfs_period_us");
				}
			}
			if ((ctrl & CG_CPUACCT) && ends)
				cg_tee(rd, w, n, "cpuacct.usage");
			if (ctrl & CG_MEMORY) {
				cg_tee(rd, w, n, "memory.usage_in_bytes");
				if (phase & PHASE_FIRST)
					cg_tee(rd, w, n, "memory.limit_in_bytes");
				if (ends) {
					cg_tee(rd, w, n, "memory.failcnt");
					/*
					 * With memory+swap accounting the memsw counter is charged
					 * first: at equal limits only memsw.failcnt grows.
					 */
					cg_tee(rd, w, n, "memory.memsw.failcnt");
					cg_tee(rd, w, n, "memory.oom_control");
				}
				if (phase & PHASE_LAST)
					cg_tee(rd, w, n, "memory.max_usage_in_bytes");
			}
			if (ctrl & CG_PIDS) {
				cg_tee(rd, w, n, "pids.current");
				if (phase & PHASE_FIRST)
					cg_tee(rd, w, n, "pids.max");
				if (ends)
					cg_tee(rd, w, n, "pids.events");
			}
			if (ctrl & CG_IO)
				cg_blkio(rd, w, n, phase);
		}
		/* Who was in it at the end (the walk recorded the start). */
		if ((phase & PHASE_LAST) && !(phase & PHASE_FIRST))
			cg_tee(rd, w, n, "cgroup.procs");
	}
	return 0;
}

void cgroups__fini(struct collector_state *cs)
{
	struct cg_state *cg = cs->cg;

	if (!cg)
		return;
	for (int k = 0; k < cg->nnode; k++)
		free(cg->node[k].dir);
	free(cg->node);
	free(cg);
	cs->cg = NULL;
}
