// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * trust__path: sshd's safe_path() rule (openssh misc.c: every component up to
 * / owned by root or the user and not group or world writable), with the
 * exception sticky directories earn, since a config file under /tmp/XXX of
 * root's own is as safe as one in /etc. See trust.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "util/trust.h"

/* What is wrong with one component (top: the path itself), or 0. */
static int trust_component(const char *path, int top, char *why, size_t whylen)
{
	char subject[PATH_MAX + 32] = "";
	uid_t me = geteuid();
	struct stat st;

	if (!top)
		snprintf(subject, sizeof(subject), "its directory %s is ", path);
	if (lstat(path, &st)) {
		int rc = -errno;

		if (top)
			snprintf(why, whylen, "%s", strerror(errno));
		else
			snprintf(why, whylen, "its directory %s: %s", path, strerror(errno));
		return rc;
	}
	/* realpath resolved every link: a link now is a component swapped since. */
	if (S_ISLNK(st.st_mode)) {
		snprintf(why, whylen, "%sa symbolic link now: it changed while it was checked",
			 subject);
		return -EPERM;
	}
	if (top && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3))
		return 0;
	if (st.st_uid != 0 && st.st_uid != me) {
		snprintf(why, whylen, "%sowned by uid %u, not by root or uid %u", subject,
			 (unsigned)st.st_uid, (unsigned)me);
		return -EPERM;
	}
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) &&
	    (top || !S_ISDIR(st.st_mode) || !(st.st_mode & S_ISVTX))) {
		snprintf(why, whylen, "%swritable by %s (mode %04o)", subject,
			 st.st_mode & S_IWOTH ? "others" : "its group",
			 (unsigned)(st.st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

int trust__path(const char *path, char *real, char *why, size_t whylen)
{
	char walk[PATH_MAX], *slash;
	int rc;

	if (!realpath(path, walk)) {
		rc = -errno;
		snprintf(why, whylen, "%s", strerror(errno));
		return rc;
	}
	if (real)
		memcpy(real, walk, strlen(walk) + 1);
	for (int top = 1;; top = 0) {
		rc = trust_component(walk, top, why, whylen);
		if (rc || !strcmp(walk, "/"))
			return rc;
		slash = strrchr(walk, '/');
		slash[slash == walk] = '\0'; /* "/etc" -> "/" */
	}
}
