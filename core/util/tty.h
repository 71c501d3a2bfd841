/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Text on its way to a terminal: the one sanitizer every printer of host or
 * bundle text goes through (the summary, show, diff, analyze's comparison, a
 * member printed to a terminal, error messages naming a member). Only
 * printable text gets through; each of these becomes one '?':
 *
 *   - C0 controls and DEL (ESC starts every escape sequence; CR rewrites a line),
 *     newline and tab too unless TTY_KEEP_LINES;
 *   - C1 controls, U+0080 to U+009F (U+009B is CSI in one character, U+009D OSC,
 *     which a terminal honours as it does ESC [ and ESC ]);
 *   - bytes that are not well-formed UTF-8 (0x9B alone is CSI to a terminal in
 *     8-bit mode), one '?' per byte;
 *   - the bidirectional embeddings, overrides and isolates (U+202A to U+202E,
 *     U+2066 to U+2069), which reorder the text after them on screen: a forged
 *     verdict or a hidden word;
 *   - the line and paragraph separators U+2028, U+2029 (a line break to some
 *     terminals, when one line was promised).
 */
#ifndef SONDE_TTY_H
#define SONDE_TTY_H

#include <stddef.h>
#include <stdio.h>

/* Newlines and tabs pass (a file printed as it is); the default is one line. */
#define TTY_KEEP_LINES 1u

/* The length of the start of s (n bytes) that passes as it is: n when all of it does. */
size_t tty__printable(const char *s, size_t n, unsigned int flags);
/* Clean s (n bytes) in place; the cleaned length (never more than n). A NUL is a control too. */
size_t tty__clean(char *s, size_t n, unsigned int flags);
/* Clean a NUL-terminated string in place, as one line. */
void tty__clean_str(char *s);
/* Print s (NUL-terminated, NULL prints nothing) to f, cleaned, as one line. */
void tty__puts(FILE *f, const char *s);

/*
 * A file printed in pieces (show MEMBER): a character cut between two
 * pieces is held back until the next, so it is judged whole.
 */
struct tty_stream {
	FILE *f;
	unsigned int flags;
	unsigned char held[4];
	size_t nheld;
};

void tty__write(struct tty_stream *ts, const char *buf, size_t n);
/* The end of the text: a character still held is incomplete, so it is a '?'. */
void tty__end(struct tty_stream *ts);

#endif
