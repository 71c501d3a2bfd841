// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * core/trace/maps.c: the JSON shapes the tools share (always), and the map
 * readers over real BPF maps (hash, per-CPU hash, per-CPU array) where this
 * process may create them (root, or CAP_BPF); otherwise those are skipped.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "trace/maps.h"
#include "tap.h"

struct val {
	uint64_t count, total_ns;
};

struct row {
	int flag;    /* zeroed by the reader */
	uint32_t id; /* the key, not at the row's start */
	struct val v;
};

static const struct trace_map_row rows_layout = TRACE_MAP_ROW(struct row, id, v);

static void json_row(struct json *j, const void *row, void *arg)
{
	const struct row *r = row;

	trace__json_int(j, "id", r->id);
	trace__json_us(j, "total_us", r->v.total_ns);
	(*(int *)arg)++;
}

static void test_json(void)
{
	struct json j = { 0 };
	unsigned long long slots[6] = { 0, 3, 0, 7, 0, 0 };
	struct row rows[3] = { { .id = 1, .v = { 1, 1500 } }, { .id = 2, .v = { 1, 2000 } },
			       { .id = 3 } };
	int calls = 0;

	json__begin_object(&j);
	json__key(&j, "hist");
	trace__json_log2(&j, slots, 6);
	trace__json_top(&j, "rows_seen", "rows", rows, 3, sizeof(rows[0]), 2, json_row, &calls);
	trace__json_top(&j, NULL, "none", rows, 0, sizeof(rows[0]), 5, json_row, &calls);
	json__key(&j, "cpus");
	json__begin_array(&j);
	trace__json_cpu_time(&j, 1, 4, 900, slots, 2);
	trace__json_cpu_time(&j, 2, 5, 10, NULL, 0);
	json__end_array(&j);
	trace__json_comm(&j, "comm", "0123456789abcdefXYZ", 16);
	json__end_object(&j);
	is_str(j.out.buf,
	       "{\"hist\":[0,3,0,7],\"rows_seen\":3,\"rows\":[{\"id\":1,\"total_us\":1.5},"
	       "{\"id\":2,\"total_us\":2}],\"none\":[],\"cpus\":[{\"cpu\":1,\"count\":4,"
	       "\"total_ns\":900,\"hist\":[0,3]},{\"cpu\":2,\"count\":5,\"total_ns\":10}],"
	       "\"comm\":\"0123456789abcdef\"}",
	       "histogram, top-N list (cut at top, seen count), CPU time, comm");
	is_int(calls, 2, "a top-N list writes only the top rows");
	is_int(trace__cmp_desc(1, 2), 1, "most first: the larger sorts before");
	is_int(trace__cmp_desc(2, 1), -1, "most first: the smaller sorts after");
	is_int(trace__cmp_desc(UINT64_MAX, UINT64_MAX), 0, "equal values compare equal");
	strbuf__free(&j.out);
}

static int sum_each(const void *key, const void *value, void *arg)
{
	const struct val *v = value;

	*(uint64_t *)arg += *(const uint32_t *)key * 1000 + v->count;
	return 0;
}

static int stop_each(const void *key, const void *value, void *arg)
{
	return -ECANCELED;
}

static void test_hash(int fd)
{
	struct row *rows = NULL, *bad = NULL;
	size_t n = 0, nbad = 0;
	uint64_t sum = 0, want = 0;
	int err, all_match = 1;
	const struct trace_map_row wrong = { .row_size = sizeof(struct row), .key_size = 8,
					     .val_size = sizeof(struct val) };

	for (uint32_t k = 1; k <= 5; k++) {
		struct val v = { k, k * 100 };

		bpf_map_update_elem(fd, &k, &v, BPF_ANY);
		want += k * 1000 + k;
	}
	err = trace_map__read(fd, &rows_layout, 0, (void **)&rows, &n);
	is_int(err, 0, "a hash map is read");
	is_int(n, 5, "every entry is a row");
	for (size_t i = 0; i < n; i++)
		all_match &= rows[i].flag == 0 && rows[i].v.count == rows[i].id &&
			     rows[i].v.total_ns == rows[i].id * 100;
	ok(all_match, "each row has its key at key_off, its value at val_off, the rest zeroed");
	free(rows);
	err = trace_map__read(fd, &rows_layout, 3, (void **)&rows, &n);
	ok(!err && n == 3, "at most max rows");
	free(rows);
	err = trace_map__read(fd, &wrong, 0, (void **)&bad, &nbad);
	ok(err == -EINVAL && !bad && !nbad, "a layout whose sizes are not the map's is refused");
	is_int(trace_map__count(fd, 0), 5, "keys counted");
	is_int(trace_map__count(fd, 2), 2, "keys counted up to max");
	is_int(trace_map__each(fd, 0, sum_each, &sum), 0, "each entry visited");
	ok(sum == want, "each entry visited once, with its value");
	is_int(trace_map__each(fd, 0, stop_each, NULL), -ECANCELED, "the callback's error stops");
}

static void test_percpu(int hash_fd, int array_fd, int ncpu)
{
	struct val *per = calloc((size_t)ncpu, sizeof(*per));
	uint64_t *ctr = calloc((size_t)ncpu, sizeof(*ctr)), counters[4];
	struct row *rows = NULL;
	struct val sum;
	size_t n = 0;
	uint32_t k = 7;

	for (int c = 0; c < ncpu; c++)
		per[c] = (struct val){ (uint64_t)c + 1, 10 };
	bpf_map_update_elem(hash_fd, &k, per, BPF_ANY);
	is_int(trace_map__read(hash_fd, &rows_layout, 0, (void **)&rows, &n), 0,
	       "a per-CPU hash map is read");
	ok(n == 1 && rows[0].id == 7 && rows[0].v.count == (uint64_t)ncpu * (ncpu + 1) / 2 &&
		   rows[0].v.total_ns == (uint64_t)ncpu * 10,
	   "its value is the sum over the CPUs, u64 by u64");
	free(rows);
	for (uint32_t i = 0; i < 3; i++) {
		for (int c = 0; c < ncpu; c++)
			ctr[c] = i + 1;
		bpf_map_update_elem(array_fd, &i, ctr, BPF_ANY);
	}
	is_int(trace_map__counters(array_fd, counters, 3), 0, "counters read");
	ok(counters[0] == (uint64_t)ncpu && counters[2] == 3 * (uint64_t)ncpu,
	   "each counter summed over the CPUs");
	is_int(trace_map__counters(array_fd, counters, 3 + 1), -ENOENT,
	       "a counter past the array is an error");
	ok(counters[3 - 1] == 3 * (uint64_t)ncpu, "and the counters before it are still read");
	is_int(trace_map__percpu_sum(array_fd, 1, &sum, 3), -EINVAL,
	       "a value that is not u64s is not summed");
	free(ctr);
	free(per);
}

int main(void)
{
	int ncpu, hash, phash, parray;

	test_json();
	ncpu = libbpf_num_possible_cpus();
	libbpf_set_print(NULL);
	hash = bpf_map_create(BPF_MAP_TYPE_HASH, "t_hash", sizeof(uint32_t), sizeof(struct val), 16,
			      NULL);
	if (hash < 0 || ncpu <= 0) {
		printf("ok %d # SKIP BPF maps: %s\n", ++tap_n,
		       hash < 0 ? strerror(errno) : "no CPU count");
		return tap_done();
	}
	phash = bpf_map_create(BPF_MAP_TYPE_PERCPU_HASH, "t_phash", sizeof(uint32_t),
			       sizeof(struct val), 16, NULL);
	parray = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "t_parray", sizeof(uint32_t),
				sizeof(uint64_t), 3, NULL);
	ok(phash >= 0 && parray >= 0, "per-CPU maps created");
	test_hash(hash);
	if (phash >= 0 && parray >= 0)
		test_percpu(phash, parray, ncpu);
	close(hash);
	close(phash);
	close(parray);
	return tap_done();
}
