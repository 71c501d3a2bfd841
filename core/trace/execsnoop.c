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

struct samples {
	struct execsnoop_sample *rows;
	size_t n, cap;
};

static int parents_desc(const void *a, const void *b)
{
	const struct parent_row *x = a, *y = b;

	if (x->v.execs != y->v.execs)
		return x->v.execs < y->v.execs ? 1 : -1;
	if (x->v.forks != y->v.forks)
		return x->v.forks < y->v.forks ? 1 : -1;
	return x->ppid < y->ppid ? -1 : x->ppid > y->ppid;
}

static int comms_desc(const void *a, const void *b)
{
	const struct comm_row *x = a, *y = b;

	if (x->v.execs != y->v.execs)
		return x->v.execs < y->v.execs ? 1 : -1;
	if (x->v.exits_new != y->v.exits_new)
		return x->v.exits_new < y->v.exits_new ? 1 : -1;
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

/* Read a whole hash map into rows (key at 0, value at voff); *rows is realloc'ed. 0 or -errno. */
static int read_hash(int fd, size_t ksz, size_t rowsz, size_t voff, void **rows, size_t *n)
{
	char key[16], next[16], *prev = NULL;
	size_t cap = 0;

	*rows = NULL;
	*n = 0;
	while (!bpf_map_get_next_key(fd, prev, next)) {
		char *row;

		if (*n == cap) {
			void *r = realloc(*rows, (cap = cap ? cap * 2 : 256) * rowsz);

			if (!r)
				return -ENOMEM;
			*rows = r;
		}
		row = (char *)*rows + *n * rowsz;
		if (!bpf_map_lookup_elem(fd, next, row + voff)) {
			memcpy(row, next, ksz);
			(*n)++;
		}
		memcpy(key, next, ksz);
		prev = key;
	}
	return 0;
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

static int execsnoop_collect(struct trace_run *t, struct json *j)
{
	struct execsnoop_bpf *skel = t->skel;
	int ncpu = libbpf_num_possible_cpus();
	struct execsnoop_hist *per_cpu = NULL, life = { 0 };
	struct parent_row *parents = NULL;
	struct comm_row *comms = NULL;
	struct samples smp = { 0 };
	struct ring_buffer *rb = NULL;
	size_t nparents = 0, ncomms = 0;
	uint64_t tot[EXECSNOOP_TOTAL_NR] = { 0 };
	__u32 key = 0;
	int err = 0;

	if (ncpu <= 0)
		return -EINVAL;
	for (__u32 i = 0; i < EXECSNOOP_TOTAL_NR; i++) {
		err = trace__percpu_sum(bpf_map__fd(skel->maps.totals), i, &tot[i]);
		if (err)
			goto cleanup;
	}
	per_cpu = calloc((size_t)ncpu, sizeof(*per_cpu));
	if (!per_cpu) {
		err = -ENOMEM;
		goto cleanup;
	}
	if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.lifetimes), &key, per_cpu)) {
		err = -errno;
		goto cleanup;
	}
	for (int c = 0; c < ncpu; c++) {
		for (int s = 0; s < EXECSNOOP_SLOTS; s++)
			life.slots[s] += per_cpu[c].slots[s];
		life.total_ns += per_cpu[c].total_ns;
	}
	err = read_hash(bpf_map__fd(skel->maps.parents), sizeof(__u32), sizeof(*parents),
			offsetof(struct parent_row, v), (void **)&parents, &nparents);
	if (err)
		goto cleanup;
	err = read_hash(bpf_map__fd(skel->maps.comms), 16, sizeof(*comms),
			offsetof(struct comm_row, v), (void **)&comms, &ncomms);
	if (err)
		goto cleanup;
	qsort(parents, nparents, sizeof(*parents), parents_desc);
	qsort(comms, ncomms, sizeof(*comms), comms_desc);

	rb = ring_buffer__new(bpf_map__fd(skel->maps.samples), on_sample, &smp, NULL);
	if (!rb) {
		err = -errno;
		goto cleanup;
	}
	/* The programs are still attached: take what is there now, later records are not ours. */
	if (ring_buffer__consume(rb) < 0 && !smp.n) {
		err = -ENOMEM;
		goto cleanup;
	}
	if (smp.n > 1)
		qsort(smp.rows, smp.n, sizeof(*smp.rows), samples_by_time);

	json__key(j, "execs");
	json__int(j, (int64_t)tot[EXECSNOOP_EXECS]);
	json__key(j, "forks");
	json__int(j, (int64_t)tot[EXECSNOOP_FORKS]);
	json__key(j, "threads");
	json__int(j, (int64_t)tot[EXECSNOOP_THREADS]);
	json__key(j, "exits");
	json__int(j, (int64_t)tot[EXECSNOOP_EXITS]);
	json__key(j, "exits_new");
	json__int(j, (int64_t)tot[EXECSNOOP_EXITS_NEW]);
	json__key(j, "not_sampled");
	json__int(j, (int64_t)tot[EXECSNOOP_NOT_SAMPLED]);
	/* the classic tracepoint's fork record cannot tell a thread from a process */
	json__key(j, "forks_include_threads");
	json__bool(j, t->attach == ATTACH_TRACEPOINT);

	json__key(j, "lifetime");
	json__begin_object(j);
	json__key(j, "unit");
	json__string(j, "us");
	json__key(j, "hist");
	trace__json_log2(j, life.slots, EXECSNOOP_SLOTS);
	json__key(j, "count");
	json__int(j, (int64_t)tot[EXECSNOOP_EXITS_NEW]);
	json__key(j, "total_us");
	json__number(j, (double)life.total_ns / 1e3);
	json__end_object(j);

	json__key(j, "parents_seen");
	json__int(j, (int64_t)nparents);
	json__key(j, "parents");
	json__begin_array(j);
	for (size_t i = 0; i < nparents && i < TOP_PARENTS; i++) {
		json__begin_object(j);
		json__key(j, "ppid");
		json__int(j, parents[i].ppid);
		json__key(j, "comm");
		trace__json_comm(j, parents[i].v.comm, sizeof(parents[i].v.comm));
		json__key(j, "execs");
		json__int(j, (int64_t)parents[i].v.execs);
		json__key(j, "forks");
		json__int(j, (int64_t)parents[i].v.forks);
		json__end_object(j);
	}
	json__end_array(j);

	json__key(j, "comms_seen");
	json__int(j, (int64_t)ncomms);
	json__key(j, "comms");
	json__begin_array(j);
	for (size_t i = 0; i < ncomms && i < TOP_COMMS; i++) {
		const struct execsnoop_comm *v = &comms[i].v;

		json__begin_object(j);
		json__key(j, "comm");
		trace__json_comm(j, comms[i].comm, sizeof(comms[i].comm));
		json__key(j, "filename");
		trace__json_comm(j, v->filename, sizeof(v->filename));
		json__key(j, "execs");
		json__int(j, (int64_t)v->execs);
		json__key(j, "exits_new");
		json__int(j, (int64_t)v->exits_new);
		json__key(j, "life_us");
		json__number(j, (double)v->life_ns / 1e3);
		json__end_object(j);
	}
	json__end_array(j);

	json__key(j, "sampling");
	json__begin_object(j);
	json__key(j, "first");
	json__int(j, skel->rodata->targ_first_samples);
	json__key(j, "per_comm");
	json__int(j, skel->rodata->targ_per_comm);
	json__key(j, "max");
	json__int(j, EXECSNOOP_MAX_SAMPLES);
	json__key(j, "args_max");
	json__int(j, EXECSNOOP_ARGS_MAX - 1);
	json__end_object(j);

	json__key(j, "samples");
	json__begin_array(j);
	for (size_t i = 0; i < smp.n; i++) {
		const struct execsnoop_sample *e = &smp.rows[i];

		json__begin_object(j);
		json__key(j, "at_s");
		json__number(j, ((double)e->ts_ns - (double)t->attached_mono_ns) / 1e9);
		json__key(j, "pid");
		json__int(j, e->pid);
		json__key(j, "ppid");
		json__int(j, e->ppid);
		json__key(j, "uid");
		json__int(j, e->uid);
		json__key(j, "comm");
		trace__json_comm(j, e->comm, sizeof(e->comm));
		json__key(j, "pcomm");
		trace__json_comm(j, e->pcomm, sizeof(e->pcomm));
		json__key(j, "filename");
		trace__json_comm(j, e->filename, sizeof(e->filename));
		json__key(j, "args");
		json_args(j, e->args, e->args_len);
		json__key(j, "args_cut");
		json__bool(j, e->args_cut);
		json__end_object(j);
	}
	json__end_array(j);
cleanup:
	ring_buffer__free(rb);
	free(smp.rows);
	free(comms);
	free(parents);
	free(per_cpu);
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
};
