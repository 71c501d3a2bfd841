// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * futexctn: time threads spent blocked in futex waits (bpf/futexctn.bpf.c),
 * per process and per (process, futex address): user-space lock contention.
 *
 * data = {
 *   unit = "us", syscalls = { futex, futex_waitv, futex_wait } (numbers hooked, -1: none),
 *   count, total_us, max_us, hist,           every futex wait that ended in the window
 *   lock_count, lock_us, lock_hist,          of which lock-like (a contended glibc mutex, a PI lock)
 *   errors,                                  waits failing other than EAGAIN/ETIMEDOUT/EINTR
 *   processes_seen,
 *   processes = [ { pid, comm, count, total_us, max_us, lock_count, lock_us, errors } ],
 *        top 30 by lock_us, then total_us
 *   locks_seen,
 *   locks = [ { pid, comm, uaddr ("0x..."), count, total_us, max_us, lock_count, lock_us } ],
 *        top 30 the same way
 *   in_flight = { threads, longest_us },     waits still blocked when read (not in the above)
 * }
 * A wait is counted when it returns: one begun before the tool attached counts
 * whole, one still blocked at the end is only in in_flight.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <asm/unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "util/clock.h"
#include "trace/maps.h"
#include "trace/trace.h"
#include "futexctn.h"
#include "futexctn.skel.h"

#define TOP 30

static void *futexctn_open(struct bpf_object **obj)
{
	struct futexctn_bpf *skel = futexctn_bpf__open();

	if (skel)
		*obj = skel->obj;
	return skel;
}

extern const struct trace_tool trace_futexctn;

static int futexctn_configure(void *skel, const struct trace_opts *o)
{
	struct futexctn_bpf *s = skel;

	s->rodata->targ_self_tgid = (__u32)o->self_pid;
	TRACE_SET_SUSPECTS(s->rodata, o, &trace_futexctn);
#ifdef __NR_futex
	s->rodata->targ_nr_futex = __NR_futex;
#endif
#ifdef __NR_futex_waitv
	s->rodata->targ_nr_futex_waitv = __NR_futex_waitv;
#endif
#ifdef __NR_futex_wait
	s->rodata->targ_nr_futex_wait = __NR_futex_wait;
#endif
	if (s->rodata->targ_nr_futex < 0 && s->rodata->targ_nr_futex_waitv < 0)
		return -ENOSYS; /* the build host's headers name no futex syscall */
	return 0;
}

struct proc_row {
	__u32 tgid;
	struct futexctn_proc v;
};

struct lock_row {
	struct futexctn_lock_key k;
	struct futexctn_stat v;
	char comm[16]; /* its process's (empty when unknown) */
};

static const struct trace_map_row proc_rows = TRACE_MAP_ROW(struct proc_row, tgid, v);
static const struct trace_map_row lock_rows = TRACE_MAP_ROW(struct lock_row, k, v);

static int stat_cmp(const struct futexctn_stat *x, const struct futexctn_stat *y)
{
	if (x->lock_ns != y->lock_ns)
		return trace__cmp_desc(x->lock_ns, y->lock_ns);
	return trace__cmp_desc(x->total_ns, y->total_ns);
}

static int proc_cmp(const void *a, const void *b)
{
	return stat_cmp(&((const struct proc_row *)a)->v.s, &((const struct proc_row *)b)->v.s);
}

static int lock_cmp(const void *a, const void *b)
{
	return stat_cmp(&((const struct lock_row *)a)->v, &((const struct lock_row *)b)->v);
}

static void stat_json(struct json *j, const struct futexctn_stat *s)
{
	trace__json_int(j, "count", s->count);
	trace__json_us(j, "total_us", s->total_ns);
	trace__json_us(j, "max_us", s->max_ns);
	trace__json_int(j, "lock_count", s->lock_count);
	trace__json_us(j, "lock_us", s->lock_ns);
}

/* Every process's waits added up: the waits of the window. */
static void sum_procs(const struct proc_row *procs, size_t nprocs, struct futexctn_stat *all)
{
	memset(all, 0, sizeof(*all));
	for (size_t i = 0; i < nprocs; i++) {
		const struct futexctn_stat *s = &procs[i].v.s;

		all->count += s->count;
		all->total_ns += s->total_ns;
		all->lock_count += s->lock_count;
		all->lock_ns += s->lock_ns;
		all->errors += s->errors;
		if (s->max_ns > all->max_ns)
			all->max_ns = s->max_ns;
	}
}

/* Waits still blocked when read: how many, and the longest so far. */
struct in_flight {
	__u64 now, threads, longest;
};

static int add_in_flight(const void *key, const void *value, void *arg)
{
	const struct futexctn_inflight *f = value;
	struct in_flight *w = arg;

	if (f->start_ns && f->start_ns < w->now) {
		w->threads++;
		if (w->now - f->start_ns > w->longest)
			w->longest = w->now - f->start_ns;
	}
	return 0;
}

static void json_syscalls(struct json *j, const struct futexctn_bpf *skel)
{
	json__key(j, "syscalls");
	json__begin_object(j);
	trace__json_int(j, "futex", skel->rodata->targ_nr_futex);
	trace__json_int(j, "futex_waitv", skel->rodata->targ_nr_futex_waitv);
	trace__json_int(j, "futex_wait", skel->rodata->targ_nr_futex_wait);
	json__end_object(j);
}

static void json_proc(struct json *j, const void *row, void *arg)
{
	const struct proc_row *r = row;

	trace__json_int(j, "pid", r->tgid);
	trace__json_comm(j, "comm", r->v.comm, sizeof(r->v.comm));
	stat_json(j, &r->v.s);
	trace__json_int(j, "errors", r->v.s.errors);
}

/* The comm of each listed lock's process. */
static void name_locks(struct lock_row *locks, size_t nlocks, const struct proc_row *procs,
		       size_t nprocs)
{
	for (size_t i = 0; i < nlocks && i < TOP; i++)
		for (size_t k = 0; k < nprocs; k++)
			if (procs[k].tgid == locks[i].k.tgid) {
				memcpy(locks[i].comm, procs[k].v.comm, sizeof(locks[i].comm));
				break;
			}
}

static void json_lock(struct json *j, const void *row, void *arg)
{
	const struct lock_row *r = row;
	char addr[32];

	trace__json_int(j, "pid", r->k.tgid);
	trace__json_comm(j, "comm", r->comm, sizeof(r->comm));
	snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)r->k.uaddr);
	json__key(j, "uaddr");
	json__string(j, addr);
	stat_json(j, &r->v);
}

static int futexctn_collect(struct trace_run *t, struct json *j)
{
	struct futexctn_bpf *skel = t->skel;
	struct futexctn_hist sum;
	struct futexctn_stat all;
	struct proc_row *procs = NULL;
	struct lock_row *locks = NULL;
	size_t nprocs = 0, nlocks = 0;
	struct in_flight in_flight = { 0 };
	int err;

	if ((err = trace_map__percpu_sum(bpf_map__fd(skel->maps.hist), 0, &sum, sizeof(sum))) ||
	    (err = trace_map__read(bpf_map__fd(skel->maps.by_proc), &proc_rows, FUTEXCTN_MAX_PROCS,
				   (void **)&procs, &nprocs)) ||
	    (err = trace_map__read(bpf_map__fd(skel->maps.by_lock), &lock_rows, FUTEXCTN_MAX_LOCKS,
				   (void **)&locks, &nlocks)))
		goto cleanup;
	sum_procs(procs, nprocs, &all);
	qsort(procs, nprocs, sizeof(*procs), proc_cmp);
	qsort(locks, nlocks, sizeof(*locks), lock_cmp);
	/* Still blocked: bpf_ktime_get_ns() is CLOCK_MONOTONIC. */
	in_flight.now = (__u64)clock__ns(CLOCK_MONOTONIC);
	err = trace_map__each(bpf_map__fd(skel->maps.inflight), 0, add_in_flight, &in_flight);
	if (err)
		goto cleanup;

	json__key(j, "unit");
	json__string(j, "us");
	json_syscalls(j, skel);
	stat_json(j, &all);
	trace__json_int(j, "errors", all.errors);
	json__key(j, "hist");
	trace__json_log2(j, sum.slots, FUTEXCTN_SLOTS);
	json__key(j, "lock_hist");
	trace__json_log2(j, sum.lock_slots, FUTEXCTN_SLOTS);
	trace__json_top(j, "processes_seen", "processes", procs, nprocs, sizeof(*procs), TOP,
			json_proc, NULL);
	name_locks(locks, nlocks, procs, nprocs);
	trace__json_top(j, "locks_seen", "locks", locks, nlocks, sizeof(*locks), TOP, json_lock,
			NULL);
	json__key(j, "in_flight");
	json__begin_object(j);
	trace__json_int(j, "threads", in_flight.threads);
	trace__json_us(j, "longest_us", in_flight.longest);
	json__end_object(j);
cleanup:
	free(locks);
	free(procs);
	return err;
}

static void futexctn_destroy(void *skel)
{
	futexctn_bpf__destroy(skel);
}

const struct trace_tool trace_futexctn = {
	.name = "futexctn",
	.what = "futex wait time (user lock contention) per process and per futex",
	.attach = { ATTACH_TP_BTF, ATTACH_RAW_TP, ATTACH_TRACEPOINT, ATTACH_NR },
	.open = futexctn_open,
	.configure = futexctn_configure,
	.collect = futexctn_collect,
	.destroy = futexctn_destroy,
	.hooks = { { HEV_SYSCALL, 2 } },
	.run_cost = 1.5,
	.hot = 1,
	.filters = 1,
	.instead = "futex code in the 49 Hz profile",
};
