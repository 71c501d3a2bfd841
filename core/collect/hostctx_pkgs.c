// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * host.context: the installed packages and their versions, so that sonde
 * diff can say "since the last audit, openssl went from 3.0.11 to 3.0.13".
 * Read once, after the window (the collector's `after` hook): dpkg's status
 * file is a few MB of text and changes only between audits, so none of its
 * cost lands in the window. Debian's /var/lib/dpkg/status is read directly
 * (no dpkg process); on an RPM host, where the database is not text,
 * `rpm -qa` is asked under a deadline. One composed record,
 * HOSTCTX_PACKAGES (docs/capture-format.md):
 *
 *	manager dpkg
 *	NAME<TAB>VERSION<TAB>ARCH
 *	...
 *
 * sorted by name, installed packages only; or a failed record: ENOENT
 * (neither database), or how rpm failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/collectors.h"
#include "collect/hostctx.h"
#include "util/file.h"

#define DPKG_STATUS "/var/lib/dpkg/status"
#define DPKG_STATUS_MAX (64u << 20)  /* a status file larger than this is no dpkg's */
#define PACKAGES_MAX 100000          /* lines kept; the record is cut ('t') past them */
#define RPM_TIMEOUT_MS 10000
#define RPM_MAX_BYTES (16u << 20)

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The value of field name at line (a "Name: value" line), its length in *n; NULL if not it. */
static const char *field(const char *line, size_t len, const char *name, size_t *n)
{
	size_t k = strlen(name);

	if (len <= k + 1 || strncasecmp(line, name, k) || line[k] != ':')
		return NULL;
	line += k + 1;
	len -= k + 1;
	while (len && (*line == ' ' || *line == '\t'))
		line++, len--;
	while (len && (line[len - 1] == ' ' || line[len - 1] == '\t' || line[len - 1] == '\r'))
		len--;
	*n = len;
	return line;
}

/* One stanza's package as "NAME\tVERSION\tARCH", when its status says installed. */
static int dpkg_stanza(const char *p, const char *end, struct strv *out)
{
	const char *name = NULL, *ver = "", *arch = "", *status = "";
	size_t nn = 0, nv = 0, na = 0, ns = 0;
	char line[1024];

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *v;
		size_t len = (size_t)((eol ? eol : end) - p), n;

		if ((v = field(p, len, "Package", &n)))
			name = v, nn = n;
		else if ((v = field(p, len, "Version", &n)))
			ver = v, nv = n;
		else if ((v = field(p, len, "Architecture", &n)))
			arch = v, na = n;
		else if ((v = field(p, len, "Status", &n)))
			status = v, ns = n;
		p = eol ? eol + 1 : end;
	}
	/* "install ok installed": the third word; config-files, half-installed... are not */
	if (!name || nn == 0 || ns < 9 || strncmp(status + ns - 9, "installed", 9) ||
	    (ns > 9 && status[ns - 10] != ' '))
		return 0;
	snprintf(line, sizeof(line), "%.*s\t%.*s\t%.*s", (int)nn, name, (int)nv, ver, (int)na,
		 arch);
	for (char *c = line; *c; c++)
		if ((unsigned char)*c < 0x20 && *c != '\t')
			*c = ' ';
	return strv__push(out, line);
}

/* dpkg's status file, stanza by stanza (blank lines between): 0, or -errno. */
static int read_dpkg(const char *root, struct strv *out)
{
	char path[4200];
	char *text = NULL;
	size_t len = 0;
	int rc;

	snprintf(path, sizeof(path), "%s%s", root, DPKG_STATUS);
	rc = file__read_bounded(AT_FDCWD, path, DPKG_STATUS_MAX, &text, &len);
	if (rc)
		return rc;
	for (const char *p = text, *end = text + len; p < end && !rc && out->n < PACKAGES_MAX;) {
		const char *stop = p;

		/* the stanza ends at a blank line */
		while (stop < end) {
			const char *eol = memchr(stop, '\n', (size_t)(end - stop));

			if (!eol) {
				stop = end;
				break;
			}
			if (eol == stop) /* an empty line */
				break;
			stop = eol + 1;
		}
		rc = dpkg_stanza(p, stop, out);
		p = stop < end ? stop + 1 : end;
	}
	free(text);
	return rc;
}

/* rpm's answer, one "NAME\tEPOCH:VERSION-RELEASE\tARCH" line a package: 0, or an errno. */
static int read_rpm(struct collector_state *cs, struct reader *rd, struct strv *out,
		    int *truncated)
{
	char *argv[8];
	struct strbuf text = { 0 };
	int n = 0, err;

	argv[n++] = "rpm";
	if (cs->root && *cs->root) {
		argv[n++] = "--root";
		argv[n++] = (char *)cs->root;
	}
	argv[n++] = "-qa";
	argv[n++] = "--qf";
	argv[n++] = "%{NAME}\\t%|EPOCH?{%{EPOCH}:}|%{VERSION}-%{RELEASE}\\t%{ARCH}\\n";
	argv[n] = NULL;
	err = hostctx__spawn_read(rd, argv, RPM_TIMEOUT_MS, RPM_MAX_BYTES, &text, truncated);
	for (char *p = text.buf, *eol; !err && p && *p && out->n < PACKAGES_MAX; p = eol + 1) {
		eol = strchr(p, '\n');
		if (!eol)
			break;
		*eol = '\0';
		if (*p && strv__push(out, p))
			err = ENOMEM;
	}
	if (text.oom)
		err = ENOMEM;
	strbuf__free(&text);
	return err;
}

/* Whether root has an RPM database (the old place, or /usr/lib/sysimage since rpm 4.17). */
static int has_rpmdb(const char *root)
{
	static const char *const dirs[] = { "/var/lib/rpm", "/usr/lib/sysimage/rpm" };
	char path[4200];

	for (size_t i = 0; i < sizeof(dirs) / sizeof(*dirs); i++) {
		snprintf(path, sizeof(path), "%s%s", root, dirs[i]);
		if (!access(path, F_OK))
			return 1;
	}
	return 0;
}

void hostctx__packages(struct collector_state *cs, struct reader *rd, struct capture_writer *w)
{
	const char *root = cs->root ? cs->root : "";
	struct strv pk = { 0 };
	struct strbuf rec = { 0 };
	const char *manager = "dpkg";
	int err = 0, truncated = 0;

	err = -read_dpkg(root, &pk);
	if (err == ENOENT) {
		strv__free(&pk);
		manager = "rpm";
		err = has_rpmdb(root) ? read_rpm(cs, rd, &pk, &truncated) : ENOENT;
	}
	if (err) {
		capture_writer__error(w, rd->seq, clock__ns(CLOCK_REALTIME),
				      clock__ns(CLOCK_MONOTONIC), HOSTCTX_PACKAGES, err);
		strv__free(&pk);
		return;
	}
	qsort(pk.v, pk.n, sizeof(*pk.v), by_name);
	strbuf__printf(&rec, "manager %s\n", manager);
	for (size_t i = 0; i < pk.n; i++)
		strbuf__printf(&rec, "%s\n", pk.v[i]);
	capture_writer__record(w, rd->seq, clock__ns(CLOCK_REALTIME), clock__ns(CLOCK_MONOTONIC),
			       HOSTCTX_PACKAGES, rec.buf ? rec.buf : "", rec.oom ? 0 : rec.len,
			       truncated || rec.oom || pk.n >= PACKAGES_MAX);
	strbuf__free(&rec);
	strv__free(&pk);
}
