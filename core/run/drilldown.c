// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The drill-down: which rules of methodologies/drilldown.lua fired on the
 * first checks' findings, the second, shorter window for the checks they
 * call for (sonde run) or the one a bundle recorded (sonde analyze), and those
 * checks run over it.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bundle/redact.h"
#include "run/run.h"
#include "trace/cost.h"

/* Did this check run already (selected with --check for the first window)? */
static int ran(const struct run_outcome *oc, const char *id)
{
	for (size_t i = 0; i < oc->rr.nres; i++)
		if (!strcmp(oc->res[i].def->id, id))
			return 1;
	return 0;
}

/*
 * The rules whose trigger check ended in warn or crit; the checks they run,
 * each once, and not again when the first window already ran them.
 */
static size_t drill_fired(const struct catalog *cat, struct run_outcome *oc, struct strv *run)
{
	for (size_t m = 0; m < cat->nmeth; m++)
		for (size_t k = 0; k < cat->meth[m].nrules; k++) {
			const struct drill_rule *r = &cat->meth[m].rules[k];

			for (size_t i = 0; i < oc->rr.nres; i++) {
				const struct check_result *res = &oc->res[i];
				struct drill_fired *nd;

				if (strcmp(res->def->id, r->trigger) ||
				    (res->st != ST_WARN && res->st != ST_CRIT))
					continue;
				nd = realloc(oc->rr.drill, (oc->rr.ndrill + 1) * sizeof(*nd));
				if (!nd)
					break;
				oc->rr.drill = nd;
				nd[oc->rr.ndrill].rule = r;
				nd[oc->rr.ndrill++].trigger_status = res->st;
				for (size_t j = 0; j < r->run.n; j++)
					if (!strv__has(run, r->run.v[j]) && !ran(oc, r->run.v[j]) &&
					    strv__push(run, r->run.v[j]))
						run__die_oom();
				break;
			}
		}
	return oc->rr.ndrill;
}

static const struct check_result *result_of(const struct run_outcome *oc, const char *id)
{
	for (size_t i = 0; i < oc->rr.nres; i++)
		if (!strcmp(oc->res[i].def->id, id))
			return &oc->res[i];
	return NULL;
}

/* The BPF tools of a rule's checks into tools, each once. */
static void rule_tools(const struct catalog *cat, const struct drill_rule *r, struct strv *tools)
{
	for (size_t j = 0; j < r->run.n; j++) {
		const struct check_def *d = catalog__check(cat, r->run.v[j]);

		for (size_t k = 0; d && k < d->collect.n; k++) {
			const char *c = d->collect.v[k];

			if (!strncmp(c, "bpf.", 4) && !strv__has(tools, c + 4) &&
			    strv__push(tools, c + 4))
				run__die_oom();
		}
	}
}

static void add_suspect(struct run_suspects *sus, int pid)
{
	int seen = 0;

	for (size_t k = 0; k < sus->n; k++)
		seen |= sus->pids[k] == pid;
	if (pid > 0 && !seen && sus->n < RUN_MAX_SUSPECTS)
		sus->pids[sus->n++] = pid;
}

/*
 * --container, --pod: the culprits are the workload's already (lua/result.c); where none of
 * its processes was a culprit, the filtered tools trace the workload's processes.
 */
static void drill_focus(const struct run_outcome *oc, struct run_suspects *sus)
{
	struct analysis *an = oc->rr.an;
	const struct container_set *s;
	int pids[RUN_MAX_SUSPECTS];
	size_t n;

	if ((!an->focus_container && !an->focus_pod) || sus->n ||
	    analysis__containers(an, &s))
		return;
	n = container_set__focus_pids(s, an->focus_container, an->focus_pod, pids,
				      RUN_MAX_SUSPECTS);
	for (size_t i = 0; i < n; i++)
		add_suspect(sus, pids[i]);
}

/*
 * The suspects of the second window: the culprits of the findings that fired
 * rules with filter = "culprits". Their tools trace those processes alone,
 * unless a rule without the filter needs the same tool (then it traces all).
 */
static void drill_suspects(const struct catalog *cat, const struct run_outcome *oc,
			   struct run_suspects *sus)
{
	struct strv filtered = { 0 }, whole = { 0 };

	for (size_t i = 0; i < oc->rr.ndrill; i++) {
		const struct drill_rule *r = oc->rr.drill[i].rule;
		const struct check_result *res = result_of(oc, r->trigger);

		rule_tools(cat, r, r->filter_culprits ? &filtered : &whole);
		for (size_t c = 0; r->filter_culprits && res && c < res->nculprits; c++)
			add_suspect(sus, res->culprits[c].pid);
	}
	drill_focus(oc, sus);
	for (size_t i = 0; i < filtered.n; i++)
		if (!strv__has(&whole, filtered.v[i]) && strv__push(&sus->tools, filtered.v[i]))
			run__die_oom();
	strv__free(&filtered);
	strv__free(&whole);
}

/* The second window (sonde run): its captures go to raw/drilldown. 0 or -1 with a message. */
static int drill_observe(struct run_opts *o, const struct catalog *cat, const struct strv *run,
			 const char *raw2, struct redactor *red, const struct run_suspects *sus)
{
	const struct check_def **defs = calloc(run->n + 1, sizeof(*defs));
	struct strv names = { 0 };
	struct window_result wr;
	char err[1024];
	int rc;

	for (size_t i = 0; defs && i < run->n; i++)
		defs[i] = catalog__check(cat, run->v[i]);
	if (!defs || run_plan__collectors(defs, run->n, &names)) {
		fprintf(stderr, "sonde: out of memory\n");
		free(defs);
		strv__free(&names);
		return -1;
	}
	free(defs);
	if (mkdir(raw2, 0700)) {
		fprintf(stderr, "sonde: %s: %s\n", raw2, strerror(errno));
		strv__free(&names);
		return -1;
	}
	/* Ctrl-C now ends the drill-down window; the first window's results stay. */
	run_observe__stop_ends_window();
	if (o->progress_shown)
		fprintf(stderr, "\r\033[K  drill-down: %zu checks, a %.0f s window...\n", run->n,
			o->drill_window_s);
	rc = run_observe__window(o, (const char *const *)names.v, raw2, o->drill_window_s,
				 o->interval_s < o->drill_window_s ? o->interval_s :
								      o->drill_window_s,
				 o->progress_shown, sus, &wr, NULL, err, sizeof(err));
	run_observe__stop_aborts();
	strv__free(&names);
	if (rc) {
		fprintf(stderr, "sonde: drill-down window: %s\n", err);
		return -1;
	}
	if (red && (redactor__learn_dir(red, raw2, err, sizeof(err)) ||
		    redactor__apply_dir(red, raw2, err, sizeof(err)))) {
		fprintf(stderr, "sonde: redacting the drill-down captures: %s\n", err);
		return -1;
	}
	return 0;
}

/*
 * The budget that would admit every tool the drill-down refused: sonde's own
 * reserve and each one's predicted cost with the guard's margin (a rate read
 * over 0.1 s moves), in whole percents; 0 (no budget) past 100%, which no
 * budget holds.
 */
static double budget_for(double own, double tools, double budget)
{
	double need = ceil((own + tools) * TRACE_GUARD_MARGIN);

	if (need > 100)
		return 0;
	return need > budget ? need : floor(budget) + 1;
}

/*
 * A drill-down window that admitted no BPF tool, every one of them over the
 * budget: say so (the report's drill-down section, findings.json
 * drilldown.note, the verdict's "next" line) with the command that runs its
 * checks by hand with a budget that fits them. By hand they run in a first
 * window, over every process (a suspect filter needs the drill-down), and
 * their cost is predicted again at its start.
 */
static void drill_refused(struct run_outcome *oc, const struct strv *run)
{
	const struct run_budget *b = &oc->drill_an.budget;
	const struct tool_summary *t;
	size_t n = 0, over = 0, u;
	double tools = 0, budget = 0, hand;
	int filtered = 0;
	char *cmd = oc->rr.drill_by_hand, own[96] = "";

	if (analysis__tools(&oc->drill_an, &t, &n) || !n)
		return;
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(t[i].status, "ok"))
			return;
		if (strcmp(t[i].status, "over_budget"))
			continue;
		over++;
		tools += t[i].has_load ? t[i].predicted_load_pct : t[i].predicted_pct;
		budget = t[i].budget_pct;
	}
	if (!over)
		return;
	for (size_t i = 0; i < oc->rr.ndrill; i++)
		filtered |= oc->rr.drill[i].rule->filter_culprits;
	hand = budget_for(b->has ? b->reserved_pct : 0, tools, budget);
	u = (size_t)snprintf(cmd, sizeof(oc->rr.drill_by_hand), "sonde run");
	for (size_t i = 0; i < run->n && u < sizeof(oc->rr.drill_by_hand); i++)
		u += (size_t)snprintf(cmd + u, sizeof(oc->rr.drill_by_hand) - u, " --check %s",
				      run->v[i]);
	if (u < sizeof(oc->rr.drill_by_hand))
		snprintf(cmd + u, sizeof(oc->rr.drill_by_hand) - u, " --max-overhead %g", hand);
	if (b->has && b->reserved_pct > 0)
		snprintf(own, sizeof(own), ", less %.2f%% for sonde's own sampling",
			 b->reserved_pct);
	snprintf(oc->rr.drill_note_buf, sizeof(oc->rr.drill_note_buf),
		 "the drill-down window admitted no BPF tool: their predicted cost, %.2f%% more "
		 "CPU time for the work they trace, did not fit --max-overhead %g%%%s; run its "
		 "checks by hand %s: %s%s",
		 tools, budget, own,
		 hand > 0 ? "with a budget that fits them" :
			    "without a budget (more than 100%, which none holds)",
		 cmd,
		 filtered ? " (by hand they trace every process, not only the suspects, and "
			    "their cost is predicted again)" :
			    "");
	oc->rr.drill_note = oc->rr.drill_note_buf;
}

void run_drilldown__run(struct run_opts *o, const struct catalog *cat, struct run_outcome *oc,
			struct redactor *red)
{
	struct strv run = { 0 };
	struct run_suspects sus = { 0 };
	char raw2[4200], err[1024];
	struct check_result *nr;
	const struct check_def **defs;
	struct stat sb;

	if (!drill_fired(cat, oc, &run) || !run.n)
		goto out;
	if (o->no_drilldown) {
		oc->rr.drill_note = "--no-drilldown";
		goto out;
	}
	/*
	 * A user who ended the window (Ctrl-C, SIGTERM) wants the report now, and
	 * a deadline that ended it leaves no time: no second window then.
	 */
	if (o->live && run_observe__stopped() == STOP_SIGNAL) {
		oc->rr.drill_note = "the window was interrupted (Ctrl-C or SIGTERM), so no second "
				    "window ran";
		goto out;
	}
	if (o->live && run_observe__stopped() == STOP_DEADLINE) {
		oc->rr.drill_note = "the --timeout deadline ended the window, so no second window ran";
		goto out;
	}
	snprintf(raw2, sizeof(raw2), "%s/drilldown", oc->rr.an->raw_dir);
	if (o->live) {
		drill_suspects(cat, oc, &sus);
		if (drill_observe(o, cat, &run, raw2, red, &sus)) {
			oc->rr.drill_note = "the drill-down window failed (see the terminal)";
			goto out;
		}
	} else if (stat(raw2, &sb) || !S_ISDIR(sb.st_mode)) {
		oc->rr.drill_note = "this bundle recorded no drill-down window (raw/drilldown)";
		goto out;
	}
	if (analysis__open(&oc->drill_an, raw2, err, sizeof(err))) {
		fprintf(stderr, "sonde: reading the drill-down captures: %s\n", err);
		oc->rr.drill_note = "the drill-down captures could not be read";
		goto out;
	}
	oc->drill_open = 1;
	oc->drill_an.drilldown = 1;
	oc->drill_an.focus_container = o->focus_container;
	oc->drill_an.focus_pod = o->focus_pod;
	oc->rr.drill_an = &oc->drill_an;
	drill_refused(oc, &run);
	nr = realloc(oc->res, (oc->rr.nres + run.n + 1) * sizeof(*nr));
	if (!nr)
		goto out;
	oc->res = oc->rr.res = nr;
	defs = calloc(run.n + 1, sizeof(*defs));
	if (!defs)
		goto out;
	for (size_t i = 0; i < run.n; i++)
		defs[i] = catalog__check(cat, run.v[i]);
	memset(&oc->res[oc->rr.nres], 0, run.n * sizeof(*nr));
	engine__run_checks(cat, defs, run.n, &oc->drill_an, &engine_default_limits,
			   engine__jobs(), &oc->res[oc->rr.nres]);
	oc->rr.nres += run.n;
	free(defs);
	free(oc->rr.rank);
	oc->rr.rank = NULL;
	oc->rr.nrank = 0;
	report__rank(&oc->rr);
out:
	strv__free(&sus.tools);
	strv__free(&run);
}
