// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * futexpong: 4 pairs of threads hand a turn back and forth through one
 * mutex and condition variable each for argv[1] seconds: every handoff is a
 * futex wake and a futex wait in the kernel, so the threads spend their CPU
 * time in futex code, which an on-CPU profile sees. Every thread is named
 * "futexpong".
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

#define PAIRS 4

struct pair {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int turn;
};

static struct pair pairs[PAIRS];
static time_t stop_at;

static void *pong(void *arg)
{
	long id = (long)arg;
	struct pair *p = &pairs[id / 2];
	int me = (int)(id % 2);

	prctl(PR_SET_NAME, "futexpong");
	pthread_mutex_lock(&p->mu);
	while (time(NULL) < stop_at) {
		while (p->turn != me && time(NULL) < stop_at)
			pthread_cond_wait(&p->cv, &p->mu);
		p->turn = !me;
		pthread_cond_signal(&p->cv);
	}
	p->turn = !me;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2 * PAIRS];

	stop_at = time(NULL) + (argc > 1 ? atoi(argv[1]) : 10);
	for (int i = 0; i < PAIRS; i++) {
		pthread_mutex_init(&pairs[i].mu, NULL);
		pthread_cond_init(&pairs[i].cv, NULL);
	}
	for (long i = 0; i < 2 * PAIRS; i++)
		pthread_create(&t[i], NULL, pong, (void *)i);
	for (int i = 0; i < 2 * PAIRS; i++)
		pthread_join(t[i], NULL);
	return 0;
}
