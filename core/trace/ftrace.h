/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A tool's tracefs variant (ATTACH_TRACEFS), for hosts where bpf() is
 * refused or absent, or the kernel has no BTF: the approach of perf-tools
 * before BPF. The tool's events are enabled in a private tracefs instance
 * (instances/sonde-PID-START-TOOL), with in-kernel filters; a reader thread
 * streams the instance's trace_pipe, parses each line (util/parse_ftrace.c)
 * and hands it to the tool, which aggregates in sonde what its BPF programs
 * aggregate in the kernel, and writes the same data. The instance is
 * removed when the tool is read or destroyed; one left by a run that was
 * killed (kill -9) is removed by the next run (its PID dead, or reused).
 */
#ifndef SONDE_TRACE_FTRACE_H
#define SONDE_TRACE_FTRACE_H

#include <stdint.h>

#include "util/json.h"
#include "util/parse.h"

struct trace_run;
struct trace_opts;

struct ftrace_event_spec {
	const char *system, *event; /* events/SYSTEM/EVENT */
	const char *filter;         /* written to its filter file; NULL: none */
	int optional;               /* a kernel without this event still runs the tool */
};

struct ftrace_tool {
	struct ftrace_event_spec events[4]; /* ends at the first without a system */
	void *(*state_new)(void);           /* NULL with errno */
	/* One event line, in the reader thread; self: sonde's pid (its own events left out). */
	void (*line)(void *state, const struct ftrace_line *l, int self);
	/* After the window, the reader stopped: the members of "data", as the BPF variant writes. */
	int (*collect)(struct trace_run *t, void *state, struct json *j);
	void (*state_free)(void *state);
};

/* Can a tracefs instance be made here? 1, or 0 with why (and what the user can do). */
int ftrace__possible(char *why, size_t n);
/* Make the instance, enable the events, start the reader. 0 or -errno with why. */
int ftrace__start(struct trace_run *t, const struct trace_opts *o, char *why, size_t n);
/* Disable the events and stop the reader, keeping what it aggregated (a detach). */
void ftrace__stop(struct trace_run *t);
/*
 * Stop, then write the tool's data; t->c.runs gets the events read, t->c.drops
 * the lost, t->c.cost_ns and cost_how the cost: the events' records
 * (estimated) and the reader's CPU (measured).
 */
int ftrace__collect(struct trace_run *t, struct json *j);
/* The cost so far: the events' records (estimated) and the reader's CPU (measured). */
int64_t ftrace__cost_ns(const struct trace_run *t);
/* Remove the instance and free everything. */
void ftrace__destroy(struct trace_run *t);

#endif
