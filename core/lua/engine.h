/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Lua host: loads methodologies and checks (embedded, plus a user's
 * --checks DIR), validates them, and runs each check in a fresh sandboxed
 * Lua 5.4 state with an instruction, wall-clock and memory budget.
 */
#ifndef SONDE_ENGINE_H
#define SONDE_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "collect/analysis.h"
#include "util/strv.h"

enum status { ST_OK, ST_WARN, ST_CRIT, ST_UNKNOWN, ST_SKIP, ST_ERROR };
const char *status__name(enum status st);
/* How bad, for the matrix and ranking: crit > warn > error > unknown > ok > skip. */
int status__rank(enum status st);

struct methodology {
	char *id, *title, *description;
	int order;
	struct strv resources, metrics, tags;
	struct strv na_cells;   /* "fd.saturation" ... */
	struct strv na_reasons; /* parallel to na_cells */
	/* drill-down rules (methodologies/drilldown.lua): a finding of trigger -> run these */
	struct drill_rule {
		char *trigger;      /* a check id: fires when that check ends in warn or crit */
		struct strv run;    /* drill-down check ids (methodology "drilldown") */
		char *why;          /* shown in the report */
	} *rules;
	size_t nrules;
};

enum arg_type { ARG_NUMBER, ARG_STRING, ARG_BOOLEAN };

struct check_arg {
	char *name, *help;
	enum arg_type type;
	double num;
	char *str;
	int boolean;
};

struct check_def {
	char *id, *title, *description;
	char *methodology, *resource, *metric;
	struct strv tags, collect;
	struct check_arg *args;
	size_t nargs;
	char *origin; /* "checks/use/cpu-saturation.lua" or the user's file path */
	char *source;
	size_t source_len;
	int user;     /* from --checks DIR */
};

struct lib_source {
	char *name, *origin, *source;
	size_t source_len;
};

/*
 * methodologies/verdict.lua: a finding of check `consequence` is explained by a
 * finding of check `cause` (always, or only when the cause's first culprit is
 * one of the consequence's culprits); see docs/verdict.md.
 */
struct explain_rule {
	char *cause, *consequence, *reason;
	int same_culprit;
	int or_kernel;      /* "same_culprit_or_kernel": a kernel-thread culprit counts as the same */
};

/* The metric (a %) that says how much of a check's resource capacity was lost. */
struct capacity_rule {
	char *check, *metric;
};

struct catalog {
	struct methodology *meth;
	size_t nmeth;
	struct check_def *checks; /* in run order: methodology, resource, metric, id */
	size_t nchecks;
	struct lib_source *libs;
	size_t nlibs;
	char *css; /* reports/report.css */
	struct explain_rule *explains; /* in the table's order */
	size_t nexplains;
	struct capacity_rule *capacity;
	size_t ncapacity;
};

/* Load and validate everything; the first problem is a one-line error naming file and field. */
int catalog__load(struct catalog *cat, const char *user_dir, char *errbuf, size_t errlen);
void catalog__free(struct catalog *cat);
/*
 * Load one check's source as if it were rel ("use/cpu-x.lua") and validate it
 * against cat's vocabularies, without adding it (the schema fuzzer). 0 or
 * -errno with the one-line error.
 */
int catalog__validate_check(const struct catalog *cat, const char *rel, const char *src,
			    size_t len, char *err, size_t errlen);
const struct methodology *catalog__methodology(const struct catalog *cat, const char *id);
const struct check_def *catalog__check(const struct catalog *cat, const char *id);
/* "--set ID.ARG=VALUE": validated against the check's declared args. */
int catalog__set_arg(struct catalog *cat, const char *assignment, char *errbuf, size_t errlen);

/* ---- results ---- */

struct metric {
	char *name, *instance, *unit;
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

struct culprit {
	int pid;
	char *comm, *cmdline;
	double share;
	int kernel_thread; /* a kernel thread: its CPU time serves others (I/O, interrupts) */
};

enum evidence_kind { EV_TABLE, EV_SERIES, EV_NOTE, EV_FLAMEGRAPH };

struct evidence {
	enum evidence_kind kind;
	char *title, *unit;
	struct strv columns;
	char ***rows; /* nrows x columns.n strings */
	size_t nrows;
	double *values; /* series */
	size_t nvalues;
	double step_s;  /* series: seconds between values */
	/*
	 * flamegraph (core/flamegraph.h): stacks "root;...;leaf", counts in
	 * values (parallel), largest first; what the bounds cut is counted.
	 */
	struct strv stacks;
	uint64_t total;     /* sum of all counts, cut stacks included */
	uint64_t stacks_in; /* distinct stacks given */
	uint64_t other;     /* count merged into the "[other]" stack */
	uint64_t depth_cut; /* stacks cut at FG_MAX_DEPTH frames */
};

struct check_result {
	const struct check_def *def;
	enum status st;
	struct metric *metrics;
	size_t nmetrics;
	struct unknown_metric *unknowns;
	size_t nunknowns;
	struct culprit *culprits;
	size_t nculprits;
	struct evidence *evidence;
	size_t nevidence;
	struct strv next;
	char *summary;
	char *error, *traceback;
	double elapsed_ms;
	size_t mem_peak;
	uint64_t instructions;
	double score; /* how far past its threshold the worst metric is (ranking) */
};

struct engine_limits {
	size_t mem_bytes;
	uint64_t instructions;
	double wall_s;
};

extern const struct engine_limits engine_default_limits;

/*
 * Run one check over the analysis in a fresh sandboxed state, in a child
 * process the caller kills past the wall budget. Never fails the caller:
 * errors, budget overruns, crashes and bad results become ST_ERROR with a
 * reason (and a traceback where Lua has one).
 */
void engine__run_check(const struct catalog *cat, const struct check_def *def,
		       struct analysis *an, const struct engine_limits *lim,
		       struct check_result *out);
void check_result__free(struct check_result *r);

struct strbuf;
/* The wire form a check's child process sends its result in (check_result.c). */
void check_result__encode(const struct check_result *r, struct strbuf *sb);
/* Bounded decoding of untrusted bytes: 0, or -EINVAL with r left empty. */
int check_result__decode(struct check_result *r, const void *buf, size_t len);

#endif
