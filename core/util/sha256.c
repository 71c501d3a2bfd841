// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * SHA-256 from a maintained library (libmd) rather than our own rounds: the
 * bundle manifest's digests are what `sonde verify` trusts, so they come
 * from code that many others check. tests/unit/test_sha256.c holds it to
 * the NIST vectors (FIPS 180-4 examples, CAVS short messages, Monte Carlo).
 */
#include <string.h>

#include "util/sha256.h"

void sha256__init(struct sha256 *s)
{
	SHA256Init(&s->ctx);
}

void sha256__update(struct sha256 *s, const void *buf, size_t len)
{
	SHA256Update(&s->ctx, buf, len);
}

void sha256__final(struct sha256 *s, uint8_t digest[32])
{
	SHA256Final(digest, &s->ctx);
}

void sha256__final_hex(struct sha256 *s, char hex[65])
{
	static const char digits[] = "0123456789abcdef";
	uint8_t digest[SHA256_DIGEST_LENGTH];

	sha256__final(s, digest);
	for (int i = 0; i < SHA256_DIGEST_LENGTH; i++) {
		hex[2 * i] = digits[digest[i] >> 4];
		hex[2 * i + 1] = digits[digest[i] & 0xf];
	}
	hex[64] = '\0';
}

void sha256__hmac(const void *key, size_t keylen, const void *msg, size_t msglen,
		  uint8_t mac[32])
{
	uint8_t k[64] = { 0 }, pad[64], inner[32];
	struct sha256 s;

	if (keylen > sizeof(k)) {
		sha256__init(&s);
		sha256__update(&s, key, keylen);
		sha256__final(&s, k);
	} else if (keylen) {
		memcpy(k, key, keylen);
	}
	for (size_t i = 0; i < sizeof(k); i++)
		pad[i] = k[i] ^ 0x36;
	sha256__init(&s);
	sha256__update(&s, pad, sizeof(pad));
	sha256__update(&s, msg, msglen);
	sha256__final(&s, inner);
	for (size_t i = 0; i < sizeof(k); i++)
		pad[i] = k[i] ^ 0x5c;
	sha256__init(&s);
	sha256__update(&s, pad, sizeof(pad));
	sha256__update(&s, inner, sizeof(inner));
	sha256__final(&s, mac);
}
