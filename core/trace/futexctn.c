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

static int futexctn_configure(void *skel, const struct trace_opts *o)
{
	struct futexctn_bpf *s = skel;

	s->rodata->targ_self_tgid = (__u32)o->self_pid;
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
};

static int stat_cmp(const struct futexctn_stat *x, const struct futexctn_stat *y)
{
	if (x->lock_ns != y->lock_ns)
		return x->lock_ns < y->lock_ns ? 1 : -1;
	return x->total_ns < y->total_ns ? 1 : x->total_ns > y->total_ns ? -1 : 0;
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
	json__key(j, "count");
	json__int(j, (int64_t)s->count);
	json__key(j, "total_us");
	json__number(j, (double)s->total_ns / 1e3);
	json__key(j, "max_us");
	json__number(j, (double)s->max_ns / 1e3);
	json__key(j, "lock_count");
	json__int(j, (int64_t)s->lock_count);
	json__key(j, "lock_us");
	json__number(j, (double)s->lock_ns / 1e3);
}

static const char *comm_of(const struct proc_row *procs, size_t n, __u32 tgid)
{
	for (size_t i = 0; i < n; i++)
		if (procs[i].tgid == tgid)
			return procs[i].v.comm;
	return "";
}

static int futexctn_collect(struct trace_run *t, struct json *j)
{
	struct futexctn_bpf *skel = t->skel;
	int ncpu = libbpf_num_possible_cpus();
	struct futexctn_hist *per_cpu = NULL, sum = { 0 };
	struct futexctn_stat all = { 0 };
	struct proc_row *procs = NULL;
	struct lock_row *locks = NULL;
	size_t nprocs = 0, nlocks = 0;
	__u64 inflight = 0, longest = 0, now;
	struct timespec ts;
	__u32 key = 0;
	int fd, err = 0;
	char addr[32];

	if (ncpu <= 0)
		return -EINVAL;
	per_cpu = calloc((size_t)ncpu, sizeof(*per_cpu));
	procs = calloc(FUTEXCTN_MAX_PROCS, sizeof(*procs));
	locks = calloc(FUTEXCTN_MAX_LOCKS, sizeof(*locks));
	if (!per_cpu || !procs || !locks) {
		err = -ENOMEM;
		goto cleanup;
	}
	if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.hist), &key, per_cpu)) {
		err = -errno;
		goto cleanup;
	}
	for (int c = 0; c < ncpu; c++)
		for (int s = 0; s < FUTEXCTN_SLOTS; s++) {
			sum.slots[s] += per_cpu[c].slots[s];
			sum.lock_slots[s] += per_cpu[c].lock_slots[s];
		}

	fd = bpf_map__fd(skel->maps.by_proc);
	{
		__u32 k, next, *prev = NULL;

		while (nprocs < FUTEXCTN_MAX_PROCS && !bpf_map_get_next_key(fd, prev, &next)) {
			if (!bpf_map_lookup_elem(fd, &next, &procs[nprocs].v)) {
				struct futexctn_stat *s = &procs[nprocs].v.s;

				procs[nprocs].tgid = next;
				all.count += s->count;
				all.total_ns += s->total_ns;
				all.lock_count += s->lock_count;
				all.lock_ns += s->lock_ns;
				all.errors += s->errors;
				if (s->max_ns > all.max_ns)
					all.max_ns = s->max_ns;
				nprocs++;
			}
			k = next;
			prev = &k;
		}
	}
	qsort(procs, nprocs, sizeof(*procs), proc_cmp);
	fd = bpf_map__fd(skel->maps.by_lock);
	{
		struct futexctn_lock_key k, next, *prev = NULL;

		while (nlocks < FUTEXCTN_MAX_LOCKS && !bpf_map_get_next_key(fd, prev, &next)) {
			if (!bpf_map_lookup_elem(fd, &next, &locks[nlocks].v)) {
				locks[nlocks].k = next;
				nlocks++;
			}
			k = next;
			prev = &k;
		}
	}
	qsort(locks, nlocks, sizeof(*locks), lock_cmp);
	/* Still blocked: bpf_ktime_get_ns() is CLOCK_MONOTONIC. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
	fd = bpf_map__fd(skel->maps.inflight);
	{
		__u32 k, next, *prev = NULL;
		struct futexctn_inflight f;

		while (!bpf_map_get_next_key(fd, prev, &next)) {
			if (!bpf_map_lookup_elem(fd, &next, &f) && f.start_ns && f.start_ns < now) {
				inflight++;
				if (now - f.start_ns > longest)
					longest = now - f.start_ns;
			}
			k = next;
			prev = &k;
		}
	}

	json__key(j, "unit");
	json__string(j, "us");
	json__key(j, "syscalls");
	json__begin_object(j);
	json__key(j, "futex");
	json__int(j, skel->rodata->targ_nr_futex);
	json__key(j, "futex_waitv");
	json__int(j, skel->rodata->targ_nr_futex_waitv);
	json__key(j, "futex_wait");
	json__int(j, skel->rodata->targ_nr_futex_wait);
	json__end_object(j);
	stat_json(j, &all);
	json__key(j, "errors");
	json__int(j, (int64_t)all.errors);
	json__key(j, "hist");
	trace__json_log2(j, sum.slots, FUTEXCTN_SLOTS);
	json__key(j, "lock_hist");
	trace__json_log2(j, sum.lock_slots, FUTEXCTN_SLOTS);
	json__key(j, "processes_seen");
	json__int(j, (int64_t)nprocs);
	json__key(j, "processes");
	json__begin_array(j);
	for (size_t i = 0; i < nprocs && i < TOP; i++) {
		json__begin_object(j);
		json__key(j, "pid");
		json__int(j, procs[i].tgid);
		json__key(j, "comm");
		trace__json_comm(j, procs[i].v.comm, sizeof(procs[i].v.comm));
		stat_json(j, &procs[i].v.s);
		json__key(j, "errors");
		json__int(j, (int64_t)procs[i].v.s.errors);
		json__end_object(j);
	}
	json__end_array(j);
	json__key(j, "locks_seen");
	json__int(j, (int64_t)nlocks);
	json__key(j, "locks");
	json__begin_array(j);
	for (size_t i = 0; i < nlocks && i < TOP; i++) {
		json__begin_object(j);
		json__key(j, "pid");
		json__int(j, locks[i].k.tgid);
		json__key(j, "comm");
		trace__json_comm(j, comm_of(procs, nprocs, locks[i].k.tgid), 16);
		json__key(j, "uaddr");
		snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)locks[i].k.uaddr);
		json__string(j, addr);
		stat_json(j, &locks[i].v);
		json__end_object(j);
	}
	json__end_array(j);
	json__key(j, "in_flight");
	json__begin_object(j);
	json__key(j, "threads");
	json__int(j, (int64_t)inflight);
	json__key(j, "longest_us");
	json__number(j, (double)longest / 1e3);
	json__end_object(j);
cleanup:
	free(locks);
	free(procs);
	free(per_cpu);
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
};
