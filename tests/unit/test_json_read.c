// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * core/util/json_read.c: JSONTestSuite-style accept and reject cases with the byte
 * each refusal names, the limits, a million-element array, documents written
 * by core/util/json.c read back, every truncation, random byte flips, and every
 * allocation failing in turn. Run it under ASan: the leak checker at exit is
 * part of the test, for the error paths most of all.
 */
#include <dlfcn.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/json.h"
#include "util/json_read.h"
#include "tap.h"

/*
 * Allocation failure injection. The test binary defines malloc and friends,
 * which the dynamic linker prefers to libc's (or ASan's, which stays in
 * charge of the memory: RTLD_NEXT finds it). While fail_at >= 0 the call
 * with that number fails. dlsym may allocate before the real functions are
 * known; those few bytes come from a static arena that free ignores.
 */
static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);
static long fail_at = -1, alloc_calls;
static _Alignas(16) char boot_arena[8192];
static size_t boot_used;

static void *boot_alloc(size_t n)
{
	void *p;

	n = (n + 15) & ~(size_t)15;
	if (n > sizeof(boot_arena) - boot_used)
		return NULL;
	p = boot_arena + boot_used;
	boot_used += n;
	return p;
}

static int in_boot_arena(const void *p)
{
	return (const char *)p >= boot_arena && (const char *)p < boot_arena + sizeof(boot_arena);
}

static void resolve_allocator(void)
{
	static int resolving;

	if (resolving)
		return;
	resolving = 1;
	real_malloc = dlsym(RTLD_NEXT, "malloc");
	real_calloc = dlsym(RTLD_NEXT, "calloc");
	real_realloc = dlsym(RTLD_NEXT, "realloc");
	real_free = dlsym(RTLD_NEXT, "free");
	resolving = 0;
}

static int inject_failure(void)
{
	return fail_at >= 0 && alloc_calls++ == fail_at;
}

void *malloc(size_t n)
{
	if (!real_malloc)
		resolve_allocator();
	if (!real_malloc)
		return boot_alloc(n);
	if (inject_failure())
		return NULL;
	return real_malloc(n);
}

void *calloc(size_t n, size_t sz)
{
	if (!real_calloc)
		resolve_allocator();
	if (!real_calloc)
		return sz && n > SIZE_MAX / sz ? NULL : boot_alloc(n * sz);
	if (inject_failure())
		return NULL;
	return real_calloc(n, sz);
}

void *realloc(void *p, size_t n)
{
	if (!real_realloc)
		resolve_allocator();
	if (!real_realloc || in_boot_arena(p)) {
		/* Only during start-up, and never for the parser's memory. */
		void *q = malloc(n);

		if (q && p)
			memcpy(q, p, n);
		return q;
	}
	if (inject_failure())
		return NULL;
	return real_realloc(p, n);
}

void free(void *p)
{
	if (!p || in_boot_arena(p))
		return;
	if (!real_free)
		resolve_allocator();
	real_free(p);
}

static char err[256];

static int parse(const char *doc, size_t len, const struct json_read_limits *lim,
		 struct jval **out)
{
	return json_read(doc, len, lim, out, err, sizeof(err));
}

/* Offset named by an error message, or -1 when it does not start "byte N: ". */
static long err_offset(const char *msg)
{
	long off;
	int n = 0;

	if (sscanf(msg, "byte %ld: %n", &off, &n) != 1 || n == 0)
		return -1;
	return off;
}

#define L(lit) (lit), (sizeof(lit) - 1)

struct accept_case {
	const char *name;
	const char *doc;
	size_t len;
};

/* y_: RFC 8259 documents that must parse. */
static const struct accept_case accept_cases[] = {
	{ "y_array_empty", L("[]") },
	{ "y_object_empty", L("{}") },
	{ "y_array_null", L("[null]") },
	{ "y_array_bools", L("[true,false]") },
	{ "y_number_zero", L("0") },
	{ "y_number_minus_zero", L("-0") },
	{ "y_string_top_level", L("\"x\"") },
	{ "y_number_top_level", L("123") },
	{ "y_literal_top_level", L("null") },
	{ "y_structure_whitespace_around", L(" \t\r\n[ 1 ]\n\r\t ") },
	{ "y_number_exponents", L("[1e5,1E+5,1e-5,-1.5e+10,0.0,123.456e-7,0e0,0E-0]") },
	{ "y_number_2_53", L("[-9007199254740992]") },
	{ "y_number_huge_int", L("[123456789012345678901234567890]") },
	{ "y_number_max_double", L("[1.7976931348623157e308]") },
	{ "y_number_denormal", L("[4.9e-324]") },
	{ "y_number_underflow_to_zero", L("[1e-400]") },
	{ "y_string_escapes", L("[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"]") },
	{ "y_string_u_escape", L("[\"\\u0041\\u00e9\\u20AC\"]") },
	{ "y_string_surrogate_pair", L("[\"\\ud83d\\ude00\"]") },
	{ "y_string_last_code_point", L("[\"\\uDBFF\\uDFFF\"]") },
	{ "y_string_line_separators", L("[\"\\u2028\\u2029\"]") },
	{ "y_string_raw_utf8", L("[\"\xc3\xa9\xe6\x97\xa5\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf\"]") },
	{ "y_string_raw_del", L("[\"\x7f\"]") },
	{ "y_string_empty", L("[\"\"]") },
	{ "y_object_empty_key", L("{\"\":0}") },
	{ "y_object_nested", L("{\"a\":{\"b\":[1,{\"c\":null}]},\"d\":[],\"e\":{}}") },
	{ "y_object_same_value_other_keys", L("{\"a\":1,\"b\":1,\"A\":1}") },
	{ "y_object_keys_differ_by_escape", L("{\"a\\u00e9\":1,\"a\":2}") },
};

struct reject_case {
	const char *name;
	const char *doc;
	size_t len;
	long off; /* the byte the error must name */
};

/* n_: documents a strict parser must refuse, and where. */
static const struct reject_case reject_cases[] = {
	{ "n_empty", L(""), 0 },
	{ "n_only_whitespace", L("   "), 3 },
	{ "n_trailing_data", L("[1] x"), 4 },
	{ "n_trailing_bracket", L("[1]]"), 3 },
	{ "n_two_values", L("[1]  [2]"), 5 },
	{ "n_trailing_nul", L("[1]\0"), 3 },
	{ "n_leading_zero", L("01"), 0 },
	{ "n_leading_zero_in_array", L("[01]"), 1 },
	{ "n_leading_zero_negative", L("-01"), 1 },
	{ "n_plus", L("+1"), 0 },
	{ "n_leading_dot", L(".5"), 0 },
	{ "n_leading_dot_in_array", L("[.1]"), 1 },
	{ "n_trailing_dot", L("1."), 2 },
	{ "n_dot_exponent", L("[1.e1]"), 3 },
	{ "n_exponent_empty", L("1e"), 2 },
	{ "n_exponent_sign_only", L("1e+"), 3 },
	{ "n_exponent_minus_only", L("[1e-]"), 4 },
	{ "n_exponent_empty_zero", L("[0e]"), 3 },
	{ "n_exponent_fraction", L("[1e1.5]"), 4 },
	{ "n_minus_alone", L("-"), 1 },
	{ "n_minus_in_array", L("[-]"), 2 },
	{ "n_minus_space", L("[- 1]"), 2 },
	{ "n_hex_number", L("[0x10]"), 2 },
	{ "n_two_dots", L("[1.5.3]"), 4 },
	{ "n_nan", L("NaN"), 0 },
	{ "n_infinity", L("[Infinity]"), 1 },
	{ "n_minus_infinity", L("[-Infinity]"), 2 },
	{ "n_overflow", L("1e999"), 0 },
	{ "n_overflow_negative", L("[-1e999]"), 1 },
	/* 1 followed by 310 zeros: no exponent, still beyond DBL_MAX. */
	{ "n_overflow_long_int",
	  L("[1"
	    "0000000000000000000000000000000000000000000000000000000000000000000000"
	    "0000000000000000000000000000000000000000000000000000000000000000000000"
	    "0000000000000000000000000000000000000000000000000000000000000000000000"
	    "0000000000000000000000000000000000000000000000000000000000000000000000"
	    "000000000000000000000000000000]"), 1 },
	{ "n_comment_line", L("[1] // c"), 4 },
	{ "n_comment_block", L("/* c */ [1]"), 0 },
	{ "n_single_quote_string", L("['a']"), 1 },
	{ "n_single_quote_key", L("{'a':1}"), 1 },
	{ "n_unquoted_key", L("{a:1}"), 1 },
	{ "n_control_char_in_string", L("[\"a\x01\"]"), 3 },
	{ "n_tab_in_string", L("[\"tab\there\"]"), 5 },
	{ "n_nul_in_string", L("[\"a\0b\"]"), 3 },
	{ "n_escape_x", L("[\"\\x41\"]"), 2 },
	{ "n_escape_a", L("[\"\\a\"]"), 2 },
	{ "n_escape_at_end", L("[\"\\"), 3 },
	{ "n_u_escape_short", L("[\"\\u12\"]"), 2 },
	{ "n_u_escape_not_hex", L("[\"\\uZZZZ\"]"), 2 },
	{ "n_u_escape_nul", L("[\"\\u0000\"]"), 2 },
	{ "n_lone_high_surrogate", L("[\"\\ud800\"]"), 2 },
	{ "n_lone_low_surrogate", L("[\"\\udc00\"]"), 2 },
	{ "n_surrogates_misordered", L("[\"\\udc00\\ud800\"]"), 2 },
	{ "n_high_then_bmp", L("[\"\\ud800\\u0041\"]"), 2 },
	{ "n_high_then_high", L("[\"\\uD800\\uD800\"]"), 2 },
	{ "n_high_then_text", L("[\"\\ud800x\"]"), 2 },
	{ "n_high_then_short_escape", L("[\"\\ud800\\u\"]"), 2 },
	{ "n_high_then_bad_hex", L("[\"\\ud800\\uDCxx\"]"), 8 },
	{ "n_utf8_overlong_2", L("[\"\xc0\xaf\"]"), 2 },
	{ "n_utf8_overlong_2b", L("[\"\xc1\xbf\"]"), 2 },
	{ "n_utf8_overlong_3", L("[\"\xe0\x80\xaf\"]"), 2 },
	{ "n_utf8_overlong_4", L("[\"\xf0\x80\x80\xaf\"]"), 2 },
	{ "n_utf8_surrogate", L("[\"\xed\xa0\x80\"]"), 2 },
	{ "n_utf8_above_10ffff", L("[\"\xf4\x90\x80\x80\"]"), 2 },
	{ "n_utf8_five_bytes", L("[\"\xf8\x88\x80\x80\x80\"]"), 2 },
	{ "n_utf8_truncated", L("[\"\xe6\x97\"]"), 2 },
	{ "n_utf8_ff", L("[\"\xff\"]"), 2 },
	{ "n_utf8_lone_continuation", L("[\"\x80\"]"), 2 },
	{ "n_utf8_in_key", L("{\"\xc3\":1}"), 2 },
	{ "n_duplicate_key", L("{\"a\":1,\"a\":2}"), 7 },
	{ "n_duplicate_key_by_escape", L("{\"a\":1,\"\\u0061\":2}"), 7 },
	{ "n_array_trailing_comma", L("[1,]"), 3 },
	{ "n_object_trailing_comma", L("{\"a\":1,}"), 7 },
	{ "n_array_leading_comma", L("[,1]"), 1 },
	{ "n_array_double_comma", L("[1,,2]"), 3 },
	{ "n_array_missing_comma", L("[1 2]"), 3 },
	{ "n_object_missing_comma", L("{\"a\":1 \"b\":2}"), 7 },
	{ "n_object_key_only", L("{\"a\"}"), 4 },
	{ "n_object_missing_colon", L("{\"a\" 1}"), 5 },
	{ "n_object_double_colon", L("{\"a\"::1}"), 5 },
	{ "n_object_number_key", L("{1:1}"), 1 },
	{ "n_literal_truncated", L("[tru]"), 1 },
	{ "n_literal_capital", L("[True]"), 1 },
	{ "n_literal_null_short", L("[nul]"), 1 },
	{ "n_literal_too_long", L("nulll"), 4 },
	{ "n_string_unterminated", L("[\"unterminated"), 14 },
	{ "n_array_unclosed", L("["), 1 },
	{ "n_array_unclosed_value", L("[1,"), 3 },
	{ "n_object_unclosed", L("{"), 1 },
	{ "n_object_unclosed_value", L("{\"a\":1"), 6 },
	{ "n_utf8_bom", L("\xef\xbb\xbf[]"), 0 },
	{ "n_form_feed_whitespace", L("[\f1]"), 1 },
	{ "n_nbsp_whitespace", L("[\xc2\xa0 1]"), 1 },
	{ "n_close_only", L("]"), 0 },
};

static void test_cases(void)
{
	struct jval *v;
	size_t i;
	int ret;

	for (i = 0; i < sizeof(accept_cases) / sizeof(accept_cases[0]); i++) {
		const struct accept_case *c = &accept_cases[i];

		v = NULL;
		ret = parse(c->doc, c->len, NULL, &v);
		ok(ret == 0 && v, "%s accepted", c->name);
		if (ret)
			printf("#   %s\n", err);
		jval__free(v);
	}
	for (i = 0; i < sizeof(reject_cases) / sizeof(reject_cases[0]); i++) {
		const struct reject_case *c = &reject_cases[i];
		long off;

		v = (struct jval *)&v; /* must be reset to NULL */
		ret = parse(c->doc, c->len, NULL, &v);
		off = err_offset(err);
		ok(ret == -EINVAL && !v && off == c->off, "%s refused at byte %ld", c->name,
		   c->off);
		if (ret != -EINVAL || off != c->off)
			printf("#   ret %d, err '%s'\n", ret, err);
	}
}

static void test_values(void)
{
	const char *doc = "{\"n\":-12.5e1,\"i\":42,\"z\":-0,\"t\":true,\"f\":false,"
			  "\"nul\":null,\"s\":\"a\\u00e9\\ud83d\\ude00\\n\","
			  "\"a\":[1,\"two\",[]],\"o\":{\"k\":\"v\"},"
			  "\"big\":123456789012345678,\"small\":4.9e-324,\"tiny\":1e-400}";
	const struct jval *m;
	struct jval *v = NULL;
	double d = 0;

	is_int(parse(doc, strlen(doc), NULL, &v), 0, "a document with every type parses");
	if (!v)
		return;
	is_int(v->type, J_OBJECT, "root is an object");
	is_int(v->len, 12, "with 12 members");
	is_str(v->keys[0], "n", "keys keep document order");
	ok(jval__num(v, "n", &d) == 0 && d == -125.0, "-12.5e1 is -125");
	ok(jval__num(v, "i", &d) == 0 && d == 42.0, "integer");
	ok(jval__num(v, "z", &d) == 0 && d == 0 && signbit(d), "-0 keeps its sign");
	ok(jval__num(v, "big", &d) == 0 && d == 123456789012345678.0, "18 digits via strtod");
	ok(jval__num(v, "small", &d) == 0 && d > 0 && d < DBL_MIN, "denormal kept");
	ok(jval__num(v, "tiny", &d) == 0 && d == 0, "underflow reads as 0");
	m = jval__get(v, "t");
	ok(m && m->type == J_BOOL && m->boolean == 1, "true");
	m = jval__get(v, "f");
	ok(m && m->type == J_BOOL && m->boolean == 0, "false");
	m = jval__get(v, "nul");
	ok(m && m->type == J_NULL, "null");
	is_str(jval__str(v, "s"), "a\xc3\xa9\xf0\x9f\x98\x80\n",
	       "escapes and a surrogate pair decode");
	m = jval__get(v, "s");
	ok(m && m->len == 8, "string length in bytes (%zu)", m ? m->len : 0);
	m = jval__get(v, "a");
	ok(m && m->type == J_ARRAY && m->len == 3 && m->items[0].number == 1 &&
	   m->items[1].type == J_STRING && !strcmp(m->items[1].str, "two") &&
	   m->items[2].type == J_ARRAY && m->items[2].len == 0 && !m->items[2].items,
	   "array members");
	is_str(jval__str(jval__get(v, "o"), "k"), "v", "nested object");
	ok(!jval__get(v, "missing"), "absent key is NULL");
	ok(!jval__str(v, "i"), "jval__str of a number is NULL");
	is_int(jval__num(v, "s", &d), -ENOENT, "jval__num of a string is -ENOENT");
	is_int(jval__num(v, "missing", &d), -ENOENT, "jval__num of an absent key is -ENOENT");
	ok(!jval__get(jval__get(v, "a"), "k"), "jval__get on an array is NULL");
	ok(!jval__get(NULL, "k") && !jval__str(NULL, "k"), "NULL object is handled");
	jval__free(v);
	jval__free(NULL);
}

static void test_limits(void)
{
	struct json_read_limits lim = json_read_default_limits;
	struct jval *v = NULL;
	int ret;

	is_int(json_read_default_limits.max_bytes, 64 << 20, "default max_bytes 64 MiB");
	is_int(json_read_default_limits.max_depth, 64, "default max_depth 64");
	is_int(json_read_default_limits.max_items, 2000000, "default max_items 2,000,000");
	is_int(json_read_default_limits.max_string, 16 << 20, "default max_string 16 MiB");

	lim.max_bytes = 4;
	is_int(parse(L("[12]"), &lim, &v), 0, "document of max_bytes is fine");
	jval__free(v);
	ret = parse(L("[1,2]"), &lim, &v);
	ok(ret == -EINVAL && strstr(err, "max_bytes") && err_offset(err) == 4,
	   "one byte more is refused, naming max_bytes: %s", err);

	lim = json_read_default_limits;
	lim.max_items = 3;
	is_int(parse(L("[1,2]"), &lim, &v), 0, "3 values with max_items 3");
	jval__free(v);
	ret = parse(L("[1,2,3]"), &lim, &v);
	ok(ret == -EINVAL && strstr(err, "max_items") && err_offset(err) == 5,
	   "4 values refused, naming max_items: %s", err);
	ret = parse(L("{\"a\":{\"b\":[1]}}"), &lim, &v);
	ok(ret == -EINVAL && strstr(err, "max_items"), "containers count as values");

	lim = json_read_default_limits;
	lim.max_string = 3;
	is_int(parse(L("[\"abc\"]"), &lim, &v), 0, "string of max_string bytes");
	jval__free(v);
	ret = parse(L("[\"abcd\"]"), &lim, &v);
	ok(ret == -EINVAL && strstr(err, "max_string") && err_offset(err) == 5,
	   "one byte more refused, naming max_string: %s", err);
	is_int(parse(L("[\"\\u00e9a\"]"), &lim, &v), 0, "the limit counts decoded bytes");
	jval__free(v);
	ret = parse(L("[\"\\u00e9\\u00e9\"]"), &lim, &v);
	ok(ret == -EINVAL && strstr(err, "max_string"), "escapes decoding to 4 bytes refused");
	ret = parse(L("{\"abcd\":1}"), &lim, &v);
	ok(ret == -EINVAL && strstr(err, "max_string"), "keys are strings too");

	lim = json_read_default_limits;
	lim.max_depth = 0;
	is_int(parse(L("1"), &lim, &v), 0, "max_depth 0 still reads a scalar");
	jval__free(v);
	ret = parse(L("[]"), &lim, &v);
	ok(ret == -EINVAL && strstr(err, "max_depth"), "but no container");

	ret = json_read(L("[1]"), NULL, NULL, err, sizeof(err));
	is_int(ret, -EINVAL, "no result pointer is an error, not a crash");
	ret = json_read(L("[1,"), NULL, &v, NULL, 0);
	is_int(ret, -EINVAL, "no error buffer is fine");
	ret = json_read(L("[1,"), NULL, &v, err, 6);
	ok(ret == -EINVAL && strlen(err) == 5, "a short error buffer is truncated: '%s'", err);
}

static char *nested(const char *open, const char *leaf, const char *close, size_t depth,
		    size_t *len)
{
	size_t lo = strlen(open), ll = strlen(leaf), lc = strlen(close), i;
	char *doc = malloc(depth * (lo + lc) + ll + 1), *p = doc;

	if (!doc)
		return NULL;
	for (i = 0; i < depth; i++, p += lo)
		memcpy(p, open, lo);
	memcpy(p, leaf, ll);
	p += ll;
	for (i = 0; i < depth; i++, p += lc)
		memcpy(p, close, lc);
	*p = '\0';
	*len = p - doc;
	return doc;
}

static void test_depth(void)
{
	struct json_read_limits lim = json_read_default_limits;
	struct jval *v = NULL;
	const struct jval *w;
	size_t len, d;
	char *doc;
	int ret;

	doc = nested("[", "1", "]", 64, &len);
	is_int(parse(doc, len, NULL, &v), 0, "64 nested arrays parse");
	for (w = v, d = 0; w && w->type == J_ARRAY; w = w->len ? &w->items[0] : NULL)
		d++;
	is_int(d, 64, "and are 64 deep");
	jval__free(v);
	free(doc);

	doc = nested("[", "1", "]", 65, &len);
	ret = parse(doc, len, NULL, &v);
	ok(ret == -EINVAL && strstr(err, "max_depth") && err_offset(err) == 64,
	   "65 nested arrays refused at byte 64: %s", err);
	free(doc);

	doc = nested("{\"a\":", "null", "}", 64, &len);
	is_int(parse(doc, len, NULL, &v), 0, "64 nested objects parse");
	jval__free(v);
	free(doc);
	doc = nested("{\"a\":", "null", "}", 65, &len);
	ret = parse(doc, len, NULL, &v);
	ok(ret == -EINVAL && strstr(err, "max_depth"), "65 nested objects refused");
	free(doc);

	/* A caller asking for more than the stack allows still gets a bounded recursion. */
	lim.max_depth = SIZE_MAX;
	doc = nested("[", "", "]", 200000, &len);
	ret = parse(doc, len, &lim, &v);
	ok(ret == -EINVAL && strstr(err, "max_depth"), "200,000 levels refused without a crash");
	free(doc);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void test_big(void)
{
	const size_t n = 1000000;
	size_t len, i, pos = 0;
	struct jval *v = NULL;
	double t;
	char *doc;
	int ret, good;

	doc = malloc(n * 8 + 2);
	if (!doc)
		return;
	doc[pos++] = '[';
	for (i = 0; i < n; i++)
		pos += sprintf(doc + pos, "%s%zu", i ? "," : "", i % 1000);
	doc[pos++] = ']';
	len = pos;
	t = now();
	ret = parse(doc, len, NULL, &v);
	t = now() - t;
	is_int(ret, 0, "a 1,000,000-element array parses");
	ok(t < 2.0, "in %.3f s (< 2 s)", t);
	ok(v && v->len == n && v->items[n - 1].number == (n - 1) % 1000,
	   "with every element (%zu)", v ? v->len : 0);
	jval__free(v);
	free(doc);

	/* Duplicate detection on a large object is sorted, not quadratic. */
	doc = malloc(n / 10 * 20 + 64);
	if (!doc)
		return;
	pos = 0;
	doc[pos++] = '{';
	for (i = 0; i < n / 10; i++)
		pos += sprintf(doc + pos, "%s\"k%zu\":%zu", i ? "," : "", i, i);
	doc[pos++] = '}';
	t = now();
	ret = parse(doc, pos, NULL, &v);
	t = now() - t;
	ok(ret == 0 && v && v->len == n / 10, "an object with 100,000 keys parses in %.3f s", t);
	good = v && !strcmp(v->keys[n / 10 - 1], "k99999");
	ok(good && jval__get(v, "k99999") == &v->items[n / 10 - 1], "last key found");
	jval__free(v);
	/* Its last key repeated: the error names the repeat. */
	len = pos - 1;
	len += sprintf(doc + len, ",\"k5\":0}");
	ret = parse(doc, len, NULL, &v);
	ok(ret == -EINVAL && strstr(err, "duplicate key \"k5\"") &&
	   err_offset(err) == (long)(pos),
	   "a duplicate in a large object is found at its own byte: %s", err);
	free(doc);
}

static void test_duplicates_sorted(void)
{
	char doc[2048];
	struct jval *v = NULL;
	size_t pos = 0, i, off34 = 0;
	int ret;

	/*
	 * 40 keys: k5 repeats at index 34, k1 at 36, k5 again at 39. The first
	 * duplicate in document order is index 34, whatever the sort visits first.
	 */
	pos += sprintf(doc + pos, "{");
	for (i = 0; i < 40; i++) {
		const char *k = i == 34 || i == 39 ? "k5" : i == 36 ? "k1" : NULL;

		if (i)
			doc[pos++] = ',';
		if (i == 34)
			off34 = pos;
		if (k)
			pos += sprintf(doc + pos, "\"%s\":%zu", k, i);
		else
			pos += sprintf(doc + pos, "\"k%zu\":%zu", i, i);
	}
	pos += sprintf(doc + pos, "}");
	ret = parse(doc, pos, NULL, &v);
	ok(ret == -EINVAL && err_offset(err) == (long)off34 && strstr(err, "\"k5\""),
	   "first duplicate of a large object in document order: %s", err);
	ret = parse(L("{\"a\\n\":1,\"a\\n\":2}"), NULL, &v);
	ok(ret == -EINVAL && !strchr(err, '\n'), "a key shown in a message stays on one line");
}

static const char *sha_of(size_t i, char *buf)
{
	static const char hex[] = "0123456789abcdef";
	size_t k;

	for (k = 0; k < 64; k++)
		buf[k] = hex[(i * 31 + k * 7) & 15];
	buf[64] = '\0';
	return buf;
}

/* A bundle manifest as the collector writes it, through core/util/json.c. */
static char *write_manifest(int pretty, size_t nfiles, size_t *len)
{
	struct json j = { .pretty = pretty };
	char path[64], sha[65];
	size_t i;

	json__begin_object(&j);
	json__key(&j, "format");
	json__string(&j, "sonde-bundle");
	json__key(&j, "version");
	json__int(&j, 1);
	json__key(&j, "host");
	json__string(&j, "db-01 \"prod\" <eu>");
	json__key(&j, "window_s");
	json__number(&j, 10.5);
	json__key(&j, "files");
	json__begin_array(&j);
	for (i = 0; i < nfiles; i++) {
		snprintf(path, sizeof(path), "proc/%zu/stat", i);
		json__begin_object(&j);
		json__key(&j, "path");
		json__string(&j, path);
		json__key(&j, "size");
		json__int(&j, (int64_t)i * 4099);
		json__key(&j, "sha256");
		json__string(&j, sha_of(i, sha));
		json__end_object(&j);
	}
	json__end_array(&j);
	json__key(&j, "complete");
	json__bool(&j, 1);
	json__end_object(&j);
	*len = j.out.len;
	return j.out.buf;
}

static void test_manifest(void)
{
	const size_t nfiles = 200;
	char path[64], sha[65];
	struct jval *v = NULL;
	const struct jval *files, *f;
	int pretty, good;
	size_t len, i;
	double d;
	char *doc;

	for (pretty = 0; pretty < 2; pretty++) {
		doc = write_manifest(pretty, nfiles, &len);
		is_int(parse(doc, len, NULL, &v), 0, "%s manifest from core/util/json.c reads back",
		       pretty ? "pretty" : "compact");
		is_str(jval__str(v, "format"), "sonde-bundle", "format");
		is_str(jval__str(v, "host"), "db-01 \"prod\" <eu>", "escaped host");
		ok(!jval__num(v, "window_s", &d) && d == 10.5, "window");
		files = jval__get(v, "files");
		ok(files && files->type == J_ARRAY && files->len == nfiles, "%zu files", nfiles);
		good = files && files->len == nfiles;
		for (i = 0; good && i < nfiles; i++) {
			f = &files->items[i];
			snprintf(path, sizeof(path), "proc/%zu/stat", i);
			good = jval__str(f, "path") && !strcmp(jval__str(f, "path"), path) &&
			       !jval__num(f, "size", &d) && d == (double)i * 4099 &&
			       jval__str(f, "sha256") &&
			       !strcmp(jval__str(f, "sha256"), sha_of(i, sha));
		}
		ok(good, "every path, size and sha256 round-trips");
		jval__free(v);
		v = NULL;
		free(doc);
	}
}

/* Every proper prefix of an object is invalid; none may read out of bounds. */
static void test_truncations(void)
{
	static const char tricky[] = "{\"s\":\"a\\n\\ud83d\\ude00\xc3\xa9\xf0\x9f\x98\x80\\u00e9\","
				     "\"n\":[-1.5e+10,0,true,false,null,{}]}";
	size_t len, cut, bad = 0, badoff = 0;
	char *doc, *part;
	struct jval *v;
	int ret;

	doc = write_manifest(1, 3, &len);
	for (cut = 0; cut < len; cut++) {
		/* Exactly cut bytes on the heap, so ASan sees any over-read. */
		part = malloc(cut ? cut : 1);
		memcpy(part, doc, cut);
		v = NULL;
		ret = parse(part, cut, NULL, &v);
		if (ret != -EINVAL || v || err_offset(err) < 0 || err_offset(err) > (long)cut)
			bad++;
		if (ret == 0)
			jval__free(v);
		free(part);
	}
	ok(bad == 0, "all %zu truncations refused with an offset (%zu bad)", len, bad);
	v = NULL;
	is_int(parse(doc, len, NULL, &v), 0, "the whole document parses");
	jval__free(v);
	free(doc);

	/* Cuts inside every kind of token: escapes, surrogate pairs, UTF-8, numbers. */
	len = sizeof(tricky) - 1;
	for (cut = 0; cut < len; cut++) {
		part = malloc(cut ? cut : 1);
		memcpy(part, tricky, cut);
		v = NULL;
		ret = parse(part, cut, NULL, &v);
		if (ret != -EINVAL || err_offset(err) < 0) {
			bad++;
			badoff = cut;
		}
		if (ret == 0)
			jval__free(v);
		free(part);
	}
	ok(bad == 0, "every cut of a document with escapes and UTF-8 refused (bad at %zu)",
	   badoff);
}

static uint64_t rng_state = 0x5eedf00dcafe1234ULL;

static uint64_t rng(void)
{
	/* xorshift64: the same sequence on every libc. */
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void test_byte_flips(void)
{
	static const char base[] =
		"{\"format\":\"sonde-bundle\",\"version\":1,\"files\":[{\"path\":\"proc/stat\","
		"\"size\":1234,\"sha256\":\"0123456789abcdef\"},{\"path\":\"a\\u00e9\\ud83d\\ude00"
		"\xc3\xa9\",\"size\":-1.5e-3,\"ok\":[true,false,null]}],\"n\":{\"\":{}}}";
	const size_t len = sizeof(base) - 1;
	size_t iter, k, flips, accepted = 0, refused = 0, bad = 0;
	struct jval *v;
	char *doc;
	int ret;

	for (iter = 0; iter < 5000; iter++) {
		doc = malloc(len);
		memcpy(doc, base, len);
		flips = 1 + rng() % 3;
		for (k = 0; k < flips; k++)
			doc[rng() % len] = (char)(rng() & 0xff);
		v = NULL;
		ret = parse(doc, len, NULL, &v);
		if (ret == 0 && v) {
			accepted++;
			jval__free(v);
		} else if (ret == -EINVAL && !v && err_offset(err) >= 0 &&
			   err_offset(err) <= (long)len) {
			refused++;
		} else {
			bad++;
		}
		free(doc);
	}
	ok(bad == 0 && accepted + refused == 5000,
	   "5000 random byte flips: %zu accepted, %zu refused, %zu bad", accepted, refused, bad);
}

static int utf8_valid(const char *s, size_t n)
{
	size_t i = 0, k;

	while (i < n) {
		k = utf8__seq_len((const unsigned char *)s + i, n - i);
		if (!k)
			return 0;
		i += k;
	}
	return 1;
}

#define FFFD "\xef\xbf\xbd"

/* Strings through core/util/json.c's escaping come back byte for byte. */
static void test_writer_strings(void)
{
	char every[128];
	const char *bad = "a\xff" "b\xc0\x80" "c\xed\xa0\x80" "d\xf4\x90\x80\x80" "e\xe2\x82";
	const char *repaired = "a" FFFD "b" FFFD FFFD "c" FFFD FFFD FFFD "d" FFFD FFFD FFFD FFFD
			       "e" FFFD FFFD;
	const struct jval *s;
	struct json j = { 0 };
	struct jval *v = NULL;
	size_t n = 0;
	int c, ret;

	for (c = 1; c < 0x20; c++)
		every[n++] = c;
	memcpy(every + n, "\"\\/<>&'\x7f", 8);
	n += 8;
	memcpy(every + n, "\xe2\x80\xa8\xe2\x80\xa9\xc3\xa9\xe6\x97\xa5\xf0\x9f\x98\x80", 15);
	n += 15;
	every[n] = '\0';

	json__begin_object(&j);
	json__key(&j, every);
	json__string(&j, every);
	json__key(&j, "bad");
	json__string(&j, bad);
	json__key(&j, bad);
	json__int(&j, 1);
	json__end_object(&j);
	ret = parse(j.out.buf, j.out.len, NULL, &v);
	is_int(ret, 0, "writer output with every escape parses");
	if (ret)
		printf("#   %s\n", err);
	s = jval__get(v, every);
	ok(s && s->type == J_STRING && s->len == n && !memcmp(s->str, every, n),
	   "every control character, quote, backslash, <>&, U+2028/9 and UTF-8 round-trip");
	ok(v && v->len == 3 && !strcmp(v->keys[0], every), "as a key too");
	s = jval__get(v, "bad");
	ok(s && utf8_valid(s->str, s->len), "invalid UTF-8 comes back as valid UTF-8");
	is_str(s ? s->str : NULL, repaired, "with one U+FFFD per bad byte");
	ok(jval__get(v, repaired) != NULL, "a repaired key is found by its repaired name");
	jval__free(v);
	strbuf__free(&j.out);

	/* The writer escapes NUL as \u0000; C strings cannot hold it, so it is refused. */
	memset(&j, 0, sizeof(j));
	json__string_n(&j, "a\0b", 3);
	ret = parse(j.out.buf, j.out.len, NULL, &v);
	ok(ret == -EINVAL && strstr(err, "\\u0000"), "an embedded NUL is refused: %s", err);
	strbuf__free(&j.out);
}

static void test_writer_numbers(void)
{
	static const double vals[] = {
		0, 1, -1, 0.1, 1.0 / 3, 2.5, -2.5e-7, 1e21, 1e300, -1e-300, 4.9e-324,
		2.2250738585072014e-308, DBL_MAX, -DBL_MAX, 123456789012345678.0,
		9007199254740993.0, 3.141592653589793, 1e15 + 0.3,
	};
	const size_t nv = sizeof(vals) / sizeof(vals[0]);
	struct json j = { 0 };
	struct jval *v = NULL;
	size_t i, same = 0;

	json__begin_array(&j);
	for (i = 0; i < nv; i++)
		json__number(&j, vals[i]);
	json__number(&j, NAN);
	json__number(&j, INFINITY);
	json__end_array(&j);
	is_int(parse(j.out.buf, j.out.len, NULL, &v), 0, "writer numbers parse: %s", j.out.buf);
	for (i = 0; v && i < nv && i < v->len; i++)
		same += v->items[i].type == J_NUMBER && v->items[i].number == vals[i];
	ok(same == nv, "every double reads back exactly (%zu/%zu)", same, nv);
	ok(v && v->len == nv + 2 && v->items[nv].type == J_NULL && v->items[nv + 1].type == J_NULL,
	   "non-finite numbers were written as null");
	jval__free(v);
	strbuf__free(&j.out);
}

/*
 * Fail each allocation of a parse in turn: the result is -ENOMEM with a
 * message, or success where the failure was harmless (giving back spare
 * room); never a crash, and ASan's leak check at exit covers the cleanup.
 */
static void test_alloc_failures(void)
{
	static const char doc[] =
		"{\"files\":[{\"path\":\"a\",\"size\":1,\"sha256\":\"ff\"},"
		"{\"path\":\"b\\u00e9\",\"size\":1.5e300,"
		"\"n\":1234567890123456789012345678901234567890123456789012345678901234567890},"
		"[[[\"deep\"]]]],"
		"\"k0\":0,\"k1\":1,\"k2\":2,\"k3\":3,\"k4\":4,\"k5\":5,\"k6\":6,\"k7\":7,"
		"\"k8\":8,\"k9\":9,\"k10\":0,\"k11\":1,\"k12\":2,\"k13\":3,\"k14\":4,"
		"\"k15\":5,\"k16\":6,\"k17\":7,\"k18\":8,\"k19\":9,\"k20\":0,\"k21\":1,"
		"\"k22\":2,\"k23\":3,\"k24\":4,\"k25\":5,\"k26\":6,\"k27\":7,\"k28\":8,"
		"\"k29\":9,\"k30\":0,\"k31\":1,\"k32\":2,\"k33\":3}";
	size_t enomem = 0, fine = 0, bad = 0;
	struct jval *v = NULL;
	long k, total;
	int ret;

	/* Warm up once-only state (the C locale for strtod) outside the count. */
	ret = parse(L("[1.5]"), NULL, &v);
	jval__free(v);

	alloc_calls = 0;
	fail_at = LONG_MAX;
	ret = parse(doc, sizeof(doc) - 1, NULL, &v);
	total = alloc_calls;
	fail_at = -1;
	is_int(ret, 0, "the document parses with %ld allocations", total);
	jval__free(v);

	for (k = 0; k < total; k++) {
		alloc_calls = 0;
		fail_at = k;
		v = NULL;
		ret = parse(doc, sizeof(doc) - 1, NULL, &v);
		fail_at = -1;
		if (ret == -ENOMEM && !v && strstr(err, "out of memory") && err_offset(err) >= 0)
			enomem++;
		else if (ret == 0 && v)
			fine++;
		else
			bad++;
		jval__free(v);
	}
	ok(bad == 0 && enomem > 0,
	   "each of %ld allocations failing: %zu -ENOMEM, %zu harmless, %zu bad", total, enomem,
	   fine, bad);
}

int main(void)
{
	test_cases();
	test_values();
	test_limits();
	test_depth();
	test_big();
	test_duplicates_sorted();
	test_manifest();
	test_truncations();
	test_byte_flips();
	test_writer_strings();
	test_writer_numbers();
	test_alloc_failures();
	return tap_done();
}
