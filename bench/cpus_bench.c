// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What many CPUs cost sonde, for bench/cpus.sh (docs/scale.md, "Many CPUs"):
 *
 *   cpus-bench maps N OBJ...        the per-CPU maps of the tools' BPF objects
 *                                   (opened, not loaded: no root): a line each,
 *                                   "tool map type value_size max_entries
 *                                   bytes_a_lookup kernel_bytes" at N CPUs
 *   cpus-bench read FILE COUNT      open, read to the end and close FILE COUNT
 *                                   times: "bytes us_cpu_a_read ns_cpu_a_byte"
 *   cpus-bench parse KIND FILE COUNT  sonde's parser of KIND (stat, interrupts,
 *                                   softirqs, schedstat) over FILE COUNT times:
 *                                   "bytes us_cpu_a_parse ns_cpu_a_byte"
 *   cpus-bench ring N HZ            the profile's stack-copy ring at N CPUs: bytes
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "trace/trace.h"
#include "util/file.h"
#include "util/parse.h"

static double cpu_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int percpu(enum bpf_map_type t)
{
	return t == BPF_MAP_TYPE_PERCPU_ARRAY || t == BPF_MAP_TYPE_PERCPU_HASH ||
	       t == BPF_MAP_TYPE_LRU_PERCPU_HASH;
}

static int maps(int ncpu, int nobj, char **objs)
{
	libbpf_set_print(NULL);
	for (int i = 0; i < nobj; i++) {
		struct bpf_object *o = bpf_object__open_file(objs[i], NULL);
		const char *base = strrchr(objs[i], '/');
		struct bpf_map *m;
		char tool[64];

		if (!o) {
			fprintf(stderr, "cpus-bench: %s: %s\n", objs[i], strerror(errno));
			return 1;
		}
		snprintf(tool, sizeof(tool), "%s", base ? base + 1 : objs[i]);
		tool[strcspn(tool, ".")] = '\0';
		bpf_object__for_each_map(m, o) {
			unsigned long long v = (bpf_map__value_size(m) + 7) / 8 * 8;

			if (!percpu(bpf_map__type(m)))
				continue;
			/* a lookup copies each possible CPU's value, 8-byte aligned; preallocated */
			printf("%s %s %s %u %u %llu %llu\n", tool, bpf_map__name(m),
			       libbpf_bpf_map_type_str(bpf_map__type(m)), bpf_map__value_size(m),
			       bpf_map__max_entries(m), v * (unsigned long long)ncpu,
			       v * (unsigned long long)ncpu * bpf_map__max_entries(m));
		}
		bpf_object__close(o);
	}
	return 0;
}

static int read_file(const char *path, int count)
{
	static char buf[1 << 22];
	size_t bytes = 0;
	double t0 = cpu_s(), t;

	for (int i = 0; i < count; i++) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t n;

		if (fd < 0) {
			fprintf(stderr, "cpus-bench: %s: %s\n", path, strerror(errno));
			return 1;
		}
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			bytes += (size_t)n;
		close(fd);
	}
	t = cpu_s() - t0;
	printf("%zu %.2f %.2f\n", bytes / (size_t)count, 1e6 * t / count, 1e9 * t / (double)bytes);
	return 0;
}

static int count_irq(const char *n, size_t nl, const char *d, size_t dl, uint64_t total, void *arg)
{
	(*(long *)arg)++;
	return 0;
}

static int count_cpu(int cpu, uint64_t run, uint64_t wait, uint64_t slices, void *arg)
{
	(*(long *)arg)++;
	return 0;
}

static int parse(const char *kind, const char *path, int count)
{
	char *buf = NULL;
	size_t len = 0;
	long seen = 0;
	double t0, t;

	if (file__read_bounded(AT_FDCWD, path, 64u << 20, &buf, &len)) {
		fprintf(stderr, "cpus-bench: %s: cannot read\n", path);
		return 1;
	}
	t0 = cpu_s();
	for (int i = 0; i < count; i++) {
		if (!strcmp(kind, "stat")) {
			struct proc_stat ps;

			if (!parse_proc_stat(buf, len, &ps)) {
				seen += ps.ncpu;
				proc_stat__free(&ps);
			}
		} else if (!strcmp(kind, "interrupts") || !strcmp(kind, "softirqs")) {
			parse_interrupts(buf, len, count_irq, &seen);
		} else if (!strcmp(kind, "schedstat")) {
			parse_schedstat(buf, len, count_cpu, &seen);
		} else {
			fprintf(stderr, "cpus-bench: parse what? %s\n", kind);
			free(buf);
			return 2;
		}
	}
	t = cpu_s() - t0;
	free(buf);
	if (!seen) {
		fprintf(stderr, "cpus-bench: %s: nothing parsed as %s\n", path, kind);
		return 1;
	}
	printf("%zu %.2f %.2f\n", len, 1e6 * t / count, 1e9 * t / ((double)len * count));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "maps"))
		return maps(atoi(argv[2]), argc - 3, argv + 3);
	if (argc == 4 && !strcmp(argv[1], "read"))
		return read_file(argv[2], atoi(argv[3]) > 0 ? atoi(argv[3]) : 1);
	if (argc == 4 && !strcmp(argv[1], "ring")) {
		printf("%u\n", trace_profile__ring_bytes(atol(argv[2]), atoi(argv[3])));
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "parse"))
		return parse(argv[2], argv[3], atoi(argv[4]) > 0 ? atoi(argv[4]) : 1);
	fprintf(stderr, "usage: cpus-bench maps N OBJ... | read FILE COUNT | parse KIND FILE COUNT | ring N HZ\n");
	return 2;
}
