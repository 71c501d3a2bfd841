// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Redaction of captures and reports (interface and guarantees in redact.h,
 * the user's view in docs/redaction.md). This file is the redactor: its
 * index of names and addresses, the pseudonyms it hands out, learning, the
 * mapping; redact_int.h says where the rest is.
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
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bundle/redact_int.h"
#include "util/file.h"
#include "util/hash.h"
#include "util/json.h"

#define REDACT_MAP_SCHEMA "sonde.redaction-map/1"

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

struct entry *redactor__find(struct redactor *r, const char *key)
{
	size_t *s = index_slot(r, key);

	return s && *s ? &r->e[*s - 1] : NULL;
}

struct entry *redactor__add(struct redactor *r, const char *key, const char *orig, size_t origlen,
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

int redactor__stoplisted(const char *s, size_t n)
{
	return in_list(s, n, name_stoplist, sizeof(name_stoplist) / sizeof(*name_stoplist));
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

void redactor__alloc_name(struct redactor *r, struct entry *e)
{
	char cand[64], key[80];
	size_t idx = (size_t)(e - r->e);

	if (e->pseudo)
		return;
	if (e->alias) {
		size_t of = e->alias - 1;

		redactor__alloc_name(r, &r->e[of]);
		e = &r->e[idx]; /* the target's pseudonym may have moved the entries */
		e->pseudo = r->e[of].pseudo ? strdup(r->e[of].pseudo) : NULL;
		if (!e->pseudo)
			r->oom = 1;
		r->lit_dirty = 1;
		return;
	}
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
		else if (e->kind == K_WORKLOAD)
			snprintf(cand, sizeof(cand), "workload-%u", k);
		else
			snprintf(cand, sizeof(cand), "user-%u", k);
		name_key(key, sizeof(key), cand, strlen(cand));
	} while (redactor__find(r, key));
	if (!redactor__add(r, key, cand, strlen(cand), cand, K_KEEP))
		return;
	e = &r->e[idx]; /* redactor__add() may have moved the entries */
	r->e[r->n - 1].word = 1;
	e->pseudo = strdup(cand);
	if (!e->pseudo)
		r->oom = 1;
	r->lit_dirty = 1;
}

void redactor__freeze(struct redactor *r)
{
	if (r->frozen)
		return;
	/* In the order learned: host-1 is the host's own name, learned first. */
	for (size_t i = 0; i < r->n; i++)
		if (r->e[i].kind <= K_SECRET && !r->e[i].pseudo)
			redactor__alloc_name(r, &r->e[i]);
	r->frozen = 1;
}

/*
 * Learn one name. Names of one character, all digits or on the stoplist are
 * not replaced as words (only where the rule that found them stands).
 * Returns the entry index + 1, or 0 when the name is not one to learn.
 */
size_t redactor__learn_name(struct redactor *r, const char *s, size_t n, enum kind kind)
{
	char key[DNS_NAME_MAX + 8];
	struct entry *e;
	size_t id;

	if (!n || n > DNS_NAME_MAX || in_list(s, n, name_stoplist,
					      sizeof(name_stoplist) / sizeof(*name_stoplist)))
		return 0;
	/* A secret may hold blanks inside (an argv element); a name never does. */
	if (is_space((unsigned char)s[0]) || is_space((unsigned char)s[n - 1]))
		return 0;
	for (size_t i = 0; i < n; i++)
		if ((is_space((unsigned char)s[i]) || (unsigned char)s[i] < 0x20 || s[i] == 0x7f) &&
		    !(kind == K_SECRET && (s[i] == ' ' || s[i] == '\t')))
			return 0;
	name_key(key, sizeof(key), s, n);
	e = redactor__find(r, key);
	if (e)
		return (size_t)(e - r->e) + 1;
	e = redactor__add(r, key, s, n, NULL, kind);
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
		redactor__alloc_name(r, e); /* adds the pseudonym's own entry after this one */
	return id;
}

size_t redactor__learn_alias(struct redactor *r, const char *s, size_t n, size_t id)
{
	size_t aid;

	if (!id || id > r->n || r->e[id - 1].alias)
		return 0;
	aid = redactor__learn_name(r, s, n, r->e[id - 1].kind);
	if (!aid || aid == id || r->e[aid - 1].pseudo)
		return aid; /* already a name of its own, with its pseudonym: it keeps it */
	r->e[aid - 1].alias = id;
	return aid;
}

struct entry *redactor__find_name(struct redactor *r, const char *s, size_t n)
{
	char key[DNS_NAME_MAX + 8];

	if (name_key(key, sizeof(key), s, n))
		return NULL;
	return redactor__find(r, key);
}

void redactor__learn_secret(struct redactor *r, const char *s, size_t n)
{
	size_t a = 0, b;

	while (n && is_space((unsigned char)s[n - 1]))
		n--;
	while (n && is_space((unsigned char)*s))
		s++, n--;
	redactor__learn_name(r, s, n, K_SECRET);
	if (!memchr(s, ' ', n) && !memchr(s, '\t', n))
		return;
	while (a < n) {
		for (b = a; b < n && s[b] != ' ' && s[b] != '\t'; b++)
			;
		if (b - a >= SECRET_LITERAL_MIN)
			redactor__learn_name(r, s + a, b - a, K_SECRET);
		a = b + 1;
	}
}

size_t redactor__learn_user(struct redactor *r, const char *s, size_t n)
{
	if (!n || n > USER_NAME_MAX || s[0] == '.' || s[0] == '-')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!is_user_char((unsigned char)s[i]))
			return 0;
	return redactor__learn_name(r, s, n, K_USER);
}

/*
 * A DNS name: the host's own (system: its first label is the host, the rest
 * its domain), or one found in a command line, where a.b is a domain and
 * a.b.c a host a in domain b.c. Addresses and names without a letter are not
 * names.
 */
void redactor__learn_dns(struct redactor *r, const char *s, size_t n, int system)
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
		redactor__learn_name(r, s, n, K_HOST);
	} else if (system || labels >= 3) {
		redactor__learn_name(r, s, dot, K_HOST);
		redactor__learn_name(r, s + dot + 1, n - dot - 1, K_DOMAIN);
	} else {
		redactor__learn_name(r, s, n, K_DOMAIN);
	}
}

void redactor__build_literals(struct redactor *r)
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

/* ---- the mapping ---- */

int redactor__write_map(struct redactor *r, const char *path, char *err, size_t errlen)
{
	static const struct {
		enum kind kind;
		const char *name;
	} sections[] = {
		{ K_HOST, "hostname" }, { K_DOMAIN, "domain" }, { K_USER, "user" },
		{ K_WORKLOAD, "workload" },
		{ K_V4, "ipv4" },       { K_V6, "ipv6" },       { K_MAC, "mac" },
	};
	struct json j = { .pretty = 1 };
	int fd, rc = 0;

	redactor__freeze(r);
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
