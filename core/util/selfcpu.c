// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sonde's own CPU time by part (selfcpu.h): a slot per thread that claimed a
 * part, holding its CPU clock, read by whoever asks; a thread-specific key's
 * destructor adds a thread's CPU time to its part when it ends, while its
 * clock can still be read, so nothing it used is lost.
 */
#include <pthread.h>
#include <stdint.h>
#include <sys/resource.h>
#include <time.h>

#include "util/selfcpu.h"

/* A window's threads: a round worker, a sampler, two pollers, a guard; and a few left blocked. */
#define SELF_SLOTS 32

static struct self_slot {
	int used;
	enum self_part part;
	clockid_t clock;
} slots[SELF_SLOTS];
static int64_t ended_ns[SELF_PARTS];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_key_t key;
static int key_ok;

static int64_t ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

/* At a claimed thread's end (its clock is still readable): its CPU time goes to its part. */
static void slot_end(void *v)
{
	size_t i = (size_t)(uintptr_t)v - 1;
	struct timespec ts;

	if (i >= SELF_SLOTS)
		return;
	pthread_mutex_lock(&mu);
	if (slots[i].used && !clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		ended_ns[slots[i].part] += ts_ns(&ts);
	slots[i].used = 0;
	pthread_mutex_unlock(&mu);
}

static void key_init(void)
{
	key_ok = !pthread_key_create(&key, slot_end);
}

void self_cpu__enter(enum self_part p)
{
	clockid_t c;

	if ((unsigned)p >= SELF_PARTS || pthread_once(&once, key_init) || !key_ok ||
	    pthread_getcpuclockid(pthread_self(), &c))
		return;
	pthread_mutex_lock(&mu);
	for (size_t i = 0; i < SELF_SLOTS; i++) {
		if (slots[i].used)
			continue;
		/* no room (threads left blocked): this one counts as unclaimed, with the main thread */
		if (pthread_setspecific(key, (void *)(uintptr_t)(i + 1)))
			break;
		slots[i].used = 1;
		slots[i].part = p;
		slots[i].clock = c;
		break;
	}
	pthread_mutex_unlock(&mu);
}

void self_cpu__read(int64_t ns[SELF_PARTS])
{
	struct timespec ts;

	pthread_mutex_lock(&mu);
	for (int p = 0; p < SELF_PARTS; p++)
		ns[p] = ended_ns[p];
	for (size_t i = 0; i < SELF_SLOTS; i++)
		if (slots[i].used && !clock_gettime(slots[i].clock, &ts))
			ns[slots[i].part] += ts_ns(&ts);
	pthread_mutex_unlock(&mu);
}

int64_t self_cpu__total(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (int64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000 +
	       (int64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
}

static const struct {
	const char *name, *what;
} parts[SELF_PARTS] = {
	[SELF_ROUNDS] = { "rounds", "sampling rounds" },
	[SELF_SAMPLER] = { "sampler", "thread-state sampler" },
	[SELF_POLLERS] = { "pollers", "stack pollers" },
	[SELF_GUARD] = { "guard", "overhead guard" },
};

const char *self_part__name(enum self_part p)
{
	return (unsigned)p < SELF_PARTS ? parts[p].name : "?";
}

const char *self_part__what(enum self_part p)
{
	return (unsigned)p < SELF_PARTS ? parts[p].what : "?";
}
