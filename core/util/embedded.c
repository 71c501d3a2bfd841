// SPDX-License-Identifier: GPL-2.0-or-later
#include <string.h>

#include "util/embedded.h"

const struct embedded_file *embedded__find(const char *path)
{
	for (const struct embedded_file *f = embedded_files; f->path; f++)
		if (!strcmp(f->path, path))
			return f;
	return NULL;
}
