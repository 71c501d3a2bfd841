/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What every tool's collect does the same way: read its BPF maps after the
 * window (walk a hash map into rows, sum per-CPU values, read counters) and
 * write the shapes every raw/bpf/<tool>.json shares (log2 histograms, comms,
 * top-N lists, microseconds). The maps are read while the programs still
 * run: an entry can come or go between two calls, so every walk is bounded by
 * the map's max_entries and an entry gone before its lookup is skipped.
 */
#ifndef SONDE_TRACE_MAPS_H
#define SONDE_TRACE_MAPS_H

#include <stddef.h>
#include <stdint.h>

#include "util/json.h"

/*
 * Where one map entry goes in a row of the caller's array: the key at
 * key_off, the value at val_off. TRACE_MAP_ROW(type, key, value) takes them
 * from the row type's members (key and value may name nested members: k.f);
 * TRACE_MAP_ROW_SIZED gives the key's size, for a key that spans members.
 * The sizes must be the map's (checked).
 */
struct trace_map_row {
	size_t row_size;
	size_t key_off, key_size;
	size_t val_off, val_size;
};

#define TRACE_MAP_ROW_SIZED(type, key, ksize, value)                                        \
	{                                                                                   \
		.row_size = sizeof(type), .key_off = offsetof(type, key), .key_size = (ksize),  \
		.val_off = offsetof(type, value), .val_size = sizeof(((type *)0)->value),       \
	}
#define TRACE_MAP_ROW(type, key, value) \
	TRACE_MAP_ROW_SIZED(type, key, sizeof(((type *)0)->key), value)

/*
 * The entries of a map (at most max; 0: all) as rows laid out by l, in the
 * map's order, each zeroed but for its key and value. A per-CPU map's value
 * is the sum over the CPUs of each of its u64 (counters, histogram slots: a
 * maximum is not a sum). *rows is allocated: free() it, also after an error.
 * 0 or -errno.
 */
int trace_map__read(int fd, const struct trace_map_row *l, size_t max, void **rows, size_t *n);
/*
 * fn(key, value, arg) for each entry (at most max; 0: all); a per-CPU map's
 * value is every possible CPU's, one after the other, each rounded up to 8
 * bytes. fn returns 0 to go on or -errno to stop with it. 0 or -errno.
 */
int trace_map__each(int fd, size_t max, int (*fn)(const void *key, const void *value, void *arg),
		    void *arg);
/* The keys in a map (counting at most max; 0: all), or -errno. */
long trace_map__count(int fd, size_t max);
/* Entry key of a per-CPU array summed over the CPUs, each u64 of size bytes. 0 or -errno. */
int trace_map__percpu_sum(int fd, uint32_t key, void *sum, size_t size);
/*
 * Entries 0..n-1 of a per-CPU array of u64 counters, summed over the CPUs.
 * 0, or the first -errno (that counter is then 0, the others are read).
 */
int trace_map__counters(int fd, uint64_t *counters, size_t n);

/* Most first: the order of every top-N list (for qsort comparators). */
static inline int trace__cmp_desc(uint64_t a, uint64_t b)
{
	return a < b ? 1 : a > b ? -1 : 0;
}

/* "key": v (a kernel's u64 counter too: none comes near 2^63) */
void trace__json_int(struct json *j, const char *key, int64_t v);
/* "key": ns in microseconds (a number) */
void trace__json_us(struct json *j, const char *key, uint64_t ns);
/*
 * A log2 histogram (slots[i] counts values in [2^i, 2^(i+1)), slot 0 also 0)
 * as an array, trailing zeros cut.
 */
void trace__json_log2(struct json *j, const unsigned long long *slots, size_t nslots);
/* "key": a name from the kernel (comm: cap 16 bytes, maybe not terminated) as a string */
void trace__json_comm(struct json *j, const char *key, const char *comm, size_t cap);
/*
 * One CPU's share of a time-accounting tool (irq time, ...): an object
 * { cpu, count, total_ns [, hist] }; slots may be NULL (no histogram).
 */
void trace__json_cpu_time(struct json *j, int cpu, uint64_t count, uint64_t total_ns,
			  const unsigned long long *slots, size_t nslots);
/*
 * A top-N list: "seen_key": n (unless seen_key is NULL), then "key": an array
 * of the first top of the n rows (size bytes each, sorted), each an object
 * whose members row(j, row, arg) writes.
 */
void trace__json_top(struct json *j, const char *seen_key, const char *key, const void *rows,
		     size_t n, size_t size, size_t top,
		     void (*row)(struct json *j, const void *row, void *arg), void *arg);

/*
 * Per-interval histograms ("intervals" in docs/bpf-tools.md): the window cut
 * into at most TRACE_INTERVALS_WANT intervals of a round step (100, 200, 250,
 * 500 ms, 1, 2, 5, 10, 15, 30 s, 1, 2, 5, 10 min, then whole 10 minutes),
 * counted in the kernel in an array indexed by interval (bpf/sonde.bpf.h
 * sonde_interval, for the tools that define SONDE_INTERVALS), clamped to its
 * last slot. 10 s: 50 intervals of 200 ms. The runner sets their origin when
 * the window starts (trace_run.iv_t0_mono_ns). SONDE_INTERVALS=0 in the
 * environment: none (0), the tools keep their whole-window histograms only,
 * as before them (bench/intervals.sh's baseline).
 */
#define TRACE_MAX_INTERVALS 64 /* SONDE_MAX_INTERVALS of bpf/sonde.bpf.h */
#define TRACE_INTERVALS_WANT 50
uint64_t trace__interval_ns(double window_s);
/*
 * "intervals": { "interval_ms", "unit", "counts": [[slot counts of interval 0], ...] }:
 * n rows of nslots counts (counts[i * nslots + s]), each row's trailing zeros cut.
 * Nothing when iv_ns is 0 (not kept).
 */
void trace__json_intervals(struct json *j, uint64_t iv_ns, const char *unit,
			   const unsigned long long *counts, size_t n, size_t nslots);
/* In a tool's configure: the interval into its read-only data (sonde_iv_ns). */
#define TRACE_SET_INTERVALS(rodata, o)                                                  \
	do {                                                                            \
		(rodata)->sonde_iv_ns = trace__interval_ns((o)->window_s);              \
	} while (0)

struct trace_run;
/*
 * How many intervals of iv_ns the run traced: from the window's start to
 * its detach or now, 1 to TRACE_MAX_INTERVALS (1 before the window starts).
 */
size_t trace_run__intervals(const struct trace_run *t, uint64_t iv_ns);
/*
 * Write raw/<name> beside raw/bpf/ (a tool's extra capture, e.g. profile.folded);
 * 0, -EINVAL without a raw dir (a probe), or -errno.
 */
int trace_run__write_raw(const struct trace_run *t, const char *name, const struct strbuf *sb);

struct trace_opts;
struct trace_tool;

/* Does this run of tool trace only o->tgids (trace_opts.filtered names it)? */
int trace_opts__filters(const struct trace_opts *o, const struct trace_tool *tool);

/*
 * In a filtering tool's configure: the suspects into its read-only data
 * (sonde_ntgids and sonde_tgids of bpf/sonde.bpf.h), when this run filters.
 */
#define TRACE_SET_SUSPECTS(rodata, o, tool)                                             \
	do {                                                                            \
		_Static_assert(sizeof((rodata)->sonde_tgids) ==                          \
				       TRACE_MAX_TGIDS * sizeof((rodata)->sonde_tgids[0]), \
			       "bpf/sonde.bpf.h SONDE_MAX_TGIDS is TRACE_MAX_TGIDS");     \
		if (trace_opts__filters((o), (tool))) {                                 \
			(rodata)->sonde_ntgids = (__u32)(o)->ntgids;                    \
			for (size_t i_ = 0; i_ < (o)->ntgids && i_ < TRACE_MAX_TGIDS; i_++) \
				(rodata)->sonde_tgids[i_] = (__u32)(o)->tgids[i_];      \
		}                                                                       \
	} while (0)

#endif
