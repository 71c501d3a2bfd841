// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sonde show: a bundle's summary rebuilt from its findings.json (read as
 * untrusted; its matrix and findings drawn by the terminal renderer,
 * report/terminal.c, as the run drew them), or its Prometheus metrics
 * (built from findings.json by the names sonde run --metrics uses), or
 * findings.json, report.md or one member as it is.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bundle/read.h"
#include "cmd/cmd.h"
#include "report/model.h"
#include "report/report.h"
#include "run/run.h"
#include "util/file.h"
#include "util/json_read.h"
#include "util/tty.h"

struct show_opts {
	int json, md, metrics, metrics_host;
};

static const struct cmd_option options[] = {
	{ .name = "json", .letter = 'j', .kind = CMD_OPT_FLAG,
	  .field = offsetof(struct show_opts, json), .help = "print findings.json" },
	{ .name = "md", .kind = CMD_OPT_FLAG, .field = offsetof(struct show_opts, md),
	  .help = "print report.md" },
	{ .name = "metrics", .kind = CMD_OPT_FLAG, .field = offsetof(struct show_opts, metrics),
	  .help = "print the run's Prometheus metrics (text format), the\n"
		  "same as 'sonde run --metrics' wrote for it" },
	{ .name = "metrics-host", .kind = CMD_OPT_FLAG,
	  .field = offsetof(struct show_opts, metrics_host),
	  .help = "with --metrics: also the host's figures node_exporter\n"
		  "publishes itself, as 'sonde run --metrics-host'" },
	{ NULL },
};

const struct cmd_help cmd_show_help = {
	.usage = "sonde show BUNDLE [MEMBER] [--json | --md | --metrics [--metrics-host]]",
	.description =
		"Print a bundle's summary (verdict, USE matrix, findings) from its findings.json,\n"
		"or findings.json itself (--json), or report.md (--md), or its Prometheus\n"
		"metrics (--metrics, docs/metrics.md), or one MEMBER as it is (e.g.\n"
		"raw/proc.stat.cap). Only what is shown is taken out of the bundle, into a\n"
		"private directory removed afterwards (on Ctrl-C or a closed pipe too);\n"
		"nothing else is written.\n",
	.options = options,
};

/* findings.json of an opened bundle (untrusted): 0 with *doc, or EXIT_RUN_FAILED (said). */
static int read_findings(const char *dir, struct jval **doc)
{
	char path[4200], err[256], *text = NULL;
	size_t len = 0;
	int rc;

	snprintf(path, sizeof(path), "%s/findings.json", dir);
	rc = file__read_bounded(AT_FDCWD, path, 64u << 20, &text, &len);
	if (rc || json_read(text, len, &json_read_default_limits, doc, err, sizeof(err))) {
		fprintf(stderr, "sonde: findings.json: %s\n", rc ? strerror(-rc) : err);
		free(text);
		return EXIT_RUN_FAILED;
	}
	free(text);
	return 0;
}

/* The metrics sonde run --metrics wrote for this run, made again from findings.json. */
static int show_metrics(const char *dir, int host)
{
	struct metrics_opts mo = { .host = host };
	struct strbuf out = { 0 };
	struct jval *doc = NULL;
	char err[256];
	int rc = read_findings(dir, &doc);

	if (rc)
		return rc;
	rc = report__metrics_from_findings(doc, &mo, &out, err, sizeof(err));
	if (rc)
		fprintf(stderr, "sonde: %s\n", err);
	else
		fwrite(out.buf, 1, out.len, stdout);
	strbuf__free(&out);
	jval__free(doc);
	return rc ? EXIT_RUN_FAILED : 0;
}

/* The USE matrix of findings.json, drawn by the terminal renderer: 0, or -ENOMEM. */
static int show_matrix(const struct jval *m, int color)
{
	static const char *const cols[] = { "utilization", "saturation", "errors" };
	struct matrix_cell *cells = calloc(m->len * 3 + 1, sizeof(*cells));
	struct matrix_row *rows = calloc(m->len + 1, sizeof(*rows));

	if (!cells || !rows) {
		free(cells);
		free(rows);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->len; i++) {
		rows[i].resource = m->keys[i];
		rows[i].cells = &cells[i * 3];
		for (int c = 0; c < 3; c++) {
			const char *w = jval__str(jval__get(&m->items[i], cols[c]), "status");
			int st = status__parse(w);

			/* a word that is no status (a crafted file's) shows as unknown */
			rows[i].cells[c].na = w && !strcmp(w, "n/a");
			rows[i].cells[c].st = st >= 0 ? (enum status)st :
				rows[i].cells[c].na ? ST_SKIP : ST_UNKNOWN;
		}
	}
	putchar('\n');
	report__tty_matrix(stdout, rows, m->len, cols, 3, color);
	free(rows);
	free(cells);
	return 0;
}

/* The terminal summary, rebuilt from findings.json (read as untrusted). */
static int show_summary(const char *dir)
{
	const struct jval *v, *m, *f;
	struct jval *doc = NULL;
	int color = report__tty_color(STDOUT_FILENO);
	double num;
	int rc = read_findings(dir, &doc);

	if (rc)
		return rc;
	v = jval__get(doc, "host");
	printf("bundle of ");
	tty__puts(stdout, jval__str(v, "hostname"));
	m = jval__get(doc, "window");
	printf(" · ");
	tty__puts(stdout, jval__str(m, "start") ? jval__str(m, "start") : "?");
	if (!jval__num(m, "seconds", &num))
		printf(" · %.1f s window", num);
	v = jval__get(m, "partial");
	if (v && v->type == J_BOOL && v->boolean)
		printf(" (partial)");
	printf("\n\nVerdict: ");
	tty__puts(stdout, jval__str(doc, "verdict"));
	printf("\n");
	m = jval__get(doc, "use_matrix");
	if (m && m->type == J_OBJECT && show_matrix(m, color))
		run__die_oom();
	f = jval__get(doc, "findings");
	if (f && f->type == J_ARRAY && f->len) {
		printf("\nFindings:\n");
		for (size_t i = 0; i < f->len; i++) {
			int st = status__parse(jval__str(&f->items[i], "severity"));

			report__tty_finding(stdout, i + 1, st >= 0 ? (enum status)st : ST_UNKNOWN,
					    jval__str(&f->items[i], "summary"), NULL, color);
		}
	}
	jval__free(doc);
	return 0;
}

int cmd_show(int argc, char **argv)
{
	const char *cmd = "show";
	struct show_opts o = { 0 };
	struct bundle_want want = { 0 };
	char dir[4096];
	int idx, opened;

	idx = cmd__parse(cmd, &cmd_show_help, &o, argc, argv);
	if (idx >= argc)
		run__die_usage(cmd, "which bundle? sonde show BUNDLE [MEMBER]");
	if (idx + 2 < argc)
		run__die_usage(cmd, "unexpected argument '%s'", argv[idx + 2]);
	if ((o.json || o.md || o.metrics) && idx + 1 < argc)
		run__die_usage(cmd, "give a MEMBER or --json/--md/--metrics, not both");
	if (o.json + o.md + o.metrics > 1)
		run__die_usage(cmd, "one of --json, --md and --metrics");
	if (o.metrics_host && !o.metrics)
		run__die_usage(cmd, "--metrics-host goes with --metrics");
	/* Only the member shown is written out of the bundle. */
	want.name = idx + 1 < argc ? argv[idx + 1] : o.md ? "report.md" : "findings.json";
	if (!*want.name || want.name[0] == '/' || strstr(want.name, ".."))
		run__die_usage(cmd, "%s: not a member name", want.name);
	cmd__open_members(cmd, argv[idx], &want, 1, dir, sizeof(dir), &opened);
	if (idx + 1 < argc || o.json || o.md)
		return run_finish__print_member(dir, want.name);
	if (o.metrics)
		return show_metrics(dir, o.metrics_host);
	return show_summary(dir);
}
