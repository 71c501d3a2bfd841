// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the capture stream reader (the raw/ streams of a bundle
 * someone crafted), both ways in: parsing from memory (redact), and the
 * analysis's loader, which lists raw/, reads a stream when first asked for
 * and holds it to a record cap and a memory limit. The first input byte
 * picks the limits (small ones are where the refusals happen), the rest is
 * the stream. Whatever is kept must lie inside the text, and what the set
 * holds must stay within its limit; a refusal must say why.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/capture.h"

/* in memory where there is a tmpfs: a file written per input must not wait for a disk */
static char dir[64];

static void check_stream(const struct capture_stream *st)
{
	for (size_t i = 0; i < st->n; i++) {
		const struct capture_rec *r = &st->rec[i];

		if (!r->path || r->path < st->text || r->path >= st->text + st->text_len)
			abort();
		if (r->data && (r->data < st->text || r->data + r->len > st->text + st->text_len))
			abort();
	}
}

static void from_memory(const uint8_t *data, size_t size)
{
	struct capture_stream st = { .name = "fuzz" };
	char err[256];
	char *text = malloc(size + 1);

	if (!text)
		return;
	memcpy(text, data, size);
	text[size] = '\0';
	/* parse takes the buffer; every record it keeps must lie inside it */
	if (!capture_stream__parse(&st, text, size, err, sizeof(err)))
		check_stream(&st);
	free(st.text);
	free(st.rec);
}

static void from_dir(const uint8_t *data, size_t size)
{
	static const struct capture_limits limits[4] = {
		{ .max_stream_bytes = 1u << 20, .max_records = 8, .max_memory_bytes = 1u << 20 },
		{ .max_stream_bytes = 1u << 20, .max_records = 1u << 20, .max_memory_bytes = 4096 },
		{ .max_stream_bytes = 64, .max_records = 1u << 20, .max_memory_bytes = 1u << 20 },
		{ .max_stream_bytes = 1u << 20, .max_records = 1u << 20, .max_memory_bytes = 8u << 20 },
	};
	const struct capture_limits *lim = &limits[data[0] & 3];
	struct capture_set cs;
	const struct capture_stream *st;
	char path[sizeof(dir) + 16], err[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/s.cap", dir);
	f = fopen(path, "w");
	if (!f)
		return;
	fwrite(data + 1, 1, size - 1, f);
	fclose(f);
	if (capture_set__open(&cs, dir, lim, err, sizeof(err)))
		return;
	st = capture_set__stream(&cs, "s");
	if (st)
		check_stream(st);
	else if (!capture_set__why(&cs, "s"))
		abort(); /* present and refused: there must be a reason */
	if (cs.held > lim->max_memory_bytes)
		abort();
	/* asked again: the same outcome, not a second load */
	if (capture_set__stream(&cs, "s") != st)
		abort();
	capture_set__free(&cs);
}

static void remove_dir(void)
{
	char path[sizeof(dir) + 16];

	snprintf(path, sizeof(path), "%s/s.cap", dir);
	unlink(path);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	snprintf(dir, sizeof(dir), "%s/sonde-fuzz-capture-XXXXXX",
		 access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm");
	if (!mkdtemp(dir))
		abort();
	atexit(remove_dir);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	from_memory(data, size);
	if (size > 0)
		from_dir(data, size);
	return 0;
}
