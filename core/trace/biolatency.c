// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * biolatency: block I/O latency per disk and operation (bpf/biolatency.bpf.c).
 *
 * data = {
 *   unit = "us",
 *   disks = [ { name, dev = "MAJ:MIN", named (false: the device was gone at collect time),
 *               intervals = { interval_ms, unit, counts } (total latency, every op),
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

#include "trace/maps.h"
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
	struct biolatency_bpf *s = skel;

	s->rodata->targ_rq_arg = rq_arg_index();
	TRACE_SET_INTERVALS(s->rodata, o);
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

static const struct trace_map_row stat_rows = TRACE_MAP_ROW(struct stat_row, key, v);

struct iv_row {
	struct biolat_iv_key key;
	struct biolat_iv v;
};

static const struct trace_map_row iv_rows = TRACE_MAP_ROW(struct iv_row, key, v);

/* Every disk's intervals, as read from the map: the rows and how many intervals to write. */
struct iv_set {
	struct iv_row *rows;
	size_t nrows, niv;
	uint64_t iv_ns;
};

static void json_disk_intervals(struct json *j, const struct iv_set *ivs, __u32 dev)
{
	unsigned long long counts[TRACE_MAX_INTERVALS * BIOLAT_SLOTS];

	memset(counts, 0, sizeof(counts));
	for (size_t i = 0; i < ivs->nrows; i++) {
		const struct iv_row *r = &ivs->rows[i];

		if (r->key.dev != dev || r->key.interval >= ivs->niv)
			continue;
		memcpy(counts + (size_t)r->key.interval * BIOLAT_SLOTS, r->v.slots,
		       sizeof(r->v.slots));
	}
	trace__json_intervals(j, ivs->iv_ns, "us", counts, ivs->niv, BIOLAT_SLOTS);
}

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

	return trace__cmp_desc(x->total_ns, y->total_ns);
}

/* A name for every dev in rows, resolved once per disk. */
struct dev_name {
	__u32 dev;
	int named;
	char name[64];
};

struct dev_names {
	struct dev_name v[MAX_ROWS];
	size_t n;
};

static const struct dev_name *name_of(struct dev_names *names, __u32 dev)
{
	static struct dev_name none;
	struct dev_name *d;

	for (size_t i = 0; i < names->n; i++)
		if (names->v[i].dev == dev)
			return &names->v[i];
	d = names->n < MAX_ROWS ? &names->v[names->n++] : &none;
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
	trace__json_int(j, "completed", v->completed);
	trace__json_int(j, "measured", v->measured);
	trace__json_int(j, "queued", v->queued);
	trace__json_int(j, "errors", v->errors);
	trace__json_int(j, "bytes", v->bytes);
	json__key(j, "queue");
	trace__json_log2(j, v->queue, BIOLAT_SLOTS);
	json__key(j, "service");
	trace__json_log2(j, v->service, BIOLAT_SLOTS);
	json__key(j, "total");
	trace__json_log2(j, v->total, BIOLAT_SLOTS);
	trace__json_us(j, "queue_us", v->queue_ns);
	trace__json_us(j, "service_us", v->service_ns);
	trace__json_us(j, "total_us", v->total_ns);
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

/* The disks and their operations: rows sorted by (dev, op), one object per disk. */
static void json_disks(struct json *j, const struct stat_row *rows, size_t nrows,
		       struct dev_names *names, const struct iv_set *ivs)
{
	json__key(j, "disks");
	json__begin_array(j);
	for (size_t i = 0; i < nrows;) {
		__u32 dev = rows[i].key.dev;
		const struct dev_name *d = name_of(names, dev);

		json__begin_object(j);
		json__key(j, "name");
		json__string(j, d->name);
		json__key(j, "dev");
		json_dev(j, dev);
		json__key(j, "named");
		json__bool(j, d->named);
		json_disk_intervals(j, ivs, dev);
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
}

static void json_slow(struct json *j, const void *row, void *names)
{
	const struct biolat_slow *s = row;

	trace__json_int(j, "pid", s->pid);
	trace__json_comm(j, "comm", s->comm, sizeof(s->comm));
	json__key(j, "disk");
	json__string(j, name_of(names, s->dev)->name);
	json__key(j, "dev");
	json_dev(j, s->dev);
	json__key(j, "op");
	json__string(j, s->op < BIOLAT_OP_NR ? op_names[s->op] : "other");
	trace__json_int(j, "bytes", s->bytes);
	if (s->queued)
		trace__json_us(j, "queue_us", s->queue_ns);
	trace__json_us(j, "service_us", s->service_ns);
	trace__json_us(j, "total_us", s->total_ns);
}

/* Every CPU's slowest I/Os (a per-CPU array of one top each), the slowest first. 0 or -errno. */
static int read_slowest(int fd, struct biolat_slow **slow, size_t *nslow)
{
	int ncpu = libbpf_num_possible_cpus();
	struct biolat_top *tops;
	__u32 zero = 0;
	int err = 0;

	*nslow = 0;
	if (ncpu <= 0)
		return -EINVAL;
	tops = calloc((size_t)ncpu, sizeof(*tops));
	*slow = calloc((size_t)ncpu * BIOLAT_TOP, sizeof(**slow));
	if (!tops || !*slow) {
		err = -ENOMEM;
		goto cleanup;
	}
	if (bpf_map_lookup_elem(fd, &zero, tops)) {
		err = -errno;
		goto cleanup;
	}
	for (int c = 0; c < ncpu; c++)
		for (__u32 k = 0; k < tops[c].n && k < BIOLAT_TOP; k++)
			(*slow)[(*nslow)++] = tops[c].io[k];
	qsort(*slow, *nslow, sizeof(**slow), by_total_desc);
cleanup:
	free(tops);
	return err;
}

static int biolatency_collect(struct trace_run *t, struct json *j)
{
	struct biolatency_bpf *skel = t->skel;
	struct stat_row *rows = NULL;
	struct biolat_slow *slow = NULL;
	struct dev_names *names = calloc(1, sizeof(*names));
	struct iv_set ivs = { .iv_ns = skel->rodata->sonde_iv_ns };
	size_t nrows = 0, nslow = 0;
	long in_flight;
	int err;

	if (!names)
		return -ENOMEM;
	ivs.niv = trace_run__intervals(t, ivs.iv_ns);
	err = trace_map__read(bpf_map__fd(skel->maps.intervals), &iv_rows, BIOLAT_MAX_IV_KEYS,
			      (void **)&ivs.rows, &ivs.nrows);
	if (err)
		goto cleanup;
	err = trace_map__read(bpf_map__fd(skel->maps.stats), &stat_rows, MAX_ROWS, (void **)&rows,
			      &nrows);
	if (err)
		goto cleanup;
	qsort(rows, nrows, sizeof(*rows), by_dev_op);
	err = read_slowest(bpf_map__fd(skel->maps.slowest), &slow, &nslow);
	if (err)
		goto cleanup;
	/* Requests started and not completed when the window ended (bounded by the map). */
	in_flight = trace_map__count(bpf_map__fd(skel->maps.starts), BIOLAT_MAX_INFLIGHT);
	if (in_flight < 0) {
		err = (int)in_flight;
		goto cleanup;
	}

	json__key(j, "unit");
	json__string(j, "us");
	json_disks(j, rows, nrows, names, &ivs);
	trace__json_top(j, NULL, "slowest", slow, nslow, sizeof(*slow), BIOLAT_TOP, json_slow,
			names);
	trace__json_int(j, "slowest_max", BIOLAT_TOP);
	trace__json_int(j, "in_flight", in_flight);
	trace__json_int(j, "missed", missed_runs(t->obj));
cleanup:
	free(ivs.rows);
	free(slow);
	free(rows);
	free(names);
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
	.hooks = { { HEV_BLOCK_IO, 3.2 } },
	.run_cost = 3.0,
	.instead = "I/O time, await and queue size per disk from /proc/diskstats",
};
