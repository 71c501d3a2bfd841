// SPDX-License-Identifier: GPL-2.0-or-later
/* The wire form between a child process and its parent (util/wire.h). */
#include <stdlib.h>
#include <string.h>

#include "util/wire.h"

void wire__put(struct strbuf *sb, const void *p, size_t n)
{
	strbuf__append(sb, p, n);
}

void wire__put_u64(struct strbuf *sb, uint64_t v)
{
	wire__put(sb, &v, sizeof(v));
}

void wire__put_f64(struct strbuf *sb, double v)
{
	wire__put(sb, &v, sizeof(v));
}

void wire__put_mem(struct strbuf *sb, const char *s, size_t n)
{
	if (!s) {
		wire__put_u64(sb, UINT64_MAX);
		return;
	}
	wire__put_u64(sb, n);
	wire__put(sb, s, n);
}

void wire__put_str(struct strbuf *sb, const char *s)
{
	wire__put_mem(sb, s, s ? strlen(s) : 0);
}

void wire__put_strv(struct strbuf *sb, const struct strv *sv)
{
	wire__put_u64(sb, sv->n);
	for (size_t i = 0; i < sv->n; i++)
		wire__put_str(sb, sv->v[i]);
}

uint64_t wire__u64(struct wire_reader *rb)
{
	uint64_t v = 0;

	if (rb->bad || (size_t)(rb->end - rb->p) < sizeof(v)) {
		rb->bad = 1;
		return 0;
	}
	memcpy(&v, rb->p, sizeof(v));
	rb->p += sizeof(v);
	return v;
}

double wire__f64(struct wire_reader *rb)
{
	uint64_t bits = wire__u64(rb);
	double v;

	memcpy(&v, &bits, sizeof(v));
	return rb->bad ? 0 : v;
}

size_t wire__count(struct wire_reader *rb)
{
	uint64_t n = wire__u64(rb);

	if (n > (rb->max_items ? rb->max_items : WIRE_MAX_ITEMS)) {
		rb->bad = 1;
		return 0;
	}
	return (size_t)n;
}

char *wire__mem(struct wire_reader *rb, size_t *len)
{
	uint64_t n = wire__u64(rb);
	char *s;

	if (len)
		*len = 0;
	if (rb->bad || n == UINT64_MAX)
		return NULL;
	if (n > (rb->max_str ? rb->max_str : WIRE_MAX_STR) || n > (uint64_t)(rb->end - rb->p)) {
		rb->bad = 1;
		return NULL;
	}
	s = malloc((size_t)n + 1);
	if (!s) {
		rb->bad = 1;
		return NULL;
	}
	memcpy(s, rb->p, (size_t)n);
	s[n] = '\0';
	rb->p += n;
	if (len)
		*len = (size_t)n;
	return s;
}

char *wire__str(struct wire_reader *rb)
{
	return wire__mem(rb, NULL);
}

void wire__strv(struct wire_reader *rb, struct strv *sv)
{
	size_t n = wire__count(rb);

	for (size_t i = 0; i < n && !rb->bad; i++) {
		char *s = wire__str(rb);

		if (strv__push(sv, s ? s : ""))
			rb->bad = 1;
		free(s);
	}
}
