// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the host context read back from a bundle someone crafted
 * (collect/hostctx_read.c): the input is the raw/host.context.cap stream, and
 * also the host stream (os-release, cpuinfo, uptime come from there).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collect/capture.h"
#include "collect/hostctx.h"

static int parse(struct capture_stream *st, const char *name, const uint8_t *data, size_t size)
{
	char err[256];
	char *text = malloc(size + 1);

	memset(st, 0, sizeof(*st));
	st->name = strdup(name);
	if (!text || !st->name) {
		free(text);
		return -1;
	}
	memcpy(text, data, size);
	text[size] = '\0';
	if (!capture_stream__parse(st, text, size, err, sizeof(err)))
		return 0;
	/* Refused: the stream keeps its text (and what records it had) for us to free. */
	free(st->text);
	free(st->rec);
	free(st->name);
	return -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct capture_set cs = { .s = calloc(2, sizeof(*cs.s)) };
	struct host_context hc;

	if (!cs.s)
		return 0;
	if (!parse(&cs.s[cs.n], HOSTCTX_STREAM, data, size))
		cs.n++;
	if (!parse(&cs.s[cs.n], "host", data, size))
		cs.n++;
	host_context__read(&cs, &hc);
	/* Every string the report and findings.json print is terminated and bounded. */
	if (strlen(hc.os) >= sizeof(hc.os) || strlen(hc.taint_flags) >= sizeof(hc.taint_flags))
		abort();
	host_context__free(&hc);
	capture_set__free(&cs);
	return 0;
}
