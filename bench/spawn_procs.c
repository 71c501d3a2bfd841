// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * spawn-procs N [THREADS]: the population of bench/scale.sh. Forks N
 * processes, each with THREADS threads (default 1) asleep in pause(), in
 * this process's group: killing the group ends them all. Prints "ready N"
 * once every one is up, then sleeps. A fork a few tens of microseconds:
 * 30,000 processes in about a second, where a shell's `sleep &` takes half
 * a minute and is charged to the measurement that follows.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void *parked(void *arg)
{
	for (;;)
		pause();
	return arg;
}

static void child(int threads, int ready_fd)
{
	pthread_attr_t a;
	pthread_t t;
	char c = 1;

	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 64 << 10);
	for (int i = 1; i < threads; i++)
		if (pthread_create(&t, &a, parked, NULL))
			break;
	if (write(ready_fd, &c, 1) != 1)
		_exit(1);
	close(ready_fd);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0, threads = argc > 2 ? atoi(argv[2]) : 1, p[2];
	long up = 0;
	char buf[4096];

	if (n <= 0 || threads <= 0 || pipe(p)) {
		fprintf(stderr, "usage: spawn-procs N [THREADS]\n");
		return 2;
	}
	signal(SIGCHLD, SIG_IGN); /* no zombies if one dies */
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("spawn-procs: fork");
			break;
		}
		if (!pid) {
			close(p[0]);
			child(threads, p[1]);
		}
	}
	close(p[1]);
	for (ssize_t r; (r = read(p[0], buf, sizeof(buf))) > 0;)
		up += r;
	printf("ready %ld\n", up);
	fflush(stdout);
	for (;;)
		pause();
}
