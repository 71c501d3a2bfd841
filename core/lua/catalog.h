/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The catalog: methodologies (methodologies/), checks (checks/, plus a
 * user's --checks DIR), their lib modules, and the ranking rules
 * (ranking/verdict.lua), loaded and validated once; the first problem is a
 * one-line error naming file and field.
 */
#ifndef SONDE_CATALOG_H
#define SONDE_CATALOG_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util/strv.h"

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
		/*
		 * filter = "culprits": the BPF tools of its checks that can filter
		 * trace only the trigger's culprits, filtered in the kernel.
		 */
		int filter_culprits;
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
 * ranking/verdict.lua: a finding of check `consequence` is explained by a
 * finding of check `cause` (always, or only when the cause's first culprit is
 * one of the consequence's culprits); see docs/verdict.md.
 */
struct explain_rule {
	char *cause, *consequence, *reason;
	int same_culprit;
	int or_kernel;      /* "same_culprit_or_kernel": a kernel-thread culprit counts as the same */
};

/*
 * A check and one of its metrics: in `capacity`, the % of the resource's
 * capacity that was lost; in `exhaustion`, the seconds until it runs out.
 */
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
	struct explain_rule *explains; /* in the table's order */
	size_t nexplains;
	struct capacity_rule *capacity;
	size_t ncapacity;
	struct capacity_rule *exhaustion;
	size_t nexhaustion;
};

/*
 * Load and validate everything; the first problem is a one-line error naming
 * file and field. A user's directory is loaded in a child process under a
 * watchdog (catalog_load.c): a file whose top-level code runs longer than a
 * check's run() may is stopped from outside, and so is the whole loading at
 * deadline_ns (CLOCK_MONOTONIC; 0: no deadline), with an error naming the file.
 */
int catalog__load(struct catalog *cat, const char *user_dir, char *errbuf, size_t errlen);
int catalog__load_until(struct catalog *cat, const char *user_dir, int64_t deadline_ns,
			char *errbuf, size_t errlen);
void catalog__free(struct catalog *cat);
/*
 * Load one check's source as if it were rel ("use/cpu-x.lua") and validate it
 * against cat's vocabularies, without adding it (the schema fuzzer). 0 or
 * -errno with the one-line error.
 */
int catalog__validate_check(const struct catalog *cat, const char *rel, const char *src,
			    size_t len, char *err, size_t errlen);
/*
 * Lookups by id, NULL when there is none. Inline: the loaders of the catalog's
 * parts (ranking.c) look up what catalog.c loaded before them, and catalog.c
 * calls them; as calls into catalog.c they would make the two files a loop.
 */
static inline const struct methodology *catalog__methodology(const struct catalog *cat,
							      const char *id)
{
	for (size_t i = 0; i < cat->nmeth; i++)
		if (!strcmp(cat->meth[i].id, id))
			return &cat->meth[i];
	return NULL;
}

static inline const struct check_def *catalog__check(const struct catalog *cat, const char *id)
{
	for (size_t i = 0; i < cat->nchecks; i++)
		if (!strcmp(cat->checks[i].id, id))
			return &cat->checks[i];
	return NULL;
}
/* "--set ID.ARG=VALUE": validated against the check's declared args. */
int catalog__set_arg(struct catalog *cat, const char *assignment, char *errbuf, size_t errlen);

#endif
