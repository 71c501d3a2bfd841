/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the files of sonde diff share (private to core/bundle): a side (one
 * opened bundle: its findings.json and, when it has them, its captures), a
 * quantity with the interval its noise leaves it in, the baseline of several
 * sides, and each section's results with its three renderings (terminal,
 * document, JSON).
 *
 * Every section follows one rule, so that "beyond noise" means one thing:
 * each side gives a value and an interval (a window's per-interval range, a
 * share's binomial interval, a percentile's order-statistic interval); a
 * baseline of several audits takes the median of their values and the span
 * of all their intervals; the new value changed when its interval and the
 * old one do not overlap. A change the shown figure rounds away is none.
 */
#ifndef SONDE_DIFF_INT_H
#define SONDE_DIFF_INT_H

#include <stdint.h>
#include <stdio.h>

#include "bundle/diff.h"
#include "collect/analysis.h"
#include "perf/fold.h"
#include "report/doc.h"
#include "util/json.h"
#include "util/json_read.h"
#include "util/strv.h"

struct proc_facts;
struct lat_facts;
struct code_facts;
struct host_facts;

/*
 * One opened bundle: its findings.json, and what each section keeps of its
 * captures (read while they are open, one side at a time, so that sixteen
 * baselines never hold sixteen captures at once). A section without its
 * captures keeps NULL, and why.
 */
struct diff_side {
	const char *name;         /* as the user named it */
	char *text;               /* findings.json */
	struct jval *doc;
	int64_t start_ns;         /* its window's start (wall clock), 0 unknown */
	char hostname[256], host_id[40];
	char raw_why[600];        /* why it has no captures, "" when it has */
	struct proc_facts *procs;
	struct lat_facts *lat;
	struct code_facts *code;
	struct host_facts *host;
};

/* A quantity of one side, or of a baseline, and the interval its noise leaves it in. */
struct dq {
	double v;      /* NAN: not measured there */
	double lo, hi; /* the interval, when has */
	int has;
};

/* ---- quantities and their noise (diff_dq.c) ---- */

enum dverdict { DV_SAME, DV_UP, DV_DOWN, DV_WITHIN, DV_UNKNOWN };
extern const char *const dverdict_names[]; /* "same", "up", "down", "within noise", ... */

/*
 * The baseline of n quantities (NAN ones left out): the median value (the
 * lower of the middle two), and as its interval the span of every interval
 * and value, so the spread of the audits is noise too. One quantity is its
 * own baseline.
 */
struct dq dq__baseline(const struct dq *q, size_t n);
/*
 * New against old: same when the values are equal as shown in unit
 * (units__value), up or down when the intervals do not overlap, within noise
 * when they do, unknown when a side has no interval.
 */
enum dverdict dq__verdict(const struct dq *o, const struct dq *n, const char *unit);
/* The lower median of n values (sorted in place); NAN when n is 0. */
double diff__median(double *v, size_t n);
/* "key": [lo, hi], or null when q has no interval. */
void dq__json_interval(struct json *j, const char *key, const struct dq *q);
/*
 * Runs of 12 or more hex digits (container ids, in cgroup paths and mount
 * points) as "*", in place: a redeployed container is the same one.
 */
void diff__fold_ids(char *s);

/* ---- findings and metrics (diff.c) ---- */

enum change { CH_NEW, CH_WORSE, CH_RESOLVED, CH_PERSISTING, CH_BETTER, CH_HOST };
extern const char *const change_names[];

struct finding_change {
	enum change ch;
	const char *check, *old_sev, *new_sev, *summary;
};

struct metric_change {
	const char *check, *name, *instance, *unit;
	enum dverdict verdict;
	struct dq o, n;
	char old_s[48], new_s[48];
	int worse;              /* the change is toward the threshold (a regression) */
};

/* ---- the host's configuration (diff_host.c): lines of sonde's words ---- */

struct host_changes {
	struct strv checks;     /* "host.sysctl", "host.packages", ... */
	struct strv lines;      /* "sysctl vm.swappiness: 60 -> 10" */
};

/* What the captures hold of the configuration: packages, mounts, cgroup limits, topology. */
int diff_host__facts(struct analysis *an, struct host_facts **out);
void diff_host__facts_free(struct host_facts *hf);
/*
 * The changes of the host's configuration between two sides: what their
 * findings.json say (kernel, OS, cgroups, CPU, THP, sysctls, modules, failed
 * units) and what their captures hold. 0 or -ENOMEM.
 */
int diff_host__sides(const struct diff_side *o, const struct diff_side *n,
		     struct host_changes *hc);

/* ---- processes (diff_procs.c) ---- */

enum proc_attr { PA_COUNT, PA_CPU, PA_RSS, PA_ANON, PA_READ, PA_WRITE, PA_THREADS, PA_FDS,
		 PA_CSW, PA_N };

/* One group of one side: its window values, each with its per-interval range. */
struct pfact {
	char *command, *cgroup;
	int persistent;           /* a process seen in two rounds or more, or using 1% of a CPU */
	struct dq q[PA_N];
};

struct proc_facts {
	struct pfact *g;          /* sorted by command, then cgroup */
	size_t n, procs;
	char why[256];            /* why there are none */
};

struct proc_change {
	char *command, *cgroup;   /* the group: what runs, and where */
	enum { PC_NEW, PC_GONE, PC_CHANGED } kind;
	struct dq o[PA_N], n[PA_N];
	enum dverdict v[PA_N];
};

struct proc_diff {
	int known;                /* both sides had processes */
	char why[1024];           /* why not */
	struct proc_change *c;
	size_t n, groups_old, groups_new, procs_old, procs_new;
};

int diff_procs__facts(struct analysis *an, struct proc_facts **out);
void diff_procs__facts_free(struct proc_facts *pf);
int diff_procs__compute(struct diff_side *const *old, size_t nold, const struct diff_side *new_,
			struct proc_diff *pd);
void diff_procs__free(struct proc_diff *pd);
void diff_procs__text(FILE *out, const struct proc_diff *pd);
void diff_procs__doc(struct doc *d, const struct proc_diff *pd);
void diff_procs__json(struct json *j, const struct proc_diff *pd);

/* ---- latency (diff_lat.c) ---- */

#define LAT_QS 3 /* p50, p90, p99 */

struct lat_change {
	char *name;               /* "runqlat", "biolatency vda write", "fslatency /var" */
	const char *unit;         /* "us" */
	double count_old, count_new;
	struct dq o[LAT_QS], n[LAT_QS];
	enum dverdict v[LAT_QS];
	const struct evidence *heat[2]; /* the old (newest baseline) and new heat maps, or NULL */
};

struct lat_diff {
	struct lat_change *c;
	size_t n, nold;
	char why[1024];           /* why none could be compared, "" when some were */
};

/* an: the window; dd: the drill-down window, or NULL. */
int diff_lat__facts(struct analysis *an, struct analysis *dd, struct lat_facts **out);
void diff_lat__facts_free(struct lat_facts *lf);
int diff_lat__compute(struct diff_side *const *old, size_t nold, const struct diff_side *new_,
		      struct lat_diff *ld);
void diff_lat__free(struct lat_diff *ld);
void diff_lat__text(FILE *out, const struct lat_diff *ld);
void diff_lat__doc(struct doc *d, const struct lat_diff *ld);
void diff_lat__json(struct json *j, const struct lat_diff *ld);
/* A percentile that rose beyond noise: the first one's words into what. */
size_t diff_lat__regressions(const struct lat_diff *ld, char *what, size_t len);

/* ---- code (diff_code.c) ---- */

struct code_row {
	char *name;               /* a function, or a stack "a;b;c" */
	int stack;
	/* shares of the total, in %: [0] self (a stack's own), [1] total (with callees) */
	struct dq o[2], n[2];
	enum dverdict v[2];
};

struct code_profile {
	const char *kind;         /* "on-CPU", "off-CPU" */
	const char *unit;         /* "samples", "us" */
	double total_old, total_new;
	struct code_row *rows;    /* functions, then stacks, the largest change first */
	size_t nrows, functions, stacks; /* compared */
	int sampled;              /* samples (binomial noise), or traced time (none) */
	const struct folded_stacks *newest; /* the new profile, and the old ones, for the graph */
	const struct folded_stacks **olds;
	size_t nolds;
};

struct code_diff {
	struct code_profile *p;
	size_t n;
	char why[1024];
};

/* raw: the bundle's raw/ directory (profile.folded, offcputime.folded and their drill-down's). */
int diff_code__facts(const char *raw, struct code_facts **out);
void diff_code__facts_free(struct code_facts *cf);
int diff_code__compute(struct diff_side *const *old, size_t nold, const struct diff_side *new_,
		       struct code_diff *cd);
void diff_code__free(struct code_diff *cd);
void diff_code__text(FILE *out, const struct code_diff *cd);
void diff_code__doc(struct doc *d, const struct code_diff *cd);
void diff_code__json(struct json *j, const struct code_diff *cd);

/* ---- the whole comparison (diff.c), and its renderings (diff_out.c) ---- */

struct diff_indexes;

struct diff {
	struct diff_indexes *ix;      /* diff.c's, while it compares */
	int findings_only;            /* no captures read: their sections are not shown */
	struct diff_side *const *old; /* newest first */
	size_t nold;
	const struct diff_side *new_;
	struct finding_change *f;
	size_t nf;
	struct metric_change *m;
	size_t nm;
	size_t beyond, within, unknown_spread;
	int worst;                  /* 0 ok, 1 warn, 2 crit: of the findings new or worse */
	size_t worst_at;
	struct host_changes host;
	struct proc_diff procs;
	struct lat_diff lat;
	struct code_diff code;
	size_t regressions;
	char regression_what[1024];
};

void diff_out__text(FILE *out, const struct diff *d);
/* The document --md and --html render. 0, or -ENOMEM. */
int diff_out__doc(struct doc *doc, const struct diff *d);
void diff_out__json(struct json *j, const struct diff *d);
size_t diff__count(const struct diff *d, enum change ch);

/* ---- opening sides (diff_base.c) ---- */

/*
 * Load dir's findings.json, then each section's facts from its captures
 * (closed again before returning); 0, or -errno with err naming the bundle.
 * A bundle without captures is no error: its sections say why.
 */
int diff_side__open(struct diff_side *sd, const char *dir, const char *name, int captures,
		    char *err, size_t errlen);
void diff_side__close(struct diff_side *sd);

#endif
