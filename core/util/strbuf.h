/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A growable string buffer: always NUL-terminated, allocation failure sticky (oom). */
#ifndef SONDE_STRBUF_H
#define SONDE_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

struct strbuf {
	char *buf;
	size_t len, cap;
	int oom; /* set once an allocation failed; further appends are dropped */
};

void strbuf__append(struct strbuf *sb, const char *s, size_t n);
void strbuf__puts(struct strbuf *sb, const char *s);
void strbuf__printf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf__vprintf(struct strbuf *sb, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
void strbuf__free(struct strbuf *sb);

#endif
