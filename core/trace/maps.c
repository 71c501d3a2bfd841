// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Reading a tool's BPF maps after the window, and the JSON shapes the tools
 * share (trace/maps.h): the one bpf_map_get_next_key walk of every tool.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "trace/maps.h"
#include "trace/trace.h"
#include "util/clock.h"
#include "util/file.h"

/* One map as the walk reads it. */
struct map_walk {
	struct bpf_map_info info;
	int ncpu;      /* values per lookup: the possible CPUs for a per-CPU map, else 1 */
	size_t stride; /* one CPU's value: value_size rounded up to 8 in a per-CPU map */
};

typedef int (*walk_fn)(const struct map_walk *w, const void *key, const void *value, void *arg);

static int is_percpu(__u32 type)
{
	return type == BPF_MAP_TYPE_PERCPU_HASH || type == BPF_MAP_TYPE_LRU_PERCPU_HASH ||
	       type == BPF_MAP_TYPE_PERCPU_ARRAY;
}

static int map_walk__init(struct map_walk *w, int fd)
{
	__u32 len = sizeof(w->info);

	memset(w, 0, sizeof(*w));
	if (bpf_obj_get_info_by_fd(fd, &w->info, &len))
		return -errno;
	w->ncpu = 1;
	w->stride = w->info.value_size;
	if (is_percpu(w->info.type)) {
		w->ncpu = libbpf_num_possible_cpus();
		if (w->ncpu <= 0)
			return -EINVAL;
		w->stride = ((size_t)w->info.value_size + 7) / 8 * 8;
	}
	return 0;
}

/*
 * fn on each key (and its value when lookup), at most max times (0, or more
 * than the map holds: max_entries, so a walk the kernel restarts, when the
 * key it stands on is deleted, still ends).
 */
static int walk(int fd, size_t max, int lookup, walk_fn fn, void *arg)
{
	struct map_walk w;
	void *key = NULL, *next = NULL, *value = NULL, *prev = NULL;
	size_t done = 0;
	int err;

	err = map_walk__init(&w, fd);
	if (err)
		return err;
	if (!max || max > w.info.max_entries)
		max = w.info.max_entries;
	key = calloc(1, w.info.key_size);
	next = calloc(1, w.info.key_size);
	value = lookup ? calloc((size_t)w.ncpu, w.stride) : NULL;
	if (!key || !next || (lookup && !value)) {
		err = -ENOMEM;
		goto cleanup;
	}
	while (done < max && !bpf_map_get_next_key(fd, prev, next)) {
		if (!lookup || !bpf_map_lookup_elem(fd, next, value)) {
			err = fn(&w, next, value, arg);
			if (err)
				goto cleanup;
			done++;
		}
		memcpy(key, next, w.info.key_size);
		prev = key;
	}
cleanup:
	free(value);
	free(next);
	free(key);
	return err;
}

/* sum += each CPU's value, u64 by u64 (size bytes of each). */
static void add_cpus(void *sum, const void *values, int ncpu, size_t stride, size_t size)
{
	for (int c = 0; c < ncpu; c++)
		for (size_t off = 0; off + sizeof(uint64_t) <= size; off += sizeof(uint64_t)) {
			uint64_t a, b;

			memcpy(&a, (const char *)sum + off, sizeof(a));
			memcpy(&b, (const char *)values + (size_t)c * stride + off, sizeof(b));
			a += b;
			memcpy((char *)sum + off, &a, sizeof(a));
		}
}

struct rows {
	const struct trace_map_row *l;
	char *v;
	size_t n, cap;
};

static int read_row(const struct map_walk *w, const void *key, const void *value, void *arg)
{
	struct rows *r = arg;
	const struct trace_map_row *l = r->l;
	char *row;

	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 64;
		char *v = realloc(r->v, cap * l->row_size);

		if (!v)
			return -ENOMEM;
		r->v = v;
		r->cap = cap;
	}
	row = r->v + r->n++ * l->row_size;
	memset(row, 0, l->row_size);
	memcpy(row + l->key_off, key, l->key_size);
	if (w->ncpu == 1)
		memcpy(row + l->val_off, value, l->val_size);
	else
		add_cpus(row + l->val_off, value, w->ncpu, w->stride, l->val_size);
	return 0;
}

int trace_map__read(int fd, const struct trace_map_row *l, size_t max, void **rows, size_t *n)
{
	struct map_walk w;
	struct rows r = { .l = l };
	int err;

	*rows = NULL;
	*n = 0;
	err = map_walk__init(&w, fd);
	if (err)
		return err;
	/* the row must hold what the kernel writes; a per-CPU value is summed as u64s */
	if (w.info.key_size != l->key_size || w.info.value_size != l->val_size ||
	    (w.ncpu > 1 && l->val_size % sizeof(uint64_t)))
		return -EINVAL;
	err = walk(fd, max, 1, read_row, &r);
	*rows = r.v;
	*n = r.n;
	return err;
}

struct each {
	int (*fn)(const void *key, const void *value, void *arg);
	void *arg;
};

static int each_entry(const struct map_walk *w, const void *key, const void *value, void *arg)
{
	const struct each *e = arg;

	return e->fn(key, value, e->arg);
}

int trace_map__each(int fd, size_t max, int (*fn)(const void *key, const void *value, void *arg),
		    void *arg)
{
	struct each e = { fn, arg };

	return walk(fd, max, 1, each_entry, &e);
}

static int count_key(const struct map_walk *w, const void *key, const void *value, void *arg)
{
	(*(long *)arg)++;
	return 0;
}

long trace_map__count(int fd, size_t max)
{
	long n = 0;
	int err = walk(fd, max, 0, count_key, &n);

	return err ? err : n;
}

int trace_map__percpu_sum(int fd, uint32_t key, void *sum, size_t size)
{
	int ncpu = libbpf_num_possible_cpus();
	size_t stride = (size + 7) / 8 * 8;
	uint64_t small[64]; /* the guard's counter on up to 64 CPUs: no allocation ten times a second */
	void *values;
	int err = 0;

	memset(sum, 0, size);
	if (ncpu <= 0 || size % sizeof(uint64_t))
		return -EINVAL;
	values = (size_t)ncpu * stride <= sizeof(small) ? small : calloc((size_t)ncpu, stride);
	if (!values)
		return -ENOMEM;
	if (bpf_map_lookup_elem(fd, &key, values))
		err = -errno;
	else
		add_cpus(sum, values, ncpu, stride, size);
	if (values != small)
		free(values);
	return err;
}

int trace_map__counters(int fd, uint64_t *counters, size_t n)
{
	int err = 0;

	for (size_t i = 0; i < n; i++) {
		int e = trace_map__percpu_sum(fd, (uint32_t)i, &counters[i], sizeof(counters[i]));

		if (e && !err)
			err = e;
	}
	return err;
}

void trace__json_int(struct json *j, const char *key, int64_t v)
{
	json__key(j, key);
	json__int(j, v);
}

void trace__json_us(struct json *j, const char *key, uint64_t ns)
{
	json__key(j, key);
	json__number(j, (double)ns / 1e3);
}

void trace__json_log2(struct json *j, const unsigned long long *slots, size_t nslots)
{
	size_t last = 0;

	for (size_t i = 0; i < nslots; i++)
		if (slots[i])
			last = i + 1;
	json__begin_array(j);
	for (size_t i = 0; i < last; i++)
		json__int(j, (int64_t)slots[i]);
	json__end_array(j);
}

uint64_t trace__interval_ns(double window_s)
{
	static const uint64_t steps_ms[] = { 100,   200,   250,   500,    1000,   2000,  5000,
					     10000, 15000, 30000, 60000, 120000, 300000, 600000 };
	double ms = window_s > 0 ? window_s * 1e3 : 1e3;
	const char *off = getenv("SONDE_INTERVALS");

	/* SONDE_INTERVALS=0: whole-window histograms only (bench/intervals.sh's baseline) */
	if (off && !strcmp(off, "0"))
		return 0;

	for (size_t i = 0; i < sizeof(steps_ms) / sizeof(steps_ms[0]); i++)
		if (ms / (double)steps_ms[i] <= TRACE_INTERVALS_WANT)
			return steps_ms[i] * 1000000ull;
	return (uint64_t)ceil(ms / TRACE_INTERVALS_WANT / 600000) * 600000 * 1000000ull;
}

size_t trace_run__intervals(const struct trace_run *t, uint64_t iv_ns)
{
	int64_t end = t->detached_mono_ns ? t->detached_mono_ns : clock__ns(CLOCK_MONOTONIC);
	uint64_t n;

	if (!iv_ns || !t->iv_t0_mono_ns || end <= t->iv_t0_mono_ns)
		return 1;
	n = (uint64_t)(end - t->iv_t0_mono_ns) / iv_ns + 1;
	return n < TRACE_MAX_INTERVALS ? (size_t)n : TRACE_MAX_INTERVALS;
}

void trace__json_intervals(struct json *j, uint64_t iv_ns, const char *unit,
			   const unsigned long long *counts, size_t n, size_t nslots)
{
	if (!iv_ns)
		return; /* not kept */
	json__key(j, "intervals");
	json__begin_object(j);
	trace__json_int(j, "interval_ms", (int64_t)(iv_ns / 1000000));
	json__key(j, "unit");
	json__string(j, unit);
	json__key(j, "counts");
	json__begin_array(j);
	for (size_t i = 0; i < n; i++)
		trace__json_log2(j, counts + i * nslots, nslots);
	json__end_array(j);
	json__end_object(j);
}

void trace__json_comm(struct json *j, const char *key, const char *comm, size_t cap)
{
	json__key(j, key);
	json__string_n(j, comm, strnlen(comm, cap));
}

void trace__json_cpu_time(struct json *j, int cpu, uint64_t count, uint64_t total_ns,
			  const unsigned long long *slots, size_t nslots)
{
	json__begin_object(j);
	trace__json_int(j, "cpu", cpu);
	trace__json_int(j, "count", (int64_t)count);
	trace__json_int(j, "total_ns", (int64_t)total_ns);
	if (slots) {
		json__key(j, "hist");
		trace__json_log2(j, slots, nslots);
	}
	json__end_object(j);
}

void trace__json_top(struct json *j, const char *seen_key, const char *key, const void *rows,
		     size_t n, size_t size, size_t top,
		     void (*row)(struct json *j, const void *row, void *arg), void *arg)
{
	if (seen_key)
		trace__json_int(j, seen_key, (int64_t)n);
	json__key(j, key);
	json__begin_array(j);
	for (size_t i = 0; i < n && i < top; i++) {
		json__begin_object(j);
		row(j, (const char *)rows + i * size, arg);
		json__end_object(j);
	}
	json__end_array(j);
}

int trace_run__write_raw(const struct trace_run *t, const char *name, const struct strbuf *sb)
{
	char path[4400];

	if (!t->raw_dir || strchr(name, '/'))
		return -EINVAL;
	if (sb->oom)
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s/%s", t->raw_dir, name);
	return file__write_all(path, sb->buf, sb->len);
}

int trace_opts__filters(const struct trace_opts *o, const struct trace_tool *tool)
{
	if (!o || !o->ntgids || !o->filtered || !tool->filters)
		return 0;
	for (const char *const *n = o->filtered; *n; n++)
		if (!strcmp(*n, tool->name))
			return 1;
	return 0;
}
