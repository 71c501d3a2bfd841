// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * biolatency: block I/O latency per disk and operation, split at the request's
 * issue to the driver: queue time (block_rq_insert -> block_rq_issue, the time
 * in the I/O scheduler or the software queues) and service time (block_rq_issue
 * -> block_rq_complete, the device). A request issued without an insert (no
 * scheduler and an idle hardware queue: blk-mq issues it directly) has a
 * service time only, and is counted as measured but not queued. Completion
 * errors are counted per disk and operation, matched to a start or not.
 *
 * The total latency is also counted per disk and interval of the window (a
 * hash of (dev, interval)), for the latency heat map.
 *
 * The slowest I/Os are kept per CPU (a top-N replaced by the fastest kept one),
 * so user space merges them into the exact global top-N: a completion below a
 * CPU's current N-th slowest is simply not among the slowest, not a drop.
 *
 * Three variants: tp_btf and raw_tp (the struct request pointer is the key),
 * classic tracepoint (its records carry dev, sector, nr_sector and rwbs but no
 * request pointer: the key is (dev, sector)).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#define SONDE_INTERVALS
#include "sonde.bpf.h"
#include "biolatency.h"

/*
 * Index of the struct request * among block_rq_insert/issue/merge's arguments:
 * 0 since Linux 5.11, 1 before (a leading struct request_queue *). Set by user
 * space from the tracepoint's prototype in the kernel's BTF.
 */
const volatile __u32 targ_rq_arg = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, BIOLAT_MAX_INFLIGHT);
	__type(key, struct biolat_start_key);
	__type(value, struct biolat_start);
} starts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, BIOLAT_MAX_DISK_OPS);
	__type(key, struct biolat_key);
	__type(value, struct biolat_stats);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct biolat_top);
} slowest SEC(".maps");

/* Per interval of the window: the total latency per disk ("intervals", docs/bpf-tools.md). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, BIOLAT_MAX_IV_KEYS);
	__type(key, struct biolat_iv_key);
	__type(value, struct biolat_iv);
} intervals SEC(".maps");

static const struct biolat_iv zero_iv;

/* The initial value of a new (disk, op) entry: too large for the 512-byte BPF stack. */
static const struct biolat_stats zero_stats;

/* Older kernels keep the disk in the request itself. */
struct request___old {
	struct gendisk *rq_disk;
} __attribute__((preserve_access_index));

static __always_inline __u32 rq_dev(struct request *rq)
{
	struct gendisk *disk;

	if (bpf_core_field_exists(((struct request___old *)rq)->rq_disk))
		disk = BPF_CORE_READ((struct request___old *)rq, rq_disk);
	else
		disk = BPF_CORE_READ(rq, q, disk);
	if (!disk)
		return 0; /* a passthrough request to a queue without a disk */
	return (__u32)BPF_CORE_READ(disk, major) << 20 | (__u32)BPF_CORE_READ(disk, first_minor);
}

static __always_inline __u32 rq_op(struct request *rq)
{
	switch (BPF_CORE_READ(rq, cmd_flags) & 0xff) { /* REQ_OP_MASK */
	case REQ_OP_READ:
		return BIOLAT_OP_READ;
	case REQ_OP_WRITE:
		return BIOLAT_OP_WRITE;
	case REQ_OP_FLUSH:
		return BIOLAT_OP_FLUSH;
	case REQ_OP_DISCARD:
	case REQ_OP_SECURE_ERASE:
		return BIOLAT_OP_DISCARD;
	default:
		return BIOLAT_OP_OTHER;
	}
}

/* rwbs of the classic records (blk_fill_rwbs): an optional 'F' (preflush) before the op letter. */
static __always_inline __u32 rwbs_op(const char *rwbs)
{
	char c = rwbs[0];

	if (c == 'F' && (rwbs[1] == 'W' || rwbs[1] == 'R' || rwbs[1] == 'D' || rwbs[1] == 'F' ||
			 rwbs[1] == 'N'))
		c = rwbs[1];
	switch (c) {
	case 'R':
		return BIOLAT_OP_READ;
	case 'W':
		return BIOLAT_OP_WRITE;
	case 'D':
		return BIOLAT_OP_DISCARD;
	case 'F':
		return BIOLAT_OP_FLUSH;
	default:
		return BIOLAT_OP_OTHER;
	}
}

static __always_inline void on_insert(struct biolat_start_key *k)
{
	struct biolat_start s = {};

	sonde_count(SONDE_STAT_RUNS);
	s.insert_ns = bpf_ktime_get_ns();
	s.pid = (__u32)bpf_get_current_pid_tgid();
	bpf_get_current_comm(s.comm, sizeof(s.comm));
	/* Overwrite: a requeued request is inserted again and queues anew. */
	if (bpf_map_update_elem(&starts, k, &s, BPF_ANY))
		sonde_count(SONDE_STAT_DROPS);
}

static __always_inline void on_issue(struct biolat_start_key *k)
{
	struct biolat_start s = {}, *e;
	__u64 now = bpf_ktime_get_ns();

	sonde_count(SONDE_STAT_RUNS);
	e = bpf_map_lookup_elem(&starts, k);
	if (e && !e->issue_ns) {
		e->issue_ns = now;
		return;
	}
	/*
	 * No insert seen (issued directly), or an entry already issued: a reissue
	 * after a requeue that skipped the insert; the old stamps no longer apply.
	 */
	s.issue_ns = now;
	s.pid = (__u32)bpf_get_current_pid_tgid();
	bpf_get_current_comm(s.comm, sizeof(s.comm));
	if (bpf_map_update_elem(&starts, k, &s, BPF_ANY))
		sonde_count(SONDE_STAT_DROPS);
}

/* A request merged into another never completes: forget its start. */
static __always_inline void on_merge(struct biolat_start_key *k)
{
	sonde_count(SONDE_STAT_RUNS);
	bpf_map_delete_elem(&starts, k);
}

/*
 * A global (not inlined) function is verified once, on its own, and its result
 * is an unknown scalar to the caller. Inlined three times in on_complete, the
 * five branches of sonde_log2 gave 32 distinct constant slots per histogram
 * and 32^3 states to verify: 50 ms of load time instead of 2.
 */
__noinline __u64 biolat_slot(__u64 ns)
{
	__u64 slot = sonde_log2(ns / 1000);

	return slot < BIOLAT_SLOTS ? slot : BIOLAT_SLOTS - 1;
}

static __always_inline void slot_add(__u64 *slots, __u64 ns)
{
	__u64 slot = biolat_slot(ns);

	/* The verifier does not know the callee's range: check it here, on the same register. */
	barrier_var(slot);
	if (slot >= BIOLAT_SLOTS)
		return;
	__sync_fetch_and_add(&slots[slot], 1);
}

static __always_inline void keep_slow(const struct biolat_slow *io)
{
	struct biolat_top *t;
	__u32 k = 0, idx, min = 0;
	__u64 min_ns;

	t = bpf_map_lookup_elem(&slowest, &k);
	if (!t)
		return;
	if (t->n < BIOLAT_TOP) {
		idx = t->n++;
	} else {
		idx = t->min_idx;
		if (idx >= BIOLAT_TOP || io->total_ns <= t->io[idx].total_ns)
			return; /* faster than every kept one: not among the slowest */
	}
	if (idx >= BIOLAT_TOP)
		return;
	t->io[idx] = *io;
	if (t->n < BIOLAT_TOP)
		return;
	/*
	 * Track the smallest value, not only its index: an index used to address
	 * io[] would be a precise register to the verifier, and every value it can
	 * take a separate state (63 ms to load instead of a few).
	 */
	min_ns = t->io[0].total_ns;
	for (__u32 i = 1; i < BIOLAT_TOP; i++)
		if (t->io[i].total_ns < min_ns) {
			min_ns = t->io[i].total_ns;
			min = i;
		}
	t->min_idx = min;
}

static __always_inline void on_complete(struct biolat_start_key *k, __u32 dev, __u32 op,
					 int error, __u32 bytes)
{
	struct biolat_key sk = { .dev = dev, .op = op };
	struct biolat_stats *st;
	struct biolat_start *s;
	struct biolat_slow io = {};
	struct biolat_iv_key ik;
	struct biolat_iv *iv;
	__u64 now = bpf_ktime_get_ns(), from;

	sonde_count(SONDE_STAT_RUNS);
	st = sonde_lookup_or_init(&stats, &sk, &zero_stats);
	s = bpf_map_lookup_elem(&starts, k);
	if (st) {
		__sync_fetch_and_add(&st->completed, 1);
		__sync_fetch_and_add(&st->bytes, bytes);
		if (error)
			__sync_fetch_and_add(&st->errors, 1);
	}
	if (!s)
		return; /* started before the tool attached, or its start was lost (counted) */
	if (!s->issue_ns || (__s64)(now - s->issue_ns) < 0) {
		bpf_map_delete_elem(&starts, k);
		return;
	}
	io.service_ns = now - s->issue_ns;
	from = s->issue_ns;
	if (s->insert_ns && s->insert_ns <= s->issue_ns) {
		io.queue_ns = s->issue_ns - s->insert_ns;
		io.queued = 1;
		from = s->insert_ns;
	}
	io.total_ns = now - from;
	io.dev = dev;
	io.op = op;
	io.bytes = bytes;
	io.pid = s->pid;
	__builtin_memcpy(io.comm, s->comm, sizeof(io.comm));
	bpf_map_delete_elem(&starts, k);
	if (st) {
		__sync_fetch_and_add(&st->measured, 1);
		slot_add(st->service, io.service_ns);
		slot_add(st->total, io.total_ns);
		__sync_fetch_and_add(&st->service_ns, io.service_ns);
		__sync_fetch_and_add(&st->total_ns, io.total_ns);
		if (io.queued) {
			__sync_fetch_and_add(&st->queued, 1);
			slot_add(st->queue, io.queue_ns);
			__sync_fetch_and_add(&st->queue_ns, io.queue_ns);
		}
	}
	if (sonde_iv_ns) { /* read-only: when not kept, the verifier drops this */
		ik.dev = dev;
		ik.interval = sonde_interval(now);
		iv = sonde_lookup_or_init(&intervals, &ik, &zero_iv);
		if (iv)
			slot_add(iv->slots, io.total_ns);
	}
	keep_slow(&io);
}

/* ---- tp_btf and raw_tp: the request pointer is the key ---- */

static __always_inline struct request *rq_arg(__u64 *ctx)
{
	return (struct request *)(targ_rq_arg ? ctx[1] : ctx[0]);
}

static __always_inline void rq_insert(__u64 *ctx)
{
	struct biolat_start_key k = { .a = (__u64)rq_arg(ctx) };

	on_insert(&k);
}

static __always_inline void rq_issue(__u64 *ctx)
{
	struct biolat_start_key k = { .a = (__u64)rq_arg(ctx) };

	on_issue(&k);
}

static __always_inline void rq_merge(__u64 *ctx)
{
	struct biolat_start_key k = { .a = (__u64)rq_arg(ctx) };

	on_merge(&k);
}

/* block_rq_complete(struct request *rq, blk_status_t error, unsigned int nr_bytes) */
static __always_inline void rq_complete(__u64 *ctx)
{
	struct request *rq = (struct request *)ctx[0];
	struct biolat_start_key k = { .a = (__u64)rq };

	on_complete(&k, rq_dev(rq), rq_op(rq), (__u32)ctx[1] != 0, (__u32)ctx[2]);
}

SEC("tp_btf/block_rq_insert")
int insert_btf(__u64 *ctx)
{
	rq_insert(ctx);
	return 0;
}

SEC("tp_btf/block_rq_issue")
int issue_btf(__u64 *ctx)
{
	rq_issue(ctx);
	return 0;
}

SEC("tp_btf/block_rq_merge")
int merge_btf(__u64 *ctx)
{
	rq_merge(ctx);
	return 0;
}

SEC("tp_btf/block_rq_complete")
int complete_btf(__u64 *ctx)
{
	rq_complete(ctx);
	return 0;
}

SEC("raw_tp/block_rq_insert")
int insert_raw(__u64 *ctx)
{
	rq_insert(ctx);
	return 0;
}

SEC("raw_tp/block_rq_issue")
int issue_raw(__u64 *ctx)
{
	rq_issue(ctx);
	return 0;
}

SEC("raw_tp/block_rq_merge")
int merge_raw(__u64 *ctx)
{
	rq_merge(ctx);
	return 0;
}

SEC("raw_tp/block_rq_complete")
int complete_raw(__u64 *ctx)
{
	rq_complete(ctx);
	return 0;
}

/* ---- classic tracepoints: no request pointer in the record, (dev, sector) is the key ---- */

SEC("tp/block/block_rq_insert")
int insert_tp(struct trace_event_raw_block_rq *ctx)
{
	struct biolat_start_key k = { .a = ctx->dev, .b = ctx->sector };

	on_insert(&k);
	return 0;
}

SEC("tp/block/block_rq_issue")
int issue_tp(struct trace_event_raw_block_rq *ctx)
{
	struct biolat_start_key k = { .a = ctx->dev, .b = ctx->sector };

	on_issue(&k);
	return 0;
}

SEC("tp/block/block_rq_merge")
int merge_tp(struct trace_event_raw_block_rq *ctx)
{
	struct biolat_start_key k = { .a = ctx->dev, .b = ctx->sector };

	on_merge(&k);
	return 0;
}

SEC("tp/block/block_rq_complete")
int complete_tp(struct trace_event_raw_block_rq_completion *ctx)
{
	struct biolat_start_key k = { .a = ctx->dev, .b = ctx->sector };
	char rwbs[2];

	rwbs[0] = ctx->rwbs[0];
	rwbs[1] = ctx->rwbs[1];
	on_complete(&k, ctx->dev, rwbs_op(rwbs), ctx->error != 0, ctx->nr_sector << 9);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
