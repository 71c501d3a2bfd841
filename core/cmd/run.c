// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sonde run: observe this host for one window, run the checks over what was
 * captured, print the verdict and write the bundle. The stages are in
 * core/run/; this file is the order they run in.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle/bundle.h"
#include "bundle/redact.h"
#include "bundle/upload.h"
#include "cmd/cmd.h"
#include "report/report.h"
#include "run/run.h"
#include "util/file.h"
#include "util/pin.h"

#define F(field) offsetof(struct run_opts, field)

static const struct cmd_choice priorities[] = {
	{ "low", 0 },
	{ "normal", 1 },
	{ NULL, 0 },
};

static const struct cmd_choice upload_methods[] = {
	{ "put", 0 },
	{ "post", 1 },
	{ NULL, 0 },
};

static const struct cmd_option options[] = {
	{ .name = "window", .letter = 'w', .arg = "SECONDS", .kind = CMD_OPT_SECONDS,
	  .field = F(window_s), .max = 3600,
	  .help = "length of the observation window (default 10)" },
	{ .name = "interval", .letter = 'i', .arg = "SECONDS", .kind = CMD_OPT_SECONDS,
	  .field = F(interval_s), .max = 3600,
	  .help = "sampling interval inside the window (default 1)" },
	{ .name = "out", .letter = 'o', .arg = "DIR", .kind = CMD_OPT_STRING, .field = F(out_dir),
	  .help = "where the bundle goes (default: the current directory);\n"
		  "earlier bundles of this host there (this user's own)\n"
		  "continue the trends of resources that run out\n"
		  "(raw/history.cap)" },
	{ .name = "json", .letter = 'j', .kind = CMD_OPT_FLAG, .field = F(json),
	  .help = "print findings.json on stdout instead of the summary" },
	{ .name = "fail-on", .letter = 'f', .arg = "LEVEL", .kind = CMD_OPT_CHOICE,
	  .field = F(fail_on), .choices = cmd_fail_on_levels,
	  .help = "exit 3 when a finding is at least LEVEL (warn or crit)" },
	{ .name = "checks", .letter = 'C', .arg = "DIR", .kind = CMD_OPT_STRING,
	  .field = F(checks_dir),
	  .help = "also load DIR/<methodology>/*.lua (and DIR/lib/*.lua);\n"
		  "they run with the default set unless --check selects" },
	{ .name = "check", .letter = 'c', .arg = "ID", .kind = CMD_OPT_LIST,
	  .field = F(only_checks),
	  .help = "run only this check (repeatable; see 'sonde list')" },
	{ .name = "tag", .letter = 't', .arg = "TAG", .kind = CMD_OPT_LIST, .field = F(tags),
	  .help = "run the checks with this tag (default: 'default')" },
	{ .name = "priority", .arg = "low|normal", .kind = CMD_OPT_CHOICE,
	  .field = F(normal_priority), .choices = priorities,
	  .help = "low (default): nice 10 and the lowest best-effort\n"
		  "I/O priority, so sonde yields to the workload it\n"
		  "observes (until a Ctrl-C: then the report is awaited)" },
	{ .name = "set", .arg = "ID.ARG=VAL", .kind = CMD_OPT_LIST, .field = F(sets),
	  .help = "set a check argument, e.g. use.cpu-saturation.warn_runnable=2" },
	{ .name = "no-progress", .kind = CMD_OPT_CONST, .value = 0, .field = F(progress),
	  .help = "no progress line (it is shown only on a terminal anyway)" },
	{ .name = "no-bpf", .kind = CMD_OPT_FLAG, .field = F(no_bpf),
	  .help = "load no BPF tool: the checks run on /proc and /sys only,\n"
		  "and what needed tracing is reported as a known unknown" },
	{ .name = "timeout", .arg = "SECONDS", .kind = CMD_OPT_SECONDS, .field = F(timeout_s),
	  .max = 86400,
	  .help = "the run's deadline (default: the window + 300 s). A read\n"
		  "of /proc that hangs is given up after max(5 s, two\n"
		  "intervals) and the window ends there; past the\n"
		  "deadline the window ends, or, after it, sonde stops\n"
		  "and keeps the captures. The report says what hung" },
	{ .name = "container", .arg = "NAME", .kind = CMD_OPT_STRING, .field = F(focus_container),
	  .help = "narrow the culprits, the process tables and the\n"
		  "drill-down's suspects to one container: its name, Kubernetes\n"
		  "container name, id or id prefix; the host view stays" },
	{ .name = "pod", .arg = "POD", .kind = CMD_OPT_STRING, .field = F(focus_pod),
	  .help = "the same for a Kubernetes pod: NAMESPACE/NAME, or its UID" },
	{ .name = "methodology", .arg = "M", .kind = CMD_OPT_STRING, .field = F(methodology),
	  .help = "only the checks of M: use, workload, or drilldown (the\n"
		  "checks whose findings trigger a drill-down, then it)" },
	{ .name = "no-drilldown", .kind = CMD_OPT_FLAG, .field = F(no_drilldown),
	  .help = "no second window: a finding that calls for deeper\n"
		  "checks (methodologies/drilldown.lua) only says so.\n"
		  "By default it runs half as long as the first (>= 2 s)" },
	{ .name = "max-overhead", .arg = "PCT", .kind = CMD_OPT_PERCENT,
	  .field = F(max_overhead_pct),
	  .help = "sonde's budget: how much more CPU time, in %, the\n"
		  "work it watches may need (default 2). Each BPF tool's\n"
		  "cost is predicted before it is attached (its events'\n"
		  "rate from the kernel's counters x one run's cost here,\n"
		  "over the CPU time of the processes that pay it); one\n"
		  "that does not fit is not attached, or traces part of\n"
		  "the window, and the report says what was read instead.\n"
		  "sonde's own sampling is paid first: its share is set\n"
		  "aside before the tools are admitted. The overhead guard\n"
		  "checks every 0.1 s and detaches at once every tool over\n"
		  "what it was admitted for (what it gathered is kept; the\n"
		  "report says whose cost it was), never for sonde's own.\n"
		  "0: no budget, no guard" },
	{ .name = "no-perf", .kind = CMD_OPT_FLAG, .field = F(no_perf),
	  .help = "open no perf_event counter (perf.counters): IPC, stalls\n"
		  "and software counters become known unknowns" },
	{ .name = "redact", .kind = CMD_OPT_FLAG, .field = F(redact),
	  .help = "pseudonymize host, domain and user names and IPv4, IPv6\n"
		  "and MAC addresses, drop secrets from command lines, in\n"
		  "every file of the bundle and on the terminal; what each\n"
		  "pseudonym stands for goes next to the bundle, never in\n"
		  "it: NAME.redaction-map.json, mode 0600. What is caught\n"
		  "and what is not: docs/redaction.md" },
	{ .name = "metrics", .arg = "FILE", .kind = CMD_OPT_STRING, .field = F(metrics_path),
	  .help = "also write the results as Prometheus metrics to FILE\n"
		  "(text format, replaced atomically, mode 0644), e.g. for\n"
		  "node_exporter's textfile collector: --metrics\n"
		  "/var/lib/prometheus/node-exporter/sonde.prom\n"
		  "(docs/metrics.md; 'sonde show BUNDLE --metrics' too):\n"
		  "what node_exporter lacks (verdict, findings, checks,\n"
		  "percentiles, times to exhaustion, sonde's cost)" },
	{ .name = "metrics-host", .kind = CMD_OPT_FLAG, .field = F(metrics_host),
	  .help = "with --metrics: also the host's figures node_exporter\n"
		  "publishes itself (CPU, memory, disks, network... as\n"
		  "the checks aggregated the window), each naming its\n"
		  "node_exporter family" },
	{ .name = "case-id", .arg = "ID", .kind = CMD_OPT_STRING, .field = F(case_id),
	  .help = "a support case: in the bundle's name\n"
		  "(sonde-HOST-ID-TIME.tar.xz) and its manifest;\n"
		  "1 to 64 of A-Z a-z 0-9 . _ -" },
	{ .name = "upload", .arg = "URL", .kind = CMD_OPT_STRING, .field = F(upload_url),
	  .help = "send the bundle when it is written: https:// (or\n"
		  "http://) PUT or POST, or sftp://; for PUT and SFTP a\n"
		  "URL ending in '/' gets the bundle's name. Retried 3\n"
		  "times (waits 1, 2, 4 s); on failure the bundle stays\n"
		  "and sonde exits 4. A credential (user:password@, a\n"
		  "token, a signed query) is refused on the command line:\n"
		  "the URL goes in a file (--upload @FILE) or in\n"
		  "$SONDE_RUN_UPLOAD, a token in --upload-token-file,\n"
		  "or credentials in ~/.netrc. SFTP checks the server\n"
		  "in ~/.ssh/known_hosts" },
	{ .name = "upload-method", .arg = "put|post", .kind = CMD_OPT_CHOICE,
	  .field = F(upload_post), .choices = upload_methods,
	  .help = "put (default): the bundle is the request body;\n"
		  "post: multipart/form-data, the bundle as field\n"
		  "\"file\" (and --case-id as \"case_id\")" },
	{ .name = "upload-cacert", .arg = "FILE", .kind = CMD_OPT_STRING, .field = F(upload_cacert),
	  .help = "the CA certificates to check the server against\n"
		  "(a private CA; default: the system's)" },
	{ .name = "upload-token-file", .arg = "FILE", .kind = CMD_OPT_STRING,
	  .field = F(upload_token_file),
	  .help = "send the token on FILE's first line as \"Authorization:\n"
		  "Bearer TOKEN\" (https, http); without it, the token in\n"
		  "$SONDE_UPLOAD_TOKEN, if set. Never on the command line" },
	{ .name = "upload-timeout", .arg = "SECONDS", .kind = CMD_OPT_SECONDS,
	  .field = F(upload_timeout_s), .max = 86400,
	  .help = "the upload's deadline, every attempt and wait included\n"
		  "(default 300): a server that is slow, or answers\n"
		  "without end, is given up there; the bundle stays and\n"
		  "sonde exits 4" },
	{ .name = "keep", .arg = "N", .kind = CMD_OPT_COUNT, .field = F(keep), .max = 1000000,
	  .help = "retention: after writing the bundle, remove this host's\n"
		  "older bundles in --out beyond the newest N (and their\n"
		  "redaction maps), by their manifests, only this user's\n"
		  "own files; 0 (default): keep them all" },
	{ .name = "color", .arg = "auto|always|never", .kind = CMD_OPT_CHOICE, .field = F(color),
	  .choices = cmd_color_modes,
	  .help = "colour the summary (default: auto,\n"
		  "on a terminal unless NO_COLOR is set)" },
	/* Test hooks, not in --help: a made-up /proc and /sys; progress off a terminal;
	 * the first wait between upload attempts. */
	{ .name = "root", .arg = "DIR", .kind = CMD_OPT_STRING, .field = F(root) },
	{ .name = "upload-backoff", .arg = "SECONDS", .kind = CMD_OPT_SECONDS,
	  .field = F(upload_backoff_s), .max = 60 },
	{ .name = "progress", .kind = CMD_OPT_CONST, .value = 1, .field = F(progress) },
	{ NULL },
};

const struct cmd_help cmd_run_help = {
	.usage = "sonde run [options]",
	.description =
		"Observe this host for one window, run the checks over what was captured,\n"
		"print the verdict and write a bundle (report.md, report.html, findings.json,\n"
		"manifest.json and the raw captures) named sonde-HOST-UTCTIME.tar.xz, mode 0600.\n",
	.options = options,
	.notes = "Ctrl-C ends the window early: the checks run on what was captured so far\n"
		 "(no drill-down window follows) and the bundle is written, marked partial.\n"
		 "A second Ctrl-C (or one after the window) exits at once; the next run\n"
		 "removes what it left.\n\n"
		 "Exit status: 0 the run completed (whatever it found), 1 the run failed,\n"
		 "2 usage error, 3 a finding reached --fail-on, 4 the bundle is written but\n"
		 "--upload could not send it.\n",
};

/* --metrics FILE: a file in a writable directory, checked before the window. */
static void check_metrics_path(const char *cmd, const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[4096];
	struct stat sb;

	if (!*path || (slash && !slash[1]))
		run__die_usage(cmd, "--metrics %s: a file name, not a directory", path);
	if (!stat(path, &sb) && S_ISDIR(sb.st_mode))
		run__die_usage(cmd, "--metrics %s: a directory; name the file in it", path);
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) + (slash == path) : 1,
		 slash ? path : ".");
	if (stat(dir, &sb) || !S_ISDIR(sb.st_mode))
		run__die_usage(cmd, "--metrics %s: no directory %s", path, dir);
	if (access(dir, W_OK | X_OK))
		run__die_usage(cmd, "--metrics %s: %s is not writable: %s", path, dir,
			       strerror(errno));
}

/*
 * --upload @FILE: the URL from FILE's first line, for a URL that carries a
 * secret (a token, a pre-signed query, user:password@). A secret on the
 * command line would be in every process listing, and in this run's own
 * captures of it (raw/proc.pids.cap).
 */
static void read_upload_url(struct run_opts *o)
{
	char *text = NULL;
	size_t len = 0;
	int rc = file__read_bounded(AT_FDCWD, o->upload_url + 1, 8192, &text, &len);

	if (rc)
		run__die_usage(o->cmd, "--upload %s: %s", o->upload_url, strerror(-rc));
	text[strcspn(text, "\r\n")] = '\0';
	o->upload_url_owned = text;
	o->upload_url = text;
}

/*
 * The bearer token: --upload-token-file's first line, or $SONDE_UPLOAD_TOKEN.
 * A token in a file or the environment is not in any process listing, nor in
 * this run's captures of its own command line.
 */
static void read_upload_token(struct run_opts *o)
{
	const char *env = getenv("SONDE_UPLOAD_TOKEN");
	const char *from = "SONDE_UPLOAD_TOKEN";
	char *text = NULL;
	size_t len = 0;

	if (o->upload_token_file) {
		int rc = file__read_bounded(AT_FDCWD, o->upload_token_file, 8192, &text, &len);

		if (rc)
			run__die_usage(o->cmd, "--upload-token-file %s: %s", o->upload_token_file,
				       strerror(-rc));
		text[strcspn(text, "\r\n")] = '\0';
		from = "--upload-token-file";
	} else if (env && *env) {
		if (!(text = strdup(env)))
			run__die_oom();
	} else {
		return;
	}
	o->upload_token = text;
	if (!*text)
		run__die_usage(o->cmd, "%s: the token is empty", from);
	for (const char *t = text; *t; t++)
		if ((unsigned char)*t <= 0x20 || *t == 0x7f)
			run__die_usage(o->cmd, "%s: a token has no blanks or control characters",
				       from);
	if (!strncasecmp(o->upload_url, "sftp://", 7))
		run__die_usage(o->cmd, "%s: a bearer token is for https and http, not sftp", from);
}

/*
 * --upload and --case-id, before the window. The URL goes into the bundle's
 * command line without its query; a password is refused there (see above).
 */
static void check_upload(struct run_opts *o)
{
	char err[256], shown[4096], *at;

	if (o->case_id && !bundle__case_id_ok(o->case_id))
		run__die_usage(o->cmd, "--case-id '%s': 1 to 64 of A-Z a-z 0-9 . _ -, not "
			       "starting with '.' or '-'", o->case_id);
	if (!o->upload_url) {
		if (o->upload_post || o->upload_cacert || o->upload_timeout_s ||
		    o->upload_token_file)
			run__die_usage(o->cmd, "--upload-method, --upload-cacert, --upload-timeout "
				       "and --upload-token-file need --upload");
		return;
	}
	if (upload__built_in(err, sizeof(err)))
		run__die_usage(o->cmd, "--upload: %s", err);
	if (o->upload_url[0] == '@') {
		read_upload_url(o);
	} else if (strstr(o->command_line, o->upload_url) &&
		   redact__url_has_secret(o->upload_url)) {
		/* The same rules --redact drops credentials by (bundle/redact.h). */
		run__die_usage(o->cmd, "--upload: a credential on the command line (user:password@, "
			       "a token, a signed query) is seen by every process and captured in "
			       "the bundle; put the URL in a file (--upload @FILE), the token in "
			       "--upload-token-file, or credentials in ~/.netrc");
	}
	if (upload__url_check(o->upload_url, err, sizeof(err)))
		run__die_usage(o->cmd, "--upload: %s", err);
	read_upload_token(o);
	if (o->upload_cacert && access(o->upload_cacert, R_OK))
		run__die_usage(o->cmd, "--upload-cacert %s: %s", o->upload_cacert, strerror(errno));
	upload__url_shown(o->upload_url, shown, sizeof(shown));
	at = strstr(o->command_line, o->upload_url);
	if (at && strcmp(shown, o->upload_url)) {
		size_t head = (size_t)(at - o->command_line), n = strlen(o->upload_url);
		char *line = malloc(strlen(o->command_line) + strlen(shown) + 1);

		if (!line)
			run__die_oom();
		sprintf(line, "%.*s%s%s", (int)head, o->command_line, shown, at + n);
		free(o->command_line);
		o->command_line = line;
	}
}

/* The options, checked together and completed with their defaults. */
static void parse(struct run_opts *o, int argc, char **argv)
{
	int idx;

	run_opts__init(o, "run");
	o->command_line = cmd__command_line(argc + 1, argv - 1);
	idx = cmd__parse(o->cmd, &cmd_run_help, o, argc, argv);
	if (o->interval_s > o->window_s)
		run__die_usage(o->cmd, "--interval %g is longer than --window %g", o->interval_s,
			       o->window_s);
	if (o->window_s / o->interval_s > 100000)
		run__die_usage(o->cmd, "--interval %g: more than 100000 samples in the window",
			       o->interval_s);
	if (idx < argc)
		run__die_usage(o->cmd, "unexpected argument '%s'", argv[idx]);
	if (!o->out_dir)
		o->out_dir = ".";
	if (!o->timeout_s)
		o->timeout_s = o->window_s + 300;
	o->live = 1;
	o->drill_window_s = o->window_s / 2 > 2 ? o->window_s / 2 : 2;
	run_plan__check_out_dir(o->cmd, o->out_dir);
	if (o->metrics_path)
		check_metrics_path(o->cmd, o->metrics_path);
	else if (o->metrics_host)
		run__die_usage(o->cmd, "--metrics-host goes with --metrics FILE");
	check_upload(o);
}

int cmd_run(int argc, char **argv)
{
	struct run_opts o;
	struct run_plan plan;
	struct run_outcome oc = { 0 };
	char stage[4096], raw[4200], err[1024];
	struct window_result wr;
	struct redactor *red = NULL;
	struct analysis an;
	int rc, code, progress;

	run_cost__mark(&oc.rr.cost, NULL);
	parse(&o, argc, argv);
	{
		/* before the window: its rounds must not wait on a disk for sonde's own code */
		size_t text;
		const char *how;

		pin__own_text(&text, &how);
	}
	run_plan__make(&plan, &o);
	run_cost__mark(&oc.rr.cost, "plan");
	if (run_plan__stage(o.out_dir, stage, sizeof(stage), raw, sizeof(raw)))
		return EXIT_RUN_FAILED;

	run_observe__arm(&o, stage);
	/* the progress line redraws itself: not on a pipe, a file or a dumb terminal */
	progress = o.progress == -1 ?
			   (isatty(STDOUT_FILENO) && report__tty_redraw(STDERR_FILENO)) :
			   o.progress;
	rc = run_observe__window(&o, (const char *const *)plan.names.v, raw, o.window_s,
				 o.interval_s, progress, NULL, &wr, &oc.rr.cost, err,
				 sizeof(err));
	/* From here a signal means "stop now": the checks and the bundle take a second or less. */
	run_observe__stop_aborts();
	if (rc) {
		fprintf(stderr, "sonde: observing: %s (captures kept in %s)\n", err, stage);
		return EXIT_RUN_FAILED;
	}
	if (progress)
		fprintf(stderr, "  analyzing: %zu checks over %u samples...\r", plan.nsel, wr.samples);
	/* before --redact: the earlier bundles are matched by the real host name */
	run_history__gather(&o, &plan, raw);
	if (o.redact && !(red = run_observe__redact(&o, stage)))
		return EXIT_RUN_FAILED;

	rc = analysis__open(&an, raw, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "sonde: reading the captures: %s (kept in %s)\n", err, stage);
		return EXIT_RUN_FAILED;
	}
	o.progress_shown = progress;
	run_analyze__checks(&o, &plan, &an, &wr, red, &oc);
	code = run_finish__reports(&o, &oc, stage, 1, red, NULL);
	analysis__close(&an);
	redactor__free(red);
	run_plan__free(&plan);
	run_opts__free(&o);
	return code;
}
