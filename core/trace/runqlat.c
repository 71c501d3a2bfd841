// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * runqlat: run-queue latency. data = { unit = "us", hist = log2 slots, count,
 * total_us, intervals = { interval_ms, unit, counts = log2 slots per interval },
 * tasks = top threads by total wait { pid, tgid, comm, count, total_us,
 * max_us }, tasks_seen }.
 */
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "trace/maps.h"
#include "trace/trace.h"
#include "runqlat.h"
#include "runqlat.skel.h"

#define TOP_TASKS 50

static void *runqlat_open(struct bpf_object **obj)
{
	struct runqlat_bpf *skel = runqlat_bpf__open();

	if (skel)
		*obj = skel->obj;
	return skel;
}

static int runqlat_configure(void *skel, const struct trace_opts *o)
{
	struct runqlat_bpf *s = skel;

	s->rodata->targ_self_tgid = (__u32)o->self_pid;
	TRACE_SET_INTERVALS(s->rodata, o);
	return 0;
}

struct task_row {
	__u32 pid;
	struct runqlat_task v;
};

static const struct trace_map_row task_rows = TRACE_MAP_ROW(struct task_row, pid, v);

static int by_total_desc(const void *a, const void *b)
{
	const struct task_row *x = a, *y = b;

	return trace__cmp_desc(x->v.total_ns, y->v.total_ns);
}

static void json_task(struct json *j, const void *row, void *arg)
{
	const struct task_row *r = row;

	trace__json_int(j, "pid", r->pid);
	trace__json_int(j, "tgid", r->v.tgid);
	trace__json_comm(j, "comm", r->v.comm, sizeof(r->v.comm));
	trace__json_int(j, "count", r->v.count);
	trace__json_us(j, "total_us", r->v.total_ns);
	trace__json_us(j, "max_us", r->v.max_ns);
}

/* The window's histogram (sum) and each interval's slots (iv, niv rows) from the map. */
static int read_intervals(struct runqlat_bpf *skel, struct runqlat_hist *sum,
			  unsigned long long *iv, size_t niv)
{
	memset(sum, 0, sizeof(*sum));
	for (size_t i = 0; i < TRACE_MAX_INTERVALS; i++) {
		struct runqlat_hist h;
		int err = trace_map__percpu_sum(bpf_map__fd(skel->maps.hist), (uint32_t)i, &h,
						sizeof(h));

		if (err)
			return err;
		for (size_t s = 0; s < RUNQLAT_SLOTS; s++)
			sum->slots[s] += h.slots[s];
		sum->count += h.count;
		sum->total_ns += h.total_ns;
		if (i < niv)
			memcpy(iv + i * RUNQLAT_SLOTS, h.slots, sizeof(h.slots));
	}
	return 0;
}

static int runqlat_collect(struct trace_run *t, struct json *j)
{
	struct runqlat_bpf *skel = t->skel;
	struct runqlat_hist sum;
	struct task_row *rows = NULL;
	unsigned long long iv[TRACE_MAX_INTERVALS * RUNQLAT_SLOTS];
	size_t nrows = 0, niv;
	int err;

	niv = trace_run__intervals(t, skel->rodata->sonde_iv_ns);
	err = read_intervals(skel, &sum, iv, niv);
	if (err)
		return err;
	err = trace_map__read(bpf_map__fd(skel->maps.tasks), &task_rows, 0, (void **)&rows, &nrows);
	if (err)
		goto cleanup;
	qsort(rows, nrows, sizeof(*rows), by_total_desc);

	json__key(j, "unit");
	json__string(j, "us");
	json__key(j, "hist");
	trace__json_log2(j, sum.slots, RUNQLAT_SLOTS);
	trace__json_int(j, "count", sum.count);
	trace__json_us(j, "total_us", sum.total_ns);
	trace__json_intervals(j, skel->rodata->sonde_iv_ns, "us", iv, niv, RUNQLAT_SLOTS);
	trace__json_top(j, "tasks_seen", "tasks", rows, nrows, sizeof(*rows), TOP_TASKS, json_task,
			NULL);
cleanup:
	free(rows);
	return err;
}

static void runqlat_destroy(void *skel)
{
	runqlat_bpf__destroy(skel);
}

const struct trace_tool trace_runqlat = {
	.name = "runqlat",
	.what = "run-queue latency histogram and top waiting threads",
	.attach = { ATTACH_TP_BTF, ATTACH_RAW_TP, ATTACH_TRACEPOINT, ATTACH_NR },
	.open = runqlat_open,
	.configure = runqlat_configure,
	.collect = runqlat_collect,
	.destroy = runqlat_destroy,
	.hooks = { { HEV_CTXT, 2 }, { HEV_FORK, 1 } },
	.run_cost = 3.0,
	.hot = 1,
	.instead = "run delay per CPU from /proc/schedstat and per process from "
		   "/proc/PID/schedstat, and PSI cpu",
};
