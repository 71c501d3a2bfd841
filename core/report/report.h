/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The report: the ranking of findings, then one model built from the run
 * (model.h: the findings with their sentences, the USE matrix, and the
 * document people read), rendered four ways, each from the model:
 * findings.json (the machine contract, docs/findings-schema.md), report.md,
 * report.html and the short terminal summary.
 *
 *	report__rank(&rr);
 *	report__build(&rr, &model);
 *	report__json(model, &js); report__markdown(model, &md); report__html(model, &html);
 *	report__terminal(model, stdout, color);
 *	report__metrics(model, &opts, &prom);
 *	report__free(model);
 */
#ifndef SONDE_REPORT_H
#define SONDE_REPORT_H

#include <stdio.h>

#include "collect/analysis.h"
#include "lua/engine.h"
#include "util/json.h"

#define FINDINGS_SCHEMA "sonde.findings/1"

#define RUN_COST_STAGES 8

struct run_cost {
	double user_s, sys_s;      /* sonde's own CPU time, whole run */
	double window_cpu_s;       /* of it, while the first window ran (sampling, guard) */
	long peak_rss_kb;
	double analysis_ms;
	uint64_t reads, read_bytes, read_errors, capture_bytes;
	/*
	 * Where the run's time went, stage by stage (run_cost__mark): wall and
	 * CPU (sonde's and its checks' processes) from the end of the last one.
	 */
	struct run_stage {
		const char *name;  /* static: plan, setup, window, collect, analysis, drill-down */
		double wall_ms, cpu_ms;
	} stages[RUN_COST_STAGES];
	size_t nstages;
	int64_t mark_wall_ns, mark_cpu_ns; /* the end of the last stage */
};

struct run_report {
	const struct catalog *cat;
	struct analysis *an;
	struct check_result *res; /* in run order */
	size_t nres;
	size_t *rank;             /* indices into res of warn/crit results, most important first */
	size_t nrank;
	/*
	 * Parallel to res, in the same allocation as rank (freed with it): the
	 * finding that explains res[i] (an index into res, or SIZE_MAX) and the rule
	 * that says why (ranking/verdict.lua).
	 */
	size_t *explained_by;
	const struct explain_rule **why;
	const char *command;      /* the command line, for the appendix */
	struct run_cost cost;
	/* the drill-down: rules that fired, and the second window they ran in */
	struct drill_fired {
		const struct drill_rule *rule;
		enum status trigger_status;
	} *drill;
	size_t ndrill;
	struct analysis *drill_an;  /* the second window's captures (raw/drilldown), or NULL */
	const char *drill_note;     /* why no drill-down ran although rules fired, or NULL */
	/*
	 * A drill-down window that admitted no BPF tool (each one over the budget):
	 * drill_note says so, with the command that runs its checks by hand; that
	 * command alone; both the verdict's "next" line.
	 */
	char drill_note_buf[1024];
	char drill_by_hand[512];
};

/*
 * Rank the findings (docs/verdict.md): those explained by another finding last,
 * then severity, capacity lost, methodology order, how far past the threshold,
 * run order.
 */
int report__rank(struct run_report *rr);
/* Highest severity among findings: ST_OK when none. */
enum status report__worst(const struct run_report *rr);
/* One sentence: the bottleneck and its culprit, or that none was found. */
void report__verdict(const struct run_report *rr, char *buf, size_t len);

struct report_model;

/*
 * Build the model of rr, once, after report__rank and with rr->cost measured
 * (the appendix shows it). rr must outlive the model. 0, or -ENOMEM.
 */
int report__build(const struct run_report *rr, struct report_model **out);
void report__free(struct report_model *m);

/* Each appends to out (a strbuf, NUL-terminated); 0, or -ENOMEM. */
int report__json(const struct report_model *m, struct strbuf *out);
int report__markdown(const struct report_model *m, struct strbuf *out);
/* The page, with its stylesheet (core/report/report.css, compiled in) inlined. */
int report__html(const struct report_model *m, struct strbuf *out);
void report__terminal(const struct report_model *m, FILE *f, int color);
/*
 * Its pieces, which sonde show draws from a bundle's findings.json too: the
 * USE matrix (a row's resource is cleaned for the terminal; a cell's word is
 * its status, or n/a), and finding n's line (summary and explained cleaned).
 */
struct matrix_row;
void report__tty_matrix(FILE *f, const struct matrix_row *rows, size_t nrows,
			const char *const *metrics, size_t nmetrics, int color);
void report__tty_finding(FILE *f, size_t n, enum status st, const char *summary,
			 const char *explained, int color);

/*
 * Blocks sonde diff draws with the report's own renderers (heat.c,
 * flamegraph.c): two latency heat maps side by side (EV_HEATMAP evidence,
 * old then new) over one range of rows; a differential flame graph.
 */
struct doc;
struct evidence;
struct folded_stacks;
void report__doc_heatmap_pair(struct doc *d, const struct evidence *a, const struct evidence *b,
			      const char *label_a, const char *label_b);
/*
 * May fd get colours and a progress line redrawn in place (\r, erase to the
 * end of line)? A terminal that is not "dumb" (TERM unset or dumb: an editor's
 * shell, a serial console) and, for colour, no NO_COLOR set. A pipe or file
 * gets plain text.
 */
int report__tty_color(int fd);
int report__tty_redraw(int fd);

/* What the Prometheus text holds, and what its label values go through. */
struct metrics_opts {
	/*
	 * --metrics-host: also the host's figures node_exporter publishes
	 * itself (the metrics whose check names a node_exporter family, the
	 * host's CPUs and memory). Without it, only what node_exporter lacks.
	 */
	int host;
	/*
	 * --redact: each label value that came from the host (its name, its
	 * kernel, process names, the objects measured) through this, a malloc'ed
	 * copy or NULL when out of memory. Values in the model, never the text:
	 * a pseudonym must not land on a label name or a HELP line.
	 */
	char *(*redact)(void *arg, const char *value);
	void *redact_arg;
};

/*
 * The run as Prometheus metrics, text exposition format (docs/metrics.md):
 * from the model (sonde run --metrics), or from a bundle's findings.json
 * (sonde show --metrics) through the same names, so both give the same text
 * for the same run. Appended to out; 0, or -ENOMEM (-EINVAL with err: not a
 * findings.json). opts may be NULL (the defaults).
 */
int report__metrics(const struct report_model *m, const struct metrics_opts *opts,
		    struct strbuf *out);
struct jval;
int report__metrics_from_findings(const struct jval *findings, const struct metrics_opts *opts,
				  struct strbuf *out, char *err, size_t errlen);

#endif
