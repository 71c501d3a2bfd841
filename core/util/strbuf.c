// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A growable, always NUL-terminated string buffer. An allocation failure is
 * sticky (oom): later appends are dropped, so a caller checks once at the end.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"

/* Smallest allocation; most report strings fit without a regrowth. */
#define STRBUF_MIN_CAP 64

/*
 * Make room for n more bytes plus the terminating NUL. Returns 0 when the
 * room is there; on failure marks the buffer oom so that every later append
 * is dropped, leaving the buffer a consistent (truncated) string rather than
 * one with a hole in the middle.
 */
static int strbuf__reserve(struct strbuf *sb, size_t n)
{
	size_t need, cap;
	char *buf;

	if (sb->oom)
		return -1;
	if (n > SIZE_MAX - sb->len - 1)
		goto fail;
	need = sb->len + n + 1;
	if (need <= sb->cap)
		return 0;

	cap = sb->cap ? sb->cap : STRBUF_MIN_CAP;
	while (cap < need) {
		if (cap > SIZE_MAX / 2) {
			cap = need;
			break;
		}
		cap *= 2;
	}
	buf = realloc(sb->buf, cap);
	if (!buf)
		goto fail;
	sb->buf = buf;
	sb->cap = cap;
	return 0;
fail:
	sb->oom = 1;
	return -1;
}

void strbuf__append(struct strbuf *sb, const char *s, size_t n)
{
	if (strbuf__reserve(sb, n))
		return;
	if (n)
		memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void strbuf__puts(struct strbuf *sb, const char *s)
{
	strbuf__append(sb, s, strlen(s));
}

void strbuf__printf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf__vprintf(sb, fmt, ap);
	va_end(ap);
}

void strbuf__vprintf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list ap2;
	size_t room;
	int n;

	/* Even an empty result leaves a NUL-terminated buffer behind. */
	if (strbuf__reserve(sb, 0))
		return;

	va_copy(ap2, ap);
	room = sb->cap - sb->len;
	n = vsnprintf(sb->buf + sb->len, room, fmt, ap);
	if (n < 0) {
		/* Encoding error: keep the string as it was. */
		sb->buf[sb->len] = '\0';
		goto out;
	}
	if ((size_t)n >= room) {
		if (strbuf__reserve(sb, n)) {
			sb->buf[sb->len] = '\0';
			goto out;
		}
		vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap2);
	}
	sb->len += n;
out:
	va_end(ap2);
}

void strbuf__free(struct strbuf *sb)
{
	free(sb->buf);
	memset(sb, 0, sizeof(*sb));
}
