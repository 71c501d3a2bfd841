/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A vector of owned strings: check ids, tags, collector names, table columns. */
#ifndef SONDE_STRV_H
#define SONDE_STRV_H

#include <stddef.h>

struct strv {
	char **v;
	size_t n;
};

/*
 * Append a copy of s. 0, or -ENOMEM with sv unchanged: a list that silently
 * lost an element (a --check, a collector) would run something else than asked.
 */
int strv__push(struct strv *sv, const char *s) __attribute__((warn_unused_result));
void strv__free(struct strv *sv);
int strv__has(const struct strv *sv, const char *s);

#endif
