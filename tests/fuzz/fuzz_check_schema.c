// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The check schema validator: any text as checks/use/fuzz-case.lua is loaded
 * in the sandbox and validated (fields, types, vocabularies, args, collectors)
 * or refused with a one-line error; never a crash, a leak or a hang past the
 * sandbox's budgets. The first byte picks the file name the text claims, so
 * the id-versus-path rule is exercised too.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "lua/engine.h"

static const char *const names[] = { "use/cpu-saturation.lua", "use/fuzz-case.lua",
				      "workload/process-who.lua", "drilldown/cpu-why.lua",
				      "nosuch/x.lua", "use/.lua" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct catalog cat;
	static int loaded;
	char err[1024];

	if (!loaded) {
		if (catalog__load(&cat, NULL, err, sizeof(err))) {
			fprintf(stderr, "catalog: %s\n", err);
			abort();
		}
		loaded = 1;
	}
	if (!size)
		return 0;
	catalog__validate_check(&cat, names[data[0] % (sizeof(names) / sizeof(names[0]))],
				(const char *)data + 1, size - 1, err, sizeof(err));
	return 0;
}
