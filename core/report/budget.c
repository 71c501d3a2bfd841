// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The budget of a window (--max-overhead) in the report: what sonde reserved
 * for its own sampling before the tools were admitted, and what it used, by
 * part. One sentence for the appendix and findings.json alike (budget.note).
 * Whose cost it was when the guard detached a tool is the tool's
 * (tool_stop__json, the appendix's row of the tool).
 */
#include <stdio.h>
#include <string.h>

#include "collect/analysis.h"
#include "report/model.h"
#include "util/json.h"

/*
 * When sonde's own sampling took what the tools needed, why (the budget
 * paragraph's last sentence and budget.note); "" when it did not.
 */
void report__budget_note(const struct run_budget *b, char *buf, size_t len)
{
	*buf = '\0';
	if (!b->has)
		return;
	if (b->reserved_pct >= b->budget_pct)
		snprintf(buf, len,
			 "sonde's own sampling alone was expected to take %.2f%% of the host's "
			 "CPU, the whole budget (--max-overhead %g%%): no tool was admitted but "
			 "those under 0.01%% of the host, and each one's reason says what it would "
			 "cost",
			 b->reserved_pct, b->budget_pct);
	else if (b->has_self && b->self_pct > b->budget_pct)
		snprintf(buf, len,
			 "sonde's own sampling used %.2f%% of the host's CPU, more than the whole "
			 "budget (--max-overhead %g%%) and than the %.2f%% reserved for it: it "
			 "does not fit this budget on this host; the overhead guard charged no "
			 "tool with it",
			 b->self_pct, b->budget_pct, b->reserved_pct);
}

/* "sampling rounds 1.31%, thread-state sampler 0.10%, ..., the rest 0.05%" */
static void parts_text(const double *part, double rest, char *buf, size_t len)
{
	size_t u = 0;

	for (int p = 0; p < SELF_PARTS && u < len; p++)
		u += (size_t)snprintf(buf + u, len - u, "%s %.2f%%, ",
				      self_part__what((enum self_part)p), part[p]);
	if (u < len)
		snprintf(buf + u, len - u, "the rest %.2f%%", rest);
}

/* Before a window's tools in the appendix: the budget they were admitted by. */
void report__doc_budget(struct doc *d, const struct analysis *an)
{
	const struct run_budget *b = &an->budget;
	char parts[400], note[600];
	struct inlines *in;

	if (!b->has)
		return;
	in = doc__para(d);
	inl__words(in, "Budget: --max-overhead %g%%. sonde's own sampling was reserved %.2f%% of "
		       "the host's CPU first (", b->budget_pct, b->reserved_pct);
	inl__text(in, b->reserved_how[0] ? b->reserved_how : "not predicted");
	inl__words(in, ")");
	if (b->has_self) {
		parts_text(b->self_part_pct, b->self_rest_pct, parts, sizeof(parts));
		inl__words(in, "; it used %.2f%% over the window: %s", b->self_pct, parts);
		if (b->self_max_pct > 0)
			inl__words(in, "; its costliest second %.2f%% (ending %.1f s in)",
				   b->self_max_pct, b->self_max_at_s);
	}
	inl__words(in, ".");
	report__budget_note(b, note, sizeof(note));
	if (note[0]) {
		inl__words(in, " ");
		inl__open(in, SPAN_STRONG);
		inl__words(in, "Note: %s.", note);
		inl__close(in);
	}
}

/* findings.json "budget" (and drilldown.budget): the window's, when it has one. */
void report__json_budget(struct json *j, const struct analysis *an)
{
	const struct run_budget *b = &an->budget;
	char note[600];

	if (!b->has && !b->has_self)
		return;
	json__key(j, "budget");
	json__begin_object(j);
	if (b->has) {
		json__kv_number(j, "max_overhead_pct", b->budget_pct);
		json__kv_number(j, "reserved_pct", b->reserved_pct);
		json__key(j, "reserved");
		json__begin_object(j);
		for (int p = 0; p < SELF_PARTS; p++)
			if (b->reserved_part_pct[p] > 0) {
				char key[48];

				snprintf(key, sizeof(key), "%s_pct",
					 self_part__name((enum self_part)p));
				json__kv_number(j, key, b->reserved_part_pct[p]);
			}
		json__end_object(j);
		json__kv_str(j, "reserved_how", b->reserved_how);
	}
	if (b->has_self) {
		json__key(j, "own");
		json__begin_object(j);
		json__kv_number(j, "pct", b->self_pct);
		self_parts__json(j, b->self_part_pct, b->self_rest_pct);
		if (b->self_max_pct > 0) {
			json__kv_number(j, "max_pct", b->self_max_pct);
			json__kv_number(j, "max_at_s", b->self_max_at_s);
		}
		json__end_object(j);
	}
	report__budget_note(b, note, sizeof(note));
	if (note[0])
		json__kv_str(j, "note", note);
	json__end_object(j);
}
