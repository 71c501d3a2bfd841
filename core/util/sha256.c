// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * SHA-256 as specified in FIPS 180-4, section 6.2. Written out here rather
 * than taken from a crypto library so the bundle manifest needs no extra
 * runtime dependency; speed is not critical (captures are a few MB).
 */
#include <string.h>

#include "util/sha256.h"

static const uint32_t sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
	0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
	0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
	0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
	0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
	0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
	0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
	0xc67178f2,
};

static inline uint32_t sha256_ror(uint32_t x, unsigned int n)
{
	return (x >> n) | (x << (32 - n));
}

/* Big-endian load/store by bytes: no alignment or host-endianness assumptions. */
static inline uint32_t sha256_load_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void sha256_store_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static void sha256_compress(uint32_t h[8], const uint8_t *block)
{
	uint32_t w[64];
	uint32_t a, b, c, d, e, f, g, hh;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = sha256_load_be32(block + 4 * i);
	for (i = 16; i < 64; i++) {
		uint32_t x = w[i - 15], y = w[i - 2];
		uint32_t s0 = sha256_ror(x, 7) ^ sha256_ror(x, 18) ^ (x >> 3);
		uint32_t s1 = sha256_ror(y, 17) ^ sha256_ror(y, 19) ^ (y >> 10);

		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}

	a = h[0];
	b = h[1];
	c = h[2];
	d = h[3];
	e = h[4];
	f = h[5];
	g = h[6];
	hh = h[7];

	for (i = 0; i < 64; i++) {
		uint32_t S1 = sha256_ror(e, 6) ^ sha256_ror(e, 11) ^ sha256_ror(e, 25);
		uint32_t ch = (e & f) ^ (~e & g);
		uint32_t t1 = hh + S1 + ch + sha256_k[i] + w[i];
		uint32_t S0 = sha256_ror(a, 2) ^ sha256_ror(a, 13) ^ sha256_ror(a, 22);
		uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
		uint32_t t2 = S0 + maj;

		hh = g;
		g = f;
		f = e;
		e = d + t1;
		d = c;
		c = b;
		b = a;
		a = t1 + t2;
	}

	h[0] += a;
	h[1] += b;
	h[2] += c;
	h[3] += d;
	h[4] += e;
	h[5] += f;
	h[6] += g;
	h[7] += hh;
}

void sha256__init(struct sha256 *s)
{
	static const uint32_t iv[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};

	memcpy(s->h, iv, sizeof(iv));
	s->nbytes = 0;
	s->fill = 0;
}

void sha256__update(struct sha256 *s, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	s->nbytes += len;

	/* Top up a partial block left by the previous call first. */
	if (s->fill) {
		size_t take = sizeof(s->block) - s->fill;

		if (take > len)
			take = len;
		memcpy(s->block + s->fill, p, take);
		s->fill += take;
		p += take;
		len -= take;
		if (s->fill < sizeof(s->block))
			return;
		sha256_compress(s->h, s->block);
		s->fill = 0;
	}

	/* Whole blocks straight from the caller's buffer, no copy. */
	while (len >= sizeof(s->block)) {
		sha256_compress(s->h, p);
		p += sizeof(s->block);
		len -= sizeof(s->block);
	}

	if (len) {
		memcpy(s->block, p, len);
		s->fill = len;
	}
}

void sha256__final(struct sha256 *s, uint8_t digest[32])
{
	uint64_t nbits = s->nbytes * 8;
	int i;

	/* Padding (5.1.1): a 1 bit, zeros, then the 64-bit length in the last 8 bytes. */
	s->block[s->fill++] = 0x80;
	if (s->fill > sizeof(s->block) - 8) {
		memset(s->block + s->fill, 0, sizeof(s->block) - s->fill);
		sha256_compress(s->h, s->block);
		s->fill = 0;
	}
	memset(s->block + s->fill, 0, sizeof(s->block) - 8 - s->fill);
	sha256_store_be32(s->block + 56, nbits >> 32);
	sha256_store_be32(s->block + 60, (uint32_t)nbits);
	sha256_compress(s->h, s->block);

	for (i = 0; i < 8; i++)
		sha256_store_be32(digest + 4 * i, s->h[i]);
}

void sha256__final_hex(struct sha256 *s, char hex[65])
{
	static const char digits[] = "0123456789abcdef";
	uint8_t digest[32];
	int i;

	sha256__final(s, digest);
	for (i = 0; i < 32; i++) {
		hex[2 * i] = digits[digest[i] >> 4];
		hex[2 * i + 1] = digits[digest[i] & 0xf];
	}
	hex[64] = '\0';
}
