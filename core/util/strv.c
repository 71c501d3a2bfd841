// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/strv.h"

int strv__push(struct strv *sv, const char *s)
{
	char **n = realloc(sv->v, (sv->n + 1) * sizeof(*n));
	char *copy;

	if (!n)
		return -ENOMEM;
	sv->v = n;
	copy = strdup(s);
	if (!copy)
		return -ENOMEM;
	sv->v[sv->n++] = copy;
	return 0;
}

void strv__free(struct strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = 0;
}

int strv__has(const struct strv *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return 1;
	return 0;
}
