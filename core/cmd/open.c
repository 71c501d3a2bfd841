// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A bundle named on the command line (analyze, verify, redact, show, diff):
 * a file is opened into a private directory, only the members the command
 * reads, removed on every way out (exit, Ctrl-C, SIGTERM, SIGHUP, a closed
 * pipe); a directory is used as it is.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bundle/bundle.h"
#include "bundle/read.h"
#include "cmd/cmd.h"
#include "run/run.h"
#include "util/scratch.h"

/*
 * A signal that ends the command (Ctrl-C, kill, a closed terminal, `| head`):
 * the opened bundles and analyze's stage go first (async-signal-safe), then
 * the signal does what it would have done.
 */
static void on_fatal_signal(int sig)
{
	scratch__cleanup();
	bundle__abort_cleanup();
	raise(sig); /* SA_RESETHAND: the default action, once this handler returns */
}

void cmd__cleanup_on_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
	static int armed;
	struct sigaction sa = { 0 };

	if (armed)
		return;
	armed = 1;
	sa.sa_handler = on_fatal_signal;
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(*sigs); i++)
		sigaddset(&sa.sa_mask, sigs[i]);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(*sigs); i++) {
		struct sigaction old;

		/* A signal ignored by whoever started us (nohup) stays ignored. */
		if (!sigaction(sigs[i], NULL, &old) && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
}

int cmd__try_open_members(const char *cmd, const char *path, const struct bundle_want *want,
			  size_t nwant, char *dir, size_t len, int *opened, char *err,
			  size_t errlen)
{
	const char *tmp = getenv("TMPDIR");
	struct stat sb;
	int rc;

	*opened = 0;
	cmd__cleanup_on_signals();
	if (stat(path, &sb))
		run__die_usage(cmd, "%s: %s", path, strerror(errno));
	if (S_ISDIR(sb.st_mode)) {
		snprintf(dir, len, "%s", path);
		return 0;
	}
	rc = bundle__extract_some(path, tmp && *tmp ? tmp : "/tmp", &bundle_open_default_limits,
				  want, nwant, dir, len, err, errlen);
	if (!rc)
		*opened = 1;
	return rc;
}

void cmd__open_members(const char *cmd, const char *path, const struct bundle_want *want,
		       size_t nwant, char *dir, size_t len, int *opened)
{
	char err[1024];

	if (cmd__try_open_members(cmd, path, want, nwant, dir, len, opened, err, sizeof(err))) {
		fprintf(stderr, "sonde: %s: %s\n", path, err);
		exit(EXIT_RUN_FAILED);
	}
}

void cmd__open_bundle(const char *cmd, const char *path, char *dir, size_t len, int *opened)
{
	cmd__open_members(cmd, path, NULL, 0, dir, len, opened);
}
