/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by every sonde BPF program: the per-tool counters user space reads
 * (program runs, for the cost estimate, and records dropped), the log2
 * histogram slot function, the syscall number at sys_exit, and a process's resident pages. Include after
 * vmlinux.h and the libbpf headers.
 */
#ifndef SONDE_BPF_H
#define SONDE_BPF_H

#include <bpf/bpf_core_read.h>

#define SONDE_STAT_RUNS 0  /* every invocation of one of the tool's programs */
#define SONDE_STAT_DROPS 1 /* records or keys lost: a full map, a full ring buffer */
#define SONDE_STAT_NR 2

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SONDE_STAT_NR);
	__type(key, __u32);
	__type(value, __u64);
} sonde_stats SEC(".maps");

static __always_inline void sonde_count(__u32 which)
{
	__u64 *v = bpf_map_lookup_elem(&sonde_stats, &which);

	if (v)
		(*v)++; /* per CPU: no atomic needed */
}

/*
 * The suspects of a drill-down: a tool that filters traces only these
 * processes (tgids, set from user space before load; none set: every
 * process). Read-only data, so with no suspect the verifier drops the test.
 * SONDE_MAX_TGIDS is TRACE_MAX_TGIDS of core/trace/trace.h.
 */
#define SONDE_MAX_TGIDS 8
const volatile __u32 sonde_ntgids = 0;
const volatile __u32 sonde_tgids[SONDE_MAX_TGIDS] = {};

/* Is tgid traced? First thing in a filtering program: a filtered-out run costs little. */
static __always_inline int sonde_traced(__u32 tgid)
{
	if (!sonde_ntgids)
		return 1;
	for (int i = 0; i < SONDE_MAX_TGIDS; i++)
		if (i < sonde_ntgids && sonde_tgids[i] == tgid)
			return 1;
	return 0;
}

/* Slot of v in a log2 histogram: 0 for 0 and 1, else floor(log2(v)). */
struct pt_regs___arm64 {
	int syscallno;
} __attribute__((preserve_access_index));

struct pt_regs___x86 {
	unsigned long orig_ax;
} __attribute__((preserve_access_index));

/*
 * The syscall number at sys_exit, from the registers the kernel saved on
 * entry (x86 orig_ax, arm64 syscallno, through CO-RE): raw_tp and tp_btf
 * sys_exit give the registers, not the number. -1 when this architecture has
 * neither.
 */
static __always_inline long sonde_exit_syscall_id(struct pt_regs *regs)
{
	if (bpf_core_field_exists(((struct pt_regs___x86 *)regs)->orig_ax))
		return (long)BPF_CORE_READ((struct pt_regs___x86 *)regs, orig_ax);
	if (bpf_core_field_exists(((struct pt_regs___arm64 *)regs)->syscallno))
		return BPF_CORE_READ((struct pt_regs___arm64 *)regs, syscallno);
	return -1;
}

static __always_inline __u32 sonde_log2(__u64 v)
{
	__u32 r = 0, shift;

	shift = (v > 0xFFFFFFFFULL) << 5; v >>= shift; r |= shift;
	shift = (v > 0xFFFF) << 4; v >>= shift; r |= shift;
	shift = (v > 0xFF) << 3; v >>= shift; r |= shift;
	shift = (v > 0xF) << 2; v >>= shift; r |= shift;
	shift = (v > 0x3) << 1; v >>= shift; r |= shift;
	r |= (v >> 1);
	return r;
}

#ifdef SONDE_INTERVALS
/*
 * Per-interval histograms (docs/bpf-tools.md "intervals"), for the tools
 * that define SONDE_INTERVALS before including this: the window cut into
 * SONDE_MAX_INTERVALS at most, of sonde_iv_ns each (read-only, set before
 * load), from sonde_iv_t0_ns: the monotonic clock when the window starts,
 * written by the runner once every tool is attached (core/trace/trace.c;
 * a section of its own, so it finds it by name). The interval of now,
 * clamped to the last slot (a window longer than planned lands there);
 * interval 0 also holds what was seen before the window's start.
 */
#define SONDE_MAX_INTERVALS 64
const volatile __u64 sonde_iv_ns = 0;
__u64 sonde_iv_t0_ns SEC(".data.sonde_iv") = 0;

static __always_inline __u32 sonde_interval(__u64 now)
{
	__u64 t0 = *(volatile __u64 *)&sonde_iv_t0_ns, i;

	if (!sonde_iv_ns || !t0 || now < t0)
		return 0;
	i = (now - t0) / sonde_iv_ns;
	return i < SONDE_MAX_INTERVALS ? (__u32)i : SONDE_MAX_INTERVALS - 1;
}
#endif

/* Insert key -> *init unless present; the entry, or NULL (a full map: counted as a drop). */
static __always_inline void *sonde_lookup_or_init(void *map, const void *key, const void *init)
{
	void *v = bpf_map_lookup_elem(map, key);

	if (v)
		return v;
	/* EEXIST from a racing CPU is fine: the lookup below finds its entry. */
	bpf_map_update_elem(map, key, init, BPF_NOEXIST);
	v = bpf_map_lookup_elem(map, key);
	if (!v)
		sonde_count(SONDE_STAT_DROPS);
	return v;
}

/* A program built without vmlinux.h (profile_nobtf) has no kernel types for what follows. */
#ifndef SONDE_NO_VMLINUX
/* Before 6.2 the rss counters were atomics in struct mm_rss_stat. */
struct mm_rss_stat___old {
	atomic_long_t count[4];
} __attribute__((preserve_access_index));

struct mm_struct___old {
	struct mm_rss_stat___old rss_stat;
} __attribute__((preserve_access_index));

/*
 * One rss counter of mm (MM_FILEPAGES 0, MM_ANONPAGES 1, MM_SHMEMPAGES 3), in
 * pages: the kernel's own approximation, as get_mm_counter() and
 * /proc/PID/stat read it. direct: mm is a BTF-typed pointer (an iterator's,
 * tp_btf's), read with plain loads; else through bpf_probe_read_kernel.
 */
static __always_inline __u64 sonde_rss_pages_how(struct mm_struct *mm, int which, int direct)
{
	long v;

	if (bpf_core_type_exists(struct mm_rss_stat___old)) {
		struct mm_struct___old *old = (void *)mm;

		v = BPF_CORE_READ(old, rss_stat.count[which].counter);
	} else if (direct) {
		v = mm->rss_stat[which].count;
	} else {
		/* percpu_counter.count without the per-CPU deltas, as get_mm_counter() reads it */
		v = BPF_CORE_READ(mm, rss_stat[which].count);
	}
	return v > 0 ? (__u64)v : 0;
}

#define sonde_rss_pages(mm, which) sonde_rss_pages_how(mm, which, 0)
#endif /* SONDE_NO_VMLINUX */

#endif
