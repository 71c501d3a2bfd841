// SPDX-License-Identifier: GPL-2.0-or-later
/* sonde redact: a redacted copy of a bundle, and the map of its pseudonyms beside it. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle/bundle.h"
#include "bundle/read.h"
#include "bundle/redact.h"
#include "cmd/cmd.h"
#include "run/run.h"
#include "util/file.h"
#include "util/json_read.h"

struct redact_opts {
	const char *out_dir;
};

static const struct cmd_option options[] = {
	{ .name = "out", .letter = 'o', .arg = "DIR", .kind = CMD_OPT_STRING,
	  .field = offsetof(struct redact_opts, out_dir),
	  .help = "where the copy goes (default: the bundle's directory)" },
	{ NULL },
};

const struct cmd_help cmd_redact_help = {
	.usage = "sonde redact BUNDLE [--out DIR]",
	.description =
		"Write a redacted copy of a bundle, to send it where the host's names must not\n"
		"go. In every member, captures included: host and domain names, user names,\n"
		"IPv4, IPv6 and MAC addresses become pseudonyms, the same everywhere (host-1,\n"
		"user-1, 10.0.1.7: private stays private, addresses that shared a /24 still do);\n"
		"secrets in command lines (--password=..., token=..., Bearer ..., the password\n"
		"of scheme://user:pass@host) become REDACTED. The bundle is verified first and\n"
		"opened in a private directory; the original is not changed.\n",
	.options = options,
	.notes = "The copy is named after the pseudonymized host. Next to it (never in it) goes\n"
		 "NAME.redaction-map.json, mode 0600: what each pseudonym stands for. Keep it;\n"
		 "do not send it. 'sonde run --redact' writes a redacted bundle directly.\n"
		 "What is and is not caught: docs/redaction.md.\n",
};

/* The bundle, a file (never a directory), and where its copy goes: --out, or beside it. */
static void check_args(const char *cmd, const char *bundle, const struct redact_opts *o,
		       char *out_dir, size_t len)
{
	const char *slash = strrchr(bundle, '/');
	struct stat sb;

	if (stat(bundle, &sb))
		run__die_usage(cmd, "%s: %s", bundle, strerror(errno));
	/* Redacting rewrites every file: only ever a private copy, never someone's directory. */
	if (S_ISDIR(sb.st_mode))
		run__die_usage(cmd, "%s: a directory; sonde redact takes a bundle file", bundle);
	if (o->out_dir)
		snprintf(out_dir, len, "%s", o->out_dir);
	else if (!slash)
		snprintf(out_dir, len, ".");
	else
		snprintf(out_dir, len, "%.*s", slash == bundle ? 1 : (int)(slash - bundle), bundle);
	run_plan__check_out_dir(cmd, out_dir);
}

int cmd_redact(int argc, char **argv)
{
	const char *cmd = "redact";
	struct redact_opts o = { 0 };
	char dir[4096], path[4200], out_dir[4096], bundle[4096], map[4200], err[1024] = "";
	struct redactor *red = NULL;
	struct jval *manifest = NULL;
	struct analysis an;
	const char *command, *case_id = NULL;
	char *text = NULL, *redacted_cmd = NULL;
	int idx, opened, rc, code = EXIT_RUN_FAILED, an_open = 0;
	size_t len;

	idx = cmd__parse(cmd, &cmd_redact_help, &o, argc, argv);
	if (idx >= argc)
		run__die_usage(cmd, "which bundle? sonde redact BUNDLE [--out DIR]");
	if (idx + 1 < argc)
		run__die_usage(cmd, "unexpected argument '%s'", argv[idx + 1]);
	check_args(cmd, argv[idx], &o, out_dir, sizeof(out_dir));
	cmd__open_bundle(cmd, argv[idx], dir, sizeof(dir), &opened);
	/* A bundle that does not verify is not laundered into a redacted one that does. */
	if (bundle__verify_dir(dir, err, sizeof(err))) {
		fprintf(stderr, "sonde: %s: %s\n", argv[idx], err);
		return EXIT_RUN_FAILED;
	}
	/* The command line that made the bundle is in its manifest, not in the captures. */
	snprintf(path, sizeof(path), "%s/manifest.json", dir);
	rc = file__read_bounded(AT_FDCWD, path, 16u << 20, &text, &len);
	if (rc || json_read(text, len, &json_read_default_limits, &manifest, err, sizeof(err))) {
		fprintf(stderr, "sonde: %s: manifest.json: %s\n", argv[idx],
			rc ? strerror(-rc) : err);
		goto cleanup;
	}
	command = jval__str(manifest, "command");
	if (!command)
		command = "";

	red = redact__dir(dir, command, &redacted_cmd, err, sizeof(err));
	if (!red) {
		fprintf(stderr, "sonde: %s: redacting: %s\n", argv[idx], err);
		goto cleanup;
	}
	/* The host facts of the new manifest come from the redacted captures, as in a run. */
	unlink(path);
	snprintf(path, sizeof(path), "%s/raw", dir);
	if (analysis__open(&an, path, err, sizeof(err))) {
		fprintf(stderr, "sonde: %s: reading the redacted captures: %s\n", argv[idx], err);
		goto cleanup;
	}
	an_open = 1;
	/* The case id stays with the copy: it names the ticket, not the host. */
	case_id = jval__str(manifest, "case_id");
	if (case_id && !bundle__case_id_ok(case_id))
		case_id = NULL;
	if (bundle__write_manifest(dir, redacted_cmd, case_id, &an, err, sizeof(err))) {
		fprintf(stderr, "sonde: %s\n", err);
		goto cleanup;
	}
	bundle__path(out_dir, &an, case_id, bundle, sizeof(bundle));
	if (bundle__write(dir, bundle, sizeof(bundle), err, sizeof(err))) {
		fprintf(stderr, "sonde: %s\n", err);
		goto cleanup;
	}
	bundle__map_path(bundle, map, sizeof(map));
	if (redactor__write_map(red, map, err, sizeof(err))) {
		fprintf(stderr, "sonde: the redacted bundle %s is written, but not its map: %s\n",
			bundle, err);
		goto cleanup;
	}
	printf("Bundle: %s\nRedaction map (keep it, never send it): %s\n", bundle, map);
	code = 0;
cleanup:
	if (an_open)
		analysis__close(&an);
	redactor__free(red);
	jval__free(manifest);
	free(text);
	free(redacted_cmd);
	return code;
}
