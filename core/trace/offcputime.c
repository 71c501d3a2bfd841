// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * offcputime: time threads spent blocked (sleeping, waiting for I/O or a
 * lock), by stack (bpf/offcputime.bpf.c); sonde itself is left out, and so
 * are preemptions (runqlat measures those waits).
 *
 * Minimum block: SONDE_OFFCPU_MIN_US (default 1 us); shorter blocks are
 * counted in "short" but not added.
 *
 * data = { unit = "us", min_block_us, blocks, counted, short,
 *   lost = { kernel_stack, user_stack, user_stack_fault, threads_full, counts_full,
 *            counts_full_us },
 *   total (us counted), frames, unknown_frames, unknown_reasons, kernel_symbols,
 *   processes_snapshotted, processes_exited, elf_files, elf_unreadable,
 *   broken = { stacks, us, what, fix },
 *   processes = top 50 { tgid, comm, us, stacks }, processes_total,
 *   stacks = top 2000 { tgid, comm, us, folded }, stacks_total, other = { stacks, us },
 *   symbolize_ms,
 *   intervals = { interval_ms, unit = "us", counts } (counted blocks by duration, per
 *                 interval of the window they ended in) }
 * and raw/offcputime.folded: "comm;frame;...;frame us" per line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "perf/stacks.h"
#include "perf/symbolize.h"
#include "trace/maps.h"
#include "trace/trace.h"
#include "offcputime.h"
#include "offcputime.skel.h"

_Static_assert(sizeof(struct offcpu_key) == 32, "perf/stacks.c reads this key layout");

struct offcputime_priv {
	long min_us;
	struct symbolizer *sym;
	struct stack_poller *poller;
};

static void *offcputime_open(struct bpf_object **obj)
{
	struct offcputime_bpf *skel = offcputime_bpf__open();

	if (skel)
		*obj = skel->obj;
	return skel;
}

/* SONDE_OFFCPU_MIN_US, or the default; -1 when it is not a duration. */
static long min_block_us(void)
{
	const char *s = getenv("SONDE_OFFCPU_MIN_US");
	char *end;
	long v;

	if (!s || !*s)
		return OFFCPU_DEFAULT_MIN_US;
	v = strtol(s, &end, 10);
	return *end || v < 0 || v > 60L * 1000 * 1000 ? -1 : v;
}

extern const struct trace_tool trace_offcputime;

static int offcputime_configure(void *skel, const struct trace_opts *o)
{
	struct offcputime_bpf *s = skel;
	long min = min_block_us();

	s->rodata->targ_self_tgid = (__u32)o->self_pid;
	TRACE_SET_SUSPECTS(s->rodata, o, &trace_offcputime);
	/* a bad value is refused with its reason in attach_custom; load with the default */
	s->rodata->targ_min_ns = (__u64)(min < 0 ? OFFCPU_DEFAULT_MIN_US : min) * 1000;
	TRACE_SET_INTERVALS(s->rodata, o);
	return 0;
}

static void offcputime_release(struct trace_run *t)
{
	struct offcputime_priv *p = t->priv;

	if (!p)
		return;
	stack_poller__stop(p->poller);
	symbolizer__free(p->sym);
	free(p);
	t->priv = NULL;
}

static int offcputime_attach(struct trace_run *t, const struct trace_opts *o, char *why, size_t n)
{
	struct offcputime_bpf *skel = t->skel;
	struct offcputime_priv *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	t->priv = p;
	p->min_us = min_block_us();
	if (p->min_us < 0) {
		snprintf(why, n, "SONDE_OFFCPU_MIN_US=%.40s: not a duration in microseconds "
				 "(0 to 60000000)", getenv("SONDE_OFFCPU_MIN_US"));
		return -EINVAL;
	}
	p->sym = symbolizer__new();
	if (!p->sym)
		return -ENOMEM;
	p->poller = stack_poller__start(bpf_map__fd(skel->maps.counts), sizeof(struct offcpu_key),
					p->sym, 1000);
	return 0;
}

/* The block durations of each interval (summed over the CPUs) as "intervals". 0 or -errno. */
static int json_intervals(struct trace_run *t, struct json *j)
{
	struct offcputime_bpf *skel = t->skel;
	unsigned long long counts[TRACE_MAX_INTERVALS * OFFCPU_SLOTS];
	size_t niv = trace_run__intervals(t, skel->rodata->sonde_iv_ns);

	for (size_t i = 0; i < niv; i++) {
		int err = trace_map__percpu_sum(bpf_map__fd(skel->maps.hist), (uint32_t)i,
						counts + i * OFFCPU_SLOTS,
						OFFCPU_SLOTS * sizeof(counts[0]));

		if (err)
			return err;
	}
	trace__json_intervals(j, skel->rodata->sonde_iv_ns, "us", counts, niv, OFFCPU_SLOTS);
	return 0;
}

static int offcputime_collect(struct trace_run *t, struct json *j)
{
	struct offcputime_bpf *skel = t->skel;
	struct offcputime_priv *p = t->priv;
	struct stack_sample *v = NULL;
	struct strbuf folded = { 0 };
	uint64_t st[OFFCPU_STAT_NR] = { 0 };
	size_t n = 0;
	int fd = bpf_map__fd(skel->maps.ostats), err;

	stack_poller__stop(p->poller);
	p->poller = NULL;
	err = stacks__read_counts(bpf_map__fd(skel->maps.counts), sizeof(struct offcpu_key),
				  sizeof(struct offcpu_val), 0, &v, &n);
	if (err)
		return err;
	trace_map__counters(fd, st, OFFCPU_STAT_NR);

	json__key(j, "unit");
	json__string(j, "us");
	trace__json_int(j, "min_block_us", p->min_us);
	trace__json_int(j, "blocks", st[OFFCPU_BLOCKS]);
	trace__json_int(j, "counted", st[OFFCPU_COUNTED]);
	trace__json_int(j, "short", st[OFFCPU_SHORT]);
	json__key(j, "lost");
	json__begin_object(j);
	trace__json_int(j, "kernel_stack", st[OFFCPU_KSTACK_LOST]);
	trace__json_int(j, "user_stack", st[OFFCPU_USTACK_LOST]);
	trace__json_int(j, "user_stack_fault", st[OFFCPU_USTACK_FAULT]);
	trace__json_int(j, "threads_full", st[OFFCPU_STARTS_DROPPED]);
	trace__json_int(j, "counts_full", st[OFFCPU_KEYS_DROPPED]);
	trace__json_int(j, "counts_full_us", st[OFFCPU_LOST_NS] / 1000);
	json__end_object(j);
	err = json_intervals(t, j);
	if (!err)
		err = stacks__write(p->sym, bpf_map__fd(skel->maps.stacks), OFFCPU_STACK_DEPTH, v,
				    n, NULL, 1000, "us", j, &folded);
	if (!err)
		err = trace_run__write_raw(t, "offcputime.folded", &folded);
	if (err == -EINVAL) /* no raw dir: a probe */
		err = 0;
	strbuf__free(&folded);
	free(v);
	return err;
}

static void offcputime_destroy(void *skel)
{
	offcputime_bpf__destroy(skel);
}

const struct trace_tool trace_offcputime = {
	.name = "offcputime",
	.what = "time threads spent blocked, by stack, symbolized",
	.attach = { ATTACH_TP_BTF, ATTACH_RAW_TP, ATTACH_TRACEPOINT, ATTACH_NR },
	.open = offcputime_open,
	.configure = offcputime_configure,
	.attach_custom = offcputime_attach,
	.collect = offcputime_collect,
	.destroy = offcputime_destroy,
	.release = offcputime_release,
	.hooks = { { HEV_CTXT, 1 } },
	/*
	 * A run walks the kernel and the user stack of the thread switched out:
	 * about 4-5.5 us here (bench/tool-cost.sh, four runs: 4.0-5.6 us, factors
	 * 55-66 against the counting program), since the user stacks came in.
	 */
	.run_cost = 55.0,
	.hot = 1,
	.filters = 1,
	.instead = "voluntary context switches per process from /proc/PID/status",
};
