/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the stack samplers (profile, offcputime) share in user space: the
 * poller that snapshots the maps of processes while they live, and the
 * writer that symbolizes counted stacks into folded stacks, bounded.
 */
#ifndef SONDE_STACKS_H
#define SONDE_STACKS_H

#include <stddef.h>
#include <stdint.h>

#include "util/json.h"
#include "perf/symbolize.h"
#include "perf/causes.h"

#define STACKS_TOP 2000      /* folded stacks kept; the rest summed as "[other]" */
#define STACKS_TOP_PROCS 50
#define STACKS_BROKEN_FIX "see unknown_causes: each cause of the broken stacks with its remedy " \
	"(frame pointers or unwind tables, a -dbgsym package, a runtime's perf-map flag)"

/* One counted key of a sampler's counts map. Stack ids < 0 are bpf_get_stackid's -errno. */
struct stack_sample {
	uint32_t tgid, pid;
	int32_t kstack, ustack;
	char comm[16];
	uint64_t value;
};

/*
 * The poller: a thread that reads the keys of a counts map (struct whose first
 * member is the u32 tgid) once per interval during the window and snapshots
 * /proc/PID/maps of every new process, so a process that exits before the
 * end of the window can still be symbolized. Reading maps is ~20 us per
 * process and happens once per process; the map walk is one syscall per key.
 */
struct stack_poller;
struct stack_poller *stack_poller__start(int counts_fd, size_t key_size, struct symbolizer *sym,
					 int interval_ms);
/* Stops and joins the thread (NULL is fine); the symbolizer is the caller's again. */
void stack_poller__stop(struct stack_poller *p);

/* Read every entry of the stack map into samples (value_at: offset of the u64 value in the value). */
int stacks__read_counts(int counts_fd, size_t key_size, size_t value_size, size_t value_at,
			struct stack_sample **out, size_t *n);

/*
 * Whether the frame-pointer user stack ustack (an id of the stack map) of
 * tgid is whole: at least 3 frames, the outermost a thread-start frame. Then
 * the sample's stack copy need not be unwound.
 */
int stacks__user_whole(struct symbolizer *sym, int stack_fd, int depth, uint32_t tgid,
		       int32_t ustack);

/*
 * The user stacks CFI unwinding found for some samples (the profile's copies,
 * core/perf/unwind.c), leaf first, each with its sample's counts key. A
 * sample whose frame-pointer stack is whole keeps it (the fast path); one
 * whose FP stack is broken takes its CFI stack when that one is whole or
 * deeper: one count moves from the key's FP row to a CFI row.
 */
struct cfi_stack {
	uint32_t tgid, pid;
	int32_t kstack, ustack;
	char comm[16];
	const uint64_t *ips;
	int n;
	const char *stop;     /* why the walk ended (unwind__stop_key) */
	uint64_t stop_pc;     /* where: its last frame, or the frame over the unwind budget */
};

struct stacks_cfi {
	const struct cfi_stack *v;
	size_t n;
	const char *status;   /* "" when CFI ran for the window, else why not or what limited it */
	/* out: what became of the CFI stacks */
	uint64_t used, fp_whole, not_better, unmatched;
	uint64_t over_budget;    /* no stack: the unwinding was over its budget (FP stack kept) */
	uint64_t lost_recovered; /* used where the stack map had lost the FP stack (a collision) */
};

/*
 * Symbolize the samples and write, as members of the open JSON object: frames,
 * unknown_frames, unknown_reasons, kernel_symbols, broken, processes, stacks
 * (top STACKS_TOP by value: { tgid, comm, <value_key>, folded }), other,
 * stacks_total, symbolize_ms; each stack says which unwinder produced it
 * ("unwinder": "fp" or "cfi"), why its user part stopped ("stop") and in
 * which file ("stop_at"); unknown_causes breaks the broken stacks and the
 * unknown frames down by cause with remedies (causes.h). cfi may be NULL
 * (offcputime: frame pointers only). folded (may be NULL) gets the same stacks in the
 * flame graph tools' format, "frame;frame;frame value" per line. value_div
 * divides values on output (1000: ns to us).
 */
int stacks__write(struct symbolizer *sym, int stack_fd, int depth, struct stack_sample *v,
		  size_t n, struct stacks_cfi *cfi, uint64_t value_div, const char *value_key, struct json *j,
		  struct strbuf *folded);

#endif
