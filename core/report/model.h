/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The report model (report.h), inside the report layer: what is computed
 * once from a ranked run and read by every renderer. The findings with their
 * sentences and the USE matrix feed findings.json and the terminal; the
 * document (doc.h) is what report.md and report.html show, built from the
 * same findings and matrix.
 */
#ifndef SONDE_MODEL_H
#define SONDE_MODEL_H

#include "collect/hostctx.h"
#include "report/doc.h"
#include "report/report.h"

/* A ranked finding: rr->res[res], with the sentences every rendering shows. */
struct report_finding {
	size_t res;
	const struct check_result *r;
	char summary[1024];  /* the check's summary, else its deciding metric */
	char explained[512]; /* "explained by CHECK (title): reason", or "" */
};

/* A cell of the USE matrix: the worst check of (resource, metric), or n/a. */
struct matrix_cell {
	enum status st;
	const struct check_result *decider;
	int na;
	const char *na_reason;
	int has_check;
};

/*
 * Per-instance rows (one per disk, interface, cgroup, CPU, process: whatever
 * the checks of a resource name in their metrics' `instance`): each cell is
 * the worst metric of that instance among the checks of the cell. The
 * resource row stays the worst of its checks, so it is at least as bad as any
 * of its instances (a check's status is the worst of its metrics).
 */
#define MATRIX_COLS 8
/* report.md and the HTML show this many instances per resource, worst first */
#define MATRIX_INSTANCES_SHOWN 12

struct inst_cell {
	const struct check_result *r;
	const struct metric *m; /* NULL: no check of the cell reported this instance */
	const char *na_reason;  /* no metric, and the check said it does not apply (why) */
};

struct inst_row {
	const char *instance;
	struct inst_cell cell[MATRIX_COLS];
	enum status worst;
	size_t first; /* order of first appearance, to keep the sort stable */
};

struct matrix_row {
	const char *resource;
	struct matrix_cell *cells; /* one per metric of the methodology */
	struct inst_row *inst;     /* all of them, worst first */
	size_t ninst;
};

struct use_matrix {
	const struct methodology *m; /* NULL: the catalog has no "use" methodology */
	struct matrix_row *rows;     /* one per resource, in the methodology's order */
};

struct report_model {
	const struct run_report *rr;
	char verdict[1024];
	/*
	 * The verdict's "next" line: what to run now that this run could not
	 * (a drill-down that admitted no tool, by hand); "" when nothing.
	 */
	char next[1024];
	enum status worst;
	struct report_finding *findings; /* rr->nrank, in rank order */
	struct use_matrix use;
	struct doc doc; /* report.md and report.html */
	char title[300];
	struct host_context host; /* the Host section, findings.json's host.context */
};

/* rank.c */
int report__is_finding(const struct check_result *r);
/* Seconds until the finding's resource runs out (ranking/verdict.lua exhaustion), -1 when none. */
double report__time_left(const struct run_report *rr, const struct check_result *r);
/* The metric that decided the status (the worst one). */
const struct metric *report__worst_metric(const struct check_result *r);
void report__finding_summary(const struct check_result *r, char *buf, size_t len);
void report__explained(const struct run_report *rr, size_t i, char *buf, size_t len);


/* matrix.c */
int matrix__build(struct use_matrix *u, const struct run_report *rr);
void matrix__free(struct use_matrix *u);
/* The column of metric in m's vocabulary (below MATRIX_COLS), or -1. */
int matrix__col(const struct methodology *m, const char *metric);

/* sections.c: the document's sections after the findings */
void report__doc_workload(struct report_model *m);
void report__doc_use_details(struct report_model *m);
void report__doc_drilldown(struct report_model *m);
void report__doc_unknowns(struct report_model *m);
void report__doc_appendix(struct report_model *m);

/* host.c: the Host section, and host.context in findings.json */
struct json;

/* budget.c: the budget of a window, what sonde reserved for its own sampling and used */
struct run_budget;
void report__budget_note(const struct run_budget *b, char *buf, size_t len);
void report__doc_budget(struct doc *d, const struct analysis *an);
void report__json_budget(struct json *j, const struct analysis *an);
void report__doc_host(struct report_model *m);
void report__json_host_context(struct json *j, const struct host_context *hc);
/* findings.json's host.observer: where sonde ran and what it could not see from there. */
void report__json_observer(struct json *j, struct analysis *an);

/* evidence.c: what a check shows under its heading */
void report__doc_culprits(struct doc *d, const struct check_result *r);
void report__doc_metrics(struct doc *d, const struct check_result *r);
void report__doc_evidence(struct doc *d, const struct check_result *r);
/* "traced 1.0 s of the 3.0 s window": what part an evidence covers; 0 when the whole window. */
int report__span_text(const struct evidence_span *sp, char *buf, size_t len);
/* A heat map (EV_HEATMAP) as a HEATMAP block (heat.c). */
void report__doc_heatmap(struct doc *d, const struct evidence *e);
/*
 * In HTML, fold what follows (a finding's metrics and evidence) behind a
 * line that counts them, up to doc__fold_end; 0 when there is nothing to fold.
 * (A flame graph's layout is fixed in its SVG: it draws in a fold as well.)
 */
int report__fold_evidence(struct doc *d, const struct check_result *r);

#endif
