/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Redaction: a bundle that can leave the building. Host names, domains, user
 * names, IPv4/IPv6 and MAC addresses are replaced by pseudonyms that are
 * consistent within one redactor (the same input gives the same pseudonym in
 * every file), and secrets (--password=..., token=..., Bearer ..., the
 * password of scheme://user:pass@host) are replaced by "REDACTED" and kept
 * nowhere. docs/redaction.md says what is caught and what is not.
 *
 * Use: learn from every text first (redactor__learn_dir, redactor__learn), so
 * that names seen anywhere are replaced everywhere and no pseudonym is handed
 * out that equals an address or name seen as an original; then rewrite
 * (redactor__apply_dir, redactor__text); then write the mapping, outside the
 * bundle (redactor__write_map). Learning after the first rewrite still works
 * (a new name gets its pseudonym at once).
 *
 * Rewriting is idempotent: a pseudonym this redactor handed out is kept as it
 * is when it is met again, so a text derived from already redacted captures
 * can go through the same redactor once more.
 */
#ifndef SONDE_REDACT_H
#define SONDE_REDACT_H

#include <stddef.h>

/* What a text is: where names may be learned, and how its end is to be read. */
enum redact_ctx {
	REDACT_TEXT = 0,
	REDACT_CMDLINE = 1 << 0,   /* a command line: URLs, user@host, secret values teach names */
	REDACT_HOSTNAME = 1 << 1,  /* the whole text is the host's name (kernel.hostname) */
	REDACT_DOMAIN = 1 << 2,    /* the whole text is the host's domain (kernel.domainname) */
	REDACT_TRUNCATED = 1 << 3, /* cut at a cap: its last token is partial and is dropped */
	/*
	 * An argv, NUL-separated (/proc/PID/cmdline): an element is the unit, so
	 * a secret's value runs to the end of its element, blanks included.
	 */
	REDACT_ARGV = 1 << 4,
	/*
	 * sonde:containers (docs/capture-format.md): "KEY TAB FIELD TAB VALUE" lines whose
	 * values of the naming fields are workload names (container, pod, namespace, image).
	 */
	REDACT_CONTAINERS = 1 << 5,
};

struct redactor;

struct redactor *redactor__new(void);
void redactor__free(struct redactor *r);

/* Learn names, secret values and the addresses in use from one text. 0 or -ENOMEM. */
int redactor__learn(struct redactor *r, const char *text, size_t len, unsigned int ctx);
/*
 * Learn from every regular file under dir (captures record by record, with the
 * context their path implies; JSON string values; Markdown and HTML text),
 * manifest.json at the top excepted. 0 or -errno with err.
 */
int redactor__learn_dir(struct redactor *r, const char *dir, char *err, size_t errlen);

/* The redacted copy of one text (malloc'ed, NUL-terminated, *outlen bytes), or NULL. */
char *redactor__text(struct redactor *r, const char *text, size_t len, unsigned int ctx,
		     size_t *outlen);
/*
 * Rewrite dir/rel in place (a new file renamed over it, mode 0600), by its
 * kind: *.cap record by record (payloads and paths redacted, lengths and
 * repeats written anew), *.json string values (never keys), *.md with its
 * backslash escapes read through, *.html text and attribute values (not
 * <style>), anything else as plain text. 0 or -errno with err.
 */
int redactor__apply_file(struct redactor *r, const char *dir, const char *rel, char *err,
			 size_t errlen);
/* redactor__apply_file on every regular file under dir but a top-level manifest.json. */
int redactor__apply_dir(struct redactor *r, const char *dir, char *err, size_t errlen);

/*
 * The mapping as JSON: {"schema", "hostname": {orig: pseudonym}, "domain",
 * "user", "ipv4", "ipv6", "mac"}; secrets are not in it. Created with
 * O_EXCL, mode 0600: an existing file is never replaced. 0 or -errno with err.
 */
int redactor__write_map(struct redactor *r, const char *path, char *err, size_t errlen);

/*
 * Does this URL (or any text) carry a credential the redactor would drop: a
 * password (user:password@), a user part that reads as a token, a secret
 * option or query parameter (token=, sig=, X-Amz-Signature=, or any
 * parameter whose value reads as a token)? 1, 0, or -ENOMEM.
 */
int redact__url_has_secret(const char *url);

/*
 * Redact a staging directory: learn from every file and from command (the
 * command line that made it, may be NULL), rewrite every file but
 * manifest.json (the caller writes a new one: the old hashes are wrong now).
 * Returns the redactor (for the map, and for text printed later) and, when
 * command is given, its redacted copy in *command_out (malloc'ed); NULL with
 * err on failure.
 */
struct redactor *redact__dir(const char *dir, const char *command, char **command_out,
			     char *err, size_t errlen);

#endif
