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

#include "trace/maps.h"
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

extern const struct trace_tool trace_klockstat;

static int klockstat_configure(void *skel, const struct trace_opts *o)
{
	struct klockstat_bpf *s = skel;

	s->rodata->targ_self_tgid = (__u32)o->self_pid;
	TRACE_SET_SUSPECTS(s->rodata, o, &trace_klockstat);
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
	struct klock_caller_key key;
	char frames[SHOWN_FRAMES][128];
	int nframes;
	char caller[128];
	struct klock_stat v;
};

struct proc_row {
	__u32 tgid;
	struct klock_proc v;
};

static const struct trace_map_row caller_rows = TRACE_MAP_ROW(struct caller_row, key, v);
static const struct trace_map_row proc_rows = TRACE_MAP_ROW(struct proc_row, tgid, v);

static int caller_key_cmp(const void *a, const void *b)
{
	const struct caller_row *x = a, *y = b;

	if (x->key.flags != y->key.flags)
		return x->key.flags < y->key.flags ? -1 : 1;
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

	return trace__cmp_desc(x->v.total_ns, y->v.total_ns);
}

static int proc_by_total(const void *a, const void *b)
{
	const struct proc_row *x = a, *y = b;

	return trace__cmp_desc(x->v.s.total_ns, y->v.s.total_ns);
}

static void stat_json(struct json *j, __u64 count, __u64 total_ns, __u64 max_ns)
{
	trace__json_int(j, "count", count);
	trace__json_us(j, "total_us", total_ns);
	trace__json_us(j, "max_us", max_ns);
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

		if (!started && symbolizer__tracer_frame(n))
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

/*
 * Name every caller's stack, merge the callers with the same type and frames
 * (deeper frames differ: several stack ids), and sort them by total wait.
 * Returns how many rows remain.
 */
static size_t name_callers(struct symbolizer *sym, int stacks_fd, struct caller_row *callers,
			   size_t ncallers)
{
	size_t merged = 0;

	for (size_t i = 0; i < ncallers; i++)
		name_stack(sym, stacks_fd, callers[i].key.stackid, &callers[i]);
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
	return merged;
}

/* The per-type array (KLOCK_TYPES entries) into types, and every wait in all. 0 or -errno. */
static int read_types(int fd, struct klock_type_stat *types, struct klock_type_stat *all)
{
	memset(all, 0, sizeof(*all));
	for (__u32 k = 0; k < KLOCK_TYPES; k++) {
		if (bpf_map_lookup_elem(fd, &k, &types[k]))
			return -errno;
		all->count += types[k].count;
		all->total_ns += types[k].total_ns;
		if (types[k].max_ns > all->max_ns)
			all->max_ns = types[k].max_ns;
		for (int s = 0; s < KLOCK_SLOTS; s++)
			all->slots[s] += types[k].slots[s];
	}
	return 0;
}

/* The lock types that had waits, by total wait (types is consumed). */
static void json_types(struct json *j, struct klock_type_stat *types)
{
	char buf[32];

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
		trace__json_int(j, "flags", best);
		stat_json(j, types[best].count, types[best].total_ns, types[best].max_ns);
		json__key(j, "hist");
		trace__json_log2(j, types[best].slots, KLOCK_SLOTS);
		json__end_object(j);
		types[best].count = 0;
	}
	json__end_array(j);
}

static void json_caller(struct json *j, const void *row, void *arg)
{
	const struct caller_row *r = row;
	char buf[32];

	json__key(j, "type");
	json__string(j, type_name(r->key.flags, buf, sizeof(buf)));
	json__key(j, "caller");
	json__string(j, r->caller);
	json__key(j, "stack");
	json__begin_array(j);
	for (int f = 0; f < r->nframes; f++)
		json__string(j, r->frames[f]);
	json__end_array(j);
	stat_json(j, r->v.count, r->v.total_ns, r->v.max_ns);
}

static void json_proc(struct json *j, const void *row, void *arg)
{
	const struct proc_row *r = row;

	trace__json_int(j, "pid", r->tgid);
	trace__json_comm(j, "comm", r->v.comm, sizeof(r->v.comm));
	stat_json(j, r->v.s.count, r->v.s.total_ns, r->v.s.max_ns);
}

static void json_not_measured(struct json *j, const uint64_t *cnt, struct symbolizer *sym)
{
	json__key(j, "not_measured");
	json__begin_object(j);
	trace__json_int(j, "nested", cnt[KLOCK_NESTED]);
	trace__json_int(j, "unmatched", cnt[KLOCK_UNMATCHED]);
	trace__json_int(j, "no_stack", cnt[KLOCK_NO_STACK]);
	json__end_object(j);
	json__key(j, "kernel_symbols");
	symbolizer__kernel_load(sym, NULL);
	json__string(j, symbolizer__kernel_why(sym)[0] ? symbolizer__kernel_why(sym) : "ok");
}

static int klockstat_collect(struct trace_run *t, struct json *j)
{
	struct klockstat_bpf *skel = t->skel;
	struct klock_type_stat types[KLOCK_TYPES], all;
	struct caller_row *callers = NULL;
	struct proc_row *procs = NULL;
	size_t ncallers = 0, nprocs = 0;
	struct symbolizer *sym = symbolizer__new();
	uint64_t cnt[KLOCK_CNT_NR];
	int err;

	if (!sym)
		return -ENOMEM;
	err = read_types(bpf_map__fd(skel->maps.by_type), types, &all);
	if (err)
		goto cleanup;
	trace_map__counters(bpf_map__fd(skel->maps.counters), cnt, KLOCK_CNT_NR);
	/* Every map read before the slow part (kallsyms), so the totals agree. */
	if ((err = trace_map__read(bpf_map__fd(skel->maps.by_caller), &caller_rows,
				   KLOCK_MAX_CALLERS, (void **)&callers, &ncallers)) ||
	    (err = trace_map__read(bpf_map__fd(skel->maps.by_proc), &proc_rows, KLOCK_MAX_PROCS,
				   (void **)&procs, &nprocs)))
		goto cleanup;
	qsort(procs, nprocs, sizeof(*procs), proc_by_total);
	ncallers = name_callers(sym, bpf_map__fd(skel->maps.stacks), callers, ncallers);

	json__key(j, "hist_unit");
	json__string(j, "ns");
	stat_json(j, all.count, all.total_ns, all.max_ns);
	json__key(j, "hist");
	trace__json_log2(j, all.slots, KLOCK_SLOTS);
	json_types(j, types);
	trace__json_top(j, "callers_seen", "callers", callers, ncallers, sizeof(*callers),
			TOP_CALLERS, json_caller, NULL);
	trace__json_top(j, "processes_seen", "processes", procs, nprocs, sizeof(*procs), TOP_PROCS,
			json_proc, NULL);
	json_not_measured(j, cnt, sym);
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
	.uncounted = "kernel lock contention",
	.run_cost = 5.0,
	.hot = 1,
	.filters = 1,
	.instead = "lock slow paths in the 49 Hz profile",
};
