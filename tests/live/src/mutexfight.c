// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mutexfight: 8 threads fight over one pthread mutex for argv[1] seconds,
 * each holding it for a short busy stretch, so the others block in
 * futex(FUTEX_WAIT, 2). Every thread is named "mutexfight".
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

#define THREADS 8

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile unsigned long counter;
static double stop_at;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *fight(void *arg)
{
	prctl(PR_SET_NAME, "mutexfight");
	while (now() < stop_at) {
		pthread_mutex_lock(&lock);
		for (int i = 0; i < 20000; i++) /* ~20-50 us held */
			counter++;
		pthread_mutex_unlock(&lock);
	}
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t[THREADS];

	stop_at = now() + (argc > 1 ? atof(argv[1]) : 5);
	prctl(PR_SET_NAME, "mutexfight");
	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, fight, NULL)) {
			perror("pthread_create");
			return 1;
		}
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	printf("%lu\n", counter);
	return 0;
}
