// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The workload of tests/cli/diff's recorded pairs (record.sh): one process
 * that spins for SECONDS, spending its time in sonde_fast_path ("before")
 * or in sonde_slow_path ("after": the same work made slower), so that the
 * profiles of the two recordings differ in which function is hot, and in
 * nothing else. Built with frame pointers, so the profile has its stacks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void sonde_fast_path(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}

/* The same sum, one division per step: ten times the time. */
__attribute__((noinline)) static void sonde_slow_path(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i / (sink | 1) + i;
}

__attribute__((noinline)) static void sonde_request(int slow)
{
	if (slow)
		sonde_slow_path(200000);
	else
		sonde_fast_path(200000);
}

int main(int argc, char **argv)
{
	int slow = argc > 1 && !strcmp(argv[1], "after");
	double secs = argc > 2 ? atof(argv[2]) : 10;
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		sonde_request(slow);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	return 0;
}
