/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Sending a finished bundle to a ticket or a collection point (sonde run
 * --upload URL), through libcurl: HTTPS (or HTTP) PUT, or POST as
 * multipart/form-data, or SFTP. Failed attempts are retried with a doubling
 * wait when the failure may pass (no connection, a timeout, HTTP 408, 429 or
 * 5xx), all within one deadline; the bundle is never removed, whatever
 * happens.
 */
#ifndef SONDE_UPLOAD_H
#define SONDE_UPLOAD_H

#include <stddef.h>

#define UPLOAD_ATTEMPTS 4
/* The whole upload's default deadline (sonde run --upload-timeout). */
#define UPLOAD_DEADLINE_S 300

struct upload_opts {
	const char *url;     /* https://, http:// or sftp://; PUT, SFTP: a path ending in '/'
			      * gets the bundle's name */
	int post;            /* POST multipart/form-data, the bundle as field "file" (HTTP only) */
	const char *case_id; /* POST: also sent as field "case_id"; NULL: none */
	const char *cacert;  /* a CA bundle (a private CA); NULL: the system's */
	const char *bearer;  /* HTTP: sent as "Authorization: Bearer TOKEN"; NULL: none */
	int attempts;        /* at least 1 */
	double backoff_s;    /* the wait after the first failed attempt, doubled after each */
	/*
	 * The whole upload's deadline, attempts and waits included (0: none): a
	 * server that answers forever, a trickle above the stall limit, must
	 * not keep the run (a oneshot audit unit) going.
	 */
	double deadline_s;
	/* Said before each retry ("attempt 1 of 4 failed: ...; again in 2 s"); may be NULL. */
	void (*note)(void *arg, const char *msg);
	void *arg;
};

struct upload_result {
	long http_status; /* the last answer's status, 0 without one (SFTP, no connection) */
	int attempts;     /* made */
	char where[2048]; /* where the bundle went (or was going), as upload__url_shown says */
};

/*
 * 0 when this build can upload; -ENOTSUP with why in err in the static build
 * (make static), which has no libcurl: for a usage error before the window.
 */
int upload__built_in(char *err, size_t errlen);
/*
 * A URL sonde can upload to: scheme https, http or sftp, a host. 0, or
 * -EINVAL with the reason in err (for a usage error before the window).
 */
int upload__url_check(const char *url, char *err, size_t errlen);
/* The URL as it may be printed or recorded: no user:password@, no ?query or #fragment. */
void upload__url_shown(const char *url, char *out, size_t len);
/*
 * Send the file at path. 0 once a server took it (HTTP 2xx, or the SFTP
 * transfer completed); else -errno-like (-EIO: refused or failed for good,
 * -ETIMEDOUT: the last attempt timed out, or the deadline passed) with one
 * line in err. res is filled either way.
 */
int bundle__upload(const struct upload_opts *o, const char *path, struct upload_result *res,
		   char *err, size_t errlen);

#endif
