// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The redactor over any bytes, as `sonde redact` meets them in a crafted
 * bundle: the first byte picks the view (plain text under any context of
 * redact.h, a JSON file, Markdown, HTML, or a capture stream redacted in a
 * stage directory, '=' repeats included), the rest is the text. Each text is
 * learned from, then redacted; the output is checked where the contract is
 * sharp: a secret value learned from a command line never survives its own
 * command line, and a redacted capture stream reads back with as many records.
 * Never a crash, a leak, undefined behaviour, or a hang.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle/redact.h"
#include "bundle/redact_int.h"
#include "collect/capture.h"

static char base[64];

/* A capture stream redacted in a stage, as redact__dir does it; it must read back whole. */
static void fuzz_stream(const uint8_t *data, size_t size)
{
	char raw[128], path[192], err[512];
	struct capture_stream before = { .name = "fuzz" }, after = { .name = "fuzz" };
	struct redactor *r;
	char *text, *copy = NULL;
	size_t len = 0, n_before;
	FILE *f;

	text = malloc(size + 1);
	if (!text)
		return;
	memcpy(text, data, size);
	text[size] = '\0';
	/* Only streams the reader takes: the redactor is not the parser's fuzzer. */
	if (capture_stream__parse(&before, text, size, err, sizeof(err))) {
		free(before.text);
		free(before.rec);
		return;
	}
	n_before = before.n;
	free(before.text);
	free(before.rec);

	snprintf(raw, sizeof(raw), "%s/raw", base);
	mkdir(raw, 0700);
	snprintf(path, sizeof(path), "%s/proc.pids.cap", raw);
	f = fopen(path, "wb");
	if (!f)
		abort();
	fwrite(data, 1, size, f);
	fclose(f);
	r = redact__dir(base, NULL, NULL, err, sizeof(err));
	if (r) {
		f = fopen(path, "rb");
		if (f) {
			struct stat st;

			if (!fstat(fileno(f), &st) && (copy = malloc((size_t)st.st_size + 1)))
				len = fread(copy, 1, (size_t)st.st_size, f);
			fclose(f);
		}
		/* Every record is still there, repeats as repeats: no more bytes than it had,
		 * give or take what pseudonyms and REDACTED add per record. */
		if (!copy || capture_stream__parse(&after, copy, len, err, sizeof(err)) ||
		    after.n != n_before)
			abort();
		free(after.text);
		free(after.rec);
	}
	redactor__free(r);
	unlink(path);
	rmdir(raw);
}

/* s is one argv element "--password=VALUE", VALUE of letters and digits (no rule but one applies). */
static int password_argv(const char *s, size_t n)
{
	if (n < 13 || memcmp(s, "--password=", 11) || s[n - 1])
		return 0;
	for (size_t i = 11; i < n - 1; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9')))
			return 0;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct redactor *r;
	struct strbuf out = { 0 };
	unsigned int ctx;
	const char *s;
	size_t n;

	if (!base[0]) {
		snprintf(base, sizeof(base), "/tmp/sonde-fuzz-redact.XXXXXX");
		if (!mkdtemp(base))
			abort();
	}
	if (size < 2)
		return 0;
	ctx = data[1] & (REDACT_CMDLINE | REDACT_HOSTNAME | REDACT_DOMAIN | REDACT_TRUNCATED |
			 REDACT_ARGV);
	s = (const char *)data + 2;
	n = size - 2;
	if (data[0] % 5 == 4) {
		fuzz_stream(data + 2, n);
		return 0;
	}
	r = redactor__new();
	if (!r)
		return 0;
	strbuf__append(&out, "", 0);
	switch (data[0] % 5) {
	case 0:
		redactor__learn(r, s, n, ctx);
		redact__plain(r, s, n, ctx, &out);
		/* "--password=VALUE\0": whatever the context, VALUE goes. */
		if (!out.oom && password_argv(s, n) &&
		    (!memmem(out.buf, out.len, "--password=REDACTED", 19) ||
		     memmem(out.buf, out.len, s + 11, n - 12)))
			abort();
		break;
	case 1:
		redact__json(r, s, n, NULL);
		redact__json(r, s, n, &out);
		break;
	case 2:
		redact__md(r, s, n, NULL);
		redact__md(r, s, n, &out);
		break;
	case 3:
		redact__html(r, s, n, NULL);
		redact__html(r, s, n, &out);
		break;
	}
	strbuf__free(&out);
	redactor__free(r);
	return 0;
}
