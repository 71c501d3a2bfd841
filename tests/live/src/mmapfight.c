// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mmapfight: 8 threads of one process map, touch and unmap memory for argv[1]
 * seconds. mmap and munmap take the process's mmap_lock (an rwsem) for
 * writing, page faults take it for reading: the threads contend on it in the
 * kernel. Every thread is named "mmapfight".
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>

#define THREADS 8
#define LEN (256 * 1024)

static double stop_at;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *fight(void *arg)
{
	prctl(PR_SET_NAME, "mmapfight");
	while (now() < stop_at) {
		char *p = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			continue;
		for (size_t o = 0; o < LEN; o += 4096)
			p[o] = 1; /* a fault per page: mmap_lock (or the VMA lock) for reading */
		munmap(p, LEN);
	}
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t[THREADS];

	stop_at = now() + (argc > 1 ? atof(argv[1]) : 5);
	prctl(PR_SET_NAME, "mmapfight");
	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, fight, NULL)) {
			perror("pthread_create");
			return 1;
		}
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	return 0;
}
