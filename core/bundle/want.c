// SPDX-License-Identifier: GPL-2.0-or-later
/* The members an extraction wants, matched as the headers go by (bundle/want.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/want.h"

enum { WANT_MISSING, WANT_FILE, WANT_DIR };

/* want names a directory and everything under it ("raw/"). */
static bool want_is_dir(const struct bundle_want *w)
{
	size_t n = strlen(w->name);

	return n && w->name[n - 1] == '/';
}

int want_set__init(struct want_set *ws, const struct bundle_want *want, size_t n)
{
	*ws = (struct want_set){ .want = want, .n = want ? n : 0 };
	for (size_t i = 0; i < ws->n; i++) {
		if (want_is_dir(&want[i]))
			ws->dirs = true;
		else
			ws->files_left++;
	}
	ws->found = calloc(ws->n + 1, 1);
	return ws->found ? 0 : -ENOMEM;
}

void want_set__free(struct want_set *ws)
{
	free(ws->found);
	ws->found = NULL;
}

bool want_set__match(struct want_set *ws, const char *name, size_t len, bool is_dir)
{
	bool take = !ws->want;

	for (size_t i = 0; i < ws->n; i++) {
		const char *wn = ws->want[i].name;
		size_t wl = strlen(wn);

		if (want_is_dir(&ws->want[i])) {
			wl--;
			if (len >= wl && !strncmp(name, wn, wl) && (len == wl || name[wl] == '/')) {
				ws->found[i] = WANT_FILE;
				take = true;
			}
			continue;
		}
		if (strncmp(name, wn, wl) || (len != wl && (len < wl || name[wl] != '/')))
			continue;
		if (ws->found[i] == WANT_MISSING && ws->files_left)
			ws->files_left--;
		if (len == wl && !is_dir) {
			ws->found[i] = WANT_FILE;
			take = true;
		} else {
			ws->found[i] = WANT_DIR;
		}
	}
	return take;
}

bool want_set__done(const struct want_set *ws)
{
	return ws->want && !ws->dirs && !ws->files_left;
}

const char *want_set__missing(const struct want_set *ws, bool *is_dir)
{
	for (size_t i = 0; i < ws->n; i++) {
		if (ws->want[i].optional || ws->found[i] == WANT_FILE)
			continue;
		*is_dir = ws->found[i] == WANT_DIR;
		return ws->want[i].name;
	}
	return NULL;
}
