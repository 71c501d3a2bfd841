/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A wire form for what a child process sends its parent through a pipe (a
 * check's result, the checks a user's --checks DIR defines): fixed-width
 * numbers and length-prefixed strings, written into a strbuf and read back
 * with every length and count checked against what is left and a bound, so
 * a child that died mid-write or was subverted yields "bad", never a crash.
 */
#ifndef SONDE_WIRE_H
#define SONDE_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "util/strbuf.h"
#include "util/strv.h"

void wire__put(struct strbuf *sb, const void *p, size_t n);
void wire__put_u64(struct strbuf *sb, uint64_t v);
void wire__put_f64(struct strbuf *sb, double v);
/* NULL and "" differ: NULL is written as length UINT64_MAX. */
void wire__put_str(struct strbuf *sb, const char *s);
/* A string of n bytes that may hold NULs (a source file); NULL as wire__put_str. */
void wire__put_mem(struct strbuf *sb, const char *s, size_t n);
void wire__put_strv(struct strbuf *sb, const struct strv *sv);

struct wire_reader {
	const char *p, *end;
	int bad;            /* sticky: something did not fit; every read returns 0 or NULL */
	size_t max_items;   /* 0: WIRE_MAX_ITEMS */
	size_t max_str;     /* 0: WIRE_MAX_STR */
};

#define WIRE_MAX_ITEMS 100000
#define WIRE_MAX_STR (1u << 20)

uint64_t wire__u64(struct wire_reader *rb);
double wire__f64(struct wire_reader *rb);
/* A count of items, at most max_items. */
size_t wire__count(struct wire_reader *rb);
/* A malloc'ed, NUL-terminated string (NULL as written, or on "bad"); *len its length if given. */
char *wire__mem(struct wire_reader *rb, size_t *len);
char *wire__str(struct wire_reader *rb);
void wire__strv(struct wire_reader *rb, struct strv *sv);

#endif
