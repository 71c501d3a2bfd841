// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The terminal sanitizer (util/tty.h): what may reach a terminal, decided
 * one character at a time on well-formed UTF-8.
 */
#include <string.h>

#include "util/json.h" /* utf8__seq_len */
#include "util/tty.h"

/* The bytes a sequence led by c takes, 0 when c leads none. */
static size_t seq_need(unsigned char c)
{
	if (c >= 0xc2 && c <= 0xdf)
		return 2;
	if (c >= 0xe0 && c <= 0xef)
		return 3;
	if (c >= 0xf0 && c <= 0xf4)
		return 4;
	return 0;
}

/* p (k bytes) is the start of a well-formed sequence that needs more bytes. */
static int partial_seq(const unsigned char *p, size_t k)
{
	size_t need = seq_need(p[0]);
	unsigned char lo = 0x80, hi = 0xbf;

	if (!need || k >= need)
		return 0;
	/* The second byte's range, as utf8__seq_len checks it (Unicode table 3-7). */
	if (p[0] == 0xe0)
		lo = 0xa0;
	else if (p[0] == 0xed)
		hi = 0x9f;
	else if (p[0] == 0xf0)
		lo = 0x90;
	else if (p[0] == 0xf4)
		hi = 0x8f;
	if (k > 1 && (p[1] < lo || p[1] > hi))
		return 0;
	for (size_t i = 2; i < k; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return 1;
}

static unsigned int decode(const unsigned char *p, size_t len)
{
	unsigned int cp = len == 2 ? p[0] & 0x1f : len == 3 ? p[0] & 0x0f : p[0] & 0x07;

	for (size_t i = 1; i < len; i++)
		cp = cp << 6 | (p[i] & 0x3f);
	return cp;
}

static int bad_code_point(unsigned int cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069) || cp == 0x2028 || cp == 0x2029;
}

/*
 * The length of the printable run at the start of p; *bad gets the length of
 * the character that ends it (0 at the end of p).
 */
static size_t good_run(const unsigned char *p, size_t n, unsigned int flags, size_t *bad)
{
	size_t i = 0, len;

	*bad = 0;
	while (i < n) {
		unsigned char c = p[i];

		if (c < 0x80) {
			if ((c < 0x20 && !((flags & TTY_KEEP_LINES) && (c == '\n' || c == '\t'))) ||
			    c == 0x7f) {
				*bad = 1;
				break;
			}
			i++;
			continue;
		}
		len = utf8__seq_len(p + i, n - i);
		if (!len) {
			*bad = 1;
			break;
		}
		if (bad_code_point(decode(p + i, len))) {
			*bad = len;
			break;
		}
		i += len;
	}
	return i;
}

size_t tty__printable(const char *s, size_t n, unsigned int flags)
{
	size_t bad;

	return good_run((const unsigned char *)s, n, flags, &bad);
}

size_t tty__clean(char *s, size_t n, unsigned int flags)
{
	unsigned char *p = (unsigned char *)s;
	size_t i = 0, o = 0, run, bad;

	while (i < n) {
		run = good_run(p + i, n - i, flags, &bad);
		memmove(p + o, p + i, run);
		o += run;
		i += run;
		if (bad) {
			p[o++] = '?';
			i += bad;
		}
	}
	return o;
}

void tty__clean_str(char *s)
{
	size_t n;

	if (!s)
		return;
	n = tty__clean(s, strlen(s), 0);
	s[n] = '\0';
}

/* p (n bytes, every character in it whole) to f, cleaned. */
static void emit(FILE *f, const unsigned char *p, size_t n, unsigned int flags)
{
	size_t run, bad;

	while (n) {
		run = good_run(p, n, flags, &bad);
		fwrite(p, 1, run, f);
		p += run;
		n -= run;
		if (bad) {
			fputc('?', f);
			p += bad;
			n -= bad;
		}
	}
}

void tty__puts(FILE *f, const char *s)
{
	if (s)
		emit(f, (const unsigned char *)s, strlen(s), 0);
}

void tty__write(struct tty_stream *ts, const char *buf, size_t n)
{
	const unsigned char *p = (const unsigned char *)buf;
	size_t i = 0, end = n;

	/* Complete the character held from the last piece, or give it up. */
	while (ts->nheld && i < n) {
		ts->held[ts->nheld++] = p[i++];
		if (ts->nheld == seq_need(ts->held[0]) && utf8__seq_len(ts->held, ts->nheld)) {
			emit(ts->f, ts->held, ts->nheld, ts->flags);
			ts->nheld = 0;
		} else if (!partial_seq(ts->held, ts->nheld)) {
			/* The new byte does not continue it: every held byte is a '?', and
			 * the new byte is judged on its own with the rest. */
			ts->nheld--;
			i--;
			for (size_t k = 0; k < ts->nheld; k++)
				fputc('?', ts->f);
			ts->nheld = 0;
		}
	}
	if (ts->nheld)
		return; /* still cut: this piece was part of it */
	/* A character cut at the end of this piece waits for the next. */
	for (size_t k = 1; k <= 3 && k <= n - i; k++) {
		if (p[n - k] < 0x80)
			break;
		if (seq_need(p[n - k])) {
			if (partial_seq(p + n - k, k))
				end = n - k;
			break;
		}
	}
	emit(ts->f, p + i, end - i, ts->flags);
	memcpy(ts->held, p + end, n - end);
	ts->nheld = n - end;
}

void tty__end(struct tty_stream *ts)
{
	for (size_t k = 0; k < ts->nheld; k++)
		fputc('?', ts->f);
	ts->nheld = 0;
}
