/* SPDX-License-Identifier: GPL-2.0-or-later */
/* FNV-1a, 64 bit: for open-addressing tables keyed by strings (not for security). */
#ifndef SONDE_HASH_H
#define SONDE_HASH_H

#include <stddef.h>
#include <stdint.h>

#define FNV1A_OFFSET 0xcbf29ce484222325ull

/* Continue hash h over n bytes of s; start with FNV1A_OFFSET. */
static inline uint64_t fnv1a(const char *s, size_t n, uint64_t h)
{
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

#endif
