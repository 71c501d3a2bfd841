// SPDX-License-Identifier: GPL-2.0-or-later
/* sonde's own code kept in memory for the run: see pin.h. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/pin.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

int pin__own_text(size_t *bytes, const char **how)
{
	char exe[PATH_MAX], line[PATH_MAX + 256];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *f;
	int found = 0, locked = 1, populated = 1;

	*bytes = 0;
	*how = "none";
	if (n <= 0)
		return n < 0 ? -errno : -ENOENT;
	exe[n] = '\0';
	f = fopen("/proc/self/maps", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		char perm[5];
		int path_at = 0;
		size_t len;

		/* "lo-hi perms offset dev inode   path" */
		if (sscanf(line, "%lx-%lx %4s %*s %*s %*s %n", &lo, &hi, perm, &path_at) != 3 ||
		    !path_at || perm[2] != 'x' || hi <= lo)
			continue;
		line[strcspn(line, "\n")] = '\0';
		if (strcmp(line + path_at, exe))
			continue;
		len = hi - lo;
		found = 1;
		*bytes += len;
		if (locked && !mlock((void *)lo, len))
			continue;
		locked = 0;
		if (populated && !madvise((void *)lo, len, MADV_POPULATE_READ))
			continue;
		populated = 0;
		madvise((void *)lo, len, MADV_WILLNEED);
	}
	fclose(f);
	if (!found)
		return -ENOENT;
	*how = locked ? "locked" : populated ? "populated" : "advised";
	return 0;
}
