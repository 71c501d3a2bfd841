// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The end of a run: what it cost, the reports into the staging directory,
 * the manifest and the bundle, the redaction map beside it (--redact), then
 * the terminal summary or findings.json, the metrics for Prometheus
 * (--metrics), the upload (--upload), and --fail-on's verdict.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle/bundle.h"
#include "bundle/read.h"
#include "bundle/redact.h"
#include "bundle/upload.h"
#include "run/run.h"
#include "util/file.h"
#include "util/tty.h"

/* sonde and the processes its checks ran in (reaped by now). */
static void measure_cost(struct run_cost *c)
{
	struct rusage self, kids;

	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	c->user_s = (double)(self.ru_utime.tv_sec + kids.ru_utime.tv_sec) +
		    (double)(self.ru_utime.tv_usec + kids.ru_utime.tv_usec) / 1e6;
	c->sys_s = (double)(self.ru_stime.tv_sec + kids.ru_stime.tv_sec) +
		   (double)(self.ru_stime.tv_usec + kids.ru_stime.tv_usec) / 1e6;
	c->peak_rss_kb = self.ru_maxrss > kids.ru_maxrss ? self.ru_maxrss : kids.ru_maxrss;
}

static int write_file(const char *dir, const char *name, const char *data, size_t len)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return file__write_all(path, data, len);
}

static void print_summary(const struct run_opts *o, struct run_outcome *oc, const char *stage,
			  struct redactor *red);

/*
 * findings.json, report.md, report.html, manifest.json into stage; the
 * verdict (print_summary) as soon as findings.json is written and, with
 * --redact, redacted: the other renderings and the manifest's hashes of the
 * captures come after it, since on a big host they take a noticeable part
 * of a second.
 */
static int write_reports(const char *stage, struct run_outcome *oc, const struct run_opts *o,
			 struct redactor *red, char *err, size_t errlen)
{
	static const char *const reports[] = { "report.md", "report.html" };
	struct strbuf js = { 0 }, md = { 0 }, html = { 0 };
	const char *out_dir = o->out_dir;
	int rc;

	if (out_dir)
		bundle__path(out_dir, oc->rr.an, o->case_id, oc->bundle, sizeof(oc->bundle));
	measure_cost(&oc->rr.cost);
	/* One model, three renderings of it (and the summary). */
	if ((rc = report__build(&oc->rr, &oc->report)) || (rc = report__json(oc->report, &js))) {
		snprintf(err, errlen, "building the report: out of memory");
		goto cleanup;
	}
	if ((rc = write_file(stage, "findings.json", js.buf, js.len))) {
		snprintf(err, errlen, "writing the report into %s: %s", stage, strerror(-rc));
		goto cleanup;
	}
	/*
	 * The reports were computed from redacted captures; this pass catches
	 * what came from elsewhere: the command line, a path in a check's error.
	 * Pseudonyms already in them are kept as they are.
	 */
	if (red && (rc = redactor__apply_file(red, stage, "findings.json", err, errlen)))
		goto cleanup;
	print_summary(o, oc, stage, red);
	if ((rc = report__markdown(oc->report, &md)) || (rc = report__html(oc->report, &html))) {
		snprintf(err, errlen, "building the report: out of memory");
		goto cleanup;
	}
	if ((rc = write_file(stage, "report.md", md.buf, md.len)) ||
	    (rc = write_file(stage, "report.html", html.buf, html.len))) {
		snprintf(err, errlen, "writing the report into %s: %s", stage, strerror(-rc));
		goto cleanup;
	}
	for (size_t i = 0; red && i < sizeof(reports) / sizeof(*reports); i++)
		if ((rc = redactor__apply_file(red, stage, reports[i], err, errlen)))
			goto cleanup;
	/* After redaction: the manifest hashes the files as they go into the bundle. */
	rc = bundle__write_manifest(stage, oc->rr.command, o->case_id, oc->rr.an, err, errlen);
cleanup:
	strbuf__free(&js);
	strbuf__free(&md);
	strbuf__free(&html);
	return rc;
}

/*
 * The bundle from stage, and with red (--redact) the redaction map next to
 * it. Compressing the captures is the costliest step after the window on a
 * big host: it comes after the summary is printed.
 */
static int write_bundle(const char *stage, struct run_outcome *oc, const struct run_opts *o,
			struct redactor *red, char *err, size_t errlen)
{
	int rc = 0;

	if (o->out_dir)
		rc = bundle__write(stage, oc->bundle, sizeof(oc->bundle), err, errlen);
	if (!rc && o->out_dir && red) {
		char why[400];

		bundle__map_path(oc->bundle, oc->map, sizeof(oc->map));
		rc = redactor__write_map(red, oc->map, why, sizeof(why));
		if (rc) {
			snprintf(err, errlen,
				 "the redacted bundle %.500s is written, but not its map: %s",
				 oc->bundle, why);
			oc->map[0] = '\0';
		}
	}
	return rc;
}

int run_finish__print_member(const char *dir, const char *member)
{
	char path[8192], buf[65536];
	struct tty_stream ts = { .f = stdout, .flags = TTY_KEEP_LINES };
	int fd, tty = isatty(STDOUT_FILENO), rc = 0;
	struct stat st;
	ssize_t n;

	if (!*member || member[0] == '/' || strstr(member, "..")) {
		fprintf(stderr, "sonde: %s: not a member name\n", member);
		return EXIT_USAGE;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, member);
	/* O_NONBLOCK: a FIFO in a directory given as a bundle must not hang the open. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "sonde: %s: %s\n", member,
			errno == ENOENT ? "not in the bundle" : strerror(errno));
		if (fd >= 0)
			close(fd);
		return EXIT_RUN_FAILED;
	}
	if (!S_ISREG(st.st_mode)) {
		fprintf(stderr, "sonde: %s: %s\n", member,
			S_ISDIR(st.st_mode) ? "a directory in the bundle, not a member: name a "
					      "file in it" :
					      "not a regular file");
		close(fd);
		return EXIT_RUN_FAILED;
	}
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0) {
			fprintf(stderr, "sonde: %s: %s\n", member, strerror(errno));
			rc = EXIT_RUN_FAILED;
			break;
		}
		/* A terminal gets text only (util/tty.h); a pipe or a file, the bytes. */
		if (tty)
			tty__write(&ts, buf, (size_t)n);
		else
			fwrite(buf, 1, (size_t)n, stdout);
	}
	if (tty)
		tty__end(&ts);
	close(fd);
	return rc;
}

/*
 * The terminal summary through the redactor: the checks saw only redacted
 * captures, but a check's error message may quote a path or the command line.
 */
static void print_redacted_summary(struct run_outcome *oc, struct redactor *red, int color)
{
	char *buf = NULL, *text = NULL;
	size_t len = 0, tlen = 0;
	FILE *mf = open_memstream(&buf, &len);

	if (mf) {
		report__terminal(oc->report, mf, color);
		if (fclose(mf))
			len = 0;
	}
	if (buf && len)
		text = redactor__text(red, buf, len, 0, &tlen);
	/* Never the unredacted text instead: the bundle and 'sonde show' have it all. */
	if (text)
		fwrite(text, 1, tlen, stdout);
	else
		fprintf(stderr, "sonde: out of memory for the summary (see 'sonde show BUNDLE')\n");
	free(text);
	free(buf);
}

int run_finish__fail_on(int fail_on, enum status worst, const char *what)
{
	if (fail_on == ST_OK || status__rank(worst) < status__rank((enum status)fail_on))
		return 0;
	/*
	 * Which finding: a scheduled job's log says why it failed without opening the
	 * bundle. Its words are the bundle's (a host name, a verdict, a summary): cleaned
	 * as all terminal output is, C1 controls and bidi overrides as well as ESC.
	 */
	fprintf(stderr, "sonde: --fail-on %s: ", status__name((enum status)fail_on));
	tty__puts(stderr, what ? what : "a finding reached it");
	fputc('\n', stderr);
	return EXIT_FAIL_ON;
}

/* The first finding, in rank order, at or above fail_on, named for --fail-on's message. */
static int fail_on_finding(int fail_on, const struct run_report *rr)
{
	char what[1024];
	size_t more = 0;
	const struct check_result *hit = NULL;

	if (fail_on == ST_OK)
		return 0;
	for (size_t k = 0; k < rr->nrank; k++) {
		const struct check_result *r = &rr->res[rr->rank[k]];

		if (status__rank(r->st) < status__rank((enum status)fail_on))
			continue;
		if (hit)
			more++;
		else
			hit = r;
	}
	if (!hit)
		return 0;
	snprintf(what, sizeof(what), "%s is %s: %.600s%s", hit->def->id, status__name(hit->st),
		 hit->summary ? hit->summary : hit->def->title,
		 more ? " (and more: see the report)" : "");
	return run_finish__fail_on(fail_on, hit->st, what);
}

int run__color(int mode)
{
	const char *no = getenv("NO_COLOR"), *term = getenv("TERM");

	if (mode != COLOR_AUTO)
		return mode == COLOR_ALWAYS;
	/* https://no-color.org: NO_COLOR set and not empty means no colour unless asked for. */
	return isatty(STDOUT_FILENO) && !(no && *no) && !(term && !strcmp(term, "dumb"));
}

/* --keep N: the older bundles of this host in --out beyond the newest N. */
static void retain(const struct run_opts *o, const struct run_outcome *oc, FILE *f)
{
	char err[1024];
	int removed, refused;

	if (!o->keep || !oc->bundle[0])
		return;
	if (bundle__retain(oc->bundle, o->keep, &removed, &refused, err, sizeof(err))) {
		fprintf(stderr, "sonde: %s (the bundle is written)\n", err);
		return;
	}
	if (removed)
		fprintf(f, "Retention (--keep %d): %d older bundle%s removed\n", o->keep, removed,
			removed == 1 ? "" : "s");
	/* planted there by someone else, or made writable to others: never counted, never removed */
	if (refused)
		fprintf(f, "Retention (--keep %d): %d file%s named like a bundle left alone: not "
			   "this user's own, or writable by others\n", o->keep, refused,
			refused == 1 ? "" : "s");
}

/* The verdict, as soon as findings.json exists: it, or the terminal summary. */
static void print_summary(const struct run_opts *o, struct run_outcome *oc, const char *stage,
			  struct redactor *red)
{
	if (o->json)
		run_finish__print_member(stage, "findings.json");
	else if (red)
		print_redacted_summary(oc, red, run__color(o->color));
	else
		report__terminal(oc->report, stdout, run__color(o->color));
	fflush(stdout);
}

/* Where the bundle went, once written; retention; --fail-on's verdict. */
static int print_outcome(const struct run_opts *o, struct run_outcome *oc)
{
	if (o->json) {
		if (oc->bundle[0])
			fprintf(stderr, "sonde: bundle written: %s\n", oc->bundle);
		if (oc->map[0])
			fprintf(stderr, "sonde: redaction map (keep it, never send it): %s\n",
				oc->map);
	} else {
		if (oc->bundle[0])
			printf("Bundle: %s\n", oc->bundle);
		if (oc->map[0])
			printf("Redaction map (keep it, never send it): %s\n", oc->map);
	}
	retain(o, oc, o->json ? stderr : stdout);
	fflush(stdout);
	return fail_on_finding(o->fail_on, &oc->rr);
}

/* A label value as --redact shows it (report/report.h's metrics_opts.redact). */
static char *redact_label(void *arg, const char *value)
{
	return redactor__text(arg, value, strlen(value), 0, NULL);
}

/*
 * --metrics FILE: the model as Prometheus text, replacing FILE atomically so
 * node_exporter's textfile collector never reads half of it; mode 0644, since
 * the exporter reads it as another user and it holds nothing the metrics
 * endpoint does not publish anyway. With --redact, the label values that came
 * from the host go through the redactor before they are rendered, never the
 * text: a learned name equal to a label name ("check") would otherwise turn
 * label names into pseudonyms, and the textfile collector drops a file that
 * does not parse. 0, or -1 with the message printed.
 */
static int write_metrics(const struct run_opts *o, struct run_outcome *oc, struct redactor *red)
{
	struct metrics_opts mo = {
		.host = o->metrics_host,
		.redact = red ? redact_label : NULL,
		.redact_arg = red,
	};
	struct strbuf prom = { 0 };
	int rc;

	rc = report__metrics(oc->report, &mo, &prom);
	if (!rc)
		rc = file__replace(o->metrics_path, prom.buf, prom.len, 0644);
	if (rc)
		fprintf(stderr, "sonde: --metrics %s: %s%s%s\n", o->metrics_path, strerror(-rc),
			oc->bundle[0] ? "; the bundle is written: " : "", oc->bundle);
	strbuf__free(&prom);
	return rc ? -1 : 0;
}

static void upload_note(void *arg, const char *msg)
{
	fprintf(stderr, "sonde: %s\n", msg);
}

/* --upload URL: the bundle, with retries; it stays where it is either way. 0, or -1 (said). */
static int upload(const struct run_opts *o, const char *bundle)
{
	struct upload_opts uo = {
		.url = o->upload_url,
		.post = o->upload_post,
		.case_id = o->case_id,
		.cacert = o->upload_cacert,
		.bearer = o->upload_token,
		.attempts = UPLOAD_ATTEMPTS,
		.backoff_s = o->upload_backoff_s > 0 ? o->upload_backoff_s : 1,
		.deadline_s = o->upload_timeout_s > 0 ? o->upload_timeout_s : UPLOAD_DEADLINE_S,
		.note = upload_note,
	};
	struct upload_result res;
	char err[1024], how[64] = "";

	if (bundle__upload(&uo, bundle, &res, err, sizeof(err))) {
		char tries[48] = "";

		if (res.attempts) /* none when it could not start (no libcurl, a bad URL) */
			snprintf(tries, sizeof(tries), " after %d attempt%s", res.attempts,
				 res.attempts == 1 ? "" : "s");
		fprintf(stderr, "sonde: upload to %s failed%s: %s; the bundle stays at %s\n",
			res.where, tries, err, bundle);
		return -1;
	}
	if (res.http_status)
		snprintf(how, sizeof(how), "HTTP %ld, ", res.http_status);
	fprintf(o->json ? stderr : stdout, "%s%s (%s%d attempt%s)\n",
		o->json ? "sonde: uploaded to " : "Uploaded: ", res.where, how, res.attempts,
		res.attempts == 1 ? "" : "s");
	fflush(stdout);
	return 0;
}

int run_finish__reports(struct run_opts *o, struct run_outcome *oc, const char *stage,
			int keep_on_error, struct redactor *red, const char *recorded_dir)
{
	char err[1024];
	int code, rc;

	if (o->progress_shown)
		fputs("\r\033[K", stderr);
	/* the verdict comes out in write_reports, before the bundle is compressed */
	rc = write_reports(stage, oc, o, red, err, sizeof(err));
	if (!rc)
		rc = write_bundle(stage, oc, o, red, err, sizeof(err));
	if (rc) {
		if (keep_on_error) {
			/* The captures are the evidence: keep them where the user can get them. */
			fprintf(stderr, "sonde: %s; the captures and reports are kept in %s\n", err,
				stage);
		} else {
			fprintf(stderr, "sonde: %s\n", err);
			bundle__remove_tree(stage);
		}
		run_outcome__free(oc);
		return EXIT_RUN_FAILED;
	}
	code = print_outcome(o, oc);
	if (recorded_dir && !o->json)
		run_analyze__compare(recorded_dir, stage);
	/* After the summary: the user sees the verdict first, whatever happens to these. */
	if (o->metrics_path && write_metrics(o, oc, red))
		code = EXIT_RUN_FAILED;
	if (o->upload_url && oc->bundle[0] && upload(o, oc->bundle))
		code = EXIT_UPLOAD_FAILED;
	run_observe__bundle_done(o, stage, oc->bundle, code);
	bundle__remove_tree(stage);
	run_outcome__free(oc);
	return code;
}
