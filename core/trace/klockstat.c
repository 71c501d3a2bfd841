// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * klockstat: kernel lock contention (bpf/klockstat.bpf.c): time threads waited
 * to take a kernel lock, from lock:contention_begin to lock:contention_end.
 *
 * data = {
 *   hist_unit = "ns",
 *   count, total_us, max_us, hist,          every measured wait (hist: log2 ns)
 *   types = [ { type, flags, count, total_us, max_us, hist } ],  by total wait
 *   callers_seen,
 *   callers = [ { type, caller, stack, count, total_us, max_us } ],  top 30 by total
 *   processes_seen,
 *   processes = [ { pid, comm, count, total_us, max_us } ],         top 30 by total
 *   not_measured = { nested, unmatched, no_stack },
 *   kernel_symbols = "ok" or why kernel frames are "[unknown]",
 * }
 * type: the lock type from the flags (see bpf/klockstat.h), "flags 0xN" for an
 * unknown combination. stack: up to 4 kernel frames, innermost first, from the
 * lock's slow path outwards (the tracer's own frames cut); caller: the first
 * of them outside the locking code (the function that took the lock).
 * Callers with the same type and frames are merged. pid is the tgid; comm the
 * name of its first waiting thread. A wait in an interrupt handler counts for
 * the interrupted process.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "trace/trace.h"
#include "perf/symbolize.h"
#include "klockstat.h"
#include "klockstat.skel.h"

#define TOP_CALLERS 30
#define TOP_PROCS 30
#define SHOWN_FRAMES 4

static void *klockstat_open(struct bpf_object **obj)
{
	struct klockstat_bpf *skel = klockstat_bpf__open();

	if (skel)
		*obj = skel->obj;
	return skel;
}

static int klockstat_configure(void *skel, const struct trace_opts *o)
{
	((struct klockstat_bpf *)skel)->rodata->targ_self_tgid = (__u32)o->self_pid;
	return 0;
}

/* perf lock's names for the flag combinations the kernel passes. */
static const char *type_name(__u32 f, char *buf, size_t len)
{
	switch (f) {
	case 0: return "semaphore";
	case KLOCK_F_SPIN: return "spinlock";
	case KLOCK_F_SPIN | KLOCK_F_READ: return "rwlock:R";
	case KLOCK_F_SPIN | KLOCK_F_WRITE: return "rwlock:W";
	case KLOCK_F_READ: return "rwsem:R";
	case KLOCK_F_WRITE: return "rwsem:W";
	case KLOCK_F_RT: return "rt-mutex";
	case KLOCK_F_RT | KLOCK_F_READ: return "rwlock-rt:R";
	case KLOCK_F_RT | KLOCK_F_WRITE: return "rwlock-rt:W";
	case KLOCK_F_PERCPU | KLOCK_F_READ: return "pcpu-sem:R";
	case KLOCK_F_PERCPU | KLOCK_F_WRITE: return "pcpu-sem:W";
	case KLOCK_F_MUTEX: return "mutex";
	case KLOCK_F_MUTEX | KLOCK_F_SPIN: return "mutex:spin";
	}
	snprintf(buf, len, "flags 0x%x", f);
	return buf;
}

/* The tracer's own frames at the top of a stack taken from a tracepoint. */
static int tracer_frame(const char *n)
{
	return !strncmp(n, "bpf_prog_", 9) || !strncmp(n, "bpf_trace_run", 13) ||
	       !strncmp(n, "__bpf_trace_", 12) || !strcmp(n, "trace_call_bpf") ||
	       !strncmp(n, "perf_trace_", 11) || !strncmp(n, "__traceiter_", 12) ||
	       !strncmp(n, "trace_contention_", 17);
}

/* The locking code itself: the caller is the first frame outside it. */
static int lock_frame(const char *n)
{
	static const char *const pre[] = {
		"_raw_", "do_raw_", "queued_", "native_queued_", "__pv_queued_", "pv_queued_",
		"mutex_lock", "__mutex_lock", "mutex_spin_on_owner", "osq_lock", "ww_mutex_lock",
		"__ww_mutex_lock", "down", "__down", "_down", "rwsem_", "__rwsem_", "percpu_down",
		"__percpu_down", "percpu_rwsem_", "rt_mutex", "__rt_mutex", "rt_spin", "rwbase_",
		"rt_read_", "rt_write_", "__rt_spin",
	};

	for (size_t i = 0; i < sizeof(pre) / sizeof(pre[0]); i++)
		if (!strncmp(n, pre[i], strlen(pre[i])))
			return 1;
	return 0;
}

struct caller_row {
	__u32 flags;
	__s32 stackid;
	char frames[SHOWN_FRAMES][128];
	int nframes;
	char caller[128];
	struct klock_stat v;
};

struct proc_row {
	__u32 tgid;
	struct klock_proc v;
};

static int caller_key_cmp(const void *a, const void *b)
{
	const struct caller_row *x = a, *y = b;

	if (x->flags != y->flags)
		return x->flags < y->flags ? -1 : 1;
	if (strcmp(x->caller, y->caller))
		return strcmp(x->caller, y->caller);
	if (x->nframes != y->nframes)
		return x->nframes - y->nframes;
	for (int i = 0; i < x->nframes; i++) {
		int c = strcmp(x->frames[i], y->frames[i]);

		if (c)
			return c;
	}
	return 0;
}

static int caller_by_total(const void *a, const void *b)
{
	const struct caller_row *x = a, *y = b;

	return x->v.total_ns < y->v.total_ns ? 1 : x->v.total_ns > y->v.total_ns ? -1 : 0;
}

static int proc_by_total(const void *a, const void *b)
{
	const struct proc_row *x = a, *y = b;

	return x->v.s.total_ns < y->v.s.total_ns ? 1 : x->v.s.total_ns > y->v.s.total_ns ? -1 : 0;
}

static void stat_json(struct json *j, __u64 count, __u64 total_ns, __u64 max_ns)
{
	json__key(j, "count");
	json__int(j, (int64_t)count);
	json__key(j, "total_us");
	json__number(j, (double)total_ns / 1e3);
	json__key(j, "max_us");
	json__number(j, (double)max_ns / 1e3);
}

/* Name the frames of a stack id (tracer frames cut) into r, and its caller. */
static void name_stack(struct symbolizer *sym, int fd, __s32 id, struct caller_row *r)
{
	__u64 ips[KLOCK_STACK_DEPTH] = { 0 };
	int started = 0;

	r->nframes = 0;
	snprintf(r->caller, sizeof(r->caller), "%s", SYM_UNKNOWN);
	if (id < 0 || bpf_map_lookup_elem(fd, &id, ips)) {
		snprintf(r->frames[0], sizeof(r->frames[0]), "[lost stack]");
		r->nframes = 1;
		return;
	}
	for (int i = 0, found = 0; i < KLOCK_STACK_DEPTH && ips[i]; i++) {
		const char *n = symbolizer__kernel(sym, ips[i], NULL);

		if (!started && tracer_frame(n))
			continue;
		started = 1;
		if (r->nframes < SHOWN_FRAMES)
			snprintf(r->frames[r->nframes++], sizeof(r->frames[0]), "%s", n);
		if (!found && !lock_frame(n) && strcmp(n, SYM_UNKNOWN)) {
			snprintf(r->caller, sizeof(r->caller), "%s", n);
			found = 1;
		}
		if (found && r->nframes >= SHOWN_FRAMES)
			break;
	}
}

static int klockstat_collect(struct trace_run *t, struct json *j)
{
	struct klockstat_bpf *skel = t->skel;
	struct klock_type_stat types[KLOCK_TYPES], all = { 0 };
	struct caller_row *callers = NULL;
	struct proc_row *procs = NULL;
	size_t ncallers = 0, nprocs = 0, merged = 0;
	struct symbolizer *sym = NULL;
	uint64_t cnt[KLOCK_CNT_NR] = { 0 };
	int fd, sfd, err = 0;
	char buf[32];

	callers = calloc(KLOCK_MAX_CALLERS, sizeof(*callers));
	procs = calloc(KLOCK_MAX_PROCS, sizeof(*procs));
	sym = symbolizer__new();
	if (!callers || !procs || !sym) {
		err = -ENOMEM;
		goto cleanup;
	}
	memset(types, 0, sizeof(types));
	fd = bpf_map__fd(skel->maps.by_type);
	for (__u32 k = 0; k < KLOCK_TYPES; k++) {
		if (bpf_map_lookup_elem(fd, &k, &types[k])) {
			err = -errno;
			goto cleanup;
		}
		all.count += types[k].count;
		all.total_ns += types[k].total_ns;
		if (types[k].max_ns > all.max_ns)
			all.max_ns = types[k].max_ns;
		for (int s = 0; s < KLOCK_SLOTS; s++)
			all.slots[s] += types[k].slots[s];
	}
	for (__u32 k = 0; k < KLOCK_CNT_NR; k++)
		trace__percpu_sum(bpf_map__fd(skel->maps.counters), k, &cnt[k]);

	fd = bpf_map__fd(skel->maps.by_caller);
	sfd = bpf_map__fd(skel->maps.stacks);
	{
		struct klock_caller_key key, next, *prev = NULL;

		while (ncallers < KLOCK_MAX_CALLERS && !bpf_map_get_next_key(fd, prev, &next)) {
			struct caller_row *r = &callers[ncallers];

			if (!bpf_map_lookup_elem(fd, &next, &r->v)) {
				r->flags = next.flags;
				r->stackid = next.stackid;
				ncallers++;
			}
			key = next;
			prev = &key;
		}
	}
	/* Every map read before the slow part (kallsyms), so the totals agree. */
	fd = bpf_map__fd(skel->maps.by_proc);
	{
		__u32 key, next, *prev = NULL;

		while (nprocs < KLOCK_MAX_PROCS && !bpf_map_get_next_key(fd, prev, &next)) {
			if (!bpf_map_lookup_elem(fd, &next, &procs[nprocs].v)) {
				procs[nprocs].tgid = next;
				nprocs++;
			}
			key = next;
			prev = &key;
		}
	}
	qsort(procs, nprocs, sizeof(*procs), proc_by_total);
	for (size_t i = 0; i < ncallers; i++)
		name_stack(sym, sfd, callers[i].stackid, &callers[i]);
	/* The same frames under several stack ids (deeper frames differ): one row. */
	qsort(callers, ncallers, sizeof(*callers), caller_key_cmp);
	for (size_t i = 0; i < ncallers; i++) {
		if (merged && !caller_key_cmp(&callers[merged - 1], &callers[i])) {
			struct klock_stat *m = &callers[merged - 1].v;

			m->count += callers[i].v.count;
			m->total_ns += callers[i].v.total_ns;
			if (callers[i].v.max_ns > m->max_ns)
				m->max_ns = callers[i].v.max_ns;
			continue;
		}
		if (merged != i)
			callers[merged] = callers[i];
		merged++;
	}
	qsort(callers, merged, sizeof(*callers), caller_by_total);


	json__key(j, "hist_unit");
	json__string(j, "ns");
	stat_json(j, all.count, all.total_ns, all.max_ns);
	json__key(j, "hist");
	trace__json_log2(j, all.slots, KLOCK_SLOTS);
	json__key(j, "types");
	json__begin_array(j);
	for (;;) {
		int best = -1;

		for (int k = 0; k < KLOCK_TYPES; k++)
			if (types[k].count && (best < 0 || types[k].total_ns > types[best].total_ns))
				best = k;
		if (best < 0)
			break;
		json__begin_object(j);
		json__key(j, "type");
		json__string(j, type_name((__u32)best, buf, sizeof(buf)));
		json__key(j, "flags");
		json__int(j, best);
		stat_json(j, types[best].count, types[best].total_ns, types[best].max_ns);
		json__key(j, "hist");
		trace__json_log2(j, types[best].slots, KLOCK_SLOTS);
		json__end_object(j);
		types[best].count = 0;
	}
	json__end_array(j);
	json__key(j, "callers_seen");
	json__int(j, (int64_t)merged);
	json__key(j, "callers");
	json__begin_array(j);
	for (size_t i = 0; i < merged && i < TOP_CALLERS; i++) {
		struct caller_row *r = &callers[i];

		json__begin_object(j);
		json__key(j, "type");
		json__string(j, type_name(r->flags, buf, sizeof(buf)));
		json__key(j, "caller");
		json__string(j, r->caller);
		json__key(j, "stack");
		json__begin_array(j);
		for (int f = 0; f < r->nframes; f++)
			json__string(j, r->frames[f]);
		json__end_array(j);
		stat_json(j, r->v.count, r->v.total_ns, r->v.max_ns);
		json__end_object(j);
	}
	json__end_array(j);
	json__key(j, "processes_seen");
	json__int(j, (int64_t)nprocs);
	json__key(j, "processes");
	json__begin_array(j);
	for (size_t i = 0; i < nprocs && i < TOP_PROCS; i++) {
		json__begin_object(j);
		json__key(j, "pid");
		json__int(j, procs[i].tgid);
		json__key(j, "comm");
		trace__json_comm(j, procs[i].v.comm, sizeof(procs[i].v.comm));
		stat_json(j, procs[i].v.s.count, procs[i].v.s.total_ns, procs[i].v.s.max_ns);
		json__end_object(j);
	}
	json__end_array(j);
	json__key(j, "not_measured");
	json__begin_object(j);
	json__key(j, "nested");
	json__int(j, (int64_t)cnt[KLOCK_NESTED]);
	json__key(j, "unmatched");
	json__int(j, (int64_t)cnt[KLOCK_UNMATCHED]);
	json__key(j, "no_stack");
	json__int(j, (int64_t)cnt[KLOCK_NO_STACK]);
	json__end_object(j);
	json__key(j, "kernel_symbols");
	symbolizer__kernel_load(sym, NULL);
	json__string(j, symbolizer__kernel_why(sym)[0] ? symbolizer__kernel_why(sym) : "ok");
cleanup:
	symbolizer__free(sym);
	free(procs);
	free(callers);
	return err;
}

static void klockstat_destroy(void *skel)
{
	klockstat_bpf__destroy(skel);
}

const struct trace_tool trace_klockstat = {
	.name = "klockstat",
	.what = "kernel lock contention: wait time per lock type, caller and process",
	.attach = { ATTACH_TP_BTF, ATTACH_RAW_TP, ATTACH_TRACEPOINT, ATTACH_NR },
	.open = klockstat_open,
	.configure = klockstat_configure,
	.collect = klockstat_collect,
	.destroy = klockstat_destroy,
};
