// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The address rules of the scan (redact_rules.c runs them): IPv4, MAC and
 * IPv6 addresses, each mapped to a pseudonym of its class, consistently
 * within one redactor (what stays and where each class goes: redact.c's
 * opening comment and docs/redaction.md).
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/redact_int.h"

/* The index entry for an address key, created (as seen) when new. */
static struct entry *addr_entry(struct redactor *r, const char *key, enum kind kind)
{
	struct entry *e = redactor__find(r, key);

	return e ? e : redactor__add(r, key, NULL, 0, NULL, kind);
}

/*
 * Entry idx gets the pseudonym pkey (a key no original has), and pkey is kept
 * as it is wherever it is met from now on. The entry, or NULL.
 */
static struct entry *hand_out(struct redactor *r, size_t idx, const char *pkey)
{
	struct entry *e;

	if (!redactor__add(r, pkey, NULL, 0, pkey, K_KEEP))
		return NULL;
	e = &r->e[idx]; /* add() may have moved the entries */
	e->pseudo = strdup(pkey);
	return e->pseudo ? e : NULL;
}

/* Remember one address's pseudonym for the mapping file. */
static void note_address(struct redactor *r, enum kind kind, const char *orig, const char *pseudo)
{
	char key[80];

	if (!strcmp(orig, pseudo))
		return;
	snprintf(key, sizeof(key), "%s%s", kind == K_V4 ? "a4:" : kind == K_V6 ? "a6:" : "am:",
		 orig);
	if (!redactor__find(r, key))
		redactor__add(r, key, orig, strlen(orig), pseudo, kind);
}

/*
 * IPv4 pools: an address keeps its class. The private and shared ranges map
 * into themselves, everything public into 198.18.0.0/15 (benchmarking, never
 * a real host), one /24 at a time: addresses that shared a /24 still do, and
 * the last octet stays.
 */
static const struct {
	uint32_t base;
	int bits;
} v4pools[] = {
	{ 0x0a000000, 8 },  /* 10/8 */
	{ 0xac100000, 12 }, /* 172.16/12 */
	{ 0xc0a80000, 16 }, /* 192.168/16 */
	{ 0x64400000, 10 }, /* 100.64/10, carrier-grade NAT */
	{ 0xa9fe0000, 16 }, /* 169.254/16, link-local */
	{ 0xc6120000, 15 }, /* 198.18/15: where public addresses go */
};
#define V4_PUBLIC 5

static void v4net_key(char *key, size_t size, uint32_t a)
{
	snprintf(key, size, "4:%u.%u.%u", a >> 24, (a >> 16) & 255, (a >> 8) & 255);
}

/* -1: keep as is (loopback, this network, multicast, reserved, broadcast, 198.18/15). */
static int v4_pool(uint32_t a)
{
	uint8_t top = (uint8_t)(a >> 24);

	if (top == 0 || top == 127 || top >= 224 || (a & 0xfffe0000) == v4pools[V4_PUBLIC].base)
		return -1;
	for (int p = 0; p < V4_PUBLIC; p++)
		if ((a & (0xffffffffu << (32 - v4pools[p].bits))) == v4pools[p].base)
			return p;
	return V4_PUBLIC;
}

/* The pseudonym of a (host order), or 0 to keep it; -1 when its pool is used up. */
static int map_v4(struct redactor *r, uint32_t a, uint32_t *out, int learn)
{
	char key[32];
	struct entry *e;
	int p = v4_pool(a);

	*out = a;
	if (p < 0)
		return 0;
	v4net_key(key, sizeof(key), a);
	e = addr_entry(r, key, K_V4NET);
	if (!e)
		return -1;
	if (learn || e->kind == K_KEEP)
		return 0;
	if (!e->pseudo) {
		size_t idx = (size_t)(e - r->e);
		uint32_t nets = 1u << (24 - v4pools[p].bits), net;
		char pkey[32];

		do {
			if (++r->next_v4[p] >= nets)
				return -1;
			net = v4pools[p].base + (r->next_v4[p] << 8);
			v4net_key(pkey, sizeof(pkey), net);
		} while (redactor__find(r, pkey));
		e = hand_out(r, idx, pkey);
		if (!e)
			return -1;
	}
	{
		unsigned int b0, b1, b2;

		sscanf(e->pseudo, "4:%u.%u.%u", &b0, &b1, &b2);
		*out = (b0 << 24) | (b1 << 16) | (b2 << 8) | (a & 255);
	}
	return 0;
}

/* Dotted quad at i: four octets 0-255, nothing dotted or wordy on either side. */
static size_t parse_v4(const char *v, size_t n, size_t i, uint32_t *a)
{
	size_t j = i;

	*a = 0;
	for (int part = 0; part < 4; part++) {
		unsigned int o = 0;
		size_t d = 0;

		if (part) {
			if (j >= n || v[j] != '.')
				return 0;
			j++;
		}
		while (j < n && is_digit((unsigned char)v[j]) && d < 3)
			o = o * 10 + (unsigned int)(v[j++] - '0'), d++;
		if (!d || o > 255)
			return 0;
		*a = (*a << 8) | o;
	}
	if (j < n && (is_word((unsigned char)v[j]) ||
		      (v[j] == '.' && j + 1 < n && is_digit((unsigned char)v[j + 1]))))
		return 0;
	return j;
}

size_t redact__rule_ipv4(struct scan *sc, size_t i)
{
	uint32_t a, p;
	size_t j;
	char orig[16], ps[16];

	if (!is_digit((unsigned char)sc->v[i]) ||
	    (i && (is_word((unsigned char)sc->v[i - 1]) || sc->v[i - 1] == '.')))
		return 0;
	j = parse_v4(sc->v, sc->n, i, &a);
	if (!j)
		return 0;
	if (map_v4(sc->r, a, &p, learning(sc))) {
		redact__replace(sc, i, j, REDACTED);
		return j;
	}
	if (p != a && !learning(sc)) {
		snprintf(orig, sizeof(orig), "%u.%u.%u.%u", a >> 24, (a >> 16) & 255,
			 (a >> 8) & 255, a & 255);
		snprintf(ps, sizeof(ps), "%u.%u.%u.%u", p >> 24, (p >> 16) & 255, (p >> 8) & 255,
			 p & 255);
		note_address(sc->r, K_V4, orig, ps);
		redact__replace(sc, i, j, ps);
	}
	return j;
}

/*
 * MACs keep their multicast and locally-administered bits; the rest is a
 * counter. All zeros and broadcast stay.
 */
static int map_mac(struct redactor *r, const uint8_t m[6], uint8_t out[6], int learn)
{
	char key[20], pkey[20];
	struct entry *e;
	size_t idx;

	memcpy(out, m, 6);
	if (!memcmp(m, "\0\0\0\0\0\0", 6) || !memcmp(m, "\xff\xff\xff\xff\xff\xff", 6))
		return 0;
	snprintf(key, sizeof(key), "m:%02x%02x%02x%02x%02x%02x", m[0], m[1], m[2], m[3], m[4],
		 m[5]);
	e = addr_entry(r, key, K_MAC);
	if (!e)
		return -1;
	if (learn || e->kind == K_KEEP)
		return 0;
	idx = (size_t)(e - r->e);
	if (!e->pseudo) {
		uint8_t p[6];

		do {
			unsigned int k = ++r->next_mac;

			p[0] = m[0] & 0x03;
			p[1] = 0x00;
			p[2] = 0x53;
			p[3] = (uint8_t)(k >> 16);
			p[4] = (uint8_t)(k >> 8);
			p[5] = (uint8_t)k;
			snprintf(pkey, sizeof(pkey), "m:%02x%02x%02x%02x%02x%02x", p[0], p[1], p[2],
				 p[3], p[4], p[5]);
		} while (redactor__find(r, pkey));
		if (!redactor__add(r, pkey, NULL, 0, pkey, K_KEEP))
			return -1;
		e = &r->e[idx];
		e->orig = malloc(18);
		e->pseudo = malloc(18);
		if (!e->orig || !e->pseudo)
			return -1;
		snprintf(e->orig, 18, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4],
			 m[5]);
		snprintf(e->pseudo, 18, "%02x:%02x:%02x:%02x:%02x:%02x", p[0], p[1], p[2], p[3],
			 p[4], p[5]);
	}
	for (int k = 0; k < 6; k++) {
		unsigned int b;

		sscanf(e->pseudo + 3 * k, "%2x", &b);
		out[k] = (uint8_t)b;
	}
	return 0;
}

size_t redact__rule_mac(struct scan *sc, size_t i)
{
	const char *v = sc->v;
	uint8_t m[6], p[6];
	char sep, out[18];

	if (i + 17 > sc->n || !is_hex((unsigned char)v[i]) ||
	    (i && (is_word((unsigned char)v[i - 1]) || v[i - 1] == ':' || v[i - 1] == '-')))
		return 0;
	sep = v[i + 2];
	if (sep != ':' && sep != '-')
		return 0;
	for (int k = 0; k < 6; k++) {
		const char *g = v + i + 3 * k;

		if (!is_hex((unsigned char)g[0]) || !is_hex((unsigned char)g[1]) ||
		    (k < 5 && g[2] != sep))
			return 0;
		m[k] = (uint8_t)(hexval((unsigned char)g[0]) << 4 | hexval((unsigned char)g[1]));
	}
	if (i + 17 < sc->n && (is_word((unsigned char)v[i + 17]) || v[i + 17] == sep))
		return 0;
	if (map_mac(sc->r, m, p, learning(sc))) {
		redact__replace(sc, i, i + 17, REDACTED);
		return i + 17;
	}
	if (!learning(sc) && memcmp(m, p, 6)) {
		snprintf(out, sizeof(out), "%02x%c%02x%c%02x%c%02x%c%02x%c%02x", p[0], sep, p[1],
			 sep, p[2], sep, p[3], sep, p[4], sep, p[5]);
		redact__replace(sc, i, i + 17, out);
	}
	return i + 17;
}

/* An interface id built from a MAC (EUI-64) would give the MAC away: map it with the MACs. */
static int map_iid(struct redactor *r, uint8_t b[16], int learn)
{
	uint8_t m[6], p[6];

	if (b[11] != 0xff || b[12] != 0xfe)
		return 0;
	m[0] = b[8] ^ 0x02;
	m[1] = b[9];
	m[2] = b[10];
	m[3] = b[13];
	m[4] = b[14];
	m[5] = b[15];
	if (map_mac(r, m, p, learn))
		return -1;
	b[8] = p[0] ^ 0x02;
	b[9] = p[1];
	b[10] = p[2];
	b[13] = p[3];
	b[14] = p[4];
	b[15] = p[5];
	return 0;
}

/*
 * IPv6: loopback, unspecified, multicast, 2001:db8::/32 (documentation, where
 * the pseudonyms live) and anything outside global unicast and ULA stay;
 * link-local keeps its prefix; global /64s map into 2001:db8::/32 and ULA /64s
 * into fd00::/48, one /64 at a time, the interface id kept unless it is built
 * from a MAC. IPv4-mapped addresses follow the IPv4 rules.
 */
static int map_v6(struct redactor *r, uint8_t b[16], int learn)
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	char key[40], pkey[40];
	struct entry *e;
	int ula, pool;

	if (!memcmp(b, mapped, 12)) {
		uint32_t a = (uint32_t)b[12] << 24 | (uint32_t)b[13] << 16 | (uint32_t)b[14] << 8 |
			     b[15], p;

		if (map_v4(r, a, &p, learn))
			return -1;
		b[12] = (uint8_t)(p >> 24);
		b[13] = (uint8_t)(p >> 16);
		b[14] = (uint8_t)(p >> 8);
		b[15] = (uint8_t)p;
		return 0;
	}
	if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80)
		return map_iid(r, b, learn);
	ula = (b[0] & 0xfe) == 0xfc;
	if (!ula && ((b[0] & 0xe0) != 0x20 || (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d &&
					       b[3] == 0xb8)))
		return 0;
	pool = ula;
	snprintf(key, sizeof(key), "6:%02x%02x%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2], b[3],
		 b[4], b[5], b[6], b[7]);
	e = addr_entry(r, key, K_V6NET);
	if (!e)
		return -1;
	if (map_iid(r, b, learn))
		return -1;
	e = redactor__find(r, key); /* map_iid may have moved the entries */
	if (!e)
		return -1;
	if (learn || e->kind == K_KEEP)
		return 0;
	if (!e->pseudo) {
		size_t idx = (size_t)(e - r->e);

		do {
			unsigned int k = ++r->next_v6[pool];

			if (ula)
				snprintf(pkey, sizeof(pkey), "6:fd000000%04x%04x",
					 (k >> 16) & 0xffff, k & 0xffff);
			else
				snprintf(pkey, sizeof(pkey), "6:20010db8%04x%04x",
					 (k >> 16) & 0xffff, k & 0xffff);
		} while (redactor__find(r, pkey));
		e = hand_out(r, idx, pkey);
		if (!e)
			return -1;
	}
	for (int k = 0; k < 8; k++) {
		unsigned int x;

		sscanf(e->pseudo + 2 + 2 * k, "%2x", &x);
		b[k] = (uint8_t)x;
	}
	return 0;
}

size_t redact__rule_ipv6(struct scan *sc, size_t i)
{
	const char *v = sc->v;
	uint8_t b[16], o[16];
	char cand[72], orig[64], ps[64];
	size_t j = i, len;
	int colons = 0;

	if ((!is_hex((unsigned char)v[i]) && v[i] != ':') ||
	    (i && (is_word((unsigned char)v[i - 1]) || v[i - 1] == ':' || v[i - 1] == '.')))
		return 0;
	while (j < sc->n && j - i < sizeof(cand) - 1 &&
	       (is_hex((unsigned char)v[j]) || v[j] == ':' || v[j] == '.'))
		colons += v[j++] == ':';
	if (colons < 2 || (j < sc->n && is_word((unsigned char)v[j])))
		return 0;
	len = j - i;
	memcpy(cand, v + i, len);
	cand[len] = '\0';
	/* "at fe80::1." or "2a00:1450::77:" in prose: the punctuation is not part of it. */
	while (inet_pton(AF_INET6, cand, b) != 1) {
		if (len < 3 || (cand[len - 1] != '.' && cand[len - 1] != ':') ||
		    (cand[len - 1] == ':' && cand[len - 2] == ':'))
			return 0;
		cand[--len] = '\0';
	}
	j = i + len;
	memcpy(o, b, 16);
	if (map_v6(sc->r, b, learning(sc))) {
		redact__replace(sc, i, j, REDACTED);
		return j;
	}
	if (!learning(sc) && memcmp(o, b, 16)) {
		inet_ntop(AF_INET6, o, orig, sizeof(orig));
		inet_ntop(AF_INET6, b, ps, sizeof(ps));
		note_address(sc->r, K_V6, orig, ps);
		redact__replace(sc, i, j, ps);
	}
	return j;
}
