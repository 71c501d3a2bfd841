// SPDX-License-Identifier: GPL-2.0-or-later
/* A table of fixed-size entries keyed by pid (pidmap.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/pidmap.h"

static size_t pidmap__home(int pid, size_t cap)
{
	return ((uint32_t)pid * 2654435761u) & (cap - 1);
}

static int *pidmap__key(const struct pidmap *m, size_t i)
{
	return (int *)(m->slots + i * m->size);
}

/* Move the entries to a table of ncap slots (a power of two above twice their number). */
static int pidmap__resize(struct pidmap *m, size_t ncap)
{
	struct pidmap n = { calloc(ncap, m->size), m->size, ncap, m->n };

	if (!n.slots)
		return -1;
	for (size_t k = 0; k < m->cap; k++) {
		size_t i;

		if (!*pidmap__key(m, k))
			continue;
		for (i = pidmap__home(*pidmap__key(m, k), ncap); *pidmap__key(&n, i);
		     i = (i + 1) & (ncap - 1))
			;
		memcpy(n.slots + i * m->size, m->slots + k * m->size, m->size);
	}
	free(m->slots);
	*m = n;
	return 0;
}

static int pidmap__grow(struct pidmap *m)
{
	return pidmap__resize(m, m->cap ? m->cap * 2 : 1024);
}

int pidmap__reserve(struct pidmap *m, size_t n)
{
	size_t ncap = m->cap ? m->cap : 1024;

	while ((n + 1) * 2 > ncap)
		ncap *= 2;
	return ncap == m->cap ? 0 : pidmap__resize(m, ncap);
}

void *pidmap__find(const struct pidmap *m, int pid)
{
	if (!m->cap || pid <= 0)
		return NULL;
	for (size_t i = pidmap__home(pid, m->cap); *pidmap__key(m, i); i = (i + 1) & (m->cap - 1))
		if (*pidmap__key(m, i) == pid)
			return pidmap__key(m, i);
	return NULL;
}

void *pidmap__get(struct pidmap *m, int pid)
{
	void *e = pidmap__find(m, pid);
	size_t i;

	if (e || pid <= 0)
		return e;
	if ((m->n + 1) * 2 > m->cap && pidmap__grow(m))
		return NULL;
	for (i = pidmap__home(pid, m->cap); *pidmap__key(m, i); i = (i + 1) & (m->cap - 1))
		;
	memset(pidmap__key(m, i), 0, m->size);
	*pidmap__key(m, i) = pid;
	m->n++;
	return pidmap__key(m, i);
}

void *pidmap__slot(const struct pidmap *m, size_t i)
{
	return i < m->cap && *pidmap__key(m, i) ? pidmap__key(m, i) : NULL;
}

void pidmap__free(struct pidmap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = m->n = 0;
}
