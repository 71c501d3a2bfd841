/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A table of fixed-size entries keyed by pid, open addressing: for what is
 * kept per process over a window (collectors) or a capture (the Lua host),
 * where there may be ten thousand of them. Every entry starts with `int pid`
 * (0: an empty slot); the table grows at half full.
 */
#ifndef SONDE_PIDMAP_H
#define SONDE_PIDMAP_H

#include <stddef.h>

struct pidmap {
	char *slots;  /* cap entries of size bytes */
	size_t size;  /* of one entry, its first member an int pid */
	size_t cap, n;
};

/* An empty table of entries of size bytes (nothing allocated yet). */
#define PIDMAP_INIT(entry_size) { NULL, (entry_size), 0, 0 }

/* The entry of pid, added zeroed (with its pid) when absent; NULL when the table cannot grow. */
void *pidmap__get(struct pidmap *m, int pid);
/*
 * Room for n entries in all without growing again: one step to the size the
 * table would reach by doubling (each doubling moves every entry and
 * faults in a fresh table). 0, or -1 when it cannot grow (it stays usable).
 */
int pidmap__reserve(struct pidmap *m, size_t n);
/* The entry of pid, or NULL. */
void *pidmap__find(const struct pidmap *m, int pid);
/* Slot i (0 <= i < cap): an entry, or NULL when empty; for walks over every entry. */
void *pidmap__slot(const struct pidmap *m, size_t i);
void pidmap__free(struct pidmap *m);

#endif
