// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The bundle extractor: any bytes as a bundle file go through
 * bundle__extract_some (libarchive in a forked child with memory and time
 * limits, every member checked) at caps small enough for a fuzzer, asking for
 * every member or for some, as the commands do (the input's length picks
 * which, so the seeds stay archives as they are); what it extracts is
 * removed. Never a crash, a leak, a write outside its directory, or a hang.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bundle/read.h"

/* What verify and redact, show, show MEMBER and analyze ask for. */
static const struct bundle_want w_show[] = { { "findings.json", 0 } };
static const struct bundle_want w_member[] = { { "raw/sonde.cap", 0 } };
static const struct bundle_want w_analyze[] = { { "raw/", 0 }, { "findings.json", 1 } };
static const struct {
	const struct bundle_want *want;
	size_t n;
} wants[4] = { { NULL, 0 }, { w_show, 1 }, { w_member, 1 }, { w_analyze, 2 } };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char base[64];
	struct bundle_open_limits lim = bundle_open_default_limits;
	char path[128], out[4096], err[512];
	FILE *f;

	if (!base[0]) {
		snprintf(base, sizeof(base), "/tmp/sonde-fuzz-extract.XXXXXX");
		if (!mkdtemp(base))
			abort();
	}
	/* small caps: the fuzzer is after logic, not after filling the disk */
	lim.max_total_bytes = 1 << 20;
	lim.max_member_bytes = 256 << 10;
	lim.max_entries = 64;
	lim.max_seconds = 5;
	snprintf(path, sizeof(path), "%s/in.tar", base);
	f = fopen(path, "wb");
	if (!f)
		abort();
	fwrite(data, 1, size, f);
	fclose(f);
	if (!bundle__extract_some(path, base, &lim, wants[size % 4].want, wants[size % 4].n, out,
				  sizeof(out), err, sizeof(err)))
		bundle__remove_tree(out);
	unlink(path);
	return 0;
}
