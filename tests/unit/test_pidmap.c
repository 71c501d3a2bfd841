// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * core/util/pidmap.c: the table keyed by pid. Entries survive growth by
 * doubling and by a reservation, a reservation needs no growth after it,
 * and pids that collide on their home slot are told apart.
 */
#include <stdint.h>
#include <stdlib.h>

#include "util/pidmap.h"
#include "tap.h"

struct entry {
	int pid;
	uint64_t value;
};

/* Every pid of 1..n is there with the value it was given. */
static int all_there(const struct pidmap *m, int n)
{
	for (int pid = 1; pid <= n; pid++) {
		const struct entry *e = pidmap__find(m, pid);

		if (!e || e->pid != pid || e->value != (uint64_t)pid * 7)
			return 0;
	}
	return 1;
}

int main(void)
{
	struct pidmap m = PIDMAP_INIT(sizeof(struct entry));
	struct entry *e;
	size_t cap;
	int filled = 1;

	ok(pidmap__find(&m, 1) == NULL, "an empty table finds nothing");
	ok(pidmap__get(&m, 0) == NULL && pidmap__get(&m, -3) == NULL, "no entry for pid 0 or below");
	for (int pid = 1; pid <= 5000; pid++) {
		e = pidmap__get(&m, pid);
		if (!e || e->value) {
			filled = 0;
			break;
		}
		e->value = (uint64_t)pid * 7;
	}
	ok(filled, "5,000 entries added, each zeroed");
	is_int(m.n, 5000, "... and counted");
	ok(all_there(&m, 5000), "every entry is found with its value after the table doubled");
	ok(pidmap__get(&m, 42) == pidmap__find(&m, 42), "get of a present pid is its entry");
	is_int(m.n, 5000, "... not a new one");

	is_int(pidmap__reserve(&m, 20000), 0, "room reserved for 20,000");
	ok(m.cap >= 40002 && (m.cap & (m.cap - 1)) == 0, "in one step to a power of two (%zu)", m.cap);
	ok(all_there(&m, 5000), "the entries moved with it");
	cap = m.cap;
	for (int pid = 5001; pid <= 20000; pid++) {
		e = pidmap__get(&m, pid);
		if (e)
			e->value = (uint64_t)pid * 7;
	}
	is_int(m.cap, cap, "20,000 entries fit without growing again");
	ok(all_there(&m, 20000), "and all are found");
	is_int(pidmap__reserve(&m, 100), 0, "a smaller reservation is a no-op");
	is_int(m.cap, cap, "... the table does not shrink");

	/* pids a multiple of the capacity apart collide on their home slot */
	e = pidmap__get(&m, (int)cap + 1);
	ok(e && e->pid == (int)cap + 1 && e->value == 0, "a pid that collides gets its own entry");
	ok(((struct entry *)pidmap__find(&m, 1))->value == 7, "... and the first keeps its own");
	pidmap__free(&m);
	ok(m.cap == 0 && m.n == 0 && pidmap__find(&m, 1) == NULL, "freed: empty again");
	return tap_done();
}
