// SPDX-License-Identifier: GPL-2.0-or-later
/* sonde verify: a bundle's members against its manifest. */
#include <stdio.h>

#include "bundle/read.h"
#include "cmd/cmd.h"
#include "run/run.h"

const struct cmd_help cmd_verify_help = {
	.usage = "sonde verify BUNDLE",
	.description =
		"Open the bundle safely (a private directory; links, devices, paths leaving the\n"
		"bundle and oversized members are refused) and check every member against\n"
		"manifest.json: nothing missing, nothing extra, sizes and sha256 equal.\n"
		"Exit status: 0 verified, 1 refused or a mismatch (named on stderr), 2 usage.\n",
};

int cmd_verify(int argc, char **argv)
{
	const char *cmd = "verify";
	char dir[4096], err[1024];
	int idx, opened, rc;

	idx = cmd__parse(cmd, &cmd_verify_help, NULL, argc, argv);
	if (idx >= argc)
		run__die_usage(cmd, "which bundle? sonde verify BUNDLE");
	if (idx + 1 < argc)
		run__die_usage(cmd, "unexpected argument '%s'", argv[idx + 1]);
	cmd__open_bundle(cmd, argv[idx], dir, sizeof(dir), &opened);
	rc = bundle__verify_dir(dir, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "sonde: %s: %s\n", argv[idx], err);
		return EXIT_RUN_FAILED;
	}
	printf("%s: verified: every member matches manifest.json\n", argv[idx]);
	return 0;
}
