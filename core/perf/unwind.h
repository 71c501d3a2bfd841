/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CFI unwinding of copied user stacks (issue 14), with libdw (elfutils):
 * the registers and stack bytes of one sample (core/perf/ustack.h), the
 * process's maps snapshot (core/perf/symbolize.h) for where each file is
 * loaded, and the files' .eh_frame / .debug_frame tables (or their debug
 * files by build-id). Run after the window; x86_64 only (the registers the
 * BPF program copies are x86_64's).
 */
#ifndef SONDE_UNWIND_H
#define SONDE_UNWIND_H

#include <stdint.h>

#include "perf/stacks.h"
#include "perf/symbolize.h"
#include "perf/ustack.h"

/* Why a CFI walk ended ("where" is the last frame's file, see stacks.c). */
enum unwind_stop {
	UNWIND_END,            /* the tables say this is the outermost frame (_start, clone3) */
	UNWIND_DEPTH,          /* the frame limit was reached */
	UNWIND_STACK_END,      /* the next frame is above the copied bytes: a deeper stack than the copy */
	UNWIND_NO_MODULE,      /* a return address in no mapped file: JIT or interpreter code */
	UNWIND_NO_CFI,         /* the file has no .eh_frame nor .debug_frame for the address */
	UNWIND_BAD_FRAME,      /* the tables led to an impossible frame (a corrupt stack, a bad table) */
	UNWIND_PROC_GONE,      /* the process's maps were never read: it exited first */
	UNWIND_UNREADABLE,     /* no file of the process could be read */
	UNWIND_UNSUPPORTED,    /* not x86_64 */
	UNWIND_STOP_NR,
};

const char *unwind__stop_key(enum unwind_stop s); /* "end", "stack_end", ... (JSON) */

/*
 * The classification of a walk that ended, a pure function so it is tested
 * alone: rc of dwfl_getthread_frames (0 done, -1 failed), frames collected,
 * the limit, whether the last pc is in a reported module, whether that module
 * has CFI, and whether a memory read fell above the copied stack (which wins
 * over rc 0: libdw ends a walk quietly when it cannot read a return address).
 */
enum unwind_stop unwind__classify(int rc, int nframes, int max, int last_in_module,
				  int module_has_cfi, int read_above_copy);

struct unwinder;
struct unwinder *unwinder__new(struct symbolizer *sym);
void unwinder__free(struct unwinder *u);

/*
 * Unwind one copied stack into ips (leaf first, return addresses as found),
 * at most max; returns the number of frames (0 when none) and *stop. Samples
 * of one process should come one after the other: the process's modules are
 * reported once and kept until another process is asked for.
 */
int unwinder__unwind(struct unwinder *u, const struct ustack_rec *r, uint64_t *ips, int max,
		     enum unwind_stop *stop);

/*
 * Unwind every copy of a store, the samples of one process together, each
 * copy freed as soon as it is unwound (the raw stacks never outlive this
 * call). out->v[i] are the CFI stacks (ips owned by out), stops counts why
 * the walks ended; wall_ms and cpu_ms what it cost this thread.
 */
struct unwind_run {
	struct cfi_stack *v;
	size_t n;
	uint64_t *ips;              /* every stack's frames, one allocation */
	uint64_t stops[UNWIND_STOP_NR];
	uint64_t frames, skipped;   /* skipped: need() said the copy was not needed */
	double wall_ms, cpu_ms;
};
/* need (may be NULL: all) says whether a copy is worth unwinding (its FP stack is broken). */
int unwind__store(struct symbolizer *sym, struct ustack_store *st, int depth,
		  int (*need)(const struct ustack_rec *r, void *arg), void *arg,
		  struct unwind_run *out);
void unwind_run__free(struct unwind_run *r);

#endif
