/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Minimal TAP producer for the C unit tests (run through prove). */
#ifndef SONDE_TAP_H
#define SONDE_TAP_H

#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

#define ok(cond, ...)                                                                      \
	do {                                                                               \
		int ok_ = !!(cond);                                                        \
		printf("%sok %d - ", ok_ ? "" : "not ", ++tap_n);                          \
		printf(__VA_ARGS__);                                                       \
		printf("\n");                                                              \
		if (!ok_) {                                                                \
			tap_failed++;                                                      \
			printf("#   failed at %s:%d: %s\n", __FILE__, __LINE__, #cond);    \
		}                                                                          \
	} while (0)

#define is_int(got, want, ...)                                                             \
	do {                                                                               \
		long long g_ = (long long)(got), w_ = (long long)(want);                   \
		ok(g_ == w_, __VA_ARGS__);                                                 \
		if (g_ != w_)                                                              \
			printf("#   got %lld, want %lld\n", g_, w_);                         \
	} while (0)

#define is_str(got, want, ...)                                                             \
	do {                                                                               \
		const char *g_ = (got), *w_ = (want);                                      \
		int same_ = g_ && w_ && !strcmp(g_, w_);                                   \
		ok(same_, __VA_ARGS__);                                                    \
		if (!same_)                                                                \
			printf("#   got '%s', want '%s'\n", g_ ? g_ : "(null)", w_ ? w_ : "(null)"); \
	} while (0)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
