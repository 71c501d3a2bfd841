// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * biolatency: block I/O latency per disk and operation (bpf/biolatency.bpf.c).
 *
 * data = {
 *   unit = "us",
 *   disks = [ { name, dev = "MAJ:MIN", named (false: the device was gone at collect time),
 *               ops = { read|write|discard|flush|other = {
 *                 completed, measured, queued, errors, bytes,
 *                 queue = log2 hist, service = log2 hist, total = log2 hist,
 *                 queue_us, service_us, total_us } } } ],
 *   slowest = top I/Os by total time [ { pid, comm, disk, dev, op, bytes,
 *             queue_us (absent: no insert seen), service_us, total_us } ],
 *   slowest_max, in_flight, missed
 * }
 *
 * Disk names are resolved here, at collect time, from the kernel's dev_t
 * (/sys/dev/block/MAJ:MIN/uevent DEVNAME, else /proc/partitions): a device
 * removed during the window keeps its numbers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "trace/trace.h"
#include "biolatency.h"
#include "biolatency.skel.h"

#define MAX_ROWS BIOLAT_MAX_DISK_OPS

static const char *const op_names[BIOLAT_OP_NR] = {
	[BIOLAT_OP_READ] = "read",	   [BIOLAT_OP_WRITE] = "write",
	[BIOLAT_OP_DISCARD] = "discard", [BIOLAT_OP_FLUSH] = "flush",
	[BIOLAT_OP_OTHER] = "other",
};

static void *biolatency_open(struct bpf_object **obj)
{
	struct biolatency_bpf *skel = biolatency_bpf__open();

	if (skel)
		*obj = skel->obj;
	return skel;
}

/*
 * Where block_rq_insert/issue/merge pass the request: Linux 5.11 dropped the
 * leading struct request_queue *. Read from the tracepoint's prototype in the
 * kernel's BTF (btf_trace_<event>: void (*)(void *, ...)), never guessed from
 * the version. Without BTF only the classic tracepoint variant can load, and
 * it does not use the knob. Probed once per process.
 */
static __u32 rq_arg_index(void)
{
	static int probed = -1;
	const struct btf_type *t;
	struct btf *btf;
	int id;

	if (probed >= 0)
		return (__u32)probed;
	probed = 0;
	btf = btf__load_vmlinux_btf();
	if (!btf)
		return 0;
	id = btf__find_by_name_kind(btf, "btf_trace_block_rq_issue", BTF_KIND_TYPEDEF);
	if (id > 0) {
		t = btf__type_by_id(btf, btf__resolve_type(btf, id));
		if (t && btf_is_ptr(t))
			t = btf__type_by_id(btf, t->type);
		/* (void *, struct request_queue *, struct request *): three parameters */
		if (t && btf_is_func_proto(t) && btf_vlen(t) == 3)
			probed = 1;
	}
	btf__free(btf);
	return (__u32)probed;
}

static int biolatency_configure(void *skel, const struct trace_opts *o)
{
	(void)o;
	((struct biolatency_bpf *)skel)->rodata->targ_rq_arg = rq_arg_index();
	return 0;
}

/* The kernel's dev_t: major << 20 | minor. */
static unsigned int dev_major(__u32 dev)
{
	return dev >> 20;
}

static unsigned int dev_minor(__u32 dev)
{
	return dev & 0xfffff;
}

/* The disk's name into name (NUL-terminated, bounded); 0, or -ENOENT when the device is gone. */
static int disk_name(__u32 dev, char *name, size_t n)
{
	char path[64], line[256];
	unsigned int maj, min;
	FILE *f;
	int found = 0;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/uevent", dev_major(dev), dev_minor(dev));
	f = fopen(path, "re");
	if (f) {
		while (!found && fgets(line, sizeof(line), f))
			if (!strncmp(line, "DEVNAME=", 8)) {
				line[strcspn(line, "\n")] = '\0';
				snprintf(name, n, "%.63s", line + 8);
				found = name[0] != '\0';
			}
		fclose(f);
	}
	if (found)
		return 0;
	f = fopen("/proc/partitions", "re");
	if (!f)
		return -ENOENT;
	while (!found && fgets(line, sizeof(line), f)) {
		char nm[128];

		if (sscanf(line, "%u %u %*u %127s", &maj, &min, nm) == 3 && maj == dev_major(dev) &&
		    min == dev_minor(dev)) {
			snprintf(name, n, "%.63s", nm);
			found = 1;
		}
	}
	fclose(f);
	return found ? 0 : -ENOENT;
}

struct stat_row {
	struct biolat_key key;
	struct biolat_stats v;
};

static int by_dev_op(const void *a, const void *b)
{
	const struct stat_row *x = a, *y = b;

	if (x->key.dev != y->key.dev)
		return x->key.dev < y->key.dev ? -1 : 1;
	return x->key.op < y->key.op ? -1 : x->key.op > y->key.op;
}

static int by_total_desc(const void *a, const void *b)
{
	const struct biolat_slow *x = a, *y = b;

	return x->total_ns < y->total_ns ? 1 : x->total_ns > y->total_ns ? -1 : 0;
}

/* A name for every dev in rows, resolved once per disk. */
struct dev_name {
	__u32 dev;
	int named;
	char name[64];
};

static const struct dev_name *name_of(struct dev_name *names, size_t *n, size_t cap, __u32 dev)
{
	static struct dev_name none;
	struct dev_name *d;

	for (size_t i = 0; i < *n; i++)
		if (names[i].dev == dev)
			return &names[i];
	d = *n < cap ? &names[(*n)++] : &none;
	d->dev = dev;
	d->named = !disk_name(dev, d->name, sizeof(d->name));
	if (!d->named)
		snprintf(d->name, sizeof(d->name), "%u:%u", dev_major(dev), dev_minor(dev));
	return d;
}

static void json_dev(struct json *j, __u32 dev)
{
	char s[32];

	snprintf(s, sizeof(s), "%u:%u", dev_major(dev), dev_minor(dev));
	json__string(j, s);
}

static void json_op(struct json *j, const struct biolat_stats *v)
{
	json__begin_object(j);
	json__key(j, "completed");
	json__int(j, (int64_t)v->completed);
	json__key(j, "measured");
	json__int(j, (int64_t)v->measured);
	json__key(j, "queued");
	json__int(j, (int64_t)v->queued);
	json__key(j, "errors");
	json__int(j, (int64_t)v->errors);
	json__key(j, "bytes");
	json__int(j, (int64_t)v->bytes);
	json__key(j, "queue");
	trace__json_log2(j, v->queue, BIOLAT_SLOTS);
	json__key(j, "service");
	trace__json_log2(j, v->service, BIOLAT_SLOTS);
	json__key(j, "total");
	trace__json_log2(j, v->total, BIOLAT_SLOTS);
	json__key(j, "queue_us");
	json__number(j, (double)v->queue_ns / 1e3);
	json__key(j, "service_us");
	json__number(j, (double)v->service_ns / 1e3);
	json__key(j, "total_us");
	json__number(j, (double)v->total_ns / 1e3);
	json__end_object(j);
}

/* Runs the kernel skipped: a program already running on that CPU (recursion), per program. */
static int64_t missed_runs(struct bpf_object *obj)
{
	struct bpf_program *prog;
	int64_t sum = 0;

	bpf_object__for_each_program(prog, obj) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		memset(&info, 0, sizeof(info));
		if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len))
			sum += (int64_t)info.recursion_misses;
	}
	return sum;
}

static int biolatency_collect(struct trace_run *t, struct json *j)
{
	struct biolatency_bpf *skel = t->skel;
	int ncpu = libbpf_num_possible_cpus();
	struct stat_row *rows = NULL;
	struct biolat_top *tops = NULL;
	struct biolat_slow *slow = NULL;
	struct dev_name *names = NULL;
	struct biolat_start_key skey, snext, *sprev = NULL;
	struct biolat_key key, next, *prev = NULL;
	size_t nrows = 0, nslow = 0, nnames = 0, i;
	int64_t in_flight = 0;
	__u32 zero = 0;
	int fd, err = 0;

	if (ncpu <= 0)
		return -EINVAL;
	rows = calloc(MAX_ROWS, sizeof(*rows));
	tops = calloc((size_t)ncpu, sizeof(*tops));
	slow = calloc((size_t)ncpu * BIOLAT_TOP, sizeof(*slow));
	names = calloc(MAX_ROWS, sizeof(*names));
	if (!rows || !tops || !slow || !names) {
		err = -ENOMEM;
		goto cleanup;
	}

	fd = bpf_map__fd(skel->maps.stats);
	while (nrows < MAX_ROWS && !bpf_map_get_next_key(fd, prev, &next)) {
		if (!bpf_map_lookup_elem(fd, &next, &rows[nrows].v)) {
			rows[nrows].key = next;
			nrows++;
		}
		key = next;
		prev = &key;
	}
	qsort(rows, nrows, sizeof(*rows), by_dev_op);

	if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.slowest), &zero, tops)) {
		err = -errno;
		goto cleanup;
	}
	for (int c = 0; c < ncpu; c++)
		for (__u32 k = 0; k < tops[c].n && k < BIOLAT_TOP; k++)
			slow[nslow++] = tops[c].io[k];
	qsort(slow, nslow, sizeof(*slow), by_total_desc);

	/* Requests started and not completed when the window ended (bounded by the map). */
	fd = bpf_map__fd(skel->maps.starts);
	while (in_flight < BIOLAT_MAX_INFLIGHT && !bpf_map_get_next_key(fd, sprev, &snext)) {
		in_flight++;
		skey = snext;
		sprev = &skey;
	}

	json__key(j, "unit");
	json__string(j, "us");
	json__key(j, "disks");
	json__begin_array(j);
	for (i = 0; i < nrows;) {
		__u32 dev = rows[i].key.dev;
		const struct dev_name *d = name_of(names, &nnames, MAX_ROWS, dev);

		json__begin_object(j);
		json__key(j, "name");
		json__string(j, d->name);
		json__key(j, "dev");
		json_dev(j, dev);
		json__key(j, "named");
		json__bool(j, d->named);
		json__key(j, "ops");
		json__begin_object(j);
		for (; i < nrows && rows[i].key.dev == dev; i++) {
			if (rows[i].key.op >= BIOLAT_OP_NR)
				continue;
			json__key(j, op_names[rows[i].key.op]);
			json_op(j, &rows[i].v);
		}
		json__end_object(j);
		json__end_object(j);
	}
	json__end_array(j);

	json__key(j, "slowest");
	json__begin_array(j);
	for (i = 0; i < nslow && i < BIOLAT_TOP; i++) {
		const struct biolat_slow *s = &slow[i];

		json__begin_object(j);
		json__key(j, "pid");
		json__int(j, s->pid);
		json__key(j, "comm");
		trace__json_comm(j, s->comm, sizeof(s->comm));
		json__key(j, "disk");
		json__string(j, name_of(names, &nnames, MAX_ROWS, s->dev)->name);
		json__key(j, "dev");
		json_dev(j, s->dev);
		json__key(j, "op");
		json__string(j, s->op < BIOLAT_OP_NR ? op_names[s->op] : "other");
		json__key(j, "bytes");
		json__int(j, s->bytes);
		if (s->queued) {
			json__key(j, "queue_us");
			json__number(j, (double)s->queue_ns / 1e3);
		}
		json__key(j, "service_us");
		json__number(j, (double)s->service_ns / 1e3);
		json__key(j, "total_us");
		json__number(j, (double)s->total_ns / 1e3);
		json__end_object(j);
	}
	json__end_array(j);
	json__key(j, "slowest_max");
	json__int(j, BIOLAT_TOP);
	json__key(j, "in_flight");
	json__int(j, in_flight);
	json__key(j, "missed");
	json__int(j, missed_runs(t->obj));
cleanup:
	free(names);
	free(slow);
	free(tops);
	free(rows);
	return err;
}

static void biolatency_destroy(void *skel)
{
	biolatency_bpf__destroy(skel);
}

const struct trace_tool trace_biolatency = {
	.name = "biolatency",
	.what = "block I/O latency (queue, service) per disk and operation, slowest I/Os, errors",
	.attach = { ATTACH_TP_BTF, ATTACH_RAW_TP, ATTACH_TRACEPOINT, ATTACH_NR },
	.open = biolatency_open,
	.configure = biolatency_configure,
	.collect = biolatency_collect,
	.destroy = biolatency_destroy,
};
