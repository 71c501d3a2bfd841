/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A strict, bounded JSON reader (RFC 8259) for what sonde reads back from
 * bundles that may have been crafted: manifest.json and findings.json. Depth,
 * size and counts are capped; invalid UTF-8, duplicate keys, trailing data,
 * leading zeros, NaN/Infinity, comments and control characters in strings
 * are errors with the byte offset.
 */
#ifndef SONDE_JSON_READ_H
#define SONDE_JSON_READ_H

#include <stddef.h>
#include <stdint.h>

enum jtype { J_NULL, J_BOOL, J_NUMBER, J_STRING, J_ARRAY, J_OBJECT };

struct jval {
	enum jtype type;
	int boolean;
	double number;
	char *str;        /* J_STRING: NUL-terminated (a \u0000 inside is an error) */
	size_t len;       /* J_STRING: bytes; J_ARRAY/J_OBJECT: elements */
	struct jval *items; /* J_ARRAY: len values; J_OBJECT: len values */
	char **keys;      /* J_OBJECT: len keys, parallel to items */
};

struct json_read_limits {
	size_t max_bytes;   /* whole document */
	size_t max_depth;
	size_t max_items;   /* values in the whole document */
	size_t max_string;  /* bytes of one string */
};

extern const struct json_read_limits json_read_default_limits;

/* Parse buf (len bytes). 0 with *out (free with jval__free), or -EINVAL/-ENOMEM with err. */
int json_read(const char *buf, size_t len, const struct json_read_limits *lim, struct jval **out,
	      char *err, size_t errlen);
void jval__free(struct jval *v);
/* The member key of an object, or NULL (also when v is not an object). */
const struct jval *jval__get(const struct jval *v, const char *key);
/* Typed helpers: NULL/def when absent or of another type. */
const char *jval__str(const struct jval *v, const char *key);
int jval__num(const struct jval *v, const char *key, double *out);

#endif
