// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The scan over one view of a text, and its rules, tried in this order at
 * each position (what each catches: redact.c's opening comment and
 * docs/redaction.md): cut token, URL, secret, bearer, home, user@host, MAC,
 * IPv6, IPv4 (those three in redact_addr.c), learned names.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/redact_int.h"

/* The name at [a, b) replaced by its pseudonym (learned now if new); REDACTED if not a name. */
static void replace_name(struct scan *sc, size_t a, size_t b, enum kind kind)
{
	struct redactor *r = sc->r;
	size_t id = kind == K_USER ? redactor__learn_user(r, sc->v + a, b - a) :
				     redactor__learn_name(r, sc->v + a, b - a, kind);

	if (!id) {
		/* Not a name to keep a pseudonym for: stoplisted, it stays; anything else goes. */
		if (!redactor__stoplisted(sc->v + a, b - a))
			redact__replace(sc, a, b, REDACTED);
		return;
	}
	redactor__alloc_name(r, &r->e[id - 1]);
	/* A pseudonym met again stays byte for byte (an escaped "user\-1" too). */
	if (r->e[id - 1].pseudo && r->e[id - 1].kind != K_KEEP)
		redact__replace(sc, a, b, r->e[id - 1].pseudo);
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
		redact__replace(sc, i, j, REDACTED);
	return j;
}

static void secret_value_learn(struct scan *sc, size_t a, size_t b)
{
	if (!(sc->ctx & REDACT_CMDLINE) || b <= a)
		return;
	/* A value the cap cut: the fragment set aside after it is part of it. */
	if ((sc->ctx & REDACT_TRUNCATED) && b == sc->n && sc->full > sc->n)
		b = sc->full;
	redactor__learn_secret(sc->r, sc->v + a, b - a);
}

static void drop_secret(struct scan *sc, size_t a, size_t b)
{
	if (b <= a)
		return;
	sc->secrets++;
	if (learning(sc)) {
		secret_value_learn(sc, a, b);
		return;
	}
	/* A value that runs into the cut: it and the fragment after it are one secret. */
	if ((sc->ctx & REDACT_TRUNCATED) && b == sc->n && sc->full > sc->n)
		b = sc->full;
	redact__replace(sc, a, b, REDACTED);
}

static int char_class(unsigned char c)
{
	return is_digit(c) ? 0 : (c >= 'a' && c <= 'z') ? 1 : (c >= 'A' && c <= 'Z') ? 2 : 3;
}

/*
 * A value that reads as a token rather than a name: 20 bytes or more of the
 * alphabets tokens are written in (base64, base64url, hex, percent-encoded;
 * dots only in a JWT), letters and digits both, and as mixed as random text
 * is: a class change (digit, lower, upper, other) at a third of the bytes
 * or more. A random base64 string changes at about 0.6 of them, hex at 0.45;
 * "sonde-vm-20261129T074643Z" at 0.3, a word never has a digit.
 */
static int token_like(const char *s, size_t n)
{
	int letter = 0, digit = 0, jwt = n > 3 && !memcmp(s, "eyJ", 3);
	size_t changes = 0;

	if (n < 20)
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!is_alpha(c) && !is_digit(c) && !strchr("-_~+/=%", c) && !(jwt && c == '.'))
			return 0;
		letter |= is_alpha(c);
		digit |= is_digit(c);
		changes += i && char_class(c) != char_class((unsigned char)s[i - 1]);
	}
	return letter && digit && changes * 3 >= n;
}

/* scheme://user:pass@host: the password dropped, the user pseudonymized. */
static size_t rule_url(struct scan *sc, size_t i)
{
	const char *v = sc->v;
	size_t j = i, a, e, at = 0, colon = 0;
	int token;

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
				redactor__learn_dns(sc->r, v + a, he - a, 0);
		}
		return 0;
	}
	for (size_t k = a; k < at; k++)
		if (v[k] == ':') {
			colon = k;
			break;
		}
	token = !colon && (at - a > 32 || token_like(v + a, at - a));
	sc->secrets += token || (colon && at > colon + 1);
	if (learning(sc)) {
		size_t he = at + 1;

		if (token)
			secret_value_learn(sc, a, at);
		else
			redactor__learn_user(sc->r, v + a, (colon ? colon : at) - a);
		if (colon)
			secret_value_learn(sc, colon + 1, at);
		if (sc->ctx & REDACT_CMDLINE) {
			while (he < e && v[he] != ':' && v[he] != '[')
				he++;
			if (he == e || v[he] == ':')
				redactor__learn_dns(sc->r, v + at + 1, he - at - 1, 0);
		}
		return at + 1;
	}
	if ((colon ? colon : at) > a) {
		/* A long user part without a password is more likely a token than a person. */
		if (token)
			redact__replace(sc, a, at, REDACTED);
		else
			replace_name(sc, a, colon ? colon : at, K_USER);
	}
	if (colon && at > colon + 1)
		redact__replace(sc, colon + 1, at, REDACTED);
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

/*
 * A query parameter that carries a credential though its name says no
 * "token" or "password": pre-signed URLs (S3's X-Amz-Signature, GCS's
 * X-Goog-Signature, Azure's sig), OAuth's code, session ids.
 */
static int query_secret_name(const char *k, size_t n)
{
	static const char *const names[] = { "sig", "code", "sid", "session", "sessionid", "jwt",
					     "hmac" };

	if (ends_ci(k, n, "signature"))
		return 1;
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (eq_ci(k, n, names[i]))
			return 1;
	return 0;
}

/*
 * The value of a secret: up to a blank (in an argv, up to the end of its
 * element: blanks are part of it), and in a query string up to & or #.
 */
static size_t value_end(const struct scan *sc, size_t i, int query)
{
	int argv = sc->ctx & REDACT_ARGV;

	while (i < sc->n) {
		unsigned char c = (unsigned char)sc->v[i];

		if (argv ? !c : (is_space(c) || c < 0x20 || c == 0x7f))
			break;
		if (query && (c == '&' || c == '#'))
			break;
		i++;
	}
	return i;
}

/* Blank-separated words a learned secret may run over when a text joins argv with spaces. */
#define SECRET_MAX_WORDS 16

/*
 * A value that ends at a blank here may be an argv element with blanks in it,
 * learned whole from the command line it came from (a report joins argv with
 * spaces): the longest learned secret that starts at vs and ends at a blank
 * or the end, or e.
 */
static size_t secret_extend(struct scan *sc, size_t vs, size_t e)
{
	size_t best = e, k = e;

	if (learning(sc) || (sc->ctx & REDACT_ARGV) || e <= vs)
		return e;
	for (int w = 0; w < SECRET_MAX_WORDS && k < sc->n; w++) {
		const struct entry *en;

		if (sc->v[k] != ' ' && sc->v[k] != '\t')
			break;
		while (k < sc->n && (sc->v[k] == ' ' || sc->v[k] == '\t'))
			k++;
		k = value_end(sc, k, 0);
		if (k - vs > DNS_NAME_MAX)
			break;
		en = redactor__find_name(sc->r, sc->v + vs, k - vs);
		if (en && en->kind == K_SECRET)
			best = k;
	}
	return best;
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
	e = secret_extend(sc, i, value_end(sc, i, 0));
	drop_secret(sc, i, e);
	return e > i ? e : 0;
}

static size_t rule_secret(struct scan *sc, size_t i)
{
	const char *v = sc->v;
	size_t j = i, vs, e;
	int letter = 0, query = 0;

	if (!key_char((unsigned char)v[i]) || (i && key_char((unsigned char)v[i - 1])))
		return 0;
	while (j < sc->n && key_char((unsigned char)v[j]) && j - i < 128)
		letter |= is_alpha((unsigned char)v[j++]);
	if (!letter || j >= sc->n)
		return 0;
	if (v[j] == '=') {
		query = i && (v[i - 1] == '?' || v[i - 1] == '&' || v[i - 1] == ';');
		vs = j + 1;
		e = value_end(sc, vs, query);
		/* A query parameter is a credential by its name, or by a value that reads as one. */
		if (!secret_name(v + i, j - i) &&
		    !(query && (query_secret_name(v + i, j - i) || token_like(v + vs, e - vs))))
			return 0;
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
	if (!query)
		e = secret_extend(sc, vs, e);
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
	e = secret_extend(sc, j, value_end(sc, j, 0));
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
	for (b = a; b < sc->n && is_user_char((unsigned char)sc->v[b]); b++)
		;
	if (b == a || sc->v[a] == '.' || sc->v[a] == '-' || b - a > USER_NAME_MAX)
		return 0;
	if (learning(sc))
		redactor__learn_user(sc->r, sc->v + a, b - a);
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

	if (!learning(sc) || !(sc->ctx & REDACT_CMDLINE) || !is_user_char((unsigned char)v[i]) ||
	    (i && is_user_char((unsigned char)v[i - 1])))
		return 0;
	for (at = i; at < sc->n && is_user_char((unsigned char)v[at]); at++)
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
		redactor__learn_user(sc->r, v + i, at - i);
	redactor__learn_dns(sc->r, v + at + 1, e - at - 1, 0);
	return e;
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
			redact__replace(sc, i, i + wl, e->pseudo ? e->pseudo : REDACTED);
		return i + wl;
	}
	return 0;
}

void redact__scan(struct scan *sc)
{
	size_t i = 0, full = sc->n;

	/*
	 * A text cut at a cap: its last token is a fragment of something no rule
	 * can recognise any more. It is dropped here, and wherever else it shows
	 * up (a report quoting the same cut command line).
	 */
	sc->full = full;
	if (sc->ctx & REDACT_TRUNCATED) {
		while (sc->n && !is_space((unsigned char)sc->v[sc->n - 1]))
			sc->n--;
		if (learning(sc) && full - sc->n >= 3)
			redactor__learn_name(sc->r, sc->v + sc->n, full - sc->n, K_SECRET);
	}
	if (!learning(sc)) {
		redactor__freeze(sc->r);
		redactor__build_literals(sc->r);
	}
	while (i < sc->n) {
		size_t next;

		if ((next = rule_cut(sc, i)) || (next = rule_url(sc, i)) ||
		    (next = rule_secret(sc, i)) || (next = rule_bearer(sc, i)) ||
		    (next = rule_home(sc, i)) || (next = rule_userhost(sc, i)) ||
		    (next = redact__rule_mac(sc, i)) || (next = redact__rule_ipv6(sc, i)) ||
		    (next = redact__rule_ipv4(sc, i)) || (next = rule_names(sc, i))) {
			/* replace() may have learned a name: the literal table follows. */
			if (!learning(sc) && sc->r->lit_dirty)
				redactor__build_literals(sc->r);
			i = next;
			continue;
		}
		i++;
	}
	/* The cut last token, unless a secret running into it took it already. */
	if (sc->n < full && (!sc->out || *sc->emitted < src_at(sc, full)))
		redact__replace(sc, sc->n, full, REDACTED);
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
		redactor__learn_dns(r, s, n, 1);
	else if (n)
		redactor__learn_name(r, s, n, K_DOMAIN);
}

/*
 * A workload name, and the spelling systemd gives it in a unit's name (a machine "build-box"
 * is in the cgroup path "systemd-nspawn@build\x2dbox.service"): one pseudonym for both, so a
 * redacted path still names the container its record does.
 */
static void learn_workload(struct redactor *r, const char *s, size_t n)
{
	size_t id = redactor__learn_name(r, s, n, K_WORKLOAD);
	char esc[DNS_NAME_MAX * 4 + 1];
	size_t o = 0;

	for (size_t i = 0; id && i < n && o + 5 < sizeof(esc); i++) {
		unsigned char c = (unsigned char)s[i];

		if (is_alpha(c) || is_digit(c) || c == '_' || c == ':' || (c == '.' && i))
			esc[o++] = (char)c;
		else
			o += (size_t)snprintf(esc + o, sizeof(esc) - o, "\\x%02x", c);
	}
	if (id && (o != n || memcmp(esc, s, n)))
		redactor__learn_alias(r, esc, o, id);
}

/*
 * The workload names of sonde:containers, each value of a naming field learned whole: a
 * container's name (which may be its runc id, the line's key: that goes too, and the cgroup
 * paths that hold it), its Kubernetes container, pod and namespace names, its image.
 */
static void learn_containers(struct redactor *r, const char *s, size_t n)
{
	static const char *const fields[] = { "name", "image", "k8s-container", "pod-name",
					      "pod-namespace", "namespace" };
	/* Kubernetes' own namespaces name no one's workload, and "default" is a common word */
	static const char *const builtin[] = { "default", "kube-system", "kube-public",
					       "kube-node-lease" };

	for (const char *p = s, *e = s + n; p < e;) {
		const char *nl = memchr(p, '\n', (size_t)(e - p)), *le = nl ? nl : e;
		const char *t1 = memchr(p, '\t', (size_t)(le - p));
		const char *t2 = t1 ? memchr(t1 + 1, '\t', (size_t)(le - t1 - 1)) : NULL;

		int skip = 0;

		for (size_t i = 0; t2 && i < sizeof(builtin) / sizeof(*builtin); i++)
			skip |= strlen(builtin[i]) == (size_t)(le - t2 - 1) &&
				!memcmp(builtin[i], t2 + 1, (size_t)(le - t2 - 1));
		for (size_t i = 0; t2 && !skip && i < sizeof(fields) / sizeof(*fields); i++)
			if (strlen(fields[i]) == (size_t)(t2 - t1 - 1) &&
			    !memcmp(fields[i], t1 + 1, (size_t)(t2 - t1 - 1)) &&
			    /* containerd's namespace (k8s.io, moby) is the runtime's, not a name */
			    (strcmp(fields[i], "namespace") || !strncmp(p, "pod:", 4)))
				learn_workload(r, t2 + 1, (size_t)(le - t2 - 1));
		p = le + 1;
	}
}

int redact__plain(struct redactor *r, const char *s, size_t n, unsigned int ctx,
		  struct strbuf *out)
{
	size_t emitted = 0;
	struct scan sc = {
		.r = r, .v = s, .n = n, .src = s, .emitted = &emitted, .out = out, .ctx = ctx,
	};

	if (!out && (ctx & (REDACT_HOSTNAME | REDACT_DOMAIN)))
		learn_host_record(r, s, n, ctx);
	if (!out && (ctx & REDACT_CONTAINERS))
		learn_containers(r, s, n);
	redact__scan(&sc);
	if (out && n > emitted)
		strbuf__append(out, s + emitted, n - emitted);
	return r->oom || (out && out->oom) ? -ENOMEM : 0;
}

/* ---- the redactor's interface ---- */

int redactor__learn(struct redactor *r, const char *text, size_t len, unsigned int ctx)
{
	return redact__plain(r, text, len, ctx, NULL);
}

char *redactor__text(struct redactor *r, const char *text, size_t len, unsigned int ctx,
		     size_t *outlen)
{
	struct strbuf out = { 0 };

	strbuf__append(&out, "", 0);
	if (redact__plain(r, text, len, ctx, &out)) {
		strbuf__free(&out);
		return NULL;
	}
	if (outlen)
		*outlen = out.len;
	return out.buf;
}

int redact__url_has_secret(const char *url)
{
	struct redactor *r = redactor__new();
	size_t emitted = 0, n;
	struct scan sc = {
		.r = r, .v = url, .n = strlen(url), .src = url, .emitted = &emitted,
		.ctx = REDACT_CMDLINE,
	};

	if (!r)
		return -ENOMEM;
	redact__scan(&sc);
	n = sc.secrets;
	redactor__free(r);
	return n > 0;
}
