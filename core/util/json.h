/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A small streaming JSON writer into a growable buffer. Strings are escaped
 * per RFC 8259; bytes that are not valid UTF-8 are replaced by U+FFFD so the
 * output always parses. Non-finite numbers are written as null.
 */
#ifndef SONDE_JSON_H
#define SONDE_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "util/strbuf.h"
#include "util/strv.h"


struct json {
	struct strbuf out;
	int depth;
	int need_comma[64];
	int pretty;
};

void json__begin_object(struct json *j);
void json__end_object(struct json *j);
void json__begin_array(struct json *j);
void json__end_array(struct json *j);
void json__key(struct json *j, const char *key);
void json__string(struct json *j, const char *s);
void json__string_n(struct json *j, const char *s, size_t n);
void json__number(struct json *j, double v);
void json__int(struct json *j, int64_t v);
void json__bool(struct json *j, int v);
void json__null(struct json *j);
/* "key": "v", or "key": null when v is NULL. */
void json__kv_str(struct json *j, const char *key, const char *v);
/* "key": v, a number (json__number's) or an integer */
void json__kv_number(struct json *j, const char *key, double v);
void json__kv_int(struct json *j, const char *key, int64_t v);
/* "key": [ the strings of sv ] */
void json__kv_strv(struct json *j, const char *key, const struct strv *sv);
/* A value already serialized by another writer (trusted text only: written as is). */
void json__raw(struct json *j, const char *text, size_t n);
/*
 * Length of the well-formed UTF-8 sequence at s (n bytes available), or 0 when
 * s[0] starts none (overlongs, surrogates, beyond U+10FFFF, cut sequences).
 */
size_t utf8__seq_len(const unsigned char *s, size_t n);
#endif
