// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * execsnoop: processes started during the window (docs/bpf-tools.md). data = {
 *   execs, forks, threads, exits, exits_new, not_sampled, forks_include_threads,
 *   lifetime = { unit = "us", hist = log2 slots, count, total_us },
 *   parents_seen, parents = top parents by children execed { ppid, comm, execs, forks },
 *   comms_seen, comms = top commands by execs { comm, filename, execs, exits_new, life_us },
 *   sampling = { first, per_comm, max, args_max }, samples = argv samples in time
 *   order { at_s, pid, ppid, uid, comm, pcomm, filename, args, args_cut } }.
 *
 * Without BPF, the same but the argv samples from sched:sched_process_fork,
 * sched_process_exec and sched_process_exit in a tracefs instance (ftrace.h),
 * counted in sonde: an exec event has no argv (sampling all 0, every exec
 * not sampled), a fork's record does not tell a thread from a process (as
 * the classic tracepoint's), a lifetime is from the fork seen in the window.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "util/clock.h"
#include "util/file.h"
#include "util/parse.h"
#include "util/pidmap.h"
#include "trace/ftrace.h"
#include "trace/maps.h"
#include "trace/trace.h"
#include "execsnoop.h"
#include "execsnoop.skel.h"

#define TOP_PARENTS 20
#define TOP_COMMS 20

static void *execsnoop_open(struct bpf_object **obj)
{
	struct execsnoop_bpf *skel = execsnoop_bpf__open();

	if (skel)
		*obj = skel->obj;
	return skel;
}

static int execsnoop_configure(void *skel, const struct trace_opts *o)
{
	struct execsnoop_bpf *s = skel;

	(void)o;
	/* task->start_time is CLOCK_MONOTONIC: a later start is a process born in the window */
	s->rodata->targ_since_ns = (__u64)clock__ns(CLOCK_MONOTONIC);
	return 0;
}

struct parent_row {
	__u32 ppid;
	struct execsnoop_parent v;
};

struct comm_row {
	char comm[16];
	struct execsnoop_comm v;
};

static const struct trace_map_row parent_rows = TRACE_MAP_ROW(struct parent_row, ppid, v);
static const struct trace_map_row comm_rows = TRACE_MAP_ROW(struct comm_row, comm, v);

struct samples {
	struct execsnoop_sample *rows;
	size_t n, cap;
};

static int parents_desc(const void *a, const void *b)
{
	const struct parent_row *x = a, *y = b;

	if (x->v.execs != y->v.execs)
		return trace__cmp_desc(x->v.execs, y->v.execs);
	if (x->v.forks != y->v.forks)
		return trace__cmp_desc(x->v.forks, y->v.forks);
	return x->ppid < y->ppid ? -1 : x->ppid > y->ppid;
}

static int comms_desc(const void *a, const void *b)
{
	const struct comm_row *x = a, *y = b;

	if (x->v.execs != y->v.execs)
		return trace__cmp_desc(x->v.execs, y->v.execs);
	if (x->v.exits_new != y->v.exits_new)
		return trace__cmp_desc(x->v.exits_new, y->v.exits_new);
	return strncmp(x->comm, y->comm, sizeof(x->comm));
}

static int samples_by_time(const void *a, const void *b)
{
	const struct execsnoop_sample *x = a, *y = b;

	return x->ts_ns < y->ts_ns ? -1 : x->ts_ns > y->ts_ns;
}

/* Ring buffer callback: keep the record (bounded by the buffer's size, hence by the kernel's caps). */
static int on_sample(void *ctx, void *data, size_t size)
{
	struct samples *s = ctx;

	if (size < sizeof(struct execsnoop_sample))
		return 0;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 128;
		struct execsnoop_sample *n = realloc(s->rows, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		s->rows = n;
		s->cap = cap;
	}
	memcpy(&s->rows[s->n++], data, sizeof(struct execsnoop_sample));
	return 0;
}

/* The argv samples the ring buffer holds now, in time order. 0 or -errno. */
static int read_samples(int fd, struct samples *smp)
{
	struct ring_buffer *rb = ring_buffer__new(fd, on_sample, smp, NULL);
	int err = 0;

	if (!rb)
		return -errno;
	/* The programs are still attached: take what is there now, later records are not ours. */
	if (ring_buffer__consume(rb) < 0 && !smp->n)
		err = -ENOMEM;
	else if (smp->n > 1)
		qsort(smp->rows, smp->n, sizeof(*smp->rows), samples_by_time);
	ring_buffer__free(rb);
	return err;
}

static void json_args(struct json *j, const char *args, size_t len)
{
	char buf[EXECSNOOP_ARGS_MAX];

	if (len > sizeof(buf) - 1)
		len = sizeof(buf) - 1;
	memcpy(buf, args, len);
	/* argv strings are NUL-separated: join them with spaces as ps and execsnoop print them */
	while (len && buf[len - 1] == '\0')
		len--;
	for (size_t i = 0; i < len; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	json__string_n(j, buf, len);
}

static void json_totals(struct json *j, const uint64_t *tot, const struct trace_run *t,
			const struct execsnoop_hist *life)
{
	trace__json_int(j, "execs", tot[EXECSNOOP_EXECS]);
	trace__json_int(j, "forks", tot[EXECSNOOP_FORKS]);
	trace__json_int(j, "threads", tot[EXECSNOOP_THREADS]);
	trace__json_int(j, "exits", tot[EXECSNOOP_EXITS]);
	trace__json_int(j, "exits_new", tot[EXECSNOOP_EXITS_NEW]);
	trace__json_int(j, "not_sampled", tot[EXECSNOOP_NOT_SAMPLED]);
	/* the classic tracepoint's fork record cannot tell a thread from a process */
	json__key(j, "forks_include_threads");
	json__bool(j, t->attach == ATTACH_TRACEPOINT || t->attach == ATTACH_TRACEFS);

	json__key(j, "lifetime");
	json__begin_object(j);
	json__key(j, "unit");
	json__string(j, "us");
	json__key(j, "hist");
	trace__json_log2(j, life->slots, EXECSNOOP_SLOTS);
	trace__json_int(j, "count", tot[EXECSNOOP_EXITS_NEW]);
	trace__json_us(j, "total_us", life->total_ns);
	json__end_object(j);
}

static void json_parent(struct json *j, const void *row, void *arg)
{
	const struct parent_row *r = row;

	trace__json_int(j, "ppid", r->ppid);
	trace__json_comm(j, "comm", r->v.comm, sizeof(r->v.comm));
	trace__json_int(j, "execs", r->v.execs);
	trace__json_int(j, "forks", r->v.forks);
}

static void json_comm(struct json *j, const void *row, void *arg)
{
	const struct comm_row *r = row;

	trace__json_comm(j, "comm", r->comm, sizeof(r->comm));
	trace__json_comm(j, "filename", r->v.filename, sizeof(r->v.filename));
	trace__json_int(j, "execs", r->v.execs);
	trace__json_int(j, "exits_new", r->v.exits_new);
	trace__json_us(j, "life_us", r->v.life_ns);
}

static void json_sampling(struct json *j, int first, int per_comm, int max, int args_max)
{
	json__key(j, "sampling");
	json__begin_object(j);
	trace__json_int(j, "first", first);
	trace__json_int(j, "per_comm", per_comm);
	trace__json_int(j, "max", max);
	trace__json_int(j, "args_max", args_max);
	json__end_object(j);
}

static void json_sample(struct json *j, const void *row, void *arg)
{
	const struct execsnoop_sample *e = row;
	const struct trace_run *t = arg;

	json__key(j, "at_s");
	json__number(j, ((double)e->ts_ns - (double)t->attached_mono_ns) / 1e9);
	trace__json_int(j, "pid", e->pid);
	trace__json_int(j, "ppid", e->ppid);
	trace__json_int(j, "uid", e->uid);
	trace__json_comm(j, "comm", e->comm, sizeof(e->comm));
	trace__json_comm(j, "pcomm", e->pcomm, sizeof(e->pcomm));
	trace__json_comm(j, "filename", e->filename, sizeof(e->filename));
	json__key(j, "args");
	json_args(j, e->args, e->args_len);
	json__key(j, "args_cut");
	json__bool(j, e->args_cut);
}

static int execsnoop_collect(struct trace_run *t, struct json *j)
{
	struct execsnoop_bpf *skel = t->skel;
	struct execsnoop_hist life;
	struct parent_row *parents = NULL;
	struct comm_row *comms = NULL;
	struct samples smp = { 0 };
	size_t nparents = 0, ncomms = 0;
	uint64_t tot[EXECSNOOP_TOTAL_NR];
	int err;

	if ((err = trace_map__counters(bpf_map__fd(skel->maps.totals), tot, EXECSNOOP_TOTAL_NR)) ||
	    (err = trace_map__percpu_sum(bpf_map__fd(skel->maps.lifetimes), 0, &life,
					 sizeof(life))) ||
	    (err = trace_map__read(bpf_map__fd(skel->maps.parents), &parent_rows, 0,
				   (void **)&parents, &nparents)) ||
	    (err = trace_map__read(bpf_map__fd(skel->maps.comms), &comm_rows, 0, (void **)&comms,
				   &ncomms)) ||
	    (err = read_samples(bpf_map__fd(skel->maps.samples), &smp)))
		goto cleanup;
	qsort(parents, nparents, sizeof(*parents), parents_desc);
	qsort(comms, ncomms, sizeof(*comms), comms_desc);

	json_totals(j, tot, t, &life);
	trace__json_top(j, "parents_seen", "parents", parents, nparents, sizeof(*parents),
			TOP_PARENTS, json_parent, NULL);
	trace__json_top(j, "comms_seen", "comms", comms, ncomms, sizeof(*comms), TOP_COMMS,
			json_comm, NULL);
	json_sampling(j, (int)skel->rodata->targ_first_samples, (int)skel->rodata->targ_per_comm,
		      EXECSNOOP_MAX_SAMPLES, EXECSNOOP_ARGS_MAX - 1);
	trace__json_top(j, NULL, "samples", smp.rows, smp.n, sizeof(*smp.rows), smp.n, json_sample,
			t);
cleanup:
	free(smp.rows);
	free(comms);
	free(parents);
	return err;
}

/* ---- the tracefs variant ---- */

struct ft_born {
	int pid;          /* pidmap's key: a process forked in the window */
	int ppid;         /* its parent, from the fork's line */
	uint64_t ts_ns;   /* the fork */
	char pcomm[16];
};

struct ft_state {
	uint64_t tot[EXECSNOOP_TOTAL_NR];
	struct execsnoop_hist life;
	struct pidmap born;       /* struct ft_born */
	struct parent_row *parents;
	struct comm_row *comms;
	size_t nparents, ncomms;
	uint64_t dropped;
};

static void *ft_new(void)
{
	struct ft_state *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->born = (struct pidmap)PIDMAP_INIT(sizeof(struct ft_born));
	st->parents = calloc(EXECSNOOP_MAX_PARENTS, sizeof(*st->parents));
	st->comms = calloc(EXECSNOOP_MAX_COMMS, sizeof(*st->comms));
	if (!st->parents || !st->comms) {
		free(st->parents);
		free(st->comms);
		free(st);
		return NULL;
	}
	return st;
}

static void ft_free(void *state)
{
	struct ft_state *st = state;

	pidmap__free(&st->born);
	free(st->parents);
	free(st->comms);
	free(st);
}

static struct execsnoop_parent *ft_parent(struct ft_state *st, int ppid, const char *comm)
{
	size_t i;

	for (i = 0; i < st->nparents && st->parents[i].ppid != (__u32)ppid; i++)
		;
	if (i == st->nparents) {
		if (i == EXECSNOOP_MAX_PARENTS) {
			st->dropped++;
			return NULL;
		}
		st->parents[st->nparents++].ppid = (__u32)ppid;
		memcpy(st->parents[i].v.comm, comm, sizeof(st->parents[i].v.comm) - 1);
	}
	return &st->parents[i].v;
}

static struct execsnoop_comm *ft_comm(struct ft_state *st, const char *comm)
{
	size_t i;

	for (i = 0; i < st->ncomms && strncmp(st->comms[i].comm, comm, sizeof(st->comms[i].comm));
	     i++)
		;
	if (i == st->ncomms) {
		if (i == EXECSNOOP_MAX_COMMS) {
			st->dropped++;
			return NULL;
		}
		st->ncomms++;
		memcpy(st->comms[i].comm, comm, sizeof(st->comms[i].comm) - 1);
	}
	return &st->comms[i].v;
}

static int64_t ft_int(const struct ftrace_line *l, const char *name)
{
	int64_t v;

	return parse_ftrace_int(l->fields, l->fields_len, name, &v) ? -1 : v;
}

/* A process's parent and its comm, from /proc when its fork was not seen: -1 when gone. */
static int ft_ppid(int pid, char *pcomm, size_t n)
{
	char path[64], buf[1024];
	struct pid_stat ps;
	ssize_t len;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	len = file__read_small(path, buf, sizeof(buf));
	if (len <= 0 || parse_pid_stat(buf, (size_t)len, &ps))
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/comm", ps.ppid);
	len = file__read_small(path, buf, sizeof(buf));
	buf[len > 0 ? strcspn(buf, "\n") : 0] = '\0';
	snprintf(pcomm, n, "%.15s", buf);
	return ps.ppid;
}

static void ft_fork(struct ft_state *st, const struct ftrace_line *l)
{
	int parent = l->tgid > 0 ? l->tgid : l->pid;
	int64_t child = ft_int(l, "child_pid");
	struct execsnoop_parent *p;
	struct ft_born *b;

	st->tot[EXECSNOOP_FORKS]++; /* threads too: forks_include_threads */
	if ((p = ft_parent(st, parent, l->comm)))
		p->forks++;
	if (child > 0 && (b = pidmap__get(&st->born, (int)child))) {
		b->ppid = parent;
		b->ts_ns = l->ts_ns;
		memcpy(b->pcomm, l->comm, sizeof(b->pcomm));
	}
}

static void ft_exec(struct ft_state *st, const struct ftrace_line *l)
{
	int pid = l->tgid > 0 ? l->tgid : l->pid, ppid;
	struct ft_born *b = pidmap__find(&st->born, pid);
	struct execsnoop_parent *p;
	struct execsnoop_comm *c;
	char pcomm[16] = "";
	const char *fn;
	size_t n;

	st->tot[EXECSNOOP_EXECS]++;
	st->tot[EXECSNOOP_NOT_SAMPLED]++; /* the event has no argv */
	if (b) {
		ppid = b->ppid;
		memcpy(pcomm, b->pcomm, sizeof(pcomm));
	} else {
		ppid = ft_ppid(pid, pcomm, sizeof(pcomm));
	}
	if (ppid > 0 && (p = ft_parent(st, ppid, pcomm)))
		p->execs++;
	c = ft_comm(st, l->comm);
	if (c) {
		c->execs++;
		if (!c->filename[0] && !parse_ftrace_field(l->fields, l->fields_len, "filename", &fn, &n))
			memcpy(c->filename, fn, n < sizeof(c->filename) ? n : sizeof(c->filename) - 1);
	}
}

static void ft_exit(struct ft_state *st, const struct ftrace_line *l)
{
	struct ft_born *b;
	struct execsnoop_comm *c;
	uint64_t life, slot;

	/* a process ends with its main thread, as the BPF programs count it */
	if (l->tgid > 0 && l->pid != l->tgid)
		return;
	st->tot[EXECSNOOP_EXITS]++;
	b = pidmap__find(&st->born, l->pid);
	if (!b || l->ts_ns < b->ts_ns)
		return;
	life = l->ts_ns - b->ts_ns;
	st->tot[EXECSNOOP_EXITS_NEW]++;
	for (slot = 0; (life / 1000) >> (slot + 1) && slot + 1 < EXECSNOOP_SLOTS; slot++)
		;
	st->life.slots[slot]++;
	st->life.total_ns += life;
	if ((c = ft_comm(st, l->comm))) {
		c->exits_new++;
		c->life_ns += life;
	}
}

static void ft_line(void *state, const struct ftrace_line *l, int self)
{
	struct ft_state *st = state;

	if (l->event_len == 18 && !memcmp(l->event, "sched_process_fork", 18))
		ft_fork(st, l);
	else if (l->event_len == 18 && !memcmp(l->event, "sched_process_exec", 18))
		ft_exec(st, l);
	else if (l->event_len == 18 && !memcmp(l->event, "sched_process_exit", 18))
		ft_exit(st, l);
}

static int ft_collect(struct trace_run *t, void *state, struct json *j)
{
	struct ft_state *st = state;

	t->c.drops += st->dropped;
	qsort(st->parents, st->nparents, sizeof(*st->parents), parents_desc);
	qsort(st->comms, st->ncomms, sizeof(*st->comms), comms_desc);
	json_totals(j, st->tot, t, &st->life);
	trace__json_top(j, "parents_seen", "parents", st->parents, st->nparents,
			sizeof(*st->parents), TOP_PARENTS, json_parent, NULL);
	trace__json_top(j, "comms_seen", "comms", st->comms, st->ncomms, sizeof(*st->comms),
			TOP_COMMS, json_comm, NULL);
	json_sampling(j, 0, 0, 0, 0);
	json__key(j, "samples");
	json__begin_array(j);
	json__end_array(j);
	return 0;
}

static const struct ftrace_tool execsnoop_ftrace = {
	.events = { { "sched", "sched_process_fork", NULL, 0 },
		    { "sched", "sched_process_exec", NULL, 0 },
		    { "sched", "sched_process_exit", NULL, 0 } },
	.state_new = ft_new,
	.line = ft_line,
	.collect = ft_collect,
	.state_free = ft_free,
};

static void execsnoop_destroy(void *skel)
{
	execsnoop_bpf__destroy(skel);
}

const struct trace_tool trace_execsnoop = {
	.name = "execsnoop",
	.what = "processes started in the window: execs by parent and command, argv samples, "
		"lifetimes",
	.attach = { ATTACH_TP_BTF, ATTACH_RAW_TP, ATTACH_TRACEPOINT, ATTACH_TRACEFS, ATTACH_NR },
	.ftrace = &execsnoop_ftrace,
	.open = execsnoop_open,
	.configure = execsnoop_configure,
	.collect = execsnoop_collect,
	.destroy = execsnoop_destroy,
	.hooks = { { HEV_FORK, 3 } },
	.run_cost = 5.0,
	.instead = "the processes the /proc sampling saw",
};
