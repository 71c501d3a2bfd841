/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a check produces: its status, metrics, known unknowns, culprits and
 * evidence (tables, series, notes, flame graphs). The Lua host fills one per
 * check (ctx_report.c) in a worker process and sends it back over a socket
 * in the wire form below; the report layer reads them.
 */
#ifndef SONDE_RESULT_H
#define SONDE_RESULT_H

#include <stddef.h>
#include <stdint.h>

#include "perf/fold.h"
#include "util/strbuf.h"
#include "util/strv.h"

enum status { ST_OK, ST_WARN, ST_CRIT, ST_UNKNOWN, ST_SKIP, ST_ERROR };
const char *status__name(enum status st);
/* How bad, for the matrix and ranking: crit > warn > error > unknown > ok > skip. */
int status__rank(enum status st);
/* The status a word names, as status__name writes it; -1 for NULL and any other word ("n/a"). */
int status__parse(const char *name);
/*
 * A severity read back from a findings.json (a finding's severity, a check's
 * status, the run's worst): "ok" 0, "warn" 1, "crit" 2, the values of ST_OK,
 * ST_WARN and ST_CRIT, so that a larger one is worse. -1 for NULL and every
 * other word ("unknown", "error", "skip", "n/a", anything a crafted file
 * holds): not a severity, below ok.
 */
int status__severity(const char *name);

struct metric {
	char *name, *instance, *unit;
	/*
	 * How the window's samples or events became this one value (agg: see
	 * metric__agg_ok), the node_exporter family that publishes the same
	 * quantity when there is one, and what it counts when the name alone
	 * would mislead; each NULL when the check does not say.
	 */
	char *agg, *node_exporter, *help;
	double value;
	int has_warn, has_crit, lower_is_worse;
	double warn, crit;
	enum status st;
	int has_range;     /* the spread of the per-interval values behind it */
	double range_lo, range_hi;
};

struct unknown_metric {
	char *name, *reason;
};

/* The metric does not apply (to one instance, or to the whole cell): a veth has no line rate. */
struct na_metric {
	char *name, *instance, *reason; /* instance NULL: the check's whole cell */
};

/* The container a culprit runs in, as the captures name it (collect/analysis_containers.c). */
struct culprit_container {
	char *label;     /* "pod shop/web-1, container nginx", "docker web", "runc sonde-hog" */
	char *id, *runtime, *name, *image, *k8s_container, *pod_namespace, *pod_name; /* NULL: unknown */
};

struct culprit {
	int pid;
	char *comm, *cmdline;
	double share;
	int kernel_thread; /* a kernel thread: its CPU time serves others (I/O, interrupts) */
	struct culprit_container *container; /* NULL: not in a container, or not known */
};

/*
 * EV_BARS: a stacked bar a row (ctx:bars): columns are the label's header then
 * the categories, rows[r] the label then each share as text (a table where
 * bars cannot be drawn), values nrows x categories.
 */
enum evidence_kind { EV_TABLE, EV_SERIES, EV_NOTE, EV_FLAMEGRAPH, EV_HEATMAP, EV_BARS };

/*
 * The span a BPF tool behind an evidence traced (ctx:table{ traced = info }, info the
 * tool's: ctx.bpf): seconds from its window's start, and that window's length. A tool
 * detached early (a duty cycle, the overhead guard) or one of the drill-down window
 * covers part of what the report is about, and the report says so beside the evidence.
 */
struct evidence_span {
	int set;
	int drilldown; /* traced in the drill-down window, after the first */
	double from_s, to_s, window_s;
};

struct evidence {
	enum evidence_kind kind;
	char *title, *unit;
	struct strv columns;
	char ***rows; /* nrows x columns.n strings */
	size_t nrows;
	double *values; /* series; heatmap: the counts, column (interval) after column */
	size_t nvalues;
	double step_s;  /* series: seconds between values; heatmap: the interval */
	size_t hm_rows; /* heatmap: rows (log2 slots, or offsets in the second) per column */
	double hm_row_ms; /* heatmap: 0 a latency map (log2 rows in unit); else offsets, ms a row */
	uint32_t code_cols; /* table: a bit per column whose cells are symbols, shown as code */
	struct folded_stacks fg; /* flamegraph (perf/fold.h) */
	struct evidence_span span;
};

struct check_result {
	const struct check_def *def;
	enum status st;
	struct metric *metrics;
	size_t nmetrics;
	struct unknown_metric *unknowns;
	size_t nunknowns;
	struct na_metric *nas;
	size_t nnas;
	struct culprit *culprits;
	size_t nculprits;
	struct evidence *evidence;
	size_t nevidence;
	struct strv next;
	char *summary;
	char *error, *traceback;
	double elapsed_ms;
	double cpu_ms;   /* the check's own CPU time (its thread: user and system) */
	size_t mem_peak;
	uint64_t instructions;
	double score; /* how far past its threshold the worst metric is (ranking) */
};

/*
 * Name the container of each culprit of results[0, n) from the captures of an (its
 * proc.cgroups): one place for every check, whatever the check declared.
 */
struct analysis;
void check_results__name_containers(struct analysis *an, struct check_result *results, size_t n);
void check_result__free(struct check_result *r);

/*
 * A metric's aggregation over its window: "mean", "min", "peak" (the largest
 * sample or event), "last" (at the window's end), "total" (events counted in
 * the window), "fit" (from a trend fitted over the window and earlier
 * audits: a time to exhaustion), or a percentile of the window's events,
 * "p10" to "p99", and "p990" to "p999" for 99.0 to 99.9.
 */
int metric__agg_ok(const char *agg);
/* A node_exporter family name as Prometheus writes one: [a-zA-Z_:][a-zA-Z0-9_:]*, up to 128. */
int metric__family_ok(const char *name);

/* The wire form a check's child process sends its result in (check_result.c). */
void check_result__encode(const struct check_result *r, struct strbuf *sb);
/* Bounded decoding of untrusted bytes: 0, or -EINVAL with r left empty. */
int check_result__decode(struct check_result *r, const void *buf, size_t len);

#endif
