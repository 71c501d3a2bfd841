// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A bundle named on the command line (analyze, verify, redact, show, diff):
 * a file is opened into a private directory that is removed on every way out;
 * a directory is used as it is.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bundle/read.h"
#include "cmd/cmd.h"
#include "run/run.h"

/* Bundles opened by this command (diff opens two), removed at exit. */
static char opened_bundle_dirs[2][4096];
static int opened_bundles;

static void remove_opened_bundle(void)
{
	for (int i = 0; i < opened_bundles; i++)
		bundle__remove_tree(opened_bundle_dirs[i]);
	opened_bundles = 0;
}

void cmd__open_bundle(const char *cmd, const char *path, char *dir, size_t len, int *opened)
{
	const char *tmp = getenv("TMPDIR");
	char err[1024];
	struct stat sb;
	int rc;

	*opened = 0;
	if (stat(path, &sb))
		run__die_usage(cmd, "%s: %s", path, strerror(errno));
	if (S_ISDIR(sb.st_mode)) {
		snprintf(dir, len, "%s", path);
		return;
	}
	rc = bundle__extract(path, tmp && *tmp ? tmp : "/tmp", &bundle_open_default_limits, dir,
			     len, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "sonde: %s: %s\n", path, err);
		exit(EXIT_RUN_FAILED);
	}
	*opened = 1;
	/*
	 * Removed on every way out, early errors included. A reader that stops early
	 * (show --md | head) would otherwise kill us by SIGPIPE before exit: a failed
	 * write ends the command through exit instead.
	 */
	signal(SIGPIPE, SIG_IGN);
	if (opened_bundles < 2) {
		snprintf(opened_bundle_dirs[opened_bundles], sizeof(opened_bundle_dirs[0]), "%s",
			 dir);
		if (!opened_bundles++)
			atexit(remove_opened_bundle);
	}
}
