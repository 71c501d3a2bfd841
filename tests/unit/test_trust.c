// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * core/util/trust.c: a file sonde takes orders from (a config file, a checks
 * directory) is trusted only when it and every directory above it are root's
 * or this user's and writable by no one else; a sticky directory above it
 * (/tmp) may be world-writable; a symlink is judged by what it resolves to;
 * the null device passes. Another owner needs root to arrange (chown): those
 * cases are skipped, and say so, without it.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/trust.h"
#include "tap.h"

static char top[] = "/tmp/test_trust.XXXXXX";
static char why[1024];

static int judge(const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	why[0] = '\0';
	return trust__path(path, NULL, why, sizeof(why));
}

static void put(const char *rel, mode_t mode)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	f = fopen(path, "w");
	if (f)
		fclose(f);
	chmod(path, mode);
}

static void mode_of(const char *rel, mode_t mode)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	chmod(path, mode);
}

int main(void)
{
	char path[PATH_MAX], want[PATH_MAX + 64];

	if (!mkdtemp(top))
		return 1;
	snprintf(path, sizeof(path), "%s/d", top);
	mkdir(path, 0755);
	put("d/c.conf", 0644);

	is_int(judge("d/c.conf"), 0, "a file of mine, 0644, in my 0755 directory: trusted");
	is_int(judge("d"), 0, "and that directory");
	mode_of("d/c.conf", 0666);
	is_int(judge("d/c.conf"), -EPERM, "world-writable: refused");
	is_str(why, "writable by others (mode 0666)", "... saying why");
	mode_of("d/c.conf", 0664);
	is_int(judge("d/c.conf"), -EPERM, "group-writable: refused");
	is_str(why, "writable by its group (mode 0664)", "... saying why");
	mode_of("d/c.conf", 0600);

	mode_of("d", 0777);
	is_int(judge("d/c.conf"), -EPERM, "a good file in a world-writable directory: refused");
	snprintf(want, sizeof(want), "its directory %s/d is writable by others (mode 0777)", top);
	is_str(why, want, "... naming the directory");
	is_int(judge("d"), -EPERM, "and the directory itself");
	mode_of("d", 01777);
	is_int(judge("d/c.conf"), 0, "in a sticky world-writable directory (/tmp's kind): trusted");
	is_int(judge("d"), -EPERM, "the sticky directory itself is not: others can add to it");
	mode_of("d", 0755);

	snprintf(path, sizeof(path), "%s/d/link.conf", top);
	if (symlink("c.conf", path))
		return 1;
	is_int(judge("d/link.conf"), 0, "a symlink to a good file: trusted");
	{
		char real[PATH_MAX], target[PATH_MAX];

		snprintf(path, sizeof(path), "%s/d/link.conf", top);
		snprintf(target, sizeof(target), "%s/d/c.conf", top);
		trust__path(path, real, why, sizeof(why));
		is_str(real, target, "... and the path to open is its target, not the link");
	}
	put("bad.conf", 0666);
	snprintf(path, sizeof(path), "%s/d/bad-link.conf", top);
	if (symlink("../bad.conf", path))
		return 1;
	is_int(judge("d/bad-link.conf"), -EPERM, "a symlink to a world-writable file: refused");

	is_int(judge("d/missing.conf"), -ENOENT, "a missing file: -ENOENT");
	is_str(why, strerror(ENOENT), "... with strerror");
	is_int(trust__path("/dev/null", NULL, why, sizeof(why)), 0,
	       "the null device (mode 0666): trusted");
	is_int(trust__path("/dev/zero", NULL, why, sizeof(why)), -EPERM,
	       "another world-writable device: not");
	is_int(trust__path("/", NULL, why, sizeof(why)), 0, "/ itself");

	if (geteuid() == 0) {
		snprintf(path, sizeof(path), "%s/d/c.conf", top);
		if (chown(path, 65534, 65534))
			return 1;
		is_int(judge("d/c.conf"), -EPERM, "another user's file (0644): refused");
		is_str(why, "owned by uid 65534, not by root or uid 0", "... saying whose");
		if (chown(path, 0, 0))
			return 1;
		snprintf(path, sizeof(path), "%s/d", top);
		if (chown(path, 65534, 65534))
			return 1;
		is_int(judge("d/c.conf"), -EPERM,
		       "root's file in another user's directory: refused");
		snprintf(want, sizeof(want),
			 "its directory %s/d is owned by uid 65534, not by root or uid 0", top);
		is_str(why, want, "... naming the directory and its owner");
	} else {
		for (int i = 0; i < 4; i++)
			printf("ok %d # SKIP another owner: chown needs root\n", ++tap_n);
	}

	snprintf(path, sizeof(path), "rm -rf '%s'", top);
	if (system(path))
		return 1;
	return tap_done();
}
