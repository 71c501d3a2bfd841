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

#include "trace/maps.h"
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

/*
 * A handler's sums over the CPUs. Its per-CPU values are not kept: at 192
 * CPUs they are 52 KB a handler, 53 MB for a full map (285 MB at 1,024 CPUs),
 * where the top 50 written out need them; those are read again (json_irq).
 */
struct irq_row {
	struct hardirqs_key key;
	struct hardirqs_val sum;
};

/* The map's per-CPU values are read as an array of them: no padding between two. */
_Static_assert(sizeof(struct hardirqs_val) % 8 == 0, "a per-CPU value is 8-byte aligned");

/* What the walk of the map gathers: a row per handler, and the sums per CPU and overall. */
struct irqs {
	int ncpu, fd;
	struct irq_row *rows; /* at most HARDIRQS_MAX_KEYS: the map's size */
	size_t n;
	struct hardirqs_val *per_cpu, total;
	struct hardirqs_val *one; /* ncpu values: one handler's, read again for its "cpus" */
};

static int by_total_desc(const void *a, const void *b)
{
	const struct irq_row *x = a, *y = b;

	return trace__cmp_desc(x->sum.total_ns, y->sum.total_ns);
}

static void add_val(struct hardirqs_val *to, const struct hardirqs_val *v)
{
	for (int s = 0; s < HARDIRQS_SLOTS; s++)
		to->slots[s] += v->slots[s];
	to->count += v->count;
	to->total_ns += v->total_ns;
}

static int add_irq(const void *key, const void *value, void *arg)
{
	struct irqs *q = arg;
	struct irq_row *r = &q->rows[q->n];
	const struct hardirqs_val *v = value;

	memcpy(&r->key, key, sizeof(r->key));
	for (int c = 0; c < q->ncpu; c++) {
		add_val(&r->sum, &v[c]);
		add_val(&q->per_cpu[c], &v[c]);
	}
	add_val(&q->total, &r->sum);
	q->n++;
	return 0;
}

/*
 * One of the top handlers, its CPUs from a second lookup. The programs still
 * run, so its sum is taken from that same lookup: the row and its CPUs agree
 * (the handler ran a little more since the walk; its rank is the walk's).
 */
static void json_irq(struct json *j, const void *row, void *arg)
{
	const struct irq_row *r = row;
	struct irqs *q = arg;
	struct hardirqs_val sum = r->sum;
	int again = !bpf_map_lookup_elem(q->fd, &r->key, q->one);

	if (again) {
		memset(&sum, 0, sizeof(sum));
		for (int c = 0; c < q->ncpu; c++)
			add_val(&sum, &q->one[c]);
	}
	trace__json_int(j, "irq", r->key.irq);
	trace__json_comm(j, "name", r->key.name, sizeof(r->key.name));
	trace__json_int(j, "count", sum.count);
	trace__json_int(j, "total_ns", sum.total_ns);
	json__key(j, "hist");
	trace__json_log2(j, sum.slots, HARDIRQS_SLOTS);
	json__key(j, "cpus");
	json__begin_array(j);
	for (int c = 0; again && c < q->ncpu; c++) {
		if (!q->one[c].count)
			continue;
		trace__json_cpu_time(j, c, q->one[c].count, q->one[c].total_ns, NULL, 0);
	}
	json__end_array(j);
}

static int hardirqs_collect(struct trace_run *t, struct json *j)
{
	struct hardirqs_bpf *skel = t->skel;
	struct irqs q = { .ncpu = libbpf_num_possible_cpus(), .fd = bpf_map__fd(skel->maps.irqs) };
	int err;

	if (q.ncpu <= 0)
		return -EINVAL;
	q.per_cpu = calloc((size_t)q.ncpu, sizeof(*q.per_cpu));
	q.one = calloc((size_t)q.ncpu, sizeof(*q.one));
	q.rows = calloc(HARDIRQS_MAX_KEYS, sizeof(*q.rows));
	if (!q.per_cpu || !q.one || !q.rows) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = trace_map__each(q.fd, HARDIRQS_MAX_KEYS, add_irq, &q);
	if (err)
		goto cleanup;
	qsort(q.rows, q.n, sizeof(*q.rows), by_total_desc);

	json__key(j, "unit");
	json__string(j, "ns");
	trace__json_int(j, "count", q.total.count);
	trace__json_int(j, "total_ns", q.total.total_ns);
	json__key(j, "hist");
	trace__json_log2(j, q.total.slots, HARDIRQS_SLOTS);
	trace__json_top(j, "irqs_seen", "irqs", q.rows, q.n, sizeof(*q.rows), TOP_IRQS, json_irq, &q);
	json__key(j, "cpus");
	json__begin_array(j);
	for (int c = 0; c < q.ncpu; c++) {
		if (!q.per_cpu[c].count)
			continue;
		trace__json_cpu_time(j, c, q.per_cpu[c].count, q.per_cpu[c].total_ns,
				     q.per_cpu[c].slots, HARDIRQS_SLOTS);
	}
	json__end_array(j);
cleanup:
	free(q.rows);
	free(q.one);
	free(q.per_cpu);
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
	.hooks = { { HEV_IRQ, 2 } },
	/* softirqs' program, per handler instead of per vector: its measured factor */
	.run_cost = 3.0,
	.hot = 1,
	.instead = "interrupt time per CPU from /proc/stat and interrupts per source from "
		   "/proc/interrupts",
};
