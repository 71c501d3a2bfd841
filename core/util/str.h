/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Predicates on NUL-terminated strings that several layers ask, defined once
 * so that their edge cases are the same everywhere.
 */
#ifndef SONDE_STR_H
#define SONDE_STR_H

#include <string.h>

/*
 * Does s end with suffix? As a string, not as a file name: s equal to suffix
 * ends with it (".lock" ends with ".lock"), and every string ends with "".
 * A caller that wants something before the suffix (a stem) says so itself.
 */
static inline int str__has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !memcmp(s + n - k, suffix, k);
}

#endif
