// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sonde's own CPU time by part (util/selfcpu.h): a thread's CPU time counts
 * to the part it claimed while it runs and after it ended; a thread that
 * claimed none counts to no part, only to the whole process.
 */
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "util/clock.h"
#include "util/selfcpu.h"
#include "tap.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int burned, go_on, burn_ms = 30;

/* Use ms of CPU time in the calling thread. */
static void burn(int ms)
{
	int64_t until = clock__ns(CLOCK_THREAD_CPUTIME_ID) + (int64_t)ms * 1000000;
	volatile uint64_t x = 0;

	while (clock__ns(CLOCK_THREAD_CPUTIME_ID) < until)
		x++;
}

/* Claims the part in arg (or none: -1), burns burn_ms, then waits to be let go. */
static void *worker(void *arg)
{
	int part = (int)(intptr_t)arg;

	if (part >= 0)
		self_cpu__enter((enum self_part)part);
	burn(burn_ms);
	pthread_mutex_lock(&mu);
	burned = 1;
	pthread_cond_broadcast(&cv);
	while (!go_on)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return NULL;
}

static void run(int part, int64_t during[SELF_PARTS], int64_t after[SELF_PARTS])
{
	pthread_t th;

	burned = go_on = 0;
	pthread_create(&th, NULL, worker, (void *)(intptr_t)part);
	pthread_mutex_lock(&mu);
	while (!burned)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	self_cpu__read(during);
	pthread_mutex_lock(&mu);
	go_on = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	pthread_join(th, NULL);
	self_cpu__read(after);
}

int main(void)
{
	int64_t a[SELF_PARTS], b[SELF_PARTS], c[SELF_PARTS], total;

	self_cpu__read(a);
	ok(!a[SELF_ROUNDS] && !a[SELF_SAMPLER] && !a[SELF_POLLERS] && !a[SELF_GUARD],
	   "no thread claimed a part yet: every part is 0");
	burn(20);
	self_cpu__read(a);
	ok(!a[SELF_ROUNDS] && !a[SELF_SAMPLER], "the main thread's CPU time is no part's");

	run(SELF_SAMPLER, b, c);
	ok(b[SELF_SAMPLER] >= 29000000 && b[SELF_SAMPLER] < 1000000000,
	   "a running thread's CPU time counts to its part (%.1f ms)", b[SELF_SAMPLER] / 1e6);
	ok(!b[SELF_ROUNDS] && !b[SELF_POLLERS] && !b[SELF_GUARD], "and to no other part");
	ok(c[SELF_SAMPLER] >= b[SELF_SAMPLER], "still counted after it ended (%.1f ms)",
	   c[SELF_SAMPLER] / 1e6);

	run(-1, b, c);
	ok(b[SELF_SAMPLER] == c[SELF_SAMPLER] && !b[SELF_ROUNDS],
	   "a thread that claimed no part adds to none");

	run(SELF_ROUNDS, b, c);
	ok(c[SELF_ROUNDS] >= 29000000 && c[SELF_SAMPLER] == b[SELF_SAMPLER],
	   "a second part is counted apart from the first");
	total = self_cpu__total();
	ok(total >= c[SELF_ROUNDS] + c[SELF_SAMPLER] + 20000000,
	   "the whole process's CPU time holds the parts and the rest (%.1f ms)", total / 1e6);

	/* more threads than slots over time: each slot is given back when its thread ends */
	burn_ms = 2;
	for (int i = 0; i < 40; i++)
		run(SELF_POLLERS, b, c);
	ok(c[SELF_POLLERS] >= 40 * 1900000LL, "slots are reused: 40 threads, each counted (%.1f ms)",
	   c[SELF_POLLERS] / 1e6);
	is_str(self_part__name(SELF_ROUNDS), "rounds", "the rounds' key");
	is_str(self_part__what(SELF_SAMPLER), "thread-state sampler", "the sampler's words");
	is_str(self_part__name((enum self_part)99), "?", "no part: '?'");
	self_cpu__enter((enum self_part)99);
	ok(1, "claiming no such part is ignored");
	return tap_done();
}
