// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * protfight: 4 threads of one process flip the protection of their own page of
 * one mapping for argv[1] seconds. Each mprotect takes the process's mmap_lock
 * (an rwsem) for writing: the threads contend on it and, while its owner runs,
 * spin on it in the kernel (rwsem_spin_on_owner), which an on-CPU profile sees.
 * Every thread is named "protfight".
 */
#include <pthread.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <stdlib.h>
#include <time.h>
static char *base;
static time_t stop;
static void *fight(void *arg)
{
	char *p = base + 4096 * (long)arg;
	prctl(PR_SET_NAME, "protfight");
	while (time(NULL) < stop) {
		mprotect(p, 4096, PROT_READ);
		mprotect(p, 4096, PROT_READ | PROT_WRITE);
	}
	return NULL;
}
int main(int argc, char **argv)
{
	pthread_t t[4];
	stop = time(NULL) + atoi(argv[1]);
	base = mmap(NULL, 4096 * 8, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, fight, (void *)i);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	return 0;
}
