// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sonde run --upload: the finished bundle to a URL through libcurl (upload.h).
 * One easy handle per attempt, so a retry starts from a clean state; the
 * bundle is read, never moved or removed. Only https, http and sftp are
 * allowed, redirects are not followed (a redirect must not send a bundle
 * somewhere the user did not name), the peer is verified (TLS certificates;
 * for SFTP, ~/.ssh/known_hosts), and a transfer that stalls is given up.
 *
 * libcurl is opened when an upload starts (dlopen), not linked: linked, it
 * mapped its TLS, Kerberos, LDAP, SSH and IDN libraries (24 in all) into
 * every run, 5 MB of sonde's RSS and their relocations at each start, for an
 * option most runs do not use. Its header still gives the types and options.
 */
#include <curl/curl.h>
#ifndef SONDE_STATIC
#include <dlfcn.h>
#endif
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bundle/upload.h"
#include "util/clock.h"

#define UPLOAD_CONNECT_TIMEOUT_S 30L
/* A transfer slower than this many bytes per second for UPLOAD_STALL_S is given up. */
#define UPLOAD_STALL_BYTES_PER_S 1024L
#define UPLOAD_STALL_S 60L
#define UPLOAD_MAX_WAIT_S 60.0
/* What a server says with an error, kept for the message (one line). */
#define UPLOAD_REPLY_KEPT 200

static const char *const schemes[] = { "https://", "http://", "sftp://" };

/* The libcurl functions used here, found in the library when an upload starts. */
static struct {
	CURLcode (*global_init)(long flags);
	void (*global_cleanup)(void);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *c, CURLoption opt, ...);
	CURLcode (*easy_perform)(CURL *c);
	CURLcode (*easy_getinfo)(CURL *c, CURLINFO info, ...);
	void (*easy_cleanup)(CURL *c);
	const char *(*easy_strerror)(CURLcode cc);
	struct curl_slist *(*slist_append)(struct curl_slist *l, const char *s);
	void (*slist_free_all)(struct curl_slist *l);
	curl_mime *(*mime_init)(CURL *c);
	curl_mimepart *(*mime_addpart)(curl_mime *m);
	CURLcode (*mime_name)(curl_mimepart *part, const char *name);
	CURLcode (*mime_filedata)(curl_mimepart *part, const char *path);
	CURLcode (*mime_data)(curl_mimepart *part, const char *data, size_t len);
	void (*mime_free)(curl_mime *m);
} cu;

#ifndef SONDE_STATIC /* the static build opens no library: no symbols to find */
#define CU_SYM(field, name) { offsetof(__typeof__(cu), field), name }
static const struct {
	size_t off;
	const char *name;
} cu_syms[] = {
	CU_SYM(global_init, "curl_global_init"),
	CU_SYM(global_cleanup, "curl_global_cleanup"),
	CU_SYM(easy_init, "curl_easy_init"),
	CU_SYM(easy_setopt, "curl_easy_setopt"),
	CU_SYM(easy_perform, "curl_easy_perform"),
	CU_SYM(easy_getinfo, "curl_easy_getinfo"),
	CU_SYM(easy_cleanup, "curl_easy_cleanup"),
	CU_SYM(easy_strerror, "curl_easy_strerror"),
	CU_SYM(slist_append, "curl_slist_append"),
	CU_SYM(slist_free_all, "curl_slist_free_all"),
	CU_SYM(mime_init, "curl_mime_init"),
	CU_SYM(mime_addpart, "curl_mime_addpart"),
	CU_SYM(mime_name, "curl_mime_name"),
	CU_SYM(mime_filedata, "curl_mime_filedata"),
	CU_SYM(mime_data, "curl_mime_data"),
	CU_SYM(mime_free, "curl_mime_free"),
};
#endif

int upload__built_in(char *err, size_t errlen)
{
#ifdef SONDE_STATIC
	/*
	 * The static build (make static) cannot open libcurl: dlopen from a static
	 * binary loads the host's libc beside the one inside it. Linking libcurl
	 * in would not do either: its name resolution goes through the host's NSS
	 * modules (dlopen again), and its TLS needs the host's CA store, whose
	 * path differs by distribution.
	 */
	snprintf(err, errlen, "this is the static build of sonde, which cannot upload: copy the "
		 "bundle with scp or sftp, or use a packaged sonde for --upload");
	return -ENOTSUP;
#else
	(void)err;
	(void)errlen;
	return 0;
#endif
}

#ifdef SONDE_STATIC
static int curl_open(char *err, size_t errlen)
{
	return upload__built_in(err, errlen);
}
#else
/*
 * Open libcurl (Debian's libcurl4, or libcurl3-gnutls: the same ABI) once;
 * 0, or -ENOENT with why in err.
 */
static int curl_open(char *err, size_t errlen)
{
	static const char *const libs[] = { "libcurl.so.4", "libcurl-gnutls.so.4" };
	static int opened;
	void *h = NULL;

	if (opened)
		return 0;
	for (size_t i = 0; !h && i < sizeof(libs) / sizeof(*libs); i++)
		h = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(err, errlen, "uploading needs libcurl (Debian package libcurl4): %s",
			 dlerror());
		return -ENOENT;
	}
	for (size_t i = 0; i < sizeof(cu_syms) / sizeof(*cu_syms); i++) {
		void *f = dlsym(h, cu_syms[i].name);

		if (!f) {
			snprintf(err, errlen, "libcurl has no %s: sonde needs libcurl 7.85 or later",
				 cu_syms[i].name);
			dlclose(h);
			return -ENOENT;
		}
		memcpy((char *)&cu + cu_syms[i].off, &f, sizeof(f));
	}
	opened = 1; /* kept open: the process ends soon after an upload */
	return 0;
}
#endif

/* The scheme's length when url starts with one we take, else 0. */
static size_t scheme_len(const char *url)
{
	for (size_t i = 0; i < sizeof(schemes) / sizeof(*schemes); i++)
		if (!strncasecmp(url, schemes[i], strlen(schemes[i])))
			return strlen(schemes[i]);
	return 0;
}

int upload__url_check(const char *url, char *err, size_t errlen)
{
	size_t s = scheme_len(url);
	const char *host = url + s, *end;

	for (const char *p = url; *p; p++)
		if ((unsigned char)*p <= 0x20 || *p == 0x7f) {
			snprintf(err, errlen, "a URL has no spaces or control characters");
			return -EINVAL;
		}
	if (!s) {
		snprintf(err, errlen, "only https://, http:// and sftp:// URLs");
		return -EINVAL;
	}
	end = host + strcspn(host, "/?#");
	/* the host is what follows user:password@, if any */
	for (const char *p = host; p < end; p++)
		if (*p == '@')
			host = p + 1;
	if (host >= end) {
		snprintf(err, errlen, "the URL names no host");
		return -EINVAL;
	}
	return 0;
}

void upload__url_shown(const char *url, char *out, size_t len)
{
	size_t s = scheme_len(url), auth_end = s, k;
	const char *rest;

	for (k = s; url[k] && !strchr("/?#", url[k]); k++)
		if (url[k] == '@')
			auth_end = k + 1;
	rest = url + auth_end;
	snprintf(out, len, "%.*s%.*s", (int)s, url, (int)strcspn(rest, "?#"), rest);
}

struct reply {
	char text[UPLOAD_REPLY_KEPT + 1];
	size_t len;
};

/* The server's answer: its first bytes are kept for the message, the rest dropped. */
static size_t reply_write(char *data, size_t size, size_t n, void *arg)
{
	struct reply *r = arg;
	size_t len = size * n;

	for (size_t i = 0; i < len && r->len < UPLOAD_REPLY_KEPT; i++) {
		unsigned char c = (unsigned char)data[i];

		r->text[r->len++] = (c < 0x20 || c == 0x7f) ? ' ' : (char)c;
	}
	r->text[r->len] = '\0';
	return len;
}

/* May another attempt succeed where this one failed? */
static int transient(CURLcode cc, long status)
{
	switch (cc) {
	case CURLE_OK:
		return status == 408 || status == 425 || status == 429 || status >= 500;
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_CONNECT:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_UPLOAD_FAILED:
	case CURLE_SSH:
		return 1;
	default:
		return 0;
	}
}

struct attempt {
	CURLcode cc;
	long status;
	char why[512];
};

static void sftp_key(CURL *c);

/* The options every attempt shares. */
static void set_common(CURL *c, const struct upload_opts *o, const char *url, char *errbuf,
		       struct reply *reply, struct curl_slist *headers, const char *known_hosts)
{
	cu.easy_setopt(c, CURLOPT_URL, url);
	cu.easy_setopt(c, CURLOPT_PROTOCOLS_STR, "https,http,sftp");
	cu.easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	cu.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	cu.easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	cu.easy_setopt(c, CURLOPT_CONNECTTIMEOUT, UPLOAD_CONNECT_TIMEOUT_S);
	cu.easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, UPLOAD_STALL_BYTES_PER_S);
	cu.easy_setopt(c, CURLOPT_LOW_SPEED_TIME, UPLOAD_STALL_S);
	cu.easy_setopt(c, CURLOPT_USERAGENT, "sonde/" SONDE_VERSION);
	cu.easy_setopt(c, CURLOPT_NETRC, (long)CURL_NETRC_OPTIONAL);
	cu.easy_setopt(c, CURLOPT_WRITEFUNCTION, reply_write);
	cu.easy_setopt(c, CURLOPT_WRITEDATA, reply);
	cu.easy_setopt(c, CURLOPT_HTTPHEADER, headers);
	if (o->cacert)
		cu.easy_setopt(c, CURLOPT_CAINFO, o->cacert);
	if (known_hosts) {
		cu.easy_setopt(c, CURLOPT_SSH_KNOWNHOSTS, known_hosts);
		sftp_key(c);
	}
}

/*
 * One attempt; left_ms (> 0) is what is left of the deadline, or 0 for
 * none: the attempt ends there whatever the server does.
 */
static void attempt_once(const struct upload_opts *o, const char *url, const char *path,
			 const char *known_hosts, long left_ms, struct attempt *a)
{
	char errbuf[CURL_ERROR_SIZE] = "";
	struct reply reply = { .len = 0 };
	/* no "Expect: 100-continue": a server that ignores it would cost a second per attempt */
	struct curl_slist *headers = cu.slist_append(NULL, "Expect:");
	curl_mime *mime = NULL;
	char *auth = NULL;
	struct stat sb;
	FILE *f = NULL;
	CURL *c = cu.easy_init();

	a->status = 0;
	a->why[0] = '\0';
	if (headers && o->bearer) {
		/* In memory only: never in a URL, an argument or a file of ours. */
		if (asprintf(&auth, "Authorization: Bearer %s", o->bearer) < 0)
			auth = NULL;
		if (!auth || !cu.slist_append(headers, auth)) {
			a->cc = CURLE_OUT_OF_MEMORY;
			goto cleanup;
		}
	}
	if (!c || !headers) {
		a->cc = CURLE_OUT_OF_MEMORY;
		goto cleanup;
	}
	set_common(c, o, url, errbuf, &reply, headers, known_hosts);
	if (left_ms > 0) {
		cu.easy_setopt(c, CURLOPT_TIMEOUT_MS, left_ms);
		if (left_ms < UPLOAD_CONNECT_TIMEOUT_S * 1000)
			cu.easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, left_ms);
	}
	if (o->post) {
		curl_mimepart *part;

		mime = cu.mime_init(c);
		part = mime ? cu.mime_addpart(mime) : NULL;
		if (!part || cu.mime_name(part, "file") || cu.mime_filedata(part, path)) {
			a->cc = CURLE_OUT_OF_MEMORY;
			goto cleanup;
		}
		if (o->case_id && ((part = cu.mime_addpart(mime)) == NULL ||
				   cu.mime_name(part, "case_id") ||
				   cu.mime_data(part, o->case_id, CURL_ZERO_TERMINATED))) {
			a->cc = CURLE_OUT_OF_MEMORY;
			goto cleanup;
		}
		cu.easy_setopt(c, CURLOPT_MIMEPOST, mime);
	} else {
		f = fopen(path, "rbe");
		if (!f || fstat(fileno(f), &sb)) {
			a->cc = CURLE_READ_ERROR;
			snprintf(a->why, sizeof(a->why), "%s: %s", path, strerror(errno));
			goto cleanup;
		}
		cu.easy_setopt(c, CURLOPT_UPLOAD, 1L);
		cu.easy_setopt(c, CURLOPT_READDATA, f);
		cu.easy_setopt(c, CURLOPT_INFILESIZE_LARGE, (curl_off_t)sb.st_size);
	}
	a->cc = cu.easy_perform(c);
	cu.easy_getinfo(c, CURLINFO_RESPONSE_CODE, &a->status);
	if (a->cc != CURLE_OK)
		snprintf(a->why, sizeof(a->why), "%s", errbuf[0] ? errbuf : cu.easy_strerror(a->cc));
	else if (a->status >= 300)
		snprintf(a->why, sizeof(a->why), "HTTP %ld%s%s", a->status, reply.len ? ": " : "",
			 reply.text);
cleanup:
	if (a->cc == CURLE_OUT_OF_MEMORY && !a->why[0])
		snprintf(a->why, sizeof(a->why), "out of memory");
	if (f)
		fclose(f);
	cu.mime_free(mime);
	cu.slist_free_all(headers);
	if (auth) {
		explicit_bzero(auth, strlen(auth));
		free(auth);
	}
	if (c)
		cu.easy_cleanup(c);
}

static void wait_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * The URL the bundle goes to: a path ending in '/' is a directory, the
 * bundle's name is added there (before a ?query).
 */
static char *target_url(const char *url, const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t s = scheme_len(url), n = strlen(url);
	size_t end = s + strcspn(url + s, "?#");
	char *out = malloc(n + strlen(base) + 1);

	if (out)
		sprintf(out, "%.*s%s%s", (int)end, url,
			end > s && url[end - 1] == '/' ? base : "", url + end);
	return out;
}

/*
 * SFTP logs in with the first of ~/.ssh/id_ed25519, id_ecdsa and id_rsa (its
 * public key derived from it), as ssh would; libcurl's own default, id_rsa
 * with id_dsa.pub, fails with any other key.
 */
static void sftp_key(CURL *c)
{
	static const char *const keys[] = { "id_ed25519", "id_ecdsa", "id_rsa" };
	const char *home = getenv("HOME");
	char path[4200];

	for (size_t i = 0; home && *home && i < sizeof(keys) / sizeof(*keys); i++) {
		snprintf(path, sizeof(path), "%s/.ssh/%s", home, keys[i]);
		if (!access(path, R_OK)) {
			cu.easy_setopt(c, CURLOPT_SSH_PRIVATE_KEYFILE, path);
			cu.easy_setopt(c, CURLOPT_SSH_PUBLIC_KEYFILE, "");
			return;
		}
	}
}

/* SFTP checks the server's key against ~/.ssh/known_hosts; without one, no SFTP. */
static int sftp_known_hosts(const char *url, char *buf, size_t len, char *err, size_t errlen)
{
	const char *home = getenv("HOME");

	buf[0] = '\0';
	if (strncasecmp(url, "sftp://", 7))
		return 0;
	if (home && *home)
		snprintf(buf, len, "%s/.ssh/known_hosts", home);
	if (!buf[0] || access(buf, R_OK)) {
		snprintf(err, errlen, "sftp: no readable %s to check the server's key against",
			 buf[0] ? buf : "~/.ssh/known_hosts");
		return -EINVAL;
	}
	return 0;
}

/* Milliseconds left before the deadline (at least 1), 0 when none is set, -1 once past. */
static long left_ms(const struct upload_opts *o, int64_t start_ns)
{
	double left;

	if (o->deadline_s <= 0)
		return 0;
	left = o->deadline_s * 1e3 - (double)(clock__ns(CLOCK_MONOTONIC) - start_ns) / 1e6;
	return left >= 1 ? (long)left : -1;
}

int bundle__upload(const struct upload_opts *o, const char *path, struct upload_result *res,
		   char *err, size_t errlen)
{
	char known_hosts[4200], note[1024];
	double wait = o->backoff_s;
	struct attempt a = { 0 };
	int64_t start_ns = clock__ns(CLOCK_MONOTONIC);
	int late = 0, tries = o->attempts > 0 ? o->attempts : 1;
	char *url = NULL;
	int rc = -EIO;

	memset(res, 0, sizeof(*res));
	upload__url_shown(o->url, res->where, sizeof(res->where));
	if (upload__url_check(o->url, err, errlen))
		return -EINVAL;
	if (o->post && !strncasecmp(o->url, "sftp://", 7)) {
		snprintf(err, errlen, "POST is for http and https, not sftp");
		return -EINVAL;
	}
	if (o->bearer && !strncasecmp(o->url, "sftp://", 7)) {
		snprintf(err, errlen, "a bearer token is for http and https, not sftp");
		return -EINVAL;
	}
	for (const char *t = o->bearer; t && *t; t++)
		if ((unsigned char)*t < 0x20 || *t == 0x7f) {
			snprintf(err, errlen, "a bearer token has no control characters");
			return -EINVAL;
		}
	if (sftp_known_hosts(o->url, known_hosts, sizeof(known_hosts), err, errlen))
		return -EINVAL;
	if (curl_open(err, errlen))
		return -ENOENT;
	url = o->post ? strdup(o->url) : target_url(o->url, path);
	if (!url || cu.global_init(CURL_GLOBAL_DEFAULT)) {
		free(url);
		snprintf(err, errlen, "cannot start libcurl");
		return -ENOMEM;
	}
	upload__url_shown(url, res->where, sizeof(res->where));
	for (int i = 1; i <= tries; i++) {
		long left = left_ms(o, start_ns);

		res->attempts = i;
		attempt_once(o, url, path, known_hosts[0] ? known_hosts : NULL, left, &a);
		res->http_status = a.status;
		if (a.cc == CURLE_OK && a.status < 300) {
			rc = 0;
			break;
		}
		rc = a.cc == CURLE_OPERATION_TIMEDOUT ? -ETIMEDOUT : -EIO;
		if (!transient(a.cc, a.status) || i == tries)
			break;
		/* No attempt that could only start after the deadline. */
		left = left_ms(o, start_ns);
		if (left < 0 || (left > 0 && wait * 1e3 >= (double)left)) {
			late = 1;
			rc = -ETIMEDOUT;
			break;
		}
		if (o->note) {
			snprintf(note, sizeof(note), "upload attempt %d of %d failed: %s; again in %g s",
				 i, tries, a.why, wait);
			o->note(o->arg, note);
		}
		wait_s(wait);
		wait = wait * 2 < UPLOAD_MAX_WAIT_S ? wait * 2 : UPLOAD_MAX_WAIT_S;
	}
	if (rc && (late || (a.cc == CURLE_OPERATION_TIMEDOUT && left_ms(o, start_ns) < 0)))
		snprintf(err, errlen, "its deadline passed (--upload-timeout %g s); last: %s",
			 o->deadline_s, a.why);
	else if (rc)
		snprintf(err, errlen, "%s", a.why);
	free(url);
	cu.global_cleanup();
	return rc;
}
