// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * profile: on-CPU stack sampling. One perf_event per online CPU (software
 * cpu-clock, so it works in VM guests without a PMU) runs this program at a
 * fixed frequency; it counts the sample under (tgid, pid, comm, kernel stack
 * id, user stack id). Stacks go to a STACK_TRACE map, deduplicated by the
 * kernel, so a hot loop costs one map entry however many samples it gets.
 *
 * Every sample is also counted by second of the window and offset in the
 * second, per CPU, with how many of them were busy (neither idle nor sonde),
 * and the busy ones per process: the subsecond-offset heat map. Busy is a
 * share of the samples of its cell, as 49 Hz puts 2 or 3 samples in a 50 ms
 * row, the same rows every second.
 *
 * Without BPF_F_REUSE_STACKID a stack that collides with another in the
 * stack map is not stored (-EEXIST) instead of silently overwriting a stack
 * other keys already point to: such samples keep their count with a lost
 * stack, and are counted.
 *
 * Built twice (Makefile): as profile.bpf.o against vmlinux.h (CO-RE: CFI
 * stack copies, kernel threads told apart), and with PROFILE_NO_BTF as
 * profile_nobtf.bpf.o against the UAPI headers only, which a kernel without
 * BTF loads (Linux 4.9+): no CFI copies there, and a user stack that cannot
 * be walked is not told apart from a kernel thread's. Both have the same
 * maps, programs and read-only data, so user space drives either.
 */
#ifdef PROFILE_NO_BTF
#define SONDE_NO_VMLINUX
#include <linux/types.h>
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#else
#include "vmlinux.h"
#endif
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#define SONDE_INTERVALS
#include "sonde.bpf.h"
#include "profile.h"

#define EFAULT 14
#define PF_KTHREAD 0x00200000

const volatile __u32 targ_self_tgid = 0; /* sonde: its own samples are left out */
const volatile __u32 targ_subsec_s = 1;  /* seconds per column of the subsecond map */
/* CFI: set before load when the kernel has what cfi_sample needs (else the verifier drops it) */
const volatile __u32 targ_cfi = 0;

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, PROFILE_MAX_STACKS);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, PROFILE_STACK_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PROFILE_MAX_KEYS);
	__type(key, struct profile_key);
	__type(value, __u64);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PROFILE_STAT_NR);
	__type(key, __u32);
	__type(value, __u64);
} pstats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, PROFILE_USTACK_RING);
} ustacks SEC(".maps");

/* CFI at run time: [0] != 0 copies; user space sets it after attach, clears it when its store is full */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} cfi_ctl SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PROFILE_CFI_STAT_NR);
	__type(key, __u32);
	__type(value, __u64);
} cfistats SEC(".maps");

#ifndef PROFILE_NO_BTF
static __always_inline void cfi_count(__u32 which)
{
	__u64 *v = bpf_map_lookup_elem(&cfistats, &which);

	if (v)
		(*v)++;
}
#endif

#if defined(__TARGET_ARCH_x86) && !defined(PROFILE_NO_BTF)
/* pt_regs to DWARF register order (x86_64 psABI: rax rdx rcx rbx rsi rdi rbp rsp r8-r15, rip 16) */
#define DWARF_REGS(r, R)                                                                   \
	do {                                                                               \
		r[0] = R(ax); r[1] = R(dx); r[2] = R(cx); r[3] = R(bx); r[4] = R(si);      \
		r[5] = R(di); r[6] = R(bp); r[7] = R(sp); r[8] = R(r8); r[9] = R(r9);      \
		r[10] = R(r10); r[11] = R(r11); r[12] = R(r12); r[13] = R(r13);            \
		r[14] = R(r14); r[15] = R(r15); r[16] = R(ip);                             \
	} while (0)
#define CTX_REG(f) (ctx->regs.f)
#define TASK_REG(f) BPF_CORE_READ(u, f)

/*
 * The user registers and stack of the current thread. In user mode they are
 * the interrupted registers; in kernel mode (a syscall, a fault), the user
 * registers the kernel saved on entry (bpf_task_pt_regs). The stack is copied
 * page by page from sp up, stopping at the first page that cannot be read
 * (the top of the stack mapping): at most PROFILE_USTACK_BYTES.
 */
static __always_inline void cfi_sample(struct bpf_perf_event_data *ctx, struct profile_key *key)
{
	struct profile_ustack *r;
	struct pt_regs *u;
	__u32 first, got, zero = 0, *on;
	__u64 sp;

	on = bpf_map_lookup_elem(&cfi_ctl, &zero);
	if (!on || !*on)
		return;
	/* a kernel thread has no user stack: not worth a reservation */
	if (BPF_CORE_READ(bpf_get_current_task_btf(), flags) & PF_KTHREAD)
		return;
	r = bpf_ringbuf_reserve(&ustacks, sizeof(*r), 0);
	if (!r) {
		cfi_count(PROFILE_CFI_RING_FULL);
		return;
	}
	__builtin_memcpy(&r->key, key, sizeof(*key));
	r->flags = 0;
	if (ctx->regs.csx & 3) {
		DWARF_REGS(r->regs, CTX_REG);
	} else {
		u = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
		if (!u || !(BPF_CORE_READ(u, csx) & 3)) {
			cfi_count(PROFILE_CFI_NO_REGS);
			bpf_ringbuf_discard(r, BPF_RB_NO_WAKEUP);
			return;
		}
		DWARF_REGS(r->regs, TASK_REG);
		r->flags |= PROFILE_USTACK_IN_KERNEL;
	}
	sp = r->regs[7];
	first = 4096 - (__u32)(sp & 4095);
	if (first > 4096 || bpf_probe_read_user(r->data, first, (void *)sp)) {
		cfi_count(PROFILE_CFI_FAULT);
		bpf_ringbuf_discard(r, BPF_RB_NO_WAKEUP);
		return;
	}
	got = first;
	/* first <= 4096: the second page fits (PROFILE_USTACK_BYTES is two pages) */
	if (!bpf_probe_read_user(r->data + first, 4096, (void *)(sp + first)))
		got += 4096;
	r->size = got;
	cfi_count(PROFILE_CFI_COPIED);
	/* no wakeup: the reader drains on its own clock, a wakeup per sample costs more */
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
}
#else
static __always_inline void cfi_sample(struct bpf_perf_event_data *ctx, struct profile_key *key)
{
}
#endif

static __always_inline void pcount(__u32 which)
{
	__u64 *v = bpf_map_lookup_elem(&pstats, &which);

	if (v)
		(*v)++;
}

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PROFILE_SUBSEC_COLS * PROFILE_SUBSEC_ROWS);
	__type(key, __u32);
	__type(value, struct profile_subsec);
} subsec SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PROFILE_SUBSEC_PROC_CELLS);
	__type(key, struct profile_subsec_key);
	__type(value, __u64);
} subsec_procs SEC(".maps");

/*
 * The cell of now: its column (second of the window) and row (offset in the
 * second) from the window's start (sonde_iv_t0_ns); -1 before the window.
 */
static __always_inline __s64 subsec_cell(void)
{
	__u64 t0 = *(volatile __u64 *)&sonde_iv_t0_ns, now = bpf_ktime_get_ns(), el, col;

	if (!t0 || now < t0 || !targ_subsec_s)
		return -1;
	el = now - t0;
	col = el / ((__u64)targ_subsec_s * 1000000000ull);
	if (col >= PROFILE_SUBSEC_COLS)
		col = PROFILE_SUBSEC_COLS - 1;
	return (__s64)(col * PROFILE_SUBSEC_ROWS +
		       el % 1000000000ull / (1000000000ull / PROFILE_SUBSEC_ROWS));
}

/* Every sample into its cell (busy: not idle, not sonde), and a busy one under its process. */
static __always_inline void count_subsec(__s64 cell, __u32 tgid, int busy)
{
	struct profile_subsec_key k = { .tgid = tgid, .cell = (__u32)cell };
	struct profile_subsec *c;
	__u64 one = 1, *v;

	if (cell < 0)
		return;
	c = bpf_map_lookup_elem(&subsec, &k.cell);
	if (c) {
		c->samples++; /* per CPU */
		c->busy += busy;
	}
	if (!busy)
		return;
	v = bpf_map_lookup_elem(&subsec_procs, &k);
	if (v) {
		__sync_fetch_and_add(v, 1);
		return;
	}
	if (!bpf_map_update_elem(&subsec_procs, &k, &one, BPF_NOEXIST))
		return;
	/* another CPU made it first (or the map is full) */
	v = bpf_map_lookup_elem(&subsec_procs, &k);
	if (v)
		__sync_fetch_and_add(v, 1);
	else
		pcount(PROFILE_SUBSEC_DROPPED);
}

SEC("perf_event")
int do_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), zero = 0, *v;
	struct profile_key key = {};

	sonde_count(SONDE_STAT_RUNS);
	pcount(PROFILE_SAMPLES);
	key.tgid = id >> 32;
	key.pid = (__u32)id;
	count_subsec(subsec_cell(), key.tgid, key.pid && key.tgid != targ_self_tgid);
	if (!key.pid) {
		pcount(PROFILE_IDLE);
		return 0;
	}
	if (key.tgid == targ_self_tgid)
		return 0;
	bpf_get_current_comm(key.comm, sizeof(key.comm));
	key.kstack = bpf_get_stackid(ctx, &stacks, 0);
	key.ustack = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);
	/* -EFAULT for the kernel stack is a sample taken in user mode: nothing to walk. */
	if (key.kstack < 0 && key.kstack != -EFAULT)
		pcount(PROFILE_KSTACK_LOST);
	if (key.ustack < 0) {
		if (key.ustack != -EFAULT)
			pcount(PROFILE_USTACK_LOST);
#ifndef PROFILE_NO_BTF
		else if (!(BPF_CORE_READ((struct task_struct *)bpf_get_current_task(), flags) &
			   PF_KTHREAD))
			pcount(PROFILE_USTACK_FAULT);
#endif
	}
	if (targ_cfi)
		cfi_sample(ctx, &key);
	v = bpf_map_lookup_elem(&counts, &key);
	if (!v) {
		bpf_map_update_elem(&counts, &key, &zero, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&counts, &key);
		if (!v) {
			pcount(PROFILE_KEYS_DROPPED);
			sonde_count(SONDE_STAT_DROPS);
			return 0;
		}
	}
	__sync_fetch_and_add(v, 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
