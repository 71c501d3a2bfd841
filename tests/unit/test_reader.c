// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The reader (core/collect/reader.c) against the kernel's own files: a
 * seq_file hands out about one page per read() whatever the buffer, so a file
 * of several pages must be read until read() returns 0 (issue 18, item 1: the
 * mounts after the first page of mountinfo were never seen); a file longer
 * than the cap is cut and says so; a file made in one piece is read whole.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect/collect.h"
#include "tap.h"

/* The whole file by small reads until 0 (at most max bytes), and how many read() calls returned data. */
static char *reference(const char *path, size_t max, size_t *len, int *reads)
{
	char *buf = malloc(max + 1);
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	*reads = 0;
	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while (got < max) {
		ssize_t n = read(fd, buf + got, max - got);

		if (n <= 0)
			break;
		got += (size_t)n;
		(*reads)++;
	}
	close(fd);
	*len = got;
	return buf;
}

/* A seq_file of several pages (/proc/crypto: one record per algorithm) is read to its end. */
static void test_multi_page(void)
{
	struct reader rd = { .root = "" };
	const char *path = "/proc/crypto", *data = NULL;
	size_t len = 0, rlen = 0;
	int trunc = -1, reads = 0, rc;
	char *ref = reference(path, 8u << 20, &rlen, &reads);

	if (!ref || reads < 2) {
		printf("ok %d - # SKIP %s is not a multi-page seq_file here (%d reads)\n", ++tap_n,
		       path, reads);
		free(ref);
		return;
	}
	printf("# %s: %zu bytes in %d reads of up to 8 MiB\n", path, rlen, reads);
	rc = reader__read(&rd, path, READ_CAP, &data, &len, &trunc);
	is_int(rc, 0, "%s reads", path);
	is_int(len, rlen, "all %zu bytes, not the first page only", rlen);
	ok(len == rlen && !memcmp(data, ref, len), "byte for byte what reading to 0 gives");
	is_int(trunc, 0, "not flagged as cut");
	free(ref);
	reader__free(&rd);
}

/* Past the cap the read stops, and the record is flagged as cut (a real cut, not a short read). */
static void test_cap(void)
{
	struct reader rd = { .root = "" };
	const char *path = "/proc/kallsyms", *data = NULL;
	size_t len = 0, rlen = 0, cap = 64u << 10;
	int trunc = -1, reads = 0, rc;
	char *ref = reference(path, cap, &rlen, &reads);

	if (!ref || rlen < cap) {
		printf("ok %d - # SKIP %s is shorter than %zu bytes here\n", ++tap_n, path, cap);
		free(ref);
		return;
	}
	rc = reader__read(&rd, path, cap, &data, &len, &trunc);
	is_int(rc, 0, "%s reads", path);
	is_int(len, cap, "up to the cap (%zu bytes)", cap);
	ok(len == cap && !memcmp(data, ref, cap), "the first %zu bytes, as they are", cap);
	is_int(trunc, 1, "flagged as cut");
	/* A file of exactly the cap is not cut: the one-byte probe finds its end. */
	rc = reader__read(&rd, "/proc/self/stat", 4096, &data, &len, &trunc);
	is_int(rc, 0, "/proc/self/stat reads");
	is_int(trunc, 0, "a file shorter than the cap is not flagged");
	free(ref);
	reader__free(&rd);
}

/* Files made in one piece (single_open, cmdline) are read whole with one read(). */
static void test_one_record(void)
{
	struct reader rd = { .root = "" };
	const char *files[] = { "/proc/self/status", "/proc/self/stat", "/proc/self/cmdline",
				"/proc/self/limits" };
	const char *data;
	size_t len, rlen;
	int trunc, reads;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *ref = reference(files[i], 1u << 20, &rlen, &reads);

		is_int(reader__read_one(&rd, files[i], READ_CAP, &data, &len, &trunc), 0, "%s reads",
		       files[i]);
		/* status moves (VmRSS...) between the two reads; its length hardly does */
		ok(ref && len > 0 && len + 64 > rlen && rlen + 64 > len,
		   "%s: whole (%zu bytes; %zu reading to 0)", files[i], len, rlen);
		free(ref);
	}
	/* a cmdline longer than the cap is cut and flagged, as any file */
	is_int(reader__read_one(&rd, "/proc/self/status", 16, &data, &len, &trunc), 0,
	       "a one-piece file under a small cap");
	ok(len == 16 && trunc == 1, "cut at the cap and flagged (%zu bytes, cut %d)", len, trunc);
	reader__free(&rd);
}

/* A FIFO where a file is expected does not block the reader (O_NONBLOCK). */
static void test_fifo(void)
{
	char dir[] = "/tmp/sonde-test-reader-XXXXXX", path[256];
	struct reader rd = { 0 };
	const char *data;
	size_t len;
	int trunc, rc;

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	rd.root = dir;
	snprintf(path, sizeof(path), "%s/fifo", dir);
	if (mkfifo(path, 0600)) {
		ok(0, "mkfifo: %s", strerror(errno));
		rmdir(dir);
		return;
	}
	alarm(10);
	rc = reader__read(&rd, "/fifo", READ_CAP, &data, &len, &trunc);
	alarm(0);
	ok(rc == 0 || rc == -EAGAIN, "a FIFO with no writer returns at once (rc %d)", rc);
	unlink(path);
	rmdir(dir);
	reader__free(&rd);
}

int main(void)
{
	test_multi_page();
	test_cap();
	test_one_record();
	test_fifo();
	return tap_done();
}
