/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The catalog's pieces (catalog.c), for the file that loads them in order
 * (catalog_load.c: the embedded definitions, then a user's --checks DIR in a
 * child process under a watchdog). Private to core/lua/.
 */
#ifndef SONDE_CATALOG_INT_H
#define SONDE_CATALOG_INT_H

#include <stddef.h>

#include "lua/catalog.h"

/* A check or a lib module larger than this is not a check. */
#define CHECK_FILE_MAX (4u << 20)

/* n bytes of s and a NUL (a source may hold NULs: its length is kept beside it). */
char *catalog__dup(const char *s, size_t n);
/* Run one methodology file and add it. 0 or -errno with the one-line error. */
int catalog__load_methodology(struct catalog *cat, const char *origin, const char *src,
			      size_t len, char *err, size_t errlen);
/*
 * Run one check file as rel ("use/cpu-x.lua"), validate it against cat's
 * vocabularies and add it. 0 or -errno with the one-line error.
 */
int catalog__load_check(struct catalog *cat, const char *origin, const char *rel,
			const char *src, size_t len, int user, char *err, size_t errlen);
/* Add a check validated elsewhere (by the loading child); cat owns it from now. 0 or -ENOMEM. */
int catalog__adopt_check(struct catalog *cat, struct check_def *d);
void catalog__free_check(struct check_def *d);
int catalog__add_lib(struct catalog *cat, const char *name, const char *origin,
		     const char *src, size_t len, char *err, size_t errlen);
/* "name.lua" -> "name", a valid module name; -EINVAL otherwise. */
int catalog__lib_name(const char *file, char *name, size_t nlen);
/* The drill-down rules name checks that exist, of the right methodology. */
int catalog__check_rules(struct catalog *cat, char *err, size_t errlen);
/* The stylesheet, and the checks in run order. */
void catalog__finish(struct catalog *cat);

#endif
