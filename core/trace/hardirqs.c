// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hardirqs: time per hard interrupt handler, per CPU. data = { unit = "ns",
 * count, total_ns, hist (log2 ns of each handler run), irqs_seen, irqs = top 50
 * handlers by total time [ { irq, name, count, total_ns, hist, cpus = [ { cpu,
 * count, total_ns } ] } ], cpus = [ { cpu, count, total_ns, hist } ] (every
 * handler, CPUs that ran any) }.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "trace/trace.h"
#include "hardirqs.h"
#include "hardirqs.skel.h"

#define TOP_IRQS 50

static void *hardirqs_open(struct bpf_object **obj)
{
	struct hardirqs_bpf *skel = hardirqs_bpf__open();

	if (skel)
		*obj = skel->obj;
	return skel;
}

struct irq_row {
	struct hardirqs_key key;
	struct hardirqs_val sum;
	struct hardirqs_val *per_cpu; /* ncpu values */
};

static int by_total_desc(const void *a, const void *b)
{
	const struct irq_row *x = a, *y = b;

	return x->sum.total_ns < y->sum.total_ns ? 1 : x->sum.total_ns > y->sum.total_ns ? -1 : 0;
}

static void add_val(struct hardirqs_val *to, const struct hardirqs_val *v)
{
	for (int s = 0; s < HARDIRQS_SLOTS; s++)
		to->slots[s] += v->slots[s];
	to->count += v->count;
	to->total_ns += v->total_ns;
}

static int hardirqs_collect(struct trace_run *t, struct json *j)
{
	struct hardirqs_bpf *skel = t->skel;
	int ncpu = libbpf_num_possible_cpus(), fd = bpf_map__fd(skel->maps.irqs), err = 0;
	struct hardirqs_key key, next, *prev = NULL;
	struct hardirqs_val *per_cpu = NULL, total = { 0 };
	struct irq_row *rows = NULL;
	size_t nrows = 0;

	if (ncpu <= 0)
		return -EINVAL;
	per_cpu = calloc((size_t)ncpu, sizeof(*per_cpu));
	/* the map holds at most HARDIRQS_MAX_KEYS keys */
	rows = calloc(HARDIRQS_MAX_KEYS, sizeof(*rows));
	if (!per_cpu || !rows) {
		err = -ENOMEM;
		goto cleanup;
	}
	while (nrows < HARDIRQS_MAX_KEYS && !bpf_map_get_next_key(fd, prev, &next)) {
		struct irq_row *r = &rows[nrows];

		r->per_cpu = calloc((size_t)ncpu, sizeof(*r->per_cpu));
		if (!r->per_cpu) {
			err = -ENOMEM;
			goto cleanup;
		}
		if (!bpf_map_lookup_elem(fd, &next, r->per_cpu)) {
			r->key = next;
			for (int c = 0; c < ncpu; c++) {
				add_val(&r->sum, &r->per_cpu[c]);
				add_val(&per_cpu[c], &r->per_cpu[c]);
			}
			add_val(&total, &r->sum);
			nrows++;
		} else {
			free(r->per_cpu);
			r->per_cpu = NULL;
		}
		key = next;
		prev = &key;
	}
	qsort(rows, nrows, sizeof(*rows), by_total_desc);

	json__key(j, "unit");
	json__string(j, "ns");
	json__key(j, "count");
	json__int(j, (int64_t)total.count);
	json__key(j, "total_ns");
	json__int(j, (int64_t)total.total_ns);
	json__key(j, "hist");
	trace__json_log2(j, total.slots, HARDIRQS_SLOTS);
	json__key(j, "irqs_seen");
	json__int(j, (int64_t)nrows);
	json__key(j, "irqs");
	json__begin_array(j);
	for (size_t i = 0; i < nrows && i < TOP_IRQS; i++) {
		const struct irq_row *r = &rows[i];

		json__begin_object(j);
		json__key(j, "irq");
		json__int(j, r->key.irq);
		json__key(j, "name");
		trace__json_comm(j, r->key.name, sizeof(r->key.name));
		json__key(j, "count");
		json__int(j, (int64_t)r->sum.count);
		json__key(j, "total_ns");
		json__int(j, (int64_t)r->sum.total_ns);
		json__key(j, "hist");
		trace__json_log2(j, r->sum.slots, HARDIRQS_SLOTS);
		json__key(j, "cpus");
		json__begin_array(j);
		for (int c = 0; c < ncpu; c++) {
			if (!r->per_cpu[c].count)
				continue;
			trace__json_cpu_time(j, c, r->per_cpu[c].count, r->per_cpu[c].total_ns, NULL,
					     0);
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
				     HARDIRQS_SLOTS);
	}
	json__end_array(j);
cleanup:
	if (rows)
		for (size_t i = 0; i < HARDIRQS_MAX_KEYS; i++)
			free(rows[i].per_cpu);
	free(rows);
	free(per_cpu);
	return err;
}

static void hardirqs_destroy(void *skel)
{
	hardirqs_bpf__destroy(skel);
}

const struct trace_tool trace_hardirqs = {
	.name = "hardirqs",
	.what = "time per hard interrupt handler per CPU, with log2 histograms",
	.attach = { ATTACH_TP_BTF, ATTACH_RAW_TP, ATTACH_TRACEPOINT, ATTACH_NR },
	.open = hardirqs_open,
	.collect = hardirqs_collect,
	.destroy = hardirqs_destroy,
};
