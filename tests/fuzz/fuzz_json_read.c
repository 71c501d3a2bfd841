// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target: the strict JSON reader (manifest.json and findings.json of crafted bundles). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/json_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jval *v = NULL;
	char err[256];
	char *buf = malloc(size ? size : 1);

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	if (!json_read(buf, size, &json_read_default_limits, &v, err, sizeof(err))) {
		jval__str(v, "schema");
		jval__free(v);
	}
	free(buf);
	return 0;
}
