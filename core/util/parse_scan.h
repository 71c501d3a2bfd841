/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The bounded scanners the parsers share (core/util/parse_*.c);
 * private to core/util.
 *
 * Two rules hold throughout:
 *
 * - Nothing at or past len is read and the buffer is not assumed to be
 *   NUL-terminated, so the C string functions (strtoull, sscanf, strchr) are
 *   never pointed at it. Numbers go through the bounded scanners here, which
 *   also refuse a value that does not fit instead of wrapping it the way
 *   sscanf does, or clamping it the way strtoull does.
 *
 * - The truncated last line is never read: the rule is stated once, at the
 *   top of parse.h; parse_next_line and parse_line_one below apply it.
 */
#ifndef SONDE_PARSE_SCAN_H
#define SONDE_PARSE_SCAN_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util/parse.h"

static inline bool parse_is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static inline bool parse_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* A hex digit's value (either case), or -1. */
static inline int parse_hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static inline const char *parse_skip_blanks(const char *p, const char *end)
{
	while (p < end && parse_is_blank(*p))
		p++;
	return p;
}

/* End of the run of non-blank bytes at p. */
static inline const char *parse_token_end(const char *p, const char *end)
{
	while (p < end && !parse_is_blank(*p) && *p != '\n')
		p++;
	return p;
}

static inline bool parse_at_boundary(const char *p, const char *end)
{
	return p == end || parse_is_blank(*p) || *p == '\n';
}

static inline bool parse_word_is(const char *w, size_t n, const char *lit)
{
	return n == strlen(lit) && !memcmp(w, lit, n);
}

/*
 * The next complete line at *pos: [*ls, *le) with *le on its '\n'. A tail
 * without '\n' is not returned (the rule at the top of parse.h).
 */
static inline bool parse_next_line(const char **pos, const char *end, const char **ls,
				   const char **le)
{
	const char *nl;

	if (*pos >= end)
		return false;
	nl = memchr(*pos, '\n', end - *pos);
	if (!nl)
		return false;
	*ls = *pos;
	*le = nl;
	*pos = nl + 1;
	return true;
}

/* The '\n' ending the first line of a one-line file, or NULL when there is no complete line. */
static inline const char *parse_line_one(const char *buf, size_t len)
{
	return buf && len ? memchr(buf, '\n', len) : NULL;
}

/* Decimal digits at *pp; refuses no digits and anything above UINT64_MAX. */
static inline int parse_scan_u64(const char **pp, const char *end, uint64_t *out)
{
	const char *p = *pp;
	uint64_t v = 0;

	if (p >= end || !parse_is_digit(*p))
		return -EINVAL;
	for (; p < end && parse_is_digit(*p); p++) {
		unsigned int d = *p - '0';

		if (v > (UINT64_MAX - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
	}
	*out = v;
	*pp = p;
	return 0;
}

/* Hex digits at *pp, with or without "0x"; refuses no digits and anything above UINT64_MAX. */
static inline int parse_scan_hex(const char **pp, const char *end, uint64_t *out)
{
	const char *p = *pp;
	uint64_t v = 0;
	int d;

	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	if (p >= end || parse_hex_digit((unsigned char)*p) < 0)
		return -EINVAL;
	for (; p < end && (d = parse_hex_digit((unsigned char)*p)) >= 0; p++) {
		if (v >> 60)
			return -EINVAL;
		v = v << 4 | (unsigned)d;
	}
	*out = v;
	*pp = p;
	return 0;
}

/* A whole numeric field: blanks, digits, then a blank, '\n' or end ("12ab" is refused). */
static inline int parse_scan_u64_field(const char **pp, const char *end, uint64_t *out)
{
	const char *p = parse_skip_blanks(*pp, end);

	if (parse_scan_u64(&p, end, out) || !parse_at_boundary(p, end))
		return -EINVAL;
	*pp = p;
	return 0;
}

/*
 * A non-negative decimal such as "0.43" (load and PSI averages). By hand
 * rather than strtod: the buffer is not NUL-terminated and strtod obeys
 * LC_NUMERIC. All digits go into one integer divided once by an exact power
 * of ten, so "1.95" yields the same double as the literal 1.95.
 */
static inline int parse_scan_decimal(const char **pp, const char *end, double *out)
{
	/* Powers of ten that a double holds exactly; 19 digits is all a u64 mantissa takes. */
	static const double pow10[] = {
		1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,
		1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
	};
	const char *p = *pp;
	uint64_t mant;
	int scale = 0;

	if (parse_scan_u64(&p, end, &mant))
		return -EINVAL;
	if (p < end && *p == '.') {
		p++;
		if (p >= end || !parse_is_digit(*p))
			return -EINVAL;
		for (; p < end && parse_is_digit(*p); p++) {
			unsigned int d = *p - '0';

			/* Digits past what the mantissa holds are below a double's precision. */
			if (scale < 19 && mant <= (UINT64_MAX - d) / 10) {
				mant = mant * 10 + d;
				scale++;
			}
		}
	}
	*out = (double)mant / pow10[scale];
	*pp = p;
	return 0;
}

/*
 * "[-]digits" filling exactly [s, s + n). The magnitude is returned so each
 * caller applies the range of its own field.
 */
static inline int parse_num_token(const char *s, size_t n, bool *neg, uint64_t *mag)
{
	const char *p = s, *end = s + n;

	*neg = false;
	if (p < end && *p == '-') {
		*neg = true;
		p++;
	}
	if (parse_scan_u64(&p, end, mag) || p != end)
		return -EINVAL;
	return 0;
}

/*
 * "Key: value" or "key value": the key runs to the first ':' or blank, the
 * value is the rest without surrounding blanks. False when either is empty.
 */
static inline bool parse_kv_split(const char *ls, const char *le, const char **k, size_t *klen,
				   const char **v, size_t *vlen)
{
	const char *p = parse_skip_blanks(ls, le), *ks = p, *ve;

	while (p < le && *p != ':' && !parse_is_blank(*p))
		p++;
	if (p == ks)
		return false;
	*k = ks;
	*klen = p - ks;
	if (p < le && *p == ':')
		p++;
	p = parse_skip_blanks(p, le);
	ve = le;
	while (ve > p && parse_is_blank(ve[-1]))
		ve--;
	if (ve == p)
		return false;
	*v = p;
	*vlen = ve - p;
	return true;
}

/* The next word at *pp (blanks skipped): up to a blank, '\n' or end; -EINVAL when there is none. */
static inline int parse_scan_word(const char **pp, const char *end, struct parse_word *w)
{
	const char *p = parse_skip_blanks(*pp, end), *e = parse_token_end(p, end);

	if (e == p)
		return -EINVAL;
	w->p = p;
	w->n = (size_t)(e - p);
	*pp = e;
	return 0;
}

/* A whole signed field: blanks, an optional '-', digits, then a blank, '\n' or end. */
static inline int parse_scan_i64_field(const char **pp, const char *end, int64_t *out)
{
	const char *p = parse_skip_blanks(*pp, end), *e = parse_token_end(p, end);
	uint64_t mag;
	bool neg;

	if (parse_num_token(p, (size_t)(e - p), &neg, &mag) ||
	    mag > (uint64_t)INT64_MAX + (neg ? 1 : 0))
		return -EINVAL;
	/* -(INT64_MAX) - 1 spelled so that no intermediate overflows */
	*out = neg ? (mag ? -(int64_t)(mag - 1) - 1 : 0) : (int64_t)mag;
	*pp = e;
	return 0;
}

/*
 * The next field of a tab-separated line [*pp, le): [w->p, w->p + w->n), *pp
 * past its tab. False once the line is used up (a line "a\tb" has two fields,
 * "a\t" two as well, the second empty).
 */
static inline bool parse_tab_field(const char **pp, const char *le, struct parse_word *w)
{
	const char *t;

	if (*pp > le)
		return false;
	t = memchr(*pp, '\t', (size_t)(le - *pp));
	w->p = *pp;
	w->n = (size_t)((t ? t : le) - *pp);
	*pp = (t ? t : le) + 1;
	return true;
}

/* The whole of w is a decimal number. */
static inline int parse_word_u64(struct parse_word w, uint64_t *out)
{
	const char *p = w.p;

	if (parse_scan_u64(&p, w.p + w.n, out) || p != w.p + w.n)
		return -EINVAL;
	return 0;
}

#endif
