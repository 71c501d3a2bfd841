/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The cost model of the BPF tools: what one program run costs on this host
 * (an empty program timed at start-up, in a few milliseconds, times the
 * tool's own factor measured by bench/tool-cost.sh) times how often its
 * programs would run (the event rates of collect/rates.h), as a share of the
 * host's CPU. A window admits its tools by that prediction, cheapest first,
 * within the budget (--max-overhead): a tool that fits runs the whole window,
 * one that fits for part of it runs that part (a duty cycle), one that does
 * not fit at all is not attached, and its capture says why and what the
 * checks read instead. docs/bpf-tools.md, "Cost".
 */
#ifndef SONDE_TRACE_COST_H
#define SONDE_TRACE_COST_H

#include <stddef.h>

#include "collect/rates.h"
#include "trace/trace.h"

/*
 * A duty cycle shorter than this sees too little: the tool is not attached.
 * A quarter of a second of every syscall or context switch is thousands of
 * events on a busy host, enough for the tables that ask for it.
 */
#define TRACE_MIN_TRACED_S 0.25
/*
 * A tool predicted under this share of the host's CPU (%) runs whatever is left
 * of the budget: rare events (an exec, an OOM kill) cost microseconds a second.
 */
#define TRACE_NEGLIGIBLE_PCT 0.01

/* What one empty program run costs here: measured once per process. */
struct trace_calibration {
	int done, measured;      /* measured: timed here, else the reference figure */
	double empty_ns;         /* one run of an empty raw_tp program on a syscall hook */
	double syscall_ns;       /* one getppid() without it, for scale */
	double ms;               /* what calibrating took */
	char why[256];           /* not measured: why */
};

/*
 * Time an empty raw_tp program on sys_enter and sys_exit against none, over
 * a few thousand getppid() calls (the fastest of several batches, so another
 * process taking the CPU does not count). Once per process; later calls
 * return the first result. Never fails: without BPF, or when the timing is
 * lost in noise, the reference figure (DESIGN: 100 ns) stands, and why says so.
 */
const struct trace_calibration *trace_cost__calibrate(void);

/* One program run of tool in attach mode a, in ns on this host. */
double trace_cost__run_ns(const struct trace_calibration *cal, const struct trace_tool *tool,
			  enum trace_attach a);

/* The counters (HEV_BIT mask) the prediction of tool needs. */
unsigned trace_cost__events(const struct trace_tool *tool);

/*
 * Predict tool's cost between two readings of the counters: its program runs
 * a second, their cost, the share of ncpu CPUs, and how in words (p->how).
 * filtered: its programs trace only the suspects whose syscalls a and b
 * counted apart (the others cost a filtered-out run each).
 */
void trace_cost__predict(const struct trace_tool *tool, enum trace_attach a,
			 const struct trace_calibration *cal, const struct host_events *ea,
			 const struct host_events *eb, int filtered, int ncpu,
			 struct trace_prediction *p);

/*
 * Share a budget (% of the host's CPU) among n predictions for a window of
 * window_s: cheapest first, each whole while it fits, then the first that does
 * not fit gets the rest as a duty cycle (when that traces at least
 * TRACE_MIN_TRACED_S), and the others none, but for those under
 * TRACE_NEGLIGIBLE_PCT, which always run. Sets each p->duty (1, a fraction, or
 * 0) and p->budget_pct.
 */
void trace_cost__allocate(struct trace_prediction *const *p, size_t n, double budget_pct,
			  double window_s);

/*
 * Before a window's tools start: read the counters their events need twice,
 * RATE_SPAN apart (calibrating meanwhile), predict each requested tool
 * (ts->outcome[].pred) and share o->budget_pct, less sonde's own o->self_pct,
 * among them. Nothing when o->budget_pct is 0 (--max-overhead 0).
 */
void trace_cost__plan(struct trace_set *ts, const struct trace_opts *o);
/* The prediction in a tool's JSON ("predicted", and "instead" when it does not run whole). */
void trace_cost__json(struct json *j, const struct trace_prediction *p, const char *instead);

/* The first attach variant this kernel can likely run for tool (for the prediction). */
enum trace_attach trace_cost__likely_attach(const struct trace_tool *tool);

#endif
