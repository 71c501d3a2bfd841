// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Redaction of captures and reports (interface and guarantees in redact.h,
 * the user's view in docs/redaction.md).
 *
 * Every text is read through a view: the bytes as a reader sees them (JSON
 * string escapes, Markdown backslash escapes and HTML entities decoded) with,
 * for each byte, the offset in the file it came from. The rules match on the
 * view and replace whole source spans, so "10\.77\.66\.55" in report.md is
 * found like 10.77.66.55, and every byte outside a match is written back
 * unchanged. Pseudonyms and "REDACTED" hold only [A-Za-z0-9.:-], which needs
 * no escaping in JSON, HTML or Markdown: a valid file stays valid.
 *
 * Rules, tried in this order at each position:
 *   cut token   a token right before " …" (a table cell cut for width): partial,
 *               so whatever it was part of cannot be recognised: dropped
 *   URL         scheme://user:pass@: user pseudonymized, password dropped
 *   secret      --password=V, token=V, X-Api-Key: V, --token V: V dropped
 *   bearer      Bearer V, Authorization: [scheme] V: V dropped
 *   home        /home/NAME, /Users/NAME: NAME pseudonymized
 *   user@host   learning only, in command lines
 *   MAC, IPv6, IPv4
 *   names       every learned name as a whole word, case-insensitively
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect/capture.h"
#include "util/json.h"
#include "util/file.h"
#include "util/hash.h"
#include "bundle/redact.h"

#define REDACTED "REDACTED"
#define REDACT_MAP_SCHEMA "sonde.redaction-map/1"
/* Files under a stage are ours or come from a bundle opened under caps; this bounds memory. */
#define REDACT_FILE_MAX (512u << 20)
#define REDACT_MAX_DEPTH 8
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
	unsigned int next_name[3]; /* host, domain, user */
	unsigned int next_v4[6], next_v6[2], next_mac;
	int frozen; /* names learned so far have pseudonyms; later ones get theirs at once */
	/* Word-replaced names: entry indices by lowercased first byte, longest first. */
	size_t *lit;
	size_t lit_at[257];
	int lit_dirty;
	int oom;
};

/* ---- characters ---- */

static int is_alpha(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static int is_hex(unsigned char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Part of a word: a name never starts or ends next to one of these. UTF-8 counts. */
static int is_word(unsigned char c)
{
	return is_alpha(c) || is_digit(c) || c == '_' || c >= 0x80;
}

static int is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\0' || c == '\v' ||
	       c == '\f';
}

static unsigned char lower(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') ? (unsigned char)(c + 32) : c;
}

static int hexval(unsigned char c)
{
	if (is_digit(c))
		return c - '0';
	c = lower(c);
	return (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
}

/* s (n bytes) equals the lowercase word w, ignoring ASCII case. */
static int eq_ci(const char *s, size_t n, const char *w)
{
	size_t wl = strlen(w);

	if (n != wl)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (lower((unsigned char)s[i]) != (unsigned char)w[i])
			return 0;
	return 1;
}

static int ends_ci(const char *s, size_t n, const char *w)
{
	size_t wl = strlen(w);

	return n >= wl && eq_ci(s + n - wl, wl, w);
}

static int all_digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!is_digit((unsigned char)s[i]))
			return 0;
	return 1;
}

/* ---- the index ---- */

static uint64_t key_hash(const char *s)
{
	return fnv1a(s, strlen(s), FNV1A_OFFSET);
}

static size_t *index_slot(struct redactor *r, const char *key)
{
	struct index *ix = &r->ix;
	size_t i;

	if ((ix->n + 1) * 2 > ix->cap) {
		size_t ncap = ix->cap ? ix->cap * 2 : 256;
		size_t *ns = calloc(ncap, sizeof(*ns));

		if (!ns) {
			r->oom = 1;
			return NULL;
		}
		for (size_t k = 0; k < ix->cap; k++) {
			if (!ix->slot[k])
				continue;
			for (i = key_hash(r->e[ix->slot[k] - 1].key) & (ncap - 1); ns[i];
			     i = (i + 1) & (ncap - 1))
				;
			ns[i] = ix->slot[k];
		}
		free(ix->slot);
		ix->slot = ns;
		ix->cap = ncap;
	}
	for (i = key_hash(key) & (ix->cap - 1); ix->slot[i]; i = (i + 1) & (ix->cap - 1))
		if (!strcmp(r->e[ix->slot[i] - 1].key, key))
			break;
	return &ix->slot[i];
}

static struct entry *find(struct redactor *r, const char *key)
{
	size_t *s = index_slot(r, key);

	return s && *s ? &r->e[*s - 1] : NULL;
}

/* Add an entry (key must be new); orig/pseudo are copied. NULL on allocation failure. */
static struct entry *add(struct redactor *r, const char *key, const char *orig, size_t origlen,
			 const char *pseudo, enum kind kind)
{
	size_t *s = index_slot(r, key);
	struct entry *e;

	if (!s)
		return NULL;
	if (r->n == r->cap) {
		size_t ncap = r->cap ? r->cap * 2 : 64;
		struct entry *ne = realloc(r->e, ncap * sizeof(*ne));

		if (!ne) {
			r->oom = 1;
			return NULL;
		}
		r->e = ne;
		r->cap = ncap;
	}
	e = &r->e[r->n];
	memset(e, 0, sizeof(*e));
	e->key = strdup(key);
	e->orig = orig ? strndup(orig, origlen) : NULL;
	e->pseudo = pseudo ? strdup(pseudo) : NULL;
	if (!e->key || (orig && !e->orig) || (pseudo && !e->pseudo)) {
		free(e->key);
		free(e->orig);
		free(e->pseudo);
		r->oom = 1;
		return NULL;
	}
	e->kind = kind;
	*s = ++r->n;
	return e;
}

struct redactor *redactor__new(void)
{
	return calloc(1, sizeof(struct redactor));
}

void redactor__free(struct redactor *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++) {
		free(r->e[i].key);
		free(r->e[i].orig);
		free(r->e[i].pseudo);
	}
	free(r->e);
	free(r->ix.slot);
	free(r->lit);
	free(r);
}

/* ---- names ---- */

/*
 * Never pseudonymized: they identify nobody, and replacing them as words
 * would mangle ordinary text (the documentation domains stay recognisable).
 */
static const char *const name_stoplist[] = {
	"root", "nobody", "localhost", "localdomain", "local", "lan", "home", "internal",
	"(none)", "example", "example.com", "example.org", "example.net", "invalid", "test",
	"redacted",
};

/* A secret value that is an ordinary word is dropped where it stands, not everywhere. */
static const char *const secret_stoplist[] = {
	"true", "false", "yes", "no", "none", "null", "auto", "off", "on", "redacted",
};

static int in_list(const char *s, size_t n, const char *const *list, size_t nlist)
{
	for (size_t i = 0; i < nlist; i++)
		if (eq_ci(s, n, list[i]))
			return 1;
	return 0;
}

static int name_key(char *key, size_t size, const char *s, size_t n)
{
	if (n + 3 > size)
		return -1;
	key[0] = 'n';
	key[1] = ':';
	for (size_t i = 0; i < n; i++)
		key[2 + i] = (char)lower((unsigned char)s[i]);
	key[2 + n] = '\0';
	return 0;
}

static void alloc_name(struct redactor *r, struct entry *e)
{
	char cand[64], key[80];
	size_t idx = (size_t)(e - r->e);

	if (e->pseudo)
		return;
	if (e->kind == K_SECRET) {
		e->pseudo = strdup(REDACTED);
		if (!e->pseudo)
			r->oom = 1;
		return;
	}
	/* Skip any number whose pseudonym is also an original: it must stay unambiguous. */
	do {
		unsigned int k = ++r->next_name[e->kind];

		if (e->kind == K_HOST)
			snprintf(cand, sizeof(cand), "host-%u", k);
		else if (e->kind == K_DOMAIN)
			snprintf(cand, sizeof(cand), "domain-%u.example", k);
		else
			snprintf(cand, sizeof(cand), "user-%u", k);
		name_key(key, sizeof(key), cand, strlen(cand));
	} while (find(r, key));
	if (!add(r, key, cand, strlen(cand), cand, K_KEEP))
		return;
	e = &r->e[idx]; /* add() may have moved the entries */
	r->e[r->n - 1].word = 1;
	e->pseudo = strdup(cand);
	if (!e->pseudo)
		r->oom = 1;
	r->lit_dirty = 1;
}

static void freeze(struct redactor *r)
{
	if (r->frozen)
		return;
	/* In the order learned: host-1 is the host's own name, learned first. */
	for (size_t i = 0; i < r->n; i++)
		if (r->e[i].kind <= K_SECRET && !r->e[i].pseudo)
			alloc_name(r, &r->e[i]);
	r->frozen = 1;
}

/*
 * Learn one name. Names of one character, all digits or on the stoplist are
 * not replaced as words (only where the rule that found them stands).
 * Returns the entry index + 1, or 0 when the name is not one to learn.
 */
static size_t learn_name(struct redactor *r, const char *s, size_t n, enum kind kind)
{
	char key[DNS_NAME_MAX + 8];
	struct entry *e;
	size_t id;

	if (!n || n > DNS_NAME_MAX || in_list(s, n, name_stoplist,
					      sizeof(name_stoplist) / sizeof(*name_stoplist)))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (is_space((unsigned char)s[i]) || (unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return 0;
	name_key(key, sizeof(key), s, n);
	e = find(r, key);
	if (e)
		return (size_t)(e - r->e) + 1;
	e = add(r, key, s, n, NULL, kind);
	if (!e)
		return 0;
	e->word = n >= 2 && !all_digits(s, n);
	if (kind == K_SECRET)
		e->word = n >= SECRET_LITERAL_MIN && !all_digits(s, n) &&
			  !in_list(s, n, secret_stoplist,
				   sizeof(secret_stoplist) / sizeof(*secret_stoplist));
	r->lit_dirty = 1;
	id = r->n;
	if (r->frozen)
		alloc_name(r, e); /* adds the pseudonym's own entry after this one */
	return id;
}

static int user_char(unsigned char c)
{
	return is_word(c) || c == '.' || c == '-';
}

static size_t learn_user(struct redactor *r, const char *s, size_t n)
{
	if (!n || n > USER_NAME_MAX || s[0] == '.' || s[0] == '-')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!user_char((unsigned char)s[i]))
			return 0;
	return learn_name(r, s, n, K_USER);
}

/*
 * A DNS name: the host's own (system: its first label is the host, the rest
 * its domain), or one found in a command line, where a.b is a domain and
 * a.b.c a host a in domain b.c. Addresses and names without a letter are not
 * names.
 */
static void learn_dns(struct redactor *r, const char *s, size_t n, int system)
{
	size_t labels = 1, dot = 0;
	int letter = 0;

	while (n && s[n - 1] == '.')
		n--;
	if (!n || n > DNS_NAME_MAX || s[0] == '.' || s[0] == '-')
		return;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '.') {
			if (s[i - 1] == '.')
				return;
			if (!dot)
				dot = i;
			labels++;
		} else if (!is_alpha(c) && !is_digit(c) && c != '-' && c != '_') {
			return;
		}
		letter |= is_alpha(c);
	}
	if (!letter)
		return;
	if (labels == 1) {
		learn_name(r, s, n, K_HOST);
	} else if (system || labels >= 3) {
		learn_name(r, s, dot, K_HOST);
		learn_name(r, s + dot + 1, n - dot - 1, K_DOMAIN);
	} else {
		learn_name(r, s, n, K_DOMAIN);
	}
}

static void build_literals(struct redactor *r)
{
	size_t n = 0, *lit, fill[256] = { 0 };

	if (!r->lit_dirty && r->lit)
		return;
	for (size_t i = 0; i < r->n; i++)
		if (r->e[i].word && r->e[i].key[0] == 'n')
			n++;
	lit = malloc((n ? n : 1) * sizeof(*lit));
	if (!lit) {
		r->oom = 1;
		return;
	}
	memset(r->lit_at, 0, sizeof(r->lit_at));
	for (size_t i = 0; i < r->n; i++)
		if (r->e[i].word && r->e[i].key[0] == 'n')
			r->lit_at[(unsigned char)r->e[i].key[2] + 1]++;
	for (int b = 1; b <= 256; b++)
		r->lit_at[b] += r->lit_at[b - 1];
	for (size_t i = 0; i < r->n; i++) {
		unsigned char b;

		if (!r->e[i].word || r->e[i].key[0] != 'n')
			continue;
		b = (unsigned char)r->e[i].key[2];
		lit[r->lit_at[b] + fill[b]++] = i;
	}
	/* Longest first within a bucket: "db1.corp.example" before "db1". */
	for (int b = 0; b < 256; b++) {
		size_t lo = r->lit_at[b], hi = r->lit_at[b + 1];

		for (size_t i = lo + 1; i < hi; i++) {
			size_t v = lit[i], j = i;
			size_t vl = strlen(r->e[v].key);

			while (j > lo && strlen(r->e[lit[j - 1]].key) < vl) {
				lit[j] = lit[j - 1];
				j--;
			}
			lit[j] = v;
		}
	}
	free(r->lit);
	r->lit = lit;
	r->lit_dirty = 0;
}

/* ---- a scan over one view ---- */

struct scan {
	struct redactor *r;
	const char *v;     /* the text as a reader sees it */
	size_t n;
	const size_t *map; /* v offset -> source offset (n + 1 entries); NULL: v is the source */
	const char *src;
	size_t *emitted;   /* source bytes up to here are in out */
	struct strbuf *out; /* NULL: learning */
	unsigned int ctx;
};

static size_t src_at(const struct scan *sc, size_t i)
{
	return sc->map ? sc->map[i] : i;
}

static void replace(struct scan *sc, size_t a, size_t b, const char *repl)
{
	size_t sa = src_at(sc, a);

	if (!sc->out)
		return;
	if (sa > *sc->emitted)
		strbuf__append(sc->out, sc->src + *sc->emitted, sa - *sc->emitted);
	strbuf__puts(sc->out, repl);
	*sc->emitted = src_at(sc, b);
}

static int learning(const struct scan *sc)
{
	return !sc->out;
}

/* The name at [a, b) replaced by its pseudonym (learned now if new); REDACTED if not a name. */
static void replace_name(struct scan *sc, size_t a, size_t b, enum kind kind)
{
	struct redactor *r = sc->r;
	size_t id = kind == K_USER ? learn_user(r, sc->v + a, b - a) :
				     learn_name(r, sc->v + a, b - a, kind);

	if (!id) {
		/* Not a name to keep a pseudonym for: stoplisted, it stays; anything else goes. */
		if (!in_list(sc->v + a, b - a, name_stoplist,
			     sizeof(name_stoplist) / sizeof(*name_stoplist)))
			replace(sc, a, b, REDACTED);
		return;
	}
	alloc_name(r, &r->e[id - 1]);
	/* A pseudonym met again stays byte for byte (an escaped "user\-1" too). */
	if (r->e[id - 1].pseudo && r->e[id - 1].kind != K_KEEP)
		replace(sc, a, b, r->e[id - 1].pseudo);
}

static size_t token_end(const struct scan *sc, size_t i)
{
	while (i < sc->n && !is_space((unsigned char)sc->v[i]))
		i++;
	return i;
}

/* A table cell cut for width ends in " …": its last token is a fragment of who knows what. */
static size_t rule_cut(struct scan *sc, size_t i)
{
	size_t j;

	if ((i && !is_space((unsigned char)sc->v[i - 1]) && sc->v[i - 1] != '|') ||
	    is_space((unsigned char)sc->v[i]))
		return 0;
	j = token_end(sc, i);
	if (j + 4 > sc->n || memcmp(sc->v + j, " \xe2\x80\xa6", 4))
		return 0;
	if (!learning(sc))
		replace(sc, i, j, REDACTED);
	return j;
}

static void secret_value_learn(struct scan *sc, size_t a, size_t b)
{
	if ((sc->ctx & REDACT_CMDLINE) && b > a)
		learn_name(sc->r, sc->v + a, b - a, K_SECRET);
}

static void drop_secret(struct scan *sc, size_t a, size_t b)
{
	if (b <= a)
		return;
	if (learning(sc))
		secret_value_learn(sc, a, b);
	else
		replace(sc, a, b, REDACTED);
}

/* scheme://user:pass@host: the password dropped, the user pseudonymized. */
static size_t rule_url(struct scan *sc, size_t i)
{
	const char *v = sc->v;
	size_t j = i, a, e, at = 0, colon = 0;

	if (!is_alpha((unsigned char)v[i]) ||
	    (i && (is_word((unsigned char)v[i - 1]) || v[i - 1] == '+' || v[i - 1] == '.' ||
		   v[i - 1] == '-')))
		return 0;
	while (j < sc->n && j - i < 32 &&
	       (is_alpha((unsigned char)v[j]) || is_digit((unsigned char)v[j]) || v[j] == '+' ||
		v[j] == '.' || v[j] == '-'))
		j++;
	if (j + 3 > sc->n || memcmp(v + j, "://", 3))
		return 0;
	a = j + 3;
	for (e = a; e < sc->n; e++) {
		unsigned char c = (unsigned char)v[e];

		if (is_space(c) || c == '/' || c == '?' || c == '#' || c == '"' || c == '\'' ||
		    c == '<' || c == '>' || c == '\\' || c < 0x20)
			break;
		if (c == '@')
			at = e;
	}
	if (!at) {
		/* No credentials; the host of a URL in a command line is a name to learn. */
		if (learning(sc) && (sc->ctx & REDACT_CMDLINE)) {
			size_t he = a;

			while (he < e && v[he] != ':' && v[he] != '[')
				he++;
			if (he == e || v[he] == ':')
				learn_dns(sc->r, v + a, he - a, 0);
		}
		return 0;
	}
	for (size_t k = a; k < at; k++)
		if (v[k] == ':') {
			colon = k;
			break;
		}
	if (learning(sc)) {
		size_t he = at + 1;

		if (!colon && at - a > 32)
			secret_value_learn(sc, a, at);
		else
			learn_user(sc->r, v + a, (colon ? colon : at) - a);
		if (colon)
			secret_value_learn(sc, colon + 1, at);
		if (sc->ctx & REDACT_CMDLINE) {
			while (he < e && v[he] != ':' && v[he] != '[')
				he++;
			if (he == e || v[he] == ':')
				learn_dns(sc->r, v + at + 1, he - at - 1, 0);
		}
		return at + 1;
	}
	if ((colon ? colon : at) > a) {
		/* A long user part without a password is more likely a token than a person. */
		if (!colon && at - a > 32)
			replace(sc, a, at, REDACTED);
		else
			replace_name(sc, a, colon ? colon : at, K_USER);
	}
	if (colon && at > colon + 1)
		replace(sc, colon + 1, at, REDACTED);
	return at + 1;
}

static int key_char(unsigned char c)
{
	return is_word(c) || c == '-' || c == '.';
}

/*
 * An option or variable name that holds a secret: anything ending in
 * password, token, secret...; the short words (key, pass, pwd, auth) only as
 * the whole name or its last part (api-key, db_pass), so "monkey" is safe.
 */
static int secret_name(const char *k, size_t n)
{
	static const char *const anywhere[] = {
		"password", "passwd", "passphrase", "secret", "token", "apikey", "credentials",
		"credential",
	};
	static const char *const part[] = { "pass", "pwd", "key", "auth" };

	while (n && *k == '-')
		k++, n--;
	if (!n)
		return 0;
	for (size_t i = 0; i < sizeof(anywhere) / sizeof(*anywhere); i++)
		if (ends_ci(k, n, anywhere[i]))
			return 1;
	for (size_t i = 0; i < sizeof(part) / sizeof(*part); i++) {
		size_t pl = strlen(part[i]);

		char before = n > pl ? k[n - pl - 1] : '-';

		if (ends_ci(k, n, part[i]) && (before == '-' || before == '_' || before == '.'))
			return 1;
	}
	return 0;
}

/* The value of a secret: up to a blank (and in a query string, up to & or #). */
static size_t value_end(const struct scan *sc, size_t i, int query)
{
	while (i < sc->n) {
		unsigned char c = (unsigned char)sc->v[i];

		if (is_space(c) || c < 0x20 || c == 0x7f || (query && (c == '&' || c == '#')))
			break;
		i++;
	}
	return i;
}

/* Authorization: [scheme] credentials. */
static size_t auth_value(struct scan *sc, size_t i)
{
	size_t w = i, e;

	while (i < sc->n && (sc->v[i] == ' ' || sc->v[i] == '\t'))
		i++;
	w = i;
	while (w < sc->n && is_alpha((unsigned char)sc->v[w]))
		w++;
	if (w > i && w < sc->n && sc->v[w] == ' ')
		i = w + 1;
	e = value_end(sc, i, 0);
	drop_secret(sc, i, e);
	return e > i ? e : 0;
}

static size_t rule_secret(struct scan *sc, size_t i)
{
	const char *v = sc->v;
	size_t j = i, vs, e;
	int letter = 0, query;

	if (!key_char((unsigned char)v[i]) || (i && key_char((unsigned char)v[i - 1])))
		return 0;
	while (j < sc->n && key_char((unsigned char)v[j]) && j - i < 128)
		letter |= is_alpha((unsigned char)v[j++]);
	if (!letter || j >= sc->n)
		return 0;
	if (v[j] == '=') {
		if (!secret_name(v + i, j - i))
			return 0;
		query = i && (v[i - 1] == '?' || v[i - 1] == '&' || v[i - 1] == ';');
		vs = j + 1;
		e = value_end(sc, vs, query);
	} else if (v[j] == ':' && v[i] != '-' && j + 1 < sc->n &&
		   (v[j + 1] == ' ' || v[j + 1] == '\t')) {
		/* A header or a "key: value" line. */
		if (eq_ci(v + i, j - i, "authorization") ||
		    eq_ci(v + i, j - i, "proxy-authorization"))
			return auth_value(sc, j + 1);
		if (!secret_name(v + i, j - i))
			return 0;
		for (vs = j + 1; vs < sc->n && (v[vs] == ' ' || v[vs] == '\t'); vs++)
			;
		e = value_end(sc, vs, 0);
	} else if (j - i > 2 && v[i] == '-' && v[i + 1] == '-' && (v[j] == '\0' || v[j] == ' ') &&
		   j + 1 < sc->n && v[j + 1] != '-' && !is_space((unsigned char)v[j + 1])) {
		/* --password VALUE: the value is the next argument. */
		if (!secret_name(v + i, j - i))
			return 0;
		vs = j + 1;
		e = value_end(sc, vs, 0);
	} else {
		return 0;
	}
	drop_secret(sc, vs, e);
	return e > vs ? e : j + 1;
}

static size_t rule_bearer(struct scan *sc, size_t i)
{
	size_t j = i + 6, e;

	if (lower((unsigned char)sc->v[i]) != 'b' || (i && is_word((unsigned char)sc->v[i - 1])) ||
	    j >= sc->n || !eq_ci(sc->v + i, 6, "bearer") || (sc->v[j] != ' ' && sc->v[j] != '\t'))
		return 0;
	while (j < sc->n && (sc->v[j] == ' ' || sc->v[j] == '\t'))
		j++;
	e = value_end(sc, j, 0);
	if (e == j)
		return 0;
	drop_secret(sc, j, e);
	return e;
}

/* /home/NAME and /Users/NAME: NAME is a user's, whatever else it looks like. */
static size_t rule_home(struct scan *sc, size_t i)
{
	size_t a, b;

	if (sc->v[i] != '/')
		return 0;
	if (i + 6 <= sc->n && !memcmp(sc->v + i, "/home/", 6))
		a = i + 6;
	else if (i + 7 <= sc->n && !memcmp(sc->v + i, "/Users/", 7))
		a = i + 7;
	else
		return 0;
	for (b = a; b < sc->n && user_char((unsigned char)sc->v[b]); b++)
		;
	if (b == a || sc->v[a] == '.' || sc->v[a] == '-' || b - a > USER_NAME_MAX)
		return 0;
	if (learning(sc))
		learn_user(sc->r, sc->v + a, b - a);
	else
		replace_name(sc, a, b, K_USER);
	return b;
}

/* systemd instances (getty@tty1.service) look like user@host and are neither. */
static int unit_name(const char *s, size_t n)
{
	static const char *const suffix[] = {
		".service", ".socket", ".slice", ".scope", ".target", ".mount", ".timer", ".path",
		".device", ".swap",
	};

	for (size_t i = 0; i < sizeof(suffix) / sizeof(*suffix); i++)
		if (ends_ci(s, n, suffix[i]))
			return 1;
	return 0;
}

/* user@host in a command line (ssh, scp, rsync, mail): both are names to learn. */
static size_t rule_userhost(struct scan *sc, size_t i)
{
	const char *v = sc->v;
	size_t at, e;

	if (!learning(sc) || !(sc->ctx & REDACT_CMDLINE) || !user_char((unsigned char)v[i]) ||
	    (i && user_char((unsigned char)v[i - 1])))
		return 0;
	for (at = i; at < sc->n && user_char((unsigned char)v[at]); at++)
		;
	if (at == i || at >= sc->n || v[at] != '@')
		return 0;
	for (e = at + 1; e < sc->n && (is_alpha((unsigned char)v[e]) ||
				       is_digit((unsigned char)v[e]) || v[e] == '.' || v[e] == '-');
	     e++)
		;
	if (e == at + 1 || unit_name(v + at + 1, e - at - 1))
		return 0;
	if (!all_digits(v + i, at - i))
		learn_user(sc->r, v + i, at - i);
	learn_dns(sc->r, v + at + 1, e - at - 1, 0);
	return e;
}

/* ---- addresses ---- */

/* The index entry for an address key, created (as seen) when new. */
static struct entry *addr_entry(struct redactor *r, const char *key, enum kind kind)
{
	struct entry *e = find(r, key);

	return e ? e : add(r, key, NULL, 0, NULL, kind);
}

/* Remember one address's pseudonym for the mapping file. */
static void note_address(struct redactor *r, enum kind kind, const char *orig, const char *pseudo)
{
	char key[80];

	if (!strcmp(orig, pseudo))
		return;
	snprintf(key, sizeof(key), "%s%s", kind == K_V4 ? "a4:" : kind == K_V6 ? "a6:" : "am:",
		 orig);
	if (!find(r, key))
		add(r, key, orig, strlen(orig), pseudo, kind);
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
		} while (find(r, pkey));
		if (!add(r, pkey, NULL, 0, pkey, K_KEEP))
			return -1;
		e = &r->e[idx];
		e->pseudo = strdup(pkey);
		if (!e->pseudo)
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

static size_t rule_ipv4(struct scan *sc, size_t i)
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
		replace(sc, i, j, REDACTED);
		return j;
	}
	if (p != a && !learning(sc)) {
		snprintf(orig, sizeof(orig), "%u.%u.%u.%u", a >> 24, (a >> 16) & 255,
			 (a >> 8) & 255, a & 255);
		snprintf(ps, sizeof(ps), "%u.%u.%u.%u", p >> 24, (p >> 16) & 255, (p >> 8) & 255,
			 p & 255);
		note_address(sc->r, K_V4, orig, ps);
		replace(sc, i, j, ps);
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
		} while (find(r, pkey));
		if (!add(r, pkey, NULL, 0, pkey, K_KEEP))
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

static size_t rule_mac(struct scan *sc, size_t i)
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
		replace(sc, i, i + 17, REDACTED);
		return i + 17;
	}
	if (!learning(sc) && memcmp(m, p, 6)) {
		snprintf(out, sizeof(out), "%02x%c%02x%c%02x%c%02x%c%02x%c%02x", p[0], sep, p[1],
			 sep, p[2], sep, p[3], sep, p[4], sep, p[5]);
		replace(sc, i, i + 17, out);
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
	e = find(r, key); /* map_iid may have moved the entries */
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
		} while (find(r, pkey));
		if (!add(r, pkey, NULL, 0, pkey, K_KEEP))
			return -1;
		e = &r->e[idx];
		e->pseudo = strdup(pkey);
		if (!e->pseudo)
			return -1;
	}
	for (int k = 0; k < 8; k++) {
		unsigned int x;

		sscanf(e->pseudo + 2 + 2 * k, "%2x", &x);
		b[k] = (uint8_t)x;
	}
	return 0;
}

static size_t rule_ipv6(struct scan *sc, size_t i)
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
		replace(sc, i, j, REDACTED);
		return j;
	}
	if (!learning(sc) && memcmp(o, b, 16)) {
		inet_ntop(AF_INET6, o, orig, sizeof(orig));
		inet_ntop(AF_INET6, b, ps, sizeof(ps));
		note_address(sc->r, K_V6, orig, ps);
		replace(sc, i, j, ps);
	}
	return j;
}

/* Every learned name, as a whole word, whatever its case. */
static size_t rule_names(struct scan *sc, size_t i)
{
	struct redactor *r = sc->r;
	unsigned char c = lower((unsigned char)sc->v[i]);

	/* A name that starts with a letter or digit never starts inside a word. */
	if (learning(sc) || !r->lit ||
	    (i && is_word((unsigned char)sc->v[i]) && is_word((unsigned char)sc->v[i - 1])))
		return 0;
	for (size_t k = r->lit_at[c]; k < r->lit_at[c + 1]; k++) {
		const struct entry *e = &r->e[r->lit[k]];
		const char *w = e->key + 2;
		size_t wl = strlen(w);

		if (i + wl > sc->n || !eq_ci(sc->v + i, wl, w))
			continue;
		/*
		 * A short name is often also a word ("vm" and "VM guest"): it
		 * matches only as it was written. Longer ones in any case (a
		 * heading's id is the title lowercased).
		 */
		if (wl < SHORT_NAME && e->orig && memcmp(sc->v + i, e->orig, wl))
			continue;
		if (is_word((unsigned char)w[0]) && i && is_word((unsigned char)sc->v[i - 1]))
			continue;
		if (is_word((unsigned char)w[wl - 1]) && i + wl < sc->n &&
		    is_word((unsigned char)sc->v[i + wl]))
			continue;
		if (e->kind != K_KEEP)
			replace(sc, i, i + wl, e->pseudo ? e->pseudo : REDACTED);
		return i + wl;
	}
	return 0;
}

static void scan_run(struct scan *sc)
{
	size_t i = 0, full = sc->n;

	/*
	 * A text cut at a cap: its last token is a fragment of something no rule
	 * can recognise any more. It is dropped here, and wherever else it shows
	 * up (a report quoting the same cut command line).
	 */
	if (sc->ctx & REDACT_TRUNCATED) {
		while (sc->n && !is_space((unsigned char)sc->v[sc->n - 1]))
			sc->n--;
		if (learning(sc) && full - sc->n >= 3)
			learn_name(sc->r, sc->v + sc->n, full - sc->n, K_SECRET);
	}
	if (!learning(sc)) {
		freeze(sc->r);
		build_literals(sc->r);
	}
	while (i < sc->n) {
		size_t next;

		if ((next = rule_cut(sc, i)) || (next = rule_url(sc, i)) ||
		    (next = rule_secret(sc, i)) || (next = rule_bearer(sc, i)) ||
		    (next = rule_home(sc, i)) || (next = rule_userhost(sc, i)) ||
		    (next = rule_mac(sc, i)) || (next = rule_ipv6(sc, i)) ||
		    (next = rule_ipv4(sc, i)) || (next = rule_names(sc, i))) {
			/* replace() may have learned a name: the literal table follows. */
			if (!learning(sc) && sc->r->lit_dirty)
				build_literals(sc->r);
			i = next;
			continue;
		}
		i++;
	}
	if (sc->n < full)
		replace(sc, sc->n, full, REDACTED);
	sc->n = full;
}

/* The host's own name: kernel.hostname and kernel.domainname, read whole. */
static void learn_host_record(struct redactor *r, const char *s, size_t n, unsigned int ctx)
{
	while (n && is_space((unsigned char)s[n - 1]))
		n--;
	while (n && is_space((unsigned char)*s))
		s++, n--;
	if (ctx & REDACT_HOSTNAME)
		learn_dns(r, s, n, 1);
	else if (n)
		learn_name(r, s, n, K_DOMAIN);
}

/* Scan a plain text: learn from it (out NULL) or append its redacted form to out. */
static int plain(struct redactor *r, const char *s, size_t n, unsigned int ctx,
		 struct strbuf *out)
{
	size_t emitted = 0;
	struct scan sc = {
		.r = r, .v = s, .n = n, .src = s, .emitted = &emitted, .out = out, .ctx = ctx,
	};

	if (!out && (ctx & (REDACT_HOSTNAME | REDACT_DOMAIN)))
		learn_host_record(r, s, n, ctx);
	scan_run(&sc);
	if (out && n > emitted)
		strbuf__append(out, s + emitted, n - emitted);
	return r->oom || (out && out->oom) ? -ENOMEM : 0;
}

int redactor__learn(struct redactor *r, const char *text, size_t len, unsigned int ctx)
{
	return plain(r, text, len, ctx, NULL);
}

char *redactor__text(struct redactor *r, const char *text, size_t len, unsigned int ctx,
		     size_t *outlen)
{
	struct strbuf out = { 0 };

	strbuf__append(&out, "", 0);
	if (plain(r, text, len, ctx, &out)) {
		strbuf__free(&out);
		return NULL;
	}
	if (outlen)
		*outlen = out.len;
	return out.buf;
}

/* ---- views of encoded text ---- */

struct view {
	char *v;
	size_t *map;
	size_t n, cap;
	int oom;
};

static void view_put(struct view *w, const char *bytes, size_t k, size_t src)
{
	if (w->n + k + 1 > w->cap) {
		size_t ncap = w->cap ? w->cap * 2 : 256;
		char *nv;
		size_t *nm;

		while (ncap < w->n + k + 1)
			ncap *= 2;
		nv = realloc(w->v, ncap);
		if (nv)
			w->v = nv;
		nm = realloc(w->map, ncap * sizeof(*nm));
		if (nm)
			w->map = nm;
		if (!nv || !nm) {
			w->oom = 1;
			return;
		}
		w->cap = ncap;
	}
	for (size_t i = 0; i < k; i++) {
		w->v[w->n] = bytes[i];
		w->map[w->n++] = src;
	}
}

static size_t utf8_put(char *o, uint32_t cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* Scan one view (its map ending at src_end) and go on with the file from there. */
static int scan_view(struct redactor *r, struct view *w, size_t src_end, const char *src,
		     size_t *emitted, struct strbuf *out)
{
	struct scan sc = {
		.r = r, .v = w->v, .n = w->n, .src = src, .emitted = emitted, .out = out,
	};

	if (w->oom)
		return -ENOMEM;
	view_put(w, "", 0, 0);
	if (w->oom)
		return -ENOMEM;
	w->map[w->n] = src_end;
	sc.map = w->map;
	scan_run(&sc);
	w->n = 0;
	return r->oom ? -ENOMEM : 0;
}

static unsigned int hex4(const char *s, size_t avail, int *ok)
{
	unsigned int v = 0;

	*ok = avail >= 4;
	for (int i = 0; *ok && i < 4; i++) {
		int h = hexval((unsigned char)s[i]);

		if (h < 0)
			*ok = 0;
		v = v << 4 | (unsigned int)(h < 0 ? 0 : h);
	}
	return v;
}

/* JSON: the string values, decoded; keys and everything between them are structure. */
static int redact_json(struct redactor *r, const char *s, size_t n, struct strbuf *out)
{
	struct view w = { 0 };
	size_t i = 0, emitted = 0;
	int rc = 0;

	while (i < n && !rc) {
		size_t k, after;

		if (s[i] != '"') {
			i++;
			continue;
		}
		for (k = i + 1; k < n && s[k] != '"'; k++)
			if (s[k] == '\\')
				k++;
		if (k >= n)
			break;
		for (after = k + 1; after < n && is_space((unsigned char)s[after]); after++)
			;
		if (after < n && s[after] == ':') {
			i = k + 1;
			continue;
		}
		for (size_t p = i + 1; p < k && !w.oom;) {
			char buf[4];
			size_t at = p;

			if (s[p] != '\\') {
				view_put(&w, s + p, 1, p);
				p++;
				continue;
			}
			switch (s[p + 1]) {
			case 'b': buf[0] = '\b'; break;
			case 'f': buf[0] = '\f'; break;
			case 'n': buf[0] = '\n'; break;
			case 'r': buf[0] = '\r'; break;
			case 't': buf[0] = '\t'; break;
			case 'u': {
				int ok, ok2;
				unsigned int cp = hex4(s + p + 2, k - p - 2, &ok), lo;

				if (!ok) {
					view_put(&w, s + p, 1, p);
					p++;
					continue;
				}
				p += 6;
				if (cp >= 0xd800 && cp < 0xdc00 && p + 6 <= k && s[p] == '\\' &&
				    s[p + 1] == 'u' &&
				    (lo = hex4(s + p + 2, k - p - 2, &ok2), ok2) && lo >= 0xdc00 &&
				    lo < 0xe000) {
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
					p += 6;
				} else if (cp >= 0xd800 && cp < 0xe000) {
					cp = 0xfffd;
				}
				view_put(&w, buf, utf8_put(buf, cp), at);
				continue;
			}
			default: buf[0] = s[p + 1]; break;
			}
			view_put(&w, buf, 1, at);
			p += 2;
		}
		rc = scan_view(r, &w, k, s, &emitted, out);
		i = k + 1;
	}
	if (out && n > emitted)
		strbuf__append(out, s + emitted, n - emitted);
	free(w.v);
	free(w.map);
	return rc;
}

static int is_ascii_punct(unsigned char c)
{
	return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') ||
	       (c >= '{' && c <= '~');
}

/* Markdown: read "\." as "." (md__escape escapes every ASCII punctuation character). */
static int redact_md(struct redactor *r, const char *s, size_t n, struct strbuf *out)
{
	struct view w = { 0 };
	size_t emitted = 0;
	int rc;

	for (size_t i = 0; i < n;) {
		if (s[i] == '\\' && i + 1 < n && is_ascii_punct((unsigned char)s[i + 1])) {
			view_put(&w, s + i + 1, 1, i);
			i += 2;
		} else {
			view_put(&w, s + i, 1, i);
			i++;
		}
	}
	rc = scan_view(r, &w, n, s, &emitted, out);
	if (!rc && out && n > emitted)
		strbuf__append(out, s + emitted, n - emitted);
	free(w.v);
	free(w.map);
	return rc;
}

/* The entities cmark and html.c write (and a few more); others stay as written. */
static const char *named_entity(const char *name, size_t len)
{
	static const struct {
		const char *name;
		const char *bytes;
	} named[] = {
		{ "amp", "&" }, { "lt", "<" }, { "gt", ">" }, { "quot", "\"" }, { "apos", "'" },
		{ "nbsp", "\xc2\xa0" },
	};

	for (size_t k = 0; k < sizeof(named) / sizeof(*named); k++)
		if (len == strlen(named[k].name) && !memcmp(name, named[k].name, len))
			return named[k].bytes;
	return NULL;
}

/* Decode HTML text [a, b) (entities) into w. */
static void html_view(struct view *w, const char *s, size_t a, size_t b)
{
	for (size_t i = a; i < b;) {
		size_t semi = i + 1;
		const char *bytes;
		char buf[4];
		int done = 0;

		if (s[i] != '&') {
			view_put(w, s + i, 1, i);
			i++;
			continue;
		}
		while (semi < b && semi - i < 12 && s[semi] != ';')
			semi++;
		if (semi < b && s[semi] == ';') {
			const char *ent = s + i + 1;
			size_t el = semi - i - 1;

			if (el > 1 && ent[0] == '#') {
				uint32_t cp = 0;
				int hex = ent[1] == 'x' || ent[1] == 'X', ok = 1;

				for (size_t k = hex ? 2 : 1; k < el && ok; k++) {
					unsigned char ch = (unsigned char)ent[k];
					int d = hex ? hexval(ch) : is_digit(ch) ? ch - '0' : -1;

					ok = d >= 0 && cp < 0x110000;
					cp = cp * (hex ? 16 : 10) + (uint32_t)(d < 0 ? 0 : d);
				}
				if (ok && el > (size_t)(hex ? 2 : 1) && cp && cp < 0x110000 &&
				    (cp < 0xd800 || cp > 0xdfff)) {
					view_put(w, buf, utf8_put(buf, cp), i);
					done = 1;
				}
			} else if ((bytes = named_entity(ent, el))) {
				view_put(w, bytes, strlen(bytes), i);
				done = 1;
			}
		}
		if (done) {
			i = semi + 1;
		} else {
			view_put(w, s + i, 1, i);
			i++;
		}
	}
}

static int html_segment(struct redactor *r, struct view *w, const char *s, size_t a, size_t b,
			size_t *emitted, struct strbuf *out)
{
	if (b <= a)
		return 0;
	html_view(w, s, a, b);
	return scan_view(r, w, b, s, emitted, out);
}

/* Case-insensitive search for the lowercase needle in s[from, n). */
static size_t find_ci(const char *s, size_t n, size_t from, const char *needle)
{
	size_t nl = strlen(needle);

	for (size_t i = from; i + nl <= n; i++)
		if (eq_ci(s + i, nl, needle))
			return i;
	return n;
}

/* HTML: text between tags and attribute values; tag and attribute names, <style>, stay. */
static int redact_html(struct redactor *r, const char *s, size_t n, struct strbuf *out)
{
	struct view w = { 0 };
	size_t i = 0, emitted = 0;
	int rc = 0;

	while (i < n && !rc) {
		size_t t, name, ne;

		if (s[i] != '<') {
			for (t = i; t < n && s[t] != '<'; t++)
				;
			rc = html_segment(r, &w, s, i, t, &emitted, out);
			i = t;
			continue;
		}
		if (i + 4 <= n && !memcmp(s + i, "<!--", 4)) {
			t = find_ci(s, n, i + 4, "-->");
			rc = html_segment(r, &w, s, i + 4, t, &emitted, out);
			i = t + 3 < n ? t + 3 : n;
			continue;
		}
		name = i + 1 + (i + 1 < n && s[i + 1] == '/');
		for (ne = name; ne < n && (is_alpha((unsigned char)s[ne]) ||
					   is_digit((unsigned char)s[ne]));
		     ne++)
			;
		for (t = ne; t < n && s[t] != '>' && !rc; t++) {
			char q = s[t];
			size_t e;

			if (q != '"' && q != '\'')
				continue;
			for (e = t + 1; e < n && s[e] != q; e++)
				;
			rc = html_segment(r, &w, s, t + 1, e, &emitted, out);
			t = e;
		}
		i = t < n ? t + 1 : n;
		/* The stylesheet comes from reports/, never from data; so would a script. */
		if (s[name - 1] != '/' &&
		    (eq_ci(s + name, ne - name, "style") || eq_ci(s + name, ne - name, "script"))) {
			char close[16];

			snprintf(close, sizeof(close), "</%s", eq_ci(s + name, ne - name, "style") ?
								   "style" : "script");
			i = find_ci(s, n, i, close);
		}
	}
	if (!rc && out && n > emitted)
		strbuf__append(out, s + emitted, n - emitted);
	free(w.v);
	free(w.map);
	return rc;
}

/* ---- files ---- */


/* Write data to path through a temporary in the same directory, then rename over it. */
static int replace_file(const char *path, const char *data, size_t len)
{
	char tmp[4200];
	const char *slash = strrchr(path, '/');
	int fd, err;

	if (snprintf(tmp, sizeof(tmp), "%.*s.redact-%s", slash ? (int)(slash - path + 1) : 0,
		     path, slash ? slash + 1 : path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	err = fd__write_all(fd, data, len);
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

static unsigned int path_ctx(const char *path)
{
	size_t n = strlen(path);

	if (!strcmp(path, "/proc/sys/kernel/hostname"))
		return REDACT_HOSTNAME;
	if (!strcmp(path, "/proc/sys/kernel/domainname"))
		return REDACT_DOMAIN;
	if (n >= 8 && !strcmp(path + n - 8, "/cmdline"))
		return REDACT_CMDLINE;
	return REDACT_TEXT;
}

/*
 * A capture stream, record by record. Written anew with the capture writer,
 * so a repeat ('=') is written only where the redacted bytes repeat, and
 * every length is that of the redacted payload.
 */
static int capture_file(struct redactor *r, const char *dir, const char *rel, int learn,
			char *err, size_t errlen)
{
	struct capture_stream st = { 0 };
	struct capture_writer w = { 0 };
	struct strbuf path = { 0 }, payload = { 0 };
	char full[4200], raw_dir[4200], stream[512], tmp[4800];
	const char *base = strrchr(rel, '/');
	char *text = NULL;
	size_t len = 0, bl;
	int rc, wopen = 0;

	snprintf(full, sizeof(full), "%s/%s", dir, rel);
	base = base ? base + 1 : rel;
	bl = strlen(base);
	snprintf(raw_dir, sizeof(raw_dir), "%s/%.*s", dir, (int)(base - rel), rel);
	snprintf(stream, sizeof(stream), "%.*s", (int)(bl - 4), base);
	rc = file__read_bounded(AT_FDCWD, full, REDACT_FILE_MAX, &text, &len);
	if (rc) {
		snprintf(err, errlen, "%s: %s", rel, strerror(-rc));
		return rc;
	}
	st.name = (char *)rel;
	rc = capture_stream__parse(&st, text, len, err, errlen);
	if (rc)
		goto cleanup;
	if (!learn) {
		/* ".redact-NAME" is skipped by capture readers and renamed before anyone looks. */
		snprintf(tmp, sizeof(tmp), "%s/.redact-%s.cap", raw_dir, stream);
		unlink(tmp);
		snprintf(tmp, sizeof(tmp), ".redact-%s", stream);
		rc = capture_writer__open(&w, raw_dir, tmp);
		if (rc) {
			snprintf(err, errlen, "%s: writing its redacted copy: %s", rel,
				 strerror(-rc));
			goto cleanup;
		}
		wopen = 1;
	}
	for (size_t i = 0; i < st.n && !rc; i++) {
		const struct capture_rec *c = &st.rec[i];
		unsigned int ctx = path_ctx(c->path) | (c->truncated ? REDACT_TRUNCATED : 0);

		if (learn) {
			rc = plain(r, c->path, strlen(c->path), REDACT_TEXT, NULL);
			if (!rc && !c->err)
				rc = plain(r, c->data, c->len, ctx, NULL);
			continue;
		}
		path.len = 0;
		payload.len = 0;
		strbuf__append(&path, "", 0);
		strbuf__append(&payload, "", 0);
		rc = plain(r, c->path, strlen(c->path), REDACT_TEXT, &path);
		if (!rc && !c->err)
			rc = plain(r, c->data, c->len, ctx, &payload);
		if (rc)
			break;
		if (c->err)
			rc = capture_writer__error(&w, c->seq, c->wall_ns, c->mono_ns, path.buf,
						   c->err);
		else
			rc = capture_writer__record(&w, c->seq, c->wall_ns, c->mono_ns, path.buf,
						    payload.buf, payload.len, c->truncated);
		if (rc)
			snprintf(err, errlen, "%s: writing its redacted copy: %s", rel,
				 strerror(-rc));
	}
	if (rc == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", rel);
	if (wopen) {
		int crc = capture_writer__close(&w);

		wopen = 0;
		if (!rc && crc) {
			rc = crc;
			snprintf(err, errlen, "%s: writing its redacted copy: %s", rel,
				 strerror(-rc));
		}
		snprintf(tmp, sizeof(tmp), "%s/.redact-%s.cap", raw_dir, stream);
		if (!rc && rename(tmp, full)) {
			rc = -errno;
			snprintf(err, errlen, "%s: %s", rel, strerror(-rc));
		}
		if (rc)
			unlink(tmp);
	}
cleanup:
	free(st.text);
	free(st.rec);
	strbuf__free(&path);
	strbuf__free(&payload);
	return rc;
}

static int ends_with(const char *s, const char *suf)
{
	size_t n = strlen(s), k = strlen(suf);

	return n >= k && !strcmp(s + n - k, suf);
}

static int one_file(struct redactor *r, const char *dir, const char *rel, int learn, char *err,
		    size_t errlen)
{
	struct strbuf out = { 0 };
	char full[4200], *text = NULL;
	size_t len = 0;
	int rc;

	if (ends_with(rel, ".cap"))
		return capture_file(r, dir, rel, learn, err, errlen);
	snprintf(full, sizeof(full), "%s/%s", dir, rel);
	rc = file__read_bounded(AT_FDCWD, full, REDACT_FILE_MAX, &text, &len);
	if (rc) {
		snprintf(err, errlen, "%s: %s", rel, strerror(-rc));
		return rc;
	}
	if (!learn)
		strbuf__append(&out, "", 0);
	if (ends_with(rel, ".json"))
		rc = redact_json(r, text, len, learn ? NULL : &out);
	else if (ends_with(rel, ".md"))
		rc = redact_md(r, text, len, learn ? NULL : &out);
	else if (ends_with(rel, ".html") || ends_with(rel, ".htm"))
		rc = redact_html(r, text, len, learn ? NULL : &out);
	else
		rc = plain(r, text, len, REDACT_TEXT, learn ? NULL : &out);
	if (!rc && out.oom)
		rc = -ENOMEM;
	if (rc)
		snprintf(err, errlen, "%s: %s", rel,
			 rc == -ENOMEM ? "out of memory" : strerror(-rc));
	if (!rc && !learn) {
		rc = replace_file(full, out.buf, out.len);
		if (rc)
			snprintf(err, errlen, "writing %s: %s", rel, strerror(-rc));
	}
	strbuf__free(&out);
	free(text);
	return rc;
}

struct file_list {
	char **v;
	size_t n, cap;
};

static int list_files(const char *dir, const char *rel, int depth, struct file_list *fl)
{
	char path[4200];
	struct dirent *de;
	DIR *d;
	int rc = 0;

	if (depth > REDACT_MAX_DEPTH)
		return -ELOOP;
	snprintf(path, sizeof(path), "%s%s%s", dir, *rel ? "/" : "", rel);
	d = opendir(path);
	if (!d)
		return -errno;
	while (!rc && (de = readdir(d))) {
		char sub[4200], child[4400];
		struct stat sb;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", de->d_name);
		snprintf(child, sizeof(child), "%s/%s", dir, sub);
		if (lstat(child, &sb)) {
			rc = -errno;
			break;
		}
		if (S_ISDIR(sb.st_mode)) {
			rc = list_files(dir, sub, depth + 1, fl);
		} else if (S_ISREG(sb.st_mode) && !(depth == 0 && !strcmp(sub, "manifest.json"))) {
			if (fl->n == fl->cap) {
				size_t ncap = fl->cap ? fl->cap * 2 : 32;
				char **nv = realloc(fl->v, ncap * sizeof(*nv));

				if (!nv) {
					rc = -ENOMEM;
					break;
				}
				fl->v = nv;
				fl->cap = ncap;
			}
			fl->v[fl->n] = strdup(sub);
			if (!fl->v[fl->n]) {
				rc = -ENOMEM;
				break;
			}
			fl->n++;
		}
	}
	closedir(d);
	return rc;
}

/* The host's captures first (host-1 is the host itself), then the captures, then the rest. */
static int file_rank(const char *rel)
{
	if (!strcmp(rel, "raw/host.cap") || !strcmp(rel, "host.cap"))
		return 0;
	return ends_with(rel, ".cap") ? 1 : 2;
}

static int file_cmp(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	int rx = file_rank(x), ry = file_rank(y);

	return rx != ry ? rx - ry : strcmp(x, y);
}

static int each_file(struct redactor *r, const char *dir, int learn, char *err, size_t errlen)
{
	struct file_list fl = { 0 };
	int rc = list_files(dir, "", 0, &fl);

	if (rc)
		snprintf(err, errlen, "listing %s: %s", dir, strerror(-rc));
	else
		qsort(fl.v, fl.n, sizeof(*fl.v), file_cmp);
	for (size_t i = 0; i < fl.n && !rc; i++)
		rc = one_file(r, dir, fl.v[i], learn, err, errlen);
	for (size_t i = 0; i < fl.n; i++)
		free(fl.v[i]);
	free(fl.v);
	return rc;
}

int redactor__learn_dir(struct redactor *r, const char *dir, char *err, size_t errlen)
{
	return each_file(r, dir, 1, err, errlen);
}

int redactor__apply_file(struct redactor *r, const char *dir, const char *rel, char *err,
			 size_t errlen)
{
	return one_file(r, dir, rel, 0, err, errlen);
}

int redactor__apply_dir(struct redactor *r, const char *dir, char *err, size_t errlen)
{
	return each_file(r, dir, 0, err, errlen);
}

/* ---- the mapping ---- */

int redactor__write_map(struct redactor *r, const char *path, char *err, size_t errlen)
{
	static const struct {
		enum kind kind;
		const char *name;
	} sections[] = {
		{ K_HOST, "hostname" }, { K_DOMAIN, "domain" }, { K_USER, "user" },
		{ K_V4, "ipv4" },       { K_V6, "ipv6" },       { K_MAC, "mac" },
	};
	struct json j = { .pretty = 1 };
	int fd, rc = 0;

	freeze(r);
	json__begin_object(&j);
	json__key(&j, "schema");
	json__string(&j, REDACT_MAP_SCHEMA);
	for (size_t s = 0; s < sizeof(sections) / sizeof(*sections); s++) {
		json__key(&j, sections[s].name);
		json__begin_object(&j);
		for (size_t i = 0; i < r->n; i++) {
			const struct entry *e = &r->e[i];

			if (e->kind != sections[s].kind || !e->orig || !e->pseudo ||
			    !strcmp(e->orig, e->pseudo))
				continue;
			json__key(&j, e->orig);
			json__string(&j, e->pseudo);
		}
		json__end_object(&j);
	}
	json__end_object(&j);
	strbuf__puts(&j.out, "\n");
	if (j.out.oom || r->oom) {
		snprintf(err, errlen, "writing %s: out of memory", path);
		strbuf__free(&j.out);
		return -ENOMEM;
	}
	/* It says who the pseudonyms are: only its owner reads it, and it never replaces a file. */
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		strbuf__free(&j.out);
		return rc;
	}
	rc = fd__write_all(fd, j.out.buf, j.out.len);
	if (!rc && fsync(fd))
		rc = -errno;
	if (close(fd) && !rc)
		rc = -errno;
	if (rc) {
		snprintf(err, errlen, "writing %s: %s", path, strerror(-rc));
		unlink(path);
	}
	strbuf__free(&j.out);
	return rc;
}

struct redactor *redact__dir(const char *dir, const char *command, char **command_out,
			     char *err, size_t errlen)
{
	struct redactor *r = redactor__new();
	int rc = r ? 0 : -ENOMEM;

	if (!rc)
		rc = redactor__learn_dir(r, dir, err, errlen);
	if (!rc && command)
		rc = redactor__learn(r, command, strlen(command), REDACT_CMDLINE);
	if (!rc)
		rc = redactor__apply_dir(r, dir, err, errlen);
	if (!rc && command &&
	    !(*command_out = redactor__text(r, command, strlen(command), REDACT_CMDLINE, NULL)))
		rc = -ENOMEM;
	if (rc) {
		/* learn_dir and apply_dir name the file; the others only fail for memory */
		if (!err[0])
			snprintf(err, errlen, "%s", strerror(-rc));
		redactor__free(r);
		return NULL;
	}
	return r;
}
