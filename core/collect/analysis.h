/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the checks see: the capture streams of one window (from this run or
 * from a bundle), plus the facts derived once from them in C (host, run,
 * per-process summaries). Nothing here touches the live host.
 */
#ifndef SONDE_ANALYSIS_H
#define SONDE_ANALYSIS_H

#include <stdint.h>

#include "collect/capture.h"
#include "util/pidmap.h"
#include "util/selfcpu.h"
#include "util/strv.h"

struct task_summary {
	int pid, ppid;
	uint64_t starttime;       /* ticks after boot: with pid, the identity of a process */
	char comm[64];
	char *cmdline;            /* NUL-separated argv joined with spaces; may be NULL */
	char state;               /* last seen */
	int64_t uid;              /* -1 unknown */
	int kernel_thread;        /* no cmdline and a child of kthreadd (pid 2) or pid 2 itself */
	int started, exited;      /* appeared / vanished during the window */
	int self;                 /* sonde itself, the observer */
	double first_t, last_t;   /* seconds after the window start */
	uint64_t utime, stime;    /* ticks during the window */
	uint64_t minflt, majflt;  /* during the window */
	uint64_t blkio_ticks;     /* during the window */
	uint64_t threads, rss_bytes;
	int64_t anon_bytes, swap_bytes; /* RssAnon, VmSwap at the last status read; -1 unknown */
	int processor;
	int has_io;               /* /proc/PID/io readable at both ends */
	int io_denied;            /* a read of /proc/PID/io refused (EACCES, EPERM) */
	uint64_t read_bytes, write_bytes, rchar, wchar, syscr, syscw;
	int has_ctxt;             /* voluntary/involuntary split: both ends of status */
	uint64_t vol_ctxt, nonvol_ctxt;
	int has_sched;            /* /proc/PID/schedstat at both ends (the main thread) */
	uint64_t run_ns, wait_ns, slices;
	int64_t fds;              /* -1 unknown */
	uint64_t nofile_soft, nofile_hard; /* 0 unknown, UINT64_MAX unlimited */
};

/*
 * Who stopped a tool early ("stopped" in raw/bpf/<tool>.json, findings.json
 * tools[].stopped; docs/bpf-tools.md "The guard"): the overhead guard, with
 * whose cost it was then, or its duty cycle's planned end. Shares of the
 * host's CPU (%): the tools' over the guard's last period, sonde's own over
 * the last second, by part (util/selfcpu.h). The trace layer fills it, the
 * analysis reads it back, both through these.
 */
#define TOOL_STOP_TOOLS 24 /* every tool of a window (trace.c checks it holds the table) */
enum tool_stop_by { TOOL_STOP_NONE, TOOL_STOP_GUARD, TOOL_STOP_DUTY };

struct tool_stop {
	enum tool_stop_by by;
	double at_s;                /* into the window */
	double budget_pct;          /* --max-overhead */
	double capacity_pct;        /* the budget and the duty cycles' planned bursts */
	double spend_pct;           /* sonde's own up to its reserve, and every tool */
	double pct, admitted_pct;   /* this tool, and what it was admitted for */
	double own_pct;             /* sonde's own CPU over the last second, all of it */
	double own_reserved_pct;    /* what the admission set aside for it */
	double own_part_pct[SELF_PARTS]; /* of own_pct: the sampling rounds, the sampler, ... */
	double own_rest_pct;        /* of own_pct: no part's (the main thread) */
	size_t ntools;
	struct tool_stop_tool {
		char name[32];
		double pct, admitted_pct;
	} tools[TOOL_STOP_TOOLS];   /* every tool attached then, this one included */
};

struct json;
/* "stopped": { ... } when s says the tool was stopped early; nothing otherwise. */
void tool_stop__json(struct json *j, const struct tool_stop *s);
/* sonde's own parts: "<part>_pct" each (util/selfcpu.h), then "rest_pct". */
void self_parts__json(struct json *j, const double part[SELF_PARTS], double rest);

/* One BPF tool of the window (raw/bpf/<tool>.json), for the report's appendix. */
struct tool_summary {
	char name[32], status[16], attach[16];
	char reason[512];          /* why it did not run ("" when it did) */
	char stopped[1024];        /* why it was detached before the end of the window, or "" */
	struct tool_stop stop;     /* and who stopped it, whose cost it was */
	uint64_t runs, drops;
	double cpu_ns;             /* its own cost; cost_source says how it was obtained */
	char cost_source[16];
	double setup_ms, teardown_ms, traced_from_s, traced_to_s;
	/* the cost model's prediction, when a budget admitted the tools (has_pred) */
	int has_pred, has_load;
	double predicted_pct, duty, budget_pct;
	double predicted_load_pct; /* more CPU time for the work it traces (has_load: recorded) */
	char instead[256];         /* what the checks read instead, when it did not run whole */
	char filtered_to[96];      /* "123, 456": the pids it traced alone, or "" */
	uint64_t self_signals;     /* killsnoop: signals sonde sent or was sent, left out */
};

/*
 * The thread states of the window (proc.threads, analysis_threads.c): per
 * process, its threads' time on a CPU, waiting for one, and off CPU by what
 * they waited in. Strings point into thread_states.strings ("" for none).
 */
struct thread_wait {
	char state;                /* S D T t ... as captured; '?' for time no sample named */
	int iowait, pollfd;        /* in iowait; the object is the first fd of a poll(2) */
	const char *syscall, *object, *kstack;
	uint64_t futex_addr;       /* a futex wait: its address, command, and val == 2 */
	const char *futex_cmd;     /* "WAIT", "WAIT_BITSET", "LOCK_PI", ...; NULL: not a futex */
	int futex_val2;            /* FUTEX_WAIT expecting 2: a contended glibc lock */
	uint32_t ident;            /* the wait's identity: equal in every process that waits so */
	double s, parked_s;        /* thread-seconds; of them, in intervals it never woke */
	double wakes;              /* voluntary switches of its threads while in it */
	uint32_t threads, samples;
};

struct thread_proc {
	int pid;
	uint32_t threads;          /* seen in the window */
	double oncpu_s, runq_s, offcpu_s, observed_s; /* thread-seconds */
	double sampled_s;          /* off-CPU time split by the sampler's samples */
	double unsampled_s;        /* off-CPU time no sample named */
	double wakes;              /* voluntary switches */
	uint32_t d_count;          /* its threads in D, summed over the rounds */
	double d_mean;
	uint64_t passes, run_sum;  /* the sampler's passes; its threads on a CPU, summed */
	uint32_t run_max;          /* most of its threads on a CPU at once in a pass */
	struct thread_wait *waits; /* most time first */
	size_t nwaits, wcap;
	uint32_t group;            /* quiet (below): its group + 1; 0 an active process */
};

/*
 * Quiet processes: every thread asleep in the same waits the whole span, never
 * woken, never on a CPU (most of a host with ten thousand processes). One
 * group per set of waits: what the checks judge once, not per process.
 */
struct thread_group {
	size_t rep;                /* a member, in procs: its waits and threads are the group's */
	int *pids;
	size_t npids;
};

#define THREAD_STATES_ROUNDS 512

struct thread_states {
	struct thread_proc *procs; /* most off-CPU time first */
	size_t nprocs, procs_cap;
	uint32_t rounds;
	uint64_t d_sum, r_sum;     /* threads in D, in R, summed over the rounds */
	double d_mean, r_mean;
	double span_s;             /* from the first round to the last: the time the states cover */
	double d_series[THREAD_STATES_ROUNDS], r_series[THREAD_STATES_ROUNDS];
	double t_series[THREAD_STATES_ROUNDS];
	int listed;                /* some rounds read only some processes (/proc) */
	struct thread_group *groups;
	size_t ngroups, nactive;   /* procs[0, nactive) are active, the rest quiet */
	uint64_t sampler_passes, sampler_cpu_ns, sampler_lost;
	char **strings;
	size_t nstrings, strings_cap;
};

/*
 * The containers and Kubernetes pods of the window (analysis_containers.c): the kept cgroups
 * of proc.cgroups decoded by their paths (util/cgpath.h), named from sonde:containers.
 */
struct container {
	char id[128];             /* 64-hex id, or a runc id, machine or LXC name */
	char runtime[16];         /* "" when neither its path nor the runtimes' state said */
	char *name, *image, *k8s_container, *kind, *why, *machine_class; /* NULL: unknown */
	char *pod_name, *pod_namespace, *pod_uid_fact; /* its annotations' */
	char **state_cgroups;     /* the cgroup directories its runtime's state gives */
	size_t nstate_cgroups;
	int pod;                  /* index in pods, -1 */
	int pid;                  /* its init process (runtime state), 0 unknown */
	int facts;                /* sonde:containers had a line of it */
	uint32_t npids;           /* processes its cgroups listed */
};

struct container_pod {
	char uid[40], qos[12];
	char *name, *namespace, *why;
};

/* A kept cgroup that is a container's (or one below it), its monitor's, or a pod's. */
struct container_cgroup {
	char *rel;                /* path relative to its hierarchy (v1's hierarchies share it) */
	int container, pod;       /* indices, -1 none */
	int monitor;              /* the runtime's monitor beside the container (conmon) */
};

struct container_set {
	struct container *c;
	size_t n;
	struct container_pod *pods;
	size_t npods;
	struct container_cgroup *cg;
	size_t ncg;
	struct pidmap by_pid;     /* pid -> its deepest container or pod cgroup */
	int has_record;           /* sonde:containers was captured (names were looked for) */
};

/* Where sonde ran (its observer_* run facts, analysis_observer.c). */
struct observer {
	int known;                /* the run facts said (a live run by a sonde that writes them) */
	char pid_ns[8], cgroup_ns[8]; /* "host", "own", "unknown" */
	char container[24];       /* how a container showed ("docker", "kubernetes", ...) or "none" */
	int has_caps;
	uint64_t cap_eff;         /* its effective capabilities */
};

struct jval;

/*
 * The budget of a window (the run facts the run layer adds, run/guard.c):
 * what sonde reserved for its own sampling before the tools were admitted,
 * and what it used, by part (shares of the host's CPU, %).
 */
struct run_budget {
	int has;                   /* a budget admitted the window's tools */
	double budget_pct;         /* --max-overhead */
	double reserved_pct, reserved_part_pct[SELF_PARTS];
	char reserved_how[600];
	int has_self;              /* sonde's own use was measured by part */
	double self_pct, self_part_pct[SELF_PARTS], self_rest_pct;
	double self_max_pct, self_max_at_s; /* its costliest second, and when it ended */
};

struct analysis {
	struct capture_set cs;
	char raw_dir[4096];
	/* the run (raw/sonde.cap, record "sonde:run") */
	char version[32];
	double window_s, interval_s, elapsed_s;
	int64_t start_wall_ns, end_wall_ns, start_mono_ns, end_mono_ns;
	uint32_t samples;
	int partial;
	int drilldown;            /* the drill-down window's captures (raw/drilldown) */
	char stop_reason[400];
	long clk_tck, page_size;
	int sonde_pid;            /* the observer itself: left out of rankings */
	int euid;                 /* sonde's effective uid, -1 unknown */
	struct run_budget budget; /* its own share and the tools' budget */
	char proc_hidepid[32];    /* /proc's hidepid= mount option, "" when absent */
	/* the host (raw/host.cap) */
	char hostname[256], kernel[256], virt[128];
	char boot_id[40];         /* /proc/sys/kernel/random/boot_id, "" when not captured */
	char host_id[33];         /* sonde:host-id (util/hostid.h), "" when not captured or unknown */
	int cpus;
	uint64_t mem_total, threads_max, pid_max, nr_open;
	double uptime_start;
	/* per-process summaries, built on first use */
	struct task_summary *tasks;
	size_t ntasks;
	int tasks_built;
	/* BPF tools: raw/bpf/<tool>.json, parsed on first use */
	struct bpf_doc {
		char name[32];
		struct jval *doc;      /* NULL: could not be read, see why */
		char why[512];
	} *bpf;
	size_t nbpf;
	int bpf_loaded;
	struct tool_summary *tools;
	size_t ntools;
	/* what the JSON documents hold, charged to the captures' memory limit (cs.lim) */
	uint64_t docs_held;
	/* thread states: proc.threads, built on first use */
	struct thread_states *threads;
	int threads_built;
	char threads_why[256];
	/* containers and pods (proc.cgroups), built on first use */
	struct container_set *containers;
	int containers_built;
	const char *focus_container, *focus_pod; /* --container, --pod: the workload, or NULL */
	/* per-process levels (analysis_levels.c), built on first use */
	struct pidmap levels;
	int levels_built, levels_err, levels_fds;
	/* perf counters: raw/perf/counters.json, parsed on first use */
	struct jval *perf_doc;
	char perf_why[512];
	int perf_loaded;
};

/*
 * analysis_levels.c: per-process levels for the runout trends, built once:
 * every round's RSS, threads, fds and anonymous memory of each process.
 */
struct task_level {
	uint32_t seq;
	double t;
	uint64_t rss, threads;
	int64_t fds;  /* -1: not counted that round */
	int64_t anon; /* anonymous resident bytes; -1: not known that round */
};

struct task_levels {
	int pid;     /* 0: empty slot */
	uint64_t starttime;
	const char *last_data; /* the payload of its last sonde:task record (a repeat shares it) */
	struct task_level *v;
	size_t n, cap;
};

/*
 * Open raw_dir's streams and derive the facts (from sonde, host, proc.stat and
 * proc.meminfo: the other streams are read when first asked for), within the
 * default capture limits. Returns 0 or -errno with errbuf.
 */
int analysis__open(struct analysis *an, const char *raw_dir, char *errbuf, size_t errlen);
/* The same within lim (NULL: capture_default_limits). */
int analysis__open_limited(struct analysis *an, const char *raw_dir,
			   const struct capture_limits *lim, char *errbuf, size_t errlen);
/*
 * Load the stream of collector now (a no-op when loaded, absent or refused):
 * before forking a check's process, so that checks share one copy instead of
 * each reading and parsing its own.
 */
void analysis__preload(struct analysis *an, const char *collector);
void analysis__close(struct analysis *an);
/* Seconds after the window start of a record (inline: every file of collect reads it). */
static inline double analysis__t(const struct analysis *an, const struct capture_rec *r)
{
	return (double)(r->mono_ns - an->start_mono_ns) / 1e9;
}
/* Build (once) and return the per-process summaries; -ENOENT when proc.pids was not collected. */
int analysis__tasks(struct analysis *an, const struct task_summary **out, size_t *n);

/*
 * Build (once) and return the thread states: 0, -ENOENT when proc.threads
 * was not collected, or -errno with why (a malformed or refused stream).
 */
int analysis__threads(struct analysis *an, const struct thread_states **out, char *why,
		      size_t whylen);

/*
 * Build (once) the per-process levels of proc.pids: a pidmap of struct
 * task_levels, *fds_counted when the rounds counted fds. 0, -ENOENT when
 * proc.pids was not collected, -ENOMEM.
 */
int analysis__levels(struct analysis *an, const struct pidmap **out, int *fds_counted);
/* Its RSS, threads, fd count or anonymous memory moved between rounds. */
int task_levels__moved(const struct task_levels *pl);
void analysis__levels_free(struct analysis *an);

/* Build (once) and return the containers: 0, or -ENOENT when proc.cgroups was not collected. */
int analysis__containers(struct analysis *an, const struct container_set **out);
/* The container or pod cgroup pid was listed in (its deepest), or NULL. */
const struct container_cgroup *container_set__of_pid(const struct container_set *s, int pid);
/* The container or pod cgroup of path rel (relative to its hierarchy), or NULL. */
const struct container_cgroup *container_set__of_cgroup(const struct container_set *s,
						       const char *rel);
/* The workload of g as its owners name it ("pod shop/web-1, container nginx"); "" for NULL. */
void container_set__label(const struct container_set *s, const struct container_cgroup *g,
			  char *buf, size_t len);
/* g is (below) the workload --container NAME|ID or --pod NS/NAME|UID names. */
int container_set__in_focus(const struct container_set *s, const struct container_cgroup *g,
			    const char *container, const char *pod);
/* Up to max pids of that workload into pids; how many (0: it matches nothing here). */
size_t container_set__focus_pids(const struct container_set *s, const char *container,
				 const char *pod, int *pids, size_t max);
void container_set__free(struct container_set *s);

/* Where sonde ran: 0, or -ENOENT when the captures do not say (an earlier sonde, a made-up root). */
int analysis__observer(struct analysis *an, struct observer *o);
/* "in a container, host PID namespace, own cgroup namespace (docker); capabilities: ..." */
void observer__where(const struct observer *o, char *buf, size_t len);
/* What sonde could not see from where it ran, a sentence each, into out: 0 or -ENOMEM. */
int observer__limits(struct analysis *an, const struct observer *o, struct strv *out);
/* analysis_threads.c: the thread states of one proc.threads stream. */
int thread_states__build(const struct analysis *an, const struct capture_stream *st,
			 struct thread_states **out, char *why, size_t whylen);
void thread_states__free(struct thread_states *ts);

/*
 * Read every BPF tool's document of the window (raw/bpf/TOOL.json) now, once:
 * analysis__preload does, before the checks fork, so they share them.
 */
void analysis__load_bpf_docs(struct analysis *an);
/*
 * The document of BPF tool name (raw/bpf/<name>.json), or NULL with the
 * reason in why: not collected in this window, unreadable, or malformed.
 */
const struct jval *analysis__bpf(struct analysis *an, const char *name, char *why, size_t whylen);
/*
 * The document of the perf counters (raw/perf/counters.json, status "ok"), or
 * NULL with the reason in why: not collected, disabled, failed, malformed.
 */
const struct jval *analysis__perf_counters(struct analysis *an, char *why, size_t whylen);
/* Every BPF tool file of the window, summarized (in name order). */
int analysis__tools(struct analysis *an, const struct tool_summary **out, size_t *n);

#endif
