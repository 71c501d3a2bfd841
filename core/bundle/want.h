/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The members an extraction wants (bundle__extract_some), and what became of
 * each as the headers go by; private to core/bundle.
 */
#ifndef SONDE_BUNDLE_WANT_H
#define SONDE_BUNDLE_WANT_H

#include <stdbool.h>
#include <stddef.h>

#include "bundle/read.h"

struct want_set {
	const struct bundle_want *want; /* NULL: every member */
	size_t n;
	unsigned char *found;  /* per want: WANT_* */
	size_t files_left;     /* wanted files not met yet */
	bool dirs;             /* a directory is wanted: the whole archive is read */
};

/* 0 or -ENOMEM. want NULL: every member is wanted. */
int want_set__init(struct want_set *ws, const struct bundle_want *want, size_t n);
void want_set__free(struct want_set *ws);
/*
 * Is the member name (len bytes, no trailing '/') wanted? A file a want
 * names, anything under a wanted directory. A wanted file that turns out to
 * be a directory (the entry itself, or a member under it) is noted as one.
 */
bool want_set__match(struct want_set *ws, const char *name, size_t len, bool is_dir);
/* Every wanted member has been met: nothing more to read. */
bool want_set__done(const struct want_set *ws);
/*
 * After the last member: the first want that is not optional and was not
 * met as a file, or NULL; *is_dir says whether it was met as a directory.
 */
const char *want_set__missing(const struct want_set *ws, bool *is_dir);

#endif
