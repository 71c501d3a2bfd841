// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kernel.log: the OOM and I/O error records of the kernel log (/dev/kmsg),
 * read once at the end of the window. Only what the checks need is kept; the
 * rest of the log stays private.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect/collectors.h"

/*
 * Only what the checks need (OOM kills, I/O, swap and file system errors):
 * the rest of the log stays private. The record is lowered once and each
 * phrase found with memmem: the log holds thousands of records, and a
 * byte-by-byte comparison for each of the eleven phrases was most of the
 * reading.
 */
static int kept_line(const char *s, size_t n)
{
	static const char *const phrases[] = {
		"out of memory", "oom-kill", "invoked oom-killer", "killed process", "oom_reaper",
		"i/o error", "blk_update_request", "medium error", "error on swap-device",
		"fs error", "remounting filesystem read-only",
	};
	char low[8192];

	if (n > sizeof(low))
		n = sizeof(low);
	for (size_t i = 0; i < n; i++)
		low[i] = (char)((unsigned char)s[i] >= 'A' && (unsigned char)s[i] <= 'Z' ? s[i] | 0x20 : s[i]);
	for (size_t k = 0; k < sizeof(phrases) / sizeof(phrases[0]); k++)
		if (memmem(low, n, phrases[k], strlen(phrases[k])))
			return 1;
	return 0;
}

#define KMSG_CAP (64u << 10)

int kmsg__probe(const char *root, char *why, size_t whylen)
{
	return collector__probe_path(root, "/dev/kmsg", "no kernel log", why, whylen);
}

int kmsg__sample(struct collector_state *cs, struct reader *rd, struct capture_writer *w, int phase)
{
	char full[4096], rec[8192];
	struct stat sb;
	char *keep = NULL;
	size_t kl = 0;
	int fd, truncated = 0;
	int64_t wall, mono;

	if (!(phase & PHASE_LAST))
		return 0;
	wall = clock__ns(CLOCK_REALTIME);
	mono = clock__ns(CLOCK_MONOTONIC);
	snprintf(full, sizeof(full), "%s/dev/kmsg", cs->root);
	fd = open(full, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		capture_writer__error(w, rd->seq, wall, mono, "/dev/kmsg", errno);
		return 0;
	}
	keep = malloc(KMSG_CAP);
	if (!keep)
		goto cleanup;
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) {
		/* A capture tree standing in for /: one record per line. */
		FILE *f = fdopen(fd, "r");

		fd = -1;
		while (f && fgets(rec, sizeof(rec), f)) {
			size_t n = strlen(rec);

			if (!kept_line(rec, n))
				continue;
			if (kl + n > KMSG_CAP) {
				truncated = 1;
				break;
			}
			memcpy(keep + kl, rec, n);
			kl += n;
		}
		if (f)
			fclose(f);
	} else {
		/* /dev/kmsg: each read() returns one record; EPIPE: records were overwritten. */
		for (;;) {
			ssize_t n = read(fd, rec, sizeof(rec) - 1);

			if (n < 0 && (errno == EPIPE || errno == EINTR))
				continue;
			if (n <= 0)
				break;
			if (!kept_line(rec, (size_t)n))
				continue;
			if (kl + (size_t)n + 1 > KMSG_CAP) {
				truncated = 1;
				continue;
			}
			memcpy(keep + kl, rec, (size_t)n);
			kl += (size_t)n;
			if (rec[n - 1] != '\n')
				keep[kl++] = '\n';
		}
	}
	capture_writer__record(w, rd->seq, wall, mono, "/dev/kmsg", keep, kl, truncated);
cleanup:
	free(keep);
	if (fd >= 0)
		close(fd);
	return 0;
}
