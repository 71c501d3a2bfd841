/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * BPF tracing tools: bpf/<tool>.bpf.c (kernel side, aggregating in maps) +
 * core/trace/<tool>.c (this interface), one line each in the table
 * core/trace/tools.h. The core starts every tool a selected
 * check asks for ("bpf.<tool>" in its collect list) just before the
 * observation window, reads the kernel's aggregates once at its end, and
 * writes raw/bpf/<tool>.json (docs/bpf-tools.md): the data, or why there is
 * none. Links are fd-owned only (no pinning, no tracefs writes), so every
 * probe dies with sonde, even on SIGKILL.
 */
#ifndef SONDE_TRACE_H
#define SONDE_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "collect/analysis.h"
#include "collect/collect.h"
#include "collect/rates.h"
#include "util/json.h"

struct bpf_object;
struct trace_tool;
struct bpf_link;

/*
 * How a tool's programs attach. A tool offers variants of the same program,
 * told apart by the suffix of the program's name ("handle_switch_btf",
 * "handle_switch_raw", ...); programs without a suffix load in every variant.
 */
enum trace_attach {
	ATTACH_TP_BTF,     /* _btf: BTF-typed raw tracepoint, cheapest to run and to detach */
	ATTACH_RAW_TP,     /* _raw: raw tracepoint (kernels without BPF trampolines) */
	ATTACH_TRACEPOINT, /* _tp: classic tracepoint (needs tracefs for the event id) */
	ATTACH_FENTRY,     /* _fentry: BPF trampoline on a kernel function */
	ATTACH_KPROBE,     /* _kprobe: kprobe through the perf PMU (never kprobe_events) */
	ATTACH_PERF_EVENT, /* attached by the tool itself to perf_event fds (sampling) */
	ATTACH_TRACEFS,    /* no BPF: the tool's events in a tracefs instance, read by sonde (ftrace.h) */
	ATTACH_NR,
};

const char *trace_attach__name(enum trace_attach a); /* "tp_btf", "raw_tp", ... */

/* Per-tool counters every BPF program keeps (bpf/sonde.bpf.h). */
enum { TRACE_STAT_RUNS, TRACE_STAT_DROPS, TRACE_STAT_NR };

/*
 * What runs a tool's programs, for its predicted cost (trace/cost.h): an event
 * the kernel counts, and how many program runs each one makes.
 */
struct trace_hook {
	enum host_event ev;
	double runs;             /* per event (sys_enter + sys_exit: 2); 0 ends the list */
};

/* A tool's predicted cost before it is attached, and the share of the window it got. */
struct trace_prediction {
	int done;                /* predicted (a budget was set) */
	double runs_per_s;       /* program runs a second expected now */
	double run_ns;           /* one run, on this host (calibrated) */
	double pct;              /* of the host's CPU */
	/*
	 * What it adds to the CPU time of the work it traces (%): its runs over the
	 * CPU time of the processes they land on, the busy CPUs of the host for
	 * events of every process, a suspect's own for the suspects' runs (the one
	 * that pays most). A single-threaded server pays a syscall tool's whole cost
	 * on its one thread: a share of the host understates its slowdown by the
	 * host's CPUs. The budget admits tools by this.
	 */
	double load_pct;
	double events_per_s;     /* events it records a second (the suspects' when filtered); -1 unknown */
	double duty;             /* share of the window it traces: 1, a part, or 0 (not attached) */
	double budget_pct;       /* what was left of the budget when its turn came */
	int uncounted;           /* some of its events no counter counts: the guard watches them */
	char how[768];           /* the events, their rates and counters, in words */
};

/* Suspects of a drill-down: the tools named trace only these processes (in the kernel). */
#define TRACE_MAX_TGIDS 8

struct trace_opts {
	int self_pid;      /* sonde itself, for tools that leave it out */
	double window_s;
	const char *root;  /* where the event counters are read ("" the live host) */
	double budget_pct; /* --max-overhead: how much more CPU time the work may need, %; 0 all */
	double self_pct;   /* sonde's own sampling, % of the host's CPU: the budget's first share */
	const char *self_from; /* where that figure comes from, in words ("the last window's") */
	int tgids[TRACE_MAX_TGIDS];
	size_t ntgids;
	const char *const *filtered; /* the tools (names) filtered to tgids; NULL-terminated */
	/*
	 * The counters at the last window's start and end (NULL: no window before
	 * this one): a longer look at the rates than the 0.1 s before this window,
	 * which can fall in a lull of the work (trace/cost.c takes the higher).
	 */
	const struct host_events *prior[2];
};


/* One started tool. */
struct ftrace_tool;
struct ftrace_run;

struct trace_run {
	const struct trace_tool *tool;
	void *skel;                 /* the tool's skeleton */
	struct bpf_object *obj;
	enum trace_attach attach;
	struct bpf_link *links[16];
	int nlinks;
	void *priv;                 /* the tool's own state (perf fds, ...) */
	int64_t attached_mono_ns;
	int64_t iv_t0_mono_ns;      /* per-interval histograms count from here: the window's start */
	int64_t stop_at_mono_ns;    /* a duty cycle: detached then (0: at the end of the window) */
	double setup_ms;
	double run_ns;              /* one program run's cost here, for trace_run__cost_ns */
	int stats_fd;               /* its sonde_stats map, read by the guard ten times a second (-1: none) */
	int filtered;               /* traces only the suspects (trace_opts.tgids) */
	/* filled when the tool is read: at the end of the window, or early (overhead guard) */
	struct trace_collected {
		int done;
		struct strbuf data;     /* the members of "data", serialized */
		int64_t collected_mono_ns;
		uint64_t runs, drops, run_ns, run_cnt;
		double teardown_ms;
		char err[512];          /* collect failed: why */
		char stopped[1024];     /* detached before the end of the window: why */
		struct tool_stop stop;  /* who stopped it, and whose cost it was then */
		int64_t cost_ns;        /* a tracefs run's cost, from ftrace__collect ... */
		char cost_how[400];     /* ... and how it was had ("" for a BPF run) */
	} c;
	int64_t detached_mono_ns;   /* links gone before the window's end (0: still attached) */
	double detach_ms;           /* what detaching the links took */
	const char *raw_dir;        /* the window's raw/ (NULL in a probe): trace_run__write_raw */
	struct ftrace_run *ft;      /* ATTACH_TRACEFS: the instance and its reader (no skel, no obj) */
};

struct trace_tool {
	const char *name;        /* the bcc name: "runqlat"; collector "bpf.runqlat" */
	const char *what;        /* for `sonde list`: "run-queue latency histogram" */
	/* Variants in order of preference; ATTACH_NR ends the list. */
	enum trace_attach attach[ATTACH_NR + 1];
	/* Open the skeleton (not loaded): returns it and its object, or NULL with errno. */
	void *(*open)(struct bpf_object **obj);
	/* Set the const volatile knobs before load. 0 or -errno. */
	int (*configure)(void *skel, const struct trace_opts *o);
	/*
	 * Attach what the generic attach cannot (perf_event programs); NULL when
	 * bpf_program__attach() on every loaded program is enough. 0 or -errno.
	 */
	int (*attach_custom)(struct trace_run *t, const struct trace_opts *o, char *why,
			     size_t whylen);
	/*
	 * After the window: write the kernel's aggregates as members of the open
	 * "data" object. The programs are still attached. 0 or -errno.
	 */
	int (*collect)(struct trace_run *t, struct json *j);
	void (*destroy)(void *skel);
	void (*release)(struct trace_run *t); /* frees priv (perf fds); may be NULL */
	/* Stop what attach_custom attached, keeping the maps (perf fds disabled); may be NULL. */
	void (*detach)(struct trace_run *t);
	/* Its cost (trace/cost.h, docs/bpf-tools.md "Cost"): */
	struct trace_hook hooks[4];   /* the counted events that run its programs */
	double runs_per_cpu_s;        /* runs a second per CPU whatever the load (a timer) */
	const char *uncounted;        /* events it hooks that no kernel counter counts, or NULL */
	double run_cost;              /* one run, in counting-program runs (bench/tool-cost.sh) */
	int hot;                      /* hooks a hot path: started in a drill-down window only */
	int filters;                  /* honours trace_opts.tgids, in the kernel */
	const char *instead;          /* the evidence the checks read when it is not attached */
	int btf_free;                 /* also loads without kernel BTF (a build without CO-RE) */
	/* Its tracefs variant (ATTACH_TRACEFS last in attach[]), for hosts without BPF; or NULL. */
	const struct ftrace_tool *ftrace;
};

/* Every tool of the table (core/trace/tools.h), in its order, then NULL. */
extern const struct trace_tool *const trace_tools[];
/* The tool of a collector name "bpf.runqlat" or of a bare name; NULL if none. */
const struct trace_tool *trace_tool__find(const char *name);
/*
 * The profile's stack-copy ring for ncpus CPUs sampled at hz: half a second of
 * their copies, a power of two from 256 KiB to 16 MiB (its pages count twice in
 * sonde's RSS). For docs/scale.md's figures too (bench/cpus.sh).
 */
uint32_t trace_profile__ring_bytes(long ncpus, int hz);

/*
 * Can BPF tools run here at all (privilege, kernel BTF, program types)?
 * 0, or -errno with the reason in words (and what the user can do).
 */
int trace__probe(char *why, size_t whylen);
/* The same without kernel BTF: may this process load BPF programs at all? */
int trace__probe_bpf(char *why, size_t whylen);
/* Has the kernel BTF (/sys/kernel/btf/vmlinux holds BTF), which CO-RE programs need? */
int trace__kernel_btf(char *why, size_t whylen);
/*
 * trace__probe for one collector ("bpf.profile"): a tool that also loads
 * without kernel BTF (btf_free) does not need it.
 */
int trace__probe_collector(const char *name, char *why, size_t whylen);
/*
 * Can this tool run here: loads it (without attaching) in the first variant
 * the kernel accepts. 0 with the variant in *attach, or -errno with why.
 */
int trace_tool__probe(const struct trace_tool *tool, enum trace_attach *attach, char *why,
		      size_t whylen);

/*
 * How many tools one window can run: every tool of the table, once. Counted
 * from the table, so a tool added there always has its place in the arrays
 * sized by it (trace_set, the overhead guard's costs); trace.c checks at
 * compile time that trace_tools[] has exactly this many tools.
 */
enum {
#define TRACE_TOOL(tool) TRACE_TOOL_##tool,
#include "trace/tools.h"
#undef TRACE_TOOL
	TRACE_MAX_TOOLS
};

/* Every tool of one window. */
struct trace_set {
	struct trace_run runs[TRACE_MAX_TOOLS];
	size_t nruns;
	char raw_dir[4096];
	/* per requested tool: the outcome so far, kept for the JSON */
	struct trace_outcome {
		const struct trace_tool *tool;
		int started;
		int over_budget;        /* not attached: its predicted cost did not fit */
		char reason[512];       /* why it did not start ("" when it did) */
		char attempts[1024];    /* "tp_btf: ...; raw_tp: ..." for variants refused */
		struct trace_prediction pred;
	} outcome[TRACE_MAX_TOOLS];
	double budget_pct;          /* the budget the tools were admitted by (0: none) */
	double self_pct;            /* of it, sonde's own sampling, expected */
	char self_from[96];         /* where that figure comes from (trace_opts.self_from) */
	int tgids[TRACE_MAX_TGIDS]; /* the suspects of the filtered tools */
	size_t ntgids;
	size_t nout;
	const char *disabled;       /* non-NULL: BPF off, this is why (--no-bpf) */
	int no_bpf;                 /* bpf() refused or no BTF: tools run through tracefs, or not */
};

/* Room for every tool of the table, were they all asked for: none is ever dropped. */
#define TRACE_SET_ROOM(member) (sizeof(((struct trace_set *)0)->member) / \
				sizeof(((struct trace_set *)0)->member[0]))
_Static_assert(TRACE_SET_ROOM(runs) >= TRACE_MAX_TOOLS &&
		       TRACE_SET_ROOM(outcome) >= TRACE_MAX_TOOLS,
	       "a window holds every tool of the table");

/* How many of names are BPF tools. */
int trace_set__wanted(const char *const *names);
/*
 * Start the tools named in names (collector names; others are ignored) and
 * make raw_dir/bpf. A tool that cannot start is recorded with the reason and
 * the others go on. Returns the number started; -errno only when raw_dir/bpf
 * cannot be made.
 */
int trace_set__start(struct trace_set *ts, const char *const *names, const char *raw_dir,
		     const struct trace_opts *o, const char *disabled, char *err, size_t errlen);
/*
 * CPU time the tool's programs used so far (ns): the kernel's count when
 * kernel.bpf_stats_enabled is on, else program runs x the measured per-run
 * cost of its attach mode. -1 when the run is no longer attached.
 */
int64_t trace_run__cost_ns(const struct trace_run *t);
/*
 * Detach the tool's programs now (what they gathered stays in its maps, read
 * at the end of the window); the JSON says it stopped early, why, and who
 * stopped it with whose cost (stop: the overhead guard, a duty cycle). tp_btf
 * and raw_tp links go in well under a millisecond. No-op when already
 * detached or read.
 */
void trace_run__detach(struct trace_run *t, const char *why, const struct tool_stop *stop);
/* Is the tool still attached? */
int trace_run__attached(const struct trace_run *t);
/*
 * After the window: collect every tool, detach, and write raw/bpf/<tool>.json
 * for each requested one (also those that did not start). 0 or -errno with err
 * (a write error; the other files are still written).
 */
int trace_set__finish(struct trace_set *ts, int64_t window_start_mono_ns,
		      int64_t window_end_mono_ns, char *err, size_t errlen);
/* Detach everything without writing (an abort). */
void trace_set__destroy(struct trace_set *ts);

/* The tools' map readers, JSON helpers and trace_run__write_raw are in trace/maps.h. */

/*
 * The task iterator (bpf/tasks.bpf.c, core/trace/tasks.c): not a tool of the
 * window but every process of the host in one pass of the kernel's task list,
 * for the pids collector (a struct task_source the run layer hands to the
 * window). Each thread's record is folded into its process as /proc does:
 * CPU time, faults and I/O summed over the threads (those that exited
 * included), the rest from the main thread.
 */
struct trace_tasks;

/*
 * Load and attach the iterator. 0 with *out, or -errno with why (no BPF
 * here, a kernel without iter/task, ...): the collector reads /proc then.
 */
int trace_tasks__open(struct trace_tasks **out, char *why, size_t whylen);
/* One pass of the iterator, kept until the next. 0, or -errno with why. */
int trace_tasks__read(struct trace_tasks *t, char *why, size_t whylen);
/* visit(ctx, sample) for each process of the last pass; the first non-zero return stops. */
int trace_tasks__each(struct trace_tasks *t, task_visit_fn visit, void *ctx);
/* The task_source for window_opts.tasks, valid while t is open. */
void trace_tasks__source(struct trace_tasks *t, struct task_source *src);
void trace_tasks__close(struct trace_tasks *t);

#endif
