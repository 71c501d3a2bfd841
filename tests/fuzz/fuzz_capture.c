// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target: the capture stream reader (the raw/ streams of a bundle someone crafted). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collect/capture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct capture_stream st = { .name = "fuzz" };
	char err[256];
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	/* parse takes the buffer; every record it keeps must lie inside it */
	if (!capture_stream__parse(&st, text, size, err, sizeof(err)))
		for (size_t i = 0; i < st.n; i++)
			if (st.rec[i].data && (st.rec[i].data < st.text ||
					       st.rec[i].data + st.rec[i].len > st.text + size))
				abort();
	free(st.text);
	free(st.rec);
	return 0;
}
