// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The terminal summary, from the report model: the verdict, the USE matrix
 * in colour, the other findings, and how many checks failed or could not see
 * everything. Host text goes through the terminal sanitizer (util/tty.h).
 */
#include <string.h>

#include "report/model.h"
#include "util/tty.h"

static const char *st_color(enum status st, int color)
{
	if (!color)
		return "";
	switch (st) {
	case ST_CRIT:
		return "\033[1;31m";
	case ST_WARN:
		return "\033[33m";
	case ST_OK:
		return "\033[32m";
	case ST_ERROR:
		return "\033[35m";
	default:
		return "\033[2m";
	}
}

static void tty_matrix(FILE *f, const struct use_matrix *u, int color)
{
	const char *reset = color ? "\033[0m" : "";
	int rw = 8; /* the longest resource name sets the first column */

	for (size_t ri = 0; ri < u->m->resources.n; ri++)
		if ((int)strlen(u->m->resources.v[ri]) > rw)
			rw = (int)strlen(u->m->resources.v[ri]);
	fprintf(f, "%-*s", rw + 2, "USE");
	for (size_t mi = 0; mi < u->m->metrics.n; mi++)
		fprintf(f, "  %-12s", u->m->metrics.v[mi]);
	fputc('\n', f);
	for (size_t ri = 0; ri < u->m->resources.n; ri++) {
		fprintf(f, "  %-*s", rw, u->rows[ri].resource);
		for (size_t mi = 0; mi < u->m->metrics.n; mi++) {
			const struct matrix_cell *c = &u->rows[ri].cells[mi];
			const char *w = c->na ? "n/a" : status__name(c->st);

			fprintf(f, "  %s%-12s%s", st_color(c->st, color), w, reset);
		}
		fputc('\n', f);
	}
}

void report__terminal(const struct report_model *m, FILE *f, int color)
{
	const struct run_report *rr = m->rr;
	const char *reset = color ? "\033[0m" : "", *bold = color ? "\033[1m" : "";
	size_t nunk = 0, nerr = 0;

	fprintf(f, "sonde %s · ", SONDE_VERSION);
	tty__puts(f, rr->an->hostname);
	fprintf(f, " · %.1f s window, %u samples%s\n\n", rr->an->elapsed_s, rr->an->samples,
		rr->an->partial ? " (partial: cut short)" : "");
	fprintf(f, "%sVerdict:%s ", bold, reset);
	tty__puts(f, m->verdict);
	fputs("\n\n", f);
	if (m->use.m)
		tty_matrix(f, &m->use, color);
	if (rr->nrank > 1) {
		fputs("\nOther findings:\n", f);
		for (size_t k = 1; k < rr->nrank; k++) {
			const struct report_finding *fi = &m->findings[k];

			fprintf(f, "  %zu. %s%-4s%s ", k + 1, st_color(fi->r->st, color),
				status__name(fi->r->st), reset);
			tty__puts(f, fi->summary);
			if (fi->explained[0]) {
				fputs(" [", f);
				tty__puts(f, fi->explained);
				fputc(']', f);
			}
			fputc('\n', f);
		}
	}
	for (size_t i = 0; i < rr->nres; i++) {
		nunk += rr->res[i].nunknowns;
		nerr += rr->res[i].st == ST_ERROR;
	}
	fprintf(f, "\n%zu checks", rr->nres);
	if (nerr)
		fprintf(f, ", %s%zu failed%s (see the report's appendix)", st_color(ST_ERROR, color),
			nerr, reset);
	fprintf(f, "; %zu known unknowns (metrics this host cannot show, with the reason, in the "
		   "report)\n",
		nunk);
}
