/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The redactor's inside, shared by its files and private to core/bundle:
 * redact.c (the redactor: its index of names and addresses, pseudonyms,
 * learning, the map), redact_rules.c (the scan and its rules), redact_addr.c
 * (its address rules), redact_views.c (JSON, Markdown and HTML read as their
 * readers see them), redact_files.c (directories, capture streams, files
 * replaced).
 */
#ifndef SONDE_REDACT_INT_H
#define SONDE_REDACT_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "bundle/redact.h"
#include "util/strbuf.h"

#define REDACTED "REDACTED"
/* A user name (useradd allows 32) or one DNS name (253). */
#define USER_NAME_MAX 64
#define DNS_NAME_MAX 253
/*
 * A secret value learned from a command line is also replaced wherever else
 * it shows up, but only when it is long enough not to be an ordinary word.
 */
#define SECRET_LITERAL_MIN 4
/* Names shorter than this match in their own case only. */
#define SHORT_NAME 4

enum kind {
	K_HOST,   /* a host name's first label */
	K_DOMAIN, /* a domain (one or more labels) */
	K_USER,
	K_WORKLOAD, /* a container, pod, namespace or image name */
	K_SECRET, /* a secret value seen in a command line: always "REDACTED", never mapped */
	K_KEEP,   /* a pseudonym this redactor handed out: kept when met again */
	K_V4NET,  /* an IPv4 /24 */
	K_V6NET,  /* an IPv6 /64 */
	K_MAC,
	K_V4, /* one IPv4 address, for the mapping file only */
	K_V6, /* one IPv6 address, for the mapping file only */
};

struct entry {
	/*
	 * "n:" lowercased name, "4:a.b.c" (/24), "6:" 16 hex digits (/64),
	 * "m:" 12 hex digits, "a4:"/"a6:" an address as printed.
	 */
	char *key;
	char *orig;   /* as first seen, for the mapping */
	char *pseudo; /* NULL until handed out */
	enum kind kind;
	int word;     /* a name replaced as a whole word in every text */
	size_t alias; /* another spelling of entry alias - 1: its pseudonym is that one's */
};

/* key -> entry index, open addressing. */
struct index {
	size_t *slot; /* entry index + 1; 0 is empty */
	size_t cap, n;
};

struct redactor {
	struct entry *e;
	size_t n, cap;
	struct index ix;
	unsigned int next_name[4]; /* host, domain, user, workload */
	unsigned int next_v4[6], next_v6[2], next_mac;
	int frozen; /* names learned so far have pseudonyms; later ones get theirs at once */
	/* Word-replaced names: entry indices by lowercased first byte, longest first. */
	size_t *lit;
	size_t lit_at[257];
	int lit_dirty;
	int oom;
};

/* ---- characters ---- */

static inline int is_alpha(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static inline int is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static inline int is_hex(unsigned char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Part of a word: a name never starts or ends next to one of these. UTF-8 counts. */
static inline int is_word(unsigned char c)
{
	return is_alpha(c) || is_digit(c) || c == '_' || c >= 0x80;
}

static inline int is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\0' || c == '\v' ||
	       c == '\f';
}

static inline unsigned char lower(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') ? (unsigned char)(c + 32) : c;
}

static inline int hexval(unsigned char c)
{
	if (is_digit(c))
		return c - '0';
	c = lower(c);
	return (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
}

/* s (n bytes) equals the lowercase word w, ignoring ASCII case. */
static inline int eq_ci(const char *s, size_t n, const char *w)
{
	size_t wl = strlen(w);

	if (n != wl)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (lower((unsigned char)s[i]) != (unsigned char)w[i])
			return 0;
	return 1;
}

static inline int ends_ci(const char *s, size_t n, const char *w)
{
	size_t wl = strlen(w);

	return n >= wl && eq_ci(s + n - wl, wl, w);
}

static inline int all_digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!is_digit((unsigned char)s[i]))
			return 0;
	return 1;
}

/* A byte of a user name. */
static inline int is_user_char(unsigned char c)
{
	return is_word(c) || c == '.' || c == '-';
}

/* ---- redact.c: the index, names ---- */

struct entry *redactor__find(struct redactor *r, const char *key);
/* The entry of a learned name (any case), or NULL. */
struct entry *redactor__find_name(struct redactor *r, const char *s, size_t n);
/* Add an entry (key must be new); orig/pseudo are copied. NULL on allocation failure. */
struct entry *redactor__add(struct redactor *r, const char *key, const char *orig, size_t origlen,
			    const char *pseudo, enum kind kind);
/* Give e its pseudonym, if it has none yet. */
void redactor__alloc_name(struct redactor *r, struct entry *e);
/* Hand out the pseudonyms of every name learned so far (before the first rewrite). */
void redactor__freeze(struct redactor *r);
/* Learn one name; the entry index + 1, or 0 when it is not a name to learn. */
size_t redactor__learn_name(struct redactor *r, const char *s, size_t n, enum kind kind);
/*
 * Learn s as another spelling of the name learned as id (redactor__learn_name's return):
 * both become the same pseudonym (a machine name and its systemd-escaped form in a cgroup
 * path). Returns its id, or 0.
 */
size_t redactor__learn_alias(struct redactor *r, const char *s, size_t n, size_t id);
/*
 * Learn a secret value: as it is (blanks and all: an argv element), and each
 * of its blank-separated words long enough to be replaced on their own (a
 * report cell may cut it between words).
 */
void redactor__learn_secret(struct redactor *r, const char *s, size_t n);
size_t redactor__learn_user(struct redactor *r, const char *s, size_t n);
/* A DNS name: system, the host's own (first label the host, the rest its domain). */
void redactor__learn_dns(struct redactor *r, const char *s, size_t n, int system);
/* The table of word-replaced names, by lowercased first byte, rebuilt when names were added. */
void redactor__build_literals(struct redactor *r);
/* Never pseudonymized (root, localhost, example.com, ...): it stays where it stands. */
int redactor__stoplisted(const char *s, size_t n);

/* ---- redact_rules.c: a scan over one view ---- */

struct scan {
	struct redactor *r;
	const char *v;     /* the text as a reader sees it */
	size_t n;
	const size_t *map; /* v offset -> source offset (n + 1 entries); NULL: v is the source */
	const char *src;
	size_t *emitted;   /* source bytes up to here are in out */
	struct strbuf *out; /* NULL: learning */
	unsigned int ctx;
	size_t full;       /* REDACT_TRUNCATED: n before the cut last token was set aside */
	size_t secrets;    /* secret values met (dropped, or learned) */
};

static inline int learning(const struct scan *sc)
{
	return !sc->out;
}

static inline size_t src_at(const struct scan *sc, size_t i)
{
	return sc->map ? sc->map[i] : i;
}

/* The view's [a, b) replaced by repl in the output (the source bytes up to a copied first). */
static inline void redact__replace(struct scan *sc, size_t a, size_t b, const char *repl)
{
	size_t sa = src_at(sc, a);

	if (!sc->out)
		return;
	if (sa > *sc->emitted)
		strbuf__append(sc->out, sc->src + *sc->emitted, sa - *sc->emitted);
	strbuf__puts(sc->out, repl);
	*sc->emitted = src_at(sc, b);
}

/* Run every rule over sc->v: learn (sc->out NULL), or write the redacted source to sc->out. */
void redact__scan(struct scan *sc);

/* ---- redact_addr.c: the address rules, each the end of its match at i, or 0 ---- */

size_t redact__rule_mac(struct scan *sc, size_t i);
size_t redact__rule_ipv6(struct scan *sc, size_t i);
size_t redact__rule_ipv4(struct scan *sc, size_t i);
/* A plain text: learn from it (out NULL) or append its redacted form to out. 0 or -ENOMEM. */
int redact__plain(struct redactor *r, const char *s, size_t n, unsigned int ctx,
		  struct strbuf *out);

/* ---- redact_views.c: views of encoded text ---- */

/*
 * JSON string values, Markdown, HTML text: learn (out NULL) or redact into
 * out. 0 or -ENOMEM. A JSON string value whose next sibling is its "KEY_cut":
 * true (execsnoop's "args", "args_cut") is read as cut at a cap.
 */
int redact__json(struct redactor *r, const char *s, size_t n, struct strbuf *out);
int redact__md(struct redactor *r, const char *s, size_t n, struct strbuf *out);
int redact__html(struct redactor *r, const char *s, size_t n, struct strbuf *out);

#endif
