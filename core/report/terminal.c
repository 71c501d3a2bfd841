// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The terminal summary, from the report model: the verdict, the USE matrix
 * in colour, the other findings, and how many checks failed or could not see
 * everything. Host text goes through the terminal sanitizer (util/tty.h).
 * sonde show draws a bundle's matrix and findings with the same functions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/model.h"
#include "util/tty.h"

int report__tty_redraw(int fd)
{
	const char *term = getenv("TERM");

	return isatty(fd) && term && *term && strcmp(term, "dumb");
}

int report__tty_color(int fd)
{
	const char *no = getenv("NO_COLOR");

	return report__tty_redraw(fd) && !(no && *no);
}


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

/* s cleaned for the terminal (host or bundle text, NULL "-"), padded to width. */
static void tty_padded(FILE *f, const char *s, int width)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "%s", s ? s : "-");
	tty__clean_str(buf);
	fprintf(f, "%-*s", width, buf);
}

void report__tty_matrix(FILE *f, const struct matrix_row *rows, size_t nrows,
			const char *const *metrics, size_t nmetrics, int color)
{
	const char *reset = color ? "\033[0m" : "";
	int rw = 8; /* the longest resource name sets the first column; names are never cut */

	for (size_t ri = 0; ri < nrows; ri++) {
		size_t len = rows[ri].resource ? strlen(rows[ri].resource) : 0;

		/* a crafted bundle's name of 64 or more does not widen every row */
		if (len > (size_t)rw && len < 64)
			rw = (int)len;
	}
	fprintf(f, "%-*s", rw + 2, "USE");
	for (size_t mi = 0; mi < nmetrics; mi++)
		fprintf(f, "  %-12s", metrics[mi]);
	fputc('\n', f);
	for (size_t ri = 0; ri < nrows; ri++) {
		fputs("  ", f);
		tty_padded(f, rows[ri].resource, rw);
		for (size_t mi = 0; mi < nmetrics; mi++) {
			const struct matrix_cell *c = &rows[ri].cells[mi];
			const char *w = c->na ? "n/a" : status__name(c->st);

			fprintf(f, "  %s%-12s%s", st_color(c->st, color), w, reset);
		}
		fputc('\n', f);
	}
}

void report__tty_finding(FILE *f, size_t n, enum status st, const char *summary,
			 const char *explained, int color)
{
	fprintf(f, "  %zu. %s%-4s%s ", n, st_color(st, color), status__name(st),
		color ? "\033[0m" : "");
	tty__puts(f, summary);
	if (explained && explained[0]) {
		fputs(" [", f);
		tty__puts(f, explained);
		fputc(']', f);
	}
	fputc('\n', f);
}

/*
 * Kinds of known unknowns, told apart by what their reasons say (the
 * reasons are sonde's own words, from the checks and the tools), each with
 * what would show them. The first kind whose any pattern is in a reason
 * takes it; the order puts what the user chose (--no-bpf) before what the
 * host lacks, and what can be fixed here before what cannot.
 */
static const struct unknown_kind {
	const char *what, *how;
	const char *pat[8];
} unknown_kinds[] = {
	{ "BPF tools off", "run without --no-bpf", { "--no-bpf" } },
	{ "perf counters off", "run without --no-perf", { "--no-perf" } },
	/* before "need privileges": root already, what is missing is the ptrace right */
	{ "need ptrace rights",
	  "keep CAP_SYS_PTRACE (a unit's CapabilityBoundingSet, a container's capabilities): "
	  "root without it may not read a non-dumpable process",
	  { "although sonde ran as root" } },
	/* before "need privileges": sonde has the right, a policy above it refuses */
	{ "refused by a policy", "run sonde outside the container or unit whose seccomp filter "
				 "refuses bpf() or perf_event_open(), or allow them there",
	  { "seccomp filter", "kernel lockdown" } },
	{ "need privileges", "run as root (or grant CAP_BPF, CAP_PERFMON and CAP_SYSLOG)",
	  { "root", "CAP_", "permission denied", "not permitted", "perf_event_paranoid",
	    "hidepid", "kptr_restrict" } },
	{ "need tracefs", "mount tracefs at /sys/kernel/tracing (mount -t tracefs nodev "
			  "/sys/kernel/tracing)", { "tracefs" } },
	{ "need kernel BTF", "a kernel built with CONFIG_DEBUG_INFO_BTF (/sys/kernel/btf/vmlinux)",
	  { "BTF" } },
	{ "need hardware counters", "a bare-metal host, or a VM whose hypervisor exposes a "
				    "virtual PMU", { "PMU", "hardware counter" } },
	{ "need a debug kernel", "a kernel with CONFIG_LOCK_STAT or lockdep (debug options)",
	  { "CONFIG_LOCK_STAT", "CONFIG_PROVE_LOCKING", "lockdep" } },
	{ "need PSI", "Linux 4.20+ with CONFIG_PSI, booted with psi=1 where it is off by default "
		      "(RHEL 8)", { "CONFIG_PSI" } },
	{ "need cgroup v2", "boot with cgroup v2 (systemd.unified_cgroup_hierarchy=1)",
	  { "cgroup v2" } },
	{ "not measured by this version", "see docs/ (a later sonde may)",
	  { "this version", "uprobes on" } },
	{ "not reported by this hardware or driver", "nothing to do on this host",
	  { "EDAC", "MCE", "Advanced Error Reporting", "ioerr_cnt", "link speed",
	    "throughput limit", "pids controller" } },
};
#define NKINDS (sizeof(unknown_kinds) / sizeof(*unknown_kinds))

static size_t unknown_kind_of(const char *reason)
{
	for (size_t k = 0; k < NKINDS; k++)
		for (size_t p = 0; p < 8 && unknown_kinds[k].pat[p]; p++)
			if (reason && strstr(reason, unknown_kinds[k].pat[p]))
				return k;
	return NKINDS; /* another kind: its reason is in the report */
}

/* After the verdict: one line per kind of unknown, with how to get it. */
static void tty_unknowns(FILE *f, const struct run_report *rr, size_t nunk)
{
	size_t count[NKINDS + 1] = { 0 };

	for (size_t i = 0; i < rr->nres; i++)
		for (size_t u = 0; u < rr->res[i].nunknowns; u++)
			count[unknown_kind_of(rr->res[i].unknowns[u].reason)]++;
	fprintf(f, "%zu known unknown%s (metrics this host cannot show; each reason is in the "
		   "report):\n", nunk, nunk == 1 ? "" : "s");
	for (size_t k = 0; k < NKINDS; k++)
		if (count[k])
			fprintf(f, "  %3zu %s: %s\n", count[k], unknown_kinds[k].what,
				unknown_kinds[k].how);
	if (count[NKINDS])
		fprintf(f, "  %3zu other: see \"Known unknowns\" in report.md\n", count[NKINDS]);
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
	fputc('\n', f);
	if (m->next[0]) {
		fprintf(f, "%sNext:%s ", bold, reset);
		tty__puts(f, m->next);
		fputc('\n', f);
	}
	fputc('\n', f);
	if (m->use.m)
		report__tty_matrix(f, m->use.rows, m->use.m->resources.n,
				   (const char *const *)m->use.m->metrics.v, m->use.m->metrics.n,
				   color);
	if (rr->nrank > 1) {
		fputs("\nOther findings:\n", f);
		for (size_t k = 1; k < rr->nrank; k++)
			report__tty_finding(f, k + 1, m->findings[k].r->st, m->findings[k].summary,
					    m->findings[k].explained, color);
	}
	for (size_t i = 0; i < rr->nres; i++) {
		nunk += rr->res[i].nunknowns;
		nerr += rr->res[i].st == ST_ERROR;
	}
	fprintf(f, "\n%zu check%s", rr->nres, rr->nres == 1 ? "" : "s");
	if (nerr)
		fprintf(f, ", %s%zu failed%s (see the report's appendix)", st_color(ST_ERROR, color),
			nerr, reset);
	if (!nunk) {
		fputs("; no known unknown\n", f);
		return;
	}
	fputs("; ", f);
	tty_unknowns(f, rr, nunk);
}
