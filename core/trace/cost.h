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
 * A duty cycle traces TRACE_MIN_EVENTS of the tool's events at least (what a
 * table of syscalls or a latency histogram needs), and never less than
 * TRACE_MIN_TRACED_FLOOR_S; TRACE_MIN_TRACED_S is always enough (a quarter of
 * a second of every syscall or context switch is thousands of events on a
 * busy host), and what a tool whose events no counter counts needs. Shorter:
 * the tool is not attached.
 */
#define TRACE_MIN_EVENTS 5000
#define TRACE_MIN_TRACED_FLOOR_S 0.05
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
 * a second, their cost, the share of ncpu CPUs (p->pct), what that adds to
 * the CPU time of the work that pays it (p->load_pct: over the host's busy
 * CPUs, and a suspect's runs over its own CPU time), and how in words
 * (p->how). filtered: its programs trace only the suspects whose syscalls a
 * and b counted apart (the others cost a filtered-out run each).
 */
void trace_cost__predict(const struct trace_tool *tool, enum trace_attach a,
			 const struct trace_calibration *cal, const struct host_events *ea,
			 const struct host_events *eb, int filtered, int ncpu,
			 struct trace_prediction *p);

/*
 * Share a budget (%) among n predictions for a window of window_s, by what
 * each adds to the work it traces (p->load_pct): cheapest first, each whole
 * while it fits, then the first that does not fit gets the rest as a duty
 * cycle (when that traces long enough, min_traced_s in cost.c), and the
 * others none, but for those under TRACE_NEGLIGIBLE_PCT of the host, which
 * always run. Sets each p->duty (1, a fraction, or 0) and p->budget_pct.
 */
void trace_cost__allocate(struct trace_prediction *const *p, size_t n, double budget_pct,
			  double window_s);

/*
 * Before a window's tools start: read the counters their events need twice,
 * RATE_SPAN apart (calibrating meanwhile), predict each requested tool
 * (ts->outcome[].pred; from the last window's rates, o->prior, where those
 * are higher) and share o->budget_pct, less sonde's own o->self_pct, among
 * them. Nothing when o->budget_pct is 0 (--max-overhead 0).
 */
void trace_cost__plan(struct trace_set *ts, const struct trace_opts *o);
/* The prediction in a tool's JSON ("predicted", and "instead" when it does not run whole). */
void trace_cost__json(struct json *j, const struct trace_prediction *p, const char *instead);

/*
 * The overhead guard's judgment of one period (docs/bpf-tools.md, "The
 * guard"), in shares of the host's CPU (%). sonde's own CPU counts up to what
 * the admission reserved for it (own_reserved_pct): beyond that it is sonde's
 * own overrun, which the report shows and no tool is charged with. Each tool
 * is judged by its own cost against what it was admitted for: its prediction
 * with TRACE_GUARD_MARGIN (a rate read over 0.1 s moves), the burst of a duty
 * cycle, which the capacity holds while it traces. When the spend is over the
 * capacity, the tools over their admission go, most over first, each over by
 * a tenth of the overrun at least (one a few microseconds over cannot bring
 * the spend back: cutting it would lose its evidence for nothing), until the
 * spend fits. A tool within its admission is never cut.
 */
#define TRACE_GUARD_MARGIN 1.5

struct trace_guard {
	double budget_pct;       /* --max-overhead */
	double own_pct;          /* sonde's own CPU over the last second */
	double own_reserved_pct; /* what the admission set aside for it */
	size_t n;
	struct trace_guard_tool {
		double pct;          /* its cost over the last period; < 0: not attached */
		double admitted_pct; /* its prediction x TRACE_GUARD_MARGIN */
		int burst;           /* a duty cycle still tracing: its admission is planned */
		int cut;             /* out: detach it now */
	} tool[TRACE_MAX_TOOLS];
	double spend_pct, capacity_pct; /* out: before the cuts */
};

/* Judge one period: sets tool[].cut, spend_pct and capacity_pct; returns the tools cut. */
size_t trace_cost__guard(struct trace_guard *g);

/* The first attach variant this kernel can likely run for tool (for the prediction). */
enum trace_attach trace_cost__likely_attach(const struct trace_tool *tool);

#endif
