// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * core/util/json.c: buffer growth, structure and commas, pretty printing, every
 * escape, strict UTF-8 repair, number formatting. Where jq is installed, the
 * output is also checked by a real JSON parser.
 */
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/json.h"
#include "tap.h"

#define FFFD "\xef\xbf\xbd"

static int have_jq;

/*
 * Run jq with args over json; its stdout (first out_sz - 1 bytes) goes to
 * out. Returns jq's exit status, or -1 if it could not be run.
 */
static int jq(const char *json, size_t len, const char *args, char *out, size_t out_sz)
{
	char path[] = "/tmp/sonde-test-json-XXXXXX", cmd[512];
	size_t got = 0, r;
	FILE *f;
	int fd, status;

	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	if (write(fd, json, len) != (ssize_t)len) {
		close(fd);
		unlink(path);
		return -1;
	}
	close(fd);
	snprintf(cmd, sizeof(cmd), "jq %s < %s 2>/dev/null", args, path);
	f = popen(cmd, "r");
	if (!f) {
		unlink(path);
		return -1;
	}
	while (got + 1 < out_sz && (r = fread(out + got, 1, out_sz - 1 - got, f)) > 0)
		got += r;
	out[got] = '\0';
	status = pclose(f);
	unlink(path);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static struct json esc_j;

/* Escaped form of s (a JSON string value without its quotes); valid until the next call. */
static char *escape(const char *s, size_t n)
{
	strbuf__free(&esc_j.out);
	memset(&esc_j, 0, sizeof(esc_j));
	json__string_n(&esc_j, s, n);
	if (esc_j.out.len < 2)
		return "";
	esc_j.out.buf[esc_j.out.len - 1] = '\0'; /* the closing quote */
	return esc_j.out.buf + 1;
}

#define ESC(lit) escape(lit, sizeof(lit) - 1)

static void test_strbuf(void)
{
	struct strbuf sb = { 0 };
	char big[1000];
	int i;

	strbuf__append(&sb, "", 0);
	ok(sb.buf && sb.buf[0] == '\0' && sb.len == 0,
	   "empty append leaves a NUL-terminated buffer");
	strbuf__puts(&sb, "abc");
	strbuf__append(&sb, "defgh", 2);
	is_str(sb.buf, "abcde", "append and puts");
	is_int(sb.len, 5, "length counts bytes written");

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	strbuf__printf(&sb, "[%s]%d", big, 42);
	is_int(sb.len, 5 + 1 + 999 + 1 + 2, "printf longer than the free space grows the buffer");
	ok(!memcmp(sb.buf + sb.len - 4, "x]42", 5), "printf output is complete and terminated");
	ok(sb.cap >= sb.len + 1 && (sb.cap & (sb.cap - 1)) == 0,
	   "capacity grows geometrically (%zu)", sb.cap);

	for (i = 0; i < 10000; i++)
		strbuf__append(&sb, "0123456789", 10);
	is_int(sb.len, 1008 + 100000, "many appends");
	ok(sb.buf[sb.len] == '\0', "still NUL-terminated");

	sb.oom = 1;
	strbuf__puts(&sb, "dropped");
	strbuf__printf(&sb, "%s", "dropped");
	is_int(sb.len, 1008 + 100000, "appends after an allocation failure are dropped");
	ok(sb.buf[sb.len] == '\0', "a failed buffer stays a valid string");

	strbuf__free(&sb);
	ok(!sb.buf && !sb.len && !sb.cap && !sb.oom, "free resets the buffer");

	strbuf__printf(&sb, "%s", "");
	ok(sb.buf && sb.buf[0] == '\0', "empty printf on a fresh buffer allocates a string");
	strbuf__free(&sb);
}

static void test_structure(void)
{
	struct json j = { 0 };
	char out[4096];

	json__begin_object(&j);
	json__key(&j, "a");
	json__int(&j, 1);
	json__key(&j, "b");
	json__begin_array(&j);
	json__int(&j, 1);
	json__string(&j, "two");
	json__begin_object(&j);
	json__key(&j, "c");
	json__null(&j);
	json__end_object(&j);
	json__begin_array(&j);
	json__end_array(&j);
	json__end_array(&j);
	json__key(&j, "d");
	json__begin_object(&j);
	json__end_object(&j);
	json__key(&j, "e");
	json__bool(&j, 1);
	json__key(&j, "f");
	json__bool(&j, 0);
	json__key(&j, "g");
	json__string(&j, NULL);
	json__key(&j, "h\"<");
	json__number(&j, 2.5);
	json__end_object(&j);
	is_str(j.out.buf,
	       "{\"a\":1,\"b\":[1,\"two\",{\"c\":null},[]],\"d\":{},\"e\":true,\"f\":false,"
	       "\"g\":null,\"h\\\"\\u003c\":2.5}",
	       "compact: commas, nesting, empty containers, escaped key");
	is_int(j.depth, 0, "depth back to 0");
	if (have_jq) {
		is_int(jq(j.out.buf, j.out.len, "-e '.b[2].c == null'", out, sizeof(out)), 0,
		       "jq parses it (.b[2].c is null)");
	} else {
		ok(1, "# skip jq not installed");
	}
	strbuf__free(&j.out);

	/* The key-value writers are a key and its value, commas included. */
	memset(&j, 0, sizeof(j));
	json__begin_object(&j);
	json__kv_int(&j, "n", -3);
	json__kv_number(&j, "x", 0.25);
	json__kv_str(&j, "s", NULL);
	json__end_object(&j);
	is_str(j.out.buf, "{\"n\":-3,\"x\":0.25,\"s\":null}", "kv_int, kv_num, kv_str");
	strbuf__free(&j.out);

	/* The same document pretty: must match jq's own 2-space layout. */
	memset(&j, 0, sizeof(j));
	j.pretty = 1;
	json__begin_object(&j);
	json__key(&j, "a");
	json__int(&j, 1);
	json__key(&j, "b");
	json__begin_array(&j);
	json__int(&j, 1);
	json__string(&j, "two");
	json__begin_object(&j);
	json__key(&j, "c");
	json__null(&j);
	json__end_object(&j);
	json__begin_array(&j);
	json__end_array(&j);
	json__end_array(&j);
	json__key(&j, "d");
	json__begin_object(&j);
	json__end_object(&j);
	json__end_object(&j);
	is_str(j.out.buf,
	       "{\n"
	       "  \"a\": 1,\n"
	       "  \"b\": [\n"
	       "    1,\n"
	       "    \"two\",\n"
	       "    {\n"
	       "      \"c\": null\n"
	       "    },\n"
	       "    []\n"
	       "  ],\n"
	       "  \"d\": {}\n"
	       "}",
	       "pretty: 2-space indent, ': ', empty containers inline");
	if (have_jq) {
		jq(j.out.buf, j.out.len, ".", out, sizeof(out));
		strbuf__append(&j.out, "\n", 1);
		is_str(out, j.out.buf, "pretty output is byte-identical to jq .");
	} else {
		ok(1, "# skip jq not installed");
	}
	strbuf__free(&j.out);

	memset(&j, 0, sizeof(j));
	json__begin_array(&j);
	json__end_array(&j);
	is_str(j.out.buf, "[]", "empty top-level array");
	strbuf__free(&j.out);

	memset(&j, 0, sizeof(j));
	j.pretty = 1;
	json__string(&j, "top");
	is_str(j.out.buf, "\"top\"", "top-level scalar has no indent");
	strbuf__free(&j.out);
}

static void nest(int levels)
{
	struct json j = { 0 };
	int i;

	for (i = 0; i < levels; i++)
		json__begin_array(&j);
	for (i = 0; i < levels; i++)
		json__end_array(&j);
	strbuf__free(&j.out);
}

static void test_depth(void)
{
	struct json j = { 0 };
	pid_t pid;
	int i, status;

	for (i = 0; i < 63; i++) {
		json__begin_array(&j);
		json__int(&j, i);
	}
	for (i = 0; i < 63; i++)
		json__end_array(&j);
	ok(j.out.len > 0 && j.depth == 0 && !strncmp(j.out.buf, "[0,[1,[2,", 9) &&
		   !strcmp(j.out.buf + j.out.len - 4, "]]]]"),
	   "63 levels of nesting");
	strbuf__free(&j.out);

#ifdef NDEBUG
	ok(1, "# skip assertions compiled out");
#else
	/* Deeper nesting is a programming error: the writer must not overrun need_comma. */
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		/* Silence the assertion message in the test log. */
		if (!freopen("/dev/null", "w", stderr))
			_exit(2);
		nest(64);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT, "64 levels abort (assert)");
#endif
}

static void test_escapes(void)
{
	is_str(ESC("plain ascii 123"), "plain ascii 123", "plain text unchanged");
	is_str(ESC("\""), "\\\"", "quote");
	is_str(ESC("\\"), "\\\\", "backslash");
	is_str(ESC("/"), "/", "slash is not escaped");
	is_str(ESC("\n"), "\\n", "newline");
	is_str(ESC("\t"), "\\t", "tab");
	is_str(ESC("\r"), "\\r", "carriage return");
	is_str(ESC("\b"), "\\b", "backspace");
	is_str(ESC("\f"), "\\f", "form feed");
	is_str(escape("\0", 1), "\\u0000", "NUL");
	is_str(ESC("\x01\x1f\x0b\x1b"), "\\u0001\\u001f\\u000b\\u001b",
	       "other C0 controls as \\u00XX");
	is_str(ESC("\x7f"), "\x7f", "DEL is legal JSON, kept");
	is_str(ESC("<"), "\\u003c", "<");
	is_str(ESC(">"), "\\u003e", ">");
	is_str(ESC("&"), "\\u0026", "&");
	is_str(ESC("</script><!--"), "\\u003c/script\\u003e\\u003c!--",
	       "cannot close a script element");
	is_str(ESC("a\xe2\x80\xa8"
		   "b\xe2\x80\xa9"
		   "c"),
	       "a\\u2028b\\u2029c", "U+2028 and U+2029");
	is_str(ESC("\xe2\x80\xa7\xe2\x80\xaa"), "\xe2\x80\xa7\xe2\x80\xaa",
	       "U+2027, U+202A untouched");
}

static void test_utf8(void)
{
	/* Valid sequences at the edges of every range pass through unchanged. */
	static const char *const valid[] = {
		"\xc2\x80",	    /* U+0080 */
		"\xc3\xa9",	    /* é */
		"\xdf\xbf",	    /* U+07FF */
		"\xe0\xa0\x80",	    /* U+0800 */
		"\xe2\x82\xac",	    /* € */
		"\xed\x9f\xbf",	    /* U+D7FF, last before the surrogates */
		"\xee\x80\x80",	    /* U+E000, first after */
		"\xef\xbf\xbd",	    /* U+FFFD itself */
		"\xef\xbf\xbf",	    /* U+FFFF */
		"\xf0\x90\x80\x80", /* U+10000 */
		"\xf0\x9f\x98\x80", /* 😀 */
		"\xf4\x8f\xbf\xbf", /* U+10FFFF */
		"Gr\xc3\xbc\xc3\x9f"
		"e \xe6\x97\xa5\xe6\x9c\xac",
	};
	size_t i;
	int all = 1;

	for (i = 0; i < sizeof(valid) / sizeof(valid[0]); i++)
		if (strcmp(escape(valid[i], strlen(valid[i])), valid[i])) {
			printf("# changed: %s\n", valid[i]);
			all = 0;
		}
	ok(all, "valid multi-byte UTF-8 passes through (%zu cases)", i);

	is_str(ESC("\xc0\xaf"), FFFD FFFD, "overlong 2-byte '/' (C0 AF)");
	is_str(ESC("\xc1\xbf"), FFFD FFFD, "overlong 2-byte (C1 BF)");
	is_str(ESC("\xe0\x80\xaf"), FFFD FFFD FFFD, "overlong 3-byte");
	is_str(ESC("\xf0\x80\x80\xaf"), FFFD FFFD FFFD FFFD, "overlong 4-byte");
	is_str(ESC("\xed\xa0\x80"), FFFD FFFD FFFD, "high surrogate U+D800");
	is_str(ESC("\xed\xbf\xbf"), FFFD FFFD FFFD, "low surrogate U+DFFF");
	is_str(ESC("\xf4\x90\x80\x80"), FFFD FFFD FFFD FFFD, "U+110000, above U+10FFFF");
	is_str(ESC("\xf5\x80\x80\x80"), FFFD FFFD FFFD FFFD, "F5 lead byte");
	is_str(ESC("\xe2\x82"), FFFD FFFD, "truncated 3-byte at end of string");
	is_str(ESC("\xe2\x82x"), FFFD FFFD "x", "truncated 3-byte before ASCII");
	is_str(ESC("\xf0\x9f\x98"), FFFD FFFD FFFD, "truncated 4-byte");
	is_str(ESC("\xf8\x88\x80\x80\x80"), FFFD FFFD FFFD FFFD FFFD, "5-byte form");
	is_str(ESC("\xfc\x84\x80\x80\x80\x80"), FFFD FFFD FFFD FFFD FFFD FFFD, "6-byte form");
	is_str(ESC("\x80"), FFFD, "lone continuation byte");
	is_str(ESC("\xfe\xff"), FFFD FFFD, "FE FF");
	is_str(ESC("a\xff\"\xc3\xa9"), "a" FFFD "\\\"\xc3\xa9", "repair resyncs on the next byte");
	is_str(escape("\xc3", 1), FFFD, "lead byte cut by the length argument");
}

static void test_numbers(void)
{
	static const struct {
		double v;
		const char *want;
		const char *what;
	} cases[] = {
		{ 0.0, "0", "zero" },
		{ -0.0, "0", "-0 prints as 0" },
		{ 1.0, "1", "integral double without decimal point" },
		{ -42.0, "-42", "negative integer" },
		{ 0.1, "0.1", "0.1 is short" },
		{ 1.5, "1.5", "1.5" },
		{ -2.25, "-2.25", "-2.25" },
		{ 1.0 / 3.0, "0.3333333333333333", "1/3: 16 digits round-trip" },
		{ 0.1 + 0.2, "0.30000000000000004", "0.1+0.2 needs 17 digits" },
		{ 1e300, "1e+300", "1e300" },
		{ 1e-7, "1e-07", "1e-7" },
		{ 123456.789, "123456.789", "123456.789" },
		{ 9007199254740991.0, "9007199254740991", "2^53-1 as integer" },
		{ 9007199254740992.0, "9007199254740992", "2^53 round-trips" },
		{ -9007199254740992.0, "-9007199254740992", "-2^53 round-trips" },
		{ 1e21, "1e+21", "1e21 uses an exponent" },
		{ 5e-324, "4.94065645841247e-324", "smallest subnormal (15 digits suffice)" },
		{ 1.7976931348623157e308, "1.7976931348623157e+308", "DBL_MAX" },
	};
	struct json j = { 0 };
	char buf[64];
	size_t i;
	int roundtrip = 1;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&j, 0, sizeof(j));
		json__number(&j, cases[i].v);
		is_str(j.out.buf, cases[i].want, "number: %s", cases[i].what);
		strbuf__free(&j.out);
	}

	memset(&j, 0, sizeof(j));
	json__begin_array(&j);
	json__number(&j, NAN);
	json__number(&j, INFINITY);
	json__number(&j, -INFINITY);
	json__end_array(&j);
	is_str(j.out.buf, "[null,null,null]", "NaN and +-Inf are null");
	strbuf__free(&j.out);

	memset(&j, 0, sizeof(j));
	json__begin_array(&j);
	json__int(&j, INT64_MIN);
	json__int(&j, INT64_MAX);
	json__int(&j, 0);
	json__int(&j, -1);
	json__end_array(&j);
	is_str(j.out.buf, "[-9223372036854775808,9223372036854775807,0,-1]",
	       "int64 min, max, 0, -1");
	strbuf__free(&j.out);

	/* Pseudo-random doubles of every magnitude read back exactly. */
	srand(1);
	for (i = 0; i < 20000; i++) {
		uint64_t bits = ((uint64_t)rand() << 40) ^ ((uint64_t)rand() << 20) ^ rand();
		double v;

		memcpy(&v, &bits, sizeof(v));
		if (!isfinite(v))
			continue;
		memset(&j, 0, sizeof(j));
		json__number(&j, v);
		snprintf(buf, sizeof(buf), "%s", j.out.buf);
		if (strtod(buf, NULL) != v || strlen(buf) > 24) {
			printf("# %.17g -> %s\n", v, buf);
			roundtrip = 0;
		}
		strbuf__free(&j.out);
	}
	ok(roundtrip, "20000 random doubles round-trip through the text form");
}

static void test_jq_strings(void)
{
	static const struct {
		const char *in;
		size_t len;
		const char *want; /* what jq -j decodes the string to */
	} cases[] = {
		{ "tab\there \"q\" back\\slash", 24, "tab\there \"q\" back\\slash" },
		{ "<script>&amp;</script>", 22, "<script>&amp;</script>" },
		{ "ctl\x01\x1f\x7f", 6, "ctl\x01\x1f\x7f" },
		{ "nul\0byte", 8, NULL },
		{ "ls\xe2\x80\xa8ps\xe2\x80\xa9", 10, "ls\xe2\x80\xa8ps\xe2\x80\xa9" },
		{ "bad\xc0\xaf\xed\xa0\x80\xe2\x82", 10,
		  "bad" FFFD FFFD FFFD FFFD FFFD FFFD FFFD },
		{ "ok \xf0\x9f\x98\x80 \xc3\xa9", 10, "ok \xf0\x9f\x98\x80 \xc3\xa9" },
	};
	struct json j;
	char out[256];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (!have_jq) {
			ok(1, "# skip jq not installed");
			continue;
		}
		memset(&j, 0, sizeof(j));
		json__begin_object(&j);
		json__key(&j, "s");
		json__string_n(&j, cases[i].in, cases[i].len);
		json__end_object(&j);
		if (cases[i].want) {
			jq(j.out.buf, j.out.len, "-j .s", out, sizeof(out));
			is_str(out, cases[i].want, "jq decodes string %zu to the (repaired) input",
			       i);
		} else {
			is_int(jq(j.out.buf, j.out.len, "-e '.s == \"nul\\u0000byte\"'", out,
				  sizeof(out)),
			       0, "jq sees the embedded NUL as \\u0000");
		}
		strbuf__free(&j.out);
	}
}

/* The key/value writers every renderer uses: null for a missing string and a non-finite number. */
static void test_kv(void)
{
	struct json j = { 0 };
	struct strv sv = { 0 };

	json__begin_object(&j);
	json__kv_str(&j, "s", "x");
	json__kv_str(&j, "empty", "");
	json__kv_str(&j, "none", NULL);
	json__kv_number(&j, "n", 1.5);
	json__kv_number(&j, "i", 3.0);
	json__kv_number(&j, "nan", NAN);
	json__kv_number(&j, "inf", -INFINITY);
	ok(!strv__push(&sv, "a") && !strv__push(&sv, "b"), "two strings for kv_strv");
	json__kv_strv(&j, "v", &sv);
	json__end_object(&j);
	is_str(j.out.buf, "{\"s\":\"x\",\"empty\":\"\",\"none\":null,\"n\":1.5,\"i\":3,"
			  "\"nan\":null,\"inf\":null,\"v\":[\"a\",\"b\"]}",
	       "kv_str keeps \"\" and writes NULL as null; kv_num writes NaN and inf as null");
	strv__free(&sv);
	strbuf__free(&j.out);
}

int main(void)
{
	char out[64];

	have_jq = jq("1", 1, ".", out, sizeof(out)) == 0;
	if (!have_jq)
		printf("# jq not found: parser cross-checks are skipped\n");

	test_strbuf();
	test_structure();
	test_depth();
	test_escapes();
	test_utf8();
	test_numbers();
	test_jq_strings();
	test_kv();
	strbuf__free(&esc_j.out);
	return tap_done();
}
