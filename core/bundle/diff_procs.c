// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sonde diff, the processes: matched by what runs and where, never by pid (a
 * pid does not survive its process, nor a reboot): the command (the
 * kernel's name of the process, comm; a kernel thread's digits folded,
 * "kworker/#:#") and the cgroup it ran in (proc.cgroups' cgroup.procs, the
 * unified hierarchy first; container ids, runs of 12 or more hex digits,
 * folded to "*", so that a redeployed container is the same). Per group and
 * window: how many processes, their CPU, RSS, anonymous memory, disk reads
 * and writes, threads, open fds and context switches.
 *
 * Noise: each quantity is also computed per interval of the window (the
 * rates over each interval between two rounds, the levels at each round),
 * and their range is that window's noise. A group changed when the two
 * ranges do not overlap, by more than what is material (20% and a floor per
 * quantity: a level flat within one window still moves between audits). A
 * group is new when no earlier audit saw any of its processes, gone when the
 * new one sees none; a group seen in one round only, using no CPU to speak
 * of (a cron job's date), is not listed.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/diff_int.h"
#include "util/parse.h"
#include "util/pidmap.h"
#include "util/tty.h"
#include "util/units.h"

#define ROUNDS_MAX 4096

/* A rate (a counter's growth per second) or a level (its value at each round). */
static const int is_rate[PA_N] = { [PA_CPU] = 1, [PA_READ] = 1, [PA_WRITE] = 1, [PA_CSW] = 1 };

/* One process at one round, its values carried forward from its last read. */
struct psample {
	uint32_t seq;
	uint8_t has_io, has_csw, has_anon;
	uint64_t cpu, rd, wr, csw; /* counters: ticks, bytes, switches */
	uint64_t rss, anon, threads;
	int64_t fds;
};

struct ptrack {
	int pid; /* pidmap key */
	uint64_t starttime;
	int ppid, kthread, born;
	char comm[64];
	struct psample *s;
	size_t n, cap;
};

struct group {
	char *command, *cgroup;
	int persistent;
	double *per; /* (rounds) x PA_N */
};

struct pass {
	struct analysis *an;
	struct pidmap live;     /* struct ptrack by pid */
	struct ptrack *done;    /* processes whose pid was reused */
	size_t ndone, cdone;
	struct pidmap cg;       /* struct cgpid: pid -> cgroup */
	struct strv cgroups;
	uint32_t max_seq;
	double *t;              /* each round's time */
};

struct cgpid {
	int pid;
	int idx; /* into pass.cgroups + 1 */
};

/* ---- the cgroup of each process ---- */

/* The mount of the hierarchy cgroup.procs are read from: cgroup2's, else the first. */
static int cg_mount(const struct capture_stream *st, char *mnt, size_t len)
{
	const struct capture_rec *r = capture_stream__last(st, "sonde:cgroups");
	int found = 0;

	for (const char *p = r ? r->data : NULL, *end = p + (r ? r->len : 0); p && p < end;) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		char ver[8], m[1024];

		if (!eol)
			eol = end;
		if (sscanf(p, "%7s %1023s", ver, m) == 2 && (!found || !strcmp(ver, "2"))) {
			snprintf(mnt, len, "%s", m);
			found = strcmp(ver, "2") ? 1 : 2;
		}
		p = eol + 1;
	}
	return found;
}

static int pass__cgroups(struct pass *ps)
{
	const struct capture_stream *st = capture_set__stream(&ps->an->cs, "proc.cgroups");
	char mnt[1024];
	size_t ml;

	if (!st || !cg_mount(st, mnt, sizeof(mnt)))
		return 0;
	ml = strlen(mnt);
	for (size_t i = 0; i < st->n; i++) {
		const struct capture_rec *r = &st->rec[i];
		size_t pl = strlen(r->path);
		char rel[1024];
		int idx;

		if (r->err || pl < ml + 13 || strncmp(r->path, mnt, ml) || r->path[ml] != '/' ||
		    strcmp(r->path + pl - 13, "/cgroup.procs"))
			continue;
		snprintf(rel, sizeof(rel), "%.*s", (int)(pl - 13 - ml), r->path + ml);
		diff__fold_ids(rel);
		for (idx = 0; idx < (int)ps->cgroups.n && strcmp(ps->cgroups.v[idx], rel); idx++)
			;
		if (idx == (int)ps->cgroups.n && strv__push(&ps->cgroups, rel))
			return -ENOMEM;
		for (const char *p = r->data, *end = r->data + r->len; p < end;) {
			struct cgpid *c;
			int pid = atoi(p);

			if (pid > 0) {
				if (!(c = pidmap__get(&ps->cg, pid)))
					return -ENOMEM;
				c->idx = idx + 1;
			}
			p = memchr(p, '\n', (size_t)(end - p));
			p = p ? p + 1 : end;
		}
	}
	return 0;
}

/* ---- one pass over proc.pids ---- */

/* The track of pid for a record of this starttime (0: any), a new one at reuse; NULL: -ENOMEM. */
static struct ptrack *track_of(struct pass *ps, int pid, uint64_t starttime, int known)
{
	struct ptrack *t = pidmap__get(&ps->live, pid);

	if (!t)
		return NULL;
	if (known && t->n && t->starttime != starttime) {
		if (ps->ndone == ps->cdone) {
			size_t nc = ps->cdone ? ps->cdone * 2 : 64;
			struct ptrack *nd = realloc(ps->done, nc * sizeof(*nd));

			if (!nd)
				return NULL;
			ps->done = nd;
			ps->cdone = nc;
		}
		ps->done[ps->ndone++] = *t;
		memset(t, 0, sizeof(*t));
		t->pid = pid;
	}
	if (known && !t->n) {
		t->starttime = starttime;
		t->kthread = -1;
		t->born = ps->an->uptime_start > 0 &&
			  (double)starttime / (double)ps->an->clk_tck > ps->an->uptime_start;
	}
	return t;
}

/* The sample of t at round seq: the last one, or a new one carrying it forward; NULL: -ENOMEM. */
static struct psample *sample_at(struct ptrack *t, uint32_t seq)
{
	if (t->n && t->s[t->n - 1].seq == seq)
		return &t->s[t->n - 1];
	if (t->n == t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 4;
		struct psample *ns = realloc(t->s, nc * sizeof(*ns));

		if (!ns)
			return NULL;
		t->s = ns;
		t->cap = nc;
	}
	if (t->n)
		t->s[t->n] = t->s[t->n - 1];
	else
		t->s[t->n] = (struct psample){ .fds = -1 };
	t->s[t->n].seq = seq;
	return &t->s[t->n++];
}

static int pid_of(const char *path, const char **file)
{
	int task = !strncmp(path, "sonde:task/", 11), pid;
	const char *p = path + (task ? 11 : 6);

	if (!task && strncmp(path, "/proc/", 6))
		return -1;
	pid = atoi(p);
	while (*p >= '0' && *p <= '9')
		p++;
	if (pid <= 0 || *p != (task ? '\0' : '/'))
		return -1;
	*file = task ? "task" : p + 1;
	return pid;
}

/* A stat or task record: a process's identity and most of its values. */
static int pass__main(struct pass *ps, int pid, const char *file, const struct capture_rec *r)
{
	uint64_t page = (uint64_t)ps->an->page_size;
	struct psample *s;
	struct ptrack *t;

	if (!strcmp(file, "stat")) {
		struct pid_stat st;

		if (parse_pid_stat(r->data, r->len, &st) || st.nfields < 20)
			return 0;
		if (!(t = track_of(ps, pid, st.starttime, 1)) || !(s = sample_at(t, r->seq)))
			return -ENOMEM;
		snprintf(t->comm, sizeof(t->comm), "%s", st.comm);
		t->ppid = st.ppid;
		s->cpu = st.utime + st.stime;
		s->rss = st.rss_pages * page;
		s->threads = st.num_threads;
		return 0;
	} else {
		struct pid_task pt;

		if (parse_task_record(r->data, r->len, &pt))
			return 0;
		if (!(t = track_of(ps, pid, pt.starttime, 1)) || !(s = sample_at(t, r->seq)))
			return -ENOMEM;
		snprintf(t->comm, sizeof(t->comm), "%s", pt.comm);
		t->ppid = pt.ppid;
		t->kthread = pt.kernel_thread;
		s->cpu = pt.utime + pt.stime;
		s->rss = pt.rss_pages * page;
		s->threads = pt.threads;
		s->csw = pt.vol_ctxt + pt.nonvol_ctxt;
		s->has_csw = 1;
		if (pt.has_io) {
			s->rd = pt.read_bytes;
			s->wr = pt.write_bytes;
			s->has_io = 1;
		}
		if (pt.fds >= 0)
			s->fds = pt.fds;
		if (pt.anon_pages != UINT64_MAX) {
			s->anon = pt.anon_pages * page;
			s->has_anon = 1;
		}
		return 0;
	}
}

/* Any other file of a known process: io, status, its fd listing. */
static int pass__file(struct pass *ps, int pid, const char *file, const struct capture_rec *r)
{
	struct ptrack *t = pidmap__find(&ps->live, pid);
	struct psample *s;

	if (!t || !t->n)
		return 0;
	if (!(s = sample_at(t, r->seq)))
		return -ENOMEM;
	if (!strcmp(file, "io")) {
		struct pid_io io;

		if (!parse_pid_io(r->data, r->len, &io) && io.present) {
			s->rd = io.read_bytes;
			s->wr = io.write_bytes;
			s->has_io = 1;
		}
	} else if (!strcmp(file, "status")) {
		struct pid_status st;

		if (!parse_pid_status(r->data, r->len, &st)) {
			if (st.has_ctxt) {
				s->csw = st.vol_ctxt + st.nonvol_ctxt;
				s->has_csw = 1;
			}
			if (st.has_anon) {
				s->anon = st.rss_anon_kb * 1024;
				s->has_anon = 1;
			}
		}
	} else if (!strcmp(file, "fd")) {
		s->fds = 0;
		for (size_t k = 0; k < r->len; k++)
			s->fds += r->data[k] == '\n';
	}
	return 0;
}

/* "PID N" lines: each process's open fds that round (sonde:fds). */
static int pass__fds(struct pass *ps, const struct capture_rec *r)
{
	for (const char *p = r->data, *end = r->data + r->len; p < end;) {
		int pid;
		long long n;
		struct ptrack *t;
		struct psample *s;

		if (sscanf(p, "%d %lld", &pid, &n) == 2 && (t = pidmap__find(&ps->live, pid)) &&
		    t->n) {
			if (!(s = sample_at(t, r->seq)))
				return -ENOMEM;
			s->fds = n;
		}
		p = memchr(p, '\n', (size_t)(end - p));
		p = p ? p + 1 : end;
	}
	return 0;
}

static int pass__run(struct pass *ps, const struct capture_stream *st)
{
	int rc = 0;

	for (size_t i = 0; i < st->n; i++)
		if (st->rec[i].seq > ps->max_seq)
			ps->max_seq = st->rec[i].seq;
	if (ps->max_seq >= ROUNDS_MAX)
		return -E2BIG;
	ps->t = calloc(ps->max_seq + 1, sizeof(*ps->t));
	if (!ps->t)
		return -ENOMEM;
	for (size_t i = 0; i <= ps->max_seq; i++)
		ps->t[i] = NAN;
	for (size_t i = 0; i < st->n && !rc; i++) {
		const struct capture_rec *r = &st->rec[i];
		const char *file;
		int pid;

		if (isnan(ps->t[r->seq]))
			ps->t[r->seq] = analysis__t(ps->an, r);
		if (r->err)
			continue;
		if (!strcmp(r->path, "sonde:fds")) {
			rc = pass__fds(ps, r);
			continue;
		}
		pid = pid_of(r->path, &file);
		if (pid <= 0 || pid == ps->an->sonde_pid)
			continue;
		if (!strcmp(file, "stat") || !strcmp(file, "task"))
			rc = pass__main(ps, pid, file, r);
		else
			rc = pass__file(ps, pid, file, r);
	}
	/* a round with no record of its own (none): its neighbour's time */
	for (size_t i = 1; i <= ps->max_seq; i++)
		if (isnan(ps->t[i]))
			ps->t[i] = ps->t[i - 1];
	return rc;
}

/* ---- groups ---- */

static void command_of(const struct ptrack *t, char *buf, size_t len)
{
	/* /proc has no flag: kthreadd and its children are the kernel's */
	int kthread = t->kthread >= 0 ? t->kthread : t->pid == 2 || t->ppid == 2;

	snprintf(buf, len, "%s", t->comm[0] ? t->comm : "?");
	tty__clean_str(buf);
	/* per-CPU and per-queue kernel threads: one group each ("kworker/#:#") */
	if (kthread)
		for (char *c = buf; *c; c++)
			if (isdigit((unsigned char)*c))
				*c = '#';
}

static int group_find(struct group **g, size_t *ng, size_t *cap, const char *cmd, const char *cg,
		      size_t rounds)
{
	for (size_t i = 0; i < *ng; i++)
		if (!strcmp((*g)[i].command, cmd) && !strcmp((*g)[i].cgroup, cg))
			return (int)i;
	if (*ng == *cap) {
		size_t nc = *cap ? *cap * 2 : 64;
		struct group *n = realloc(*g, nc * sizeof(*n));

		if (!n)
			return -ENOMEM;
		*g = n;
		*cap = nc;
	}
	(*g)[*ng] = (struct group){ strdup(cmd), strdup(cg), 0, calloc(rounds * PA_N,
									 sizeof(double)) };
	if (!(*g)[*ng].command || !(*g)[*ng].cgroup || !(*g)[*ng].per)
		return -ENOMEM;
	return (int)(*ng)++;
}

/* The value of attribute a of sample s (a counter for a rate, else a level); NAN unknown. */
static double sample_value(const struct psample *s, int a)
{
	switch (a) {
	case PA_COUNT: return 1;
	case PA_CPU: return (double)s->cpu;
	case PA_RSS: return (double)s->rss;
	case PA_ANON: return s->has_anon ? (double)s->anon : NAN;
	case PA_READ: return s->has_io ? (double)s->rd : NAN;
	case PA_WRITE: return s->has_io ? (double)s->wr : NAN;
	case PA_THREADS: return (double)s->threads;
	case PA_FDS: return s->fds >= 0 ? (double)s->fds : NAN;
	case PA_CSW: return s->has_csw ? (double)s->csw : NAN;
	}
	return NAN;
}

/*
 * Add one process to its group's rounds: its levels at each round it was
 * alive, its counters' growth over each interval (from zero for a process
 * born in the window, counted in its first interval).
 */
static void group_add(struct group *g, const struct ptrack *t, uint32_t max_seq)
{
	uint32_t first = t->s[0].seq, last = max_seq;
	size_t k = 0;

	/* gone before the last round: alive up to its last read */
	if (t->s[t->n - 1].seq < max_seq)
		last = t->s[t->n - 1].seq;
	g->persistent |= last > first;
	for (uint32_t r = first; r <= last; r++) {
		const struct psample *now, *prev;

		while (k + 1 < t->n && t->s[k + 1].seq <= r)
			k++;
		now = &t->s[k];
		for (int a = 0; a < PA_N; a++) {
			double v = sample_value(now, a), p;

			if (!is_rate[a]) {
				g->per[r * PA_N + a] += isnan(v) ? 0 : v;
				continue;
			}
			if (r == first) {
				/* born in the window: everything it did is the window's */
				if (t->born && r > 0 && !isnan(v))
					g->per[r * PA_N + a] += v;
				continue;
			}
			prev = k && t->s[k].seq == r ? &t->s[k - 1] : now;
			p = sample_value(prev, a);
			if (!isnan(v) && !isnan(p) && v > p)
				g->per[r * PA_N + a] += v - p;
		}
	}
}

/* A group's window values and their per-interval ranges. */
static void group_fact(const struct group *g, const struct pass *ps, struct pfact *f)
{
	uint32_t R = ps->max_seq;
	double span = ps->t[R] - ps->t[0];

	for (int a = 0; a < PA_N; a++) {
		double sum = 0, lo = INFINITY, hi = -INFINITY, v;
		uint32_t from = is_rate[a] ? 1 : 0, n = 0;

		for (uint32_t r = from; r <= R; r++) {
			double dt = r ? ps->t[r] - ps->t[r - 1] : 1;

			v = g->per[r * PA_N + a];
			sum += v;
			if (is_rate[a]) {
				if (!(dt > 0))
					continue;
				v /= dt;
			}
			lo = fmin(lo, v);
			hi = fmax(hi, v);
			n++;
		}
		/* a rate over the window; a level's mean over the rounds; the count at its peak */
		if (is_rate[a])
			v = span > 0 ? sum / span : NAN;
		else if (a == PA_COUNT)
			v = n ? hi : NAN;
		else
			v = n ? sum / n : NAN;
		/* CPU: ticks to a share of one CPU */
		if (a == PA_CPU) {
			double k = 100.0 / (double)ps->an->clk_tck;

			v *= k, lo *= k, hi *= k;
		}
		f->q[a] = (struct dq){ v, lo, hi, n > 0 && !isnan(v) };
	}
	f->persistent = g->persistent || f->q[PA_CPU].v >= 1;
}

static int by_key(const void *a, const void *b)
{
	const struct pfact *x = a, *y = b;
	int c = strcmp(x->command, y->command);

	return c ? c : strcmp(x->cgroup, y->cgroup);
}

/* Every process of the pass into its group, and the groups' facts into pf. */
static int pass__groups(struct pass *ps, struct proc_facts *pf)
{
	struct group *g = NULL;
	size_t ng = 0, cap = 0, rounds = ps->max_seq + 1;
	int rc = 0;

	for (size_t i = 0; i < ps->live.cap + ps->ndone && !rc; i++) {
		const struct ptrack *t = i < ps->live.cap ? pidmap__slot(&ps->live, i) :
							    &ps->done[i - ps->live.cap];
		const struct cgpid *c;
		char cmd[64];
		int k;

		if (!t || !t->n)
			continue;
		c = pidmap__find(&ps->cg, t->pid);
		command_of(t, cmd, sizeof(cmd));
		k = group_find(&g, &ng, &cap, cmd, c ? ps->cgroups.v[c->idx - 1] : "/", rounds);
		if (k < 0)
			rc = k;
		else
			group_add(&g[k], t, ps->max_seq);
		pf->procs++;
	}
	pf->g = calloc(ng + 1, sizeof(*pf->g));
	if (!pf->g)
		rc = -ENOMEM;
	for (size_t i = 0; i < ng; i++) {
		if (!rc) {
			pf->g[pf->n] =
				(struct pfact){ .command = g[i].command, .cgroup = g[i].cgroup };
			group_fact(&g[i], ps, &pf->g[pf->n++]);
		} else {
			free(g[i].command);
			free(g[i].cgroup);
		}
		free(g[i].per);
	}
	free(g);
	if (!rc)
		qsort(pf->g, pf->n, sizeof(*pf->g), by_key);
	return rc;
}

int diff_procs__facts(struct analysis *an, struct proc_facts **out)
{
	const struct capture_stream *st = capture_set__stream(&an->cs, "proc.pids");
	struct pass ps = { .an = an, .live = PIDMAP_INIT(sizeof(struct ptrack)),
			   .cg = PIDMAP_INIT(sizeof(struct cgpid)) };
	struct proc_facts *pf = calloc(1, sizeof(*pf));
	int rc = 0;

	*out = pf;
	if (!pf)
		return -ENOMEM;
	if (!st) {
		const char *why = capture_set__why(&an->cs, "proc.pids");

		snprintf(pf->why, sizeof(pf->why), "%s", why ? why : "proc.pids was not collected");
		return 0;
	}
	rc = pass__cgroups(&ps);
	if (!rc)
		rc = pass__run(&ps, st);
	if (!rc)
		rc = pass__groups(&ps, pf);
	if (rc == -E2BIG)
		snprintf(pf->why, sizeof(pf->why), "more than %d rounds", ROUNDS_MAX);
	else if (rc)
		snprintf(pf->why, sizeof(pf->why), "%s", strerror(-rc));
	for (size_t i = 0; i < ps.live.cap; i++) {
		struct ptrack *t = pidmap__slot(&ps.live, i);

		if (t)
			free(t->s);
	}
	for (size_t i = 0; i < ps.ndone; i++)
		free(ps.done[i].s);
	free(ps.done);
	free(ps.t);
	pidmap__free(&ps.live);
	pidmap__free(&ps.cg);
	strv__free(&ps.cgroups);
	return rc == -ENOMEM ? rc : 0;
}

void diff_procs__facts_free(struct proc_facts *pf)
{
	if (!pf)
		return;
	for (size_t i = 0; i < pf->n; i++) {
		free(pf->g[i].command);
		free(pf->g[i].cgroup);
	}
	free(pf->g);
	free(pf);
}
