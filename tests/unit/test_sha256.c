// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * SHA-256 (libmd, behind util/sha256.h) against the NIST vectors: the FIPS
 * 180-4 examples, short messages and the Monte Carlo test of the CAVS SHAVS
 * byte-oriented files (SHA256ShortMsg.rsp, SHA256Monte.rsp); split updates;
 * and sha256sum(1).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/sha256.h"
#include "tap.h"

static void digest_hex(const uint8_t digest[32], char hex[65])
{
	int i;

	for (i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", digest[i]);
}

/* The whole of buf in one update, as the manifest writes it (sha256__final_hex). */
static void one_shot(const void *buf, size_t len, char hex[65])
{
	struct sha256 s;

	sha256__init(&s);
	sha256__update(&s, buf, len);
	sha256__final_hex(&s, hex);
}

static void test_vectors(void)
{
	static const struct {
		const char *msg;
		const char *hex;
	} v[] = {
		{ "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
		{ "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
		/* 896 bits: the length field no longer fits in the first padded block. */
		{ "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
		  "klmnopqrlmnopqrsmnopqrstnopqrstu",
		  "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1" },
	};
	char hex[65];
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		one_shot(v[i].msg, strlen(v[i].msg), hex);
		is_str(hex, v[i].hex, "NIST vector, %zu bytes", strlen(v[i].msg));
	}
}

static int unhex(const char *hex, uint8_t *out, size_t max)
{
	size_t n = strlen(hex) / 2;

	if (n > max)
		return -1;
	for (size_t i = 0; i < n; i++) {
		unsigned v;

		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return -1;
		out[i] = (uint8_t)v;
	}
	return (int)n;
}

/* CAVS 11.0 SHAVS, SHA256ShortMsg.rsp (byte-oriented), the first records: Len in bits. */
static void test_cavs_short(void)
{
	static const struct {
		int bits;
		const char *msg, *md;
	} v[] = {
		{ 0, "00", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
		{ 8, "d3", "28969cdfa74a12c82f3bad960b0b000aca2ac329deea5c2328ebc6f2ba9802c1" },
		{ 16, "11af", "5ca7133fa735326081558ac312c620eeca9970d1e70a4b95533d956f072d1f98" },
		{ 24, "b4190e", "dff2e73091f6c05e528896c4c831b9448653dc2ff043528f6769437bc7b975c2" },
		{ 32, "74ba2521", "b16aa56be3880d18cd41e68384cf1ec8c17680c45a02b1575dc1518923ae8b0e" },
	};
	uint8_t msg[64];
	char hex[65];

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		int n = unhex(v[i].msg, msg, sizeof(msg));

		one_shot(msg, v[i].bits ? (size_t)n : 0, hex);
		is_str(hex, v[i].md, "SHA256ShortMsg Len = %d", v[i].bits);
	}
}

/*
 * SHA256Monte.rsp: from the seed, 100 checkpoints of 1,000 chained digests,
 * each over the last three (MD[i] = SHA256(MD[i-3] || MD[i-2] || MD[i-1])).
 */
static void test_cavs_monte(void)
{
	static const char seed_hex[] =
		"6d1e72ad03ddeb5de891e572e2396f8da015d899ef0e79503152d6010a3fe691";
	static const struct {
		int count;
		const char *md;
	} want[] = {
		{ 0, "e93c330ae5447738c8aa85d71a6c80f2a58381d05872d26bdd39f1fcd4f2b788" },
		{ 99, "6a912ba4188391a78e6f13d88ed2d14e13afce9db6f7dcbf4a48c24f3db02778" },
	};
	uint8_t md[3][32], seed[32], m[96];
	char hex[65];
	size_t w = 0;

	unhex(seed_hex, seed, sizeof(seed));
	for (int j = 0; j < 100; j++) {
		struct sha256 s;

		memcpy(md[0], seed, 32);
		memcpy(md[1], seed, 32);
		memcpy(md[2], seed, 32);
		for (int i = 3; i < 1003; i++) {
			memcpy(m, md[0], 32);
			memcpy(m + 32, md[1], 32);
			memcpy(m + 64, md[2], 32);
			memmove(md[0], md[1], 64);
			sha256__init(&s);
			sha256__update(&s, m, sizeof(m));
			sha256__final(&s, md[2]);
		}
		memcpy(seed, md[2], 32);
		if (w < sizeof(want) / sizeof(want[0]) && want[w].count == j) {
			digest_hex(seed, hex);
			is_str(hex, want[w].md, "SHA256Monte COUNT = %d", j);
			w++;
		}
	}
}

static void test_million_a(void)
{
	static const char want[] =
		"cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
	const size_t n = 1000000;
	struct sha256 s;
	uint8_t digest[32];
	char hex[65];
	char *buf;
	size_t off;

	buf = malloc(n);
	if (!buf) {
		ok(0, "malloc 1e6");
		return;
	}
	memset(buf, 'a', n);

	one_shot(buf, n, hex);
	is_str(hex, want, "one million 'a', one shot");

	/* Odd chunk size so updates straddle block boundaries at varying offsets. */
	sha256__init(&s);
	for (off = 0; off < n; off += 997)
		sha256__update(&s, buf + off, off + 997 <= n ? 997 : n - off);
	sha256__final(&s, digest);
	digest_hex(digest, hex);
	is_str(hex, want, "one million 'a', 997-byte updates");

	free(buf);
}

static void test_split_updates(void)
{
	uint8_t in[200], digest[32];
	char whole[65], hex[65];
	struct sha256 s;
	int bad = 0, k, i;

	for (i = 0; i < (int)sizeof(in); i++)
		in[i] = (uint8_t)(i * 131 + 7);
	one_shot(in, sizeof(in), whole);

	for (k = 0; k <= (int)sizeof(in); k++) {
		sha256__init(&s);
		sha256__update(&s, in, k);
		sha256__update(&s, in + k, sizeof(in) - k);
		sha256__final(&s, digest);
		digest_hex(digest, hex);
		if (strcmp(hex, whole)) {
			printf("#   split at %d: %s\n", k, hex);
			bad++;
		}
	}
	is_int(bad, 0, "200-byte input split at every offset 0..200 matches one shot");

	sha256__init(&s);
	for (i = 0; i < (int)sizeof(in); i++)
		sha256__update(&s, in + i, 1);
	sha256__update(&s, in, 0);
	sha256__final(&s, digest);
	digest_hex(digest, hex);
	is_str(hex, whole, "byte-at-a-time updates match one shot");
}

/* Digest of the first len bytes of buf by sha256(1), through a file. */
static int sha256sum_of(const uint8_t *buf, size_t len, char hex[65])
{
	char path[] = "/tmp/test_sha256.XXXXXX";
	char cmd[128], line[256];
	FILE *p;
	int fd, ret = -1;

	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	if (write(fd, buf, len) != (ssize_t)len) {
		close(fd);
		goto cleanup;
	}
	close(fd);

	snprintf(cmd, sizeof(cmd), "sha256sum '%s'", path);
	p = popen(cmd, "r");
	if (!p)
		goto cleanup;
	if (fgets(line, sizeof(line), p) && strlen(line) > 64 && line[64] == ' ') {
		memcpy(hex, line, 64);
		hex[64] = '\0';
		ret = 0;
	}
	if (pclose(p) != 0)
		ret = -1;
cleanup:
	unlink(path);
	return ret;
}

static void test_sha256sum(void)
{
	/* Around the padding edges (55/56/64 bytes), then a large odd size. */
	static const size_t lens[] = { 1, 55, 56, 63, 64, 65, 119, 120, 128, 100003 };
	char want[65], hex[65];
	uint8_t *buf;
	uint32_t x = 2463534242u;
	size_t i;

	buf = malloc(100003);
	if (!buf) {
		ok(0, "malloc");
		return;
	}
	/* xorshift32: arbitrary bytes, including NUL and 0x80, reproducible. */
	for (i = 0; i < 100003; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		buf[i] = (uint8_t)x;
	}

	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		if (sha256sum_of(buf, lens[i], want)) {
			ok(0, "sha256sum on a %zu-byte file ran", lens[i]);
			continue;
		}
		one_shot(buf, lens[i], hex);
		is_str(hex, want, "agrees with sha256sum on a %zu-byte file", lens[i]);
	}
	free(buf);
}

/* HMAC-SHA256 against RFC 4231's test cases 1, 2 and 6 (a key longer than a block). */
static void test_hmac(void)
{
	static const char *const want[] = {
		"b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
		"5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
		"60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
	};
	uint8_t k1[20], k6[131], mac[32];
	char hex[65];

	memset(k1, 0x0b, sizeof(k1));
	memset(k6, 0xaa, sizeof(k6));
	sha256__hmac(k1, sizeof(k1), "Hi There", 8, mac);
	digest_hex(mac, hex);
	is_str(hex, want[0], "HMAC-SHA256, RFC 4231 case 1");
	sha256__hmac("Jefe", 4, "what do ya want for nothing?", 28, mac);
	digest_hex(mac, hex);
	is_str(hex, want[1], "HMAC-SHA256, RFC 4231 case 2");
	sha256__hmac(k6, sizeof(k6), "Test Using Larger Than Block-Size Key - Hash Key First", 54, mac);
	digest_hex(mac, hex);
	is_str(hex, want[2], "HMAC-SHA256, RFC 4231 case 6 (a key longer than a block)");
}

int main(void)
{
	test_hmac();
	test_vectors();
	test_cavs_short();
	test_cavs_monte();
	test_million_a();
	test_split_updates();
	test_sha256sum();
	return tap_done();
}
