/* SPDX-License-Identifier: GPL-2.0-or-later */
/* SHA-256 (FIPS 180-4), for the bundle manifest. */
#ifndef SONDE_SHA256_H
#define SONDE_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct sha256 {
	uint32_t h[8];
	uint64_t nbytes;
	uint8_t block[64];
	size_t fill;
};

void sha256__init(struct sha256 *s);
void sha256__update(struct sha256 *s, const void *buf, size_t len);
void sha256__final(struct sha256 *s, uint8_t digest[32]);
/* sha256__final as lower-case hex, NUL-terminated, into hex[65] (the manifest's form). */
void sha256__final_hex(struct sha256 *s, char hex[65]);

#endif
