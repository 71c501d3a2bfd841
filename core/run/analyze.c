// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The analysis: the selected checks over the captures, one after the other,
 * ranked; for `sonde analyze`, a staging directory holding the bundle's
 * captures and the comparison with the findings the bundle recorded.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle/diff.h"
#include "bundle/read.h"
#include "run/run.h"
#include "util/clock.h"
#include "util/file.h"
#include "util/scratch.h"

static void run_checks(const struct catalog *cat, const struct check_def **sel, size_t nsel,
		       struct analysis *an, struct run_outcome *oc)
{
	oc->res = calloc(nsel + 1, sizeof(*oc->res));
	if (!oc->res)
		run__die_oom();
	engine__run_checks(cat, sel, nsel, an, &engine_default_limits, engine__jobs(),
			   oc->res);
	oc->rr.cat = cat;
	oc->rr.an = an;
	oc->rr.res = oc->res;
	oc->rr.nres = nsel;
	report__rank(&oc->rr);
}

/* A workload that is not in the captures: the report stays the host's, and says nothing else. */
static void warn_focus(const struct run_opts *o, struct analysis *an)
{
	const struct container_set *s = NULL;
	int pid;

	if (!o->focus_container && !o->focus_pod)
		return;
	analysis__containers(an, &s);
	if (!container_set__focus_pids(s, o->focus_container, o->focus_pod, &pid, 1))
		fprintf(stderr, "sonde: --%s %s: no container or pod of this window matches; the "
			"report is not narrowed\n", o->focus_container ? "container" : "pod",
			o->focus_container ? o->focus_container : o->focus_pod);
}

void run_analyze__checks(struct run_opts *o, const struct run_plan *p, struct analysis *an,
			 const struct window_result *wr, struct redactor *red,
			 struct run_outcome *oc)
{
	int64_t t0 = clock__ns(CLOCK_MONOTONIC);

	an->focus_container = o->focus_container;
	an->focus_pod = o->focus_pod;
	run_checks(&p->cat, p->sel, p->nsel, an, oc);
	run_cost__mark(&oc->rr.cost, "analysis");
	warn_focus(o, an);
	run_drilldown__run(o, &p->cat, oc, red);
	if (oc->rr.drill_an)
		run_cost__mark(&oc->rr.cost, "drill-down");
	oc->rr.cost.analysis_ms = (double)(clock__ns(CLOCK_MONOTONIC) - t0) / 1e6;
	oc->rr.command = o->command_line;
	if (wr) {
		oc->rr.cost.reads = wr->reads;
		oc->rr.cost.read_bytes = wr->read_bytes;
		oc->rr.cost.read_errors = wr->read_errors;
		oc->rr.cost.capture_bytes = wr->capture_bytes;
		oc->rr.cost.window_cpu_s = wr->self_cpu_s;
	}
}

void run_outcome__free(struct run_outcome *oc)
{
	report__free(oc->report);
	for (size_t i = 0; i < oc->rr.nres; i++)
		check_result__free(&oc->res[i]);
	free(oc->res);
	free(oc->rr.rank);
	free(oc->rr.drill);
	if (oc->drill_open)
		analysis__close(&oc->drill_an);
}

static int copy_file(const char *src, const char *dst)
{
	char buf[65536];
	int in, out, err = 0;
	ssize_t n;

	in = open(src, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (in < 0)
		return -errno;
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (out < 0) {
		err = -errno;
		close(in);
		return err;
	}
	while ((n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		if ((err = fd__write_all(out, buf, (size_t)n)))
			break;
	}
	if (close(out) && !err)
		err = -errno;
	close(in);
	return err;
}

/* The staging tree is ours and shallow (raw/drilldown/bpf); a deep one is a loop. */
#define STAGE_MAX_DEPTH 8

/*
 * The rest of raw/ (the BPF tools' documents, perf's, the folded profiles and
 * the drill-down's captures), byte for byte: the reports are made from them,
 * and without them the new bundle could not be drawn or compared again (sonde
 * diff reads the profiles and the latency histograms). The top level's
 * streams are the analysis's own, copied by the caller; symlinks and other
 * non-regular files are skipped, as the bundle reader never made them.
 */
static int copy_rest(const char *src, const char *dst, int depth)
{
	struct dirent *de;
	DIR *d;
	int err = 0;

	if (depth > STAGE_MAX_DEPTH)
		return -ELOOP;
	d = opendir(src);
	if (!d)
		return -errno;
	while (!err && (de = readdir(d))) {
		char s[4400], t[4400];
		size_t n = strlen(de->d_name);
		struct stat sb;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (!depth && n > 4 && !strcmp(de->d_name + n - 4, ".cap"))
			continue;
		snprintf(s, sizeof(s), "%s/%s", src, de->d_name);
		snprintf(t, sizeof(t), "%s/%s", dst, de->d_name);
		if (lstat(s, &sb)) {
			err = -errno;
		} else if (S_ISDIR(sb.st_mode)) {
			if (mkdir(t, 0700) && errno != EEXIST)
				err = -errno;
			else
				err = copy_rest(s, t, depth + 1);
		} else if (S_ISREG(sb.st_mode)) {
			err = copy_file(s, t);
		}
	}
	closedir(d);
	return err;
}

int run_analyze__stage(const struct analysis *an, const char *out_dir, char *stage, size_t len)
{
	const char *dir = out_dir ? out_dir : "/tmp";
	char dst[4200];
	int err;

	/* The new reports need a staging dir that holds the same raw/. */
	scratch__sweep(dir, ".sonde-analyze-");
	snprintf(stage, len, "%s/.sonde-analyze-XXXXXX", dir);
	/* Removed at exit and on a fatal signal; a killed analyze's, by the next one's sweep. */
	err = scratch__mkdtemp(stage, SCRATCH_REMOVE);
	if (err) {
		fprintf(stderr, "sonde: cannot create a working directory: %s\n", strerror(-err));
		return -1;
	}
	/* The new bundle holds the same captures, byte for byte, read from the files again. */
	snprintf(dst, sizeof(dst), "%s/raw", stage);
	if (mkdir(dst, 0700)) {
		fprintf(stderr, "sonde: %s: %s\n", dst, strerror(errno));
		bundle__remove_tree(stage);
		return -1;
	}
	for (size_t i = 0; i < an->cs.n; i++) {
		char src[4400];
		int cerr;

		snprintf(src, sizeof(src), "%s/%s.cap", an->raw_dir, an->cs.s[i].name);
		snprintf(dst, sizeof(dst), "%s/raw/%s.cap", stage, an->cs.s[i].name);
		cerr = copy_file(src, dst);
		if (cerr) {
			fprintf(stderr, "sonde: copying %s: %s\n", src, strerror(-cerr));
			bundle__remove_tree(stage);
			return -1;
		}
	}
	snprintf(dst, sizeof(dst), "%s/raw", stage);
	err = copy_rest(an->raw_dir, dst, 0);
	if (err) {
		fprintf(stderr, "sonde: copying %s: %s\n", an->raw_dir, strerror(-err));
		bundle__remove_tree(stage);
		return -1;
	}
	return 0;
}

void run_analyze__compare(const char *recorded_dir, const char *stage)
{
	char path[4200], err[512], buf[4096];
	const struct diff_input recorded = { recorded_dir, "as recorded" };
	const struct diff_input now = { stage, "as analyzed now" };
	const struct diff_request req = { &recorded, 1, &now, DIFF_TEXT, 1 };
	struct diff_result res;
	size_t n;
	struct stat sb;
	FILE *tmp;

	snprintf(path, sizeof(path), "%s/findings.json", recorded_dir);
	if (stat(path, &sb))
		return; /* a bare raw/ directory: nothing recorded to compare with */
	tmp = tmpfile();
	if (!tmp)
		return;
	if (diff__run(&req, tmp, &res, err, sizeof(err))) {
		printf("\n(cannot compare with the findings recorded in the bundle: %s)\n", err);
	} else if (!res.changes) {
		printf("\nSame findings as recorded in the bundle.\n");
	} else {
		printf("\nCompared with the findings recorded in the bundle:\n");
		rewind(tmp);
		while ((n = fread(buf, 1, sizeof(buf), tmp)) > 0)
			fwrite(buf, 1, n, stdout);
	}
	fclose(tmp);
}
