// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * runqlat: run-queue latency. data = { unit = "us", hist = log2 slots, count,
 * total_us, tasks = top threads by total wait { pid, tgid, comm, count,
 * total_us, max_us }, tasks_seen }.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

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
	((struct runqlat_bpf *)skel)->rodata->targ_self_tgid = (__u32)o->self_pid;
	return 0;
}

struct task_row {
	__u32 pid;
	struct runqlat_task v;
};

static int by_total_desc(const void *a, const void *b)
{
	const struct task_row *x = a, *y = b;

	return x->v.total_ns < y->v.total_ns ? 1 : x->v.total_ns > y->v.total_ns ? -1 : 0;
}

static int runqlat_collect(struct trace_run *t, struct json *j)
{
	struct runqlat_bpf *skel = t->skel;
	int ncpu = libbpf_num_possible_cpus();
	struct runqlat_hist *per_cpu, sum = { 0 };
	struct task_row *rows = NULL;
	size_t nrows = 0, cap = 0;
	__u32 key = 0, next, *prev = NULL;
	int fd, err = 0;

	if (ncpu <= 0)
		return -EINVAL;
	per_cpu = calloc((size_t)ncpu, sizeof(*per_cpu));
	if (!per_cpu)
		return -ENOMEM;
	if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.hist), &key, per_cpu)) {
		err = -errno;
		goto cleanup;
	}
	for (int c = 0; c < ncpu; c++) {
		for (int s = 0; s < RUNQLAT_SLOTS; s++)
			sum.slots[s] += per_cpu[c].slots[s];
		sum.count += per_cpu[c].count;
		sum.total_ns += per_cpu[c].total_ns;
	}

	fd = bpf_map__fd(skel->maps.tasks);
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		if (nrows == cap) {
			struct task_row *n = realloc(rows, (cap = cap ? cap * 2 : 256) * sizeof(*n));

			if (!n) {
				err = -ENOMEM;
				goto cleanup;
			}
			rows = n;
		}
		if (!bpf_map_lookup_elem(fd, &next, &rows[nrows].v)) {
			rows[nrows].pid = next;
			nrows++;
		}
		key = next;
		prev = &key;
	}
	qsort(rows, nrows, sizeof(*rows), by_total_desc);

	json__key(j, "unit");
	json__string(j, "us");
	json__key(j, "hist");
	trace__json_log2(j, sum.slots, RUNQLAT_SLOTS);
	json__key(j, "count");
	json__int(j, (int64_t)sum.count);
	json__key(j, "total_us");
	json__number(j, (double)sum.total_ns / 1e3);
	json__key(j, "tasks_seen");
	json__int(j, (int64_t)nrows);
	json__key(j, "tasks");
	json__begin_array(j);
	for (size_t i = 0; i < nrows && i < TOP_TASKS; i++) {
		json__begin_object(j);
		json__key(j, "pid");
		json__int(j, rows[i].pid);
		json__key(j, "tgid");
		json__int(j, rows[i].v.tgid);
		json__key(j, "comm");
		trace__json_comm(j, rows[i].v.comm, sizeof(rows[i].v.comm));
		json__key(j, "count");
		json__int(j, (int64_t)rows[i].v.count);
		json__key(j, "total_us");
		json__number(j, (double)rows[i].v.total_ns / 1e3);
		json__key(j, "max_us");
		json__number(j, (double)rows[i].v.max_ns / 1e3);
		json__end_object(j);
	}
	json__end_array(j);
cleanup:
	free(rows);
	free(per_cpu);
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
};
