// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: bundle verification against a crafted manifest.json. The
 * input becomes the manifest of a fixed small bundle directory.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle/read.h"

static char dir[] = "/tmp/sonde-fuzz-verify-XXXXXX";

static void put(const char *name, const void *data, size_t len)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, data, len) != (ssize_t)len)
		abort();
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	char err[512];

	if (!ready) {
		char raw[300];

		if (!mkdtemp(dir))
			abort();
		snprintf(raw, sizeof(raw), "%s/raw", dir);
		mkdir(raw, 0700);
		put("findings.json", "{}\n", 3);
		put("raw/sonde.cap", "sonde-capture 1\n", 16);
		ready = 1;
	}
	put("manifest.json", data, size);
	bundle__verify_dir(dir, err, sizeof(err));
	return 0;
}
