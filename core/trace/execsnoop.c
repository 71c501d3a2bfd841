// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * execsnoop: processes started during the window (docs/bpf-tools.md). data = {
 *   execs, forks, threads, exits, exits_new, not_sampled, forks_include_threads,
 *   lifetime = { unit = "us", hist = log2 slots, count, total_us },
 *   parents_seen, parents = top parents by children execed { ppid, comm, execs, forks },
 *   comms_seen, comms = top commands by execs { comm, filename, execs, exits_new, life_us },
 *   sampling = { first, per_comm, max, args_max }, samples = argv samples in time
 *   order { at_s, pid, ppid, uid, comm, pcomm, filename, args, args_cut } }.
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
	json__bool(j, t->attach == ATTACH_TRACEPOINT);

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

static void json_sampling(struct json *j, const struct execsnoop_bpf *skel)
{
	json__key(j, "sampling");
	json__begin_object(j);
	trace__json_int(j, "first", skel->rodata->targ_first_samples);
	trace__json_int(j, "per_comm", skel->rodata->targ_per_comm);
	trace__json_int(j, "max", EXECSNOOP_MAX_SAMPLES);
	trace__json_int(j, "args_max", EXECSNOOP_ARGS_MAX - 1);
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
	json_sampling(j, skel);
	trace__json_top(j, NULL, "samples", smp.rows, smp.n, sizeof(*smp.rows), smp.n, json_sample,
			t);
cleanup:
	free(smp.rows);
	free(comms);
	free(parents);
	return err;
}

static void execsnoop_destroy(void *skel)
{
	execsnoop_bpf__destroy(skel);
}

const struct trace_tool trace_execsnoop = {
	.name = "execsnoop",
	.what = "processes started in the window: execs by parent and command, argv samples, "
		"lifetimes",
	.attach = { ATTACH_TP_BTF, ATTACH_RAW_TP, ATTACH_TRACEPOINT, ATTACH_NR },
	.open = execsnoop_open,
	.configure = execsnoop_configure,
	.collect = execsnoop_collect,
	.destroy = execsnoop_destroy,
	.hooks = { { HEV_FORK, 3 } },
	.run_cost = 5.0,
	.instead = "the processes the /proc sampling saw",
};
