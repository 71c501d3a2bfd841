/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading the table a definition file returns (a methodology, a check, the
 * ranking rules), private to core/lua/: each reader checks one field's type
 * and vocabulary, and the first problem is a one-line error naming the file
 * and the field. Every reader returns 0 or -errno with the error in ld->err.
 */
#ifndef SONDE_LOADER_H
#define SONDE_LOADER_H

#include <stddef.h>

#include <lua.h>

#include "util/strv.h"
#include "lua/catalog.h"
#include "lua/sandbox.h"

struct loader {
	const char *origin; /* what errors name: "checks/use/cpu-x.lua" */
	char *err;
	size_t errlen;
	lua_State *L;       /* a throwaway sandbox (loader__open) */
	int t;              /* where the file's table is on L's stack */
	struct budget budget;
};

/*
 * Run a definition file in a fresh sandbox (whose require finds cat's lib
 * modules) and check that every key of the table it returns is one of known
 * (NULL-terminated); the table stays at ld->t. loader__close whatever it
 * returns.
 */
int loader__open(struct loader *ld, const struct catalog *cat, const char *src, size_t len,
		 const char *const *known);
void loader__close(struct loader *ld);
/* "ORIGIN: " and the message into ld->err; returns -EINVAL. */
int loader__fail(struct loader *ld, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Every key of table t is one of known (NULL-terminated). */
int loader__only_fields(struct loader *ld, int t, const char *const *known);
/* t[key]: a non-empty string (NULL when absent and not required), malloc'd. */
int loader__string(struct loader *ld, int t, const char *key, int required, char **out);
/* t[key]: a list of strings, each in allowed (named vocab in the error) unless allowed is NULL. */
int loader__strv(struct loader *ld, int t, const char *key, struct strv *out,
		 const struct strv *allowed, const char *vocab);
/* v is one of allowed, else the error lists them as the values of field key. */
int loader__vocab(struct loader *ld, const char *key, const char *v, const struct strv *allowed);

/* ranking/verdict.lua into cat->explains and cat->capacity, once every check is loaded. */
int ranking__load(struct catalog *cat, char *err, size_t errlen);

#endif
