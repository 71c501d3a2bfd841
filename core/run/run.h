/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The run as stages, shared by `sonde run` (a live window) and `sonde analyze`
 * (a bundle's captures): plan (what to run, what to collect), observe (the
 * window), analyze (the checks), drill-down (the second window), finish (the
 * reports, the bundle, the summary). core/run/README.md says which file is
 * which stage.
 */
#ifndef SONDE_RUN_H
#define SONDE_RUN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "collect/collect.h"
#include "lua/catalog.h"
#include "report/report.h"
#include "util/strv.h"

/* The exit statuses of every command. */
#define EXIT_RUN_FAILED 1
#define EXIT_USAGE 2
#define EXIT_FAIL_ON 3
#define EXIT_UPLOAD_FAILED 4 /* the bundle is written, but --upload could not send it */

struct redactor;

/* --color: colour the terminal summary on a terminal (and without NO_COLOR), always, or never. */
enum color_mode { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER };

/*
 * The options of run and analyze. The commands' option tables (core/cmd/)
 * set these fields by offset; the rest are set by the command.
 */
struct run_opts {
	const char *cmd;        /* "run" or "analyze": usage errors name it */
	double window_s, interval_s;
	const char *out_dir;
	const char *checks_dir;
	const char *root;
	int json;
	int normal_priority;    /* --priority normal: do not lower sonde's CPU and I/O priority */
	int redact;
	int no_bpf;             /* --no-bpf: no BPF tool is loaded; their cells are known unknowns */
	double max_overhead_pct; /* the overhead guard's budget, % of the host's CPU; 0: off */
	double timeout_s;       /* --timeout: the run's deadline; 0 until defaulted */
	int64_t start_ns;       /* CLOCK_MONOTONIC when the command started: --timeout counts from it */
	int no_drilldown;       /* --no-drilldown */
	double drill_window_s;  /* the second window: half the first, at least 2 s */
	int live;               /* `run`: the host is here (drill-down can observe) */
	const char *methodology; /* --methodology: only this one's checks */
	const char *focus_container; /* --container NAME|ID: the workload the report narrows to */
	const char *focus_pod;   /* --pod NAMESPACE/NAME */
	int no_perf;            /* --no-perf: no perf_event counter is opened (perf.counters) */
	int fail_on;            /* an enum status: ST_OK (never), ST_WARN or ST_CRIT */
	int color;              /* enum color_mode */
	int keep;               /* --keep N: bundles of --out kept after this run's; 0: all */
	struct strv only_checks, tags, sets;
	const char *metrics_path; /* --metrics FILE: the results for Prometheus, replaced atomically */
	int metrics_host;       /* --metrics-host: also what node_exporter publishes itself */
	const char *case_id;    /* --case-id: in the bundle's name and manifest */
	const char *upload_url; /* --upload URL (or the URL read from --upload @FILE) */
	char *upload_url_owned; /* what --upload @FILE read */
	int upload_post;        /* --upload-method post */
	const char *upload_cacert;
	const char *upload_token_file; /* --upload-token-file: a bearer token, its first line */
	char *upload_token;     /* the token (that file's, or $SONDE_UPLOAD_TOKEN), or NULL */
	double upload_backoff_s; /* the first wait between upload attempts */
	double upload_timeout_s; /* --upload-timeout: the whole upload's deadline; 0: the default */
	int progress;           /* -1 auto */
	int progress_shown;
	char *command_line;
};

/* The defaults of both commands, before their options are parsed. */
void run_opts__init(struct run_opts *o, const char *cmd);
void run_opts__free(struct run_opts *o);

/* ---- plan.c: usage errors, the catalog, the selection, the collectors, --out ---- */

/*
 * The one printer of usage errors (exit 2): "sonde: MESSAGE (see 'sonde CMD
 * --help')", the hint left out when the message already points somewhere.
 * The command-line layer uses it too.
 */
void run__die_usage(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
void run__die_oom(void) __attribute__((noreturn));

struct run_plan {
	struct catalog cat;
	const struct check_def **sel; /* the checks this run executes, in catalog (run) order */
	size_t nsel;
	struct strv names;            /* the collectors they need, each once, NULL-terminated */
};

/* --out DIR: an existing, writable directory, else a usage error. */
void run_plan__check_out_dir(const char *cmd, const char *dir);
/* The catalog (with --checks) and --set applied to it; exits 2 on an error. */
void run_plan__load_catalog(const struct run_opts *o, struct catalog *cat);
/* The catalog, the checks selected and the collectors they need; exits 2 on a usage error. */
void run_plan__make(struct run_plan *p, const struct run_opts *o);
void run_plan__free(struct run_plan *p);
/* The collectors defs ask for, each once, NULL-terminated (window_opts.names). 0 or -ENOMEM. */
int run_plan__collectors(const struct check_def *const *defs, size_t n, struct strv *names);
/*
 * sonde run's staging directory in out_dir (.sonde-run-PID-XXXXXX, with raw/),
 * after removing what killed runs left there. 0 or -1 with the message printed.
 */
int run_plan__stage(const char *out_dir, char *stage, size_t len, char *raw, size_t rawlen);

/* ---- observe.c: the window ---- */

/*
 * Before the first window: Ctrl-C/TERM ends the window, the priority is
 * lowered (unless --priority normal), the --timeout deadline is armed (after
 * the window it exits, naming stage, where the captures are kept).
 */
void run_observe__arm(const struct run_opts *o, const char *stage);
/* From now on a signal ends the window (the drill-down window: stop_requested cleared). */
void run_observe__stop_ends_window(void);
/* Why the last window ended early: STOP_SIGNAL, STOP_DEADLINE (collect/collect.h), or 0. */
int run_observe__stopped(void);
/* From now on a signal exits at once (after a window: the checks and the bundle are quick). */
void run_observe__stop_aborts(void);
/*
 * The bundle is written and the verdict said (exit code code): should the
 * --timeout deadline pass from now on (removing the stage behind a saturated
 * disk takes long), it exits with that code and says the bundle is written.
 */
void run_observe__bundle_done(const struct run_opts *o, const char *stage, const char *bundle,
			      int code);
/*
 * The suspects of a drill-down window: the culprits of the findings that
 * fired its rules, which the tools that can filter (syscount, the lock tools,
 * offcputime) trace alone, filtered in the kernel.
 */
#define RUN_MAX_SUSPECTS 8
struct run_suspects {
	int pids[RUN_MAX_SUSPECTS];
	size_t n;
	struct strv tools; /* bpf tool names, filtered to pids; NULL-terminated */
};

/*
 * One observation window into raw (the first, or the drill-down one): the BPF
 * tools and perf counters names asks for start just before it, admitted by
 * their predicted cost within --max-overhead (the tools sus names trace only
 * its pids; sus may be NULL), and are read just after; the overhead guard
 * watches it, a hung read ends it. Its stages (setup, window, collect) are
 * marked in cost when not NULL. 0, or non-zero with the message in err.
 */
int run_observe__window(const struct run_opts *o, const char *const *names, const char *raw,
			double window_s, double interval_s, int progress,
			const struct run_suspects *sus, struct window_result *wr,
			struct run_cost *cost, char *err, size_t errlen);
/* ---- guard.c: the budget of a window and the overhead guard ---- */

struct trace_opts;
struct trace_set;
struct trace_tasks;

/*
 * Before a window's tools are admitted: sonde's own share of the host's CPU
 * for this window (names: its collectors), predicted from the last window's
 * when it sampled the processes as this one does, else calibrated now (one
 * pass of the task iterator tasks, timed; NULL: not predicted), and the
 * thread-state sampler's and stack pollers' shares, into to->self_pct (the
 * budget's first share) and to->self_from. Nothing when budget_pct is 0 or
 * no BPF tool is asked for.
 */
void run_guard__reserve(const char *const *names, double window_s, double interval_s,
			double budget_pct, struct trace_tasks *tasks, struct trace_opts *to);
/*
 * The window begins: the baseline of sonde's own CPU and of each tool's, and
 * with enforce (a budget) and a tool attached, the overhead guard's thread
 * ("sonde-guard"), which every 0.1 s ends the duty cycles due and detaches
 * the tools over what they were admitted for (trace_cost__guard).
 */
void run_guard__start(struct trace_set *ts, double budget_pct, double window_s, int enforce);
/* window_opts.facts: the budget's lines of the run facts (docs/capture-format.md). */
void run_guard__facts(void *arg, struct strbuf *out);
/*
 * The window ended (wr; NULL after a failure): the guard stops; what sonde's
 * own parts used is kept for the next window's reserve. sonde's own CPU over
 * the window, in seconds (0 when the guard was not started, or again).
 */
double run_guard__stop(const struct window_result *wr);

/*
 * --redact: the captures in stage are redacted before anything reads them;
 * o->command_line becomes its redacted copy. The redactor, or NULL with the
 * message printed.
 */
struct redactor *run_observe__redact(struct run_opts *o, const char *stage);

/* ---- history.c: across runs ---- */

/*
 * When a selected check declares the "history" collector: the newest earlier
 * bundles of this host in o->out_dir, their levels (the served checks' metrics)
 * into raw/history.cap with what was used and skipped and why. Never fails
 * the run: without them the trends use this window alone.
 */
void run_history__gather(const struct run_opts *o, const struct run_plan *p, const char *raw);

/* ---- analyze.c, drilldown.c: the checks ---- */

/* What the checks found, and where it went. */
struct run_outcome {
	struct run_report rr;
	struct report_model *report; /* built once from rr by finish.c (report__build) */
	struct analysis drill_an;
	int drill_open;
	struct check_result *res;
	char bundle[4096];
	char map[4200]; /* the redaction map next to the bundle (--redact) */
};

/*
 * The selected checks over an, ranked; then the drill-down (drilldown.c);
 * the cost of both, and the window's (wr, NULL for analyze), into oc->rr.
 */
/*
 * The end of a stage of the run (struct run_cost's stages): its wall and CPU
 * time since the last mark. The first mark (no earlier one) only starts the
 * clock. c may be NULL (a stage inside the drill-down, counted as a whole).
 */
void run_cost__mark(struct run_cost *c, const char *stage);

void run_analyze__checks(struct run_opts *o, const struct run_plan *p, struct analysis *an,
			 const struct window_result *wr, struct redactor *red,
			 struct run_outcome *oc);
/*
 * sonde analyze: a new staging directory (in out_dir, or /tmp) holding a copy
 * of an's captures, byte for byte. 0 or -1 with the message printed.
 */
int run_analyze__stage(const struct analysis *an, const char *out_dir, char *stage, size_t len);
/*
 * sonde analyze: the bundle carries the findings of the checks that ran then;
 * with today's checks they may differ. Say how, or that they are the same.
 */
void run_analyze__compare(const char *recorded_dir, const char *stage);
void run_outcome__free(struct run_outcome *oc);

/*
 * After the first checks: the rules of methodologies/drilldown.lua that fired
 * name deeper checks; `run` observes a second, shorter window for them
 * (raw/drilldown), `analyze` replays the one a bundle recorded. Their results
 * join the others; the report says what fired and why.
 */
void run_drilldown__run(struct run_opts *o, const struct catalog *cat, struct run_outcome *oc,
			struct redactor *red);

/* ---- finish.c: reports, bundle, summary ---- */

/*
 * The reports into stage, the manifest, the bundle (into o->out_dir when set)
 * and with red (--redact) the redaction map; then the summary or the JSON and
 * the --fail-on verdict. On a failure to write, stage is kept when it holds
 * this run's only copy of the captures (keep_on_error), else removed; with
 * recorded_dir (analyze) the findings are compared with those it recorded.
 * stage is removed and oc freed. The exit status.
 */
int run_finish__reports(struct run_opts *o, struct run_outcome *oc, const char *stage,
			int keep_on_error, struct redactor *red, const char *recorded_dir);
/*
 * Copy a member of an opened bundle (or a stage) to stdout; host text goes to
 * a terminal sanitized. 0, or EXIT_USAGE / EXIT_RUN_FAILED with the message printed.
 */
int run_finish__print_member(const char *dir, const char *member);
/*
 * --fail-on: EXIT_FAIL_ON when worst reached it, saying so on stderr with
 * what (the finding that did, one line), else 0.
 */
int run_finish__fail_on(int fail_on, enum status worst, const char *what);
/* --color: whether the terminal summary is coloured (auto: stdout a terminal, no NO_COLOR). */
int run__color(int mode);

#endif
