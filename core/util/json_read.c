// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A strict, bounded RFC 8259 reader into a jval tree.
 *
 * Its input is manifest.json and findings.json from bundles that may come
 * from anywhere, so it accepts exactly the RFC grammar and nothing a lenient
 * parser would guess at, and every resource it spends is capped: the document
 * size, the nesting depth (which is also the C recursion depth), the number of
 * values and the size of one string. Every refusal names the byte where it
 * happened, so a broken bundle can be fixed by hand.
 *
 * Strings are decoded into C strings, so \u0000 is refused rather than
 * silently cutting a string short. Invalid UTF-8 is refused rather than
 * repaired: a reader that repairs can be made to see a different document
 * than the tool that checked the bundle's hashes.
 */
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"
#include "util/json_read.h"
#include "util/parse_scan.h"
#include "util/tty.h"

const struct json_read_limits json_read_default_limits = {
	.max_bytes = 64UL << 20,
	.max_depth = 64,
	.max_items = 2000000,
	.max_string = 16UL << 20,
};

/*
 * Hard ceiling on the depth whatever the caller asks for: parsing and freeing
 * recurse once per level, and a few hundred small frames are safe on any
 * thread stack, a caller-supplied SIZE_MAX is not.
 */
#define JSON_READ_DEPTH_CEILING 512

/*
 * Objects up to this many members are checked for duplicate keys as they are
 * read; larger ones are sorted once at the end, so a crafted object with a
 * million keys costs n log n comparisons, not n^2.
 */
#define DUP_LINEAR_MAX 32

/* Integers with at most this many digits are exact in a double (< 2^53). */
#define EXACT_INT_DIGITS 15

struct json_parser {
	const unsigned char *buf;
	size_t len;
	size_t pos;
	size_t max_depth;
	size_t items;
	const struct json_read_limits *lim;
	char *err;
	size_t errlen;
};

/* The document is not JSON, or breaks a limit: "byte off: reason" for the caller. */
__attribute__((format(printf, 3, 4)))
static int parser__fail(struct json_parser *p, size_t off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!p->err || !p->errlen)
		return -EINVAL;
	n = snprintf(p->err, p->errlen, "byte %zu: ", off);
	if (n < 0 || (size_t)n >= p->errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errlen - n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int parser__oom(struct json_parser *p)
{
	if (p->err && p->errlen)
		snprintf(p->err, p->errlen, "byte %zu: out of memory", p->pos);
	return -ENOMEM;
}

/* A byte as it can be shown in a message: 'x' when printable, else 0xNN. */
static const char *byte_desc(unsigned char c, char buf[8])
{
	if (c >= 0x20 && c < 0x7f)
		snprintf(buf, 8, "'%c'", c);
	else
		snprintf(buf, 8, "0x%02x", c);
	return buf;
}

static void parser__skip_ws(struct json_parser *p)
{
	while (p->pos < p->len) {
		unsigned char c = p->buf[p->pos];

		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			break;
		p->pos++;
	}
}

/* Frees what v owns, recursively; v itself belongs to its parent array. */
static void jval__clear(struct jval *v)
{
	size_t i;

	switch (v->type) {
	case J_STRING:
		free(v->str);
		break;
	case J_ARRAY:
	case J_OBJECT:
		for (i = 0; i < v->len; i++) {
			jval__clear(&v->items[i]);
			if (v->keys)
				free(v->keys[i]);
		}
		free(v->items);
		free(v->keys);
		break;
	default:
		break;
	}
	memset(v, 0, sizeof(*v));
}

void jval__free(struct jval *v)
{
	if (!v)
		return;
	jval__clear(v);
	free(v);
}

/* The 4 hex digits of a \u escape at s (4 bytes available), or -1. */
static long hex4(const unsigned char *s)
{
	long v = 0;
	int i, d;

	for (i = 0; i < 4; i++) {
		d = parse_hex_digit(s[i]);
		if (d < 0)
			return -1;
		v = v << 4 | d;
	}
	return v;
}

static size_t utf8_encode(unsigned long cp, unsigned char *out)
{
	if (cp < 0x80) {
		out[0] = cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = 0xc0 | cp >> 6;
		out[1] = 0x80 | (cp & 0x3f);
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = 0xe0 | cp >> 12;
		out[1] = 0x80 | (cp >> 6 & 0x3f);
		out[2] = 0x80 | (cp & 0x3f);
		return 3;
	}
	out[0] = 0xf0 | cp >> 18;
	out[1] = 0x80 | (cp >> 12 & 0x3f);
	out[2] = 0x80 | (cp >> 6 & 0x3f);
	out[3] = 0x80 | (cp & 0x3f);
	return 4;
}

/*
 * The \u escape at i (the backslash), possibly a surrogate pair: the code
 * point in *cp and the bytes consumed in *used, or a parser error.
 */
static int parse_u_escape(struct json_parser *p, size_t i, unsigned long *cp, size_t *used)
{
	const unsigned char *b = p->buf;
	long hi, lo;

	if (p->len - i < 6)
		return parser__fail(p, i, "truncated \\u escape");
	hi = hex4(b + i + 2);
	if (hi < 0)
		return parser__fail(p, i, "\\u needs 4 hex digits");
	if (hi == 0)
		return parser__fail(p, i, "\\u0000 is not allowed in a string");
	if (hi >= 0xdc00 && hi <= 0xdfff)
		return parser__fail(p, i, "low surrogate \\u%04lx without a high one", hi);
	if (hi < 0xd800 || hi > 0xdbff) {
		*cp = hi;
		*used = 6;
		return 0;
	}
	/* A high surrogate only means something followed by a low one. */
	if (p->len - i < 12 || b[i + 6] != '\\' || b[i + 7] != 'u')
		return parser__fail(p, i, "high surrogate \\u%04lx without a low one", hi);
	lo = hex4(b + i + 8);
	if (lo < 0)
		return parser__fail(p, i + 6, "\\u needs 4 hex digits");
	if (lo < 0xdc00 || lo > 0xdfff)
		return parser__fail(p, i, "high surrogate \\u%04lx without a low one", hi);
	*cp = 0x10000 + ((unsigned long)(hi - 0xd800) << 10) + (unsigned long)(lo - 0xdc00);
	*used = 12;
	return 0;
}

/*
 * The string whose opening quote is at p->pos, decoded and NUL-terminated into
 * *out (*outlen bytes). Decoding never grows a string (an escape is at least
 * as long as what it stands for), so a quick scan for the closing quote sizes
 * the buffer once. When that scan finds no quote the document is broken
 * anyway: the same loop then runs without a buffer, to report the first
 * real error rather than a bare "unterminated".
 */
static int parse_string(struct json_parser *p, char **out, size_t *outlen)
{
	const unsigned char *b = p->buf;
	size_t start = p->pos + 1, q = start, i, n = 0, cap = 0, used;
	unsigned char *dst = NULL, enc[4];
	unsigned long cp = 0;
	char desc[8];
	int ret;

	while (q < p->len && b[q] != '"')
		q += b[q] == '\\' ? 2 : 1;
	if (q < p->len) {
		cap = q - start;
		dst = malloc(cap + 1);
		if (!dst)
			return parser__oom(p);
	}

	i = start;
	for (;;) {
		const unsigned char *src;
		size_t k;

		if (i >= p->len) {
			ret = parser__fail(p, p->len, "unterminated string (opened at byte %zu)",
					   p->pos);
			goto fail;
		}
		if (b[i] == '"')
			break;
		if (b[i] < 0x20) {
			ret = parser__fail(p, i, "unescaped control character 0x%02x in string",
					   b[i]);
			goto fail;
		}
		src = b + i;
		if (b[i] == '\\') {
			if (i + 1 >= p->len) {
				ret = parser__fail(p, p->len, "unterminated escape");
				goto fail;
			}
			k = 1;
			used = 2;
			src = enc;
			switch (b[i + 1]) {
			case '"': enc[0] = '"'; break;
			case '\\': enc[0] = '\\'; break;
			case '/': enc[0] = '/'; break;
			case 'b': enc[0] = '\b'; break;
			case 'f': enc[0] = '\f'; break;
			case 'n': enc[0] = '\n'; break;
			case 'r': enc[0] = '\r'; break;
			case 't': enc[0] = '\t'; break;
			case 'u':
				ret = parse_u_escape(p, i, &cp, &used);
				if (ret)
					goto fail;
				k = utf8_encode(cp, enc);
				break;
			default:
				ret = parser__fail(p, i, "invalid escape \\%s",
						   byte_desc(b[i + 1], desc));
				goto fail;
			}
		} else if (b[i] < 0x80) {
			k = used = 1;
		} else {
			k = used = utf8__seq_len(b + i, p->len - i);
			if (!k) {
				ret = parser__fail(p, i, "invalid UTF-8 in string");
				goto fail;
			}
		}
		if (n + k > p->lim->max_string) {
			ret = parser__fail(p, i, "string longer than max_string (%zu bytes)",
					   p->lim->max_string);
			goto fail;
		}
		if (dst) {
			/* Cannot happen (see above); checked because the input is hostile. */
			if (n + k > cap) {
				ret = parser__fail(p, i, "string decodes longer than itself");
				goto fail;
			}
			memcpy(dst + n, src, k);
		}
		n += k;
		i += used;
	}
	if (!dst) {
		/* Unreachable: the scan and this loop agree on where escapes end. */
		ret = parser__fail(p, i, "string scan mismatch");
		goto fail;
	}
	dst[n] = '\0';
	*out = (char *)dst;
	*outlen = n;
	p->pos = i + 1;
	return 0;
fail:
	free(dst);
	return ret;
}

/*
 * strtod follows LC_NUMERIC, and a library linked into the process may have
 * set a locale whose decimal point is ','. JSON's is always '.', so numbers
 * are converted in a C locale made once and kept for the process's life.
 */
static locale_t c_numeric_locale(void)
{
	static locale_t cached;
	locale_t loc = __atomic_load_n(&cached, __ATOMIC_ACQUIRE), expected = (locale_t)0;

	if (loc)
		return loc;
	loc = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	if (!loc)
		return (locale_t)0;
	if (!__atomic_compare_exchange_n(&cached, &expected, loc, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		freelocale(loc);
		loc = expected;
	}
	return loc;
}

static int is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static int parse_number(struct json_parser *p, struct jval *v)
{
	const unsigned char *b = p->buf;
	size_t start = p->pos, i = start, int_digits;
	char small[64], *copy = small;
	int neg = 0, simple = 1;
	locale_t loc;
	double d;

	if (b[i] == '-') {
		neg = 1;
		i++;
	}
	if (i >= p->len || !is_digit(b[i]))
		return parser__fail(p, i, "expected a digit after '-'");
	if (b[i] == '0') {
		i++;
		if (i < p->len && is_digit(b[i]))
			return parser__fail(p, i - 1, "leading zero in a number");
	} else {
		while (i < p->len && is_digit(b[i]))
			i++;
	}
	int_digits = i - start - neg;
	if (i < p->len && b[i] == '.') {
		simple = 0;
		i++;
		if (i >= p->len || !is_digit(b[i]))
			return parser__fail(p, i, "expected a digit after '.'");
		while (i < p->len && is_digit(b[i]))
			i++;
	}
	if (i < p->len && (b[i] == 'e' || b[i] == 'E')) {
		simple = 0;
		i++;
		if (i < p->len && (b[i] == '+' || b[i] == '-'))
			i++;
		if (i >= p->len || !is_digit(b[i]))
			return parser__fail(p, i, "expected a digit in the exponent");
		while (i < p->len && is_digit(b[i]))
			i++;
	}

	/* Most numbers in a manifest are sizes and counts: skip strtod for them. */
	if (simple && int_digits <= EXACT_INT_DIGITS) {
		long long n = 0;
		size_t k;

		for (k = start + neg; k < i; k++)
			n = n * 10 + (b[k] - '0');
		v->type = J_NUMBER;
		v->number = neg ? -(double)n : (double)n;
		p->pos = i;
		return 0;
	}

	/* The buffer is not NUL-terminated: strtod needs a bounded copy. */
	if (i - start >= sizeof(small)) {
		copy = malloc(i - start + 1);
		if (!copy)
			return parser__oom(p);
	}
	memcpy(copy, b + start, i - start);
	copy[i - start] = '\0';
	loc = c_numeric_locale();
	d = loc ? strtod_l(copy, NULL, loc) : strtod(copy, NULL);
	if (copy != small)
		free(copy);
	/* Underflow to a denormal or zero is a fine approximation; infinity is not. */
	if (isinf(d))
		return parser__fail(p, start, "number out of the range of a double");
	v->type = J_NUMBER;
	v->number = d;
	p->pos = i;
	return 0;
}

/* Grows a child array of *cap elements of size sz to hold at least n + 1. */
static int grow(void **arr, size_t *cap, size_t n, size_t sz)
{
	size_t ncap;
	void *na;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 4;
	if (ncap < *cap || ncap > SIZE_MAX / sz)
		return -ENOMEM;
	na = realloc(*arr, ncap * sz);
	if (!na)
		return -ENOMEM;
	*arr = na;
	*cap = ncap;
	return 0;
}

/* Give back what doubling over-allocated; keeping the larger block is fine too. */
static void shrink(void **arr, size_t n, size_t sz)
{
	void *na;

	if (!*arr || !n)
		return;
	na = realloc(*arr, n * sz);
	if (na)
		*arr = na;
}

static int parse_value(struct json_parser *p, struct jval *v, size_t depth);

static int parse_array(struct json_parser *p, struct jval *v, size_t depth)
{
	struct jval *items = NULL;
	size_t n = 0, cap = 0, i;
	int ret;

	p->pos++;
	parser__skip_ws(p);
	if (p->pos < p->len && p->buf[p->pos] == ']') {
		p->pos++;
		v->type = J_ARRAY;
		return 0;
	}
	for (;;) {
		if (grow((void **)&items, &cap, n, sizeof(*items))) {
			ret = parser__oom(p);
			goto fail;
		}
		memset(&items[n], 0, sizeof(items[n]));
		ret = parse_value(p, &items[n], depth + 1);
		if (ret)
			goto fail;
		n++;
		parser__skip_ws(p);
		if (p->pos >= p->len) {
			ret = parser__fail(p, p->pos, "unexpected end of input in an array");
			goto fail;
		}
		if (p->buf[p->pos] == ']')
			break;
		if (p->buf[p->pos] != ',') {
			char desc[8];

			ret = parser__fail(p, p->pos, "expected ',' or ']', not %s",
					   byte_desc(p->buf[p->pos], desc));
			goto fail;
		}
		p->pos++;
	}
	p->pos++;
	shrink((void **)&items, n, sizeof(*items));
	v->type = J_ARRAY;
	v->items = items;
	v->len = n;
	return 0;
fail:
	for (i = 0; i < n; i++)
		jval__clear(&items[i]);
	free(items);
	return ret;
}

struct key_pos {
	const char *key;
	size_t off;
};

static int key_pos_cmp(const void *a, const void *b)
{
	const struct key_pos *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (c)
		return c;
	return x->off < y->off ? -1 : x->off > y->off;
}

/*
 * Shows a key in an error message: bounded, and with control characters
 * (which the key may hold through escapes) replaced, so that the message
 * stays one line.
 */
static const char *key_desc(const char *key, char *buf, size_t sz)
{
	snprintf(buf, sz, "%s", key);
	tty__clean_str(buf);
	return buf;
}

/*
 * Duplicate keys in a large object: sorting by (key, offset) puts every
 * repeat right after its earlier occurrence, and the smallest offset among
 * those repeats is the first duplicate in document order.
 */
static int check_dup_sorted(struct json_parser *p, char **keys, const size_t *offs, size_t n)
{
	struct key_pos *kp;
	size_t i, bad = SIZE_MAX;
	const char *bad_key = NULL;
	char desc[48];
	int ret = 0;

	kp = malloc(n * sizeof(*kp));
	if (!kp)
		return parser__oom(p);
	for (i = 0; i < n; i++) {
		kp[i].key = keys[i];
		kp[i].off = offs[i];
	}
	qsort(kp, n, sizeof(*kp), key_pos_cmp);
	for (i = 1; i < n; i++) {
		if (!strcmp(kp[i - 1].key, kp[i].key) && kp[i].off < bad) {
			bad = kp[i].off;
			bad_key = kp[i].key;
		}
	}
	if (bad_key)
		ret = parser__fail(p, bad, "duplicate key \"%s\"",
				   key_desc(bad_key, desc, sizeof(desc)));
	free(kp);
	return ret;
}

static int parse_object(struct json_parser *p, struct jval *v, size_t depth)
{
	struct jval *items = NULL;
	char **keys = NULL, *key = NULL, desc[48];
	size_t *offs = NULL;
	size_t n = 0, cap_items = 0, cap_keys = 0, cap_offs = 0, i, keylen, off;
	int ret;

	p->pos++;
	parser__skip_ws(p);
	if (p->pos < p->len && p->buf[p->pos] == '}') {
		p->pos++;
		v->type = J_OBJECT;
		return 0;
	}
	for (;;) {
		parser__skip_ws(p);
		off = p->pos;
		if (p->pos >= p->len) {
			ret = parser__fail(p, p->pos, "unexpected end of input in an object");
			goto fail;
		}
		if (p->buf[p->pos] != '"') {
			ret = parser__fail(p, p->pos, "expected a \"key\", not %s",
					   byte_desc(p->buf[p->pos], desc));
			goto fail;
		}
		ret = parse_string(p, &key, &keylen);
		if (ret)
			goto fail;
		if (n < DUP_LINEAR_MAX) {
			for (i = 0; i < n; i++) {
				if (!strcmp(keys[i], key)) {
					ret = parser__fail(p, off, "duplicate key \"%s\"",
							   key_desc(key, desc, sizeof(desc)));
					goto fail;
				}
			}
		}
		parser__skip_ws(p);
		if (p->pos >= p->len || p->buf[p->pos] != ':') {
			ret = parser__fail(p, p->pos, "expected ':' after a key");
			goto fail;
		}
		p->pos++;
		if (grow((void **)&items, &cap_items, n, sizeof(*items)) ||
		    grow((void **)&keys, &cap_keys, n, sizeof(*keys)) ||
		    grow((void **)&offs, &cap_offs, n, sizeof(*offs))) {
			ret = parser__oom(p);
			goto fail;
		}
		memset(&items[n], 0, sizeof(items[n]));
		ret = parse_value(p, &items[n], depth + 1);
		if (ret)
			goto fail;
		keys[n] = key;
		offs[n] = off;
		key = NULL;
		n++;
		parser__skip_ws(p);
		if (p->pos >= p->len) {
			ret = parser__fail(p, p->pos, "unexpected end of input in an object");
			goto fail;
		}
		if (p->buf[p->pos] == '}')
			break;
		if (p->buf[p->pos] != ',') {
			ret = parser__fail(p, p->pos, "expected ',' or '}', not %s",
					   byte_desc(p->buf[p->pos], desc));
			goto fail;
		}
		p->pos++;
	}
	p->pos++;
	if (n > DUP_LINEAR_MAX) {
		ret = check_dup_sorted(p, keys, offs, n);
		if (ret)
			goto fail;
	}
	free(offs);
	shrink((void **)&items, n, sizeof(*items));
	shrink((void **)&keys, n, sizeof(*keys));
	v->type = J_OBJECT;
	v->items = items;
	v->keys = keys;
	v->len = n;
	return 0;
fail:
	free(key);
	for (i = 0; i < n; i++) {
		jval__clear(&items[i]);
		free(keys[i]);
	}
	free(items);
	free(keys);
	free(offs);
	return ret;
}

static int parse_literal(struct json_parser *p, const char *word)
{
	size_t n = strlen(word);

	if (p->len - p->pos < n || memcmp(p->buf + p->pos, word, n))
		return parser__fail(p, p->pos, "invalid literal (expected %s)", word);
	p->pos += n;
	return 0;
}

/*
 * One value at p->pos (whitespace skipped). On failure v owns nothing, so
 * each container frees only the children it finished.
 */
static int parse_value(struct json_parser *p, struct jval *v, size_t depth)
{
	char desc[8];
	unsigned char c;
	int ret;

	parser__skip_ws(p);
	if (p->pos >= p->len)
		return parser__fail(p, p->pos, "unexpected end of input, expected a value");
	if (p->items >= p->lim->max_items)
		return parser__fail(p, p->pos, "more than max_items (%zu) values",
				    p->lim->max_items);
	p->items++;

	c = p->buf[p->pos];
	switch (c) {
	case '{':
	case '[':
		if (depth >= p->max_depth)
			return parser__fail(p, p->pos, "nesting deeper than max_depth (%zu)",
					    p->max_depth);
		return c == '{' ? parse_object(p, v, depth) : parse_array(p, v, depth);
	case '"':
		ret = parse_string(p, &v->str, &v->len);
		if (!ret)
			v->type = J_STRING;
		return ret;
	case 't':
	case 'f':
		ret = parse_literal(p, c == 't' ? "true" : "false");
		if (!ret) {
			v->type = J_BOOL;
			v->boolean = c == 't';
		}
		return ret;
	case 'n':
		ret = parse_literal(p, "null");
		if (!ret)
			v->type = J_NULL;
		return ret;
	case '-':
	case '0' ... '9':
		return parse_number(p, v);
	/* The usual extensions of lenient parsers, named so the message helps. */
	case '+':
		return parser__fail(p, p->pos, "a number cannot start with '+'");
	case '.':
		return parser__fail(p, p->pos, "a number needs a digit before '.'");
	case '\'':
		return parser__fail(p, p->pos, "single-quoted strings are not JSON");
	case '/':
		return parser__fail(p, p->pos, "comments are not JSON");
	case 'N':
	case 'I':
		return parser__fail(p, p->pos, "NaN and Infinity are not JSON");
	default:
		return parser__fail(p, p->pos, "expected a value, not %s",
				    byte_desc(c, desc));
	}
}

int json_read(const char *buf, size_t len, const struct json_read_limits *lim, struct jval **out,
	      char *err, size_t errlen)
{
	struct json_parser p = {
		.buf = (const unsigned char *)buf,
		.len = len,
		.lim = lim ? lim : &json_read_default_limits,
		.err = err,
		.errlen = errlen,
	};
	struct jval *v;
	int ret;

	if (err && errlen)
		err[0] = '\0';
	if (!out)
		return parser__fail(&p, 0, "no place for the result");
	*out = NULL;
	if (!buf && len)
		return parser__fail(&p, 0, "no buffer");
	if (len > p.lim->max_bytes)
		return parser__fail(&p, p.lim->max_bytes,
				    "document of %zu bytes exceeds max_bytes (%zu)", len,
				    p.lim->max_bytes);
	p.max_depth = p.lim->max_depth;
	if (p.max_depth > JSON_READ_DEPTH_CEILING)
		p.max_depth = JSON_READ_DEPTH_CEILING;

	parser__skip_ws(&p);
	if (p.pos >= p.len)
		return parser__fail(&p, p.pos, "empty document");

	v = calloc(1, sizeof(*v));
	if (!v)
		return parser__oom(&p);
	ret = parse_value(&p, v, 0);
	if (ret)
		goto fail;
	parser__skip_ws(&p);
	if (p.pos < p.len) {
		ret = parser__fail(&p, p.pos, "trailing data after the value");
		goto fail;
	}
	*out = v;
	return 0;
fail:
	jval__free(v);
	return ret;
}

const struct jval *jval__get(const struct jval *v, const char *key)
{
	size_t i;

	if (!v || v->type != J_OBJECT || !key)
		return NULL;
	for (i = 0; i < v->len; i++)
		if (!strcmp(v->keys[i], key))
			return &v->items[i];
	return NULL;
}

const char *jval__str(const struct jval *v, const char *key)
{
	const struct jval *m = jval__get(v, key);

	return m && m->type == J_STRING ? m->str : NULL;
}

int jval__num(const struct jval *v, const char *key, double *out)
{
	const struct jval *m = jval__get(v, key);

	if (!m || m->type != J_NUMBER)
		return -ENOENT;
	if (out)
		*out = m->number;
	return 0;
}
