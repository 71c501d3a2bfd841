// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The Prometheus metrics (report/prom.h, report__metrics): names in base
 * units whatever a check calls its metric, label values that stay inside
 * their quotes whatever a host names its processes, objects that are names
 * (never pids or sentences), and the same text from the model and from the
 * findings.json rendered from that model.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/redact.h"
#include "lua/catalog.h"
#include "report/prom.h"
#include "report/report.h"
#include "util/json_read.h"
#include "tap.h"

static void test_names(void)
{
	static const struct {
		const char *check, *name, *unit, *want;
		double scale;
	} cases[] = {
		{ "use.cpu-saturation", "runq_p99_ms", "ms", "sonde_check_use_cpu_saturation_runq_p99_seconds", 1e-3 },
		{ "use.cpu-utilization", "busy_pct", "%", "sonde_check_use_cpu_utilization_busy_ratio", 0.01 },
		{ "workload.cpu-what", "cpu_irq_pct_max", "%", "sonde_check_workload_cpu_what_cpu_irq_max_ratio", 0.01 },
		{ "use.x", "lock_wait_p99_us", "us", "sonde_check_use_x_lock_wait_p99_seconds", 1e-6 },
		{ "use.net", "rx_bytes_per_s", "bytes/s", "sonde_check_use_net_rx_bytes_per_second", 1 },
		{ "use.mem", "memory_read_mb_s", "MB/s", "sonde_check_use_mem_memory_read_bytes_per_second", 1e6 },
		{ "use.mem", "available", "bytes", "sonde_check_use_mem_available_bytes", 1 },
		{ "use.mem", "cache", "MiB", "sonde_check_use_mem_cache_bytes", 1048576 },
		{ "use.cg", "throttled_s_per_s", "ratio", "sonde_check_use_cg_throttled_seconds_per_second", 1 },
		{ "w.sys", "syscalls_per_s_per_cpu", "/s", "sonde_check_w_sys_syscalls_per_second_per_cpu", 1 },
		{ "w.proc", "execs_per_s", "/s", "sonde_check_w_proc_execs_per_second", 1 },
		{ "w.proc", "iops", "IO/s", "sonde_check_w_proc_iops", 1 },
		{ "use.x", "Weird-Name.rate", NULL, "sonde_check_use_x_weird_name_rate", 1 },
		{ "use.x", "events_count", "", "sonde_check_use_x_events_count_value", 1 },
		{ "use.x", "bytes_total", "", "sonde_check_use_x_bytes_total_value", 1 },
		{ "use.x", "busy_ratio", "%", "sonde_check_use_x_busy_ratio", 0.01 },
		{ "use.x", "wait_seconds", "s", "sonde_check_use_x_wait_seconds", 1 },
		{ "use.x", "é\"\n{x}", "furlongs", "sonde_check_use_x_x", 1 },
	};
	char out[256];
	double scale;

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		int rc = prom__check_family(cases[i].check, cases[i].name, cases[i].unit, out,
					    sizeof(out), &scale);

		ok(!rc && !strcmp(out, cases[i].want) && scale == cases[i].scale,
		   "case %zu (unit %s) -> %s", i, cases[i].unit ? cases[i].unit : "none",
		   cases[i].want);
		if (rc || strcmp(out, cases[i].want) || scale != cases[i].scale)
			printf("#   got %s, scale %g\n", rc ? "an error" : out, scale);
	}
	ok(prom__check_family("use.x", "!!!", NULL, out, sizeof(out), &scale) != 0,
	   "a name with no word and no unit is refused");
	ok(prom__check_family("use.x", "a_very_long_name", "%", out, 20, &scale) != 0,
	   "a name that does not fit is refused, not cut");
}

static void test_objects(void)
{
	static const char *const good[] = { "sda", "nvme0n1", "/", "/var/lib/docker",
					    "0000:00:02.0", "/system.slice/ssh.service", "cpu1",
					    "eth0@if12", "cc1" };
	static const char *const bad[] = { "", "1234", "sonde (pid 8177)", "two words",
					   "quote\"d", "new\nline", "\xff", NULL };

	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++)
		ok(prom__object_ok(good[i]), "an object label: '%s'", good[i]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		ok(!prom__object_ok(bad[i]), "not an object label: bad[%zu]", i);
}

/* One sample line: NAME{k="v",...} VALUE, escapes inside the quotes only, valid UTF-8. */
static int sample_line_ok(const char *s, size_t n)
{
	size_t i = 0;
	char num[64];

	while (i < n && ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
			 s[i] == '_'))
		i++;
	if (!i)
		return 0;
	if (i < n && s[i] == '{') {
		for (i++;;) {
			size_t k = i;

			while (i < n && ((s[i] >= 'a' && s[i] <= 'z') || s[i] == '_'))
				i++;
			if (i == k || i + 1 >= n || s[i] != '=' || s[i + 1] != '"')
				return 0;
			for (i += 2; i < n && s[i] != '"'; i++) {
				if ((unsigned char)s[i] < 0x20)
					return 0;
				if (s[i] == '\\' && (i + 1 >= n || !strchr("\\\"n", s[++i])))
					return 0;
			}
			if (i >= n)
				return 0;
			i++;
			if (i < n && s[i] == ',') {
				i++;
				continue;
			}
			if (i >= n || s[i] != '}')
				return 0;
			i++;
			break;
		}
	}
	if (i >= n || s[i] != ' ' || n - i - 1 >= sizeof(num) || n - i - 1 == 0)
		return 0;
	memcpy(num, s + i + 1, n - i - 1);
	num[n - i - 1] = '\0';
	return isfinite(strtod(num, NULL)) && strspn(num, "0123456789.e+-") == strlen(num);
}

static int exposition_ok(const char *text)
{
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		if (!nl)
			return 0; /* every line ends */
		if (*p != '#' && !sample_line_ok(p, n)) {
			printf("# bad line: %.*s\n", (int)n, p);
			return 0;
		}
		p = nl + 1;
	}
	return 1;
}

static char *dup(const char *s)
{
	return s ? strdup(s) : NULL;
}

static void metric(struct check_result *r, const char *name, const char *unit, const char *inst,
		   double v, enum status st)
{
	r->metrics = realloc(r->metrics, (r->nmetrics + 1) * sizeof(*r->metrics));
	r->metrics[r->nmetrics++] = (struct metric){ .name = dup(name), .unit = dup(unit),
						     .instance = dup(inst), .value = v, .st = st };
}

static char *redact_label(void *arg, const char *value)
{
	return redactor__text(arg, value, strlen(value), 0, NULL);
}

/*
 * --redact --metrics: the label values from the host go through the
 * redactor, the text does not. Learned user names equal to a label name
 * ("check") and to a culprit's comm ("db") change the values only.
 */
static void test_redacted(const struct report_model *m)
{
	static const char learn[] = "ssh check@srv.example.org; ls /home/db/";
	struct redactor *r = redactor__new();
	struct metrics_opts mo = { .redact = redact_label, .redact_arg = r };
	struct strbuf out = { 0 };

	ok(r && !redactor__learn(r, learn, strlen(learn), REDACT_CMDLINE), "names learned");
	ok(!report__metrics(m, &mo, &out) && out.buf, "the model renders through the redactor");
	if (out.buf) {
		ok(exposition_ok(out.buf), "every line is still NAME{LABELS} VALUE");
		ok(strstr(out.buf, "sonde_finding_rank{check=\"use.cpu-saturation\"} 1\n") &&
			   !strstr(out.buf, "{user-"),
		   "a learned name equal to a label name leaves the label alone");
		ok(strstr(out.buf, "comm=\"user-") && !strstr(out.buf, "comm=\"db\""),
		   "a culprit's comm that is a learned name is a pseudonym");
		ok(strstr(out.buf, "# HELP sonde_finding a finding of the run: its check,") != NULL,
		   "HELP text is sonde's, not redacted");
	}
	strbuf__free(&out);
	redactor__free(r);
}

static void test_model_and_findings(void)
{
	static const char *const ids[] = { "use.cpu-saturation", "use.disk-utilization",
					   "workload.process-who" };
	static const char *const evil = "a\"b\\c\nd}e{f=\"g\xff\xfe";
	struct catalog cat;
	struct check_result res[3];
	struct run_report rr = { 0 };
	struct report_model *m = NULL;
	struct strbuf js = { 0 }, a = { 0 }, b = { 0 };
	struct analysis an = { 0 };
	struct jval *doc = NULL;
	char err[512];

	if (catalog__load(&cat, NULL, err, sizeof(err))) {
		ok(0, "the embedded catalog loads: %s", err);
		return;
	}
	memset(res, 0, sizeof(res));
	for (size_t i = 0; i < 3; i++)
		res[i].def = catalog__check(&cat, ids[i]);
	res[0].st = ST_CRIT;
	metric(&res[0], "runq_p99_ms", "ms", NULL, 123.456789, ST_CRIT);
	metric(&res[0], "psi_some_pct", "%", NULL, 1.0 / 3, ST_OK);
	metric(&res[0], "nan_metric", "", NULL, NAN, ST_OK);
	res[0].culprits = calloc(3, sizeof(*res[0].culprits));
	res[0].culprits[0] = (struct culprit){ .pid = 7, .comm = dup(evil), .share = 0.1 };
	res[0].culprits[1] = (struct culprit){ .pid = 8, .comm = dup(evil), .share = 0.2 };
	res[0].culprits[2] = (struct culprit){ .pid = 9, .comm = dup("db"), .share = 0.3 };
	res[0].nculprits = 3;
	res[1].st = ST_WARN;
	metric(&res[1], "busy_pct", "%", "sda", 88, ST_WARN);
	metric(&res[1], "busy_pct", "%", evil, 99, ST_CRIT);
	metric(&res[1], "busy_pct", "%", "proc (pid 12)", 99, ST_CRIT);
	res[2].st = ST_UNKNOWN;
	res[2].unknowns = calloc(1, sizeof(*res[2].unknowns));
	res[2].unknowns[0] = (struct unknown_metric){ .name = dup("x"), .reason = dup(evil) };
	res[2].nunknowns = 1;
	snprintf(an.hostname, sizeof(an.hostname), "%s", evil);
	snprintf(an.kernel, sizeof(an.kernel), "6.1");
	an.end_wall_ns = 1795607077123456789LL;
	an.elapsed_s = 10.25;
	an.interval_s = 1;
	an.samples = 11;
	an.cpus = 8;
	an.mem_total = 1ULL << 34;
	rr.cat = &cat;
	rr.an = &an;
	rr.res = res;
	rr.nres = 3;
	rr.command = "sonde run";
	rr.cost.user_s = 0.1;
	rr.cost.sys_s = 0.2;
	rr.cost.peak_rss_kb = 12345;
	ok(!report__rank(&rr) && rr.nrank == 2, "two findings ranked");
	ok(!report__build(&rr, &m) && m, "the model builds");
	if (!m)
		goto out;
	ok(!report__metrics(m, NULL, &a) && a.buf, "the model renders as metrics");
	ok(!report__json(m, &js) &&
		   !json_read(js.buf, js.len, &json_read_default_limits, &doc, err, sizeof(err)),
	   "and as findings.json, which reads back");
	ok(doc && !report__metrics_from_findings(doc, NULL, &b, err, sizeof(err)) && b.buf,
	   "findings.json renders as metrics");
	ok(a.buf && b.buf && !strcmp(a.buf, b.buf),
	   "the same text from the model and from its findings.json");
	if (a.buf && b.buf && strcmp(a.buf, b.buf)) {
		size_t k = 0;

		while (a.buf[k] == b.buf[k])
			k++;
		while (k && a.buf[k - 1] != '\n')
			k--;
		printf("#   model:    %.200s\n#   findings: %.200s\n", a.buf + k, b.buf + k);
	}
	if (!a.buf || !b.buf)
		goto out;
	ok(exposition_ok(a.buf), "every line is a comment or NAME{LABELS} VALUE, labels closed");
	ok(strstr(a.buf, "sonde_check_use_cpu_saturation_runq_p99_seconds 0.123456789\n") != NULL,
	   "ms in seconds, digits kept");
	ok(strstr(a.buf, "sonde_check_use_cpu_saturation_psi_some_ratio 0.00333333333333333") !=
		   NULL,
	   "a third of a percent as a ratio");
	ok(strstr(a.buf, "comm=\"a\\\"b\\\\c?d}e{f=\\\"g\xef\xbf\xbd\xef\xbf\xbd\"} 0.3") != NULL,
	   "a hostile comm: escaped, invalid bytes replaced, its two shares summed");
	ok(strstr(a.buf, "{object=\"sda\"} 0.88") && !strstr(a.buf, "pid 12") &&
		   !strstr(a.buf, "object=\"a"),
	   "a disk is an object; a process and a sentence are not");
	ok(strstr(a.buf, "# sonde: 4 samples left out: their object") != NULL,
	   "and what was left out is counted (two metrics, two cells of the matrix)");
	ok(strstr(a.buf, "sonde_run_timestamp_seconds 1795607077\n") != NULL,
	   "the timestamp in whole seconds, as findings.json has it");
	ok(strstr(a.buf, "sonde_findings{severity=\"crit\"} 1\n") &&
		   strstr(a.buf, "sonde_findings{severity=\"warn\"} 1\n") &&
		   strstr(a.buf, "sonde_worst_severity 2\n") &&
		   strstr(a.buf, "sonde_known_unknowns 1\n"),
	   "the summary counts");
	ok(strstr(a.buf, "sonde_finding_rank{check=\"use.cpu-saturation\"} 1\n") != NULL,
	   "the rank of the first finding");
	ok(!strstr(a.buf, "nan") && !strstr(a.buf, "NaN"), "a NaN metric is left out");
	test_redacted(m);
out:
	jval__free(doc);
	strbuf__free(&js);
	strbuf__free(&a);
	strbuf__free(&b);
	report__free(m);
	free(rr.rank);
	for (size_t i = 0; i < 3; i++)
		check_result__free(&res[i]);
	catalog__free(&cat);
}

/* findings.json as an attacker writes it: wrong types everywhere, nothing crashes. */
static void test_hostile_findings(void)
{
	static const char *const docs[] = {
		"{\"schema\":\"sonde.findings/1\"}",
		"{\"schema\":\"sonde.findings/1\",\"host\":1,\"window\":[],\"findings\":{},"
		"\"use_matrix\":[1],\"use_matrix_instances\":{\"a\":1},\"checks\":\"x\"}",
		"{\"schema\":\"sonde.findings/1\",\"findings\":[1,{\"check\":2},{\"check\":\"c\","
		"\"culprits\":[{\"comm\":null,\"share\":\"x\"}]}],\"checks\":[{\"id\":\"i\","
		"\"metrics\":[{\"name\":\"m\",\"value\":\"1\"},{\"name\":\"n\",\"value\":1e308,"
		"\"unit\":\"%\"}]}],\"window\":{\"end\":\"2026-13-45T99:99:99Z\"}}",
	};
	struct strbuf out = { 0 };
	struct jval *doc = NULL;
	char err[256];

	for (size_t i = 0; i < sizeof(docs) / sizeof(*docs); i++) {
		int rc = json_read(docs[i], strlen(docs[i]), &json_read_default_limits, &doc, err,
				   sizeof(err));

		out.len = 0;
		ok(!rc && !report__metrics_from_findings(doc, NULL, &out, err, sizeof(err)) &&
			   exposition_ok(out.buf),
		   "crafted findings.json %zu renders well-formed metrics", i);
		jval__free(doc);
		doc = NULL;
	}
	json_read("{\"schema\":\"x\"}", 14, &json_read_default_limits, &doc, err, sizeof(err));
	ok(report__metrics_from_findings(doc, NULL, &out, err, sizeof(err)) && strstr(err, "schema"),
	   "another schema is refused: %s", err);
	jval__free(doc);
	strbuf__free(&out);
}

/*
 * What is published by default (what node_exporter lacks) and with
 * PROM_HOST, and the HELP of a check's metric: its aggregation over its
 * window, what it counts, and the node_exporter family that has it.
 */
static void test_host_and_aggregation(void)
{
	const struct prom_metric ms[] = {
		{ .check = "use.x", .name = "busy_pct", .unit = "%", .agg = "mean",
		  .node_exporter = "node_cpu_seconds_total", .value = 50 },
		{ .check = "use.x", .name = "wait_p999_ms", .unit = "ms", .agg = "p999", .value = 3 },
		{ .check = "drilldown.y", .name = "stalls", .agg = "total", .help = "what it counts",
		  .drilldown = 1, .value = 2 },
		{ .check = "use.x", .name = "old", .value = 1 },
	};
	struct prom_run run = { .version = "1", .end_s = 1, .cpus = 2, .mem_bytes = 1024,
				.window_cpu_s = 0.25 };
	struct strbuf d = { 0 }, h = { 0 };
	struct prom *pd = prom__new(0), *ph = prom__new(PROM_HOST);

	prom__run(pd, &run);
	prom__run(ph, &run);
	for (size_t i = 0; i < sizeof(ms) / sizeof(*ms); i++) {
		prom__check_metric(pd, &ms[i]);
		prom__check_metric(ph, &ms[i]);
	}
	ok(!prom__write(pd, &d) && !prom__write(ph, &h), "both render");
	ok(d.buf && !strstr(d.buf, "busy_ratio") && !strstr(d.buf, "sonde_host_"),
	   "by default, nothing node_exporter publishes");
	ok(d.buf && strstr(d.buf, "# sonde: 3 samples left out: node_exporter publishes them "
				   "(--metrics-host adds them)\n"),
	   "and what was left out for it is counted");
	ok(d.buf && strstr(d.buf, "# HELP sonde_check_use_x_wait_p999_seconds check use.x, metric "
				   "wait_p999_ms (ms, in base units): 99.9th percentile of the "
				   "events of the window\n"),
	   "p999 is the 99.9th percentile");
	ok(d.buf && strstr(d.buf, "# HELP sonde_check_drilldown_y_stalls check drilldown.y, metric "
				   "stalls: count over the drill-down window (this window's, not a "
				   "counter); what it counts\n"),
	   "a drill-down's total, and what it counts");
	ok(d.buf && strstr(d.buf, "metric old: its check does not say how the window made it\n"),
	   "a metric without an aggregation says so");
	ok(d.buf && strstr(d.buf, "sonde_run_window_cpu_seconds 0.25\n"), "sonde's cost in the window");
	ok(h.buf && strstr(h.buf, "metric busy_pct (%, in base units): mean over the window; "
				   "node_exporter has it: node_cpu_seconds_total\n"
				   "# TYPE sonde_check_use_x_busy_ratio gauge\n"
				   "sonde_check_use_x_busy_ratio 0.5\n"),
	   "PROM_HOST: the mean, naming its node_exporter family");
	ok(h.buf && strstr(h.buf, "sonde_host_memory_bytes 1024\n") &&
		   strstr(h.buf, "sonde_host_cpus 2\n") && !strstr(h.buf, "left out"),
	   "and the host's CPUs and memory, nothing left out");
	ok(metric__agg_ok("p50") && metric__agg_ok("p999") && metric__agg_ok("peak") &&
		   !metric__agg_ok("p0") && !metric__agg_ok("p100") && !metric__agg_ok("p5") &&
		   !metric__agg_ok("median") && !metric__agg_ok(NULL),
	   "the aggregations a check may declare");
	strbuf__free(&d);
	strbuf__free(&h);
	prom__free(pd);
	prom__free(ph);
}

int main(void)
{
	test_names();
	test_objects();
	test_model_and_findings();
	test_hostile_findings();
	test_host_and_aggregation();
	return tap_done();
}
