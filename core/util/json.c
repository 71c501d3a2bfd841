// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A streaming JSON writer on top of struct strbuf.
 *
 * The writer trusts its caller for structure (a key only inside an object,
 * balanced begin/end) but never trusts the bytes it is given: every string
 * goes through json__escape, which validates UTF-8 strictly, so findings.json
 * parses whatever a process named itself or wrote into /proc.
 */
#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"

/*
 * Length of the well-formed UTF-8 sequence at s (at most n bytes), or 0 if
 * the first byte does not start one. The ranges are those of Unicode table
 * 3-7, which excludes overlong forms, surrogates (U+D800..U+DFFF) and
 * anything above U+10FFFF by constraining the second byte.
 */
size_t utf8__seq_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0; /* continuation byte, C0/C1 overlong lead, or 5/6-byte form */

	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;

	if (n < len)
		return 0;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

static const char hex_digits[] = "0123456789abcdef";

/* Append the escaped form of s (without quotes) to sb. */
static void json__escape(struct strbuf *sb, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0, len;
	char esc[7];

	/* Copy runs of bytes that need no escaping in one append. */
#define FLUSH_RUN()                                                      \
	do {                                                             \
		if (run) {                                               \
			strbuf__append(sb, (const char *)p + i - run, run); \
			run = 0;                                         \
		}                                                        \
	} while (0)

	while (i < n) {
		unsigned char c = p[i];
		const char *rep = NULL;

		if (c >= 0x80) {
			len = utf8__seq_len(p + i, n - i);
			if (len == 0) {
				/* One U+FFFD per offending byte, then resync. */
				FLUSH_RUN();
				strbuf__append(sb, "\xef\xbf\xbd", 3);
				i++;
				continue;
			}
			/*
			 * U+2028/U+2029 are legal JSON but end a line in
			 * pre-ES2019 JavaScript, where this JSON may be pasted.
			 */
			if (len == 3 && c == 0xe2 && p[i + 1] == 0x80 &&
			    (p[i + 2] == 0xa8 || p[i + 2] == 0xa9)) {
				FLUSH_RUN();
				strbuf__puts(sb, p[i + 2] == 0xa8 ? "\\u2028" : "\\u2029");
				i += 3;
				continue;
			}
			run += len;
			i += len;
			continue;
		}

		switch (c) {
		case '"': rep = "\\\""; break;
		case '\\': rep = "\\\\"; break;
		case '\n': rep = "\\n"; break;
		case '\t': rep = "\\t"; break;
		case '\r': rep = "\\r"; break;
		case '\b': rep = "\\b"; break;
		case '\f': rep = "\\f"; break;
		/* So that "</script>" or "<!--" in data cannot end an HTML container. */
		case '<': rep = "\\u003c"; break;
		case '>': rep = "\\u003e"; break;
		case '&': rep = "\\u0026"; break;
		default:
			if (c < 0x20) {
				memcpy(esc, "\\u00", 4);
				esc[4] = hex_digits[c >> 4];
				esc[5] = hex_digits[c & 0xf];
				esc[6] = '\0';
				rep = esc;
			}
			break;
		}
		if (rep) {
			FLUSH_RUN();
			strbuf__puts(sb, rep);
		} else {
			run++;
		}
		i++;
	}
	FLUSH_RUN();
#undef FLUSH_RUN
}

/*
 * need_comma[depth] holds the state of the container being written at that
 * depth: 0 before its first element, 1 after an element, and JSON_AFTER_KEY
 * between a key and its value, where neither a comma nor an indent belongs.
 */
#define JSON_AFTER_KEY 2
#define JSON_MAX_DEPTH ((int)(sizeof(((struct json *)0)->need_comma) / sizeof(int)))

static void json__indent(struct json *j)
{
	int i;

	strbuf__append(&j->out, "\n", 1);
	for (i = 0; i < j->depth; i++)
		strbuf__append(&j->out, "  ", 2);
}

/* Separator and, when pretty, line break and indent before a value or key. */
static void json__prefix(struct json *j)
{
	int *state = &j->need_comma[j->depth];

	if (*state == JSON_AFTER_KEY) {
		*state = 1;
		return;
	}
	if (*state)
		strbuf__append(&j->out, ",", 1);
	if (j->pretty && j->depth > 0)
		json__indent(j);
	*state = 1;
}

static void json__open(struct json *j, char c)
{
	json__prefix(j);
	strbuf__append(&j->out, &c, 1);
	/* need_comma[63] is the last slot; nesting deeper is a caller bug. */
	assert(j->depth < JSON_MAX_DEPTH - 1);
	j->depth++;
	j->need_comma[j->depth] = 0;
}

static void json__close(struct json *j, char c)
{
	int had_members;

	assert(j->depth > 0);
	/* A key with no value would leave invalid JSON behind. */
	assert(j->need_comma[j->depth] != JSON_AFTER_KEY);
	had_members = j->need_comma[j->depth];
	j->depth--;
	if (j->pretty && had_members)
		json__indent(j);
	strbuf__append(&j->out, &c, 1);
}

void json__begin_object(struct json *j)
{
	json__open(j, '{');
}

void json__end_object(struct json *j)
{
	json__close(j, '}');
}

void json__begin_array(struct json *j)
{
	json__open(j, '[');
}

void json__end_array(struct json *j)
{
	json__close(j, ']');
}

void json__key(struct json *j, const char *key)
{
	json__prefix(j);
	strbuf__append(&j->out, "\"", 1);
	json__escape(&j->out, key, strlen(key));
	strbuf__puts(&j->out, j->pretty ? "\": " : "\":");
	j->need_comma[j->depth] = JSON_AFTER_KEY;
}

void json__string_n(struct json *j, const char *s, size_t n)
{
	json__prefix(j);
	strbuf__append(&j->out, "\"", 1);
	json__escape(&j->out, s, n);
	strbuf__append(&j->out, "\"", 1);
}

/* A NULL string is written as null: "no value" rather than a crash. */
void json__string(struct json *j, const char *s)
{
	if (!s) {
		json__null(j);
		return;
	}
	json__string_n(j, s, strlen(s));
}

/*
 * printf's %g follows LC_NUMERIC; JSON always wants '.', whatever locale a
 * library linked into the process may have set.
 */
static void fix_decimal_point(char *s)
{
	for (; *s; s++)
		if (*s == ',')
			*s = '.';
}

void json__number(struct json *j, double v)
{
	/* 2^53: beyond it not every integer is representable, so %g decides. */
	const double exact_int_limit = 9007199254740992.0;
	char buf[40];
	int prec;

	if (!isfinite(v)) {
		json__null(j);
		return;
	}
	json__prefix(j);
	/* -0 prints as 0 (it compares equal and reads better in a report). */
	if (v > -exact_int_limit && v < exact_int_limit && v == (double)(long long)v) {
		strbuf__printf(&j->out, "%lld", (long long)v);
		return;
	}
	/*
	 * The fewest digits that read back as the same double: %.17g always
	 * does, but writes 0.1 as 0.10000000000000001; 15 digits are exact for
	 * most measured values, 16 catch most of the rest (1/3).
	 */
	for (prec = 15; prec < 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if (prec == 17)
		snprintf(buf, sizeof(buf), "%.17g", v);
	fix_decimal_point(buf);
	strbuf__puts(&j->out, buf);
}

void json__int(struct json *j, int64_t v)
{
	json__prefix(j);
	strbuf__printf(&j->out, "%" PRId64, v);
}

void json__raw(struct json *j, const char *text, size_t n)
{
	json__prefix(j);
	strbuf__append(&j->out, text, n);
}

void json__bool(struct json *j, int v)
{
	json__prefix(j);
	strbuf__puts(&j->out, v ? "true" : "false");
}

void json__null(struct json *j)
{
	json__prefix(j);
	strbuf__puts(&j->out, "null");
}

void json__kv_str(struct json *j, const char *key, const char *v)
{
	json__key(j, key);
	if (v)
		json__string(j, v);
	else
		json__null(j);
}

void json__kv_number(struct json *j, const char *key, double v)
{
	json__key(j, key);
	json__number(j, v);
}

void json__kv_int(struct json *j, const char *key, int64_t v)
{
	json__key(j, key);
	json__int(j, v);
}

void json__kv_strv(struct json *j, const char *key, const struct strv *sv)
{
	json__key(j, key);
	json__begin_array(j);
	for (size_t i = 0; i < sv->n; i++)
		json__string(j, sv->v[i]);
	json__end_array(j);
}
