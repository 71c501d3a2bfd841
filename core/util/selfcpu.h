/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sonde's own CPU time, by part. Each thread that does one part's work (the
 * sampling rounds, the thread-state sampler, the profile's stack pollers, the
 * overhead guard) says so once, when it starts; the CPU time it uses from
 * then on counts to that part, also after it ended. What no part claims (the
 * main thread: loading the tools, the checks' parent) is the whole process's
 * CPU time less the parts'. The overhead guard and the report of the budget
 * read it (docs/bpf-tools.md, "Cost"): which part of sonde's cost was whose.
 */
#ifndef SONDE_SELFCPU_H
#define SONDE_SELFCPU_H

#include <stdint.h>

enum self_part {
	SELF_ROUNDS,  /* the sampling rounds ("sonde-round"): every collector, the task iterator pass */
	SELF_SAMPLER, /* the thread-state sampler of proc.threads ("sonde-states") */
	SELF_POLLERS, /* the profile's stack pollers ("sonde-stacks", "sonde-ustack") */
	SELF_GUARD,   /* the overhead guard ("sonde-guard") */
	SELF_PARTS,
};

/* The calling thread's CPU time counts to p from now until the thread ends. */
void self_cpu__enter(enum self_part p);
/* Each part's CPU time so far (ns), the threads that ended included. */
void self_cpu__read(int64_t ns[SELF_PARTS]);
/* The whole process's CPU time so far (ns): every thread, those that ended included. */
int64_t self_cpu__total(void);
/* "rounds", "sampler", "pollers", "guard": the JSON keys. */
const char *self_part__name(enum self_part p);
/* "sampling rounds", "thread-state sampler", ...: the report's words. */
const char *self_part__what(enum self_part p);

#endif
