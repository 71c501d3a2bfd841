/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Prometheus text exposition format (0.0.4), and the one place where
 * sonde's results get their Prometheus names. metrics.c feeds it twice, from
 * the report model (sonde run --metrics) and from a bundle's findings.json
 * (sonde show --metrics), with the same calls in the same order, so both
 * write the same file for the same run.
 *
 * The conventions (prometheus.io/docs/practices/naming): every family is a
 * gauge with a HELP line; names are [a-z0-9_], in base units (seconds, bytes,
 * ratios from 0 to 1) with the unit as the suffix; no unit abbreviation and
 * no _total/_count/_sum/_bucket on a gauge (promtool check metrics). Label
 * values are bounded: names of checks, resources, severities, process names
 * (comm, at most 16 bytes), and the objects a check measures when they read
 * as names (a disk, an interface, a mount point, a cgroup); never a pid or a
 * sentence. A sample whose object is not such a name is left out, and a
 * comment at the top of the file counts what was left out and why.
 *
 * What is published: by default what node_exporter, scraped into the same
 * Prometheus, does not have: the verdict, findings, check states, the USE
 * matrix, the metrics checks did not declare node_exporter has (percentiles,
 * times to exhaustion, what BPF traced...), and sonde's own cost. With
 * PROM_HOST also the host's own figures node_exporter publishes (a check's
 * metric with a node_exporter family, the host's CPUs and memory). Every
 * check metric's HELP says how the window made it (its aggregation).
 */
#ifndef SONDE_PROM_H
#define SONDE_PROM_H

#include <stddef.h>

#include "util/strbuf.h"

/* The run, as findings.json has it (whole seconds for the time). */
struct prom_run {
	const char *version, *captured_by, *hostname, *kernel;
	double end_s;        /* the window's end, Unix time in whole seconds; NaN: unknown */
	double window_s, interval_s, samples;
	int partial;
	double cpus, mem_bytes;
	double cpu_s, window_cpu_s, peak_rss_bytes; /* sonde's own cost */
};

/* One metric of a check, as findings.json has it. */
struct prom_metric {
	const char *check, *name, *unit;
	const char *instance;      /* NULL, or the object it measures */
	const char *agg;           /* its aggregation (lua/result.h); NULL: not declared */
	const char *node_exporter; /* the family node_exporter publishes it as; NULL: none */
	const char *help;          /* what it counts, when its name alone would mislead */
	int drilldown;             /* measured in the drill-down's (second) window */
	double value;
};

/* prom__new's flags: PROM_HOST, also the figures node_exporter publishes (--metrics-host). */
#define PROM_HOST 1u

struct prom;

struct prom *prom__new(unsigned int flags);
void prom__free(struct prom *p);
/*
 * Every label value that came from the host (the host's name and kernel, a
 * culprit's comm, an object) goes through fn first (--redact): a malloc'ed
 * copy, or NULL when out of memory. Names, label names and HELP are sonde's.
 */
void prom__redact_with(struct prom *p, char *(*fn)(void *arg, const char *value), void *arg);

/* In this order: the run, the findings (each with its culprits), the USE matrix, the checks. */
void prom__run(struct prom *p, const struct prom_run *r);
/* A finding, ranked by the order of the calls; culprit: the first culprit's comm, or NULL. */
void prom__finding(struct prom *p, const char *check, const char *methodology,
		   const char *resource, const char *metric, const char *severity,
		   const char *culprit);
/* A culprit of the last finding: shares of one comm are summed. */
void prom__culprit(struct prom *p, const char *check, const char *comm, double share);
void prom__use_cell(struct prom *p, const char *resource, const char *metric, const char *status);
/* A per-instance cell of the matrix (use_matrix_instances). */
void prom__use_object(struct prom *p, const char *resource, const char *object,
		      const char *metric, const char *status);
/* A check: its status and how many metrics it could not see. */
void prom__check(struct prom *p, const char *check, const char *status, size_t nunknowns);
/* One metric of a check. */
void prom__check_metric(struct prom *p, const struct prom_metric *m);

/* The exposition, appended to out: 0, or -ENOMEM. */
int prom__write(const struct prom *p, struct strbuf *out);

/*
 * The family of a check's metric: sonde_check_<check>_<name>, the name in
 * its base unit (runq_p99_ms in ms: ..._runq_p99_seconds, *scale 0.001).
 * 0, or -EINVAL when nothing of a name is left.
 */
int prom__check_family(const char *check, const char *name, const char *unit, char *out,
		       size_t len, double *scale);
/* 1 when s may be a label value for an object: a bounded name, not a pid or a sentence. */
int prom__object_ok(const char *s);

#endif
