// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * core/util/tty.c: the terminal sanitizer. Escape sequences in every form a
 * terminal honours (ESC, C1 controls as UTF-8 and as raw bytes, bidi
 * overrides) become '?', printable text of any script stays byte for byte,
 * and a file printed in pieces is judged as if it were printed whole.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/tty.h"
#include "tap.h"

static const char *clean(const char *in, unsigned int flags)
{
	static char buf[256];
	size_t n = strlen(in);

	memcpy(buf, in, n + 1);
	buf[tty__clean(buf, n, flags)] = '\0';
	return buf;
}

/* What tty__write gives for in, cut into pieces of `piece` bytes. */
static char *streamed(const char *in, size_t n, size_t piece, unsigned int flags)
{
	static char out[512];
	FILE *f = fmemopen(out, sizeof(out), "w");
	struct tty_stream ts = { .f = f, .flags = flags };

	for (size_t i = 0; i < n; i += piece)
		tty__write(&ts, in + i, n - i < piece ? n - i : piece);
	tty__end(&ts);
	fputc('\0', f);
	fclose(f);
	return out;
}

int main(void)
{
	static const char *const printable[] = {
		"plain ascii, punctuation !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~",
		"caf\xc3\xa9 \xe2\x82\xac \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x94\xa5", /* é € 日本 🔥 */
		"\xc2\xa0nbsp and \xc2\xa9 (U+00A0, U+00A9: just past C1)",
		"\xe2\x80\x8f\xe2\x80\x8e marks (U+200F, U+200E) do not reorder on their own",
	};
	static const struct {
		const char *in, *want, *what;
	} cases[] = {
		{ "a\x1b[2Jb", "a?[2Jb", "ESC (clear screen)" },
		{ "t\x1b]0;owned\x07x", "t?]0;owned?x", "OSC window title, BEL" },
		{ "a\xc2\x9b" "2Jb", "a?2Jb", "CSI as one UTF-8 character (U+009B)" },
		{ "a\xc2\x9d" "0;t\xc2\x9c", "a?0;t?", "OSC and ST as C1 characters" },
		{ "a\xc2\x80\xc2\x9f", "a??", "the ends of C1: U+0080, U+009F" },
		{ "a\x9b" "2Jb", "a?2Jb", "CSI as a raw byte (8-bit terminals)" },
		{ "ok\rCRIT", "ok?CRIT", "a carriage return rewriting the line" },
		{ "del\x7f", "del?", "DEL" },
		{ "x\xe2\x80\xae" "kcatta\xe2\x80\xac", "x?kcatta?", "RLO ... PDF (U+202E, U+202C)" },
		{ "\xe2\x81\xa6" "a\xe2\x81\xa9", "?a?", "isolates (U+2066, U+2069)" },
		{ "one\xe2\x80\xa8two", "one?two", "a line separator (U+2028)" },
		{ "\xe0\x80\xaf", "???", "an overlong '/': three bad bytes" },
		{ "\xed\xa0\x80", "???", "a surrogate" },
		{ "\xf4\x90\x80\x80", "????", "past U+10FFFF" },
		{ "cut \xe2\x82", "cut ??", "a character cut at the end" },
		{ "l1\nl2\tx", "l1?l2?x", "newline and tab: one line by default" },
	};
	char s[64];

	for (size_t i = 0; i < sizeof(printable) / sizeof(*printable); i++)
		is_str(clean(printable[i], 0), printable[i], "printable text stays: %zu", i);
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++)
		is_str(clean(cases[i].in, 0), cases[i].want, "%s", cases[i].what);
	is_str(clean("l1\nl2\tx\r", TTY_KEEP_LINES), "l1\nl2\tx?",
	       "TTY_KEEP_LINES: newline and tab stay, CR does not");

	memcpy(s, "a\0b", 4);
	is_int(tty__clean(s, 3, 0), 3, "a NUL is replaced, not an end");
	ok(!memcmp(s, "a?b", 3), "  ...by '?'");
	snprintf(s, sizeof(s), "x\x1b[1mBOLD");
	tty__clean_str(s);
	is_str(s, "x?[1mBOLD", "tty__clean_str");

	/* Pieces: every cut of a mixed text gives what the whole text gives. */
	{
		static const char text[] = "\xc3\xa9\x1b[31m\xe2\x82\xac\xc2\x9b\xf0\x9f\x94\xa5"
					   "\xe2\x80\xae\n\xe2\x82\x41\xf0\x9f\x94";
		char whole[512];
		int same = 1;

		snprintf(whole, sizeof(whole), "%s", clean(text, TTY_KEEP_LINES));
		for (size_t piece = 1; piece <= sizeof(text); piece++) {
			const char *got = streamed(text, sizeof(text) - 1, piece, TTY_KEEP_LINES);

			if (strcmp(got, whole)) {
				same = 0;
				printf("# piece %zu: got '%s', want '%s'\n", piece, got, whole);
			}
		}
		ok(same, "a text printed in pieces of every size is cleaned as a whole");
		is_str(whole, "\xc3\xa9?[31m\xe2\x82\xac?\xf0\x9f\x94\xa5?\n??A???",
		       "  ...and the whole is what it should be");
	}
	{
		FILE *f;
		char out[64] = "";

		f = fmemopen(out, sizeof(out), "w");
		tty__puts(f, "v\xc2\x9b" "1;1H");
		tty__puts(f, NULL);
		fputc('\0', f);
		fclose(f);
		is_str(out, "v?1;1H", "tty__puts");
	}
	return tap_done();
}
