/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * SHA-256 (FIPS 180-4), for the bundle manifest and the report's CSP hash,
 * and HMAC-SHA256 for the host id (util/hostid.h):
 * libmd's (Debian's libmd, the BSD <sha2.h> that dpkg uses too), behind the
 * names the callers use.
 */
#ifndef SONDE_SHA256_H
#define SONDE_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include <sha2.h>

struct sha256 {
	SHA2_CTX ctx;
};

void sha256__init(struct sha256 *s);
void sha256__update(struct sha256 *s, const void *buf, size_t len);
void sha256__final(struct sha256 *s, uint8_t digest[32]);
/* sha256__final as lower-case hex, NUL-terminated, into hex[65] (the manifest's form). */
void sha256__final_hex(struct sha256 *s, char hex[65]);
/* HMAC-SHA256 (RFC 2104) of msg under key (a key over 64 bytes is hashed first). */
void sha256__hmac(const void *key, size_t keylen, const void *msg, size_t msglen,
		  uint8_t mac[32]);

#endif
