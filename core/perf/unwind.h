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

#include <elfutils/libdw.h>

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
	UNWIND_TOO_LARGE,      /* the file's unwind or debug sections claim more than sonde reads */
	/* over the budget (struct unwind_budget): no CFI stack, the sample keeps its FP stack */
	UNWIND_OVER_SAMPLE,    /* the next frame's rules would take the sample past its steps */
	UNWIND_OVER_PROCESS,   /* its process's samples had used their steps: not walked */
	UNWIND_OVER_RUN,       /* the run's samples had used their steps: not walked */
	UNWIND_OVER_TIME,      /* the run's unwinding had used its CPU time: not walked */
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

/*
 * The budget of the unwinding (issue 27). libdw caps the steps of each DWARF
 * expression (4,096) but not the evaluations one rule can nest: a register
 * rule whose loop evaluates a CFA expression whose own loop runs 4,000 steps
 * costs millions of steps, and a frame has 17 rules. A user's binary with
 * such legal tables made root's run unwind until its --timeout. So each frame
 * is priced before libdw unwinds it, from its rules (unwind__rule_steps: an
 * upper bound of the operations libdw will evaluate) plus UNWIND_FRAME_STEPS
 * for the lookup and the frame itself, and charged to the sample, its process
 * and the run. The run's CPU time is watched too, sample by sample (a
 * sample's steps bound what one can add): for what steps do not count,
 * reading and searching a file's tables. A sample that would go over, or
 * comes after its process or the run went over, is not unwound (or its walk
 * is dropped): it keeps its frame-pointer stack, and its stop says which
 * budget (UNWIND_OVER_*). A step is about 4 ns here (the
 * costly rules of tests/unit/test_unwind.c: 41 million steps in 160 ms), a
 * frame's own cost under a microsecond once its tables are read: a sample may
 * take about 1 ms, a process 2 s, the run 4 s of steps and 8 s of CPU, where
 * a sample of 20 frames takes 5,400 steps and the worst one of 127, 35,000.
 */
#define UNWIND_FRAME_STEPS 250ull
#define UNWIND_SAMPLE_STEPS 250000ull
#define UNWIND_PROCESS_STEPS 500000000ull
#define UNWIND_RUN_STEPS 1000000000ull
#define UNWIND_RUN_NS 8000000000ll

struct unwind_budget {
	uint64_t sample_max, process_max, run_max;  /* steps */
	int64_t run_ns_max;                         /* CPU time from the first sample */
	uint64_t sample, process, run;              /* steps spent */
	int64_t t0_ns;                              /* the first sample's start, 0 before */
};

void unwind_budget__init(struct unwind_budget *b);
/*
 * Before a sample (pure, so it is tested alone): UNWIND_STOP_NR when it may
 * be walked, else the budget already used (process, run, time). new_process
 * starts the process's count again; now_ns is the unwinding thread's CPU
 * time (CLOCK_THREAD_CPUTIME_ID).
 */
enum unwind_stop unwind_budget__admit(struct unwind_budget *b, int new_process, int64_t now_ns);
/*
 * Charge one frame's steps before it is unwound: UNWIND_STOP_NR and charged
 * when every budget holds, else the one it would break (nothing charged; a
 * process or the run is then used up, its later samples are not walked).
 */
enum unwind_stop unwind_budget__charge(struct unwind_budget *b, uint64_t steps);

/*
 * The steps libdw may evaluate for one rule of ops (elfutils' expr_eval):
 * each operation once, a DW_OP_call_frame_cfa the CFA expression's
 * cfa_steps more; with a backward DW_OP_skip or DW_OP_bra (a loop) up to
 * libdw's 4,096 steps, each of which may be such a call.
 */
uint64_t unwind__rule_steps(const Dwarf_Op *ops, size_t nops, uint64_t cfa_steps);

struct unwinder;
struct unwinder *unwinder__new(struct symbolizer *sym);
void unwinder__free(struct unwinder *u);
/* The unwinder's budget: its limits may be changed before the first sample (tests). */
struct unwind_budget *unwinder__budget(struct unwinder *u);

/*
 * Unwind one copied stack into ips (leaf first, return addresses as found),
 * at most max; returns the number of frames (0 when none) and *stop, and
 * (stop_pc, may be NULL) the pc where it stopped: the last frame's, or the
 * one whose rules were over the budget. Samples of one process should come
 * one after the other: the process's modules are reported once and kept
 * until another process is asked for, and its budget counts them together.
 */
int unwinder__unwind(struct unwinder *u, const struct ustack_rec *r, uint64_t *ips, int max,
		     enum unwind_stop *stop, uint64_t *stop_pc);

/*
 * Unwind every copy of a store, the samples of one process together, each
 * copy freed as soon as it is unwound (the raw stacks never outlive this
 * call). out->v[i] are the CFI stacks (ips owned by out), stops counts why
 * the walks ended (the budget's UNWIND_OVER_* included: those samples have no
 * CFI stack); wall_ms and cpu_ms what it cost this thread.
 */
struct unwind_run {
	struct cfi_stack *v;
	size_t n;
	uint64_t *ips;              /* every stack's frames, one allocation */
	uint64_t stops[UNWIND_STOP_NR];
	uint64_t frames, skipped;   /* skipped: need() said the copy was not needed */
	uint64_t files_too_large;   /* files not handed to libdw (UNWIND_TOO_LARGE), per process */
	struct unwind_budget budget; /* its limits, and the steps the run spent */
	double wall_ms, cpu_ms;
};
/* need (may be NULL: all) says whether a copy is worth unwinding (its FP stack is broken). */
int unwind__store(struct symbolizer *sym, struct ustack_store *st, int depth,
		  int (*need)(const struct ustack_rec *r, void *arg), void *arg,
		  struct unwind_run *out);
void unwind_run__free(struct unwind_run *r);

#endif
