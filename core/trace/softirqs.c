// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * softirqs: time per softirq type, per CPU. data = { unit = "ns", count,
 * total_ns, hist (log2 ns of each run), vecs = [ { vec, name, count, total_ns,
 * hist, cpus = [ { cpu, count, total_ns } ] } ] (types that ran, by vec
 * number), cpus = [ { cpu, count, total_ns, hist } ] (CPUs that ran any) }.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "trace/maps.h"
#include "trace/trace.h"
#include "softirqs.h"
#include "softirqs.skel.h"

/* The kernel's softirq_to_name[], in vec order. */
static const char *const vec_names[] = { "HI",	    "TIMER",   "NET_TX", "NET_RX",  "BLOCK",
					 "IRQ_POLL", "TASKLET", "SCHED",  "HRTIMER", "RCU" };

static void *softirqs_open(struct bpf_object **obj)
{
	struct softirqs_bpf *skel = softirqs_bpf__open();

	if (skel)
		*obj = skel->obj;
	return skel;
}

static void vec_name(unsigned vec, char *buf, size_t n)
{
	if (vec < sizeof(vec_names) / sizeof(vec_names[0]))
		snprintf(buf, n, "%s", vec_names[vec]);
	else
		snprintf(buf, n, "vec%u", vec); /* a type newer than this list */
}

static int softirqs_collect(struct trace_run *t, struct json *j)
{
	struct softirqs_bpf *skel = t->skel;
	int ncpu = libbpf_num_possible_cpus(), fd = bpf_map__fd(skel->maps.vecs), err = 0;
	struct softirqs_val *all = NULL, *per_cpu, total = { 0 };
	char name[16];

	if (ncpu <= 0)
		return -EINVAL;
	/* all[vec * ncpu + cpu] */
	all = calloc((size_t)ncpu * SOFTIRQS_MAX_VEC, sizeof(*all));
	per_cpu = calloc((size_t)ncpu, sizeof(*per_cpu));
	if (!all || !per_cpu) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (__u32 vec = 0; vec < SOFTIRQS_MAX_VEC; vec++) {
		if (bpf_map_lookup_elem(fd, &vec, &all[vec * ncpu])) {
			err = -errno;
			goto cleanup;
		}
		for (int c = 0; c < ncpu; c++) {
			const struct softirqs_val *v = &all[vec * ncpu + c];

			for (int s = 0; s < SOFTIRQS_SLOTS; s++) {
				per_cpu[c].slots[s] += v->slots[s];
				total.slots[s] += v->slots[s];
			}
			per_cpu[c].count += v->count;
			per_cpu[c].total_ns += v->total_ns;
			total.count += v->count;
			total.total_ns += v->total_ns;
		}
	}

	json__key(j, "unit");
	json__string(j, "ns");
	trace__json_int(j, "count", total.count);
	trace__json_int(j, "total_ns", total.total_ns);
	json__key(j, "hist");
	trace__json_log2(j, total.slots, SOFTIRQS_SLOTS);
	json__key(j, "vecs");
	json__begin_array(j);
	for (unsigned vec = 0; vec < SOFTIRQS_MAX_VEC; vec++) {
		struct softirqs_val sum = { 0 };

		for (int c = 0; c < ncpu; c++) {
			for (int s = 0; s < SOFTIRQS_SLOTS; s++)
				sum.slots[s] += all[vec * ncpu + c].slots[s];
			sum.count += all[vec * ncpu + c].count;
			sum.total_ns += all[vec * ncpu + c].total_ns;
		}
		if (!sum.count)
			continue;
		vec_name(vec, name, sizeof(name));
		json__begin_object(j);
		trace__json_int(j, "vec", vec);
		json__key(j, "name");
		json__string(j, name);
		trace__json_int(j, "count", sum.count);
		trace__json_int(j, "total_ns", sum.total_ns);
		json__key(j, "hist");
		trace__json_log2(j, sum.slots, SOFTIRQS_SLOTS);
		json__key(j, "cpus");
		json__begin_array(j);
		for (int c = 0; c < ncpu; c++) {
			const struct softirqs_val *v = &all[vec * ncpu + c];

			if (!v->count)
				continue;
			trace__json_cpu_time(j, c, v->count, v->total_ns, NULL, 0);
		}
		json__end_array(j);
		json__end_object(j);
	}
	json__end_array(j);
	json__key(j, "cpus");
	json__begin_array(j);
	for (int c = 0; c < ncpu; c++) {
		if (!per_cpu[c].count)
			continue;
		trace__json_cpu_time(j, c, per_cpu[c].count, per_cpu[c].total_ns, per_cpu[c].slots,
				     SOFTIRQS_SLOTS);
	}
	json__end_array(j);
cleanup:
	free(per_cpu);
	free(all);
	return err;
}

static void softirqs_destroy(void *skel)
{
	softirqs_bpf__destroy(skel);
}

const struct trace_tool trace_softirqs = {
	.name = "softirqs",
	.what = "time per softirq type (NET_RX, TIMER, ...) per CPU, with log2 histograms",
	.attach = { ATTACH_TP_BTF, ATTACH_RAW_TP, ATTACH_TRACEPOINT, ATTACH_NR },
	.open = softirqs_open,
	.collect = softirqs_collect,
	.destroy = softirqs_destroy,
	.hooks = { { HEV_SOFTIRQ, 2 } },
	/* bench/tool-cost.sh (UDP to itself on loopback): 200-250 ns a run, 2.6-4.5 counting runs */
	.run_cost = 3.0,
	.hot = 1,
	.instead = "softirq time per CPU from /proc/stat and softirqs per type from /proc/softirqs",
};
